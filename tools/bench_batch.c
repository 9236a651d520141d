/* bench_batch.c: `moreau-bench batch`. For each scene file: one world stepped
 * alone (mo_scene_file_step, the baseline), then batches of N copies
 * (mo_batch_step) on one thread and on all threads, and on all threads with
 * each world taking its steps in a row (mo_batch_step_n, "all/row"). The figure is world-steps
 * per second: N x steps over the wall time of the steps (building the worlds
 * is not timed), and the cost of one world-step against the world alone;
 * with --repeat R the fastest of R runs (on a shared machine the others'
 * load only ever slows a run down).
 * Every batch's worlds are checked to end in one state (they are copies).
 *
 * Output: DIR/batch.csv, DIR/batch.svg (world-steps per second against N, log
 * axes, one line per scene and thread count, the world alone as a flat line)
 * and a table on stdout. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/batch.h>
#include "bench_batch.h"
#include "bench_util.h"
#include "svgplot.h"

#ifndef MO_SCENES_DIR
#define MO_SCENES_DIR "scenes"
#endif
#define MAX_LIST 16

void bench_batch_usage(FILE *f)
{
    fprintf(f, "usage: moreau-bench batch [options]\n"
               "  --scenes LIST       scene files, comma-separated (default scenes/quadruped.lua,scenes/stack20.lua)\n"
               "  --worlds LIST       batch sizes N (default 1,16,64,256)\n"
               "  --steps S           measured steps per run (default 60)\n"
               "  --threads N         the 'all threads' (default 0: OpenMP's default)\n"
               "  --repeat R          runs of each configuration; the fastest is kept (default 1)\n"
               "  --out DIR           batch.csv and batch.svg (default .)\n");
}

/* splits a comma list into out (at most MAX_LIST entries, pointing into buf); the count */
static int split(char *buf, char **out)
{
    int n = 0;
    for (char *t = strtok(buf, ","); t && n < MAX_LIST; t = strtok(NULL, ",")) out[n++] = t;
    return n;
}

