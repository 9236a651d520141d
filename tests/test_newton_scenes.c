/* test_newton_scenes.c: the Newton paper's rigid-body catalogue scenes (issue 7),
 * loaded from scenes/ ($MOREAU_SCENES_DIR) and run for a short time; the full-length
 * claims are the scenes' own checks (moreau-run --check, docs/newton-scenes.md).
 *
 *   1 arch.lua stands for 3 s with its own settings (non-smooth Newton): the crown
 *     blocks drop less than 1 mm and both of the scene's checks hold.
 *   2 arch.lua with PGS at 150 sweeps a step over those 3 s: the crown drops more
 *     than 1 mm and more than 10 x Newton's drop (relaxation sags). 150 sweeps cost
 *     about Newton's wall time per step on this machine (both times are printed,
 *     not asserted: a timed assertion flaked under load, and speed claims belong to
 *     moreau-bench); measured earlier, PGS holds from about 450 sweeps, 2.5-3 x
 *     Newton's time.
 *   3 beam.lua at 2 s, before the pusher arrives: the tip drop is the discrete-beam
 *     closed form (m g l^2 / 2k) (N (N + 1) / 2)^2, computed here, within 1 %.
 *   4 Fig. 18 on the arch: from a standing state, cold start, 6 Newton x 20 PCR, mean
 *     Newton residual of 10 steps: effective-mass complementarity scaling reaches a
 *     residual more than 10 x lower than identity scaling.
 *   5 heavy_stack.lua, variants 2 (1 : 512) and 10 (1 : 10^4), with solver=newton,
 *     under a lateral gravity of 1e-12 m/s^2 in x and y (a last bit that breaks the
 *     stack's symmetry: without it every solver keeps the lateral forces exactly zero),
 *     stands for 2 s (top within 1 mm, the scene's check holds). Measured: with the
 *     scene's earlier 20 PCR per Newton iteration variant 2's top moved 10 cm in those 2 s
 *     (the first real GPU run toppled it through its summation order alone).
 *   6 beam.lua without friction and with its default mu 0.3 (when CHOLMOD is built in;
 *     the scene's 30 Newton iterations with Cholesky inner solves, steps halved up to 3
 *     times while the Newton residual stays above 1e-3 m): the whole insertion, 6 s,
 *     holds the scene's four checks (sag, penetration < 2 mm, joint drift < 1 mm, beam
 *     in the slot); frictionless nearly no step is halved, with friction at least 20 are.
 *   7 Fig. 18 on the beam's insertion (mu 0.3, Cholesky inner solves; skipped without
 *     CHOLMOD): from the states at steps 340 and 380, 6 Newton iterations, cold start,
 *     mean of 10 steps: effective-mass scaling > 10 x lower residual than identity.
 * Not asserted (measured, docs/newton-scenes.md): the same with PCR inner budgets, where the two
 * scalings are even.
 * Exit 77 when Moreau was built without Lua (scene files cannot be loaded). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "moreau/moreau.h"
#include "moreau/scene.h"
#include "check.h"

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 74, 4)

static const char *scenes_dir(void)
{
    const char *d = getenv("MOREAU_SCENES_DIR");
    return d && *d ? d : "scenes";
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* loads scenes/<name> with up to two "name=value" params; NULL (and a failed check) on error */
static mo_scene_file *load(const char *name, const char *p1, const char *p2)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", scenes_dir(), name);
    const char *params[2];
    int np = 0;
    if (p1) params[np++] = p1;
    if (p2) params[np++] = p2;
    mo_scene_options o = mo_default_scene_options();
    o.params = params;
    o.param_count = np;
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, &o, &s, err, sizeof err);
    if (st != MO_OK) fprintf(stderr, "%s: %s\n", path, err);
    CHECK(st == MO_OK && s);
    return st == MO_OK ? s : NULL;
}

