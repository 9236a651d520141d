/* test_lua_contacts: moreau.contacts(body) and b:contact_force() in scene files
 * (scene/lua/lua_contacts.c) against the C API on the scene's world.
 *   A 2 kg box under a 3 kg box on the ground, settled for 1 s: the lists of
 *   the bottom box, the top box and the ground carry the numbers of
 *   mo_world_contacts seen from that body (normal into it, force on it: the
 *   opposites for body A), bit for bit; b:contact_force() is
 *   mo_body_contact_force; an on_step callback reads the previous step's
 *   contacts; moreau.contacts() still counts them; j:reaction() holds a
 *   hanging body with m g.
 *   Errors with file:line and exact text: not a body, a destroyed body (both
 *   moreau.contacts and b:contact_force). */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"
#include "scene_tmp.h"

static const char *const scene_text =
    "world{ time_step = 1/120 }\n"
    "local g = ground{ name = 'floor', friction = 0.6 }\n"
    "local bot = body{ name = 'bot', mass = 2, position = {0.3, -0.2, 0.1},\n"
    "  shape = { type = 'box', half_extents = {0.3, 0.25, 0.1} } }\n"
    "local top = body{ name = 'top', mass = 3, position = {0.35, -0.18, 0.3},\n"
    "  shape = { type = 'box', half_extents = {0.1, 0.1, 0.1} } }\n"
    "local victim = body{ name = 'victim', mass = 1, position = {5, 5, 0.1},\n"
    "  shape = { type = 'sphere', radius = 0.1 } }\n"
    "local bob = body{ name = 'bob', mass = 1.5, position = {-5, -5, 2},\n"
    "  shape = { type = 'sphere', radius = 0.1 } }\n"
    "local hang = joint{ type = 'spherical', b = bob, anchor = {-5, -5, 2.5} }\n"
    "local seen_z, seen_n, count = 0, 0, -1\n"
    "on_step(function(t, step)\n"
    "  if step == 5 then victim:destroy() end\n"
    "  local z = 0\n"
    "  for _, c in ipairs(moreau.contacts(bot)) do z = z + c.force.z end\n"
    "  seen_z, seen_n, count = z, #moreau.contacts(bot), moreau.contacts()\n"
    "end)\n"
    "local function v(x) return string.format('%.17g %.17g %.17g', x.x, x.y, x.z) end\n"
    "local function name(b) return b == g and 'g' or b == bot and 'b' or b == top and 't' or '?' end\n"
    "local function list(b)\n"
    "  local out = {}\n"
    "  for _, c in ipairs(moreau.contacts(b)) do\n"
    "    out[#out + 1] = v(c.point) .. ' ' .. v(c.normal) .. ' ' .. v(c.force) .. ' ' .. v(c.tangent1) .. ' ' ..\n"
    "      v(c.tangent2) .. string.format(' %.17g %.17g ', c.gap, c.friction) .. name(c.other) ..\n"
    "      (c.particle and ' p' or '')\n"
    "  end\n"
    "  local f, tq = b:contact_force()\n"
    "  return #out .. '|' .. v(f) .. '|' .. v(tq) .. '|' .. table.concat(out, ';')\n"
    "end\n"
    "check('bot', function() return true, list(bot) end)\n"
    "check('top', function() return true, list(top) end)\n"
    "check('floor', function() return true, list(g) end)\n"
    "check('callback', function() return true, string.format('%.17g %d %d', seen_z, seen_n, count) end)\n"
    "check('reaction', function() local f, t = hang:reaction(); return true, v(f) .. ' ' .. v(t) end)\n"
    "check('errors', function()\n"
    "  local _, e1 = pcall(moreau.contacts, 5)\n"
    "  local _, e2 = pcall(moreau.contacts, victim)\n"
    "  local _, e3 = pcall(victim.contact_force, victim)\n"
    "  local _, e4 = pcall(bot.contact_force, 'x')\n"
    "  return true, e1 .. '|' .. e2 .. '|' .. e3 .. '|' .. e4\n"
    "end)\n";

static bool same(mo_body_id a, mo_body_id b) { return a.index == b.index && a.generation == b.generation; }

static const char *vec(char *buf, mo_vec3 x)
{
    sprintf(buf, "%.17g %.17g %.17g", x.x, x.y, x.z);
    return buf;
}

