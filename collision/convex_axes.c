/* convex_axes.c: the contact normal of two overlapping or nearby cores (the
 * design is in collide_convex.c's header comment): separating axes of two
 * polytopes (face normals, then edge pairs on the Gauss map or by brute
 * force), of a point or segment against a polytope, and for general convex
 * pairs GJK, EPA and candidate axes with libccd's MPR; each ends in the
 * contact manifold (convex_manifold.c). No allocation, no mutable state:
 * every routine is reentrant. */
#include "convex_internal.h"

#include <ccd/ccd.h>
#include <math.h>
#include <stddef.h>

#define MPR_REFINE 6

/* ---- separation along an axis ---- */

/* smallest distance from the centre to a face plane (box: the smallest half extent) */
static double poly_inradius(const poly *p)
{
    double r = HUGE_VAL;
    for (int f = 0; f < p->nf; ++f)
        r = fmin(r, p->pl[4 * f + 3] - dot3(p->pl + 4 * f, p->center));
    return r > 0.0 ? r : 0.0;
}

/* separation of b's core from a's along unit u (a to b): min_b u.x - max_a u.x */
static double sep_along(const cvx *A, const cvx *B, const double *u)
{
    double mu[3] = {-u[0], -u[1], -u[2]};
    return -mo_cl_support_value(B, mu) - mo_cl_support_value(A, u);
}

/* ---- cores apart ---- */

/* cores apart (GJK found no overlap): the contacts along the direction of
   GJK's closest points, at its witness on a's core; gap is the distance less
   the rounding radii */
static int apart_contacts(const cvx *A, const cvx *B, const gjk_res *g, double gap, double cut,
                          mo_cl_contact *out)
{
    double n[3];
    sub3(g->pb, g->pa, n);
    for (int k = 0; k < 3; ++k)
        n[k] /= g->dist;
    if (!(gap < cut))
        return 0;
    return mo_cl_make_manifold(A, B, n, gap, g->pa, cut, out);
}

/* ---- polytope / polytope: separating axes ---- */

static int poly_edge_contact(const cvx *A, const cvx *B, int ea, int eb, const double *n, double cut,
                             mo_cl_contact *out)
{
    double a0[3], a1[3], b0[3], b1[3], da[3], db[3], qa[3], qb[3], w[3], s, t;
    poly_vertex(A, A->p->e[2 * ea], a0);
    poly_vertex(A, A->p->e[2 * ea + 1], a1);
    poly_vertex(B, B->p->e[2 * eb], b0);
    poly_vertex(B, B->p->e[2 * eb + 1], b1);
    sub3(a1, a0, da);
    sub3(b1, b0, db);
    segment_closest(a0, da, b0, db, &s, &t);
    madd3(a0, s, da, qa);
    madd3(b0, t, db, qb);
    sub3(qb, qa, w);
    double gap = dot3(n, w);
    if (!(gap < cut))
        return 0;
    double p[3];
    for (int k = 0; k < 3; ++k)
        p[k] = 0.5 * (qa[k] + qb[k]) - 0.5 * gap * n[k];
    mo_cl_set_contact(out, n, p, gap, single_id(fcode(FK_EDGE, ea), fcode(FK_EDGE, eb)));
    return 1;
}

/* the axis' contact came out empty (apart, with the closest features beside
   the reference face or off the edges' ends): the closest points when apart,
   else one contact along the axis */
static int poly_fallback(const cvx *A, const cvx *B, const double *n, double sep, double cut, mo_cl_contact *out)
{
    gjk_res g;
    mo_cl_gjk(A, B, &g);
    if (!g.overlap)
        return apart_contacts(A, B, &g, g.dist, cut, out);
    if (!(sep < cut))
        return 0;
    return mo_cl_make_manifold(A, B, n, sep, NULL, cut, out);
}

/* Edge axes by brute force: cross products of every edge pair, both signs,
   each scored by its exact separation; the bound u.(b0 - a0), which is >= the
   true separation, skips pairs that cannot beat best_f or the best edge so far.
   Among equal separations the pair whose bound is tight (the supporting edges)
   is kept. Returns 0 when an axis separates by more than cut, else 1. */
