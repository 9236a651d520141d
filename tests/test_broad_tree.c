/* test_broad_tree.c: the dynamic AABB tree (mo_cl_tree_*) and the tree
 * broadphase (mo_cl_bp_*) of collision/broad_tree.c, against brute force.
 *
 * Groups:
 *   tree ops      random insert / remove / move sequences against a model of
 *                 the live proxies (ids, users, fat boxes computed here from the
 *                 move rule, which also says when a move must re-insert); after
 *                 every batch the
 *                 structure is walked from the root: parent links, children,
 *                 inner box == union of the children (hence contains them),
 *                 heights, AVL balance |h1 - h2| <= 1, no leaked or unreachable
 *                 node, 2 leaves - 1 nodes, count; bad ids are ignored.
 *   tree height   10000 random boxes, and degenerate orders (sorted along a
 *                 line, identical, nested): height <= 2 log2 n + 2 (and the
 *                 AVL bound 1.44 log2(n + 2)), also after removing half.
 *   tree query    proxies reported == brute force over the leaves' fat boxes,
 *                 each once; early stop.
 *   tree NaN      leaves with NaN bounds are reported by no query and hide no
 *                 other leaf.
 *   tree ray      leaves visited == brute-force slab test of the segment
 *                 [0, tmax] against every fat box, each once; with a callback
 *                 clipping tmax at the box entry: the nearest entry is found,
 *                 every call is for a box the clipped segment still crosses,
 *                 tmax never grows; stop on < 0; along a row of boxes the
 *                 clipped cast makes exactly one call (nearest first).
 *   bp random     50 steps of ~2000 moving spheres / boxes, static boxes,
 *                 groups (some changing in place), a static ground plane and a
 *                 moving wall plane, a filter that changes every few steps,
 *                 objects appearing / disappearing / reordered / changing
 *                 static-ness / NaN: pairs == brute force over the
 *                 same fat boxes with mo_cl_broadphase's rules, sorted, a
 *                 superset of mo_cl_broadphase's pairs on margin boxes, fat box
 *                 contains the margin box, trees valid, and a second broadphase
 *                 fed the same input gives the same array (also when the first
 *                 one's pair cache is dropped and rebuilt).
 *   bp incremental  no motion (or motion inside the fat boxes): zero
 *                 re-insertions and the same pairs; one jump: one; the same
 *                 objects in reversed order: zero, pairs == brute force.
 *   bp duplicates / edges  repeated user values (all 0, or 3 per body),
 *                 empty input, bad arguments, static / moving planes, an
 *                 unknown type (ignored) and a capsule (a proxy).
 *   benchmark     (printed, not asserted) update time of the tree broadphase
 *                 vs mo_cl_update_aabb + mo_cl_broadphase for 1k and 10k
 *                 spheres (r = 0.5 m) in a cubic pile, margin 2 cm, random
 *                 motion up to 1 mm (at rest) and 1 cm per axis per step.
 *
 * Returns 0 when every check passes, 1 otherwise. */
#include "collision/shapes.h"
#include "collision/broad_tree.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

/* ---- helpers ---- */

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static double rnd(void)
{
    return xorshift64s_uniform01(&g_rng);
}

static double urange(double a, double b)
{
    return xorshift64s_range(&g_rng, a, b);
}

static int irand(int n)
{
    return (int)(rnd() * n);
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void random_box(double *lo, double *hi, double extent, double hmin, double hmax)
{
    for (int k = 0; k < 3; ++k) {
        double c = urange(0.0, extent), h = urange(hmin, hmax);
        lo[k] = c - h;
        hi[k] = c + h;
    }
}

static int overlap(const double *alo, const double *ahi, const double *blo, const double *bhi)
{
    for (int k = 0; k < 3; ++k)
        if (alo[k] > bhi[k] || blo[k] > ahi[k])
            return 0;
    return 1;
}

static int contains(const double *olo, const double *ohi, const double *ilo, const double *ihi)
{
    for (int k = 0; k < 3; ++k)
        if (!(olo[k] <= ilo[k] && ihi[k] <= ohi[k]))
            return 0;
    return 1;
}

/* the move rule, written here: grown by margin, extended by d on its side */
static void expected_fat(const double *lo, const double *hi, const double *d, double m, double *flo, double *fhi)
{
    for (int k = 0; k < 3; ++k) {
        flo[k] = lo[k] - m + (d && d[k] < 0.0 ? d[k] : 0.0);
        fhi[k] = hi[k] + m + (d && d[k] > 0.0 ? d[k] : 0.0);
    }
}

/* Walks the tree from its root and checks its structure; returns the number
   of failed properties (each reported once). */
static int validate_tree(const mo_cl_tree *t, const char *what)
{
    int cap = mo_cl_tree_capacity(t), root = mo_cl_tree_root(t);
    int bad_link = 0, bad_box = 0, bad_height = 0, bad_avl = 0, bad_kind = 0;
    int visited = 0, leaves = 0;
    int *stack = malloc(((size_t)cap + 1) * sizeof *stack);
    unsigned char *seen = calloc((size_t)cap + 1, 1);
    int sp = 0;
    if (root >= 0) {
        int par = 0;
        if (mo_cl_tree_node(t, root, &par, NULL, NULL, NULL, NULL, NULL, NULL) == 0 || par != -1)
            ++bad_link;
        stack[sp++] = root;
    }
    while (sp > 0) {
        int i = stack[--sp];
        if (i < 0 || i >= cap || seen[i]) {
            ++bad_link;
            continue;
        }
        seen[i] = 1;
        ++visited;
        int par, c[2], h, user;
        double lo[3], hi[3];
        int kind = mo_cl_tree_node(t, i, &par, &c[0], &c[1], &h, &user, lo, hi);
        if (kind == 1) {
            ++leaves;
            if (h != 0 || c[0] != -1 || c[1] != -1)
                ++bad_kind;
            continue;
        }
        if (kind != 2) {
            ++bad_kind;
            continue;
        }
        int ch[2];
        double clo[2][3], chi[2][3];
        int ok = 1;
        for (int s = 0; s < 2; ++s) {
            int cp;
            if (mo_cl_tree_node(t, c[s], &cp, NULL, NULL, &ch[s], NULL, clo[s], chi[s]) == 0 || cp != i) {
                ++bad_link;
                ok = 0;
            }
        }
        if (!ok)
            continue;
        if (h != 1 + (ch[0] > ch[1] ? ch[0] : ch[1]))
            ++bad_height;
        if (ch[0] - ch[1] > 1 || ch[1] - ch[0] > 1)
            ++bad_avl;
        for (int k = 0; k < 3; ++k) {
            double ulo = clo[0][k] < clo[1][k] ? clo[0][k] : clo[1][k];
            double uhi = chi[0][k] > chi[1][k] ? chi[0][k] : chi[1][k];
            if (lo[k] != ulo || hi[k] != uhi)
                ++bad_box;
        }
        if (!contains(lo, hi, clo[0], chi[0]) || !contains(lo, hi, clo[1], chi[1]))
            ++bad_box;
        stack[sp++] = c[0];
        stack[sp++] = c[1];
    }
    int allocated = 0;
    for (int i = 0; i < cap; ++i)
        if (mo_cl_tree_node(t, i, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != 0)
            ++allocated;
    int height = 0;
    if (root >= 0)
        mo_cl_tree_node(t, root, NULL, NULL, NULL, &height, NULL, NULL, NULL);
    int fails = 0;
#define VCHECK(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "validate_tree(%s): %s\n", what, #cond);                          \
            ++fails;                                                                          \
        }                                                                                     \
    } while (0)
    VCHECK(bad_link == 0);
    VCHECK(bad_kind == 0);
    VCHECK(bad_box == 0);
    VCHECK(bad_height == 0);
    VCHECK(bad_avl == 0);
    VCHECK(allocated == visited);
    VCHECK(leaves == mo_cl_tree_count(t));
    VCHECK(leaves == 0 ? visited == 0 : visited == 2 * leaves - 1);
    VCHECK(height == mo_cl_tree_height(t));
#undef VCHECK
    free(stack);
    free(seen);
    CHECK(fails == 0);
    return fails;
}

