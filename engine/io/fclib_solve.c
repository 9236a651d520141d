/* fclib_solve.c: any Moreau solver on an outside frictional contact problem
 * (FCLIB local form u = W r + q): the problem becomes the engine's explicit
 * form (N = W as given, r = q, one contact block per contact), solved by
 * mo_solve, scored with the Siconos error.
 *
 * Non-symmetric W (Bullet-based files: max|W - W^T| up to 1.5e-2 of max|W| 7):
 * not symmetrised. Every solver multiplies by W as given, so a fixed point is
 * a solution of the problem as posed and the reported error is computed with
 * the W as given. Only the step tests of APGD and SPG (d^T W d, and SPG's
 * objective) see W's symmetric part. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/solver.h"
#include "io/fclib_internal.h"

/* largest eigenvalue of a symmetric 3x3 matrix (the symmetric part of a contact's W block) */
static double sym3_lambda_max(const double *a)
{
    /* power iteration is enough here: PGS needs an upper bound of the scale */
    double x[3] = {1.0, 0.7, 0.3}, lam = 0.0;
    for (int it = 0; it < 50; it++) {
        double y[3];
        for (int i = 0; i < 3; i++) y[i] = a[3 * i] * x[0] + a[3 * i + 1] * x[1] + a[3 * i + 2] * x[2];
        double n = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
        if (!(n > 0.0)) return 0.0;
        lam = n;
        for (int i = 0; i < 3; i++) x[i] = y[i] / n;
    }
    /* Rayleigh quotient of the converged vector, then a Gershgorin cap against slow convergence */
    double g = 0.0;
    for (int i = 0; i < 3; i++) {
        double row = fabs(a[3 * i]) + fabs(a[3 * i + 1]) + fabs(a[3 * i + 2]);
        if (row > g) g = row;
    }
    return lam > g ? g : (lam * 1.0000001 < g ? lam * 1.0000001 : g);
}

/* fclib_newton.c */
mo_status mo_fc_solve_newton(const mo_fc_problem *fc, const mo_solver_settings *s, double *r, double *u,
                             mo_fc_result *res, double *err_history, double *ccp_history, char *err,
                             size_t err_size);

static double csr_norm1(const mo_csr *a)
{
    /* largest column sum */
    if (a->cols <= 0) return 0.0;
    double *cs = calloc((size_t)a->cols, sizeof(double)), best = 0.0;
    if (!cs) return 0.0;
    for (int k = 0; k < a->nnz; k++) cs[a->col[k]] += fabs(a->val[k]);
    for (int j = 0; j < a->cols; j++)
        if (cs[j] > best) best = cs[j];
    free(cs);
    return best;
}

