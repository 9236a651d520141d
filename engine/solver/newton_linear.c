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

void mo_newton_jt(const mo_newton_system *s, const double *x, double *t)
{
    memset(t, 0, (size_t)s->n * sizeof(double));
    /* serial scatter: a fixed sum order, so results do not depend on threads */
    for (int r = 0; r < s->m; r++) {
        double g = x[r];
        if (g == 0.0 || s->mask[r]) continue;
        for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) t[s->col[k]] += s->wval[k] * g;
    }
}

void mo_newton_apply(const mo_newton_system *s, const double *x, double *y, double *work)
{
    mo_newton_jt(s, x, work);
    const double h2 = s->h * s->h;
    const int nt = s->threads;
    MO_PARALLEL_LOOP(nt, s->m, for (int r = 0; r < s->m; r++) {
        double a = 0.0;
        if (!s->mask[r])
            for (int k = s->row_ptr[r]; k < s->row_ptr[r + 1]; k++) a += s->val[k] * work[s->col[k]];
        y[r] = h2 * a + s->cd[r] * x[r];
    });
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
    int it = 0;
    *rel = 1.0;
    while (it < ns->linear_iterations) {
        O->ediv(O, q, ap, diag);
        double den = O->dot(O, ap, q);
        if (!(den > 0.0) || !(zaz > 0.0)) break; /* converged to round-off (or a breakdown) */
        double alpha = zaz / den;
        if (!isfinite(alpha)) break; /* den underflowed: past round-off */
        O->axpy(O, x, alpha, p);
        O->axpy(O, r, -alpha, ap);
        O->axpy(O, z, -alpha, q);
        double rel1 = sqrt(O->idot(O, r, r, diag)) / bn;
        if (!isfinite(rel1)) { /* an overflow: keep the last finite iterate */
            O->axpy(O, x, -alpha, p);
            break;
        }
        it++;
        *rel = rel1;
        if (hist) hist[it - 1] = *rel;
        if (*rel <= ns->linear_tolerance || *rel <= MO_LINEAR_FLOOR) break;
        O->apply(O, z, az);
        double zaz1 = O->dot(O, z, az), beta = zaz1 / zaz;
        if (!isfinite(beta)) break;
        zaz = zaz1;
        O->waxpy(O, p, z, beta, p);
        O->waxpy(O, ap, az, beta, ap);
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
