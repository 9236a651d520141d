/* test_joints.c: joints through the public API (moreau/moreau.h) only.
 *
 * Every scene runs at the default settings (h = 1/120 s, PGS, 50 sweeps, warm
 * start, SPOOK d = 4, rigid rows, gyroscopic term on) unless stated.
 * Tolerances come from three facts:
 * (1) a joint under a static load: an unbalanced load would show as one step
 *     of free fall, h^2 g = 6.8e-4 m, before SPOOK removes it (a fraction
 *     4/(1 + 4d) = 4/17 per step); the rows of one joint are solved as one
 *     block with its exact N^-1, so such joints hold to round-off and the
 *     tests allow 1e-6 m / 1e-6 rad;
 * (2) a joint in motion: the rows are velocity-level, so each step the anchor
 *     leaves the linearised constraint by the second-order term of its motion,
 *     delta = h^2 w^2 r / 2 for an anchor at lever r on a body turning at w
 *     (plus h^2 v_perp^2 / (2 L) for a distance joint of length L). SPOOK
 *     (d = 4) settles such a per-step drift at 4 delta; the tests allow
 *     8 max(delta) + 1e-6 m, computed from each run's own velocities
 *     (drift_bound below). A broken row or a wrong stabilisation sign gives
 *     errors of metres or growing without bound;
 * (3) analytic answers (free sliding, motor torque limits, drive recurrence,
 *     static offsets, reactions) where the constrained direction decouples
 *     from the others: round-off, 1e-9.
 * Returns 0 when every check passes, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"

#define CHECK_NEAR CHECK_NEAR_G17_DIFF
#include "testutil.h"

/* x <= bound */
#define CHECK_LE(x, bound)                                                                           \
    do {                                                                                             \
        double x_ = (x), b_ = (bound);                                                               \
        ++check_count;                                                                               \
        if (!(x_ <= b_)) {                                                                           \
            fprintf(stderr, "%s:%d: CHECK_LE failed: %s = %.6g > %s = %.6g\n", __FILE__, __LINE__, #x, \
                    x_, #bound, b_);                                                                 \
            ++check_failures;                                                                        \
        }                                                                                            \
    } while (0)

static void group_begin(void) { check_group_begin(); }
/* "ok   name  N checks, F failed" */
static void group_end(const char *name) { check_group_end(name, 50, 4); }

#define H (1.0 / 120.0)
#define G 9.81

/* ---- vectors and quaternions (own) ---- */

static mo_vec3 v3(double x, double y, double z) { return (mo_vec3){x, y, z}; }
static mo_vec3 vadd(mo_vec3 a, mo_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static mo_vec3 vsub(mo_vec3 a, mo_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static mo_vec3 vscale(mo_vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static double vdot(mo_vec3 a, mo_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static mo_vec3 vcross(mo_vec3 a, mo_vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static double vnorm(mo_vec3 a) { return sqrt(vdot(a, a)); }
static mo_vec3 vunit(mo_vec3 a) { return vscale(a, 1.0 / vnorm(a)); }
/* component of a perpendicular to unit e */
static mo_vec3 vperp(mo_vec3 a, mo_vec3 e) { return vsub(a, vscale(e, vdot(a, e))); }

static mo_quat qaa(mo_vec3 axis, double angle)
{
    mo_vec3 a = vunit(axis);
    double s = sin(0.5 * angle);
    return (mo_quat){cos(0.5 * angle), s * a.x, s * a.y, s * a.z};
}
static mo_quat qmul(mo_quat a, mo_quat b)
{
    return (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static mo_quat qconj(mo_quat a) { return (mo_quat){a.w, -a.x, -a.y, -a.z}; }
static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    mo_quat p = qmul(qmul(q, (mo_quat){0, v.x, v.y, v.z}), qconj(q));
    return v3(p.x, p.y, p.z);
}
/* rotation vector (axis * angle, angle in [0, pi]) of q */
static mo_vec3 qrotvec(mo_quat q)
{
    if (q.w < 0) q = (mo_quat){-q.w, -q.x, -q.y, -q.z};
    mo_vec3 v = v3(q.x, q.y, q.z);
    double s = vnorm(v);
    if (s < 1e-300) return v3(0, 0, 0);
    return vscale(v, 2.0 * atan2(s, q.w) / s);
}
/* angle of the rotation taking a to b */
static double qangle(mo_quat a, mo_quat b) { return vnorm(qrotvec(qmul(b, qconj(a)))); }
static double wrap(double a)
{
    while (a > PI) a -= 2 * PI;
    while (a <= -PI) a += 2 * PI;
    return a;
}

/* ---- worlds, bodies, joints ---- */

static mo_world *new_world(mo_vec3 gravity)
{
    mo_world_def wd = mo_default_world_def();
    wd.gravity = gravity;
    return world_or_exit(&wd, "mo_world_create: ", 2);
}

static mo_mat3 diag3(double a, double b, double c)
{
    mo_mat3 I;
    memset(&I, 0, sizeof I);
    I.m[0][0] = a; I.m[1][1] = b; I.m[2][2] = c;
    return I;
}

static mo_body_id body(mo_world *w, mo_body_type type, mo_vec3 x, mo_quat q, double mass, mo_mat3 I)
{
    mo_body_def bd = mo_default_body_def();
    bd.type = type;
    bd.position = x;
    bd.orientation = q;
    bd.mass = mass;
    if (type == MO_BODY_DYNAMIC) bd.inertia = I;
    mo_body_id id;
    if (mo_body_create(w, &bd, &id) != MO_OK) {
        fprintf(stderr, "mo_body_create: %s\n", mo_world_last_error(w));
        exit(2);
    }
    return id;
}

static mo_joint_id joint(mo_world *w, const mo_joint_def *d) { return joint_or_exit(w, d, "mo_joint_create: ", 2); }

static mo_vec3 pos(mo_world *w, mo_body_id b) { mo_vec3 r; mo_body_position(w, b, &r); return r; }
static mo_quat ori(mo_world *w, mo_body_id b) { mo_quat r; mo_body_orientation(w, b, &r); return r; }
static mo_vec3 linv(mo_world *w, mo_body_id b) { mo_vec3 r; mo_body_linear_velocity(w, b, &r); return r; }
static mo_vec3 angv(mo_world *w, mo_body_id b) { mo_vec3 r; mo_body_angular_velocity(w, b, &r); return r; }
static double jerr(mo_world *w, mo_joint_id j) { double e = -1; mo_joint_error(w, j, &e); return e; }
static double jpos(mo_world *w, mo_joint_id j)
{
    double s = NAN;
    if (mo_joint_position(w, j, &s) != MO_OK) fprintf(stderr, "mo_joint_position: %s\n", mo_world_last_error(w));
    return s;
}
/* body-frame point of a world point */
static mo_vec3 local_point(mo_world *w, mo_body_id b, mo_vec3 p) { return qrot(qconj(ori(w, b)), vsub(p, pos(w, b))); }
static mo_vec3 local_dir(mo_world *w, mo_body_id b, mo_vec3 d) { return qrot(qconj(ori(w, b)), d); }
static void step(mo_world *w)
{
    if (mo_world_step(w) != MO_OK) {
        fprintf(stderr, "mo_world_step: %s\n", mo_world_last_error(w));
        exit(2);
    }
}

/* per-step drift of a point row (fact (2) in the header): an anchor at world
 * point p on body b, which turns at w: h^2 |w|^2 |p - x| / 2 */
static double drift_point(mo_world *w, mo_body_id b, mo_vec3 p)
{
    double om = vnorm(angv(w, b));
    return 0.5 * H * H * om * om * vnorm(vsub(p, pos(w, b)));
}
/* the allowance for a joint in motion: 8 times the largest per-step drift */
static double drift_bound(double dmax) { return 8.0 * dmax + 1e-6; }

/* ====================================================================== */

/* fixed joint: a body welded to the world with its centre of mass 0.33 m to
 * the side of the anchor, under gravity and a varying applied force and
 * torque for 3 s */
static void test_fixed(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_quat q0 = qaa(v3(1, 2, 3), 0.8);
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.3, 0.1, 0.8), q0, 2.0, diag3(0.02, 0.03, 0.04));
    mo_vec3 x0 = pos(w, b), pa = v3(0, 0, 1.0);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_FIXED;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    mo_joint_id j = joint(w, &d);
    double emax = 0, amax = 0, xmax = 0, vmax = 0;
    for (int i = 0; i < 360; i++) {
        double t = i * H;
        mo_body_apply_force(w, b, v3(6 * sin(2 * t), 4 * cos(3 * t), 5), v3(0.4 * sin(5 * t), 0.2, -0.3 * cos(t)));
        step(w);
        double e = jerr(w, j), a = qangle(q0, ori(w, b)), dx = vnorm(vsub(pos(w, b), x0));
        double v = vnorm(linv(w, b)) + vnorm(angv(w, b));
        if (e > emax) emax = e;
        if (a > amax) amax = a;
        if (dx > xmax) xmax = dx;
        if (v > vmax) vmax = v;
    }
    printf("     fixed: max anchor error %.2e m, max rotation %.2e rad, max |dx| %.2e m\n", emax, amax, xmax);
    /* fact (1): 1e-6 m and 1e-6 rad; a missing or wrong-signed row lets the
     * body fall or swing by metres / radians */
    CHECK_LE(emax, 1e-6);
    CHECK_LE(amax, 1e-6);
    CHECK_LE(xmax, 1e-6); /* the welded body stays put */
    CHECK_LE(vmax, 1e-6);
    /* the joint has no scalar position */
    double s;
    CHECK(mo_joint_position(w, j, &s) == MO_ERR_INVALID_ARGUMENT);
    mo_world_destroy(w);
    group_end("fixed joint keeps the relative pose");
}

/* angular momentum about point P: m (x - P) x v + R I R^T w */
static mo_vec3 ang_momentum(mo_world *w, mo_body_id b, mo_vec3 P)
{
    double m;
    mo_mat3 I;
    mo_body_mass(w, b, &m, &I);
    mo_quat q = ori(w, b);
    mo_vec3 wb = qrot(qconj(q), angv(w, b));
    mo_vec3 Iw = v3(I.m[0][0] * wb.x + I.m[0][1] * wb.y + I.m[0][2] * wb.z,
                    I.m[1][0] * wb.x + I.m[1][1] * wb.y + I.m[1][2] * wb.z,
                    I.m[2][0] * wb.x + I.m[2][1] * wb.y + I.m[2][2] * wb.z);
    return vadd(vscale(vcross(vsub(pos(w, b), P), linv(w, b)), m), qrot(q, Iw));
}

/* spherical joint: a 3-D pendulum, anchor 0.5 m from the centre of mass,
 * launched sideways with a spin; gravity and the joint force exert no torque
 * about the vertical through the anchor, so L_z about the anchor is kept */
static void test_spherical(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_quat q0 = qaa(v3(0.3, -1, 0.2), 0.5);
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.3, 0.0, 0.6), q0, 1.5, diag3(0.01, 0.02, 0.025));
    mo_vec3 pa = v3(0, 0, 1.0);
    mo_body_set_velocity(w, b, v3(0, 1.2, 0.3), v3(1.0, -0.5, 2.0));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    mo_joint_id j = joint(w, &d);
    double L0 = ang_momentum(w, b, pa).z, emax = 0, Ldev = 0, amax = 0, dmax = 0, Lbound = 0;
    for (int i = 0; i < 360; i++) {
        mo_vec3 pb;
        mo_body_world_point(w, b, d.anchor_b, &pb);
        double dl = drift_point(w, b, pb);
        if (dl > dmax) dmax = dl;
        step(w);
        double e = jerr(w, j), a = qangle(q0, ori(w, b)), dL = fabs(ang_momentum(w, b, pa).z - L0);
        if (e > emax) emax = e;
        if (a > amax) amax = a;
        if (dL > Ldev) Ldev = dL;
        /* the joint impulse acts at B's anchor, e away from the pivot: its
         * moment about the pivot is at most e |F| per unit time */
        mo_vec3 f;
        mo_joint_reaction(w, j, &f, NULL);
        Lbound += H * e * vnorm(f);
    }
    printf("     spherical: max anchor error %.2e m (bound %.2e), max rotation %.2f rad, L_z %.4f, drift %.2e (bound %.2e)\n",
           emax, drift_bound(dmax), amax, L0, Ldev, Lbound);
    CHECK_LE(emax, drift_bound(dmax)); /* fact (2) */
    CHECK(amax > 1.0);                 /* it really swung: rotation is free */
    /* L_z about the pivot: gravity is vertical, the joint's impulse acts at B's
     * anchor, which is within e of the pivot; symplectic Euler keeps x x v
     * under a central impulse and the gyroscopic midpoint step keeps a free
     * body's L: the drift stays below sum h e |F| (+ round-off) */
    CHECK_LE(Ldev, Lbound + 1e-9);
    CHECK(fabs(L0) > 0.1);
    mo_world_destroy(w);
    group_end("spherical joint keeps the anchor");
}

/* revolute joint about a horizontal axis a (30 deg from x), a body with a
 * generic inertia released from the horizontal: it swings about a only.
 * Run twice: gyroscopic term off (control) and on (the default). */
static void revolute_run(bool gyro, double *wperp, double *wpar, double *emax, double *amis, double *angdiff,
                         double *bound)
{
    mo_world *w = new_world(v3(0, 0, -G));
    mo_vec3 a = v3(cos(PI / 6), sin(PI / 6), 0), pa = v3(0, 0, 1.0);
    mo_vec3 side = vunit(vcross(v3(0, 0, 1), a)); /* horizontal, perpendicular to a */
    mo_quat q0 = qaa(v3(1, -2, 0.5), 1.1);
    mo_body_def bd = mo_default_body_def();
    bd.position = vadd(pa, vscale(side, 0.4));
    bd.orientation = q0;
    bd.mass = 1.0;
    bd.inertia = diag3(0.02, 0.05, 0.04);
    bd.gyroscopic = gyro;
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    d.axis_a = a;
    d.axis_b = local_dir(w, b, a);
    mo_joint_id j = joint(w, &d);
    CHECK_NEAR(jpos(w, j), 0.0, 1e-12);
    double dmax = 0;
    *wperp = *wpar = *emax = *amis = *angdiff = 0;
    for (int i = 0; i < 360; i++) {
        mo_vec3 pb;
        mo_body_world_point(w, b, d.anchor_b, &pb);
        if (drift_point(w, b, pb) > dmax) dmax = drift_point(w, b, pb);
        step(w);
        mo_vec3 om = angv(w, b);
        double e = jerr(w, j), p = vnorm(vperp(om, a));
        if (e > *emax) *emax = e;
        if (p > *wperp) *wperp = p;
        if (fabs(vdot(om, a)) > *wpar) *wpar = fabs(vdot(om, a));
        /* B's axis stays on A's */
        mo_vec3 aB = qrot(ori(w, b), d.axis_b);
        double mis = vnorm(vcross(aB, a));
        if (mis > *amis) *amis = mis;
        /* the joint position is the rotation angle of B about a since creation */
        mo_vec3 rv = qrotvec(qmul(ori(w, b), qconj(q0)));
        double ang = wrap(vdot(rv, a)), dd = fabs(wrap(ang - jpos(w, j)));
        if (dd > *angdiff) *angdiff = dd;
    }
    *bound = drift_bound(dmax);
    mo_world_destroy(w);
}

static void test_revolute(void)
{
    group_begin();
    double wperp, wpar, emax, amis, angdiff, bound;
    /* control: without the gyroscopic term */
    revolute_run(false, &wperp, &wpar, &emax, &amis, &angdiff, &bound);
    printf("     revolute, gyroscopic off: |w_perp| %.1e rad/s (max |w.a| %.2f), anchor error %.2e m (bound %.2e), axis error %.1e\n",
           wperp, wpar, emax, bound, amis);
    CHECK(wpar > 3.0);          /* it swings: released from the horizontal */
    CHECK_LE(wperp, 1e-9);      /* rotation about a only: exact (hinge rows are exact derivatives, fact (3)) */
    CHECK_LE(amis, 1e-9);
    CHECK_LE(emax, bound);      /* fact (2) */
    CHECK_LE(angdiff, 1e-9);    /* mo_joint_position = rotation angle about a (mod 2 pi) */
    /* default: gyroscopic term on */
    revolute_run(true, &wperp, &wpar, &emax, &amis, &angdiff, &bound);
    printf("     revolute, gyroscopic on:  |w_perp| %.1e rad/s (max |w.a| %.2f), anchor error %.2e m (bound %.2e), axis error %.1e\n",
           wperp, wpar, emax, bound, amis);
    CHECK(wpar > 3.0);
    CHECK_LE(emax, bound);
    /* regression: the pose was once turned by h (w+ + wrot), wrot being the
     * gyroscopic midpoint correction of the unconstrained predict stage, also
     * for constrained bodies; the rows only constrain w+, so a hinged body
     * left its axis by h |wrot_perp| per step (axis error ~1e-3 rad,
     * |w_perp| ~3e-2 rad/s). The correction now applies only to bodies no row
     * touches. Allowance: rotation error below 1e-5 rad per step (1e-3
     * rad/s), axis error 1e-4 rad. */
    CHECK_LE(wperp, 1e-3);
    CHECK_LE(amis, 1e-4);
    CHECK_LE(angdiff, 1e-4);
    group_end("revolute joint rotates about its axis only");
}

/* small oscillations of a physical pendulum on a revolute joint: the period
 * matches 2 pi sqrt(I_p / (m g l)), I_p = I_a + m l^2 */
static void test_revolute_period(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    const double m = 1.2, l = 0.5, Ia = 0.03, th0 = 0.02;
    mo_vec3 a = v3(0, 1, 0), pa = v3(0, 0, 1.0);
    /* body hanging at angle th0 from the vertical, its principal axis y along a */
    mo_vec3 x0 = v3(l * sin(th0), 0, 1.0 - l * cos(th0));
    mo_body_id b = body(w, MO_BODY_DYNAMIC, x0, qaa(a, th0), m, diag3(0.02, Ia, 0.025));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    d.axis_a = a;
    d.axis_b = local_dir(w, b, a);
    mo_joint_id j = joint(w, &d);
    (void)j;
    /* time the downward zero crossings of x (interpolated) */
    double prev = x0.x, tprev = 0, crossings[8];
    int nc = 0;
    for (int i = 1; i <= 1200 && nc < 8; i++) {
        step(w);
        double x = pos(w, b).x, t = i * H;
        if (prev > 0 && x <= 0) crossings[nc++] = tprev + H * prev / (prev - x);
        prev = x;
        tprev = t;
    }
    CHECK(nc >= 4);
    double T = (crossings[nc - 1] - crossings[0]) / (nc - 1);
    double Tth = 2 * PI * sqrt((Ia + m * l * l) / (m * G * l));
    printf("     revolute pendulum: period %.5f s, theory %.5f s (amplitude %.2f rad)\n", T, Tth, th0);
    /* 0.2 %: the large-amplitude correction at 0.02 rad is 2.5e-5, the
     * integrator's period error O((h omega)^2) ~ 4e-4 relative at omega = 4.6 rad/s */
    CHECK_NEAR(T, Tth, 2e-3 * Tth);
    mo_world_destroy(w);
    group_end("revolute pendulum period (analytic)");
}

/* prismatic joint along a = (1, 0, -1)/sqrt 2 from the world: gravity slides
 * the body along a (frictionless: s = g.a t^2 / 2 in the discrete form
 * s_n = g_a h^2 n (n + 1) / 2 of symplectic Euler) while a side force and a
 * torque push against the rows */
static void test_prismatic(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_vec3 a = vunit(v3(1, 0, -1));
    mo_quat q0 = qaa(v3(2, 1, -1), 0.7);
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.1, 0.2, 2.0), q0, 1.3, diag3(0.02, 0.03, 0.05));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_PRISMATIC;
    d.body_b = b;
    d.anchor_a = v3(0.1, 0.2, 2.0);
    d.anchor_b = v3(0, 0, 0);
    d.axis_a = a;
    mo_joint_id j = joint(w, &d);
    CHECK_NEAR(jpos(w, j), 0.0, 1e-15);
    double ga = G * vdot(v3(0, 0, -1), a), emax = 0, amax = 0, smax = 0;
    int n = 120;
    for (int i = 0; i < n; i++) {
        double t = i * H;
        /* side force perpendicular to a: along y and along (1, 0, 1)/sqrt 2 */
        mo_body_apply_force(w, b, vadd(v3(0, 5 * cos(4 * t), 0), vscale(vunit(v3(1, 0, 1)), 3.0)),
                            v3(0.3, 0.2 * sin(3 * t), 0.1));
        step(w);
        double e = jerr(w, j), an = qangle(q0, ori(w, b));
        double sd = fabs(jpos(w, j) - ga * H * H * (i + 1) * (i + 2) / 2.0);
        if (e > emax) emax = e;
        if (an > amax) amax = an;
        if (sd > smax) smax = sd;
    }
    double s = jpos(w, j);
    /* the position is the offset along a */
    CHECK_NEAR(s, vdot(vsub(pos(w, b), v3(0.1, 0.2, 2.0)), a), 1e-12);
    printf("     prismatic: s(1 s) = %.6f m (discrete free slide %.6f), max dev %.2e, perp error %.2e m, rotation %.2e rad\n",
           s, ga * H * H * n * (n + 1) / 2.0, smax, emax, amax);
    CHECK(s > 3.0);
    /* 1e-6 m along the axis: the rows do not act along a (the applied side
     * force is perpendicular), so only solver round-off remains */
    CHECK_LE(smax, 1e-6);
    CHECK_LE(emax, 1e-6); /* perpendicular offset, fact (1): the body does not turn, the rows are linear */
    CHECK_LE(amax, 1e-6); /* orientation kept */
    mo_world_destroy(w);
    group_end("prismatic joint slides along its axis only");
}

/* distance joint: a body swinging on a 0.8 m massless rod from the world */
static void test_distance(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.5, 0.2, 1.0), qaa(v3(1, 1, 0), 0.3), 0.7, diag3(0.01, 0.012, 0.008));
    mo_body_set_velocity(w, b, v3(0.5, -1.5, 0.8), v3(0.3, 2.0, -1.0));
    mo_vec3 pa = v3(0, 0, 1.5), lb = v3(0.05, 0, 0.02);
    mo_vec3 pb;
    mo_body_world_point(w, b, lb, &pb);
    const double L = 0.8;
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_DISTANCE;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = lb;
    d.length = L;
    mo_joint_id j = joint(w, &d);
    /* the length error at creation is |pb - pa| - L, and it is removed within ~4 steps (SPOOK d = 4) */
    CHECK_NEAR(jerr(w, j), fabs(vnorm(vsub(pb, pa)) - L), 1e-12);
    double emax = 0, travel = 0, dmax = 0;
    mo_vec3 x0 = pos(w, b);
    for (int i = 0; i < 360; i++) {
        /* drift: the anchor's speed across the rod and B's rotation */
        mo_vec3 pbn, vb;
        mo_body_world_point(w, b, lb, &pbn);
        vb = vadd(linv(w, b), vcross(angv(w, b), vsub(pbn, pos(w, b))));
        mo_vec3 e = vunit(vsub(pbn, pa));
        double vp = vnorm(vperp(vb, e));
        double dl = 0.5 * H * H * vp * vp / L + drift_point(w, b, pbn);
        if (i >= 60 && dl > dmax) dmax = dl;
        step(w);
        double er = jerr(w, j);
        if (i >= 60 && er > emax) emax = er; /* after the initial error has decayed */
        CHECK_NEAR(fabs(jpos(w, j) - L), er, 1e-12);
        double tr = vnorm(vsub(pos(w, b), x0));
        if (tr > travel) travel = tr;
    }
    printf("     distance: initial error %.3f m, max length error after 0.5 s %.2e m (bound %.2e), travel %.2f m\n",
           fabs(vnorm(vsub(pb, pa)) - L), emax, drift_bound(dmax), travel);
    CHECK(travel > 0.5);
    CHECK_LE(emax, drift_bound(dmax)); /* fact (2) */
    mo_world_destroy(w);
    group_end("distance joint keeps its length");
}

