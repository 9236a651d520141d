/* integrate.c: stage 5. Positions from the new velocity (kernels/dynamics.h:
 * quaternions renormalised) of the guarded (finite) velocity,
 * kinematic bodies moved, and the step's statistics. */
#include <math.h>
#include <string.h>
#include "step/step.h"
#include "core/parallel.h"

void mo_step_integrate(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    const int nt = w->def.threads;
    const double h = ctx->h;
    const int *dof = (const int *)w->owner_dof.p, *ref = (const int *)w->owner_ref.p;
    double *v = (double *)w->v.p;
    const uint8_t *ocon = (const uint8_t *)w->owner_constrained.p;
    int nown = w->nowners;
    /* v is finite: the step's guard checked it after the solve (guard.c) */
    MO_PARALLEL_LOOP(nt, nown, for (int o = 0; o < nown; o++) {
        const double *vo = v + dof[o];
        if (ref[o] >= 0) {
            mo_body *b = &w->bodies[ref[o]];
            mo_v3_copy(b->k.v, vo);
            mo_v3_copy(b->k.w, vo + 3);
            /* the midpoint rotation correction only for bodies no constraint row
             * touched: the solver constrains w+, and turning a jointed body by
             * h (w+ + wrot) would move it off its joint (axis error 1e-3 rad
             * on a tumbling hinge, tests/test_joints.c) */
            static const double zero[3] = {0.0, 0.0, 0.0};
            mo_k_integrate_body(b->k.x, b->k.q, b->k.v, b->k.w, ocon[o] ? zero : b->k.wrot, h);
            mo_v3_set(b->k.f, 0, 0, 0);
            mo_v3_set(b->k.tau, 0, 0, 0);
        } else {
            mo_particle *p = &w->particles[-ref[o] - 1];
            mo_v3_copy(p->v, vo);
            mo_v3_axpy(p->x, h, p->v);
            mo_v3_set(p->f, 0, 0, 0);
        }
    });
    /* kinematic bodies follow their velocity */
    int nb = 0;
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        if (!b->alive) continue;
        nb++;
        if (b->type == MO_BODY_KINEMATIC) mo_k_integrate_pose(b->k.x, b->k.q, b->k.v, b->k.w, h);
        if (b->type != MO_BODY_DYNAMIC) {
            mo_v3_set(b->k.f, 0, 0, 0);
            mo_v3_set(b->k.tau, 0, 0, 0);
        }
    }
    /* statistics */
    double maxj = 0.0;
    int nj = 0, np = 0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        nj++;
        double e = mo_joint_position_error(w, j);
        if (e > maxj) maxj = e;
    }
    for (int i = 0; i < w->particle_count; i++) np += w->particles[i].alive;
    w->stats.bodies = nb;
    w->stats.joints = nj;
    w->stats.particles = np;
    w->stats.max_joint_error = maxj;
}
