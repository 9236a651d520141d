/* cholesky.c: sparse Cholesky of N on the bilateral rows, with CHOLMOD
 * (SuiteSparse; SOLVERS.md A, "Direct and Krylov solvers for bilateral
 * rows": long chains and articulated robots need the direct solve to keep
 * joint drift at the millimetre level).
 *
 * Assembly of N_BB (B: the bilateral rows with N_ii > 0, solver_bilateral.h):
 * - J form: N_ab = sum over the DOF columns c shared by rows a and b of
 *   J_ac (M^-1 J^T)_cb = val(a, c) wval(b, c), plus Sigma_aa on the diagonal,
 *   by Gustavson's row-by-row product over a column index of J's B rows; only
 *   the lower triangle is computed (row a, columns b <= a), which is the upper
 *   triangle in CHOLMOD's compressed columns (stype = +1);
 * - explicit N (outside problems, possibly non-symmetric): (N + N^T) / 2 on
 *   B x B. The refinement below uses N as given, so a small skew part is
 *   corrected by it; a large one is not (the true residual tells).
 * Factorisation: cholmod_analyze (fill-reducing ordering, symbolic factor)
 * then cholmod_factorize. With a world (o->cholmod_cache set by the step) the
 * CHOLMOD workspace, the symbolic factor and the matrix live in a cache owned
 * by the world: when this step's pattern of N_BB equals the last one (same
 * rows, same non-zeros: a chain's, a robot's without contacts), only the
 * numeric factorisation is redone. Without a cache everything is built and
 * freed per call.
 * Not positive definite (redundant rigid constraints: N_BB singular), found by
 * CHOLMOD (a pivot <= 0) or by a reciprocal condition estimate below 1e-13:
 * N_BB + delta I is factored instead, delta = 1e-10 max_a N_aa, times 100 up
 * to three times; o->regularisation reports delta (the step's statistics
 * show it). If it still fails, the MINRES inner solve is used.
 * Solve: d = -N_BB^-1 u_B, gamma_B += d, u += N d (one product with N), then
 * iterative refinement on the true u while the tolerance is not met, |u_B| is
 * above round-off (1e-12 (|r_B| + max N_ii |gamma_B|)), each step at least
 * halves |u_B|, and at most two refinement steps (on chain1000 one solve
 * reaches 4e-13 m/s; refinement cost 0.14 ms/step for nothing). One history entry per solve. Mixed problems: the
 * factor is computed once per call and each outer iteration of
 * solver_bilateral.c's alternation is one solve.
 *
 * Without CHOLMOD (-Dcholmod=disabled, or libsuitesparse-dev missing),
 * mo_solver_check refuses MO_SOLVER_CHOLESKY with a sentence; called
 * directly, mo_solver_cholesky runs MINRES. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/bilateral.h"

#ifdef MO_HAVE_CHOLMOD
#include <cholmod.h>

bool mo_cholesky_available(void) { return true; }

typedef struct chol_cache {
    cholmod_common cm;
    cholmod_sparse *A;          /* N_BB, upper triangle in CSC; values of the last factorisation */
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
    int *map; size_t map_cap;   /* (m) row -> index in B, -1 outside */
    int *rows; size_t rows_cap; /* (nb) index in B -> row */
    int *cptr; size_t cptr_cap; /* (n + 1) J form: column -> its B rows (crow) and their entries (cpos) */
    int *crow; size_t crow_cap;
    int *cpos; size_t cpos_cap;
    int *ap; size_t ap_cap;     /* the new N_BB (lower triangle by rows), before comparing its pattern with A's */
    int *ai; size_t ai_cap;
    double *ax; size_t ax_cap;
    int *mark; size_t mark_cap; /* (nb) Gustavson's row markers and accumulator */
    double *acc; size_t acc_cap;
    long analyses, factorisations;
} chol_cache;

static int grow(void **ptr, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n) c *= 2;
    void *q = realloc(*ptr, c * size);
    if (!q) return -1;
    *ptr = q;
    *cap = c;
    return 0;
}
#define GROW(f, n) grow((void **)&k->f, &k->f##_cap, (size_t)(n), sizeof *k->f)

static chol_cache *cache_new(void)
{
    chol_cache *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    cholmod_start(&k->cm);
    k->cm.print = 0; /* errors come back as statuses, never printed */
    return k;
}

static void cache_free(chol_cache *k)
{
    if (!k) return;
    cholmod_free_factor(&k->L, &k->cm);
    cholmod_free_sparse(&k->A, &k->cm);
    cholmod_free_dense(&k->B, &k->cm);
    cholmod_free_dense(&k->X, &k->cm);
    cholmod_free_dense(&k->Y, &k->cm);
    cholmod_free_dense(&k->E, &k->cm);
    cholmod_finish(&k->cm);
    free(k->map);
    free(k->rows);
    free(k->cptr);
    free(k->crow);
    free(k->cpos);
    free(k->ap);
    free(k->ai);
    free(k->ax);
    free(k->mark);
    free(k->acc);
    free(k);
}

