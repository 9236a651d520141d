/* convex_internal.h: what the files of the convex narrowphase share:
 * collide_convex.c (the pair routines and the one-sided triangle, whose
 * header comment holds the design), convex_core.c (polytope views, cores,
 * support functions, GJK, EPA), convex_manifold.c (support features,
 * clipping, manifolds) and convex_axes.c (separating axes, general pairs).
 * Tolerances, small vector helpers, the types, and the functions one file
 * calls in another. Internal to the collision layer, not for the engine. */
#ifndef MOREAU_CONVEX_INTERNAL_H
#define MOREAU_CONVEX_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "collide_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- small vector helpers (dot3, cross3: collide_internal.h) ---- */

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
static inline void any_perp(const double *u, double *out)
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

static inline double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* closest points of segments p0 + s d0 and q0 + t d1, s, t in [0, 1] (Ericson,
   Real-Time Collision Detection 5.1.9); writes s, t */
static inline void segment_closest(const double *p0, const double *d0, const double *q0, const double *d1,
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

typedef struct box_poly {
    poly p;
    double v[24];
    double pl[24];
} box_poly;

/* a triangle view's face vertex list (face 0 the front v0 v1 v2, face 1 the
   back), one array in convex_core.c: convex_axes.c tells a triangle's view by
   this pointer */
extern const int mo_cl_tri_fv[6];

typedef struct tri_poly {
    poly p;
    double v[9];
    double pl[8];
} tri_poly;

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

/* ---- convex_core.c ---- */

/* the polytope view of a triangle (world vertices tri, unit front normal nt) */
void mo_cl_tri_poly_init(tri_poly *t, const double *tri, const double *nt);
/* the core of an object (sphere, capsule, cylinder, box or hull; st holds the
   polytope view a box or hull points into) and of a triangle's view */
void mo_cl_cvx_from_object(cvx *s, const mo_cl_object *o, cvx_store *st);
void mo_cl_cvx_from_triangle(cvx *s, const tri_poly *t);
/* index of the polytope vertex furthest along local direction dl (first of ties) */
int mo_cl_poly_support_index(const poly *p, const double *dl);
/* the core's point furthest along world direction d (any length) */
void mo_cl_support(const cvx *s, const double *d, double *out);
/* h(d) = max over the core of d.x */
double mo_cl_support_value(const cvx *s, const double *d);
/* GJK distance between the cores of A and B (gjk_res) */
void mo_cl_gjk(const cvx *A, const cvx *B, gjk_res *res);
/* EPA from GJK's tetrahedron: unit normal n from a to b and the depth; 0 when it fails */
int mo_cl_epa(const cvx *A, const cvx *B, const sv *tet, double *n, double *depth);

/* ---- convex_manifold.c ---- */

/* face f of a polytope core (more than FEAT_CAP vertices: evenly subsampled) */
void mo_cl_poly_face_feature(const cvx *s, int f, feature *F);
/* contacts of feature inc clipped against the reference polygon ref (a face
   of b when ref_is_b), normal n from a to b, rounding radii ra, rb, gap < cut */
int mo_cl_clip_features(const feature *ref, const feature *inc, int ref_is_b, const double *n, double ra,
                        double rb, double cut, mo_cl_contact *out);
/* contacts of cores A and B along unit normal n (a to b) with the deepest gap
   `gap` (rounding included): the feature manifold, else one contact (at the
   witness wa on a's core when not NULL) */
int mo_cl_make_manifold(const cvx *A, const cvx *B, const double *n, double gap, const double *wa, double cut,
                        mo_cl_contact *out);

/* ---- convex_axes.c ---- */

/* contacts with gap < cut of two polytope cores, of a point or segment core
   (A) and a polytope core (B), and of any two cores; normals from a to b */
int mo_cl_collide_poly_poly(const cvx *A, const cvx *B, double cut, mo_cl_contact *out);
int mo_cl_collide_round_poly(const cvx *S, const cvx *P, double cut, mo_cl_contact *out);
int mo_cl_collide_general(const cvx *A, const cvx *B, double cut, mo_cl_contact *out);

#ifdef __cplusplus
}
#endif
#endif
