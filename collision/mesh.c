/* mesh.c: triangle meshes with a bounding volume hierarchy over the
 * triangles' axis-aligned boxes.
 *
 * Build. Top-down binned SAH (Wald, "On fast construction of SAH-based
 * bounding volume hierarchies", 2007): centroids binned into 16 bins along
 * each axis of the centroid box, the split plane with the lowest
 * area(left) * count(left) + area(right) * count(right) wins. Every range of
 * more than 4 triangles is split (leaves hold 1..4 triangles). When all
 * centroids coincide SAH has no plane: the range is halved in index order.
 * From depth k_sah_depth (48) on, the split is a median split (count halved) so
 * the depth stays below k_sah_depth + log2(ntris) + 1 < MESH_STACK (128) and a
 * fixed traversal stack is always enough. The children of an inner node are
 * allocated as a pair (right = left + 1); node 0 is the root. Construction is
 * iterative (explicit work list), no recursion.
 *
 * closed: the directed edges (a, b) of all triangles sorted by undirected
 * key; closed when every undirected edge occurs exactly twice, once each way.
 *
 * Query: stack traversal (fixed array, no allocation), inclusive box overlap
 * (touching boxes overlap); in a leaf each triangle's own box is tested, so
 * exactly the triangles whose boxes overlap are reported. */
#include "shapes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_MAX 4
#define NBINS 16
#define MESH_STACK 128
static const int k_sah_depth = 48; /* past this depth, median splits */
static const double k_degenerate_rel = 1e-12; /* |e1 x e2| <= this * longest edge^2: zero area */

void mo_cl_mesh_free(mo_cl_mesh *m)
{
    if (!m) return;
    free(m->verts);
    free(m->tris);
    free(m->nodes);
    free(m->tri_order);
    memset(m, 0, sizeof *m);
}

/* ---- closed flag ---- */

typedef struct dir_edge {
    int lo, hi;
    int forward; /* 1 when the triangle runs lo -> hi */
} dir_edge;

static int cmp_dir_edge(const void *pa, const void *pb)
{
    const dir_edge *x = (const dir_edge *)pa, *y = (const dir_edge *)pb;
    if (x->lo != y->lo) return (x->lo > y->lo) - (x->lo < y->lo);
    if (x->hi != y->hi) return (x->hi > y->hi) - (x->hi < y->hi);
    return (x->forward > y->forward) - (x->forward < y->forward);
}

/* returns 1 closed, 0 open, -1 out of memory */
static int compute_closed(const int *tris, int ntris)
{
    size_t ne = (size_t)ntris * 3;
    dir_edge *e = (dir_edge *)malloc(ne * sizeof *e);
    if (!e) return -1;
    for (int t = 0; t < ntris; ++t)
        for (int k = 0; k < 3; ++k) {
            int a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
            dir_edge *d = &e[3 * (size_t)t + (size_t)k];
            d->lo = a < b ? a : b;
            d->hi = a < b ? b : a;
            d->forward = a < b;
        }
    qsort(e, ne, sizeof *e, cmp_dir_edge);
    int closed = 1;
    size_t i = 0;
    while (i < ne && closed) {
        size_t j = i;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi) ++j;
        /* sorted by forward: exactly (0, 1) */
        if (j - i != 2 || e[i].forward != 0 || e[i + 1].forward != 1) closed = 0;
        i = j;
    }
    free(e);
    return closed;
}

/* ---- BVH build ---- */

typedef struct box3 {
    double lo[3], hi[3];
} box3;

static void box_empty(box3 *b)
{
    for (int j = 0; j < 3; ++j) {
        b->lo[j] = HUGE_VAL;
        b->hi[j] = -HUGE_VAL;
    }
}

static void box_grow(box3 *b, const box3 *o)
{
    for (int j = 0; j < 3; ++j) {
        if (o->lo[j] < b->lo[j]) b->lo[j] = o->lo[j];
        if (o->hi[j] > b->hi[j]) b->hi[j] = o->hi[j];
    }
}

