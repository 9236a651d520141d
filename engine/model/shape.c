/* shape.c: collision shapes attached to bodies (compound bodies carry several),
 * their validation, mass properties, and the world queries (ray cast, AABB). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"
#include "collision/broad_tree.h"

static const char *shape_name(int t)
{
    static const char *names[] = {"none", "sphere", "box", "plane", "capsule", "cylinder", "convex hull", "mesh"};
    return t >= 0 && t < MO_SHAPE_TYPE_COUNT ? names[t] : "unknown";
}

mo_shape_def mo_default_shape_def(void)
{
    mo_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = MO_SHAPE_NONE;
    d.friction = 0.5;
    d.orientation = (mo_quat){1.0, 0.0, 0.0, 0.0};
    d.density = 1000.0;
    d.category = 1u;
    d.mask = 0xffffffffu;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

mo_shape *mo_shape_get(const mo_world *w, mo_shape_id id)
{
    if (!w || id.index == 0 || id.index > (uint32_t)w->shape_count) return NULL;
    mo_shape *s = &w->shapes[id.index - 1];
    if (!s->alive || s->generation != id.generation) return NULL;
    return s;
}

bool mo_shape_is_valid(const mo_world *w, mo_shape_id id) { return mo_shape_get(w, id) != NULL; }

/* a length in (0, MO_LENGTH_MAX] (NaN fails) */
static int positive(double x) { return x > 0.0 && x <= MO_LENGTH_MAX; }

/* n points within MO_LENGTH_MAX of the origin per coordinate; -1, or the first bad point */
static int first_bad_point(const mo_vec3 *p, int n)
{
    for (int i = 0; i < n; i++)
        if (!mo_within3(p[i], MO_LENGTH_MAX)) return i;
    return -1;
}

int mo_shape_check_def(mo_world *w, const mo_shape_def *d, mo_body_type body_type)
{
    if (d->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "shape def was not initialised with mo_default_shape_def()");
        return 0;
    }
    const char *name = shape_name((int)d->type);
    switch (d->type) {
    case MO_SHAPE_SPHERE:
        if (!positive(d->radius)) {
            mo_set_error(w, "sphere radius must be in (0, %g] m, got %g", MO_LENGTH_MAX, d->radius);
            return 0;
        }
        break;
    case MO_SHAPE_BOX:
        if (!positive(d->half_extents.x) || !positive(d->half_extents.y) || !positive(d->half_extents.z)) {
            mo_set_error(w, "box half extents must be in (0, %g] m, got (%g, %g, %g)", MO_LENGTH_MAX,
                         d->half_extents.x, d->half_extents.y, d->half_extents.z);
            return 0;
        }
        break;
    case MO_SHAPE_PLANE:
        if (body_type != MO_BODY_STATIC) {
            mo_set_error(w, "plane shape needs a static body, got a %s body",
                         body_type == MO_BODY_DYNAMIC ? "dynamic" : "kinematic");
            return 0;
        }
        break;
    case MO_SHAPE_CAPSULE:
    case MO_SHAPE_CYLINDER:
        if (!positive(d->radius) || !positive(d->half_height)) {
            mo_set_error(w, "%s radius and half_height must be in (0, %g] m, got %g and %g", name, MO_LENGTH_MAX,
                         d->radius, d->half_height);
            return 0;
        }
        break;
    case MO_SHAPE_CONVEX_HULL:
        if (!d->points || d->point_count < 4) {
            mo_set_error(w, "convex hull needs at least 4 points, got %d", d->points ? d->point_count : 0);
            return 0;
        }
        if (first_bad_point(d->points, d->point_count) >= 0) {
            int i = first_bad_point(d->points, d->point_count);
            mo_set_error(w, "convex hull point %d must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", i,
                         MO_LENGTH_MAX, MO_LENGTH_MAX, d->points[i].x, d->points[i].y, d->points[i].z);
            return 0;
        }
        break;
    case MO_SHAPE_MESH:
        if (!d->vertices || !d->indices || d->vertex_count < 3 || d->triangle_count < 1) {
            mo_set_error(w, "mesh needs vertices and at least one triangle, got %d vertices and %d triangles",
                         d->vertices ? d->vertex_count : 0, d->indices ? d->triangle_count : 0);
            return 0;
        }
        if (first_bad_point(d->vertices, d->vertex_count) >= 0) {
            int i = first_bad_point(d->vertices, d->vertex_count);
            mo_set_error(w, "mesh vertex %d must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", i,
                         MO_LENGTH_MAX, MO_LENGTH_MAX, d->vertices[i].x, d->vertices[i].y, d->vertices[i].z);
            return 0;
        }
        break;
    default: mo_set_error(w, "shape type %d is not a known shape type", (int)d->type); return 0;
    }
    if (!(d->friction >= 0.0) || !isfinite(d->friction)) {
        mo_set_error(w, "shape friction must be finite and >= 0, got %g", d->friction);
        return 0;
    }
    if (!(d->margin >= 0.0 && d->margin <= MO_LENGTH_MAX)) {
        mo_set_error(w, "shape margin must be in [0, %g] m, got %g", MO_LENGTH_MAX, d->margin);
        return 0;
    }
    if (!(d->density > 0.0 && d->density <= MO_DENSITY_MAX)) {
        mo_set_error(w, "shape density must be in (0, %g] kg/m^3, got %g", MO_DENSITY_MAX, d->density);
        return 0;
    }
    mo_quat q = d->orientation;
    double ql = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!mo_within3(d->position, MO_LENGTH_MAX) || !isfinite(ql) || ql < 1e-9) {
        mo_set_error(w, "%s shape pose must be finite with a non-zero quaternion", name);
        return 0;
    }
    return 1;
}

