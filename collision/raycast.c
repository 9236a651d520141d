/* raycast.c: the first hit of a ray origin + t dir, t in [0, tmax], on one
 * shape. The ray is moved into the shape's frame (o = R^T (origin - pos),
 * d = R^T dir: t is unchanged since the map is rigid), cast there, and the
 * local normal is rotated back (n_world = R n_local).
 *
 * Per shape (local frame):
 *   sphere    quadratic |o + t d|^2 = r^2, r = radius + margin
 *   box       slabs (Kay-Kajiya); the normal is the entering slab's
 *   plane     half-space z <= 0: t = -o_z / d_z when entering from above
 *   capsule   r = radius + margin; infinite cylinder x^2 + y^2 = r^2 clipped
 *             to |z| <= h, and the two end spheres; first entry of the union
 *   cylinder  side clipped to |z| <= h, caps z = +-h clipped to x^2 + y^2 <= r^2
 *   hull      clipping by the face planes (Cyrus-Beck / Haines): latest
 *             entering plane vs earliest exiting plane
 *   mesh      BVH traversal (slab test per node, fixed stack, nearer child
 *             first, pruned by the closest hit so far) and Moller-Trumbore per
 *             triangle, two-sided; the normal is the triangle's geometric
 *             normal turned to face against the ray
 *
 * Solids (all but the mesh) hit at t = 0 with normal -dir/|dir| when the
 * origin is strictly inside. An origin exactly on the surface counts as
 * outside: moving inward it hits at t = 0 with the outward normal, moving
 * outward or along the surface it misses. The mesh is a surface, not a solid,
 * even when closed: a ray from inside hits the inner side of the surface.
 *
 * Margin: sphere and capsule radii grow by the margin (as in their mass
 * properties); box, plane, cylinder, hull and mesh ignore it (the engine's
 * contact skin is not part of the shape a ray sees).
 *
 * A zero or non-finite dir, a non-finite origin, or tmax < 0 (or NaN) miss. */
#include "collide_internal.h"
#include "shapes.h"

#include <math.h>
#include <string.h>

#define RAY_STACK 128


/* result of a local cast: 0 miss, 1 hit at *t with n, 2 origin inside */
enum { RAY_MISS = 0, RAY_HIT = 1, RAY_INSIDE = 2 };

/* ray against a sphere centred at c: first entry t >= 0 when the origin is outside or on it */
static int ray_sphere(const double *o, const double *d, const double *c, double r, double tmax, double *t,
                      double *n)
{
    double m[3] = {o[0] - c[0], o[1] - c[1], o[2] - c[2]};
    double cc = dot3(m, m) - r * r;
    if (cc < 0) return RAY_INSIDE;
    double b = dot3(m, d);
    if (b >= 0) return RAY_MISS;
    double a = dot3(d, d);
    double disc = b * b - a * cc;
    if (disc < 0) return RAY_MISS;
    /* stable root: (-b - sqrt(disc)) / a == cc / (-b + sqrt(disc)) */
    double tt = cc / (-b + sqrt(disc));
    if (tt > tmax) return RAY_MISS;
    *t = tt;
    for (int j = 0; j < 3; ++j) n[j] = (m[j] + tt * d[j]) / r;
    return RAY_HIT;
}

static int ray_box(const double *o, const double *d, const double *he, double tmax, double *t, double *n)
{
    if (fabs(o[0]) < he[0] && fabs(o[1]) < he[1] && fabs(o[2]) < he[2]) return RAY_INSIDE;
    double tn = -HUGE_VAL, tf = HUGE_VAL;
    int axis = -1;
    for (int j = 0; j < 3; ++j) {
        if (d[j] == 0) {
            if (o[j] < -he[j] || o[j] > he[j]) return RAY_MISS;
            continue;
        }
        double inv = 1.0 / d[j];
        double t1 = (-he[j] - o[j]) * inv, t2 = (he[j] - o[j]) * inv;
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        if (t1 > tn) {
            tn = t1;
            axis = j;
        }
        if (t2 < tf) tf = t2;
    }
    /* outside (or on the surface): a hit enters through a slab at tn >= 0 */
    if (axis < 0 || tn > tf || tn < 0 || tn > tmax) return RAY_MISS;
    if (tn == 0 && tf == 0) return RAY_MISS; /* touching an edge or corner while leaving */
    *t = tn;
    n[0] = n[1] = n[2] = 0;
    n[axis] = d[axis] > 0 ? -1.0 : 1.0;
    return RAY_HIT;
}

