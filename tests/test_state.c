/* test_state: determinism and the world's state save and restore
 * (mo_world_state_size, mo_world_save_state, mo_world_restore_state).
 *   1 threads: a pile of 300 spheres (tools/scenes_builtin.c) and a mixed scene
 *     (boxes, spheres, a motor-driven revolute chain, applied forces) stepped K
 *     steps give the same mo_world_state_hash with 1 and 2 threads and in two
 *     runs in one process;
 *   2 rigid save/restore: saved at step K, M more steps give H1; restoring into
 *     the same world, then into a fresh world built the same way, and M steps
 *     give H1 again, hash by hash on the way; a second save right after a
 *     restore is byte for byte the first; the state's warm starts and motor
 *     targets matter (leaving them out changes the result);
 *   3 the same with the Newton solver (step halving on) and an FEM cube under
 *     a rigid box attached to it (FEM forces, attachments, surface contacts);
 *   4 refusals, each with its exact sentence and the world unchanged: NULL,
 *     short header, truncated payload, bad magic, other version, checksum,
 *     another structure (slot counts, generations, body type), small buffer
 *     for a save. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>
#include "check.h"
#include "scenes_builtin.h"
#include "../tools/fem_box.h"

#define OK(call)                                                                                        \
    do {                                                                                                \
        mo_status st_ = (call);                                                                         \
        if (st_ != MO_OK) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, mo_status_name(st_),      \
                    mo_world_last_error(w));                                                            \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static mo_world *new_world(mo_solver_kind solver)
{
    mo_world_def d = mo_default_world_def();
    d.solver.kind = solver;
    if (solver == MO_SOLVER_NEWTON) d.solver.newton.halvings = 2;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

/* ---- scenes ---- */

typedef struct mixed {
    mo_body_id ground, first_box, chain[3];
    mo_joint_id motor;
} mixed;

/* ground; 3 columns of 5 boxes, slightly turned and offset; 16 spheres dropped on them; a chain of 3 boxes
   hung from the world by revolute joints, the first driven by a velocity motor, swinging into the columns */
static void build_mixed_as(mo_world *w, mixed *m, mo_body_type first_box_type)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    OK(mo_body_create(w, &g, &m->ground));
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 5; k++) {
            mo_body_def b = mo_default_body_def();
            if (c == 0 && k == 0) b.type = first_box_type;
            b.shape.type = MO_SHAPE_BOX;
            b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
            double a = 0.05 * (k + c);
            b.orientation = (mo_quat){cos(a / 2), 0, 0, sin(a / 2)};
            b.position = (mo_vec3){0.5 * c + 0.01 * k, 0.005 * k, 0.1 + 0.205 * k};
            mo_body_id id;
            OK(mo_body_create(w, &b, &id));
            if (c == 0 && k == 0) m->first_box = id;
        }
    for (int i = 0; i < 16; i++) {
        mo_body_def b = mo_default_body_def();
        b.shape.type = MO_SHAPE_SPHERE;
        b.shape.radius = 0.07;
        b.position = (mo_vec3){-0.1 + 0.18 * (i % 4) + 0.01 * (i / 4), -0.2 + 0.15 * (i / 4), 1.4 + 0.03 * i};
        b.mass = 0.5;
        mo_body_id id;
        OK(mo_body_create(w, &b, &id));
    }
    mo_body_id prev = {0, 0};
    for (int k = 0; k < 3; k++) {
        mo_body_def b = mo_default_body_def();
        b.shape.type = MO_SHAPE_BOX;
        b.shape.half_extents = (mo_vec3){0.05, 0.05, 0.15};
        b.position = (mo_vec3){0.5, 0.8, 1.45 - 0.3 * k};
        OK(mo_body_create(w, &b, &m->chain[k]));
        mo_joint_def j = mo_default_joint_def();
        j.type = MO_JOINT_REVOLUTE;
        j.body_a = prev;
        j.body_b = m->chain[k];
        j.anchor_a = k == 0 ? (mo_vec3){0.5, 0.8, 1.6} : (mo_vec3){0, 0, -0.15};
        j.anchor_b = (mo_vec3){0, 0, 0.15};
        if (k == 0) {
            j.motor = MO_MOTOR_VELOCITY;
            j.target_velocity = 3.0;
            j.max_force = 50.0;
        }
        mo_joint_id jid;
        OK(mo_joint_create(w, &j, &jid));
        if (k == 0) m->motor = jid;
        prev = m->chain[k];
    }
}

