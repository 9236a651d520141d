/* bench_scene_run.c: one timed run of a scene file with its claims (bench_scene_run.h), for
 * `moreau-bench scenes` and its --cheapest search. Public API only. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "bench_scene_run.h"
#include "bench_util.h"

void bench_run_scene(const char *path, const char *solver, double tmax, int iters, const mo_scene_options *opt,
                     const cli_settings *cs, bool show, const char *label, scene_run *r)
{
    mo_scene_file *sf = NULL;
    if (mo_scene_file_load(path, opt, &sf, r->error, sizeof r->error) != MO_OK) return;
    r->loaded = true;
    mo_world *w = mo_scene_file_world(sf);
    mo_solver_settings s = mo_world_solver(w);
    if (strcmp(solver, "scene") != 0 && !mo_solver_from_name(solver, &s.kind)) {
        snprintf(r->error, sizeof r->error, "unknown solver '%.31s'", solver);
        mo_scene_file_destroy(sf);
        r->loaded = false;
        return;
    }
    if (iters > 0) s.max_iterations = iters;
    if (mo_world_set_solver(w, &s) != MO_OK || mo_world_set_settings(w, cs->items, cs->n) != MO_OK) {
        snprintf(r->error, sizeof r->error, "%s", mo_world_last_error(w));
        mo_scene_file_destroy(sf);
        r->loaded = false;
        return;
    }
    double dur = mo_scene_file_duration(sf), h = mo_world_time_step(w);
    if (!(dur > 0.0)) dur = 5.0;
    if (tmax > 0.0 && tmax < dur) dur = tmax;
    int steps = (int)(dur / h + 0.5);
    if (steps < 1) steps = 1;
    double *t = malloc(sizeof(double) * (size_t)steps * 4);
    double *tc = t + steps, *ta = tc + steps, *ts = ta + steps;
    long iter_sum = 0;
    int done = 0;
    for (int k = 0; k < steps; k++) {
        mo_step_stats st;
        const double ms = bench_scene_step(sf, k, &st, r->error, sizeof r->error);
        if (ms < 0.0) break;
        t[done] = ms;
        tc[done] = 1e3 * st.t_collide;
        ta[done] = 1e3 * st.t_assemble;
        ts[done] = 1e3 * st.t_solve;
        iter_sum += st.iterations;
        r->residual_final = st.residual;
        if (st.max_penetration > r->max_penetration) r->max_penetration = st.max_penetration;
        if (st.max_joint_error > r->max_joint_error) r->max_joint_error = st.max_joint_error;
        done++;
        if (show && (k % 10 == 0 || k + 1 == steps)) bench_progress(true, k + 1, steps, label);
        if (mo_scene_file_done(sf, NULL)) break;
    }
    r->steps = done;
    r->iterations_mean = done ? (double)iter_sum / done : 0.0;
    r->ms_median = bench_median(t, done);
    r->collide = bench_median(tc, done);
    r->assemble = bench_median(ta, done);
    r->solve = bench_median(ts, done);
    free(t);
    r->checks = mo_scene_file_check_count(sf);
    r->checks_failed = r->error[0] ? r->checks : mo_scene_file_checks(sf, NULL, 0);
    r->claim = !r->error[0] && r->checks_failed == 0;
    mo_scene_file_destroy(sf);
}

