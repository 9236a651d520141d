/* problem.c: what every solver shares: the velocity
 * v = v~ + M^-1 J^T gamma, the row velocities u = J v + Sigma gamma + b
 * (= N gamma + r), and both residual measures of SOLVERS.md A. */
#include <math.h>
#include <float.h>
#include <string.h>
#include "solver/solver.h"
#include "core/parallel.h"

void mo_problem_velocity(const mo_problem *p, const double *gamma, double *v)
{
    if (p->n > 0) memcpy(v, p->v_tilde, (size_t)p->n * sizeof(double)); /* n = 0: both may be NULL */
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
    MO_PARALLEL_LOOP(nt, p->m, for (int r = 0; r < p->m; r++) {
        double s = p->b[r] + p->sigma[r] * gamma[r];
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * v[p->col[k]];
        u[r] = s;
    });
}

double mo_problem_block_mean_diag(const mo_problem *p, int k)
{
    int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
    double avg = 0.0;
    for (int i = 0; i < nr; i++) avg += p->diag[r0 + i];
    avg /= (double)nr;
    return avg > 0.0 ? avg : 1.0;
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
            double ut[3] = {u[r0], u[r0 + 1], u[r0 + 2]};
            if (p->shift) ut[0] -= p->shift[r0];
            esum += mo_k_coulomb_error_sq(gamma + r0, ut, p->block_mu[k]);
            for (int i = 0; i < 3; i++) {
                gn += gamma[r0 + i] * gamma[r0 + i];
                un += ut[i] * ut[i];
            }
        }
    }
    if (ccp) *ccp = sqrt(sum) / alpha;
    if (coulomb && p->base && p->m != p->base->m) {
        *coulomb = NAN; /* facet problems: defined only after expanding gamma (mo_solve) */
    } else if (coulomb) {
        double den = p->q_contact_norm;
        if (sqrt(gn) > den) den = sqrt(gn);
        if (sqrt(un) > den) den = sqrt(un);
        *coulomb = den > DBL_EPSILON ? sqrt(esum) / den : sqrt(esum);
    }
}

void mo_problem_project(const mo_problem *p, double *x)
{
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        mo_k_project_block(x + r0, p->block_kind[k], p->block_mu[k], p->lo[r0], p->hi[r0]);
    }
}

/* ---- the operator N, in any of the problem's forms ---- */

size_t mo_problem_apply_work(const mo_problem *p)
{
    if (p->base) return 2 * (size_t)p->base->m + mo_problem_apply_work(p->base);
    if (p->n_ptr) return 0;
    return (size_t)p->n;
}

void mo_problem_apply(const mo_problem *p, const double *x, double *y, double *work)
{
    const int m = p->m;
    if (p->base) {
        const mo_problem *b = p->base;
        double *xb = work, *yb = work + b->m;
        memset(xb, 0, (size_t)b->m * sizeof(double));
        for (int i = 0; i < m; i++) {
            const double *e = p->poly_e + 3 * i;
            int s0 = p->poly_src[i];
            for (int k = 0; k < p->poly_len[i]; k++) xb[s0 + k] += e[k] * x[i];
        }
        mo_problem_apply(b, xb, yb, work + 2 * b->m);
        for (int i = 0; i < m; i++) {
            const double *e = p->poly_e + 3 * i;
            int s0 = p->poly_src[i];
            double t = 0.0;
            for (int k = 0; k < p->poly_len[i]; k++) t += e[k] * yb[s0 + k];
            y[i] = t;
        }
        return;
    }
    const int nt = p->threads;
    if (p->n_ptr) {
        MO_PARALLEL_LOOP(nt, m, for (int r = 0; r < m; r++) {
            double s = 0.0;
            for (int k = p->n_ptr[r]; k < p->n_ptr[r + 1]; k++) s += p->n_val[k] * x[p->n_col[k]];
            y[r] = s;
        });
        return;
    }
    double *t = work;
    memset(t, 0, (size_t)p->n * sizeof(double));
    /* serial scatter: a fixed sum order, so results do not depend on threads */
    for (int r = 0; r < m; r++) {
        double g = x[r];
        if (g == 0.0) continue;
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) t[p->col[k]] += p->wval[k] * g;
    }
    MO_PARALLEL_LOOP(nt, m, for (int r = 0; r < m; r++) {
        double s = p->sigma[r] * x[r];
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * t[p->col[k]];
        y[r] = s;
    });
}

void mo_problem_u(const mo_problem *p, const double *gamma, double *u, double *work)
{
    mo_problem_apply(p, gamma, u, work);
    for (int r = 0; r < p->m; r++) u[r] += p->r[r];
}

void mo_problem_prepare_r(const mo_problem *p, double *out)
{
    const int nt = p->threads;
    MO_PARALLEL_LOOP(nt, p->m, for (int r = 0; r < p->m; r++) {
        double s = p->b[r];
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * p->v_tilde[p->col[k]];
        out[r] = s;
    });
}

void mo_problem_block3(const mo_problem *p, int k, double out[9])
{
    int r0 = p->block_row[k];
    memset(out, 0, 9 * sizeof(double));
    if (p->n_ptr) {
        for (int i = 0; i < 3; i++)
            for (int q = p->n_ptr[r0 + i]; q < p->n_ptr[r0 + i + 1]; q++) {
                int c = p->n_col[q] - r0;
                if (c >= 0 && c < 3) out[3 * i + c] = p->n_val[q];
            }
        return;
    }
    if (p->base) {
        /* facet problems have no contact blocks */
        return;
    }
    /* the three rows of a contact share their columns (assembly writes them so) */
    int p0 = p->row_ptr[r0], len = p->row_ptr[r0 + 1] - p0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int q = 0; q < len; q++) s += p->val[p0 + i * len + q] * p->wval[p0 + j * len + q];
            out[3 * i + j] = s;
        }
    for (int i = 0; i < 3; i++) out[4 * i] += p->sigma[r0 + i];
}

double mo_solve_record(const mo_problem *p, const double *gamma, const double *u, mo_solve_out *o, double *coulomb)
{
    double res = 0.0, err = 0.0;
    mo_problem_residuals(p, gamma, u, &res, &err);
    if (o->res_hist) {
        o->res_hist[o->hist_count] = res;
        o->err_hist[o->hist_count] = err;
        o->hist_count++;
    }
    if (coulomb) *coulomb = err;
    return res;
}

void mo_solve_finish_v(const mo_problem *p, mo_solve_out *o)
{
    if (o->v && p->row_ptr && !p->base && !p->n_ptr) mo_problem_velocity(p, o->gamma, o->v);
}

void mo_solve_finish_best(const mo_problem *p, mo_solve_out *o, const double *best, int iterations, double residual,
                          double coulomb)
{
    memcpy(o->gamma, best, (size_t)p->m * sizeof(double));
    o->iterations = iterations;
    o->residual = residual;
    o->coulomb_error = coulomb;
    mo_solve_finish_v(p, o);
}

bool mo_solve_begin(const mo_problem *p, mo_solve_out *o)
{
    o->converged = false;
    o->hist_count = 0;
    if (p->m != 0) return false;
    o->iterations = 0;
    o->residual = o->coulomb_error = 0.0;
    mo_solve_finish_v(p, o);
    return true;
}
