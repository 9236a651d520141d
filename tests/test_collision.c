/* test_collision.c: the collision layer (collision/collide.h) against hand
 * computed answers, against slow independent references, and the broadphase
 * against a brute-force O(n^2) AABB loop.
 *
 * References used here (none shares code with the library):
 *   - surface distance of a point to a sphere / box / plane, to check that
 *     point_a and point_b lie on the surfaces;
 *   - box/box separation along a direction from the 8 vertices of each box
 *     (support function by enumeration), the SAT maximum over the 15 axes built
 *     from world-space cross products, and the signed distance estimated as the
 *     maximum over directions of the separation (4000 Fibonacci directions,
 *     then a shrinking random local search; converged to ~1e-7 here);
 *   - sphere/box signed distance by the same direction search with the box
 *     support function.
 * Returns 0 when every check passes, 1 otherwise. */
#include "collision/collide.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_NEAR CHECK_NEAR_G17_TOL
#include "testutil_collide.h"

/* ---- helpers ---- */

/* signed distance of point p to an object's surface */
static double surface_dist(const mo_cl_object *o, const double p[3])
{
    double w[3] = {p[0] - o->pos[0], p[1] - o->pos[1], p[2] - o->pos[2]};
    if (o->type == MO_CL_SPHERE)
        return sqrt(dot3(w, w)) - o->radius;
    if (o->type == MO_CL_PLANE) {
        double n[3] = {o->rot[2], o->rot[5], o->rot[8]};
        return dot3(n, w);
    }
    double out2 = 0.0, inmax = -HUGE_VAL;
    for (int k = 0; k < 3; ++k) {
        double ax[3] = {o->rot[k], o->rot[3 + k], o->rot[6 + k]};
        double dk = fabs(dot3(ax, w)) - o->he[k];
        if (dk > 0.0)
            out2 += dk * dk;
        if (dk > inmax)
            inmax = dk;
    }
    return out2 > 0.0 ? sqrt(out2) : inmax;
}

/* every contact: ids, unit normal, point_b = point_a + gap n, gap < margin, on surfaces */
static void check_contacts(const mo_cl_contact *c, int n, const mo_cl_object *a, int ia,
                           const mo_cl_object *b, int ib, double margin, double surf_tol,
                           const char *what)
{
    for (int i = 0; i < n; ++i) {
        int ok = contact_basic_ok(&c[i], ia, ib, margin);
        ok &= fabs(surface_dist(a, c[i].point_a)) <= surf_tol;
        ok &= fabs(surface_dist(b, c[i].point_b)) <= surf_tol;
        ++check_count;
        if (!ok) {
            fprintf(stderr,
                    "%s:%d: contact %d of %s inconsistent: ids %d %d, n (%g %g %g), gap %g, "
                    "surf a %g, surf b %g\n",
                    __FILE__, __LINE__, i, what, c[i].a, c[i].b, c[i].normal[0], c[i].normal[1],
                    c[i].normal[2], c[i].gap, surface_dist(a, c[i].point_a),
                    surface_dist(b, c[i].point_b));
            ++check_failures;
        }
    }
}

static double min_gap(const mo_cl_contact *c, int n)
{
    double g = HUGE_VAL;
    for (int i = 0; i < n; ++i)
        if (c[i].gap < g)
            g = c[i].gap;
    return g;
}

/* ---- sphere / sphere ---- */

static void test_sphere_sphere(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object a = make_sphere(0, 0, 0, 0.5);

    /* touching */
    mo_cl_object b = make_sphere(1, 0, 0, 0.5);
    int n = mo_cl_collide(&a, 3, &b, 7, 0.01, c);
    CHECK(n == 1);
    CHECK(c[0].a == 3 && c[0].b == 7);
    CHECK_NEAR(c[0].gap, 0.0, 1e-15);
    CHECK_VEC(c[0].normal, 1, 0, 0, 1e-15);
    CHECK_VEC(c[0].point_a, 0.5, 0, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 0.5, 0, 0, 1e-15);

    /* separated: beyond the margin none, within it one with the positive gap */
    b = make_sphere(1.2, 0, 0, 0.5);
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.1, c) == 0);
    n = mo_cl_collide(&a, 0, &b, 1, 0.3, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.2, 1e-15);

    /* penetrating: centres 0.5 apart along (0.6, 0.8, 0) */
    b = make_sphere(0.3, 0.4, 0, 0.5);
    n = mo_cl_collide(&a, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.5, 1e-15);
    CHECK_VEC(c[0].normal, 0.6, 0.8, 0, 1e-15);
    CHECK_VEC(c[0].point_a, 0.3, 0.4, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 0, 0, 0, 1e-15);
    check_contacts(c, n, &a, 0, &b, 1, 0.0, 1e-12, "sphere/sphere penetrating");

    /* coincident centres: a finite unit normal, gap -(ra + rb) */
    mo_cl_object s1 = make_sphere(1, 2, 3, 0.25), s2 = make_sphere(1, 2, 3, 0.5);
    n = mo_cl_collide(&s1, 0, &s2, 1, 0.0, c);
    CHECK(n == 1);
    CHECK(isfinite(c[0].normal[0]) && isfinite(c[0].normal[1]) && isfinite(c[0].normal[2]));
    CHECK_NEAR(sqrt(dot3(c[0].normal, c[0].normal)), 1.0, 1e-15);
    CHECK_NEAR(c[0].gap, -0.75, 1e-15);
    check_contacts(c, n, &s1, 0, &s2, 1, 0.0, 1e-12, "coincident spheres");
}

/* ---- sphere / plane ---- */

static void test_sphere_plane(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p = make_plane(0, 0, 0, NULL);

    /* sphere sinking 0.1 into z = 0: normal from sphere to plane is -z */
    mo_cl_object s = make_sphere(1, 2, 0.4, 0.5);
    int n = mo_cl_collide(&s, 0, &p, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.1, 1e-15);
    CHECK_VEC(c[0].normal, 0, 0, -1, 0);
    CHECK_VEC(c[0].point_a, 1, 2, -0.1, 1e-15);
    CHECK_VEC(c[0].point_b, 1, 2, 0, 1e-15);

    /* plane first: normal +z */
    n = mo_cl_collide(&p, 1, &s, 0, 0.0, c);
    CHECK(n == 1);
    CHECK(c[0].a == 1 && c[0].b == 0);
    CHECK_VEC(c[0].normal, 0, 0, 1, 0);
    CHECK_VEC(c[0].point_a, 1, 2, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 1, 2, -0.1, 1e-15);

    /* far below the plane: still one contact, deep */
    s = make_sphere(0, 0, -3, 0.5);
    n = mo_cl_collide(&s, 0, &p, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -3.5, 1e-15);

    /* tilted plane (30 deg about x) through (0, 0, 1): normal (0, -1/2, sqrt3/2) */
    double R[9];
    mat_axis_angle(1, 0, 0, PI / 6, R);
    mo_cl_object pt = make_plane(0, 0, 1, R);
    double nz[3] = {0, -0.5, sqrt(3.0) / 2};
    s = make_sphere(2 + 1.2 * nz[0], 1.2 * nz[1], 1 + 1.2 * nz[2], 1.0);
    CHECK(mo_cl_collide(&s, 0, &pt, 1, 0.1, c) == 0);
    n = mo_cl_collide(&s, 0, &pt, 1, 0.3, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.2, 1e-12);
    CHECK_VEC(c[0].normal, -nz[0], -nz[1], -nz[2], 1e-15);
    check_contacts(c, n, &s, 0, &pt, 1, 0.3, 1e-12, "sphere/tilted plane");
}

