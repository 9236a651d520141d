/* test_api.c: the C API's contracts: defaults, ids with generations, exact
 * error sentences for bad input with the world left unchanged, solver
 * settings as data, and a bit-identical state hash for 1 and 2 threads. */
#include <stdlib.h>
#include <moreau/moreau.h>
#include "testutil.h"

static mo_world *new_world(void)
{
    mo_world_def wd = mo_default_world_def();
    return world_or_exit(&wd, "world: ", 1);
}

static mo_body_id add_box(mo_world *w, double x, double y, double z)
{
    mo_body_def d = mo_default_body_def();
    d.shape.type = MO_SHAPE_BOX;
    d.shape.half_extents = (mo_vec3){0.1, 0.2, 0.3};
    d.position = (mo_vec3){x, y, z};
    mo_body_id id;
    CHECK(mo_body_create(w, &d, &id) == MO_OK);
    return id;
}

static void test_defaults_and_world_errors(void)
{
    mo_world_def wd = mo_default_world_def();
    CHECK_NEAR(wd.gravity.z, -9.81, 0);
    CHECK_NEAR(wd.time_step, 1.0 / 120.0, 0);
    CHECK(wd.solver.kind == MO_SOLVER_PGS);
    CHECK(wd.solver.max_iterations > 0);

    char err[256];
    mo_world *w = (mo_world *)0x1;
    wd.time_step = -0.01;
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK_STR(err, "world time_step must be in [1e-08, 1] s, got -0.01");

    wd = mo_default_world_def();
    wd.gravity.y = NAN;
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "world gravity must be finite with components in [-1e+08, 1e+08] m/s^2, got (0, nan, -9.81)");

    mo_world_def raw;
    memset(&raw, 0, sizeof raw);
    CHECK(mo_world_create(&raw, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "world def was not initialised with mo_default_world_def()");

    wd = mo_default_world_def();
    wd.solver.omega = 2.0;
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "solver omega must be in (0, 2), got 2");

    CHECK(strcmp(mo_status_name(MO_ERR_STALE_ID), "MO_ERR_STALE_ID") == 0);
}

static void test_ids(void)
{
    mo_world *w = new_world();
    mo_body_id a = add_box(w, 0, 0, 1), b = add_box(w, 1, 0, 1);
    CHECK(a.index != b.index);
    CHECK(mo_body_is_valid(w, a) && mo_body_is_valid(w, b));
    mo_body_id null_id = {0, 0};
    CHECK(!mo_body_is_valid(w, null_id));
    CHECK(mo_body_id_is_null(null_id));

    /* a destroyed body's id is stale, also after its slot is reused */
    CHECK(mo_body_destroy(w, a) == MO_OK);
    CHECK(!mo_body_is_valid(w, a));
    mo_vec3 p;
    CHECK(mo_body_position(w, a, &p) == MO_ERR_STALE_ID);
    char expect[128];
    snprintf(expect, sizeof expect, "body id (index %u, generation %u) does not name a live body", a.index,
             a.generation);
    CHECK_STR(mo_world_last_error(w), expect);
    CHECK(mo_body_destroy(w, a) == MO_ERR_STALE_ID);
    mo_body_id c = add_box(w, 2, 0, 1);
    CHECK(c.index == a.index);           /* slot reused */
    CHECK(c.generation != a.generation); /* new generation */
    CHECK(!mo_body_is_valid(w, a));
    CHECK(mo_body_is_valid(w, c));
    CHECK(mo_body_position(w, c, &p) == MO_OK && p.x == 2.0);
    /* out of range index */
    mo_body_id far = {999, 1};
    CHECK(mo_body_set_velocity(w, far, (mo_vec3){0, 0, 0}, (mo_vec3){0, 0, 0}) == MO_ERR_STALE_ID);

    /* joints: destroyed with their body; stale joint ids refused */
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_SPHERICAL;
    jd.body_a = b;
    jd.body_b = c;
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
    CHECK(mo_joint_is_valid(w, j));
    CHECK(mo_body_destroy(w, c) == MO_OK);
    CHECK(!mo_joint_is_valid(w, j));
    double e;
    CHECK(mo_joint_error(w, j, &e) == MO_ERR_STALE_ID);
    /* a joint on a stale body is refused */
    jd.body_b = c;
    CHECK(mo_joint_create(w, &jd, &j) == MO_ERR_STALE_ID);
    snprintf(expect, sizeof expect, "joint body_b (index %u, generation %u) does not name a live body", c.index,
             c.generation);
    CHECK_STR(mo_world_last_error(w), expect);

    /* particles */
    mo_particle_def pd = mo_default_particle_def();
    mo_particle_id q;
    CHECK(mo_particle_create(w, &pd, &q) == MO_OK);
    CHECK(mo_particle_destroy(w, q) == MO_OK);
    CHECK(mo_particle_position(w, q, &p) == MO_ERR_STALE_ID);
    mo_world_destroy(w);
}