static mo_body_id body_named(const mo_scene_file *s, const char *name)
{
    mo_scene_body b[256];
    int n = mo_scene_file_bodies(s, b, 256);
    for (int i = 0; i < n && i < 256; i++)
        if (!strcmp(b[i].name, name)) return b[i].id;
    fprintf(stderr, "no body named %s\n", name);
    CHECK(0);
    return (mo_body_id){0};
}

static double body_z(const mo_scene_file *s, mo_body_id id)
{
    mo_vec3 p = {0, 0, 0};
    CHECK(mo_body_position(mo_scene_file_world(s), id, &p) == MO_OK);
    return p.z;
}

/* steps the scene n times; false (and a failed check) on a step error */
static int step_n(mo_scene_file *s, int n)
{
    for (int i = 0; i < n; i++)
        if (mo_scene_file_step(s) != MO_OK) {
            fprintf(stderr, "step: %s\n", mo_scene_file_last_error(s));
            CHECK(0);
            return 0;
        }
    return 1;
}

/* all the scene's checks hold now; prints them */
static int checks_hold(mo_scene_file *s)
{
    mo_scene_check_result r[8];
    int failed = mo_scene_file_checks(s, r, 8), n = mo_scene_file_check_count(s);
    for (int i = 0; i < n && i < 8; i++) printf("       %s: %s (%s)\n", r[i].passed ? "PASS" : "FAIL", r[i].name, r[i].detail);
    return failed == 0;
}

/* ---- arch ---- */

/* runs arch.lua for `steps` steps (with `pgs_sweeps` > 0: PGS with that many sweeps instead of the scene's
   Newton); returns the wall time per step and the largest drop of the two crown blocks over the run */
static double run_arch(int pgs_sweeps, int steps, double *max_drop, int *checks_ok)
{
    *max_drop = 1e9;
    mo_scene_file *s = load("arch.lua", NULL, NULL);
    if (!s) return 0.0;
    mo_world *w = mo_scene_file_world(s);
    if (pgs_sweeps > 0) {
        mo_solver_settings pg = mo_default_solver_settings();
        pg.kind = MO_SOLVER_PGS;
        pg.max_iterations = pgs_sweeps;
        CHECK(mo_world_set_solver(w, &pg) == MO_OK);
    }
    mo_body_id c1 = body_named(s, "voussoir10"), c2 = body_named(s, "voussoir11");
    double z1 = body_z(s, c1), z2 = body_z(s, c2), drop = 0.0;
    double t0 = now();
    for (int i = 0; i < steps; i++) {
        if (!step_n(s, 1)) break;
        double d1 = z1 - body_z(s, c1), d2 = z2 - body_z(s, c2);
        if (d1 > drop) drop = d1;
        if (d2 > drop) drop = d2;
    }
    double t = (now() - t0) / steps;
    *max_drop = drop;
    if (checks_ok) *checks_ok = checks_hold(s);
    mo_scene_file_destroy(s);
    return t;
}

static double newton_arch_time = 0.0, newton_arch_drop = 0.0;

static void test_arch_stands(void)
{
    group_begin();
    int ok = 0;
    double drop;
    newton_arch_time = run_arch(0, 360, &drop, &ok);
    newton_arch_drop = drop;
    printf("     arch, Newton (scene settings), 3 s: %.3f ms/step, crown drop %.2e m\n", 1e3 * newton_arch_time, drop);
    CHECK(drop < 1e-3);
    CHECK(ok);
    group_end("1  arch.lua stands 3 s with Newton (crown drop < 1 mm, scene checks hold)");
}

static void test_arch_relaxation(void)
{
    group_begin();
    const int steps = 360, sweeps = 150;
    double drop, tp = run_arch(sweeps, steps, &drop, NULL);
    printf("     arch, PGS %d sweeps: %.3f ms/step (Newton %.3f, not compared), crown drop %.2e m (Newton %.2e m)\n",
           sweeps, 1e3 * tp, 1e3 * newton_arch_time, drop, newton_arch_drop);
    CHECK(drop > 1e-3);
    CHECK(drop > 10.0 * newton_arch_drop);
    group_end("2  arch.lua: PGS at 150 sweeps (about Newton's time per step) sags (> 1 mm, > 10 x Newton)");
}

