/* project.c: optional stage after integrate: position projection of the
 * joints' rigid bilateral rows (post-stabilisation, Cline and Pai 2003),
 * settings.position_projections = P > 0 Gauss-Newton steps.
 *
 * Why: the velocity-level problem keeps J v+ = (stabilisation) exactly when
 * solved exactly, but the position update q + h v+ leaves the constraint
 * manifold by O(h^2 |w|^2 L) per step; on a falling chain the links whip
 * and this reaches centimetres per step (chain1000 with an exact solve:
 * 2.1 m drift after 5 s, as MuJoCo, Bullet and ODE). SPOOK only pulls it back
 * over d steps. A projection step solves, at the new positions,
 *     J M^-1 J^T delta = -g(q),   q <- q + M^-1 J^T delta
 * (J, g: the rigid bilateral rows re-evaluated at q; M^-1 with this step's
 * world inertia; a body's angular part turns its orientation by the rotation
 * vector, as integration does with h = 1), the minimum-mass-norm correction
 * that zeroes the linearised error. Velocities are not changed. Each step is
 * one bilateral solve with the world's bilateral solver (cholesky, minres or
 * cg; MINRES when the world's solver is another kind), to 1e-10 m; with
 * Cholesky the projection's own cache keeps its symbolic factor across
 * steps (the pattern is that of the joints' rows). Rows counted: a joint's
 * MO_BLOCK_BILATERAL rows in SPOOK mode with zero compliance (compliant
 * joints are soft on purpose; limits, motors and drives are not projected). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "step/step.h"

/* the projection stops once every projected row's |g| is below this, m (or rad) */
#define PROJ_TOL 1e-10

typedef struct proj_buf {
    mo_buf rows, aux, kind, lo, hi, row_ptr, col, val, wval, sigma, b, diag, gamma, block_row, block_kind, block_mu,
        zero_n, dv, scratch, pose;
    void *cholmod_cache;
} proj_buf;

static void project_free(void *buf)
{
    proj_buf *pb = (proj_buf *)buf;
    if (!pb) return;
    mo_buf *all[] = {&pb->rows, &pb->aux, &pb->kind, &pb->lo, &pb->hi, &pb->row_ptr, &pb->col, &pb->val, &pb->wval,
                     &pb->sigma, &pb->b, &pb->diag, &pb->gamma, &pb->block_row, &pb->block_kind, &pb->block_mu,
                     &pb->zero_n, &pb->dv, &pb->scratch, &pb->pose};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) mo_buf_free(all[i]);
    mo_cholmod_cache_free(pb->cholmod_cache);
    free(pb);
}

#define RES(buf, n, T) mo_buf_reserve(&pb->buf, (size_t)((n) + 1) * sizeof(T))

static bool projected_row(const mo_k_row *r, const mo_row_aux *a, uint8_t kind)
{
    return kind == MO_BLOCK_BILATERAL && a->mode == MO_ROW_SPOOK && a->eps == 0.0 && (r->owner_a >= 0 || r->owner_b >= 0);
}

/* largest |g| of the projected rows at the current pose */
static double rows_gmax(const mo_world *w, double h)
{
    double gmax = 0.0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        mo_k_row rows[8];
        mo_row_aux aux[8];
        uint8_t kind[8];
        double lo[8], hi[8];
        mo_joint_fill_rows(w, j, h, rows, aux, kind, lo, hi);
        int nr = mo_joint_row_count(j);
        for (int k = 0; k < nr && k < 8; k++)
            if (projected_row(&rows[k], &aux[k], kind[k])) gmax = fmax(gmax, fabs(aux[k].g));
    }
    return gmax;
}

/* poses of the owners: save (dir 0) or restore (dir 1) */
static void poses(mo_world *w, double *buf, int dir)
{
    const int *ref = (const int *)w->owner_ref.p;
    for (int ow = 0; ow < w->nowners; ow++) {
        double *x, *q = NULL;
        if (ref[ow] >= 0) {
            x = w->bodies[ref[ow]].k.x;
            q = w->bodies[ref[ow]].k.q;
        } else {
            x = w->particles[-ref[ow] - 1].x;
        }
        double *bo = buf + 7 * ow;
        for (int k = 0; k < 3; k++) {
            if (dir) x[k] = bo[k];
            else bo[k] = x[k];
        }
        for (int k = 0; k < 4 && q; k++) {
            if (dir) q[k] = bo[3 + k];
            else bo[3 + k] = q[k];
        }
    }
}

