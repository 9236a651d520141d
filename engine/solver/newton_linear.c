/* newton_linear.c: the math of the non-smooth Newton solver (MO_SOLVER_NEWTON;
 * Macklin et al. 2019, "Non-smooth Newton methods for deformable multi-body
 * dynamics", SOLVERS.md B): the NCP functions (eqs. 18-30), the friction
 * compliance W of the fixed point (eqs. 33-35, appendix A), and the inner
 * linear solvers of the Schur system (eq. 59)
 *
 *     [h^2 J M~^-1 J^T + C] dl = h J M~^-1 r_m - e
 *
 * applied matrix-free as two sparse products (the rows of J and of M~^-1 J^T,
 * same pattern) and a diagonal: PCR (the paper's, §8.2), PCG, damped Jacobi
 * and Gauss-Seidel, each with a fixed iteration budget; PCR, PCG and Jacobi
 * over the backend operations, so they run on a device too. The step itself
 * (rows at the predicted positions, residuals, the Newton loop) is in
 * step/newton.c. */
#include <math.h>
#include <string.h>
#include "solver/newton.h"
#include "solver/ops.h"
#include "core/parallel.h"

mo_ncp_val mo_ncp_eval(mo_ncp_function f, double a, double b)
{
    mo_ncp_val r;
    if (f == MO_NCP_MIN_MAP) {
        if (a < b) { r.phi = a; r.da = 1.0; r.db = 0.0; }
        else { r.phi = b; r.da = 0.0; r.db = 1.0; }
        return r;
    }
    double s = sqrt(a * a + b * b);
    r.phi = a + b - s;
    if (s > 0.0) {
        r.da = 1.0 - a / s;
        r.db = 1.0 - b / s;
    } else {
        r.da = r.db = 1.0 - 1.0 / sqrt(2.0); /* the paper's element of the generalised gradient at (0, 0) */
    }
    return r;
}

/* SOLVERS.md B writes W = (a - phi(a, c_f b)) / (c_f mu ln). With a in m/s,
 * c_f b in m/s and mu ln in N, that W would be dimensionless, while
 * D v + W lf = 0 needs (m/s)/N; and at a sliding solution (|lf| = mu ln,
 * phi = 0) it gives |D v| = W |lf| = a / c_f instead of a. Dividing by mu ln
 * alone fixes both: W = |D v| / (mu ln) when sliding, 0 when sticking
 * (a = 0, b >= 0: phi(0, c_f b) = 0), the paper's eq. 35. */
double mo_newton_friction_w(mo_ncp_function f, double slip, double ln, double lf_norm, double mu, double cf)
{
    mo_ncp_val p = mo_ncp_eval(f, slip, cf * (mu * ln - lf_norm));
    return (slip - p.phi) / (mu * ln);
}

/* ---- the two sparse products ----
 * Rows come in groups (mo_newton_groups): runs of rows with one column list,
 * an FEM element's strain rows (12 columns), a contact's or a joint's rows. A
 * group's columns are read once for all its rows: t = M~^-1 Jm^T x adds the
 * group's rows into one accumulator per column, y = A x gathers x's image at
 * the columns once. Every sum keeps the order of the plain row loops (per
 * column of t the rows in order, per row of y its entries in order), so the
 * results are the same bit for bit with and without groups. */

int mo_newton_groups(int m, const int *row_ptr, const int *col, int *grp)
{
    int ng = 0;
    for (int r = 0; r < m;) {
        int nr = 1;
        const int k0 = row_ptr[r], len = row_ptr[r + 1] - k0;
        if (len <= MO_NEWTON_GROUP_LEN)
            while (r + nr < m && nr < MO_NEWTON_GROUP_ROWS && row_ptr[r + nr + 1] - row_ptr[r + nr] == len &&
                   memcmp(col + k0, col + row_ptr[r + nr], (size_t)len * sizeof(int)) == 0)
                nr++;
        /* a column twice in a row would change t's sum order: such rows stay alone */
        for (int a = 0; nr > 1 && a < len; a++)
            for (int b = a + 1; b < len; b++)
                if (col[k0 + a] == col[k0 + b]) nr = 1;
        grp[ng++] = r;
        r += nr;
    }
    grp[ng] = m;
    return ng;
}

/* t += the group's active rows (offsets ri of their entries, values g) into its len columns c; LEN > 0 a
   compile-time width */