/* ---- box / plane ---- */

static void test_box_plane(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p = make_plane(0, 0, 0, NULL);

    /* resting flat: the 4 bottom vertices (ids 0..3), gap 0 */
    mo_cl_object b = make_box(0.3, -0.2, 0.2, 0.5, 0.3, 0.2, NULL);
    int n = mo_cl_collide(&b, 0, &p, 1, 0.01, c);
    CHECK(n == 4);
    unsigned seen = 0;
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-15);
        CHECK_VEC(c[i].normal, 0, 0, -1, 0);
        CHECK(c[i].feature < 4);
        seen |= 1u << c[i].feature;
        CHECK_NEAR(fabs(c[i].point_a[0] - 0.3), 0.5, 1e-15);
        CHECK_NEAR(fabs(c[i].point_a[1] + 0.2), 0.3, 1e-15);
    }
    CHECK(seen == 0xF);
    check_contacts(c, n, &b, 0, &p, 1, 0.01, 1e-12, "box resting on plane");

    /* tilted by 0.1 rad about x, centre at z = 0.2: the two vertices (x = +-0.5,
       y = -0.3, z = -0.2) are lowest, gap 0.2 - 0.3 sin 0.1 - 0.2 cos 0.1; the
       other two bottom ones at 0.2 + 0.3 sin 0.1 - 0.2 cos 0.1 = 0.0309 */
    double R[9];
    mat_axis_angle(1, 0, 0, 0.1, R);
    b = make_box(0, 0, 0.2, 0.5, 0.3, 0.2, R);
    double deep = 0.2 - 0.3 * sin(0.1) - 0.2 * cos(0.1);
    double high = 0.2 + 0.3 * sin(0.1) - 0.2 * cos(0.1);
    n = mo_cl_collide(&b, 0, &p, 1, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, deep, 1e-15);
        CHECK(c[i].feature == 0 || c[i].feature == 1);
        CHECK_NEAR(c[i].point_a[2], deep, 1e-15);
    }
    CHECK(n == 2 && c[0].feature != c[1].feature);
    n = mo_cl_collide(&b, 0, &p, 1, 0.05, c);
    CHECK(n == 4);
    CHECK_NEAR(min_gap(c, n), deep, 1e-15);
    for (int i = 0; i < n; ++i)
        CHECK(fabs(c[i].gap - deep) <= 1e-15 || fabs(c[i].gap - high) <= 1e-15);
    check_contacts(c, n, &b, 0, &p, 1, 0.05, 1e-12, "tilted box on plane");

    /* plane first: same gaps, normal +z */
    n = mo_cl_collide(&p, 1, &b, 0, 0.01, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_VEC(c[i].normal, 0, 0, 1, 0);
        CHECK_NEAR(c[i].gap, deep, 1e-15);
        CHECK_NEAR(c[i].point_b[2], deep, 1e-15);
    }

    /* above the margin: none */
    b = make_box(0, 0, 0.5, 0.5, 0.3, 0.2, NULL);
    CHECK(mo_cl_collide(&b, 0, &p, 1, 0.1, c) == 0);

    /* standing on a corner, deep: only the corner within margin */
    double R1[9], R2[9];
    mat_axis_angle(1, 0, 0, PI / 4, R1);
    mat_axis_angle(0, 1, 0, atan(1.0 / SQ2), R2);
    mat_mul(R2, R1, R);
    b = make_box(0, 0, sqrt(3.0) * 0.5 - 0.01, 0.5, 0.5, 0.5, R);
    n = mo_cl_collide(&b, 0, &p, 1, 0.05, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.01, 1e-12);
}

/* ---- sphere / box ---- */

static void test_sphere_box(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object b = make_box(0, 0, 0, 1.0, 0.5, 0.25, NULL);
    mo_cl_object s;
    int n;

    /* face region, separated within the margin */
    s = make_sphere(2, 0, 0, 0.5);
    CHECK(mo_cl_collide(&s, 0, &b, 1, 0.4, c) == 0);
    n = mo_cl_collide(&s, 0, &b, 1, 0.6, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.5, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 0);
    CHECK_VEC(c[0].point_a, 1.5, 0, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 1, 0, 0, 1e-15);
    CHECK(c[0].feature == 2 + 3 + 9); /* x above, y and z within */

    /* edge region: closest (1, 0.5, 0), offset (0.3, 0.4, 0) */
    s = make_sphere(1.3, 0.9, 0, 0.6);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.1, 1e-15);
    CHECK_VEC(c[0].normal, -0.6, -0.8, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 1, 0.5, 0, 1e-15);
    check_contacts(c, n, &s, 0, &b, 1, 0.0, 1e-12, "sphere/box edge");

    /* corner region: offset (0.2, 0.2, 0.1), distance 0.3 */
    s = make_sphere(1.2, 0.7, 0.35, 0.5);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.2, 1e-15);
    CHECK_VEC(c[0].normal, -2.0 / 3, -2.0 / 3, -1.0 / 3, 1e-15);
    CHECK_VEC(c[0].point_b, 1, 0.5, 0.25, 1e-15);

    /* centre inside, nearest face +x (depths 0.1, 0.4, 0.25) */
    s = make_sphere(0.9, 0.1, 0, 0.2);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.3, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 0);
    CHECK_VEC(c[0].point_a, 0.7, 0.1, 0, 1e-15);
    CHECK_VEC(c[0].point_b, 1.0, 0.1, 0, 1e-15);
    CHECK(c[0].feature == 2 + 3 + 9); /* same id as the +x face region outside */
    check_contacts(c, n, &s, 0, &b, 1, 0.0, 1e-12, "sphere inside box");

    /* centre on the face: continuous with both sides */
    s = make_sphere(1.0, 0.1, 0, 0.2);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.2, 1e-15);
    CHECK_VEC(c[0].normal, -1, 0, 0, 0);

    /* centre exactly at the box centre: least penetration is z (0.25) */
    s = make_sphere(0, 0, 0, 0.1);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.35, 1e-15);
    CHECK(isfinite(c[0].normal[0]) && isfinite(c[0].normal[1]) && isfinite(c[0].normal[2]));
    CHECK_NEAR(sqrt(dot3(c[0].normal, c[0].normal)), 1.0, 1e-15);
    CHECK_NEAR(fabs(c[0].normal[2]), 1.0, 0);
    check_contacts(c, n, &s, 0, &b, 1, 0.0, 1e-12, "sphere at box centre");

    /* cube, centre at the centre: all depths tie, still finite */
    mo_cl_object cube = make_box(5, 5, 5, 0.5, 0.5, 0.5, NULL);
    s = make_sphere(5, 5, 5, 0.1);
    n = mo_cl_collide(&s, 0, &cube, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.6, 1e-15);
    CHECK_NEAR(sqrt(dot3(c[0].normal, c[0].normal)), 1.0, 1e-15);

    /* rotated box (90 deg about z: its x half extent 1.0 lies along world y) */
    double R[9];
    mat_axis_angle(0, 0, 1, PI / 2, R);
    b = make_box(0, 0, 0, 1.0, 0.5, 0.25, R);
    s = make_sphere(0, 1.4, 0, 0.5);
    n = mo_cl_collide(&s, 0, &b, 1, 0.0, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.1, 1e-12);
    CHECK_VEC(c[0].normal, 0, -1, 0, 1e-12);

    /* box first: normal flipped */
    n = mo_cl_collide(&b, 1, &s, 0, 0.0, c);
    CHECK(n == 1);
    CHECK(c[0].a == 1 && c[0].b == 0);
    CHECK_VEC(c[0].normal, 0, 1, 0, 1e-12);
    CHECK_VEC(c[0].point_a, 0, 1.0, 0, 1e-12);
    CHECK_VEC(c[0].point_b, 0, 0.9, 0, 1e-12);
}

