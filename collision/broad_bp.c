/* broad_bp.c: the engine broadphase (mo_cl_bp_*) built on two dynamic AABB
 * trees (broad_tree.c, whose header comment describes the tree).
 *
 * Broadphase. One tree for static objects, one for the others, planes kept
 * apart. Objects are identified across calls by (user, k): the k-th object in
 * the array with that user value (k = 0 normally; repeated user values, e.g.
 * several shapes of one body, are told apart by their order), mapped to a
 * record by an open-addressing hash table; object i's record of the last
 * call is tried first (the same object at the same index, the usual case),
 * the hash only when that is not this user's first occurrence. Per call:
 *   proxies     each object's box is mo_cl_update_aabb(copy, margin) (the
 *               margin box, what mo_cl_broadphase sees); new objects are
 *               inserted, objects that changed static-ness move between trees,
 *               the others are re-inserted (mo_cl_tree_move) when the margin
 *               box leaves the fat box, tested on the record's copy of it (no
 *               tree access for the objects that stay): the fat box is the
 *               margin box grown by the slack (default: the margin) plus
 *               disp[i] when (re-)inserted, and is kept until the margin box
 *               leaves it. Records not seen are removed.
 *   candidates  the record pairs whose fat boxes overlap (moving/moving and
 *               moving/static) are cached between calls, as Box2D keeps its
 *               pair set and queries only its move buffer: fat boxes change
 *               only on (re-)insertion, so the cached pairs of proxies that
 *               stayed put are still exact; the pairs of (re-)inserted proxies
 *               are dropped and found again by querying the moving tree with
 *               their fat box (moving ones the static tree too; a pair of two
 *               re-inserted proxies is kept from the lower record id). The
 *               cache is kept sorted by record ids (the new pairs are sorted
 *               by two counting passes and merged in), so the pair loops
 *               below walk records, and objects, in order. When a call fails
 *               (out of memory) the cache is rebuilt by querying every proxy
 *               on the next call, as on the first.
 *   pairs       the cached record pairs become object pairs through the rules
 *               (static/static never arises, in exact mode margin boxes that
 *               do not overlap, same non-zero group and the filter drop
 *               pairs; all re-evaluated every call), planes are tested
 *               against every object's margin box exactly as
 *               mo_cl_broadphase does, and the list is sorted by (a, b) with
 *               two stable counting passes unless it already is (records in
 *               object order, planes first: the engine's steady state).
 * Because the fat box always contains the margin box, every pair of
 * mo_cl_broadphase over margin boxes is reported; by default the extra
 * candidates are pairs whose fat boxes overlap but margin boxes do not (at
 * most 2 slacks plus the displacement apart), for the narrowphase to reject;
 * in exact mode they are dropped, so the fat boxes can be large (few
 * re-insertions) without more narrowphase work. The other difference
 * from mo_cl_broadphase: every known non-plane type (capsule, cylinder, hull,
 * mesh too) takes part, where collide_broad.c's sweep currently takes spheres
 * and boxes only. Cost per call: O(n) updates, O(k log n) re-insertions and
 * queries of the k proxies that left their fat boxes (n on the first call),
 * O(cached pairs) filtering and merging, O(planes n) plane tests, O(pairs)
 * sortedness check (O(n + pairs) sorting when needed); no allocation once
 * sizes are stable. */
#include "shapes.h"
#include "broad_tree.h"
#include "broad_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- broadphase ---- */

enum { BP_STATIC = 0, BP_MOVING = 1, BP_NONE = -1 };

