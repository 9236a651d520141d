/* solve.c: the solve entry shared by the engine's step and by outside
 * problems (mo_fc_solve): the polyhedral friction transform (Gavrea-Petra),
 * the outer Coulomb updates on s = mu |u_t| e_n (APGD paper, section 2.5),
 * then the chosen solver.
 *
 * Polyhedral cone (MO_FRICTION_POLYHEDRAL, p facets): a frictional contact's
 * impulse becomes gamma = sum_s lambda_s (n + mu d_s), d_s = cos(2 pi s / p) t1
 * + sin(2 pi s / p) t2, lambda_s >= 0. Writing gamma_base = E lambda (E block
 * diagonal: for a contact the 3 x p matrix of columns (1, mu cos, mu sin); the
 * identity for every other row), the problem in lambda has N' = E^T N E and
 * r' = E^T r: the dual QP of the paper (SOLVERS.md A, with its kappa =
 * A v~ - b corrected), bound-constrained lambda >= 0. Its generators lie on
 * the cone, so the faceted cone is inscribed and tends to the cone as p grows.
 * N' is applied as E^T (N (E x)) and never formed. APGD, SPG and Jacobi solve
 * it; PGS keeps the exact cone under this setting (its box model is the
 * faceted alternative it has), and docs/solvers.md says so.
 *
 * Coulomb updates (settings.coulomb_updates = U > 0): the convex relaxation
 * (CCP) gives a sliding contact a normal velocity mu |u_t|. Solving instead
 * with r + s, s_i = mu_i |u_T,i| e_n from the previous solution, and
 * iterating, reaches a solution of the exact Coulomb problem when the fixed
 * point converges (Acary-Cariaga's "external update"). The updates are
 * inexact: each inner solve stops once its own CCP residual fell by
 * INNER_REDUCTION, or at the Coulomb tolerance; after U updates the last solve
 * runs to the tolerance or what is left of the shared iteration budget.
 * Tolerance and the best iterate then use the Coulomb error.
 * PGS does the update inside its sweep instead (each contact's step uses the
 * current De Saxce velocity u + mu |u_t| e_n), which needs no outer loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/solver.h"

/* each outer Coulomb update's inner solve stops once its CCP residual fell by this factor */
#define INNER_REDUCTION 0.2

size_t mo_solver_scratch_size(const mo_problem *p)
{
    return 15 * (size_t)p->m + mo_problem_apply_work(p) + 2 * (size_t)p->n + 64; /* MINRES over the ops: 14 m + work + r */
}

/* ---- work space ----
 * mo_solve allocates nothing: the facet and scaled problems, their solvers'
 * scratch and the Coulomb updates' vectors are carved, in this order, from
 * the caller's scratch after the part the chosen solver itself uses
 * (mo_solver_scratch_size). A mo_carver with at == NULL only counts, so the
 * same code gives mo_solve_scratch_size. */

/* ---- polyhedral transform ---- */

typedef struct poly_buf {
    mo_problem q;
    int *block_row, *block_inv, *src;
    uint8_t *kind, *len;
    double *mu, *lo, *hi, *diag, *r, *e, *lambda;
} poly_buf;

/* the facet problem's rows m and blocks nb over base */
static void poly_counts(const mo_problem *base, int facets, int *m_out, int *nb_out)
{
    int m = 0, nb = 0;
    for (int k = 0; k < base->nblocks; k++) {
        int nr = base->block_row[k + 1] - base->block_row[k];
        if (base->block_kind[k] == MO_BLOCK_CONTACT) {
            int c = base->block_mu[k] > 0.0 ? facets : 1;
            m += c;
            nb += c;
        } else {
            m += nr;
            nb += 1;
        }
    }
    *m_out = m;
    *nb_out = nb;
}

