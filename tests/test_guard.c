/* test_guard.c: the step's finite guard and rollback (issue 18). A
 * non-finite value made by a stage stops mo_world_step with
 * MO_ERR_NOT_FINITE and a sentence naming the stage and the object, and the
 * world is exactly as before the call: its state hash, time, step count and
 * contact list, and the steps after the cause is removed equal those of a
 * twin world that never failed. The non-finite values are planted in the
 * model's storage (model/world.h), as a bug or a corrupted input would leave
 * them: the public API refuses them (test_misuse). Also: Newton with 30,000
 * inner PCR iterations stays finite (it produced NaN before issue 18). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/world.h"
#include "model/fem.h"
#include "check.h"

static mo_world *make(mo_solver_kind kind)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.kind = kind;
    mo_world *w;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        return NULL;
    }
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id id;
    CHECK(mo_body_create(w, &g, &id) == MO_OK);
    for (int i = 0; i < 3; i++) {
        mo_body_def b = mo_default_body_def();
        b.shape.type = MO_SHAPE_BOX;
        b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
        b.position = (mo_vec3){0, 0, 0.1 + 0.2 * i};
        CHECK(mo_body_create(w, &b, &id) == MO_OK);
    }
    return w;
}

/* the world's observable state, for "unchanged" */
typedef struct snapshot {
    uint64_t hash, steps;
    double time;
    int contacts;
} snapshot;

static snapshot snap(const mo_world *w)
{
    snapshot s = {mo_world_state_hash(w), mo_world_last_stats(w).step, mo_world_time(w), mo_world_contacts(w, NULL, 0)};
    return s;
}

static bool same(snapshot a, snapshot b)
{
    return a.hash == b.hash && a.steps == b.steps && a.time == b.time && a.contacts == b.contacts;
}

/* plants a NaN force on body 2 of w (slot 1) */
static void plant_force(mo_world *w) { w->bodies[1].k.f[0] = NAN; }

static void prediction(void)
{
    mo_world *a = make(MO_SOLVER_PGS), *b = make(MO_SOLVER_PGS);
    for (int i = 0; i < 5; i++) CHECK(mo_world_step(a) == MO_OK && mo_world_step(b) == MO_OK);
    snapshot s0 = snap(a);
    CHECK(s0.contacts > 0);
    plant_force(a);
    CHECK(mo_world_step(a) == MO_ERR_NOT_FINITE);
    const char *e = mo_world_last_error(a); /* the other components are the stack's jitter: not checked */
    CHECK(strncmp(e, "mo_world_step: step 5: the prediction gave body 2 a non-finite velocity: linear (nan, ", 84) == 0);
    CHECK(strstr(e, "); the world is as before the step") != NULL);
    printf("prediction: %s\n", mo_world_last_error(a));
    a->bodies[1].k.f[0] = 0.0; /* the state hash does not see forces: compare the steps after */
    CHECK(same(snap(a), s0));
    for (int i = 0; i < 5; i++) CHECK(mo_world_step(a) == MO_OK && mo_world_step(b) == MO_OK);
    CHECK(mo_world_state_hash(a) == mo_world_state_hash(b));
    mo_world_destroy(a);
    mo_world_destroy(b);
}

/* a NaN warm start in the contact cache: the solver's velocities go NaN */
static void solve(mo_solver_kind kind, const char *sentence)
{
    mo_world *a = make(kind), *b = make(kind);
    for (int i = 0; i < 5; i++) CHECK(mo_world_step(a) == MO_OK && mo_world_step(b) == MO_OK);
    snapshot s0 = snap(a);
    CHECK(a->ncache > 0);
    mo_contact_cache *c = (mo_contact_cache *)a->cache.p;
    double keep = c[0].normal_impulse;
    c[0].normal_impulse = NAN;
    mo_status st = mo_world_step(a);
    CHECK(st == MO_ERR_NOT_FINITE);
    CHECK_STR(mo_world_last_error(a), sentence);
    printf("%s: %s\n", mo_solver_name(kind), mo_world_last_error(a));
    CHECK(same(snap(a), s0));
    double res[64];
    int nres = mo_world_contact_residuals(a, res, 64);
    CHECK(nres == s0.contacts && nres > 0 && isnan(res[0])); /* their rows were overwritten: NaN, not garbage */
    CHECK(isnan(((mo_contact_cache *)a->cache.p)[0].normal_impulse)); /* the cache as it was, NaN and all */
    ((mo_contact_cache *)a->cache.p)[0].normal_impulse = keep;
    for (int i = 0; i < 5; i++) CHECK(mo_world_step(a) == MO_OK && mo_world_step(b) == MO_OK);
    CHECK(mo_world_state_hash(a) == mo_world_state_hash(b));
    mo_world_destroy(a);
    mo_world_destroy(b);
}

