/* bench_table2.c: `moreau-bench table2 [DIR]`, the Newton paper's Table 2
 * benchmark (issue 7).
 *
 * Runs scene files of DIR (default scenes/) first with the non-smooth Newton
 * solver, then with each of --solvers (default pgs, apgd, spg), and records per
 * run: bodies, joints, FEM elements, contacts (mean, max), solver iterations
 * (Newton iterations for Newton, sweeps for the others) and Newton's inner
 * linear iterations per step (median, mean), per-stage ms per step (medians),
 * total ms per step, final and worst residual, penetration, joint drift, the
 * scene's checks. Writes newton_table2.csv into --out and prints markdown
 * tables: ours next to the paper's Table 2, the solvers side by side with the
 * cost ratio to Newton, and per scene who holds the claims.
 *
 * How a solver is chosen for a scene: a scene file that reads param("solver")
 * gets --set solver=NAME (its own settings for that solver, e.g. Newton with
 * a residual stop); otherwise the scene's solver settings are kept and only
 * the kind is replaced (as `moreau-bench scenes` does); a scene that already
 * uses the kind runs as it is. A world with FEM meshes refuses every solver
 * but Newton: those runs are recorded "n/a" with the engine's sentence.
 *
 * A scene is given as NAME or NAME:KEY=VALUE:..., each KEY=VALUE a
 * param(KEY) value of the scene file, except time=T (simulate at most T s of
 * this scene), substeps=K (override the world's substeps), newton=ITxLIN and
 * tolerance=X (Newton iterations x inner linear iterations, and the Newton
 * residual stop in m, for the Newton run only), which belong to the benchmark. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "bench_table2.h"
#include "bench_util.h"
#include "cli_settings.h"

#define T2_MAX_SCENES 64
#define T2_MAX_SOLVERS 8
#define T2_MAX_PARAMS 8

/* ---- the paper's Table 2 ----
 * Macklin, Erleben, Mueller, Chentanez, Jeschke, Makoviychuk: "Non-Smooth
 * Newton Methods for Deformable Multi-Body Dynamics", ACM TOG 38(5), 2019,
 * Table 2 (/work/shared/papers/macklin-nonsmooth-newton.md): bodies, joints,
 * tetrahedra, contacts (in the largest island), Newton and linear iterations
 * per step, assembly and solve ms per step (average, standard deviation) on an
 * NVIDIA GTX 1070 GPU, 32-bit floats. `ours` is the scene file of this
 * repository that models the example, NULL when there is none. */
typedef struct paper_row {
    const char *example, *ours;
    int bodies, joints, tetra, contacts, island, newton, linear;
    double asm_avg, asm_sd, solve_avg, solve_sd;
} paper_row;

static const paper_row paper[] = {
    {"Allegro DexNet", NULL, 21, 21, 0, 104, 104, 8, 20, 0.4, 0.1, 10.0, 1.5},
    {"Allegro Ball", "gripper_ball", 21, 21, 427, 409, 409, 6, 50, 0.35, 0.05, 11.4, 1.2},
    {"PneuNet", "soft_finger", 1, 0, 2241, 532, 532, 4, 80, 0.3, 0.05, 22.25, 1.4},
    {"Fetch Tomato", NULL, 29, 28, 319, 371, 371, 4, 50, 0.45, 0.05, 12.2, 1.25},
    {"Fetch Beam", "beam", 42, 42, 0, 300, 300, 6, 50, 0.2, 0.1, 18.6, 2.25},
    {"Arch", "arch", 20, 0, 0, 134, 134, 6, 20, 0.15, 0.05, 7.75, 1.4},
    {"Table Pile", "table_pile", 54, 0, 0, 936, 736, 4, 20, 0.1, 0.05, 3.7, 0.95},
    {"Humanoid Run", "humanoids", 5200, 4800, 0, 10893, 33, 4, 10, 0.8, 0.05, 8.9, 0.25},
    {"Yumi Cabinet", NULL, 6400, 6600, 0, 4082, 55, 5, 25, 1.8, 0.25, 56.0, 6.4},
};
#define N_PAPER ((int)(sizeof paper / sizeof paper[0]))

static const paper_row *paper_for(const char *scene)
{
    for (int i = 0; i < N_PAPER; i++)
        if (paper[i].ours && !strcmp(paper[i].ours, scene)) return &paper[i];
    return NULL;
}

