/* test_contact_forces.c: contact forces read back after a step (issue 19, item 2):
 * mo_contact's tangent basis and world force, mo_body_contact_force.
 *   resting:   a 2 kg box on the ground: its contact forces sum to m g up, torque
 *              about its centre ~0; the ground gets the opposite; each contact's
 *              basis is orthonormal and right-handed and its force is
 *              (n i_n + t1 i_t1 + t2 i_t2) / h; the same with 4 substeps
 *              (h / 4) and with the Newton solver
 *   sliding:   a box pushed sideways: friction mu N against the sliding
 *              velocity, torque about the centre ~0 (it slides without
 *              turning), speed falling at mu g
 *   stack:     two boxes: the ground carries (m1 + m2) g on the bottom box,
 *              the top box presses it down with m2 g, the total is m1 g
 *   particle:  a particle on a static box: the box gets -m g
 *   errors:    NULL world, null, destroyed and foreign ids with exact text;
 *              zero before the first step and after mo_world_restore_state
 *
 *        top (m2)  +----+
 *                  |    |
 *     bottom (m1) +------+
 *                 |      |
 *   ground  ======+------+======  z = 0
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"
#include "check.h"

static const double G = 9.81;

static mo_world *make_world(mo_solver_kind kind, int substeps)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.kind = kind;
    if (kind == MO_SOLVER_PGS) wd.solver.max_iterations = 100;
    wd.substeps = substeps;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static mo_body_id ground(mo_world *w, double friction)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    g.shape.friction = friction;
    mo_body_id id;
    CHECK(mo_body_create(w, &g, &id) == MO_OK);
    return id;
}

static mo_body_id box(mo_world *w, mo_vec3 pos, mo_vec3 he, double mass, double friction, mo_vec3 vel)
{
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = he;
    b.shape.friction = friction;
    b.mass = mass;
    b.position = pos;
    b.linear_velocity = vel;
    mo_body_id id;
    CHECK(mo_body_create(w, &b, &id) == MO_OK);
    return id;
}

static double dot(mo_vec3 a, mo_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double norm(mo_vec3 a) { return sqrt(dot(a, a)); }
static mo_vec3 cross(mo_vec3 a, mo_vec3 b)
{
    return (mo_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static bool same_body(mo_body_id a, mo_body_id b) { return a.index == b.index && a.generation == b.generation; }

/* every contact: (normal, tangent1, tangent2) orthonormal and right-handed, force from the impulse
   over h; returns the number of contacts */
static int check_basis_and_force(const mo_world *w, double h)
{
    int n = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)calloc((size_t)(n ? n : 1), sizeof *c);
    CHECK(mo_world_contacts(w, c, n) == n);
    double worst_ortho = 0.0, worst_force = 0.0;
    for (int i = 0; i < n; i++) {
        const mo_vec3 e[3] = {c[i].normal, c[i].tangent1, c[i].tangent2};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) worst_ortho = fmax(worst_ortho, fabs(dot(e[a], e[b]) - (a == b)));
        mo_vec3 t = cross(c[i].normal, c[i].tangent1); /* n x t1 = t2 */
        worst_ortho = fmax(worst_ortho, norm((mo_vec3){t.x - e[2].x, t.y - e[2].y, t.z - e[2].z}));
        const mo_vec3 im = c[i].impulse;
        mo_vec3 f = {(e[0].x * im.x + e[1].x * im.y + e[2].x * im.z) / h,
                     (e[0].y * im.x + e[1].y * im.y + e[2].y * im.z) / h,
                     (e[0].z * im.x + e[1].z * im.y + e[2].z * im.z) / h};
        double d = norm((mo_vec3){f.x - c[i].force.x, f.y - c[i].force.y, f.z - c[i].force.z});
        worst_force = fmax(worst_force, d / fmax(1.0, norm(f)));
    }
    CHECK(worst_ortho < 1e-14);
    CHECK(worst_force < 1e-14);
    free(c);
    return n;
}

/* the sum of the forces of mo_world_contacts on body (+force as B, -force as A), optionally only from
   contacts with other */
