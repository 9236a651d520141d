/* newton_cholesky.c: the sparse Cholesky inner solver of the non-smooth
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
 * reports it is not, the solve falls back to PCR with the same budget.
 *
 * The primal form. A x = b is also, with D = diag(cd) over the rows that are
 * not zeroed (Woodbury),
 *
 *     K y = h Jm^T D^-1 b,   K = M~ + h^2 Jm^T D^-1 Jm   (n x n),
 *     x = D^-1 (b - h Jm y),
 *
 * (y = h M~^-1 Jm^T x). A's pattern couples every two rows that share a DOF:
 * an FEM node's DOF sits in the 6 rows of each of its ~20 tetrahedra, so a
 * column gives ~10^4 entries of A (a 3072-tetrahedron cantilever took 6 s
 * per Newton iteration), where K gets 78 entries per row of 12 DOFs and the
 * mass blocks. Both forms are exact; the one with fewer entries is factored,
 * the primal only when every row that is not zeroed has cd > 0 and every
 * rigid owner's inertia is positive. A row with a tiny cd (a fixed node's
 * 1e-9) amplifies the error of y by 1/cd in x, so the primal solve is
 * refined on its residual in A (at most 7 more solves with the same factor,
 * until 1e-11 of |b| or while each halves it); if it is still above 1e-6 of
 * |b| (an inner solve far more exact than PCR's) the Schur form is used.
 * MO_DEBUG_CHOLESKY in the environment prints each primal solve's sizes and
 * residual on stderr. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "solver/newton.h"

#ifdef MO_HAVE_CHOLMOD
#include <cholmod.h>

/* entries of K's upper triangle (0: the primal form does not apply) */
static size_t primal_entries(const mo_newton_system *s)
{
    if (!s->odof || !s->ondof || !s->oim || !s->mrot || !s->msc) return 0;
    size_t nt = 0;
    for (int o = 0; o < s->nown; o++) {
        if (!(s->oim[o] > 0.0)) return 0;
        if (s->ondof[o] == 6) {
            const double *I = s->mrot + 9 * o;
            if (!(I[0] > 0.0 && I[4] > 0.0 && I[8] > 0.0)) return 0;
            nt += 9;
        } else {
            nt += (size_t)s->ondof[o];
        }
    }
    for (int r = 0; r < s->m; r++) {
        if (s->mask[r]) continue;
        if (!(s->cd[r] > 0.0) || !isfinite(s->cd[r])) return 0;
        size_t k = (size_t)(s->row_ptr[r + 1] - s->row_ptr[r]);
        nt += k * (k + 1) / 2;
    }
    return nt;
}

/* the primal form (file comment): 0 solved (*relres its relative residual in A), 1 not positive definite,
   -1 out of memory; work: n doubles */
