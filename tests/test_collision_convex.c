/* test_collision_convex.c: the narrowphase pairs of capsules, cylinders, convex
 * hulls and one-sided triangles (collision/collide_convex.c), the object
 * margins, and the sphere/box/plane pairs under margins.
 *
 * Hulls are built by hand here (box, tetrahedron, octahedron, hexagonal prism:
 * vertices, faces counter-clockwise from outside, planes by Newell's method,
 * unique edges), independent of mo_cl_hull_build.
 *
 * References used here (none shares code with the library):
 *   - signed distance of a point to each inflated shape (sphere, capsule,
 *     cylinder, box, plane, hull by brute force over faces / edges / vertices),
 *     to check that point_a and point_b lie on the surfaces;
 *   - support functions h(u) of every inflated shape written from the
 *     definitions, and the signed distance of two shapes as the maximum over
 *     unit directions u of -(h_a(u) + h_b(-u)) (4000 Fibonacci directions, then
 *     a shrinking random search on the sphere from the 4 best separated seeds);
 *     converged to ~1e-9 on the pairs here.
 * Run with --bench for a rough per-pair timing.
 * Returns 0 when every check passes, 1 otherwise. */
#include "testutil_collide.h"
#include "collision/collide.h"
#include "collision/collide_internal.h"
#include "collision/shapes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- hand-built hulls ---- */

#define HMAXV 16
#define HMAXF 16
#define HMAXFV 64
#define HMAXE 32

typedef struct test_hull {
    mo_cl_hull h;
    double v[3 * HMAXV];
    int ff[HMAXF + 1];
    int fv[HMAXFV];
    double pl[4 * HMAXF];
    int e[2 * HMAXE];
} test_hull;

/* faces: for each face its vertex count then its indices, counter-clockwise
   seen from outside */
static void build_hull(test_hull *t, const double *v, int nv, const int *faces, int nf)
{
    memset(t, 0, sizeof *t);
    memcpy(t->v, v, sizeof(double) * 3 * (size_t)nv);
    int at = 0, nfv = 0, ne = 0;
    for (int f = 0; f < nf; ++f) {
        int cnt = faces[at++];
        t->ff[f] = nfv;
        for (int i = 0; i < cnt; ++i)
            t->fv[nfv++] = faces[at + i];
        /* Newell normal */
        double n[3] = {0, 0, 0};
        for (int i = 0; i < cnt; ++i) {
            const double *p = v + 3 * faces[at + i], *q = v + 3 * faces[at + (i + 1) % cnt];
            n[0] += (p[1] - q[1]) * (p[2] + q[2]);
            n[1] += (p[2] - q[2]) * (p[0] + q[0]);
            n[2] += (p[0] - q[0]) * (p[1] + q[1]);
        }
        double l = sqrt(dot3(n, n));
        for (int k = 0; k < 3; ++k)
            t->pl[4 * f + k] = n[k] / l;
        t->pl[4 * f + 3] = dot3(t->pl + 4 * f, v + 3 * faces[at]);
        /* unique edges */
        for (int i = 0; i < cnt; ++i) {
            int a = faces[at + i], b = faces[at + (i + 1) % cnt];
            int lo = a < b ? a : b, hi = a < b ? b : a, seen = 0;
            for (int e = 0; e < ne; ++e)
                seen |= t->e[2 * e] == lo && t->e[2 * e + 1] == hi;
            if (!seen) {
                t->e[2 * ne] = lo;
                t->e[2 * ne + 1] = hi;
                ++ne;
            }
        }
        at += cnt;
    }
    t->ff[nf] = nfv;
    t->h.nverts = nv;
    t->h.verts = t->v;
    t->h.nfaces = nf;
    t->h.face_first = t->ff;
    t->h.face_verts = t->fv;
    t->h.planes = t->pl;
    t->h.nedges = ne;
    t->h.edges = t->e;
    for (int i = 0; i < nv; ++i)
        for (int k = 0; k < 3; ++k)
            t->h.center[k] += v[3 * i + k] / nv;
    double r2 = 0;
    for (int i = 0; i < nv; ++i) {
        double w[3] = {v[3 * i] - t->h.center[0], v[3 * i + 1] - t->h.center[1], v[3 * i + 2] - t->h.center[2]};
        r2 = fmax(r2, dot3(w, w));
    }
    t->h.radius = sqrt(r2);
}

static void hull_box(test_hull *t, double hx, double hy, double hz)
{
    double v[24];
    for (int i = 0; i < 8; ++i) {
        v[3 * i] = (i & 1) ? hx : -hx;
        v[3 * i + 1] = (i & 2) ? hy : -hy;
        v[3 * i + 2] = (i & 4) ? hz : -hz;
    }
    /* faces in an order unlike the library's box, so nothing is shared by accident */
    static const int f[] = {4, 4, 5, 7, 6, 4, 0, 2, 3, 1, 4, 1, 3, 7, 5, 4, 0, 4, 6, 2, 4, 2, 6, 7, 3, 4, 0, 1, 5, 4};
    build_hull(t, v, 8, f, 6);
}

/* regular tetrahedron with vertices at distance r from the origin, one face down (z = -r/3) */
static void hull_tetra(test_hull *t, double r)
{
    double v[12];
    double zb = -r / 3.0, rb = r * sqrt(8.0) / 3.0;
    for (int i = 0; i < 3; ++i) {
        v[3 * i] = rb * cos(2 * PI * i / 3);
        v[3 * i + 1] = rb * sin(2 * PI * i / 3);
        v[3 * i + 2] = zb;
    }
    v[9] = v[10] = 0;
    v[11] = r;
    static const int f[] = {3, 0, 2, 1, 3, 0, 1, 3, 3, 1, 2, 3, 3, 2, 0, 3};
    build_hull(t, v, 4, f, 4);
}

/* octahedron with vertices at +-r on the axes */
static void hull_octa(test_hull *t, double r)
{
    double v[18] = {r, 0, 0, -r, 0, 0, 0, r, 0, 0, -r, 0, 0, 0, r, 0, 0, -r};
    static const int f[] = {3, 0, 2, 4, 3, 2, 1, 4, 3, 1, 3, 4, 3, 3, 0, 4,
                            3, 2, 0, 5, 3, 1, 2, 5, 3, 3, 1, 5, 3, 0, 3, 5};
    build_hull(t, v, 6, f, 8);
}

/* hexagonal prism, circumradius r, half height h */
static void hull_hexprism(test_hull *t, double r, double h)
{
    double v[36];
    for (int i = 0; i < 6; ++i) {
        v[3 * i] = v[3 * (i + 6)] = r * cos(PI * i / 3);
        v[3 * i + 1] = v[3 * (i + 6) + 1] = r * sin(PI * i / 3);
        v[3 * i + 2] = -h;
        v[3 * (i + 6) + 2] = h;
    }
    int f[6 * 5 + 2 * 7], at = 0;
    f[at++] = 6;
    for (int i = 0; i < 6; ++i)
        f[at++] = 6 + i;
    f[at++] = 6;
    for (int i = 0; i < 6; ++i)
        f[at++] = 5 - i;
    for (int i = 0; i < 6; ++i) {
        int j = (i + 1) % 6;
        f[at++] = 4;
        f[at++] = i;
        f[at++] = j;
        f[at++] = 6 + j;
        f[at++] = 6 + i;
    }
    build_hull(t, v, 12, f, 8);
}

/* faces outward and planar: every vertex inside every plane, each face's
   vertices on it, normals agree with the winding */
static void check_hull_valid(const test_hull *t, const char *what)
{
    const mo_cl_hull *h = &t->h;
    int ok = 1;
    for (int f = 0; f < h->nfaces; ++f) {
        const double *pl = h->planes + 4 * f;
        ok &= pl[3] - dot3(pl, h->center) > 0.0;
        for (int i = 0; i < h->nverts; ++i)
            ok &= dot3(pl, h->verts + 3 * i) <= pl[3] + 1e-12;
        for (int i = h->face_first[f]; i < h->face_first[f + 1]; ++i)
            ok &= fabs(dot3(pl, h->verts + 3 * h->face_verts[i]) - pl[3]) <= 1e-12;
    }
    /* Euler: V - E + F = 2 */
    ok &= h->nverts - h->nedges + h->nfaces == 2;
    if (!ok)
        fprintf(stderr, "hand-built hull %s is invalid\n", what);
    CHECK(ok);
}

/* ---- objects ---- */

/* obj_base, make_sphere, make_box and make_plane: testutil_collide.h */

static mo_cl_object make_capsule(double x, double y, double z, double r, double h, const double *R)
{
    mo_cl_object o = obj_base(MO_CL_CAPSULE, x, y, z, R);
    o.radius = r;
    o.half_height = h;
    return o;
}

static mo_cl_object make_cylinder(double x, double y, double z, double r, double h, const double *R)
{
    mo_cl_object o = obj_base(MO_CL_CYLINDER, x, y, z, R);
    o.radius = r;
    o.half_height = h;
    return o;
}

static mo_cl_object make_hull(double x, double y, double z, const test_hull *t, const double *R)
{
    mo_cl_object o = obj_base(MO_CL_HULL, x, y, z, R);
    o.hull = &t->h;
    return o;
}

/* ---- reference: signed distance of a point to an inflated shape ---- */

static double seg_dist(const double *p, const double *a, const double *b)
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double l2 = dot3(ab, ab);
    double t = l2 > 0 ? dot3(ap, ab) / l2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return sqrt(dot3(d, d));
}

/* polytope given by local vertices / faces, point in local coordinates */
static double hull_sdf_local(const mo_cl_hull *h, const double *p)
{
    double inside = -HUGE_VAL;
    for (int f = 0; f < h->nfaces; ++f)
        inside = fmax(inside, dot3(h->planes + 4 * f, p) - h->planes[4 * f + 3]);
    if (inside <= 0.0)
        return inside;
    double best = HUGE_VAL;
    for (int i = 0; i < h->nverts; ++i) {
        double w[3] = {p[0] - h->verts[3 * i], p[1] - h->verts[3 * i + 1], p[2] - h->verts[3 * i + 2]};
        best = fmin(best, sqrt(dot3(w, w)));
    }
    for (int f = 0; f < h->nfaces; ++f) {
        const double *n = h->planes + 4 * f;
        int first = h->face_first[f], cnt = h->face_first[f + 1] - first;
        double dpl = dot3(n, p) - n[3];
        double q[3] = {p[0] - dpl * n[0], p[1] - dpl * n[1], p[2] - dpl * n[2]};
        int in = 1;
        for (int i = 0; i < cnt; ++i) {
            const double *a = h->verts + 3 * h->face_verts[first + i];
            const double *b = h->verts + 3 * h->face_verts[first + (i + 1) % cnt];
            best = fmin(best, seg_dist(p, a, b));
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]}, c[3];
            cross3(e, w, c);
            in &= dot3(c, n) >= 0.0;
        }
        if (in)
            best = fmin(best, fabs(dpl));
    }
    return best;
}

static double surface_dist(const mo_cl_object *o, const double *p)
{
    double w[3] = {p[0] - o->pos[0], p[1] - o->pos[1], p[2] - o->pos[2]}, l[3];
    mat_tvec(o->rot, w, l);
    double m = o->margin, d;
    switch (o->type) {
    case MO_CL_SPHERE:
        d = sqrt(dot3(w, w)) - o->radius;
        break;
    case MO_CL_PLANE:
        d = l[2];
        break;
    case MO_CL_CAPSULE: {
        double a[3] = {0, 0, -o->half_height}, b[3] = {0, 0, o->half_height};
        d = seg_dist(l, a, b) - o->radius;
        break;
    }
    case MO_CL_CYLINDER: {
        double dr = sqrt(l[0] * l[0] + l[1] * l[1]) - o->radius, dz = fabs(l[2]) - o->half_height;
        if (dr > 0 || dz > 0)
            d = sqrt(fmax(dr, 0) * fmax(dr, 0) + fmax(dz, 0) * fmax(dz, 0));
        else
            d = fmax(dr, dz);
        break;
    }
    case MO_CL_BOX: {
        double out2 = 0, inmax = -HUGE_VAL;
        for (int k = 0; k < 3; ++k) {
            double dk = fabs(l[k]) - o->he[k];
            if (dk > 0)
                out2 += dk * dk;
            inmax = fmax(inmax, dk);
        }
        d = out2 > 0 ? sqrt(out2) : inmax;
        break;
    }
    default:
        d = hull_sdf_local(o->hull, l);
        break;
    }
    return d - m;
}

/* ---- reference: support functions and the signed distance ---- */

static double ref_support(const mo_cl_object *o, const double *u)
{
    double l[3];
    mat_tvec(o->rot, u, l);
    double h = dot3(o->pos, u) + o->margin;
    switch (o->type) {
    case MO_CL_SPHERE:
        return h + o->radius;
    case MO_CL_CAPSULE:
        return h + o->half_height * fabs(l[2]) + o->radius;
    case MO_CL_CYLINDER:
        return h + o->half_height * fabs(l[2]) + o->radius * sqrt(l[0] * l[0] + l[1] * l[1]) / sqrt(dot3(l, l));
    case MO_CL_BOX:
        return h + o->he[0] * fabs(l[0]) + o->he[1] * fabs(l[1]) + o->he[2] * fabs(l[2]);
    default: {
        double best = -HUGE_VAL;
        for (int i = 0; i < o->hull->nverts; ++i)
            best = fmax(best, dot3(l, o->hull->verts + 3 * i));
        return h + best;
    }
    }
}

/* separation of b from a along unit u */
static double ref_sep(const mo_cl_object *a, const mo_cl_object *b, const double *u)
{
    double mu[3] = {-u[0], -u[1], -u[2]};
    return -ref_support(b, mu) - ref_support(a, u);
}

/* max over unit u of ref_sep: Fibonacci sampling, then from the best samples
   of separate basins a shrinking grid search on the sphere (11 x 11 points in a
   window about the current best, the window recentred until the best is
   inside it, then shrunk by 0.4): unlike a gradient or random search it does
   not stall on the ridges of the support functions (the kinks of a capsule's
   or cylinder's h at u perpendicular to the axis, and of polytopes) */
/* the axis of a capsule or cylinder (world), else 0 */
static int ref_axis(const mo_cl_object *o, double w[3])
{
    if (o->type != MO_CL_CAPSULE && o->type != MO_CL_CYLINDER)
        return 0;
    w[0] = o->rot[2];
    w[1] = o->rot[5];
    w[2] = o->rot[8];
    return 1;
}

