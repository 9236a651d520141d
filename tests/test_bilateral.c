/* test_bilateral.c: the bilateral solvers MO_SOLVER_CG, MO_SOLVER_MINRES and
 * MO_SOLVER_CHOLESKY (solver_krylov.c, solver_cholesky.c, the alternation of
 * solver_bilateral.c).
 *
 * Groups:
 *   random SPD      J-form (r left NULL: the solver computes r = J v~ + b) and
 *                   explicit-N problems against a dense Cholesky solve of
 *                   N gamma = -r written here: |gamma - ref|_inf <= 1e-10
 *                   max(1, |ref|_inf) (solved to |u| <= 1e-13 on problems
 *                   with lambda_min(N) >= 1e-2 checked, so the error bound
 *                   |u| / lambda_min is 1e-11); the Cholesky solver's N_BB
 *                   from J is checked against the dense N through its answer;
 *   warm start      from the solution: 0 or 1 iterations;
 *   histories       CG and MINRES record the recursive residual u: each
 *                   entry k equals the true CCP residual of the k-iteration
 *                   solve (mo_solve_out.residual is always computed from
 *                   N gamma + r) to 1e-12 max(1, |r|);
 *   singular N      redundant rows (rank-deficient N, consistent r): Cholesky
 *                   regularises (delta reported > 0) and still reaches
 *                   |u| <= 1e-9, MINRES too;
 *   chain20         20 spheres on spherical joints, the engine's assembled
 *                   problem mid-swing: the three solvers and a dense solve
 *                   agree to 1e-8 relative; the symbolic factor is reused
 *                   across steps;
 *   mixed           two jointed boxes and a third on top, on the ground with
 *                   friction (contacts + bilateral rows): the alternation
 *                   converges to 1e-8 and gives the velocities of a long PGS
 *                   run (v is unique for the CCP even where gamma is not);
 *                   2 s of simulation with each solver keep the boxes up and
 *                   the joint together;
 *   chain200        SCENES.md chain1000's chain with 200 links for 1 s:
 *                   Cholesky keeps the joint drift below 1 mm; PGS given at
 *                   least Cholesky's wall time per step drifts more;
 *   settings        mo_world_set_solver accepts cholesky with CHOLMOD, and
 *                   refuses it with a sentence without. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "step/step.h"

#define CHECK_NEAR CHECK_NEAR_G17_DIFF
#include "scenes_builtin.h"
#include "testutil.h"

static void group_begin(void) { check_group_begin(); }
static void group_end(const char *name) { check_group_end(name, 28, 5); }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double max_abs(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i]));
    return s;
}

static double max_diff(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i] - b[i]));
    return s;
}

static double dot_n(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* ---- dense references (own code) ---- */

/* solves A x = b for SPD A (n x n, row-major) by Cholesky; 0 if not positive definite */
static int dense_cholesky_solve(const double *A, const double *b, double *x, int n)
{
    double *L = calloc((size_t)n * (size_t)n, sizeof(double));
    for (int j = 0; j < n; j++) {
        double s = A[j * n + j];
        for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
        if (!(s > 0.0)) {
            free(L);
            return 0;
        }
        L[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = A[i * n + j];
            for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    for (int i = 0; i < n; i++) {
        double t = b[i];
        for (int k = 0; k < i; k++) t -= L[i * n + k] * x[k];
        x[i] = t / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double t = x[i];
        for (int k = i + 1; k < n; k++) t -= L[k * n + i] * x[k];
        x[i] = t / L[i * n + i];
    }
    free(L);
    return 1;
}

/* smallest eigenvalue of SPD A by inverse iteration (40 steps) */
static double dense_lambda_min(const double *A, int n)
{
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n), lam = 0.0;
    for (int i = 0; i < n; i++) x[i] = 1.0 + 0.1 * (i % 5);
    for (int it = 0; it < 40; it++) {
        double nx = sqrt(dot_n(x, x, n));
        for (int i = 0; i < n; i++) x[i] /= nx;
        if (!dense_cholesky_solve(A, x, y, n)) break;
        lam = 1.0 / sqrt(dot_n(y, y, n));
        memcpy(x, y, sizeof(double) * (size_t)n);
    }
    free(x);
    free(y);
    return lam;
}

/* dense N = J W^T + Sigma from a J-form problem (m x m) */
static double *dense_n(const mo_problem *p)
{
    int m = p->m, n = p->n;
    double *Jd = calloc((size_t)m * (size_t)n, sizeof(double)), *Wd = calloc((size_t)m * (size_t)n, sizeof(double));
    double *N = calloc((size_t)m * (size_t)m, sizeof(double));
    for (int r = 0; r < m; r++)
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) {
            Jd[r * n + p->col[k]] += p->val[k];
            Wd[r * n + p->col[k]] += p->wval[k];
        }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = i == j ? p->sigma[i] : 0.0;
            for (int c = 0; c < n; c++) s += Jd[i * n + c] * Wd[j * n + c];
            N[i * m + j] = s;
        }
    free(Jd);
    free(Wd);
    return N;
}

/* ---- running a solver ---- */

static const struct {
    mo_solver_kind kind;
    mo_solver_fn fn;
    const char *name;
} solvers[3] = {
    {MO_SOLVER_CG, mo_solver_cg, "cg"},
    {MO_SOLVER_MINRES, mo_solver_minres, "minres"},
    {MO_SOLVER_CHOLESKY, mo_solver_cholesky, "cholesky"},
};

/* runs fn on p from the warm start in gamma (m); v (n, may be NULL for explicit N) */
static mo_solve_out run(mo_solver_fn fn, const mo_problem *p, const mo_solver_settings *s, double *gamma, double *v,
                        double *rh, double *eh, void **cache)
{
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = gamma;
    o.v = v;
    o.scratch = malloc(sizeof(double) * mo_solver_scratch_size(p));
    o.res_hist = rh;
    o.err_hist = eh;
    o.cholmod_cache = cache;
    fn(p, s, &o);
    free(o.scratch);
    o.scratch = NULL;
    return o;
}

static mo_solver_settings settings(double tol, int iters)
{
    mo_solver_settings s = mo_default_solver_settings();
    s.tolerance = tol;
    s.max_iterations = iters;
    return s;
}

/* ---- random problems ---- */

typedef struct rprob {
    mo_problem p;
    int *row_ptr, *col, *block_row, *block_inv, *n_ptr, *n_col;
    uint8_t *kind;
    double *val, *wval, *sigma, *b, *lo, *hi, *diag, *mu, *eta, *vt, *r, *inv, *n_val;
    double *N;  /* dense N (m x m) */
    double *rr; /* dense r */
} rprob;

static void rprob_free(rprob *q)
{
    free(q->row_ptr); free(q->col); free(q->block_row); free(q->block_inv); free(q->n_ptr); free(q->n_col);
    free(q->kind); free(q->val); free(q->wval); free(q->sigma); free(q->b); free(q->lo); free(q->hi);
    free(q->diag); free(q->mu); free(q->eta); free(q->vt); free(q->r); free(q->inv); free(q->n_val);
    free(q->N); free(q->rr);
    memset(q, 0, sizeof *q);
}

