/* backend_cpu.c: the backend operations (ops.h) on the CPU. Vectors are
 * host arrays carved from the solve's scratch; the products, projections and
 * residuals are the problem's own functions (problem.c), so every problem
 * form works and the arithmetic is that of the solvers before the ops
 * existed. Vector updates and sums are plain loops in index order: serial,
 * so the sums do not depend on the thread count; block-wise operations
 * (projection, D^-1) run in parallel over blocks, which changes no value. */
#include <math.h>
#include <string.h>
#include "solver/ops.h"
#include "solver/bilateral.h"
#include "core/parallel.h"

static void cpu_apply(const mo_ops *o, const double *x, double *y)
{
    mo_problem_apply(o->p, x, y, o->cpu_work);
}

static void cpu_project(const mo_ops *o, double *x)
{
    const mo_problem *p = o->p;
    const int nt = p->threads;
    MO_PARALLEL_LOOP(nt, p->nblocks, for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        mo_k_project_block(x + r0, p->block_kind[k], p->block_mu[k], p->lo[r0], p->hi[r0]);
    });
}

static void cpu_block_solve(const mo_ops *o, const double *x, double *y)
{
    const mo_problem *p = o->p;
    const int nt = p->threads;
    MO_PARALLEL_LOOP(nt, p->nblocks, for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        mo_problem_block_solve(p, k, x + r0, y + r0);
    });
}

static void cpu_block_mean_diag(const mo_ops *o, double *y)
{
    const mo_problem *p = o->p;
    for (int k = 0; k < p->nblocks; k++) {
        const double avg = mo_problem_block_mean_diag(p, k);
        for (int i = p->block_row[k]; i < p->block_row[k + 1]; i++) y[i] = avg;
    }
}

static void cpu_residuals(const mo_ops *o, const double *gamma, const double *u, double *ccp, double *coulomb)
{
    mo_problem_residuals(o->p, gamma, u, ccp, coulomb);
}

static void cpu_copy(const mo_ops *o, double *y, const double *x)
{
    if (y != x) memcpy(y, x, (size_t)o->m * sizeof(double));
}

static void cpu_seed(const mo_ops *o, double *x)
{
    for (int i = 0; i < o->m; i++) x[i] = 1.0 + 0.01 * (double)(i % 7);
}

static void cpu_scale(const mo_ops *o, double *y, double a, const double *x)
{
    for (int i = 0; i < o->m; i++) y[i] = a * x[i];
}

static void cpu_divide(const mo_ops *o, double *y, const double *x, double a)
{
    for (int i = 0; i < o->m; i++) y[i] = x[i] / a;
}

static void cpu_axpy(const mo_ops *o, double *y, double a, const double *x)
{
    for (int i = 0; i < o->m; i++) y[i] += a * x[i];
}

static void cpu_waxpy(const mo_ops *o, double *w, const double *x, double a, const double *y)
{
    for (int i = 0; i < o->m; i++) w[i] = x[i] + a * y[i];
}

static void cpu_sub(const mo_ops *o, double *w, const double *x, const double *y)
{
    for (int i = 0; i < o->m; i++) w[i] = x[i] - y[i];
}

static void cpu_extrap(const mo_ops *o, double *w, const double *x, double b, const double *z)
{
    for (int i = 0; i < o->m; i++) w[i] = x[i] + b * (x[i] - z[i]);
}

static void cpu_pstep(const mo_ops *o, double *w, const double *x, double a, const double *g, const double *d)
{
    for (int i = 0; i < o->m; i++) w[i] = x[i] - a * g[i] / d[i];
}

static void cpu_ediv(const mo_ops *o, double *y, const double *x, const double *d)
{
    for (int i = 0; i < o->m; i++) y[i] = x[i] / d[i];
}

static void cpu_zero(const mo_ops *o, double *x)
{
    memset(x, 0, (size_t)o->m * sizeof(double));
}

static void cpu_mask_pos(const mo_ops *o, double *x, const double *d)
{
    for (int i = 0; i < o->m; i++)
        if (!(d[i] > 0.0)) x[i] = 0.0;
}

/* mo_bil_precond's arithmetic with d for diag(N) */
static void cpu_bil_precond(const mo_ops *o, const double *in, double *out, const double *d)
{
    mo_bil_precond_diag(o->p, d, in, out);
}

static double cpu_dot(const mo_ops *o, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < o->m; i++) s += x[i] * y[i];
    return s;
}

static void cpu_dot3(const mo_ops *o, const double *x1, const double *y1, const double *x2, const double *y2,
                     const double *x3, const double *y3, double out[3])
{
    double a = 0.0, b = 0.0, c = 0.0;
    for (int i = 0; i < o->m; i++) {
        a += x1[i] * y1[i];
        b += x2[i] * y2[i];
        c += x3[i] * y3[i];
    }
    out[0] = a;
    out[1] = b;
    out[2] = c;
}

static double cpu_wdot(const mo_ops *o, const double *x, const double *d, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < o->m; i++) s += x[i] * d[i] * y[i];
    return s;
}

static double cpu_idot(const mo_ops *o, const double *x, const double *y, const double *d)
{
    double s = 0.0;
    for (int i = 0; i < o->m; i++) s += x[i] * y[i] / d[i];
    return s;
}