/* one object known to the broadphase, keyed by (user, dup) */
typedef struct bp_record {
    int user, dup;
    int live;       /* in the hash table; else on the free list (next_free) */
    int tree;       /* BP_STATIC, BP_MOVING, or BP_NONE (no proxy) */
    int proxy;      /* leaf id in that tree */
    int obj;        /* object index in the last update */
    int ndup;       /* dup 0: repeats of user seen in this update */
    int next_free;
    uint64_t stamp; /* update that last saw it */
    uint64_t moved; /* update that last (re-)inserted its proxy */
    int pending;    /* (re-)inserted by mo_cl_bp_sync since the last update: its pairs are to be queried */
    int pad_;
    double flo[3], fhi[3]; /* its proxy's fat box (a copy: the containment test needs no tree access) */
} bp_record;

/* what the pair rules read of an object, packed for the pair loop */
typedef struct bp_obj_info {
    double lo[3], hi[3]; /* margin box (unbounded for objects without a proxy) */
    uint32_t group;
    int is_static;
} bp_obj_info;

struct mo_cl_broadphase_tree {
    mo_cl_tree *tree[2]; /* BP_STATIC, BP_MOVING */
    bp_record *recs;     /* (rec_cap) */
    int rec_cap, rec_top, rec_free, rec_live;
    int *slots; /* (slot_cap) hash table of record ids, -1 empty; power of two */
    int slot_cap;
    int (*raw)[2]; /* (raw_cap) record pairs whose fat boxes overlap, x < y, sorted by (x, y) */
    int raw_count, raw_cap;
    int (*fresh)[2]; /* (fresh_cap) this update's pairs of (re-)inserted proxies, then sorted */
    int fresh_count, fresh_cap;
    int (*spare)[2]; /* (spare_cap) merge target, swapped with raw */
    int spare_cap;
    int *rcnt;       /* (rcnt_cap) counting sort over record ids */
    int *rec_obj;    /* (rec_cap) per record in this update: its object, or -1 when its cached pairs are
                        void (gone or (re-)inserted); packed for the pair loops */
    int rcnt_cap;
    int raw_valid; /* raw is complete for the current proxies */
    int *obj_rec;  /* (obj_cap) record of each object in the last update, or -1 */
    int *planes;   /* (obj_cap) plane object indices */
    int *moved;    /* (obj_cap) records (re-)inserted in this update */
    bp_obj_info *info; /* (obj_cap) each object's pairing rule inputs */
    int *cnt;      /* (obj_cap + 1) counting sort */
    int obj_cap;
    int last_n;
    int reinserts;
    double slack;   /* fat box growth beyond the margin box; < 0: the margin */
    int exact;      /* report margin box overlaps only */
    uint64_t stamp; /* update counter (64 bits: never wraps) */
};

static uint32_t key_hash(int user, int dup)
{
    uint64_t x = (uint64_t)(uint32_t)user | (uint64_t)(uint32_t)dup << 32;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return (uint32_t)x;
}

/* slot holding (user, dup), or -1 */
static int hash_find(const mo_cl_broadphase_tree *bp, int user, int dup)
{
    if (bp->slot_cap == 0)
        return -1;
    unsigned mask = (unsigned)bp->slot_cap - 1u;
    for (unsigned i = key_hash(user, dup) & mask;; i = (i + 1u) & mask) {
        int r = bp->slots[i];
        if (r < 0)
            return -1;
        if (bp->recs[r].user == user && bp->recs[r].dup == dup)
            return (int)i;
    }
}

static void hash_put(mo_cl_broadphase_tree *bp, int r)
{
    unsigned mask = (unsigned)bp->slot_cap - 1u;
    unsigned i = key_hash(bp->recs[r].user, bp->recs[r].dup) & mask;
    while (bp->slots[i] >= 0)
        i = (i + 1u) & mask;
    bp->slots[i] = r;
}

/* removes slot i, shifting back the entries of its probe run */
static void hash_erase(mo_cl_broadphase_tree *bp, int slot)
{
    unsigned mask = (unsigned)bp->slot_cap - 1u, i = (unsigned)slot, j = i;
    for (;;) {
        j = (j + 1u) & mask;
        int r = bp->slots[j];
        if (r < 0)
            break;
        unsigned home = key_hash(bp->recs[r].user, bp->recs[r].dup) & mask;
        /* r may fill hole i unless its home lies cyclically in (i, j] */
        int in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            bp->slots[i] = r;
            i = j;
        }
    }
    bp->slots[i] = -1;
}

