/* cuda.c: the CUDA backend's door in libmoreau (mo_gpu_probe,
 * mo_gpu_selftest).
 *
 * libmoreau never links CUDA (TOOLCHAIN.md): the backend is the module
 * libmoreau_cuda.so (gpu/kernels.cu), loaded here with dlopen from
 * $MOREAU_CUDA_MODULE, else MO_CUDA_MODULE_DIR "/libmoreau_cuda.so". A loaded
 * module is never unloaded (unloading the CUDA runtime and libraries while
 * their exit handlers and device contexts live is unsafe); dlopen of the same
 * path again only bumps a reference count. Nothing is cached between calls, so each call honours the
 * current $MOREAU_CUDA_MODULE; there is no global state.
 *
 * The self-test generates inputs here, runs the shared kernels of
 * engine/kernels/ on them on the CPU, hands inputs and CPU results to the
 * module, which runs the same kernel bodies on the device (and assembles CSR,
 * multiplies with cuSPARSE, reduces the difference with cuBLAS), and reports
 * the largest absolute difference.
 *
 * The argument block, output layout and entry points are cuda_module.h,
 * shared with gpu/kernels.cu. */

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau/moreau.h"
#include "kernels/cone.h"
#include "kernels/dynamics.h"
#include "kernels/rows.h"
#include "backend/cuda_module.h"
#include "backend/device.h"

#ifndef MO_CUDA_MODULE_DIR
#  define MO_CUDA_MODULE_DIR "/usr/local/lib/moreau"
#endif
/* largest self-test size: keeps every output index within cuBLAS's int */
#define MO_GPU_SELFTEST_MAX_N (1 << 22)

typedef struct cuda_module {
    char path[sizeof(((mo_gpu_info *)0)->module_path)];
    mo_cuda_abi_fn abi_version;
    mo_cuda_count_fn device_count;
    mo_cuda_selftest_fn selftest;
    mo_cuda_solver_fns_fn solver_fns;
} cuda_module;


/* dlsym into a function pointer without the object-to-function pointer
 * conversion ISO C leaves undefined (and -Wpedantic reports) */
static int find_symbol(void *handle, const char *name, void *fn_ptr, size_t fn_size)
{
    void *sym;
    dlerror();
    sym = dlsym(handle, name);
    if (!sym || fn_size != sizeof sym) return 0;
    memcpy(fn_ptr, &sym, fn_size);
    return 1;
}

static mo_status load_module(cuda_module *m, char *err, size_t err_size)
{
    const char *env = getenv("MOREAU_CUDA_MODULE");
    const char *path = (env && env[0]) ? env : MO_CUDA_MODULE_DIR "/" MO_CUDA_MODULE_NAME;
    void *h;
    const char *why;
    int abi;

    memset(m, 0, sizeof *m);
    if (strlen(path) >= sizeof m->path) {
        mo_cuda_set_err(err, err_size, "CUDA module path is longer than %zu characters: %s", sizeof m->path - 1, path);
        return MO_ERR_UNSUPPORTED;
    }
    dlerror();
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        size_t len = strlen(path);
        why = dlerror();
        if (!why) why = "unknown dlopen error";
        /* glibc's text repeats the path: "PATH: cannot open shared object file: ..." */
        if (strncmp(why, path, len) == 0 && why[len] == ':' && why[len + 1] == ' ') why += len + 2;
        if (strchr(path, '/') && access(path, F_OK) != 0)
            mo_cuda_set_err(err, err_size, "CUDA module not found at %s: %s", path, why);
        else
            mo_cuda_set_err(err, err_size, "CUDA module at %s could not be loaded: %s", path, why);
        return MO_ERR_UNSUPPORTED;
    }
    /* from here on the module stays loaded (see the top of the file) */
    if (!find_symbol(h, "mo_cuda_abi_version", &m->abi_version, sizeof m->abi_version) ||
        !find_symbol(h, "mo_cuda_device_count", &m->device_count, sizeof m->device_count) ||
        !find_symbol(h, "mo_cuda_selftest", &m->selftest, sizeof m->selftest)) {
        why = dlerror();
        mo_cuda_set_err(err, err_size, "CUDA module at %s is not a Moreau CUDA module: %s", path,
                why ? why : "missing entry point");
        return MO_ERR_UNSUPPORTED;
    }
    abi = m->abi_version();
    if (abi != MO_CUDA_ABI_VERSION) {
        mo_cuda_set_err(err, err_size, "CUDA module at %s has ABI version %d, this libmoreau expects %d (rebuild both)",
                path, abi, MO_CUDA_ABI_VERSION);
        return MO_ERR_UNSUPPORTED;
    }
    /* the solver functions (ABI 2) are looked for here and required by mo_device_open only */
    if (!find_symbol(h, "mo_cuda_solver_fns", &m->solver_fns, sizeof m->solver_fns)) m->solver_fns = NULL;
    memcpy(m->path, path, strlen(path) + 1);
    return MO_OK;
}

