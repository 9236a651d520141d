/* artic_step.c: the articulations in the step (issue 19, phase 1). Two
 * stages beside the free bodies': in the prediction each live articulation's
 * new velocity v+ is solved in joint space (engine/artic/'s
 * mo_artic_step_implicit), with its drives and joint damping implicit; in the
 * integration q moves with it. v+ is the articulation's part of the
 * unconstrained velocity v~ of the contact problem (its dofs follow the
 * owners' in the DOF vector, predict.c); the contacts of its link bodies are
 * rows on those dofs (assemble.c) with W = (M + diag(a))^-1 J^T, the factor the
 * prediction left, so the solve's v = v~ + W^T gamma is the velocity of the
 * same implicit step under the contact impulses. The integration takes v from
 * the solve's DOF vector. Forces applied to link bodies (mo_body_apply_force)
 * enter f as the joint forces J^T f of this step.
 *
 * The implicit terms. Per dof, joint damping D, a drive's stiffness Kp,
 * damping Kd, targets q*, v* and feed-forward torque ff, evaluated at the end
 * of the step (q + h v+, v+), with v+ = v + dv:
 *   tau_drive = ff - Kp (q + h v+ - q*) - Kd (v+ - v*),   tau_damp = -D v+,
 * which puts a = armature + h (D + Kd) + h^2 Kp on the diagonal of the factor
 * and f = tau + ff - Kp (q - q* + h v) - Kd (v - v*) - D v into the right-hand
 * side: backward Euler for these terms in both integrators, so that any gain
 * is stable and settles at any step (the midpoint rule alone would ring).
 * The effort limit: after the solve, a drive whose implicit torque exceeds its
 * max_effort is saturated for the step (its Kp, Kd and ff leave a and f, the
 * explicit torque sign(tau_drive) max_effort enters f) and the step is solved
 * again, until no further drive saturates (at most one pass per drive). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "step/step.h"
#include "moreau/articulation.h"

#define MIDPOINT_ITERS 30 /* moreau/articulation.h states it (mo_articulation_iterations) */

/* a and f of articulation a for a step of length h, saturated drives (sat[k] != 0) as the explicit torque sat[k] */
static void build(mo_artic_obj *a, double h)
{
    const int nv = a->m->nv;
    for (int k = 0; k < nv; k++) {
        double kp = a->kp[k], kd = a->kd[k], ff = a->ff[k];
        const mo_artic_link *l = &a->m->links[a->m->dof_link[k]];
        double f = a->tau[k] + a->text[k] - a->damping[k] * a->v[k];
        double diag = a->armature[k] + h * a->damping[k];
        if (a->sat[k] != 0.0) {
            f += a->sat[k];
        } else if (kp != 0.0 || kd != 0.0 || ff != 0.0) {
            const double qk = a->q[l->q_ofs]; /* drives sit on one-dof joints: q_ofs is the dof's coordinate */
            f += ff - kp * (qk - a->qt[k] + h * a->v[k]) - kd * (a->v[k] - a->vt[k]);
            diag += h * kd + h * h * kp;
        }
        a->diag[k] = diag;
        a->force[k] = f;
    }
}

/* the first drive whose implicit torque at v_new exceeds its effort (marked saturated), or -1 */
static int saturate(mo_artic_obj *a, double h)
{
    int found = -1;
    for (int k = 0; k < a->m->nv; k++) {
        if (a->sat[k] != 0.0 || !isfinite(a->effort[k])) continue;
        if (a->kp[k] == 0.0 && a->kd[k] == 0.0 && a->ff[k] == 0.0) continue;
        const mo_artic_link *l = &a->m->links[a->m->dof_link[k]];
        double t = a->ff[k] - a->kp[k] * (a->q[l->q_ofs] + h * a->v_new[k] - a->qt[k]) -
                   a->kd[k] * (a->v_new[k] - a->vt[k]);
        if (fabs(t) > a->effort[k]) {
            a->sat[k] = t > 0.0 ? a->effort[k] : -a->effort[k];
            found = k;
        }
    }
    return found;
}

/* a->text = the joint forces of the forces and torques applied to a's link bodies (at their origins): minus the
   bias forces at rest without gravity under those external forces (J^T f); 0, or -1 out of memory */
