/* test_articulation.c: articulations in the world through the public API
 * only (moreau/articulation.h; issue 19, phase 1). Each group checks physics
 * or exact behaviour against an independent computation: a pendulum's period,
 * a double pendulum's energy over 10 s, momentum of a free-floating tree,
 * implicit PD drives (stiff gains, the first-order time constant, the effort
 * limit), gravity compensation, RNEA against the step's own acceleration, the
 * mass matrix against the kinetic energy, the Jacobian against finite
 * differences, a multi-turn joint, save/restore and the step's rollback.
 * Measured figures are printed (docs/articulations.md quotes them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/articulation.h"
#include "check.h"

static mo_world *world(double h, mo_vec3 g)
{
    mo_world_def wd = mo_default_world_def();
    wd.time_step = h;
    wd.gravity = g;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static const mo_vec3 G = {0, 0, -9.81}, NOG = {0, 0, 0};

/* a uniform rod of mass m and length L hanging from its joint along -z */
static mo_link_def rod(int parent, double m, double L, mo_vec3 jpos)
{
    mo_link_def l = mo_default_link_def();
    l.parent = parent;
    l.joint = MO_LINK_REVOLUTE;
    l.axis = (mo_vec3){0, 1, 0};
    l.joint_position = jpos;
    l.mass = m;
    l.com = (mo_vec3){0, 0, -L / 2};
    double I = m * L * L / 12.0;
    l.inertia = (mo_mat3){{{I, 0, 0}, {0, I, 0}, {0, 0, 1e-4 * m}}};
    return l;
}

static mo_articulation_id make(mo_world *w, const mo_link_def *links, int n, mo_articulation_integrator in)
{
    mo_articulation_def d = mo_default_articulation_def();
    d.links = links;
    d.link_count = n;
    d.integrator = in;
    mo_articulation_id id = {0, 0};
    if (mo_articulation_create(w, &d, &id) != MO_OK) {
        fprintf(stderr, "articulation: %s\n", mo_world_last_error(w));
        exit(1);
    }
    return id;
}

static double joint_q(mo_world *w, mo_articulation_id id, int link)
{
    double q[7] = {0};
    CHECK(mo_articulation_get_joint(w, id, link, q, NULL) == MO_OK);
    return q[0];
}

static double joint_v(mo_world *w, mo_articulation_id id, int link)
{
    double v[6] = {0};
    CHECK(mo_articulation_get_joint(w, id, link, NULL, v) == MO_OK);
    return v[0];
}

static void step(mo_world *w, int n)
{
    for (int i = 0; i < n; i++)
        if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "step: %s\n", mo_world_last_error(w));
            CHECK(0);
            return;
        }
}

/* ---- pendulum: the small-angle period of a compound pendulum, 2 pi sqrt(2 L / (3 g)) ---- */
static void group_pendulum(void)
{
    const double L = 1.0, T = 2.0 * 3.14159265358979323846 * sqrt(2.0 * L / (3.0 * 9.81));
    const double hs[2] = {1e-3, 1.0 / 120.0};
    const double tol[2] = {1e-4, 2e-3};
    for (int c = 0; c < 2; c++) {
        mo_world *w = world(hs[c], G);
        mo_link_def l = rod(-1, 1.0, L, (mo_vec3){0, 0, 0});
        mo_articulation_id id = make(w, &l, 1, MO_INTEGRATOR_MIDPOINT);
        double q0 = 0.01;
        CHECK(mo_articulation_set_joint(w, id, 0, &q0, NULL) == MO_OK);
        /* upward zero crossings of the angle, linearly interpolated */
        double prev = q0, t = 0.0, first = -1.0, last = -1.0;
        int crossings = 0;
        while (t < 10.0 * T) {
            step(w, 1);
            t += hs[c];
            double q = joint_q(w, id, 0);
            if (prev < 0.0 && q >= 0.0) {
                double tc = t - hs[c] * q / (q - prev);
                if (first < 0.0) first = tc;
                last = tc;
                crossings++;
            }
            prev = q;
        }
        double period = (last - first) / (crossings - 1);
        printf("  pendulum h = %.6f: period %.6f s, 2 pi sqrt(2L/3g) = %.6f s, relative %.2e\n", hs[c], period, T,
               fabs(period - T) / T);
        CHECK(crossings >= 9);
        CHECK_NEAR(period / T, 1.0, tol[c]);
        mo_world_destroy(w);
    }
}

