/* test_pair_filter.c: pair exclusion (mo_world_set_pair_collision,
 * mo_world_pair_collision, mo_world_excluded_pairs): two overlapping boxes stop
 * colliding when the pair is excluded and collide again when it is allowed;
 * a box dropped on another falls through it to the ground while excluded;
 * the exact sentences for stale ids and the same body twice; a destroyed
 * body's exclusions go with it (a new body in its slot collides); the
 * exclusion is model, not state (save/restore leave it alone).
 *
 *        zero gravity, overlap 0.05 m         gravity: B dropped on A
 *        +------+--+------+                        [ B ]  z = 0.5
 *        |  A   |//|  B   |                        [ A ]  z = 0.1
 *        +------+--+------+                   ============ ground */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/moreau.h"
#include "check.h"

static mo_world *new_world(double gz)
{
    mo_world_def wd = mo_default_world_def();
    wd.gravity = (mo_vec3){0, 0, gz};
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static mo_body_id box(mo_world *w, double x, double z)
{
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    b.position = (mo_vec3){x, 0, z};
    mo_body_id id;
    CHECK(mo_body_create(w, &b, &id) == MO_OK);
    return id;
}

/* contacts of the last step between bodies a and b */
static int contacts_between(const mo_world *w, mo_body_id a, mo_body_id b)
{
    mo_contact c[64];
    int n = mo_world_contacts(w, c, 64), k = 0;
    for (int i = 0; i < n && i < 64; i++) {
        bool ab = c[i].body_a.index == a.index && c[i].body_b.index == b.index;
        bool ba = c[i].body_a.index == b.index && c[i].body_b.index == a.index;
        k += ab || ba;
    }
    return k;
}

static double speed(const mo_world *w, mo_body_id id)
{
    mo_vec3 v;
    CHECK(mo_body_linear_velocity(w, id, &v) == MO_OK);
    return sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

/* overlapping boxes in zero gravity: excluded, nothing happens; allowed, they push apart */
static void test_overlap(void)
{
    mo_world *w = new_world(0);
    mo_body_id a = box(w, 0, 0), b = box(w, 0.15, 0);
    bool on = false;
    CHECK(mo_world_pair_collision(w, a, b, &on) == MO_OK && on);
    CHECK(mo_world_set_pair_collision(w, a, b, false) == MO_OK);
    CHECK(mo_world_set_pair_collision(w, b, a, false) == MO_OK); /* repeated, either order: a no-op */
    CHECK(mo_world_pair_collision(w, b, a, &on) == MO_OK && !on);
    mo_body_id pa[4], pb[4];
    CHECK(mo_world_excluded_pairs(w, pa, pb, 4) == 1);
    CHECK(pa[0].index == a.index && pa[0].generation == a.generation && pb[0].index == b.index);
    for (int i = 0; i < 20; i++) CHECK(mo_world_step(w) == MO_OK);
    CHECK(contacts_between(w, a, b) == 0);
    CHECK(speed(w, a) == 0 && speed(w, b) == 0);
    mo_vec3 p;
    CHECK(mo_body_position(w, b, &p) == MO_OK && p.x == 0.15);
    /* allowed again: contacts and a push */
    CHECK(mo_world_set_pair_collision(w, a, b, true) == MO_OK);
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
    CHECK(mo_world_pair_collision(w, a, b, &on) == MO_OK && on);
    CHECK(mo_world_step(w) == MO_OK);
    CHECK(contacts_between(w, a, b) > 0);
    for (int i = 0; i < 20; i++) CHECK(mo_world_step(w) == MO_OK);
    CHECK(speed(w, a) > 1e-3 && speed(w, b) > 1e-3);
    CHECK(mo_body_position(w, b, &p) == MO_OK && p.x > 0.2);
    printf("overlap: excluded 20 steps: no contact, at rest; allowed: contacts, b at x = %.4f m\n", p.x);
    mo_world_destroy(w);
}

/* B dropped on A: excluded, B passes through A and rests on the ground; A still rests on the ground */
static void test_drop(void)
{
    double z[2];
    for (int excl = 0; excl < 2; excl++) {
        mo_world *w = new_world(-9.81);
        mo_body_def g = mo_default_body_def();
        g.type = MO_BODY_STATIC;
        g.shape.type = MO_SHAPE_PLANE;
        mo_body_id ground, a, b;
        CHECK(mo_body_create(w, &g, &ground) == MO_OK);
        a = box(w, 0, 0.1);
        b = box(w, 0, 0.5);
        if (excl) CHECK(mo_world_set_pair_collision(w, a, b, false) == MO_OK);
        for (int i = 0; i < 300; i++) CHECK(mo_world_step(w) == MO_OK);
        mo_vec3 pa, pb;
        CHECK(mo_body_position(w, a, &pa) == MO_OK && mo_body_position(w, b, &pb) == MO_OK);
        CHECK_NEAR(pa.z, 0.1, 0.01);
        z[excl] = pb.z;
        mo_world_destroy(w);
    }
    CHECK_NEAR(z[0], 0.3, 0.01);
    CHECK_NEAR(z[1], 0.1, 0.01);
    printf("drop: B rests at z = %.4f m on A, at z = %.4f m on the ground when excluded\n", z[0], z[1]);
}

static char sbuf[256];
static const char *sentence(const char *fmt, unsigned i, unsigned g)
{
    snprintf(sbuf, sizeof sbuf, fmt, i, g);
    return sbuf;
}

/* errors, destruction, slot reuse, state */
static void test_errors_and_lifetime(void)
{
    mo_world *w = new_world(0);
    mo_body_id a = box(w, 0, 0), b = box(w, 0.15, 0), c = box(w, 5, 0);
    bool on = true;
    CHECK(mo_world_set_pair_collision(w, a, a, false) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_set_pair_collision: body a and body b are the same body (index 1): a "
                                      "body's own shapes never collide");
    CHECK(mo_world_pair_collision(w, b, b, &on) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_pair_collision: body a and body b are the same body (index 2): a "
                                      "body's own shapes never collide");
    CHECK(mo_world_pair_collision(w, a, b, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_world_pair_collision: enabled must not be NULL");
    CHECK(mo_world_set_pair_collision(NULL, a, b, false) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_pair_collision(NULL, a, b, &on) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_excluded_pairs(NULL, NULL, NULL, 0) == 0);
    mo_body_id null_id = {0, 0};
    CHECK(mo_world_set_pair_collision(w, null_id, b, false) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w),
              "mo_world_set_pair_collision: body a (index 0, generation 0) does not name a live body");
    /* exclusions of a destroyed body go with it */
    CHECK(mo_world_set_pair_collision(w, a, b, false) == MO_OK);
    CHECK(mo_world_set_pair_collision(w, b, c, false) == MO_OK);
    CHECK(mo_world_set_pair_collision(w, a, c, false) == MO_OK);
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 3);
    /* state: the exclusions are not in it, and a restore keeps them */
    size_t n = mo_world_state_size(w);
    void *buf = malloc(n);
    CHECK(buf && mo_world_save_state(w, buf, n) == MO_OK);
    CHECK(mo_world_set_pair_collision(w, a, c, true) == MO_OK);
    CHECK(mo_world_state_size(w) == n);
    CHECK(mo_world_restore_state(w, buf, n) == MO_OK);
    CHECK(mo_world_pair_collision(w, a, c, &on) == MO_OK && on);
    free(buf);
    CHECK(mo_body_destroy(w, b) == MO_OK);
    CHECK(mo_world_excluded_pairs(w, NULL, NULL, 0) == 0);
    CHECK(mo_world_set_pair_collision(w, a, b, true) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), sentence("mo_world_set_pair_collision: body b (index %u, generation %u) does "
                                               "not name a live body", b.index, b.generation));
    CHECK(mo_world_pair_collision(w, b, a, &on) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), sentence("mo_world_pair_collision: body a (index %u, generation %u) does not "
                                               "name a live body", b.index, b.generation));
    /* a new body in b's slot starts with no exclusion: it collides with a */
    mo_body_id b2 = box(w, 0.15, 0);
    CHECK(b2.index == b.index && b2.generation != b.generation);
    CHECK(mo_world_pair_collision(w, a, b2, &on) == MO_OK && on);
    CHECK(mo_world_step(w) == MO_OK);
    CHECK(contacts_between(w, a, b2) > 0);
    /* an id of another world */
    mo_world *w2 = new_world(0);
    mo_body_id other = box(w2, 0, 0);
    CHECK(mo_world_set_pair_collision(w, a, other, false) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), sentence("mo_world_set_pair_collision: body b (index %u, generation %u) belongs "
                                               "to another world", other.index, other.generation));
    mo_world_destroy(w2);
    mo_world_destroy(w);
}

int main(void)
{
    test_overlap();
    test_drop();
    test_errors_and_lifetime();
    return check_result("pair_filter");
}
