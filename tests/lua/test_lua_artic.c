/* test_lua_artic: articulation{} in scene files (scene/lua/lua_artic.c, issue 19).
 *   pendulum: a double pendulum built with parents by name, from 1.2 and -0.6 rad: over 10 s at
 *             1/120 its energy stays within 1e-3 of (E0 - E_rest) (claims evaluated by the scene)
 *   drive:    set_drive by link name holds the elbow on its target while gravity_compensation() as
 *             the held torques keeps the shoulder still (1e-9 rad over 4 s); joint(), link(), size(),
 *             link_pose(), destroy() and valid()
 *   shapes:   collision shapes on links over a ground plane z = 0, 4 s at 1/120 with the default solver:
 *             a free 'crate' link with a box (half height 0.1 m, given in its link table) dropped from 0.5 m
 *             ends with its link origin at z = 0.1 (1e-6 m), level and still; a fixed-base rod (pivot at
 *             z = 0.8, revolute about y) from horizontal, whose link body (a:link_body('rod')) gets a sphere
 *             of radius 0.1 at 1 m down the rod, comes to rest on the ground at cos q = (0.8 - 0.1) / 1
 *             (1e-6 rad); without the shapes both fall through
 *   limits:   set_limits/limits/set_friction/constraint_forces on two hanging rods (one rests on its lower
 *             limit with the limit torque m g (l/2) sin q, one is held by dry friction; both swing without
 *             them); jacobian() and link_velocity() against the closed form; set_cone_limit/cone_limit and
 *             set_collision_group/collision_group set and read back; refusals with exact messages
 *   refusals: exact file:line messages for a bad joint type, a parent that is no earlier link, an
 *             unknown field, an engine refusal (a zero axis), a drive on a spherical joint, a link body
 *             of a link that does not exist (name, number), a link body moved or destroyed by the body
 *             methods, a bad link shape table and a shape the engine refuses on a link (a plane: the
 *             articulation is taken away again, its slot reused)
 * Scene files are written into a fresh temporary folder (scene/). */
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
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, &o, &s, err, n);
    CHECK((st == MO_OK) == (s != NULL));
    return s;
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

/* runs n steps and every claim; returns the number that failed (printed) */
static int run(mo_scene_file *s, int n, const char *label)
{
    for (int i = 0; i < n; i++)
        if (mo_scene_file_step(s) != MO_OK) {
            fprintf(stderr, "%s: step %d: %s\n", label, i, mo_scene_file_last_error(s));
            return 1;
        }
    mo_scene_check_result r[16];
    int failed = mo_scene_file_checks(s, r, 16);
    int m = mo_scene_file_check_count(s);
    for (int i = 0; i < m && i < 16; i++)
        printf("  %s: %s %s (%s)\n", label, r[i].passed ? "PASS" : "FAIL", r[i].name, r[i].detail);
    return failed;
}

#define ARM                                                                                                  \
    "local I = {1/12, 1/12, 1e-4}\n"                                                                         \
    "local arm = articulation{ name = 'arm', position = {0, 0, 2}, links = {\n"                              \
    "  { name = 'upper', axis = {0, 1, 0}, com = {0, 0, -0.5}, inertia = I },\n"                             \
    "  { name = 'lower', parent = 'upper', axis = {0, 1, 0}, position = {0, 0, -1}, com = {0, 0, -0.5},\n"   \
    "    inertia = I } } }\n"

static void test_pendulum(void)
{
    const char *text = "world{ time_step = 1/120 }\n" ARM
                       "arm:set_q({0, 0})\n"
                       "local _, rest = arm:energy()\n"
                       "arm:set_q({1.2, -0.6})\n"
                       "local k0, p0 = arm:energy()\n"
                       "local worst = 0\n"
                       "on_step(function(t, step)\n"
                       "  local k, p = arm:energy()\n"
                       "  worst = math.max(worst, math.abs(k + p - k0 - p0) / (k0 + p0 - rest))\n"
                       "end)\n"
                       "check('energy within 1e-3', function() return worst <= 1e-3, worst end)\n"
                       "check('angles not wrapped, moving', function() local q = arm:q() return #q == 2 and "
                       "math.abs(q[1]) + math.abs(q[2]) > 0, q[1], q[2] end)\n";
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    if (!s) {
        fprintf(stderr, "pendulum: %s\n", err);
        check_failures++;
        return;
    }
    CHECK(run(s, 1200, "pendulum") == 0);
    CHECK(mo_scene_file_check_count(s) == 2);
    mo_scene_file_destroy(s);
}

