/* collide_narrow.c: narrowphase dispatch, and the pairs of spheres, boxes and
 * planes (capsules, cylinders, hulls and triangles: collide_convex.c).
 *
 * Design. One routine per pair of shape types behind a [type][type] table (as
 * MuJoCo's collision table). Routines take the pair in canonical order (the
 * MO_CL_* order: sphere < box < plane < capsule < cylinder < hull);
 * mo_cl_collide swaps the objects when called the other way round and then
 * flips the normal and swaps point_a / point_b, so the reported normal always
 * points from a to b.
 *
 * Margins. Every routine works on the bare shapes. An object's margin m
 * inflates it by m in every direction (its Minkowski sum with a ball), which
 * for convex shapes moves the signed distance by exactly -m and keeps the
 * normal, so mo_cl_collide calls the routine with the cut-off grown by
 * m_a + m_b and then shifts each contact: gap -= m_a + m_b, point_a += m_a n,
 * point_b -= m_b n (mo_cl_inflate_contacts).
 *
 * Box/box follows the separating axis test of Gottschalk et al. (OBBTree,
 * SIGGRAPH 1996) as used by ODE's dBoxBox: 3 + 3 face axes and 9 edge cross
 * products, written in a's frame through C = Ra^T Rb. Near-parallel edge pairs
 * are skipped. Face axes are preferred over edge axes, and a's faces over b's,
 * within a relative plus absolute tolerance (the scheme of D. Gregorius, "The
 * separating axis test between convex polyhedra", GDC 2013, and Box2D), which
 * keeps a resting contact on the same axis from step to step. For a face axis
 * the incident face (the face of the other box most anti-parallel to the
 * reference normal) is clipped against the four side planes of the reference
 * face (Sutherland-Hodgman), points with gap < margin are kept, and more than
 * four are reduced to four: the farthest from the centroid (not the deepest:
 * see mo_cl_reduce_points), the farthest from it, the largest triangle, the largest
 * area added (after Gregorius, "Robust contact creation for physics
 * simulations", GDC 2015). For an edge axis there is one contact at
 * the closest points of the two supporting edges.
 *
 * Feature ids (stable while the same features touch; used for warm starting):
 *   sphere/sphere, sphere/plane: 0
 *   box/plane:   box vertex v = (x > 0) | (y > 0) << 1 | (z > 0) << 2, 0..7
 *   sphere/box:  region of the sphere centre against the box slabs,
 *                r0 + 3 r1 + 9 r2 with r_k = 0 below, 1 within, 2 above
 *                (centre inside: the region of the face it is pushed out of)
 *   box/box face axis:
 *                (reference box is b) << 16 | reference face << 12 |
 *                incident face << 8 | 8 * min(l0, l1) + max(l0, l1)
 *                where face = 2 * axis + (1 on the negative side) and l0, l1
 *                label the two polygon edges meeting at the point: 0..3 the
 *                incident face edges, 4..7 the reference face side planes
 *                (+u, -u, +v, -v). An incident vertex is (m - 1, m), a clipped
 *                edge point (m, plane), a reference face corner (plane, plane).
 *   box/box edge axis:
 *                1 << 20 | edge_a << 4 | edge_b, edge = 4 * axis + (sign of
 *                axis + 1 is +) + 2 * (sign of axis + 2 is +), 0..11
 *   the pairs of collide_convex.c: see there
 *
 * No allocation, no mutable globals, no trig. */
#include "collide_internal.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* tolerances */
static const double k_edge_eps2 = 1e-12; /* |a_i x b_j|^2 below this: parallel edges, axis skipped */
static const double k_face_rel = 0.02;   /* b's face axis must beat a's by this fraction of |sep| */
static const double k_edge_rel = 0.05;   /* an edge axis must beat the face axis by this fraction */
static const double k_abs_rel = 1e-4;    /* absolute axis tolerance, times the smallest half extent */
static const double k_slop_rel = 5e-5;   /* reference face grown by this times (hu + hv) when clipping */
static const double k_tie_rel = 1e-3;    /* relative near-tie in the point reduction */
static const double k_edge_face_cos2 = 1.0 - 1e-4; /* edge axis within 0.57 deg of a face normal: never the contact axis */

static const int k_next[3] = {1, 2, 0};

#define CLIP_CAP 16
#define FEATURE_REF_B (1u << 16)
#define FEATURE_EDGE (1u << 20)

typedef int (*pair_fn)(const mo_cl_object *a, const mo_cl_object *b, double margin,
                       mo_cl_contact *out);


/* column k of a row-major rotation: local axis k in world */
static inline void rot_col(const double *rot, int k, double *out)
{
    out[0] = rot[k];
    out[1] = rot[3 + k];
    out[2] = rot[6 + k];
}