/* ---- energy: frictionless double pendulum (1 m, 1 kg rods from 1.2 and -0.6 rad), 10 s ---- */
static double drift(double h, mo_articulation_integrator in)
{
    mo_world *w = world(h, G);
    mo_link_def l[2] = {rod(-1, 1.0, 1.0, (mo_vec3){0, 0, 0}), rod(0, 1.0, 1.0, (mo_vec3){0, 0, -1.0})};
    mo_articulation_id id = make(w, l, 2, in);
    double rest, q[2] = {0, 0}, ke, pe;
    CHECK(mo_articulation_set_q(w, id, q, 2) == MO_OK);
    CHECK(mo_articulation_energy(w, id, NULL, &rest) == MO_OK);
    q[0] = 1.2;
    q[1] = -0.6;
    CHECK(mo_articulation_set_q(w, id, q, 2) == MO_OK);
    CHECK(mo_articulation_energy(w, id, &ke, &pe) == MO_OK);
    const double e0 = ke + pe;
    double worst = 0.0, iters = 0.0;
    int n = (int)lround(10.0 / h), it = -1, itmax = 0;
    CHECK(mo_articulation_iterations(w, id, &it) == MO_OK && it == 0);
    for (int i = 0; i < n; i++) {
        step(w, 1);
        CHECK(mo_articulation_energy(w, id, &ke, &pe) == MO_OK);
        worst = fmax(worst, fabs(ke + pe - e0) / (e0 - rest));
        CHECK(mo_articulation_iterations(w, id, &it) == MO_OK);
        iters += it;
        if (it > itmax) itmax = it;
    }
    if (in == MO_INTEGRATOR_EULER) CHECK(itmax == 1 && iters == n);
    else {
        CHECK(iters >= 2.0 * n && itmax <= 12); /* converged every step (a miss reads -30) */
        printf("  midpoint h = %.6f: %.2f fixed-point iterations per step, at most %d\n", h, iters / n, itmax);
    }
    mo_world_destroy(w);
    return worst;
}

static void group_energy(void)
{
    double m120 = drift(1.0 / 120.0, MO_INTEGRATOR_MIDPOINT), m1000 = drift(1e-3, MO_INTEGRATOR_MIDPOINT);
    double e120 = drift(1.0 / 120.0, MO_INTEGRATOR_EULER);
    printf("  double pendulum, 10 s, largest |E - E0| / (E0 - E_rest): default (midpoint) h = 1/120 %.2e, h = 1/1000 "
           "%.2e; euler h = 1/120 %.2e\n", m120, m1000, e120);
    CHECK(m120 <= 1e-3);  /* the target is 1e-2 */
    CHECK(m1000 <= 1e-5);
    CHECK(e120 > 0.05);   /* the Euler setting misses the target: the default matters */
}

/* ---- momentum: a free-floating tree without gravity ---- */

static void qrot(double *r, const mo_quat *q, const double *v)
{
    double w = q->w, x = q->x, y = q->y, z = q->z;
    double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static void cross(double *r, const double *a, const double *b)
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(r, t, sizeof t);
}

/* linear (p) and angular momentum about the world origin (L) from link poses and velocities */
static void momentum(mo_world *w, mo_articulation_id id, const mo_link_def *l, int n, double *p, double *L)
{
    for (int k = 0; k < 3; k++) p[k] = L[k] = 0.0;
    for (int i = 0; i < n; i++) {
        mo_vec3 x, om, vo;
        mo_quat q;
        CHECK(mo_articulation_link_pose(w, id, i, &x, &q) == MO_OK);
        CHECK(mo_articulation_link_velocity(w, id, i, &om, &vo) == MO_OK);
        double c[3] = {l[i].com.x, l[i].com.y, l[i].com.z}, rc[3], wv[3] = {om.x, om.y, om.z}, vc[3], t[3];
        qrot(rc, &q, c);
        cross(t, wv, rc);
        for (int k = 0; k < 3; k++) vc[k] = (&vo.x)[k] + t[k];
        double xc[3] = {x.x + rc[0], x.y + rc[1], x.z + rc[2]}, mv[3];
        for (int k = 0; k < 3; k++) mv[k] = l[i].mass * vc[k];
        cross(t, xc, mv);
        /* R I R^T w */
        double wl[3], Iw[3], Iww[3];
        mo_quat qc = {q.w, -q.x, -q.y, -q.z};
        qrot(wl, &qc, wv);
        for (int a = 0; a < 3; a++) Iw[a] = l[i].inertia.m[a][0] * wl[0] + l[i].inertia.m[a][1] * wl[1] + l[i].inertia.m[a][2] * wl[2];
        qrot(Iww, &q, Iw);
        for (int k = 0; k < 3; k++) {
            p[k] += mv[k];
            L[k] += t[k] + Iww[k];
        }
    }
}

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void group_momentum(void)
{
    mo_link_def l[4];
    l[0] = mo_default_link_def();
    l[0].joint = MO_LINK_FREE;
    l[0].mass = 2.0;
    l[0].inertia = (mo_mat3){{{0.2, 0.01, 0}, {0.01, 0.3, 0}, {0, 0, 0.25}}};
    l[1] = rod(0, 0.7, 0.8, (mo_vec3){0.2, 0, 0.1});
    l[2] = rod(1, 0.5, 0.6, (mo_vec3){0, 0, -0.8});
    l[2].axis = (mo_vec3){1, 0, 0};
    l[3] = rod(0, 0.4, 0.5, (mo_vec3){-0.2, 0.1, 0});
    l[3].joint = MO_LINK_SPHERICAL;
    l[3].com = (mo_vec3){0.05, 0.1, -0.2};
    mo_world *w = world(1e-3, NOG);
    mo_articulation_def d = mo_default_articulation_def();
    d.links = l;
    d.link_count = 4;
    d.base_position = (mo_vec3){1, 2, 3};
    d.base_orientation = (mo_quat){0.9, 0.1, 0.3, 0.2};
    mo_articulation_id id;
    CHECK(mo_articulation_create(w, &d, &id) == MO_OK);
    int nq = 0, nv = 0;
    CHECK(mo_articulation_size(w, id, NULL, &nq, &nv) == MO_OK);
    CHECK(nq == 7 + 1 + 1 + 4 && nv == 6 + 1 + 1 + 3);
    mo_vec3 x;
    CHECK(mo_articulation_link_pose(w, id, 0, &x, NULL) == MO_OK);
    CHECK_VEC(&x.x, 1, 2, 3, 0.0);
    double v[11] = {0.3, -0.2, 0.5, 1.1, -0.7, 0.4, 2.0, -1.5, 0.8, -0.6, 1.2};
    CHECK(mo_articulation_set_qdot(w, id, v, 11) == MO_OK);
    double p0[3], L0[3], p[3], L[3], dp = 0, dL = 0;
    momentum(w, id, l, 4, p0, L0);
    for (int i = 0; i < 1000; i++) {
        step(w, 1);
        momentum(w, id, l, 4, p, L);
        double ep[3] = {p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]}, eL[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
        dp = fmax(dp, norm3(ep) / norm3(p0));
        dL = fmax(dL, norm3(eL) / norm3(L0));
    }
    printf("  free-floating tree, no gravity, 1 s at h = 1e-3 (default integrator): relative momentum drift linear "
           "%.2e, angular %.2e (|p0| %.3f, |L0| %.3f)\n", dp, dL, norm3(p0), norm3(L0));
    CHECK(norm3(p0) > 0.5 && norm3(L0) > 0.5);
    CHECK(dp <= 1e-5);
    CHECK(dL <= 1e-4);
    mo_world_destroy(w);
}

