/* run_batch.c: moreau-run --batch N (run_batch.h). The worlds are built one
 * after the other (not timed), then stepped together; the figure is worlds x
 * steps over the wall time of the steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <moreau/batch.h>
#include "run_batch.h"
#include "scenes_builtin.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* mo_batch_def.build for a built-in scene: user is its name */
static mo_status build_builtin(void *user, int index, mo_world *w, char *err, size_t err_size)
{
    (void)index;
    mo_scene sc;
    memset(&sc, 0, sizeof sc);
    mo_status st = mo_scene_build((const char *)user, w, &sc, err, err_size);
    mo_scene_free(&sc);
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int run_batch(const char *scene, bool file, const mo_scene_options *sopt, const char *const *settings, int nsettings,
              int worlds, int steps, double seconds, bool check)
{
    /* "threads=K" is the batch's threads over worlds; each world keeps one thread inside */
    const char **rest = calloc((size_t)nsettings + 1, sizeof *rest);
    int nrest = 0, threads = 0;
    if (!rest) {
        fprintf(stderr, "moreau-run: out of memory\n");
        return 1;
    }
    for (int i = 0; i < nsettings; i++) {
        if (!strncmp(settings[i], "threads=", 8)) threads = atoi(settings[i] + 8);
        else rest[nrest++] = settings[i];
    }
    mo_batch_def d = mo_default_batch_def();
    d.worlds = worlds;
    d.threads = threads;
    d.settings = rest;
    d.setting_count = nrest;
    if (file) {
        d.scene_path = scene;
        d.scene_options = sopt;
    } else {
        d.build = build_builtin;
        d.build_user = (void *)(uintptr_t)scene;
    }
    mo_batch *b = NULL;
    char err[1024];
    double t0 = now_s();
    mo_status st = mo_batch_create(&d, &b, err, sizeof err);
    free(rest);
    if (st != MO_OK) {
        fprintf(stderr, "moreau-run: %s\n", err);
        return st == MO_ERR_INVALID_ARGUMENT && strstr(err, "setting") ? 2 : 1;
    }
    const double t_build = now_s() - t0;
    mo_world *w0 = mo_batch_world(b, 0);
    const double h = mo_world_time_step(w0);
    if (seconds >= 0.0) steps = (int)llround(seconds / h);
    if (steps < 0) {
        double dur = file ? mo_scene_file_duration(mo_batch_scene(b, 0)) : 0.0;
        if (!file) {
            mo_scene sc;
            memset(&sc, 0, sizeof sc);
            mo_world_def wd = mo_default_world_def();
            mo_world *tmp = NULL;
            if (mo_world_create(&wd, &tmp, err, sizeof err) == MO_OK && mo_scene_build(scene, tmp, &sc, err, sizeof err) == MO_OK)
                steps = sc.default_steps;
            mo_scene_free(&sc);
            mo_world_destroy(tmp);
        }
        if (steps < 0) steps = (int)llround((dur > 0.0 ? dur : 5.0) / h);
    }
    int nb = 0, na = 0;
    mo_batch_sizes(b, &nb, &na, NULL, NULL);
    printf("batch: %d worlds of %s (%d dynamic bodies, %d articulations each), built in %.3f s\n", worlds, scene, nb,
           na, t_build);
    t0 = now_s();
    int done = 0;
    for (int s = 0; s < steps; s++, done++)
        if ((st = mo_batch_step(b)) != MO_OK) {
            fprintf(stderr, "moreau-run: step %d: %s\n", s, mo_batch_last_error(b));
            break;
        }
    const double t = now_s() - t0;
    const double ws = (double)worlds * (double)done;
    char on[64];
    if (threads > 0) snprintf(on, sizeof on, "%d thread%s", threads, threads == 1 ? "" : "s");
    else snprintf(on, sizeof on, "OpenMP's default threads");
    printf("batch: %d worlds x %d steps in %.3f s on %s: %.0f world-steps/s, %.2f us per world-step\n", worlds, done,
           t, on, t > 0.0 ? ws / t : 0.0, ws > 0.0 ? 1e6 * t / ws : 0.0);
    /* distinct final states */
    uint64_t *hs = malloc((size_t)worlds * sizeof *hs);
    int distinct = 0;
    if (hs && mo_batch_state_hashes(b, hs, worlds) == MO_OK) {
        qsort(hs, (size_t)worlds, sizeof *hs, cmp_u64);
        for (int i = 0; i < worlds; i++) distinct += i == 0 || hs[i] != hs[i - 1];
        printf("batch: %d distinct final state%s (mo_world_state_hash)\n", distinct, distinct == 1 ? "" : "s");
    }
    free(hs);
    int rc = st == MO_OK ? 0 : 1;
    if (file && mo_scene_file_check_count(mo_batch_scene(b, 0)) > 0) {
        int held = 0, first_bad = -1;
        for (int i = 0; i < worlds; i++) {
            if (mo_scene_file_checks(mo_batch_scene(b, i), NULL, 0) == 0) held++;
            else if (first_bad < 0) first_bad = i;
        }
        if (held == worlds) printf("claims: all %d worlds hold every claim\n", worlds);
        else {
            int nc = mo_scene_file_check_count(mo_batch_scene(b, first_bad));
            mo_scene_check_result *r = calloc((size_t)nc, sizeof *r);
            printf("claims: %d of %d worlds hold every claim", held, worlds);
            if (r) {
                mo_scene_file_checks(mo_batch_scene(b, first_bad), r, nc);
                for (int k = 0; k < nc; k++)
                    if (!r[k].passed) {
                        printf("; first failing: world %d, '%s' (%s)", first_bad, r[k].name, r[k].detail);
                        break;
                    }
                free(r);
            }
            printf("\n");
            if (check) rc = 1;
        }
    } else {
        printf("claims: none (%s)\n", file ? "the scene states none" : "built-in scene");
    }
    mo_batch_destroy(b);
    return rc;
}
