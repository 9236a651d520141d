/* broad_tree.c: the dynamic AABB tree (mo_cl_tree_*); the engine broadphase
 * built on two of them (mo_cl_bp_*) is in broad_bp.c.
 *
 * Design. The tree follows Box2D's dynamic tree (b2DynamicTree, v2.4 and v3):
 * a binary tree whose leaves are proxies holding a user value and a fat box,
 * inner nodes holding the union of their children's boxes, all nodes in one
 * pool (grown by realloc, node ids stable, free nodes chained through their
 * parent field). A proxy id is its leaf's node id.
 *
 *   insertion   the new leaf D's sibling S is chosen by the surface area
 *               heuristic with branch and bound (Bittner et al. 2013; Catto,
 *               GDC 2019): cost(S) = area(S u D) + sum over S's ancestors X of
 *               area(X u D) - area(X); a subtree under X is explored only when
 *               its lower bound (the inherited cost plus area(D), or plus
 *               area(X u D) for X itself) beats the best cost found. Areas
 *               are half surface areas. Candidates are leaves and nodes of
 *               height 1, so the new parent (S, D) is balanced (see below).
 *   balancing   walking up from the new parent (or from the removed leaf's
 *               grandparent), each ancestor A = (B, C) is refitted; when
 *               |h(B) - h(C)| = 2 the taller child is rotated up and takes A's
 *               place, its taller grandchild staying with it and the other
 *               going under A (an AVL rotation for a leaf-data tree; the
 *               single rotation suffices because children may be reordered
 *               freely); otherwise the SAH rotation of Box2D v3 (swap B with a
 *               child of C, or C with a child of B, when that shrinks the
 *               demoted node's area) is applied if it keeps every affected node
 *               balanced and A's height unchanged. Every insertion or removal
 *               changes a subtree's height by at most one, so |h(B) - h(C)|
 *               never exceeds 2 on the walk and every inner node keeps
 *               |h(B) - h(C)| <= 1 (AVL): a tree of height h has at least
 *               Fibonacci F(h + 2) leaves, so height <= 1.44 log2 n, at most
 *               44 for any int leaf count.
 *   traversal   query, ray cast and sibling search use an explicit stack of
 *               TREE_STACK entries on the C stack: a depth-first traversal
 *               holds at most height + 1 entries, so 64 cannot overflow under
 *               the AVL bound (no recursion, no allocation, reentrant: a
 *               callback may query the same tree, several threads may query
 *               at once). A growable stack kept in the tree would do too, but
 *               the bound makes it unnecessary and a const query writing into
 *               the tree would not be reentrant. The tree must not be changed
 *               from a query or ray cast callback.
 *   move        a proxy is re-inserted only when the given box leaves its fat
 *               box; the new fat box is the box grown by margin on all sides
 *               and extended by the displacement on its side (Box2D v2.4's
 *               b2DynamicTree::MoveProxy, without its shrink rule: a fat box
 *               left large by a fast step stays until the object leaves it).
 *   ray cast    slab test per node; children are pushed farther first so the
 *               nearer one is visited first, and the callback's return clips
 *               tmax, pruning everything beyond.
 *
 * A greedy sibling descent (Box2D v3's, restricted to height <= 1 siblings)
 * was measured against the branch and bound: 15% cheaper insertions but 3.5x
 * dearer queries on pile:10000, so branch and bound stays. */
#include "shapes.h"
#include "broad_tree.h"
#include "broad_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define NULL_NODE (-1)
#define TREE_STACK 64

/* ---- tree ---- */

/* one node (72 bytes); free nodes have height -1 and chain through parent */
typedef struct tree_node {
    double lo[3], hi[3]; /* leaf: fat box; inner: union of the children */
    int parent;          /* NULL_NODE at the root; free: next free node */
    int child1, child2;  /* NULL_NODE for leaves */
    int user;            /* leaves */
    int height;          /* leaf 0, inner 1 + max(children), free -1 */
    int pad_;
} tree_node;

struct mo_cl_tree {
    tree_node *nodes; /* (capacity) */
    int capacity;
    int used;      /* allocated nodes (leaves + inner) */
    int free_list; /* NULL_NODE when empty */
    int root;      /* NULL_NODE when empty */
    int leaves;
};

/* half surface area; NaN for NaN boxes */
static double box_area(const double *lo, const double *hi)
{
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
}

static double union_area(const double *alo, const double *ahi, const double *blo, const double *bhi)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = alo[k] < blo[k] ? alo[k] : blo[k];
        hi[k] = ahi[k] > bhi[k] ? ahi[k] : bhi[k];
    }
    return box_area(lo, hi);
}