/* ---- box / box, face contacts ---- */

static void test_box_box_face(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object a = make_box(0, 0, 0, 2, 2, 0.5, NULL);
    mo_cl_object b;
    int n;

    /* resting: b's bottom corners, gap 0, normal +z */
    b = make_box(0.3, -0.2, 1.0, 0.5, 0.5, 0.5, NULL);
    n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 4);
    int corners = 0;
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-15);
        CHECK_NEAR(c[i].point_a[2], 0.5, 1e-12);
        CHECK_NEAR(fabs(c[i].point_a[0] - 0.3), 0.5, 1e-12);
        CHECK_NEAR(fabs(c[i].point_a[1] + 0.2), 0.5, 1e-12);
        corners |= 1 << ((c[i].point_a[0] > 0.3) + 2 * (c[i].point_a[1] > -0.2));
    }
    CHECK(corners == 0xF);
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-9, "box resting on box");

    /* penetrating by 0.05 */
    b = make_box(0.3, -0.2, 0.95, 0.5, 0.5, 0.5, NULL);
    n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.05, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-15);
    }
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-9, "box in box");

    /* separated beyond the margin, and within */
    b = make_box(0.3, -0.2, 1.2, 0.5, 0.5, 0.5, NULL);
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.1, c) == 0);
    n = mo_cl_collide(&a, 0, &b, 1, 0.3, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i)
        CHECK_NEAR(c[i].gap, 0.2, 1e-12);

    /* overhanging the edge: clipped to a's top face, x in [1.5, 2] */
    b = make_box(2.0, 0, 1.0, 0.5, 0.5, 0.5, NULL);
    n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-12);
        CHECK(c[i].point_a[0] >= 1.5 - 1e-12 && c[i].point_a[0] <= 2.0 + 1e-3);
    }
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-3, "overhanging box");

    /* equal cubes, the upper one turned 45 deg about z: the octagon reduced to 4 */
    mo_cl_object e = make_box(0, 0, 0, 0.5, 0.5, 0.5, NULL);
    double R[9];
    mat_axis_angle(0, 0, 1, PI / 4, R);
    b = make_box(0, 0, 1.0, 0.5, 0.5, 0.5, R);
    n = mo_cl_collide(&e, 0, &b, 1, 0.01, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, 0.0, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
        for (int j = 0; j < i; ++j) {
            double dx = c[i].point_a[0] - c[j].point_a[0], dy = c[i].point_a[1] - c[j].point_a[1];
            CHECK(dx * dx + dy * dy > 0.1); /* spread out: octagon side is 0.414 */
        }
    }
    check_contacts(c, n, &e, 0, &b, 1, 0.01, 1e-3, "octagon");

    /* upper cube tilted 0.2 rad about y, lowest edge 0.01 deep: 2 contacts */
    mat_axis_angle(0, 1, 0, 0.2, R);
    double zc = 0.5 + 0.5 * cos(0.2) + 0.5 * sin(0.2) - 0.01;
    b = make_box(0, 0, zc, 0.5, 0.5, 0.5, R);
    n = mo_cl_collide(&e, 0, &b, 1, 0.02, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, 1, 1e-12);
    }
    check_contacts(c, n, &e, 0, &b, 1, 0.02, 1e-3, "tilted cube on cube");

    /* the same pair as (tilted, lower): the lower cube's top face is still the
       reference, now b's; normal from a to b is -z */
    n = mo_cl_collide(&b, 0, &e, 1, 0.02, c);
    CHECK(n == 2);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.01, 1e-12);
        CHECK_VEC(c[i].normal, 0, 0, -1, 1e-12);
        CHECK((c[i].feature & (1u << 16)) != 0); /* reference box is b */
        CHECK(((c[i].feature >> 12) & 0xF) == 4); /* b's face +z: 2 * 2 + 0 */
        CHECK_NEAR(c[i].point_b[2], 0.5, 1e-12);
    }
    check_contacts(c, n, &b, 0, &e, 1, 0.02, 1e-3, "cube under tilted cube");

    /* side by side along x, penetrating 0.02: normal +x */
    b = make_box(0.98, 0.1, 0.05, 0.5, 0.5, 0.5, NULL);
    n = mo_cl_collide(&e, 0, &b, 1, 0.0, c);
    CHECK(n == 4);
    for (int i = 0; i < n; ++i) {
        CHECK_NEAR(c[i].gap, -0.02, 1e-12);
        CHECK_VEC(c[i].normal, 1, 0, 0, 1e-15);
    }
}

/* ---- box / box, edge against edge ----
 *
 *   a: unit cube turned 45 deg about x; its top edge is the segment
 *      {(x, 0, sqrt2/2), |x| <= 0.5} along x.
 *   b: unit cube turned 45 deg about y, centre (0.1, 0.2, sqrt2 - 0.03); its
 *      bottom edge is {(0.1, 0.2 + y, sqrt2/2 - 0.03), |y| <= 0.5} along y.
 *   The edges cross above (0.1, 0): normal x cross y = +z, gap -0.03,
 *   point_a (0.1, 0, sqrt2/2), point_b (0.1, 0, sqrt2/2 - 0.03).
 *   Face axes separate far less (best about -0.23), so the edge axis wins. */
