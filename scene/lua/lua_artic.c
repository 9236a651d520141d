/* lua_artic.c: articulation{} for scene files (issue 19, phase 1): robots
 * in reduced coordinates through moreau/articulation.h.
 *
 *   articulation{name, position, orientation, integrator = "midpoint"|"euler",
 *                links = {{name, parent, joint = "revolute"|"prismatic"|"spherical"|"fixed"|"free", axis,
 *                          position, orientation, mass, com, inertia, damping, armature,
 *                          shape = {...} or shapes = {{...}, ...}}, ...}}  -> a handle
 *
 * Links count from 1 as Lua does: parent is a link number (earlier in the
 * list) or a link's name, absent (or 0) for the root (link 1). position and
 * orientation of a link are its joint frame's pose in the parent link's frame;
 * the articulation's are the base pose (a free root's initial pose). inertia
 * is a number (the three principal moments) or {ixx, iyy, izz} (diagonal, kg
 * m^2); default the engine's. shape/shapes are body{}'s shape tables: they
 * go on the link's body (mo_articulation_link_body: a kinematic body whose
 * frame is the link frame, whose contacts act on the articulation's dofs),
 * poses in the link frame; they collide, they add no mass (mass and inertia
 * are the link's). A link argument of a method is a number from 1 or a
 * link's name. Methods (q and qdot as lists, in the engine's layout):
 *   q(), set_q(list), qdot(), set_qdot(list), joint(link) -> q list, qdot list,
 *   set_joint(link, q list or nil, qdot list or nil), set_torques(list), clear_torques(),
 *   set_drive(link, {stiffness, damping, target_position, target_velocity, torque, max_effort}),
 *   gravity_compensation() -> list, link_pose(link) -> position, orientation, energy() -> kinetic, potential,
 *   set_limits(link, lower, upper) (nil or -math.huge/math.huge: no bound on that side), limits(link) ->
 *   lower, upper, set_friction(link, friction) (dry joint friction, N m or N), set_mimic(link, leader,
 *   multiplier = 1, offset = 0) (q_link = multiplier q_leader + offset; leader nil: none), constraint_forces()
 *   -> list (the last step's limit, friction and mimic torques, layout of qdot), jacobian(link, point) -> jv, jw (each 3
 *   rows of nv numbers: the world velocity of the point fixed on the link at point (link frame, default the
 *   origin) is jv qdot, the link's angular velocity jw qdot), link_velocity(link) -> angular, linear,
 *   joint_wrench(link) -> force, torque (the last step's reaction of the link's joint: what the parent exerts on
 *   the link, world axes, the torque about the link origin; mo_articulation_joint_wrench),
 *   link(name) -> number, link_body(link) -> body handle (named "<articulation>/<link as given>": add
 *   shapes with b:add_shape{...}; it moves with the link: set_pose, set_velocity, set_mass_from_shapes and
 *   destroy refuse it), size() -> links, nq, nv, destroy() (the link bodies go with it), valid(), name()
 * Torques and drives are held until changed (the engine's). Errors name the
 * articulation ("articulation 'arm': ...") with the engine's sentence (a
 * shape of articulation{}: "articulation 'arm': link 2 shape 1: ..."); the
 * world is unchanged on error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"
#include "moreau/articulation.h"

#define ARTIC_MT "moreau.articulation"

typedef struct lartic { mo_articulation_id id; } lartic;

static const char *const JOINTS[] = {"fixed", "revolute", "prismatic", "spherical", "free", NULL};

/* a zeroed block owned by a userdata left on the stack (freed by the GC: a Lua error leaks nothing) */
static void *scratch(lua_State *L, size_t n)
{
    void *p = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(p, 0, n ? n : 1);
    return p;
}

