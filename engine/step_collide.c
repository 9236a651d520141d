/* step_collide.c: stage 2. Collision objects from bodies' shapes and from
 * particles (as spheres of their radius), broadphase (collision/broad_tree.c,
 * with static/kinematic pairs, same-group pairs, particle pairs and bodies
 * joined by a joint filtered out), narrowphase per pair in parallel, then the
 * contact list with tangent bases and warm-start impulses looked up by
 * feature key in the previous step's cache. Objects are shapes (a compound
 * body has several) and particles; keys and filters use shape slots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "parallel.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t pair_key(int a, int b)
{
    if (a > b) { int t = a; a = b; b = t; }
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

typedef struct filter_ctx {
    const mo_world *w;
    const mo_cl_object *objs;
} filter_ctx;

static int pair_filter(void *ctx, int a, int b)
{
    filter_ctx *f = (filter_ctx *)ctx;
    int ua = f->objs[a].user, ub = f->objs[b].user;
    if (ua < 0 && ub < 0) return 0; /* particle / particle: no self collision yet */
    if (ua < 0 || ub < 0) return 1;
    const mo_world *w = f->w;
    const mo_shape *sa = &w->shapes[ua], *sb = &w->shapes[ub];
    if (sa->body == sb->body) return 0; /* a compound body's own shapes */
    if (!(sa->category & sb->mask) || !(sb->category & sa->mask)) return 0;
    const mo_body *ba = &w->bodies[sa->body], *bb = &w->bodies[sb->body];
    if (ba->njoints == 0 || bb->njoints == 0 || w->njoint_pairs == 0) return 1;
    uint64_t k = pair_key(sa->body, sb->body);
    return bsearch(&k, w->joint_pairs.p, (size_t)w->njoint_pairs, sizeof(uint64_t), cmp_u64) == NULL;
}

/* sorted keys of body pairs that must not collide because a joint joins them */
static int build_joint_filter(mo_world *w)
{
    if (mo_buf_reserve(&w->joint_pairs, (size_t)(w->joint_count + 1) * sizeof(uint64_t))) return -1;
    uint64_t *k = (uint64_t *)w->joint_pairs.p;
    int n = 0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive || j->collide_connected || j->a < 0) continue;
        k[n++] = pair_key(j->a, j->b);
    }
    qsort(k, (size_t)n, sizeof(uint64_t), cmp_u64);
    w->njoint_pairs = n;
    return 0;
}

static int cmp_cache(const void *a, const void *b)
{
    uint64_t x = ((const mo_contact_cache *)a)->key, y = ((const mo_contact_cache *)b)->key;
    return x < y ? -1 : x > y;
}

/* contact velocity of a body at world point p */
static void point_velocity(const mo_world *w, int slot, const double *p, double *out)
{
    if (slot < 0) { mo_v3_set(out, 0, 0, 0); return; }
    const mo_body *b = &w->bodies[slot];
    double r[3], c[3];
    mo_v3_sub(r, p, b->k.x);
    mo_v3_cross(c, b->k.w, r);
    mo_v3_add(out, b->k.v, c);
}

/* The previous contact to warm start c from: the same key (same objects and
 * features), else the nearest previous contact of the same object pair within
 * max(2 margin, 2 cm): features of coincident corners (equal boxes stacked)
 * flip between steps, points do not. Keys sort by pair first, so a pair's
 * contacts are contiguous. */
static const mo_contact_cache *cache_find(const mo_contact_cache *cache, int n, const mo_contact_int *c, double margin)
{
    uint64_t pair = c->key >> 22, lo_key = pair << 22;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cache[mid].key < lo_key) lo = mid + 1;
        else hi = mid;
    }
    double pm[3] = {0.5 * (c->pa[0] + c->pb[0]), 0.5 * (c->pa[1] + c->pb[1]), 0.5 * (c->pa[2] + c->pb[2])};
    double tol = 2.0 * margin > 0.02 ? 2.0 * margin : 0.02, best = tol * tol;
    const mo_contact_cache *found = NULL;
    for (int i = lo; i < n && (cache[i].key >> 22) == pair; i++) {
        if (cache[i].key == c->key) return &cache[i];
        double d[3];
        mo_v3_sub(d, cache[i].point, pm);
        double d2 = mo_v3_dot(d, d);
        if (d2 < best) {
            best = d2;
            found = &cache[i];
        }
    }
    return found;
}

