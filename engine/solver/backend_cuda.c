/* backend_cuda.c: the backend operations (solver/ops.h) over a device context
 * (device.h): each operation calls the module's function of the same name on
 * the context; the problem goes up once per solve (upload), with the host
 * computing what needs the problem's host arrays once (each block's D^-1
 * scale exactly as mo_problem_block_solve computes it, the block means of
 * diag(N), the residual's alpha), and gamma and v come down once at the end.
 * Inside the iterations only the scalars the solvers branch on come back.
 *
 * The device holds the J form (J, M^-1 J^T, Sigma, v~) or the explicit form
 * (FCLIB's W). Facet and scaled problems (polyhedral friction,
 * diagonal_scaling) are built over a base problem and are not uploaded in
 * this version: mo_ops_device refuses them with a sentence, and
 * mo_device_supports tells the world before a step.
 *
 * A Newton system (newton.h) goes up as the J form too: A = h^2 Jm M~^-1
 * Jm^T + diag(cd) is (h Jm)(h M~^-1 Jm^T)^T + Sigma with Sigma = cd, the
 * masked rows empty; PCR, PCG and Jacobi (newton_linear.c) then run on it
 * through the same operations, b up and x down once per linear solve. */
#include <math.h>
#include <float.h>
#include <stdio.h>
#include <string.h>
#include "solver/ops.h"
#include "solver/newton.h"
#include "backend/device.h"

#define DEV(o) ((mo_device *)(o)->impl)

static void d_apply(const mo_ops *o, const double *x, double *y) { DEV(o)->fns.apply(DEV(o)->ctx, x, y); }
static void d_project(const mo_ops *o, double *x) { DEV(o)->fns.project(DEV(o)->ctx, x); }
static void d_block_solve(const mo_ops *o, const double *x, double *y) { DEV(o)->fns.block_solve(DEV(o)->ctx, x, y); }
static void d_block_mean_diag(const mo_ops *o, double *y) { DEV(o)->fns.block_mean_diag(DEV(o)->ctx, y); }
static void d_copy(const mo_ops *o, double *y, const double *x)
{
    if (y != x) DEV(o)->fns.copy(DEV(o)->ctx, y, x);
}
static void d_seed(const mo_ops *o, double *x) { DEV(o)->fns.seed(DEV(o)->ctx, x); }
static void d_scale(const mo_ops *o, double *y, double a, const double *x) { DEV(o)->fns.scale(DEV(o)->ctx, y, a, x); }
static void d_divide(const mo_ops *o, double *y, const double *x, double a) { DEV(o)->fns.divide(DEV(o)->ctx, y, x, a); }
static void d_axpy(const mo_ops *o, double *y, double a, const double *x) { DEV(o)->fns.axpy(DEV(o)->ctx, y, a, x); }
static void d_waxpy(const mo_ops *o, double *w, const double *x, double a, const double *y)
{
    DEV(o)->fns.waxpy(DEV(o)->ctx, w, x, a, y);
}
static void d_sub(const mo_ops *o, double *w, const double *x, const double *y) { DEV(o)->fns.sub(DEV(o)->ctx, w, x, y); }
static void d_extrap(const mo_ops *o, double *w, const double *x, double b, const double *z)
{
    DEV(o)->fns.extrap(DEV(o)->ctx, w, x, b, z);
}
static void d_pstep(const mo_ops *o, double *w, const double *x, double a, const double *g, const double *d)
{
    DEV(o)->fns.pstep(DEV(o)->ctx, w, x, a, g, d);
}
static void d_step_dots(const mo_ops *o, const double *x, const double *y, const double *nx, const double *g,
                        const double *r, const double *x1, double out[4])
{
    DEV(o)->fns.step_dots(DEV(o)->ctx, x, y, nx, g, r, x1, out);
}
_Static_assert((int)MO_SUM_DOT == (int)MO_CUDA_SUM_DOT && (int)MO_SUM_WDOT == (int)MO_CUDA_SUM_WDOT &&
                   (int)MO_SUM_IDOT == (int)MO_CUDA_SUM_IDOT && (int)MO_SUM_DIFF == (int)MO_CUDA_SUM_DIFF &&
                   MO_OPS_MAX_SUMS == MO_CUDA_MAX_SUMS,
               "ops.h's sum terms are the module's");
