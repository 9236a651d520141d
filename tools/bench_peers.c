/* bench_peers.c: `moreau-bench peers`: Moreau beside MuJoCo 2.2.2, Bullet 3.24
 * and ODE 0.16 on the five shared scenes (design/SCENES.md: stack20, heavy,
 * pile1000, chain, wall), in one sitting.
 *
 * Every case is one program run in its own process: Moreau's
 * `moreau-run scenes/X.lua --check --quiet` (the scene file's own settings),
 * and the outside engines' benchmark programs of ../shared/tools/peers (their
 * defaults, plus the iteration counts at which Bullet and ODE hold the
 * stacks, as in their RESULTS.md). Rounds are interleaved: round k runs every
 * case once, scene by scene, before round k + 1 starts, so a change in the
 * machine's load touches every engine alike. A case's figure is the median
 * of its rounds' ms per step (each program's own in-process mean step time:
 * collision, solve and integration; Moreau: moreau-run's median step) with
 * the minimum and maximum beside it.
 *
 * Whether a run holds the scene's claim is judged by the same rule for every
 * engine: stack20 and heavy, the top cube within 1 cm of its start (the
 * peers print its displacement); pile1000, penetration at most 3 mm and no
 * sphere out of the box (the peers print the final penetration only, Moreau
 * the largest over the run); chain, joint drift at most 1 mm; wall, Moreau's
 * two claims (the peers print only how many bricks moved at the end, so their
 * verdict is "n/a"). Moreau's own claims are its scene files' checks.
 *
 * Output: DIR/peers.csv (one row per run), DIR/peers.md (the side-by-side
 * table and the ratio of Moreau to the fastest peer that holds the claim, and
 * to the fastest peer at all), DIR/peers.svg (grouped bars, ms per step, log
 * scale, hatched where the claim failed) and the table on stdout. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_peers.h"

#define MAX_RUNS 32
#define MAX_CASES 32

typedef struct pcase {
    const char *scene;   /* stack20, heavy, pile1000, chain, wall */
    const char *engine;  /* moreau, mujoco, bullet, ode */
    const char *variant; /* what is not the engine's default */
    const char *args;    /* after the program */
    /* results per round */
    int n;
    double ms[MAX_RUNS];
    int held[MAX_RUNS]; /* 1 held, 0 failed, -1 not judged */
    char metric[160];   /* the last run's figures */
    bool skipped;
    char why[1200];
} pcase;

#define CASE(s, e, v, a) {.scene = s, .engine = e, .variant = v, .args = a}
static pcase cases[] = {
    CASE("stack20", "moreau", "scene file", "scenes/stack20.lua"),
    CASE("stack20", "mujoco", "Newton (default)", "stack20"),
    CASE("stack20", "bullet", "10 it (default)", "stack20"),
    CASE("stack20", "bullet", "100 it", "stack20 100"),
    CASE("stack20", "ode", "quickstep 20 it (default)", "stack20"),
    CASE("stack20", "ode", "quickstep 50 it", "stack20 quick 50"),
    CASE("heavy", "moreau", "scene file", "scenes/heavy_stack.lua"),
    CASE("heavy", "mujoco", "Newton (default)", "heavy"),
    CASE("heavy", "bullet", "10 it (default)", "heavy"),
    CASE("heavy", "bullet", "100 it", "heavy 100"),
    CASE("heavy", "ode", "quickstep 20 it (default)", "heavy"),
    CASE("heavy", "ode", "quickstep 50 it", "heavy quick 50"),
    CASE("pile1000", "moreau", "scene file", "scenes/pile1000.lua"),
    CASE("pile1000", "mujoco", "CG (Newton cannot run it)", "pile1000 CG"),
    CASE("pile1000", "bullet", "10 it (default)", "pile1000"),
    CASE("pile1000", "ode", "quickstep 20 it (default)", "pile1000"),
    CASE("chain", "moreau", "scene file", "scenes/chain1000.lua"),
    CASE("chain", "mujoco", "Newton, free bodies + connect (chainc)", "chainc"),
    CASE("chain", "bullet", "10 it (default)", "chain"),
    CASE("chain", "ode", "quickstep 20 it (default)", "chain"),
    CASE("wall", "moreau", "scene file", "scenes/b4_wall.lua"),
    CASE("wall", "bullet", "10 it (default)", "wall"),
    CASE("wall", "ode", "quickstep 20 it (default)", "wall"),
};
#undef CASE
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static const char *const scene_names[] = {"stack20", "heavy", "pile1000", "chain", "wall"};
#define NSCENES 5