/* the default scene list: the Newton paper's scenes of SCENES.md (those
 * present in DIR are run); long ones capped so the whole run stays near 10 min */
static const char *const default_specs[] = {
    "heavy_stack:variant=2", "heavy_stack:variant=10", "arch", "beam", "table_pile", "humanoids:time=1",
    "chain1000:time=1", "chain1000:substeps=1", "extension", "gripper_ball", "soft_finger",
};
#define N_DEFAULT ((int)(sizeof default_specs / sizeof default_specs[0]))

void bench_table2_usage(FILE *f)
{
    fprintf(f,
            "usage: moreau-bench table2 [DIR] [options]   (DIR: scene files, default scenes)\n"
            "  the Newton paper's Table 2: each scene with newton, then with each of --solvers\n"
            "  --scenes LIST       scenes, comma separated, each NAME or NAME:KEY=VALUE:... with KEY a\n"
            "                      param() of the scene file, or time=T / substeps=K for this run,\n"
            "                      newton=ITxLIN / tolerance=X (m) for its Newton run\n"
            "                      (default: the Newton paper's scenes present in DIR:\n"
            "                      heavy_stack:variant=2, heavy_stack:variant=10, arch, beam, table_pile,\n"
            "                      humanoids:time=1, chain1000:time=1, chain1000:substeps=1,\n"
            "                      extension, gripper_ball, soft_finger)\n"
            "  --solvers LIST      solvers compared with newton (default pgs,apgd,spg)\n"
            "  --time T            simulate at most T seconds of each scene (default: the scene's duration)\n"
            "  --path DIR          more folders scene files may read from (repeatable)\n"
            "  --set NAME=VALUE    an engine setting by name over every run's (docs/settings.md; repeatable)\n"
            "  --out DIR           newton_table2.csv (default .)\n"
            "  --progress / --quiet   per-step progress bar (default on a terminal) / no progress lines\n");
}


static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double mean(const double *v, int n)
{
    if (n <= 0) return NAN;
    double s = 0.0;
    for (int i = 0; i < n; i++) s += v[i];
    return s / n;
}

/* ---- scene specs ---- */

typedef struct t2_spec {
    char text[128];  /* as given */
    char name[64];
    char params[T2_MAX_PARAMS][64];
    int nparams;
    double time;     /* 0: none */
    int substeps;    /* 0: the scene's */
    int newton_it, newton_lin; /* newton=ITxLIN for the Newton run; 0: as set */
    double newton_tol;         /* tolerance=X (m) for the Newton run; < 0: as set */
    bool solver_param; /* the file reads param("solver") */
} t2_spec;

/* "NAME[:KEY=VALUE...]"; 0, or -1 with a sentence in err */
static int parse_spec(const char *s, t2_spec *sp, char *err, size_t n)
{
    memset(sp, 0, sizeof *sp);
    sp->newton_tol = -1.0;
    if (strlen(s) >= sizeof sp->text) {
        snprintf(err, n, "scene '%.40s...' is too long", s);
        return -1;
    }
    snprintf(sp->text, sizeof sp->text, "%s", s);
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (!tok || !*tok) {
        snprintf(err, n, "empty scene name in '%s'", s);
        return -1;
    }
    snprintf(sp->name, sizeof sp->name, "%s", tok);
    while ((tok = strtok_r(NULL, ":", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1]) {
            snprintf(err, n, "scene '%s': '%s' is not KEY=VALUE", s, tok);
            return -1;
        }
        if (!strncmp(tok, "time=", 5)) {
            char *end;
            sp->time = strtod(eq + 1, &end);
            if (*end || !(sp->time > 0.0) || !isfinite(sp->time)) {
                snprintf(err, n, "scene '%s': time must be a number > 0, got '%s'", s, eq + 1);
                return -1;
            }
        } else if (!strncmp(tok, "substeps=", 9)) {
            char *end;
            long k = strtol(eq + 1, &end, 10);
            if (*end || k < 1 || k > 1000) {
                snprintf(err, n, "scene '%s': substeps must be an integer in [1, 1000], got '%s'", s, eq + 1);
                return -1;
            }
            sp->substeps = (int)k;
        } else if (!strncmp(tok, "newton=", 7)) {
            int a = 0, b = 0;
            char x = 0, tail = 0;
            if (sscanf(eq + 1, "%d%c%d%c", &a, &x, &b, &tail) != 3 || x != 'x' || a < 1 || a > 1000 || b < 1 ||
                b > 100000) {
                snprintf(err, n, "scene '%s': newton must be ITERATIONSxLINEAR (1..1000 x 1..100000), got '%s'", s,
                         eq + 1);
                return -1;
            }
            sp->newton_it = a;
            sp->newton_lin = b;
        } else if (!strncmp(tok, "tolerance=", 10)) {
            char *end;
            sp->newton_tol = strtod(eq + 1, &end);
            if (*end || !(sp->newton_tol >= 0.0) || !isfinite(sp->newton_tol)) {
                snprintf(err, n, "scene '%s': tolerance must be a number >= 0 (m), got '%s'", s, eq + 1);
                return -1;
            }
        } else {
            if (sp->nparams == T2_MAX_PARAMS) {
                snprintf(err, n, "scene '%s': more than %d parameters", s, T2_MAX_PARAMS);
                return -1;
            }
            snprintf(sp->params[sp->nparams++], 64, "%.63s", tok);
        }
    }
    return 0;
}

