/* bench_cheapest.c: `moreau-bench scenes --cheapest` (issue 21, item 5). Per scene file, the
 * cheapest setting at which the scene's claims (its check()s, as `moreau-run --check`) still
 * hold over the scene's duration, searched downward from the file's own setting:
 *
 *   - the knobs searched, in this order: substeps (when the file uses more than one), then
 *     the Newton iterations and the inner linear iterations (solver newton), else the
 *     solver's iterations (solver.iterations: sweeps of pgs, jacobi, apgd, spg, cg, minres;
 *     the block alternations of cholesky);
 *   - one knob at a time, the others at their current value: halve from the value that holds
 *     until a value fails (or 1 holds), then bisect between the failing and the holding value
 *     until they are within max(1, resolution x the holding one). A knob's search assumes
 *     that its claims, once held at a value, hold at every larger one; a claim that comes and
 *     goes (a rocking stack's end position) can make it stop above or below the true edge;
 *   - the point reached is the cheapest holding one along this path (a coordinate search: a
 *     point with fewer substeps and more iterations is not looked for).
 *
 * The file's setting and the point reached are then timed again, interleaved, --repeat more
 * times each; ms/step is the median over these runs of a run's median ms per step (over the
 * search's runs of the two points when --repeat is 0), and the file is within the margin
 * when its ms/step <= margin x the cheapest's.
 * Public API only (moreau.h, scene.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "bench_cheapest.h"
#include "bench_scene_run.h"
#include "bench_util.h"
#include "svgplot.h"

#define MAX_KNOBS 3
#define MAX_TIMED 16

/* the knobs of one scene: setting names, short names, the file's values */
typedef struct knobs {
    int n;
    const char *name[MAX_KNOBS], *shortname[MAX_KNOBS];
    int file[MAX_KNOBS];
} knobs;

/* one scene's outcome */
typedef struct cheapest_row {
    char scene[64], solver[32], file_setting[128], cheap_setting[128], note[192];
    double ms_file, ms_cheap, ratio, seconds;
    int runs;
    bool file_held, searched;
} cheapest_row;

bench_cheapest_options bench_cheapest_defaults(void)
{
    return (bench_cheapest_options){.margin = 1.5, .resolution = 0.1, .repeat = 1, .tmax = 0.0, .out = "."};
}

void bench_cheapest_usage(FILE *f)
{
    fprintf(f, "  --cheapest          per scene, the cheapest setting whose claims hold, searched downward\n"
               "                      from the file's (substeps, then iterations, or Newton and linear\n"
               "                      iterations); cheapest.csv, cheapest.svg (--solvers is not used)\n"
               "  --margin M          the file is within when its ms/step <= M x the cheapest's (default 1.5)\n"
               "  --resolution R      bisect until hi - lo <= max(1, R hi) (default 0.1; 0 exact)\n"
               "  --repeat K          timed runs of the file's and the cheapest setting after the search,\n"
               "                      interleaved (default 1)\n");
}

/* the scene's own values of the knobs (opt, then cs over them); 0, or -1 with the sentence in err */
static int read_knobs(const char *path, const mo_scene_options *opt, const cli_settings *cs, knobs *k, char *kind,
                      char *err, size_t n)
{
    mo_scene_file *sf = NULL;
    if (mo_scene_file_load(path, opt, &sf, err, n) != MO_OK) return -1;
    mo_world *w = mo_scene_file_world(sf);
    if (mo_world_set_settings(w, cs->items, cs->n) != MO_OK) {
        snprintf(err, n, "%s", mo_world_last_error(w));
        mo_scene_file_destroy(sf);
        return -1;
    }
    char v[64];
    mo_world_get_setting(w, "solver.kind", kind, 32);
    k->n = 0;
    mo_world_get_setting(w, "substeps", v, sizeof v);
    if (atoi(v) > 1) {
        k->name[k->n] = "substeps", k->shortname[k->n] = "substeps";
        k->file[k->n++] = atoi(v);
    }
    if (!strcmp(kind, "newton")) {
        mo_world_get_setting(w, "solver.newton.iterations", v, sizeof v);
        k->name[k->n] = "solver.newton.iterations", k->shortname[k->n] = "newton";
        k->file[k->n++] = atoi(v);
        mo_world_get_setting(w, "solver.newton.linear_iterations", v, sizeof v);
        k->name[k->n] = "solver.newton.linear_iterations", k->shortname[k->n] = "linear";
        k->file[k->n++] = atoi(v);
    } else {
        mo_world_get_setting(w, "solver.iterations", v, sizeof v);
        k->name[k->n] = "solver.iterations", k->shortname[k->n] = "iterations";
        k->file[k->n++] = atoi(v);
    }
    mo_scene_file_destroy(sf);
    return 0;
}