/* box centre, axes (ax[k] = local axis k in world) and half extents */
typedef struct box_frame {
    double c[3];
    double ax[3][3];
    double h[3];
} box_frame;

static inline void box_frame_init(box_frame *f, const mo_cl_object *o)
{
    for (int k = 0; k < 3; ++k) {
        f->c[k] = o->pos[k];
        f->h[k] = o->he[k];
        rot_col(o->rot, k, f->ax[k]);
    }
}

/* ---- aabb ---- */

/* world bounds of a vertex array under the pose, grown by g */
static void aabb_of_points(mo_cl_object *o, const double *v, int n, double g)
{
    for (int i = 0; i < 3; ++i) {
        double lo = 0.0, hi = 0.0;
        for (int k = 0; k < n; ++k) {
            double x = o->rot[3 * i] * v[3 * k] + o->rot[3 * i + 1] * v[3 * k + 1] +
                       o->rot[3 * i + 2] * v[3 * k + 2];
            if (k == 0 || x < lo)
                lo = x;
            if (k == 0 || x > hi)
                hi = x;
        }
        o->aabb_min[i] = o->pos[i] + lo - g;
        o->aabb_max[i] = o->pos[i] + hi + g;
    }
}

void mo_cl_update_aabb(mo_cl_object *o, double margin)
{
    double e[3];
    /* the object's own margin inflates the shape */
    double g = margin + (o->margin > 0.0 ? o->margin : 0.0);
    switch (o->type) {
    case MO_CL_SPHERE:
        e[0] = e[1] = e[2] = o->radius + g;
        break;
    case MO_CL_BOX:
        /* extent along world axis i: sum_j |R_ij| h_j */
        for (int i = 0; i < 3; ++i)
            e[i] = fabs(o->rot[3 * i]) * o->he[0] + fabs(o->rot[3 * i + 1]) * o->he[1] +
                   fabs(o->rot[3 * i + 2]) * o->he[2] + g;
        break;
    case MO_CL_PLANE:
        /* unbounded; the broadphase tests planes by their half-space instead */
        for (int i = 0; i < 3; ++i) {
            o->aabb_min[i] = -HUGE_VAL;
            o->aabb_max[i] = HUGE_VAL;
        }
        return;
    case MO_CL_CAPSULE:
        /* segment along local z: |R_i2| h, plus the radius */
        for (int i = 0; i < 3; ++i)
            e[i] = fabs(o->rot[3 * i + 2]) * o->half_height + o->radius + g;
        break;
    case MO_CL_CYLINDER:
        /* cap disks: |R_i2| h + r sqrt(1 - R_i2^2) */
        for (int i = 0; i < 3; ++i) {
            double c = o->rot[3 * i + 2];
            e[i] = fabs(c) * o->half_height + o->radius * sqrt(fmax(0.0, 1.0 - c * c)) + g;
        }
        break;
    case MO_CL_HULL:
        if (o->hull && o->hull->verts && o->hull->nverts > 0) {
            aabb_of_points(o, o->hull->verts, o->hull->nverts, g);
            return;
        }
        e[0] = e[1] = e[2] = g;
        break;
    case MO_CL_MESH:
        if (o->mesh && o->mesh->verts && o->mesh->nverts > 0) {
            aabb_of_points(o, o->mesh->verts, o->mesh->nverts, g);
            return;
        }
        e[0] = e[1] = e[2] = g;
        break;
    default:
        e[0] = e[1] = e[2] = margin;
        break;
    }
    for (int i = 0; i < 3; ++i) {
        o->aabb_min[i] = o->pos[i] - e[i];
        o->aabb_max[i] = o->pos[i] + e[i];
    }
}

/* ---- sphere / sphere ---- */

static int collide_sphere_sphere(const mo_cl_object *a, const mo_cl_object *b, double margin,
                                 mo_cl_contact *out)
{
    double d[3] = {b->pos[0] - a->pos[0], b->pos[1] - a->pos[1], b->pos[2] - a->pos[2]};
    double rsum = a->radius + b->radius;
    double reach = rsum + margin;
    double dist2 = dot3(d, d);
    /* gap < margin <=> dist < rsum + margin */
    if (!(reach > 0.0) || !(dist2 < reach * reach))
        return 0;
    double dist = sqrt(dist2);
    double n[3] = {0.0, 0.0, 1.0}; /* coincident centres: any fixed axis */
    if (dist2 > DBL_MIN) {
        n[0] = d[0] / dist;
        n[1] = d[1] / dist;
        n[2] = d[2] / dist;
    }
    double pa[3] = {a->pos[0] + a->radius * n[0], a->pos[1] + a->radius * n[1],
                    a->pos[2] + a->radius * n[2]};
    mo_cl_set_contact(out, n, pa, dist - rsum, 0);
    return 1;
}

/* ---- sphere / plane ---- */

