/* testutil.h: small helpers shared by the test programs, written here and
 * independent of the library's own math: constants, 3-vectors and row-major
 * 3x3 rotations as double arrays, directions on the sphere, two random
 * generators, and world and joint creation that exit on failure. Includes
 * check.h.
 *
 * Random numbers: the tests' random scenes depend on the exact sequences, so
 * each test keeps the generator it was written with:
 *   sm64_*         splitmix64 (test_collision, test_collision_convex);
 *   xorshift64s_*  xorshift64* (test_shapes, test_broad_tree). */
#ifndef MO_TEST_UTIL_H
#define MO_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"

#include "check.h"

#define PI 3.14159265358979323846
#define SQ2 1.4142135623730951

/* ---- vectors and rotations ---- */

#ifndef MO_DOT3_CROSS3 /* collision/collide_internal.h has the same two */
#define MO_DOT3_CROSS3
static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* o = a x b; o may be a or b */
static inline void cross3(const double *a, const double *b, double *o)
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(o, t, sizeof t);
}
#endif

static inline void mat_identity(double R[9])
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(R, I, sizeof I);
}

/* rotation by angle about the axis (x, y, z), any length (Rodrigues) */
static inline void mat_axis_angle(double x, double y, double z, double ang, double R[9])
{
    double l = sqrt(x * x + y * y + z * z);
    x /= l;
    y /= l;
    z /= l;
    double c = cos(ang), s = sin(ang), t = 1.0 - c;
    R[0] = t * x * x + c;
    R[1] = t * x * y - s * z;
    R[2] = t * x * z + s * y;
    R[3] = t * x * y + s * z;
    R[4] = t * y * y + c;
    R[5] = t * y * z - s * x;
    R[6] = t * x * z - s * y;
    R[7] = t * y * z + s * x;
    R[8] = t * z * z + c;
}

/* rotation of the quaternion q = (w, x, y, z), any nonzero length */
static inline void mat_from_quat(const double q[4], double R[9])
{
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = q[0] / l, x = q[1] / l, y = q[2] / l, z = q[3] / l;
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

/* C = A B; C may be A or B */
static inline void mat_mul(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    memcpy(C, T, sizeof T);
}

/* out = R v; out may be v */
static inline void mat_vec(const double R[9], const double v[3], double out[3])
{
    double t[3];
    for (int i = 0; i < 3; ++i)
        t[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
    memcpy(out, t, sizeof t);
}

/* out = R^T v; out may be v */
static inline void mat_tvec(const double R[9], const double v[3], double out[3])
{
    double t[3];
    for (int i = 0; i < 3; ++i)
        t[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
    memcpy(out, t, sizeof t);
}

/* ---- directions on the unit sphere ---- */

/* the i-th of n Fibonacci (golden angle) directions */
static inline void fibonacci_dir(int i, int n, double u[3])
{
    double z = 1.0 - (2.0 * i + 1.0) / n, r = sqrt(1.0 - z * z), phi = i * 2.399963229728653;
    u[0] = r * cos(phi);
    u[1] = r * sin(phi);
    u[2] = z;
}

/* a direction u and its score s; cmp_sample_desc sorts by s, largest first */
typedef struct sample {
    double s;
    double u[3];
} sample;

static inline int cmp_sample_desc(const void *pa, const void *pb)
{
    double a = ((const sample *)pa)->s, b = ((const sample *)pb)->s;
    return (a < b) - (a > b);
}

/* appends to seeds[0 .. *ns) the indices of smp[0 .. n), in order, whose
   direction is not within the angle acos(cos_min) of a seed already there,
   until there are max */
static inline void pick_seeds(const sample *smp, int n, double cos_min, int *seeds, int *ns, int max)
{
    for (int i = 0; i < n && *ns < max; ++i) {
        int near = 0;
        for (int k = 0; k < *ns && !near; ++k)
            near = dot3(smp[i].u, smp[seeds[k]].u) > cos_min;
        if (!near)
            seeds[(*ns)++] = i;
    }
}

/* qsort order of uint32_t, ascending */
static inline int cmp_u32(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* ---- splitmix64 ---- */

static inline uint64_t sm64_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline double sm64_uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(sm64_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* three draws in order (several rng calls as arguments of one call would be
   evaluated in an unspecified order, so scenes would differ between compilers) */
static inline void sm64_vec(uint64_t *s, double lo, double hi, double v[3])
{
    for (int k = 0; k < 3; ++k)
        v[k] = sm64_uniform(s, lo, hi);
}

/* uniform unit vector (rejection from the cube) */
static inline void sm64_unit(uint64_t *s, double u[3])
{
    double l;
    do {
        for (int k = 0; k < 3; ++k)
            u[k] = sm64_uniform(s, -1.0, 1.0);
        l = dot3(u, u);
    } while (l > 1.0 || l < 1e-6);
    l = sqrt(l);
    for (int k = 0; k < 3; ++k)
        u[k] /= l;
}

/* random axis, angle uniform in [0, 2 pi) */
static inline void sm64_rotation(uint64_t *s, double R[9])
{
    double u[3];
    sm64_unit(s, u);
    mat_axis_angle(u[0], u[1], u[2], sm64_uniform(s, 0.0, 2.0 * PI), R);
}

/* ---- xorshift64* ---- */

/* uniform in [0, 1) */
static inline double xorshift64s_uniform01(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* uniform in [a, b) */
static inline double xorshift64s_range(uint64_t *s, double a, double b)
{
    return a + (b - a) * xorshift64s_uniform01(s);
}

/* ---- worlds and joints that must be created ---- */

/* the world of wd; when it cannot be created prints what (a prefix, may be
   "") and the error on stderr and exits with code */
static inline mo_world *world_or_exit(const mo_world_def *wd, const char *what, int code)
{
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s%s\n", what, err);
        exit(code);
    }
    return w;
}

/* the joint of d in w; when it cannot be created prints what and the
   world's last error on stderr and exits with code */
static inline mo_joint_id joint_or_exit(mo_world *w, const mo_joint_def *d, const char *what, int code)
{
    mo_joint_id id;
    if (mo_joint_create(w, d, &id) != MO_OK) {
        fprintf(stderr, "%s%s\n", what, mo_world_last_error(w));
        exit(code);
    }
    return id;
}

#endif
