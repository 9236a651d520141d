/* test_pgs_parallel.c: PGS's parallel block order (solver.sweep_order = parallel,
 * MO_SWEEP_PARALLEL; engine/solver/pgs.c, docs/solvers.md "Threads").
 *
 * The world: 300 spheres poured into a walled box, with four chains of six
 * boxes (spherical joints, the chain's links 2 and 5 also held by revolute
 * joints with limits to their neighbours) falling into them:
 *
 *    |  o o o o o o   chains  |
 *    |   o o o o o  ======    |
 *    |  o o o o o o o o o o   |
 *    ===========================  ground
 *
 * - 1, 2 and 3 threads give bit-identical states after every step (hashes),
 *   with contacts, joints and limit rows in the problem;
 * - the parallel order is another order than the sequential one: after the
 *   pile formed, one step from the same state gives other impulses (the test
 *   would pass trivially if the order fell back to the sequential one);
 * - the same fixed point: from one state, both orders solved to a CCP residual
 *   of 1e-6 m/s give the same velocities (the CCP's velocity is unique: the
 *   minimum of a strictly convex kinetic energy over a convex set) to 1e-4 m/s
 *   (measured: 4.3e-6 at 1e-6 after 9,700 sweeps, 4.3e-9 at 1e-9 after 23,400);
 * - a problem under 128 blocks (one part) is swept in the sequential order:
 *   both orders give the same state hash, bit for bit;
 * - the setting by name: "parallel", "sequential", and the refusal of an
 *   unknown order with its sentence. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"
#include "check.h"

static mo_world *new_world(int threads, const char *order, double tolerance, int iterations)
{
    mo_world_def wd = mo_default_world_def();
    wd.threads = threads;
    char err[256];
    CHECK(mo_world_def_set(&wd, "solver.sweep_order", order, err, sizeof err) == MO_OK);
    wd.solver.tolerance = tolerance;
    wd.solver.max_iterations = iterations;
    mo_world *w = NULL;
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static mo_body_id body(mo_world *w, mo_body_type type, mo_shape_type shape, mo_vec3 half, mo_vec3 at)
{
    mo_body_def b = mo_default_body_def();
    b.type = type;
    b.shape.type = shape;
    if (shape == MO_SHAPE_SPHERE) b.shape.radius = half.x;
    else b.shape.half_extents = half;
    b.position = at;
    mo_body_id id = {0, 0};
    CHECK(mo_body_create(w, &b, &id) == MO_OK);
    return id;
}

/* the scene above; spheres: how many spheres (a small world for the one-part case) */
static void build(mo_world *w, int spheres, bool chains)
{
    body(w, MO_BODY_STATIC, MO_SHAPE_PLANE, (mo_vec3){0, 0, 0}, (mo_vec3){0, 0, 0});
    const double L = 0.55; /* the box's inner half width */
    for (int k = 0; k < 4; k++) {
        mo_vec3 half = k < 2 ? (mo_vec3){0.05, L + 0.1, 0.5} : (mo_vec3){L + 0.1, 0.05, 0.5};
        double s = k % 2 ? 1.0 : -1.0;
        mo_vec3 at = k < 2 ? (mo_vec3){s * (L + 0.05), 0, 0.5} : (mo_vec3){0, s * (L + 0.05), 0.5};
        body(w, MO_BODY_STATIC, MO_SHAPE_BOX, half, at);
    }
    /* spheres on a 10 x 10 grid of columns, layers 0.11 m apart, shifted by a fixed pattern */
    for (int i = 0; i < spheres; i++) {
        int col = i % 100, layer = i / 100;
        double jx = 0.01 * ((i * 7) % 5 - 2), jy = 0.01 * ((i * 11) % 5 - 2);
        mo_vec3 at = {-0.45 + 0.1 * (col % 10) + jx, -0.45 + 0.1 * (col / 10) + jy, 0.06 + 0.11 * layer};
        body(w, MO_BODY_DYNAMIC, MO_SHAPE_SPHERE, (mo_vec3){0.045, 0, 0}, at);
    }
    if (!chains) return;
    for (int c = 0; c < 4; c++) {
        mo_body_id prev = {0, 0};
        for (int k = 0; k < 6; k++) {
            mo_vec3 at = {-0.3 + 0.08 * k, -0.3 + 0.2 * c, 0.6 + 0.02 * c};
            mo_body_id b = body(w, MO_BODY_DYNAMIC, MO_SHAPE_BOX, (mo_vec3){0.035, 0.02, 0.02}, at);
            if (k > 0) {
                mo_joint_def j = mo_default_joint_def();
                j.body_a = prev;
                j.body_b = b;
                j.anchor_a = (mo_vec3){0.04, 0, 0};
                j.anchor_b = (mo_vec3){-0.04, 0, 0};
                if (k == 2 || k == 5) {
                    j.type = MO_JOINT_REVOLUTE;
                    j.axis_a = j.axis_b = (mo_vec3){0, 1, 0};
                    j.enable_limit = true;
                    j.lower = -0.3;
                    j.upper = 0.3;
                }
                mo_joint_id jid;
                CHECK(mo_joint_create(w, &j, &jid) == MO_OK);
            }
            prev = b;
        }
    }
}

