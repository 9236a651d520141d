/* svgplot.h: a small dependency-free SVG line plotter for the benchmark tools
 * (solver convergence curves, Dolan-Moré performance profiles). A plot holds
 * copies of its series; writing it gives a self-contained 800x500 SVG with a
 * title, axis labels, linear or log axes with ticks, a legend, one colour
 * (and after ten series, one dash pattern) per series. The output is a pure
 * function of the input: the same plot gives byte-identical SVG text, numbers
 * printed with "." whatever the locale.
 *
 * Points whose coordinates are not finite, or not > 0 on a log axis, are
 * skipped: the line breaks there and starts a new path segment (an "M" in the
 * path data). Lines are clipped to the plot area. */
#ifndef MO_SVGPLOT_H
#define MO_SVGPLOT_H

#include <stdbool.h>

typedef struct mo_plot mo_plot;

typedef enum mo_axis_scale { MO_AXIS_LINEAR, MO_AXIS_LOG } mo_axis_scale;

/* A new empty plot. title, xlabel, ylabel are copied; each may be NULL (no
 * text). Returns NULL when out of memory or for an unknown scale. */
mo_plot *mo_plot_create(const char *title, const char *xlabel, const char *ylabel, mo_axis_scale xs,
                        mo_axis_scale ys);

/* Frees the plot and all it holds; NULL is allowed. */
void mo_plot_destroy(mo_plot *p);

/* Adds a series of n points (x[i], y[i]), drawn as a polyline, or with
 * step = true as a staircase: from each point horizontally to the next
 * point's x, then vertically to its y (a right-continuous step function, as
 * Dolan-Moré performance profiles need). name (NULL: "series K", K the index)
 * and the data are copied. n = 0 is allowed (x, y may then be NULL; the series
 * appears in the legend only). Returns the series index (0, 1, ...) or -1 for
 * p NULL, n < 0, x or y NULL with n > 0, or out of memory. */
int mo_plot_add_series(mo_plot *p, const char *name, const double *x, const double *y, int n, bool step);

/* Fixes the x or y range shown (default: from the data, widened to whole
 * ticks on a linear axis and to whole decades on a log axis). Ignored unless
 * lo < hi are finite, hi - lo is finite, and lo > 0 on a log axis; a range
 * too narrow to tick (under 1e-9 of its magnitude, or 1e-6 of a decade) is
 * widened as a data range would be. */
void mo_plot_set_xrange(mo_plot *p, double lo, double hi);
void mo_plot_set_yrange(mo_plot *p, double lo, double hi);

/* Writes the SVG to path (created or truncated). Returns 0, or -1 with errno
 * set: that of the failed I/O call, EINVAL for p or path NULL, ENOMEM. */
int mo_plot_write_svg(const mo_plot *p, const char *path);

/* The same SVG text as a NUL-terminated malloc'd string the caller frees;
 * NULL for p NULL or when out of memory. */
char *mo_plot_svg_string(const mo_plot *p);

#endif
