/* newton.c: the position-level non-smooth Newton step (MO_SOLVER_NEWTON;
 * Macklin et al. 2019, SOLVERS.md B). It replaces the solve stage: predict,
 * collide and assemble run as for every solver (v~, the contacts, the rows'
 * kinds, owners and CSR pattern), then Newton iterates on the implicit step
 *
 *   M (v+ - v~) - h J^T lambda = 0                        momentum, r_m
 *   C_b(q+) + E lambda_b = 0                              joint rows (compliance form, no Baumgarte)
 *   phi(C_n(q+) + eps lambda_n, c_n lambda_n) = 0         contact normals and joint limits (NCP)
 *   D v+ + W lambda_f = 0                                 friction (fixed point on W)
 *   J v+ + sigma h lambda + b = 0, lambda in [lo, hi]/h   motors (velocity rows with a box)
 *
 * in (v+, lambda), lambda forces (N, N m). Positions: q+ = q + h G(q+) v+.
 * For a rigid body's orientation this implicit equation, solved exactly and
 * renormalised, is the Cayley map q+ = normalise((1, h w/2)) q (with
 * p = (0, h w/2): (1 - p) q+ = q gives q+ = (1 + p) q / (1 + |p|^2)), the very
 * map mo_step_integrate turns constrained bodies by, so the q+ the constraints
 * are evaluated at is the pose the step ends in.
 *
 * Each Newton iteration re-evaluates every row at q+(v+):
 * - joints: mo_joint_fill_rows, the engine's own joint geometry, on the bodies
 *   moved to q+ (and moved back): C(q+) and J(q+) exactly (the weld's
 *   rotation-vector rows are first-order: their row is [0, -e, 0, e] while
 *   d theta / d t = J_l^-1(theta) (wB - wA), exact at theta = 0);
 * - contacts: the collide stage's points pa, pb and normal n at the start of the
 *   step are carried with the bodies: p+ = x+ + R+ R^T (p - x) (a particle
 *   point moves with the particle); the normal stays fixed in world (the
 *   paper's §3.3); C_n(q+) = gap + n . ((pb+ - pb) - (pa+ - pa)); rows
 *   [-e, -(ra+ x e), e, rb+ x e] for e = n, t1, t2 with the lever arms at q+.
 * The row jacobians used are h J(q+) (dC/dq G(q+), exact for the joint and
 * contact rows above with G held at q+; the derivative of the Cayley map adds
 * terms of order h |w|, left out: a quasi-Newton step, as in the paper).
 *
 * The Schur complement on the mass block (eq. 59), every row scaled so that its
 * coefficient on J dv is h (SOLVERS.md B):
 *   [h^2 J M~^-1 J^T + C + delta I] dl = h J M~^-1 r_m - e,  dv = M~^-1 (h J^T dl - r_m)
 * - joint rows: C = E, e = C_b + E lambda;
 * - NCP rows (phi_a, phi_b its derivatives): C = eps + c phi_b / phi_a,
 *   e = phi / phi_a; when phi_a <= 1e-9 (the minimum map on its lambda side, or
 *   FB far out on it) the row is zeroed with a unit diagonal and
 *   e = phi / (c phi_b): dl = -lambda scaled, the contact lets go;
 * - friction rows times h: C = h W, e = h (D v + W lambda_f); W from the
 *   previous iterate's lambda_n. When h lambda_n (J M~^-1 J^T)_nn < 1e-9 m/s
 *   (the normal force could not change a velocity by a nanometre per second)
 *   the contact's friction is disabled: lambda_f = 0, rows zeroed with a unit
 *   diagonal and a zero right-hand side, so the pattern stays fixed;
 * - motor rows inside their box: C = h^2 sigma, e = h (J v + sigma h lambda + b);
 *   at a bound (lambda - u / c_box outside [lo, hi], the box's minimum map)
 *   zeroed with a unit diagonal, e = lambda - bound.
 * Zeroed rows are zeroed in J for the Schur product and for dv; the momentum
 * residual always uses the whole J. delta (newton.regularisation) is added to
 * the rows that are not zeroed. FEM meshes (fem_rows.c) append
 * their element and fixed-node rows after the problem's rows as bilateral
 * rows (C = eps, their own CSR part in s->rp); M~ = M + h^2 K~ with K~ the
 * diagonal geometric stiffness of the Neo-Hookean rows on particle DOFs.
 *
 * Complementarity scaling c (newton.scaling): c_n = h^2 (J M~^-1 J^T)_ii for NCP
 * rows, c_f = h (mean of the contact's two tangent rows' (J M~^-1 J^T)_ii) for
 * friction, c_box = h (J M~^-1 J^T)_ii; identity: 1; constant: h^2 k, h k, h k.
 *
 * Iteration: v starts at zero (the paper's zero-velocity iterate), lambda at the
 * warm start (the previous step's impulses / h, contacts matched by the
 * collide stage's cache) when settings.warm_start, else zero. A fixed fraction
 * alpha (newton.step_fraction) of each step is taken. After the last iteration
 * the velocity is made momentum-consistent with the final forces,
 * v+ = v~ + h M~^-1 J(q+)^T lambda, and mo_step_integrate moves the bodies.
 *
 * Residual (stats.residual and residual_history, m): the 2-norm of
 *   h M~^-1 r_m (per DOF; angular entries in rad),
 *   C_b + E lambda (joint rows),
 *   min(C + eps lambda, c*_n lambda) (NCP rows),
 *   h c*_f |lf - P(lf - D v / c*_f)| per contact, P the projection on the disc of
 *   radius mu max(lambda_n, 0) (Coulomb's law with maximal dissipation),
 *   h c*_b (lambda - clamp(lambda - u / c*_b, lo, hi)) (motor rows),
 * with c* always the effective-mass scalings above, whatever newton.scaling is,
 * so that scalings can be compared on one measure. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/fem.h"
#include "step/step.h"
#include "solver/newton.h"
#include "core/parallel.h"
#include "backend/device.h"


#define PHI_A_MIN 1e-9       /* phi_a below this: the NCP row is zeroed (lambda side) */
#define FRICTION_SLOPE_MIN 1e-8 /* the measured slope of W's local model, as a factor on c_f, at least this */
#define FRICTION_DV_MIN 1e-9 /* m/s: h lambda_n N_nn below this disables the contact's friction */