static inline void jt_group(const double *wval, const int *c, int len, int na, const int *ri, const double *g,
                            double *t, const int LEN)
{
    if (LEN > 0) len = LEN;
    double acc[MO_NEWTON_GROUP_LEN];
    for (int q = 0; q < len; q++) acc[q] = t[c[q]];
    for (int i = 0; i < na; i++) {
        const double *w = wval + ri[i], gi = g[i];
        for (int q = 0; q < len; q++) acc[q] += w[q] * gi;
    }
    for (int q = 0; q < len; q++) t[c[q]] = acc[q];
}

#if defined(__GNUC__)
/* 12-column groups (FEM elements) two lanes at a time: lane-wise products and sums are the scalar ones */
typedef double v2d __attribute__((vector_size(16)));
static inline v2d v2_load(const double *p)
{
    v2d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void jt_group12(const double *wval, const int *c, int na, const int *ri, const double *g, double *t)
{
    v2d acc[6];
    for (int q = 0; q < 6; q++) acc[q] = (v2d){t[c[2 * q]], t[c[2 * q + 1]]};
    for (int i = 0; i < na; i++) {
        const double *w = wval + ri[i];
        const v2d gi = {g[i], g[i]};
        for (int q = 0; q < 6; q++) acc[q] += v2_load(w + 2 * q) * gi;
    }
    for (int q = 0; q < 6; q++) {
        t[c[2 * q]] = acc[q][0];
        t[c[2 * q + 1]] = acc[q][1];
    }
}

/* rows r and r + 1 of a 12-column group together: lane 0 row r, lane 1 row r + 1, each summed in order */
static void apply_pair12(const mo_newton_system *s, int r, const v2d *wk, const double *x, double *y, double h2)
{
    const double *v0 = s->val + s->row_ptr[r], *v1 = s->val + s->row_ptr[r + 1];
    v2d a = {0.0, 0.0};
    for (int q = 0; q < 12; q++) a += (v2d){v0[q], v1[q]} * wk[q];
    y[r] = h2 * (s->mask[r] ? 0.0 : a[0]) + s->cd[r] * x[r];
    y[r + 1] = h2 * (s->mask[r + 1] ? 0.0 : a[1]) + s->cd[r + 1] * x[r + 1];
}

/* y over a group of 12 columns c, rows r0..r1-1: pairs of rows, then the last one alone */
static void apply_group12(const mo_newton_system *s, int r0, int r1, const int *c, const double *x,
                          const double *work, double *y, double h2)
{
    v2d wb[12]; /* each gathered entry in both lanes */
    for (int q = 0; q < 12; q++) {
        const double w = work[c[q]];
        wb[q] = (v2d){w, w};
    }
    int r = r0;
    for (; r + 1 < r1; r += 2) apply_pair12(s, r, wb, x, y, h2);
    if (r < r1) {
        double a = 0.0;
        if (!s->mask[r]) {
            const double *v = s->val + s->row_ptr[r];
            for (int q = 0; q < 12; q++) a += v[q] * wb[q][0];
        }
        y[r] = h2 * a + s->cd[r] * x[r];
    }
}
#endif

void mo_newton_jt(const mo_newton_system *s, const double *x, double *t)
{
    memset(t, 0, (size_t)s->n * sizeof(double));
    /* serial scatter: a fixed sum order, so results do not depend on threads */
    if (!s->grp) {
        for (int r = 0; r < s->m; r++) {
            double g = x[r];
            if (g == 0.0 || s->mask[r]) continue;
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) t[s->col[k]] += s->wval[k] * g;
        }
        return;
    }
    const int *grp = s->grp, *row_ptr = s->row_ptr;
    const uint8_t *mask = s->mask;
    for (int gi = 0; gi < s->ngrp; gi++) {
        const int r0 = grp[gi], r1 = grp[gi + 1];
        int na = 0, ri[MO_NEWTON_GROUP_ROWS];
        double g[MO_NEWTON_GROUP_ROWS];
        for (int r = r0; r < r1; r++) {
            const double xr = x[r];
            ri[na] = row_ptr[r];
            g[na] = xr;
            na += xr != 0.0 && !mask[r];
        }
        if (na == 0) continue;
        const int k0 = s->row_ptr[r0], len = s->row_ptr[r0 + 1] - k0;
        if (r1 - r0 == 1) { /* a single row (its columns may repeat) */
            for (int k = k0; k < k0 + len; k++) t[s->col[k]] += s->wval[k] * g[0];
            continue;
        }
#if defined(__GNUC__)
        if (len == 12) jt_group12(s->wval, s->col + k0, na, ri, g, t);
#else
        if (len == 12) jt_group(s->wval, s->col + k0, len, na, ri, g, t, 12);
#endif
        else jt_group(s->wval, s->col + k0, len, na, ri, g, t, 0);
    }
}