/* the facet problem's arrays for m rows and nb blocks (zeroed where the build adds up) */
static void poly_carve(poly_buf *b, mo_carver *c, int m, int nb)
{
    size_t md = (size_t)(m > 0 ? m : 1);
    b->block_row = mo_carve(c, ((size_t)nb + 1) * sizeof(int), false);
    b->block_inv = mo_carve(c, ((size_t)nb + 1) * sizeof(int), false);
    b->src = mo_carve(c, md * sizeof(int), false);
    b->kind = mo_carve(c, (size_t)(nb + 1), false);
    b->len = mo_carve(c, md, false);
    b->mu = mo_carve(c, ((size_t)nb + 1) * sizeof(double), true);
    b->lo = mo_carve(c, md * sizeof(double), false);
    b->hi = mo_carve(c, md * sizeof(double), false);
    b->diag = mo_carve(c, md * sizeof(double), false);
    b->r = mo_carve(c, md * sizeof(double), false);
    b->e = mo_carve(c, 3 * md * sizeof(double), true);
    b->lambda = mo_carve(c, md * sizeof(double), true);
}

/* the fields every transformed problem (facets, scaling) takes: its own
 * bounds, diagonal, r and generators over base; the caller sets the blocks */
static void transformed_init(mo_problem *q, const mo_problem *base, int m, double *lo, double *hi, double *diag,
                             double *r, int *src, uint8_t *len, double *e)
{
    memset(q, 0, sizeof *q);
    q->m = m;
    q->lo = lo;
    q->hi = hi;
    q->diag = diag;
    q->r = r;
    q->q_contact_norm = base->q_contact_norm;
    q->threads = base->threads;
    q->base = base;
    q->poly_src = src;
    q->poly_len = len;
    q->poly_e = e;
}

/* builds the facet problem over base in memory carved from c */
static void poly_build(const mo_problem *base, int facets, poly_buf *b, mo_carver *cv)
{
    memset(b, 0, sizeof *b);
    int m, nb;
    poly_counts(base, facets, &m, &nb);
    poly_carve(b, cv, m, nb);
    int row = 0, blk = 0;
    for (int k = 0; k < base->nblocks; k++) {
        int r0 = base->block_row[k], nr = base->block_row[k + 1] - r0;
        if (base->block_kind[k] == MO_BLOCK_CONTACT) {
            double mu = base->block_mu[k], nb3[9];
            mo_problem_block3(base, k, nb3);
            int c = mu > 0.0 ? facets : 1;
            for (int s = 0; s < c; s++) {
                double *e = b->e + 3 * row;
                double th = 2.0 * MO_PI * (double)s / (double)facets;
                e[0] = 1.0;
                e[1] = mu > 0.0 ? mu * cos(th) : 0.0;
                e[2] = mu > 0.0 ? mu * sin(th) : 0.0;
                double d = 0.0;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) d += e[i] * nb3[3 * i + j] * e[j];
                b->src[row] = r0;
                b->len[row] = mu > 0.0 ? 3 : 1;
                b->diag[row] = d;
                b->lo[row] = 0.0;
                b->hi[row] = INFINITY;
                double rr = 0.0;
                for (int i = 0; i < b->len[row]; i++) rr += e[i] * base->r[r0 + i];
                b->r[row] = rr;
                b->block_row[blk] = row;
                b->block_inv[blk] = -1;
                b->kind[blk] = MO_BLOCK_UNILATERAL;
                blk++;
                row++;
            }
        } else {
            b->block_row[blk] = row;
            b->block_inv[blk] = base->block_inv ? base->block_inv[k] : -1;
            b->kind[blk] = base->block_kind[k];
            b->mu[blk] = 0.0;
            for (int i = 0; i < nr; i++) {
                b->src[row] = r0 + i;
                b->len[row] = 1;
                b->e[3 * row] = 1.0;
                b->diag[row] = base->diag[r0 + i];
                b->lo[row] = base->lo[r0 + i];
                b->hi[row] = base->hi[r0 + i];
                b->r[row] = base->r[r0 + i];
                row++;
            }
            blk++;
        }
    }
    b->block_row[blk] = row;
    mo_problem *q = &b->q;
    transformed_init(q, base, m, b->lo, b->hi, b->diag, b->r, b->src, b->len, b->e);
    q->nblocks = nb;
    q->block_row = b->block_row;
    q->block_kind = b->kind;
    q->block_mu = b->mu;
    q->block_inv = b->block_inv;
    q->inv = base->inv;
    q->acary_rho = base->acary_rho;
}