typedef struct nw_buf {
    mo_buf rows, aux, kind, lo, hi, col, u8, dbl, hist, lhist, ehist;
    mo_buf rp; /* issue 7 FEM: the system's row pointers (the problem's rows, then the FEM rows) */
    mo_buf grp; /* the system's row groups (mo_newton_groups) */
    mo_buf frn; /* the normal row of every frictional contact (the problem's contacts, then the FEM surface contacts) */
    void *chol; /* MO_NEWTON_CHOLESKY's cache (solver/newton_cholesky.c), NULL until used */
} nw_buf;

/* this step's arrays, carved from the buffers */
typedef struct nw {
    int n, m, nnz, nc, mj, nbody, npart, nown;
    int it;      /* the Newton iteration being linearised (0 first): W is averaged with the last one's from 1 on */
    int mp;      /* the assembled problem's rows; rows mp..m-1 are the FEM meshes' (fem_rows.c) */
    int *rp;     /* (m + 1) row pointers of the whole system */
    int *grp;    /* (m + 1) row groups of the pattern (mo_newton_groups): the products' unit */
    double *feps; /* (m) FEM rows' compliance from mo_fem_newton_eval */
    double *fepst; /* (m) their compliance in the linear system (mo_fem_newton_tangent) */
    double *kt, *msc; /* (n) diagonal geometric stiffness (N/m) and M~^-1 M per DOF (1 off particles) */
    double h;
    mo_k_row *rows;
    mo_row_aux *aux;
    uint8_t *kind, *type, *mask;
    double *lo, *hi;
    int *col;
    double *val, *wval;
    double *bx, *bq, *px, *pq, *ppx; /* bodies' start and predicted poses, particles' predicted positions */
    double *mblk;                    /* (9 nown) world inertia of rigid owners */
    double *vd;                      /* (n) scratch: v - v~ (momentum, the articulations' blocks) */
    double *v, *lam, *dv, *dl, *rm, *t, *jv, *dj, *cg, *cd, *e, *rhs, *c, *g, *kv, *kl, *adiag, *wc, *cfc, *scratch;
    double *wside; /* (nf) per contact: +1 when the last iterate's |lf| was above mu ln, -1 below, 0 none */
    double *wk;    /* (nf) per contact: the measured slope of W's local model as a factor on c_f (linearise) */
    double *wprev; /* (4 nf) per contact: the last iterate's slip (2) and friction force (2) */
    /* frictional contacts: the problem's nc (rows mj + 3c, +1, +2), then the FEM surface contacts (rows
       frn, frn + 1, frn + 2 among the FEM rows, fem_contacts.c); wc, cfc and wside are per frictional contact */
    int nf;
    int *frn;     /* (nf) normal row of each */
    double *fmu;  /* (nf) friction coefficient of each */
    double *fkin; /* (m) FEM rows' J v from kinematic bodies (mo_fem_newton_eval) */
} nw;

static void newton_free(void *buf)
{
    nw_buf *b = (nw_buf *)buf;
    if (!b) return;
    mo_buf *all[] = {&b->rows, &b->aux, &b->kind, &b->lo, &b->hi, &b->col, &b->u8, &b->dbl, &b->hist, &b->lhist,
                     &b->ehist, &b->rp, &b->frn, &b->grp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) mo_buf_free(all[i]);
    mo_newton_chol_free(b->chol);
    free(b);
}