static mo_vec3 sum_forces(const mo_world *w, mo_body_id body, const mo_body_id *other)
{
    int n = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)calloc((size_t)(n ? n : 1), sizeof *c);
    mo_world_contacts(w, c, n);
    mo_vec3 s = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        double sg = same_body(c[i].body_b, body) ? 1.0 : same_body(c[i].body_a, body) ? -1.0 : 0.0;
        const mo_body_id o = sg > 0 ? c[i].body_a : c[i].body_b;
        if (sg == 0.0 || (other && !same_body(o, *other))) continue;
        s.x += sg * c[i].force.x;
        s.y += sg * c[i].force.y;
        s.z += sg * c[i].force.z;
    }
    free(c);
    return s;
}

/* a 2 kg box at rest on the ground (settled for 1 s) */
static void test_resting(mo_solver_kind kind, int substeps, const char *what)
{
    mo_world *w = make_world(kind, substeps);
    mo_body_id gnd = ground(w, 0.5);
    const double m = 2.0;
    mo_body_id b = box(w, (mo_vec3){0.3, -0.2, 0.1}, (mo_vec3){0.2, 0.15, 0.1}, m, 0.5, (mo_vec3){0, 0, 0});
    mo_vec3 f, t;
    CHECK(mo_body_contact_force(w, b, &f, &t) == MO_OK); /* before the first step: zero */
    CHECK(f.x == 0 && f.y == 0 && f.z == 0 && t.x == 0 && t.y == 0 && t.z == 0);
    for (int i = 0; i < 120; i++) CHECK(mo_world_step(w) == MO_OK);
    const double h = mo_world_time_step(w) / substeps;
    int n = check_basis_and_force(w, h);
    CHECK(n >= 4);
    CHECK(mo_body_contact_force(w, b, &f, &t) == MO_OK);
    printf("%s: %d contacts, sum (%.3g, %.3g, %.12g) N against m g = %.12g (rel %.2e), torque |%.3g| N m, "
           "residual %.3g\n",
           what, n, f.x, f.y, f.z, m * G, fabs(f.z - m * G) / (m * G), norm(t), mo_world_last_stats(w).residual);
    CHECK_NEAR(f.z, m * G, 1e-9 * m * G); /* measured: exact to rounding (residual ~1e-18) */
    CHECK_NEAR(f.x, 0.0, 1e-9);
    CHECK_NEAR(f.y, 0.0, 1e-9);
    CHECK(norm(t) < 1e-6);
    /* the list sums to the same; the ground receives the opposite */
    mo_vec3 s = sum_forces(w, b, NULL);
    CHECK_NEAR(s.z, f.z, 1e-12 * m * G);
    mo_vec3 fg, tg;
    CHECK(mo_body_contact_force(w, gnd, &fg, &tg) == MO_OK);
    CHECK_NEAR(fg.z, -f.z, 1e-12 * m * G);
    CHECK_NEAR(fg.x, -f.x, 1e-12);
    CHECK(mo_body_contact_force(w, b, NULL, NULL) == MO_OK); /* both outputs may be NULL */
    mo_world_destroy(w);
}

/* A box pushed sideways: Coulomb friction mu N against the sliding direction. Newton solves the
   exact Coulomb law (NCP): N = m g and the speed falls at mu g. PGS on the cone model solves the CCP
   relaxation, whose sliding contacts separate at mu |v_t| (the box hops on the first step and lands
   on step 32 at 3 m/s): friction mu N against the sliding holds there on every step with contacts,
   N and the deceleration are not checked. */