static void build_mixed(mo_world *w, mixed *m) { build_mixed_as(w, m, MO_BODY_DYNAMIC); }

/* steps n times; a force on the first box before each step (cleared by the step) */
static void run_mixed(mo_world *w, const mixed *m, int n)
{
    for (int s = 0; s < n; s++) {
        OK(mo_body_apply_force(w, m->first_box, (mo_vec3){2.0, 0.5, 0.0}, (mo_vec3){0, 0, 0.1}));
        OK(mo_world_step(w));
    }
}

static void run(mo_world *w, int n)
{
    for (int s = 0; s < n; s++) OK(mo_world_step(w));
}

/* ---- 1 threads and repeated runs ---- */

static uint64_t pile_hash(int threads, int steps, int *contacts)
{
    mo_world *w = new_world(MO_SOLVER_PGS);
    mo_scene sc;
    char err[512];
    if (mo_scene_build("pile:300", w, &sc, err, sizeof err) != MO_OK) {
        fprintf(stderr, "pile: %s\n", err);
        exit(1);
    }
    OK(mo_world_set_threads(w, threads));
    run(w, steps);
    *contacts = mo_world_contacts(w, NULL, 0);
    uint64_t h = mo_world_state_hash(w);
    mo_scene_free(&sc);
    mo_world_destroy(w);
    return h;
}

static uint64_t mixed_hash(int threads, int steps, int *contacts)
{
    mo_world *w = new_world(MO_SOLVER_PGS);
    mixed m;
    build_mixed(w, &m);
    OK(mo_world_set_threads(w, threads));
    run_mixed(w, &m, steps);
    *contacts = mo_world_contacts(w, NULL, 0);
    uint64_t h = mo_world_state_hash(w);
    mo_world_destroy(w);
    return h;
}

static void test_threads(void)
{
    int c1, c2, c3;
    const int K = 90;
    uint64_t h1 = pile_hash(1, K, &c1), h2 = pile_hash(2, K, &c2), h3 = pile_hash(1, K, &c3);
    printf("pile:300, %d steps: %d contacts, hash 1 thread %016" PRIx64 ", 2 threads %016" PRIx64
           ", 1 thread again %016" PRIx64 "\n", K, c1, h1, h2, h3);
    CHECK(c1 > 300); /* contact-rich: the spheres have landed */
    CHECK(h1 == h2);
    CHECK(h1 == h3);
    CHECK(c1 == c2 && c1 == c3);
    uint64_t g1 = mixed_hash(1, K, &c1), g2 = mixed_hash(2, K, &c2), g3 = mixed_hash(1, K, &c3);
    printf("mixed, %d steps: %d contacts, hash 1 thread %016" PRIx64 ", 2 threads %016" PRIx64
           ", 1 thread again %016" PRIx64 "\n", K, c1, g1, g2, g3);
    CHECK(c1 > 20);
    CHECK(g1 == g2);
    CHECK(g1 == g3);
    /* the hash sees a step: one step more changes it */
    int c4;
    CHECK(mixed_hash(1, K + 1, &c4) != g1);
}

/* ---- 2 rigid save and restore ---- */

static unsigned char *save(mo_world *w, size_t *size)
{
    *size = mo_world_state_size(w);
    unsigned char *buf = (unsigned char *)malloc(*size);
    OK(mo_world_save_state(w, buf, *size));
    return buf;
}

