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
 * iterations, since the warm start often has the smallest residual early on.
 * Written over the backend operations (ops.h), so it runs on any backend. */
#include <math.h>
#include <string.h>
#include "solver/ops.h"

/* largest eigenvalue of D^-1 N by power iteration (x, y, nx: vectors) */
static double lambda_max(const mo_ops *O, double *x, double *y, double *nx)
{
    O->seed(O, x);
    double lam = 0.0;
    for (int it = 0; it < 20; it++) {
        O->apply(O, x, nx);
        O->block_solve(O, nx, y);
        double ny = O->dot(O, y, y), xx = O->dot(O, x, x);
        if (!(ny > 0.0)) return 1.0;
        lam = sqrt(ny / xx);
        O->scale(O, x, 1.0 / sqrt(ny), y);
    }
    return lam;
}

void mo_solver_jacobi(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    mo_ops ops;
    const mo_ops *O = &ops;
    if (mo_ops_make(&ops, p, o, 4)) {
        mo_ops_failed(o);
        return;
    }
    double *u = mo_ops_vec(O, 0), *du = mo_ops_vec(O, 1), *x = mo_ops_vec(O, 2), *y = mo_ops_vec(O, 3);
    double *gamma = O->gamma;
    double lam = p->m > 0 ? 1.05 * lambda_max(O, x, y, du) : 1.0;
    double step = s->omega / (lam > 0.0 ? lam : 1.0);
    o->converged = false;
    o->hist_count = 0;
    int it = 0;
    double res = 0.0, err = 0.0;
    O->apply(O, gamma, u);
    O->axpy(O, u, 1.0, O->r);
    while (it < s->max_iterations) {
        /* every block from the same iterate: gamma <- P_K(gamma - step D^-1 u) */
        O->block_solve(O, u, du);
        O->waxpy(O, gamma, gamma, -step, du);
        O->project(O, gamma);
        it++;
        O->apply(O, gamma, u);
        O->axpy(O, u, 1.0, O->r);
        res = mo_ops_record(O, gamma, u, o, &err);
        if (mo_solve_stop(p, s, res, err, &o->converged)) break;
    }
    if (it == 0) O->residuals(O, gamma, u, &res, &err);
    o->iterations = it;
    o->residual = res;
    o->coulomb_error = err;
    O->finish(O, o);
}
