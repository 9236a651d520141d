/* fclib_newton.c: a semismooth (generalised) Newton method for the FCLIB
 * local problem u = W r + q, mu per contact (mo_fc_solve with
 * settings.kind == MO_SOLVER_NEWTON).
 *
 * Formulation: Alart-Curnier, as Siconos's NSN_AC ("STD" variant). Per
 * contact c, with p_N = r_N - rho_N u_N and p_T = r_T - rho_T u_T,
 *
 *     Phi_N = r_N - max(0, p_N)
 *     Phi_T = r_T - P_D(mu max(0, p_N)) (p_T)      (D(R): the disk of radius R)
 *
 * Phi_c = 0 exactly when r_c, u_c satisfy Coulomb's law (r_N >= 0, u_N >= 0,
 * r_N u_N = 0; |r_T| <= mu r_N; sticking u_T = 0 or sliding r_T = -mu r_N
 * u_T/|u_T|), which is the same set where the De Saxce natural map
 * r - P_K(r - (u + mu |u_T| e_N)) of the Siconos error vanishes. Chosen over
 * the Fischer-Burmeister / De Saxce one (NSN_FB) because Phi is piecewise
 * smooth with a generalised Jacobian read off directly per contact (an
 * active/inactive normal, a stick/slip disk), needs no spectral decomposition
 * in the second-order cone and has no degenerate cases besides |p_T| = 0.
 *
 * rho per contact from W's diagonal block: rho_N = 1 / W_NN, rho_T =
 * 2 / (W_T1T1 + W_T2T2) (each 1 / (largest |entry| of the block) when not
 * positive, 1 when the block is zero): the AC map is then in the units of r
 * whatever the scale of W (|W| ~ 2e-5 on PerioBox).
 *
 * Generalised Jacobian: with g(r, u) = r - Phi and G_r, G_u its 3x3
 * derivatives per contact (block diagonal), dPhi/dr = I - G_r - G_u W: W's
 * sparsity, each contact's three rows sharing the union of their W rows'
 * columns and the diagonal block (the pattern is fixed, so the symbolic
 * factorisation is done once). Linear solves: UMFPACK (SuiteSparse) when the
 * library was built with it (MO_HAVE_UMFPACK), else a dense LU with partial
 * pivoting for at most 300 contacts (larger problems are refused without
 * UMFPACK); problems of at most 8 contacts use the dense LU in either case
 * (UMFPACK's set-up costs more than the factorisation there).
 *
 * Regularisation: the Newton matrix is J + lam I. A sticking contact's rows
 * are rho W's rows, so J is singular whenever W is rank deficient (more
 * contact rows than body dofs: BoxesStack1, local_problem_test; UMFPACK then
 * reports a singular matrix). lam starts at 1e-10, is divided by 10 after
 * every accepted Newton step (not below 1e-10) and multiplied by 100 (not
 * above 1) after every failed one (Levenberg-Marquardt-like): the Capsules
 * problems (non-symmetric W) need that damping, the others keep 1e-10, which
 * leaves the local convergence quadratic.
 *
 * Globalisation: Armijo backtracking on psi = 1/2 |Phi|^2 (psi(r + t d) <=
 * (1 - 2 sigma t) psi(r), sigma = 1e-4, t halved down to 2^-10); when the
 * direction is not finite or the search fails, three projected Gauss-Seidel
 * sweeps (De Saxce steps, r_c <- P_K(r_c - (u_c + mu |u_T| e_N) / eta_c),
 * eta_c the largest eigenvalue of the block's symmetric part) replace the
 * step. Stop: the Siconos error (mo_fc_error) <= tolerance; the iterate with
 * the smallest Siconos error is returned. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/solver.h"
#include "io/fclib_internal.h"
#ifdef MO_HAVE_UMFPACK
#include <umfpack.h>
#endif

mo_status mo_fc_solve_newton(const mo_fc_problem *fc, const mo_solver_settings *s, double *r, double *u,
                             mo_fc_result *res, double *err_history, double *ccp_history, char *err,
                             size_t err_size);

#define NT_DENSE_MAX_CONTACTS 300
/* with UMFPACK, problems this small still use the dense LU (no factorisation set-up) */
#define NT_DENSE_SMALL_CONTACTS 8

