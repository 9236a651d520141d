/* test_artic_contact.c: articulation link bodies (mo_articulation_link_body;
 * issue 19): shapes on links, their contacts solved as rows on the joint-space
 * dofs, forces applied to links, and the calls a link body refuses. Every group
 * checks physics or exact behaviour:
 *  1. a box on a free root falls onto the ground exactly as the same box as a
 *     free rigid body does (same rows, same solver: the trajectories agree) and
 *     rests with its weight on the ground;
 *  2. a horizontal rod on a hinge, its frictionless tip resting on a post: the
 *     post carries m g / 2 (the moment balance about the hinge) and the rod stays level, with
 *     every velocity-level contact solver (PGS, Jacobi, APGD, P-SPG-FB);
 *  3. forces and torques applied to a link body act on the articulation (J^T f):
 *     the rod held level by the torque or the force that balances gravity;
 *  4. a two-link free-floating chain dropped on the ground comes to rest on it
 *     (parent and child boxes overlap at the joint and must not collide);
 *  6. joint limits and dry friction as rows: a rod held level by its limit (the
 *     limit's torque = gravity's moment) and swung into limits, with every contact
 *     solver; a limit at 10 rad (beyond pi); friction that holds and that slides;
 *  7. a mimic row: the follower tracks multiplier q_leader + offset, its torque
 *     balances gravity at rest and the leader feels -multiplier times it;
 *  8. Newton with an FEM mesh: the rod's tip ball on a stiff tetrahedron's apex node
 *     carries m g / 2 (articulation rows and FEM rows in one Newton step);
 *  9. joint reactions (mo_articulation_joint_wrench): the rod's hinge carries m g / 2
 *     and no moment with its tip on a post, m g and no moment held by a torque on its
 *     link, m g and gravity's moment on a limit (the moment's axis part equals the
 *     limit's torque); a three-link chain held by gravity compensation: each joint
 *     carries the weight of the links below it and its axis torque is the
 *     compensation torque; a free root resting on the ground transmits nothing; zero
 *     before a step and after a restore;
 * 10. collision groups (mo_articulation_set_collision_group): two links that are not parent and
 *     child, overlapping, touch without a group and not with one, while a free ball touches both;
 *     no pair is excluded; a link body made later and mo_body_collision_group read the group; a
 *     body of the same group touches no link; group 0 again lets the links touch;
 * 11. a cone limit on a spherical joint (mo_articulation_set_cone_limit): an inverted ball pendulum
 *     released 45 degrees out rests on its 30 degree cone's edge (1e-3 rad) with the limit's torque
 *     -m g sin 30 about the tilt axis (1 %), with every contact solver (Newton on the opposite edge:
 *     its one-step position correction carries it over); removed, it falls past;
 *  5. link bodies follow mo_articulation_set_q; the calls that would move them
 *     apart from their link refuse with the exact sentence, and they go with their
 *     articulation.
 * Groups 2 and 6 run every contact solver: PGS, Jacobi, APGD, P-SPG-FB and Newton. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/articulation.h"
#include "moreau/fclib.h"
#include "check.h"

static const double G = 9.81;

static mo_world *world(double h)
{
    mo_world_def wd = mo_default_world_def();
    wd.time_step = h;
    wd.gravity = (mo_vec3){0, 0, -G};
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static void ground(mo_world *w)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id id;
    CHECK(mo_body_create(w, &g, &id) == MO_OK);
}

static void solver(mo_world *w, mo_solver_kind k, int iters)
{
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = k;
    s.max_iterations = iters;
    s.tolerance = 1e-12;
    if (mo_world_set_solver(w, &s) != MO_OK) fprintf(stderr, "solver: %s\n", mo_world_last_error(w));
}

static mo_articulation_id make_in(mo_world *w, const mo_link_def *links, int n, mo_vec3 base,
                                  mo_articulation_integrator in)
{
    mo_articulation_def d = mo_default_articulation_def();
    d.integrator = in;
    d.links = links;
    d.link_count = n;
    d.base_position = base;
    mo_articulation_id id = {0, 0};
    if (mo_articulation_create(w, &d, &id) != MO_OK) {
        fprintf(stderr, "articulation: %s\n", mo_world_last_error(w));
        exit(1);
    }
    return id;
}

static mo_articulation_id make(mo_world *w, const mo_link_def *links, int n, mo_vec3 base)
{
    return make_in(w, links, n, base, MO_INTEGRATOR_MIDPOINT);
}

static mo_body_id link_shape(mo_world *w, mo_articulation_id a, int link, mo_shape_def sd)
{
    mo_body_id b = {0, 0};
    CHECK(mo_articulation_link_body(w, a, link, &b) == MO_OK);
    mo_shape_id s;
    if (mo_shape_create(w, b, &sd, &s) != MO_OK) {
        fprintf(stderr, "shape: %s\n", mo_world_last_error(w));
        ++check_failures;
    }
    return b;
}

static mo_mat3 box_inertia(double m, mo_vec3 he)
{
    double x = 4 * he.x * he.x, y = 4 * he.y * he.y, z = 4 * he.z * he.z;
    return (mo_mat3){{{m * (y + z) / 12, 0, 0}, {0, m * (x + z) / 12, 0}, {0, 0, m * (x + y) / 12}}};
}

static void step(mo_world *w, int n)
{
    for (int i = 0; i < n; i++)
        if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "step: %s\n", mo_world_last_error(w));
            ++check_failures;
            return;
        }
}

/* 1. a box on a free root against the same box as a rigid body */
static void free_box(void)
{
    const mo_vec3 he = {0.2, 0.15, 0.1};
    const double m = 2.0, z0 = 0.5;
    mo_world *wa = world(1.0 / 120), *wb = world(1.0 / 120);
    ground(wa);
    ground(wb);
    mo_link_def l = mo_default_link_def();
    l.joint = MO_LINK_FREE;
    l.mass = m;
    l.inertia = box_inertia(m, he);
    /* semi-implicit Euler, the rigid bodies' integrator (the midpoint rule would move the box by h (v + v+) / 2) */
    mo_articulation_id a = make_in(wa, &l, 1, (mo_vec3){0, 0, z0}, MO_INTEGRATOR_EULER);
    mo_shape_def sd = mo_default_shape_def();
    sd.type = MO_SHAPE_BOX;
    sd.half_extents = he;
    mo_body_id lb = link_shape(wa, a, 0, sd);
    mo_body_def bd = mo_default_body_def();
    bd.shape = sd;
    bd.mass = m;
    bd.inertia = box_inertia(m, he);
    bd.position = (mo_vec3){0, 0, z0};
    mo_body_id rb;
    CHECK(mo_body_create(wb, &bd, &rb) == MO_OK);
    double worst = 0.0;
    for (int i = 0; i < 240; i++) {
        step(wa, 1);
        step(wb, 1);
        mo_vec3 pa, pb;
        CHECK(mo_body_position(wa, lb, &pa) == MO_OK);
        CHECK(mo_body_position(wb, rb, &pb) == MO_OK);
        double d = fabs(pa.x - pb.x) + fabs(pa.y - pb.y) + fabs(pa.z - pb.z);
        if (d > worst) worst = d;
    }
    mo_vec3 p, f, t;
    CHECK(mo_body_position(wa, lb, &p) == MO_OK);
    CHECK(mo_body_contact_force(wa, lb, &f, &t) == MO_OK);
    printf("free box: link body vs rigid body, largest position difference over 2 s %.3g m; rest z %.6f m "
           "(half height %.3f); ground force (%.4g, %.4g, %.4g) N, m g = %.4g N\n",
           worst, p.z, he.z, f.x, f.y, f.z, m * G);
    CHECK(worst < 1e-9);
    CHECK_NEAR(p.z, he.z, 2e-3); /* rests on the ground within the contact margin's reach */
    CHECK_NEAR(f.z, m * G, 1e-3 * m * G);
    CHECK(fabs(f.x) < 1e-6 && fabs(f.y) < 1e-6);
    mo_world_destroy(wa);
    mo_world_destroy(wb);
}