/* table for at least `live` records at load <= 1/2 */
static int hash_reserve(mo_cl_broadphase_tree *bp, int live)
{
    if (live <= bp->slot_cap / 2)
        return 0;
    int cap = bp->slot_cap > 0 ? bp->slot_cap : 64;
    while (cap / 2 < live) {
        if (cap > INT_MAX / 4)
            return -1;
        cap *= 2;
    }
    int *mem = malloc((size_t)cap * sizeof *mem);
    if (!mem)
        return -1;
    free(bp->slots);
    bp->slots = mem;
    bp->slot_cap = cap;
    for (int i = 0; i < cap; ++i)
        mem[i] = -1;
    for (int r = 0; r < bp->rec_top; ++r)
        if (bp->recs[r].live)
            hash_put(bp, r);
    return 0;
}

/* new live record for (user, dup), no proxy; -1 when out of memory */
static int record_new(mo_cl_broadphase_tree *bp, int user, int dup)
{
    if (hash_reserve(bp, bp->rec_live + 1))
        return -1;
    int r = bp->rec_free;
    if (r >= 0) {
        bp->rec_free = bp->recs[r].next_free;
    } else {
        if (bp->rec_top == bp->rec_cap) {
            if (bp->rec_cap > INT_MAX / 2)
                return -1;
            int cap = bp->rec_cap > 0 ? 2 * bp->rec_cap : 64;
            bp_record *mem = realloc(bp->recs, (size_t)cap * sizeof *mem);
            if (!mem)
                return -1;
            bp->recs = mem;
            int *ro = realloc(bp->rec_obj, (size_t)cap * sizeof *ro);
            if (!ro)
                return -1;
            bp->rec_obj = ro;
            bp->rec_cap = cap;
        }
        r = bp->rec_top++;
    }
    bp_record *rec = &bp->recs[r];
    memset(rec, 0, sizeof *rec);
    rec->user = user;
    rec->dup = dup;
    rec->live = 1;
    rec->tree = BP_NONE;
    rec->proxy = -1;
    rec->next_free = -1;
    hash_put(bp, r);
    ++bp->rec_live;
    return r;
}

static void record_free(mo_cl_broadphase_tree *bp, int r)
{
    bp_record *rec = &bp->recs[r];
    if (rec->tree != BP_NONE)
        mo_cl_tree_remove(bp->tree[rec->tree], rec->proxy);
    hash_erase(bp, hash_find(bp, rec->user, rec->dup));
    rec->live = 0;
    rec->tree = BP_NONE;
    rec->next_free = bp->rec_free;
    bp->rec_free = r;
    --bp->rec_live;
}

/* the record of this update's next object with this user value (the k-th
   occurrence gets dup k); -1 when out of memory */
static int record_for(mo_cl_broadphase_tree *bp, int user)
{
    int s = hash_find(bp, user, 0);
    int r0 = s >= 0 ? bp->slots[s] : record_new(bp, user, 0);
    if (r0 < 0)
        return -1;
    bp_record *rec0 = &bp->recs[r0];
    if (rec0->stamp != bp->stamp) {
        rec0->ndup = 0;
        return r0;
    }
    if (rec0->ndup == INT_MAX)
        return -1;
    int dup = ++rec0->ndup;
    s = hash_find(bp, user, dup);
    return s >= 0 ? bp->slots[s] : record_new(bp, user, dup);
}

