/* solver_ops.cu: the solver operations of the CUDA module (ABI 2): the
 * entry point mo_cuda_solver_fns fills the table mo_cuda_fns
 * (engine/backend/cuda_module.h), which libmoreau wraps into the solvers'
 * backend operations (engine/solver/ops.h states each one's arithmetic).
 *
 * The context (create / destroy) owns, on one device:
 *   - one non-blocking stream; the cuSPARSE and cuBLAS handles are bound to
 *     it, and every kernel, copy and product of the context runs on it, in
 *     call order;
 *   - device buffers that grow on demand and are kept (never shrunk) until
 *     destroy: the nvec work vectors (one allocation, vector i at i * m, so
 *     vec(i) = vec(0) + i m), gamma, r, the problem's arrays, the W^T
 *     matrix, two scratch vectors (m and n), the buffers of csr2csc and SpMV;
 *     the reduction partials and results, fixed size; a pinned host buffer for
 *     the scalar readbacks. No managed memory.
 * A buffer grows only inside upload, after the stream is drained, so no
 * queued work ever reads a freed buffer; pointers from vec() are valid until
 * the next upload.
 *
 * upload validates the problem on the host (sizes, CSR row pointers and
 * column ranges, block rows, inverse offsets: nothing queued later can read
 * outside an array), copies it with cudaMemcpyAsync and builds, for the J
 * form, W^T (n x m) as CSR on the device with cusparseCsr2cscEx2 (W's CSC is
 * W^T's CSR; csr2csc only moves values, and cuSPARSE documents it to give the
 * same matrix every run). Then N x = J (W^T x) + Sigma x is two
 * non-transposed SpMVs and one kernel, and the velocity v~ + W^T gamma one
 * SpMV and one kernel. The explicit form is one SpMV with N.
 *
 * Determinism:
 *   - products: cusparseSpMV with CUSPARSE_SPMV_CSR_ALG2, which cuSPARSE
 *     documents as bit-wise deterministic run to run (no preprocess; the one
 *     external buffer, sized in upload for all three products, is kept);
 *   - element-wise operations: one grid-stride kernel each, each element's
 *     arithmetic written as ops.h states it; with -fmad=false (no FMA
 *     contraction) and IEEE double division they are bit-identical to the
 *     CPU backend;
 *   - block operations (project, block_solve, block_mean_diag): one thread per
 *     block running the shared body of engine/kernels/cone.h or the same loops
 *     as solver/problem.c: bit-identical to the CPU as well;
 *   - sums (dot3, wdot, idot, residual_sums): two passes, no atomics. Pass
 *     one: G = min(ceil(len / 256), 512) blocks of 256 threads (G depends
 *     only on the length, never on the device); thread t of block b adds its
 *     terms i = b 256 + t, + 256 G, ... in order, then the block adds its 256
 *     sums in a fixed shared-memory tree and writes one partial per sum.
 *     Pass two: one block of 256 threads, thread t adding partials t, t + 256
 *     in order, then the same tree. The order is fixed, so the results are
 *     the same from run to run and on every GPU; they differ from the CPU's
 *     index-order sums by rounding only.
 *
 * Errors: the void operations only enqueue work. The first failure (a CUDA,
 * cuSPARSE or cuBLAS code, or a bad argument) is kept in the context with
 * its sentence; every operation after it does nothing (the scalar ones
 * return NaN) until the next upload, which clears it; error() reads it. A
 * failed upload is itself the sticky error, so no operation runs on a
 * half-built problem. Nothing here prints, aborts or exits.
 *
 * What synchronises (cudaStreamSynchronize on the context's stream): upload
 * (at its start, before any buffer grows; after its copies and after
 * csr2csc, so the caller's host arrays are free, the SpMV buffer is sized
 * with nothing queued and upload's errors are its own), the sums (dot3, wdot,
 * idot, residual_sums: one pinned readback each), to_host, to_device,
 * velocity and destroy. Everything else returns as soon as it is queued.
 *
 * cuBLAS: the handle exists (bound to the stream) but no operation uses it:
 * its kernels contract into FMAs and sum in an unspecified order, so the
 * element-wise operations and sums are this file's own kernels. */

#include <cuda_runtime.h>
#include <cusparse.h>
#include <cublas_v2.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cone.h"
#include "backend/cuda_module.h"
#include "module.cuh"
#include "profile.cuh"

/* rows of the largest block (MO_MAX_BLOCK of solver/solver.h: a weld's bilateral group) */
/* element-wise and per-block kernels: threads per block, most blocks (grid-stride beyond) */
#define OPS_THREADS 256
#define OPS_MAX_GRID 4096
/* the two-pass sums: threads per block (a power of two), most partials, most sums per pass */
#define RED_THREADS 256
#define RED_MAX_BLOCKS 512
#define RED_MAX_SUMS MO_CUDA_MAX_SUMS

/* ---- the context ----------------------------------------------------------- */

typedef struct dbuf {
    void *p;
    size_t cap; /* bytes */
} dbuf;

enum { FORM_NONE = 0, FORM_J = 1, FORM_N = 2 };

typedef struct ops_ctx {
    int device;
    cudaStream_t stream;
    cusparseHandle_t sp;
    cublasHandle_t bl;
    double *pinned;          /* RED_MAX_SUMS: the sums' results, host memory mapped into the device */
    double *d_pinned;        /* the device's address of pinned */
    double *d_partials;      /* RED_MAX_SUMS x RED_MAX_BLOCKS */
    double *d_sums;          /* RED_MAX_SUMS: the two-pass sums' results */
    unsigned *d_ticket;      /* k_sum's ticket, 0 between launches */
    /* MOREAU_CUDA_OWN_KERNELS=1: the products by k_csr_rows and the sums in one launch (k_sum), faster but
     * not yet run on a GPU; else cusparseSpMV (ALG2) and the two-pass sums, as run on the H200 */
    int own_kernels;

    /* the sticky error: the first failure since upload */
    int code;
    char msg[512];
    int ready;               /* an upload succeeded */

    /* the problem */
    int form, m, n, nblocks, nvec, nnz, n_nnz;
    int has_shift, has_inv;
    dbuf vecs, gamma, r, lo, hi, shift, sigma, v_tilde;
    dbuf block_row, block_kind, block_mu, block_scale, block_mean, block_inv, inv;
    dbuf row_ptr, col, val, wval;  /* J and W, m x n */
    dbuf wt_ptr, wt_col, wt_val;   /* W^T, n x m */
    dbuf n_ptr, n_col, n_val;      /* explicit N, m x m */
    dbuf scratch_m, scratch_n;
    dbuf csc_buf, spmv_buf;

    /* cuSPARSE descriptors (rebuilt by each upload; NULL when empty) */
    cusparseSpMatDescr_t mat_j, mat_wt, mat_n;
    cusparseDnVecDescr_t vec_xm, vec_ym, vec_n; /* m (set per call), m (set per call), scratch_n */
    mo_gpu_prof *prof;       /* MOREAU_CUDA_PROFILE set: the per-operation times (profile.cuh), else NULL */
} ops_ctx;