/* ---- tree: random insert / remove / move against a model ---- */

typedef struct model_proxy {
    int live;
    int user;
    double lo[3], hi[3]; /* expected fat box */
} model_proxy;

static void check_model(const mo_cl_tree *t, const model_proxy *m, int mcap, int *bad)
{
    for (int p = 0; p < mcap; ++p) {
        if (!m[p].live)
            continue;
        double lo[3], hi[3];
        int user = 0;
        int kind = mo_cl_tree_node(t, p, NULL, NULL, NULL, NULL, &user, NULL, NULL);
        mo_cl_tree_fat_box(t, p, lo, hi);
        if (kind != 1 || user != m[p].user || memcmp(lo, m[p].lo, sizeof lo) || memcmp(hi, m[p].hi, sizeof hi))
            ++*bad;
    }
}

static void test_tree_ops(void)
{
    enum { MCAP = 20000, OPS = 40000, MAXLIVE = 3000 };
    mo_cl_tree *t = mo_cl_tree_create();
    CHECK(t != NULL);
    model_proxy *m = calloc(MCAP, sizeof *m);
    int *live = malloc(MCAP * sizeof *live);
    int nlive = 0, next_user = 1, bad_model = 0, bad_move = 0, bad_id = 0;
    int moves = 0, reinserts = 0;
    for (int op = 0; op < OPS; ++op) {
        double u = rnd();
        if (nlive == 0 || (u < 0.4 && nlive < MAXLIVE)) {
            double lo[3], hi[3];
            random_box(lo, hi, 100.0, 0.05, 3.0);
            int user = next_user++ * (rnd() < 0.5 ? -1 : 1);
            int p = mo_cl_tree_insert(t, lo, hi, user);
            if (p < 0 || p >= MCAP || m[p].live) {
                ++bad_id;
                continue;
            }
            m[p].live = 1;
            m[p].user = user;
            memcpy(m[p].lo, lo, sizeof lo);
            memcpy(m[p].hi, hi, sizeof hi);
            live[nlive++] = p;
        } else if (u < 0.6) {
            int k = irand(nlive), p = live[k];
            mo_cl_tree_remove(t, p);
            m[p].live = 0;
            live[k] = live[--nlive];
        } else {
            int p = live[irand(nlive)];
            double lo[3], hi[3], d[3], margin = rnd() < 0.1 ? 0.0 : urange(0.0, 0.5);
            double shift = rnd() < 0.5 ? 0.3 : 10.0;
            for (int k = 0; k < 3; ++k) {
                double c = 0.5 * (m[p].lo[k] + m[p].hi[k]) + urange(-shift, shift);
                double h = 0.5 * (m[p].hi[k] - m[p].lo[k]) * urange(0.5, 1.0);
                lo[k] = c - h;
                hi[k] = c + h;
                d[k] = rnd() < 0.2 ? 0.0 : urange(-1.0, 1.0);
            }
            int expect = !contains(m[p].lo, m[p].hi, lo, hi);
            const double *dp = rnd() < 0.1 ? NULL : d;
            int r = mo_cl_tree_move(t, p, lo, hi, dp, margin);
            ++moves;
            reinserts += r;
            if (r != expect)
                ++bad_move;
            if (r)
                expected_fat(lo, hi, dp, margin, m[p].lo, m[p].hi);
        }
        if (op % 4000 == 3999) {
            validate_tree(t, "random ops");
            check_model(t, m, MCAP, &bad_model);
            CHECK(mo_cl_tree_count(t) == nlive);
        }
    }
    CHECK(bad_id == 0);
    CHECK(bad_move == 0);
    CHECK(bad_model == 0);
    CHECK(reinserts > moves / 10 && reinserts < moves); /* both branches exercised */

    /* bad ids change nothing */
    int before = mo_cl_tree_count(t);
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    mo_cl_tree_remove(t, -1);
    mo_cl_tree_remove(t, mo_cl_tree_capacity(t) + 3);
    mo_cl_tree_remove(t, mo_cl_tree_root(t)); /* an inner node */
    CHECK(mo_cl_tree_move(t, -5, lo, hi, NULL, 0.1) == 0);
    CHECK(mo_cl_tree_move(t, mo_cl_tree_root(t), lo, hi, NULL, 0.1) == 0);
    double flo[3], fhi[3];
    mo_cl_tree_fat_box(t, -1, flo, fhi);
    CHECK(flo[0] > fhi[0]);
    CHECK(mo_cl_tree_count(t) == before);
    validate_tree(t, "bad ids");
    check_model(t, m, MCAP, &bad_model);
    CHECK(bad_model == 0);

    /* remove everything: empty tree, ids reused */
    while (nlive > 0)
        mo_cl_tree_remove(t, live[--nlive]);
    CHECK(mo_cl_tree_count(t) == 0);
    CHECK(mo_cl_tree_root(t) == -1);
    CHECK(mo_cl_tree_height(t) == 0);
    validate_tree(t, "emptied");
    int cap = mo_cl_tree_capacity(t);
    int p = mo_cl_tree_insert(t, lo, hi, 7);
    CHECK(p >= 0 && p < cap);
    CHECK(mo_cl_tree_capacity(t) == cap);
    mo_cl_tree_destroy(t);
    free(m);
    free(live);
}

/* ---- tree: height bound on random and degenerate inputs ---- */

static void build_and_check_height(int n, int kind, const char *what)
{
    mo_cl_tree *t = mo_cl_tree_create();
    int *ids = malloc((size_t)n * sizeof *ids);
    for (int i = 0; i < n; ++i) {
        double lo[3], hi[3];
        if (kind == 0) {
            random_box(lo, hi, 100.0, 0.05, 1.0);
        } else if (kind == 1) { /* sorted along a line */
            for (int k = 0; k < 3; ++k) {
                lo[k] = k == 0 ? i : 0.0;
                hi[k] = lo[k] + 0.5;
            }
        } else if (kind == 2) { /* identical */
            for (int k = 0; k < 3; ++k) {
                lo[k] = 0.0;
                hi[k] = 1.0;
            }
        } else { /* nested, each inside the previous */
            for (int k = 0; k < 3; ++k) {
                lo[k] = 1e-3 * i;
                hi[k] = 100.0 - 1e-3 * i;
            }
        }
        ids[i] = mo_cl_tree_insert(t, lo, hi, i);
    }
    double bound = 2.0 * log2((double)n) + 2.0, avl = 1.4405 * log2((double)n + 2.0);
    int h = mo_cl_tree_height(t);
    printf("  tree height, %s, n = %d: %d (2 log2 n + 2 = %.1f, AVL bound %.1f)\n", what, n, h, bound, avl);
    CHECK(mo_cl_tree_count(t) == n);
    CHECK(h <= bound);
    CHECK(h <= avl);
    validate_tree(t, what);
    for (int i = 0; i < n; i += 2)
        mo_cl_tree_remove(t, ids[i]);
    int m = n / 2;
    h = mo_cl_tree_height(t);
    CHECK(mo_cl_tree_count(t) == m);
    CHECK(h <= 1.4405 * log2((double)m + 2.0));
    validate_tree(t, what);
    mo_cl_tree_destroy(t);
    free(ids);
}