static void test_sliding(mo_solver_kind kind, const char *what)
{
    mo_world *w = make_world(kind, 1);
    const bool ncp = kind == MO_SOLVER_NEWTON;
    ground(w, 0.4);
    const double m = 3.0, mu = sqrt(0.4 * 0.9);
    const mo_vec3 v0 = {2.4, -1.8, 0}; /* 3 m/s, not along an axis */
    mo_body_id b = box(w, (mo_vec3){0, 0, 0.1}, (mo_vec3){0.2, 0.2, 0.1}, m, 0.9, v0);
    const double h = mo_world_time_step(w);
    double worst_dir = 0.0, worst_mu = 0.0, worst_tq = 0.0, worst_n = 0.0;
    mo_vec3 v_prev = v0;
    double worst_decel = 0.0;
    for (int i = 0; i < 40; i++) { /* 1/3 s: from 3 m/s to about 1.0 m/s */
        CHECK(mo_world_step(w) == MO_OK);
        mo_vec3 f, t, v;
        CHECK(mo_body_contact_force(w, b, &f, &t) == MO_OK);
        mo_body_linear_velocity(w, b, &v);
        if (check_basis_and_force(w, h) == 0) { v_prev = v; continue; } /* CCP: in the air */
        const double N = f.z;
        const mo_vec3 ft = {f.x, f.y, 0};
        const double sp = hypot(v_prev.x, v_prev.y); /* sliding velocity the step started from */
        const mo_vec3 dir = {v_prev.x / sp, v_prev.y / sp, 0};
        worst_n = fmax(worst_n, fabs(N - m * G) / (m * G));
        worst_mu = fmax(worst_mu, fabs(norm(ft) - mu * N) / (mu * N));
        worst_dir = fmax(worst_dir, 1.0 + dot(ft, dir) / norm(ft)); /* 0 when exactly opposite */
        worst_tq = fmax(worst_tq, norm(t) / (mu * N * 0.1));          /* against friction x half height */
        worst_decel = fmax(worst_decel, fabs((sp - hypot(v.x, v.y)) / h - mu * G) / (mu * G));
        v_prev = v;
    }
    printf("%s (mu %.4f): |f_t| - mu N rel %.2e, direction 1 + cos %.2e, N - m g rel %.2e, "
           "torque / (mu N h/2) %.2e, deceleration - mu g rel %.2e\n",
           what, mu, worst_mu, worst_dir, worst_n, worst_tq, worst_decel);
    /* Newton's friction fixed point (W) converges to a few 1e-6 (measured 2.1e-6); PGS's cone projection is exact */
    CHECK(worst_mu < (ncp ? 1e-5 : 1e-12));
    CHECK(worst_dir < 1e-12);
    CHECK(worst_tq < (ncp ? 1e-6 : 1e-12));
    if (ncp) {
        CHECK(worst_n < 1e-6);
        CHECK(worst_decel < 1e-5);
    }
    mo_world_destroy(w);
}

/* two boxes stacked: what the ground and the top box each do to the bottom one */
static void test_stack(void)
{
    mo_world *w = make_world(MO_SOLVER_PGS, 1);
    mo_body_id gnd = ground(w, 0.5);
    const double m1 = 1.0, m2 = 3.0;
    mo_body_id bot = box(w, (mo_vec3){0, 0, 0.1}, (mo_vec3){0.3, 0.3, 0.1}, m1, 0.5, (mo_vec3){0, 0, 0});
    mo_body_id top = box(w, (mo_vec3){0.05, 0.02, 0.3}, (mo_vec3){0.2, 0.2, 0.1}, m2, 0.5, (mo_vec3){0, 0, 0});
    for (int i = 0; i < 240; i++) CHECK(mo_world_step(w) == MO_OK);
    check_basis_and_force(w, mo_world_time_step(w));
    mo_vec3 from_ground = sum_forces(w, bot, &gnd), from_top = sum_forces(w, bot, &top), f, t, ft, tt;
    CHECK(mo_body_contact_force(w, bot, &f, &t) == MO_OK);
    CHECK(mo_body_contact_force(w, top, &ft, &tt) == MO_OK);
    printf("stack: ground on bottom %.12g N ((m1 + m2) g = %.12g), top on bottom %.12g N (-m2 g), bottom total "
           "%.12g N (m1 g = %.12g), top total %.12g N, torques |%.2g| |%.2g| N m\n",
           from_ground.z, (m1 + m2) * G, from_top.z, f.z, m1 * G, ft.z, norm(t), norm(tt));
    CHECK_NEAR(from_ground.z, (m1 + m2) * G, 1e-9 * (m1 + m2) * G);
    CHECK_NEAR(from_top.z, -m2 * G, 1e-9 * m2 * G);
    CHECK_NEAR(f.z, m1 * G, 1e-9 * (m1 + m2) * G);
    CHECK_NEAR(f.z, from_ground.z + from_top.z, 1e-12 * (m1 + m2) * G); /* the top box's forces are in the sum */
    CHECK_NEAR(ft.z, m2 * G, 1e-9 * m2 * G);
    CHECK(norm(t) < 1e-5 && norm(tt) < 1e-5);
    mo_world_destroy(w);
}

