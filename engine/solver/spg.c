/* spg.c: P-SPG-FB, the preconditioned spectral projected gradient
 * method with fallback (Tasora et al.; SOLVERS.md A), following the paper's
 * listing line by line:
 *
 *   p_j = P^-1 g_j;  d_j = P_K(x_j - a_j p_j) - x_j
 *   if <d_j, g_j> >= 0: d_j = P_K(x_j - a_j g_j) - x_j      (unpreconditioned retry)
 *   GLL line search: x_j+1 = x_j + lambda d_j accepted when
 *       f(x_j+1) <= max_{i <= min(j, N_GLL)} f(x_j-i) + gamma lambda <d_j, g_j>
 *   s = x_j+1 - x_j, y = g_j+1 - g_j
 *   a_j+1 = <s, P s>/<s, y> (j odd, BB1) or <s, y>/<y, P^-1 y> (j even, BB2),
 *           clamped to [alpha_min, alpha_max]
 *           (or, with step_rule MO_SPG_ABBMIN, not the listing's: ABBmin2 of
 *           Frassoldati, Zanni and Zanghirati 2008: BB1, unless BB2 < tau BB1,
 *           then the smallest of the last 9 BB2 and tau *= 0.9; else tau *= 1.1;
 *           tau_0 = 0.5)
 *   fallback: keep the x with the smallest w = |x - P_K(x - tau_g g)| / tau_g.
 *
 * Choices where the paper gives no value (documented in docs/solvers.md too):
 * - P = diag(N) averaged within each block (a contact's 3 rows share one value;
 *   a joint's bilateral rows share one value), or I when switched off;
 * - lambda_new from the minimiser of the quadratic model along d (exact for
 *   this quadratic f), clamped to [sigma_min lambda, sigma_max lambda]
 *   (Birgin-Martinez-Raydan's rule; sigma 0.1 / 0.9, armijo gamma 1e-4);
 * - a_0 = 1 / max diag(P^-1 N) unless set; tau_g = 0 means 1 / max diag N, so
 *   w is exactly the CCP residual the engine reports; in the outer Coulomb
 *   updates the fallback keeps the smallest Coulomb error instead.
 * Written over the backend operations (ops.h), so it runs on any backend:
 * the line search and the step rule are host scalars from fused dots.
 * f is quadratic, so f and g along d follow from one product N d per
 * iteration: g(x + lambda d) = g + lambda N d, and the line search costs no
 * further products. Non-symmetric N (FCLIB): g uses N as given; f(x) =
 * 1/2 x^T (N x) + r^T x sees only its symmetric part. */
#include <math.h>
#include <float.h>
#include <string.h>
#include "solver/ops.h"

/* the projected-gradient residual |x - P_K(x - tau g)| / tau (xt: a vector of scratch) */
static double grad_residual(const mo_ops *O, const double *x, const double *g, double tau, double *xt)
{
    O->waxpy(O, xt, x, -tau, g);
    O->project(O, xt);
    O->sub(O, xt, x, xt);
    return sqrt(O->dot(O, xt, xt)) / tau;
}