static void d_sums(const mo_ops *o, int k, const mo_sum *t, double *out)
{
    int kind[MO_OPS_MAX_SUMS];
    const double *v[3 * MO_OPS_MAX_SUMS];
    for (int q = 0; q < k && q < MO_OPS_MAX_SUMS; q++) {
        kind[q] = t[q].kind;
        v[3 * q] = t[q].a;
        v[3 * q + 1] = t[q].b;
        v[3 * q + 2] = t[q].c;
    }
    DEV(o)->fns.sums(DEV(o)->ctx, k, kind, v, out);
}
static double d_dot_diff(const mo_ops *o, const double *a, const double *x, const double *y)
{
    return DEV(o)->fns.dot_diff(DEV(o)->ctx, a, x, y);
}
static void d_ediv(const mo_ops *o, double *y, const double *x, const double *d)
{
    DEV(o)->fns.ediv(DEV(o)->ctx, y, x, d);
}
static void d_zero(const mo_ops *o, double *x) { DEV(o)->fns.zero(DEV(o)->ctx, x); }
static void d_mask_pos(const mo_ops *o, double *x, const double *d) { DEV(o)->fns.mask_pos(DEV(o)->ctx, x, d); }
static void d_bil_precond(const mo_ops *o, const double *x, double *y, const double *d)
{
    DEV(o)->fns.bil_precond(DEV(o)->ctx, x, y, d);
}
static double d_dot(const mo_ops *o, const double *x, const double *y)
{
    double out[3];
    DEV(o)->fns.dot3(DEV(o)->ctx, x, y, NULL, NULL, NULL, NULL, out);
    return out[0];
}
static void d_dot3(const mo_ops *o, const double *x1, const double *y1, const double *x2, const double *y2,
                   const double *x3, const double *y3, double out[3])
{
    DEV(o)->fns.dot3(DEV(o)->ctx, x1, y1, x2, y2, x3, y3, out);
}
static double d_wdot(const mo_ops *o, const double *x, const double *d, const double *y)
{
    return DEV(o)->fns.wdot(DEV(o)->ctx, x, d, y);
}
static double d_idot(const mo_ops *o, const double *x, const double *y, const double *d)
{
    return DEV(o)->fns.idot(DEV(o)->ctx, x, y, d);
}

/* the residual measures from the device's four sums, with mo_problem_residuals' final arithmetic */
static void d_residuals(const mo_ops *o, const double *gamma, const double *u, double *ccp, double *coulomb)
{
    const mo_problem *p = o->p;
    double alpha = DEV(o)->res_alpha; /* set at the upload: no pass over the host's rows per iteration */
    double s[4];
    DEV(o)->fns.residual_sums(DEV(o)->ctx, gamma, u, alpha, s);
    if (ccp) *ccp = sqrt(s[0]) / alpha;
    if (coulomb) {
        double den = p->q_contact_norm;
        if (sqrt(s[2]) > den) den = sqrt(s[2]);
        if (sqrt(s[3]) > den) den = sqrt(s[3]);
        *coulomb = den > DBL_EPSILON ? sqrt(s[1]) / den : sqrt(s[1]);
    }
}

static double *d_host(const mo_ops *o, double *x)
{
    (void)x;
    return (double *)DEV(o)->host_vec.p;
}
static void d_upload(const mo_ops *o, double *x, const double *h) { DEV(o)->fns.to_device(DEV(o)->ctx, x, h, o->m); }
static void d_download(const mo_ops *o, double *h, const double *x) { DEV(o)->fns.to_host(DEV(o)->ctx, h, x, o->m); }

static void d_finish(const mo_ops *o, mo_solve_out *out)
{
    mo_device *d = DEV(o);
    d->fns.to_host(d->ctx, out->gamma, o->gamma, o->m);
    if (out->v && o->p->row_ptr && o->p->n > 0) d->fns.velocity(d->ctx, o->gamma, out->v);
    int rc = d->fns.error(d->ctx, d->err, sizeof d->err);
    if (rc != MO_CUDA_OK) out->device_failed = true;
}