static void test_tree_height(void)
{
    build_and_check_height(10000, 0, "random");
    build_and_check_height(10000, 1, "sorted line");
    build_and_check_height(4000, 2, "identical");
    build_and_check_height(4000, 3, "nested");
}

/* ---- tree: query and ray cast against brute force ---- */

typedef struct visit_log {
    int *hits;     /* per proxy: times reported */
    int calls;
    int stop_after; /* query: return 0 after this many calls (0: never) */
    /* ray */
    const mo_cl_tree *t;
    const double *o, *d;
    double t0max;     /* tmax given to the cast */
    double last_tmax; /* tmax seen by the previous call */
    int clip;         /* return the box entry when it is below tmax */
    int grew, outside;
    double best;
} visit_log;

static int query_cb(void *ctx, int proxy, int user)
{
    visit_log *v = ctx;
    (void)user;
    ++v->hits[proxy];
    ++v->calls;
    return !(v->stop_after && v->calls >= v->stop_after);
}

/* segment o + s d, s in [0, tmax], against a box: 1 and the entry s */
static int seg_box(const double *o, const double *d, double tmax, const double *lo, const double *hi, double *entry)
{
    double s_in = 0.0, s_out = tmax;
    for (int k = 0; k < 3; ++k) {
        double a, b;
        if (d[k] == 0.0) {
            if (o[k] < lo[k] || o[k] > hi[k])
                return 0;
            continue;
        }
        a = (lo[k] - o[k]) / d[k];
        b = (hi[k] - o[k]) / d[k];
        s_in = fmax(s_in, fmin(a, b));
        s_out = fmin(s_out, fmax(a, b));
    }
    if (s_in > s_out)
        return 0;
    *entry = s_in;
    return 1;
}

static double ray_cb(void *ctx, int proxy, int user, double tmax)
{
    visit_log *v = ctx;
    (void)user;
    ++v->hits[proxy];
    ++v->calls;
    if (tmax > v->last_tmax)
        ++v->grew;
    v->last_tmax = tmax;
    double lo[3], hi[3], s;
    mo_cl_tree_fat_box(v->t, proxy, lo, hi);
    if (!seg_box(v->o, v->d, tmax, lo, hi, &s)) {
        ++v->outside;
        return tmax;
    }
    if (s < v->best)
        v->best = s;
    if (v->stop_after)
        return -1.0;
    return v->clip ? s : tmax;
}

static void test_tree_query_ray(void)
{
    enum { N = 3000 };
    mo_cl_tree *t = mo_cl_tree_create();
    int ids[N];
    for (int i = 0; i < N; ++i) {
        double lo[3], hi[3];
        random_box(lo, hi, 100.0, 0.05, rnd() < 0.05 ? 15.0 : 2.0);
        ids[i] = mo_cl_tree_insert(t, lo, hi, i);
    }
    /* some moves so the tree is not just an insertion sequence */
    for (int i = 0; i < N; i += 3) {
        double lo[3], hi[3], d[3] = {urange(-1, 1), urange(-1, 1), urange(-1, 1)};
        random_box(lo, hi, 100.0, 0.05, 2.0);
        mo_cl_tree_move(t, ids[i], lo, hi, d, 0.2);
    }
    validate_tree(t, "query tree");
    int cap = mo_cl_tree_capacity(t);
    double (*flo)[3] = malloc((size_t)N * sizeof *flo), (*fhi)[3] = malloc((size_t)N * sizeof *fhi);
    for (int i = 0; i < N; ++i)
        mo_cl_tree_fat_box(t, ids[i], flo[i], fhi[i]);
    int *hits = calloc((size_t)cap, sizeof *hits);

    /* queries */
    int bad_q = 0, total = 0;
    for (int q = 0; q < 500; ++q) {
        double lo[3], hi[3];
        random_box(lo, hi, 100.0, 0.0, q % 10 == 0 ? 30.0 : 4.0);
        memset(hits, 0, (size_t)cap * sizeof *hits);
        visit_log v = {0};
        v.hits = hits;
        mo_cl_tree_query(t, lo, hi, query_cb, &v);
        int expect = 0;
        for (int i = 0; i < N; ++i) {
            int want = overlap(lo, hi, flo[i], fhi[i]);
            expect += want;
            if (hits[ids[i]] != want)
                ++bad_q;
        }
        if (v.calls != expect)
            ++bad_q;
        total += expect;
        if (expect >= 2) { /* early stop */
            visit_log w = {0};
            w.hits = hits;
            w.stop_after = 2;
            mo_cl_tree_query(t, lo, hi, query_cb, &w);
            if (w.calls != 2)
                ++bad_q;
        }
    }
    CHECK(bad_q == 0);
    CHECK(total > 500);

    /* ray casts */
    int bad_r = 0, bad_clip = 0, bad_stop = 0, crossed = 0, clipped_calls = 0, full_calls = 0;
    for (int r = 0; r < 400; ++r) {
        double o[3], d[3], tmax;
        for (int k = 0; k < 3; ++k) {
            o[k] = urange(-20.0, 120.0);
            d[k] = urange(-1.0, 1.0);
        }
        if (r % 5 == 1)
            d[irand(3)] = 0.0; /* parallel to a slab */
        if (r % 7 == 2) {
            d[0] = d[1] = d[2] = 0.0;
            d[irand(3)] = rnd() < 0.5 ? -1.0 : 1.0; /* axis aligned */
        }
        tmax = r % 9 == 0 ? HUGE_VAL : urange(0.0, 300.0);
        int expect = 0;
        double best = HUGE_VAL;
        for (int i = 0; i < N; ++i) {
            double s;
            if (seg_box(o, d, tmax, flo[i], fhi[i], &s)) {
                ++expect;
                if (s < best)
                    best = s;
            }
        }
        crossed += expect;

        /* all leaves the segment crosses, each once, tmax untouched */
        memset(hits, 0, (size_t)cap * sizeof *hits);
        visit_log v = {0};
        v.hits = hits;
        v.t = t;
        v.o = o;
        v.d = d;
        v.last_tmax = tmax;
        v.best = HUGE_VAL;
        mo_cl_tree_raycast(t, o, d, tmax, ray_cb, &v);
        for (int i = 0; i < N; ++i) {
            double s;
            if (hits[ids[i]] != seg_box(o, d, tmax, flo[i], fhi[i], &s))
                ++bad_r;
        }
        if (v.calls != expect || v.grew || v.outside)
            ++bad_r;
        full_calls += v.calls;

        /* clipping at each hit's entry: the nearest entry, never a box beyond tmax */
        memset(hits, 0, (size_t)cap * sizeof *hits);
        visit_log c = v;
        c.calls = 0;
        c.clip = 1;
        c.last_tmax = tmax;
        c.best = HUGE_VAL;
        mo_cl_tree_raycast(t, o, d, tmax, ray_cb, &c);
        if (c.best != best || c.grew || c.outside || c.calls > expect)
            ++bad_clip;
        clipped_calls += c.calls;

        /* stop */
        visit_log s = v;
        s.calls = 0;
        s.clip = 0;
        s.stop_after = 1;
        s.last_tmax = tmax;
        mo_cl_tree_raycast(t, o, d, tmax, ray_cb, &s);
        if (s.calls != (expect > 0))
            ++bad_stop;
    }
    printf("  ray casts: %d leaves crossed, %d callbacks unclipped, %d with clipping\n", crossed, full_calls,
           clipped_calls);
    CHECK(bad_r == 0);
    CHECK(bad_clip == 0);
    CHECK(bad_stop == 0);
    CHECK(crossed > 400);
    CHECK(clipped_calls < full_calls);

    /* nearest first: along a row of disjoint boxes, clipping at the first
       entry prunes everything else (one call); unclipped, every box */
    mo_cl_tree *row = mo_cl_tree_create();
    int *rhits = calloc(4 * 1000, sizeof *rhits);
    for (int i = 0; i < 1000; ++i) {
        double lo[3] = {i, 0.0, 0.0}, hi[3] = {i + 0.5, 1.0, 1.0};
        mo_cl_tree_insert(row, lo, hi, i);
    }
    for (int dir = 0; dir < 2; ++dir) {
        double o[3] = {dir ? 1001.0 : -1.0, 0.5, 0.5}, d[3] = {dir ? -1.0 : 1.0, 0.0, 0.0};
        visit_log v = {0};
        v.hits = rhits;
        v.t = row;
        v.o = o;
        v.d = d;
        v.last_tmax = HUGE_VAL;
        v.best = HUGE_VAL;
        v.clip = 1;
        mo_cl_tree_raycast(row, o, d, HUGE_VAL, ray_cb, &v);
        CHECK(v.calls == 1);
        CHECK(v.best == (dir ? 1001.0 - 999.5 : 1.0));
        v.calls = 0;
        v.clip = 0;
        mo_cl_tree_raycast(row, o, d, HUGE_VAL, ray_cb, &v);
        CHECK(v.calls == 1000);
    }
    free(rhits);
    mo_cl_tree_destroy(row);

    /* degenerate arguments: nothing reported */
    visit_log e = {0};
    e.hits = hits;
    double o[3] = {50, 50, 50}, d[3] = {1, 0, 0};
    mo_cl_tree_raycast(t, o, d, -1.0, ray_cb, &e);
    mo_cl_tree_raycast(t, o, d, NAN, ray_cb, &e);
    double dn[3] = {NAN, 0, 0};
    mo_cl_tree_raycast(t, o, dn, 10.0, ray_cb, &e);
    mo_cl_tree *empty = mo_cl_tree_create();
    mo_cl_tree_raycast(empty, o, d, 10.0, ray_cb, &e);
    mo_cl_tree_query(empty, o, o, query_cb, &e);
    CHECK(e.calls == 0);
    mo_cl_tree_destroy(empty);

    free(hits);
    free(flo);
    free(fhi);
    mo_cl_tree_destroy(t);
}