/* a profile bracket around the rest of the enclosing block (nothing without MOREAU_CUDA_PROFILE) */
#define PROF(name) prof_scope prof_scope_(c ? c->prof : NULL, name)

/* record the first failure; later ones are dropped */
static void ctx_fail_cuda(ops_ctx *c, const char *what, cudaError_t e)
{
    if (c->code == MO_CUDA_OK) c->code = fail_cuda(c->msg, sizeof c->msg, what, e);
    cudaGetLastError(); /* kept here: the thread's last-error state must not reach another context's check */
}

static void ctx_fail_cusparse(ops_ctx *c, const char *what, cusparseStatus_t s)
{
    if (c->code == MO_CUDA_OK) c->code = fail_cusparse(c->msg, sizeof c->msg, what, s);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void ctx_fail(ops_ctx *c, int code, const char *fmt, ...)
{
    if (c->code != MO_CUDA_OK) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->code = code;
}

/* the start of every operation: false (do nothing) after a failure or before an upload */
static bool ctx_enter(ops_ctx *c, const char *op)
{
    if (!c || c->code != MO_CUDA_OK) return false;
    if (!c->ready) {
        ctx_fail(c, MO_CUDA_BADARG, "%s: called before a successful upload", op);
        return false;
    }
    cudaError_t e = cudaSetDevice(c->device);
    if (e != cudaSuccess) {
        ctx_fail_cuda(c, "cudaSetDevice", e);
        return false;
    }
    return true;
}

/* after a kernel launch */
static bool ctx_launched(ops_ctx *c, const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return true;
    ctx_fail_cuda(c, what, e);
    return false;
}

static bool ctx_sync(ops_ctx *c, const char *what)
{
    cudaError_t e = cudaStreamSynchronize(c->stream);
    if (e == cudaSuccess) return true;
    ctx_fail_cuda(c, what, e);
    return false;
}

static unsigned grid_for(long n)
{
    long g = (n + OPS_THREADS - 1) / OPS_THREADS;
    if (g > OPS_MAX_GRID) g = OPS_MAX_GRID;
    return g < 1 ? 1u : (unsigned)g;
}

static unsigned red_grid_for(long n)
{
    long g = (n + RED_THREADS - 1) / RED_THREADS;
    if (g > RED_MAX_BLOCKS) g = RED_MAX_BLOCKS;
    return g < 1 ? 1u : (unsigned)g;
}

#include "ops_kernels.cuh"

/* out[0 .. NS-1] = the sums of term over 0 .. n-1 (synchronises); NaN after a failure */
template <int NS, class Term>
static void ctx_sum(ops_ctx *c, long n, Term term, double *out, const char *op)
{
    for (int k = 0; k < NS; k++) out[k] = NAN;
    if (n == 0) {
        for (int k = 0; k < NS; k++) out[k] = 0.0;
        return;
    }
    if (c->own_kernels) {
        k_sum<NS, Term><<<red_grid_for(n), RED_THREADS, 0, c->stream>>>(n, term, c->d_partials, c->d_ticket,
                                                                        c->d_pinned);
        if (!ctx_launched(c, op) || !ctx_sync(c, op)) return;
    } else {
        unsigned grid = red_grid_for(n);
        k_sum_partials<NS, Term><<<grid, RED_THREADS, 0, c->stream>>>(n, term, c->d_partials);
        if (!ctx_launched(c, op)) return;
        k_sum_final<NS><<<1, RED_THREADS, 0, c->stream>>>((int)grid, c->d_partials, c->d_sums);
        if (!ctx_launched(c, op)) return;
        cudaError_t e = cudaMemcpyAsync(c->pinned, c->d_sums, sizeof(double) * NS, cudaMemcpyDeviceToHost, c->stream);
        if (e != cudaSuccess) {
            ctx_fail_cuda(c, op, e);
            return;
        }
        if (!ctx_sync(c, op)) return;
    }
    for (int k = 0; k < NS; k++) out[k] = c->pinned[k];
}

/* the lanes per row of k_csr_rows for a pattern: the largest power of two <= half the mean entries per row,
 * from 1 to 32 (a function of the pattern only) */
static int csr_lanes(long rows, long nnz)
{
    double half = rows > 0 ? 0.5 * (double)nnz / (double)rows : 1.0;
    int l = 1;
    while (l < 32 && 2.0 * l <= half) l *= 2;
    return l;
}

/* y = the CSR product with k_csr_rows's epilogue (y must not be x) */
static bool ctx_csr(ops_ctx *c, long rows, long nnz, const void *ptr, const void *col, const void *val, const double *x,
                    double *y, int epilogue, const double *sigma, const double *xs, const double *add, const char *what)
{
    PROF(what);
    const int l = csr_lanes(rows, nnz);
    long blocks = (rows * l + OPS_THREADS - 1) / OPS_THREADS;
    if (blocks > 65535L * 16) blocks = 65535L * 16;
    const unsigned g = blocks < 1 ? 1u : (unsigned)blocks;
    const int *p = (const int *)ptr, *cl = (const int *)col;
    const double *v = (const double *)val;
#define CSR_CASE(L)                                                                                            \
    case L: k_csr_rows<L><<<g, OPS_THREADS, 0, c->stream>>>(rows, p, cl, v, x, y, epilogue, sigma, xs, add); break
    switch (l) {
        CSR_CASE(1);
        CSR_CASE(2);
        CSR_CASE(4);
        CSR_CASE(8);
        CSR_CASE(16);
        default: CSR_CASE(32);
    }
#undef CSR_CASE
    return ctx_launched(c, what);
}

/* ---- cuSPARSE products ---------------------------------------------------------- */

/* Y = A X (deterministic CSR_ALG2); X and Y already point at the right vectors */
static bool ctx_spmv(ops_ctx *c, cusparseSpMatDescr_t a, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y,
                     const char *what)
{
    PROF(what);
    static const double one = 1.0, zero = 0.0;
    cusparseStatus_t s = cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, CUDA_R_64F,
                                      CUSPARSE_SPMV_CSR_ALG2, c->spmv_buf.p);
    if (s == CUSPARSE_STATUS_SUCCESS) return true;
    ctx_fail_cusparse(c, what, s);
    return false;
}