/* does the scene file read param("solver")? */
static bool reads_solver_param(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0) len = 0;
    char *t = malloc((size_t)len + 1);
    size_t got = t ? fread(t, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!t) return false;
    t[got] = '\0';
    bool yes = strstr(t, "param(\"solver\"") || strstr(t, "param('solver'");
    free(t);
    return yes;
}

/* ---- one run ---- */

typedef struct t2_run {
    const t2_spec *spec;
    char solver[32];
    const char *how;        /* "param" (--set solver=), "scene" (its own settings), "kind" (kind replaced) */
    bool loaded, na, claim;
    char error[256];
    char failed[512];       /* names and details of the failed checks */
    int steps, substeps;
    double sim_time;
    int bodies, joints, particles, elements;
    double contacts_mean;
    int contacts_max;
    double it_med, it_mean, lin_med, lin_mean; /* per (sub)step */
    double ms_med, predict, collide, assemble, solve, integrate;
    double resid_final, resid_worst, max_pen, max_joint;
    int nan_warnings, checks, checks_failed;
    double wall;            /* s, the whole run */
} t2_run;

/* --set NAME=VALUE: engine settings applied over every run's own (after its solver and substeps) */
static cli_settings t2_sets;

static void run_one(const char *dir, t2_run *r, double tmax, const mo_scene_options *base, bool show)
{
    const t2_spec *sp = r->spec;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.lua", dir, sp->name);
    const char *params[T2_MAX_PARAMS + 1];
    char solver_set[48];
    int np = 0;
    for (int i = 0; i < sp->nparams; i++) params[np++] = sp->params[i];
    if (sp->solver_param) {
        snprintf(solver_set, sizeof solver_set, "solver=%s", r->solver);
        params[np++] = solver_set;
        r->how = "param";
    }
    mo_scene_options opt = *base;
    opt.params = params;
    opt.param_count = np;
    mo_scene_file *sf = NULL;
    double w0 = bench_now_s();
    if (mo_scene_file_load(path, &opt, &sf, r->error, sizeof r->error) != MO_OK) return;
    r->loaded = true;
    mo_world *w = mo_scene_file_world(sf);
    mo_fem_mesh_id meshes[64];
    int nm = mo_world_fem_meshes(w, meshes, 64);
    for (int i = 0; i < nm && i < 64; i++) {
        int nodes = 0, el = 0;
        if (mo_fem_mesh_counts(w, meshes[i], &nodes, &el) == MO_OK) r->elements += el;
    }
    if (!sp->solver_param) {
        mo_solver_settings s = mo_world_solver(w);
        mo_solver_kind kind;
        mo_solver_from_name(r->solver, &kind); /* checked by the caller */
        if (s.kind == kind) {
            r->how = "scene";
        } else {
            r->how = "kind";
            s.kind = kind;
            if (mo_world_set_solver(w, &s) != MO_OK) {
                snprintf(r->error, sizeof r->error, "%s", mo_world_last_error(w));
                r->na = nm > 0; /* FEM meshes: Newton only */
                mo_scene_file_destroy(sf);
                return;
            }
        }
    }
    if (!strcmp(r->solver, "newton") && (sp->newton_it > 0 || sp->newton_tol >= 0.0)) {
        mo_solver_settings s = mo_world_solver(w);
        if (sp->newton_it > 0) {
            s.newton.iterations = sp->newton_it;
            s.newton.linear_iterations = sp->newton_lin;
        }
        if (sp->newton_tol >= 0.0) s.tolerance = sp->newton_tol;
        if (mo_world_set_solver(w, &s) != MO_OK) {
            snprintf(r->error, sizeof r->error, "%s", mo_world_last_error(w));
            mo_scene_file_destroy(sf);
            return;
        }
    }
    if (sp->substeps > 0 && mo_world_set_substeps(w, sp->substeps) != MO_OK) {
        snprintf(r->error, sizeof r->error, "%s", mo_world_last_error(w));
        mo_scene_file_destroy(sf);
        return;
    }
    if (mo_world_set_settings(w, t2_sets.items, t2_sets.n) != MO_OK) {
        snprintf(r->error, sizeof r->error, "%s", mo_world_last_error(w));
        mo_scene_file_destroy(sf);
        return;
    }
    r->substeps = mo_world_substeps(w);
    double dur = mo_scene_file_duration(sf), h = mo_world_time_step(w);
    if (!(dur > 0.0)) dur = 5.0;
    if (sp->time > 0.0 && sp->time < dur) dur = sp->time;
    if (tmax > 0.0 && tmax < dur) dur = tmax;
    int steps = (int)(dur / h + 0.5);
    if (steps < 1) steps = 1;
    double *buf = malloc(sizeof(double) * (size_t)steps * 9);
    if (!buf) {
        snprintf(r->error, sizeof r->error, "out of memory");
        mo_scene_file_destroy(sf);
        return;
    }
    double *t = buf, *tp = t + steps, *tc = tp + steps, *ta = tc + steps, *ts = ta + steps, *ti = ts + steps,
           *it = ti + steps, *lin = it + steps, *con = lin + steps;
    int done = 0;
    const int k = r->substeps > 0 ? r->substeps : 1;
    r->resid_worst = 0.0;
    for (int s = 0; s < steps; s++) {
        mo_step_stats st;
        const double ms = bench_scene_step(sf, s, &st, r->error, sizeof r->error);
        if (ms < 0.0) break;
        t[done] = ms;
        tp[done] = 1e3 * st.t_predict;
        tc[done] = 1e3 * st.t_collide;
        ta[done] = 1e3 * st.t_assemble;
        ts[done] = 1e3 * st.t_solve;
        ti[done] = 1e3 * st.t_integrate;
        it[done] = (double)st.iterations / k;   /* summed over substeps by the engine */
        lin[done] = (double)st.linear_iterations / k; /* summed over substeps by the engine */
        con[done] = st.contacts;
        if (st.contacts > r->contacts_max) r->contacts_max = st.contacts;
        r->resid_final = st.residual;
        if (!(st.residual <= r->resid_worst)) r->resid_worst = isfinite(st.residual) ? st.residual : INFINITY;
        if (st.max_penetration > r->max_pen) r->max_pen = st.max_penetration;
        if (!(st.max_joint_error <= r->max_joint)) r->max_joint = st.max_joint_error;
        r->nan_warnings += st.nan_warnings;
        r->bodies = (st.dofs - 3 * st.particles) / 6;
        r->particles = st.particles;
        r->joints = st.joints;
        done++;
        if (show && (s % 10 == 0 || s + 1 == steps)) {
            fprintf(stderr, "\r    step %d/%d", s + 1, steps);
            fflush(stderr);
        }
        if (mo_scene_file_done(sf, NULL)) break;
    }
    if (show) fprintf(stderr, "\r%30s\r", "");
    r->steps = done;
    r->sim_time = done * h;
    r->contacts_mean = mean(con, done);
    r->it_mean = mean(it, done);
    r->lin_mean = mean(lin, done);
    r->it_med = median(it, done);
    r->lin_med = median(lin, done);
    r->ms_med = median(t, done);
    r->predict = median(tp, done);
    r->collide = median(tc, done);
    r->assemble = median(ta, done);
    r->solve = median(ts, done);
    r->integrate = median(ti, done);
    free(buf);
    r->checks = mo_scene_file_check_count(sf);
    mo_scene_check_result res[32];
    int nf = mo_scene_file_checks(sf, res, 32);
    r->checks_failed = r->error[0] ? r->checks : nf;
    size_t off = 0;
    for (int i = 0; i < r->checks && i < 32; i++) {
        if (res[i].passed) continue;
        int m = snprintf(r->failed + off, sizeof r->failed - off, "%s%s (%s)", off ? "; " : "", res[i].name,
                         res[i].detail);
        if (m < 0 || (size_t)m >= sizeof r->failed - off) break;
        off += (size_t)m;
    }
    r->claim = !r->error[0] && r->checks_failed == 0 && r->checks > 0;
    r->wall = bench_now_s() - w0;
    mo_scene_file_destroy(sf);
}

