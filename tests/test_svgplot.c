/* test_svgplot.c: the SVG plotter of tools/svgplot.h: balanced tags and
 * escaped text, legend entries, linear and log tick labels, lines broken at
 * skipped points (NaN, <= 0 on a log axis), staircases, monotone mapping,
 * clipping to the frame, byte-identical output, the file round trip. The SVG
 * is read with small string scans, not an XML parser. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "svgplot.h"

/* ---- scanning the SVG text ---- */

static int count_str(const char *s, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strstr(s, needle); p; p = strstr(p + len, needle)) n++;
    return n;
}

/* tags balanced as far as counting tells; every path/polyline self-closed or
   closed; every & starts an entity */
static bool well_formed(const char *s)
{
    bool ok = count_str(s, "<svg") == 1 && count_str(s, "</svg>") == 1;
    ok = ok && count_str(s, "<text") == count_str(s, "</text>");
    ok = ok && count_str(s, "<g ") + count_str(s, "<g>") == count_str(s, "</g>");
    const char *const elems[] = {"<path", "<polyline"};
    for (int k = 0; k < 2; k++)
        for (const char *p = strstr(s, elems[k]); p; p = strstr(p + 1, elems[k])) {
            const char *gt = strchr(p, '>');
            const char *lt = strchr(p + 1, '<');
            if (!gt || (lt && lt < gt)) return false;
            if (gt[-1] != '/' && strncmp(gt + 1, "</", 2) != 0) return false;
        }
    for (const char *p = strchr(s, '&'); p; p = strchr(p + 1, '&'))
        if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) && strncmp(p, "&quot;", 6) &&
            strncmp(p, "&apos;", 6))
            return false;
    const char *end = strstr(s, "</svg>");
    return ok && end && strcmp(end, "</svg>\n") == 0;
}

/* the d attribute of series i's line into out; false when it has none */
static bool series_d(const char *svg, int i, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "<path class=\"line\" data-series=\"%d\"", i);
    const char *p = strstr(svg, key);
    if (!p) return false;
    const char *d = strstr(p, " d=\"");
    if (!d) return false;
    d += 4;
    const char *e = strchr(d, '"');
    if (!e || (size_t)(e - d) >= size) return false;
    memcpy(out, d, (size_t)(e - d));
    out[e - d] = '\0';
    return true;
}

/* the vertices of path data made of M and L commands; the number of M's in *nsub */
static int parse_vertices(const char *d, double *xs, double *ys, int max, int *nsub)
{
    int n = 0;
    *nsub = 0;
    const char *p = d;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (*p != 'M' && *p != 'L') return -1;
        if (*p == 'M') ++*nsub;
        char *end;
        double x = strtod(p + 1, &end);
        double y = strtod(end, &end);
        if (end == p + 1 || n >= max) return -1;
        xs[n] = x;
        ys[n] = y;
        n++;
        p = end;
    }
    return n;
}

/* a lone point's "M x y h0" parses as one vertex: drop the h0 for parse_vertices */
static void strip_h0(char *d)
{
    for (char *h = strstr(d, " h0"); h; h = strstr(d, " h0")) memmove(h, h + 3, strlen(h + 3) + 1);
}

/* the labels of <g class="which"> (xticks or yticks), "|"-joined: "|0|0.5|1|" */
static void tick_labels(const char *svg, const char *which, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "<g class=\"%s\"", which);
    out[0] = '\0';
    const char *p = strstr(svg, key);
    const char *end = p ? strstr(p, "</g>") : NULL;
    if (!p) return;
    snprintf(out, size, "|");
    for (const char *t = strstr(p, "<text"); t && t < end; t = strstr(t + 1, "<text")) {
        const char *a = strchr(t, '>') + 1, *b = strstr(a, "</text>");
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%.*s|", (int)(b - a), a);
    }
}

static int count_labels(const char *joined)
{
    int n = 0;
    for (const char *c = joined; *c; c++) n += *c == '|';
    return n > 0 ? n - 1 : 0;
}

/* ---- tests ---- */