/* point a dense-vector descriptor at p (cuSPARSE only reads an SpMV's X, so a const input is fine) */
static bool ctx_point(ops_ctx *c, cusparseDnVecDescr_t v, const double *p, const char *what)
{
    cusparseStatus_t s = cusparseDnVecSetValues(v, const_cast<double *>(p));
    if (s == CUSPARSE_STATUS_SUCCESS) return true;
    ctx_fail_cusparse(c, what, s);
    return false;
}

/* ---- create / destroy ----------------------------------------------------------- */

static void dbuf_free(dbuf *b)
{
    if (b->p) cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
}

static void ctx_destroy_descriptors(ops_ctx *c)
{
    if (c->mat_j) cusparseDestroySpMat(c->mat_j);
    if (c->mat_wt) cusparseDestroySpMat(c->mat_wt);
    if (c->mat_n) cusparseDestroySpMat(c->mat_n);
    if (c->vec_xm) cusparseDestroyDnVec(c->vec_xm);
    if (c->vec_ym) cusparseDestroyDnVec(c->vec_ym);
    if (c->vec_n) cusparseDestroyDnVec(c->vec_n);
    c->mat_j = c->mat_wt = c->mat_n = NULL;
    c->vec_xm = c->vec_ym = c->vec_n = NULL;
}

static void ops_destroy(void *ctx)
{
    ops_ctx *c = (ops_ctx *)ctx;
    if (!c) return;
    cudaSetDevice(c->device);
    if (c->stream) cudaStreamSynchronize(c->stream); /* nothing queued may outlive its buffers */
    prof_destroy(c->prof);
    ctx_destroy_descriptors(c);
    if (c->sp) cusparseDestroy(c->sp);
    if (c->bl) cublasDestroy(c->bl);
    dbuf *bufs[] = {&c->vecs, &c->gamma, &c->r, &c->lo, &c->hi, &c->shift, &c->sigma, &c->v_tilde,
                    &c->block_row, &c->block_kind, &c->block_mu, &c->block_scale, &c->block_mean, &c->block_inv,
                    &c->inv, &c->row_ptr, &c->col, &c->val, &c->wval, &c->wt_ptr, &c->wt_col, &c->wt_val,
                    &c->n_ptr, &c->n_col, &c->n_val, &c->scratch_m, &c->scratch_n, &c->csc_buf, &c->spmv_buf};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) dbuf_free(bufs[i]);
    if (c->d_partials) cudaFree(c->d_partials);
    if (c->d_ticket) cudaFree(c->d_ticket);
    if (c->d_sums) cudaFree(c->d_sums);
    if (c->pinned) cudaFreeHost(c->pinned);
    if (c->stream) cudaStreamDestroy(c->stream);
    cudaGetLastError(); /* leave no non-sticky error behind for the caller's next call */
    free(c);
}

static int ops_create(void **ctx, int device, char *err, size_t err_size)
{
    int rc = MO_CUDA_OK;
    ops_ctx *c = NULL;

    if (err && err_size) err[0] = '\0';
    if (!ctx) {
        mo_cuda_set_err(err, err_size, "create: ctx is NULL");
        return MO_CUDA_BADARG;
    }
    *ctx = NULL;
    if (device < 0) {
        mo_cuda_set_err(err, err_size, "create: device %d is negative", device);
        return MO_CUDA_BADARG;
    }
    c = (ops_ctx *)calloc(1, sizeof *c);
    if (!c) {
        mo_cuda_set_err(err, err_size, "create: host allocation of the context (%zu bytes) failed", sizeof *c);
        return MO_CUDA_NOMEM;
    }
    c->device = device;
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    SPARSE_TRY(cusparseCreate(&c->sp));
    SPARSE_TRY(cusparseSetStream(c->sp, c->stream));
    SPARSE_TRY(cusparseSetPointerMode(c->sp, CUSPARSE_POINTER_MODE_HOST));
    BLAS_TRY(cublasCreate(&c->bl));
    BLAS_TRY(cublasSetStream(c->bl, c->stream));
    c->prof = prof_create(c->stream);
    CUDA_TRY(cudaHostAlloc((void **)&c->pinned, sizeof(double) * RED_MAX_SUMS, cudaHostAllocMapped));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&c->d_pinned, c->pinned, 0));
    CUDA_TRY(cudaMalloc((void **)&c->d_partials, sizeof(double) * RED_MAX_SUMS * RED_MAX_BLOCKS));
    CUDA_TRY(cudaMalloc((void **)&c->d_sums, sizeof(double) * RED_MAX_SUMS));
    CUDA_TRY(cudaMalloc((void **)&c->d_ticket, sizeof(unsigned)));
    CUDA_TRY(cudaMemset(c->d_ticket, 0, sizeof(unsigned)));
    {
        const char *own = getenv("MOREAU_CUDA_OWN_KERNELS");
        c->own_kernels = own && own[0] && strcmp(own, "0");
    }
    *ctx = c;
    return MO_CUDA_OK;

done:
    ops_destroy(c);
    return rc;
}

/* ---- upload ------------------------------------------------------------------------ */

/* b holds at least bytes (at least 16: never a NULL pointer); contents are not kept. Only with the
 * stream drained. */
static int dbuf_grow(dbuf *b, size_t bytes, const char *name, char *err, size_t err_size)
{
    if (bytes < 16) bytes = 16;
    if (b->p && bytes <= b->cap) return MO_CUDA_OK;
    size_t cap = b->cap + b->cap / 2; /* grow by half at least, so slowly growing problems rarely reallocate */
    if (cap < bytes) cap = bytes;
    if (b->p) {
        cudaError_t e = cudaFree(b->p);
        b->p = NULL;
        b->cap = 0;
        if (e != cudaSuccess) {
            char what[128];
            snprintf(what, sizeof what, "cudaFree(%s)", name);
            return fail_cuda(err, err_size, what, e);
        }
    }
    cudaError_t e = cudaMalloc(&b->p, cap);
    if (e == cudaErrorMemoryAllocation && cap > bytes) {
        cudaGetLastError();
        cap = bytes; /* the slack did not fit: the exact size may */
        e = cudaMalloc(&b->p, cap);
    }
    if (e != cudaSuccess) {
        char what[128];
        b->p = NULL;
        snprintf(what, sizeof what, "cudaMalloc(%zu bytes for %s)", cap, name);
        return fail_cuda(err, err_size, what, e);
    }
    b->cap = cap;
    return MO_CUDA_OK;
}