static void step(mo_world *w)
{
    if (mo_world_step(w) != MO_OK) {
        fprintf(stderr, "step: %s\n", mo_world_last_error(w));
        exit(1);
    }
}

/* 1, 2, 3 threads: the same hash after every step */
static void test_threads(void)
{
    mo_world *w[3];
    for (int t = 0; t < 3; t++) {
        w[t] = new_world(t + 1, "parallel", 0.0, 30);
        build(w[t], 300, true);
    }
    int differ = 0, max_rows = 0, max_contacts = 0;
    for (int i = 0; i < 120; i++) {
        for (int t = 0; t < 3; t++) step(w[t]);
        uint64_t h = mo_world_state_hash(w[0]);
        for (int t = 1; t < 3; t++) differ += mo_world_state_hash(w[t]) != h;
        mo_step_stats st = mo_world_last_stats(w[0]);
        if (st.rows > max_rows) max_rows = st.rows;
        if (st.contacts > max_contacts) max_contacts = st.contacts;
    }
    printf("threads: 120 steps, up to %d contacts and %d rows, %d hash differences\n", max_contacts, max_rows,
           differ);
    CHECK(differ == 0);
    CHECK(max_contacts >= 300); /* enough blocks for several parts and colours (>= 128) */
    for (int t = 0; t < 3; t++) mo_world_destroy(w[t]);
}

/* the pile after 120 steps of the sequential order, at threads t, order and solver settings */
static mo_world *settled(int threads, const char *order, double tolerance, int iterations)
{
    mo_world *w = new_world(threads, "sequential", 0.0, 30);
    build(w, 300, true);
    for (int i = 0; i < 120; i++) step(w);
    char set[80];
    snprintf(set, sizeof set, "solver.sweep_order=%s", order);
    const char *sets[1] = {set};
    CHECK(mo_world_set_settings(w, sets, 1) == MO_OK);
    mo_solver_settings s = mo_world_solver(w);
    s.tolerance = tolerance;
    s.max_iterations = iterations;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    return w;
}

/* largest difference of the bodies' linear and angular velocities between two worlds built alike */
static double velocity_difference(const mo_world *a, const mo_world *b)
{
    int n = mo_world_bodies(a, NULL, 0);
    mo_body_id *ia = malloc((size_t)n * sizeof *ia), *ib = malloc((size_t)n * sizeof *ib);
    CHECK(mo_world_bodies(a, ia, n) == n && mo_world_bodies(b, ib, n) == n);
    double d = 0.0;
    for (int i = 0; i < n; i++) {
        mo_vec3 va, vb, wa, wb;
        mo_body_linear_velocity(a, ia[i], &va);
        mo_body_linear_velocity(b, ib[i], &vb);
        mo_body_angular_velocity(a, ia[i], &wa);
        mo_body_angular_velocity(b, ib[i], &wb);
        double e[6] = {va.x - vb.x, va.y - vb.y, va.z - vb.z, wa.x - wb.x, wa.y - wb.y, wa.z - wb.z};
        for (int k = 0; k < 6; k++) d = fmax(d, fabs(e[k]));
    }
    free(ia);
    free(ib);
    return d;
}

