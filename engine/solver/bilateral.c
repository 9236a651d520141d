/* bilateral.c: the driver the bilateral solvers share (CG, MINRES,
 * sparse Cholesky; solver_bilateral.h says what they solve).
 *
 * Mixed problems (bilateral rows plus contacts, limits, boxed motor rows):
 * block Gauss-Seidel, one outer iteration =
 *   1. the bilateral rows B with every other impulse fixed: the inner solver
 *      on N_BB d = -u_B (u = N gamma + r), gamma_B += d. It stops once |u_B|
 *      fell by INNER_REDUCTION or below tolerance / 10 (Cholesky gets there
 *      in one solve; CG and MINRES are inexact here, which block coordinate
 *      descent tolerates);
 *   2. one projected Gauss-Seidel sweep over the other blocks, with
 *      solver_pgs.c's updates: a scalar row by its own N_ii, a contact by one
 *      projected step gamma <- P_F(gamma - (omega/eta) u) with eta the largest
 *      eigenvalue of its 3x3 block (MO_FRICTION_BOX: the per-axis model).
 *      J form: u of the swept rows is J dv + Sigma gamma + r with
 *      dv = M^-1 J^T gamma pushed along (r, not b: the outer Coulomb updates
 *      of mo_solve shift r); explicit N: u from N's rows;
 *   3. the true u = N gamma + r, both measures recorded, the tolerance tested.
 * Iterations then count outer iterations. No De Saxce step inside the sweep:
 * for these solvers mo_solve does the Coulomb updates outside.
 * Facet problems (polyhedral friction) never reach these solvers (mo_solve
 * transforms only for APGD, SPG and Jacobi); were one given, projected Jacobi
 * solves it. */
#include <math.h>
#include <string.h>
#include "solver/bilateral.h"

#define INNER_REDUCTION 1e-3

void mo_bil_mask(const mo_bil *c, double *x)
{
    const mo_problem *p = c->p;
    for (int k = 0; k < p->nblocks; k++)
        for (int r = p->block_row[k]; r < p->block_row[k + 1]; r++)
            if (!mo_bil_row(p, k, r)) x[r] = 0.0;
}

double mo_bil_dot(const mo_bil *c, const double *x, const double *y)
{
    const mo_problem *p = c->p;
    double s = 0.0;
    if (c->pure) {
        for (int r = 0; r < p->m; r++)
            if (p->diag[r] > 0.0) s += x[r] * y[r];
        return s;
    }
    for (int k = 0; k < p->nblocks; k++)
        for (int r = p->block_row[k]; r < p->block_row[k + 1]; r++)
            if (mo_bil_row(p, k, r)) s += x[r] * y[r];
    return s;
}

void mo_bil_precond_diag(const mo_problem *p, const double *d, const double *in, double *out)
{
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
        if (p->block_kind[k] != MO_BLOCK_BILATERAL) {
            for (int i = 0; i < nr; i++) out[r0 + i] = 0.0;
            continue;
        }
        bool all = true;
        for (int i = 0; i < nr; i++) all = all && d[r0 + i] > 0.0;
        if (all && nr > 1 && p->block_inv && p->block_inv[k] >= 0 && p->inv) {
            const double *a = p->inv + p->block_inv[k];
            for (int i = 0; i < nr; i++) {
                double s = 0.0;
                for (int j = 0; j < nr; j++) s += a[i * nr + j] * in[r0 + j];
                out[r0 + i] = s;
            }
            continue;
        }
        for (int i = 0; i < nr; i++) out[r0 + i] = d[r0 + i] > 0.0 ? in[r0 + i] / d[r0 + i] : 0.0;
    }
}

void mo_bil_precond(const mo_bil *c, const double *in, double *out)
{
    mo_bil_precond_diag(c->p, c->p->diag, in, out);
}

/* ---- set-up and the final measures ---- */