/* revolute limit [-0.3, 0.5] rad about y: gravity drives the body to the upper
 * limit, then (gravity reversed) to the lower one */
static void test_revolute_limit(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_vec3 pa = v3(0, 0, 1.0), a = v3(0, 1, 0);
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.4, 0, 1.0), qaa(v3(1, 0, 0), 0.2), 1.0, diag3(0.01, 0.02, 0.015));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    d.axis_a = a;
    d.axis_b = local_dir(w, b, a);
    d.enable_limit = true;
    d.lower = -0.3;
    d.upper = 0.5;
    mo_joint_id j = joint(w, &d);
    /* the centre of mass at +x: gravity's torque about y is +0.4 m g, so the angle grows */
    double smax = -1e9, smin = 1e9;
    for (int i = 0; i < 240; i++) {
        step(w);
        double s = jpos(w, j);
        if (s > smax) smax = s;
    }
    double s1 = jpos(w, j), w1 = vdot(angv(w, b), a);
    mo_world_set_gravity(w, v3(0, 0, G));
    for (int i = 0; i < 240; i++) {
        step(w);
        double s = jpos(w, j);
        if (s < smin) smin = s;
    }
    double s2 = jpos(w, j), w2 = vdot(angv(w, b), a);
    printf("     revolute limit: max %.5f (upper 0.5), rest %.5f; min %.5f (lower -0.3), rest %.5f rad\n", smax, s1,
           smin, s2);
    /* 1e-3 rad: the limit rows are speculative (the gap closes within a step,
     * no sooner), so only the solve's coupling with the hinge rows overshoots;
     * without the limit the body would swing through 1.5 rad */
    CHECK_LE(smax, 0.5 + 1e-3);
    CHECK_NEAR(s1, 0.5, 1e-3);
    CHECK_NEAR(w1, 0.0, 1e-3);
    CHECK(smin >= -0.3 - 1e-3);
    CHECK_NEAR(s2, -0.3, 1e-3);
    CHECK_NEAR(w2, 0.0, 1e-3);
    CHECK_LE(jerr(w, j), 1e-4);
    mo_world_destroy(w);
    group_end("revolute limits hold against gravity");
}