void bench_peers_usage(FILE *f)
{
    fprintf(f, "usage: moreau-bench peers [options]\n"
               "  --peers DIR         the outside engines' programs (default $MOREAU_PEERS, else\n"
               "                      ../shared/tools/peers; build them with make -C DIR)\n"
               "  --runs N            interleaved rounds (default 3)\n"
               "  --scenes LIST       of stack20, heavy, pile1000, chain, wall (default all)\n"
               "  --engines LIST      of moreau, mujoco, bullet, ode (default all)\n"
               "  --steps N           shorten every run to N steps (default: each scene's full length)\n"
               "  --moreau-run PATH   (default: moreau-run beside moreau-bench)\n"
               "  --out DIR           peers.csv, peers.md, peers.svg (default .)\n");
}

static bool in_list(const char *list, const char *name)
{
    if (!list) return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* the value after "key=" in text, NAN when absent */
static double field(const char *text, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "%s=", key);
    for (const char *p = strstr(text, k); p; p = strstr(p + 1, k))
        if (p == text || p[-1] == ' ' || p[-1] == '\n') return strtod(p + strlen(k), NULL);
    return NAN;
}

/* the judgement and figures of one run's output */
static void judge(pcase *c, const char *out, int *held, double *ms)
{
    if (!strcmp(c->engine, "moreau")) {
        const char *m = strstr(out, "ms_per_step median=");
        *ms = m ? strtod(m + strlen("ms_per_step median="), NULL) : NAN;
        int pass = -1, fail = -1;
        const char *k = strstr(out, "checks: ");
        if (k) sscanf(k, "checks: %d passed, %d failed", &pass, &fail);
        *held = pass > 0 && fail == 0 ? 1 : fail > 0 ? 0 : -1;
        const char *first = strstr(out, "check ");
        const char *open = first ? strchr(first, '(') : NULL, *close = open ? strchr(open, '\n') : NULL;
        if (open && close) snprintf(c->metric, sizeof c->metric, "%.*s", (int)(close - open), open);
        return;
    }
    *ms = field(out, "ms_per_step");
    *held = -1;
    if (!strcmp(c->scene, "stack20") || !strcmp(c->scene, "heavy")) {
        double dx = field(out, "top_dx"), dy = field(out, "top_dy"), dz = field(out, "top_dz");
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (isfinite(d)) *held = d <= 0.01;
        snprintf(c->metric, sizeof c->metric, "top moved %.3g m, max penetration %.3g m", d,
                 field(out, "max_pen_all_steps"));
    } else if (!strcmp(c->scene, "pile1000")) {
        double pen = field(out, "final_max_pen"), esc = field(out, "escaped");
        if (isfinite(pen) && isfinite(esc)) *held = pen <= 0.003 && esc == 0.0;
        snprintf(c->metric, sizeof c->metric, "final penetration %.3g m, %g out", pen, esc);
    } else if (!strcmp(c->scene, "chain")) {
        double d = field(out, "max_joint_drift");
        if (isfinite(d)) *held = d <= 0.001;
        snprintf(c->metric, sizeof c->metric, "max joint drift %.3g m", d);
    } else {
        snprintf(c->metric, sizeof c->metric, "%g bricks moved > 0.1 m at the end", field(out, "bricks_moved_gt_0.1m"));
    }
}