/* Newton with an FEM mesh whose material constants are NaN (the uninitialised material of issue 18) */
static void newton_fem(int halvings)
{
    mo_world *w = make(MO_SOLVER_NEWTON);
    mo_solver_settings ss = mo_world_solver(w);
    ss.newton.halvings = halvings;
    CHECK(mo_world_set_solver(w, &ss) == MO_OK);
    static const mo_vec3 nodes[4] = {{0, 0, 0}, {0.1, 0, 0}, {0, 0.1, 0}, {0, 0, 0.1}};
    static const int tet[4] = {0, 1, 2, 3};
    mo_fem_material_def mat = {1e5, 0.3, 1000, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def m = mo_default_fem_mesh_def();
    m.nodes = nodes;
    m.node_count = 4;
    m.tets = tet;
    m.tet_count = 1;
    m.materials = &mat;
    m.material_count = 1;
    m.position = (mo_vec3){1, 0, 0.01};
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &m, &id) == MO_OK);
    for (int i = 0; i < 3; i++) CHECK(mo_world_step(w) == MO_OK);
    snapshot s0 = snap(w);
    fem_world *fw = (fem_world *)w->fem;
    fw->m[id.index - 1].kmat[0].mu_l = NAN;
    fw->m[id.index - 1].kmat[0].lambda_l = NAN;
    CHECK(mo_world_step(w) == MO_ERR_NOT_FINITE);
    const char *e = mo_world_last_error(w);
    printf("newton, %d halvings: %s (%d halvings counted)\n", halvings, e, mo_world_last_stats(w).halvings);
    CHECK_STR(e, "mo_world_step: step 3: the Newton step left the residual of FEM row 3 not finite after 0 "
                 "iterations; the world is as before the step");
    CHECK(same(snap(w), s0));
    mo_world_destroy(w);
}

/* issue 18: 30,000 inner PCR iterations ended in NaN (nan warning, penetration); now a converged step */
static void long_inner_solves(void)
{
    mo_world *w = make(MO_SOLVER_NEWTON);
    mo_solver_settings ss = mo_world_solver(w);
    ss.newton.linear_iterations = 30000;
    CHECK(mo_world_set_solver(w, &ss) == MO_OK);
    for (int i = 0; i < 20; i++) CHECK(mo_world_step(w) == MO_OK);
    mo_step_stats st = mo_world_last_stats(w);
    printf("newton, 30000 inner iterations: residual %.3g, %d inner iterations in the last step, penetration %.3g m\n",
           st.residual, st.linear_iterations, st.max_penetration);
    CHECK(isfinite(st.residual) && st.residual < 1e-10 && st.nan_warnings == 0);
    CHECK(st.linear_iterations < 12 * 30000); /* stopped at round-off, not run to the budget */
    CHECK(st.max_penetration < 1e-3);
    mo_world_destroy(w);
}

int main(void)
{
    prediction();
    solve(MO_SOLVER_PGS, "mo_world_step: step 5: the solver 'pgs' gave body 2 a non-finite velocity: linear (nan, nan, "
                         "nan), angular (nan, nan, nan); the world is as before the step");
    solve(MO_SOLVER_APGD, "mo_world_step: step 5: the solver 'apgd' gave body 2 a non-finite velocity: linear (nan, "
                          "nan, nan), angular (nan, nan, nan); the world is as before the step");
    newton_fem(0);
    newton_fem(2);
    long_inner_solves();
    return check_result("guard");
}
