/* fclib.h: frictional contact problems as data (the FCLIB formulation), read
 * from and written to files, solved by any Moreau solver, scored with the
 * Siconos error measure.
 *
 * Local problem (3D, nc contacts, n = 3 nc unknowns ordered normal, tangent 1,
 * tangent 2 per contact):
 *
 *     u = W r + q,  r_i in K_mu_i,  u_i + [mu_i |u_T,i|, 0, 0] in K*_mu_i,  orthogonal to r_i
 *
 * Global problem: M v = H r + f, u = H^T v + w; its local reduction is
 * W = H^T M^-1 H, q = H^T M^-1 f + w (M block diagonal: blocks found from the
 * sparsity pattern and inverted densely).
 *
 * Files: FCLIB HDF5 (libfclib layout, local and global) and Siconos's text
 * ".dat" format (FrictionContactProblem), told apart by content, not name:
 * the HDF5 signature at offset 0, else text. HDF5 needs the build option
 * -Dfclib (libhdf5); without it HDF5 reading and writing return
 * MO_ERR_UNSUPPORTED and the .dat form still works.
 *
 * These calls need no world (except mo_world_contact_problem): errors are one
 * sentence written into the caller's err buffer (err may be NULL, then
 * err_size is ignored). */
#ifndef MOREAU_FCLIB_H
#define MOREAU_FCLIB_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* compressed sparse rows; column indices sorted within a row, no duplicates. The
 * arrays are malloc'ed: mo_fc_free frees those of a problem. */
typedef struct mo_csr {
    int rows, cols, nnz; /* dimensions and stored entries */
    int *ptr;      /* rows + 1 */
    int *col;      /* nnz */
    double *val;   /* nnz */
} mo_csr;

/* A frictional contact problem (the FCLIB local form, and the global form when
 * there is one). Every array is malloc'ed and owned by the problem: mo_fc_free
 * frees them all (so a problem filled in by hand must use malloc'ed arrays). */
typedef struct mo_fc_problem {
    int nc;                /* contacts */
    mo_csr W;              /* 3nc x 3nc (as given: may be slightly non-symmetric) */
    double *q;             /* 3nc */
    double *mu;            /* nc */
    /* global form, kept when the problem came as one (ndof == 0 otherwise) */
    int ndof;              /* unknowns v of the global form; 0 when there is none */
    mo_csr M;              /* ndof x ndof */
    mo_csr H;              /* ndof x 3nc */
    double *f;             /* ndof */
    double *w;             /* 3nc */
    char *title;           /* may be NULL */
    char *description;     /* may be NULL */
} mo_fc_problem;

/* Reads a problem from an FCLIB HDF5 file (local or global; a global one is
 * also reduced to its local form) or a Siconos .dat file (dense or sparse
 * block W). W becomes CSR with sorted columns; duplicate entries are summed;
 * explicit zeros stored in a file are kept (a dense .dat W keeps its
 * nonzeros only; a reduced W drops exact zeros). Anything after mu in a .dat
 * is ignored. Refused: dim / spacedim other than 3, mixed (V, R) or
 * constrained (G) problems, M not block diagonal with blocks of at most 64
 * dofs (MO_ERR_UNSUPPORTED); missing or empty files, truncation, tokens that
 * are not numbers, bad storage types, inconsistent sizes, non-finite values,
 * negative mu, singular M blocks, missing HDF5 groups or datasets
 * (MO_ERR_IO). On failure *out is zeroed and err (may be NULL) gets one
 * sentence naming the file and what is wrong (the section and line for
 * .dat). An HDF5 file in a build without HDF5 is MO_ERR_UNSUPPORTED; NULL path
 * or out MO_ERR_INVALID_ARGUMENT; also MO_ERR_OUT_OF_MEMORY. *out is
 * overwritten, not freed; the caller frees it with mo_fc_free.
 *
 * Bounded cost: declared sizes are checked before anything is allocated for
 * them. HDF5: a dataset may declare at most the bytes it stores in the file
 * (1032 times that when it goes through a filter such as deflate), and W, M, H
 * must have the sizes the contacts (mu's length) and dofs (f's length) need
 * ("'x.hdf5': HDF5 matrix /fclib_local/W is 1000000000 x 1000000000 but 1
 * contacts need 3 x 3"). .dat: every count must fit in the bytes left. Memory
 * stays within a small multiple of the file's size (the whole file is read
 * first; a compressed HDF5 dataset may expand up to 1032 times). These limits
 * are fixed: an honest file never exceeds them.
 *
 * Damaged HDF5 files: libhdf5 trusts a file's heaps and object headers (a
 * damaged local heap made 1.10.8 dereference NULL). On POSIX systems an HDF5
 * file is therefore read first in a forked child process with default signal
 * actions, then, when the child read it to the end, here: a crash in the child
 * is MO_ERR_IO, "mo_fc_read: 'x.hdf5': the HDF5 library crashed reading it
 * (signal 11 in a child process): the file is damaged". When fork fails the
 * file is read here only. */
