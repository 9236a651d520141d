/* lua_args.c: reading a scene file's argument tables for the world API
 * (lua_api.c, lua_fem.c, lua_import.c): fields by type with their defaults,
 * vectors and quaternions, names of enumerated values, the errors raised at
 * the calling line, and the solver settings table of world{} and
 * moreau.set_solver. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"

/* ---- helpers ---- */

int mo_lua_fail(lua_State *L, const char *ctx, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    luaL_where(L, 1);
    if (ctx && ctx[0])
        lua_pushfstring(L, "%s: %s", ctx, msg);
    else
        lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

mo_world *mo_lua_world(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (!s->w) {
        char err[512];
        if (mo_world_create(&s->wdef, &s->w, err, sizeof err) != MO_OK) mo_lua_fail(L, "world", "%s", err);
    }
    return s->w;
}

void mo_lua_count_object(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (s->objects >= s->opt.max_objects)
        mo_lua_fail(L, "", "object limit of %d bodies, shapes, joints and particles reached", s->opt.max_objects);
    s->objects++;
}

void mo_lua_check_keys(lua_State *L, int idx, const char *ctx, const char *const *allowed)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, ctx, "fields must be named, got a %s key", luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        bool ok = false;
        for (int i = 0; allowed[i] && !ok; i++) ok = !strcmp(k, allowed[i]);
        if (!ok) mo_lua_fail(L, ctx, "unknown field '%s'", k);
    }
}

void mo_lua_need_table(lua_State *L, int idx, const char *ctx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        mo_lua_fail(L, ctx, "expects a table of named fields, got %s", luaL_typename(L, idx));
}

/* pushes t[key] (raw) and returns its type */
int mo_lua_field(lua_State *L, int idx, const char *key)
{
    return lua_getfield(L, idx, key);
}

double mo_lua_to_num(lua_State *L, int idx, const char *ctx, const char *what)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        mo_lua_fail(L, ctx, "%s must be a number, got %s", what, luaL_typename(L, idx));
    return lua_tonumber(L, idx);
}

double mo_lua_num_field(lua_State *L, int idx, const char *key, double def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    double v = def;
    if (mo_lua_field(L, idx, key) != LUA_TNIL) v = mo_lua_to_num(L, -1, ctx, key);
    lua_pop(L, 1);
    return v;
}

int mo_lua_int_field(lua_State *L, int idx, const char *key, int def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    int v = def;
    if (mo_lua_field(L, idx, key) != LUA_TNIL) {
        double d = mo_lua_to_num(L, -1, ctx, key);
        if (!(d == floor(d)) || d < -2147483647.0 || d > 2147483647.0)
            mo_lua_fail(L, ctx, "%s must be an integer, got %g", key, d);
        v = (int)d;
    }
    lua_pop(L, 1);
    return v;
}

uint32_t mo_lua_u32_field(lua_State *L, int idx, const char *key, uint32_t def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    uint32_t v = def;
    if (mo_lua_field(L, idx, key) != LUA_TNIL) {
        double d = mo_lua_to_num(L, -1, ctx, key);
        if (!(d == floor(d)) || d < 0.0 || d > 4294967295.0)
            mo_lua_fail(L, ctx, "%s must be an integer in [0, 2^32), got %g", key, d);
        v = (uint32_t)d;
    }
    lua_pop(L, 1);
    return v;
}

