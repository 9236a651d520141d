/* settings.c: every setting of a world in one table (moreau.h, "settings by
 * name"): its name, type, range, unit and documentation line, and where it
 * lives in mo_world_def. The Lua scene files (world{}, set_solver), the
 * command-line tools (--set NAME=VALUE, and their shorthand flags) and the C
 * API (mo_world_def_set, mo_world_set_settings) all read this table, so a
 * setting has one name and one spelling of its values everywhere; docs/
 * settings.md is the table printed (moreau-run --list-settings).
 *
 * Names are paths: "time_step", "solver.kind", "solver.newton.linear". A
 * group ("solver", "solver.apgd", "solver.spg", "solver.newton") is the Lua
 * table of that name. Ranges are the ones mo_world_create and
 * mo_world_set_solver check (the test `settings` asserts that they agree);
 * the table only parses and formats values, the checks stay there. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"

/* enumerated values' names, in enum order */
static const char *const kind_names[] = {"pgs", "jacobi", "apgd", "spg", "cg", "minres", "cholesky", "newton", NULL};
static const char *const friction_names[] = {"cone", "box", "polyhedral", NULL};
static const char *const backend_names[] = {"cpu", "cuda", "auto", NULL};
static const char *const rho_names[] = {"eigen", "norm", "smaller", "normal", "acary", NULL};
static const char *const step_rule_names[] = {"alternate", "abbmin", NULL};
static const char *const ncp_names[] = {"fischer_burmeister", "min_map", NULL};
static const char *const linear_names[] = {"pcr", "pcg", "jacobi", "gauss_seidel", "cholesky", NULL};
static const char *const scaling_names[] = {"mass", "identity", "constant", NULL};

typedef struct setting {
    mo_setting_info info;
    size_t offset; /* in mo_world_def */
} setting;

#define OFF(field) offsetof(mo_world_def, field)
#define INF INFINITY
/* name, type, min, max, min open, max open, choices, unit, doc; field */
#define S_INT(name, lo, hi, unit, doc, field) {{name, MO_SETTING_INT, lo, hi, false, false, NULL, unit, doc}, OFF(field)}
#define S_REAL(name, lo, hi, lo_open, hi_open, unit, doc, field) \
    {{name, MO_SETTING_REAL, lo, hi, lo_open, hi_open, NULL, unit, doc}, OFF(field)}
#define S_BOOL(name, doc, field) {{name, MO_SETTING_BOOL, 0, 1, false, false, NULL, "", doc}, OFF(field)}
#define S_CHOICE(name, names, doc, field) {{name, MO_SETTING_CHOICE, 0, 0, false, false, names, "", doc}, OFF(field)}

