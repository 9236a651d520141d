/* fclib_io.c: frictional contact problems in and out of files (FCLIB HDF5
 * and Siconos .dat, told apart by content), the local reduction of a global
 * problem, and the Siconos error measure. Layouts: ../shared/data/fclib/MANIFEST.md.
 *
 * HDF5 goes through the HDF5 C API directly, not libfclib: libfclib calls
 * exit(1) on a malformed file (a missing dataset inside /fclib_local), prints
 * to stderr, and its fclib_merit_local is wrong for CSR matrices. The layout
 * written is libfclib's (FCLIB 3): int32[1] scalars, W as CSR (nz = -2) in
 * a local file, M and H as triplets (nz = nzmax = entries, i = row,
 * p = column, as Siconos writes them) in a global one; fixed-length
 * null-terminated strings under info/. Every matrix layout (CSR, CSC,
 * triplets, with nz < nzmax) is read.
 *
 * Matrices become CSR with sorted columns; duplicate entries are summed in
 * file order (the CSparse / scipy convention, so files assembled by
 * accumulation read as meant); explicit zeros stored in a file are kept,
 * except in a dense .dat W where only nonzeros are stored. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/fclib_internal.h"

#ifdef MO_HAVE_FCLIB
#include <hdf5.h>
#if defined(__unix__) || defined(__APPLE__)
#define MO_FC_PROBE_CHILD 1
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#endif

void mo_fc_set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

/* ---- CSR ---- */

void mo_csr_free(mo_csr *a)
{
    if (!a) return;
    free(a->ptr), free(a->col), free(a->val);
    memset(a, 0, sizeof *a);
}

static int csr_alloc(mo_csr *a, int rows, int cols, size_t nnz)
{
    a->rows = rows, a->cols = cols, a->nnz = (int)nnz;
    a->ptr = calloc((size_t)rows + 1, sizeof(int));
    a->col = malloc((nnz + 1) * sizeof(int));
    a->val = malloc((nnz + 1) * sizeof(double));
    if (a->ptr && a->col && a->val) return 0;
    mo_csr_free(a);
    return -1;
}

int mo_csr_from_triplets(mo_csr *a, int rows, int cols, size_t n, const int *ri, const int *ci, const double *v,
                         bool drop_zeros)
{
    memset(a, 0, sizeof *a);
    if (n > INT_MAX) return -1;
    /* bucket by column, then by row: columns come out sorted within a row and
       entries of one (row, column) keep the order given */
    int *cptr = calloc((size_t)cols + 2, sizeof(int)), *rptr = calloc((size_t)rows + 2, sizeof(int));
    int *bi = malloc((n + 1) * sizeof(int)), *bj = malloc((n + 1) * sizeof(int));
    double *bv = malloc((n + 1) * sizeof(double));
    int *oj = malloc((n + 1) * sizeof(int));
    double *ov = malloc((n + 1) * sizeof(double));
    int rc = -1;
    if (!cptr || !rptr || !bi || !bj || !bv || !oj || !ov) goto done;
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (!drop_zeros || v[k] != 0.0) cptr[ci[k] + 2]++, m++;
    for (int j = 0; j < cols; j++) cptr[j + 2] += cptr[j + 1];
    for (size_t k = 0; k < n; k++)
        if (!drop_zeros || v[k] != 0.0) {
            int at = cptr[ci[k] + 1]++;
            bi[at] = ri[k], bj[at] = ci[k], bv[at] = v[k];
        }
    for (size_t k = 0; k < m; k++) rptr[bi[k] + 2]++;
    for (int i = 0; i < rows; i++) rptr[i + 2] += rptr[i + 1];
    for (size_t k = 0; k < m; k++) {
        int at = rptr[bi[k] + 1]++;
        oj[at] = bj[k], ov[at] = bv[k];
    }
    /* rptr[i] .. rptr[i + 1] is row i: sum duplicates, which are adjacent */
    size_t nnz = 0;
    for (int i = 0; i < rows; i++)
        for (int k = rptr[i]; k < rptr[i + 1]; k++)
            if (k == rptr[i] || oj[k] != oj[k - 1]) nnz++;
    if (csr_alloc(a, rows, cols, nnz) != 0) goto done;
    size_t at = 0;
    for (int i = 0; i < rows; i++) {
        for (int k = rptr[i]; k < rptr[i + 1]; k++) {
            if (k > rptr[i] && oj[k] == oj[k - 1]) {
                a->val[at - 1] += ov[k];
            } else {
                a->col[at] = oj[k];
                a->val[at++] = ov[k];
            }
        }
        a->ptr[i + 1] = (int)at;
    }
    rc = 0;
done:
    free(cptr), free(rptr), free(bi), free(bj), free(bv), free(oj), free(ov);
    return rc;
}