/* ---- output ---- */

static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static const char *status_of(const t2_run *r)
{
    if (r->na) return "n/a";
    if (!r->loaded) return "not loaded";
    if (r->error[0]) return "error";
    return r->claim ? "held" : "failed";
}

static void write_csv(FILE *f, const t2_run *runs, int n)
{
    fprintf(f, "scene,spec,solver,settings,status,steps,substeps,simulated_s,bodies,joints,particles,fem_elements,"
               "contacts_mean,contacts_max,iterations_median,iterations_mean,linear_iterations_median,"
               "linear_iterations_mean,ms_step_median,predict_ms,collide_ms,assemble_ms,solve_ms,integrate_ms,"
               "residual_final,residual_worst,max_penetration_m,max_joint_error_m,nan_warnings,checks,checks_failed,"
               "claim_held,wall_s,failed_checks,error,paper_example,paper_bodies,paper_joints,paper_tetra,"
               "paper_contacts,paper_newton_iterations,paper_linear_iterations,paper_assembly_ms,paper_solve_ms\n");
    for (int i = 0; i < n; i++) {
        const t2_run *r = &runs[i];
        fprintf(f, "%s,", r->spec->name);
        csv_text(f, r->spec->text);
        fprintf(f, ",%s,%s,%s,", r->solver, r->how ? r->how : "", status_of(r));
        if (r->steps > 0)
            fprintf(f,
                    "%d,%d,%.4f,%d,%d,%d,%d,%.2f,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4e,%.4e,"
                    "%.4e,%.4e,%d,%d,%d,%d,%.2f,",
                    r->steps, r->substeps, r->sim_time, r->bodies, r->joints, r->particles, r->elements,
                    r->contacts_mean, r->contacts_max, r->it_med, r->it_mean, r->lin_med, r->lin_mean, r->ms_med,
                    r->predict, r->collide, r->assemble, r->solve, r->integrate, r->resid_final, r->resid_worst,
                    r->max_pen, r->max_joint, r->nan_warnings, r->checks, r->checks_failed, r->claim ? 1 : 0,
                    r->wall);
        else
            fprintf(f, "0,,,,,,%d,,,,,,,,,,,,,,,,,,,%d,%d,0,,", r->elements, r->checks, r->checks_failed);
        csv_text(f, r->failed);
        fputc(',', f);
        csv_text(f, r->error);
        const paper_row *p = !strcmp(r->solver, "newton") ? paper_for(r->spec->name) : NULL;
        if (p)
            fprintf(f, ",%s,%d,%d,%d,%d,%d,%d,%.2f,%.2f\n", p->example, p->bodies, p->joints, p->tetra, p->contacts,
                    p->newton, p->linear, p->asm_avg, p->solve_avg);
        else
            fprintf(f, ",,,,,,,,,\n");
    }
}

