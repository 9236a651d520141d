/* guard.c: the step's finite checks (issue 18). After each stage that makes
 * new numbers (the prediction, the solve or the Newton step, the
 * integration, the position projections) the step scans what the stage made;
 * the first non-finite value names the stage and the body or particle (FEM
 * nodes with their mesh), the step stops and mo_world_step rolls the world
 * back to the state before the step (step.c). One pass over the DOFs or the
 * live objects: O(n), small beside the stage it follows. */
#include <math.h>
#include <stdio.h>
#include "step/step.h"

/* "body 3" or "particle 7 (a node of FEM mesh 2)": the object of DOF owner o */
static void owner_name(const mo_world *w, int o, char *out, size_t n)
{
    const int *ref = (const int *)w->owner_ref.p;
    if (ref[o] >= 0) {
        snprintf(out, n, "body %d", ref[o] + 1);
        return;
    }
    const int slot = -ref[o] - 1;
    const mo_particle *p = &w->particles[slot];
    if (p->fem_mesh)
        snprintf(out, n, "particle %d (a node of FEM mesh %d)", slot + 1, p->fem_mesh);
    else
        snprintf(out, n, "particle %d", slot + 1);
}

int mo_guard_dofs(mo_world *w, const double *v, const char *stage, const char *what)
{
    const int *dof = (const int *)w->owner_dof.p, *nd = (const int *)w->owner_ndof.p;
    for (int o = 0; o < w->nowners; o++) {
        const double *x = v + dof[o];
        bool bad = false;
        for (int k = 0; k < nd[o]; k++) bad |= !isfinite(x[k]);
        if (!bad) continue;
        char name[96];
        owner_name(w, o, name, sizeof name);
        if (nd[o] == 6)
            mo_set_error(w,
                         "mo_world_step: step %llu: the %s gave %s a non-finite %s: linear (%g, %g, %g), angular "
                         "(%g, %g, %g); the world is as before the step",
                         (unsigned long long)w->step_index, stage, name, what, x[0], x[1], x[2], x[3], x[4], x[5]);
        else
            mo_set_error(w, "mo_world_step: step %llu: the %s gave %s a non-finite %s (%g, %g, %g); the world is as "
                            "before the step",
                         (unsigned long long)w->step_index, stage, name, what, x[0], x[1], x[2]);
        return MO_STEP_NOT_FINITE;
    }
    return 0;
}

int mo_guard_poses(mo_world *w, const char *stage)
{
    for (int i = 0; i < w->body_count; i++) {
        const mo_body *b = &w->bodies[i];
        if (!b->alive) continue;
        const double *x = b->k.x, *q = b->k.q;
        bool ok = true;
        for (int k = 0; k < 3; k++) ok &= isfinite(x[k]) && isfinite(b->k.v[k]) && isfinite(b->k.w[k]);
        for (int k = 0; k < 4; k++) ok &= isfinite(q[k]);
        ok &= q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 0.5; /* a unit quaternion, renormalised */
        if (ok) continue;
        mo_set_error(w,
                     "mo_world_step: step %llu: the %s gave body %d a non-finite pose: position (%g, %g, %g), "
                     "orientation (%g, %g, %g, %g); the world is as before the step",
                     (unsigned long long)w->step_index, stage, i + 1, x[0], x[1], x[2], q[0], q[1], q[2], q[3]);
        return MO_STEP_NOT_FINITE;
    }
    for (int i = 0; i < w->particle_count; i++) {
        const mo_particle *p = &w->particles[i];
        if (!p->alive) continue;
        bool ok = true;
        for (int k = 0; k < 3; k++) ok &= isfinite(p->x[k]) && isfinite(p->v[k]);
        if (ok) continue;
        char name[96];
        if (p->fem_mesh)
            snprintf(name, sizeof name, "particle %d (a node of FEM mesh %d)", i + 1, p->fem_mesh);
        else
            snprintf(name, sizeof name, "particle %d", i + 1);
        mo_set_error(w, "mo_world_step: step %llu: the %s gave %s a non-finite position (%g, %g, %g); the world is "
                        "as before the step",
                     (unsigned long long)w->step_index, stage, name, p->x[0], p->x[1], p->x[2]);
        return MO_STEP_NOT_FINITE;
    }
    return 0;
}

/* every live articulation's q and qdot finite (step/artic_step.c) */
int mo_guard_artic(mo_world *w, const char *stage)
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        for (int k = 0; k < a->m->nq; k++)
            if (!isfinite(a->q[k])) {
                int link = 0;
                while (link + 1 < a->m->nlink && a->m->links[link + 1].q_ofs <= k) link++;
                mo_set_error(w, "mo_world_step: step %llu: the %s gave articulation %d a non-finite q[%d] (%g) (link "
                                "%d); the world is as before the step", (unsigned long long)w->step_index, stage,
                             i + 1, k, a->q[k], link);
                return MO_STEP_NOT_FINITE;
            }
        for (int k = 0; k < a->m->nv; k++)
            if (!isfinite(a->v[k])) {
                mo_set_error(w, "mo_world_step: step %llu: the %s gave articulation %d a non-finite qdot[%d] (%g) (link "
                                "%d); the world is as before the step", (unsigned long long)w->step_index, stage,
                             i + 1, k, a->v[k], a->m->dof_link[k]);
                return MO_STEP_NOT_FINITE;
            }
    }
    return 0;
}