/* a rod of mass m, length L on a hinge at (0, 0, z) about y, lying along +x, with a ball of radius r at its tip */
static mo_articulation_id rod(mo_world *w, double m, double L, double z, double r, mo_body_id *lb)
{
    mo_link_def l = mo_default_link_def();
    l.name = "rod";
    l.joint = MO_LINK_REVOLUTE;
    l.axis = (mo_vec3){0, 1, 0};
    l.mass = m;
    l.com = (mo_vec3){L / 2, 0, 0};
    l.inertia = (mo_mat3){{{1e-4, 0, 0}, {0, m * L * L / 12, 0}, {0, 0, m * L * L / 12}}};
    mo_articulation_id a = make(w, &l, 1, (mo_vec3){0, 0, z});
    if (r > 0) {
        mo_shape_def sd = mo_default_shape_def();
        sd.type = MO_SHAPE_SPHERE;
        sd.radius = r;
        sd.friction = 0.0; /* frictionless: the post's force is normal, m g / 2 by the moment balance */
        sd.position = (mo_vec3){L, 0, 0};
        *lb = link_shape(w, a, 0, sd);
    } else {
        CHECK(mo_articulation_link_body(w, a, 0, lb) == MO_OK);
    }
    return a;
}

static void post(mo_world *w, mo_vec3 top, double half)
{
    mo_body_def b = mo_default_body_def();
    b.type = MO_BODY_STATIC;
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){half, half, half};
    b.position = (mo_vec3){top.x, top.y, top.z - half};
    mo_body_id id;
    CHECK(mo_body_create(w, &b, &id) == MO_OK);
}

/* 2. the rod's tip on a post, every contact solver */
static void rod_on_post(void)
{
    const double m = 1.5, L = 0.8, z = 1.0, r = 0.05;
    const mo_solver_kind kinds[] = {MO_SOLVER_PGS, MO_SOLVER_JACOBI, MO_SOLVER_APGD, MO_SOLVER_SPG, MO_SOLVER_NEWTON};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        mo_world *w = world(1.0 / 120);
        solver(w, kinds[k], 300);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, r, &lb);
        post(w, (mo_vec3){L, 0, z - r}, 0.1);
        step(w, 120);
        double q, qd;
        CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
        mo_vec3 f, t;
        CHECK(mo_body_contact_force(w, lb, &f, &t) == MO_OK);
        printf("rod on a post, %-6s: angle %.3g rad, rate %.3g rad/s, post force z %.6g N (m g / 2 = %.6g N)\n",
               mo_solver_name(kinds[k]), q, qd, f.z, m * G / 2);
        CHECK(fabs(q) < 2e-3);   /* level: the tip sinks at most the contact's compliance and margin */
        CHECK(fabs(qd) < 1e-3);
        CHECK_NEAR(f.z, m * G / 2, 5e-3 * m * G / 2);
        CHECK(fabs(f.x) < 1e-3 && fabs(f.y) < 1e-3);
        if (k == 0) { /* the step's contact problem: the local form only; W_nn = L^2 / I_hinge = 3 / m exactly */
            mo_fc_problem fp;
            CHECK(mo_world_contact_problem(w, &fp) == MO_OK);
            CHECK(fp.nc == 1 && fp.ndof == 0);
            double wnn = fp.nc == 1 && fp.W.ptr[1] > 0 && fp.W.col[0] == 0 ? fp.W.val[0] : NAN;
            printf("rod on a post: the exported W_nn %.15g (3 / m = %.15g)\n", wnn, 3.0 / m);
            CHECK_NEAR(wnn, 3.0 / m, 1e-12);
            mo_fc_free(&fp);
        }
        mo_world_destroy(w);
    }
}