/* ref_sep at v, and at v moved onto each axis' ridge (the great circle
   perpendicular to a capsule or cylinder axis, where h has a kink) when near it */
static double ref_sep_ridge(const mo_cl_object *a, const mo_cl_object *b, double (*ax)[3], int nax,
                            double v[3])
{
    double s = ref_sep(a, b, v);
    for (int k = 0; k < nax; ++k) {
        double c = dot3(v, ax[k]);
        if (fabs(c) > 0.3)
            continue;
        double p[3] = {v[0] - c * ax[k][0], v[1] - c * ax[k][1], v[2] - c * ax[k][2]};
        double l = sqrt(dot3(p, p));
        for (int q = 0; q < 3; ++q)
            p[q] /= l;
        double sp = ref_sep(a, b, p);
        if (sp > s) {
            s = sp;
            memcpy(v, p, sizeof p);
        }
    }
    return s;
}

static double ref_distance_seeded(const mo_cl_object *a, const mo_cl_object *b, const double *seed_u,
                                  double best_u[3]);

static double ref_distance(const mo_cl_object *a, const mo_cl_object *b, double best_u[3])
{
    return ref_distance_seeded(a, b, NULL, best_u);
}

/* seed_u (may be NULL): an extra start for the grid search */
static double ref_distance_seeded(const mo_cl_object *a, const mo_cl_object *b, const double *seed_u,
                                  double best_u[3])
{
    enum { N = 3000, SEEDS = 4, G = 5 };
    static sample smp[N + 1];
    double ax[2][3];
    int nax = 0;
    nax += ref_axis(a, ax[nax]);
    nax += ref_axis(b, ax[nax]);
    for (int i = 0; i < N; ++i) {
        fibonacci_dir(i, N, smp[i].u);
        smp[i].s = ref_sep(a, b, smp[i].u);
    }
    qsort(smp, N, sizeof smp[0], cmp_sample_desc);
    double best = -HUGE_VAL;
    int seeds[SEEDS], ns = 0;
    if (seed_u) {
        memcpy(smp[N].u, seed_u, sizeof smp[N].u);
        smp[N].s = ref_sep(a, b, seed_u);
        seeds[ns++] = N;
    }
    pick_seeds(smp, N, cos(0.3), seeds, &ns, SEEDS);
    if (nax == 2) {
        double c[3];
        cross3(ax[0], ax[1], c);
        double l = sqrt(dot3(c, c));
        if (l > 1e-9)
            for (int sg = -1; sg <= 1; sg += 2) {
                double u[3] = {sg * c[0] / l, sg * c[1] / l, sg * c[2] / l};
                double su = ref_sep(a, b, u);
                if (su > best) {
                    best = su;
                    if (best_u)
                        memcpy(best_u, u, sizeof u);
                }
            }
    }
    for (int k = 0; k < ns; ++k) {
        double u[3] = {smp[seeds[k]].u[0], smp[seeds[k]].u[1], smp[seeds[k]].u[2]};
        double s = smp[seeds[k]].s;
        double w = 0.08;
        for (int guard = 0; w > 1e-12 && guard < 400; ++guard) {
            double e1[3], e2[3], t[3] = {1, 0, 0};
            if (fabs(u[0]) > 0.6)
                t[0] = 0, t[1] = 1;
            cross3(u, t, e1);
            double l = sqrt(dot3(e1, e1));
            for (int q = 0; q < 3; ++q)
                e1[q] /= l;
            cross3(u, e1, e2);
            int bi = 0, bj = 0;
            double bs = s, bu[3] = {u[0], u[1], u[2]};
            for (int i = -G; i <= G; ++i)
                for (int j = -G; j <= G; ++j) {
                    if (!i && !j)
                        continue;
                    double v[3];
                    for (int q = 0; q < 3; ++q)
                        v[q] = u[q] + (w * i / G) * e1[q] + (w * j / G) * e2[q];
                    l = sqrt(dot3(v, v));
                    for (int q = 0; q < 3; ++q)
                        v[q] /= l;
                    double sv = ref_sep_ridge(a, b, ax, nax, v);
                    if (sv > bs) {
                        bs = sv;
                        bi = i;
                        bj = j;
                        memcpy(bu, v, sizeof bu);
                    }
                }
            s = bs;
            memcpy(u, bu, sizeof u);
            if (abs(bi) < G && abs(bj) < G)
                w *= 0.4;
        }
        if (s > best) {
            best = s;
            if (best_u)
                memcpy(best_u, u, sizeof u);
        }
    }
    return best;
}

/* exact signed distances where the library's definition is a point or
   segment distance: sphere against anything (the SDF of the other at the
   centre), capsule/capsule (the distance of the segments, by ternary search of
   the convex SDF along a; segments that cross report -(r_a + r_b)) */
static double ref_exact(const mo_cl_object *a, const mo_cl_object *b, int *ok)
{
    *ok = 1;
    if (a->type == MO_CL_SPHERE)
        return surface_dist(b, a->pos) - a->radius - a->margin;
    if (a->type == MO_CL_CAPSULE && b->type == MO_CL_CAPSULE) {
        double w[3] = {a->rot[2], a->rot[5], a->rot[8]};
        double lo = -a->half_height, hi = a->half_height;
        for (int it = 0; it < 200; ++it) {
            double t1 = lo + (hi - lo) / 3, t2 = hi - (hi - lo) / 3, p1[3], p2[3];
            for (int k = 0; k < 3; ++k) {
                p1[k] = a->pos[k] + t1 * w[k];
                p2[k] = a->pos[k] + t2 * w[k];
            }
            double f1 = surface_dist(b, p1) + b->margin + b->radius, f2 = surface_dist(b, p2) + b->margin + b->radius;
            if (f1 < f2)
                hi = t2;
            else
                lo = t1;
        }
        double p[3];
        for (int k = 0; k < 3; ++k)
            p[k] = a->pos[k] + 0.5 * (lo + hi) * w[k];
        double d = fmax(surface_dist(b, p) + b->margin + b->radius, 0.0);
        return d - a->radius - a->margin - b->radius - b->margin;
    }
    *ok = 0;
    return 0.0;
}

/* Exact signed distance of two cores that are points, segments or polytopes
   (sphere, capsule, box, hull; no cylinder), rounding and margins subtracted:
   when the cores overlap, the largest separation over the separating axes
   (faces of both, cross products of every edge pair), exact for polytopes;
   when they are apart, the smallest distance over vertex/core pairs (the core
   SDFs above) and edge/edge pairs. */
typedef struct ref_core {
    int nv, ne, nf;
    double v[16][3];    /* world vertices */
    int e[32][2];
    double n[16][3];    /* world face normals */
    double round;       /* radius + margin */
} ref_core;

static int ref_core_of(const mo_cl_object *o, ref_core *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->round = o->margin;
    double lv[16][3];
    switch (o->type) {
    case MO_CL_SPHERE:
        rc->nv = 1;
        rc->round += o->radius;
        break;
    case MO_CL_CAPSULE:
        rc->nv = 2;
        rc->ne = 1;
        rc->e[0][0] = 0;
        rc->e[0][1] = 1;
        lv[0][0] = lv[0][1] = lv[1][0] = lv[1][1] = 0;
        lv[0][2] = -o->half_height;
        lv[1][2] = o->half_height;
        rc->round += o->radius;
        break;
    case MO_CL_BOX: {
        test_hull th;
        hull_box(&th, o->he[0], o->he[1], o->he[2]);
        rc->nv = 8;
        rc->ne = th.h.nedges;
        rc->nf = 6;
        memcpy(lv, th.v, sizeof(double) * 24);
        memcpy(rc->e, th.e, sizeof(int) * 2 * (size_t)rc->ne);
        for (int f = 0; f < 6; ++f)
            mat_vec(o->rot, th.pl + 4 * f, rc->n[f]);
        break;
    }
    case MO_CL_HULL: {
        const mo_cl_hull *h = o->hull;
        rc->nv = h->nverts;
        rc->ne = h->nedges;
        rc->nf = h->nfaces;
        memcpy(lv, h->verts, sizeof(double) * 3 * (size_t)h->nverts);
        memcpy(rc->e, h->edges, sizeof(int) * 2 * (size_t)h->nedges);
        for (int f = 0; f < h->nfaces; ++f)
            mat_vec(o->rot, h->planes + 4 * f, rc->n[f]);
        break;
    }
    default:
        return 0;
    }
    if (o->type == MO_CL_SPHERE) {
        memcpy(rc->v[0], o->pos, sizeof rc->v[0]);
    } else {
        for (int i = 0; i < rc->nv; ++i) {
            mat_vec(o->rot, lv[i], rc->v[i]);
            for (int k = 0; k < 3; ++k)
                rc->v[i][k] += o->pos[k];
        }
    }
    return 1;
}

static double core_sep(const ref_core *a, const ref_core *b, const double *u)
{
    double ha = -HUGE_VAL, lb = HUGE_VAL;
    for (int i = 0; i < a->nv; ++i)
        ha = fmax(ha, dot3(u, a->v[i]));
    for (int i = 0; i < b->nv; ++i)
        lb = fmin(lb, dot3(u, b->v[i]));
    return lb - ha;
}

/* distance of a point to a core: the SDF of the shape plus its rounding */
static double core_point_dist(const mo_cl_object *o, const ref_core *rc, const double *p)
{
    return surface_dist(o, p) + rc->round;
}

static double segseg_dist(const double *p0, const double *p1, const double *q0, const double *q1)
{
    /* convex in (s, t): nested ternary searches */
    double lo = 0, hi = 1;
    double d1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    for (int it = 0; it < 100; ++it) {
        double s1 = lo + (hi - lo) / 3, s2 = hi - (hi - lo) / 3, x1[3], x2[3];
        for (int k = 0; k < 3; ++k) {
            x1[k] = p0[k] + s1 * d1[k];
            x2[k] = p0[k] + s2 * d1[k];
        }
        if (seg_dist(x1, q0, q1) < seg_dist(x2, q0, q1))
            hi = s2;
        else
            lo = s1;
    }
    double x[3];
    for (int k = 0; k < 3; ++k)
        x[k] = p0[k] + 0.5 * (lo + hi) * d1[k];
    return seg_dist(x, q0, q1);
}

static double ref_core_distance(const mo_cl_object *a, const mo_cl_object *b, int *ok)
{
    static ref_core A, B;
    *ok = ref_core_of(a, &A) && ref_core_of(b, &B);
    if (!*ok)
        return 0.0;
    /* separating axes */
    double sat = -HUGE_VAL;
    for (int f = 0; f < A.nf; ++f)
        sat = fmax(sat, core_sep(&A, &B, A.n[f]));
    for (int f = 0; f < B.nf; ++f) {
        double u[3] = {-B.n[f][0], -B.n[f][1], -B.n[f][2]};
        sat = fmax(sat, core_sep(&A, &B, u));
    }
    for (int i = 0; i < A.ne; ++i)
        for (int j = 0; j < B.ne; ++j) {
            double da[3], db[3], c[3];
            for (int k = 0; k < 3; ++k) {
                da[k] = A.v[A.e[i][1]][k] - A.v[A.e[i][0]][k];
                db[k] = B.v[B.e[j][1]][k] - B.v[B.e[j][0]][k];
            }
            cross3(da, db, c);
            double l = sqrt(dot3(c, c));
            if (l < 1e-9 * sqrt(dot3(da, da) * dot3(db, db)))
                continue;
            for (int k = 0; k < 3; ++k)
                c[k] /= l;
            sat = fmax(sat, core_sep(&A, &B, c));
            for (int k = 0; k < 3; ++k)
                c[k] = -c[k];
            sat = fmax(sat, core_sep(&A, &B, c));
        }
    double dcore;
    if (sat <= 0.0 && (A.nf > 0 || B.nf > 0)) {
        dcore = sat;
    } else {
        /* apart: vertex / core and edge / edge distances */
        dcore = HUGE_VAL;
        for (int i = 0; i < A.nv; ++i)
            dcore = fmin(dcore, core_point_dist(b, &B, A.v[i]));
        for (int i = 0; i < B.nv; ++i)
            dcore = fmin(dcore, core_point_dist(a, &A, B.v[i]));
        for (int i = 0; i < A.ne; ++i)
            for (int j = 0; j < B.ne; ++j)
                dcore = fmin(dcore, segseg_dist(A.v[A.e[i][0]], A.v[A.e[i][1]], B.v[B.e[j][0]], B.v[B.e[j][1]]));
    }
    return dcore - A.round - B.round;
}

/* ---- contact checks ---- */

static int g_contacts_checked = 0;

/* every contact: ids, unit normal, point_b = point_a + gap n, gap < margin, on surfaces */
static void check_contacts(const mo_cl_contact *c, int n, const mo_cl_object *a, int ia, const mo_cl_object *b,
                           int ib, double margin, double surf_tol, const char *what)
{
    CHECK(n >= 0 && n <= MO_CL_MAX_POINTS);
    for (int i = 0; i < n; ++i) {
        int ok = contact_basic_ok(&c[i], ia, ib, margin);
        double sa = surface_dist(a, c[i].point_a), sb = surface_dist(b, c[i].point_b);
        ok &= fabs(sa) <= surf_tol && fabs(sb) <= surf_tol;
        ++g_contacts_checked;
        if (!ok) {
            fprintf(stderr,
                    "%s:%d: contact %d of %s inconsistent: ids %d %d, n (%g %g %g), gap %g, surf a %g, "
                    "surf b %g\n",
                    __FILE__, __LINE__, i, what, c[i].a, c[i].b, c[i].normal[0], c[i].normal[1], c[i].normal[2],
                    c[i].gap, sa, sb);
            check_failures++;
        }
    }
}

static double min_gap(const mo_cl_contact *c, int n)
{
    double g = HUGE_VAL;
    for (int i = 0; i < n; ++i)
        g = fmin(g, c[i].gap);
    return g;
}

/* collide(a, b) and collide(b, a): same contacts up to order, normals
   opposite, points swapped */
static void check_swap(const mo_cl_object *a, const mo_cl_object *b, double margin, double ptol, const char *what)
{
    int n1, n2;
    int ok = swap_same(a, b, margin, 1e-9, ptol, &n1, &n2);
    if (!ok) {
        fprintf(stderr, "%s:%d: swapped order differs for %s (%d vs %d contacts)\n", __FILE__, __LINE__, what, n1,
                n2);
        check_failures++;
    }
}