static const setting table[] = {
    {{"gravity", MO_SETTING_VEC3, -INF, INF, true, true, NULL, "m/s^2", "gravity vector, finite"}, OFF(gravity)},
    S_REAL("time_step", 0, INF, true, true, "s", "length of one mo_world_step", time_step),
    S_INT("substeps", 1, 1000, "", "each mo_world_step runs this many steps of time_step / substeps", substeps),
    S_INT("threads", 0, 2147483647, "", "worker threads for per-element loops (OpenMP); 0 = OpenMP's default", threads),
    S_REAL("contact_compliance", 0, INF, false, true, "m/N", "compliance of contact normal rows (0: rigid)",
           contact_compliance),
    S_REAL("joint_compliance", 0, INF, false, true, "m/N", "compliance of joint rows (0: rigid)", joint_compliance),
    S_REAL("damping_steps", 0, INF, false, true, "", "SPOOK stabilisation d = tau / h", damping_steps),
    S_REAL("max_push_velocity", 0, INF, true, false, "m/s", "cap on the push-out speed of a penetrating contact",
           max_push_velocity),
    S_REAL("contact_margin", 0, INF, false, true, "m", "contacts are generated for gaps below this", contact_margin),
    S_BOOL("sleep", "islands at rest for sleep_time sleep: skipped by the step until touched (docs/sleeping.md)",
           sleep),
    S_REAL("sleep_linear_velocity", 0, INF, false, true, "m/s", "a body rests below this speed",
           sleep_linear_velocity),
    S_REAL("sleep_angular_velocity", 0, INF, false, true, "rad/s", "a body rests below this angular speed",
           sleep_angular_velocity),
    S_REAL("sleep_time", 0, INF, false, true, "s", "an island sleeps after all its bodies rested this long",
           sleep_time),
    S_CHOICE("backend", backend_names,
             "where the solver runs: cpu, cuda (an error without a device), auto (the device when it helps)", backend),

    S_CHOICE("solver.kind", kind_names, "the solver (cholesky needs CHOLMOD; newton solves at position level)",
             solver.kind),
    S_INT("solver.iterations", 1, 2147483647, "", "sweeps / iterations per step, all outer updates together",
          solver.max_iterations),
    S_REAL("solver.tolerance", 0, INF, false, true, "m/s", "stop at this CCP residual (0: run every iteration)",
           solver.tolerance),
    S_REAL("solver.omega", 0, 2, true, true, "", "SOR / relaxation factor (PGS, Jacobi)", solver.omega),
    S_CHOICE("solver.friction", friction_names, "friction model: exact cone, per-axis box (PGS), faceted cone",
             solver.friction),
    S_INT("solver.facets", 4, 64, "", "tangent directions of the polyhedral cone", solver.friction_facets),
    S_INT("solver.coulomb_updates", 0, 2147483647, "",
          "outer updates s = mu |u_t| toward exact Coulomb friction (0: the convex relaxation)",
          solver.coulomb_updates),
    S_BOOL("solver.warm_start", "start each solve from the last step's impulses", solver.warm_start),
    S_BOOL("solver.record_residuals", "both residuals after every iteration (one N product each)",
           solver.record_residuals),
    S_INT("solver.projections", 0, 16, "", "Gauss-Newton position projections of the rigid joint rows per step",
          solver.position_projections),
    S_BOOL("solver.diagonal_scaling", "APGD and P-SPG-FB solve in D^1/2 gamma, D = diag(N) per block",
           solver.diagonal_scaling),

    S_CHOICE("solver.apgd.rho", rho_names, "APGD's first step size rule", solver.apgd.rho),
    S_BOOL("solver.apgd.backtracking", "APGD's Lipschitz backtracking", solver.apgd.backtracking),
    S_BOOL("solver.apgd.adaptive_rho", "APGD's ratio rule after an accepted step", solver.apgd.adaptive_rho),
    S_BOOL("solver.apgd.restart", "APGD's adaptive restart", solver.apgd.restart),
    S_REAL("solver.apgd.rho_ratio_max", 0, 1, true, true, "", "L of the ratio rule (rho_ratio_min < L < 1)",
           solver.apgd.rho_ratio_max),
    S_REAL("solver.apgd.rho_ratio_min", 0, 1, true, true, "", "L_min of the ratio rule (0 < L_min < L)",
           solver.apgd.rho_ratio_min),
    S_REAL("solver.apgd.rho_factor", 0, 1, true, true, "", "w of the ratio rule", solver.apgd.rho_factor),

    S_REAL("solver.spg.alpha_min", 0, INF, true, true, "", "smallest spectral step (< alpha_max)",
           solver.spg.alpha_min),
    S_REAL("solver.spg.alpha_max", 0, INF, true, true, "", "largest spectral step (> alpha_min)",
           solver.spg.alpha_max),
    S_INT("solver.spg.n_gll", 1, 100, "", "non-monotone line search window", solver.spg.n_gll),
    S_REAL("solver.spg.armijo", 0, 1, true, true, "", "Armijo constant of the line search", solver.spg.armijo),
    S_REAL("solver.spg.sigma_min", 0, 1, true, true, "", "backtracking safeguard (< sigma_max)",
           solver.spg.sigma_min),
    S_REAL("solver.spg.sigma_max", 0, 1, true, true, "", "backtracking safeguard (> sigma_min)",
           solver.spg.sigma_max),
    S_REAL("solver.spg.tau_g", 0, INF, false, true, "", "fallback measure's step (0: 1 / max diag N)",
           solver.spg.tau_g),
    S_REAL("solver.spg.alpha0", 0, INF, false, true, "", "first step (0: 1 / max diag of P^-1 N)", solver.spg.alpha0),
    S_BOOL("solver.spg.preconditioner", "per-cone averaged diagonal preconditioner", solver.spg.preconditioner),
    S_CHOICE("solver.spg.step_rule", step_rule_names, "spectral step: BB1/BB2 alternating, or ABBmin",
             solver.spg.step_rule),

    S_INT("solver.newton.iterations", 1, 1000, "", "Newton iterations per step", solver.newton.iterations),
    S_INT("solver.newton.linear_iterations", 1, 100000, "", "inner linear iterations per Newton iteration",
          solver.newton.linear_iterations),
    S_REAL("solver.newton.linear_tolerance", 0, 1, false, true, "",
           "stop an inner solve at this relative residual (0: full budget)", solver.newton.linear_tolerance),
    S_REAL("solver.newton.step_fraction", 0, 1, true, false, "", "damped Newton: fraction of the step taken",
           solver.newton.step_fraction),
    S_REAL("solver.newton.regularisation", 0, INF, false, true, "m/N", "identity shift of the Schur system",
           solver.newton.regularisation),
    S_CHOICE("solver.newton.ncp", ncp_names, "NCP function of the contact rows", solver.newton.ncp),
    S_CHOICE("solver.newton.linear", linear_names, "inner linear solver (cholesky needs CHOLMOD)",
             solver.newton.linear),
    S_CHOICE("solver.newton.scaling", scaling_names, "complementarity scaling of the NCP rows",
             solver.newton.scaling),
    S_REAL("solver.newton.scaling_constant", 0, INF, true, true, "1/kg", "k of the constant scaling",
           solver.newton.scaling_constant),
    S_REAL("solver.newton.jacobi_omega", 0, 1, true, false, "", "damping of the Jacobi inner solver",
           solver.newton.jacobi_omega),
    S_INT("solver.newton.halvings", 0, MO_HALVINGS_MAX, "",
          "redo a step whose Newton residual stays above halving_residual as two halves, this deep",
          solver.newton.halvings),
    S_REAL("solver.newton.halving_residual", 0, INF, true, true, "m", "the Newton residual that triggers halving",
           solver.newton.halving_residual),
};
#define NSETTINGS ((int)(sizeof table / sizeof table[0]))