mo_cl_broadphase_tree *mo_cl_bp_create(void)
{
    mo_cl_broadphase_tree *bp = calloc(1, sizeof *bp);
    if (!bp)
        return NULL;
    bp->tree[BP_STATIC] = mo_cl_tree_create();
    bp->tree[BP_MOVING] = mo_cl_tree_create();
    if (!bp->tree[BP_STATIC] || !bp->tree[BP_MOVING]) {
        mo_cl_bp_destroy(bp);
        return NULL;
    }
    bp->rec_free = -1;
    bp->slack = -1.0;
    return bp;
}

void mo_cl_bp_destroy(mo_cl_broadphase_tree *bp)
{
    if (!bp)
        return;
    mo_cl_tree_destroy(bp->tree[BP_STATIC]);
    mo_cl_tree_destroy(bp->tree[BP_MOVING]);
    free(bp->recs);
    free(bp->slots);
    free(bp->raw);
    free(bp->fresh);
    free(bp->spare);
    free(bp->rcnt);
    free(bp->rec_obj);
    free(bp->obj_rec);
    free(bp->planes);
    free(bp->moved);
    free(bp->info);
    free(bp->cnt);
    free(bp);
}

int mo_cl_bp_configure(mo_cl_broadphase_tree *bp, double slack, int exact)
{
    if (!bp || !(slack < HUGE_VAL))
        return -1;
    bp->slack = slack >= 0.0 ? slack : -1.0;
    bp->exact = exact != 0;
    return 0;
}

int mo_cl_bp_last_reinserts(const mo_cl_broadphase_tree *bp)
{
    return bp ? bp->reinserts : 0;
}

int mo_cl_bp_fat_box(const mo_cl_broadphase_tree *bp, int i, double *lo, double *hi)
{
    if (!bp || i < 0 || i >= bp->last_n || bp->obj_rec[i] < 0)
        return 0;
    const bp_record *rec = &bp->recs[bp->obj_rec[i]];
    mo_cl_tree_fat_box(bp->tree[rec->tree], rec->proxy, lo, hi);
    return 1;
}

void mo_cl_bp_forget_pairs(mo_cl_broadphase_tree *bp)
{
    if (bp) {
        bp->raw_count = 0;
        bp->raw_valid = 0;
    }
}

const mo_cl_tree *mo_cl_bp_tree(const mo_cl_broadphase_tree *bp, int moving)
{
    return bp ? bp->tree[moving ? BP_MOVING : BP_STATIC] : NULL;
}

int mo_cl_bp_record_user(const mo_cl_broadphase_tree *bp, int rec)
{
    return bp && rec >= 0 && rec < bp->rec_top && bp->recs[rec].live ? bp->recs[rec].user : INT_MIN;
}

/* pair buffer of `*cap` pairs holding at least `need`; -1 when out of memory */
static int grow_pairs(int (**buf)[2], int *cap, int need)
{
    if (need <= *cap)
        return 0;
    int c = *cap > 0 ? *cap : 256;
    while (c < need) {
        if (c > INT_MAX / 2)
            return -1;
        c *= 2;
    }
    void *mem = realloc(*buf, (size_t)c * sizeof **buf);
    if (!mem)
        return -1;
    *buf = mem;
    *cap = c;
    return 0;
}

/* appends (min, max) of objects i, j unless a rule drops it; -1 when out of memory */
static int emit_pair(mo_cl_pairs *p, const bp_obj_info *info, int i, int j, int exact, mo_cl_filter_fn filter,
                     void *ctx)
{
    const bp_obj_info *oi = &info[i], *oj = &info[j];
    if (oi->is_static && oj->is_static)
        return 0;
    if (exact && !boxes_overlap(oi->lo, oi->hi, oj->lo, oj->hi))
        return 0;
    if (oi->group != 0 && oi->group == oj->group)
        return 0;
    int a = i < j ? i : j, b = i < j ? j : i;
    if (filter && !filter(ctx, a, b))
        return 0;
    if (p->count >= p->capacity && (p->count == INT_MAX || grow_pairs(&p->pairs, &p->capacity, p->count + 1)))
        return -1;
    p->pairs[p->count][0] = a;
    p->pairs[p->count][1] = b;
    ++p->count;
    return 0;
}

