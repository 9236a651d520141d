/* solver_pgs.c: projected Gauss-Seidel (Lacoursiere, "Using Gauss-Seidel for
 * multibody problems", Alg. 2.1-2.2; SOLVERS.md A).
 *
 * Blocks are swept in order. Each block's residual u = J v + Sigma gamma + b is
 * computed from scratch from the current v (never from a stored N), the block
 * is updated and projected, and the change is pushed into v through the rows
 * of W = M^-1 J^T. Scalar rows use their own N_ii. Contacts:
 * - MO_FRICTION_CONE: gamma <- P_F(gamma - (omega/eta) u) with one scalar
 *   eta per contact, so the fixed point is the CCP solution. eta is the
 *   largest eigenvalue of the contact's 3x3 block N_cc, not tr(N_cc)/3 (the
 *   e.g. of SOLVERS.md): with eta >= lambda_max each block update is a
 *   projected gradient step on a quadratic upper bound of the objective, so
 *   every update decreases it (block coordinate descent). With tr/3 a 5-box
 *   stack stalled at a CCP residual of 2.5e-4 m/s after 4000 sweeps;
 * - MO_FRICTION_BOX: normal row, then each tangent row alone, clamped to
 *   [-mu gn, mu gn] with the current gn (the paper's per-axis model).
 * Residuals (both measures) after each sweep when asked, and after the last. */
#include <math.h>
#include <string.h>
#include "internal.h"

/* J_r . v */
static inline double row_dot(const mo_problem *p, int r, const double *v)
{
    double s = 0.0;
    for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * v[p->col[k]];
    return s;
}

/* v += W_r^T d */
static inline void row_push(const mo_problem *p, int r, double d, double *v)
{
    for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) v[p->col[k]] += p->wval[k] * d;
}