/* b moved by 1e-6 m and turned by 1e-6 rad, in 8 directions: same ids (and
   distinct ids within the manifold) */
static void check_stable(const mo_cl_object *a, const mo_cl_object *b, double margin, int expect_n, const char *what)
{
    uint32_t ids0[MO_CL_MAX_POINTS], ids1[MO_CL_MAX_POINTS];
    int n0 = feature_set(a, b, margin, ids0);
    if (n0 != expect_n)
        fprintf(stderr, "%s:%d: %s: %d contacts, expected %d\n", __FILE__, __LINE__, what, n0, expect_n);
    CHECK(n0 == expect_n);
    for (int i = 1; i < n0; ++i)
        CHECK(ids0[i] != ids0[i - 1]);
    uint64_t seed = 99;
    for (int t = 0; t < 8; ++t) {
        mo_cl_object p = perturbed(b, t, &seed);
        int n1 = feature_set(a, &p, margin, ids1);
        int same = same_ids(ids0, n0, ids1, n1);
        if (!same) {
            fprintf(stderr, "%s:%d: feature ids of %s changed under perturbation %d (%d -> %d contacts)\n",
                    __FILE__, __LINE__, what, t, n0, n1);
            check_failures++;
        }
    }
}

static test_hull g_hbox, g_hcube, g_tetra, g_octa, g_hex;

/* ---- sphere / capsule ---- */

static void test_sphere_capsule(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object cap = make_capsule(0, 0, 0, 0.2, 0.5, NULL); /* along z */
    mo_cl_object s = make_sphere(0.5, 0, 0.1, 0.25);
    /* side region, separated by 0.05 */
    CHECK(mo_cl_collide(&s, 0, &cap, 1, 0.01, c) == 0);
    int n = mo_cl_collide(&s, 0, &cap, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 1e-15);
    CHECK_VEC(c[0].point_a, 0.25, 0, 0.1, 1e-15);
    CHECK_VEC(c[0].point_b, 0.2, 0, 0.1, 1e-15);
    CHECK(c[0].feature == 1);
    /* penetrating */
    s = make_sphere(0.3, 0, 0.1, 0.25);
    n = mo_cl_collide(&s, 0, &cap, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.15, 1e-15);
    check_contacts(c, n, &s, 0, &cap, 1, 0.0, 1e-12, "sphere/capsule");
    /* above the upper end */
    s = make_sphere(0, 0, 1.0, 0.25);
    n = mo_cl_collide(&s, 0, &cap, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-15);
    CHECK(c[0].feature == 2);
    /* capsule first: normal flipped */
    n = mo_cl_collide(&cap, 1, &s, 0, 0.1, c);
    CHECK(n == 1 && c[0].a == 1 && c[0].b == 0);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-15);
    CHECK_VEC(c[0].point_a, 0, 0, 0.7, 1e-15);
    /* centre on the axis: a finite unit normal, gap -(r1 + r2) */
    s = make_sphere(0, 0, 0.2, 0.25);
    n = mo_cl_collide(&s, 0, &cap, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(dot3(c[0].normal, c[0].normal), 1.0, 1e-15);
    CHECK_NEAR(c[0].normal[2], 0.0, 1e-15);
    CHECK_NEAR(c[0].gap, -0.45, 1e-15);
    check_contacts(c, n, &s, 0, &cap, 1, 0.0, 1e-12, "sphere on capsule axis");
    /* tilted capsule */
    double R[9];
    mat_axis_angle(0, 1, 0, PI / 2, R); /* axis along x */
    cap = make_capsule(1, 2, 3, 0.2, 0.5, R);
    s = make_sphere(1.3, 2, 3.5, 0.25);
    n = mo_cl_collide(&s, 0, &cap, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-12);
    check_swap(&s, &cap, 0.1, 1e-12, "sphere/capsule");
}

/* ---- capsule / capsule ---- */

static void test_capsule_capsule(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    double Rx[9], Ry[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx); /* local z -> world x (to -x... axis along x) */
    mat_axis_angle(1, 0, 0, PI / 2, Ry); /* axis along y */
    /* crossing: a along x at z = 0, b along y at z = 0.35 */
    mo_cl_object a = make_capsule(0, 0, 0, 0.2, 1.0, Rx);
    mo_cl_object b = make_capsule(0.3, 0.1, 0.35, 0.1, 1.0, Ry);
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.01, c) == 0);
    int n = mo_cl_collide(&a, 0, &b, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-15);
    CHECK_VEC(c[0].point_a, 0.3, 0, 0.2, 1e-15);
    CHECK_VEC(c[0].point_b, 0.3, 0, 0.25, 1e-15);
    CHECK(c[0].feature == 3 * 1 + 1);
    /* crossing, penetrating 0.05 */
    b.pos[2] = 0.25;
    n = mo_cl_collide(&a, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.05, 1e-15);
    check_swap(&a, &b, 0.0, 1e-12, "capsule/capsule crossing");

    /* parallel, lying on each other: two points at the overlap ends x = -0.2, 0.5 */
    mo_cl_object p = make_capsule(0, 0, 0, 0.15, 0.5, Rx);
    mo_cl_object q = make_capsule(0.3, 0, 0.3, 0.15, 0.5, Rx);
    n = mo_cl_collide(&p, 0, &q, 1, 0.01, c);
    CHECK(n == 2);
    double xs[2] = {0, 0};
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-15);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-15);
        CHECK_NEAR(c[i].point_a[2], 0.15, 1e-15);
        xs[i] = c[i].point_a[0];
    }
    CHECK_NEAR(fmin(xs[0], xs[1]), -0.2, 1e-15);
    CHECK_NEAR(fmax(xs[0], xs[1]), 0.5, 1e-15);
    check_contacts(c, n, &p, 0, &q, 1, 0.01, 1e-12, "parallel capsules");
    check_swap(&p, &q, 0.01, 1e-12, "parallel capsules");
    check_stable(&p, &q, 0.01, 2, "parallel capsules");
    /* anti-parallel axes give the same */
    double Rm[9];
    mat_axis_angle(0, 1, 0, -PI / 2, Rm);
    q = make_capsule(0.3, 0, 0.3, 0.15, 0.5, Rm);
    CHECK(mo_cl_collide(&p, 0, &q, 1, 0.01, c) == 2);
    /* side by side, separated 0.05, within a margin */
    q = make_capsule(0.1, 0.35, 0, 0.15, 0.5, Rx);
    n = mo_cl_collide(&p, 0, &q, 1, 0.1, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.05, 1e-15);
        CHECK_VEC(c[i].normal, 0, 1, 0, 1e-15);
    }
    CHECK(mo_cl_collide(&p, 0, &q, 1, 0.04, c) == 0);
    /* coincident centres, crossing axes: finite normal along the common perpendicular */
    mo_cl_object x1 = make_capsule(0, 0, 0, 0.2, 1.0, Rx), y1 = make_capsule(0, 0, 0, 0.1, 1.0, Ry);
    n = mo_cl_collide(&x1, 0, &y1, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(fabs(c[0].normal[2]), 1.0, 1e-15);
    CHECK_NEAR(c[0].gap, -0.3, 1e-15);
    /* coaxial, same centre: finite unit normal */
    mo_cl_object z1 = make_capsule(0, 0, 0, 0.2, 1.0, NULL), z2 = make_capsule(0, 0, 0, 0.1, 0.5, NULL);
    n = mo_cl_collide(&z1, 0, &z2, 1, 0.0, c);
    CHECK(n >= 1);
    for (int i = 0; i < n; ++i) {
        CHECK(isfinite(c[i].normal[0]) && isfinite(c[i].normal[1]) && isfinite(c[i].normal[2]));
        CHECK_NEAR(dot3(c[i].normal, c[i].normal), 1.0, 1e-12);
        CHECK_NEAR(c[i].gap, -0.3, 1e-15);
    }
    /* end to end along the axis */
    z2 = make_capsule(0, 0, 1.45, 0.1, 0.1, NULL);
    n = mo_cl_collide(&z1, 0, &z2, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-15);
    CHECK(c[0].feature == 3 * 2 + 0);
}

/* ---- capsule / plane ---- */

static void test_capsule_plane(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    double R[9];
    mat_axis_angle(0, 1, 0, PI / 2, R);
    /* lying flat: both ends */
    mo_cl_object cap = make_capsule(1, 2, 0.19, 0.2, 0.5, R);
    int n = mo_cl_collide(&cap, 0, &p, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-15);
        CHECK_VEC(c[i].normal, 0, 0, -1, 0);
        CHECK_NEAR(fabs(c[i].point_a[0] - 1), 0.5, 1e-15);
        CHECK_NEAR(c[i].point_b[2], 0.0, 1e-15);
    }
    check_contacts(c, n, &cap, 0, &p, 1, 0.01, 1e-12, "capsule lying on plane");
    check_swap(&cap, &p, 0.01, 1e-12, "capsule/plane");
    check_stable(&p, &cap, 0.01, 2, "capsule lying on plane");
    /* tilted 0.2 rad: one end at 0.2 - 0.5 sin 0.2 - 0.2 + ... */
    double T[9], RT[9];
    mat_axis_angle(0, 1, 0, 0.2, T);
    mat_mul(T, R, RT);
    cap = make_capsule(0, 0, 0.3, 0.2, 0.5, RT);
    double low = 0.3 - 0.5 * sin(0.2) - 0.2, high = 0.3 + 0.5 * sin(0.2) - 0.2;
    n = mo_cl_collide(&p, 1, &cap, 0, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, low, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, 1, 0);
    n = mo_cl_collide(&p, 1, &cap, 0, high + 0.01, c);
    CHECK(n == 2);
    CHECK_NEAR(fmax(c[0].gap, c[1].gap), high, 1e-12);
    /* standing on an end, far above: none */
    cap = make_capsule(0, 0, 0.8, 0.2, 0.5, NULL);
    CHECK(mo_cl_collide(&cap, 0, &p, 1, 0.05, c) == 0);
    n = mo_cl_collide(&cap, 0, &p, 1, 0.2, c);
    CHECK(n == 1 && c[0].feature == 0);
    CHECK_NEAR(c[0].gap, 0.1, 1e-15);
}

/* ---- cylinder / plane ---- */

static void test_cylinder_plane(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    /* standing: 4 rim points of the lower cap */
    mo_cl_object cyl = make_cylinder(0.5, -0.5, 0.299, 0.4, 0.3, NULL);
    int n = mo_cl_collide(&p, 0, &cyl, 1, 0.01, c);
    CHECK(n == 4);
    unsigned seen = 0;
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.001, 1e-15);
        CHECK_VEC(c[i].normal, 0, 0, 1, 0);
        double dx = c[i].point_b[0] - 0.5, dy = c[i].point_b[1] + 0.5;
        CHECK_NEAR(dx * dx + dy * dy, 0.16, 1e-14);
        CHECK(c[i].feature < 4);
        seen |= 1u << c[i].feature;
    }
    CHECK(seen == 0xF);
    check_contacts(c, n, &p, 0, &cyl, 1, 0.01, 1e-12, "cylinder standing on plane");
    check_swap(&p, &cyl, 0.01, 1e-12, "cylinder/plane");
    check_stable(&p, &cyl, 0.01, 4, "cylinder standing on plane");
    /* upside down (axis -z): the +z cap is the lower one */
    double F[9];
    mat_axis_angle(1, 0, 0, PI, F);
    cyl = make_cylinder(0, 0, 0.3, 0.4, 0.3, F);
    n = mo_cl_collide(&p, 0, &cyl, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i)
        CHECK(c[i].feature >= 4 && c[i].feature < 8);
    /* tilted 0.1 rad about x: deepest rim point at zc - h cos - R sin */
    double T[9];
    mat_axis_angle(1, 0, 0, 0.1, T);
    double deep = 0.3 - 0.3 * cos(0.1) - 0.4 * sin(0.1) - 0.002;
    cyl = make_cylinder(0, 0, 0.3 - 0.002 - 0.4 * sin(0.1) + 0.4 * sin(0.1), 0.4, 0.3, T);
    cyl.pos[2] = 0.3 * cos(0.1) + 0.4 * sin(0.1) - 0.002;
    deep = -0.002;
    n = mo_cl_collide(&p, 0, &cyl, 1, 0.01, c);
    CHECK(n >= 1);
    CHECK_NEAR(min_gap(c, n), deep, 1e-12);
    check_contacts(c, n, &p, 0, &cyl, 1, 0.01, 1e-12, "tilted cylinder on plane");
    check_stable(&p, &cyl, 0.01, n, "tilted cylinder on plane");
    /* a larger margin: up to 4 points, the deepest kept */
    n = mo_cl_collide(&p, 0, &cyl, 1, 0.2, c);
    CHECK(n == 4);
    CHECK_NEAR(min_gap(c, n), deep, 1e-12);
    /* lying on its side: 2 points along the lowest line, at both caps */
    double L[9];
    mat_axis_angle(1, 0, 0, PI / 2, L);
    cyl = make_cylinder(0, 0, 0.395, 0.4, 0.3, L);
    n = mo_cl_collide(&cyl, 0, &p, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.005, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, -1, 0);
        CHECK_NEAR(fabs(c[i].point_a[1]), 0.3, 1e-12);
        CHECK_NEAR(c[i].point_a[0], 0.0, 1e-12);
    }
    CHECK(n == 2 && c[0].point_a[1] * c[1].point_a[1] < 0);
    check_contacts(c, n, &cyl, 0, &p, 1, 0.01, 1e-12, "cylinder lying on plane");
    check_stable(&p, &cyl, 0.01, 2, "cylinder lying on plane");
    /* far above: none */
    cyl = make_cylinder(0, 0, 1.0, 0.4, 0.3, NULL);
    CHECK(mo_cl_collide(&cyl, 0, &p, 1, 0.1, c) == 0);
}

/* ---- hull / plane ---- */