/* lambda from a base impulse: the two facets around gamma_t's direction carry
 * the tangential part, the rest of gamma_n is spread evenly (sum d_s = 0) */
static void poly_from_gamma(const mo_problem *base, int facets, const double *gamma, double *lambda)
{
    int row = 0;
    for (int k = 0; k < base->nblocks; k++) {
        int r0 = base->block_row[k], nr = base->block_row[k + 1] - r0;
        if (base->block_kind[k] != MO_BLOCK_CONTACT) {
            for (int i = 0; i < nr; i++) lambda[row++] = gamma[r0 + i];
            continue;
        }
        double mu = base->block_mu[k], gn = gamma[r0];
        if (!(mu > 0.0)) {
            lambda[row++] = gn > 0.0 ? gn : 0.0;
            continue;
        }
        double *l = lambda + row;
        for (int s = 0; s < facets; s++) l[s] = 0.0;
        row += facets;
        if (!(gn > 0.0)) continue;
        double t1 = gamma[r0 + 1] / mu, t2 = gamma[r0 + 2] / mu;
        double step = 2.0 * MO_PI / (double)facets;
        double phi = atan2(t2, t1);
        if (phi < 0.0) phi += 2.0 * MO_PI;
        int s0 = (int)floor(phi / step) % facets, s1 = (s0 + 1) % facets;
        double a0 = step * s0, a1 = step * (s0 + 1);
        /* t = a d_s0 + b d_s1 */
        double det = cos(a0) * sin(a1) - sin(a0) * cos(a1);
        double a = (t1 * sin(a1) - t2 * cos(a1)) / det;
        double bb = (cos(a0) * t2 - sin(a0) * t1) / det;
        if (a < 0.0) a = 0.0;
        if (bb < 0.0) bb = 0.0;
        double rest = gn - a - bb;
        if (rest < 0.0) {
            double sc = gn / (a + bb);
            a *= sc;
            bb *= sc;
            rest = 0.0;
        }
        for (int s = 0; s < facets; s++) l[s] = rest / (double)facets;
        l[s0] += a;
        l[s1] += bb;
    }
}

static void poly_to_gamma(const mo_problem *q, const double *lambda, double *gamma)
{
    memset(gamma, 0, (size_t)q->base->m * sizeof(double));
    for (int i = 0; i < q->m; i++)
        for (int k = 0; k < q->poly_len[i]; k++) gamma[q->poly_src[i] + k] += q->poly_e[3 * i + k] * lambda[i];
}

/* ---- diagonal scaling (settings.diagonal_scaling) ----
 *
 * gamma = S gamma-hat with S = diag(s), s = 1 / sqrt(mean of diag(N) over the
 * block) for every row of a block: the problem in gamma-hat has N' = S N S
 * (unit mean diagonal per block), r' = S r, bounds lo / s, hi / s, and each
 * contact's cone unchanged (one s per contact). It is the facet machinery with
 * one generator per row (poly_len 1, poly_e = s), so N' is applied as
 * S (N (S x)). */

typedef struct scale_buf {
    mo_problem q;
    int *src;
    uint8_t *len;
    double *e, *lo, *hi, *diag, *r, *g;
} scale_buf;

