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
#include "core/parallel.h"


/* one block's update: reads and writes only v at the block's columns and gamma at its rows */
static inline void pgs_block(const mo_problem *p, const mo_solver_settings *s, int k, double *gamma, double *v)
{
    const double om = s->omega;
    const bool desaxce = s->coulomb_updates > 0;
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
        return;
    }
    if (kind != MO_BLOCK_CONTACT) {
        if (!(p->diag[r] > 0.0)) return;
        double u = mo_problem_row_dot(p, r, v) + p->sigma[r] * gamma[r] + p->b[r];
        double x = gamma[r] - om * u / p->diag[r];
        mo_k_project_block(&x, kind, 0.0, p->lo[r], p->hi[r]);
        double d = x - gamma[r];
        if (d != 0.0) {
            mo_problem_row_push(p, r, d, v);
            gamma[r] = x;
        }
        return;
    }
    double mu = p->block_mu[k];
    if (s->friction == MO_FRICTION_CONE) {
        double eta = p->block_eta[k];
        if (!(eta > 0.0)) return;
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
            if (!(p->diag[ri] > 0.0)) return;
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
/* (blocks lo .. hi - 1: the range that holds the unilateral ones, pgs_limit_range) */
static void pgs_limits(const mo_problem *p, const mo_solver_settings *s, double *gamma, double *v, int lo, int hi)
{
    const double om = s->omega;
    for (int k = lo; !p->poly_src && k < hi; k++) {
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

/* the first and one past the last unilateral block (0, 0 when none): the limit pass's range, found once per
   solve rather than by a pass over every block after every sweep */
static void pgs_limit_range(const mo_problem *p, int *lo, int *hi)
{
    *lo = *hi = 0;
    for (int k = 0; k < p->nblocks; k++)
        if (p->block_kind[k] == MO_BLOCK_UNILATERAL) {
            if (*hi == 0) *lo = k;
            *hi = k + 1;
        }
}

static void pgs_sweep(const mo_problem *p, const mo_solver_settings *s, double *gamma, double *v, int lo, int hi)
{
    for (int k = 0; k < p->nblocks; k++) pgs_block(p, s, k, gamma, v);
    pgs_limits(p, s, gamma, v, lo, hi);
}

/* ---- the parallel order (MO_SWEEP_PARALLEL) ----
 * The blocks are cut into PGS_PARTS parts, contiguous runs of the assembly
 * order (which follows the broadphase's pairs, so a part is a region of the
 * scene), whatever the thread count. A column of J (a body's six velocities,
 * a particle's three, an articulation's dofs; static bodies have none)
 * belongs to the part of the first block that touches it; a block whose
 * columns all belong to its own part is inside it. The insides of two parts
 * share no column, so they are swept at once, each in assembly order (cache
 * friendly, and the sequential order's propagation within a region). The
 * blocks between parts follow, coloured greedily (first fit, one 64-bit mask
 * per column) so that no two blocks of a colour share a column: colour by
 * colour, each in parallel; then, one after another, the blocks that found
 * none of the 64 colours free; then the limit pass. Each stage's updates
 * touch disjoint entries of v and gamma, so a sweep gives the same result on
 * any number of threads. */
#define PGS_PARTS 16
#define PGS_COLOURS 64

typedef struct pgs_order {
    int nparts;
    int part[PGS_PARTS + 1];    /* part i's inside: order[part[i] .. part[i + 1]) */
    int ncolours;
    int start[PGS_COLOURS + 2]; /* colour c: order[start[c] .. start[c + 1]); c = ncolours: the serial rest */
    int *order;                 /* (nblocks) */
} pgs_order;

/* the order's work space: scratch after u's m doubles: n + n / 2 + nblocks + 2 doubles (masks, owners, then
   each block's stage and the order), inside mo_solver_scratch_size's 15 m + 2 n */
static void pgs_order_make(const mo_problem *p, double *scratch, pgs_order *c)
{
    const int nb = p->nblocks;
    uint64_t *mask = (uint64_t *)scratch;           /* (n) colours met at each column */
    int *owner = (int *)(scratch + p->n);           /* (n) the part each column belongs to */
    int *stage = owner + p->n + (p->n & 1);         /* (nblocks) part i: i; colour c: PGS_PARTS + c */
    c->order = stage + nb;
    int np = nb / 64;                               /* parts of at least 64 blocks */
    np = np < 1 ? 1 : np > PGS_PARTS ? PGS_PARTS : np;
    c->nparts = np;
    memset(mask, 0, (size_t)p->n * sizeof *mask);
    for (int i = 0; i < p->n; i++) owner[i] = -1;
    for (int k = 0; k < nb; k++) {
        const int pk = (int)((long long)k * np / nb);
        for (int q = p->row_ptr[p->block_row[k]]; q < p->row_ptr[p->block_row[k + 1]]; q++)
            if (owner[p->col[q]] < 0) owner[p->col[q]] = pk;
    }
    int count[PGS_PARTS + PGS_COLOURS + 1] = {0};
    for (int k = 0; k < nb; k++) {
        const int pk = (int)((long long)k * np / nb);
        const int a = p->row_ptr[p->block_row[k]], b = p->row_ptr[p->block_row[k + 1]];
        bool inside = true;
        for (int q = a; q < b && inside; q++) inside = owner[p->col[q]] == pk;
        int st = pk;
        if (!inside) {
            uint64_t used = 0;
            for (int q = a; q < b; q++) used |= mask[p->col[q]];
            int ck = PGS_COLOURS;
            if (~used) {
                ck = __builtin_ctzll(~used);
                for (int q = a; q < b; q++) mask[p->col[q]] |= 1ull << ck;
            }
            st = PGS_PARTS + ck;
        }
        stage[k] = st;
        count[st]++;
    }
    /* first fit uses colours from 0 up without gaps */
    int nc = 0;
    for (int i = 0; i < PGS_COLOURS; i++)
        if (count[PGS_PARTS + i]) nc = i + 1;
    c->ncolours = nc;
    int at[PGS_PARTS + PGS_COLOURS + 1], o = 0;
    for (int i = 0; i < PGS_PARTS + PGS_COLOURS + 1; i++) {
        at[i] = o;
        o += count[i];
    }
    for (int i = 0; i <= np; i++) c->part[i] = at[i < np ? i : PGS_PARTS];
    for (int i = 0; i <= nc; i++) c->start[i] = at[PGS_PARTS + i];
    c->start[nc + 1] = nb;
    /* (the rest, with no free colour, lands right after the last non-empty colour) */
    for (int k = 0; k < nb; k++) c->order[at[stage[k]]++] = k;
}

/* ---- the problem in the parallel order ----
 * Sweeping the blocks through order[] jumps through J and W: the colours'
 * blocks lie all over them, and the pile of 1,000 spheres' solve took twice
 * the sequential order's time with the same instructions. So the solve runs
 * on a copy of the problem whose blocks (rows, J, W and every per-row and
 * per-block array) are stored in the parallel order, and the impulses are
 * copied back; v's columns are not moved. The copy is O(nnz), once per
 * solve. */
typedef struct pgs_copy {
    mo_problem q;
    double *gamma;
} pgs_copy;

static void pgs_copy_lay(const mo_problem *p, mo_carver *l, pgs_copy *c)
{
    const size_t m = (size_t)p->m, nb = (size_t)p->nblocks, nnz = (size_t)p->row_ptr[p->m];
    int *row_ptr = mo_carve(l, (m + 1) * sizeof(int), false), *col = mo_carve(l, nnz * sizeof(int), false);
    double *val = mo_carve(l, nnz * sizeof(double), false), *wval = mo_carve(l, nnz * sizeof(double), false);
    double *sigma = mo_carve(l, m * sizeof(double), false), *b = mo_carve(l, m * sizeof(double), false);
    double *lo = mo_carve(l, m * sizeof(double), false), *hi = mo_carve(l, m * sizeof(double), false);
    double *diag = mo_carve(l, m * sizeof(double), false);
    double *r = p->r ? mo_carve(l, m * sizeof(double), false) : NULL;
    double *shift = p->shift ? mo_carve(l, m * sizeof(double), false) : NULL;
    int *block_row = mo_carve(l, (nb + 1) * sizeof(int), false);
    int *block_inv = p->block_inv ? mo_carve(l, nb * sizeof(int), false) : NULL;
    uint8_t *kind = mo_carve(l, nb, false);
    double *mu = mo_carve(l, nb * sizeof(double), false), *eta = mo_carve(l, nb * sizeof(double), false);
    c->gamma = mo_carve(l, m * sizeof(double), false);
    if (!l->at) return;
    c->q = *p;
    c->q.row_ptr = row_ptr;
    c->q.col = col;
    c->q.val = val;
    c->q.wval = wval;
    c->q.sigma = sigma;
    c->q.b = b;
    c->q.lo = lo;
    c->q.hi = hi;
    c->q.diag = diag;
    c->q.r = r;
    c->q.shift = shift;
    c->q.block_row = block_row;
    c->q.block_inv = block_inv;
    c->q.block_kind = kind;
    c->q.block_mu = mu;
    c->q.block_eta = eta;
}

/* doubles of the copy */
static size_t pgs_copy_doubles(const mo_problem *p)
{
    mo_carver l = {NULL, 0};
    pgs_copy c;
    pgs_copy_lay(p, &l, &c);
    return l.used;
}

/* fills the copy: block i of q is block order[i] of p; gamma in q's rows */
static void pgs_copy_fill(const mo_problem *p, const int *order, const double *gamma, pgs_copy *c)
{
    int *row_ptr = (int *)c->q.row_ptr, *col = (int *)c->q.col, *block_row = (int *)c->q.block_row;
    int *block_inv = (int *)c->q.block_inv;
    double *val = (double *)c->q.val, *wval = (double *)c->q.wval;
    double *sigma = (double *)c->q.sigma, *b = (double *)c->q.b, *lo = (double *)c->q.lo, *hi = (double *)c->q.hi;
    double *diag = (double *)c->q.diag, *r = (double *)c->q.r, *shift = (double *)c->q.shift;
    double *mu = (double *)c->q.block_mu, *eta = (double *)c->q.block_eta;
    uint8_t *kind = (uint8_t *)c->q.block_kind;
    int row = 0, nz = 0;
    row_ptr[0] = 0;
    for (int i = 0; i < p->nblocks; i++) {
        const int k = order[i], r0 = p->block_row[k], r1 = p->block_row[k + 1];
        block_row[i] = row;
        kind[i] = p->block_kind[k];
        mu[i] = p->block_mu[k];
        eta[i] = p->block_eta[k];
        if (block_inv) block_inv[i] = p->block_inv[k];
        const int a = p->row_ptr[r0], len = p->row_ptr[r1] - a;
        memcpy(col + nz, p->col + a, (size_t)len * sizeof(int));
        memcpy(val + nz, p->val + a, (size_t)len * sizeof(double));
        memcpy(wval + nz, p->wval + a, (size_t)len * sizeof(double));
        for (int j = r0; j < r1; j++, row++) {
            nz += p->row_ptr[j + 1] - p->row_ptr[j];
            row_ptr[row + 1] = nz;
            sigma[row] = p->sigma[j];
            b[row] = p->b[j];
            lo[row] = p->lo[j];
            hi[row] = p->hi[j];
            diag[row] = p->diag[j];
            if (r) r[row] = p->r[j];
            if (shift) shift[row] = p->shift[j];
            c->gamma[row] = gamma[j];
        }
    }
    block_row[p->nblocks] = row;
}

/* gamma back in p's rows */
static void pgs_copy_back(const mo_problem *p, const int *order, const pgs_copy *c, double *gamma)
{
    for (int i = 0; i < p->nblocks; i++) {
        const int k = order[i];
        memcpy(gamma + p->block_row[k], c->gamma + c->q.block_row[i],
               (size_t)(p->block_row[k + 1] - p->block_row[k]) * sizeof(double));
    }
}

/* blocks order[a .. b) */
static void pgs_run(const mo_problem *p, const mo_solver_settings *s, const int *order, int a, int b,
                    double *gamma, double *v)
{
    for (int i = a; i < b; i++) pgs_block(p, s, order ? order[i] : i, gamma, v);
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

/* the J form's loop state: what the check after each sweep reads and writes */
typedef struct pgs_loop {
    const mo_problem *p;
    const mo_solver_settings *s;
    mo_solve_out *o;
    double *gamma, *v, *u;
    double res, err;
    bool have;  /* res and err are the current iterate's */
    int it;     /* sweeps done */
    bool check; /* residuals after every sweep (tolerance, histories) */
    int lim_lo, lim_hi; /* pgs_limit_range of p */
} pgs_loop;

/* after a sweep: count it, measure when asked; true when the loop should stop */
static bool pgs_after_sweep(pgs_loop *st)
{
    const mo_problem *p = st->p;
    const mo_solver_settings *s = st->s;
    st->it++;
    st->have = false;
    if (st->check) {
        mo_problem_row_velocity(p, st->v, st->gamma, st->u);
        mo_problem_residuals(p, st->gamma, st->u, &st->res, &st->err);
        st->have = true;
        mo_solve_out *o = st->o;
        if (o->res_hist) {
            o->res_hist[o->hist_count] = st->res;
            o->err_hist[o->hist_count] = st->err;
            o->hist_count++;
        }
        if (s->tolerance > 0.0 && (s->coulomb_updates > 0 || p->stop_coulomb ? st->err : st->res) <= s->tolerance) {
            o->converged = true;
            return true;
        }
    }
    return st->it >= s->max_iterations;
}

/* the serial part of a parallel-order sweep: the blocks no colour took, the limit pass */
static void pgs_order_rest(pgs_loop *st, const pgs_order *c)
{
    pgs_run(st->p, st->s, c->order, c->start[c->ncolours], c->start[c->ncolours + 1], st->gamma, st->v);
    pgs_limits(st->p, st->s, st->gamma, st->v, st->lim_lo, st->lim_hi);
}

/* the sweeps in the parallel order: one parallel region for all of them; a barrier after the parts' insides
   and after each colour */
static void pgs_parallel(pgs_loop *st, const pgs_order *c)
{
    const mo_problem *p = st->p;
    const mo_solver_settings *s = st->s;
#ifdef _OPENMP
    const int nt = mo_parallel_threads(p->threads, p->nblocks);
    if (nt > 1) {
        bool stop = false;
        MO_PRAGMA_(omp parallel num_threads(nt))
        while (!stop) {
            MO_PRAGMA_(omp for schedule(static))
            for (int i = 0; i < c->nparts; i++) pgs_run(p, s, c->order, c->part[i], c->part[i + 1], st->gamma, st->v);
            for (int k = 0; k < c->ncolours;) {
                const int a = c->start[k];
                if (c->start[k + 1] - a >= MO_PARALLEL_MIN_WORK) {
                    MO_PRAGMA_(omp for schedule(static))
                    for (int i = a; i < c->start[k + 1]; i++) pgs_block(p, s, c->order ? c->order[i] : i, st->gamma, st->v);
                    k++;
                    continue;
                }
                /* small colours one after another on one thread, up to the next large one: one barrier */
                int e = k + 1;
                while (e < c->ncolours && c->start[e + 1] - c->start[e] < MO_PARALLEL_MIN_WORK) e++;
                MO_PRAGMA_(omp single)
                pgs_run(p, s, c->order, a, c->start[e], st->gamma, st->v);
                k = e;
            }
            MO_PRAGMA_(omp single)
            {
                pgs_order_rest(st, c);
                stop = pgs_after_sweep(st);
            }
        }
        return;
    }
#endif
    do {
        pgs_run(p, s, c->order, 0, c->start[c->ncolours], st->gamma, st->v);
        pgs_order_rest(st, c);
    } while (!pgs_after_sweep(st));
}

/* whether the parallel order applies: asked for, a J-form problem (not FCLIB's explicit N, not the facet
   problem, whose rows point into a base problem) with blocks */
static bool pgs_parallel_order(const mo_problem *p, const mo_solver_settings *s)
{
    return s->sweep_order == MO_SWEEP_PARALLEL && !p->n_ptr && !p->base && p->nblocks > 0;
}

size_t mo_pgs_scratch_size(const mo_problem *p, const mo_solver_settings *s)
{
    size_t d = mo_solver_scratch_size(p);
    return pgs_parallel_order(p, s) ? d + pgs_copy_doubles(p) : d;
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
    pgs_loop st = {p, s, o, gamma, v, u, 0.0, 0.0, false, 0, s->record_residuals || s->tolerance > 0.0, 0, 0};
    o->converged = false;
    o->hist_count = 0;
    if (pgs_parallel_order(p, s)) {
        pgs_order c;
        pgs_order_make(p, u + p->m, &c);
        mo_carver l = {o->scratch + mo_solver_scratch_size(p), 0};
        pgs_copy cp;
        pgs_copy_lay(p, &l, &cp);
        pgs_copy_fill(p, c.order, gamma, &cp);
        const int *order = c.order;
        c.order = NULL; /* q's blocks are in the order */
        st.p = &cp.q;
        st.gamma = cp.gamma;
        pgs_limit_range(st.p, &st.lim_lo, &st.lim_hi);
        pgs_parallel(&st, &c);
        pgs_copy_back(p, order, &cp, gamma);
    } else {
        pgs_limit_range(p, &st.lim_lo, &st.lim_hi);
        while (st.it < s->max_iterations) {
            pgs_sweep(p, s, gamma, v, st.lim_lo, st.lim_hi);
            if (pgs_after_sweep(&st)) break;
        }
    }
    if (!st.have) {
        mo_problem_row_velocity(p, v, gamma, u);
        mo_problem_residuals(p, gamma, u, &st.res, &st.err);
    }
    o->iterations = st.it;
    o->residual = st.res;
    o->coulomb_error = st.err;
}