typedef struct nt_ctx {
    const mo_fc_problem *fc;
    int nc, m;
    double *rho_n, *rho_t, *eta;
    /* Jacobian: CSR, rows of contact c share one pattern */
    int *jptr, *jcol, *wpos, *dpos; /* wpos: W entry -> offset within its contact's pattern; dpos: 3 per contact */
    double *jval;
    double *gr, *gu;                /* 9 per contact, row-major */
} nt_ctx;

static void w_apply(const mo_csr *W, const double *q, const double *x, double *y)
{
    for (int i = 0; i < W->rows; i++) {
        double sum = q[i];
        for (int k = W->ptr[i]; k < W->ptr[i + 1]; k++) sum += W->val[k] * x[W->col[k]];
        y[i] = sum;
    }
}

/* Phi (m) of r with u = W r + q; G_r and G_u per contact when gr != NULL; returns |Phi|^2 */
static double nt_phi(const nt_ctx *c, const double *r, const double *u, double *phi, double *gr, double *gu)
{
    double s2 = 0.0;
    for (int k = 0; k < c->nc; k++) {
        const double *rk = r + 3 * k, *uk = u + 3 * k;
        const double mu = c->fc->mu[k], rn = c->rho_n[k], rt = c->rho_t[k];
        double pn = rk[0] - rn * uk[0];
        double pt[2] = {rk[1] - rt * uk[1], rk[2] - rt * uk[2]};
        double R = pn > 0.0 ? mu * pn : 0.0, np = hypot(pt[0], pt[1]);
        double g[3];
        double *a = gr ? gr + 9 * k : NULL, *b = gu ? gu + 9 * k : NULL;
        if (a) {
            memset(a, 0, 9 * sizeof(double));
            memset(b, 0, 9 * sizeof(double));
        }
        if (pn > 0.0) {
            g[0] = pn;
            if (a) {
                a[0] = 1.0;
                b[0] = -rn;
            }
        } else {
            g[0] = 0.0;
        }
        if (np <= R) { /* stick (or both zero) */
            g[1] = pt[0];
            g[2] = pt[1];
            if (a) {
                a[4] = a[8] = 1.0;
                b[4] = b[8] = -rt;
            }
        } else { /* slip (or open: R = 0) */
            double t[2] = {pt[0] / np, pt[1] / np}, f = R / np;
            g[1] = R * t[0];
            g[2] = R * t[1];
            if (a) {
                double d[4] = {f * (1.0 - t[0] * t[0]), -f * t[0] * t[1], -f * t[1] * t[0], f * (1.0 - t[1] * t[1])};
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++) {
                        a[3 * (1 + i) + 1 + j] = d[2 * i + j];
                        b[3 * (1 + i) + 1 + j] = -rt * d[2 * i + j];
                    }
                if (pn > 0.0)
                    for (int i = 0; i < 2; i++) {
                        a[3 * (1 + i)] = mu * t[i];
                        b[3 * (1 + i)] = -rn * mu * t[i];
                    }
            }
        }
        for (int i = 0; i < 3; i++) {
            phi[3 * k + i] = rk[i] - g[i];
            s2 += phi[3 * k + i] * phi[3 * k + i];
        }
    }
    return s2;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* the pattern of I - G_r - G_u W (per contact: union of its three W rows and its diagonal block) */
