/* bench_peers.h: `moreau-bench peers` (issue 21): Moreau and the outside
 * engines' benchmark programs (MuJoCo, Bullet, ODE in ../shared/tools/peers)
 * on the five shared scenes in one sitting, interleaved and repeated, one
 * process per run; a side-by-side table, CSV and a bar chart (SVG). */
#ifndef MO_BENCH_PEERS_H
#define MO_BENCH_PEERS_H

#include <stdio.h>

/* argv after the mode name; self is moreau-bench's argv[0] (moreau-run is looked for beside it); returns
 * the exit status (0, 1 run failure, 2 usage) */
int bench_peers(int argc, char **argv, const char *self);
/* the mode's usage lines */
void bench_peers_usage(FILE *f);

#endif
