/* fclib_internal.h: what the FCLIB readers and writers share (fclib_io.c:
 * format detection, HDF5, the global reduction, the error measure;
 * fclib_dat.c: the Siconos text form). */
#ifndef MO_FCLIB_INTERNAL_H
#define MO_FCLIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "moreau/fclib.h"

/* a sentence into a caller's buffer (err may be NULL or err_size 0) */
void mo_fc_set_err(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* rows x cols CSR from n triplets (ri, ci in range, checked by the caller):
 * columns sorted within each row, duplicates summed in the order given,
 * exact zeros skipped when drop_zeros (explicit zeros are kept otherwise).
 * 0, or -1 when out of memory (a is then zeroed). */
int mo_csr_from_triplets(mo_csr *a, int rows, int cols, size_t n, const int *ri, const int *ci, const double *v,
                         bool drop_zeros);
void mo_csr_free(mo_csr *a);

/* a problem's checks shared by the readers and the writers: nc >= 1, mu >= 0,
 * every value finite; MO_FC_CHECK_LOCAL: W is 3nc x 3nc CSR with sorted,
 * distinct, in-range columns, q and mu present; MO_FC_CHECK_GLOBAL (when
 * ndof > 0): M ndof x ndof, H ndof x 3nc, f, w, mu likewise. what starts the
 * sentence ("mo_fc_read: 'x.dat'"). */
enum { MO_FC_CHECK_LOCAL = 1, MO_FC_CHECK_GLOBAL = 2 };
mo_status mo_fc_check(const mo_fc_problem *p, int which, const char *what, char *err, size_t err_size);

/* W = H^T M^-1 H and q = H^T M^-1 f + w from p's global arrays (M block
 * diagonal: blocks are the connected components of its pattern, inverted
 * densely, at most MO_FC_MAX_MASS_BLOCK dofs each) */
#define MO_FC_MAX_MASS_BLOCK 64
mo_status mo_fc_reduce_global(mo_fc_problem *p, const char *what, char *err, size_t err_size);

/* an HDF5 dataset may declare at most as many bytes as it stores in the file, or,
 * when it goes through filters (deflate...), this many times as many: deflate's
 * largest ratio is about 1032:1, so an honest compressed file still reads, and a
 * declared extent without stored data (the 3.9 GB of issue 18) is refused before
 * anything is allocated for it */
#define MO_FC_MAX_FILTER_RATIO 1032.0
#define MO_FC_MAX_FILTER_RATIO_TEXT "1032"

/* the .dat reader on a file already in memory (buf[len] == '\0') */
mo_status mo_fc_read_dat(const char *path, const char *buf, size_t len, mo_fc_problem *out, char *err,
                         size_t err_size);

/* res as one stage of solver k (its iterations, error and seconds already set) */
static inline void mo_fc_result_one_stage(mo_fc_result *res, mo_solver_kind k)
{
    res->stage_count = 1;
    res->stage_kind[0] = k;
    res->stage_iterations[0] = res->iterations;
    res->stage_error[0] = res->error;
    res->stage_seconds[0] = res->seconds;
}

/* the semismooth Newton method of mo_fc_solve (fclib_newton.c), which is this
 * with stall_window = 0. With stall_window > 0 it also stops, keeping its best
 * iterate, when a window of stall_window Newton iterations (counted from its
 * first) ends with a best Siconos error above stall_factor times the best at
 * the window's start (mo_fc_solve_auto's Newton stage). */
mo_status mo_fc_newton_run(const mo_fc_problem *fc, const mo_solver_settings *s, int stall_window,
                           double stall_factor, double *r, double *u, mo_fc_result *res, double *err_history,
                           double *ccp_history, char *err, size_t err_size);

#endif
