/* bench_cantilever.c: `moreau-bench cantilever`, the tetrahedral cantilever
 * against Euler-Bernoulli under refinement (issue 7: "within 5 % at the finest
 * mesh in the benchmark; linear tetrahedra lock in bending"; the coarse,
 * monotone part is test fem_world's group 2).
 *
 * The beam: 1 m x 0.1 m x 0.1 m along x, its x = 0 face's nodes fixed, gravity
 * -z, linear corotational, E 1e8 Pa, nu 0.3, density 1000: Euler-Bernoulli's
 * tip sag q L^4 / (8 E I) = 14.715 mm with q = rho g A, I = a^4 / 12. Meshes of
 * nx x n x n cells (fem_box.h: six tetrahedra a cell around its main
 * diagonal). Static: implicit Euler steps of h = 1 s from rest (the inertia
 * term M dx / h^2 is then 0.15 % of the load after the first step and shrinks
 * with each), Newton with sparse Cholesky inner solves (its primal form for
 * these meshes), until the tip's sag changes by less than 1e-5 of itself
 * between steps (at most 8 steps). The tip's sag is the mean sag of the
 * x = L face's nodes.
 *
 * Output: a table on stdout, cantilever.csv and cantilever.svg (error against
 * tetrahedra, log-log) in --out; one progress line a mesh on stderr. */
#include "bench_cantilever.h"
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fem_box.h" /* the structured box mesh the FEM tests use too */
#include "moreau/moreau.h"
#include "svgplot.h"

void bench_cantilever_usage(FILE *f)
{
    fprintf(f, "usage: moreau-bench cantilever [options]\n"
               "  the FEM cantilever (1 x 0.1 x 0.1 m, corotational E 1e8 Pa, nu 0.3) against\n"
               "  Euler-Bernoulli's 14.715 mm under refinement; static (implicit Euler, h = 1 s)\n"
               "  --meshes LIST       cells NXxN (x by n by n), comma separated\n"
               "                      (default 4x1,8x2,16x2,16x4,32x4,32x8,64x8,128x8,128x10: 11 min, 1.3 GB)\n"
               "  --iterations N      Newton iterations per step (default 10)\n"
               "  --out DIR           cantilever.csv and cantilever.svg (default .)\n");
}


typedef struct cant_run {
    int nx, n, tets, nodes, steps;
    double sag, residual, seconds;
    int ok;
} cant_run;

static cant_run run_mesh(int nx, int n, int iterations, int cholesky)
{
    cant_run r = {nx, n, 6 * nx * n * n, (nx + 1) * (n + 1) * (n + 1), 0, 0.0, 0.0, 0.0, 0};
    const double L = 1.0, a = 0.1;
    mo_world_def d = mo_default_world_def();
    d.gravity = (mo_vec3){0, 0, -9.81};
    d.time_step = 1.0;
    d.solver.kind = MO_SOLVER_NEWTON;
    d.solver.newton.iterations = iterations;
    d.solver.newton.linear = cholesky ? MO_NEWTON_CHOLESKY : MO_NEWTON_PCR;
    d.solver.newton.linear_iterations = cholesky ? 1 : 500;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-bench cantilever: %s\n", err);
        return r;
    }
    box_mesh b;
    box_mesh_make(&b, nx, n, n, (mo_vec3){0.0, -a / 2, -a / 2}, (mo_vec3){L, a, a});
    mo_fem_material_def mat = {1e8, 0.3, 1000.0, MO_FEM_COROTATIONAL};
    int *fixed = (int *)malloc(sizeof(int) * (size_t)((n + 1) * (n + 1))), nf = 0;
    for (int k = 0; k <= n; k++)
        for (int j = 0; j <= n; j++) fixed[nf++] = node_index(&b, 0, j, k);
    mo_fem_mesh_def fd = box_mesh_def(&b, &mat, fixed, nf);
    mo_fem_mesh_id id;
    double t0 = bench_now_s(), prev = 0.0;
    if (mo_fem_mesh_create(w, &fd, &id) != MO_OK) {
        fprintf(stderr, "moreau-bench cantilever: %s\n", mo_world_last_error(w));
    } else {
        for (int s = 0; s < 8; s++) {
            mo_world_step(w);
            double z = 0.0;
            for (int k = 0; k <= n; k++)
                for (int j = 0; j <= n; j++) {
                    mo_vec3 p;
                    mo_fem_mesh_node_position(w, id, node_index(&b, nx, j, k), &p);
                    z += p.z - b.nodes[node_index(&b, nx, j, k)].z;
                }
            r.sag = -z / ((n + 1) * (n + 1));
            r.residual = mo_world_last_stats(w).residual;
            r.steps = s + 1;
            if (s > 0 && fabs(r.sag - prev) <= 1e-5 * fabs(r.sag)) {
                r.ok = 1;
                break;
            }
            prev = r.sag;
        }
    }
    r.seconds = bench_now_s() - t0;
    free(fixed);
    box_mesh_free(&b);
    mo_world_destroy(w);
    return r;
}

