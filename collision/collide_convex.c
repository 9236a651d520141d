/* collide_convex.c: narrowphase pairs of capsules, cylinders, convex hulls and
 * one-sided triangles (the pairs of spheres, boxes and planes, the dispatch
 * table and the margin handling live in collide_narrow.c).
 *
 * Files. This one holds the analytic pairs, the pairs through the cores and
 * the one-sided triangle; what they stand on is in convex_core.c (polytope
 * views, cores, support functions, GJK, EPA), convex_manifold.c (support
 * features, clipping, manifolds) and convex_axes.c (separating axes, general
 * pairs through EPA and libccd's MPR), which share convex_internal.h.
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
#include "convex_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* ---- small helpers ---- */

/* exchange the roles of a and b */
/* out = v / len when len > tol (1); 0 (out untouched) when v is too short to give a direction */
static int unit_of(const double *v, double len, double tol, double *out)
{
    if (!(len > tol)) return 0;
    for (int k = 0; k < 3; ++k)
        out[k] = v[k] / len;
    return 1;
}

/* the point at d (from the plane's origin) in the plane's frame (u, v, normal pn): 1 with *k filled
 * (x, y along u, v, z its gap, the label) when its gap is below margin, else 0 */
static int plane_point(const double *d, const double *pn, const double *u, const double *v, double margin, int label,
                       mo_cl_clip_pt *k)
{
    double gap = dot3(pn, d);
    if (!(gap < margin)) return 0;
    k->x = dot3(d, u);
    k->y = dot3(d, v);
    k->z = gap;
    k->label = label;
    return 1;
}

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
    if (!unit_of(w, dist, 1e-12 * size, n)) {
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
                if (!unit_of(v, de, 1e-12 * size, ne)) copy3(n, ne);
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
        if (!plane_point(d, pn, u, v, margin, 0, &keep[nk]))
            continue;
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
        if (!plane_point(d, pn, u, v, margin, i, &keep[nk]))
            continue;
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
    mo_cl_cvx_from_object(&A, a, &sa);
    mo_cl_cvx_from_object(&B, b, &sb);
    if (!swap) return fn(&A, &B, margin, out);
    int n = fn(&B, &A, margin, out);
    flip_contacts(out, n);
    return n;
}

/* a sphere or capsule core against a hull */
int mo_cl_pair_round_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, mo_cl_collide_round_poly, 0);
}

/* a box against a capsule core (the box is the polytope: roles swapped) */
int mo_cl_pair_box_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, mo_cl_collide_round_poly, 1);
}

/* a box or hull against a hull */
int mo_cl_pair_poly_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, mo_cl_collide_poly_poly, 0);
}

/* a cylinder against a box, capsule, cylinder or hull (EPA candidates, libccd MPR) */
int mo_cl_pair_cylinder_any(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out)
{
    return via_cores(a, b, margin, out, mo_cl_collide_general, 0);
}

/* ---- one-sided triangle against a convex object ---- */

/* closest_on_triangle's answers: a corner x, or the point x + s d on an edge; region r */
static void corner(const double *x, uint32_t r, double *q, uint32_t *region)
{
    copy3(x, q);
    *region = r;
}

static void on_edge(const double *x, double s, const double *d, uint32_t r, double *q, uint32_t *region)
{
    madd3(x, s, d, q);
    *region = r;
}

/* closest point of triangle t to p (Ericson 5.1.5); region as in the ids */
static void closest_on_triangle(const double *t, const double *p, double *q, uint32_t *region)
{
    const double *a = t, *b = t + 3, *c = t + 6;
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(p, a, ap);
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { corner(a, 4, q, region); return; }
    sub3(p, b, bp);
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { corner(b, 5, q, region); return; }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) { on_edge(a, d1 / (d1 - d3), ab, 1, q, region); return; }
    sub3(p, c, cp);
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { corner(c, 6, q, region); return; }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) { on_edge(a, d2 / (d2 - d6), ac, 3, q, region); return; }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double bc[3];
        sub3(c, b, bc);
        on_edge(b, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc, 2, q, region);
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
    mo_cl_tri_poly_init(&tp, tri_world, nt);
    cvx T, X;
    cvx_store st;
    mo_cl_cvx_from_triangle(&T, &tp);
    mo_cl_cvx_from_object(&X, convex, &st);
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
        n = mo_cl_collide_round_poly(&X, &T, cut, out);
        flip_contacts(out, n);
        break;
    case CV_POLY:
        n = mo_cl_collide_poly_poly(&T, &X, cut, out);
        break;
    default:
        n = mo_cl_collide_general(&T, &X, cut, out);
        break;
    }

    /* a normal through the back: the face contact along the front normal */
    if (n > 0 && dot3(out[0].normal, nt) < 0.0) {
        double mn[3] = {-nt[0], -nt[1], -nt[2]};
        double gap = -mo_cl_support_value(&X, mn) - dot3(nt, v0) - X.r;
        n = 0;
        if (gap < cut)
            n = mo_cl_make_manifold(&T, &X, nt, gap, NULL, cut, out);
    }

    mo_cl_inflate_contacts(out, n, 0.0, mx);
    if (flip)
        flip_contacts(out, n);
    for (int i = 0; i < n; ++i)
        out[i].a = out[i].b = -1;
    return n;
}
