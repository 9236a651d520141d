/* apgd.c: accelerated projected gradient descent (APGD) for the cone
 * complementarity problem (SOLVERS.md A; Mazhar et al. 2015, and the
 * Acary-Cariaga paper's step choices and ratio rule).
 *
 *   y_k     = x_k-1 + beta_k (x_k-1 - x_k-2)               Nesterov momentum
 *   x_k     = P_K(y_k - rho_k (N y_k + r))                  projected step
 *
 * with the momentum of Mazhar et al.: theta_k = (-theta^2 + theta sqrt(theta^2 + 4))/2,
 * beta = theta_k-1 (1 - theta_k-1) / (theta_k-1^2 + theta_k), theta_0 = 1.
 *
 * One product with N per iteration: N y is a linear combination of the two
 * stored products N x_k-1 and N x_k-2, and N x_k is the product computed to
 * test the step. Step size rho:
 * - initial choice (mo_apgd_rho): EigenWRho 1/lambda_max(N) by 12 power
 *   iterations; WRho 1/|N|_F (exact for explicit N, a Hutchinson estimate with
 *   4 probes in J form); SmallerRho 2/3 and Normal 1, as the paper defines them
 *   (absolute values, so they rely on the rule below to reach the right scale);
 *   Acary |M|_1/|H|_1 where the problem knows M and H, else EigenWRho.
 * - backtracking (Lipschitz test on the step d = x - y):
 *   1/2 d^T N d <= |d|^2 / (2 rho), accepted on <=; rho halves otherwise. A
 *   projected step that leaves x = y is accepted as is (never shrink rho when
 *   the step cannot change anything: the failure SOLVERS.md warns about).
 * - adaptive rho (the paper's Algorithm 2 with ratio 1 of eq. 20, L, L_min, w):
 *   ratio = rho |N d| / |d| on the step just taken (eq. 20 evaluates it at the
 *   iterate itself, which costs one more product; the step's own d and N d are
 *   free here); while ratio > L, rho <- w rho and the step is redone; if
 *   ratio < L_min, rho <- rho / w for the next iteration. When on, it replaces
 *   the backtracking test (ratio <= L < 1 implies the Lipschitz test).
 * - adaptive restart (O'Donoghue-Candes gradient test): when
 *   (N y + r)^T (x_k - x_k-1) > 0, momentum is reset (theta = 1, beta = 0).
 * The iterate with the smallest measure (CCP residual, or the Coulomb error in
 * the outer Coulomb updates) is returned, not the last one.
 *
 * Written over the backend operations (ops.h): the same code runs on the
 * CPU and on a device; only the step-size decisions and the history come
 * back to the host (the step test's three sums and the restart test's sum in
 * one fused pass, one residual pair per iteration).
 *
 * Non-symmetric N (outside FCLIB problems): N is used as given in every
 * product, so a fixed point is the solution of the problem as posed; the
 * step tests only see N's symmetric part through d^T N d. */
#include <math.h>
#include <string.h>
#include "solver/ops.h"

/* |N|_F: exact for explicit N (host values), else E|N z|^2 over 4 Rademacher probes */
static double frobenius(const mo_ops *O, double *x, double *y)
{
    const mo_problem *p = O->p;
    int m = p->m;
    if (p->n_ptr) {
        double s = 0.0;
        for (int k = 0; k < p->n_ptr[m]; k++) s += p->n_val[k] * p->n_val[k];
        return sqrt(s);
    }
    double s = 0.0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int probe = 0; probe < 4; probe++) {
        double *hx = O->host(O, x);
        for (int i = 0; i < m; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            hx[i] = (seed >> 63) ? 1.0 : -1.0;
        }
        O->upload(O, x, hx);
        O->apply(O, x, y);
        s += O->dot(O, y, y);
    }
    return sqrt(s / 4.0);
}

static double initial_rho(const mo_ops *O, const mo_apgd_settings *a, double *x, double *y)
{
    double rho = 0.0;
    switch (a->rho) {
    case MO_RHO_NORM: {
        double f = frobenius(O, x, y);
        rho = f > 0.0 ? 1.0 / f : 0.0;
        break;
    }
    case MO_RHO_SMALLER: rho = 2.0 / 3.0; break;
    case MO_RHO_NORMAL: rho = 1.0; break;
    case MO_RHO_ACARY: rho = O->p->acary_rho; break;
    case MO_RHO_EIGEN: default: break;
    }
    if (!(rho > 0.0) || !isfinite(rho)) {
        double lam = mo_ops_power_lambda(O, x, y, 12);
        rho = lam > 0.0 ? 1.0 / lam : 1.0;
    }
    return rho;
}

