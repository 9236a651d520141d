/* test_settings: the engine's settings table (moreau.h "settings by name").
 *   fields:  every field of mo_world_def has its setting, which writes exactly that field
 *   round trip: each default read as text and written back gives the same bytes
 *   ranges:  each finite bound of the table is what mo_world_create / mo_world_set_solver check
 *            (an open bound refused, a closed one accepted, beyond it refused)
 *   errors:  exact sentences; mo_world_set_settings is all or nothing; FEM meshes need newton
 *   lua:     world{} and moreau.set_solver{} (the same names) give the same settings as the C API
 *   doc:     docs/settings.md holds the table as moreau-run --list-settings prints it
 * $MOREAU_SOURCE_DIR is the source tree (for docs/settings.md). */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"
#include "../tools/cli_settings.h"

/* name, field, a text value other than the default, the same value for the field */
#define FIELDS(X)                                                              \
    X("gravity", gravity, "1,2,3", ((mo_vec3){1, 2, 3}))                      \
    X("time_step", time_step, "0.25", 0.25)                                   \
    X("substeps", substeps, "3", 3)                                           \
    X("threads", threads, "2", 2)                                             \
    X("contact_compliance", contact_compliance, "1e-6", 1e-6)                 \
    X("joint_compliance", joint_compliance, "2e-6", 2e-6)                     \
    X("damping_steps", damping_steps, "3", 3.0)                               \
    X("max_push_velocity", max_push_velocity, "0.5", 0.5)                     \
    X("contact_margin", contact_margin, "0.02", 0.02)                         \
    X("sleep", sleep, "true", true)                                           \
    X("sleep_linear_velocity", sleep_linear_velocity, "0.1", 0.1)             \
    X("sleep_angular_velocity", sleep_angular_velocity, "0.2", 0.2)           \
    X("sleep_time", sleep_time, "1.5", 1.5)                                   \
    X("backend", backend, "auto", MO_BACKEND_AUTO)                            \
    X("solver.kind", solver.kind, "newton", MO_SOLVER_NEWTON)                 \
    X("solver.iterations", solver.max_iterations, "77", 77)                   \
    X("solver.tolerance", solver.tolerance, "1e-7", 1e-7)                     \
    X("solver.omega", solver.omega, "1.5", 1.5)                               \
    X("solver.friction", solver.friction, "polyhedral", MO_FRICTION_POLYHEDRAL) \
    X("solver.facets", solver.friction_facets, "12", 12)                      \
    X("solver.coulomb_updates", solver.coulomb_updates, "4", 4)               \
    X("solver.warm_start", solver.warm_start, "false", false)                 \
    X("solver.record_residuals", solver.record_residuals, "true", true)       \
    X("solver.projections", solver.position_projections, "2", 2)              \
    X("solver.diagonal_scaling", solver.diagonal_scaling, "true", true)       \
    X("solver.apgd.rho", solver.apgd.rho, "acary", MO_RHO_ACARY)              \
    X("solver.apgd.backtracking", solver.apgd.backtracking, "false", false)   \
    X("solver.apgd.adaptive_rho", solver.apgd.adaptive_rho, "false", false)   \
    X("solver.apgd.restart", solver.apgd.restart, "false", false)             \
    X("solver.apgd.rho_ratio_max", solver.apgd.rho_ratio_max, "0.8", 0.8)     \
    X("solver.apgd.rho_ratio_min", solver.apgd.rho_ratio_min, "0.2", 0.2)     \
    X("solver.apgd.rho_factor", solver.apgd.rho_factor, "0.5", 0.5)           \
    X("solver.spg.alpha_min", solver.spg.alpha_min, "1e-8", 1e-8)             \
    X("solver.spg.alpha_max", solver.spg.alpha_max, "1e8", 1e8)               \
    X("solver.spg.n_gll", solver.spg.n_gll, "5", 5)                           \
    X("solver.spg.armijo", solver.spg.armijo, "1e-3", 1e-3)                   \
    X("solver.spg.sigma_min", solver.spg.sigma_min, "0.2", 0.2)               \
    X("solver.spg.sigma_max", solver.spg.sigma_max, "0.8", 0.8)               \
    X("solver.spg.tau_g", solver.spg.tau_g, "0.1", 0.1)                       \
    X("solver.spg.alpha0", solver.spg.alpha0, "0.3", 0.3)                     \
    X("solver.spg.preconditioner", solver.spg.preconditioner, "false", false) \
    X("solver.spg.step_rule", solver.spg.step_rule, "abbmin", MO_SPG_ABBMIN)  \
    X("solver.newton.iterations", solver.newton.iterations, "7", 7)           \
    X("solver.newton.linear_iterations", solver.newton.linear_iterations, "33", 33) \
    X("solver.newton.linear_tolerance", solver.newton.linear_tolerance, "0.01", 0.01) \
    X("solver.newton.step_fraction", solver.newton.step_fraction, "0.9", 0.9) \
    X("solver.newton.regularisation", solver.newton.regularisation, "1e-8", 1e-8) \
    X("solver.newton.ncp", solver.newton.ncp, "min_map", MO_NCP_MIN_MAP)      \
    X("solver.newton.linear", solver.newton.linear, "gauss_seidel", MO_NEWTON_GAUSS_SEIDEL) \
    X("solver.newton.scaling", solver.newton.scaling, "constant", MO_NEWTON_SCALING_CONSTANT) \
    X("solver.newton.scaling_constant", solver.newton.scaling_constant, "2", 2.0) \
    X("solver.newton.jacobi_omega", solver.newton.jacobi_omega, "0.7", 0.7)   \
    X("solver.newton.halvings", solver.newton.halvings, "3", 3)               \
    X("solver.newton.halving_residual", solver.newton.halving_residual, "1e-4", 1e-4)

