/* svgplot.c: the SVG plotter of svgplot.h. The text is built in a growable
 * buffer: a header, grid and frame, ticks and their labels, axis labels, one
 * <path> per series (data mapped to pixels, broken at skipped points, clipped
 * to the plot area with Liang-Barsky), the legend, and a "no data" note when
 * no point is drawable. Linear axes get 1/2/5 x 10^k ticks (5 to 8 of them
 * when the range allows), log axes decade ticks labelled "1e-6" (1, 2, 5 x
 * 10^k when the range holds fewer than two decades) and unlabelled minor ticks
 * at 2..9 x 10^k. Coordinates are printed as %.2f. */
#include "svgplot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout, in viewBox units ---- */

#define PLOT_W 800.0
#define PLOT_H 500.0
#define AREA_L 80.0 /* plot area: x in [AREA_L, AREA_R], y in [AREA_T, AREA_B] */
#define AREA_R 610.0
#define AREA_T 50.0
#define AREA_B 430.0
#define LEGEND_X (AREA_R + 18.0)
#define LEGEND_ROW 18.0
#define TICK_LEN 5.0
#define MAX_TICKS 128
#define U_CLAMP 1e6 /* mapped positions are clamped to +-U_CLAMP plot widths before clipping */

/* tab10 colours; after them each round gets the next dash pattern */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
static const char *const dashes[] = {NULL, "6 3", "2 3", "8 3 2 3", "12 4"};
#define NPALETTE ((int)(sizeof palette / sizeof palette[0]))
#define NDASHES ((int)(sizeof dashes / sizeof dashes[0]))

typedef struct plot_series {
    char *name;
    double *x, *y; /* n each, owned */
    int n;
    bool step;
} plot_series;

struct mo_plot {
    char *title, *xlabel, *ylabel; /* owned, NULL for none */
    mo_axis_scale scale[2];        /* x, y */
    bool range_set[2];
    double range_lo[2], range_hi[2]; /* user ranges, in data units */
    plot_series *series;
    int nseries, cap;
};

/* ---- strings ---- */

static char *copy_str(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* growable text; any failed allocation sets failed and later appends do nothing */
typedef struct strbuf {
    char *s;
    size_t len, cap;
    bool failed;
} strbuf;

static bool sb_reserve(strbuf *b, size_t add)
{
    if (b->failed) return false;
    if (add > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + add + 1;
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

static void sb_putn(strbuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n)) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

/* printf for integers and strings only: doubles go through fmt_num */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        sb_putn(b, tmp, (size_t)n);
        return;
    }
    if (!sb_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* text content or attribute value: & < > " ' escaped, control characters XML
   1.0 forbids become spaces */
static void sb_escaped(strbuf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': sb_puts(b, "&amp;"); break;
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        case '\'': sb_puts(b, "&apos;"); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') c = ' ';
            sb_putn(b, (const char *)&c, 1);
        }
    }
}

/* a number formatted with a printf double conversion, the decimal point made
   "." whatever the locale, "-0.00" written "0.00" */
static void fmt_num(char *out, size_t size, const char *fmt, int prec, double v)
{
    snprintf(out, size, fmt, prec, v);
    for (char *c = out; *c; c++)
        if (*c == ',') *c = '.';
    if (out[0] == '-') {
        bool zero = true;
        for (const char *c = out + 1; *c && *c != 'e'; c++)
            if (*c >= '1' && *c <= '9') zero = false;
        if (zero) memmove(out, out + 1, strlen(out));
    }
}

/* a coordinate, %.2f */
static void sb_coord(strbuf *b, double v)
{
    char tmp[64];
    fmt_num(tmp, sizeof tmp, "%.*f", 2, v);
    sb_puts(b, tmp);
}

/* ` name="v"` with v a coordinate */
static void sb_attr(strbuf *b, const char *name, double v)
{
    sb_printf(b, " %s=\"", name);
    sb_coord(b, v);
    sb_puts(b, "\"");
}