static int ray_plane(const double *o, const double *d, double tmax, double *t, double *n)
{
    if (o[2] < 0) return RAY_INSIDE;
    if (!(d[2] < 0)) return RAY_MISS;
    double tt = -o[2] / d[2];
    if (tt > tmax) return RAY_MISS;
    *t = tt;
    n[0] = n[1] = 0;
    n[2] = 1;
    return RAY_HIT;
}

/* infinite cylinder x^2 + y^2 = r^2 entered from outside, clipped to |z| <= h */
static int ray_side(const double *o, const double *d, double r, double h, double tmax, double *t, double *n)
{
    double a = d[0] * d[0] + d[1] * d[1];
    if (a == 0) return RAY_MISS;
    double b = o[0] * d[0] + o[1] * d[1];
    double cc = o[0] * o[0] + o[1] * o[1] - r * r;
    if (cc < 0 || b >= 0) return RAY_MISS; /* inside the infinite cylinder or moving away */
    double disc = b * b - a * cc;
    if (disc < 0) return RAY_MISS;
    double tt = cc / (-b + sqrt(disc));
    if (tt > tmax) return RAY_MISS;
    double z = o[2] + tt * d[2];
    if (z < -h || z > h) return RAY_MISS;
    *t = tt;
    n[0] = (o[0] + tt * d[0]) / r;
    n[1] = (o[1] + tt * d[1]) / r;
    n[2] = 0;
    return RAY_HIT;
}

static int ray_capsule(const double *o, const double *d, double r, double h, double tmax, double *t, double *n)
{
    double zc = o[2] < -h ? -h : (o[2] > h ? h : o[2]);
    double dz = o[2] - zc;
    if (o[0] * o[0] + o[1] * o[1] + dz * dz < r * r) return RAY_INSIDE;
    double best = HUGE_VAL, tt, nn[3];
    int hit = 0;
    if (ray_side(o, d, r, h, tmax, &tt, nn) == RAY_HIT && tt < best) {
        best = tt;
        memcpy(n, nn, sizeof nn);
        hit = 1;
    }
    for (int s = -1; s <= 1; s += 2) {
        double c[3] = {0, 0, s * h};
        if (ray_sphere(o, d, c, r, tmax, &tt, nn) == RAY_HIT && tt < best) {
            best = tt;
            memcpy(n, nn, sizeof nn);
            hit = 1;
        }
    }
    if (!hit) return RAY_MISS;
    *t = best;
    return RAY_HIT;
}

static int ray_cylinder(const double *o, const double *d, double r, double h, double tmax, double *t, double *n)
{
    double rho2 = o[0] * o[0] + o[1] * o[1];
    if (rho2 < r * r && fabs(o[2]) < h) return RAY_INSIDE;
    double best = HUGE_VAL, tt, nn[3];
    int hit = 0;
    if (ray_side(o, d, r, h, tmax, &tt, nn) == RAY_HIT) {
        best = tt;
        memcpy(n, nn, sizeof nn);
        hit = 1;
    }
    /* caps: entering z = +h from above or z = -h from below */
    for (int s = -1; s <= 1; s += 2) {
        double sd = s * d[2], so = s * o[2];
        if (!(so >= h && sd < 0)) continue;
        tt = (h - so) / sd;
        if (tt > tmax || tt >= best) continue;
        double x = o[0] + tt * d[0], y = o[1] + tt * d[1];
        if (x * x + y * y > r * r) continue;
        best = tt;
        n[0] = n[1] = 0;
        n[2] = s;
        hit = 1;
    }
    if (!hit) return RAY_MISS;
    *t = best;
    return RAY_HIT;
}

