/* bench_gpu.c: `moreau-bench gpu`: the solvers written over the backend
 * operations (jacobi, apgd, spg) on the CPU with one thread, on the CPU with
 * all threads and on the CUDA device, on sphere piles sized for about 10^3,
 * 10^4 and 10^5 contacts.
 *
 * Each pile ("pile:K", K spheres falling into an open box) is stepped with
 * PGS on all threads until it has settled (--warmup steps); then every solver and backend
 * runs --steps steps at I and at 2 I iterations (tolerance 0, so every step
 * does exactly that many; the device at I, J and 2 J, --device-iterations).
 * The solve stage's median time per step at I iterations is "ms per step";
 * the difference between the medians at 2 I and I over I (J on the device)
 * is "ms per iteration": the cost of one more iteration, without the fixed
 * costs of a solve (on the device: the upload of the problem and the
 * download of the impulses; on both: the step-size estimate before the
 * first iteration).
 *
 * The physical floor of one iteration on the device is the bytes it must
 * move over the card's memory bandwidth. The bytes per iteration come from a
 * model of the ops each solver calls per iteration (each vector of m rows
 * read or written once per op, 8 bytes an entry, the two sparse products of
 * N x = J (W^T x) + Sigma x at 12 bytes per stored entry plus their row
 * pointers and gathered vectors), stated in bytes_model() below; it is a lower
 * bound: caches may serve the gathers, but no op can move less. The
 * bandwidth is --bandwidth GB/s, else the card's datasheet figure when its
 * name is known (H100 SXM 3350, H100 PCIe 2000, H200 4800, A100 80GB 2039).
 *
 * Output: DIR/gpu.csv, DIR/gpu.svg (ms per iteration against contacts, log
 * axes, with each solver's floor), and a table on stdout. Without a usable
 * device the CPU rows are still measured and the sentence is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gpu.h"
#include "scenes_builtin.h"
#include "svgplot.h"

#define MAX_SIZES 8
#define NCONF 3 /* cpu1, cpuN, cuda */

static const char *const conf_names[NCONF] = {"cpu-1", "cpu-all", "cuda"};

void bench_gpu_usage(FILE *f)
{
    fprintf(f, "usage: moreau-bench gpu [options]\n"
               "  --spheres LIST      pile sizes (default 400,4000,40000: about 10^3, 10^4, 10^5 contacts)\n"
               "  --solvers LIST      of jacobi, apgd, spg (default all three)\n"
               "  --iterations I      iterations per step; steps also run at 2 I (default 40)\n"
               "  --device-iterations J  the device's ms per iteration from steps at J and 2 J (default 200:\n"
               "                      a device iteration is short against the step's fixed costs)\n"
               "  --steps S           measured steps per solver, backend and iteration count (default 3)\n"
               "  --warmup W          PGS steps before measuring, to settle the pile (default 150)\n"
               "  --threads N         the CPU's 'all threads' (default 0: OpenMP's default)\n"
               "  --backends LIST     of cpu-1, cpu-all, cuda (default all three)\n"
               "  --bandwidth GBS     the card's memory bandwidth for the floor (default: from its name)\n"
               "  --out DIR           gpu.csv and gpu.svg (default .)\n");
}

/* the card's datasheet bandwidth in GB/s from its name, 0 when unknown */
static double card_bandwidth(const char *name)
{
    if (strstr(name, "H200")) return 4800.0;
    if (strstr(name, "H100") && strstr(name, "PCIe")) return 2000.0;
    if (strstr(name, "H100")) return 3350.0;
    if (strstr(name, "A100") && strstr(name, "80GB")) return 2039.0;
    if (strstr(name, "A100")) return 1555.0;
    return 0.0;
}

/* Bytes one iteration moves at least (see the header): vector passes of the solver's iteration (each an
 * array of m doubles read or written once) and one product with N. Counted from the ops each solver
 * calls per iteration (solver/jacobi.c, apgd.c, spg.c; no backtracking retries, default settings): jacobi 12
 * passes (block_solve 2, waxpy 3, project 2, axpy 3, residuals 2); apgd 25 (extrap 3 + 3, axpy 3, waxpy 3,
 * project 2, step_dots with the restart sum 6, waxpy 3, residuals 2); spg 28 (pstep 4, project 2, sub 3,
 * dot 2, the fused sums 6, axpy 3 + 3, waxpy 3, residuals 2). */