static int edge_axes_brute(const cvx *A, const cvx *B, double best_f, double cut, double *sep_out, int *ea, int *eb,
                           double *n_out)
{
    const poly *PA = A->p, *PB = B->p;
    double sep_e = *sep_out, slack_e = HUGE_VAL;
    double tie = 1e-12 * (A->size + B->size);
    for (int i = 0; i < PA->ne; ++i) {
        double a0[3], a1[3], da[3];
        poly_vertex(A, PA->e[2 * i], a0);
        poly_vertex(A, PA->e[2 * i + 1], a1);
        sub3(a1, a0, da);
        double la2 = dot3(da, da);
        for (int j = 0; j < PB->ne; ++j) {
            double b0[3], b1[3], db[3], c[3], w[3];
            poly_vertex(B, PB->e[2 * j], b0);
            poly_vertex(B, PB->e[2 * j + 1], b1);
            sub3(b1, b0, db);
            cross3(da, db, c);
            double l2 = dot3(c, c);
            if (!(l2 > k_edge_eps2 * la2 * dot3(db, db)))
                continue;
            double l = sqrt(l2);
            for (int k = 0; k < 3; ++k)
                c[k] /= l;
            sub3(b0, a0, w);
            double ub = dot3(c, w);
            for (int sg = 0; sg < 2; ++sg) {
                double u[3] = {sg ? -c[0] : c[0], sg ? -c[1] : c[1], sg ? -c[2] : c[2]};
                double bound = sg ? -ub : ub;
                if (!(bound > fmax(best_f, sep_e) - tie))
                    continue;
                double s = sep_along(A, B, u);
                if (!(s <= cut))
                    return 0;
                if (s > sep_e + tie || (s >= sep_e - tie && bound - s < slack_e)) {
                    sep_e = s;
                    slack_e = bound - s;
                    *ea = i;
                    *eb = j;
                    copy3(u, n_out);
                }
            }
        }
    }

    *sep_out = sep_e;
    return 1;
}

/* edge -> adjacent faces of a polytope, from its face polygons through a small
   hash of the edge list; 0 when the polytope is not closed (a triangle), has
   more than ADJ_CAP edges, or a polygon side is not in the edge list */
#define ADJ_CAP 128
#define ADJ_HASH 256

static int poly_adjacency(const poly *p, int (*adj)[2])
{
    if (p->nf == 2 && p->ne == 3 && p->fv == mo_cl_tri_fv) {
        /* triangle: every edge between the front and the back face */
        for (int e = 0; e < 3; ++e) {
            adj[e][0] = 0;
            adj[e][1] = 1;
        }
        return 1;
    }
    if (p->ne > ADJ_CAP || p->ne < 6 || p->nf < 4)
        return 0;
    int key_a[ADJ_HASH], key_b[ADJ_HASH], val[ADJ_HASH];
    for (int h = 0; h < ADJ_HASH; ++h)
        val[h] = -1;
    for (int e = 0; e < p->ne; ++e) {
        int a = p->e[2 * e], b = p->e[2 * e + 1];
        int lo = a < b ? a : b, hi = a < b ? b : a;
        unsigned h = ((unsigned)lo * 73856093u ^ (unsigned)hi * 19349663u) & (ADJ_HASH - 1);
        while (val[h] >= 0)
            h = (h + 1) & (ADJ_HASH - 1);
        key_a[h] = lo;
        key_b[h] = hi;
        val[h] = e;
        adj[e][0] = adj[e][1] = -1;
    }
    for (int f = 0; f < p->nf; ++f) {
        int first = p->ff[f], cnt = p->ff[f + 1] - first;
        for (int i = 0; i < cnt; ++i) {
            int a = p->fv[first + i], b = p->fv[first + (i + 1 < cnt ? i + 1 : 0)];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            unsigned h = ((unsigned)lo * 73856093u ^ (unsigned)hi * 19349663u) & (ADJ_HASH - 1);
            int e = -1;
            for (int probe = 0; probe < ADJ_HASH && val[h] >= 0; ++probe) {
                if (key_a[h] == lo && key_b[h] == hi) {
                    e = val[h];
                    break;
                }
                h = (h + 1) & (ADJ_HASH - 1);
            }
            if (e < 0)
                return 0;
            if (adj[e][0] < 0)
                adj[e][0] = f;
            else if (adj[e][1] < 0)
                adj[e][1] = f;
            else
                return 0;
        }
    }
    for (int e = 0; e < p->ne; ++e)
        if (adj[e][1] < 0)
            return 0;
    return 1;
}