static double box_area(const box3 *b)
{
    double dx = b->hi[0] - b->lo[0], dy = b->hi[1] - b->lo[1], dz = b->hi[2] - b->lo[2];
    if (dx < 0 || dy < 0 || dz < 0) return 0;
    return dx * dy + dy * dz + dz * dx;
}

typedef struct build_item {
    int node, first, count, depth;
} build_item;

/* quickselect on tri_order[first, first + count) so the element at rank k has the k-th smallest centroid along axis */
static void select_kth(int *order, const double *cent, int axis, int first, int count, int k)
{
    int lo = first, hi = first + count - 1, target = first + k;
    while (lo < hi) {
        double pivot = cent[3 * order[(lo + hi) / 2] + axis];
        int i = lo, j = hi;
        while (i <= j) {
            while (cent[3 * order[i] + axis] < pivot) ++i;
            while (cent[3 * order[j] + axis] > pivot) --j;
            if (i <= j) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
                ++i;
                --j;
            }
        }
        if (target <= j) hi = j;
        else if (target >= i) lo = i;
        else break;
    }
}

/* splits the range; returns the size of the left part (1 .. count - 1) */
static int split_range(int *order, const box3 *tbox, const double *cent, int first, int count, int depth)
{
    box3 cb;
    box_empty(&cb);
    for (int i = first; i < first + count; ++i) {
        const double *c = cent + 3 * order[i];
        for (int j = 0; j < 3; ++j) {
            if (c[j] < cb.lo[j]) cb.lo[j] = c[j];
            if (c[j] > cb.hi[j]) cb.hi[j] = c[j];
        }
    }
    int axis = 0;
    for (int j = 1; j < 3; ++j)
        if (cb.hi[j] - cb.lo[j] > cb.hi[axis] - cb.lo[axis]) axis = j;
    if (!(cb.hi[axis] - cb.lo[axis] > 0)) return count / 2; /* all centroids coincide */
    if (depth >= k_sah_depth) {
        select_kth(order, cent, axis, first, count, count / 2);
        return count / 2;
    }

    /* binned SAH over the three axes */
    double best_cost = HUGE_VAL;
    int best_axis = -1, best_bin = -1;
    for (int ax = 0; ax < 3; ++ax) {
        double ext = cb.hi[ax] - cb.lo[ax];
        if (!(ext > 0)) continue;
        double scale = NBINS / ext;
        box3 bins[NBINS];
        int cnt[NBINS];
        for (int b = 0; b < NBINS; ++b) {
            box_empty(&bins[b]);
            cnt[b] = 0;
        }
        for (int i = first; i < first + count; ++i) {
            int t = order[i];
            int b = (int)((cent[3 * t + ax] - cb.lo[ax]) * scale);
            if (b >= NBINS) b = NBINS - 1;
            if (b < 0) b = 0;
            cnt[b]++;
            box_grow(&bins[b], &tbox[t]);
        }
        /* sweep from the right: area and count of bins b..NBINS-1 */
        double right_area[NBINS];
        int right_cnt[NBINS];
        box3 acc;
        box_empty(&acc);
        int c = 0;
        for (int b = NBINS - 1; b > 0; --b) {
            box_grow(&acc, &bins[b]);
            c += cnt[b];
            right_area[b] = box_area(&acc);
            right_cnt[b] = c;
        }
        box_empty(&acc);
        c = 0;
        for (int b = 0; b < NBINS - 1; ++b) {
            box_grow(&acc, &bins[b]);
            c += cnt[b];
            /* split between bin b and b + 1 */
            if (c == 0 || right_cnt[b + 1] == 0) continue;
            double cost = box_area(&acc) * c + right_area[b + 1] * right_cnt[b + 1];
            if (cost < best_cost) {
                best_cost = cost;
                best_axis = ax;
                best_bin = b;
            }
        }
    }
    if (best_axis < 0) return count / 2; /* unreachable: the longest axis has two non-empty ends */

    /* partition by the same bin formula */
    double scale = NBINS / (cb.hi[best_axis] - cb.lo[best_axis]);
    int i = first, j = first + count - 1;
    while (i <= j) {
        int t = order[i];
        int b = (int)((cent[3 * t + best_axis] - cb.lo[best_axis]) * scale);
        if (b >= NBINS) b = NBINS - 1;
        if (b <= best_bin) {
            ++i;
        } else {
            order[i] = order[j];
            order[j] = t;
            --j;
        }
    }
    int left = i - first;
    if (left <= 0 || left >= count) return count / 2; /* cannot happen; kept for safety */
    return left;
}

