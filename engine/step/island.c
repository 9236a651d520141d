/* island.c: after a whole step, the islands of the awake dynamic bodies and
 * their sleep (moreau/sleep.h, docs/sleeping.md). Union-find over the body
 * slots: two awake dynamic bodies are in one island when a contact of the
 * last (sub)step or a joint joins them; static and kinematic bodies join no
 * island. An island stays awake (flag KEEP) when one of its bodies may not
 * sleep, touches a particle, a link body or a moving kinematic body, or is
 * joined to a kinematic or link body. Each body's rest time grows by the
 * step while its speeds stay under the thresholds and restarts otherwise; an
 * island whose smallest rest time reached sleep_time falls asleep: velocities
 * and forces zeroed, sleep_island = 1 + its smallest slot (the union keeps the
 * smaller root, so the root is that slot). Serial and in slot order: the same
 * for any thread count. Worlds with FEM meshes never sleep (their nodes and
 * attachments join no island). */
#include <math.h>
#include <string.h>
#include "step/step.h"

#define KEEP 1

static int find(int *p, int i)
{
    while (p[i] != i) {
        p[i] = p[p[i]]; /* path halving */
        i = p[i];
    }
    return i;
}

static void unite(int *p, int a, int b)
{
    a = find(p, a);
    b = find(p, b);
    if (a < b) p[b] = a;
    else if (b < a) p[a] = b;
}

/* an awake dynamic body */
static bool awake_dyn(const mo_body *b) { return b && b->type == MO_BODY_DYNAMIC && !b->sleep_island; }

/* a body that moves by itself: a link body, or a kinematic one with a velocity or moved by the API */
static bool mover(const mo_body *b)
{
    if (b->artic) return true;
    if (b->type != MO_BODY_KINEMATIC) return false;
    return b->moved || b->k.v[0] != 0.0 || b->k.v[1] != 0.0 || b->k.v[2] != 0.0 || b->k.w[0] != 0.0 ||
           b->k.w[1] != 0.0 || b->k.w[2] != 0.0;
}

/* the statistics' counts: awake and sleeping dynamic bodies, islands (par NULL: every awake body its own) */
static void count(mo_world *w, int *par)
{
    int awake = 0, asleep = 0, islands = 0;
    for (int i = 0; i < w->body_count; i++) {
        const mo_body *b = &w->bodies[i];
        if (!b->alive || b->type != MO_BODY_DYNAMIC) continue;
        if (b->sleep_island) {
            asleep++;
            islands += b->sleep_island == i + 1;
        } else {
            awake++;
            islands += !par || find(par, i) == i;
        }
    }
    w->stats.awake_bodies = awake;
    w->stats.sleeping_bodies = asleep;
    w->stats.islands = islands;
}

int mo_step_islands(mo_world *w, double dt)
{
    const int n = w->body_count;
    for (int i = 0; i < n; i++) w->bodies[i].moved = false; /* read by this step's collide and below: done after */
    if (mo_buf_reserve(&w->isl_parent, (size_t)(n + 1) * sizeof(int)) ||
        mo_buf_reserve(&w->isl_rest, (size_t)(n + 1) * sizeof(double)) || mo_buf_reserve(&w->isl_flag, (size_t)n + 1)) {
        count(w, NULL);
        return -1;
    }
    int *par = (int *)w->isl_parent.p;
    double *rest = (double *)w->isl_rest.p;
    unsigned char *fl = (unsigned char *)w->isl_flag.p;
    const bool on = w->def.sleep && !(w->fem && mo_fem_live_meshes(w) > 0);
    for (int i = 0; i < n; i++) {
        par[i] = i;
        fl[i] = 0;
        rest[i] = INFINITY;
    }
    /* contacts of the last (sub)step: awake with awake joins, with a mover or a particle keeps awake */
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int c = 0; c < w->ncontacts; c++) {
        const int a = ct[c].body_a, b = ct[c].body_b;
        const mo_body *ba = a >= 0 ? &w->bodies[a] : NULL, *bb = b >= 0 ? &w->bodies[b] : NULL;
        const bool da = awake_dyn(ba), db = awake_dyn(bb);
        if (da && db) unite(par, a, b);
        else if (da) fl[a] |= (!bb || mover(bb)) ? KEEP : 0; /* no body: a particle */
        else if (db) fl[b] |= (!ba || mover(ba)) ? KEEP : 0;
    }
    /* joints: awake with awake joins, with a kinematic or link body keeps awake (the world, static: nothing) */
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        const mo_body *ba = j->a >= 0 ? &w->bodies[j->a] : NULL, *bb = &w->bodies[j->b];
        const bool da = awake_dyn(ba), db = awake_dyn(bb);
        if (da && db) unite(par, j->a, j->b);
        else if (da) fl[j->a] |= (bb->type == MO_BODY_KINEMATIC || bb->artic) ? KEEP : 0;
        else if (db) fl[j->b] |= (ba && (ba->type == MO_BODY_KINEMATIC || ba->artic)) ? KEEP : 0;
    }
    /* rest times, and per island (its root) the smallest one and the keep flag */
    const double lin = w->def.sleep_linear_velocity, ang = w->def.sleep_angular_velocity;
    for (int i = 0; i < n; i++) {
        mo_body *b = &w->bodies[i];
        if (!b->alive || !awake_dyn(b)) continue;
        const double v2 = mo_v3_dot(b->k.v, b->k.v), w2 = mo_v3_dot(b->k.w, b->k.w);
        if (on && !b->no_sleep && v2 < lin * lin && w2 < ang * ang) b->rest_time += dt;
        else b->rest_time = 0.0;
        if (b->no_sleep) fl[i] |= KEEP;
        const int r = find(par, i);
        if (b->rest_time < rest[r]) rest[r] = b->rest_time;
        fl[r] |= fl[i];
    }
    /* islands at rest long enough fall asleep */
    if (on) {
        for (int i = 0; i < n; i++) {
            mo_body *b = &w->bodies[i];
            if (!b->alive || !awake_dyn(b)) continue;
            const int r = find(par, i);
            if ((fl[r] & KEEP) || !(rest[r] > 0.0 && rest[r] >= w->def.sleep_time)) continue; /* > 0: at rest now */
            b->sleep_island = r + 1;
            mo_v3_set(b->k.v, 0, 0, 0);
            mo_v3_set(b->k.w, 0, 0, 0);
            mo_v3_set(b->k.f, 0, 0, 0);
            mo_v3_set(b->k.tau, 0, 0, 0);
        }
    }
    count(w, par);
    return 0;
}