static void cpu_step_dots(const mo_ops *o, const double *x, const double *y, const double *nx, const double *g,
                          const double *r, const double *x1, double out[4])
{
    double dd = 0.0, de = 0.0, ee = 0.0, rs = 0.0;
    for (int i = 0; i < o->m; i++) {
        double d = x[i] - y[i];
        double e = nx[i] - (g[i] - r[i]);
        dd += d * d;
        de += d * e;
        ee += e * e;
    }
    if (x1)
        for (int i = 0; i < o->m; i++) rs += g[i] * (x[i] - x1[i]);
    out[0] = dd;
    out[1] = de;
    out[2] = ee;
    out[3] = rs;
}

static void cpu_sums(const mo_ops *o, int k, const mo_sum *t, double *out)
{
    double s[MO_OPS_MAX_SUMS] = {0.0};
    for (int i = 0; i < o->m; i++)
        for (int q = 0; q < k; q++) {
            const mo_sum *u = &t[q];
            switch (u->kind) {
            case MO_SUM_DOT: s[q] += u->a[i] * u->b[i]; break;
            case MO_SUM_WDOT: s[q] += u->a[i] * u->b[i] * u->c[i]; break;
            case MO_SUM_IDOT: s[q] += u->a[i] * u->b[i] / u->c[i]; break;
            default: s[q] += u->a[i] * (u->b[i] - u->c[i]); break;
            }
        }
    for (int q = 0; q < k; q++) out[q] = s[q];
}

static double cpu_dot_diff(const mo_ops *o, const double *a, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < o->m; i++) s += a[i] * (x[i] - y[i]);
    return s;
}

/* PCR's passes (ops.h; the vectors are distinct): each element's arithmetic as in axpy, idot, waxpy, ediv and dot, sums in index order */
static double cpu_pcr_update(const mo_ops *o, double *restrict x, double *restrict r, double *restrict z, double a,
                             const double *restrict p, const double *restrict ap, const double *restrict q,
                             const double *restrict d)
{
    const double na = -a;
    double s = 0.0;
    for (int i = 0; i < o->m; i++) {
        x[i] += a * p[i];
        r[i] += na * ap[i];
        z[i] += na * q[i];
        s += r[i] * r[i] / d[i];
    }
    return s;
}

static double cpu_pcr_direction(const mo_ops *o, double *restrict p, double *restrict ap, double *restrict q,
                                double b, const double *restrict z, const double *restrict az,
                                const double *restrict d)
{
    double s = 0.0;
    for (int i = 0; i < o->m; i++) {
        p[i] = z[i] + b * p[i];
        ap[i] = az[i] + b * ap[i];
        q[i] = ap[i] / d[i];
        s += ap[i] * q[i];
    }
    return s;
}

static double *cpu_host(const mo_ops *o, double *x)
{
    (void)o;
    return x;
}

static void cpu_upload(const mo_ops *o, double *x, const double *h)
{
    if (x != h) memcpy(x, h, (size_t)o->m * sizeof(double));
}

static void cpu_download(const mo_ops *o, double *h, const double *x)
{
    if (x != h) memcpy(h, x, (size_t)o->m * sizeof(double));
}

static void cpu_finish(const mo_ops *o, mo_solve_out *out)
{
    if (out->gamma != o->gamma) memcpy(out->gamma, o->gamma, (size_t)o->m * sizeof(double));
    mo_solve_finish_v(o->p, out);
}

void mo_ops_cpu_vectors(mo_ops *ops, int m)
{
    memset(ops, 0, sizeof *ops);
    ops->m = m;
    ops->copy = cpu_copy;
    ops->seed = cpu_seed;
    ops->scale = cpu_scale;
    ops->divide = cpu_divide;
    ops->axpy = cpu_axpy;
    ops->waxpy = cpu_waxpy;
    ops->sub = cpu_sub;
    ops->extrap = cpu_extrap;
    ops->pstep = cpu_pstep;
    ops->ediv = cpu_ediv;
    ops->zero = cpu_zero;
    ops->mask_pos = cpu_mask_pos;
    ops->dot = cpu_dot;
    ops->dot3 = cpu_dot3;
    ops->wdot = cpu_wdot;
    ops->idot = cpu_idot;
    ops->step_dots = cpu_step_dots;
    ops->dot_diff = cpu_dot_diff;
    ops->sums = cpu_sums;
    ops->pcr_update = cpu_pcr_update;
    ops->pcr_direction = cpu_pcr_direction;
    ops->host = cpu_host;
    ops->upload = cpu_upload;
    ops->download = cpu_download;
}

void mo_ops_cpu(mo_ops *ops, const mo_problem *p, mo_solve_out *out, int nvec)
{
    mo_ops_cpu_vectors(ops, p->m);
    ops->p = p;
    ops->gamma = out->gamma;
    ops->r = p->r;
    for (int i = 0; i < nvec && i < MO_OPS_MAX_VECS; i++) ops->vec[i] = out->scratch + (size_t)i * (size_t)p->m;
    ops->cpu_work = out->scratch + (size_t)nvec * (size_t)p->m;
    ops->apply = cpu_apply;
    ops->project = cpu_project;
    ops->block_solve = cpu_block_solve;
    ops->block_mean_diag = cpu_block_mean_diag;
    ops->bil_precond = cpu_bil_precond;
    ops->residuals = cpu_residuals;
    ops->finish = cpu_finish;
}
