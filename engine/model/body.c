/* body.c: rigid bodies and particles: creation with validation, destruction,
 * state access. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"

int mo_body_mass_from_shapes_int(mo_world *w, int slot, double mass);

mo_body *mo_body_get(const mo_world *w, mo_body_id id)
{
    if (!w || id.index == 0 || id.index > (uint32_t)w->body_count) return NULL;
    mo_body *b = &w->bodies[id.index - 1];
    if (!b->alive || b->generation != id.generation) return NULL;
    return b;
}

mo_particle *mo_particle_get(const mo_world *w, mo_particle_id id)
{
    if (!w || id.index == 0 || id.index > (uint32_t)w->particle_count) return NULL;
    mo_particle *p = &w->particles[id.index - 1];
    if (!p->alive || p->generation != id.generation) return NULL;
    return p;
}

mo_body_def mo_default_body_def(void)
{
    mo_body_def d;
    memset(&d, 0, sizeof d);
    d.type = MO_BODY_DYNAMIC;
    d.orientation = (mo_quat){1.0, 0.0, 0.0, 0.0};
    d.mass = 1.0;
    d.shape = mo_default_shape_def();
    d.gyroscopic = true;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

/* finite with every entry in [-lim, lim] */
static bool mat_within(const mo_mat3 *m, double lim)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!(fabs(m->m[i][j]) <= lim)) return false;
    return true;
}

static bool mat_zero(const mo_mat3 *m)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (m->m[i][j] != 0.0) return false;
    return true;
}

/* symmetric positive definite by Sylvester's criterion */
static bool mat_spd(const mo_mat3 *m)
{
    const double(*a)[3] = m->m;
    double s = 1e-12 * (fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]));
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (fabs(a[i][j] - a[j][i]) > s) return false;
    double d1 = a[0][0], d2 = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    double d3 = mo_m3_det(&a[0][0]);
    return d1 > 0.0 && d2 > 0.0 && d3 > 0.0;
}


/* validates a body def; on failure writes the sentence and returns 0 */
static int check_body_def(mo_world *w, const mo_body_def *d)
{
    if (d->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "body def was not initialised with mo_default_body_def()");
        return 0;
    }
    if (d->type != MO_BODY_DYNAMIC && d->type != MO_BODY_STATIC && d->type != MO_BODY_KINEMATIC) {
        mo_set_error(w, "body type %d is not a known body type", (int)d->type);
        return 0;
    }
    if (!mo_within3(d->position, MO_LENGTH_MAX)) {
        mo_set_error(w, "body position must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)",
                     MO_LENGTH_MAX, MO_LENGTH_MAX, d->position.x, d->position.y, d->position.z);
        return 0;
    }
    mo_quat q = d->orientation;
    double ql = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!isfinite(ql) || ql < 1e-9) {
        mo_set_error(w, "body orientation must be a finite non-zero quaternion, got (%g, %g, %g, %g)", q.w, q.x, q.y,
                     q.z);
        return 0;
    }
    if (!mo_within3(d->linear_velocity, MO_SPEED_MAX) || !mo_within3(d->angular_velocity, MO_SPEED_MAX)) {
        mo_set_error(w,
                     "body velocity must be finite with components in [-%g, %g] m/s and rad/s, got linear (%g, %g, "
                     "%g), angular (%g, %g, %g)",
                     MO_SPEED_MAX, MO_SPEED_MAX, d->linear_velocity.x, d->linear_velocity.y, d->linear_velocity.z,
                     d->angular_velocity.x, d->angular_velocity.y, d->angular_velocity.z);
        return 0;
    }
    if (d->type == MO_BODY_STATIC &&
        (d->linear_velocity.x != 0 || d->linear_velocity.y != 0 || d->linear_velocity.z != 0 ||
         d->angular_velocity.x != 0 || d->angular_velocity.y != 0 || d->angular_velocity.z != 0)) {
        mo_set_error(w, "static body must have zero velocity (use a kinematic body to move it)");
        return 0;
    }
    const mo_shape_def *s = &d->shape;
    if (s->type != MO_SHAPE_NONE && !mo_shape_check_def(w, s, d->type)) return 0;
    if (!(d->linear_damping >= 0.0) || !(d->angular_damping >= 0.0) || !isfinite(d->linear_damping) ||
        !isfinite(d->angular_damping)) {
        mo_set_error(w, "body damping must be finite and >= 0, got linear %g, angular %g", d->linear_damping,
                     d->angular_damping);
        return 0;
    }
    if (d->type != MO_BODY_DYNAMIC) return 1;
    if (!(d->mass >= MO_MASS_MIN && d->mass <= MO_MASS_MAX)) {
        mo_set_error(w, "body mass must be finite and in [%g, %g] kg for a dynamic body, got %g", MO_MASS_MIN,
                     MO_MASS_MAX, d->mass);
        return 0;
    }
    if (!mat_within(&d->inertia, MO_INERTIA_MAX)) {
        mo_set_error(w, "body inertia must be finite with entries in [-%g, %g] kg m^2, got a diagonal of (%g, %g, %g)",
                     MO_INERTIA_MAX, MO_INERTIA_MAX, d->inertia.m[0][0], d->inertia.m[1][1], d->inertia.m[2][2]);
        return 0;
    }
    if (mat_zero(&d->inertia)) {
        if (s->type == MO_SHAPE_NONE || s->type == MO_SHAPE_PLANE) {
            mo_set_error(w, "body inertia is zero and the body has no closed shape to compute it from");
            return 0;
        }
    } else if (!mat_spd(&d->inertia)) {
        mo_set_error(w, "body inertia must be symmetric positive definite");
        return 0;
    }
    return 1;
}