/* buffers for this step; types of the rows; start poses and inertia blocks */
static int nw_setup(const mo_step_ctx *ctx, const mo_problem *p, nw *s)
{
    mo_world *w = ctx->w;
    if (!w->newton.p) {
        w->newton.p = calloc(1, sizeof(nw_buf));
        if (!w->newton.p) return -1;
        w->newton.free_fn = newton_free;
    }
    nw_buf *b = (nw_buf *)w->newton.p;
    memset(s, 0, sizeof *s);
    s->n = p->n;
    s->mp = p->m;
    int fnnz = 0;
    s->m = p->m + mo_fem_newton_rows(w, &fnnz);
    s->nnz = p->row_ptr[p->m] + fnnz;
    s->nc = w->ncontacts;
    s->mj = p->m - 3 * w->ncontacts;
    s->nf = s->nc + (s->m > s->mp ? mo_fem_newton_friction(w, s->mp, NULL, NULL) : 0);
    s->nbody = w->body_count;
    s->npart = w->particle_count;
    s->nown = w->nowners;
    s->h = ctx->h;
    size_t m = (size_t)s->m + 1, n = (size_t)s->n + 1, nnz = (size_t)s->nnz + 1;
    size_t nd = 22 * m + 9 * n + 2 * nnz + 14 * ((size_t)s->nbody + 1) + 3 * ((size_t)s->npart + 1) +
                9 * ((size_t)s->nown + 1) + 4 * ((size_t)s->nf + 1) + m + mo_newton_linear_scratch(s->n, s->m);
    if (mo_buf_reserve(&b->rows, m * sizeof(mo_k_row)) || mo_buf_reserve(&b->aux, m * sizeof(mo_row_aux)) ||
        mo_buf_reserve(&b->kind, m) || mo_buf_reserve(&b->lo, m * sizeof(double)) ||
        mo_buf_reserve(&b->hi, m * sizeof(double)) || mo_buf_reserve(&b->col, nnz * sizeof(int)) ||
        mo_buf_reserve(&b->u8, 2 * m) || mo_buf_reserve(&b->dbl, nd * sizeof(double)) ||
        mo_buf_reserve(&b->rp, (m + 1) * sizeof(int)) || mo_buf_reserve(&b->grp, (m + 1) * sizeof(int)) || mo_buf_reserve(&b->frn, ((size_t)s->nf + 1) * sizeof(int)))
        return -1;
    s->frn = (int *)b->frn.p;
    s->rp = (int *)b->rp.p;
    s->grp = (int *)b->grp.p;
    s->rows = (mo_k_row *)b->rows.p;
    s->aux = (mo_row_aux *)b->aux.p;
    s->kind = (uint8_t *)b->kind.p;
    s->lo = (double *)b->lo.p;
    s->hi = (double *)b->hi.p;
    s->col = (int *)b->col.p;
    s->type = (uint8_t *)b->u8.p;
    s->mask = s->type + m;
    double *d = (double *)b->dbl.p;
    memset(d, 0, nd * sizeof(double));
#define CARVE(ptr, len) do { ptr = d; d += (len); } while (0)
    CARVE(s->val, nnz); CARVE(s->wval, nnz);
    CARVE(s->bx, 3 * ((size_t)s->nbody + 1)); CARVE(s->bq, 4 * ((size_t)s->nbody + 1));
    CARVE(s->px, 3 * ((size_t)s->nbody + 1)); CARVE(s->pq, 4 * ((size_t)s->nbody + 1));
    CARVE(s->ppx, 3 * ((size_t)s->npart + 1));
    CARVE(s->mblk, 9 * ((size_t)s->nown + 1));
    CARVE(s->v, n); CARVE(s->dv, n); CARVE(s->rm, n); CARVE(s->t, n);
    CARVE(s->lam, m); CARVE(s->dl, m); CARVE(s->jv, m); CARVE(s->dj, m); CARVE(s->cg, m); CARVE(s->cd, m);
    CARVE(s->e, m); CARVE(s->rhs, m); CARVE(s->c, m);
    CARVE(s->g, m); CARVE(s->kv, m); CARVE(s->kl, m); CARVE(s->adiag, m);
    CARVE(s->wc, (size_t)s->nf + 1); CARVE(s->cfc, (size_t)s->nf + 1); CARVE(s->wside, (size_t)s->nf + 1); CARVE(s->wk, (size_t)s->nf + 1); CARVE(s->wprev, 4 * (size_t)s->nf + 4);
    CARVE(s->fmu, (size_t)s->nf + 1); CARVE(s->fkin, m);
    CARVE(s->feps, m); CARVE(s->fepst, m); CARVE(s->kt, n); CARVE(s->msc, n); CARVE(s->vd, n);
    s->scratch = d; /* the linear solver's */
#undef CARVE
    for (int q = 0; q <= s->nf; q++) { s->wk[q] = 1.0; s->wside[q] = 0.0; }
    for (int i = 0; i < s->nbody; i++) {
        mo_v3_copy(s->bx + 3 * i, w->bodies[i].k.x);
        memcpy(s->bq + 4 * i, w->bodies[i].k.q, 4 * sizeof(double));
    }
    /* world inertia of rigid owners: the inverse of the predict stage's world inverse inertia */
    const int *ond = (const int *)w->owner_ndof.p;
    const double *oiI = (const double *)w->owner_inv_I.p;
    for (int o = 0; o < s->nown; o++)
        if (ond[o] == 6 && !mo_m3_inverse(s->mblk + 9 * o, oiI + 9 * o)) memset(s->mblk + 9 * o, 0, 9 * sizeof(double));
    /* the assembled row descriptors (joints and contacts are re-made at each iterate; an articulation's limit,
       friction and mimic rows keep theirs: no ordinary sides) */
    memcpy(s->rows, w->rows.p, (size_t)s->mp * sizeof(mo_k_row));
    /* row types: joint rows by their aux mode (assembled), contact rows by position */
    const mo_row_aux *aux0 = (const mo_row_aux *)w->row_aux.p;
    for (int r = 0; r < s->mj; r++)
        s->type[r] = aux0[r].mode == MO_ROW_SPOOK ? MO_NROW_BILATERAL
                   : aux0[r].mode == MO_ROW_UNILATERAL ? MO_NROW_NCP : MO_NROW_BOX;
    for (int c = 0; c < s->nc; c++) {
        s->type[s->mj + 3 * c] = MO_NROW_NCP;
        s->type[s->mj + 3 * c + 1] = s->type[s->mj + 3 * c + 2] = MO_NROW_FRICTION;
    }
    /* the FEM rows (issue 7): bilateral rows in compliance form after the problem's rows */
    memcpy(s->rp, p->row_ptr, ((size_t)s->mp + 1) * sizeof(int));
    if (s->m > s->mp) mo_fem_newton_pattern(w, p->row_ptr[s->mp], s->rp + s->mp, s->col);
    for (int r = s->mp; r < s->m; r++) {
        s->type[r] = MO_NROW_BILATERAL;
        memset(&s->aux[r], 0, sizeof s->aux[r]);
        s->aux[r].mode = MO_ROW_SPOOK;
    }
    if (s->m > s->mp) mo_fem_newton_types(w, s->type + s->mp); /* rigid points on FEM surfaces: NCP + 2 friction rows */
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int c = 0; c < s->nc; c++) {
        s->frn[c] = s->mj + 3 * c;
        s->fmu[c] = ct[c].mu;
    }
    if (s->nf > s->nc) mo_fem_newton_friction(w, s->mp, s->frn + s->nc, s->fmu + s->nc);
    return 0;
}

/* y = M~^-1 x (n), block by block */
static void minv(const mo_world *w, const nw *s, const double *x, double *y)
{
    const int *dof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    const double *im = (const double *)w->owner_inv_mass.p, *iI = (const double *)w->owner_inv_I.p;
    for (int o = 0; o < s->nown; o++) {
        const double *xo = x + dof[o];
        double *yo = y + dof[o];
        for (int k = 0; k < 3; k++) yo[k] = im[o] * xo[k];
        if (ond[o] == 6) mo_m3_mulv(yo + 3, iI + 9 * o, xo + 3);
    }
    if (w->artic_count) mo_artic_minv(w, x, y); /* the articulations' joint-space blocks (artic_rows.c) */
}

/* the side of a contact or joint: predicted displacement of a world point carried by body slot bs */
static void carry_point(const nw *s, int bs, const double *p0, double *r_plus, double *p_plus)
{
    double qc[4], dq[4], r0[3];
    mo_q_conj(qc, s->bq + 4 * bs);
    mo_q_mul(dq, s->pq + 4 * bs, qc);
    mo_v3_sub(r0, p0, s->bx + 3 * bs);
    mo_q_rotate(r_plus, dq, r0);
    mo_v3_add(p_plus, s->px + 3 * bs, r_plus);
}

/* the side of a contact on a sphere or a capsule: its contact point is not a material point (a rolling
 * sphere touches the plane with a new point of its surface), so it moves with the body's translation only
 * and keeps its lever arm p - x, which stays along the normal. Carried with the rotation, the point of a
 * rolling sphere rose by r (1 - cos theta) each step: the contact read as opening and the sphere sank and
 * sped up (a 3 cm sphere rolling at 10 rad/s reached z = -0.024 m in 1 s) */
static bool round_side(const mo_world *w, int shape)
{
    if (shape < 0) return false;
    int t = w->shapes[shape].type;
    return t == MO_SHAPE_SPHERE || t == MO_SHAPE_CAPSULE;
}

static void carry_translation(const nw *s, int bs, const double *p0, double *r, double *p_plus)
{
    mo_v3_sub(r, p0, s->bx + 3 * bs);
    mo_v3_add(p_plus, s->px + 3 * bs, r);
}

