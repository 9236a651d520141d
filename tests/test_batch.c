/* test_batch.c: batches of worlds (moreau/batch.h, docs/batch.md).
 *
 *  1  N identical quadrupeds (scenes/quadruped.lua, Lua callbacks, one articulation each) stay bit-identical
 *     across worlds, equal one scene stepped alone, with 1 and 2 threads
 *  2  N different worlds (per-world friction, initial velocity, gravity and a setting by name) equal N
 *     single-world runs bit for bit, with 1 thread (mo_batch_step) and 2 (mo_batch_step_n)
 *  3  bulk get/set round-trips (bodies and joints), contact counts, reset restores the initial state exactly
 *     and steps on identically, mark_initial
 *  4  drive targets of articulations: per-world targets equal single-world runs bit for bit, get/set, errors
 *  5  errors: the exact sentence, the batch unchanged */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/batch.h>

#include "check.h"

static char quad_path[1024];
static bool have_lua; /* scene files load (built with Lua) */
static const char *quad_params[] = {"stand=0.2", "trot=1"};

static mo_scene_options quad_options(void)
{
    mo_scene_options o = mo_default_scene_options();
    o.params = quad_params;
    o.param_count = 2;
    return o;
}

static mo_batch *quad_batch(int n, int threads)
{
    mo_scene_options o = quad_options();
    mo_batch_def d = mo_default_batch_def();
    d.worlds = n;
    d.scene_path = quad_path;
    d.scene_options = &o;
    d.threads = threads;
    mo_batch *b = NULL;
    char err[1024];
    if (mo_batch_create(&d, &b, err, sizeof err) != MO_OK) fprintf(stderr, "quad_batch: %s\n", err);
    return b;
}

/* ---- 1: identical worlds ---- */
static void test_identical(void)
{
    const int n = 6, steps = 150;
    /* one scene stepped alone */
    mo_scene_options o = quad_options();
    mo_scene_file *sf = NULL;
    char err[1024];
    CHECK(mo_scene_file_load(quad_path, &o, &sf, err, sizeof err) == MO_OK);
    if (!sf) return;
    for (int s = 0; s < steps; s++) CHECK(mo_scene_file_step(sf) == MO_OK);
    uint64_t alone = mo_world_state_hash(mo_scene_file_world(sf));
    mo_scene_file_destroy(sf);

    uint64_t first[2] = {0, 0};
    for (int t = 1; t <= 2; t++) {
        mo_batch *b = quad_batch(n, t);
        CHECK(b != NULL);
        if (!b) return;
        int nb = -1, na = -1, nq = -1, nv = -1;
        CHECK(mo_batch_sizes(b, &nb, &na, &nq, &nv) == MO_OK);
        CHECK(nb == 0 && na == 1 && nq == 7 + 12 && nv == 6 + 12);
        for (int s = 0; s < steps; s++) CHECK(mo_batch_step(b) == MO_OK);
        uint64_t h[6];
        CHECK(mo_batch_state_hashes(b, h, n) == MO_OK);
        for (int i = 0; i < n; i++) CHECK(h[i] == alone);
        first[t - 1] = h[0];
        int c[6];
        CHECK(mo_batch_contact_counts(b, c, n) == MO_OK);
        for (int i = 0; i < n; i++) CHECK(c[i] == c[0] && c[i] > 0);
        double *q = malloc((size_t)(n * nq) * sizeof *q);
        CHECK(mo_batch_get_joints(b, q, n * nq, NULL, 0) == MO_OK);
        for (int i = 1; i < n; i++) CHECK(memcmp(q, q + i * nq, (size_t)nq * sizeof *q) == 0);
        free(q);
        /* the scenes' claims hold in every world */
        for (int i = 0; i < n; i++) CHECK(mo_scene_file_checks(mo_batch_scene(b, i), NULL, 0) == 0);
        mo_batch_destroy(b);
    }
    CHECK(first[0] == first[1]);
}

/* ---- 2: different worlds: a box on the ground, per-world friction and initial velocity ---- */
static double mu_of(int i) { return 0.1 + 0.15 * i; }

