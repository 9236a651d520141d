/* artic_links.c: link bodies (mo_articulation_link_body) and their collision
 * group (mo_articulation_set_collision_group). A link body is a
 * kinematic body of the world that carries a link's collision shapes: the
 * collide stage sees it as any moving body, its pose and velocity are the
 * link's (set here after every step and every write of the articulation's
 * state), and the assemble stage turns its contacts into rows on the
 * articulation's dofs (step/assemble.c). */
#include <stdio.h>
#include <string.h>
#include "model/world.h"
#include "moreau/articulation.h"

/* the link's body slot's pose and velocity from the query workspace's x0 and vel (mo_artic_velocities) */
static void set_from_link(mo_world *w, const mo_artic_obj *a, int link)
{
    mo_body *b = &w->bodies[a->link_body[link]];
    const mo_sxform *X = &a->qd->x0[link];
    double R[9];
    mo_m3_transpose(R, X->E);
    mo_quat q = mo_artic_quat_of(R);
    mo_v3_copy(b->k.x, X->r);
    b->k.q[0] = q.w; b->k.q[1] = q.x; b->k.q[2] = q.y; b->k.q[3] = q.z;
    mo_m3_tmulv(b->k.w, X->E, a->qd->vel + 6 * link);
    mo_m3_tmulv(b->k.v, X->E, a->qd->vel + 6 * link + 3);
}

void mo_artic_sync_bodies(mo_world *w, mo_artic_obj *a)
{
    if (a->nlink_bodies == 0) return;
    mo_artic_velocities(a->m, a->qd, a->q, a->v, NULL);
    for (int i = 0; i < a->m->nlink; i++)
        if (a->link_body[i] >= 0) set_from_link(w, a, i);
    w->q_synced = 0; /* the world queries' trees hold the old poses */
}

void mo_artic_destroy_bodies(mo_world *w, mo_artic_obj *a)
{
    for (int i = 0; i < a->m->nlink; i++) {
        int s = a->link_body[i];
        if (s < 0) continue;
        mo_body *b = &w->bodies[s];
        b->artic = 0; /* an ordinary body now: mo_body_destroy takes it */
        (void)mo_body_destroy(w, (mo_body_id){(uint32_t)s + 1, b->generation});
        a->link_body[i] = -1;
    }
    a->nlink_bodies = 0;
}

int mo_link_body_refuse(const mo_world *w, int s, const char *fn, const char *what)
{
    const mo_body *b = &w->bodies[s];
    if (!b->artic) return 0;
    const mo_artic_obj *a = &w->artics[b->artic - 1];
    const char *name = a->m->links[b->link].name;
    char link[MO_ARTIC_NAME_LEN + 32];
    if (name[0]) snprintf(link, sizeof link, "link %d (\"%s\")", b->link, name);
    else snprintf(link, sizeof link, "link %d", b->link);
    mo_set_error(w, "%s: body %d is %s of articulation %d: %s", fn, s + 1, link, b->artic, what);
    return 1;
}

/* the slot of the live articulation id names, or -1 with the stale-id sentence */
static int live(const mo_world *w, mo_articulation_id id, const char *fn)
{
    if (!mo_articulation_is_valid(w, id)) {
        mo_set_error(w, "%s: articulation id (index %u, generation %u) %s", fn, id.index, id.generation,
                     mo_id_fault(w, id.generation, "does not name a live articulation"));
        return -1;
    }
    return (int)id.index - 1;
}

/* the group goes on the link bodies made and on those made later (mo_articulation_link_body); the collide stage reads
   a body's group at every step (mo_shape_object), so the broadphase drops their pairs from the next step on */
mo_status mo_articulation_set_collision_group(mo_world *w, mo_articulation_id id, uint32_t group)
{
    MO_NEED_W(w);
    const int slot = live(w, id, __func__);
    if (slot < 0) return MO_ERR_STALE_ID;
    mo_artic_obj *a = &w->artics[slot];
    a->group = group;
    for (int i = 0; i < a->m->nlink; i++)
        if (a->link_body[i] >= 0) w->bodies[a->link_body[i]].group = group;
    return MO_OK;
}

mo_status mo_articulation_collision_group(const mo_world *w, mo_articulation_id id, uint32_t *out)
{
    MO_NEED_W(w);
    MO_NEED(w, out, "out");
    const int slot = live(w, id, __func__);
    if (slot < 0) return MO_ERR_STALE_ID;
    *out = w->artics[slot].group;
    return MO_OK;
}

mo_status mo_articulation_link_body(mo_world *w, mo_articulation_id id, int link, mo_body_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_body_id){0, 0};
    MO_NEED(w, out, "out");
    const int slot = live(w, id, __func__);
    if (slot < 0) return MO_ERR_STALE_ID;
    mo_artic_obj *a = &w->artics[slot];
    if (link < 0 || link >= a->m->nlink) {
        mo_set_error(w, "%s: articulation %u has no link %d (links 0 to %d)", __func__, id.index, link,
                     a->m->nlink - 1);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (a->link_body[link] < 0) {
        mo_body_def d = mo_default_body_def();
        d.type = MO_BODY_KINEMATIC;
        d.collision_group = a->group;
        mo_body_id b;
        mo_status st = mo_body_create(w, &d, &b);
        if (st != MO_OK) { /* the body's own sentence otherwise */
            if (st == MO_ERR_OUT_OF_MEMORY) mo_set_error(w, "%s: out of memory", __func__);
            return st;
        }
        a = &w->artics[slot]; /* the body pool may have moved; the articulation pool did not, but be plain */
        int bs = (int)b.index - 1;
        w->bodies[bs].artic = slot + 1;
        w->bodies[bs].link = link;
        a->link_body[link] = bs;
        a->nlink_bodies++;
        mo_artic_velocities(a->m, a->qd, a->q, a->v, NULL);
        set_from_link(w, a, link);
        w->q_synced = 0;
    }
    *out = (mo_body_id){(uint32_t)a->link_body[link] + 1, w->bodies[a->link_body[link]].generation};
    return MO_OK;
}
