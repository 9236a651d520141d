/* bilateral.h: what the bilateral solvers (CG, MINRES: solver_krylov.c;
 * sparse Cholesky: solver_cholesky.c) share (solver_bilateral.c).
 *
 * They solve N gamma = -r on the set B of bilateral rows (the rows of
 * MO_BLOCK_BILATERAL blocks with N_ii > 0; a zero row cannot be changed by any
 * gamma and is left alone). A problem whose blocks are all bilateral is solved
 * by the inner solver alone ("pure": one history entry per inner iteration).
 * Any other problem (contacts, limits, boxed motor rows) is solved by block
 * Gauss-Seidel: each outer iteration solves the bilateral rows with the other
 * rows' impulses fixed (the inner solver on N_BB d = -u_B), then does one
 * projected Gauss-Seidel sweep over the other blocks (solver_pgs.c's updates),
 * one history entry per outer iteration. Both are block coordinate descent on
 * 1/2 g^T N g + r^T g over K, which converges for symmetric positive
 * semidefinite N. */
#ifndef MO_SOLVER_BILATERAL_H
#define MO_SOLVER_BILATERAL_H

#include <float.h>
#include <math.h>
#include "solver/solver.h"

typedef struct mo_bil mo_bil;

/* An inner solve: from the current (gamma, u = N gamma + r), solves
 * N_BB d = -u_B, gamma_B += d, and keeps u = N gamma + r on every row (it may
 * update u recursively). After each of its iterations it calls mo_bil_check
 * and stops when that returns true, or after max_iterations. Returns the
 * iterations done. */
typedef int (*mo_bil_inner_fn)(mo_bil *c, int max_iterations);

struct mo_bil {
    const mo_problem *p;       /* the problem as given */
    mo_problem q;              /* p with r filled (J form with p->r == NULL: r = J v~ + b in scratch) */
    const mo_solver_settings *s;
    mo_solve_out *o;
    bool pure;                 /* every block bilateral: the inner solve is the whole solve */
    int nb;                    /* rows in B */
    double *gamma;             /* o->gamma */
    double *u;                 /* (m) N gamma + r */
    double *work;              /* mo_problem_apply_work(p) doubles */
    double *dv;                /* J form, mixed: (n) M^-1 J^T gamma */
    double *vecs;              /* free scratch for the inner solver: nvecs vectors of m */
    int nvecs;
    double target;             /* mixed: the inner solve stops once |u_B| <= target */
    int iterations;            /* pure: inner iterations; mixed: outer iterations */
    double ccp, coulomb;       /* measures at the last check */
    bool converged;
    bool u_exact;              /* u was computed as N gamma + r (or updated once from such a u): mo_bil_end needs no product */
    void *state;               /* the inner solver's own (the Cholesky factor) */
};

/* Sets c up for p and checks the warm start: u = N gamma + r, both measures.
 * Returns false when there is nothing to do (the warm start already meets the
 * tolerance, or m = 0); call mo_bil_end either way. vecs: m-vectors the inner
 * solver needs (at most 12; the scratch contract of mo_solver_scratch_size). */
bool mo_bil_begin(mo_bil *c, const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, int vecs);
/* runs the pure inner solve or the mixed alternation */
void mo_bil_run(mo_bil *c, mo_bil_inner_fn inner);
/* the true final measures (one product with N), o's fields, v */
void mo_bil_end(mo_bil *c);
/* after an inner iteration, with u current: pure: records both measures and
 * applies the tolerance (true = stop, c->converged set); mixed: true once
 * |u_B| <= c->target */
bool mo_bil_check(mo_bil *c);

/* MINRES's inner solve (solver_krylov.c; 11 vectors), the Cholesky solver's fallback */
int mo_bil_minres_inner(mo_bil *c, int max_iterations);

/* row r of block k is in B */
static inline bool mo_bil_row(const mo_problem *p, int k, int r)
{
    return p->block_kind[k] == MO_BLOCK_BILATERAL && p->diag[r] > 0.0;
}
/* MINRES's Givens rotation state (Paige-Saunders in SciPy's form; krylov.c, krylov_ops.c) */
typedef struct mo_minres_rot {
    double cs, sn, dbar, epsln, phibar;
} mo_minres_rot;

/* the rotation of the tridiagonal's new column (alfa, beta): the coefficients of the search direction's
 * update w = (v - oldeps w1 - delta w2) den and the step phi along it */
static inline void mo_minres_rotate(mo_minres_rot *g, double alfa, double beta, double *oldeps, double *delta,
                                    double *den, double *phi)
{
    *oldeps = g->epsln;
    *delta = g->cs * g->dbar + g->sn * alfa;
    double gbar = g->sn * g->dbar - g->cs * alfa;
    g->epsln = g->sn * beta;
    g->dbar = -g->cs * beta;
    double gam = hypot(gbar, beta);
    if (gam < DBL_MIN) gam = DBL_MIN;
    g->cs = gbar / gam;
    g->sn = beta / gam;
    *phi = g->cs * g->phibar;
    g->phibar = g->sn * g->phibar;
    *den = 1.0 / gam;
}

/* x_r = 0 for rows outside B */
void mo_bil_mask(const mo_bil *c, double *x);
/* sum over B of x_r y_r */
double mo_bil_dot(const mo_bil *c, const double *x, const double *y);
/* out = P^-1 in on B (block Jacobi: a joint group's dense N^-1 when every row
 * of the group is in B, else 1 / N_ii), 0 outside B; out != in */
void mo_bil_precond(const mo_bil *c, const double *in, double *out);
/* the same block Jacobi for p with d in place of diag(N) (the backend operation bil_precond) */
void mo_bil_precond_diag(const mo_problem *p, const double *d, const double *in, double *out);

#endif
