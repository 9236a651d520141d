/* test_lua_scenes: sandboxed Lua scene files (scene/lua/).
 *   sandbox: every forbidden call refused with its sentence; path escapes refused;
 *            runaway loops (also inside pcall) and memory bombs stopped
 *   errors:  malformed scenes give file:line messages and leave no world;
 *            wrong types to every API function give Lua errors, never a crash
 *   catalogue: every scene in scenes/ loads and runs a few steps
 *   twins:   scene files build the same worlds as the built-in C scenes (bodies,
 *            masses, poses, and the state hash after steps with the same solver)
 *   scenario: a PD drive target moved over time reaches the angle; stop() ends the run
 * Scene files for the sandbox tests are written into a fresh temporary folder.
 * $MOREAU_SCENES_DIR is the source tree's scenes/. */
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
#include "scenes_builtin.h"

static char tmpdir[256];
static const char *scenes_dir;

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* loads text as tmpdir/name; returns the scene (NULL on failure, err filled) */
static mo_scene_file *load_text(const char *name, const char *text, const mo_scene_options *opt, char *err,
                                size_t n)
{
    write_file(name, text);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, opt, &s, err, n);
    CHECK((st == MO_OK) == (s != NULL));
    return s;
}

/* the scene must fail to load with an error containing want */
static void expect_error(const char *what, const char *text, const char *want)
{
    char err[1024] = "";
    mo_scene_options o = mo_default_scene_options();
    o.load_instructions = 20000000;
    o.memory_limit = 32u << 20;
    mo_scene_file *s = load_text("t.lua", text, &o, err, sizeof err);
    CHECK(s == NULL);
    if (!strstr(err, want)) {
        fprintf(stderr, "%s: error '%s' does not contain '%s'\n", what, err, want);
        check_failures++;
    }
    mo_scene_file_destroy(s);
}

static void expect_ok(const char *what, const char *text)
{
    char err[1024] = "";
    mo_scene_file *s = load_text("t.lua", text, NULL, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: unexpected error: %s\n", what, err);
        check_failures++;
    }
    mo_scene_file_destroy(s);
}

/* ---- sandbox ---- */