/* ---- drive: implicit PD at h = 1/120 ---- */
static void group_drive(void)
{
    const double h = 1.0 / 120.0;
    /* a rod about y, no gravity: I = m L^2 / 3 = 1/3 kg m^2 */
    for (int in = 0; in < 2; in++) {
        mo_world *w = world(h, NOG);
        mo_link_def l = rod(-1, 1.0, 1.0, (mo_vec3){0, 0, 0});
        mo_articulation_id id = make(w, &l, 1, (mo_articulation_integrator)in);
        /* overdamped, Kd^2 >> I Kp: q(t) = 1 - exp(-t Kp / Kd) to within I Kp / Kd^2 = 3e-5 */
        mo_joint_drive dr = mo_default_joint_drive();
        dr.stiffness = 1e6;
        dr.damping = 1e5;
        dr.target_position = 1.0;
        CHECK(mo_articulation_set_drive(w, id, 0, &dr) == MO_OK);
        mo_joint_drive back;
        CHECK(mo_articulation_drive(w, id, 0, &back) == MO_OK);
        CHECK(back.stiffness == 1e6 && back.damping == 1e5 && back.target_position == 1.0 && isinf(back.max_effort));
        const double tau = dr.damping / dr.stiffness; /* 0.1 s = 12 steps */
        step(w, 12);
        double q = joint_q(w, id, 0), want = 1.0 - exp(-12 * h / tau);
        printf("  drive (%s): q(t = tau = 0.1 s) = %.5f, first-order 1 - e^-1 = %.5f (relative %.3f)\n",
               in ? "euler" : "midpoint", q, want, fabs(q - want) / want);
        CHECK(fabs(q - want) / want <= 0.05);
        /* the backward-Euler drive's discrete time constant: 1 - (1 + h / tau)^-12 */
        CHECK(fabs(q - (1.0 - pow(1.0 + h / tau, -12.0))) <= 0.005);
        step(w, 228); /* 2 s */
        CHECK_NEAR(joint_q(w, id, 0), 1.0, 1e-6);
        /* very stiff, no damping: no blow-up, settles */
        dr.stiffness = 1e12;
        dr.damping = 0.0;
        dr.target_position = -0.5;
        CHECK(mo_articulation_set_drive(w, id, 0, &dr) == MO_OK);
        double worst = 0.0;
        for (int i = 0; i < 120; i++) {
            step(w, 1);
            worst = fmax(worst, fabs(joint_q(w, id, 0)));
        }
        printf("  drive (%s): Kp = 1e12, Kd = 0 at h = 1/120: largest |q| %.3f, after 1 s q = %.3e, qdot = %.3e\n",
               in ? "euler" : "midpoint", worst, joint_q(w, id, 0), joint_v(w, id, 0));
        CHECK(worst <= 1.5);
        CHECK_NEAR(joint_q(w, id, 0), -0.5, 1e-9);
        CHECK_NEAR(joint_v(w, id, 0), 0.0, 1e-6);
        /* a target velocity only (a velocity drive): qdot -> 2 rad/s */
        dr = mo_default_joint_drive();
        dr.damping = 1e4;
        dr.target_velocity = 2.0;
        CHECK(mo_articulation_set_drive(w, id, 0, &dr) == MO_OK);
        step(w, 60);
        CHECK_NEAR(joint_v(w, id, 0), 2.0, 1e-9);
        mo_world_destroy(w);
    }
}

