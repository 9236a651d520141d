/* test_lua_import: the Lua bindings moreau.urdf and moreau.mesh (scene/lua/lua_import.c)
 * and the two URDF scenes of the catalogue.
 *   urdf:     the arm from scenes/models/ (through a search path): 11 links and 10 engine joints
 *             reachable by name from Lua, the root, masses, link poses at the base pose given,
 *             joint positions 0 at the zero configuration; the C side sees the same bodies
 *   mesh:     link1.stl (a 0.12 x 0.12 x 0.15 box) as {vertices, triangles} with the counts
 *             mo_mesh_load gives, scaled per axis; used as a hull (a dropped body comes to rest
 *             on its bottom face) and as a static triangle mesh (a sphere rests on its top)
 *   sandbox:  URDF and mesh paths with ../, absolute paths and a symlink leading out of the
 *             scene's folder are refused; a URDF inside whose mesh lies outside (relative,
 *             package:// or absolute) is refused before the mesh is opened (nothing of the
 *             robot is created); search_paths outside are refused
 *   errors:   malformed URDFs: the message carries the scene's file:line and the URDF's file:line
 *   options:  self_collision with exclude_pairs and exclude_adjacent (pair_collision of the links
 *             as expected), ignore_damping, lock_zero_limits; the warnings table (a missing
 *             visual mesh, friction left out); bad exclude_pairs; as articulations, moreau.urdf without
 *             self_collision and moreau.mjcf with self_collision = false give the robot a collision group
 *             (a:collision_group() 0x10000, 0x10001), with self_collision none
 *   artic:    articulation = true: the arm as one articulation (sizes, names as link numbers, a link pose,
 *             held by gravity compensation for 1 s)
 *   scenes:   robot_arm.lua runs its full 7 s and its claims hold; humanoids.lua with count=4
 *             builds 52 bodies and 48 joints and runs a few steps with its claims holding
 * With "urdf_no_options" as argument it runs only moreau.urdf(path) without an options table.
 * Scene files are written into a fresh temporary folder; $MOREAU_SCENES_DIR is scenes/. */
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

static mo_scene_file *load(const char *text, const char *const *params, int nparams, char *err, size_t n)
{
    write_file("scene/t.lua", text);
    char path[600];
    snprintf(path, sizeof path, "%s/t.lua", scene_dir);
    mo_scene_options o = mo_default_scene_options();
    const char *sp[1] = {scenes_dir};
    o.search_paths = sp;
    o.search_path_count = 1;
    o.params = params;
    o.param_count = nparams;
    mo_scene_file *s = NULL;
    err[0] = '\0';
    mo_status st = mo_scene_file_load(path, &o, &s, err, n);
    CHECK((st == MO_OK) == (s != NULL));
    return s;
}

static mo_scene_file *load_ok(const char *what, const char *text)
{
    char err[1024];
    mo_scene_file *s = load(text, NULL, 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: unexpected error: %s\n", what, err);
        check_failures++;
    }
    return s;
}

/* the scene must fail to load with an error containing each of want[0..] (NULL-terminated) */
static void expect_error(const char *what, const char *text, const char *const *want)
{
    char err[1024];
    mo_scene_file *s = load(text, NULL, 0, err, sizeof err);
    CHECK(s == NULL);
    for (int i = 0; want[i]; i++)
        if (!strstr(err, want[i])) {
            fprintf(stderr, "%s: error '%s' does not contain '%s'\n", what, err, want[i]);
            check_failures++;
        }
    mo_scene_file_destroy(s);
}

/* evaluates the checks; every one must pass; returns the detail of check k (copied) */
static void all_checks_pass(const char *what, mo_scene_file *s, int k, char *detail, size_t n)
{
    mo_scene_check_result r[16];
    int nc = mo_scene_file_check_count(s);
    CHECK(nc >= 1 && nc <= 16);
    int failed = mo_scene_file_checks(s, r, 16);
    CHECK(failed == 0);
    for (int i = 0; i < nc && i < 16; i++)
        if (!r[i].passed) fprintf(stderr, "%s: check '%s' failed: %s\n", what, r[i].name, r[i].detail);
    if (detail) snprintf(detail, n, "%s", k < nc ? r[k].detail : "");
}

static mo_body_id body_named(mo_scene_file *s, const char *name)
{
    mo_scene_body b[64];
    int n = mo_scene_file_bodies(s, b, 64);
    for (int i = 0; i < n && i < 64; i++)
        if (!strcmp(b[i].name, name)) return b[i].id;
    return (mo_body_id){0, 0};
}

