/* lua_filter.c: collision filtering between bodies in scene files, the Lua
 * form of mo_world_set_pair_collision / mo_world_pair_collision:
 *   a:set_pair_collision(b, enabled)   enabled false: a and b never touch
 *   a:pair_collision(b) -> boolean     false while the pair is excluded */
#include "lua_internal.h"

int mo_lua_b_set_pair_collision(lua_State *L)
{
    static const char *const ctx = "set_pair_collision";
    mo_body_id a = mo_lua_check_body(L, 1, ctx, "self (call it as a:set_pair_collision(b, enabled))");
    mo_body_id b = mo_lua_check_body(L, 2, ctx, "the other body");
    if (lua_type(L, 3) != LUA_TBOOLEAN) mo_lua_fail(L, ctx, "enabled must be a boolean, got %s", luaL_typename(L, 3));
    if (mo_world_set_pair_collision(mo_lua_world(L), a, b, lua_toboolean(L, 3)) != MO_OK) mo_lua_world_fail(L, ctx);
    return 0;
}

int mo_lua_b_pair_collision(lua_State *L)
{
    static const char *const ctx = "pair_collision";
    mo_body_id a = mo_lua_check_body(L, 1, ctx, "self (call it as a:pair_collision(b))");
    mo_body_id b = mo_lua_check_body(L, 2, ctx, "the other body");
    bool on = true;
    if (mo_world_pair_collision(mo_lua_world(L), a, b, &on) != MO_OK) mo_lua_world_fail(L, ctx);
    lua_pushboolean(L, on);
    return 1;
}
