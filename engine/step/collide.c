/* collide.c: stage 2. Collision objects from bodies' shapes and from
 * particles (as spheres of their radius), broadphase (collision/broad_bp.c,
 * with static/kinematic pairs, same-group pairs, particle pairs, bodies
 * joined by a joint and pairs excluded by mo_world_set_pair_collision
 * filtered out), narrowphase per pair in parallel, then the
 * contact list with tangent bases and warm-start impulses looked up by
 * feature key in the previous step's cache. Objects are shapes (a compound
 * body has several) and particles; keys and filters use shape slots.
 * Memory layout matters at 10^4 bodies (every stage here is bound by cache
 * misses, not arithmetic): the filter and the contact loop read packed
 * per-object records (cl_info, cl_motion) instead of shapes and bodies, the
 * narrowphase writes each chunk of CL_CHUNK pairs' contacts contiguously
 * (never touching the slots of the empty pairs), and the warm-start lookup
 * gallops from the previous contact's position in the sorted cache. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "step/step.h"
#include "core/parallel.h"

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

/* what the pair filter and the contact loop read of an object, packed (32 bytes;
   the shapes and bodies they come from are far larger and scattered) */
typedef struct cl_info {
    int user;                  /* the object's user value: shape slot, or -(particle + 1) */
    int body;                  /* body slot, -1 for a particle */
    uint32_t category, mask;
    double friction;
    int joined;                /* the body has a joint or is a link body; a particle: its FEM mesh slot + 1, 0 when
                                  none */
    int excl;                  /* the body has pairs excluded by mo_world_set_pair_collision */
} cl_info;

/* the object's body motion for contact point velocities (a particle: its velocity, w = 0) */
typedef struct cl_motion {
    double x[3], v[3], w[3];
} cl_motion;

typedef struct filter_ctx {
    const mo_world *w;
    const cl_info *info;
    int fem_attach;            /* the world has live FEM attachments (issue 7) */
} filter_ctx;

static int pair_filter(void *ctx, int a, int b)
{
    filter_ctx *f = (filter_ctx *)ctx;
    const cl_info *ia = &f->info[a], *ib = &f->info[b];
    if (ia->body < 0 && ib->body < 0) return 0; /* particle / particle: no self collision yet */
    if (ia->body < 0 || ib->body < 0) {
        /* an FEM mesh's node (joined = mesh slot + 1) and a body the mesh is attached to: no contact */
        const cl_info *ip = ia->body < 0 ? ia : ib, *ibd = ia->body < 0 ? ib : ia;
        return !(f->fem_attach && ip->joined > 0 && mo_fem_attached_to(f->w, ip->joined - 1, ibd->body));
    }
    if (ia->body == ib->body) return 0; /* a compound body's own shapes */
    if (!(ia->category & ib->mask) || !(ib->category & ia->mask)) return 0;
    if (ia->excl && ib->excl && mo_pair_excluded(f->w, ia->body, ib->body)) return 0;
    if (!ia->joined || !ib->joined) return 1;
    const mo_body *ba = &f->w->bodies[ia->body], *bb = &f->w->bodies[ib->body];
    if (ba->artic && ba->artic == bb->artic) { /* the link bodies of a parent and its child */
        const mo_artic_link *links = f->w->artics[ba->artic - 1].m->links;
        if (links[ba->link].parent == bb->link || links[bb->link].parent == ba->link) return 0;
    }
    if (f->w->njoint_pairs == 0) return 1;
    uint64_t k = pair_key(ia->body, ib->body);
    return bsearch(&k, f->w->joint_pairs.p, (size_t)f->w->njoint_pairs, sizeof(uint64_t), cmp_u64) == NULL;
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
    if (mo_sort_stable(k, (size_t)n, sizeof(uint64_t), cmp_u64, &w->sort_tmp)) return -1;
    w->njoint_pairs = n;
    return 0;
}

static int cmp_cache(const void *a, const void *b)
{
    uint64_t x = ((const mo_contact_cache *)a)->key, y = ((const mo_contact_cache *)b)->key;
    return x < y ? -1 : x > y;
}