static void test_hull_plane(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    /* hull box resting flat: 4 bottom vertices */
    mo_cl_object h = make_hull(0.2, 0.3, 0.199, &g_hbox, NULL); /* half extents 0.5 0.3 0.2 */
    int n = mo_cl_collide(&h, 0, &p, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.001, 1e-15);
        CHECK_VEC(c[i].normal, 0, 0, -1, 0);
        CHECK(c[i].feature < 8 && (c[i].feature & 4) == 0);
    }
    check_contacts(c, n, &h, 0, &p, 1, 0.01, 1e-12, "hull box on plane");
    check_swap(&h, &p, 0.01, 1e-12, "hull/plane");
    check_stable(&p, &h, 0.01, 4, "hull box on plane");
    /* octahedron on a vertex */
    h = make_hull(0, 0, 0.49, &g_octa, NULL);
    n = mo_cl_collide(&p, 0, &h, 1, 0.05, c);
    CHECK(n == 1 && c[0].feature == 5);
    CHECK_NEAR(c[0].gap, -0.01, 1e-15);
    /* hexagonal prism flat: 6 bottom vertices reduced to 4 spread out */
    h = make_hull(0, 0, 0.25, &g_hex, NULL);
    n = mo_cl_collide(&p, 0, &h, 1, 0.01, c);
    CHECK(n == 4);
    double spread = HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-15);
        CHECK(c[i].feature < 6);
        for (int j = 0; j < i; ++j) {
            double dx = c[i].point_b[0] - c[j].point_b[0], dy = c[i].point_b[1] - c[j].point_b[1];
            spread = fmin(spread, dx * dx + dy * dy);
        }
    }
    CHECK(spread > 0.25 * 0.25 * 0.9); /* side 0.5 hexagon: no two neighbours closer than a side */
    check_stable(&p, &h, 0.01, 4, "hexagonal prism on plane");
    /* tilted octahedron: the deepest vertex, exact */
    double R[9];
    mat_axis_angle(1, 1, 0, 0.3, R);
    h = make_hull(0, 0, 0.4, &g_octa, R);
    n = mo_cl_collide(&p, 0, &h, 1, 0.0, c);
    CHECK(n >= 1);
    double low = HUGE_VAL;
    for (int i = 0; i < 6; ++i) {
        double x[3];
        mat_vec(R, g_octa.v + 3 * i, x);
        low = fmin(low, 0.4 + x[2]);
    }
    CHECK_NEAR(min_gap(c, n), low, 1e-15);
}

/* ---- sphere / cylinder ---- */

static void test_sphere_cylinder(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object cyl = make_cylinder(0, 0, 0, 0.5, 0.4, NULL);
    /* side */
    mo_cl_object s = make_sphere(0.8, 0, 0.1, 0.25);
    int n = mo_cl_collide(&s, 0, &cyl, 1, 0.1, c);
    CHECK(n == 1 && c[0].feature == 0);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 1e-15);
    CHECK(mo_cl_collide(&s, 0, &cyl, 1, 0.04, c) == 0);
    /* cap */
    s = make_sphere(0.2, 0.1, 0.6, 0.25);
    n = mo_cl_collide(&s, 0, &cyl, 1, 0.0, c);
    CHECK(n == 1 && c[0].feature == 2);
    CHECK_NEAR(c[0].gap, -0.05, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-15);
    /* rim: offset (0.3, 0, 0.4) from the rim point (0.5, 0, -0.4), distance 0.5 */
    s = make_sphere(0.8, 0, -0.8, 0.45);
    n = mo_cl_collide(&s, 0, &cyl, 1, 0.1, c);
    CHECK(n == 1 && c[0].feature == 3);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, -0.6, 0, 0.8, 1e-15);
    check_contacts(c, n, &s, 0, &cyl, 1, 0.1, 1e-12, "sphere/cylinder rim");
    /* inside, nearer the side */
    s = make_sphere(0.4, 0, 0, 0.1);
    n = mo_cl_collide(&s, 0, &cyl, 1, 0.0, c);
    CHECK(n == 1 && c[0].feature == 0);
    CHECK_NEAR(c[0].gap, -0.2, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 1e-15);
    /* at the centre: finite, through the cap (0.4 < 0.5) */
    s = make_sphere(0, 0, 0, 0.1);
    n = mo_cl_collide(&s, 0, &cyl, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.5, 1e-15);
    CHECK_NEAR(fabs(c[0].normal[2]), 1.0, 0);
    /* rotated, swapped */
    double R[9];
    mat_axis_angle(1, 2, 3, 0.7, R);
    cyl = make_cylinder(1, 1, 1, 0.5, 0.4, R);
    s = make_sphere(1.3, 1.5, 1.2, 0.3);
    check_swap(&s, &cyl, 0.1, 1e-12, "sphere/cylinder");
}

/* ---- sphere / hull ---- */

static void test_sphere_hull(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    /* cube hull half 0.5: face region */
    mo_cl_object h = make_hull(0, 0, 0, &g_hcube, NULL);
    mo_cl_object s = make_sphere(0.2, 0.1, 0.8, 0.25);
    int n = mo_cl_collide(&s, 0, &h, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-12);
    CHECK_VEC(c[0].point_b, 0.2, 0.1, 0.5, 1e-12);
    CHECK(mo_cl_collide(&s, 0, &h, 1, 0.04, c) == 0);
    /* vertex region: offset (0.2, 0.2, 0.1), distance 0.3 */
    s = make_sphere(0.7, 0.7, 0.6, 0.4);
    n = mo_cl_collide(&s, 0, &h, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.1, 1e-12);
    CHECK_VEC(c[0].normal, -2.0 / 3, -2.0 / 3, -1.0 / 3, 1e-12);
    check_contacts(c, n, &s, 0, &h, 1, 0.0, 1e-12, "sphere/hull vertex");
    /* centre inside, nearest face +x */
    s = make_sphere(0.4, 0.1, 0, 0.2);
    n = mo_cl_collide(&s, 0, &h, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.3, 1e-12);
    CHECK_VEC(c[0].normal, -1, 0, 0, 1e-12);
    check_contacts(c, n, &s, 0, &h, 1, 0.0, 1e-12, "sphere in hull");
    /* tetrahedron face */
    mo_cl_object t = make_hull(0, 0, 0, &g_tetra, NULL); /* bottom face z = -1/3 */
    s = make_sphere(0.05, 0.05, -1.0 / 3 - 0.3, 0.25);
    n = mo_cl_collide(&t, 1, &s, 0, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-12);
    check_stable(&t, &s, 0.1, 1, "sphere under tetrahedron");
    check_swap(&s, &t, 0.1, 1e-12, "sphere/hull");
}

/* ---- capsule / box and capsule / hull ---- */

static void test_capsule_box(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object box = make_box(0, 0, 0, 1.0, 1.0, 0.5, NULL);
    double Rx[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    /* lying flat on the top face, 0.01 deep: two points at the segment ends */
    mo_cl_object cap = make_capsule(0.2, 0.1, 0.69, 0.2, 0.4, Rx);
    int n = mo_cl_collide(&box, 0, &cap, 1, 0.02, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
        CHECK_NEAR(fabs(c[i].point_a[0] - 0.2), 0.4, 1e-12);
        CHECK_NEAR(c[i].point_a[2], 0.5, 1e-12);
    }
    check_contacts(c, n, &box, 0, &cap, 1, 0.02, 1e-9, "capsule lying on box");
    check_swap(&box, &cap, 0.02, 1e-9, "capsule/box lying");
    check_stable(&box, &cap, 0.02, 2, "capsule lying on box");
    /* separated within the margin */
    cap.pos[2] = 0.75;
    n = mo_cl_collide(&cap, 0, &box, 1, 0.1, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.05, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-12);
    }
    CHECK(mo_cl_collide(&cap, 0, &box, 1, 0.04, c) == 0);
    check_stable(&box, &cap, 0.1, 2, "capsule above box, within margin");
    /* overhanging the edge x = 1: clipped to the face */
    cap = make_capsule(1.2, 0, 0.7, 0.2, 0.4, Rx);
    n = mo_cl_collide(&box, 0, &cap, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-12);
        CHECK(c[i].point_a[0] >= 0.8 - 1e-12 && c[i].point_a[0] <= 1.0 + 1e-3);
    }
    check_contacts(c, n, &box, 0, &cap, 1, 0.01, 1e-3, "capsule overhanging box");
    /* standing on an end */
    cap = make_capsule(0.3, 0.3, 1.1, 0.2, 0.4, NULL);
    n = mo_cl_collide(&box, 0, &cap, 1, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.0, 1e-12);
    CHECK_VEC(c[0].point_b, 0.3, 0.3, 0.5, 1e-12);
    /* across the box edge (x = 1, z = 0.5) along y, diagonal: one point */
    double Ry[9];
    mat_axis_angle(1, 0, 0, PI / 2, Ry);
    double d = 0.2 + 0.05; /* 0.05 from the edge along (1, 0, 1)/sqrt2 */
    cap = make_capsule(1 + d / SQ2, 0, 0.5 + d / SQ2, 0.2, 0.4, Ry);
    n = mo_cl_collide(&box, 0, &cap, 1, 0.1, c);
    CHECK(n >= 1);
    CHECK_NEAR(min_gap(c, n), 0.05, 1e-12);
    CHECK_VEC(c[0].normal, 1 / SQ2, 0, 1 / SQ2, 1e-12);
    check_contacts(c, n, &box, 0, &cap, 1, 0.1, 1e-9, "capsule across box edge");
    /* segment through the box: cores intersect, exact depth by the axes */
    cap = make_capsule(0.1, 0, 0.3, 0.2, 0.4, Rx);
    n = mo_cl_collide(&box, 0, &cap, 1, 0.0, c);
    CHECK(n >= 1);
    CHECK_NEAR(min_gap(c, n), -(0.5 - 0.3) - 0.2, 1e-12); /* out through the top face */
    for (int i = 0; i < n; ++i)
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
    check_contacts(c, n, &box, 0, &cap, 1, 0.0, 1e-9, "capsule through box");
    /* rotated box, swapped order */
    double R[9];
    mat_axis_angle(1, 1, 1, 0.5, R);
    box = make_box(0, 0, 0, 0.6, 0.4, 0.3, R);
    cap = make_capsule(0.2, 0.5, 0.6, 0.15, 0.3, Ry);
    check_swap(&box, &cap, 0.3, 1e-9, "capsule/rotated box");

    /* capsule on a tetrahedron's bottom face (from below, lying) and on a cube hull */
    mo_cl_object t = make_hull(0, 0, 0, &g_tetra, NULL);
    cap = make_capsule(0.0, 0.0, -1.0 / 3 - 0.15, 0.15, 0.2, Rx);
    n = mo_cl_collide(&cap, 0, &t, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
    }
    check_contacts(c, n, &cap, 0, &t, 1, 0.01, 1e-9, "capsule under tetrahedron");
    check_stable(&t, &cap, 0.01, 2, "capsule under tetrahedron");
    mo_cl_object hc = make_hull(0, 0, 0, &g_hcube, NULL);
    cap = make_capsule(0.1, 0.1, 0.69, 0.2, 0.3, Rx);
    n = mo_cl_collide(&cap, 0, &hc, 1, 0.02, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(c[i].gap, -0.01, 1e-12);
    check_swap(&cap, &hc, 0.02, 1e-9, "capsule/hull");
}

/* ---- general pairs: box / cylinder, cylinder / cylinder, cylinder / hull, capsule / cylinder ---- */

static void test_cylinder_box(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object box = make_box(0, 0, 0, 1.0, 1.0, 0.5, NULL);
    /* standing, separated 0.05, touching, penetrating 0.01 */
    double zs[3] = {0.5 + 0.3 + 0.05, 0.5 + 0.3, 0.5 + 0.3 - 0.01}, gs[3] = {0.05, 0.0, -0.01};
    for (int k = 0; k < 3; ++k) {
        mo_cl_object cyl = make_cylinder(0.2, -0.1, zs[k], 0.4, 0.3, NULL);
        int n = mo_cl_collide(&box, 0, &cyl, 1, 0.1, c);
        CHECK(n == 4);
        for (int i = 0; i < n; ++i) {
            CHECK_NEAR(c[i].gap, gs[k], 1e-9);
            CHECK_VEC(c[i].normal, 0, 0, 1, 1e-9);
            double dx = c[i].point_b[0] - 0.2, dy = c[i].point_b[1] + 0.1;
            CHECK_NEAR(dx * dx + dy * dy, 0.16, 1e-9);
        }
        check_contacts(c, n, &box, 0, &cyl, 1, 0.1, 1e-9, "cylinder standing on box");
        check_swap(&box, &cyl, 0.1, 1e-9, "cylinder/box standing");
        if (k == 1)
            check_stable(&box, &cyl, 0.1, 4, "cylinder standing on box");
        CHECK(mo_cl_collide(&box, 0, &cyl, 1, gs[k] - 1e-6, c) == 0 || k > 0);
    }
    mo_cl_object cyl = make_cylinder(0.2, -0.1, 0.85, 0.4, 0.3, NULL);
    CHECK(mo_cl_collide(&box, 0, &cyl, 1, 0.04, c) == 0);
    /* lying on its side, 0.01 deep: 2 points on the lowest line */
    double L[9];
    mat_axis_angle(1, 0, 0, PI / 2, L); /* axis along -y */
    cyl = make_cylinder(0.1, 0.2, 0.89, 0.4, 0.3, L);
    int n = mo_cl_collide(&cyl, 0, &box, 1, 0.02, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-9);
        CHECK_NEAR(fabs(c[i].point_a[1] - 0.2), 0.3, 1e-9);
    }
    check_contacts(c, n, &cyl, 0, &box, 1, 0.02, 1e-9, "cylinder lying on box");
    check_stable(&box, &cyl, 0.02, 2, "cylinder lying on box");
    /* tilted 0.05 rad, 0.003 deep at the lowest rim point */
    double T[9];
    mat_axis_angle(0, 1, 0, 0.05, T);
    cyl = make_cylinder(0, 0, 0.5 + 0.3 * cos(0.05) + 0.4 * sin(0.05) - 0.003, 0.4, 0.3, T);
    n = mo_cl_collide(&box, 0, &cyl, 1, 0.0, c);
    CHECK(n >= 1);
    CHECK_NEAR(min_gap(c, n), -0.003, 1e-9);
    for (int i = 0; i < n; ++i)
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-9);
    check_contacts(c, n, &box, 0, &cyl, 1, 0.0, 1e-9, "tilted cylinder on box");
    n = mo_cl_collide(&box, 0, &cyl, 1, 0.05, c);
    CHECK(n >= 2);
    CHECK_NEAR(min_gap(c, n), -0.003, 1e-9);
    /* cylinder rim against a box resting on its cap (box is b): the box face */
    cyl = make_cylinder(0, 0, 0, 0.5, 0.3, NULL);
    mo_cl_object top = make_box(0.1, 0, 0.3 + 0.2 - 0.002, 0.2, 0.2, 0.2, NULL);
    n = mo_cl_collide(&cyl, 0, &top, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.002, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-9);
    }
    check_contacts(c, n, &cyl, 0, &top, 1, 0.01, 1e-4, "box on cylinder cap"); /* box face clip slop */
    check_stable(&cyl, &top, 0.01, 4, "box on cylinder cap");
}