static int build_bvh(mo_cl_mesh *m)
{
    int n = m->ntris;
    box3 *tbox = (box3 *)malloc((size_t)n * sizeof *tbox);
    double *cent = (double *)malloc((size_t)n * 3 * sizeof *cent);
    build_item *work = (build_item *)malloc((size_t)n * sizeof *work);
    int cap = 2 * n;
    m->nodes = (mo_cl_bvh_node *)malloc((size_t)cap * sizeof *m->nodes);
    m->tri_order = (int *)malloc((size_t)n * sizeof *m->tri_order);
    if (!tbox || !cent || !work || !m->nodes || !m->tri_order) {
        free(tbox);
        free(cent);
        free(work);
        return -1;
    }
    for (int t = 0; t < n; ++t) {
        box_empty(&tbox[t]);
        for (int k = 0; k < 3; ++k) {
            const double *p = m->verts + 3 * m->tris[3 * t + k];
            for (int j = 0; j < 3; ++j) {
                if (p[j] < tbox[t].lo[j]) tbox[t].lo[j] = p[j];
                if (p[j] > tbox[t].hi[j]) tbox[t].hi[j] = p[j];
            }
        }
        for (int j = 0; j < 3; ++j) cent[3 * t + j] = 0.5 * (tbox[t].lo[j] + tbox[t].hi[j]);
        m->tri_order[t] = t;
    }

    int nnodes = 1, nwork = 0;
    work[nwork++] = (build_item){0, 0, n, 0};
    while (nwork > 0) {
        build_item it = work[--nwork];
        mo_cl_bvh_node *nd = &m->nodes[it.node];
        box3 b;
        box_empty(&b);
        for (int i = it.first; i < it.first + it.count; ++i) box_grow(&b, &tbox[m->tri_order[i]]);
        memcpy(nd->lo, b.lo, sizeof b.lo);
        memcpy(nd->hi, b.hi, sizeof b.hi);
        if (it.count <= LEAF_MAX) {
            nd->first = it.first;
            nd->count = it.count;
            continue;
        }
        int left = split_range(m->tri_order, tbox, cent, it.first, it.count, it.depth);
        int l = nnodes;
        nnodes += 2;
        nd->first = l;
        nd->count = 0;
        /* every range on the work list is disjoint with >= 1 triangle, so nwork + 2 <= n */
        work[nwork++] = (build_item){l + 1, it.first + left, it.count - left, it.depth + 1};
        work[nwork++] = (build_item){l, it.first, left, it.depth + 1};
    }
    m->nnodes = nnodes;
    mo_cl_bvh_node *shrunk = (mo_cl_bvh_node *)realloc(m->nodes, (size_t)nnodes * sizeof *m->nodes);
    if (shrunk) m->nodes = shrunk;
    free(tbox);
    free(cent);
    free(work);
    return 0;
}