/* t = a^T (columns sorted by construction) */
static int csr_transpose(const mo_csr *a, mo_csr *t)
{
    if (csr_alloc(t, a->cols, a->rows, (size_t)a->nnz) != 0) return -1;
    for (int k = 0; k < a->nnz; k++) t->ptr[a->col[k] + 1]++;
    for (int j = 0; j < a->cols; j++) t->ptr[j + 1] += t->ptr[j];
    int *next = malloc(((size_t)a->cols + 1) * sizeof(int));
    if (!next) {
        mo_csr_free(t);
        return -1;
    }
    memcpy(next, t->ptr, (size_t)a->cols * sizeof(int));
    for (int i = 0; i < a->rows; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            int at = next[a->col[k]]++;
            t->col[at] = i, t->val[at] = a->val[k];
        }
    free(next);
    return 0;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* c = a b (Gustavson), columns sorted; exact zeros of the result are dropped
   when drop_zeros (they are no entry of any file, and scipy drops them too) */
static int csr_multiply(const mo_csr *a, const mo_csr *b, mo_csr *c, bool drop_zeros)
{
    memset(c, 0, sizeof *c);
    int *mark = malloc(((size_t)b->cols + 1) * sizeof(int));
    double *acc = calloc((size_t)b->cols + 1, sizeof(double));
    int rc = -1;
    if (!mark || !acc) goto done;
    for (int j = 0; j < b->cols; j++) mark[j] = -1;
    size_t nnz = 0;
    for (int i = 0; i < a->rows; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            for (int l = b->ptr[a->col[k]]; l < b->ptr[a->col[k] + 1]; l++)
                if (mark[b->col[l]] != i) mark[b->col[l]] = i, nnz++;
    if (nnz > INT_MAX || csr_alloc(c, a->rows, b->cols, nnz) != 0) goto done;
    for (int j = 0; j < b->cols; j++) mark[j] = -1;
    int at = 0;
    for (int i = 0; i < a->rows; i++) {
        int start = at;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            for (int l = b->ptr[a->col[k]]; l < b->ptr[a->col[k] + 1]; l++) {
                int j = b->col[l];
                if (mark[j] != i) mark[j] = i, acc[j] = 0.0, c->col[at++] = j;
                acc[j] += a->val[k] * b->val[l];
            }
        qsort(c->col + start, (size_t)(at - start), sizeof(int), cmp_int);
        int kept = start;
        for (int k = start; k < at; k++)
            if (!drop_zeros || acc[c->col[k]] != 0.0) c->col[kept] = c->col[k], c->val[kept++] = acc[c->col[k]];
        at = kept;
        c->ptr[i + 1] = at;
    }
    c->nnz = at;
    rc = 0;
done:
    free(mark), free(acc);
    return rc;
}

/* y = a x */
static void csr_apply(const mo_csr *a, const double *x, double *y)
{
    for (int i = 0; i < a->rows; i++) {
        double s = 0.0;
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) s += a->val[k] * x[a->col[k]];
        y[i] = s;
    }
}

void mo_fc_free(mo_fc_problem *p)
{
    if (!p) return;
    mo_csr_free(&p->W), mo_csr_free(&p->M), mo_csr_free(&p->H);
    free(p->q), free(p->mu), free(p->f), free(p->w), free(p->title), free(p->description);
    memset(p, 0, sizeof *p);
}

/* ---- checks ---- */

static mo_status check_csr(const mo_csr *a, const char *name, int rows, int cols, const char *what, char *err,
                           size_t err_size)
{
    if (a->rows != rows || a->cols != cols) {
        mo_fc_set_err(err, err_size, "%s: %s is %d x %d, expected %d x %d", what, name, a->rows, a->cols, rows, cols);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!a->ptr || a->nnz < 0 || (a->nnz > 0 && (!a->col || !a->val)) || a->ptr[0] != 0 || a->ptr[rows] != a->nnz) {
        mo_fc_set_err(err, err_size, "%s: %s is not a CSR matrix (missing arrays, or ptr not from 0 to nnz = %d)",
                      what, name, a->nnz);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < rows; i++) {
        if (a->ptr[i + 1] < a->ptr[i] || a->ptr[i + 1] > a->nnz) {
            mo_fc_set_err(err, err_size, "%s: %s's row pointers decrease at row %d", what, name, i);
            return MO_ERR_INVALID_ARGUMENT;
        }
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            if (a->col[k] < 0 || a->col[k] >= cols || (k > a->ptr[i] && a->col[k] <= a->col[k - 1])) {
                mo_fc_set_err(err, err_size,
                              "%s: %s's row %d has column %d out of range or out of order (columns must be sorted "
                              "and distinct, in 0..%d)",
                              what, name, i, a->col[k], cols - 1);
                return MO_ERR_INVALID_ARGUMENT;
            }
            if (!isfinite(a->val[k])) {
                mo_fc_set_err(err, err_size, "%s: %s has a non-finite value at (%d, %d)", what, name, i, a->col[k]);
                return MO_ERR_INVALID_ARGUMENT;
            }
        }
    }
    return MO_OK;
}

static mo_status check_vec(const double *x, int n, const char *name, const char *what, char *err, size_t err_size)
{
    if (!x) {
        mo_fc_set_err(err, err_size, "%s: %s is missing", what, name);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            mo_fc_set_err(err, err_size, "%s: %s[%d] is not finite", what, name, i);
            return MO_ERR_INVALID_ARGUMENT;
        }
    return MO_OK;
}