/* ---- beam ---- */

static void test_beam_sag(void)
{
    group_begin();
    mo_scene_file *s = load("beam.lua", NULL, NULL);
    if (!s) { group_end("3  beam.lua: tip sag at 2 s = discrete-beam closed form within 1 %"); return; }
    const int N = 16;
    const double l = 0.1, m = 0.05, g = 9.81, k = 1000.0;
    const double sum = N * (N + 1) / 2.0, delta = m * g * l * l / (2.0 * k) * sum * sum;
    mo_world *w = mo_scene_file_world(s);
    mo_body_id tipb = body_named(s, "link16");
    mo_vec3 tip0, tip;
    CHECK(mo_body_world_point(w, tipb, (mo_vec3){l / 2, 0, 0}, &tip0) == MO_OK);
    step_n(s, 240);
    CHECK(mo_body_world_point(w, tipb, (mo_vec3){l / 2, 0, 0}, &tip) == MO_OK);
    double sag = tip0.z - tip.z;
    printf("     beam at t = %.3f s: tip drop %.6f m, closed form %.6f m (%.3f %%); max joint error %.2e m\n",
           mo_world_time(w), sag, delta, 100.0 * fabs(sag - delta) / delta, mo_world_last_stats(w).max_joint_error);
    CHECK_NEAR(delta, 0.045361, 5e-7); /* the figure the scene states */
    CHECK(fabs(sag - delta) < 0.01 * delta);
    CHECK(mo_world_contacts(w, NULL, 0) == 0); /* before contact */
    mo_scene_file_destroy(s);
    group_end("3  beam.lua: tip sag at 2 s = discrete-beam closed form within 1 %");
}

/* ---- Fig. 18: complementarity preconditioning ---- */

/* loads `name`, steps it `warm` steps with its own settings, then `steps` steps cold-started with the given
   scaling and budget; mean Newton residual of those steps */
static double scene_residual(const char *name, int warm, mo_newton_scaling scaling, int iterations, int linear,
                             int steps, int *contacts)
{
    mo_scene_file *s = load(name, NULL, NULL);
    if (!s) return NAN;
    mo_world *w = mo_scene_file_world(s);
    step_n(s, warm);
    mo_solver_settings st = mo_world_solver(w);
    st.warm_start = false;
    st.tolerance = 0.0;
    st.newton.scaling = scaling;
    st.newton.iterations = iterations;
    st.newton.linear_iterations = linear;
    st.newton.halvings = 0; /* the budget's own residual */
    CHECK(mo_world_set_solver(w, &st) == MO_OK);
    double sum = 0.0;
    *contacts = 0;
    for (int i = 0; i < steps; i++) {
        step_n(s, 1);
        mo_step_stats ss = mo_world_last_stats(w);
        sum += ss.residual;
        *contacts += ss.contacts;
    }
    *contacts /= steps;
    mo_scene_file_destroy(s);
    return sum / steps;
}

static void test_precond_arch(void)
{
    group_begin();
    int nc;
    double rm = scene_residual("arch.lua", 30, MO_NEWTON_SCALING_MASS, 6, 20, 10, &nc);
    double ri = scene_residual("arch.lua", 30, MO_NEWTON_SCALING_IDENTITY, 6, 20, 10, &nc);
    double rc = scene_residual("arch.lua", 30, MO_NEWTON_SCALING_CONSTANT, 6, 20, 10, &nc);
    printf("     arch (%d contacts), 6 Newton x 20 PCR, cold start, mean of 10 steps: residual %.2e m (effective mass), "
           "%.2e m (identity, %.0fx), %.2e m (constant k = 1)\n", nc, rm, ri, ri / rm, rc);
    CHECK(ri > 10.0 * rm);
    group_end("4  Fig. 18 on the arch: effective-mass scaling > 10 x lower residual than identity");
}