static bool nt_pattern(nt_ctx *c)
{
    const mo_csr *W = &c->fc->W;
    int nc = c->nc, m = c->m;
    c->jptr = malloc(((size_t)m + 1) * sizeof(int));
    c->wpos = malloc(((size_t)W->nnz + 1) * sizeof(int));
    c->dpos = malloc(((size_t)m + 1) * sizeof(int));
    int *tmp = malloc(((size_t)W->nnz + 3 * (size_t)nc + 1) * sizeof(int));
    /* worst case: every contact's union is the sum of its rows + 3 */
    size_t cap = 0;
    for (int k = 0; k < nc; k++) cap += 3 * ((size_t)(W->ptr[3 * k + 3] - W->ptr[3 * k]) + 3);
    c->jcol = malloc((cap + 1) * sizeof(int));
    if (!c->jptr || !c->wpos || !c->dpos || !tmp || !c->jcol) {
        free(tmp);
        return false;
    }
    int nz = 0;
    c->jptr[0] = 0;
    for (int k = 0; k < nc; k++) {
        int n = 0;
        for (int k2 = W->ptr[3 * k]; k2 < W->ptr[3 * k + 3]; k2++) tmp[n++] = W->col[k2];
        for (int b = 0; b < 3; b++) tmp[n++] = 3 * k + b;
        qsort(tmp, (size_t)n, sizeof(int), cmp_int);
        int len = 0;
        for (int i = 0; i < n; i++)
            if (len == 0 || tmp[i] != tmp[len - 1]) tmp[len++] = tmp[i];
        for (int a = 0; a < 3; a++) {
            memcpy(c->jcol + nz, tmp, (size_t)len * sizeof(int));
            nz += len;
            c->jptr[3 * k + a + 1] = nz;
        }
        /* offsets within the pattern (binary search) */
        for (int k2 = W->ptr[3 * k]; k2 < W->ptr[3 * k + 3]; k2++) {
            int *f = bsearch(&W->col[k2], tmp, (size_t)len, sizeof(int), cmp_int);
            c->wpos[k2] = (int)(f - tmp);
        }
        for (int b = 0; b < 3; b++) {
            int key = 3 * k + b;
            int *f = bsearch(&key, tmp, (size_t)len, sizeof(int), cmp_int);
            c->dpos[3 * k + b] = (int)(f - tmp);
        }
    }
    free(tmp);
    c->jval = malloc(((size_t)nz + 1) * sizeof(double));
    return c->jval != NULL;
}

/* J = I - G_r - G_u W into jval */
static void nt_jacobian(nt_ctx *c)
{
    const mo_csr *W = &c->fc->W;
    memset(c->jval, 0, (size_t)c->jptr[c->m] * sizeof(double));
    for (int k = 0; k < c->nc; k++) {
        const double *a = c->gr + 9 * k, *b = c->gu + 9 * k;
        for (int i = 0; i < 3; i++) {
            double *row = c->jval + c->jptr[3 * k + i];
            for (int j = 0; j < 3; j++) {
                double bij = b[3 * i + j];
                if (bij != 0.0)
                    for (int k2 = W->ptr[3 * k + j]; k2 < W->ptr[3 * k + j + 1]; k2++)
                        row[c->wpos[k2]] -= bij * W->val[k2];
                row[c->dpos[3 * k + j]] += (i == j ? 1.0 : 0.0) - a[3 * i + j];
            }
        }
    }
}