int mo_step_collide(mo_world *w)
{
    /* objects: one per shape, one per particle */
    int nobj = 0;
    for (int i = 0; i < w->shape_count; i++)
        if (w->shapes[i].alive) nobj++;
    for (int i = 0; i < w->particle_count; i++)
        if (w->particles[i].alive) nobj++;
    if (mo_buf_reserve(&w->cl_objs, (size_t)(nobj + 1) * sizeof(mo_cl_object))) return -1;
    mo_cl_object *objs = (mo_cl_object *)w->cl_objs.p;
    double h = w->def.time_step, margin = w->def.contact_margin;
    int n = 0;
    for (int i = 0; i < w->shape_count; i++)
        if (w->shapes[i].alive) mo_shape_object(w, i, &objs[n++]);
    for (int i = 0; i < w->particle_count; i++) {
        const mo_particle *p = &w->particles[i];
        if (!p->alive) continue;
        mo_cl_object *o = &objs[n++];
        memset(o, 0, sizeof *o);
        o->type = MO_CL_SPHERE;
        o->radius = p->radius;
        mo_v3_copy(o->pos, p->x);
        o->rot[0] = o->rot[4] = o->rot[8] = 1.0;
        o->user = -(i + 1);
    }
    w->ncl = n;
    /* this step's motion of each object, for the broadphase's fat boxes */
    if (mo_buf_reserve(&w->cl_disp, (size_t)(3 * n + 3) * sizeof(double))) return -1;
    double *disp = (double *)w->cl_disp.p;
    const int nt = w->def.threads;
    MO_PARALLEL_FOR(nt)
    for (int i = 0; i < n; i++) {
        const mo_cl_object *o = &objs[i];
        double vel[3];
        if (o->user >= 0) {
            const mo_body *b = &w->bodies[w->shapes[o->user].body];
            double r[3];
            mo_v3_sub(r, o->pos, b->k.x);
            mo_v3_cross(vel, b->k.w, r);
            mo_v3_add(vel, vel, b->k.v);
        } else {
            mo_v3_copy(vel, w->particles[-o->user - 1].v);
        }
        mo_v3_scale(disp + 3 * i, vel, 4.0 * h); /* fat boxes cover 4 steps of motion: fewer re-insertions */
    }

    /* broadphase: dynamic AABB trees, updated incrementally (collision/broad_tree.c) */
    if (build_joint_filter(w)) return -1;
    filter_ctx fc = {w, objs};
    if (mo_cl_bp_update_pairs(w->bp, objs, n, disp, margin, pair_filter, &fc, &w->pairs)) return -1;
    int npairs = w->pairs.count;
    w->stats.pairs = npairs;

    /* narrowphase: each pair writes its own MO_CL_MAX_POINTS slots */
    if (mo_buf_reserve(&w->cl_contacts, (size_t)(npairs * MO_CL_MAX_POINTS + 1) * sizeof(mo_cl_contact))) return -1;
    mo_cl_contact *cc = (mo_cl_contact *)w->cl_contacts.p;
    int *counts = NULL;
    if (mo_buf_reserve(&w->scratch, (size_t)(npairs + 1) * sizeof(int))) return -1;
    counts = (int *)w->scratch.p;
    int (*pairs)[2] = w->pairs.pairs;
    MO_PARALLEL_FOR(nt)
    for (int k = 0; k < npairs; k++) {
        int a = pairs[k][0], b = pairs[k][1];
        if (objs[a].type == MO_CL_MESH || objs[b].type == MO_CL_MESH)
            counts[k] = mo_cl_collide_mesh(&objs[a], a, &objs[b], b, margin, cc + (size_t)k * MO_CL_MAX_POINTS);
        else
            counts[k] = mo_cl_collide(&objs[a], a, &objs[b], b, margin, cc + (size_t)k * MO_CL_MAX_POINTS);
    }
    int nc = 0;
    for (int k = 0; k < npairs; k++) nc += counts[k];

    /* contacts */
    if (mo_buf_reserve(&w->contacts, (size_t)(nc + 1) * sizeof(mo_contact_int))) return -1;
    mo_contact_int *ct = (mo_contact_int *)w->contacts.p;
    const mo_contact_cache *cache = (const mo_contact_cache *)w->cache.p;
    bool warm = w->def.solver.warm_start;
    double maxpen = 0.0;
    int c = 0;
    for (int k = 0; k < npairs; k++) {
        for (int q = 0; q < counts[k]; q++) {
            const mo_cl_contact *s = &cc[(size_t)k * MO_CL_MAX_POINTS + q];
            const mo_cl_object *oa = &objs[s->a], *ob = &objs[s->b];
            mo_contact_int *t = &ct[c++];
            t->shape_a = oa->user >= 0 ? oa->user : -1;
            t->shape_b = ob->user >= 0 ? ob->user : -1;
            t->body_a = oa->user >= 0 ? w->shapes[oa->user].body : -1;
            t->body_b = ob->user >= 0 ? w->shapes[ob->user].body : -1;
            t->particle = ob->user < 0 ? -ob->user - 1 : (oa->user < 0 ? -oa->user - 1 : -1);
            mo_v3_copy(t->pa, s->point_a);
            mo_v3_copy(t->pb, s->point_b);
            mo_v3_copy(t->n, s->normal);
            t->gap = s->gap;
            double mua = oa->user >= 0 ? w->shapes[oa->user].friction : w->particles[-oa->user - 1].friction;
            double mub = ob->user >= 0 ? w->shapes[ob->user].friction : w->particles[-ob->user - 1].friction;
            t->mu = sqrt(mua * mub);
            if (-s->gap > maxpen) maxpen = -s->gap;
            /* key: both objects' engine ids and the feature */
            /* 21 bits per object (bodies >= 0, particles < 0), 22 bits of feature */
            uint64_t ka = (uint64_t)(uint32_t)(oa->user + 0x100000) & 0x1fffff;
            uint64_t kb = (uint64_t)(uint32_t)(ob->user + 0x100000) & 0x1fffff;
            t->key = (ka << 43) | (kb << 22) | (s->feature & 0x3fffff);
            /* tangents: t1 along the sliding direction when sliding, else a fixed basis of n */
            double va[3], vb[3], vr[3];
            point_velocity(w, t->body_a, t->pa, va);
            if (t->particle >= 0) mo_v3_copy(vb, w->particles[t->particle].v);
            else point_velocity(w, t->body_b, t->pb, vb);
            mo_v3_sub(vr, vb, va);
            mo_v3_axpy(vr, -mo_v3_dot(vr, t->n), t->n);
            double sl = mo_v3_norm(vr);
            if (sl > 1e-3) {
                mo_v3_scale(t->t1, vr, 1.0 / sl);
                mo_v3_cross(t->t2, t->n, t->t1);
            } else {
                mo_v3_basis(t->n, t->t1, t->t2);
            }
            t->impulse[0] = t->impulse[1] = t->impulse[2] = 0.0;
            if (warm && w->ncache > 0) {
                const mo_contact_cache *f = cache_find(cache, w->ncache, t, margin);
                if (f) {
                    t->impulse[0] = f->normal_impulse;
                    t->impulse[1] = mo_v3_dot(f->impulse_world, t->t1);
                    t->impulse[2] = mo_v3_dot(f->impulse_world, t->t2);
                }
            }
        }
    }
    w->ncontacts = nc;
    w->stats.contacts = nc;
    w->stats.max_penetration = maxpen;
    return 0;
}

/* keeps this step's contact impulses for the next step's warm start */
int mo_contact_cache_store(mo_world *w);
int mo_contact_cache_store(mo_world *w)
{
    if (mo_buf_reserve(&w->cache, (size_t)(w->ncontacts + 1) * sizeof(mo_contact_cache))) return -1;
    mo_contact_cache *cache = (mo_contact_cache *)w->cache.p;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int i = 0; i < w->ncontacts; i++) {
        cache[i].key = ct[i].key;
        cache[i].normal_impulse = ct[i].impulse[0];
        for (int k = 0; k < 3; k++) cache[i].point[k] = 0.5 * (ct[i].pa[k] + ct[i].pb[k]);
        for (int k = 0; k < 3; k++)
            cache[i].impulse_world[k] = ct[i].impulse[1] * ct[i].t1[k] + ct[i].impulse[2] * ct[i].t2[k];
    }
    qsort(cache, (size_t)w->ncontacts, sizeof *cache, cmp_cache);
    w->ncache = w->ncontacts;
    return 0;
}