static void test_cylinder_cylinder(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    /* stacked coaxially, smaller on top: 4 points on the upper one's rim */
    mo_cl_object a = make_cylinder(0, 0, 0, 0.5, 0.3, NULL);
    mo_cl_object b = make_cylinder(0.05, 0, 0.6 - 0.004, 0.3, 0.3, NULL);
    int n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.004, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-9);
    }
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-9, "stacked cylinders");
    check_swap(&a, &b, 0.01, 1e-6, "stacked cylinders");
    check_stable(&a, &b, 0.01, 4, "stacked cylinders");
    /* crossing, lying: a along x, b along y above it; 0.02 deep */
    double Rx[9], Ry[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mat_axis_angle(1, 0, 0, PI / 2, Ry);
    a = make_cylinder(0, 0, 0, 0.3, 1.0, Rx);
    b = make_cylinder(0.2, 0.1, 0.3 + 0.2 - 0.02, 0.2, 1.0, Ry);
    n = mo_cl_collide(&a, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.02, 1e-9);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-9);
    check_contacts(c, n, &a, 0, &b, 1, 0.0, 1e-9, "crossed cylinders");
    /* separated within the margin */
    b.pos[2] = 0.55;
    n = mo_cl_collide(&a, 0, &b, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-9);
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.04, c) == 0);
    /* parallel, side by side (lying one on the other): 2 points */
    b = make_cylinder(0.3, 0, 0.5 - 0.005, 0.2, 1.0, Rx);
    n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.005, 1e-7);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-6);
    }
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-6, "parallel cylinders");
    /* rim on rim (tilted cylinders): against the reference */
    double T1[9], T2[9];
    mat_axis_angle(1, 0, 0, 0.6, T1);
    mat_axis_angle(0, 1, 0, -0.5, T2);
    a = make_cylinder(0, 0, 0, 0.4, 0.3, T1);
    b = make_cylinder(0.1, 0.2, 0.75, 0.4, 0.3, T2);
    double ref = ref_distance(&a, &b, NULL);
    n = mo_cl_collide(&a, 0, &b, 1, 0.1, c);
    if (ref < 0.1) {
        CHECK(n >= 1);
        CHECK_NEAR(min_gap(c, n), ref, 1e-6);
    }
    /* coincident centres: finite unit normal */
    a = make_cylinder(1, 1, 1, 0.4, 0.3, NULL);
    b = make_cylinder(1, 1, 1, 0.2, 0.5, Rx);
    n = mo_cl_collide(&a, 0, &b, 1, 0.0, c);
    CHECK(n >= 1);
    for (int i = 0; i < n; ++i) {
        CHECK(isfinite(c[i].normal[0]) && isfinite(c[i].normal[1]) && isfinite(c[i].normal[2]));
        CHECK_NEAR(dot3(c[i].normal, c[i].normal), 1.0, 1e-12);
    }
    ref = ref_distance(&a, &b, NULL);
    CHECK_NEAR(min_gap(c, n), ref, 1e-6);
}

static void test_cylinder_hull_capsule(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    /* cylinder standing on a cube hull */
    mo_cl_object h = make_hull(0, 0, 0, &g_hcube, NULL);
    mo_cl_object cyl = make_cylinder(0.1, 0, 0.5 + 0.3 - 0.002, 0.3, 0.3, NULL);
    int n = mo_cl_collide(&cyl, 0, &h, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.002, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-9);
    }
    check_contacts(c, n, &cyl, 0, &h, 1, 0.01, 1e-4, "cylinder on hull"); /* hull face clip slop */
    check_swap(&cyl, &h, 0.01, 1e-6, "cylinder/hull");
    check_stable(&h, &cyl, 0.01, 4, "cylinder on hull");
    /* tetrahedron apex down onto a cylinder cap: one point, exact */
    double F[9];
    mat_axis_angle(1, 0, 0, PI, F); /* apex at -z */
    mo_cl_object t = make_hull(0.1, 0.1, 0.3 + 1.0 - 0.01, &g_tetra, F);
    mo_cl_object c0 = make_cylinder(0, 0, 0, 0.5, 0.3, NULL);
    n = mo_cl_collide(&c0, 0, &t, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.01, 1e-9);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-9);
    CHECK_VEC(c[0].point_b, 0.1, 0.1, 0.29, 1e-9);
    /* capsule lying on a cylinder cap: 2 points */
    double Rx[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mo_cl_object cap = make_capsule(0.05, 0, 0.3 + 0.1 - 0.003, 0.1, 0.2, Rx);
    n = mo_cl_collide(&cap, 0, &c0, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.003, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-9);
    }
    check_contacts(c, n, &cap, 0, &c0, 1, 0.01, 1e-9, "capsule on cylinder cap");
    check_stable(&c0, &cap, 0.01, 2, "capsule on cylinder cap");
    /* capsule parallel to a lying cylinder, above it: 2 points */
    mo_cl_object lc = make_cylinder(0, 0, 0, 0.3, 0.5, Rx);
    cap = make_capsule(0.1, 0, 0.3 + 0.1 + 0.02, 0.1, 0.3, Rx);
    n = mo_cl_collide(&cap, 0, &lc, 1, 0.05, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.02, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-9);
    }
    check_swap(&cap, &lc, 0.05, 1e-9, "capsule/cylinder");
}

/* ---- polytopes: hull / hull, box / hull ---- */

/* same contact set up to order (points within tol) */
static int same_contacts(const mo_cl_contact *c1, int n1, const mo_cl_contact *c2, int n2, double tol)
{
    if (n1 != n2)
        return 0;
    for (int i = 0; i < n1; ++i) {
        int found = 0;
        for (int j = 0; j < n2 && !found; ++j) {
            int s = fabs(c1[i].gap - c2[j].gap) <= tol;
            for (int k = 0; k < 3; ++k) {
                s &= fabs(c1[i].normal[k] - c2[j].normal[k]) <= tol;
                s &= fabs(c1[i].point_a[k] - c2[j].point_a[k]) <= tol;
                s &= fabs(c1[i].point_b[k] - c2[j].point_b[k]) <= tol;
            }
            found = s;
        }
        if (!found)
            return 0;
    }
    return 1;
}

static void compare_box_hullbox(const mo_cl_object *box, const mo_cl_object *other_box, const char *what)
{
    /* other_box as a hull with the same pose */
    static test_hull th;
    hull_box(&th, other_box->he[0], other_box->he[1], other_box->he[2]);
    mo_cl_object hb = make_hull(other_box->pos[0], other_box->pos[1], other_box->pos[2], &th, other_box->rot);
    mo_cl_contact c1[MO_CL_MAX_POINTS], c2[MO_CL_MAX_POINTS];
    int n1 = mo_cl_collide(box, 0, other_box, 1, 0.02, c1);
    int n2 = mo_cl_collide(box, 0, &hb, 1, 0.02, c2);
    int ok = n1 > 0 && same_contacts(c1, n1, c2, n2, 1e-12);
    if (!ok) {
        fprintf(stderr, "%s:%d: box on hull box differs from box/box: %s (%d vs %d)\n", __FILE__, __LINE__, what,
                n1, n2);
        for (int i = 0; i < n1; ++i)
            fprintf(stderr, "   box  %d: gap %.15g a (%.15g %.15g %.15g)\n", i, c1[i].gap, c1[i].point_a[0],
                    c1[i].point_a[1], c1[i].point_a[2]);
        for (int i = 0; i < n2; ++i)
            fprintf(stderr, "   hull %d: gap %.15g a (%.15g %.15g %.15g)\n", i, c2[i].gap, c2[i].point_a[0],
                    c2[i].point_a[1], c2[i].point_a[2]);
        check_failures++;
    }
}

static void test_box_on_hull_box(void)
{
    double R[9], R2[9];
    mo_cl_object big = make_box(0, 0, 0, 2, 2, 0.5, NULL);
    mo_cl_object cube = make_box(0, 0, 0, 0.5, 0.5, 0.5, NULL);
    /* upper box (a) against the lower as box and as hull box; and the reverse */
    mo_cl_object b = make_box(0.3, -0.2, 1.0, 0.5, 0.5, 0.5, NULL);
    compare_box_hullbox(&b, &big, "resting");
    compare_box_hullbox(&big, &b, "resting, lower first");
    b = make_box(0.3, -0.2, 0.95, 0.5, 0.5, 0.5, NULL);
    compare_box_hullbox(&b, &big, "penetrating");
    compare_box_hullbox(&big, &b, "penetrating, lower first");
    b = make_box(2.0, 0, 1.0, 0.5, 0.5, 0.5, NULL);
    compare_box_hullbox(&b, &big, "overhanging");
    compare_box_hullbox(&big, &b, "overhanging, lower first");
    mat_axis_angle(0, 0, 1, 0.3, R);
    b = make_box(0.1, 0.05, 1.0, 0.5, 0.5, 0.5, R);
    compare_box_hullbox(&b, &cube, "turned 0.3 rad");
    compare_box_hullbox(&cube, &b, "turned 0.3 rad, lower first");
    mat_axis_angle(0, 1, 0, 0.2, R);
    b = make_box(0, 0, 0.5 + 0.5 * cos(0.2) + 0.5 * sin(0.2) - 0.01, 0.5, 0.5, 0.5, R);
    compare_box_hullbox(&b, &cube, "tilted");
    compare_box_hullbox(&cube, &b, "tilted, lower first");
    mat_axis_angle(1, 2, 3, 0.3, R);
    mat_axis_angle(0, 0, 1, 0.4, R2);
    mo_cl_object bx = make_box(0.2, 0.1, 0.2, 0.4, 0.3, 0.6, R);
    mo_cl_object top = make_box(0.3, -0.2, 0.98, 0.5, 0.4, 0.5, R2);
    compare_box_hullbox(&bx, &top, "rotated pair");
    compare_box_hullbox(&top, &bx, "rotated pair, swapped");
    /* edge / edge */
    double Ra[9], Rb[9];
    mat_axis_angle(1, 0, 0, PI / 4, Ra);
    mat_axis_angle(0, 1, 0, PI / 4, Rb);
    mo_cl_object ea = make_box(0, 0, 0, 0.5, 0.5, 0.5, Ra);
    mo_cl_object eb = make_box(0.1, 0.2, SQ2 - 0.03, 0.5, 0.5, 0.5, Rb);
    compare_box_hullbox(&ea, &eb, "edge/edge");
    compare_box_hullbox(&eb, &ea, "edge/edge, swapped");
    /* random poses near contact: same as box/box */
    uint64_t seed = 31337;
    int same = 0, total = 0;
    for (int it = 0; it < 200; ++it) {
        double Q1[9], Q2[9], h1[3], h2[3], dir[3];
        sm64_rotation(&seed, Q1);
        sm64_rotation(&seed, Q2);
        for (int k = 0; k < 3; ++k) {
            h1[k] = sm64_uniform(&seed, 0.2, 1.0);
            h2[k] = sm64_uniform(&seed, 0.2, 1.0);
        }
        sm64_unit(&seed, dir);
        double dist = sm64_uniform(&seed, 0.2, 1.6);
        mo_cl_object p = make_box(0, 0, 0, h1[0], h1[1], h1[2], Q1);
        mo_cl_object q = make_box(dist * dir[0], dist * dir[1], dist * dir[2], h2[0], h2[1], h2[2], Q2);
        static test_hull th;
        hull_box(&th, h2[0], h2[1], h2[2]);
        mo_cl_object hq = make_hull(q.pos[0], q.pos[1], q.pos[2], &th, Q2);
        mo_cl_contact c1[MO_CL_MAX_POINTS], c2[MO_CL_MAX_POINTS];
        int n1 = mo_cl_collide(&p, 0, &q, 1, 0.02, c1);
        int n2 = mo_cl_collide(&p, 0, &hq, 1, 0.02, c2);
        ++total;
        same += same_contacts(c1, n1, c2, n2, 1e-9);
    }
    printf("  box/hull box vs box/box: %d of %d random pairs identical\n", same, total);
    CHECK(same == total);
}

