/* collide_surface.c: rigid shapes against a deformable surface (an FEM
 * mesh's boundary triangles): the narrowphase behind the FEM surface contacts
 * (engine/step/fem_contacts.c keeps the rows, their warm start and the
 * shapes' points). Three kinds of points, each of the shape on one triangle,
 * with the triangle's outward normal and the barycentric weights of the point
 * under it:
 *   1. vertices (box and hull corners, sphere and capsule-cap centres, a
 *      triangle mesh's vertices near the surface): within the margin outside a
 *      triangle they project into, or, when inside the mesh, at most that
 *      triangle's longest edge inside (the nearest such triangle);
 *   2. edges (boxes, hulls, triangle meshes) where they cross the walls of a
 *      triangle's prism (the planes through its edges along its normal);
 *   3. capsules and cylinders: the points the convex/triangle routine
 *      (mo_cl_collide_triangle) finds, on triangles that hold none of the
 *      shape's vertex points.
 * A convex polytope's lowest point along -n over a triangle is a vertex of
 * the polytope (1), a node of the triangle (the node's particle contact) or a
 * crossing (2), so these cover it. The caller's sink takes each point and
 * says whether the shape already has one there (a crossing on an edge shared
 * by two triangles, a cap centre on a neighbouring triangle). */
#include <math.h>
#include <stdbool.h>
#include "collide_internal.h"
#include "collide_surface.h"
#include "kernels/vec.h"

bool mo_cl_surface_inside(const mo_cl_surface *s, const double *p)
{
    for (int t = 0; t < s->ntets; t++) {
        const double *x[4];
        for (int a = 0; a < 4; a++) x[a] = s->x + 3 * s->tets[4 * t + a];
        /* p is inside when replacing any vertex by p keeps every sub-volume >= 0 */
        bool in = true;
        for (int a = 0; a < 4 && in; a++) {
            const double *y[4] = {x[0], x[1], x[2], x[3]};
            y[a] = p;
            double e1[3], e2[3], e3[3], c[3];
            mo_v3_sub(e1, y[1], y[0]);
            mo_v3_sub(e2, y[2], y[0]);
            mo_v3_sub(e3, y[3], y[0]);
            mo_v3_cross(c, e2, e3);
            in = mo_v3_dot(e1, c) >= 0.0;
        }
        if (in) return true;
    }
    return false;
}

bool mo_cl_surface_project(const mo_cl_surface *s, int tr, const double *v, double tol, double *d_out, double *bb,
                           double *bn, double *lmax)
{
    const double *a = s->x + 3 * s->tris[3 * tr];
    const double *b = s->x + 3 * s->tris[3 * tr + 1];
    const double *c = s->x + 3 * s->tris[3 * tr + 2];
    double e1[3], e2[3], e3[3], nrm[3], av[3];
    mo_v3_sub(e1, b, a);
    mo_v3_sub(e2, c, a);
    mo_v3_sub(e3, c, b);
    mo_v3_cross(nrm, e1, e2);
    double a2 = mo_v3_dot(nrm, nrm);
    if (!(a2 > 0.0)) return false;
    mo_v3_sub(av, v, a);
    *d_out = mo_v3_dot(av, nrm) / sqrt(a2);
    *lmax = sqrt(fmax(mo_v3_dot(e1, e1), fmax(mo_v3_dot(e2, e2), mo_v3_dot(e3, e3))));
    double cr[3], w1, w2;
    mo_v3_cross(cr, av, e2);
    w1 = mo_v3_dot(cr, nrm) / a2;
    mo_v3_cross(cr, e1, av);
    w2 = mo_v3_dot(cr, nrm) / a2;
    double w0 = 1.0 - w1 - w2;
    if (w0 < -tol || w1 < -tol || w2 < -tol) return false;
    w0 = fmax(w0, 0.0), w1 = fmax(w1, 0.0), w2 = fmax(w2, 0.0);
    double ws = w0 + w1 + w2;
    bb[0] = w0 / ws, bb[1] = w1 / ws, bb[2] = w2 / ws;
    mo_v3_scale(bn, nrm, 1.0 / sqrt(a2));
    return true;
}

/* the triangle's corners */
static void tri_corners(const mo_cl_surface *s, int tr, const double *x[3])
{
    for (int a = 0; a < 3; a++) x[a] = s->x + 3 * s->tris[3 * tr + a];
}

