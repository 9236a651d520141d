/* collide_convex.c: narrowphase pairs of capsules, cylinders, convex hulls and
 * one-sided triangles (the pairs of spheres, boxes and planes, the dispatch
 * table and the margin handling live in collide_narrow.c).
 *
 * Design. Every shape is a core plus a rounding radius: a sphere is a point
 * with its radius, a capsule a segment with its radius, a box, a hull and a
 * triangle polytopes (a box is handed to the polytope code as an 8-vertex
 * hull, a triangle as a 2-face hull), a cylinder itself. Object margins are
 * added by mo_cl_collide (collide_narrow.c), so routines see bare shapes.
 *
 *   analytic: sphere/capsule (point-segment), sphere/cylinder (point clamped
 *     to the solid cylinder), capsule/capsule (closest points of segments;
 *     nearly parallel ones give the two ends of their overlap), capsule/plane
 *     (both ends), cylinder/plane (rim points), hull/plane (vertices).
 *   polytope/polytope (box/hull, hull/hull, triangle/box and triangle/hull):
 *     separating axes as box/box in collide_narrow.c, generalised: the face
 *     normals of both (exact separation from the support functions), then the
 *     edge pairs that form faces of the Minkowski difference, found on the
 *     Gauss map (Gregorius, "The separating axis test between convex
 *     polyhedra", GDC 2013: arcs between each edge's two face normals cross),
 *     whose separation is n.(p_b - p_a). mo_cl_hull has no edge-to-face
 *     adjacency, so it is rebuilt per call from the face polygons through a
 *     small stack hash (boxes, hulls up to 128 edges; a triangle's edges lie
 *     between its front and back faces); otherwise every edge pair is scored
 *     by its exact separation, pruned by the bound n.(edge point of b - edge
 *     point of a). Face axes are preferred over edges, a's faces over b's,
 *     with box/box's tolerances; a face axis clips the incident face against
 *     the reference face's side planes (Sutherland-Hodgman) with box/box's
 *     slop and reduction, an edge axis gives the closest points of the two
 *     edges; an empty result while under the cut-off (closest features beside
 *     the reference face) falls back to GJK's closest points. A box against a
 *     hull box gives box/box's contact set.
 *   segment or point against a polytope (capsule/box, capsule/hull,
 *     sphere/hull, and the triangle versions): GJK distance of the cores when
 *     they are apart (exact for polytopes), else separating axes (the
 *     polytope's faces and segment x polytope edge), then the feature manifold.
 *   general convex pairs (everything with a cylinder but the plane and the
 *     sphere): GJK distance of the cores when apart; when the cores overlap,
 *     EPA (van den Bergen) from GJK's final tetrahedron, in fixed stack arrays
 *     (128 vertices, 256 faces, 100 iterations, relative tolerance 1e-9), and
 *     the polytopes' face normals and cylinder axes as candidates that win
 *     unless EPA's axis separates better by 1% (stable resting). Candidates
 *     are all scored by their exact separation -h_a(n) - h_b(-n). When GJK
 *     stops touching (cores within 1e-9 * size, no tetrahedron) or EPA fails,
 *     more candidates: the last GJK direction, cross products of edge
 *     directions, the centre offset with the axial parts removed, and
 *     libccd's MPR (ccdMPRPenetration) from the centres, refined by re-running
 *     it with its interior point just behind the origin along the last normal.
 *     libccd's own GJK+EPA (ccdGJKPenetration) allocates its polytope with
 *     malloc and so is not used; MPR alone was measured 5 to 100% off the
 *     depth on curved pairs, hence EPA first.
 *   manifold (all but the analytic pairs and the polytope axes): the support
 *     feature of each shape along the normal: a face polygon, an edge or a
 *     vertex for polytopes; a cap (8 rim points at fixed angles, plus the
 *     deepest rim point when tilted by more than 1e-3), the side line, or a
 *     rim point for cylinders; the segment or an end for capsules; a face or
 *     segment is taken when within sin = 0.05 of perpendicular to the normal.
 *     A polygon feature is the reference (a's when both, unless b's is better
 *     aligned) and the other is clipped against its side planes; two nearly
 *     parallel segments give the two ends of their overlap; otherwise one
 *     contact at the closest points. Points with gap < margin are kept, more
 *     than four reduced by mo_cl_reduce_points; if the manifold misses the
 *     deepest point by more than 1e-4 * size (skew segments, tilted features),
 *     that point is added too.
 *   one-sided triangles: mo_cl_collide_triangle (collide_internal.h).
 *
 * Feature ids (stable while the same features touch):
 *   sphere/capsule:  region of the segment parameter: 0 lower end, 1 inside, 2 upper end
 *   sphere/cylinder: 0 side, 1/2 lower/upper cap, 3/4 lower/upper rim
 *   capsule/capsule: one point: 3 * region_a + region_b; nearly parallel: the
 *                    overlap ends 16 + 2 * end + (end comes from b's endpoint),
 *                    plus the closest pair (3 * region_a + region_b) when it is
 *                    deeper by more than 1e-4 * size (skew axes)
 *   capsule/plane:   0 lower end (-h), 1 upper end
 *   cylinder/plane:  4 * cap + k for the fixed rim points k = 0..3 of the lower
 *                    cap (local angle k * 90 deg, cap 1 = +z), 8 + cap for the
 *                    deepest rim point of a cap (the same ids whichever cap is
 *                    lower, so a cylinder lying on its side keeps them)
 *   hull/plane:      vertex index
 *   sphere/triangle: 0 face, 1..3 edge (v0v1, v1v2, v2v0), 4..6 vertex
 *   clipped polygons (polytope face axis and feature manifolds):
 *                    ref_is_b << 30 | ref face << 20 | incident feature << 10 |
 *                    l0 << 5 | l1, with l0 <= l1 labelling the two polygon edges
 *                    meeting at the point: 0..15 incident edges, 16..31 the
 *                    reference side planes (as box/box)
 *   parallel segments in a feature manifold: 3 << 30 | feature a << 20 |
 *                    feature b << 10 | 2 * end + (end from b)
 *   one point (edge axis, closest points, vertex contacts):
 *                    1 << 31 | feature a << 15 | feature b
 *   where a feature is kind << 12 | index (kind 0 vertex, 1 edge, 2 face,
 *   3 cylinder side (0) or rim (1 + cap)); box vertices, edges and faces are
 *   numbered as in box/box; in the 10-bit fields a feature is kind << 8 | index.
 *
 * No allocation, no mutable state: every routine is reentrant. */
#include "collide_internal.h"

#include <ccd/ccd.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* tolerances */
static const double k_face_rel = 0.02;   /* polytopes: b's face axis must beat a's by this fraction (box/box) */
static const double k_edge_rel = 0.05;   /* an edge axis must beat the face axis by this fraction (box/box) */
static const double k_abs_rel = 1e-4;    /* absolute axis tolerance, times the smallest inradius */
static const double k_slop_rel = 5e-5;   /* reference face grown by this times perimeter / 4 */
static const double k_edge_eps2 = 1e-12; /* |a x b|^2 below this times |a|^2 |b|^2: parallel, skipped */
static const double k_feat_sin = 0.05;   /* support feature is a face / segment within this sine */
static const double k_tilt = 1e-3;       /* cylinder cap: deepest rim point added above this tilt sine */
static const double k_gen_rel = 0.01;    /* general pairs: a non-face axis must beat faces by this fraction */
static const double k_gen_abs = 1e-6;    /* ... plus this times the smaller shape size */
static const double k_gjk_rel = 1e-11;   /* GJK: stop when |v|^2 - v.w <= this times |v|^2 */
static const double k_touch_rel = 1e-9;  /* GJK: cores closer than this times the size overlap */

#define FEAT_CAP 64
#define GJK_ITERS 64
#define MPR_REFINE 6

/* ---- small vector helpers ---- */

static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double *a, const double *b, double *out)
{
    double t0 = a[1] * b[2] - a[2] * b[1];
    double t1 = a[2] * b[0] - a[0] * b[2];
    double t2 = a[0] * b[1] - a[1] * b[0];
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
}

static inline void sub3(const double *a, const double *b, double *out)
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

/* out = a + s b */
static inline void madd3(const double *a, double s, const double *b, double *out)
{
    out[0] = a[0] + s * b[0];
    out[1] = a[1] + s * b[1];
    out[2] = a[2] + s * b[2];
}

static inline void copy3(const double *a, double *out)
{
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
}

static inline double norm3(const double *a)
{
    return sqrt(dot3(a, a));
}

/* normalises in place; 0 (a untouched) when too short */
static inline int normalize3(double *a)
{
    double l = norm3(a);
    if (!(l > 1e-300))
        return 0;
    a[0] /= l;
    a[1] /= l;
    a[2] /= l;
    return 1;
}

/* R v and R^T v for row-major R */
static inline void mat_vec(const double *R, const double *v, double *out)
{
    double t0 = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
    double t1 = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
    double t2 = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
}

static inline void mat_tvec(const double *R, const double *v, double *out)
{
    double t0 = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
    double t1 = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
    double t2 = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
}

/* column k of a row-major rotation: local axis k in world */
static inline void rot_col(const double *R, int k, double *out)
{
    out[0] = R[k];
    out[1] = R[3 + k];
    out[2] = R[6 + k];
}

/* a unit vector perpendicular to unit u (deterministic) */
static void any_perp(const double *u, double *out)
{
    double e[3] = {0.0, 0.0, 0.0};
    int k = 0;
    if (fabs(u[1]) < fabs(u[k]))
        k = 1;
    if (fabs(u[2]) < fabs(u[k]))
        k = 2;
    e[k] = 1.0;
    cross3(u, e, out);
    if (!normalize3(out)) {
        out[0] = 1.0;
        out[1] = out[2] = 0.0;
    }
}