/* runs cmd, its stdout and stderr into *out (malloc'd); the exit status */
static int capture(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!p || !buf) {
        if (p) pclose(p);
        free(buf);
        *out = NULL;
        return -1;
    }
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 1024) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
    }
    buf[len] = '\0';
    *out = buf;
    return pclose(p);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const pcase *c, double *lo, double *hi)
{
    double v[MAX_RUNS];
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (isfinite(c->ms[i])) v[n++] = c->ms[i];
    if (n == 0) {
        *lo = *hi = NAN;
        return NAN;
    }
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    *lo = v[0];
    *hi = v[n - 1];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* held in every round: 1; in none: 0; mixed: 2; never judged: -1 */
static int verdict(const pcase *c)
{
    int yes = 0, no = 0;
    for (int i = 0; i < c->n; i++) {
        yes += c->held[i] == 1;
        no += c->held[i] == 0;
    }
    if (yes + no == 0) return -1;
    return no == 0 ? 1 : yes == 0 ? 0 : 2;
}

static const char *verdict_text(int v)
{
    return v == 1 ? "holds" : v == 0 ? "fails" : v == 2 ? "mixed" : "n/a";
}

static const char *engine_colour(const char *e)
{
    return !strcmp(e, "moreau") ? "#1f77b4" : !strcmp(e, "mujoco") ? "#2ca02c" : !strcmp(e, "bullet") ? "#ff7f0e"
                                                                                                         : "#9467bd";
}

/* grouped bars: one group per scene, one bar per case, log y */
static int write_svg(const char *path, const bool *on)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < NCASES; i++) {
        double a, b, m = on[i] ? median_of(&cases[i], &a, &b) : NAN;
        if (isfinite(m) && m > 0.0) {
            lo = fmin(lo, m);
            hi = fmax(hi, m);
        }
    }
    if (!(hi > 0.0)) {
        lo = 0.01;
        hi = 10.0;
    }
    const double y0 = floor(log10(lo)), y1 = ceil(log10(hi)) + (ceil(log10(hi)) == log10(hi));
    const int W = 1000, H = 440, L = 70, R = 20, T = 40, B = 110;
    const double ph = H - T - B;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<defs><pattern id=\"h\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
               "<path d=\"M0,6 L6,0\" stroke=\"black\" stroke-width=\"1\"/></pattern></defs>\n"
               "<text x=\"%d\" y=\"20\" font-size=\"14\">ms per step, one thread (hatched: the scene's claim "
               "failed)</text>\n",
               W, H, L);
    for (double e = y0; e <= y1; e += 1.0) {
        double y = T + ph * (1.0 - (e - y0) / (y1 - y0));
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
                   "text-anchor=\"end\">%g</text>\n",
                L, W - R, y, y, L - 4, y + 4, pow(10.0, e));
    }
    int nbars = 0;
    for (int i = 0; i < NCASES; i++) nbars += on[i];
    const double slot = (double)(W - L - R) / (nbars + NSCENES + 1);
    double x = L + slot * 0.5;
    for (int s = 0; s < NSCENES; s++) {
        double gx = x;
        int in_group = 0;
        for (int i = 0; i < NCASES; i++) {
            if (!on[i] || strcmp(cases[i].scene, scene_names[s])) continue;
            double a, b, m = median_of(&cases[i], &a, &b);
            in_group++;
            if (isfinite(m) && m > 0.0) {
                double y = T + ph * (1.0 - (log10(m) - y0) / (y1 - y0));
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y,
                        slot * 0.9, T + ph - y, engine_colour(cases[i].engine));
                if (verdict(&cases[i]) == 0)
                    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#h)\" "
                               "opacity=\"0.5\"/>\n",
                            x, y, slot * 0.9, T + ph - y);
            }
            fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(60)\" font-size=\"9\">%s %s</text>\n",
                    x + slot * 0.3, T + ph + 6, cases[i].engine, strstr(cases[i].variant, "default") ? "" :
                    cases[i].variant);
            x += slot;
        }
        if (in_group)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
                    0.5 * (gx + x), H - 8, scene_names[s]);
        x += slot;
    }
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}