static void rprob_blocks(rprob *q, int m, int group)
{
    /* single-row bilateral blocks; with group, rows 0-2 form one 3-row block */
    int nb = group ? m - 2 : m;
    q->block_row = malloc(sizeof(int) * (size_t)(nb + 1));
    q->block_inv = malloc(sizeof(int) * (size_t)(nb + 1));
    q->kind = calloc((size_t)nb + 1, 1);
    q->mu = calloc((size_t)nb + 1, sizeof(double));
    q->eta = calloc((size_t)nb + 1, sizeof(double));
    int r = 0;
    for (int k = 0; k < nb; k++) {
        q->block_row[k] = r;
        q->block_inv[k] = -1;
        q->kind[k] = MO_BLOCK_BILATERAL;
        r += (group && k == 0) ? 3 : 1;
    }
    q->block_row[nb] = m;
    q->lo = malloc(sizeof(double) * (size_t)m);
    q->hi = malloc(sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++) {
        q->lo[i] = -INFINITY;
        q->hi[i] = INFINITY;
    }
    q->p.nblocks = nb;
    q->p.block_row = q->block_row;
    q->p.block_kind = q->kind;
    q->p.block_mu = q->mu;
    q->p.block_eta = q->eta;
    q->p.block_inv = q->block_inv;
    q->p.lo = q->lo;
    q->p.hi = q->hi;
    q->p.threads = 1;
}

/* J form: m rows over n DOFs, 4 random columns per row, M^-1 diagonal in [0.5, 2],
 * Sigma 1e-3 on every third row; r left NULL */
static void rprob_j(rprob *q, int m, int n, uint64_t seed)
{
    memset(q, 0, sizeof *q);
    const int per = 4;
    double *minv = malloc(sizeof(double) * (size_t)n);
    for (int c = 0; c < n; c++) minv[c] = sm64_uniform(&seed, 0.5, 2.0);
    q->row_ptr = malloc(sizeof(int) * (size_t)(m + 1));
    q->col = malloc(sizeof(int) * (size_t)(m * per));
    q->val = malloc(sizeof(double) * (size_t)(m * per));
    q->wval = malloc(sizeof(double) * (size_t)(m * per));
    q->sigma = malloc(sizeof(double) * (size_t)m);
    q->b = malloc(sizeof(double) * (size_t)m);
    q->diag = malloc(sizeof(double) * (size_t)m);
    q->vt = malloc(sizeof(double) * (size_t)n);
    for (int c = 0; c < n; c++) q->vt[c] = sm64_uniform(&seed, -1.0, 1.0);
    for (int r = 0; r < m; r++) {
        q->row_ptr[r] = r * per;
        int cols[4], nc = 0;
        while (nc < per) {
            int c = (int)(sm64_next(&seed) % (uint64_t)n), dup = 0;
            for (int i = 0; i < nc; i++) dup |= cols[i] == c;
            if (!dup) cols[nc++] = c;
        }
        for (int i = 1; i < per; i++)
            for (int j = i; j > 0 && cols[j - 1] > cols[j]; j--) {
                int t = cols[j]; cols[j] = cols[j - 1]; cols[j - 1] = t;
            }
        double d = 0.0;
        for (int i = 0; i < per; i++) {
            int k = r * per + i;
            q->col[k] = cols[i];
            q->val[k] = sm64_uniform(&seed, -1.0, 1.0);
            q->wval[k] = minv[cols[i]] * q->val[k];
            d += q->val[k] * q->wval[k];
        }
        q->sigma[r] = r % 3 == 0 ? 1e-3 : 0.0;
        q->b[r] = sm64_uniform(&seed, -1.0, 1.0);
        q->diag[r] = d + q->sigma[r];
    }
    q->row_ptr[m] = m * per;
    rprob_blocks(q, m, 0);
    mo_problem *p = &q->p;
    p->n = n;
    p->m = m;
    p->row_ptr = q->row_ptr;
    p->col = q->col;
    p->val = q->val;
    p->wval = q->wval;
    p->sigma = q->sigma;
    p->b = q->b;
    p->diag = q->diag;
    p->v_tilde = q->vt;
    p->r = NULL;
    q->N = dense_n(p);
    q->rr = malloc(sizeof(double) * (size_t)m);
    for (int r = 0; r < m; r++) {
        double s = q->b[r];
        for (int k = q->row_ptr[r]; k < q->row_ptr[r + 1]; k++) s += q->val[k] * q->vt[q->col[k]];
        q->rr[r] = s;
    }
    free(minv);
}

/* explicit N = A A^T + shift I (A: m x k), stored as full CSR; rows 0-2 one
 * bilateral group with its dense inverse (the preconditioner's block path);
 * r = random, or N y (consistent) when consistent */
static void rprob_explicit(rprob *q, int m, int k, double shift, int consistent, uint64_t seed)
{
    memset(q, 0, sizeof *q);
    double *A = malloc(sizeof(double) * (size_t)(m * k));
    for (int i = 0; i < m * k; i++) A[i] = sm64_uniform(&seed, -1.0, 1.0);
    q->N = malloc(sizeof(double) * (size_t)(m * m));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = i == j ? shift : 0.0;
            for (int c = 0; c < k; c++) s += A[i * k + c] * A[j * k + c];
            q->N[i * m + j] = s;
        }
    q->n_ptr = malloc(sizeof(int) * (size_t)(m + 1));
    q->n_col = malloc(sizeof(int) * (size_t)(m * m));
    q->n_val = malloc(sizeof(double) * (size_t)(m * m));
    q->diag = malloc(sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++) {
        q->n_ptr[i] = i * m;
        for (int j = 0; j < m; j++) {
            q->n_col[i * m + j] = j;
            q->n_val[i * m + j] = q->N[i * m + j];
        }
        q->diag[i] = q->N[i * m + i];
    }
    q->n_ptr[m] = m * m;
    q->rr = malloc(sizeof(double) * (size_t)m);
    if (consistent) {
        double *y = malloc(sizeof(double) * (size_t)m);
        for (int i = 0; i < m; i++) y[i] = sm64_uniform(&seed, -1.0, 1.0);
        for (int i = 0; i < m; i++) q->rr[i] = dot_n(q->N + i * m, y, m);
        free(y);
    } else {
        for (int i = 0; i < m; i++) q->rr[i] = sm64_uniform(&seed, -1.0, 1.0);
    }
    rprob_blocks(q, m, 1);
    /* the group's inverse (only when its 3x3 block is invertible) */
    double g[9], gi[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) g[3 * i + j] = q->N[i * m + j];
    double det = g[0] * (g[4] * g[8] - g[5] * g[7]) - g[1] * (g[3] * g[8] - g[5] * g[6]) + g[2] * (g[3] * g[7] - g[4] * g[6]);
    if (fabs(det) > 1e-8) {
        gi[0] = (g[4] * g[8] - g[5] * g[7]) / det; gi[1] = (g[2] * g[7] - g[1] * g[8]) / det;
        gi[2] = (g[1] * g[5] - g[2] * g[4]) / det; gi[3] = (g[5] * g[6] - g[3] * g[8]) / det;
        gi[4] = (g[0] * g[8] - g[2] * g[6]) / det; gi[5] = (g[2] * g[3] - g[0] * g[5]) / det;
        gi[6] = (g[3] * g[7] - g[4] * g[6]) / det; gi[7] = (g[1] * g[6] - g[0] * g[7]) / det;
        gi[8] = (g[0] * g[4] - g[1] * g[3]) / det;
        q->inv = malloc(sizeof gi);
        memcpy(q->inv, gi, sizeof gi);
        q->block_inv[0] = 0;
    }
    q->r = malloc(sizeof(double) * (size_t)m);
    memcpy(q->r, q->rr, sizeof(double) * (size_t)m);
    mo_problem *p = &q->p;
    p->m = m;
    p->n = 0;
    p->diag = q->diag;
    p->inv = q->inv;
    p->r = q->r;
    p->n_ptr = q->n_ptr;
    p->n_col = q->n_col;
    p->n_val = q->n_val;
    free(A);
}