int bench_cantilever(int argc, char **argv)
{
    const char *out = ".", *list = "4x1,8x2,16x2,16x4,32x4,32x8,64x8,128x8,128x10";
    int iterations = 10;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "moreau-bench: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--meshes")) list = argv[++i];
        else if (!strcmp(argv[i], "--iterations")) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out")) out = argv[++i];
        else {
            fprintf(stderr, "moreau-bench: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (iterations < 1 || iterations > 1000) {
        fprintf(stderr, "moreau-bench: --iterations must be in [1, 1000]\n");
        return 2;
    }
    int meshes[32][2], nm = 0;
    for (const char *p = list; *p && nm < 32;) {
        int nx, n, used = 0;
        if (sscanf(p, "%dx%d%n", &nx, &n, &used) != 2 || nx < 1 || n < 1 || nx > 1000 || n > 200) {
            fprintf(stderr, "moreau-bench: --meshes wants NXxN,... (e.g. 16x2,32x4), got '%s'\n", p);
            return 2;
        }
        meshes[nm][0] = nx;
        meshes[nm][1] = n;
        nm++;
        p += used;
        if (*p == ',') p++;
        else if (*p) {
            fprintf(stderr, "moreau-bench: --meshes wants NXxN,... (e.g. 16x2,32x4), got '%s'\n", list);
            return 2;
        }
    }
    if (bench_ensure_dir(out)) return 1;
    const int cholesky = mo_solver_available(MO_SOLVER_CHOLESKY);
    if (!cholesky) fprintf(stderr, "moreau-bench cantilever: no CHOLMOD in this build: PCR 500, slow and inexact\n");
    const double L = 1.0, a = 0.1, E = 1e8, rho = 1000.0, g = 9.81;
    const double eb = rho * g * a * a * L * L * L * L / (8.0 * E * (a * a * a * a / 12.0));
    char path[4096];
    snprintf(path, sizeof path, "%s/cantilever.csv", out);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;
    fprintf(csv, "nx,n,tets,nodes,tip_sag_m,euler_bernoulli_m,error,steps,converged,newton_residual_m,seconds\n");
    printf("# moreau-bench cantilever: Euler-Bernoulli tip sag %.6f m; Newton %d iterations a step, %s\n", eb,
           iterations, cholesky ? "Cholesky (primal form)" : "PCR 500");
    printf("| cells | tets | nodes | tip sag (m) | error | steps | residual (m) | s |\n|---|---|---|---|---|---|---|---|\n");
    double xs[32], ys[32];
    int np = 0;
    for (int k = 0; k < nm; k++) {
        fprintf(stderr, "cantilever %d x %d x %d (%d tets)...\n", meshes[k][0], meshes[k][1], meshes[k][1],
                6 * meshes[k][0] * meshes[k][1] * meshes[k][1]);
        cant_run r = run_mesh(meshes[k][0], meshes[k][1], iterations, cholesky);
        double e = (r.sag - eb) / eb;
        fprintf(csv, "%d,%d,%d,%d,%.9e,%.9e,%.6e,%d,%d,%.3e,%.3f\n", r.nx, r.n, r.tets, r.nodes, r.sag, eb, e, r.steps,
                r.ok, r.residual, r.seconds);
        fflush(csv);
        printf("| %d x %d x %d | %d | %d | %.6f | %+.2f %% | %d%s | %.1e | %.1f |\n", r.nx, r.n, r.n, r.tets, r.nodes,
               r.sag, 100 * e, r.steps, r.ok ? "" : " (not settled)", r.residual, r.seconds);
        fflush(stdout);
        fprintf(stderr, "  tip sag %.6f m, error %+.2f %%, %.1f s\n", r.sag, 100 * e, r.seconds);
        if (r.sag > 0.0 && np < 32) {
            xs[np] = r.tets;
            ys[np++] = fabs(e);
        }
    }
    fclose(csv);
    mo_plot *pl = mo_plot_create("FEM cantilever: tip sag error against Euler-Bernoulli", "tetrahedra",
                                 "|tip sag - Euler-Bernoulli| / Euler-Bernoulli", MO_AXIS_LOG, MO_AXIS_LOG);
    mo_plot_add_series(pl, "corotational, 6 tets a cell", xs, ys, np, false);
    double five[2] = {0.05, 0.05}, xr[2] = {np ? xs[0] : 1, np ? xs[np - 1] : 10};
    mo_plot_add_series(pl, "5 %", xr, five, 2, false);
    snprintf(path, sizeof path, "%s/cantilever.svg", out);
    if (mo_plot_write_svg(pl, path) != 0) fprintf(stderr, "moreau-bench: cannot write %s\n", path);
    mo_plot_destroy(pl);
    printf("\nplot: %s\ncsv: %s/cantilever.csv\n", path, out);
    return 0;
}
