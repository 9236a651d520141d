/* shapes.h: the collision layer beyond the foundation's primitives (issue 3):
 * capsules, cylinders, convex hulls (qhull), triangle meshes with a BVH, mass
 * properties of closed shapes, ray casts, and the dynamic AABB tree
 * broadphase. Internal, not public. Conventions as in collide.h: double
 * precision, row-major rotations (world = R * local), normals from a to b,
 * gap < 0 when penetrating.
 *
 * Local frames of the new shapes:
 *   capsule:  segment from (0, 0, -half_height) to (0, 0, +half_height), radius
 *   cylinder: axis z, caps at z = +-half_height, radius
 *   hull:     the hull's vertices as given (its own local frame)
 *   mesh:     the mesh's vertices as given */
#ifndef MOREAU_SHAPES_H
#define MOREAU_SHAPES_H

#include <stddef.h>
#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* writes a sentence into a caller's buffer (err may be NULL); used by the builders below */
void mo_cl_set_err(char *err, size_t err_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- convex hull ---- */

typedef struct mo_cl_hull {
    int nverts;
    double *verts;        /* (nverts x 3) local */
    int nfaces;
    int *face_first;      /* (nfaces + 1) offsets into face_verts */
    int *face_verts;      /* each face's vertex indices, counter-clockwise seen from outside; coplanar
                             facets merged into one polygon */
    double *planes;       /* (nfaces x 4): outward unit normal (3) and offset d: n . x <= d inside */
    int nedges;
    int *edges;           /* (nedges x 2) unique edges (vertex index pairs) */
    double center[3];     /* centroid of the vertices */
    double radius;        /* bounding sphere radius about center */
} mo_cl_hull;

/* Convex hull of n >= 4 non-coplanar points with qhull (reentrant libqhull_r).
 * Returns 0, or -1 with a sentence in err (fewer than 4 points, NaN, all
 * points coplanar or coincident, qhull failure). out is zeroed on failure. */
int mo_cl_hull_build(const double *pts, int n, mo_cl_hull *out, char *err, size_t err_size);
void mo_cl_hull_free(mo_cl_hull *h);

/* ---- triangle mesh with a bounding volume hierarchy ---- */

typedef struct mo_cl_bvh_node {
    double lo[3], hi[3];
    int first;            /* leaf: first index into tri_order; inner: index of the left child (right = left + 1) */
    int count;            /* leaf: number of triangles (> 0); inner: 0 */
} mo_cl_bvh_node;

typedef struct mo_cl_mesh {
    int nverts, ntris;
    double *verts;        /* (nverts x 3) local */
    int *tris;            /* (ntris x 3) vertex indices, counter-clockwise seen from outside */
    int nnodes;
    mo_cl_bvh_node *nodes;/* node 0 is the root */
    int *tri_order;       /* (ntris) triangle indices in leaf order */
    int closed;           /* every edge shared by exactly two triangles, in opposite directions */
    double centroid[3];   /* mean of the vertices (local) */
} mo_cl_mesh;

/* Copies the arrays and builds the BVH (binned SAH or median split, leaves of
 * <= 4 triangles). Returns 0, or -1 with a sentence in err (no triangles, an
 * index out of range, NaN, a degenerate zero-area triangle named by index). */
int mo_cl_mesh_build(const double *verts, int nverts, const int *tris, int ntris, mo_cl_mesh *out, char *err,
                     size_t err_size);
void mo_cl_mesh_free(mo_cl_mesh *m);
/* calls fn(ctx, tri) for every triangle whose box overlaps [lo, hi] (local frame) */
void mo_cl_mesh_query(const mo_cl_mesh *m, const double *lo, const double *hi, void (*fn)(void *ctx, int tri),
                      void *ctx);

/* Contacts between a mesh and a convex shape, a plane or another mesh (either
 * may be a or b; collide_mesh.c): BVH query (mesh/mesh: both BVHs walked
 * together, each triangle of b standing for the prism of solid behind it),
 * one-sided triangle contacts, at most MO_CL_MAX_POINTS spread-out points. */
int mo_cl_collide_mesh(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin, mo_cl_contact *out);

/* ---- mass properties (unit density) ---- */

typedef struct mo_cl_mass {
    double volume;        /* m^3 (= mass at density 1) */
    double com[3];        /* centre of mass, local frame */
    double inertia[9];    /* about the centre of mass, local axes, row-major, per unit density */
} mo_cl_mass;

/* Closed shapes: sphere, box, capsule, cylinder, hull, closed mesh (divergence
 * theorem over its triangles). Returns 0, or -1 for shapes with no volume
 * (plane, open mesh). */
int mo_cl_mass_properties(const mo_cl_object *o, mo_cl_mass *out);

/* ---- ray casts ---- */

/* Ray origin + t dir (world, dir need not be unit), t in [0, tmax]: the first hit
 * on object o's surface; returns 1 with *t and the outward unit normal, else 0.
 * A ray starting inside a solid shape hits at t = 0 with normal -dir/|dir|. */
int mo_cl_raycast(const mo_cl_object *o, const double *origin, const double *dir, double tmax, double *t,
                  double *normal);

/* ---- dynamic AABB tree broadphase ---- */

typedef struct mo_cl_tree mo_cl_tree;

mo_cl_tree *mo_cl_tree_create(void);
void mo_cl_tree_destroy(mo_cl_tree *t);
/* adds a proxy for user value `user` with a fat box; returns the proxy id (>= 0) or -1 (out of memory) */
int mo_cl_tree_insert(mo_cl_tree *t, const double *lo, const double *hi, int user);
void mo_cl_tree_remove(mo_cl_tree *t, int proxy);
/* if [lo, hi] is no longer inside the proxy's fat box, re-inserts it with the box grown by margin and
 * extended by displacement (the step's motion); returns 1 when it re-inserted */
int mo_cl_tree_move(mo_cl_tree *t, int proxy, const double *lo, const double *hi, const double *displacement,
                    double margin);
void mo_cl_tree_fat_box(const mo_cl_tree *t, int proxy, double *lo, double *hi);
/* calls cb for every proxy whose fat box overlaps [lo, hi]; cb returns 0 to stop */
void mo_cl_tree_query(const mo_cl_tree *t, const double *lo, const double *hi, int (*cb)(void *ctx, int proxy, int user),
                      void *ctx);
/* calls cb for proxies whose fat box the ray origin + s dir, s in [0, tmax] crosses, nearest-first pruning:
 * cb returns the new tmax (a hit clips the ray), or tmax unchanged, or < 0 to stop */
void mo_cl_tree_raycast(const mo_cl_tree *t, const double *origin, const double *dir, double tmax,
                        double (*cb)(void *ctx, int proxy, int user, double tmax), void *ctx);
int mo_cl_tree_height(const mo_cl_tree *t);
int mo_cl_tree_count(const mo_cl_tree *t);

/* The engine's broadphase: one tree for static objects, one for moving ones.
 * Objects are the engine's mo_cl_object array; an object is identified across
 * calls by (user, its occurrence among objects with that user value), and its
 * proxy is updated incrementally: re-inserted only when its margin box leaves
 * its fat box (margin box + margin, extended by the displacement). Candidate
 * pairs are cached between calls; only re-inserted proxies query the trees.
 * The pairs are those of mo_cl_broadphase computed over the fat boxes: a
 * superset of its pairs over margin boxes. */
typedef struct mo_cl_broadphase_tree mo_cl_broadphase_tree;
mo_cl_broadphase_tree *mo_cl_bp_create(void);
void mo_cl_bp_destroy(mo_cl_broadphase_tree *bp);
/* Brings the proxies in line with objs[0..n) (objects appear, disappear and
 * move; objs[i].user identifies an object across calls, static ones go to the
 * static tree, planes are kept apart as in mo_cl_broadphase), with fat boxes
 * grown by margin plus the step's displacement disp[i] (3 per object, may be
 * NULL), then writes the candidate pairs exactly as mo_cl_broadphase does (same
 * filter rules, pairs sorted by (a, b), a < b object indices). Returns 0 or -1. */
int mo_cl_bp_update_pairs(mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, const double *disp,
                          double margin, mo_cl_filter_fn filter, void *ctx, mo_cl_pairs *pairs);
/* Tuning (takes effect from the next update; defaults slack = margin, exact = 0):
 *   slack  fat boxes are the margin box grown by slack (m, >= 0; < 0: the
 *          update's margin) plus the displacement. A larger slack means fewer
 *          re-insertions and queries for slowly moving objects, more cached pairs.
 *   exact  1: report only the cached pairs whose margin boxes overlap, i.e.
 *          exactly mo_cl_broadphase's pairs over margin boxes, whatever the fat
 *          boxes' history; 0: every pair whose fat boxes overlap.
 * Returns 0, or -1 (NULL bp, NaN or infinite slack) leaving the settings unchanged. */
int mo_cl_bp_configure(mo_cl_broadphase_tree *bp, double slack, int exact);
/* The proxy half of mo_cl_bp_update_pairs (same arguments, same identity and
 * fat box rules): objects appear, disappear and move in the trees, without
 * computing pairs. For queries between updates (the world's ray cast and box
 * query); the proxies it (re-)inserts have their pairs found by the next
 * update, whose result is the same as without the sync. Returns 0 or -1. */
int mo_cl_bp_sync(mo_cl_broadphase_tree *bp, const mo_cl_object *objs, int n, const double *disp, double margin);

#ifdef __cplusplus
}
#endif
#endif
