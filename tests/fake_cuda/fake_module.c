/* fake_module.c: a stand-in for the CUDA module, for the tests of
 * libmoreau's device path on machines without a GPU. It exports the same
 * entry points as gpu/ (cuda_module.h, ABI 2) and implements the solver
 * functions on host memory, so that everything libmoreau does with a device
 * (loading the module, opening a context, uploading a problem, running the
 * solvers through the device ops, downloading gamma and v, reporting a failure)
 * runs and is checked here. Like a device, it sums in its own order (pairwise,
 * in chunks of 64), so its results agree with the CPU backend to rounding and
 * not bit for bit, which is what the GPU-vs-CPU comparisons must tolerate.
 *
 * MOREAU_FAKE_CUDA_FAIL=N makes the N-th operation after an upload fail (the
 * sticky error a real device reports), to test how a step fails. Test-only:
 * never installed. */
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include "backend/cuda_module.h"
#include "kernels/cone.h"

#define EXPORT __attribute__((visibility("default")))

/* the entry points (cuda_module.h) */
EXPORT int mo_cuda_abi_version(void);
EXPORT int mo_cuda_device_count(int *count, char *name, size_t name_size, char *err, size_t err_size);
EXPORT int mo_cuda_selftest(mo_cuda_selftest_args *a, char *err, size_t err_size);
EXPORT int mo_cuda_solver_fns(mo_cuda_fns *fn, char *err, size_t err_size);

typedef struct fake {
    mo_cuda_problem p;  /* sizes and flags; the pointers below are the copies */
    int *row_ptr, *col, *n_ptr, *n_col, *block_row, *block_inv;
    unsigned char *kind;
    double *val, *wval, *sigma, *v_tilde, *n_val, *lo, *hi, *shift, *mu, *scale, *mean, *inv;
    double *vecs, *gamma, *r, *t;
    long ops_left;      /* operations until the injected failure, or -1 */
    int failed;
    char err[256];
} fake;

static fake *F(void *c) { return (fake *)c; }

/* counts an operation; true when the injected failure has happened (then the operation does nothing) */
static int tick(fake *f)
{
    if (f->failed) return 1;
    if (f->ops_left > 0 && --f->ops_left == 0) {
        f->failed = MO_CUDA_UNAVAILABLE;
        mo_cuda_set_err(f->err, sizeof f->err, "fake device: injected failure (MOREAU_FAKE_CUDA_FAIL)");
        return 1;
    }
    return 0;
}

EXPORT int mo_cuda_abi_version(void) { return MO_CUDA_ABI_VERSION; }

EXPORT int mo_cuda_device_count(int *count, char *name, size_t name_size, char *err, size_t err_size)
{
    (void)err;
    (void)err_size;
    *count = 1;
    if (name && name_size) mo_cuda_set_err(name, name_size, "Moreau fake device (host memory)");
    return MO_CUDA_OK;
}

EXPORT int mo_cuda_selftest(mo_cuda_selftest_args *a, char *err, size_t err_size)
{
    (void)a;
    mo_cuda_set_err(err, err_size, "the fake device has no self-test");
    return MO_CUDA_UNAVAILABLE;
}

static void release(fake *f)
{
    void *ptrs[] = {f->row_ptr, f->col, f->n_ptr, f->n_col, f->block_row, f->block_inv, f->kind, f->val, f->wval,
                    f->sigma, f->v_tilde, f->n_val, f->lo, f->hi, f->shift, f->mu, f->scale, f->mean, f->inv,
                    f->vecs, f->gamma, f->r, f->t};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) free(ptrs[i]);
    memset(f, 0, sizeof *f);
}

static int create(void **ctx, int device, char *err, size_t err_size)
{
    if (device != 0) {
        mo_cuda_set_err(err, err_size, "fake device: no device %d", device);
        return MO_CUDA_BADARG;
    }
    *ctx = calloc(1, sizeof(fake));
    return *ctx ? MO_CUDA_OK : MO_CUDA_NOMEM;
}

static void destroy(void *ctx)
{
    if (!ctx) return;
    release(F(ctx));
    free(ctx);
}