/* 3. forces on a link body: the rod held level by a torque, then by a force at its tip */
static void link_forces(void)
{
    const double m = 1.5, L = 0.8, z = 1.0;
    for (int form = 0; form < 2; form++) {
        mo_world *w = world(1.0 / 240);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.0, &lb);
        for (int i = 0; i < 240; i++) {
            if (form == 0) /* gravity's moment about the hinge is (0, m g L / 2, 0) */
                CHECK(mo_body_apply_force(w, lb, (mo_vec3){0, 0, 0}, (mo_vec3){0, -m * G * L / 2, 0}) == MO_OK);
            else
                CHECK(mo_body_apply_force_at(w, lb, (mo_vec3){0, 0, m * G / 2}, (mo_vec3){L, 0, z}) == MO_OK);
            step(w, 1);
        }
        double q, qd;
        CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
        printf("rod held by a %s on its link body: angle after 1 s %.3g rad\n", form ? "force at the tip" : "torque",
               q);
        CHECK(fabs(q) < 1e-9 && fabs(qd) < 1e-9);
        /* without it the rod falls: the force was consumed by each step */
        step(w, 24);
        CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
        CHECK(q > 0.05); /* rotating about +y takes +x towards -z */
        mo_world_destroy(w);
    }
}

/* 4. a free two-link chain dropped on the ground */
static void chain_drop(void)
{
    mo_world *w = world(1.0 / 120);
    ground(w);
    const mo_vec3 he = {0.15, 0.05, 0.05};
    mo_link_def l[2] = {mo_default_link_def(), mo_default_link_def()};
    l[0].joint = MO_LINK_FREE;
    l[0].mass = 1.0;
    l[0].inertia = box_inertia(1.0, he);
    l[1].parent = 0;
    l[1].joint = MO_LINK_REVOLUTE;
    l[1].axis = (mo_vec3){0, 1, 0};
    l[1].joint_position = (mo_vec3){0.15, 0, 0}; /* the hinge at the first box's end */
    l[1].com = (mo_vec3){0.15, 0, 0};
    l[1].mass = 1.0;
    l[1].inertia = box_inertia(1.0, he);
    l[1].damping = 0.05;
    mo_articulation_id a = make(w, l, 2, (mo_vec3){0, 0, 0.2});
    mo_shape_def sd = mo_default_shape_def();
    sd.type = MO_SHAPE_BOX;
    sd.half_extents = (mo_vec3){0.16, 0.05, 0.05}; /* overlapping the child's box at the hinge */
    mo_body_id b0 = link_shape(w, a, 0, sd);
    sd.position = (mo_vec3){0.15, 0, 0};
    mo_body_id b1 = link_shape(w, a, 1, sd);
    double lowest = 1.0;
    for (int i = 0; i < 360; i++) {
        step(w, 1);
        mo_vec3 p0, p1;
        CHECK(mo_body_position(w, b0, &p0) == MO_OK);
        CHECK(mo_body_position(w, b1, &p1) == MO_OK);
        if (p0.z < lowest) lowest = p0.z;
    }
    double ke, pe;
    CHECK(mo_articulation_energy(w, a, &ke, &pe) == MO_OK);
    mo_vec3 p0;
    CHECK(mo_body_position(w, b0, &p0) == MO_OK);
    /* the impact's transient dip, against one rigid box of the chain's size dropped from the same height */
    mo_world *wr = world(1.0 / 120);
    ground(wr);
    mo_body_def bd = mo_default_body_def();
    bd.shape = sd;
    bd.shape.half_extents = (mo_vec3){0.31, 0.05, 0.05};
    bd.shape.position = (mo_vec3){0, 0, 0};
    bd.mass = 2.0;
    bd.position = (mo_vec3){0.15, 0, 0.2};
    mo_body_id rb;
    CHECK(mo_body_create(wr, &bd, &rb) == MO_OK);
    double rigid = 1.0;
    for (int i = 0; i < 360; i++) {
        step(wr, 1);
        mo_vec3 p;
        CHECK(mo_body_position(wr, rb, &p) == MO_OK);
        if (p.z < rigid) rigid = p.z;
    }
    mo_world_destroy(wr);
    printf("two-link chain on the ground after 3 s: root z %.5f m (half height 0.05), lowest %.5f m (a rigid box of "
           "its size: %.5f m), kinetic energy %.3g J\n", p0.z, lowest, rigid, ke);
    CHECK_NEAR(p0.z, 0.05, 3e-3);
    CHECK(lowest > rigid - 1e-3);
    CHECK(ke < 1e-6);
    mo_world_destroy(w);
}