/* ---- moreau.urdf: the arm ---- */

static void test_urdf_arm(void)
{
    mo_scene_file *s = load_ok(
        "arm",
        "world{ gravity = {0, 0, -9.81} }\n"
        "local arm = moreau.urdf('models/arm/arm.urdf', { maximal = true, position = {1, 2, 0.5}, drive_stiffness = 2e4,\n"
        "  drive_damping = 400 })\n"
        "local links, joints = {}, {}\n"
        "for name, b in pairs(arm.links) do links[#links + 1] = name; assert(b:name() == name) end\n"
        "for name, j in pairs(arm.joints) do joints[#joints + 1] = name; assert(j:name() == name) end\n"
        "table.sort(links); table.sort(joints)\n"
        "assert(arm.name == 'arm')\n"
        "assert(arm.root:name() == 'base_link')\n"
        "local m = arm.links.link2:mass()\n"
        "local p2, p3 = arm.links.link2:position(), arm.links.link3:position()\n"
        "local q = {}\n"
        "for _, n in ipairs({'shoulder_pan', 'elbow', 'finger_left_joint'}) do q[#q + 1] = arm.joints[n]:position() end\n"
        "check('counts', function() return true, #links, #joints end)\n"
        "check('names', function() return true, table.concat(links, ' '), table.concat(joints, ' ') end)\n"
        "check('link2', function() return true, string.format('%.17g %.17g %.17g %.17g', m, p2.x, p2.y, p2.z) end)\n"
        "check('link3', function() return true, string.format('%.17g %.17g %.17g', p3.x, p3.y, p3.z) end)\n"
        "check('zero', function() return q[1] == 0 and q[2] == 0 and q[3] == 0, q[1], q[2], q[3] end)\n"
        "-- drive the elbow to 0.5 rad\n"
        "on_step(function() arm.joints.elbow:set_target(0.5, 100) end)\n"
        "check('elbow', function() return true, string.format('%.17g', arm.joints.elbow:position()) end)\n");
    if (!s) return;
    mo_scene_check_result r[8];
    CHECK(mo_scene_file_check_count(s) == 6);
    CHECK(mo_scene_file_checks(s, r, 8) == 0);
    CHECK(!strcmp(r[0].detail, "11, 10"));
    CHECK(!strcmp(r[1].detail,
                  "base_link finger_left finger_right link1 link2 link3 link4 link5 link6 palm tool0, "
                  "elbow finger_left_joint finger_right_joint gripper_mount shoulder_lift shoulder_pan tool_frame "
                  "wrist_1 wrist_2 wrist_3"));
    /* link2: 4 kg, its frame at the base + (0, 0, 0.25), its centre of mass 0.2 m above */
    double m, x, y, z;
    CHECK(sscanf(r[2].detail, "%lf %lf %lf %lf", &m, &x, &y, &z) == 4);
    CHECK_NEAR(m, 4.0, 1e-12);
    CHECK_NEAR(x, 1.0, 1e-12);
    CHECK_NEAR(y, 2.0, 1e-12);
    CHECK_NEAR(z, 0.95, 1e-12);
    /* link3: frame at z 0.5 + 0.65, centre of mass at (0.01, 0, 0.175) in it */
    CHECK(sscanf(r[3].detail, "%lf %lf %lf", &x, &y, &z) == 3);
    CHECK_NEAR(x, 1.01, 1e-12);
    CHECK_NEAR(y, 2.0, 1e-12);
    CHECK_NEAR(z, 1.325, 1e-12);
    CHECK(r[4].passed);
    /* the C side: the same bodies under the link names */
    mo_world *w = mo_scene_file_world(s);
    CHECK(mo_scene_file_bodies(s, NULL, 0) == 11);
    mo_body_id b2 = body_named(s, "link2");
    CHECK(mo_body_is_valid(w, b2));
    mo_vec3 p;
    CHECK(mo_body_position(w, b2, &p) == MO_OK);
    CHECK_NEAR(p.z, 0.95, 1e-12);
    /* the PD drive set from Lua moves the elbow to 0.5 rad in 3 s */
    for (int i = 0; i < 360; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(mo_scene_file_checks(s, r, 8) == 0);
    double q = strtod(r[5].detail, NULL);
    CHECK_NEAR(q, 0.5, 2.5e-3);
    mo_scene_file_destroy(s);
}

/* ---- moreau.mesh ---- */

static void test_mesh(void)
{
    /* what the C loader reads */
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/models/arm/meshes/link1.stl", scenes_dir);
    mo_mesh_data md;
    CHECK(mo_mesh_load(path, (mo_vec3){1, 1, 1}, &md, err, sizeof err) == MO_OK);
    char want[64];
    snprintf(want, sizeof want, "%d, %d", md.nvertices, md.ntriangles);
    CHECK(md.nvertices == 8 && md.ntriangles == 12);
    mo_mesh_free(&md);

    mo_scene_file *s = load_ok(
        "mesh",
        "world{ gravity = {0, 0, -9.81}, solver = { kind = 'pgs', iterations = 50 } }\n"
        "ground{}\n"
        "local m = moreau.mesh('models/arm/meshes/link1.stl')\n"
        "local big = moreau.mesh('models/arm/meshes/link1.stl', { scale = {2, 1, 0.5} })\n"
        "local function bounds(mm)\n"
        "  local lo, hi = {math.huge, math.huge, math.huge}, {-math.huge, -math.huge, -math.huge}\n"
        "  for _, v in ipairs(mm.vertices) do for c = 1, 3 do lo[c] = math.min(lo[c], v[c]); hi[c] = math.max(hi[c], v[c]) end end\n"
        "  return string.format('%.6f %.6f %.6f %.6f %.6f %.6f', lo[1], lo[2], lo[3], hi[1], hi[2], hi[3])\n"
        "end\n"
        "for _, t in ipairs(m.triangles) do for c = 1, 3 do assert(t[c] >= 1 and t[c] <= #m.vertices) end end\n"
        "local hull = body{ name = 'hull', mass = 1, position = {0, 0, 0.3},\n"
        "                   shape = { type = 'hull', points = m.vertices } }\n"
        "body{ name = 'table', type = 'static', position = {2, 0, 0}, shape = { type = 'mesh', mesh = m } }\n"
        "local ball = body{ name = 'ball', mass = 1, position = {2, 0, 0.5}, shape = { type = 'sphere', radius = 0.05 } }\n"
        "check('counts', function() return true, #m.vertices, #m.triangles end)\n"
        "check('bounds', function() return true, bounds(m), bounds(big) end)\n"
        "local z0 = hull:position().z\n"
        "check('hull rests', function()\n"
        "  return true, string.format('%.6f %.6f %.6f', z0, hull:position().z, ball:position().z)\n"
        "end)\n");
    if (!s) return;
    mo_scene_check_result r[4];
    CHECK(mo_scene_file_checks(s, r, 4) == 0);
    CHECK(!strcmp(r[0].detail, want));
    CHECK(!strcmp(r[1].detail, "-0.060000 -0.060000 0.000000 0.060000 0.060000 0.150000, "
                               "-0.120000 -0.060000 0.000000 0.120000 0.060000 0.075000"));
    for (int i = 0; i < 240; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(mo_scene_file_checks(s, r, 4) == 0);
    double z0, zhull, zball;
    CHECK(sscanf(r[2].detail, "%lf %lf %lf", &z0, &zhull, &zball) == 3);
    /* the hull's points span z 0 .. 0.15 in the shape frame: with a mass given and the shape's
       centre of mass off the origin, the body frame moves to the centre of mass (0.075 up) */
    CHECK_NEAR(z0, 0.375, 1e-9);
    /* at rest after 2 s: the hull on its bottom face (centre of mass 0.075 m up), the ball on the
       mesh's top face (0.15 + 0.05) */
    CHECK(fabs(zhull - 0.075) < 5e-3);
    CHECK(fabs(zball - 0.2) < 5e-3);
    mo_world *w = mo_scene_file_world(s);
    mo_vec3 v;
    CHECK(mo_body_linear_velocity(w, body_named(s, "ball"), &v) == MO_OK);
    CHECK(fabs(v.z) < 1e-2);
    mo_scene_file_destroy(s);
}

/* ---- the sandbox ---- */

static const char bad_urdf[] = /* line 7: the bad number */
    "<?xml version=\"1.0\"?>\n"
    "<robot name=\"bad\">\n"
    "  <link name=\"a\"/>\n"
    "  <link name=\"b\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
    "  <joint name=\"j\" type=\"revolute\">\n"
    "    <parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"0\" upper=\"abc\" effort=\"1\" velocity=\"1\"/>\n"
    "  </joint>\n"
    "</robot>\n";

static void write_mesh_urdf(const char *rel, const char *mesh)
{
    char text[2048];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<robot name=\"esc\">\n"
             "  <link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>\n"
             "    <collision><geometry><mesh filename=\"%s\"/></geometry></collision></link>\n"
             "</robot>\n",
             mesh);
    write_file(rel, text);
}

/* the robot of a URDF whose mesh is outside: refused, and (caught by pcall) no body left */
static void expect_mesh_refused(const char *what, const char *urdf, const char *mesh_in_message)
{
    char text[1024];
    snprintf(text, sizeof text,
             "world{}\n"
             "local ok, e = pcall(moreau.urdf, '%s', {})\n"
             "check('refused', function() return not ok, e end)\n",
             urdf);
    char err[1024];
    mo_scene_file *s = load(text, NULL, 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: unexpected error: %s\n", what, err);
        check_failures++;
        return;
    }
    mo_scene_check_result r[1];
    CHECK(mo_scene_file_checks(s, r, 1) == 0);
    char want[700];
    /* refused before the file is opened or even looked for (mo_urdf_options.allow_file):
     * the URDF's file:line and the mesh as written */
    snprintf(want, sizeof want, "urdf: %s/%s:4: link 'a': collision mesh '", scene_dir, urdf);
    if (!strstr(r[0].detail, want) ||
        !strstr(r[0].detail, mesh_in_message) ||
        !strstr(r[0].detail, "' is outside the folders this load may read")) {
        fprintf(stderr, "%s: message '%s'\n", what, r[0].detail);
        check_failures++;
    }
    /* the robot was removed: a step sees no body */
    mo_world *w = mo_scene_file_world(s);
    CHECK(mo_scene_file_bodies(s, NULL, 0) == 0);
    CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(mo_world_last_stats(w).bodies == 0);
    CHECK(mo_world_last_stats(w).joints == 0);
    mo_scene_file_destroy(s);
}

static void test_sandbox(void)
{
    char path[700], text[1400];
    write_file("outside.urdf", bad_urdf);
    snprintf(path, sizeof path, "%s/models/arm/meshes/link1.stl", scenes_dir);
    /* a real mesh outside the scene's folder, and a copy inside */
    {
        FILE *in = fopen(path, "rb");
        CHECK(in != NULL);
        if (!in) return;
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf, in);
        fclose(in);
        for (int k = 0; k < 2; k++) {
            char out[600];
            snprintf(out, sizeof out, "%s/%s", tmpdir, k ? "scene/inside.stl" : "outside.stl");
            FILE *f = fopen(out, "wb");
            CHECK(f && fwrite(buf, 1, n, f) == n);
            if (f) fclose(f);
        }
    }
    static const char *const out_rel[] = {"t.lua:2: urdf: '../outside.urdf' is outside the scene's folder and the search paths", NULL};
    expect_error("urdf ../", "world{}\nmoreau.urdf('../outside.urdf', {})\n", out_rel);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/sub", scene_dir);
    mkdir(sub, 0700);
    static const char *const out_rel2[] = {"t.lua:2: urdf: 'sub/../../outside.urdf' is outside", NULL};
    expect_error("urdf dir/../../", "world{}\nmoreau.urdf('sub/../../outside.urdf', {})\n", out_rel2);
    snprintf(path, sizeof path, "%s/outside.urdf", tmpdir);
    snprintf(text, sizeof text, "world{}\nmoreau.urdf('%s', {})\n", path);
    {
        char want[800];
        snprintf(want, sizeof want, "t.lua:2: urdf: '%s' is outside the scene's folder and the search paths", path);
        const char *const w[] = {want, NULL};
        expect_error("urdf absolute", text, w);
    }
    static const char *const etc[] = {"t.lua:2: mesh: '/etc/passwd' is outside the scene's folder and the search paths", NULL};
    expect_error("mesh /etc/passwd", "world{}\nmoreau.mesh('/etc/passwd')\n", etc);
    static const char *const mesh_rel[] = {"t.lua:2: mesh: '../outside.stl' is outside the scene's folder and the search paths", NULL};
    expect_error("mesh ../", "world{}\nmoreau.mesh('../outside.stl')\n", mesh_rel);
    snprintf(path, sizeof path, "%s/outside.stl", tmpdir);
    snprintf(text, sizeof text, "world{}\nmoreau.mesh('%s', { scale = 2 })\n", path);
    {
        char want[800];
        snprintf(want, sizeof want, "t.lua:2: mesh: '%s' is outside the scene's folder and the search paths", path);
        const char *const w[] = {want, NULL};
        expect_error("mesh absolute", text, w);
    }
    /* a symlink inside the folder that leads out */
    char link[600];
    snprintf(link, sizeof link, "%s/escape.urdf", scene_dir);
    snprintf(path, sizeof path, "%s/outside.urdf", tmpdir);
    CHECK(symlink(path, link) == 0);
    static const char *const sym[] = {"t.lua:2: urdf: 'escape.urdf' is outside the scene's folder and the search paths", NULL};
    expect_error("urdf symlink out", "world{}\nmoreau.urdf('escape.urdf', {})\n", sym);
    /* a mesh inside the folder given by an absolute path is fine */
    snprintf(text, sizeof text, "world{}\nlocal m = moreau.mesh('%s/inside.stl')\nassert(#m.triangles == 12)\n", scene_dir);
    mo_scene_file_destroy(load_ok("mesh absolute inside", text));
    /* URDFs inside whose meshes are outside: relative, package:// (resolved against the scene's
       parent folder, named like the temporary folder) and absolute */
    write_mesh_urdf("scene/esc_rel.urdf", "../outside.stl");
    expect_mesh_refused("mesh ../ in urdf", "esc_rel.urdf", "'../outside.stl'");
    /* the same answer for a file outside that does not exist: nothing outside is looked at */
    write_mesh_urdf("scene/esc_none.urdf", "../does_not_exist.stl");
    expect_mesh_refused("missing mesh ../ in urdf", "esc_none.urdf", "'../does_not_exist.stl'");
    const char *base = strrchr(tmpdir, '/') + 1;
    char pkg[400];
    snprintf(pkg, sizeof pkg, "package://%s/outside.stl", base);
    write_mesh_urdf("scene/esc_pkg.urdf", pkg);
    expect_mesh_refused("package:// mesh in urdf", "esc_pkg.urdf", "/outside.stl'");
    snprintf(path, sizeof path, "%s/outside.stl", tmpdir);
    write_mesh_urdf("scene/esc_abs.urdf", path);
    expect_mesh_refused("absolute mesh in urdf", "esc_abs.urdf", path);
    /* search_paths must be folders inside */
    static const char *const sp[] = {"t.lua:2: urdf: search path '..' is not a folder inside the scene's folder or the search paths", NULL};
    expect_error("search path ..", "world{}\nmoreau.urdf('esc_rel.urdf', { search_paths = {'..'} })\n", sp);
    /* the same URDF with its mesh inside loads */
    write_mesh_urdf("scene/ok.urdf", "inside.stl");
    mo_scene_file *s = load_ok("mesh inside urdf", "world{}\nlocal r = moreau.urdf('ok.urdf', { fixed_base = false, maximal = true })\n"
                                                   "assert(r.root:name() == 'a')\n");
    if (s) CHECK(mo_scene_file_bodies(s, NULL, 0) == 1);
    mo_scene_file_destroy(s);
}

