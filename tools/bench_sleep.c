/* bench_sleep.c: `moreau-bench sleep` (issue 21, item 2). One scene stepped
 * twice, with the world setting sleep off (every body stepped, the reference)
 * and on (moreau/sleep.h), the same steps otherwise: the median ms per step
 * over the last --window steps (the settled part), the mean over the run,
 * the sleeping bodies and islands at the end, and the first step at which
 * 90 % of the dynamic bodies slept. The scene is a scene file (SCENE) or, by
 * default, the built-in "rubble": G x G boxes (0.2 m, 1 kg) in two layers,
 * jittered and tilted (a fixed pattern), dropped on the ground, where they
 * tumble into small heaps. Public API only (moreau.h, sleep.h, scene.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>
#include <moreau/sleep.h>
#include <moreau/scene.h>

#include "bench_sleep.h"
#include "bench_util.h"

void bench_sleep_usage(FILE *f)
{
    fprintf(f, "usage: moreau-bench sleep [SCENE] [options]   (SCENE: a scene file; default the built-in rubble)\n"
               "  --grid G            rubble: G x G boxes per layer, two layers (default 22: 968 boxes)\n"
               "  --steps N           steps per run (default 720: 6 s at 120 Hz)\n"
               "  --window W          the settled part: the last W steps (default 240)\n"
               "  --set NAME=VALUE    an engine setting by name over both runs' (docs/settings.md; repeatable)\n"
               "  --csv FILE          per step: step, ms and sleeping bodies of both runs\n");
}

/* a fixed pattern in [-1, 1] */
static double jitter(int k, int salt)
{
    unsigned h = (unsigned)k * 2654435761u ^ (unsigned)salt * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (double)(h % 20001u) / 10000.0 - 1.0;
}

static mo_world *rubble(int g)
{
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-bench sleep: %s\n", err);
        return NULL;
    }
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id id;
    int ok = mo_body_create(w, &gd, &id) == MO_OK;
    for (int l = 0, k = 0; l < 2 && ok; l++)
        for (int i = 0; i < g && ok; i++)
            for (int j = 0; j < g && ok; j++, k++) {
                mo_body_def b = mo_default_body_def();
                b.shape.type = MO_SHAPE_BOX;
                b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
                b.position = (mo_vec3){0.3 * (i - 0.5 * g) + 0.05 * jitter(k, 1) + 0.12 * l,
                                       0.3 * (j - 0.5 * g) + 0.05 * jitter(k, 2), 0.2 + 0.4 * l};
                double a = 0.3 * jitter(k, 3), ax[3] = {jitter(k, 4), jitter(k, 5), jitter(k, 6)};
                double n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]) + 1e-12;
                b.orientation = (mo_quat){cos(0.5 * a), sin(0.5 * a) * ax[0] / n, sin(0.5 * a) * ax[1] / n,
                                          sin(0.5 * a) * ax[2] / n};
                ok = mo_body_create(w, &b, &id) == MO_OK;
            }
    if (!ok) {
        fprintf(stderr, "moreau-bench sleep: %s\n", mo_world_last_error(w));
        mo_world_destroy(w);
        return NULL;
    }
    return w;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct run_result {
    double median_ms, mean_ms;
    int asleep, awake, islands, contacts, step90;
} run_result;

