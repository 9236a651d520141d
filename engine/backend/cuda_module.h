/* cuda_module.h: the interface between libmoreau (backend/cuda.c, which
 * loads the module with dlopen) and the CUDA backend module
 * libmoreau_cuda.so (gpu/kernels.cu, which implements it): the ABI version,
 * the entry points' return codes, the self-test's argument block and its
 * output layout. Both sides include this one header; a change here bumps
 * MO_CUDA_ABI_VERSION. Written in the common subset of C11 and CUDA C++.
 * Not installed. */
#ifndef MO_CUDA_MODULE_H
#define MO_CUDA_MODULE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "kernels/dynamics.h"
#include "kernels/rows.h"

#define MO_CUDA_ABI_VERSION 3
#define MO_CUDA_MODULE_NAME "libmoreau_cuda.so"

/* return codes of the entry points */
enum {
    MO_CUDA_OK = 0,
    MO_CUDA_UNAVAILABLE = 1, /* no driver, no device, no kernel image, other CUDA failure */
    MO_CUDA_NOMEM = 2,       /* device or host allocation failed */
    MO_CUDA_BADARG = 3,      /* bad arguments or ABI mismatch */
};

/* Self-test arguments (ABI 1). Output layout, n_out doubles:
 *   [4 nc]      per cone: projected x (3), Coulomb error^2 (1)
 *   [13 nb]     per body: v~ (3), w~ (3), x' (3), q' (4)
 *   [nr] J v, [nr] W v, [nr] sigma, [nr] b
 *   [nr + 1]    CSR row pointers (as doubles)
 *   [nnz]       CSR columns (as doubles)
 *   [nnz]       values of J, [nnz] values of W
 * so n_out = 4 nc + 13 nb + 5 nr + 1 + 3 nnz. */
typedef struct mo_cuda_selftest_args {
    size_t struct_size;          /* sizeof(mo_cuda_selftest_args) as the caller sees it */
    /* cones: 7 doubles each (x[3], u[3], mu) */
    int n_cones;
    const double *cone_in;
    /* bodies */
    int n_bodies;
    const mo_k_body *bodies;
    double gravity[3];
    double h;
    /* rows over DOF owners */
    int n_rows;
    const mo_k_row *rows;
    const mo_row_aux *aux;
    double damp_steps;           /* d = tau / h of mo_k_row_rhs */
    double max_push;
    int n_owners;
    const int *owner_dof;
    const int *owner_ndof;
    const double *owner_inv_mass;
    const double *owner_inv_I;   /* 9 per owner */
    int n_dof;
    const double *velocity;      /* n_dof */
    /* results */
    long n_out;
    double *out;                 /* n_out, written */
    const double *reference;     /* n_out CPU results, or NULL */
    double gpu_max_diff;         /* max |out - reference| reduced with cuBLAS (0 without reference) */
    double gpu_diff_norm;        /* |out - reference|_2 with cuBLAS */
} mo_cuda_selftest_args;

/* the sentence of a failure into err (nothing when err is NULL or err_size 0); both sides use it */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void mo_cuda_set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

/* ---- the solver operations (ABI 2) ---------------------------------------
 * A context (one per world that selected the CUDA backend) owns a stream, the
 * cuSPARSE and cuBLAS handles and device buffers that grow on demand and are
 * kept between solves; it holds one problem at a time. libmoreau uploads the
 * problem and the warm start at the start of each solve (upload) and wraps the
 * functions below into the solvers' backend operations (solver/ops.h, which
 * states each one's arithmetic; a device sums in its own, fixed order, so
 * results are the same from run to run and agree with the CPU to rounding).
 * Vectors are device pointers given by vec(). The void functions enqueue work
 * on the context's stream; the ones returning host scalars synchronise. A
 * failure inside one is kept (the first one, sticky until the next upload) and
 * read with error(); results after a failure are undefined but never crash.
 *
 * The problem, as libmoreau hands it over (host arrays, copied by upload):
 * exactly one of the J form (row_ptr) and the explicit form (n_ptr). */