void mo_cholmod_cache_free(void *cache) { cache_free((chol_cache *)cache); }

void mo_cholmod_cache_counts(const void *cache, long *analyses, long *factorisations)
{
    const chol_cache *k = (const chol_cache *)cache;
    *analyses = k ? k->analyses : 0;
    *factorisations = k ? k->factorisations : 0;
}

/* B's rows into map and rows; 0, or -1 out of memory */
static int index_rows(chol_cache *k, const mo_problem *p, int *nb_out)
{
    if (GROW(map, p->m + 1) || GROW(rows, p->m + 1)) return -1;
    int nb = 0;
    for (int b = 0; b < p->nblocks; b++)
        for (int r = p->block_row[b]; r < p->block_row[b + 1]; r++) {
            if (mo_bil_row(p, b, r)) {
                k->map[r] = nb;
                k->rows[nb++] = r;
            } else {
                k->map[r] = -1;
            }
        }
    *nb_out = nb;
    return 0;
}

static void sort_row(int *ai, int len)
{
    for (int i = 1; i < len; i++) {
        int x = ai[i], j = i - 1;
        while (j >= 0 && ai[j] > x) {
            ai[j + 1] = ai[j];
            j--;
        }
        ai[j + 1] = x;
    }
}

/* N_BB's lower triangle by rows into ap/ai/ax (J form); 0, or -1 out of memory.
 * A row's columns are all DOFs of each of its owners (kernels/rows.h), which
 * come in aligned triples (linear, angular; 3 for a particle): when every B
 * row is made of such triples the product runs over triples (three times
 * fewer index operations: chain1000's N_BB in about a third of the time),
 * else over single columns. */
static int assemble_j(chol_cache *k, const mo_problem *p, int nb)
{
    int wdt = 3;
    for (int a = 0; a < nb && wdt == 3; a++) {
        int r = k->rows[a], q0 = p->row_ptr[r], q1 = p->row_ptr[r + 1];
        if ((q1 - q0) % 3) wdt = 1;
        for (int q = q0; q + 2 < q1 && wdt == 3; q += 3)
            if (p->col[q] % 3 || p->col[q + 1] != p->col[q] + 1 || p->col[q + 2] != p->col[q] + 2) wdt = 1;
    }
    const int ns = (p->n + wdt - 1) / wdt;
    if (GROW(cptr, ns + 1) || GROW(ap, nb + 1) || GROW(mark, nb + 1) || GROW(acc, nb + 1)) return -1;
    /* super-column index of J's B rows (ascending B index within a super-column) */
    int *cptr = k->cptr;
    memset(cptr, 0, ((size_t)ns + 1) * sizeof(int));
    size_t nzb = 0;
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        for (int q = p->row_ptr[r]; q < p->row_ptr[r + 1]; q += wdt) cptr[p->col[q] / wdt + 1]++;
        nzb += (size_t)(p->row_ptr[r + 1] - p->row_ptr[r]);
    }
    for (int c = 0; c < ns; c++) cptr[c + 1] += cptr[c];
    if (GROW(crow, nzb + 1) || GROW(cpos, nzb + 1)) return -1;
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        for (int q = p->row_ptr[r]; q < p->row_ptr[r + 1]; q += wdt) {
            int at = cptr[p->col[q] / wdt]++;
            k->crow[at] = a;
            k->cpos[at] = q;
        }
    }
    for (int c = ns; c > 0; c--) cptr[c] = cptr[c - 1];
    cptr[0] = 0;
    /* Gustavson: row a of the lower triangle, N_ab = sum_c J_ac W_bc for b <= a */
    int *mark = k->mark;
    double *acc = k->acc;
    for (int a = 0; a < nb; a++) mark[a] = -1;
    size_t nnz = 0;
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        k->ap[a] = (int)nnz;
        if (GROW(ai, nnz + (size_t)a + 2) || GROW(ax, nnz + (size_t)a + 2)) return -1; /* at most a + 1 entries */
        mark[a] = a;
        acc[a] = p->sigma[r];
        k->ai[nnz++] = a;
        for (int q = p->row_ptr[r]; q < p->row_ptr[r + 1]; q += wdt) {
            int sc = p->col[q] / wdt;
            const double *jv = p->val + q;
            for (int e = cptr[sc]; e < cptr[sc + 1]; e++) {
                int b = k->crow[e];
                if (b > a) break;
                if (mark[b] != a) {
                    mark[b] = a;
                    acc[b] = 0.0;
                    k->ai[nnz++] = b;
                }
                const double *wv = p->wval + k->cpos[e];
                double t = jv[0] * wv[0];
                if (wdt == 3) t += jv[1] * wv[1] + jv[2] * wv[2];
                acc[b] += t;
            }
        }
        int a0 = k->ap[a];
        sort_row(k->ai + a0, (int)nnz - a0);
        for (int j = a0; j < (int)nnz; j++) k->ax[j] = acc[k->ai[j]];
    }
    k->ap[nb] = (int)nnz;
    return 0;
}