bool mo_bil_begin(mo_bil *c, const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, int vecs)
{
    memset(c, 0, sizeof *c);
    const int m = p->m;
    c->p = p;
    c->q = *p;
    c->s = s;
    c->o = o;
    c->gamma = o->gamma;
    o->hist_count = 0;
    o->converged = false;
    o->iterations = 0;
    o->regularisation = 0.0;
    double *sp = o->scratch;
    if (!p->r) {
        /* the engine's step may leave r to the solver (J form) */
        mo_problem_prepare_r(p, sp);
        c->q.r = sp;
        sp += m;
    }
    c->u = sp;
    sp += m;
    c->vecs = sp;
    c->nvecs = vecs;
    sp += (size_t)vecs * (size_t)m;
    c->work = sp;
    sp += mo_problem_apply_work(p);
    c->dv = sp; /* n doubles, J form */

    c->pure = true;
    for (int k = 0; k < p->nblocks; k++)
        if (p->block_kind[k] != MO_BLOCK_BILATERAL) c->pure = false;
    for (int k = 0; k < p->nblocks; k++)
        for (int r = p->block_row[k]; r < p->block_row[k + 1]; r++) c->nb += mo_bil_row(p, k, r);

    mo_problem_u(&c->q, c->gamma, c->u, c->work);
    c->u_exact = true;
    mo_problem_residuals(&c->q, c->gamma, c->u, &c->ccp, &c->coulomb);
    if (m == 0) return false;
    bool conv = false;
    if (s->tolerance > 0.0 && mo_solve_measure(p, c->ccp, c->coulomb) <= s->tolerance) conv = true;
    if (conv) {
        c->converged = true;
        return false;
    }
    return true;
}

bool mo_bil_check(mo_bil *c)
{
    if (c->pure) {
        c->ccp = mo_solve_record(&c->q, c->gamma, c->u, c->o, &c->coulomb);
        return mo_solve_stop(c->p, c->s, c->ccp, c->coulomb, &c->converged);
    }
    return sqrt(mo_bil_dot(c, c->u, c->u)) <= c->target;
}

void mo_bil_end(mo_bil *c)
{
    const mo_problem *p = &c->q;
    mo_solve_out *o = c->o;
    if (p->m > 0 && !c->u_exact) {
        mo_problem_u(p, c->gamma, c->u, c->work);
        mo_problem_residuals(p, c->gamma, c->u, &c->ccp, &c->coulomb);
    }
    o->iterations = c->iterations;
    o->residual = c->ccp;
    o->coulomb_error = c->coulomb;
    /* converged is confirmed on the true u */
    bool conv = false;
    if (c->converged && c->s->tolerance > 0.0)
        conv = mo_solve_measure(c->p, c->ccp, c->coulomb) <= c->s->tolerance;
    o->converged = conv;
    mo_solve_finish_v(c->p, o);
}

/* ---- the mixed alternation ---- */

/* dv = M^-1 J^T gamma */
static void j_dv(const mo_problem *p, const double *gamma, double *dv)
{
    memset(dv, 0, (size_t)p->n * sizeof(double));
    for (int r = 0; r < p->m; r++) {
        double g = gamma[r];
        if (g == 0.0) continue;
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) dv[p->col[k]] += p->wval[k] * g;
    }
}


/* u_r for rows r0 .. r0 + nr - 1 at the current gamma (dv in J form) */
static void rows_u(const mo_bil *c, int r0, int nr, const double *dv, double *out)
{
    const mo_problem *p = &c->q;
    const double *g = c->gamma;
    for (int i = 0; i < nr; i++) {
        int r = r0 + i;
        double t = p->r[r];
        if (p->n_ptr) {
            for (int k = p->n_ptr[r]; k < p->n_ptr[r + 1]; k++) t += p->n_val[k] * g[p->n_col[k]];
        } else {
            t += mo_problem_row_dot(p, r, dv) + p->sigma[r] * g[r];
        }
        out[i] = t;
    }
}

/* gamma_r += d_r for rows r0 .. r0 + nr - 1, pushed into dv (J form) */
static void rows_move(const mo_bil *c, int r0, int nr, const double *d, double *dv)
{
    const mo_problem *p = &c->q;
    for (int i = 0; i < nr; i++) {
        if (d[i] == 0.0) continue;
        c->gamma[r0 + i] += d[i];
        if (!p->n_ptr) mo_problem_row_push(p, r0 + i, d[i], dv);
    }
}