/* rows, C(q+), J(q+) (CSR val, wval), J v (with kinematic sides), diag(J M~^-1 J^T) at q+(v) */
static void eval_rows(mo_world *w, const mo_problem *p, nw *s, const double *v)
{
    (void)p; /* the pattern is s->rp (the problem's rows and the FEM rows) */
    const double h = s->h;
    const int *dof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    /* predicted poses */
    for (int i = 0; i < s->nbody; i++) {
        const mo_body *b = &w->bodies[i];
        double *x = s->px + 3 * i, *q = s->pq + 4 * i;
        mo_v3_copy(x, s->bx + 3 * i);
        memcpy(q, s->bq + 4 * i, 4 * sizeof(double));
        if (!b->alive) continue;
        if (b->owner >= 0) {
            const double *vo = v + dof[b->owner];
            static const double zero[3] = {0.0, 0.0, 0.0};
            double wcopy[3] = {vo[3], vo[4], vo[5]};
            mo_k_integrate_body(x, q, vo, wcopy, zero, h);
        } else if (b->type == MO_BODY_KINEMATIC) {
            mo_k_integrate_pose(x, q, b->k.v, b->k.w, h);
        }
    }
    for (int i = 0; i < s->npart; i++) {
        const mo_particle *pt = &w->particles[i];
        mo_v3_copy(s->ppx + 3 * i, pt->x);
        if (pt->alive && pt->owner >= 0) mo_v3_axpy(s->ppx + 3 * i, h, v + dof[pt->owner]);
    }
    /* joints at q+: the bodies are moved there for mo_joint_fill_rows and back */
    if (s->mj > 0) {
        for (int i = 0; i < s->nbody; i++) {
            mo_v3_copy(w->bodies[i].k.x, s->px + 3 * i);
            memcpy(w->bodies[i].k.q, s->pq + 4 * i, 4 * sizeof(double));
        }
        for (int i = 0; i < w->joint_count; i++) {
            const mo_joint *j = &w->joints[i];
            if (!j->alive || mo_joint_asleep(w, j)) continue;
            mo_joint_fill_rows(w, j, s->h, s->rows + j->row0, s->aux + j->row0, s->kind + j->row0,
                               s->lo + j->row0, s->hi + j->row0);
        }
        for (int i = 0; i < s->nbody; i++) {
            mo_v3_copy(w->bodies[i].k.x, s->bx + 3 * i);
            memcpy(w->bodies[i].k.q, s->bq + 4 * i, 4 * sizeof(double));
        }
        for (int r = 0; r < s->mj; r++) s->cg[r] = s->aux[r].g; /* articulation rows: mo_artic_newton_rows below */
    }
    /* contacts at q+ */
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int c = 0; c < s->nc; c++) {
        const mo_contact_int *k = &ct[c];
        int r0 = s->mj + 3 * c;
        double ra[3] = {0, 0, 0}, rb[3] = {0, 0, 0}, pa[3], pb[3], da[3] = {0, 0, 0}, db[3] = {0, 0, 0};
        int oa = -1, ob = -1;
        /* a link body's side moves with its articulation's dofs: its displacement is h J_art v, its columns the
           assembled ones (mo_artic_newton_rows) */
        const bool la = k->body_a >= 0 && w->bodies[k->body_a].artic;
        const bool lb = k->particle < 0 && k->body_b >= 0 && w->bodies[k->body_b].artic;
        if (la) {
            mo_v3_sub(ra, k->pa, w->bodies[k->body_a].k.x);
        } else if (k->body_a >= 0) {
            if (round_side(w, k->shape_a)) carry_translation(s, k->body_a, k->pa, ra, pa);
            else carry_point(s, k->body_a, k->pa, ra, pa);
            mo_v3_sub(da, pa, k->pa);
            oa = w->bodies[k->body_a].owner;
        }
        if (k->particle >= 0) {
            mo_v3_sub(db, s->ppx + 3 * k->particle, w->particles[k->particle].x);
            ob = w->particles[k->particle].owner;
        } else if (lb) {
            mo_v3_sub(rb, k->pb, w->bodies[k->body_b].k.x);
        } else if (k->body_b >= 0) {
            if (round_side(w, k->shape_b)) carry_translation(s, k->body_b, k->pb, rb, pb);
            else carry_point(s, k->body_b, k->pb, rb, pb);
            mo_v3_sub(db, pb, k->pb);
            ob = w->bodies[k->body_b].owner;
        }
        double rel[3];
        mo_v3_sub(rel, db, da);
        s->cg[r0] = k->gap + mo_v3_dot(k->n, rel);
        s->cg[r0 + 1] = s->cg[r0 + 2] = 0.0;
        const double *dirs[3] = {k->n, k->t1, k->t2};
        for (int q = 0; q < 3; q++) {
            mo_k_row *row = &s->rows[r0 + q];
            mo_k_point_row(row, dirs[q], ra, rb);
            row->owner_a = oa;
            row->owner_b = ob;
            double kin = 0.0;
            if (k->body_a >= 0 && oa < 0 && !la)
                kin += mo_v3_dot(row->ja, w->bodies[k->body_a].k.v) + mo_v3_dot(row->ja + 3, w->bodies[k->body_a].k.w);
            if (k->particle < 0 && k->body_b >= 0 && ob < 0 && !lb)
                kin += mo_v3_dot(row->jb, w->bodies[k->body_b].k.v) + mo_v3_dot(row->jb + 3, w->bodies[k->body_b].k.w);
            s->aux[r0 + q].jv_kin = kin;
        }
    }
    /* CSR J(q+) and M~^-1 J^T (M~ at the start of the step), J v, diagonal */
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    const int nt = w->def.threads;
    MO_PARALLEL_LOOP(nt, s->mp, for (int r = 0; r < s->mp; r++)
        mo_k_fill_row(&s->rows[r], s->rp[r], dof, ond, oim, oiI, s->col, s->val, s->wval););
    if (w->artic_contacts || w->artic_limit_rows) mo_artic_newton_rows(w, p, h, v, s->aux, s->col, s->val, s->wval, s->cg);
    /* FEM rows at the particles' predicted positions (fem_rows.c) */
    if (s->m > s->mp) {
        mo_fem_newton_eval(w, h, s->ppx, s->px, s->pq, s->rp + s->mp, s->val, s->wval, s->cg + s->mp, s->feps + s->mp,
                           s->fkin + s->mp);
        for (int r = s->mp; r < s->m; r++) {
            s->aux[r].eps = s->feps[r];
            s->aux[r].jv_kin = s->fkin[r];
        }
        memcpy(s->fepst + s->mp, s->feps + s->mp, (size_t)(s->m - s->mp) * sizeof(double));
        mo_fem_newton_tangent(w, s->lam + s->mp, s->feps + s->mp, s->fepst + s->mp);
    }
    /* M~ = M + h^2 K~ on particle DOFs, K~ the diagonal geometric stiffness of the FEM rows
     * (fem_rows.c: the diagonal of -lambda_D d2 C_D / dx2 of the Neo-Hookean rows, >= 0, at this
     * iterate; not SOLVERS.md's secant of the last two iterates, docs/fem.md); the W rows are scaled by
     * M~^-1 M */
    for (int i = 0; i < s->n; i++) s->msc[i] = 1.0;
    if (s->m > s->mp) {
        memset(s->kt, 0, (size_t)s->n * sizeof(double));
        mo_fem_newton_geometric(w, s->ppx, s->lam + s->mp, s->kt);
        for (int o = 0; o < s->nown; o++)
            if (ond[o] == 3)
                for (int k = 0; k < 3; k++) s->msc[dof[o] + k] = 1.0 / (1.0 + h * h * s->kt[dof[o] + k] * oim[o]);
        for (int q = 0; q < s->nnz; q++) s->wval[q] *= s->msc[s->col[q]];
    }
    MO_PARALLEL_LOOP(nt, s->m, for (int r = 0; r < s->m; r++) {
        double a = 0.0, d = 0.0;
        for (int q = s->rp[r]; q < s->rp[r + 1]; q++) {
            a += s->val[q] * v[s->col[q]];
            d += s->val[q] * s->wval[q];
        }
        s->jv[r] = a + s->aux[r].jv_kin;
        s->dj[r] = d;
    });
}