static mo_status build_box(void *user, int i, mo_world *w, char *err, size_t err_size)
{
    (void)user;
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape = mo_default_shape_def();
    g.shape.type = MO_SHAPE_PLANE;
    g.shape.friction = 1.0;
    mo_body_id id;
    if (mo_body_create(w, &g, &id) != MO_OK) goto fail;
    for (int k = 0; k < 2; k++) {
        mo_body_def d = mo_default_body_def();
        d.position = (mo_vec3){0.5 * k, 0.0, 0.1 + 0.25 * k};
        d.linear_velocity = (mo_vec3){1.0 + 0.3 * i, 0.1 * i, 0.0};
        d.shape = mo_default_shape_def();
        d.shape.type = MO_SHAPE_BOX;
        d.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
        d.shape.friction = mu_of(i);
        if (mo_body_create(w, &d, &id) != MO_OK) goto fail;
    }
    return MO_OK;
fail:
    snprintf(err, err_size, "%s", mo_world_last_error(w));
    return MO_ERR_INVALID_ARGUMENT;
}

/* world 1 gets a third box: a structure unlike world 0's */
static mo_status build_uneven(void *user, int i, mo_world *w, char *err, size_t err_size)
{
    mo_status st = build_box(user, i, w, err, err_size);
    if (st != MO_OK || i != 1) return st;
    mo_body_def d = mo_default_body_def();
    d.position = (mo_vec3){2, 0, 1};
    d.shape = mo_default_shape_def();
    d.shape.type = MO_SHAPE_SPHERE;
    d.shape.radius = 0.1;
    mo_body_id id;
    return mo_body_create(w, &d, &id);
}

static mo_vec3 gravity_of(int i) { return (mo_vec3){0.2 * i, 0.0, -9.81 + 0.5 * i}; }

static mo_batch *box_batch(int n, int threads)
{
    mo_batch_def d = mo_default_batch_def();
    d.worlds = n;
    d.build = build_box;
    d.threads = threads;
    const char *set[] = {"solver.kind=apgd"};
    d.settings = set;
    d.setting_count = 1;
    mo_batch *b = NULL;
    char err[512];
    if (mo_batch_create(&d, &b, err, sizeof err) != MO_OK) fprintf(stderr, "box_batch: %s\n", err);
    return b;
}

static void test_different(void)
{
    const int n = 5, steps = 120;
    const char *iters[] = {"solver.iterations=30", "solver.iterations=60"};
    uint64_t alone[5];
    for (int i = 0; i < n; i++) {
        mo_world_def wd = mo_default_world_def();
        mo_world *w = NULL;
        char err[512];
        CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
        CHECK(build_box(NULL, i, w, err, sizeof err) == MO_OK);
        const char *set[] = {"solver.kind=apgd"};
        CHECK(mo_world_set_settings(w, set, 1) == MO_OK);
        CHECK(mo_world_set_gravity(w, gravity_of(i)) == MO_OK);
        CHECK(mo_world_set_settings(w, &iters[i % 2], 1) == MO_OK);
        for (int s = 0; s < steps; s++) CHECK(mo_world_step(w) == MO_OK);
        alone[i] = mo_world_state_hash(w);
        mo_world_destroy(w);
    }
    for (int i = 1; i < n; i++) CHECK(alone[i] != alone[0]);
    for (int t = 1; t <= 2; t++) {
        mo_batch *b = box_batch(n, t);
        CHECK(b != NULL);
        if (!b) return;
        for (int i = 0; i < n; i++) {
            CHECK(mo_batch_set_gravity(b, i, gravity_of(i)) == MO_OK);
            CHECK(mo_batch_set_settings(b, i, &iters[i % 2], 1) == MO_OK);
        }
        if (t == 1)
            for (int s = 0; s < steps; s++) CHECK(mo_batch_step(b) == MO_OK);
        else
            CHECK(mo_batch_step_n(b, steps) == MO_OK); /* the same states as steps calls of mo_batch_step */
        uint64_t h[5];
        CHECK(mo_batch_state_hashes(b, h, n) == MO_OK);
        for (int i = 0; i < n; i++) CHECK(h[i] == alone[i]);
        mo_batch_destroy(b);
    }
}