static void test_drive(void)
{
    const char *text = "world{ time_step = 1/120 }\n" ARM
                       "assert(arm:link('lower') == 2 and arm:name() == 'arm' and tostring(arm) == \"articulation 1 'arm'\")\n"
                       "local nl, nq, nv = arm:size()\n"
                       "assert(nl == 2 and nq == 2 and nv == 2)\n"
                       "arm:set_joint(1, {0.2}, {0})\n"
                       "arm:set_joint('lower', {0.3}, {0})\n"
                       "arm:set_torques(arm:gravity_compensation())\n"
                       "local hold = arm:q()\n"
                       "on_step(function(t, step)\n"
                       "  if step == 1 then arm:set_drive('lower', { stiffness = 1e6, damping = 1e5, "
                       "target_position = 0.3, max_effort = 1e4 }) end\n"
                       "end)\n"
                       "check('elbow on target', function() local q, v = arm:joint('lower') return "
                       "math.abs(q[1] - 0.3) < 1e-4, q[1] end)\n"
                       "check('shoulder held by gravity compensation', function() local q = arm:joint(1) return "
                       "math.abs(q[1] - hold[1]) < 1e-9, q[1] - hold[1] end)\n"
                       "check('pose', function() local p, o = arm:link_pose('upper') return "
                       "math.abs(p.z - 2) < 1e-12 and math.abs(o.w - math.cos(0.1)) < 1e-9, p.z, o.w end)\n"
                       "check('valid', function() return arm:valid() end)\n";
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    if (!s) {
        fprintf(stderr, "drive: %s\n", err);
        check_failures++;
        return;
    }
    CHECK(run(s, 480, "drive") == 0);
    mo_scene_file_destroy(s);
    /* destroyed: the handle says so */
    const char *gone = ARM "arm:destroy()\nassert(not arm:valid())\n";
    s = load(gone, err, sizeof err);
    CHECK(s != NULL);
    if (!s) fprintf(stderr, "destroy: %s\n", err);
    mo_scene_file_destroy(s);
}

/* the two link-shape scenes; shapes = false: the same scene without the shapes */
static void link_shapes_scene(bool shapes)
{
    char text[2048];
    snprintf(text, sizeof text,
             "world{ time_step = 1/120 }\n"
             "ground{}\n"
             "local crate = articulation{ name = 'crate', position = {0.3, 0, 0.5}, links = {\n"
             "  { name = 'box', joint = 'free', mass = 2, inertia = {0.05, 0.08, 0.1}%s } } }\n"
             "local arm = articulation{ name = 'arm', position = {3, 0, 0.8}, links = {\n"
             "  { name = 'rod', axis = {0, 1, 0}, mass = 1, com = {0, 0, -1}, inertia = 0.01 } } }\n"
             "arm:set_q({math.pi / 2})\n"
             "local tip = arm:link_body('rod')\n"
             "assert(tostring(tip) == \"body %d 'arm/rod'\" and tip:name() == 'arm/rod')\n"
             "assert(arm:link_body(1):name() == 'arm/1')\n"
             "%s"
             "check('crate resting at its half height', function()\n"
             "  local p, o = crate:link_pose('box')\n"
             "  local q, v = crate:joint('box')\n"
             "  local speed = 0\n"
             "  for i = 1, 6 do speed = math.max(speed, math.abs(v[i])) end\n"
             "  return math.abs(p.z - 0.1) < 1e-6 and math.abs(o.w) > 1 - 1e-9 and speed < 1e-6,\n"
             "         string.format('%%.9f %%.3g %%.3g', p.z, 1 - math.abs(o.w), speed) end)\n"
             "check('rod resting on the ground', function()\n"
             "  local q = arm:q()[1]\n"
             "  return math.abs(q - math.acos(0.7)) < 1e-6, string.format('%%.9f %%.9f', q, math.acos(0.7)) end)\n",
             shapes ? ",\n    shape = { type = 'box', half_extents = {0.2, 0.15, 0.1} }" : "", shapes ? 3 : 2,
             shapes ? "tip:add_shape{ type = 'sphere', radius = 0.1, position = {0, 0, -1} }\n" : "");
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    if (!s) {
        fprintf(stderr, "shapes: %s\n", err);
        check_failures++;
        return;
    }
    /* the link bodies are the scene's bodies "crate/box" (shapes in the def) and "arm/rod" (a:link_body), once */
    mo_scene_body sb[8];
    int nb = mo_scene_file_bodies(s, sb, 8), found = 0;
    for (int i = 0; i < nb && i < 8; i++)
        found += strcmp(sb[i].name, "crate/box") == 0 ? 1 : strcmp(sb[i].name, "arm/rod") == 0 ? 2 : 0;
    CHECK(found == (shapes ? 3 : 2)); /* without shapes, crate has no link body; arm's is made by a:link_body */
    CHECK(nb == (shapes ? 3 : 2));    /* the ground too; a:link_body(1) returned the rod's body again: no record */
    int failed = run(s, 480, shapes ? "shapes" : "no shapes");
    CHECK(mo_scene_file_check_count(s) == 2);
    CHECK(failed == (shapes ? 0 : 2));
    mo_scene_file_destroy(s);
}