/* the scaled problem's arrays for m rows */
static void scale_carve(scale_buf *b, mo_carver *c, int m)
{
    size_t md = (size_t)(m > 0 ? m : 1);
    b->src = mo_carve(c, md * sizeof(int), false);
    b->len = mo_carve(c, md, false);
    b->e = mo_carve(c, 3 * md * sizeof(double), true);
    b->lo = mo_carve(c, md * sizeof(double), false);
    b->hi = mo_carve(c, md * sizeof(double), false);
    b->diag = mo_carve(c, md * sizeof(double), false);
    b->r = mo_carve(c, md * sizeof(double), false);
    b->g = mo_carve(c, md * sizeof(double), false);
}

/* builds the scaled problem over base in memory carved from c */
static void scale_build(const mo_problem *base, scale_buf *b, mo_carver *c)
{
    memset(b, 0, sizeof *b);
    const int m = base->m;
    scale_carve(b, c, m);
    for (int k = 0; k < base->nblocks; k++) {
        int r0 = base->block_row[k], nr = base->block_row[k + 1] - r0;
        double avg = 0.0;
        for (int i = 0; i < nr; i++) avg += base->diag[r0 + i];
        avg /= (double)nr;
        double sc = avg > 0.0 && isfinite(avg) ? 1.0 / sqrt(avg) : 1.0;
        for (int i = r0; i < r0 + nr; i++) {
            b->src[i] = i;
            b->len[i] = 1;
            b->e[3 * i] = sc;
            b->diag[i] = sc * sc * base->diag[i];
            b->lo[i] = base->lo[i] / sc; /* +-inf stay */
            b->hi[i] = base->hi[i] / sc;
            b->r[i] = sc * base->r[i];
        }
    }
    mo_problem *q = &b->q;
    transformed_init(q, base, m, b->lo, b->hi, b->diag, b->r, b->src, b->len, b->e);
    q->nblocks = base->nblocks;
    q->block_row = base->block_row;
    q->block_kind = base->block_kind;
    q->block_mu = base->block_mu;
    q->block_eta = base->block_eta;
    q->stop_coulomb = base->stop_coulomb;
}

/* ---- the solve ---- */

static bool has_contacts(const mo_problem *p)
{
    for (int k = 0; k < p->nblocks; k++)
        if (p->block_kind[k] == MO_BLOCK_CONTACT && p->block_mu[k] > 0.0) return true;
    return false;
}

/* whether p takes outer Coulomb updates under s: not for PGS (it does them inline), nor facet
 * problems (m differs from the base's; scaled ones do), nor problems without friction */
static bool takes_updates(const mo_problem *p, const mo_solver_settings *s)
{
    return s->coulomb_updates > 0 && mo_solver_has(s->kind, MO_SOLVER_CAP_COULOMB_UPDATES) &&
           !(p->base && p->m != p->base->m) &&
           has_contacts(p);
}

/* the updates' vectors, carved from c */
static void updates_carve(const mo_problem *p, mo_carver *c, double **shift, double **rbar, double **u, double **work)
{
    *shift = mo_carve(c, ((size_t)p->m + 1) * sizeof(double), true);
    *rbar = mo_carve(c, ((size_t)p->m + 1) * sizeof(double), false);
    *u = mo_carve(c, ((size_t)p->m + 1) * sizeof(double), false);
    *work = mo_carve(c, (mo_problem_apply_work(p) + 1) * sizeof(double), false);
}

