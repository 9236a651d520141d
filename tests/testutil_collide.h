/* testutil_collide.h: helpers shared by the tests of the collision layer
 * (collision/collide.h; test_collision, test_collision_convex): objects,
 * contact and argument-order checks, feature ids under perturbation. The
 * checks here only compute; each test counts and reports them itself.
 * Includes testutil.h (and through it check.h). */
#ifndef MO_TEST_UTIL_COLLIDE_H
#define MO_TEST_UTIL_COLLIDE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collision/collide.h"
#include "testutil.h"

/* ---- objects ---- */

/* an object of the given type at (x, y, z), rotation R (NULL: identity), all else zero */
static inline mo_cl_object obj_base(int type, double x, double y, double z, const double *R)
{
    mo_cl_object o;
    memset(&o, 0, sizeof o);
    o.type = type;
    o.pos[0] = x;
    o.pos[1] = y;
    o.pos[2] = z;
    if (R)
        memcpy(o.rot, R, sizeof o.rot);
    else
        mat_identity(o.rot);
    return o;
}

static inline mo_cl_object make_sphere(double x, double y, double z, double r)
{
    mo_cl_object o = obj_base(MO_CL_SPHERE, x, y, z, NULL);
    o.radius = r;
    return o;
}

static inline mo_cl_object make_box(double x, double y, double z, double hx, double hy, double hz,
                                    const double *R)
{
    mo_cl_object o = obj_base(MO_CL_BOX, x, y, z, R);
    o.he[0] = hx;
    o.he[1] = hy;
    o.he[2] = hz;
    return o;
}

/* a static plane through (x, y, z), normal the third column of R (NULL: +z) */
static inline mo_cl_object make_plane(double x, double y, double z, const double *R)
{
    mo_cl_object o = obj_base(MO_CL_PLANE, x, y, z, R);
    o.is_static = 1;
    return o;
}

/* ---- contacts ---- */

/* contact c has ids ia and ib, a unit normal (1e-12), point_b = point_a +
   gap normal (1e-9 per component) and gap < margin */
static inline int contact_basic_ok(const mo_cl_contact *c, int ia, int ib, double margin)
{
    int ok = 1;
    ok &= c->a == ia && c->b == ib;
    ok &= fabs(sqrt(dot3(c->normal, c->normal)) - 1.0) <= 1e-12;
    for (int k = 0; k < 3; ++k)
        ok &= fabs(c->point_b[k] - c->point_a[k] - c->gap * c->normal[k]) <= 1e-9;
    ok &= c->gap < margin;
    return ok;
}

/* collide(a, b) and collide(b, a): the same nonzero number of contacts, and
   each of the first matched in the second up to order, with the ids swapped,
   the gap to ntol, the normal opposite to ntol and the points swapped to ptol
   (per component); the two counts go to *n1 and *n2 */
static inline int swap_same(const mo_cl_object *a, const mo_cl_object *b, double margin, double ntol,
                            double ptol, int *n1, int *n2)
{
    mo_cl_contact c1[MO_CL_MAX_POINTS], c2[MO_CL_MAX_POINTS];
    *n1 = mo_cl_collide(a, 0, b, 1, margin, c1);
    *n2 = mo_cl_collide(b, 1, a, 0, margin, c2);
    int ok = *n1 == *n2 && *n1 > 0;
    for (int i = 0; ok && i < *n1; ++i) {
        int found = 0;
        for (int j = 0; j < *n2 && !found; ++j) {
            int same = c2[j].a == 1 && c2[j].b == 0 && fabs(c1[i].gap - c2[j].gap) <= ntol;
            for (int k = 0; k < 3; ++k) {
                same &= fabs(c1[i].normal[k] + c2[j].normal[k]) <= ntol;
                same &= fabs(c1[i].point_a[k] - c2[j].point_b[k]) <= ptol;
                same &= fabs(c1[i].point_b[k] - c2[j].point_a[k]) <= ptol;
            }
            found = same;
        }
        ok &= found;
    }
    return ok;
}

/* ---- feature ids ---- */

/* sorted feature ids of collide(a, b); returns their number */
static inline int feature_set(const mo_cl_object *a, const mo_cl_object *b, double margin,
                              uint32_t ids[MO_CL_MAX_POINTS])
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    int n = mo_cl_collide(a, 0, b, 1, margin, c);
    for (int i = 0; i < n; ++i)
        ids[i] = c[i].feature;
    qsort(ids, (size_t)n, sizeof ids[0], cmp_u32);
    return n;
}

/* the same n ids */
static inline int same_ids(const uint32_t *ids0, int n0, const uint32_t *ids1, int n1)
{
    int same = n1 == n0;
    for (int i = 0; same && i < n0; ++i)
        same = ids0[i] == ids1[i];
    return same;
}

/* b moved by 1e-6 m per axis, the signs from the bits of t (0 to 7), and
   turned by 1e-6 rad about a random axis drawn from seed */
static inline mo_cl_object perturbed(const mo_cl_object *b, int t, uint64_t *seed)
{
    mo_cl_object p = *b;
    double u[3], dR[9];
    p.pos[0] += (t & 1) ? 1e-6 : -1e-6;
    p.pos[1] += (t & 2) ? 1e-6 : -1e-6;
    p.pos[2] += (t & 4) ? 1e-6 : -1e-6;
    sm64_unit(seed, u);
    mat_axis_angle(u[0], u[1], u[2], 1e-6, dR);
    mat_mul(dR, b->rot, p.rot);
    return p;
}

#endif