mo_status mo_body_create(mo_world *w, const mo_body_def *d, mo_body_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_body_id){0, 0};
    MO_NEED(w, d, "def");
    MO_NEED(w, out, "out");
    if (!check_body_def(w, d)) return MO_ERR_INVALID_ARGUMENT;
    int slot = mo_pool_alloc((void **)&w->bodies, sizeof(mo_body), &w->body_cap, &w->body_count, &w->body_free,
                          &w->body_nfree);
    if (slot < 0) {
        mo_set_error(w, "mo_body_create: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    mo_body *b = &w->bodies[slot];
    uint32_t gen = mo_gen_next(w, b->generation);
    memset(b, 0, sizeof *b);
    b->generation = gen;
    b->alive = true;
    b->type = d->type;
    b->owner = -1;
    mo_v3_set(b->k.x, d->position.x, d->position.y, d->position.z);
    b->k.q[0] = d->orientation.w; b->k.q[1] = d->orientation.x;
    b->k.q[2] = d->orientation.y; b->k.q[3] = d->orientation.z;
    mo_q_normalize(b->k.q);
    mo_v3_set(b->k.v, d->linear_velocity.x, d->linear_velocity.y, d->linear_velocity.z);
    mo_v3_set(b->k.w, d->angular_velocity.x, d->angular_velocity.y, d->angular_velocity.z);
    b->first_shape = -1;
    b->group = d->collision_group;
    b->k.lin_damp = d->linear_damping;
    b->k.ang_damp = d->angular_damping;
    b->k.gyroscopic = d->gyroscopic;
    /* the inline shape */
    if (d->shape.type != MO_SHAPE_NONE && mo_shape_attach(w, slot, &d->shape) < 0) {
        b->alive = false;
        w->body_free[w->body_nfree++] = slot;
        return strstr(w->err->text, "out of memory") ? MO_ERR_OUT_OF_MEMORY : MO_ERR_INVALID_ARGUMENT;
    }
    if (d->type == MO_BODY_DYNAMIC) {
        b->mass = d->mass;
        b->k.inv_mass = 1.0 / d->mass;
        if (mat_zero(&d->inertia)) {
            /* from the shape, scaled to the given mass; the body origin moves to the shape's centre
               of mass when they differ (hulls, meshes) */
            int rc = mo_body_mass_from_shapes_int(w, slot, d->mass);
            if (rc) {
                mo_shape_release(w, b->first_shape);
                b->alive = false;
                w->body_free[w->body_nfree++] = slot;
                if (rc == -2)
                    mo_set_error(w, "body inertia from its shape and mass %g kg has entries beyond [-%g, %g] kg m^2",
                                 d->mass, MO_INERTIA_MAX, MO_INERTIA_MAX);
                else
                    mo_set_error(w, "body inertia is zero and its shape has no volume to compute it from%s",
                                 d->shape.type == MO_SHAPE_MESH ? " (the mesh is not closed)" : "");
                return MO_ERR_INVALID_ARGUMENT;
            }
        } else {
            double *I = b->k.I_body;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) I[3 * i + j] = 0.5 * (d->inertia.m[i][j] + d->inertia.m[j][i]);
            mo_m3_inverse(b->k.inv_I_body, I);
        }
    }
    *out = (mo_body_id){(uint32_t)slot + 1, gen};
    return MO_OK;
}