/* sorts fresh by (x, y) (two stable counting passes over record ids) and merges
   it into raw (sorted, disjoint from fresh: a fresh pair has a (re-)inserted
   record, a kept one has none); -1 when out of memory */
static int merge_fresh(mo_cl_broadphase_tree *bp)
{
    int nf = bp->fresh_count, nr = bp->raw_count, nrec = bp->rec_top;
    if (nf == 0)
        return 0;
    if (nf > INT_MAX / 2 - nr || grow_pairs(&bp->fresh, &bp->fresh_cap, 2 * nf) ||
        grow_pairs(&bp->spare, &bp->spare_cap, nr + nf))
        return -1;
    if (bp->rcnt_cap < nrec + 1) {
        int *c = realloc(bp->rcnt, ((size_t)nrec + 1) * sizeof *c);
        if (!c)
            return -1;
        bp->rcnt = c;
        bp->rcnt_cap = nrec + 1;
    }
    int(*tmp)[2] = bp->fresh + nf;
    mo_cl_pairs_counting_sort(bp->fresh, tmp, nf, 1, nrec, bp->rcnt);
    mo_cl_pairs_counting_sort(tmp, bp->fresh, nf, 0, nrec, bp->rcnt);
    int(*a)[2] = bp->raw, (*b)[2] = bp->fresh, (*out)[2] = bp->spare;
    int i = 0, j = 0, k = 0;
    while (i < nr && j < nf) {
        int take_a = a[i][0] < b[j][0] || (a[i][0] == b[j][0] && a[i][1] < b[j][1]);
        const int *src = take_a ? a[i++] : b[j++];
        out[k][0] = src[0];
        out[k][1] = src[1];
        ++k;
    }
    for (; i < nr; ++i, ++k) {
        out[k][0] = a[i][0];
        out[k][1] = a[i][1];
    }
    for (; j < nf; ++j, ++k) {
        out[k][0] = b[j][0];
        out[k][1] = b[j][1];
    }
    bp->spare = bp->raw;
    bp->raw = out;
    int cap = bp->spare_cap;
    bp->spare_cap = bp->raw_cap;
    bp->raw_cap = cap;
    bp->raw_count = k;
    bp->fresh_count = 0;
    return 0;
}

/* query of a (re-)inserted record: appends its record pairs to fresh */
typedef struct bp_query {
    mo_cl_broadphase_tree *bp;
    int self;   /* querying record */
    int status; /* -1: out of memory */
} bp_query;

static int bp_query_cb(void *vq, int proxy, int other)
{
    (void)proxy;
    bp_query *q = vq;
    mo_cl_broadphase_tree *bp = q->bp;
    int self = q->self;
    /* each pair once: a pair of two (re-)inserted records from the lower one */
    if (other == self || (bp->recs[other].moved == bp->stamp && other < self))
        return 1;
    if (bp->fresh_count == bp->fresh_cap && grow_pairs(&bp->fresh, &bp->fresh_cap, bp->fresh_count + 1)) {
        q->status = -1;
        return 0;
    }
    bp->fresh[bp->fresh_count][0] = self < other ? self : other;
    bp->fresh[bp->fresh_count][1] = self < other ? other : self;
    ++bp->fresh_count;
    return 1;
}

/* types kept in the trees: every known shape but planes */
static int tree_type(int type)
{
    return type > MO_CL_NONE && type < MO_CL_SHAPE_COUNT && type != MO_CL_PLANE;
}

/* Brings the records and proxies in line with objs (the first half of an
   update, and all of mo_cl_bp_sync): per-object scratch, rule inputs, plane
   list, proxies inserted / moved / re-inserted, records not seen freed. With
   for_pairs, bp->moved lists the records whose pairs must be queried (*nmoved):
   (re-)inserted now or since the last update (pending), or all when the cache
   is being rebuilt; without, (re-)inserted records are marked pending for the
   next update. Returns 0, or -1 when out of memory. */