static double bytes_model(const char *solver, long m, long n, long nnz)
{
    double passes = !strcmp(solver, "jacobi") ? 12.0 : !strcmp(solver, "apgd") ? 25.0 : 28.0;
    /* W^T x: n x m CSR (12 bytes an entry, n + 1 row pointers, x gathered, t written); J t: the same
     * over m rows, with y = Sigma x + J t in its epilogue (Sigma and x read: 2 passes of m) */
    double product = 2.0 * 12.0 * (double)nnz + 4.0 * (double)(n + m + 2) + 16.0 * (double)(n + m) + 16.0 * (double)m;
    return passes * 8.0 * (double)m + product;
}

typedef struct row {
    int spheres, contacts, rows, nnz, dofs;
    char solver[16];
    int conf;
    double ms_step, ms_iter, bytes, floor_ms;
    bool ran;
} row;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median solve-stage time (ms) of S steps of w at the given settings; *on_device: every step's solve ran
 * on the device */
static double measure(mo_world *w, int steps, bool *on_device)
{
    double t[64];
    int s = steps < 64 ? steps : 64;
    *on_device = true;
    for (int i = 0; i < s; i++) {
        if (mo_world_step(w) != MO_OK) return NAN;
        mo_step_stats st = mo_world_last_stats(w);
        t[i] = 1e3 * st.t_solve;
        *on_device = *on_device && st.backend == MO_BACKEND_CUDA;
    }
    qsort(t, (size_t)s, sizeof t[0], cmp_double);
    return s % 2 ? t[s / 2] : 0.5 * (t[s / 2 - 1] + t[s / 2]);
}

static int set_run(mo_world *w, const char *solver, int iterations, int threads, mo_backend b)
{
    char s1[64], s2[64], s3[64], s4[64], s5[64];
    snprintf(s1, sizeof s1, "solver.kind=%s", solver);
    snprintf(s2, sizeof s2, "solver.iterations=%d", iterations);
    snprintf(s3, sizeof s3, "threads=%d", threads);
    snprintf(s4, sizeof s4, "backend=%s", mo_backend_name(b));
    snprintf(s5, sizeof s5, "solver.tolerance=0");
    const char *items[5] = {s1, s2, s3, s5, s4};
    return mo_world_set_settings(w, items, 5) == MO_OK ? 0 : -1;
}

