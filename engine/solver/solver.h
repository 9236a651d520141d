/* solver.h: the assembled problem every solver reads (SOLVERS.md A), the
 * solver table and what the solvers share. The solvers see a problem, never a
 * world: this folder includes core/, kernels/ and the public header only.
 * Not installed. */
#ifndef MO_SOLVER_H
#define MO_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/core.h"
#include "kernels/rows.h"
#include "kernels/cone.h"

#define MO_MAX_BLOCK 6 /* rows of the largest block (a weld's bilateral group) */
#define MO_HALVINGS_MAX 10 /* the deepest Newton step halving (mo_newton_settings.halvings) */

/* ---- the assembled problem (SOLVERS.md A) ---- */

typedef struct mo_problem {
    int n;                     /* DOFs */
    int m;                     /* rows */
    const int *row_ptr;        /* (m+1) */
    const int *col;            /* (nnz) */
    const double *val;         /* (nnz) J */
    const double *wval;        /* (nnz) rows of M^-1 J^T, same pattern */
    const double *sigma;       /* (m) compliance diagonal */
    const double *b;           /* (m) stabilisation rhs: N g + J v~ + b = ... */
    const double *lo, *hi;     /* (m) bounds of boxed rows */
    const double *diag;        /* (m) diagonal of N (J W^T + Sigma) */
    int nblocks;
    const int *block_row;      /* (nblocks + 1) first row of each block */
    const uint8_t *block_kind; /* (nblocks) MO_BLOCK_* */
    const double *block_mu;    /* (nblocks) friction of contact blocks */
    const double *block_eta;   /* (nblocks) contact blocks: lambda_max of the 3x3 N block (the PGS/Jacobi step scale) */
    const int *block_inv;      /* (nblocks) offset into inv of a bilateral group's dense N^-1, -1 if none */
    const double *inv;         /* dense row-major inverses of bilateral groups' N blocks */
    const double *v_tilde;     /* (n) unconstrained velocity */
    double q_contact_norm;     /* |J v~ + b| over contact rows (Coulomb error normalisation) */
    int threads;
    /* u = N gamma + r. J form: r = J v~ + b, filled by mo_problem_prepare_r. */
    const double *r;           /* (m) */
    /* Explicit form (outside problems: FCLIB W): N given as an m x m CSR matrix
     * (as given: may be non-symmetric); row_ptr/col/val/wval/v_tilde are NULL, n = 0. */
    const int *n_ptr, *n_col;
    const double *n_val;
    double acary_rho;          /* |M|_1 / |H|_1 when M and H are known (APGD's Acary rho), else 0 */
    /* Facet form (MO_FRICTION_POLYHEDRAL): gamma_base = E x over a base problem.
     * Row i of this problem is column i of E: base rows poly_src[i] ..
     * poly_src[i] + poly_len[i] - 1 with coefficients poly_e[3 i ..]. */
    /* Outer Coulomb updates: r already includes shift (s = mu |u_t| e_n); the
     * Coulomb error is computed with u - shift. stop_coulomb: tolerance and
     * best iterate use the Coulomb error instead of the CCP residual. */
    const double *shift;
    bool stop_coulomb;
    double inner_ccp_stop;     /* > 0: also stop (not converged) once the CCP residual is below it */
    const struct mo_problem *base;
    const int *poly_src;
    const uint8_t *poly_len;
    const double *poly_e;
} mo_problem;

typedef struct mo_solve_out {
    double *gamma;             /* (m) in: warm start; out: impulses */
    double *v;                 /* (n) out: v+ = v~ + M^-1 J^T gamma */
    int iterations;
    bool converged;
    double residual, coulomb_error;
    double *res_hist, *err_hist; /* (max_iterations) or NULL */
    int hist_count;
    double *scratch;           /* (>= 4 m + 2 n) work space */
    void **cholmod_cache;      /* in: the owner's slot for MO_SOLVER_CHOLESKY's cache (pattern, symbolic
                                * factor, CHOLMOD workspace; created on first use, freed by
                                * mo_cholmod_cache_free), or NULL: nothing kept between calls */
    double regularisation;     /* out: delta of N_BB + delta I when the Cholesky solver had to regularise, else 0 */
    struct mo_device *device;  /* in: run on this device context (backend/device.h; solvers with
                                * MO_SOLVER_CAP_CUDA), or NULL: the CPU */
    bool device_failed;        /* out: the device could not take the problem or failed: outputs not valid,
                                * the sentence in the device's err */
} mo_solve_out;