static void test_box_box_edge(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    double Ra[9], Rb[9];
    mat_axis_angle(1, 0, 0, PI / 4, Ra);
    mat_axis_angle(0, 1, 0, PI / 4, Rb);
    mo_cl_object a = make_box(0, 0, 0, 0.5, 0.5, 0.5, Ra);
    mo_cl_object b = make_box(0.1, 0.2, SQ2 - 0.03, 0.5, 0.5, 0.5, Rb);
    int n = mo_cl_collide(&a, 0, &b, 1, 0.01, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, -0.03, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-12);
    CHECK_VEC(c[0].point_a, 0.1, 0, SQ2 / 2, 1e-12);
    CHECK_VEC(c[0].point_b, 0.1, 0, SQ2 / 2 - 0.03, 1e-12);
    /* edge ids: a's edge along local x with local y, z both + (4*0 + 1 + 2 = 3);
       b's edge along local y with local z -, local x + (4*1 + 0 + 2 = 6) */
    CHECK(c[0].feature == ((1u << 20) | (3u << 4) | 6u));
    check_contacts(c, n, &a, 0, &b, 1, 0.01, 1e-12, "edge/edge");

    /* swapped: normal -z, same points swapped */
    n = mo_cl_collide(&b, 1, &a, 0, 0.01, c);
    CHECK(n == 1);
    CHECK(c[0].a == 1 && c[0].b == 0);
    CHECK_NEAR(c[0].gap, -0.03, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, -1, 1e-12);
    CHECK_VEC(c[0].point_a, 0.1, 0, SQ2 / 2 - 0.03, 1e-12);
    CHECK_VEC(c[0].point_b, 0.1, 0, SQ2 / 2, 1e-12);

    /* separated by 0.05 > margin: none; within a larger margin: gap 0.05 */
    b = make_box(0.1, 0.2, SQ2 + 0.05, 0.5, 0.5, 0.5, Rb);
    CHECK(mo_cl_collide(&a, 0, &b, 1, 0.01, c) == 0);
    n = mo_cl_collide(&a, 0, &b, 1, 0.1, c);
    CHECK(n == 1);
    CHECK_NEAR(c[0].gap, 0.05, 1e-12);
    CHECK_VEC(c[0].normal, 0, 0, 1, 1e-12);
}

/* an edge of one box lying across the face of another, the face tilted (0.04 rad about y) and
   twisted by a hair (phi about x): the contact is the face's (points at both ends of the edge,
   spread across the face), never the single edge/edge point at one end that a twist of 1e-4 rad
   used to select (beam.lua: a kinematic pusher's bottom edge on a beam link; the one point
   twisted the link about x, and the twist grew step after step) */
static void test_box_edge_on_face(void)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    static const double twists[] = {0.0, 1e-4, 2e-4, -3e-4, 1e-3, 5e-3};
    const double th = 0.04, d = 1e-7, margin = 0.005;
    for (int k = 0; k < 6; k++) {
        double Rx[9], Ry[9], R[9];
        mat_axis_angle(1, 0, 0, twists[k], Rx);
        mat_axis_angle(0, 1, 0, th, Ry);
        mat_mul(Rx, Ry, R);
        /* a: the pusher, axis-aligned; its bottom edge at x = -0.04 runs along y */
        mo_cl_object a = make_box(0, 0, 0, 0.04, 0.1, 0.05, NULL);
        /* b: the link below, its top face through that edge, d deep at y = 0 */
        double n[3] = {R[2], R[5], R[8]}; /* b's local z in the world */
        double zc = -0.05 - (0.01 + d + 0.04 * n[0]) / n[2];
        mo_cl_object b = make_box(0, 0, zc, 0.05, 0.03, 0.01, R);
        int cnt = mo_cl_collide(&a, 0, &b, 1, margin, c);
        CHECK(cnt >= 2);
        double ymin = 1, ymax = -1, gmin = 1;
        for (int i = 0; i < cnt; i++) {
            double ym = 0.5 * (c[i].point_a[1] + c[i].point_b[1]);
            if (c[i].gap < fabs(twists[k]) * 0.03 + 1e-5) { /* the touching line (the far edge is 3.2 mm off) */
                ymin = fmin(ymin, ym);
                ymax = fmax(ymax, ym);
            }
            gmin = fmin(gmin, c[i].gap);
            /* the normal is a face's: b's top face normal (from a to b: -n) or a's bottom one */
            CHECK(c[i].normal[0] * -n[0] + c[i].normal[1] * -n[1] + c[i].normal[2] * -n[2] > 1.0 - 1e-12 ||
                  -c[i].normal[2] > 1.0 - 1e-12);
        }
        CHECK(ymin < -0.029 && ymax > 0.029); /* both ends of the edge on b's face */
        CHECK_NEAR(gmin, -d - fabs(twists[k]) * 0.03, 2e-6);
        /* points on the reference face's border lie up to the clip slop outside it: 5e-5 (hu + hv) = 4e-6 */
        check_contacts(c, cnt, &a, 0, &b, 1, margin, 5e-6, "edge on face");
    }
}

/* ---- argument order ---- */

/* collide(a, b) and collide(b, a): same contacts up to order, normals
   opposite, points swapped */
static void check_swap(const mo_cl_object *a, const mo_cl_object *b, double margin,
                       const char *what)
{
    int n1, n2;
    /* points 1e-4: box/box swaps the reference face; the clip slop is 4.5e-5 here */
    int ok = swap_same(a, b, margin, 1e-12, 1e-4, &n1, &n2);
    ++check_count;
    if (!ok) {
        fprintf(stderr, "%s:%d: swapped order differs for %s (%d vs %d contacts)\n", __FILE__,
                __LINE__, what, n1, n2);
        ++check_failures;
    }
}

