/* upload_check.cu: the host-side checks of a problem before solver_ops.cu
 * uploads it (ABI 2): sizes, exactly one of the J and explicit forms, CSR
 * patterns (row pointers from 0, non-decreasing, columns in range), blocks
 * of 1 to MO_GPU_MAX_BLOCK rows (3 for contacts), inverse offsets within inv.
 * With them no kernel can index outside an array. Plain host code in the
 * module's own translation unit. */
#include <stdint.h>
#include <stdio.h>

#include "kernels/cone.h"
#include "module.cuh"

/* a CSR pattern of rows x cols: ptr[0] = 0, non-decreasing, every column in [0, cols); *nnz = ptr[rows] */
static int check_csr(const char *name, int rows, int cols, const int *ptr, const int *col, const double *v1,
                     const double *v2, bool need_v2, int *nnz, char *err, size_t err_size)
{
    if (ptr[0] != 0) {
        mo_cuda_set_err(err, err_size, "upload: %s row pointer 0 is %d, not 0", name, ptr[0]);
        return MO_CUDA_BADARG;
    }
    for (int i = 0; i < rows; i++)
        if (ptr[i + 1] < ptr[i]) {
            mo_cuda_set_err(err, err_size, "upload: %s row pointers decrease at row %d (%d after %d)", name, i,
                    ptr[i + 1], ptr[i]);
            return MO_CUDA_BADARG;
        }
    *nnz = ptr[rows]; /* an int: below 2^31, cuSPARSE's 32-bit indices */
    if (*nnz > 0 && (!col || !v1 || (need_v2 && !v2))) {
        mo_cuda_set_err(err, err_size, "upload: %s has %d non-zeros but a NULL column or value array", name, *nnz);
        return MO_CUDA_BADARG;
    }
    for (int k = 0; k < *nnz; k++)
        if (col[k] < 0 || col[k] >= cols) {
            mo_cuda_set_err(err, err_size, "upload: %s column %d of non-zero %d is outside [0, %d)", name, col[k], k,
                    cols);
            return MO_CUDA_BADARG;
        }
    return MO_CUDA_OK;
}

/* the host checks: nothing queued later can index outside an array */
int mo_gpu_check_problem(const mo_cuda_problem *p, int *nnz, int *n_nnz, char *err, size_t err_size)
{
    const int m = p->m, nb = p->nblocks;
    *nnz = *n_nnz = 0;
    if (m < 0 || nb < 0 || p->nvec < 0) {
        mo_cuda_set_err(err, err_size, "upload: negative size (m %d, nblocks %d, nvec %d)", m, nb, p->nvec);
        return MO_CUDA_BADARG;
    }
    if ((m > 0 && (p->row_ptr == NULL) == (p->n_ptr == NULL)) || (p->row_ptr && p->n_ptr)) {
        mo_cuda_set_err(err, err_size, "upload: %s of the J form (row_ptr) and the explicit form (n_ptr) given; "
                "exactly one is needed", p->row_ptr ? "both" : "neither");
        return MO_CUDA_BADARG;
    }
    if (m > 0 && (size_t)p->nvec > (SIZE_MAX / sizeof(double)) / (size_t)m) {
        mo_cuda_set_err(err, err_size, "upload: %d work vectors of %d rows overflow size_t", p->nvec, m);
        return MO_CUDA_BADARG;
    }
    if (m > 0 && (!p->r || !p->lo || !p->hi || !p->gamma)) {
        mo_cuda_set_err(err, err_size, "upload: NULL r, lo, hi or gamma with %d rows", m);
        return MO_CUDA_BADARG;
    }
    if (p->row_ptr) {
        int rc;
        if (p->n < 0) {
            mo_cuda_set_err(err, err_size, "upload: J form with %d DOFs", p->n);
            return MO_CUDA_BADARG;
        }
        if ((m > 0 && !p->sigma) || (p->n > 0 && !p->v_tilde)) {
            mo_cuda_set_err(err, err_size, "upload: J form without sigma or v_tilde (m %d, n %d)", m, p->n);
            return MO_CUDA_BADARG;
        }
        rc = check_csr("J", m, p->n, p->row_ptr, p->col, p->val, p->wval, true, nnz, err, err_size);
        if (rc != MO_CUDA_OK) return rc;
    }
    if (p->n_ptr) {
        int rc = check_csr("N", m, m, p->n_ptr, p->n_col, p->n_val, NULL, false, n_nnz, err, err_size);
        if (rc != MO_CUDA_OK) return rc;
    }
    if (p->n_inv < 0 || (p->n_inv > 0 && !p->inv)) {
        mo_cuda_set_err(err, err_size, "upload: %ld inverse entries with inv %s", p->n_inv, p->inv ? "given" : "NULL");
        return MO_CUDA_BADARG;
    }
    if (nb > 0 && (!p->block_row || !p->block_kind || !p->block_mu || !p->block_scale || !p->block_mean)) {
        mo_cuda_set_err(err, err_size, "upload: %d blocks with a NULL block_row, block_kind, block_mu, block_scale or "
                "block_mean", nb);
        return MO_CUDA_BADARG;
    }
    if (nb > 0 && p->block_row[0] < 0) {
        mo_cuda_set_err(err, err_size, "upload: block 0 starts at row %d", p->block_row[0]);
        return MO_CUDA_BADARG;
    }
    for (int k = 0; k < nb; k++) {
        /* block_row[0] >= 0 and 1 <= nr, so by induction every r0 >= 0; long: no overflow on bad input */
        long r0 = p->block_row[k], nr = (long)p->block_row[k + 1] - r0;
        if (nr < 1 || nr > MO_GPU_MAX_BLOCK || p->block_row[k + 1] > m) {
            mo_cuda_set_err(err, err_size, "upload: block %d has rows %ld .. %ld (1 to %d rows within %d needed)", k,
                    r0, (long)p->block_row[k + 1] - 1, MO_GPU_MAX_BLOCK, m);
            return MO_CUDA_BADARG;
        }
        if (p->block_kind[k] == MO_BLOCK_CONTACT && nr != 3) {
            mo_cuda_set_err(err, err_size, "upload: contact block %d has %ld rows, not 3", k, nr);
            return MO_CUDA_BADARG;
        }
        if (p->block_inv && p->block_inv[k] >= 0 && (long)p->block_inv[k] + nr * nr > p->n_inv) {
            mo_cuda_set_err(err, err_size, "upload: block %d's inverse at %d (%ld x %ld) runs past the %ld entries of inv",
                    k, p->block_inv[k], nr, nr, p->n_inv);
            return MO_CUDA_BADARG;
        }
    }
    return MO_CUDA_OK;
}
