/* collide_surface.h: rigid shapes against a deformable surface, the boundary
 * triangles of an FEM mesh (collide_surface.c); the engine's FEM surface
 * contacts (engine/step/fem_contacts.c) call these. Internal, not installed. */
#ifndef MOREAU_COLLIDE_SURFACE_H
#define MOREAU_COLLIDE_SURFACE_H

#include <stdbool.h>
#include <stdint.h>
#include "collide.h"

/* a surface: node positions (3 per node, world), its boundary triangles (3 node
 * indices each, wound outward) and the tetrahedra (4 node indices each) that
 * tell inside from outside */
typedef struct mo_cl_surface {
    const double *x;
    const int *tris;
    int ntris;
    const int *tets;
    int ntets;
} mo_cl_surface;

/* where the points go: push takes the shape's point p on triangle tri (weights b of the point under
 * it, outward normal n, the shape's vertex index or -1, the feature id of a crossing or of the
 * layer's point, rad the radius around p) and returns 0, or -1 to stop (out of memory); dup says
 * whether the shape already has a point at p (lmax: the triangle's longest edge, for the
 * tolerance); has_tri whether it already has a vertex point on triangle tri */
typedef struct mo_cl_surface_sink {
    void *user;
    int (*push)(void *user, int tri, const double b[3], const double n[3], int vertex, uint32_t feat,
                const double p[3], double rad);
    bool (*dup)(void *user, const double p[3], double lmax);
    bool (*has_tri)(void *user, int tri);
} mo_cl_surface_sink;

/* whether p lies in one of the surface's tetrahedra */
bool mo_cl_surface_inside(const mo_cl_surface *s, const double *p);

/* p's projection on triangle tr along its normal: the signed distance *d (outward positive), the
 * barycentric weights bb and outward unit normal bn, the longest edge *lmax; false for a degenerate
 * triangle or a projection outside it (a weight below -tol, the weights then clamped: tol 1e-9 for
 * the shapes' own points, 1e-3 for the layer's, which clips against side planes grown by its slop) */
bool mo_cl_surface_project(const mo_cl_surface *s, int tr, const double *p, double tol, double *d, double *bb,
                           double *bn, double *lmax);

/* 1. the shape's points v (nv, world; vid their ids, NULL: their index) with radius rad: each on the
 * nearest triangle it projects into, within margin outside it or, inside the mesh, at most that
 * triangle's longest edge inside; points outside the box [lo - rad, hi + rad] are skipped.
 * 0, or -1 when push stopped. */
int mo_cl_surface_vertices(const mo_cl_surface *s, const double *lo, const double *hi, const double *v, const int *vid,
                           int nv, double rad, double margin, const mo_cl_surface_sink *k);

/* 2. the edges (ne pairs of indices into v, ids edge_ids[e] for the features 3 id + side) where they
 * cross a triangle's prism walls, within margin above (at most the longest edge below) it, on
 * triangles facing the shape's centre cen; edge_boxes: skip edges whose box (grown by margin) misses
 * the triangle's (a triangle mesh's many edges). 0, or -1 when push stopped. */
int mo_cl_surface_edges(const mo_cl_surface *s, const double *v, int nv, const int *edges, const int *edge_ids, int ne,
                        bool edge_boxes, const double *cen, double margin, const mo_cl_surface_sink *k);

/* 3. a capsule or cylinder o (its AABB filled, grown by margin) against the triangles of the box
 * [lo, hi] that hold none of its vertex points: mo_cl_collide_triangle's points that project into
 * their triangle, a capsule's (and a cylinder side's) taken on its axis with the radius.
 * 0, or -1 when push stopped. */
int mo_cl_surface_convex(const mo_cl_surface *s, const double *lo, const double *hi, const mo_cl_object *o,
                         double margin, const mo_cl_surface_sink *k);

#endif
