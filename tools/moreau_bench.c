/* moreau-bench: benchmarks that need more than a test's time, with CSV out and
 * SVG plots.
 *
 *   moreau-bench fclib DIR [options]
 *       every solver configuration on every FCLIB / Siconos problem in DIR, at
 *       one or more tolerances of the Siconos error; CSV of (problem, solver,
 *       tolerance, converged, iterations, time, error), Dolan-More performance
 *       profiles (SVG, one per tolerance), a summary like BASELINE.md's, and
 *       with --siconos the ratio of our fastest to Siconos's fastest.
 *   moreau-bench convergence SCENE [options]
 *       the residual of every solver against iteration on one step's problem
 *       of a built-in scene (the same problem for all: the world is rebuilt and
 *       stepped identically before the measured step); CSV and a log-scale SVG.
 *
 *   moreau-bench scenes [DIR] [options]
 *       every scene file of DIR (default scenes/) with every solver: median
 *       ms/step and per stage, iterations, residual, penetration, joint drift,
 *       the scene's claims held or not; CSV, a table, and an SVG performance
 *       profile of ms/step over the runs whose claims held. With --cheapest,
 *       per scene the cheapest setting whose claims still hold, searched down
 *       from the file's own, and the file's ms/step against it (bench_cheapest.c).
 *
 *   moreau-bench table2 [DIR] [options]
 *       the Newton paper's Table 2 (issue 7; bench_table2.c): the paper's scenes
 *       with the Newton solver and with PGS, APGD, P-SPG-FB, beside the paper's
 *       figures; CSV and markdown tables.
 *
 *   moreau-bench peers [options]
 *       Moreau beside MuJoCo, Bullet and ODE on the five shared scenes, one
 *       process per run, interleaved rounds (bench_peers.c); CSV, a markdown
 *       table with the ratios and a bar chart (SVG).
 *
 *   moreau-bench gpu [options]
 *       the solvers over the backend operations on the CPU (one thread, all
 *       threads) and the CUDA device, per step and per iteration, on sphere
 *       piles of about 10^3 to 10^5 contacts, against the card's bandwidth
 *       floor (bench_gpu.c); CSV and SVG.
 *
 *   moreau-bench batch [options]
 *       batches of worlds (moreau/batch.h): world-steps per second against the
 *       number of worlds, one thread and all threads, beside one world alone
 *       (bench_batch.c); CSV and SVG.
 *
 *   moreau-bench sleep [SCENE] [options]
 *       a scene (default the built-in rubble of boxes) with sleeping off and on:
 *       ms/step once settled, sleeping bodies (bench_sleep.c); a table, CSV.
 *
 * Times are wall-clock medians over --repeat runs (a run over 1 s is not
 * repeated); the machine is whatever this runs on: quote it with the figures. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <moreau/fclib.h>
#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "bench_table2.h"
#include "bench_gpu.h"
#include "bench_peers.h"
#include "bench_batch.h"
#include "bench_sleep.h"
#include "bench_scene_run.h"
#include "bench_cheapest.h"
#include "bench_util.h"
#include "cli_settings.h"
#include "bench_cantilever.h"
#include "scenes_builtin.h"
#include "svgplot.h"

#define MAX_CONFIGS 16
#define MAX_TOLS 4

static void usage(FILE *f)
{
    fprintf(f,
            "usage: moreau-bench fclib DIR [options]\n"
            "  --tolerance LIST    Siconos-error tolerances, comma separated (default 1e-4,1e-6)\n"
            "  --max-iterations N  iteration cap of every solve (default 50000)\n"
            "  --solvers LIST      configurations (default auto,pgs,jacobi,apgd,spg; see below)\n"
            "  --repeat K          runs per solve, median time (default 3; runs over 1 s are not repeated)\n"
            "  --out DIR           where fclib.csv and the profiles go (default .)\n"
            "  --solutions DIR     write each final r, one number per line, contact by contact\n"
            "  --siconos CSV       baseline.csv of ../shared/tools/siconos/siconos_baseline.py, run\n"
            "                      on this machine: joined into the profiles and the speed ratio\n"
            "  --progress / --quiet\n"
            "configurations: pgs (PGS, De Saxce steps), jacobi, apgd, spg (each with outer Coulomb\n"
            "updates), and any of them with ':U' for U updates (e.g. apgd:50) or with '-relax' for the\n"
            "convex relaxation alone (e.g. apgd-relax); newton (semismooth Newton on the Alart-Curnier\n"
            "function, exact Coulomb directly, at most 1000 iterations; no ':U' or '-relax'); auto (the\n"
            "default configuration, mo_fc_solve_auto: apgd, then newton, then pgs as each stagnates; the\n"
            "stages that ran are the CSV's last column, e.g. apgd:500>newton:6).\n"
            "\n"
            "usage: moreau-bench convergence SCENE [options]\n"
            "  --steps N           steps before the measured one, with the reference solver (default 120)\n"
            "  --iterations K      iterations of every solver on the measured step (default 500)\n"
            "  --solvers LIST      (default pgs,jacobi,apgd,spg,cg,minres,cholesky; also spg-abbmin,\n"
            "                      P-SPG-FB with ABBmin steps)\n"
            "  --perturb K         also K runs per solver with every body velocity scaled by 1 + 1e-15 u\n"
            "                      before the measured step: iterations to 1e-3 / 1e-6 as median [min-max],\n"
            "                      convergence_SCENE_spread.csv and .svg (default 0)\n"
            "  --set NAME=VALUE    an engine setting by name over each measured solver's (docs/settings.md)\n"
            "  --out DIR           convergence_SCENE.csv and .svg (default .)\n"
            "\n"
            "usage: moreau-bench scenes [DIR] [options]   (DIR: scene files, default scenes)\n"
            "  --scenes LIST       only these scene names (e.g. stack20,b4_wall; default all *.lua in DIR)\n"
            "  --solvers LIST      solver kinds replacing each scene's, or 'scene' for the scene's own\n"
            "                      settings (default pgs,apgd,spg)\n"
            "  --time T            simulate at most T seconds of each scene (default: the scene's duration)\n"
            "  --iterations N      solver iterations per step instead of each scene's\n"
            "  --path DIR          more folders scene files may read from (repeatable)\n"
            "  --set NAME=VALUE    an engine setting by name over every run's (docs/settings.md), else a\n"
            "                      param() of the scene files (repeatable)\n"
            "  --out DIR           scenes.csv and scenes_profile.svg (default .)\n"
            "  --progress / --quiet\n");
    bench_cheapest_usage(f);
    fprintf(f, "\n");
    bench_table2_usage(f);
    fprintf(f, "\n");
    bench_gpu_usage(f);
    fprintf(f, "\n");
    bench_peers_usage(f);
    fprintf(f, "\n");
    bench_batch_usage(f);
    fprintf(f, "\n");
    bench_sleep_usage(f);
    fprintf(f, "\n");
    bench_cantilever_usage(f);
}

/* ---- small helpers ---- */


