/* fclib_auto.c: the default configuration for outside frictional contact
 * problems (mo_fc_solve_auto, "auto" in moreau-bench fclib): APGD, then the
 * semismooth Newton method, then PGS, each stage starting from the best
 * iterate of the stages before it and handing over when it stagnates.
 *
 * Why a chain and not one solver: APGD with outer Coulomb updates is the
 * cheapest on most problems at 1e-4 and on the large well-conditioned ones
 * (KaplasTower, PerioBox, Confeti) at 1e-6, but on published problems of
 * the same families it stalls at the iteration cap (1.2e-3 on a rock pile at
 * 1e-4; 1.3e-6 and 3.8e-6 on a capsule and a sphere-box problem at 1e-6;
 * here 2.6e-8 to 4.8e-7 on the four Capsules problems at 1e-8), where PGS or
 * the semismooth Newton method converge. Newton converges quadratically once
 * close, so it finishes what APGD started in a few iterations, but can
 * itself stall (Capsules-i125 at 1e-8: 3.5e-7 for 1000 iterations, where PGS
 * gets there); PGS with De Saxce steps is the last resort.
 *
 * Stagnation is tested on the best Siconos error (mo_fc_error) at the end of
 * fixed windows of iterations: a window that does not halve it ends the
 * stage. Windows, not the last iterates, because APGD's error is not
 * monotone (restarts, the Coulomb updates' shift) and Newton's damped phases
 * make slow but steady progress. APGD's windows are separate mo_fc_solve
 * calls warm-started from the best iterate (the solver is not touched);
 * each re-runs the step-size estimate and the Coulomb updates from that
 * iterate, which on the shared problems changes APGD's iteration count to
 * a tolerance by a few percent. Newton's window is tested inside its loop
 * (mo_fc_newton_run), so its damping is kept across the window.
 *
 * Window sizes: APGD 250 iterations, factor 0.5. Where APGD converges
 * steadily (the shared problems where it is fast: KaplasTower, PerioBox,
 * Confeti-ex13, Spheres, NESpheres) it halves its error in every window and
 * is never interrupted; where it needs thousands of iterations (the
 * Capsules, BoxesStack1, OneObject and local_problem_test problems at 1e-6)
 * it hands over after 2 or 3 windows (a few ms on 300 contacts) and Newton
 * finishes in 2 to 47 iterations (docs/bench/2026-11-27-fclib-default.md).
 * Newton 20 iterations, factor 0.5: its damped phase on the Capsules
 * problems halves the error in fewer, and a stalled Newton iteration costs a
 * factorisation, so a short window (30 was tried: no clear gain). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/solver.h"
#include "io/fclib_internal.h"

#define AUTO_APGD_WINDOW 250
#define AUTO_APGD_FACTOR 0.5
#define AUTO_APGD_UPDATES 200
#define AUTO_NEWTON_WINDOW 20
#define AUTO_NEWTON_FACTOR 0.5
#define AUTO_NEWTON_MAX 1000

mo_solver_settings mo_fc_default_settings(void)
{
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_APGD;
    s.coulomb_updates = AUTO_APGD_UPDATES;
    s.max_iterations = 50000;
    s.tolerance = 1e-4;
    s.warm_start = false;
    return s;
}

/* the chain's state: the best iterate of every stage so far and the figures */
typedef struct auto_run {
    const mo_fc_problem *fc;
    int m;
    double *best, *x; /* m each: the best iterate, the current stage's */
    double best_e, best_ccp; /* the best iterate's Siconos error, and its stage's own residual */
    mo_fc_result *res;
} auto_run;

/* keeps x (its stage's residual ccp) when it beats the best */
static void keep_best(auto_run *a, double e, double ccp)
{
    if (!(e >= a->best_e)) { /* also takes the first finite one */
        a->best_e = e;
        a->best_ccp = ccp;
        memcpy(a->best, a->x, (size_t)a->m * sizeof(double));
    }
}

/* records a stage that ended with x (its residual ccp) */
static void stage_end(auto_run *a, mo_solver_kind k, int iterations, double seconds, double ccp)
{
    keep_best(a, mo_fc_error(a->fc, a->x, NULL), ccp);
    mo_fc_result *res = a->res;
    int n = res->stage_count++;
    res->stage_kind[n] = k;
    res->stage_iterations[n] = iterations;
    res->stage_error[n] = a->best_e;
    res->stage_seconds[n] = seconds;
    res->iterations += iterations;
}

static bool solved(const auto_run *a, double tol)
{
    return tol > 0.0 && a->best_e <= tol;
}