/* q <- q + a M^-1 J^T delta (d: the displacement for a = 1) */
static void displace(mo_world *w, const double *dv, double a)
{
    const int *ref = (const int *)w->owner_ref.p, *odof = (const int *)w->owner_dof.p,
              *ond = (const int *)w->owner_ndof.p;
    for (int ow = 0; ow < w->nowners; ow++) {
        const double *d = dv + odof[ow];
        double s[6];
        bool finite = true;
        for (int k = 0; k < ond[ow]; k++) {
            s[k] = a * d[k];
            finite = finite && isfinite(s[k]);
        }
        if (!finite) continue;
        if (ref[ow] >= 0) {
            mo_body *bd = &w->bodies[ref[ow]];
            mo_k_integrate_pose(bd->k.x, bd->k.q, s, s + 3, 1.0);
        } else {
            mo_v3_axpy(w->particles[-ref[ow] - 1].x, 1.0, s);
        }
    }
}

/* one Gauss-Newton projection; 1 done, 0 nothing to project (or no progress), -1 out of memory */
static int project_once(mo_world *w, double h, proj_buf *pb)
{
    /* rows at the current pose */
    int mmax = 0;
    for (int i = 0; i < w->joint_count; i++)
        if (w->joints[i].alive) mmax += mo_joint_row_count(&w->joints[i]);
    if (mmax == 0) return 0;
    const int n = w->stats.dofs;
    if (RES(rows, mmax, mo_k_row) || RES(aux, mmax, mo_row_aux) || RES(kind, mmax, uint8_t) ||
        RES(lo, mmax, double) || RES(hi, mmax, double) || RES(row_ptr, mmax + 1, int) ||
        RES(sigma, mmax, double) || RES(b, mmax, double) || RES(diag, mmax, double) || RES(gamma, mmax, double) ||
        RES(block_row, mmax + 1, int) || RES(block_kind, mmax, uint8_t) || RES(block_mu, mmax, double) ||
        RES(zero_n, n, double) || RES(dv, n, double))
        return -1;
    mo_k_row *rows = (mo_k_row *)pb->rows.p;
    mo_row_aux *aux = (mo_row_aux *)pb->aux.p;
    uint8_t *kind = (uint8_t *)pb->kind.p, *block_kind = (uint8_t *)pb->block_kind.p;
    double *lo = (double *)pb->lo.p, *hi = (double *)pb->hi.p;
    int *block_row = (int *)pb->block_row.p;
    /* keep the rigid bilateral rows, one block per joint */
    int m = 0, nblocks = 0;
    double gmax = 0.0;
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        int r0 = m;
        mo_joint_fill_rows(w, j, h, rows + m, aux + m, kind + m, lo + m, hi + m);
        int nr = mo_joint_row_count(j);
        for (int k = 0; k < nr; k++) {
            int r = r0 + k;
            if (!projected_row(&rows[r], &aux[r], kind[r])) continue;
            if (m != r) {
                rows[m] = rows[r];
                aux[m] = aux[r];
            }
            gmax = fmax(gmax, fabs(aux[m].g));
            m++;
        }
        if (m > r0) {
            block_row[nblocks] = r0;
            block_kind[nblocks++] = MO_BLOCK_BILATERAL;
        }
    }
    block_row[nblocks] = m;
    if (m == 0 || !(gmax > PROJ_TOL)) return 0;

    /* CSR J and W = M^-1 J^T with this step's owners */
    const int *odof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    int *row_ptr = (int *)pb->row_ptr.p;
    row_ptr[0] = 0;
    for (int r = 0; r < m; r++) row_ptr[r + 1] = row_ptr[r] + mo_k_row_nnz(&rows[r], ond);
    int nnz = row_ptr[m];
    if (RES(col, nnz, int) || RES(val, nnz, double) || RES(wval, nnz, double)) return -1;
    int *col = (int *)pb->col.p;
    double *val = (double *)pb->val.p, *wval = (double *)pb->wval.p;
    double *sigma = (double *)pb->sigma.p, *b = (double *)pb->b.p, *diag = (double *)pb->diag.p;
    double *block_mu = (double *)pb->block_mu.p, *zero = (double *)pb->zero_n.p;
    for (int r = 0; r < m; r++) {
        mo_k_fill_row(&rows[r], row_ptr[r], odof, ond, oim, oiI, col, val, wval);
        double s = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) s += val[k] * wval[k];
        sigma[r] = 0.0;
        b[r] = aux[r].g;
        diag[r] = s;
        lo[r] = -INFINITY;
        hi[r] = INFINITY;
    }
    for (int k = 0; k < nblocks; k++) block_mu[k] = 0.0;
    memset(zero, 0, (size_t)n * sizeof(double));

    mo_problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.m = m;
    p.row_ptr = row_ptr;
    p.col = col;
    p.val = val;
    p.wval = wval;
    p.sigma = sigma;
    p.b = b;
    p.lo = lo;
    p.hi = hi;
    p.diag = diag;
    p.nblocks = nblocks;
    p.block_row = block_row;
    p.block_kind = block_kind;
    p.block_mu = block_mu;
    p.v_tilde = zero;
    p.r = b; /* r = J 0 + g */
    p.threads = w->def.threads;

    mo_solver_settings s = w->def.solver;
    if (!mo_solver_has(s.kind, MO_SOLVER_CAP_BILATERAL_SOLVE)) s.kind = MO_SOLVER_MINRES;
    s.tolerance = 0.1 * PROJ_TOL;
    if (s.max_iterations < 200) s.max_iterations = 200;
    s.record_residuals = false;
    s.coulomb_updates = 0;
    if (mo_buf_reserve(&pb->scratch, (mo_solver_scratch_size(&p) + 1) * sizeof(double))) return -1;
    double *gamma = (double *)pb->gamma.p, *dv = (double *)pb->dv.p;
    memset(gamma, 0, (size_t)m * sizeof(double));
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = gamma;
    o.v = dv; /* = 0 + M^-1 J^T delta: the displacement */
    o.scratch = (double *)pb->scratch.p;
    o.cholmod_cache = &pb->cholmod_cache;
    mo_solver_row_of(s.kind)->solve(&p, &s, &o);

    /* q <- q + a M^-1 J^T delta, halving a until |g|_max falls (at most 8 halvings) */
    for (int ow = 0; ow < w->nowners; ow++)
        for (int k = 0; k < ond[ow]; k++)
            if (!isfinite(dv[odof[ow] + k])) {
                w->stats.nan_warnings++;
                return 0;
            }
    if (mo_buf_reserve(&pb->pose, ((size_t)w->nowners * 7 + 1) * sizeof(double))) return -1;
    double *saved = (double *)pb->pose.p;
    poses(w, saved, 0);
    double a = 1.0;
    for (int t = 0; t <= 8; t++, a *= 0.5) {
        displace(w, dv, a);
        if (rows_gmax(w, h) < gmax) return 1;
        poses(w, saved, 1);
    }
    return 0;
}

int mo_step_project(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    int P = w->def.solver.position_projections;
    if (P <= 0) return 0;
    if (!w->proj.p) {
        w->proj.p = calloc(1, sizeof(proj_buf));
        if (!w->proj.p) return -1;
        w->proj.free_fn = project_free;
    }
    for (int it = 0; it < P; it++) {
        int r = project_once(w, ctx->h, (proj_buf *)w->proj.p);
        if (r < 0) return -1;
        if (r == 0) break;
    }
    /* the joint error statistic after the projection */
    double maxj = 0.0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        double e = mo_joint_position_error(w, j);
        if (e > maxj) maxj = e;
    }
    w->stats.max_joint_error = maxj;
    return 0;
}