/* inner node's box and height from its children; fmin/fmax skip a NaN child
   bound, so a NaN leaf overlaps nothing but never hides its neighbours */
static void refit(tree_node *nodes, int i)
{
    tree_node *a = &nodes[i];
    const tree_node *b = &nodes[a->child1], *c = &nodes[a->child2];
    for (int k = 0; k < 3; ++k) {
        double bl = b->lo[k], cl = c->lo[k], bh = b->hi[k], ch = c->hi[k];
        a->lo[k] = cl < bl || bl != bl ? cl : bl; /* fmin, inline */
        a->hi[k] = ch > bh || bh != bh ? ch : bh;
    }
    a->height = 1 + (b->height > c->height ? b->height : c->height);
}
/* room for `extra` more nodes: grows the pool, chaining new nodes lowest id first */
static int reserve_nodes(mo_cl_tree *t, int extra)
{
    if (t->used <= t->capacity - extra)
        return 0;
    if (t->capacity > INT_MAX / 2 - 16)
        return -1;
    int cap = t->capacity > 0 ? 2 * t->capacity : 16;
    if ((size_t)cap > SIZE_MAX / sizeof(tree_node))
        return -1;
    tree_node *mem = realloc(t->nodes, (size_t)cap * sizeof *mem);
    if (!mem)
        return -1;
    t->nodes = mem;
    for (int i = cap - 1; i >= t->capacity; --i) {
        mem[i].height = -1;
        mem[i].child1 = mem[i].child2 = NULL_NODE;
        mem[i].parent = t->free_list;
        t->free_list = i;
    }
    t->capacity = cap;
    return 0;
}

/* a node off the free list (reserve_nodes first) */
static int alloc_node(mo_cl_tree *t)
{
    int i = t->free_list;
    tree_node *nd = &t->nodes[i];
    t->free_list = nd->parent;
    nd->parent = nd->child1 = nd->child2 = NULL_NODE;
    nd->user = 0;
    nd->height = 0;
    nd->pad_ = 0;
    ++t->used;
    return i;
}

static void free_node(mo_cl_tree *t, int i)
{
    tree_node *nd = &t->nodes[i];
    nd->height = -1;
    nd->child1 = nd->child2 = NULL_NODE;
    nd->parent = t->free_list;
    t->free_list = i;
    --t->used;
}

/* in old's parent (or at the root), put node repl in old's place */
static void replace_child(mo_cl_tree *t, int parent, int old, int repl)
{
    tree_node *nodes = t->nodes;
    nodes[repl].parent = parent;
    if (parent == NULL_NODE)
        t->root = repl;
    else if (nodes[parent].child1 == old)
        nodes[parent].child1 = repl;
    else
        nodes[parent].child2 = repl;
}

/* A's child `up` (taller by 2) rotates up into A's place: up keeps its taller
   child, A takes the other one next to A's remaining child. Returns up. */
static int rotate_up(mo_cl_tree *t, int a, int up)
{
    tree_node *nodes = t->nodes;
    int f = nodes[up].child1, g = nodes[up].child2;
    int stay = f, down = g; /* stay with up, go down under A */
    if (nodes[g].height > nodes[f].height) {
        stay = g;
        down = f;
    } else if (nodes[g].height == nodes[f].height) {
        /* either keeps A balanced: the smaller A */
        int other = nodes[a].child1 == up ? nodes[a].child2 : nodes[a].child1;
        double af = union_area(nodes[other].lo, nodes[other].hi, nodes[f].lo, nodes[f].hi);
        double ag = union_area(nodes[other].lo, nodes[other].hi, nodes[g].lo, nodes[g].hi);
        if (af < ag) {
            stay = g;
            down = f;
        }
    }
    replace_child(t, nodes[a].parent, a, up);
    /* A: `down` takes up's slot */
    if (nodes[a].child1 == up)
        nodes[a].child1 = down;
    else
        nodes[a].child2 = down;
    nodes[down].parent = a;
    /* up: A and stay */
    nodes[up].child1 = a;
    nodes[up].child2 = stay;
    nodes[a].parent = up;
    nodes[stay].parent = up;
    refit(nodes, a);
    refit(nodes, up);
    return up;
}

/* SAH rotation at A (balanced, refitted): swap one child of A with a grandchild
   under the other child when that shrinks the demoted node, keeps the demoted
   node and A balanced (Box2D v3's b2RotateNodes with the AVL constraint; A's
   height cannot grow then, checked anyway). */