/* %g-style label with a short exponent: 2e-05 -> 2e-5, 1e+06 -> 1e6 */
static void fmt_label_g(char *out, size_t size, int prec, double v)
{
    fmt_num(out, size, "%.*g", prec, v);
    char *e = strchr(out, 'e');
    if (!e) return;
    char *d = e + 1, *r = e + 1;
    if (*r == '+') r++;
    else if (*r == '-') *d++ = *r++;
    while (*r == '0' && r[1]) r++;
    memmove(d, r, strlen(r) + 1);
}

/* ---- axes ---- */

typedef struct tick {
    double u; /* position in axis units (log10 of the value on a log axis) */
    bool major;
    char label[32]; /* empty for minor ticks */
} tick;

/* a resolved axis: its range in axis units and its ticks */
typedef struct axis {
    mo_axis_scale scale;
    double ulo, uhi;
    tick ticks[MAX_TICKS];
    int nticks;
} axis;

static bool point_valid(double v, mo_axis_scale s) { return isfinite(v) && (s != MO_AXIS_LOG || v > 0); }

static double to_axis_units(double v, mo_axis_scale s) { return s == MO_AXIS_LOG ? log10(v) : v; }

static void add_tick(axis *a, double u, bool major, const char *label)
{
    if (a->nticks >= MAX_TICKS) return;
    tick *t = &a->ticks[a->nticks++];
    t->u = u;
    t->major = major;
    snprintf(t->label, sizeof t->label, "%s", label ? label : "");
}

/* how far c ticks are from the 5 to 8 wanted: 0 at 6, more below 5 than above 8 */
static double tick_count_penalty(double c)
{
    return c < 5 ? 5 - c + 1.5 : c > 8 ? c - 8 + 1 : 0.1 * fabs(c - 6);
}

/* The 1/2/5 x 10^k tick step for [lo, hi]. With may_extend the range may be
   widened to whole steps (*extend true), scored by its tick count plus the
   fraction of the widened range left empty; kept as it is, its ends off the
   ticks cost 0.15. The lowest score wins, a larger step on a tie. */
static double nice_step(double lo, double hi, bool may_extend, bool *extend)
{
    static const double mant[3] = {1, 2, 5};
    double half = 0.5 * hi - 0.5 * lo; /* span / 2, without overflow */
    double e = floor(log10(half / 3.0));
    double best = 0, best_score = INFINITY;
    *extend = false;
    for (double k = e - 1; k <= e + 1; k++)
        for (int m = 0; m < 3; m++) {
            double s = mant[m] * pow(10.0, k);
            if (!(s > 0) || !isfinite(s)) continue;
            /* kept */
            double c = floor(hi / s + 1e-9) - ceil(lo / s - 1e-9) + 1;
            double score = tick_count_penalty(c) + (may_extend ? 0.15 : 0);
            if (score <= best_score) {
                best_score = score;
                best = s;
                *extend = false;
            }
            if (!may_extend) continue;
            /* widened */
            double a = floor(lo / s + 1e-9), b = ceil(hi / s - 1e-9);
            double wide = 0.5 * b * s - 0.5 * a * s;
            score = tick_count_penalty(b - a + 1) + (wide > half ? 1 - half / wide : 0);
            if (score <= best_score) {
                best_score = score;
                best = s;
                *extend = true;
            }
        }
    return best;
}

static void linear_ticks(axis *a, bool may_extend)
{
    bool extend;
    double s = nice_step(a->ulo, a->uhi, may_extend, &extend);
    if (!(s > 0)) return;
    if (extend) {
        double lo = floor(a->ulo / s + 1e-9) * s, hi = ceil(a->uhi / s - 1e-9) * s;
        if (isfinite(lo) && isfinite(hi) && lo < hi) {
            a->ulo = lo;
            a->uhi = hi;
        }
    }
    double i0 = ceil(a->ulo / s - 1e-9), i1 = floor(a->uhi / s + 1e-9);
    double vmax = fmax(fabs(a->ulo), fabs(a->uhi));
    /* fixed decimals for everyday numbers, short %g otherwise */
    int decimals = s >= 1 ? 0 : (int)ceil(-log10(s) - 1e-9);
    bool fixed = s >= 1e-4 && vmax < 1e6;
    int prec = (int)fmin(15, fmax(1, ceil(log10(vmax) + 1e-9) - floor(log10(s) + 1e-9) + 1));
    for (double i = i0; i <= i1 && a->nticks < MAX_TICKS; i++) {
        double v = i * s;
        char label[32];
        if (fixed) fmt_num(label, sizeof label, "%.*f", decimals, v);
        else fmt_label_g(label, sizeof label, prec, v);
        add_tick(a, v, true, label);
    }
}

