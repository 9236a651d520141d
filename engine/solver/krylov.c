/* krylov.c: conjugate gradients and MINRES on the bilateral rows
 * (SOLVERS.md A, "Direct and Krylov solvers for bilateral rows"): N_BB d = -u_B
 * with u = N gamma + r, from the warm start in o->gamma; contacts and other
 * rows through the block Gauss-Seidel alternation of solver_bilateral.c.
 *
 * Both are preconditioned by block Jacobi P (mo_bil_precond: the dense N^-1
 * of a joint's bilateral group, which the assembly forms anyway, 1 / N_ii for
 * single rows); always on. On chains and nets it is what makes the joint
 * groups' own 3x3 or 6x6 coupling free.
 *
 * CG: Hestenes-Stiefel PCG (Saad, Iterative Methods, Alg. 9.1). MINRES:
 * Paige and Saunders (1975) with a symmetric positive definite
 * preconditioner, in the form of SciPy's minres (Lanczos on P^-1 N, Givens
 * QR, three-term update of the search directions w), which minimises
 * |u_B|_{P^-1} over the Krylov space; like CG it needs N symmetric, and unlike
 * CG also handles a singular consistent N_BB (redundant rigid joints).
 *
 * Residuals: u is updated recursively on every row (CG: u += alpha N p;
 * MINRES: u += phi N w, with N w carried along by the same three-term
 * recurrence as w from the products N v of the Lanczos vectors, so no extra
 * product with N), and the recorded per-iteration measures are those of this
 * recursive u. test_bilateral checks them against the true N gamma + r
 * (agreement to 1e-12 relative). When the recursive residual meets the
 * tolerance, u is recomputed as N gamma + r and the solve restarts from it if
 * the true residual does not; the final measures are always the true ones
 * (mo_bil_end). Non-symmetric N (outside problems): N is used as given;
 * neither method is guaranteed to converge then, and the true residual tells.
 *
 * Scratch: CG 4 vectors of m (p, N p, z, best gamma), MINRES 12 (r1, r2, y, v, three w,
 * N v, three N w, best gamma). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "solver/bilateral.h"

/* after a check asked to stop as converged: the true u; true when it holds */
static bool confirm(mo_bil *c)
{
    if (!c->converged) return true; /* stopped for another reason (inner target, outer loop's stop) */
    mo_problem_u(&c->q, c->gamma, c->u, c->work);
    c->u_exact = true;
    double ccp, coulomb;
    mo_problem_residuals(&c->q, c->gamma, c->u, &ccp, &coulomb);
    if (mo_solve_measure(c->p, ccp, coulomb) <= c->s->tolerance) return true;
    c->converged = false;
    return false;
}

/* ---- best iterate (pure solves) ----
 *
 * Krylov methods on a singular N_BB (redundant joints, as in b1_net): once
 * the residual is near round-off, the null-space part of gamma grows and the
 * recursive residual can blow up or drift from the true one (b1_net,
 * tolerance 0: CG 2e-6 after 400 iterations, 1e8 after 800; MINRES 2e-10,
 * then 3e5 at 3000). In a pure solve both keep the best iterate by the
 * recorded measure, stop at the round-off floor or once the measure exceeds
 * BLOWUP times the best, check the recursion against the true u every
 * REFRESH iterations, and at the end return the better of the best and the
 * last by their true measures. */
#define BLOWUP 1e3

/* after a recorded check: true when the solve should stop: blowing up, or at
 * the round-off floor (recorded measure <= 64 eps times the starting one;
 * past it the iterates only wander along the null space while the recursion
 * keeps reporting round-off) */
static bool track_best(mo_bil *c)
{
    if (!c->best) return false;
    double meas = mo_solve_measure(c->p, c->ccp, c->coulomb);
    if (meas <= 64.0 * DBL_EPSILON * c->start_measure) {
        c->best_measure = meas;
        memcpy(c->best, c->gamma, (size_t)c->p->m * sizeof(double));
        return true;
    }
    if (meas < c->best_measure) {
        c->best_measure = meas;
        memcpy(c->best, c->gamma, (size_t)c->p->m * sizeof(double));
        return false;
    }
    return meas > BLOWUP * c->best_measure;
}

/* every REFRESH iterations of a pure solve, u is recomputed as N gamma + r
 * (one product); when the true measure is more than twice the recorded one
 * the recursion has drifted and the solve restarts from the true u */
