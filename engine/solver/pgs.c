/* pgs.c: projected Gauss-Seidel (Lacoursiere, "Using Gauss-Seidel for
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
 * With coulomb_updates > 0 a contact's step uses the De Saxce velocity
 * u + mu |u_t| e_n instead of u (exact Coulomb friction instead of the convex
 * relaxation: the s update done inline, every visit), and the tolerance applies
 * to the Coulomb error.
 * Unilateral scalar rows (joint limits: the articulations' and the maximal
 * joints'; not the polyhedral form's facet rows) are swept twice per sweep: in their place and again after the
 * contacts, so that each sweep ends on them. A limit a contact pushes against
 * is otherwise left violated by that contact's last update: the 16-DoF hand
 * closing on a ball (scenes/hand_grasp.lua) at PGS 10 went 2.9e-3 rad past a
 * finger limit; with the second pass, 4.5e-8 rad. They are a few rows next to
 * the contacts' three each, so the pass costs little.
 * Residuals (both measures) after each sweep when asked, and after the last. */
#include <math.h>
#include <string.h>
#include "solver/solver.h"


static void pgs_sweep(const mo_problem *p, const mo_solver_settings *s, double *gamma, double *v)
{
    const double om = s->omega;
    const bool desaxce = s->coulomb_updates > 0;
    for (int k = 0; k < p->nblocks; k++) {
        int r = p->block_row[k];
        int kind = p->block_kind[k];
        int nr = p->block_row[k + 1] - r;
        if (nr > 1 && kind == MO_BLOCK_BILATERAL) {
            /* a joint's bilateral rows at once: gamma -= omega N_bb^-1 u_b */
            double u[MO_MAX_BLOCK], d[MO_MAX_BLOCK];
            for (int i = 0; i < nr; i++) u[i] = mo_problem_row_dot(p, r + i, v) + p->sigma[r + i] * gamma[r + i] + p->b[r + i];
            mo_problem_block_solve(p, k, u, d);
            for (int i = 0; i < nr; i++) {
                double di = -om * d[i];
                if (di != 0.0) {
                    mo_problem_row_push(p, r + i, di, v);
                    gamma[r + i] += di;
                }
            }
            continue;
        }
        if (kind != MO_BLOCK_CONTACT) {
            if (!(p->diag[r] > 0.0)) continue;
            double u = mo_problem_row_dot(p, r, v) + p->sigma[r] * gamma[r] + p->b[r];
            double x = gamma[r] - om * u / p->diag[r];
            mo_k_project_block(&x, kind, 0.0, p->lo[r], p->hi[r]);
            double d = x - gamma[r];
            if (d != 0.0) {
                mo_problem_row_push(p, r, d, v);
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
            if (desaxce) u0 += mu * sqrt(u1 * u1 + u2 * u2);
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
                double u = mo_problem_row_dot(p, ri, v) + p->sigma[ri] * gamma[ri] + p->b[ri];
                double x = gamma[ri] - om * u / p->diag[ri];
                if (i == 0) x = x > 0.0 ? x : 0.0;
                else x = mo_k_clamp(x, -mu * gamma[r], mu * gamma[r]);
                double d = x - gamma[ri];
                if (d != 0.0) {
                    mo_problem_row_push(p, ri, d, v);
                    gamma[ri] = x;
                }
            }
        }
    }
    /* the limits again, after the contacts (not in the polyhedral form, where every contact's facets are
       unilateral rows too) */
    for (int k = 0; !p->poly_src && k < p->nblocks; k++) {
        int r = p->block_row[k];
        if (p->block_kind[k] != MO_BLOCK_UNILATERAL || !(p->diag[r] > 0.0)) continue;
        double u = mo_problem_row_dot(p, r, v) + p->sigma[r] * gamma[r] + p->b[r];
        double x = gamma[r] - om * u / p->diag[r];
        if (x < 0.0) x = 0.0;
        double d = x - gamma[r];
        if (d != 0.0) {
            mo_problem_row_push(p, r, d, v);
            gamma[r] = x;
        }
    }
}