static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}


/* ---- solver configurations ---- */

typedef struct config {
    char name[32];
    mo_solver_settings s;
    bool chain; /* the default configuration, mo_fc_solve_auto (s: its settings) */
} config;

static int parse_config(const char *tok, int max_it, config *c)
{
    char base[32];
    snprintf(base, sizeof base, "%.31s", tok);
    bool relax = false;
    int updates = 200;
    char *dash = strstr(base, "-relax");
    if (dash) {
        relax = true;
        *dash = '\0';
    }
    char *colon = strchr(base, ':');
    if (colon) {
        updates = atoi(colon + 1);
        *colon = '\0';
        if (updates < 1) return -1;
    }
    c->chain = !strcmp(base, "auto");
    if (c->chain) {
        /* the default configuration: no ':U' or '-relax' (its stages have their own) */
        if (relax || colon) return -1;
        c->s = mo_fc_default_settings();
        c->s.max_iterations = max_it;
        snprintf(c->name, sizeof c->name, "%.31s", tok);
        return 0;
    }
    c->s = mo_default_solver_settings();
    if (!mo_solver_from_name(base, &c->s.kind)) return -1;
    c->s.max_iterations = max_it;
    c->s.warm_start = false;
    /* PGS applies the update inline (any U > 0 switches it on) */
    c->s.coulomb_updates = relax ? 0 : ((mo_solver_caps(c->s.kind) & MO_SOLVER_CAP_INLINE_COULOMB) ? 1 : updates);
    if (c->s.kind == MO_SOLVER_NEWTON) {
        /* semismooth Newton on the Alart-Curnier function: solves Coulomb
         * directly (no updates, no relaxation); at most 1000 Newton iterations */
        if (relax || colon) return -1;
        c->s.coulomb_updates = 0;
        if (c->s.max_iterations > 1000) c->s.max_iterations = 1000;
    }
    snprintf(c->name, sizeof c->name, "%.31s", tok);
    return 0;
}

static int parse_list(const char *list, char out[][32], int max)
{
    int n = 0;
    const char *p = list;
    while (*p && n < max) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= 32) len = 31;
        memcpy(out[n], p, len);
        out[n][len] = '\0';
        n++;
        if (!e) break;
        p = e + 1;
    }
    return n;
}

/* ---- Dolan-More performance profiles ---- */

typedef struct result {
    bool solved;
    double time;  /* s */
    int iterations;
    double error;
    int nstages;      /* solvers that ran (mo_fc_result.stage_count) */
    char stages[64];  /* and their iterations, "apgd:500>newton:6" */
} result;

/* rho_s(tau) for tau at the sorted ratios; writes an SVG and prints rho(1), rho(2), rho(10) */
static void profile(const char *path, const char *title, int np, int ns, char names[][40], const result *res,
                    FILE *summary)
{
    /* res[p * ns + s] */
    mo_plot *pl = mo_plot_create(title, "performance ratio tau (time / fastest solver's time)",
                                 "fraction of problems solved within tau", MO_AXIS_LOG, MO_AXIS_LINEAR);
    double tau_max = 2.0;
    double *ratio = malloc(sizeof(double) * (size_t)(np + 1));
    double *xs = malloc(sizeof(double) * (size_t)(2 * np + 4)), *ys = malloc(sizeof(double) * (size_t)(2 * np + 4));
    for (int p = 0; p < np; p++)
        for (int s = 0; s < ns; s++) {
            const result *r = &res[p * ns + s];
            if (!r->solved) continue;
            double best = INFINITY;
            for (int t = 0; t < ns; t++)
                if (res[p * ns + t].solved && res[p * ns + t].time < best) best = res[p * ns + t].time;
            double q = r->time / best;
            if (q > tau_max) tau_max = q;
        }
    tau_max *= 1.5;
    fprintf(summary, "| solver | solved | rho(1) | rho(2) | rho(10) |\n|---|---|---|---|---|\n");
    for (int s = 0; s < ns; s++) {
        int k = 0, solved = 0;
        for (int p = 0; p < np; p++) {
            const result *r = &res[p * ns + s];
            if (!r->solved) continue;
            double best = INFINITY;
            for (int t = 0; t < ns; t++)
                if (res[p * ns + t].solved && res[p * ns + t].time < best) best = res[p * ns + t].time;
            ratio[k++] = r->time / best;
            solved++;
        }
        qsort(ratio, (size_t)k, sizeof(double), bench_cmp_double);
        int n = 0;
        xs[n] = 1.0;
        ys[n++] = 0.0;
        for (int i = 0; i < k; i++) {
            xs[n] = ratio[i] < 1.0 ? 1.0 : ratio[i];
            ys[n++] = (double)(i + 1) / (double)np;
        }
        xs[n] = tau_max;
        ys[n] = n > 0 ? ys[n - 1] : 0.0;
        n++;
        mo_plot_add_series(pl, names[s], xs, ys, n, true);
        double r1 = 0, r2 = 0, r10 = 0;
        for (int i = 0; i < k; i++) {
            r1 += ratio[i] <= 1.0 + 1e-12;
            r2 += ratio[i] <= 2.0;
            r10 += ratio[i] <= 10.0;
        }
        fprintf(summary, "| %s | %d/%d | %.2f | %.2f | %.2f |\n", names[s], solved, np, r1 / np, r2 / np, r10 / np);
    }
    mo_plot_set_xrange(pl, 1.0, tau_max);
    mo_plot_set_yrange(pl, 0.0, 1.0);
    if (mo_plot_write_svg(pl, path) != 0) fprintf(stderr, "moreau-bench: cannot write %s: %s\n", path, strerror(errno));
    mo_plot_destroy(pl);
    free(ratio);
    free(xs);
    free(ys);
}