int mo_cl_surface_vertices(const mo_cl_surface *s, const double *lo, const double *hi, const double *v, const int *vid,
                           int nv, double rad, double margin, const mo_cl_surface_sink *k)
{
    for (int vi = 0; vi < nv; vi++) {
        const double *p = v + 3 * vi;
        if (p[0] < lo[0] - rad || p[1] < lo[1] - rad || p[2] < lo[2] - rad || p[0] > hi[0] + rad ||
            p[1] > hi[1] + rad || p[2] > hi[2] + rad)
            continue;
        /* inside the mesh (in one of its tetrahedra) or not: a vertex inside is pushed out through the
           nearest boundary triangle it projects into (at most that triangle's longest edge deep), one
           outside only meets a triangle it is at most the margin above */
        const bool inside = mo_cl_surface_inside(s, p);
        int best = -1;
        double bd = INFINITY, bn[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
        for (int tr = 0; tr < s->ntris; tr++) {
            double d, lmax, tb[3], tn[3];
            if (!mo_cl_surface_project(s, tr, p, 1e-9, &d, tb, tn, &lmax)) continue;
            if (inside ? (d > 0.0 || d < -lmax) : (d < 0.0 || d - rad > margin)) continue;
            if (fabs(d) >= fabs(bd)) continue;
            best = tr;
            bd = d;
            mo_v3_copy(bn, tn);
            mo_v3_copy(bb, tb);
        }
        if (best < 0) continue;
        if (k->push(k->user, best, bb, bn, vid ? vid[vi] : vi, 0u, p, rad)) return -1;
    }
    return 0;
}

int mo_cl_surface_edges(const mo_cl_surface *s, const double *v, int nv, const int *edges, const int *edge_ids, int ne,
                        bool edge_boxes, const double *cen, double margin, const mo_cl_surface_sink *k)
{
    double slo[3] = {INFINITY, INFINITY, INFINITY}, shi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int vi = 0; vi < nv; vi++)
        for (int c = 0; c < 3; c++) {
            slo[c] = fmin(slo[c], v[3 * vi + c] - margin);
            shi[c] = fmax(shi[c], v[3 * vi + c] + margin);
        }
    for (int tr = 0; tr < s->ntris; tr++) {
        const double *x[3];
        bool apart = false;
        tri_corners(s, tr, x);
        for (int c = 0; c < 3 && !apart; c++)
            apart = fmax(x[0][c], fmax(x[1][c], x[2][c])) < slo[c] || fmin(x[0][c], fmin(x[1][c], x[2][c])) > shi[c];
        if (apart) continue;
        double e1[3], e2[3], tn[3];
        mo_v3_sub(e1, x[1], x[0]);
        mo_v3_sub(e2, x[2], x[0]);
        mo_v3_cross(tn, e1, e2);
        double tl = mo_v3_norm(tn);
        if (!(tl > 0.0)) continue;
        mo_v3_scale(tn, tn, 1.0 / tl);
        /* one-sided, as the layer's triangles: the shape's centre in front of the triangle */
        double dc[3];
        mo_v3_sub(dc, cen, x[0]);
        if (mo_v3_dot(dc, tn) < 0.0) continue;
        for (int ed = 0; ed < ne; ed++) {
            const int i0 = edges[2 * ed], i1 = edges[2 * ed + 1];
            if (edge_boxes) {
                bool near = true; /* the edge's box against the triangle's, grown by the margin */
                for (int c = 0; c < 3 && near; c++) {
                    double elo = fmin(v[3 * i0 + c], v[3 * i1 + c]) - margin;
                    double ehi = fmax(v[3 * i0 + c], v[3 * i1 + c]) + margin;
                    near = fmax(x[0][c], fmax(x[1][c], x[2][c])) >= elo && fmin(x[0][c], fmin(x[1][c], x[2][c])) <= ehi;
                }
                if (!near) continue;
            }
            const double *p0 = v + 3 * i0, *p1 = v + 3 * i1;
            for (int side = 0; side < 3; side++) {
                /* wall through x[side] -> x[side + 1], containing tn: normal (x1 - x0) x tn */
                double ee[3], wn[3], d0[3], d1[3];
                mo_v3_sub(ee, x[(side + 1) % 3], x[side]);
                mo_v3_cross(wn, ee, tn);
                mo_v3_sub(d0, p0, x[side]);
                mo_v3_sub(d1, p1, x[side]);
                double s0 = mo_v3_dot(d0, wn), s1 = mo_v3_dot(d1, wn), pe[3];
                mo_v3_sub(pe, p1, p0);
                /* a crossing, not an edge lying in the wall (a bar's bottom edge in the wall through a side
                   triangle's top edge gave points anywhere along it) */
                if ((s0 > 0.0) == (s1 > 0.0) || !(fabs(s0 - s1) > 1e-6 * mo_v3_norm(wn) * mo_v3_norm(pe))) continue;
                double u = s0 / (s0 - s1), q[3];
                for (int c = 0; c < 3; c++) q[c] = p0[c] + u * pe[c];
                double d, lmax, tb[3], bn[3];
                if (!mo_cl_surface_project(s, tr, q, 1e-9, &d, tb, bn, &lmax)) continue;
                if (d > margin || d < -lmax) continue;
                if (k->dup(k->user, q, lmax)) continue;
                const uint32_t feat = (uint32_t)(3 * edge_ids[ed] + side);
                if (k->push(k->user, tr, tb, bn, -1, feat, q, 0.0)) return -1;
            }
        }
    }
    return 0;
}