/* the parent of link i (0-based) from its table at idx (absolute) in the links list at links: -1 for the root */
static int read_parent(lua_State *L, int idx, int links, int i, const char *ctx)
{
    int t = mo_lua_field(L, idx, "parent");
    int p = -1;
    if (t == LUA_TNUMBER) {
        double v = lua_tonumber(L, -1);
        if (v == 0) p = -1;
        else if (v == floor(v) && v >= 1 && v <= i) p = (int)v - 1;
        else mo_lua_fail(L, ctx, "link %d: parent %g is not an earlier link (1..%d)", i + 1, v, i);
    } else if (t == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        for (int k = 0; k < i && p < 0; k++) {
            lua_rawgeti(L, links, k + 1);
            lua_getfield(L, -1, "name");
            if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), name) == 0) p = k;
            lua_pop(L, 2);
        }
        if (p < 0) mo_lua_fail(L, ctx, "link %d: parent '%s' is not the name of an earlier link", i + 1, name);
    } else if (t != LUA_TNIL) {
        mo_lua_fail(L, ctx, "link %d: parent must be a link number or name, got %s", i + 1, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return p;
}

/* records link body b under "<articulation>/<link>" for mo_scene_file_bodies (moreau-run's trajectories, the
   viewer's names), once */
static void record_link(lua_State *L, mo_body_id b, const char *art, const char *link, int k)
{
    const mo_scene_file *s = mo_lua_scene(L);
    for (int i = 0; i < s->nbody_records; i++)
        if (s->body_ids[i].index == b.index && s->body_ids[i].generation == b.generation) return;
    char name[200];
    if (link && link[0]) snprintf(name, sizeof name, "%s%s%s", art ? art : "", art ? "/" : "", link);
    else snprintf(name, sizeof name, "%s%s%d", art ? art : "", art ? "/" : "", k + 1);
    mo_lua_record_body(L, b, name);
}

static int l_articulation(lua_State *L)
{
    static const char *const keys[] = {"name", "position", "orientation", "integrator", "links", NULL};
    static const char *const lkeys[] = {"name",    "parent",  "joint",    "axis",  "position", "orientation",
                                        "mass",    "com",     "inertia",  "damping", "armature", "shape",
                                        "shapes",  NULL};
    static const char *const integrators[] = {"midpoint", "euler", NULL};
    mo_lua_need_table(L, 1, "articulation");
    const char *name = mo_lua_str_field(L, 1, "name", "articulation");
    char ctx[160];
    mo_lua_make_ctx(ctx, sizeof ctx, "articulation", name);
    mo_lua_check_keys(L, 1, ctx, keys);
    mo_articulation_def d = mo_default_articulation_def();
    d.base_position = mo_lua_vec_field(L, 1, "position", d.base_position, ctx);
    d.base_orientation = mo_lua_quat_field(L, 1, "orientation", d.base_orientation, ctx);
    const char *in = mo_lua_str_field(L, 1, "integrator", ctx);
    if (in) d.integrator = (mo_articulation_integrator)mo_lua_enum_value(L, ctx, "integrator", in, integrators);
    if (mo_lua_field(L, 1, "links") != LUA_TTABLE) mo_lua_fail(L, ctx, "links must be a list of link tables");
    int links = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, links);
    if (n < 1 || n > MO_LINKS_MAX) mo_lua_fail(L, ctx, "links must hold 1 to %d links, got %lld", MO_LINKS_MAX, (long long)n);
    mo_link_def *l = (mo_link_def *)scratch(L, (size_t)n * sizeof *l);
    /* each link's collision shapes (on its link body, made after the articulation) */
    mo_shape_def **shapes = (mo_shape_def **)scratch(L, (size_t)n * sizeof *shapes);
    int *nshapes = (int *)scratch(L, (size_t)n * sizeof *nshapes);
    int nshapes_all = 0;
    for (int i = 0; i < (int)n; i++) {
        lua_rawgeti(L, links, i + 1);
        int t = lua_gettop(L);
        char lctx[200];
        snprintf(lctx, sizeof lctx, "%s link %d", ctx, i + 1);
        mo_lua_need_table(L, t, lctx);
        mo_lua_check_keys(L, t, lctx, lkeys);
        l[i] = mo_default_link_def();
        l[i].name = mo_lua_str_field(L, t, "name", lctx); /* the string stays alive in the links table */
        l[i].parent = read_parent(L, t, links, i, ctx);
        const char *j = mo_lua_str_field(L, t, "joint", lctx);
        if (j) l[i].joint = (mo_link_joint)mo_lua_enum_value(L, lctx, "joint", j, JOINTS);
        l[i].axis = mo_lua_vec_field(L, t, "axis", l[i].axis, lctx);
        l[i].joint_position = mo_lua_vec_field(L, t, "position", l[i].joint_position, lctx);
        l[i].joint_orientation = mo_lua_quat_field(L, t, "orientation", l[i].joint_orientation, lctx);
        l[i].mass = mo_lua_num_field(L, t, "mass", l[i].mass, lctx);
        l[i].com = mo_lua_vec_field(L, t, "com", l[i].com, lctx);
        int it = mo_lua_field(L, t, "inertia");
        if (it == LUA_TNUMBER) {
            double v = lua_tonumber(L, -1);
            l[i].inertia = (mo_mat3){{{v, 0, 0}, {0, v, 0}, {0, 0, v}}};
        } else if (it != LUA_TNIL) {
            mo_vec3 v = mo_lua_to_vec(L, -1, lctx, "inertia");
            l[i].inertia = (mo_mat3){{{v.x, 0, 0}, {0, v.y, 0}, {0, 0, v.z}}};
        }
        lua_pop(L, 1);
        l[i].damping = mo_lua_num_field(L, t, "damping", l[i].damping, lctx);
        l[i].armature = mo_lua_num_field(L, t, "armature", l[i].armature, lctx);
        /* read as body{} reads them; what they leave on the stack stays above the link table, removed instead */
        shapes[i] = mo_lua_shapes_field(L, t, lctx, &nshapes[i]);
        nshapes_all += nshapes[i];
        lua_remove(L, t);
    }
    d.links = l;
    d.link_count = (int)n;
    mo_world *w = mo_lua_world(L);
    mo_scene_file *s = mo_lua_scene(L);
    if (s->objects + 1 + nshapes_all > s->opt.max_objects) /* its link bodies go with it: not counted */
        mo_lua_fail(L, "", "object limit of %d bodies, shapes, joints and particles reached", s->opt.max_objects);
    mo_articulation_id id;
    if (mo_articulation_create(w, &d, &id) != MO_OK) mo_lua_world_fail(L, ctx);
    s->objects++;
    /* the shapes on the links' bodies; a refusal takes the articulation (and its link bodies) away again */
    for (int i = 0; i < (int)n; i++)
        for (int k = 0; k < nshapes[i]; k++) {
            mo_body_id b;
            mo_shape_id sid;
            if (mo_articulation_link_body(w, id, i, &b) != MO_OK ||
                mo_shape_create(w, b, &shapes[i][k], &sid) != MO_OK) {
                char e[600];
                snprintf(e, sizeof e, "link %d shape %d: %s", i + 1, k + 1, mo_world_last_error(w));
                mo_articulation_destroy(w, id);
                mo_lua_fail(L, ctx, "%s", e);
            }
        }
    s->objects += nshapes_all;
    for (int i = 0; i < (int)n; i++) {
        mo_body_id b;
        if (nshapes[i] > 0 && mo_articulation_link_body(w, id, i, &b) == MO_OK) record_link(L, b, name, l[i].name, i);
    }
    mo_lua_push_articulation(L, id, name);
    return 1;
}

