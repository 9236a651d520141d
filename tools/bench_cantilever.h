/* bench_cantilever.h: `moreau-bench cantilever`, the FEM cantilever against
 * Euler-Bernoulli under mesh refinement (issue 7). */
#ifndef MO_BENCH_CANTILEVER_H
#define MO_BENCH_CANTILEVER_H

#include <stdio.h>

/* argv after the mode name; returns the exit status (0, 1 run failure, 2 usage) */
int bench_cantilever(int argc, char **argv);
/* the mode's usage lines */
void bench_cantilever_usage(FILE *f);

#endif
