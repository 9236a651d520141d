/* spatial.h: spatial (6D) vector algebra for the articulation algorithms, after
 * Featherstone, "Rigid Body Dynamics Algorithms" (2008), ch. 2, written here
 * on plain double arrays with the 3D helpers of kernels/vec.h.
 *
 * Conventions (the whole of engine/artic/):
 * - a spatial motion vector (velocity, acceleration, a motion subspace column)
 *   is double[6] = [angular (3); linear (3)]: the angular velocity w and the
 *   velocity of the body point at the frame's origin, both in the frame's axes;
 * - a spatial force is double[6] = [moment about the frame's origin (3); force (3)];
 * - a Plücker transform mo_sxform X_AB = (E, r) maps motion coordinates of frame
 *   A to those of frame B: E (3x3 row-major) rotates A's axes to B's
 *   (v_B = E v_A for a free vector), r is B's origin in A's coordinates.
 *   As matrices: X m = [E 0; -E [r]x E] m, the force form X* = X^-T;
 * - a spatial inertia mo_sinertia = (m, h = m c, Ib = I_c + m [c]x [c]x^T)
 *   about the frame's origin, c the centre of mass in the frame;
 *   I [w; v] = [Ib w + h x v; m v - h x w].
 * Every helper is alias-safe (the result may be an input). */
#ifndef MO_ARTIC_SPATIAL_H
#define MO_ARTIC_SPATIAL_H

#include "kernels/vec.h"

/* Plücker transform A -> B (see above) */
typedef struct mo_sxform {
    double E[9]; /* rotation, A's axes to B's (row-major) */
    double r[3]; /* B's origin in A's coordinates (m) */
} mo_sxform;

/* spatial inertia about a frame's origin (see above) */
typedef struct mo_sinertia {
    double m;     /* mass (kg) */
    double h[3];  /* first moment m c (kg m) */
    double I[9];  /* rotational inertia about the origin, I_c + m [c]x [c]x^T (kg m^2, row-major) */
} mo_sinertia;

/* the identity transform */
static inline mo_sxform mo_sx_identity(void)
{
    mo_sxform X = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    return X;
}

/* [a]x b applied column by column: r = [a]x M (M 3x3 row-major) */
static inline void mo_sp_skew_mul(double *r, const double *a, const double *M)
{
    double t[9];
    for (int j = 0; j < 3; j++) {
        double c[3] = {M[j], M[3 + j], M[6 + j]}, o[3];
        mo_v3_cross(o, a, c);
        t[j] = o[0]; t[3 + j] = o[1]; t[6 + j] = o[2];
    }
    for (int k = 0; k < 9; k++) r[k] = t[k];
}

/* r = X m: a motion vector from A's coordinates to B's. w' = E w, v' = E (v - r x w) */
static inline void mo_sx_motion(double *out, const mo_sxform *X, const double *m)
{
    double t[3], w[3], v[3];
    mo_v3_cross(t, X->r, m);
    mo_v3_sub(t, m + 3, t);
    mo_m3_mulv(w, X->E, m);
    mo_m3_mulv(v, X->E, t);
    mo_v3_copy(out, w);
    mo_v3_copy(out + 3, v);
}

/* r = X^-1 m: a motion vector from B's coordinates to A's. w = E^T w', v = E^T v' + r x w */
static inline void mo_sx_motion_inv(double *out, const mo_sxform *X, const double *m)
{
    double w[3], v[3], t[3];
    mo_m3_tmulv(w, X->E, m);
    mo_m3_tmulv(v, X->E, m + 3);
    mo_v3_cross(t, X->r, w);
    mo_v3_add(v, v, t);
    mo_v3_copy(out, w);
    mo_v3_copy(out + 3, v);
}

/* r = X* f: a force from A's coordinates to B's. n' = E (n - r x f), f' = E f */
static inline void mo_sx_force(double *out, const mo_sxform *X, const double *f)
{
    double t[3], n[3], g[3];
    mo_v3_cross(t, X->r, f + 3);
    mo_v3_sub(t, f, t);
    mo_m3_mulv(n, X->E, t);
    mo_m3_mulv(g, X->E, f + 3);
    mo_v3_copy(out, n);
    mo_v3_copy(out + 3, g);
}

/* r = X^T f: a force from B's coordinates to A's. f = E^T f', n = E^T n' + r x f */
static inline void mo_sx_force_inv(double *out, const mo_sxform *X, const double *f)
{
    double n[3], g[3], t[3];
    mo_m3_tmulv(n, X->E, f);
    mo_m3_tmulv(g, X->E, f + 3);
    mo_v3_cross(t, X->r, g);
    mo_v3_add(n, n, t);
    mo_v3_copy(out, n);
    mo_v3_copy(out + 3, g);
}