static int ray_hull(const mo_cl_hull *hl, const double *o, const double *d, double tmax, double *t, double *n)
{
    int inside = 1;
    double tn = -HUGE_VAL, tf = HUGE_VAL;
    int face = -1;
    for (int f = 0; f < hl->nfaces; ++f) {
        const double *pl = hl->planes + 4 * f;
        double dist = dot3(pl, o) - pl[3];
        double den = dot3(pl, d);
        if (!(dist < 0)) inside = 0;
        if (den == 0) {
            if (dist > 0) return RAY_MISS;
            continue;
        }
        double tt = -dist / den;
        if (den < 0) {
            if (tt > tn) {
                tn = tt;
                face = f;
            }
        } else if (tt < tf) {
            tf = tt;
        }
    }
    if (inside) return RAY_INSIDE;
    if (face < 0 || tn > tf || tn < 0 || tn > tmax) return RAY_MISS;
    if (tn == 0 && tf == 0) return RAY_MISS; /* touching an edge or vertex while leaving */
    *t = tn;
    memcpy(n, hl->planes + 4 * face, 3 * sizeof(double));
    return RAY_HIT;
}

/* slab test of the ray against a box: entry distance, or HUGE_VAL when missed within [0, tmax] */
static double ray_aabb(const double *o, const double *inv, const double *lo, const double *hi, double tmax)
{
    double tn = 0, tf = tmax;
    for (int j = 0; j < 3; ++j) {
        double t1 = (lo[j] - o[j]) * inv[j], t2 = (hi[j] - o[j]) * inv[j];
        /* 0 * inf = NaN when the origin is on a slab plane of a parallel ray: treat as inside that slab */
        if (t1 != t1) t1 = -HUGE_VAL;
        if (t2 != t2) t2 = HUGE_VAL;
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        if (t1 > tn) tn = t1;
        if (t2 < tf) tf = t2;
        if (tn > tf) return HUGE_VAL;
    }
    return tn;
}

/* Moller-Trumbore, two-sided: returns 1 with *t in [0, tmax] */
static int ray_triangle(const double *o, const double *d, const double *a, const double *b, const double *c,
                        double tmax, double *t)
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double p[3];
    cross3(d, e2, p);
    double det = dot3(e1, p);
    if (det == 0) return 0; /* ray parallel to the triangle's plane */
    double inv = 1.0 / det;
    double s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
    double u = dot3(s, p) * inv;
    if (u < 0 || u > 1) return 0;
    double q[3];
    cross3(s, e1, q);
    double v = dot3(d, q) * inv;
    if (v < 0 || u + v > 1) return 0;
    double tt = dot3(e2, q) * inv;
    if (tt < 0 || tt > tmax) return 0;
    *t = tt;
    return 1;
}