static void test_structure_and_escaping(void)
{
    mo_plot *p = mo_plot_create("a < b & c", "time \"t\" [s]", "it's > 0", MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    CHECK(p != NULL);
    double x[3] = {0, 1, 2}, y[3] = {1, 3, 2};
    CHECK(mo_plot_add_series(p, "APGD", x, y, 3, false) == 0);
    CHECK(mo_plot_add_series(p, "PGS <50>", x, y, 3, true) == 1);
    CHECK(mo_plot_add_series(p, NULL, x, y, 3, false) == 2);
    char *s = mo_plot_svg_string(p);
    CHECK(s != NULL);
    if (s) {
        CHECK(well_formed(s));
        CHECK(strstr(s, ">a &lt; b &amp; c</text>") != NULL);
        CHECK(strstr(s, ">time &quot;t&quot; [s]</text>") != NULL);
        CHECK(strstr(s, ">it&apos;s &gt; 0</text>") != NULL);
        CHECK(strstr(s, "viewBox=\"0 0 800 500\"") != NULL);
        CHECK(count_str(s, "class=\"legend-entry\"") == 3);
        CHECK(strstr(s, ">APGD</text>") != NULL);
        CHECK(strstr(s, ">PGS &lt;50&gt;</text>") != NULL);
        CHECK(strstr(s, ">series 2</text>") != NULL);
        CHECK(count_str(s, "class=\"line\"") == 3);
        CHECK(strstr(s, "no data") == NULL);
    }
    free(s);
    mo_plot_destroy(p);
}

static void test_ticks(void)
{
    char labels[1024];
    /* log axis over 1e-8..1: decade labels */
    mo_plot *p = mo_plot_create("residual", "iteration", "r", MO_AXIS_LINEAR, MO_AXIS_LOG);
    double x[4] = {0, 10, 20, 30}, y[4] = {1, 1e-3, 1e-6, 1e-8};
    mo_plot_add_series(p, "r", x, y, 4, false);
    char *s = mo_plot_svg_string(p);
    tick_labels(s, "yticks", labels, sizeof labels);
    CHECK(strstr(labels, "|1e-8|") != NULL);
    CHECK(strstr(labels, "|1|") != NULL);
    CHECK(strstr(labels, "|1e-4|") != NULL);
    CHECK(count_labels(labels) == 9);
    /* linear x over 0..30 */
    tick_labels(s, "xticks", labels, sizeof labels);
    CHECK(count_labels(labels) >= 5 && count_labels(labels) <= 8);
    CHECK(strstr(labels, "|0|") != NULL);
    CHECK(strstr(labels, "|30|") != NULL);
    free(s);
    /* the same from a set range, data narrower */
    mo_plot_set_yrange(p, 1e-8, 1);
    s = mo_plot_svg_string(p);
    tick_labels(s, "yticks", labels, sizeof labels);
    CHECK(strstr(labels, "|1e-8|") != NULL);
    CHECK(strstr(labels, "|1|") != NULL);
    CHECK(well_formed(s));
    free(s);
    /* invalid ranges are ignored: a log range from 0, a reversed one */
    mo_plot_set_yrange(p, 0, 1);
    mo_plot_set_xrange(p, 5, 1);
    mo_plot_set_xrange(p, 0, NAN);
    char *s2 = mo_plot_svg_string(p);
    mo_plot_set_yrange(p, 1e-8, 1);
    s = mo_plot_svg_string(p);
    CHECK(strcmp(s, s2) == 0);
    free(s);
    free(s2);
    mo_plot_destroy(p);

    /* linear axes from data: 5 to 8 nice ticks, 1/2/5 x 10^k */
    const double ranges[][2] = {{0, 1}, {0, 7.3}, {-3, 1234}, {0.001, 0.0173}, {-1, 1}, {5, 5}, {1e6, 3.3e6},
                                {0, 1.7}, {2.5e-7, 9e-7}, {-40, -10}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        p = mo_plot_create(NULL, NULL, NULL, MO_AXIS_LINEAR, MO_AXIS_LINEAR);
        double xx[2] = {0, 1};
        mo_plot_add_series(p, "s", xx, ranges[i], 2, false);
        s = mo_plot_svg_string(p);
        tick_labels(s, "yticks", labels, sizeof labels);
        int n = count_labels(labels);
        if (n < 5 || n > 8) fprintf(stderr, "range [%g, %g]: %d ticks %s\n", ranges[i][0], ranges[i][1], n, labels);
        CHECK(n >= 5 && n <= 8);
        CHECK(well_formed(s));
        free(s);
        mo_plot_destroy(p);
    }
    p = mo_plot_create(NULL, NULL, NULL, MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    double xx[2] = {0, 1}, yy[2] = {0, 1};
    mo_plot_add_series(p, "s", xx, yy, 2, false);
    s = mo_plot_svg_string(p);
    tick_labels(s, "yticks", labels, sizeof labels);
    CHECK_STR(labels, "|0.0|0.2|0.4|0.6|0.8|1.0|");
    free(s);
    mo_plot_destroy(p);

    /* a log range under two decades: 1, 2, 5 x 10^k */
    p = mo_plot_create(NULL, NULL, NULL, MO_AXIS_LOG, MO_AXIS_LOG);
    mo_plot_set_xrange(p, 1.5, 30);
    s = mo_plot_svg_string(p);
    tick_labels(s, "xticks", labels, sizeof labels);
    CHECK_STR(labels, "|2|5|1e1|2e1|");
    free(s);
    mo_plot_destroy(p);
}

static void test_skipped_points(void)
{
    char d[4096];
    double xs[64], ys[64];
    int nsub = 0;
    mo_plot *p = mo_plot_create("skips", NULL, NULL, MO_AXIS_LOG, MO_AXIS_LOG);
    /* NaN in the middle: two segments of two points */
    double x[5] = {1, 2, 3, 4, 5}, y[5] = {1e-1, 1e-2, NAN, 1e-4, 1e-5};
    mo_plot_add_series(p, "nan", x, y, 5, false);
    /* zero y and negative x on log axes: segments {1}, {3,4}, {6} */
    double x2[6] = {1, 2, 3, 4, -5, 6}, y2[6] = {1, 0, 0.5, 0.25, 0.1, 0.01};
    mo_plot_add_series(p, "zero", x2, y2, 6, false);
    /* infinite x at the end: one segment */
    double x3[3] = {1, 2, INFINITY}, y3[3] = {1, 2, 3};
    mo_plot_add_series(p, "inf", x3, y3, 3, false);
    /* nothing drawable: no line, still a legend entry */
    double x4[2] = {0, -1}, y4[2] = {1, 1};
    mo_plot_add_series(p, "none", x4, y4, 2, false);
    char *s = mo_plot_svg_string(p);
    CHECK(well_formed(s));

    CHECK(series_d(s, 0, d, sizeof d));
    CHECK(parse_vertices(d, xs, ys, 64, &nsub) == 4);
    CHECK(nsub == 2);
    CHECK(series_d(s, 1, d, sizeof d));
    CHECK(count_str(d, " h0") == 2); /* lone points are dots */
    strip_h0(d);
    CHECK(parse_vertices(d, xs, ys, 64, &nsub) == 4);
    CHECK(nsub == 3);
    CHECK(series_d(s, 2, d, sizeof d));
    CHECK(parse_vertices(d, xs, ys, 64, &nsub) == 2);
    CHECK(nsub == 1);
    CHECK(!series_d(s, 3, d, sizeof d));
    CHECK(count_str(s, "class=\"legend-entry\"") == 4);
    CHECK(strstr(s, "no data") == NULL);
    free(s);
    mo_plot_destroy(p);
}

static void test_step_and_mapping(void)
{
    char d[4096];
    double xs[64], ys[64];
    int nsub = 0;
    mo_plot *p = mo_plot_create("profile", "tau", "rho", MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    double x[2] = {1, 2}, y[2] = {0, 0.5};
    CHECK(mo_plot_add_series(p, "step", x, y, 2, true) == 0);
    char *s = mo_plot_svg_string(p);
    CHECK(series_d(s, 0, d, sizeof d));
    /* (1,0) -> (2,0) -> (2,0.5) */
    CHECK(parse_vertices(d, xs, ys, 64, &nsub) == 3);
    CHECK(nsub == 1);
    CHECK(xs[1] > xs[0]);
    CHECK(ys[1] == ys[0]);
    CHECK(xs[2] == xs[1]);
    CHECK(ys[2] < ys[1]);
    free(s);
    mo_plot_destroy(p);

    /* monotone: larger x right, larger y up, on both scales */
    for (int scale = 0; scale < 2; scale++) {
        mo_axis_scale sc = scale ? MO_AXIS_LOG : MO_AXIS_LINEAR;
        p = mo_plot_create(NULL, NULL, NULL, sc, sc);
        double mx[6] = {1, 3, 10, 30, 100, 400}, my[6] = {1, 2, 5, 9, 20, 60};
        mo_plot_add_series(p, "m", mx, my, 6, false);
        s = mo_plot_svg_string(p);
        CHECK(series_d(s, 0, d, sizeof d));
        int n = parse_vertices(d, xs, ys, 64, &nsub);
        CHECK(n == 6);
        for (int i = 1; i < n; i++) {
            CHECK(xs[i] > xs[i - 1]);
            CHECK(ys[i] < ys[i - 1]);
        }
        free(s);
        mo_plot_destroy(p);
    }

    /* clipping: a set range narrower than the data keeps every vertex in the frame */
    p = mo_plot_create(NULL, NULL, NULL, MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    double cx[5] = {-10, 0, 1, 2, 50}, cy[5] = {0, 0.5, -3, 0.5, 0.7};
    mo_plot_add_series(p, "clip", cx, cy, 5, false);
    mo_plot_add_series(p, "clipstep", cx, cy, 5, true);
    mo_plot_set_xrange(p, 0, 2);
    mo_plot_set_yrange(p, 0, 1);
    s = mo_plot_svg_string(p);
    CHECK(well_formed(s));
    const char *fr = strstr(s, "<rect class=\"frame\"");
    double fx = 0, fy = 0, fw = 0, fh = 0;
    CHECK(fr && sscanf(fr, "<rect class=\"frame\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &fx, &fy, &fw,
                       &fh) == 4);
    for (int k = 0; k < 2; k++) {
        CHECK(series_d(s, k, d, sizeof d));
        strip_h0(d);
        int n = parse_vertices(d, xs, ys, 64, &nsub);
        CHECK(n >= 2);
        for (int i = 0; i < n; i++) CHECK(xs[i] >= fx && xs[i] <= fx + fw && ys[i] >= fy && ys[i] <= fy + fh);
    }
    free(s);
    mo_plot_destroy(p);
}

static void test_styles(void)
{
    mo_plot *p = mo_plot_create("many", NULL, NULL, MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    double x[2] = {0, 1};
    enum { N = 23 };
    for (int i = 0; i < N; i++) {
        double y[2] = {i, i + 1};
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        CHECK(mo_plot_add_series(p, name, x, y, 2, i % 2) == i);
    }
    char *s = mo_plot_svg_string(p);
    CHECK(well_formed(s));
    CHECK(count_str(s, "class=\"legend-entry\"") == N);
    /* every legend entry's stroke + dash differ */
    char style[N][64];
    const char *e = s;
    for (int i = 0; i < N; i++) {
        e = strstr(e, "class=\"legend-entry\"");
        if (!e) break;
        const char *st = strstr(e, "stroke=\"");
        const char *dend = strstr(e, " d=\"");
        snprintf(style[i], sizeof style[i], "%.*s", (int)(dend - st), st);
        e++;
    }
    int dup = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++) dup += strcmp(style[i], style[j]) == 0;
    CHECK(dup == 0);
    free(s);
    mo_plot_destroy(p);
}

static void test_empty_and_errors(void)
{
    for (int scale = 0; scale < 2; scale++) {
        mo_axis_scale sc = scale ? MO_AXIS_LOG : MO_AXIS_LINEAR;
        mo_plot *p = mo_plot_create("empty & co", "x", "y", sc, sc);
        char *s = mo_plot_svg_string(p);
        CHECK(s && well_formed(s));
        CHECK(s && strstr(s, ">no data</text>") != NULL);
        CHECK(s && count_str(s, "class=\"tick\"") >= 2);
        free(s);
        double x[3] = {NAN, 1, INFINITY}, y[3] = {1, scale ? 0 : NAN, 2};
        CHECK(mo_plot_add_series(p, "skipped", x, y, 3, false) == 0);
        CHECK(mo_plot_add_series(p, "zero points", NULL, NULL, 0, true) == 1);
        s = mo_plot_svg_string(p);
        CHECK(s && well_formed(s));
        CHECK(s && strstr(s, ">no data</text>") != NULL);
        CHECK(s && count_str(s, "class=\"line\"") == 0);
        CHECK(s && count_str(s, "class=\"legend-entry\"") == 2);
        free(s);
        mo_plot_destroy(p);
    }
    /* argument errors */
    double x[1] = {1};
    CHECK(mo_plot_create("t", NULL, NULL, (mo_axis_scale)7, MO_AXIS_LINEAR) == NULL);
    CHECK(mo_plot_add_series(NULL, "a", x, x, 1, false) == -1);
    mo_plot *p = mo_plot_create(NULL, NULL, NULL, MO_AXIS_LINEAR, MO_AXIS_LINEAR);
    CHECK(mo_plot_add_series(p, "a", x, x, -1, false) == -1);
    CHECK(mo_plot_add_series(p, "a", NULL, x, 1, false) == -1);
    CHECK(mo_plot_add_series(p, "a", x, NULL, 1, false) == -1);
    CHECK(mo_plot_add_series(p, "a", x, x, 1, false) == 0);
    CHECK(mo_plot_svg_string(NULL) == NULL);
    errno = 0;
    CHECK(mo_plot_write_svg(NULL, "x.svg") == -1 && errno == EINVAL);
    errno = 0;
    CHECK(mo_plot_write_svg(p, NULL) == -1 && errno == EINVAL);
    mo_plot_set_xrange(NULL, 0, 1);
    mo_plot_destroy(p);
    mo_plot_destroy(NULL);
}

static void test_determinism_and_file(void)
{
    mo_plot *p = mo_plot_create("Performance profile", "tau", "fraction solved", MO_AXIS_LOG, MO_AXIS_LINEAR);
    double x[5] = {1, 1.5, 2, 8, 100}, y[5] = {0.2, 0.4, 0.6, 0.8, 1};
    mo_plot_add_series(p, "APGD", x, y, 5, true);
    /* the data is copied: changing the caller's arrays changes nothing */
    char *s1 = mo_plot_svg_string(p);
    x[2] = 3;
    y[4] = 0.9;
    char *s2 = mo_plot_svg_string(p);
    CHECK(s1 && s2 && strcmp(s1, s2) == 0);
    /* an identical plot built separately */
    mo_plot *q = mo_plot_create("Performance profile", "tau", "fraction solved", MO_AXIS_LOG, MO_AXIS_LINEAR);
    double x0[5] = {1, 1.5, 2, 8, 100}, y0[5] = {0.2, 0.4, 0.6, 0.8, 1};
    mo_plot_add_series(q, "APGD", x0, y0, 5, true);
    char *s3 = mo_plot_svg_string(q);
    CHECK(s1 && s3 && strcmp(s1, s3) == 0);

    /* write to a temp dir, read back */
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/svgplotXXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/plot.svg", dir);
    CHECK(mo_plot_write_svg(p, path) == 0);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f && s1) {
        size_t n = strlen(s1);
        char *buf = malloc(n + 2);
        size_t got = fread(buf, 1, n + 1, f);
        CHECK(got == n);
        CHECK(got == n && memcmp(buf, s1, n) == 0);
        free(buf);
    }
    if (f) fclose(f);
    CHECK(remove(path) == 0);
    CHECK(rmdir(dir) == 0);
    /* into a directory that does not exist: -1, errno kept */
    errno = 0;
    CHECK(mo_plot_write_svg(p, path) == -1);
    CHECK(errno == ENOENT);

    free(s1);
    free(s2);
    free(s3);
    mo_plot_destroy(p);
    mo_plot_destroy(q);
}

int main(void)
{
    test_structure_and_escaping();
    test_ticks();
    test_skipped_points();
    test_step_and_mapping();
    test_styles();
    test_empty_and_errors();
    test_determinism_and_file();
    return check_result_counted("svgplot");
}