bool mo_body_is_valid(const mo_world *w, mo_body_id id) { return mo_body_get(w, id) != NULL; }

static mo_status stale_body(const mo_world *w, mo_body_id id)
{
    mo_set_error(w, "body id (index %u, generation %u) %s", id.index,
                 id.generation, mo_id_fault(w, id.generation, "does not name a live body"));
    return MO_ERR_STALE_ID;
}

/* ---- pair exclusion: sorted keys (mo_pair_key) in w->excl_pairs ---- */

/* position of key k in the sorted keys, or -(insertion point) - 1 */
static int excl_find(const mo_world *w, uint64_t k)
{
    const uint64_t *p = (const uint64_t *)w->excl_pairs.p;
    int lo = 0, hi = w->nexcl_pairs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (p[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->nexcl_pairs && p[lo] == k ? lo : -lo - 1;
}

int mo_pair_excluded(const mo_world *w, int a, int b)
{
    return w->nexcl_pairs > 0 && w->bodies[a].nexcl > 0 && w->bodies[b].nexcl > 0 &&
           excl_find(w, mo_pair_key(a, b)) >= 0;
}

/* drops every excluded pair of body slot s (the body is being destroyed) */
static void excl_drop_body(mo_world *w, int s)
{
    uint64_t *p = (uint64_t *)w->excl_pairs.p;
    int n = 0;
    for (int i = 0; i < w->nexcl_pairs; i++) {
        int a = (int)(p[i] >> 32), b = (int)(uint32_t)p[i];
        if (a == s || b == s) w->bodies[a == s ? b : a].nexcl--;
        else p[n++] = p[i];
    }
    w->nexcl_pairs = n;
    w->bodies[s].nexcl = 0;
}

/* the body of a pair argument, or NULL with the sentence "<fn>: body <which> (index i, generation g) ..." */
static mo_body *pair_body(const mo_world *w, mo_body_id id, const char *fn, const char *which)
{
    mo_body *b = mo_body_get(w, id);
    if (!b)
        mo_set_error(w, "%s: body %s (index %u, generation %u) %s", fn, which, id.index, id.generation,
                     mo_id_fault(w, id.generation, "does not name a live body"));
    return b;
}

static int pair_bodies(const mo_world *w, mo_body_id a, mo_body_id b, const char *fn)
{
    if (!pair_body(w, a, fn, "a") || !pair_body(w, b, fn, "b")) return 0;
    if (a.index == b.index) {
        mo_set_error(w, "%s: body a and body b are the same body (index %u): a body's own shapes never collide", fn,
                     a.index);
        return 0;
    }
    return 1;
}

mo_status mo_world_set_pair_collision(mo_world *w, mo_body_id a, mo_body_id b, bool enabled)
{
    MO_NEED_W(w);
    if (!pair_bodies(w, a, b, __func__)) return mo_body_get(w, a) && mo_body_get(w, b) ? MO_ERR_INVALID_ARGUMENT
                                                                                       : MO_ERR_STALE_ID;
    int sa = (int)a.index - 1, sb = (int)b.index - 1;
    uint64_t k = mo_pair_key(sa, sb);
    int i = excl_find(w, k);
    uint64_t *p = (uint64_t *)w->excl_pairs.p;
    if (!enabled && i < 0) {
        if (mo_buf_reserve(&w->excl_pairs, (size_t)(w->nexcl_pairs + 1) * sizeof(uint64_t))) {
            mo_set_error(w, "%s: out of memory", __func__);
            return MO_ERR_OUT_OF_MEMORY;
        }
        p = (uint64_t *)w->excl_pairs.p;
        i = -i - 1;
        memmove(p + i + 1, p + i, (size_t)(w->nexcl_pairs - i) * sizeof *p);
        p[i] = k;
        w->nexcl_pairs++;
        w->bodies[sa].nexcl++;
        w->bodies[sb].nexcl++;
    } else if (enabled && i >= 0) {
        memmove(p + i, p + i + 1, (size_t)(w->nexcl_pairs - i - 1) * sizeof *p);
        w->nexcl_pairs--;
        w->bodies[sa].nexcl--;
        w->bodies[sb].nexcl--;
    }
    mo_sleep_touch(w, sa); /* a pair that may collide again can overlap now */
    mo_sleep_touch(w, sb);
    return MO_OK;
}

mo_status mo_world_pair_collision(const mo_world *w, mo_body_id a, mo_body_id b, bool *enabled)
{
    MO_NEED_W(w);
    if (!pair_bodies(w, a, b, __func__)) return mo_body_get(w, a) && mo_body_get(w, b) ? MO_ERR_INVALID_ARGUMENT
                                                                                       : MO_ERR_STALE_ID;
    MO_NEED(w, enabled, "enabled");
    *enabled = !mo_pair_excluded(w, (int)a.index - 1, (int)b.index - 1);
    return MO_OK;
}

int mo_world_excluded_pairs(const mo_world *w, mo_body_id *a, mo_body_id *b, int cap)
{
    if (!w) return 0;
    const uint64_t *p = (const uint64_t *)w->excl_pairs.p;
    for (int i = 0; i < w->nexcl_pairs && i < cap; i++) {
        int x = (int)(p[i] >> 32), y = (int)(uint32_t)p[i];
        if (a) a[i] = (mo_body_id){(uint32_t)x + 1, w->bodies[x].generation};
        if (b) b[i] = (mo_body_id){(uint32_t)y + 1, w->bodies[y].generation};
    }
    return w->nexcl_pairs;
}

#define GET_BODY(w, id)                               \
    MO_NEED_W(w);                                     \
    mo_body *b = mo_body_get((w), (id));              \
    if (!b) return stale_body((w), (id))

mo_status mo_body_destroy(mo_world *w, mo_body_id id)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    int slot = (int)id.index - 1;
    if (mo_link_body_refuse(w, slot, __func__, "it goes with its articulation (mo_articulation_destroy)"))
        return MO_ERR_INVALID_ARGUMENT;
    /* its island wakes (a static or kinematic body: every island, the bodies it held may rest on it) */
    if (b->type == MO_BODY_DYNAMIC) mo_sleep_wake_island(w, slot);
    else mo_sleep_wake_all(w);
    /* joints attached go with the body */
    for (int i = 0; i < w->joint_count && b->njoints > 0; i++) {
        mo_joint *j = &w->joints[i];
        if (j->alive && (j->a == slot || j->b == slot))
            mo_joint_destroy(w, (mo_joint_id){(uint32_t)i + 1, j->generation});
    }
    while (b->first_shape >= 0) mo_shape_release(w, b->first_shape);
    if (b->nexcl > 0) excl_drop_body(w, slot);
    b->alive = false;
    w->body_free[w->body_nfree++] = slot;
    return MO_OK;
}

mo_status mo_body_position(const mo_world *w, mo_body_id id, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_vec3){b->k.x[0], b->k.x[1], b->k.x[2]};
    return MO_OK;
}

