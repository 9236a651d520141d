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
 * Non-symmetric N (outside FCLIB problems): N is used as given in every
 * product, so a fixed point is the solution of the problem as posed; the
 * step tests only see N's symmetric part through d^T N d. */
#include <math.h>
#include <string.h>
#include "solver/solver.h"

static double dot(const double *a, const double *b, int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) s += a[i] * b[i];
    return s;
}

/* largest eigenvalue of N by power iteration (x, y: scratch of m) */
static double power_lambda(const mo_problem *p, double *x, double *y, double *work, int iters)
{
    int m = p->m;
    for (int i = 0; i < m; i++) x[i] = 1.0 + 0.01 * (double)(i % 7);
    double nx = sqrt(dot(x, x, m)), lam = 0.0;
    for (int i = 0; i < m; i++) x[i] /= nx;
    for (int it = 0; it < iters; it++) {
        mo_problem_apply(p, x, y, work);
        double ny = sqrt(dot(y, y, m));
        if (!(ny > 0.0)) return 0.0;
        lam = ny;
        for (int i = 0; i < m; i++) x[i] = y[i] / ny;
    }
    return lam;
}

/* |N|_F: exact for explicit N, else E|N z|^2 over 4 Rademacher probes */
static double frobenius(const mo_problem *p, double *x, double *y, double *work)
{
    int m = p->m;
    if (p->n_ptr) {
        double s = 0.0;
        for (int k = 0; k < p->n_ptr[m]; k++) s += p->n_val[k] * p->n_val[k];
        return sqrt(s);
    }
    double s = 0.0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int probe = 0; probe < 4; probe++) {
        for (int i = 0; i < m; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = (seed >> 63) ? 1.0 : -1.0;
        }
        mo_problem_apply(p, x, y, work);
        s += dot(y, y, m);
    }
    return sqrt(s / 4.0);
}

static double initial_rho(const mo_problem *p, const mo_apgd_settings *a, double *x, double *y, double *work)
{
    double rho = 0.0;
    switch (a->rho) {
    case MO_RHO_NORM: {
        double f = frobenius(p, x, y, work);
        rho = f > 0.0 ? 1.0 / f : 0.0;
        break;
    }
    case MO_RHO_SMALLER: rho = 2.0 / 3.0; break;
    case MO_RHO_NORMAL: rho = 1.0; break;
    case MO_RHO_ACARY: rho = p->acary_rho; break;
    case MO_RHO_EIGEN: default: break;
    }
    if (!(rho > 0.0) || !isfinite(rho)) {
        double lam = power_lambda(p, x, y, work, 12);
        rho = lam > 0.0 ? 1.0 / lam : 1.0;
    }
    return rho;
}

void mo_solver_apgd(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    const int m = p->m;
    const mo_apgd_settings *a = &s->apgd;
    double *x1 = o->scratch;   /* x_k-1 */
    double *x2 = x1 + m;       /* x_k-2 */
    double *n1 = x2 + m;       /* N x_k-1 */
    double *n2 = n1 + m;       /* N x_k-2 */
    double *y = n2 + m;
    double *g = y + m;         /* N y + r */
    double *x = g + m;         /* candidate x_k */
    double *nx = x + m;        /* N x_k */
    double *bx = nx + m;       /* the best iterate */
    double *u = bx + m;
    double *work = u + m;
    double *gamma = o->gamma;

    if (mo_solve_begin(p, o)) return; /* no rows: nothing to solve */
    double rho = initial_rho(p, a, x, nx, work);

    memcpy(x1, gamma, (size_t)m * sizeof(double));
    mo_problem_project(p, x1);
    mo_problem_apply(p, x1, n1, work);
    memcpy(x2, x1, (size_t)m * sizeof(double));
    memcpy(n2, n1, (size_t)m * sizeof(double));
    for (int i = 0; i < m; i++) u[i] = n1[i] + p->r[i];
    double res = 0.0, err = 0.0;
    mo_problem_residuals(p, x1, u, &res, &err);
    mo_best best = {bx, 0.0, 0.0, 0.0};
    mo_best_take(&best, mo_solve_measure(p, res, err), res, err, x1, m);

    double theta = 1.0, beta = 0.0;
    int it = 0;
    bool stop = mo_solve_stop(p, s, res, err, &o->converged);
    while (!stop && it < s->max_iterations) {
        for (int i = 0; i < m; i++) {
            y[i] = x1[i] + beta * (x1[i] - x2[i]);
            g[i] = n1[i] + beta * (n1[i] - n2[i]) + p->r[i];
        }
        /* the projected step, with rho adjusted until the step test holds */
        for (int tries = 0;; tries++) {
            for (int i = 0; i < m; i++) x[i] = y[i] - rho * g[i];
            mo_problem_project(p, x);
            mo_problem_apply(p, x, nx, work);
            double dd = 0.0, dnd = 0.0, ndnd = 0.0;
            for (int i = 0; i < m; i++) {
                double d = x[i] - y[i];
                double nd = nx[i] - (g[i] - p->r[i]); /* N x - N y */
                dd += d * d;
                dnd += d * nd;
                ndnd += nd * nd;
            }
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
        bool restart = false;
        if (a->restart) {
            double t = 0.0;
            for (int i = 0; i < m; i++) t += g[i] * (x[i] - x1[i]);
            restart = t > 0.0;
        }
        /* shift: x_k-2 <- x_k-1, x_k-1 <- x_k (pointer swap through the buffers) */
        double *t0 = x2, *t1 = n2;
        x2 = x1;
        n2 = n1;
        x1 = t0;
        n1 = t1;
        memcpy(x1, x, (size_t)m * sizeof(double));
        memcpy(n1, nx, (size_t)m * sizeof(double));
        if (restart) {
            theta = 1.0;
            beta = 0.0;
        } else {
            double th = 0.5 * (-theta * theta + theta * sqrt(theta * theta + 4.0));
            beta = theta * (1.0 - theta) / (theta * theta + th);
            theta = th;
        }
        for (int i = 0; i < m; i++) u[i] = n1[i] + p->r[i];
        res = mo_solve_record(p, x1, u, o, &err);
        double meas = mo_solve_measure(p, res, err);
        if (meas < best.measure || !isfinite(best.measure)) mo_best_take(&best, meas, res, err, x1, m);
        stop = mo_solve_stop(p, s, res, err, &o->converged);
    }
    mo_solve_finish_best(p, o, best.x, it, best.res, best.err);
}
