/* bench_sleep.h: `moreau-bench sleep` (issue 21, item 2): one scene stepped with sleeping off and on,
 * ms/step once it has settled and how many bodies sleep. */
#ifndef MO_BENCH_SLEEP_H
#define MO_BENCH_SLEEP_H

#include <stdio.h>

/* argv after the mode name; returns the exit status (0, 1 run failure, 2 usage) */
int bench_sleep(int argc, char **argv);
/* the mode's usage lines */
void bench_sleep_usage(FILE *f);

#endif
