/* test_lua_mjcf: moreau.mjcf (scene/lua/lua_import.c, issue 22).
 *   forms:   moreau.mjcf{file = ...} and moreau.mjcf(path, {maximal = true}) on a two-body MJCF written
 *            here (a hinge and a slide): the articulation handle with link numbers by name ("world" 1),
 *            and the maximal form's bodies and joints by name, seen from C with the same masses
 *   equality: a ball joint and a <connect> (maximal = true): r.equalities by name, the connect holds the bob up;
 *            the articulation form refuses it with the sentence naming maximal = true
 *   sandbox: a mesh file outside the scene's folder is refused before anything is created
 *   errors:  the message carries the scene's file:line and the MJCF's file:line; unknown option keys
 * Scene files are written into a fresh temporary folder. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <moreau/import.h>
#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"
#include "scene_tmp.h"

static const char robot_xml[] =
    "<mujoco model='two'>\n"
    "  <worldbody>\n"
    "    <body name='a' pos='0 0 1'>\n"
    "      <joint name='hinge' axis='0 1 0' range='-45 45'/>\n"
    "      <geom type='box' size='0.1 0.1 0.1' mass='2'/>\n"
    "      <body name='b' pos='0 0 -0.5'>\n"
    "        <joint name='slide' type='slide' axis='0 0 1' range='-0.1 0.1'/>\n"
    "        <geom size='0.05' mass='0.5'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static mo_scene_file *load(const char *text, char *err, size_t n)
{
    write_file("scene/t.lua", text);
    char path[600];
    snprintf(path, sizeof path, "%s/t.lua", scene_dir);
    mo_scene_options o = mo_default_scene_options();
    mo_scene_file *s = NULL;
    err[0] = '\0';
    mo_status st = mo_scene_file_load(path, &o, &s, err, n);
    CHECK((st == MO_OK) == (s != NULL));
    return s;
}

static void expect_error(const char *what, const char *text, const char *const *want)
{
    char err[1024];
    mo_scene_file *s = load(text, err, sizeof err);
    CHECK(s == NULL);
    if (s) mo_scene_file_destroy(s);
    for (int i = 0; want[i]; i++)
        if (!strstr(err, want[i])) {
            fprintf(stderr, "%s: '%s' not in: %s\n", what, want[i], err);
            CHECK(!"error text");
        }
}

static void test_forms(void)
{
    write_file("scene/two.xml", robot_xml);
    char err[1024];
    mo_scene_file *s = load("world{ duration = 0.1 }\n"
                            "local r = moreau.mjcf{ file = 'two.xml' }\n"
                            "assert(r.name == 'two' and r.links.world == 1 and r.links.a == 2 and r.links.b == 3)\n"
                            "assert(r.joints.hinge == 2 and r.joints.slide == 3)\n"
                            "local n, nq = r.articulation:size()\n"
                            "assert(n == 3 and nq == 2, 'size ' .. n .. ' ' .. nq)\n"
                            "local lo, hi = r.articulation:limits(2)\n"
                            "assert(math.abs(hi - math.pi / 4) < 1e-15)\n"
                            "local m = moreau.mjcf('two.xml', { maximal = true, self_collision = false })\n"
                            "assert(m.links.a and m.links.b and m.joints.hinge and m.joints.slide)\n"
                            "assert(math.abs(m.links.a:mass() - 2) < 1e-12 and math.abs(m.links.b:mass() - 0.5) < 1e-12)\n",
                            err, sizeof err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "forms: %s\n", err);
        return;
    }
    /* C sees the maximal robot's bodies: the world link (static) and the two bodies, their masses */
    mo_world *w = mo_scene_file_world(s);
    mo_body_id ids[16];
    int n = mo_world_bodies(w, ids, 16);
    double total = 0;
    for (int i = 0; i < n && i < 16; i++) {
        double m = 0;
        if (mo_body_mass(w, ids[i], &m, NULL) == MO_OK) total += m;
    }
    CHECK_NEAR(total, 2.5, 1e-12); /* the articulation's link bodies are kinematic (no mass) */
    CHECK(mo_scene_file_step(s) == MO_OK);
    mo_scene_file_destroy(s);
}