/* 5. link bodies follow q; refusals; Newton; destruction */
static void refusals(void)
{
    mo_world *w = world(1.0 / 120);
    ground(w);
    mo_body_id lb;
    mo_articulation_id a = rod(w, 1.0, 0.8, 0.04, 0.05, &lb); /* the tip ball touches the ground */
    double q = 0.3;
    CHECK(mo_articulation_set_joint(w, a, 0, &q, NULL) == MO_OK);
    mo_vec3 pl, pb;
    mo_quat ql, qb;
    CHECK(mo_articulation_link_pose(w, a, 0, &pl, &ql) == MO_OK);
    CHECK(mo_body_position(w, lb, &pb) == MO_OK);
    CHECK(mo_body_orientation(w, lb, &qb) == MO_OK);
    CHECK(fabs(pl.x - pb.x) + fabs(pl.y - pb.y) + fabs(pl.z - pb.z) == 0.0);
    CHECK(fabs(ql.w * qb.w + ql.x * qb.x + ql.y * qb.y + ql.z * qb.z) > 1.0 - 1e-15);
    q = 0.0;
    CHECK(mo_articulation_set_joint(w, a, 0, &q, NULL) == MO_OK);
    mo_body_id again;
    CHECK(mo_articulation_link_body(w, a, 0, &again) == MO_OK);
    CHECK(again.index == lb.index && again.generation == lb.generation);
    CHECK(mo_articulation_link_body(w, a, 1, &again) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(mo_world_last_error(w), "mo_articulation_link_body: articulation 1 has no link 1 (links 0 to 0)") == 0);

    char want[256];
    CHECK(mo_body_set_pose(w, lb, (mo_vec3){0, 0, 1}, (mo_quat){1, 0, 0, 0}) == MO_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "mo_body_set_pose: body %u is link 0 (\"rod\") of articulation 1: it moves with its "
             "link (mo_articulation_set_q)", lb.index);
    CHECK(strcmp(mo_world_last_error(w), want) == 0);
    CHECK(mo_body_set_velocity(w, lb, (mo_vec3){0, 0, 1}, (mo_vec3){0, 0, 0}) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_body_destroy(w, lb) == MO_ERR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "mo_body_destroy: body %u is link 0 (\"rod\") of articulation 1: it goes with its "
             "articulation (mo_articulation_destroy)", lb.index);
    CHECK(strcmp(mo_world_last_error(w), want) == 0);
    CHECK(mo_body_set_mass_from_shapes(w, lb) == MO_ERR_INVALID_ARGUMENT);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_SPHERICAL;
    jd.body_b = lb;
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strstr(mo_world_last_error(w), "joints on link bodies are not supported") != NULL);

    /* the tip's contact, stepped by PGS and then by Newton */
    step(w, 2);
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_NEWTON;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    step(w, 2);

    /* the link body goes with its articulation */
    CHECK(mo_articulation_destroy(w, a) == MO_OK);
    CHECK(!mo_body_is_valid(w, lb));
    CHECK(mo_world_step(w) == MO_OK); /* nothing left to refuse */
    mo_world_destroy(w);
}

/* 6. joint limits and dry friction as rows */
static void limits(void)
{
    const double m = 1.5, L = 0.8, z = 1.0, tq = m * G * L / 2, Ih = m * L * L / 3;
    const mo_solver_kind kinds[] = {MO_SOLVER_PGS, MO_SOLVER_JACOBI, MO_SOLVER_APGD, MO_SOLVER_SPG, MO_SOLVER_NEWTON};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        /* a level rod on its upper limit at q = 0: the limit carries gravity's moment */
        mo_world *w = world(1.0 / 120);
        solver(w, kinds[k], 300);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.0, &lb);
        CHECK(mo_articulation_set_limits(w, a, 0, -INFINITY, 0.0) == MO_OK);
        step(w, 120);
        double q, qd, tau;
        CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
        CHECK(mo_articulation_constraint_forces(w, a, &tau, 1) == MO_OK);
        /* a swing from the bottom at 4 rad/s into limits at +-0.5 rad */
        double q0 = 1.5707963267948966, v0 = 4.0, qmax = 0.0, qmin = 0.0; /* hanging straight down is q = pi / 2 */
        CHECK(mo_articulation_set_limits(w, a, 0, q0 - 0.5, q0 + 0.5) == MO_OK);
        CHECK(mo_articulation_set_joint(w, a, 0, &q0, &v0) == MO_OK);
        for (int i = 0; i < 240; i++) {
            step(w, 1);
            double qi;
            CHECK(mo_articulation_get_joint(w, a, 0, &qi, NULL) == MO_OK);
            if (qi - q0 > qmax) qmax = qi - q0;
            if (qi - q0 < qmin) qmin = qi - q0;
        }
        printf("limits, %-6s: level rod on its upper limit: q %.3g rad, limit torque %.6g N m (-m g L / 2 = %.6g); "
               "swing at 4 rad/s into +-0.5 rad: range [%.6f, %.6f] rad\n", mo_solver_name(kinds[k]), q, tau, -tq,
               qmin, qmax);
        CHECK(fabs(q) < 1e-6);
        CHECK_NEAR(tau, -tq, 1e-6 * tq);
        CHECK(qmax < 0.5 + 1e-6 && qmin > -0.5 - 1e-6);
        CHECK(qmax > 0.5 - 1e-3); /* it did reach the limit */
        mo_world_destroy(w);
    }
    /* a limit beyond pi: a velocity drive spins the joint into its upper limit at 10 rad */
    {
        mo_world *w = world(1.0 / 240);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.0, &lb);
        CHECK(mo_articulation_set_limits(w, a, 0, -INFINITY, 10.0) == MO_OK);
        mo_joint_drive d = mo_default_joint_drive();
        d.damping = 1e4;
        d.target_velocity = 6.0;
        CHECK(mo_articulation_set_drive(w, a, 0, &d) == MO_OK);
        step(w, 960); /* 4 s at 6 rad/s would reach 24 rad */
        double q, tau;
        CHECK(mo_articulation_get_joint(w, a, 0, &q, NULL) == MO_OK);
        CHECK(mo_articulation_constraint_forces(w, a, &tau, 1) == MO_OK);
        printf("limit beyond pi: spun by a velocity drive into an upper limit at 10 rad: q %.9f rad, limit torque "
               "%.4g N m\n", q, tau);
        CHECK(q <= 10.0 + 1e-9 && q > 10.0 - 1e-3);
        CHECK(tau < -1e3); /* it holds the drive back (the drive pushes with damping x 6 rad/s minus gravity's part) */
        mo_world_destroy(w);
    }
    /* dry friction: holds the level rod when above gravity's moment; below, the rod accelerates by the difference */
    for (int below = 0; below < 2; below++) {
        mo_world *w = world(1.0 / 1000);
        solver(w, MO_SOLVER_PGS, 100);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.0, &lb);
        const double F = below ? 0.5 * tq : 1.2 * tq;
        CHECK(mo_articulation_set_joint_friction(w, a, 0, F) == MO_OK);
        step(w, 100);
        double q, qd, tau;
        CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
        CHECK(mo_articulation_constraint_forces(w, a, &tau, 1) == MO_OK);
        const double t = 0.1, want = below ? 0.5 * (tq - F) / Ih * t * t : 0.0;
        printf("dry friction %.2f x gravity's moment: q after 0.1 s %.6g rad (expected %.6g), friction torque %.5g N m\n",
               F / tq, q, want, tau);
        if (below) {
            CHECK_NEAR(q, want, 0.02 * want); /* semi-implicit steps of 1 ms and cos q ~ 1 */
            CHECK_NEAR(tau, -F, 1e-9 * F);    /* sliding: the friction at its bound, against the motion */
        } else {
            CHECK(fabs(q) < 1e-9);
            CHECK_NEAR(tau, -tq, 1e-6 * tq);
        }
        mo_world_destroy(w);
    }
}