/* the beam's groups need CHOLMOD (without it the scene falls back to PCR 200, 4 x slower): says so and
   ends the group when it is missing */
static bool skipped_without_cholmod(const char *name)
{
    if (mo_solver_available(MO_SOLVER_CHOLESKY)) return false;
    printf("     skipped: no CHOLMOD in this build (the beam falls back to PCR 200, 4 x slower)\n");
    group_end(name);
    return true;
}

/* Fig. 18 on the beam's insertion (the scene's mu 0.3, its Cholesky inner solves): from the states at
   steps 340 and 380 (t = 2.83 and 3.17 s, the pusher pressing, 4-5 contacts), 6 Newton iterations,
   cold start, mean residual of 10 steps. Measured (docs/newton-scenes.md): 117 x and 223 x; 4 and 8 iterations 1.6-74 x;
   with PCR budgets (6 x 20, 8 x 50, 12 x 100 at step 400) the two scalings are even (1.0-2.0 x): the
   inner solve's error dominates there */
static void test_precond_beam(void)
{
    group_begin();
    const char *name = "7  Fig. 18 on the beam insertion (Cholesky): effective mass > 10 x lower residual than identity";
    if (skipped_without_cholmod(name)) return;
    for (int k = 0; k < 2; k++) {
        int warm = k == 0 ? 340 : 380, nc;
        double rm = scene_residual("beam.lua", warm, MO_NEWTON_SCALING_MASS, 6, 1, 10, &nc);
        double ri = scene_residual("beam.lua", warm, MO_NEWTON_SCALING_IDENTITY, 6, 1, 10, &nc);
        double rc = scene_residual("beam.lua", warm, MO_NEWTON_SCALING_CONSTANT, 6, 1, 10, &nc);
        printf("     beam from step %d (%d contacts), 6 Newton x Cholesky, cold start, mean of 10 steps: residual %.2e m "
               "(effective mass), %.2e m (identity, %.0fx), %.2e m (constant k = 1)\n", warm, nc, rm, ri, ri / rm, rc);
        CHECK(nc >= 4); /* the pusher on the beam and the beam on the slot's edges */
        CHECK(ri > 10.0 * rm);
    }
    group_end(name);
}

/* ---- heavy stack 1 : 10^4 ---- */

static void heavy_variant(const char *variant, const char *top_name, double top_mass)
{
    mo_scene_file *s = load("heavy_stack.lua", variant, "solver=newton");
    if (!s) return;
    mo_world *w = mo_scene_file_world(s);
    CHECK(mo_world_solver(w).kind == MO_SOLVER_NEWTON);
    CHECK(mo_world_set_gravity(w, (mo_vec3){1e-12, 1e-12, -9.81}) == MO_OK);
    mo_body_id top = body_named(s, top_name);
    mo_vec3 p0, p;
    CHECK(mo_body_position(w, top, &p0) == MO_OK);
    double mass;
    mo_mat3 inertia;
    CHECK(mo_body_mass(w, top, &mass, &inertia) == MO_OK);
    CHECK_NEAR(mass, top_mass, 1e-9 * top_mass);
    step_n(s, 240);
    CHECK(mo_body_position(w, top, &p) == MO_OK);
    double d = sqrt((p.x - p0.x) * (p.x - p0.x) + (p.y - p0.y) * (p.y - p0.y) + (p.z - p0.z) * (p.z - p0.z));
    printf("     heavy stack %s, Newton, lateral gravity 1e-12, 2 s: top moved %.2e m\n", variant, d);
    CHECK(d < 1e-3);
    CHECK(checks_hold(s));
    mo_scene_file_destroy(s);
}