static void *dup(const void *src, size_t bytes)
{
    if (!src) return NULL;
    void *d = malloc(bytes ? bytes : 1);
    if (d) memcpy(d, src, bytes);
    return d;
}

static int upload(void *ctx, const mo_cuda_problem *p, char *err, size_t err_size)
{
    fake *f = F(ctx);
    if (!p || p->struct_size != sizeof *p || p->m < 0 || (p->m > 0 && !p->row_ptr == !p->n_ptr)) {
        mo_cuda_set_err(err, err_size, "fake device: bad problem");
        return MO_CUDA_BADARG;
    }
    release(f);
    const size_t m = (size_t)p->m, nb = (size_t)p->nblocks, d = sizeof(double);
    f->p = *p;
    if (p->row_ptr) {
        size_t nnz = (size_t)p->row_ptr[m];
        f->row_ptr = dup(p->row_ptr, (m + 1) * sizeof(int));
        f->col = dup(p->col, nnz * sizeof(int));
        f->val = dup(p->val, nnz * d);
        f->wval = dup(p->wval, nnz * d);
        f->sigma = dup(p->sigma, m * d);
        f->v_tilde = dup(p->v_tilde, (size_t)p->n * d);
    } else if (p->n_ptr) {
        size_t nnz = (size_t)p->n_ptr[m];
        f->n_ptr = dup(p->n_ptr, (m + 1) * sizeof(int));
        f->n_col = dup(p->n_col, nnz * sizeof(int));
        f->n_val = dup(p->n_val, nnz * d);
    }
    f->lo = dup(p->lo, m * d);
    f->hi = dup(p->hi, m * d);
    f->shift = dup(p->shift, m * d);
    f->block_row = dup(p->block_row, (nb + 1) * sizeof(int));
    f->kind = dup(p->block_kind, nb);
    f->mu = dup(p->block_mu, nb * d);
    f->scale = dup(p->block_scale, nb * d);
    f->mean = dup(p->block_mean, nb * d);
    f->block_inv = dup(p->block_inv, nb * sizeof(int));
    f->inv = dup(p->inv, (size_t)p->n_inv * d);
    f->vecs = calloc((size_t)(p->nvec > 0 ? p->nvec : 1) * (m + 1), d);
    f->gamma = dup(p->gamma, m * d);
    f->r = dup(p->r, m * d);
    f->t = calloc((size_t)p->n + 1, d);
    if (!f->vecs || !f->t || (m && (!f->gamma || !f->r))) {
        mo_cuda_set_err(err, err_size, "fake device: out of memory");
        return MO_CUDA_NOMEM;
    }
    const char *e = getenv("MOREAU_FAKE_CUDA_FAIL");
    f->ops_left = e && atol(e) > 0 ? atol(e) : -1;
    f->failed = 0;
    return MO_CUDA_OK;
}

static double *vec(void *ctx, int i)
{
    fake *f = F(ctx);
    if (i == MO_CUDA_VEC_GAMMA) return f->gamma;
    if (i == MO_CUDA_VEC_R) return f->r;
    if (i < 0 || i >= f->p.nvec) return NULL;
    return f->vecs + (size_t)i * ((size_t)f->p.m + 1);
}

static int get_error(void *ctx, char *err, size_t err_size)
{
    fake *f = F(ctx);
    if (f->failed) mo_cuda_set_err(err, err_size, "%s", f->err);
    return f->failed;
}

/* ---- the problem ---- */

static void apply(void *ctx, const double *x, double *y)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    const int m = f->p.m;
    if (f->n_ptr) {
        for (int r = 0; r < m; r++) {
            double s = 0.0;
            for (int k = f->n_ptr[r]; k < f->n_ptr[r + 1]; k++) s += f->n_val[k] * x[f->n_col[k]];
            y[r] = s;
        }
        return;
    }
    /* t = W^T x summed row by row in reverse (a device sums in its own order) */
    memset(f->t, 0, (size_t)f->p.n * sizeof(double));
    for (int r = m - 1; r >= 0; r--)
        for (int k = f->row_ptr[r]; k < f->row_ptr[r + 1]; k++) f->t[f->col[k]] += f->wval[k] * x[r];
    for (int r = 0; r < m; r++) {
        double s = 0.0;
        for (int k = f->row_ptr[r]; k < f->row_ptr[r + 1]; k++) s += f->val[k] * f->t[f->col[k]];
        y[r] = s + f->sigma[r] * x[r];
    }
}