static void fmt_g(char *b, size_t n, double v)
{
    if (isnan(v)) snprintf(b, n, "–");
    else if (isinf(v)) snprintf(b, n, "inf");
    else if (v != 0.0 && (fabs(v) < 1e-3 || fabs(v) >= 1e5)) snprintf(b, n, "%.1e", v);
    else snprintf(b, n, "%.3g", v);
}

static void print_tables(const t2_run *runs, int nsc, int nsol, const char *const *solvers, const char *dir,
                         double tmax)
{
    printf("# moreau-bench table2 %s: %d scenes, newton and %d other solvers%s\n\n", dir, nsc, nsol - 1,
           tmax > 0.0 ? " (time capped by --time)" : "");
    printf("## Newton per scene, next to the paper's Table 2\n\n"
           "Ours: one CPU thread, 64-bit, medians over the run's steps. Paper: NVIDIA GTX 1070 GPU, 32-bit,\n"
           "average ± standard deviation (Macklin et al. 2019, Table 2). Assembly = Moreau's assemble stage\n"
           "(rows, CSR pattern, right-hand sides once per step); solve = Moreau's solve stage (every Newton\n"
           "iteration: rows re-evaluated at q+, Schur matrix, inner linear solve, update). Iterations per\n"
           "(sub)step: Newton iterations (median/mean), linear = inner iterations of all Newton iterations.\n\n");
    printf("| scene | bodies | joints | tets | contacts mean / max | Newton it. | linear it. | assembly ms | "
           "solve ms | ms/step | residual final / worst (m) | claims (checks passed / declared) |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nsc; i++) {
        const t2_run *r = &runs[i * nsol];
        char a[32], b[32], c[32], d[32], e[32], f2[32];
        if (r->steps == 0) {
            printf("| %s | – | – | %d | – | – | – | – | – | – | – | %s: %.120s |\n", r->spec->text, r->elements,
                   status_of(r), r->error);
        } else {
            fmt_g(a, sizeof a, r->assemble);
            fmt_g(b, sizeof b, r->solve);
            fmt_g(c, sizeof c, r->ms_med);
            fmt_g(d, sizeof d, r->resid_final);
            fmt_g(e, sizeof e, r->resid_worst);
            fmt_g(f2, sizeof f2, r->lin_mean);
            printf("| %s%s | %d | %d | %d | %.0f / %d | %.0f / %.2f | %.0f / %s | %s | %s | %s | %s / %s | %s %d/%d |\n",
                   r->spec->text, r->substeps > 1 ? " (per substep)" : "", r->bodies, r->joints, r->elements,
                   r->contacts_mean, r->contacts_max, r->it_med, r->it_mean, r->lin_med, f2, a, b, c, d, e,
                   r->claim ? "held" : "**failed**", r->checks - r->checks_failed, r->checks);
        }
        const paper_row *p = paper_for(r->spec->name);
        if (p)
            printf("| ↳ paper: %s (GPU) | %d | %d | %d | %d (island %d) | %d | %d | %.2f ± %.2f | %.2f ± %.2f | – | – "
                   "| – |\n",
                   p->example, p->bodies, p->joints, p->tetra, p->contacts, p->island, p->newton, p->linear,
                   p->asm_avg, p->asm_sd, p->solve_avg, p->solve_sd);
    }
    printf("\nPaper rows without a scene here: ");
    bool first = true;
    for (int i = 0; i < N_PAPER; i++)
        if (!paper[i].ours) {
            printf("%s%s", first ? "" : ", ", paper[i].example);
            first = false;
        }
    printf(".\n\n## The solvers on the same scenes\n\n"
           "ratio = ms/step / Newton's ms/step on the scene. iterations: Newton iterations for newton, sweeps for\n"
           "the others (per substep). Residual: Newton's in m, the others' CCP residual in m/s. settings: param =\n"
           "the scene's own settings for that solver (--set solver=), scene = the scene as written, kind = the\n"
           "scene's settings with the solver kind replaced.\n\n");
    printf("| scene | solver | settings | steps | ms/step | ratio | iterations | residual final | max pen. m | "
           "max joint err. m | claims (passed / declared) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nsc; i++) {
        double base = runs[i * nsol].steps > 0 ? runs[i * nsol].ms_med : NAN;
        for (int k = 0; k < nsol; k++) {
            const t2_run *r = &runs[i * nsol + k];
            if (r->steps == 0) {
                printf("| %s | %s | %s | – | – | – | – | – | – | – | %s: %.120s |\n", r->spec->text, solvers[k],
                       r->how ? r->how : "", status_of(r), r->error);
                continue;
            }
            char a[32], b[32], c[32], d[32], e[32];
            fmt_g(a, sizeof a, r->ms_med);
            fmt_g(b, sizeof b, r->ms_med / base);
            fmt_g(c, sizeof c, r->resid_final);
            fmt_g(d, sizeof d, r->max_pen);
            fmt_g(e, sizeof e, r->max_joint);
            printf("| %s | %s | %s | %d%s | %s | %s | %.1f | %s | %s | %s | %s %d/%d%s%.80s |\n", r->spec->text,
                   solvers[k], r->how, r->steps, r->error[0] ? " (stopped)" : "", a, b, r->it_mean, c, d, e,
                   r->claim ? "held" : "**failed**", r->checks - r->checks_failed, r->checks,
                   r->error[0] ? ": " : "", r->error);
        }
    }
    printf("\n## Who holds the claims, at what cost\n\n| scene | holders (ms/step, × Newton) | failed |\n|---|---|---|\n");
    for (int i = 0; i < nsc; i++) {
        double base = runs[i * nsol].steps > 0 ? runs[i * nsol].ms_med : NAN;
        printf("| %s | ", runs[i * nsol].spec->text);
        int nh = 0;
        for (int k = 0; k < nsol; k++) {
            const t2_run *r = &runs[i * nsol + k];
            if (!r->claim) continue;
            char a[32], b[32];
            fmt_g(a, sizeof a, r->ms_med);
            fmt_g(b, sizeof b, r->ms_med / base);
            printf("%s%s (%s, %s×)", nh++ ? ", " : "", solvers[k], a, b);
        }
        if (!nh) printf("none");
        printf(" | ");
        int nfail = 0;
        for (int k = 0; k < nsol; k++) {
            const t2_run *r = &runs[i * nsol + k];
            if (r->claim) continue;
            printf("%s%s%s", nfail++ ? ", " : "", solvers[k], r->na ? " (n/a)" : "");
        }
        if (!nfail) printf("–");
        printf(" |\n");
    }
    bool any = false;
    for (int i = 0; i < nsc * nsol; i++)
        if (runs[i].failed[0]) {
            if (!any) printf("\n## Failed checks\n\n");
            any = true;
            printf("- %s, %s: %s\n", runs[i].spec->text, runs[i].solver, runs[i].failed);
        }
}