/* m x 10^k as "5e-6", or "5" for k = 0 */
static void log_label(char *out, size_t size, int m, double k)
{
    if (k == 0) snprintf(out, size, "%d", m);
    else snprintf(out, size, "%de%d", m, (int)k);
}

static void log_ticks(axis *a)
{
    double k0 = ceil(a->ulo - 1e-9), k1 = floor(a->uhi + 1e-9);
    double ndec = k1 - k0 + 1;
    if (ndec >= 2) {
        /* decades, every stride-th labelled so at most ~10 labels */
        double stride = ceil(ndec / 10);
        for (double k = k0; k <= k1 && a->nticks < MAX_TICKS; k++) {
            char label[32] = "";
            if (fmod(k - k0, stride) == 0) log_label(label, sizeof label, 1, k);
            add_tick(a, k, true, label);
        }
    }
    /* up to 8 decades, minor ticks at 2..9 x 10^k; under two decade ticks, 1, 2, 5 x 10^k labelled instead */
    if (a->uhi - a->ulo <= 8) {
        for (double k = floor(a->ulo); k <= ceil(a->uhi) && a->nticks < MAX_TICKS; k++)
            for (int m = ndec >= 2 ? 2 : 1; m <= 9; m++) {
                double u = k + log10((double)m);
                if (u < a->ulo - 1e-9 || u > a->uhi + 1e-9) continue;
                bool major = ndec < 2 && (m == 1 || m == 2 || m == 5);
                char label[32] = "";
                if (major) log_label(label, sizeof label, m, k);
                add_tick(a, u, major, label);
            }
    }
}

/* a range [lo, hi] in axis units too narrow for ticks: under a millionth of a
   decade, or of a billionth of its magnitude */
static bool degenerate(double lo, double hi, mo_axis_scale s)
{
    if (s == MO_AXIS_LOG) return !(hi - lo >= 1e-6);
    return !(hi - lo > 1e-9 * fmax(fabs(lo), fabs(hi)));
}

/* resolves axis d (0 x, 1 y) from the user range or the drawable points */
static void resolve_axis(const mo_plot *p, int d, axis *a)
{
    mo_axis_scale s = p->scale[d];
    a->scale = s;
    a->nticks = 0;
    if (p->range_set[d]) {
        a->ulo = to_axis_units(p->range_lo[d], s);
        a->uhi = to_axis_units(p->range_hi[d], s);
        if (!degenerate(a->ulo, a->uhi, s)) {
            if (s == MO_AXIS_LOG) log_ticks(a);
            else linear_ticks(a, false);
            return;
        }
        /* a range too narrow to tick: widened as for data */
    }
    /* data extent over points drawable on both axes */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < p->nseries && !p->range_set[d]; i++) {
        const plot_series *ps = &p->series[i];
        for (int j = 0; j < ps->n; j++) {
            if (!point_valid(ps->x[j], p->scale[0]) || !point_valid(ps->y[j], p->scale[1])) continue;
            double u = to_axis_units(d == 0 ? ps->x[j] : ps->y[j], s);
            lo = fmin(lo, u);
            hi = fmax(hi, u);
        }
    }
    if (p->range_set[d]) lo = a->ulo, hi = a->uhi;
    if (s == MO_AXIS_LOG) {
        if (lo > hi) lo = hi = 0; /* no data: 1 to 10 */
        a->ulo = floor(lo);
        a->uhi = ceil(hi);
        if (a->uhi <= a->ulo) a->uhi = a->ulo + 1;
        log_ticks(a);
    } else {
        if (lo > hi) lo = 0, hi = 1; /* no data */
        if (degenerate(lo, hi, s)) {
            double pad = lo != 0 ? 0.1 * fabs(lo) : 1;
            lo -= pad;
            hi += pad;
        }
        a->ulo = lo;
        a->uhi = hi;
        linear_ticks(a, true);
    }
}

