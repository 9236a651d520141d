/* test_sleep.c: islands and sleeping (moreau/sleep.h, docs/sleeping.md).
 * - a box dropped on the ground sleeps after it settles (sleep_time after its
 *   speeds fell under the thresholds) and its pose then stays bit for bit;
 * - a sleeping pile's step does no narrowphase, rows or solve (contacts 0,
 *   rows 0) and the statistics count its bodies and islands;
 * - a ball thrown at one of two sleeping stacks wakes that stack only;
 * - a woken island starts from its contacts' kept impulses (warm start);
 * - mo_body_apply_force, mo_body_set_velocity, mo_body_wake, a gravity change
 *   wake (the whole island, nothing else);
 * - a jointed pair sleeps together and wakes together;
 * - a moving kinematic body wakes what it runs into, a still one nothing;
 * - off (the default): nothing sleeps, the state is that of a world without
 *   the setting; settings by name and a Lua world{sleep = true} round trip;
 * - 1 and 2 threads give bit-identical states and sleep counts;
 * - a saved state restores the sleep state exactly (same hashes after);
 * - stale ids and NULL arguments: the exact sentences.
 *
 *    stack A (x = 0)    stack B (x = 3)      ball thrown at A from x = -2
 *      [a3]                [b3]
 *      [a2]                [b2]               o -->
 *      [a1]                [b1]
 *   ================ ground plane z = 0 ================== */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"
#include "moreau/sleep.h"
#include "moreau/scene.h"
#include "check.h"
#include "tmpdir.h"

static mo_world *new_world(bool sleep, int threads)
{
    mo_world_def wd = mo_default_world_def();
    wd.sleep = sleep;
    wd.threads = threads;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid;
    if (mo_body_create(w, &g, &gid) != MO_OK) exit(1);
    return w;
}

static mo_body_id box(mo_world *w, double x, double z)
{
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    b.position = (mo_vec3){x, 0, z};
    mo_body_id id = {0, 0};
    CHECK(mo_body_create(w, &b, &id) == MO_OK);
    return id;
}

/* a stack of three boxes at x, resting (0.2 m each) */
static void stack(mo_world *w, double x, mo_body_id *ids)
{
    for (int k = 0; k < 3; k++) ids[k] = box(w, x, 0.1 + 0.2 * k);
}

static bool sleeping(const mo_world *w, mo_body_id id)
{
    bool s = false;
    CHECK(mo_body_is_sleeping(w, id, &s) == MO_OK);
    return s;
}

static int steps(mo_world *w, int n)
{
    for (int i = 0; i < n; i++)
        if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "step: %s\n", mo_world_last_error(w));
            return -1;
        }
    return 0;
}

static int same_pose(const mo_world *w, mo_body_id id, const mo_vec3 *p, const mo_quat *q)
{
    mo_vec3 p2;
    mo_quat q2;
    mo_body_position(w, id, &p2);
    mo_body_orientation(w, id, &q2);
    return memcmp(p, &p2, sizeof p2) == 0 && memcmp(q, &q2, sizeof q2) == 0;
}