mo_status mo_fc_solve(const mo_fc_problem *fc, const mo_solver_settings *s, double *r, double *u, mo_fc_result *res,
                      double *err_history, double *ccp_history, char *err, size_t err_size)
{
    char tmp[256];
    if (!err) {
        err = tmp;
        err_size = sizeof tmp;
    }
    if (err_size) err[0] = '\0';
    if (!fc || !s || !r) {
        snprintf(err, err_size, "mo_fc_solve: problem, settings and r must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_solver_check_max(s, MO_FC_ITERATIONS_MAX, err, err_size)) return MO_ERR_INVALID_ARGUMENT;
    if (!mo_solver_has(s->kind, MO_SOLVER_CAP_CONTACTS)) {
        snprintf(err, err_size, "mo_fc_solve: solver '%s' solves bilateral rows only; a frictional contact problem "
                 "needs pgs, jacobi, apgd or spg", mo_solver_name(s->kind));
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int nc = fc->nc, m = 3 * nc;
    if (nc < 0 || fc->W.rows != m || fc->W.cols != m || (m > 0 && (!fc->W.ptr || !fc->q || !fc->mu))) {
        snprintf(err, err_size, "mo_fc_solve: W must be %d x %d for %d contacts, got %d x %d", m, m, nc, fc->W.rows,
                 fc->W.cols);
        return MO_ERR_INVALID_ARGUMENT;
    }
    /* a semismooth Newton method on the Alart-Curnier function (fclib_newton.c);
     * the engine's position-level Newton solver steps worlds only */
    if (!mo_solver_row_of(s->kind)->solve) return mo_fc_solve_newton(fc, s, r, u, res, err_history, ccp_history, err, err_size);
    double t0 = mo_now();
    size_t md = (size_t)(m > 0 ? m : 1), ncd = (size_t)(nc > 0 ? nc : 1);
    int *block_row = malloc((ncd + 1) * sizeof(int));
    uint8_t *kind = malloc(ncd);
    double *eta = malloc(ncd * sizeof(double));
    double *zero = calloc(md, sizeof(double));
    double *hi = malloc(md * sizeof(double));
    double *diag = malloc(md * sizeof(double));
    double *gamma = malloc(md * sizeof(double));
    double *uu = malloc(md * sizeof(double));
    mo_problem p;
    memset(&p, 0, sizeof p);
    p.m = m;
    if (!block_row || !kind || !eta || !zero || !hi || !diag || !gamma || !uu) {
        free(block_row); free(kind); free(eta); free(zero); free(hi); free(diag); free(gamma); free(uu);
        snprintf(err, err_size, "mo_fc_solve: out of memory for %d contacts", nc);
        return MO_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < m; i++) {
        diag[i] = 0.0;
        hi[i] = INFINITY;
        for (int k = fc->W.ptr[i]; k < fc->W.ptr[i + 1]; k++)
            if (fc->W.col[k] == i) diag[i] = fc->W.val[k];
    }
    double qn = 0.0;
    for (int i = 0; i < m; i++) qn += fc->q[i] * fc->q[i];
    for (int c = 0; c < nc; c++) {
        block_row[c] = 3 * c;
        kind[c] = MO_BLOCK_CONTACT;
        double a[9] = {0};
        for (int i = 0; i < 3; i++)
            for (int k = fc->W.ptr[3 * c + i]; k < fc->W.ptr[3 * c + i + 1]; k++) {
                int j = fc->W.col[k] - 3 * c;
                if (j >= 0 && j < 3) {
                    a[3 * i + j] += 0.5 * fc->W.val[k];
                    a[3 * j + i] += 0.5 * fc->W.val[k];
                }
            }
        eta[c] = sym3_lambda_max(a);
    }
    block_row[nc] = m;
    p.n = 0;
    p.lo = zero;
    p.hi = hi;
    p.diag = diag;
    p.nblocks = nc;
    p.block_row = block_row;
    p.block_kind = kind;
    p.block_mu = fc->mu;
    p.block_eta = eta;
    p.q_contact_norm = sqrt(qn);
    p.threads = 1;
    p.r = fc->q;
    p.n_ptr = fc->W.ptr;
    p.n_col = fc->W.col;
    p.n_val = fc->W.val;
    /* with Coulomb updates (or PGS's inline ones) the stop and the iterate
     * kept use the Siconos error; the relaxation alone is solved as such
     * (CCP residual) and only scored with the Siconos error */
    p.stop_coulomb = s->coulomb_updates > 0;
    if (fc->ndof > 0) {
        double mn = csr_norm1(&fc->M), hn = csr_norm1(&fc->H);
        p.acary_rho = hn > 0.0 ? mn / hn : 0.0;
    }

    /* the solve's work space, for the problem as it now stands (mo_solve allocates nothing) */
    double *scratch = malloc((mo_solve_scratch_size(&p, s) + 1) * sizeof(double));
    if (!scratch) {
        free(block_row); free(kind); free(eta); free(zero); free(hi); free(diag); free(gamma); free(uu);
        snprintf(err, err_size, "mo_fc_solve: out of memory for %d contacts", nc);
        return MO_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < m; i++) gamma[i] = isfinite(r[i]) ? r[i] : 0.0;
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = gamma;
    o.scratch = scratch;
    /* the solvers write both histories or neither: supply the missing one */
    double *own_hist = NULL;
    o.res_hist = ccp_history;
    o.err_hist = err_history;
    if (!ccp_history != !err_history) {
        own_hist = malloc(((size_t)s->max_iterations + 2) * sizeof(double));
        if (!own_hist) o.res_hist = o.err_hist = NULL;
        else if (!ccp_history) o.res_hist = own_hist;
        else o.err_hist = own_hist;
    }
    mo_solver_settings si = *s;
    si.record_residuals = o.res_hist != NULL;
    mo_solve(&p, &si, &o);
    memcpy(r, gamma, (size_t)m * sizeof(double));
    double e = mo_fc_error(fc, r, uu);
    if (u) memcpy(u, uu, (size_t)m * sizeof(double));
    if (res) {
        memset(res, 0, sizeof *res);
        res->iterations = o.iterations;
        res->error = e;
        res->converged = s->tolerance > 0.0 && e <= s->tolerance;
        res->ccp_residual = o.residual;
        res->seconds = mo_now() - t0;
        res->history_count = o.hist_count;
        mo_fc_result_one_stage(res, s->kind);
    }
    free(own_hist);
    free(block_row); free(kind); free(eta); free(zero); free(hi); free(diag); free(gamma); free(uu); free(scratch);
    return MO_OK;
}