static void test_sandbox(void)
{
    char sub[300];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    mkdir(sub, 0700);
    write_file("sub/mod.lua", "return { value = 42 }\n");
    write_file("inc.lua", "included = (included or 0) + 1\nreturn 'inc'\n");

    /* the missing libraries */
    expect_error("io", "local f = io.open('/etc/passwd')\n", "t.lua:1: attempt to index a nil value (global 'io')");
    expect_error("os.execute", "os.execute('true')\n", "t.lua:1: attempt to call a nil value (field 'execute')");
    expect_error("os.remove", "os.remove('x')\n", "t.lua:1: attempt to call a nil value (field 'remove')");
    expect_error("os.getenv", "return os.getenv('HOME')\n", "t.lua:1: attempt to call a nil value (field 'getenv')");
    expect_error("debug", "debug.getinfo(1)\n", "t.lua:1: attempt to index a nil value (global 'debug')");
    expect_error("package", "package.loadlib('libc.so.6', 'system')\n",
                 "t.lua:1: attempt to index a nil value (global 'package')");
    expect_error("dofile", "dofile('inc.lua')\n", "t.lua:1: attempt to call a nil value (global 'dofile')");
    expect_error("loadfile", "loadfile('inc.lua')\n", "t.lua:1: attempt to call a nil value (global 'loadfile')");
    expect_error("string.dump", "local s = string.dump(function() end)\n",
                 "t.lua:1: attempt to call a nil value (field 'dump')");
    expect_error("coroutine", "coroutine.create(print)\n", "t.lua:1: attempt to index a nil value (global 'coroutine')");
    /* load: text only */
    expect_error("load binary", "local f, e = load('\\27Lua\\84\\0', 'x', 'b')\n",
                 "t.lua:1: load: mode 'b' refused: scene files load text only");
    expect_error("load binary as text", "local f, e = load('\\27Lua\\84\\0')\nerror(e)\n",
                 "attempt to load a binary chunk (mode is 't')");
    expect_error("load reader", "load(function() return nil end)\n",
                 "t.lua:1: load: only source text (a string) can be loaded in a scene file");
    expect_ok("load text", "local f = load('return 1 + 1')\nassert(f() == 2)\n"
                           "local g = load('return io', 'x', 't', {io = 5})\nassert(g() == 5)\n"
                           "assert(load('return os.execute')() == nil)\n");
    expect_error("collectgarbage stop", "collectgarbage('stop')\n",
                 "t.lua:1: collectgarbage('stop') is not allowed in a scene file");
    expect_ok("collectgarbage count", "assert(collectgarbage('count') > 0)\ncollectgarbage()\n"
                                      "assert(type(os.clock()) == 'number')\n");
    /* require: only .lua text in the allowed folders */
    expect_ok("require", "local m = require('sub.mod')\nassert(m.value == 42)\nassert(require('sub.mod') == m)\n"
                         "assert(include('inc.lua') == 'inc' and included == 1)\n");
    expect_error("require native", "require('io')\n", "t.lua:1: require: cannot find 'io.lua'");
    expect_error("require path", "require('../etc/passwd')\n",
                 "t.lua:1: require: module name '../etc/passwd' may hold only letters");
    expect_error("include ..", "include('../../../../etc/passwd')\n", "is outside the scene's folder and the search paths");
    expect_error("include abs", "include('/etc/passwd')\n",
                 "t.lua:1: include: '/etc/passwd' is outside the scene's folder and the search paths");
    expect_error("include missing", "include('nope.lua')\n",
                 "t.lua:1: include: cannot find 'nope.lua' in the scene's folder or the search paths");
    /* a symlink out of the folder is resolved and refused */
    char link[300];
    snprintf(link, sizeof link, "%s/escape.lua", tmpdir);
    unlink(link);
    if (symlink("/etc/hostname", link) == 0)
        expect_error("symlink", "include('escape.lua')\n", "'escape.lua' is outside the scene's folder");
    /* an included file's syntax error names that file */
    write_file("bad.lua", "x = = 1\n");
    expect_error("included syntax", "include('bad.lua')\n", "/bad.lua:1: unexpected symbol near '='");

    /* a search path makes another folder readable */
    {
        char d2[300];
        snprintf(d2, sizeof d2, "%s/lib2", tmpdir);
        mkdir(d2, 0700);
        write_file("lib2/helper.lua", "return 7\n");
        mkdir(sub, 0700);
        write_file("sub/s.lua", "assert(require('helper') == 7)\n");
        char path[512], err[512] = "";
        snprintf(path, sizeof path, "%s/s.lua", sub);
        mo_scene_options o = mo_default_scene_options();
        const char *sp[1] = {d2};
        o.search_paths = sp;
        o.search_path_count = 1;
        mo_scene_file *s = NULL;
        CHECK(mo_scene_file_load(path, &o, &s, err, sizeof err) == MO_OK);
        mo_scene_file_destroy(s);
        s = NULL;
        CHECK(mo_scene_file_load(path, NULL, &s, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && !s);
        CHECK(strstr(err, "require: cannot find 'helper.lua'") != NULL);
    }

    /* runaway loops stop: plain, inside pcall, in the message handler of xpcall */
    expect_error("loop", "local x = 0\nwhile true do x = x + 1 end\n", "t.lua:2: instruction budget of 20000000 exceeded");
    /* pattern matching backtracks in C, out of the hook's reach: charged its worst case up front */
    expect_error("pattern", "local s = string.rep('a', 20000)\nlocal i = s:find('.-.-.-b')\n",
                 "t.lua:2: instruction budget of 20000000 exceeded (string pattern with a worst case of");
    expect_error("gsub pattern", "local s = string.rep('a', 100000)\nlocal r = s:gsub('a*a*b', '')\n",
                 "t.lua:2: instruction budget of 20000000 exceeded");
    expect_ok("plain find", "local s = string.rep('a', 100000)\nassert(s:find('.-.-b', 1, true) == nil)\n"
                            "assert(('key=value'):match('^(%w+)=(%w+)$') == 'key')\n"
                            "assert(select(2, ('a,b,c'):gsub(',', ';')) == 2)\n"
                            "local n = 0 for w in ('x y z'):gmatch('%a') do n = n + 1 end assert(n == 3)\n"
                            "assert(('[a-z]'):find('[%[]') == 1)\n");
    expect_error("loop in pcall", "while true do pcall(function() while true do end end) end\n",
                 "instruction budget of 20000000 exceeded");
    expect_error("loop in xpcall", "xpcall(error, function() while true do end end)\n",
                 "instruction budget of 20000000 exceeded");
    expect_error("string.rep loop", "local s = ''\nfor i = 1, 1e9 do s = s .. 'x' end\n", "exceeded");
    expect_error("looping finalizer", "setmetatable({}, {__gc = function() while true do end end})\n",
                 "t.lua:1: setmetatable: __gc finalizers are not allowed in a scene file");
    /* memory bombs stop */
    expect_error("memory", "local t = {}\nfor i = 1, 1e8 do t[i] = i end\n", "t.lua: memory limit of 32 MiB exceeded");
    expect_error("string.rep", "local s = string.rep('x', 1 << 30)\n", "memory limit of 32 MiB exceeded");
    /* (tables: strings are charged a byte an instruction, so 1 MB strings would
       exhaust the budget before the cap) */
    expect_error("memory in pcall",
                 "local t = {}\nwhile true do pcall(function() local u = {} for i = 1, 1e5 do u[i] = i end "
                 "t[#t + 1] = u end) end\n",
                 "memory limit of 32 MiB exceeded");
    /* error objects that are not strings */
    expect_error("error table", "error({})\n", "error object is a table value");
}

/* ---- malformed scenes and values ---- */

static void test_errors(void)
{
    expect_error("syntax", "body{\n", "t.lua:2: unexpected symbol near <eof>");
    expect_error("negative mass", "ground{}\n\nbody{ name = 'link3', mass = -1, shape = {type = 'box', half_extents = {1, 1, 1}} }\n",
                 "t.lua:3: body 'link3': mass must be positive, got -1");
    expect_error("unknown field", "body{ positon = {0, 0, 1} }\n", "t.lua:1: body: unknown field 'positon'");
    expect_error("bad vector", "body{ position = {0, 'a', 1} }\n", "t.lua:1: body: position[2] must be a number, got string");
    expect_error("bad type", "body{ type = 'wobbly' }\n",
                 "t.lua:1: body: type 'wobbly' is not one of dynamic, static, kinematic");
    expect_error("no inertia", "body{ name = 'p' }\n",
                 "t.lua:1: body 'p': body inertia is zero and the body has no closed shape to compute it from");
    expect_error("bad radius", "body{ shape = {type = 'sphere', radius = -2} }\n", "t.lua:1: body: ");
    expect_error("bad shape type", "body{ shape = {type = 'blob'} }\n", "t.lua:1: body: shape type 'blob' is not one of");
    expect_error("bad triangle", "body{ type = 'static', shape = {type = 'mesh', vertices = {{0,0,0},{1,0,0},{0,1,0}}, triangles = {{1,2,4}}} }\n",
                 "t.lua:1: body: triangles[1]: vertex number 4 is not in 1..3");
    expect_error("joint without b", "joint{ type = 'revolute' }\n", "t.lua:1: joint: needs body b");
    expect_error("joint b not body", "joint{ type = 'fixed', b = 3 }\n", "t.lua:1: joint: b must be a body, got number");
    expect_error("bad limit",
                 "local b = body{ mass = 1, inertia = {1, 1, 1} }\njoint{ name = 'h', type = 'revolute', b = b, limit = {1, -1} }\n",
                 "t.lua:2: joint 'h': ");
    expect_error("world twice", "world{}\nworld{}\n", "t.lua:2: world: world{} must come once");
    /* pair exclusion: a:set_pair_collision(b, enabled), a:pair_collision(b) */
#define TWO_BOXES "local a = body{ shape = {type = 'box', half_extents = {0.1, 0.1, 0.1}} }\n" \
                  "local b = body{ position = {0.15, 0, 0}, shape = {type = 'box', half_extents = {0.1, 0.1, 0.1}} }\n"
    expect_ok("pair exclusion", TWO_BOXES "assert(a:pair_collision(b) == true)\na:set_pair_collision(b, false)\n"
              "assert(b:pair_collision(a) == false)\nb:set_pair_collision(a, true)\nassert(a:pair_collision(b))\n");
    expect_error("pair same body", TWO_BOXES "a:set_pair_collision(a, false)\n",
                 "t.lua:3: set_pair_collision: mo_world_set_pair_collision: body a and body b are the same body (index "
                 "1): a body's own shapes never collide");
    expect_error("pair enabled type", TWO_BOXES "a:set_pair_collision(b, 1)\n",
                 "t.lua:3: set_pair_collision: enabled must be a boolean, got number");
    expect_error("pair other", TWO_BOXES "a:pair_collision(5)\n",
                 "t.lua:3: pair_collision: the other body must be a body, got number");
    expect_error("pair destroyed", TWO_BOXES "b:destroy()\na:set_pair_collision(b, false)\n",
                 "t.lua:4: set_pair_collision: mo_world_set_pair_collision: body b (index 2, generation ");
#undef TWO_BOXES
    /* the backend is a setting like any other: names checked, cuda with a solver that runs on the CPU only
     * refused with the engine's sentence, cuda without a module an error naming the module (never a CPU run) */
    expect_error("backend name", "world{ backend = \"gpu\" }\n", "t.lua:1: world: backend 'gpu' is not one of cpu, cuda, auto");
    expect_error("backend solver", "world{ backend = \"cuda\" }\n",
                 "t.lua:1: world: solver 'pgs' runs on the cpu backend only; the cuda backend runs jacobi, apgd, spg, cg, minres, newton");
    setenv("MOREAU_CUDA_MODULE", "/nonexistent/libmoreau_cuda.so", 1);
    expect_error("backend module", "world{ backend = \"cuda\", solver = { kind = \"apgd\" } }\n",
                 "t.lua:1: world: backend 'cuda': CUDA module not found at /nonexistent/libmoreau_cuda.so");
    expect_ok("backend auto", "world{ backend = \"auto\", solver = { kind = \"apgd\" } }\n");
    unsetenv("MOREAU_CUDA_MODULE");
    expect_error("world after body", "ground{}\nworld{ gravity = {0, 0, -1} }\n", "t.lua:2: world: world{} must come once");
    expect_error("bad time step", "world{ time_step = -1 }\n", "t.lua:1: world: ");
    expect_error("bad solver", "world{ solver = { kind = 'magic' } }\n", "t.lua:1: world solver: kind 'magic' is not one of pgs, jacobi, apgd, spg, cg, minres, cholesky, newton");
    expect_error("bad ncp", "world{ solver = { kind = 'newton', newton = { ncp = 'max' } } }\n",
                 "t.lua:1: world solver newton: ncp 'max' is not one of fischer_burmeister, min_map");
    expect_error("bad newton key", "world{ solver = { newton = { iterationz = 3 } } }\n",
                 "t.lua:1: world solver newton: unknown field 'iterationz'");
    expect_error("bad step rule", "world{ solver = { spg = { step_rule = 'bb3' } } }\n",
                 "t.lua:1: world solver spg: step_rule 'bb3' is not one of alternate, abbmin");
    {
        /* the Newton and SPG settings reach the world */
        char err[512];
        mo_scene_file *s = load_text("t.lua",
                                     "world{ solver = { kind = 'newton', diagonal_scaling = true, spg = { step_rule = 'abbmin' },\n"
                                     "  newton = { iterations = 6, linear_iterations = 30, step_fraction = 0.9, ncp = 'min_map',\n"
                                     "             linear = 'pcg', scaling = 'constant', scaling_constant = 2 } } }\n",
                                     NULL, err, sizeof err);
        CHECK(s != NULL);
        if (s) {
            mo_solver_settings ss = mo_world_solver(mo_scene_file_world(s));
            CHECK(ss.kind == MO_SOLVER_NEWTON && ss.diagonal_scaling && ss.spg.step_rule == MO_SPG_ABBMIN);
            CHECK(ss.newton.iterations == 6 && ss.newton.linear_iterations == 30 && ss.newton.step_fraction == 0.9);
            CHECK(ss.newton.ncp == MO_NCP_MIN_MAP && ss.newton.linear == MO_NEWTON_PCG);
            CHECK(ss.newton.scaling == MO_NEWTON_SCALING_CONSTANT && ss.newton.scaling_constant == 2.0);
            mo_scene_file_destroy(s);
        }
    }
    expect_error("bad iterations", "world{ solver = { iterations = 1.5 } }\n",
                 "t.lua:1: world solver: iterations must be an integer, got 1.5");
    expect_error("nan iterations", "world{ solver = { iterations = 0/0 } }\n", "iterations must be an integer");
    expect_error("check args", "check(1, 2)\n", "t.lua:1: check: first argument must be the claim as a string, got number");
    expect_error("stale body",
                 "local b = body{ mass = 1, inertia = {1, 1, 1} }\nb:destroy()\nlocal p = b:position()\n",
                 "t.lua:3: body: body id (index");
    expect_error("method on wrong self", "local b = ground{}\nb.position(5)\n",
                 "t.lua:2: expected a body (call it as b:method()), got number");
    {
        char err[512] = "";
        mo_scene_options o = mo_default_scene_options();
        o.max_objects = 50;
        mo_scene_file *s = load_text("t.lua", "ground{}\nfor i = 1, 100 do particle{ position = {i, 0, 1} } end\n", &o, err,
                                     sizeof err);
        CHECK(s == NULL && strstr(err, "t.lua:2: object limit of 50 bodies, shapes, joints and particles reached"));
        mo_scene_file_destroy(s);
    }

    /* wrong types to every API function: an error with file:line, never a crash */
    static const char *const calls[] = {
        "world(5)", "world{ gravity = 'down' }", "ground(7)", "ground{ friction = {} }", "body()", "body(1)",
        "body{ shape = 3 }", "body{ shapes = {1} }", "body{ orientation = {1, 2} }", "body{ inertia = 'x' }",
        "body{ inertia = {{1,0,0},{0,1}} }", "body{ [1] = 2 }", "body{ name = {} }", "joint()", "joint{ type = 5 }",
        "joint{ type = 'fixed', b = ground{}, limit = 'x' }", "particle()", "particle{ mass = 'x' }",
        "on_step(5)", "check('x')", "stop({})", "include(5)", "include()", "require({})", "param()",
        "moreau.set_solver(5)", "moreau.set_solver{ apgd = 5 }", "moreau.set_solver{ spg = { n_gll = 'x' } }",
        "moreau.set_gravity('x')", "moreau.set_time_step('x')", "moreau.contacts(5)", "moreau.raycast(1, 2, 3)",
        "moreau.raycast({0,0,1}, {0,0,-1}, 'far')", "moreau.axis_angle({0,0,0}, 1)", "moreau.axis_angle(1, 1)",
        "moreau.rotate({0,0,0,0}, {1,0,0})", "moreau.rotate(1, 2)", "ground():set_pose('x')",
        "ground{}:set_velocity({1,0,0})", "ground{}:apply_force(1)", "ground{}:apply_force_at({1,0,0})",
        "ground{}:world_point()", "ground{}:add_shape(5)", "ground{}:add_shape{ type = 'sphere', radius = 'r' }",
        "ground{}.mass({})", "ground{}.name(1)", "ground{}.valid(nil)", "ground{}.destroy('x')",
        "local j = joint{ type = 'distance', b = body{ mass = 1, inertia = {1,1,1} } }; j:set_motor(5)",
        "local j = joint{ type = 'distance', b = body{ mass = 1, inertia = {1,1,1} } }; j:set_motor{ motor = 'x' }",
        "local j = joint{ type = 'distance', b = body{ mass = 1, inertia = {1,1,1} } }; j:set_target('x')",
        "local j = joint{ type = 'distance', b = body{ mass = 1, inertia = {1,1,1} } }; j.position(5)",
        "local j = joint{ type = 'spherical', b = body{ mass = 1, inertia = {1,1,1} } }; j:position()",
        "local p = particle{}; p.position(5)", "local p = particle{}; p:set_velocity('x')",
        "local p = particle{}; p:apply_force()", "local p = particle{}; p:destroy(); p:position()",
        "local s = body{ type = 'static' }:add_shape{ type = 'plane' }; s:mass()", "getmetatable(ground{}).x = 1",
        "setmetatable(ground{}, {})", "load('x = ', 'y')(); error('no')",
        "body{ shape = { type = 'hull', points = {{0,0,0},{1,0,0}} } }",
        "body{ shape = { type = 'hull', points = 5 } }", "body{ shape = { type = 'mesh', vertices = {}, triangles = 5 } }",
        "body{ shape = { type = 'box', points = {} } }", "body{ shape = { type = 'sphere', radius = 1, mesh = 5 } }",
        "body{ shape = { type = 'sphere', radius = 1, category = -1 } }", "body{ collision_group = 2^40 }",
        "world{ threads = 1e300 }", "moreau.contacts({})", "string.rep('x', -1):foo()",
        "moreau.mesh and moreau.mesh(5) or error('no mesh')", "moreau.urdf and moreau.urdf({}) or error('no urdf')",
        "moreau.mesh and moreau.mesh('/etc/passwd') or error('no mesh')",
        "moreau.urdf and moreau.urdf('../../../etc/passwd') or error('no urdf')",
        NULL};
    for (int i = 0; calls[i]; i++) {
        char text[512];
        snprintf(text, sizeof text, "\n%s\n", calls[i]);
        char err[1024] = "";
        mo_scene_options o = mo_default_scene_options();
        o.max_objects = 50;
        mo_scene_file *s = load_text("w.lua", text, &o, err, sizeof err);
        if (s) fprintf(stderr, "wrong types: '%s' was accepted\n", calls[i]);
        CHECK(s == NULL);
        if (s == NULL && !strstr(err, "w.lua:2:")) {
            fprintf(stderr, "wrong types: '%s' gave '%s' (no w.lua:2:)\n", calls[i], err);
            check_failures++;
        }
        mo_scene_file_destroy(s);
    }

    /* a failing load leaves nothing behind (ASan's leak check covers the world) and the
       out pointer NULL; a missing file is MO_ERR_IO */
    mo_scene_file *s = (mo_scene_file *)&s;
    char err[512];
    CHECK(mo_scene_file_load("/nonexistent/x.lua", NULL, &s, err, sizeof err) == MO_ERR_IO && s == NULL);
    CHECK(strstr(err, "/nonexistent/x.lua: cannot open") != NULL);
    mo_scene_options bad = mo_default_scene_options();
    bad.internal_value = 0;
    CHECK(mo_scene_file_load("x.lua", &bad, &s, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
}

/* ---- callbacks and checks ---- */

static void test_scenario(void)
{
    /* a pendulum hinge driven by a PD target ramped to 0.8 rad over 1 s; stop when it holds */
    const char *text =
        "world{ gravity = {0, 0, 0}, duration = 5 }\n"
        "local arm = body{ name = 'arm', position = {0.5, 0, 1}, shape = { type = 'box', half_extents = {0.5, 0.05, 0.05} }, mass = 2 }\n"
        "local hinge = joint{ name = 'hinge', type = 'revolute', b = arm, anchor = {0, 0, 1}, axis = {0, 0, 1},\n"
        "                     motor = 'position', stiffness = 200, damping = 20, max_force = 100 }\n"
        "local reached\n"
        "on_step(function(t, step)\n"
        "  assert(math.abs(t - step / 120) < 1e-9)\n"
        "  hinge:set_target(0.8 * math.min(t, 1.0))\n"
        "  if t > 1.5 and math.abs(hinge:position() - 0.8) < 1e-3 and not reached then reached = step; stop('reached 0.8 rad') end\n"
        "end)\n"
        "check('the hinge reaches 0.8 rad', function() return math.abs(hinge:position() - 0.8) < 1e-3, hinge:position() end)\n"
        "check('a failing claim', function() return false, 1.5, 'x' end)\n"
        "check('an erroring claim', function() error('boom') end)\n"
        "check('a runaway claim', function() while true do end end)\n";
    char err[1024] = "";
    mo_scene_options o = mo_default_scene_options();
    o.check_instructions = 1000000;
    mo_scene_file *s = load_text("scenario.lua", text, &o, err, sizeof err);
    if (!s) {
        fprintf(stderr, "scenario: %s\n", err);
        check_failures++;
        return;
    }
    CHECK(mo_scene_file_duration(s) == 5.0);
    CHECK(mo_scene_file_check_count(s) == 4);
    int steps = 0;
    while (!mo_scene_file_done(s, NULL) && steps < 600) {
        CHECK(mo_scene_file_step(s) == MO_OK);
        steps++;
    }
    const char *why = NULL;
    CHECK(mo_scene_file_done(s, &why) && !strcmp(why, "reached 0.8 rad"));
    /* stop() came from the callbacks of the last call: that step was not taken */
    CHECK(mo_scene_file_steps(s) == (uint64_t)steps - 1);
    CHECK(steps > 180 && steps < 600);
    mo_scene_check_result r[4];
    CHECK(mo_scene_file_checks(s, r, 4) == 3);
    CHECK(r[0].passed && !strcmp(r[0].name, "the hinge reaches 0.8 rad"));
    CHECK(!r[1].passed && !strcmp(r[1].detail, "1.5, x"));
    CHECK(!r[2].passed && strstr(r[2].detail, "scenario.lua:13: boom"));
    CHECK(!r[3].passed && strstr(r[3].detail, "instruction budget of 1000000 exceeded"));
    /* the bodies it made, with names */
    mo_scene_body b[4];
    CHECK(mo_scene_file_bodies(s, b, 4) == 1 && !strcmp(b[0].name, "arm"));
    mo_scene_file_destroy(s);

    /* a callback error names its line; the scene then refuses to step on */
    /* (a ball too: stepping a world with no dynamic body trips UBSan in the solver layer,
       memcpy from a NULL array of length 0) */
    s = load_text("cb.lua", "ground{}\non_step(function(t, step)\n  if step == 3 then error('bad step') end\nend)\n"
                  "body{ position = {0, 0, 1}, shape = { type = 'sphere', radius = 0.1 } }\n", NULL,
                  err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        for (int i = 0; i < 3; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(mo_scene_file_step(s) == MO_ERR_INVALID_ARGUMENT);
        CHECK(strstr(mo_scene_file_last_error(s), "cb.lua:3: bad step") != NULL);
        CHECK(mo_scene_file_step(s) == MO_ERR_INVALID_ARGUMENT);
        mo_scene_file_destroy(s);
    }
    /* a runaway callback is stopped by the step budget */
    o = mo_default_scene_options();
    o.step_instructions = 100000;
    s = load_text("cb2.lua", "on_step(function() while true do end end)\n", &o, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK(mo_scene_file_step(s) == MO_ERR_INVALID_ARGUMENT);
        CHECK(strstr(mo_scene_file_last_error(s), "cb2.lua:1: instruction budget of 100000 exceeded") != NULL);
        mo_scene_file_destroy(s);
    }
    /* spawning bodies and applying forces in callbacks, params, print */
    const char *params[] = {"count=3", "label=hi"};
    o = mo_default_scene_options();
    o.params = params;
    o.param_count = 2;
    s = load_text("spawn.lua",
                  "world{ gravity = {0, 0, 0} }\nlocal n = param('count', 1)\nassert(param('label', 'x') == 'hi')\n"
                  "assert(param('other', 2.5) == 2.5)\nlocal made = {}\n"
                  "on_step(function(t, step) if step < n then made[#made + 1] = body{ position = {step, 0, 0}, "
                  "shape = { type = 'sphere', radius = 0.1 } }\n  made[#made]:apply_force({10, 0, 0}) end end)\n"
                  "check('n spheres', function() return #made == n and made[1]:velocity().x > 0, #made end)\n",
                  &o, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        for (int i = 0; i < 5; i++) CHECK(mo_scene_file_step(s) == MO_OK);
        mo_scene_check_result c;
        CHECK(mo_scene_file_checks(s, &c, 1) == 0 && c.passed && !strcmp(c.detail, "3"));
        CHECK(mo_scene_file_bodies(s, NULL, 0) == 3);
        /* the params given and read; 'other' was read but not given; 'unused' was given, never read */
        CHECK(mo_scene_file_param_read(s, "count") && mo_scene_file_param_read(s, "label"));
        CHECK(!mo_scene_file_param_read(s, "other") && !mo_scene_file_param_read(s, "unused"));
        CHECK(!mo_scene_file_param_read(s, NULL) && !mo_scene_file_param_read(NULL, "count"));
        mo_scene_file_destroy(s);
    }
    const char *given[] = {"count=3", "unused=1"};
    o = mo_default_scene_options();
    o.params = given;
    o.param_count = 2;
    s = load_text("unused.lua", "local n = param('count', 1)\n", &o, err, sizeof err);
    CHECK(s && mo_scene_file_param_read(s, "count") && !mo_scene_file_param_read(s, "unused"));
    mo_scene_file_destroy(s);
    /* math.random follows the options' seed: the same seed draws the same numbers, another seed others */
    static const char *const draw = "local a, b = math.random(), math.random(1, 1000000)\n"
                                    "check('draws', function() return true, string.format('%.17g %d', a, b) end)\n";
    char first[3][128] = {"", "", ""};
    const uint64_t seeds[3] = {0, 0, 7};
    for (int k = 0; k < 3; k++) {
        o = mo_default_scene_options();
        CHECK(o.seed == 0);
        o.seed = seeds[k];
        s = load_text("seed.lua", draw, &o, err, sizeof err);
        CHECK(s != NULL);
        if (!s) continue;
        mo_scene_check_result c;
        CHECK(mo_scene_file_checks(s, &c, 1) == 0);
        snprintf(first[k], sizeof first[k], "%s", c.detail);
        mo_scene_file_destroy(s);
    }
    CHECK(first[0][0] && !strcmp(first[0], first[1]) && strcmp(first[0], first[2]) != 0);
}

/* ---- catalogue and C twins ---- */

static mo_scene_file *load_catalogue(const char *name)
{
    char path[512], err[1024] = "";
    snprintf(path, sizeof path, "%s/%s.lua", scenes_dir, name);
    mo_scene_file *s = NULL;
    if (mo_scene_file_load(path, NULL, &s, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s: %s\n", name, err);
        check_failures++;
    }
    return s;
}

static void test_catalogue(void)
{
    static const char *const names[] = {"stack20",   "heavy_stack", "pyramid", "pile1000", "b2_spheres",
                                        "chain1000", "b1_net",      "b3_plates", "b4_wall", "incline",
                                        "gs_spheres", "vat",        "table_pile", "extension", "arch",
                                        "beam",       "gripper_ball", "soft_finger", "quadruped",
                                        "double_pendulum", "arm6", "hand_grasp", NULL};
    for (int i = 0; names[i]; i++) {
        mo_scene_file *s = load_catalogue(names[i]);
        if (!s) continue;
        CHECK(mo_scene_file_duration(s) > 0.0);
        CHECK(mo_scene_file_check_count(s) >= 1);
        int n = !strcmp(names[i], "pyramid") || !strcmp(names[i], "b4_wall") ? 2 : 4;
        for (int k = 0; k < n; k++) CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(mo_world_last_stats(mo_scene_file_world(s)).nan_warnings == 0);
        /* no body left the world: every position finite and within 1 km of the origin */
        {
            int nb = mo_scene_file_bodies(s, NULL, 0), out = 0;
            mo_scene_body *bs = (mo_scene_body *)calloc((size_t)nb + 1, sizeof *bs);
            mo_scene_file_bodies(s, bs, nb);
            for (int b = 0; b < nb; b++) {
                mo_vec3 p;
                if (mo_body_position(mo_scene_file_world(s), bs[b].id, &p) != MO_OK) continue;
                if (!(fabs(p.x) < 1e3 && fabs(p.y) < 1e3 && fabs(p.z) < 1e3)) out++;
            }
            CHECK(out == 0);
            free(bs);
        }
        /* the claims hold at the start (each is stated to hold at any time of its run) */
        int nc = mo_scene_file_check_count(s);
        mo_scene_check_result r[8];
        CHECK(mo_scene_file_checks(s, r, 8) == 0);
        for (int k = 0; k < nc && k < 8; k++)
            if (!r[k].passed) fprintf(stderr, "%s: check '%s' failed: %s\n", names[i], r[k].name, r[k].detail);
        mo_scene_file_destroy(s);
    }
}

/* the scene file's world equals the built-in C scene's: same bodies (index order), masses,
   inertias, poses, velocities; after steps with the same solver the same state hash */
static void test_twin(const char *file, const char *builtin, int steps)
{
    mo_scene_file *s = load_catalogue(file);
    if (!s) return;
    mo_world *wf = mo_scene_file_world(s);
    mo_world_def wd = mo_default_world_def();
    wd.solver = mo_world_solver(wf);
    wd.substeps = mo_world_substeps(wf);
    mo_world *wc = NULL;
    char err[512];
    mo_scene sc;
    CHECK(mo_world_create(&wd, &wc, err, sizeof err) == MO_OK);
    CHECK(mo_scene_build(builtin, wc, &sc, err, sizeof err) == MO_OK);
    CHECK(mo_world_time_step(wf) == mo_world_time_step(wc));
    mo_vec3 gf = mo_world_gravity(wf), gc = mo_world_gravity(wc);
    CHECK(gf.x == gc.x && gf.y == gc.y && gf.z == gc.z);
    int nf = mo_scene_file_bodies(s, NULL, 0);
    mo_scene_body *bf = (mo_scene_body *)calloc((size_t)nf, sizeof *bf);
    mo_scene_file_bodies(s, bf, nf);
    /* the C scene's dynamic bodies appear in the same order among the file's bodies */
    int k = 0, same = 1;
    for (int i = 0; i < nf && k < sc.nbodies; i++) {
        if (bf[i].id.index != sc.bodies[k].index) continue; /* same slot (ids of two worlds differ in generation) */
        double mf, mc;
        mo_mat3 If, Ic;
        mo_vec3 pf, pc;
        mo_quat qf, qc;
        mo_body_mass(wf, bf[i].id, &mf, &If);
        mo_body_mass(wc, sc.bodies[k], &mc, &Ic);
        mo_body_position(wf, bf[i].id, &pf);
        mo_body_position(wc, sc.bodies[k], &pc);
        mo_body_orientation(wf, bf[i].id, &qf);
        mo_body_orientation(wc, sc.bodies[k], &qc);
        if (mf != mc || memcmp(&If, &Ic, sizeof If) || pf.x != pc.x || pf.y != pc.y || pf.z != pc.z || qf.w != qc.w ||
            qf.x != qc.x || qf.y != qc.y || qf.z != qc.z) {
            if (same) fprintf(stderr, "%s: body %d differs from %s's\n", file, k, builtin);
            same = 0;
        }
        k++;
    }
    CHECK(same);
    CHECK(k == sc.nbodies);
    CHECK(mo_world_last_stats(wf).bodies == mo_world_last_stats(wc).bodies);
    CHECK(mo_world_state_hash(wf) == mo_world_state_hash(wc));
    for (int i = 0; i < steps; i++) {
        CHECK(mo_scene_file_step(s) == MO_OK);
        CHECK(mo_world_step(wc) == MO_OK);
    }
    mo_step_stats a = mo_world_last_stats(wf), b = mo_world_last_stats(wc);
    CHECK(a.bodies == b.bodies && a.joints == b.joints && a.contacts == b.contacts && a.rows == b.rows);
    if (mo_world_state_hash(wf) != mo_world_state_hash(wc)) {
        fprintf(stderr, "%s: state hash after %d steps differs from %s's\n", file, steps, builtin);
        check_failures++;
    }
    free(bf);
    mo_scene_free(&sc);
    mo_world_destroy(wc);
    mo_scene_file_destroy(s);
}

static void test_twins(void)
{
    test_twin("stack20", "stack20", 5);
    test_twin("heavy_stack", "heavy_stack", 5);
    test_twin("pile1000", "pile1000", 3);
    test_twin("b2_spheres", "b2_spheres", 3);
    test_twin("chain1000", "chain1000", 2);
    test_twin("b1_net", "b1_net", 2);
    test_twin("b3_plates", "b3_plates", 5);
    test_twin("b4_wall", "b4_wall", 1);
}

int main(void)
{
    scenes_dir = getenv("MOREAU_SCENES_DIR");
    if (!scenes_dir) scenes_dir = "scenes";
    snprintf(tmpdir, sizeof tmpdir, "/tmp/moreau-lua-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_sandbox();
    test_errors();
    test_scenario();
    test_catalogue();
    test_twins();
    /* remove the temporary folder */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_result("lua_scenes");
}