/* the complementarity scalings c of every row for the chosen variant */
static void scalings(const nw *s, mo_newton_scaling sc, double k, double *c, double *cfc)
{
    const double h = s->h;
    for (int r = 0; r < s->m; r++) {
        switch (sc) {
        case MO_NEWTON_SCALING_IDENTITY: c[r] = 1.0; break;
        case MO_NEWTON_SCALING_CONSTANT: c[r] = (s->type[r] == MO_NROW_NCP ? h * h : h) * k; break;
        default: c[r] = (s->type[r] == MO_NROW_NCP ? h * h : h) * s->dj[r]; break;
        }
    }
    for (int q = 0; q < s->nf; q++) {
        int r = s->frn[q] + 1;
        cfc[q] = sc == MO_NEWTON_SCALING_MASS ? 0.5 * (c[r] + c[r + 1]) : c[r];
    }
}

/* One row's linearisation kv (J dv) + kl dl = -g of its residual g (raw form,
 * SOLVERS.md B before scaling), for every row at (v, lambda); disables the
 * friction of contacts whose normal force vanished (lambda_f = 0). W of each
 * contact from w_fixed or computed (into s->wc). */
static void linearise(const mo_world *w, const mo_problem *p, nw *s, const mo_newton_settings *ns,
                      const double *w_fixed, double *g, double *kv, double *kl)
{
    const double h = s->h;
    (void)w;
    double *lam = s->lam;
    for (int r = 0; r < s->m; r++) {
        switch (s->type[r]) {
        case MO_NROW_BILATERAL: {
            double E = s->aux[r].eps;
            g[r] = s->cg[r] + E * lam[r];
            kv[r] = h;
            kl[r] = r < s->mp ? E : s->fepst[r]; /* FEM rows: the tangent compliance (step.h, mo_fem_newton_tangent) */
            break;
        }
        case MO_NROW_NCP: {
            double eps = r < s->mj ? s->aux[r].eps : w->def.contact_compliance;
            mo_ncp_val f = mo_ncp_eval(ns->ncp, s->cg[r] + eps * lam[r], s->c[r] * lam[r]);
            g[r] = f.phi;
            kv[r] = f.da * h;
            kl[r] = f.da * eps + f.db * s->c[r];
            break;
        }
        case MO_NROW_BOX: {
            double sig = p->sigma[r], b = p->b[r];
            double lo = p->lo[r] / h, hi = p->hi[r] / h;
            double u = s->jv[r] - s->aux[r].jv_kin + sig * h * lam[r] + b;
            /* the box's minimum map on the row's whole diagonal, c + sigma h: a drive whose compliance
               dominates (a URDF damper, sigma = 1/(h kd) with a small kd) flipped between its bounds at
               every Newton iteration with c alone (a humanoid's neck: lambda = +-20 N m for ever) */
            double trial = lam[r] - u / (s->c[r] + sig * h);
            if (trial < lo) { g[r] = lam[r] - lo; kv[r] = 0.0; kl[r] = 1.0; }
            else if (trial > hi) { g[r] = lam[r] - hi; kv[r] = 0.0; kl[r] = 1.0; }
            else { g[r] = u; kv[r] = 1.0; kl[r] = sig * h; }
            break;
        }
        default: break; /* friction: per contact below */
        }
    }
    for (int q = 0; q < s->nf; q++) {
        int rn = s->frn[q], r1 = rn + 1, r2 = rn + 2;
        double mu = s->fmu[q], ln = lam[rn];
        if (!(mu > 0.0) || !(h * ln * s->dj[rn] >= FRICTION_DV_MIN)) {
            lam[r1] = lam[r2] = 0.0;
            g[r1] = g[r2] = 0.0;
            kv[r1] = kv[r2] = 0.0;
            kl[r1] = kl[r2] = 1.0;
            s->wc[q] = 0.0;
            continue;
        }
        double slip = hypot(s->jv[r1], s->jv[r2]), lf = hypot(lam[r1], lam[r2]);
        double side = lf > mu * ln ? 1.0 : -1.0;
        const mo_contact_int *ct = q < s->nc ? (const mo_contact_int *)w->contacts.p + q : NULL;
        const bool warm = !w_fixed && s->it == 0 && ct && ct->fric_k > 0.0; /* W and its slope from the cache */
        if (!w_fixed) {
            /* the slope of W's local model. W's formula solves one contact alone, its slip
               answering its friction force with the slope c_f = h (J M~^-1 J^T)_ii; but a link
               held by stiff joints and pressed by other contacts answers far less (the beam: the
               pushed link's slip moved by 3.5e-5 (m/s)/N against c_f = 0.386), and with the slope
               too large W flips between "sticks" (W = 0, a force of 400 N asked for) and "slides
               fast" (|lf| far below mu ln) without end. For rigid contacts the slope is measured:
               the secant (ds . dl) / |dl|^2 between the last two iterates, as a factor on c_f in
               [1e-8, 1], kept through the step and warm-started with W from the contact cache
               (the zero-velocity start's W is meaningless). FEM contacts keep c_f: their secant
               mixes the slab's own deformation (measured: the box on the tilted slab slid). */
            if (warm) s->wk[q] = ct->fric_k;
            double *pv = s->wprev + 4 * q;
            if (s->it > 0 && ct && s->wside[q] != 0.0) {
                double ds0 = s->jv[r1] - pv[0], ds1 = s->jv[r2] - pv[1], dl0 = lam[r1] - pv[2], dl1 = lam[r2] - pv[3];
                double num = ds0 * dl0 + ds1 * dl1, den = dl0 * dl0 + dl1 * dl1;
                if (den > 1e-6 * (mu * ln) * (mu * ln) && num > 0.0)
                    s->wk[q] = mo_k_clamp(num / den / s->cfc[q], FRICTION_SLOPE_MIN, 1.0);
            }
            pv[0] = s->jv[r1]; pv[1] = s->jv[r2]; pv[2] = lam[r1]; pv[3] = lam[r2];
        }
        double W = w_fixed ? w_fixed[q] : warm ? ct->fric_w : mo_newton_friction_w(ns->ncp, slip, ln, lf, mu, s->wk[q] * s->cfc[q]);
        /* the W fixed point can fall into a 2-cycle across the cone's edge: a block at mu = tan 30 - 0.077
           alternated W = 0.015 (|lf| above mu ln) and W = 4e-13 (below) forever and never slid. When the
           friction force crosses the edge between two iterations, W is the mean of the two (the same fixed
           points); while it stays on one side the plain update keeps its speed */
        if (!w_fixed && s->it > 0 && s->wside[q] != 0.0 && s->wside[q] != side) W = 0.5 * (W + s->wc[q]);
        if (!w_fixed) s->wside[q] = side;
        s->wc[q] = W;
        g[r1] = s->jv[r1] + W * lam[r1];
        g[r2] = s->jv[r2] + W * lam[r2];
        kv[r1] = kv[r2] = 1.0;
        kl[r1] = kl[r2] = W;
    }
}