static void sah_rotate(mo_cl_tree *t, int a)
{
    tree_node *nodes = t->nodes;
    int best_down = NULL_NODE, best_up = NULL_NODE, best_host = NULL_NODE;
    double best_delta = 0.0;
    int ha = nodes[a].height;
    for (int side = 0; side < 2; ++side) {
        int x = side == 0 ? nodes[a].child1 : nodes[a].child2; /* goes down */
        int y = side == 0 ? nodes[a].child2 : nodes[a].child1; /* host of the grandchildren */
        if (nodes[y].height == 0)
            continue;
        double area_y = box_area(nodes[y].lo, nodes[y].hi);
        for (int gi = 0; gi < 2; ++gi) {
            int up = gi == 0 ? nodes[y].child1 : nodes[y].child2;
            int keep = gi == 0 ? nodes[y].child2 : nodes[y].child1;
            int hx = nodes[x].height, hk = nodes[keep].height, hu = nodes[up].height;
            if (hx - hk > 1 || hk - hx > 1)
                continue;
            int hy = 1 + (hx > hk ? hx : hk);
            if (hu - hy > 1 || hy - hu > 1 || 1 + (hu > hy ? hu : hy) > ha)
                continue;
            double delta = union_area(nodes[x].lo, nodes[x].hi, nodes[keep].lo, nodes[keep].hi) - area_y;
            if (delta < best_delta) {
                best_delta = delta;
                best_down = x;
                best_up = up;
                best_host = y;
            }
        }
    }
    if (best_down == NULL_NODE)
        return;
    /* swap best_down (child of A) with best_up (child of best_host) */
    if (nodes[a].child1 == best_down)
        nodes[a].child1 = best_up;
    else
        nodes[a].child2 = best_up;
    if (nodes[best_host].child1 == best_up)
        nodes[best_host].child1 = best_down;
    else
        nodes[best_host].child2 = best_down;
    nodes[best_up].parent = a;
    nodes[best_down].parent = best_host;
    refit(nodes, best_host);
    refit(nodes, a);
}

/* refit and rebalance from node i up to the root */
static void fix_upwards(mo_cl_tree *t, int i)
{
    tree_node *nodes = t->nodes;
    while (i != NULL_NODE) {
        int b = nodes[i].child1, c = nodes[i].child2;
        int bal = nodes[c].height - nodes[b].height;
        if (bal > 1)
            i = rotate_up(t, i, c);
        else if (bal < -1)
            i = rotate_up(t, i, b);
        else {
            refit(nodes, i);
            sah_rotate(t, i);
        }
        i = nodes[i].parent;
    }
}

/* sibling search stack entry: a node, the cost inherited from its ancestors,
   the lower bound of any candidate under it, area(node u D), area(node) */
typedef struct sib_item {
    int node;
    double inh, lb, direct, area;
} sib_item;

/* best sibling for box D = [lo, hi] (non-empty tree): branch and bound on the
   SAH cost over leaves and height-1 nodes, the most promising child first */
static int find_sibling(const mo_cl_tree *t, const double *lo, const double *hi)
{
    const tree_node *nodes = t->nodes;
    double area_d = box_area(lo, hi);
    double best = HUGE_VAL;
    int best_node = NULL_NODE;
    sib_item stack[TREE_STACK];
    int sp = 0;
    const tree_node *rn = &nodes[t->root];
    stack[sp++] = (sib_item){t->root, 0.0, 0.0, union_area(rn->lo, rn->hi, lo, hi), box_area(rn->lo, rn->hi)};
    while (sp > 0) {
        sib_item it = stack[--sp];
        if (!(it.lb < best))
            continue;
        const tree_node *nd = &nodes[it.node];
        if (nd->height <= 1 && it.direct + it.inh < best) {
            best = it.direct + it.inh;
            best_node = it.node;
        }
        if (nd->height == 0)
            continue;
        double inh = it.inh + it.direct - it.area; /* what D adds to this node */
        sib_item kid[2];
        for (int s = 0; s < 2; ++s) {
            int c = s == 0 ? nd->child1 : nd->child2;
            const tree_node *cn = &nodes[c];
            double dc = union_area(cn->lo, cn->hi, lo, hi), ac = box_area(cn->lo, cn->hi);
            double lb = inh + dc; /* c itself as the sibling */
            if (cn->height > 0) {
                double below = inh + dc - ac + area_d; /* a descendant of c */
                if (cn->height > 1 || below < lb)
                    lb = below;
            }
            kid[s] = (sib_item){c, inh, lb, dc, ac};
        }
        int first = kid[0].lb < kid[1].lb ? 1 : 0; /* pushed first, popped last */
        for (int s = 0; s < 2; ++s) {
            const sib_item *k = &kid[s == 0 ? first : 1 - first];
            if (k->lb < best && sp < TREE_STACK) /* sp: always true, height <= 44 (AVL) */
                stack[sp++] = *k;
        }
    }
    if (best_node == NULL_NODE) {
        /* NaN costs: any height <= 1 node */
        best_node = t->root;
        while (nodes[best_node].height > 1)
            best_node = nodes[best_node].child1;
    }
    return best_node;
}