static int bp_sync_proxies(mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, const double *disp,
                           double margin, int for_pairs, int rebuild, int *nplanes_out, int *nmoved_out)
{
    /* per-object scratch */
    if (n > bp->obj_cap) {
        if (n > INT_MAX - 1)
            return -1;
        int *a = realloc(bp->obj_rec, (size_t)n * sizeof *a);
        if (a)
            bp->obj_rec = a;
        int *b = realloc(bp->planes, (size_t)n * sizeof *b);
        if (b)
            bp->planes = b;
        int *m = realloc(bp->moved, (size_t)n * sizeof *m);
        if (m)
            bp->moved = m;
        int *c = realloc(bp->cnt, ((size_t)n + 1) * sizeof *c);
        if (c)
            bp->cnt = c;
        bp_obj_info *f = realloc(bp->info, (size_t)n * sizeof *f);
        if (f)
            bp->info = f;
        if (!a || !b || !m || !c || !f)
            return -1;
        bp->obj_cap = n;
    }
    int hint_n = bp->last_n; /* obj_rec[0..hint_n) still holds the last update's records */
    bp->last_n = 0;
    ++bp->stamp; /* starts at 1: 0 marks records never seen */

    /* rule inputs and the planes */
    int nplanes = 0;
    for (int i = 0; i < n; ++i) {
        bp->info[i].group = objs[i].group;
        bp->info[i].is_static = objs[i].is_static != 0;
        for (int k = 0; k < 3; ++k) {
            bp->info[i].lo[k] = -HUGE_VAL;
            bp->info[i].hi[k] = HUGE_VAL;
        }
        if (objs[i].type == MO_CL_PLANE)
            bp->planes[nplanes++] = i;
    }

    /* proxies: insert, move between trees, or move within their tree */
    static const double zero[3] = {0.0, 0.0, 0.0};
    const double slack = bp->slack >= 0.0 ? bp->slack : margin;
    int nmoved = 0;
    for (int i = 0; i < n; ++i) {
        const mo_cl_object *o = &objs[i];
        int r = i < hint_n ? bp->obj_rec[i] : -1;
        bp->obj_rec[i] = -1;
        if (!tree_type(o->type))
            continue;
        mo_cl_object c = *o;
        mo_cl_update_aabb(&c, margin);
        const double *lo = c.aabb_min, *hi = c.aabb_max;
        if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
            continue; /* NaN: no proxy, as mo_cl_broadphase skips it */
        memcpy(bp->info[i].lo, lo, sizeof bp->info[i].lo);
        memcpy(bp->info[i].hi, hi, sizeof bp->info[i].hi);
        /* the record: the last update's for this index when it is this user's first
           (dup 0) and not yet taken, which is what record_for finds; else by hash */
        if (r >= 0 && r < bp->rec_top && bp->recs[r].live && bp->recs[r].user == o->user && bp->recs[r].dup == 0 &&
            bp->recs[r].stamp != bp->stamp)
            bp->recs[r].ndup = 0;
        else if ((r = record_for(bp, o->user)) < 0)
            return -1;
        bp_record *rec = &bp->recs[r];
        rec->stamp = bp->stamp;
        rec->obj = i;
        bp->obj_rec[i] = r;
        const double *d = disp ? disp + 3 * (size_t)i : zero;
        int want = o->is_static ? BP_STATIC : BP_MOVING;
        int reinserted;
        if (rec->tree == want) {
            reinserted = !(rec->flo[0] <= lo[0] && rec->flo[1] <= lo[1] && rec->flo[2] <= lo[2] && hi[0] <= rec->fhi[0] &&
                           hi[1] <= rec->fhi[1] && hi[2] <= rec->fhi[2]) &&
                         mo_cl_tree_move(bp->tree[want], rec->proxy, lo, hi, d, slack);
        } else {
            if (rec->tree != BP_NONE)
                mo_cl_tree_remove(bp->tree[rec->tree], rec->proxy);
            rec->tree = BP_NONE;
            rec->pending = 1; /* no proxy: its cached pairs are void */
            double flo[3], fhi[3];
            fatten(lo, hi, d, slack, flo, fhi);
            int proxy = mo_cl_tree_insert(bp->tree[want], flo, fhi, r);
            if (proxy < 0)
                return -1;
            rec->tree = want;
            rec->proxy = proxy;
            reinserted = 1;
        }
        if (reinserted) {
            ++bp->reinserts;
            mo_cl_tree_fat_box(bp->tree[want], rec->proxy, rec->flo, rec->fhi);
        }
        if (!for_pairs) {
            rec->pending |= reinserted;
        } else if (reinserted || rec->pending || rebuild) {
            if (reinserted || rec->pending)
                rec->moved = bp->stamp;
            rec->pending = 0;
            bp->moved[nmoved++] = r;
        }
    }

    /* objects gone since the last update */
    for (int r = 0; r < bp->rec_top; ++r)
        if (bp->recs[r].live && bp->recs[r].stamp != bp->stamp)
            record_free(bp, r);
    *nplanes_out = nplanes;
    *nmoved_out = nmoved;
    return 0;
}

