/* lua_api.c: the world API as seen from a scene file.
 *
 * Every constructor reads a table with named fields (unknown fields are
 * refused, so a typo is an error), starts from mo_default_*_def() and calls the
 * public C API; the engine's own checks stay the last word. Errors are raised
 * at the calling line of the scene: "<file>:<line>: body 'link3': <what>".
 * Vectors are {x, y, z} or {x = , y = , z = }; quaternions {w, x, y, z} or named.
 * Bodies, joints, particles and shapes are userdata handles holding an id: a
 * destroyed object's handle gives an error, never a dangling pointer. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"

#define BODY_MT "moreau.body"
#define JOINT_MT "moreau.joint"
#define PARTICLE_MT "moreau.particle"
#define SHAPE_MT "moreau.shape"

typedef struct lbody { mo_body_id id; } lbody;
typedef struct ljoint {
    mo_joint_id id;
    double max_force; /* last known, for set_target */
} ljoint;
typedef struct lparticle { mo_particle_id id; } lparticle;
typedef struct lshape { mo_shape_id id; } lshape;

/* ---- handles ---- */

static const char *handle_name(lua_State *L, int idx)
{
    if (lua_getiuservalue(L, idx, 1) != LUA_TSTRING) {
        lua_pop(L, 1);
        return NULL;
    }
    const char *n = lua_tostring(L, -1);
    lua_pop(L, 1); /* the userdata keeps it alive */
    return n;
}

void mo_lua_push_body(lua_State *L, mo_body_id id, const char *name)
{
    lbody *b = (lbody *)lua_newuserdatauv(L, sizeof *b, 1);
    b->id = id;
    luaL_setmetatable(L, BODY_MT);
    if (name) {
        lua_pushstring(L, name);
        lua_setiuservalue(L, -2, 1);
    }
}

void mo_lua_push_joint(lua_State *L, mo_joint_id id, const char *name)
{
    ljoint *j = (ljoint *)lua_newuserdatauv(L, sizeof *j, 1);
    j->id = id;
    j->max_force = INFINITY;
    luaL_setmetatable(L, JOINT_MT);
    if (name) {
        lua_pushstring(L, name);
        lua_setiuservalue(L, -2, 1);
    }
}

static lbody *check_body(lua_State *L, int idx, const char *ctx, const char *what)
{
    lbody *b = (lbody *)luaL_testudata(L, idx, BODY_MT);
    if (!b) mo_lua_fail(L, ctx, "%s must be a body, got %s", what, luaL_typename(L, idx));
    return b;
}

static ljoint *check_joint(lua_State *L, int idx)
{
    ljoint *j = (ljoint *)luaL_testudata(L, idx, JOINT_MT);
    if (!j) mo_lua_fail(L, "", "expected a joint (call it as j:method()), got %s", luaL_typename(L, idx));
    return j;
}

static lparticle *check_particle(lua_State *L, int idx)
{
    lparticle *p = (lparticle *)luaL_testudata(L, idx, PARTICLE_MT);
    if (!p) mo_lua_fail(L, "", "expected a particle (call it as p:method()), got %s", luaL_typename(L, idx));
    return p;
}

/* self of a body method, and its context string */
static mo_body_id self_body(lua_State *L, char *ctx, size_t n)
{
    lbody *b = (lbody *)luaL_testudata(L, 1, BODY_MT);
    if (!b) mo_lua_fail(L, "", "expected a body (call it as b:method()), got %s", luaL_typename(L, 1));
    mo_lua_make_ctx(ctx, n, "body", handle_name(L, 1));
    return b->id;
}

mo_body_id mo_lua_check_body(lua_State *L, int idx, const char *ctx, const char *what)
{
    return check_body(L, idx, ctx, what)->id;
}

mo_body_id mo_lua_self_body(lua_State *L, char *ctx, size_t n) { return self_body(L, ctx, n); }

/* ---- shapes ---- */

static const char *const shape_names[] = {"none", "sphere", "box", "plane", "capsule", "cylinder", "hull", "mesh", NULL};
static const char *const shape_keys[] = {"type",    "radius",   "half_extents", "half_height", "friction",
                                         "points",  "vertices", "triangles",    "mesh",        "position",
                                         "orientation", "density", "margin",    "category",    "mask",
                                         NULL};

/* array of vectors at idx into a userdata block left on the stack */
static mo_vec3 *vec_array(lua_State *L, int idx, const char *ctx, const char *what, int *count)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) mo_lua_fail(L, ctx, "%s must be a table of points, got %s", what, luaL_typename(L, idx));
    lua_Unsigned n = lua_rawlen(L, idx);
    if (n > 10000000u) mo_lua_fail(L, ctx, "%s: too many points (%llu)", what, (unsigned long long)n);
    mo_vec3 *v = (mo_vec3 *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *v, 0);
    for (lua_Unsigned i = 0; i < n; i++) {
        char w[64];
        snprintf(w, sizeof w, "%s[%llu]", what, (unsigned long long)i + 1);
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        v[i] = mo_lua_to_vec(L, -1, ctx, w);
        lua_pop(L, 1);
    }
    *count = (int)n;
    return v;
}