static int collide_sphere_plane(const mo_cl_object *s, const mo_cl_object *p, double margin,
                                mo_cl_contact *out)
{
    double pn[3];
    rot_col(p->rot, 2, pn);
    double w[3] = {s->pos[0] - p->pos[0], s->pos[1] - p->pos[1], s->pos[2] - p->pos[2]};
    double gap = dot3(pn, w) - s->radius;
    if (!(gap < margin))
        return 0;
    /* normal from the sphere into the plane: -pn; point_a: the sphere's lowest point */
    double n[3] = {-pn[0], -pn[1], -pn[2]};
    double pa[3] = {s->pos[0] + s->radius * n[0], s->pos[1] + s->radius * n[1],
                    s->pos[2] + s->radius * n[2]};
    mo_cl_set_contact(out, n, pa, gap, 0);
    return 1;
}

/* ---- box / plane ---- */

static int collide_box_plane(const mo_cl_object *b, const mo_cl_object *p, double margin,
                             mo_cl_contact *out)
{
    box_frame B;
    box_frame_init(&B, b);
    double pn[3];
    rot_col(p->rot, 2, pn);
    double w[3] = {B.c[0] - p->pos[0], B.c[1] - p->pos[1], B.c[2] - p->pos[2]};
    double sc = dot3(pn, w);
    double l[3];
    for (int k = 0; k < 3; ++k)
        l[k] = B.h[k] * dot3(B.ax[k], pn);

    /* signed height of each vertex; keep those under the margin, deepest first
       (insertion sort, ties keep the lower vertex index) */
    double s[8];
    int order[8];
    int count = 0;
    for (int v = 0; v < 8; ++v) {
        double sv = sc + ((v & 1) ? l[0] : -l[0]) + ((v & 2) ? l[1] : -l[1]) +
                    ((v & 4) ? l[2] : -l[2]);
        if (!(sv < margin))
            continue;
        s[v] = sv;
        int k = count++;
        while (k > 0 && s[order[k - 1]] > sv) {
            order[k] = order[k - 1];
            --k;
        }
        order[k] = v;
    }
    if (count > MO_CL_MAX_POINTS)
        count = MO_CL_MAX_POINTS;

    /* contacts at the vertices, normal into the plane */
    double n[3] = {-pn[0], -pn[1], -pn[2]};
    for (int i = 0; i < count; ++i) {
        int v = order[i];
        double pa[3];
        for (int k = 0; k < 3; ++k) {
            pa[k] = B.c[k] + ((v & 1) ? B.h[0] : -B.h[0]) * B.ax[0][k] +
                    ((v & 2) ? B.h[1] : -B.h[1]) * B.ax[1][k] +
                    ((v & 4) ? B.h[2] : -B.h[2]) * B.ax[2][k];
        }
        mo_cl_set_contact(&out[i], n, pa, s[v], (uint32_t)v);
    }
    return count;
}

/* ---- sphere / box ---- */

static int collide_sphere_box(const mo_cl_object *s, const mo_cl_object *b, double margin,
                              mo_cl_contact *out)
{
    static const int pow3[3] = {1, 3, 9};
    box_frame B;
    box_frame_init(&B, b);
    double r = s->radius;
    double w[3] = {s->pos[0] - B.c[0], s->pos[1] - B.c[1], s->pos[2] - B.c[2]};

    /* centre in box coordinates, clamped to the box; region code of the centre */
    double q[3], dl[3];
    int region = 0, outside = 0;
    for (int k = 0; k < 3; ++k) {
        q[k] = dot3(B.ax[k], w);
        if (q[k] > B.h[k]) {
            dl[k] = q[k] - B.h[k];
            region += 2 * pow3[k];
            outside = 1;
        } else if (q[k] < -B.h[k]) {
            dl[k] = q[k] + B.h[k];
            outside = 1;
        } else {
            dl[k] = 0.0;
            region += pow3[k];
        }
    }

    double n[3], gap;
    double dist2 = dot3(dl, dl);
    if (outside && dist2 > DBL_MIN) {
        /* centre outside: nearest box point, normal from the sphere to it */
        double reach = r + margin;
        if (!(reach > 0.0) || !(dist2 < reach * reach))
            return 0;
        double dist = sqrt(dist2);
        gap = dist - r;
        for (int k = 0; k < 3; ++k)
            n[k] = -(dl[0] * B.ax[0][k] + dl[1] * B.ax[1][k] + dl[2] * B.ax[2][k]) / dist;
    } else {
        /* centre inside (or on the surface): push out through the face of least
           penetration; ties go to the lower axis, q = 0 to the + side */
        int kmin = 0;
        double dmin = B.h[0] - fabs(q[0]);
        for (int k = 1; k < 3; ++k) {
            double dk = B.h[k] - fabs(q[k]);
            if (dk < dmin) {
                dmin = dk;
                kmin = k;
            }
        }
        double sg = (q[kmin] >= 0.0) ? 1.0 : -1.0;
        gap = -(dmin + r);
        if (!(gap < margin))
            return 0;
        for (int k = 0; k < 3; ++k)
            n[k] = -sg * B.ax[kmin][k];
        region = region - ((region / pow3[kmin]) % 3) * pow3[kmin] + (sg > 0.0 ? 2 : 0) * pow3[kmin];
    }
    double pa[3] = {s->pos[0] + r * n[0], s->pos[1] + r * n[1], s->pos[2] + r * n[2]};
    mo_cl_set_contact(out, n, pa, gap, (uint32_t)region);
    return 1;
}