/* host to device on the stream, nothing for 0 bytes */
#define H2D(dst, src, bytes, name)                                                                 \
    do {                                                                                           \
        if ((bytes) > 0)                                                                           \
            CUDA_TRY_AS(cudaMemcpyAsync((dst), (src), (bytes), cudaMemcpyHostToDevice, c->stream), \
                        "cudaMemcpyAsync(" name ", host to device)");                             \
    } while (0)
#define GROW(buf, bytes, name)                                          \
    do {                                                                \
        rc = dbuf_grow(&(buf), (bytes), (name), err, err_size);         \
        if (rc != MO_CUDA_OK) goto done;                                \
    } while (0)

/* upload's work; its sentence into err (the context's msg) */
static int upload_problem(ops_ctx *c, const mo_cuda_problem *p, char *err, size_t err_size)
{
    int rc = MO_CUDA_OK, nnz = 0, n_nnz = 0, m, n, nb;
    size_t dm, dn, bytes_csc = 0, bytes_spmv = 0;

    if (!p || p->struct_size != sizeof(mo_cuda_problem)) {
        mo_cuda_set_err(err, err_size, "upload: problem block of %zu bytes, module expects %zu (ABI %d)",
                p ? p->struct_size : (size_t)0, sizeof(mo_cuda_problem), MO_CUDA_ABI_VERSION);
        return MO_CUDA_BADARG;
    }
    rc = mo_gpu_check_problem(p, &nnz, &n_nnz, err, err_size);
    if (rc != MO_CUDA_OK) goto done;
    m = p->m;
    nb = p->nblocks;
    n = p->row_ptr ? p->n : 0;
    dm = sizeof(double) * (size_t)m;
    dn = sizeof(double) * (size_t)n;

    /* drain the stream (buffers may be freed below) and clear a non-sticky error of an earlier call */
    CUDA_TRY(cudaSetDevice(c->device));
    CUDA_TRY(cudaStreamSynchronize(c->stream));
    cudaGetLastError();
    ctx_destroy_descriptors(c);

    c->form = p->row_ptr ? FORM_J : (p->n_ptr ? FORM_N : FORM_NONE);
    c->m = m;
    c->n = n;
    c->nblocks = nb;
    c->nvec = p->nvec;
    c->nnz = c->form == FORM_J ? nnz : 0;
    c->n_nnz = c->form == FORM_N ? n_nnz : 0;
    c->has_shift = p->shift != NULL;
    c->has_inv = p->block_inv != NULL;

    /* buffers */
    GROW(c->vecs, dm * (size_t)p->nvec, "the work vectors");
    GROW(c->gamma, dm, "gamma");
    GROW(c->r, dm, "r");
    GROW(c->lo, dm, "lo");
    GROW(c->hi, dm, "hi");
    GROW(c->scratch_m, dm, "a scratch vector of m");
    if (c->has_shift) GROW(c->shift, dm, "shift");
    GROW(c->block_row, sizeof(int) * ((size_t)nb + 1), "block_row");
    GROW(c->block_kind, (size_t)nb, "block_kind");
    GROW(c->block_mu, sizeof(double) * (size_t)nb, "block_mu");
    GROW(c->block_scale, sizeof(double) * (size_t)nb, "block_scale");
    GROW(c->block_mean, sizeof(double) * (size_t)nb, "block_mean");
    if (c->has_inv) {
        GROW(c->block_inv, sizeof(int) * (size_t)nb, "block_inv");
        GROW(c->inv, sizeof(double) * (size_t)p->n_inv, "inv");
    }
    if (c->form == FORM_J) {
        GROW(c->sigma, dm, "sigma");
        GROW(c->v_tilde, dn, "v_tilde");
        GROW(c->scratch_n, dn, "a scratch vector of n");
        GROW(c->row_ptr, sizeof(int) * ((size_t)m + 1), "J's row pointers");
        GROW(c->col, sizeof(int) * (size_t)nnz, "J's columns");
        GROW(c->val, sizeof(double) * (size_t)nnz, "J's values");
        GROW(c->wval, sizeof(double) * (size_t)nnz, "W's values");
        GROW(c->wt_ptr, sizeof(int) * ((size_t)n + 1), "W^T's row pointers");
        GROW(c->wt_col, sizeof(int) * (size_t)nnz, "W^T's columns");
        GROW(c->wt_val, sizeof(double) * (size_t)nnz, "W^T's values");
    }
    if (c->form == FORM_N) {
        GROW(c->n_ptr, sizeof(int) * ((size_t)m + 1), "N's row pointers");
        GROW(c->n_col, sizeof(int) * (size_t)n_nnz, "N's columns");
        GROW(c->n_val, sizeof(double) * (size_t)n_nnz, "N's values");
    }

    /* copies (from pageable host memory; the syncs below free the caller's arrays) */
    H2D(c->gamma.p, p->gamma, dm, "gamma");
    H2D(c->r.p, p->r, dm, "r");
    H2D(c->lo.p, p->lo, dm, "lo");
    H2D(c->hi.p, p->hi, dm, "hi");
    if (c->has_shift) H2D(c->shift.p, p->shift, dm, "shift");
    if (nb > 0) {
        H2D(c->block_row.p, p->block_row, sizeof(int) * ((size_t)nb + 1), "block_row");
        H2D(c->block_kind.p, p->block_kind, (size_t)nb, "block_kind");
        H2D(c->block_mu.p, p->block_mu, sizeof(double) * (size_t)nb, "block_mu");
        H2D(c->block_scale.p, p->block_scale, sizeof(double) * (size_t)nb, "block_scale");
        H2D(c->block_mean.p, p->block_mean, sizeof(double) * (size_t)nb, "block_mean");
        if (c->has_inv) {
            H2D(c->block_inv.p, p->block_inv, sizeof(int) * (size_t)nb, "block_inv");
            H2D(c->inv.p, p->inv, sizeof(double) * (size_t)p->n_inv, "inv");
        }
    }
    if (c->form == FORM_J) {
        H2D(c->sigma.p, p->sigma, dm, "sigma");
        H2D(c->v_tilde.p, p->v_tilde, dn, "v_tilde");
        H2D(c->row_ptr.p, p->row_ptr, sizeof(int) * ((size_t)m + 1), "J's row pointers");
        H2D(c->col.p, p->col, sizeof(int) * (size_t)nnz, "J's columns");
        H2D(c->val.p, p->val, sizeof(double) * (size_t)nnz, "J's values");
        H2D(c->wval.p, p->wval, sizeof(double) * (size_t)nnz, "W's values");
    }
    if (c->form == FORM_N) {
        H2D(c->n_ptr.p, p->n_ptr, sizeof(int) * ((size_t)m + 1), "N's row pointers");
        H2D(c->n_col.p, p->n_col, sizeof(int) * (size_t)n_nnz, "N's columns");
        H2D(c->n_val.p, p->n_val, sizeof(double) * (size_t)n_nnz, "N's values");
    }

    CUDA_TRY_AS(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize (upload's copies)");

    /* W^T = CSC of W (m x n), read as the CSR of an n x m matrix. Its buffer is sized and grown with the
     * stream drained and the pattern on the device, whatever the size query reads. */
    if (c->form == FORM_J && nnz > 0) {
        SPARSE_TRY(cusparseCsr2cscEx2_bufferSize(c->sp, m, n, nnz, c->wval.p, (const int *)c->row_ptr.p,
                                                 (const int *)c->col.p, c->wt_val.p, (int *)c->wt_ptr.p,
                                                 (int *)c->wt_col.p, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                                 CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes_csc));
        GROW(c->csc_buf, bytes_csc, "csr2csc's buffer");
        SPARSE_TRY(cusparseCsr2cscEx2(c->sp, m, n, nnz, c->wval.p, (const int *)c->row_ptr.p, (const int *)c->col.p,
                                      c->wt_val.p, (int *)c->wt_ptr.p, (int *)c->wt_col.p, CUDA_R_64F,
                                      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
                                      c->csc_buf.p));
        CUDA_TRY_AS(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize (upload's csr2csc)");
    }

    /* descriptors and the SpMV buffer (nothing is queued now) */
    if (m > 0) {
        SPARSE_TRY(cusparseCreateDnVec(&c->vec_xm, m, c->scratch_m.p, CUDA_R_64F));
        SPARSE_TRY(cusparseCreateDnVec(&c->vec_ym, m, c->scratch_m.p, CUDA_R_64F));
    }
    if (c->form == FORM_J && n > 0) SPARSE_TRY(cusparseCreateDnVec(&c->vec_n, n, c->scratch_n.p, CUDA_R_64F));
    if (c->form == FORM_J && nnz > 0) { /* nnz > 0: m > 0 and n > 0 (columns in [0, n)) */
        static const double one = 1.0, zero = 0.0;
        size_t b1 = 0, b2 = 0;
        SPARSE_TRY(cusparseCreateCsr(&c->mat_j, m, n, nnz, c->row_ptr.p, c->col.p, c->val.p, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        SPARSE_TRY(cusparseCreateCsr(&c->mat_wt, n, m, nnz, c->wt_ptr.p, c->wt_col.p, c->wt_val.p,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        SPARSE_TRY(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->mat_wt, c->vec_xm, &zero,
                                           c->vec_n, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &b1));
        SPARSE_TRY(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->mat_j, c->vec_n, &zero,
                                           c->vec_ym, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &b2));
        bytes_spmv = b1 > b2 ? b1 : b2;
    }
    if (c->form == FORM_N && n_nnz > 0) { /* n_nnz > 0: m > 0 */
        static const double one = 1.0, zero = 0.0;
        SPARSE_TRY(cusparseCreateCsr(&c->mat_n, m, m, n_nnz, c->n_ptr.p, c->n_col.p, c->n_val.p, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        SPARSE_TRY(cusparseSpMV_bufferSize(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->mat_n, c->vec_xm, &zero,
                                           c->vec_ym, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &bytes_spmv));
    }
    GROW(c->spmv_buf, bytes_spmv, "SpMV's buffer");
    return MO_CUDA_OK;

done:
    return rc;
}

static int ops_upload(void *ctx, const mo_cuda_problem *p, char *err, size_t err_size)
{
    ops_ctx *c = (ops_ctx *)ctx;
    if (err && err_size) err[0] = '\0';
    if (!c) {
        mo_cuda_set_err(err, err_size, "upload: ctx is NULL");
        return MO_CUDA_BADARG;
    }
    c->ready = 0;
    c->code = MO_CUDA_OK;
    c->msg[0] = '\0';
    if (c->prof) {
        c->prof->uploads++;
        if (p && p->m > c->prof->max_rows) c->prof->max_rows = p->m;
    }
    PROF("upload");
    int rc = upload_problem(c, p, c->msg, sizeof c->msg);
    if (rc != MO_CUDA_OK) {
        /* the failure is the sticky error: no operation runs on a half-built problem */
        c->code = rc;
        mo_cuda_set_err(err, err_size, "%s", c->msg);
        cudaGetLastError(); /* a non-sticky CUDA error must not reach the caller's next call */
        return rc;
    }
    c->ready = 1;
    return MO_CUDA_OK;
}

#undef H2D
#undef GROW

/* ---- the operations ------------------------------------------------------------------ */

static double *ops_vec(void *ctx, int i)
{
    ops_ctx *c = (ops_ctx *)ctx;
    if (!c || !c->ready) return NULL;
    if (i >= 0 && i < c->nvec) return (double *)c->vecs.p + (size_t)i * (size_t)c->m;
    if (i == MO_CUDA_VEC_GAMMA) return (double *)c->gamma.p;
    if (i == MO_CUDA_VEC_R) return (double *)c->r.p;
    return NULL;
}

static int ops_error(void *ctx, char *err, size_t err_size)
{
    ops_ctx *c = (ops_ctx *)ctx;
    if (err && err_size) err[0] = '\0';
    if (!c) {
        mo_cuda_set_err(err, err_size, "error: ctx is NULL");
        return MO_CUDA_BADARG;
    }
    if (c->code != MO_CUDA_OK) mo_cuda_set_err(err, err_size, "%s", c->msg);
    return c->code;
}

/* NULL vectors are refused before they reach a kernel */
static bool ctx_args(ops_ctx *c, const char *op, bool ok)
{
    if (!ok) ctx_fail(c, MO_CUDA_BADARG, "%s: a NULL vector", op);
    return ok;
}

static void ops_apply(void *ctx, const double *x, double *y)
{
    ops_ctx *c = (ops_ctx *)ctx;
    if (!ctx_enter(c, "apply") || !ctx_args(c, "apply", x && y) || c->m == 0) return;
    const long m = c->m;
    if (c->form == FORM_J) {
        /* y = J (W^T x) + Sigma x: t = W^T x into scratch_n, J t into scratch_m, then the kernel (y may be x) */
        const double *jt = NULL;
        if (c->nnz > 0 && c->own_kernels) {
            /* t = W^T x, then y = Sigma x + J t in the product's epilogue */
            double *t = (double *)c->scratch_n.p;
            if (ctx_csr(c, c->n, c->nnz, c->wt_ptr.p, c->wt_col.p, c->wt_val.p, x, t, CSR_PLAIN, NULL, NULL, NULL,
                        "apply: W^T x"))
                ctx_csr(c, m, c->nnz, c->row_ptr.p, c->col.p, c->val.p, t, y, CSR_SIGMA, (const double *)c->sigma.p, x,
                        NULL, "apply: Sigma x + J t");
            return;
        }
        if (c->mat_j) {
            if (!ctx_point(c, c->vec_xm, x, "apply: cusparseDnVecSetValues") ||
                !ctx_spmv(c, c->mat_wt, c->vec_xm, c->vec_n, "apply: cusparseSpMV (W^T x)") ||
                !ctx_point(c, c->vec_ym, (const double *)c->scratch_m.p, "apply: cusparseDnVecSetValues") ||
                !ctx_spmv(c, c->mat_j, c->vec_n, c->vec_ym, "apply: cusparseSpMV (J t)"))
                return;
            jt = (const double *)c->scratch_m.p;
        }
        PROF("apply: y = Sigma x + J t");
        k_sigma_add<<<grid_for(m), OPS_THREADS, 0, c->stream>>>(m, y, (const double *)c->sigma.p, x, jt);
        ctx_launched(c, "apply: launch of k_sigma_add");
    } else if (c->form == FORM_N) {
        if (!c->mat_n) { /* no entries: N x = 0, as the CPU's empty rows */
            cudaError_t e = cudaMemsetAsync(y, 0, sizeof(double) * (size_t)m, c->stream);
            if (e != cudaSuccess) ctx_fail_cuda(c, "apply: cudaMemsetAsync", e);
            return;
        }
        /* a product cannot write its input: through scratch_m when y is x */
        double *dst = y == x ? (double *)c->scratch_m.p : y;
        if (c->own_kernels) {
            if (!ctx_csr(c, m, c->n_nnz, c->n_ptr.p, c->n_col.p, c->n_val.p, x, dst, CSR_PLAIN, NULL, NULL, NULL,
                         "apply: N x"))
                return;
        } else if (!ctx_point(c, c->vec_xm, x, "apply: cusparseDnVecSetValues") ||
            !ctx_point(c, c->vec_ym, dst, "apply: cusparseDnVecSetValues") ||
            !ctx_spmv(c, c->mat_n, c->vec_xm, c->vec_ym, "apply: cusparseSpMV (N x)"))
            return;
        if (dst != y) {
            cudaError_t e = cudaMemcpyAsync(y, dst, sizeof(double) * (size_t)m, cudaMemcpyDeviceToDevice, c->stream);
            if (e != cudaSuccess) ctx_fail_cuda(c, "apply: cudaMemcpyAsync (device to device)", e);
        }
    }
}

static void ops_project(void *ctx, double *x)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("project");
    if (!ctx_enter(c, "project") || !ctx_args(c, "project", x) || c->nblocks == 0) return;
    k_project<<<grid_for(c->nblocks), OPS_THREADS, 0, c->stream>>>(
        c->nblocks, (const int *)c->block_row.p, (const unsigned char *)c->block_kind.p, (const double *)c->block_mu.p,
        (const double *)c->lo.p, (const double *)c->hi.p, x);
    ctx_launched(c, "project: launch of k_project");
}

static void ops_block_solve(void *ctx, const double *x, double *y)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("block_solve");
    if (!ctx_enter(c, "block_solve") || !ctx_args(c, "block_solve", x && y) || c->nblocks == 0) return;
    k_block_solve<<<grid_for(c->nblocks), OPS_THREADS, 0, c->stream>>>(
        c->nblocks, (const int *)c->block_row.p, c->has_inv ? (const int *)c->block_inv.p : NULL,
        c->has_inv ? (const double *)c->inv.p : NULL, (const double *)c->block_scale.p, x, y);
    ctx_launched(c, "block_solve: launch of k_block_solve");
}

static void ops_bil_precond(void *ctx, const double *x, double *y, const double *d)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("bil_precond");
    if (!ctx_enter(c, "bil_precond") || !ctx_args(c, "bil_precond", x && y && d && x != y) || c->nblocks == 0) return;
    k_bil_precond<<<grid_for(c->nblocks), OPS_THREADS, 0, c->stream>>>(
        c->nblocks, (const int *)c->block_row.p, (const unsigned char *)c->block_kind.p,
        c->has_inv ? (const int *)c->block_inv.p : NULL, c->has_inv ? (const double *)c->inv.p : NULL, d, x, y);
    ctx_launched(c, "bil_precond: launch of k_bil_precond");
}

static void ops_block_mean_diag(void *ctx, double *y)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("block_mean_diag");
    if (!ctx_enter(c, "block_mean_diag") || !ctx_args(c, "block_mean_diag", y) || c->nblocks == 0) return;
    k_block_mean_diag<<<grid_for(c->nblocks), OPS_THREADS, 0, c->stream>>>(
        c->nblocks, (const int *)c->block_row.p, (const double *)c->block_mean.p, y);
    ctx_launched(c, "block_mean_diag: launch of k_block_mean_diag");
}

static void ops_residual_sums(void *ctx, const double *gamma, const double *u, double alpha, double out[4])
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("residual_sums");
    double s[4] = {NAN, NAN, NAN, NAN};
    if (ctx_enter(c, "residual_sums") && ctx_args(c, "residual_sums", gamma && u)) {
        term_residual t;
        t.block_row = (const int *)c->block_row.p;
        t.block_kind = (const unsigned char *)c->block_kind.p;
        t.block_mu = (const double *)c->block_mu.p;
        t.lo = (const double *)c->lo.p;
        t.hi = (const double *)c->hi.p;
        t.shift = c->has_shift ? (const double *)c->shift.p : NULL;
        t.gamma = gamma;
        t.u = u;
        t.alpha = alpha;
        ctx_sum<4>(c, c->nblocks, t, s, "residual_sums");
    }
    if (out)
        for (int k = 0; k < 4; k++) out[k] = s[k];
}

static void ops_copy(void *ctx, double *y, const double *x)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("copy");
    if (!ctx_enter(c, "copy") || !ctx_args(c, "copy", x && y) || c->m == 0 || y == x) return;
    k_copy<<<grid_for(c->m), OPS_THREADS, 0, c->stream>>>((long)c->m, y, x); /* a kernel launches faster than a copy */
    ctx_launched(c, "copy: launch of k_copy");
}

/* the element-wise operations: checks, then one launch */
#define ELEMENTWISE(op, ok, kernel, ...)                                             \
    do {                                                                             \
        ops_ctx *c = (ops_ctx *)ctx;                                                 \
        PROF(op);                                                                    \
        if (!ctx_enter(c, op) || !ctx_args(c, op, ok) || c->m == 0) return;          \
        kernel<<<grid_for(c->m), OPS_THREADS, 0, c->stream>>>((long)c->m, __VA_ARGS__); \
        ctx_launched(c, op ": launch of " #kernel);                                  \
    } while (0)

static void ops_seed(void *ctx, double *x)
{
    ELEMENTWISE("seed", x, k_seed, x);
}

static void ops_scale(void *ctx, double *y, double a, const double *x)
{
    ELEMENTWISE("scale", x && y, k_scale, y, a, x);
}

static void ops_divide(void *ctx, double *y, const double *x, double a)
{
    ELEMENTWISE("divide", x && y, k_divide, y, x, a);
}

static void ops_axpy(void *ctx, double *y, double a, const double *x)
{
    ELEMENTWISE("axpy", x && y, k_axpy, y, a, x);
}

static void ops_waxpy(void *ctx, double *w, const double *x, double a, const double *y)
{
    ELEMENTWISE("waxpy", w && x && y, k_waxpy, w, x, a, y);
}

static void ops_sub(void *ctx, double *w, const double *x, const double *y)
{
    ELEMENTWISE("sub", w && x && y, k_sub, w, x, y);
}

static void ops_extrap(void *ctx, double *w, const double *x, double b, const double *z)
{
    ELEMENTWISE("extrap", w && x && z, k_extrap, w, x, b, z);
}

static void ops_pstep(void *ctx, double *w, const double *x, double a, const double *g, const double *d)
{
    ELEMENTWISE("pstep", w && x && g && d, k_pstep, w, x, a, g, d);
}

static void ops_zero(void *ctx, double *x)
{
    ELEMENTWISE("zero", x, k_zero, x);
}

static void ops_mask_pos(void *ctx, double *x, const double *d)
{
    ELEMENTWISE("mask_pos", x && d, k_mask_pos, x, d);
}

static void ops_ediv(void *ctx, double *y, const double *x, const double *d)
{
    ELEMENTWISE("ediv", y && x && d, k_ediv, y, x, d);
}

#undef ELEMENTWISE

static void ops_dot3(void *ctx, const double *x1, const double *y1, const double *x2, const double *y2,
                     const double *x3, const double *y3, double out[3])
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("dot3");
    double s[3] = {NAN, NAN, NAN};
    if (ctx_enter(c, "dot3")) {
        term_dot3 t;
        t.x1 = x1 && y1 ? x1 : NULL;
        t.y1 = y1;
        t.x2 = x2 && y2 ? x2 : NULL;
        t.y2 = y2;
        t.x3 = x3 && y3 ? x3 : NULL;
        t.y3 = y3;
        ctx_sum<3>(c, c->m, t, s, "dot3");
    }
    if (out)
        for (int k = 0; k < 3; k++) out[k] = s[k];
}

static void ops_step_dots(void *ctx, const double *x, const double *y, const double *nx, const double *g,
                          const double *r, const double *x1, double out[4])
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("step_dots");
    double s[4] = {NAN, NAN, NAN, NAN};
    if (ctx_enter(c, "step_dots") && ctx_args(c, "step_dots", x && y && nx && g && r)) {
        term_step_dots t;
        t.x = x;
        t.y = y;
        t.nx = nx;
        t.g = g;
        t.r = r;
        t.x1 = x1;
        ctx_sum<4>(c, c->m, t, s, "step_dots");
    }
    if (out)
        for (int k = 0; k < 4; k++) out[k] = s[k];
}

static double ops_dot_diff(void *ctx, const double *a, const double *x, const double *y)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("dot_diff");
    double s = NAN;
    if (ctx_enter(c, "dot_diff") && ctx_args(c, "dot_diff", a && x && y)) {
        term_dot_diff t;
        t.a = a;
        t.x = x;
        t.y = y;
        ctx_sum<1>(c, c->m, t, &s, "dot_diff");
    }
    return s;
}