/* |N gamma + r|_2 with the dense N */
static double dense_res(const rprob *q, const double *g, int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) {
        double u = q->rr[i] + dot_n(q->N + i * m, g, m);
        s += u * u;
    }
    return sqrt(s);
}

/* ====================================================================== */

static void test_random_spd(void)
{
    group_begin();
    for (int form = 0; form < 2; form++) {
        for (int trial = 0; trial < 3; trial++) {
            rprob q;
            int m = form ? 15 : 12;
            if (form) rprob_explicit(&q, m, m + 4, 0.05, 0, 77 + (uint64_t)trial);
            else rprob_j(&q, m, 30, 1234 + (uint64_t)trial);
            double lmin = dense_lambda_min(q.N, m);
            CHECK(lmin >= 1e-2);
            double *ref = malloc(sizeof(double) * (size_t)m), *nr = malloc(sizeof(double) * (size_t)m);
            for (int i = 0; i < m; i++) nr[i] = -q.rr[i];
            CHECK(dense_cholesky_solve(q.N, nr, ref, m));
            double scale = fmax(1.0, max_abs(ref, m));
            for (int k = 0; k < 3; k++) {
                if (solvers[k].kind == MO_SOLVER_CHOLESKY && !mo_cholesky_available()) continue;
                double *g = calloc((size_t)m, sizeof(double)), *v = calloc(40, sizeof(double));
                mo_solver_settings s = settings(1e-13, 400);
                mo_solve_out o = run(solvers[k].fn, &q.p, &s, g, form ? NULL : v, NULL, NULL, NULL);
                CHECK(o.converged);
                CHECK(o.residual <= 1e-13);
                CHECK(dense_res(&q, g, m) <= 1e-12);
                CHECK_NEAR(max_diff(g, ref, m) / scale, 0.0, 1e-10);
                CHECK(o.regularisation == 0.0);
                if (!form) {
                    /* v = v~ + M^-1 J^T gamma */
                    double vr[30];
                    memcpy(vr, q.vt, sizeof vr);
                    for (int r = 0; r < m; r++)
                        for (int kk = q.row_ptr[r]; kk < q.row_ptr[r + 1]; kk++) vr[q.col[kk]] += q.wval[kk] * g[r];
                    CHECK_NEAR(max_diff(v, vr, 30), 0.0, 1e-12);
                }
                /* warm start from the solution: 0 or 1 iterations */
                mo_solver_settings s2 = settings(1e-9, 400);
                mo_solve_out o2 = run(solvers[k].fn, &q.p, &s2, g, form ? NULL : v, NULL, NULL, NULL);
                CHECK(o2.converged);
                CHECK(o2.iterations <= 1);
                if (trial == 0)
                    printf("  %-8s %s: %3d iterations to 1e-13, |g - ref| %.2e, warm start %d\n", solvers[k].name,
                           form ? "explicit N" : "J form    ", o.iterations, max_diff(g, ref, m), o2.iterations);
                free(g);
                free(v);
            }
            free(ref);
            free(nr);
            rprob_free(&q);
        }
    }
    group_end("random SPD vs dense");
}

/* recorded histories (recursive u) against the true residual of each prefix solve */
static void test_histories(void)
{
    group_begin();
    for (int form = 0; form < 2; form++) {
        rprob q;
        int m = 15;
        if (form) rprob_explicit(&q, m, m + 4, 0.05, 0, 5);
        else rprob_j(&q, m, 30, 99);
        double rn = fmax(1.0, sqrt(dot_n(q.rr, q.rr, m)));
        for (int k = 0; k < 2; k++) {
            const int K = 12;
            double rh[12], eh[12], g[15], v[30];
            memset(g, 0, sizeof g);
            mo_solver_settings s = settings(0.0, K);
            s.record_residuals = true;
            mo_solve_out o = run(solvers[k].fn, &q.p, &s, g, form ? NULL : v, rh, eh, NULL);
            CHECK(o.hist_count == o.iterations);
            CHECK(o.hist_count >= 8);
            double worst = 0.0;
            /* the starting point's measure: a tolerance it meets returns at once */
            double g0[15], v0[30];
            memset(g0, 0, sizeof g0);
            mo_solver_settings s0 = settings(1e300, 1);
            double r0 = run(solvers[k].fn, &q.p, &s0, g0, form ? NULL : v0, NULL, NULL, NULL).residual;
            for (int it = 1; it <= o.hist_count; it++) {
                double gk[15], vk[30];
                memset(gk, 0, sizeof gk);
                mo_solver_settings sk = settings(0.0, it);
                mo_solve_out ok = run(solvers[k].fn, &q.p, &sk, gk, form ? NULL : vk, NULL, NULL, NULL);
                CHECK(ok.iterations == it);
                /* CG and MINRES return their best iterate (by the recorded
                 * measure): the last one when it is the best so far, which is
                 * where the true final measure must equal the recorded one */
                double prev_best = r0;
                for (int i = 0; i + 1 < it; i++) prev_best = fmin(prev_best, rh[i]);
                if (rh[it - 1] < prev_best) worst = fmax(worst, fabs(ok.residual - rh[it - 1]));
                else CHECK(ok.residual <= prev_best * (1 + 1e-9) + 1e-15);
                CHECK(eh[it - 1] == 0.0); /* no contacts: the Coulomb error is 0 */
            }
            CHECK_NEAR(worst / rn, 0.0, 1e-12);
            printf("  %-8s %s: %d entries, |recorded - true| <= %.2e (|r| %.2f)\n", solvers[k].name,
                   form ? "explicit N" : "J form    ", o.hist_count, worst, rn);
        }
        rprob_free(&q);
    }
    group_end("histories (recursive u)");
}

/* redundant rows: N = A A^T of rank k < m, r = N y */
static void test_singular(void)
{
    group_begin();
    rprob q;
    int m = 14;
    rprob_explicit(&q, m, 9, 0.0, 1, 31);
    for (int k = 1; k < 3; k++) {
        if (solvers[k].kind == MO_SOLVER_CHOLESKY && !mo_cholesky_available()) continue;
        double g[14];
        memset(g, 0, sizeof g);
        mo_solver_settings s = settings(1e-9, 200);
        mo_solve_out o = run(solvers[k].fn, &q.p, &s, g, NULL, NULL, NULL, NULL);
        CHECK(o.converged);
        CHECK(dense_res(&q, g, m) <= 1e-9);
        CHECK(max_abs(g, m) < 1e3); /* no blow-up along the null space */
        if (solvers[k].kind == MO_SOLVER_CHOLESKY) CHECK(o.regularisation > 0.0);
        printf("  %-8s singular N (rank 9 of 14): %d iterations, |u| %.2e, |gamma| %.2f, delta %.2e\n",
               solvers[k].name, o.iterations, o.residual, max_abs(g, m), o.regularisation);
    }
    /* no tolerance, a long budget: past round-off the null-space part grows
     * (CG blew up on b1_net this way); both return their best iterate */
    for (int k = 0; k < 2; k++) {
        double g[14];
        memset(g, 0, sizeof g);
        mo_solver_settings s = settings(0.0, 5000);
        s.record_residuals = true;
        static double rh[5001], eh[5001];
        mo_solve_out o = run(solvers[k].fn, &q.p, &s, g, NULL, rh, eh, NULL);
        CHECK(dense_res(&q, g, m) <= 1e-9);
        CHECK(max_abs(g, m) < 1e3);
        printf("  %-8s singular N, tolerance 0, 5000 iterations: %d done, |u| %.2e, |gamma| %.2f\n", solvers[k].name,
               o.iterations, o.residual, max_abs(g, m));
    }
    rprob_free(&q);
    group_end("singular N (redundant rows)");
}