/* exchange the roles of a and b */
static void flip_contacts(mo_cl_contact *c, int n)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            double t = c[i].point_a[k];
            c[i].point_a[k] = c[i].point_b[k];
            c[i].point_b[k] = t;
            c[i].normal[k] = -c[i].normal[k];
        }
}

static inline double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* closest points of segments p0 + s d0 and q0 + t d1, s, t in [0, 1] (Ericson,
   Real-Time Collision Detection 5.1.9); writes s, t */
static void segment_closest(const double *p0, const double *d0, const double *q0, const double *d1,
                            double *s_out, double *t_out)
{
    double r[3];
    sub3(p0, q0, r);
    double a = dot3(d0, d0), e = dot3(d1, d1), f = dot3(d1, r);
    double s, t;
    if (!(a > 1e-300) && !(e > 1e-300)) {
        s = t = 0.0;
    } else if (!(a > 1e-300)) {
        s = 0.0;
        t = clampd(f / e, 0.0, 1.0);
    } else {
        double c = dot3(d0, r);
        if (!(e > 1e-300)) {
            t = 0.0;
            s = clampd(-c / a, 0.0, 1.0);
        } else {
            double b = dot3(d0, d1);
            double den = a * e - b * b;
            s = (den > 1e-14 * a * e) ? clampd((b * f - c * e) / den, 0.0, 1.0) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clampd(-c / a, 0.0, 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = clampd((b - c) / a, 0.0, 1.0);
            }
        }
    }
    *s_out = s;
    *t_out = t;
}

/* ---- polytopes: hulls, boxes and triangles behind one read-only view ---- */

typedef struct poly {
    int nv, nf, ne;
    const double *v;  /* (nv x 3) local */
    const int *ff;    /* (nf + 1) face offsets into fv */
    const int *fv;    /* face vertex indices, counter-clockwise seen from outside */
    const double *pl; /* (nf x 4) outward unit normal, offset */
    const int *e;     /* (ne x 2) */
    double center[3]; /* local interior point */
    double size;      /* bounding radius about center */
} poly;

/* box: vertex v = (x > 0) | (y > 0) << 1 | (z > 0) << 2, face 2 * axis + (negative
   side), edge 4 * axis + (axis + 1 positive) + 2 * (axis + 2 positive): box/box's */
static const int k_box_ff[7] = {0, 4, 8, 12, 16, 20, 24};
static const int k_box_fv[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const int k_box_e[24] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 4, 6, 1, 3, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7};

typedef struct box_poly {
    poly p;
    double v[24];
    double pl[24];
} box_poly;

static void box_poly_init(box_poly *b, const double *he)
{
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 3; ++k)
            b->v[3 * v + k] = (v >> k & 1) ? he[k] : -he[k];
    for (int f = 0; f < 6; ++f) {
        int ax = f / 2;
        for (int k = 0; k < 3; ++k)
            b->pl[4 * f + k] = (k == ax) ? ((f & 1) ? -1.0 : 1.0) : 0.0;
        b->pl[4 * f + 3] = he[ax];
    }
    b->p.nv = 8;
    b->p.nf = 6;
    b->p.ne = 12;
    b->p.v = b->v;
    b->p.ff = k_box_ff;
    b->p.fv = k_box_fv;
    b->p.pl = b->pl;
    b->p.e = k_box_e;
    b->p.center[0] = b->p.center[1] = b->p.center[2] = 0.0;
    b->p.size = norm3(he);
}

/* triangle in world coordinates: face 0 the front (v0 v1 v2), face 1 the back */
static const int k_tri_ff[3] = {0, 3, 6};
static const int k_tri_fv[6] = {0, 1, 2, 0, 2, 1};
static const int k_tri_e[6] = {0, 1, 1, 2, 2, 0};

typedef struct tri_poly {
    poly p;
    double v[9];
    double pl[8];
} tri_poly;

static void tri_poly_init(tri_poly *t, const double *tri, const double *nt)
{
    memcpy(t->v, tri, sizeof t->v);
    double d = dot3(nt, tri);
    for (int k = 0; k < 3; ++k) {
        t->pl[k] = nt[k];
        t->pl[4 + k] = -nt[k];
    }
    t->pl[3] = d;
    t->pl[7] = -d;
    t->p.nv = 3;
    t->p.nf = 2;
    t->p.ne = 3;
    t->p.v = t->v;
    t->p.ff = k_tri_ff;
    t->p.fv = k_tri_fv;
    t->p.pl = t->pl;
    t->p.e = k_tri_e;
    double r2 = 0.0;
    for (int k = 0; k < 3; ++k)
        t->p.center[k] = (tri[k] + tri[3 + k] + tri[6 + k]) / 3.0;
    for (int v = 0; v < 3; ++v) {
        double w[3];
        sub3(tri + 3 * v, t->p.center, w);
        r2 = fmax(r2, dot3(w, w));
    }
    t->p.size = sqrt(r2);
}

static void hull_poly_init(poly *p, const mo_cl_hull *h)
{
    p->nv = h->nverts;
    p->nf = h->nfaces;
    p->ne = h->nedges;
    p->v = h->verts;
    p->ff = h->face_first;
    p->fv = h->face_verts;
    p->pl = h->planes;
    p->e = h->edges;
    copy3(h->center, p->center);
    p->size = h->radius;
    if (!(p->size > 0.0)) {
        double r2 = 0.0;
        for (int v = 0; v < h->nverts; ++v) {
            double w[3];
            sub3(h->verts + 3 * v, h->center, w);
            r2 = fmax(r2, dot3(w, w));
        }
        p->size = sqrt(r2);
    }
}

/* smallest distance from the centre to a face plane (box: the smallest half extent) */
static double poly_inradius(const poly *p)
{
    double r = HUGE_VAL;
    for (int f = 0; f < p->nf; ++f)
        r = fmin(r, p->pl[4 * f + 3] - dot3(p->pl + 4 * f, p->center));
    return r > 0.0 ? r : 0.0;
}

/* ---- cores ---- */

enum { CV_POINT, CV_SEGMENT, CV_CYLINDER, CV_POLY };

typedef struct cvx {
    int kind;
    double c[3];   /* world position of the local origin */
    double R[9];   /* world = R local */
    double hh;     /* segment, cylinder: half height along local z */
    double rad;    /* cylinder radius */
    double r;      /* rounding radius (sphere, capsule) */
    const poly *p; /* CV_POLY */
    double cen[3]; /* world interior point */
    double size;   /* length scale */
} cvx;

/* storage a cvx may point into */
typedef struct cvx_store {
    box_poly box;
    poly hull;
} cvx_store;

static void cvx_from_object(cvx *s, const mo_cl_object *o, cvx_store *st)
{
    copy3(o->pos, s->c);
    memcpy(s->R, o->rot, sizeof s->R);
    s->hh = 0.0;
    s->rad = 0.0;
    s->r = 0.0;
    s->p = NULL;
    switch (o->type) {
    case MO_CL_SPHERE:
        s->kind = CV_POINT;
        s->r = o->radius;
        s->size = fabs(o->radius);
        break;
    case MO_CL_CAPSULE:
        s->kind = CV_SEGMENT;
        s->hh = o->half_height;
        s->r = o->radius;
        s->size = o->half_height + o->radius;
        break;
    case MO_CL_CYLINDER:
        s->kind = CV_CYLINDER;
        s->hh = o->half_height;
        s->rad = o->radius;
        s->size = sqrt(o->radius * o->radius + o->half_height * o->half_height);
        break;
    case MO_CL_BOX:
        box_poly_init(&st->box, o->he);
        s->kind = CV_POLY;
        s->p = &st->box.p;
        s->size = st->box.p.size;
        break;
    default: /* MO_CL_HULL */
        hull_poly_init(&st->hull, o->hull);
        s->kind = CV_POLY;
        s->p = &st->hull;
        s->size = st->hull.size;
        break;
    }
    if (s->kind == CV_POLY) {
        double w[3];
        mat_vec(s->R, s->p->center, w);
        madd3(s->c, 1.0, w, s->cen);
    } else {
        copy3(s->c, s->cen);
    }
    if (!(s->size > 0.0))
        s->size = 1e-9;
}

static void cvx_from_triangle(cvx *s, const tri_poly *t)
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    s->kind = CV_POLY;
    s->c[0] = s->c[1] = s->c[2] = 0.0;
    memcpy(s->R, I, sizeof s->R);
    s->hh = s->rad = s->r = 0.0;
    s->p = &t->p;
    copy3(t->p.center, s->cen);
    s->size = t->p.size > 0.0 ? t->p.size : 1e-9;
}