int bench_peers(int argc, char **argv, const char *self)
{
    const char *peers = getenv("MOREAU_PEERS"), *scenes = NULL, *engines = NULL, *out = ".", *run = NULL;
    if (!peers || !peers[0]) peers = "../shared/tools/peers";
    int runs = 3, steps = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "moreau-bench peers: '%s' needs a value\n", a);
            bench_peers_usage(stderr);
            return 2;
        }
        if (!strcmp(a, "--peers")) peers = v;
        else if (!strcmp(a, "--runs")) runs = atoi(v);
        else if (!strcmp(a, "--scenes")) scenes = v;
        else if (!strcmp(a, "--engines")) engines = v;
        else if (!strcmp(a, "--steps")) steps = atoi(v);
        else if (!strcmp(a, "--moreau-run")) run = v;
        else if (!strcmp(a, "--out")) out = v;
        else {
            fprintf(stderr, "moreau-bench peers: unknown option '%s'\n", a);
            bench_peers_usage(stderr);
            return 2;
        }
        i++;
    }
    if (runs < 1 || runs > MAX_RUNS || steps < 0) {
        fprintf(stderr, "moreau-bench peers: --runs must be in [1, %d] and --steps >= 0\n", MAX_RUNS);
        return 2;
    }
    char runbuf[1024];
    if (!run) {
        const char *slash = strrchr(self, '/');
        snprintf(runbuf, sizeof runbuf, "%.*smoreau-run", slash ? (int)(slash - self + 1) : 0, self);
        run = runbuf;
    }
    bool on[MAX_CASES];
    int active = 0;
    for (int i = 0; i < NCASES; i++) {
        pcase *c = &cases[i];
        on[i] = in_list(scenes, c->scene) && in_list(engines, c->engine);
        c->n = 0;
        if (!on[i]) continue;
        char prog[1024];
        if (!strcmp(c->engine, "moreau")) snprintf(prog, sizeof prog, "%s", run);
        else snprintf(prog, sizeof prog, "%s/%s/bench_%s", peers, c->engine, c->engine);
        if (access(prog, X_OK) != 0) {
            c->skipped = true;
            if (!strcmp(c->engine, "moreau")) snprintf(c->why, sizeof c->why, "%s is not built", prog);
            else snprintf(c->why, sizeof c->why, "%s is not built (make -C %s; it needs lib%s-dev)", prog, peers,
                          c->engine);
            fprintf(stderr, "peers: %s %s: skipped, %s\n", c->scene, c->engine, c->why);
            continue;
        }
        active++;
    }
    if (active == 0) {
        fprintf(stderr, "moreau-bench peers: nothing to run\n");
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/peers.csv", out);
    FILE *csv = fopen(path, "w");
    if (!csv) {
        fprintf(stderr, "moreau-bench peers: cannot write %s\n", path);
        return 1;
    }
    fprintf(csv, "round,scene,engine,variant,ms_per_step,held,figures\n");
    int failures = 0;
    for (int r = 0; r < runs; r++)
        for (int i = 0; i < NCASES; i++) {
            pcase *c = &cases[i];
            if (!on[i] || c->skipped) continue;
            char cmd[2048];
            if (!strcmp(c->engine, "moreau")) {
                char st[32] = "";
                if (steps > 0) snprintf(st, sizeof st, " --steps %d", steps);
                snprintf(cmd, sizeof cmd, "'%s' %s --check --quiet --threads 1%s 2>&1", run, c->args, st);
            } else {
                char st[32] = "";
                if (steps > 0) snprintf(st, sizeof st, "BENCH_STEPS=%d ", steps);
                snprintf(cmd, sizeof cmd, "%s'%s/%s/bench_%s' %s 2>&1", st, peers, c->engine, c->engine, c->args);
            }
            char *text = NULL;
            int rc = capture(cmd, &text);
            int held = -1;
            double ms = NAN;
            if (text) judge(c, text, &held, &ms);
            if (!isfinite(ms)) {
                failures++;
                fprintf(stderr, "peers: %s %s (%s) round %d: no ms_per_step (exit %d)\n", c->scene, c->engine,
                        c->variant, r + 1, rc);
            }
            c->ms[c->n] = ms;
            c->held[c->n++] = held;
            fprintf(csv, "%d,%s,%s,\"%s\",%.6g,%d,\"%s\"\n", r + 1, c->scene, c->engine, c->variant, ms, held, c->metric);
            fprintf(stderr, "peers: round %d/%d %s %s (%s): %.4f ms/step, %s\n", r + 1, runs, c->scene, c->engine,
                    c->variant, ms, verdict_text(held));
            free(text);
        }
    fclose(csv);
    /* the table */
    snprintf(path, sizeof path, "%s/peers.md", out);
    FILE *md = fopen(path, "w");
    FILE *dst[2] = {stdout, md};
    for (int d = 0; d < 2; d++) {
        FILE *f = dst[d];
        if (!f) continue;
        fprintf(f, "| scene | engine | settings | ms/step median (min-max), %d rounds | claim | figures |\n"
                   "|---|---|---|---|---|---|\n",
                runs);
        for (int i = 0; i < NCASES; i++) {
            pcase *c = &cases[i];
            if (!on[i]) continue;
            if (c->skipped) {
                fprintf(f, "| %s | %s | %s | skipped: %s | | |\n", c->scene, c->engine, c->variant, c->why);
                continue;
            }
            double lo, hi, m = median_of(c, &lo, &hi);
            fprintf(f, "| %s | %s | %s | %.4f (%.4f-%.4f) | %s | %s |\n", c->scene, c->engine, c->variant, m, lo, hi,
                    verdict_text(verdict(c)), c->metric);
        }
        fprintf(f, "\n| scene | Moreau ms/step | fastest peer that holds the claim | Moreau / it | fastest peer | "
                   "Moreau / it |\n|---|---|---|---|---|---|\n");
        for (int s = 0; s < NSCENES; s++) {
            const pcase *mo = NULL, *best_hold = NULL, *best = NULL;
            double mm = NAN, bh = INFINITY, ba = INFINITY, lo, hi;
            for (int i = 0; i < NCASES; i++) {
                const pcase *c = &cases[i];
                if (!on[i] || c->skipped || strcmp(c->scene, scene_names[s])) continue;
                double m = median_of(c, &lo, &hi);
                if (!strcmp(c->engine, "moreau")) {
                    mo = c;
                    mm = m;
                    continue;
                }
                if (isfinite(m) && m < ba) {
                    ba = m;
                    best = c;
                }
                if (isfinite(m) && verdict(c) == 1 && m < bh) {
                    bh = m;
                    best_hold = c;
                }
            }
            if (!mo && !best) continue;
            char a[160] = "none", b[160] = "none", ra[32] = "-", rb[32] = "-";
            if (best_hold) {
                snprintf(a, sizeof a, "%s %s: %.4f", best_hold->engine, best_hold->variant, bh);
                if (mo) snprintf(ra, sizeof ra, "%.2f", mm / bh);
            }
            if (best) {
                snprintf(b, sizeof b, "%s %s: %.4f (%s)", best->engine, best->variant, ba, verdict_text(verdict(best)));
                if (mo) snprintf(rb, sizeof rb, "%.2f", mm / ba);
            }
            fprintf(f, "| %s | %.4f (%s) | %s | %s | %s | %s |\n", scene_names[s], mm, mo ? verdict_text(verdict(mo)) : "-",
                    a, ra, b, rb);
        }
    }
    if (md) fclose(md);
    snprintf(path, sizeof path, "%s/peers.svg", out);
    if (write_svg(path, on)) fprintf(stderr, "moreau-bench peers: cannot write %s\n", path);
    printf("wrote %s/peers.csv, %s/peers.md and %s/peers.svg\n", out, out, out);
    return failures ? 1 : 0;
}
