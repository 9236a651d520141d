/* mass.c: volume, centre of mass and inertia (about the centre of mass, in
 * the shape's local axes) of closed shapes at unit density.
 *
 * Closed forms (V = volume = mass):
 *   sphere   r:      V = 4/3 pi r^3, I = 2/5 V r^2
 *   box      h:      V = 8 hx hy hz, Ixx = V (hy^2 + hz^2) / 3, ...
 *   cylinder r, h:   V = 2 pi r^2 h, Izz = V r^2 / 2, Ixx = Iyy = V (r^2 / 4 + h^2 / 3)
 *   capsule  r, h:   cylinder part Vc = 2 pi r^2 h and two hemispheres, together
 *                    Vs = 4/3 pi r^3: Izz = Vc r^2 / 2 + Vs 2 r^2 / 5,
 *                    Ixx = Vc (r^2 / 4 + h^2 / 3) + Vs (2 r^2 / 5 + h^2 + 3 h r / 4)
 *                    (each hemisphere: 2/5 m r^2 about its flat face's centre,
 *                    COM 3r/8 from the face, moved by parallel axes to
 *                    h + 3r/8 from the capsule centre).
 * Polyhedra (hull, closed mesh): divergence theorem as a sum of signed
 * tetrahedra (ref, a, b, c) over the surface triangles (hull faces fanned),
 * with the covariance of a tetrahedron with vertices v0..v3
 *   C = integral x x^T dV = V/20 (sum_k v_k v_k^T + s s^T),   s = sum_k v_k
 * (Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor in
 * terms of its vertex coordinates", J. Math. Stat. 2004) and
 * I = trace(C) E - C. Any reference point gives the same sums for a closed
 * surface; we use the mean of the vertices (the hull's centre) rather than
 * the origin, which keeps meshes far from the origin accurate. The result is
 * moved to the centre of mass by the parallel axis theorem.
 *
 * Margin: it inflates the radius of spheres and capsules (their shapes stay
 * spheres and capsules). Boxes, cylinders, hulls and meshes ignore it (the
 * inflated shapes are rounded; the margin is a thin contact skin). Planes,
 * open meshes and inside-out meshes (negative volume) return -1. */
#include "shapes.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

static void diag(mo_cl_mass *out, double vol, double ixx, double iyy, double izz)
{
    memset(out, 0, sizeof *out);
    out->volume = vol;
    out->inertia[0] = ixx;
    out->inertia[4] = iyy;
    out->inertia[8] = izz;
}

/* polyhedron accumulator, coordinates relative to ref */
typedef struct poly_acc {
    double ref[3];
    double vol;
    double m1[3]; /* first moment */
    double c[9];  /* second moment integral x x^T */
} poly_acc;

static void acc_tri(poly_acc *acc, const double *pa, const double *pb, const double *pc)
{
    double a[3], b[3], c[3];
    for (int j = 0; j < 3; ++j) {
        a[j] = pa[j] - acc->ref[j];
        b[j] = pb[j] - acc->ref[j];
        c[j] = pc[j] - acc->ref[j];
    }
    /* tetrahedron (0, a, b, c) */
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    double v = det / 6.0;
    double s[3] = {a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]};
    acc->vol += v;
    for (int j = 0; j < 3; ++j) acc->m1[j] += v * s[j] / 4.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            acc->c[3 * i + j] += v / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
}

/* returns 0, or -1 when the volume is not positive */
static int acc_finish(const poly_acc *acc, mo_cl_mass *out)
{
    memset(out, 0, sizeof *out);
    if (!(acc->vol > 0)) return -1;
    double V = acc->vol;
    double c[3] = {acc->m1[0] / V, acc->m1[1] / V, acc->m1[2] / V};
    double C[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[3 * i + j] = acc->c[3 * i + j] - V * c[i] * c[j];
    double tr = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out->inertia[3 * i + j] = (i == j ? tr : 0.0) - C[3 * i + j];
    /* exact symmetry */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) {
            double m = 0.5 * (out->inertia[3 * i + j] + out->inertia[3 * j + i]);
            out->inertia[3 * i + j] = m;
            out->inertia[3 * j + i] = m;
        }
    out->volume = V;
    for (int j = 0; j < 3; ++j) out->com[j] = acc->ref[j] + c[j];
    return 0;
}