static void project(void *ctx, double *x)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    for (int k = 0; k < f->p.nblocks; k++) {
        int r0 = f->block_row[k];
        mo_k_project_block(x + r0, f->kind[k], f->mu[k], f->lo[r0], f->hi[r0]);
    }
}

static void block_solve(void *ctx, const double *x, double *y)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    for (int k = 0; k < f->p.nblocks; k++) {
        int r0 = f->block_row[k], nr = f->block_row[k + 1] - r0;
        if (f->block_inv && f->block_inv[k] >= 0) {
            const double *a = f->inv + f->block_inv[k];
            for (int i = 0; i < nr; i++) {
                double s = 0.0;
                for (int j = 0; j < nr; j++) s += a[i * nr + j] * x[r0 + j];
                y[r0 + i] = s;
            }
        } else {
            double d = f->scale[k];
            for (int i = 0; i < nr; i++) y[r0 + i] = d > 0.0 ? x[r0 + i] / d : 0.0;
        }
    }
}

static void block_mean_diag(void *ctx, double *y)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    for (int k = 0; k < f->p.nblocks; k++)
        for (int i = f->block_row[k]; i < f->block_row[k + 1]; i++) y[i] = f->mean[k];
}

/* ---- sums in chunks of 64, the chunks added pairwise ---- */

static double chunked(int n, double (*term)(const double *const *v, int i), const double *const *v)
{
    double part[64];
    int np = 0;
    double total = 0.0;
    for (int c = 0; c < n; c += 64) {
        double s = 0.0;
        for (int i = c; i < n && i < c + 64; i++) s += term(v, i);
        part[np++] = s;
        if (np == 64 || c + 64 >= n) {
            for (int w = 1; w < np; w *= 2)
                for (int i = 0; i + w < np; i += 2 * w) part[i] += part[i + w];
            total += part[0];
            np = 0;
        }
    }
    return total;
}

static double t_dot(const double *const *v, int i) { return v[0][i] * v[1][i]; }
static double t_wdot(const double *const *v, int i) { return v[0][i] * v[1][i] * v[2][i]; }
static double t_idot(const double *const *v, int i) { return v[0][i] * v[1][i] / v[2][i]; }

static void dot3(void *ctx, const double *x1, const double *y1, const double *x2, const double *y2, const double *x3,
                 const double *y3, double out[3])
{
    fake *f = F(ctx);
    out[0] = out[1] = out[2] = 0.0;
    if (tick(f)) return;
    const double *v[3][2] = {{x1, y1}, {x2, y2}, {x3, y3}};
    for (int k = 0; k < 3; k++)
        if (v[k][0] && v[k][1]) out[k] = chunked(f->p.m, t_dot, v[k]);
}

static double wdot(void *ctx, const double *x, const double *d, const double *y)
{
    fake *f = F(ctx);
    if (tick(f)) return 0.0;
    const double *v[3] = {x, d, y};
    return chunked(f->p.m, t_wdot, v);
}

static double idot(void *ctx, const double *x, const double *y, const double *d)
{
    fake *f = F(ctx);
    if (tick(f)) return 0.0;
    const double *v[3] = {x, y, d};
    return chunked(f->p.m, t_idot, v);
}

static double t_step0(const double *const *v, int i) { double d = v[0][i] - v[1][i]; return d * d; }
static double t_step1(const double *const *v, int i)
{
    return (v[0][i] - v[1][i]) * (v[2][i] - (v[3][i] - v[4][i]));
}
static double t_step2(const double *const *v, int i)
{
    double e = v[2][i] - (v[3][i] - v[4][i]);
    return e * e;
}
static double t_dot_diff(const double *const *v, int i) { return v[0][i] * (v[1][i] - v[2][i]); }