mo_status mo_body_collision_group(const mo_world *w, mo_body_id id, uint32_t *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    *out = b->group;
    return MO_OK;
}

int mo_world_bodies(const mo_world *w, mo_body_id *out, int cap)
{
    if (!w) return 0;
    int n = 0;
    for (int i = 0; i < w->body_count; i++) {
        const mo_body *b = &w->bodies[i];
        if (!b->alive) continue;
        if (out && n < cap) out[n] = (mo_body_id){(uint32_t)i + 1, b->generation};
        n++;
    }
    return n;
}

mo_status mo_body_orientation(const mo_world *w, mo_body_id id, mo_quat *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_quat){b->k.q[0], b->k.q[1], b->k.q[2], b->k.q[3]};
    return MO_OK;
}

mo_status mo_body_linear_velocity(const mo_world *w, mo_body_id id, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_vec3){b->k.v[0], b->k.v[1], b->k.v[2]};
    return MO_OK;
}

mo_status mo_body_angular_velocity(const mo_world *w, mo_body_id id, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_vec3){b->k.w[0], b->k.w[1], b->k.w[2]};
    return MO_OK;
}

mo_status mo_body_mass(const mo_world *w, mo_body_id id, double *mass, mo_mat3 *inertia)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    if (mass) *mass = b->mass;
    if (inertia)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) inertia->m[i][j] = b->k.I_body[3 * i + j];
    return MO_OK;
}