/* ---- malformed URDFs: the scene's line and the URDF's line ---- */

static void test_errors(void)
{
    write_file("scene/bad.urdf", bad_urdf);
    static const char *const num[] = {"t.lua:3: urdf: ", "bad.urdf:7: joint 'j': limit upper 'abc' is not a number", NULL};
    expect_error("bad number", "world{}\nlocal x = 1\nmoreau.urdf('bad.urdf', { fixed_base = true })\n", num);
    write_file("scene/bad_xml.urdf", "<?xml version=\"1.0\"?>\n<robot name=\"x\">\n  <link name=\"a\">\n</robot>\n");
    static const char *const xml[] = {"t.lua:2: urdf: ", "bad_xml.urdf:5: XML error: ", NULL};
    expect_error("XML error", "world{}\nmoreau.urdf('bad_xml.urdf', {})\n", xml);
    write_file("scene/missing_link.urdf",
               "<?xml version=\"1.0\"?>\n<robot name=\"x\">\n  <link name=\"a\"/>\n"
               "  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/><child link=\"nope\"/>\n  </joint>\n</robot>\n");
    static const char *const miss[] = {"t.lua:4: urdf: ", "missing_link.urdf:", "'nope'", NULL};
    expect_error("missing link", "world{}\n\n\nmoreau.urdf('missing_link.urdf', {})\n", miss);
    write_mesh_urdf("scene/no_mesh.urdf", "not_there.stl");
    static const char *const nomesh[] = {"t.lua:2: urdf: ", "no_mesh.urdf:4: link 'a': collision mesh 'not_there.stl' not found", NULL};
    expect_error("missing mesh", "world{}\nmoreau.urdf('no_mesh.urdf', {})\n", nomesh);
    static const char *const opt[] = {"t.lua:2: urdf: unknown field 'fixed'", NULL};
    expect_error("unknown option", "world{}\nmoreau.urdf('bad.urdf', { fixed = true })\n", opt);
    static const char *const mm[] = {"t.lua:2: urdf: meshes must be auto, hull or triangles", NULL};
    expect_error("meshes option", "world{}\nmoreau.urdf('bad.urdf', { meshes = 'boxes' })\n", mm);
    write_file("scene/not_a_mesh.obj", "this is not a mesh\n");
    static const char *const nm[] = {"t.lua:2: mesh: ", "not_a_mesh.obj", NULL};
    expect_error("bad mesh", "world{}\nmoreau.mesh('not_a_mesh.obj')\n", nm);
}