/* a particle resting on a static box: the box receives the particle's weight */
static void test_particle(void)
{
    mo_world *w = make_world(MO_SOLVER_PGS, 1);
    mo_body_id slab;
    mo_body_def d = mo_default_body_def();
    d.type = MO_BODY_STATIC;
    d.shape.type = MO_SHAPE_BOX;
    d.shape.half_extents = (mo_vec3){1, 1, 0.1};
    d.position = (mo_vec3){0, 0, -0.1};
    CHECK(mo_body_create(w, &d, &slab) == MO_OK);
    mo_particle_def pd = mo_default_particle_def();
    pd.position = (mo_vec3){0.5, 0.25, 0.05};
    pd.radius = 0.05;
    pd.mass = 0.2;
    mo_particle_id p;
    CHECK(mo_particle_create(w, &pd, &p) == MO_OK);
    for (int i = 0; i < 60; i++) CHECK(mo_world_step(w) == MO_OK);
    mo_vec3 f, t;
    CHECK(mo_body_contact_force(w, slab, &f, &t) == MO_OK);
    /* the slab's centre is 0.1 under the contact point (0.5, 0.25, 0): torque = r x f */
    printf("particle: slab gets (%.3g, %.3g, %.12g) N (-m g = %.12g), torque (%.6g, %.6g, %.3g) N m\n", f.x, f.y,
           f.z, -0.2 * G, t.x, t.y, t.z);
    CHECK_NEAR(f.z, -0.2 * G, 1e-9);
    CHECK_NEAR(t.x, 0.25 * f.z, 1e-6);  /* (rx, ry, rz) x (0, 0, fz) = (ry fz, -rx fz, 0) */
    CHECK_NEAR(t.y, -0.5 * f.z, 1e-6);
    mo_world_destroy(w);
}

/* NULL world, null / destroyed / foreign ids, and the contact list gone after a restore */
static void test_errors(void)
{
    mo_world *w = make_world(MO_SOLVER_PGS, 1), *other = make_world(MO_SOLVER_PGS, 1);
    ground(w, 0.5);
    mo_body_id b = box(w, (mo_vec3){0, 0, 0.1}, (mo_vec3){0.1, 0.1, 0.1}, 1.0, 0.5, (mo_vec3){0, 0, 0});
    mo_body_id dead = box(w, (mo_vec3){3, 0, 0.1}, (mo_vec3){0.1, 0.1, 0.1}, 1.0, 0.5, (mo_vec3){0, 0, 0});
    ground(other, 0.5);
    mo_body_id foreign = box(other, (mo_vec3){0, 0, 0.1}, (mo_vec3){0.1, 0.1, 0.1}, 1.0, 0.5, (mo_vec3){0, 0, 0});
    CHECK(mo_body_destroy(w, dead) == MO_OK);
    for (int i = 0; i < 30; i++) CHECK(mo_world_step(w) == MO_OK);
    mo_vec3 f = {7, 7, 7}, t = {7, 7, 7};
    CHECK(mo_body_contact_force(NULL, b, &f, &t) == MO_ERR_INVALID_ARGUMENT);
    CHECK(f.x == 7 && t.x == 7); /* untouched */
    char want[160];
    CHECK(mo_body_contact_force(w, (mo_body_id){0, 0}, &f, &t) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), "body id (index 0, generation 0) does not name a live body");
    CHECK(mo_body_contact_force(w, dead, &f, &t) == MO_ERR_STALE_ID);
    snprintf(want, sizeof want, "body id (index %u, generation %u) does not name a live body", dead.index,
             dead.generation);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_body_contact_force(w, foreign, &f, &t) == MO_ERR_STALE_ID);
    snprintf(want, sizeof want, "body id (index %u, generation %u) belongs to another world", foreign.index,
             foreign.generation);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(f.x == 7 && t.x == 7);
    /* a restored state has no contact list until the next step: zero, then m g again */
    size_t n = mo_world_state_size(w);
    void *buf = malloc(n);
    CHECK(mo_world_save_state(w, buf, n) == MO_OK);
    CHECK(mo_world_restore_state(w, buf, n) == MO_OK);
    CHECK(mo_body_contact_force(w, b, &f, &t) == MO_OK);
    CHECK(f.x == 0 && f.y == 0 && f.z == 0);
    CHECK(mo_world_step(w) == MO_OK);
    CHECK(mo_body_contact_force(w, b, &f, &t) == MO_OK);
    CHECK_NEAR(f.z, G, 1e-6 * G);
    free(buf);
    mo_world_destroy(w);
    mo_world_destroy(other);
}