/* ---- Siconos baseline CSV ---- */

typedef struct sic_row {
    char problem[128], solver[32];
    double tol, time;
    bool converged;
    int iters;
} sic_row;

static int read_siconos(const char *path, sic_row **out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "moreau-bench: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int n = 0, cap = 64;
    sic_row *rows = malloc(sizeof(sic_row) * (size_t)cap);
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        free(rows);
        return -1;
    }
    /* header: problem,solver,tol,converged,info,iters,maxit,time_s,... */
    while (fgets(line, sizeof line, f)) {
        char *fld[16];
        int nf = 0;
        char *p = line;
        while (nf < 16) {
            fld[nf++] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = '\0';
            p = c + 1;
        }
        if (nf < 8) continue;
        if (n == cap) {
            cap *= 2;
            rows = realloc(rows, sizeof(sic_row) * (size_t)cap);
        }
        sic_row *r = &rows[n++];
        snprintf(r->problem, sizeof r->problem, "%.127s", fld[0]);
        snprintf(r->solver, sizeof r->solver, "%.31s", fld[1]);
        r->tol = atof(fld[2]);
        r->converged = !strncmp(fld[3], "True", 4);
        r->iters = atoi(fld[5]);
        r->time = atof(fld[7]);
        if (!isfinite(r->time)) r->converged = false;
    }
    fclose(f);
    *out = rows;
    return n;
}

/* ---- fclib mode ---- */