mo_status mo_fc_check(const mo_fc_problem *p, int which, const char *what, char *err, size_t err_size)
{
    mo_status st;
    if (p->nc < 1 || p->nc > INT_MAX / 3) {
        mo_fc_set_err(err, err_size, "%s: the number of contacts %d is out of range (must be >= 1)", what, p->nc);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int n = 3 * p->nc;
    if ((st = check_vec(p->mu, p->nc, "mu", what, err, err_size)) != MO_OK) return st;
    for (int i = 0; i < p->nc; i++)
        if (p->mu[i] < 0.0) {
            mo_fc_set_err(err, err_size, "%s: mu[%d] = %g is negative (friction coefficients must be >= 0)", what, i,
                          p->mu[i]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    if (which & MO_FC_CHECK_GLOBAL) {
        if (p->ndof < 0) {
            mo_fc_set_err(err, err_size, "%s: ndof = %d is negative", what, p->ndof);
            return MO_ERR_INVALID_ARGUMENT;
        }
        if (p->ndof > 0) {
            if ((st = check_csr(&p->M, "M", p->ndof, p->ndof, what, err, err_size)) != MO_OK) return st;
            if ((st = check_csr(&p->H, "H", p->ndof, n, what, err, err_size)) != MO_OK) return st;
            if ((st = check_vec(p->f, p->ndof, "f", what, err, err_size)) != MO_OK) return st;
            if ((st = check_vec(p->w, n, "w", what, err, err_size)) != MO_OK) return st;
        }
    }
    if (which & MO_FC_CHECK_LOCAL) {
        if (p->W.rows != n || p->W.cols != n) {
            mo_fc_set_err(err, err_size, "%s: W is %d x %d but %d contacts need %d x %d", what, p->W.rows, p->W.cols,
                          p->nc, n, n);
            return MO_ERR_INVALID_ARGUMENT;
        }
        if ((st = check_csr(&p->W, "W", n, n, what, err, err_size)) != MO_OK) return st;
        if ((st = check_vec(p->q, n, "q", what, err, err_size)) != MO_OK) return st;
    }
    return MO_OK;
}

/* ---- the Siconos error ---- */

/* projection onto {|x_t| <= mu x_n}, in place */
static void cone_project(double *x, double mu)
{
    double s = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (mu == 0.0) {
        x[0] = x[0] > 0.0 ? x[0] : 0.0;
        x[1] = x[2] = 0.0;
    } else if (mu * s <= -x[0]) {
        x[0] = x[1] = x[2] = 0.0;
    } else if (s <= mu * x[0]) {
        /* inside */
    } else {
        double a = (x[0] + mu * s) / (1.0 + mu * mu);
        x[0] = a;
        x[1] *= mu * a / s;
        x[2] *= mu * a / s;
    }
}

double mo_fc_error(const mo_fc_problem *p, const double *r, double *u)
{
    if (!p || !r || p->nc < 1 || !p->W.ptr || !p->q || !p->mu || p->W.rows != 3 * p->nc) return NAN;
    const mo_csr *W = &p->W;
    double e2 = 0.0, q2 = 0.0, r2 = 0.0, u2 = 0.0;
    for (int c = 0; c < p->nc; c++) {
        double uc[3], x[3];
        for (int a = 0; a < 3; a++) {
            int i = 3 * c + a;
            double s = 0.0;
            for (int k = W->ptr[i]; k < W->ptr[i + 1]; k++) s += W->val[k] * r[W->col[k]];
            uc[a] = s + p->q[i];
            if (u) u[i] = uc[a];
            q2 += p->q[i] * p->q[i];
            r2 += r[i] * r[i];
            u2 += uc[a] * uc[a];
        }
        /* De Saxce's modified velocity, natural map with rho = 1 */
        const double mu = p->mu[c], *rc = r + 3 * c;
        double ut = sqrt(uc[1] * uc[1] + uc[2] * uc[2]);
        x[0] = rc[0] - (uc[0] + mu * ut);
        x[1] = rc[1] - uc[1];
        x[2] = rc[2] - uc[2];
        cone_project(x, mu);
        for (int a = 0; a < 3; a++) e2 += (rc[a] - x[a]) * (rc[a] - x[a]);
    }
    double e = sqrt(e2), scale = sqrt(q2);
    if (sqrt(r2) > scale) scale = sqrt(r2);
    if (sqrt(u2) > scale) scale = sqrt(u2);
    return scale > DBL_EPSILON ? e / scale : e;
}

/* ---- global -> local ---- */

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* inverse of the s x s row-major a in place (Gauss-Jordan, partial pivoting);
   false when a pivot is below s eps max|a| (singular to working precision) */
static bool dense_invert(double *a, int s, double *work /* s*s */, int *perm /* s */)
{
    double scale = 0.0;
    for (int k = 0; k < s * s; k++)
        if (fabs(a[k]) > scale) scale = fabs(a[k]);
    for (int i = 0; i < s; i++) perm[i] = i;
    /* work = identity; row operations on a applied to work too */
    for (int k = 0; k < s * s; k++) work[k] = 0.0;
    for (int i = 0; i < s; i++) work[i * s + i] = 1.0;
    for (int c = 0; c < s; c++) {
        int piv = c;
        for (int i = c + 1; i < s; i++)
            if (fabs(a[i * s + c]) > fabs(a[piv * s + c])) piv = i;
        if (!(fabs(a[piv * s + c]) > s * DBL_EPSILON * scale)) return false;
        if (piv != c)
            for (int j = 0; j < s; j++) {
                double t = a[c * s + j];
                a[c * s + j] = a[piv * s + j], a[piv * s + j] = t;
                t = work[c * s + j];
                work[c * s + j] = work[piv * s + j], work[piv * s + j] = t;
            }
        double d = 1.0 / a[c * s + c];
        for (int j = 0; j < s; j++) a[c * s + j] *= d, work[c * s + j] *= d;
        for (int i = 0; i < s; i++) {
            if (i == c || a[i * s + c] == 0.0) continue;
            double f = a[i * s + c];
            for (int j = 0; j < s; j++) a[i * s + j] -= f * a[c * s + j], work[i * s + j] -= f * work[c * s + j];
        }
    }
    for (int k = 0; k < s * s; k++) {
        if (!isfinite(work[k])) return false;
        a[k] = work[k];
    }
    return true;
}

mo_status mo_fc_reduce_global(mo_fc_problem *p, const char *what, char *err, size_t err_size)
{
    const int nd = p->ndof, m = 3 * p->nc;
    const mo_csr *M = &p->M;
    mo_status st = MO_ERR_OUT_OF_MEMORY;
    int *parent = malloc((size_t)nd * sizeof(int)), *start = calloc((size_t)nd + 2, sizeof(int));
    int *members = malloc((size_t)nd * sizeof(int)), *pos = malloc((size_t)nd * sizeof(int));
    int *ti = NULL, *tj = NULL, *perm = NULL;
    double *tv = NULL, *blk = NULL, *work = NULL, *mf = NULL;
    mo_csr Minv = {0}, G = {0}, Ht = {0};
    if (!parent || !start || !members || !pos) goto oom;

    /* blocks: connected components of M's pattern (symmetrised) */
    for (int i = 0; i < nd; i++) parent[i] = i;
    for (int i = 0; i < nd; i++)
        for (int k = M->ptr[i]; k < M->ptr[i + 1]; k++) {
            int a = uf_find(parent, i), b = uf_find(parent, M->col[k]);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    for (int i = 0; i < nd; i++) start[uf_find(parent, i) + 2]++;
    for (int i = 0; i < nd; i++) start[i + 2] += start[i + 1];
    /* members of the block rooted at r: members[start[r] .. start[r + 1]), ascending */
    size_t total = 0;
    for (int i = 0; i < nd; i++) {
        int r = uf_find(parent, i), at = start[r + 1]++;
        members[at] = i;
        pos[i] = at;
    }
    for (int r = 0; r < nd; r++) {
        int s = start[r + 1] - start[r];
        if (s > MO_FC_MAX_MASS_BLOCK) {
            mo_fc_set_err(err, err_size,
                          "%s: M couples %d dofs in one block (dof %d and %d more); only block-diagonal M with blocks "
                          "of at most %d dofs is supported",
                          what, s, members[start[r]], s - 1, MO_FC_MAX_MASS_BLOCK);
            st = MO_ERR_UNSUPPORTED;
            goto fail;
        }
        total += (size_t)s * (size_t)s;
    }

    /* invert each block densely; M^-1 as triplets, block by block */
    ti = malloc((total + 1) * sizeof(int));
    tj = malloc((total + 1) * sizeof(int));
    tv = malloc((total + 1) * sizeof(double));
    blk = malloc(MO_FC_MAX_MASS_BLOCK * MO_FC_MAX_MASS_BLOCK * sizeof(double));
    work = malloc(MO_FC_MAX_MASS_BLOCK * MO_FC_MAX_MASS_BLOCK * sizeof(double));
    perm = malloc(MO_FC_MAX_MASS_BLOCK * sizeof(int));
    if (!ti || !tj || !tv || !blk || !work || !perm) goto oom;
    size_t nt = 0;
    for (int r = 0; r < nd; r++) {
        int s = start[r + 1] - start[r], b0 = start[r];
        if (s == 0) continue;
        for (int k = 0; k < s * s; k++) blk[k] = 0.0;
        for (int a = 0; a < s; a++) {
            int i = members[b0 + a];
            for (int k = M->ptr[i]; k < M->ptr[i + 1]; k++) blk[a * s + (pos[M->col[k]] - b0)] = M->val[k];
        }
        if (!dense_invert(blk, s, work, perm)) {
            if (s == 1)
                mo_fc_set_err(err, err_size, "%s: M is singular: its diagonal entry at dof %d is %g", what,
                              members[b0], M->ptr[members[b0] + 1] > M->ptr[members[b0]] ? M->val[M->ptr[members[b0]]] : 0.0);
            else
                mo_fc_set_err(err, err_size, "%s: M is singular: its %d x %d block at dofs %d..%d cannot be inverted",
                              what, s, s, members[b0], members[b0 + s - 1]);
            st = MO_ERR_IO;
            goto fail;
        }
        for (int a = 0; a < s; a++)
            for (int c = 0; c < s; c++) {
                ti[nt] = members[b0 + a], tj[nt] = members[b0 + c], tv[nt++] = blk[a * s + c];
            }
    }
    if (mo_csr_from_triplets(&Minv, nd, nd, nt, ti, tj, tv, false) != 0) goto oom;

    /* W = H^T (M^-1 H), q = H^T (M^-1 f) + w */
    if (csr_multiply(&Minv, &p->H, &G, false) != 0 || csr_transpose(&p->H, &Ht) != 0) goto oom;
    mo_csr_free(&p->W);
    if (csr_multiply(&Ht, &G, &p->W, true) != 0) goto oom;
    free(p->q);
    p->q = malloc((size_t)m * sizeof(double));
    mf = malloc(((size_t)nd + 1) * sizeof(double));
    if (!p->q || !mf) goto oom;
    csr_apply(&Minv, p->f, mf);
    csr_apply(&Ht, mf, p->q);
    for (int i = 0; i < m; i++) p->q[i] += p->w[i];
    st = MO_OK;
    goto done;

oom:
    mo_fc_set_err(err, err_size, "%s: out of memory reducing the global problem (%d dofs, %d contacts)", what, nd,
                  p->nc);
    st = MO_ERR_OUT_OF_MEMORY;
fail:
done:
    free(parent), free(start), free(members), free(pos), free(ti), free(tj), free(tv), free(blk), free(work), free(perm),
        free(mf);
    mo_csr_free(&Minv), mo_csr_free(&G), mo_csr_free(&Ht);
    return st;
}

/* ---- HDF5 ---- */

#ifdef MO_HAVE_FCLIB

typedef struct h5_reader {
    hid_t file;
    const char *path;
    char *err;
    size_t err_size;
    mo_status st; /* of the first failure */
} h5_reader;

/* true when every link on the way to name exists */
static bool h5_exists(hid_t file, const char *name)
{
    char buf[256];
    size_t len = strlen(name);
    if (len >= sizeof buf) return false;
    memcpy(buf, name, len + 1);
    for (size_t i = 1; i <= len; i++)
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            htri_t e = H5Lexists(file, buf, H5P_DEFAULT);
            buf[i] = c;
            if (e <= 0) return false;
        }
    return true;
}

static bool h5_fail(h5_reader *c, mo_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool h5_fail(h5_reader *c, mo_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mo_fc_set_err(c->err, c->err_size, "mo_fc_read: '%s': %s", c->path, msg);
    c->st = st;
    return false;
}

/* reads the numeric dataset name into a new array of its length (*count);
   integer datasets only when as_int */
static bool h5_read_array(h5_reader *c, const char *name, bool as_int, void **out, int *count)
{
    *out = NULL;
    *count = 0;
    if (!h5_exists(c->file, name)) return h5_fail(c, MO_ERR_IO, "HDF5 dataset %s is missing", name);
    hid_t d = H5Dopen2(c->file, name, H5P_DEFAULT);
    if (d < 0) return h5_fail(c, MO_ERR_IO, "%s is not an HDF5 dataset", name);
    hid_t t = H5Dget_type(d), s = H5Dget_space(d), pl = H5Dget_create_plist(d);
    H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    size_t fes = t >= 0 ? H5Tget_size(t) : 0;
    int nfilters = pl >= 0 ? H5Pget_nfilters(pl) : 0;
    /* the bytes the dataset keeps in the file: a declared extent beyond what they can
       hold (unwritten chunks read as fill values) is refused before allocating for it */
    double stored = (double)H5Dget_storage_size(d);
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    if (pl >= 0) H5Pclose(pl);
    bool ok = false;
    if (cl != H5T_INTEGER && (as_int || cl != H5T_FLOAT)) {
        h5_fail(c, MO_ERR_IO, "HDF5 dataset %s is not %s", name, as_int ? "an integer array" : "a numeric array");
    } else if (np < 0 || np > INT_MAX - 1) {
        h5_fail(c, MO_ERR_IO, "HDF5 dataset %s has an unreadable size", name);
    } else if ((double)np * (double)fes > (nfilters > 0 ? MO_FC_MAX_FILTER_RATIO : 1.0) * stored) {
        h5_fail(c, MO_ERR_IO,
                "HDF5 dataset %s declares %lld values (%.0f bytes) but stores %.0f bytes in the file%s", name,
                (long long)np, (double)np * (double)fes, stored,
                nfilters > 0 ? " (compressed data may expand at most " MO_FC_MAX_FILTER_RATIO_TEXT " times)" : "");
    } else {
        size_t es = as_int ? sizeof(int) : sizeof(double);
        *out = malloc(((size_t)np + 1) * es);
        if (!*out) {
            h5_fail(c, MO_ERR_OUT_OF_MEMORY, "out of memory for the %lld values of %s", (long long)np, name);
        } else if (np > 0 &&
                   H5Dread(d, as_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
            h5_fail(c, MO_ERR_IO, "HDF5 dataset %s cannot be read", name);
        } else {
            *count = (int)np;
            ok = true;
        }
    }
    H5Dclose(d);
    if (!ok) free(*out), *out = NULL;
    return ok;
}

static bool h5_read_int(h5_reader *c, const char *name, int *v)
{
    int *a, n;
    if (!h5_read_array(c, name, true, (void **)&a, &n)) return false;
    if (n < 1) {
        free(a);
        return h5_fail(c, MO_ERR_IO, "HDF5 dataset %s is empty", name);
    }
    *v = a[0];
    free(a);
    return true;
}

static bool h5_read_vector(h5_reader *c, const char *name, int expected, double **out)
{
    int n;
    if (!h5_read_array(c, name, false, (void **)out, &n)) return false;
    if (expected >= 0 && n != expected) {
        free(*out), *out = NULL;
        return h5_fail(c, MO_ERR_IO, "HDF5 dataset %s has %d values, expected %d", name, n, expected);
    }
    return true;
}

/* an optional string; NULL when absent or not a scalar string. false only when out of memory */
static bool h5_read_string(h5_reader *c, const char *name, char **out)
{
    *out = NULL;
    if (!h5_exists(c->file, name)) return true;
    hid_t d = H5Dopen2(c->file, name, H5P_DEFAULT);
    if (d < 0) return true;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d), mt = -1;
    bool ok = true;
    if (t >= 0 && s >= 0 && H5Tget_class(t) == H5T_STRING && H5Sget_simple_extent_npoints(s) == 1) {
        mt = H5Tcopy(H5T_C_S1);
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            if (mt >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 &&
                v) {
                *out = malloc(strlen(v) + 1);
                if (*out) strcpy(*out, v);
                else ok = false;
                H5Dvlen_reclaim(mt, s, H5P_DEFAULT, &v);
            }
        } else {
            size_t sz = H5Tget_size(t);
            if (sz > 0 && sz < ((size_t)1 << 24)) {
                *out = calloc(sz + 1, 1);
                if (!*out) ok = false;
                else if (mt < 0 || H5Tset_size(mt, sz) < 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
                    free(*out), *out = NULL;
            }
        }
    }
    if (mt >= 0) H5Tclose(mt);
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    if (!ok) h5_fail(c, MO_ERR_OUT_OF_MEMORY, "out of memory reading %s", name);
    return ok;
}

/* the FCLIB matrix in group g: CSR (nz = -2), CSC (nz = -1) or nz triplets; its sizes
   must be rows x cols (what the contacts and dofs need, known before: why says so),
   checked before anything is allocated for it */
static bool h5_read_matrix(h5_reader *c, const char *g, int rows, int cols, const char *why, mo_csr *a)
{
    char name[128];
    int m, n, nz, lp = 0, li = 0, lx = 0;
    int *p = NULL, *ix = NULL, *ri = NULL, *cj = NULL;
    double *x = NULL;
    bool ok = false;
#define H5_NAME(leaf) (snprintf(name, sizeof name, "%s/%s", g, leaf), name)
    if (!h5_read_int(c, H5_NAME("m"), &m) || !h5_read_int(c, H5_NAME("n"), &n) || !h5_read_int(c, H5_NAME("nz"), &nz))
        return false;
    if (m < 0 || n < 0) return h5_fail(c, MO_ERR_IO, "HDF5 matrix %s has sizes %d x %d", g, m, n);
    if (m != rows || n != cols)
        return h5_fail(c, MO_ERR_IO, "HDF5 matrix %s is %d x %d but %s need %d x %d", g, m, n, why, rows, cols);
    if (nz < -2) return h5_fail(c, MO_ERR_IO, "HDF5 matrix %s has storage nz = %d (not -2 CSR, -1 CSC or >= 0 triplets)", g, nz);
    if (!h5_read_array(c, H5_NAME("p"), true, (void **)&p, &lp) || !h5_read_array(c, H5_NAME("i"), true, (void **)&ix, &li) ||
        !h5_read_array(c, H5_NAME("x"), false, (void **)&x, &lx))
        goto done;
#undef H5_NAME
    int count;
    if (nz < 0) {
        /* compressed: p has (CSR) m + 1 or (CSC) n + 1 pointers */
        int outer = nz == -2 ? m : n, inner = nz == -2 ? n : m;
        if (lp < outer + 1) {
            h5_fail(c, MO_ERR_IO, "HDF5 matrix %s (%s) has %d pointers in p, expected %d", g, nz == -2 ? "CSR" : "CSC",
                    lp, outer + 1);
            goto done;
        }
        count = p[outer];
        for (int o = 0; o <= outer; o++)
            if (p[0] != 0 || (o > 0 && p[o] < p[o - 1]) || count > li || count > lx) {
                h5_fail(c, MO_ERR_IO,
                        "HDF5 matrix %s has bad pointers p (must rise from 0 to at most its %d stored entries; bad at "
                        "%d)",
                        g, li < lx ? li : lx, o);
                goto done;
            }
        ri = malloc(((size_t)count + 1) * sizeof(int));
        cj = malloc(((size_t)count + 1) * sizeof(int));
        if (!ri || !cj) {
            h5_fail(c, MO_ERR_OUT_OF_MEMORY, "out of memory for matrix %s", g);
            goto done;
        }
        for (int o = 0; o < outer; o++)
            for (int k = p[o]; k < p[o + 1]; k++) {
                if (ix[k] < 0 || ix[k] >= inner) {
                    h5_fail(c, MO_ERR_IO, "HDF5 matrix %s has index %d out of range 0..%d at entry %d", g, ix[k],
                            inner - 1, k);
                    goto done;
                }
                ri[k] = nz == -2 ? o : ix[k];
                cj[k] = nz == -2 ? ix[k] : o;
            }
    } else {
        /* triplets: i = row, p = column, the first nz entries */
        count = nz;
        if (li < nz || lp < nz || lx < nz) {
            h5_fail(c, MO_ERR_IO, "HDF5 matrix %s has nz = %d triplets but i, p, x hold %d, %d, %d", g, nz, li, lp, lx);
            goto done;
        }
        for (int k = 0; k < nz; k++)
            if (ix[k] < 0 || ix[k] >= m || p[k] < 0 || p[k] >= n) {
                h5_fail(c, MO_ERR_IO, "HDF5 matrix %s has entry %d at (%d, %d), outside %d x %d", g, k, ix[k], p[k], m,
                        n);
                goto done;
            }
        ri = ix, cj = p, ix = p = NULL;
    }
    if (mo_csr_from_triplets(a, m, n, (size_t)count, ri, cj, x, false) != 0) {
        h5_fail(c, MO_ERR_OUT_OF_MEMORY, "out of memory for matrix %s", g);
        goto done;
    }
    ok = true;
done:
    free(p), free(ix), free(x), free(ri), free(cj);
    return ok;
}

static mo_status h5_read_problem(const char *path, mo_fc_problem *out, char *err, size_t err_size)
{
    h5_reader c = {.path = path, .err = err, .err_size = err_size, .st = MO_ERR_IO};
    char what[64 + 4096];
    snprintf(what, sizeof what, "mo_fc_read: '%s'", path);
    c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file < 0) {
        mo_fc_set_err(err, err_size, "mo_fc_read: '%s' has the HDF5 signature but HDF5 cannot open it (truncated or damaged?)",
                      path);
        return MO_ERR_IO;
    }
    const bool local = h5_exists(c.file, "/fclib_local"), global = !local && h5_exists(c.file, "/fclib_global");
    const char *g = local ? "/fclib_local" : "/fclib_global";
    char name[64];
#define H5_NAME(leaf) (snprintf(name, sizeof name, "%s/%s", g, leaf), name)
    int dim, nmu;
    if (!local && !global) {
        h5_fail(&c, MO_ERR_IO, "the HDF5 file has neither a /fclib_local nor a /fclib_global group");
        goto fail;
    }
    if (!h5_read_int(&c, H5_NAME("spacedim"), &dim)) goto fail;
    if (dim != 3) {
        h5_fail(&c, MO_ERR_UNSUPPORTED, "spacedim %d is not supported (only 3D friction, spacedim 3)", dim);
        goto fail;
    }
    if (local && (h5_exists(c.file, "/fclib_local/V") || h5_exists(c.file, "/fclib_local/R"))) {
        h5_fail(&c, MO_ERR_UNSUPPORTED, "mixed local problems (/fclib_local/V, R) are not supported");
        goto fail;
    }
    if (global && h5_exists(c.file, "/fclib_global/G")) {
        h5_fail(&c, MO_ERR_UNSUPPORTED, "global problems with equality constraints (/fclib_global/G) are not supported");
        goto fail;
    }
    /* mu gives nc */
    {
        int n;
        if (!h5_read_array(&c, H5_NAME("vectors/mu"), false, (void **)&out->mu, &nmu)) goto fail;
        if (nmu < 1 || nmu > INT_MAX / 3) {
            h5_fail(&c, MO_ERR_IO, "HDF5 dataset %s has %d values (one per contact, at least 1)", name, nmu);
            goto fail;
        }
        out->nc = nmu;
        n = 3 * nmu;
        char why[96];
        if (local) {
            snprintf(why, sizeof why, "%d contacts", nmu);
            if (!h5_read_matrix(&c, H5_NAME("W"), n, n, why, &out->W) ||
                !h5_read_vector(&c, H5_NAME("vectors/q"), n, &out->q))
                goto fail;
        } else {
            /* f gives the dofs: M and H are checked against it before they are read */
            if (!h5_read_array(&c, H5_NAME("vectors/f"), false, (void **)&out->f, &out->ndof)) goto fail;
            if (out->ndof < 1) {
                h5_fail(&c, MO_ERR_IO, "HDF5 dataset %s is empty (0 dofs)", name);
                goto fail;
            }
            snprintf(why, sizeof why, "%d dofs (the length of f)", out->ndof);
            if (!h5_read_matrix(&c, H5_NAME("M"), out->ndof, out->ndof, why, &out->M)) goto fail;
            snprintf(why, sizeof why, "%d dofs and %d contacts", out->ndof, nmu);
            if (!h5_read_matrix(&c, H5_NAME("H"), out->ndof, n, why, &out->H) ||
                !h5_read_vector(&c, H5_NAME("vectors/w"), n, &out->w))
                goto fail;
        }
    }
    if (!h5_read_string(&c, H5_NAME("info/title"), &out->title) ||
        !h5_read_string(&c, H5_NAME("info/description"), &out->description))
        goto fail;
#undef H5_NAME
    H5Fclose(c.file);
    c.file = -1;
    mo_status st;
    if (global) {
        if ((st = mo_fc_check(out, MO_FC_CHECK_GLOBAL, what, err, err_size)) != MO_OK) goto fail_st;
        if ((st = mo_fc_reduce_global(out, what, err, err_size)) != MO_OK) goto fail_st;
    }
    if ((st = mo_fc_check(out, MO_FC_CHECK_LOCAL, what, err, err_size)) != MO_OK) goto fail_st;
    return MO_OK;

fail:
    st = c.st;
fail_st:
    if (c.file >= 0) H5Fclose(c.file);
    mo_fc_free(out);
    /* a bad problem read from a file is a bad file */
    return st == MO_ERR_INVALID_ARGUMENT ? MO_ERR_IO : st;
}

#ifdef MO_FC_PROBE_CHILD
/* libhdf5 (1.10.8, Debian 12's) trusts a file's object headers and heaps: a
   damaged local heap made it dereference NULL inside H5Lexists (found by
   fuzz_fclib, fuzz/regressions/fclib/fclib_hdf5_heap_segv.h5). HDF5 files are
   therefore read first in a forked child with default signal actions: when
   the child dies, the caller gets MO_ERR_IO and a sentence instead of a
   crash; when it finishes, the file is read here (libhdf5 is deterministic,
   and FCLIB files read in milliseconds). Returns MO_OK when the child read to
   the end (whatever it concluded) or could not be started. */
static mo_status h5_probe_in_child(const char *path, char *err, size_t err_size)
{
    int fd[2];
    if (pipe(fd) != 0) return MO_OK;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return MO_OK;
    }
    if (pid == 0) {
        close(fd[0]);
        static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &dfl, NULL);
        struct rlimit nocore = {0, 0};
        setrlimit(RLIMIT_CORE, &nocore);
        mo_fc_problem p;
        memset(&p, 0, sizeof p);
        char e[8];
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        if (h5_read_problem(path, &p, e, sizeof e) == MO_OK) mo_fc_free(&p);
        char done = 'K';
        ssize_t w = write(fd[1], &done, 1);
        _exit(w == 1 ? 0 : 1);
    }
    close(fd[1]);
    char got = 0;
    ssize_t r;
    do r = read(fd[0], &got, 1);
    while (r < 0 && errno == EINTR);
    close(fd[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (r == 1 && got == 'K') return MO_OK;
    if (WIFSIGNALED(ws))
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s': the HDF5 library crashed reading it (signal %d in a child process): the file "
                      "is damaged",
                      path, WTERMSIG(ws));
    else
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s': the HDF5 library stopped reading it (exit status %d in a child process): the "
                      "file is damaged",
                      path, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    return MO_ERR_IO;
}
#endif

/* ---- HDF5 writer ---- */

static bool h5w_data(hid_t file, const char *name, hid_t ftype, hid_t mtype, const void *data, size_t n)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = H5Screate_simple(1, dims, NULL);
    if (s < 0) return false;
    hid_t d = H5Dcreate2(file, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && (n == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (d >= 0) H5Dclose(d);
    H5Sclose(s);
    return ok;
}

static bool h5w_ints(hid_t file, const char *name, const int *v, size_t n)
{
    return h5w_data(file, name, H5T_STD_I32LE, H5T_NATIVE_INT, v, n);
}

static bool h5w_doubles(hid_t file, const char *name, const double *v, size_t n)
{
    return h5w_data(file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, n);
}

static bool h5w_group(hid_t file, const char *name)
{
    hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return false;
    H5Gclose(g);
    return true;
}

/* a scalar fixed-length null-terminated string, as libfclib writes them */
static bool h5w_string(hid_t file, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), d = -1;
    bool ok = t >= 0 && s >= 0 && H5Tset_size(t, strlen(v) + 1) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0;
    if (ok) d = H5Dcreate2(file, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = ok && d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
    if (d >= 0) H5Dclose(d);
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    return ok;
}

/* matrix group g: CSR (nz = -2) or, when triplets, nz = nzmax = nnz with i = row, p = column */
static bool h5w_matrix(hid_t file, const char *g, const mo_csr *a, bool triplets)
{
    char name[64];
    int nz = triplets ? a->nnz : -2;
#define H5_NAME(leaf) (snprintf(name, sizeof name, "%s/%s", g, leaf), name)
    bool ok = h5w_group(file, g) && h5w_ints(file, H5_NAME("m"), &a->rows, 1) &&
              h5w_ints(file, H5_NAME("n"), &a->cols, 1) && h5w_ints(file, H5_NAME("nz"), &nz, 1) &&
              h5w_ints(file, H5_NAME("nzmax"), &a->nnz, 1) && h5w_doubles(file, H5_NAME("x"), a->val, (size_t)a->nnz);
    if (!ok) return false;
    if (!triplets)
        return h5w_ints(file, H5_NAME("p"), a->ptr, (size_t)a->rows + 1) &&
               h5w_ints(file, H5_NAME("i"), a->col, (size_t)a->nnz);
    int *rows = malloc(((size_t)a->nnz + 1) * sizeof(int));
    if (!rows) return false;
    for (int i = 0; i < a->rows; i++)
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) rows[k] = i;
    ok = h5w_ints(file, H5_NAME("i"), rows, (size_t)a->nnz) && h5w_ints(file, H5_NAME("p"), a->col, (size_t)a->nnz);
#undef H5_NAME
    free(rows);
    return ok;
}

static mo_status h5_write_problem(const char *path, const mo_fc_problem *p, char *err, size_t err_size)
{
    /* plain stdio first, for the system's reason when the file cannot be created */
    FILE *probe = fopen(path, "wb");
    if (!probe) {
        mo_fc_set_err(err, err_size, "mo_fc_write: cannot create '%s': %s", path, strerror(errno));
        return MO_ERR_IO;
    }
    fclose(probe);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        mo_fc_set_err(err, err_size, "mo_fc_write: HDF5 cannot create '%s'", path);
        remove(path);
        return MO_ERR_IO;
    }
    const bool global = p->ndof > 0;
    const int three = 3, n = 3 * p->nc;
    bool ok;
    if (global)
        ok = h5w_group(file, "/fclib_global") && h5w_ints(file, "/fclib_global/spacedim", &three, 1) &&
             h5w_matrix(file, "/fclib_global/M", &p->M, true) && h5w_matrix(file, "/fclib_global/H", &p->H, true) &&
             h5w_group(file, "/fclib_global/vectors") &&
             h5w_doubles(file, "/fclib_global/vectors/f", p->f, (size_t)p->ndof) &&
             h5w_doubles(file, "/fclib_global/vectors/w", p->w, (size_t)n) &&
             h5w_doubles(file, "/fclib_global/vectors/mu", p->mu, (size_t)p->nc);
    else
        ok = h5w_group(file, "/fclib_local") && h5w_ints(file, "/fclib_local/spacedim", &three, 1) &&
             h5w_matrix(file, "/fclib_local/W", &p->W, false) && h5w_group(file, "/fclib_local/vectors") &&
             h5w_doubles(file, "/fclib_local/vectors/q", p->q, (size_t)n) &&
             h5w_doubles(file, "/fclib_local/vectors/mu", p->mu, (size_t)p->nc);
    if (ok && (p->title || p->description)) {
        const char *g = global ? "/fclib_global/info" : "/fclib_local/info";
        char name[64];
        ok = h5w_group(file, g);
        if (ok && p->title) ok = h5w_string(file, (snprintf(name, sizeof name, "%s/title", g), name), p->title);
        if (ok && p->description)
            ok = h5w_string(file, (snprintf(name, sizeof name, "%s/description", g), name), p->description);
        if (ok) ok = h5w_string(file, (snprintf(name, sizeof name, "%s/math_info", g), name), "");
    }
    if (H5Fclose(file) < 0) ok = false;
    if (!ok) {
        mo_fc_set_err(err, err_size, "mo_fc_write: writing HDF5 file '%s' failed", path);
        remove(path);
        return MO_ERR_IO;
    }
    return MO_OK;
}

#endif /* MO_HAVE_FCLIB */

/* ---- entry points ---- */

mo_status mo_fc_read(const char *path, mo_fc_problem *out, char *err, size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) {
        mo_fc_set_err(err, err_size, "mo_fc_read: path and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        mo_fc_set_err(err, err_size, "mo_fc_read: cannot open '%s': %s", path, strerror(errno));
        return MO_ERR_IO;
    }
    /* the whole file: HDF5 is told by its signature at offset 0 */
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap + 1);
    while (buf) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        char *nb = cap < ((size_t)1 << 40) ? realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    if (!buf) {
        fclose(f);
        mo_fc_set_err(err, err_size, "mo_fc_read: out of memory reading '%s'", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        free(buf);
        mo_fc_set_err(err, err_size, "mo_fc_read: cannot read '%s': %s", path, strerror(e));
        return MO_ERR_IO;
    }
    fclose(f);
    buf[len] = '\0';

    if (len >= 8 && memcmp(buf, "\x89HDF\r\n\x1a\n", 8) == 0) {
        free(buf);
#ifdef MO_HAVE_FCLIB
        /* HDF5 prints its error stack by default: silenced for this call */
        H5E_auto2_t fn = NULL;
        void *data = NULL;
        H5Eget_auto2(H5E_DEFAULT, &fn, &data);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        mo_status st = MO_OK;
#ifdef MO_FC_PROBE_CHILD
        st = h5_probe_in_child(path, err, err_size);
#endif
        if (st == MO_OK) st = h5_read_problem(path, out, err, err_size);
        H5Eset_auto2(H5E_DEFAULT, fn, data);
        return st;
#else
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s' is an FCLIB HDF5 file and this Moreau was built without HDF5 (meson option "
                      "-Dfclib=enabled needs libhdf5-dev)",
                      path);
        return MO_ERR_UNSUPPORTED;
#endif
    }
    size_t k = 0;
    while (k < len && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\n' || buf[k] == '\r' || buf[k] == '\v' ||
                       buf[k] == '\f'))
        k++;
    mo_status st;
    if (k == len) {
        mo_fc_set_err(err, err_size, "mo_fc_read: '%s' is empty", path);
        st = MO_ERR_IO;
    } else {
        st = mo_fc_read_dat(path, buf, len, out, err, err_size);
        if (st == MO_ERR_INVALID_ARGUMENT) st = MO_ERR_IO;
    }
    free(buf);
    return st;
}

mo_status mo_fc_write(const char *path, const mo_fc_problem *p, char *err, size_t err_size)
{
    if (!path || !p) {
        mo_fc_set_err(err, err_size, "mo_fc_write: path and problem must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_status st = mo_fc_check(p, p->ndof > 0 ? MO_FC_CHECK_GLOBAL : MO_FC_CHECK_LOCAL, "mo_fc_write: the problem",
                               err, err_size);
    if (st != MO_OK) return st;
#ifdef MO_HAVE_FCLIB
    H5E_auto2_t fn = NULL;
    void *data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &fn, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    st = h5_write_problem(path, p, err, err_size);
    H5Eset_auto2(H5E_DEFAULT, fn, data);
    return st;
#else
    mo_fc_set_err(err, err_size,
                  "mo_fc_write: this Moreau was built without HDF5 (meson option -Dfclib=enabled needs libhdf5-dev), "
                  "so '%s' cannot be written; mo_fc_write_dat writes the Siconos text form",
                  path);
    return MO_ERR_UNSUPPORTED;
#endif
}