/* ---- worlds ---- */

static mo_world *new_world(int kind)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.kind = (mo_solver_kind)kind;
    return world_or_exit(&wd, "world: ", 2);
}

/* a chain of n spheres (r 0.05, 1 kg) 0.1 m apart along +x from x = 0.1 on
 * spherical joints at the midpoints, the first one to the world at x = 0.05
 * (SCENES.md chain1000 with n links) */
static void build_chain(mo_world *w, int n, mo_body_id *bodies, mo_joint_id *joints)
{
    const double L = 0.1, r = 0.05;
    for (int i = 0; i < n; i++) {
        mo_body_def d = mo_default_body_def();
        d.mass = 1.0;
        double I = 0.4 * r * r;
        d.inertia.m[0][0] = d.inertia.m[1][1] = d.inertia.m[2][2] = I;
        d.position = (mo_vec3){(i + 1) * L, 0, 0};
        if (mo_body_create(w, &d, &bodies[i]) != MO_OK) exit(2);
        mo_joint_def j = mo_default_joint_def();
        j.type = MO_JOINT_SPHERICAL;
        if (i > 0) j.body_a = bodies[i - 1];
        j.anchor_a = (mo_vec3){i > 0 ? 0.5 * L : 0.5 * L, 0, 0};
        j.body_b = bodies[i];
        j.anchor_b = (mo_vec3){-0.5 * L, 0, 0};
        joints[i] = joint_or_exit(w, &j, "chain joint: ", 2);
    }
}

static double chain_drift(const mo_world *w, const mo_joint_id *joints, int n)
{
    double mx = 0.0;
    for (int i = 0; i < n; i++) {
        double e = 0.0;
        mo_joint_error(w, joints[i], &e);
        mx = fmax(mx, e);
    }
    return mx;
}

static void test_chain20(void)
{
    group_begin();
    enum { NL = 20 };
    mo_world *w = new_world(MO_SOLVER_PGS);
    mo_body_id b[NL];
    mo_joint_id j[NL];
    build_chain(w, NL, b, j);
    for (int i = 0; i < 30; i++) mo_world_step(w);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    int m = p.m, n = p.n;
    CHECK(m == 3 * NL);
    double *N = dense_n(&p), *nr = calloc((size_t)m + 1, sizeof(double)), *ref = malloc(sizeof(double) * (size_t)m);
    double *rr = malloc(sizeof(double) * (size_t)m);
    mo_problem_prepare_r(&p, rr);
    for (int i = 0; i < m; i++) nr[i] = -rr[i];
    CHECK(dense_cholesky_solve(N, nr, ref, m));
    double lmin = dense_lambda_min(N, m), scale = max_abs(ref, m);
    double *g[3], *v = malloc(sizeof(double) * (size_t)n);
    mo_problem pn = p;
    pn.r = NULL; /* the solvers compute r themselves */
    for (int k = 0; k < 3; k++) {
        g[k] = calloc((size_t)m, sizeof(double));
        if (solvers[k].kind == MO_SOLVER_CHOLESKY && !mo_cholesky_available()) {
            memcpy(g[k], ref, sizeof(double) * (size_t)m);
            continue;
        }
        mo_solver_settings s = settings(1e-11, 2000);
        mo_solve_out o = run(solvers[k].fn, k == 1 ? &pn : &p, &s, g[k], v, NULL, NULL, NULL);
        CHECK(o.converged);
        CHECK_NEAR(max_diff(g[k], ref, m) / scale, 0.0, 1e-8);
        printf("  %-8s chain20: %4d iterations, |g - dense| / |g| %.2e (lambda_min(N) %.2e)\n", solvers[k].name,
               o.iterations, max_diff(g[k], ref, m) / scale, lmin);
    }
    CHECK_NEAR(max_diff(g[0], g[1], m) / scale, 0.0, 1e-8);
    CHECK_NEAR(max_diff(g[0], g[2], m) / scale, 0.0, 1e-8);
    for (int k = 0; k < 3; k++) free(g[k]);
    free(v);
    free(N);
    free(nr);
    free(ref);
    free(rr);
    mo_world_destroy(w);

    /* the world's cache: one symbolic analysis for the whole run */
    if (mo_cholesky_available()) {
        for (int proj = 0; proj < 3; proj += 2) {
            w = new_world(MO_SOLVER_CHOLESKY);
            mo_solver_settings s = mo_world_solver(w);
            s.position_projections = proj;
            CHECK(mo_world_set_solver(w, &s) == MO_OK);
            build_chain(w, NL, b, j);
            double worst = 0.0;
            for (int i = 0; i < 60; i++) {
                mo_world_step(w);
                worst = fmax(worst, mo_world_last_stats(w).max_joint_error);
            }
            long an = -1, fa = -1;
            mo_cholmod_cache_counts(w->cholmod_cache, &an, &fa);
            CHECK(an == 1);
            CHECK(fa == 60);
            CHECK(mo_world_last_stats(w).regularisation == 0.0);
            /* the step's joint statistic is measured after the projection */
            CHECK_NEAR(mo_world_last_stats(w).max_joint_error, chain_drift(w, j, NL), 1e-15);
            if (proj) CHECK(worst < 1e-6);
            else CHECK(worst > 1e-4); /* the velocity-level step alone: the exact solve does not remove it */
            printf("  cholesky chain20 60 steps, %d projections: %ld analysis, %ld factorisations, drift %.2e m\n",
                   proj, an, fa, worst);
            mo_world_destroy(w);
        }
    }
    group_end("chain20: three solvers agree");
}

/* the ground and either a chain of NC spheres (r 0.05, 0.1 apart, spherical
 * joints between neighbours) lying on it, the last one pushed sideways
 * (boxes = 0), or two boxes joined by a spherical joint and a third box on
 * the first, the second pushed (boxes = 1) */
enum { NC = 30 };
static mo_world *mixed_world(int kind, int boxes, double mu, mo_body_id *bodies, mo_joint_id *joints)
{
    mo_world *w = new_world(kind);
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    g.shape.friction = mu;
    mo_body_id ground;
    if (mo_body_create(w, &g, &ground) != MO_OK) exit(2);
    int nb = boxes ? 3 : NC;
    const double bpos[3][3] = {{0, 0, 0.25}, {0.55, 0, 0.25}, {0.05, 0.02, 0.75}};
    for (int i = 0; i < nb; i++) {
        mo_body_def d = mo_default_body_def();
        d.shape.friction = mu;
        if (boxes) {
            d.mass = i == 2 ? 3.0 : 1.0;
            d.shape.type = MO_SHAPE_BOX;
            d.shape.half_extents = (mo_vec3){0.25, 0.25, 0.25};
            d.position = (mo_vec3){bpos[i][0], bpos[i][1], bpos[i][2]};
        } else {
            d.mass = 1.0;
            d.shape.type = MO_SHAPE_SPHERE;
            d.shape.radius = 0.05;
            d.position = (mo_vec3){0.1 * i, 0, 0.0495};
        }
        if (mo_body_create(w, &d, &bodies[i]) != MO_OK) exit(2);
    }
    for (int i = 0; i + 1 < nb && (!boxes || i == 0); i++) {
        mo_joint_def jd = mo_default_joint_def();
        jd.type = MO_JOINT_SPHERICAL;
        jd.body_a = bodies[i];
        jd.body_b = bodies[i + 1];
        double ha = boxes ? 0.275 : 0.05;
        jd.anchor_a = (mo_vec3){ha, 0, boxes ? 0.2 : 0.0};
        jd.anchor_b = (mo_vec3){-ha, 0, boxes ? 0.2 : 0.0};
        joints[i] = joint_or_exit(w, &jd, "mixed joint: ", 2);
    }
    mo_body_set_velocity(w, bodies[boxes ? 1 : nb - 1], (mo_vec3){0.0, boxes ? 0.3 : 1.0, 0.0}, (mo_vec3){0, 0, 0});
    return w;
}

