/* fuzz_api.c: the C API (moreau/moreau.h) driven by a byte stream.
 *
 * Each input is a program: one byte picks an operation, the following bytes
 * its arguments (an exhausted input reads as zeros). Operations create and
 * destroy bodies (every shape type), shapes, joints (every type, limits,
 * motors) and particles; set poses, velocities, forces, gravity, the time
 * step, substeps, the solver and settings by name; step; query (getters, ray
 * casts, box queries, contacts); and call every id-taking function on ids that
 * were destroyed. The program runs twice, in two fresh worlds, and both must
 * end in the same state hash.
 *
 * Values are small and finite (coordinates in [-8, 8], sizes in (0, 8]) but
 * include the invalid-but-ordinary ones the API documents refusals for: zero
 * quaternions, zero or negative sizes and masses, moving static bodies, planes
 * on dynamic bodies, joints without a dynamic body, lower > upper, a time step
 * of 0, out-of-range substeps and settings, coplanar hull points.
 *
 * Promises checked (all hold for the current code on such input):
 *  P1 every status is a mo_status value (MO_OK .. MO_ERR_IO);
 *  P2 a call with the id of a destroyed body, shape, joint or particle returns
 *     MO_ERR_STALE_ID (mutators and getters alike), and mo_*_is_valid is false;
 *  P3 a failing call leaves mo_world_state_hash unchanged (the world is
 *     unchanged), and a failing create hands back the null id;
 *  P4 a successful create hands back a live id; destroying a body makes its
 *     shapes and joints stale;
 *  P5 mo_world_bodies / mo_world_shapes count the live objects tracked here;
 *  P6 mo_world_step returns MO_OK (or MO_ERR_NOT_FINITE with the world as it
 *     was), and after MO_OK every live body's velocity is finite and the step statistics
 *     count the live bodies, particles and joints;
 *  P7 getters on live ids return MO_OK; mo_body_set_pose reads back the
 *     position it set, bit for bit;
 *  P8 mo_world_query_aabb returns at most the live shapes and only live ids;
 *  P9 the same program gives the same state hash in a second world
 *     (determinism).
 *
 *  P10 NULL outputs and a NULL def are MO_ERR_INVALID_ARGUMENT with the
 *      "<function>: out must not be NULL" sentence; a NULL world is refused;
 *  P11 an id of another world is MO_ERR_STALE_ID ("belongs to another world");
 *  P12 values beyond the limits (NaN, +-inf, 1e300 from coord() and size_v())
 *      are refused with the world unchanged (P3), time steps and thread counts
 *      outside their ranges too; a step that makes a non-finite value returns
 *      MO_ERR_NOT_FINITE with the world rolled back (P6).
 *  P13 after a step: every contact's world force is finite, its normal and tangents
 *      orthonormal, and every live body's summed contact force and torque finite.
 *  P14 (after the program, reading no bytes) mo_world_set_pair_collision between
 *      two live bodies reads back through mo_world_pair_collision (either order)
 *      and is undone; a body with itself is refused with the world unchanged;
 *      mo_world_excluded_pairs lists live bodies only.
 *
 * Not fed: out-of-range enum values and negative caps are covered by
 * tests/test_misuse.c only.
 */
#include <math.h>
#include <string.h>

#include <moreau/moreau.h>

#include "fuzz_util.h"

#define MAX_OBJ 24   /* live bodies / shapes / joints / particles at most: keeps a step cheap */
#define MAX_OPS 128  /* operations per run */
#define MAX_STEPS 12 /* mo_world_step calls per run (the final one not counted) */

typedef struct reader {
    const uint8_t *d;
    size_t n, i;
} reader;

static unsigned u8(reader *r) { return r->i < r->n ? r->d[r->i++] : 0u; }
/* a coordinate in [-8, 8) in steps of 1/16, except three byte values that give what the API's limits refuse:
   -128 NaN, 127 1e300, -127 -infinity */
static double coord(reader *r)
{
    int b = (int8_t)u8(r);
    if (b == -128) return NAN;
    if (b == 127) return 1e300;
    if (b == -127) return -INFINITY;
    return (double)b / 16.0;
}
/* a size in (0, 8], or (one value in 16) 0 or -1: refused */
static double size_v(reader *r)
{
    unsigned b = u8(r);
    if (b == 0) return 0.0;
    if (b == 1) return -1.0;
    if (b == 255) return 1e300; /* beyond every MO_*_MAX */
    return (double)b / 32.0;
}
static mo_vec3 vec(reader *r)
{
    mo_vec3 v;
    v.x = coord(r);
    v.y = coord(r);
    v.z = coord(r);
    return v;
}
/* finite with every component in [-lim, lim] (moreau.h's limits) */
static bool within(mo_vec3 v, double lim)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z) && fabs(v.x) <= lim && fabs(v.y) <= lim && fabs(v.z) <= lim;
}
static mo_quat quat(reader *r)
{
    mo_quat q;
    q.w = coord(r);
    q.x = coord(r);
    q.y = coord(r);
    q.z = coord(r);
    return q; /* may be zero: refused */
}

