/* solver_newton_chol.c: the sparse Cholesky inner solver of the non-smooth
 * Newton step (MO_NEWTON_CHOLESKY, issue 7): the Schur matrix
 *
 *     A = h^2 Jm M~^-1 Jm^T + diag(cd)
 *
 * assembled explicitly (its upper triangle) from the rows of J (val) and of
 * M~^-1 J^T (wval), which share J's pattern because every row covers all
 * DOFs of each owner it touches (6 of a rigid body, 3 of a particle, or one
 * axis of a particle whose mass matrix is diagonal): A_rs = h^2 sum_c
 * val_r[c] wval_s[c] over the columns the two rows share. Rows zeroed by the
 * Newton step (mask) keep only their unit diagonal. CHOLMOD (Debian's
 * libsuitesparse-dev) factors A = L L^T and solves; the pattern is analysed
 * at every call (it is fixed within a step, but the step's buffers do not
 * outlive the call). A is symmetric positive definite when every row has
 * cd > 0 (compliance, the NCP terms, or newton.regularisation); when CHOLMOD
 * reports it is not, the solve falls back to PCR with the same budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "newton.h"

#ifdef MO_HAVE_CHOLMOD
#include <cholmod.h>

int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work)
{
    const int m = s->m, n = s->n;
    const double h2 = s->h * s->h;
    /* the transpose of J's pattern: for each column its (row, entry) pairs */
    int *cp = (int *)calloc((size_t)n + 2, sizeof(int));
    const int nnz = s->row_ptr[m];
    int *cr = (int *)malloc(((size_t)nnz + 1) * sizeof(int)), *ck = (int *)malloc(((size_t)nnz + 1) * sizeof(int));
    if (!cp || !cr || !ck) {
        free(cp); free(cr); free(ck);
        return -1;
    }
    for (int r = 0; r < m; r++)
        if (!s->mask[r])
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) cp[s->col[k] + 2]++;
    for (int c = 0; c < n; c++) cp[c + 2] += cp[c + 1];
    size_t nt = (size_t)m; /* the diagonal */
    for (int c = 0; c < n; c++) {
        size_t d = (size_t)(cp[c + 2] - cp[c + 1]);
        nt += d * (d + 1) / 2;
    }
    for (int r = 0; r < m; r++)
        if (!s->mask[r])
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) {
                int q = cp[s->col[k] + 1]++;
                cr[q] = r;
                ck[q] = k;
            }
    /* cp[c] .. cp[c + 1] are now column c's entries, rows ascending */
    cholmod_common cm;
    cholmod_start(&cm);
    cm.print = 0;
    cm.nmethods = 1; /* AMD only: METIS's extra trial costs more than it saves on these patterns */
    cm.method[0].ordering = CHOLMOD_AMD;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)m, (size_t)m, nt, 1, CHOLMOD_REAL, &cm);
    int status = -1;
    cholmod_sparse *A = NULL;
    cholmod_factor *L = NULL;
    cholmod_dense *B = NULL, *X = NULL;
    if (!T) goto done;
    {
        int *ti = (int *)T->i, *tj = (int *)T->j;
        double *tx = (double *)T->x;
        size_t q = 0;
        for (int r = 0; r < m; r++) {
            ti[q] = tj[q] = r;
            tx[q++] = s->cd[r];
        }
        for (int c = 0; c < n; c++)
            for (int a = cp[c]; a < cp[c + 1]; a++)
                for (int e = a; e < cp[c + 1]; e++) { /* rows cr[a] <= cr[e]: the upper triangle */
                    int r = cr[a], t = cr[e];
                    double v = r == t ? s->val[ck[a]] * s->wval[ck[a]]
                                      : 0.5 * (s->val[ck[a]] * s->wval[ck[e]] + s->val[ck[e]] * s->wval[ck[a]]);
                    ti[q] = r;
                    tj[q] = t;
                    tx[q++] = h2 * v;
                }
        T->nnz = q;
    }
    A = cholmod_triplet_to_sparse(T, T->nnz, &cm);
    if (!A) goto done;
    L = cholmod_analyze(A, &cm);
    if (!L) goto done;
    if (!cholmod_factorize(A, L, &cm) || cm.status == CHOLMOD_NOT_POSDEF) {
        status = 1;
        goto done;
    }
    B = cholmod_allocate_dense((size_t)m, 1, (size_t)m, CHOLMOD_REAL, &cm);
    if (!B) goto done;
    memcpy(B->x, b, (size_t)m * sizeof(double));
    X = cholmod_solve(CHOLMOD_A, L, B, &cm);
    if (!X) goto done;
    memcpy(x, X->x, (size_t)m * sizeof(double));
    status = 0;
done:
    if (X) cholmod_free_dense(&X, &cm);
    if (B) cholmod_free_dense(&B, &cm);
    if (L) cholmod_free_factor(&L, &cm);
    if (A) cholmod_free_sparse(&A, &cm);
    if (T) cholmod_free_triplet(&T, &cm);
    cholmod_finish(&cm);
    free(cp); free(cr); free(ck);
    (void)work;
    return status;
}
#else
int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work)
{
    (void)s; (void)b; (void)x; (void)work;
    return -1;
}
#endif
