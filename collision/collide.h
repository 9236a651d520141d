/* collide.h: the collision layer's interface to the engine (internal, not public).
 *
 * Shapes: sphere, box, plane, capsule, cylinder, convex hull, triangle mesh
 * (shapes.h has the hull and mesh structures, mass properties, ray casts and
 * the dynamic AABB tree broadphase). Narrowphase: mo_cl_collide dispatches
 * through a [type][type] table (collide_narrow.c: sphere/box/plane pairs and
 * box/box SAT with clipping; collide_convex.c: capsule, cylinder and hull
 * pairs), meshes go through mo_cl_collide_mesh (collide_mesh.c). The
 * sort-and-sweep mo_cl_broadphase below is the reference the tree broadphase
 * is tested against.
 *
 * Conventions: double precision; rotations are row-major 3x3 world matrices
 * (world = R * local); a contact's normal points from object a to object b; gap
 * is the signed distance along the normal (negative when penetrating); point_a
 * and point_b are the closest surface points on a and b (point_b = point_a +
 * gap * normal). */
#ifndef MOREAU_COLLIDE_H
#define MOREAU_COLLIDE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MO_CL_NONE = 0,
    MO_CL_SPHERE = 1,
    MO_CL_BOX = 2,
    MO_CL_PLANE = 3, /* half-space z <= 0 in the object's frame: world normal R*(0,0,1), through pos */
    MO_CL_CAPSULE = 4, /* segment (0,0,+-half_height) swept by radius (shapes.h) */
    MO_CL_CYLINDER = 5, /* axis z, caps at +-half_height, radius */
    MO_CL_HULL = 6,   /* convex hull (shapes.h: mo_cl_hull) */
    MO_CL_MESH = 7,   /* triangle mesh with a BVH (shapes.h: mo_cl_mesh) */
    MO_CL_SHAPE_COUNT
};

typedef struct mo_cl_object {
    int type;            /* MO_CL_* */
    double radius;       /* sphere */
    double he[3];        /* box half extents */
    double pos[3];       /* world position of the shape's centre (plane: a point on it) */
    double rot[9];       /* world rotation, row-major */
    double aabb_min[3];  /* filled by mo_cl_update_aabb (planes: unused) */
    double aabb_max[3];
    int is_static;       /* static objects are never paired with each other */
    uint32_t group;      /* objects sharing a non-zero group are never paired */
    int user;            /* engine's index (body slot); not used by this layer */
    /* issue 3 shapes (zero for the foundation's primitives) */
    double half_height;  /* capsule, cylinder */
    const struct mo_cl_hull *hull;  /* MO_CL_HULL */
    const struct mo_cl_mesh *mesh;  /* MO_CL_MESH */
    double margin;       /* collision margin/thickness added around the shape, m >= 0 */
} mo_cl_object;

typedef struct mo_cl_contact {
    int a, b;            /* object indices as passed in (after any swap, a and b as reported) */
    double normal[3];    /* unit, from a to b */
    double point_a[3];   /* on a's surface, world */
    double point_b[3];   /* on b's surface, world */
    double gap;          /* signed distance, m */
    uint32_t feature;    /* stable id of the feature pair within this object pair (for warm starting) */
} mo_cl_contact;

#define MO_CL_MAX_POINTS 4

/* Fills aabb_min/max from the pose and shape, grown by margin on every side. */
void mo_cl_update_aabb(mo_cl_object *o, double margin);

/* Contacts between objects a and b with gap < margin. Writes at most
 * MO_CL_MAX_POINTS contacts to out (with a = ia, b = ib in each contact, normal from
 * a to b whatever the internal order of shape types) and returns how many.
 * Pairs of types this layer has no routine for (plane/plane) return 0. */
int mo_cl_collide(const mo_cl_object *a, int ia, const mo_cl_object *b, int ib, double margin,
                  mo_cl_contact *out);

/* Optional pair filter: return 0 to drop pair (a, b) (e.g. bodies joined by a joint). */
typedef int (*mo_cl_filter_fn)(void *ctx, int a, int b);

typedef struct mo_cl_pairs {
    int (*pairs)[2]; /* pairs[k][0] < pairs[k][1] are object indices */
    int count;
    int capacity;
} mo_cl_pairs;

/* Candidate pairs whose AABBs overlap (planes: whose AABB crosses the plane's
 * half-space), excluding static/static pairs and same-group pairs and those the
 * filter drops. AABBs must be up to date. Sort-and-sweep: O(n log n + pairs).
 * Output is sorted by (a, b), so it is deterministic. Grows pairs->pairs with
 * realloc; returns 0, or -1 when out of memory. */
int mo_cl_broadphase(const mo_cl_object *objs, int n, mo_cl_filter_fn filter, void *ctx,
                     mo_cl_pairs *pairs);
void mo_cl_pairs_free(mo_cl_pairs *pairs);

#ifdef __cplusplus
}
#endif
#endif
