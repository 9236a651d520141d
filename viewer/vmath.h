/* vmath.h: the little 3-D math the viewer needs (doubles for the camera and
 * picking, column-major float 4x4 matrices for OpenGL). */
#ifndef MO_VIEW_VMATH_H
#define MO_VIEW_VMATH_H

#include <math.h>
#include <string.h>

#define VM_PI 3.14159265358979323846

typedef struct vm_mat4 { float m[16]; } vm_mat4; /* column-major: m[col * 4 + row] */

static inline void vm_cross(double *r, const double *a, const double *b)
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    r[0] = x, r[1] = y, r[2] = z;
}
static inline double vm_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double vm_norm(const double *a) { return sqrt(vm_dot(a, a)); }
static inline void vm_normalize(double *a)
{
    double l = vm_norm(a);
    if (l > 0.0) a[0] /= l, a[1] /= l, a[2] /= l;
}

/* rotation matrix (row-major 3x3) of a unit quaternion (w, x, y, z) */
static inline void vm_quat_to_m3(double *R, double w, double x, double y, double z)
{
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

static inline vm_mat4 vm_mul(const vm_mat4 *a, const vm_mat4 *b)
{
    vm_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++) s += a->m[k * 4 + i] * b->m[c * 4 + k];
            r.m[c * 4 + i] = s;
        }
    return r;
}

/* model matrix of a pose (position p, row-major rotation R) with per-axis scale s */
static inline vm_mat4 vm_model(const double *p, const double *R, const double *s)
{
    vm_mat4 r;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++) r.m[c * 4 + i] = (float)(R[i * 3 + c] * s[c]);
        r.m[c * 4 + 3] = 0.0f;
    }
    r.m[12] = (float)p[0], r.m[13] = (float)p[1], r.m[14] = (float)p[2], r.m[15] = 1.0f;
    return r;
}

/* normal matrix (column-major 3x3) of the same: R S^-1 */
static inline void vm_normal_matrix(float *n, const double *R, const double *s)
{
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) n[c * 3 + i] = (float)(R[i * 3 + c] / s[c]);
}

static inline vm_mat4 vm_perspective(double fovy, double aspect, double znear, double zfar)
{
    vm_mat4 r;
    memset(&r, 0, sizeof r);
    double f = 1.0 / tan(0.5 * fovy);
    r.m[0] = (float)(f / aspect);
    r.m[5] = (float)f;
    r.m[10] = (float)((zfar + znear) / (znear - zfar));
    r.m[11] = -1.0f;
    r.m[14] = (float)(2.0 * zfar * znear / (znear - zfar));
    return r;
}

/* view matrix from the eye and an orthonormal basis (right, up, forward) */
static inline vm_mat4 vm_view(const double *eye, const double *right, const double *up, const double *fwd)
{
    vm_mat4 r;
    memset(&r, 0, sizeof r);
    for (int c = 0; c < 3; c++) {
        r.m[c * 4 + 0] = (float)right[c];
        r.m[c * 4 + 1] = (float)up[c];
        r.m[c * 4 + 2] = (float)-fwd[c];
    }
    r.m[12] = (float)-vm_dot(right, eye);
    r.m[13] = (float)-vm_dot(up, eye);
    r.m[14] = (float)vm_dot(fwd, eye);
    r.m[15] = 1.0f;
    return r;
}

#endif
