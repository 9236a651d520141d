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
 * libsuitesparse-dev) factors A = L L^T and solves; the matrix, its symbolic
 * analysis and the solve's workspaces are kept in the owner's cache
 * (mo_newton_system.chol) and the pattern is analysed again only when it
 * changes (see "what is kept between calls"). A is symmetric positive definite when every row has
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

/* ---- what is kept between calls ----
 * One factored form (Schur or primal): the triplets of the last call (their
 * (i, j) are the pattern's key), the CSC matrix CHOLMOD built from them and
 * where each triplet lands in it, the factor, and the solve's dense
 * workspaces. While the pattern stays the same (within a step's Newton
 * iterations, and from step to step while the contacts do), a call refills
 * the matrix's values from the triplets (summed in triplet order, as
 * cholmod_triplet_to_sparse sums duplicates) and factors it numerically with
 * the kept symbolic analysis: no allocation, no new analysis. */
typedef struct chol_form {
    cholmod_triplet *T;
    mo_buf key;          /* (2 nnz ints) the (i, j) of the pattern A was built for */
    size_t nkey;         /* triplets of that pattern */
    cholmod_sparse *A;
    mo_buf map;          /* (nnz size_t) each triplet's index into A->x */
    mo_buf first;        /* (nnz bytes) 1: the first triplet of its entry */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
} chol_form;

struct mo_newton_chol {
    cholmod_common cm;
    chol_form f[2];      /* [0] the Schur form, [1] the primal form */
    mo_buf cp, cr, ck, rres, seen;
    long analyses, factorisations;
};

static mo_newton_chol *chol_create(void)
{
    mo_newton_chol *c = (mo_newton_chol *)calloc(1, sizeof *c);
    if (!c) return NULL;
    cholmod_start(&c->cm);
    c->cm.print = 0;
    c->cm.nmethods = 1; /* AMD only: METIS's extra trial costs more than it saves on these patterns */
    c->cm.method[0].ordering = CHOLMOD_AMD;
    return c;
}

void mo_newton_chol_free(void *p)
{
    mo_newton_chol *c = (mo_newton_chol *)p;
    if (!c) return;
    for (int k = 0; k < 2; k++) {
        chol_form *f = &c->f[k];
        if (f->T) cholmod_free_triplet(&f->T, &c->cm);
        if (f->A) cholmod_free_sparse(&f->A, &c->cm);
        if (f->L) cholmod_free_factor(&f->L, &c->cm);
        if (f->B) cholmod_free_dense(&f->B, &c->cm);
        if (f->X) cholmod_free_dense(&f->X, &c->cm);
        if (f->Y) cholmod_free_dense(&f->Y, &c->cm);
        if (f->E) cholmod_free_dense(&f->E, &c->cm);
        mo_buf_free(&f->key);
        mo_buf_free(&f->map);
        mo_buf_free(&f->first);
    }
    mo_buf_free(&c->cp);
    mo_buf_free(&c->cr);
    mo_buf_free(&c->ck);
    mo_buf_free(&c->rres);
    mo_buf_free(&c->seen);
    cholmod_finish(&c->cm);
    free(c);
}

void mo_newton_chol_counts(const void *p, long *analyses, long *factorisations)
{
    const mo_newton_chol *c = (const mo_newton_chol *)p;
    if (analyses) *analyses = c ? c->analyses : 0;
    if (factorisations) *factorisations = c ? c->factorisations : 0;
}

/* f's triplets, room for nt in an n x n matrix; NULL out of memory */
static cholmod_triplet *form_triplets(chol_form *f, cholmod_common *cm, int n, size_t nt)
{
    if (f->T && ((int)f->T->nrow != n || f->T->nzmax < nt)) cholmod_free_triplet(&f->T, cm);
    if (!f->T) f->T = cholmod_allocate_triplet((size_t)n, (size_t)n, nt > 0 ? nt : 1, 1, CHOLMOD_REAL, cm);
    return f->T;
}

/* f's dense vector *d of n rows (allocated when missing or of another size) */
static cholmod_dense *form_dense(cholmod_dense **d, cholmod_common *cm, int n)
{
    if (*d && (int)(*d)->nrow != n) cholmod_free_dense(d, cm);
    if (!*d) *d = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, cm);
    return *d;
}

/* the matrix of f's triplets (T->nnz of them) factored: its pattern built and analysed when it is new,
   else its values refilled. 0, 1 not positive definite, -1 out of memory */
