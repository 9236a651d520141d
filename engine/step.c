/* step.c: one time step as a list of stages (ARCHITECTURE.md):
 * predict -> collide -> assemble -> solve -> integrate, each timed. */
#include <math.h>
#include <string.h>
#include "internal.h"

/* one step of length w->def.time_step, stats into w->stats */
static int step_once(mo_world *w)
{
    mo_step_stats *st = &w->stats;
    memset(st, 0, sizeof *st);
    st->step = w->step_index;

    double t0 = mo_now();
    if (mo_step_predict(w)) return -1;
    double t1 = mo_now();
    if (mo_step_collide(w)) return -1;
    double t2 = mo_now();
    mo_problem p;
    if (mo_step_assemble(w, &p)) return -1;
    double t3 = mo_now();
    if (w->def.solver.kind == MO_SOLVER_NEWTON) { /* issue 7: position-level Newton replaces the solve */
        if (mo_step_newton(w, &p)) return -1;
    } else {
        mo_step_solve(w, &p);
    }
    double t4 = mo_now();
    mo_step_integrate(w);
    if (mo_step_project(w)) return -1;
    double t5 = mo_now();

    st->t_predict = t1 - t0;
    st->t_collide = t2 - t1;
    st->t_assemble = t3 - t2;
    st->t_solve = t4 - t3;
    st->t_integrate = t5 - t4;
    return 0;
}

mo_status mo_world_step(mo_world *w)
{
    const int k = w->def.substeps > 1 ? w->def.substeps : 1;
    if (k == 1) {
        if (step_once(w)) goto oom;
    } else {
        /* k whole steps of h / k; the time step is restored even on failure */
        const double h = w->def.time_step;
        mo_step_stats sum;
        memset(&sum, 0, sizeof sum);
        w->def.time_step = h / k;
        for (int i = 0; i < k; i++) {
            if (step_once(w)) {
                w->def.time_step = h;
                goto oom;
            }
            const mo_step_stats *st = &w->stats;
            sum.t_predict += st->t_predict;
            sum.t_collide += st->t_collide;
            sum.t_assemble += st->t_assemble;
            sum.t_solve += st->t_solve;
            sum.t_integrate += st->t_integrate;
            sum.iterations += st->iterations;
            sum.linear_iterations += st->linear_iterations;
            sum.nan_warnings += st->nan_warnings;
            if (st->max_penetration > sum.max_penetration) sum.max_penetration = st->max_penetration;
        }
        w->def.time_step = h;
        mo_step_stats *st = &w->stats;
        st->t_predict = sum.t_predict;
        st->t_collide = sum.t_collide;
        st->t_assemble = sum.t_assemble;
        st->t_solve = sum.t_solve;
        st->t_integrate = sum.t_integrate;
        st->iterations = sum.iterations;
        st->linear_iterations = sum.linear_iterations;
        st->nan_warnings = sum.nan_warnings;
        st->max_penetration = sum.max_penetration;
    }
    w->time += w->def.time_step;
    w->step_index++;
    return MO_OK;
oom:
    mo_set_error(w, "mo_world_step: out of memory at step %llu", (unsigned long long)w->step_index);
    return MO_ERR_OUT_OF_MEMORY;
}