/* every enum of the table is stored as an int */
typedef char enum_is_int[sizeof(mo_solver_kind) == sizeof(int) && sizeof(mo_newton_linear) == sizeof(int) &&
                                 sizeof(mo_backend) == sizeof(int)
                             ? 1
                             : -1];

int mo_setting_count(void) { return NSETTINGS; }

const mo_setting_info *mo_setting_at(int i) { return i >= 0 && i < NSETTINGS ? &table[i].info : NULL; }

static const setting *find(const char *name)
{
    for (int i = 0; name && i < NSETTINGS; i++)
        if (!strcmp(table[i].info.name, name)) return &table[i];
    return NULL;
}

const mo_setting_info *mo_setting_find(const char *name)
{
    const setting *s = find(name);
    return s ? &s->info : NULL;
}

bool mo_setting_is_group(const char *name)
{
    if (!name || !*name) return false;
    size_t n = strlen(name);
    for (int i = 0; i < NSETTINGS; i++)
        if (!strncmp(table[i].info.name, name, n) && table[i].info.name[n] == '.') return true;
    return false;
}

/* "a, b, c" of a choice list */
static void choice_list(const char *const *c, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; c[i]; i++) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s", i ? ", " : "", c[i]);
    }
}

/* the whole of s as a number; false when s is empty or has anything else */
static bool parse_real(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') return false;
    *out = v;
    return true;
}