/* ---- box / box ---- */

/* a polygon vertex in reference face coordinates (x along u, y along v, z
   along the reference normal) and the label of the edge leaving it */
typedef mo_cl_clip_pt clip_pt;

/* point between p and q at parameter t, with one coordinate set exactly */
static inline clip_pt clip_lerp(const clip_pt *p, const clip_pt *q, double t, int use_y,
                                double at, int label)
{
    clip_pt r;
    r.x = p->x + t * (q->x - p->x);
    r.y = p->y + t * (q->y - p->y);
    r.z = p->z + t * (q->z - p->z);
    if (use_y)
        r.y = at;
    else
        r.x = at;
    r.label = label;
    return r;
}

/* Sutherland-Hodgman against sgn * (x or y) <= lim. A point created where the
   polygon leaves the half-plane starts an edge along the clip plane (label);
   one created where it re-enters continues the crossed edge's label. */
static int clip_polygon(const clip_pt *in, int n, int use_y, double sgn, double lim, int label,
                        clip_pt *out)
{
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const clip_pt *p = &in[i];
        const clip_pt *q = (i + 1 < n) ? &in[i + 1] : &in[0];
        double fp = sgn * (use_y ? p->y : p->x) - lim;
        double fq = sgn * (use_y ? q->y : q->x) - lim;
        if (fp <= 0.0) {
            if (m < CLIP_CAP)
                out[m++] = *p;
            if (fq > 0.0 && m < CLIP_CAP)
                out[m++] = clip_lerp(p, q, fp / (fp - fq), use_y, sgn * lim, label);
        } else if (fq <= 0.0 && m < CLIP_CAP) {
            out[m++] = clip_lerp(p, q, fp / (fp - fq), use_y, sgn * lim, p->label);
        }
    }
    return m;
}

/* index of the largest score not yet used; among near ties (within
   k_tie_rel * |best| + abs_tol of the best) the lowest feature id, so the
   choice survives tiny pose changes */
static int pick_best(const double *score, const uint32_t *ids, const int *used, int n,
                     double abs_tol)
{
    double best = -HUGE_VAL;
    for (int i = 0; i < n; ++i)
        if (!used[i] && score[i] > best)
            best = score[i];
    double tol = k_tie_rel * fabs(best) + abs_tol;
    int pick = -1;
    for (int i = 0; i < n; ++i)
        if (!used[i] && score[i] >= best - tol && (pick < 0 || ids[i] < ids[pick]))
            pick = i;
    if (pick < 0) /* NaN scores: first unused */
        for (int i = 0; i < n && pick < 0; ++i)
            if (!used[i])
                pick = i;
    return pick;
}

/* reduce n > 4 points to 4: farthest from the polygon's centroid, farthest
   from it, largest triangle, largest area added outside the triangle. The
   first pick is not the deepest point: when two equal faces lie nearly flush
   (boxes stacked), nearly parallel incident and reference edges cross at an
   arbitrary place along the edge, and a "deepest" such mid-edge point makes a
   poor, step-to-step changing support polygon; the corners are found by
   extent, and depth is restored by the solver's stabilisation. */