int mo_cl_surface_convex(const mo_cl_surface *s, const double *lo, const double *hi, const mo_cl_object *o,
                         double margin, const mo_cl_surface_sink *k)
{
    if (o->aabb_max[0] < lo[0] || o->aabb_max[1] < lo[1] || o->aabb_max[2] < lo[2] || o->aabb_min[0] > hi[0] ||
        o->aabb_min[1] > hi[1] || o->aabb_min[2] > hi[2])
        return 0;
    for (int tr = 0; tr < s->ntris; tr++) {
        double tw[9];
        bool apart = false;
        for (int a = 0; a < 3; a++) mo_v3_copy(tw + 3 * a, s->x + 3 * s->tris[3 * tr + a]);
        for (int c = 0; c < 3 && !apart; c++) {
            double tl = fmin(tw[c], fmin(tw[3 + c], tw[6 + c])), th = fmax(tw[c], fmax(tw[3 + c], tw[6 + c]));
            apart = th < o->aabb_min[c] || tl > o->aabb_max[c];
        }
        if (apart || k->has_tri(k->user, tr)) continue;
        mo_cl_contact out[MO_CL_MAX_POINTS];
        int nc = mo_cl_collide_triangle(tw, o, margin, 0, out);
        for (int i = 0; i < nc; i++) {
            /* the shape's point: point_b on its surface; for a capsule its core point on the axis (carried
               exactly by the body while it rolls) with the radius */
            double p[3], r = 0.0;
            mo_v3_copy(p, out[i].point_b);
            /* a cylinder's side (the layer's normal within sin = 0.05 of across its axis, the rotation's
               third column, the layer's own tolerance for a side line): the point r inside along the
               normal, near the axis, with the radius (taken as a material point of the surface, a
               cylinder lying across the slab started rolling: 2.6 rad/s after 1.5 s) */
            double ax[3] = {o->rot[2], o->rot[5], o->rot[8]};
            if (o->type == MO_CL_CAPSULE || (o->type == MO_CL_CYLINDER && fabs(mo_v3_dot(ax, out[i].normal)) < 0.05)) {
                r = o->radius + (o->margin > 0.0 ? o->margin : 0.0);
                mo_v3_axpy(p, r, out[i].normal);
            }
            double d, lmax, tb[3], tn[3];
            if (!mo_cl_surface_project(s, tr, p, 1e-3, &d, tb, tn, &lmax)) continue;
            if (d - r > margin || d < -lmax) continue;
            /* a point this shape already has (a cap centre on a neighbouring triangle, or the same point of
               the layer on the triangle across a shared edge: the layer's clipping grows a triangle by its
               slop) would be a second, identical row, and the Schur system singular along their difference */
            if (k->dup(k->user, p, lmax)) continue;
            if (k->push(k->user, tr, tb, tn, -1, out[i].feature, p, r)) return -1;
        }
    }
    return 0;
}