/* the function table over device d for vectors of m and nvec work vectors (after an upload) */
static void fill_ops(mo_ops *ops, mo_device *d, int m, int nvec)
{
    memset(ops, 0, sizeof *ops);
    ops->m = m;
    ops->impl = d;
    ops->gamma = d->fns.vec(d->ctx, MO_CUDA_VEC_GAMMA);
    ops->r = d->fns.vec(d->ctx, MO_CUDA_VEC_R);
    for (int i = 0; i < nvec && i < MO_OPS_MAX_VECS; i++) ops->vec[i] = d->fns.vec(d->ctx, i);
    ops->apply = d_apply;
    ops->project = d_project;
    ops->block_solve = d_block_solve;
    ops->block_mean_diag = d_block_mean_diag;
    ops->residuals = d_residuals;
    ops->copy = d_copy;
    ops->seed = d_seed;
    ops->scale = d_scale;
    ops->divide = d_divide;
    ops->axpy = d_axpy;
    ops->waxpy = d_waxpy;
    ops->sub = d_sub;
    ops->extrap = d_extrap;
    ops->pstep = d_pstep;
    ops->ediv = d_ediv;
    ops->zero = d_zero;
    ops->mask_pos = d_mask_pos;
    ops->bil_precond = d_bil_precond;
    ops->dot = d_dot;
    ops->dot3 = d_dot3;
    ops->wdot = d_wdot;
    ops->idot = d_idot;
    ops->step_dots = d_step_dots;
    ops->dot_diff = d_dot_diff;
    ops->sums = d_sums;
    ops->host = d_host;
    ops->upload = d_upload;
    ops->download = d_download;
}

bool mo_device_supports(const mo_problem *p, char *why, size_t why_size)
{
    if (p->base) {
        snprintf(why, why_size, "the cuda backend does not run facet or scaled problems yet: polyhedral friction "
                 "and diagonal_scaling run on the cpu backend");
        return false;
    }
    if (p->m > 0 && !p->row_ptr && !p->n_ptr) {
        snprintf(why, why_size, "the cuda backend needs the problem's J or N as CSR");
        return false;
    }
    return true;
}

void mo_ops_refuse(mo_solve_out *out, const char *why)
{
    out->device_failed = true;
    if (out->device) snprintf(out->device->err, sizeof out->device->err, "%s", why);
}

int mo_ops_device(mo_ops *ops, mo_device *d, const mo_problem *p, mo_solve_out *out, int nvec)
{
    if (!mo_device_supports(p, d->err, sizeof d->err)) return -1;
    const int m = p->m, nb = p->nblocks;
    if (mo_buf_reserve(&d->block_scale, ((size_t)nb + 1) * sizeof(double)) ||
        mo_buf_reserve(&d->block_mean, ((size_t)nb + 1) * sizeof(double)) ||
        mo_buf_reserve(&d->host_vec, ((size_t)m + 1) * sizeof(double))) {
        snprintf(d->err, sizeof d->err, "out of host memory staging %d rows for the CUDA device", m);
        return -1;
    }
    double *scale = (double *)d->block_scale.p, *mean = (double *)d->block_mean.p;
    long n_inv = 0;
    for (int k = 0; k < nb; k++) {
        int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
        /* mo_problem_block_solve's scale */
        double sd = 0.0;
        if (p->block_kind[k] == MO_BLOCK_CONTACT && p->block_eta) {
            sd = p->block_eta[k];
        } else {
            for (int i = 0; i < nr; i++) sd += p->diag[r0 + i];
            sd /= (double)nr;
        }
        scale[k] = sd;
        mean[k] = mo_problem_block_mean_diag(p, k);
        if (p->block_inv && p->block_inv[k] >= 0 && p->block_inv[k] + (long)nr * nr > n_inv)
            n_inv = p->block_inv[k] + (long)nr * nr;
    }
    mo_cuda_problem cp;
    memset(&cp, 0, sizeof cp);
    cp.struct_size = sizeof cp;
    cp.m = m;
    cp.n = p->n;
    cp.nblocks = nb;
    cp.nvec = nvec;
    cp.row_ptr = p->row_ptr;
    cp.col = p->col;
    cp.val = p->val;
    cp.wval = p->wval;
    cp.sigma = p->sigma;
    cp.v_tilde = p->v_tilde;
    cp.n_ptr = p->n_ptr;
    cp.n_col = p->n_col;
    cp.n_val = p->n_val;
    cp.r = p->r;
    cp.lo = p->lo;
    cp.hi = p->hi;
    cp.shift = p->shift;
    cp.block_row = p->block_row;
    cp.block_kind = p->block_kind;
    cp.block_mu = p->block_mu;
    cp.block_scale = scale;
    cp.block_mean = mean;
    cp.block_inv = n_inv > 0 ? p->block_inv : NULL;
    cp.inv = n_inv > 0 ? p->inv : NULL;
    cp.n_inv = n_inv;
    cp.gamma = out->gamma;
    if (d->fns.upload(d->ctx, &cp, d->err, sizeof d->err) != MO_CUDA_OK) return -1;
    d->uploads++;
    double dmax = 0.0; /* mo_problem_residuals' step, once per solve */
    for (int r = 0; r < m; r++)
        if (p->diag[r] > dmax) dmax = p->diag[r];
    d->res_alpha = dmax > 0.0 ? 1.0 / dmax : 1.0;
    fill_ops(ops, d, m, nvec);
    ops->p = p;
    ops->finish = d_finish;
    return 0;
}