/* a box dropped from 0.5 m: falls, settles, sleeps sleep_time after it came to rest; its pose then stays */
static void test_box_sleeps(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id b = box(w, 0, 0.5);
    double h = mo_world_time_step(w);
    /* the step its speeds first stay under the thresholds, and the step it sleeps */
    int rest_from = -1, slept = -1;
    for (int i = 1; i <= 600 && slept < 0; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        mo_vec3 v, om;
        mo_body_linear_velocity(w, b, &v);
        mo_body_angular_velocity(w, b, &om);
        bool under = sqrt(v.x * v.x + v.y * v.y + v.z * v.z) < 0.05 && sqrt(om.x * om.x + om.y * om.y + om.z * om.z) < 0.05;
        if (!under) rest_from = -1;
        else if (rest_from < 0) rest_from = i;
        if (sleeping(w, b)) slept = i;
    }
    CHECK(slept > 0 && rest_from > 0);
    /* asleep once 0.5 s of rest accumulated: 60 steps of 1/120 s from the first step at rest */
    CHECK(slept - rest_from + 1 == (int)ceil(0.5 / h - 1e-9));
    printf("box: at rest from step %d, asleep at step %d (t = %.3f s)\n", rest_from, slept, slept * h);
    mo_vec3 p, v;
    mo_quat q;
    mo_body_position(w, b, &p);
    mo_body_orientation(w, b, &q);
    mo_body_linear_velocity(w, b, &v);
    CHECK(v.x == 0.0 && v.y == 0.0 && v.z == 0.0);
    CHECK_NEAR(p.z, 0.1, 0.01);
    uint64_t hash = mo_world_state_hash(w);
    CHECK(steps(w, 300) == 0);
    CHECK(same_pose(w, b, &p, &q));
    CHECK(mo_world_state_hash(w) == hash);
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.sleeping_bodies == 1 && st.awake_bodies == 0 && st.islands == 1);
    CHECK(st.contacts == 0 && st.rows == 0 && st.dofs == 0);
    mo_world_destroy(w);
}

/* two stacks asleep: no contacts, no rows; a ball thrown at stack A wakes A, not B */
static void test_stacks_and_ball(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id a[3], b[3];
    stack(w, 0.0, a);
    stack(w, 3.0, b);
    CHECK(steps(w, 240) == 0);
    for (int k = 0; k < 3; k++) CHECK(sleeping(w, a[k]) && sleeping(w, b[k]));
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.sleeping_bodies == 6 && st.awake_bodies == 0 && st.islands == 2);
    CHECK(st.contacts == 0 && st.rows == 0 && st.dofs == 0 && st.iterations == 0);
    mo_vec3 pb[3];
    mo_quat qb[3];
    for (int k = 0; k < 3; k++) {
        mo_body_position(w, b[k], &pb[k]);
        mo_body_orientation(w, b[k], &qb[k]);
    }
    /* a ball thrown at a2 */
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.05;
    bd.mass = 0.5;
    bd.position = (mo_vec3){-1.0, 0, 0.3};
    bd.linear_velocity = (mo_vec3){6.0, 0, 0.4};
    bd.angular_damping = 2.0; /* a sphere would roll on for ever */
    bd.linear_damping = 0.5;
    mo_body_id ball;
    CHECK(mo_body_create(w, &bd, &ball) == MO_OK);
    int woke = -1;
    for (int i = 1; i <= 60 && woke < 0; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        if (!sleeping(w, a[1])) woke = i;
    }
    CHECK(woke > 0);
    printf("stack A woke at step %d after the throw\n", woke);
    for (int k = 0; k < 3; k++) CHECK(!sleeping(w, a[k])); /* the whole island */
    st = mo_world_last_stats(w);
    CHECK(st.sleeping_bodies == 3 && st.awake_bodies == 4 && st.contacts > 0);
    /* the ball's hit moved A; B stays asleep, bit for bit, while A and the ball move and settle */
    mo_vec3 pa;
    mo_body_position(w, a[1], &pa);
    CHECK(steps(w, 30) == 0);
    mo_vec3 pa2;
    mo_body_position(w, a[1], &pa2);
    CHECK(pa2.x != pa.x);
    for (int k = 0; k < 3; k++) {
        CHECK(sleeping(w, b[k]));
        CHECK(same_pose(w, b[k], &pb[k], &qb[k]));
    }
    /* stack A settles and sleeps again */
    CHECK(steps(w, 600) == 0);
    st = mo_world_last_stats(w);
    printf("600 steps later: %d awake, %d asleep, %d islands\n", st.awake_bodies, st.sleeping_bodies, st.islands);
    for (int k = 0; k < 3; k++) CHECK(sleeping(w, a[k]) && sleeping(w, b[k])); /* the ball may still roll */
    CHECK(st.sleeping_bodies >= 6);
    mo_world_destroy(w);
}