/* prismatic limit [-0.2, 0.1] m on a vertical slider: gravity drops the body on
 * the lower limit; a force of 3 m g then drives it to the upper one */
static void test_prismatic_limit(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    const double m = 2.0;
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0, 0, 1.0), qaa(v3(1, 1, 1), 0.4), m, diag3(0.02, 0.02, 0.03));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_PRISMATIC;
    d.body_b = b;
    d.anchor_a = v3(0, 0, 1.0);
    d.axis_a = v3(0, 0, 1);
    d.enable_limit = true;
    d.lower = -0.2;
    d.upper = 0.1;
    mo_joint_id j = joint(w, &d);
    double smin = 1e9, smax = -1e9;
    for (int i = 0; i < 240; i++) {
        step(w);
        double s = jpos(w, j);
        if (s < smin) smin = s;
    }
    double s1 = jpos(w, j), v1 = linv(w, b).z;
    for (int i = 0; i < 240; i++) {
        mo_body_apply_force(w, b, v3(0, 0, 3 * m * G), v3(0, 0, 0));
        step(w);
        double s = jpos(w, j);
        if (s > smax) smax = s;
    }
    double s2 = jpos(w, j), v2 = linv(w, b).z;
    printf("     prismatic limit: min %.6f (lower -0.2), rest %.6f; max %.6f (upper 0.1), rest %.6f m\n", smin, s1, smax,
           s2);
    /* 1e-4 m: speculative limit rows stop the body at the limit within the
     * step it arrives; an ignored limit would let it fall 3 m */
    CHECK(smin >= -0.2 - 1e-4);
    CHECK_NEAR(s1, -0.2, 1e-4);
    CHECK_NEAR(v1, 0.0, 1e-3);
    /* regression: b of unilateral rows was discontinuous at g = 0. The step
     * that reaches the upper limit (speculative branch, b = g/h) ends with
     * g ~ -1e-16 (round-off); the next step took the g < 0 SPOOK branch with
     * its -J v/(1 + 4d) term, which let the slider keep approaching at v/17:
     * 0.8 mm overshoot. Unilateral rows now drop that term. Allowance 1e-4 m
     * (speculative rows stop the body within its arrival step). */
    CHECK_LE(smax, 0.1 + 1e-4);
    CHECK_NEAR(s2, 0.1, 1e-4);
    CHECK_NEAR(v2, 0.0, 1e-3);
    mo_world_destroy(w);
    group_end("prismatic limits hold against gravity and force");
}