int bench_gpu(int argc, char **argv)
{
    int sizes[MAX_SIZES] = {400, 4000, 40000}, nsizes = 3;
    char solvers[3][16] = {"jacobi", "apgd", "spg"};
    int nsolvers = 3, iterations = 40, steps = 3, warmup = 150, threads = 0, dev_iterations = 200;
    double bandwidth = 0.0;
    const char *out = ".";
    bool conf_on[NCONF] = {true, true, true};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spheres") && v) {
            nsizes = 0;
            char tmp[256];
            snprintf(tmp, sizeof tmp, "%s", v);
            for (char *t = strtok(tmp, ","); t && nsizes < MAX_SIZES; t = strtok(NULL, ",")) sizes[nsizes++] = atoi(t);
            i++;
        } else if (!strcmp(a, "--solvers") && v) {
            nsolvers = 0;
            char tmp[256];
            snprintf(tmp, sizeof tmp, "%s", v);
            for (char *t = strtok(tmp, ","); t && nsolvers < 3; t = strtok(NULL, ",")) {
                if (strcmp(t, "jacobi") && strcmp(t, "apgd") && strcmp(t, "spg")) {
                    fprintf(stderr, "moreau-bench gpu: solver '%s' is not one of jacobi, apgd, spg\n", t);
                    return 2;
                }
                snprintf(solvers[nsolvers++], sizeof solvers[0], "%s", t);
            }
            i++;
        } else if (!strcmp(a, "--backends") && v) {
            char tmp[256];
            snprintf(tmp, sizeof tmp, "%s", v);
            for (int c = 0; c < NCONF; c++) conf_on[c] = false;
            for (char *t = strtok(tmp, ","); t; t = strtok(NULL, ",")) {
                int c = 0;
                while (c < NCONF && strcmp(t, conf_names[c])) c++;
                if (c == NCONF) {
                    fprintf(stderr, "moreau-bench gpu: backend '%s' is not one of cpu-1, cpu-all, cuda\n", t);
                    return 2;
                }
                conf_on[c] = true;
            }
            i++;
        } else if (!strcmp(a, "--iterations") && v) iterations = atoi(argv[++i]);
        else if (!strcmp(a, "--device-iterations") && v) dev_iterations = atoi(argv[++i]);
        else if (!strcmp(a, "--steps") && v) steps = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--threads") && v) threads = atoi(argv[++i]);
        else if (!strcmp(a, "--bandwidth") && v) bandwidth = atof(argv[++i]);
        else if (!strcmp(a, "--out") && v) out = argv[++i];
        else {
            fprintf(stderr, "moreau-bench gpu: unknown option '%s'\n", a);
            bench_gpu_usage(stderr);
            return 2;
        }
    }
    if (nsizes < 1 || nsolvers < 1 || iterations < 1 || dev_iterations < 1 || steps < 1 || warmup < 0 || threads < 0) {
        bench_gpu_usage(stderr);
        return 2;
    }
    for (int k = 0; k < nsizes; k++)
        if (sizes[k] < 1) {
            fprintf(stderr, "moreau-bench gpu: --spheres takes positive sizes\n");
            return 2;
        }
    row *rows = calloc((size_t)(nsizes * nsolvers * NCONF), sizeof *rows);
    if (!rows) return 1;
    int nrows = 0;
    char device[128] = "", no_device[512] = "";
    for (int k = 0; k < nsizes; k++) {
        mo_world_def d = mo_default_world_def();
        mo_world *w = NULL;
        char err[512], name[32];
        if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-bench gpu: %s\n", err);
            free(rows);
            return 1;
        }
        snprintf(name, sizeof name, "pile:%d", sizes[k]);
        mo_scene sc;
        if (mo_scene_build(name, w, &sc, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-bench gpu: %s\n", err);
            mo_world_destroy(w);
            free(rows);
            return 1;
        }
        mo_scene_free(&sc);
        fprintf(stderr, "gpu: %s: %d warm-up steps\n", name, warmup);
        char wth[32];
        snprintf(wth, sizeof wth, "threads=%d", threads);
        const char *warm[1] = {wth};
        mo_world_set_settings(w, warm, 1);
        for (int i = 0; i < warmup; i++) mo_world_step(w);
        mo_step_stats st0 = mo_world_last_stats(w);
        for (int s = 0; s < nsolvers; s++)
            for (int c = 0; c < NCONF; c++) {
                row *r = &rows[nrows++];
                r->spheres = sizes[k];
                r->contacts = st0.contacts;
                r->rows = st0.rows;
                r->nnz = st0.nonzeros;
                r->dofs = st0.dofs;
                snprintf(r->solver, sizeof r->solver, "%s", solvers[s]);
                r->conf = c;
                r->ms_step = r->ms_iter = NAN;
                const mo_backend b = c == 2 ? MO_BACKEND_CUDA : MO_BACKEND_CPU;
                const int th = c == 0 ? 1 : threads;
                if (!conf_on[c] || (c == 2 && no_device[0])) continue;
                if (set_run(w, solvers[s], iterations, th, b)) {
                    if (c == 2) snprintf(no_device, sizeof no_device, "%s", mo_world_last_error(w));
                    else fprintf(stderr, "moreau-bench gpu: %s\n", mo_world_last_error(w));
                    continue;
                }
                if (c == 2 && !device[0]) snprintf(device, sizeof device, "%s", mo_world_device_name(w));
                bool dev1 = false, dev2 = false, dev3 = true;
                double t1 = measure(w, steps, &dev1), ta = t1;
                const int it_a = c == 2 ? dev_iterations : iterations;
                if (c == 2) { /* the per-iteration figure from J and 2 J iterations */
                    set_run(w, solvers[s], it_a, th, b);
                    ta = measure(w, steps, &dev3);
                }
                set_run(w, solvers[s], 2 * it_a, th, b);
                double t2 = measure(w, steps, &dev2);
                r->ms_step = t1;
                r->ms_iter = (t2 - ta) / it_a;
                r->ran = isfinite(t1) && isfinite(t2) && isfinite(ta) && (c != 2 || (dev1 && dev2 && dev3));
                r->bytes = bytes_model(r->solver, r->rows, r->dofs, r->nnz);
                fprintf(stderr, "gpu: %s %s %s: %.3f ms/step, %.4f ms/iteration\n", name, r->solver, conf_names[c],
                        r->ms_step, r->ms_iter);
            }
        mo_world_set_backend(w, MO_BACKEND_CPU);
        mo_world_destroy(w);
    }
    if (bandwidth <= 0.0) bandwidth = card_bandwidth(device);
    char path[1024];
    snprintf(path, sizeof path, "%s/gpu.csv", out);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "moreau-bench gpu: cannot write %s\n", path);
        free(rows);
        return 1;
    }
    fprintf(f, "spheres,contacts,rows,nonzeros,dofs,solver,backend,device,iterations,ms_per_step,ms_per_iteration,"
               "speedup_vs_cpu1,bytes_per_iteration_model,bandwidth_gbs,floor_ms_per_iteration,ratio_to_floor\n");
    printf("device: %s\n", device[0] ? device : "none");
    if (no_device[0]) printf("cuda backend not measured: %s\n", no_device);
    printf("%8s %8s %7s %8s %11s %13s %9s %12s %9s\n", "contacts", "rows", "solver", "backend", "ms/step", "ms/iteration",
           "x cpu-1", "floor ms/it", "x floor");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        const row *base = r - r->conf; /* the cpu-1 row of the same size and solver */
        double speed = r->ran && base->ran ? base->ms_iter / r->ms_iter : NAN;
        r->floor_ms = r->conf == 2 && bandwidth > 0.0 ? r->bytes / (bandwidth * 1e9) * 1e3 : NAN;
        double ratio = r->ran ? r->ms_iter / r->floor_ms : NAN;
        fprintf(f, "%d,%d,%d,%d,%d,%s,%s,\"%s\",%d,%.6g,%.6g,%.4g,%.6g,%.6g,%.6g,%.4g\n", r->spheres, r->contacts,
                r->rows, r->nnz, r->dofs, r->solver, conf_names[r->conf], r->conf == 2 ? device : "", iterations,
                r->ms_step, r->ms_iter, speed, r->bytes, r->conf == 2 ? bandwidth : NAN, r->floor_ms, ratio);
        if (!r->ran && (r->conf == 2 || !conf_on[r->conf])) continue;
        printf("%8d %8d %7s %8s %11.3f %13.5f %9.2f %12.5f %9.2f\n", r->contacts, r->rows, r->solver,
               conf_names[r->conf], r->ms_step, r->ms_iter, speed, r->floor_ms, ratio);
    }
    fclose(f);
    /* ms per iteration against contacts, one line per solver and backend, and each solver's floor */
    mo_plot *p = mo_plot_create("one solver iteration", "contacts", "ms per iteration", MO_AXIS_LOG, MO_AXIS_LOG);
    for (int s = 0; s < nsolvers && p; s++)
        for (int c = 0; c <= NCONF; c++) {
            double x[MAX_SIZES], y[MAX_SIZES];
            int n = 0;
            for (int i = 0; i < nrows; i++) {
                const row *r = &rows[i];
                if (strcmp(r->solver, solvers[s]) || r->conf != (c == NCONF ? 2 : c)) continue;
                x[n] = r->contacts;
                y[n++] = c == NCONF ? r->floor_ms : (r->ran ? r->ms_iter : NAN);
            }
            char label[96];
            snprintf(label, sizeof label, "%s %s", solvers[s], c == NCONF ? "floor (bandwidth)" : conf_names[c]);
            mo_plot_add_series(p, label, x, y, n, false);
        }
    snprintf(path, sizeof path, "%s/gpu.svg", out);
    if (!p || mo_plot_write_svg(p, path)) fprintf(stderr, "moreau-bench gpu: cannot write %s\n", path);
    mo_plot_destroy(p);
    printf("wrote %s/gpu.csv and %s/gpu.svg\n", out, out);
    free(rows);
    return 0;
}