void mo_solver_spg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    const int m = p->m;
    const mo_spg_settings *c = &s->spg;
    double fhist[128];

    if (mo_solve_begin(p, o)) return; /* no rows: nothing to solve */
    mo_ops ops;
    const mo_ops *O = &ops;
    if (mo_ops_make(&ops, p, o, 8)) {
        mo_ops_failed(o);
        return;
    }
    double *x = mo_ops_vec(O, 0);
    double *g = mo_ops_vec(O, 1);   /* N x + r */
    double *nxv = mo_ops_vec(O, 2); /* N x */
    double *d = mo_ops_vec(O, 3);
    double *nd = mo_ops_vec(O, 4);  /* N d */
    double *pd = mo_ops_vec(O, 5);  /* P (diagonal) */
    double *xt = mo_ops_vec(O, 6);  /* trial / projection buffer */
    double *bx = mo_ops_vec(O, 7);  /* the best iterate */
    const double *r = O->r;
    /* preconditioner: diag(N) averaged per block */
    if (c->preconditioner) {
        O->block_mean_diag(O, pd);
    } else {
        double *h = O->host(O, pd);
        for (int i = 0; i < m; i++) h[i] = 1.0;
        O->upload(O, pd, h);
    }
    /* the scales, on the host from diag(N) (the same block means) */
    double dmax = 0.0, pmax = 0.0;
    for (int k = 0; k < p->nblocks; k++) {
        const double pdi = c->preconditioner ? mo_problem_block_mean_diag(p, k) : 1.0;
        for (int i = p->block_row[k]; i < p->block_row[k + 1]; i++) {
            if (p->diag[i] > dmax) dmax = p->diag[i];
            double q = p->diag[i] / pdi;
            if (q > pmax) pmax = q;
        }
    }
    const double tau = c->tau_g > 0.0 ? c->tau_g : (dmax > 0.0 ? 1.0 / dmax : 1.0);
    double alpha = c->alpha0 > 0.0 ? c->alpha0 : (pmax > 0.0 ? 1.0 / pmax : 1.0);
    alpha = fmin(c->alpha_max, fmax(c->alpha_min, alpha));

    O->copy(O, x, O->gamma);
    O->project(O, x);
    O->apply(O, x, nxv);
    O->waxpy(O, g, nxv, 1.0, r);
    double f = 0.5 * O->dot(O, x, nxv) + O->dot(O, x, r);
    int nh = 0, ngll = c->n_gll < 128 ? c->n_gll : 128;
    fhist[nh++] = f;
    double res = 0.0, err = 0.0;
    O->residuals(O, x, g, &res, &err);
    /* tau_g = 1/max diag N is the CCP residual's alpha: w == res */
    double wres = c->tau_g > 0.0 ? grad_residual(O, x, g, tau, xt) : res;
    mo_best best = {bx, 0.0, 0.0, 0.0};
    mo_ops_best_take(O, &best, p->stop_coulomb ? err : wres, res, err, x);
    bool stop = mo_solve_stop(p, s, res, err, &o->converged);

    int it = 0;
    double bb2hist[9], abb_tau = 0.5; /* MO_SPG_ABBMIN: the last 9 BB2 steps, the switching threshold */
    int nbb2 = 0;
    while (!stop && it < s->max_iterations) {
        /* direction: preconditioned projected step, retried unpreconditioned if not descent */
        O->pstep(O, xt, x, alpha, g, pd);
        O->project(O, xt);
        O->sub(O, d, xt, x);
        double dg = O->dot(O, d, g);
        if (dg >= 0.0) {
            O->waxpy(O, xt, x, -alpha, g);
            O->project(O, xt);
            O->sub(O, d, xt, x);
            dg = O->dot(O, d, g);
        }
        it++;
        if (!(dg < 0.0)) {
            /* no descent direction left: x is stationary to rounding */
            res = mo_ops_record(O, x, g, o, &err);
            if (mo_solve_measure(p, res, err) < best.measure)
                mo_ops_best_take(O, &best, mo_solve_measure(p, res, err), res, err, x);
            break;
        }
        O->apply(O, d, nd);
        /* every sum of this iteration over d and N d in one pass: d^T N d, the three of the line search, and
         * the BB step's <s, P s> and <y, P^-1 y> where the rule uses them (s = lambda d, y = lambda N d) */
        const bool want_sps = c->step_rule == MO_SPG_ABBMIN || it % 2 == 0;
        const bool want_ypy = c->step_rule == MO_SPG_ABBMIN || it % 2 != 0;
        mo_sum terms[6] = {{MO_SUM_DOT, d, nd, NULL}, {MO_SUM_DOT, d, nxv, NULL}, {MO_SUM_DOT, x, nd, NULL},
                           {MO_SUM_DOT, d, r, NULL}};
        int nterms = 4, i_sps = -1, i_ypy = -1;
        if (want_sps) {
            i_sps = nterms;
            terms[nterms++] = (mo_sum){MO_SUM_WDOT, d, pd, d};
        }
        if (want_ypy) {
            i_ypy = nterms;
            terms[nterms++] = (mo_sum){MO_SUM_IDOT, nd, nd, pd};
        }
        double sums[6];
        O->sums(O, nterms, terms, sums);
        double dnd = sums[0];
        const double sps = i_sps >= 0 ? sums[i_sps] : 0.0, ypy = i_ypy >= 0 ? sums[i_ypy] : 0.0;
        double fmax_ = fhist[0];
        for (int i = 1; i < nh; i++)
            if (fhist[i] > fmax_) fmax_ = fhist[i];
        /* GLL line search along d (f(x + l d) = f + l <d, g_sym> + l^2/2 d^T N d) */
        double dgs = 0.5 * (sums[1] + sums[2]) + sums[3]; /* <d, grad of sym f> */
        double lambda = 1.0, fnew = f;
        for (int ls = 0; ls < 60; ls++) {
            fnew = f + lambda * dgs + 0.5 * lambda * lambda * dnd;
            if (fnew <= fmax_ + c->armijo * lambda * dg) break;
            /* minimiser of the quadratic model, safeguarded */
            double lq = dnd > 0.0 ? -dgs / dnd : c->sigma_max * lambda;
            if (!(lq >= c->sigma_min * lambda)) lq = c->sigma_min * lambda;
            if (lq > c->sigma_max * lambda) lq = c->sigma_max * lambda;
            lambda = lq;
        }
        /* s = lambda d, y = lambda N d */
        O->axpy(O, x, lambda, d);
        O->axpy(O, nxv, lambda, nd);
        O->waxpy(O, g, nxv, 1.0, r);
        f = fnew;
        if (nh < ngll + 1) fhist[nh++] = f;
        else {
            memmove(fhist, fhist + 1, (size_t)(nh - 1) * sizeof(double));
            fhist[nh - 1] = f;
        }
        double sy = lambda * lambda * dnd;
        double a_new;
        if (c->step_rule == MO_SPG_ABBMIN) {
            double bb1 = sy > 0.0 ? lambda * lambda * sps / sy : c->alpha_max;
            double bb2 = ypy > 0.0 ? sy / (lambda * lambda * ypy) : c->alpha_max;
            bb2hist[nbb2 % 9] = bb2;
            nbb2++;
            if (bb2 < abb_tau * bb1) {
                a_new = bb2;
                for (int q = 0; q < (nbb2 < 9 ? nbb2 : 9); q++) a_new = fmin(a_new, bb2hist[q]);
                abb_tau *= 0.9;
            } else {
                a_new = bb1;
                abb_tau *= 1.1;
            }
        } else if (it % 2 == 0) { /* j = it - 1 odd: BB1 = <s, P s> / <s, y> */
            a_new = sy > 0.0 ? lambda * lambda * sps / sy : c->alpha_max;
        } else { /* BB2 = <s, y> / <y, P^-1 y> */
            a_new = ypy > 0.0 ? sy / (lambda * lambda * ypy) : c->alpha_max;
        }
        alpha = fmin(c->alpha_max, fmax(c->alpha_min, a_new));

        res = mo_ops_record(O, x, g, o, &err);
        wres = c->tau_g > 0.0 ? grad_residual(O, x, g, tau, xt) : res;
        double meas = p->stop_coulomb ? err : wres;
        if (meas <= best.measure) mo_ops_best_take(O, &best, meas, res, err, x);
        stop = mo_solve_stop(p, s, res, err, &o->converged);
    }
    mo_ops_finish_best(O, o, best.x, it, best.res, best.err);
}
