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

/* refuses keys of the table at idx for which known(key, u) is false */
static void check_keys_by(lua_State *L, int idx, const char *ctx, bool (*known)(const char *key, const void *u),
                          const void *u)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, ctx, "fields must be named, got a %s key", luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        if (!known(k, u)) mo_lua_fail(L, ctx, "unknown field '%s'", k);
    }
}

/* key is in the NULL-terminated list u (may be NULL) */
static bool in_list(const char *key, const void *u)
{
    const char *const *list = (const char *const *)u;
    for (int i = 0; list && list[i]; i++)
        if (!strcmp(key, list[i])) return true;
    return false;
}

void mo_lua_check_keys(lua_State *L, int idx, const char *ctx, const char *const *allowed)
{
    check_keys_by(L, idx, ctx, in_list, allowed);
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

/* ---- settings (the engine's table: moreau.h "settings by name") ---- */

/* prefix.key, or key when prefix is "" */
static void full_name(const char *prefix, const char *key, char *out, size_t n)
{
    snprintf(out, n, "%.60s%s%.60s", prefix, *prefix ? "." : "", key);
}

/* a key under a prefix: a setting, a group of settings, or one of the caller's skip list */
typedef struct setting_keys {
    const char *prefix;
    const char *const *skip;
} setting_keys;

static bool is_setting_key(const char *key, const void *u)
{
    const setting_keys *sk = (const setting_keys *)u;
    char full[128];
    full_name(sk->prefix, key, full, sizeof full);
    return in_list(key, sk->skip) || mo_setting_find(full) || mo_setting_is_group(full);
}

void mo_lua_read_settings(lua_State *L, int idx, const char *prefix, const char *ctx, const char *const *skip,
                          mo_lua_setting_fn apply, void *user)
{
    idx = lua_absindex(L, idx);
    mo_lua_need_table(L, idx, ctx);
    const setting_keys sk = {prefix, skip};
    check_keys_by(L, idx, ctx, is_setting_key, &sk);
    const size_t np = strlen(prefix);
    /* in the table's order, so that the first bad field reported does not depend on Lua's hashing */
    for (int i = 0; i < mo_setting_count(); i++) {
        const mo_setting_info *in = mo_setting_at(i);
        if (np && (strncmp(in->name, prefix, np) || in->name[np] != '.')) continue;
        const char *key = in->name + (np ? np + 1 : 0);
        const char *dot = strchr(key, '.');
        if (dot) {
            /* the first setting of a group under this prefix reads the group's table */
            char group[128], gfull[128];
            snprintf(group, sizeof group, "%.*s", (int)(dot - key), key);
            full_name(prefix, group, gfull, sizeof gfull);
            bool first = true;
            for (int j = 0; j < i && first; j++) {
                const char *o = mo_setting_at(j)->name;
                first = !(strncmp(o, gfull, strlen(gfull)) == 0 && o[strlen(gfull)] == '.');
            }
            if (!first) continue;
            if (mo_lua_field(L, idx, group) != LUA_TNIL) {
                char c[160];
                snprintf(c, sizeof c, "%s %s", ctx, group);
                mo_lua_read_settings(L, lua_gettop(L), gfull, c, NULL, apply, user);
            }
            lua_pop(L, 1);
            continue;
        }
        if (!mo_lua_has_field(L, idx, key)) continue;
        char text[160];
        switch (in->type) {
        case MO_SETTING_INT: snprintf(text, sizeof text, "%d", mo_lua_int_field(L, idx, key, 0, ctx)); break;
        case MO_SETTING_REAL: snprintf(text, sizeof text, "%.17g", mo_lua_num_field(L, idx, key, 0.0, ctx)); break;
        case MO_SETTING_BOOL: snprintf(text, sizeof text, "%s", mo_lua_bool_field(L, idx, key, false, ctx) ? "true" : "false"); break;
        case MO_SETTING_CHOICE: {
            const char *v = mo_lua_str_field(L, idx, key, ctx);
            snprintf(text, sizeof text, "%s", in->choices[mo_lua_enum_value(L, ctx, key, v, in->choices)]);
            break;
        }
        case MO_SETTING_VEC3: {
            mo_vec3 v = mo_lua_vec_field(L, idx, key, (mo_vec3){0, 0, 0}, ctx);
            snprintf(text, sizeof text, "%.17g,%.17g,%.17g", v.x, v.y, v.z);
            break;
        }
        }
        apply(L, user, in->name, text, ctx);
    }
}

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
    char fr[32];
    mo_world_get_setting(mo_lua_world(L), "solver.friction", fr, sizeof fr);
    lua_pushstring(L, fr);
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
