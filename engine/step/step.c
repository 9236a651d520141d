/* step.c: one time step as a list of stages (ARCHITECTURE.md):
 * predict -> collide -> assemble -> solve (or Newton) -> integrate -> project,
 * each timed; substeps and Newton step halving run it on shorter steps, each
 * with its own step context (step.h), the world's settings untouched. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "step/step.h"

/* one step of length h, stats into w->stats; 0, -1 out of memory, -2 the device failed, MO_STEP_NOT_FINITE
 * a stage made a non-finite value (the sentence of -2 and -3 in w->err; w->fail_stage names the stage of -1) */
static int step_once(mo_world *w, double h)
{
    const mo_step_ctx ctx = {w, &w->def, h};
    mo_step_stats *st = &w->stats;
    memset(st, 0, sizeof *st);
    st->step = w->step_index;
    int rc;
#define STAGE(name, call)                  \
    do {                                   \
        w->fail_stage = (name);            \
        if ((rc = (call))) return rc;      \
    } while (0)

    double t0 = mo_now(), t1;
    do { /* again when the collision detection woke a sleeping island (each pass wakes one at least) */
        STAGE("prediction", mo_step_predict(&ctx));
        STAGE("prediction", mo_guard_dofs(w, (const double *)w->v_tilde.p, "prediction", "velocity"));
        STAGE("prediction", mo_step_artic_predict(&ctx));
        t1 = mo_now();
        w->fail_stage = "collision detection";
        rc = mo_step_collide(&ctx);
        if (rc && rc != MO_STEP_WOKE) return rc;
    } while (rc == MO_STEP_WOKE);
    double t2 = mo_now();
    mo_problem p;
    STAGE("assembly", mo_step_assemble(&ctx, &p));
    double t3 = mo_now();
    if (mo_solver_has(w->def.solver.kind, MO_SOLVER_CAP_POSITION)) { /* the position-level step replaces the solve */
        STAGE("Newton step", mo_step_newton(&ctx, &p)); /* -1 out of memory, -2 the device failed */
        STAGE("Newton step", mo_guard_dofs(w, (const double *)w->v.p, "Newton step", "velocity"));
    } else {
        if (mo_step_solve(&ctx, &p)) return -2; /* the device failed: nothing integrated, the sentence in w->err */
        char stage[64];
        snprintf(stage, sizeof stage, "solver '%s'", mo_solver_name(w->def.solver.kind));
        STAGE("solve", mo_guard_dofs(w, (const double *)w->v.p, stage, "velocity"));
    }
    double t4 = mo_now();
    mo_step_integrate(&ctx);
    mo_step_artic_integrate(&ctx);
    STAGE("integration", mo_guard_poses(w, "integration"));
    STAGE("integration", mo_guard_artic(w, "integration"));
    STAGE("position projection", mo_step_project(&ctx));
    STAGE("position projection", mo_guard_poses(w, "position projection"));
#undef STAGE
    double t5 = mo_now();

    st->t_predict = t1 - t0;
    st->t_collide = t2 - t1;
    st->t_assemble = t3 - t2;
    st->t_solve = t4 - t3;
    st->t_integrate = t5 - t4;
    return 0;
}

/* The state a step changes, saved at its start so that Newton step halving can undo it: bodies
 * (poses, velocities, accumulated forces, cleared by the step), particles (FEM nodes too), joints
 * (warm-start impulses, reactions), the contact cache (warm start) and the FEM meshes' state
 * (mo_fem_state_save: forces, fixed-node targets, attachments, surface contacts). Everything else
 * is rebuilt by the next step. The buffer starts with the FEM part's and the articulations' sizes (8
 * bytes each), which keeps it aligned for the doubles after them; the articulations' q, v and row impulses follow the FEM part. */