int mo_ops_device_newton(mo_ops *ops, mo_device *d, const mo_newton_system *s, const double *b, int nvec)
{
    const int m = s->m, n = s->n;
    const size_t nnz = m > 0 ? (size_t)s->row_ptr[m] : 0, big = (size_t)(m > n ? m : n) + 1;
    if (mo_buf_reserve(&d->sys_val, (nnz + 1) * sizeof(double)) ||
        mo_buf_reserve(&d->sys_wval, (nnz + 1) * sizeof(double)) ||
        mo_buf_reserve(&d->zeros, big * sizeof(double)) ||
        mo_buf_reserve(&d->host_vec, ((size_t)m + 1) * sizeof(double))) {
        snprintf(d->err, sizeof d->err, "out of host memory staging a Newton system of %d rows for the CUDA device", m);
        return -1;
    }
    /* A = h^2 Jm M~^-1 Jm^T + diag(cd) = (h Jm)(h M~^-1 Jm^T)^T + Sigma: the J form with scaled rows */
    double *val = (double *)d->sys_val.p, *wval = (double *)d->sys_wval.p, *zeros = (double *)d->zeros.p;
    memset(zeros, 0, big * sizeof(double));
    for (int r = 0; r < m; r++)
        for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) {
            val[k] = s->mask[r] ? 0.0 : s->h * s->val[k];
            wval[k] = s->mask[r] ? 0.0 : s->h * s->wval[k];
        }
    mo_cuda_problem cp;
    memset(&cp, 0, sizeof cp);
    cp.struct_size = sizeof cp;
    cp.m = m;
    cp.n = n;
    cp.nvec = nvec;
    cp.row_ptr = s->row_ptr;
    cp.col = s->col;
    cp.val = val;
    cp.wval = wval;
    cp.sigma = s->cd;
    cp.v_tilde = zeros;
    cp.r = b;
    cp.lo = zeros;
    cp.hi = zeros;
    cp.gamma = zeros;
    if (d->fns.upload(d->ctx, &cp, d->err, sizeof d->err) != MO_CUDA_OK) return -1;
    d->uploads++;
    fill_ops(ops, d, m, nvec);
    d->fns.to_device(d->ctx, ops->vec[nvec - 1], s->diag, m);
    return 0;
}

int mo_ops_device_end(const mo_ops *ops, double *x)
{
    mo_device *d = DEV(ops);
    d->fns.to_host(d->ctx, x, ops->gamma, ops->m);
    return d->fns.error(d->ctx, d->err, sizeof d->err) == MO_CUDA_OK ? 0 : -1;
}
