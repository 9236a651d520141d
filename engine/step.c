/* step.c: one time step as a list of stages (ARCHITECTURE.md):
 * predict -> collide -> assemble -> solve -> integrate, each timed. */
#include <math.h>
#include <string.h>
#include "internal.h"

mo_status mo_world_step(mo_world *w)
{
    mo_step_stats *st = &w->stats;
    memset(st, 0, sizeof *st);
    st->step = w->step_index;

    double t0 = mo_now();
    if (mo_step_predict(w)) goto oom;
    double t1 = mo_now();
    if (mo_step_collide(w)) goto oom;
    double t2 = mo_now();
    mo_problem p;
    if (mo_step_assemble(w, &p)) goto oom;
    double t3 = mo_now();
    mo_step_solve(w, &p);
    double t4 = mo_now();
    mo_step_integrate(w);
    if (mo_step_project(w)) goto oom;
    double t5 = mo_now();

    st->t_predict = t1 - t0;
    st->t_collide = t2 - t1;
    st->t_assemble = t3 - t2;
    st->t_solve = t4 - t3;
    st->t_integrate = t5 - t4;
    w->time += w->def.time_step;
    w->step_index++;
    return MO_OK;
oom:
    mo_set_error(w, "mo_world_step: out of memory at step %llu", (unsigned long long)w->step_index);
    return MO_ERR_OUT_OF_MEMORY;
}
