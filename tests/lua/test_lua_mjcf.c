/* test_lua_mjcf: moreau.mjcf (scene/lua/lua_import.c, issue 22).
 *   forms:   moreau.mjcf{file = ...} and moreau.mjcf(path, {maximal = true}) on a two-body MJCF written
 *            here (a hinge and a slide): the articulation handle with link numbers by name ("world" 1),
 *            and the maximal form's bodies and joints by name, seen from C with the same masses
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
    test_sandbox();
    test_errors();
    scene_tmp_end();
    return check_result("lua_mjcf");
}
