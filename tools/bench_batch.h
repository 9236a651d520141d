/* bench_batch.h: `moreau-bench batch` (issue 20, item 4): world-steps per
 * second of a batch of N copies of a scene (moreau/batch.h) against N, on one
 * thread and on all threads, beside one world stepped alone. */
#ifndef MO_BENCH_BATCH_H
#define MO_BENCH_BATCH_H

#include <stdio.h>

/* argv after the mode name; returns the exit status (0, 1 run failure, 2 usage) */
int bench_batch(int argc, char **argv);
/* the mode's usage lines */
void bench_batch_usage(FILE *f);

#endif