/* ---- tree: NaN boxes overlap nothing and hide nothing ---- */

static void test_tree_nan(void)
{
    enum { N = 500 };
    mo_cl_tree *t = mo_cl_tree_create();
    double lo[N][3], hi[N][3];
    int ids[N], nan_box[N];
    for (int i = 0; i < N; ++i) {
        random_box(lo[i], hi[i], 20.0, 0.1, 1.5);
        nan_box[i] = i % 7 == 3;
        if (nan_box[i])
            lo[i][i % 3] = NAN;
        ids[i] = mo_cl_tree_insert(t, lo[i], hi[i], i);
        CHECK(ids[i] >= 0);
    }
    for (int i = 0; i < N; i += 5) /* moves of both kinds */
        mo_cl_tree_move(t, ids[i], lo[i], hi[i], NULL, 0.1);
    int cap = mo_cl_tree_capacity(t), bad = 0;
    int *hits = calloc((size_t)cap, sizeof *hits);
    for (int q = 0; q < 200; ++q) {
        double qlo[3], qhi[3];
        random_box(qlo, qhi, 20.0, 0.0, 3.0);
        memset(hits, 0, (size_t)cap * sizeof *hits);
        visit_log v = {0};
        v.hits = hits;
        mo_cl_tree_query(t, qlo, qhi, query_cb, &v);
        for (int i = 0; i < N; ++i) {
            double flo[3], fhi[3];
            mo_cl_tree_fat_box(t, ids[i], flo, fhi);
            int want = !nan_box[i] && overlap(qlo, qhi, flo, fhi);
            if (hits[ids[i]] != want)
                ++bad;
        }
    }
    CHECK(bad == 0);
    CHECK(mo_cl_tree_count(t) == N);
    CHECK(mo_cl_tree_height(t) <= 1.4405 * log2(N + 2.0));
    for (int i = 0; i < N; ++i)
        mo_cl_tree_remove(t, ids[i]);
    CHECK(mo_cl_tree_count(t) == 0 && mo_cl_tree_root(t) == -1);
    free(hits);
    mo_cl_tree_destroy(t);
}

/* ---- broadphase scenes ---- */

typedef struct body {
    int alive;
    mo_cl_object o;
    double v[3];
} body;

static void random_rotation(double *R)
{
    double q[4];
    for (int k = 0; k < 4; ++k)
        q[k] = urange(-1.0, 1.0);
    mat_from_quat(q, R);
}

static void make_object(body *b, int user, int is_static)
{
    memset(b, 0, sizeof *b);
    b->alive = 1;
    mo_cl_object *o = &b->o;
    int pile = rnd() < 0.5; /* half of them crowded */
    double ext = pile ? 10.0 : 40.0;
    o->pos[0] = urange(0.0, ext);
    o->pos[1] = urange(0.0, ext);
    o->pos[2] = urange(-0.5, pile ? 5.0 : 20.0);
    o->user = user;
    o->is_static = is_static;
    o->group = rnd() < 0.3 ? (uint32_t)(1 + irand(20)) : 0u;
    if (is_static || rnd() < 0.5) {
        o->type = MO_CL_BOX;
        for (int k = 0; k < 3; ++k)
            o->he[k] = urange(0.1, is_static ? 2.0 : 0.6);
        if (rnd() < 0.7)
            random_rotation(o->rot);
        else
            o->rot[0] = o->rot[4] = o->rot[8] = 1.0;
    } else {
        o->type = MO_CL_SPHERE;
        o->radius = urange(0.1, 0.6);
        o->rot[0] = o->rot[4] = o->rot[8] = 1.0;
    }
    for (int k = 0; k < 3; ++k)
        b->v[k] = is_static ? 0.0 : urange(-0.05, 0.05);
}

static void make_plane(mo_cl_object *o, const double *n, const double *p, int is_static, uint32_t group, int user)
{
    memset(o, 0, sizeof *o);
    o->type = MO_CL_PLANE;
    /* rotation whose third column is n */
    double t[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) {
        t[0] = 0;
        t[1] = 1;
    }
    double x[3] = {t[1] * n[2] - t[2] * n[1], t[2] * n[0] - t[0] * n[2], t[0] * n[1] - t[1] * n[0]};
    double l = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int k = 0; k < 3; ++k)
        x[k] /= l;
    double y[3] = {n[1] * x[2] - n[2] * x[1], n[2] * x[0] - n[0] * x[2], n[0] * x[1] - n[1] * x[0]};
    for (int r = 0; r < 3; ++r) {
        o->rot[3 * r] = x[r];
        o->rot[3 * r + 1] = y[r];
        o->rot[3 * r + 2] = n[r];
        o->pos[r] = p[r];
    }
    o->is_static = is_static;
    o->group = group;
    o->user = user;
}