/* bad defs: exact sentence, MO_ERR_INVALID_ARGUMENT, world unchanged */
static void test_bad_input(void)
{
    mo_world *w = new_world();
    add_box(w, 0, 0, 0.3);
    for (int i = 0; i < 3; i++) mo_world_step(w);
    uint64_t h0 = mo_world_state_hash(w);
    mo_step_stats s0 = mo_world_last_stats(w);
    mo_body_id id = {0, 0};
    mo_body_id first; /* a live body of this world */
    CHECK(mo_world_bodies(w, &first, 1) >= 1);

#define CASE(label, body, text)                                   \
    do {                                                          \
        mo_body_def d = mo_default_body_def();                    \
        d.shape.type = MO_SHAPE_BOX;                              \
        d.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};          \
        body;                                                     \
        CHECK(mo_body_create(w, &d, &id) == MO_ERR_INVALID_ARGUMENT); \
        CHECK(mo_body_id_is_null(id));                            \
        CHECK_STR(mo_world_last_error(w), text);                  \
        (void)label;                                              \
    } while (0)
    CASE("negative mass", d.mass = -1.0, "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got -1");
    CASE("zero mass", d.mass = 0.0, "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got 0");
    CASE("nan mass", d.mass = NAN, "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got nan");
    CASE("nan position", d.position.x = NAN, "body position must be finite with coordinates in [-1e+09, 1e+09] m, got (nan, 0, 0)");
    CASE("inf position", d.position.z = INFINITY, "body position must be finite with coordinates in [-1e+09, 1e+09] m, got (0, 0, inf)");
    CASE("zero quaternion", (d.orientation = (mo_quat){0, 0, 0, 0}),
         "body orientation must be a finite non-zero quaternion, got (0, 0, 0, 0)");
    CASE("negative box", d.shape.half_extents.y = -0.5, "box half extents must be in (0, 1e+09] m, got (0.1, -0.5, 0.1)");
    CASE("bad inertia", (d.inertia.m[0][0] = 1, d.inertia.m[1][1] = -1, d.inertia.m[2][2] = 1),
         "body inertia must be symmetric positive definite");
    CASE("asymmetric inertia", (d.inertia.m[0][0] = d.inertia.m[1][1] = d.inertia.m[2][2] = 1, d.inertia.m[0][1] = 0.5),
         "body inertia must be symmetric positive definite");
    CASE("plane on dynamic", d.shape.type = MO_SHAPE_PLANE, "plane shape needs a static body, got a dynamic body");
    CASE("no shape no inertia", d.shape.type = MO_SHAPE_NONE,
         "body inertia is zero and the body has no closed shape to compute it from");
    CASE("negative friction", d.shape.friction = -0.1, "shape friction must be finite and >= 0, got -0.1");
    {
        mo_body_def d;
        memset(&d, 0, sizeof d);
        CHECK(mo_body_create(w, &d, &id) == MO_ERR_INVALID_ARGUMENT);
        CHECK_STR(mo_world_last_error(w), "body def was not initialised with mo_default_body_def()");
    }
    /* particles and joints */
    mo_particle_def pd = mo_default_particle_def();
    pd.mass = -2;
    mo_particle_id pid;
    CHECK(mo_particle_create(w, &pd, &pid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "particle mass must be finite and in [1e-12, 1e+20] kg, got -2");
    mo_joint_def jd = mo_default_joint_def();
    mo_joint_id jid;
    jd.type = MO_JOINT_REVOLUTE;
    jd.body_b = first;
    jd.enable_limit = true;
    jd.lower = 1.0;
    jd.upper = -1.0;
    CHECK(mo_joint_create(w, &jd, &jid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "revolute joint limits need lower <= upper, got 1 and -1");
    jd = mo_default_joint_def();
    jd.type = MO_JOINT_SPHERICAL;
    jd.body_b = first;
    jd.motor = MO_MOTOR_VELOCITY;
    CHECK(mo_joint_create(w, &jd, &jid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "spherical joint cannot have a motor (only revolute and prismatic joints)");

    /* setters */
    mo_body_id b1 = first;
    CHECK(mo_body_set_velocity(w, b1, (mo_vec3){NAN, 0, 0}, (mo_vec3){0, 0, 0}) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "body 1 velocity must be finite with components in [-1e+08, 1e+08] m/s and rad/s, got linear (nan, 0, "
              "0), angular (0, 0, 0)");
    CHECK(mo_body_apply_force(w, b1, (mo_vec3){0, INFINITY, 0}, (mo_vec3){0, 0, 0}) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_set_time_step(w, 0.0) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "world time_step must be in [1e-08, 1] s, got 0");
    mo_solver_settings ss = mo_world_solver(w);
    ss.max_iterations = 0;
    CHECK(mo_world_set_solver(w, &ss) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "solver max_iterations must be in [1, 100000], got 0");

    /* the world is unchanged by all of the above */
    CHECK(mo_world_state_hash(w) == h0);
    CHECK(mo_world_solver(w).max_iterations == mo_default_world_def().solver.max_iterations);
    mo_step_stats s1 = mo_world_last_stats(w);
    CHECK(s1.bodies == s0.bodies && s1.step == s0.step);
    CHECK(mo_world_time_step(w) == 1.0 / 120.0);
    mo_world_destroy(w);
}

/* a scene with joints, contacts and particles stepped with 1 and 2 threads */
static uint64_t run_scene(int threads, mo_solver_kind kind)
{
    mo_world_def wd = mo_default_world_def();
    wd.threads = threads;
    wd.solver.kind = kind;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) return 0;
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid;
    mo_body_create(w, &g, &gid);
    mo_body_id prev = {0, 0};
    for (int i = 0; i < 60; i++) {
        mo_body_def d = mo_default_body_def();
        d.shape.type = (i % 3) ? MO_SHAPE_SPHERE : MO_SHAPE_BOX;
        d.shape.radius = 0.1;
        d.shape.half_extents = (mo_vec3){0.1, 0.08, 0.06};
        d.position = (mo_vec3){0.13 * (i % 6), 0.17 * ((i / 6) % 3), 0.2 + 0.25 * (i / 18)};
        d.orientation = (mo_quat){1, 0.1 * (i % 2), 0.05, 0};
        d.angular_velocity = (mo_vec3){0.3, -0.2, 0.1 * i};
        mo_body_id b;
        mo_body_create(w, &d, &b);
        if (i % 5 == 1 && !mo_body_id_is_null(prev)) {
            mo_joint_def jd = mo_default_joint_def();
            jd.type = MO_JOINT_DISTANCE;
            jd.body_a = prev;
            jd.body_b = b;
            mo_joint_id j;
            mo_joint_create(w, &jd, &j);
        }
        prev = b;
    }
    for (int i = 0; i < 20; i++) {
        mo_particle_def pd = mo_default_particle_def();
        pd.position = (mo_vec3){-0.5 + 0.05 * i, -0.3, 0.2 + 0.01 * i};
        pd.radius = 0.02;
        mo_particle_id p;
        mo_particle_create(w, &pd, &p);
    }
    for (int s = 0; s < 120; s++) mo_world_step(w);
    uint64_t h = mo_world_state_hash(w);
    mo_world_destroy(w);
    return h;
}

static void test_determinism(void)
{
    for (int k = 0; k < 2; k++) {
        mo_solver_kind kind = k ? MO_SOLVER_JACOBI : MO_SOLVER_PGS;
        uint64_t h1 = run_scene(1, kind), h2 = run_scene(2, kind), h1b = run_scene(1, kind);
        CHECK(h1 != 0);
        CHECK(h1 == h1b);
        CHECK(h1 == h2);
        if (h1 != h2) fprintf(stderr, "  solver %d: hash 1 thread %016llx, 2 threads %016llx\n", k,
                              (unsigned long long)h1, (unsigned long long)h2);
    }
}

static void test_solver_switch(void)
{
    mo_world *w = new_world();
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid;
    mo_body_create(w, &g, &gid);
    mo_body_id b = add_box(w, 0, 0, 0.3);
    for (int s = 0; s < 240; s++) {
        mo_solver_settings ss = mo_world_solver(w);
        ss.kind = (s / 10) % 2 ? MO_SOLVER_JACOBI : MO_SOLVER_PGS;
        ss.friction = (s / 20) % 2 ? MO_FRICTION_BOX : MO_FRICTION_CONE;
        CHECK(mo_world_set_solver(w, &ss) == MO_OK);
        CHECK(mo_world_step(w) == MO_OK);
    }
    /* the box settles on its 0.3 half height whatever solver held it */
    mo_vec3 p;
    mo_body_position(w, b, &p);
    CHECK_NEAR(p.z, 0.3, 2e-3);
    CHECK_NEAR(p.x, 0.0, 1e-3);
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.contacts == 4);
    CHECK(st.rows == 12);
    CHECK(st.step == 239);
    mo_world_destroy(w);
}

