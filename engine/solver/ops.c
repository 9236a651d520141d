/* ops.c: what the solvers written over the backend operations share: the
 * history record, the best iterate, the end of a solve and the power
 * iteration, each the ops form of problem.c's and apgd.c's host code (same
 * arithmetic, so the CPU backend gives the same values). */
#include <math.h>
#include "solver/ops.h"

double mo_ops_record(const mo_ops *o, const double *gamma, const double *u, mo_solve_out *out, double *coulomb)
{
    double res = 0.0, err = 0.0;
    o->residuals(o, gamma, u, &res, &err);
    if (out->res_hist) {
        out->res_hist[out->hist_count] = res;
        out->err_hist[out->hist_count] = err;
        out->hist_count++;
    }
    if (coulomb) *coulomb = err;
    return res;
}

void mo_ops_best_take(const mo_ops *o, mo_best *b, double measure, double res, double err, const double *x)
{
    b->measure = measure;
    b->res = res;
    b->err = err;
    o->copy(o, b->x, x);
}

void mo_ops_finish_best(const mo_ops *o, mo_solve_out *out, const double *best, int iterations, double residual,
                        double coulomb)
{
    o->copy(o, o->gamma, best);
    out->iterations = iterations;
    out->residual = residual;
    out->coulomb_error = coulomb;
    o->finish(o, out);
}

double mo_ops_power_lambda(const mo_ops *o, double *x, double *y, int iters)
{
    o->seed(o, x);
    double nx = sqrt(o->dot(o, x, x)), lam = 0.0;
    o->divide(o, x, x, nx);
    for (int it = 0; it < iters; it++) {
        o->apply(o, x, y);
        double ny = sqrt(o->dot(o, y, y));
        if (!(ny > 0.0)) return 0.0;
        lam = ny;
        o->divide(o, x, y, ny);
    }
    return lam;
}

int mo_ops_make(mo_ops *ops, const mo_problem *p, mo_solve_out *out, int nvec)
{
    out->device_failed = false;
    if (!out->device) {
        mo_ops_cpu(ops, p, out, nvec);
        return 0;
    }
    if (mo_ops_device(ops, out->device, p, out, nvec) == 0) return 0;
    out->device_failed = true;
    return -1;
}

void mo_ops_failed(mo_solve_out *out)
{
    out->iterations = 0;
    out->converged = false;
    out->hist_count = 0;
    out->residual = out->coulomb_error = NAN;
}