static int form_factor(mo_newton_chol *c, chol_form *f)
{
    cholmod_common *cm = &c->cm;
    const cholmod_triplet *T = f->T;
    const size_t nt = T->nnz;
    const int *ti = (const int *)T->i, *tj = (const int *)T->j;
    const double *tx = (const double *)T->x;
    bool same = f->A && f->L && f->nkey == nt;
    const int *key = (const int *)f->key.p;
    for (size_t k = 0; same && k < nt; k++) same = key[2 * k] == ti[k] && key[2 * k + 1] == tj[k];
    if (same) {
        double *ax = (double *)f->A->x;
        const size_t *map = (const size_t *)f->map.p;
        const unsigned char *first = (const unsigned char *)f->first.p;
        for (size_t k = 0; k < nt; k++) {
            if (first[k]) ax[map[k]] = tx[k];
            else ax[map[k]] += tx[k];
        }
    } else {
        if (f->A) cholmod_free_sparse(&f->A, cm);
        if (f->L) cholmod_free_factor(&f->L, cm);
        f->nkey = 0;
        if (mo_buf_reserve(&f->key, 2 * nt * sizeof(int) + 1) || mo_buf_reserve(&f->map, nt * sizeof(size_t) + 1) ||
            mo_buf_reserve(&f->first, nt + 1))
            return -1;
        f->A = cholmod_triplet_to_sparse(f->T, nt, cm);
        if (!f->A) return -1;
        /* where each triplet landed (A's columns are sorted), and which one opened its entry */
        const int *ap = (const int *)f->A->p, *ai = (const int *)f->A->i;
        const size_t nz = (size_t)ap[f->A->ncol];
        if (mo_buf_reserve(&c->seen, nz + 1)) return -1;
        unsigned char *seen = (unsigned char *)c->seen.p;
        memset(seen, 0, nz + 1);
        size_t *map = (size_t *)f->map.p;
        unsigned char *first = (unsigned char *)f->first.p;
        int *k2 = (int *)f->key.p;
        for (size_t k = 0; k < nt; k++) {
            int lo = ap[tj[k]], hi = ap[tj[k] + 1] - 1;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (ai[mid] < ti[k]) lo = mid + 1;
                else hi = mid;
            }
            map[k] = (size_t)lo;
            first[k] = !seen[lo];
            seen[lo] = 1;
            k2[2 * k] = ti[k];
            k2[2 * k + 1] = tj[k];
        }
        f->L = cholmod_analyze(f->A, cm);
        if (!f->L) return -1;
        f->nkey = nt;
        c->analyses++;
    }
    c->factorisations++;
    if (!cholmod_factorize(f->A, f->L, cm) || cm->status == CHOLMOD_NOT_POSDEF) return 1;
    return 0;
}

/* the primal form (file comment): 0 solved (*relres its relative residual in A), 1 not positive definite,
   -1 out of memory; work: n doubles */
static int solve_primal(const mo_newton_system *s, const double *b, double *x, size_t nt, mo_newton_chol *c,
                        double *work, double *relres)
{
    const int m = s->m, n = s->n;
    const double h = s->h, h2 = h * h;
    chol_form *f = &c->f[1];
    cholmod_common *cm = &c->cm;
    cholmod_triplet *T = form_triplets(f, cm, n, nt);
    if (!T) return -1;
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
    int status = form_factor(c, f);
    if (status) return status;
    cholmod_dense *B = form_dense(&f->B, cm, n);
    if (!B || mo_buf_reserve(&c->rres, ((size_t)m + 1) * sizeof(double))) return -1;
    double *rres = (double *)c->rres.p;
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
            double fr = h * rres[r] / s->cd[r];
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) bx[s->col[k]] += s->val[k] * fr;
        }
        if (!cholmod_solve2(CHOLMOD_A, f->L, B, NULL, &f->X, NULL, &f->Y, &f->E, cm)) return -1;
        const double *y = (const double *)f->X->x;
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
    return 0;
}

int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work)
{
    return mo_newton_cholesky_form(s, b, x, work, 0, NULL);
}