/* index of the polytope vertex furthest along local direction dl (first of ties) */
static int poly_support_index(const poly *p, const double *dl)
{
    int best = 0;
    double bd = -HUGE_VAL;
    for (int i = 0; i < p->nv; ++i) {
        double d = dot3(p->v + 3 * i, dl);
        if (d > bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

/* the core's point furthest along world direction d (any length) */
static void support(const cvx *s, const double *d, double *out)
{
    switch (s->kind) {
    case CV_POINT:
        copy3(s->c, out);
        return;
    case CV_SEGMENT: {
        double w[3];
        rot_col(s->R, 2, w);
        madd3(s->c, dot3(d, w) >= 0.0 ? s->hh : -s->hh, w, out);
        return;
    }
    case CV_CYLINDER: {
        double dl[3], pl[3];
        mat_tvec(s->R, d, dl);
        double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
        if (rho > 1e-300) {
            pl[0] = s->rad * dl[0] / rho;
            pl[1] = s->rad * dl[1] / rho;
        } else {
            pl[0] = pl[1] = 0.0;
        }
        pl[2] = dl[2] >= 0.0 ? s->hh : -s->hh;
        mat_vec(s->R, pl, out);
        madd3(s->c, 1.0, out, out);
        return;
    }
    default: {
        double dl[3];
        mat_tvec(s->R, d, dl);
        int i = poly_support_index(s->p, dl);
        mat_vec(s->R, s->p->v + 3 * i, out);
        madd3(s->c, 1.0, out, out);
        return;
    }
    }
}

/* h(d) = max over the core of d.x */
static double support_value(const cvx *s, const double *d)
{
    double x[3];
    support(s, d, x);
    return dot3(d, x);
}

/* separation of b's core from a's along unit u (a to b): min_b u.x - max_a u.x */
static double sep_along(const cvx *A, const cvx *B, const double *u)
{
    double mu[3] = {-u[0], -u[1], -u[2]};
    return -support_value(B, mu) - support_value(A, u);
}

/* world vertex i, face normal / offset, edge of a polytope core */
static inline void poly_vertex(const cvx *s, int i, double *out)
{
    mat_vec(s->R, s->p->v + 3 * i, out);
    madd3(s->c, 1.0, out, out);
}

static inline double poly_plane(const cvx *s, int f, double *n)
{
    mat_vec(s->R, s->p->pl + 4 * f, n);
    return s->p->pl[4 * f + 3] + dot3(n, s->c);
}

/* ---- GJK distance between cores ---- */

typedef struct sv {
    double w[3], a[3], b[3]; /* w = a - b */
} sv;

typedef struct gjk_res {
    double dist;
    double pa[3], pb[3]; /* closest points of the cores */
    int overlap;         /* cores intersect (or closer than k_touch_rel * size) */
    int enclosed;        /* the final simplex is a tetrahedron holding the origin */
    sv simplex[4];       /* final simplex (enclosed: the tetrahedron, for EPA) */
    double v[3];         /* last closest point of A - B to the origin */
} gjk_res;

static void support_pair(const cvx *A, const cvx *B, const double *d, sv *out)
{
    double nd[3] = {-d[0], -d[1], -d[2]};
    support(A, d, out->a);
    support(B, nd, out->b);
    sub3(out->a, out->b, out->w);
}

/* closest point to the origin on segment / triangle of simplex points; reduces
   s to the supporting sub-simplex with weights lam; returns its size */
static int closest_segment(sv *s, double *lam)
{
    double ab[3];
    sub3(s[1].w, s[0].w, ab);
    double den = dot3(ab, ab);
    double t = den > 0.0 ? -dot3(s[0].w, ab) / den : 1.0;
    if (t <= 0.0) {
        lam[0] = 1.0;
        return 1;
    }
    if (t >= 1.0) {
        s[0] = s[1];
        lam[0] = 1.0;
        return 1;
    }
    lam[0] = 1.0 - t;
    lam[1] = t;
    return 2;
}

static int closest_triangle(sv *s, double *lam)
{
    const double *a = s[0].w, *b = s[1].w, *c = s[2].w;
    double ab[3], ac[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    double d1 = -dot3(ab, a), d2 = -dot3(ac, a);
    if (d1 <= 0.0 && d2 <= 0.0) {
        lam[0] = 1.0;
        return 1;
    }
    double d3 = -dot3(ab, b), d4 = -dot3(ac, b);
    if (d3 >= 0.0 && d4 <= d3) {
        s[0] = s[1];
        lam[0] = 1.0;
        return 1;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        lam[0] = 1.0 - v;
        lam[1] = v;
        return 2;
    }
    double d5 = -dot3(ab, c), d6 = -dot3(ac, c);
    if (d6 >= 0.0 && d5 <= d6) {
        s[0] = s[2];
        lam[0] = 1.0;
        return 1;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        s[1] = s[2];
        lam[0] = 1.0 - w;
        lam[1] = w;
        return 2;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        s[0] = s[1];
        s[1] = s[2];
        lam[0] = 1.0 - w;
        lam[1] = w;
        return 2;
    }
    double sum = va + vb + vc;
    if (!(sum > 0.0)) { /* degenerate (collinear): best edge */
        sv e[2] = {s[0], s[2]};
        double l[2] = {1.0, 0.0};
        int n = closest_segment(e, l);
        s[0] = e[0];
        s[1] = e[1];
        lam[0] = l[0];
        lam[1] = l[1];
        return n;
    }
    lam[1] = vb / sum;
    lam[2] = vc / sum;
    lam[0] = 1.0 - lam[1] - lam[2];
    return 3;
}

static void simplex_point(const sv *s, const double *lam, int n, double *v)
{
    v[0] = v[1] = v[2] = 0.0;
    for (int i = 0; i < n; ++i)
        madd3(v, lam[i], s[i].w, v);
}

static int closest_tetra(sv *s, double *lam)
{
    /* faces (i, j, k) opposite l; origin outside a face when it and l are on
       opposite sides of its plane */
    static const int F[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    double best = HUGE_VAL;
    sv bs[3];
    double bl[3] = {1.0, 0.0, 0.0};
    int bn = 0, any = 0;
    for (int f = 0; f < 4; ++f) {
        const double *a = s[F[f][0]].w, *b = s[F[f][1]].w, *c = s[F[f][2]].w, *d = s[F[f][3]].w;
        double ab[3], ac[3], nrm[3], ad[3];
        sub3(b, a, ab);
        sub3(c, a, ac);
        cross3(ab, ac, nrm);
        sub3(d, a, ad);
        double sp = -dot3(nrm, a), sd = dot3(nrm, ad);
        if (!(sp * sd < 0.0) && sd != 0.0)
            continue;
        any = 1;
        sv t[3] = {s[F[f][0]], s[F[f][1]], s[F[f][2]]};
        double l[3], v[3];
        int n = closest_triangle(t, l);
        simplex_point(t, l, n, v);
        double dd = dot3(v, v);
        if (dd < best) {
            best = dd;
            bn = n;
            for (int i = 0; i < n; ++i) {
                bs[i] = t[i];
                bl[i] = l[i];
            }
        }
    }
    if (!any)
        return 4; /* origin inside */
    for (int i = 0; i < bn; ++i) {
        s[i] = bs[i];
        lam[i] = bl[i];
    }
    return bn;
}

static void gjk(const cvx *A, const cvx *B, gjk_res *res)
{
    sv s[4];
    double lam[4] = {1.0, 0.0, 0.0, 0.0};
    double d[3];
    sub3(B->cen, A->cen, d);
    if (!(dot3(d, d) > 0.0)) {
        d[0] = 1.0;
        d[1] = d[2] = 0.0;
    }
    support_pair(A, B, d, &s[0]);
    int n = 1;
    double v[3];
    copy3(s[0].w, v);
    double scale = A->size + B->size;
    double touch = k_touch_rel * scale;
    res->overlap = 0;
    res->enclosed = 0;
    for (int it = 0; it < GJK_ITERS; ++it) {
        double vv = dot3(v, v);
        if (!(vv > touch * touch)) {
            res->overlap = 1;
            break;
        }
        double dir[3] = {-v[0], -v[1], -v[2]};
        sv w;
        support_pair(A, B, dir, &w);
        if (vv - dot3(v, w.w) <= k_gjk_rel * vv)
            break;
        int dup = 0;
        for (int i = 0; i < n; ++i)
            dup |= w.w[0] == s[i].w[0] && w.w[1] == s[i].w[1] && w.w[2] == s[i].w[2];
        if (dup)
            break;
        s[n++] = w;
        if (n == 2)
            n = closest_segment(s, lam);
        else if (n == 3)
            n = closest_triangle(s, lam);
        else
            n = closest_tetra(s, lam);
        if (n == 4) {
            res->overlap = 1;
            res->enclosed = 1;
            for (int i = 0; i < 4; ++i)
                res->simplex[i] = s[i];
            break;
        }
        double nv[3];
        simplex_point(s, lam, n, nv);
        double nvv = dot3(nv, nv);
        copy3(nv, v);
        if (!(nvv < vv))
            break; /* no progress */
    }
    if (n > 3)
        n = 3;
    res->pa[0] = res->pa[1] = res->pa[2] = 0.0;
    res->pb[0] = res->pb[1] = res->pb[2] = 0.0;
    for (int i = 0; i < n; ++i) {
        madd3(res->pa, lam[i], s[i].a, res->pa);
        madd3(res->pb, lam[i], s[i].b, res->pb);
    }
    res->dist = norm3(v);
    copy3(v, res->v);
    if (!(res->dist > touch))
        res->overlap = 1;
}

/* ---- EPA: penetration of overlapping cores, fixed capacity ---- */

#define EPA_V 128
#define EPA_F 256
#define EPA_E 128
#define EPA_ITERS 100

typedef struct epa_face {
    int v[3];
    double n[3]; /* outward unit normal */
    double d;    /* distance of the origin to the face plane */
    int alive;
} epa_face;

static int epa_face_set(epa_face *f, const sv *V, int a, int b, int c)
{
    double ab[3], ac[3];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    sub3(V[b].w, V[a].w, ab);
    sub3(V[c].w, V[a].w, ac);
    cross3(ab, ac, f->n);
    f->alive = 1;
    if (!normalize3(f->n))
        return 0;
    f->d = dot3(f->n, V[a].w);
    return 1;
}

/* Expanding polytope (van den Bergen) from GJK's tetrahedron around the
   origin in A - B: the face nearest the origin, refined by support points
   until within tolerance. Writes the outward normal n of A - B there (the
   direction b must move: from a to b) and the depth; 0 when it fails
   (degenerate start, capacity). */
static int epa(const cvx *A, const cvx *B, const sv *tet, double *n, double *depth)
{
    sv V[EPA_V];
    epa_face F[EPA_F];
    int nv = 4, nf = 0;
    for (int i = 0; i < 4; ++i)
        V[i] = tet[i];
    double c[3] = {0, 0, 0};
    for (int i = 0; i < 4; ++i)
        madd3(c, 0.25, V[i].w, c);
    static const int T[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (int f = 0; f < 4; ++f) {
        int a = T[f][0], b = T[f][1], d = T[f][2];
        double ab[3], ad[3], nn[3], ca[3];
        sub3(V[b].w, V[a].w, ab);
        sub3(V[d].w, V[a].w, ad);
        cross3(ab, ad, nn);
        sub3(V[a].w, c, ca);
        if (dot3(nn, ca) < 0.0) {
            int t = b;
            b = d;
            d = t;
        }
        if (!epa_face_set(&F[nf++], V, a, b, d))
            return 0;
    }
    double scale = A->size + B->size;
    int best = -1;
    for (int it = 0; it < EPA_ITERS; ++it) {
        best = -1;
        for (int f = 0; f < nf; ++f)
            if (F[f].alive && (best < 0 || F[f].d < F[best].d))
                best = f;
        if (best < 0)
            return 0;
        sv w;
        support_pair(A, B, F[best].n, &w);
        double dw = dot3(F[best].n, w.w);
        if (dw - F[best].d <= 1e-12 * scale + 1e-9 * fabs(F[best].d))
            break;
        if (nv >= EPA_V || nf > EPA_F - EPA_E)
            break; /* full: the nearest face so far */
        /* faces seen from w go; their boundary (edges used once) is the horizon */
        int E[EPA_E][2], ne = 0, overflow = 0;
        for (int f = 0; f < nf; ++f) {
            if (!F[f].alive)
                continue;
            double q[3];
            sub3(w.w, V[F[f].v[0]].w, q);
            if (!(dot3(F[f].n, q) > 1e-14 * scale))
                continue;
            F[f].alive = 0;
            for (int e = 0; e < 3; ++e) {
                int a = F[f].v[e], b = F[f].v[(e + 1) % 3], found = -1;
                for (int k = 0; k < ne && found < 0; ++k)
                    if (E[k][0] == b && E[k][1] == a)
                        found = k;
                if (found >= 0) {
                    E[found][0] = E[ne - 1][0];
                    E[found][1] = E[ne - 1][1];
                    --ne;
                } else if (ne < EPA_E) {
                    E[ne][0] = a;
                    E[ne][1] = b;
                    ++ne;
                } else {
                    overflow = 1;
                }
            }
        }
        if (overflow || ne < 3)
            return 0;
        /* compact dead faces, then add the cone from w */
        int m = 0;
        for (int f = 0; f < nf; ++f)
            if (F[f].alive)
                F[m++] = F[f];
        nf = m;
        if (nf + ne > EPA_F)
            return 0;
        V[nv] = w;
        for (int k = 0; k < ne; ++k)
            if (!epa_face_set(&F[nf++], V, E[k][0], E[k][1], nv))
                F[nf - 1].alive = 0;
        ++nv;
    }
    best = -1;
    for (int f = 0; f < nf; ++f)
        if (F[f].alive && (best < 0 || F[f].d < F[best].d))
            best = f;
    if (best < 0 || !(F[best].d >= -1e-12 * scale))
        return 0;
    copy3(F[best].n, n);
    *depth = F[best].d;
    return 1;
}

/* ---- support features ---- */

enum { FK_VERTEX = 0, FK_EDGE = 1, FK_FACE = 2, FK_CURVED = 3 };

typedef struct feature {
    int n;                 /* 1 point, 2 segment, >= 3 polygon (counter-clockwise about nrm) */
    double p[FEAT_CAP][3]; /* world points on the core */
    int lab[FEAT_CAP];     /* label of each point (the polygon edge leaving it) */
    double nrm[3];         /* polygon: outward unit normal */
    uint32_t code;         /* kind << 12 | index */
    int exact;             /* polygon is the true face (polytope): side planes grown by the slop */
} feature;

static inline uint32_t fcode(int kind, int index)
{
    return (uint32_t)kind << 12 | ((uint32_t)index & 0xFFFu);
}

/* 10-bit form: kind << 8 | index */
static inline uint32_t fcode10(uint32_t code)
{
    return (code >> 12 & 3u) << 8 | (code & 0xFFu);
}

static inline uint32_t single_id(uint32_t ca, uint32_t cb)
{
    return 1u << 31 | (ca & 0x7FFFu) << 15 | (cb & 0x7FFFu);
}

/* face f of a polytope core (more than FEAT_CAP vertices: evenly subsampled) */
static void poly_face_feature(const cvx *s, int f, feature *F)
{
    const poly *p = s->p;
    int first = p->ff[f], cnt = p->ff[f + 1] - first;
    int n = cnt < FEAT_CAP ? cnt : FEAT_CAP;
    for (int i = 0; i < n; ++i) {
        int j = (cnt <= FEAT_CAP) ? i : (int)((long long)i * cnt / FEAT_CAP);
        poly_vertex(s, p->fv[first + j], F->p[i]);
        F->lab[i] = j & 15;
    }
    F->n = n;
    mat_vec(s->R, p->pl + 4 * f, F->nrm);
    F->code = fcode(FK_FACE, f);
    F->exact = 1;
}

/* fixed rim directions of a cylinder cap: angle k * 45 deg in the local xy plane */
static const double k_rim[8][2] = {{1, 0},
                                   {0.70710678118654752, 0.70710678118654752},
                                   {0, 1},
                                   {-0.70710678118654752, 0.70710678118654752},
                                   {-1, 0},
                                   {-0.70710678118654752, -0.70710678118654752},
                                   {0, -1},
                                   {0.70710678118654752, -0.70710678118654752}};

/* cap polygon of a cylinder, cap side sg (+1: +z), counter-clockwise seen from
   outside; dl: local feature direction, its deepest rim point inserted when the
   direction is tilted off the axis by more than k_tilt */
static void cylinder_cap_feature(const cvx *s, double sg, const double *dl, feature *F)
{
    double pts[9][2];
    int labs[9], m = 0;
    double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
    double len = norm3(dl);
    double rx = 0.0, ry = 0.0;
    int ins_after = -1;
    if (rho > k_tilt * len) {
        rx = dl[0] / rho;
        ry = dl[1] / rho;
        int jb = 0;
        double bd = -2.0;
        for (int j = 0; j < 8; ++j) {
            double dj = k_rim[j][0] * rx + k_rim[j][1] * ry;
            if (dj > bd) {
                bd = dj;
                jb = j;
            }
        }
        if (bd < 1.0 - 5e-7) {
            double cr = k_rim[jb][0] * ry - k_rim[jb][1] * rx; /* > 0: after jb */
            ins_after = cr > 0.0 ? jb : (jb + 7) % 8;
        }
    }
    for (int j = 0; j < 8; ++j) {
        pts[m][0] = k_rim[j][0];
        pts[m][1] = k_rim[j][1];
        labs[m++] = j;
        if (j == ins_after) {
            pts[m][0] = rx;
            pts[m][1] = ry;
            labs[m++] = 8 + j;
        }
    }
    for (int i = 0; i < m; ++i) {
        int j = sg > 0.0 ? i : m - 1 - i; /* -z cap: clockwise in local xy */
        double pl[3] = {s->rad * pts[j][0], s->rad * pts[j][1], sg * s->hh};
        mat_vec(s->R, pl, F->p[i]);
        madd3(s->c, 1.0, F->p[i], F->p[i]);
        F->lab[i] = labs[j];
    }
    F->n = m;
    double w[3];
    rot_col(s->R, 2, w);
    for (int k = 0; k < 3; ++k)
        F->nrm[k] = sg * w[k];
    F->code = fcode(FK_FACE, sg > 0.0);
    F->exact = 0; /* inscribed in the disk: a grown side would leave it */
}

/* the support feature of a core along unit direction d */
static void get_feature(const cvx *s, const double *d, feature *F)
{
    const double feat_cos = sqrt(1.0 - k_feat_sin * k_feat_sin);
    switch (s->kind) {
    case CV_POINT:
        F->n = 1;
        copy3(s->c, F->p[0]);
        F->lab[0] = 0;
        F->code = fcode(FK_VERTEX, 0);
        return;
    case CV_SEGMENT: {
        double w[3];
        rot_col(s->R, 2, w);
        double k = dot3(d, w);
        if (s->hh > 0.0 && fabs(k) <= k_feat_sin) {
            F->n = 2;
            madd3(s->c, -s->hh, w, F->p[0]);
            madd3(s->c, s->hh, w, F->p[1]);
            F->lab[0] = 0;
            F->lab[1] = 1;
            F->code = fcode(FK_EDGE, 0);
        } else {
            F->n = 1;
            madd3(s->c, k >= 0.0 ? s->hh : -s->hh, w, F->p[0]);
            F->lab[0] = k >= 0.0;
            F->code = fcode(FK_VERTEX, k >= 0.0);
        }
        return;
    }
    case CV_CYLINDER: {
        double dl[3];
        mat_tvec(s->R, d, dl);
        double rho = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
        if (fabs(dl[2]) >= feat_cos || !(rho > 0.0)) {
            cylinder_cap_feature(s, dl[2] >= 0.0 ? 1.0 : -1.0, dl, F);
            return;
        }
        double rl[3] = {s->rad * dl[0] / rho, s->rad * dl[1] / rho, 0.0};
        if (fabs(dl[2]) <= k_feat_sin) {
            for (int e = 0; e < 2; ++e) {
                double pl[3] = {rl[0], rl[1], e ? s->hh : -s->hh};
                mat_vec(s->R, pl, F->p[e]);
                madd3(s->c, 1.0, F->p[e], F->p[e]);
                F->lab[e] = e;
            }
            F->n = 2;
            F->code = fcode(FK_CURVED, 0);
        } else {
            double pl[3] = {rl[0], rl[1], dl[2] >= 0.0 ? s->hh : -s->hh};
            mat_vec(s->R, pl, F->p[0]);
            madd3(s->c, 1.0, F->p[0], F->p[0]);
            F->lab[0] = 0;
            F->n = 1;
            F->code = fcode(FK_CURVED, 1 + (dl[2] >= 0.0));
        }
        return;
    }
    default: {
        const poly *p = s->p;
        double dl[3];
        mat_tvec(s->R, d, dl);
        int fb = 0;
        double bd = -HUGE_VAL;
        for (int f = 0; f < p->nf; ++f) {
            double c = dot3(p->pl + 4 * f, dl);
            if (c > bd) {
                bd = c;
                fb = f;
            }
        }
        if (bd >= feat_cos) {
            poly_face_feature(s, fb, F);
            return;
        }
        int v = poly_support_index(p, dl);
        int eb = -1, ub = -1;
        double best = k_feat_sin;
        for (int e = 0; e < p->ne; ++e) {
            int i0 = p->e[2 * e], i1 = p->e[2 * e + 1];
            if (i0 != v && i1 != v)
                continue;
            int u = i0 == v ? i1 : i0;
            double ev[3];
            sub3(p->v + 3 * u, p->v + 3 * v, ev);
            double l = norm3(ev);
            if (!(l > 0.0))
                continue;
            double c = fabs(dot3(ev, dl)) / l;
            if (c <= best) {
                best = c;
                eb = e;
                ub = u;
            }
        }
        if (eb >= 0) {
            int lo = v < ub ? v : ub, hi = v < ub ? ub : v;
            poly_vertex(s, lo, F->p[0]);
            poly_vertex(s, hi, F->p[1]);
            F->lab[0] = 0;
            F->lab[1] = 1;
            F->n = 2;
            F->code = fcode(FK_EDGE, eb);
            return;
        }
        F->n = 1;
        poly_vertex(s, v, F->p[0]);
        F->lab[0] = 0;
        F->code = fcode(FK_VERTEX, v);
        return;
    }
    }
}

/* ---- clipping a feature against a reference polygon ---- */

/* Sutherland-Hodgman against sx x + sy y <= off. A point created where the
   polygon leaves the half-plane starts an edge along the clip line (label); one
   created where it re-enters continues the crossed edge's label (box/box's) */
static int clip_half(const mo_cl_clip_pt *in, int n, double sx, double sy, double off, int label,
                     mo_cl_clip_pt *out)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const mo_cl_clip_pt *p = &in[i];
        const mo_cl_clip_pt *q = (i + 1 < n) ? &in[i + 1] : &in[0];
        double fp = sx * p->x + sy * p->y - off;
        double fq = sx * q->x + sy * q->y - off;
        if (fp <= 0.0) {
            if (m < MO_CL_CLIP_CAP)
                out[m++] = *p;
            if (fq > 0.0 && m < MO_CL_CLIP_CAP) {
                double t = fp / (fp - fq);
                mo_cl_clip_pt r = {p->x + t * (q->x - p->x), p->y + t * (q->y - p->y),
                                   p->z + t * (q->z - p->z), label};
                out[m++] = r;
            }
        } else if (fq <= 0.0 && m < MO_CL_CLIP_CAP) {
            double t = fp / (fp - fq);
            mo_cl_clip_pt r = {p->x + t * (q->x - p->x), p->y + t * (q->y - p->y), p->z + t * (q->z - p->z),
                               p->label};
            out[m++] = r;
        }
    }
    return m;
}

/* Contacts of feature inc clipped against the reference polygon ref (a face of
   a when ref_is_b = 0). n: contact normal from a to b; ra, rb: rounding radii;
   cut: keep gap < cut. The incident points lie on their core; each gap is the
   distance from the reference plane along n. */
static int clip_features(const feature *ref, const feature *inc, int ref_is_b, const double *n, double ra,
                         double rb, double cut, mo_cl_contact *out)
{
    const double *nf = ref->nrm;
    const double *o = ref->p[0];
    double u[3], v[3];
    sub3(ref->p[1], o, u);
    madd3(u, -dot3(u, nf), nf, u);
    if (!normalize3(u))
        any_perp(nf, u);
    cross3(nf, u, v);
    double cosn = (ref_is_b ? -1.0 : 1.0) * dot3(nf, n);
    if (!(cosn > 0.1))
        return 0;

    /* side lines of the reference polygon, outward, grown by the slop */
    int nr = ref->n;
    double rx[FEAT_CAP], ry[FEAT_CAP], perim = 0.0;
    for (int i = 0; i < nr; ++i) {
        double w[3];
        sub3(ref->p[i], o, w);
        rx[i] = dot3(w, u);
        ry[i] = dot3(w, v);
    }
    double sx[FEAT_CAP], sy[FEAT_CAP], so[FEAT_CAP];
    int ns = 0;
    for (int i = 0; i < nr; ++i) {
        int j = (i + 1 < nr) ? i + 1 : 0;
        double ex = rx[j] - rx[i], ey = ry[j] - ry[i];
        double l = sqrt(ex * ex + ey * ey);
        perim += l;
        if (!(l > 0.0))
            continue;
        sx[ns] = ey / l;
        sy[ns] = -ex / l;
        so[ns] = sx[ns] * rx[i] + sy[ns] * ry[i];
        ++ns;
    }
    double slop = ref->exact ? k_slop_rel * perim * 0.25 : 0.0;

    /* incident feature in reference coordinates */
    mo_cl_clip_pt A[MO_CL_CLIP_CAP], B[MO_CL_CLIP_CAP];
    int lab_pair[MO_CL_CLIP_CAP][2];
    int m = inc->n;
    for (int i = 0; i < m; ++i) {
        double w[3];
        sub3(inc->p[i], o, w);
        A[i].x = dot3(w, u);
        A[i].y = dot3(w, v);
        A[i].z = dot3(w, nf);
        A[i].label = inc->lab[i] & 15;
    }
    mo_cl_clip_pt *P = A;
    if (m >= 3) {
        mo_cl_clip_pt *Q = B;
        for (int i = 0; i < ns && m > 0; ++i) {
            m = clip_half(P, m, sx[i], sy[i], so[i] + slop, 16 + (i & 15), Q);
            mo_cl_clip_pt *t = P;
            P = Q;
            Q = t;
        }
        for (int i = 0; i < m; ++i) {
            lab_pair[i][0] = P[(i > 0) ? i - 1 : m - 1].label;
            lab_pair[i][1] = P[i].label;
        }
    } else if (m == 2) {
        /* segment: parameter range [t0, t1] */
        double t0 = 0.0, t1 = 1.0;
        int c0 = -1, c1 = -1;
        for (int i = 0; i < ns; ++i) {
            double f0 = sx[i] * A[0].x + sy[i] * A[0].y - so[i] - slop;
            double f1 = sx[i] * A[1].x + sy[i] * A[1].y - so[i] - slop;
            if (f0 > 0.0 && f1 > 0.0) {
                t0 = 1.0;
                t1 = 0.0;
                break;
            }
            if (f0 > 0.0) {
                double t = f0 / (f0 - f1);
                if (t > t0) {
                    t0 = t;
                    c0 = i;
                }
            } else if (f1 > 0.0) {
                double t = f0 / (f0 - f1);
                if (t < t1) {
                    t1 = t;
                    c1 = i;
                }
            }
        }
        if (!(t0 <= t1)) {
            m = 0;
        } else {
            mo_cl_clip_pt e0 = A[0], e1 = A[1];
            double ts[2] = {t0, t1};
            int cs[2] = {c0, c1};
            m = (t1 - t0 > 1e-12) ? 2 : 1;
            for (int k = 0; k < m; ++k) {
                double t = ts[k];
                B[k].x = e0.x + t * (e1.x - e0.x);
                B[k].y = e0.y + t * (e1.y - e0.y);
                B[k].z = e0.z + t * (e1.z - e0.z);
                lab_pair[k][0] = inc->lab[k] & 15;
                lab_pair[k][1] = cs[k] >= 0 ? 16 + (cs[k] & 15) : (inc->lab[k] & 15);
            }
            P = B;
        }
    } else {
        /* one point: kept when inside the reference polygon */
        for (int i = 0; i < ns; ++i)
            if (sx[i] * A[0].x + sy[i] * A[0].y > so[i] + slop)
                m = 0;
        lab_pair[0][0] = lab_pair[0][1] = inc->lab[0] & 15;
    }

    /* gaps along n; keep those under the cut */
    uint32_t base = (uint32_t)(ref_is_b != 0) << 30 | (ref->code & 0x3FFu) << 20 | fcode10(inc->code) << 10;
    mo_cl_clip_pt keep[MO_CL_CLIP_CAP];
    double zr[MO_CL_CLIP_CAP];
    uint32_t ids[MO_CL_CLIP_CAP];
    int nk = 0;
    for (int i = 0; i < m; ++i) {
        double gap = P[i].z / cosn - ra - rb;
        if (!(gap < cut))
            continue;
        int l0 = lab_pair[i][0], l1 = lab_pair[i][1];
        if (l0 > l1) {
            int t = l0;
            l0 = l1;
            l1 = t;
        }
        keep[nk] = P[i];
        keep[nk].z = gap;
        zr[nk] = P[i].z;
        ids[nk] = base | (uint32_t)(l0 << 5 | l1);
        ++nk;
    }
    int sel[4] = {0, 1, 2, 3};
    if (nk > MO_CL_MAX_POINTS) {
        mo_cl_reduce_points(keep, ids, nk, slop, sel);
        nk = MO_CL_MAX_POINTS;
    }
    for (int i = 0; i < nk; ++i) {
        const mo_cl_clip_pt *c = &keep[sel[i]];
        double x[3], pa[3];
        for (int k = 0; k < 3; ++k)
            x[k] = o[k] + c->x * u[k] + c->y * v[k] + zr[sel[i]] * nf[k];
        if (ref_is_b) {
            madd3(x, ra, n, pa); /* x on a's core */
        } else {
            madd3(x, -rb, n, pa); /* x on b's core: point_b, then back by the gap */
            madd3(pa, -c->z, n, pa);
        }
        mo_cl_set_contact(&out[i], n, pa, c->z, ids[sel[i]]);
    }
    return nk;
}

/* two nearly parallel segment features: the two ends of their overlap */
static int segment_pair(const feature *FA, const feature *FB, const double *n, double ra, double rb, double cut,
                        mo_cl_contact *out)
{
    double ua[3], ub[3];
    sub3(FA->p[1], FA->p[0], ua);
    sub3(FB->p[1], FB->p[0], ub);
    double la = norm3(ua), lb = norm3(ub);
    if (!(la > 0.0) || !(lb > 0.0))
        return 0;
    for (int k = 0; k < 3; ++k) {
        ua[k] /= la;
        ub[k] /= lb;
    }
    double cr[3];
    cross3(ua, ub, cr);
    if (!(norm3(cr) <= k_feat_sin))
        return 0;
    double w0[3], w1[3];
    sub3(FB->p[0], FA->p[0], w0);
    sub3(FB->p[1], FA->p[0], w1);
    double s0 = dot3(ua, w0), s1 = dot3(ua, w1);
    double blo = fmin(s0, s1), bhi = fmax(s0, s1);
    double lo = fmax(0.0, blo), hi = fmin(la, bhi);
    if (!(hi - lo > 1e-9 * (la + lb)))
        return 0;
    double ts[2] = {lo, hi};
    int from_b[2] = {blo > 0.0, bhi < la};
    uint32_t base = 3u << 30 | fcode10(FA->code) << 20 | fcode10(FB->code) << 10;
    int nk = 0;
    for (int e = 0; e < 2; ++e) {
        double xa[3], xb[3], w[3];
        madd3(FA->p[0], ts[e], ua, xa);
        sub3(xa, FB->p[0], w);
        double t = clampd(dot3(w, ub), 0.0, lb);
        madd3(FB->p[0], t, ub, xb);
        sub3(xb, xa, w);
        double gap = dot3(n, w) - ra - rb;
        if (!(gap < cut))
            continue;
        double pa[3];
        madd3(xa, ra, n, pa);
        mo_cl_set_contact(&out[nk++], n, pa, gap, base | (uint32_t)(2 * e + from_b[e]));
    }
    return nk;
}

/* Contacts of cores A and B along normal n (a to b) with the deepest gap
   `gap` (rounding included): the feature manifold, else one contact (at the
   GJK witness wa on a's core when given) */
static int make_manifold(const cvx *A, const cvx *B, const double *n, double gap, const double *wa, double cut,
                         mo_cl_contact *out)
{
    feature FA, FB;
    double nn[3] = {-n[0], -n[1], -n[2]};
    get_feature(A, n, &FA);
    get_feature(B, nn, &FB);
    double ra = A->r, rb = B->r;
    int k = 0;
    if (FA.n >= 3 || FB.n >= 3) {
        int use_b = FA.n < 3 || (FB.n >= 3 && -dot3(FB.nrm, n) > dot3(FA.nrm, n) + 1e-6);
        k = use_b ? clip_features(&FB, &FA, 1, n, ra, rb, cut, out) : clip_features(&FA, &FB, 0, n, ra, rb, cut, out);
    } else if (FA.n == 2 && FB.n == 2) {
        k = segment_pair(&FA, &FB, n, ra, rb, cut, out);
    }
    /* the manifold, unless the features (within their angle tolerance) miss
       the deepest point clearly: then that point too (in place of the
       shallowest when full) */
    if (k > 0) {
        int shallow = 0;
        for (int i = 1; i < k; ++i)
            if (out[i].gap > out[shallow].gap)
                shallow = i;
        double gmin = out[0].gap;
        for (int i = 1; i < k; ++i)
            gmin = fmin(gmin, out[i].gap);
        if (!(gap < gmin - 1e-4 * (A->size + B->size)))
            return k;
        if (k == MO_CL_MAX_POINTS)
            out[shallow] = out[--k];
    }
    if (!(gap < cut))
        return k;
    out += k;

    /* one contact */
    double pa[3];
    double gc = gap + ra + rb; /* core gap */
    if (wa) {
        madd3(wa, ra, n, pa);
    } else if (FA.n == 1) {
        madd3(FA.p[0], ra, n, pa);
    } else if (FB.n == 1) {
        madd3(FB.p[0], -gc, n, pa);
        madd3(pa, ra, n, pa);
    } else if (FA.n == 2 && FB.n == 2) {
        double da[3], db[3], qa[3], qb[3], s, t;
        sub3(FA.p[1], FA.p[0], da);
        sub3(FB.p[1], FB.p[0], db);
        segment_closest(FA.p[0], da, FB.p[0], db, &s, &t);
        madd3(FA.p[0], s, da, qa);
        madd3(FB.p[0], t, db, qb);
        for (int c = 0; c < 3; ++c)
            pa[c] = 0.5 * (qa[c] + qb[c]) - 0.5 * gc * n[c] + ra * n[c];
    } else if (FB.n >= 3) {
        /* a's deepest point into b's face */
        double qa[3];
        support(A, n, qa);
        madd3(qa, ra, n, pa);
    } else {
        double qb[3];
        support(B, nn, qb);
        madd3(qb, -gc + ra, n, pa);
    }
    mo_cl_set_contact(out, n, pa, gap, single_id(FA.code, FB.code));
    return k + 1;
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
    gjk(A, B, &g);
    if (!g.overlap) {
        double m[3];
        sub3(g.pb, g.pa, m);
        for (int k = 0; k < 3; ++k)
            m[k] /= g.dist;
        if (!(g.dist < cut))
            return 0;
        return make_manifold(A, B, m, g.dist, g.pa, cut, out);
    }
    if (!(sep < cut))
        return 0;
    return make_manifold(A, B, n, sep, NULL, cut, out);
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
    if (p->nf == 2 && p->ne == 3 && p->fv == k_tri_fv) {
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

static int collide_poly_poly(const cvx *A, const cvx *B, double cut, mo_cl_contact *out)
{
    const poly *PA = A->p, *PB = B->p;
    double n[3];

    /* face axes of a, then of b (a NaN separation also exits) */
    double sep_a = -HUGE_VAL, sep_b = -HUGE_VAL;
    int fa = 0, fb = 0;
    for (int f = 0; f < PA->nf; ++f) {
        double d = poly_plane(A, f, n);
        double mn[3] = {-n[0], -n[1], -n[2]};
        double s = -support_value(B, mn) - d;
        if (!(s <= cut))
            return 0;
        if (s > sep_a) {
            sep_a = s;
            fa = f;
        }
    }
    for (int f = 0; f < PB->nf; ++f) {
        double d = poly_plane(B, f, n);
        double mn[3] = {-n[0], -n[1], -n[2]};
        double s = -support_value(A, mn) - d;
        if (!(s <= cut))
            return 0;
        if (s > sep_b) {
            sep_b = s;
            fb = f;
        }
    }

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
    poly_face_feature(ref, fr, &FR);
    poly_face_feature(inc, fi, &FI);
    double nab[3] = {ref_is_b ? -nr[0] : nr[0], ref_is_b ? -nr[1] : nr[1], ref_is_b ? -nr[2] : nr[2]};
    int k = clip_features(&FR, &FI, ref_is_b, nab, 0.0, 0.0, cut, out);
    return k > 0 ? k : poly_fallback(A, B, nab, sep_f, cut, out);
}

/* ---- point or segment (a) against a polytope (b) ---- */

static int collide_round_poly(const cvx *S, const cvx *P, double cut, mo_cl_contact *out)
{
    gjk_res g;
    gjk(S, P, &g);
    if (!g.overlap) {
        double n[3];
        sub3(g.pb, g.pa, n);
        for (int k = 0; k < 3; ++k)
            n[k] /= g.dist;
        double gap = g.dist - S->r;
        if (!(gap < cut))
            return 0;
        return make_manifold(S, P, n, gap, g.pa, cut, out);
    }

    /* cores intersect: the polytope's faces, segment x polytope edges */
    const poly *p = P->p;
    double sep_f = -HUGE_VAL, sep_e = -HUGE_VAL, uf[3] = {0, 0, 1}, ue[3] = {0, 0, 1};
    for (int f = 0; f < p->nf; ++f) {
        double nf[3];
        double d = poly_plane(P, f, nf);
        double mn[3] = {-nf[0], -nf[1], -nf[2]};
        double s = -support_value(S, mn) - d; /* min over S of nf.x - d */
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
    return make_manifold(S, P, u, gap, NULL, cut, out);
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
    support(o->s, d, x);
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

static int collide_general(const cvx *A, const cvx *B, double cut, mo_cl_contact *out)
{
    gjk_res g;
    gjk(A, B, &g);
    if (!g.overlap) {
        double n[3];
        sub3(g.pb, g.pa, n);
        for (int k = 0; k < 3; ++k)
            n[k] /= g.dist;
        double gap = g.dist - A->r - B->r;
        if (!(gap < cut))
            return 0;
        return make_manifold(A, B, n, gap, g.pa, cut, out);
    }

    axis_best ab = {-HUGE_VAL, -HUGE_VAL, {0, 0, 1}, {0, 0, 1}};
    const cvx *S[2] = {A, B};
    double n_epa[3], depth;
    int have_epa = g.enclosed && epa(A, B, g.simplex, n_epa, &depth);
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
    return make_manifold(A, B, u, gap, NULL, cut, out);
}

/* ---- analytic pairs ---- */

int mo_cl_pair_sphere_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    double w[3], d[3];
    rot_col(b->rot, 2, w);
    double h = b->half_height;
    sub3(a->pos, b->pos, d);
    double t = clampd(dot3(w, d), -h, h);
    double q[3], dq[3];
    madd3(b->pos, t, w, q);
    sub3(q, a->pos, dq);
    double rsum = a->radius + b->radius;
    double dist = norm3(dq);
    if (!(dist < rsum + margin))
        return 0;
    double n[3];
    if (dist > 1e-12 * (h + b->radius + fabs(a->radius))) {
        for (int k = 0; k < 3; ++k)
            n[k] = dq[k] / dist;
    } else {
        any_perp(w, n); /* centre on the axis: any radial direction */
    }
    double pa[3];
    madd3(a->pos, a->radius, n, pa);
    uint32_t region = t <= -h ? 0u : (t >= h ? 2u : 1u);
    mo_cl_set_contact(out, n, pa, dist - rsum, region);
    return 1;
}

int mo_cl_pair_sphere_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    double d[3], p[3];
    sub3(a->pos, b->pos, d);
    mat_tvec(b->rot, d, p);
    double R = b->radius, h = b->half_height, rs = a->radius;
    double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
    double nl[3], gap;
    uint32_t region;
    if (rho > R || fabs(p[2]) > h) {
        double q[3] = {p[0], p[1], clampd(p[2], -h, h)};
        if (rho > R) {
            q[0] = R * p[0] / rho;
            q[1] = R * p[1] / rho;
        }
        double dl[3];
        sub3(p, q, dl);
        double dist = norm3(dl);
        if (!(dist < rs + margin) || !(dist > 0.0))
            return 0;
        for (int k = 0; k < 3; ++k)
            nl[k] = -dl[k] / dist;
        gap = dist - rs;
        if (rho > R)
            region = fabs(p[2]) > h ? 3u + (p[2] > 0.0) : 0u;
        else
            region = 1u + (p[2] > 0.0);
    } else {
        /* centre inside: out through the nearer of the side and the cap */
        double ds = R - rho, dc = h - fabs(p[2]);
        if (dc <= ds) {
            nl[0] = nl[1] = 0.0;
            nl[2] = p[2] >= 0.0 ? -1.0 : 1.0;
            gap = -(dc + rs);
            region = 1u + (p[2] >= 0.0);
        } else {
            double rx = 1.0, ry = 0.0;
            if (rho > 1e-12 * R) {
                rx = p[0] / rho;
                ry = p[1] / rho;
            }
            nl[0] = -rx;
            nl[1] = -ry;
            nl[2] = 0.0;
            gap = -(ds + rs);
            region = 0u;
        }
        if (!(gap < margin))
            return 0;
    }
    double n[3], pa[3];
    mat_vec(b->rot, nl, n);
    madd3(a->pos, rs, n, pa);
    mo_cl_set_contact(out, n, pa, gap, region);
    return 1;
}

int mo_cl_pair_capsule_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    double wa[3], wb[3], a0[3], b0[3], da[3], db[3], off[3];
    rot_col(a->rot, 2, wa);
    rot_col(b->rot, 2, wb);
    double ha = a->half_height, hb = b->half_height;
    madd3(a->pos, -ha, wa, a0);
    madd3(b->pos, -hb, wb, b0);
    for (int k = 0; k < 3; ++k) {
        da[k] = 2.0 * ha * wa[k];
        db[k] = 2.0 * hb * wb[k];
    }
    sub3(b->pos, a->pos, off);
    double rsum = a->radius + b->radius;
    double size = ha + hb + a->radius + b->radius;
    double cr[3];
    cross3(wa, wb, cr);

    /* closest points of the segments */
    double s, t, qa[3], qb[3], w[3];
    segment_closest(a0, da, b0, db, &s, &t);
    madd3(a0, s, da, qa);
    madd3(b0, t, db, qb);
    sub3(qb, qa, w);
    double dist = norm3(w);
    double n[3];
    if (dist > 1e-12 * size) {
        for (int k = 0; k < 3; ++k)
            n[k] = w[k] / dist;
    } else {
        /* axes touch: their common normal, oriented from a to b */
        copy3(cr, n);
        if (!normalize3(n)) {
            madd3(off, -dot3(off, wa), wa, n);
            if (!normalize3(n))
                any_perp(wa, n);
        }
        if (dot3(n, off) < 0.0)
            for (int k = 0; k < 3; ++k)
                n[k] = -n[k];
    }
    double gap = dist - rsum;
    uint32_t ra = s <= 0.0 ? 0u : (s >= 1.0 ? 2u : 1u), rb = t <= 0.0 ? 0u : (t >= 1.0 ? 2u : 1u);
    int nk = 0;

    /* nearly parallel with an overlap: its two ends */
    if (ha > 0.0 && hb > 0.0 && norm3(cr) <= k_feat_sin) {
        double cb = dot3(wa, off); /* b's centre along a's axis, from a's centre */
        double ext = hb * fabs(dot3(wa, wb));
        double blo = cb - ext, bhi = cb + ext;
        double lo = fmax(-ha, blo), hi = fmin(ha, bhi);
        if (hi - lo > 1e-9 * size) {
            double ts[2] = {lo, hi};
            int from_b[2] = {blo > -ha, bhi < ha};
            double gmin = HUGE_VAL;
            for (int e = 0; e < 2; ++e) {
                double xa[3], xb[3], v[3];
                madd3(a->pos, ts[e], wa, xa);
                sub3(xa, b->pos, v);
                double tb = clampd(dot3(v, wb), -hb, hb);
                madd3(b->pos, tb, wb, xb);
                sub3(xb, xa, v);
                double de = norm3(v);
                double ge = de - rsum;
                gmin = fmin(gmin, ge);
                if (!(ge < margin))
                    continue;
                double ne[3];
                if (de > 1e-12 * size) {
                    for (int k = 0; k < 3; ++k)
                        ne[k] = v[k] / de;
                } else {
                    copy3(n, ne);
                }
                double pa[3];
                madd3(xa, a->radius, ne, pa);
                mo_cl_set_contact(&out[nk++], ne, pa, ge, 16u + 2u * (uint32_t)e + (uint32_t)from_b[e]);
            }
            /* skew axes: the closest pair inside the overlap can be deeper */
            if (nk > 0 && !(gap < gmin - 1e-4 * size))
                return nk;
        }
    }
    if (!(gap < margin))
        return nk;
    double pa[3];
    madd3(qa, a->radius, n, pa);
    mo_cl_set_contact(&out[nk++], n, pa, gap, 3u * ra + rb);
    return nk;
}

int mo_cl_pair_plane_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    double pn[3], w[3];
    rot_col(a->rot, 2, pn);
    rot_col(b->rot, 2, w);
    int ne = b->half_height > 0.0 ? 2 : 1, nk = 0;
    for (int e = 0; e < ne; ++e) {
        double x[3], d[3];
        madd3(b->pos, e ? b->half_height : -b->half_height, w, x);
        if (ne == 1)
            copy3(b->pos, x);
        sub3(x, a->pos, d);
        double gap = dot3(pn, d) - b->radius;
        if (!(gap < margin))
            continue;
        double pa[3];
        madd3(x, -(b->radius + gap), pn, pa); /* on the plane below the end */
        mo_cl_set_contact(&out[nk++], pn, pa, gap, (uint32_t)e);
    }
    return nk;
}

int mo_cl_pair_plane_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    double pn[3], w[3], ex[3], ey[3];
    rot_col(a->rot, 2, pn);
    rot_col(b->rot, 2, w);
    rot_col(b->rot, 0, ex);
    rot_col(b->rot, 1, ey);
    double R = b->radius, h = b->half_height;
    double ca = dot3(pn, w);
    double s = ca > 0.0 ? -1.0 : 1.0; /* the lower cap */
    uint32_t cap = s > 0.0;
    double q[3];
    madd3(pn, -ca, w, q);
    for (int k = 0; k < 3; ++k)
        q[k] = -q[k];
    double rho = norm3(q);

    /* candidates: four fixed rim points of the lower cap; when tilted, its
       deepest rim point (in place of the nearest fixed one) and the deepest
       point of the other cap */
    double x[6][3];
    uint32_t ids[6];
    int nc = 0, skip = -1;
    double rd[3] = {0, 0, 0};
    int tilted = rho > k_tilt;
    if (tilted) {
        for (int k = 0; k < 3; ++k)
            rd[k] = q[k] / rho;
        double cx = dot3(rd, ex), cy = dot3(rd, ey);
        double dj[4] = {cx, cy, -cx, -cy};
        int jb = 0;
        for (int j = 1; j < 4; ++j)
            if (dj[j] > dj[jb])
                jb = j;
        skip = jb;
    }
    for (int j = 0; j < 4; ++j) {
        if (tilted && j == skip)
            continue;
        double dir[3];
        for (int k = 0; k < 3; ++k)
            dir[k] = (j == 0 ? ex[k] : j == 1 ? ey[k] : j == 2 ? -ex[k] : -ey[k]);
        for (int k = 0; k < 3; ++k)
            x[nc][k] = b->pos[k] + s * h * w[k] + R * dir[k];
        ids[nc++] = 4u * cap + (uint32_t)j;
    }
    if (tilted) {
        for (int k = 0; k < 3; ++k)
            x[nc][k] = b->pos[k] + s * h * w[k] + R * rd[k];
        ids[nc++] = 8u + cap;
        for (int k = 0; k < 3; ++k)
            x[nc][k] = b->pos[k] - s * h * w[k] + R * rd[k];
        ids[nc++] = 8u + (1u - cap);
    }

    /* keep those under the margin, at most four, spread out */
    double u[3], v[3];
    any_perp(pn, u);
    cross3(pn, u, v);
    mo_cl_clip_pt keep[6];
    uint32_t kid[6];
    double kx[6][3];
    int nk = 0;
    for (int i = 0; i < nc; ++i) {
        double d[3];
        sub3(x[i], a->pos, d);
        double gap = dot3(pn, d);
        if (!(gap < margin))
            continue;
        keep[nk].x = dot3(d, u);
        keep[nk].y = dot3(d, v);
        keep[nk].z = gap;
        keep[nk].label = 0;
        kid[nk] = ids[i];
        copy3(x[i], kx[nk]);
        ++nk;
    }
    int sel[4] = {0, 1, 2, 3};
    if (nk > MO_CL_MAX_POINTS) {
        mo_cl_reduce_points(keep, kid, nk, k_slop_rel * R, sel);
        nk = MO_CL_MAX_POINTS;
    }
    for (int i = 0; i < nk; ++i) {
        double pa[3];
        madd3(kx[sel[i]], -keep[sel[i]].z, pn, pa);
        mo_cl_set_contact(&out[i], pn, pa, keep[sel[i]].z, kid[sel[i]]);
    }
    return nk;
}

int mo_cl_pair_plane_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    const mo_cl_hull *h = b->hull;
    double pn[3], u[3], v[3];
    rot_col(a->rot, 2, pn);
    any_perp(pn, u);
    cross3(pn, u, v);
    mo_cl_clip_pt keep[MO_CL_CLIP_CAP];
    uint32_t ids[MO_CL_CLIP_CAP];
    int nk = 0;
    for (int i = 0; i < h->nverts && nk < MO_CL_CLIP_CAP; ++i) {
        double x[3], d[3];
        mat_vec(b->rot, h->verts + 3 * i, x);
        madd3(b->pos, 1.0, x, x);
        sub3(x, a->pos, d);
        double gap = dot3(pn, d);
        if (!(gap < margin))
            continue;
        keep[nk].x = dot3(d, u);
        keep[nk].y = dot3(d, v);
        keep[nk].z = gap;
        keep[nk].label = i;
        ids[nk] = (uint32_t)i;
        ++nk;
    }
    int sel[4] = {0, 1, 2, 3};
    if (nk > MO_CL_MAX_POINTS) {
        mo_cl_reduce_points(keep, ids, nk, k_slop_rel * h->radius, sel);
        nk = MO_CL_MAX_POINTS;
    }
    for (int i = 0; i < nk; ++i) {
        double x[3], pa[3];
        mat_vec(b->rot, h->verts + 3 * keep[sel[i]].label, x);
        madd3(b->pos, 1.0, x, x);
        madd3(x, -keep[sel[i]].z, pn, pa);
        mo_cl_set_contact(&out[i], pn, pa, keep[sel[i]].z, ids[sel[i]]);
    }
    return nk;
}

/* ---- pairs through the cores ---- */

/* a pair through the cores: both objects as support-mapped convex sets, then
   one of the core routines; swap = the routine takes (b, a), contacts flipped back */
typedef int (*core_fn)(const cvx *A, const cvx *B, double cut, mo_cl_contact *out);
static int via_cores(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out, core_fn fn,
                     int swap)
{
    cvx A, B;
    cvx_store sa, sb;
    cvx_from_object(&A, a, &sa);
    cvx_from_object(&B, b, &sb);
    if (!swap) return fn(&A, &B, margin, out);
    int n = fn(&B, &A, margin, out);
    flip_contacts(out, n);
    return n;
}

int mo_cl_pair_sphere_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_round_poly, 0);
}