/* (N + N^T)/2 on B x B, lower triangle by rows into ap/ai/ax (explicit N); 0, or -1 */
static int assemble_explicit(chol_cache *k, const mo_problem *p, int nb)
{
    size_t nz = 0;
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        nz += (size_t)(p->n_ptr[r + 1] - p->n_ptr[r]);
    }
    cholmod_triplet *t = cholmod_allocate_triplet((size_t)nb, (size_t)nb, 2 * nz + 1, 1, CHOLMOD_REAL, &k->cm);
    if (!t) return -1;
    int *ti = (int *)t->i, *tj = (int *)t->j;
    double *tx = (double *)t->x;
    size_t e = 0;
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        for (int q = p->n_ptr[r]; q < p->n_ptr[r + 1]; q++) {
            int b = k->map[p->n_col[q]];
            if (b < 0) continue;
            double v = p->n_val[q];
            /* upper triangle (row <= column): half of N_ab and half of N_ba meet at (min, max) */
            ti[e] = a < b ? a : b;
            tj[e] = a < b ? b : a;
            tx[e] = a == b ? v : 0.5 * v;
            e++;
        }
    }
    t->nnz = e;
    cholmod_sparse *s = cholmod_triplet_to_sparse(t, 0, &k->cm);
    cholmod_free_triplet(&t, &k->cm);
    if (!s) return -1;
    /* the upper triangle in CSC is the lower triangle by rows */
    const int *sp = (const int *)s->p, *si = (const int *)s->i;
    const double *sx = (const double *)s->x;
    int nnz = sp[nb];
    if (GROW(ap, nb + 1) || GROW(ai, nnz + 1) || GROW(ax, nnz + 1)) {
        cholmod_free_sparse(&s, &k->cm);
        return -1;
    }
    memcpy(k->ap, sp, ((size_t)nb + 1) * sizeof(int));
    memcpy(k->ai, si, (size_t)nnz * sizeof(int));
    memcpy(k->ax, sx, (size_t)nnz * sizeof(double));
    cholmod_free_sparse(&s, &k->cm);
    return 0;
}

/* the new matrix into A: values only when the pattern is A's, else a new A
 * (and the symbolic factor is dropped); 0, or -1 out of memory */
static int load_matrix(chol_cache *k, int nb)
{
    int nnz = k->ap[nb];
    cholmod_sparse *A = k->A;
    bool same = A && (int)A->nrow == nb && ((const int *)A->p)[nb] == nnz &&
                !memcmp(A->p, k->ap, ((size_t)nb + 1) * sizeof(int)) &&
                !memcmp(A->i, k->ai, (size_t)nnz * sizeof(int));
    if (!same) {
        cholmod_free_factor(&k->L, &k->cm);
        cholmod_free_sparse(&k->A, &k->cm);
        k->A = A = cholmod_allocate_sparse((size_t)nb, (size_t)nb, (size_t)nnz + 1, 1, 1, 1, CHOLMOD_REAL, &k->cm);
        if (!A) return -1;
        memcpy(A->p, k->ap, ((size_t)nb + 1) * sizeof(int));
        memcpy(A->i, k->ai, (size_t)nnz * sizeof(int));
    }
    memcpy(A->x, k->ax, (size_t)nnz * sizeof(double));
    return 0;
}

/* numeric factorisation of A + delta I; true when positive definite and not
 * near-singular */
static bool factor(chol_cache *k, double delta)
{
    double beta[2] = {delta, 0.0};
    k->factorisations++;
    if (!cholmod_factorize_p(k->A, beta, NULL, 0, k->L, &k->cm)) return false;
    if (k->cm.status != CHOLMOD_OK || k->L->minor < k->L->n) return false;
    double rc = cholmod_rcond(k->L, &k->cm);
    return rc > 1e-13;
}

/* the factor of this problem's N_BB (nb > 0) in the cache; returns the
 * regularisation used (0 = none), or -1 when no factor could be made */
static double factor_problem(chol_cache *k, const mo_problem *p, int nb)
{
    if ((p->n_ptr ? assemble_explicit(k, p, nb) : assemble_j(k, p, nb)) || load_matrix(k, nb)) return -1.0;
    if (!k->L) {
        k->L = cholmod_analyze(k->A, &k->cm);
        k->analyses++;
        if (!k->L) return -1.0;
    }
    if (factor(k, 0.0)) return 0.0;
    double dmax = 0.0;
    for (int a = 0; a < nb; a++) {
        double d = k->ax[k->ap[a + 1] - 1]; /* the diagonal is the last entry of its row */
        if (d > dmax) dmax = d;
    }
    double delta = 1e-10 * (dmax > 0.0 ? dmax : 1.0);
    for (int t = 0; t < 3; t++, delta *= 100.0)
        if (factor(k, delta)) return delta;
    return -1.0;
}