/* ---- the mode ---- */

int bench_table2(int argc, char **argv)
{
    const char *dir = "scenes", *out = ".", *scene_list = NULL, *solver_list = "pgs,apgd,spg";
    double tmax = 0.0;
    bool show = isatty(STDERR_FILENO), quiet = false;
    const char *paths[16];
    int npaths = 0;
    bool dir_given = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            if (dir_given) {
                fprintf(stderr, "moreau-bench: table2 takes one scene folder, got '%s' and '%s'\n", dir, a);
                return 2;
            }
            dir = a;
            dir_given = true;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bench_table2_usage(stdout);
            return 0;
        }
        const char *v = NULL;
        const int kind = bench_option(argc, argv, &i, &show, &v);
        if (kind < 0) return 2;
        if (kind == 1) {
            quiet = !show;
            continue;
        }
        if (!strcmp(a, "--scenes")) scene_list = v;
        else if (!strcmp(a, "--solvers")) solver_list = v;
        else if (!strcmp(a, "--time")) {
            char *end;
            tmax = strtod(v, &end);
            if (*end || !(tmax > 0.0) || !isfinite(tmax)) {
                fprintf(stderr, "moreau-bench: --time must be a number of seconds > 0, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--path")) {
            if (npaths == 16) {
                fprintf(stderr, "moreau-bench: at most 16 --path folders\n");
                return 2;
            }
            paths[npaths++] = v;
        } else if (!strcmp(a, "--set")) {
            char serr[512];
            int k = cli_settings_set(&t2_sets, v, serr, sizeof serr);
            if (k <= 0) {
                fprintf(stderr, "moreau-bench: --set %s: %s\n", v,
                        k < 0 ? serr : "not an engine setting (scene parameters go in --scenes NAME:KEY=VALUE)");
                return 2;
            }
        } else {
            fprintf(stderr, "moreau-bench: unknown option '%s'\n", a);
            return 2;
        }
    }
    /* solvers: newton first, then the list without newton */
    char solvers[T2_MAX_SOLVERS][32];
    const char *sp_names[T2_MAX_SOLVERS];
    int nsol = 0;
    snprintf(solvers[nsol++], 32, "newton");
    {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", solver_list);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            mo_solver_kind kind;
            if (!mo_solver_from_name(tok, &kind)) {
                fprintf(stderr, "moreau-bench: unknown solver '%s' (pgs, jacobi, apgd, spg, cg, minres, cholesky)\n",
                        tok);
                return 2;
            }
            if (kind == MO_SOLVER_NEWTON) continue;
            if (nsol == T2_MAX_SOLVERS) {
                fprintf(stderr, "moreau-bench: at most %d solvers besides newton\n", T2_MAX_SOLVERS - 1);
                return 2;
            }
            snprintf(solvers[nsol++], 32, "%.31s", tok);
        }
    }
    for (int k = 0; k < nsol; k++) sp_names[k] = solvers[k];

    struct stat dst;
    if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
        fprintf(stderr, "moreau-bench: cannot open scene folder '%s': %s\n", dir,
                stat(dir, &dst) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    /* the scenes: all given must exist; by default those of the list present in DIR */
    static t2_spec specs[T2_MAX_SCENES];
    int nsc = 0;
    char err[256], path[4096];
    if (scene_list) {
        char buf[2048];
        if (strlen(scene_list) >= sizeof buf) {
            fprintf(stderr, "moreau-bench: --scenes list too long\n");
            return 2;
        }
        snprintf(buf, sizeof buf, "%s", scene_list);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (nsc == T2_MAX_SCENES) {
                fprintf(stderr, "moreau-bench: at most %d scenes\n", T2_MAX_SCENES);
                return 2;
            }
            if (parse_spec(tok, &specs[nsc], err, sizeof err)) {
                fprintf(stderr, "moreau-bench: %s\n", err);
                return 2;
            }
            snprintf(path, sizeof path, "%s/%s.lua", dir, specs[nsc].name);
            struct stat fst;
            if (stat(path, &fst) != 0 || !S_ISREG(fst.st_mode)) {
                fprintf(stderr, "moreau-bench: no scene '%s' in '%s' (%s: %s)\n", specs[nsc].name, dir, path,
                        stat(path, &fst) != 0 ? strerror(errno) : "not a file");
                return 1;
            }
            nsc++;
        }
        if (nsc == 0) {
            fprintf(stderr, "moreau-bench: --scenes names no scene\n");
            return 2;
        }
    } else {
        for (int i = 0; i < N_DEFAULT; i++) {
            if (parse_spec(default_specs[i], &specs[nsc], err, sizeof err)) return 2;
            snprintf(path, sizeof path, "%s/%s.lua", dir, specs[nsc].name);
            struct stat fst;
            if (stat(path, &fst) == 0 && S_ISREG(fst.st_mode)) nsc++;
        }
        if (nsc == 0) {
            fprintf(stderr,
                    "moreau-bench: none of the Newton paper's scene files (heavy_stack, arch, beam, table_pile, "
                    "humanoids, chain1000, extension, gripper_ball, soft_finger) is in '%s'\n",
                    dir);
            return 1;
        }
    }
    for (int i = 0; i < nsc; i++) {
        snprintf(path, sizeof path, "%s/%s.lua", dir, specs[i].name);
        specs[i].solver_param = reads_solver_param(path);
    }
    if (bench_ensure_dir(out)) return 1;
    snprintf(path, sizeof path, "%s/newton_table2.csv", out);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;

    mo_scene_options opt = mo_default_scene_options();
    opt.search_paths = paths;
    opt.search_path_count = npaths;
    t2_run *runs = calloc((size_t)(nsc * nsol), sizeof(t2_run));
    if (!runs) {
        fclose(csv);
        fprintf(stderr, "moreau-bench: out of memory\n");
        return 1;
    }
    double t_all = bench_now_s();
    for (int i = 0; i < nsc; i++)
        for (int k = 0; k < nsol; k++) {
            t2_run *r = &runs[i * nsol + k];
            r->spec = &specs[i];
            memcpy(r->solver, solvers[k], sizeof r->solver);
            int idx = i * nsol + k + 1;
            if (!quiet) {
                fprintf(stderr, "[%d/%d] %s %s ...\n", idx, nsc * nsol, specs[i].text, solvers[k]);
                fflush(stderr);
            }
            run_one(dir, r, tmax, &opt, show);
            if (!quiet) {
                if (r->steps > 0)
                    fprintf(stderr, "[%d/%d] %s %s: %d steps, %.3f ms/step, claims %s %d/%d, %.1f s%s%s\n", idx,
                            nsc * nsol, specs[i].text, solvers[k], r->steps, r->ms_med, status_of(r),
                            r->checks - r->checks_failed, r->checks, r->wall, r->error[0] ? "; " : "", r->error);
                else
                    fprintf(stderr, "[%d/%d] %s %s: %s: %s\n", idx, nsc * nsol, specs[i].text, solvers[k],
                            status_of(r), r->error);
            }
        }
    if (!quiet) fprintf(stderr, "moreau-bench: table2 done in %.1f s\n", bench_now_s() - t_all);
    write_csv(csv, runs, nsc * nsol);
    fclose(csv);
    print_tables(runs, nsc, nsol, sp_names, dir, tmax);
    printf("\ncsv: %s\n", path);
    free(runs);
    return 0;
}
