/* test_robot_scenes: the robot scenes of issue 19 (scenes/quadruped.lua, double_pendulum.lua, arm6.lua:
 * articulations built from Lua tables) run headless through the public scene API (moreau/scene.h) with
 * their claims (mo_scene_file_checks) evaluated at the end of each run, every measured figure printed.
 *   solvers: each scene at h = 1/120 with PGS at 10, 20, 50 and 100 iterations and with Jacobi, APGD and
 *            P-SPG-FB (50 iterations each), full length: quadruped 1 s standing + 4 s trotting (claims:
 *            standing height within 1 cm and tilt within 2 degrees; trotting without falling, forward
 *            > 0.1 m), quadruped standing only for 3 s (params stand=3 trot=0), double_pendulum 10 s
 *            (energy drift < 1 %), arm6 4 s joint-space sinusoid + 2 s task-space reach (tracking < 0.02 rad,
 *            tool point within 5 mm)
 *   h = 1/1000: the quadruped's standing claim for 3 s with the scene's solver (PGS 50)
 *   claims that must fail: the double pendulum with the semi-implicit Euler integrator (energy gain of
 *            ~17 %), the quadruped with a trot too large for it (amp=0.25 lift=0.5 period=0.4: it falls),
 *            arm6 with stiffness 100 (kp=100: tracking error above 0.02 rad)
 * $MOREAU_SCENES_DIR is the source tree's scenes/; skips (77) without Lua. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"

static const char *scenes_dir;

typedef struct solver_cfg { const char *name; int iterations; } solver_cfg;

/* runs scene file with params (up to 4) and solver (NULL: the scene's) for its duration; returns the number of
 * claims that failed (printed with their figures), -1 when it did not load or a step failed, -77 without Lua */
static int run_scene(const char *file, const char *const *params, int nparams, const solver_cfg *solver)
{
    char path[1024], err[1024] = "", label[256];
    snprintf(path, sizeof path, "%s/%s", scenes_dir, file);
    int n = snprintf(label, sizeof label, "%s", file);
    for (int i = 0; i < nparams && n < (int)sizeof label; i++)
        n += snprintf(label + n, sizeof label - (size_t)n, " %s", params[i]);
    if (solver && n < (int)sizeof label)
        snprintf(label + n, sizeof label - (size_t)n, " [%s %d]", solver->name, solver->iterations);
    mo_scene_options o = mo_default_scene_options();
    o.params = params;
    o.param_count = nparams;
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, &o, &s, err, sizeof err);
    if (st == MO_ERR_UNSUPPORTED) return -77;
    if (st != MO_OK) {
        fprintf(stderr, "%s: %s\n", label, err);
        return -1;
    }
    mo_world *w = mo_scene_file_world(s);
    if (solver) {
        mo_solver_settings ss = mo_world_solver(w);
        CHECK(mo_solver_from_name(solver->name, &ss.kind));
        ss.max_iterations = solver->iterations;
        CHECK(mo_world_set_solver(w, &ss) == MO_OK);
    }
    const double duration = mo_scene_file_duration(s), h = mo_world_time_step(w);
    clock_t c0 = clock();
    int steps = 0;
    while (!mo_scene_file_done(s, NULL) && mo_world_time(w) < duration - 0.5 * h) {
        if (mo_scene_file_step(s) != MO_OK) {
            fprintf(stderr, "%s: step %d: %s\n", label, steps, mo_scene_file_last_error(s));
            mo_scene_file_destroy(s);
            return -1;
        }
        steps++;
    }
    const double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    mo_scene_check_result r[8];
    int failed = mo_scene_file_checks(s, r, 8), nc = mo_scene_file_check_count(s);
    printf("%s: %d steps of %.5f s (%.2f s), %.3f ms/step\n", label, steps, h, mo_world_time(w),
           steps ? 1e3 * secs / steps : 0.0);
    for (int i = 0; i < nc && i < 8; i++) printf("  %s %s: %s\n", r[i].passed ? "PASS" : "FAIL", r[i].name, r[i].detail);
    mo_scene_file_destroy(s);
    return failed;
}

int main(void)
{
    scenes_dir = getenv("MOREAU_SCENES_DIR");
    if (!scenes_dir) scenes_dir = "scenes";
    static const solver_cfg solvers[] = {{"pgs", 10},    {"pgs", 20},  {"pgs", 50}, {"pgs", 100},
                                         {"jacobi", 50}, {"apgd", 50}, {"spg", 50}};
    static const char *const stand3[] = {"stand=3", "trot=0"};
    static const char *const stand_fine[] = {"stand=3", "trot=0", "h=0.001"};
    const int ns = (int)(sizeof solvers / sizeof solvers[0]);
    clock_t c0 = clock();
    for (int k = 0; k < ns; k++) {
        int f = run_scene("quadruped.lua", NULL, 0, &solvers[k]);
        if (f == -77) return 77;
        CHECK(f == 0);
        CHECK(run_scene("quadruped.lua", stand3, 2, &solvers[k]) == 0);
        CHECK(run_scene("double_pendulum.lua", NULL, 0, &solvers[k]) == 0);
        CHECK(run_scene("arm6.lua", NULL, 0, &solvers[k]) == 0);
    }
    CHECK(run_scene("quadruped.lua", stand_fine, 3, NULL) == 0);
    /* the claims can fail */
    static const char *const euler[] = {"integrator=euler"};
    static const char *const big_trot[] = {"amp=0.25", "lift=0.5", "period=0.4"};
    static const char *const soft[] = {"kp=100"};
    CHECK(run_scene("double_pendulum.lua", euler, 1, NULL) == 1);
    CHECK(run_scene("quadruped.lua", big_trot, 3, NULL) == 1);
    CHECK(run_scene("arm6.lua", soft, 1, NULL) >= 1);
    printf("total %.1f s CPU\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
    return check_result("robot_scenes");
}