void mo_solver_apgd(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    const mo_apgd_settings *a = &s->apgd;
    if (mo_solve_begin(p, o)) return; /* no rows: nothing to solve */
    mo_ops ops;
    const mo_ops *O = &ops;
    if (mo_ops_make(&ops, p, o, 10)) {
        mo_ops_failed(o);
        return;
    }
    double *x1 = mo_ops_vec(O, 0);  /* x_k-1 */
    double *x2 = mo_ops_vec(O, 1);  /* x_k-2 */
    double *n1 = mo_ops_vec(O, 2);  /* N x_k-1 */
    double *n2 = mo_ops_vec(O, 3);  /* N x_k-2 */
    double *y = mo_ops_vec(O, 4);
    double *g = mo_ops_vec(O, 5);   /* N y + r */
    double *x = mo_ops_vec(O, 6);   /* candidate x_k */
    double *nx = mo_ops_vec(O, 7);  /* N x_k */
    double *bx = mo_ops_vec(O, 8);  /* the best iterate */
    double *u = mo_ops_vec(O, 9);
    const double *r = O->r;

    double rho = initial_rho(O, a, x, nx);

    O->copy(O, x1, O->gamma);
    O->project(O, x1);
    O->apply(O, x1, n1);
    O->copy(O, x2, x1);
    O->copy(O, n2, n1);
    O->waxpy(O, u, n1, 1.0, r);
    double res = 0.0, err = 0.0;
    O->residuals(O, x1, u, &res, &err);
    mo_best best = {bx, 0.0, 0.0, 0.0};
    mo_ops_best_take(O, &best, mo_solve_measure(p, res, err), res, err, x1);

    double theta = 1.0, beta = 0.0;
    int it = 0;
    bool stop = mo_solve_stop(p, s, res, err, &o->converged);
    while (!stop && it < s->max_iterations) {
        O->extrap(O, y, x1, beta, x2);
        O->extrap(O, g, n1, beta, n2);
        O->axpy(O, g, 1.0, r);
        /* the projected step, with rho adjusted until the step test holds; the same pass sums the restart
         * test's g (x - x_k-1) at each candidate */
        double restart_sum = 0.0;
        for (int tries = 0;; tries++) {
            O->waxpy(O, x, y, -rho, g);
            O->project(O, x);
            O->apply(O, x, nx);
            double dots[4]; /* d = x - y, N d = N x - N y = nx - (g - r) */
            O->step_dots(O, x, y, nx, g, r, a->restart ? x1 : NULL, dots);
            restart_sum = dots[3];
            double dd = dots[0], dnd = dots[1], ndnd = dots[2];
            if (!(dd > 0.0) || tries >= 60) break;
            if (a->adaptive_rho) {
                double ratio = rho * sqrt(ndnd / dd);
                if (ratio > a->rho_ratio_max) {
                    rho *= a->rho_factor;
                    continue;
                }
                if (ratio < a->rho_ratio_min) rho /= a->rho_factor; /* for the next iteration */
                break;
            }
            if (a->backtracking && dnd > dd / rho) {
                rho *= 0.5;
                continue;
            }
            break;
        }
        it++;
        /* restart test uses the gradient at y and the step from x_k-1 */
        bool restart = a->restart && restart_sum > 0.0;
        /* shift: x_k-2 <- x_k-1, x_k-1 <- x_k, by rotating the buffers (the old x_k-2's become the next
         * candidate's) */
        double *t0 = x2, *t1 = n2;
        x2 = x1;
        n2 = n1;
        x1 = x;
        n1 = nx;
        x = t0;
        nx = t1;
        if (restart) {
            theta = 1.0;
            beta = 0.0;
        } else {
            double th = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
            beta = theta * (1.0 - theta) / (theta * theta + th);
            theta = th;
        }
        O->waxpy(O, u, n1, 1.0, r);
        res = mo_ops_record(O, x1, u, o, &err);
        double meas = mo_solve_measure(p, res, err);
        if (meas < best.measure || !isfinite(best.measure)) mo_ops_best_take(O, &best, meas, res, err, x1);
        stop = mo_solve_stop(p, s, res, err, &o->converged);
    }
    mo_ops_finish_best(O, o, best.x, it, best.res, best.err);
}