static void test_hull_hull(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    /* tetrahedron standing on a cube hull: its bottom face (triangle) */
    mo_cl_object cube = make_hull(0, 0, 0, &g_hcube, NULL);
    mo_cl_object t = make_hull(0.1, 0, 0.5 + 1.0 / 3 * 0.5 - 0.002, &g_tetra, NULL);
    /* g_tetra has r = 1: bottom at z = -1/3; scale: pos so bottom is 0.002 deep */
    t.pos[2] = 0.5 + 1.0 / 3 - 0.002;
    int n = mo_cl_collide(&cube, 0, &t, 1, 0.01, c); /* triangle wider than the square: clipped, reduced */
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.002, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
    }
    check_contacts(c, n, &cube, 0, &t, 1, 0.01, 1e-3, "tetrahedron on cube hull");
    check_swap(&cube, &t, 0.01, 1e-4, "tetrahedron/cube hull");
    check_stable(&cube, &t, 0.01, 4, "tetrahedron on cube hull");
    /* octahedron face on octahedron face: the faces (0,2,4) normal (1,1,1)/sqrt3 */
    mo_cl_object o1 = make_hull(0, 0, 0, &g_octa, NULL);
    double off = 2.0 * 0.5 / sqrt(3.0) - 0.003; /* face distance r / sqrt3, r = 0.5 */
    double u = off / sqrt(3.0);
    double F[9];
    mat_axis_angle(1, 1, 1, PI, F); /* turned 180 deg about the face normal: its opposite face faces back */
    mo_cl_object o2 = make_hull(u, u, u, &g_octa, F);
    n = mo_cl_collide(&o1, 0, &o2, 1, 0.01, c);
    CHECK(n >= 3);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.003, 1e-12);
        CHECK_VEC(c[i].normal, 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0), 1e-12);
    }
    check_contacts(c, n, &o1, 0, &o2, 1, 0.01, 1e-3, "octahedra face to face");
    check_stable(&o1, &o2, 0.01, n, "octahedra face to face");
    /* octahedron edge onto a cube edge, crossed: one edge contact */
    double Rz[9];
    mat_axis_angle(1, 0, 0, PI / 4, Rz); /* cube edge along x on top at z = sqrt2/2 */
    mo_cl_object ce = make_hull(0, 0, 0, &g_hcube, Rz);
    double Ro[9];
    mat_axis_angle(1, 0, 0, PI / 4, Ro); /* octahedron turned 45 deg about x: its bottom edge runs along y */
    double zb = 0.5 / SQ2; /* bottom edge height below the octahedron centre */
    mo_cl_object oe = make_hull(0.1, 0.05, SQ2 / 2 + zb - 0.004, &g_octa, Ro);
    n = mo_cl_collide(&ce, 0, &oe, 1, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.004, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-12);
    CHECK_VEC(c[0].point_a, 0.1, 0, SQ2 / 2, 1e-12);
    CHECK((c[0].feature >> 31) == 1);
    check_contacts(c, n, &ce, 0, &oe, 1, 0.01, 1e-12, "hull edge/edge");
    check_swap(&ce, &oe, 0.01, 1e-12, "hull edge/edge");
    check_stable(&ce, &oe, 0.01, 1, "hull edge/edge");
    /* separated beyond / within the margin */
    oe.pos[2] += 0.054;
    CHECK(mo_cl_collide(&ce, 0, &oe, 1, 0.01, c) == 0);
    n = mo_cl_collide(&ce, 0, &oe, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-12);
    /* coincident centres: finite */
    o2 = make_hull(0, 0, 0, &g_tetra, NULL);
    n = mo_cl_collide(&o1, 0, &o2, 1, 0.0, c);
    CHECK(n >= 1);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(dot3(c[i].normal, c[i].normal), 1.0, 1e-12);
    double ref = ref_distance(&o1, &o2, NULL);
    double sn = ref_sep(&o1, &o2, c[0].normal);
    CHECK(sn >= ref - (0.08 * fabs(ref) + 1e-6));
}

/* ---- triangles ---- */

static void test_triangle(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    const double tri[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0}; /* front +z */
    /* sphere above the face */
    mo_cl_object s = make_sphere(0.5, 0.5, 0.3, 0.25);
    int n = mo_cl_collide_triangle(tri, &s, 0.1, 0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, 1, 0);
    CHECK_VEC(c[0].point_a, 0.5, 0.5, 0, 1e-15);
    CHECK(c[0].a == -1 && c[0].b == -1 && c[0].feature == 0);
    n = mo_cl_collide_triangle(tri, &s, 0.1, 1, c); /* flipped: sphere is a */
    CHECK(n == 1);
    CHECK_VEC(c[0].normal, 0, 0, -1, 0);
    CHECK_VEC(c[0].point_b, 0.5, 0.5, 0, 1e-15);
    CHECK(mo_cl_collide_triangle(tri, &s, 0.04, 0, c) == 0);
    /* behind: none */
    s = make_sphere(0.5, 0.5, -0.1, 0.25);
    CHECK(mo_cl_collide_triangle(tri, &s, 0.1, 0, c) == 0);
    /* beside the hypotenuse edge (1, 1, 0), up 0.1: closest-feature normal */
    s = make_sphere(1.0 + 0.2 / SQ2, 1.0 + 0.2 / SQ2, 0.1, 0.2);
    n = mo_cl_collide_triangle(tri, &s, 0.1, 0, c);
    CHECK(n == 1 && c[0].feature == 2);
    double dd = sqrt(0.04 + 0.01);
    CHECK_NEAR(c[0].gap, dd - 0.2, 1e-12);
    CHECK_VEC(c[0].normal, 0.2 / SQ2 / dd, 0.2 / SQ2 / dd, 0.1 / dd, 1e-12);
    /* centre in the plane, inside: front normal, gap -r */
    s = make_sphere(0.5, 0.5, 0.0, 0.25);
    n = mo_cl_collide_triangle(tri, &s, 0.0, 0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.25, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, 1, 0);

    /* points (radius 0: particles, FEM nodes). On the face a hair behind it: a contact along the face normal
       (resting nodes sit there to round-off; margin 0.1: behind by up to 0.01); deeper behind: none */
    mo_cl_object pt = make_sphere(0.5, 0.5, -1e-7, 0.0);
    n = mo_cl_collide_triangle(tri, &pt, 0.1, 0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -1e-7, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, 1, 0);
    pt = make_sphere(0.5, 0.5, -0.011, 0.0);
    CHECK(mo_cl_collide_triangle(tri, &pt, 0.1, 0, c) == 0);
    /* beside an edge, in front within the margin: none (the neighbouring triangle's face holds it); on the
       hypotenuse edge, on a vertex: the face normal */
    pt = make_sphere(1.0 + 0.01, 1.0 + 0.01, 0.001, 0.0);
    CHECK(mo_cl_collide_triangle(tri, &pt, 0.1, 0, c) == 0);
    pt = make_sphere(-0.01, 0.5, -1e-8, 0.0);
    CHECK(mo_cl_collide_triangle(tri, &pt, 0.1, 0, c) == 0);
    for (int k = 0; k < 2; ++k) {
        pt = k == 0 ? make_sphere(1.0, 1.0, 2e-9, 0.0) : make_sphere(2.0, 0.0, -2e-9, 0.0);
        n = mo_cl_collide_triangle(tri, &pt, 0.1, 0, c);
        CHECK(n == 1);
        CHECK_VEC(c[0].normal, 0, 0, 1, 0);
        CHECK_NEAR(c[0].gap, k == 0 ? 2e-9 : -2e-9, 1e-15);
    }

    /* capsule lying on the triangle: 2 points */
    double Rx[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mo_cl_object cap = make_capsule(0.8, 0.3, 0.19, 0.2, 0.4, Rx);
    n = mo_cl_collide_triangle(tri, &cap, 0.02, 0, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
        CHECK_NEAR(c[i].point_a[2], 0.0, 1e-12);
    }
    /* box resting on the triangle, larger than it near a corner */
    mo_cl_object box = make_box(0.3, 0.3, 0.199, 0.5, 0.5, 0.2, NULL);
    n = mo_cl_collide_triangle(tri, &box, 0.01, 0, c);
    CHECK(n >= 3 && n <= 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.001, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
        CHECK(c[i].point_a[0] >= -1e-3 && c[i].point_a[1] >= -1e-3 &&
              c[i].point_a[0] + c[i].point_a[1] <= 2 + 1e-3);
    }
    /* hull (cube) on it */
    mo_cl_object hc = make_hull(0.6, 0.6, 0.5 - 0.003, &g_hcube, NULL);
    n = mo_cl_collide_triangle(tri, &hc, 0.01, 0, c);
    CHECK(n >= 3);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.003, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
    }
    /* cylinder standing on it */
    mo_cl_object cyl = make_cylinder(0.6, 0.6, 0.3 - 0.002, 0.25, 0.3, NULL);
    n = mo_cl_collide_triangle(tri, &cyl, 0.01, 0, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.002, 1e-9);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-9);
    }
    /* box below the plane but its centre in front: never a normal through the back */
    double T[9];
    mat_axis_angle(1, 1, 0, 0.4, T);
    box = make_box(0.5, 0.5, 0.1, 0.3, 0.3, 0.3, T);
    n = mo_cl_collide_triangle(tri, &box, 0.01, 0, c);
    CHECK(n >= 1);
    for (int i = 0; i < n; ++i)
        CHECK(c[i].normal[2] >= 0.0);
    /* degenerate triangle, NaN */
    const double line[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    s = make_sphere(0.5, 0, 0.1, 0.3);
    CHECK(mo_cl_collide_triangle(line, &s, 0.1, 0, c) == 0);
    double bad[9] = {0, 0, 0, 1, 0, 0, 0, NAN, 0};
    CHECK(mo_cl_collide_triangle(bad, &s, 0.1, 0, c) == 0);
    /* object margin applies; the triangle's thickness is the caller's */
    s = make_sphere(0.5, 0.5, 0.3, 0.2);
    s.margin = 0.05;
    n = mo_cl_collide_triangle(tri, &s, 0.1, 0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].point_b, 0.5, 0.5, 0.05, 1e-15);
}

/* ---- margins ---- */