static int snap_save(mo_world *w, mo_buf *b)
{
    const size_t nb = (size_t)w->body_count * sizeof(mo_body), np = (size_t)w->particle_count * sizeof(mo_particle);
    const size_t nj = (size_t)w->joint_count * sizeof(mo_joint), nc = (size_t)w->ncache * sizeof(mo_contact_cache);
    const size_t nf = mo_fem_state_size(w), na = mo_artic_state_size(w), head = 2 * sizeof(double);
    if (mo_buf_reserve(b, head + nf + na + nb + np + nj + nc + 1)) return -1;
    char *d = (char *)b->p;
    ((double *)d)[0] = (double)nf;
    ((double *)d)[1] = (double)na;
    d += head;
    if (nf) mo_fem_state_save(w, d);
    d += nf;
    if (na) mo_artic_state_save(w, d);
    d += na;
    if (nb) memcpy(d, w->bodies, nb);
    if (np) memcpy(d + nb, w->particles, np);
    if (nj) memcpy(d + nb + np, w->joints, nj);
    if (nc) memcpy(d + nb + np + nj, w->cache.p, nc);
    return 0;
}

static void snap_restore(mo_world *w, const mo_buf *b, int ncache)
{
    const size_t nb = (size_t)w->body_count * sizeof(mo_body), np = (size_t)w->particle_count * sizeof(mo_particle);
    const size_t nj = (size_t)w->joint_count * sizeof(mo_joint), nc = (size_t)ncache * sizeof(mo_contact_cache);
    const char *d = (const char *)b->p;
    const size_t nf = (size_t)((const double *)d)[0], na = (size_t)((const double *)d)[1];
    d += 2 * sizeof(double);
    if (nf) mo_fem_state_restore(w, d);
    d += nf;
    if (na) mo_artic_state_restore(w, d);
    d += na;
    if (nb) memcpy(w->bodies, d, nb);
    if (np) memcpy(w->particles, d + nb, np);
    if (nj) memcpy(w->joints, d + nb + np, nj);
    if (nc) memcpy(w->cache.p, d + nb + np + nj, nc); /* the cache only grows: its room is there */
    w->ncache = ncache;
    w->q_synced = 0; /* the world queries' trees hold the undone poses */
}

/* The step's guard: the state before mo_world_step (snap_save's), this step's contact list and
 * statistics, restored when a stage fails so that the world is as before the call. */
static int guard_save(mo_world *w)
{
    if (snap_save(w, &w->guard)) return -1;
    const size_t nc = (size_t)w->ncontacts * sizeof(mo_contact_int);
    if (mo_buf_reserve(&w->guard_contacts, nc + 1)) return -1;
    if (nc) memcpy(w->guard_contacts.p, w->contacts.p, nc);
    w->guard_ncontacts = w->ncontacts;
    w->guard_stats = w->stats;
    return 0;
}

static void guard_restore(mo_world *w, int ncache)
{
    snap_restore(w, &w->guard, ncache);
    const size_t nc = (size_t)w->guard_ncontacts * sizeof(mo_contact_int);
    if (nc) memcpy(w->contacts.p, w->guard_contacts.p, nc); /* the contact list only grows: its room is there */
    w->ncontacts = w->guard_ncontacts;
    w->stats = w->guard_stats;
    w->rows_assembled = 0; /* the row buffers hold the failed step's rows: no contact residuals from them */
    /* the histories' buffers hold the failed step's numbers now */
    w->stats.residual_count = 0;
    w->stats.residual_history = NULL;
    w->stats.coulomb_error_history = NULL;
    w->stats.linear_count = 0;
    w->stats.linear_history = NULL;
}

/* the costs of a step, kept or undone, into the sum */
static void add_cost(mo_step_stats *sum, const mo_step_stats *st)
{
    sum->t_predict += st->t_predict;
    sum->t_collide += st->t_collide;
    sum->t_assemble += st->t_assemble;
    sum->t_solve += st->t_solve;
    sum->t_integrate += st->t_integrate;
    sum->iterations += st->iterations;
    sum->linear_iterations += st->linear_iterations;
    sum->nan_warnings += st->nan_warnings;
}

/* the results of a kept step: the worst of them */
static void add_result(mo_step_stats *sum, const mo_step_stats *st, bool first)
{
    add_cost(sum, st);
    if (first || !(st->residual <= sum->residual)) sum->residual = st->residual; /* NaN propagates */
    sum->converged = first ? st->converged : sum->converged && st->converged;
    if (st->max_penetration > sum->max_penetration) sum->max_penetration = st->max_penetration;
    if (st->max_joint_error > sum->max_joint_error) sum->max_joint_error = st->max_joint_error;
}