/* the objects of one run, live and destroyed */
typedef struct obj {
    uint32_t index, generation;
    int body;      /* shapes: index into bodies[] of the owner (its id kept below); joints: -1 */
    mo_body_id a, b; /* shapes: a = owner; joints: the two bodies */
} obj;
typedef struct pool {
    obj live[MAX_OBJ];
    int nlive;
    obj dead[MAX_OBJ];
    int ndead;
} pool;

typedef struct run {
    mo_world *w;
    mo_world *other;        /* another world: its ids are foreign to w */
    mo_body_id other_body;
    reader r;
    pool bodies, shapes, joints, particles;
    int steps;
} run;

static void pool_add(pool *p, obj o)
{
    if (p->nlive < MAX_OBJ) p->live[p->nlive++] = o;
}
static void pool_kill(pool *p, int i)
{
    obj o = p->live[i];
    p->live[i] = p->live[--p->nlive];
    if (p->ndead < MAX_OBJ)
        p->dead[p->ndead++] = o;
    else
        p->dead[i % MAX_OBJ] = o;
}

static mo_body_id bid(const obj *o) { return (mo_body_id){o->index, o->generation}; }
static mo_shape_id sid(const obj *o) { return (mo_shape_id){o->index, o->generation}; }
static mo_joint_id jid(const obj *o) { return (mo_joint_id){o->index, o->generation}; }
static mo_particle_id pid(const obj *o) { return (mo_particle_id){o->index, o->generation}; }
static bool same_body(mo_body_id x, mo_body_id y) { return x.index == y.index && x.generation == y.generation; }

#define STATUS_OK(s) ((s) >= MO_OK && (s) <= MO_ERR_IO) /* P1 */

/* a failing call: P1 and P3 */
static void failed_unchanged(run *R, mo_status s, uint64_t h0)
{
    FUZZ_CHECK(STATUS_OK(s));
    if (s != MO_OK) FUZZ_CHECK(mo_world_state_hash(R->w) == h0);
}