static int hull_mass(const mo_cl_hull *h, mo_cl_mass *out)
{
    poly_acc acc;
    memset(&acc, 0, sizeof acc);
    memcpy(acc.ref, h->center, sizeof acc.ref);
    for (int f = 0; f < h->nfaces; ++f) {
        int first = h->face_first[f], k = h->face_first[f + 1] - first;
        const double *a = h->verts + 3 * h->face_verts[first];
        for (int i = 1; i + 1 < k; ++i)
            acc_tri(&acc, a, h->verts + 3 * h->face_verts[first + i], h->verts + 3 * h->face_verts[first + i + 1]);
    }
    return acc_finish(&acc, out);
}

static int mesh_mass(const mo_cl_mesh *m, mo_cl_mass *out)
{
    if (!m->closed || m->nverts <= 0) return -1;
    poly_acc acc;
    memset(&acc, 0, sizeof acc);
    for (int i = 0; i < m->nverts; ++i)
        for (int j = 0; j < 3; ++j) acc.ref[j] += m->verts[3 * i + j];
    for (int j = 0; j < 3; ++j) acc.ref[j] /= m->nverts;
    for (int t = 0; t < m->ntris; ++t) {
        const int *v = m->tris + 3 * t;
        acc_tri(&acc, m->verts + 3 * v[0], m->verts + 3 * v[1], m->verts + 3 * v[2]);
    }
    return acc_finish(&acc, out);
}

int mo_cl_mass_properties(const mo_cl_object *o, mo_cl_mass *out)
{
    if (!o || !out) return -1;
    memset(out, 0, sizeof *out);
    switch (o->type) {
    case MO_CL_SPHERE: {
        double r = o->radius + o->margin;
        if (!(r > 0)) return -1;
        double V = 4.0 / 3.0 * PI * r * r * r;
        double I = 0.4 * V * r * r;
        diag(out, V, I, I, I);
        return 0;
    }
    case MO_CL_BOX: {
        double x = o->he[0], y = o->he[1], z = o->he[2];
        if (!(x > 0 && y > 0 && z > 0)) return -1;
        double V = 8.0 * x * y * z;
        diag(out, V, V * (y * y + z * z) / 3.0, V * (x * x + z * z) / 3.0, V * (x * x + y * y) / 3.0);
        return 0;
    }
    case MO_CL_CAPSULE: {
        double r = o->radius + o->margin, h = o->half_height;
        if (!(r > 0) || !(h >= 0)) return -1;
        double Vc = 2.0 * PI * r * r * h;
        double Vs = 4.0 / 3.0 * PI * r * r * r;
        double izz = Vc * r * r / 2.0 + Vs * 0.4 * r * r;
        double ixx = Vc * (r * r / 4.0 + h * h / 3.0) + Vs * (0.4 * r * r + h * h + 0.75 * h * r);
        diag(out, Vc + Vs, ixx, ixx, izz);
        return 0;
    }
    case MO_CL_CYLINDER: {
        double r = o->radius, h = o->half_height;
        if (!(r > 0 && h > 0)) return -1;
        double V = 2.0 * PI * r * r * h;
        double ixx = V * (r * r / 4.0 + h * h / 3.0);
        diag(out, V, ixx, ixx, V * r * r / 2.0);
        return 0;
    }
    case MO_CL_HULL:
        if (!o->hull) return -1;
        return hull_mass(o->hull, out);
    case MO_CL_MESH:
        if (!o->mesh) return -1;
        return mesh_mass(o->mesh, out);
    default: return -1; /* plane and unknown types: no volume */
    }
}