int mo_shape_attach(mo_world *w, int body_slot, const mo_shape_def *d)
{
    mo_cl_hull *hull = NULL;
    mo_cl_mesh *mesh = NULL;
    char err[256];
    if (d->type == MO_SHAPE_CONVEX_HULL) {
        double *pts = (double *)malloc((size_t)d->point_count * 3 * sizeof(double));
        hull = (mo_cl_hull *)calloc(1, sizeof *hull);
        if (!pts || !hull) {
            free(pts);
            free(hull);
            mo_set_error(w, "mo_shape_create: out of memory");
            return -1;
        }
        for (int i = 0; i < d->point_count; i++) {
            pts[3 * i] = d->points[i].x;
            pts[3 * i + 1] = d->points[i].y;
            pts[3 * i + 2] = d->points[i].z;
        }
        int rc = mo_cl_hull_build(pts, d->point_count, hull, err, sizeof err);
        free(pts);
        if (rc) {
            free(hull);
            mo_set_error(w, "convex hull: %s", err);
            return -1;
        }
    } else if (d->type == MO_SHAPE_MESH) {
        double *v = (double *)malloc((size_t)d->vertex_count * 3 * sizeof(double));
        mesh = (mo_cl_mesh *)calloc(1, sizeof *mesh);
        if (!v || !mesh) {
            free(v);
            free(mesh);
            mo_set_error(w, "mo_shape_create: out of memory");
            return -1;
        }
        for (int i = 0; i < d->vertex_count; i++) {
            v[3 * i] = d->vertices[i].x;
            v[3 * i + 1] = d->vertices[i].y;
            v[3 * i + 2] = d->vertices[i].z;
        }
        int rc = mo_cl_mesh_build(v, d->vertex_count, d->indices, d->triangle_count, mesh, err, sizeof err);
        free(v);
        if (rc) {
            free(mesh);
            mo_set_error(w, "mesh: %s", err);
            return -1;
        }
    }
    int slot = mo_pool_alloc((void **)&w->shapes, sizeof(mo_shape), &w->shape_cap, &w->shape_count, &w->shape_free,
                             &w->shape_nfree);
    if (slot < 0) {
        if (hull) { mo_cl_hull_free(hull); free(hull); }
        if (mesh) { mo_cl_mesh_free(mesh); free(mesh); }
        mo_set_error(w, "mo_shape_create: out of memory");
        return -1;
    }
    mo_shape *s = &w->shapes[slot];
    uint32_t gen = mo_gen_next(w, s->generation);
    memset(s, 0, sizeof *s);
    s->generation = gen;
    s->alive = true;
    s->body = body_slot;
    s->type = (int)d->type;
    s->radius = d->radius;
    mo_v3_set(s->he, d->half_extents.x, d->half_extents.y, d->half_extents.z);
    s->half_height = d->half_height;
    s->margin = d->margin;
    s->friction = d->friction;
    s->density = d->density;
    mo_v3_set(s->lpos, d->position.x, d->position.y, d->position.z);
    s->lq[0] = d->orientation.w; s->lq[1] = d->orientation.x;
    s->lq[2] = d->orientation.y; s->lq[3] = d->orientation.z;
    mo_q_normalize(s->lq);
    s->category = d->category;
    s->mask = d->mask;
    s->hull = hull;
    s->mesh = mesh;
    mo_body *b = &w->bodies[body_slot];
    s->next = b->first_shape;
    b->first_shape = slot;
    b->nshapes++;
    w->q_synced = 0;
    return slot;
}

