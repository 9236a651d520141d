/* solvers_v0.c: Jacobi, APGD and P-SPG-FB exactly as they were before the
 * backend operations (commit b568d5c, host loops over the problem), kept as
 * the reference test_ops compares the ops-based solvers with bit for bit.
 * Only the function names changed (ref_solver_*). Not built into the engine. */
/* jacobi.c: projected Jacobi (SOLVERS.md A).
 *
 * All blocks update from the same iterate: gamma <- P_K(gamma - w D^-1 (N gamma + r))
 * with D block diagonal: the dense N block of a joint's bilateral group, one
 * scalar per other block (N_ii for scalar rows, tr(N_cc)/3 for a contact, as in
 * PGS's cone model). It converges for step factors below
 * 2 / lambda_max(D^-1 N); lambda_max is estimated each step by power iteration
 * (D^-1 N is similar to the symmetric D^-1/2 N D^-1/2, so its eigenvalues are
 * real and non-negative) and inflated by 5 % against underestimation; the
 * step factor is omega / lambda_est with the user's omega in (0, 2). The
 * block updates are independent (parallel under OpenMP); products with N go
 * through mo_problem_apply, so every problem form works. It returns the last
 * iterate: keeping the best one (as APGD and SPG do) made stack20 fall at 50
 * iterations, since the warm start often has the smallest residual early on. */
#include <math.h>
#include <string.h>
#include "solver/solver.h"
#include "core/parallel.h"
#include "solvers_v0.h"

/* y = D^-1 x block by block (D: N^-1 of bilateral groups, one scalar per other block) */
static void jacobi_apply_dinv(const mo_problem *p, const double *x, double *y)
{
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        mo_problem_block_solve(p, k, x + r0, y + r0);
    }
}

/* largest eigenvalue of D^-1 N by power iteration (x, y, nx_buf, work: scratch) */
static double jacobi_lambda_max(const mo_problem *p, double *x, double *y, double *nx_buf, double *work)
{
    int m = p->m;
    for (int r = 0; r < m; r++) x[r] = 1.0 + 0.01 * (double)(r % 7);
    double lam = 0.0;
    for (int it = 0; it < 20; it++) {
        mo_problem_apply(p, x, nx_buf, work);
        jacobi_apply_dinv(p, nx_buf, y);
        double ny = 0.0, nx = 0.0;
        for (int r = 0; r < m; r++) {
            ny += y[r] * y[r];
            nx += x[r] * x[r];
        }
        if (!(ny > 0.0)) return 1.0;
        lam = sqrt(ny / nx);
        double inv = 1.0 / sqrt(ny);
        for (int r = 0; r < m; r++) x[r] = y[r] * inv;
    }
    return lam;
}

void ref_solver_jacobi(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    int m = p->m;
    double *gamma = o->gamma;
    double *u = o->scratch, *du = u + m, *x = du + m, *y = x + m, *work = y + m;
    double lam = m > 0 ? 1.05 * jacobi_lambda_max(p, x, y, du, work) : 1.0;
    double step = s->omega / (lam > 0.0 ? lam : 1.0);
    o->converged = false;
    o->hist_count = 0;
    int it = 0;
    const int nt = p->threads;
    double res = 0.0, err = 0.0;
    mo_problem_u(p, gamma, u, work);
    while (it < s->max_iterations) {
        MO_PARALLEL_LOOP(nt, p->nblocks, for (int k = 0; k < p->nblocks; k++) {
            int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
            double xb[MO_MAX_BLOCK] = {0}, d[MO_MAX_BLOCK] = {0};
            mo_problem_block_solve(p, k, u + r0, d);
            for (int i = 0; i < nr; i++) xb[i] = gamma[r0 + i] - step * d[i];
            mo_k_project_block(xb, p->block_kind[k], p->block_mu[k], p->lo[r0], p->hi[r0]);
            for (int i = 0; i < nr; i++) gamma[r0 + i] = xb[i];
        });
        it++;
        mo_problem_u(p, gamma, u, work);
        res = mo_solve_record(p, gamma, u, o, &err);
        if (mo_solve_stop(p, s, res, err, &o->converged)) break;
    }
    if (it == 0) mo_problem_residuals(p, gamma, u, &res, &err);
    o->iterations = it;
    o->residual = res;
    o->coulomb_error = err;
    mo_solve_finish_v(p, o);
}
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

