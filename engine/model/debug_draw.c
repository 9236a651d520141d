/* debug_draw.c: the world drawn through caller callbacks (moreau/debug_draw.h).
 * No graphics here: contacts of the last step (points, normals, forces =
 * impulse / h, residual colours), joints (frames at both anchors, axes, the
 * anchor gap), shape bounding boxes, particles, FEM boundary edges and
 * articulation skeletons (bones between link origins, joint axes) become
 * lines, points, arrows, frames and boxes; the optional primitives fall back
 * to lines. */
#include <math.h>
#include <string.h>
#include "model/fem.h"
#include "moreau/debug_draw.h"

mo_debug_draw mo_default_debug_draw(void)
{
    mo_debug_draw d;
    memset(&d, 0, sizeof d);
    d.point_size = 0.02;
    d.normal_length = 0.2;
    d.force_scale = 0.01;
    d.frame_scale = 0.15;
    d.residual_low = 1e-6;
    d.residual_high = 1e-1;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

uint32_t mo_debug_draw_residual_color(const mo_debug_draw *dd, double residual)
{
    double lo = dd && dd->residual_low > 0.0 ? dd->residual_low : 1e-6;
    double hi = dd && dd->residual_high > lo ? dd->residual_high : lo * 1e5;
    double t;
    if (isnan(residual)) t = 1.0; /* a NaN residual is the worst there is */
    else if (!(residual > lo)) t = 0.0; /* 0 and negatives */
    else if (!(residual < hi)) t = 1.0;
    else t = (log10(residual) - log10(lo)) / (log10(hi) - log10(lo));
    /* green -> yellow -> red */
    unsigned r = t < 0.5 ? (unsigned)lround(510.0 * t) : 255u;
    unsigned g = t < 0.5 ? 255u : (unsigned)lround(510.0 * (1.0 - t));
    return (r << 24) | (g << 16) | 0x00ffu;
}

static mo_vec3 v3(const double *a) { return (mo_vec3){a[0], a[1], a[2]}; }
static mo_vec3 add(mo_vec3 a, mo_vec3 b) { return (mo_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static mo_vec3 scale(mo_vec3 a, double s) { return (mo_vec3){a.x * s, a.y * s, a.z * s}; }
static mo_vec3 sub(mo_vec3 a, mo_vec3 b) { return (mo_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static double len(mo_vec3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

static void point(const mo_debug_draw *dd, mo_vec3 p, uint32_t c)
{
    if (dd->point) {
        dd->point(dd->user, p, dd->point_size, c);
        return;
    }
    double s = dd->point_size;
    dd->line(dd->user, (mo_vec3){p.x - s, p.y, p.z}, (mo_vec3){p.x + s, p.y, p.z}, c);
    dd->line(dd->user, (mo_vec3){p.x, p.y - s, p.z}, (mo_vec3){p.x, p.y + s, p.z}, c);
    dd->line(dd->user, (mo_vec3){p.x, p.y, p.z - s}, (mo_vec3){p.x, p.y, p.z + s}, c);
}

static void arrow(const mo_debug_draw *dd, mo_vec3 tail, mo_vec3 head, uint32_t c)
{
    if (dd->arrow) {
        dd->arrow(dd->user, tail, head, c);
        return;
    }
    mo_vec3 d = sub(head, tail);
    double l = len(d);
    dd->line(dd->user, tail, head, c);
    if (!(l > 0.0)) return;
    /* two head lines, a fifth of the length back, in a plane holding d */
    mo_vec3 u = scale(d, 1.0 / l);
    mo_vec3 a = fabs(u.x) < 0.9 ? (mo_vec3){1, 0, 0} : (mo_vec3){0, 1, 0};
    mo_vec3 p = {u.y * a.z - u.z * a.y, u.z * a.x - u.x * a.z, u.x * a.y - u.y * a.x};
    p = scale(p, 1.0 / len(p));
    mo_vec3 back = sub(head, scale(u, 0.2 * l));
    dd->line(dd->user, head, add(back, scale(p, 0.08 * l)), c);
    dd->line(dd->user, head, sub(back, scale(p, 0.08 * l)), c);
}

static void frame(const mo_debug_draw *dd, mo_vec3 o, const double *q)
{
    mo_quat qq = {q[0], q[1], q[2], q[3]};
    if (dd->frame) {
        dd->frame(dd->user, o, qq, dd->frame_scale);
        return;
    }
    double R[9];
    mo_q_to_m3(R, q);
    static const uint32_t col[3] = {MO_DRAW_COLOR_X, MO_DRAW_COLOR_Y, MO_DRAW_COLOR_Z};
    for (int k = 0; k < 3; k++) {
        mo_vec3 axis = {R[k], R[3 + k], R[6 + k]};
        dd->line(dd->user, o, add(o, scale(axis, dd->frame_scale)), col[k]);
    }
}

static void box(const mo_debug_draw *dd, mo_vec3 lo, mo_vec3 hi, uint32_t c)
{
    if (dd->box) {
        dd->box(dd->user, lo, hi, c);
        return;
    }
    for (int k = 0; k < 4; k++) {
        /* the four edges along each axis */
        double a = (k & 1) ? hi.y : lo.y, b = (k & 2) ? hi.z : lo.z;
        dd->line(dd->user, (mo_vec3){lo.x, a, b}, (mo_vec3){hi.x, a, b}, c);
        a = (k & 1) ? hi.x : lo.x;
        dd->line(dd->user, (mo_vec3){a, lo.y, b}, (mo_vec3){a, hi.y, b}, c);
        b = (k & 2) ? hi.y : lo.y;
        dd->line(dd->user, (mo_vec3){a, b, lo.z}, (mo_vec3){a, b, hi.z}, c);
    }
}

/* ---- per-contact residuals of the last step ---- */

/* the solver's scale a = 1 / max N_ii over every row of the last step */
static double residual_alpha(const mo_world *w)
{
    const double *diag = (const double *)w->row_diag.p;
    double dmax = 0.0;
    for (int r = 0; r < w->rows_assembled; r++)
        if (diag[r] > dmax) dmax = diag[r];
    return dmax > 0.0 ? 1.0 / dmax : 1.0;
}

/* |g_c - P_K(g_c - a u_c)| / a for contact c, u = J v+ + Sigma g + b (= N g + r
 * at the solver's v+ = v~ + M^-1 J^T g) */
static double contact_residual(const mo_world *w, double alpha, int c)
{
    const int nc = w->ncontacts, mj = w->rows_assembled - 3 * nc;
    const int *row_ptr = (const int *)w->row_ptr.p, *col = (const int *)w->col.p;
    const double *val = (const double *)w->val.p, *sigma = (const double *)w->row_sigma.p;
    const double *b = (const double *)w->row_b.p, *gamma = (const double *)w->gamma.p;
    const double *v = (const double *)w->v.p;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    double x[3], g[3];
    for (int k = 0; k < 3; k++) {
        int r = mj + 3 * c + k;
        double u = b[r] + sigma[r] * gamma[r];
        for (int q = row_ptr[r]; q < row_ptr[r + 1]; q++) u += val[q] * v[col[q]];
        g[k] = gamma[r];
        x[k] = g[k] - alpha * u;
    }
    mo_k_project_block(x, MO_BLOCK_CONTACT, ct[c].mu, 0.0, 0.0);
    double e0 = g[0] - x[0], e1 = g[1] - x[1], e2 = g[2] - x[2];
    return sqrt(e0 * e0 + e1 * e1 + e2 * e2) / alpha;
}

/* the last step's rows still describe its contacts (not after a failed step) */
static bool residuals_available(const mo_world *w)
{
    return w->step_index > 0 && w->ncontacts > 0 && w->rows_assembled - 3 * w->ncontacts >= 0 && w->row_diag.p &&
           w->gamma.p && w->v.p;
}

int mo_world_contact_residuals(const mo_world *w, double *out, int cap)
{
    if (!w || w->step_index == 0) return 0;
    if (!residuals_available(w)) { /* the rows are gone (a step failed and was undone): NaN, not garbage */
        for (int c = 0; out && c < w->ncontacts && c < cap; c++) out[c] = NAN;
        return w->ncontacts;
    }
    const double alpha = residual_alpha(w);
    for (int c = 0; out && c < w->ncontacts && c < cap; c++) out[c] = contact_residual(w, alpha, c);
    return w->ncontacts;
}

static void draw_contacts(const mo_world *w, const mo_debug_draw *dd, unsigned flags)
{
    const int nc = w->step_index > 0 ? w->ncontacts : 0;
    if (nc <= 0 || !(flags & (MO_DRAW_CONTACTS | MO_DRAW_NORMALS | MO_DRAW_FORCES | MO_DRAW_RESIDUALS))) return;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    const bool res = (flags & MO_DRAW_RESIDUALS) && residuals_available(w);
    const double alpha = res ? residual_alpha(w) : 1.0;
    for (int c = 0; c < nc; c++) {
        const mo_contact_int *x = &ct[c];
        mo_vec3 p = {0.5 * (x->pa[0] + x->pb[0]), 0.5 * (x->pa[1] + x->pb[1]), 0.5 * (x->pa[2] + x->pb[2])};
        if (res) {
            point(dd, p, mo_debug_draw_residual_color(dd, contact_residual(w, alpha, c)));
        } else if (flags & (MO_DRAW_CONTACTS | MO_DRAW_RESIDUALS)) {
            point(dd, p, MO_DRAW_COLOR_CONTACT);
        }
        if (flags & MO_DRAW_NORMALS) dd->line(dd->user, p, add(p, scale(v3(x->n), dd->normal_length)), MO_DRAW_COLOR_NORMAL);
        if (flags & MO_DRAW_FORCES) {
            mo_vec3 f = add(add(scale(v3(x->n), x->impulse[0]), scale(v3(x->t1), x->impulse[1])),
                            scale(v3(x->t2), x->impulse[2]));
            /* the length of the (sub)step that produced the contact (Newton halvings included) */
            f = x->h > 0.0 ? scale(f, dd->force_scale / x->h) : scale(f, 0.0);
            if (len(f) > 0.0) arrow(dd, p, add(p, f), MO_DRAW_COLOR_FORCE);
        }
    }
}

/* world position of a body-frame point (slot -1: the point is in the world frame) */
static mo_vec3 world_point(const mo_world *w, int slot, const double *local)
{
    if (slot < 0) return v3(local);
    const mo_body *b = &w->bodies[slot];
    double p[3];
    mo_q_rotate(p, b->k.q, local);
    return (mo_vec3){p[0] + b->k.x[0], p[1] + b->k.x[1], p[2] + b->k.x[2]};
}

static void draw_joints(const mo_world *w, const mo_debug_draw *dd)
{
    static const double identity[4] = {1, 0, 0, 0};
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        const double *qa = j->a >= 0 ? w->bodies[j->a].k.q : identity, *qb = w->bodies[j->b].k.q;
        mo_vec3 pa = world_point(w, j->a, j->la), pb = world_point(w, j->b, j->lb);
        if (j->type == MO_JOINT_DISTANCE) {
            dd->line(dd->user, pa, pb, MO_DRAW_COLOR_JOINT_AXIS);
            point(dd, pa, MO_DRAW_COLOR_JOINT_AXIS);
            point(dd, pb, MO_DRAW_COLOR_JOINT_AXIS);
            continue;
        }
        frame(dd, pa, qa);
        frame(dd, pb, qb);
        if (j->type == MO_JOINT_REVOLUTE || j->type == MO_JOINT_PRISMATIC) {
            double ax[3];
            mo_q_rotate(ax, qa, j->axa);
            mo_vec3 a = scale(v3(ax), 2.0 * dd->frame_scale);
            dd->line(dd->user, sub(pa, a), add(pa, a), MO_DRAW_COLOR_JOINT_AXIS);
        }
        if (len(sub(pb, pa)) > 0.0) dd->line(dd->user, pa, pb, MO_DRAW_COLOR_JOINT_ERROR);
    }
}

static void draw_aabbs(const mo_world *w, const mo_debug_draw *dd)
{
    for (int i = 0; i < w->shape_count; i++) {
        const mo_shape *s = &w->shapes[i];
        if (!s->alive || s->type == MO_SHAPE_PLANE || s->type == MO_SHAPE_NONE) continue;
        mo_cl_object o;
        mo_shape_object(w, i, &o);
        mo_cl_update_aabb(&o, 0.0);
        box(dd, v3(o.aabb_min), v3(o.aabb_max), MO_DRAW_COLOR_AABB);
    }
}

/* particles that are not FEM nodes, sized by their radius */
static void draw_particles(const mo_world *w, const mo_debug_draw *dd)
{
    for (int i = 0; i < w->particle_count; i++) {
        const mo_particle *p = &w->particles[i];
        if (!p->alive || p->fem_mesh) continue;
        const double s = p->radius > 0.0 ? p->radius : dd->point_size;
        if (dd->point) {
            dd->point(dd->user, v3(p->x), s, MO_DRAW_COLOR_PARTICLE);
        } else {
            mo_debug_draw d = *dd;
            d.point_size = s;
            point(&d, v3(p->x), MO_DRAW_COLOR_PARTICLE);
        }
    }
}

/* each mesh's boundary edges, an edge (a, b) of a triangle drawn when a < b */
static void draw_fem(const mo_world *w, const mo_debug_draw *dd)
{
    const fem_world *fw = (const fem_world *)w->fem;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntris; t++) {
            const int *v = m->tris + 3 * t;
            for (int e = 0; e < 3; e++) {
                int a = v[e], b = v[(e + 1) % 3];
                if (a < b)
                    dd->line(dd->user, v3(w->particles[m->node_part[a]].x), v3(w->particles[m->node_part[b]].x),
                             MO_DRAW_COLOR_FEM);
            }
        }
    }
}

/* each live articulation's tree at its current q: bones parent origin -> link origin, revolute and prismatic axes
   through the link origin (the queries' workspace holds the kinematics, as mo_articulation_link_pose's) */
static void draw_skeletons(const mo_world *w, const mo_debug_draw *dd)
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        mo_artic_forward_kinematics(a->m, a->qd, a->q, NULL, NULL);
        for (int k = 0; k < a->m->nlink; k++) {
            const mo_artic_link *l = &a->m->links[k];
            if (l->parent < 0) continue;
            const mo_sxform *X = &a->qd->x0[k], *P = &a->qd->x0[l->parent];
            mo_vec3 o = v3(X->r);
            dd->line(dd->user, v3(P->r), o, MO_DRAW_COLOR_SKELETON);
            if (l->joint == MO_ARTIC_REVOLUTE || l->joint == MO_ARTIC_PRISMATIC) {
                double ax[3];
                mo_m3_tmulv(ax, X->E, l->axis); /* E^T is the link's rotation */
                mo_vec3 s = scale(v3(ax), 2.0 * dd->frame_scale);
                dd->line(dd->user, sub(o, s), add(o, s), MO_DRAW_COLOR_JOINT_AXIS);
            }
        }
    }
}

mo_status mo_world_debug_draw(const mo_world *w, const mo_debug_draw *dd, unsigned flags)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    if (!dd || !dd->line || dd->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "mo_world_debug_draw: dd must be a mo_default_debug_draw() with a line callback");
        return MO_ERR_INVALID_ARGUMENT;
    }
    draw_contacts(w, dd, flags);
    if (flags & MO_DRAW_JOINTS) draw_joints(w, dd);
    if (flags & MO_DRAW_AABBS) draw_aabbs(w, dd);
    if (flags & MO_DRAW_PARTICLES) draw_particles(w, dd);
    if (flags & MO_DRAW_FEM) draw_fem(w, dd);
    if (flags & MO_DRAW_SKELETON) draw_skeletons(w, dd);
    return MO_OK;
}