static void test_link_shapes(void)
{
    link_shapes_scene(true);
    link_shapes_scene(false);
}

/* a:set_limits, limits, set_friction, constraint_forces, joint_wrench, jacobian, link_velocity: a 1 kg rod of 1 m (centre of
 * mass 0.5 m down) hanging from a revolute joint about y, released at 1.2 rad with limits [0.5, 2] comes to rest
 * on the lower limit (the limit torque then holds m g (l/2) sin 0.5 = 2.35 N m; the joint's reaction is the
 * weight, 9.81 N up, and about y the limit torque); a second rod with dry friction
 * 10 N m (more than its gravity torque, 4.57 N m) stays at 1.2 rad; without the limit and the friction both swing
 * through 0. The Jacobian of the first rod's tip at q = 0 is jv = (-1, 0, 0), jw = (0, 1, 0) per rad/s, and the
 * link velocity agrees with jw qdot. */
static void limits_scene(bool rows)
{
    char text[3072];
    snprintf(text, sizeof text,
             "world{ time_step = 1/120 }\n"
             "local function rod(name, x) return articulation{ name = name, position = {x, 0, 2}, links = {\n"
             "  { name = 'rod', axis = {0, 1, 0}, mass = 1, com = {0, 0, -0.5}, inertia = {1/12, 1/12, 1e-4} } } } end\n"
             "local a, b = rod('a', 0), rod('b', 3)\n"
             "local jv, jw = a:jacobian('rod', {0, 0, -1})\n"
             "assert(#jv == 3 and #jv[1] == 1 and jv[1][1] == -1 and jv[2][1] == 0 and jv[3][1] == 0, 'jv')\n"
             "assert(jw[1][1] == 0 and jw[2][1] == 1 and jw[3][1] == 0, 'jw')\n"
             "a:set_qdot({2})\n"
             "local w, v = a:link_velocity(1)\n"
             "assert(w.y == 2 and w.x == 0 and v.x == 0, 'link velocity')\n"
             "a:set_joint(1, {1.2}, {0})\n"
             "b:set_q({1.2})\n"
             "local lo, hi = a:limits(1)\n"
             "assert(lo == -math.huge and hi == math.huge, 'no limits by default')\n"
             "%s"
             "check('a rests on its lower limit', function()\n"
             "  local q, v = a:joint(1)\n"
             "  local tau = a:constraint_forces()[1]\n"
             "  local f, t = a:joint_wrench('rod')\n"
             "  return math.abs(q[1] - 0.5) < 1e-3 and math.abs(v[1]) < 1e-3 and math.abs(tau - 9.81 * 0.5 * math.sin(0.5)) < 0.05\n"
             "         and math.abs(f.z - 9.81) < 1e-3 and math.abs(f.x) < 1e-3 and math.abs(t.y - tau) < 1e-3,\n"
             "         string.format('q %%.6f qdot %%.2e limit torque %%.4f joint force z %%.6f torque y %%.6f', q[1], v[1],\n"
             "                       tau, f.z, t.y) end)\n"
             "check('b held by its friction', function()\n"
             "  local q = b:q()[1]\n"
             "  return math.abs(q - 1.2) < 1e-6, string.format('q %%.9f', q) end)\n",
             rows ? "a:set_limits('rod', 0.5, 2)\n"
                    "lo, hi = a:limits('rod')\n"
                    "assert(lo == 0.5 and hi == 2, 'limits read back')\n"
                    "a:set_limits(1, nil, 3)\n"
                    "lo, hi = a:limits(1)\n"
                    "assert(lo == -math.huge and hi == 3, 'nil lower bound')\n"
                    "a:set_limits(1, 0.5, 2)\n"
                    "b:set_friction('rod', 10)\n"
                    "local ok, e = pcall(function() a:set_mimic('rod', 'rod') end)\n"
                    "assert(not ok and e:find('cannot mimic itself', 1, true), 'a mimic of itself: ' .. tostring(e))\n"
                  : "");
    char err[1024] = "";
    mo_scene_file *s = load(text, err, sizeof err);
    if (!s) {
        fprintf(stderr, "limits: %s\n", err);
        check_failures++;
        return;
    }
    int failed = run(s, 480, rows ? "limits" : "no limits");
    CHECK(mo_scene_file_check_count(s) == 2);
    CHECK(failed == (rows ? 0 : 2));
    mo_scene_file_destroy(s);
}