static void ops_sums(void *ctx, int k, const int *kind, const double *const *v, double *out)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("sums");
    double s[MO_CUDA_MAX_SUMS];
    for (int t = 0; t < MO_CUDA_MAX_SUMS; t++) s[t] = NAN;
    bool ok = k >= 1 && k <= MO_CUDA_MAX_SUMS && kind && v;
    for (int t = 0; ok && t < k; t++)
        ok = kind[t] >= MO_CUDA_SUM_DOT && kind[t] <= MO_CUDA_SUM_DIFF && v[3 * t] && v[3 * t + 1] &&
             (kind[t] == MO_CUDA_SUM_DOT || v[3 * t + 2]);
    if (ctx_enter(c, "sums") && ctx_args(c, "sums", ok)) {
        term_sums t;
        memset(&t, 0, sizeof t);
        t.k = k;
        for (int q = 0; q < k; q++) {
            t.kind[q] = kind[q];
            t.a[q] = v[3 * q];
            t.b[q] = v[3 * q + 1];
            t.c[q] = v[3 * q + 2];
        }
        ctx_sum<MO_CUDA_MAX_SUMS>(c, c->m, t, s, "sums");
    }
    if (out)
        for (int t = 0; t < k && t < MO_CUDA_MAX_SUMS; t++) out[t] = s[t];
}