int mo_cl_bp_sync(mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, const double *disp, double margin)
{
    if (!bp || n < 0 || (n > 0 && !objs) || !(margin >= 0.0))
        return -1;
    bp->reinserts = 0;
    int nplanes, nmoved;
    if (bp_sync_proxies(bp, objs, n, disp, margin, 0, 0, &nplanes, &nmoved)) {
        bp->raw_valid = 0; /* as after a failed update */
        return -1;
    }
    bp->last_n = n;
    return 0;
}

int mo_cl_bp_update_pairs(mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, const double *disp,
                          double margin, mo_cl_filter_fn filter, void *ctx, mo_cl_pairs *pairs)
{
    if (!bp || !pairs || n < 0 || (n > 0 && !objs) || !(margin >= 0.0))
        return -1;
    pairs->count = 0;
    bp->reinserts = 0;
    /* until this update completes, the cached pairs cannot be trusted */
    int rebuild = !bp->raw_valid;
    bp->raw_valid = 0;
    int nplanes, nmoved;
    if (bp_sync_proxies(bp, objs, n, disp, margin, 1, rebuild, &nplanes, &nmoved))
        return -1;

    /* planes against every proxied object's margin box, as mo_cl_broadphase */
    for (int i = 0; i < n && nplanes > 0; ++i) {
        if (bp->obj_rec[i] < 0)
            continue;
        const double *lo = bp->info[i].lo, *hi = bp->info[i].hi;
        for (int k = 0; k < nplanes; ++k) {
            const mo_cl_object *pl = &objs[bp->planes[k]];
            double pn[3] = {pl->rot[2], pl->rot[5], pl->rot[8]};
            double off = pn[0] * pl->pos[0] + pn[1] * pl->pos[1] + pn[2] * pl->pos[2];
            double low = (pn[0] >= 0.0 ? pn[0] * lo[0] : pn[0] * hi[0]) +
                         (pn[1] >= 0.0 ? pn[1] * lo[1] : pn[1] * hi[1]) +
                         (pn[2] >= 0.0 ? pn[2] * lo[2] : pn[2] * hi[2]);
            if (low <= off && emit_pair(pairs, bp->info, bp->planes[k], i, 0, filter, ctx))
                return -1;
        }
    }

    /* cached record pairs: keep those between proxies that stayed put */
    const bp_record *recs = bp->recs;
    int *rec_obj = bp->rec_obj;
    for (int r = 0; r < bp->rec_top; ++r)
        rec_obj[r] = recs[r].live && recs[r].moved != bp->stamp ? recs[r].obj : -1;
    int w = 0;
    if (!rebuild) {
        for (int k = 0; k < bp->raw_count; ++k) {
            if (rec_obj[bp->raw[k][0]] >= 0 && rec_obj[bp->raw[k][1]] >= 0) {
                bp->raw[w][0] = bp->raw[k][0];
                bp->raw[w][1] = bp->raw[k][1];
                ++w;
            }
        }
    }
    bp->raw_count = w;

    /* (re-)inserted proxies (all of them when rebuilding): query the moving
       tree, and moving ones the static tree too */
    bp_query q = {bp, 0, 0};
    bp->fresh_count = 0;
    if (rebuild)
        for (int r = 0; r < bp->rec_top; ++r)
            if (bp->recs[r].live)
                bp->recs[r].moved = bp->stamp; /* every record queries: dedupe by id */
    for (int k = 0; k < nmoved && q.status == 0; ++k) {
        int r = bp->moved[k];
        const bp_record *rec = &recs[r];
        q.self = r;
        mo_cl_tree_query(bp->tree[BP_MOVING], rec->flo, rec->fhi, bp_query_cb, &q);
        if (rec->tree == BP_MOVING && q.status == 0)
            mo_cl_tree_query(bp->tree[BP_STATIC], rec->flo, rec->fhi, bp_query_cb, &q);
    }
    if (q.status)
        return -1;
    if (merge_fresh(bp))
        return -1;

    /* record pairs to object pairs, through the rules */
    for (int r = 0; r < bp->rec_top; ++r)
        rec_obj[r] = recs[r].obj; /* live records only appear in pairs */
    if (bp->raw_count > INT_MAX - pairs->count ||
        grow_pairs(&pairs->pairs, &pairs->capacity, pairs->count + bp->raw_count))
        return -1;
    const bp_obj_info *info = bp->info;
    const int exact = bp->exact;
    int(*out)[2] = pairs->pairs, np = pairs->count;
    for (int k = 0; k < bp->raw_count; ++k) {
        /* emit_pair inlined, the cheap rules first and without branches */
        int i = rec_obj[bp->raw[k][0]], j = rec_obj[bp->raw[k][1]];
        const bp_obj_info *oi = &info[i], *oj = &info[j];
        int keep = !(oi->is_static & oj->is_static) & !((oi->group != 0) & (oi->group == oj->group));
        if (exact)
            keep &= boxes_overlap(oi->lo, oi->hi, oj->lo, oj->hi);
        if (!keep)
            continue;
        int a = i < j ? i : j, b = i < j ? j : i;
        if (filter && !filter(ctx, a, b))
            continue;
        out[np][0] = a;
        out[np][1] = b;
        ++np;
    }
    pairs->count = np;

    /* deterministic order: by b, then stably by a, through the buffer's spare half;
       usually already so (planes first, records in object order), then untouched */
    int count = pairs->count, sorted = 1;
    for (int k = 1; k < count && sorted; ++k)
        sorted = pairs->pairs[k - 1][0] < pairs->pairs[k][0] ||
                 (pairs->pairs[k - 1][0] == pairs->pairs[k][0] && pairs->pairs[k - 1][1] < pairs->pairs[k][1]);
    if (!sorted) {
        if (count > INT_MAX / 2 || grow_pairs(&pairs->pairs, &pairs->capacity, 2 * count))
            return -1;
        int(*tmp)[2] = pairs->pairs + count;
        mo_cl_pairs_counting_sort(pairs->pairs, tmp, count, 1, n, bp->cnt);
        mo_cl_pairs_counting_sort(tmp, pairs->pairs, count, 0, n, bp->cnt);
    }
    bp->raw_valid = 1;
    bp->last_n = n;
    return 0;
}