static void test_swap_order(void)
{
    double R[9], R2[9];
    mat_axis_angle(1, 2, 3, 0.3, R);
    mat_axis_angle(0, 0, 1, 0.4, R2);
    mo_cl_object s1 = make_sphere(0, 0, 0, 0.5), s2 = make_sphere(0.3, 0.2, 0.6, 0.4);
    mo_cl_object p = make_plane(0, 0, -0.3, R);
    mo_cl_object bx = make_box(0.2, 0.1, 0.2, 0.4, 0.3, 0.6, R);
    mo_cl_object big = make_box(0, 0, 0, 2, 2, 0.5, NULL);
    mo_cl_object top = make_box(0.3, -0.2, 0.98, 0.5, 0.4, 0.5, R2);
    check_swap(&s1, &s2, 0.01, "sphere/sphere");
    check_swap(&s1, &p, 0.01, "sphere/plane");
    check_swap(&bx, &p, 0.01, "box/plane");
    check_swap(&s2, &bx, 0.01, "sphere/box");
    check_swap(&big, &top, 0.01, "box/box face");
    double Ra[9], Rb[9];
    mat_axis_angle(1, 0, 0, PI / 4, Ra);
    mat_axis_angle(0, 1, 0, PI / 4, Rb);
    mo_cl_object ea = make_box(0, 0, 0, 0.5, 0.5, 0.5, Ra);
    mo_cl_object eb = make_box(0.1, 0.2, SQ2 - 0.03, 0.5, 0.5, 0.5, Rb);
    check_swap(&ea, &eb, 0.01, "box/box edge");

    /* unsupported and NONE pairs */
    mo_cl_contact c[MO_CL_MAX_POINTS];
    mo_cl_object p2 = make_plane(0, 0, 0, NULL);
    CHECK(mo_cl_collide(&p, 0, &p2, 1, 1.0, c) == 0);
    mo_cl_object none;
    memset(&none, 0, sizeof none);
    mat_identity(none.rot);
    CHECK(mo_cl_collide(&none, 0, &s1, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&s1, 0, &none, 1, 1.0, c) == 0);
    none.type = 17;
    CHECK(mo_cl_collide(&none, 0, &s1, 1, 1.0, c) == 0);

    /* NaN poses: no contacts, no crash */
    mo_cl_object bad_s = s1, bad_b = bx;
    bad_s.pos[0] = NAN;
    bad_b.pos[2] = NAN;
    CHECK(mo_cl_collide(&bad_s, 0, &s2, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&bad_s, 0, &bx, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&bad_s, 0, &p, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&bad_b, 0, &big, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&bad_b, 0, &p, 1, 1.0, c) == 0);
    CHECK(mo_cl_collide(&s1, 0, &bad_b, 1, 1.0, c) == 0);
}

/* ---- feature id stability ---- */

/* b moved by 1e-6 m and turned by 1e-6 rad, in 8 directions: same ids */
static void check_stable(const mo_cl_object *a, const mo_cl_object *b, double margin,
                         int expect_n, const char *what)
{
    uint32_t ids0[MO_CL_MAX_POINTS], ids1[MO_CL_MAX_POINTS];
    int n0 = feature_set(a, b, margin, ids0);
    CHECK(n0 == expect_n);
    uint64_t seed = 99;
    for (int t = 0; t < 8; ++t) {
        mo_cl_object p = perturbed(b, t, &seed);
        int n1 = feature_set(a, &p, margin, ids1);
        int same = same_ids(ids0, n0, ids1, n1);
        ++check_count;
        if (!same) {
            fprintf(stderr, "%s:%d: feature ids of %s changed under perturbation %d\n", __FILE__,
                    __LINE__, what, t);
            ++check_failures;
        }
    }
}

static void test_feature_stability(void)
{
    double R[9];
    mo_cl_object big = make_box(0, 0, 0, 2, 2, 0.5, NULL);
    mo_cl_object cube = make_box(0, 0, 0, 0.5, 0.5, 0.5, NULL);
    mo_cl_object plane = make_plane(0, 0, 0.5, NULL);

    mo_cl_object b = make_box(0.3, -0.2, 0.75, 0.5, 0.5, 0.25, NULL);
    check_stable(&big, &b, 0.01, 4, "small box on big box");
    check_stable(&b, &big, 0.01, 4, "big box under small box (swapped)");
    b = make_box(0, 0, 1.0, 0.5, 0.5, 0.5, NULL);
    check_stable(&cube, &b, 0.01, 4, "equal cubes stacked");
    mat_axis_angle(0, 0, 1, 0.3, R);
    b = make_box(0.1, 0.05, 1.0, 0.5, 0.5, 0.5, R);
    check_stable(&cube, &b, 0.01, 4, "cube turned 0.3 rad on cube");
    mat_axis_angle(0, 0, 1, PI / 4, R);
    b = make_box(0, 0, 1.0, 0.5, 0.5, 0.5, R);
    check_stable(&cube, &b, 0.01, 4, "cube turned 45 deg on cube (octagon)");
    b = make_box(1, 2, 0.75, 0.5, 0.5, 0.25, NULL);
    check_stable(&plane, &b, 0.01, 4, "box on plane");
    b = make_sphere(0.2, 0.1, 0.99, 0.5);
    check_stable(&cube, &b, 0.01, 1, "sphere on box");

    /* ids within one manifold are distinct */
    uint32_t ids[MO_CL_MAX_POINTS];
    b = make_box(0.1, 0.05, 1.0, 0.5, 0.5, 0.5, R);
    int n = feature_set(&cube, &b, 0.01, ids);
    for (int i = 1; i < n; ++i)
        CHECK(ids[i] != ids[i - 1]);
}

/* ---- slow references ---- */

/* max over the 8 vertices of u . x */
static double box_support(const mo_cl_object *o, const double u[3])
{
    double best = -HUGE_VAL;
    for (int v = 0; v < 8; ++v) {
        double x[3];
        for (int k = 0; k < 3; ++k) {
            x[k] = o->pos[k];
            for (int j = 0; j < 3; ++j) {
                double s = (v >> j & 1) ? o->he[j] : -o->he[j];
                x[k] += o->rot[3 * k + j] * s;
            }
        }
        double d = dot3(u, x);
        if (d > best)
            best = d;
    }
    return best;
}

static double support(const mo_cl_object *o, const double u[3])
{
    if (o->type == MO_CL_SPHERE)
        return dot3(u, o->pos) + o->radius * sqrt(dot3(u, u));
    return box_support(o, u);
}

/* separation of b from a along unit u: min over b of u.x - max over a of u.x */
static double separation(const mo_cl_object *a, const mo_cl_object *b, const double u[3])
{
    double mu[3] = {-u[0], -u[1], -u[2]};
    return -support(b, mu) - support(a, u);
}

/* SAT maximum over the 15 axes, built from world cross products */
static double sat_reference(const mo_cl_object *a, const mo_cl_object *b)
{
    double best = -HUGE_VAL;
    double axes[15][3];
    int na = 0;
    for (int k = 0; k < 3; ++k) {
        for (int r = 0; r < 3; ++r) {
            axes[na][r] = a->rot[3 * r + k];
            axes[na + 1][r] = b->rot[3 * r + k];
        }
        na += 2;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double x[3] = {a->rot[i], a->rot[3 + i], a->rot[6 + i]};
            double y[3] = {b->rot[j], b->rot[3 + j], b->rot[6 + j]};
            double z[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                           x[0] * y[1] - x[1] * y[0]};
            double l = sqrt(dot3(z, z));
            if (l < 1e-6)
                continue;
            for (int k = 0; k < 3; ++k)
                axes[na][k] = z[k] / l;
            ++na;
        }
    for (int i = 0; i < na; ++i) {
        double s1 = separation(a, b, axes[i]);
        double m[3] = {-axes[i][0], -axes[i][1], -axes[i][2]};
        double s2 = separation(a, b, m);
        if (s1 > best)
            best = s1;
        if (s2 > best)
            best = s2;
    }
    return best;
}