static void pgs_sweep(const mo_problem *p, const mo_solver_settings *s, double *gamma, double *v)
{
    const double om = s->omega;
    for (int k = 0; k < p->nblocks; k++) {
        int r = p->block_row[k];
        int kind = p->block_kind[k];
        int nr = p->block_row[k + 1] - r;
        if (nr > 1 && kind == MO_BLOCK_BILATERAL) {
            /* a joint's bilateral rows at once: gamma -= omega N_bb^-1 u_b */
            double u[MO_MAX_BLOCK], d[MO_MAX_BLOCK];
            for (int i = 0; i < nr; i++) u[i] = row_dot(p, r + i, v) + p->sigma[r + i] * gamma[r + i] + p->b[r + i];
            mo_problem_block_solve(p, k, u, d);
            for (int i = 0; i < nr; i++) {
                double di = -om * d[i];
                if (di != 0.0) {
                    row_push(p, r + i, di, v);
                    gamma[r + i] += di;
                }
            }
            continue;
        }
        if (kind != MO_BLOCK_CONTACT) {
            if (!(p->diag[r] > 0.0)) continue;
            double u = row_dot(p, r, v) + p->sigma[r] * gamma[r] + p->b[r];
            double x = gamma[r] - om * u / p->diag[r];
            mo_k_project_block(&x, kind, 0.0, p->lo[r], p->hi[r]);
            double d = x - gamma[r];
            if (d != 0.0) {
                row_push(p, r, d, v);
                gamma[r] = x;
            }
            continue;
        }
        double mu = p->block_mu[k];
        if (s->friction == MO_FRICTION_CONE) {
            double eta = p->block_eta[k];
            if (!(eta > 0.0)) continue;
            /* the three rows share their columns: one pass computes all three */
            const int p0 = p->row_ptr[r], len = p->row_ptr[r + 1] - p0;
            const int *cl = p->col + p0;
            const double *j0 = p->val + p0, *j1 = j0 + len, *j2 = j1 + len;
            double u0 = p->b[r] + p->sigma[r] * gamma[r], u1 = p->b[r + 1] + p->sigma[r + 1] * gamma[r + 1],
                   u2 = p->b[r + 2] + p->sigma[r + 2] * gamma[r + 2];
            /* columns come in runs of 6 (bodies) or 3 (particles) per side */
            if (len == 12 && cl[6] == cl[11] - 5) {
                const double *va = v + cl[0], *vb = v + cl[6];
                for (int q = 0; q < 6; q++) {
                    u0 += j0[q] * va[q] + j0[6 + q] * vb[q];
                    u1 += j1[q] * va[q] + j1[6 + q] * vb[q];
                    u2 += j2[q] * va[q] + j2[6 + q] * vb[q];
                }
            } else {
                for (int q = 0; q < len; q++) {
                    double vc = v[cl[q]];
                    u0 += j0[q] * vc;
                    u1 += j1[q] * vc;
                    u2 += j2[q] * vc;
                }
            }
            double x[3] = {gamma[r] - om * u0 / eta, gamma[r + 1] - om * u1 / eta, gamma[r + 2] - om * u2 / eta};
            mo_k_project_cone(x, mu);
            double d0 = x[0] - gamma[r], d1 = x[1] - gamma[r + 1], d2 = x[2] - gamma[r + 2];
            if (d0 != 0.0 || d1 != 0.0 || d2 != 0.0) {
                const double *w0 = p->wval + p0, *w1 = w0 + len, *w2 = w1 + len;
                if (len == 12 && cl[6] == cl[11] - 5) {
                    double *va = v + cl[0], *vb = v + cl[6];
                    for (int q = 0; q < 6; q++) {
                        va[q] += w0[q] * d0 + w1[q] * d1 + w2[q] * d2;
                        vb[q] += w0[6 + q] * d0 + w1[6 + q] * d1 + w2[6 + q] * d2;
                    }
                } else {
                    for (int q = 0; q < len; q++) v[cl[q]] += w0[q] * d0 + w1[q] * d1 + w2[q] * d2;
                }
                gamma[r] = x[0];
                gamma[r + 1] = x[1];
                gamma[r + 2] = x[2];
            }
        } else {
            /* normal first, then each tangent against the current normal impulse */
            for (int i = 0; i < 3; i++) {
                int ri = r + i;
                if (!(p->diag[ri] > 0.0)) continue;
                double u = row_dot(p, ri, v) + p->sigma[ri] * gamma[ri] + p->b[ri];
                double x = gamma[ri] - om * u / p->diag[ri];
                if (i == 0) x = x > 0.0 ? x : 0.0;
                else x = mo_k_clamp(x, -mu * gamma[r], mu * gamma[r]);
                double d = x - gamma[ri];
                if (d != 0.0) {
                    row_push(p, ri, d, v);
                    gamma[ri] = x;
                }
            }
        }
    }
}

void mo_solver_pgs(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    double *gamma = o->gamma, *v = o->v, *u = o->scratch;
    mo_problem_velocity(p, gamma, v);
    bool check = s->record_residuals || s->tolerance > 0.0;
    o->converged = false;
    o->hist_count = 0;
    int it = 0;
    double res = 0.0, err = 0.0;
    bool have = false;
    while (it < s->max_iterations) {
        pgs_sweep(p, s, gamma, v);
        it++;
        have = false;
        if (check) {
            mo_problem_row_velocity(p, v, gamma, u);
            mo_problem_residuals(p, gamma, u, &res, &err);
            have = true;
            if (o->res_hist) {
                o->res_hist[o->hist_count] = res;
                o->err_hist[o->hist_count] = err;
                o->hist_count++;
            }
            if (s->tolerance > 0.0 && res <= s->tolerance) {
                o->converged = true;
                break;
            }
        }
    }
    if (!have) {
        mo_problem_row_velocity(p, v, gamma, u);
        mo_problem_residuals(p, gamma, u, &res, &err);
    }
    o->iterations = it;
    o->residual = res;
    o->coulomb_error = err;
}