/* a sleeping island keeps its contacts' impulses: woken, it starts warm and stays put (5 x 3 boxes side by side,
   one island: 0.4 um in the first step; with a cold start 47 um) */
static void test_wake_warm(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id id[15];
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 3; k++) id[3 * i + k] = box(w, 0.2 * i, 0.1 + 0.2 * k);
    CHECK(steps(w, 300) == 0);
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.sleeping_bodies == 15 && st.islands == 1);
    mo_vec3 p0[15];
    for (int i = 0; i < 15; i++) mo_body_position(w, id[i], &p0[i]);
    CHECK(mo_body_wake(w, id[7]) == MO_OK);
    CHECK(mo_world_step(w) == MO_OK);
    double dmax = 0.0;
    for (int i = 0; i < 15; i++) {
        mo_vec3 p;
        mo_body_position(w, id[i], &p);
        dmax = fmax(dmax, fabs(p.x - p0[i].x) + fabs(p.y - p0[i].y) + fabs(p.z - p0[i].z));
    }
    st = mo_world_last_stats(w);
    CHECK(st.awake_bodies == 15 && st.contacts > 0);
    CHECK(dmax < 2e-6);
    printf("woken 15-box island: largest move in its first step %.3g m\n", dmax);
    mo_world_destroy(w);
}

/* the calls that wake: force, velocity, wake, gravity; the island wakes, the other stays asleep */
static void test_api_wakes(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id a[3], b[3];
    stack(w, 0.0, a);
    stack(w, 3.0, b);
    CHECK(steps(w, 240) == 0);
    CHECK(sleeping(w, a[0]) && sleeping(w, b[0]));
    /* a force on a3 wakes stack A (and the force acts in the next step) */
    CHECK(mo_body_apply_force(w, a[2], (mo_vec3){0, 0, 1}, (mo_vec3){0, 0, 0}) == MO_OK);
    for (int k = 0; k < 3; k++) CHECK(!sleeping(w, a[k]) && sleeping(w, b[k]));
    CHECK(mo_world_step(w) == MO_OK);
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.awake_bodies == 3 && st.sleeping_bodies == 3 && st.islands == 2 && st.contacts > 0);
    CHECK(steps(w, 120) == 0);
    CHECK(sleeping(w, a[0]));
    /* a velocity on b1 wakes stack B */
    CHECK(mo_body_set_velocity(w, b[0], (mo_vec3){0.5, 0, 0}, (mo_vec3){0, 0, 0}) == MO_OK);
    for (int k = 0; k < 3; k++) CHECK(!sleeping(w, b[k]) && sleeping(w, a[k]));
    mo_vec3 v;
    mo_body_linear_velocity(w, b[0], &v);
    CHECK(v.x == 0.5);
    CHECK(steps(w, 240) == 0);
    CHECK(sleeping(w, b[0]));
    /* mo_body_wake: the island, its rest time restarts (asleep again no sooner than 0.5 s) */
    CHECK(mo_body_wake(w, a[1]) == MO_OK);
    for (int k = 0; k < 3; k++) CHECK(!sleeping(w, a[k]));
    CHECK(steps(w, 59) == 0);
    CHECK(!sleeping(w, a[0]));
    CHECK(steps(w, 1) == 0);
    CHECK(sleeping(w, a[0]));
    /* sleep_allowed false keeps the island awake */
    CHECK(mo_body_set_sleep_allowed(w, a[0], false) == MO_OK);
    CHECK(!sleeping(w, a[2]));
    CHECK(steps(w, 120) == 0);
    CHECK(!sleeping(w, a[2]) && sleeping(w, b[2]));
    CHECK(mo_body_set_sleep_allowed(w, a[0], true) == MO_OK);
    CHECK(steps(w, 60) == 0);
    CHECK(sleeping(w, a[2]));
    /* a gravity change wakes every island */
    CHECK(mo_world_set_gravity(w, (mo_vec3){0, 0, -9.80}) == MO_OK);
    for (int k = 0; k < 3; k++) CHECK(!sleeping(w, a[k]) && !sleeping(w, b[k]));
    CHECK(steps(w, 60) == 0);
    CHECK(sleeping(w, a[0]) && sleeping(w, b[0]));
    /* sleep_time 0: asleep at the first step at rest, never while moving */
    const char *zero[] = {"sleep_time=0"};
    CHECK(mo_world_set_settings(w, zero, 1) == MO_OK);
    CHECK(mo_body_set_velocity(w, a[2], (mo_vec3){0.3, 0, 0}, (mo_vec3){0, 0, 0}) == MO_OK);
    CHECK(mo_world_step(w) == MO_OK);
    CHECK(!sleeping(w, a[2]) && sleeping(w, b[2]));
    CHECK(steps(w, 120) == 0);
    CHECK(sleeping(w, a[2]));
    /* turning sleeping off wakes every island; nothing sleeps then */
    const char *off[] = {"sleep=false"};
    CHECK(mo_world_set_settings(w, off, 1) == MO_OK);
    CHECK(!sleeping(w, a[0]) && !sleeping(w, b[0]));
    CHECK(steps(w, 200) == 0);
    CHECK(!sleeping(w, a[0]) && !sleeping(w, b[0]));
    mo_world_destroy(w);
}