static void test_fields(void)
{
    int n = 0;
    char err[512];
#define X(name, field, text, value)                                                      \
    {                                                                                    \
        mo_world_def a = mo_default_world_def(), b = mo_default_world_def();            \
        CHECK(mo_world_def_set(&a, name, text, err, sizeof err) == MO_OK);              \
        b.field = value;                                                                 \
        if (memcmp(&a, &b, sizeof a)) {                                                  \
            fprintf(stderr, "setting %s does not write exactly its field\n", name);      \
            check_failures++;                                                            \
        }                                                                                \
        n++;                                                                             \
    }
    FIELDS(X)
#undef X
    /* every setting of the table is one of the fields above, and each is there once */
    CHECK(n == mo_setting_count());
    for (int i = 0; i < mo_setting_count(); i++) CHECK(mo_setting_find(mo_setting_at(i)->name) == mo_setting_at(i));
    CHECK(mo_setting_at(-1) == NULL && mo_setting_at(mo_setting_count()) == NULL && mo_setting_find(NULL) == NULL);
    CHECK(mo_setting_is_group("solver") && mo_setting_is_group("solver.newton") && !mo_setting_is_group("solver.kind"));
    CHECK(!mo_setting_is_group("solv") && !mo_setting_is_group(""));
}

static void test_round_trip(void)
{
    const mo_world_def d = mo_default_world_def();
    mo_world_def e;
    memset(&e, 0xa5, sizeof e); /* every byte a field's setting does not write keeps this */
    e.internal_value = d.internal_value;
    char text[256], err[256];
    for (int i = 0; i < mo_setting_count(); i++) {
        const char *name = mo_setting_at(i)->name;
        CHECK(mo_world_def_get(&d, name, text, sizeof text) == MO_OK);
        CHECK(mo_world_def_set(&e, name, text, err, sizeof err) == MO_OK);
    }
    /* the defaults again, bit for bit (padding aside: compared field by field) */
    int same = 1;
#define X(name, field, t, v) same &= !memcmp(&d.field, &e.field, sizeof d.field);
    FIELDS(X)
#undef X
    CHECK(same);
    CHECK(mo_world_def_get(&d, "time_step", text, sizeof text) == MO_OK);
    CHECK_STR(text, "0.0083333333333333332");
    CHECK(mo_world_def_get(&d, "solver.kind", text, sizeof text) == MO_OK);
    CHECK_STR(text, "pgs");
    CHECK(mo_world_def_get(&d, "gravity", text, sizeof text) == MO_OK);
    CHECK_STR(text, "0,0,-9.8100000000000005");
    CHECK(mo_world_def_get(&d, "no.such", text, sizeof text) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(text, "");
}

/* whether mo_world_set_settings accepts name = v (with the extra assignment, may be NULL) on a fresh world */
static bool accepted(const char *name, double v, bool integer, const char *extra)
{
    mo_world_def d = mo_default_world_def();
    mo_world *w = NULL;
    char err[256], a[128];
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) return false;
    if (integer) snprintf(a, sizeof a, "%s=%.0f", name, v);
    else snprintf(a, sizeof a, "%s=%.17g", name, v);
    const char *list[2] = {a, extra};
    bool ok = mo_world_set_settings(w, list, extra ? 2 : 1) == MO_OK;
    mo_world_destroy(w);
    return ok;
}