/* reads a shape table at idx into d; arrays are userdata pushed on the stack (kept until return) */
static void parse_shape(lua_State *L, int idx, const char *ctx, mo_shape_def *d)
{
    idx = lua_absindex(L, idx);
    mo_lua_need_table(L, idx, ctx);
    mo_lua_check_keys(L, idx, ctx, shape_keys);
    *d = mo_default_shape_def();
    const char *type = mo_lua_str_field(L, idx, "type", ctx);
    if (!type) mo_lua_fail(L, ctx, "shape needs a type (sphere, box, plane, capsule, cylinder, hull, mesh)");
    if (!strcmp(type, "convex_hull")) type = "hull";
    d->type = (mo_shape_type)mo_lua_enum_value(L, ctx, "shape type", type, shape_names);
    d->radius = mo_lua_num_field(L, idx, "radius", d->radius, ctx);
    d->half_extents = mo_lua_vec_field(L, idx, "half_extents", d->half_extents, ctx);
    d->half_height = mo_lua_num_field(L, idx, "half_height", d->half_height, ctx);
    d->friction = mo_lua_num_field(L, idx, "friction", d->friction, ctx);
    d->position = mo_lua_vec_field(L, idx, "position", d->position, ctx);
    d->orientation = mo_lua_quat_field(L, idx, "orientation", d->orientation, ctx);
    d->density = mo_lua_num_field(L, idx, "density", d->density, ctx);
    d->margin = mo_lua_num_field(L, idx, "margin", d->margin, ctx);
    d->category = mo_lua_u32_field(L, idx, "category", d->category, ctx);
    d->mask = mo_lua_u32_field(L, idx, "mask", d->mask, ctx);
    /* vertices and triangles directly or from a moreau.mesh() table */
    int src = idx;
    if (mo_lua_field(L, idx, "mesh") != LUA_TNIL) {
        if (!lua_istable(L, -1)) mo_lua_fail(L, ctx, "mesh must be a table from moreau.mesh(), got %s", luaL_typename(L, -1));
        src = lua_gettop(L); /* left on the stack */
        if (mo_lua_has_field(L, idx, "vertices") || mo_lua_has_field(L, idx, "triangles"))
            mo_lua_fail(L, ctx, "give either mesh or vertices/triangles, not both");
    } else {
        lua_pop(L, 1);
    }
    if (d->type == MO_SHAPE_CONVEX_HULL) {
        int n = 0;
        if (mo_lua_field(L, idx, "points") != LUA_TNIL) {
            d->points = vec_array(L, -1, ctx, "points", &n);
        } else if (mo_lua_field(L, src, "vertices") != LUA_TNIL) {
            d->points = vec_array(L, -1, ctx, "vertices", &n);
        } else {
            mo_lua_fail(L, ctx, "a hull needs points (or a mesh's vertices)");
        }
        d->point_count = n;
    } else if (d->type == MO_SHAPE_MESH) {
        int nv = 0;
        if (mo_lua_field(L, src, "vertices") == LUA_TNIL) mo_lua_fail(L, ctx, "a mesh needs vertices and triangles");
        d->vertices = vec_array(L, -1, ctx, "vertices", &nv);
        d->vertex_count = nv;
        if (mo_lua_field(L, src, "triangles") != LUA_TTABLE)
            mo_lua_fail(L, ctx, "triangles must be a table of {i, j, k} (1-based vertex numbers), got %s",
                        luaL_typename(L, -1));
        int ti = lua_gettop(L);
        lua_Unsigned nt = lua_rawlen(L, ti);
        if (nt > 10000000u) mo_lua_fail(L, ctx, "too many triangles (%llu)", (unsigned long long)nt);
        int *ind = (int *)lua_newuserdatauv(L, (nt ? nt : 1) * 3 * sizeof(int), 0);
        for (lua_Unsigned t = 0; t < nt; t++) {
            char w[64];
            snprintf(w, sizeof w, "triangles[%llu]", (unsigned long long)t + 1);
            static const char *const ijk[] = {"i", "j", "k"};
            double v[3];
            lua_rawgeti(L, ti, (lua_Integer)t + 1);
            mo_lua_to_numbers(L, -1, ctx, w, 3, ijk, v);
            lua_pop(L, 1);
            for (int c = 0; c < 3; c++) {
                if (!(v[c] == floor(v[c])) || v[c] < 1 || v[c] > nv)
                    mo_lua_fail(L, ctx, "%s: vertex number %g is not in 1..%d", w, v[c], nv);
                ind[3 * t + (lua_Unsigned)c] = (int)v[c] - 1;
            }
        }
        d->indices = ind;
        d->triangle_count = (int)nt;
    } else if (mo_lua_has_field(L, idx, "points") || mo_lua_has_field(L, idx, "vertices") || mo_lua_has_field(L, idx, "triangles")) {
        mo_lua_fail(L, ctx, "points, vertices and triangles belong to hull and mesh shapes, not %s", type);
    }
}

static bool shape_at_origin(const mo_shape_def *d)
{
    return d->position.x == 0 && d->position.y == 0 && d->position.z == 0 && d->orientation.w == 1 &&
           d->orientation.x == 0 && d->orientation.y == 0 && d->orientation.z == 0;
}

/* ---- world ---- */

/* a setting read from world{} into the def being built */
static void def_setting(lua_State *L, void *user, const char *name, const char *value, const char *ctx)
{
    char err[512];
    if (mo_world_def_set((mo_world_def *)user, name, value, err, sizeof err) != MO_OK) mo_lua_fail(L, ctx, "%s", err);
}

/* world{...}: every key a setting of the engine's table (moreau.h "settings by name"), and duration */
static int l_world(lua_State *L)
{
    static const char *const scene_keys[] = {"duration", NULL};
    mo_scene_file *s = mo_lua_scene(L);
    const char *ctx = "world";
    mo_lua_need_table(L, 1, ctx);
    if (s->w || s->world_set)
        mo_lua_fail(L, ctx, "world{} must come once, before the first body, joint, particle or query");
    mo_world_def d = mo_default_world_def();
    mo_lua_read_settings(L, 1, "", ctx, scene_keys, def_setting, &d);
    double dur = mo_lua_num_field(L, 1, "duration", 0.0, ctx);
    if (!(dur >= 0.0) || !isfinite(dur)) mo_lua_fail(L, ctx, "duration must be finite and >= 0 s, got %g", dur);
    char err[512];
    mo_world *w = NULL;
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) mo_lua_fail(L, ctx, "%s", err);
    s->wdef = d;
    s->w = w;
    s->world_set = true;
    s->duration = dur;
    return 0;
}

/* the settings of set_solver{...}, "name=value" each, applied together */
typedef struct setting_list {
    char text[64][176];
    const char *items[64];
    int n;
} setting_list;

static void list_setting(lua_State *L, void *user, const char *name, const char *value, const char *ctx)
{
    setting_list *l = (setting_list *)user;
    if (l->n == 64) mo_lua_fail(L, ctx, "too many settings");
    snprintf(l->text[l->n], sizeof l->text[l->n], "%s=%s", name, value);
    l->items[l->n] = l->text[l->n];
    l->n++;
}

