/* bench_table2.h: `moreau-bench table2`, the Newton paper's Table 2 benchmark
 * (issue 7): the paper's scenes with the non-smooth Newton solver and with the
 * relaxation / gradient solvers, next to the paper's figures. */
#ifndef MO_BENCH_TABLE2_H
#define MO_BENCH_TABLE2_H

#include <stdio.h>

/* argv after the mode name; returns the exit status (0, 1 run failure, 2 usage) */
int bench_table2(int argc, char **argv);
/* the mode's usage lines */
void bench_table2_usage(FILE *f);

#endif