static void test_limits(void)
{
    limits_scene(true);
    limits_scene(false);
    expect_error("limits order", "local a = articulation{ name = 'a', links = { {} } }\na:set_limits(1, 1, 0)\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_limits: articulation 1 link 0: limits need lower <= "
                 "upper, each within 1e+09 or -inf / inf (no bound), got 1 and 0");
    expect_error("limits joint", "local a = articulation{ name = 'a', links = { { joint = 'spherical' } } }\n"
                                 "a:set_limits(1, 0, 1)\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_limits: articulation 1 link 0 has a spherical joint: "
                 "limits are for revolute and prismatic joints");
    expect_error("friction", "local a = articulation{ name = 'a', links = { {} } }\na:set_friction(1, -1)\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_joint_friction: articulation 1 link 0: friction must "
                 "be in [0, 1e+20], got -1");
    expect_error("friction type", "local a = articulation{ name = 'a', links = { {} } }\na:set_friction(1, 'x')\n",
                 "t.lua:2: articulation 'a': friction must be a number, got string");
    expect_error("jacobian link", "local a = articulation{ name = 'a', links = { {} } }\na:jacobian(2)\n",
                 "t.lua:2: articulation 'a': link 2 is not in 1..1");
    /* cone limits and the collision group: set and read back; refusals */
    char err[1024] = "";
    mo_scene_file *s = load("local a = articulation{ name = 'a', links = { { joint = 'fixed' },\n"
                            "  { name = 'ball', parent = 1, joint = 'spherical', com = {0, 0, 1} } } }\n"
                            "assert(a:cone_limit('ball') == math.huge)\n"
                            "a:set_cone_limit('ball', 0.5)\nassert(a:cone_limit(2) == 0.5)\n"
                            "a:set_cone_limit(2)\nassert(a:cone_limit(2) == math.huge)\n"
                            "assert(a:collision_group() == 0)\na:set_collision_group(7)\n"
                            "assert(a:collision_group() == 7)\n",
                            err, sizeof err);
    CHECK(s != NULL);
    if (!s) fprintf(stderr, "cone and group: %s\n", err);
    mo_scene_file_destroy(s);
    expect_error("cone joint", "local a = articulation{ name = 'a', links = { {} } }\na:set_cone_limit(1, 0.5)\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_cone_limit: articulation 1 link 0 has a revolute "
                 "joint: cone limits are for spherical joints");
    expect_error("cone angle", "local a = articulation{ name = 'a', links = { { joint = 'spherical' } } }\n"
                               "a:set_cone_limit(1, 4)\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_cone_limit: articulation 1 link 0: the cone limit "
                 "must be in [0, pi] rad or inf (none), got 4");
    expect_error("group", "local a = articulation{ name = 'a', links = { {} } }\na:set_collision_group(-1)\n",
                 "t.lua:2: articulation 'a': group must be an integer in [0, 2^32), got -1");
}