/* a kinematic box moving into a sleeping stack wakes it; a still one beside another does not */
static void test_kinematic(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id a[3], b[3];
    stack(w, 0.0, a);
    stack(w, 3.0, b);
    mo_body_def kd = mo_default_body_def();
    kd.type = MO_BODY_KINEMATIC;
    kd.shape.type = MO_SHAPE_BOX;
    kd.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    kd.position = (mo_vec3){-1.0, 0, 0.3};
    mo_body_id k, still;
    CHECK(mo_body_create(w, &kd, &k) == MO_OK);
    kd.position = (mo_vec3){3.205, 0, 0.3}; /* 5 mm from b2: within the contact margin, not moving */
    CHECK(mo_body_create(w, &kd, &still) == MO_OK);
    CHECK(steps(w, 240) == 0);
    CHECK(sleeping(w, a[0]) && sleeping(w, b[0]));
    CHECK(mo_body_set_velocity(w, k, (mo_vec3){1.0, 0, 0}, (mo_vec3){0, 0, 0}) == MO_OK);
    CHECK(sleeping(w, a[0])); /* a kinematic body's velocity wakes nothing by itself */
    int woke = -1;
    for (int i = 1; i <= 120 && woke < 0; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        if (!sleeping(w, a[1])) woke = i;
    }
    CHECK(woke > 60); /* it travels 0.8 m at 1 m/s first (96 steps) */
    CHECK(!sleeping(w, a[0]) && !sleeping(w, a[2]) && sleeping(w, b[1]));
    mo_world_destroy(w);

    /* a box asleep on a kinematic platform: the platform set elsewhere by the API wakes it, and it falls */
    w = new_world(true, 1);
    kd.position = (mo_vec3){0, 0, 1.0};
    kd.shape.half_extents = (mo_vec3){0.5, 0.5, 0.05};
    mo_body_id plat, top = box(w, 0.0, 1.15);
    CHECK(mo_body_create(w, &kd, &plat) == MO_OK);
    CHECK(steps(w, 120) == 0);
    CHECK(sleeping(w, top));
    CHECK(mo_body_set_pose(w, plat, (mo_vec3){5.0, 0, 1.0}, (mo_quat){1, 0, 0, 0}) == MO_OK);
    CHECK(!sleeping(w, top));
    CHECK(steps(w, 30) == 0);
    mo_vec3 p;
    mo_body_position(w, top, &p);
    CHECK(p.z < 1.0); /* falling: 0.25 s of free fall from 1.15 m */
    mo_world_destroy(w);
}

