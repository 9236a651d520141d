/* test_newton_products.c: the Newton Schur system's CPU kernels
 * (solver/newton_linear.c, issue 21 item 4).
 *
 *   groups    mo_newton_groups on a hand-made pattern: runs of rows with one
 *             column list (12-column FEM-like groups of 6, 5 and 9 rows: 8 + 1,
 *             a 9-column group of 3), rows that repeat a column and rows over
 *             MO_NEWTON_GROUP_LEN columns stay alone; the grouped products
 *             (t = M~^-1 Jm^T x, y = A x) equal the row-by-row ones bit for bit
 *             with masked rows and zero entries of x, on 1 and 2 threads.
 *   pcr       mo_newton_linear_solve's PCR on the CPU (fused vector passes,
 *             grouped products) against PCR written out here in plain loops in
 *             the order of the separate backend operations it replaced: the
 *             same iterate, history and count bit for bit, for budgets 1, 7
 *             and 80 and with a tolerance; the solution of the long run
 *             against a dense solve. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "solver/newton.h"

#define N 40  /* DOFs: 10 "nodes" of 3 and 10 more */
#define MAXR 64
#define MAXNZ 1024

typedef struct sysbuf {
    int m, rp[MAXR + 1], col[MAXNZ], grp[MAXR + 1];
    double val[MAXNZ], wval[MAXNZ], cd[MAXR], diag[MAXR];
    uint8_t mask[MAXR];
} sysbuf;

/* appends nrows rows over the columns c (len), random values */
static void add_rows(sysbuf *b, int nrows, const int *c, int len, uint64_t *seed)
{
    for (int i = 0; i < nrows; i++) {
        int r = b->m++, k0 = b->rp[r];
        for (int q = 0; q < len; q++) {
            b->col[k0 + q] = c[q];
            b->val[k0 + q] = sm64_uniform(seed, -1, 1);
        }
        b->rp[r + 1] = k0 + len;
    }
}

/* the node columns of nodes a, b, c, d */
static int node_cols(int *c, const int *nodes, int nn)
{
    for (int i = 0; i < nn; i++)
        for (int k = 0; k < 3; k++) c[3 * i + k] = 3 * nodes[i] + k;
    return 3 * nn;
}

/* the pattern, values (wval = w_c val with positive per-column weights: A symmetric positive definite) and
   the system over it */
static mo_newton_system build(sysbuf *b, int threads)
{
    uint64_t seed = 5;
    memset(b, 0, sizeof *b);
    int c[64];
    static const int e1[] = {0, 1, 2, 3}, e2[] = {2, 3, 4, 5}, e3[] = {5, 6, 7, 8}, e4[] = {1, 4, 8, 9};
    add_rows(b, 6, c, node_cols(c, e1, 4), &seed);       /* rows 0-5: an element's 6 rows */
    add_rows(b, 6, c, node_cols(c, e2, 4), &seed);       /* 6-11 */
    add_rows(b, 5, c, node_cols(c, e3, 4), &seed);       /* 12-16: 5 rows (pairs and one left) */
    int len = node_cols(c, e4, 3);
    c[len++] = 30; c[len++] = 31; c[len++] = 32;          /* a node and a "body": 9 + 3 columns... */
    add_rows(b, 3, c, 9, &seed);                         /* 17-19: ...of which 9: a 9-column group */
    int dup[4] = {33, 34, 33, 35};
    add_rows(b, 2, dup, 4, &seed);                       /* 20, 21: a column twice: alone */
    int wide[30];
    for (int q = 0; q < 30; q++) wide[q] = q;
    add_rows(b, 2, wide, 30, &seed);                     /* 22, 23: over GROUP_LEN: alone */
    add_rows(b, 9, c, node_cols(c, e4, 4), &seed);       /* 24-32: 9 rows: 8 + 1 */
    int one[1] = {36};
    add_rows(b, 1, one, 1, &seed);                       /* 33 */
    double w[N];
    for (int j = 0; j < N; j++) w[j] = sm64_uniform(&seed, 0.5, 2.0);
    for (int k = 0; k < b->rp[b->m]; k++) b->wval[k] = w[b->col[k]] * b->val[k];
    b->mask[3] = b->mask[14] = b->mask[21] = b->mask[25] = 1;
    const double h = 0.01;
    for (int r = 0; r < b->m; r++) {
        b->cd[r] = b->mask[r] ? 1.0 : 1e-7 * (1.0 + (double)(r % 3));
        double d = 0.0;
        for (int k = b->rp[r]; k < b->rp[r + 1]; k++) d += b->val[k] * b->wval[k];
        b->diag[r] = b->mask[r] ? 1.0 : h * h * d + b->cd[r];
    }
    mo_newton_system s;
    memset(&s, 0, sizeof s);
    s.n = N;
    s.m = b->m;
    s.threads = threads;
    s.h = h;
    s.row_ptr = b->rp;
    s.col = b->col;
    s.val = b->val;
    s.wval = b->wval;
    s.mask = b->mask;
    s.cd = b->cd;
    s.diag = b->diag;
    return s;
}