static void test_rigid(void)
{
    enum { K = 60, M = 40 };
    mo_world *w = new_world(MO_SOLVER_PGS);
    mixed m;
    build_mixed(w, &m);
    run_mixed(w, &m, K);
    OK(mo_body_apply_force(w, m.first_box, (mo_vec3){0, 30.0, 0}, (mo_vec3){0, 0, 0})); /* pending: in the state */
    const uint64_t h0 = mo_world_state_hash(w);
    const double t0 = mo_world_time(w);
    size_t size;
    unsigned char *buf = save(w, &size);
    const int ncont = mo_world_contacts(w, NULL, 0);
    printf("mixed scene (%d bodies, 3 joints): %d contacts at step %d, state %zu bytes\n", mo_world_bodies(w, NULL, 0), ncont,
           K, size);
    CHECK(ncont > 20);
    uint64_t hs[M];
    for (int s = 0; s < M; s++) {
        run_mixed(w, &m, 1);
        hs[s] = mo_world_state_hash(w);
    }
    const uint64_t h1 = hs[M - 1];
    CHECK(h1 != h0);

    /* the same world */
    OK(mo_world_restore_state(w, buf, size));
    CHECK(mo_world_state_hash(w) == h0);
    CHECK(mo_world_time(w) == t0);
    CHECK(mo_world_contacts(w, NULL, 0) == 0);
    size_t size2;
    unsigned char *buf2 = save(w, &size2);
    CHECK(size2 == size && memcmp(buf, buf2, size) == 0);
    free(buf2);
    int same = 0;
    for (int s = 0; s < M; s++) {
        run_mixed(w, &m, 1);
        same += mo_world_state_hash(w) == hs[s];
    }
    CHECK(same == M);
    CHECK(mo_world_state_hash(w) == h1);

    /* a fresh world built the same way (never stepped) */
    mo_world *w2 = new_world(MO_SOLVER_PGS);
    mixed m2;
    build_mixed(w2, &m2);
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    CHECK(mo_world_state_hash(w2) == h0);
    CHECK(mo_world_time(w2) == t0);
    run_mixed(w2, &m2, M);
    CHECK(mo_world_state_hash(w2) == h1);
    /* its threads do not matter either */
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    OK(mo_world_set_threads(w2, 2));
    run_mixed(w2, &m2, M);
    CHECK(mo_world_state_hash(w2) == h1);

    /* what the state holds matters: another motor target after the restore, or no pending force, changes the
       result; the restore brings the saved target and force back */
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    OK(mo_joint_set_motor(w2, m2.motor, MO_MOTOR_VELOCITY, -3.0, 0.0, 50.0));
    run_mixed(w2, &m2, M);
    CHECK(mo_world_state_hash(w2) != h1);
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    run_mixed(w2, &m2, M);
    CHECK(mo_world_state_hash(w2) == h1);
    /* a fresh world stepped from poses and velocities alone (no warm starts, no pending force) differs */
    mo_world *w3 = new_world(MO_SOLVER_PGS);
    mixed m3;
    build_mixed(w3, &m3);
    run_mixed(w3, &m3, K);
    CHECK(mo_world_state_hash(w3) == h0); /* the pending force is not in the pose hash */
    run_mixed(w3, &m3, M);
    CHECK(mo_world_state_hash(w3) != h1);
    mo_world_destroy(w3);
    mo_world_destroy(w2);
    mo_world_destroy(w);
    free(buf);
}

/* ---- 3 Newton, FEM ---- */

typedef struct fem_scene {
    mo_fem_mesh_id mesh;
    mo_body_id box;
} fem_scene;

/* a 2 x 2 x 2 cell FEM cube on the ground, a rigid box dropped on it, one top node attached to a second box */
static void build_fem(mo_world *w, fem_scene *f)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id ground;
    OK(mo_body_create(w, &g, &ground));
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){-0.1, -0.1, 0.002}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_material_def mat = {2e5, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = box_mesh_def(&b, &mat, NULL, 0);
    OK(mo_fem_mesh_create(w, &d, &f->mesh));
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.06, 0.06, 0.03};
    bd.position = (mo_vec3){0.01, 0.0, 0.26};
    bd.orientation = (mo_quat){cos(0.1), sin(0.1), 0, 0};
    bd.mass = 2.0;
    OK(mo_body_create(w, &bd, &f->box));
    mo_body_def hd = mo_default_body_def();
    hd.shape.type = MO_SHAPE_SPHERE;
    hd.shape.radius = 0.02;
    hd.position = (mo_vec3){0.1, 0.1, 0.202};
    hd.mass = 0.3;
    mo_body_id handle;
    OK(mo_body_create(w, &hd, &handle));
    OK(mo_fem_mesh_attach(w, f->mesh, node_index(&b, 2, 2, 2), handle, 1e-6));
    box_mesh_free(&b);
}