/* y = h2 J_g work + cd x over the rows r0..r1-1 of one group (len columns c); LEN as jt_group's */
static inline void apply_group(const mo_newton_system *s, int r0, int r1, const int *c, int len, const double *x,
                               const double *work, double *y, double h2, const int LEN)
{
    if (LEN > 0) len = LEN;
    double wk[MO_NEWTON_GROUP_LEN];
    for (int q = 0; q < len; q++) wk[q] = work[c[q]];
    for (int r = r0; r < r1; r++) {
        double a = 0.0;
        if (!s->mask[r]) {
            const double *v = s->val + s->row_ptr[r];
            for (int q = 0; q < len; q++) a += v[q] * wk[q];
        }
        y[r] = h2 * a + s->cd[r] * x[r];
    }
}

/* y over group gi */
static void apply_one(const mo_newton_system *s, int gi, const double *x, const double *work, double *y, double h2)
{
    const int r0 = s->grp[gi], r1 = s->grp[gi + 1], k0 = s->row_ptr[r0], len = s->row_ptr[r0 + 1] - k0;
    if (r1 - r0 == 1) {
        double a = 0.0;
        if (!s->mask[r0])
            for (int k = k0; k < k0 + len; k++) a += s->val[k] * work[s->col[k]];
        y[r0] = h2 * a + s->cd[r0] * x[r0];
    } else if (len == 12) {
#if defined(__GNUC__)
        apply_group12(s, r0, r1, s->col + k0, x, work, y, h2);
#else
        apply_group(s, r0, r1, s->col + k0, len, x, work, y, h2, 12);
#endif
    } else {
        apply_group(s, r0, r1, s->col + k0, len, x, work, y, h2, 0);
    }
}

void mo_newton_apply(const mo_newton_system *s, const double *x, double *y, double *work)
{
    mo_newton_jt(s, x, work);
    const double h2 = s->h * s->h;
    const int nt = s->threads;
    if (!s->grp) {
        MO_PARALLEL_LOOP(nt, s->m, for (int r = 0; r < s->m; r++) {
            double a = 0.0;
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) a += s->val[k] * work[s->col[k]];
            y[r] = h2 * a + s->cd[r] * x[r];
        });
        return;
    }
    MO_PARALLEL_LOOP(nt, s->m, for (int gi = 0; gi < s->ngrp; gi++) apply_one(s, gi, x, work, y, h2););
}

size_t mo_newton_linear_scratch(int n, int m)
{
    return 7 * (size_t)m + 2 * (size_t)n + 8;
}

/* sqrt(r^T D^-1 r): the diagonally scaled residual norm every inner solver reports (PCR minimises it) */
static double dnorm(const double *r, const double *diag, int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++) s += r[i] * r[i] / diag[i];
    return sqrt(s);
}

/* ---- PCR, PCG and damped Jacobi over the backend operations (ops.h) ----
 * b, x and diag are vectors of the ops (the host arrays themselves on the
 * CPU, device copies on a device); vec[0..5] are their work vectors. On the
 * CPU each operation is the loop these solvers had before the ops, so the
 * iterates are the same bit for bit (scene_hashes' Newton rows). */

/* the Newton system's product on the CPU: ops->impl is the system */
static void cpu_system_apply(const mo_ops *o, const double *x, double *y)
{
    mo_newton_apply((const mo_newton_system *)o->impl, x, y, o->cpu_work);
}

/* PCR and PCG stop at this relative (recurrence) residual whatever their budget: below it the
   iterates move by round-off only, and thousands of further iterations let the recurrence drift
   from the true residual until x overflows (measured: 30,000 PCR iterations on stack20 grew the
   residual to 1e165, then NaN; issue 18). */
#define MO_LINEAR_FLOOR 1e-15

/* preconditioned conjugate residual (Saad, Alg. 6.20 with a left diagonal
 * preconditioner P = diag(A)^-1): minimises the P-norm of the residual over
 * the Krylov space, one product with A per iteration */