bool mo_lua_bool_field(lua_State *L, int idx, const char *key, bool def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    bool v = def;
    int t = mo_lua_field(L, idx, key);
    if (t != LUA_TNIL) {
        if (t != LUA_TBOOLEAN) mo_lua_fail(L, ctx, "%s must be true or false, got %s", key, luaL_typename(L, -1));
        v = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* string field or NULL; the string stays valid while the table is on the stack */
const char *mo_lua_str_field(lua_State *L, int idx, const char *key, const char *ctx)
{
    idx = lua_absindex(L, idx);
    const char *v = NULL;
    int t = mo_lua_field(L, idx, key);
    if (t != LUA_TNIL) {
        if (t != LUA_TSTRING) mo_lua_fail(L, ctx, "%s must be a string, got %s", key, luaL_typename(L, -1));
        v = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

bool mo_lua_has_field(lua_State *L, int idx, const char *key)
{
    int t = mo_lua_field(L, idx, key);
    lua_pop(L, 1);
    return t != LUA_TNIL;
}

/* a table of n numbers, either positional or named by names[] */
void mo_lua_to_numbers(lua_State *L, int idx, const char *ctx, const char *what, int n, const char *const *names,
                       double *out)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        mo_lua_fail(L, ctx, "%s must be a table of %d numbers, got %s", what, n, luaL_typename(L, idx));
    bool named = lua_getfield(L, idx, names[0]) != LUA_TNIL;
    lua_pop(L, 1);
    for (int i = 0; i < n; i++) {
        int t = named ? lua_getfield(L, idx, names[i]) : lua_rawgeti(L, idx, i + 1);
        if (t != LUA_TNUMBER) {
            if (named)
                mo_lua_fail(L, ctx, "%s.%s must be a number, got %s", what, names[i], luaL_typename(L, -1));
            mo_lua_fail(L, ctx, "%s[%d] must be a number, got %s", what, i + 1, luaL_typename(L, -1));
        }
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

mo_vec3 mo_lua_to_vec(lua_State *L, int idx, const char *ctx, const char *what)
{
    static const char *const xyz[] = {"x", "y", "z"};
    double v[3];
    mo_lua_to_numbers(L, idx, ctx, what, 3, xyz, v);
    return (mo_vec3){v[0], v[1], v[2]};
}

mo_quat mo_lua_to_quat(lua_State *L, int idx, const char *ctx, const char *what)
{
    static const char *const wxyz[] = {"w", "x", "y", "z"};
    double v[4];
    mo_lua_to_numbers(L, idx, ctx, what, 4, wxyz, v);
    return (mo_quat){v[0], v[1], v[2], v[3]};
}

mo_vec3 mo_lua_vec_field(lua_State *L, int idx, const char *key, mo_vec3 def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    mo_vec3 v = def;
    if (mo_lua_field(L, idx, key) != LUA_TNIL) v = mo_lua_to_vec(L, -1, ctx, key);
    lua_pop(L, 1);
    return v;
}

mo_quat mo_lua_quat_field(lua_State *L, int idx, const char *key, mo_quat def, const char *ctx)
{
    idx = lua_absindex(L, idx);
    mo_quat q = def;
    if (mo_lua_field(L, idx, key) != LUA_TNIL) q = mo_lua_to_quat(L, -1, ctx, key);
    lua_pop(L, 1);
    return q;
}

/* index of s in names (NULL-terminated), else an error listing them */
int mo_lua_enum_value(lua_State *L, const char *ctx, const char *key, const char *s, const char *const *names)
{
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        if (!strcmp(s, names[i])) return i;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
    }
    return mo_lua_fail(L, ctx, "%s '%s' is not one of %s", key, s, list);
}

void mo_lua_push_vec(lua_State *L, mo_vec3 v)
{
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, v.x);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, v.y);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, v.z);
    lua_setfield(L, -2, "z");
}

void mo_lua_push_quat(lua_State *L, mo_quat q)
{
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, q.w);
    lua_setfield(L, -2, "w");
    lua_pushnumber(L, q.x);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, q.y);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, q.z);
    lua_setfield(L, -2, "z");
}

/* rotate v by q (unit) and by its inverse */
mo_vec3 mo_lua_qrot(mo_quat q, mo_vec3 v)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    q.w /= n, q.x /= n, q.y /= n, q.z /= n;
    /* t = 2 q_v x v; v' = v + w t + q_v x t */
    double tx = 2 * (q.y * v.z - q.z * v.y), ty = 2 * (q.z * v.x - q.x * v.z), tz = 2 * (q.x * v.y - q.y * v.x);
    return (mo_vec3){v.x + q.w * tx + (q.y * tz - q.z * ty), v.y + q.w * ty + (q.z * tx - q.x * tz),
                     v.z + q.w * tz + (q.x * ty - q.y * tx)};
}

mo_vec3 mo_lua_qrot_inv(mo_quat q, mo_vec3 v)
{
    q.x = -q.x, q.y = -q.y, q.z = -q.z;
    return mo_lua_qrot(q, v);
}

/* "what 'name'" or "what" */
void mo_lua_make_ctx(char *ctx, size_t n, const char *what, const char *name)
{
    if (name)
        snprintf(ctx, n, "%s '%s'", what, name);
    else
        snprintf(ctx, n, "%s", what);
}

/* the engine's last error, raised in ctx */
int mo_lua_world_fail(lua_State *L, const char *ctx)
{
    return mo_lua_fail(L, ctx, "%s", mo_world_last_error(mo_lua_world(L)));
}

/* ---- world ---- */