/* ---- effort: a saturated drive applies exactly max_effort ---- */
static void group_effort(void)
{
    const double h = 1.0 / 120.0, I = 1.0 / 3.0, eff = 2.0;
    mo_world *w = world(h, NOG);
    mo_link_def l = rod(-1, 1.0, 1.0, (mo_vec3){0, 0, 0});
    mo_articulation_id id = make(w, &l, 1, MO_INTEGRATOR_MIDPOINT);
    mo_joint_drive dr = mo_default_joint_drive();
    dr.stiffness = 1e6;
    dr.damping = 1e3;
    dr.target_position = 100.0;
    dr.max_effort = eff;
    CHECK(mo_articulation_set_drive(w, id, 0, &dr) == MO_OK);
    step(w, 30);
    /* one joint about a fixed axis: M = I, no bias; the drive saturated every step: qdot = t eff / I */
    double v = joint_v(w, id, 0), want = 30 * h * eff / I;
    printf("  effort: after 30 saturated steps qdot = %.15f, t max_effort / I = %.15f\n", v, want);
    CHECK_NEAR(v, want, 1e-12);
    /* the torque that gives the step's acceleration (RNEA) is the limit */
    double v0 = joint_v(w, id, 0), qdd, tau;
    step(w, 1);
    qdd = (joint_v(w, id, 0) - v0) / h;
    CHECK(mo_articulation_inverse_dynamics(w, id, &qdd, &tau, 1) == MO_OK);
    CHECK_NEAR(tau, eff, 1e-9);
    /* negative side, with a feed-forward torque inside the drive: clamped to -eff */
    dr.target_position = -100.0;
    dr.torque = -50.0;
    CHECK(mo_articulation_set_drive(w, id, 0, &dr) == MO_OK);
    v0 = joint_v(w, id, 0);
    step(w, 1);
    CHECK_NEAR((joint_v(w, id, 0) - v0) / h * I, -eff, 1e-9);
    /* below the limit the drive is the unlimited one: same trajectory as max_effort infinity */
    mo_world *w2 = world(h, NOG);
    mo_articulation_id id2 = make(w2, &l, 1, MO_INTEGRATOR_MIDPOINT);
    dr = mo_default_joint_drive();
    dr.stiffness = 10.0;
    dr.damping = 1.0;
    dr.target_position = 0.1;
    CHECK(mo_articulation_set_drive(w2, id2, 0, &dr) == MO_OK);
    mo_world *w3 = world(h, NOG);
    mo_articulation_id id3 = make(w3, &l, 1, MO_INTEGRATOR_MIDPOINT);
    dr.max_effort = 1.5; /* the largest torque is 1 N m, at the start */
    CHECK(mo_articulation_set_drive(w3, id3, 0, &dr) == MO_OK);
    step(w2, 100);
    step(w3, 100);
    CHECK(joint_q(w2, id2, 0) == joint_q(w3, id3, 0));
    mo_world_destroy(w);
    mo_world_destroy(w2);
    mo_world_destroy(w3);
}

/* a 3-link arm: y, y, x axes, offset links */
static int arm(mo_link_def *l)
{
    l[0] = rod(-1, 1.5, 0.6, (mo_vec3){0, 0, 1});
    l[0].axis = (mo_vec3){0, 0, 1};
    l[0].com = (mo_vec3){0.05, 0.02, -0.3};
    l[0].name = "shoulder";
    l[1] = rod(0, 1.0, 0.5, (mo_vec3){0.1, 0, -0.6});
    l[1].name = "elbow";
    l[2] = rod(1, 0.6, 0.4, (mo_vec3){0, 0.05, -0.5});
    l[2].axis = (mo_vec3){1, 0, 0};
    l[2].name = "wrist";
    return 3;
}

/* ---- hold: gravity compensation as the held torque keeps the arm still ---- */
static void group_hold(void)
{
    mo_world *w = world(1.0 / 120.0, G);
    mo_link_def l[3];
    mo_articulation_id id = make(w, l, arm(l), MO_INTEGRATOR_MIDPOINT);
    double q[3] = {0.4, 0.9, -0.7}, tau[3], q1[3];
    CHECK(mo_articulation_set_q(w, id, q, 3) == MO_OK);
    CHECK(mo_articulation_gravity_compensation(w, id, tau, 3) == MO_OK);
    CHECK(fabs(tau[1]) > 1.0 && fabs(tau[2]) > 0.1);
    CHECK(mo_articulation_set_torques(w, id, tau, 3) == MO_OK);
    step(w, 120); /* the torques are held: not consumed by a step */
    CHECK(mo_articulation_get_q(w, id, q1, 3) == MO_OK);
    double worst = fmax(fabs(q1[0] - q[0]), fmax(fabs(q1[1] - q[1]), fabs(q1[2] - q[2])));
    printf("  gravity compensation: largest |q - q0| after 1 s %.2e rad\n", worst);
    CHECK(worst < 1e-9);
    /* cleared: the arm falls */
    CHECK(mo_articulation_clear_torques(w, id) == MO_OK);
    step(w, 12);
    CHECK(mo_articulation_get_q(w, id, q1, 3) == MO_OK);
    CHECK(fabs(q1[1] - q[1]) > 1e-3);
    mo_world_destroy(w);
}