static int pcr(const mo_ops *O, const mo_newton_settings *ns, const double *b, double *x, const double *diag,
               double *hist, double bn, double *rel)
{
    double *r = O->vec[0], *z = O->vec[1], *p = O->vec[2], *ap = O->vec[3], *az = O->vec[4], *q = O->vec[5];
    O->copy(O, r, b);
    O->ediv(O, z, r, diag);
    O->copy(O, p, z);
    O->apply(O, z, az);
    O->copy(O, ap, az);
    double zaz = O->dot(O, z, az);
    /* q = P ap and den = ap . q for the first iteration; later ones get them with the new direction */
    O->ediv(O, q, ap, diag);
    double den = O->dot(O, ap, q);
    int it = 0;
    *rel = 1.0;
    while (it < ns->linear_iterations) {
        if (!(den > 0.0) || !(zaz > 0.0)) break; /* converged to round-off (or a breakdown) */
        double alpha = zaz / den;
        if (!isfinite(alpha)) break; /* den underflowed: past round-off */
        double rr;
        if (O->pcr_update) {
            rr = O->pcr_update(O, x, r, z, alpha, p, ap, q, diag);
        } else {
            O->axpy(O, x, alpha, p);
            O->axpy(O, r, -alpha, ap);
            O->axpy(O, z, -alpha, q);
            rr = O->idot(O, r, r, diag);
        }
        double rel1 = sqrt(rr) / bn;
        if (!isfinite(rel1)) { /* an overflow: keep the last finite iterate */
            O->axpy(O, x, -alpha, p);
            break;
        }
        it++;
        *rel = rel1;
        if (hist) hist[it - 1] = *rel;
        if (*rel <= ns->linear_tolerance || *rel <= MO_LINEAR_FLOOR) break;
        if (it == ns->linear_iterations) break; /* the budget is spent: no new direction */
        O->apply(O, z, az);
        double zaz1 = O->dot(O, z, az), beta = zaz1 / zaz;
        if (!isfinite(beta)) break;
        zaz = zaz1;
        if (O->pcr_direction) {
            den = O->pcr_direction(O, p, ap, q, beta, z, az, diag);
        } else {
            O->waxpy(O, p, z, beta, p);
            O->waxpy(O, ap, az, beta, ap);
            O->ediv(O, q, ap, diag);
            den = O->dot(O, ap, q);
        }
    }
    return it;
}

/* preconditioned conjugate gradient, diagonal preconditioner */
static int pcg(const mo_ops *O, const mo_newton_settings *ns, const double *b, double *x, const double *diag,
               double *hist, double bn, double *rel)
{
    double *r = O->vec[0], *z = O->vec[1], *p = O->vec[2], *ap = O->vec[3];
    O->copy(O, r, b);
    O->ediv(O, z, r, diag);
    O->copy(O, p, z);
    double rz = O->dot(O, r, z);
    int it = 0;
    *rel = 1.0;
    while (it < ns->linear_iterations) {
        O->apply(O, p, ap);
        double den = O->dot(O, p, ap);
        if (!(den > 0.0) || !(rz > 0.0)) break;
        double alpha = rz / den;
        if (!isfinite(alpha)) break; /* den underflowed: past round-off */
        O->axpy(O, x, alpha, p);
        O->axpy(O, r, -alpha, ap);
        O->ediv(O, z, r, diag);
        double rel1 = sqrt(O->idot(O, r, r, diag)) / bn;
        if (!isfinite(rel1)) { /* an overflow past round-off: keep the last finite iterate */
            O->axpy(O, x, -alpha, p);
            break;
        }
        it++;
        *rel = rel1;
        if (hist) hist[it - 1] = *rel;
        if (*rel <= ns->linear_tolerance || *rel <= MO_LINEAR_FLOOR) break;
        double rz1 = O->dot(O, r, z), beta = rz1 / rz;
        if (!isfinite(beta)) break;
        rz = rz1;
        O->waxpy(O, p, z, beta, p);
    }
    return it;
}

/* damped Jacobi: x += omega D^-1 (b - A x) (x - (-omega) r / d is that sum exactly) */
static int jacobi(const mo_ops *O, const mo_newton_settings *ns, const double *b, double *x, const double *diag,
                  double *hist, double bn, double *rel)
{
    double *r = O->vec[0], *ax = O->vec[1];
    O->copy(O, r, b);
    int it = 0;
    *rel = 1.0;
    while (it < ns->linear_iterations) {
        O->pstep(O, x, x, -ns->jacobi_omega, r, diag);
        O->apply(O, x, ax);
        O->sub(O, r, b, ax);
        it++;
        *rel = sqrt(O->idot(O, r, r, diag)) / bn;
        if (hist) hist[it - 1] = *rel;
        if (*rel <= ns->linear_tolerance) break;
    }
    return it;
}

