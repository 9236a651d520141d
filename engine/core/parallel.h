/* parallel.h: per-element loops run in parallel under OpenMP when it is built in.
 * Only loops whose iterations write disjoint outputs use it, so results are
 * bit-identical for any thread count; reductions stay serial.
 *
 *   MO_PARALLEL_LOOP(nt, work, for (int i = 0; i < n; i++) { ... });
 *
 * runs the for statement (the last argument) on nt threads (0 = the OpenMP
 * default) when work (about the element count) is at least MO_PARALLEL_MIN_WORK
 * and more than one thread is asked for, and as plain serial code otherwise:
 * an OpenMP region costs about 1000-2000 instructions even on one thread
 * (libgomp makes a team each time), which was 40 % of a double pendulum's step
 * (callgrind, 11 regions a step over empty loops). */
#ifndef MO_PARALLEL_H
#define MO_PARALLEL_H

#define MO_PARALLEL_MIN_WORK 32

#ifdef _OPENMP
#  include <omp.h>
#  define MO_STR_(x) #x
#  define MO_PRAGMA_(x) _Pragma(MO_STR_(x))
/* the threads a loop of `work` elements gets: 1 means serial */
static inline int mo_parallel_threads(int nt, long long work)
{
    if (work < MO_PARALLEL_MIN_WORK) return 1;
    return nt > 0 ? nt : omp_get_max_threads();
}
#  define MO_PARALLEL_LOOP(nt, work, ...)                                                            \
    do {                                                                                          \
        const int mo_par_nt_ = mo_parallel_threads((nt), (long long)(work));                       \
        if (mo_par_nt_ > 1) {                                                                     \
            MO_PRAGMA_(omp parallel for schedule(static) num_threads(mo_par_nt_))                 \
            __VA_ARGS__                                                                           \
        } else {                                                                                  \
            __VA_ARGS__                                                                           \
        }                                                                                         \
    } while (0)
#else
#  define MO_PARALLEL_LOOP(nt, work, ...)                                                            \
    do {                                                                                          \
        (void)(nt);                                                                               \
        __VA_ARGS__                                                                               \
    } while (0)
#endif
#endif