static void test_groups(void)
{
    sysbuf b;
    mo_newton_system s = build(&b, 1);
    int ng = mo_newton_groups(s.m, s.row_ptr, s.col, b.grp);
    static const int want[] = {0, 6, 12, 17, 20, 21, 22, 23, 24, 32, 33, 34};
    CHECK(ng == (int)(sizeof want / sizeof want[0]) - 1);
    for (int g = 0; g <= ng && g < (int)(sizeof want / sizeof want[0]); g++) CHECK(b.grp[g] == want[g]);
    uint64_t seed = 9;
    double x[MAXR], t0[N], t1[N], y0[MAXR], y1[MAXR], w0[N], w1[N];
    for (int rep = 0; rep < 3; rep++) {
        for (int r = 0; r < s.m; r++) x[r] = sm64_uniform(&seed, -1, 1);
        x[1] = x[13] = x[26] = 0.0;
        if (rep == 2) x[0] = -0.0; /* skipped like a zero */
        for (int th = 1; th <= 2; th++) {
            mo_newton_system a = s, g = s;
            a.threads = g.threads = th;
            g.ngrp = ng;
            g.grp = b.grp;
            mo_newton_jt(&a, x, t0);
            mo_newton_jt(&g, x, t1);
            CHECK(!memcmp(t0, t1, sizeof t0));
            mo_newton_apply(&a, x, y0, w0);
            mo_newton_apply(&g, x, y1, w1);
            CHECK(!memcmp(y0, y1, (size_t)s.m * sizeof(double)));
        }
    }
    /* the products are A's: y against J, wval formed densely */
    double J[MAXR][N], W[MAXR][N];
    memset(J, 0, sizeof J);
    memset(W, 0, sizeof W);
    for (int r = 0; r < s.m; r++)
        for (int k = b.rp[r]; k < b.rp[r + 1]; k++) {
            J[r][b.col[k]] += b.val[k];
            W[r][b.col[k]] += b.wval[k];
        }
    double err = 0.0, ymax = 0.0;
    for (int r = 0; r < s.m; r++) {
        double a = 0.0;
        for (int j = 0; j < N; j++) {
            double t = 0.0;
            for (int q = 0; q < s.m; q++)
                if (!b.mask[q]) t += W[q][j] * x[q];
            a += (b.mask[r] ? 0.0 : J[r][j]) * t;
        }
        double y = s.h * s.h * a + b.cd[r] * x[r];
        err = fmax(err, fabs(y - y1[r]));
        ymax = fmax(ymax, fabs(y));
    }
    CHECK(err <= 1e-12 * ymax);
}

/* PCR as the separate backend operations did it (newton_linear.c before the fused passes) */
static int ref_pcr(const mo_newton_system *s, int iters, double tol, const double *b, double *x, double *hist,
                   double *rel)
{
    const int m = s->m;
    const double *d = s->diag;
    double r[MAXR], z[MAXR], p[MAXR], ap[MAXR], az[MAXR], q[MAXR], work[N];
    memset(x, 0, (size_t)m * sizeof(double));
    double bn = 0.0;
    for (int i = 0; i < m; i++) bn += b[i] * b[i] / d[i];
    bn = sqrt(bn);
    *rel = 0.0;
    if (!(bn > 0.0)) return 0;
    for (int i = 0; i < m; i++) { r[i] = b[i]; z[i] = r[i] / d[i]; p[i] = z[i]; }
    mo_newton_apply(s, z, az, work);
    double zaz = 0.0;
    for (int i = 0; i < m; i++) { ap[i] = az[i]; zaz += z[i] * az[i]; }
    int it = 0;
    *rel = 1.0;
    while (it < iters) {
        double den = 0.0;
        for (int i = 0; i < m; i++) q[i] = ap[i] / d[i];
        for (int i = 0; i < m; i++) den += ap[i] * q[i];
        if (!(den > 0.0) || !(zaz > 0.0)) break;
        double alpha = zaz / den;
        if (!isfinite(alpha)) break;
        double rr = 0.0;
        for (int i = 0; i < m; i++) x[i] += alpha * p[i];
        for (int i = 0; i < m; i++) r[i] += -alpha * ap[i];
        for (int i = 0; i < m; i++) z[i] += -alpha * q[i];
        for (int i = 0; i < m; i++) rr += r[i] * r[i] / d[i];
        double rel1 = sqrt(rr) / bn;
        if (!isfinite(rel1)) break;
        it++;
        *rel = rel1;
        hist[it - 1] = rel1;
        if (rel1 <= tol || rel1 <= 1e-15) break;
        mo_newton_apply(s, z, az, work);
        double zaz1 = 0.0;
        for (int i = 0; i < m; i++) zaz1 += z[i] * az[i];
        double beta = zaz1 / zaz;
        if (!isfinite(beta)) break;
        zaz = zaz1;
        for (int i = 0; i < m; i++) p[i] = z[i] + beta * p[i];
        for (int i = 0; i < m; i++) ap[i] = az[i] + beta * ap[i];
    }
    return it;
}