typedef struct mo_cuda_problem {
    size_t struct_size;          /* sizeof(mo_cuda_problem) as the caller sees it */
    int m, n, nblocks, nvec;     /* rows, DOFs (J form), blocks, work vectors wanted */
    /* J form: J (val) and W = rows of M^-1 J^T (wval) on one CSR pattern, Sigma, v~; else all NULL */
    const int *row_ptr, *col;    /* (m + 1), (nnz) */
    const double *val, *wval;    /* (nnz) */
    const double *sigma;         /* (m) */
    const double *v_tilde;       /* (n) */
    /* explicit form: N as CSR (m x m, may be non-symmetric); else NULL */
    const int *n_ptr, *n_col;
    const double *n_val;
    /* rows */
    const double *r;             /* (m) u = N gamma + r */
    const double *lo, *hi;       /* (m) bounds of boxed rows */
    const double *shift;         /* (m) the outer Coulomb updates' shift (normal rows), or NULL */
    /* blocks */
    const int *block_row;        /* (nblocks + 1) */
    const unsigned char *block_kind; /* (nblocks) MO_BLOCK_* (kernels/cone.h) */
    const double *block_mu;      /* (nblocks) */
    const double *block_scale;   /* (nblocks) D of a block without inverse: out = in / D when D > 0, else 0 */
    const double *block_mean;    /* (nblocks) the block's mean of diag(N) when > 0, else 1 (block_mean_diag) */
    const int *block_inv;        /* (nblocks) offset into inv of a block's dense row-major N^-1, or -1; or NULL */
    const double *inv;           /* (n_inv) */
    long n_inv;
    const double *gamma;         /* (m) the warm start, into vec(MO_CUDA_VEC_GAMMA) */
} mo_cuda_problem;

/* the terms of sums() (ABI 3), per element i, with the term's vectors a, b, c (solver/ops.h's mo_sum) */
enum {
    MO_CUDA_SUM_DOT = 0,  /* a_i b_i */
    MO_CUDA_SUM_WDOT = 1, /* a_i b_i c_i, evaluated (a_i b_i) c_i */
    MO_CUDA_SUM_IDOT = 2, /* a_i b_i / c_i, evaluated (a_i b_i) / c_i */
    MO_CUDA_SUM_DIFF = 3, /* a_i (b_i - c_i) */
};
#define MO_CUDA_MAX_SUMS 6 /* sums fused into one launch and one readback */

/* vec() indices besides the work vectors 0 .. nvec-1 */
enum { MO_CUDA_VEC_GAMMA = -1, MO_CUDA_VEC_R = -2 };

