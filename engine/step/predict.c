/* predict.c: stage 1. Numbers the DOF owners (awake dynamic bodies in slot
 * order, then particles; the articulations' dofs after theirs), records the start velocity v and computes the
 * unconstrained velocity v~ (gravity, applied forces, implicit gyroscopic
 * term: kernels/dynamics.h). */
#include <string.h>
#include "step/step.h"
#include "core/parallel.h"

#define RESERVE(buf, n, T) (mo_buf_reserve(&(buf), (size_t)(n) * sizeof(T)))

int mo_step_predict(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    int nown = 0, ndof = 0;
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        b->owner = (b->alive && b->type == MO_BODY_DYNAMIC && !b->sleep_island) ? nown++ : -1; /* sleeping: none */
    }
    int nbody_own = nown;
    for (int i = 0; i < w->particle_count; i++) {
        mo_particle *p = &w->particles[i];
        p->owner = p->alive ? nown++ : -1;
    }
    if (RESERVE(w->owner_dof, nown, int) || RESERVE(w->owner_ndof, nown, int) ||
        RESERVE(w->owner_inv_mass, nown, double) || RESERVE(w->owner_inv_I, 9 * nown, double) ||
        RESERVE(w->owner_ref, nown, int))
        return -1;
    int *dof = (int *)w->owner_dof.p, *nd = (int *)w->owner_ndof.p, *ref = (int *)w->owner_ref.p;
    double *im = (double *)w->owner_inv_mass.p;
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        if (b->owner < 0) continue;
        dof[b->owner] = ndof;
        nd[b->owner] = 6;
        ref[b->owner] = i;
        im[b->owner] = b->k.inv_mass;
        ndof += 6;
    }
    for (int i = 0; i < w->particle_count; i++) {
        mo_particle *p = &w->particles[i];
        if (p->owner < 0) continue;
        dof[p->owner] = ndof;
        nd[p->owner] = 3;
        ref[p->owner] = -(i + 1);
        im[p->owner] = p->inv_mass;
        ndof += 3;
    }
    w->nowners = nown;
    /* the live articulations' dofs follow the owners' (their v~ and start velocity: artic_step.c) */
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        a->dof0 = ndof;
        a->touched = 0;
        ndof += a->m->nv;
    }
    if (RESERVE(w->v, ndof, double) || RESERVE(w->v_tilde, ndof, double) || RESERVE(w->v_start, ndof, double))
        return -1;

    double *vs = (double *)w->v_start.p, *vt = (double *)w->v_tilde.p, *iI = (double *)w->owner_inv_I.p;
    double h = ctx->h, g[3] = {w->def.gravity.x, w->def.gravity.y, w->def.gravity.z};
    const int nt = w->def.threads;
    MO_PARALLEL_LOOP(nt, nown, for (int o = 0; o < nown; o++) {
        double *s = vs + dof[o], *t = vt + dof[o];
        if (o < nbody_own) {
            mo_body *b = &w->bodies[ref[o]];
            mo_v3_copy(s, b->k.v);
            mo_v3_copy(s + 3, b->k.w);
            mo_k_predict_body_ex(&b->k, g, h, t, t + 3, b->k.wrot);
            mo_k_world_inv_inertia(iI + 9 * o, b->k.q, b->k.inv_I_body);
        } else {
            mo_particle *p = &w->particles[-ref[o] - 1];
            mo_v3_copy(s, p->v);
            for (int k = 0; k < 3; k++) t[k] = p->v[k] + h * (g[k] + p->inv_mass * p->f[k]);
            for (int k = 0; k < 9; k++) iI[9 * o + k] = 0.0;
        }
    });
    w->stats.dofs = ndof;
    return 0;
}