/* world data of edge e: start point, direction, and its two face normals
   ordered so that direction . (u x v) > 0. A triangle's faces are antipodal:
   its arc runs from the front normal through the edge's outward side
   (d x front) to the back, which is the same relation with d taken
   counter-clockwise (as listed) and u = front. */
typedef struct edge_info {
    double p[3], d[3], u[3], v[3];
} edge_info;

static void edge_world(const cvx *s, int e, const int (*adj)[2], edge_info *ei)
{
    double q[3], c[3];
    poly_vertex(s, s->p->e[2 * e], ei->p);
    poly_vertex(s, s->p->e[2 * e + 1], q);
    sub3(q, ei->p, ei->d);
    mat_vec(s->R, s->p->pl + 4 * adj[e][0], ei->u);
    mat_vec(s->R, s->p->pl + 4 * adj[e][1], ei->v);
    cross3(ei->u, ei->v, c);
    if (dot3(c, c) > 1e-20 && dot3(c, ei->d) < 0.0) {
        double t[3];
        copy3(ei->u, t);
        copy3(ei->v, ei->u);
        copy3(t, ei->v);
    }
}

/* Edge axes through the Gauss map (Gregorius, GDC 2013): a pair is a face of
   the Minkowski difference when the arcs (u1, v1) and (-u2, -v2) cross; its
   separation is then n.(p2 - p1) with n = d1 x d2 pointing out of a. Returns
   0 when an axis separates by more than cut, 1 done, -1 when the adjacency is
   not available (then edge_axes_brute). */
static int edge_axes_gauss(const cvx *A, const cvx *B, double cut, double *sep_out, int *ea, int *eb,
                           double *n_out)
{
    int adj_a[ADJ_CAP][2], adj_b[ADJ_CAP][2];
    if (!poly_adjacency(A->p, adj_a) || !poly_adjacency(B->p, adj_b))
        return -1;
    edge_info EB[ADJ_CAP];
    for (int j = 0; j < B->p->ne; ++j)
        edge_world(B, j, (const int(*)[2])adj_b, &EB[j]);
    double sep_e = *sep_out;
    for (int i = 0; i < A->p->ne; ++i) {
        edge_info ia;
        edge_world(A, i, (const int(*)[2])adj_a, &ia);
        double la2 = dot3(ia.d, ia.d);
        for (int j = 0; j < B->p->ne; ++j) {
            const edge_info *ib = &EB[j];
            double cba = dot3(ib->u, ia.d), dba = dot3(ib->v, ia.d);
            double adc = -dot3(ia.u, ib->d), bdc = -dot3(ia.v, ib->d);
            if (!(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0))
                continue;
            double n[3], w[3];
            cross3(ia.d, ib->d, n);
            double l2 = dot3(n, n);
            if (!(l2 > k_edge_eps2 * la2 * dot3(ib->d, ib->d)))
                continue;
            double l = sqrt(l2);
            for (int k = 0; k < 3; ++k)
                n[k] /= l;
            sub3(ia.p, A->cen, w);
            if (dot3(n, w) < 0.0)
                for (int k = 0; k < 3; ++k)
                    n[k] = -n[k];
            sub3(ib->p, ia.p, w);
            double sep = dot3(n, w);
            if (!(sep <= cut))
                return 0;
            if (sep > sep_e) {
                sep_e = sep;
                *ea = i;
                *eb = j;
                copy3(n, n_out);
            }
        }
    }
    *sep_out = sep_e;
    return 1;
}

/* face axes of polytope core P against core Q: the largest separation of Q
   from a face plane of P (*sep, raised from its value on entry) and that face
   (*face); 0 when a face separates them by more than cut (a NaN separation
   too) */
static int face_axes(const cvx *P, const cvx *Q, double cut, double *sep, int *face)
{
    double n[3];
    for (int f = 0; f < P->p->nf; ++f) {
        double d = poly_plane(P, f, n);
        double mn[3] = {-n[0], -n[1], -n[2]};
        double s = -mo_cl_support_value(Q, mn) - d;
        if (!(s <= cut))
            return 0;
        if (s > *sep) {
            *sep = s;
            *face = f;
        }
    }
    return 1;
}