/* runs the solver with outer Coulomb updates when asked; their vectors come from c */
static void solve_updates(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, mo_carver *c)
{
    mo_solver_fn fn = mo_solver_row_of(s->kind)->solve;
    int U = s->coulomb_updates;
    if (!takes_updates(p, s)) {
        fn(p, s, o);
        return;
    }
    int m = p->m;
    double *shift, *rbar, *u, *work;
    updates_carve(p, c, &shift, &rbar, &u, &work);
    mo_problem q = *p;
    q.r = rbar;
    q.shift = shift;
    q.stop_coulomb = true;
    mo_solver_settings si = *s;
    int left = s->max_iterations, total = 0, hist0 = 0;
    double *rh = o->res_hist, *eh = o->err_hist;
    mo_solve_out oi = *o;
    double ccp0 = 0.0, err0 = 0.0;
    for (int k = 0; k <= U && left > 0; k++) {
        for (int i = 0; i < m; i++) rbar[i] = p->r[i] + shift[i];
        /* inexact fixed point: each inner solve cuts its own CCP residual by
         * INNER_REDUCTION (the last one runs to the tolerance or the budget) */
        mo_problem_u(&q, oi.gamma, u, work);
        mo_problem_residuals(&q, oi.gamma, u, &ccp0, &err0);
        q.inner_ccp_stop = k < U ? INNER_REDUCTION * ccp0 : 0.0;
        si.max_iterations = left;
        oi.res_hist = rh ? rh + hist0 : NULL;
        oi.err_hist = eh ? eh + hist0 : NULL;
        oi.hist_count = 0;
        fn(&q, &si, &oi);
        hist0 += oi.hist_count;
        total += oi.iterations;
        left -= oi.iterations > 0 ? oi.iterations : 1;
        if (oi.converged) break;
        /* s from the true velocity of this solution */
        mo_problem_u(p, oi.gamma, u, work);
        for (int b = 0; b < p->nblocks; b++) {
            if (p->block_kind[b] != MO_BLOCK_CONTACT) continue;
            int r0 = p->block_row[b];
            shift[r0] = p->block_mu[b] * sqrt(u[r0 + 1] * u[r0 + 1] + u[r0 + 2] * u[r0 + 2]);
        }
    }
    o->iterations = total;
    o->converged = oi.converged;
    o->residual = oi.residual;
    o->coulomb_error = oi.coulomb_error;
    o->regularisation = oi.regularisation;
    o->hist_count = hist0;
}

/* the solve in gamma-hat (diagonal scaling), its problem and the inner solver's scratch carved from c */
static void solve_scaled(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, mo_carver *c)
{
    scale_buf b;
    scale_build(p, &b, c);
    const mo_problem *q = &b.q;
    double *scratch = mo_carve(c, mo_solver_scratch_size(q) * sizeof(double), false);
    for (int i = 0; i < p->m; i++) b.g[i] = o->gamma[i] / b.e[3 * i];
    mo_solve_out oq = *o;
    oq.gamma = b.g;
    oq.v = NULL;
    oq.scratch = scratch;
    oq.hist_count = 0;
    solve_updates(q, s, &oq, c);
    for (int i = 0; i < p->m; i++) o->gamma[i] = b.e[3 * i] * b.g[i];
    o->iterations = oq.iterations;
    o->hist_count = oq.hist_count;
    o->regularisation = oq.regularisation;
    /* the reported measures and convergence are the base problem's */
    double *u = o->scratch, *work = o->scratch + p->m;
    mo_problem_u(p, o->gamma, u, work);
    mo_problem_residuals(p, o->gamma, u, &o->residual, &o->coulomb_error);
    bool coulomb = s->coulomb_updates > 0 || p->stop_coulomb;
    o->converged = s->tolerance > 0.0 && (coulomb ? o->coulomb_error : o->residual) <= s->tolerance;
    mo_solve_finish_v(p, o);
}

/* which path mo_solve takes */
static bool uses_facets(const mo_solver_settings *s)
{
    return s->friction == MO_FRICTION_POLYHEDRAL && mo_solver_has(s->kind, MO_SOLVER_CAP_FACETS);
}

static bool uses_scaling(const mo_problem *p, const mo_solver_settings *s)
{
    return !uses_facets(s) && s->diagonal_scaling && !p->base && p->m > 0 &&
           mo_solver_has(s->kind, MO_SOLVER_CAP_SCALING);
}