/* axis units to pixels along [p0, p1], clamped far outside so clipping works
   on finite numbers */
static double map_u(const axis *a, double u, double p0, double p1)
{
    double t = (0.5 * u - 0.5 * a->ulo) / (0.5 * a->uhi - 0.5 * a->ulo);
    if (!(t > -U_CLAMP)) t = -U_CLAMP;
    if (t > U_CLAMP) t = U_CLAMP;
    return p0 + t * (p1 - p0);
}

static double map_x(const axis *a, double v) { return map_u(a, to_axis_units(v, a->scale), AREA_L, AREA_R); }
static double map_y(const axis *a, double v) { return map_u(a, to_axis_units(v, a->scale), AREA_B, AREA_T); }

/* ---- series paths ---- */

/* Liang-Barsky: clips segment (x0,y0)-(x1,y1) to the plot area in place;
   false when nothing remains */
static bool clip_segment(double *x0, double *y0, double *x1, double *y1)
{
    double dx = *x1 - *x0, dy = *y1 - *y0, t0 = 0, t1 = 1;
    double pk[4] = {-dx, dx, -dy, dy};
    double qk[4] = {*x0 - AREA_L, AREA_R - *x0, *y0 - AREA_T, AREA_B - *y0};
    for (int i = 0; i < 4; i++) {
        if (pk[i] == 0) {
            if (qk[i] < 0) return false;
            continue;
        }
        double r = qk[i] / pk[i];
        if (pk[i] < 0) {
            if (r > t1) return false;
            if (r > t0) t0 = r;
        } else {
            if (r < t0) return false;
            if (r < t1) t1 = r;
        }
    }
    double ax = *x0, ay = *y0;
    if (t1 < 1) {
        *x1 = ax + t1 * dx;
        *y1 = ay + t1 * dy;
    }
    if (t0 > 0) {
        *x0 = ax + t0 * dx;
        *y0 = ay + t0 * dy;
    }
    return true;
}

static bool inside_area(double x, double y) { return x >= AREA_L && x <= AREA_R && y >= AREA_T && y <= AREA_B; }

/* the pen of a path being written: where the last drawn edge ended */
typedef struct pen {
    bool down;
    double x, y;
    int nsub; /* subpaths started */
} pen;

static void pen_edge(strbuf *b, pen *pn, double x0, double y0, double x1, double y1)
{
    if (!clip_segment(&x0, &y0, &x1, &y1)) {
        pn->down = false;
        return;
    }
    if (!pn->down || x0 != pn->x || y0 != pn->y) {
        sb_puts(b, pn->nsub ? " M" : "M");
        sb_coord(b, x0);
        sb_puts(b, " ");
        sb_coord(b, y0);
        pn->nsub++;
    }
    sb_puts(b, " L");
    sb_coord(b, x1);
    sb_puts(b, " ");
    sb_coord(b, y1);
    pn->down = true;
    pn->x = x1;
    pn->y = y1;
}

/* the path data of one series: one subpath per run of drawable points (a lone
   point is a zero-length subpath, a dot with round caps); the number of
   subpaths is returned */
static int series_path(strbuf *b, const plot_series *s, const axis *ax, const axis *ay)
{
    pen pn = {0};
    int j = 0;
    while (j < s->n) {
        if (!point_valid(s->x[j], ax->scale) || !point_valid(s->y[j], ay->scale)) {
            j++;
            continue;
        }
        /* a run of drawable points from j */
        double px = map_x(ax, s->x[j]), py = map_y(ay, s->y[j]);
        int run = 1;
        pn.down = false;
        for (j++; j < s->n && point_valid(s->x[j], ax->scale) && point_valid(s->y[j], ay->scale); j++, run++) {
            double qx = map_x(ax, s->x[j]), qy = map_y(ay, s->y[j]);
            if (s->step) {
                pen_edge(b, &pn, px, py, qx, py);
                pen_edge(b, &pn, qx, py, qx, qy);
            } else {
                pen_edge(b, &pn, px, py, qx, qy);
            }
            px = qx;
            py = qy;
        }
        if (run == 1 && inside_area(px, py)) {
            sb_puts(b, pn.nsub ? " M" : "M");
            sb_coord(b, px);
            sb_puts(b, " ");
            sb_coord(b, py);
            sb_puts(b, " h0");
            pn.nsub++;
        }
    }
    return pn.nsub;
}