/* one solve: d = -N_BB^-1 u_B through the factor, gamma_B += d, u += N d;
 * vecs: d (m), N d (m); 0, or -1 when CHOLMOD failed */
static int solve_once(mo_bil *c, chol_cache *k)
{
    const mo_problem *p = c->p;
    const int m = p->m, nb = (int)k->A->nrow;
    double *d = c->vecs, *nd = d + m;
    if (!k->B || (int)k->B->nrow != nb) {
        cholmod_free_dense(&k->B, &k->cm);
        k->B = cholmod_allocate_dense((size_t)nb, 1, (size_t)nb, CHOLMOD_REAL, &k->cm);
        if (!k->B) return -1;
    }
    double *bx = (double *)k->B->x;
    for (int a = 0; a < nb; a++) bx[a] = -c->u[k->rows[a]];
    if (!cholmod_solve2(CHOLMOD_A, k->L, k->B, NULL, &k->X, NULL, &k->Y, &k->E, &k->cm)) return -1;
    const double *x = (const double *)k->X->x;
    memset(d, 0, (size_t)m * sizeof(double));
    for (int a = 0; a < nb; a++) {
        int r = k->rows[a];
        d[r] = x[a];
        c->gamma[r] += x[a];
    }
    mo_problem_apply(p, d, nd, c->work);
    for (int r = 0; r < m; r++) c->u[r] += nd[r];
    return 0;
}

/* iterative refinement steps after the first solve: with a backward-stable
 * factor each one gains a factor ~ eps cond(N_BB), so two reach round-off */
#define MAX_REFINE 2
/* relative round-off level below which refinement is not tried */
#define ROUNDOFF 1e-12

static int cholesky_inner(mo_bil *c, int max_iterations)
{
    chol_cache *k = (chol_cache *)c->state;
    const mo_problem *p = c->p;
    int it = 0;
    double prev = sqrt(mo_bil_dot(c, c->u, c->u)), rn = sqrt(mo_bil_dot(c, c->q.r, c->q.r)), dmax = 0.0;
    for (int a = 0; a < (int)k->A->nrow; a++) dmax = fmax(dmax, p->diag[k->rows[a]]);
    while (it < max_iterations) {
        if (solve_once(c, k)) return it + mo_bil_minres_inner(c, max_iterations - it);
        /* u_old + N d: u stays true when it was (one update, no recursion to drift) */
        it++;
        double now = sqrt(mo_bil_dot(c, c->u, c->u));
        if (mo_bil_check(c)) return it;
        /* refinement: at most MAX_REFINE steps, only above round-off (ROUNDOFF of |r_B| + max N_ii |gamma_B|)
         * and only while each step at least halves |u_B| */
        double floor_ = ROUNDOFF * (rn + dmax * sqrt(mo_bil_dot(c, c->gamma, c->gamma)));
        if (it > MAX_REFINE || now <= floor_ || !(now < 0.5 * prev)) return it;
        prev = now;
    }
    return it;
}

void mo_solver_cholesky(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    mo_bil c;
    if (!mo_bil_begin(&c, p, s, o, 11)) {
        mo_bil_end(&c);
        return;
    }
    chol_cache *k = o->cholmod_cache ? (chol_cache *)*o->cholmod_cache : NULL;
    bool own = false;
    if (!k) {
        k = cache_new();
        if (k && o->cholmod_cache) *o->cholmod_cache = k;
        else own = true;
    }
    int nb = 0;
    double delta = -1.0;
    if (k && !p->base && !index_rows(k, p, &nb) && nb > 0) delta = factor_problem(k, p, nb);
    if (delta >= 0.0) {
        o->regularisation = delta;
        c.state = k;
        mo_bil_run(&c, cholesky_inner);
    } else {
        /* no factor (out of memory, CHOLMOD failure, no bilateral row): MINRES */
        mo_bil_run(&c, mo_bil_minres_inner);
    }
    mo_bil_end(&c);
    if (own) cache_free(k);
}

#else /* no CHOLMOD */

bool mo_cholesky_available(void) { return false; }
void mo_cholmod_cache_free(void *cache) { (void)cache; }
void mo_cholmod_cache_counts(const void *cache, long *analyses, long *factorisations)
{
    (void)cache;
    *analyses = *factorisations = 0;
}

void mo_solver_cholesky(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    mo_solver_minres(p, s, o);
}

#endif /* MO_HAVE_CHOLMOD */