void mo_cl_reduce_points(const mo_cl_clip_pt *p, const uint32_t *ids, int n, double tie_dist, int sel[4])
{
    int used[MO_CL_CLIP_CAP] = {0};
    double score[MO_CL_CLIP_CAP];
    if (n > MO_CL_CLIP_CAP)
        n = MO_CL_CLIP_CAP;
    if (n < 1) {
        for (int k = 0; k < 4; ++k)
            sel[k] = 0;
        return;
    }

    /* farthest from the centroid */
    double mx = 0.0, my = 0.0;
    for (int i = 0; i < n; ++i) {
        mx += p[i].x;
        my += p[i].y;
    }
    mx /= n;
    my /= n;
    for (int i = 0; i < n; ++i)
        score[i] = (p[i].x - mx) * (p[i].x - mx) + (p[i].y - my) * (p[i].y - my);
    sel[0] = pick_best(score, ids, used, n, tie_dist * tie_dist);
    used[sel[0]] = 1;
    const clip_pt *p0 = &p[sel[0]];

    /* farthest from the deepest */
    for (int i = 0; i < n; ++i) {
        double dx = p[i].x - p0->x, dy = p[i].y - p0->y;
        score[i] = dx * dx + dy * dy;
    }
    sel[1] = pick_best(score, ids, used, n, 0.0);
    used[sel[1]] = 1;
    const clip_pt *p1 = &p[sel[1]];

    /* largest triangle */
    double ex = p1->x - p0->x, ey = p1->y - p0->y;
    for (int i = 0; i < n; ++i)
        score[i] = fabs(ex * (p[i].y - p0->y) - ey * (p[i].x - p0->x));
    sel[2] = pick_best(score, ids, used, n, 0.0);
    used[sel[2]] = 1;
    const clip_pt *p2 = &p[sel[2]];

    /* largest area added: the most negative edge area, triangle oriented + */
    double orient = (ex * (p2->y - p0->y) - ey * (p2->x - p0->x)) >= 0.0 ? 1.0 : -1.0;
    const clip_pt *tri[3] = {p0, p1, p2};
    for (int i = 0; i < n; ++i) {
        double worst = -HUGE_VAL;
        for (int e = 0; e < 3; ++e) {
            const clip_pt *s0 = tri[e], *s1 = tri[e == 2 ? 0 : e + 1];
            double area = -orient * ((s1->x - s0->x) * (p[i].y - s0->y) -
                                     (s1->y - s0->y) * (p[i].x - s0->x));
            if (area > worst)
                worst = area;
        }
        score[i] = worst;
    }
    sel[3] = pick_best(score, ids, used, n, 0.0);
}

/* contacts for a face axis: reference face of ref with outward normal
   n = sign * ref axis `axis` (pointing towards inc), incident face of inc */
static int box_face_contacts(const box_frame *ref, const box_frame *inc, int axis, double sign,
                             int ref_is_b, double margin, mo_cl_contact *out)
{
    int a1 = k_next[axis], a2 = k_next[a1];
    double n[3] = {sign * ref->ax[axis][0], sign * ref->ax[axis][1], sign * ref->ax[axis][2]};
    const double *u = ref->ax[a1], *v = ref->ax[a2];
    double fc[3];
    for (int k = 0; k < 3; ++k)
        fc[k] = ref->c[k] + ref->h[axis] * n[k];

    /* incident face: the face of inc most anti-parallel to n */
    double dn[3];
    int ki = 0;
    for (int k = 0; k < 3; ++k) {
        dn[k] = dot3(inc->ax[k], n);
        if (fabs(dn[k]) > fabs(dn[ki]))
            ki = k;
    }
    double si = (dn[ki] > 0.0) ? -1.0 : 1.0;
    int k1 = k_next[ki], k2 = k_next[k1];

    /* incident face centre and edge half vectors in reference face coordinates */
    double ic[3], e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
        ic[k] = inc->c[k] + si * inc->h[ki] * inc->ax[ki][k] - fc[k];
        e1[k] = inc->h[k1] * inc->ax[k1][k];
        e2[k] = inc->h[k2] * inc->ax[k2][k];
    }
    double cx = dot3(ic, u), cy = dot3(ic, v), cz = dot3(ic, n);
    double e1x = dot3(e1, u), e1y = dot3(e1, v), e1z = dot3(e1, n);
    double e2x = dot3(e2, u), e2y = dot3(e2, v), e2z = dot3(e2, n);

    /* incident quad, vertex m = (s1, s2) on (k1, k2), edge m runs from m to m + 1 */
    static const double sg1[4] = {1.0, -1.0, -1.0, 1.0};
    static const double sg2[4] = {1.0, 1.0, -1.0, -1.0};
    clip_pt poly[CLIP_CAP], tmp[CLIP_CAP];
    for (int m = 0; m < 4; ++m) {
        poly[m].x = cx + sg1[m] * e1x + sg2[m] * e2x;
        poly[m].y = cy + sg1[m] * e1y + sg2[m] * e2y;
        poly[m].z = cz + sg1[m] * e1z + sg2[m] * e2z;
        poly[m].label = m;
    }

    /* clip against the reference face side planes (grown by a small slop so an
       incident vertex flush with a side stays a vertex) */
    double slop = k_slop_rel * (ref->h[a1] + ref->h[a2]);
    double hu = ref->h[a1] + slop, hv = ref->h[a2] + slop;
    int np = clip_polygon(poly, 4, 0, 1.0, hu, 4, tmp);
    np = clip_polygon(tmp, np, 0, -1.0, hu, 5, poly);
    np = clip_polygon(poly, np, 1, 1.0, hv, 6, tmp);
    np = clip_polygon(tmp, np, 1, -1.0, hv, 7, poly);

    /* keep points under the margin, with their feature ids */
    uint32_t base = (ref_is_b ? FEATURE_REF_B : 0u) |
                    (uint32_t)(2 * axis + (sign < 0.0)) << 12 |
                    (uint32_t)(2 * ki + (si < 0.0)) << 8;
    clip_pt keep[CLIP_CAP];
    uint32_t ids[CLIP_CAP];
    int nk = 0;
    for (int i = 0; i < np; ++i) {
        if (!(poly[i].z < margin))
            continue;
        int l0 = poly[i > 0 ? i - 1 : np - 1].label, l1 = poly[i].label;
        if (l0 > l1) {
            int t = l0;
            l0 = l1;
            l1 = t;
        }
        keep[nk] = poly[i];
        ids[nk] = base | (uint32_t)(8 * l0 + l1);
        ++nk;
    }

    /* at most four */
    int sel[4] = {0, 1, 2, 3};
    if (nk > MO_CL_MAX_POINTS) {
        mo_cl_reduce_points(keep, ids, nk, slop, sel);
        nk = MO_CL_MAX_POINTS;
    }

    /* contacts: point on the reference face, incident point = it + z n */
    double nout[3] = {n[0], n[1], n[2]};
    if (ref_is_b)
        for (int k = 0; k < 3; ++k)
            nout[k] = -n[k];
    for (int i = 0; i < nk; ++i) {
        const clip_pt *c = &keep[sel[i]];
        double pa[3];
        for (int k = 0; k < 3; ++k) {
            pa[k] = fc[k] + c->x * u[k] + c->y * v[k];
            if (ref_is_b)
                pa[k] += c->z * n[k];
        }
        mo_cl_set_contact(&out[i], nout, pa, c->z, ids[sel[i]]);
    }
    return nk;
}