void mo_lua_push_articulation(lua_State *L, mo_articulation_id id, const char *name)
{
    lartic *h = (lartic *)lua_newuserdatauv(L, sizeof *h, 1);
    h->id = id;
    if (name) {
        lua_pushstring(L, name);
        lua_setiuservalue(L, -2, 1);
    }
    luaL_setmetatable(L, ARTIC_MT);
}

/* ---- methods ---- */

static mo_articulation_id self(lua_State *L, char *ctx, size_t n)
{
    lartic *h = (lartic *)luaL_testudata(L, 1, ARTIC_MT);
    if (!h) mo_lua_fail(L, "", "expected an articulation (call it as a:method()), got %s", luaL_typename(L, 1));
    if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) snprintf(ctx, n, "articulation '%s'", lua_tostring(L, -1));
    else snprintf(ctx, n, "articulation");
    lua_pop(L, 1);
    return h->id;
}

static void sizes(lua_State *L, mo_articulation_id id, const char *ctx, int *nl, int *nq, int *nv)
{
    if (mo_articulation_size(mo_lua_world(L), id, nl, nq, nv) != MO_OK) mo_lua_world_fail(L, ctx);
}

/* a link argument: a number from 1 or a name; 0-based */
static int link_arg(lua_State *L, int idx, mo_articulation_id id, const char *ctx)
{
    int nl;
    sizes(L, id, ctx, &nl, NULL, NULL);
    if (lua_type(L, idx) == LUA_TSTRING) {
        int k;
        if (mo_articulation_find_link(mo_lua_world(L), id, lua_tostring(L, idx), &k) != MO_OK) mo_lua_world_fail(L, ctx);
        return k;
    }
    if (lua_type(L, idx) != LUA_TNUMBER)
        mo_lua_fail(L, ctx, "link must be a number or a name, got %s", luaL_typename(L, idx));
    double v = lua_tonumber(L, idx);
    if (!(v >= 1 && v <= nl) || v != floor(v)) mo_lua_fail(L, ctx, "link %g is not in 1..%d", v, nl);
    return (int)v - 1;
}