static void test_heavy(void)
{
    group_begin();
    heavy_variant("variant=2", "box9", 512.0);
    heavy_variant("variant=10", "box4", 1e4);
    group_end("5  heavy_stack.lua variants 2 and 10, solver=newton, symmetry broken, stand 2 s");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* one insertion run of beam.lua (set: its --set text) to 6 s: the scene's checks, the Newton
   residuals from the press on and the step halvings */
static void beam_insertion(const char *set, double mu, double med_max, double worst_max, bool halved)
{
    mo_scene_file *s = load("beam.lua", set, NULL);
    if (!s) return;
    mo_world *w = mo_scene_file_world(s);
    mo_solver_settings ss = mo_world_solver(w);
    CHECK(ss.newton.linear == MO_NEWTON_CHOLESKY && ss.newton.halvings == 3 && ss.newton.halving_residual == 1e-3);
    static double res[480];
    double worst = 0.0;
    int contacts = 0, nr = 0, halvings = 0, halved_steps = 0;
    for (int i = 0; i < 720; i++) {
        if (!step_n(s, 1)) break;
        mo_step_stats st = mo_world_last_stats(w);
        if (i >= 240) { /* from the press on */
            res[nr++] = st.residual;
            if (st.residual > worst || !isfinite(st.residual)) worst = st.residual;
        }
        if (st.contacts > contacts) contacts = st.contacts;
        halvings += st.halvings;
        halved_steps += st.halvings > 0;
    }
    qsort(res, (size_t)nr, sizeof(double), cmp_double);
    double med = nr ? res[nr / 2] : NAN;
    printf("     beam, friction %g, 6 s: Newton residual during the insertion median %.2e m, worst %.2e m; up to %d "
           "contacts; %d halvings in %d steps\n", mu, med, worst, contacts, halvings, halved_steps);
    CHECK(nr == 480);
    CHECK(med < med_max);
    CHECK(worst < worst_max);
    CHECK(contacts >= 16);
    CHECK(halved ? halved_steps >= 20 : halved_steps <= 5);
    CHECK(checks_hold(s));
    mo_scene_file_destroy(s);
}

static void test_beam_insertion(void)
{
    group_begin();
    const char *name = "6  beam.lua: the insertion holds its four checks, without friction and with mu 0.3";
    if (skipped_without_cholmod(name)) return;
    /* without friction Newton converges at nearly every step (measured: one step halved); with the
       scene's mu 0.3 it needs halving where the beam slides under the pusher and over the slot's
       edges (measured: 895 halvings in 207 of the 720 steps; without halving the run diverges at
       4.49 s, docs/newton.md) */
    beam_insertion("friction=0", 0.0, 1e-8, 1e-2, false);
    beam_insertion(NULL, 0.3, 1e-4, 1.0, true); /* measured: median 1.7e-5 m, worst 2.7e-2 m (a step
                                                   kept at the deepest halving; finite: no divergence) */
    group_end(name);
}

int main(int argc, char **argv)
{
    /* without Lua a scene file cannot be loaded: skip */
    {
        char err[256];
        mo_scene_file *s = NULL;
        char path[1024];
        snprintf(path, sizeof path, "%s/arch.lua", scenes_dir());
        if (mo_scene_file_load(path, NULL, &s, err, sizeof err) == MO_ERR_UNSUPPORTED) {
            printf("skipped: %s\n", err);
            return 77;
        }
        mo_scene_file_destroy(s);
    }
    const char *only = argc > 1 ? argv[1] : NULL;
#define RUN(name, fn) do { if (!only || !strcmp(only, name)) fn(); } while (0)
    RUN("arch", test_arch_stands);
    RUN("relax", test_arch_relaxation);
    RUN("beam", test_beam_sag);
    RUN("precond_arch", test_precond_arch);
    RUN("heavy", test_heavy);
    RUN("beam_insert", test_beam_insertion);
    RUN("precond_beam", test_precond_beam);
    return check_groups_result();
}