/* one run: sleep on or off; ms[] and asleep[] per step; 0, or 1 with the sentence on stderr */
static int run(const char *scene, int grid, bool on, const char *const *sets, int nsets, int steps, int window,
               double *ms, int *asleep, run_result *r)
{
    mo_scene_file *sf = NULL;
    mo_world *w = NULL;
    char err[512];
    if (scene) {
        mo_scene_options opt = mo_default_scene_options();
        if (mo_scene_file_load(scene, &opt, &sf, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-bench sleep: %s\n", err);
            return 1;
        }
        w = mo_scene_file_world(sf);
    } else if (!(w = rubble(grid))) {
        return 1;
    }
    const char *s0 = on ? "sleep=true" : "sleep=false";
    int rc = mo_world_set_settings(w, &s0, 1) != MO_OK || (nsets && mo_world_set_settings(w, sets, nsets) != MO_OK);
    if (rc) fprintf(stderr, "moreau-bench sleep: %s\n", mo_world_last_error(w));
    mo_step_stats st;
    memset(&st, 0, sizeof st);
    double sum = 0.0;
    r->step90 = -1;
    for (int s = 0; s < steps && !rc; s++) {
        if (sf) {
            ms[s] = bench_scene_step(sf, s, &st, err, sizeof err);
            if (ms[s] < 0.0) {
                fprintf(stderr, "moreau-bench sleep: %s\n", err);
                rc = 1;
            }
        } else {
            double t0 = bench_now_s();
            if (mo_world_step(w) != MO_OK) {
                fprintf(stderr, "moreau-bench sleep: step %d: %s\n", s, mo_world_last_error(w));
                rc = 1;
            }
            ms[s] = 1e3 * (bench_now_s() - t0);
            st = mo_world_last_stats(w);
        }
        sum += ms[s];
        asleep[s] = st.sleeping_bodies;
        if (r->step90 < 0 && st.sleeping_bodies >= 0.9 * (st.sleeping_bodies + st.awake_bodies) && st.sleeping_bodies)
            r->step90 = s + 1;
    }
    if (!rc) {
        double *tail = malloc((size_t)window * sizeof *tail);
        if (!tail) rc = 1;
        else {
            memcpy(tail, ms + steps - window, (size_t)window * sizeof *tail);
            qsort(tail, (size_t)window, sizeof *tail, cmp_d);
            r->median_ms = window % 2 ? tail[window / 2] : 0.5 * (tail[window / 2 - 1] + tail[window / 2]);
            free(tail);
        }
        r->mean_ms = sum / steps;
        r->asleep = st.sleeping_bodies;
        r->awake = st.awake_bodies;
        r->islands = st.islands;
        r->contacts = st.contacts;
    }
    if (sf) mo_scene_file_destroy(sf);
    else mo_world_destroy(w);
    return rc;
}

int bench_sleep(int argc, char **argv)
{
    const char *scene = NULL, *csv = NULL;
    int grid = 22, steps = 720, window = 240, nsets = 0;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    bool show = false;
    if (!sets) return 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (a[0] != '-') {
            scene = a;
            continue;
        }
        if (bench_option(argc, argv, &i, &show, &v) < 0) return 2;
        if (!v) continue;
        if (!strcmp(a, "--grid")) grid = atoi(v);
        else if (!strcmp(a, "--steps")) steps = atoi(v);
        else if (!strcmp(a, "--window")) window = atoi(v);
        else if (!strcmp(a, "--set")) sets[nsets++] = v;
        else if (!strcmp(a, "--csv")) csv = v;
        else {
            fprintf(stderr, "moreau-bench sleep: unknown option '%s'\n", a);
            bench_sleep_usage(stderr);
            return 2;
        }
    }
    if (grid < 1 || steps < 1 || window < 1 || window > steps) {
        fprintf(stderr, "moreau-bench sleep: --grid >= 1, --steps >= 1 and 1 <= --window <= --steps, got %d, %d, %d\n",
                grid, steps, window);
        return 2;
    }
    double *ms = calloc(2 * (size_t)steps, sizeof *ms);
    int *asleep = calloc(2 * (size_t)steps, sizeof *asleep);
    run_result r[2];
    memset(r, 0, sizeof r);
    int rc = !ms || !asleep;
    for (int k = 0; k < 2 && !rc; k++)
        rc = run(scene, grid, k == 1, sets, nsets, steps, window, ms + (size_t)k * steps, asleep + (size_t)k * steps,
                 &r[k]);
    if (!rc) {
        printf("# moreau-bench sleep %s: %d steps, settled window the last %d\n\n", scene ? scene : "rubble", steps,
               window);
        if (!scene) printf("rubble: %d boxes (grid %d, two layers)\n\n", 2 * grid * grid, grid);
        printf("| sleep | ms/step median (window) | ms/step mean (run) | asleep at end | awake | islands | contacts "
               "| 90%% asleep at step |\n|---|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < 2; k++)
            printf("| %s | %.3f | %.3f | %d | %d | %d | %d | %d |\n", k ? "on" : "off", r[k].median_ms, r[k].mean_ms,
                   r[k].asleep, r[k].awake, r[k].islands, r[k].contacts, r[k].step90);
        printf("\nsettled speed-up: %.1fx\n", r[1].median_ms > 0.0 ? r[0].median_ms / r[1].median_ms : 0.0);
        FILE *f = csv ? bench_open_write(csv) : NULL;
        if (csv && !f) rc = 1;
        if (f) {
            fprintf(f, "step,ms_off,ms_on,sleeping_off,sleeping_on\n");
            for (int s = 0; s < steps; s++)
                fprintf(f, "%d,%.4f,%.4f,%d,%d\n", s + 1, ms[s], ms[steps + s], asleep[s], asleep[steps + s]);
            fclose(f);
        }
    }
    free(ms);
    free(asleep);
    free(sets);
    return rc;
}