static void describe(const knobs *k, const int *val, char *out, size_t n)
{
    out[0] = '\0';
    for (int d = 0; d < k->n; d++) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%s=%d", d ? " " : "", k->shortname[d], val[d]);
    }
}

/* one run of the scene at the knob values val, cs under them */
static void run_at(const char *path, const char *scene, const mo_scene_options *opt, const cli_settings *cs,
                   const knobs *k, const int *val, const bench_cheapest_options *o, bool show, int *runs,
                   scene_run *r)
{
    static cli_settings c;
    char label[128], what[128];
    memset(r, 0, sizeof *r);
    c = *cs;
    for (int d = 0; d < c.n; d++) c.items[d] = c.text[d];
    int bad = 0;
    for (int d = 0; d < k->n && !bad; d++) {
        char v[32];
        snprintf(v, sizeof v, "%d", val[d]);
        bad = cli_settings_add(&c, k->name[d], v, r->error, sizeof r->error);
    }
    describe(k, val, what, sizeof what);
    snprintf(label, sizeof label, "%.40s %.80s", scene, what);
    if (!bad) bench_run_scene(path, "scene", o->tmax, 0, opt, &c, false, label, r);
    (*runs)++;
    if (show)
        fprintf(stderr, "cheapest: %-14s %-40s %s%s%.60s  %.3f ms/step\n", scene, what,
                r->claim ? "holds" : "fails", r->error[0] ? ": " : "", r->error, r->ms_median);
}

/* the search of one scene into row */
static void search_scene(const char *dir, const char *scene, const mo_scene_options *opt, const cli_settings *cs,
                         const bench_cheapest_options *o, bool show, cheapest_row *row)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.lua", dir, scene);
    snprintf(row->scene, sizeof row->scene, "%.63s", scene);
    row->ratio = row->ms_file = row->ms_cheap = NAN;
    const double t0 = bench_now_s();
    knobs k;
    if (read_knobs(path, opt, cs, &k, row->solver, row->note, sizeof row->note) != 0) return;
    int file[MAX_KNOBS], cur[MAX_KNOBS];
    memcpy(file, k.file, sizeof file);
    memcpy(cur, k.file, sizeof cur);
    describe(&k, file, row->file_setting, sizeof row->file_setting);
    scene_run r;
    run_at(path, scene, opt, cs, &k, file, o, show, &row->runs, &r);
    double tf[MAX_TIMED], tc[MAX_TIMED];
    int nf = 0, nc = 0;
    tf[nf++] = r.ms_median;
    row->file_held = r.claim;
    if (!r.claim || r.checks == 0) {
        const char *why = r.error[0] ? r.error : r.claim ? "no claims" : "the file's setting fails its claims";
        snprintf(row->note, sizeof row->note, "%.180s", why);
        row->ms_file = r.ms_median;
        row->seconds = bench_now_s() - t0;
        return;
    }
    row->searched = true;
    tc[nc++] = r.ms_median; /* the file's point until a cheaper one holds */
    for (int d = 0; d < k.n; d++) {
        int hi = cur[d], lo = 0; /* hi holds; lo fails (0: none below 1) */
        while (hi > 1) {
            cur[d] = hi / 2;
            run_at(path, scene, opt, cs, &k, cur, o, show, &row->runs, &r);
            if (!r.claim) {
                lo = cur[d];
                break;
            }
            hi = cur[d];
            tc[0] = r.ms_median;
        }
        while (lo > 0 && hi - lo > 1 && hi - lo > o->resolution * hi) {
            cur[d] = lo + (hi - lo) / 2;
            run_at(path, scene, opt, cs, &k, cur, o, show, &row->runs, &r);
            if (r.claim) {
                hi = cur[d];
                tc[0] = r.ms_median;
            } else {
                lo = cur[d];
            }
        }
        cur[d] = hi;
    }
    describe(&k, cur, row->cheap_setting, sizeof row->cheap_setting);
    const bool same = !memcmp(cur, file, sizeof(int) * (size_t)k.n);
    /* the two settings timed again, interleaved */
    for (int rep = 0; rep < o->repeat && !same && nf < MAX_TIMED; rep++) {
        run_at(path, scene, opt, cs, &k, file, o, show, &row->runs, &r);
        tf[nf++] = r.ms_median;
        run_at(path, scene, opt, cs, &k, cur, o, show, &row->runs, &r);
        tc[nc++] = r.ms_median;
        if (!r.claim) snprintf(row->note, sizeof row->note, "the cheapest setting failed when timed again");
    }
    /* the interleaved runs alone when there are any: the search's ran minutes apart, under other loads */
    const int skip = nf > 1 ? 1 : 0;
    row->ms_file = bench_median(tf + skip, nf - skip);
    row->ms_cheap = same ? row->ms_file : bench_median(tc + skip, nc - skip);
    row->ratio = row->ms_cheap > 0.0 ? row->ms_file / row->ms_cheap : NAN;
    row->seconds = bench_now_s() - t0;
}