#define REFRESH 64

static bool refresh_drifted(mo_bil *c, int it)
{
    if (!c->best || it % REFRESH != 0) return false;
    double rec = mo_solve_measure(c->p, c->ccp, c->coulomb);
    mo_problem_u(&c->q, c->gamma, c->u, c->work);
    c->u_exact = true;
    mo_problem_residuals(&c->q, c->gamma, c->u, &c->ccp, &c->coulomb);
    double tru = mo_solve_measure(c->p, c->ccp, c->coulomb);
    if (tru < c->best_measure) {
        c->best_measure = tru;
        memcpy(c->best, c->gamma, (size_t)c->p->m * sizeof(double));
    }
    return tru > 2.0 * rec;
}

/* what a Krylov loop does after an iteration: the stop test (confirmed with a true product, else a
 * restart), the best iterate (a stop), the drift refresh (a restart). True when the inner loop ends,
 * *restart then saying whether the solve restarts (else it stops) */
static bool iteration_ends(mo_bil *c, int it, bool *restart)
{
    if (mo_bil_check(c)) {
        *restart = !confirm(c);
        return true;
    }
    if (track_best(c)) return true;
    *restart = refresh_drifted(c, it);
    return *restart;
}

/* the best iterate lives in the last scratch vector */
static void best_begin(mo_bil *c)
{
    if (!c->pure) return;
    c->best = c->vecs + (size_t)(c->nvecs - 1) * (size_t)c->p->m;
    memcpy(c->best, c->gamma, (size_t)c->p->m * sizeof(double));
    c->best_measure = c->start_measure = mo_solve_measure(c->p, c->ccp, c->coulomb);
}

static void best_end(mo_bil *c)
{
    double *best = c->best;
    c->best = NULL;
    if (!best || c->converged) return; /* converged: confirmed on the true u */
    const mo_problem *q = &c->q;
    const size_t bytes = (size_t)q->m * sizeof(double);
    double *ub = c->vecs; /* free once the inner solve is done */
    double ccp_b, coul_b;
    mo_problem_u(q, best, ub, c->work);
    mo_problem_residuals(q, best, ub, &ccp_b, &coul_b);
    mo_problem_u(q, c->gamma, c->u, c->work);
    mo_problem_residuals(q, c->gamma, c->u, &c->ccp, &c->coulomb);
    c->u_exact = true;
    if (mo_solve_measure(c->p, ccp_b, coul_b) < mo_solve_measure(c->p, c->ccp, c->coulomb)) {
        memcpy(c->gamma, best, bytes);
        memcpy(c->u, ub, bytes);
        c->ccp = ccp_b;
        c->coulomb = coul_b;
    }
}

/* ---- conjugate gradients ---- */

static int cg_inner(mo_bil *c, int max_iterations)
{
    const int m = c->p->m;
    double *pv = c->vecs, *q = pv + m, *z = q + m;
    double *g = c->gamma, *u = c->u;
    int it = 0;
    while (it < max_iterations) {
        /* (re)start: residual -u_B, z = P^-1 (-u_B) */
        for (int r = 0; r < m; r++) q[r] = -u[r];
        mo_bil_precond(c, q, z);
        memcpy(pv, z, (size_t)m * sizeof(double));
        double rz = mo_bil_dot(c, q, z);
        if (!(rz > 0.0)) return it;
        bool restart = false;
        while (it < max_iterations) {
            mo_problem_apply(c->p, pv, q, c->work);
            double pq = mo_bil_dot(c, pv, q);
            if (!(pq > 0.0)) return it; /* N_BB singular along p: nothing more to gain */
            double alpha = rz / pq;
            c->u_exact = false;
            for (int r = 0; r < m; r++) {
                g[r] += alpha * pv[r]; /* pv is 0 outside B */
                u[r] += alpha * q[r];
            }
            if (iteration_ends(c, ++it, &restart)) break;
            for (int r = 0; r < m; r++) q[r] = -u[r];
            mo_bil_precond(c, q, z);
            double rz1 = mo_bil_dot(c, q, z);
            if (!(rz1 > 0.0)) return it;
            double beta = rz1 / rz;
            rz = rz1;
            for (int r = 0; r < m; r++) pv[r] = z[r] + beta * pv[r];
        }
        if (!restart) break;
    }
    return it;
}