/* one projected Gauss-Seidel sweep over the blocks outside B */
static void sweep_other(const mo_bil *c, double *dv)
{
    const mo_problem *p = &c->q;
    const mo_solver_settings *s = c->s;
    const double om = s->omega;
    double *g = c->gamma;
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k], kind = p->block_kind[k];
        if (kind == MO_BLOCK_BILATERAL) continue;
        double u[3], d[3] = {0.0, 0.0, 0.0};
        if (kind != MO_BLOCK_CONTACT) {
            if (!(p->diag[r0] > 0.0)) continue;
            rows_u(c, r0, 1, dv, u);
            double x[3] = {g[r0] - om * u[0] / p->diag[r0], 0.0, 0.0}; /* 3: the projection's signature */
            mo_k_project_block(x, kind, 0.0, p->lo[r0], p->hi[r0]);
            d[0] = x[0] - g[r0];
            rows_move(c, r0, 1, d, dv);
            continue;
        }
        double mu = p->block_mu[k];
        if (s->friction != MO_FRICTION_BOX) {
            double eta = p->block_eta ? p->block_eta[k] : 0.0;
            if (!(eta > 0.0)) continue;
            rows_u(c, r0, 3, dv, u);
            double x[3] = {g[r0] - om * u[0] / eta, g[r0 + 1] - om * u[1] / eta, g[r0 + 2] - om * u[2] / eta};
            mo_k_project_cone(x, mu);
            for (int i = 0; i < 3; i++) d[i] = x[i] - g[r0 + i];
            rows_move(c, r0, 3, d, dv);
            continue;
        }
        /* per-axis box: the normal, then each tangent against the current normal impulse */
        for (int i = 0; i < 3; i++) {
            int ri = r0 + i;
            if (!(p->diag[ri] > 0.0)) continue;
            rows_u(c, ri, 1, dv, u);
            double x = g[ri] - om * u[0] / p->diag[ri];
            if (i == 0) x = x > 0.0 ? x : 0.0;
            else x = mo_k_clamp(x, -mu * g[r0], mu * g[r0]);
            double di = x - g[ri];
            rows_move(c, ri, 1, &di, dv);
        }
    }
}

void mo_bil_run(mo_bil *c, mo_bil_inner_fn inner)
{
    const mo_problem *p = c->p;
    const mo_solver_settings *s = c->s;
    if (p->base) {
        /* facet problems: not reached from mo_solve (see the top of this file) */
        mo_solve_out *o = c->o;
        double reg = o->regularisation;
        mo_solver_jacobi(p, s, o);
        o->regularisation = reg;
        c->u_exact = false;
        c->iterations = o->iterations;
        c->converged = o->converged;
        return;
    }
    if (c->pure) {
        c->iterations = inner(c, s->max_iterations);
        return;
    }
    const bool jform = !p->n_ptr;
    int it = 0;
    while (it < s->max_iterations) {
        if (c->nb > 0) {
            double ub = sqrt(mo_bil_dot(c, c->u, c->u));
            c->target = fmax(0.1 * s->tolerance, INNER_REDUCTION * ub);
            if (ub > c->target) inner(c, s->max_iterations);
        }
        if (jform) j_dv(p, c->gamma, c->dv);
        sweep_other(c, c->dv);
        if (jform) {
            /* u = J dv + Sigma gamma + r */
            const mo_problem *q = &c->q;
            for (int r = 0; r < p->m; r++) c->u[r] = q->r[r] + mo_problem_row_dot(q, r, c->dv) + q->sigma[r] * c->gamma[r];
        } else {
            mo_problem_u(&c->q, c->gamma, c->u, c->work);
        }
        c->u_exact = true;
        it++;
        c->ccp = mo_solve_record(&c->q, c->gamma, c->u, c->o, &c->coulomb);
        if (mo_solve_stop(p, s, c->ccp, c->coulomb, &c->converged)) break;
    }
    c->iterations = it;
}
