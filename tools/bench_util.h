/* bench_util.h: small helpers shared by the moreau-bench modes (moreau_bench.c,
 * bench_table2.c, bench_cantilever.c, bench_scene_run.c, bench_cheapest.c). */
#ifndef MO_BENCH_UTIL_H
#define MO_BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <moreau/scene.h>

/* monotonic wall time, s */
static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort comparison of doubles, ascending */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of v[0..n) (v sorted in place); 0 for n <= 0 */
static inline double bench_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* a progress bar on stderr ("[####   ] done/total what"), a newline once done == total; nothing unless show */
static inline void bench_progress(bool show, int done, int total, const char *what)
{
    if (!show) return;
    int width = 30, fill = total > 0 ? done * width / total : width;
    fprintf(stderr, "\r[%.*s%*s] %d/%d %-50.50s", fill, "##############################", width - fill, "", done,
            total, what);
    if (done == total) fprintf(stderr, "\n");
    fflush(stderr);
}

/* creates directory d unless it exists; -1 with a sentence on stderr when it cannot */
static inline int bench_ensure_dir(const char *d)
{
    if (mkdir(d, 0777) == 0 || errno == EEXIST) return 0;
    fprintf(stderr, "moreau-bench: cannot create directory '%s': %s\n", d, strerror(errno));
    return -1;
}

/* opens path for writing; NULL with a sentence on stderr when it cannot */
static inline FILE *bench_open_write(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "moreau-bench: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* the options of a mode that reads "--flag VALUE" pairs: --progress and --quiet set *show (1 returned);
 * any other flag takes the next argument as its value in *v (*i moved; 2 returned), or -1 with the
 * sentence on stderr when there is none */
static inline int bench_option(int argc, char **argv, int *i, bool *show, const char **v)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--progress") || !strcmp(a, "--quiet")) {
        *show = a[2] == 'p';
        return 1;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "moreau-bench: %s needs a value\n", a);
        return -1;
    }
    *v = argv[++*i];
    return 2;
}

/* one scenario step of sf (its callbacks, then the world's step), timed: the wall time in ms and
 * the world's statistics in *st; -1 with "step <index>: <sentence>" in err when the step failed */
static inline double bench_scene_step(mo_scene_file *sf, int index, mo_step_stats *st, char *err, size_t err_size)
{
    double t0 = bench_now_s();
    if (mo_scene_file_step(sf) != MO_OK) {
        snprintf(err, err_size, "step %d: %s", index, mo_scene_file_last_error(sf));
        return -1.0;
    }
    double ms = 1e3 * (bench_now_s() - t0);
    *st = mo_world_last_stats(mo_scene_file_world(sf));
    return ms;
}

#endif