int mo_cl_pair_box_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_round_poly, 1);
}

int mo_cl_pair_capsule_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_round_poly, 0);
}

int mo_cl_pair_box_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_poly_poly, 0);
}

int mo_cl_pair_hull_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_poly_poly, 0);
}

int mo_cl_pair_box_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_general, 0);
}

int mo_cl_pair_capsule_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_general, 0);
}

int mo_cl_pair_cylinder_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_general, 0);
}

int mo_cl_pair_cylinder_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, collide_general, 0);
}

/* ---- one-sided triangle against a convex object ---- */

/* closest point of triangle t to p (Ericson 5.1.5); region as in the ids */
static void closest_on_triangle(const double *t, const double *p, double *q, uint32_t *region)
{
    const double *a = t, *b = t + 3, *c = t + 6;
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(p, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        copy3(a, q);
        *region = 4;
        return;
    }
    sub3(p, b, bp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        copy3(b, q);
        *region = 5;
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        madd3(a, d1 / (d1 - d3), ab, q);
        *region = 1;
        return;
    }
    sub3(p, c, cp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        copy3(c, q);
        *region = 6;
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        madd3(a, d2 / (d2 - d6), ac, q);
        *region = 3;
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double bc[3];
        sub3(c, b, bc);
        madd3(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc, q);
        *region = 2;
        return;
    }
    double den = 1.0 / (va + vb + vc);
    double v = vb * den, w = vc * den;
    for (int k = 0; k < 3; ++k)
        q[k] = a[k] + v * ab[k] + w * ac[k];
    *region = 0;
}