/* one of the three over the ops of s: the CPU's (scratch holds the work vectors, then the product's work
 * space), or s->device's (b up, x down once); -1 when the device failed */
static int over_ops(const mo_newton_system *s, const mo_newton_settings *ns, const double *b, double *x,
                    double *scratch, double *hist, double bn, double *rel)
{
    mo_ops ops;
    const double *bv = b, *dv = s->diag;
    double *xv = x;
    if (s->device) {
        if (mo_ops_device_newton(&ops, s->device, s, b, 7)) return -1;
        bv = ops.r;
        xv = ops.gamma;
        dv = ops.vec[6];
    } else {
        mo_ops_cpu_vectors(&ops, s->m);
        ops.impl = (void *)s;
        ops.apply = cpu_system_apply;
        for (int i = 0; i < 6; i++) ops.vec[i] = scratch + (size_t)i * (size_t)s->m;
        ops.cpu_work = scratch + 6 * (size_t)s->m;
    }
    int it = ns->linear == MO_NEWTON_PCG      ? pcg(&ops, ns, bv, xv, dv, hist, bn, rel)
             : ns->linear == MO_NEWTON_JACOBI ? jacobi(&ops, ns, bv, xv, dv, hist, bn, rel)
                                              : pcr(&ops, ns, bv, xv, dv, hist, bn, rel);
    if (s->device && mo_ops_device_end(&ops, x)) return -1;
    return it;
}

/* Gauss-Seidel in row order, matrix-free: t = M~^-1 Jm^T x is kept up to date,
 * so row i's (A x)_i = h^2 J_i . t + cd_i x_i costs one row; the residual for
 * the history and the stop test costs one product per sweep */
static int gauss_seidel(const mo_newton_system *s, const mo_newton_settings *ns, const double *b, double *x,
                        double *w, double *hist, double bn, double *rel)
{
    const int m = s->m;
    const double h2 = s->h * s->h;
    double *ax = w + m, *t = w + 6 * m + s->n, *work = w + 6 * m;
    memset(t, 0, (size_t)s->n * sizeof(double));
    int it = 0;
    *rel = 1.0;
    while (it < ns->linear_iterations) {
        for (int r = 0; r < m; r++) {
            double a = 0.0;
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) a += s->val[k] * t[s->col[k]];
            double d = (b[r] - h2 * a - s->cd[r] * x[r]) / s->diag[r];
            x[r] += d;
            if (!s->mask[r])
                for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) t[s->col[k]] += s->wval[k] * d;
        }
        mo_newton_apply(s, x, ax, work);
        double *r = w;
        for (int i = 0; i < m; i++) r[i] = b[i] - ax[i];
        it++;
        *rel = dnorm(r, s->diag, m) / bn;
        if (hist) hist[it - 1] = *rel;
        if (*rel <= ns->linear_tolerance) break;
    }
    return it;
}

int mo_newton_linear_solve(const mo_newton_system *s, const mo_newton_settings *ns, const double *b, double *x,
                           double *scratch, double *hist, double *rel)
{
    memset(x, 0, (size_t)s->m * sizeof(double));
    double bn = dnorm(b, s->diag, s->m);
    *rel = 0.0;
    if (!(bn > 0.0)) return 0;
    if (ns->linear == MO_NEWTON_CHOLESKY) {
        if (mo_newton_cholesky(s, b, x, scratch) == 0) {
            /* one "iteration"; the relative residual of the direct solve */
            double *r = scratch + s->n;
            mo_newton_apply(s, x, r, scratch);
            for (int i = 0; i < s->m; i++) r[i] = b[i] - r[i];
            *rel = dnorm(r, s->diag, s->m) / bn;
            if (hist) hist[0] = *rel;
            return 1;
        }
        memset(x, 0, (size_t)s->m * sizeof(double)); /* not positive definite or no memory: PCR (on the CPU) */
        mo_newton_settings pr = *ns;
        pr.linear = MO_NEWTON_PCR;
        mo_newton_system cpu = *s;
        cpu.device = NULL;
        return over_ops(&cpu, &pr, b, x, scratch, hist, bn, rel);
    }
    if (ns->linear == MO_NEWTON_GAUSS_SEIDEL) return gauss_seidel(s, ns, b, x, scratch, hist, bn, rel);
    return over_ops(s, ns, b, x, scratch, hist, bn, rel);
}