/* distance joint with limits [0, 1] (a rope): a body dropped 0.5 m below the
 * anchor falls until the rope is taut, and then hangs at 1 m */
static void test_distance_limit(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0, 0, 0.5), qaa(v3(0, 0, 1), 0), 1.0, diag3(0.01, 0.01, 0.01));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_DISTANCE;
    d.body_b = b;
    d.anchor_a = v3(0, 0, 1.0);
    d.enable_limit = true;
    d.lower = 0.0;
    d.upper = 1.0;
    mo_joint_id j = joint(w, &d);
    double Lmax = 0, L_at_01 = 0;
    for (int i = 0; i < 240; i++) {
        step(w);
        double L = jpos(w, j);
        if (L > Lmax) Lmax = L;
        if (i == 11) L_at_01 = L;
    }
    printf("     rope: length at 0.1 s %.4f (free fall 0.5 + g t^2/2 = %.4f), max %.5f, final %.5f m\n", L_at_01,
           0.5 + 0.5 * G * 0.1 * 0.1, Lmax, jpos(w, j));
    /* slack rope: free fall (discrete: 0.5 + g h^2 n (n + 1) / 2, n = 12) */
    CHECK_NEAR(L_at_01, 0.5 + G * H * H * 12 * 13 / 2.0, 1e-9);
    CHECK_LE(Lmax, 1.0 + 1e-3); /* taut: the speculative row stops it within the arrival step */
    CHECK_NEAR(jpos(w, j), 1.0, 1e-4);
    mo_world_destroy(w);
    group_end("distance limits (rope)");
}