static void test_mixed(void)
{
    group_begin();
    mo_body_id bx[NC];
    mo_joint_id jt[NC];
    /* the alternation on one step's problem, against PGS run long */
    mo_world *w = mixed_world(MO_SOLVER_PGS, 0, 0.0, bx, jt);
    for (int i = 0; i < 10; i++) mo_world_step(w);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    int m = p.m, n = p.n, ncontact = 0, nbil = 0;
    for (int k = 0; k < p.nblocks; k++) {
        ncontact += p.block_kind[k] == MO_BLOCK_CONTACT;
        if (p.block_kind[k] == MO_BLOCK_BILATERAL) nbil += p.block_row[k + 1] - p.block_row[k];
    }
    CHECK(ncontact == NC);
    CHECK(nbil == 3 * (NC - 1));
    double *gref = calloc((size_t)m, sizeof(double)), *vref = malloc(sizeof(double) * (size_t)n);
    mo_solver_settings sr = settings(1e-12, 100000);
    mo_solve_out orf = run(mo_solver_pgs, &p, &sr, gref, vref, NULL, NULL, NULL);
    CHECK(orf.converged);
    /* PGS's sweeps to the tolerance the alternation is run to below */
    double *g10 = calloc((size_t)m, sizeof(double)), *v10 = malloc(sizeof(double) * (size_t)n);
    mo_solver_settings s10 = settings(1e-10, 100000);
    mo_solve_out o10 = run(mo_solver_pgs, &p, &s10, g10, v10, NULL, NULL, NULL);
    free(g10);
    free(v10);
    double vs = fmax(1e-3, max_abs(vref, n));
    for (int k = 0; k < 3; k++) {
        if (solvers[k].kind == MO_SOLVER_CHOLESKY && !mo_cholesky_available()) continue;
        double *g = calloc((size_t)m, sizeof(double)), *v = malloc(sizeof(double) * (size_t)n);
        double *rh = malloc(sizeof(double) * 3000), *eh = malloc(sizeof(double) * 3000);
        mo_solver_settings s = settings(1e-10, 3000);
        s.record_residuals = true;
        mo_solve_out o = run(solvers[k].fn, &p, &s, g, v, rh, eh, NULL);
        CHECK(o.converged);
        CHECK(o.residual <= 1e-10);
        CHECK(o.hist_count == o.iterations);
        CHECK(o.hist_count > 0 && fabs(rh[o.hist_count - 1] - o.residual) <= 1e-12);
        CHECK_NEAR(max_diff(v, vref, n) / vs, 0.0, 1e-8);
        CHECK(o.iterations < o10.iterations);
        printf("  %-8s mixed chain on the ground (%d contacts, %d bilateral rows): %d outer iterations to 1e-10 "
               "(pgs: %d sweeps), |v - v_pgs| %.2e\n",
               solvers[k].name, ncontact, nbil, o.iterations, o10.iterations, max_diff(v, vref, n));
        free(g); free(v); free(rh); free(eh);
    }
    free(gref);
    free(vref);
    mo_world_destroy(w);

    /* 2 s of simulation of both scenes with each solver */
    for (int boxes = 0; boxes < 2; boxes++)
        for (int k = 0; k < 3; k++) {
            if (solvers[k].kind == MO_SOLVER_CHOLESKY && !mo_cholesky_available()) continue;
            w = mixed_world(solvers[k].kind, boxes, 0.5, bx, jt);
            mo_solver_settings s = mo_world_solver(w);
            s.tolerance = 1e-6;
            s.max_iterations = 100;
            CHECK(mo_world_set_solver(w, &s) == MO_OK);
            double worst_joint = 0.0, worst_pen = 0.0;
            int conv = 0, nan = 0;
            for (int i = 0; i < 240; i++) {
                mo_world_step(w);
                mo_step_stats st = mo_world_last_stats(w);
                worst_joint = fmax(worst_joint, st.max_joint_error);
                worst_pen = fmax(worst_pen, st.max_penetration);
                conv += st.converged;
                nan += st.nan_warnings;
            }
            mo_vec3 pa, pc;
            mo_body_position(w, bx[0], &pa);
            mo_body_position(w, bx[boxes ? 2 : NC - 1], &pc);
            CHECK(nan == 0);
            CHECK(worst_joint < 1e-3);
            CHECK(worst_pen < 5e-3);
            CHECK(fabs(pa.z - (boxes ? 0.25 : 0.05)) < 5e-3);
            CHECK(fabs(pc.z - (boxes ? 0.75 : 0.05)) < 1e-2);
            printf("  %-8s mixed %s 2 s: joint error <= %.2e m, penetration <= %.2e m, top z %.4f, "
                   "%d/240 steps converged to 1e-6\n",
                   solvers[k].name, boxes ? "boxes" : "chain", worst_joint, worst_pen, pc.z, conv);
            mo_world_destroy(w);
        }
    group_end("mixed: joint + contacts");
}

/* runs the n-link chain for steps with settings s; returns the worst joint drift over the run, *ms per step */
static double chain_run_sub(int nl, int steps, const mo_solver_settings *s, int substeps, double *ms)
{
    mo_world *w = new_world(s->kind);
    CHECK(mo_world_set_solver(w, s) == MO_OK);
    CHECK(mo_world_set_substeps(w, substeps) == MO_OK);
    mo_body_id *b = malloc(sizeof(mo_body_id) * (size_t)nl);
    mo_joint_id *j = malloc(sizeof(mo_joint_id) * (size_t)nl);
    build_chain(w, nl, b, j);
    double worst = 0.0, t0 = now_s();
    for (int i = 0; i < steps; i++) {
        mo_world_step(w);
        worst = fmax(worst, chain_drift(w, j, nl));
    }
    *ms = 1e3 * (now_s() - t0) / steps;
    free(b);
    free(j);
    mo_world_destroy(w);
    return worst;
}

static double chain_run(int nl, int steps, const mo_solver_settings *s, double *ms)
{
    return chain_run_sub(nl, steps, s, 1, ms);
}

