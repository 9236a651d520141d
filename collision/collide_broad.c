/* collide_broad.c: broadphase, candidate pairs from AABBs.
 *
 * Design. Sort-and-sweep (Baraff's sweep and prune, as in Bullet's and
 * Box2D v2's SAP, here stateless): the non-plane objects are sorted by the
 * low end of their AABB along the world axis with the largest variance of AABB
 * centres (ties broken by index, so the order is deterministic), then each
 * object is tested against the following ones until their low end passes its
 * high end; the other two axes are checked directly. Planes have no finite
 * AABB, so they are kept apart and tested against every non-plane object: a
 * pair when the AABB's lowest corner along the plane normal is at or below the
 * plane. Static/static and same-group pairs are skipped, then the user filter
 * is applied. The result is sorted by (a, b) with two stable counting passes
 * (by b, then by a) through the spare half of the pairs buffer. Cost:
 * O(n log n + pairs) plus O(planes * n). Scratch: one allocation per call
 * (sweep items and counts), freed before return; the pairs buffer keeps twice
 * the pair count of its largest step. */
#include "collide.h"
#include "broad_internal.h"

#include <limits.h>
#include <stdlib.h>

/* one non-plane object on the sweep axis; the other two axes kept alongside
   so the overlap test stays in the sorted array (56 bytes) */
typedef struct sweep_item {
    double lo, hi;   /* along the sweep axis */
    double lo1, hi1; /* along the next axis */
    double lo2, hi2; /* along the one after */
    int idx;
    int is_static;
    uint32_t group;
} sweep_item;