static void step_dots(void *ctx, const double *x, const double *y, const double *nx, const double *g, const double *r,
                      const double *x1, double out[4])
{
    fake *f = F(ctx);
    out[0] = out[1] = out[2] = out[3] = 0.0;
    if (tick(f)) return;
    const double *v[5] = {x, y, nx, g, r};
    out[0] = chunked(f->p.m, t_step0, v);
    out[1] = chunked(f->p.m, t_step1, v);
    out[2] = chunked(f->p.m, t_step2, v);
    if (x1) {
        const double *w[3] = {g, x, x1};
        out[3] = chunked(f->p.m, t_dot_diff, w);
    }
}

/* the fused sums, each in the chunked order of its single form */
static void sums(void *ctx, int k, const int *kind, const double *const *v, double *out)
{
    fake *f = F(ctx);
    for (int t = 0; t < k && t < MO_CUDA_MAX_SUMS; t++) out[t] = 0.0;
    if (tick(f) || k < 1 || k > MO_CUDA_MAX_SUMS) return;
    for (int t = 0; t < k; t++) {
        double (*term)(const double *const *, int) = kind[t] == MO_CUDA_SUM_DOT    ? t_dot
                                                     : kind[t] == MO_CUDA_SUM_WDOT ? t_wdot
                                                     : kind[t] == MO_CUDA_SUM_IDOT ? t_idot
                                                                                   : t_dot_diff;
        out[t] = chunked(f->p.m, term, v + 3 * t);
    }
}

static double dot_diff(void *ctx, const double *a, const double *x, const double *y)
{
    fake *f = F(ctx);
    if (tick(f)) return 0.0;
    const double *v[3] = {a, x, y};
    return chunked(f->p.m, t_dot_diff, v);
}

static void zero(void *ctx, double *x)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    memset(x, 0, (size_t)f->p.m * sizeof(double));
}

static void mask_pos(void *ctx, double *x, const double *d)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    for (int i = 0; i < f->p.m; i++)
        if (!(d[i] > 0.0)) x[i] = 0.0;
}

/* the module's block Jacobi, blocks from the last to the first */
static void bil_precond(void *ctx, const double *x, double *y, const double *d)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    for (int k = f->p.nblocks - 1; k >= 0; k--) {
        int r0 = f->block_row[k], nr = f->block_row[k + 1] - r0;
        if (f->kind[k] != MO_BLOCK_BILATERAL) {
            for (int i = 0; i < nr; i++) y[r0 + i] = 0.0;
            continue;
        }
        bool all = true;
        for (int i = 0; i < nr; i++) all = all && d[r0 + i] > 0.0;
        if (all && nr > 1 && f->block_inv && f->block_inv[k] >= 0) {
            const double *a = f->inv + f->block_inv[k];
            for (int i = 0; i < nr; i++) {
                double s = 0.0;
                for (int j = 0; j < nr; j++) s += a[i * nr + j] * x[r0 + j];
                y[r0 + i] = s;
            }
            continue;
        }
        for (int i = 0; i < nr; i++) y[r0 + i] = d[r0 + i] > 0.0 ? x[r0 + i] / d[r0 + i] : 0.0;
    }
}

static void residual_sums(void *ctx, const double *gamma, const double *u, double alpha, double out[4])
{
    fake *f = F(ctx);
    out[0] = out[1] = out[2] = out[3] = 0.0;
    if (tick(f)) return;
    /* block terms, summed from the last block to the first */
    for (int k = f->p.nblocks - 1; k >= 0; k--) {
        int r0 = f->block_row[k], nr = f->block_row[k + 1] - r0;
        double x[6];
        for (int i = 0; i < nr; i++) x[i] = gamma[r0 + i] - alpha * u[r0 + i];
        mo_k_project_block(x, f->kind[k], f->mu[k], f->lo[r0], f->hi[r0]);
        for (int i = 0; i < nr; i++) out[0] += (gamma[r0 + i] - x[i]) * (gamma[r0 + i] - x[i]);
        if (f->kind[k] == MO_BLOCK_CONTACT) {
            double ut[3] = {u[r0], u[r0 + 1], u[r0 + 2]};
            if (f->shift) ut[0] -= f->shift[r0];
            out[1] += mo_k_coulomb_error_sq(gamma + r0, ut, f->mu[k]);
            for (int i = 0; i < 3; i++) {
                out[2] += gamma[r0 + i] * gamma[r0 + i];
                out[3] += ut[i] * ut[i];
            }
        }
    }
}