/* another order: one step of 30 sweeps from one state differs; the same fixed point at 1e-9 */
static void test_fixed_point(void)
{
    mo_world *seq = settled(1, "sequential", 0.0, 30), *par = settled(2, "parallel", 0.0, 30);
    CHECK(mo_world_state_hash(seq) == mo_world_state_hash(par));
    step(seq);
    step(par);
    double d30 = velocity_difference(seq, par);
    mo_world_destroy(seq);
    mo_world_destroy(par);

    seq = settled(1, "sequential", 1e-6, 100000);
    par = settled(2, "parallel", 1e-6, 100000);
    step(seq);
    step(par);
    mo_step_stats ss = mo_world_last_stats(seq), sp = mo_world_last_stats(par);
    double d = velocity_difference(seq, par);
    printf("fixed point: %d contacts, %d rows; 30 sweeps: velocities differ by %.3e m/s; to 1e-6 m/s: sequential "
           "%d sweeps (%.2e), parallel %d (%.2e), velocities differ by %.3e\n",
           ss.contacts, ss.rows, d30, ss.iterations, ss.residual, sp.iterations, sp.residual, d);
    CHECK(ss.converged && sp.converged);
    CHECK(d30 > 1e-9); /* another order: not the sequential one's iterates */
    CHECK(d < 1e-4);
    mo_world_destroy(seq);
    mo_world_destroy(par);
}

/* under 128 blocks: one part, the sequential order itself */
static void test_small_is_sequential(void)
{
    mo_world *a = new_world(1, "sequential", 0.0, 20), *b = new_world(2, "parallel", 0.0, 20);
    build(a, 30, false);
    build(b, 30, false);
    int max_contacts = 0;
    for (int i = 0; i < 100; i++) {
        step(a);
        step(b);
        mo_step_stats st = mo_world_last_stats(a);
        if (st.contacts > max_contacts) max_contacts = st.contacts;
    }
    printf("small: up to %d contacts, hashes %016llx %016llx\n", max_contacts,
           (unsigned long long)mo_world_state_hash(a), (unsigned long long)mo_world_state_hash(b));
    CHECK(max_contacts > 10 && max_contacts < 128);
    CHECK(mo_world_state_hash(a) == mo_world_state_hash(b));
    mo_world_destroy(a);
    mo_world_destroy(b);
}

static void test_names(void)
{
    mo_world_def wd = mo_default_world_def();
    char err[256] = "";
    CHECK(mo_world_def_set(&wd, "solver.sweep_order", "parallel", err, sizeof err) == MO_OK);
    CHECK(wd.solver.sweep_order == MO_SWEEP_PARALLEL);
    CHECK(mo_world_def_set(&wd, "solver.sweep_order", "sequential", err, sizeof err) == MO_OK);
    CHECK(wd.solver.sweep_order == MO_SWEEP_SEQUENTIAL);
    CHECK(mo_world_def_set(&wd, "solver.sweep_order", "coloured", err, sizeof err) != MO_OK);
    printf("refusal: %s\n", err);
    CHECK_STR(err, "solver.sweep_order 'coloured' is not one of sequential, parallel");
    mo_solver_settings s = mo_default_solver_settings();
    CHECK(s.sweep_order == MO_SWEEP_SEQUENTIAL);
    s.sweep_order = (mo_sweep_order)7;
    mo_world *w = new_world(1, "sequential", 0.0, 10);
    CHECK(mo_world_set_solver(w, &s) == MO_ERR_INVALID_ARGUMENT);
    printf("refusal: %s\n", mo_world_last_error(w));
    CHECK_STR(mo_world_last_error(w), "sweep order 7 is not a known order");
    mo_world_destroy(w);
}

int main(void)
{
    test_names();
    test_small_is_sequential();
    test_threads();
    test_fixed_point();
    return check_result("pgs_parallel");
}