/* ---- drive targets: a two-link arm with PD drives (axis y, gravity pulls), per-world targets ---- */
static mo_status build_arm(void *user, int i, mo_world *w, char *err, size_t err_size)
{
    (void)user;
    (void)i;
    mo_link_def l[2] = {mo_default_link_def(), mo_default_link_def()};
    for (int k = 0; k < 2; k++) {
        l[k].axis = (mo_vec3){0, 1, 0};
        l[k].com = (mo_vec3){0.25, 0, 0};
    }
    l[1].parent = 0;
    l[1].joint_position = (mo_vec3){0.5, 0, 0};
    mo_articulation_def ad = mo_default_articulation_def();
    ad.links = l;
    ad.link_count = 2;
    mo_articulation_id id;
    mo_joint_drive d = mo_default_joint_drive();
    d.stiffness = 80.0;
    d.damping = 4.0;
    if (mo_articulation_create(w, &ad, &id) != MO_OK || mo_articulation_set_drive(w, id, 0, &d) != MO_OK ||
        mo_articulation_set_drive(w, id, 1, &d) != MO_OK) {
        snprintf(err, err_size, "%s", mo_world_last_error(w));
        return MO_ERR_INVALID_ARGUMENT;
    }
    return MO_OK;
}

static void test_drives(void)
{
    const int n = 4, steps = 90;
    double pos[8], vel[8], pos2[8], vel2[8];
    for (int j = 0; j < 2 * n; j++) {
        pos[j] = 0.1 * (j + 1) * (j % 2 ? -1 : 1);
        vel[j] = 0.01 * j;
    }
    uint64_t alone[4];
    for (int i = 0; i < n; i++) {
        mo_world_def wd = mo_default_world_def();
        mo_world *w = NULL;
        char err[512];
        CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
        CHECK(build_arm(NULL, i, w, err, sizeof err) == MO_OK);
        mo_articulation_id id;
        CHECK(mo_world_articulations(w, &id, 1) == 1);
        for (int k = 0; k < 2; k++) {
            mo_joint_drive d;
            CHECK(mo_articulation_drive(w, id, k, &d) == MO_OK);
            d.target_position = pos[2 * i + k];
            d.target_velocity = vel[2 * i + k];
            CHECK(mo_articulation_set_drive(w, id, k, &d) == MO_OK);
        }
        for (int s = 0; s < steps; s++) CHECK(mo_world_step(w) == MO_OK);
        alone[i] = mo_world_state_hash(w);
        mo_world_destroy(w);
    }
    CHECK(alone[1] != alone[0] && alone[3] != alone[2]); /* the targets matter */
    mo_batch_def bd = mo_default_batch_def();
    bd.worlds = n;
    bd.build = build_arm;
    bd.threads = 2;
    mo_batch *b = NULL;
    char err[512];
    CHECK(mo_batch_create(&bd, &b, err, sizeof err) == MO_OK);
    if (!b) return;
    CHECK(mo_batch_drive_count(b) == 2);
    CHECK(mo_batch_set_drive_targets(b, pos, vel, 2 * n) == MO_OK);
    CHECK(mo_batch_get_drive_targets(b, pos2, vel2, 2 * n) == MO_OK);
    CHECK(memcmp(pos, pos2, sizeof pos) == 0 && memcmp(vel, vel2, sizeof vel) == 0);
    pos2[5] = NAN;
    CHECK(mo_batch_set_drive_targets(b, pos2, NULL, 2 * n) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_set_drive_targets: world 2, drive 1: target position must be finite and within 1e+09, got nan");
    CHECK(mo_batch_set_drive_targets(b, pos, NULL, 3) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_set_drive_targets: arrays of 3 entries, the batch has 4 worlds x 2 drives = 8");
    CHECK(mo_batch_step_n(b, steps) == MO_OK);
    uint64_t h[4];
    CHECK(mo_batch_state_hashes(b, h, n) == MO_OK);
    for (int i = 0; i < n; i++) CHECK(h[i] == alone[i]);
    mo_batch_destroy(b);
}

/* ---- 3: bulk state, reset ---- */
static void test_state(void)
{
    const int n = 3;
    mo_batch *b = box_batch(n, 2);
    CHECK(b != NULL);
    if (!b) return;
    int nb = 0;
    mo_batch_sizes(b, &nb, NULL, NULL, NULL);
    CHECK(nb == 2);
    const int m = n * nb;
    uint64_t h0[3], h1[3], h2[3];
    mo_batch_state_hashes(b, h0, n);
    mo_vec3 p[6], v[6], w[6], p2[6], v2[6], w2[6];
    mo_quat q[6], q2[6];
    for (int s = 0; s < 30; s++) mo_batch_step(b);
    mo_batch_state_hashes(b, h1, n);
    /* round trip with exactly normalised quaternions */
    const mo_quat unit[3] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0.5, 0.5, -0.5, 0.5}};
    for (int j = 0; j < m; j++) {
        p[j] = (mo_vec3){j, -0.25 * j, 1.0 + j};
        q[j] = unit[j % 3];
        v[j] = (mo_vec3){0.5, j, -j};
        w[j] = (mo_vec3){-1.0, 0.125 * j, 3.0};
    }
    CHECK(mo_batch_set_bodies(b, p, q, v, w, m) == MO_OK);
    CHECK(mo_batch_get_bodies(b, p2, q2, v2, w2, m) == MO_OK);
    CHECK(memcmp(p, p2, sizeof p) == 0 && memcmp(q, q2, sizeof q) == 0);
    CHECK(memcmp(v, v2, sizeof v) == 0 && memcmp(w, w2, sizeof w) == 0);
    for (int i = 0; i < n; i++) {
        mo_vec3 x;
        CHECK(mo_body_position(mo_batch_world(b, i), mo_batch_body(b, i, 1), &x) == MO_OK);
        CHECK(x.x == p[i * nb + 1].x && x.z == p[i * nb + 1].z);
    }
    /* reset one world, then all: the initial state, and the same states again after as many steps */
    CHECK(mo_batch_reset(b, 1) == MO_OK);
    mo_batch_state_hashes(b, h2, n);
    CHECK(h2[1] == h0[1] && h2[0] != h0[0]);
    CHECK(mo_batch_reset(b, MO_BATCH_ALL) == MO_OK);
    mo_batch_state_hashes(b, h2, n);
    for (int i = 0; i < n; i++) CHECK(h2[i] == h0[i]);
    for (int s = 0; s < 30; s++) mo_batch_step(b);
    mo_batch_state_hashes(b, h2, n);
    for (int i = 0; i < n; i++) CHECK(h2[i] == h1[i]);
    int c[3];
    CHECK(mo_batch_contact_counts(b, c, n) == MO_OK);
    for (int i = 0; i < n; i++) CHECK(c[i] > 0);
    /* a new initial state */
    CHECK(mo_batch_set_bodies(b, p, q, NULL, NULL, m) == MO_OK);
    CHECK(mo_batch_mark_initial(b, MO_BATCH_ALL) == MO_OK);
    for (int s = 0; s < 10; s++) mo_batch_step(b);
    CHECK(mo_batch_reset(b, MO_BATCH_ALL) == MO_OK);
    CHECK(mo_batch_get_bodies(b, p2, NULL, NULL, NULL, m) == MO_OK);
    CHECK(memcmp(p, p2, sizeof p) == 0);
    mo_batch_destroy(b);

    /* joints of the quadrupeds: set, read back, reset */
    if (!have_lua) return;
    mo_batch *qb = quad_batch(2, 1);
    CHECK(qb != NULL);
    if (!qb) return;
    int nq = 0, nv = 0;
    mo_batch_sizes(qb, NULL, NULL, &nq, &nv);
    double *jq = calloc((size_t)(2 * nq), sizeof *jq), *jv = calloc((size_t)(2 * nv), sizeof *jv);
    double *jq2 = calloc((size_t)(2 * nq), sizeof *jq), *jv2 = calloc((size_t)(2 * nv), sizeof *jv);
    uint64_t g0[2], g1[2];
    mo_batch_state_hashes(qb, g0, 2);
    CHECK(mo_batch_get_joints(qb, jq, 2 * nq, jv, 2 * nv) == MO_OK);
    CHECK(jq[2] > 0.4 && jq[3] == 1.0); /* base height, quaternion w */
    for (int k = 7; k < nq; k++) jq[nq + k] += 0.01 * k; /* world 1 bends its legs */
    for (int k = 0; k < nv; k++) jv[nv + k] = 0.001 * k;
    CHECK(mo_batch_set_joints(qb, jq, 2 * nq, jv, 2 * nv) == MO_OK);
    CHECK(mo_batch_get_joints(qb, jq2, 2 * nq, jv2, 2 * nv) == MO_OK);
    CHECK(memcmp(jq, jq2, (size_t)(2 * nq) * sizeof *jq) == 0);
    CHECK(memcmp(jv, jv2, (size_t)(2 * nv) * sizeof *jv) == 0);
    mo_batch_state_hashes(qb, g1, 2);
    CHECK(g1[0] == g0[0] && g1[1] != g0[1]);
    CHECK(mo_batch_reset(qb, 1) == MO_OK);
    mo_batch_state_hashes(qb, g1, 2);
    CHECK(g1[1] == g0[1]);
    free(jq);
    free(jv);
    free(jq2);
    free(jv2);
    mo_batch_destroy(qb);
}