int mo_cl_collide_poly_poly(const cvx *A, const cvx *B, double cut, mo_cl_contact *out)
{
    const poly *PA = A->p, *PB = B->p;

    /* face axes of a, then of b (a NaN separation also exits) */
    double sep_a = -HUGE_VAL, sep_b = -HUGE_VAL;
    int fa = 0, fb = 0;
    if (!face_axes(A, B, cut, &sep_a, &fa) || !face_axes(B, A, cut, &sep_b, &fb))
        return 0;

    /* edge axes: the pairs whose arcs cross on the Gauss map when both
       polytopes are closed, else every pair (pruned) */
    double sep_e = -HUGE_VAL, ne_best[3] = {0, 0, 1};
    int ea = -1, eb = -1;
    int r = edge_axes_gauss(A, B, cut, &sep_e, &ea, &eb, ne_best);
    if (r < 0)
        r = edge_axes_brute(A, B, fmax(sep_a, sep_b), cut, &sep_e, &ea, &eb, ne_best);
    if (r == 0)
        return 0;

    /* prefer a's faces, then b's, then edges, within tolerances (box/box) */
    double tol = k_abs_rel * fmin(poly_inradius(PA), poly_inradius(PB));
    int ref_is_b = sep_b > sep_a + k_face_rel * fabs(sep_a) + tol;
    double sep_f = ref_is_b ? sep_b : sep_a;
    if (ea >= 0 && sep_e > sep_f + k_edge_rel * fabs(sep_f) + tol) {
        int k = poly_edge_contact(A, B, ea, eb, ne_best, cut, out);
        return k > 0 ? k : poly_fallback(A, B, ne_best, sep_e, cut, out);
    }

    /* face axis: reference face, incident face most anti-parallel to it */
    const cvx *ref = ref_is_b ? B : A, *inc = ref_is_b ? A : B;
    int fr = ref_is_b ? fb : fa;
    double nr[3];
    poly_plane(ref, fr, nr);
    int fi = 0;
    double bd = HUGE_VAL;
    for (int f = 0; f < inc->p->nf; ++f) {
        double nw[3];
        mat_vec(inc->R, inc->p->pl + 4 * f, nw);
        double dd = dot3(nw, nr);
        if (dd < bd) {
            bd = dd;
            fi = f;
        }
    }
    feature FR, FI;
    mo_cl_poly_face_feature(ref, fr, &FR);
    mo_cl_poly_face_feature(inc, fi, &FI);
    double nab[3] = {ref_is_b ? -nr[0] : nr[0], ref_is_b ? -nr[1] : nr[1], ref_is_b ? -nr[2] : nr[2]};
    int k = mo_cl_clip_features(&FR, &FI, ref_is_b, nab, 0.0, 0.0, cut, out);
    return k > 0 ? k : poly_fallback(A, B, nab, sep_f, cut, out);
}

/* ---- point or segment (a) against a polytope (b) ---- */

int mo_cl_collide_round_poly(const cvx *S, const cvx *P, double cut, mo_cl_contact *out)
{
    gjk_res g;
    mo_cl_gjk(S, P, &g);
    if (!g.overlap)
        return apart_contacts(S, P, &g, g.dist - S->r, cut, out);

    /* cores intersect: the polytope's faces, segment x polytope edges */
    const poly *p = P->p;
    double sep_f = -HUGE_VAL, sep_e = -HUGE_VAL, uf[3] = {0, 0, 1}, ue[3] = {0, 0, 1};
    for (int f = 0; f < p->nf; ++f) {
        double nf[3];
        double d = poly_plane(P, f, nf);
        double mn[3] = {-nf[0], -nf[1], -nf[2]};
        double s = -mo_cl_support_value(S, mn) - d; /* min over S of nf.x - d */
        if (s > sep_f) {
            sep_f = s;
            copy3(mn, uf);
        }
    }
    if (S->kind == CV_SEGMENT && S->hh > 0.0) {
        double w[3];
        rot_col(S->R, 2, w);
        for (int e = 0; e < p->ne; ++e) {
            double a0[3], a1[3], de[3], c[3];
            poly_vertex(P, p->e[2 * e], a0);
            poly_vertex(P, p->e[2 * e + 1], a1);
            sub3(a1, a0, de);
            cross3(w, de, c);
            double l2 = dot3(c, c);
            if (!(l2 > k_edge_eps2 * dot3(de, de)))
                continue;
            double l = sqrt(l2);
            for (int k = 0; k < 3; ++k)
                c[k] /= l;
            for (int sg = 0; sg < 2; ++sg) {
                double u[3] = {sg ? -c[0] : c[0], sg ? -c[1] : c[1], sg ? -c[2] : c[2]};
                double s = sep_along(S, P, u);
                if (s > sep_e) {
                    sep_e = s;
                    copy3(u, ue);
                }
            }
        }
    }
    double tol = k_abs_rel * fmin(poly_inradius(p), S->size);
    int use_e = sep_e > sep_f + k_edge_rel * fabs(sep_f) + tol;
    const double *u = use_e ? ue : uf;
    double gap = (use_e ? sep_e : sep_f) - S->r;
    if (!(gap < cut))
        return 0;
    return mo_cl_make_manifold(S, P, u, gap, NULL, cut, out);
}