/* one contact for edge axis a_i x b_j: closest points of the supporting edges */
static int box_edge_contact(const box_frame *A, const box_frame *B, int i, int j, double margin,
                            mo_cl_contact *out)
{
    double n[3], d[3];
    cross3(A->ax[i], B->ax[j], n);
    double len = sqrt(dot3(n, n));
    for (int k = 0; k < 3; ++k) {
        n[k] /= len;
        d[k] = B->c[k] - A->c[k];
    }
    if (dot3(n, d) < 0.0)
        for (int k = 0; k < 3; ++k)
            n[k] = -n[k];

    /* edge of a furthest along n, edge of b furthest along -n */
    double pa[3] = {A->c[0], A->c[1], A->c[2]};
    double pb[3] = {B->c[0], B->c[1], B->c[2]};
    uint32_t ea = 4u * (uint32_t)i, eb = 4u * (uint32_t)j;
    for (int t = 0; t < 2; ++t) {
        int ka = (t == 0) ? k_next[i] : k_next[k_next[i]];
        double sa = (dot3(A->ax[ka], n) >= 0.0) ? 1.0 : -1.0;
        int kb = (t == 0) ? k_next[j] : k_next[k_next[j]];
        double sb = (dot3(B->ax[kb], n) > 0.0) ? -1.0 : 1.0;
        for (int k = 0; k < 3; ++k) {
            pa[k] += sa * A->h[ka] * A->ax[ka][k];
            pb[k] += sb * B->h[kb] * B->ax[kb][k];
        }
        if (sa > 0.0)
            ea += 1u << t;
        if (sb > 0.0)
            eb += 1u << t;
    }

    /* closest points of pa + s a_i and pb + t b_j, clamped to the edges */
    const double *ua = A->ax[i], *ub = B->ax[j];
    double r[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double c = dot3(ua, ub), ar = dot3(ua, r), br = dot3(ub, r);
    double den = len * len; /* 1 - c^2 without the cancellation */
    double s = (den > 0.0) ? (ar - c * br) / den : 0.0;
    s = fmin(fmax(s, -A->h[i]), A->h[i]);
    double t = s * c - br;
    t = fmin(fmax(t, -B->h[j]), B->h[j]);
    s = t * c + ar;
    s = fmin(fmax(s, -A->h[i]), A->h[i]);
    double qa[3], qb[3];
    for (int k = 0; k < 3; ++k) {
        qa[k] = pa[k] + s * ua[k];
        qb[k] = pb[k] + t * ub[k];
    }
    double gap = dot3(n, qb) - dot3(n, qa);
    if (!(gap < margin))
        return 0;

    /* midpoint, split along the normal */
    double p[3];
    for (int k = 0; k < 3; ++k)
        p[k] = 0.5 * (qa[k] + qb[k]) - 0.5 * gap * n[k];
    mo_cl_set_contact(out, n, p, gap, FEATURE_EDGE | ea << 4 | eb);
    return 1;
}

static int collide_box_box(const mo_cl_object *oa, const mo_cl_object *ob, double margin,
                           mo_cl_contact *out)
{
    box_frame A, B;
    box_frame_init(&A, oa);
    box_frame_init(&B, ob);
    double d[3] = {B.c[0] - A.c[0], B.c[1] - A.c[1], B.c[2] - A.c[2]};

    /* b in a's frame: C_ij = a_i . b_j, centre offset in both frames */
    double C[3][3], absC[3][3], dA[3], dB[3];
    for (int i = 0; i < 3; ++i) {
        dA[i] = dot3(A.ax[i], d);
        dB[i] = dot3(B.ax[i], d);
        for (int j = 0; j < 3; ++j) {
            C[i][j] = dot3(A.ax[i], B.ax[j]);
            absC[i][j] = fabs(C[i][j]);
        }
    }

    /* face axes of a (a NaN separation also exits) */
    double sep_a = -HUGE_VAL;
    int face_a = 0;
    for (int i = 0; i < 3; ++i) {
        double s = fabs(dA[i]) -
                   (A.h[i] + B.h[0] * absC[i][0] + B.h[1] * absC[i][1] + B.h[2] * absC[i][2]);
        if (!(s <= margin))
            return 0;
        if (s > sep_a) {
            sep_a = s;
            face_a = i;
        }
    }

    /* face axes of b */
    double sep_b = -HUGE_VAL;
    int face_b = 0;
    for (int j = 0; j < 3; ++j) {
        double s = fabs(dB[j]) -
                   (B.h[j] + A.h[0] * absC[0][j] + A.h[1] * absC[1][j] + A.h[2] * absC[2][j]);
        if (!(s <= margin))
            return 0;
        if (s > sep_b) {
            sep_b = s;
            face_b = j;
        }
    }

    /* edge axes a_i x b_j; in a's frame e_i x c_j, |.|^2 = c_i1^2 + c_i2^2 */
    double sep_e = -HUGE_VAL;
    int edge_i = -1, edge_j = -1;
    for (int i = 0; i < 3; ++i) {
        int i1 = k_next[i], i2 = k_next[i1];
        for (int j = 0; j < 3; ++j) {
            int j1 = k_next[j], j2 = k_next[j1];
            double len2 = C[i1][j] * C[i1][j] + C[i2][j] * C[i2][j];
            if (len2 < k_edge_eps2)
                continue;
            double proj = dA[i2] * C[i1][j] - dA[i1] * C[i2][j];
            double ra = A.h[i1] * absC[i2][j] + A.h[i2] * absC[i1][j];
            double rb = B.h[j1] * absC[i][j2] + B.h[j2] * absC[i][j1];
            double s = (fabs(proj) - (ra + rb)) / sqrt(len2);
            if (!(s <= margin))
                return 0;
            /* a_i x b_j along a face normal (a's: C_i1j, C_i2j; b's: C_ij1, C_ij2, over its length):
               an edge lying on a face, whose face contact gives the whole line; as the edge
               contact it would be one point at an end of it, which a tilt of 1e-4 rad could pick */
            double cmax = fmax(fmax(C[i1][j] * C[i1][j], C[i2][j] * C[i2][j]),
                               fmax(C[i][j1] * C[i][j1], C[i][j2] * C[i][j2]));
            if (cmax > k_edge_face_cos2 * len2)
                continue;
            if (s > sep_e) {
                sep_e = s;
                edge_i = i;
                edge_j = j;
            }
        }
    }

    /* prefer a's faces, then b's, then edges, within tolerances */
    double hmin = fmin(fmin(fmin(A.h[0], A.h[1]), fmin(A.h[2], B.h[0])), fmin(B.h[1], B.h[2]));
    double tol = k_abs_rel * fmax(hmin, 0.0);
    int ref_is_b = sep_b > sep_a + k_face_rel * fabs(sep_a) + tol;
    double sep_f = ref_is_b ? sep_b : sep_a;
    if (edge_i >= 0 && sep_e > sep_f + k_edge_rel * fabs(sep_f) + tol)
        return box_edge_contact(&A, &B, edge_i, edge_j, margin, out);
    if (!ref_is_b)
        return box_face_contacts(&A, &B, face_a, dA[face_a] >= 0.0 ? 1.0 : -1.0, 0, margin, out);
    return box_face_contacts(&B, &A, face_b, dB[face_b] > 0.0 ? -1.0 : 1.0, 1, margin, out);
}

/* ---- dispatch ---- */

/* canonical order only (type of a <= type of b); NULL: no routine (plane/plane;
   meshes go through the mesh pipeline and mo_cl_collide_triangle) */
static const pair_fn k_pair_table[MO_CL_SHAPE_COUNT][MO_CL_SHAPE_COUNT] = {
    [MO_CL_SPHERE][MO_CL_SPHERE] = collide_sphere_sphere,
    [MO_CL_SPHERE][MO_CL_BOX] = collide_sphere_box,
    [MO_CL_SPHERE][MO_CL_PLANE] = collide_sphere_plane,
    [MO_CL_SPHERE][MO_CL_CAPSULE] = mo_cl_pair_sphere_capsule,
    [MO_CL_SPHERE][MO_CL_CYLINDER] = mo_cl_pair_sphere_cylinder,
    [MO_CL_SPHERE][MO_CL_HULL] = mo_cl_pair_round_hull,
    [MO_CL_BOX][MO_CL_BOX] = collide_box_box,
    [MO_CL_BOX][MO_CL_PLANE] = collide_box_plane,
    [MO_CL_BOX][MO_CL_CAPSULE] = mo_cl_pair_box_capsule,
    [MO_CL_BOX][MO_CL_CYLINDER] = mo_cl_pair_cylinder_any,
    [MO_CL_BOX][MO_CL_HULL] = mo_cl_pair_poly_hull,
    [MO_CL_PLANE][MO_CL_CAPSULE] = mo_cl_pair_plane_capsule,
    [MO_CL_PLANE][MO_CL_CYLINDER] = mo_cl_pair_plane_cylinder,
    [MO_CL_PLANE][MO_CL_HULL] = mo_cl_pair_plane_hull,
    [MO_CL_CAPSULE][MO_CL_CAPSULE] = mo_cl_pair_capsule_capsule,
    [MO_CL_CAPSULE][MO_CL_CYLINDER] = mo_cl_pair_cylinder_any,
    [MO_CL_CAPSULE][MO_CL_HULL] = mo_cl_pair_round_hull,
    [MO_CL_CYLINDER][MO_CL_CYLINDER] = mo_cl_pair_cylinder_any,
    [MO_CL_CYLINDER][MO_CL_HULL] = mo_cl_pair_cylinder_any,
    [MO_CL_HULL][MO_CL_HULL] = mo_cl_pair_poly_hull,
};

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

int mo_cl_shape_usable(const mo_cl_object *o)
{
    if (!all_finite(o->pos, 3) || !all_finite(o->rot, 9) || !isfinite(o->margin))
        return 0;
    switch (o->type) {
    case MO_CL_SPHERE:
        return isfinite(o->radius);
    case MO_CL_BOX:
        return all_finite(o->he, 3);
    case MO_CL_PLANE:
        return 1;
    case MO_CL_CAPSULE:
        return o->radius >= 0.0 && o->half_height >= 0.0 && isfinite(o->radius) &&
               isfinite(o->half_height) && (o->radius + fmax(o->margin, 0.0) > 0.0 || o->half_height > 0.0);
    case MO_CL_CYLINDER:
        return o->radius > 0.0 && o->half_height > 0.0 && isfinite(o->radius) && isfinite(o->half_height);
    case MO_CL_HULL: {
        const mo_cl_hull *h = o->hull;
        return h && h->nverts >= 4 && h->nfaces >= 4 && h->verts && h->face_first && h->face_verts &&
               h->planes && (h->nedges == 0 || h->edges) && h->nedges >= 0;
    }
    default:
        return 0;
    }
}

void mo_cl_inflate_contacts(mo_cl_contact *c, int n, double ma, double mb)
{
    if (ma == 0.0 && mb == 0.0)
        return;
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            c[i].point_a[k] += ma * c[i].normal[k];
            c[i].point_b[k] -= mb * c[i].normal[k];
        }
        c[i].gap -= ma + mb;
    }
}