/* one step of length h, undone and redone as two halves (recursively, up to max_depth)
 * while its Newton residual stays above thr */
static int step_halving(mo_world *w, double h, int depth, int max_depth, double thr, mo_step_stats *sum, int *kept)
{
    const int ncache = w->ncache;
    bool can = depth < max_depth && snap_save(w, &w->halve[depth]) == 0; /* no room: no halving */
    int rc0 = step_once(w, h);
    if (rc0 && !(rc0 == MO_STEP_NOT_FINITE && can)) return rc0; /* a non-finite step is halved when it can be */
    const mo_step_stats *st = &w->stats;
    if (!rc0 && (!can || (isfinite(st->residual) && st->residual <= thr))) {
        add_result(sum, st, (*kept)++ == 0);
        return 0;
    }
    add_cost(sum, st);
    sum->halvings++;
    snap_restore(w, &w->halve[depth], ncache);
    int rc = step_halving(w, 0.5 * h, depth + 1, max_depth, thr, sum, kept);
    if (rc == 0) rc = step_halving(w, 0.5 * h, depth + 1, max_depth, thr, sum, kept);
    return rc;
}

mo_status mo_world_step(mo_world *w)
{
    MO_NEED_W(w);
    /* the state before the step, to roll back to when a stage fails */
    const int ncache0 = w->ncache;
    if (guard_save(w)) {
        mo_set_error(w, "mo_world_step: out of memory saving the state before step %llu (nothing was changed)",
                     (unsigned long long)w->step_index);
        return MO_ERR_OUT_OF_MEMORY;
    }
    const int k = w->def.substeps > 1 ? w->def.substeps : 1;
    const mo_newton_settings *ns = &w->def.solver.newton;
    const int depth = mo_solver_has(w->def.solver.kind, MO_SOLVER_CAP_POSITION) ? ns->halvings : 0;
    int rc = 0;
    if (k == 1 && depth == 0) {
        if ((rc = step_once(w, w->def.time_step))) goto fail;
    } else {
        /* k whole steps of h / k, each halved while Newton does not converge; the statistics are
           those of the last step kept, with the sums and worst values of mo_step_stats.halvings'
           comment */
        const double hk = w->def.time_step / k;
        mo_step_stats sum;
        memset(&sum, 0, sizeof sum);
        int kept = 0;
        for (int i = 0; i < k; i++)
            if ((rc = step_halving(w, hk, 0, depth, ns->halving_residual, &sum, &kept))) goto fail;
        mo_step_stats *st = &w->stats;
        st->t_predict = sum.t_predict;
        st->t_collide = sum.t_collide;
        st->t_assemble = sum.t_assemble;
        st->t_solve = sum.t_solve;
        st->t_integrate = sum.t_integrate;
        st->iterations = sum.iterations;
        st->linear_iterations = sum.linear_iterations;
        st->nan_warnings = sum.nan_warnings;
        st->residual = sum.residual;
        st->converged = sum.converged;
        st->max_penetration = sum.max_penetration;
        st->max_joint_error = sum.max_joint_error;
        st->halvings = sum.halvings;
    }
    /* islands and sleeping, once per whole step (out of memory: nothing falls asleep this step) */
    (void)mo_step_islands(w, w->def.time_step);
    w->time += w->def.time_step;
    w->step_index++;
    return MO_OK;
fail:
    guard_restore(w, ncache0);
    if (rc == -2) return MO_ERR_UNSUPPORTED;              /* the device's sentence is in w->err */
    if (rc == MO_STEP_NOT_FINITE) return MO_ERR_NOT_FINITE; /* the guard's sentence is in w->err */
    mo_set_error(w, "mo_world_step: out of memory in the %s stage of step %llu (the world is as before the step)",
                 w->fail_stage ? w->fail_stage : "step", (unsigned long long)w->step_index);
    return MO_ERR_OUT_OF_MEMORY;
}