/* set_solver{...}: the keys of world{solver = {...}}, applied at once (mo_world_set_settings) */
static int l_set_solver(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    setting_list *l = (setting_list *)lua_newuserdatauv(L, sizeof(setting_list), 0);
    l->n = 0;
    mo_lua_read_settings(L, 1, "solver", "set_solver", NULL, list_setting, l);
    if (mo_world_set_settings(w, l->items, l->n) != MO_OK) mo_lua_world_fail(L, "set_solver");
    return 0;
}

/* moreau.solver_available(name): this build can run it (cholesky needs CHOLMOD) */
static int l_solver_available(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    mo_solver_kind k;
    lua_pushboolean(L, mo_solver_from_name(name, &k) && mo_solver_available(k));
    return 1;
}

static int l_set_gravity(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    if (mo_world_set_gravity(w, mo_lua_to_vec(L, 1, "set_gravity", "gravity")) != MO_OK) mo_lua_world_fail(L, "set_gravity");
    return 0;
}

static int l_set_time_step(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    if (mo_world_set_time_step(w, mo_lua_to_num(L, 1, "set_time_step", "time step")) != MO_OK) mo_lua_world_fail(L, "set_time_step");
    return 0;
}

static int l_gravity(lua_State *L)
{
    mo_lua_push_vec(L, mo_world_gravity(mo_lua_world(L)));
    return 1;
}

static int l_time(lua_State *L)
{
    lua_pushnumber(L, mo_world_time(mo_lua_world(L)));
    return 1;
}

static int l_time_step(lua_State *L)
{
    lua_pushnumber(L, mo_world_time_step(mo_lua_world(L)));
    return 1;
}

static int l_steps(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mo_lua_scene(L)->steps);
    return 1;
}

static int l_state_hash(lua_State *L)
{
    char h[32];
    snprintf(h, sizeof h, "%016llx", (unsigned long long)mo_world_state_hash(mo_lua_world(L)));
    lua_pushstring(L, h);
    return 1;
}

#define SET_I(name, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, name))
#define SET_N(name, v) (lua_pushnumber(L, (v)), lua_setfield(L, -2, name))

static int l_stats(lua_State *L)
{
    mo_step_stats st = mo_world_last_stats(mo_lua_world(L));
    lua_createtable(L, 0, 27);
    SET_I("step", st.step);
    SET_I("bodies", st.bodies);
    SET_I("particles", st.particles);
    SET_I("joints", st.joints);
    SET_I("dofs", st.dofs);
    SET_I("pairs", st.pairs);
    SET_I("contacts", st.contacts);
    SET_I("rows", st.rows);
    SET_I("nonzeros", st.nonzeros);
    SET_I("iterations", st.iterations);
    lua_pushboolean(L, st.converged);
    lua_setfield(L, -2, "converged");
    SET_N("residual", st.residual);
    SET_N("coulomb_error", st.coulomb_error);
    SET_N("max_penetration", st.max_penetration);
    SET_N("max_joint_error", st.max_joint_error);
    SET_N("t_predict", st.t_predict);
    SET_N("t_collide", st.t_collide);
    SET_N("t_assemble", st.t_assemble);
    SET_N("t_solve", st.t_solve);
    SET_N("t_integrate", st.t_integrate);
    SET_I("nan_warnings", st.nan_warnings);
    SET_N("regularisation", st.regularisation);
    SET_I("awake_bodies", st.awake_bodies);
    SET_I("sleeping_bodies", st.sleeping_bodies);
    SET_I("islands", st.islands);
    return 1;
}

/* raycast(origin, dir, max_distance): {body, point, normal, distance} or nil */
static int l_raycast(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    mo_vec3 o = mo_lua_to_vec(L, 1, "raycast", "origin"), d = mo_lua_to_vec(L, 2, "raycast", "direction");
    double m = mo_lua_to_num(L, 3, "raycast", "max_distance");
    mo_ray_hit hit;
    if (!mo_world_raycast(w, o, d, m, &hit)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 4);
    mo_lua_push_body(L, hit.body, NULL);
    lua_setfield(L, -2, "body");
    mo_lua_push_vec(L, hit.point);
    lua_setfield(L, -2, "point");
    mo_lua_push_vec(L, hit.normal);
    lua_setfield(L, -2, "normal");
    SET_N("distance", hit.distance);
    return 1;
}

/* axis_angle(axis, angle): the unit quaternion {w, x, y, z} */
static int l_axis_angle(lua_State *L)
{
    mo_vec3 a = mo_lua_to_vec(L, 1, "axis_angle", "axis");
    double ang = mo_lua_to_num(L, 2, "axis_angle", "angle");
    double n = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    if (!(n > 0.0) || !isfinite(n)) mo_lua_fail(L, "axis_angle", "axis must be finite and non-zero");
    double s = sin(0.5 * ang) / n;
    mo_quat q = {cos(0.5 * ang), a.x * s, a.y * s, a.z * s};
    mo_lua_push_quat(L, q);
    return 1;
}

/* rotate(q, v): v turned by q */
static int l_rotate(lua_State *L)
{
    mo_quat q = mo_lua_to_quat(L, 1, "rotate", "quaternion");
    mo_vec3 v = mo_lua_to_vec(L, 2, "rotate", "vector");
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(n > 0.0) || !isfinite(n)) mo_lua_fail(L, "rotate", "quaternion must be finite and non-zero");
    mo_lua_push_vec(L, mo_lua_qrot(q, v));
    return 1;
}

/* ---- bodies ---- */