mo_status mo_body_set_pose(mo_world *w, mo_body_id id, mo_vec3 p, mo_quat q)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    if (mo_link_body_refuse(w, (int)id.index - 1, __func__, "it moves with its link (mo_articulation_set_q)"))
        return MO_ERR_INVALID_ARGUMENT;
    double ql = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!mo_within3(p, MO_LENGTH_MAX)) {
        mo_set_error(w, "body %u position must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", id.index,
                     MO_LENGTH_MAX, MO_LENGTH_MAX, p.x, p.y, p.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(ql) || ql < 1e-9) {
        mo_set_error(w, "body %u orientation must be a finite non-zero quaternion, got (%g, %g, %g, %g)", id.index,
                     q.w, q.x, q.y, q.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_v3_set(b->k.x, p.x, p.y, p.z);
    b->k.q[0] = q.w / ql; b->k.q[1] = q.x / ql; b->k.q[2] = q.y / ql; b->k.q[3] = q.z / ql;
    w->q_synced = 0; /* the world queries re-sync their trees */
    /* a dynamic body wakes what it touches now; a static or kinematic one every island too (what rested on it
     * where it was) */
    if (b->type != MO_BODY_DYNAMIC) mo_sleep_wake_all(w);
    mo_sleep_touch(w, (int)id.index - 1);
    return MO_OK;
}

mo_status mo_body_set_velocity(mo_world *w, mo_body_id id, mo_vec3 v, mo_vec3 om)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    if (mo_link_body_refuse(w, (int)id.index - 1, __func__, "it moves with its link (mo_articulation_set_qdot)"))
        return MO_ERR_INVALID_ARGUMENT;
    if (!mo_within3(v, MO_SPEED_MAX) || !mo_within3(om, MO_SPEED_MAX)) {
        mo_set_error(w,
                     "body %u velocity must be finite with components in [-%g, %g] m/s and rad/s, got linear (%g, "
                     "%g, %g), angular (%g, %g, %g)",
                     id.index, MO_SPEED_MAX, MO_SPEED_MAX, v.x, v.y, v.z, om.x, om.y, om.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (b->type == MO_BODY_STATIC) {
        mo_set_error(w, "body %u is static: its velocity cannot be set", id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_v3_set(b->k.v, v.x, v.y, v.z);
    mo_v3_set(b->k.w, om.x, om.y, om.z);
    mo_sleep_touch(w, (int)id.index - 1);
    return MO_OK;
}

mo_status mo_body_apply_force(mo_world *w, mo_body_id id, mo_vec3 f, mo_vec3 t)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    if (!mo_within3(f, MO_FORCE_MAX) || !mo_within3(t, MO_FORCE_MAX)) {
        mo_set_error(w,
                     "body %u force must be finite with components in [-%g, %g] N and N m, got force (%g, %g, %g), "
                     "torque (%g, %g, %g)",
                     id.index, MO_FORCE_MAX, MO_FORCE_MAX, f.x, f.y, f.z, t.x, t.y, t.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    b->k.f[0] += f.x; b->k.f[1] += f.y; b->k.f[2] += f.z;
    b->k.tau[0] += t.x; b->k.tau[1] += t.y; b->k.tau[2] += t.z;
    mo_sleep_touch(w, (int)id.index - 1);
    return MO_OK;
}

mo_status mo_body_apply_force_at(mo_world *w, mo_body_id id, mo_vec3 f, mo_vec3 p)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    if (!mo_within3(p, MO_LENGTH_MAX)) {
        mo_set_error(w, "body %u application point must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)",
                     id.index, MO_LENGTH_MAX, MO_LENGTH_MAX, p.x, p.y, p.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_within3(f, MO_FORCE_MAX)) return mo_body_apply_force(w, id, f, (mo_vec3){0, 0, 0}); /* its sentence */
    double r[3] = {p.x - b->k.x[0], p.y - b->k.x[1], p.z - b->k.x[2]}, ff[3] = {f.x, f.y, f.z}, t[3];
    mo_v3_cross(t, r, ff);
    return mo_body_apply_force(w, id, f, (mo_vec3){t[0], t[1], t[2]});
}

mo_status mo_body_world_point(const mo_world *w, mo_body_id id, mo_vec3 local, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    if (!mo_within3(local, MO_LENGTH_MAX)) {
        mo_set_error(w, "%s: local point must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", __func__,
                     MO_LENGTH_MAX, MO_LENGTH_MAX, local.x, local.y, local.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    double l[3] = {local.x, local.y, local.z}, r[3];
    mo_q_rotate(r, b->k.q, l);
    *out = (mo_vec3){b->k.x[0] + r[0], b->k.x[1] + r[1], b->k.x[2] + r[2]};
    return MO_OK;
}

mo_status mo_body_kinetic_energy(const mo_world *w, mo_body_id id, double *out)
{
    MO_NEED_W(w);
    GET_BODY(w, id);
    MO_NEED(w, out, "out");
    if (b->type != MO_BODY_DYNAMIC) {
        *out = 0.0;
        return MO_OK;
    }
    double R[9], wb[3], Iw[3];
    mo_q_to_m3(R, b->k.q);
    mo_m3_tmulv(wb, R, b->k.w);
    mo_m3_mulv(Iw, b->k.I_body, wb);
    *out = 0.5 * b->mass * mo_v3_dot(b->k.v, b->k.v) + 0.5 * mo_v3_dot(wb, Iw);
    return MO_OK;
}

/* ---- particles ---- */

mo_particle_def mo_default_particle_def(void)
{
    mo_particle_def d;
    memset(&d, 0, sizeof d);
    d.mass = 1.0;
    d.friction = 0.5;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

mo_status mo_particle_create(mo_world *w, const mo_particle_def *d, mo_particle_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_particle_id){0, 0};
    MO_NEED(w, d, "def");
    MO_NEED(w, out, "out");
    if (d->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "particle def was not initialised with mo_default_particle_def()");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_within3(d->position, MO_LENGTH_MAX)) {
        mo_set_error(w, "particle position must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)",
                     MO_LENGTH_MAX, MO_LENGTH_MAX, d->position.x, d->position.y, d->position.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_within3(d->velocity, MO_SPEED_MAX)) {
        mo_set_error(w, "particle velocity must be finite with components in [-%g, %g] m/s, got (%g, %g, %g)",
                     MO_SPEED_MAX, MO_SPEED_MAX, d->velocity.x, d->velocity.y, d->velocity.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!(d->mass >= MO_MASS_MIN && d->mass <= MO_MASS_MAX)) {
        mo_set_error(w, "particle mass must be finite and in [%g, %g] kg, got %g", MO_MASS_MIN, MO_MASS_MAX, d->mass);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!(d->radius >= 0.0) || !isfinite(d->radius) || !(d->friction >= 0.0) || !isfinite(d->friction)) {
        mo_set_error(w, "particle radius and friction must be finite and >= 0, got %g and %g", d->radius, d->friction);
        return MO_ERR_INVALID_ARGUMENT;
    }
    int slot = mo_pool_alloc((void **)&w->particles, sizeof(mo_particle), &w->particle_cap, &w->particle_count,
                          &w->particle_free, &w->particle_nfree);
    if (slot < 0) {
        mo_set_error(w, "mo_particle_create: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    mo_particle *p = &w->particles[slot];
    uint32_t gen = mo_gen_next(w, p->generation);
    memset(p, 0, sizeof *p);
    p->generation = gen;
    p->alive = true;
    mo_v3_set(p->x, d->position.x, d->position.y, d->position.z);
    mo_v3_set(p->v, d->velocity.x, d->velocity.y, d->velocity.z);
    p->mass = d->mass;
    p->inv_mass = 1.0 / d->mass;
    p->radius = d->radius;
    p->friction = d->friction;
    p->owner = -1;
    *out = (mo_particle_id){(uint32_t)slot + 1, gen};
    return MO_OK;
}

static mo_status stale_particle(const mo_world *w, mo_particle_id id)
{
    mo_set_error(w, "particle id (index %u, generation %u) %s", id.index,
                 id.generation, mo_id_fault(w, id.generation, "does not name a live particle"));
    return MO_ERR_STALE_ID;
}

#define GET_PARTICLE(w, id)                                \
    MO_NEED_W(w);                                          \
    mo_particle *p = mo_particle_get((w), (id));           \
    if (!p) return stale_particle((w), (id))

mo_status mo_particle_destroy(mo_world *w, mo_particle_id id)
{
    MO_NEED_W(w);
    GET_PARTICLE(w, id);
    if (p->fem_mesh) { /* issue 7: a node of an FEM mesh */
        mo_set_error(w, "particle %u is a node of an FEM mesh: destroy the mesh instead", id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
    p->alive = false;
    w->particle_free[w->particle_nfree++] = (int)id.index - 1;
    return MO_OK;
}

mo_status mo_particle_position(const mo_world *w, mo_particle_id id, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_PARTICLE(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_vec3){p->x[0], p->x[1], p->x[2]};
    return MO_OK;
}

mo_status mo_particle_velocity(const mo_world *w, mo_particle_id id, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_PARTICLE(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_vec3){p->v[0], p->v[1], p->v[2]};
    return MO_OK;
}

mo_status mo_particle_set_velocity(mo_world *w, mo_particle_id id, mo_vec3 v)
{
    MO_NEED_W(w);
    GET_PARTICLE(w, id);
    if (!mo_within3(v, MO_SPEED_MAX)) {
        mo_set_error(w, "particle %u velocity must be finite with components in [-%g, %g] m/s, got (%g, %g, %g)",
                     id.index, MO_SPEED_MAX, MO_SPEED_MAX, v.x, v.y, v.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_v3_set(p->v, v.x, v.y, v.z);
    return MO_OK;
}

mo_status mo_particle_apply_force(mo_world *w, mo_particle_id id, mo_vec3 f)
{
    MO_NEED_W(w);
    GET_PARTICLE(w, id);
    if (!mo_within3(f, MO_FORCE_MAX)) {
        mo_set_error(w, "particle %u force must be finite with components in [-%g, %g] N, got (%g, %g, %g)", id.index,
                     MO_FORCE_MAX, MO_FORCE_MAX, f.x, f.y, f.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    p->f[0] += f.x; p->f[1] += f.y; p->f[2] += f.z;
    return MO_OK;
}