/* ---- 4: errors ---- */
static void test_errors(void)
{
    char err[512];
    mo_batch *b = NULL;
    mo_batch_def d = mo_default_batch_def();
    d.build = build_box;
    d.worlds = 0;
    CHECK(mo_batch_create(&d, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && b == NULL);
    CHECK_STR(err, "mo_batch_create: worlds must be in [1, 65536], got 0");
    d.worlds = -3;
    CHECK(mo_batch_create(&d, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_batch_create: worlds must be in [1, 65536], got -3");
    d.worlds = 2;
    d.scene_path = quad_path;
    CHECK(mo_batch_create(&d, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_batch_create: exactly one of scene_path and build must be set, got both");
    d.scene_path = NULL;
    const char *bad[] = {"solver.kind=nonsense"};
    d.settings = bad;
    d.setting_count = 1;
    CHECK(mo_batch_create(&d, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && b == NULL);
    CHECK(strncmp(err, "mo_batch_create: world 0: ", 26) == 0);
    d.settings = NULL;
    d.setting_count = 0;
    d.build = build_uneven;
    d.worlds = 3;
    CHECK(mo_batch_create(&d, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && b == NULL);
    CHECK_STR(err, "mo_batch_create: world 1 has 3 dynamic bodies and 0 articulations, world 0 has 2 and 0: every "
                   "world must have the same structure");
    mo_batch_def raw;
    memset(&raw, 0, sizeof raw);
    CHECK(mo_batch_create(&raw, &b, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_batch_create: the def was not initialised with mo_default_batch_def()");

    b = box_batch(3, 1);
    CHECK(b != NULL);
    if (!b) return;
    for (int s = 0; s < 5; s++) mo_batch_step(b);
    uint64_t h0[3], h1[3];
    mo_batch_state_hashes(b, h0, 3);
    mo_vec3 p[6], v[6];
    mo_batch_get_bodies(b, p, NULL, v, NULL, 6);

    CHECK(mo_batch_reset(b, 3) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_reset: world index 3 is out of range [0, 2] (or MO_BATCH_ALL)");
    CHECK(mo_batch_set_gravity(b, -2, (mo_vec3){0, 0, -1}) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_set_gravity: world index -2 is out of range [0, 2] (or MO_BATCH_ALL)");
    CHECK(mo_batch_world(b, 7) == NULL);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_world: world index 7 is out of range [0, 2]");
    CHECK(mo_batch_set_gravity(b, 1, (mo_vec3){0, NAN, -1}) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_set_gravity: gravity must be finite with components in [-1e+08, 1e+08] m/s^2, got (0, nan, -1)");
    CHECK(mo_batch_get_bodies(b, p, NULL, NULL, NULL, 5) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_get_bodies: arrays of 5 entries, the batch has 3 worlds x 2 bodies = 6");
    int c[2];
    CHECK(mo_batch_contact_counts(b, c, 2) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_contact_counts: arrays of 2 entries, the batch has 3 worlds x 1 count = 3");
    mo_vec3 pn[6];
    for (int j = 0; j < 6; j++) pn[j] = (mo_vec3){1, 2, 3};    /* world 0 would change ... */
    pn[5].y = NAN;     /* ... but world 2's body 1 is refused */
    CHECK(mo_batch_set_bodies(b, pn, NULL, NULL, NULL, 6) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_set_bodies: world 2, body 1: position must be finite with coordinates "
                                      "in [-1e+09, 1e+09] m, got (1, nan, 3)");
    mo_vec3 vn[6];
    for (int j = 0; j < 6; j++) vn[j] = (mo_vec3){0, 0, 0};
    vn[2] = (mo_vec3){1.5, 0.25, INFINITY};
    CHECK(mo_batch_set_bodies(b, NULL, NULL, NULL, vn, 6) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_set_bodies: world 1, body 0: angular velocity must be finite with "
                                      "components in [-1e+08, 1e+08], got (1.5, 0.25, inf)");
    mo_quat qz[6];
    memset(qz, 0, sizeof qz);
    CHECK(mo_batch_set_bodies(b, NULL, qz, NULL, NULL, 6) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_set_bodies: world 0, body 0: orientation must be a finite non-zero "
                                      "quaternion, got (0, 0, 0, 0)");
    const char *later[] = {"solver.iterations=-4"};
    CHECK(mo_batch_set_settings(b, MO_BATCH_ALL, later, 1) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strncmp(mo_batch_last_error(b), "mo_batch_set_settings: world 0: ", 32) == 0);
    CHECK(mo_batch_step_n(b, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b), "mo_batch_step_n: steps must be >= 1, got 0");
    CHECK(mo_batch_set_threads(b, -1) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_batch_threads(b) == 1);
    double jq[1];
    CHECK(mo_batch_get_joints(b, jq, 1, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(b),
              "mo_batch_get_joints: arrays of 1 entries, the batch has 3 worlds x 0 joint coordinates = 0");
    /* nothing changed */
    mo_batch_state_hashes(b, h1, 3);
    for (int i = 0; i < 3; i++) CHECK(h1[i] == h0[i]);
    char val[64];
    mo_world_get_setting(mo_batch_world(b, 2), "solver.iterations", val, sizeof val);
    mo_world_get_setting(mo_batch_world(b, 0), "solver.iterations", err, sizeof err);
    CHECK_STR(val, err);
    mo_batch_destroy(b);

    /* a zero quaternion in world 1's joints: refused, nothing changed */
    if (!have_lua) return;
    mo_batch *qb = quad_batch(2, 1);
    CHECK(qb != NULL);
    if (!qb) return;
    double q[2 * 19];
    CHECK(mo_batch_get_joints(qb, q, 2 * 19, NULL, 0) == MO_OK);
    q[19 + 3] = q[19 + 4] = q[19 + 5] = q[19 + 6] = 0.0; /* world 1's base quaternion */
    CHECK(mo_batch_set_joints(qb, q, 2 * 19, NULL, 0) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_batch_last_error(qb), "mo_batch_set_joints: world 1: the quaternion q[3..6] (0, 0, 0, 0) is zero");
    mo_batch_destroy(qb);
}

int main(void)
{
    const char *dir = getenv("MOREAU_SCENES_DIR");
    snprintf(quad_path, sizeof quad_path, "%s/quadruped.lua", dir ? dir : "scenes");
    mo_scene_file *probe = NULL;
    char err[512];
    have_lua = mo_scene_file_load(quad_path, NULL, &probe, err, sizeof err) != MO_ERR_UNSUPPORTED;
    mo_scene_file_destroy(probe);
    if (have_lua) test_identical();
    test_different();
    test_state();
    test_drives();
    test_errors();
    return check_result("batch");
}