void mo_shape_release(mo_world *w, int slot)
{
    mo_shape *s = &w->shapes[slot];
    mo_body *b = &w->bodies[s->body];
    /* unlink from the body's list */
    int *link = &b->first_shape;
    while (*link >= 0 && *link != slot) link = &w->shapes[*link].next;
    if (*link == slot) *link = s->next;
    b->nshapes--;
    if (s->hull) { mo_cl_hull_free(s->hull); free(s->hull); }
    if (s->mesh) { mo_cl_mesh_free(s->mesh); free(s->mesh); }
    s->hull = NULL;
    s->mesh = NULL;
    s->alive = false;
    w->shape_free[w->shape_nfree++] = slot;
    w->q_synced = 0;
}

/* a body's shapes changed: its island wakes; a static or kinematic body's: every island (sleeping bodies
   skip the narrowphase with it, so they would not notice) */
static void shape_changed(mo_world *w, int body)
{
    if (w->bodies[body].type == MO_BODY_DYNAMIC) mo_sleep_touch(w, body);
    else mo_sleep_wake_all(w);
}

mo_status mo_shape_create(mo_world *w, mo_body_id body, const mo_shape_def *d, mo_shape_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_shape_id){0, 0};
    MO_NEED(w, d, "def");
    MO_NEED(w, out, "out");
    mo_body *b = mo_body_get(w, body);
    if (!b) {
        mo_set_error(w, "shape body (index %u, generation %u) %s", body.index,
                     body.generation, mo_id_fault(w, body.generation, "does not name a live body"));
        return MO_ERR_STALE_ID;
    }
    if (d->type == MO_SHAPE_NONE) {
        mo_set_error(w, "shape type must not be MO_SHAPE_NONE");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_shape_check_def(w, d, b->type)) return MO_ERR_INVALID_ARGUMENT;
    int slot = mo_shape_attach(w, (int)body.index - 1, d);
    if (slot < 0) return strstr(w->err->text, "out of memory") ? MO_ERR_OUT_OF_MEMORY : MO_ERR_INVALID_ARGUMENT;
    *out = (mo_shape_id){(uint32_t)slot + 1, w->shapes[slot].generation};
    shape_changed(w, (int)body.index - 1);
    return MO_OK;
}

