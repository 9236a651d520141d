/* test_lua_fem: fem{} in scene files (scene/lua/lua_fem.c) and scenes/extension.lua.
 *   inline:   a tetrahedron from nodes/tets (1-based): counts, rest volume 1/6, positions with
 *             the mesh pose, fixed = {1, {2, "z"}}, set_activation, methods' range errors
 *   file:     models/tet/bar.msh and bar.node through the search path: 81 nodes, 192 tetrahedra,
 *             rest volume 0.004 m^3; a bar hanging from fixed = function(x, y, z) keeps its top
 *             nodes at their targets while it sags
 *   refusals: exact file:line messages, the world unchanged (state hash, pcall): bad material
 *             (unknown model, E = 0, nu = 0.5), an inverted tetrahedron by its number, a node
 *             number out of range, a mesh path outside the scene's folder, a malformed mesh file
 *             (named as the scene sees it), a solver other than newton, set_solver{pgs} after
 *   scene:    extension.lua a few steps (every claim holds; the volume claims say they need the
 *             full run), then its full 2 s (every claim holds: closed forms within 1 %)
 *   coupling: materials + element_material (a function of the centroid: the lower half 3x denser)
 *             and attach (a function: the top face to a static holder): after 45 steps the attachment forces carry
 *             the bar's weight g (1000 + 3000) 0.002 = 78.48 N (0.5 %); the same with lists; a
 *             uniform activation a = 0.331 grows a free bar's volume to 1.331 V0 (0.5 %); methods
 *             attach/detach/attachment_force/element_centroid; refusals (node twice, not a body,
 *             a fixed node, compliance < 0, list lengths, material numbers) with file:line, the
 *             world unchanged
 * Scene files are written into a fresh temporary folder (scene/), with scenes/ as a search path. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"
#include "scene_tmp.h"

static mo_scene_file *load(const char *text, char *err, size_t n)
{
    write_file("scene/t.lua", text);
    char path[600];
    snprintf(path, sizeof path, "%s/t.lua", scene_dir);
    mo_scene_options o = mo_default_scene_options();
    const char *sp[1] = {scenes_dir};
    o.search_paths = sp;
    o.search_path_count = 1;
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, &o, &s, err, n);
    CHECK((st == MO_OK) == (s != NULL));
    return s;
}

static void expect_ok(const char *what, const char *text)
{
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: unexpected error: %s\n", what, err);
        check_failures++;
    }
    mo_scene_file_destroy(s);
}

/* the scene fails to load with an error ending in want ("t.lua:<line>: ...") */
static void expect_error(const char *what, const char *text, const char *want)
{
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    CHECK(s == NULL);
    size_t ne = strlen(err), nw = strlen(want);
    if (ne < nw || strcmp(err + ne - nw, want) || (ne > nw && err[ne - nw - 1] != '/')) {
        fprintf(stderr, "%s:\n  got  '%s'\n  want '.../%s'\n", what, err, want);
        check_failures++;
    }
    mo_scene_file_destroy(s);
}

/* all checks of s pass; prints them */
static int run_checks(mo_scene_file *s, const char *label)
{
    mo_scene_check_result r[16];
    int failed = mo_scene_file_checks(s, r, 16);
    int n = mo_scene_file_check_count(s);
    for (int i = 0; i < n && i < 16; i++)
        printf("  %s: %s %s (%s)\n", label, r[i].passed ? "PASS" : "FAIL", r[i].name, r[i].detail);
    return failed;
}

#define NEWTON "world{ gravity = {0, 0, 0}, solver = { kind = 'newton' } }\n"
#define TET "nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, tets = {{1, 2, 3, 4}}"
#define MAT "material = { model = 'corotational', young = 1e5, poisson = 0.3, density = 1000 }"