static int cmp_sweep(const void *pa, const void *pb)
{
    const sweep_item *a = pa, *b = pb;
    if (a->lo < b->lo)
        return -1;
    if (a->lo > b->lo)
        return 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* pairs buffer holding at least `need` pairs; -1 when out of memory */
static int pairs_reserve(mo_cl_pairs *p, int need)
{
    if (need <= p->capacity)
        return 0;
    int cap = p->capacity > 0 ? p->capacity : 256;
    while (cap < need) {
        if (cap > INT_MAX / 2)
            return -1;
        cap *= 2;
    }
    void *mem = realloc(p->pairs, (size_t)cap * sizeof *p->pairs);
    if (!mem)
        return -1;
    p->pairs = mem;
    p->capacity = cap;
    return 0;
}

/* stable counting sort of src into dst by element `key` (0 or 1) of each
   pair; values in [0, n), cnt holds n + 1 ints (broad_internal.h) */
void mo_cl_pairs_counting_sort(int (*src)[2], int (*dst)[2], int count, int key, int n, int *cnt)
{
    for (int v = 0; v <= n; ++v)
        cnt[v] = 0;
    for (int i = 0; i < count; ++i)
        ++cnt[src[i][key] + 1];
    for (int v = 0; v < n; ++v)
        cnt[v + 1] += cnt[v];
    for (int i = 0; i < count; ++i) {
        int at = cnt[src[i][key]]++;
        dst[at][0] = src[i][0];
        dst[at][1] = src[i][1];
    }
}

/* appends (min, max) of i, j when the rules allow it; -1 when out of memory */
static int emit_pair(mo_cl_pairs *p, int i, int j, int static_i, int static_j, uint32_t group_i,
                     uint32_t group_j, mo_cl_filter_fn filter, void *ctx)
{
    if (static_i && static_j)
        return 0;
    if (group_i != 0 && group_i == group_j)
        return 0;
    int a = i < j ? i : j, b = i < j ? j : i;
    if (filter && !filter(ctx, a, b))
        return 0;
    if (p->count >= p->capacity) {
        if (p->count == INT_MAX || pairs_reserve(p, p->count + 1))
            return -1;
    }
    p->pairs[p->count][0] = a;
    p->pairs[p->count][1] = b;
    ++p->count;
    return 0;
}

/* a non-plane object the broadphase can use: known type, ordered bounds (no NaN) */
static int sweepable(const mo_cl_object *o)
{
    if (o->type != MO_CL_SPHERE && o->type != MO_CL_BOX)
        return 0;
    for (int k = 0; k < 3; ++k)
        if (!(o->aabb_min[k] <= o->aabb_max[k]))
            return 0;
    return 1;
}

int mo_cl_broadphase(const mo_cl_object *objs, int n, mo_cl_filter_fn filter, void *ctx,
                     mo_cl_pairs *pairs)
{
    if (!pairs)
        return -1;
    pairs->count = 0;
    if (n <= 0 || !objs)
        return 0;

    /* sweep axis: largest variance of the AABB centres (two passes) */
    int m = 0, nplanes = 0;
    double mean[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        const mo_cl_object *o = &objs[i];
        if (o->type == MO_CL_PLANE)
            ++nplanes;
        if (!sweepable(o))
            continue;
        for (int k = 0; k < 3; ++k)
            mean[k] += o->aabb_min[k] + o->aabb_max[k];
        ++m;
    }
    if (m == 0)
        return 0;
    for (int k = 0; k < 3; ++k)
        mean[k] /= m;
    double var[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        const mo_cl_object *o = &objs[i];
        if (!sweepable(o))
            continue;
        for (int k = 0; k < 3; ++k) {
            double c = o->aabb_min[k] + o->aabb_max[k] - mean[k];
            var[k] += c * c;
        }
    }
    int ax = 0;
    if (var[1] > var[ax])
        ax = 1;
    if (var[2] > var[ax])
        ax = 2;
    int ax1 = (ax + 1) % 3, ax2 = (ax + 2) % 3;

    /* sorted items; counts for the final pair sort after them */
    sweep_item *items = malloc((size_t)m * sizeof *items + ((size_t)n + 1) * sizeof(int));
    if (!items)
        return -1;
    int *cnt = (int *)(items + m);
    int w = 0;
    for (int i = 0; i < n; ++i) {
        const mo_cl_object *o = &objs[i];
        if (!sweepable(o))
            continue;
        sweep_item *it = &items[w++];
        it->lo = o->aabb_min[ax];
        it->hi = o->aabb_max[ax];
        it->lo1 = o->aabb_min[ax1];
        it->hi1 = o->aabb_max[ax1];
        it->lo2 = o->aabb_min[ax2];
        it->hi2 = o->aabb_max[ax2];
        it->idx = i;
        it->is_static = o->is_static != 0;
        it->group = o->group;
    }
    qsort(items, (size_t)m, sizeof *items, cmp_sweep);

    /* sweep: each item against the following ones that start before it ends */
    int status = 0;
    for (int i = 0; i < m && status == 0; ++i) {
        const sweep_item *a = &items[i];
        for (int j = i + 1; j < m && items[j].lo <= a->hi; ++j) {
            const sweep_item *b = &items[j];
            /* branch-free overlap on the other two axes, not both static */
            int hit = (b->lo1 <= a->hi1) & (a->lo1 <= b->hi1) & (b->lo2 <= a->hi2) &
                      (a->lo2 <= b->hi2) & !(a->is_static & b->is_static);
            if (!hit)
                continue;
            status = emit_pair(pairs, a->idx, b->idx, a->is_static, b->is_static, a->group,
                               b->group, filter, ctx);
            if (status)
                break;
        }
    }

    /* planes: every non-plane AABB whose lowest corner along the normal reaches the plane */
    for (int p = 0; p < n && nplanes > 0 && status == 0; ++p) {
        const mo_cl_object *pl = &objs[p];
        if (pl->type != MO_CL_PLANE)
            continue;
        double pn[3] = {pl->rot[2], pl->rot[5], pl->rot[8]};
        double off = pn[0] * pl->pos[0] + pn[1] * pl->pos[1] + pn[2] * pl->pos[2];
        int pst = pl->is_static != 0;
        for (int i = 0; i < m; ++i) {
            const sweep_item *it = &items[i];
            if (pst && it->is_static)
                continue;
            const mo_cl_object *o = &objs[it->idx];
            double low = (pn[0] >= 0.0 ? pn[0] * o->aabb_min[0] : pn[0] * o->aabb_max[0]) +
                         (pn[1] >= 0.0 ? pn[1] * o->aabb_min[1] : pn[1] * o->aabb_max[1]) +
                         (pn[2] >= 0.0 ? pn[2] * o->aabb_min[2] : pn[2] * o->aabb_max[2]);
            if (!(low <= off))
                continue;
            status = emit_pair(pairs, p, it->idx, pst, it->is_static, pl->group, it->group,
                               filter, ctx);
            if (status)
                break;
        }
    }

    /* deterministic order: by b, then stably by a, through the buffer's spare half */
    int count = pairs->count;
    if (status == 0 && count > 1) {
        if (count > INT_MAX / 2 || pairs_reserve(pairs, 2 * count)) {
            status = -1;
        } else {
            int(*tmp)[2] = pairs->pairs + count;
            mo_cl_pairs_counting_sort(pairs->pairs, tmp, count, 1, n, cnt);
            mo_cl_pairs_counting_sort(tmp, pairs->pairs, count, 0, n, cnt);
        }
    }
    free(items);
    return status ? -1 : 0;
}

void mo_cl_pairs_free(mo_cl_pairs *pairs)
{
    if (!pairs)
        return;
    free(pairs->pairs);
    pairs->pairs = NULL;
    pairs->count = 0;
    pairs->capacity = 0;
}