static double apgd_dot(const double *a, const double *b, int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) s += a[i] * b[i];
    return s;
}

/* largest eigenvalue of N by power iteration (x, y: scratch of m) */
static double apgd_power_lambda(const mo_problem *p, double *x, double *y, double *work, int iters)
{
    int m = p->m;
    for (int i = 0; i < m; i++) x[i] = 1.0 + 0.01 * (double)(i % 7);
    double nx = sqrt(apgd_dot(x, x, m)), lam = 0.0;
    for (int i = 0; i < m; i++) x[i] /= nx;
    for (int it = 0; it < iters; it++) {
        mo_problem_apply(p, x, y, work);
        double ny = sqrt(apgd_dot(y, y, m));
        if (!(ny > 0.0)) return 0.0;
        lam = ny;
        for (int i = 0; i < m; i++) x[i] = y[i] / ny;
    }
    return lam;
}

/* |N|_F: exact for explicit N, else E|N z|^2 over 4 Rademacher probes */
static double apgd_frobenius(const mo_problem *p, double *x, double *y, double *work)
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
        s += apgd_dot(y, y, m);
    }
    return sqrt(s / 4.0);
}

static double apgd_initial_rho(const mo_problem *p, const mo_apgd_settings *a, double *x, double *y, double *work)
{
    double rho = 0.0;
    switch (a->rho) {
    case MO_RHO_NORM: {
        double f = apgd_frobenius(p, x, y, work);
        rho = f > 0.0 ? 1.0 / f : 0.0;
        break;
    }
    case MO_RHO_SMALLER: rho = 2.0 / 3.0; break;
    case MO_RHO_NORMAL: rho = 1.0; break;
    case MO_RHO_ACARY: rho = p->acary_rho; break;
    case MO_RHO_EIGEN: default: break;
    }
    if (!(rho > 0.0) || !isfinite(rho)) {
        double lam = apgd_power_lambda(p, x, y, work, 12);
        rho = lam > 0.0 ? 1.0 / lam : 1.0;
    }
    return rho;
}

void ref_solver_apgd(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
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
    double rho = apgd_initial_rho(p, a, x, nx, work);

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
/* spg.c: P-SPG-FB, the preconditioned spectral projected gradient
 * method with fallback (Tasora et al.; SOLVERS.md A), following the paper's
 * listing line by line:
 *
 *   p_j = P^-1 g_j;  d_j = P_K(x_j - a_j p_j) - x_j
 *   if <d_j, g_j> >= 0: d_j = P_K(x_j - a_j g_j) - x_j      (unpreconditioned retry)
 *   GLL line search: x_j+1 = x_j + lambda d_j accepted when
 *       f(x_j+1) <= max_{i <= min(j, N_GLL)} f(x_j-i) + gamma lambda <d_j, g_j>
 *   s = x_j+1 - x_j, y = g_j+1 - g_j
 *   a_j+1 = <s, P s>/<s, y> (j odd, BB1) or <s, y>/<y, P^-1 y> (j even, BB2),
 *           clamped to [alpha_min, alpha_max]
 *           (or, with step_rule MO_SPG_ABBMIN, not the listing's: ABBmin2 of
 *           Frassoldati, Zanni and Zanghirati 2008: BB1, unless BB2 < tau BB1,
 *           then the smallest of the last 9 BB2 and tau *= 0.9; else tau *= 1.1;
 *           tau_0 = 0.5)
 *   fallback: keep the x with the smallest w = |x - P_K(x - tau_g g)| / tau_g.
 *
 * Choices where the paper gives no value (documented in docs/solvers.md too):
 * - P = diag(N) averaged within each block (a contact's 3 rows share one value;
 *   a joint's bilateral rows share one value), or I when switched off;
 * - lambda_new from the minimiser of the quadratic model along d (exact for
 *   this quadratic f), clamped to [sigma_min lambda, sigma_max lambda]
 *   (Birgin-Martinez-Raydan's rule; sigma 0.1 / 0.9, armijo gamma 1e-4);
 * - a_0 = 1 / max diag(P^-1 N) unless set; tau_g = 0 means 1 / max diag N, so
 *   w is exactly the CCP residual the engine reports; in the outer Coulomb
 *   updates the fallback keeps the smallest Coulomb error instead.
 * f is quadratic, so f and g along d follow from one product N d per
 * iteration: g(x + lambda d) = g + lambda N d, and the line search costs no
 * further products. Non-symmetric N (FCLIB): g uses N as given; f(x) =
 * 1/2 x^T (N x) + r^T x sees only its symmetric part. */
#include <math.h>
#include <float.h>
#include <string.h>
#include "solver/solver.h"

static double spg_dot(const double *a, const double *b, int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) s += a[i] * b[i];
    return s;
}