/* the Lua check's text for body id, built from the C API (as list() in the scene) */
static void expected(mo_world *w, mo_body_id id, const mo_body_id *names, char *out, size_t cap)
{
    int n = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)calloc((size_t)n + 1, sizeof *c);
    mo_world_contacts(w, c, n);
    char items[8192] = "", a[5][80];
    int k = 0;
    for (int i = 0; i < n; i++) {
        bool is_b = same(c[i].body_b, id) && mo_particle_id_is_null(c[i].particle), is_a = same(c[i].body_a, id);
        if (!is_a && !is_b) continue;
        double s = is_b ? 1.0 : -1.0;
        mo_body_id other = is_b ? c[i].body_a : c[i].body_b;
        const char *on = same(other, names[0]) ? "g" : same(other, names[1]) ? "b" : same(other, names[2]) ? "t" : "?";
        char item[700];
        snprintf(item, sizeof item, "%s %s %s %s %s %.17g %.17g %s", vec(a[0], c[i].point),
                 vec(a[1], (mo_vec3){s * c[i].normal.x, s * c[i].normal.y, s * c[i].normal.z}),
                 vec(a[2], (mo_vec3){s * c[i].force.x, s * c[i].force.y, s * c[i].force.z}), vec(a[3], c[i].tangent1),
                 vec(a[4], c[i].tangent2), c[i].gap, c[i].friction, on);
        if (k++) strcat(items, ";");
        strcat(items, item);
    }
    mo_vec3 f, t;
    CHECK(mo_body_contact_force(w, id, &f, &t) == MO_OK);
    snprintf(out, cap, "%d|%s|%s|%s", k, vec(a[0], f), vec(a[1], t), items);
    free(c);
}

int main(void)
{
    if (scene_tmp_begin("moreau-lua-contacts")) return 1;
    write_file("contacts.lua", scene_text);
    char path[600], err[1024] = "";
    snprintf(path, sizeof path, "%s/contacts.lua", tmpdir);
    mo_scene_file *s = NULL;
    if (mo_scene_file_load(path, NULL, &s, err, sizeof err) != MO_OK) {
        fprintf(stderr, "load: %s\n", err);
        scene_tmp_end();
        return 1;
    }
    mo_scene_body sb[5];
    CHECK(mo_scene_file_bodies(s, sb, 5) == 5);
    const mo_body_id ids[3] = {sb[0].id, sb[1].id, sb[2].id}, victim = sb[3].id;
    for (int i = 0; i < 120; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    mo_world *w = mo_scene_file_world(s);
    mo_scene_check_result r[6];
    CHECK(mo_scene_file_checks(s, r, 6) == 0);
    static char want[16384];
    for (int b = 0; b < 3; b++) { /* checks bot, top, floor; ids floor, bot, top */
        expected(w, ids[(b + 1) % 3], ids, want, sizeof want);
        CHECK_STR(r[b].detail, want);
        printf("%s: %.*s...\n", r[b].name, 120, r[b].detail);
    }
    /* the figures themselves: the bottom box carries both, the top box presses it down */
    mo_vec3 f;
    mo_body_contact_force(w, ids[1], &f, NULL);
    CHECK_NEAR(f.z, 2 * 9.81, 1e-9);
    mo_body_contact_force(w, ids[0], &f, NULL);
    CHECK_NEAR(f.z, -5 * 9.81, 1e-9);
    CHECK(atoi(r[0].detail) == 8); /* 4 from the ground, 4 from the top box */
    /* the callback before the last step saw the contacts of the step before it: 8 on the bottom box, summing
       to its weight (its forces include the top box's) */
    double z;
    int nb, count;
    CHECK(sscanf(r[3].detail, "%lf %d %d", &z, &nb, &count) == 3);
    CHECK(nb == 8 && count == 8);
    CHECK_NEAR(z, 2 * 9.81, 1e-9);
    /* j:reaction(): the joint holds the hanging 1.5 kg bob with m g up, no torque */
    double jr[6];
    CHECK(sscanf(r[4].detail, "%lf %lf %lf %lf %lf %lf", jr, jr + 1, jr + 2, jr + 3, jr + 4, jr + 5) == 6);
    printf("reaction: %s\n", r[4].detail);
    CHECK_NEAR(jr[2], 1.5 * 9.81, 1e-6);
    CHECK(fabs(jr[0]) < 1e-9 && fabs(jr[1]) < 1e-9 && fabs(jr[3]) + fabs(jr[4]) + fabs(jr[5]) < 1e-9);
    char e[4][200];
    snprintf(e[0], sizeof e[0], "contacts: the argument must be a body, got number"); /* under pcall: no line */
    snprintf(e[1], sizeof e[1], "contacts: body id (index %u, generation %u) does not name a live body", victim.index,
             victim.generation);
    snprintf(e[2], sizeof e[2], "body 'victim': body id (index %u, generation %u) does not name a live body",
             victim.index, victim.generation);
    snprintf(e[3], sizeof e[3], "expected a body (call it as b:method()), got string");
    printf("errors: %s\n", r[5].detail);
    char all[900];
    snprintf(all, sizeof all, "%s|%s|%s|%s", e[0], e[1], e[2], e[3]);
    CHECK_STR(r[5].detail, all);
    mo_scene_file_destroy(s);
    /* at load: the file and line */
    write_file("bad.lua", "ground{}\nlocal n = moreau.contacts({})\n");
    snprintf(path, sizeof path, "%s/bad.lua", tmpdir);
    s = NULL;
    CHECK(mo_scene_file_load(path, NULL, &s, err, sizeof err) != MO_OK && s == NULL);
    CHECK(strstr(err, "bad.lua:2: contacts: the argument must be a body, got table") != NULL);
    printf("load error: %s\n", err);
    scene_tmp_end();
    return check_result("lua_contacts");
}
