/* bench_util.h: small helpers shared by the moreau-bench modes (moreau_bench.c,
 * bench_table2.c, bench_cantilever.c). */
#ifndef MO_BENCH_UTIL_H
#define MO_BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

#endif
