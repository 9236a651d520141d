/* test_misuse.c: every function of moreau.h and debug_draw.h called as a
 * careless or hostile program would (issue 18): a NULL world, NULL outputs, a
 * destroyed id, an id of another world, values out of the stated ranges. Each
 * call must return the status its header promises with the exact sentence,
 * must not crash (this test also runs under ASan/UBSan in CI), and the world
 * must be left unchanged (the state hash and the counts before and after).
 * tests/api_coverage.py checks that every MO_API function of the public
 * headers is named in this file or in test_misuse_io.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"
#include "moreau/debug_draw.h"
#include "moreau/articulation.h"
#include "moreau/sleep.h"
#include "check.h"

typedef struct scene {
    mo_world *w;
    mo_body_id ground, box, box2;
    mo_shape_id box_shape;
    mo_joint_id joint;
    mo_particle_id particle;
    mo_fem_mesh_id mesh;
} scene;

static const mo_vec3 tet_nodes[4] = {{0, 0, 1}, {0.1, 0, 1}, {0, 0.1, 1}, {0, 0, 1.1}};
static const int tet[4] = {0, 1, 2, 3};

/* a one-tetrahedron FEM mesh of material mat at pos */
static mo_fem_mesh_def one_tet(const mo_fem_material_def *mat, mo_vec3 pos)
{
    mo_fem_mesh_def m = mo_default_fem_mesh_def();
    m.nodes = tet_nodes;
    m.node_count = 4;
    m.tets = tet;
    m.tet_count = 1;
    m.materials = mat;
    m.material_count = 1;
    m.position = pos;
    return m;
}