mo_shape_def *mo_lua_shapes_field(lua_State *L, int idx, const char *ctx, int *count)
{
    idx = lua_absindex(L, idx);
    if (mo_lua_has_field(L, idx, "shape") && mo_lua_has_field(L, idx, "shapes"))
        mo_lua_fail(L, ctx, "give shape or shapes, not both");
    *count = 0;
    mo_shape_def *shapes = NULL;
    luaL_checkstack(L, 8, ctx);
    if (lua_getfield(L, idx, "shape") != LUA_TNIL) {
        shapes = (mo_shape_def *)lua_newuserdatauv(L, sizeof *shapes, 0);
        parse_shape(L, -2, ctx, &shapes[0]);
        *count = 1;
    } else if (lua_getfield(L, idx, "shapes") != LUA_TNIL) {
        int t = lua_gettop(L);
        if (!lua_istable(L, t))
            mo_lua_fail(L, ctx, "shapes must be a table of shape tables, got %s", luaL_typename(L, t));
        lua_Unsigned n = lua_rawlen(L, t);
        if (n > 100000u) mo_lua_fail(L, ctx, "too many shapes (%llu)", (unsigned long long)n);
        shapes = (mo_shape_def *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *shapes, 0);
        for (lua_Unsigned i = 0; i < n; i++) {
            char c[200];
            snprintf(c, sizeof c, "%s shape %llu", ctx, (unsigned long long)i + 1);
            luaL_checkstack(L, 8, c); /* each shape may leave its table and arrays */
            lua_rawgeti(L, t, (lua_Integer)i + 1);
            parse_shape(L, -1, c, &shapes[i]);
        }
        *count = (int)n;
    }
    return shapes;
}

static const char *const body_types[] = {"dynamic", "static", "kinematic", NULL};
static const char *const body_keys[] = {"name", "type", "position", "orientation", "velocity", "angular_velocity",
                                        "mass", "inertia", "shape", "shapes", "linear_damping", "angular_damping",
                                        "gyroscopic", "collision_group", NULL};

/* total mass of the shapes at their densities, measured in a private world */
static double shapes_mass(lua_State *L, const char *ctx, const mo_shape_def *shapes, int n)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (!s->scratch) {
        mo_world_def wd = mo_default_world_def();
        char err[256];
        if (mo_world_create(&wd, &s->scratch, err, sizeof err) != MO_OK) mo_lua_fail(L, ctx, "%s", err);
    }
    mo_body_def bd = mo_default_body_def();
    bd.type = MO_BODY_STATIC;
    mo_body_id b;
    if (mo_body_create(s->scratch, &bd, &b) != MO_OK) mo_lua_fail(L, ctx, "%s", mo_world_last_error(s->scratch));
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        mo_shape_id sid;
        double m = 0.0;
        if (mo_shape_create(s->scratch, b, &shapes[i], &sid) != MO_OK ||
            mo_shape_mass(s->scratch, sid, &m, NULL, NULL) != MO_OK) {
            char e[512];
            snprintf(e, sizeof e, "%s", mo_world_last_error(s->scratch));
            mo_body_destroy(s->scratch, b);
            mo_lua_fail(L, ctx, "shape %d: %s", i + 1, e);
        }
        total += m;
    }
    mo_body_destroy(s->scratch, b);
    return total;
}

static void read_inertia(lua_State *L, int idx, const char *ctx, mo_mat3 *I)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        mo_lua_fail(L, ctx, "inertia must be {Ixx, Iyy, Izz} or three rows of three numbers, got %s", luaL_typename(L, idx));
    memset(I, 0, sizeof *I);
    if (lua_rawgeti(L, idx, 1) == LUA_TTABLE) {
        lua_pop(L, 1);
        for (int r = 0; r < 3; r++) {
            char w[32];
            snprintf(w, sizeof w, "inertia[%d]", r + 1);
            lua_rawgeti(L, idx, r + 1);
            mo_vec3 row = mo_lua_to_vec(L, -1, ctx, w);
            lua_pop(L, 1);
            I->m[r][0] = row.x, I->m[r][1] = row.y, I->m[r][2] = row.z;
        }
    } else {
        lua_pop(L, 1);
        mo_vec3 dg = mo_lua_to_vec(L, idx, ctx, "inertia");
        I->m[0][0] = dg.x, I->m[1][1] = dg.y, I->m[2][2] = dg.z;
    }
}

