/* contact.c: the last step's contacts read back (mo_world_contacts) and each
 * body's total contact force and torque (mo_body_contact_force). Read-only:
 * the step writes the contact list (step/collide.c, solve.c, newton.c) and the
 * FEM surface contacts (step/fem_contacts.c); nothing here changes a step. */
#include <string.h>
#include "model/world.h"
#include "model/fem.h"

/* the contact's force on B, world, N: (n i_n + t1 i_t1 + t2 i_t2) / h; zero before a solve wrote it */
static void contact_force(const mo_contact_int *c, double *f)
{
    f[0] = f[1] = f[2] = 0.0;
    if (!(c->h > 0.0)) return;
    mo_v3_axpy(f, c->impulse[0] / c->h, c->n);
    mo_v3_axpy(f, c->impulse[1] / c->h, c->t1);
    mo_v3_axpy(f, c->impulse[2] / c->h, c->t2);
}

static mo_vec3 vec(const double *v) { return (mo_vec3){v[0], v[1], v[2]}; }

int mo_world_contacts(const mo_world *w, mo_contact *out, int cap)
{
    if (!w) return 0;
    const mo_contact_int *c = (const mo_contact_int *)w->contacts.p;
    for (int i = 0; out && i < w->ncontacts && i < cap; i++) {
        mo_contact *o = &out[i];
        memset(o, 0, sizeof *o);
        if (c[i].body_a >= 0)
            o->body_a = (mo_body_id){(uint32_t)c[i].body_a + 1, w->bodies[c[i].body_a].generation};
        if (c[i].body_b >= 0)
            o->body_b = (mo_body_id){(uint32_t)c[i].body_b + 1, w->bodies[c[i].body_b].generation};
        if (c[i].shape_a >= 0)
            o->shape_a = (mo_shape_id){(uint32_t)c[i].shape_a + 1, w->shapes[c[i].shape_a].generation};
        if (c[i].shape_b >= 0)
            o->shape_b = (mo_shape_id){(uint32_t)c[i].shape_b + 1, w->shapes[c[i].shape_b].generation};
        if (c[i].particle >= 0)
            o->particle = (mo_particle_id){(uint32_t)c[i].particle + 1, w->particles[c[i].particle].generation};
        o->point = (mo_vec3){0.5 * (c[i].pa[0] + c[i].pb[0]), 0.5 * (c[i].pa[1] + c[i].pb[1]),
                             0.5 * (c[i].pa[2] + c[i].pb[2])};
        o->normal = vec(c[i].n);
        o->gap = c[i].gap;
        o->friction = c[i].mu;
        o->impulse = vec(c[i].impulse);
        o->tangent1 = vec(c[i].t1);
        o->tangent2 = vec(c[i].t2);
        double f[3];
        contact_force(&c[i], f);
        o->force = vec(f);
        o->key = c[i].key;
    }
    return w->ncontacts;
}

mo_status mo_body_contact_force(const mo_world *w, mo_body_id body, mo_vec3 *force, mo_vec3 *torque)
{
    MO_NEED_W(w);
    if (!mo_body_get(w, body)) {
        mo_set_error(w, "body id (index %u, generation %u) %s", body.index, body.generation,
                     mo_id_fault(w, body.generation, "does not name a live body"));
        return MO_ERR_STALE_ID;
    }
    const int slot = (int)body.index - 1;
    double fs[3] = {0, 0, 0}, ts[3] = {0, 0, 0}, f[3], t[3];
    /* the contact list: B gets +f at rb, A gets -f at ra (a particle's contact has no body B) */
    const mo_contact_int *c = (const mo_contact_int *)w->contacts.p;
    for (int i = 0; i < w->ncontacts; i++) {
        const bool is_a = c[i].body_a == slot, is_b = c[i].particle < 0 && c[i].body_b == slot;
        if (!is_a && !is_b) continue;
        contact_force(&c[i], f);
        if (is_b) {
            mo_v3_axpy(fs, 1.0, f);
            mo_v3_cross(t, c[i].rb, f);
            mo_v3_axpy(ts, 1.0, t);
        }
        if (is_a) {
            mo_v3_axpy(fs, -1.0, f);
            mo_v3_cross(t, c[i].ra, f);
            mo_v3_axpy(ts, -1.0, t);
        }
    }
    /* FEM surface contacts (forces in N, on the body): the lever arm is the Newton rows' r+, the body
       frame point r (a sphere's or capsule's core point) carried by the current pose */
    const fem_ext *fx = (const fem_ext *)w->fem;
    const mo_body *B = &w->bodies[slot];
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        if (k->body != slot) continue;
        f[0] = f[1] = f[2] = 0.0;
        mo_v3_axpy(f, k->lam[0], k->n);
        mo_v3_axpy(f, k->lam[1], k->t1);
        mo_v3_axpy(f, k->lam[2], k->t2);
        double r[3];
        mo_q_rotate(r, B->k.q, k->r);
        mo_v3_cross(t, r, f);
        mo_v3_axpy(fs, 1.0, f);
        mo_v3_axpy(ts, 1.0, t);
    }
    if (force) *force = vec(fs);
    if (torque) *torque = vec(ts);
    return MO_OK;
}