/* ---- the catalogue's URDF scenes ---- */

static mo_scene_file *load_scene(const char *name, const char *const *params, int nparams)
{
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/%s", scenes_dir, name);
    mo_scene_options o = mo_default_scene_options();
    o.params = params;
    o.param_count = nparams;
    mo_scene_file *s = NULL;
    if (mo_scene_file_load(path, &o, &s, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s: %s\n", name, err);
        check_failures++;
    }
    return s;
}

static void test_scenes(void)
{
    /* robot_arm.lua: the whole run, then its claims */
    mo_scene_file *s = load_scene("robot_arm.lua", NULL, 0);
    if (s) {
        mo_world *w = mo_scene_file_world(s);
        CHECK(mo_scene_file_check_count(s) == 2);
        CHECK(mo_scene_file_bodies(s, NULL, 0) == 13); /* 11 links, the ground, the box */
        double T = mo_scene_file_duration(s);
        CHECK(T == 7.0);
        while (!mo_scene_file_done(s, NULL) && mo_world_time(w) < T - 1e-9)
            if (mo_scene_file_step(s) != MO_OK) {
                fprintf(stderr, "robot_arm: %s\n", mo_scene_file_last_error(s));
                check_failures++;
                break;
            }
        CHECK(mo_scene_file_steps(s) == 840);
        char detail[512];
        all_checks_pass("robot_arm", s, 1, detail, sizeof detail);
        printf("robot_arm after 7 s: %s\n", detail);
        mo_scene_file_destroy(s);
    }
    /* humanoids.lua with 4 of them */
    static const char *const params[] = {"count=4"};
    s = load_scene("humanoids.lua", params, 1);
    if (s) {
        mo_world *w = mo_scene_file_world(s);
        CHECK(mo_scene_file_bodies(s, NULL, 0) == 4 * 13 + 1);
        for (int i = 0; i < 12; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        mo_step_stats st = mo_world_last_stats(w);
        CHECK(st.bodies == 4 * 13 + 1); /* and the ground */
        CHECK(st.joints == 4 * 12);
        CHECK(st.nan_warnings == 0);
        all_checks_pass("humanoids", s, 0, NULL, 0);
        mo_scene_file_destroy(s);
    }
}

/* ---- the collision and joint options, warnings ---- */

#define UO_BOX "<collision><geometry><box size=\"0.2 0.2 0.2\"/></geometry></collision>"
#define UO_IN "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\"/></inertial>"
#define UO_HINGE(n, p, c) "<joint name=\"" n "\" type=\"continuous\"><parent link=\"" p "\"/><child link=\"" c \
                          "\"/><axis xyz=\"0 0 1\"/><dynamics damping=\"0.5\" friction=\"2\"/></joint>\n"
static const char stack_urdf[] =
    "<robot name=\"stack\">\n"                                                                   /* 1 */
    "<link name=\"base\">" UO_BOX "<visual><geometry><mesh filename=\"gone.dae\"/></geometry></visual></link>\n"
    "<link name=\"l1\">" UO_IN UO_BOX "</link>\n"                                                /* 3 */
    "<link name=\"l2\">" UO_IN UO_BOX "</link>\n"                                                /* 4 */
    "<link name=\"l3\">" UO_IN UO_BOX "</link>\n"                                                /* 5 */
    UO_HINGE("j1", "base", "l1") UO_HINGE("j2", "l1", "l2") UO_HINGE("j3", "l2", "l3") "</robot>\n";

static void test_urdf_options(void)
{
    write_file("scene/stack.urdf", stack_urdf);
    write_file("scene/stack.xml", "<mujoco>\n<worldbody>\n<body name='a' pos='12 0 0'>\n<joint/>\n<geom size='0.1'/>\n"
                                  "<body name='b' pos='0 0 1'>\n<joint/>\n<geom size='0.1'/>\n</body>\n</body>\n"
                                  "</worldbody>\n</mujoco>\n");
    /* self collision: adjacent links and the listed pair excluded; the visual mesh and the friction: warnings */
    mo_scene_file *s = load_ok(
        "urdf options",
        "world{}\n"
        "local r = moreau.urdf('stack.urdf', { maximal = true, self_collision = true, exclude_pairs = {{'l1', 'l3'}} })\n"
        "local L = r.links\n"
        "assert(L.l1:pair_collision(L.l2) == false and L.base:pair_collision(L.l1) == false)\n"
        "assert(L.l1:pair_collision(L.l3) == false and L.base:pair_collision(L.l2) == true)\n"
        "assert(#r.warnings == 4, #r.warnings)\n"
        "assert(r.warnings[1]:find('stack.urdf:2: link .base.: visual mesh .gone.dae. not found'), r.warnings[1])\n"
        "assert(r.warnings[2]:find(\"stack.urdf:6: joint 'j1': dynamics friction 2 is left out\", 1, true))\n"
        "local q = moreau.urdf('stack.urdf', { articulation = false, position = {3, 0, 0}, self_collision = true,\n"
        "  exclude_adjacent = false,\n"
        "  ignore_damping = true, ignore_friction = false, lock_zero_limits = true, max_hull_vertices = 0 })\n"
        "assert(q.links.l1:pair_collision(q.links.l2) == true and #q.warnings == 1)\n"
        /* as articulations: without self_collision one collision group (the smallest free, 0x10000: the
           maximal robots above used none), no pair exclusion; with it no group */
        "local a = moreau.urdf('stack.urdf', { position = {6, 0, 0} })\n"
        "assert(a.articulation:collision_group() == 0x10000, a.articulation:collision_group())\n"
        "local b = moreau.urdf('stack.urdf', { position = {9, 0, 0}, self_collision = true })\n"
        "assert(b.articulation:collision_group() == 0)\n"
        "local m = moreau.mjcf('stack.xml', { self_collision = false })\n"
        "assert(m.articulation:collision_group() == 0x10001, m.articulation:collision_group())\n");
    mo_scene_file_destroy(s);
    static const char *const pair_type[] = {"t.lua:2: urdf: exclude_pairs[1][2] must be a link name", NULL};
    expect_error("exclude_pairs type", "world{}\nmoreau.urdf('stack.urdf', { exclude_pairs = {{'l1', 3}} })\n",
                 pair_type);
    static const char *const pair_name[] = {"t.lua:2: urdf: ", "stack.urdf: exclude_pairs[1] (pair 0): link 'l9' is "
                                            "not a link of the file", NULL};
    expect_error("exclude_pairs name", "world{}\nmoreau.urdf('stack.urdf', { exclude_pairs = {{'l1', 'l9'}} })\n",
                 pair_name);
    static const char *const cap[] = {"t.lua:2: urdf: ", "stack.urdf: max_hull_vertices is 3 (0 for no limit, or at "
                                      "least 8)", NULL};
    expect_error("max_hull_vertices", "world{}\nmoreau.urdf('stack.urdf', { max_hull_vertices = 3 })\n", cap);
}

/* moreau.urdf{articulation = true}: the arm as one articulation whose methods take the URDF's link names; held
   still by gravity compensation for 1 s */
static void test_urdf_artic(void)
{
    mo_scene_file *s = load_ok(
        "urdf articulation",
        "world{ gravity = {0, 0, -9.81}, time_step = 1 / 120 }\n"
        "local arm = moreau.urdf('models/arm/arm.urdf', { position = {1, 2, 0.5}, articulation = true })\n"
        "local a = arm.articulation\n"
        "assert(arm.root == nil and arm.name == 'arm')\n"
        "assert(arm.links.base_link == 1 and arm.links.link3 == a:link('link3'))\n"
        "assert(arm.joints.elbow == arm.links.link3 and arm.joints.tool_frame == arm.links.tool0)\n"
        "local nl, nq, nv = a:size()\n"
        "local p = a:link_pose('link3')\n"
        "local q0 = {0.3, -0.4, 0.8, 0.2, -0.5, 0.1, 0.01, 0.02}\n" /* the fingers within their limits [0, 0.05] */
        "a:set_q(q0)\n"
        "a:set_torques(a:gravity_compensation())\n"
        "check('size', function() return true, string.format('%d %d %d %d', nl, nq, nv, #arm.warnings) end)\n"
        "check('link3', function() return true, string.format('%.17g %.17g %.17g', p.x, p.y, p.z) end)\n"
        "check('held', function()\n"
        "  local q, d = a:q(), 0\n"
        "  for i = 1, 8 do d = math.max(d, math.abs(q[i] - q0[i])) end\n"
        "  return d < 1e-9, string.format('%.3g', d) end)\n");
    if (!s) return;
    mo_scene_check_result r[4];
    CHECK(mo_scene_file_check_count(s) == 3);
    for (int i = 0; i < 120; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    CHECK(mo_scene_file_checks(s, r, 4) == 0);
    CHECK(!strcmp(r[0].detail, "11 8 8 0")); /* no warning: limits are rows, collisions link shapes */
    double x, y, z;
    CHECK(sscanf(r[1].detail, "%lf %lf %lf", &x, &y, &z) == 3);
    CHECK_NEAR(x, 1.0, 1e-12);
    CHECK_NEAR(y, 2.0, 1e-12);
    CHECK_NEAR(z, 1.15, 1e-12);
    CHECK(r[2].passed);
    printf("lua urdf articulation: drift after 1 s %s\n", r[2].detail);
    CHECK(mo_scene_file_bodies(s, NULL, 0) == 0);
    mo_scene_file_destroy(s);
    /* the default is the articulation ({} as articulation = true); maximal = true or articulation = false: bodies
       and joints; both, contradicting, refused */
    s = load_ok("urdf default and maximal",
                "world{}\n"
                "local a = moreau.urdf('models/arm/arm.urdf', {})\n"
                "local m = moreau.urdf('models/arm/arm.urdf', { maximal = true, position = {2, 0, 0} })\n"
                "local f = moreau.urdf('models/arm/arm.urdf', { articulation = false, maximal = true,\n"
                "  position = {4, 0, 0} })\n"
                "local t = moreau.urdf('models/arm/arm.urdf', { articulation = true, maximal = false })\n"
                "assert(a.articulation and a.root == nil and t.articulation and t.root == nil)\n"
                "assert(m.articulation == nil and m.root:name() == 'base_link' and f.root:name() == 'base_link')\n"
                "assert(m.joints.elbow:name() == 'elbow')\n");
    if (s) CHECK(mo_scene_file_bodies(s, NULL, 0) == 22);
    mo_scene_file_destroy(s);
    static const char *const both[] = {"t.lua:2: urdf: maximal = true and articulation = true contradict each other "
                                       "(give one of them)", NULL};
    expect_error("maximal and articulation",
                 "world{}\nmoreau.urdf('models/arm/arm.urdf', { maximal = true, articulation = true })\n", both);
    static const char *const type[] = {"t.lua:2: urdf: ", "maximal", NULL};
    expect_error("maximal type", "world{}\nmoreau.urdf('models/arm/arm.urdf', { maximal = 1 })\n", type);
}

/* moreau.urdf(path) with no options table: should load like moreau.urdf(path, {}): one articulation, the default */
static int test_urdf_no_options(void)
{
    write_file("scene/bad.urdf", bad_urdf);
    mo_scene_file *s = load_ok("urdf without options", "world{}\nlocal arm = moreau.urdf('models/arm/arm.urdf')\n"
                                                       "assert(arm.root == nil and arm.links.base_link == 1)\n"
                                                       "assert(arm.articulation:size() == 11)\n");
    if (s) CHECK(mo_scene_file_bodies(s, NULL, 0) == 0);
    mo_scene_file_destroy(s);
    return check_result("lua_import_urdf_no_options");
}

int main(int argc, char **argv)
{
    if (scene_tmp_begin("moreau-lua-import") != 0) return 1;
    int rc;
    /* skip without the importers */
    {
        char err[1024];
        mo_scene_file *s = load("world{}\nassert(moreau.urdf and moreau.mesh, 'no importers')\n", NULL, 0, err,
                                sizeof err);
        mo_scene_file_destroy(s);
        if (!s) {
            printf("lua_import: %s: skipped\n", err);
            rc = 77;
            goto done;
        }
    }
    if (argc > 1 && !strcmp(argv[1], "urdf_no_options")) {
        rc = test_urdf_no_options();
        goto done;
    }
    test_urdf_arm();
    test_mesh();
    test_sandbox();
    test_errors();
    test_urdf_options();
    test_urdf_artic();
    test_scenes();
    rc = check_result("lua_import");
done:
    scene_tmp_end();
    return rc;
}
