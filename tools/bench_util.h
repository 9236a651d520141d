/* bench_util.h: small helpers shared by the moreau-bench modes (moreau_bench.c,
 * bench_table2.c, bench_cantilever.c). */
#ifndef MO_BENCH_UTIL_H
#define MO_BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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