static void test_fem(void)
{
    enum { K = 25, M = 20 };
    mo_world *w = new_world(MO_SOLVER_NEWTON);
    fem_scene f;
    build_fem(w, &f);
    run(w, K);
    const uint64_t h0 = mo_world_state_hash(w);
    size_t size;
    unsigned char *buf = save(w, &size);
    mo_step_stats st = mo_world_last_stats(w);
    printf("FEM cube, box, attachment (Newton): %d contacts at step %d, state %zu bytes\n", st.contacts, K, size);
    CHECK(st.contacts > 0);
    run(w, M);
    const uint64_t h1 = mo_world_state_hash(w);
    CHECK(h1 != h0);
    OK(mo_world_restore_state(w, buf, size));
    CHECK(mo_world_state_hash(w) == h0);
    run(w, M);
    CHECK(mo_world_state_hash(w) == h1);
    mo_world *w2 = new_world(MO_SOLVER_NEWTON);
    fem_scene f2;
    build_fem(w2, &f2);
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    CHECK(mo_world_state_hash(w2) == h0);
    run(w2, M);
    CHECK(mo_world_state_hash(w2) == h1);
    /* the reference itself: a fresh run of K + M steps */
    mo_world *w3 = new_world(MO_SOLVER_NEWTON);
    fem_scene f3;
    build_fem(w3, &f3);
    run(w3, K);
    CHECK(mo_world_state_hash(w3) == h0);
    run(w3, M);
    CHECK(mo_world_state_hash(w3) == h1);
    mo_world_destroy(w3);
    mo_world_destroy(w2);
    mo_world_destroy(w);
    free(buf);
}

/* ---- 4 refusals ---- */

/* restoring buf (size bytes) into w is refused with sentence; the world is unchanged */
static void refused(mo_world *w, const void *buf, size_t size, const char *sentence)
{
    const uint64_t h = mo_world_state_hash(w);
    const double t = mo_world_time(w);
    const int nc = mo_world_contacts(w, NULL, 0);
    CHECK(mo_world_restore_state(w, buf, size) == MO_ERR_INVALID_ARGUMENT);
    if (strcmp(mo_world_last_error(w), sentence) != 0) {
        fprintf(stderr, "  expected: %s\n  got:      %s\n", sentence, mo_world_last_error(w));
        ++check_failures;
    }
    CHECK(mo_world_state_hash(w) == h && mo_world_time(w) == t && mo_world_contacts(w, NULL, 0) == nc);
}

