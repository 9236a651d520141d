/* joint.c: joints as constraint rows (fixed, spherical, revolute, prismatic,
 * distance) with limits (unilateral rows) and motors (boxed rows).
 *
 * Rows are written at the start of the step from the current poses:
 * - a point row along unit e between anchors pA, pB: [-e, -(ra x e), e, rb x e],
 *   g = e . (pB - pA); when e is attached to A (prismatic), ra is taken to pB,
 *   ra = pB - xA, which makes the row the exact time derivative of g;
 * - an angular row about world axis e: [0, -e, 0, e]; for the weld the errors
 *   are the rotation vector of qB (qA qrel0)^-1; for the hinge the two rows keep
 *   B's axis perpendicular to A's two normals b1, b2: g = aB . b1 with row
 *   (aB x b1) on wB - wA, the exact derivative of g;
 * - motors: velocity rows J v+ = target with |impulse| <= h F_max; position
 *   drives as an implicit spring-damper: f = -kp g+ - kd dg+/dt with
 *   g+ = g + h J v+ gives J v+ + gamma / (h^2 kp + h kd) = -kp g / (h kp + kd). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"

mo_joint_def mo_default_joint_def(void)
{
    mo_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = MO_JOINT_SPHERICAL;
    d.axis_a = (mo_vec3){1.0, 0.0, 0.0};
    d.axis_b = (mo_vec3){1.0, 0.0, 0.0};
    d.length = -1.0;
    d.max_force = INFINITY;
    d.compliance = -1.0;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

mo_joint *mo_joint_get(const mo_world *w, mo_joint_id id)
{
    if (!w || id.index == 0 || id.index > (uint32_t)w->joint_count) return NULL;
    mo_joint *j = &w->joints[id.index - 1];
    if (!j->alive || j->generation != id.generation) return NULL;
    return j;
}

bool mo_joint_is_valid(const mo_world *w, mo_joint_id id) { return mo_joint_get(w, id) != NULL; }

static const char *joint_type_name(mo_joint_type t)
{
    static const char *names[] = {"fixed", "spherical", "revolute", "prismatic", "distance"};
    return (int)t >= 0 && (int)t < 5 ? names[t] : "unknown";
}

/* world pose of a joint side: slot -1 is the world */
static void side_pose(const mo_world *w, int slot, double *x, double *q)
{
    if (slot < 0) {
        mo_v3_set(x, 0, 0, 0);
        q[0] = 1; q[1] = q[2] = q[3] = 0;
    } else {
        mo_v3_copy(x, w->bodies[slot].k.x);
        for (int k = 0; k < 4; k++) q[k] = w->bodies[slot].k.q[k];
    }
}

/* perpendicular unit pair (u, v) with u x v = a */
static void perp_pair(const double *a, double *u, double *v)
{
    mo_v3_basis(a, u, v);
}

static int check_motor(mo_world *w, const mo_joint_def *d)
{
    if (d->motor != MO_MOTOR_OFF && d->motor != MO_MOTOR_VELOCITY && d->motor != MO_MOTOR_POSITION) {
        mo_set_error(w, "joint motor mode %d is not a known mode", (int)d->motor);
        return 0;
    }
    /* the values are kept with the motor off too (a later mode switch uses them): checked in every mode */
    if (!(fabs(d->target_velocity) <= MO_SPEED_MAX) || !(fabs(d->target_position) <= MO_LENGTH_MAX)) {
        mo_set_error(w, "joint motor targets must be finite (velocity within %g, position within %g), got %g and %g",
                     MO_SPEED_MAX, MO_LENGTH_MAX, d->target_velocity, d->target_position);
        return 0;
    }
    if (!(d->max_force >= 0.0)) { /* infinity (the default) is no bound */
        mo_set_error(w, "joint motor max_force must be >= 0 (infinity: no bound), got %g", d->max_force);
        return 0;
    }
    if (d->motor == MO_MOTOR_OFF) return 1;
    if (d->type != MO_JOINT_REVOLUTE && d->type != MO_JOINT_PRISMATIC) {
        mo_set_error(w, "%s joint cannot have a motor (only revolute and prismatic joints)", joint_type_name(d->type));
        return 0;
    }
    if (!(d->max_force > 0.0)) {
        mo_set_error(w, "joint motor max_force must be > 0 for a running motor, got %g", d->max_force);
        return 0;
    }
    if (d->motor == MO_MOTOR_POSITION &&
        (!(d->stiffness >= 0.0) || !(d->damping >= 0.0) || !isfinite(d->stiffness) || !isfinite(d->damping) ||
         d->stiffness + d->damping <= 0.0)) {
        mo_set_error(w, "joint position drive needs finite stiffness and damping >= 0, not both 0; got %g and %g",
                     d->stiffness, d->damping);
        return 0;
    }
    return 1;
}