static void test_margins(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    /* spheres 0.2 apart, margins 0.05 + 0.1: gap 0.05 */
    mo_cl_object a = make_sphere(0, 0, 0, 0.5), b = make_sphere(1.2, 0, 0, 0.5);
    a.margin = 0.05;
    b.margin = 0.1;
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.04, c) == 0);
    int n = mo_cl_collide(&a, 0, &b, 1, 0.06, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-15);
    CHECK_VEC(c[0].point_a, 0.55, 0, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 0.6, 0, 0, 1e-15);
    check_contacts(c, n, &a, 0, &b, 1, 0.06, 1e-12, "spheres with margins");
    /* box on plane with a margin: the 4 corners, gap shifted */
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    mo_cl_object bx = make_box(0, 0, 0.25, 0.5, 0.5, 0.2, NULL);
    bx.margin = 0.04;
    n = mo_cl_collide(&bx, 0, &p, 1, 0.02, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.01, 1e-15);
        CHECK_NEAR(c[i].point_a[2], 0.01, 1e-15);
        CHECK_NEAR(c[i].point_b[2], 0.0, 1e-15);
    }
    /* box/box, margins both */
    mo_cl_object lo = make_box(0, 0, 0, 1, 1, 0.5, NULL), up = make_box(0, 0, 1.1, 0.5, 0.5, 0.5, NULL);
    lo.margin = 0.03;
    up.margin = 0.03;
    n = mo_cl_collide(&lo, 0, &up, 1, 0.05, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.04, 1e-12);
        CHECK_NEAR(c[i].point_a[2], 0.53, 1e-12);
    }
    /* sphere/box: inside and outside */
    mo_cl_object s = make_sphere(0, 0, 0.805, 0.25);
    s.margin = 0.02;
    n = mo_cl_collide(&s, 0, &lo, 1, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.805 - 0.25 - 0.02 - 0.5 - 0.03, 1e-12);
    s.pos[2] = 0.3; /* centre inside the inflated box */
    n = mo_cl_collide(&s, 0, &lo, 1, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -(0.2 + 0.25 + 0.02 + 0.03), 1e-12);
    /* capsule / capsule, hull / hull, cylinder / box with margins: gap shifted exactly */
    double Rx[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mo_cl_object c1 = make_capsule(0, 0, 0, 0.2, 1, Rx), c2 = make_capsule(0, 0, 0.5, 0.2, 1, NULL);
    c2.pos[2] = 0.2 + 1 + 0.2 + 0.1;
    c1.margin = 0.01;
    c2.margin = 0.02;
    n = mo_cl_collide(&c1, 0, &c2, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.07, 1e-12);
    check_contacts(c, n, &c1, 0, &c2, 1, 0.1, 1e-12, "capsules with margins");
    mo_cl_object h1 = make_hull(0, 0, 0, &g_hcube, NULL), h2 = make_hull(0.2, 0.1, 1.05, &g_hcube, NULL);
    h1.margin = 0.01;
    h2.margin = 0.015;
    n = mo_cl_collide(&h1, 0, &h2, 1, 0.05, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(c[i].gap, 0.025, 1e-12);
    check_contacts(c, n, &h1, 0, &h2, 1, 0.05, 1e-6, "hulls with margins"); /* clip slop 5e-5 */
    mo_cl_object cy = make_cylinder(0, 0, 0.5 + 0.3 + 0.05, 0.3, 0.3, NULL);
    cy.margin = 0.02;
    n = mo_cl_collide(&lo, 0, &cy, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(c[i].gap, 0.0, 1e-9);
    check_contacts(c, n, &lo, 0, &cy, 1, 0.01, 1e-9, "cylinder on box with margins");
    /* gap in [0, margin): a speculative contact with the exact gap */
    cy.margin = 0.0;
    cy.pos[2] = 0.5 + 0.03 + 0.3 + 0.011;
    n = mo_cl_collide(&lo, 0, &cy, 1, 0.012, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(c[i].gap, 0.011, 1e-9);
    CHECK(mo_cl_collide(&lo, 0, &cy, 1, 0.0105, c) == 0);
}

/* ---- degenerate and unsupported ---- */

static void test_degenerate(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object s = make_sphere(0, 0, 0, 0.5), bx = make_box(0, 0, 0, 1, 1, 1, NULL);
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    mo_cl_object pt = make_capsule(0, 0, 0, 0.0, 0.0, NULL); /* radius 0, half height 0 */
    mo_cl_object cz = make_cylinder(0, 0, 0, 0.0, 0.5, NULL);
    mo_cl_object ch = make_cylinder(0, 0, 0, 0.5, 0.0, NULL);
    mo_cl_object hn = obj_base(MO_CL_HULL, 0, 0, 0, NULL); /* hull NULL */
    mo_cl_object hull = make_hull(0, 0, 0, &g_hcube, NULL), cap = make_capsule(0, 0, 0, 0.2, 0.5, NULL);
    mo_cl_object cyl = make_cylinder(0, 0, 0, 0.3, 0.3, NULL);
    const mo_cl_object *bad[4] = {&pt, &cz, &ch, &hn};
    const mo_cl_object *good[7] = {&s, &bx, &p, &cap, &cyl, &hull, &pt};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 7; ++j) {
            CHECK(mo_cl_collide(bad[i], 0, good[j], 1, 1.0, c) == 0);
            CHECK(mo_cl_collide(good[j], 0, bad[i], 1, 1.0, c) == 0);
        }
    /* a segment capsule (radius 0, half height > 0) still collides */
    mo_cl_object seg = make_capsule(0, 0, 0.3, 0.0, 0.5, NULL);
    CHECK(mo_cl_collide(&seg, 0, &p, 1, 0.0, c) == 1);
    /* mesh pairs go through the mesh pipeline: none here */
    mo_cl_object mesh = obj_base(MO_CL_MESH, 0, 0, 0, NULL);
    CHECK(mo_cl_collide(&mesh, 0, &s, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&s, 0, &mesh, 1, 1.0, c) == 0);
    /* NaN poses */
    mo_cl_object all[6] = {cap, cyl, hull, s, bx, p};
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 6; ++j) {
            mo_cl_object x = all[i];
            x.pos[1] = NAN;
            CHECK(mo_cl_collide(&x, 0, &all[j], 1, 1.0, c) == 0);
            x = all[i];
            x.rot[4] = NAN;
            CHECK(mo_cl_collide(&all[j], 0, &x, 1, 1.0, c) == 0);
        }
    /* aabbs of the new shapes hold their support points */
    uint64_t seed = 8;
    mo_cl_object objs[4] = {cap, cyl, hull, make_hull(0, 0, 0, &g_tetra, NULL)};
    for (int it = 0; it < 40; ++it) {
        mo_cl_object o = objs[it % 4];
        sm64_rotation(&seed, o.rot);
        o.pos[0] = sm64_uniform(&seed, -3, 3);
        o.margin = 0.01;
        mo_cl_update_aabb(&o, 0.02);
        for (int k = 0; k < 3; ++k) {
            double e[3] = {0, 0, 0};
            e[k] = 1;
            double hi = ref_support(&o, e);
            e[k] = -1;
            double lo = -ref_support(&o, e);
            CHECK_NEAR(o.aabb_max[k], hi + 0.02, 1e-12);
            CHECK_NEAR(o.aabb_min[k], lo - 0.02, 1e-12);
        }
    }
}

/* ---- feature stability for resting configurations ---- */

static void test_stability(void)
{
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    mo_cl_object big = make_box(0, 0, 0, 2, 2, 0.5, NULL);
    mo_cl_object hbig = make_hull(0, 0, -0.5 + 0.5, &g_hcube, NULL);
    double Rx[9], R[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mo_cl_object b = make_hull(0.3, 0.1, 0.2, &g_hbox, NULL);
    check_stable(&p, &b, 0.01, 4, "hull box on plane");
    b = make_box(0.1, -0.1, 1.0, 0.5, 0.5, 0.5, NULL);
    check_stable(&hbig, &b, 0.01, 4, "box on hull cube");
    check_stable(&b, &hbig, 0.01, 4, "hull cube under box");
    mat_axis_angle(0, 0, 1, 0.3, R);
    b = make_hull(0.1, 0.05, 1.0, &g_hcube, R);
    check_stable(&hbig, &b, 0.01, 4, "hull cube turned on hull cube");
    mat_axis_angle(0, 0, 1, PI / 4, R);
    b = make_hull(0, 0, 1.0, &g_hcube, R);
    check_stable(&hbig, &b, 0.01, 4, "hull cube at 45 deg on hull cube (octagon)");
    b = make_capsule(0.2, 0, 0.7, 0.2, 0.5, Rx);
    check_stable(&big, &b, 0.01, 2, "capsule on box");
    check_stable(&hbig, &b, 0.01, 2, "capsule on hull");
    b = make_cylinder(0.2, 0.1, 0.8, 0.3, 0.3, NULL);
    check_stable(&big, &b, 0.01, 4, "cylinder standing on box");
    mo_cl_object lo = make_cylinder(0, 0, 0, 0.5, 0.3, NULL);
    b = make_cylinder(0.05, 0.02, 0.6, 0.3, 0.3, NULL);
    check_stable(&lo, &b, 0.01, 4, "cylinder on cylinder");
    b = make_cylinder(0.1, 0, 0.5 + 0.3, 0.3, 0.3, NULL);
    check_stable(&b, &hbig, 0.01, 4, "hull under cylinder");
    b = make_sphere(0.2, 0.1, 0.99 + 0.0, 0.5);
    check_stable(&hbig, &b, 0.01, 1, "sphere on hull");
    b = make_sphere(0.1, 0.1, 0.3 + 0.5, 0.5);
    check_stable(&lo, &b, 0.01, 1, "sphere on cylinder");
}

/* ---- random pairs against the reference ---- */

typedef struct rnd_stats {
    int pen, sep_in, sep_out, total;
    double worst_gap, worst_sep;
} rnd_stats;

static mo_cl_object random_shape(uint64_t *seed, int type, int hull_kind)
{
    double R[9], pos[3];
    sm64_rotation(seed, R);
    for (int k = 0; k < 3; ++k)
        pos[k] = sm64_uniform(seed, -0.5, 0.5);
    mo_cl_object o;
    switch (type) {
    case MO_CL_SPHERE:
        o = make_sphere(pos[0], pos[1], pos[2], sm64_uniform(seed, 0.1, 0.6));
        break;
    case MO_CL_CAPSULE: {
        double r = sm64_uniform(seed, 0.05, 0.4), h = sm64_uniform(seed, 0.05, 0.8);
        o = make_capsule(pos[0], pos[1], pos[2], r, h, R);
        break;
    }
    case MO_CL_CYLINDER: {
        double r = sm64_uniform(seed, 0.1, 0.6), h = sm64_uniform(seed, 0.1, 0.6);
        o = make_cylinder(pos[0], pos[1], pos[2], r, h, R);
        break;
    }
    case MO_CL_BOX: {
        double h[3];
        for (int k = 0; k < 3; ++k)
            h[k] = sm64_uniform(seed, 0.1, 0.7);
        o = make_box(pos[0], pos[1], pos[2], h[0], h[1], h[2], R);
        break;
    }
    default: {
        const test_hull *t = hull_kind == 0 ? &g_tetra : (hull_kind == 1 ? &g_octa : &g_hex);
        o = make_hull(pos[0], pos[1], pos[2], t, R);
        break;
    }
    }
    if (sm64_uniform(seed, 0, 1) < 0.3)
        o.margin = sm64_uniform(seed, 0.0, 0.05);
    return o;
}

static void print_obj(const char *tag, const mo_cl_object *o)
{
    fprintf(stderr, "    %s type %d pos (%.17g, %.17g, %.17g) r %.17g hh %.17g he (%.17g %.17g %.17g) m %.17g\n"
                    "      rot %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
            tag, o->type, o->pos[0], o->pos[1], o->pos[2], o->radius, o->half_height, o->he[0], o->he[1], o->he[2],
            o->margin, o->rot[0], o->rot[1], o->rot[2], o->rot[3], o->rot[4], o->rot[5], o->rot[6], o->rot[7],
            o->rot[8]);
    if (o->type == MO_CL_HULL)
        fprintf(stderr, "      hull with %d vertices\n", o->hull->nverts);
}

/* For one pair type: shapes at random poses (30% with object margins), b
 * placed along a random direction at a distance giving separated and
 * penetrating cases; reference D exact (sphere pairs: SDF; capsule/capsule:
 * segment distance; polytopes, segments: axes / feature distances) or sampled
 * (cylinder pairs, within tol_ref = 2e-5). Checks:
 *   - no contact when D > margin, at least one when D < margin (cases within
 *     tol_ref of the margin skipped);
 *   - ids, unit normal, point_b = point_a + gap n, gap < margin; both points
 *     within 1e-3 of their surfaces (clip slop, angle-tolerant features) plus
 *     |gap| when penetrating (deep contact locations are approximate);
 *   - the separation along the normal (reference supports) within
 *     rel |D| + tol_ref below D (the face preference tolerances) and not above;
 *   - no contact deeper than the separation along its normal (1e-4, plus 5%
 *     of the depth: angle-tolerant features project deep points along n);
 *   - min gap == D within tol_ref when apart, and when penetrating for the
 *     `exact` pairs (analytic). */
static void random_pairs(int ta, int tb, int iters, uint64_t seed, double rel, int exact, const char *what)
{
    const double margin = 0.03;
    rnd_stats st = {0, 0, 0, 0, 0.0, 0.0};
    (void)ref_distance;
    double worst_surf = 0.0, worst_deep = 0.0;
    int n_deepest = 0, n_pen_contacts = 0;
    for (int it = 0; it < iters; ++it) {
        mo_cl_object a = random_shape(&seed, ta, it % 3);
        mo_cl_object b = random_shape(&seed, tb, (it / 3) % 3);
        double dir[3];
        sm64_unit(&seed, dir);
        double dist = sm64_uniform(&seed, 0.0, 1.5);
        for (int k = 0; k < 3; ++k)
            b.pos[k] = a.pos[k] + dist * dir[k];
        int have_exact;
        double ref = ref_exact(&a, &b, &have_exact);
        if (!have_exact)
            ref = ref_core_distance(&a, &b, &have_exact);
        mo_cl_contact c[MO_CL_MAX_POINTS], cs[MO_CL_MAX_POINTS];
        int n = mo_cl_collide(&a, 0, &b, 1, margin, c);
        /* the other argument order (distinct types: the dispatcher swaps): the
           same contacts mirrored, exactly */
        int ns = mo_cl_collide(&b, 7, &a, 3, margin, cs);
        int mirror = ns == n || ta == tb;
        if (ta == tb)
            ns = 0;
        for (int i = 0; mirror && i < ns; ++i) {
            mirror &= cs[i].a == 7 && cs[i].b == 3 && cs[i].gap == c[i].gap && cs[i].feature == c[i].feature;
            for (int k = 0; k < 3; ++k)
                mirror &= cs[i].normal[k] == -c[i].normal[k] && cs[i].point_a[k] == c[i].point_b[k] &&
                          cs[i].point_b[k] == c[i].point_a[k];
        }
        if (!mirror)
            fprintf(stderr, "%s: swapped arguments differ (iteration %d)\n", what, it);
        CHECK(mirror);
        /* sampled: global seeds and the library's normal (a local optimality check) */
        if (!have_exact)
            ref = ref_distance_seeded(&a, &b, n > 0 ? c[0].normal : NULL, NULL);
        double tol_ref = have_exact ? 1e-9 : 2e-5;
        ++st.total;
        if (fabs(ref - margin) < tol_ref + 1e-9)
            continue;
        if (ref >= margin) {
            ++st.sep_out;
            if (n != 0)
                fprintf(stderr, "%s: %d contacts at reference distance %.9g (iteration %d)\n", what, n, ref, it);
            CHECK(n == 0);
            continue;
        }
        if (ref < 0)
            ++st.pen;
        else
            ++st.sep_in;
        if (n < 1) {
            fprintf(stderr, "%s: no contact at reference distance %.9g (iteration %d)\n", what, ref, it);
            print_obj("a", &a);
            print_obj("b", &b);
        }
        CHECK(n >= 1);
        if (n < 1)
            continue;
        for (int i = 0; i < n; ++i) {
            int ok = c[i].a == 0 && c[i].b == 1 && c[i].gap < margin;
            ok &= fabs(sqrt(dot3(c[i].normal, c[i].normal)) - 1.0) <= 1e-12;
            for (int k = 0; k < 3; ++k)
                ok &= fabs(c[i].point_b[k] - c[i].point_a[k] - c[i].gap * c[i].normal[k]) <= 1e-9;
            double sa = fabs(surface_dist(&a, c[i].point_a)), sb = fabs(surface_dist(&b, c[i].point_b));
            double excess = fmax(sa, sb) - fmax(0.0, -min_gap(c, n)) - a.margin - b.margin;
            worst_surf = fmax(worst_surf, excess);
            ok &= excess <= 1e-3;
            double si = ref_sep(&a, &b, c[i].normal);
            worst_deep = fmax(worst_deep, si - c[i].gap);
            /* deep contacts: features within 0.05 rad of the normal put points up to ~5% of the depth off */
            ok &= c[i].gap >= si - (1e-4 + 0.05 * fmax(0.0, -c[i].gap));
            if (!ok) {
                fprintf(stderr, "%s: contact %d inconsistent (iteration %d): gap %.9g, surf a %.3g, b %.3g, sep %.9g\n",
                        what, i, it, c[i].gap, sa, sb, si);
                print_obj("a", &a);
                print_obj("b", &b);
                check_failures++;
            }
        }
        double sn = ref_sep(&a, &b, c[0].normal);
        double lim = rel * fabs(ref) + tol_ref;
        if (!(sn >= ref - lim) || !(sn <= ref + fmax(tol_ref, 1e-7)))
            fprintf(stderr, "%s: separation along the normal %.9g, reference %.9g (iteration %d)\n", what, sn, ref,
                    it);
        CHECK(sn >= ref - lim);
        CHECK(sn <= ref + fmax(tol_ref, 1e-7)); /* the cylinder's h loses ~1e-8 in sqrt(1 - c^2) */
        st.worst_sep = fmax(st.worst_sep, ref - sn);
        double g = min_gap(c, n);
        if (exact || ref > 0) {
            if (!(fabs(g - ref) <= tol_ref))
                fprintf(stderr, "%s: min gap %.12g, reference %.12g (iteration %d)\n", what, g, ref, it);
            CHECK(fabs(g - ref) <= tol_ref);
        }
        if (ref < 0) {
            ++n_pen_contacts;
            n_deepest += fabs(g - sn) <= 1e-6;
        }
        st.worst_gap = fmax(st.worst_gap, fabs(g - ref));
    }
    printf("  random %-17s %d pairs: %3d penetrating, %2d within margin, %3d apart; |min gap - D| <= %.1e, "
           "D - sep(normal) <= %.1e, surface excess <= %.1e, deepest = sep(normal) in %d of %d\n",
           what, st.total, st.pen, st.sep_in, st.sep_out, st.worst_gap, st.worst_sep, worst_surf, n_deepest,
           n_pen_contacts);
    CHECK(st.pen > iters / 10);
    CHECK(st.sep_out > 0);
}

/* every pair type with coincident centres and random orientations: contacts
   with finite unit normals and consistent points */
static void test_coincident(void)
{
    static const int types[6] = {MO_CL_SPHERE, MO_CL_BOX, MO_CL_CAPSULE, MO_CL_CYLINDER, MO_CL_HULL, MO_CL_HULL};
    uint64_t seed = 4711;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int rep = 0; rep < 3; ++rep) {
                mo_cl_object a = random_shape(&seed, types[i], i == 5 ? 1 : 0);
                mo_cl_object b = random_shape(&seed, types[j], j == 5 ? 2 : 0);
                if (rep == 0) {
                    mat_identity(a.rot);
                    mat_identity(b.rot);
                }
                /* hull centres: the vertex centroid at the same point */
                double ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0};
                if (a.type == MO_CL_HULL)
                    mat_vec(a.rot, a.hull->center, ca);
                if (b.type == MO_CL_HULL)
                    mat_vec(b.rot, b.hull->center, cb);
                for (int k = 0; k < 3; ++k)
                    b.pos[k] = a.pos[k] + ca[k] - cb[k];
                mo_cl_contact c[MO_CL_MAX_POINTS];
                int n = mo_cl_collide(&a, 0, &b, 1, 0.0, c);
                int ok = n >= 1;
                for (int q = 0; q < n; ++q) {
                    ok &= isfinite(c[q].gap) && c[q].gap < 0.0;
                    ok &= fabs(dot3(c[q].normal, c[q].normal) - 1.0) <= 1e-12;
                    for (int k = 0; k < 3; ++k)
                        ok &= isfinite(c[q].point_a[k]) &&
                              fabs(c[q].point_b[k] - c[q].point_a[k] - c[q].gap * c[q].normal[k]) <= 1e-9;
                }
                if (!ok)
                    fprintf(stderr, "%s:%d: coincident centres, types %d/%d: %d contacts\n", __FILE__, __LINE__,
                            a.type, b.type, n);
                CHECK(ok);
            }
}