/* the filter: drops pairs by their users (like a joint filter), differently each step */
typedef struct filter_ctx {
    const mo_cl_object *objs;
    unsigned salt;
} filter_ctx;

static int user_filter(void *ctx, int a, int b)
{
    const filter_ctx *f = ctx;
    unsigned x = (unsigned)f->objs[a].user * 2654435761u ^ (unsigned)f->objs[b].user * 40503u ^ f->salt;
    return (x >> 7) % 13 != 0;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Brute force over all pairs of the bp's fat boxes (exact: of the margin boxes
   of the objects with a proxy) with mo_cl_broadphase's rules, planes against
   margin boxes. Returns the sorted expected pairs. */
static int brute_pairs(const mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, double margin, int exact,
                       mo_cl_filter_fn filter, void *ctx, int (**out)[2], int *bad_fat)
{
    double (*lo)[3] = malloc(((size_t)n + 1) * sizeof *lo), (*hi)[3] = malloc(((size_t)n + 1) * sizeof *hi);
    double (*mlo)[3] = malloc(((size_t)n + 1) * sizeof *mlo), (*mhi)[3] = malloc(((size_t)n + 1) * sizeof *mhi);
    int *has = malloc(((size_t)n + 1) * sizeof *has);
    for (int i = 0; i < n; ++i) {
        has[i] = mo_cl_bp_fat_box(bp, i, lo[i], hi[i]);
        mo_cl_object c = objs[i];
        mo_cl_update_aabb(&c, margin);
        memcpy(mlo[i], c.aabb_min, sizeof mlo[i]);
        memcpy(mhi[i], c.aabb_max, sizeof mhi[i]);
        int valid = c.type != MO_CL_PLANE && c.type != MO_CL_NONE && c.aabb_min[0] <= c.aabb_max[0] &&
                    c.aabb_min[1] <= c.aabb_max[1] && c.aabb_min[2] <= c.aabb_max[2];
        if (has[i] != valid || (has[i] && !contains(lo[i], hi[i], mlo[i], mhi[i])))
            ++*bad_fat;
    }
    int cap = 1024, cnt = 0;
    int (*p)[2] = malloc((size_t)cap * sizeof *p);
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            const mo_cl_object *a = &objs[i], *b = &objs[j];
            int hit;
            if (a->is_static && b->is_static)
                continue;
            if (a->group != 0 && a->group == b->group)
                continue;
            if (has[i] && has[j]) {
                hit = exact ? overlap(mlo[i], mhi[i], mlo[j], mhi[j]) : overlap(lo[i], hi[i], lo[j], hi[j]);
            } else if ((a->type == MO_CL_PLANE && has[j]) || (b->type == MO_CL_PLANE && has[i])) {
                const mo_cl_object *pl = a->type == MO_CL_PLANE ? a : b;
                int k = a->type == MO_CL_PLANE ? j : i;
                double nrm[3] = {pl->rot[2], pl->rot[5], pl->rot[8]};
                double off = nrm[0] * pl->pos[0] + nrm[1] * pl->pos[1] + nrm[2] * pl->pos[2];
                double low = fmin(nrm[0] * mlo[k][0], nrm[0] * mhi[k][0]) +
                             fmin(nrm[1] * mlo[k][1], nrm[1] * mhi[k][1]) +
                             fmin(nrm[2] * mlo[k][2], nrm[2] * mhi[k][2]);
                hit = low <= off;
            } else {
                continue;
            }
            if (!hit || (filter && !filter(ctx, i, j)))
                continue;
            if (cnt == cap) {
                cap *= 2;
                p = realloc(p, (size_t)cap * sizeof *p);
            }
            p[cnt][0] = i;
            p[cnt][1] = j;
            ++cnt;
        }
    }
    free(lo);
    free(hi);
    free(mlo);
    free(mhi);
    free(has);
    *out = p;
    return cnt;
}

/* 1 when every pair of sub (sorted) is in sup (sorted) */
static int pairs_subset(int (*sub)[2], int nsub, int (*sup)[2], int nsup)
{
    int j = 0;
    for (int i = 0; i < nsub; ++i) {
        while (j < nsup && cmp_pair(sup[j], sub[i]) < 0)
            ++j;
        if (j == nsup || cmp_pair(sup[j], sub[i]) != 0)
            return 0;
    }
    return 1;
}

static int pairs_sorted(int (*p)[2], int n)
{
    for (int k = 0; k < n; ++k) {
        if (p[k][0] >= p[k][1])
            return 0;
        if (k > 0 && cmp_pair(p[k - 1], p[k]) >= 0)
            return 0;
    }
    return 1;
}

static void count_trees(const mo_cl_object *objs, int n, const mo_cl_broadphase_tree *bp, int *bad)
{
    int ns = 0, nm = 0;
    for (int i = 0; i < n; ++i) {
        double lo[3], hi[3];
        if (mo_cl_bp_fat_box(bp, i, lo, hi)) {
            if (objs[i].is_static)
                ++ns;
            else
                ++nm;
        }
    }
    if (mo_cl_tree_count(mo_cl_bp_tree(bp, 0)) != ns || mo_cl_tree_count(mo_cl_bp_tree(bp, 1)) != nm)
        ++*bad;
}