static void test_refusals(void)
{
    expect_error("joint type", "articulation{ links = { { joint = 'hinge' } } }\n",
                 "t.lua:1: articulation link 1: joint 'hinge' is not one of fixed, revolute, prismatic, spherical, "
                 "free");
    expect_error("parent", "articulation{ name = 'a', links = { {}, { parent = 3 } } }\n",
                 "t.lua:1: articulation 'a': link 2: parent 3 is not an earlier link (1..1)");
    expect_error("parent name", "articulation{ name = 'a', links = { {}, { parent = 'nope' } } }\n",
                 "t.lua:1: articulation 'a': link 2: parent 'nope' is not the name of an earlier link");
    expect_error("field", "articulation{ name = 'a', links = { { mas = 1 } } }\n",
                 "t.lua:1: articulation 'a' link 1: unknown field 'mas'");
    expect_error("axis", "articulation{ name = 'a', links = { { axis = {0, 0, 0} } } }\n",
                 "t.lua:1: articulation 'a': mo_articulation_create: link 0: axis must be finite and non-zero, got "
                 "(0, 0, 0)");
    expect_error("drive", "local a = articulation{ name = 'a', links = { { joint = 'spherical' } } }\n"
                          "a:set_drive(1, { stiffness = 1 })\n",
                 "t.lua:2: articulation 'a': mo_articulation_set_drive: articulation 1 link 0 has a spherical "
                 "joint: drives are for revolute and prismatic joints");
    expect_error("list", "local a = articulation{ links = { {} } }\na:set_q({1, 2})\n",
                 "t.lua:2: articulation: q must be a list of 1 numbers, got 2");
    expect_error("link body name", "local a = articulation{ name = 'arm', links = { { name = 'rod' } } }\n"
                                   "local b = a:link_body('nope')\n",
                 "t.lua:2: articulation 'arm': mo_articulation_find_link: articulation 1 has no link called "
                 "\"nope\"");
    expect_error("link body number", "local a = articulation{ name = 'arm', links = { { name = 'rod' } } }\n"
                                     "local b = a:link_body(2)\n",
                 "t.lua:2: articulation 'arm': link 2 is not in 1..1");
    expect_error("link body moved", "local a = articulation{ name = 'arm', links = { { name = 'rod' } } }\n"
                                    "a:link_body('rod'):set_pose({0, 0, 1})\n",
                 "t.lua:2: body 'arm/rod': mo_body_set_pose: body 1 is link 0 (\"rod\") of articulation 1: it moves "
                 "with its link (mo_articulation_set_q)");
    expect_error("link body destroyed", "local a = articulation{ name = 'arm', links = { { name = 'rod' } } }\n"
                                        "a:link_body(1):destroy()\n",
                 "t.lua:2: body 'arm/1': mo_body_destroy: body 1 is link 0 (\"rod\") of articulation 1: it goes "
                 "with its articulation (mo_articulation_destroy)");
    expect_error("link shape field",
                 "articulation{ name = 'arm', links = { { shape = { type = 'box', radiu = 1 } } } }\n",
                 "t.lua:1: articulation 'arm' link 1: unknown field 'radiu'");
    expect_error("link shape and shapes",
                 "articulation{ name = 'arm', links = { {}, { parent = 1, shape = { type = 'sphere' },\n"
                 "  shapes = {} } } }\n",
                 "t.lua:1: articulation 'arm' link 2: give shape or shapes, not both");
    /* the engine refuses the second shape of link 2 after the first is made: the articulation goes again */
    expect_error("link plane",
                 "ground{}\n"
                 "local ok, e = pcall(articulation, { name = 'arm', links = { { name = 'rod' },\n"
                 "  { parent = 1, shapes = { { type = 'sphere', radius = 0.1 }, { type = 'plane' } } } } })\n"
                 "assert(not ok and tostring(articulation{ name = 'b', links = { {} } }) == \"articulation 1 'b'\")\n"
                 "error(e)\n",
                 "t.lua:5: articulation 'arm': link 2 shape 2: plane shape needs a static body, got a kinematic body");
}

int main(void)
{
    if (scene_tmp_begin("moreau-lua-artic") != 0) return 1;
    test_pendulum();
    test_drive();
    test_link_shapes();
    test_limits();
    test_refusals();
    scene_tmp_end();
    return check_result("lua_artic");
}