/* ---- general convex pairs: GJK, candidate axes, libccd MPR ---- */

typedef struct mpr_obj {
    const cvx *s;
    double center[3];
} mpr_obj;

static void mpr_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec)
{
    const mpr_obj *o = obj;
    double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, x[3];
    mo_cl_support(o->s, d, x);
    vec->v[0] = x[0];
    vec->v[1] = x[1];
    vec->v[2] = x[2];
}

static void mpr_center(const void *obj, ccd_vec3_t *c)
{
    const mpr_obj *o = obj;
    c->v[0] = o->center[0];
    c->v[1] = o->center[1];
    c->v[2] = o->center[2];
}

/* MPR on A - B from interior point v0: penetration direction (a to b) */
static int mpr_direction(const cvx *A, const cvx *B, const double *v0, double *n)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = mpr_support;
    ccd.support2 = mpr_support;
    ccd.center1 = mpr_center;
    ccd.center2 = mpr_center;
    ccd.max_iterations = 100;
    ccd.mpr_tolerance = 1e-11 * (A->size + B->size);
    mpr_obj oa = {A, {v0[0], v0[1], v0[2]}}, ob = {B, {0.0, 0.0, 0.0}};
    ccd_real_t depth;
    ccd_vec3_t dir, pos;
    if (ccdMPRPenetration(&oa, &ob, &ccd, &depth, &dir, &pos) != 0)
        return 0;
    double d[3] = {dir.v[0], dir.v[1], dir.v[2]};
    if (!(depth > 0.0) || !normalize3(d))
        return 0;
    copy3(d, n);
    return 1;
}

/* world edge directions of a core for cross-product axes (polytope edges,
   segment / cylinder axis); at most cap */
static int edge_dirs(const cvx *s, double (*dirs)[3], int cap)
{
    if (s->kind == CV_SEGMENT || s->kind == CV_CYLINDER) {
        rot_col(s->R, 2, dirs[0]);
        return 1;
    }
    if (s->kind != CV_POLY)
        return 0;
    int n = 0;
    for (int e = 0; e < s->p->ne && n < cap; ++e) {
        double d[3];
        sub3(s->p->v + 3 * s->p->e[2 * e + 1], s->p->v + 3 * s->p->e[2 * e], d);
        mat_vec(s->R, d, dirs[n]);
        if (normalize3(dirs[n]))
            ++n;
    }
    return n;
}

typedef struct axis_best {
    double face, other;
    double uf[3], uo[3];
} axis_best;

static void try_axis(const cvx *A, const cvx *B, const double *u, int is_face, axis_best *ab)
{
    double s = sep_along(A, B, u);
    if (is_face) {
        if (s > ab->face) {
            ab->face = s;
            copy3(u, ab->uf);
        }
    } else if (s > ab->other) {
        ab->other = s;
        copy3(u, ab->uo);
    }
}

/* candidates when EPA has nothing (GJK stopped at a touching contact, or EPA
   failed): the last GJK direction, cross products of edge directions, the
   centre offset with and without the axial parts, and libccd's MPR from the
   centres refined by ray casts along its normal */