/* points of an object for the Minkowski difference: box vertices or the
   sphere centre (its radius is kept apart) */
static int object_points(const mo_cl_object *o, double pts[8][3])
{
    if (o->type == MO_CL_SPHERE) {
        memcpy(pts[0], o->pos, sizeof pts[0]);
        return 1;
    }
    for (int v = 0; v < 8; ++v)
        for (int k = 0; k < 3; ++k) {
            pts[v][k] = o->pos[k];
            for (int j = 0; j < 3; ++j)
                pts[v][k] += o->rot[3 * k + j] * ((v >> j & 1) ? o->he[j] : -o->he[j]);
        }
    return 8;
}

/* the Minkowski difference b - a as points, radii apart */
typedef struct mink {
    double x[64][3];
    int n;
    double rsum;
} mink;

static void mink_init(mink *m, const mo_cl_object *a, const mo_cl_object *b)
{
    double pa[8][3], pb[8][3];
    int na = object_points(a, pa), nb = object_points(b, pb);
    m->n = 0;
    for (int i = 0; i < nb; ++i)
        for (int j = 0; j < na; ++j) {
            for (int k = 0; k < 3; ++k)
                m->x[m->n][k] = pb[i][k] - pa[j][k];
            ++m->n;
        }
    m->rsum = (a->type == MO_CL_SPHERE ? a->radius : 0.0) +
              (b->type == MO_CL_SPHERE ? b->radius : 0.0);
}

/* separation along direction v (normalised here; ignored when tiny) */
static void mink_try(const mink *m, const double v[3], double *best)
{
    double l = sqrt(dot3(v, v));
    if (!(l > 1e-12))
        return;
    double u[3] = {v[0] / l, v[1] / l, v[2] / l};
    double s = HUGE_VAL;
    for (int i = 0; i < m->n; ++i) {
        double d = dot3(u, m->x[i]);
        if (d < s)
            s = d;
    }
    if (s - m->rsum > *best)
        *best = s - m->rsum;
}

/* every direction defined by the points of b - a near-active along u0: x / |x|
   (nearest at a vertex), the nearest point of the line through two (an edge),
   the normals of three (a face) */
static void mink_candidates(const mink *m, const double u0[3], double *best)
{
    enum { CAP = 22 };
    double key[64], kmin = HUGE_VAL;
    for (int i = 0; i < m->n; ++i) {
        key[i] = dot3(u0, m->x[i]);
        if (key[i] < kmin)
            kmin = key[i];
    }
    double act[CAP][3];
    int nact = 0;
    for (int t = 0; t < CAP; ++t) {
        int pick = -1;
        for (int i = 0; i < m->n; ++i)
            if (key[i] <= kmin + 0.5 && (pick < 0 || key[i] < key[pick]))
                pick = i;
        if (pick < 0)
            break;
        memcpy(act[nact++], m->x[pick], sizeof act[0]);
        key[pick] = HUGE_VAL;
    }
    for (int i = 0; i < nact; ++i) {
        mink_try(m, act[i], best);
        for (int j = i + 1; j < nact; ++j) {
            double e[3] = {act[j][0] - act[i][0], act[j][1] - act[i][1], act[j][2] - act[i][2]};
            double ee = dot3(e, e);
            if (ee > 1e-24) {
                double t = -dot3(act[i], e) / ee;
                double p[3] = {act[i][0] + t * e[0], act[i][1] + t * e[1], act[i][2] + t * e[2]};
                mink_try(m, p, best);
            }
            for (int k = j + 1; k < nact; ++k) {
                double f[3] = {act[k][0] - act[i][0], act[k][1] - act[i][1],
                               act[k][2] - act[i][2]};
                double n[3] = {e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2],
                               e[0] * f[1] - e[1] * f[0]};
                double nm[3] = {-n[0], -n[1], -n[2]};
                mink_try(m, n, best);
                mink_try(m, nm, best);
            }
        }
    }
}

/* signed distance of b from a: the maximum over unit directions u of the
   separation min over b - a of u.x (minus the radii). Stage 1: 6000 Fibonacci
   directions. Stage 2: from the best sample of each of up to 4 basins (samples
   more than 0.25 rad from the previous seeds), the points of b - a within 0.5
   of the minimum along it (at most 22) are taken as candidates for the
   optimum's support set, and every direction they define is evaluated. The
   optimum is one of those directions (the nearest feature of the hull when
   separated, a hull face normal when penetrating), so the result is exact
   whenever its support set passes the filter from one of the seeds. No use of
   the 15 box axes. */
static double minkowski_reference(const mo_cl_object *a, const mo_cl_object *b)
{
    enum { N = 6000, SEEDS = 4 };
    static sample smp[N];
    mink m;
    mink_init(&m, a, b);
    for (int i = 0; i < N; ++i) {
        fibonacci_dir(i, N, smp[i].u);
        smp[i].s = -HUGE_VAL;
        mink_try(&m, smp[i].u, &smp[i].s);
    }
    qsort(smp, N, sizeof smp[0], cmp_sample_desc);
    double best = smp[0].s;
    int seeds[SEEDS], ns = 0;
    pick_seeds(smp, N, cos(0.25), seeds, &ns, SEEDS);
    for (int k = 0; k < ns; ++k)
        mink_candidates(&m, smp[seeds[k]].u, &best);
    return best;
}

/* ---- random box/box against the references ----
 *
 * References: sat (the 15 axes, world cross products) and ref (the
 * Minkowski-difference search, no knowledge of the 15 axes). They must agree:
 * ref >= sat - 1e-10 always, and |ref - sat| <= 1e-10 when penetrating (the
 * SAT maximum is then the exact depth; when separated it is only a lower bound
 * of the distance). The routine: no contact when sat > margin; at least one
 * when ref < -1e-9 (penetrating); the separation along the returned normal
 * within 0.08 |SAT| + 1e-3 of the SAT maximum (the face/edge preference
 * tolerances) and no more than the true signed distance; no contact deeper
 * than that separation; contacts on both surfaces within 1e-3 (the clip slop). */