/* ms/step of the file's and the cheapest setting per scene: a level over [i, i + 0.8] for scene i */
static int write_svg(const char *path, const cheapest_row *rows, int n)
{
    mo_plot *p = mo_plot_create("file's setting against the cheapest that holds its claims",
                                "scene (row of the table, from 0)", "ms per step", MO_AXIS_LINEAR, MO_AXIS_LOG);
    if (!p) return -1;
    double *x = malloc(sizeof(double) * (size_t)(3 * n + 1) * 3), *yf = x + 3 * n + 1, *yc = yf + 3 * n + 1;
    int m = 0;
    for (int i = 0; i < n; i++) { /* a level from i to i + 0.8, then NAN: a gap before the next scene's */
        x[m] = i, yf[m] = rows[i].ms_file, yc[m] = rows[i].ms_cheap, m++;
        x[m] = i + 0.8, yf[m] = rows[i].ms_file, yc[m] = rows[i].ms_cheap, m++;
        x[m] = i + 0.9, yf[m] = NAN, yc[m] = NAN, m++;
    }
    mo_plot_add_series(p, "the file's setting", x, yf, m, true);
    mo_plot_add_series(p, "the cheapest holding setting", x, yc, m, true);
    int rc = mo_plot_write_svg(p, path);
    mo_plot_destroy(p);
    free(x);
    return rc;
}

int bench_cheapest(const char *dir, char **names, int n, const mo_scene_options *opt, const cli_settings *cs,
                   const bench_cheapest_options *o, bool show)
{
    cheapest_row *rows = calloc((size_t)n, sizeof *rows);
    const double t0 = bench_now_s();
    for (int i = 0; i < n; i++) {
        if (show) fprintf(stderr, "cheapest: [%d/%d] %s\n", i + 1, n, names[i]);
        search_scene(dir, names[i], opt, cs, o, show, &rows[i]);
    }
    const double total = bench_now_s() - t0;
    char path[4096];
    snprintf(path, sizeof path, "%s/cheapest.csv", o->out);
    FILE *csv = bench_open_write(path);
    if (!csv) {
        free(rows);
        return 1;
    }
    fprintf(csv, "scene,solver,file_setting,cheapest_setting,file_ms_step,cheapest_ms_step,ratio,margin,within_margin,"
                 "file_held,runs,seconds,note\n");
    printf("# moreau-bench scenes %s --cheapest: %d scenes, margin %.2fx, resolution %.2f, %d more timed run(s)%s, "
           "%.0f s in all\n\n",
           dir, n, o->margin, o->resolution, o->repeat, o->tmax > 0.0 ? " (time capped)" : "", total);
    printf("| scene | solver | file setting | cheapest holding | file ms/step | cheapest ms/step | ratio | within "
           "%.2gx | runs | s |\n|---|---|---|---|---|---|---|---|---|---|\n",
           o->margin);
    for (int i = 0; i < n; i++) {
        const cheapest_row *r = &rows[i];
        const bool within = r->searched && r->ratio <= o->margin;
        char note[192];
        snprintf(note, sizeof note, "%s", r->note);
        for (char *c = note; *c; c++)
            if (*c == ',' || *c == '\n' || *c == '"') *c = ';';
        fprintf(csv, "%s,%s,%s,%s,%.6f,%.6f,%.4f,%.2f,%d,%d,%d,%.1f,%s\n", r->scene, r->solver, r->file_setting,
                r->cheap_setting, r->ms_file, r->ms_cheap, r->ratio, o->margin, within ? 1 : 0, r->file_held ? 1 : 0,
                r->runs, r->seconds, note);
        if (!r->searched)
            printf("| %s | %s | %s | — (%s) | %.3f | — | — | — | %d | %.0f |\n", r->scene, r->solver, r->file_setting,
                   note, r->ms_file, r->runs, r->seconds);
        else
            printf("| %s | %s | %s | %s | %.3f | %.3f | %.2f | %s | %d | %.0f |\n", r->scene, r->solver,
                   r->file_setting, r->cheap_setting, r->ms_file, r->ms_cheap, r->ratio,
                   within ? "yes" : "**no**", r->runs, r->seconds);
    }
    fclose(csv);
    char svg[4096];
    snprintf(svg, sizeof svg, "%s/cheapest.svg", o->out);
    if (write_svg(svg, rows, n) != 0) fprintf(stderr, "moreau-bench: cannot write %s\n", svg);
    printf("\ncsv: %s\nplot: %s\n", path, svg);
    free(rows);
    return 0;
}