/* the scaling-independent Newton residual (file comment), m */
static double newton_residual(const mo_world *w, const mo_problem *p, const nw *s)
{
    const double h = s->h;
    double sum = 0.0;
    (void)w;
    for (int i = 0; i < s->n; i++) sum += h * h * s->t[i] * s->t[i]; /* t = M~^-1 r_m */
    for (int r = 0; r < s->m; r++) {
        double e = 0.0, l = s->lam[r];
        switch (s->type[r]) {
        case MO_NROW_BILATERAL: e = s->cg[r] + s->aux[r].eps * l; break;
        case MO_NROW_NCP: {
            double eps = r < s->mj ? s->aux[r].eps : w->def.contact_compliance, a = s->cg[r] + eps * l;
            double b = h * h * s->dj[r] * l;
            e = a < b ? a : b;
            break;
        }
        case MO_NROW_BOX: {
            double cb = h * s->dj[r] + p->sigma[r] * h, u = s->jv[r] - s->aux[r].jv_kin + p->sigma[r] * h * l + p->b[r];
            double x = mo_k_clamp(l - u / cb, p->lo[r] / h, p->hi[r] / h);
            e = h * cb * (l - x);
            break;
        }
        default: break;
        }
        sum += e * e;
    }
    for (int q = 0; q < s->nf; q++) {
        int rn = s->frn[q], r1 = rn + 1, r2 = rn + 2;
        double cf = h * 0.5 * (s->dj[r1] + s->dj[r2]);
        if (!(cf > 0.0)) continue;
        double y[2] = {s->lam[r1] - s->jv[r1] / cf, s->lam[r2] - s->jv[r2] / cf};
        double rad = s->fmu[q] * (s->lam[rn] > 0.0 ? s->lam[rn] : 0.0), ny = hypot(y[0], y[1]);
        if (ny > rad) { y[0] *= rad / ny; y[1] *= rad / ny; }
        double e1 = h * cf * (s->lam[r1] - y[0]), e2 = h * cf * (s->lam[r2] - y[1]);
        sum += e1 * e1 + e2 * e2;
    }
    return sqrt(sum);
}

/* r_m = M (v - v~) - h J^T lambda, and t = M~^-1 r_m */
static void momentum(const mo_world *w, const mo_problem *p, nw *s)
{
    const int *dof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    const double *im = (const double *)w->owner_inv_mass.p;
    for (int o = 0; o < s->nown; o++) {
        const double *vo = s->v + dof[o], *vt = p->v_tilde + dof[o];
        double *ro = s->rm + dof[o], d[3];
        for (int k = 0; k < 3; k++) ro[k] = (vo[k] - vt[k]) / im[o];
        if (ond[o] == 6) {
            for (int k = 0; k < 3; k++) d[k] = vo[3 + k] - vt[3 + k];
            mo_m3_mulv(ro + 3, s->mblk + 9 * o, d);
        }
    }
    if (w->artic_count) { /* (M + diag a)(v - v~) on the articulations' dofs */
        for (int i = 0; i < s->n; i++) s->vd[i] = s->v[i] - p->v_tilde[i];
        mo_artic_mulv(w, s->vd, s->rm);
    }
    for (int r = 0; r < s->m; r++) {
        double f = s->h * s->lam[r];
        if (f == 0.0) continue;
        for (int k = s->rp[r]; k < s->rp[r + 1]; k++) s->rm[s->col[k]] -= s->val[k] * f;
    }
    minv(w, s, s->rm, s->t);
    for (int i = 0; i < s->n; i++) s->t[i] *= s->msc[i]; /* M~^-1 */
}

int mo_newton_probe(const mo_step_ctx *ctx, const mo_problem *p, const mo_newton_settings *ns, const double *v,
                    const double *lambda, const double *dv, const double *dl, const double *fixed, double *fixed_out,
                    double *g, double *dg, uint8_t *type)
{
    mo_world *w = ctx->w;
    nw s;
    if (nw_setup(ctx, p, &s)) return -1;
    memcpy(s.v, v, (size_t)s.n * sizeof(double));
    memcpy(s.lam, lambda, (size_t)s.m * sizeof(double));
    s.it = 0;
    eval_rows(w, p, &s, s.v);
    scalings(&s, ns->scaling, ns->scaling_constant, s.c, s.cfc);
    if (fixed) {
        memcpy(s.c, fixed, (size_t)s.m * sizeof(double));
        for (int q = 0; q < s.nf; q++) s.cfc[q] = ns->scaling == MO_NEWTON_SCALING_MASS ?
            0.5 * (s.c[s.frn[q] + 1] + s.c[s.frn[q] + 2]) : s.c[s.frn[q] + 1];
    }
    linearise(w, p, &s, ns, fixed ? fixed + s.m : NULL, s.g, s.kv, s.kl);
    for (int r = 0; r < s.m; r++) {
        double jd = 0.0;
        for (int k = s.rp[r]; k < s.rp[r + 1]; k++) jd += s.val[k] * dv[s.col[k]];
        g[r] = s.g[r];
        dg[r] = s.kv[r] * jd + s.kl[r] * dl[r];
        type[r] = s.type[r];
    }
    if (fixed_out) {
        memcpy(fixed_out, s.c, (size_t)s.m * sizeof(double));
        for (int q = 0; q < s.nf; q++) fixed_out[s.m + q] = s.wc[q];
    }
    return 0;
}