/* ---- element-wise, exactly as ops.h states ---- */

#define ELEMENTWISE(name, params, body)      \
    static void name params                  \
    {                                        \
        fake *f = F(ctx);                    \
        if (tick(f)) return;                 \
        for (int i = 0; i < f->p.m; i++) body; \
    }
ELEMENTWISE(copy, (void *ctx, double *y, const double *x), y[i] = x[i])
ELEMENTWISE(seed, (void *ctx, double *x), x[i] = 1.0 + 0.01 * (double)(i % 7))
ELEMENTWISE(scale, (void *ctx, double *y, double a, const double *x), y[i] = a * x[i])
ELEMENTWISE(divide, (void *ctx, double *y, const double *x, double a), y[i] = x[i] / a)
ELEMENTWISE(axpy, (void *ctx, double *y, double a, const double *x), y[i] += a * x[i])
ELEMENTWISE(waxpy, (void *ctx, double *w, const double *x, double a, const double *y), w[i] = x[i] + a * y[i])
ELEMENTWISE(sub, (void *ctx, double *w, const double *x, const double *y), w[i] = x[i] - y[i])
ELEMENTWISE(extrap, (void *ctx, double *w, const double *x, double b, const double *z), w[i] = x[i] + b * (x[i] - z[i]))
ELEMENTWISE(ediv, (void *ctx, double *y, const double *x, const double *d), y[i] = x[i] / d[i])
ELEMENTWISE(pstep, (void *ctx, double *w, const double *x, double a, const double *g, const double *d),
            w[i] = x[i] - a * g[i] / d[i])

static void to_host(void *ctx, double *host, const double *dev, long count)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    if (host != dev) memcpy(host, dev, (size_t)count * sizeof(double));
}

static void to_device(void *ctx, double *dev, const double *host, long count)
{
    fake *f = F(ctx);
    if (tick(f)) return;
    if (host != dev) memcpy(dev, host, (size_t)count * sizeof(double));
}

static void velocity(void *ctx, const double *gamma, double *v_host)
{
    fake *f = F(ctx);
    if (tick(f) || !f->row_ptr) return;
    memcpy(v_host, f->v_tilde, (size_t)f->p.n * sizeof(double));
    for (int r = f->p.m - 1; r >= 0; r--)
        for (int k = f->row_ptr[r]; k < f->row_ptr[r + 1]; k++) v_host[f->col[k]] += f->wval[k] * gamma[r];
}

EXPORT int mo_cuda_solver_fns(mo_cuda_fns *fn, char *err, size_t err_size)
{
    if (!fn || fn->struct_size != sizeof *fn) {
        mo_cuda_set_err(err, err_size, "fake device: mo_cuda_fns size mismatch");
        return MO_CUDA_BADARG;
    }
    fn->create = create;
    fn->destroy = destroy;
    fn->upload = upload;
    fn->vec = vec;
    fn->error = get_error;
    fn->apply = apply;
    fn->project = project;
    fn->block_solve = block_solve;
    fn->block_mean_diag = block_mean_diag;
    fn->residual_sums = residual_sums;
    fn->copy = copy;
    fn->seed = seed;
    fn->scale = scale;
    fn->divide = divide;
    fn->axpy = axpy;
    fn->waxpy = waxpy;
    fn->sub = sub;
    fn->extrap = extrap;
    fn->pstep = pstep;
    fn->dot3 = dot3;
    fn->wdot = wdot;
    fn->idot = idot;
    fn->to_host = to_host;
    fn->to_device = to_device;
    fn->velocity = velocity;
    fn->ediv = ediv;
    fn->step_dots = step_dots;
    fn->dot_diff = dot_diff;
    fn->sums = sums;
    fn->zero = zero;
    fn->mask_pos = mask_pos;
    fn->bil_precond = bil_precond;
    return MO_CUDA_OK;
}
