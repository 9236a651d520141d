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

/* y = D^-1 x block by block (D: N^-1 of bilateral groups, one scalar per other block) */
static void apply_dinv(const mo_problem *p, const double *x, double *y)
{
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        mo_problem_block_solve(p, k, x + r0, y + r0);
    }
}

/* largest eigenvalue of D^-1 N by power iteration (x, y, nx_buf, work: scratch) */
static double lambda_max(const mo_problem *p, double *x, double *y, double *nx_buf, double *work)
{
    int m = p->m;
    for (int r = 0; r < m; r++) x[r] = 1.0 + 0.01 * (double)(r % 7);
    double lam = 0.0;
    for (int it = 0; it < 20; it++) {
        mo_problem_apply(p, x, nx_buf, work);
        apply_dinv(p, nx_buf, y);
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

void mo_solver_jacobi(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    int m = p->m;
    double *gamma = o->gamma;
    double *u = o->scratch, *du = u + m, *x = du + m, *y = x + m, *work = y + m;
    double lam = m > 0 ? 1.05 * lambda_max(p, x, y, du, work) : 1.0;
    double step = s->omega / (lam > 0.0 ? lam : 1.0);
    o->converged = false;
    o->hist_count = 0;
    int it = 0;
    const int nt = p->threads;
    double res = 0.0, err = 0.0;
    mo_problem_u(p, gamma, u, work);
    while (it < s->max_iterations) {
        MO_PARALLEL_FOR(nt)
        for (int k = 0; k < p->nblocks; k++) {
            int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
            double xb[MO_MAX_BLOCK] = {0}, d[MO_MAX_BLOCK] = {0};
            mo_problem_block_solve(p, k, u + r0, d);
            for (int i = 0; i < nr; i++) xb[i] = gamma[r0 + i] - step * d[i];
            mo_k_project_block(xb, p->block_kind[k], p->block_mu[k], p->lo[r0], p->hi[r0]);
            for (int i = 0; i < nr; i++) gamma[r0 + i] = xb[i];
        }
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