/* 7. a mimic: two rods on separate hinges of one base, the second following the first as -0.5 q + 0.1 */
static void mimic(void)
{
    mo_world *w = world(1.0 / 240);
    mo_link_def l[3] = {mo_default_link_def(), mo_default_link_def(), mo_default_link_def()};
    l[0].joint = MO_LINK_FIXED;
    for (int i = 1; i < 3; i++) {
        l[i].parent = 0;
        l[i].axis = (mo_vec3){0, 1, 0};
        l[i].joint_position = (mo_vec3){0, i == 1 ? -0.3 : 0.3, 0};
        l[i].mass = 1.0;
        l[i].com = (mo_vec3){0.3, 0, 0};
        l[i].inertia = (mo_mat3){{{1e-3, 0, 0}, {0, 0.03, 0}, {0, 0, 0.03}}};
    }
    mo_articulation_id a = make(w, l, 3, (mo_vec3){0, 0, 1});
    CHECK(mo_articulation_set_mimic(w, a, 2, 1, -0.5, 0.1) == MO_OK);
    const double q20 = 0.1; /* start on the mimic (a violated start is closed by the row's SPOOK stabilisation) */
    CHECK(mo_articulation_set_joint(w, a, 2, &q20, NULL) == MO_OK);
    mo_joint_drive d = mo_default_joint_drive();
    d.stiffness = 2000;
    d.damping = 100;
    d.target_position = 0.8;
    CHECK(mo_articulation_set_drive(w, a, 1, &d) == MO_OK);
    double worst = 0.0;
    for (int i = 0; i < 480; i++) {
        step(w, 1);
        double q[2];
        CHECK(mo_articulation_get_q(w, a, q, 2) == MO_OK);
        double e = fabs(q[1] - (-0.5 * q[0] + 0.1));
        if (e > worst) worst = e;
    }
    double q[2], tau[2], g[2];
    CHECK(mo_articulation_get_q(w, a, q, 2) == MO_OK);
    CHECK(mo_articulation_constraint_forces(w, a, tau, 2) == MO_OK);
    CHECK(mo_articulation_gravity_compensation(w, a, g, 2) == MO_OK);
    printf("mimic q2 = -0.5 q1 + 0.1 under a drive of q1 to 0.8 rad, 2 s: q = (%.6f, %.6f), largest error %.3g rad;"
           " mimic torques (%.5g, %.5g) N m, the follower's gravity torque %.5g N m\n", q[0], q[1],
           worst, tau[0], tau[1], g[1]);
    CHECK(worst < 1e-6);
    CHECK_NEAR(q[1], -0.5 * q[0] + 0.1, 1e-9);
    /* at rest the row holds the follower against gravity: its torque is the follower's gravity torque, and the
       leader feels -multiplier times it */
    CHECK_NEAR(tau[1], g[1], 1e-4 * fabs(g[1])); /* measured 3e-5: the last step's row at its start */
    CHECK_NEAR(tau[0], 0.5 * tau[1], 1e-9 * fabs(tau[1]));
    CHECK(mo_articulation_set_mimic(w, a, 2, 2, 1.0, 0.0) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(mo_world_last_error(w), "mo_articulation_set_mimic: articulation 1 link 2 cannot mimic itself") == 0);
    CHECK(mo_articulation_set_mimic(w, a, 2, -1, 0.0, 0.0) == MO_OK); /* removed: the follower falls */
    step(w, 24);
    CHECK(mo_articulation_get_q(w, a, q, 2) == MO_OK);
    CHECK(fabs(q[1] - (-0.5 * q[0] + 0.1)) > 0.01);
    mo_world_destroy(w);
}

/* 8. Newton with an FEM mesh: the rod's tip ball rests on the apex node of a stiff tetrahedron standing on the
   ground (an articulation, an FEM mesh and their node contact in one Newton step) */
