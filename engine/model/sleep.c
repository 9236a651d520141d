/* sleep.c: sleeping bodies in the model (moreau/sleep.h): waking an island,
 * the calls that wake one, and the public queries. Islands are found and put
 * to sleep by the step (step/island.c); a sleeping island is the set of bodies
 * with the same sleep_island (1 + its smallest body slot), so waking one is a
 * walk over the body slots (waking is rare; sleeping islands keep no lists). */
#include "model/world.h"
#include "moreau/sleep.h"

/* wakes the bodies of island id (their velocities are zero already) */
static void wake_id(mo_world *w, int id)
{
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        if (b->alive && b->sleep_island == id) {
            b->sleep_island = 0;
            b->rest_time = 0.0;
        }
    }
}

void mo_sleep_wake_island(mo_world *w, int s)
{
    if (s >= 0 && s < w->body_count && w->bodies[s].sleep_island) wake_id(w, w->bodies[s].sleep_island);
}

void mo_sleep_wake_all(mo_world *w)
{
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        if (b->sleep_island) b->rest_time = 0.0;
        b->sleep_island = 0;
    }
}

void mo_sleep_touch(mo_world *w, int s)
{
    if (s < 0 || s >= w->body_count) return;
    mo_body *b = &w->bodies[s];
    if (b->type == MO_BODY_DYNAMIC) {
        mo_sleep_wake_island(w, s);
        b->rest_time = 0.0;
    } else if (b->type == MO_BODY_KINEMATIC) {
        b->moved = true;
    }
}

/* the body of id, or NULL with the stale-id sentence of every body call */
static mo_body *live_body(const mo_world *w, mo_body_id id)
{
    mo_body *b = mo_body_get(w, id);
    if (!b)
        mo_set_error(w, "body id (index %u, generation %u) %s", id.index, id.generation,
                     mo_id_fault(w, id.generation, "does not name a live body"));
    return b;
}

mo_status mo_body_is_sleeping(const mo_world *w, mo_body_id id, bool *out)
{
    MO_NEED_W(w);
    MO_NEED(w, out, "out");
    *out = false;
    const mo_body *b = live_body(w, id);
    if (!b) return MO_ERR_STALE_ID;
    *out = b->sleep_island != 0;
    return MO_OK;
}

mo_status mo_body_wake(mo_world *w, mo_body_id id)
{
    MO_NEED_W(w);
    mo_body *b = live_body(w, id);
    if (!b) return MO_ERR_STALE_ID;
    mo_sleep_wake_island(w, (int)id.index - 1);
    b->rest_time = 0.0;
    return MO_OK;
}

mo_status mo_body_set_sleep_allowed(mo_world *w, mo_body_id id, bool allowed)
{
    MO_NEED_W(w);
    mo_body *b = live_body(w, id);
    if (!b) return MO_ERR_STALE_ID;
    b->no_sleep = !allowed;
    if (!allowed) mo_sleep_wake_island(w, (int)id.index - 1);
    return MO_OK;
}