/* X_AC = X_BC X_AB (first ab, then bc): E = E_bc E_ab, r = r_ab + E_ab^T r_bc */
static inline mo_sxform mo_sx_compose(const mo_sxform *bc, const mo_sxform *ab)
{
    mo_sxform X;
    double t[3];
    mo_m3_mul(X.E, bc->E, ab->E);
    mo_m3_tmulv(t, ab->E, bc->r);
    mo_v3_add(X.r, ab->r, t);
    return X;
}

/* r = a x m for motions (crm): [w x mw; w x mv + v x mw], a = [w; v] */
static inline void mo_sp_cross_motion(double *out, const double *a, const double *m)
{
    double w[3], v[3], t[3];
    mo_v3_cross(w, a, m);
    mo_v3_cross(v, a, m + 3);
    mo_v3_cross(t, a + 3, m);
    mo_v3_add(v, v, t);
    mo_v3_copy(out, w);
    mo_v3_copy(out + 3, v);
}

/* r = a x* f for forces (crf): [w x n + v x f; w x f], a = [w; v] */
static inline void mo_sp_cross_force(double *out, const double *a, const double *f)
{
    double n[3], g[3], t[3];
    mo_v3_cross(n, a, f);
    mo_v3_cross(t, a + 3, f + 3);
    mo_v3_add(n, n, t);
    mo_v3_cross(g, a, f + 3);
    mo_v3_copy(out, n);
    mo_v3_copy(out + 3, g);
}

/* a . b over 6 components (a motion against a force: power) */
static inline double mo_sp_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* the spatial inertia of a body of mass m, centre of mass c and rotational inertia Ic (about c),
   in the frame of c and Ic: h = m c, Ib = Ic + m (|c|^2 1 - c c^T) */
static inline mo_sinertia mo_si_from_body(double m, const double *c, const double *Ic)
{
    mo_sinertia I;
    I.m = m;
    mo_v3_scale(I.h, c, m);
    double cc = mo_v3_dot(c, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) I.I[3 * i + j] = Ic[3 * i + j] + m * ((i == j ? cc : 0.0) - c[i] * c[j]);
    return I;
}

/* f = I m: the momentum (or force) of inertia I moving with m */
static inline void mo_si_apply(double *out, const mo_sinertia *I, const double *m)
{
    double n[3], f[3], t[3];
    mo_m3_mulv(n, I->I, m);
    mo_v3_cross(t, I->h, m + 3);
    mo_v3_add(n, n, t);
    mo_v3_cross(t, I->h, m);
    mo_v3_scale(f, m + 3, I->m);
    mo_v3_sub(f, f, t);
    mo_v3_copy(out, n);
    mo_v3_copy(out + 3, f);
}

/* a += b */
static inline void mo_si_add(mo_sinertia *a, const mo_sinertia *b)
{
    a->m += b->m;
    mo_v3_add(a->h, a->h, b->h);
    for (int k = 0; k < 9; k++) a->I[k] += b->I[k];
}

/* X^T I X: an inertia given in B's coordinates expressed in A's, X = X_AB.
   h' = E^T h + m r, Ib' = E^T Ib E - [r]x [E^T h]x - [h']x [r]x (Featherstone, table 2.8) */
static inline mo_sinertia mo_si_to_parent(const mo_sinertia *I, const mo_sxform *X)
{
    mo_sinertia o;
    double hr[3], t[9], rx[9], a[9], b[9];
    o.m = I->m;
    mo_m3_tmulv(hr, X->E, I->h);
    /* E^T Ib E */
    double Et[9];
    mo_m3_transpose(Et, X->E);
    mo_m3_mul(t, Et, I->I);
    mo_m3_mul(o.I, t, X->E);
    for (int k = 0; k < 3; k++) o.h[k] = hr[k] + I->m * X->r[k];
    /* [r]x as a matrix, then [r]x [hr]x = [r]x ([hr]x 1) and [h']x [r]x */
    mo_sp_skew_mul(rx, X->r, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1});
    double hx[9];
    mo_sp_skew_mul(hx, hr, (const double[9]){1, 0, 0, 0, 1, 0, 0, 0, 1});
    mo_m3_mul(a, rx, hx);
    mo_sp_skew_mul(b, o.h, rx);
    for (int k = 0; k < 9; k++) o.I[k] -= a[k] + b[k];
    return o;
}

/* unit quaternion of the rotation vector t (axis * angle): (cos |t|/2, sin(|t|/2) t / |t|) */
static inline void mo_q_exp(double *q, const double *t)
{
    double a = mo_v3_norm(t);
    double s = (a < 1e-6) ? 0.5 - a * a / 48.0 : sin(0.5 * a) / a; /* series to O(a^4): error < 1e-26 */
    q[0] = cos(0.5 * a);
    q[1] = s * t[0]; q[2] = s * t[1]; q[3] = s * t[2];
}

#endif