static void newton_fem(void)
{
    const double m = 1.5, L = 0.8, z = 1.0, r = 0.05, nr = 0.02;
    mo_world *w = world(1.0 / 120);
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_NEWTON;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    ground(w);
    mo_body_id lb;
    mo_articulation_id a = rod(w, m, L, z, r, &lb);
    const double top = z - r - nr; /* the apex node's centre under the tip ball */
    const mo_vec3 nodes[4] = {{L - 0.15, -0.15, nr}, {L + 0.15, -0.15, nr}, {L, 0.15, nr}, {L, 0, top}};
    const int tets[4] = {0, 1, 2, 3};
    mo_fem_material_def mat = {1e8, 0.3, 1000.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def fd = mo_default_fem_mesh_def();
    fd.nodes = nodes;
    fd.node_count = 4;
    fd.tets = tets;
    fd.tet_count = 1;
    fd.materials = &mat;
    fd.material_count = 1;
    fd.radius = nr;
    fd.friction = 0.0;
    mo_fem_mesh_id fm;
    if (mo_fem_mesh_create(w, &fd, &fm) != MO_OK) {
        fprintf(stderr, "fem: %s\n", mo_world_last_error(w));
        ++check_failures;
        mo_world_destroy(w);
        return;
    }
    step(w, 120);
    double q, qd;
    mo_vec3 f, t, apex;
    CHECK(mo_articulation_get_joint(w, a, 0, &q, &qd) == MO_OK);
    CHECK(mo_body_contact_force(w, lb, &f, &t) == MO_OK);
    CHECK(mo_fem_mesh_node_position(w, fm, 3, &apex) == MO_OK);
    printf("Newton, rod tip on an FEM tetrahedron's apex, 1 s: angle %.3g rad, rate %.3g rad/s, force on the tip "
           "%.5g N (m g / 2 = %.5g N), apex z %.6f m (rest %.6f)\n", q, qd, f.z, m * G / 2, apex.z, top);
    CHECK(fabs(q) < 5e-3 && fabs(qd) < 1e-3);
    CHECK_NEAR(f.z, m * G / 2, 0.01 * m * G / 2);
    CHECK(fabs(apex.z - top) < 5e-3);
    mo_world_destroy(w);
}

/* 9. joint reactions */
static void joint_wrench(void)
{
    const double m = 1.5, L = 0.8, z = 1.0, mg = m * G;
    mo_vec3 f, t;
    /* the rod's tip on a frictionless post: the hinge carries half the weight, no moment */
    {
        mo_world *w = world(1.0 / 120);
        solver(w, MO_SOLVER_PGS, 300);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.05, &lb);
        post(w, (mo_vec3){L, 0, z - 0.05}, 0.1);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, &t) == MO_OK);
        CHECK(f.x == 0 && f.y == 0 && f.z == 0 && t.x == 0 && t.y == 0 && t.z == 0); /* before any step */
        step(w, 120);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, &t) == MO_OK);
        printf("joint wrench, rod on a post: force (%.3g, %.3g, %.6g) N (m g / 2 = %.6g), torque (%.3g, %.3g, %.3g) "
               "N m\n", f.x, f.y, f.z, mg / 2, t.x, t.y, t.z);
        CHECK_NEAR(f.z, mg / 2, 5e-3 * mg / 2);
        CHECK(fabs(f.x) < 1e-3 * mg && fabs(f.y) < 1e-3 * mg);
        CHECK(fabs(t.x) < 1e-3 * mg * L && fabs(t.y) < 5e-3 * mg * L && fabs(t.z) < 1e-3 * mg * L);
        /* after a restore: zero until the next step */
        size_t n = mo_world_state_size(w);
        void *buf = malloc(n);
        CHECK(buf && mo_world_save_state(w, buf, n) == MO_OK);
        CHECK(buf && mo_world_restore_state(w, buf, n) == MO_OK);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, &t) == MO_OK);
        CHECK(f.z == 0 && t.y == 0);
        step(w, 1);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, NULL) == MO_OK);
        CHECK_NEAR(f.z, mg / 2, 5e-3 * mg / 2);
        free(buf);
        /* refusals */
        CHECK(mo_articulation_joint_wrench(w, a, 1, &f, &t) == MO_ERR_INVALID_ARGUMENT);
        mo_articulation_id stale = a;
        stale.generation += 7;
        CHECK(mo_articulation_joint_wrench(w, stale, 0, &f, &t) == MO_ERR_STALE_ID);
        mo_world_destroy(w);
    }
    /* held level by a torque on the link body: the hinge carries the weight and no moment; on its upper limit,
       the weight and gravity's moment, whose axis part is the limit's torque */
    for (int form = 0; form < 2; form++) {
        mo_world *w = world(1.0 / 240);
        mo_body_id lb;
        mo_articulation_id a = rod(w, m, L, z, 0.0, &lb);
        if (form == 1) CHECK(mo_articulation_set_limits(w, a, 0, -INFINITY, 0.0) == MO_OK);
        for (int i = 0; i < 240; i++) {
            if (form == 0)
                CHECK(mo_body_apply_force(w, lb, (mo_vec3){0, 0, 0}, (mo_vec3){0, -mg * L / 2, 0}) == MO_OK);
            step(w, 1);
        }
        double tau = 0.0;
        CHECK(mo_articulation_constraint_forces(w, a, &tau, 1) == MO_OK);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, &t) == MO_OK);
        printf("joint wrench, rod held %s: force (%.3g, %.3g, %.9g) N (m g = %.9g), torque (%.3g, %.9g, %.3g) N m "
               "(limit torque %.9g)\n", form ? "on its limit" : "by a torque on its link", f.x, f.y, f.z, mg, t.x,
               t.y, t.z, tau);
        CHECK_NEAR(f.z, mg, 1e-6 * mg);
        CHECK(fabs(f.x) < 1e-6 * mg && fabs(f.y) < 1e-6 * mg && fabs(t.x) < 1e-6 * mg && fabs(t.z) < 1e-6 * mg);
        CHECK_NEAR(t.y, form ? -mg * L / 2 : 0.0, 1e-6 * mg * L);
        if (form == 1) CHECK_NEAR(t.y, tau, 1e-6 * mg * L);
        mo_world_destroy(w);
    }
    /* a three-link chain along +x on hinges about y, held by gravity compensation: joint j carries the weight of
       links j.. and its axis torque is the compensation torque */
    {
        mo_world *w = world(1.0 / 120);
        mo_link_def l[3];
        const double ms[3] = {2.0, 1.0, 0.5}, len = 0.4;
        for (int i = 0; i < 3; i++) {
            l[i] = mo_default_link_def();
            l[i].parent = i - 1;
            l[i].joint = MO_LINK_REVOLUTE;
            l[i].axis = (mo_vec3){0, 1, 0};
            l[i].joint_position = (mo_vec3){i ? len : 0.0, 0, 0};
            l[i].mass = ms[i];
            l[i].com = (mo_vec3){len / 2, 0, 0};
            l[i].inertia = (mo_mat3){{{1e-3, 0, 0}, {0, ms[i] * len * len / 12, 0}, {0, 0, ms[i] * len * len / 12}}};
        }
        mo_articulation_id a = make(w, l, 3, (mo_vec3){0, 0, 1});
        double tau[3];
        CHECK(mo_articulation_gravity_compensation(w, a, tau, 3) == MO_OK);
        CHECK(mo_articulation_set_torques(w, a, tau, 3) == MO_OK);
        step(w, 60);
        for (int j = 0; j < 3; j++) {
            double below = 0.0, moment = 0.0; /* the weight of links j.. and its moment about joint j */
            for (int i = j; i < 3; i++) {
                below += ms[i] * G;
                moment += ms[i] * G * ((i - j) * len + len / 2);
            }
            CHECK(mo_articulation_joint_wrench(w, a, j, &f, &t) == MO_OK);
            printf("joint wrench, chain joint %d: force z %.9g N (weight below %.9g), torque y %.9g N m (compensation "
                   "%.9g, -moment %.9g)\n", j, f.z, below, t.y, tau[j], -moment);
            CHECK_NEAR(f.z, below, 1e-9 * below);
            CHECK(fabs(f.x) < 1e-9 * below && fabs(f.y) < 1e-9 * below);
            CHECK_NEAR(t.y, tau[j], 1e-9 * moment);
            CHECK_NEAR(t.y, -moment, 1e-9 * moment);
        }
        mo_world_destroy(w);
    }
    /* a box on a free root resting on the ground: the free joint transmits nothing (the contact force carries it) */
    {
        mo_world *w = world(1.0 / 120);
        ground(w);
        const mo_vec3 he = {0.2, 0.15, 0.1};
        mo_link_def l = mo_default_link_def();
        l.joint = MO_LINK_FREE;
        l.mass = 2.0;
        l.inertia = box_inertia(2.0, he);
        mo_articulation_id a = make_in(w, &l, 1, (mo_vec3){0, 0, 0.3}, MO_INTEGRATOR_EULER);
        mo_shape_def sd = mo_default_shape_def();
        sd.type = MO_SHAPE_BOX;
        sd.half_extents = he;
        link_shape(w, a, 0, sd);
        step(w, 240);
        CHECK(mo_articulation_joint_wrench(w, a, 0, &f, &t) == MO_OK);
        printf("joint wrench, free box at rest: force (%.3g, %.3g, %.3g) N, torque (%.3g, %.3g, %.3g) N m (m g = "
               "%.4g N)\n", f.x, f.y, f.z, t.x, t.y, t.z, 2.0 * G);
        CHECK(sqrt(f.x * f.x + f.y * f.y + f.z * f.z) < 1e-6 * 2.0 * G);
        CHECK(sqrt(t.x * t.x + t.y * t.y + t.z * t.z) < 1e-6 * 2.0 * G);
        mo_world_destroy(w);
    }
}

