/* cli_settings.h: the engine's settings on the command line of moreau-run and
 * moreau-bench (header-only, public API only). `--set NAME=VALUE` takes any
 * setting of the engine's table by its name (moreau.h "settings by name",
 * docs/settings.md), or else a scene file's param(NAME, default); a few
 * shorthand flags stand for settings (--solver NAME is --set solver.kind=NAME)
 * and take the same values. The settings are applied together after the scene
 * is built, over its own (mo_world_set_settings). */
#ifndef MO_CLI_SETTINGS_H
#define MO_CLI_SETTINGS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <moreau/moreau.h>

/* Programs run from the build tree find the CUDA module built beside them
 * (MO_BUILD_CUDA_MODULE, set by tools/meson.build when the module is built)
 * unless $MOREAU_CUDA_MODULE names one; installed ones use libmoreau's
 * install path. */
static inline void cli_cuda_module_default(void)
{
#ifdef MO_BUILD_CUDA_MODULE
    const char *e = getenv("MOREAU_CUDA_MODULE");
    if ((!e || !e[0]) && access(MO_BUILD_CUDA_MODULE, F_OK) == 0) setenv("MOREAU_CUDA_MODULE", MO_BUILD_CUDA_MODULE, 1);
#endif
}

#define CLI_MAX_SETTINGS 128

typedef struct cli_settings {
    char text[CLI_MAX_SETTINGS][192]; /* "name=value" */
    const char *items[CLI_MAX_SETTINGS];
    int n;
} cli_settings;

/* shorthand flags: the flag, the setting it stands for, and for flags without a value the value */
typedef struct cli_shorthand {
    const char *flag, *setting, *fixed;
} cli_shorthand;

static const cli_shorthand cli_shorthands[] = {
    {"--solver", "solver.kind", NULL},
    {"--friction", "solver.friction", NULL},
    {"--facets", "solver.facets", NULL},
    {"--coulomb-updates", "solver.coulomb_updates", NULL},
    {"--iterations", "solver.iterations", NULL},
    {"--tolerance", "solver.tolerance", NULL},
    {"--omega", "solver.omega", NULL},
    {"--projections", "solver.projections", NULL},
    {"--diagonal-scaling", "solver.diagonal_scaling", "true"},
    {"--no-warm-start", "solver.warm_start", "false"},
    {"--newton-iterations", "solver.newton.iterations", NULL},
    {"--linear-iterations", "solver.newton.linear_iterations", NULL},
    {"--ncp", "solver.newton.ncp", NULL},
    {"--linear-solver", "solver.newton.linear", NULL},
    {"--newton-scaling", "solver.newton.scaling", NULL},
    {"--halvings", "solver.newton.halvings", NULL},
    {"--halving-residual", "solver.newton.halving_residual", NULL},
    {"--threads", "threads", NULL},
    {"--substeps", "substeps", NULL},
    {"--backend", "backend", NULL},
};
#define CLI_NSHORTHANDS ((int)(sizeof cli_shorthands / sizeof cli_shorthands[0]))

/* adds name=value after checking it parses (mo_world_def_set on a scratch def); 0, or -1 with the
 * sentence in err */
static inline int cli_settings_add(cli_settings *c, const char *name, const char *value, char *err, size_t n)
{
    mo_world_def d = mo_default_world_def();
    if (mo_world_def_set(&d, name, value, err, n) != MO_OK) return -1;
    if (c->n == CLI_MAX_SETTINGS) {
        snprintf(err, n, "more than %d settings", CLI_MAX_SETTINGS);
        return -1;
    }
    snprintf(c->text[c->n], sizeof c->text[c->n], "%s=%s", name, value);
    c->items[c->n] = c->text[c->n];
    c->n++;
    return 0;
}

/* --set NAME=VALUE: 1 when NAME is a setting (added; -1 with err when its value is bad), 0 when it is
 * not (a scene parameter) */
static inline int cli_settings_set(cli_settings *c, const char *assignment, char *err, size_t n)
{
    const char *eq = strchr(assignment, '=');
    char name[128];
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - assignment) : 0, assignment);
    if (!eq || !mo_setting_find(name)) return 0;
    return cli_settings_add(c, name, eq + 1, err, n) ? -1 : 1;
}

/* a shorthand flag at argv[*i]: 1 consumed (with its value, *i moved), 0 not a shorthand, -1 with err
 * (a missing or bad value) */
static inline int cli_settings_flag(cli_settings *c, int argc, char **argv, int *i, char *err, size_t n)
{
    for (int k = 0; k < CLI_NSHORTHANDS; k++) {
        const cli_shorthand *s = &cli_shorthands[k];
        if (strcmp(argv[*i], s->flag)) continue;
        const char *v = s->fixed;
        if (!v) {
            if (*i + 1 >= argc) {
                snprintf(err, n, "option %s needs a value", s->flag);
                return -1;
            }
            v = argv[++*i];
        }
        return cli_settings_add(c, s->setting, v, err, n) ? -1 : 1;
    }
    return 0;
}

/* the shorthand flags' lines of a usage text */
static inline void cli_settings_usage(FILE *f)
{
    for (int k = 0; k < CLI_NSHORTHANDS; k++) {
        const cli_shorthand *s = &cli_shorthands[k];
        const mo_setting_info *in = mo_setting_find(s->setting);
        char head[64];
        snprintf(head, sizeof head, "%s%s", s->flag, s->fixed ? "" : " V");
        fprintf(f, "  %-22s --set %s=%s: %s", head, s->setting, s->fixed ? s->fixed : "V", in ? in->doc : "");
        if (in && in->choices) {
            fprintf(f, " (");
            for (int i = 0; in->choices[i]; i++) fprintf(f, "%s%s", i ? ", " : "", in->choices[i]);
            fprintf(f, ")");
        }
        fprintf(f, "\n");
    }
}

/* every setting as a Markdown table (docs/settings.md): name, type, range, default, unit, what */
static inline void cli_settings_list(FILE *f)
{
    static const char *const types[] = {"integer", "number", "boolean", "choice", "vector"};
    const mo_world_def d = mo_default_world_def();
    fprintf(f, "| setting | type | range | default | unit | what |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < mo_setting_count(); i++) {
        const mo_setting_info *in = mo_setting_at(i);
        char range[256] = "", def[128];
        mo_world_def_get(&d, in->name, def, sizeof def);
        if (in->type == MO_SETTING_INT || in->type == MO_SETTING_REAL) {
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "%.6g", in->min);
            snprintf(hi, sizeof hi, "%.6g", in->max);
            if (in->max >= 2147483647.0 || in->max == INFINITY) snprintf(hi, sizeof hi, "inf");
            snprintf(range, sizeof range, "%s%s, %s%s", in->min_open ? "(" : "[", lo, hi,
                     in->max_open || in->max >= 2147483647.0 ? ")" : "]");
        } else if (in->type == MO_SETTING_CHOICE) {
            for (int k = 0; in->choices[k]; k++) {
                size_t l = strlen(range);
                snprintf(range + l, sizeof range - l, "%s`%s`", k ? ", " : "", in->choices[k]);
            }
        } else if (in->type == MO_SETTING_BOOL) {
            snprintf(range, sizeof range, "`true`, `false`");
        } else {
            snprintf(range, sizeof range, "finite x,y,z");
        }
        fprintf(f, "| `%s` | %s | %s | `%s` | %s | %s |\n", in->name, types[in->type], range, def, in->unit, in->doc);
    }
}

#endif
