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

#define MO_CUDA_ABI_VERSION 1
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

/* the entry points, found with dlsym under these names:
 *   mo_cuda_abi_version, mo_cuda_device_count, mo_cuda_selftest
 * each returns MO_CUDA_OK or a MO_CUDA_* code with one sentence in err */
typedef int (*mo_cuda_abi_fn)(void);
typedef int (*mo_cuda_count_fn)(int *count, char *name, size_t name_size, char *err, size_t err_size);
typedef int (*mo_cuda_selftest_fn)(mo_cuda_selftest_args *a, char *err, size_t err_size);

#endif