/* module loaded and at least one device */
static mo_status probe(cuda_module *m, mo_gpu_info *info, char *err, size_t err_size)
{
    char msg[384] = "";
    char name[sizeof(((mo_gpu_info *)0)->device_name)] = "";
    int n = 0, rc;
    mo_status st;

    if (info) memset(info, 0, sizeof *info);
    st = load_module(m, err, err_size);
    if (st != MO_OK) return st;
    if (info) memcpy(info->module_path, m->path, sizeof info->module_path);
    rc = m->device_count(&n, name, sizeof name, msg, sizeof msg);
    if (rc != MO_CUDA_OK) {
        mo_cuda_set_err(err, err_size, "no CUDA device: %s (module %s)", msg[0] ? msg : "the module gave no reason",
                        m->path);
        return MO_ERR_UNSUPPORTED;
    }
    if (n <= 0) {
        mo_cuda_set_err(err, err_size, "no CUDA device: cudaGetDeviceCount found 0 devices (module %s)", m->path);
        return MO_ERR_UNSUPPORTED;
    }
    if (info) {
        info->devices = n;
        name[sizeof name - 1] = '\0';
        memcpy(info->device_name, name, sizeof info->device_name);
    }
    return MO_OK;
}

MO_API mo_status mo_gpu_probe(mo_gpu_info *info, char *err, size_t err_size)
{
    cuda_module m;
    if (err && err_size) err[0] = '\0';
    return probe(&m, info, err, err_size);
}

/* ---- self-test: inputs, CPU reference ------------------------------------ */

typedef struct rng { unsigned long long s; } rng;

