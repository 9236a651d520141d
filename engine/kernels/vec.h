/* vec.h: 3-vectors, 3x3 matrices (row-major double[9]) and quaternions
 * (w, x, y, z) on plain double arrays, for kernels and engine code alike. */
#ifndef MO_KERNELS_VEC_H
#define MO_KERNELS_VEC_H

#include <math.h>
#include "kernel.h"

MO_KERNEL void mo_v3_set(double *r, double x, double y, double z) { r[0] = x; r[1] = y; r[2] = z; }
MO_KERNEL void mo_v3_copy(double *r, const double *a) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
MO_KERNEL void mo_v3_add(double *r, const double *a, const double *b)
{ r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2]; }
MO_KERNEL void mo_v3_sub(double *r, const double *a, const double *b)
{ r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
MO_KERNEL void mo_v3_scale(double *r, const double *a, double s)
{ r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s; }
MO_KERNEL void mo_v3_axpy(double *r, double s, const double *a)
{ r[0] += s * a[0]; r[1] += s * a[1]; r[2] += s * a[2]; }
MO_KERNEL double mo_v3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
MO_KERNEL double mo_v3_norm(const double *a) { return sqrt(mo_v3_dot(a, a)); }
MO_KERNEL void mo_v3_cross(double *r, const double *a, const double *b)
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    r[0] = x; r[1] = y; r[2] = z;
}
/* normalise in place; returns the old length (0 leaves a unchanged) */
MO_KERNEL double mo_v3_normalize(double *a)
{
    double l = mo_v3_norm(a);
    if (l > 0.0) { a[0] /= l; a[1] /= l; a[2] /= l; }
    return l;
}

/* two unit tangents completing n to a right-handed orthonormal basis (t1 x t2 = n),
 * deterministic and continuous except near n = -z (Frisvad's construction, revised) */
MO_KERNEL void mo_v3_basis(const double *n, double *t1, double *t2)
{
    if (n[0] == 0.0 && n[1] == 0.0 && n[2] < 0.0) {
        mo_v3_set(t1, 0.0, -1.0, 0.0);
        mo_v3_set(t2, -1.0, 0.0, 0.0);
        return;
    }
    if (n[2] < -0.99) {
        /* near -z: below the formula after this block loses orthogonality as eps / (1 + n_z) (1.4e-10 at
           n_z = -0.9999995), and the fixed basis this band once took below -0.9999999 was orthogonal to
           -z only, off by |n_x|, |n_y| (up to 4.5e-4: friction rows leaked into the normal; found by
           fuzz_api's P13). The n_z < 0 branch of Duff et al. (2017), whose t2 is this t1: orthonormal
           to rounding */
        double a = -1.0 / (n[2] - 1.0);
        mo_v3_set(t1, n[0] * n[1] * a, -1.0 + n[1] * n[1] * a, -n[1]);
        mo_v3_cross(t2, n, t1);
        return;
    }
    double a = 1.0 / (1.0 + n[2]);
    double b = -n[0] * n[1] * a;
    mo_v3_set(t1, 1.0 - n[0] * n[0] * a, b, -n[0]);
    mo_v3_set(t2, b, 1.0 - n[1] * n[1] * a, -n[1]);
}

/* ---- 3x3, row-major ---- */
MO_KERNEL void mo_m3_mulv(double *r, const double *m, const double *v)
{
    double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    r[0] = x; r[1] = y; r[2] = z;
}
/* r = m^T v */
MO_KERNEL void mo_m3_tmulv(double *r, const double *m, const double *v)
{
    double x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    double y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    double z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    r[0] = x; r[1] = y; r[2] = z;
}
MO_KERNEL void mo_m3_mul(double *r, const double *a, const double *b)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    for (int k = 0; k < 9; k++) r[k] = t[k];
}
MO_KERNEL void mo_m3_transpose(double *r, const double *a)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t[3 * j + i] = a[3 * i + j];
    for (int k = 0; k < 9; k++) r[k] = t[k];
}
MO_KERNEL double mo_m3_det(const double *m)
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}
/* inverse by cofactors; returns 0 when singular (r untouched) */
MO_KERNEL int mo_m3_inverse(double *r, const double *m)
{
    double d = mo_m3_det(m);
    if (!(fabs(d) > 0.0)) return 0;
    double id = 1.0 / d, t[9];
    t[0] = (m[4] * m[8] - m[5] * m[7]) * id;
    t[1] = (m[2] * m[7] - m[1] * m[8]) * id;
    t[2] = (m[1] * m[5] - m[2] * m[4]) * id;
    t[3] = (m[5] * m[6] - m[3] * m[8]) * id;
    t[4] = (m[0] * m[8] - m[2] * m[6]) * id;
    t[5] = (m[2] * m[3] - m[0] * m[5]) * id;
    t[6] = (m[3] * m[7] - m[4] * m[6]) * id;
    t[7] = (m[1] * m[6] - m[0] * m[7]) * id;
    t[8] = (m[0] * m[4] - m[1] * m[3]) * id;
    for (int k = 0; k < 9; k++) r[k] = t[k];
    return 1;
}
/* r = R A R^T (body-frame tensor to world frame) */
MO_KERNEL void mo_m3_rotate_tensor(double *r, const double *R, const double *A)
{
    double t[9], rt[9];
    mo_m3_mul(t, R, A);
    mo_m3_transpose(rt, R);
    mo_m3_mul(r, t, rt);
}

/* ---- quaternions (w, x, y, z) ---- */
MO_KERNEL void mo_q_mul(double *r, const double *a, const double *b)
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w; r[1] = x; r[2] = y; r[3] = z;
}
MO_KERNEL void mo_q_conj(double *r, const double *a) { r[0] = a[0]; r[1] = -a[1]; r[2] = -a[2]; r[3] = -a[3]; }
MO_KERNEL double mo_q_normalize(double *q)
{
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 0.0) { q[0] /= l; q[1] /= l; q[2] /= l; q[3] /= l; }
    return l;
}
/* rotation matrix (row-major) of a unit quaternion */
MO_KERNEL void mo_q_to_m3(double *R, const double *q)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
/* rotate v by unit q */
MO_KERNEL void mo_q_rotate(double *r, const double *q, const double *v)
{
    double R[9];
    mo_q_to_m3(R, q);
    mo_m3_mulv(r, R, v);
}
/* rotation vector (axis * angle, |angle| <= pi) of a unit quaternion */
MO_KERNEL void mo_q_to_rotvec(double *r, const double *q)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    if (w < 0.0) { w = -w; x = -x; y = -y; z = -z; }
    double s = sqrt(x * x + y * y + z * z);
    double k = (s > 1e-12) ? 2.0 * atan2(s, w) / s : 2.0;
    r[0] = k * x; r[1] = k * y; r[2] = k * z;
}

#endif