static mo_status stale_shape(const mo_world *w, mo_shape_id id)
{
    mo_set_error(w, "shape id (index %u, generation %u) %s", id.index,
                 id.generation, mo_id_fault(w, id.generation, "does not name a live shape"));
    return MO_ERR_STALE_ID;
}

mo_status mo_shape_destroy(mo_world *w, mo_shape_id id)
{
    MO_NEED_W(w);
    if (!mo_shape_get(w, id)) return stale_shape(w, id);
    shape_changed(w, w->shapes[id.index - 1].body);
    mo_shape_release(w, (int)id.index - 1);
    return MO_OK;
}

mo_status mo_shape_body(const mo_world *w, mo_shape_id id, mo_body_id *out)
{
    MO_NEED_W(w);
    mo_shape *s = mo_shape_get(w, id);
    if (!s) return stale_shape(w, id);
    MO_NEED(w, out, "out");
    *out = (mo_body_id){(uint32_t)s->body + 1, w->bodies[s->body].generation};
    return MO_OK;
}

/* the collision object of a shape in its body's frame (pos/rot = local pose) */
static void local_object(const mo_shape *s, mo_cl_object *o)
{
    memset(o, 0, sizeof *o);
    static const int map[MO_SHAPE_TYPE_COUNT] = {MO_CL_NONE, MO_CL_SPHERE, MO_CL_BOX, MO_CL_PLANE,
                                                 MO_CL_CAPSULE, MO_CL_CYLINDER, MO_CL_HULL, MO_CL_MESH};
    o->type = map[s->type];
    o->radius = s->radius;
    mo_v3_copy(o->he, s->he);
    o->half_height = s->half_height;
    o->hull = s->hull;
    o->mesh = s->mesh;
    o->margin = s->margin;
    mo_v3_copy(o->pos, s->lpos);
    mo_q_to_m3(o->rot, s->lq);
}

void mo_shape_object(const mo_world *w, int slot, mo_cl_object *o)
{
    const mo_shape *s = &w->shapes[slot];
    const mo_body *b = &w->bodies[s->body];
    local_object(s, o);
    double R[9], p[3];
    mo_q_to_m3(R, b->k.q);
    mo_m3_mulv(p, R, s->lpos);
    mo_v3_add(o->pos, b->k.x, p);
    double lr[9];
    memcpy(lr, o->rot, sizeof lr);
    mo_m3_mul(o->rot, R, lr);
    o->is_static = b->type != MO_BODY_DYNAMIC && !b->artic; /* a link body moves with its articulation */
    o->group = b->group;
    o->user = slot;
}

int mo_shape_unit_mass(const mo_world *w, int slot, mo_cl_mass *m)
{
    const mo_shape *s = &w->shapes[slot];
    mo_cl_object o;
    local_object(s, &o);
    mo_cl_object c = o; /* mass properties in the shape frame, then moved to the body frame */
    mo_v3_set(c.pos, 0, 0, 0);
    c.rot[0] = c.rot[4] = c.rot[8] = 1.0;
    c.rot[1] = c.rot[2] = c.rot[3] = c.rot[5] = c.rot[6] = c.rot[7] = 0.0;
    mo_cl_mass sm;
    if (mo_cl_mass_properties(&c, &sm)) return -1;
    double com[3], I[9];
    mo_m3_mulv(com, o.rot, sm.com);
    mo_v3_add(m->com, com, o.pos);
    mo_m3_rotate_tensor(I, o.rot, sm.inertia);
    memcpy(m->inertia, I, sizeof I);
    m->volume = sm.volume;
    (void)w;
    return 0;
}