static void sb_series_style(strbuf *b, int i)
{
    sb_printf(b, " stroke=\"%s\"", palette[i % NPALETTE]);
    const char *dash = dashes[(i / NPALETTE) % NDASHES];
    if (dash) sb_printf(b, " stroke-dasharray=\"%s\"", dash);
}

/* ---- the document ---- */

static void svg_text(strbuf *b, const char *cls, double x, double y, const char *extra, const char *text)
{
    sb_printf(b, "<text class=\"%s\"", cls);
    sb_attr(b, "x", x);
    sb_attr(b, "y", y);
    if (extra) sb_puts(b, extra);
    sb_puts(b, ">");
    sb_escaped(b, text);
    sb_puts(b, "</text>\n");
}

static void build_svg(const mo_plot *p, strbuf *b)
{
    axis ax, ay;
    resolve_axis(p, 0, &ax);
    resolve_axis(p, 1, &ay);

    sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_puts(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"800\" height=\"500\" "
               "viewBox=\"0 0 800 500\" font-family=\"sans-serif\" font-size=\"12\">\n");
    sb_puts(b, "<rect width=\"800\" height=\"500\" fill=\"white\"/>\n");
    if (p->title)
        svg_text(b, "title", 0.5 * (AREA_L + AREA_R), 30, " text-anchor=\"middle\" font-size=\"16\"", p->title);

    /* grid at major ticks, tick marks (minor ones shorter) */
    strbuf grid = {0}, marks = {0};
    for (int i = 0; i < ax.nticks; i++) {
        double x = map_u(&ax, ax.ticks[i].u, AREA_L, AREA_R), len = ax.ticks[i].major ? TICK_LEN : 0.6 * TICK_LEN;
        if (ax.ticks[i].major) {
            sb_puts(&grid, "M");
            sb_coord(&grid, x);
            sb_puts(&grid, " ");
            sb_coord(&grid, AREA_B);
            sb_puts(&grid, " V");
            sb_coord(&grid, AREA_T);
            sb_puts(&grid, " ");
        }
        sb_puts(&marks, "M");
        sb_coord(&marks, x);
        sb_puts(&marks, " ");
        sb_coord(&marks, AREA_B);
        sb_puts(&marks, " v");
        sb_coord(&marks, len);
        sb_puts(&marks, " ");
    }
    for (int i = 0; i < ay.nticks; i++) {
        double y = map_u(&ay, ay.ticks[i].u, AREA_B, AREA_T), len = ay.ticks[i].major ? TICK_LEN : 0.6 * TICK_LEN;
        if (ay.ticks[i].major) {
            sb_puts(&grid, "M");
            sb_coord(&grid, AREA_L);
            sb_puts(&grid, " ");
            sb_coord(&grid, y);
            sb_puts(&grid, " H");
            sb_coord(&grid, AREA_R);
            sb_puts(&grid, " ");
        }
        sb_puts(&marks, "M");
        sb_coord(&marks, AREA_L);
        sb_puts(&marks, " ");
        sb_coord(&marks, y);
        sb_puts(&marks, " h-");
        sb_coord(&marks, len);
        sb_puts(&marks, " ");
    }
    if (grid.failed || marks.failed) b->failed = true;
    if (grid.len) {
        grid.s[grid.len - 1] = '\0'; /* trailing space */
        sb_puts(b, "<path class=\"grid\" fill=\"none\" stroke=\"#e5e5e5\" stroke-width=\"1\" d=\"");
        sb_puts(b, grid.s);
        sb_puts(b, "\"/>\n");
    }
    sb_puts(b, "<rect class=\"frame\"");
    sb_attr(b, "x", AREA_L);
    sb_attr(b, "y", AREA_T);
    sb_attr(b, "width", AREA_R - AREA_L);
    sb_attr(b, "height", AREA_B - AREA_T);
    sb_puts(b, " fill=\"none\" stroke=\"black\"/>\n");
    if (marks.len) {
        marks.s[marks.len - 1] = '\0';
        sb_puts(b, "<path class=\"ticks\" fill=\"none\" stroke=\"black\" stroke-width=\"1\" d=\"");
        sb_puts(b, marks.s);
        sb_puts(b, "\"/>\n");
    }
    free(grid.s);
    free(marks.s);

    /* tick labels */
    sb_puts(b, "<g class=\"xticks\" text-anchor=\"middle\">\n");
    for (int i = 0; i < ax.nticks; i++)
        if (ax.ticks[i].label[0])
            svg_text(b, "tick", map_u(&ax, ax.ticks[i].u, AREA_L, AREA_R), AREA_B + TICK_LEN + 14, NULL,
                     ax.ticks[i].label);
    sb_puts(b, "</g>\n<g class=\"yticks\" text-anchor=\"end\">\n");
    for (int i = 0; i < ay.nticks; i++)
        if (ay.ticks[i].label[0])
            svg_text(b, "tick", AREA_L - TICK_LEN - 3, map_u(&ay, ay.ticks[i].u, AREA_B, AREA_T) + 4, NULL,
                     ay.ticks[i].label);
    sb_puts(b, "</g>\n");

    /* axis labels */
    if (p->xlabel)
        svg_text(b, "xlabel", 0.5 * (AREA_L + AREA_R), AREA_B + 44, " text-anchor=\"middle\" font-size=\"13\"",
                 p->xlabel);
    if (p->ylabel) {
        double cy = 0.5 * (AREA_T + AREA_B);
        strbuf tr = {0};
        sb_puts(&tr, " text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 ");
        sb_coord(&tr, 20);
        sb_puts(&tr, " ");
        sb_coord(&tr, cy);
        sb_puts(&tr, ")\"");
        if (tr.failed) b->failed = true;
        else svg_text(b, "ylabel", 20, cy, tr.s, p->ylabel);
        free(tr.s);
    }

    /* series */
    int drawn = 0;
    sb_puts(b, "<g class=\"series\" fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\" "
               "stroke-linecap=\"round\">\n");
    for (int i = 0; i < p->nseries; i++) {
        strbuf d = {0};
        int nsub = series_path(&d, &p->series[i], &ax, &ay);
        if (d.failed) b->failed = true;
        if (nsub > 0 && !d.failed) {
            sb_printf(b, "<path class=\"line\" data-series=\"%d\"", i);
            sb_series_style(b, i);
            sb_puts(b, " d=\"");
            sb_puts(b, d.s);
            sb_puts(b, "\"/>\n");
        }
        free(d.s);
        /* drawable points count even when clipped away */
        const plot_series *s = &p->series[i];
        for (int j = 0; j < s->n && !drawn; j++)
            drawn = point_valid(s->x[j], ax.scale) && point_valid(s->y[j], ay.scale);
    }
    sb_puts(b, "</g>\n");
    if (!drawn)
        svg_text(b, "nodata", 0.5 * (AREA_L + AREA_R), 0.5 * (AREA_T + AREA_B),
                 " text-anchor=\"middle\" font-size=\"14\" fill=\"#888888\"", "no data");

    /* legend */
    sb_puts(b, "<g class=\"legend\">\n");
    for (int i = 0; i < p->nseries; i++) {
        double y = AREA_T + 10 + LEGEND_ROW * i;
        sb_puts(b, "<g class=\"legend-entry\"><path fill=\"none\" stroke-width=\"2\"");
        sb_series_style(b, i);
        sb_puts(b, " d=\"M");
        sb_coord(b, LEGEND_X);
        sb_puts(b, " ");
        sb_coord(b, y);
        sb_puts(b, " h24\"/><text");
        sb_attr(b, "x", LEGEND_X + 30);
        sb_attr(b, "y", y + 4);
        sb_puts(b, ">");
        sb_escaped(b, p->series[i].name);
        sb_puts(b, "</text></g>\n");
    }
    sb_puts(b, "</g>\n</svg>\n");
}