static const char *const friction_names[] = {"cone", "box", "polyhedral", NULL};
static const char *const rho_names[] = {"eigen", "norm", "smaller", "normal", "acary", NULL};
static const char *const spg_rules[] = {"alternate", "abbmin", NULL};
static const char *const ncp_names[] = {"fischer_burmeister", "min_map", NULL};
static const char *const linear_names[] = {"pcr", "pcg", "jacobi", "gauss_seidel", "cholesky", NULL};
static const char *const scaling_names[] = {"mass", "identity", "constant", NULL};

void mo_lua_parse_solver(lua_State *L, int idx, mo_solver_settings *s, const char *ctx)
{
    static const char *const keys[] = {"kind", "iterations", "tolerance", "omega", "friction", "facets",
                                       "coulomb_updates", "warm_start", "record_residuals", "projections", "apgd",
                                       "spg", "diagonal_scaling", "newton", NULL};
    idx = lua_absindex(L, idx);
    mo_lua_need_table(L, idx, ctx);
    mo_lua_check_keys(L, idx, ctx, keys);
    const char *kind = mo_lua_str_field(L, idx, "kind", ctx);
    if (kind && !mo_solver_from_name(kind, &s->kind))
        mo_lua_fail(L, ctx, "unknown solver '%s' (pgs, jacobi, apgd, spg, cg, minres, cholesky)", kind);
    s->max_iterations = mo_lua_int_field(L, idx, "iterations", s->max_iterations, ctx);
    s->tolerance = mo_lua_num_field(L, idx, "tolerance", s->tolerance, ctx);
    s->omega = mo_lua_num_field(L, idx, "omega", s->omega, ctx);
    const char *fr = mo_lua_str_field(L, idx, "friction", ctx);
    if (fr) s->friction = (mo_friction_model)mo_lua_enum_value(L, ctx, "friction", fr, friction_names);
    s->friction_facets = mo_lua_int_field(L, idx, "facets", s->friction_facets, ctx);
    s->coulomb_updates = mo_lua_int_field(L, idx, "coulomb_updates", s->coulomb_updates, ctx);
    s->warm_start = mo_lua_bool_field(L, idx, "warm_start", s->warm_start, ctx);
    s->record_residuals = mo_lua_bool_field(L, idx, "record_residuals", s->record_residuals, ctx);
    s->position_projections = mo_lua_int_field(L, idx, "projections", s->position_projections, ctx);
    s->diagonal_scaling = mo_lua_bool_field(L, idx, "diagonal_scaling", s->diagonal_scaling, ctx);
    if (mo_lua_field(L, idx, "apgd") != LUA_TNIL) {
        static const char *const ak[] = {"rho", "backtracking", "adaptive_rho", "restart", "rho_ratio_max",
                                         "rho_ratio_min", "rho_factor", NULL};
        char c[128];
        snprintf(c, sizeof c, "%s apgd", ctx);
        int t = lua_gettop(L);
        mo_lua_need_table(L, t, c);
        mo_lua_check_keys(L, t, c, ak);
        const char *rho = mo_lua_str_field(L, t, "rho", c);
        if (rho) s->apgd.rho = (mo_apgd_rho)mo_lua_enum_value(L, c, "rho", rho, rho_names);
        s->apgd.backtracking = mo_lua_bool_field(L, t, "backtracking", s->apgd.backtracking, c);
        s->apgd.adaptive_rho = mo_lua_bool_field(L, t, "adaptive_rho", s->apgd.adaptive_rho, c);
        s->apgd.restart = mo_lua_bool_field(L, t, "restart", s->apgd.restart, c);
        s->apgd.rho_ratio_max = mo_lua_num_field(L, t, "rho_ratio_max", s->apgd.rho_ratio_max, c);
        s->apgd.rho_ratio_min = mo_lua_num_field(L, t, "rho_ratio_min", s->apgd.rho_ratio_min, c);
        s->apgd.rho_factor = mo_lua_num_field(L, t, "rho_factor", s->apgd.rho_factor, c);
    }
    lua_pop(L, 1);
    if (mo_lua_field(L, idx, "spg") != LUA_TNIL) {
        static const char *const sk[] = {"alpha_min", "alpha_max", "n_gll", "armijo", "sigma_min", "sigma_max",
                                         "tau_g", "alpha0", "preconditioner", "step_rule", NULL};
        char c[128];
        snprintf(c, sizeof c, "%s spg", ctx);
        int t = lua_gettop(L);
        mo_lua_need_table(L, t, c);
        mo_lua_check_keys(L, t, c, sk);
        s->spg.alpha_min = mo_lua_num_field(L, t, "alpha_min", s->spg.alpha_min, c);
        s->spg.alpha_max = mo_lua_num_field(L, t, "alpha_max", s->spg.alpha_max, c);
        s->spg.n_gll = mo_lua_int_field(L, t, "n_gll", s->spg.n_gll, c);
        s->spg.armijo = mo_lua_num_field(L, t, "armijo", s->spg.armijo, c);
        s->spg.sigma_min = mo_lua_num_field(L, t, "sigma_min", s->spg.sigma_min, c);
        s->spg.sigma_max = mo_lua_num_field(L, t, "sigma_max", s->spg.sigma_max, c);
        s->spg.tau_g = mo_lua_num_field(L, t, "tau_g", s->spg.tau_g, c);
        s->spg.alpha0 = mo_lua_num_field(L, t, "alpha0", s->spg.alpha0, c);
        s->spg.preconditioner = mo_lua_bool_field(L, t, "preconditioner", s->spg.preconditioner, c);
        const char *rule = mo_lua_str_field(L, t, "step_rule", c);
        if (rule) s->spg.step_rule = (mo_spg_step_rule)mo_lua_enum_value(L, c, "step_rule", rule, spg_rules);
    }
    lua_pop(L, 1);
    if (mo_lua_field(L, idx, "newton") != LUA_TNIL) {
        static const char *const nk[] = {"iterations", "linear_iterations", "linear_tolerance", "step_fraction",
                                         "regularisation", "ncp", "linear", "scaling", "scaling_constant",
                                         "jacobi_omega", "halvings", "halving_residual", NULL};
        char c[128];
        snprintf(c, sizeof c, "%s newton", ctx);
        int t = lua_gettop(L);
        mo_lua_need_table(L, t, c);
        mo_lua_check_keys(L, t, c, nk);
        mo_newton_settings *nw = &s->newton;
        nw->iterations = mo_lua_int_field(L, t, "iterations", nw->iterations, c);
        nw->linear_iterations = mo_lua_int_field(L, t, "linear_iterations", nw->linear_iterations, c);
        nw->linear_tolerance = mo_lua_num_field(L, t, "linear_tolerance", nw->linear_tolerance, c);
        nw->step_fraction = mo_lua_num_field(L, t, "step_fraction", nw->step_fraction, c);
        nw->regularisation = mo_lua_num_field(L, t, "regularisation", nw->regularisation, c);
        nw->scaling_constant = mo_lua_num_field(L, t, "scaling_constant", nw->scaling_constant, c);
        nw->jacobi_omega = mo_lua_num_field(L, t, "jacobi_omega", nw->jacobi_omega, c);
        nw->halvings = mo_lua_int_field(L, t, "halvings", nw->halvings, c);
        nw->halving_residual = mo_lua_num_field(L, t, "halving_residual", nw->halving_residual, c);
        const char *v = mo_lua_str_field(L, t, "ncp", c);
        if (v) nw->ncp = (mo_ncp_function)mo_lua_enum_value(L, c, "ncp", v, ncp_names);
        v = mo_lua_str_field(L, t, "linear", c);
        if (v) nw->linear = (mo_newton_linear)mo_lua_enum_value(L, c, "linear", v, linear_names);
        v = mo_lua_str_field(L, t, "scaling", c);
        if (v) nw->scaling = (mo_newton_scaling)mo_lua_enum_value(L, c, "scaling", v, scaling_names);
    }
    lua_pop(L, 1);
}

