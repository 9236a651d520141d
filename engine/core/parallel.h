/* parallel.h: per-element loops run in parallel under OpenMP when it is built in.
 * Only loops whose iterations write disjoint outputs use it, so results are
 * bit-identical for any thread count; reductions stay serial. */
#ifndef MO_PARALLEL_H
#define MO_PARALLEL_H
#ifdef _OPENMP
#  include <omp.h>
#  define MO_STR_(x) #x
#  define MO_PRAGMA_(x) _Pragma(MO_STR_(x))
/* use before a for loop: nt threads (0 = the OpenMP default) */
#  define MO_PARALLEL_FOR(nt) MO_PRAGMA_(omp parallel for schedule(static) num_threads((nt) > 0 ? (nt) : omp_get_max_threads()))
#else
#  define MO_PARALLEL_FOR(nt)
#endif
#endif