static int ray_mesh(const mo_cl_mesh *m, const double *o, const double *d, double tmax, double *t, double *n)
{
    if (!m->nodes || m->nnodes <= 0) return RAY_MISS;
    double inv[3] = {1.0 / d[0], 1.0 / d[1], 1.0 / d[2]};
    double best = tmax;
    int best_tri = -1;
    int stack[RAY_STACK];
    int sp = 0;
    if (ray_aabb(o, inv, m->nodes[0].lo, m->nodes[0].hi, best) == HUGE_VAL) return RAY_MISS;
    stack[sp++] = 0;
    while (sp > 0) {
        const mo_cl_bvh_node *nd = &m->nodes[stack[--sp]];
        if (nd->count > 0) {
            for (int i = nd->first; i < nd->first + nd->count; ++i) {
                int tri = m->tri_order[i];
                const int *tv = m->tris + 3 * tri;
                double tt;
                if (ray_triangle(o, d, m->verts + 3 * tv[0], m->verts + 3 * tv[1], m->verts + 3 * tv[2], best, &tt) &&
                    (best_tri < 0 || tt < best)) {
                    best = tt;
                    best_tri = tri;
                }
            }
            continue;
        }
        int l = nd->first, r = nd->first + 1;
        double tl = ray_aabb(o, inv, m->nodes[l].lo, m->nodes[l].hi, best);
        double tr = ray_aabb(o, inv, m->nodes[r].lo, m->nodes[r].hi, best);
        /* push the farther first so the nearer is visited first */
        if (tl <= tr) {
            if (tr != HUGE_VAL) stack[sp++] = r;
            if (tl != HUGE_VAL) stack[sp++] = l;
        } else {
            if (tl != HUGE_VAL) stack[sp++] = l;
            if (tr != HUGE_VAL) stack[sp++] = r;
        }
    }
    if (best_tri < 0) return RAY_MISS;
    const int *tv = m->tris + 3 * best_tri;
    const double *a = m->verts + 3 * tv[0], *b = m->verts + 3 * tv[1], *c = m->verts + 3 * tv[2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    cross3(e1, e2, n);
    double l = sqrt(dot3(n, n));
    double s = dot3(n, d) > 0 ? -1.0 / l : 1.0 / l;
    for (int j = 0; j < 3; ++j) n[j] *= s;
    *t = best;
    return RAY_HIT;
}

int mo_cl_raycast(const mo_cl_object *o, const double *origin, const double *dir, double tmax, double *t,
                  double *normal)
{
    if (!o || !origin || !dir || !t || !normal) return 0;
    if (!(tmax >= 0)) return 0;
    double dd = dot3(dir, dir);
    if (!(dd > 0) || !isfinite(dd)) return 0;
    if (!isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2])) return 0;

    /* into the local frame: x_local = R^T (x - pos) */
    const double *R = o->rot;
    double w[3] = {origin[0] - o->pos[0], origin[1] - o->pos[1], origin[2] - o->pos[2]};
    double lo[3], ld[3];
    for (int j = 0; j < 3; ++j) {
        lo[j] = R[j] * w[0] + R[3 + j] * w[1] + R[6 + j] * w[2];
        ld[j] = R[j] * dir[0] + R[3 + j] * dir[1] + R[6 + j] * dir[2];
    }
    double tt = 0, n[3] = {0, 0, 0};
    int res = RAY_MISS;
    switch (o->type) {
    case MO_CL_SPHERE: {
        static const double zero[3] = {0, 0, 0};
        if (o->radius + o->margin > 0) res = ray_sphere(lo, ld, zero, o->radius + o->margin, tmax, &tt, n);
        break;
    }
    case MO_CL_BOX: res = ray_box(lo, ld, o->he, tmax, &tt, n); break;
    case MO_CL_PLANE: res = ray_plane(lo, ld, tmax, &tt, n); break;
    case MO_CL_CAPSULE:
        if (o->radius + o->margin > 0 && o->half_height >= 0)
            res = ray_capsule(lo, ld, o->radius + o->margin, o->half_height, tmax, &tt, n);
        break;
    case MO_CL_CYLINDER:
        if (o->radius > 0 && o->half_height > 0) res = ray_cylinder(lo, ld, o->radius, o->half_height, tmax, &tt, n);
        break;
    case MO_CL_HULL:
        if (o->hull) res = ray_hull(o->hull, lo, ld, tmax, &tt, n);
        break;
    case MO_CL_MESH:
        if (o->mesh) res = ray_mesh(o->mesh, lo, ld, tmax, &tt, n);
        break;
    default: break;
    }
    if (res == RAY_MISS) return 0;
    if (res == RAY_INSIDE) {
        double l = sqrt(dd);
        *t = 0;
        for (int j = 0; j < 3; ++j) normal[j] = -dir[j] / l;
        return 1;
    }
    *t = tt;
    /* back to world: n = R n_local, renormalised */
    double wn[3];
    for (int i = 0; i < 3; ++i) wn[i] = R[3 * i] * n[0] + R[3 * i + 1] * n[1] + R[3 * i + 2] * n[2];
    double l = sqrt(dot3(wn, wn));
    for (int j = 0; j < 3; ++j) normal[j] = wn[j] / l;
    return 1;
}