static void fallback_axes(const cvx *A, const cvx *B, const gjk_res *g, axis_best *ab_out)
{
    axis_best ab = *ab_out;
    const cvx *S[2] = {A, B};
    {
        double u[3]; /* GJK's v is the closest point of A - B: -v points from a to b */
        copy3(g->v, u);
        for (int i = 0; i < 3; ++i)
            u[i] = -u[i];
        if (normalize3(u))
            try_axis(A, B, u, 0, &ab);
    }

    /* cross products of edge directions, both signs */
    double da[FEAT_CAP][3], db[FEAT_CAP][3];
    int nda = edge_dirs(A, da, FEAT_CAP), ndb = edge_dirs(B, db, FEAT_CAP);
    for (int i = 0; i < nda; ++i)
        for (int j = 0; j < ndb; ++j) {
            double c[3];
            cross3(da[i], db[j], c);
            if (!(dot3(c, c) > k_edge_eps2) || !normalize3(c))
                continue;
            double mc[3] = {-c[0], -c[1], -c[2]};
            try_axis(A, B, c, 0, &ab);
            try_axis(A, B, mc, 0, &ab);
        }

    /* centre offset, and with the axial part of each segment / cylinder removed */
    double d0[3];
    sub3(B->cen, A->cen, d0);
    {
        double u[3];
        copy3(d0, u);
        if (normalize3(u))
            try_axis(A, B, u, 0, &ab);
        for (int k = 0; k < 2; ++k)
            if (S[k]->kind == CV_SEGMENT || S[k]->kind == CV_CYLINDER) {
                double w[3];
                rot_col(S[k]->R, 2, w);
                madd3(d0, -dot3(d0, w), w, u);
                if (normalize3(u))
                    try_axis(A, B, u, 0, &ab);
            }
    }

    /* MPR from the centres, then ray casts along the last normal */
    double v0[3], n[3];
    sub3(A->cen, B->cen, v0);
    if (mpr_direction(A, B, v0, n)) {
        try_axis(A, B, n, 0, &ab);
        for (int it = 0; it < MPR_REFINE; ++it) {
            double depth = -sep_along(A, B, n);
            if (!(depth > 0.0))
                break;
            double v1[3] = {-0.25 * depth * n[0], -0.25 * depth * n[1], -0.25 * depth * n[2]};
            double n2[3];
            if (!mpr_direction(A, B, v1, n2))
                break;
            double prev = ab.other;
            try_axis(A, B, n2, 0, &ab);
            double dn[3];
            sub3(n2, n, dn);
            copy3(n2, n);
            if (!(ab.other > prev) || dot3(dn, dn) < 1e-24)
                break;
        }
    }

    *ab_out = ab;
}

int mo_cl_collide_general(const cvx *A, const cvx *B, double cut, mo_cl_contact *out)
{
    gjk_res g;
    mo_cl_gjk(A, B, &g);
    if (!g.overlap)
        return apart_contacts(A, B, &g, g.dist - A->r - B->r, cut, out);

    axis_best ab = {-HUGE_VAL, -HUGE_VAL, {0, 0, 1}, {0, 0, 1}};
    const cvx *S[2] = {A, B};
    double n_epa[3], depth;
    int have_epa = g.enclosed && mo_cl_epa(A, B, g.simplex, n_epa, &depth);
    if (have_epa)
        try_axis(A, B, n_epa, 0, &ab);

    /* face candidates: polytope faces (outward from their owner), cylinder axes */
    for (int k = 0; k < 2; ++k) {
        const cvx *s = S[k];
        double sg = k ? -1.0 : 1.0;
        if (s->kind == CV_POLY) {
            for (int f = 0; f < s->p->nf; ++f) {
                double nw[3];
                mat_vec(s->R, s->p->pl + 4 * f, nw);
                for (int i = 0; i < 3; ++i)
                    nw[i] *= sg;
                try_axis(A, B, nw, 1, &ab);
            }
        } else if (s->kind == CV_CYLINDER) {
            double w[3], mw[3];
            rot_col(s->R, 2, w);
            for (int i = 0; i < 3; ++i)
                mw[i] = -w[i];
            try_axis(A, B, w, 1, &ab);
            try_axis(A, B, mw, 1, &ab);
        }
    }

    if (!have_epa)
        fallback_axes(A, B, &g, &ab);

    /* faces unless another axis is clearly better */
    double tol = k_gen_abs * fmin(A->size, B->size);
    int use_other = ab.other > ab.face + k_gen_rel * fabs(ab.face) + tol;
    const double *u = use_other ? ab.uo : ab.uf;
    double gap = (use_other ? ab.other : ab.face) - A->r - B->r;
    if (!(gap < cut))
        return 0;
    return mo_cl_make_manifold(A, B, u, gap, NULL, cut, out);
}