/* ---- public API ---- */

mo_plot *mo_plot_create(const char *title, const char *xlabel, const char *ylabel, mo_axis_scale xs,
                        mo_axis_scale ys)
{
    if ((xs != MO_AXIS_LINEAR && xs != MO_AXIS_LOG) || (ys != MO_AXIS_LINEAR && ys != MO_AXIS_LOG)) return NULL;
    mo_plot *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->scale[0] = xs;
    p->scale[1] = ys;
    p->title = copy_str(title);
    p->xlabel = copy_str(xlabel);
    p->ylabel = copy_str(ylabel);
    if ((title && !p->title) || (xlabel && !p->xlabel) || (ylabel && !p->ylabel)) {
        mo_plot_destroy(p);
        return NULL;
    }
    return p;
}

void mo_plot_destroy(mo_plot *p)
{
    if (!p) return;
    for (int i = 0; i < p->nseries; i++) {
        free(p->series[i].name);
        free(p->series[i].x);
        free(p->series[i].y);
    }
    free(p->series);
    free(p->title);
    free(p->xlabel);
    free(p->ylabel);
    free(p);
}

int mo_plot_add_series(mo_plot *p, const char *name, const double *x, const double *y, int n, bool step)
{
    if (!p || n < 0 || (n > 0 && (!x || !y)) || p->nseries == INT32_MAX) return -1;
    if ((size_t)n > SIZE_MAX / sizeof(double)) return -1;
    if (p->nseries == p->cap) {
        int cap = p->cap ? (p->cap < INT32_MAX / 2 ? 2 * p->cap : INT32_MAX) : 8;
        plot_series *s = realloc(p->series, (size_t)cap * sizeof *s);
        if (!s) return -1;
        p->series = s;
        p->cap = cap;
    }
    plot_series s = {0};
    char def[32];
    snprintf(def, sizeof def, "series %d", p->nseries);
    s.name = copy_str(name ? name : def);
    if (n > 0) {
        s.x = malloc((size_t)n * sizeof(double));
        s.y = malloc((size_t)n * sizeof(double));
    }
    if (!s.name || (n > 0 && (!s.x || !s.y))) {
        free(s.name);
        free(s.x);
        free(s.y);
        return -1;
    }
    if (n > 0) {
        memcpy(s.x, x, (size_t)n * sizeof(double));
        memcpy(s.y, y, (size_t)n * sizeof(double));
    }
    s.n = n;
    s.step = step;
    p->series[p->nseries] = s;
    return p->nseries++;
}