static double ops_wdot(void *ctx, const double *x, const double *d, const double *y)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("wdot");
    double s = NAN;
    if (ctx_enter(c, "wdot") && ctx_args(c, "wdot", x && d && y)) {
        term_wdot t;
        t.x = x;
        t.d = d;
        t.y = y;
        ctx_sum<1>(c, c->m, t, &s, "wdot");
    }
    return s;
}

static double ops_idot(void *ctx, const double *x, const double *y, const double *d)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("idot");
    double s = NAN;
    if (ctx_enter(c, "idot") && ctx_args(c, "idot", x && y && d)) {
        term_idot t;
        t.x = x;
        t.y = y;
        t.d = d;
        ctx_sum<1>(c, c->m, t, &s, "idot");
    }
    return s;
}

/* count doubles between the host (pageable) and the device, then a sync */
static void ctx_transfer(ops_ctx *c, const char *op, void *dst, const void *src, long count, cudaMemcpyKind kind)
{
    PROF(op);
    if (!ctx_enter(c, op)) return;
    if (count < 0 || (count > 0 && (!dst || !src))) {
        ctx_fail(c, MO_CUDA_BADARG, "%s: %ld doubles between %s and %s", op, count, dst ? "an array" : "NULL",
                 src ? "an array" : "NULL");
        return;
    }
    if (count == 0) return;
    cudaError_t e = cudaMemcpyAsync(dst, src, sizeof(double) * (size_t)count, kind, c->stream);
    if (e != cudaSuccess) {
        ctx_fail_cuda(c, kind == cudaMemcpyDeviceToHost ? "to_host: cudaMemcpyAsync" : "to_device: cudaMemcpyAsync",
                      e);
        return;
    }
    ctx_sync(c, kind == cudaMemcpyDeviceToHost ? "to_host: cudaStreamSynchronize" : "to_device: cudaStreamSynchronize");
}