static void test_inline(void)
{
    expect_ok("inline tetrahedron",
              NEWTON "local m = fem{ name = 'tet', " TET ", " MAT ", position = {1, 2, 3}, fixed = {1, {2, 'z'}} }\n"
                     "assert(m:node_count() == 4 and m:element_count() == 1)\n"
                     "assert(math.abs(m:rest_volume() - 1 / 6) < 1e-15 and math.abs(m:volume() - 1 / 6) < 1e-15)\n"
                     "local p = m:node_position(2)\n"
                     "assert(p.x == 2 and p.y == 2 and p.z == 3, tostring(p.x))\n"
                     "assert(m:name() == 'tet' and m:valid() and tostring(m):find(\"'tet'\"))\n"
                     "assert(moreau.fem == fem)\n"
                     "m:set_activation(1, 0.2)\n"
                     "m:set_fixed_velocity(1, {0, 0, 0.1})\n"
                     "m:destroy()\n"
                     "assert(not m:valid())\n");
    /* methods' ranges, counted from 1 */
    expect_error("node 0", NEWTON "local m = fem{ " TET ", " MAT " }\nlocal p = m:node_position(0)\n",
                 "t.lua:3: fem: node 0 is not in 1..4");
    expect_error("element 2", NEWTON "local m = fem{ name = 'a', " TET ", " MAT " }\nm:set_activation(2, 0.1)\n",
                 "t.lua:3: fem 'a': element 2 is not in 1..1");
    expect_error("activation -1",
                 NEWTON "local m = fem{ name = 'a', " TET ", " MAT " }\nm:set_activation(1, -1)\n",
                 "t.lua:3: fem 'a': FEM element 0: activation must be finite and > -1, got -1 (element 1 counting from 1 in the scene)");
    expect_error("fixed velocity of a free node",
                 NEWTON "local m = fem{ " TET ", " MAT ", fixed = {1} }\nm:set_fixed_velocity(2, {0, 0, 1})\n",
                 "t.lua:3: fem: FEM node 1 is not a fixed node of the mesh (node 2 counting from 1 in the scene)");
}

