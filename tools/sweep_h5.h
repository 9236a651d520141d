/* sweep_h5.h: moreau-sweep's results as HDF5 (DIR/results.h5), beside results.csv */
#ifndef MO_SWEEP_H5_H
#define MO_SWEEP_H5_H

#include <stddef.h>
#include "sweep_plan.h"

/* Writes DIR/results.h5: group /runs with one dataset per CSV column (rows in run order, as rows holds them
 * after sweep_write_results): float64 where every value of the column is a decimal number, else
 * variable-length strings; attributes scene, grid and seeds on /runs. Returns 0; -1 with a sentence in err
 * when the file cannot be written, or -1 with err "" when Moreau was built without HDF5 (nothing written). */
int sweep_write_h5(const char *dir, const sweep_plan *pl, const char *scene, const char *grid, const char *header,
                   char **rows, int nrows, char *err, size_t err_size);

#endif
