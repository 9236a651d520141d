/* module.cuh: what the CUDA module's files share (kernels.cu: the ABI 1
 * entry points and the self-test; solver_ops.cu: the solver operations of
 * ABI 2): the export marker of the extern "C" entry points and the error
 * sentences. Every failure becomes one sentence naming the failing call and
 * its CUDA / cuSPARSE / cuBLAS code, and one MO_CUDA_* return code
 * (engine/backend/cuda_module.h). Nothing here prints or exits. */
#ifndef MO_GPU_MODULE_CUH
#define MO_GPU_MODULE_CUH

#include <cuda_runtime.h>
#include <cusparse.h>
#include <cublas_v2.h>

#include <stddef.h>

#include "backend/cuda_module.h"

#define MO_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

/* the rows of the largest block (a weld's bilateral group), as solver/solver.h's MO_MAX_BLOCK */
#define MO_GPU_MAX_BLOCK 6

/* upload_check.cu: p's sizes, forms, CSR patterns and blocks; MO_CUDA_OK with the stored entries of J
 * (*nnz) and N (*n_nnz), or MO_CUDA_BADARG with one sentence */
int mo_gpu_check_problem(const mo_cuda_problem *p, int *nnz, int *n_nnz, char *err, size_t err_size);

/* ---- error sentences ------------------------------------------------------ */

static inline int cuda_code(cudaError_t e)
{
    return e == cudaErrorMemoryAllocation ? MO_CUDA_NOMEM : MO_CUDA_UNAVAILABLE;
}

static inline int fail_cuda(char *err, size_t err_size, const char *what, cudaError_t e)
{
    const char *hint = "";
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidPtx || e == cudaErrorUnsupportedPtxVersion)
        hint = " (the module was not built for this GPU: add its SM to -Dgpu_arch)";
    mo_cuda_set_err(err, err_size, "%s returned %d (%s: %s)%s", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e),
            hint);
    return cuda_code(e);
}

static inline int fail_cusparse(char *err, size_t err_size, const char *what, cusparseStatus_t s)
{
    mo_cuda_set_err(err, err_size, "%s returned cuSPARSE status %d (%s)", what, (int)s, cusparseGetErrorString(s));
    return s == CUSPARSE_STATUS_ALLOC_FAILED ? MO_CUDA_NOMEM : MO_CUDA_UNAVAILABLE;
}

static inline int fail_cublas(char *err, size_t err_size, const char *what, cublasStatus_t s)
{
    mo_cuda_set_err(err, err_size, "%s returned cuBLAS status %d (%s)", what, (int)s, cublasGetStatusString(s));
    return s == CUBLAS_STATUS_ALLOC_FAILED ? MO_CUDA_NOMEM : MO_CUDA_UNAVAILABLE;
}

/* in functions with `int rc`, `char *err, size_t err_size` and a `done:` label */
#define CUDA_TRY_AS(call, what)                                          \
    do {                                                                 \
        cudaError_t e_ = (call);                                         \
        if (e_ != cudaSuccess) {                                         \
            rc = fail_cuda(err, err_size, what, e_);                     \
            goto done;                                                   \
        }                                                                \
    } while (0)
#define CUDA_TRY(call) CUDA_TRY_AS(call, #call)
#define SPARSE_TRY(call)                                                 \
    do {                                                                 \
        cusparseStatus_t s_ = (call);                                    \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                             \
            rc = fail_cusparse(err, err_size, #call, s_);                \
            goto done;                                                   \
        }                                                                \
    } while (0)
#define BLAS_TRY(call)                                                   \
    do {                                                                 \
        cublasStatus_t s_ = (call);                                      \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                               \
            rc = fail_cublas(err, err_size, #call, s_);                  \
            goto done;                                                   \
        }                                                                \
    } while (0)
/* after a kernel launch: launch errors now, execution errors at the next sync */
#define LAUNCH_CHECK(name) CUDA_TRY_AS(cudaGetLastError(), "launch of " name)

#endif