/* world{gravity, time_step, duration, solver = {...}, contact_compliance, joint_compliance,
   damping_steps, max_push_velocity, contact_margin, threads} */

/* moreau.solver(): the world's solver settings as a table (the fields world{solver} takes) */
int mo_lua_solver(lua_State *L)
{
    mo_solver_settings ss = mo_world_solver(mo_lua_world(L));
    lua_createtable(L, 0, 10);
    lua_pushstring(L, mo_solver_name(ss.kind));
    lua_setfield(L, -2, "kind");
    lua_pushinteger(L, ss.max_iterations);
    lua_setfield(L, -2, "iterations");
    lua_pushnumber(L, ss.tolerance);
    lua_setfield(L, -2, "tolerance");
    lua_pushnumber(L, ss.omega);
    lua_setfield(L, -2, "omega");
    lua_pushstring(L, friction_names[ss.friction]);
    lua_setfield(L, -2, "friction");
    lua_pushinteger(L, ss.friction_facets);
    lua_setfield(L, -2, "facets");
    lua_pushinteger(L, ss.coulomb_updates);
    lua_setfield(L, -2, "coulomb_updates");
    lua_pushboolean(L, ss.warm_start);
    lua_setfield(L, -2, "warm_start");
    lua_pushinteger(L, ss.position_projections);
    lua_setfield(L, -2, "projections");
    return 1;
}