/* 10. collision groups on link bodies: which body pairs touch after one step */
static bool touching(const mo_world *w, mo_body_id a, mo_body_id b)
{
    mo_contact c[64];
    int n = mo_world_contacts(w, c, 64);
    for (int i = 0; i < n && i < 64; i++)
        if ((c[i].body_a.index == a.index && c[i].body_b.index == b.index) ||
            (c[i].body_a.index == b.index && c[i].body_b.index == a.index))
            return true;
    return false;
}

/* a fixed base (link 0) with two hinges folded back so that link 2's ball overlaps link 0's (not adjacent: they
   collide unless kept apart); a free ball over both; no gravity */
static void collision_group(void)
{
    mo_world *w = world(1.0 / 120);
    CHECK(mo_world_set_gravity(w, (mo_vec3){0, 0, 0}) == MO_OK);
    mo_link_def l[3] = {mo_default_link_def(), mo_default_link_def(), mo_default_link_def()};
    l[0].joint = MO_LINK_FIXED;
    l[1].parent = 0;
    l[1].joint_position = (mo_vec3){0.5, 0, 0};
    l[2].parent = 1;
    l[2].joint_position = (mo_vec3){-0.45, 0, 0}; /* link 2 at x = 0.05: 0.05 from link 0, 0.45 from link 1 */
    mo_articulation_id a = make(w, l, 3, (mo_vec3){0, 0, 0});
    mo_shape_def sd = mo_default_shape_def();
    sd.type = MO_SHAPE_SPHERE;
    sd.radius = 0.2;
    mo_body_id b0 = link_shape(w, a, 0, sd), b2 = link_shape(w, a, 2, sd);
    mo_body_def fd = mo_default_body_def();
    fd.shape = sd;
    fd.position = (mo_vec3){0.025, 0, 0.3}; /* 0.3 above both balls' centres: overlaps each */
    mo_body_id ball;
    CHECK(mo_body_create(w, &fd, &ball) == MO_OK);
    uint32_t g = 1;
    CHECK(mo_articulation_collision_group(w, a, &g) == MO_OK && g == 0);
    step(w, 1);
    CHECK(touching(w, b0, b2) && touching(w, b0, ball) && touching(w, b2, ball));
    /* a group: link 0 and link 2 no longer touch, the free ball still touches both; no pair excluded */
    CHECK(mo_articulation_set_collision_group(w, a, 0x70000) == MO_OK);
    CHECK(mo_articulation_collision_group(w, a, &g) == MO_OK && g == 0x70000);
    CHECK(mo_body_collision_group(w, b0, &g) == MO_OK && g == 0x70000);
    CHECK(mo_body_collision_group(w, b2, &g) == MO_OK && g == 0x70000);
    step(w, 1);
    CHECK(!touching(w, b0, b2) && touching(w, b0, ball) && touching(w, b2, ball));
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
    /* a link body made later takes the group; a body of the same group touches no link */
    mo_body_id b1 = link_shape(w, a, 1, sd);
    CHECK(mo_body_collision_group(w, b1, &g) == MO_OK && g == 0x70000);
    mo_body_def od = fd;
    od.position = (mo_vec3){0.3, 0, 0.3}; /* overlapping link 1's ball and the free ball */
    od.collision_group = 0x70000;
    mo_body_id other;
    CHECK(mo_body_create(w, &od, &other) == MO_OK);
    step(w, 1);
    CHECK(!touching(w, b0, b2) && !touching(w, b1, other) && touching(w, other, ball));
    /* group 0 again: link 0 and link 2 touch again */
    CHECK(mo_articulation_set_collision_group(w, a, 0) == MO_OK);
    CHECK(mo_body_collision_group(w, b1, &g) == MO_OK && g == 0);
    step(w, 1);
    CHECK(touching(w, b0, b2) && touching(w, b1, other));
    printf("collision group: links 0 and 2 apart in group 0x70000 (no pair exclusion), together again without\n");
    mo_world_destroy(w);
}