MO_API mo_status mo_fc_read(const char *path, mo_fc_problem *out, char *err, size_t err_size);
/* Writes FCLIB HDF5 (readable by libfclib): the global form when
 * p->ndof > 0 (M and H as triplets, f, w, mu; no W or q), else the local one
 * (W as CSR, q, mu); title and description under info/ when not NULL. A
 * problem that is not well formed (sizes, unsorted or duplicate columns,
 * non-finite values, negative mu) is MO_ERR_INVALID_ARGUMENT, as are NULL path
 * or p; a file that cannot be written MO_ERR_IO; a build without HDF5
 * MO_ERR_UNSUPPORTED. Only the form written is checked. */
MO_API mo_status mo_fc_write(const char *path, const mo_fc_problem *p, char *err, size_t err_size);
/* Writes the Siconos .dat text form of the local problem (W as 3x3 sparse
 * blocks, every block with a stored entry written whole; values with %.17g,
 * so they read back to the same bits). Readable by Siconos and fcload.py.
 * Needs no HDF5. MO_ERR_INVALID_ARGUMENT for NULL path or p or a local form that
 * is not well formed (as mo_fc_write); MO_ERR_IO when the file cannot be
 * written; MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_fc_write_dat(const char *path, const mo_fc_problem *p, char *err, size_t err_size);
/* Frees every array and zeroes *p. NULL and zeroed problems are allowed. */
MO_API void mo_fc_free(mo_fc_problem *p);

/* The Siconos error (Siconos's fc3d_compute_error) of reaction r (3nc),
 * with W as given: u = W r + q, e_i = r_i - P_K(r_i - u_i - [mu_i |u_T,i|, 0, 0]),
 * |e| / max(|q|, |r|, |u|) (no division when that is <= DBL_EPSILON).
 * u (may be NULL; else 3nc entries) receives W r + q. NaN when p or r is NULL or
 * p has no contacts, no W, q or mu, or W is not 3nc rows; W's column indices are
 * not checked (a problem from mo_fc_read, or one mo_fc_write accepts, is safe). */
MO_API double mo_fc_error(const mo_fc_problem *p, const double *r, double *u);

/* The contact problem of the world's last step (joint rows eliminated at
 * the impulses that step's solve gave them): the local form always, the
 * global form (M, H = J_c^T, f, w) too when no contact is compliant and no contact is on an articulation's link
 * body (its dofs' mass matrix is the joint-space one of the step's factor, not written out); title
 * "Moreau step". A step without contacts gives nc = 0 (a problem mo_fc_write
 * refuses). *out (must not be NULL: refused) is overwritten, not freed; the
 * caller frees it with mo_fc_free. MO_ERR_INVALID_ARGUMENT before the first
 * step; MO_ERR_OUT_OF_MEMORY (*out then zeroed). Errors go to
 * mo_world_last_error(w); w must not be NULL. */
MO_API mo_status mo_world_contact_problem(mo_world *w, mo_fc_problem *out);

/* most solvers one solve runs in turn (mo_fc_solve_auto: apgd, newton, pgs) */
#define MO_FC_MAX_STAGES 3

/* Result of one solve of an outside problem. */
typedef struct mo_fc_result {
    int iterations;        /* solver iterations / sweeps (all outer updates together; all stages together) */
    bool converged;        /* error <= settings.tolerance (false when the tolerance is 0) */
    double error;          /* mo_fc_error of the returned r (W as given) */
    double ccp_residual;   /* the convex relaxation's residual of the returned r (newton: |Phi|;
                            * mo_fc_solve_auto: the figure of the stage that found the returned r) */
    double seconds;        /* wall time of the solve (setup included, reading excluded) */
    int history_count;     /* entries written to the history arrays */
    /* which solvers ran, in order: one stage for mo_fc_solve (settings.kind), one to MO_FC_MAX_STAGES for
     * mo_fc_solve_auto ("apgd", then "newton", then "pgs": mo_solver_name of stage_kind) */
    int stage_count;                               /* stages that ran, in [1, MO_FC_MAX_STAGES] */
    mo_solver_kind stage_kind[MO_FC_MAX_STAGES];   /* the solver of each stage */
    int stage_iterations[MO_FC_MAX_STAGES];        /* its iterations (sum: iterations) */
    double stage_error[MO_FC_MAX_STAGES];          /* the smallest Siconos error when it stopped (all stages so
                                                    * far: each starts from the best iterate before it) */
    double stage_seconds[MO_FC_MAX_STAGES];        /* its wall time */
} mo_fc_result;