static void ops_to_host(void *ctx, double *host, const double *dev, long count)
{
    ctx_transfer((ops_ctx *)ctx, "to_host", host, dev, count, cudaMemcpyDeviceToHost);
}

static void ops_to_device(void *ctx, double *dev, const double *host, long count)
{
    ctx_transfer((ops_ctx *)ctx, "to_device", dev, host, count, cudaMemcpyHostToDevice);
}

static void ops_velocity(void *ctx, const double *gamma, double *v_host)
{
    ops_ctx *c = (ops_ctx *)ctx;
    PROF("velocity");
    if (!ctx_enter(c, "velocity")) return;
    if (c->form != FORM_J) {
        ctx_fail(c, MO_CUDA_BADARG, "velocity: the problem has no J form");
        return;
    }
    if (!ctx_args(c, "velocity", gamma && (v_host || c->n == 0)) || c->n == 0) return;
    const long n = c->n;
    double *v = (double *)c->scratch_n.p;
    if (c->nnz > 0 && c->own_kernels) {
        if (!ctx_csr(c, n, c->nnz, c->wt_ptr.p, c->wt_col.p, c->wt_val.p, gamma, v, CSR_ADD, NULL, NULL,
                     (const double *)c->v_tilde.p, "velocity: v~ + W^T gamma"))
            return;
    } else if (c->mat_wt) {
        /* v = v~ + W^T gamma: the SpMV into scratch_n, then v~ added in place */
        if (!ctx_point(c, c->vec_xm, gamma, "velocity: cusparseDnVecSetValues") ||
            !ctx_spmv(c, c->mat_wt, c->vec_xm, c->vec_n, "velocity: cusparseSpMV (W^T gamma)"))
            return;
        k_add_to<<<grid_for(n), OPS_THREADS, 0, c->stream>>>(n, v, (const double *)c->v_tilde.p);
        if (!ctx_launched(c, "velocity: launch of k_add_to")) return;
    } else { /* no entries: v = v~ exactly, as the CPU's copy */
        cudaError_t e = cudaMemcpyAsync(v, c->v_tilde.p, sizeof(double) * (size_t)n, cudaMemcpyDeviceToDevice,
                                        c->stream);
        if (e != cudaSuccess) {
            ctx_fail_cuda(c, "velocity: cudaMemcpyAsync (device to device)", e);
            return;
        }
    }
    cudaError_t e = cudaMemcpyAsync(v_host, v, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, c->stream);
    if (e != cudaSuccess) {
        ctx_fail_cuda(c, "velocity: cudaMemcpyAsync (device to host)", e);
        return;
    }
    ctx_sync(c, "velocity: cudaStreamSynchronize");
}