static void push_list(lua_State *L, const double *a, int n)
{
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_pushnumber(L, a[k]);
        lua_rawseti(L, -2, k + 1);
    }
}

/* a list of exactly n numbers at idx into a scratch block left on the stack */
static double *read_list(lua_State *L, int idx, int n, const char *ctx, const char *what)
{
    if (lua_type(L, idx) != LUA_TTABLE) mo_lua_fail(L, ctx, "%s must be a list of %d numbers, got %s", what, n, luaL_typename(L, idx));
    if ((lua_Integer)lua_rawlen(L, idx) != n)
        mo_lua_fail(L, ctx, "%s must be a list of %d numbers, got %lld", what, n, (long long)lua_rawlen(L, idx));
    double *a = (double *)scratch(L, (size_t)n * sizeof *a);
    for (int k = 0; k < n; k++) {
        lua_rawgeti(L, idx, k + 1);
        char wk[64];
        snprintf(wk, sizeof wk, "%s[%d]", what, k + 1);
        a[k] = mo_lua_to_num(L, -1, ctx, wk);
        lua_pop(L, 1);
    }
    return a;
}

typedef mo_status (*get_fn)(const mo_world *, mo_articulation_id, double *, int);
typedef mo_status (*set_fn)(mo_world *, mo_articulation_id, const double *, int);

static int get_bulk(lua_State *L, get_fn f, bool use_nq)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int nq, nv;
    sizes(L, id, ctx, NULL, &nq, &nv);
    int n = use_nq ? nq : nv;
    double *a = (double *)scratch(L, (size_t)(n + 1) * sizeof *a);
    if (f(mo_lua_world(L), id, a, n) != MO_OK) mo_lua_world_fail(L, ctx);
    push_list(L, a, n);
    return 1;
}