/* Solves the local problem with one Moreau solver (the default configuration,
 * which switches between solvers, is mo_fc_solve_auto below; its settings are
 * mo_fc_default_settings()). p, s and r must not be NULL
 * (refused); res (may be NULL) gets the figures. r (3nc) is the starting
 * guess on entry (zeros for a cold start; non-finite entries are taken as 0)
 * and the reaction on exit; u (3nc, may be NULL) gets W r + q. s is checked
 * as mo_world_set_solver does (MO_ERR_INVALID_ARGUMENT); so are W's size and
 * the presence of W, q and mu, but not W's column indices or values (pass a
 * problem from mo_fc_read or mo_world_contact_problem, or one mo_fc_write
 * accepts). Also MO_ERR_OUT_OF_MEMORY; err may be NULL. With coulomb_updates > 0 the tolerance and the
 * iterate kept apply to the Siconos error (mo_fc_error); with
 * coulomb_updates = 0 the solver solves the convex relaxation (tolerance on
 * its CCP residual), which on sliding contacts is not a Coulomb solution:
 * res->converged still compares the Siconos error with the tolerance.
 * err_history / ccp_history (may be NULL; max_iterations + 1 entries) receive
 * the Siconos error and the CCP residual after every iteration. The bilateral
 * solvers (CG, MINRES, Cholesky) are refused (MO_ERR_INVALID_ARGUMENT): an
 * FCLIB problem has only contacts.
 *
 * MO_SOLVER_NEWTON (not the engine's position-level Newton: a semismooth
 * Newton method on the Alart-Curnier function) solves
 * exact Coulomb friction directly. Settings used: max_iterations (Newton
 * iterations) and tolerance (on the Siconos error; 0 runs them all); the rest,
 * settings.newton and coulomb_updates included, are ignored. The iterate with
 * the smallest Siconos error is returned. Histories: entry 0 is the starting
 * guess, entry k the iterate after Newton iteration k; ccp_history holds
 * |Phi| (the Alart-Curnier residual, units of r), and so does
 * res->ccp_residual. Problems of more than 300 contacts are
 * MO_ERR_UNSUPPORTED in a build without UMFPACK. */
MO_API mo_status mo_fc_solve(const mo_fc_problem *p, const mo_solver_settings *s, double *r, double *u,
                             mo_fc_result *res, double *err_history, double *ccp_history, char *err,
                             size_t err_size);

/* The settings of the default configuration for outside problems:
 * mo_default_solver_settings() with kind MO_SOLVER_APGD, coulomb_updates 200,
 * max_iterations 50000, tolerance 1e-4 (on the Siconos error), warm_start
 * false. Pass them to mo_fc_solve_auto (the default: APGD, then the
 * semismooth Newton method, then PGS as each stagnates), or to mo_fc_solve
 * for APGD alone. */
MO_API mo_solver_settings mo_fc_default_settings(void);

/* The default configuration ("auto" in moreau-bench fclib): APGD, switching
 * to the semismooth Newton method and then to PGS when a stage stagnates, so
 * that a problem any of the three solves is solved at a cost near the best
 * one's (docs/fclib.md has the measurements). How it decides:
 *
 * 1. APGD (200 outer Coulomb updates per window; settings.apgd,
 *    diagonal_scaling apply) runs in windows of 250 iterations, each window
 *    one mo_fc_solve warm-started from the best iterate so far. It stops when
 *    the Siconos error is <= tolerance (solved: no other stage runs), when a
 *    window ends with a best Siconos error above 0.5 times the best at the
 *    window's start (stagnation), or when it has used max_iterations.
 * 2. The semismooth Newton method (as mo_fc_solve with MO_SOLVER_NEWTON),
 *    warm-started from the best iterate so far, at most min(max_iterations,
 *    1000) iterations; it stops when solved, or when a window of 20 Newton
 *    iterations ends with a best error above 0.5 times the best at its start.
 *    Skipped (not a stage) when the build cannot run it on this problem (over
 *    300 contacts without UMFPACK).
 * 3. PGS with De Saxce steps (settings.omega) from the best iterate so far,
 *    at most max_iterations sweeps.
 *
 * r returns the iterate with the smallest Siconos error of all stages. The
 * arguments and refusals are mo_fc_solve's (p, s, r must not be NULL; s is
 * checked as mo_fc_solve checks it), except that s->kind, s->coulomb_updates,
 * s->friction (always the exact cone) and s->warm_start are the
 * configuration's own, and no histories are kept (mo_fc_solve gives each
 * solver's). With tolerance 0 nothing counts as solved: each stage runs until
 * it stagnates, the last to its cap. res (may be NULL) gets the figures and
 * the stages that ran (stage_count, stage_kind...: "apgd -> newton" is
 * stage_count 2, stage_kind {APGD, NEWTON}). */
MO_API mo_status mo_fc_solve_auto(const mo_fc_problem *p, const mo_solver_settings *s, double *r, double *u,
                                  mo_fc_result *res, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif
#endif