static void test_file(void)
{
    expect_ok("bar.msh",
              NEWTON "local m = fem{ mesh = 'models/tet/bar.msh', " MAT ", position = {1, 0, 0} }\n"
                     "assert(m:node_count() == 81 and m:element_count() == 192)\n"
                     "assert(math.abs(m:rest_volume() - 0.004) < 1e-15, m:rest_volume())\n"
                     "local p = m:node_position(1)\n"
                     "assert(math.abs(p.x - 0.95) < 1e-15 and math.abs(p.y + 0.05) < 1e-15 and p.z == 0)\n");
    expect_ok("bar.node",
              NEWTON "local m = fem{ mesh = 'models/tet/bar.node', " MAT " }\n"
                     "assert(m:node_count() == 81 and m:element_count() == 192)\n");
    /* a bar hanging from its top face (fixed by a function of the world position) */
    char err[1024] = "";
    mo_scene_file *s = load("world{ gravity = {0, 0, -9.81}, time_step = 1 / 60, solver = { kind = 'newton' } }\n"
                            "local m = fem{ name = 'bar', mesh = 'models/tet/bar.msh', position = {0, 0, 1},\n"
                            "  material = { model = 'corotational', young = 1e5, poisson = 0.3, density = 1000 },\n"
                            "  fixed = function(x, y, z) return z > 1.4 - 1e-9 end }\n"
                            "check('top held', function()\n"
                            "  local worst = 0\n"
                            "  for i = 1, m:node_count() do local p = m:node_position(i)\n"
                            "    if i > 72 then worst = math.max(worst, math.abs(p.z - 1.4)) end end\n"
                            "  return worst < 1e-6, worst end)\n"
                            "check('bottom sags', function() local z = m:node_position(5).z return z < 1 - 1e-4, z end)\n",
                            err, sizeof err);
    if (!s) {
        fprintf(stderr, "hanging bar: %s\n", err);
        check_failures++;
        return;
    }
    for (int i = 0; i < 30; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(run_checks(s, "hanging bar") == 0);
    mo_scene_file_destroy(s);
}

static void test_refusals(void)
{
    /* each refusal is caught by pcall first: the world's state hash is unchanged */
#define UNCHANGED(call) "local h = moreau.state_hash()\nassert(not pcall(fem, " call "))\nassert(moreau.state_hash() == h)\n"
    expect_ok("world unchanged",
              NEWTON "fem{ " TET ", " MAT " }\n" UNCHANGED("{ nodes = {{0,0,0},{1,0,0},{0,1,0},{0,0,1}}, tets = {{1,3,2,4}}, " MAT " }")
                  UNCHANGED("{ " TET ", material = { young = 0, poisson = 0.3, density = 1000 } }")
                  UNCHANGED("{ mesh = '../outside.msh', " MAT " }"));
    expect_error("unknown model", NEWTON "fem{ " TET ", material = { model = 'rubber', young = 1, poisson = 0, density = 1 } }\n",
                 "t.lua:2: fem: material.model 'rubber' is not one of corotational, neo_hookean");
    expect_error("missing density", NEWTON "fem{ " TET ", material = { young = 1, poisson = 0 } }\n",
                 "t.lua:2: fem: material needs density");
    expect_error("E = 0", NEWTON "fem{ name = 'b', " TET ", material = { young = 0, poisson = 0.3, density = 1000 } }\n",
                 "t.lua:2: fem 'b': FEM material 0: Young's modulus must be finite and in (0, 1e+15] Pa, got 0");
    expect_error("nu = 0.5", NEWTON "fem{ " TET ", material = { young = 1e5, poisson = 0.5, density = 1000 } }\n",
                 "t.lua:2: fem: FEM material 0: Poisson's ratio must be in (-1, 0.5), got 0.5");
    expect_error("inverted tetrahedron",
                 NEWTON "fem{ nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}},\n"
                        "     tets = {{1, 2, 3, 4}, {2, 4, 3, 5}}, " MAT " }\n",
                 "t.lua:2: fem: FEM mesh: mo_tetmesh_check: tetrahedron 1 is inverted (volume -0.333) (tets[2] in the scene)");
    expect_error("node out of range", NEWTON "fem{ nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, tets = {{1, 2, 3, 5}}, " MAT " }\n",
                 "t.lua:2: fem: tets[1]: node number 5 is not in 1..4");
    expect_error("fixed out of range", NEWTON "fem{ " TET ", " MAT ", fixed = {7} }\n",
                 "t.lua:2: fem: fixed[1]: node number 7 is not in 1..4");
    expect_error("fixed axes", NEWTON "fem{ " TET ", " MAT ", fixed = {{1, 'w'}} }\n",
                 "t.lua:2: fem: fixed[1]: axes 'w' must be letters among x, y, z");
    expect_error("unused node", NEWTON "fem{ nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {5, 5, 5}}, tets = {{1, 2, 3, 4}}, " MAT " }\n",
                 "t.lua:2: fem: FEM node 4 belongs to no tetrahedron (it would have no mass) (nodes[5] in the scene)");
    expect_error("mesh and nodes", NEWTON "fem{ mesh = 'models/tet/bar.msh', " TET ", " MAT " }\n",
                 "t.lua:2: fem: give mesh (a file) or nodes and tets, not both");
    expect_error("unknown field", NEWTON "fem{ " TET ", " MAT ", positon = {0, 0, 0} }\n",
                 "t.lua:2: fem: unknown field 'positon'");
    /* paths: outside the scene's folder, missing, malformed (named as the scene names it) */
    write_file("outside.msh", "not a mesh\n");
    expect_error("path outside", NEWTON "fem{ mesh = '../outside.msh', " MAT " }\n",
                 "t.lua:2: fem: '../outside.msh' is outside the scene's folder and the search paths");
    char abs_out[700];
    snprintf(abs_out, sizeof abs_out, NEWTON "fem{ mesh = '%s/outside.msh', " MAT " }\n", tmpdir);
    char want_abs[700];
    snprintf(want_abs, sizeof want_abs, "t.lua:2: fem: '%s/outside.msh' is outside the scene's folder and the search paths", tmpdir);
    {
        char err[1024] = "";
        mo_scene_file *s = load(abs_out, err, sizeof err);
        CHECK(s == NULL && strstr(err, want_abs) != NULL);
        if (!strstr(err, want_abs)) fprintf(stderr, "absolute path: got '%s'\n", err);
        mo_scene_file_destroy(s);
    }
    expect_error("missing file", NEWTON "fem{ mesh = 'nothere.msh', " MAT " }\n",
                 "t.lua:2: fem: cannot find 'nothere.msh' in the scene's folder or the search paths");
    write_file("scene/bad.msh", "$MeshFormat\n4.1 1 8\n$EndMeshFormat\n");
    {
        char err[1024] = "";
        mo_scene_file *s = load(NEWTON "fem{ mesh = 'bad.msh', " MAT " }\n", err, sizeof err);
        CHECK(s == NULL);
        printf("  malformed mesh file: %s\n", err);
        /* the mesh file is named as the loader names the scene's files (the scene's folder as given) */
        char want[800];
        snprintf(want, sizeof want, "t.lua:2: fem: %s/bad.msh:2: binary .msh files are not read", scene_dir);
        CHECK(strstr(err, want) != NULL);
        mo_scene_file_destroy(s);
    }
    /* the solver */
    expect_error("pgs world", "world{ solver = { kind = 'pgs' } }\nfem{ " TET ", " MAT " }\n",
                 "t.lua:2: fem: FEM meshes need the newton solver (MO_SOLVER_NEWTON); the world's solver is 'pgs': "
                 "give world{solver = {kind = \"newton\"}} (or call moreau.set_solver{kind = \"newton\"}) before fem{}");
    expect_error("default world", "fem{ " TET ", " MAT " }\n",
                 "t.lua:1: fem: FEM meshes need the newton solver (MO_SOLVER_NEWTON); the world's solver is 'pgs': "
                 "give world{solver = {kind = \"newton\"}} (or call moreau.set_solver{kind = \"newton\"}) before fem{}");
    expect_ok("set_solver newton before fem", "moreau.set_solver{ kind = 'newton' }\nfem{ " TET ", " MAT " }\n");
    {
        char err[1024] = "";
        mo_scene_file *s = load(NEWTON "fem{ " TET ", " MAT " }\nmoreau.set_solver{ kind = 'pgs' }\n", err, sizeof err);
        CHECK(s == NULL);
        printf("  set_solver pgs after a mesh: %s\n", err);
        CHECK(strstr(err, "t.lua:3: ") && strstr(err, "FEM meshes need the newton solver: solver 'pgs' would ignore the world's 1 FEM mesh(es)"));
        mo_scene_file_destroy(s);
    }
}

static void test_extension_scene(void)
{
    char path[4200], err[1024] = "";
    snprintf(path, sizeof path, "%s/extension.lua", scenes_dir);
    for (int full = 0; full < 2; full++) {
        mo_scene_file *s = NULL;
        if (mo_scene_file_load(path, NULL, &s, err, sizeof err) != MO_OK) {
            fprintf(stderr, "extension.lua: %s\n", err);
            check_failures++;
            return;
        }
        CHECK(mo_scene_file_check_count(s) == 4);
        CHECK(fabs(mo_scene_file_duration(s) - 2.0) < 1e-12);
        mo_world *w = mo_scene_file_world(s);
        int steps = full ? (int)lround(mo_scene_file_duration(s) / mo_world_time_step(w)) : 10;
        for (int i = 0; i < steps && !mo_scene_file_done(s, NULL); i++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(mo_scene_file_steps(s) == (uint64_t)steps);
        CHECK(run_checks(s, full ? "extension.lua, 2 s" : "extension.lua, 10 steps") == 0);
        mo_scene_file_destroy(s);
    }
}

#define TWO_MATS "materials = { { young = 1e6, poisson = 0.3, density = 1000 }, { young = 1e6, poisson = 0.3, density = 3000 } }"

static void test_coupling(void)
{
    /* the bar of models/tet/bar.msh (0.1 x 0.1 x 0.4 m, 192 tets) hanging from a static holder */
    const char *hang =
        "world{ gravity = {0, 0, -9.81}, time_step = 1 / 60, solver = { kind = 'newton' } }\n"
        "local holder = body{ type = 'static', position = {0, 0, 1.45}, shape = { type = 'box', half_extents = {0.1, 0.1, 0.05} } }\n"
        "local m = fem{ name = 'bar', mesh = 'models/tet/bar.msh', position = {0, 0, 1}, " TWO_MATS ",\n"
        "  element_material = function(x, y, z) return z < 1.2 and 2 or 1 end,\n"
        "  attach = function(x, y, z) if z > 1.4 - 1e-9 then return holder end end }\n"
        "local top = {}\n"
        "for i = 1, m:node_count() do if m:node_position(i).z > 1.4 - 1e-9 then top[#top + 1] = i end end\n"
        "assert(#top == 9, #top)\n"
        "check('attachments carry the weight', function()\n"
        "  local f = 0\n"
        "  for _, i in ipairs(top) do f = f + m:attachment_force(i).z end\n"
        "  return math.abs(f - 78.48) < 0.005 * 78.48, string.format('%.4f N', f) end)\n"
        "check('top held', function()\n"
        "  local e = 0\n"
        "  for _, i in ipairs(top) do e = math.max(e, math.abs(m:node_position(i).z - 1.4)) end\n"
        "  return e < 1e-6, e end)\n";
    char err[1024] = "";
    mo_scene_file *s = load(hang, err, sizeof err);
    if (!s) {
        fprintf(stderr, "coupling: %s\n", err);
        check_failures++;
    } else {
        for (int i = 0; i < 45; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(run_checks(s, "two-material bar hanging by attachments") == 0);
        mo_scene_file_destroy(s);
    }
    /* lists: element_material by index, attach by {node, body} entries, the methods */
    s = load("world{ gravity = {0, 0, -9.81}, time_step = 1 / 60, solver = { kind = 'newton' } }\n"
             "local b = body{ type = 'static', position = {0, 0, 2}, shape = { type = 'sphere', radius = 0.05 } }\n"
             "local m = fem{ " TET ", " TWO_MATS ", element_material = {2}, activation = {0.1},\n"
             "  attach = { {1, b}, {node = 2, body = b, compliance = 1e-6} } }\n"
             "local f0 = m:attachment_force(1)\n"
             "assert(f0.x == 0 and f0.y == 0 and f0.z == 0)\n"
             "m:detach(1)\n"
             "m:attach(1, b, 0)\n"
             "m:attach(3, b)\n"
             "local c = m:element_centroid(1)\n"
             "assert(c.x == 0.25 and c.y == 0.25 and c.z == 0.25, c.x)\n"
             "check('three attachments carry the tetrahedron', function()\n"
             "  local f = m:attachment_force(1).z + m:attachment_force(2).z + m:attachment_force(3).z\n"
             "  local wt = 9.81 * 3000 / 6\n"
             "  return math.abs(f - wt) < 0.01 * wt, string.format('%.3f N of %.3f N', f, wt) end)\n",
             err, sizeof err);
    if (!s) {
        fprintf(stderr, "lists and methods: %s\n", err);
        check_failures++;
    } else {
        for (int i = 0; i < 120; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(run_checks(s, "lists and methods") == 0);
        mo_scene_file_destroy(s);
    }
    /* a uniform activation grows a free bar's rest volume by 1 + a */
    s = load("world{ gravity = {0, 0, 0}, time_step = 1 / 60, solver = { kind = 'newton' } }\n"
             "local m = fem{ mesh = 'models/tet/bar.msh', material = { young = 1e5, poisson = 0.3, density = 1000 }, activation = 0.331 }\n"
             "check('volume 1.331 V0', function() local r = m:volume() / m:rest_volume()\n"
             "  return math.abs(r - 1.331) < 0.005 * 1.331, string.format('%.4f', r) end)\n",
             err, sizeof err);
    if (!s) {
        fprintf(stderr, "activation: %s\n", err);
        check_failures++;
    } else {
        for (int i = 0; i < 45; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(run_checks(s, "activated free bar") == 0);
        mo_scene_file_destroy(s);
    }
    /* refusals */
#define HOLDER "local b = body{ type = 'static', position = {0, 0, 2}, shape = { type = 'sphere', radius = 0.05 } }\n"
    expect_ok("attach refusals leave the world unchanged",
              NEWTON HOLDER
              "local h = moreau.state_hash()\n"
              "assert(not pcall(fem, { " TET ", " MAT ", attach = { {1, b}, {1, b} } }))\n"
              "assert(not pcall(fem, { " TET ", " MAT ", fixed = {2}, attach = { {2, b} } }))\n"
              "assert(moreau.state_hash() == h)\n");
    expect_error("attached twice", NEWTON HOLDER "fem{ " TET ", " MAT ", attach = { {1, b}, {1, b} } }\n",
                 "t.lua:3: fem: attach: node 1 is attached twice");
    expect_error("attach not a body", NEWTON HOLDER "fem{ " TET ", " MAT ", attach = { {1, 'b'} } }\n",
                 "t.lua:3: fem: attach[1]: body must be a body, got string");
    expect_error("attach a fixed node", NEWTON HOLDER "fem{ " TET ", " MAT ", fixed = {2}, attach = { {2, b} } }\n",
                 "t.lua:3: fem: attach: node 2 is a fixed node: it cannot also be attached");
    expect_error("attach compliance", NEWTON HOLDER "fem{ " TET ", " MAT ", attach = { {3, b, -1} } }\n",
                 "t.lua:3: fem: attach: node 3: compliance must be finite and >= 0, got -1");
    expect_error("attach node range", NEWTON HOLDER "fem{ " TET ", " MAT ", attach = { {5, b} } }\n",
                 "t.lua:3: fem: attach[1]: node number 5 is not in 1..4");
    expect_error("attach function result", NEWTON HOLDER "fem{ " TET ", " MAT ", attach = function() return 1 end }\n",
                 "t.lua:3: fem: attach(...) for node 1 must return nil, false or a body, got number");
    expect_error("element_material length", NEWTON "fem{ " TET ", " TWO_MATS ", element_material = {1, 2} }\n",
                 "t.lua:2: fem: element_material lists 2 materials for 1 elements");
    expect_error("element_material number", NEWTON "fem{ " TET ", " TWO_MATS ", element_material = function() return 3 end }\n",
                 "t.lua:2: fem: element_material(...) for element 1: material number 3 is not in 1..2");
    expect_error("material and materials", NEWTON "fem{ " TET ", " MAT ", " TWO_MATS " }\n",
                 "t.lua:2: fem: give material (one) or materials (a list), not both");
    expect_error("materials entry", NEWTON "fem{ " TET ", materials = { { young = 1, poisson = 0 } } }\n",
                 "t.lua:2: fem: materials[1] needs density");
    expect_error("activation length", NEWTON "fem{ " TET ", " MAT ", activation = {0.1, 0.2} }\n",
                 "t.lua:2: fem: activation lists 2 values for 1 elements");
    expect_error("activation value", NEWTON "fem{ " TET ", " MAT ", activation = -2 }\n",
                 "t.lua:2: fem: FEM element 0: activation must be finite and > -1, got -2 (tets[1] in the scene)");
    expect_error("detach a free node", NEWTON HOLDER "local m = fem{ " TET ", " MAT " }\nm:detach(2)\n",
                 "t.lua:4: fem: FEM node 1 is not attached to a body (node 2 counting from 1 in the scene)");
    expect_error("attach method twice", NEWTON HOLDER "local m = fem{ " TET ", " MAT " }\nm:attach(2, b)\nm:attach(2, b)\n",
                 "t.lua:5: fem: FEM node 1 is already attached to body 1: detach it first (node 2 counting from 1 in the scene)");
    expect_error("attach method body", NEWTON "local m = fem{ " TET ", " MAT " }\nm:attach(2, 7)\n",
                 "t.lua:3: fem: body must be a body, got number");
}

int main(void)
{
    if (scene_tmp_begin("moreau-lua-fem") != 0) return 1;
    test_inline();
    test_file();
    test_refusals();
    test_coupling();
    test_extension_scene();
    scene_tmp_end();
    return check_result("lua_fem");
}