/* doubles of the chosen solver's own part of the scratch */
static size_t solver_part(const mo_problem *p, const mo_solver_settings *s)
{
    return s->kind == MO_SOLVER_PGS ? mo_pgs_scratch_size(p, s) : mo_solver_scratch_size(p);
}

size_t mo_solve_scratch_size(const mo_problem *p, const mo_solver_settings *s)
{
    mo_carver c = {NULL, solver_part(p, s)};
    if (uses_facets(s)) {
        int m, nb;
        poly_counts(p, s->friction_facets, &m, &nb);
        poly_buf b;
        poly_carve(&b, &c, m, nb);
        /* the facet problem: n = 0, apply work 2 m_base + the base's */
        mo_carve(&c, (14 * (size_t)m + 2 * (size_t)p->m + mo_problem_apply_work(p) + 64) * sizeof(double), false);
    } else if (uses_scaling(p, s)) {
        scale_buf b;
        scale_carve(&b, &c, p->m);
        const size_t qwork = 2 * (size_t)p->m + mo_problem_apply_work(p); /* the scaled problem's apply work */
        mo_carve(&c, (14 * (size_t)p->m + qwork + 64) * sizeof(double), false);
        if (s->coulomb_updates > 0)
            mo_carve(&c, 4 * sizeof(double) + (3 * ((size_t)p->m + 1) + qwork + 1) * sizeof(double), false);
    } else if (takes_updates(p, s)) {
        double *d0, *d1, *d2, *d3;
        updates_carve(p, &c, &d0, &d1, &d2, &d3);
    }
    return c.used;
}

void mo_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    const mo_solver_row *row = mo_solver_row_of(s->kind);
    if (!row || !row->solve) {
        /* callers check the settings first (mo_solver_check) and route position-level solvers elsewhere;
         * a kind without a velocity-level entry solves nothing rather than running another solver */
        o->iterations = 0;
        o->converged = false;
        o->hist_count = 0;
        o->residual = o->coulomb_error = NAN;
        return;
    }
    if (p->m == 0) { /* nothing to solve (a step without contacts or rows): v = v~, converged at once */
        if (o->v && p->n > 0) memcpy(o->v, p->v_tilde, (size_t)p->n * sizeof(double));
        o->iterations = 0;
        o->converged = true;
        o->hist_count = 0;
        o->residual = o->coulomb_error = 0.0;
        return;
    }
    mo_carver c = {o->scratch, solver_part(p, s)};
    if (uses_scaling(p, s)) {
        solve_scaled(p, s, o, &c);
        return;
    }
    if (!uses_facets(s)) {
        solve_updates(p, s, o, &c);
        return;
    }
    poly_buf b;
    poly_build(p, s->friction_facets, &b, &c);
    const mo_problem *q = &b.q;
    double *scratch = mo_carve(&c, mo_solver_scratch_size(q) * sizeof(double), false);
    poly_from_gamma(p, s->friction_facets, o->gamma, b.lambda);
    mo_solve_out oq = *o;
    oq.gamma = b.lambda;
    oq.v = NULL;
    oq.scratch = scratch;
    oq.hist_count = 0;
    mo_solver_settings sq = *s;
    sq.coulomb_updates = 0;
    mo_solver_row_of(s->kind)->solve(q, &sq, &oq);
    poly_to_gamma(q, b.lambda, o->gamma);
    o->iterations = oq.iterations;
    o->converged = oq.converged;
    o->hist_count = oq.hist_count;
    o->regularisation = oq.regularisation;
    /* the base problem's measures at the expanded impulse */
    double *u = o->scratch, *work = o->scratch + p->m;
    mo_problem_u(p, o->gamma, u, work);
    mo_problem_residuals(p, o->gamma, u, &o->residual, &o->coulomb_error);
    o->residual = oq.residual; /* convergence is judged in the facet problem (lambda >= 0) */
    mo_solve_finish_v(p, o);
}