typedef void (*mo_solver_fn)(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);

/* solvers (one file each in solver/) and their shared code (problem.c).
 * A solver reads p (any form: J, explicit N, facets) and s; o->gamma holds the
 * warm start on entry and the impulses on exit; o->v (J form only, may be NULL
 * otherwise) gets v~ + M^-1 J^T gamma; o->scratch holds at least
 * mo_solver_scratch_size(p) doubles. Every solver fills iterations, converged,
 * residual, coulomb_error and, when o->res_hist is set, one entry of both
 * histories per iteration (mo_solve_record). */
void mo_solver_pgs(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_jacobi(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_apgd(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_spg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_cg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_minres(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void mo_solver_cholesky(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
/* table.c: the one solver table (a row per mo_solver_kind). mo_solver_row_of: the row of k, NULL for an
 * unknown kind; mo_solver_has: whether k's row has every flag of caps (false for unknown kinds). */
typedef struct mo_solver_row {
    const char *name;          /* as mo_solver_name, settings files and the command line spell it */
    unsigned caps;             /* MO_SOLVER_CAP_* */
    mo_solver_fn solve;        /* the velocity-level entry; NULL for position-level solvers (MO_SOLVER_CAP_POSITION) */
    bool (*available)(void);   /* whether this build can run it; NULL: always */
    const char *unavailable;   /* the sentence mo_solver_check gives when available() is false */
} mo_solver_row;
const mo_solver_row *mo_solver_row_of(mo_solver_kind k);
bool mo_solver_has(mo_solver_kind k, unsigned caps);
/* solver_cholesky.c: whether this build has CHOLMOD; frees a cache made by
 * mo_solver_cholesky (NULL allowed); its symbolic analyses and numeric
 * factorisations so far (tests) */
bool mo_cholesky_available(void);
void mo_cholmod_cache_free(void *cache);
void mo_cholmod_cache_counts(const void *cache, long *analyses, long *factorisations);
/* whether settings s run on a device backend (their solver has MO_SOLVER_CAP_CUDA; the cone or box
 * friction model; no diagonal scaling); 1, or 0 with one sentence in err */
MO_MUST_USE int mo_solver_device_check(const mo_solver_settings *s, char *err, size_t n);
/* checks settings for a world (max_iterations up to MO_ITERATIONS_MAX); writes one sentence into
 * err; 1 = valid */
MO_MUST_USE int mo_solver_check(const mo_solver_settings *s, char *err, size_t n);
/* the same with another bound on max_iterations (mo_fc_solve: MO_FC_ITERATIONS_MAX) */
MO_MUST_USE int mo_solver_check_max(const mo_solver_settings *s, int max_iterations, char *err, size_t n);
/* The solve entry used by the step and by mo_fc_solve: the polyhedral
 * transform, the outer Coulomb (s) updates, then the chosen solver. */
void mo_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
/* Work space carved from a caller's scratch, in order: a carver with at == NULL only counts, so the same
 * code gives a scratch size and lays it out (solve.c's facet, scaled and Coulomb buffers; PGS's copy in the
 * parallel order). */
typedef struct mo_carver {
    double *at;   /* the first free double, or NULL: count only */
    size_t used;  /* doubles taken */
} mo_carver;

/* bytes (rounded up to whole doubles, at least one) from c; zeroed when zero is set */
static inline void *mo_carve(mo_carver *c, size_t bytes, bool zero)
{
    size_t n = bytes / sizeof(double) + 1;
    void *r = c->at ? (void *)(c->at + c->used) : NULL;
    if (r && zero) memset(r, 0, n * sizeof(double));
    c->used += n;
    return r;
}

/* doubles of scratch MO_SOLVER_PGS needs for p under s: mo_solver_scratch_size(p), and a copy of the problem
   in the parallel order (MO_SWEEP_PARALLEL) */
size_t mo_pgs_scratch_size(const mo_problem *p, const mo_solver_settings *s);
/* doubles of o->scratch that mo_solve needs for p */
size_t mo_solver_scratch_size(const mo_problem *p);
/* doubles of o->scratch that mo_solve needs for p under s: the solver's own part, then the facet or
 * scaled problem, its solver's scratch and the outer Coulomb updates' vectors (mo_solve allocates
 * nothing) */
size_t mo_solve_scratch_size(const mo_problem *p, const mo_solver_settings *s);
/* doubles of work space mo_problem_apply needs */
size_t mo_problem_apply_work(const mo_problem *p);
/* projects x onto K block by block */
void mo_problem_project(const mo_problem *p, double *x);
/* the measure a solver stops on and keeps its best iterate by */
static inline double mo_solve_measure(const mo_problem *p, double ccp, double coulomb)
{
    return p->stop_coulomb ? coulomb : ccp;
}
/* the stop test every iterative solver applies after an iteration: sets
 * *converged when the measure reached the tolerance; true when the solver
 * should stop (converged, or an outer loop's inner target reached) */
static inline bool mo_solve_stop(const mo_problem *p, const mo_solver_settings *s, double ccp, double coulomb,
                                 bool *converged)
{
    if (s->tolerance > 0.0 && mo_solve_measure(p, ccp, coulomb) <= s->tolerance) {
        *converged = true;
        return true;
    }
    return p->inner_ccp_stop > 0.0 && ccp <= p->inner_ccp_stop;
}
/* J form: J_r . v, and v += (M^-1 J^T)_r d (row r of W = M^-1 J^T, as a column) */
static inline double mo_problem_row_dot(const mo_problem *p, int r, const double *v)
{
    double s = 0.0;
    for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) s += p->val[k] * v[p->col[k]];
    return s;
}
static inline void mo_problem_row_push(const mo_problem *p, int r, double d, double *v)
{
    for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) v[p->col[k]] += p->wval[k] * d;
}
/* y = N x (J form: J M^-1 J^T x + Sigma x; explicit: N x; facets: E^T N_base E x) */
void mo_problem_apply(const mo_problem *p, const double *x, double *y, double *work);
/* u = N gamma + r */
void mo_problem_u(const mo_problem *p, const double *gamma, double *u, double *work);
/* J form: r = J v~ + b into out (m) */
void mo_problem_prepare_r(const mo_problem *p, double *out);
/* the 3x3 block N_cc of a contact block (row-major) */
void mo_problem_block3(const mo_problem *p, int k, double out[9]);
/* records one history entry (both residuals at (gamma, u)) if o->res_hist;
 * returns the CCP residual; coulomb (may be NULL) gets the Coulomb error */
double mo_solve_record(const mo_problem *p, const double *gamma, const double *u, mo_solve_out *o, double *coulomb);
/* J form: o->v = v~ + M^-1 J^T gamma (no-op for other forms or o->v NULL) */
void mo_solve_finish_v(const mo_problem *p, mo_solve_out *o);
/* the best iterate a solver keeps: x (m, the solver's scratch) and its measures */
typedef struct mo_best {
    double *x;
    double measure, res, err;
} mo_best;
/* x (m) becomes the best iterate, with its measure (the one the solver stops on) and both residuals */
static inline void mo_best_take(mo_best *b, double measure, double res, double err, const double *x, int m)
{
    b->measure = measure;
    b->res = res;
    b->err = err;
    memcpy(b->x, x, (size_t)m * sizeof(double));
}
/* the start of an iterative solver: not converged, no history yet; true (and the outputs of an empty
 * solve written, v = v~) when p has no rows */
bool mo_solve_begin(const mo_problem *p, mo_solve_out *o);
/* the end of a solver that keeps its best iterate: gamma = best (m), the iteration count, the best
 * iterate's residual and Coulomb error into o, then mo_solve_finish_v */
void mo_solve_finish_best(const mo_problem *p, mo_solve_out *o, const double *best, int iterations, double residual,
                          double coulomb);
/* the mean of diag(N) over block k's rows when > 0, else 1 (SPG's preconditioner, the ops' block_mean_diag) */
double mo_problem_block_mean_diag(const mo_problem *p, int k);
/* v = v~ + M^-1 J^T gamma */
void mo_problem_velocity(const mo_problem *p, const double *gamma, double *v);
/* u = J v + Sigma gamma + b  (= N gamma + r when v = v~ + M^-1 J^T gamma) */
void mo_problem_row_velocity(const mo_problem *p, const double *v, const double *gamma, double *u);
/* both residual measures at (gamma, u) */
/* out = D^-1 in for block k: N^-1 of a bilateral group, else 1 / (mean diagonal) */
void mo_problem_block_solve(const mo_problem *p, int k, const double *in, double *out);
void mo_problem_residuals(const mo_problem *p, const double *gamma, const double *u, double *ccp, double *coulomb);

#endif
