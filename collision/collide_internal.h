/* collide_internal.h: what collide_narrow.c and collide_convex.c share inside the
 * collision layer (not part of collide.h, not for the engine).
 *
 * collide_narrow.c owns the [type][type] dispatch table, the margin handling
 * (every pair routine works on the bare shapes; mo_cl_collide inflates the
 * result by each object's margin) and the point reduction; collide_convex.c
 * owns the routines for capsules, cylinders, hulls and triangles (built on
 * convex_core.c, convex_manifold.c and convex_axes.c, which share
 * convex_internal.h). Pair routines take the pair in canonical order (type of
 * a <= type of b), margin is the contact cut-off (only gap < margin is
 * reported), the normal points from a to b, and they return the number of
 * contacts written (0..MO_CL_MAX_POINTS). */
#ifndef MOREAU_COLLIDE_INTERNAL_H
#define MOREAU_COLLIDE_INTERNAL_H

#include <stdint.h>

#include "collide.h"
#include "shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* writes one contact; point_b follows from point_a, gap and normal */
static inline void mo_cl_set_contact(mo_cl_contact *c, const double *n, const double *pa, double gap,
                                     uint32_t feature)
{
    for (int k = 0; k < 3; ++k) {
        c->normal[k] = n[k];
        c->point_a[k] = pa[k];
        c->point_b[k] = pa[k] + gap * n[k];
    }
    c->gap = gap;
    c->feature = feature;
}

/* most points a clipped polygon may hold (input of mo_cl_reduce_points) */
#define MO_CL_CLIP_CAP 128

/* a polygon vertex in reference face coordinates (x, y in the face plane, z the
   gap along the normal) and the label of the polygon edge leaving it */
typedef struct mo_cl_clip_pt {
    double x, y, z;
    int label;
} mo_cl_clip_pt;

/* Reduces n points (4 < n <= MO_CL_CLIP_CAP) to 4 in sel: the farthest from the
   centroid, the farthest from it, the largest triangle, the largest area added;
   near ties (relative 1e-3, plus tie_dist for the first pick) go to the lowest
   id, so the choice survives tiny pose changes. Uses x and y only. */
void mo_cl_reduce_points(const mo_cl_clip_pt *p, const uint32_t *ids, int n, double tie_dist, int sel[4]);

/* Moves n contacts computed for the bare shapes onto shapes inflated by ma
   (object a) and mb (object b): gap -= ma + mb, point_a += ma n, point_b -= mb n. */
void mo_cl_inflate_contacts(mo_cl_contact *c, int n, double ma, double mb);

/* small vector helpers of the collision files (cross3: out may alias a or b) */
#ifndef MO_DOT3_CROSS3 /* the tests' testutil.h has the same two */
#define MO_DOT3_CROSS3
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
#endif

/* pair routines of collide_convex.c, canonical order; margin fields ignored */
int mo_cl_pair_sphere_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_sphere_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_box_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
/* sphere or capsule / hull; box or hull / hull; a cylinder's pairs with box, capsule, cylinder, hull */
int mo_cl_pair_round_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_poly_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_cylinder_any(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_plane_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_plane_cylinder(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_plane_hull(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);
int mo_cl_pair_capsule_capsule(const mo_cl_object *a, const mo_cl_object *b, double margin, mo_cl_contact *out);

/* 1 when the object has a usable shape for the pair routines: finite pose and
   sizes, a capsule with some extent (radius + margin > 0 or half_height > 0), a
   cylinder with radius > 0 and half_height > 0, a hull with >= 4 vertices and
   faces and its arrays set. Spheres, boxes and planes: finite pose and sizes. */
int mo_cl_shape_usable(const mo_cl_object *o);

/* One-sided triangle (world vertices v0, v1, v2 in tri_world, counter-clockwise
 * seen from the front; front normal (v1 - v0) x (v2 - v0)) against a convex
 * object (sphere, box, capsule, cylinder or hull; convex->margin inflates it, a
 * mesh margin is the caller's: pass margin + thickness and shift the contacts).
 * Contacts only from the front: none when the convex object's centre is behind
 * the triangle's plane, and a contact whose normal would point through the back
 * is replaced by the face contact along the front normal. Normal: the
 * closest-feature direction (triangle edge or vertex) or the front normal.
 * flip = 0: the triangle is a and the convex object b (normal from the triangle
 * to the object); flip != 0: the object is a and the triangle b. Writes at most
 * MO_CL_MAX_POINTS contacts with gap < margin, a = b = -1 (the caller sets
 * them), feature ids stable within this triangle/object pair. Returns the
 * count; 0 for a degenerate triangle, NaN input or an unsupported type. */
int mo_cl_collide_triangle(const double tri_world[9], const mo_cl_object *convex, double margin, int flip,
                           mo_cl_contact *out);

#ifdef __cplusplus
}
#endif
#endif