mo_status mo_fc_solve_auto(const mo_fc_problem *fc, const mo_solver_settings *s, double *r, double *u,
                           mo_fc_result *res, char *err, size_t err_size)
{
    char tmp[256];
    if (!err) {
        err = tmp;
        err_size = sizeof tmp;
    }
    if (err_size) err[0] = '\0';
    if (!fc || !s || !r) {
        snprintf(err, err_size, "mo_fc_solve_auto: problem, settings and r must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    double t0 = mo_now();
    /* the stages' settings: s with each stage's kind, updates and cap */
    mo_solver_settings sa = *s;
    sa.kind = MO_SOLVER_APGD;
    sa.friction = MO_FRICTION_CONE;
    sa.coulomb_updates = AUTO_APGD_UPDATES;
    sa.warm_start = false;
    if (!mo_solver_check_max(&sa, MO_FC_ITERATIONS_MAX, err, err_size)) return MO_ERR_INVALID_ARGUMENT;
    mo_solver_settings sn = sa, sp = sa;
    sn.kind = MO_SOLVER_NEWTON;
    sn.coulomb_updates = 0;
    sn.max_iterations = s->max_iterations < AUTO_NEWTON_MAX ? s->max_iterations : AUTO_NEWTON_MAX;
    sp.kind = MO_SOLVER_PGS;
    sp.coulomb_updates = 1; /* PGS's De Saxce steps inline */

    mo_fc_result own;
    if (!res) res = &own;
    memset(res, 0, sizeof *res);
    /* the first window also checks the problem's sizes (mo_fc_solve's refusals) */
    const int m = 3 * fc->nc;
    auto_run a = {fc, m, NULL, NULL, INFINITY, NAN, res};
    size_t md = (size_t)(m > 0 ? m : 0) + 1;
    a.best = malloc(md * sizeof(double));
    a.x = malloc(md * sizeof(double));
    if (!a.best || !a.x) {
        free(a.best);
        free(a.x);
        snprintf(err, err_size, "mo_fc_solve_auto: out of memory for %d contacts", fc->nc);
        return MO_ERR_OUT_OF_MEMORY;
    }
    mo_status st = MO_OK;
    mo_fc_result fr;

    /* 1. APGD in windows: each window one warm-started solve; a window that does
     * not halve the best error, or the spent budget, hands over */
    {
        double ts = mo_now(), mark = INFINITY;
        int used = 0;
        for (int i = 0; i < m; i++) a.x[i] = isfinite(r[i]) ? r[i] : 0.0;
        for (;;) {
            sa.max_iterations = s->max_iterations - used < AUTO_APGD_WINDOW ? s->max_iterations - used
                                                                             : AUTO_APGD_WINDOW;
            st = mo_fc_solve(fc, &sa, a.x, NULL, &fr, NULL, NULL, err, err_size);
            if (st != MO_OK) break;
            used += fr.iterations;
            keep_best(&a, fr.error, fr.ccp_residual);
            if (solved(&a, s->tolerance) || used >= s->max_iterations || fr.iterations == 0) break;
            if (!(a.best_e <= AUTO_APGD_FACTOR * mark) && isfinite(mark)) break;
            mark = a.best_e;
            memcpy(a.x, a.best, (size_t)m * sizeof(double));
        }
        if (st == MO_OK) {
            memcpy(a.x, a.best, (size_t)m * sizeof(double));
            stage_end(&a, MO_SOLVER_APGD, used, mo_now() - ts, a.best_ccp);
        }
    }

    /* 2. the semismooth Newton method from the best iterate, stopped by its own window test */
    if (st == MO_OK && !solved(&a, s->tolerance) && m > 0) {
        double ts = mo_now();
        memcpy(a.x, a.best, (size_t)m * sizeof(double));
        st = mo_fc_newton_run(fc, &sn, AUTO_NEWTON_WINDOW, AUTO_NEWTON_FACTOR, a.x, NULL, &fr, NULL, NULL, err,
                              err_size);
        if (st == MO_OK) stage_end(&a, MO_SOLVER_NEWTON, fr.iterations, mo_now() - ts, fr.ccp_residual);
        else if (st == MO_ERR_UNSUPPORTED) { /* too large for this build's dense LU: on to PGS */
            st = MO_OK;
            if (err_size) err[0] = '\0';
        }
    }

    /* 3. PGS from the best iterate, to its cap */
    if (st == MO_OK && !solved(&a, s->tolerance) && m > 0) {
        double ts = mo_now();
        memcpy(a.x, a.best, (size_t)m * sizeof(double));
        st = mo_fc_solve(fc, &sp, a.x, NULL, &fr, NULL, NULL, err, err_size);
        if (st == MO_OK) stage_end(&a, MO_SOLVER_PGS, fr.iterations, mo_now() - ts, fr.ccp_residual);
    }

    if (st == MO_OK) {
        double *uu = a.x; /* the last stage's iterate is no longer needed */
        memcpy(r, a.best, (size_t)m * sizeof(double));
        res->error = mo_fc_error(fc, r, uu);
        res->converged = s->tolerance > 0.0 && res->error <= s->tolerance;
        res->ccp_residual = a.best_ccp;
        if (u) memcpy(u, uu, (size_t)m * sizeof(double));
        res->seconds = mo_now() - t0;
    } else {
        memset(res, 0, sizeof *res);
    }
    free(a.best);
    free(a.x);
    return st;
}