/* u_i of rows r0 .. r0 + nr - 1 from the explicit N: r + N gamma */
static void explicit_rows(const mo_problem *p, int r0, int nr, const double *gamma, double *u)
{
    for (int i = 0; i < nr; i++) {
        double t = p->r[r0 + i];
        for (int k = p->n_ptr[r0 + i]; k < p->n_ptr[r0 + i + 1]; k++) t += p->n_val[k] * gamma[p->n_col[k]];
        u[i] = t;
    }
}

/* The sweep on an explicit N (outside problems). Same updates as above, with
 * u recomputed from N's rows. A contact's local problem is solved more
 * exactly than by one step: up to 8 local projected steps on its own 3x3
 * block (u updated by N_cc delta), stopping when the step no longer moves
 * gamma; with coulomb_updates the local steps use the De Saxce velocity
 * u + mu |u_t| e_n, which is the exact Coulomb local problem's fixed point. */
static void pgs_sweep_explicit(const mo_problem *p, const mo_solver_settings *s, double *gamma)
{
    const double om = s->omega;
    const bool desaxce = s->coulomb_updates > 0;
    for (int k = 0; k < p->nblocks; k++) {
        int r = p->block_row[k], nr = p->block_row[k + 1] - r;
        int kind = p->block_kind[k];
        double u[MO_MAX_BLOCK], d[MO_MAX_BLOCK];
        explicit_rows(p, r, nr, gamma, u);
        if (kind == MO_BLOCK_CONTACT) {
            double eta = p->block_eta[k], mu = p->block_mu[k], nb[9];
            if (!(eta > 0.0)) continue;
            mo_problem_block3(p, k, nb);
            for (int local = 0; local < 8; local++) {
                double ue = u[0] + (desaxce ? mu * sqrt(u[1] * u[1] + u[2] * u[2]) : 0.0);
                double x[3] = {gamma[r] - om * ue / eta, gamma[r + 1] - om * u[1] / eta, gamma[r + 2] - om * u[2] / eta};
                mo_k_project_cone(x, mu);
                double dx[3] = {x[0] - gamma[r], x[1] - gamma[r + 1], x[2] - gamma[r + 2]};
                double moved = fabs(dx[0]) + fabs(dx[1]) + fabs(dx[2]);
                for (int i = 0; i < 3; i++) {
                    gamma[r + i] = x[i];
                    u[i] += nb[3 * i] * dx[0] + nb[3 * i + 1] * dx[1] + nb[3 * i + 2] * dx[2];
                }
                if (!(moved > 1e-14 * (fabs(x[0]) + fabs(x[1]) + fabs(x[2])))) break;
            }
            continue;
        }
        if (nr > 1 && kind == MO_BLOCK_BILATERAL) {
            mo_problem_block_solve(p, k, u, d);
            for (int i = 0; i < nr; i++) gamma[r + i] -= om * d[i];
            continue;
        }
        if (!(p->diag[r] > 0.0)) continue;
        double x = gamma[r] - om * u[0] / p->diag[r];
        mo_k_project_block(&x, kind, 0.0, p->lo[r], p->hi[r]);
        gamma[r] = x;
    }
}

void mo_solver_pgs(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    double *gamma = o->gamma, *u = o->scratch;
    if (p->n_ptr) {
        double *work = u + p->m;
        o->converged = false;
        o->hist_count = 0;
        double res = 0.0, err = 0.0;
        int it = 0;
        bool check = o->res_hist || s->tolerance > 0.0;
        while (it < s->max_iterations) {
            pgs_sweep_explicit(p, s, gamma);
            it++;
            if (check || it == s->max_iterations) {
                mo_problem_u(p, gamma, u, work);
                res = mo_solve_record(p, gamma, u, o, &err);
                if (s->tolerance > 0.0 && (s->coulomb_updates > 0 || p->stop_coulomb ? err : res) <= s->tolerance) {
                    o->converged = true;
                    break;
                }
            }
        }
        o->iterations = it;
        o->residual = res;
        o->coulomb_error = err;
        return;
    }
    double *v = o->v;
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
            if (s->tolerance > 0.0 && (s->coulomb_updates > 0 || p->stop_coulomb ? err : res) <= s->tolerance) {
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