static void test_chain200(void)
{
    group_begin();
    if (!mo_cholesky_available()) {
        printf("  no CHOLMOD in this build: chain200 skipped\n");
        group_end("chain200 drift (skipped)");
        return;
    }
    const int NL = 200, steps = 120;
    mo_solver_settings sc = mo_default_solver_settings();
    sc.kind = MO_SOLVER_CHOLESKY;
    sc.position_projections = 2;
    double ms_c = 0.0, ms_p = 0.0, ms_c0 = 0.0;
    double dc = chain_run(NL, steps, &sc, &ms_c);
    sc.position_projections = 0;
    double dc0 = chain_run(NL, steps, &sc, &ms_c0);
    /* PGS's time per sweep, then at least Cholesky's (with projections) time per step */
    mo_solver_settings sp = mo_default_solver_settings();
    sp.kind = MO_SOLVER_PGS;
    sp.max_iterations = 20;
    double ms20 = 0.0;
    chain_run(NL, 10, &sp, &ms20);
    int iters = (int)ceil(1.25 * 20.0 * ms_c / fmax(ms20, 1e-6)); /* 25 % margin against timing noise */
    if (iters < 20) iters = 20;
    if (iters > 5000) iters = 5000;
    sp.max_iterations = iters;
    double dp = chain_run(NL, steps, &sp, &ms_p);
    CHECK(dc < 1e-3);
    CHECK(dp > 10.0 * dc);
    printf("  chain200, 1 s, worst joint drift: cholesky + 2 projections %.3e m at %.3f ms/step; cholesky alone "
           "%.3e m at %.3f ms/step; pgs (%d sweeps) %.3e m at %.3f ms/step\n",
           dc, ms_c, dc0, ms_c0, iters, dp, ms_p);
    /* substeps: the drift is the position update's O(h^2), so 4 substeps of
     * h/4 cut it by far more than 16 while the motion stays moderate */
    double ms_s = 0.0;
    sc.position_projections = 0;
    double ds = chain_run_sub(NL, steps, &sc, 4, &ms_s);
    CHECK(ds < 1e-4);
    CHECK(dc0 > 100.0 * ds);
    printf("  chain200, 1 s: cholesky with 4 substeps %.3e m at %.3f ms/step\n", ds, ms_s);
    group_end("chain200 drift");
}

