/* bench_gpu.h: `moreau-bench gpu` (issue 17): the solvers over the backend
 * operations on the CPU (one thread, all threads) and on the CUDA device, per
 * step and per iteration, against the card's memory-bandwidth floor. */
#ifndef MO_BENCH_GPU_H
#define MO_BENCH_GPU_H

#include <stdio.h>

/* argv after the mode name; returns the exit status (0, 1 run failure, 2 usage) */
int bench_gpu(int argc, char **argv);
/* the mode's usage lines */
void bench_gpu_usage(FILE *f);

#endif