static void test_ranges(void)
{
    int tested = 0;
    for (int i = 0; i < mo_setting_count(); i++) {
        const mo_setting_info *in = mo_setting_at(i);
        if (in->type != MO_SETTING_INT && in->type != MO_SETTING_REAL) continue;
        const bool integer = in->type == MO_SETTING_INT;
        const char *extra = !strcmp(in->name, "solver.facets") ? "solver.friction=polyhedral" : NULL;
        bool ok = true;
        if (isfinite(in->min)) {
            double below = integer ? in->min - 1 : nextafter(in->min, -INFINITY);
            ok &= accepted(in->name, in->min, integer, extra) == !in->min_open;
            ok &= !accepted(in->name, below, integer, extra);
            tested++;
        }
        if (isfinite(in->max) && in->max < 2147483647.0) {
            double above = integer ? in->max + 1 : nextafter(in->max, INFINITY);
            ok &= accepted(in->name, in->max, integer, extra) == !in->max_open;
            ok &= !accepted(in->name, above, integer, extra);
            tested++;
        }
        if (!integer && isinf(in->max)) ok &= accepted(in->name, INFINITY, false, extra) == !in->max_open;
        if (!ok) {
            fprintf(stderr, "setting %s: the table's range is not the one the checks apply\n", in->name);
            check_failures++;
        }
    }
    CHECK(tested >= 50);
}