/* a bob on a ball joint 0.5 m to its side, held level by a <connect> to the world 0.5 m to its other side (it would
   swing down without it): loads maximal, the connect's joint by name */
static void test_equality(void)
{
    write_file("scene/loop.xml", "<mujoco model='loop'>\n"
                                 "  <worldbody>\n"
                                 "    <body name='bob' pos='0 0 1'>\n"
                                 "      <joint name='ball' type='ball' pos='-0.5 0 0'/>\n"
                                 "      <geom size='0.1' mass='1'/>\n"
                                 "    </body>\n"
                                 "  </worldbody>\n"
                                 "  <equality>\n"
                                 "    <connect name='tie' body1='bob' anchor='0.5 0 0'/>\n"
                                 "  </equality>\n"
                                 "</mujoco>\n");
    char err[1024];
    mo_scene_file *s = load("world{ duration = 0.5 }\n"
                            "local r = moreau.mjcf{ file = 'loop.xml', maximal = true }\n"
                            "assert(r.joints.ball and r.equalities.tie, 'the ball joint and the connect')\n"
                            "local bob = r.links.bob\n"
                            "local z0 = bob:position().z\n"
                            "on_step(function()\n"
                            "  if math.abs(bob:position().z - z0) > 1e-3 or r.equalities.tie:error() > 1e-3 then error('fell') end\n"
                            "end)\n",
                            err, sizeof err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "equality: %s\n", err);
        return;
    }
    mo_status st = MO_OK;
    for (int i = 0; i < 60 && st == MO_OK; i++) st = mo_scene_file_step(s); /* 0.5 s at 1/120: held level */
    CHECK(st == MO_OK);
    if (st != MO_OK) fprintf(stderr, "equality: %s\n", mo_scene_file_last_error(s));
    mo_scene_file_destroy(s);
    /* the articulation form refuses it, saying how to load it */
    static const char *const artic[] = {"t.lua:2: mjcf: ", "loop.xml:9: connect 'tie': an equality closes a loop, "
                                        "which an articulation (a tree) cannot hold: load with articulation = false (C) "
                                        "or maximal = true (Lua)", NULL};
    expect_error("equality in an articulation", "world{}\nmoreau.mjcf('loop.xml')\n", artic);
}

static void test_sandbox(void)
{
    write_file("outside.stl", "solid x\nendsolid x\n");
    write_file("scene/mesh_out.xml", "<mujoco>\n<asset>\n<mesh name='m' file='../outside.stl'/>\n</asset>\n"
                                     "<worldbody>\n<body name='a'>\n<geom type='mesh' mesh='m'/>\n</body>\n"
                                     "</worldbody>\n</mujoco>\n");
    static const char *const out[] = {"t.lua:2: mjcf: ", "mesh_out.xml:7: geom: mesh file '../outside.stl' is outside "
                                      "the folders this load may read", NULL};
    expect_error("mesh outside", "world{}\nmoreau.mjcf('mesh_out.xml')\n", out);
}

static void test_errors(void)
{
    write_file("scene/bad.xml", "<mujoco>\n<worldbody>\n<body name='a'>\n<joint range='0 x'/>\n</body>\n"
                                "</worldbody>\n</mujoco>\n");
    static const char *const num[] = {"t.lua:3: mjcf: ", "bad.xml:4: joint 'a_joint': range '0 x' is not 2 numbers",
                                      NULL};
    expect_error("bad number", "world{}\n\nmoreau.mjcf{ file = 'bad.xml' }\n", num);
    static const char *const key[] = {"t.lua:2: mjcf: unknown field 'fixed'", NULL};
    expect_error("unknown key", "world{}\nmoreau.mjcf('bad.xml', { fixed = true })\n", key);
    static const char *const nofile[] = {"t.lua:2: mjcf: file must be the MJCF file's name", NULL};
    expect_error("no file", "world{}\nmoreau.mjcf{ maximal = true }\n", nofile);
}

int main(void)
{
    if (scene_tmp_begin("moreau_lua_mjcf") < 0) return 1;
    test_forms();
    test_equality();
    test_sandbox();
    test_errors();
    scene_tmp_end();
    return check_result("lua_mjcf");
}
