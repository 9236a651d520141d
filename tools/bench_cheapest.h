/* bench_cheapest.h: `moreau-bench scenes --cheapest` (issue 21, item 5): per scene file, the
 * cheapest setting at which its claims still hold, searched downward from the file's own
 * setting, and how far the file's setting is from it in ms per step. */
#ifndef MO_BENCH_CHEAPEST_H
#define MO_BENCH_CHEAPEST_H

#include <stdbool.h>
#include <stdio.h>

#include <moreau/scene.h>

#include "cli_settings.h"

typedef struct bench_cheapest_options {
    double margin;     /* the file's setting is "within" when its ms/step <= margin x the cheapest's (1.5) */
    double resolution; /* the bisection stops when hi - lo <= max(1, resolution x hi) (0.1; 0: exact) */
    int repeat;        /* more timed runs of the file's and the cheapest setting, interleaved (1) */
    double tmax;       /* > 0: at most tmax simulated seconds per run (claims then not over the whole run) */
    const char *out;   /* folder of cheapest.csv and cheapest.svg */
} bench_cheapest_options;

/* the defaults above */
bench_cheapest_options bench_cheapest_defaults(void);

/* The search over the scene files DIR/NAME.lua of names[0..n), each run with opt and the settings
 * of cs over the scene's own (cs, the base, is not searched); a table on stdout, cheapest.csv and
 * cheapest.svg in o->out. show: a progress line per run on stderr. Returns 0, or 1 when a file
 * could not be written (a scene that fails to load or fails its claims is a row saying so). */
int bench_cheapest(const char *dir, char **names, int n, const mo_scene_options *opt, const cli_settings *cs,
                   const bench_cheapest_options *o, bool show);

/* the option lines of the usage text */
void bench_cheapest_usage(FILE *f);

#endif