/* revolute velocity motor, no gravity: a body with inertia I_a = 0.2 about the
 * hinge axis (a principal axis), the anchor at its centre of mass */
static void test_motor(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, 0));
    mo_vec3 a = vunit(v3(1, 2, 2));
    /* orientation taking body z onto a, then turned about a */
    mo_vec3 ez = v3(0, 0, 1);
    mo_quat q0 = qmul(qaa(a, 0.7), qaa(vcross(ez, a), acos(vdot(ez, a))));
    const double Ia = 0.2;
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0, 0, 0), q0, 3.0, diag3(0.1, 0.15, Ia));
    CHECK_NEAR(vnorm(vsub(qrot(q0, ez), a)), 0.0, 1e-12);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_b = b;
    d.anchor_a = v3(0, 0, 0);
    d.anchor_b = v3(0, 0, 0);
    d.axis_a = a;
    d.axis_b = ez;
    d.motor = MO_MOTOR_VELOCITY;
    d.target_velocity = 2.0;
    d.max_force = 100.0; /* 100 N m >> I_a * 2 / h = 48 N m: reaches the target in one step */
    mo_joint_id j = joint(w, &d);
    step(w);
    CHECK_NEAR(vdot(angv(w, b), a), 2.0, 1e-9);
    for (int i = 0; i < 119; i++) step(w);
    mo_vec3 om = angv(w, b);
    CHECK_NEAR(vdot(om, a), 2.0, 1e-9);
    CHECK_LE(vnorm(vperp(om, a)), 1e-9);
    /* the angle grows at the target rate; each step turns by the Cayley
     * map's 2 atan(h w / 2) (kernels/dynamics.h), (h w)^3 / 12 short of h w */
    CHECK_NEAR(jpos(w, j), wrap(120 * 2.0 * atan(H * 2.0 / 2.0)), 1e-9);
    /* steady state: no torque needed */
    mo_vec3 f, t;
    mo_joint_reaction(w, j, &f, &t);
    CHECK_LE(vnorm(t), 1e-6);

    /* a weak motor: tau_max = 0.05 N m cannot reach -2 rad/s in 1 s; the
     * angular acceleration is exactly -tau_max / I_a each step */
    const double tau = 0.05;
    CHECK(mo_joint_set_motor(w, j, MO_MOTOR_VELOCITY, -2.0, 0.0, tau) == MO_OK);
    double w0 = vdot(angv(w, b), a), maxdev = 0;
    for (int i = 1; i <= 120; i++) {
        step(w);
        double expect = w0 - tau / Ia * i * H;
        double dev = fabs(vdot(angv(w, b), a) - expect);
        if (dev > maxdev) maxdev = dev;
    }
    mo_joint_reaction(w, j, &f, &t);
    printf("     motor: |w - (w0 - tau t / I)| max %.2e rad/s; reaction torque %.6f N m (tau %.3f)\n", maxdev,
           vdot(t, a), tau);
    CHECK_LE(maxdev, 1e-9); /* the boxed row sits on its bound h tau every step: exact */
    CHECK_NEAR(vdot(t, a), -tau, 1e-9);
    CHECK_LE(vnorm(vperp(t, a)), 1e-9);
    CHECK_LE(vnorm(f), 1e-9); /* anchor at the centre of mass: no force */
    CHECK_NEAR(vdot(angv(w, b), a), 2.0 - tau / Ia * 1.0, 1e-9);
    mo_world_destroy(w);
    group_end("revolute velocity motor (target, torque limit)");
}

