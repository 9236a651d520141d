/* lua_contacts.c: the last step's contacts for scene files (docs/scenes.md):
 * moreau.contacts([body]) and the body method b:contact_force(). Values are
 * mo_world_contacts' and mo_body_contact_force's, seen from the given body:
 * its normal points into it and its force is the force on it. */
#include <stdbool.h>

#include "lua_internal.h"

/* contacts(): the number of contacts of the last step; contacts(body): a list of
 * {point, normal, force, tangent1, tangent2, gap, friction, other, particle} of the
 * contacts the body is in (world frame; normal from the other side into body,
 * force on body, other the other body or nil for a particle, particle true then) */
static int l_contacts(lua_State *L)
{
    mo_world *w = mo_lua_world(L);
    int n = mo_world_contacts(w, NULL, 0);
    if (lua_isnoneornil(L, 1)) {
        lua_pushinteger(L, n);
        return 1;
    }
    mo_body_id id = mo_lua_check_body(L, 1, "contacts", "the argument");
    if (mo_body_contact_force(w, id, NULL, NULL) != MO_OK) mo_lua_world_fail(L, "contacts"); /* a destroyed body */
    mo_contact *c = (mo_contact *)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *c, 0);
    n = mo_world_contacts(w, c, n);
    lua_newtable(L);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const bool is_a = c[i].body_a.index == id.index && c[i].body_a.generation == id.generation;
        const bool is_b = mo_particle_id_is_null(c[i].particle) && c[i].body_b.index == id.index &&
                          c[i].body_b.generation == id.generation;
        if (!is_a && !is_b) continue;
        const double s = is_b ? 1.0 : -1.0; /* B sees n and f as they are, A their opposites */
        const mo_vec3 nrm = {s * c[i].normal.x, s * c[i].normal.y, s * c[i].normal.z};
        const mo_vec3 f = {s * c[i].force.x, s * c[i].force.y, s * c[i].force.z};
        lua_createtable(L, 0, 9);
        mo_lua_push_vec(L, c[i].point);
        lua_setfield(L, -2, "point");
        mo_lua_push_vec(L, nrm);
        lua_setfield(L, -2, "normal");
        mo_lua_push_vec(L, f);
        lua_setfield(L, -2, "force");
        mo_lua_push_vec(L, c[i].tangent1);
        lua_setfield(L, -2, "tangent1");
        mo_lua_push_vec(L, c[i].tangent2);
        lua_setfield(L, -2, "tangent2");
        lua_pushnumber(L, c[i].gap);
        lua_setfield(L, -2, "gap");
        lua_pushnumber(L, c[i].friction);
        lua_setfield(L, -2, "friction");
        const bool particle = !mo_particle_id_is_null(c[i].particle);
        if (!particle) {
            mo_lua_push_body(L, is_b ? c[i].body_a : c[i].body_b, NULL);
            lua_setfield(L, -2, "other");
        }
        lua_pushboolean(L, particle);
        lua_setfield(L, -2, "particle");
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* b:contact_force(): the sum of the contact forces on the body (N) and their torque
 * about its centre of mass (N m), world, from the last step */
static int b_contact_force(lua_State *L)
{
    char ctx[160];
    mo_body_id id = mo_lua_self_body(L, ctx, sizeof ctx);
    mo_vec3 f, t;
    if (mo_body_contact_force(mo_lua_world(L), id, &f, &t) != MO_OK) mo_lua_world_fail(L, ctx);
    mo_lua_push_vec(L, f);
    mo_lua_push_vec(L, t);
    return 2;
}

void mo_lua_open_contacts(lua_State *L)
{
    lua_pushcfunction(L, l_contacts);
    lua_setfield(L, -2, "contacts");
    luaL_getmetatable(L, "moreau.body");
    lua_getfield(L, -1, "__index");
    lua_pushcfunction(L, b_contact_force);
    lua_setfield(L, -2, "contact_force");
    lua_pop(L, 2);
}