/* the projected-gradient residual |x - P_K(x - tau g)| / tau (xt: m doubles of scratch) */
static double spg_grad_residual(const mo_problem *p, const double *x, const double *g, double tau, double *xt)
{
    const int m = p->m;
    for (int i = 0; i < m; i++) xt[i] = x[i] - tau * g[i];
    mo_problem_project(p, xt);
    double w2 = 0.0;
    for (int i = 0; i < m; i++) w2 += (x[i] - xt[i]) * (x[i] - xt[i]);
    return sqrt(w2) / tau;
}

void ref_solver_spg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    const int m = p->m;
    const mo_spg_settings *c = &s->spg;
    double *x = o->scratch;
    double *g = x + m;       /* N x + r */
    double *nxv = g + m;     /* N x */
    double *d = nxv + m;
    double *nd = d + m;      /* N d */
    double *pd = nd + m;     /* P (diagonal) */
    double *xt = pd + m;     /* trial / projection buffer */
    double *bx = xt + m;       /* the best iterate */
    double *u = bx + m;
    double *work = u + m;
    double *gamma = o->gamma;
    double fhist[128];

    if (mo_solve_begin(p, o)) return; /* no rows: nothing to solve */
    /* preconditioner: diag(N) averaged per block */
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
        double avg = 0.0;
        for (int i = 0; i < nr; i++) avg += p->diag[r0 + i];
        avg /= (double)nr;
        if (!(avg > 0.0)) avg = 1.0;
        for (int i = 0; i < nr; i++) pd[r0 + i] = c->preconditioner ? avg : 1.0;
    }
    double dmax = 0.0, pmax = 0.0;
    for (int i = 0; i < m; i++) {
        if (p->diag[i] > dmax) dmax = p->diag[i];
        double q = p->diag[i] / pd[i];
        if (q > pmax) pmax = q;
    }
    const double tau = c->tau_g > 0.0 ? c->tau_g : (dmax > 0.0 ? 1.0 / dmax : 1.0);
    double alpha = c->alpha0 > 0.0 ? c->alpha0 : (pmax > 0.0 ? 1.0 / pmax : 1.0);
    alpha = fmin(c->alpha_max, fmax(c->alpha_min, alpha));

    memcpy(x, gamma, (size_t)m * sizeof(double));
    mo_problem_project(p, x);
    mo_problem_apply(p, x, nxv, work);
    for (int i = 0; i < m; i++) g[i] = nxv[i] + p->r[i];
    double f = 0.5 * spg_dot(x, nxv, m) + spg_dot(x, p->r, m);
    int nh = 0, ngll = c->n_gll < 128 ? c->n_gll : 128;
    fhist[nh++] = f;
    double res = 0.0, err = 0.0;
    mo_problem_residuals(p, x, g, &res, &err);
    (void)tau; /* tau_g = 1/max diag N is the CCP residual's alpha: w == res */
    double wres = c->tau_g > 0.0 ? spg_grad_residual(p, x, g, tau, xt) : res;
    mo_best best = {bx, 0.0, 0.0, 0.0};
    mo_best_take(&best, p->stop_coulomb ? err : wres, res, err, x, m);
    bool stop = mo_solve_stop(p, s, res, err, &o->converged);

    int it = 0;
    double bb2hist[9], abb_tau = 0.5; /* MO_SPG_ABBMIN: the last 9 BB2 steps, the switching threshold */
    int nbb2 = 0;
    while (!stop && it < s->max_iterations) {
        /* direction: preconditioned projected step, retried unpreconditioned if not descent */
        for (int i = 0; i < m; i++) xt[i] = x[i] - alpha * g[i] / pd[i];
        mo_problem_project(p, xt);
        for (int i = 0; i < m; i++) d[i] = xt[i] - x[i];
        double dg = spg_dot(d, g, m);
        if (dg >= 0.0) {
            for (int i = 0; i < m; i++) xt[i] = x[i] - alpha * g[i];
            mo_problem_project(p, xt);
            for (int i = 0; i < m; i++) d[i] = xt[i] - x[i];
            dg = spg_dot(d, g, m);
        }
        it++;
        if (!(dg < 0.0)) {
            /* no descent direction left: x is stationary to rounding */
            for (int i = 0; i < m; i++) u[i] = g[i];
            res = mo_solve_record(p, x, u, o, &err);
            if (mo_solve_measure(p, res, err) < best.measure)
                mo_best_take(&best, mo_solve_measure(p, res, err), res, err, x, m);
            break;
        }
        mo_problem_apply(p, d, nd, work);
        double dnd = spg_dot(d, nd, m);
        double fmax_ = fhist[0];
        for (int i = 1; i < nh; i++)
            if (fhist[i] > fmax_) fmax_ = fhist[i];
        /* GLL line search along d (f(x + l d) = f + l <d, g_sym> + l^2/2 d^T N d) */
        double dgs = 0.5 * (spg_dot(d, nxv, m) + spg_dot(x, nd, m)) + spg_dot(d, p->r, m); /* <d, grad of sym f> */
        double lambda = 1.0, fnew = f;
        for (int ls = 0; ls < 60; ls++) {
            fnew = f + lambda * dgs + 0.5 * lambda * lambda * dnd;
            if (fnew <= fmax_ + c->armijo * lambda * dg) break;
            /* minimiser of the quadratic model, safeguarded */
            double lq = dnd > 0.0 ? -dgs / dnd : c->sigma_max * lambda;
            if (!(lq >= c->sigma_min * lambda)) lq = c->sigma_min * lambda;
            if (lq > c->sigma_max * lambda) lq = c->sigma_max * lambda;
            lambda = lq;
        }
        /* s = lambda d, y = lambda N d */
        for (int i = 0; i < m; i++) {
            x[i] += lambda * d[i];
            nxv[i] += lambda * nd[i];
            g[i] = nxv[i] + p->r[i];
        }
        f = fnew;
        if (nh < ngll + 1) fhist[nh++] = f;
        else {
            memmove(fhist, fhist + 1, (size_t)(nh - 1) * sizeof(double));
            fhist[nh - 1] = f;
        }
        double sy = lambda * lambda * dnd;
        double a_new;
        if (c->step_rule == MO_SPG_ABBMIN) {
            double sps = 0.0, ypy = 0.0;
            for (int i = 0; i < m; i++) {
                sps += d[i] * pd[i] * d[i];
                ypy += nd[i] * nd[i] / pd[i];
            }
            double bb1 = sy > 0.0 ? lambda * lambda * sps / sy : c->alpha_max;
            double bb2 = ypy > 0.0 ? sy / (lambda * lambda * ypy) : c->alpha_max;
            bb2hist[nbb2 % 9] = bb2;
            nbb2++;
            if (bb2 < abb_tau * bb1) {
                a_new = bb2;
                for (int q = 0; q < (nbb2 < 9 ? nbb2 : 9); q++) a_new = fmin(a_new, bb2hist[q]);
                abb_tau *= 0.9;
            } else {
                a_new = bb1;
                abb_tau *= 1.1;
            }
        } else if (it % 2 == 0) { /* j = it - 1 odd: BB1 = <s, P s> / <s, y> */
            double sps = 0.0;
            for (int i = 0; i < m; i++) sps += d[i] * pd[i] * d[i];
            a_new = sy > 0.0 ? lambda * lambda * sps / sy : c->alpha_max;
        } else { /* BB2 = <s, y> / <y, P^-1 y> */
            double ypy = 0.0;
            for (int i = 0; i < m; i++) ypy += nd[i] * nd[i] / pd[i];
            a_new = ypy > 0.0 ? sy / (lambda * lambda * ypy) : c->alpha_max;
        }
        alpha = fmin(c->alpha_max, fmax(c->alpha_min, a_new));

        for (int i = 0; i < m; i++) u[i] = g[i];
        res = mo_solve_record(p, x, u, o, &err);
        wres = c->tau_g > 0.0 ? spg_grad_residual(p, x, g, tau, xt) : res;
        double meas = p->stop_coulomb ? err : wres;
        if (meas <= best.measure) mo_best_take(&best, meas, res, err, x, m);
        stop = mo_solve_stop(p, s, res, err, &o->converged);
    }
    mo_solve_finish_best(p, o, best.x, it, best.res, best.err);
}