/* one-sided triangles against random convex objects. The triangle as a flat
 * hand-built hull gives the reference (exact for polytopes, segments, points;
 * sampled for cylinders). Object centre behind the plane: no contact. Object
 * wholly in front: the two-sided answer (contact iff D < margin, min gap == D
 * when apart, separation along the normal within 8% + tol of D). Always:
 * normals never through the back, consistent points, flip mirrors. */
static void test_random_triangle(void)
{
    static const int types[5] = {MO_CL_SPHERE, MO_CL_BOX, MO_CL_CAPSULE, MO_CL_CYLINDER, MO_CL_HULL};
    const double margin = 0.03;
    uint64_t seed = 2024;
    int n_behind = 0, n_front = 0, n_front_contact = 0, n_straddle = 0;
    for (int it = 0; it < 1000; ++it) {
        double tri[9];
        for (int k = 0; k < 9; ++k)
            tri[k] = sm64_uniform(&seed, -1.0, 1.0);
        double e1[3] = {tri[3] - tri[0], tri[4] - tri[1], tri[5] - tri[2]};
        double e2[3] = {tri[6] - tri[0], tri[7] - tri[1], tri[8] - tri[2]}, nt[3];
        cross3(e1, e2, nt);
        double l = sqrt(dot3(nt, nt));
        if (l < 0.05)
            continue;
        for (int k = 0; k < 3; ++k)
            nt[k] /= l;
        static test_hull th;
        static const int faces[] = {3, 0, 1, 2, 3, 0, 2, 1};
        build_hull(&th, tri, 3, faces, 2);
        mo_cl_object t = make_hull(0, 0, 0, &th, NULL);
        mo_cl_object b = random_shape(&seed, types[it % 5], it % 3);
        /* near the triangle: above its centroid, offset */
        double cen[3] = {(tri[0] + tri[3] + tri[6]) / 3, (tri[1] + tri[4] + tri[7]) / 3, (tri[2] + tri[5] + tri[8]) / 3};
        double h = sm64_uniform(&seed, -0.3, 1.0);
        double ob[3];
        double bc[3] = {0, 0, 0};
        if (b.type == MO_CL_HULL)
            mat_vec(b.rot, b.hull->center, bc);
        for (int k = 0; k < 3; ++k)
            ob[k] = sm64_uniform(&seed, -0.5, 0.5);
        for (int k = 0; k < 3; ++k)
            b.pos[k] = cen[k] + h * nt[k] + ob[k] - bc[k];
        {
            /* lowest point at a chosen height: in front near contact, straddling, or deep */
            double mn[3] = {-nt[0], -nt[1], -nt[2]};
            double low0 = -ref_support(&b, mn) - dot3(nt, tri);
            int cls = (it / 5) % 3;
            double target = cls == 0 ? sm64_uniform(&seed, 1e-6, 0.05)
                                     : (cls == 1 ? sm64_uniform(&seed, -0.2, 0.0) : sm64_uniform(&seed, -2.0, -0.2));
            for (int k = 0; k < 3; ++k)
                b.pos[k] += (target - low0) * nt[k];
        }
        int flip = it & 1;
        mo_cl_contact c[MO_CL_MAX_POINTS], cf[MO_CL_MAX_POINTS];
        int n = mo_cl_collide_triangle(tri, &b, margin, 0, c);
        int nf = mo_cl_collide_triangle(tri, &b, margin, 1, cf);
        int ok = n == nf;
        for (int i = 0; ok && i < n; ++i)
            for (int k = 0; k < 3; ++k)
                ok &= cf[i].normal[k] == -c[i].normal[k] && cf[i].point_a[k] == c[i].point_b[k];
        (void)flip;
        /* invariants */
        for (int i = 0; i < n; ++i) {
            ok &= c[i].a == -1 && c[i].b == -1 && c[i].gap < margin;
            ok &= dot3(c[i].normal, nt) >= -1e-9;
            ok &= fabs(sqrt(dot3(c[i].normal, c[i].normal)) - 1.0) <= 1e-12;
            for (int k = 0; k < 3; ++k)
                ok &= fabs(c[i].point_b[k] - c[i].point_a[k] - c[i].gap * c[i].normal[k]) <= 1e-9;
        }
        double wc[3] = {b.pos[0] + bc[0] - tri[0], b.pos[1] + bc[1] - tri[1], b.pos[2] + bc[2] - tri[2]};
        double mnt[3] = {-nt[0], -nt[1], -nt[2]};
        double low = -ref_support(&b, mnt) - dot3(nt, tri); /* lowest point of b above the plane */
        if (dot3(wc, nt) < 0.0) {
            ++n_behind;
            ok &= n == 0;
        } else if (low > 1e-9) {
            ++n_front;
            int exact;
            double ref = ref_core_distance(&t, &b, &exact);
            if (!exact)
                ref = ref_distance_seeded(&t, &b, n > 0 ? c[0].normal : NULL, NULL);
            double tol = exact ? 1e-9 : 2e-5;
            if (fabs(ref - margin) > tol) {
                ok &= (n > 0) == (ref < margin);
                if (n > 0) {
                    ++n_front_contact;
                    double sn = ref_sep(&t, &b, c[0].normal);
                    ok &= sn >= ref - (0.08 * fabs(ref) + tol) && sn <= ref + fmax(tol, 1e-7);
                    if (ref > 0)
                        ok &= fabs(min_gap(c, n) - ref) <= tol;
                }
            }
        } else {
            ++n_straddle;
        }
        if (!ok) {
            fprintf(stderr, "%s:%d: random triangle %d (type %d) failed, %d contacts\n", __FILE__, __LINE__, it,
                    b.type, n);
            print_obj("b", &b);
        }
        CHECK(ok);
    }
    printf("  random triangles: %d behind, %d in front (%d with contacts), %d straddling\n", n_behind, n_front,
           n_front_contact, n_straddle);
    CHECK(n_behind > 50 && n_front_contact > 50 && n_straddle > 50);
}

static void test_random(void)
{
    random_pairs(MO_CL_SPHERE, MO_CL_CAPSULE, 300, 1, 0.0, 1, "sphere/capsule");
    random_pairs(MO_CL_SPHERE, MO_CL_CYLINDER, 300, 2, 0.0, 1, "sphere/cylinder");
    random_pairs(MO_CL_SPHERE, MO_CL_HULL, 300, 3, 0.0, 1, "sphere/hull");
    random_pairs(MO_CL_CAPSULE, MO_CL_CAPSULE, 300, 4, 0.0, 1, "capsule/capsule");
    random_pairs(MO_CL_BOX, MO_CL_CAPSULE, 300, 5, 0.08, 0, "box/capsule");
    random_pairs(MO_CL_CAPSULE, MO_CL_HULL, 300, 6, 0.08, 0, "capsule/hull");
    random_pairs(MO_CL_BOX, MO_CL_CYLINDER, 300, 7, 0.03, 0, "box/cylinder");
    random_pairs(MO_CL_CAPSULE, MO_CL_CYLINDER, 300, 8, 0.03, 0, "capsule/cylinder");
    random_pairs(MO_CL_CYLINDER, MO_CL_CYLINDER, 300, 9, 0.03, 0, "cylinder/cylinder");
    random_pairs(MO_CL_CYLINDER, MO_CL_HULL, 300, 10, 0.03, 0, "cylinder/hull");
    random_pairs(MO_CL_BOX, MO_CL_HULL, 300, 11, 0.08, 0, "box/hull");
    random_pairs(MO_CL_HULL, MO_CL_HULL, 300, 12, 0.08, 0, "hull/hull");
}

/* ---- rough timing ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bench_pair(const mo_cl_object *a, const mo_cl_object *b, const char *what)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    enum { N = 20000 };
    int total = 0;
    double t0 = now_s();
    for (int i = 0; i < N; ++i) {
        mo_cl_object q = *b;
        q.pos[0] += 1e-7 * (i % 7);
        total += mo_cl_collide(a, 0, &q, 1, 0.01, c);
    }
    double t = (now_s() - t0) / N;
    printf("  bench %-40s %8.2f us/call (%d contacts)\n", what, 1e6 * t, total / N);
}

static void bench(void)
{
    double Rx[9], T[9], Rt[9];
    mat_axis_angle(0, 1, 0, PI / 2, Rx);
    mat_axis_angle(1, 1, 0, 0.4, T);
    mat_axis_angle(0, 0, 1, 0.3, Rt);
    mo_cl_object p = make_plane(0, 0, 0, NULL);
    mo_cl_object box = make_box(0, 0, 0, 1, 1, 0.5, NULL);
    mo_cl_object cube = make_box(0, 0, 0, 0.5, 0.5, 0.5, NULL);
    mo_cl_object hcube = make_hull(0, 0, 0, &g_hcube, NULL);
    mo_cl_object s = make_sphere(0.1, 0.1, 0.7 - 0.005, 0.2);
    mo_cl_object cap = make_capsule(0.1, 0, 0.7 - 0.005, 0.2, 0.4, Rx);
    mo_cl_object cyl = make_cylinder(0.1, 0, 0.8 - 0.005, 0.3, 0.3, NULL);
    mo_cl_object cylt = make_cylinder(0.1, 0, 0.75, 0.3, 0.3, T);
    mo_cl_object hub = make_hull(0.1, 0.05, 1.0 - 0.005, &g_hcube, Rt);
    mo_cl_object ub = make_box(0.1, 0.05, 1.0 - 0.005, 0.5, 0.5, 0.5, Rt);
    mo_cl_object oct = make_hull(0.1, 0.05, 1.0 - 0.005, &g_octa, NULL);
    bench_pair(&cube, &ub, "box/box resting (existing, reference)");
    bench_pair(&s, &cap, "sphere/capsule");
    bench_pair(&cap, &cap, "capsule/capsule (parallel, coincident)");
    mo_cl_object capp = make_capsule(0.1, 0, 0.18, 0.2, 0.4, Rx);
    bench_pair(&p, &capp, "capsule/plane lying");
    mo_cl_object cylp = make_cylinder(0.1, 0, 0.295, 0.3, 0.3, NULL);
    bench_pair(&p, &cylp, "cylinder/plane standing");
    mo_cl_object hp = make_hull(0.1, 0, 0.495, &g_hcube, NULL);
    bench_pair(&p, &hp, "hull/plane resting");
    mo_cl_object sc = make_sphere(0.1, 0.1, 0.8 - 0.005 + 0.1, 0.2);
    bench_pair(&sc, &cyl, "sphere/cylinder");
    bench_pair(&s, &hcube, "sphere/hull");
    bench_pair(&box, &cap, "box/capsule lying (GJK)");
    bench_pair(&hcube, &cap, "hull/capsule lying (GJK)");
    bench_pair(&box, &cyl, "box/cylinder standing (EPA + face axes)");
    bench_pair(&box, &cylt, "box/cylinder tilted, deep");
    mo_cl_object cyl2 = make_cylinder(0.05, 0, 0.6 - 0.005 + 0.5, 0.3, 0.3, NULL);
    bench_pair(&cyl, &cyl2, "cylinder/cylinder stacked");
    bench_pair(&hcube, &cyl, "hull/cylinder standing");
    bench_pair(&cube, &hub, "box/hull resting (SAT)");
    bench_pair(&hcube, &hub, "hull/hull resting (SAT)");
    bench_pair(&hcube, &oct, "hull cube/octahedron vertex (SAT)");
    const double tri[9] = {-2, -2, 0.5, 2, -2, 0.5, 0, 2, 0.5};
    mo_cl_contact c[MO_CL_MAX_POINTS];
    const mo_cl_object *tobj[3] = {&ub, &cyl, &cap};
    const char *tname[3] = {"triangle/box", "triangle/cylinder", "triangle/capsule"};
    for (int k = 0; k < 3; ++k) {
        enum { N = 20000 };
        double t0 = now_s();
        int total = 0;
        for (int i = 0; i < N; ++i)
            total += mo_cl_collide_triangle(tri, tobj[k], 0.01, 0, c);
        printf("  bench %-40s %8.2f us/call (%d contacts)\n", tname[k], 1e6 * (now_s() - t0) / N, total / N);
    }
}

int main(int argc, char **argv)
{
    hull_box(&g_hbox, 0.5, 0.3, 0.2);
    hull_box(&g_hcube, 0.5, 0.5, 0.5);
    hull_tetra(&g_tetra, 1.0);
    hull_octa(&g_octa, 0.5);
    hull_hexprism(&g_hex, 0.5, 0.25);
    check_hull_valid(&g_hbox, "box");
    check_hull_valid(&g_tetra, "tetrahedron");
    check_hull_valid(&g_octa, "octahedron");
    check_hull_valid(&g_hex, "hexagonal prism");
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        bench();
        return 0;
    }
    test_sphere_capsule();
    test_capsule_capsule();
    test_capsule_plane();
    test_cylinder_plane();
    test_hull_plane();
    test_sphere_cylinder();
    test_sphere_hull();
    test_capsule_box();
    test_cylinder_box();
    test_cylinder_cylinder();
    test_cylinder_hull_capsule();
    test_box_on_hull_box();
    test_hull_hull();
    test_triangle();
    test_margins();
    test_degenerate();
    test_stability();
    test_coincident();
    test_random();
    test_random_triangle();
    printf("  %d hand-test contacts checked for consistency\n", g_contacts_checked);
    return check_result("test_collision_convex");
}
