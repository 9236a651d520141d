/* bench_scene_run.h: one run of a scene file for `moreau-bench scenes` and its --cheapest
 * search (bench_cheapest.c): the scene stepped over its duration with a solver and settings
 * over its own, timed per step, and its claims evaluated at the end. */
#ifndef MO_BENCH_SCENE_RUN_H
#define MO_BENCH_SCENE_RUN_H

#include <stdbool.h>

#include <moreau/scene.h>

#include "cli_settings.h"

typedef struct scene_run {
    char scene[64], solver[32];
    int steps;
    double ms_median, collide, assemble, solve; /* ms per step, medians */
    double iterations_mean, residual_final, max_penetration, max_joint_error;
    int checks, checks_failed;
    bool loaded, claim;
    char error[256];
} scene_run;

/* Loads the scene file at path (opt), sets the solver kind by name unless solver is "scene" (its
 * own), iters > 0 solver iterations, then every setting of cs over the scene's; steps it for its
 * duration (5 s when it states none; at most tmax s when tmax > 0) or until it stops; and fills r
 * (zeroed by the caller): r->loaded false or r->error set when it could not run; r->claim when
 * every check held after the run. show: a progress bar on stderr with label. */
void bench_run_scene(const char *path, const char *solver, double tmax, int iters, const mo_scene_options *opt,
                     const cli_settings *cs, bool show, const char *label, scene_run *r);

#endif