static void test_pcr(void)
{
    sysbuf b;
    mo_newton_system s = build(&b, 1);
    uint64_t seed = 21;
    double rhs[MAXR];
    for (int r = 0; r < s.m; r++) rhs[r] = sm64_uniform(&seed, -1, 1);
    double *scratch = malloc(mo_newton_linear_scratch(N, s.m) * sizeof(double));
    CHECK(scratch != NULL);
    if (!scratch) return;
    static const int budgets[] = {1, 7, 80, 80};
    double xr[MAXR], xs[MAXR], hr[100], hs[100];
    for (int v = 0; v < 4; v++) {
        mo_newton_settings ns = mo_default_solver_settings().newton;
        ns.linear = MO_NEWTON_PCR;
        ns.linear_iterations = budgets[v];
        ns.linear_tolerance = v == 3 ? 1e-3 : 0.0;
        for (int th = 1; th <= 2; th++) {
            mo_newton_system g = s;
            g.threads = th;
            g.grp = b.grp;
            g.ngrp = mo_newton_groups(s.m, s.row_ptr, s.col, b.grp);
            double rel_r = 0.0, rel_s = 0.0;
            int ir = ref_pcr(&s, ns.linear_iterations, ns.linear_tolerance, rhs, xr, hr, &rel_r);
            int is = mo_newton_linear_solve(&g, &ns, rhs, xs, scratch, hs, &rel_s);
            CHECK(ir == is && ir > 0);
            CHECK(!memcmp(xr, xs, (size_t)s.m * sizeof(double)));
            CHECK(rel_r == rel_s);
            CHECK(is <= 0 || !memcmp(hr, hs, (size_t)is * sizeof(double)));
            if (v == 2 && th == 1)
                printf("     PCR, %d rows: %d iterations, relative residual %.3g (the reference's %.3g)\n", s.m, is,
                       rel_s, rel_r);
            if (v == 3) CHECK(rel_s <= 1e-3 && is < 80);
        }
        if (v != 2) continue;
        /* the long run solves A x = b: against Gaussian elimination on A formed from products */
        static double A[MAXR][MAXR + 1];
        double e[MAXR], col[MAXR], work[N];
        for (int j = 0; j < s.m; j++) {
            memset(e, 0, sizeof e);
            e[j] = 1.0;
            mo_newton_apply(&s, e, col, work);
            for (int i = 0; i < s.m; i++) A[i][j] = col[i];
        }
        for (int i = 0; i < s.m; i++) A[i][s.m] = rhs[i];
        for (int i = 0; i < s.m; i++) {
            int pv = i;
            for (int r = i + 1; r < s.m; r++)
                if (fabs(A[r][i]) > fabs(A[pv][i])) pv = r;
            for (int c = 0; c <= s.m; c++) { double t = A[i][c]; A[i][c] = A[pv][c]; A[pv][c] = t; }
            for (int r = 0; r < s.m; r++) {
                if (r == i) continue;
                double f = A[r][i] / A[i][i];
                for (int c = i; c <= s.m; c++) A[r][c] -= f * A[i][c];
            }
        }
        double err = 0.0, xn = 0.0;
        for (int i = 0; i < s.m; i++) {
            double xd = A[i][s.m] / A[i][i];
            err = fmax(err, fabs(xd - xs[i]));
            xn = fmax(xn, fabs(xd));
        }
        printf("     PCR 80 iterations against the dense solve: %.3g relative\n", err / xn);
        CHECK(err <= 1e-6 * xn);
    }
    free(scratch);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (!only || !strcmp(only, "groups")) test_groups();
    if (!only || !strcmp(only, "pcr")) test_pcr();
    return check_result("newton_products");
}