/* ---- the entry point --------------------------------------------------------------- */

MO_CUDA_EXPORT int mo_cuda_solver_fns(mo_cuda_fns *f, char *err, size_t err_size)
{
    if (err && err_size) err[0] = '\0';
    if (!f || f->struct_size != sizeof(mo_cuda_fns)) {
        mo_cuda_set_err(err, err_size, "mo_cuda_solver_fns: function table of %zu bytes, module expects %zu (ABI %d)",
                f ? f->struct_size : (size_t)0, sizeof(mo_cuda_fns), MO_CUDA_ABI_VERSION);
        return MO_CUDA_BADARG;
    }
    f->create = ops_create;
    f->destroy = ops_destroy;
    f->upload = ops_upload;
    f->vec = ops_vec;
    f->error = ops_error;
    f->apply = ops_apply;
    f->project = ops_project;
    f->block_solve = ops_block_solve;
    f->block_mean_diag = ops_block_mean_diag;
    f->residual_sums = ops_residual_sums;
    f->copy = ops_copy;
    f->seed = ops_seed;
    f->scale = ops_scale;
    f->divide = ops_divide;
    f->axpy = ops_axpy;
    f->waxpy = ops_waxpy;
    f->sub = ops_sub;
    f->extrap = ops_extrap;
    f->pstep = ops_pstep;
    f->dot3 = ops_dot3;
    f->wdot = ops_wdot;
    f->idot = ops_idot;
    f->to_host = ops_to_host;
    f->to_device = ops_to_device;
    f->velocity = ops_velocity;
    f->ediv = ops_ediv;
    f->step_dots = ops_step_dots;
    f->dot_diff = ops_dot_diff;
    f->sums = ops_sums;
    f->zero = ops_zero;
    f->mask_pos = ops_mask_pos;
    f->bil_precond = ops_bil_precond;
    return MO_CUDA_OK;
}