/* prismatic PD drive along a = (0.6, 0, 0.8), no gravity, then along z with
 * gravity. The drive is an implicit spring-damper: each step
 *     m (u+ - u) / h = -k (s + h u+ - s*) - c u+ + m g_a,   s+ = s + h u+
 * (u the speed along a), which the test iterates itself and compares with;
 * the rest position with gravity is s* - m g / k */
static void test_drive(void)
{
    for (int grav = 0; grav < 2; grav++) {
        group_begin();
        mo_world *w = new_world(v3(0, 0, grav ? -G : 0));
        const double m = 1.5, k = 200.0, c = 20.0, target = 0.3;
        mo_vec3 a = grav ? v3(0, 0, 1) : v3(0.6, 0, 0.8);
        mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.2, -0.1, 1.0), qaa(v3(1, 0, 1), 0.5), m, diag3(0.01, 0.02, 0.03));
        mo_joint_def d = mo_default_joint_def();
        d.type = MO_JOINT_PRISMATIC;
        d.body_b = b;
        d.anchor_a = v3(0.2, -0.1, 1.0);
        d.axis_a = a;
        d.motor = MO_MOTOR_POSITION;
        d.target_position = target;
        d.stiffness = k;
        d.damping = c;
        mo_joint_id j = joint(w, &d);
        double s = 0, u = 0, ga = grav ? -G : 0, maxdev = 0, smax = 0;
        for (int i = 0; i < 600; i++) {
            step(w);
            u = (m * u + H * (-k * (s - target) + m * ga)) / (m + H * H * k + H * c);
            s += H * u;
            double dev = fabs(jpos(w, j) - s);
            if (dev > maxdev) maxdev = dev;
            if (jpos(w, j) > smax) smax = jpos(w, j);
        }
        double rest = target + m * ga / k;
        printf("     PD drive%s: s(5 s) = %.8f, rest %.8f, max |s - recurrence| %.1e, peak %.4f\n",
               grav ? " with gravity" : "", jpos(w, j), rest, maxdev, smax);
        CHECK_LE(maxdev, 1e-9);                 /* the drive row is decoupled from the others: exact */
        CHECK_NEAR(jpos(w, j), rest, 1e-6);     /* settled (decay e^{-c t / 2m} ~ 1e-14 at 5 s) */
        CHECK_NEAR(vdot(linv(w, b), a), 0.0, 1e-6);
        if (!grav) CHECK(smax > target * 1.05); /* underdamped (zeta = 0.58): overshoots */
        else CHECK_NEAR(rest, 0.3 - m * G / k, 1e-15);
        CHECK_LE(jerr(w, j), 1e-6);
        mo_world_destroy(w);
        group_end(grav ? "prismatic PD drive: static offset m g / k" : "prismatic PD drive settles at target");
    }
}

/* a body hanging still under a spherical joint: the reaction is m g upward */
static void test_reaction(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    const double m = 2.5;
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.1, 0.2, 0.5), qaa(v3(1, -1, 2), 0.9), m, diag3(0.03, 0.04, 0.05));
    mo_vec3 pa = v3(0.1, 0.2, 1.0);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_b = b;
    d.anchor_a = pa;
    d.anchor_b = local_point(w, b, pa);
    mo_joint_id j = joint(w, &d);
    for (int i = 0; i < 120; i++) step(w);
    mo_vec3 f, t;
    CHECK(mo_joint_reaction(w, j, &f, &t) == MO_OK);
    printf("     reaction: F = (%.3e, %.3e, %.9f) N, m g = %.9f N; |torque| %.1e N m\n", f.x, f.y, f.z, m * G,
           vnorm(t));
    CHECK_NEAR(f.z, m * G, 1e-9 * m * G);
    CHECK_NEAR(f.x, 0.0, 1e-9);
    CHECK_NEAR(f.y, 0.0, 1e-9);
    CHECK_LE(vnorm(t), 1e-9); /* the anchor is straight above the centre of mass */
    CHECK_LE(vnorm(linv(w, b)), 1e-9);
    /* a fixed joint holding a body whose centre of mass is 0.3 m to the side:
     * still m g upward (whatever the torque's reference point) */
    mo_world *w2 = new_world(v3(0, 0, -G));
    mo_body_id b2 = body(w2, MO_BODY_DYNAMIC, v3(0.3, 0.0, 1.0), qaa(v3(0, 1, 0), 0.3), m, diag3(0.03, 0.04, 0.05));
    d = mo_default_joint_def();
    d.type = MO_JOINT_FIXED;
    d.body_b = b2;
    d.anchor_a = v3(0, 0, 1.0);
    d.anchor_b = local_point(w2, b2, v3(0, 0, 1.0));
    mo_joint_id j2 = joint(w2, &d);
    for (int i = 0; i < 120; i++) step(w2);
    mo_joint_reaction(w2, j2, &f, &t);
    CHECK_NEAR(f.z, m * G, 1e-6 * m * G);
    CHECK_NEAR(vnorm(v3(f.x, f.y, 0)), 0.0, 1e-6);
    mo_world_destroy(w2);
    mo_world_destroy(w);
    group_end("mo_joint_reaction of a hanging body = m g up");
}

/* joints between dynamic bodies: (1) a double pendulum (spherical to the
 * world, revolute between the links) in chaotic motion; (2) two free bodies
 * joined by a revolute joint, no gravity: the joint's impulses are internal,
 * so total linear momentum is kept exactly and the centre of mass moves
 * uniformly */