/* links leaf (box set, detached) into the tree; one free node must be reserved */
static void insert_leaf(mo_cl_tree *t, int leaf)
{
    tree_node *nodes = t->nodes;
    if (t->root == NULL_NODE) {
        t->root = leaf;
        nodes[leaf].parent = NULL_NODE;
        return;
    }
    int s = find_sibling(t, nodes[leaf].lo, nodes[leaf].hi);
    int e = alloc_node(t);
    int p = nodes[s].parent;
    nodes[e].child1 = s;
    nodes[e].child2 = leaf;
    replace_child(t, p, s, e);
    nodes[s].parent = e;
    nodes[leaf].parent = e;
    refit(nodes, e);
    fix_upwards(t, p);
}

/* unlinks leaf (kept allocated) and frees its parent */
static void remove_leaf(mo_cl_tree *t, int leaf)
{
    tree_node *nodes = t->nodes;
    int p = nodes[leaf].parent;
    nodes[leaf].parent = NULL_NODE;
    if (p == NULL_NODE) {
        t->root = NULL_NODE;
        return;
    }
    int s = nodes[p].child1 == leaf ? nodes[p].child2 : nodes[p].child1;
    int g = nodes[p].parent;
    replace_child(t, g, p, s);
    free_node(t, p);
    fix_upwards(t, g);
}

static int is_leaf(const mo_cl_tree *t, int proxy)
{
    return t && proxy >= 0 && proxy < t->capacity && t->nodes[proxy].height == 0;
}

mo_cl_tree *mo_cl_tree_create(void)
{
    mo_cl_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->free_list = NULL_NODE;
    t->root = NULL_NODE;
    return t;
}

void mo_cl_tree_destroy(mo_cl_tree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}

int mo_cl_tree_insert(mo_cl_tree *t, const double *lo, const double *hi, int user)
{
    if (!t || !lo || !hi || reserve_nodes(t, 2))
        return -1;
    int leaf = alloc_node(t);
    tree_node *nd = &t->nodes[leaf];
    for (int k = 0; k < 3; ++k) {
        nd->lo[k] = lo[k];
        nd->hi[k] = hi[k];
    }
    nd->user = user;
    insert_leaf(t, leaf);
    ++t->leaves;
    return leaf;
}

void mo_cl_tree_remove(mo_cl_tree *t, int proxy)
{
    if (!is_leaf(t, proxy))
        return;
    remove_leaf(t, proxy);
    free_node(t, proxy);
    --t->leaves;
}

int mo_cl_tree_move(mo_cl_tree *t, int proxy, const double *lo, const double *hi, const double *displacement,
                    double margin)
{
    if (!is_leaf(t, proxy) || !lo || !hi)
        return 0;
    tree_node *nd = &t->nodes[proxy];
    if (nd->lo[0] <= lo[0] && nd->lo[1] <= lo[1] && nd->lo[2] <= lo[2] && hi[0] <= nd->hi[0] &&
        hi[1] <= nd->hi[1] && hi[2] <= nd->hi[2])
        return 0;
    remove_leaf(t, proxy);
    fatten(lo, hi, displacement, margin, nd->lo, nd->hi);
    insert_leaf(t, proxy); /* the parent freed by remove_leaf is reused */
    return 1;
}

void mo_cl_tree_fat_box(const mo_cl_tree *t, int proxy, double *lo, double *hi)
{
    for (int k = 0; k < 3; ++k) {
        if (is_leaf(t, proxy)) {
            lo[k] = t->nodes[proxy].lo[k];
            hi[k] = t->nodes[proxy].hi[k];
        } else {
            lo[k] = HUGE_VAL; /* empty */
            hi[k] = -HUGE_VAL;
        }
    }
}

void mo_cl_tree_query(const mo_cl_tree *t, const double *lo, const double *hi, int (*cb)(void *ctx, int proxy, int user),
                      void *ctx)
{
    if (!t || t->root == NULL_NODE || !lo || !hi || !cb)
        return;
    const tree_node *nodes = t->nodes;
    int stack[TREE_STACK];
    int sp = 0;
    stack[sp++] = t->root;
    while (sp > 0) {
        int i = stack[--sp];
        const tree_node *nd = &nodes[i];
        if (!boxes_overlap(nd->lo, nd->hi, lo, hi))
            continue;
        if (nd->height == 0) {
            if (!cb(ctx, i, nd->user))
                return;
        } else if (sp <= TREE_STACK - 2) { /* always true: height <= 44 (AVL) */
            stack[sp++] = nd->child2;
            stack[sp++] = nd->child1;
        }
    }
}