/* a closed tetrahedron, a mesh shape's data */
static const mo_vec3 tet_v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const int tet_i[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

/* a shape def of a type picked by the input */
static mo_shape_def shape_def(reader *r, mo_vec3 *pts)
{
    mo_shape_def s = mo_default_shape_def();
    static const mo_shape_type types[] = {MO_SHAPE_SPHERE, MO_SHAPE_BOX, MO_SHAPE_CAPSULE, MO_SHAPE_CYLINDER,
                                          MO_SHAPE_CONVEX_HULL, MO_SHAPE_PLANE, MO_SHAPE_MESH};
    s.type = types[u8(r) % 7];
    s.radius = size_v(r);
    s.half_height = size_v(r);
    s.half_extents = (mo_vec3){size_v(r), size_v(r), size_v(r)};
    s.friction = (double)u8(r) / 128.0;
    s.margin = (double)(u8(r) % 4) / 100.0;
    if (u8(r) & 1) {
        s.position = vec(r);
        s.orientation = quat(r);
    }
    if (s.type == MO_SHAPE_CONVEX_HULL) {
        int n = 4 + (int)(u8(r) % 5);
        for (int i = 0; i < n; i++) pts[i] = vec(r);
        s.points = pts;
        s.point_count = n;
    } else if (s.type == MO_SHAPE_MESH) {
        s.vertices = tet_v;
        s.vertex_count = 4;
        s.indices = tet_i;
        s.triangle_count = 4;
    }
    return s;
}

static void op_body_create(run *R)
{
    reader *r = &R->r;
    mo_vec3 pts[8];
    mo_body_def d = mo_default_body_def();
    d.type = (mo_body_type)(u8(r) % 3);
    d.position = vec(r);
    if (u8(r) & 1) d.orientation = quat(r);
    if (d.type != MO_BODY_STATIC || (u8(r) & 7) == 0) { /* a moving static body now and then: refused */
        d.linear_velocity = vec(r);
        d.angular_velocity = vec(r);
    }
    d.mass = size_v(r);
    if (u8(r) & 1) d.shape = shape_def(r, pts);
    else if ((u8(r) & 3) == 0) d.inertia = (mo_mat3){{{0.1, 0, 0}, {0, 0.1, 0}, {0, 0, 0.1}}};
    d.linear_damping = (double)(u8(r) % 4) / 4.0;
    d.collision_group = u8(r) % 3;
    uint64_t h0 = mo_world_state_hash(R->w);
    mo_body_id id = {7, 7};
    mo_status s = mo_body_create(R->w, &d, &id);
    failed_unchanged(R, s, h0);
    if (s != MO_OK) {
        FUZZ_CHECK(mo_body_id_is_null(id));
        return;
    }
    FUZZ_CHECK(mo_body_is_valid(R->w, id)); /* P4 */
    obj o = {id.index, id.generation, -1, id, {0, 0}};
    if (R->bodies.nlive < MAX_OBJ) {
        pool_add(&R->bodies, o); /* its inline shape is adopted by adopt_shapes */
    } else {
        FUZZ_CHECK(mo_body_destroy(R->w, id) == MO_OK); /* over the cap: keep the world small */
    }
}

/* every live shape of the world not yet in the shapes pool (inline shapes of bodies) added to it */
static void adopt_shapes(run *R)
{
    mo_shape_id ids[4 * MAX_OBJ];
    int n = mo_world_shapes(R->w, ids, 4 * MAX_OBJ);
    FUZZ_CHECK(n >= 0 && n <= 4 * MAX_OBJ);
    for (int i = 0; i < n; i++) {
        bool known = false;
        for (int k = 0; k < R->shapes.nlive && !known; k++)
            known = R->shapes.live[k].index == ids[i].index && R->shapes.live[k].generation == ids[i].generation;
        if (known) continue;
        mo_body_id owner;
        FUZZ_CHECK(mo_shape_body(R->w, ids[i], &owner) == MO_OK);
        obj o = {ids[i].index, ids[i].generation, -1, owner, {0, 0}};
        pool_add(&R->shapes, o);
    }
}

static void op_body_destroy(run *R)
{
    if (R->bodies.nlive == 0) return;
    int i = (int)(u8(&R->r) % (unsigned)R->bodies.nlive);
    mo_body_id id = bid(&R->bodies.live[i]);
    adopt_shapes(R);
    FUZZ_CHECK(mo_body_destroy(R->w, id) == MO_OK);
    FUZZ_CHECK(!mo_body_is_valid(R->w, id));
    pool_kill(&R->bodies, i);
    /* P4: its shapes and joints are stale now */
    for (int k = R->shapes.nlive - 1; k >= 0; k--)
        if (same_body(R->shapes.live[k].a, id)) {
            FUZZ_CHECK(!mo_shape_is_valid(R->w, sid(&R->shapes.live[k])));
            pool_kill(&R->shapes, k);
        }
    for (int k = R->joints.nlive - 1; k >= 0; k--)
        if (same_body(R->joints.live[k].a, id) || same_body(R->joints.live[k].b, id)) {
            FUZZ_CHECK(!mo_joint_is_valid(R->w, jid(&R->joints.live[k])));
            pool_kill(&R->joints, k);
        }
}

static void op_shape(run *R)
{
    reader *r = &R->r;
    unsigned what = u8(r) % 3;
    if (what == 0 && R->bodies.nlive > 0 && R->shapes.nlive < MAX_OBJ) {
        mo_vec3 pts[8];
        obj *b = &R->bodies.live[u8(r) % (unsigned)R->bodies.nlive];
        mo_shape_def d = shape_def(r, pts);
        d.density = size_v(r);
        uint64_t h0 = mo_world_state_hash(R->w);
        mo_shape_id id = {7, 7};
        mo_status s = mo_shape_create(R->w, bid(b), &d, &id);
        failed_unchanged(R, s, h0);
        if (s == MO_OK) {
            FUZZ_CHECK(mo_shape_is_valid(R->w, id));
            mo_body_id owner;
            FUZZ_CHECK(mo_shape_body(R->w, id, &owner) == MO_OK && same_body(owner, bid(b)));
            obj o = {id.index, id.generation, -1, bid(b), {0, 0}};
            pool_add(&R->shapes, o);
        } else {
            FUZZ_CHECK(mo_shape_id_is_null(id));
        }
    } else if (what == 1) {
        adopt_shapes(R);
        if (R->shapes.nlive == 0) return;
        int i = (int)(u8(r) % (unsigned)R->shapes.nlive);
        FUZZ_CHECK(mo_shape_destroy(R->w, sid(&R->shapes.live[i])) == MO_OK);
        FUZZ_CHECK(!mo_shape_is_valid(R->w, sid(&R->shapes.live[i])));
        pool_kill(&R->shapes, i);
    } else if (R->bodies.nlive > 0) {
        obj *b = &R->bodies.live[u8(r) % (unsigned)R->bodies.nlive];
        uint64_t h0 = mo_world_state_hash(R->w);
        mo_status s = mo_body_set_mass_from_shapes(R->w, bid(b));
        FUZZ_CHECK(s == MO_OK || s == MO_ERR_INVALID_ARGUMENT);
        failed_unchanged(R, s, h0);
    }
}

static mo_body_id pick_body(run *R, bool world_ok)
{
    unsigned b = u8(&R->r);
    if (world_ok && (b & 7) == 0) return (mo_body_id){0, 0};
    if (R->bodies.nlive == 0) return (mo_body_id){0, 0};
    return bid(&R->bodies.live[b % (unsigned)R->bodies.nlive]);
}

static void op_joint(run *R)
{
    reader *r = &R->r;
    if ((u8(r) & 3) == 0) { /* destroy */
        if (R->joints.nlive == 0) return;
        int i = (int)(u8(r) % (unsigned)R->joints.nlive);
        FUZZ_CHECK(mo_joint_destroy(R->w, jid(&R->joints.live[i])) == MO_OK);
        FUZZ_CHECK(!mo_joint_is_valid(R->w, jid(&R->joints.live[i])));
        pool_kill(&R->joints, i);
        return;
    }
    if (R->bodies.nlive == 0 || R->joints.nlive >= MAX_OBJ) return;
    mo_joint_def d = mo_default_joint_def();
    d.type = (mo_joint_type)(u8(r) % 5);
    d.body_a = pick_body(R, true);
    d.body_b = pick_body(R, false);
    d.anchor_a = vec(r);
    d.anchor_b = vec(r);
    if (u8(r) & 1) {
        d.axis_a = vec(r); /* may be zero: refused */
        d.axis_b = vec(r);
    }
    if (u8(r) & 1) d.length = size_v(r);
    if (u8(r) & 1) {
        d.enable_limit = true;
        d.lower = coord(r) / 2;
        d.upper = coord(r) / 2;
    }
    unsigned m = u8(r) % 3;
    if (m) {
        d.motor = (mo_motor_mode)m;
        d.target_velocity = coord(r);
        d.target_position = coord(r) / 4;
        d.stiffness = size_v(r) * 10;
        d.damping = size_v(r);
        d.max_force = size_v(r) * 100;
    }
    if (u8(r) & 1) d.compliance = (double)(u8(r) % 4) * 1e-4;
    d.collide_connected = (u8(r) & 1) != 0;
    uint64_t h0 = mo_world_state_hash(R->w);
    mo_joint_id id = {7, 7};
    mo_status s = mo_joint_create(R->w, &d, &id);
    failed_unchanged(R, s, h0);
    if (s != MO_OK) {
        FUZZ_CHECK(mo_joint_id_is_null(id));
        return;
    }
    FUZZ_CHECK(mo_joint_is_valid(R->w, id));
    obj o = {id.index, id.generation, -1, d.body_a, d.body_b};
    pool_add(&R->joints, o);
}

static void op_particle(run *R)
{
    reader *r = &R->r;
    if ((u8(r) & 3) == 0) {
        if (R->particles.nlive == 0) return;
        int i = (int)(u8(r) % (unsigned)R->particles.nlive);
        FUZZ_CHECK(mo_particle_destroy(R->w, pid(&R->particles.live[i])) == MO_OK);
        pool_kill(&R->particles, i);
        return;
    }
    if (R->particles.nlive >= MAX_OBJ) return;
    mo_particle_def d = mo_default_particle_def();
    d.position = vec(r);
    d.velocity = vec(r);
    d.mass = size_v(r);
    d.radius = (double)(u8(r) % 8) / 16.0;
    uint64_t h0 = mo_world_state_hash(R->w);
    mo_particle_id id = {7, 7};
    mo_status s = mo_particle_create(R->w, &d, &id);
    failed_unchanged(R, s, h0);
    if (s != MO_OK) {
        FUZZ_CHECK(mo_particle_id_is_null(id));
        return;
    }
    mo_vec3 p;
    FUZZ_CHECK(mo_particle_position(R->w, id, &p) == MO_OK);
    obj o = {id.index, id.generation, -1, {0, 0}, {0, 0}};
    pool_add(&R->particles, o);
}

/* setters and getters on a live body (P3, P7) */
static void op_body_state(run *R)
{
    reader *r = &R->r;
    if (R->bodies.nlive == 0) return;
    mo_body_id id = bid(&R->bodies.live[u8(r) % (unsigned)R->bodies.nlive]);
    uint64_t h0 = mo_world_state_hash(R->w);
    mo_status s;
    switch (u8(r) % 5) {
    case 0: {
        mo_vec3 p = vec(r), back;
        s = mo_body_set_pose(R->w, id, p, quat(r));
        failed_unchanged(R, s, h0);
        if (s == MO_OK) {
            FUZZ_CHECK(mo_body_position(R->w, id, &back) == MO_OK);
            FUZZ_CHECK(memcmp(&back, &p, sizeof p) == 0);
        }
        break;
    }
    case 1:
        s = mo_body_set_velocity(R->w, id, vec(r), vec(r));
        failed_unchanged(R, s, h0);
        break;
    case 2: {
        mo_vec3 f = vec(r), t = vec(r);
        s = mo_body_apply_force(R->w, id, f, t);
        FUZZ_CHECK(s == (within(f, MO_FORCE_MAX) && within(t, MO_FORCE_MAX) ? MO_OK : MO_ERR_INVALID_ARGUMENT));
        failed_unchanged(R, s, h0);
        break;
    }
    case 3: {
        mo_vec3 f = vec(r), p = vec(r);
        s = mo_body_apply_force_at(R->w, id, f, p);
        if (s == MO_OK) FUZZ_CHECK(within(f, MO_FORCE_MAX) && within(p, MO_LENGTH_MAX));
        else /* f or p beyond the limits, or the torque about the body's centre beyond MO_FORCE_MAX */
            FUZZ_CHECK(s == MO_ERR_INVALID_ARGUMENT && (!(within(f, MO_FORCE_MAX) && within(p, MO_LENGTH_MAX)) ||
                                                        strstr(mo_world_last_error(R->w), "torque") != NULL));
        failed_unchanged(R, s, h0);
        break;
    }
    default: {
        mo_vec3 v;
        mo_quat q;
        double m, e;
        mo_mat3 I;
        uint32_t g;
        FUZZ_CHECK(mo_body_position(R->w, id, &v) == MO_OK);
        FUZZ_CHECK(mo_body_orientation(R->w, id, &q) == MO_OK);
        FUZZ_CHECK(mo_body_linear_velocity(R->w, id, &v) == MO_OK);
        FUZZ_CHECK(mo_body_angular_velocity(R->w, id, &v) == MO_OK);
        FUZZ_CHECK(mo_body_mass(R->w, id, &m, &I) == MO_OK);
        mo_vec3 l = vec(r);
        FUZZ_CHECK(mo_body_world_point(R->w, id, l, &v) == (within(l, MO_LENGTH_MAX) ? MO_OK : MO_ERR_INVALID_ARGUMENT));
        FUZZ_CHECK(mo_body_kinetic_energy(R->w, id, &e) == MO_OK);
        FUZZ_CHECK(mo_body_collision_group(R->w, id, &g) == MO_OK);
        break;
    }
    }
}

/* every id-taking call on a destroyed id (P2) */
static void op_stale(run *R)
{
    reader *r = &R->r;
    mo_world *w = R->w;
    uint64_t h0 = mo_world_state_hash(w);
    mo_vec3 v;
    mo_quat q;
    double x;
    unsigned k = u8(r) % 4;
    if (k == 0 && R->bodies.ndead > 0) {
        mo_body_id id = bid(&R->bodies.dead[u8(r) % (unsigned)R->bodies.ndead]);
        FUZZ_CHECK(!mo_body_is_valid(w, id));
        FUZZ_CHECK(mo_body_position(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_orientation(w, id, &q) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_linear_velocity(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_angular_velocity(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_mass(w, id, &x, NULL) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_set_pose(w, id, vec(r), (mo_quat){1, 0, 0, 0}) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_set_velocity(w, id, vec(r), vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_apply_force(w, id, vec(r), vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_apply_force_at(w, id, vec(r), vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_world_point(w, id, vec(r), &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_kinetic_energy(w, id, &x) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_set_mass_from_shapes(w, id) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_destroy(w, id) == MO_ERR_STALE_ID);
        mo_shape_def sd = mo_default_shape_def();
        sd.type = MO_SHAPE_SPHERE;
        sd.radius = 0.5;
        mo_shape_id sidv = {7, 7};
        FUZZ_CHECK(mo_shape_create(w, id, &sd, &sidv) == MO_ERR_STALE_ID && mo_shape_id_is_null(sidv));
        if (R->bodies.nlive > 0) {
            mo_joint_def jd = mo_default_joint_def();
            jd.body_a = bid(&R->bodies.live[0]);
            jd.body_b = id;
            mo_joint_id j = {7, 7};
            FUZZ_CHECK(mo_joint_create(w, &jd, &j) == MO_ERR_STALE_ID && mo_joint_id_is_null(j));
        }
    } else if (k == 1 && R->shapes.ndead > 0) {
        mo_shape_id id = sid(&R->shapes.dead[u8(r) % (unsigned)R->shapes.ndead]);
        mo_body_id b;
        mo_shape_info info;
        FUZZ_CHECK(!mo_shape_is_valid(w, id));
        FUZZ_CHECK(mo_shape_body(w, id, &b) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_shape_mass(w, id, &x, NULL, NULL) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_shape_get_info(w, id, &info) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_shape_world_pose(w, id, &v, &q) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_shape_destroy(w, id) == MO_ERR_STALE_ID);
    } else if (k == 2 && R->joints.ndead > 0) {
        mo_joint_id id = jid(&R->joints.dead[u8(r) % (unsigned)R->joints.ndead]);
        FUZZ_CHECK(!mo_joint_is_valid(w, id));
        FUZZ_CHECK(mo_joint_position(w, id, &x) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_joint_error(w, id, &x) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_joint_reaction(w, id, &v, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_joint_set_motor(w, id, MO_MOTOR_VELOCITY, 1, 0, 1) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_joint_destroy(w, id) == MO_ERR_STALE_ID);
    } else if (k == 3 && R->particles.ndead > 0) {
        mo_particle_id id = pid(&R->particles.dead[u8(r) % (unsigned)R->particles.ndead]);
        FUZZ_CHECK(mo_particle_position(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_particle_velocity(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_particle_set_velocity(w, id, vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_particle_apply_force(w, id, vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_particle_destroy(w, id) == MO_ERR_STALE_ID);
    }
    FUZZ_CHECK(mo_world_state_hash(w) == h0); /* P3 */
}

static void op_joint_state(run *R)
{
    reader *r = &R->r;
    if (R->joints.nlive == 0) return;
    mo_joint_id id = jid(&R->joints.live[u8(r) % (unsigned)R->joints.nlive]);
    double x;
    mo_vec3 f, t;
    mo_status s = mo_joint_position(R->w, id, &x);
    FUZZ_CHECK(s == MO_OK || s == MO_ERR_INVALID_ARGUMENT);
    FUZZ_CHECK(mo_joint_error(R->w, id, &x) == MO_OK);
    FUZZ_CHECK(mo_joint_reaction(R->w, id, &f, &t) == MO_OK);
    uint64_t h0 = mo_world_state_hash(R->w);
    s = mo_joint_set_motor(R->w, id, (mo_motor_mode)(u8(r) % 3), coord(r), coord(r) / 4, size_v(r) * 10);
    failed_unchanged(R, s, h0);
}

/* world settings: direct setters and assignments by name */
static void op_world(run *R)
{
    reader *r = &R->r;
    mo_world *w = R->w;
    uint64_t h0 = mo_world_state_hash(w);
    mo_status s;
    switch (u8(r) % 5) {
    case 0: {
        mo_vec3 g = vec(r);
        s = mo_world_set_gravity(w, g);
        FUZZ_CHECK(s == (within(g, MO_GRAVITY_MAX) ? MO_OK : MO_ERR_INVALID_ARGUMENT));
        break;
    }
    case 1:
        s = mo_world_set_time_step(w, size_v(r) / 64.0);
        failed_unchanged(R, s, h0);
        break;
    case 2:
        s = mo_world_set_substeps(w, (int)(u8(r) % 6) - 1);
        failed_unchanged(R, s, h0);
        break;
    case 3: {
        mo_solver_settings ss = mo_world_solver(w);
        ss.kind = (mo_solver_kind)(u8(r) % MO_SOLVER_COUNT);
        ss.max_iterations = (int)(u8(r) % 40);
        ss.friction = (mo_friction_model)(u8(r) % 2);
        ss.warm_start = (u8(r) & 1) != 0;
        ss.record_residuals = (u8(r) & 1) != 0;
        s = mo_world_set_solver(w, &ss);
        failed_unchanged(R, s, h0);
        break;
    }
    default: {
        /* one setting from the table with a value from a small menu (some refused) */
        int n = mo_setting_count();
        FUZZ_CHECK(n > 0);
        const mo_setting_info *info = mo_setting_at((int)(u8(r) % (unsigned)n));
        FUZZ_CHECK(info != NULL);
        static const char *reals[] = {"-1", "0", "0.001", "0.5", "1", "1.9", "4", "abc", ""};
        static const char *ints[] = {"-1", "0", "1", "2", "3", "8", "30", "x"};
        char value[96];
        unsigned b = u8(r);
        switch (info->type) {
        case MO_SETTING_INT: snprintf(value, sizeof value, "%s", ints[b % 8]); break;
        case MO_SETTING_REAL: snprintf(value, sizeof value, "%s", reals[b % 9]); break;
        case MO_SETTING_BOOL: snprintf(value, sizeof value, "%s", b % 3 == 0 ? "true" : b % 3 == 1 ? "false" : "1"); break;
        case MO_SETTING_CHOICE: {
            int nc = 0;
            while (info->choices[nc] != NULL) nc++;
            snprintf(value, sizeof value, "%s", (int)(b % (unsigned)(nc + 1)) < nc ? info->choices[b % (unsigned)(nc + 1)] : "nope");
            break;
        }
        default: snprintf(value, sizeof value, "%g,%g,%g", coord(r), coord(r), coord(r)); break;
        }
        /* keep steps cheap: iteration counts stay in the menu above */
        char a[256];
        snprintf(a, sizeof a, "%s=%s", info->name, value);
        const char *as[1] = {a};
        s = mo_world_set_settings(w, as, 1);
        failed_unchanged(R, s, h0);
        char back[128];
        FUZZ_CHECK(mo_world_get_setting(w, info->name, back, sizeof back) == MO_OK);
        break;
    }
    }
}

static void check_counts(run *R)
{
    FUZZ_CHECK(mo_world_bodies(R->w, NULL, 0) == R->bodies.nlive); /* P5 */
    adopt_shapes(R);
    FUZZ_CHECK(mo_world_shapes(R->w, NULL, 0) == R->shapes.nlive);
}

static void op_step(run *R)
{
    mo_world *w = R->w;
    uint64_t h0 = mo_world_state_hash(w);
    mo_status st0 = mo_world_step(w);
    /* P6: MO_OK, or a non-finite stage caught and rolled back (P10) */
    FUZZ_CHECK(st0 == MO_OK || st0 == MO_ERR_NOT_FINITE);
    if (st0 != MO_OK) {
        FUZZ_CHECK(mo_world_state_hash(w) == h0 && mo_world_last_error(w)[0] != '\0');
        return;
    }
    mo_step_stats st = mo_world_last_stats(w);
    FUZZ_CHECK(st.bodies == R->bodies.nlive && st.particles == R->particles.nlive && st.joints == R->joints.nlive);
    for (int i = 0; i < R->bodies.nlive; i++) {
        mo_vec3 v, om;
        FUZZ_CHECK(mo_body_linear_velocity(w, bid(&R->bodies.live[i]), &v) == MO_OK);
        FUZZ_CHECK(mo_body_angular_velocity(w, bid(&R->bodies.live[i]), &om) == MO_OK);
        FUZZ_CHECK(isfinite(v.x) && isfinite(v.y) && isfinite(v.z));
        FUZZ_CHECK(isfinite(om.x) && isfinite(om.y) && isfinite(om.z));
    }
    int nc = mo_world_contacts(w, NULL, 0);
    FUZZ_CHECK(nc >= 0);
    /* P13: after a step every contact's force is finite and its (normal, tangent1, tangent2) is an
       orthonormal basis; every live body's summed contact force and torque are finite */
    mo_contact cc[16];
    int k = mo_world_contacts(w, cc, 16); /* the count of all contacts: at most 16 copied */
    for (int i = 0; i < k && i < 16; i++) {
        const mo_vec3 n = cc[i].normal, t1 = cc[i].tangent1, t2 = cc[i].tangent2, f = cc[i].force;
        FUZZ_CHECK(isfinite(f.x) && isfinite(f.y) && isfinite(f.z));
        FUZZ_CHECK(fabs(t1.x * t1.x + t1.y * t1.y + t1.z * t1.z - 1.0) < 1e-9);
        FUZZ_CHECK(fabs(t2.x * t2.x + t2.y * t2.y + t2.z * t2.z - 1.0) < 1e-9);
        FUZZ_CHECK(fabs(n.x * t1.x + n.y * t1.y + n.z * t1.z) < 1e-9);
        FUZZ_CHECK(fabs(t1.x * t2.x + t1.y * t2.y + t1.z * t2.z) < 1e-9);
    }
    for (int i = 0; i < R->bodies.nlive; i++) {
        mo_vec3 f, t;
        FUZZ_CHECK(mo_body_contact_force(w, bid(&R->bodies.live[i]), &f, &t) == MO_OK);
        FUZZ_CHECK(isfinite(f.x) && isfinite(f.y) && isfinite(f.z) && isfinite(t.x) && isfinite(t.y) && isfinite(t.z));
    }
}

static void op_query(run *R)
{
    reader *r = &R->r;
    mo_ray_hit hit;
    mo_vec3 o = vec(r), d = vec(r);
    if (mo_world_raycast(R->w, o, d, size_v(r) * 4, &hit)) {
        FUZZ_CHECK(mo_shape_is_valid(R->w, hit.shape));
        FUZZ_CHECK(hit.distance >= 0);
    }
    mo_vec3 lo = vec(r), hi = vec(r);
    mo_shape_id ids[4 * MAX_OBJ];
    int n = mo_world_query_aabb(R->w, lo, hi, ids, 4 * MAX_OBJ);
    adopt_shapes(R);
    FUZZ_CHECK(n >= 0 && n <= R->shapes.nlive); /* P8 */
    for (int i = 0; i < n; i++) FUZZ_CHECK(mo_shape_is_valid(R->w, ids[i]));
    mo_contact c[8];
    int nc = mo_world_contacts(R->w, c, 8);
    FUZZ_CHECK(nc >= 0);
}

/* P10-P12: NULL outputs and foreign ids, each refused with a sentence and the world unchanged */
/* P14 (reads no bytes, so the corpus keeps its meaning): pair exclusion between the first two live bodies
   reads back in either order and is undone; a body with itself is refused unchanged; the excluded pairs
   listed name live bodies only */
static void check_pairs(run *R)
{
    if (R->bodies.nlive == 0) return;
    mo_body_id a = bid(&R->bodies.live[0]), b = bid(&R->bodies.live[R->bodies.nlive - 1]);
    uint64_t h0 = mo_world_state_hash(R->w);
    if (same_body(a, b)) {
        FUZZ_CHECK(mo_world_set_pair_collision(R->w, a, b, false) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_world_state_hash(R->w) == h0);
        return;
    }
    bool was = false, got = true;
    FUZZ_CHECK(mo_world_pair_collision(R->w, a, b, &was) == MO_OK);
    FUZZ_CHECK(mo_world_set_pair_collision(R->w, a, b, false) == MO_OK);
    FUZZ_CHECK(mo_world_pair_collision(R->w, b, a, &got) == MO_OK && !got);
    mo_body_id pa[8], pb[8];
    int np = mo_world_excluded_pairs(R->w, pa, pb, 8);
    FUZZ_CHECK(np >= 1);
    for (int i = 0; i < np && i < 8; i++) FUZZ_CHECK(mo_body_is_valid(R->w, pa[i]) && mo_body_is_valid(R->w, pb[i]));
    FUZZ_CHECK(mo_world_set_pair_collision(R->w, a, b, was) == MO_OK);
    FUZZ_CHECK(mo_world_pair_collision(R->w, a, b, &got) == MO_OK && got == was);
}

static void op_misuse(run *R)
{
    reader *r = &R->r;
    mo_world *w = R->w;
    uint64_t h0 = mo_world_state_hash(w);
    unsigned k = u8(r) % 4;
    if (k == 0 && R->bodies.nlive > 0) { /* P10: NULL outputs of a live body's getters */
        mo_body_id id = bid(&R->bodies.live[u8(r) % (unsigned)R->bodies.nlive]);
        FUZZ_CHECK(mo_body_position(w, id, NULL) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(strcmp(mo_world_last_error(w), "mo_body_position: out must not be NULL") == 0);
        FUZZ_CHECK(mo_body_orientation(w, id, NULL) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_body_world_point(w, id, vec(r), NULL) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_body_kinetic_energy(w, id, NULL) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_body_create(w, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    } else if (k == 1) { /* P11: another world's body id */
        mo_body_id id = R->other_body;
        mo_vec3 v;
        FUZZ_CHECK(!mo_body_is_valid(w, id));
        FUZZ_CHECK(mo_body_position(w, id, &v) == MO_ERR_STALE_ID);
        FUZZ_CHECK(strstr(mo_world_last_error(w), "belongs to another world") != NULL);
        FUZZ_CHECK(mo_body_set_velocity(w, id, vec(r), vec(r)) == MO_ERR_STALE_ID);
        FUZZ_CHECK(mo_body_destroy(w, id) == MO_ERR_STALE_ID);
    } else if (k == 2) { /* P12: NULL world */
        FUZZ_CHECK(mo_world_step(NULL) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_body_set_pose(NULL, R->other_body, vec(r), quat(r)) == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(mo_world_bodies(NULL, NULL, 0) == 0 && mo_world_state_hash(NULL) == 0);
    } else { /* a time step or a thread count from the bytes: inside the ranges or refused */
        double h = ldexp(1.0, (int)(u8(r) % 80) - 60);
        mo_status st = mo_world_set_time_step(w, h);
        FUZZ_CHECK(st == ((h >= MO_TIME_STEP_MIN && h <= MO_TIME_STEP_MAX) ? MO_OK : MO_ERR_INVALID_ARGUMENT));
        int t = (int)(u8(r) * 997u);
        st = mo_world_set_threads(w, t);
        FUZZ_CHECK(st == (t <= mo_world_max_threads() ? MO_OK : MO_ERR_INVALID_ARGUMENT));
        if (st == MO_OK) FUZZ_CHECK(mo_world_set_threads(w, 1) == MO_OK);
        return; /* the time step may have changed: the state hash did not */
    }
    FUZZ_CHECK(mo_world_state_hash(w) == h0);
}

static uint64_t run_program(const uint8_t *data, size_t size)
{
    run *R = calloc(1, sizeof *R);
    FUZZ_CHECK(R != NULL);
    mo_world_def wd = mo_default_world_def();
    FUZZ_CHECK(mo_world_create(&wd, &R->w, NULL, 0) == MO_OK);
    FUZZ_CHECK(mo_world_create(&wd, &R->other, NULL, 0) == MO_OK);
    mo_body_def od = mo_default_body_def();
    od.shape.type = MO_SHAPE_SPHERE;
    od.shape.radius = 0.5;
    FUZZ_CHECK(mo_body_create(R->other, &od, &R->other_body) == MO_OK);
    R->r = (reader){data, size, 0};
    for (int k = 0; k < MAX_OPS && R->r.i < R->r.n; k++) {
        switch (u8(&R->r) % 13) {
        case 0: case 1: op_body_create(R); break;
        case 2: op_body_destroy(R); break;
        case 3: op_shape(R); break;
        case 4: op_joint(R); break;
        case 5: op_particle(R); break;
        case 6: op_body_state(R); break;
        case 7: op_stale(R); break;
        case 8: op_joint_state(R); break;
        case 9: op_world(R); break;
        case 10:
            if (R->steps++ < MAX_STEPS) op_step(R);
            break;
        case 12: op_misuse(R); break;
        default: op_query(R); break;
        }
        check_counts(R);
    }
    check_pairs(R);
    op_step(R);
    uint64_t h = mo_world_state_hash(R->w);
    if (getenv("MOREAU_FUZZ_VERBOSE") != NULL) /* what the program built: for writing seeds */
        fprintf(stderr, "fuzz_api: %zu bytes read, time %g s, live: %d bodies, %d shapes, %d joints, %d particles; "
                "destroyed: %d bodies, %d shapes, %d joints, %d particles\n", R->r.i, mo_world_time(R->w),
                R->bodies.nlive, R->shapes.nlive, R->joints.nlive, R->particles.nlive, R->bodies.ndead,
                R->shapes.ndead, R->joints.ndead, R->particles.ndead);
    mo_world_destroy(R->w);
    mo_world_destroy(R->other);
    free(R);
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h1 = run_program(data, size);
    uint64_t h2 = run_program(data, size);
    FUZZ_CHECK(h1 == h2); /* P9 */
    return 0;
}