static void test_two_bodies(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_body_id b1 = body(w, MO_BODY_DYNAMIC, v3(0.4, 0, 1.5), qaa(v3(0, 1, 0), PI / 2), 1.0, diag3(0.002, 0.014, 0.014));
    mo_body_id b2 = body(w, MO_BODY_DYNAMIC, v3(1.0, 0, 1.5), qaa(v3(0, 1, 0.3), 1.0), 0.6, diag3(0.01, 0.004, 0.012));
    mo_body_set_velocity(w, b1, v3(0, 0.5, 0), v3(0, 0, 0));
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_b = b1;
    d.anchor_a = v3(0, 0, 1.5);
    d.anchor_b = local_point(w, b1, v3(0, 0, 1.5));
    mo_vec3 lb1 = d.anchor_b;
    mo_joint_id j1 = joint(w, &d);
    d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_a = b1;
    d.body_b = b2;
    mo_vec3 pm = v3(0.8, 0, 1.5), ax = v3(0, 1, 0);
    d.anchor_a = local_point(w, b1, pm);
    d.anchor_b = local_point(w, b2, pm);
    mo_vec3 lb2 = d.anchor_b;
    d.axis_a = local_dir(w, b1, ax);
    d.axis_b = local_dir(w, b2, ax);
    mo_joint_id j2 = joint(w, &d);
    double e1 = 0, e2 = 0, travel = 0, d1 = 0, d2 = 0;
    for (int i = 0; i < 480; i++) {
        mo_vec3 p1, p2;
        mo_body_world_point(w, b1, lb1, &p1);
        mo_body_world_point(w, b2, lb2, &p2);
        double dl1 = drift_point(w, b1, p1), dl2 = drift_point(w, b1, p2) + drift_point(w, b2, p2);
        if (dl1 > d1) d1 = dl1;
        if (dl2 > d2) d2 = dl2;
        step(w);
        if (jerr(w, j1) > e1) e1 = jerr(w, j1);
        if (jerr(w, j2) > e2) e2 = jerr(w, j2);
        double tr = vnorm(vsub(pos(w, b2), v3(1.0, 0, 1.5)));
        if (tr > travel) travel = tr;
    }
    printf("     double pendulum: max errors %.2e (bound %.2e, spherical), %.2e (bound %.2e, revolute) m; tip travel %.2f m\n",
           e1, drift_bound(d1), e2, drift_bound(d2), travel);
    CHECK(travel > 1.0);
    CHECK_LE(e1, drift_bound(d1)); /* fact (2), each joint from its own anchors' motion */
    CHECK_LE(e2, drift_bound(d2));
    mo_world_destroy(w);

    w = new_world(v3(0, 0, 0));
    b1 = body(w, MO_BODY_DYNAMIC, v3(0, 0, 0), qaa(v3(1, 0, 0), 0.3), 2.0, diag3(0.02, 0.03, 0.04));
    b2 = body(w, MO_BODY_DYNAMIC, v3(0.5, 0.1, 0), qaa(v3(0, 0, 1), -0.4), 1.0, diag3(0.01, 0.02, 0.015));
    mo_body_set_velocity(w, b1, v3(0.3, -0.2, 0.5), v3(1.0, 0.5, -0.3));
    mo_body_set_velocity(w, b2, v3(-0.4, 0.6, 0.1), v3(-2.0, 0.3, 1.0));
    d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_a = b1;
    d.body_b = b2;
    pm = v3(0.25, 0.05, 0);
    ax = vunit(v3(0, 0.3, 1));
    d.anchor_a = local_point(w, b1, pm);
    d.anchor_b = local_point(w, b2, pm);
    d.axis_a = local_dir(w, b1, ax);
    d.axis_b = local_dir(w, b2, ax);
    j2 = joint(w, &d);
    mo_vec3 P0 = vadd(vscale(linv(w, b1), 2.0), vscale(linv(w, b2), 1.0));
    mo_vec3 c0 = vscale(vadd(vscale(pos(w, b1), 2.0), pos(w, b2)), 1.0 / 3.0);
    lb2 = d.anchor_b;
    double dP = 0, emax = 0, dmax = 0, dang = 0;
    for (int i = 0; i < 240; i++) {
        mo_vec3 p2;
        mo_body_world_point(w, b2, lb2, &p2);
        double dl = drift_point(w, b1, p2) + drift_point(w, b2, p2);
        /* hinge rows g = aB . b1: both axes turn, second-order term <= (|wA| + |wB|)^2 / 2 per unit time^2 */
        double ws = vnorm(angv(w, b1)) + vnorm(angv(w, b2)), da = 0.5 * H * H * ws * ws;
        step(w);
        mo_vec3 P = vadd(vscale(linv(w, b1), 2.0), vscale(linv(w, b2), 1.0));
        if (vnorm(vsub(P, P0)) > dP) dP = vnorm(vsub(P, P0));
        if (i >= 10) { /* after the velocity mismatch at creation is removed */
            if (jerr(w, j2) > emax) emax = jerr(w, j2);
            if (dl > dmax) dmax = dl;
            if (da > dang) dang = da;
        }
    }
    mo_vec3 c1 = vscale(vadd(vscale(pos(w, b1), 2.0), pos(w, b2)), 1.0 / 3.0);
    mo_vec3 cexp = vadd(c0, vscale(P0, 240 * H / 3.0));
    /* the bodies turn about the hinge only: the relative angular velocity off
     * the axis is the SPOOK correction of the hinge rows' error, at most
     * (4/h) theta / (1 + 4d) plus the J v / (1 + 4d) term: (8 / (17 h)) (8 dang) */
    mo_vec3 wrel = vsub(angv(w, b2), angv(w, b1)), axw = qrot(ori(w, b1), d.axis_a);
    double wb = 8.0 / (17.0 * H) * drift_bound(dang);
    printf("     free pair: max |P - P0| %.1e N s, centre of mass off by %.1e m, joint error %.2e m (bound %.2e), |w_rel perp| %.1e (bound %.1e)\n",
           dP, vnorm(vsub(c1, cexp)), emax, drift_bound(dmax), vnorm(vperp(wrel, axw)), wb);
    CHECK_LE(dP, 1e-12);                        /* equal and opposite impulses: round-off only */
    CHECK_LE(vnorm(vsub(c1, cexp)), 1e-12);     /* the centre of mass moves uniformly */
    CHECK_LE(emax, drift_bound(dmax));          /* fact (2) */
    CHECK_LE(vnorm(vperp(wrel, axw)), wb);
    mo_world_destroy(w);
    group_end("joints between two dynamic bodies");
}

/* a kinematic body driving joints: (1) a body welded to a kinematic body that
 * translates and spins about z follows it rigidly; (2) a pendulum hanging on a
 * spherical joint from a kinematic body whose velocity is set every step */