/* the Schur system of one Newton iteration from the rows' linearisations:
 * rows scaled so that J dv has the coefficient h; zeroed rows where that
 * coefficient vanishes */
static void schur(const mo_world *w, const mo_problem *p, nw *s, double delta)
{
    const double h = s->h;
    for (int r = 0; r < s->m; r++) {
        double a = s->kv[r] / h; /* the row is divided by this */
        if (fabs(a) <= PHI_A_MIN) {
            s->mask[r] = 1;
            s->cd[r] = 1.0;
            s->e[r] = s->kl[r] != 0.0 ? s->g[r] / s->kl[r] : 0.0;
            s->adiag[r] = 1.0;
            s->rhs[r] = -s->e[r];
            continue;
        }
        s->mask[r] = 0;
        s->cd[r] = s->kl[r] / a + delta;
        s->e[r] = s->g[r] / a;
        s->adiag[r] = h * h * s->dj[r] + s->cd[r];
        double jt = 0.0; /* J_i M~^-1 r_m */
        for (int k = s->rp[r]; k < s->rp[r + 1]; k++) jt += s->val[k] * s->t[s->col[k]];
        s->rhs[r] = h * jt - s->e[r];
    }
    (void)w;
    (void)p;
}

/* a Newton step that ended with a non-finite residual: the sentence names the first row whose force,
   residual or constraint value is not finite (a joint's, a contact's or an FEM row); the step fails (mo_world_step rolls the world back, or halves
   the step when halving is on) */
static int newton_not_finite(mo_world *w, const nw *s, int it)
{
    int r = 0;
    while (r < s->m && isfinite(s->lam[r]) && isfinite(s->g[r]) && isfinite(s->cg[r])) r++;
    char what[128];
    if (r == s->m) snprintf(what, sizeof what, "its residual");
    else {
        const char *q = !isfinite(s->cg[r]) ? "constraint value" : !isfinite(s->lam[r]) ? "force" : "residual";
        if (r < s->mj) snprintf(what, sizeof what, "the %s of joint row %d", q, r);
        else if (r < s->mp) {
            const mo_contact_int *c = (const mo_contact_int *)w->contacts.p + (r - s->mj) / 3;
            snprintf(what, sizeof what, "the %s of contact %d (body %d, %s %d)", q, (r - s->mj) / 3, c->body_a + 1,
                     c->body_b >= 0 ? "body" : "particle", c->body_b >= 0 ? c->body_b + 1 : c->particle + 1);
        } else
            snprintf(what, sizeof what, "the %s of FEM row %d", q, r - s->mp);
    }
    mo_set_error(w, "mo_world_step: step %llu: the Newton step left %s not finite after %d iterations; the world "
                    "is as before the step",
                 (unsigned long long)w->step_index, what, it);
    return MO_STEP_NOT_FINITE;
}