static void test_random_box_box(void)
{
    uint64_t seed = 12345;
    const double margin = 0.02;
    int n_pen = 0, n_sep = 0, n_edge = 0, n_deepest = 0;
    double worst_ref = 0.0;
    for (int it = 0; it < 600; ++it) {
        double Ra[9], Rb[9];
        sm64_rotation(&seed, Ra);
        sm64_rotation(&seed, Rb);
        if (it % 5 == 0) /* some aligned or nearly aligned pairs */
            memcpy(Rb, Ra, sizeof Rb);
        double pa[3], ha[3], hb[3], dir[3];
        sm64_vec(&seed, -1, 1, pa);
        sm64_vec(&seed, 0.1, 1.0, ha);
        mo_cl_object a = make_box(pa[0], pa[1], pa[2], ha[0], ha[1], ha[2], Ra);
        sm64_unit(&seed, dir);
        double dist = sm64_uniform(&seed, 0.0, 2.0);
        sm64_vec(&seed, 0.1, 1.0, hb);
        mo_cl_object b = make_box(pa[0] + dist * dir[0], pa[1] + dist * dir[1],
                                  pa[2] + dist * dir[2], hb[0], hb[1], hb[2], Rb);

        double sat = sat_reference(&a, &b);
        double ref = minkowski_reference(&a, &b);
        CHECK(ref >= sat - 1e-10);
        if (ref < 0.0)
            CHECK_NEAR(ref, sat, 1e-10);
        if (sat < 0.0 && fabs(ref - sat) > worst_ref)
            worst_ref = fabs(ref - sat);

        mo_cl_contact c[MO_CL_MAX_POINTS];
        int n = mo_cl_collide(&a, 0, &b, 1, margin, c);
        CHECK(n >= 0 && n <= MO_CL_MAX_POINTS);
        if (sat > margin)
            CHECK(n == 0);
        if (ref < -1e-9) {
            ++n_pen;
            CHECK(n >= 1);
        } else if (n == 0) {
            ++n_sep;
        }
        if (n == 0)
            continue;
        check_contacts(c, n, &a, 0, &b, 1, margin, 1e-3, "random box/box");
        double sn = separation(&a, &b, c[0].normal);
        double d[3] = {b.pos[0] - a.pos[0], b.pos[1] - a.pos[1], b.pos[2] - a.pos[2]};
        CHECK(dot3(c[0].normal, d) >= -1e-12);
        CHECK(sn >= sat - (0.08 * fabs(sat) + 1e-3));
        CHECK(sn <= ref + 1e-10);
        for (int i = 0; i < n; ++i) {
            CHECK(c[i].gap >= sn - 1e-9);
            CHECK_NEAR(c[i].normal[0], c[0].normal[0], 0);
        }
        if (c[0].feature & (1u << 20))
            ++n_edge;
        if (sat < 0.0 && fabs(min_gap(c, n) - sn) <= 1e-9)
            ++n_deepest;
    }
    printf("  random box/box: %d penetrating, %d separated, %d edge contacts, deepest contact "
           "equals the normal's separation in %d; |ref - sat| <= %.2e when penetrating\n",
           n_pen, n_sep, n_edge, n_deepest, worst_ref);
    CHECK(n_pen > 100 && n_edge > 5);
}

/* ---- random sphere/box against the reference ----
 *
 * gap_ref = max over directions of (u.c - h_box(u)) - r by the Minkowski
 * search (exact: all 8 box vertices are candidates). Checks: contact iff
 * gap_ref < margin (cases within 1e-10 of the margin skipped), |gap - gap_ref|
 * <= 1e-10, the contact on both surfaces, and the separation along the normal
 * equal to the gap. */
static void test_random_sphere_box(void)
{
    uint64_t seed = 4242;
    const double margin = 0.02;
    int n_in = 0, n_out = 0;
    for (int it = 0; it < 600; ++it) {
        double R[9];
        sm64_rotation(&seed, R);
        double pb[3], hb[3], dir[3];
        sm64_vec(&seed, -1, 1, pb);
        sm64_vec(&seed, 0.1, 1.0, hb);
        mo_cl_object b = make_box(pb[0], pb[1], pb[2], hb[0], hb[1], hb[2], R);
        sm64_unit(&seed, dir);
        double dist = sm64_uniform(&seed, 0.0, 1.8);
        mo_cl_object s = make_sphere(b.pos[0] + dist * dir[0], b.pos[1] + dist * dir[1],
                                     b.pos[2] + dist * dir[2], sm64_uniform(&seed, 0.05, 0.6));
        if (surface_dist(&b, s.pos) < 0.0)
            ++n_in;
        else
            ++n_out;

        mo_cl_object pt = s;
        pt.radius = 0.0;
        double gap_ref = minkowski_reference(&b, &pt) - s.radius;
        mo_cl_contact c[MO_CL_MAX_POINTS];
        int n = mo_cl_collide(&s, 0, &b, 1, margin, c);
        if (fabs(gap_ref - margin) < 1e-10)
            continue;
        CHECK(n == (gap_ref < margin ? 1 : 0));
        if (n != 1)
            continue;
        CHECK_NEAR(c[0].gap, gap_ref, 1e-10);
        check_contacts(c, n, &s, 0, &b, 1, margin, 1e-9, "random sphere/box");
        CHECK_NEAR(separation(&s, &b, c[0].normal), c[0].gap, 1e-9);
    }
    printf("  random sphere/box: %d centres inside, %d outside\n", n_in, n_out);
    CHECK(n_in > 50);
}

/* ---- aabb ---- */

static void test_aabb(void)
{
    mo_cl_object s = make_sphere(1, 2, 3, 0.5);
    mo_cl_update_aabb(&s, 0.1);
    CHECK_VEC(s.aabb_min, 0.4, 1.4, 2.4, 1e-15);
    CHECK_VEC(s.aabb_max, 1.6, 2.6, 3.6, 1e-15);

    /* box turned 90 deg about z: x and y extents exchanged */
    double R[9];
    mat_axis_angle(0, 0, 1, PI / 2, R);
    mo_cl_object b = make_box(0, 0, 0, 1.0, 0.5, 0.25, R);
    mo_cl_update_aabb(&b, 0.0);
    CHECK_VEC(b.aabb_max, 0.5, 1.0, 0.25, 1e-15);
    CHECK_VEC(b.aabb_min, -0.5, -1.0, -0.25, 1e-15);

    /* random boxes: the AABB holds every vertex and is touched by one on each side */
    uint64_t seed = 5;
    for (int it = 0; it < 100; ++it) {
        sm64_rotation(&seed, R);
        double x = sm64_uniform(&seed, -5, 5), h[3];
        sm64_vec(&seed, 0.1, 1.0, h);
        b = make_box(x, 0, 1, h[0], h[1], h[2], R);
        mo_cl_update_aabb(&b, 0.05);
        for (int k = 0; k < 3; ++k) {
            double e[3] = {0, 0, 0};
            e[k] = 1.0;
            double hi = box_support(&b, e);
            e[k] = -1.0;
            double lo = -box_support(&b, e);
            CHECK_NEAR(b.aabb_max[k], hi + 0.05, 1e-12);
            CHECK_NEAR(b.aabb_min[k], lo - 0.05, 1e-12);
        }
    }
}