static void test_bp_random(void)
{
    enum { CAP = 3600, STEPS = 50, START = 2000 };
    const double margin = 0.05;
    body *bodies = calloc(CAP, sizeof *bodies);
    int nb = 0, next_user = 0;
    for (; nb < START; ++nb) {
        int st = nb % 20 == 0;
        int user = rnd() < 0.2 ? -(++next_user) : ++next_user; /* particles < 0 */
        make_object(&bodies[nb], user, st);
    }
    mo_cl_object *objs = malloc((CAP + 2) * sizeof *objs);
    double *disp = malloc((CAP + 2) * 3 * sizeof *disp);
    int *order = malloc((CAP + 2) * sizeof *order);
    mo_cl_broadphase_tree *bp = mo_cl_bp_create(), *bp2 = mo_cl_bp_create(), *bp3 = mo_cl_bp_create();
    /* bp4: as bp3, synced (mo_cl_bp_sync) between updates with other poses and objects */
    mo_cl_broadphase_tree *bp4 = mo_cl_bp_create();
    CHECK(bp && bp2 && bp3 && bp4);
    CHECK(mo_cl_bp_configure(bp4, 2.5 * margin, 1) == 0);
    mo_cl_pairs pairs4 = {0};
    int bad_sync = 0;
    /* bp3: fat boxes 2.5 margins out, margin box pairs only (the engine's settings) */
    CHECK(mo_cl_bp_configure(bp3, 2.5 * margin, 1) == 0);
    CHECK(mo_cl_bp_configure(bp3, NAN, 0) == -1 && mo_cl_bp_configure(NULL, 0.0, 0) == -1);
    mo_cl_pairs pairs = {0}, pairs2 = {0}, pairs3 = {0}, sas = {0};
    int bad_eq = 0, bad_sort = 0, bad_sub = 0, bad_det = 0, bad_fat = 0, bad_count = 0, fails = 0;
    int bad_exact = 0, bad_exact_sas = 0;
    long total_reins3 = 0;
    long total_pairs = 0, total_sas = 0, total_reins = 0, total_objs = 0;
    int plane_pairs = 0, static_pairs = 0;
    double ground_n[3] = {0.05, -0.03, 1.0}, wall_n[3] = {1.0, 0.0, 0.0};
    double ln = sqrt(ground_n[0] * ground_n[0] + ground_n[1] * ground_n[1] + ground_n[2] * ground_n[2]);
    for (int k = 0; k < 3; ++k)
        ground_n[k] /= ln;
    double ground_p[3] = {0, 0, 0}, wall_p[3] = {1.0, 0, 0};
    for (int i = 0; i < CAP; ++i)
        order[i] = i;

    for (int step = 0; step < STEPS; ++step) {
        /* disappear, appear, change static-ness */
        for (int i = 0; i < nb; ++i)
            if (bodies[i].alive && rnd() < 0.015)
                bodies[i].alive = 0;
        for (int k = 0; k < 30 && nb < CAP; ++k) {
            int user = rnd() < 0.2 ? -(++next_user) : ++next_user;
            make_object(&bodies[nb++], user, rnd() < 0.05);
        }
        for (int k = 0; k < 5; ++k) {
            body *b = &bodies[irand(nb)];
            if (b->alive && b->o.type == MO_CL_BOX)
                b->o.is_static = !b->o.is_static;
        }
        for (int k = 0; k < 40; ++k) /* groups change in place */
            bodies[irand(nb)].o.group = rnd() < 0.5 ? 0u : (uint32_t)(1 + irand(20));
        /* move: small steps with their displacement, some jumps */
        int disp_mode = step % 10 == 7 ? 0 : 1; /* 0: disp NULL this step */
        for (int i = 0; i < nb; ++i) {
            body *b = &bodies[i];
            if (!b->alive)
                continue;
            double d[3] = {0, 0, 0};
            if (!b->o.is_static) {
                for (int k = 0; k < 3; ++k) {
                    b->v[k] += urange(-0.01, 0.01);
                    d[k] = b->v[k];
                }
                if (rnd() < 0.01)
                    for (int k = 0; k < 3; ++k)
                        d[k] = urange(-3.0, 3.0);
                if (b->o.type == MO_CL_BOX && rnd() < 0.05)
                    random_rotation(b->o.rot);
            } else if (rnd() < 0.01) {
                d[0] = urange(-1.0, 1.0); /* a static object is moved */
            }
            for (int k = 0; k < 3; ++k)
                b->o.pos[k] += d[k];
            memcpy(disp + 3 * i, d, sizeof d);
        }
        /* the array: alive bodies in a shuffled order, plus the planes and a NaN object */
        for (int k = 0; k < 200; ++k) {
            int a = irand(nb), c = irand(nb), s = order[a];
            order[a] = order[c];
            order[c] = s;
        }
        int n = 0;
        double *dsp = malloc(((size_t)nb + 3) * 3 * sizeof *dsp);
        for (int k = 0; k < nb; ++k) {
            int i = order[k];
            if (i >= nb || !bodies[i].alive)
                continue;
            if (n == 700) { /* ground plane in the middle of the array */
                make_plane(&objs[n], ground_n, ground_p, 1, 0, 1000000);
                memset(dsp + 3 * n, 0, 3 * sizeof *dsp);
                ++n;
            }
            objs[n] = bodies[i].o;
            memcpy(dsp + 3 * n, disp + 3 * i, 3 * sizeof *dsp);
            if (step % 3 == 1 && n % 97 == 5)
                objs[n].pos[1] = NAN; /* no proxy this step */
            ++n;
        }
        wall_p[0] = 1.0 + 0.1 * step;
        make_plane(&objs[n], wall_n, wall_p, 0, 3, 1000001); /* moving plane, group 3 */
        memset(dsp + 3 * n, 0, 3 * sizeof *dsp);
        ++n;

        const double *dp = disp_mode ? dsp : NULL;
        filter_ctx fc = {objs, step % 4 == 3 ? 0x5a5a5a5au * (unsigned)step : 0u};
        if (step % 8 == 5)
            mo_cl_bp_forget_pairs(bp); /* the rebuild path; bp2 keeps its cache */
        /* bp4 first sees a jittered copy without every 10th object, twice, then the real update */
        mo_cl_object *jit = malloc((size_t)n * sizeof *jit);
        int nj = 0;
        for (int i = 0; i < n; ++i) {
            if (i % 10 == step % 10)
                continue;
            jit[nj] = objs[i];
            for (int k = 0; k < 3; ++k)
                jit[nj].pos[k] += urange(-0.3, 0.3);
            ++nj;
        }
        if (mo_cl_bp_sync(bp4, jit, nj, NULL, margin) || mo_cl_bp_sync(bp4, objs, n / 2, dp, margin) ||
            mo_cl_bp_update_pairs(bp4, objs, n, dp, margin, user_filter, &fc, &pairs4))
            ++fails;
        free(jit);
        if (mo_cl_bp_update_pairs(bp, objs, n, dp, margin, user_filter, &fc, &pairs) ||
            mo_cl_bp_update_pairs(bp2, objs, n, dp, margin, user_filter, &fc, &pairs2) ||
            mo_cl_bp_update_pairs(bp3, objs, n, dp, margin, user_filter, &fc, &pairs3)) {
            ++fails;
            free(dsp);
            break;
        }
        total_reins += mo_cl_bp_last_reinserts(bp);
        total_reins3 += mo_cl_bp_last_reinserts(bp3);
        total_objs += n;
        if (!pairs_sorted(pairs.pairs, pairs.count))
            ++bad_sort;
        if (pairs.count != pairs2.count ||
            memcmp(pairs.pairs, pairs2.pairs, (size_t)pairs.count * sizeof *pairs.pairs))
            ++bad_det;

        int (*ref)[2] = NULL;
        int nref = brute_pairs(bp, objs, n, margin, 0, user_filter, &fc, &ref, &bad_fat);
        if (nref != pairs.count || memcmp(ref, pairs.pairs, (size_t)nref * sizeof *ref))
            ++bad_eq;
        free(ref);
        /* exact mode: brute force over margin boxes, whatever the (larger) fat boxes */
        nref = brute_pairs(bp3, objs, n, margin, 1, user_filter, &fc, &ref, &bad_fat);
        if (nref != pairs3.count || memcmp(ref, pairs3.pairs, (size_t)nref * sizeof *ref))
            ++bad_exact;
        free(ref);

        /* mo_cl_broadphase on margin boxes: a subset (exact mode: equal) */
        mo_cl_object *mobjs = malloc((size_t)n * sizeof *mobjs);
        memcpy(mobjs, objs, (size_t)n * sizeof *mobjs);
        for (int i = 0; i < n; ++i)
            mo_cl_update_aabb(&mobjs[i], margin);
        if (mo_cl_broadphase(mobjs, n, user_filter, &fc, &sas))
            ++fails;
        if (!pairs_subset(sas.pairs, sas.count, pairs.pairs, pairs.count))
            ++bad_sub;
        if (sas.count != pairs3.count || memcmp(sas.pairs, pairs3.pairs, (size_t)sas.count * sizeof *sas.pairs))
            ++bad_exact_sas;
        if (pairs4.count != pairs3.count || memcmp(pairs4.pairs, pairs3.pairs, (size_t)pairs3.count * sizeof *pairs3.pairs))
            ++bad_sync;
        total_pairs += pairs.count;
        total_sas += sas.count;
        for (int k = 0; k < pairs.count; ++k) {
            int a = pairs.pairs[k][0], b = pairs.pairs[k][1];
            plane_pairs += objs[a].type == MO_CL_PLANE || objs[b].type == MO_CL_PLANE;
            static_pairs += objs[a].is_static || objs[b].is_static;
        }
        free(mobjs);
        count_trees(objs, n, bp, &bad_count);
        if (step % 10 == 0 || step == STEPS - 1) {
            validate_tree(mo_cl_bp_tree(bp, 0), "bp static");
            validate_tree(mo_cl_bp_tree(bp, 1), "bp moving");
            validate_tree(mo_cl_bp_tree(bp3, 1), "bp3 moving");
            validate_tree(mo_cl_bp_tree(bp4, 0), "bp4 static");
            validate_tree(mo_cl_bp_tree(bp4, 1), "bp4 moving");
        }
        count_trees(objs, n, bp3, &bad_count);
        free(dsp);
    }
    printf("  bp random: %d steps, %.0f objects/step, %.0f pairs/step (sort-and-sweep on margin boxes %.0f), "
           "%.1f re-insertions/step (slack 2.5 margins: %.1f), %d plane pairs, %d static pairs\n",
           STEPS, (double)total_objs / STEPS, (double)total_pairs / STEPS, (double)total_sas / STEPS,
           (double)total_reins / STEPS, (double)total_reins3 / STEPS, plane_pairs, static_pairs);
    CHECK(fails == 0);
    CHECK(bad_eq == 0);
    CHECK(bad_sort == 0);
    CHECK(bad_sub == 0);
    CHECK(bad_det == 0);
    CHECK(bad_fat == 0);
    CHECK(bad_count == 0);
    CHECK(bad_exact == 0);
    CHECK(bad_exact_sas == 0);
    CHECK(bad_sync == 0);
    CHECK(mo_cl_bp_sync(NULL, objs, 0, NULL, margin) == -1 && mo_cl_bp_sync(bp4, objs, 1, NULL, -1.0) == -1);
    CHECK(total_reins3 < total_reins); /* the larger slack re-inserts less */
    CHECK(plane_pairs > 0 && static_pairs > 0);
    CHECK(total_sas > 1000);
    CHECK(total_reins < total_objs / 2); /* incremental */
    mo_cl_pairs_free(&pairs);
    mo_cl_pairs_free(&pairs2);
    mo_cl_pairs_free(&pairs3);
    mo_cl_pairs_free(&sas);
    mo_cl_bp_destroy(bp);
    mo_cl_bp_destroy(bp2);
    mo_cl_bp_destroy(bp3);
    mo_cl_bp_destroy(bp4);
    mo_cl_pairs_free(&pairs4);
    free(bodies);
    free(objs);
    free(disp);
    free(order);
}