static void test_kinematic(void)
{
    group_begin();
    mo_world *w = new_world(v3(0, 0, -G));
    mo_vec3 vk = v3(0.3, 0, 0), wk = v3(0, 0, 1.5);
    mo_body_def kd = mo_default_body_def();
    kd.type = MO_BODY_KINEMATIC;
    kd.position = v3(0, 0, 1.0);
    kd.linear_velocity = vk;
    kd.angular_velocity = wk;
    mo_body_id k;
    CHECK(mo_body_create(w, &kd, &k) == MO_OK);
    mo_body_id b = body(w, MO_BODY_DYNAMIC, v3(0.5, 0, 1.0), qaa(v3(1, 1, 0), 0.4), 1.0, diag3(0.01, 0.02, 0.03));
    mo_quat rel0 = qmul(qconj(ori(w, k)), ori(w, b));
    mo_vec3 pm = v3(0.25, 0, 1.0);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_FIXED;
    d.body_a = k;
    d.body_b = b;
    d.anchor_a = local_point(w, k, pm);
    d.anchor_b = local_point(w, b, pm);
    mo_joint_id j = joint(w, &d);
    double emax = 0, rmax = 0, dmax = 0;
    for (int i = 0; i < 240; i++) {
        mo_vec3 pbw;
        mo_body_world_point(w, b, d.anchor_b, &pbw);
        double dl = drift_point(w, k, pbw) + drift_point(w, b, pbw);
        step(w);
        if (i < 8) continue; /* the body starts at rest: ~4 steps of SPOOK catch-up */
        if (dl > dmax) dmax = dl;
        if (jerr(w, j) > emax) emax = jerr(w, j);
        double r = qangle(qmul(ori(w, k), rel0), ori(w, b));
        if (r > rmax) rmax = r;
    }
    /* rigid following: v_b = v_k + w_k x (x_b - x_k), w_b = w_k */
    mo_vec3 vexp = vadd(vk, vcross(wk, vsub(pos(w, b), pos(w, k))));
    double dv = vnorm(vsub(linv(w, b), vexp)), dw = vnorm(vsub(angv(w, b), wk));
    /* turning at 1.5 rad/s the weld's rotation rows drift by h^2 w^2 / 2 per step too */
    double dang = 0.5 * H * H * 1.5 * 1.5 * 2.0;
    printf("     kinematic weld: error %.2e m (bound %.2e), rotation %.2e rad (bound %.2e), |v - v_rigid| %.2e, |w - w_k| %.2e\n",
           emax, drift_bound(dmax), rmax, drift_bound(dang), dv, dw);
    CHECK_LE(emax, drift_bound(dmax)); /* fact (2) */
    CHECK_LE(rmax, drift_bound(dang));
    /* velocities differ from rigid following by the SPOOK correction, at most
     * (8 / (17 h)) times the position allowances (0.5 m lever for the angular part) */
    CHECK_LE(dv, 8.0 / (17.0 * H) * (drift_bound(dmax) + 0.5 * drift_bound(dang)));
    CHECK_LE(dw, 8.0 / (17.0 * H) * drift_bound(dang));
    /* the kinematic body itself moved with its velocity, untouched by the joint */
    CHECK_NEAR(pos(w, k).x, 0.3 * 240 * H, 1e-12);
    CHECK_NEAR(vnorm(vsub(angv(w, k), wk)), 0.0, 0.0);
    mo_world_destroy(w);

    /* driven pendulum */
    w = new_world(v3(0, 0, -G));
    kd = mo_default_body_def();
    kd.type = MO_BODY_KINEMATIC;
    kd.position = v3(0, 0, 1.0);
    CHECK(mo_body_create(w, &kd, &k) == MO_OK);
    b = body(w, MO_BODY_DYNAMIC, v3(0, 0, 0.4), qaa(v3(0, 0, 1), 0), 1.0, diag3(0.01, 0.01, 0.01));
    d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_a = k;
    d.body_b = b;
    d.anchor_a = v3(0, 0, 0);
    d.anchor_b = v3(0, 0, 0.6);
    j = joint(w, &d);
    double xmax = 0;
    emax = 0;
    dmax = 0;
    for (int i = 0; i < 360; i++) {
        double t = i * H;
        mo_body_set_velocity(w, k, v3(0.5 * 4.0 * cos(4.0 * t), 0, 0), v3(0, 0, 0));
        mo_vec3 pbw;
        mo_body_world_point(w, b, v3(0, 0, 0.6), &pbw);
        if (drift_point(w, b, pbw) > dmax) dmax = drift_point(w, b, pbw);
        step(w);
        if (jerr(w, j) > emax) emax = jerr(w, j);
        if (fabs(pos(w, b).x - pos(w, k).x) > xmax) xmax = fabs(pos(w, b).x - pos(w, k).x);
    }
    printf("     driven pendulum: max anchor error %.2e m (bound %.2e), max swing %.3f m\n", emax, drift_bound(dmax),
           xmax);
    CHECK(xmax > 0.05);                /* the support's motion makes it swing */
    CHECK_LE(emax, drift_bound(dmax)); /* fact (2); the support's own motion is linear within a step: no drift */
    mo_world_destroy(w);
    group_end("kinematic body driving joints");
}

/* the engine is deterministic: the same scene twice gives bit-identical states */
static void test_determinism(void)
{
    group_begin();
    uint64_t hs[2];
    for (int r = 0; r < 2; r++) {
        mo_world *w = new_world(v3(0, 0, -G));
        mo_body_id b1 = body(w, MO_BODY_DYNAMIC, v3(0.4, 0, 1.5), qaa(v3(0, 1, 0), 0.3), 1.0, diag3(0.01, 0.02, 0.02));
        mo_body_id b2 = body(w, MO_BODY_DYNAMIC, v3(0.8, 0.1, 1.5), qaa(v3(1, 0, 0), 0.3), 0.5, diag3(0.01, 0.01, 0.02));
        mo_joint_def d = mo_default_joint_def();
        d.type = MO_JOINT_SPHERICAL;
        d.body_b = b1;
        d.anchor_a = v3(0, 0, 1.5);
        d.anchor_b = local_point(w, b1, v3(0, 0, 1.5));
        joint(w, &d);
        d = mo_default_joint_def();
        d.type = MO_JOINT_REVOLUTE;
        d.body_a = b1;
        d.body_b = b2;
        d.anchor_a = local_point(w, b1, v3(0.6, 0, 1.5));
        d.anchor_b = local_point(w, b2, v3(0.6, 0, 1.5));
        d.axis_a = local_dir(w, b1, v3(0, 1, 0));
        d.axis_b = local_dir(w, b2, v3(0, 1, 0));
        d.enable_limit = true;
        d.lower = -1.0;
        d.upper = 1.0;
        d.motor = MO_MOTOR_VELOCITY;
        d.target_velocity = 1.0;
        d.max_force = 0.5;
        joint(w, &d);
        for (int i = 0; i < 200; i++) step(w);
        hs[r] = mo_world_state_hash(w);
        mo_world_destroy(w);
    }
    CHECK(hs[0] == hs[1]);
    group_end("determinism (same scene, same hash)");
}

int main(void)
{
    test_fixed();
    test_spherical();
    test_revolute();
    test_revolute_period();
    test_prismatic();
    test_distance();
    test_revolute_limit();
    test_prismatic_limit();
    test_distance_limit();
    test_motor();
    test_drive();
    test_reaction();
    test_two_bodies();
    test_kinematic();
    test_determinism();
    return check_groups_result();
}