/* ---- rnea: inverse dynamics = the torque that produced the step's acceleration (Euler: a at the start) ---- */
static void group_rnea(void)
{
    const double h = 1e-3;
    mo_world *w = world(h, G);
    mo_link_def l[3];
    arm(l);
    l[1].armature = 0.05;
    mo_articulation_id id = make(w, l, 3, MO_INTEGRATOR_EULER);
    double q0[3] = {0.3, -0.8, 1.1}, v0[3] = {0.7, -1.3, 2.1}, tau[3] = {1.5, -4.0, 0.7}, v1[3], a[3], t2[3];
    CHECK(mo_articulation_set_q(w, id, q0, 3) == MO_OK);
    CHECK(mo_articulation_set_qdot(w, id, v0, 3) == MO_OK);
    CHECK(mo_articulation_set_torques(w, id, tau, 3) == MO_OK);
    step(w, 1);
    CHECK(mo_articulation_get_qdot(w, id, v1, 3) == MO_OK);
    for (int k = 0; k < 3; k++) a[k] = (v1[k] - v0[k]) / h;
    CHECK(mo_articulation_set_q(w, id, q0, 3) == MO_OK);
    CHECK(mo_articulation_set_qdot(w, id, v0, 3) == MO_OK);
    CHECK(mo_articulation_inverse_dynamics(w, id, a, t2, 3) == MO_OK);
    double worst = 0;
    for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(t2[k] - tau[k]));
    printf("  rnea: |RNEA(q, qdot, measured qddot) - tau| = %.2e N m\n", worst);
    CHECK(worst <= 1e-9);
    /* RNEA = M qddot + c */
    double M[9], c[3];
    CHECK(mo_articulation_mass_matrix(w, id, M, 9) == MO_OK);
    CHECK(mo_articulation_bias_forces(w, id, c, 3) == MO_OK);
    for (int r = 0; r < 3; r++) CHECK_NEAR(M[3 * r] * a[0] + M[3 * r + 1] * a[1] + M[3 * r + 2] * a[2] + c[r], t2[r], 1e-9);
    mo_world_destroy(w);
}

/* ---- mass: M symmetric, equal to the kinetic energy's matrix (polarisation) and to the step's M^-1 ---- */
static void group_mass(void)
{
    const double h = 1e-3;
    mo_world *w = world(h, NOG);
    mo_link_def l[4];
    arm(l);
    l[3] = rod(2, 0.3, 0.2, (mo_vec3){0, 0, -0.4});
    l[3].joint = MO_LINK_PRISMATIC;
    l[3].axis = (mo_vec3){0.3, 0, -1};
    l[3].armature = 0.2;
    mo_articulation_id id = make(w, l, 4, MO_INTEGRATOR_EULER);
    double q[4] = {0.5, -0.4, 0.8, 0.1}, M[16], e[4], ke, k1, k2, sym = 0, pol = 0, scale = 0;
    CHECK(mo_articulation_set_q(w, id, q, 4) == MO_OK);
    CHECK(mo_articulation_mass_matrix(w, id, M, 16) == MO_OK);
    for (int i = 0; i < 16; i++) scale = fmax(scale, fabs(M[i]));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            sym = fmax(sym, fabs(M[4 * i + j] - M[4 * j + i]));
            memset(e, 0, sizeof e);
            e[i] += 1;
            e[j] += 1;
            CHECK(mo_articulation_set_qdot(w, id, e, 4) == MO_OK);
            CHECK(mo_articulation_energy(w, id, &ke, NULL) == MO_OK);
            memset(e, 0, sizeof e);
            e[i] = 1;
            CHECK(mo_articulation_set_qdot(w, id, e, 4) == MO_OK);
            CHECK(mo_articulation_energy(w, id, &k1, NULL) == MO_OK);
            memset(e, 0, sizeof e);
            e[j] = 1;
            CHECK(mo_articulation_set_qdot(w, id, e, 4) == MO_OK);
            CHECK(mo_articulation_energy(w, id, &k2, NULL) == MO_OK);
            double mij = i == j ? 2.0 * k1 : ke - k1 - k2;
            pol = fmax(pol, fabs(mij - M[4 * i + j]));
        }
    /* the step: from rest without gravity, qdot+ = h M^-1 tau */
    double worst = 0.0;
    for (int j = 0; j < 4; j++) {
        double tau[4] = {0, 0, 0, 0}, v[4], z[4] = {0, 0, 0, 0};
        tau[j] = 1.0;
        CHECK(mo_articulation_set_q(w, id, q, 4) == MO_OK);
        CHECK(mo_articulation_set_qdot(w, id, z, 4) == MO_OK);
        CHECK(mo_articulation_set_torques(w, id, tau, 4) == MO_OK);
        step(w, 1);
        CHECK(mo_articulation_get_qdot(w, id, v, 4) == MO_OK);
        for (int r = 0; r < 4; r++) {
            double mv = 0;
            for (int k = 0; k < 4; k++) mv += M[4 * r + k] * v[k] / h;
            worst = fmax(worst, fabs(mv - tau[r]));
        }
    }
    printf("  mass: |M - M^T| %.1e, |M - polarised kinetic energy| %.1e, |M (step's qdot / h) - tau| %.1e (max |M| "
           "%.3f)\n", sym, pol, worst, scale);
    CHECK(sym == 0.0);
    CHECK(pol <= 1e-12 * scale);
    CHECK(worst <= 1e-10);
    /* positive definite: Cholesky pivots */
    double A[16];
    memcpy(A, M, sizeof A);
    bool spd = true;
    for (int k = 0; k < 4; k++) {
        for (int p = 0; p < k; p++) A[4 * k + k] -= A[4 * k + p] * A[4 * k + p];
        if (!(A[4 * k + k] > 0)) spd = false;
        A[4 * k + k] = sqrt(A[4 * k + k]);
        for (int i = k + 1; i < 4; i++) {
            for (int p = 0; p < k; p++) A[4 * i + k] -= A[4 * i + p] * A[4 * k + p];
            A[4 * i + k] /= A[4 * k + k];
        }
    }
    CHECK(spd);
    mo_world_destroy(w);
}