/* ray stack entry: a node and the s at which the ray enters its box */
typedef struct ray_item {
    int node;
    double enter;
} ray_item;

/* segment origin + s dir, s in [0, tmax], against a box: 1 and the entry s, or 0 */
static int ray_box(const double *o, const double *d, double tmax, const double *lo, const double *hi, double *enter)
{
    double t0 = 0.0, t1 = tmax;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0) {
            if (!(lo[k] <= o[k] && o[k] <= hi[k]))
                return 0;
            continue;
        }
        double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        if (a > b) {
            double s = a;
            a = b;
            b = s;
        }
        if (a > t0)
            t0 = a;
        if (b < t1)
            t1 = b;
        if (!(t0 <= t1))
            return 0;
    }
    *enter = t0;
    return 1;
}

void mo_cl_tree_raycast(const mo_cl_tree *t, const double *origin, const double *dir, double tmax,
                        double (*cb)(void *ctx, int proxy, int user, double tmax), void *ctx)
{
    if (!t || t->root == NULL_NODE || !origin || !dir || !cb || !(tmax >= 0.0))
        return;
    for (int k = 0; k < 3; ++k)
        if (!isfinite(origin[k]) || !isfinite(dir[k]))
            return;
    const tree_node *nodes = t->nodes;
    ray_item stack[TREE_STACK];
    int sp = 0;
    double s0;
    if (!ray_box(origin, dir, tmax, nodes[t->root].lo, nodes[t->root].hi, &s0))
        return;
    stack[sp++] = (ray_item){t->root, s0};
    while (sp > 0) {
        ray_item it = stack[--sp];
        if (it.enter > tmax) /* clipped since pushed */
            continue;
        const tree_node *nd = &nodes[it.node];
        if (nd->height == 0) {
            double r = cb(ctx, it.node, nd->user, tmax);
            if (r < 0.0)
                return;
            if (r < tmax)
                tmax = r;
            continue;
        }
        double s1 = 0.0, s2 = 0.0;
        int h1 = ray_box(origin, dir, tmax, nodes[nd->child1].lo, nodes[nd->child1].hi, &s1);
        int h2 = ray_box(origin, dir, tmax, nodes[nd->child2].lo, nodes[nd->child2].hi, &s2);
        if (sp > TREE_STACK - 2) /* never: height <= 44 (AVL) */
            continue;
        if (h1 && h2) {
            /* farther first: the nearer one is popped next */
            ray_item near1 = {nd->child1, s1}, near2 = {nd->child2, s2};
            if (s2 < s1) {
                stack[sp++] = near1;
                stack[sp++] = near2;
            } else {
                stack[sp++] = near2;
                stack[sp++] = near1;
            }
        } else if (h1) {
            stack[sp++] = (ray_item){nd->child1, s1};
        } else if (h2) {
            stack[sp++] = (ray_item){nd->child2, s2};
        }
    }
}

int mo_cl_tree_height(const mo_cl_tree *t)
{
    return t && t->root != NULL_NODE ? t->nodes[t->root].height : 0;
}

int mo_cl_tree_count(const mo_cl_tree *t)
{
    return t ? t->leaves : 0;
}

int mo_cl_tree_root(const mo_cl_tree *t)
{
    return t ? t->root : NULL_NODE;
}

int mo_cl_tree_capacity(const mo_cl_tree *t)
{
    return t ? t->capacity : 0;
}

int mo_cl_tree_node(const mo_cl_tree *t, int id, int *parent, int *child1, int *child2, int *height,
                    int *user, double *lo, double *hi)
{
    if (!t || id < 0 || id >= t->capacity || t->nodes[id].height < 0)
        return 0;
    const tree_node *nd = &t->nodes[id];
    if (parent)
        *parent = nd->parent;
    if (child1)
        *child1 = nd->child1;
    if (child2)
        *child2 = nd->child2;
    if (height)
        *height = nd->height;
    if (user)
        *user = nd->user;
    for (int k = 0; k < 3; ++k) {
        if (lo)
            lo[k] = nd->lo[k];
        if (hi)
            hi[k] = nd->hi[k];
    }
    return nd->height == 0 ? 1 : 2;
}