/* dense LU with partial pivoting of the CSR matrix; solves A x = b in place (b -> x); false if singular */
static bool dense_solve(const nt_ctx *c, double *A, int *piv, double *b)
{
    int m = c->m;
    memset(A, 0, (size_t)m * (size_t)m * sizeof(double));
    for (int i = 0; i < m; i++)
        for (int k = c->jptr[i]; k < c->jptr[i + 1]; k++) A[(size_t)i * (size_t)m + (size_t)c->jcol[k]] = c->jval[k];
    for (int j = 0; j < m; j++) {
        int p = j;
        double best = fabs(A[(size_t)j * (size_t)m + (size_t)j]);
        for (int i = j + 1; i < m; i++) {
            double v = fabs(A[(size_t)i * (size_t)m + (size_t)j]);
            if (v > best) {
                best = v;
                p = i;
            }
        }
        if (!(best > 0.0)) return false;
        piv[j] = p;
        if (p != j) {
            for (int k = 0; k < m; k++) {
                double t = A[(size_t)j * (size_t)m + (size_t)k];
                A[(size_t)j * (size_t)m + (size_t)k] = A[(size_t)p * (size_t)m + (size_t)k];
                A[(size_t)p * (size_t)m + (size_t)k] = t;
            }
            double t = b[j];
            b[j] = b[p];
            b[p] = t;
        }
        const double *rj = A + (size_t)j * (size_t)m;
        for (int i = j + 1; i < m; i++) {
            double *ri = A + (size_t)i * (size_t)m;
            double f = ri[j] / rj[j];
            if (f == 0.0) continue;
            ri[j] = f;
            for (int k = j + 1; k < m; k++) ri[k] -= f * rj[k];
            b[i] -= f * b[j];
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        const double *ri = A + (size_t)i * (size_t)m;
        double sum = b[i];
        for (int k = i + 1; k < m; k++) sum -= ri[k] * b[k];
        b[i] = sum / ri[i];
    }
    return true;
}

static void project_cone(double *x, double mu)
{
    double s = hypot(x[1], x[2]);
    if (s <= mu * x[0]) return;
    if (mu * s <= -x[0]) {
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    double n = (x[0] + mu * s) / (1.0 + mu * mu), k = s > 0.0 ? mu * n / s : 0.0;
    x[0] = n;
    x[1] *= k;
    x[2] *= k;
}

/* one projected Gauss-Seidel sweep with De Saxce steps (the fallback) */
static void pgs_sweep(const nt_ctx *c, double *r)
{
    const mo_csr *W = &c->fc->W;
    for (int k = 0; k < c->nc; k++) {
        if (!(c->eta[k] > 0.0)) continue;
        double uk[3];
        for (int i = 0; i < 3; i++) {
            double sum = c->fc->q[3 * k + i];
            for (int k2 = W->ptr[3 * k + i]; k2 < W->ptr[3 * k + i + 1]; k2++) sum += W->val[k2] * r[W->col[k2]];
            uk[i] = sum;
        }
        double mu = c->fc->mu[k], h = 1.0 / c->eta[k];
        double x[3] = {r[3 * k] - h * (uk[0] + mu * hypot(uk[1], uk[2])), r[3 * k + 1] - h * uk[1],
                       r[3 * k + 2] - h * uk[2]};
        project_cone(x, mu);
        memcpy(r + 3 * k, x, sizeof x);
    }
}

/* largest eigenvalue bound of a symmetric 3x3 (Gershgorin) */
static double sym3_bound(const double *a)
{
    double g = 0.0;
    for (int i = 0; i < 3; i++) {
        double row = fabs(a[3 * i]) + fabs(a[3 * i + 1]) + fabs(a[3 * i + 2]);
        if (row > g) g = row;
    }
    return g;
}

mo_status mo_fc_solve_newton(const mo_fc_problem *fc, const mo_solver_settings *s, double *r, double *u,
                             mo_fc_result *res, double *err_history, double *ccp_history, char *err,
                             size_t err_size)
{
    return mo_fc_newton_run(fc, s, 0, 0.0, r, u, res, err_history, ccp_history, err, err_size);
}

mo_status mo_fc_newton_run(const mo_fc_problem *fc, const mo_solver_settings *s, int stall_window,
                           double stall_factor, double *r, double *u, mo_fc_result *res, double *err_history,
                           double *ccp_history, char *err, size_t err_size)
{
    double t0 = mo_now();
    const int nc = fc->nc, m = 3 * nc;
#ifndef MO_HAVE_UMFPACK
    if (nc > NT_DENSE_MAX_CONTACTS) {
        snprintf(err, err_size, "mo_fc_solve: newton on %d contacts needs UMFPACK (this build has none; the dense LU "
                 "fallback takes at most %d contacts)", nc, NT_DENSE_MAX_CONTACTS);
        return MO_ERR_UNSUPPORTED;
    }
#endif
    nt_ctx c;
    memset(&c, 0, sizeof c);
    c.fc = fc;
    c.nc = nc;
    c.m = m;
    size_t md = (size_t)m + 1, ncd = (size_t)nc + 1;
    c.rho_n = malloc(ncd * sizeof(double));
    c.rho_t = malloc(ncd * sizeof(double));
    c.eta = malloc(ncd * sizeof(double));
    c.gr = malloc(9 * ncd * sizeof(double));
    c.gu = malloc(9 * ncd * sizeof(double));
    double *uu = malloc(md * sizeof(double)), *phi = malloc(md * sizeof(double)), *d = malloc(md * sizeof(double));
    double *rt = malloc(md * sizeof(double)), *ut = malloc(md * sizeof(double)), *pt = malloc(md * sizeof(double));
    double *best = malloc(md * sizeof(double));
    double *dense = NULL;
    int *piv = NULL;
    bool ok = c.rho_n && c.rho_t && c.eta && c.gr && c.gu && uu && phi && d && rt && ut && pt && best;
    if (ok) ok = nt_pattern(&c);
    bool use_dense = nc <= NT_DENSE_SMALL_CONTACTS;
#ifndef MO_HAVE_UMFPACK
    use_dense = true;
#endif
    if (ok && use_dense) {
        dense = malloc(md * md * sizeof(double));
        piv = malloc(md * sizeof(int));
        ok = dense && piv;
    }
    mo_status status = MO_OK;
    if (!ok) {
        snprintf(err, err_size, "mo_fc_solve: out of memory for newton on %d contacts", nc);
        status = MO_ERR_OUT_OF_MEMORY;
        goto done;
    }
    /* rho and eta from the diagonal blocks */
    for (int k = 0; k < nc; k++) {
        double a[9] = {0}, big = 0.0;
        for (int i = 0; i < 3; i++)
            for (int k2 = fc->W.ptr[3 * k + i]; k2 < fc->W.ptr[3 * k + i + 1]; k2++) {
                int j = fc->W.col[k2] - 3 * k;
                if (j >= 0 && j < 3) {
                    a[3 * i + j] += 0.5 * fc->W.val[k2];
                    a[3 * j + i] += 0.5 * fc->W.val[k2];
                    if (fabs(fc->W.val[k2]) > big) big = fabs(fc->W.val[k2]);
                }
            }
        double fb = big > 0.0 ? 1.0 / big : 1.0, wt = a[4] + a[8];
        c.rho_n[k] = a[0] > 0.0 ? 1.0 / a[0] : fb;
        c.rho_t[k] = wt > 0.0 ? 2.0 / wt : fb;
        c.eta[k] = sym3_bound(a);
    }

    for (int i = 0; i < m; i++)
        if (!isfinite(r[i])) r[i] = 0.0;
    double e = mo_fc_error(fc, r, uu);
    double psi = 0.5 * nt_phi(&c, r, uu, phi, c.gr, c.gu);
    double best_e = e, mark_e = e; /* mark_e: the best error when the current stall window began */
    memcpy(best, r, (size_t)m * sizeof(double));
    int hist = 0, it = 0;
    if (err_history) err_history[hist] = e;
    if (ccp_history) ccp_history[hist] = sqrt(2.0 * psi);
    hist++;

#ifdef MO_HAVE_UMFPACK
    void *symbolic = NULL;
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_di_defaults(control);
    if (m > 0 && !use_dense && umfpack_di_symbolic(m, m, c.jptr, c.jcol, NULL, &symbolic, control, info) != UMFPACK_OK) {
        snprintf(err, err_size, "mo_fc_solve: UMFPACK's symbolic analysis of the %d x %d Newton matrix failed", m, m);
        status = MO_ERR_OUT_OF_MEMORY;
        goto done;
    }
#endif
    const double sigma = 1e-4;
    /* Levenberg-Marquardt-like shift of J's diagonal (J is dimensionless) */
    const double lam_min = 1e-10, lam_up = 100.0, lam_down = 0.1, lam_max = 1.0;
    double lam = lam_min;
    while (m > 0 && !(s->tolerance > 0.0 && best_e <= s->tolerance) && it < s->max_iterations) {
        it++;
        /* Newton direction: (J + lam I) d = -Phi (G_r, G_u of the current r are in c.gr, c.gu) */
        nt_jacobian(&c);
        for (int i = 0; i < m; i++) c.jval[c.jptr[i] + c.dpos[i]] += lam;
        for (int i = 0; i < m; i++) pt[i] = -phi[i];
        bool dir_ok = false;
        if (use_dense) {
            dir_ok = dense_solve(&c, dense, piv, pt);
            if (dir_ok) memcpy(d, pt, (size_t)m * sizeof(double));
        }
#ifdef MO_HAVE_UMFPACK
        else {
            void *numeric = NULL;
            int st = umfpack_di_numeric(c.jptr, c.jcol, c.jval, symbolic, &numeric, control, info);
            dir_ok = st == UMFPACK_OK;
            /* the matrix given as CSC is J^T: solve its transpose */
            if (dir_ok)
                dir_ok = umfpack_di_solve(UMFPACK_At, c.jptr, c.jcol, c.jval, d, pt, numeric, control, info) ==
                         UMFPACK_OK;
            if (numeric) umfpack_di_free_numeric(&numeric);
        }
#endif
        for (int i = 0; dir_ok && i < m; i++)
            if (!isfinite(d[i])) dir_ok = false;
        bool stepped = false;
        if (dir_ok) {
            double t = 1.0;
            for (int ls = 0; ls <= 10; ls++, t *= 0.5) {
                for (int i = 0; i < m; i++) rt[i] = r[i] + t * d[i];
                w_apply(&fc->W, fc->q, rt, ut);
                double psi_t = 0.5 * nt_phi(&c, rt, ut, pt, NULL, NULL);
                if (psi_t <= (1.0 - 2.0 * sigma * t) * psi) {
                    stepped = true;
                    break;
                }
            }
        }
        if (stepped) lam = fmax(lam * lam_down, lam_min);
        else lam = fmin(lam * lam_up, lam_max);
        if (!stepped) { /* fallback: projected Gauss-Seidel sweeps from r */
            memcpy(rt, r, (size_t)m * sizeof(double));
            for (int k = 0; k < 3; k++) pgs_sweep(&c, rt);
        }
        memcpy(r, rt, (size_t)m * sizeof(double));
        e = mo_fc_error(fc, r, uu);
        psi = 0.5 * nt_phi(&c, r, uu, phi, c.gr, c.gu);
        if (!(e >= best_e)) { /* also takes the first finite one */
            best_e = e;
            memcpy(best, r, (size_t)m * sizeof(double));
        }
        if (err_history) err_history[hist] = e;
        if (ccp_history) ccp_history[hist] = sqrt(2.0 * psi);
        hist++;
        if (!isfinite(e)) break;
        /* stagnation (mo_fc_solve_auto): a window that did not cut the best error by stall_factor ends the run */
        if (stall_window > 0 && it % stall_window == 0) {
            if (!(best_e <= stall_factor * mark_e)) break;
            mark_e = best_e;
        }
    }
#ifdef MO_HAVE_UMFPACK
    if (symbolic) umfpack_di_free_symbolic(&symbolic);
#endif
    memcpy(r, best, (size_t)m * sizeof(double));
    e = mo_fc_error(fc, r, uu);
    if (u) memcpy(u, uu, (size_t)m * sizeof(double));
    if (res) {
        memset(res, 0, sizeof *res);
        res->iterations = it;
        res->error = e;
        res->converged = s->tolerance > 0.0 && e <= s->tolerance;
        w_apply(&fc->W, fc->q, r, uu);
        res->ccp_residual = sqrt(nt_phi(&c, r, uu, phi, NULL, NULL));
        res->seconds = mo_now() - t0;
        res->history_count = hist;
        mo_fc_result_one_stage(res, MO_SOLVER_NEWTON);
    }
done:
    free(c.rho_n); free(c.rho_t); free(c.eta); free(c.gr); free(c.gu);
    free(c.jptr); free(c.jcol); free(c.wpos); free(c.dpos); free(c.jval);
    free(uu); free(phi); free(d); free(rt); free(ut); free(pt); free(best); free(dense); free(piv);
    return status;
}