/* the functions, filled by the entry point mo_cuda_solver_fns (each argument named as in solver/ops.h) */
typedef struct mo_cuda_fns {
    size_t struct_size;          /* sizeof(mo_cuda_fns) as the module sees it */
    /* a context on device `device` (0-based); 0 or a MO_CUDA_* code with one sentence */
    int (*create)(void **ctx, int device, char *err, size_t err_size);
    void (*destroy)(void *ctx);
    /* copies p to the device (buffers grown as needed), gamma into vec(MO_CUDA_VEC_GAMMA), r into
     * vec(MO_CUDA_VEC_R), clears the sticky error; 0 or a MO_CUDA_* code with one sentence */
    int (*upload)(void *ctx, const mo_cuda_problem *p, char *err, size_t err_size);
    double *(*vec)(void *ctx, int i);
    /* the first failure since upload: MO_CUDA_OK, or its code with its sentence */
    int (*error)(void *ctx, char *err, size_t err_size);
    /* the problem */
    void (*apply)(void *ctx, const double *x, double *y);                 /* y = N x */
    void (*project)(void *ctx, double *x);                                /* mo_k_project_block per block */
    void (*block_solve)(void *ctx, const double *x, double *y);           /* y = D^-1 x */
    void (*block_mean_diag)(void *ctx, double *y);                        /* y_i = block_mean of i's block */
    /* the sums of the residual measures at (gamma, u): out[0] = sum |gamma - P_K(gamma - alpha u)|^2 over
     * every block, out[1] = sum of mo_k_coulomb_error_sq(gamma_c, u_c - shift_c, mu) over contact blocks,
     * out[2] = sum gamma_c^2 and out[3] = sum (u_c - shift_c)^2 over their rows (synchronises) */
    void (*residual_sums)(void *ctx, const double *gamma, const double *u, double alpha, double out[4]);
    /* vectors */
    void (*copy)(void *ctx, double *y, const double *x);
    void (*seed)(void *ctx, double *x);
    void (*scale)(void *ctx, double *y, double a, const double *x);
    void (*divide)(void *ctx, double *y, const double *x, double a);
    void (*axpy)(void *ctx, double *y, double a, const double *x);
    void (*waxpy)(void *ctx, double *w, const double *x, double a, const double *y);
    void (*sub)(void *ctx, double *w, const double *x, const double *y);
    void (*extrap)(void *ctx, double *w, const double *x, double b, const double *z);
    void (*pstep)(void *ctx, double *w, const double *x, double a, const double *g, const double *d);
    /* sums (synchronise): out[k] = x_k . y_k, a NULL pair gives 0 */
    void (*dot3)(void *ctx, const double *x1, const double *y1, const double *x2, const double *y2,
                 const double *x3, const double *y3, double out[3]);
    double (*wdot)(void *ctx, const double *x, const double *d, const double *y);  /* sum (x d) y */
    double (*idot)(void *ctx, const double *x, const double *y, const double *d);  /* sum (x y) / d */
    /* transfers of count doubles (synchronise) */
    void (*to_host)(void *ctx, double *host, const double *dev, long count);
    void (*to_device)(void *ctx, double *dev, const double *host, long count);
    /* J form: v = v~ + W^T gamma on the device, copied to v_host (n) (synchronises) */
    void (*velocity)(void *ctx, const double *gamma, double *v_host);
    void (*ediv)(void *ctx, double *y, const double *x, const double *d);     /* y = x / d element-wise */
    /* fused sums (synchronise): with d = x - y and e = nx - (g - r) per element, out = (sum d d, sum d e,
     * sum e e, sum g (x - x1)), the last 0 when x1 is NULL (ABI 3); dot_diff = sum a (x - y) */
    void (*step_dots)(void *ctx, const double *x, const double *y, const double *nx, const double *g,
                      const double *r, const double *x1, double out[4]);
    double (*dot_diff)(void *ctx, const double *a, const double *x, const double *y);
    /* k (1 .. MO_CUDA_MAX_SUMS) sums in one pass (synchronises, ABI 3): out[t] = the sum over i of term t,
     * kind[t] a MO_CUDA_SUM_*, its vectors v[3 t], v[3 t + 1], v[3 t + 2] (c unused by DOT and may be NULL) */
    void (*sums)(void *ctx, int k, const int *kind, const double *const *v, double *out);
    /* the bilateral Krylov solvers' operations (ABI 3): x = 0; x_i = 0 where d_i > 0 fails; y = P^-1 x, the
     * block Jacobi of solver/ops.h's bil_precond with d = diag(N) (y != x) */
    void (*zero)(void *ctx, double *x);
    void (*mask_pos)(void *ctx, double *x, const double *d);
    void (*bil_precond)(void *ctx, const double *x, double *y, const double *d);
} mo_cuda_fns;

/* the entry points, found with dlsym under these names:
 *   mo_cuda_abi_version, mo_cuda_device_count, mo_cuda_selftest, mo_cuda_solver_fns
 * each returns MO_CUDA_OK or a MO_CUDA_* code with one sentence in err */
typedef int (*mo_cuda_abi_fn)(void);
typedef int (*mo_cuda_count_fn)(int *count, char *name, size_t name_size, char *err, size_t err_size);
typedef int (*mo_cuda_selftest_fn)(mo_cuda_selftest_args *a, char *err, size_t err_size);
/* fills *f (f->struct_size set by the caller; MO_CUDA_BADARG when it differs from the module's) */
typedef int (*mo_cuda_solver_fns_fn)(mo_cuda_fns *f, char *err, size_t err_size);

#endif