int mo_cl_collide_triangle(const double tri_world[9], const mo_cl_object *convex, double margin, int flip,
                           mo_cl_contact *out)
{
    int type = convex->type;
    if (type != MO_CL_SPHERE && type != MO_CL_BOX && type != MO_CL_CAPSULE && type != MO_CL_CYLINDER &&
        type != MO_CL_HULL)
        return 0;
    if (!mo_cl_shape_usable(convex) || !isfinite(margin))
        return 0;
    for (int i = 0; i < 9; ++i)
        if (!isfinite(tri_world[i]))
            return 0;
    const double *v0 = tri_world;
    double e1[3], e2[3], nt[3];
    sub3(tri_world + 3, v0, e1);
    sub3(tri_world + 6, v0, e2);
    cross3(e1, e2, nt);
    double l2max = fmax(fmax(dot3(e1, e1), dot3(e2, e2)), 1e-300);
    if (!(dot3(nt, nt) > 1e-20 * l2max * l2max) || !normalize3(nt))
        return 0;

    tri_poly tp;
    tri_poly_init(&tp, tri_world, nt);
    cvx T, X;
    cvx_store st;
    cvx_from_triangle(&T, &tp);
    cvx_from_object(&X, convex, &st);
    double mx = convex->margin > 0.0 ? convex->margin : 0.0;
    double cut = margin + mx;

    /* one-sided: the object's centre must be in front. A point (a sphere of radius 0: a particle, an FEM
       mesh's node) resting on the face sits on it only to round-off and the contact's compliance, as often
       a little behind as in front: it may be behind by a tenth of the cut (measured: FEM nodes on a mesh
       ground at -8.7e-8 m lost their contacts one step after landing and fell through) */
    double dc[3];
    sub3(X.cen, v0, dc);
    if (dot3(nt, dc) < (X.kind == CV_POINT && !(X.r > 0.0) ? -0.1 * cut : 0.0))
        return 0;

    int n = 0;
    switch (X.kind) {
    case CV_POINT: {
        double q[3], d[3], nrm[3];
        uint32_t region;
        closest_on_triangle(tri_world, X.c, q, &region);
        sub3(X.c, q, d);
        double dist = norm3(d), gap;
        if (region != 0 && !(X.r > 0.0)) {
            /* a point touches the face only: beside an edge or a vertex its normal d / |d| is the
               direction of the round-off that put it there (a node resting on the edge between two
               coplanar triangles got (0.49, -0.49, 0.73) from one of them); the triangle next to it
               (or, at a convex edge, the face whose prism it enters) holds it. On the edge to
               1e-9 of the triangle's size it takes the face normal. */
            double s[3];
            madd3(d, -dot3(d, nt), nt, s);
            if (norm3(s) > 1e-9 * T.size)
                break;
            region = 0;
        }
        if (region == 0 || !(dist > 1e-12 * (T.size + X.size))) {
            copy3(nt, nrm);
            gap = dot3(nt, dc) - X.r;
        } else {
            for (int k = 0; k < 3; ++k)
                nrm[k] = d[k] / dist;
            gap = dist - X.r;
        }
        if (gap < cut) {
            double pa[3];
            madd3(X.c, -(gap + X.r), nrm, pa);
            mo_cl_set_contact(out, nrm, pa, gap, region);
            n = 1;
        }
        break;
    }
    case CV_SEGMENT:
        n = collide_round_poly(&X, &T, cut, out);
        flip_contacts(out, n);
        break;
    case CV_POLY:
        n = collide_poly_poly(&T, &X, cut, out);
        break;
    default:
        n = collide_general(&T, &X, cut, out);
        break;
    }

    /* a normal through the back: the face contact along the front normal */
    if (n > 0 && dot3(out[0].normal, nt) < 0.0) {
        double mn[3] = {-nt[0], -nt[1], -nt[2]};
        double gap = -support_value(&X, mn) - dot3(nt, v0) - X.r;
        n = 0;
        if (gap < cut)
            n = make_manifold(&T, &X, nt, gap, NULL, cut, out);
    }

    mo_cl_inflate_contacts(out, n, 0.0, mx);
    if (flip)
        flip_contacts(out, n);
    for (int i = 0; i < n; ++i)
        out[i].a = out[i].b = -1;
    return n;
}
