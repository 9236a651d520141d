/* solver.c: the solver table and what every solver shares: the velocity
 * v = v~ + M^-1 J^T gamma, the row velocities u = J v + Sigma gamma + b
 * (= N gamma + r), and both residual measures of SOLVERS.md A. */
#include <math.h>
#include <float.h>
#include <string.h>
#include "internal.h"
#include "parallel.h"

mo_solver_fn mo_solver_table(mo_solver_kind k)
{
    static const mo_solver_fn table[MO_SOLVER_COUNT] = {mo_solver_pgs, mo_solver_jacobi};
    return (int)k >= 0 && k < MO_SOLVER_COUNT ? table[k] : mo_solver_pgs;
}

void mo_problem_velocity(const mo_problem *p, const double *gamma, double *v)
{
    memcpy(v, p->v_tilde, (size_t)p->n * sizeof(double));
    /* serial scatter: the sum order is fixed, so results do not depend on threads */
    for (int r = 0; r < p->m; r++) {
        double g = gamma[r];
        if (g == 0.0) continue;
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) v[p->col[k]] += p->wval[k] * g;
    }
}

void mo_problem_row_velocity(const mo_problem *p, const double *v, const double *gamma, double *u)
{
    const int nt = p->threads;
    MO_PARALLEL_FOR(nt)
    for (int r = 0; r < p->m; r++) {
        double s = p->b[r] + p->sigma[r] * gamma[r];
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * v[p->col[k]];
        u[r] = s;
    }
}

void mo_problem_block_solve(const mo_problem *p, int k, const double *in, double *out)
{
    int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
    if (p->block_inv && p->block_inv[k] >= 0) {
        const double *a = p->inv + p->block_inv[k];
        for (int i = 0; i < nr; i++) {
            double s = 0.0;
            for (int j = 0; j < nr; j++) s += a[i * nr + j] * in[j];
            out[i] = s;
        }
        return;
    }
    double d = 0.0;
    if (p->block_kind[k] == MO_BLOCK_CONTACT && p->block_eta) {
        d = p->block_eta[k];
    } else {
        for (int i = 0; i < nr; i++) d += p->diag[r0 + i];
        d /= (double)nr;
    }
    for (int i = 0; i < nr; i++) out[i] = d > 0.0 ? in[i] / d : 0.0;
}

void mo_problem_residuals(const mo_problem *p, const double *gamma, const double *u, double *ccp, double *coulomb)
{
    double dmax = 0.0;
    for (int r = 0; r < p->m; r++)
        if (p->diag[r] > dmax) dmax = p->diag[r];
    double alpha = dmax > 0.0 ? 1.0 / dmax : 1.0;
    double sum = 0.0, esum = 0.0, gn = 0.0, un = 0.0;
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
        double x[MO_MAX_BLOCK];
        for (int i = 0; i < nr; i++) x[i] = gamma[r0 + i] - alpha * u[r0 + i];
        mo_k_project_block(x, p->block_kind[k], p->block_mu[k], p->lo[r0], p->hi[r0]);
        for (int i = 0; i < nr; i++) {
            double e = gamma[r0 + i] - x[i];
            sum += e * e;
        }
        if (p->block_kind[k] == MO_BLOCK_CONTACT) {
            esum += mo_k_coulomb_error_sq(gamma + r0, u + r0, p->block_mu[k]);
            for (int i = 0; i < 3; i++) {
                gn += gamma[r0 + i] * gamma[r0 + i];
                un += u[r0 + i] * u[r0 + i];
            }
        }
    }
    if (ccp) *ccp = sqrt(sum) / alpha;
    if (coulomb) {
        double den = p->q_contact_norm;
        if (sqrt(gn) > den) den = sqrt(gn);
        if (sqrt(un) > den) den = sqrt(un);
        *coulomb = den > DBL_EPSILON ? sqrt(esum) / den : sqrt(esum);
    }
}