/* 11. a cone limit on a spherical joint: an inverted ball pendulum (bob 1 m above the ball joint) released
   tilted 45 degrees about x with a 30 degree cone comes to rest on the cone's edge, the limit carrying
   gravity's moment m g sin(30 deg) about x; every contact solver */
static void cone_limit(void)
{
    const double m = 1.0, A = 30.0 * 3.14159265358979323846 / 180.0, tilt = 45.0 * 3.14159265358979323846 / 180.0;
    const mo_solver_kind kinds[] = {MO_SOLVER_PGS, MO_SOLVER_JACOBI, MO_SOLVER_APGD, MO_SOLVER_SPG, MO_SOLVER_NEWTON};
    const char *names[] = {"PGS", "Jacobi", "APGD", "P-SPG-FB", "Newton"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        mo_world *w = world(1.0 / 120);
        solver(w, kinds[k], 300);
        mo_link_def l[2] = {mo_default_link_def(), mo_default_link_def()};
        l[0].joint = MO_LINK_FIXED;
        l[1].parent = 0;
        l[1].joint = MO_LINK_SPHERICAL;
        l[1].mass = m;
        l[1].com = (mo_vec3){0, 0, 1};
        l[1].damping = 0.5;
        mo_articulation_id a = make(w, l, 2, (mo_vec3){0, 0, 0});
        double cone = 0;
        CHECK(mo_articulation_cone_limit(w, a, 1, &cone) == MO_OK && cone == INFINITY);
        CHECK(mo_articulation_set_cone_limit(w, a, 1, A) == MO_OK);
        CHECK(mo_articulation_cone_limit(w, a, 1, &cone) == MO_OK && cone == A);
        double q[4] = {cos(tilt / 2), sin(tilt / 2), 0, 0}, v[3] = {0, 0, 0}, theta = 0, tau[3];
        CHECK(mo_articulation_set_joint(w, a, 1, q, v) == MO_OK);
        step(w, 360);
        CHECK(mo_articulation_get_joint(w, a, 1, q, v) == MO_OK);
        CHECK(mo_articulation_constraint_forces(w, a, tau, 3) == MO_OK);
        theta = 2 * atan2(sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), fabs(q[0]));
        double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        /* the side it rests on: tilted +x (where it was let go) or -x; the velocity-level solvers push it back
           at max_push_velocity and it stays on its side; Newton's position-level step puts it on the cone in one
           step, and the velocity of that correction (-31 rad/s) carries it over to the -x edge */
        const double side = q[0] * q[1] > 0 ? 1.0 : -1.0;
        printf("cone limit, %s: rests at %.6f deg (cone 30) tilted %sx, speed %.2g rad/s, limit torque (%.5f, %.2g, "
               "%.2g) N m (-+m g sin 30 = %.5f)\n", names[k], theta * 180 / 3.14159265358979323846,
               side > 0 ? "+" : "-", speed, tau[0], tau[1], tau[2], -side * m * G * sin(A));
        CHECK(fabs(theta - A) < 1e-3);
        CHECK(speed < 1e-3);
        CHECK(fabs(q[2]) < 1e-9 && fabs(q[3]) < 1e-9); /* about x only */
        CHECK(kinds[k] == MO_SOLVER_NEWTON || side > 0);
        CHECK(fabs(tau[0] + side * m * G * sin(A)) < 1e-2 * m * G && fabs(tau[1]) < 1e-6 && fabs(tau[2]) < 1e-6);
        /* none again: it falls past the cone */
        CHECK(mo_articulation_set_cone_limit(w, a, 1, INFINITY) == MO_OK);
        step(w, 60);
        CHECK(mo_articulation_get_joint(w, a, 1, q, NULL) == MO_OK);
        CHECK(2 * atan2(sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), fabs(q[0])) > A + 0.1);
        mo_world_destroy(w);
    }
}

int main(void)
{
    free_box();
    rod_on_post();
    link_forces();
    chain_drop();
    refusals();
    limits();
    mimic();
    newton_fem();
    joint_wrench();
    collision_group();
    cone_limit();
    return check_result_counted("artic_contact");
}