/* the Schur form (file comment) with c: 0 solved, 1 not positive definite, -1 out of memory */
static int solve_schur(const mo_newton_system *s, const double *b, double *x, mo_newton_chol *c)
{
    const int m = s->m, n = s->n, nnz = s->row_ptr[m];
    const double h2 = s->h * s->h;
    cholmod_common *cm = &c->cm;
    chol_form *f = &c->f[0];
    /* the transpose of J's pattern: for each column its (row, entry) pairs */
    if (mo_buf_reserve(&c->cp, ((size_t)n + 2) * sizeof(int)) || mo_buf_reserve(&c->cr, ((size_t)nnz + 1) * sizeof(int)) ||
        mo_buf_reserve(&c->ck, ((size_t)nnz + 1) * sizeof(int)))
        return -1;
    int *cp = (int *)c->cp.p, *cr = (int *)c->cr.p, *ck = (int *)c->ck.p;
    memset(cp, 0, ((size_t)n + 2) * sizeof(int));
    for (int r = 0; r < m; r++)
        if (!s->mask[r])
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) cp[s->col[k] + 2]++;
    for (int col = 0; col < n; col++) cp[col + 2] += cp[col + 1];
    size_t nt = (size_t)m; /* the diagonal */
    for (int col = 0; col < n; col++) {
        size_t d = (size_t)(cp[col + 2] - cp[col + 1]);
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
    cholmod_triplet *T = form_triplets(f, cm, m, nt);
    if (!T) return -1;
    {
        int *ti = (int *)T->i, *tj = (int *)T->j;
        double *tx = (double *)T->x;
        size_t q = 0;
        for (int r = 0; r < m; r++) {
            ti[q] = tj[q] = r;
            tx[q++] = s->cd[r];
        }
        for (int col = 0; col < n; col++)
            for (int a = cp[col]; a < cp[col + 1]; a++)
                for (int e = a; e < cp[col + 1]; e++) { /* rows cr[a] <= cr[e]: the upper triangle */
                    int r = cr[a], t = cr[e];
                    double v = r == t ? s->val[ck[a]] * s->wval[ck[a]]
                                      : 0.5 * (s->val[ck[a]] * s->wval[ck[e]] + s->val[ck[e]] * s->wval[ck[a]]);
                    ti[q] = r;
                    tj[q] = t;
                    tx[q++] = h2 * v;
                }
        T->nnz = q;
    }
    int status = form_factor(c, f);
    if (status) return status;
    cholmod_dense *B = form_dense(&f->B, cm, m);
    if (!B) return -1;
    memcpy(B->x, b, (size_t)m * sizeof(double));
    if (!cholmod_solve2(CHOLMOD_A, f->L, B, NULL, &f->X, NULL, &f->Y, &f->E, cm)) return -1;
    memcpy(x, f->X->x, (size_t)m * sizeof(double));
    return 0;
}

int mo_newton_cholesky_form(const mo_newton_system *s, const double *b, double *x, double *work, int form,
                            int *used)
{
    /* the owner's cache, or one for this call */
    mo_newton_chol *c = s->chol ? (mo_newton_chol *)*s->chol : NULL;
    if (!c) {
        c = chol_create();
        if (!c) return -1;
        if (s->chol) *s->chol = c;
    }
    int status;
    size_t np = form == 1 ? 0 : primal_entries(s);
    if (form == 2 && np == 0) {
        status = -1;
        goto out;
    }
    if (np > 0 && form != 1) {
        /* the Schur form's size, to choose (its column counts are what solve_schur counts) */
        const int m = s->m, n = s->n;
        if (mo_buf_reserve(&c->cp, ((size_t)n + 2) * sizeof(int))) {
            status = -1;
            goto out;
        }
        int *cnt = (int *)c->cp.p;
        memset(cnt, 0, ((size_t)n + 2) * sizeof(int));
        for (int r = 0; r < m; r++)
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) cnt[s->col[k]]++;
        size_t nt = (size_t)m;
        for (int col = 0; col < n; col++) nt += (size_t)cnt[col] * ((size_t)cnt[col] + 1) / 2;
        if (form == 2 || np < nt) {
            double relres = 1.0;
            int st = solve_primal(s, b, x, np, c, work, &relres);
            if (getenv("MO_DEBUG_CHOLESKY"))
                fprintf(stderr, "cholesky primal: %zu entries (Schur %zu), relative residual %.2e\n", np, nt, relres);
            if (st == 0 && (relres <= 1e-6 || form == 2)) {
                if (used) *used = 2;
                status = 0;
                goto out;
            }
            if (form == 2) {
                status = st;
                goto out;
            }
        }
    }
    if (used) *used = 1;
    status = solve_schur(s, b, x, c);
out:
    if (!s->chol) mo_newton_chol_free(c);
    return status;
}
#else
void mo_newton_chol_free(void *p) { (void)p; /* nothing is ever cached without CHOLMOD */ }

void mo_newton_chol_counts(const void *p, long *analyses, long *factorisations)
{
    (void)p;
    if (analyses) *analyses = 0;
    if (factorisations) *factorisations = 0;
}

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