/* velocity of an object's body at world point p */
static void point_velocity(const cl_motion *m, const double *p, double *out)
{
    double r[3], c[3];
    mo_v3_sub(r, p, m->x);
    mo_v3_cross(c, m->w, r);
    mo_v3_add(out, m->v, c);
}

/* first index of cache[0..n) with key >= key, galloping from *hint (the last
   answer: contacts come in nearly ascending key order, so this is O(1) on
   average and walks the cache sequentially); *hint becomes the answer */
static int cache_lower_bound(const mo_contact_cache *cache, int n, uint64_t key, int *hint)
{
    int h = *hint < 0 ? 0 : (*hint > n ? n : *hint), lo, hi;
    if (h < n && cache[h].key < key) { /* the answer is in (h, n] */
        int probe = h + 1, step = 1;
        lo = h + 1;
        while (probe < n && cache[probe].key < key) {
            lo = probe + 1;
            probe += step;
            step *= 2;
        }
        hi = probe < n ? probe : n;
    } else { /* in [0, h] */
        int probe = h - 1, step = 1;
        hi = h;
        while (probe >= 0 && cache[probe].key >= key) {
            hi = probe;
            probe -= step;
            step *= 2;
        }
        lo = probe + 1 > 0 ? probe + 1 : 0;
    }
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cache[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    *hint = lo;
    return lo;
}

/* The previous contact to warm start c from: the same key (same objects and
 * features), else the nearest previous contact of the same object pair within
 * max(2 margin, 2 cm): features of coincident corners (equal boxes stacked)
 * flip between steps, points do not. Keys sort by pair first, so a pair's
 * contacts are contiguous. */
static const mo_contact_cache *cache_find(const mo_contact_cache *cache, int n, const mo_contact_int *c, double margin,
                                          int *hint)
{
    uint64_t pair = c->key >> 22, lo_key = pair << 22;
    int lo = cache_lower_bound(cache, n, lo_key, hint);
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

/* pairs per narrowphase chunk: a chunk's contacts are written contiguously from
   the chunk's first slot, so the contact loop reads them densely (slots of
   empty pairs are never touched) */
#define CL_CHUNK 64

/* the contact of narrowphase result s, warm started from the cache (*hint: see cache_lower_bound) */
static void make_contact(const mo_world *w, const cl_info *info, const cl_motion *motion, const mo_cl_contact *s,
                         double margin, int *hint, mo_contact_int *t)
{
    const cl_info *ia = &info[s->a], *ib = &info[s->b];
    t->shape_a = ia->body >= 0 ? ia->user : -1;
    t->shape_b = ib->body >= 0 ? ib->user : -1;
    t->body_a = ia->body;
    t->body_b = ib->body;
    t->particle = ib->body < 0 ? -ib->user - 1 : (ia->body < 0 ? -ia->user - 1 : -1);
    mo_v3_copy(t->pa, s->point_a);
    mo_v3_copy(t->pb, s->point_b);
    mo_v3_copy(t->n, s->normal);
    t->gap = s->gap;
    t->mu = sqrt(ia->friction * ib->friction);
    /* key: both objects' engine ids and the feature */
    /* 21 bits per object (bodies >= 0, particles < 0), 22 bits of feature */
    uint64_t ka = (uint64_t)(uint32_t)(ia->user + 0x100000) & 0x1fffff;
    uint64_t kb = (uint64_t)(uint32_t)(ib->user + 0x100000) & 0x1fffff;
    t->key = (ka << 43) | (kb << 22) | (s->feature & 0x3fffff);
    /* tangents: t1 along the sliding direction when sliding, else a fixed basis of n */
    double va[3], vb[3], vr[3];
    point_velocity(&motion[s->a], t->pa, va);
    point_velocity(&motion[s->b], t->pb, vb);
    mo_v3_sub(vr, vb, va);
    /* only the direction matters above the sliding threshold: a relative velocity whose norm would overflow
       (|v| ~ 1e200: the norm was inf and t1 = v / inf = 0, fuzz_api P13, fuzz/regressions/api/tangent_overflow)
       is scaled down first */
    const double big = fmax(fabs(vr[0]), fmax(fabs(vr[1]), fabs(vr[2])));
    if (big > 1e100 && isfinite(big)) mo_v3_scale(vr, vr, 1.0 / big);
    mo_v3_axpy(vr, -mo_v3_dot(vr, t->n), t->n);
    /* a second pass when the first left more than 1e-13 of the tangent along n: a fast approach with a slow slide
       (|v| / |v_t| ~ 1e7) kept n . t1 at 2e-9 (fuzz_api P13, fuzz/regressions/api/tangent_not_orthogonal) */
    const double along = mo_v3_dot(vr, t->n);
    if (fabs(along) > 1e-13 * mo_v3_norm(vr)) mo_v3_axpy(vr, -along, t->n);
    double sl = mo_v3_norm(vr);
    if (sl > 1e-3 && isfinite(sl)) {
        mo_v3_scale(t->t1, vr, 1.0 / sl);
        mo_v3_cross(t->t2, t->n, t->t1);
    } else {
        mo_v3_basis(t->n, t->t1, t->t2);
    }
    t->impulse[0] = t->impulse[1] = t->impulse[2] = 0.0;
    t->fric_w = t->fric_k = 0.0;
    /* read-back: lever arms of the bodies (the assembled rows' ra, rb), h once solved */
    t->h = 0.0;
    t->ra[0] = t->ra[1] = t->ra[2] = t->rb[0] = t->rb[1] = t->rb[2] = 0.0;
    if (t->body_a >= 0) mo_v3_sub(t->ra, t->pa, w->bodies[t->body_a].k.x);
    if (t->particle < 0 && t->body_b >= 0) mo_v3_sub(t->rb, t->pb, w->bodies[t->body_b].k.x);
    if (w->def.solver.warm_start && w->ncache > 0) {
        const mo_contact_cache *f = cache_find((const mo_contact_cache *)w->cache.p, w->ncache, t, margin, hint);
        if (f) {
            t->impulse[0] = f->normal_impulse;
            t->impulse[1] = mo_v3_dot(f->impulse_world, t->t1);
            t->impulse[2] = mo_v3_dot(f->impulse_world, t->t2);
            t->fric_w = f->fric_w;
            t->fric_k = f->fric_k;
        }
    }
}

/* The collision objects of the world as it is: one per live shape (slot order),
 * then one per live particle, in w->cl_objs (w->ncl of them) with their packed
 * cl_info / cl_motion in w->cl_info; configures the broadphase. Also used by
 * the world queries (shape.c) to bring the broadphase trees up to date.
 * Returns the object count, or -1 when out of memory. */
int mo_collide_objects(mo_world *w);
int mo_collide_objects(mo_world *w)
{
    int nobj = 0;
    for (int i = 0; i < w->shape_count; i++)
        if (w->shapes[i].alive) nobj++;
    /* issue 7: an FEM mesh's interior nodes are no collision objects (only its boundary nodes touch anything) */
    const unsigned char *skip = mo_fem_particle_skip(w);
    for (int i = 0; i < w->particle_count; i++)
        if (w->particles[i].alive && !(skip && skip[i])) nobj++;
    if (mo_buf_reserve(&w->cl_objs, (size_t)(nobj + 1) * sizeof(mo_cl_object))) return -1;
    if (mo_buf_reserve(&w->cl_info, (size_t)(nobj + 1) * (sizeof(cl_info) + sizeof(cl_motion)))) return -1;
    mo_cl_object *objs = (mo_cl_object *)w->cl_objs.p;
    cl_motion *motion = (cl_motion *)w->cl_info.p; /* (nobj), then info (nobj) */
    cl_info *info = (cl_info *)(motion + nobj + 1);
    int n = 0;
    for (int i = 0; i < w->shape_count; i++) {
        const mo_shape *sh = &w->shapes[i];
        if (!sh->alive) continue;
        const mo_body *b = &w->bodies[sh->body];
        mo_shape_object(w, i, &objs[n]);
        info[n] = (cl_info){i, sh->body, sh->category, sh->mask, sh->friction, b->njoints > 0 || b->artic,
                            b->nexcl > 0};
        mo_v3_copy(motion[n].x, b->k.x);
        mo_v3_copy(motion[n].v, b->k.v);
        mo_v3_copy(motion[n].w, b->k.w);
        n++;
    }
    for (int i = 0; i < w->particle_count; i++) {
        const mo_particle *p = &w->particles[i];
        if (!p->alive || (skip && skip[i])) continue;
        mo_cl_object *o = &objs[n];
        memset(o, 0, sizeof *o);
        o->type = MO_CL_SPHERE;
        o->radius = p->radius;
        mo_v3_copy(o->pos, p->x);
        o->rot[0] = o->rot[4] = o->rot[8] = 1.0;
        o->user = -(i + 1);
        info[n] = (cl_info){-(i + 1), -1, 0u, 0u, p->friction, p->fem_mesh, 0}; /* joined: FEM mesh slot + 1 */
        mo_v3_copy(motion[n].x, p->x);
        mo_v3_copy(motion[n].v, p->v);
        mo_v3_set(motion[n].w, 0, 0, 0);
        n++;
    }
    w->ncl = n;
    /* fat boxes 3 margins beyond the margin boxes (the pile:10000 optimum: a third of the
       re-insertions and queries of 1 margin for 1.5x the cached pairs), reporting only pairs
       whose margin boxes overlap (what the narrowphase can turn into contacts) */
    mo_cl_bp_configure(w->bp, 3.0 * w->def.contact_margin, 1);
    return n;
}

/* w->cl_sleep: per collision object 0 when it moves (an awake dynamic body, a particle, a kinematic body with a
 * velocity or moved by the API, a link body), 1 still (static, a still kinematic body), 2 asleep; entry n is 1
 * when some object sleeps (else the rest is not filled). 0, or -1 out of memory */
static int sleep_classes(mo_world *w, const cl_info *info, int n)
{
    if (mo_buf_reserve(&w->cl_sleep, (size_t)n + 1)) return -1;
    unsigned char *sl = (unsigned char *)w->cl_sleep.p;
    sl[n] = 0;
    int any = 0;
    for (int i = 0; i < w->body_count && !any; i++) any = w->bodies[i].alive && w->bodies[i].sleep_island;
    if (!any) return 0;
    for (int i = 0; i < n; i++) {
        const mo_body *b = info[i].body >= 0 ? &w->bodies[info[i].body] : NULL;
        unsigned char c = 0;
        if (!b || b->artic) c = 0;
        else if (b->type == MO_BODY_DYNAMIC) c = b->sleep_island ? 2 : 0;
        else if (b->type == MO_BODY_STATIC) c = 1;
        else c = (b->moved || b->k.v[0] != 0.0 || b->k.v[1] != 0.0 || b->k.v[2] != 0.0 || b->k.w[0] != 0.0 ||
                  b->k.w[1] != 0.0 || b->k.w[2] != 0.0) ? 0 : 1;
        sl[i] = c;
    }
    sl[n] = 1;
    return 0;
}

int mo_step_collide(const mo_step_ctx *ctx)
{
    mo_world *w = ctx->w;
    /* the step moves the bodies after this stage: the trees will not hold their poses */
    w->q_synced = 0;
    /* objects: one per shape, one per particle */
    int n = mo_collide_objects(w);
    if (n < 0) return -1;
    mo_cl_object *objs = (mo_cl_object *)w->cl_objs.p;
    cl_motion *motion = (cl_motion *)w->cl_info.p;
    cl_info *info = (cl_info *)(motion + n + 1); /* as laid out by mo_collide_objects */
    double h = ctx->h, margin = w->def.contact_margin;
    /* this step's motion of each object, for the broadphase's fat boxes */
    if (mo_buf_reserve(&w->cl_disp, (size_t)(3 * n + 3) * sizeof(double))) return -1;
    double *disp = (double *)w->cl_disp.p;
    const int nt = w->def.threads;
    MO_PARALLEL_LOOP(nt, n, for (int i = 0; i < n; i++) {
        double vel[3];
        point_velocity(&motion[i], objs[i].pos, vel);
        mo_v3_scale(disp + 3 * i, vel, 4.0 * h); /* fat boxes cover 4 steps of motion: fewer re-insertions */
    });

    /* broadphase: dynamic AABB trees, updated incrementally (collision/broad_bp.c) */
    if (build_joint_filter(w)) return -1;
    filter_ctx fc = {w, info, w->fem ? mo_fem_attach_count(w) > 0 : 0};
    if (mo_cl_bp_update_pairs(w->bp, objs, n, disp, margin, pair_filter, &fc, &w->pairs)) return -1;
    int npairs = w->pairs.count;
    w->stats.pairs = npairs;

    /* narrowphase in chunks of CL_CHUNK pairs, each chunk's contacts packed from its first slot */
    int nchunks = (npairs + CL_CHUNK - 1) / CL_CHUNK;
    if (mo_buf_reserve(&w->cl_contacts, (size_t)(npairs * MO_CL_MAX_POINTS + 1) * sizeof(mo_cl_contact))) return -1;
    mo_cl_contact *cc = (mo_cl_contact *)w->cl_contacts.p;
    if (mo_buf_reserve(&w->scratch, (size_t)(nchunks + 1) * sizeof(int))) return -1;
    int *chunk_first = (int *)w->scratch.p; /* contacts per chunk, then their prefix sum */
    int (*pairs)[2] = w->pairs.pairs;
    /* sleeping islands cost no narrowphase: their pairs with each other and with still bodies are skipped */
    const unsigned char *sl = NULL;
    if (sleep_classes(w, info, n) < 0) return -1;
    else if (w->cl_sleep.p && ((const unsigned char *)w->cl_sleep.p)[n]) sl = (const unsigned char *)w->cl_sleep.p;
    MO_PARALLEL_LOOP(nt, nchunks > 1 ? npairs : 0, for (int q = 0; q < nchunks; q++) {
        int k1 = (q + 1) * CL_CHUNK < npairs ? (q + 1) * CL_CHUNK : npairs, m = 0;
        mo_cl_contact *out = cc + (size_t)q * CL_CHUNK * MO_CL_MAX_POINTS;
        for (int k = q * CL_CHUNK; k < k1; k++) {
            int a = pairs[k][0], b = pairs[k][1];
            if (sl && sl[a] && sl[b] && ((sl[a] | sl[b]) & 2)) continue;
            if (objs[a].type == MO_CL_MESH || objs[b].type == MO_CL_MESH)
                m += mo_cl_collide_mesh(&objs[a], a, &objs[b], b, margin, out + m);
            else
                m += mo_cl_collide(&objs[a], a, &objs[b], b, margin, out + m);
        }
        chunk_first[q] = m;
    });
    int nc = 0;
    for (int q = 0; q < nchunks; q++) {
        int m = chunk_first[q];
        chunk_first[q] = nc;
        nc += m;
    }
    chunk_first[nchunks] = nc;

    /* contacts, in pair order, each chunk from its offset */
    if (mo_buf_reserve(&w->contacts, (size_t)(nc + 1) * sizeof(mo_contact_int))) return -1;
    mo_contact_int *ct = (mo_contact_int *)w->contacts.p;
    MO_PARALLEL_LOOP(nt, nchunks > 1 ? npairs : 0, for (int q = 0; q < nchunks; q++) {
        const mo_cl_contact *src = cc + (size_t)q * CL_CHUNK * MO_CL_MAX_POINTS;
        /* contacts and the cache are both in pair order: start near the same fraction of it */
        int hint = nc > 0 ? (int)((double)chunk_first[q] * w->ncache / nc) : 0;
        for (int c = chunk_first[q]; c < chunk_first[q + 1]; c++)
            make_contact(w, info, motion, src++, margin, &hint, &ct[c]);
    });
    double maxpen = 0.0;
    for (int c = 0; c < nc; c++)
        if (-ct[c].gap > maxpen) maxpen = -ct[c].gap;
    w->ncontacts = nc;
    w->stats.contacts = nc;
    w->stats.max_penetration = maxpen;
    /* a contact with a sleeping body (the other side moves: awake, a particle, a moving kinematic or link body)
       wakes its island, and the step starts over from the prediction */
    if (sl) {
        int woke = 0;
        for (int c = 0; c < nc; c++) {
            const int s[2] = {ct[c].body_a, ct[c].body_b}; /* -1: a particle */
            for (int k = 0; k < 2; k++)
                if (s[k] >= 0 && w->bodies[s[k]].sleep_island) {
                    mo_sleep_wake_island(w, s[k]);
                    woke = 1;
                }
        }
        if (woke) return MO_STEP_WOKE;
    }
    /* rigid shapes against FEM meshes' boundary triangles (fem_contacts.c) */
    if (w->fem && mo_fem_collide_surfaces(w)) return -1;
    return 0;
}

/* 1 when cached contact key joins two shapes' bodies of which one sleeps and neither is an awake dynamic body:
   the collide stage skipped its pair, its impulses stay in the cache while the island sleeps (its warm start
   when it wakes) */
static int cache_asleep(const mo_world *w, uint64_t key)
{
    const int u[2] = {(int)((key >> 43) & 0x1fffff) - 0x100000, (int)((key >> 22) & 0x1fffff) - 0x100000};
    int asleep = 0;
    for (int k = 0; k < 2; k++) {
        if (u[k] < 0 || u[k] >= w->shape_count || !w->shapes[u[k]].alive) return 0; /* a particle, a gone shape */
        const mo_body *b = &w->bodies[w->shapes[u[k]].body];
        if (b->sleep_island) asleep = 1;
        else if (b->type == MO_BODY_DYNAMIC) return 0;
    }
    return asleep;
}

/* keeps this step's contact impulses for the next step's warm start, with the cached ones of sleeping islands */
int mo_contact_cache_store(mo_world *w)
{
    /* the sleeping islands' cached contacts, compacted in key order (only while some body sleeps: collide's flag) */
    int nkeep = 0;
    const int nc = w->ncontacts;
    mo_contact_cache *cache = (mo_contact_cache *)w->cache.p;
    const unsigned char *sl = (const unsigned char *)w->cl_sleep.p;
    if (sl && sl[w->ncl])
        for (int i = 0; i < w->ncache; i++)
            if (cache_asleep(w, cache[i].key)) cache[nkeep++] = cache[i];
    if (mo_buf_reserve(&w->cache, (size_t)(nc + nkeep + 1) * sizeof(mo_contact_cache))) return -1;
    cache = (mo_contact_cache *)w->cache.p;
    if (nkeep) memmove(cache + nc, cache, (size_t)nkeep * sizeof *cache);
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int i = 0; i < nc; i++) {
        cache[i].key = ct[i].key;
        cache[i].normal_impulse = ct[i].impulse[0];
        cache[i].fric_w = ct[i].fric_w;
        cache[i].fric_k = ct[i].fric_k;
        for (int k = 0; k < 3; k++) cache[i].point[k] = 0.5 * (ct[i].pa[k] + ct[i].pb[k]);
        for (int k = 0; k < 3; k++)
            cache[i].impulse_world[k] = ct[i].impulse[1] * ct[i].t1[k] + ct[i].impulse[2] * ct[i].t2[k];
    }
    if (mo_sort_stable(cache, (size_t)nc, sizeof *cache, cmp_cache, &w->sort_tmp)) return -1;
    if (nkeep) { /* merge the two sorted runs (their pairs differ: no equal keys) */
        if (mo_buf_reserve(&w->sort_tmp, (size_t)(nc + nkeep) * sizeof *cache)) return -1;
        mo_contact_cache *t = (mo_contact_cache *)w->sort_tmp.p;
        int i = 0, j = nc, k = 0;
        while (i < nc && j < nc + nkeep) t[k++] = cache[j].key < cache[i].key ? cache[j++] : cache[i++];
        while (i < nc) t[k++] = cache[i++];
        while (j < nc + nkeep) t[k++] = cache[j++];
        memcpy(cache, t, (size_t)(nc + nkeep) * sizeof *cache);
    }
    w->ncache = nc + nkeep;
    return 0;
}