/* worlds with no dynamic degree of freedom step (every solver), and time advances */
static void test_static_worlds(void)
{
    for (int k = MO_SOLVER_PGS; k < MO_SOLVER_COUNT; k++) {
        mo_world *w = new_world();
        mo_solver_settings ss = mo_world_solver(w);
        ss.kind = (mo_solver_kind)k;
        if (mo_world_set_solver(w, &ss) != MO_OK) { /* cholesky without CHOLMOD */
            mo_world_destroy(w);
            continue;
        }
        CHECK(mo_world_step(w) == MO_OK); /* empty */
        mo_body_def g = mo_default_body_def();
        g.type = MO_BODY_STATIC;
        g.shape.type = MO_SHAPE_PLANE;
        mo_body_id gid;
        CHECK(mo_body_create(w, &g, &gid) == MO_OK);
        for (int s = 0; s < 3; s++) CHECK(mo_world_step(w) == MO_OK);
        mo_step_stats st = mo_world_last_stats(w);
        CHECK(st.dofs == 0 && st.rows == 0 && st.contacts == 0 && st.nan_warnings == 0);
        CHECK_NEAR(mo_world_time(w), 4.0 / 120.0, 1e-15);
        mo_world_destroy(w);
    }
}

int main(void)
{
    test_defaults_and_world_errors();
    test_ids();
    test_bad_input();
    test_determinism();
    test_solver_switch();
    test_static_worlds();
    return check_result("test_api");
}