mo_status mo_shape_mass(const mo_world *w, mo_shape_id id, double *mass, mo_vec3 *com, mo_mat3 *inertia)
{
    MO_NEED_W(w);
    mo_shape *s = mo_shape_get(w, id);
    if (!s) return stale_shape(w, id);
    mo_cl_mass m;
    if (mo_shape_unit_mass(w, (int)id.index - 1, &m)) {
        mo_set_error(w, "%s shape %u has no volume, so no mass", shape_name(s->type), id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (mass) *mass = s->density * m.volume;
    if (com) *com = (mo_vec3){m.com[0], m.com[1], m.com[2]};
    if (inertia)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) inertia->m[i][j] = s->density * m.inertia[3 * i + j];
    return MO_OK;
}

/* sum of the shapes' mass properties about their common centre of mass, body frame */
static int body_shape_mass(const mo_world *w, const mo_body *b, double *mass, double *com, double *I)
{
    double M = 0.0, c[3] = {0, 0, 0};
    for (int sl = b->first_shape; sl >= 0; sl = w->shapes[sl].next) {
        mo_cl_mass m;
        if (mo_shape_unit_mass(w, sl, &m)) continue;
        double ms = w->shapes[sl].density * m.volume;
        M += ms;
        mo_v3_axpy(c, ms, m.com);
    }
    if (!(M > 0.0)) return -1;
    mo_v3_scale(c, c, 1.0 / M);
    memset(I, 0, 9 * sizeof(double));
    for (int sl = b->first_shape; sl >= 0; sl = w->shapes[sl].next) {
        mo_cl_mass m;
        if (mo_shape_unit_mass(w, sl, &m)) continue;
        double rho = w->shapes[sl].density, ms = rho * m.volume, d[3];
        mo_v3_sub(d, m.com, c);
        double dd = mo_v3_dot(d, d);
        /* parallel axis: I_c = I_s + m (|d|^2 E - d d^T) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                I[3 * i + j] += rho * m.inertia[3 * i + j] + ms * ((i == j ? dd : 0.0) - d[i] * d[j]);
    }
    *mass = M;
    mo_v3_copy(com, c);
    return 0;
}

/* moves the body frame to the point c (body frame) keeping everything in place in the world */
static void shift_body_origin(mo_world *w, int slot, const double *c)
{
    mo_body *b = &w->bodies[slot];
    if (c[0] == 0.0 && c[1] == 0.0 && c[2] == 0.0) return;
    w->q_synced = 0;
    double wc[3];
    mo_q_rotate(wc, b->k.q, c);
    mo_v3_add(b->k.x, b->k.x, wc);
    /* a point fixed to the body keeps its velocity: v(origin') = v + w x (R c) */
    double dv[3];
    mo_v3_cross(dv, b->k.w, wc);
    mo_v3_add(b->k.v, b->k.v, dv);
    for (int sl = b->first_shape; sl >= 0; sl = w->shapes[sl].next) mo_v3_sub(w->shapes[sl].lpos, w->shapes[sl].lpos, c);
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        if (j->a == slot) mo_v3_sub(j->la, j->la, c);
        if (j->b == slot) mo_v3_sub(j->lb, j->lb, c);
    }
}

/* mass and inertia within moreau.h's limits */
static bool mass_within(double M, const double I[9])
{
    if (!(M >= MO_MASS_MIN && M <= MO_MASS_MAX)) return false;
    for (int k = 0; k < 9; k++)
        if (!(fabs(I[k]) <= MO_INERTIA_MAX)) return false;
    return true;
}

/* mass and inertia (of the given total mass, or from densities when mass <= 0) from the shapes;
   0, -1 no volume, -2 outside the limits (the body unchanged for -1 and -2) */
int mo_body_mass_from_shapes_int(mo_world *w, int slot, double mass);
int mo_body_mass_from_shapes_int(mo_world *w, int slot, double mass)
{
    mo_body *b = &w->bodies[slot];
    double M, c[3], I[9], sI[9];
    if (body_shape_mass(w, b, &M, c, I)) return -1;
    double scale = mass > 0.0 ? mass / M : 1.0;
    for (int k = 0; k < 9; k++) sI[k] = scale * I[k];
    if (!mass_within(scale * M, sI)) return -2;
    for (int k = 0; k < 9; k++) b->k.I_body[k] = scale * I[k];
    b->mass = scale * M;
    b->k.inv_mass = 1.0 / b->mass;
    if (!mo_m3_inverse(b->k.inv_I_body, b->k.I_body)) return -1;
    shift_body_origin(w, slot, c);
    return 0;
}

mo_status mo_body_set_mass_from_shapes(mo_world *w, mo_body_id id)
{
    MO_NEED_W(w);
    mo_body *b = mo_body_get(w, id);
    if (!b) {
        mo_set_error(w, "body id (index %u, generation %u) %s", id.index, id.generation,
                     mo_id_fault(w, id.generation, "does not name a live body"));
        return MO_ERR_STALE_ID;
    }
    if (mo_link_body_refuse(w, (int)id.index - 1, __func__, "its mass and inertia are the link's (mo_link_def)"))
        return MO_ERR_INVALID_ARGUMENT;
    if (b->type != MO_BODY_DYNAMIC) {
        mo_set_error(w, "body %u is not dynamic: it has no mass", id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
    /* check first, so that a failure leaves the body unchanged */
    double M, c[3], I[9], Ii[9];
    if (body_shape_mass(w, b, &M, c, I) || !mo_m3_inverse(Ii, I)) {
        mo_set_error(w, "body %u has no shape with a volume to take its mass from", id.index);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mass_within(M, I)) {
        mo_set_error(w, "body %u: its shapes give a mass of %g kg and an inertia diagonal of (%g, %g, %g) kg m^2, "
                     "outside [%g, %g] kg and [-%g, %g] kg m^2", id.index, M, I[0], I[4], I[8], MO_MASS_MIN,
                     MO_MASS_MAX, MO_INERTIA_MAX, MO_INERTIA_MAX);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_body_mass_from_shapes_int(w, (int)id.index - 1, 0.0);
    mo_sleep_touch(w, (int)id.index - 1);
    return MO_OK;
}

/* ---- queries ----
 *
 * Both queries go through the broadphase's trees (collision/broad_tree.c, broad_bp.c):
 * candidates are the shapes whose fat boxes the ray or the box reaches (planes,
 * which have no proxies, are tested one by one), then each candidate is tested
 * exactly as the brute-force loops below do, so the answers are identical to
 * theirs. The trees hold the poses of the last collide stage; a step (which
 * moves bodies after it), a shape added or removed, a centre-of-mass shift and
 * mo_body_set_pose clear w->q_synced, and the next query brings the trees up to
 * date first (mo_cl_bp_sync: O(n) containment tests, re-insertion of the
 * objects that left their fat boxes; the next step finds their pairs). When
 * that fails (out of memory) the queries fall back to the loops. */

int mo_collide_objects(mo_world *w);

/* brings the trees, the plane list and the largest shape margin up to date; 0 or -1 */
static int query_sync(mo_world *w)
{
    if (w->q_synced) return 0;
    int n = mo_collide_objects(w);
    if (n < 0) return -1;
    const mo_cl_object *objs = (const mo_cl_object *)w->cl_objs.p;
    if (mo_cl_bp_sync(w->bp, objs, n, NULL, w->def.contact_margin)) return -1;
    int np = 0;
    double mm = 0.0;
    for (int i = 0; i < n; i++) {
        if (objs[i].user < 0) continue;
        if (objs[i].type == MO_CL_PLANE) np++;
        if (objs[i].margin > mm) mm = objs[i].margin;
    }
    if (mo_buf_reserve(&w->q_planes, (size_t)(np + 1) * sizeof(int))) return -1;
    int *planes = (int *)w->q_planes.p;
    np = 0;
    for (int i = 0; i < n; i++)
        if (objs[i].user >= 0 && objs[i].type == MO_CL_PLANE) planes[np++] = objs[i].user;
    w->q_nplanes = np;
    w->q_margin = mm;
    w->q_synced = 1;
    return 0;
}

/* ray cast state: the best hit so far (ties: the higher shape slot, as the loop's <=) */
typedef struct ray_state {
    const mo_world *w;
    const double *o, *d;
    double best, bn[3];
    int bs;
} ray_state;

static void ray_shape(ray_state *r, int slot)
{
    mo_cl_object ob;
    mo_shape_object(r->w, slot, &ob);
    double t, n[3];
    if (mo_cl_raycast(&ob, r->o, r->d, r->best, &t, n) && (t < r->best || (t == r->best && slot > r->bs))) {
        r->best = t;
        mo_v3_copy(r->bn, n);
        r->bs = slot;
    }
}

static double ray_tree_cb(void *ctx, int proxy, int user, double tmax)
{
    (void)proxy;
    (void)tmax;
    ray_state *r = (ray_state *)ctx;
    int slot = mo_cl_bp_record_user(r->w->bp, user);
    if (slot >= 0) ray_shape(r, slot); /* particles (user < 0) are not shapes */
    return r->best;
}

/* the loop over every shape (the reference the trees must match; the fallback) */
bool mo_world_raycast_all(const mo_world *w, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit);
static bool raycast_impl(const mo_world *cw, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit,
                         bool all)
{
    double o[3] = {origin.x, origin.y, origin.z}, d[3] = {dir.x, dir.y, dir.z};
    double len = mo_v3_normalize(d);
    if (!(len > 0.0) || !mo_finite3(origin) || !mo_finite3(dir) || !(max_distance >= 0.0)) return false;
    ray_state r = {cw, o, d, max_distance, {0, 0, 0}, -1};
    mo_world *w = (mo_world *)cw; /* the trees are a cache of the world's poses */
    if (!all && query_sync(w) == 0) {
        const int *planes = (const int *)w->q_planes.p;
        for (int k = 0; k < w->q_nplanes; k++) ray_shape(&r, planes[k]);
        for (int t = 0; t < 2; t++)
            mo_cl_tree_raycast(mo_cl_bp_tree(w->bp, t), o, d, r.best, ray_tree_cb, &r);
    } else {
        for (int i = 0; i < w->shape_count; i++)
            if (w->shapes[i].alive) ray_shape(&r, i);
    }
    if (r.bs < 0) return false;
    if (hit) {
        const mo_shape *s = &w->shapes[r.bs];
        hit->shape = (mo_shape_id){(uint32_t)r.bs + 1, s->generation};
        hit->body = (mo_body_id){(uint32_t)s->body + 1, w->bodies[s->body].generation};
        hit->point = (mo_vec3){o[0] + r.best * d[0], o[1] + r.best * d[1], o[2] + r.best * d[2]};
        hit->normal = (mo_vec3){r.bn[0], r.bn[1], r.bn[2]};
        hit->distance = r.best;
    }
    return true;
}

bool mo_world_raycast(const mo_world *w, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit)
{
    if (!w) return false;
    return raycast_impl(w, origin, dir, max_distance, hit, false);
}

bool mo_world_raycast_all(const mo_world *w, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit)
{
    return raycast_impl(w, origin, dir, max_distance, hit, true);
}

/* whether shape slot's box (a plane: its half-space) overlaps [lo, hi] */
static bool box_hits_shape(const mo_world *w, int i, mo_vec3 lo, mo_vec3 hi)
{
    mo_cl_object ob;
    mo_shape_object(w, i, &ob);
    if (ob.type == MO_CL_PLANE) {
        /* the lowest corner of the query box along the plane normal */
        double n3[3] = {ob.rot[2], ob.rot[5], ob.rot[8]}, c[3];
        for (int k = 0; k < 3; k++) c[k] = n3[k] > 0 ? (k == 0 ? lo.x : k == 1 ? lo.y : lo.z)
                                                    : (k == 0 ? hi.x : k == 1 ? hi.y : hi.z);
        double dd[3];
        mo_v3_sub(dd, c, ob.pos);
        return !(mo_v3_dot(dd, n3) > 0.0);
    }
    mo_cl_update_aabb(&ob, ob.margin);
    return !(ob.aabb_min[0] > hi.x || ob.aabb_max[0] < lo.x || ob.aabb_min[1] > hi.y || ob.aabb_max[1] < lo.y ||
             ob.aabb_min[2] > hi.z || ob.aabb_max[2] < lo.z);
}

typedef struct box_state {
    const mo_cl_broadphase_tree *bp;
    mo_buf *buf;
    int n, failed;
} box_state;

static int box_tree_cb(void *ctx, int proxy, int user)
{
    (void)proxy;
    box_state *b = (box_state *)ctx;
    int slot = mo_cl_bp_record_user(b->bp, user);
    if (slot < 0) return 1; /* a particle */
    if (mo_buf_reserve(b->buf, (size_t)(b->n + 1) * sizeof(int))) {
        b->failed = 1;
        return 0;
    }
    ((int *)b->buf->p)[b->n++] = slot;
    return 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int mo_world_query_aabb_all(const mo_world *w, mo_vec3 lo, mo_vec3 hi, mo_shape_id *out, int cap);
int mo_world_query_aabb_all(const mo_world *w, mo_vec3 lo, mo_vec3 hi, mo_shape_id *out, int cap)
{
    int n = 0;
    for (int i = 0; i < w->shape_count; i++) {
        if (!w->shapes[i].alive || !box_hits_shape(w, i, lo, hi)) continue;
        if (out && n < cap) out[n] = (mo_shape_id){(uint32_t)i + 1, w->shapes[i].generation};
        n++;
    }
    return n;
}

int mo_world_query_aabb(const mo_world *cw, mo_vec3 lo, mo_vec3 hi, mo_shape_id *out, int cap)
{
    if (!cw) return 0;
    /* NaN bounds name no box: nothing overlaps them */
    if (isnan(lo.x) || isnan(lo.y) || isnan(lo.z) || isnan(hi.x) || isnan(hi.y) || isnan(hi.z)) return 0;
    mo_world *w = (mo_world *)cw; /* the trees are a cache of the world's poses */
    if (query_sync(w)) return mo_world_query_aabb_all(w, lo, hi, out, cap);
    /* candidates: planes, and the proxies whose fat boxes reach the box grown by the largest
       shape margin (the exact test grows each shape's box by twice its margin, the fat box
       by the contact margin plus the shape margin at least) */
    box_state b = {w->bp, &w->q_hits, 0, 0};
    if (mo_buf_reserve(&w->q_hits, (size_t)(w->q_nplanes + 1) * sizeof(int)))
        return mo_world_query_aabb_all(w, lo, hi, out, cap);
    memcpy(w->q_hits.p, w->q_planes.p, (size_t)w->q_nplanes * sizeof(int));
    b.n = w->q_nplanes;
    double g = w->q_margin, qlo[3] = {lo.x - g, lo.y - g, lo.z - g}, qhi[3] = {hi.x + g, hi.y + g, hi.z + g};
    for (int t = 0; t < 2 && !b.failed; t++) mo_cl_tree_query(mo_cl_bp_tree(w->bp, t), qlo, qhi, box_tree_cb, &b);
    if (b.failed) return mo_world_query_aabb_all(w, lo, hi, out, cap);
    /* in slot order, as the loop */
    int *cand = (int *)w->q_hits.p;
    qsort(cand, (size_t)b.n, sizeof(int), cmp_int);
    int n = 0;
    for (int k = 0; k < b.n; k++) {
        int i = cand[k];
        if (!box_hits_shape(w, i, lo, hi)) continue;
        if (out && n < cap) out[n] = (mo_shape_id){(uint32_t)i + 1, w->shapes[i].generation};
        n++;
    }
    return n;
}