/* ---- broadphase against brute force ---- */

static int filter_drop_7(void *ctx, int a, int b)
{
    int *calls = ctx;
    ++*calls;
    return (a + b) % 7 != 0;
}

static int cmp_pair2(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    if (a[0] != b[0])
        return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* brute force: every i < j; planes by the minimum over the 8 AABB corners */
static int brute_pairs(const mo_cl_object *o, int n, int use_filter, int (*out)[2])
{
    int count = 0, dummy = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const mo_cl_object *a = &o[i], *b = &o[j];
            if (a->is_static && b->is_static)
                continue;
            if (a->group != 0 && a->group == b->group)
                continue;
            int pa = a->type == MO_CL_PLANE, pb = b->type == MO_CL_PLANE;
            if (pa && pb)
                continue;
            int hit;
            if (pa || pb) {
                const mo_cl_object *p = pa ? a : b, *x = pa ? b : a;
                double nrm[3] = {p->rot[2], p->rot[5], p->rot[8]};
                double off = dot3(nrm, p->pos);
                double low = HUGE_VAL;
                for (int v = 0; v < 8; ++v) {
                    double cx = (v & 1) ? x->aabb_max[0] : x->aabb_min[0];
                    double cy = (v & 2) ? x->aabb_max[1] : x->aabb_min[1];
                    double cz = (v & 4) ? x->aabb_max[2] : x->aabb_min[2];
                    double d = nrm[0] * cx + nrm[1] * cy + nrm[2] * cz;
                    if (d < low)
                        low = d;
                }
                hit = low <= off;
            } else {
                hit = 1;
                for (int k = 0; k < 3; ++k)
                    hit &= a->aabb_min[k] <= b->aabb_max[k] && b->aabb_min[k] <= a->aabb_max[k];
            }
            if (!hit)
                continue;
            if (use_filter && !filter_drop_7(&dummy, i, j))
                continue;
            out[count][0] = i;
            out[count][1] = j;
            ++count;
        }
    return count;
}

static void test_broadphase(void)
{
    enum { N = 520 };
    static mo_cl_object objs[N];
    static int expect[N * N / 2][2];
    mo_cl_pairs pairs = {NULL, 0, 0};
    const double margin = 0.02;

    for (int scene = 0; scene < 6; ++scene) {
        uint64_t seed = 1000 + (uint64_t)scene;
        double ext[3] = {10, 10, 10};
        if (scene == 1) /* long in x */
            ext[0] = 40, ext[1] = 3, ext[2] = 3;
        if (scene == 2) /* flat in z, long in y */
            ext[0] = 6, ext[1] = 30, ext[2] = 1;
        for (int i = 0; i < N; ++i) {
            double x = sm64_uniform(&seed, -ext[0], ext[0]), y = sm64_uniform(&seed, -ext[1], ext[1]);
            double z = sm64_uniform(&seed, -ext[2], ext[2]);
            double R[9];
            sm64_rotation(&seed, R);
            if (scene == 3) {
                /* integer grid, unit spheres and aligned unit cubes, no margin:
                   AABBs touching exactly, equal bounds, ties in the sort */
                x = floor(x), y = floor(y), z = floor(z);
                if (i % 2 == 0)
                    objs[i] = make_sphere(x, y, z, 0.5);
                else
                    objs[i] = make_box(x, y, z, 0.5, 0.5, 0.5, NULL);
            } else if (i % 2 == 0) {
                objs[i] = make_sphere(x, y, z, sm64_uniform(&seed, 0.1, 0.8));
            } else {
                double h[3];
                sm64_vec(&seed, 0.1, 0.8, h);
                objs[i] = make_box(x, y, z, h[0], h[1], h[2], R);
            }
            objs[i].is_static = (sm64_next(&seed) % 5) == 0;
            uint64_t g = sm64_next(&seed) % 8;
            objs[i].group = g < 4 ? 0u : (uint32_t)g;
        }
        /* planes: ground, a tilted one, a static-group one */
        double R[9];
        objs[7] = make_plane(0, 0, -ext[2] + 1.5, NULL); /* scene 3: touches a layer exactly */
        mat_axis_angle(1, 1, 0, 2.5, R);
        objs[100] = make_plane(1, 2, 0, R);
        mat_axis_angle(0, 1, 0, 0.3, R);
        objs[333] = make_plane(0, 0, 0, R);
        objs[333].group = 5;
        objs[100].is_static = 0;
        for (int i = 0; i < N; ++i)
            mo_cl_update_aabb(&objs[i], scene == 3 ? 0.0 : margin);

        for (int use_filter = 0; use_filter < 2; ++use_filter) {
            int calls = 0;
            int rc = mo_cl_broadphase(objs, N, use_filter ? filter_drop_7 : NULL, &calls, &pairs);
            CHECK(rc == 0);
            int ne = brute_pairs(objs, N, use_filter, expect);
            int same = pairs.count == ne;
            for (int k = 0; same && k < ne; ++k)
                same = pairs.pairs[k][0] == expect[k][0] && pairs.pairs[k][1] == expect[k][1];
            ++check_count;
            if (!same) {
                fprintf(stderr, "%s:%d: scene %d filter %d: broadphase %d pairs, brute force %d\n",
                        __FILE__, __LINE__, scene, use_filter, pairs.count, ne);
                ++check_failures;
            }
            for (int k = 0; k < pairs.count; ++k) {
                CHECK(pairs.pairs[k][0] < pairs.pairs[k][1]);
                if (k > 0)
                    CHECK(cmp_pair2(pairs.pairs[k - 1], pairs.pairs[k]) < 0);
            }
            if (scene == 0 && use_filter == 0)
                printf("  broadphase: %d objects, %d pairs in scene 0\n", N, ne);
            if (use_filter)
                CHECK(calls >= ne);
        }
    }

    /* empty and plane-only inputs */
    CHECK(mo_cl_broadphase(objs, 0, NULL, NULL, &pairs) == 0 && pairs.count == 0);
    mo_cl_object two[2] = {make_plane(0, 0, 0, NULL), make_plane(0, 0, 1, NULL)};
    two[1].is_static = 0;
    CHECK(mo_cl_broadphase(two, 2, NULL, NULL, &pairs) == 0 && pairs.count == 0);
    mo_cl_pairs_free(&pairs);
    CHECK(pairs.pairs == NULL && pairs.count == 0 && pairs.capacity == 0);
    mo_cl_pairs_free(&pairs);
}

int main(void)
{
    test_sphere_sphere();
    test_sphere_plane();
    test_box_plane();
    test_sphere_box();
    test_box_box_face();
    test_box_box_edge();
    test_box_edge_on_face();
    test_swap_order();
    test_feature_stability();
    test_aabb();
    test_random_box_box();
    test_random_sphere_box();
    test_broadphase();
    return check_result_counted("test_collision");
}