static int solve_primal(const mo_newton_system *s, const double *b, double *x, size_t nt, cholmod_common *cm,
                        double *work, double *relres)
{
    const int m = s->m, n = s->n;
    const double h = s->h, h2 = h * h;
    int status = -1;
    double *rres = NULL;
    cholmod_sparse *K = NULL;
    cholmod_factor *L = NULL;
    cholmod_dense *B = NULL, *Y = NULL;
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)n, (size_t)n, nt, 1, CHOLMOD_REAL, cm);
    if (!T) goto done;
    {
        int *ti = (int *)T->i, *tj = (int *)T->j;
        double *tx = (double *)T->x;
        size_t q = 0;
        for (int o = 0; o < s->nown; o++) {
            int d0 = s->odof[o];
            for (int k = 0; k < 3; k++) {
                ti[q] = tj[q] = d0 + k;
                tx[q++] = 1.0 / (s->oim[o] * s->msc[d0 + k]);
            }
            if (s->ondof[o] == 6)
                for (int i = 0; i < 3; i++)
                    for (int j = i; j < 3; j++) {
                        ti[q] = d0 + 3 + i;
                        tj[q] = d0 + 3 + j;
                        tx[q++] = 0.5 * (s->mrot[9 * o + 3 * i + j] + s->mrot[9 * o + 3 * j + i]);
                    }
        }
        for (int r = 0; r < m; r++) {
            if (s->mask[r]) continue;
            double wr = h2 / s->cd[r];
            for (int a = s->row_ptr[r]; a < s->row_ptr[r + 1]; a++)
                for (int e = a; e < s->row_ptr[r + 1]; e++) {
                    int ca = s->col[a], ce = s->col[e];
                    ti[q] = ca < ce ? ca : ce;
                    tj[q] = ca < ce ? ce : ca;
                    tx[q++] = wr * s->val[a] * s->val[e];
                }
        }
        T->nnz = q;
    }
    K = cholmod_triplet_to_sparse(T, T->nnz, cm);
    if (!K) goto done;
    L = cholmod_analyze(K, cm);
    if (!L) goto done;
    if (!cholmod_factorize(K, L, cm) || cm->status == CHOLMOD_NOT_POSDEF) {
        status = 1;
        goto done;
    }
    B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, cm);
    rres = (double *)malloc(((size_t)m + 1) * sizeof(double));
    if (!B || !rres) goto done;
    /* x = 0, then solves on the residual: the first is the Woodbury solve, the next ones refine it */
    memset(x, 0, (size_t)m * sizeof(double));
    memcpy(rres, b, (size_t)m * sizeof(double));
    double bb = 0.0;
    for (int r = 0; r < m; r++) bb += b[r] * b[r];
    double last = HUGE_VAL;
    for (int pass = 0; pass < 8; pass++) {
        double *bx = (double *)B->x;
        memset(bx, 0, (size_t)n * sizeof(double));
        for (int r = 0; r < m; r++) {
            if (s->mask[r]) continue;
            double f = h * rres[r] / s->cd[r];
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) bx[s->col[k]] += s->val[k] * f;
        }
        if (Y) cholmod_free_dense(&Y, cm);
        Y = cholmod_solve(CHOLMOD_A, L, B, cm);
        if (!Y) goto done;
        const double *y = (const double *)Y->x;
        for (int r = 0; r < m; r++) {
            double jy = 0.0;
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) jy += s->val[k] * y[s->col[k]];
            x[r] += (rres[r] - h * jy) / s->cd[r];
        }
        /* rres = b - A x */
        mo_newton_jt(s, x, work);
        double rr = 0.0;
        for (int r = 0; r < m; r++) {
            double a = 0.0;
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) a += s->val[k] * work[s->col[k]];
            rres[r] = b[r] - (h2 * a + s->cd[r] * x[r]);
            rr += rres[r] * rres[r];
        }
        *relres = bb > 0.0 ? sqrt(rr / bb) : 0.0;
        if (*relres <= 1e-11 || *relres > 0.5 * last) break; /* converged, or refinement stalls */
        last = *relres;
    }
    status = 0;
done:
    free(rres);
    if (Y) cholmod_free_dense(&Y, cm);
    if (B) cholmod_free_dense(&B, cm);
    if (L) cholmod_free_factor(&L, cm);
    if (K) cholmod_free_sparse(&K, cm);
    if (T) cholmod_free_triplet(&T, cm);
    return status;
}

int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work)
{
    return mo_newton_cholesky_form(s, b, x, work, 0, NULL);
}

int mo_newton_cholesky_form(const mo_newton_system *s, const double *b, double *x, double *work, int form,
                            int *used)
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
    size_t np = form == 1 ? 0 : primal_entries(s);
    if (form == 2 && np == 0) {
        free(cp); free(cr); free(ck);
        return -1;
    }
    if (np > 0 && (form == 2 || np < nt)) {
        cholmod_common cm2;
        cholmod_start(&cm2);
        cm2.print = 0;
        cm2.nmethods = 1;
        cm2.method[0].ordering = CHOLMOD_AMD;
        double relres = 1.0;
        int st = solve_primal(s, b, x, np, &cm2, work, &relres);
        cholmod_finish(&cm2);
        if (getenv("MO_DEBUG_CHOLESKY")) fprintf(stderr, "cholesky primal: %zu entries (Schur %zu), relative residual %.2e\n", np, nt, relres);
        if (st == 0 && (relres <= 1e-6 || form == 2)) {
            free(cp); free(cr); free(ck);
            if (used) *used = 2;
            return 0;
        }
        if (form == 2) {
            free(cp); free(cr); free(ck);
            return st;
        }
    }
    if (used) *used = 1;
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
    return status;
}
#else
int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work)
{
    (void)s; (void)b; (void)x; (void)work;
    return -1;
}

int mo_newton_cholesky_form(const mo_newton_system *s, const double *b, double *x, double *work, int form,
                            int *used)
{
    (void)s; (void)b; (void)x; (void)work; (void)form;
    if (used) *used = 0;
    return -1;
}
#endif
