/* newton.h: the non-smooth Newton method's numerical parts (MO_SOLVER_NEWTON,
 * SOLVERS.md B): NCP functions, the friction fixed point, the row types, the
 * Schur system and its inner linear solvers (newton_linear.c,
 * newton_cholesky.c). The Newton step that builds and iterates the system on
 * a world is step/newton.c. Not installed. */
#ifndef MO_NEWTON_H
#define MO_NEWTON_H

#include <stdint.h>
#include "solver/solver.h"

/* phi(a, b) and its (generalised) derivatives */
typedef struct mo_ncp_val {
    double phi, da, db;
} mo_ncp_val;

/* Fischer-Burmeister: phi = a + b - sqrt(a^2 + b^2), d/da = 1 - a / sqrt(a^2 + b^2), d/db likewise; at (0, 0)
 * both derivatives are 1 - 1/sqrt(2) (the paper's choice, an element of the generalised gradient).
 * Minimum map: phi = min(a, b), (1, 0) when a < b, else (0, 1). */
mo_ncp_val mo_ncp_eval(mo_ncp_function f, double a, double b);

/* the friction compliance of one contact (SOLVERS.md B, units corrected):
 * W = (s - phi(s, c_f (mu ln - |lf|))) / (mu ln), s = |D v| the slip speed
 * (m/s), ln > 0 the normal force (N), |lf| the friction force's norm (N), c_f
 * the friction scaling ((m/s)/N); W in (m/s)/N */
double mo_newton_friction_w(mo_ncp_function f, double slip, double ln, double lf_norm, double mu, double cf);

/* the Schur system A x = b of one Newton iteration,
 * A = h^2 Jm M~^-1 Jm^T + diag(cd), with Jm = J with the masked rows zeroed
 * (cd of a masked row is 1: the unit diagonal of a disabled row) */
typedef struct mo_newton_system {
    int n, m, threads;
    double h;
    const int *row_ptr, *col;
    const double *val, *wval;  /* J, and the rows of M~^-1 J^T (same pattern) */
    const uint8_t *mask;       /* (m) 1 = row zeroed */
    const double *cd;          /* (m) C_ii (+ delta) */
    const double *diag;        /* (m) A_ii */
    /* the mass blocks, for MO_NEWTON_CHOLESKY's primal form (NULL odof: Schur form only) */
    int nown;
    const int *odof, *ondof;   /* (nown) first DOF and DOF count (3 or 6) of each owner */
    const double *oim;         /* (nown) inverse mass */
    const double *mrot;        /* (9 nown) world inertia of 6-DOF owners (zero when singular) */
    const double *msc;         /* (n) M~^-1 = msc M^-1 (the geometric stiffness on particle DOFs) */
    void **chol;               /* MO_NEWTON_CHOLESKY's cache across calls (the owner's slot, created on first use,
                                * freed by mo_newton_chol_free), or NULL: nothing kept */
    struct mo_device *device;  /* PCR, PCG and Jacobi run on this device (backend/device.h), or NULL: the CPU */
    int ngrp;                  /* row groups (mo_newton_groups) the CPU products run over, or 0 with grp NULL: */
    const int *grp;            /* (ngrp + 1) first row of each group; NULL: row by row (the same values) */
} mo_newton_system;

#define MO_NEWTON_GROUP_ROWS 8  /* rows of a group, at most */
#define MO_NEWTON_GROUP_LEN 24  /* columns of a row in a group of more than one row, at most */
/* the row groups of a CSR pattern: runs of at most MO_NEWTON_GROUP_ROWS consecutive rows with the same
 * column list of at most MO_NEWTON_GROUP_LEN distinct columns (other rows alone); grp (m + 1 ints) gets
 * the first row of each and m; returns their count */
int mo_newton_groups(int m, const int *row_ptr, const int *col, int *grp);

/* y = A x; work holds n doubles */
void mo_newton_apply(const mo_newton_system *s, const double *x, double *y, double *work);
/* t = M~^-1 Jm^T x (n) */
void mo_newton_jt(const mo_newton_system *s, const double *x, double *t);
/* doubles of scratch mo_newton_linear_solve needs */
size_t mo_newton_linear_scratch(int n, int m);
/* solves A x = b from x = 0 with the chosen inner solver for at most
 * ns->linear_iterations iterations (fewer when ns->linear_tolerance is
 * reached); hist (may be NULL) gets |b - A x|_D / |b|_D after each iteration,
 * |r|_D = sqrt(r^T diag(A)^-1 r), the norm PCR minimises (monotone).
 * Returns the iterations done; *rel the final relative residual; -1 when
 * s->device failed (its sentence in the device's err). */
MO_MUST_USE int mo_newton_linear_solve(const mo_newton_system *s, const mo_newton_settings *ns, const double *b, double *x,
                           double *scratch, double *hist, double *rel);

/* MO_NEWTON_CHOLESKY (newton_cholesky.c): solves A x = b with CHOLMOD, in
 * the Schur form (A's upper triangle assembled) or the primal one (the n x n
 * K = M~ + h^2 Jm^T D^-1 Jm, D = diag(cd); Woodbury), whichever has fewer
 * entries when both apply (form: 0 that choice, 1 Schur, 2 primal). 0 solved;
 * 1 not positive definite; -1 out of memory, no CHOLMOD in this build, or the
 * forced primal form not applicable. work: n doubles. *used (may be NULL) gets
 * the form used (1 or 2). */
MO_MUST_USE int mo_newton_cholesky_form(const mo_newton_system *s, const double *b, double *x, double *work, int form,
                            int *used);
MO_MUST_USE int mo_newton_cholesky(const mo_newton_system *s, const double *b, double *x, double *work);
/* the cache of mo_newton_system.chol: freed (NULL allowed); its symbolic analyses and numeric
 * factorisations so far (tests) */
typedef struct mo_newton_chol mo_newton_chol;
void mo_newton_chol_free(void *cache);
void mo_newton_chol_counts(const void *cache, long *analyses, long *factorisations);

/* row types of the Newton step */
enum {
    MO_NROW_BILATERAL = 0, /* C(q+) + E lambda = 0 */
    MO_NROW_NCP = 1,       /* phi(C(q+) + eps lambda, c lambda) = 0: contact normals, joint limits */
    MO_NROW_FRICTION = 2,  /* D v + W lambda_f = 0 */
    MO_NROW_BOX = 3,       /* motors: J v + sigma h lambda + b = 0 inside [lo, hi] / h */
};

#endif