static int bench_fclib(int argc, char **argv)
{
    if (argc < 1) {
        usage(stderr);
        return 2;
    }
    const char *dir = argv[0], *out = ".", *sol_dir = NULL, *sic_path = NULL;
    char cfg_names[MAX_CONFIGS][32];
    int ncfg = parse_list("auto,pgs,jacobi,apgd,spg", cfg_names, MAX_CONFIGS);
    double tols[MAX_TOLS] = {1e-4, 1e-6};
    int ntol = 2, max_it = 50000, repeat = 3;
    bool show = isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--progress")) show = true;
        else if (!strcmp(a, "--quiet")) show = false;
        else if (!v) {
            fprintf(stderr, "moreau-bench: %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--tolerance")) {
            char t[MAX_TOLS][32];
            ntol = parse_list(v, t, MAX_TOLS);
            for (int k = 0; k < ntol; k++) tols[k] = atof(t[k]);
            i++;
        } else if (!strcmp(a, "--max-iterations")) max_it = atoi(argv[++i]);
        else if (!strcmp(a, "--solvers")) ncfg = parse_list(argv[++i], cfg_names, MAX_CONFIGS);
        else if (!strcmp(a, "--repeat")) repeat = atoi(argv[++i]);
        else if (!strcmp(a, "--out")) out = argv[++i];
        else if (!strcmp(a, "--solutions")) sol_dir = argv[++i];
        else if (!strcmp(a, "--siconos")) sic_path = argv[++i];
        else {
            fprintf(stderr, "moreau-bench: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (max_it < 1 || repeat < 1) {
        fprintf(stderr, "moreau-bench: --max-iterations and --repeat must be >= 1\n");
        return 2;
    }
    for (int k = 0; k < ntol; k++)
        if (!(tols[k] > 0.0)) {
            fprintf(stderr, "moreau-bench: tolerances must be > 0\n");
            return 2;
        }
    config cfg[MAX_CONFIGS];
    for (int c = 0; c < ncfg; c++)
        if (parse_config(cfg_names[c], max_it, &cfg[c])) {
            fprintf(stderr, "moreau-bench: unknown solver configuration '%s'\n", cfg_names[c]);
            return 2;
        }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "moreau-bench: cannot open directory '%s': %s\n", dir, strerror(errno));
        return 1;
    }
    char *files[512];
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 512) {
        size_t l = strlen(e->d_name);
        if ((l > 4 && !strcmp(e->d_name + l - 4, ".dat")) || (l > 5 && !strcmp(e->d_name + l - 5, ".hdf5")))
            files[nf++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(files, (size_t)nf, sizeof(char *), cmp_str);
    if (nf == 0) {
        fprintf(stderr, "moreau-bench: no .dat or .hdf5 problems in '%s'\n", dir);
        return 1;
    }
    if (bench_ensure_dir(out) || (sol_dir && bench_ensure_dir(sol_dir))) return 1;

    char path[4096];
    snprintf(path, sizeof path, "%s/fclib.csv", out);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;
    fprintf(csv, "problem,solver,tolerance,converged,iterations,time_ms,error,contacts,stages\n");
    result *res = calloc((size_t)(nf * ncfg * ntol), sizeof(result));
    int total = nf * ncfg * ntol, done = 0;
    for (int f = 0; f < nf; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        mo_fc_problem fc;
        char err[512];
        if (mo_fc_read(path, &fc, err, sizeof err) != MO_OK) {
            fprintf(stderr, "\nmoreau-bench: %s\n", err);
            done += ncfg * ntol;
            continue;
        }
        int m = 3 * fc.nc;
        double *r = malloc(sizeof(double) * (size_t)(m + 1));
        for (int t = 0; t < ntol; t++)
            for (int c = 0; c < ncfg; c++) {
                char what[256];
                snprintf(what, sizeof what, "%.180s %.31s %.0e", files[f], cfg[c].name, tols[t]);
                bench_progress(show, done, total, what);
                mo_solver_settings s = cfg[c].s;
                s.tolerance = tols[t];
                double times[16];
                int nrun = 0;
                mo_fc_result fr;
                for (int k = 0; k < repeat && k < 16; k++) {
                    memset(r, 0, sizeof(double) * (size_t)m);
                    double t0 = bench_now_s();
                    mo_status st = cfg[c].chain ? mo_fc_solve_auto(&fc, &s, r, NULL, &fr, err, sizeof err)
                                                : mo_fc_solve(&fc, &s, r, NULL, &fr, NULL, NULL, err, sizeof err);
                    if (st != MO_OK) {
                        fprintf(stderr, "\nmoreau-bench: %s: %s\n", files[f], err);
                        break;
                    }
                    times[nrun++] = bench_now_s() - t0;
                    if (times[nrun - 1] > 1.0) break;
                }
                if (nrun == 0) continue;
                qsort(times, (size_t)nrun, sizeof(double), bench_cmp_double);
                result *rs = &res[(t * nf + f) * ncfg + c];
                rs->solved = fr.converged;
                rs->time = times[nrun / 2];
                rs->iterations = fr.iterations;
                rs->error = fr.error;
                /* the solvers that ran, with their iterations: "apgd:500>newton:6" */
                int at = 0;
                for (int k = 0; k < fr.stage_count && at < (int)sizeof rs->stages - 1; k++)
                    at += snprintf(rs->stages + at, sizeof rs->stages - (size_t)at, "%s%s:%d", k ? ">" : "",
                                   mo_solver_name(fr.stage_kind[k]), fr.stage_iterations[k]);
                rs->nstages = fr.stage_count;
                fprintf(csv, "%s,%s,%g,%d,%d,%.6g,%.6e,%d,%s\n", files[f], cfg[c].name, tols[t], fr.converged,
                        fr.iterations, 1e3 * rs->time, fr.error, fc.nc, rs->stages);
                fflush(csv);
                if (sol_dir) {
                    char sp[4096 + 256]; /* room for sol_dir (4096) and the name: gcc 12 -Wformat-truncation */
                    snprintf(sp, sizeof sp, "%.2000s/%.1000s.%.31s.%g.txt", sol_dir, files[f], cfg[c].name, tols[t]);
                    FILE *sf = fopen(sp, "w");
                    if (sf) {
                        for (int i = 0; i < m; i++) fprintf(sf, "%.17g\n", r[i]);
                        fclose(sf);
                    } else {
                        fprintf(stderr, "\nmoreau-bench: cannot write %s: %s\n", sp, strerror(errno));
                    }
                }
                done++;
            }
        free(r);
        mo_fc_free(&fc);
    }
    bench_progress(show, total, total, "done");
    fclose(csv);

    /* Siconos rows, joined by problem file name */
    sic_row *sic = NULL;
    int nsic = sic_path ? read_siconos(sic_path, &sic) : 0;
    char snames[32][32];
    int nss = 0;
    for (int i = 0; i < nsic; i++) {
        bool seen = false;
        for (int k = 0; k < nss; k++) seen |= !strcmp(snames[k], sic[i].solver);
        if (!seen && nss < 32) snprintf(snames[nss++], 32, "%s", sic[i].solver);
    }

    printf("# moreau-bench fclib %s: %d problems, iteration cap %d, median of up to %d runs\n", dir, nf, max_it,
           repeat);
    for (int t = 0; t < ntol; t++) {
        int ns = ncfg + nss;
        char names[MAX_CONFIGS + 32][40];
        result *all = calloc((size_t)(nf * ns), sizeof(result));
        for (int c = 0; c < ncfg; c++) snprintf(names[c], 40, "%.31s", cfg[c].name);
        for (int k = 0; k < nss; k++) snprintf(names[ncfg + k], 40, "siconos %.31s", snames[k]);
        for (int f = 0; f < nf; f++) {
            for (int c = 0; c < ncfg; c++) all[f * ns + c] = res[(t * nf + f) * ncfg + c];
            for (int i = 0; i < nsic; i++) {
                if (strcmp(sic[i].problem, files[f]) || fabs(sic[i].tol - tols[t]) > 1e-3 * tols[t]) continue;
                for (int k = 0; k < nss; k++)
                    if (!strcmp(snames[k], sic[i].solver)) {
                        result *rs = &all[f * ns + ncfg + k];
                        rs->solved = sic[i].converged;
                        rs->time = sic[i].time;
                        rs->iterations = sic[i].iters;
                    }
            }
        }
        printf("\n## tolerance %g\n\n| problem |", tols[t]);
        for (int c = 0; c < ncfg; c++) printf(" %s |", cfg[c].name);
        printf("\n|---|");
        for (int c = 0; c < ncfg; c++) printf("---|");
        printf("\n");
        double lsum = 0.0;
        int nboth = 0;
        for (int f = 0; f < nf; f++) {
            printf("| %s |", files[f]);
            double ours = INFINITY, theirs = INFINITY;
            for (int c = 0; c < ncfg; c++) {
                const result *rs = &all[f * ns + c];
                /* a chain's stages when more than one ran */
                char via[80] = "";
                if (rs->nstages > 1) snprintf(via, sizeof via, " (%s)", rs->stages);
                if (rs->solved) {
                    printf(" %.3g ms / %d it%s |", 1e3 * rs->time, rs->iterations, via);
                    if (rs->time < ours) ours = rs->time;
                } else {
                    printf(" not solved (%.1e)%s |", rs->error, via);
                }
            }
            for (int k = 0; k < nss; k++)
                if (all[f * ns + ncfg + k].solved && all[f * ns + ncfg + k].time < theirs)
                    theirs = all[f * ns + ncfg + k].time;
            printf("\n");
            if (isfinite(ours) && isfinite(theirs)) {
                lsum += log(ours / theirs);
                nboth++;
            }
        }
        printf("\n");
        char title[128];
        snprintf(title, sizeof title, "FCLIB problems, Siconos error <= %g: performance profile", tols[t]);
        snprintf(path, sizeof path, "%s/fclib_profile_%g.svg", out, tols[t]);
        profile(path, title, nf, ns, names, all, stdout);
        printf("\nprofile: %s\n", path);
        if (nss > 0)
            printf("geometric mean of (our fastest / Siconos's fastest) over %d problems both solved: %.3f\n", nboth,
                   nboth ? exp(lsum / nboth) : NAN);
        free(all);
    }
    snprintf(path, sizeof path, "%s/fclib.csv", out);
    printf("\ncsv: %s\n", path);
    free(sic);
    free(res);
    for (int f = 0; f < nf; f++) free(files[f]);
    return 0;
}

/* ---- convergence mode ---- */

/* The first iteration whose recorded residual is at most tol, or -1. */
static int iterations_to(const mo_step_stats *st, double tol)
{
    for (int i = 0; i < st->residual_count; i++)
        if (st->residual_history[i] <= tol) return i + 1;
    return -1;
}

/* Multiplies every component of every dynamic body's velocity by 1 + 1e-15 u,
 * u uniform in [-1, 1] from a xorshift generator seeded with seed: a change at
 * the level of rounding, which moves the measured step's problem by as much as
 * reordering a sum would. */
static void perturb_velocities(mo_world *w, const mo_scene *sc, unsigned seed)
{
    uint64_t z = 0x9e3779b97f4a7c15ull * (seed + 1u);
    for (int i = 0; i < sc->nbodies; i++) {
        mo_vec3 v, om;
        if (mo_body_linear_velocity(w, sc->bodies[i], &v) != MO_OK) continue;
        if (mo_body_angular_velocity(w, sc->bodies[i], &om) != MO_OK) continue;
        double *c[6] = {&v.x, &v.y, &v.z, &om.x, &om.y, &om.z};
        for (int k = 0; k < 6; k++) {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            double u = 2.0 * (double)(z >> 11) / 9007199254740992.0 - 1.0;
            *c[k] *= 1.0 + 1e-15 * u;
        }
        mo_body_set_velocity(w, sc->bodies[i], v, om);
    }
}

/* The solver of a convergence run: any solver name, or "spg-abbmin" (P-SPG-FB
 * with ABBmin steps instead of the listing's alternation). */
static bool convergence_solver(const char *name, mo_solver_settings *s)
{
    *s = mo_default_solver_settings();
    if (!strcmp(name, "spg-abbmin")) {
        s->kind = MO_SOLVER_SPG;
        s->spg.step_rule = MO_SPG_ABBMIN;
        return true;
    }
    return mo_solver_from_name(name, &s->kind);
}

/* iterations to a tolerance over the perturbed runs: median, min, max, misses */
static void spread_summary(const int *its, int n, char *out, size_t cap)
{
    double v[1024];
    int k = 0, miss = 0;
    for (int i = 0; i < n; i++) {
        if (its[i] < 0) miss++;
        else v[k++] = its[i];
    }
    if (k == 0) {
        snprintf(out, cap, "— (%d of %d not reached)", miss, n);
        return;
    }
    double lo = v[0], hi = v[0];
    for (int i = 1; i < k; i++) lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    double med = bench_median(v, k);
    if (miss) snprintf(out, cap, "%.0f [%.0f-%.0f], %d not reached", med, lo, hi, miss);
    else snprintf(out, cap, "%.0f [%.0f-%.0f]", med, lo, hi);
}

/* convergence's --set NAME=VALUE: engine settings over each measured solver's */
static cli_settings conv_sets;

static int bench_convergence(int argc, char **argv)
{
    if (argc < 1) {
        usage(stderr);
        return 2;
    }
    const char *scene = argv[0], *out = ".";
    int steps = 120, iters = 500, perturb = 0;
    char names[MAX_CONFIGS][32];
    int ns = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "moreau-bench: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--steps")) steps = atoi(argv[++i]);
        else if (!strcmp(a, "--iterations")) iters = atoi(argv[++i]);
        else if (!strcmp(a, "--solvers")) ns = parse_list(argv[++i], names, MAX_CONFIGS);
        else if (!strcmp(a, "--perturb")) perturb = atoi(argv[++i]);
        else if (!strcmp(a, "--out")) out = argv[++i];
        else if (!strcmp(a, "--set")) {
            char serr[512];
            const char *nv = argv[++i];
            int k = cli_settings_set(&conv_sets, nv, serr, sizeof serr);
            if (k <= 0) {
                fprintf(stderr, "moreau-bench: --set %s: %s\n", nv, k < 0 ? serr : "not an engine setting");
                return 2;
            }
        } else {
            fprintf(stderr, "moreau-bench: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (steps < 0 || iters < 1) {
        fprintf(stderr, "moreau-bench: --steps must be >= 0 and --iterations >= 1\n");
        return 2;
    }
    if (perturb < 0 || perturb > 1000) {
        fprintf(stderr, "moreau-bench: --perturb must be in [0, 1000]\n");
        return 2;
    }
    if (bench_ensure_dir(out)) return 1;
    if (ns == 0) ns = parse_list("pgs,jacobi,apgd,spg,cg,minres,cholesky", names, MAX_CONFIGS);
    for (int k = 0; k < ns; k++) {
        mo_solver_settings s;
        if (!convergence_solver(names[k], &s)) {
            fprintf(stderr, "moreau-bench: unknown solver '%s'\n", names[k]);
            return 2;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/convergence_%s.csv", out, scene);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;
    fprintf(csv, "solver,iteration,ccp_residual,coulomb_error\n");
    FILE *spread = NULL;
    if (perturb > 0) {
        snprintf(path, sizeof path, "%s/convergence_%s_spread.csv", out, scene);
        spread = bench_open_write(path);
        if (!spread) {
            fclose(csv);
            return 1;
        }
        fprintf(spread, "solver,run,iterations_1e-3,iterations_1e-6,final_ccp_residual\n");
    }
    char title[160];
    snprintf(title, sizeof title, "%s, step %d: residual against iteration (cold start)", scene, steps + 1);
    mo_plot *pl = mo_plot_create(title, "iteration", "CCP residual (m/s)", MO_AXIS_LINEAR, MO_AXIS_LOG);
    snprintf(title, sizeof title, "%s, step %d: iterations to 1e-6 over %d runs perturbed at 1e-15", scene, steps + 1,
             perturb + 1);
    mo_plot *sp = perturb > 0 ? mo_plot_create(title, "fraction of runs", "iterations to CCP residual 1e-6",
                                               MO_AXIS_LINEAR, MO_AXIS_LINEAR)
                              : NULL;
    printf("# moreau-bench convergence %s: step %d, %d iterations per solver, cold start\n", scene, steps + 1, iters);
    printf("| solver | rows | final CCP residual | Coulomb error | solve ms | ms / iteration | to 1e-3 | to 1e-6 |\n"
           "|---|---|---|---|---|---|---|---|\n");
    int *its3 = malloc(sizeof(int) * (size_t)(perturb + 1)), *its6 = malloc(sizeof(int) * (size_t)(perturb + 1));
    char (*line)[160] = calloc((size_t)ns, sizeof *line);
    for (int k = 0; k < ns; k++) {
        for (int run = 0; run <= perturb; run++) {
            mo_world_def wd = mo_default_world_def();
            wd.solver.kind = MO_SOLVER_APGD;
            wd.solver.max_iterations = 100;
            mo_world *w = NULL;
            char err[512];
            mo_scene sc;
            if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK || mo_scene_build(scene, w, &sc, err, sizeof err)) {
                fprintf(stderr, "moreau-bench: %s\n", err);
                mo_world_destroy(w);
                return 1;
            }
            for (int s = 0; s < steps; s++) mo_world_step(w);
            mo_solver_settings s;
            convergence_solver(names[k], &s);
            s.max_iterations = iters;
            s.warm_start = false;
            s.record_residuals = true;
            if (mo_world_set_solver(w, &s) != MO_OK || mo_world_set_settings(w, conv_sets.items, conv_sets.n) != MO_OK) {
                fprintf(stderr, "moreau-bench: %s\n", mo_world_last_error(w));
                return 1;
            }
            if (run > 0) perturb_velocities(w, &sc, (unsigned)run);
            mo_world_step(w);
            mo_step_stats st = mo_world_last_stats(w);
            its3[run] = iterations_to(&st, 1e-3);
            its6[run] = iterations_to(&st, 1e-6);
            if (spread) fprintf(spread, "%s,%d,%d,%d,%.6e\n", names[k], run, its3[run], its6[run], st.residual);
            if (run == 0) {
                double *x = malloc(sizeof(double) * (size_t)(st.residual_count + 1));
                for (int i = 0; i < st.residual_count; i++) {
                    x[i] = i + 1;
                    fprintf(csv, "%s,%d,%.6e,%.6e\n", names[k], i + 1, st.residual_history[i],
                            st.coulomb_error_history[i]);
                }
                mo_plot_add_series(pl, names[k], x, st.residual_history, st.residual_count, false);
                char t3[16], t6[16];
                snprintf(t3, sizeof t3, its3[0] < 0 ? "—" : "%d", its3[0]);
                snprintf(t6, sizeof t6, its6[0] < 0 ? "—" : "%d", its6[0]);
                printf("| %s | %d | %.3e | %.3e | %.3f | %.4f | %s | %s |\n", names[k], st.rows, st.residual,
                       st.coulomb_error, 1e3 * st.t_solve, st.iterations ? 1e3 * st.t_solve / st.iterations : 0.0,
                       t3, t6);
                fflush(stdout);
                free(x);
            }
            mo_scene_free(&sc);
            mo_world_destroy(w);
        }
        if (perturb > 0) {
            char a[64], b[64];
            spread_summary(its3, perturb + 1, a, sizeof a);
            spread_summary(its6, perturb + 1, b, sizeof b);
            snprintf(line[k], sizeof line[k], "| %s | %d | %s | %s |", names[k], perturb + 1, a, b);
            /* the distribution: sorted iterations against the fraction of runs (misses left out) */
            double *x = malloc(sizeof(double) * (size_t)(perturb + 1)), *y = malloc(sizeof(double) * (size_t)(perturb + 1));
            int n = 0;
            for (int run = 0; run <= perturb; run++)
                if (its6[run] >= 0) y[n++] = its6[run];
            qsort(y, (size_t)n, sizeof(double), bench_cmp_double);
            for (int i = 0; i < n; i++) x[i] = (i + 1.0) / (perturb + 1.0);
            mo_plot_add_series(sp, names[k], x, y, n, true);
            if (!strcmp(names[k], "minres") && n > 0) { /* the target: twice MINRES's median */
                double tx[2] = {0.0, 1.0}, ty[2];
                ty[0] = ty[1] = 2.0 * bench_median(y, n);
                mo_plot_add_series(sp, "2 x minres (median)", tx, ty, 2, false);
            }
            free(x);
            free(y);
        }
    }
    fclose(csv);
    snprintf(path, sizeof path, "%s/convergence_%s.svg", out, scene);
    if (mo_plot_write_svg(pl, path) != 0) fprintf(stderr, "moreau-bench: cannot write %s: %s\n", path, strerror(errno));
    mo_plot_destroy(pl);
    printf("\nplot: %s\ncsv: %s/convergence_%s.csv\n", path, out, scene);
    if (perturb > 0) {
        fclose(spread);
        printf("\n# iterations over %d runs: unperturbed, and %d with every velocity scaled by 1 + 1e-15 u\n"
               "| solver | runs | to 1e-3: median [min-max] | to 1e-6: median [min-max] |\n|---|---|---|---|\n",
               perturb + 1, perturb);
        for (int k = 0; k < ns; k++) printf("%s\n", line[k]);
        snprintf(path, sizeof path, "%s/convergence_%s_spread.svg", out, scene);
        if (mo_plot_write_svg(sp, path) != 0)
            fprintf(stderr, "moreau-bench: cannot write %s: %s\n", path, strerror(errno));
        printf("\nplot: %s\ncsv: %s/convergence_%s_spread.csv\n", path, out, scene);
    }
    mo_plot_destroy(sp);
    free(its3);
    free(its6);
    free(line);
    return 0;
}

/* ---- scenes mode ---- */

static int bench_scenes(int argc, char **argv)
{
    const char *dir = "scenes", *out = ".", *scene_list = NULL, *solver_list = "pgs,apgd,spg";
    double tmax = 0.0;
    int iters = 0;
    bool show = isatty(STDERR_FILENO);
    const char *paths[16], *params[64];
    int npaths = 0, nparams = 0;
    static cli_settings cs; /* --set: engine settings over each scene's and the solver's */
    char serr[512];
    bool cheapest = false; /* --cheapest: bench_cheapest.c */
    bench_cheapest_options co = bench_cheapest_defaults();
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !strcmp(a, "--cheapest")) {
            if (a[0] == '-') cheapest = true;
            else dir = a;
            continue;
        }
        const char *v = NULL;
        const int kind = bench_option(argc, argv, &i, &show, &v);
        if (kind < 0) return 2;
        if (kind == 1) continue;
        if (!strcmp(a, "--scenes")) scene_list = v;
        else if (!strcmp(a, "--solvers")) solver_list = v;
        else if (!strcmp(a, "--time")) tmax = atof(v);
        else if (!strcmp(a, "--iterations")) iters = atoi(v);
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--margin")) co.margin = atof(v);
        else if (!strcmp(a, "--resolution")) co.resolution = atof(v);
        else if (!strcmp(a, "--repeat")) co.repeat = atoi(v);
        else if (!strcmp(a, "--path") && npaths < 16) paths[npaths++] = v;
        else if (!strcmp(a, "--set")) {
            int k = cli_settings_set(&cs, v, serr, sizeof serr);
            if (k < 0) {
                fprintf(stderr, "moreau-bench: --set %s: %s\n", v, serr);
                return 2;
            }
            if (k == 0 && nparams < 64) params[nparams++] = v; /* a scene parameter */
        } else {
            fprintf(stderr, "moreau-bench: unknown option '%s'\n", a);
            return 2;
        }
    }
    char solvers[MAX_CONFIGS][32];
    int nsol = parse_list(solver_list, solvers, MAX_CONFIGS);
    for (int k = 0; k < nsol; k++) {
        mo_solver_kind kind;
        if (strcmp(solvers[k], "scene") != 0 && !mo_solver_from_name(solvers[k], &kind)) {
            fprintf(stderr, "moreau-bench: unknown solver '%s'\n", solvers[k]);
            return 2;
        }
    }
    /* the scene files: --scenes, else every *.lua of DIR, sorted */
    char *names[256];
    int nsc = 0;
    if (scene_list) {
        char tmp[64][32];
        int n = parse_list(scene_list, tmp, 64);
        for (int k = 0; k < n; k++) names[nsc++] = strdup(tmp[k]);
    } else {
        DIR *d = opendir(dir);
        if (!d) {
            fprintf(stderr, "moreau-bench: cannot open scene folder '%s': %s\n", dir, strerror(errno));
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(d)) && nsc < 256) {
            size_t len = strlen(e->d_name);
            if (len > 4 && !strcmp(e->d_name + len - 4, ".lua")) {
                names[nsc] = strdup(e->d_name);
                names[nsc][len - 4] = '\0';
                nsc++;
            }
        }
        closedir(d);
        qsort(names, (size_t)nsc, sizeof(char *), cmp_str);
    }
    if (nsc == 0) {
        fprintf(stderr, "moreau-bench: no scene files in '%s'\n", dir);
        return 1;
    }
    if (bench_ensure_dir(out)) return 1;
    mo_scene_options opt = mo_default_scene_options();
    opt.search_paths = paths;
    opt.search_path_count = npaths;
    opt.params = params;
    opt.param_count = nparams;
    if (cheapest) {
        co.out = out;
        co.tmax = tmax;
        int rc = bench_cheapest(dir, names, nsc, &opt, &cs, &co, show);
        for (int i = 0; i < nsc; i++) free(names[i]);
        return rc;
    }
    scene_run *runs = calloc((size_t)(nsc * nsol), sizeof(scene_run));
    for (int i = 0; i < nsc; i++)
        for (int k = 0; k < nsol; k++) {
            scene_run *r = &runs[i * nsol + k];
            snprintf(r->scene, sizeof r->scene, "%.63s", names[i]);
            snprintf(r->solver, sizeof r->solver, "%.31s", solvers[k]);
            char path[4096], label[128];
            snprintf(path, sizeof path, "%s/%s.lua", dir, names[i]);
            snprintf(label, sizeof label, "%.60s %.31s", names[i], solvers[k]);
            bench_run_scene(path, solvers[k], tmax, iters, &opt, &cs, show, label, r);
            if (!r->loaded || r->error[0]) fprintf(stderr, "\nmoreau-bench: %s with %s: %s\n", names[i], solvers[k], r->error);
        }
    /* CSV */
    char path[4096];
    snprintf(path, sizeof path, "%s/scenes.csv", out);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;
    fprintf(csv, "scene,solver,steps,ms_step_median,collide_ms,assemble_ms,solve_ms,iterations_mean,residual_final,"
                 "max_penetration_m,max_joint_error_m,checks,checks_failed,claim_held,error\n");
    printf("# moreau-bench scenes %s: %d scenes x %d solvers%s\n\n", dir, nsc, nsol,
           tmax > 0.0 ? " (time capped)" : "");
    printf("| scene | solver | steps | ms/step | collide | assemble | solve | iterations | residual | max pen. m | "
           "max joint err. m | claims |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nsc * nsol; i++) {
        const scene_run *r = &runs[i];
        char err[256];
        snprintf(err, sizeof err, "%s", r->error);
        for (char *c = err; *c; c++)
            if (*c == ',' || *c == '\n' || *c == '"') *c = ';';
        fprintf(csv, "%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.2f,%.4e,%.6f,%.6f,%d,%d,%d,%s\n", r->scene, r->solver, r->steps,
                r->ms_median, r->collide, r->assemble, r->solve, r->iterations_mean, r->residual_final,
                r->max_penetration, r->max_joint_error, r->checks, r->checks_failed, r->claim ? 1 : 0, err);
        if (!r->loaded) {
            printf("| %s | %s | — | not loaded: %.80s |||||||| |\n", r->scene, r->solver, r->error);
            continue;
        }
        printf("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.1f | %.2e | %.4f | %.5f | %s (%d/%d) |\n", r->scene,
               r->solver, r->steps, r->ms_median, r->collide, r->assemble, r->solve, r->iterations_mean,
               r->residual_final, r->max_penetration, r->max_joint_error, r->claim ? "held" : "**failed**",
               r->checks - r->checks_failed, r->checks);
    }
    fclose(csv);
    /* performance profile of ms/step, "solved" = claims held */
    result *res = calloc((size_t)(nsc * nsol), sizeof(result));
    char pnames[MAX_CONFIGS][40];
    for (int k = 0; k < nsol; k++) snprintf(pnames[k], 40, "%.31s", solvers[k]);
    for (int i = 0; i < nsc * nsol; i++) {
        res[i].solved = runs[i].claim && runs[i].steps > 0;
        res[i].time = runs[i].ms_median;
    }
    char svg[4096];
    snprintf(svg, sizeof svg, "%s/scenes_profile.svg", out);
    printf("\n");
    profile(svg, "scene catalogue: ms per step where the scene's claims held", nsc, nsol, pnames, res, stdout);
    printf("\nprofile: %s\ncsv: %s\n", svg, path);
    free(res);
    free(runs);
    for (int i = 0; i < nsc; i++) free(names[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "fclib")) return bench_fclib(argc - 2, argv + 2);
    if (!strcmp(argv[1], "convergence")) return bench_convergence(argc - 2, argv + 2);
    if (!strcmp(argv[1], "scenes")) return bench_scenes(argc - 2, argv + 2);
    if (!strcmp(argv[1], "table2")) return bench_table2(argc - 2, argv + 2);
    if (!strcmp(argv[1], "cantilever")) return bench_cantilever(argc - 2, argv + 2);
    if (!strcmp(argv[1], "batch")) return bench_batch(argc - 2, argv + 2);
    if (!strcmp(argv[1], "sleep")) return bench_sleep(argc - 2, argv + 2);
    if (!strcmp(argv[1], "gpu")) {
        cli_cuda_module_default();
        return bench_gpu(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "peers")) return bench_peers(argc - 2, argv + 2, argv[0]);
    fprintf(stderr, "moreau-bench: unknown benchmark '%s' (fclib, convergence, scenes, table2, cantilever, gpu, peers, "
                    "batch, sleep)\n",
            argv[1]);
    usage(stderr);
    return 2;
}