/* ---- jacobian: against central differences of the point's world position ---- */

static void qmul(double *r, const double *a, const double *b)
{
    double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(r, t, sizeof t);
}

static void point_at(mo_world *w, mo_articulation_id id, int link, const double *p, double *out)
{
    mo_vec3 x;
    mo_quat q;
    CHECK(mo_articulation_link_pose(w, id, link, &x, &q) == MO_OK);
    qrot(out, &q, p);
    out[0] += x.x;
    out[1] += x.y;
    out[2] += x.z;
}

static void group_jacobian(void)
{
    mo_world *w = world(1e-3, G);
    mo_link_def l[5];
    arm(l);
    l[3] = rod(2, 0.3, 0.2, (mo_vec3){0, 0, -0.4});
    l[3].joint = MO_LINK_PRISMATIC;
    l[3].axis = (mo_vec3){0.3, 0.2, -1};
    l[4] = rod(3, 0.3, 0.2, (mo_vec3){0.05, 0, -0.2});
    l[4].joint = MO_LINK_SPHERICAL;
    mo_articulation_id id = make(w, l, 5, MO_INTEGRATOR_MIDPOINT);
    double q[8] = {0.5, -0.4, 0.8, 0.1, 0.8, 0.2, -0.3, 0.4};
    CHECK(mo_articulation_set_q(w, id, q, 8) == MO_OK);
    CHECK(mo_articulation_get_q(w, id, q, 8) == MO_OK); /* the quaternion normalised */
    const double p[3] = {0.1, -0.05, 0.2}, eps = 1e-6;
    double jv[21], jw[21], worst = 0, wworst = 0;
    CHECK(mo_articulation_jacobian(w, id, 4, (mo_vec3){p[0], p[1], p[2]}, jv, jw, 21) == MO_OK);
    for (int k = 0; k < 7; k++) {
        double xp[3], xm[3], qq[8];
        for (int s = 0; s < 2; s++) {
            memcpy(qq, q, sizeof qq);
            double e = s ? -eps : eps;
            if (k < 4) qq[k] += e;
            else { /* spherical dof k - 4: q <- q exp(e axis / 2), the axis in the child's frame */
                double d[4] = {cos(e / 2), 0, 0, 0};
                d[1 + k - 4] = sin(e / 2);
                qmul(qq + 4, q + 4, d);
            }
            CHECK(mo_articulation_set_q(w, id, qq, 8) == MO_OK);
            point_at(w, id, 4, p, s ? xm : xp);
        }
        for (int r = 0; r < 3; r++) worst = fmax(worst, fabs((xp[r] - xm[r]) / (2 * eps) - jv[r * 7 + k]));
    }
    CHECK(mo_articulation_set_q(w, id, q, 8) == MO_OK);
    /* jw qdot = the link's angular velocity, jv qdot = the point's velocity (link_velocity + w x r) */
    double v[7] = {0.3, -0.7, 1.1, 0.2, -0.4, 0.9, 0.5};
    CHECK(mo_articulation_set_qdot(w, id, v, 7) == MO_OK);
    mo_vec3 om, vo;
    CHECK(mo_articulation_link_velocity(w, id, 4, &om, &vo) == MO_OK);
    for (int r = 0; r < 3; r++) {
        double s = 0;
        for (int k = 0; k < 7; k++) s += jw[r * 7 + k] * v[k];
        wworst = fmax(wworst, fabs(s - (&om.x)[r]));
    }
    printf("  jacobian: |jv - central differences| %.1e (eps 1e-6), |jw qdot - link angular velocity| %.1e\n", worst,
           wworst);
    CHECK(worst <= 1e-8);
    CHECK(wworst <= 1e-14);
    /* NULL outputs are allowed */
    CHECK(mo_articulation_jacobian(w, id, 4, (mo_vec3){0, 0, 0}, NULL, jw, 21) == MO_OK);
    mo_world_destroy(w);
}