mo_status mo_world_def_set(mo_world_def *def, const char *name, const char *value, char *err, size_t err_size)
{
    if (!def || !name || !value) {
        mo_errf(err, err_size, "mo_world_def_set: %s must not be NULL", !def ? "def" : !name ? "name" : "value");
        return MO_ERR_INVALID_ARGUMENT;
    }
    const setting *s = find(name);
    if (!s) {
        mo_errf(err, err_size, "unknown setting '%s' (moreau-run --list-settings lists them)", name);
        return MO_ERR_INVALID_ARGUMENT;
    }
    char *field = (char *)def + s->offset;
    switch (s->info.type) {
    case MO_SETTING_INT: {
        double v;
        if (!parse_real(value, &v) || v != floor(v) || !(fabs(v) <= 2147483647.0)) {
            mo_errf(err, err_size, "%s must be an integer, got '%s'", name, value);
            return MO_ERR_INVALID_ARGUMENT;
        }
        int iv = (int)v;
        memcpy(field, &iv, sizeof iv);
        return MO_OK;
    }
    case MO_SETTING_REAL: {
        double v;
        if (!parse_real(value, &v)) {
            mo_errf(err, err_size, "%s must be a number, got '%s'", name, value);
            return MO_ERR_INVALID_ARGUMENT;
        }
        memcpy(field, &v, sizeof v);
        return MO_OK;
    }
    case MO_SETTING_BOOL: {
        bool b;
        if (!strcmp(value, "true") || !strcmp(value, "1")) b = true;
        else if (!strcmp(value, "false") || !strcmp(value, "0")) b = false;
        else {
            mo_errf(err, err_size, "%s must be true or false, got '%s'", name, value);
            return MO_ERR_INVALID_ARGUMENT;
        }
        memcpy(field, &b, sizeof b);
        return MO_OK;
    }
    case MO_SETTING_CHOICE: {
        for (int i = 0; s->info.choices[i]; i++)
            if (!strcmp(value, s->info.choices[i])) {
                memcpy(field, &i, sizeof i);
                return MO_OK;
            }
        char list[256];
        choice_list(s->info.choices, list, sizeof list);
        mo_errf(err, err_size, "%s '%s' is not one of %s", name, value, list);
        return MO_ERR_INVALID_ARGUMENT;
    }
    case MO_SETTING_VEC3: {
        double v[3];
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", value);
        int n = 0;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            while (*t == ' ') t++;
            if (n == 3 || !parse_real(t, &v[n])) {
                n = -1;
                break;
            }
            n++;
        }
        if (n != 3) {
            mo_errf(err, err_size, "%s must be three numbers x,y,z, got '%s'", name, value);
            return MO_ERR_INVALID_ARGUMENT;
        }
        mo_vec3 g = {v[0], v[1], v[2]};
        memcpy(field, &g, sizeof g);
        return MO_OK;
    }
    }
    return MO_ERR_INVALID_ARGUMENT;
}

mo_status mo_world_def_get(const mo_world_def *def, const char *name, char *out, size_t out_size)
{
    const setting *s = def && out && out_size ? find(name) : NULL;
    if (!s) {
        if (out && out_size) out[0] = '\0';
        return MO_ERR_INVALID_ARGUMENT;
    }
    const char *field = (const char *)def + s->offset;
    switch (s->info.type) {
    case MO_SETTING_INT: {
        int v;
        memcpy(&v, field, sizeof v);
        snprintf(out, out_size, "%d", v);
        break;
    }
    case MO_SETTING_REAL: {
        double v;
        memcpy(&v, field, sizeof v);
        snprintf(out, out_size, "%.17g", v); /* reads back to the same double */
        break;
    }
    case MO_SETTING_BOOL: {
        bool b;
        memcpy(&b, field, sizeof b);
        snprintf(out, out_size, "%s", b ? "true" : "false");
        break;
    }
    case MO_SETTING_CHOICE: {
        int v, n = 0;
        memcpy(&v, field, sizeof v);
        while (s->info.choices[n]) n++;
        snprintf(out, out_size, "%s", v >= 0 && v < n ? s->info.choices[v] : "?");
        break;
    }
    case MO_SETTING_VEC3: {
        mo_vec3 g;
        memcpy(&g, field, sizeof g);
        snprintf(out, out_size, "%.17g,%.17g,%.17g", g.x, g.y, g.z);
        break;
    }
    }
    return MO_OK;
}

mo_status mo_world_set_settings(mo_world *w, const char *const *assignments, int count)
{
    MO_NEED_W(w);
    if (count < 0) {
        mo_set_error(w, "mo_world_set_settings: count must be >= 0, got %d", count);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (count > 0 && !assignments) {
        mo_set_error(w, "mo_world_set_settings: assignments must not be NULL when count is %d", count);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_world_def d = w->def;
    char err[MO_ERR_LEN];
    for (int i = 0; i < count; i++) {
        const char *a = assignments[i];
        const char *eq = a ? strchr(a, '=') : NULL;
        if (!eq || eq == a) {
            mo_set_error(w, "setting '%s' must be NAME=VALUE", a ? a : "(null)");
            return MO_ERR_INVALID_ARGUMENT;
        }
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
        if (mo_world_def_set(&d, name, eq + 1, err, sizeof err) != MO_OK) {
            mo_set_error(w, "%s", err);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    return mo_world_apply_def(w, &d);
}

mo_status mo_world_get_setting(const mo_world *w, const char *name, char *out, size_t out_size)
{
    MO_NEED_W(w);
    MO_NEED(w, name, "name");
    MO_NEED(w, out, "out");
    mo_status st = mo_world_def_get(&w->def, name, out, out_size);
    if (st != MO_OK) mo_set_error(w, "%s: unknown setting '%s' (or out_size 0)", __func__, name);
    return st;
}