static void set_range(mo_plot *p, int d, double lo, double hi)
{
    if (!p || !isfinite(lo) || !isfinite(hi) || !(lo < hi) || !isfinite(hi - lo)) return;
    if (p->scale[d] == MO_AXIS_LOG && !(lo > 0)) return;
    p->range_set[d] = true;
    p->range_lo[d] = lo;
    p->range_hi[d] = hi;
}

void mo_plot_set_xrange(mo_plot *p, double lo, double hi) { set_range(p, 0, lo, hi); }
void mo_plot_set_yrange(mo_plot *p, double lo, double hi) { set_range(p, 1, lo, hi); }

char *mo_plot_svg_string(const mo_plot *p)
{
    if (!p) return NULL;
    strbuf b = {0};
    build_svg(p, &b);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

int mo_plot_write_svg(const mo_plot *p, const char *path)
{
    if (!p || !path) {
        errno = EINVAL;
        return -1;
    }
    char *s = mo_plot_svg_string(p);
    if (!s) {
        errno = ENOMEM;
        return -1;
    }
    size_t n = strlen(s);
    FILE *f = fopen(path, "wb");
    if (!f) {
        int e = errno;
        free(s);
        errno = e;
        return -1;
    }
    int rc = 0, e = 0;
    if (fwrite(s, 1, n, f) != n) {
        rc = -1;
        e = errno;
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    free(s);
    if (rc) errno = e ? e : EIO;
    return rc;
}