/* a Krylov solve: the inner solver with vecs vectors of scratch, keeping the best iterate */
static void krylov_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, int vecs,
                         mo_bil_inner_fn inner)
{
    mo_bil c;
    if (mo_bil_begin(&c, p, s, o, vecs)) {
        best_begin(&c);
        mo_bil_run(&c, inner);
        best_end(&c);
    }
    mo_bil_end(&c);
}

void mo_solver_cg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    krylov_solve(p, s, o, 4, cg_inner);
}

/* ---- MINRES ---- */

int mo_bil_minres_inner(mo_bil *c, int max_iterations)
{
    const int m = c->p->m;
    const size_t bytes = (size_t)m * sizeof(double);
    double *g = c->gamma, *u = c->u;
    double *r1 = c->vecs, *r2 = r1 + m, *y = r2 + m, *v = y + m;
    double *w = v + m, *w1 = w + m, *w2 = w1 + m;
    double *av = w2 + m, *aw = av + m, *aw1 = aw + m, *aw2 = aw1 + m;
    int it = 0;
    while (it < max_iterations) {
        /* (re)start from the current residual b = -u_B */
        for (int r = 0; r < m; r++) r1[r] = -u[r];
        mo_bil_mask(c, r1);
        memcpy(r2, r1, bytes);
        mo_bil_precond(c, r1, y);
        double beta1 = mo_bil_dot(c, r1, y);
        if (!(beta1 > 0.0)) return it;
        beta1 = sqrt(beta1);
        double oldb = 0.0, beta = beta1, dbar = 0.0, epsln = 0.0, phibar = beta1, cs = -1.0, sn = 0.0;
        memset(w, 0, bytes);
        memset(w1, 0, bytes);
        memset(w2, 0, bytes);
        memset(aw, 0, bytes);
        memset(aw1, 0, bytes);
        memset(aw2, 0, bytes);
        bool restart = false;
        for (int local = 0; it < max_iterations; local++) {
            /* Lanczos step on P^-1 N */
            double sc = 1.0 / beta;
            for (int r = 0; r < m; r++) v[r] = sc * y[r];
            mo_problem_apply(c->p, v, av, c->work);
            memcpy(y, av, bytes);
            mo_bil_mask(c, y);
            if (local > 0)
                for (int r = 0; r < m; r++) y[r] -= (beta / oldb) * r1[r];
            double alfa = mo_bil_dot(c, v, y);
            for (int r = 0; r < m; r++) y[r] -= (alfa / beta) * r2[r];
            double *t = r1;
            r1 = r2;
            r2 = y;
            y = t;
            mo_bil_precond(c, r2, y);
            oldb = beta;
            beta = mo_bil_dot(c, r2, y);
            if (beta < 0.0) return it; /* P not positive definite: cannot happen with N_ii > 0 */
            beta = sqrt(beta);
            /* Givens rotation of the tridiagonal's new column */
            double oldeps = epsln;
            double delta = cs * dbar + sn * alfa;
            double gbar = sn * dbar - cs * alfa;
            epsln = sn * beta;
            dbar = -cs * beta;
            double gam = hypot(gbar, beta);
            if (gam < DBL_MIN) gam = DBL_MIN;
            cs = gbar / gam;
            sn = beta / gam;
            double phi = cs * phibar;
            c->u_exact = false;
            phibar = sn * phibar;
            double den = 1.0 / gam;
            /* w1 <- w2, w2 <- w, w <- (v - oldeps w1 - delta w2) / gamma; N w alike */
            double *ow1 = w1, *oaw1 = aw1;
            w1 = w2;
            w2 = w;
            w = ow1;
            aw1 = aw2;
            aw2 = aw;
            aw = oaw1;
            for (int r = 0; r < m; r++) {
                w[r] = (v[r] - oldeps * w1[r] - delta * w2[r]) * den;
                aw[r] = (av[r] - oldeps * aw1[r] - delta * aw2[r]) * den;
                g[r] += phi * w[r];
                u[r] += phi * aw[r];
            }
            if (iteration_ends(c, ++it, &restart)) break;
            if (!(beta > 0.0)) return it; /* the Krylov space is exhausted: u_B is as small as it gets */
        }
        if (!restart) break;
    }
    return it;
}

void mo_solver_minres(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    krylov_solve(p, s, o, 12, mo_bil_minres_inner);
}