/* two boxes on the ground joined by a distance joint: one island, asleep and awake together */
static void test_joint_pair(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id p = box(w, 0.0, 0.1), q = box(w, 0.5, 0.1), lone = box(w, 2.0, 0.1);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_DISTANCE;
    jd.body_a = p;
    jd.body_b = q;
    jd.length = -1.0; /* the current distance */
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
    int np = -1, nq = -1;
    for (int i = 1; i <= 300; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        if (np < 0 && sleeping(w, p)) np = i;
        if (nq < 0 && sleeping(w, q)) nq = i;
    }
    CHECK(np > 0 && np == nq);
    mo_step_stats st = mo_world_last_stats(w);
    CHECK(st.islands == 2 && st.sleeping_bodies == 3 && st.rows == 0);
    CHECK(mo_body_wake(w, q) == MO_OK);
    CHECK(!sleeping(w, p) && !sleeping(w, q) && sleeping(w, lone));
    CHECK(steps(w, 100) == 0);
    /* the joint's motor or its destruction wakes the pair too */
    CHECK(sleeping(w, p));
    CHECK(mo_joint_destroy(w, j) == MO_OK);
    CHECK(!sleeping(w, p) && !sleeping(w, q) && sleeping(w, lone));
    mo_world_destroy(w);
}

/* off (the default): nothing sleeps, islands are counted, and the states equal a world with sleep thresholds
   changed (they are not read) */
static void test_off(void)
{
    mo_world *w1 = new_world(false, 1), *w2 = NULL;
    mo_world_def wd = mo_default_world_def();
    CHECK(wd.sleep == false && wd.sleep_linear_velocity == 0.05 && wd.sleep_angular_velocity == 0.05 &&
          wd.sleep_time == 0.5);
    wd.sleep_time = 0.0;
    wd.sleep_linear_velocity = 100.0;
    CHECK(mo_world_create(&wd, &w2, NULL, 0) == MO_OK);
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid, a[3], b[3];
    CHECK(mo_body_create(w2, &g, &gid) == MO_OK);
    stack(w1, 0.0, a);
    stack(w2, 0.0, b);
    CHECK(steps(w1, 300) == 0 && steps(w2, 300) == 0);
    CHECK(!sleeping(w1, a[0]) && !sleeping(w2, b[0]));
    CHECK(mo_world_state_hash(w1) == mo_world_state_hash(w2));
    mo_step_stats st = mo_world_last_stats(w1);
    CHECK(st.awake_bodies == 3 && st.sleeping_bodies == 0 && st.islands == 1 && st.contacts > 0);
    mo_world_destroy(w1);
    mo_world_destroy(w2);
}

/* a sleeping pile, woken by a ball, on 1 and 2 threads: the same hashes and counts every step */
static void test_threads(void)
{
    mo_world *w[2];
    for (int t = 0; t < 2; t++) {
        w[t] = new_world(true, t + 1);
        for (int i = 0; i < 5; i++)
            for (int k = 0; k < 3; k++) box(w[t], 0.25 * i, 0.1 + 0.2 * k);
    }
    int diff = 0, asleep = 0;
    for (int s = 0; s < 500; s++) {
        if (s == 300)
            for (int t = 0; t < 2; t++) {
                mo_body_def bd = mo_default_body_def();
                bd.shape.type = MO_SHAPE_SPHERE;
                bd.shape.radius = 0.05;
                bd.position = (mo_vec3){-0.8, 0, 0.4};
                bd.linear_velocity = (mo_vec3){5.0, 0, 0};
                mo_body_id id;
                CHECK(mo_body_create(w[t], &bd, &id) == MO_OK);
            }
        CHECK(mo_world_step(w[0]) == MO_OK && mo_world_step(w[1]) == MO_OK);
        mo_step_stats s0 = mo_world_last_stats(w[0]), s1 = mo_world_last_stats(w[1]);
        diff += mo_world_state_hash(w[0]) != mo_world_state_hash(w[1]) || s0.sleeping_bodies != s1.sleeping_bodies ||
                s0.islands != s1.islands;
        if (s == 299) asleep = s0.sleeping_bodies;
    }
    CHECK(diff == 0);
    CHECK(asleep == 15);
    printf("threads: 15-box pile asleep by step 300 (%d asleep), woken by a ball, 1 and 2 threads identical\n", asleep);
    mo_world_destroy(w[0]);
    mo_world_destroy(w[1]);
}