static int set_bulk(lua_State *L, set_fn f, bool use_nq, const char *what)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int nq, nv;
    sizes(L, id, ctx, NULL, &nq, &nv);
    int n = use_nq ? nq : nv;
    double *a = read_list(L, 2, n, ctx, what);
    if (f(mo_lua_world(L), id, a, n) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_q(lua_State *L) { return get_bulk(L, mo_articulation_get_q, true); }
static int m_qdot(lua_State *L) { return get_bulk(L, mo_articulation_get_qdot, false); }
static int m_gravity_compensation(lua_State *L) { return get_bulk(L, mo_articulation_gravity_compensation, false); }
static int m_set_q(lua_State *L) { return set_bulk(L, mo_articulation_set_q, true, "q"); }
static int m_set_qdot(lua_State *L) { return set_bulk(L, mo_articulation_set_qdot, false, "qdot"); }
static int m_set_torques(lua_State *L) { return set_bulk(L, mo_articulation_set_torques, false, "torques"); }

static int m_clear_torques(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    if (mo_articulation_clear_torques(mo_lua_world(L), id) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_joint(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx), nq, nv;
    double q[7], v[6];
    if (mo_articulation_joint_dofs(mo_lua_world(L), id, k, NULL, &nq, NULL, &nv) != MO_OK ||
        mo_articulation_get_joint(mo_lua_world(L), id, k, q, v) != MO_OK)
        mo_lua_world_fail(L, ctx);
    push_list(L, q, nq);
    push_list(L, v, nv);
    return 2;
}

static int m_set_joint(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx), nq, nv;
    if (mo_articulation_joint_dofs(mo_lua_world(L), id, k, NULL, &nq, NULL, &nv) != MO_OK) mo_lua_world_fail(L, ctx);
    const double *q = lua_isnoneornil(L, 3) ? NULL : read_list(L, 3, nq, ctx, "q");
    const double *v = lua_isnoneornil(L, 4) ? NULL : read_list(L, 4, nv, ctx, "qdot");
    if (mo_articulation_set_joint(mo_lua_world(L), id, k, q, v) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_set_drive(lua_State *L)
{
    static const char *const keys[] = {"stiffness", "damping", "target_position", "target_velocity", "torque",
                                       "max_effort", NULL};
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    mo_lua_need_table(L, 3, ctx);
    mo_lua_check_keys(L, 3, ctx, keys);
    mo_joint_drive d = mo_default_joint_drive();
    d.stiffness = mo_lua_num_field(L, 3, "stiffness", d.stiffness, ctx);
    d.damping = mo_lua_num_field(L, 3, "damping", d.damping, ctx);
    d.target_position = mo_lua_num_field(L, 3, "target_position", d.target_position, ctx);
    d.target_velocity = mo_lua_num_field(L, 3, "target_velocity", d.target_velocity, ctx);
    d.torque = mo_lua_num_field(L, 3, "torque", d.torque, ctx);
    d.max_effort = mo_lua_num_field(L, 3, "max_effort", d.max_effort, ctx);
    if (mo_articulation_set_drive(mo_lua_world(L), id, k, &d) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_link_pose(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    mo_vec3 p;
    mo_quat q;
    if (mo_articulation_link_pose(mo_lua_world(L), id, k, &p, &q) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, p);
    mo_lua_push_quat(L, q);
    return 2;
}

/* a bound of set_limits: a number (+-math.huge for none) or nil (none: -INFINITY for the lower one) */
static double bound_arg(lua_State *L, int idx, double none, const char *ctx, const char *what)
{
    if (lua_isnoneornil(L, idx)) return none;
    return mo_lua_to_num(L, idx, ctx, what);
}

static int m_set_limits(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    double lo = bound_arg(L, 3, -INFINITY, ctx, "lower"), hi = bound_arg(L, 4, INFINITY, ctx, "upper");
    if (mo_articulation_set_limits(mo_lua_world(L), id, k, lo, hi) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_limits(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    double lo, hi;
    if (mo_articulation_limits(mo_lua_world(L), id, k, &lo, &hi) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, lo);
    lua_pushnumber(L, hi);
    return 2;
}

static int m_set_friction(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    double f = mo_lua_to_num(L, 3, ctx, "friction");
    if (mo_articulation_set_joint_friction(mo_lua_world(L), id, k, f) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

/* set_cone_limit(link, angle): a spherical joint's rotation angle <= angle (rad); nil or math.huge: none */
static int m_set_cone_limit(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    double angle = lua_isnoneornil(L, 3) ? INFINITY : mo_lua_to_num(L, 3, ctx, "angle");
    if (mo_articulation_set_cone_limit(mo_lua_world(L), id, k, angle) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_cone_limit(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    double angle;
    if (mo_articulation_cone_limit(mo_lua_world(L), id, k, &angle) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, angle);
    return 1;
}

/* set_collision_group(group): the group of its link bodies (an integer in [0, 2^32); 0: none) */
static int m_set_collision_group(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    double g = mo_lua_to_num(L, 2, ctx, "group");
    if (!(g == floor(g)) || g < 0.0 || g > 4294967295.0)
        mo_lua_fail(L, ctx, "group must be an integer in [0, 2^32), got %g", g);
    if (mo_articulation_set_collision_group(mo_lua_world(L), id, (uint32_t)g) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_collision_group(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    uint32_t g;
    if (mo_articulation_collision_group(mo_lua_world(L), id, &g) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, (double)g);
    return 1;
}

/* set_mimic(link, leader, multiplier = 1, offset = 0): q_link = multiplier q_leader + offset; leader nil removes it */
static int m_set_mimic(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx), leader = lua_isnoneornil(L, 3) ? -1 : link_arg(L, 3, id, ctx);
    double mul = lua_isnoneornil(L, 4) ? 1.0 : mo_lua_to_num(L, 4, ctx, "multiplier");
    double off = lua_isnoneornil(L, 5) ? 0.0 : mo_lua_to_num(L, 5, ctx, "offset");
    if (mo_articulation_set_mimic(mo_lua_world(L), id, k, leader, mul, off) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_constraint_forces(lua_State *L) { return get_bulk(L, mo_articulation_constraint_forces, false); }

/* jacobian(link, point) -> jv, jw: 3 rows of nv numbers each */
static int m_jacobian(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx), nv;
    sizes(L, id, ctx, NULL, NULL, &nv);
    mo_vec3 p = lua_isnoneornil(L, 3) ? (mo_vec3){0, 0, 0} : mo_lua_to_vec(L, 3, ctx, "point");
    double *jv = (double *)scratch(L, (size_t)(6 * nv + 1) * sizeof *jv), *jw = jv + 3 * nv;
    if (mo_articulation_jacobian(mo_lua_world(L), id, k, p, jv, jw, 3 * nv) != MO_OK) mo_lua_world_fail(L, ctx);
    for (int m = 0; m < 2; m++) {
        const double *j = m ? jw : jv;
        lua_createtable(L, 3, 0);
        for (int r = 0; r < 3; r++) {
            push_list(L, j + r * nv, nv);
            lua_rawseti(L, -2, r + 1);
        }
    }
    return 2;
}

/* a method returning two vectors of link (argument 2): link_velocity, joint_wrench */
static int link_vec_pair(lua_State *L, mo_status (*fn)(const mo_world *, mo_articulation_id, int, mo_vec3 *, mo_vec3 *))
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    mo_vec3 a, b;
    if (fn(mo_lua_world(L), id, k, &a, &b) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, a);
    mo_lua_push_vec(L, b);
    return 2;
}

static int m_joint_wrench(lua_State *L) { return link_vec_pair(L, mo_articulation_joint_wrench); }

static int m_link_velocity(lua_State *L) { return link_vec_pair(L, mo_articulation_link_velocity); }

static int m_energy(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    double ke, pe;
    if (mo_articulation_energy(mo_lua_world(L), id, &ke, &pe) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushnumber(L, ke);
    lua_pushnumber(L, pe);
    return 2;
}

static int m_link(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    if (lua_type(L, 2) != LUA_TSTRING) mo_lua_fail(L, ctx, "link(name): name must be a string, got %s", luaL_typename(L, 2));
    lua_pushinteger(L, link_arg(L, 2, id, ctx) + 1);
    return 1;
}

/* the link's body (mo_articulation_link_body): a body handle named "<articulation>/<link as given>" */
static int m_link_body(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int k = link_arg(L, 2, id, ctx);
    mo_world *w = mo_lua_world(L);
    mo_body_id b;
    if (mo_articulation_link_body(w, id, k, &b) != MO_OK) mo_lua_world_fail(L, ctx);
    char lname[MO_LINK_NAME_LEN];
    if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) {
        const char *an = lua_tostring(L, -1);
        lname[0] = 0;
        if (lua_type(L, 2) == LUA_TSTRING) snprintf(lname, sizeof lname, "%s", lua_tostring(L, 2));
        record_link(L, b, an, lname, k);
    } else {
        record_link(L, b, NULL, lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL, k);
    }
    lua_pop(L, 1);
    char name[200];
    if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) snprintf(name, sizeof name, "%s/", lua_tostring(L, -1));
    else name[0] = 0;
    lua_pop(L, 1);
    size_t len = strlen(name);
    if (lua_type(L, 2) == LUA_TSTRING) snprintf(name + len, sizeof name - len, "%s", lua_tostring(L, 2));
    else snprintf(name + len, sizeof name - len, "%d", k + 1);
    mo_lua_push_body(L, b, name);
    return 1;
}

static int m_size(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    int nl, nq, nv;
    sizes(L, id, ctx, &nl, &nq, &nv);
    lua_pushinteger(L, nl);
    lua_pushinteger(L, nq);
    lua_pushinteger(L, nv);
    return 3;
}

static int m_destroy(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    if (mo_articulation_destroy(mo_lua_world(L), id) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

static int m_valid(lua_State *L)
{
    char ctx[160];
    mo_articulation_id id = self(L, ctx, sizeof ctx);
    lua_pushboolean(L, mo_articulation_is_valid(mo_lua_world(L), id));
    return 1;
}

static int m_name(lua_State *L)
{
    char ctx[160];
    self(L, ctx, sizeof ctx);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

static int m_tostring(lua_State *L)
{
    lartic *h = (lartic *)luaL_checkudata(L, 1, ARTIC_MT);
    mo_lua_push_handle_string(L, "articulation", h->id.index);
    return 1;
}

void mo_lua_open_artic(lua_State *L)
{
    static const luaL_Reg methods[] = {{"q", m_q},
                                       {"set_q", m_set_q},
                                       {"qdot", m_qdot},
                                       {"set_qdot", m_set_qdot},
                                       {"joint", m_joint},
                                       {"set_joint", m_set_joint},
                                       {"set_torques", m_set_torques},
                                       {"clear_torques", m_clear_torques},
                                       {"set_drive", m_set_drive},
                                       {"gravity_compensation", m_gravity_compensation},
                                       {"set_limits", m_set_limits},
                                       {"limits", m_limits},
                                       {"set_friction", m_set_friction},
                                       {"set_cone_limit", m_set_cone_limit},
                                       {"cone_limit", m_cone_limit},
                                       {"set_collision_group", m_set_collision_group},
                                       {"collision_group", m_collision_group},
                                       {"set_mimic", m_set_mimic},
                                       {"constraint_forces", m_constraint_forces},
                                       {"joint_wrench", m_joint_wrench},
                                       {"jacobian", m_jacobian},
                                       {"link_velocity", m_link_velocity},
                                       {"link_pose", m_link_pose},
                                       {"energy", m_energy},
                                       {"link", m_link},
                                       {"link_body", m_link_body},
                                       {"size", m_size},
                                       {"destroy", m_destroy},
                                       {"valid", m_valid},
                                       {"name", m_name},
                                       {NULL, NULL}};
    luaL_newmetatable(L, ARTIC_MT);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    /* articulation: a field of the moreau table at the top of the stack and a global */
    lua_pushcfunction(L, l_articulation);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "articulation");
    lua_setglobal(L, "articulation");
}
