/* sweep_plan.h: the plan of a parameter sweep (moreau-sweep): the grid given
 * on the command line, the runs it makes (every point of the grid times every
 * seed), the CSV row of a finished run and the journal that makes a sweep
 * resumable. No MPI here: tools/moreau_sweep.c spreads the runs over ranks.
 *
 * A grid is "NAME=VALUES,NAME=VALUES,..." where VALUES is either a range
 * "A:B:N" (N evenly spaced numbers from A to B, both included) or a list
 * "V,V,..." (numbers or words); a comma-separated item without '=' is one
 * more value of the name before it: "friction=0.2:0.8:4,mass=1,2" is 4 x 2
 * points. Runs are numbered point * seeds + seed; points count the last name
 * fastest. */
#ifndef MO_SWEEP_PLAN_H
#define MO_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_PARAMS 16   /* names of one grid */
#define SWEEP_MAX_VALUES 4096 /* values of one name */
#define SWEEP_MAX_RUNS 1000000
#define SWEEP_NAME_LEN 64
#define SWEEP_VALUE_LEN 48

typedef struct sweep_param {
    char name[SWEEP_NAME_LEN];
    int nvalues;
    char (*values)[SWEEP_VALUE_LEN]; /* nvalues strings, as passed to the scene and written to the CSV */
    bool setting;                    /* an engine setting (mo_setting_find), else a scene param() */
} sweep_param;

typedef struct sweep_plan {
    int nparams;
    sweep_param params[SWEEP_MAX_PARAMS];
    int seeds;   /* seeds 0 .. seeds-1 for every point, >= 1 */
    int npoints; /* product of the names' value counts */
    int nruns;   /* npoints * seeds */
} sweep_plan;

/* Parses grid (may be NULL or "": one point without parameters) with seeds >= 1 into pl. 0, or -1 with a
 * sentence in err ("--grid 'x': ..."); pl is freed on failure. */
int sweep_plan_parse(sweep_plan *pl, const char *grid, int seeds, char *err, size_t err_size);
void sweep_plan_free(sweep_plan *pl);
/* the point and seed of run r, and the value index of each name at that point (idx may be NULL) */
void sweep_plan_run(const sweep_plan *pl, int r, int *point, int *seed, int *idx);

/* what one run measured (its CSV row) */
typedef struct sweep_result {
    int run, point, seed;
    const char *status;           /* "ok", "error" (did not load or a step failed) */
    int checks, checks_held;      /* the scene's checks at the end, and how many held */
    char failed[512];             /* names of the checks that failed, ';'-separated */
    char details[1024];           /* every check as name=detail, ';'-separated */
    char error[512];              /* the sentence of an error */
    uint64_t steps;
    double sim_time, max_penetration, max_joint_error, mean_iterations, max_residual;
    int max_contacts;
    uint64_t hash;                /* mo_world_state_hash at the end */
    double ms_per_step, wall_s;   /* median step wall time, whole run's wall time (load + steps + checks) */
    int rank;                     /* the rank that ran it */
} sweep_result;

/* the CSV header line (with '\n'): run, point, seed, one column per name, the measured columns; the columns
 * that depend on the machine (ms_per_step, wall_s, rank) come last */
void sweep_csv_header(const sweep_plan *pl, char *out, size_t n);
/* number of columns that do not depend on the machine (a resumed sweep's rows equal a fresh one's there) */
int sweep_csv_stable_columns(const sweep_plan *pl);
/* one CSV line (with '\n') for r; fields with commas, quotes or line breaks are quoted. Returns the length, or
 * -1 when n is too small */
int sweep_csv_row(const sweep_plan *pl, const sweep_result *r, char *out, size_t n);

/* splits one CSV line (quoted fields as sweep_csv_row writes them) into at most cap fields, each a malloc'd
 * string the caller frees; returns the count */
int sweep_csv_split(const char *line, char **out, int cap);

/* the cheapest point whose claims held for every seed: its index and its runs' mean ms_per_step (-1 when no
 * point held on all its seeds, or a point's runs are not all in rows). rows as the journal keeps them */
int sweep_cheapest(const sweep_plan *pl, char **rows, int nrows, double *ms);

/* ---- the journal: finished rows, one line each, appended as runs end ---- */

/* Reads DIR/journal.csv if it exists: marks done[run] for every complete row (a last line without '\n' is a
 * row a crash cut short: ignored, and cut from the file), and keeps the rows in *rows (each with its '\n',
 * in file order; *rows NULL and *nrows 0 when none). A journal whose header is not header is refused: -1
 * with a sentence naming the file. 0 on success (a missing file is an empty journal). */
int sweep_journal_read(const char *dir, const char *header, const sweep_plan *pl, bool *done, char ***rows,
                       int *nrows, char *err, size_t err_size);
/* appends one row and flushes it to the disk (fsync); writes the header first when the file is new. 0 or -1 */
int sweep_journal_append(const char *dir, const char *header, const char *row, char *err, size_t err_size);

/* DIR/sweep.txt holds what defines the sweep (scene, grid, seeds, length, settings): written when missing;
 * when it exists and differs from text, the folder holds another sweep's runs: -1 with a sentence */
int sweep_signature_check(const char *dir, const char *text, char *err, size_t err_size);

/* writes DIR/results.csv: header + the rows in run order (rows as the journal keeps them, the first row of a
 * run wins). 0 or -1 with a sentence */
int sweep_write_results(const char *dir, const char *header, char **rows, int nrows, char *err, size_t err_size);

#endif