/* splitmix64 -> [0, 1) with 53 bits */
static double rng_unit(rng *r)
{
    unsigned long long z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

static int rng_index(rng *r, int n)
{
    int k = (int)(rng_unit(r) * (double)n);
    return k < n ? k : n - 1;
}

/* symmetric, diagonally dominant (so positive definite) 3x3 */
static void rng_spd(rng *r, double *m, double dlo, double dhi)
{
    double o0 = rng_range(r, -0.05, 0.05), o1 = rng_range(r, -0.05, 0.05), o2 = rng_range(r, -0.05, 0.05);
    m[0] = rng_range(r, dlo, dhi); m[1] = o0; m[2] = o1;
    m[3] = o0; m[4] = rng_range(r, dlo, dhi); m[5] = o2;
    m[6] = o1; m[7] = o2; m[8] = rng_range(r, dlo, dhi);
}

typedef struct selftest_data {
    int n, n_dof, nnz;
    double *cone_in;
    mo_k_body *bodies;
    mo_k_row *rows;
    mo_row_aux *aux;
    int *owner_dof, *owner_ndof;
    double *owner_inv_mass, *owner_inv_I, *velocity;
    int *row_ptr, *col;      /* CPU CSR */
    long n_out;
    double *ref, *out;
} selftest_data;

static void selftest_free(selftest_data *d)
{
    free(d->cone_in); free(d->bodies); free(d->rows); free(d->aux);
    free(d->owner_dof); free(d->owner_ndof); free(d->owner_inv_mass); free(d->owner_inv_I);
    free(d->velocity); free(d->row_ptr); free(d->col); free(d->ref); free(d->out);
}

static const double selftest_gravity[3] = {0.0, 0.0, -9.81};
static const double selftest_h = 1.0 / 60.0;
static const double selftest_damp_steps = 2.0;
static const double selftest_max_push = 2.0;

/* n cones, n bodies, n owners (every fifth a 3-DOF particle), n rows */
static int selftest_generate(selftest_data *d, int n)
{
    rng r = {0x4D6F7265617531ULL}; /* "Moreau1" */
    int i, k, dof = 0;
    size_t un = (size_t)n;

    d->n = n;
    d->cone_in = (double *)malloc(sizeof(double) * 7 * un);
    d->bodies = (mo_k_body *)calloc(un, sizeof(mo_k_body));
    d->rows = (mo_k_row *)calloc(un, sizeof(mo_k_row));
    d->aux = (mo_row_aux *)calloc(un, sizeof(mo_row_aux));
    d->owner_dof = (int *)malloc(sizeof(int) * un);
    d->owner_ndof = (int *)malloc(sizeof(int) * un);
    d->owner_inv_mass = (double *)malloc(sizeof(double) * un);
    d->owner_inv_I = (double *)malloc(sizeof(double) * 9 * un);
    d->row_ptr = (int *)malloc(sizeof(int) * (un + 1));
    if (!d->cone_in || !d->bodies || !d->rows || !d->aux || !d->owner_dof || !d->owner_ndof ||
        !d->owner_inv_mass || !d->owner_inv_I || !d->row_ptr)
        return 0;

    for (i = 0; i < n; i++) {
        double *c = d->cone_in + 7 * (size_t)i;
        for (k = 0; k < 6; k++) c[k] = rng_range(&r, -2.0, 2.0);
        c[6] = (i % 7 == 0) ? 0.0 : rng_range(&r, 0.0, 1.2);
    }

    for (i = 0; i < n; i++) {
        mo_k_body *b = d->bodies + i;
        for (k = 0; k < 3; k++) {
            b->x[k] = rng_range(&r, -10.0, 10.0);
            b->v[k] = rng_range(&r, -5.0, 5.0);
            b->w[k] = rng_range(&r, -5.0, 5.0);
            b->f[k] = rng_range(&r, -10.0, 10.0);
            b->tau[k] = rng_range(&r, -2.0, 2.0);
        }
        for (k = 0; k < 4; k++) b->q[k] = rng_range(&r, -1.0, 1.0);
        if (mo_q_normalize(b->q) < 1e-3) { b->q[0] = 1.0; b->q[1] = b->q[2] = b->q[3] = 0.0; }
        b->inv_mass = 1.0 / rng_range(&r, 0.5, 5.0);
        rng_spd(&r, b->I_body, 0.2, 2.0);
        mo_m3_inverse(b->inv_I_body, b->I_body); /* diagonally dominant: never singular */
        b->lin_damp = (i % 3 == 0) ? rng_range(&r, 0.0, 0.5) : 0.0;
        b->ang_damp = (i % 3 == 1) ? rng_range(&r, 0.0, 0.5) : 0.0;
        b->gyroscopic = i % 2;
    }

    for (i = 0; i < n; i++) {
        d->owner_ndof[i] = (i % 5 == 4) ? 3 : 6;
        d->owner_dof[i] = dof;
        dof += d->owner_ndof[i];
        d->owner_inv_mass[i] = rng_range(&r, 0.2, 2.0);
        rng_spd(&r, d->owner_inv_I + 9 * (size_t)i, 0.5, 2.0);
    }
    d->n_dof = dof;
    d->velocity = (double *)malloc(sizeof(double) * (size_t)dof);
    if (!d->velocity) return 0;
    for (k = 0; k < dof; k++) d->velocity[k] = rng_range(&r, -2.0, 2.0);

    for (i = 0; i < n; i++) {
        mo_k_row *row = d->rows + i;
        mo_row_aux *a = d->aux + i;
        row->owner_a = rng_unit(&r) < 0.15 ? -1 : rng_index(&r, n);
        row->owner_b = rng_unit(&r) < 0.15 ? -1 : rng_index(&r, n);
        if (row->owner_a == row->owner_b) row->owner_b = -1;
        if (row->owner_a < 0 && row->owner_b < 0) row->owner_a = rng_index(&r, n);
        for (k = 0; k < 6; k++) {
            row->ja[k] = rng_range(&r, -1.0, 1.0);
            row->jb[k] = rng_range(&r, -1.0, 1.0);
        }
        a->mode = i % 4;
        a->g = rng_range(&r, -0.05, 0.05);
        a->eps = (a->mode == MO_ROW_DIRECT) ? rng_range(&r, 0.0, 1e-3) : rng_range(&r, 0.0, 1e-6);
        a->bconst = rng_range(&r, -1.0, 1.0);
        a->jv_kin = rng_range(&r, -0.5, 0.5);
    }

    /* CSR structure on the CPU (the module builds its own) */
    d->row_ptr[0] = 0;
    for (i = 0; i < n; i++) d->row_ptr[i + 1] = d->row_ptr[i] + mo_k_row_nnz(d->rows + i, d->owner_ndof);
    d->nnz = d->row_ptr[n];
    d->col = (int *)malloc(sizeof(int) * (size_t)d->nnz);
    d->n_out = 4L * n + 13L * n + 5L * n + 1 + 3L * d->nnz;
    d->ref = (double *)malloc(sizeof(double) * (size_t)d->n_out);
    d->out = (double *)calloc((size_t)d->n_out, sizeof(double));
    return d->col && d->ref && d->out;
}

/* the CPU reference, in the module's output layout; the per-element bodies
 * are the same as the __global__ wrappers in gpu/kernels.cu */
static void selftest_reference(selftest_data *d)
{
    int n = d->n, i, k;
    double *o = d->ref;
    double *jv, *wv, *sigma, *b, *row_ptr_d, *col_d, *jval, *wval;

    for (i = 0; i < n; i++) {
        const double *c = d->cone_in + 7 * (size_t)i;
        double x[3] = {c[0], c[1], c[2]};
        double e;
        mo_k_project_cone(x, c[6]);
        e = mo_k_coulomb_error_sq(c, c + 3, c[6]);
        o[4 * (size_t)i] = x[0]; o[4 * (size_t)i + 1] = x[1]; o[4 * (size_t)i + 2] = x[2];
        o[4 * (size_t)i + 3] = e;
    }
    o += 4 * (size_t)n;

    for (i = 0; i < n; i++) {
        const mo_k_body *bd = d->bodies + i;
        double vt[3], wt[3];
        double x[3], q[4];
        double *p = o + 13 * (size_t)i;
        mo_k_predict_body(bd, selftest_gravity, selftest_h, vt, wt);
        for (k = 0; k < 3; k++) x[k] = bd->x[k];
        for (k = 0; k < 4; k++) q[k] = bd->q[k];
        mo_k_integrate_pose(x, q, vt, wt, selftest_h);
        for (k = 0; k < 3; k++) { p[k] = vt[k]; p[3 + k] = wt[k]; p[6 + k] = x[k]; }
        for (k = 0; k < 4; k++) p[9 + k] = q[k];
    }
    o += 13 * (size_t)n;

    jv = o; wv = jv + n; sigma = wv + n; b = sigma + n;
    row_ptr_d = b + n; col_d = row_ptr_d + n + 1; jval = col_d + d->nnz; wval = jval + d->nnz;
    for (i = 0; i < n; i++)
        mo_k_fill_row(d->rows + i, d->row_ptr[i], d->owner_dof, d->owner_ndof, d->owner_inv_mass, d->owner_inv_I,
                      d->col, jval, wval);
    for (i = 0; i < n; i++) {
        double sj = 0.0, sw = 0.0;
        for (k = d->row_ptr[i]; k < d->row_ptr[i + 1]; k++) {
            sj += jval[k] * d->velocity[d->col[k]];
            sw += wval[k] * d->velocity[d->col[k]];
        }
        jv[i] = sj;
        wv[i] = sw;
        mo_k_row_rhs(d->aux + i, jv[i], selftest_h, selftest_damp_steps, selftest_max_push, sigma + i, b + i);
    }
    for (i = 0; i <= n; i++) row_ptr_d[i] = (double)d->row_ptr[i];
    for (k = 0; k < d->nnz; k++) col_d[k] = (double)d->col[k];
}

MO_API mo_status mo_gpu_selftest(int n, double *max_diff, char *err, size_t err_size)
{
    cuda_module m;
    selftest_data d;
    mo_cuda_selftest_args a;
    char msg[512] = "";
    mo_status st;
    int rc;
    long i;
    double cpu_max = 0.0;

    if (err && err_size) err[0] = '\0';
    if (max_diff) *max_diff = INFINITY;
    if (!max_diff) {
        mo_cuda_set_err(err, err_size, "mo_gpu_selftest: max_diff is NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (n < 1 || n > MO_GPU_SELFTEST_MAX_N) {
        mo_cuda_set_err(err, err_size, "mo_gpu_selftest: n = %d is outside [1, %d]", n, MO_GPU_SELFTEST_MAX_N);
        return MO_ERR_INVALID_ARGUMENT;
    }
    st = probe(&m, NULL, err, err_size);
    if (st != MO_OK) return st;

    memset(&d, 0, sizeof d);
    if (!selftest_generate(&d, n)) {
        selftest_free(&d);
        mo_cuda_set_err(err, err_size, "mo_gpu_selftest: out of host memory for n = %d", n);
        return MO_ERR_OUT_OF_MEMORY;
    }
    selftest_reference(&d);

    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.n_cones = n;
    a.cone_in = d.cone_in;
    a.n_bodies = n;
    a.bodies = d.bodies;
    a.gravity[0] = selftest_gravity[0]; a.gravity[1] = selftest_gravity[1]; a.gravity[2] = selftest_gravity[2];
    a.h = selftest_h;
    a.n_rows = n;
    a.rows = d.rows;
    a.aux = d.aux;
    a.damp_steps = selftest_damp_steps;
    a.max_push = selftest_max_push;
    a.n_owners = n;
    a.owner_dof = d.owner_dof;
    a.owner_ndof = d.owner_ndof;
    a.owner_inv_mass = d.owner_inv_mass;
    a.owner_inv_I = d.owner_inv_I;
    a.n_dof = d.n_dof;
    a.velocity = d.velocity;
    a.n_out = d.n_out;
    a.out = d.out;
    a.reference = d.ref;

    rc = m.selftest(&a, msg, sizeof msg);
    if (rc != MO_CUDA_OK) {
        mo_cuda_set_err(err, err_size, "CUDA self-test failed on the device: %s", msg[0] ? msg : "no reason given");
        selftest_free(&d);
        return rc == MO_CUDA_NOMEM ? MO_ERR_OUT_OF_MEMORY
             : rc == MO_CUDA_BADARG ? MO_ERR_INVALID_ARGUMENT : MO_ERR_UNSUPPORTED;
    }

    /* our own reduction too; NaN anywhere counts as an infinite difference */
    for (i = 0; i < d.n_out; i++) {
        double e = fabs(d.out[i] - d.ref[i]);
        if (!(e <= cpu_max)) cpu_max = isnan(e) ? INFINITY : e;
    }
    if (isnan(a.gpu_max_diff)) a.gpu_max_diff = INFINITY;
    *max_diff = cpu_max > a.gpu_max_diff ? cpu_max : a.gpu_max_diff;
    selftest_free(&d);
    return MO_OK;
}

/* ---- a world's device context (device.h) ---------------------------------- */

/* the name of the first function the module left unset in f, or NULL when every one is set (a module
 * built against another header would otherwise crash at the first call of the missing one) */
static const char *fns_missing(const mo_cuda_fns *f)
{
#define NEED_FN(x) \
    if (!f->x) return #x;
    NEED_FN(create)
    NEED_FN(destroy)
    NEED_FN(upload)
    NEED_FN(vec)
    NEED_FN(error)
    NEED_FN(apply)
    NEED_FN(project)
    NEED_FN(block_solve)
    NEED_FN(block_mean_diag)
    NEED_FN(residual_sums)
    NEED_FN(copy)
    NEED_FN(seed)
    NEED_FN(scale)
    NEED_FN(divide)
    NEED_FN(axpy)
    NEED_FN(waxpy)
    NEED_FN(sub)
    NEED_FN(extrap)
    NEED_FN(pstep)
    NEED_FN(dot3)
    NEED_FN(wdot)
    NEED_FN(idot)
    NEED_FN(to_host)
    NEED_FN(to_device)
    NEED_FN(velocity)
    NEED_FN(ediv)
    NEED_FN(step_dots)
    NEED_FN(dot_diff)
    NEED_FN(sums)
    NEED_FN(zero)
    NEED_FN(mask_pos)
    NEED_FN(bil_precond)
#undef NEED_FN
    return NULL;
}

mo_status mo_device_open(mo_device **out, char *err, size_t err_size)
{
    cuda_module m;
    mo_gpu_info info;
    *out = NULL;
    mo_status st = probe(&m, &info, err, err_size);
    if (st != MO_OK) return st;
    mo_device *d = calloc(1, sizeof *d);
    if (!d) {
        mo_cuda_set_err(err, err_size, "out of memory for the CUDA device context");
        return MO_ERR_OUT_OF_MEMORY;
    }
    d->fns.struct_size = sizeof d->fns;
    char msg[384] = "";
    if (!m.solver_fns) {
        mo_cuda_set_err(err, err_size, "CUDA module at %s has no solver functions (mo_cuda_solver_fns): rebuild it",
                        m.path);
        free(d);
        return MO_ERR_UNSUPPORTED;
    }
    int rc = m.solver_fns(&d->fns, msg, sizeof msg);
    const char *missing = rc == MO_CUDA_OK ? fns_missing(&d->fns) : NULL;
    if (missing) {
        snprintf(msg, sizeof msg, "the solver function '%s' is not set (ABI %d): rebuild the module", missing,
                 MO_CUDA_ABI_VERSION);
        rc = MO_CUDA_BADARG;
    }
    if (rc == MO_CUDA_OK) rc = d->fns.create(&d->ctx, 0, msg, sizeof msg);
    if (rc != MO_CUDA_OK) {
        mo_cuda_set_err(err, err_size, "CUDA module at %s: %s", m.path, msg[0] ? msg : "no reason given");
        free(d);
        return rc == MO_CUDA_NOMEM ? MO_ERR_OUT_OF_MEMORY : MO_ERR_UNSUPPORTED;
    }
    snprintf(d->name, sizeof d->name, "%s", info.device_name);
    snprintf(d->module_path, sizeof d->module_path, "%s", m.path);
    *out = d;
    return MO_OK;
}

void mo_device_close(mo_device *d)
{
    if (!d) return;
    if (d->ctx) d->fns.destroy(d->ctx);
    mo_buf_free(&d->block_scale);
    mo_buf_free(&d->block_mean);
    mo_buf_free(&d->host_vec);
    mo_buf_free(&d->sys_val);
    mo_buf_free(&d->sys_wval);
    mo_buf_free(&d->zeros);
    free(d);
}