/* the sleep state is saved: restore and step again gives the same hashes and sleep flags */
static void test_state(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id a[3], b[3];
    stack(w, 0.0, a);
    stack(w, 3.0, b);
    CHECK(steps(w, 240) == 0);
    CHECK(mo_body_wake(w, a[0]) == MO_OK); /* A awake (resting), B asleep */
    size_t n = mo_world_state_size(w);
    void *buf = malloc(n);
    CHECK(mo_world_save_state(w, buf, n) == MO_OK);
    uint64_t hs[80];
    bool sa[80];
    for (int i = 0; i < 80; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        hs[i] = mo_world_state_hash(w);
        sa[i] = sleeping(w, a[0]);
    }
    CHECK(sa[79] && !sa[0]);
    CHECK(mo_world_restore_state(w, buf, n) == MO_OK);
    CHECK(!sleeping(w, a[0]) && sleeping(w, b[0]));
    int diff = 0;
    for (int i = 0; i < 80; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        diff += hs[i] != mo_world_state_hash(w) || sa[i] != sleeping(w, a[0]);
    }
    CHECK(diff == 0);
    free(buf);
    mo_world_destroy(w);
    /* version 3 (before the sleep state) is still read: a world without bodies has the same payload in both */
    mo_world_def wd = mo_default_world_def();
    CHECK(mo_world_create(&wd, &w, NULL, 0) == MO_OK);
    mo_particle_def pd = mo_default_particle_def();
    mo_particle_id pid;
    CHECK(mo_particle_create(w, &pd, &pid) == MO_OK);
    CHECK(steps(w, 3) == 0);
    n = mo_world_state_size(w);
    unsigned char *b3 = malloc(n);
    CHECK(mo_world_save_state(w, b3, n) == MO_OK);
    uint32_t v;
    memcpy(&v, b3 + 8, 4);
    CHECK(v == 4);
    v = 3;
    memcpy(b3 + 8, &v, 4);
    CHECK(mo_world_restore_state(w, b3, n) == MO_OK);
    v = 2;
    memcpy(b3 + 8, &v, 4);
    CHECK(mo_world_restore_state(w, b3, n) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w),
                  "mo_world_restore_state: the state has format version 2, this build reads versions 3 to 4"));
    free(b3);
    mo_world_destroy(w);
}