/* a box resting on a static box tilted by tilt about x and y (body order: box first, so A is the box and
 * the normal from A to B points down, n_z = -cos(tilt)): every contact's basis orthonormal to 1e-12.
 * For tilts of 1e-5 to 4e-4 rad n_z lies in (-1, -0.9999999], where the tangent basis was the fixed
 * basis of -z itself: off the normal by up to 4.5e-4 (found by fuzz_api's P13) */
static void test_basis_near_down(void)
{
    const double tilts[] = {0.0, 1e-5, 1e-4, 4e-4, 1e-3};
    double worst = 0.0;
    int seen = 0;
    for (size_t k = 0; k < sizeof tilts / sizeof tilts[0]; k++) {
        mo_world *w = make_world(MO_SOLVER_PGS, 1);
        const double t = tilts[k], c = cos(0.5 * t), sn = sin(0.5 * t);
        box(w, (mo_vec3){0, 0, 0.5 + 0.1 - 1e-4}, (mo_vec3){0.1, 0.1, 0.1}, 1.0, 0.5, (mo_vec3){0, 0, 0});
        mo_body_def g = mo_default_body_def();
        g.type = MO_BODY_STATIC;
        g.shape.type = MO_SHAPE_BOX;
        g.shape.half_extents = (mo_vec3){2, 2, 0.5};
        g.orientation = (mo_quat){c * c, sn * c, c * sn, -sn * sn}; /* about x, then y */
        mo_body_id gid;
        CHECK(mo_body_create(w, &g, &gid) == MO_OK);
        CHECK(mo_world_step(w) == MO_OK);
        mo_contact ct[16];
        int n = mo_world_contacts(w, ct, 16);
        for (int i = 0; i < n && i < 16; i++) {
            const mo_vec3 nn = ct[i].normal, t1 = ct[i].tangent1, t2 = ct[i].tangent2;
            if (nn.z < -0.9999999 && (nn.x != 0.0 || nn.y != 0.0)) seen++;
            double e = fmax(fmax(fabs(dot(nn, t1)), fabs(dot(nn, t2))), fabs(dot(t1, t2)));
            e = fmax(e, fmax(fabs(norm(t1) - 1.0), fabs(norm(t2) - 1.0)));
            mo_vec3 x = cross(nn, t1);
            e = fmax(e, norm((mo_vec3){x.x - t2.x, x.y - t2.y, x.z - t2.z}));
            worst = fmax(worst, e);
        }
        CHECK(n >= 1);
        mo_world_destroy(w);
    }
    printf("  contact bases with the normal near -z (%d in the band): worst orthonormality error %.3g\n", seen, worst);
    CHECK(seen > 0);
    CHECK(worst < 1e-12);
}

int main(void)
{
    test_resting(MO_SOLVER_PGS, 1, "resting (pgs)");
    test_resting(MO_SOLVER_PGS, 4, "resting (pgs, 4 substeps)");
    test_resting(MO_SOLVER_NEWTON, 1, "resting (newton)");
    test_sliding(MO_SOLVER_NEWTON, "sliding (newton)");
    test_sliding(MO_SOLVER_PGS, "sliding (pgs, CCP)");
    test_stack();
    test_particle();
    test_errors();
    test_basis_near_down();
    return check_result("contact_forces");
}