/* k substeps are exactly k steps of h / k */
static void test_substeps(void)
{
    group_begin();
    enum { NL = 20 };
    mo_world *a = new_world(MO_SOLVER_PGS), *b = new_world(MO_SOLVER_PGS);
    mo_body_id ba[NL], bb[NL];
    mo_joint_id ja[NL], jb[NL];
    build_chain(a, NL, ba, ja);
    build_chain(b, NL, bb, jb);
    CHECK(mo_world_set_substeps(a, 3) == MO_OK);
    CHECK(mo_world_substeps(a) == 3);
    CHECK(mo_world_set_time_step(b, mo_world_time_step(a) / 3.0) == MO_OK);
    int iters_a = 0, iters_b = 0;
    for (int i = 0; i < 40; i++) {
        CHECK(mo_world_step(a) == MO_OK);
        iters_a += mo_world_last_stats(a).iterations;
        for (int k = 0; k < 3; k++) {
            CHECK(mo_world_step(b) == MO_OK);
            iters_b += mo_world_last_stats(b).iterations;
        }
    }
    double dmax = 0.0;
    for (int i = 0; i < NL; i++) {
        mo_vec3 pa, pb;
        mo_body_position(a, ba[i], &pa);
        mo_body_position(b, bb[i], &pb);
        dmax = fmax(dmax, fmax(fabs(pa.x - pb.x), fmax(fabs(pa.y - pb.y), fabs(pa.z - pb.z))));
    }
    CHECK(dmax == 0.0);
    CHECK(iters_a == iters_b);
    /* with the Newton solver the linear (inner) iterations are summed over the substeps too */
    {
        mo_world *na = new_world(MO_SOLVER_NEWTON), *nb = new_world(MO_SOLVER_NEWTON);
        mo_body_id xa[NL], xb[NL];
        mo_joint_id ya[NL], yb[NL];
        build_chain(na, NL, xa, ya);
        build_chain(nb, NL, xb, yb);
        CHECK(mo_world_set_substeps(na, 3) == MO_OK);
        CHECK(mo_world_set_time_step(nb, mo_world_time_step(na) / 3.0) == MO_OK);
        long lin_a = 0, lin_b = 0;
        for (int i = 0; i < 5; i++) {
            CHECK(mo_world_step(na) == MO_OK);
            lin_a += mo_world_last_stats(na).linear_iterations;
            for (int k = 0; k < 3; k++) {
                CHECK(mo_world_step(nb) == MO_OK);
                lin_b += mo_world_last_stats(nb).linear_iterations;
            }
        }
        CHECK(lin_a > 0 && lin_a == lin_b);
        mo_world_destroy(na);
        mo_world_destroy(nb);
    }
    CHECK_NEAR(mo_world_time(a), 40.0 / 120.0, 1e-12);
    CHECK(mo_world_time_step(a) == 1.0 / 120.0); /* restored after every step */
    /* refused values leave the setting alone */
    CHECK(mo_world_set_substeps(a, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(a), "world substeps must be in [1, 1000], got 0");
    CHECK(mo_world_set_substeps(a, 1001) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_substeps(a) == 3);
    mo_world_def wd = mo_default_world_def();
    CHECK(wd.substeps == 1);
    wd.substeps = -2;
    mo_world *c = NULL;
    char err[256];
    CHECK(mo_world_create(&wd, &c, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "world substeps must be in [1, 1000], got -2");
    CHECK(c == NULL);
    printf("  chain20, 40 steps of 3 substeps vs 120 steps of h/3: max |dx| %.1e, iterations %d / %d\n", dmax,
           iters_a, iters_b);
    mo_world_destroy(a);
    mo_world_destroy(b);
    group_end("substeps");
}

static void test_settings(void)
{
    group_begin();
    mo_world *w = new_world(MO_SOLVER_PGS);
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_CHOLESKY;
    if (mo_cholesky_available()) {
        CHECK(mo_world_set_solver(w, &s) == MO_OK);
    } else {
        CHECK(mo_world_set_solver(w, &s) == MO_ERR_INVALID_ARGUMENT);
        CHECK_STR(mo_world_last_error(w),
                  "solver 'cholesky' needs CHOLMOD, which this build of Moreau does not have (install "
                  "libsuitesparse-dev and configure with -Dcholmod=enabled); use 'minres' or 'cg' instead");
    }
    s.kind = MO_SOLVER_MINRES;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    CHECK(mo_solver_available(MO_SOLVER_CHOLESKY) == mo_cholesky_available());
    CHECK(mo_solver_available(MO_SOLVER_MINRES) && mo_solver_available(MO_SOLVER_PGS));
    CHECK(!mo_solver_available((mo_solver_kind)99) && !mo_solver_available((mo_solver_kind)-1));
    CHECK(mo_solver_row_of(MO_SOLVER_CG)->solve == mo_solver_cg);
    CHECK(mo_solver_row_of(MO_SOLVER_MINRES)->solve == mo_solver_minres);
    CHECK(mo_solver_row_of(MO_SOLVER_CHOLESKY)->solve == mo_solver_cholesky);
    mo_world_destroy(w);
    group_end("settings");
}

/* P-SPG-FB on bilateral-only problems against CG and MINRES. The Tasora
 * paper says SPG "converges as fast as" CG / MINRES on linear problems; the
 * issue's target is P-SPG-FB within 2x of MINRES's iterations on b1_net-like
 * problems. Measured here (cold starts, the same assembled problem, CCP
 * residual 1e-8): the 2x is not reached. The SPG solution must equal the
 * Krylov ones. SPG's iteration counts move with rounding (b1_net: 1169 on
 * the problem, 1169-1798 over it and six copies with r moved by 1e-15
 * relative; moreau-bench convergence --perturb shows the same at 1e-6),
 * MINRES's by at most one, so the ratios are bounded in the median
 * over the seven, at what holds today with a margin (b1_net: 5.1x, 3.0x
 * with ABBmin steps; chains: 9.5x / 9.3x at 20 links, 20x / 10x at 100), so
 * that a regression shows. chebyshev_reference shows why 2x is out of a
 * gradient method's reach here: the best polynomial for the spectrum's
 * interval already needs more than 2x (asserted). */

/* What knowing the spectrum's interval is worth. Every gradient
 * method x+ = x - a_k P^-1 g leaves the residual p_k(N P^-1) r0 with p_k a
 * polynomial of degree k, p_k(0) = 1; MINRES takes the smallest such
 * residual (in its norm) over the same polynomials, so it bounds every
 * gradient step rule from below. The best a method can do knowing only the
 * interval [l_min, l_max] of P^-1 N's spectrum is Chebyshev's polynomial on
 * it. The interval here comes from PCG's own Lanczos coefficients (its Ritz
 * values at convergence), P = diag N (P-SPG-FB's preconditioner: every b1_net
 * block is diagonal), and the Chebyshev semi-iteration (Saad, Iterative
 * Methods, Alg. 12.1) runs to the same CCP residual. Returns its iterations
 * (-1: not within max_it), those to 1e-6 on the way, the interval's ends, and
 * the iterations its theory promises: the residual falls at least as
 * 2 c^k, c = (sqrt(kappa) - 1) / (sqrt(kappa) + 1), in the P^-1-norm, which is
 * within sqrt(max P / min P) of the 2-norm measured (so a slow, broken
 * iteration would show). */
static int chebyshev_reference(const mo_problem *p, double tol, int max_it, double *lmin, double *lmax,
                               int *its_1e6, double *bound)
{
    const int m = p->m;
    double *work = malloc(sizeof(double) * (mo_problem_apply_work(p) + 1));
    double *v = malloc(sizeof(double) * 5 * (size_t)m);
    double *g = v, *z = v + m, *d = v + 2 * m, *q = v + 3 * m, *x = v + 4 * m;
    double *al = malloc(sizeof(double) * (size_t)max_it), *be = malloc(sizeof(double) * (size_t)max_it);
    /* PCG on N x = -r from 0, keeping its alpha_k and beta_k */
    memcpy(g, p->r, sizeof(double) * (size_t)m);
    double rz = 0.0;
    for (int i = 0; i < m; i++) {
        z[i] = g[i] / p->diag[i];
        d[i] = -z[i];
        rz += g[i] * z[i];
    }
    int n = 0;
    while (n < max_it) {
        mo_problem_apply(p, d, q, work);
        double dq = 0.0;
        for (int i = 0; i < m; i++) dq += d[i] * q[i];
        double a = rz / dq, gg = 0.0, rz2 = 0.0;
        for (int i = 0; i < m; i++) {
            g[i] += a * q[i];
            z[i] = g[i] / p->diag[i];
            gg += g[i] * g[i];
            rz2 += g[i] * z[i];
        }
        al[n] = a;
        be[n] = rz2 / rz;
        rz = rz2;
        n++;
        if (sqrt(gg) <= tol) break; /* the extreme Ritz values have settled long before; past the
                                       round-off floor the null space of a singular N drifts in */
        for (int i = 0; i < m; i++) d[i] = -z[i] + be[n - 1] * d[i];
    }
    /* Lanczos tridiagonal of P^-1 N from them (Saad, Iterative Methods, 6.7.3):
     * T_jj = 1/a_j + b_{j-1}/a_{j-1}, T_j,j+1 = sqrt(b_j)/a_j; its extreme
     * eigenvalues by bisection on Sturm counts (eigenvalues below t) */
    double *td = q, *te = z; /* PCG's vectors are free now; n <= m is kept for their size */
    if (n > m) n = m;
    double top = 0.0;
    for (int j = 0; j < n; j++) {
        td[j] = 1.0 / al[j] + (j ? be[j - 1] / al[j - 1] : 0.0);
        te[j] = sqrt(be[j]) / al[j];
        top = fmax(top, td[j] + 2.0 * te[j]);
    }
    double ends[2];
    for (int e = 0; e < 2; e++) {
        double lo = 0.0, up = top;
        for (int it = 0; it < 200; it++) {
            double t = 0.5 * (lo + up), u = td[0] - t;
            int below = u < 0.0;
            for (int j = 1; j < n; j++) {
                u = td[j] - t - te[j - 1] * te[j - 1] / (u != 0.0 ? u : 1e-300);
                below += u < 0.0;
            }
            if (below >= (e == 0 ? 1 : n)) up = t;
            else lo = t;
        }
        ends[e] = up;
    }
    *lmin = ends[0];
    *lmax = ends[1];
    double r0 = 0.0, pmin = INFINITY, pmax = 0.0;
    for (int i = 0; i < m; i++) {
        r0 += p->r[i] * p->r[i];
        pmin = fmin(pmin, p->diag[i]);
        pmax = fmax(pmax, p->diag[i]);
    }
    const double sk = sqrt(ends[1] / ends[0]), c = (sk - 1.0) / (sk + 1.0);
    *bound = (log(2.0 * sqrt(r0) / tol) + 0.5 * log(pmax / pmin)) / -log(c);
    /* Chebyshev semi-iteration on [lmin, lmax], preconditioned by P, from 0 */
    const double theta = 0.5 * (ends[1] + ends[0]), delta = 0.5 * (ends[1] - ends[0]), sigma = theta / delta;
    memset(x, 0, sizeof(double) * (size_t)m);
    memcpy(g, p->r, sizeof(double) * (size_t)m);
    double rho = 1.0 / sigma;
    for (int i = 0; i < m; i++) d[i] = -g[i] / p->diag[i] / theta;
    int found = -1;
    *its_1e6 = -1;
    for (int k = 1; k <= max_it; k++) {
        for (int i = 0; i < m; i++) x[i] += d[i];
        mo_problem_apply(p, x, q, work);
        for (int i = 0; i < m; i++) g[i] = q[i] + p->r[i];
        double ccp;
        mo_problem_residuals(p, x, g, &ccp, NULL);
        if (ccp <= 1e-6 && *its_1e6 < 0) *its_1e6 = k;
        if (ccp <= tol) {
            found = k;
            break;
        }
        double rho1 = 1.0 / (2.0 * sigma - rho);
        for (int i = 0; i < m; i++) d[i] = rho1 * rho * d[i] - 2.0 * rho1 / delta * g[i] / p->diag[i];
        rho = rho1;
    }
    free(work);
    free(v);
    free(al);
    free(be);
    return found;
}

#define NPERTURB 6 /* odd count with the unperturbed one: a median without averaging */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

typedef struct ratio_run {
    int its[5];
    double res[5], diff; /* max |g_k - g_cg| / max |g_cg| over the others */
    int cheb_its, cheb6; /* chebyshev_reference's iterations (to 1e-8, 1e-6) when asked, else 0 */
    double cheb_bound;   /* and what its theory promises to 1e-8 */
    int lo[5], med[5], hi[5]; /* over the problem and NPERTURB copies with r moved at rounding level
                                 (MINRES, SPG, SPG-ABBmin) */
    double lmin, lmax;
} ratio_run;

/* the settings of spg_krylov_run's solver k: cold start to 1e-8; k = 4 is P-SPG-FB with ABBmin steps */
static mo_solver_settings ratio_settings(int k)
{
    mo_solver_settings s = settings(1e-8, 20000);
    s.warm_start = false;
    if (k == 4) s.spg.step_rule = MO_SPG_ABBMIN;
    return s;
}

static ratio_run spg_krylov_run(mo_world *w, const char *what, bool chebyshev)
{
    static const struct {
        mo_solver_fn fn;
        const char *name;
    } sv[5] = {{mo_solver_cg, "cg"},
               {mo_solver_minres, "minres"},
               {mo_solver_spg, "spg"},
               {mo_solver_apgd, "apgd"},
               {mo_solver_spg, "spg-abb"}};
    ratio_run rr;
    memset(&rr, 0, sizeof rr);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    if (mo_step_assemble(MO_STEP_CTX(w), &p) != 0) {
        CHECK(0);
        return rr;
    }
    int m = p.m, n = p.n;
    double *v = malloc(sizeof(double) * (size_t)n), *g[5];
    for (int k = 0; k < 5; k++) {
        g[k] = calloc((size_t)m, sizeof(double));
        mo_solver_settings s = ratio_settings(k);
        mo_solve_out o = run(sv[k].fn, &p, &s, g[k], v, NULL, NULL, NULL);
        CHECK(o.converged);
        rr.its[k] = o.iterations;
        rr.res[k] = o.residual;
        printf("  %-8s %-7s %5d iterations to CCP residual %.2e\n", what, sv[k].name, o.iterations, o.residual);
    }
    double scale = max_abs(g[0], m);
    for (int k = 1; k < 5; k++) rr.diff = fmax(rr.diff, max_diff(g[k], g[0], m) / scale);
    /* the same solves with every r_i scaled by 1 + 1e-15 u (u uniform in
     * [-1, 1], fixed seeds): what reordering a sum does. MINRES's count
     * barely moves, Barzilai-Borwein ones spread widely, so SPG's bounds are
     * on medians (MINRES, SPG and SPG-ABBmin; CG as MINRES, APGD not moved). */
    double *rp = malloc(sizeof(double) * (size_t)m);
    mo_problem pp = p;
    pp.r = rp;
    for (int k = 1; k < 5; k++) {
        if (k == 3) continue; /* APGD's counts do not move either (moreau-bench --perturb); spared for time */
        int its[NPERTURB + 1];
        its[0] = rr.its[k];
        uint64_t z = 0x9e3779b97f4a7c15ull;
        for (int t = 1; t <= NPERTURB; t++) {
            for (int i = 0; i < m; i++) rp[i] = p.r[i] * (1.0 + 1e-15 * xorshift64s_range(&z, -1.0, 1.0));
            mo_solver_settings s = ratio_settings(k);
            memset(g[k], 0, sizeof(double) * (size_t)m);
            mo_solve_out o = run(sv[k].fn, &pp, &s, g[k], v, NULL, NULL, NULL);
            CHECK(o.converged);
            its[t] = o.iterations;
        }
        qsort(its, NPERTURB + 1, sizeof(int), cmp_int);
        rr.lo[k] = its[0];
        rr.med[k] = its[NPERTURB / 2];
        rr.hi[k] = its[NPERTURB];
        printf("  %-8s %-7s %d perturbed r: %d [%d-%d] iterations (median [min-max])\n", what, sv[k].name,
               NPERTURB, rr.med[k], rr.lo[k], rr.hi[k]);
    }
    free(rp);
    if (chebyshev) rr.cheb_its = chebyshev_reference(&p, 1e-8, 20000, &rr.lmin, &rr.lmax, &rr.cheb6, &rr.cheb_bound);
    for (int k = 0; k < 5; k++) free(g[k]);
    free(v);
    return rr;
}

static void test_spg_vs_krylov(void)
{
    group_begin();
    static const int sizes[] = {20, 100};
    static const double bound[] = {12.0, 25.0}, bound_abb[] = {12.0, 12.0};
    for (int si = 0; si < 2; si++) {
        const int NL = sizes[si];
        mo_world *w = new_world(MO_SOLVER_PGS);
        mo_body_id *b = malloc(sizeof(mo_body_id) * (size_t)NL);
        mo_joint_id *j = malloc(sizeof(mo_joint_id) * (size_t)NL);
        build_chain(w, NL, b, j);
        for (int i = 0; i < 30; i++) mo_world_step(w);
        char what[32];
        snprintf(what, sizeof what, "chain%d", NL);
        ratio_run rr = spg_krylov_run(w, what, true);
        /* the chain's N is nonsingular: one solution; 1e-8 residuals put them within ~1e-6 */
        CHECK(rr.diff < 1e-5);
        CHECK(rr.med[2] <= bound[si] * rr.med[1]);
        CHECK(rr.med[4] <= bound_abb[si] * rr.med[1]);
        CHECK(rr.hi[1] - rr.lo[1] <= 2); /* MINRES: rounding does not move it */
        CHECK(rr.cheb_its > 2 * rr.its[1]); /* see chebyshev_reference: 5.9x at 20 and 100 links */
        CHECK(rr.cheb_its > 0 && rr.cheb_its <= rr.cheb_bound + 2.0);
        printf("  %-8s spg / minres iterations %.1f (ABBmin steps: %.1f) in the median, solutions agree to %.1e\n",
               what, (double)rr.med[2] / rr.med[1], (double)rr.med[4] / rr.med[1], rr.diff);
        printf("  %-8s P^-1 N on [%.3e, %.3f] (condition %.0f): Chebyshev %d iterations (theory: <= %.0f), %.2fx "
               "MINRES's\n",
               what, rr.lmin, rr.lmax, rr.lmax / rr.lmin, rr.cheb_its, rr.cheb_bound, (double)rr.cheb_its / rr.its[1]);
        free(b);
        free(j);
        mo_world_destroy(w);
    }
    /* b1_net (SCENES.md): 2991 bilateral rows, redundant (N singular), after
     * 120 steps of the scene with APGD; impulses are not unique, so only residuals and
     * iterations are compared */
    {
        mo_world_def wd = mo_default_world_def();
        wd.solver.kind = MO_SOLVER_APGD; /* as moreau-bench convergence b1_net */
        wd.solver.max_iterations = 100;
        mo_world *w = world_or_exit(&wd, "world: ", 2);
        mo_scene sc;
        char err[256];
        CHECK(mo_scene_build("b1_net", w, &sc, err, sizeof err) == MO_OK);
        for (int i = 0; i < 120; i++) mo_world_step(w);
        ratio_run rr = spg_krylov_run(w, "b1_net", true);
        CHECK(rr.med[2] <= 6.0 * rr.med[1]);
        CHECK(rr.med[4] <= 3.5 * rr.med[1]);
        CHECK(rr.hi[1] - rr.lo[1] <= 2);
        printf("  b1_net   spg / minres iterations %.1f, ABBmin steps %.1f in the median (the 2x target is not met)\n",
               (double)rr.med[2] / rr.med[1], (double)rr.med[4] / rr.med[1]);
        /* the interval alone is not enough for 2x: Chebyshev on the exact
         * interval of P^-1 N needs more than twice MINRES's iterations */
        CHECK(rr.cheb_its > 2 * rr.its[1]);
        CHECK(rr.cheb_its > 0 && rr.cheb_its <= rr.cheb_bound + 2.0);
        CHECK(rr.lmin > 0.0 && rr.lmax > rr.lmin);
        printf("  b1_net   P^-1 N on [%.3e, %.3f] (condition %.0f): Chebyshev %d iterations (theory: <= %.0f), %.2fx "
               "MINRES's (to 1e-6: %d)\n",
               rr.lmin, rr.lmax, rr.lmax / rr.lmin, rr.cheb_its, rr.cheb_bound, (double)rr.cheb_its / rr.its[1],
               rr.cheb6);
        mo_scene_free(&sc);
        mo_world_destroy(w);
    }
    group_end("P-SPG-FB against CG and MINRES (bilateral)");
}

int main(void)
{
    printf("CHOLMOD: %s\n", mo_cholesky_available() ? "yes" : "no (cholesky parts skipped)");
    test_random_spd();
    test_histories();
    test_singular();
    test_chain20();
    test_spg_vs_krylov();
    test_mixed();
    test_chain200();
    test_substeps();
    test_settings();
    return check_groups_result();
}