/* settings by name, and world{sleep = true, ...} in a scene file */
static void test_settings(void)
{
    mo_world_def d = mo_default_world_def();
    char out[64];
    CHECK(mo_world_def_get(&d, "sleep", out, sizeof out) == MO_OK && !strcmp(out, "false"));
    CHECK(mo_world_def_set(&d, "sleep", "true", NULL, 0) == MO_OK && d.sleep);
    CHECK(mo_world_def_set(&d, "sleep_time", "0.25", NULL, 0) == MO_OK && d.sleep_time == 0.25);
    CHECK(mo_world_def_get(&d, "sleep_linear_velocity", out, sizeof out) == MO_OK && !strcmp(out, "0.050000000000000003"));
    char err[256];
    mo_world *w = NULL;
    d.sleep_angular_velocity = -1.0;
    CHECK(mo_world_create(&d, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(err, "world sleep thresholds must be finite and >= 0, got sleep_linear_velocity 0.05 m/s, "
                       "sleep_angular_velocity -1 rad/s, sleep_time 0.25 s"));
    char dir[256], path[300];
    if (test_tmpdir_make(dir, sizeof dir, "test_sleep")) return;
    snprintf(path, sizeof path, "%s/sleep.lua", dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs("world{sleep = true, sleep_time = 0.25, sleep_angular_velocity = 0.1, duration = 2}\n"
          "body{type = 'static', shape = {type = 'plane'}}\n"
          "body{position = {0, 0, 0.1}, shape = {type = 'box', half_extents = {0.1, 0.1, 0.1}}}\n"
          "check('asleep', function() local s = moreau.stats()\n"
          "  return s.sleeping_bodies == 1 and s.awake_bodies == 0 and s.islands == 1 end)\n", f);
    fclose(f);
    mo_scene_options opt = mo_default_scene_options();
    mo_scene_file *s = NULL;
    CHECK(mo_scene_file_load(path, &opt, &s, err, sizeof err) == MO_OK);
    if (!s) {
        fprintf(stderr, "scene: %s\n", err);
        return;
    }
    mo_world *sw = mo_scene_file_world(s);
    CHECK(mo_world_get_setting(sw, "sleep", out, sizeof out) == MO_OK && !strcmp(out, "true"));
    CHECK(mo_world_get_setting(sw, "sleep_time", out, sizeof out) == MO_OK && !strcmp(out, "0.25"));
    CHECK(mo_world_get_setting(sw, "sleep_angular_velocity", out, sizeof out) == MO_OK && !strcmp(out, "0.10000000000000001"));
    for (int i = 0; i < 60; i++) CHECK(mo_scene_file_step(s) == MO_OK);
    mo_step_stats st = mo_world_last_stats(sw);
    CHECK(st.sleeping_bodies == 1 && st.awake_bodies == 0);
    mo_scene_check_result cr;
    CHECK(mo_scene_file_checks(s, &cr, 1) == 0 && cr.passed); /* moreau.stats() has the counts */
    mo_scene_file_destroy(s);
    test_tmpdir_remove(dir);
}

/* stale ids and NULL: the sentences */
static void test_errors(void)
{
    mo_world *w = new_world(true, 1);
    mo_body_id b = box(w, 0, 0.1);
    CHECK(mo_body_destroy(w, b) == MO_OK);
    bool s = true;
    CHECK(mo_body_is_sleeping(w, b, &s) == MO_ERR_STALE_ID && !s);
    char want[160];
    snprintf(want, sizeof want, "body id (index %u, generation %u) does not name a live body", b.index, b.generation);
    CHECK(!strcmp(mo_world_last_error(w), want));
    CHECK(mo_body_wake(w, b) == MO_ERR_STALE_ID);
    CHECK(!strcmp(mo_world_last_error(w), want));
    CHECK(mo_body_set_sleep_allowed(w, b, false) == MO_ERR_STALE_ID);
    CHECK(!strcmp(mo_world_last_error(w), want));
    mo_body_id c = box(w, 0, 0.1);
    CHECK(mo_body_is_sleeping(w, c, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w), "mo_body_is_sleeping: out must not be NULL"));
    CHECK(mo_body_is_sleeping(NULL, c, &s) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_body_wake(NULL, c) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_body_set_sleep_allowed(NULL, c, true) == MO_ERR_INVALID_ARGUMENT);
    mo_world_destroy(w);
}

int main(void)
{
    test_box_sleeps();
    test_stacks_and_ball();
    test_api_wakes();
    test_wake_warm();
    test_joint_pair();
    test_kinematic();
    test_off();
    test_threads();
    test_state();
    test_settings();
    test_errors();
    return check_result("sleep");
}