/* ---- wrap: a revolute joint driven to 10 rad and back reads 10 and 0 ---- */
static void group_wrap(void)
{
    mo_world *w = world(1.0 / 120.0, G);
    mo_link_def l = rod(-1, 1.0, 1.0, (mo_vec3){0, 0, 0});
    l.name = "hinge";
    mo_articulation_id id = make(w, &l, 1, MO_INTEGRATOR_MIDPOINT);
    int link = -1;
    CHECK(mo_articulation_find_link(w, id, "hinge", &link) == MO_OK && link == 0);
    mo_joint_drive dr = mo_default_joint_drive();
    dr.stiffness = 1e7;
    dr.damping = 1e5;
    dr.target_position = 10.0;
    CHECK(mo_articulation_set_drive(w, id, link, &dr) == MO_OK);
    step(w, 600);
    double q = joint_q(w, id, 0);
    mo_quat o;
    CHECK(mo_articulation_link_pose(w, id, 0, NULL, &o) == MO_OK);
    printf("  wrap: driven to 10 rad: q = %.9f, orientation (%.6f, %.6f, %.6f, %.6f)\n", q, o.w, o.x, o.y, o.z);
    /* gravity's steady error: Kp (10 - q) = m g (L / 2) sin q, 2.7e-7 rad */
    CHECK_NEAR(q, 10.0 - 9.81 * 0.5 * sin(10.0) / 1e7, 1e-10);
    /* the pose is the rotation by 10 rad about y: (cos 5, 0, sin 5, 0) up to sign */
    double sg = o.w * cos(5.0) >= 0 ? 1.0 : -1.0;
    CHECK_NEAR(sg * o.w, cos(5.0), 1e-6);
    CHECK_NEAR(sg * o.y, sin(5.0), 1e-6);
    dr.target_position = 0.0;
    CHECK(mo_articulation_set_drive(w, id, link, &dr) == MO_OK);
    step(w, 600);
    CHECK_NEAR(joint_q(w, id, 0), 0.0, 1e-6);
    /* set and read back exactly; a free spin of 1 rad/s for 10 s reads 10 rad */
    double ten = 10.0, one = 1.0, z = 0.0;
    CHECK(mo_articulation_set_joint(w, id, 0, &ten, &z) == MO_OK);
    CHECK(joint_q(w, id, 0) == 10.0);
    CHECK(mo_world_set_gravity(w, NOG) == MO_OK);
    CHECK(mo_articulation_set_drive(w, id, 0, &(mo_joint_drive){0, 0, 0, 0, 0, INFINITY}) == MO_OK);
    CHECK(mo_articulation_set_joint(w, id, 0, &z, &one) == MO_OK);
    step(w, 1200);
    CHECK_NEAR(joint_q(w, id, 0), 10.0, 1e-9);
    mo_world_destroy(w);
}