static void build(scene *s)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.kind = MO_SOLVER_NEWTON; /* FEM meshes need it */
    char err[256];
    if (mo_world_create(&wd, &s->w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    CHECK(mo_body_create(s->w, &g, &s->ground) == MO_OK);
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    b.position = (mo_vec3){0, 0, 0.1};
    CHECK(mo_body_create(s->w, &b, &s->box) == MO_OK);
    b.position = (mo_vec3){0.5, 0, 0.1};
    CHECK(mo_body_create(s->w, &b, &s->box2) == MO_OK);
    CHECK(mo_world_shapes(s->w, NULL, 0) == 3);
    mo_shape_id sh[3];
    mo_world_shapes(s->w, sh, 3);
    s->box_shape = sh[1];
    mo_joint_def j = mo_default_joint_def();
    j.type = MO_JOINT_REVOLUTE;
    j.body_a = s->box;
    j.body_b = s->box2;
    j.anchor_a = (mo_vec3){0.25, 0, 0};
    j.anchor_b = (mo_vec3){-0.25, 0, 0};
    j.axis_a = j.axis_b = (mo_vec3){0, 1, 0};
    CHECK(mo_joint_create(s->w, &j, &s->joint) == MO_OK);
    mo_particle_def p = mo_default_particle_def();
    p.position = (mo_vec3){2, 0, 1};
    CHECK(mo_particle_create(s->w, &p, &s->particle) == MO_OK);
    mo_fem_material_def mat = {1e5, 0.3, 1000, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def m = one_tet(&mat, (mo_vec3){-2, 0, 0});
    CHECK(mo_fem_mesh_create(s->w, &m, &s->mesh) == MO_OK);
    for (int i = 0; i < 3; i++) CHECK(mo_world_step(s->w) == MO_OK);
}

/* the status and, when w is not NULL, the exact sentence */
#define EXPECT(call, status, sentence)                                       \
    do {                                                                     \
        mo_status st_ = (call);                                              \
        CHECK(st_ == (status));                                              \
        if (st_ != (status))                                                 \
            fprintf(stderr, "  got %s: %s\n", mo_status_name(st_), mo_world_last_error(A)); \
        else if ((sentence) != NULL)                                         \
            CHECK_STR(mo_world_last_error(A), (sentence));                   \
    } while (0)
#define NULL_W(call) EXPECT(call, MO_ERR_INVALID_ARGUMENT, (const char *)NULL)
#define NULL_OUT(call, fn, param) EXPECT(call, MO_ERR_INVALID_ARGUMENT, fn ": " param " must not be NULL")

static char sbuf[8][256];
/* "<what> id (index i, generation g) does not name a live <noun>" or "... belongs to another world" */
static const char *stale(int k, const char *what, uint32_t index, uint32_t gen, const char *noun)
{
    if (noun)
        snprintf(sbuf[k], sizeof sbuf[k], "%s (index %u, generation %u) does not name a live %s", what, index, gen,
                 noun);
    else
        snprintf(sbuf[k], sizeof sbuf[k], "%s (index %u, generation %u) belongs to another world", what, index, gen);
    return sbuf[k];
}

/* ---- articulations (moreau/articulation.h): every call with a NULL world, NULL pointers, a destroyed id, an
 * id of another world (B) and values out of range; A unchanged (hash) ---- */
static void articulation_misuse(mo_world *A, mo_world *B)
{
    mo_link_def l[3];
    for (int i = 0; i < 3; i++) {
        l[i] = mo_default_link_def();
        l[i].parent = i - 1;
        l[i].joint_position = (mo_vec3){0, 0, -0.5};
        l[i].com = (mo_vec3){0, 0, -0.25};
    }
    l[0].name = "base";
    l[1].joint = MO_LINK_SPHERICAL;
    l[2].name = "tip";
    l[2].joint = MO_LINK_PRISMATIC;
    mo_articulation_def ad = mo_default_articulation_def();
    ad.links = l;
    ad.link_count = 3;
    ad.base_position = (mo_vec3){0, 5, 3};
    mo_articulation_id a, b, dead, out;
    CHECK(mo_articulation_create(A, &ad, &a) == MO_OK);
    CHECK(mo_articulation_create(B, &ad, &b) == MO_OK);
    CHECK(mo_articulation_create(A, &ad, &dead) == MO_OK);
    CHECK(mo_articulation_destroy(A, dead) == MO_OK);
    CHECK(a.index == b.index && a.generation != b.generation);
    CHECK(!mo_articulation_id_is_null(a) && mo_articulation_id_is_null((mo_articulation_id){0, 0}));
    const uint64_t h0 = mo_world_state_hash(A);
    char dead_s[160], foreign_s[160];
#define ART_STALE(fn, idv, what, fault) \
    (snprintf(what, sizeof what, "%s: articulation id (index %u, generation %u) %s", fn, (idv).index, (idv).generation, \
              fault), what)
    /* an id check of a call: NULL world, destroyed id, another world's id */
#define ART_IDS(fn, ...)                                                                        \
    do {                                                                                        \
        mo_articulation_id id_;                                                                 \
        id_ = a; (void)id_;                                                                     \
        NULL_W(fn(NULL, __VA_ARGS__));                                                          \
        id_ = dead;                                                                             \
        EXPECT(fn(A, __VA_ARGS__), MO_ERR_STALE_ID, ART_STALE(#fn, dead, dead_s, "does not name a live articulation"));              \
        id_ = b;                                                                                \
        EXPECT(fn(A, __VA_ARGS__), MO_ERR_STALE_ID, ART_STALE(#fn, b, foreign_s, "belongs to another world"));              \
    } while (0)
    double buf[64], q[7], qd[6];
    int n1, n2, n3;
    mo_vec3 v3, v3b;
    mo_quat qq;
    mo_joint_drive dr = mo_default_joint_drive(), drv;
    CHECK(isinf(dr.max_effort) && dr.stiffness == 0);

    /* create, destroy, validity, sizes, names */
    NULL_W(mo_articulation_create(NULL, &ad, &out));
    EXPECT(mo_articulation_create(A, NULL, &out), MO_ERR_INVALID_ARGUMENT, "mo_articulation_create: def must not be NULL");
    NULL_OUT(mo_articulation_create(A, &ad, NULL), "mo_articulation_create", "out");
    {
        mo_articulation_def bad = ad;
        bad.internal_value = 0;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "articulation def was not initialised with mo_default_articulation_def()");
        CHECK(mo_articulation_id_is_null(out));
        bad = ad;
        bad.links = NULL;
        NULL_OUT(mo_articulation_create(A, &bad, &out), "mo_articulation_create", "def->links");
        bad = ad;
        bad.link_count = 0;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link_count must be in [1, 10000], got 0");
        bad = ad;
        bad.base_orientation = (mo_quat){0, 0, 0, 0};
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: the base pose must be finite (position within 1e+09 m, orientation a non-zero "
               "quaternion), got (0, 5, 3), (0, 0, 0, 0)");
        bad = ad;
        bad.integrator = (mo_articulation_integrator)7;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: integrator 7 is not a known integrator (midpoint 0, euler 1)");
        mo_link_def m[3];
        memcpy(m, l, sizeof m);
        bad = ad;
        bad.links = m;
        m[1].internal_value = 0;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 1 def was not initialised with mo_default_link_def()");
        memcpy(m, l, sizeof m);
        m[2].mass = 1e300;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 2 (\"tip\"): mass must be 0 (a massless frame) or in [1e-12, 1e+20] kg, "
               "got 1e+300");
        memcpy(m, l, sizeof m);
        m[2].joint_position = (mo_vec3){0, NAN, 0};
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 2 (\"tip\"): joint_position must be finite with coordinates in [-1e+09, "
               "1e+09] m, got (0, nan, 0)");
        memcpy(m, l, sizeof m);
        m[0].axis = (mo_vec3){0, 0, 0};
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 0 (\"base\"): axis must be finite and non-zero, got (0, 0, 0)");
        memcpy(m, l, sizeof m);
        m[1].inertia.m[0][0] = -1;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 1: inertia is not positive definite (diagonal -1, 0.01, 0.01; leading "
               "minors -1, -0.01, -0.0001)");
        memcpy(m, l, sizeof m);
        m[2].parent = 2;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 2 (\"tip\"): parent 2 is not before the link (parents must come first: "
               "0 <= parent < 2)");
        memcpy(m, l, sizeof m);
        m[2].name = "base";
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 2 (\"base\"): the name is link 0's too (names must be unique)");
        memcpy(m, l, sizeof m);
        m[1].joint = MO_LINK_FREE;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 1: a free joint must be the root's (link 0), not a child's (parent 0)");
        memcpy(m, l, sizeof m);
        m[2].mass = 0;
        m[2].inertia = (mo_mat3){{{0}}};
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: the mass matrix is singular at the reference configuration (pivot 0 at dof 4 "
               "(link 2 (\"tip\"))): a massless link on a moving joint needs armature");
        m[2].armature = 0.1; /* a massless slider with a rotor: accepted */
        CHECK(mo_articulation_create(A, &bad, &out) == MO_OK && mo_articulation_destroy(A, out) == MO_OK);
        memcpy(m, l, sizeof m);
        m[1].name = "a_name_of_thirty_two_bytes_long_";
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 1: name \"a_name_of_thirty_two...\" has 32 bytes (at most 31)");
        memcpy(m, l, sizeof m);
        m[1].joint = (mo_link_joint)9;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 1: joint type 9 is not a known joint type");
        memcpy(m, l, sizeof m);
        m[0].damping = -1;
        EXPECT(mo_articulation_create(A, &bad, &out), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_create: link 0 (\"base\"): damping must be in [0, 1e+20] and armature in [0, 1e+30], "
               "got -1 and 0");
    }
    ART_IDS(mo_articulation_destroy, id_);
    CHECK(mo_articulation_is_valid(A, a) && !mo_articulation_is_valid(A, dead) && !mo_articulation_is_valid(A, b) &&
          !mo_articulation_is_valid(NULL, a));
    ART_IDS(mo_articulation_size, id_, &n1, &n2, &n3);
    CHECK(mo_articulation_size(A, a, &n1, &n2, &n3) == MO_OK && n1 == 3 && n2 == 6 && n3 == 5);
    CHECK(mo_articulation_size(A, a, NULL, NULL, NULL) == MO_OK);
    ART_IDS(mo_articulation_find_link, id_, "tip", &n1);
    NULL_OUT(mo_articulation_find_link(A, a, NULL, &n1), "mo_articulation_find_link", "name");
    NULL_OUT(mo_articulation_find_link(A, a, "tip", NULL), "mo_articulation_find_link", "out");
    EXPECT(mo_articulation_find_link(A, a, "elbow", &n1), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_find_link: articulation 1 has no link called \"elbow\"");
    CHECK(mo_articulation_find_link(A, a, "tip", &n1) == MO_OK && n1 == 2);
    ART_IDS(mo_articulation_joint_dofs, id_, 1, &n1, &n2, NULL, NULL);
    EXPECT(mo_articulation_joint_dofs(A, a, 3, &n1, &n2, NULL, NULL), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_joint_dofs: articulation 1 has no link 3 (links 0 to 2)");
    CHECK(mo_articulation_joint_dofs(A, a, 1, &n1, &n2, &n3, NULL) == MO_OK && n1 == 1 && n2 == 4 && n3 == 1);

    /* state */
    ART_IDS(mo_articulation_get_q, id_, buf, 64);
    NULL_OUT(mo_articulation_get_q(A, a, NULL, 64), "mo_articulation_get_q", "q");
    EXPECT(mo_articulation_get_q(A, a, buf, 5), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_get_q: count 5 is less than the 6 values of articulation 1's coordinates (nq)");
    ART_IDS(mo_articulation_get_qdot, id_, buf, 64);
    NULL_OUT(mo_articulation_get_qdot(A, a, NULL, 64), "mo_articulation_get_qdot", "qdot");
    EXPECT(mo_articulation_get_qdot(A, a, buf, -1), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_get_qdot: count -1 is less than the 5 values of articulation 1's velocities (nv)");
    CHECK(mo_articulation_get_q(A, a, buf, 64) == MO_OK);
    ART_IDS(mo_articulation_set_q, id_, buf, 64);
    NULL_OUT(mo_articulation_set_q(A, a, NULL, 64), "mo_articulation_set_q", "q");
    EXPECT(mo_articulation_set_q(A, a, buf, 2), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_q: count 2 is less than the 6 values of articulation 1's coordinates (nq)");
    {
        double bq[6] = {0, 0, 0, 0, 0, 1e300};
        EXPECT(mo_articulation_set_q(A, a, bq, 6), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_q: articulation 1 link 1: the joint's quaternion (0, 0, 0, 0) is zero");
        bq[1] = 1;
        EXPECT(mo_articulation_set_q(A, a, bq, 6), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_q: articulation 1 link 2 (\"tip\"): q[5] must be finite and within 1e+09, got "
               "1e+300");
        double bv[5] = {0, 0, NAN, 0, 0};
        ART_IDS(mo_articulation_set_qdot, id_, bv, 5);
        NULL_OUT(mo_articulation_set_qdot(A, a, NULL, 5), "mo_articulation_set_qdot", "qdot");
        EXPECT(mo_articulation_set_qdot(A, a, bv, 5), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_qdot: articulation 1 link 1: qdot[2] must be finite and within 1e+08, got nan");
        EXPECT(mo_articulation_set_qdot(A, a, bv, 4), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_qdot: count 4 is less than the 5 values of articulation 1's velocities (nv)");
    }
    ART_IDS(mo_articulation_get_joint, id_, 1, q, qd);
    CHECK(mo_articulation_get_joint(A, a, 1, NULL, NULL) == MO_OK);
    EXPECT(mo_articulation_get_joint(A, a, -1, q, qd), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_get_joint: articulation 1 has no link -1 (links 0 to 2)");
    CHECK(mo_articulation_get_joint(A, a, 1, q, qd) == MO_OK && q[0] == 1.0);
    ART_IDS(mo_articulation_set_joint, id_, 1, q, qd);
    EXPECT(mo_articulation_set_joint(A, a, 9, q, NULL), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_joint: articulation 1 has no link 9 (links 0 to 2)");
    {
        double bv[3] = {0, INFINITY, 0};
        EXPECT(mo_articulation_set_joint(A, a, 1, NULL, bv), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_joint: articulation 1 link 1: qdot[2] must be finite and within 1e+08, got inf");
    }

    /* inputs */
    {
        double t5[5] = {0, 0, 0, 0, 1e300};
        ART_IDS(mo_articulation_set_torques, id_, t5, 5);
        NULL_OUT(mo_articulation_set_torques(A, a, NULL, 5), "mo_articulation_set_torques", "tau");
        EXPECT(mo_articulation_set_torques(A, a, t5, 5), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_torques: articulation 1 link 2 (\"tip\"): tau[4] must be finite and within 1e+20, "
               "got 1e+300");
        ART_IDS(mo_articulation_set_joint_torque, id_, 2, t5);
        NULL_OUT(mo_articulation_set_joint_torque(A, a, 2, NULL), "mo_articulation_set_joint_torque", "tau");
        EXPECT(mo_articulation_set_joint_torque(A, a, 2, t5 + 4), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_joint_torque: articulation 1 link 2 (\"tip\"): tau[4] must be finite and within "
               "1e+20, got 1e+300");
        EXPECT(mo_articulation_set_joint_torque(A, a, 3, t5), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_set_joint_torque: articulation 1 has no link 3 (links 0 to 2)");
        ART_IDS(mo_articulation_clear_torques, id_);
    }
    ART_IDS(mo_articulation_set_drive, id_, 0, &dr);
    NULL_OUT(mo_articulation_set_drive(A, a, 0, NULL), "mo_articulation_set_drive", "drive");
    EXPECT(mo_articulation_set_drive(A, a, 1, &dr), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_drive: articulation 1 link 1 has a spherical joint: drives are for revolute and "
           "prismatic joints");
    EXPECT(mo_articulation_set_drive(A, a, 5, &dr), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_drive: articulation 1 has no link 5 (links 0 to 2)");
    drv = dr;
    drv.max_effort = 0;
    EXPECT(mo_articulation_set_drive(A, a, 0, &drv), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_drive: articulation 1 link 0 (\"base\"): the drive needs stiffness and damping in [0, "
           "1e+20], |target_position| <= 1e+09, |target_velocity| <= 1e+08, |torque| <= 1e+20, max_effort > 0; got "
           "0, 0, 0, 0, 0, 0");
    drv = dr;
    drv.stiffness = NAN;
    EXPECT(mo_articulation_set_drive(A, a, 2, &drv), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_drive: articulation 1 link 2 (\"tip\"): the drive needs stiffness and damping in [0, "
           "1e+20], |target_position| <= 1e+09, |target_velocity| <= 1e+08, |torque| <= 1e+20, max_effort > 0; got "
           "nan, 0, 0, 0, 0, inf");
    ART_IDS(mo_articulation_drive, id_, 0, &drv);
    NULL_OUT(mo_articulation_drive(A, a, 0, NULL), "mo_articulation_drive", "out");
    EXPECT(mo_articulation_drive(A, a, 3, &drv), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_drive: articulation 1 has no link 3 (links 0 to 2)");
    CHECK(mo_articulation_drive(A, a, 1, &drv) == MO_OK && isinf(drv.max_effort)); /* spherical: none */
    ART_IDS(mo_articulation_set_joint_damping, id_, 0, 1.0);
    EXPECT(mo_articulation_set_joint_damping(A, a, 0, -2.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_joint_damping: articulation 1 link 0 (\"base\"): damping must be in [0, 1e+20], got -2");
    EXPECT(mo_articulation_set_joint_damping(A, a, 4, 1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_joint_damping: articulation 1 has no link 4 (links 0 to 2)");

    /* limits, dry friction, constraint forces, link bodies */
    ART_IDS(mo_articulation_set_limits, id_, 0, -1.0, 1.0);
    EXPECT(mo_articulation_set_limits(A, a, 1, -1.0, 1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_limits: articulation 1 link 1 has a spherical joint: limits are for revolute and "
           "prismatic joints");
    EXPECT(mo_articulation_set_limits(A, a, 0, 1.0, -1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_limits: articulation 1 link 0 (\"base\"): limits need lower <= upper, each within "
           "1e+09 or -inf / inf (no bound), got 1 and -1");
    EXPECT(mo_articulation_set_limits(A, a, 0, NAN, 1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_limits: articulation 1 link 0 (\"base\"): limits need lower <= upper, each within "
           "1e+09 or -inf / inf (no bound), got nan and 1");
    EXPECT(mo_articulation_set_limits(A, a, 0, -1.0, 1e300), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_limits: articulation 1 link 0 (\"base\"): limits need lower <= upper, each within "
           "1e+09 or -inf / inf (no bound), got -1 and 1e+300");
    ART_IDS(mo_articulation_limits, id_, 0, &q[0], &q[1]);
    EXPECT(mo_articulation_limits(A, a, 3, &q[0], &q[1]), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_limits: articulation 1 has no link 3 (links 0 to 2)");
    CHECK(mo_articulation_limits(A, a, 0, &q[0], &q[1]) == MO_OK && q[0] == -INFINITY && q[1] == INFINITY);
    ART_IDS(mo_articulation_set_cone_limit, id_, 1, 0.5);
    EXPECT(mo_articulation_set_cone_limit(A, a, 0, 0.5), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_cone_limit: articulation 1 link 0 (\"base\") has a revolute joint: cone limits are "
           "for spherical joints");
    EXPECT(mo_articulation_set_cone_limit(A, a, 1, 3.5), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_cone_limit: articulation 1 link 1: the cone limit must be in [0, pi] rad or inf "
           "(none), got 3.5");
    EXPECT(mo_articulation_set_cone_limit(A, a, 1, NAN), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_cone_limit: articulation 1 link 1: the cone limit must be in [0, pi] rad or inf "
           "(none), got nan");
    EXPECT(mo_articulation_set_cone_limit(A, a, 3, 0.5), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_cone_limit: articulation 1 has no link 3 (links 0 to 2)");
    ART_IDS(mo_articulation_cone_limit, id_, 1, &q[0]);
    NULL_OUT(mo_articulation_cone_limit(A, a, 1, NULL), "mo_articulation_cone_limit", "angle");
    EXPECT(mo_articulation_cone_limit(A, a, 2, &q[0]), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_cone_limit: articulation 1 link 2 (\"tip\") has a prismatic joint: cone limits are for "
           "spherical joints");
    CHECK(mo_articulation_cone_limit(A, a, 1, &q[0]) == MO_OK && q[0] == INFINITY);
    ART_IDS(mo_articulation_set_joint_friction, id_, 0, 1.0);
    EXPECT(mo_articulation_set_joint_friction(A, a, 0, -1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_joint_friction: articulation 1 link 0 (\"base\"): friction must be in [0, 1e+20], got "
           "-1");
    EXPECT(mo_articulation_set_joint_friction(A, a, 1, 1.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_joint_friction: articulation 1 link 1 has a spherical joint: dry friction rows are "
           "for revolute and prismatic joints");
    ART_IDS(mo_articulation_set_mimic, id_, 2, 0, 1.0, 0.0);
    EXPECT(mo_articulation_set_mimic(A, a, 2, 1, 1.0, 0.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_mimic: articulation 1 link 1 has a spherical joint: mimics are for revolute and "
           "prismatic joints");
    EXPECT(mo_articulation_set_mimic(A, a, 2, 0, NAN, 0.0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_set_mimic: articulation 1 link 2 (\"tip\"): the mimic needs a finite multiplier within "
           "1e+20 and offset within 1e+09, got nan and 0");
    ART_IDS(mo_articulation_constraint_forces, id_, buf, 64);
    NULL_OUT(mo_articulation_constraint_forces(A, a, NULL, 5), "mo_articulation_constraint_forces", "tau");
    EXPECT(mo_articulation_constraint_forces(A, a, buf, 4), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_constraint_forces: count 4 is less than the 5 values of articulation 1's velocities (nv)");
    {
        mo_body_id lb;
        ART_IDS(mo_articulation_link_body, id_, 0, &lb);
        NULL_OUT(mo_articulation_link_body(A, a, 0, NULL), "mo_articulation_link_body", "out");
        EXPECT(mo_articulation_link_body(A, a, 3, &lb), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_link_body: articulation 1 has no link 3 (links 0 to 2)");
        uint32_t grp = 7;
        ART_IDS(mo_articulation_set_collision_group, id_, 5u);
        ART_IDS(mo_articulation_collision_group, id_, &grp);
        NULL_OUT(mo_articulation_collision_group(A, a, NULL), "mo_articulation_collision_group", "out");
        CHECK(grp == 7 && mo_articulation_collision_group(A, a, &grp) == MO_OK && grp == 0);
    }

    /* queries */
    ART_IDS(mo_articulation_link_pose, id_, 2, &v3, &qq);
    EXPECT(mo_articulation_link_pose(A, a, 3, &v3, &qq), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_link_pose: articulation 1 has no link 3 (links 0 to 2)");
    CHECK(mo_articulation_link_pose(A, a, 2, &v3, NULL) == MO_OK);
    CHECK(v3.x == 0 && v3.y == 5 && v3.z == 3 - 1.5);
    ART_IDS(mo_articulation_link_velocity, id_, 2, &v3, &v3b);
    EXPECT(mo_articulation_link_velocity(A, a, -3, &v3, &v3b), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_link_velocity: articulation 1 has no link -3 (links 0 to 2)");
    CHECK(mo_articulation_link_velocity(A, a, 2, NULL, NULL) == MO_OK);
    ART_IDS(mo_articulation_joint_wrench, id_, 2, &v3, &v3b);
    EXPECT(mo_articulation_joint_wrench(A, a, 3, &v3, &v3b), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_joint_wrench: articulation 1 has no link 3 (links 0 to 2)");
    CHECK(mo_articulation_joint_wrench(A, a, 2, NULL, NULL) == MO_OK);
    ART_IDS(mo_articulation_mass_matrix, id_, buf, 64);
    NULL_OUT(mo_articulation_mass_matrix(A, a, NULL, 25), "mo_articulation_mass_matrix", "M");
    EXPECT(mo_articulation_mass_matrix(A, a, buf, 24), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_mass_matrix: count 24 is less than the 25 values of articulation 1's mass matrix (nv x "
           "nv)");
    ART_IDS(mo_articulation_bias_forces, id_, buf, 64);
    NULL_OUT(mo_articulation_bias_forces(A, a, NULL, 5), "mo_articulation_bias_forces", "c");
    EXPECT(mo_articulation_bias_forces(A, a, buf, 4), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_bias_forces: count 4 is less than the 5 values of articulation 1's bias forces (nv)");
    ART_IDS(mo_articulation_gravity_compensation, id_, buf, 64);
    NULL_OUT(mo_articulation_gravity_compensation(A, a, NULL, 5), "mo_articulation_gravity_compensation", "tau");
    EXPECT(mo_articulation_gravity_compensation(A, a, buf, 0), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_gravity_compensation: count 0 is less than the 5 values of articulation 1's torques (nv)");
    {
        double acc[5] = {0, 0, 0, NAN, 0};
        ART_IDS(mo_articulation_inverse_dynamics, id_, acc, buf, 64);
        NULL_OUT(mo_articulation_inverse_dynamics(A, a, NULL, buf, 5), "mo_articulation_inverse_dynamics", "qddot");
        NULL_OUT(mo_articulation_inverse_dynamics(A, a, acc, NULL, 5), "mo_articulation_inverse_dynamics", "tau");
        EXPECT(mo_articulation_inverse_dynamics(A, a, acc, buf, 5), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_inverse_dynamics: qddot[3] must be finite, got nan");
        EXPECT(mo_articulation_inverse_dynamics(A, a, acc, buf, 3), MO_ERR_INVALID_ARGUMENT,
               "mo_articulation_inverse_dynamics: count 3 is less than the 5 values of articulation 1's torques (nv)");
    }
    ART_IDS(mo_articulation_jacobian, id_, 2, v3, buf, buf + 32, 32);
    EXPECT(mo_articulation_jacobian(A, a, 2, (mo_vec3){0, 0, 1e300}, buf, NULL, 15), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_jacobian: point must be finite with coordinates in [-1e+09, 1e+09] m, got (0, 0, "
           "1e+300)");
    EXPECT(mo_articulation_jacobian(A, a, 2, v3, buf, NULL, 14), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_jacobian: count 14 is less than the 15 values of articulation 1's Jacobian (3 x nv)");
    EXPECT(mo_articulation_jacobian(A, a, 7, v3, buf, NULL, 15), MO_ERR_INVALID_ARGUMENT,
           "mo_articulation_jacobian: articulation 1 has no link 7 (links 0 to 2)");
    CHECK(mo_articulation_jacobian(A, a, 2, v3, NULL, NULL, 0) == MO_OK); /* no outputs: no count needed */
    ART_IDS(mo_articulation_energy, id_, &q[0], &q[1]);
    ART_IDS(mo_articulation_iterations, id_, &n1);
    NULL_OUT(mo_articulation_iterations(A, a, NULL), "mo_articulation_iterations", "out");
    CHECK(mo_articulation_energy(A, a, NULL, NULL) == MO_OK);

    /* A unchanged; then A and B step alike */
    CHECK(mo_world_state_hash(A) == h0);
    CHECK(mo_world_step(A) == MO_OK && mo_world_step(B) == MO_OK);
    CHECK(mo_world_state_hash(A) == mo_world_state_hash(B));
#undef ART_IDS
#undef ART_STALE
}

int main(void)
{
    scene sa, sb;
    build(&sa);
    build(&sb); /* the same scene: its ids have the same indices and counters, another world's tag */
    mo_world *A = sa.w;
    const uint64_t h0 = mo_world_state_hash(A);
    const int nb0 = mo_world_bodies(A, NULL, 0), ns0 = mo_world_shapes(A, NULL, 0);
    CHECK(sa.box.index == sb.box.index && sa.box.generation != sb.box.generation);

    /* dead ids of A: objects created and destroyed */
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){5, 5, 5};
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.1;
    mo_body_id dead_body;
    CHECK(mo_body_create(A, &bd, &dead_body) == MO_OK);
    mo_shape_def shd = mo_default_shape_def();
    shd.type = MO_SHAPE_SPHERE;
    shd.radius = 0.1;
    mo_shape_id dead_shape;
    CHECK(mo_shape_create(A, sa.box2, &shd, &dead_shape) == MO_OK);
    CHECK(mo_shape_destroy(A, dead_shape) == MO_OK);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_SPHERICAL;
    jd.body_b = dead_body;
    mo_joint_id dead_joint;
    CHECK(mo_joint_create(A, &jd, &dead_joint) == MO_OK);
    CHECK(mo_body_destroy(A, dead_body) == MO_OK); /* takes the joint with it */
    CHECK(!mo_joint_is_valid(A, dead_joint));
    mo_particle_def pd = mo_default_particle_def();
    mo_particle_id dead_particle;
    CHECK(mo_particle_create(A, &pd, &dead_particle) == MO_OK);
    CHECK(mo_particle_destroy(A, dead_particle) == MO_OK);
    CHECK(mo_world_state_hash(A) == h0);

    mo_vec3 v3, zero = {0, 0, 0};
    mo_quat q;
    double d;
    uint32_t u32;
    int n1, n2;
    mo_body_id bid;
    mo_particle_id pid;
    mo_shape_info info;
    mo_solver_settings ss = mo_default_solver_settings();

    /* ---- world: NULL world (no sentence: there is no world to hold one) ---- */
    mo_world_destroy(NULL);
    CHECK_STR(mo_world_last_error(NULL), "mo_world_last_error: world is NULL");
    mo_world_set_error(NULL, "ignored");
    NULL_W(mo_world_set_gravity(NULL, zero));
    v3 = mo_world_gravity(NULL);
    CHECK(v3.x == 0 && v3.y == 0 && v3.z == 0);
    NULL_W(mo_world_set_time_step(NULL, 0.01));
    CHECK(mo_world_time_step(NULL) == 0.0);
    NULL_W(mo_world_set_solver(NULL, &ss));
    CHECK(mo_world_solver(NULL).kind == mo_default_solver_settings().kind);
    NULL_W(mo_world_set_backend(NULL, MO_BACKEND_CPU));
    CHECK(mo_world_backend(NULL) == MO_BACKEND_CPU);
    CHECK_STR(mo_world_device_name(NULL), "");
    NULL_W(mo_world_set_threads(NULL, 1));
    NULL_W(mo_world_set_substeps(NULL, 1));
    CHECK(mo_world_substeps(NULL) == 0);
    CHECK(mo_world_time(NULL) == 0.0);
    NULL_W(mo_world_step(NULL));
    CHECK(mo_world_last_stats(NULL).step == 0 && mo_world_last_stats(NULL).bodies == 0);
    CHECK(mo_world_state_hash(NULL) == 0);
    {
        const char *as[1] = {"gravity=0,0,-1"};
        char out[64];
        NULL_W(mo_world_set_settings(NULL, as, 1));
        NULL_W(mo_world_get_setting(NULL, "gravity", out, sizeof out));
        EXPECT(mo_world_set_settings(A, NULL, 1), MO_ERR_INVALID_ARGUMENT,
               "mo_world_set_settings: assignments must not be NULL when count is 1");
        EXPECT(mo_world_set_settings(A, as, -1), MO_ERR_INVALID_ARGUMENT,
               "mo_world_set_settings: count must be >= 0, got -1");
        NULL_OUT(mo_world_get_setting(A, NULL, out, sizeof out), "mo_world_get_setting", "name");
        NULL_OUT(mo_world_get_setting(A, "gravity", NULL, 10), "mo_world_get_setting", "out");
    }
    CHECK(mo_world_bodies(NULL, NULL, 0) == 0);
    CHECK(mo_world_shapes(NULL, NULL, 0) == 0);
    CHECK(mo_world_fem_meshes(NULL, NULL, 0) == 0);
    CHECK(mo_world_articulations(NULL, NULL, 0) == 0);
    CHECK(mo_world_contacts(NULL, NULL, 0) == 0);
    CHECK(mo_world_contact_residuals(NULL, NULL, 0) == 0);
    CHECK(!mo_world_raycast(NULL, zero, (mo_vec3){0, 0, -1}, 1.0, NULL));
    CHECK(mo_world_query_aabb(NULL, zero, zero, NULL, 0) == 0);
    CHECK(mo_world_bodies(A, &bid, -5) == nb0); /* cap < 0 writes none */

    /* ---- world: values out of range ---- */
    EXPECT(mo_world_set_gravity(A, (mo_vec3){0, NAN, 0}), MO_ERR_INVALID_ARGUMENT,
           "world gravity must be finite with components in [-1e+08, 1e+08] m/s^2, got (0, nan, 0)");
    EXPECT(mo_world_set_time_step(A, 0.0), MO_ERR_INVALID_ARGUMENT,
           "world time_step must be in [1e-08, 1] s, got 0");
    EXPECT(mo_world_set_time_step(A, 1e9), MO_ERR_INVALID_ARGUMENT,
           "world time_step must be in [1e-08, 1] s, got 1e+09");
    EXPECT(mo_world_set_time_step(A, 1e-300), MO_ERR_INVALID_ARGUMENT,
           "world time_step must be in [1e-08, 1] s, got 1e-300");
    EXPECT(mo_world_set_time_step(A, NAN), MO_ERR_INVALID_ARGUMENT,
           "world time_step must be in [1e-08, 1] s, got nan");
    EXPECT(mo_world_set_solver(A, NULL), MO_ERR_INVALID_ARGUMENT, "mo_world_set_solver: settings must not be NULL");
    ss = mo_world_solver(A);
    ss.max_iterations = 1000000;
    EXPECT(mo_world_set_solver(A, &ss), MO_ERR_INVALID_ARGUMENT,
           "solver max_iterations must be in [1, 100000], got 1000000");
    ss = mo_world_solver(A);
    ss.newton.linear_iterations = 300000;
    EXPECT(mo_world_set_solver(A, &ss), MO_ERR_INVALID_ARGUMENT,
           "Newton linear_iterations must be in [1, 100000], got 300000");
    ss = mo_world_solver(A);
    ss.coulomb_updates = 1 << 30;
    EXPECT(mo_world_set_solver(A, &ss), MO_ERR_INVALID_ARGUMENT,
           "solver coulomb_updates must be in [0, 1000], got 1073741824");
    EXPECT(mo_world_set_backend(A, (mo_backend)99), MO_ERR_INVALID_ARGUMENT, "world backend 99 is not a known backend (cpu, cuda, auto)");
    {
        char want[160];
        int cap = mo_world_max_threads();
        CHECK(cap >= 4);
        snprintf(want, sizeof want, "world threads must be in [0, %d] (4 per core of this machine), got 100000", cap);
        EXPECT(mo_world_set_threads(A, 100000), MO_ERR_INVALID_ARGUMENT, want);
        snprintf(want, sizeof want, "world threads must be in [0, %d] (4 per core of this machine), got -1", cap);
        EXPECT(mo_world_set_threads(A, -1), MO_ERR_INVALID_ARGUMENT, want);
    }
    EXPECT(mo_world_set_substeps(A, 0), MO_ERR_INVALID_ARGUMENT, "world substeps must be in [1, 1000], got 0");
    CHECK(mo_world_query_aabb(A, (mo_vec3){NAN, -1, -1}, (mo_vec3){1, 1, 1}, NULL, 0) == 0);
    CHECK(mo_world_query_aabb(A, (mo_vec3){-1, -1, -1}, (mo_vec3){1, NAN, 1}, NULL, 0) == 0);
    CHECK(mo_world_query_aabb(A, (mo_vec3){-INFINITY, -INFINITY, -INFINITY},
                              (mo_vec3){INFINITY, INFINITY, INFINITY}, NULL, 0) == ns0);
    CHECK(!mo_world_raycast(A, (mo_vec3){NAN, 0, 1}, (mo_vec3){0, 0, -1}, 10.0, NULL));
    CHECK(mo_setting_at(-1) == NULL && mo_setting_at(mo_setting_count()) == NULL);
    CHECK(mo_setting_find(NULL) == NULL && !mo_setting_is_group(NULL));
    {
        char out[32], err[128];
        mo_world_def wd = mo_default_world_def();
        CHECK(mo_world_def_set(NULL, "gravity", "0,0,0", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        CHECK_STR(err, "mo_world_def_set: def must not be NULL");
        CHECK(mo_world_def_set(&wd, "gravity", NULL, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        CHECK_STR(err, "mo_world_def_set: value must not be NULL");
        CHECK(mo_world_def_get(NULL, "gravity", out, sizeof out) == MO_ERR_INVALID_ARGUMENT);
        CHECK(mo_world_def_get(&wd, "gravity", NULL, 4) == MO_ERR_INVALID_ARGUMENT);
        mo_world *w2 = (mo_world *)&wd; /* not a world: only its pointer is overwritten */
        CHECK(mo_world_create(NULL, &w2, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        CHECK(w2 == NULL);
        CHECK(mo_world_create(&wd, NULL, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        wd.threads = 100000;
        CHECK(mo_world_create(&wd, &w2, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && w2 == NULL);
        CHECK(strncmp(err, "world threads must be in [0, ", 29) == 0);
        wd = mo_default_world_def();
        wd.time_step = 1e9;
        CHECK(mo_world_create(&wd, &w2, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && w2 == NULL);
        CHECK_STR(err, "world time_step must be in [1e-08, 1] s, got 1e+09");
    }
    CHECK(mo_status_name((mo_status)1234) != NULL);
    CHECK_STR(mo_status_name((mo_status)1234), "MO_ERR_UNKNOWN");
    CHECK_STR(mo_status_name(MO_ERR_NOT_FINITE), "MO_ERR_NOT_FINITE");
    CHECK(mo_solver_name((mo_solver_kind)-1) != NULL && mo_backend_name((mo_backend)77) != NULL);
    CHECK(!mo_solver_from_name(NULL, NULL) && !mo_backend_from_name(NULL, NULL));
    CHECK(!mo_solver_available((mo_solver_kind)1000) && mo_solver_caps((mo_solver_kind)1000) == 0);
    {
        char err[128];
        CHECK(mo_gpu_selftest(0, &d, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        CHECK(mo_gpu_selftest(16, NULL, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        mo_status st = mo_gpu_probe(NULL, NULL, 0); /* info and err may be NULL */
        CHECK(st == MO_OK || st == MO_ERR_UNSUPPORTED);
    }

    /* ---- bodies ---- */
    mo_body_def good = mo_default_body_def();
    NULL_W(mo_body_create(NULL, &good, &bid));
    EXPECT(mo_body_create(A, NULL, &bid), MO_ERR_INVALID_ARGUMENT, "mo_body_create: def must not be NULL");
    NULL_OUT(mo_body_create(A, &good, NULL), "mo_body_create", "out");
    {
        mo_body_def b = mo_default_body_def();
        b.mass = 1e300;
        EXPECT(mo_body_create(A, &b, &bid), MO_ERR_INVALID_ARGUMENT,
               "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got 1e+300");
        b = mo_default_body_def();
        b.mass = 1e-300;
        EXPECT(mo_body_create(A, &b, &bid), MO_ERR_INVALID_ARGUMENT,
               "body mass must be finite and in [1e-12, 1e+20] kg for a dynamic body, got 1e-300");
        b = mo_default_body_def();
        b.angular_velocity = (mo_vec3){1e300, 0, 0};
        EXPECT(mo_body_create(A, &b, &bid), MO_ERR_INVALID_ARGUMENT,
               "body velocity must be finite with components in [-1e+08, 1e+08] m/s and rad/s, got linear (0, 0, "
               "0), angular (1e+300, 0, 0)");
        b = mo_default_body_def();
        b.position = (mo_vec3){1e300, 0, 0};
        EXPECT(mo_body_create(A, &b, &bid), MO_ERR_INVALID_ARGUMENT,
               "body position must be finite with coordinates in [-1e+09, 1e+09] m, got (1e+300, 0, 0)");
        b = mo_default_body_def();
        b.inertia = (mo_mat3){{{1e300, 0, 0}, {0, 1e300, 0}, {0, 0, 1e300}}};
        EXPECT(mo_body_create(A, &b, &bid), MO_ERR_INVALID_ARGUMENT,
               "body inertia must be finite with entries in [-1e+30, 1e+30] kg m^2, got a diagonal of (1e+300, "
               "1e+300, 1e+300)");
    }
    NULL_W(mo_body_destroy(NULL, sa.box));
    EXPECT(mo_body_destroy(A, dead_body), MO_ERR_STALE_ID,
           stale(0, "body id", dead_body.index, dead_body.generation, "body"));
    EXPECT(mo_body_destroy(A, sb.box), MO_ERR_STALE_ID, stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    CHECK(mo_body_is_valid(A, sa.box) && !mo_body_is_valid(A, sb.box) && !mo_body_is_valid(NULL, sa.box));
    CHECK(!mo_body_is_valid(A, dead_body));
#define BODY_GETTER(fn, out)                                                                                      \
    NULL_W(fn(NULL, sa.box, out));                                                                                \
    NULL_OUT(fn(A, sa.box, NULL), #fn, "out");                                                                    \
    EXPECT(fn(A, dead_body, out), MO_ERR_STALE_ID, stale(0, "body id", dead_body.index, dead_body.generation, "body")); \
    EXPECT(fn(A, sb.box, out), MO_ERR_STALE_ID, stale(0, "body id", sb.box.index, sb.box.generation, NULL))
    BODY_GETTER(mo_body_position, &v3);
    BODY_GETTER(mo_body_orientation, &q);
    BODY_GETTER(mo_body_linear_velocity, &v3);
    BODY_GETTER(mo_body_angular_velocity, &v3);
    BODY_GETTER(mo_body_kinetic_energy, &d);
    BODY_GETTER(mo_body_collision_group, &u32);
    /* pair exclusion: NULL world, NULL out, stale and foreign ids (either side), the same body twice */
    {
        bool on = true;
        NULL_W(mo_world_set_pair_collision(NULL, sa.box, sa.box2, false));
        NULL_W(mo_world_pair_collision(NULL, sa.box, sa.box2, &on));
        NULL_OUT(mo_world_pair_collision(A, sa.box, sa.box2, NULL), "mo_world_pair_collision", "enabled");
        char pb[512];
        snprintf(pb, sizeof pb, "mo_world_set_pair_collision: body a %.200s",
                 stale(0, "id", dead_body.index, dead_body.generation, "body") + 3);
        EXPECT(mo_world_set_pair_collision(A, dead_body, sa.box2, false), MO_ERR_STALE_ID, pb);
        snprintf(pb, sizeof pb, "mo_world_pair_collision: body b %.200s",
                 stale(0, "id", sb.box.index, sb.box.generation, NULL) + 3);
        EXPECT(mo_world_pair_collision(A, sa.box, sb.box, &on), MO_ERR_STALE_ID, pb);
        EXPECT(mo_world_set_pair_collision(A, sa.box, sa.box, true), MO_ERR_INVALID_ARGUMENT,
               "mo_world_set_pair_collision: body a and body b are the same body (index 2): a body's own shapes "
               "never collide");
        CHECK(mo_world_excluded_pairs(NULL, NULL, NULL, 0) == 0);
        CHECK(mo_world_excluded_pairs(A, NULL, NULL, -1) == 0);
        CHECK(on); /* nothing written on failure */
    }
    NULL_W(mo_body_world_point(NULL, sa.box, zero, &v3));
    NULL_OUT(mo_body_world_point(A, sa.box, zero, NULL), "mo_body_world_point", "out");
    EXPECT(mo_body_world_point(A, sb.box, zero, &v3), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    EXPECT(mo_body_world_point(A, sa.box, (mo_vec3){NAN, 0, 0}, &v3), MO_ERR_INVALID_ARGUMENT,
           "mo_body_world_point: local point must be finite with coordinates in [-1e+09, 1e+09] m, got (nan, 0, 0)");
    NULL_W(mo_body_mass(NULL, sa.box, &d, NULL));
    CHECK(mo_body_mass(A, sa.box, NULL, NULL) == MO_OK); /* either output may be NULL */
    EXPECT(mo_body_mass(A, sb.box, &d, NULL), MO_ERR_STALE_ID, stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    mo_quat id_q = {1, 0, 0, 0};
    NULL_W(mo_body_set_pose(NULL, sa.box, zero, id_q));
    EXPECT(mo_body_set_pose(A, sb.box, zero, id_q), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    EXPECT(mo_body_set_pose(A, sa.box, (mo_vec3){0, 0, 1e300}, id_q), MO_ERR_INVALID_ARGUMENT,
           "body 2 position must be finite with coordinates in [-1e+09, 1e+09] m, got (0, 0, 1e+300)");
    EXPECT(mo_body_set_pose(A, sa.box, zero, (mo_quat){0, 0, 0, 0}), MO_ERR_INVALID_ARGUMENT,
           "body 2 orientation must be a finite non-zero quaternion, got (0, 0, 0, 0)");
    NULL_W(mo_body_set_velocity(NULL, sa.box, zero, zero));
    EXPECT(mo_body_set_velocity(A, dead_body, zero, zero), MO_ERR_STALE_ID,
           stale(0, "body id", dead_body.index, dead_body.generation, "body"));
    EXPECT(mo_body_set_velocity(A, sa.box, zero, (mo_vec3){0, 0, 1e160}), MO_ERR_INVALID_ARGUMENT,
           "body 2 velocity must be finite with components in [-1e+08, 1e+08] m/s and rad/s, got linear (0, 0, "
           "0), angular (0, 0, 1e+160)");
    bool asleep;
    NULL_W(mo_body_is_sleeping(NULL, sa.box, &asleep));
    NULL_OUT(mo_body_is_sleeping(A, sa.box, NULL), "mo_body_is_sleeping", "out");
    EXPECT(mo_body_is_sleeping(A, sb.box, &asleep), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    NULL_W(mo_body_wake(NULL, sa.box));
    EXPECT(mo_body_wake(A, dead_body), MO_ERR_STALE_ID, stale(0, "body id", dead_body.index, dead_body.generation, "body"));
    NULL_W(mo_body_set_sleep_allowed(NULL, sa.box, true));
    EXPECT(mo_body_set_sleep_allowed(A, sb.box, false), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    NULL_W(mo_body_apply_force(NULL, sa.box, zero, zero));
    EXPECT(mo_body_apply_force(A, sb.box, zero, zero), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    EXPECT(mo_body_apply_force(A, sa.box, (mo_vec3){1e300, 0, 0}, zero), MO_ERR_INVALID_ARGUMENT,
           "body 2 force must be finite with components in [-1e+20, 1e+20] N and N m, got force (1e+300, 0, "
           "0), torque (0, 0, 0)");
    NULL_W(mo_body_apply_force_at(NULL, sa.box, zero, zero));
    EXPECT(mo_body_apply_force_at(A, sb.box, zero, zero), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));
    EXPECT(mo_body_apply_force_at(A, sa.box, zero, (mo_vec3){0, 1e300, 0}), MO_ERR_INVALID_ARGUMENT,
           "body 2 application point must be finite with coordinates in [-1e+09, 1e+09] m, got (0, 1e+300, 0)");
    NULL_W(mo_body_set_mass_from_shapes(NULL, sa.box));
    EXPECT(mo_body_set_mass_from_shapes(A, sb.box), MO_ERR_STALE_ID,
           stale(0, "body id", sb.box.index, sb.box.generation, NULL));

    /* ---- shapes ---- */
    mo_shape_id shid;
    mo_shape_def sd = mo_default_shape_def();
    sd.type = MO_SHAPE_SPHERE;
    sd.radius = 0.05;
    NULL_W(mo_shape_create(NULL, sa.box, &sd, &shid));
    EXPECT(mo_shape_create(A, sa.box, NULL, &shid), MO_ERR_INVALID_ARGUMENT, "mo_shape_create: def must not be NULL");
    NULL_OUT(mo_shape_create(A, sa.box, &sd, NULL), "mo_shape_create", "out");
    EXPECT(mo_shape_create(A, sb.box, &sd, &shid), MO_ERR_STALE_ID,
           stale(0, "shape body", sb.box.index, sb.box.generation, NULL));
    EXPECT(mo_shape_create(A, dead_body, &sd, &shid), MO_ERR_STALE_ID,
           stale(0, "shape body", dead_body.index, dead_body.generation, "body"));
    sd.radius = 1e300;
    EXPECT(mo_shape_create(A, sa.box, &sd, &shid), MO_ERR_INVALID_ARGUMENT, "sphere radius must be in (0, 1e+09] m, got 1e+300");
    sd.radius = 0.05;
    {
        mo_vec3 pts[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1e300}};
        mo_shape_def hd = mo_default_shape_def();
        hd.type = MO_SHAPE_CONVEX_HULL;
        hd.points = pts;
        hd.point_count = 4;
        EXPECT(mo_shape_create(A, sa.box, &hd, &shid), MO_ERR_INVALID_ARGUMENT,
               "convex hull point 3 must be finite with coordinates in [-1e+09, 1e+09] m, got (0, 0, 1e+300)");
    }
    NULL_W(mo_shape_destroy(NULL, sa.box_shape));
    EXPECT(mo_shape_destroy(A, dead_shape), MO_ERR_STALE_ID,
           stale(0, "shape id", dead_shape.index, dead_shape.generation, "shape"));
    EXPECT(mo_shape_destroy(A, sb.box_shape), MO_ERR_STALE_ID,
           stale(0, "shape id", sb.box_shape.index, sb.box_shape.generation, NULL));
    CHECK(!mo_shape_is_valid(NULL, sa.box_shape) && !mo_shape_is_valid(A, sb.box_shape));
    NULL_W(mo_shape_body(NULL, sa.box_shape, &bid));
    NULL_OUT(mo_shape_body(A, sa.box_shape, NULL), "mo_shape_body", "out");
    EXPECT(mo_shape_body(A, sb.box_shape, &bid), MO_ERR_STALE_ID,
           stale(0, "shape id", sb.box_shape.index, sb.box_shape.generation, NULL));
    NULL_W(mo_shape_mass(NULL, sa.box_shape, &d, NULL, NULL));
    CHECK(mo_shape_mass(A, sa.box_shape, NULL, NULL, NULL) == MO_OK);
    EXPECT(mo_shape_mass(A, dead_shape, &d, NULL, NULL), MO_ERR_STALE_ID,
           stale(0, "shape id", dead_shape.index, dead_shape.generation, "shape"));
    NULL_W(mo_shape_get_info(NULL, sa.box_shape, &info));
    NULL_OUT(mo_shape_get_info(A, sa.box_shape, NULL), "mo_shape_get_info", "out");
    EXPECT(mo_shape_get_info(A, sb.box_shape, &info), MO_ERR_STALE_ID,
           stale(0, "mo_shape_get_info: shape id", sb.box_shape.index, sb.box_shape.generation, NULL));
    NULL_W(mo_shape_world_pose(NULL, sa.box_shape, &v3, &q));
    CHECK(mo_shape_world_pose(A, sa.box_shape, NULL, NULL) == MO_OK);
    EXPECT(mo_shape_world_pose(A, sb.box_shape, &v3, &q), MO_ERR_STALE_ID,
           stale(0, "mo_shape_world_pose: shape id", sb.box_shape.index, sb.box_shape.generation, NULL));

    /* ---- particles ---- */
    NULL_W(mo_particle_create(NULL, &pd, &pid));
    EXPECT(mo_particle_create(A, NULL, &pid), MO_ERR_INVALID_ARGUMENT, "mo_particle_create: def must not be NULL");
    NULL_OUT(mo_particle_create(A, &pd, NULL), "mo_particle_create", "out");
    {
        mo_particle_def p = mo_default_particle_def();
        p.velocity = (mo_vec3){1e200, 0, 0};
        EXPECT(mo_particle_create(A, &p, &pid), MO_ERR_INVALID_ARGUMENT,
               "particle velocity must be finite with components in [-1e+08, 1e+08] m/s, got (1e+200, 0, 0)");
        p = mo_default_particle_def();
        p.mass = 1e300;
        EXPECT(mo_particle_create(A, &p, &pid), MO_ERR_INVALID_ARGUMENT,
               "particle mass must be finite and in [1e-12, 1e+20] kg, got 1e+300");
    }
    NULL_W(mo_particle_destroy(NULL, sa.particle));
    EXPECT(mo_particle_destroy(A, dead_particle), MO_ERR_STALE_ID,
           stale(0, "particle id", dead_particle.index, dead_particle.generation, "particle"));
    EXPECT(mo_particle_destroy(A, sb.particle), MO_ERR_STALE_ID,
           stale(0, "particle id", sb.particle.index, sb.particle.generation, NULL));
#define PARTICLE_GETTER(fn)                                                                                  \
    NULL_W(fn(NULL, sa.particle, &v3));                                                                      \
    NULL_OUT(fn(A, sa.particle, NULL), #fn, "out");                                                          \
    EXPECT(fn(A, sb.particle, &v3), MO_ERR_STALE_ID,                                                         \
           stale(0, "particle id", sb.particle.index, sb.particle.generation, NULL))
    PARTICLE_GETTER(mo_particle_position);
    PARTICLE_GETTER(mo_particle_velocity);
    NULL_W(mo_particle_set_velocity(NULL, sa.particle, zero));
    EXPECT(mo_particle_set_velocity(A, sb.particle, zero), MO_ERR_STALE_ID,
           stale(0, "particle id", sb.particle.index, sb.particle.generation, NULL));
    EXPECT(mo_particle_set_velocity(A, sa.particle, (mo_vec3){0, -1e9, 0}), MO_ERR_INVALID_ARGUMENT,
           "particle 1 velocity must be finite with components in [-1e+08, 1e+08] m/s, got (0, -1e+09, 0)");
    NULL_W(mo_particle_apply_force(NULL, sa.particle, zero));
    EXPECT(mo_particle_apply_force(A, dead_particle, zero), MO_ERR_STALE_ID,
           stale(0, "particle id", dead_particle.index, dead_particle.generation, "particle"));
    EXPECT(mo_particle_apply_force(A, sa.particle, (mo_vec3){0, 0, 1e21}), MO_ERR_INVALID_ARGUMENT,
           "particle 1 force must be finite with components in [-1e+20, 1e+20] N, got (0, 0, 1e+21)");

    /* ---- joints ---- */
    mo_joint_id jid;
    NULL_W(mo_joint_create(NULL, &jd, &jid));
    EXPECT(mo_joint_create(A, NULL, &jid), MO_ERR_INVALID_ARGUMENT, "mo_joint_create: def must not be NULL");
    jd.body_b = sa.box;
    NULL_OUT(mo_joint_create(A, &jd, NULL), "mo_joint_create", "out");
    jd.body_b = sb.box;
    EXPECT(mo_joint_create(A, &jd, &jid), MO_ERR_STALE_ID,
           stale(0, "joint body_b", sb.box.index, sb.box.generation, NULL));
    jd.body_a = sb.box2;
    jd.body_b = sa.box;
    EXPECT(mo_joint_create(A, &jd, &jid), MO_ERR_STALE_ID,
           stale(0, "joint body_a", sb.box2.index, sb.box2.generation, NULL));
    NULL_W(mo_joint_destroy(NULL, sa.joint));
    EXPECT(mo_joint_destroy(A, dead_joint), MO_ERR_STALE_ID,
           stale(0, "joint id", dead_joint.index, dead_joint.generation, "joint"));
    EXPECT(mo_joint_destroy(A, sb.joint), MO_ERR_STALE_ID,
           stale(0, "joint id", sb.joint.index, sb.joint.generation, NULL));
    CHECK(!mo_joint_is_valid(NULL, sa.joint) && !mo_joint_is_valid(A, sb.joint) && mo_joint_is_valid(A, sa.joint));
#define JOINT_GETTER(fn)                                                                                 \
    NULL_W(fn(NULL, sa.joint, &d));                                                                      \
    NULL_OUT(fn(A, sa.joint, NULL), #fn, "out");                                                         \
    EXPECT(fn(A, sb.joint, &d), MO_ERR_STALE_ID, stale(0, "joint id", sb.joint.index, sb.joint.generation, NULL))
    JOINT_GETTER(mo_joint_position);
    JOINT_GETTER(mo_joint_error);
    NULL_W(mo_joint_reaction(NULL, sa.joint, &v3, NULL));
    CHECK(mo_joint_reaction(A, sa.joint, NULL, NULL) == MO_OK);
    EXPECT(mo_joint_reaction(A, dead_joint, &v3, NULL), MO_ERR_STALE_ID,
           stale(0, "joint id", dead_joint.index, dead_joint.generation, "joint"));
    NULL_W(mo_joint_set_motor(NULL, sa.joint, MO_MOTOR_OFF, 0, 0, 0));
    EXPECT(mo_joint_set_motor(A, sb.joint, MO_MOTOR_OFF, 0, 0, 0), MO_ERR_STALE_ID,
           stale(0, "joint id", sb.joint.index, sb.joint.generation, NULL));
    EXPECT(mo_joint_set_motor(A, sa.joint, (mo_motor_mode)9, 0, 0, 1), MO_ERR_INVALID_ARGUMENT,
           "joint motor mode 9 is not a known mode");
    EXPECT(mo_joint_set_motor(A, sa.joint, MO_MOTOR_OFF, NAN, 0, 0), MO_ERR_INVALID_ARGUMENT,
           "joint motor targets must be finite (velocity within 1e+08, position within 1e+09), got nan and 0");
    EXPECT(mo_joint_set_motor(A, sa.joint, MO_MOTOR_VELOCITY, 1, 0, -1), MO_ERR_INVALID_ARGUMENT,
           "joint motor max_force must be >= 0 (infinity: no bound), got -1");

    /* ---- FEM meshes ---- */
    mo_fem_mesh_id dead_mesh, mid;
    {
        mo_fem_material_def mat = {1e5, 0.3, 1000, MO_FEM_COROTATIONAL};
        mo_fem_mesh_def m = one_tet(&mat, (mo_vec3){-4, 0, 0});
        CHECK(mo_fem_mesh_create(A, &m, &dead_mesh) == MO_OK);
        CHECK(mo_fem_mesh_destroy(A, dead_mesh) == MO_OK);
        NULL_W(mo_fem_mesh_create(NULL, &m, &mid));
        EXPECT(mo_fem_mesh_create(A, NULL, &mid), MO_ERR_INVALID_ARGUMENT, "mo_fem_mesh_create: def must not be NULL");
        NULL_OUT(mo_fem_mesh_create(A, &m, NULL), "mo_fem_mesh_create", "out");
        mat.young = 1e300;
        EXPECT(mo_fem_mesh_create(A, &m, &mid), MO_ERR_INVALID_ARGUMENT,
               "FEM material 0: Young's modulus must be finite and in (0, 1e+15] Pa, got 1e+300");
        mat.young = 1e5;
        mat.density = 1e300;
        EXPECT(mo_fem_mesh_create(A, &m, &mid), MO_ERR_INVALID_ARGUMENT,
               "FEM material 0: density must be finite and in (0, 1e+08] kg/m^3, got 1e+300");
    }
    const char *dead_mesh_s = stale(1, "FEM mesh id", dead_mesh.index, dead_mesh.generation, "mesh");
    const char *foreign_mesh_s = stale(2, "FEM mesh id", sb.mesh.index, sb.mesh.generation, NULL);
    NULL_W(mo_fem_mesh_destroy(NULL, sa.mesh));
    EXPECT(mo_fem_mesh_destroy(A, dead_mesh), MO_ERR_STALE_ID, dead_mesh_s);
    EXPECT(mo_fem_mesh_destroy(A, sb.mesh), MO_ERR_STALE_ID, foreign_mesh_s);
    CHECK(!mo_fem_mesh_is_valid(NULL, sa.mesh) && !mo_fem_mesh_is_valid(A, sb.mesh) && mo_fem_mesh_is_valid(A, sa.mesh));
    NULL_W(mo_fem_mesh_set_activation(NULL, sa.mesh, 0, 0.0));
    EXPECT(mo_fem_mesh_set_activation(A, sb.mesh, 0, 0.0), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_set_fixed_velocity(NULL, sa.mesh, 0, zero));
    EXPECT(mo_fem_mesh_set_fixed_velocity(A, dead_mesh, 0, zero), MO_ERR_STALE_ID, dead_mesh_s);
    NULL_W(mo_fem_mesh_counts(NULL, sa.mesh, &n1, &n2));
    CHECK(mo_fem_mesh_counts(A, sa.mesh, NULL, NULL) == MO_OK);
    EXPECT(mo_fem_mesh_counts(A, sb.mesh, &n1, &n2), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_node_position(NULL, sa.mesh, 0, &v3));
    EXPECT(mo_fem_mesh_node_position(A, sb.mesh, 0, &v3), MO_ERR_STALE_ID, foreign_mesh_s);
    EXPECT(mo_fem_mesh_node_position(A, sa.mesh, 0, NULL), MO_ERR_INVALID_ARGUMENT,
           "mo_fem_mesh_node_position: out must not be NULL");
    NULL_W(mo_fem_mesh_node_particle(NULL, sa.mesh, 0, &pid));
    EXPECT(mo_fem_mesh_node_particle(A, sb.mesh, 0, &pid), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_volume(NULL, sa.mesh, &d, NULL));
    EXPECT(mo_fem_mesh_volume(A, sb.mesh, &d, NULL), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_attach(NULL, sa.mesh, 0, sa.box, 0.0));
    EXPECT(mo_fem_mesh_attach(A, sb.mesh, 0, sa.box, 0.0), MO_ERR_STALE_ID, foreign_mesh_s);
    EXPECT(mo_fem_mesh_attach(A, sa.mesh, 0, sb.box, 0.0), MO_ERR_STALE_ID,
           stale(0, "FEM node 0: body id", sb.box.index, sb.box.generation, NULL));
    NULL_W(mo_fem_mesh_detach(NULL, sa.mesh, 0));
    EXPECT(mo_fem_mesh_detach(A, sb.mesh, 0), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_attachment(NULL, sa.mesh, 0, &bid, &v3));
    EXPECT(mo_fem_mesh_attachment(A, sb.mesh, 0, &bid, &v3), MO_ERR_STALE_ID, foreign_mesh_s);
    NULL_W(mo_fem_mesh_element_centroid(NULL, sa.mesh, 0, &v3));
    EXPECT(mo_fem_mesh_element_centroid(A, sb.mesh, 0, &v3), MO_ERR_STALE_ID, foreign_mesh_s);
    {
        const int *tri;
        int nt;
        double buf[8];
        NULL_W(mo_fem_mesh_surface(NULL, sa.mesh, &tri, &nt));
        EXPECT(mo_fem_mesh_surface(A, sb.mesh, &tri, &nt), MO_ERR_STALE_ID, foreign_mesh_s);
        NULL_W(mo_fem_mesh_element_strain(NULL, sa.mesh, buf, 8));
        EXPECT(mo_fem_mesh_element_strain(A, sb.mesh, buf, 8), MO_ERR_STALE_ID, foreign_mesh_s);
        NULL_W(mo_fem_mesh_node_strain(NULL, sa.mesh, buf, 8));
        EXPECT(mo_fem_mesh_node_strain(A, dead_mesh, buf, 8), MO_ERR_STALE_ID, dead_mesh_s);
        NULL_W(mo_fem_mesh_node_mass(NULL, sa.mesh, 0, &d));
        EXPECT(mo_fem_mesh_node_mass(A, sb.mesh, 0, &d), MO_ERR_STALE_ID, foreign_mesh_s);
    }

    /* ---- contacts, debug draw ---- */
    {
        int nc = mo_world_contacts(A, NULL, 0);
        CHECK(nc > 0);
        CHECK(mo_world_contact_residuals(A, NULL, 0) == nc);
        CHECK(mo_world_contact_residuals(A, NULL, 5) == nc); /* out NULL: counts only */
        NULL_W(mo_body_contact_force(NULL, sa.box, &v3, NULL));
        CHECK(mo_body_contact_force(A, sa.box, NULL, NULL) == MO_OK); /* both outputs may be NULL */
        EXPECT(mo_body_contact_force(A, dead_body, &v3, NULL), MO_ERR_STALE_ID,
               stale(0, "body id", dead_body.index, dead_body.generation, "body"));
        EXPECT(mo_body_contact_force(A, sb.box, NULL, &v3), MO_ERR_STALE_ID,
               stale(0, "body id", sb.box.index, sb.box.generation, NULL));
        mo_debug_draw dd = mo_default_debug_draw();
        NULL_W(mo_world_debug_draw(NULL, &dd, 0));
        EXPECT(mo_world_debug_draw(A, NULL, 0), MO_ERR_INVALID_ARGUMENT, "mo_world_debug_draw: dd must be a mo_default_debug_draw() with a line callback");
        CHECK(mo_debug_draw_residual_color(NULL, 1.0) == mo_debug_draw_residual_color(&dd, 1.0)); /* defaults */
        CHECK(mo_debug_draw_residual_color(&dd, NAN) == mo_debug_draw_residual_color(&dd, INFINITY));
    }

    /* ---- the world is unchanged by all of the above ---- */
    CHECK(mo_world_state_hash(A) == h0);
    CHECK(mo_world_bodies(A, NULL, 0) == nb0 && mo_world_shapes(A, NULL, 0) == ns0);
    CHECK(mo_world_time_step(A) == 1.0 / 120.0 && mo_world_substeps(A) == 1);
    CHECK(mo_world_solver(A).max_iterations == mo_world_solver(sb.w).max_iterations);
    CHECK(mo_world_step(A) == MO_OK && mo_world_step(sb.w) == MO_OK);
    CHECK(mo_world_state_hash(A) == mo_world_state_hash(sb.w));
    articulation_misuse(A, sb.w);
    mo_world_destroy(sa.w);
    mo_world_destroy(sb.w);
    return check_result("misuse");
}