/* one world of path stepped alone: microseconds per step, -1 on failure */
static double single_us(const char *path, int steps)
{
    mo_scene_file *sf = NULL;
    char err[1024];
    if (mo_scene_file_load(path, NULL, &sf, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-bench: %s\n", err);
        return -1.0;
    }
    double t0 = bench_now_s();
    for (int s = 0; s < steps; s++)
        if (mo_scene_file_step(sf) != MO_OK) {
            fprintf(stderr, "moreau-bench: %s: step %d: %s\n", path, s, mo_scene_file_last_error(sf));
            mo_scene_file_destroy(sf);
            return -1.0;
        }
    double us = 1e6 * (bench_now_s() - t0) / steps;
    mo_scene_file_destroy(sf);
    return us;
}

/* a batch of n copies of path on threads threads: microseconds per world-step, -1 on failure; *same: all
 * worlds ended in one state */
static double batch_us(const char *path, int n, int threads, int steps, bool row, bool *same)
{
    mo_batch_def d = mo_default_batch_def();
    d.worlds = n;
    d.scene_path = path;
    d.threads = threads;
    mo_batch *b = NULL;
    char err[1024];
    if (mo_batch_create(&d, &b, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-bench: %s\n", err);
        return -1.0;
    }
    double t0 = bench_now_s();
    if (row && mo_batch_step_n(b, steps) != MO_OK) {
        fprintf(stderr, "moreau-bench: %s: %s\n", path, mo_batch_last_error(b));
        mo_batch_destroy(b);
        return -1.0;
    }
    for (int s = 0; !row && s < steps; s++)
        if (mo_batch_step(b) != MO_OK) {
            fprintf(stderr, "moreau-bench: %s: step %d: %s\n", path, s, mo_batch_last_error(b));
            mo_batch_destroy(b);
            return -1.0;
        }
    double us = 1e6 * (bench_now_s() - t0) / ((double)steps * n);
    uint64_t *h = malloc((size_t)n * sizeof *h);
    *same = h && mo_batch_state_hashes(b, h, n) == MO_OK;
    for (int i = 1; h && i < n; i++) *same = *same && h[i] == h[0];
    free(h);
    mo_batch_destroy(b);
    return us;
}

int bench_batch(int argc, char **argv)
{
    char scenes_buf[4096], worlds_buf[256] = "1,16,64,256";
    snprintf(scenes_buf, sizeof scenes_buf, "%s/quadruped.lua,%s/stack20.lua", MO_SCENES_DIR, MO_SCENES_DIR);
    int steps = 60, threads = 0, repeat = 1;
    const char *out = ".";
    bool show = false;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            bench_batch_usage(stdout);
            return 0;
        }
        int k = bench_option(argc, argv, &i, &show, &v);
        if (k < 0) return 2;
        if (k == 1) continue;
        const char *a = argv[i - 1];
        if (!strcmp(a, "--scenes")) snprintf(scenes_buf, sizeof scenes_buf, "%s", v);
        else if (!strcmp(a, "--worlds")) snprintf(worlds_buf, sizeof worlds_buf, "%s", v);
        else if (!strcmp(a, "--steps")) steps = atoi(v);
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--repeat")) repeat = atoi(v);
        else if (!strcmp(a, "--out")) out = v;
        else {
            fprintf(stderr, "moreau-bench batch: unknown option '%s'\n", a);
            bench_batch_usage(stderr);
            return 2;
        }
    }
    char *scenes[MAX_LIST], *wl[MAX_LIST];
    int ns = split(scenes_buf, scenes), nw = split(worlds_buf, wl), worlds[MAX_LIST];
    for (int j = 0; j < nw; j++) {
        worlds[j] = atoi(wl[j]);
        if (worlds[j] < 1 || worlds[j] > MO_BATCH_WORLDS_MAX) {
            fprintf(stderr, "moreau-bench batch: --worlds: %s is not in [1, %d]\n", wl[j], MO_BATCH_WORLDS_MAX);
            return 2;
        }
    }
    if (steps < 1 || ns == 0 || nw == 0 || threads < 0 || repeat < 1) {
        fprintf(stderr, "moreau-bench batch: --steps >= 1, --repeat >= 1, --threads >= 0 and non-empty lists are "
                        "needed\n");
        return 2;
    }
    if (bench_ensure_dir(out)) return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/batch.csv", out);
    FILE *csv = bench_open_write(path);
    if (!csv) return 1;
    fprintf(csv, "scene,worlds,threads,steps,us_per_world_step,world_steps_per_s,single_us_per_step,vs_single,"
                 "identical\n");
    mo_plot *plot = mo_plot_create("batch of worlds: world-steps per second", "worlds N", "world-steps / s",
                                   MO_AXIS_LOG, MO_AXIS_LOG);
    printf("%-28s %7s %8s %12s %16s %10s %9s\n", "scene", "worlds", "threads", "us/w-step", "world-steps/s",
           "vs alone", "identical");
    int rc = 0;
    for (int si = 0; si < ns; si++) {
        const char *base = strrchr(scenes[si], '/') ? strrchr(scenes[si], '/') + 1 : scenes[si];
        double one = single_us(scenes[si], steps);
        for (int r = 1; r < repeat && one >= 0.0; r++) {
            double x = single_us(scenes[si], steps);
            if (x >= 0.0 && x < one) one = x;
        }
        if (one < 0.0) {
            rc = 1;
            continue;
        }
        printf("%-28s %7s %8s %12.2f %16.0f %10s %9s\n", base, "alone", "1", one, 1e6 / one, "1.00", "-");
        fprintf(csv, "%s,1,alone,%d,%.4f,%.1f,%.4f,1.0000,\n", base, steps, one, 1e6 / one, one);
        double xs[MAX_LIST], ys[3][MAX_LIST], flat[MAX_LIST];
        for (int c = 0; c < 3; c++) {
            int t = c == 0 ? 1 : threads;
            for (int j = 0; j < nw; j++) {
                bool same = false;
                double us = batch_us(scenes[si], worlds[j], t, steps, c == 2, &same);
                for (int r = 1; r < repeat && us >= 0.0 && same; r++) {
                    double x = batch_us(scenes[si], worlds[j], t, steps, c == 2, &same);
                    if (x >= 0.0 && x < us) us = x;
                }
                xs[j] = worlds[j];
                flat[j] = 1e6 / one;
                ys[c][j] = us > 0.0 ? 1e6 / us : NAN;
                if (us < 0.0) {
                    rc = 1;
                    continue;
                }
                char tn[16];
                if (c == 0) snprintf(tn, sizeof tn, "1");
                else if (threads) snprintf(tn, sizeof tn, "%d%s", threads, c == 2 ? "/row" : "");
                else snprintf(tn, sizeof tn, "all%s", c == 2 ? "/row" : "");
                printf("%-28s %7d %8s %12.2f %16.0f %10.2f %9s\n", base, worlds[j], tn, us, 1e6 / us, us / one,
                       same ? "yes" : "NO");
                fprintf(csv, "%s,%d,%s,%d,%.4f,%.1f,%.4f,%.4f,%s\n", base, worlds[j], tn, steps, us, 1e6 / us, one,
                        us / one, same ? "yes" : "no");
                fflush(stdout);
                if (!same) rc = 1;
            }
        }
        char name[300];
        snprintf(name, sizeof name, "%s, 1 thread", base);
        mo_plot_add_series(plot, name, xs, ys[0], nw, false);
        snprintf(name, sizeof name, "%s, all threads", base);
        mo_plot_add_series(plot, name, xs, ys[1], nw, false);
        snprintf(name, sizeof name, "%s, all threads, steps in a row", base);
        mo_plot_add_series(plot, name, xs, ys[2], nw, false);
        snprintf(name, sizeof name, "%s, one world alone", base);
        mo_plot_add_series(plot, name, xs, flat, nw, false);
    }
    fclose(csv);
    snprintf(path, sizeof path, "%s/batch.svg", out);
    if (plot && mo_plot_write_svg(plot, path) != 0) {
        fprintf(stderr, "moreau-bench: cannot write %s\n", path);
        rc = 1;
    }
    mo_plot_destroy(plot);
    printf("wrote %s/batch.csv and %s/batch.svg\n", out, out);
    return rc;
}