/* body{...}: see docs/scenes.md ("The Lua API", body{}) for the mass rules */
static int l_body(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    lua_settop(L, 1);
    mo_lua_need_table(L, 1, "body");
    const char *name = NULL;
    if (lua_getfield(L, 1, "name") == LUA_TSTRING) name = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1)) mo_lua_fail(L, "body", "name must be a string, got %s", luaL_typename(L, -1));
    /* the name stays at index 2 */
    char ctx[160];
    mo_lua_make_ctx(ctx, sizeof ctx, "body", name);
    mo_lua_check_keys(L, 1, ctx, body_keys);
    mo_body_def d = mo_default_body_def();
    const char *type = mo_lua_str_field(L, 1, "type", ctx);
    if (type) d.type = (mo_body_type)mo_lua_enum_value(L, ctx, "type", type, body_types);
    d.position = mo_lua_vec_field(L, 1, "position", d.position, ctx);
    d.orientation = mo_lua_quat_field(L, 1, "orientation", d.orientation, ctx);
    d.linear_velocity = mo_lua_vec_field(L, 1, "velocity", d.linear_velocity, ctx);
    d.angular_velocity = mo_lua_vec_field(L, 1, "angular_velocity", d.angular_velocity, ctx);
    d.linear_damping = mo_lua_num_field(L, 1, "linear_damping", d.linear_damping, ctx);
    d.angular_damping = mo_lua_num_field(L, 1, "angular_damping", d.angular_damping, ctx);
    d.gyroscopic = mo_lua_bool_field(L, 1, "gyroscopic", d.gyroscopic, ctx);
    d.collision_group = mo_lua_u32_field(L, 1, "collision_group", d.collision_group, ctx);
    bool has_mass = mo_lua_has_field(L, 1, "mass"), has_inertia = mo_lua_has_field(L, 1, "inertia");
    if (has_mass) {
        d.mass = mo_lua_num_field(L, 1, "mass", d.mass, ctx);
        if (!(d.mass > 0.0) || !isfinite(d.mass)) mo_lua_fail(L, ctx, "mass must be positive, got %g", d.mass);
    }
    if (has_inertia) {
        lua_getfield(L, 1, "inertia");
        read_inertia(L, -1, ctx, &d.inertia);
        lua_pop(L, 1);
    }
    int nshapes = 0;
    mo_shape_def *shapes = mo_lua_shapes_field(L, 1, ctx, &nshapes);
    mo_scene_file *s = mo_lua_scene(L);
    if (s->objects + 1 + nshapes > s->opt.max_objects)
        mo_lua_fail(L, "", "object limit of %d bodies, shapes, joints and particles reached", s->opt.max_objects);
    bool dynamic = d.type == MO_BODY_DYNAMIC;
    bool single = nshapes == 1 && shape_at_origin(&shapes[0]);
    /* how the mass is set: given (engine inertia from the single shape), given with inertia,
       from the shapes at their densities, or from the shapes scaled to the given mass */
    bool from_shapes = false;
    if (dynamic && nshapes > 0 && !has_inertia && !(has_mass && single)) {
        from_shapes = true;
        if (has_mass) {
            double m0 = shapes_mass(L, ctx, shapes, nshapes);
            if (!(m0 > 0.0)) mo_lua_fail(L, ctx, "the shapes have no volume to spread the mass over");
            for (int i = 0; i < nshapes; i++) shapes[i].density *= d.mass / m0;
        }
    }
    int first = 0;
    if (single && !from_shapes) {
        d.shape = shapes[0];
        first = 1;
    } else if (from_shapes) {
        d.mass = 1.0; /* created with unit mass; mo_body_set_mass_from_shapes below sets the shapes' mass */
        d.inertia = (mo_mat3){{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    }
    mo_body_id id;
    if (mo_body_create(w, &d, &id) != MO_OK) mo_lua_world_fail(L, ctx);
    s->objects += 1 + (first ? 1 : 0);
    for (int i = first; i < nshapes; i++) {
        mo_shape_id sid;
        if (mo_shape_create(w, id, &shapes[i], &sid) != MO_OK) {
            char e[512];
            snprintf(e, sizeof e, "shape %d: %s", i + 1, mo_world_last_error(w));
            mo_body_destroy(w, id);
            mo_lua_fail(L, ctx, "%s", e);
        }
        s->objects++;
    }
    if (from_shapes && mo_body_set_mass_from_shapes(w, id) != MO_OK) {
        char e[512];
        snprintf(e, sizeof e, "%s", mo_world_last_error(w));
        mo_body_destroy(w, id);
        mo_lua_fail(L, ctx, "%s", e);
    }
    mo_lua_record_body(L, id, name);
    mo_lua_push_body(L, id, name);
    return 1;
}

/* ground{friction, ...}: a static plane z = 0 (the first body of most scenes) */
static int l_ground(lua_State *L)
{
    static const char *const keys[] = {"friction", "name", "category", "mask", NULL};
    mo_world *w = mo_lua_world(L);
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    mo_lua_need_table(L, 1, "ground");
    mo_lua_check_keys(L, 1, "ground", keys);
    mo_body_def d = mo_default_body_def();
    d.type = MO_BODY_STATIC;
    d.shape.type = MO_SHAPE_PLANE;
    d.shape.friction = mo_lua_num_field(L, 1, "friction", d.shape.friction, "ground");
    d.shape.category = mo_lua_u32_field(L, 1, "category", d.shape.category, "ground");
    d.shape.mask = mo_lua_u32_field(L, 1, "mask", d.shape.mask, "ground");
    const char *name = mo_lua_str_field(L, 1, "name", "ground");
    mo_lua_count_object(L);
    mo_body_id id;
    if (mo_body_create(w, &d, &id) != MO_OK) mo_lua_world_fail(L, "ground");
    mo_lua_scene(L)->objects++;
    mo_lua_record_body(L, id, name ? name : "ground");
    mo_lua_push_body(L, id, name ? name : "ground");
    return 1;
}

static int b_position(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 v;
    if (mo_body_position(mo_lua_world(L), id, &v) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, v);
    return 1;
}

static int b_orientation(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_quat q;
    if (mo_body_orientation(mo_lua_world(L), id, &q) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_quat(L, q);
    return 1;
}

static int b_velocity(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 v;
    if (mo_body_linear_velocity(mo_lua_world(L), id, &v) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, v);
    return 1;
}

static int b_angular_velocity(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 v;
    if (mo_body_angular_velocity(mo_lua_world(L), id, &v) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, v);
    return 1;
}

/* b:mass() -> mass, {{Ixx, Ixy, Ixz}, ...} (body frame) */
static int b_mass(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    double m;
    mo_mat3 I;
    if (mo_body_mass(mo_lua_world(L), id, &m, &I) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, m);
    lua_createtable(L, 3, 0);
    for (int r = 0; r < 3; r++) {
        lua_createtable(L, 3, 0);
        for (int c = 0; c < 3; c++) {
            lua_pushnumber(L, I.m[r][c]);
            lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, r + 1);
    }
    return 2;
}

static int b_kinetic_energy(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    double e;
    if (mo_body_kinetic_energy(mo_lua_world(L), id, &e) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, e);
    return 1;
}

static int b_set_pose(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_world *w = mo_lua_world(L);
    mo_vec3 p = mo_lua_to_vec(L, 2, ctx, "position");
    mo_quat q;
    if (lua_isnoneornil(L, 3)) {
        if (mo_body_orientation(w, id, &q) != MO_OK) mo_lua_world_fail(L, ctx);
    } else {
        q = mo_lua_to_quat(L, 3, ctx, "orientation");
    }
    if (mo_body_set_pose(w, id, p, q) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_set_velocity(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_world *w = mo_lua_world(L);
    mo_vec3 v = mo_lua_to_vec(L, 2, ctx, "velocity"), om;
    if (lua_isnoneornil(L, 3)) {
        if (mo_body_angular_velocity(w, id, &om) != MO_OK) mo_lua_world_fail(L, ctx);
    } else {
        om = mo_lua_to_vec(L, 3, ctx, "angular velocity");
    }
    if (mo_body_set_velocity(w, id, v, om) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_apply_force(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 f = mo_lua_to_vec(L, 2, ctx, "force"), t = {0, 0, 0};
    if (!lua_isnoneornil(L, 3)) t = mo_lua_to_vec(L, 3, ctx, "torque");
    if (mo_body_apply_force(mo_lua_world(L), id, f, t) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_apply_force_at(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 f = mo_lua_to_vec(L, 2, ctx, "force"), p = mo_lua_to_vec(L, 3, ctx, "point");
    if (mo_body_apply_force_at(mo_lua_world(L), id, f, p) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_world_point(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_vec3 p;
    if (mo_body_world_point(mo_lua_world(L), id, mo_lua_to_vec(L, 2, ctx, "point"), &p) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, p);
    return 1;
}

static int b_add_shape(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    mo_world *w = mo_lua_world(L);
    mo_shape_def d;
    parse_shape(L, 2, ctx, &d);
    mo_lua_count_object(L);
    mo_shape_id sid;
    if (mo_shape_create(w, id, &d, &sid) != MO_OK) mo_lua_world_fail(L, ctx);
    lshape *s = (lshape *)lua_newuserdatauv(L, sizeof *s, 0);
    s->id = sid;
    luaL_setmetatable(L, SHAPE_MT);
    return 1;
}

static int b_set_mass_from_shapes(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    if (mo_body_set_mass_from_shapes(mo_lua_world(L), id) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_destroy(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    if (mo_body_destroy(mo_lua_world(L), id) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int b_valid(lua_State *L)
{
    char ctx[160];
    mo_body_id id = self_body(L, ctx, sizeof ctx);
    lua_pushboolean(L, mo_body_is_valid(mo_lua_world(L), id));
    return 1;
}

static int b_name(lua_State *L)
{
    char ctx[160];
    self_body(L, ctx, sizeof ctx);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

void mo_lua_push_handle_string(lua_State *L, const char *kind, uint32_t index)
{
    const char *n = handle_name(L, 1);
    lua_pushfstring(L, "%s %d%s%s%s", kind, (int)index, n ? " '" : "", n ? n : "", n ? "'" : "");
}

static int b_tostring(lua_State *L)
{
    lbody *b = (lbody *)luaL_checkudata(L, 1, BODY_MT);
    mo_lua_push_handle_string(L, "body", b->id.index);
    return 1;
}

static int b_eq(lua_State *L)
{
    lbody *a = (lbody *)luaL_testudata(L, 1, BODY_MT), *b = (lbody *)luaL_testudata(L, 2, BODY_MT);
    lua_pushboolean(L, a && b && a->id.index == b->id.index && a->id.generation == b->id.generation);
    return 1;
}

/* ---- joints ---- */

static const char *const joint_types[] = {"fixed", "spherical", "revolute", "prismatic", "distance", NULL};
static const char *const motor_names[] = {"off", "velocity", "position", NULL};
static const char *const joint_keys[] = {"name", "type", "a", "b", "anchor", "anchor_a", "anchor_b", "axis",
                                         "axis_a", "axis_b", "length", "limit", "motor", "target_velocity",
                                         "target_position", "stiffness", "damping", "max_force", "compliance",
                                         "collide_connected", NULL};

static int l_joint(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    lua_settop(L, 1);
    mo_lua_need_table(L, 1, "joint");
    const char *name = NULL;
    if (lua_getfield(L, 1, "name") == LUA_TSTRING) name = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1)) mo_lua_fail(L, "joint", "name must be a string, got %s", luaL_typename(L, -1));
    char ctx[160];
    mo_lua_make_ctx(ctx, sizeof ctx, "joint", name);
    mo_lua_check_keys(L, 1, ctx, joint_keys);
    mo_joint_def d = mo_default_joint_def();
    const char *type = mo_lua_str_field(L, 1, "type", ctx);
    if (!type) mo_lua_fail(L, ctx, "needs a type (fixed, spherical, revolute, prismatic, distance)");
    d.type = (mo_joint_type)mo_lua_enum_value(L, ctx, "type", type, joint_types);
    if (lua_getfield(L, 1, "a") != LUA_TNIL) d.body_a = check_body(L, -1, ctx, "a")->id;
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "b") == LUA_TNIL) mo_lua_fail(L, ctx, "needs body b");
    d.body_b = check_body(L, -1, ctx, "b")->id;
    lua_pop(L, 1);
    /* poses of the two bodies (the world for a missing a) */
    mo_vec3 xa = {0, 0, 0}, xb;
    mo_quat qa = {1, 0, 0, 0}, qb;
    if (!mo_body_id_is_null(d.body_a) &&
        (mo_body_position(w, d.body_a, &xa) != MO_OK || mo_body_orientation(w, d.body_a, &qa) != MO_OK))
        mo_lua_world_fail(L, ctx);
    if (mo_body_position(w, d.body_b, &xb) != MO_OK || mo_body_orientation(w, d.body_b, &qb) != MO_OK)
        mo_lua_world_fail(L, ctx);
    if (mo_lua_has_field(L, 1, "anchor")) {
        if (mo_lua_has_field(L, 1, "anchor_a") || mo_lua_has_field(L, 1, "anchor_b"))
            mo_lua_fail(L, ctx, "give anchor (world point) or anchor_a/anchor_b (body frames), not both");
        mo_vec3 p = mo_lua_vec_field(L, 1, "anchor", xb, ctx);
        d.anchor_a = mo_lua_qrot_inv(qa, (mo_vec3){p.x - xa.x, p.y - xa.y, p.z - xa.z});
        d.anchor_b = mo_lua_qrot_inv(qb, (mo_vec3){p.x - xb.x, p.y - xb.y, p.z - xb.z});
    } else {
        d.anchor_a = mo_lua_vec_field(L, 1, "anchor_a", d.anchor_a, ctx);
        d.anchor_b = mo_lua_vec_field(L, 1, "anchor_b", d.anchor_b, ctx);
    }
    if (mo_lua_has_field(L, 1, "axis")) {
        if (mo_lua_has_field(L, 1, "axis_a") || mo_lua_has_field(L, 1, "axis_b"))
            mo_lua_fail(L, ctx, "give axis (world frame) or axis_a/axis_b (body frames), not both");
        mo_vec3 a = mo_lua_vec_field(L, 1, "axis", d.axis_a, ctx);
        d.axis_a = mo_lua_qrot_inv(qa, a);
        d.axis_b = mo_lua_qrot_inv(qb, a);
    } else {
        d.axis_a = mo_lua_vec_field(L, 1, "axis_a", d.axis_a, ctx);
        d.axis_b = mo_lua_vec_field(L, 1, "axis_b", d.axis_b, ctx);
    }
    d.length = mo_lua_num_field(L, 1, "length", d.length, ctx);
    if (lua_getfield(L, 1, "limit") != LUA_TNIL) {
        static const char *const lu[] = {"lower", "upper"};
        double v[2];
        mo_lua_to_numbers(L, -1, ctx, "limit", 2, lu, v);
        d.enable_limit = true;
        d.lower = v[0];
        d.upper = v[1];
    }
    lua_pop(L, 1);
    const char *motor = mo_lua_str_field(L, 1, "motor", ctx);
    if (motor) d.motor = (mo_motor_mode)mo_lua_enum_value(L, ctx, "motor", motor, motor_names);
    d.target_velocity = mo_lua_num_field(L, 1, "target_velocity", d.target_velocity, ctx);
    d.target_position = mo_lua_num_field(L, 1, "target_position", d.target_position, ctx);
    d.stiffness = mo_lua_num_field(L, 1, "stiffness", d.stiffness, ctx);
    d.damping = mo_lua_num_field(L, 1, "damping", d.damping, ctx);
    d.max_force = mo_lua_num_field(L, 1, "max_force", d.max_force, ctx);
    d.compliance = mo_lua_num_field(L, 1, "compliance", d.compliance, ctx);
    d.collide_connected = mo_lua_bool_field(L, 1, "collide_connected", d.collide_connected, ctx);
    mo_lua_count_object(L);
    mo_joint_id id;
    if (mo_joint_create(w, &d, &id) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_joint(L, id, name);
    ((ljoint *)lua_touserdata(L, -1))->max_force = d.max_force;
    return 1;
}

static void joint_ctx(lua_State *L, char *ctx, size_t n) { mo_lua_make_ctx(ctx, n, "joint", handle_name(L, 1)); }

static int j_position(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    double v;
    if (mo_joint_position(mo_lua_world(L), j->id, &v) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, v);
    return 1;
}

static int j_error(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    double v;
    if (mo_joint_error(mo_lua_world(L), j->id, &v) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, v);
    return 1;
}

static int j_reaction(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    mo_vec3 f, t;
    if (mo_joint_reaction(mo_lua_world(L), j->id, &f, &t) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, f);
    mo_lua_push_vec(L, t);
    return 2;
}

/* j:set_motor{motor = "position", target_position = , target_velocity = , max_force = } */
static int j_set_motor(lua_State *L)
{
    static const char *const keys[] = {"motor", "target_velocity", "target_position", "max_force", NULL};
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    mo_lua_need_table(L, 2, ctx);
    mo_lua_check_keys(L, 2, ctx, keys);
    const char *m = mo_lua_str_field(L, 2, "motor", ctx);
    if (!m) mo_lua_fail(L, ctx, "set_motor needs motor (off, velocity, position)");
    mo_motor_mode mode = (mo_motor_mode)mo_lua_enum_value(L, ctx, "motor", m, motor_names);
    double tv = mo_lua_num_field(L, 2, "target_velocity", 0.0, ctx);
    double tp = mo_lua_num_field(L, 2, "target_position", 0.0, ctx);
    double mf = mo_lua_num_field(L, 2, "max_force", j->max_force, ctx);
    if (mo_joint_set_motor(mo_lua_world(L), j->id, mode, tv, tp, mf) != MO_OK) mo_lua_world_fail(L, ctx);
    j->max_force = mf;
    return 0;
}

/* j:set_target(position [, max_force]): PD drive toward position */
static int j_set_target(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    double tp = mo_lua_to_num(L, 2, ctx, "target position");
    double mf = lua_isnoneornil(L, 3) ? j->max_force : mo_lua_to_num(L, 3, ctx, "max_force");
    if (mo_joint_set_motor(mo_lua_world(L), j->id, MO_MOTOR_POSITION, 0.0, tp, mf) != MO_OK) mo_lua_world_fail(L, ctx);
    j->max_force = mf;
    return 0;
}

static int j_destroy(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    char ctx[160];
    joint_ctx(L, ctx, sizeof ctx);
    if (mo_joint_destroy(mo_lua_world(L), j->id) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int j_valid(lua_State *L)
{
    ljoint *j = check_joint(L, 1);
    lua_pushboolean(L, mo_joint_is_valid(mo_lua_world(L), j->id));
    return 1;
}

static int j_name(lua_State *L)
{
    check_joint(L, 1);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

static int j_tostring(lua_State *L)
{
    ljoint *j = (ljoint *)luaL_checkudata(L, 1, JOINT_MT);
    mo_lua_push_handle_string(L, "joint", j->id.index);
    return 1;
}

/* ---- particles ---- */

static int l_particle(lua_State *L)
{
    static const char *const keys[] = {"position", "velocity", "mass", "radius", "friction", NULL};
    mo_world *w = mo_lua_world(L);
    const char *ctx = "particle";
    mo_lua_need_table(L, 1, ctx);
    mo_lua_check_keys(L, 1, ctx, keys);
    mo_particle_def d = mo_default_particle_def();
    d.position = mo_lua_vec_field(L, 1, "position", d.position, ctx);
    d.velocity = mo_lua_vec_field(L, 1, "velocity", d.velocity, ctx);
    d.mass = mo_lua_num_field(L, 1, "mass", d.mass, ctx);
    d.radius = mo_lua_num_field(L, 1, "radius", d.radius, ctx);
    d.friction = mo_lua_num_field(L, 1, "friction", d.friction, ctx);
    mo_lua_count_object(L);
    mo_particle_id id;
    if (mo_particle_create(w, &d, &id) != MO_OK) mo_lua_world_fail(L, ctx);
    lparticle *p = (lparticle *)lua_newuserdatauv(L, sizeof *p, 0);
    p->id = id;
    luaL_setmetatable(L, PARTICLE_MT);
    return 1;
}

static int p_position(lua_State *L)
{
    lparticle *p = check_particle(L, 1);
    mo_vec3 v;
    if (mo_particle_position(mo_lua_world(L), p->id, &v) != MO_OK) mo_lua_world_fail(L, "particle");
    mo_lua_push_vec(L, v);
    return 1;
}

static int p_velocity(lua_State *L)
{
    lparticle *p = check_particle(L, 1);
    mo_vec3 v;
    if (mo_particle_velocity(mo_lua_world(L), p->id, &v) != MO_OK) mo_lua_world_fail(L, "particle");
    mo_lua_push_vec(L, v);
    return 1;
}

static int p_set_velocity(lua_State *L)
{
    lparticle *p = check_particle(L, 1);
    if (mo_particle_set_velocity(mo_lua_world(L), p->id, mo_lua_to_vec(L, 2, "particle", "velocity")) != MO_OK)
        mo_lua_world_fail(L, "particle");
    return 0;
}

static int p_apply_force(lua_State *L)
{
    lparticle *p = check_particle(L, 1);
    if (mo_particle_apply_force(mo_lua_world(L), p->id, mo_lua_to_vec(L, 2, "particle", "force")) != MO_OK)
        mo_lua_world_fail(L, "particle");
    return 0;
}

static int p_destroy(lua_State *L)
{
    lparticle *p = check_particle(L, 1);
    if (mo_particle_destroy(mo_lua_world(L), p->id) != MO_OK) mo_lua_world_fail(L, "particle");
    return 0;
}

/* ---- shapes as handles ---- */

static int s_mass(lua_State *L)
{
    lshape *s = (lshape *)luaL_testudata(L, 1, SHAPE_MT);
    if (!s) mo_lua_fail(L, "", "expected a shape (call it as s:mass()), got %s", luaL_typename(L, 1));
    double m;
    mo_vec3 com;
    if (mo_shape_mass(mo_lua_world(L), s->id, &m, &com, NULL) != MO_OK) mo_lua_world_fail(L, "shape");
    lua_pushnumber(L, m);
    mo_lua_push_vec(L, com);
    return 2;
}

/* ---- scenario: callbacks, checks, stop ---- */

static int l_on_step(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    mo_scene_file *s = mo_lua_scene(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_steps);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

static int l_check(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        mo_lua_fail(L, "check", "first argument must be the claim as a string, got %s", luaL_typename(L, 1));
    if (lua_type(L, 2) != LUA_TFUNCTION)
        mo_lua_fail(L, "check", "second argument must be a function, got %s", luaL_typename(L, 2));
    mo_scene_file *s = mo_lua_scene(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_checks);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

static int l_stop(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    const char *r = luaL_optstring(L, 1, "");
    size_t n = strlen(r) + 1;
    char *copy = (char *)malloc(n);
    if (!copy) return luaL_error(L, "stop: out of memory");
    memcpy(copy, r, n);
    free(s->stop_reason);
    s->stop_reason = copy;
    s->done = true;
    return 0;
}

/* ---- registration ---- */

static void new_class(lua_State *L, const char *mt, const luaL_Reg *methods, lua_CFunction tostring, lua_CFunction eq)
{
    luaL_newmetatable(L, mt);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    if (tostring) {
        lua_pushcfunction(L, tostring);
        lua_setfield(L, -2, "__tostring");
    }
    if (eq) {
        lua_pushcfunction(L, eq);
        lua_setfield(L, -2, "__eq");
    }
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

void mo_lua_open_api(lua_State *L)
{
    static const luaL_Reg body_m[] = {
        {"position", b_position}, {"orientation", b_orientation}, {"velocity", b_velocity},
        {"angular_velocity", b_angular_velocity}, {"mass", b_mass}, {"kinetic_energy", b_kinetic_energy},
        {"set_pose", b_set_pose}, {"set_velocity", b_set_velocity}, {"apply_force", b_apply_force},
        {"apply_force_at", b_apply_force_at}, {"world_point", b_world_point}, {"add_shape", b_add_shape},
        {"set_mass_from_shapes", b_set_mass_from_shapes}, {"destroy", b_destroy}, {"valid", b_valid},
        {"name", b_name}, {"set_pair_collision", mo_lua_b_set_pair_collision},
        {"pair_collision", mo_lua_b_pair_collision}, {NULL, NULL}};
    static const luaL_Reg joint_m[] = {{"position", j_position}, {"error", j_error}, {"reaction", j_reaction},
                                       {"set_motor", j_set_motor}, {"set_target", j_set_target},
                                       {"destroy", j_destroy}, {"valid", j_valid}, {"name", j_name}, {NULL, NULL}};
    static const luaL_Reg particle_m[] = {{"position", p_position}, {"velocity", p_velocity},
                                          {"set_velocity", p_set_velocity}, {"apply_force", p_apply_force},
                                          {"destroy", p_destroy}, {NULL, NULL}};
    static const luaL_Reg shape_m[] = {{"mass", s_mass}, {NULL, NULL}};
    new_class(L, BODY_MT, body_m, b_tostring, b_eq);
    new_class(L, JOINT_MT, joint_m, j_tostring, NULL);
    new_class(L, PARTICLE_MT, particle_m, NULL, NULL);
    new_class(L, SHAPE_MT, shape_m, NULL, NULL);

    /* scene verbs: globals and fields of moreau */
    static const luaL_Reg verbs[] = {{"world", l_world},       {"ground", l_ground}, {"body", l_body},
                                     {"joint", l_joint},       {"particle", l_particle}, {"on_step", l_on_step},
                                     {"check", l_check},       {"stop", l_stop},     {NULL, NULL}};
    static const luaL_Reg queries[] = {
        {"set_solver", l_set_solver}, {"solver", mo_lua_solver},     {"set_gravity", l_set_gravity},
        {"gravity", l_gravity},       {"set_time_step", l_set_time_step}, {"time_step", l_time_step},
        {"time", l_time},             {"steps", l_steps},       {"state_hash", l_state_hash},
        {"stats", l_stats},           {"raycast", l_raycast},
        {"axis_angle", l_axis_angle}, {"rotate", l_rotate},     {"solver_available", l_solver_available},
        {NULL, NULL}};
    luaL_setfuncs(L, verbs, 0);
    luaL_setfuncs(L, queries, 0);
    for (int i = 0; verbs[i].name; i++) {
        lua_getfield(L, -1, verbs[i].name);
        lua_setglobal(L, verbs[i].name);
    }
    mo_lua_open_fem(L); /* fem{} (lua_fem.c) */
    mo_lua_open_contacts(L); /* moreau.contacts, b:contact_force() (lua_contacts.c) */
    mo_lua_open_artic(L); /* articulation{} (lua_artic.c) */
}