mo_status mo_joint_create(mo_world *w, const mo_joint_def *d, mo_joint_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_joint_id){0, 0};
    MO_NEED(w, d, "def");
    MO_NEED(w, out, "out");
    if (d->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "joint def was not initialised with mo_default_joint_def()");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if ((int)d->type < 0 || d->type > MO_JOINT_DISTANCE) {
        mo_set_error(w, "joint type %d is not a known joint type", (int)d->type);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_body *bb = mo_body_get(w, d->body_b);
    if (!bb) {
        mo_set_error(w, "joint body_b (index %u, generation %u) %s", d->body_b.index,
                     d->body_b.generation, mo_id_fault(w, d->body_b.generation, "does not name a live body"));
        return MO_ERR_STALE_ID;
    }
    mo_body *ba = NULL;
    if (!mo_body_id_is_null(d->body_a)) {
        ba = mo_body_get(w, d->body_a);
        if (!ba) {
            mo_set_error(w, "joint body_a (index %u, generation %u) %s", d->body_a.index,
                         d->body_a.generation, mo_id_fault(w, d->body_a.generation, "does not name a live body"));
            return MO_ERR_STALE_ID;
        }
        if (ba == bb) {
            mo_set_error(w, "joint body_a and body_b are the same body (index %u)", d->body_a.index);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    if (mo_link_body_refuse(w, (int)d->body_b.index - 1, "mo_joint_create",
                            "joints on link bodies are not supported (make the joint a link of the articulation)") ||
        (ba && mo_link_body_refuse(w, (int)d->body_a.index - 1, "mo_joint_create",
                                   "joints on link bodies are not supported (make the joint a link of the "
                                   "articulation)")))
        return MO_ERR_INVALID_ARGUMENT;
    if (bb->type != MO_BODY_DYNAMIC && (!ba || ba->type != MO_BODY_DYNAMIC)) {
        mo_set_error(w, "%s joint joins no dynamic body", joint_type_name(d->type));
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_finite3(d->anchor_a) || !mo_finite3(d->anchor_b)) {
        mo_set_error(w, "%s joint anchors must be finite", joint_type_name(d->type));
        return MO_ERR_INVALID_ARGUMENT;
    }
    double axa[3] = {d->axis_a.x, d->axis_a.y, d->axis_a.z}, axb[3] = {d->axis_b.x, d->axis_b.y, d->axis_b.z};
    bool need_axis = d->type == MO_JOINT_REVOLUTE || d->type == MO_JOINT_PRISMATIC;
    if (need_axis && (!mo_finite3(d->axis_a) || !mo_finite3(d->axis_b) || !(mo_v3_normalize(axa) > 1e-9) ||
                      !(mo_v3_normalize(axb) > 1e-9))) {
        mo_set_error(w, "%s joint axes must be finite and non-zero", joint_type_name(d->type));
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (d->enable_limit) {
        if (d->type != MO_JOINT_REVOLUTE && d->type != MO_JOINT_PRISMATIC && d->type != MO_JOINT_DISTANCE) {
            mo_set_error(w, "%s joint cannot have limits", joint_type_name(d->type));
            return MO_ERR_INVALID_ARGUMENT;
        }
        if (!(d->lower <= d->upper) || isnan(d->lower) || isnan(d->upper)) {
            mo_set_error(w, "%s joint limits need lower <= upper, got %g and %g", joint_type_name(d->type), d->lower,
                         d->upper);
            return MO_ERR_INVALID_ARGUMENT;
        }
        if (d->type == MO_JOINT_DISTANCE && d->lower < 0.0) {
            mo_set_error(w, "distance joint lower limit must be >= 0, got %g", d->lower);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    if (!check_motor(w, d)) return MO_ERR_INVALID_ARGUMENT;
    if (isnan(d->compliance) || isinf(d->compliance) || isnan(d->length) || isinf(d->length)) {
        mo_set_error(w, "%s joint compliance and length must be finite", joint_type_name(d->type));
        return MO_ERR_INVALID_ARGUMENT;
    }

    int slot = mo_pool_alloc((void **)&w->joints, sizeof(mo_joint), &w->joint_cap, &w->joint_count, &w->joint_free,
                             &w->joint_nfree);
    if (slot < 0) {
        mo_set_error(w, "mo_joint_create: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    mo_joint *j = &w->joints[slot];
    uint32_t gen = mo_gen_next(w, j->generation);
    memset(j, 0, sizeof *j);
    j->generation = gen;
    j->alive = true;
    j->type = d->type;
    j->a = ba ? (int)d->body_a.index - 1 : -1;
    j->b = (int)d->body_b.index - 1;
    mo_v3_set(j->la, d->anchor_a.x, d->anchor_a.y, d->anchor_a.z);
    mo_v3_set(j->lb, d->anchor_b.x, d->anchor_b.y, d->anchor_b.z);
    if (!need_axis) { mo_v3_set(axa, 1, 0, 0); mo_v3_set(axb, 1, 0, 0); }
    mo_v3_copy(j->axa, axa);
    mo_v3_copy(j->axb, axb);
    perp_pair(axa, j->ua, j->va);
    /* reference frames at creation */
    double xa[3], qa[4], xb[3], qb[4], qac[4], tmp[3];
    side_pose(w, j->a, xa, qa);
    side_pose(w, j->b, xb, qb);
    mo_q_conj(qac, qa);
    mo_q_mul(j->qrel0, qac, qb);
    double qbc[4], uw[3];
    mo_q_rotate(uw, qa, j->ua);
    mo_q_conj(qbc, qb);
    mo_q_rotate(j->refb, qbc, uw);
    if (d->type == MO_JOINT_DISTANCE && d->length < 0.0) {
        double pa[3], pb[3];
        mo_q_rotate(tmp, qa, j->la); mo_v3_add(pa, xa, tmp);
        mo_q_rotate(tmp, qb, j->lb); mo_v3_add(pb, xb, tmp);
        mo_v3_sub(tmp, pb, pa);
        j->length = mo_v3_norm(tmp);
    } else {
        j->length = d->length;
    }
    j->limit = d->enable_limit;
    j->lower = d->lower;
    j->upper = d->upper;
    j->motor = d->motor;
    j->target_vel = d->target_velocity;
    j->target_pos = d->target_position;
    j->kp = d->stiffness;
    j->kd = d->damping;
    j->max_force = d->max_force;
    j->compliance = d->compliance;
    j->collide_connected = d->collide_connected;
    if (ba) ba->njoints++;
    bb->njoints++;
    mo_sleep_touch(w, j->a); /* the bodies it joins wake */
    mo_sleep_touch(w, j->b);
    *out = (mo_joint_id){(uint32_t)slot + 1, gen};
    return MO_OK;
}

static mo_status stale_joint(const mo_world *w, mo_joint_id id)
{
    mo_set_error(w, "joint id (index %u, generation %u) %s", id.index,
                 id.generation, mo_id_fault(w, id.generation, "does not name a live joint"));
    return MO_ERR_STALE_ID;
}

mo_status mo_joint_destroy(mo_world *w, mo_joint_id id)
{
    MO_NEED_W(w);
    mo_joint *j = mo_joint_get(w, id);
    if (!j) return stale_joint(w, id);
    if (j->a >= 0) w->bodies[j->a].njoints--;
    w->bodies[j->b].njoints--;
    mo_sleep_touch(w, j->a); /* the bodies it joined wake (-1, the world: nothing) */
    mo_sleep_touch(w, j->b);
    j->alive = false;
    w->joint_free[w->joint_nfree++] = (int)id.index - 1;
    return MO_OK;
}

int mo_joint_row_count(const mo_joint *j)
{
    int lim = j->limit ? 2 : 0, mot = j->motor != MO_MOTOR_OFF ? 1 : 0;
    switch (j->type) {
    case MO_JOINT_FIXED: return 6;
    case MO_JOINT_SPHERICAL: return 3;
    case MO_JOINT_REVOLUTE: return 5 + lim + mot;
    case MO_JOINT_PRISMATIC: return 5 + lim + mot;
    case MO_JOINT_DISTANCE: return j->limit ? 2 : 1;
    }
    return 0;
}

/* geometry of a joint at the current poses */
typedef struct jgeo {
    double xa[3], qa[4], xb[3], qb[4];
    double pa[3], pb[3], ra[3], rb[3], d[3];
    double aA[3], aB[3], b1[3], b2[3];
} jgeo;

static void joint_geometry(const mo_world *w, const mo_joint *j, jgeo *g)
{
    side_pose(w, j->a, g->xa, g->qa);
    side_pose(w, j->b, g->xb, g->qb);
    mo_q_rotate(g->ra, g->qa, j->la);
    mo_q_rotate(g->rb, g->qb, j->lb);
    mo_v3_add(g->pa, g->xa, g->ra);
    mo_v3_add(g->pb, g->xb, g->rb);
    mo_v3_sub(g->d, g->pb, g->pa);
    mo_q_rotate(g->aA, g->qa, j->axa);
    mo_q_rotate(g->aB, g->qb, j->axb);
    mo_q_rotate(g->b1, g->qa, j->ua);
    mo_q_rotate(g->b2, g->qa, j->va);
}

/* rotation vector of qB (qA qrel0)^-1, world frame */
static void weld_error(const mo_joint *j, const jgeo *g, double *theta)
{
    double qt[4], qtc[4], qe[4];
    mo_q_mul(qt, g->qa, j->qrel0);
    mo_q_conj(qtc, qt);
    mo_q_mul(qe, g->qb, qtc);
    mo_q_to_rotvec(theta, qe);
}

static double hinge_angle(const mo_joint *j, const jgeo *g)
{
    double rbw[3], c[3];
    mo_q_rotate(rbw, g->qb, j->refb);
    mo_v3_cross(c, g->b1, rbw);
    return atan2(mo_v3_dot(c, g->aA), mo_v3_dot(g->b1, rbw));
}

static double wrap_angle(double a)
{
    while (a > MO_PI) a -= 2.0 * MO_PI;
    while (a <= -MO_PI) a += 2.0 * MO_PI;
    return a;
}

/* J . v of the sides that have no DOFs (kinematic bodies; static and world are 0) */
static double kin_term(const mo_world *w, const mo_joint *j, const mo_k_row *r)
{
    double s = 0.0;
    if (j->a >= 0 && w->bodies[j->a].owner < 0)
        s += mo_v3_dot(r->ja, w->bodies[j->a].k.v) + mo_v3_dot(r->ja + 3, w->bodies[j->a].k.w);
    if (w->bodies[j->b].owner < 0)
        s += mo_v3_dot(r->jb, w->bodies[j->b].k.v) + mo_v3_dot(r->jb + 3, w->bodies[j->b].k.w);
    return s;
}

void mo_joint_fill_rows(const mo_world *w, const mo_joint *j, double h, mo_k_row *rows, mo_row_aux *aux,
                        uint8_t *kind, double *lo, double *hi)
{
    jgeo g;
    joint_geometry(w, j, &g);
    double eps = j->compliance >= 0.0 ? j->compliance : w->def.joint_compliance;
    int oa = j->a >= 0 ? w->bodies[j->a].owner : -1, ob = w->bodies[j->b].owner;
    int n = 0;
    double ext[3]; /* pB - xA: lever arm for directions attached to A */
    mo_v3_sub(ext, g.pb, g.xa);

    /* equality rows */
#define ROW(kind_, mode_, gval)                                         \
    do {                                                                \
        rows[n].owner_a = oa; rows[n].owner_b = ob;                     \
        aux[n].mode = (mode_); aux[n].g = (gval); aux[n].eps = eps;     \
        aux[n].bconst = 0.0; kind[n] = (uint8_t)(kind_);                \
        lo[n] = -INFINITY; hi[n] = INFINITY;                            \
        n++;                                                            \
    } while (0)

    static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double s_free = 0.0; /* free coordinate for limits and motors */
    double free_dir[3] = {0, 0, 0};
    int free_angular = 0;

    switch (j->type) {
    case MO_JOINT_FIXED:
    case MO_JOINT_SPHERICAL:
    case MO_JOINT_REVOLUTE:
        for (int k = 0; k < 3; k++) {
            mo_k_point_row(&rows[n], axes[k], g.ra, g.rb);
            ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, g.d[k]);
        }
        break;
    case MO_JOINT_PRISMATIC:
        mo_k_point_row(&rows[n], g.b1, ext, g.rb);
        ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, mo_v3_dot(g.b1, g.d));
        mo_k_point_row(&rows[n], g.b2, ext, g.rb);
        ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, mo_v3_dot(g.b2, g.d));
        break;
    case MO_JOINT_DISTANCE: {
        double L = mo_v3_norm(g.d), e[3] = {1, 0, 0};
        if (L > 1e-12) mo_v3_scale(e, g.d, 1.0 / L);
        if (!j->limit) {
            mo_k_point_row(&rows[n], e, g.ra, g.rb);
            ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, L - j->length);
        } else {
            double me[3];
            mo_v3_scale(me, e, -1.0);
            mo_k_point_row(&rows[n], e, g.ra, g.rb);
            ROW(MO_BLOCK_UNILATERAL, MO_ROW_UNILATERAL, L - j->lower);
            mo_k_point_row(&rows[n], me, g.ra, g.rb);
            ROW(MO_BLOCK_UNILATERAL, MO_ROW_UNILATERAL, j->upper - L);
        }
        break;
    }
    }
    if (j->type == MO_JOINT_FIXED || j->type == MO_JOINT_PRISMATIC) {
        double th[3];
        weld_error(j, &g, th);
        for (int k = 0; k < 3; k++) {
            mo_k_angular_row(&rows[n], axes[k]);
            ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, th[k]);
        }
    }
    if (j->type == MO_JOINT_REVOLUTE) {
        double c[3];
        mo_v3_cross(c, g.aB, g.b1);
        mo_k_angular_row(&rows[n], c);
        ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, mo_v3_dot(g.aB, g.b1));
        mo_v3_cross(c, g.aB, g.b2);
        mo_k_angular_row(&rows[n], c);
        ROW(MO_BLOCK_BILATERAL, MO_ROW_SPOOK, mo_v3_dot(g.aB, g.b2));
        s_free = hinge_angle(j, &g);
        mo_v3_copy(free_dir, g.aA);
        free_angular = 1;
    }
    if (j->type == MO_JOINT_PRISMATIC) {
        s_free = mo_v3_dot(g.aA, g.d);
        mo_v3_copy(free_dir, g.aA);
    }

    /* limits and motor on the free coordinate */
    if (j->type == MO_JOINT_REVOLUTE || j->type == MO_JOINT_PRISMATIC) {
        double neg[3];
        mo_v3_scale(neg, free_dir, -1.0);
        if (j->limit) {
            if (free_angular) mo_k_angular_row(&rows[n], free_dir);
            else mo_k_point_row(&rows[n], free_dir, ext, g.rb);
            ROW(MO_BLOCK_UNILATERAL, MO_ROW_UNILATERAL, s_free - j->lower);
            if (free_angular) mo_k_angular_row(&rows[n], neg);
            else mo_k_point_row(&rows[n], neg, ext, g.rb);
            ROW(MO_BLOCK_UNILATERAL, MO_ROW_UNILATERAL, j->upper - s_free);
        }
        if (j->motor != MO_MOTOR_OFF) {
            if (free_angular) mo_k_angular_row(&rows[n], free_dir);
            else mo_k_point_row(&rows[n], free_dir, ext, g.rb);
            ROW(MO_BLOCK_BOXED, MO_ROW_DIRECT, 0.0);
            int m = n - 1;
            lo[m] = -h * j->max_force;
            hi[m] = h * j->max_force;
            if (j->motor == MO_MOTOR_VELOCITY) {
                aux[m].eps = 0.0;
                aux[m].bconst = -j->target_vel;
            } else {
                double err = s_free - j->target_pos;
                if (free_angular) err = wrap_angle(err);
                aux[m].eps = 1.0 / (h * h * j->kp + h * j->kd);
                aux[m].bconst = j->kp * err / (h * j->kp + j->kd);
            }
        }
    }
#undef ROW
    for (int k = 0; k < n; k++) aux[k].jv_kin = kin_term(w, j, &rows[k]);
}

double mo_joint_position_error(const mo_world *w, const mo_joint *j)
{
    jgeo g;
    joint_geometry(w, j, &g);
    switch (j->type) {
    case MO_JOINT_DISTANCE: {
        double L = mo_v3_norm(g.d);
        if (!j->limit) return fabs(L - j->length);
        return L < j->lower ? j->lower - L : (L > j->upper ? L - j->upper : 0.0);
    }
    case MO_JOINT_PRISMATIC: {
        double a = mo_v3_dot(g.b1, g.d), b = mo_v3_dot(g.b2, g.d);
        return sqrt(a * a + b * b);
    }
    default: return mo_v3_norm(g.d);
    }
}

mo_status mo_joint_position(const mo_world *w, mo_joint_id id, double *out)
{
    MO_NEED_W(w);
    mo_joint *j = mo_joint_get(w, id);
    if (!j) return stale_joint(w, id);
    MO_NEED(w, out, "out");
    jgeo g;
    joint_geometry(w, j, &g);
    switch (j->type) {
    case MO_JOINT_REVOLUTE: *out = hinge_angle(j, &g); return MO_OK;
    case MO_JOINT_PRISMATIC: *out = mo_v3_dot(g.aA, g.d); return MO_OK;
    case MO_JOINT_DISTANCE: *out = mo_v3_norm(g.d); return MO_OK;
    default:
        mo_set_error(w, "%s joint %u has no scalar position", joint_type_name(j->type), id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
}

mo_status mo_joint_error(const mo_world *w, mo_joint_id id, double *out)
{
    MO_NEED_W(w);
    mo_joint *j = mo_joint_get(w, id);
    if (!j) return stale_joint(w, id);
    MO_NEED(w, out, "out");
    *out = mo_joint_position_error(w, j);
    return MO_OK;
}

mo_status mo_joint_set_motor(mo_world *w, mo_joint_id id, mo_motor_mode mode, double target_velocity,
                             double target_position, double max_force)
{
    MO_NEED_W(w);
    mo_joint *j = mo_joint_get(w, id);
    if (!j) return stale_joint(w, id);
    mo_joint_def d = mo_default_joint_def();
    d.type = j->type;
    d.motor = mode;
    d.target_velocity = target_velocity;
    d.target_position = target_position;
    d.max_force = max_force;
    d.stiffness = j->kp;
    d.damping = j->kd;
    if (!check_motor(w, &d)) return MO_ERR_INVALID_ARGUMENT;
    if ((mode != MO_MOTOR_OFF) != (j->motor != MO_MOTOR_OFF)) memset(j->impulse, 0, sizeof j->impulse);
    j->motor = mode;
    j->target_vel = target_velocity;
    j->target_pos = target_position;
    j->max_force = max_force;
    mo_sleep_touch(w, j->a);
    mo_sleep_touch(w, j->b);
    return MO_OK;
}

mo_status mo_joint_reaction(const mo_world *w, mo_joint_id id, mo_vec3 *force, mo_vec3 *torque)
{
    MO_NEED_W(w);
    mo_joint *j = mo_joint_get(w, id);
    if (!j) return stale_joint(w, id);
    if (force) *force = (mo_vec3){j->react_f[0], j->react_f[1], j->react_f[2]};
    if (torque) *torque = (mo_vec3){j->react_t[0], j->react_t[1], j->react_t[2]};
    return MO_OK;
}