int mo_cl_collide(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin,
                  mo_cl_contact *out)
{
    if (a->type < 0 || a->type >= MO_CL_SHAPE_COUNT || b->type < 0 ||
        b->type >= MO_CL_SHAPE_COUNT)
        return 0;

    /* canonical order */
    int swap = a->type > b->type;
    const mo_cl_object *x = swap ? b : a;
    const mo_cl_object *y = swap ? a : b;
    pair_fn fn = k_pair_table[x->type][y->type];
    if (!fn || !mo_cl_shape_usable(x) || !mo_cl_shape_usable(y))
        return 0;

    /* bare shapes, cut-off grown by the margins, then inflated */
    double mx = x->margin > 0.0 ? x->margin : 0.0;
    double my = y->margin > 0.0 ? y->margin : 0.0;
    int n = fn(x, y, margin + mx + my, out);
    mo_cl_inflate_contacts(out, n, mx, my);

    /* report as (a, b): flip the normal and swap the points if swapped */
    for (int i = 0; i < n; ++i) {
        mo_cl_contact *c = &out[i];
        c->a = ia;
        c->b = ib;
        if (swap) {
            for (int k = 0; k < 3; ++k) {
                double t = c->point_a[k];
                c->point_a[k] = c->point_b[k];
                c->point_b[k] = t;
                c->normal[k] = -c->normal[k];
            }
        }
    }
    return n;
}