/* ---- state: save/restore replays bit for bit; the hash sees the articulation; the step's rollback ---- */
static void group_state(void)
{
    mo_world *w = world(1.0 / 120.0, G);
    mo_link_def l[3];
    mo_articulation_id id = make(w, l, arm(l), MO_INTEGRATOR_MIDPOINT);
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.1;
    bd.position = (mo_vec3){3, 0, 1};
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    mo_joint_drive dr = mo_default_joint_drive();
    dr.stiffness = 50;
    dr.damping = 2;
    dr.target_position = 0.5;
    dr.max_effort = 5;
    CHECK(mo_articulation_set_drive(w, id, 1, &dr) == MO_OK);
    double tau[3] = {0.3, 0, -0.1};
    CHECK(mo_articulation_set_torques(w, id, tau, 3) == MO_OK);
    step(w, 30);
    size_t n = mo_world_state_size(w);
    void *buf = malloc(n);
    CHECK(mo_world_save_state(w, buf, n) == MO_OK);
    step(w, 100);
    uint64_t h1 = mo_world_state_hash(w);
    double q1[3];
    CHECK(mo_articulation_get_q(w, id, q1, 3) == MO_OK);
    /* change inputs after the save: the restore brings the saved ones back */
    dr.target_position = -1.0;
    CHECK(mo_articulation_set_drive(w, id, 1, &dr) == MO_OK);
    CHECK(mo_articulation_clear_torques(w, id) == MO_OK);
    CHECK(mo_world_restore_state(w, buf, n) == MO_OK);
    int it = -1;
    CHECK(mo_articulation_iterations(w, id, &it) == MO_OK && it == 0);
    mo_joint_drive back;
    CHECK(mo_articulation_drive(w, id, 1, &back) == MO_OK);
    CHECK(back.target_position == 0.5);
    step(w, 100);
    uint64_t h2 = mo_world_state_hash(w);
    double q2[3];
    CHECK(mo_articulation_get_q(w, id, q2, 3) == MO_OK);
    printf("  state: replay hash %016llx vs %016llx\n", (unsigned long long)h1, (unsigned long long)h2);
    CHECK(h1 == h2);
    CHECK(memcmp(q1, q2, sizeof q1) == 0);
    /* the hash sees q */
    double dq = q2[0] + 1e-12;
    CHECK(mo_articulation_set_joint(w, id, 0, &dq, NULL) == MO_OK);
    CHECK(mo_world_state_hash(w) != h2);
    /* another structure is refused with a sentence */
    mo_world *w2 = world(1.0 / 120.0, G);
    CHECK(mo_body_create(w2, &bd, &b) == MO_OK);
    CHECK(mo_world_restore_state(w2, buf, n) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w2), "mo_world_restore_state: the state is from a world of another structure: 1 "
                                       "articulation slots in the state, 0 in this world");
    /* substeps: 2 substeps of h = 1/60 are the steps of h = 1/120, bit for bit */
    {
        mo_world *wa = world(1.0 / 60.0, G), *wb = world(1.0 / 120.0, G);
        CHECK(mo_world_set_substeps(wa, 2) == MO_OK);
        mo_link_def la[3], lb[3];
        mo_articulation_id ia = make(wa, la, arm(la), MO_INTEGRATOR_MIDPOINT), ib = make(wb, lb, arm(lb),
                                                                                        MO_INTEGRATOR_MIDPOINT);
        double q0[3] = {0.4, 0.9, -0.7};
        CHECK(mo_articulation_set_q(wa, ia, q0, 3) == MO_OK && mo_articulation_set_q(wb, ib, q0, 3) == MO_OK);
        CHECK(mo_articulation_set_drive(wa, ia, 2, &dr) == MO_OK && mo_articulation_set_drive(wb, ib, 2, &dr) == MO_OK);
        step(wa, 20);
        step(wb, 40);
        CHECK(mo_world_state_hash(wa) == mo_world_state_hash(wb));
        mo_world_destroy(wa);
        mo_world_destroy(wb);
    }
    /* destroy: the id goes stale, the world steps on */
    CHECK(mo_articulation_destroy(w, id) == MO_OK);
    CHECK(!mo_articulation_is_valid(w, id));
    step(w, 2);
    free(buf);
    mo_world_destroy(w);
    mo_world_destroy(w2);
}

/* ---- guard: a step that makes a non-finite articulation state is rolled back ---- */
static void group_guard(void)
{
    /* the lightest links the limits allow under the largest torques, at h = 1 s: the velocities overflow */
    mo_world *w = world(1.0, NOG);
    mo_link_def l[2] = {rod(-1, MO_MASS_MIN, 1.0, (mo_vec3){0, 0, 0}), rod(0, MO_MASS_MIN, 1.0, (mo_vec3){0, 0, -1})};
    l[0].inertia = l[1].inertia = (mo_mat3){{{1e-30, 0, 0}, {0, 1e-30, 0}, {0, 0, 1e-30}}};
    mo_articulation_id id = make(w, l, 2, MO_INTEGRATOR_EULER);
    double tau[2] = {MO_FORCE_MAX, -MO_FORCE_MAX};
    CHECK(mo_articulation_set_torques(w, id, tau, 2) == MO_OK);
    mo_status st = MO_OK;
    int i;
    double q[2], v[2];
    uint64_t h = 0;
    for (i = 0; i < 20 && st == MO_OK; i++) {
        h = mo_world_state_hash(w);
        CHECK(mo_articulation_get_q(w, id, q, 2) == MO_OK);
        CHECK(mo_articulation_get_qdot(w, id, v, 2) == MO_OK);
        st = mo_world_step(w);
    }
    printf("  guard: step %d returned %s: %s\n", i, mo_status_name(st), mo_world_last_error(w));
    CHECK(st == MO_ERR_NOT_FINITE);
    CHECK(strstr(mo_world_last_error(w), "articulation 1") != NULL);
    CHECK(strstr(mo_world_last_error(w), "the world is as before the step") != NULL);
    CHECK(mo_world_state_hash(w) == h);
    double q2[2], v2[2];
    CHECK(mo_articulation_get_q(w, id, q2, 2) == MO_OK);
    CHECK(mo_articulation_get_qdot(w, id, v2, 2) == MO_OK);
    CHECK(memcmp(q, q2, sizeof q) == 0 && memcmp(v, v2, sizeof v) == 0);
    mo_world_destroy(w);
}

int main(void)
{
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"pendulum", group_pendulum}, {"energy", group_energy}, {"momentum", group_momentum},
        {"drive", group_drive},       {"effort", group_effort}, {"hold", group_hold},
        {"rnea", group_rnea},         {"mass", group_mass},     {"jacobian", group_jacobian},
        {"wrap", group_wrap},         {"state", group_state},   {"guard", group_guard},
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        check_group_begin();
        groups[g].fn();
        check_group_end(groups[g].name, 9, 5);
    }
    return check_groups_result();
}