static void test_refusals(void)
{
    mo_world *w = new_world(MO_SOLVER_PGS);
    mixed m;
    build_mixed(w, &m);
    run_mixed(w, &m, 30);
    const int nb = mo_world_bodies(w, NULL, 0);
    size_t size;
    unsigned char *buf = save(w, &size);
    run_mixed(w, &m, 5);
    unsigned char *bad = (unsigned char *)malloc(size);
    char s[512];

    refused(w, NULL, size, "mo_world_restore_state: buf must not be NULL");
    refused(w, buf, 20, "mo_world_restore_state: the buffer holds 20 bytes, shorter than the state's 48-byte "
                        "header (truncated)");
    snprintf(s, sizeof s, "mo_world_restore_state: the buffer holds %zu bytes, the state it starts says %zu "
                          "(truncated)", size - 1, size);
    refused(w, buf, size - 1, s);
    memcpy(bad, buf, size);
    bad[0] = 'X';
    refused(w, bad, size, "mo_world_restore_state: the buffer does not start with a Moreau state (bad magic)");
    memcpy(bad, buf, size);
    const uint32_t v99 = 99;
    memcpy(bad + 8, &v99, 4);
    refused(w, bad, size, "mo_world_restore_state: the state has format version 99, this build reads versions 3 to 4");
    memcpy(bad, buf, size);
    bad[size / 2] ^= 1;
    refused(w, bad, size, "mo_world_restore_state: the state's checksum does not match its contents (corrupt)");

    /* save into too small a buffer */
    CHECK(mo_world_save_state(w, bad, size - 8) == MO_ERR_INVALID_ARGUMENT);
    snprintf(s, sizeof s, "mo_world_save_state: the buffer holds %zu bytes, the state needs %zu "
                          "(mo_world_state_size)", size - 8, mo_world_state_size(w));
    CHECK(strcmp(mo_world_last_error(w), s) == 0);
    CHECK(mo_world_save_state(w, NULL, size) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(mo_world_last_error(w), "mo_world_save_state: buf must not be NULL") == 0);

    /* another structure: one body more */
    mo_world *w2 = new_world(MO_SOLVER_PGS);
    mixed m2;
    build_mixed(w2, &m2);
    mo_body_def extra = mo_default_body_def();
    extra.shape.type = MO_SHAPE_SPHERE;
    extra.shape.radius = 0.1;
    extra.position = (mo_vec3){5, 5, 1};
    mo_body_id eid;
    CHECK(mo_body_create(w2, &extra, &eid) == MO_OK);
    snprintf(s, sizeof s, "mo_world_restore_state: the state is from a world of another structure: %d body slots "
                          "in the state, %d in this world", nb, nb + 1);
    refused(w2, buf, size, s);
    /* the same counts, but a body destroyed and made again (its slot's generation moves on) */
    mo_world_destroy(w2);
    w2 = new_world(MO_SOLVER_PGS);
    build_mixed(w2, &m2);
    mo_body_def again = mo_default_body_def();
    again.shape.type = MO_SHAPE_BOX;
    again.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    again.position = (mo_vec3){0, 0, 0.1};
    CHECK(mo_body_destroy(w2, m2.first_box) == MO_OK);
    CHECK(mo_body_create(w2, &again, &eid) == MO_OK);
    CHECK(eid.index == m2.first_box.index && eid.generation == m2.first_box.generation + 1); /* the counter, in the low bits */
    snprintf(s, sizeof s, "mo_world_restore_state: the state is from a world of another structure: the body "
                          "generation of slot %u is %u in the state, %u in this world", eid.index - 1,
             m2.first_box.generation & 0xFFFFFu, eid.generation & 0xFFFFFu); /* counters: the world tag aside */
    refused(w2, buf, size, s);
    /* a body of another type */
    mo_world_destroy(w2);
    w2 = new_world(MO_SOLVER_PGS);
    build_mixed_as(w2, &m2, MO_BODY_KINEMATIC);
    snprintf(s, sizeof s, "mo_world_restore_state: the state is from a world of another structure: the body type "
                          "of slot %u is %d in the state, %d in this world", m2.first_box.index - 1,
             (int)MO_BODY_DYNAMIC, (int)MO_BODY_KINEMATIC);
    refused(w2, buf, size, s);
    /* a world with an FEM mesh: the state of a world without one */
    mo_world *w3 = new_world(MO_SOLVER_NEWTON);
    fem_scene f;
    build_fem(w3, &f);
    snprintf(s, sizeof s, "mo_world_restore_state: the state is from a world of another structure: %d body slots "
                          "in the state, 3 in this world", nb);
    refused(w3, buf, size, s);
    mo_world_destroy(w3);

    /* after all that the good buffer still restores */
    mo_world_destroy(w2);
    w2 = new_world(MO_SOLVER_PGS);
    build_mixed(w2, &m2);
    CHECK(mo_world_restore_state(w2, buf, size) == MO_OK);
    CHECK(mo_world_restore_state(w, buf, size) == MO_OK);
    CHECK(mo_world_state_hash(w) == mo_world_state_hash(w2));
    mo_world_destroy(w2);
    mo_world_destroy(w);
    free(bad);
    free(buf);
}

int main(void)
{
    test_threads();
    test_rigid();
    test_fem();
    test_refusals();
    return check_result("state");
}