/* ---- broadphase: incremental updates ---- */

static int same_pairs(const mo_cl_pairs *a, int (*b)[2], int nb)
{
    return a->count == nb && memcmp(a->pairs, b, (size_t)nb * sizeof *b) == 0;
}

static void test_bp_incremental(void)
{
    enum { N = 1000 };
    const double margin = 0.05;
    body *bodies = calloc(N, sizeof *bodies);
    mo_cl_object *objs = malloc(N * sizeof *objs);
    double *disp = calloc(3 * N, sizeof *disp);
    for (int i = 0; i < N; ++i) {
        make_object(&bodies[i], i, i % 25 == 0);
        objs[i] = bodies[i].o;
        for (int k = 0; k < 3; ++k)
            disp[3 * i + k] = bodies[i].v[k];
    }
    mo_cl_broadphase_tree *bp = mo_cl_bp_create();
    mo_cl_pairs pairs = {0};
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, disp, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == N);
    int n0 = pairs.count;
    int (*p0)[2] = malloc(((size_t)n0 + 1) * sizeof *p0);
    memcpy(p0, pairs.pairs, (size_t)n0 * sizeof *p0);
    CHECK(n0 > 100);

    /* no motion: no re-insertion, same pairs */
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 0);
    CHECK(same_pairs(&pairs, p0, n0));

    /* motion inside the fat boxes: the step's displacement, |d| < margin */
    for (int i = 0; i < N; ++i)
        if (!objs[i].is_static)
            for (int k = 0; k < 3; ++k)
                objs[i].pos[k] += disp[3 * i + k];
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, disp, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 0);

    /* one jump: one re-insertion */
    objs[17].pos[0] += 5.0;
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 1);

    /* one object gone (the last), one changes static-ness, order unchanged */
    objs[3].is_static = !objs[3].is_static;
    CHECK(mo_cl_bp_update_pairs(bp, objs, N - 1, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 1);
    CHECK(mo_cl_tree_count(mo_cl_bp_tree(bp, 0)) + mo_cl_tree_count(mo_cl_bp_tree(bp, 1)) == N - 1);

    /* the same objects reversed in the array: identified by user, no re-insertion */
    mo_cl_object *rev = malloc(N * sizeof *rev);
    for (int i = 0; i < N - 1; ++i)
        rev[i] = objs[N - 2 - i];
    CHECK(mo_cl_bp_update_pairs(bp, rev, N - 1, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 0);
    int bad_fat = 0;
    int (*ref)[2] = NULL;
    int nref = brute_pairs(bp, rev, N - 1, margin, 0, NULL, NULL, &ref, &bad_fat);
    CHECK(same_pairs(&pairs, ref, nref));
    CHECK(bad_fat == 0);
    free(ref);
    validate_tree(mo_cl_bp_tree(bp, 0), "incremental static");
    validate_tree(mo_cl_bp_tree(bp, 1), "incremental moving");

    free(rev);
    free(p0);
    mo_cl_pairs_free(&pairs);
    mo_cl_bp_destroy(bp);
    free(bodies);
    free(objs);
    free(disp);
}

/* ---- broadphase: repeated users, planes, edges ---- */

static void test_bp_edges(void)
{
    enum { N = 400 };
    const double margin = 0.02;
    body *bodies = calloc(N, sizeof *bodies);
    mo_cl_object *objs = malloc((N + 4) * sizeof *objs);
    for (int i = 0; i < N; ++i) {
        make_object(&bodies[i], 0, i % 10 == 0); /* every user 0 */
        objs[i] = bodies[i].o;
    }
    mo_cl_broadphase_tree *bp = mo_cl_bp_create();
    mo_cl_pairs pairs = {0};
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_tree_count(mo_cl_bp_tree(bp, 0)) + mo_cl_tree_count(mo_cl_bp_tree(bp, 1)) == N);
    int bad_fat = 0;
    int (*ref)[2] = NULL;
    int nref = brute_pairs(bp, objs, N, margin, 0, NULL, NULL, &ref, &bad_fat);
    CHECK(same_pairs(&pairs, ref, nref));
    CHECK(bad_fat == 0);
    free(ref);
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 0); /* repeats told apart by their order */

    /* several shapes per body: users 0,0,0,1,1,1,... */
    for (int i = 0; i < N; ++i)
        objs[i].user = i / 3;
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    nref = brute_pairs(bp, objs, N, margin, 0, NULL, NULL, &ref, &bad_fat);
    CHECK(same_pairs(&pairs, ref, nref));
    free(ref);
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_last_reinserts(bp) == 0);

    /* empty input empties the trees */
    CHECK(mo_cl_bp_update_pairs(bp, objs, 0, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(pairs.count == 0);
    CHECK(mo_cl_tree_count(mo_cl_bp_tree(bp, 0)) == 0 && mo_cl_tree_count(mo_cl_bp_tree(bp, 1)) == 0);
    validate_tree(mo_cl_bp_tree(bp, 1), "emptied bp");

    /* bad arguments */
    CHECK(mo_cl_bp_update_pairs(NULL, objs, N, NULL, margin, NULL, NULL, &pairs) == -1);
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, margin, NULL, NULL, NULL) == -1);
    CHECK(mo_cl_bp_update_pairs(bp, NULL, 3, NULL, margin, NULL, NULL, &pairs) == -1);
    CHECK(mo_cl_bp_update_pairs(bp, objs, -1, NULL, margin, NULL, NULL, &pairs) == -1);
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, -1.0, NULL, NULL, &pairs) == -1);
    CHECK(mo_cl_bp_update_pairs(bp, objs, N, NULL, NAN, NULL, NULL, &pairs) == -1);

    /* planes: static plane + static box: none; moving plane + static box: a pair;
       a plane never pairs with a plane; an unknown type is ignored */
    mo_cl_object s[5];
    double up[3] = {0, 0, 1}, origin[3] = {0, 0, 0};
    make_plane(&s[0], up, origin, 1, 0, 10);
    make_plane(&s[1], up, origin, 0, 0, 11);
    memset(&s[2], 0, sizeof s[2]);
    s[2].type = MO_CL_BOX;
    s[2].he[0] = s[2].he[1] = s[2].he[2] = 0.5;
    s[2].rot[0] = s[2].rot[4] = s[2].rot[8] = 1.0;
    s[2].pos[2] = 0.51; /* 1 cm above, within margin 0.02 */
    s[2].is_static = 1;
    s[2].user = 12;
    s[3] = s[2];
    s[3].is_static = 0;
    s[3].pos[0] = 5.0;
    s[3].pos[2] = 0.53; /* 3 cm above: beyond the margin */
    s[3].user = 13;
    s[4] = s[3];
    s[4].type = 99;
    s[4].user = 14;
    CHECK(mo_cl_bp_update_pairs(bp, s, 5, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(pairs.count == 1 && pairs.pairs[0][0] == 1 && pairs.pairs[0][1] == 2);
    s[3].pos[2] = 0.515;
    CHECK(mo_cl_bp_update_pairs(bp, s, 5, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(pairs.count == 3);
    if (pairs.count == 3) {
        CHECK(pairs.pairs[0][0] == 0 && pairs.pairs[0][1] == 3);
        CHECK(pairs.pairs[1][0] == 1 && pairs.pairs[1][1] == 2);
        CHECK(pairs.pairs[2][0] == 1 && pairs.pairs[2][1] == 3);
    }
    double lo[3], hi[3];
    CHECK(mo_cl_bp_fat_box(bp, 0, lo, hi) == 0);
    CHECK(mo_cl_bp_fat_box(bp, 1, lo, hi) == 0);
    CHECK(mo_cl_bp_fat_box(bp, 4, lo, hi) == 0);
    CHECK(mo_cl_bp_fat_box(bp, 5, lo, hi) == 0);
    CHECK(mo_cl_bp_fat_box(bp, 2, lo, hi) == 1);

    /* the issue 3 shapes take part too (collide_broad.c's sweep: spheres and boxes) */
    s[4].type = MO_CL_CAPSULE;
    s[4].radius = 0.2;
    s[4].half_height = 0.3;
    CHECK(mo_cl_bp_update_pairs(bp, s, 5, NULL, margin, NULL, NULL, &pairs) == 0);
    CHECK(mo_cl_bp_fat_box(bp, 4, lo, hi) == 1);
    CHECK(mo_cl_tree_count(mo_cl_bp_tree(bp, 1)) == 2);

    mo_cl_pairs_free(&pairs);
    mo_cl_bp_destroy(bp);
    mo_cl_bp_destroy(NULL);
    mo_cl_tree_destroy(NULL);
    free(bodies);
    free(objs);
}

/* ---- benchmark: spheres in a pile, random motion of amplitude amp ---- */

static void bench(int n, int steps, double amp)
{
    const double margin = 0.02, r = 0.5;
    int side = (int)ceil(cbrt((double)n));
    mo_cl_object *objs = malloc(((size_t)n + 1) * sizeof *objs);
    mo_cl_object *sobjs = malloc(((size_t)n + 1) * sizeof *sobjs);
    double *disp = calloc(3 * ((size_t)n + 1), sizeof *disp);
    double up[3] = {0, 0, 1}, origin[3] = {0, 0, 0};
    make_plane(&objs[0], up, origin, 1, 0, -1000000);
    for (int i = 1; i <= n; ++i) {
        mo_cl_object *o = &objs[i];
        memset(o, 0, sizeof *o);
        int a = (i - 1) % side, b = (i - 1) / side % side, c = (i - 1) / (side * side);
        o->type = MO_CL_SPHERE;
        o->radius = r;
        o->rot[0] = o->rot[4] = o->rot[8] = 1.0;
        o->pos[0] = a * 1.0 + urange(-0.05, 0.05);
        o->pos[1] = b * 1.0 + urange(-0.05, 0.05);
        o->pos[2] = r + c * 0.98 + urange(-0.02, 0.0);
        o->user = i;
    }
    mo_cl_broadphase_tree *bp = mo_cl_bp_create();
    mo_cl_pairs pt = {0}, ps = {0};
    double t0 = now_sec();
    mo_cl_bp_update_pairs(bp, objs, n + 1, NULL, margin, NULL, NULL, &pt);
    double t_build = now_sec() - t0;
    double t_tree = 0.0, t_sas = 0.0;
    long reins = 0;
    for (int s = 0; s < steps; ++s) {
        for (int i = 1; i <= n; ++i)
            for (int k = 0; k < 3; ++k) {
                double d = urange(-amp, amp);
                objs[i].pos[k] += d;
                disp[3 * i + k] = d;
            }
        t0 = now_sec();
        mo_cl_bp_update_pairs(bp, objs, n + 1, disp, margin, NULL, NULL, &pt);
        t_tree += now_sec() - t0;
        reins += mo_cl_bp_last_reinserts(bp);
        t0 = now_sec();
        memcpy(sobjs, objs, ((size_t)n + 1) * sizeof *objs);
        for (int i = 0; i <= n; ++i)
            mo_cl_update_aabb(&sobjs[i], margin);
        mo_cl_broadphase(sobjs, n + 1, NULL, NULL, &ps);
        t_sas += now_sec() - t0;
    }
    printf("  %5d spheres, motion %g m/step: tree %.3f ms/step (first call %.2f ms, %.0f re-insertions/step, "
           "%d pairs), sort-and-sweep %.3f ms/step (%d pairs)\n",
           n, amp, 1e3 * t_tree / steps, 1e3 * t_build, (double)reins / steps, pt.count, 1e3 * t_sas / steps,
           ps.count);
    CHECK(pairs_subset(ps.pairs, ps.count, pt.pairs, pt.count));
    mo_cl_pairs_free(&pt);
    mo_cl_pairs_free(&ps);
    mo_cl_bp_destroy(bp);
    free(objs);
    free(sobjs);
    free(disp);
}

int main(void)
{
    printf("tree: random insert / remove / move\n");
    test_tree_ops();
    printf("tree: height\n");
    test_tree_height();
    printf("tree: query and ray cast\n");
    test_tree_query_ray();
    test_tree_nan();
    printf("broadphase: random steps\n");
    test_bp_random();
    printf("broadphase: incremental\n");
    test_bp_incremental();
    printf("broadphase: repeated users, planes, edges\n");
    test_bp_edges();
    printf("benchmark (not asserted)\n");
    bench(1000, 100, 1e-3);
    bench(10000, 20, 1e-3);
    bench(1000, 100, 1e-2);
    bench(10000, 20, 1e-2);
    return check_result("test_broad_tree");
}