static void test_errors(void)
{
    mo_world_def d = mo_default_world_def(), d0 = d;
    char err[256];
    CHECK(mo_world_def_set(&d, "solver.kindd", "pgs", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "unknown setting 'solver.kindd' (moreau-run --list-settings lists them)");
    CHECK(mo_world_def_set(&d, "substeps", "2.5", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "substeps must be an integer, got '2.5'");
    CHECK(mo_world_def_set(&d, "time_step", "fast", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "time_step must be a number, got 'fast'");
    CHECK(mo_world_def_set(&d, "solver.warm_start", "yes", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "solver.warm_start must be true or false, got 'yes'");
    CHECK(mo_world_def_set(&d, "solver.newton.linear", "gs", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "solver.newton.linear 'gs' is not one of pcr, pcg, jacobi, gauss_seidel, cholesky");
    CHECK(mo_world_def_set(&d, "gravity", "0,0", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "gravity must be three numbers x,y,z, got '0,0'");
    CHECK(mo_world_def_set(NULL, "gravity", "0,0,0", err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!memcmp(&d, &d0, sizeof d)); /* nothing written by a refusal */

    /* all or nothing: a good setting before a bad one is not applied */
    mo_world *w = NULL;
    CHECK(mo_world_create(&d, &w, err, sizeof err) == MO_OK);
    const char *bad[] = {"solver.kind=apgd", "solver.omega=5"};
    CHECK(mo_world_set_settings(w, bad, 2) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "solver omega must be in (0, 2), got 5");
    char text[64];
    CHECK(mo_world_get_setting(w, "solver.kind", text, sizeof text) == MO_OK);
    CHECK_STR(text, "pgs");
    const char *noeq[] = {"solver.kind"};
    CHECK(mo_world_set_settings(w, noeq, 1) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "setting 'solver.kind' must be NAME=VALUE");
    const char *good[] = {"solver.kind=apgd", "time_step=0.005", "substeps=2"};
    CHECK(mo_world_set_settings(w, good, 3) == MO_OK);
    CHECK(mo_world_solver(w).kind == MO_SOLVER_APGD && mo_world_time_step(w) == 0.005 && mo_world_substeps(w) == 2);
    CHECK(mo_world_set_settings(w, NULL, 0) == MO_OK);

    /* FEM meshes keep the newton solver */
    const char *newton[] = {"solver.kind=newton"};
    CHECK(mo_world_set_settings(w, newton, 1) == MO_OK);
    mo_fem_material_def mat = {1e5, 0.3, 1000.0, MO_FEM_COROTATIONAL};
    mo_vec3 nodes[4] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {0, 0, 2}};
    int tet[4] = {0, 1, 2, 3};
    mo_fem_mesh_def md = mo_default_fem_mesh_def();
    md.nodes = nodes;
    md.node_count = 4;
    md.tets = tet;
    md.tet_count = 1;
    md.materials = &mat;
    md.material_count = 1;
    mo_fem_mesh_id mesh;
    CHECK(mo_fem_mesh_create(w, &md, &mesh) == MO_OK);
    const char *pgs[] = {"solver.kind=pgs"};
    CHECK(mo_world_set_settings(w, pgs, 1) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w),
              "FEM meshes need the newton solver: solver 'pgs' would ignore the world's 1 FEM mesh(es)");
    CHECK(mo_world_solver(w).kind == MO_SOLVER_NEWTON);
    mo_world_destroy(w);
}

/* the same names in a scene file give the same settings as the C API */
static void test_lua(void)
{
    char dir[] = "/tmp/moreau-settings-XXXXXX", path[256], err[512];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/s.lua", dir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs("world{ gravity = {0, 0, -3}, substeps = 2, damping_steps = 2.5,\n"
          "       solver = { kind = 'newton', iterations = 60, spg = { step_rule = 'abbmin' },\n"
          "                  newton = { linear = 'gauss_seidel', iterations = 7, step_fraction = 0.1 + 0.2 } } }\n"
          "moreau.set_solver{ warm_start = false, apgd = { rho = 'norm' } }\n",
          f);
    fclose(f);
    mo_scene_file *s = NULL;
    mo_status st = mo_scene_file_load(path, NULL, &s, err, sizeof err);
    if (st == MO_ERR_UNSUPPORTED) { /* no Lua in this build */
        remove(path);
        rmdir(dir);
        return;
    }
    CHECK(st == MO_OK);
    if (st != MO_OK) fprintf(stderr, "%s\n", err);
    mo_world_def d = mo_default_world_def();
    mo_world *w = NULL;
    CHECK(mo_world_create(&d, &w, err, sizeof err) == MO_OK);
    char step_fraction[64];
    snprintf(step_fraction, sizeof step_fraction, "solver.newton.step_fraction=%.17g", 0.1 + 0.2);
    const char *same[] = {"gravity=0,0,-3", "substeps=2", "damping_steps=2.5", "solver.kind=newton",
                          "solver.iterations=60", "solver.spg.step_rule=abbmin", "solver.newton.linear=gauss_seidel",
                          "solver.newton.iterations=7", step_fraction, "solver.warm_start=false",
                          "solver.apgd.rho=norm"};
    CHECK(mo_world_set_settings(w, same, (int)(sizeof same / sizeof same[0])) == MO_OK);
    for (int i = 0; s && i < mo_setting_count(); i++) {
        const char *name = mo_setting_at(i)->name;
        char a[128], b[128];
        mo_world_get_setting(mo_scene_file_world(s), name, a, sizeof a);
        mo_world_get_setting(w, name, b, sizeof b);
        if (strcmp(a, b)) {
            fprintf(stderr, "setting %s: scene file %s, C API %s\n", name, a, b);
            check_failures++;
        }
    }
    mo_world_destroy(w);
    mo_scene_file_destroy(s);
    remove(path);
    rmdir(dir);
}

/* docs/settings.md holds the table exactly as the tools print it */
static void test_doc(void)
{
    const char *src = getenv("MOREAU_SOURCE_DIR");
    if (!src) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/settings.md", src);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    doc[n] = '\0';
    fclose(f);
    char *table = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&table, &len);
    if (!m) return;
    cli_settings_list(m);
    fclose(m);
    if (!strstr(doc, table)) {
        fprintf(stderr, "docs/settings.md does not hold the table moreau-run --list-settings prints: regenerate it\n");
        check_failures++;
    }
    free(table);
}

int main(void)
{
    test_fields();
    test_round_trip();
    test_ranges();
    test_errors();
    test_lua();
    test_doc();
    return check_result_counted("settings");
}