int mo_cl_mesh_build(const double *verts, int nverts, const int *tris, int ntris, mo_cl_mesh *out, char *err,
                     size_t err_size)
{
    if (!out) {
        mo_cl_set_err(err, err_size, "mo_cl_mesh_build: out must not be NULL");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (ntris < 1 || !tris) {
        mo_cl_set_err(err, err_size, "mesh needs at least 1 triangle, got %d", tris ? ntris : 0);
        return -1;
    }
    if (nverts < 3 || !verts) {
        mo_cl_set_err(err, err_size, "mesh needs at least 3 vertices, got %d", verts ? nverts : 0);
        return -1;
    }
    for (int i = 0; i < nverts; ++i) {
        const double *p = verts + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            mo_cl_set_err(err, err_size, "mesh vertex %d is not finite, got (%g, %g, %g)", i, p[0], p[1], p[2]);
            return -1;
        }
    }
    for (int t = 0; t < ntris; ++t) {
        for (int k = 0; k < 3; ++k) {
            int v = tris[3 * t + k];
            if (v < 0 || v >= nverts) {
                mo_cl_set_err(err, err_size, "mesh triangle %d has vertex index %d out of range [0, %d)", t, v, nverts);
                return -1;
            }
        }
        const double *a = verts + 3 * tris[3 * t], *b = verts + 3 * tris[3 * t + 1], *c = verts + 3 * tris[3 * t + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double e3[3] = {c[0] - b[0], c[1] - b[1], c[2] - b[2]};
        double x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
        double l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
        double l3 = e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2];
        double lmax = l1 > l2 ? l1 : l2;
        if (l3 > lmax) lmax = l3;
        double cr = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (!(cr > k_degenerate_rel * lmax)) {
            mo_cl_set_err(err, err_size, "mesh triangle %d is degenerate (zero area)", t);
            return -1;
        }
    }

    out->nverts = nverts;
    out->ntris = ntris;
    out->verts = (double *)malloc((size_t)nverts * 3 * sizeof(double));
    out->tris = (int *)malloc((size_t)ntris * 3 * sizeof(int));
    if (!out->verts || !out->tris) goto oom;
    memcpy(out->verts, verts, (size_t)nverts * 3 * sizeof(double));
    memcpy(out->tris, tris, (size_t)ntris * 3 * sizeof(int));
    out->centroid[0] = out->centroid[1] = out->centroid[2] = 0.0;
    for (int i = 0; i < nverts; i++)
        for (int k = 0; k < 3; k++) out->centroid[k] += verts[3 * i + k] / nverts;
    int closed = compute_closed(out->tris, ntris);
    if (closed < 0) goto oom;
    out->closed = closed;
    if (build_bvh(out) != 0) goto oom;
    return 0;
oom:
    mo_cl_mesh_free(out);
    mo_cl_set_err(err, err_size, "mo_cl_mesh_build: out of memory");
    return -1;
}

void mo_cl_mesh_query(const mo_cl_mesh *m, const double *lo, const double *hi, void (*fn)(void *ctx, int tri),
                      void *ctx)
{
    if (!m || !m->nodes || m->nnodes <= 0) return;
    int stack[MESH_STACK];
    int sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const mo_cl_bvh_node *nd = &m->nodes[stack[--sp]];
        if (nd->lo[0] > hi[0] || nd->hi[0] < lo[0] || nd->lo[1] > hi[1] || nd->hi[1] < lo[1] || nd->lo[2] > hi[2] ||
            nd->hi[2] < lo[2])
            continue;
        if (nd->count > 0) {
            for (int i = nd->first; i < nd->first + nd->count; ++i) {
                int t = m->tri_order[i];
                const int *tv = m->tris + 3 * t;
                const double *a = m->verts + 3 * tv[0], *b = m->verts + 3 * tv[1], *c = m->verts + 3 * tv[2];
                int hit = 1;
                for (int j = 0; j < 3 && hit; ++j) {
                    double tl = fmin(a[j], fmin(b[j], c[j])), th = fmax(a[j], fmax(b[j], c[j]));
                    if (tl > hi[j] || th < lo[j]) hit = 0;
                }
                if (hit) fn(ctx, t);
            }
        } else {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
        }
    }
}