static int link_forces(mo_world *w, mo_artic_obj *a)
{
    const int nv = a->m->nv, nl = a->m->nlink;
    for (int k = 0; k < nv; k++) a->text[k] = 0.0;
    memset(a->fapp, 0, (size_t)(6 * nl) * sizeof(double));
    bool any = false;
    for (int l = 0; l < nl && !any; l++) {
        if (a->link_body[l] < 0) continue;
        const mo_body *b = &w->bodies[a->link_body[l]];
        any = b->k.f[0] != 0.0 || b->k.f[1] != 0.0 || b->k.f[2] != 0.0 || b->k.tau[0] != 0.0 || b->k.tau[1] != 0.0 ||
              b->k.tau[2] != 0.0;
    }
    if (!any) return 0;
    if (mo_buf_reserve(&w->artic_scratch, (size_t)(nv + 1) * sizeof(double))) return -1;
    double *fext = a->fapp, *c = (double *)w->artic_scratch.p; /* fapp: kept for mo_articulation_joint_wrench */
    for (int l = 0; l < nl; l++) {
        if (a->link_body[l] < 0) continue;
        const mo_body *b = &w->bodies[a->link_body[l]];
        mo_artic_point_force(b->k.x, b->k.f, fext + 6 * l);
        mo_v3_add(fext + 6 * l, fext + 6 * l, b->k.tau);
    }
    mo_artic_bias(a->m, a->qd, a->q, NULL, NULL, fext, c);
    for (int k = 0; k < nv; k++) a->text[k] = -c[k];
    return 0;
}

int mo_step_artic_predict(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    const double h = ctx->h, g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    double *vs = (double *)w->v_start.p, *vt = (double *)w->v_tilde.p;
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        const int nv = a->m->nv;
        if (link_forces(w, a)) return -1;
        for (int k = 0; k < nv; k++) a->sat[k] = 0.0;
        for (int pass = 0; pass <= nv; pass++) {
            char err[MO_ERR_LEN];
            build(a, h);
            mo_status st = mo_artic_step_implicit(a->m, a->d, a->integrator == MO_INTEGRATOR_MIDPOINT, a->q, a->v,
                                                  a->force, g, a->diag, h, MIDPOINT_ITERS, &a->last_iters, a->v_new,
                                                  err, sizeof err);
            if (st != MO_OK) {
                mo_set_error(w, "mo_world_step: step %llu: the prediction of articulation %d failed: %s; the world is "
                                "as before the step", (unsigned long long)w->step_index, i + 1, err);
                return MO_STEP_NOT_FINITE;
            }
            if (saturate(a, h) < 0) break;
        }
        memcpy(vs + a->dof0, a->v, (size_t)nv * sizeof(double));
        memcpy(vt + a->dof0, a->v_new, (size_t)nv * sizeof(double));
    }
    return 0;
}

void mo_step_artic_integrate(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    const double *vdof = (const double *)w->v.p;
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        const int nv = a->m->nv;
        memcpy(a->v_new, vdof + a->dof0, (size_t)nv * sizeof(double)); /* v~ plus the contacts' W^T gamma */
        /* Euler: q+ = q (+) h v+; midpoint: q+ = q (+) h (v + v+) / 2 (the force f is scratch now), except in a
           step where a contact, limit or friction row acts on it (a non-zero impulse): those rows hold v+ (a
           contact point's J v+ >= -gap / h), which the positions follow only when they move by h v+ (the midpoint
           rule moved a falling link 7 mm into the ground and a joint 14 mrad past its limit,
           tests/test_artic_contact.c) */
        double *vq = a->force;
        const bool mid = a->integrator == MO_INTEGRATOR_MIDPOINT && !a->touched;
        for (int k = 0; k < nv; k++) vq[k] = mid ? 0.5 * (a->v[k] + a->v_new[k]) : a->v_new[k];
        mo_artic_integrate(a->m, a->q, vq, ctx->h, a->q);
        for (int k = 0; k < nv; k++) a->acc[k] = (a->v_new[k] - a->v[k]) / ctx->h;
        a->acc_h = ctx->h;
        for (int k = 0; k < nv; k++) a->v[k] = a->v_new[k];
        mo_artic_sync_bodies(w, a);
    }
}