int mo_step_newton(const mo_step_ctx *ctx, const mo_problem *p)
{
    mo_world *w = ctx->w;
    const mo_solver_settings *ss = &w->def.solver;
    const mo_newton_settings *ns = &ss->newton;
    mo_step_stats *st = &w->stats;
    nw s;
    if (nw_setup(ctx, p, &s)) return -1;
    nw_buf *b = (nw_buf *)w->newton.p;
    const int n = s.n, m = s.m, iters = ns->iterations;
    const double h = s.h, alpha = ns->step_fraction;
    const bool rec = ss->record_residuals;
    if (mo_buf_reserve(&b->hist, (size_t)(iters + 1) * sizeof(double)) ||
        mo_buf_reserve(&b->ehist, (size_t)(iters + 1) * sizeof(double)) ||
        (rec && mo_buf_reserve(&b->lhist, ((size_t)iters * (size_t)ns->linear_iterations + 1) * sizeof(double))))
        return -1;
    double *hist = (double *)b->hist.p, *ehist = (double *)b->ehist.p, *lhist = rec ? (double *)b->lhist.p : NULL;

    /* zero-velocity start (the articulations' dofs at v~: their rows are linear in v, and their momentum residual
       then starts at zero as the bodies' used to when an articulation has no rows); lambda from the warm start
       (impulses / h) */
    memset(s.v, 0, (size_t)n * sizeof(double));
    for (int i = 0; i < w->artic_count; i++)
        if (w->artics[i].alive)
            memcpy(s.v + w->artics[i].dof0, p->v_tilde + w->artics[i].dof0,
                   (size_t)w->artics[i].m->nv * sizeof(double));
    const double *gam = (const double *)w->gamma.p;
    for (int r = 0; r < s.mp; r++) s.lam[r] = ss->warm_start && isfinite(gam[r]) ? gam[r] / h : 0.0;
    if (m > s.mp) mo_fem_newton_lambda_get(w, ss->warm_start, s.lam + s.mp); /* FEM rows (issue 7) */

    /* the primal form of the Cholesky inner solve assembles M from the owners' blocks: not with articulation rows,
       whose dofs' M is the joint-space one (odof NULL: the Schur form, newton_cholesky.c) */
    const bool art = w->artic_contacts || w->artic_limit_rows;
    mo_newton_system sys = {n, m, w->def.threads, h, s.rp, s.col, s.val, s.wval, s.mask, s.cd, s.adiag,
                            s.nown, art ? NULL : (const int *)w->owner_dof.p, (const int *)w->owner_ndof.p,
                            (const double *)w->owner_inv_mass.p, s.mblk, s.msc, &b->chol, mo_step_device(w, m),
                            0, s.grp};
    st->backend = sys.device ? MO_BACKEND_CUDA : MO_BACKEND_CPU;
    int it = 0, lin_total = 0, lcount = 0;
    double res = 0.0;
    bool converged = false;
    for (;;) {
        /* rows, residuals and the linearisation at the current iterate */
        s.it = it;
        eval_rows(w, p, &s, s.v);
        sys.ngrp = mo_newton_groups(m, s.rp, s.col, s.grp); /* eval_rows fills the problem rows' columns */
        scalings(&s, ns->scaling, ns->scaling_constant, s.c, s.cfc);
        linearise(w, p, &s, ns, NULL, s.g, s.kv, s.kl);
        momentum(w, p, &s);
        res = newton_residual(w, p, &s);
        if (it > 0) {
            hist[it - 1] = res;
            if (ss->tolerance > 0.0 && res <= ss->tolerance) { converged = true; break; }
        }
        if (it == iters || !isfinite(res)) break;
        /* the Schur system and its inner solve */
        schur(w, p, &s, ns->regularisation);
        double rel = 0.0;
        int li = mo_newton_linear_solve(&sys, ns, s.rhs, s.dl, s.scratch, lhist ? lhist + lcount : NULL, &rel);
        if (li < 0) {
            mo_set_error(w, "mo_world_step: the cuda backend failed at step %llu (Newton iteration %d, %d rows): %s",
                         (unsigned long long)w->step_index, it, m, sys.device->err);
            return -2;
        }
        lin_total += li;
        if (lhist) lcount += li;
        ehist[it] = rel;
        /* dv = M~^-1 (h Jm^T dl - r_m) */
        mo_newton_jt(&sys, s.dl, s.dv);
        for (int i = 0; i < n; i++) s.dv[i] = h * s.dv[i] - s.t[i];
        for (int i = 0; i < n; i++) s.v[i] += alpha * s.dv[i];
        for (int r = 0; r < m; r++) s.lam[r] += alpha * s.dl[r];
        it++;
    }

    /* momentum-consistent velocity with the final forces: v+ = v~ + h M~^-1 J(q+)^T lambda */
    double *v = (double *)w->v.p;
    memset(s.rm, 0, (size_t)n * sizeof(double));
    for (int r = 0; r < m; r++) {
        double f = h * s.lam[r];
        if (f == 0.0 || !isfinite(f)) continue;
        for (int k = s.rp[r]; k < s.rp[r + 1]; k++) s.rm[s.col[k]] += s.val[k] * f;
    }
    minv(w, &s, s.rm, s.t);
    for (int i = 0; i < n; i++) v[i] = p->v_tilde[i] + s.t[i];
    /* FEM nodes keep the Newton iterate: their rows' multipliers are large at rest (the Neo-Hookean
       rows' mu V) and balance only at convergence, so after a fixed iteration budget h M^-1 J^T lambda
       would carry the imbalance into the velocity (measured: a Neo-Hookean cube on the ground, step
       fraction 0.5, blew up in 9 steps; with the iterate its residual is 1e-14) */
    if (m > s.mp) {
        const int *dof = (const int *)w->owner_dof.p;
        for (int i = 0; i < w->particle_count; i++) {
            const mo_particle *pp = &w->particles[i];
            if (!pp->alive || !pp->fem_mesh || pp->owner < 0) continue;
            const int d0 = dof[pp->owner];
            /* nodes with a geometric stiffness (elements in the paper's 2-row Neo-Hookean form) keep
               the momentum-consistent velocity: their M~ stiffens translations in the tangent, and the
               iterate lags a free fall (docs/fem.md) */
            if (s.kt[d0] != 0.0 || s.kt[d0 + 1] != 0.0 || s.kt[d0 + 2] != 0.0) continue;
            for (int k = 0; k < 3; k++) v[d0 + k] = s.v[d0 + k];
        }
    }

    /* forces back as impulses (h lambda): joints (warm start, reactions), contacts (cache) */
    double *gout = (double *)w->gamma.p;
    for (int r = 0; r < s.mp; r++) gout[r] = isfinite(s.lam[r]) ? h * s.lam[r] : 0.0;
    if (m > s.mp) { /* FEM rows keep their forces; fixed nodes' targets move on (issue 7) */
        mo_fem_newton_lambda_set(w, s.lam + s.mp);
        mo_fem_step_end(w, h);
        st->rows = m;
        st->nonzeros = s.nnz;
    }
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive || mo_joint_asleep(w, j)) continue; /* asleep: no rows this step */
        double f[3] = {0, 0, 0}, tq[3] = {0, 0, 0};
        for (int k = 0; k < j->nrows; k++) {
            double l = gout[j->row0 + k] / h;
            j->impulse[k] = gout[j->row0 + k];
            mo_v3_axpy(f, l, s.rows[j->row0 + k].jb);
            mo_v3_axpy(tq, l, s.rows[j->row0 + k].jb + 3);
        }
        mo_v3_copy(j->react_f, f);
        mo_v3_copy(j->react_t, tq);
    }
    /* the Siconos error of the contacts, with u = (C_n(q+) / h, D v) and r = h lambda */
    mo_contact_int *ct = (mo_contact_int *)w->contacts.p;
    double esum = 0.0, gn = 0.0, un = 0.0;
    for (int c = 0; c < s.nc; c++) {
        int r0 = s.mj + 3 * c;
        double u[3] = {s.cg[r0] / h, s.jv[r0 + 1], s.jv[r0 + 2]};
        ct[c].fric_w = s.wc[c]; /* W and its slope warm-start the next step (linearise) */
        ct[c].fric_k = s.wk[c];
        ct[c].h = h; /* read-back: force = impulse / h */
        for (int k = 0; k < 3; k++) {
            ct[c].impulse[k] = gout[r0 + k];
            gn += gout[r0 + k] * gout[r0 + k];
            un += u[k] * u[k];
        }
        esum += mo_k_coulomb_error_sq(gout + r0, u, ct[c].mu);
    }
    /* the articulations' rows: warm starts, constraint forces, and the integrator of a touched articulation */
    if (w->artic_limit_rows) mo_artic_limit_store(w, gout, h);
    if (w->artic_contacts) mo_artic_contacts_touch(w, ct, s.nc, (const int *)w->row_artic.p, s.mj);
    double den = sqrt(gn) > sqrt(un) ? sqrt(gn) : sqrt(un);
    if (mo_contact_cache_store(w)) w->ncache = 0;

    st->iterations = it;
    st->converged = converged;
    st->residual = res;
    st->coulomb_error = den > DBL_EPSILON ? sqrt(esum) / den : sqrt(esum);
    st->regularisation = 0.0;
    st->residual_count = rec ? it : 0;
    st->residual_history = rec ? hist : NULL;
    st->coulomb_error_history = rec ? ehist : NULL;
    st->linear_iterations = lin_total;
    st->linear_count = lcount;
    st->linear_history = lhist;
    if (!isfinite(res)) return newton_not_finite(w, &s, it);
    return 0;
}
