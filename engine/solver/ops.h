/* ops.h: the backend operations. The solvers written over them (Jacobi,
 * APGD, P-SPG-FB; MO_SOLVER_CAP_CUDA in the solver table) never read a
 * problem's arrays or index a vector: every product, projection, reduction
 * and vector update is one call through this table, so the same solver code
 * runs on the CPU backend (backend_cpu.c: host arrays, the problem's own
 * products, OpenMP where the problem's functions use it, bit-identical for
 * any thread count) and on a device (the CUDA module: device arrays,
 * cuSPARSE products, kernels over the shared kernels/ bodies, cuBLAS and CUB
 * reductions).
 *
 * Vectors are the backend's memory: m doubles each (the problem's rows),
 * taken with mo_ops_vec. Host code touches a vector only through host() /
 * upload() / download(). Scalars (dot products, residuals) come back to the
 * host as the function's value; each such call is one device-to-host copy on
 * a device, so the solvers ask for them fused where they need several at
 * once (dot3).
 *
 * Every operation states its arithmetic exactly (the order of each sum and
 * product) because the CPU backend must reproduce the solvers' iterates from
 * before the ops bit for bit: test_ops checks each operation against a plain
 * loop, and scene_hashes the steps. A device backend sums in another order,
 * so its iterates agree to rounding (checked on a GPU by test_gpu_solvers).
 * Not installed. */
#ifndef MO_OPS_H
#define MO_OPS_H

#include "solver/solver.h"

typedef struct mo_ops mo_ops;

/* one term of sums(): per element i, with the term's vectors a, b, c (the values match cuda_module.h's
 * MO_CUDA_SUM_*) */
enum {
    MO_SUM_DOT = 0,  /* a_i b_i */
    MO_SUM_WDOT = 1, /* (a_i b_i) c_i: wdot(a, b, c) */
    MO_SUM_IDOT = 2, /* (a_i b_i) / c_i: idot(a, b, c) */
    MO_SUM_DIFF = 3, /* a_i (b_i - c_i): dot_diff(a, b, c) */
};
#define MO_OPS_MAX_SUMS 6
typedef struct mo_sum {
    int kind;
    const double *a, *b, *c;
} mo_sum;

#define MO_OPS_MAX_VECS 16 /* work vectors a solver may ask for */

struct mo_ops {
    const mo_problem *p;      /* the problem on the host: sizes, the blocks, diag (host loops may read it) */
    int m;                    /* rows: the length of every vector */
    double *gamma;            /* the backend's gamma: the warm start after begin, the result before end */
    const double *r;          /* the backend's r (u = N gamma + r) */
    void *impl;               /* the backend's state */

    /* ---- the problem ---- */
    /* y = N x (every problem form: J M^-1 J^T + Sigma, explicit N, facets or scaling over a base) */
    void (*apply)(const mo_ops *o, const double *x, double *y);
    /* x = P_K(x) block by block (mo_k_project_block) */
    void (*project)(const mo_ops *o, double *x);
    /* y = D^-1 x block by block (mo_problem_block_solve: a bilateral group's N^-1, else 1 / its scale) */
    void (*block_solve)(const mo_ops *o, const double *x, double *y);
    /* y_i = the mean of diag(N) over row i's block when > 0, else 1 */
    void (*block_mean_diag)(const mo_ops *o, double *y);
    /* both residual measures at (gamma, u) (mo_problem_residuals) */
    void (*residuals)(const mo_ops *o, const double *gamma, const double *u, double *ccp, double *coulomb);

    /* ---- vectors: w, x, y, z of m doubles; a, b scalars; each line is the exact arithmetic per i ---- */
    void (*copy)(const mo_ops *o, double *y, const double *x);                  /* y = x */
    void (*seed)(const mo_ops *o, double *x);                                   /* x = 1 + 0.01 (i % 7) */
    void (*scale)(const mo_ops *o, double *y, double a, const double *x);       /* y = a * x */
    void (*divide)(const mo_ops *o, double *y, const double *x, double a);      /* y = x / a */
    void (*axpy)(const mo_ops *o, double *y, double a, const double *x);        /* y = y + a * x */
    void (*waxpy)(const mo_ops *o, double *w, const double *x, double a, const double *y); /* w = x + a * y */
    void (*sub)(const mo_ops *o, double *w, const double *x, const double *y);  /* w = x - y */
    void (*extrap)(const mo_ops *o, double *w, const double *x, double b, const double *z); /* w = x + b * (x - z) */
    void (*pstep)(const mo_ops *o, double *w, const double *x, double a, const double *g, const double *d);
    /*                                                                             w = x - a * g / d */
    void (*ediv)(const mo_ops *o, double *y, const double *x, const double *d); /* y = x / d */
    void (*zero)(const mo_ops *o, double *x);                                   /* x = 0 */
    void (*mask_pos)(const mo_ops *o, double *x, const double *d);              /* x = d > 0 ? x : 0 */
    /* y = P^-1 x, the bilateral solvers' block Jacobi (mo_bil_precond) with d = diag(N): per bilateral
     * block, its dense N^-1 when every row has d > 0 and the block has more than one row and an inverse,
     * else x_i / d_i per row with d_i > 0; 0 on every other row (y != x) */
    void (*bil_precond)(const mo_ops *o, const double *x, double *y, const double *d);
    /* sums, each over i = 0 .. m-1 in order on the CPU */
    double (*dot)(const mo_ops *o, const double *x, const double *y);           /* x . y */
    void (*dot3)(const mo_ops *o, const double *x1, const double *y1, const double *x2, const double *y2,
                 const double *x3, const double *y3, double out[3]);            /* three dots, one readback */
    double (*wdot)(const mo_ops *o, const double *x, const double *d, const double *y); /* sum (x d) y */
    double (*idot)(const mo_ops *o, const double *x, const double *y, const double *d); /* sum (x y) / d */
    /* APGD's step test in one pass: d = x - y, e = nx - (g - r); out = (sum d d, sum d e, sum e e,
     * sum g (x - x1)): the last is the restart test's dot_diff(g, x, x1), 0 when x1 is NULL */
    void (*step_dots)(const mo_ops *o, const double *x, const double *y, const double *nx, const double *g,
                      const double *r, const double *x1, double out[4]);
    /* k (1 .. MO_OPS_MAX_SUMS) sums in one pass and one readback: out[t] = the sum of term t[t], each
     * accumulated in index order on its own (so each equals its single sum: dot, wdot, idot, dot_diff) */
    void (*sums)(const mo_ops *o, int k, const mo_sum *t, double *out);
    double (*dot_diff)(const mo_ops *o, const double *a, const double *x, const double *y); /* sum a (x - y) */

    /* PCR's fused vector passes (newton_linear.c), optional (NULL: the solver calls the single operations
     * named; the CPU backend has them, one pass each instead of four, the same arithmetic bit for bit):
     * (the vectors of one call distinct)
     * pcr_update: x = x + a * p, r = r + (-a) * ap, z = z + (-a) * q; returns sum (r r) / d (axpy x3, idot)
     * pcr_direction: p = z + b * p, ap = az + b * ap, q = ap / d; returns sum ap q (waxpy x2, ediv, dot) */
    double (*pcr_update)(const mo_ops *o, double *x, double *r, double *z, double a, const double *p,
                         const double *ap, const double *q, const double *d);
    double (*pcr_direction)(const mo_ops *o, double *p, double *ap, double *q, double b, const double *z,
                            const double *az, const double *d);

    /* ---- the host ---- */
    double *(*host)(const mo_ops *o, double *x);          /* a host array of m to write x's new values into */
    void (*upload)(const mo_ops *o, double *x, const double *h);        /* x = h (nothing when h is x) */
    void (*download)(const mo_ops *o, double *h, const double *x);      /* h = x (nothing when h is x) */
    /* the end of a solve: o->gamma and o->v (J form) from the backend's gamma */
    void (*finish)(const mo_ops *o, mo_solve_out *out);

    double *vec[MO_OPS_MAX_VECS]; /* the solver's work vectors of m, backend memory */
    double *cpu_work;         /* the CPU backend: the products' work space (mo_problem_apply_work) */
};

/* the ops of p for a solve into out: the CPU backend (out->scratch holds the nvec vectors, then the
 * products' work space; ops->gamma is out->gamma) */
void mo_ops_cpu(mo_ops *ops, const mo_problem *p, mo_solve_out *out, int nvec);
/* only the CPU's vector operations and transfers for vectors of m (ops zeroed first): the base of other
 * CPU tables (the Newton system's, newton_linear.c) */
void mo_ops_cpu_vectors(mo_ops *ops, int m);
/* the ops of p for a solve into out with nvec (<= MO_OPS_MAX_VECS) work vectors: on out->device when
 * set (the problem and warm start uploaded), else the CPU's. 0; -1 when the device cannot take the
 * problem or failed (out->device_failed set, its sentence in the device): the solver then stops with
 * mo_ops_failed */
MO_MUST_USE int mo_ops_make(mo_ops *ops, const mo_problem *p, mo_solve_out *out, int nvec);
/* the outputs of a solve that did not run: gamma untouched, 0 iterations, NaN residuals */
void mo_ops_failed(mo_solve_out *out);
/* backend_cuda.c: whether a device can hold p (false with a sentence in why); the ops of p on device d
 * (the problem and the warm start uploaded): 0, or -1 with the sentence in d->err */
struct mo_device;
bool mo_device_supports(const mo_problem *p, char *why, size_t why_size);
MO_MUST_USE int mo_ops_device(mo_ops *ops, struct mo_device *d, const mo_problem *p, mo_solve_out *out, int nvec);
/* a solve the device cannot run for this problem: out->device_failed set, why as the device's sentence */
void mo_ops_refuse(mo_solve_out *out, const char *why);
/* the ops of a Newton system s (newton.h) on device d: A uploaded as a J-form problem (J and M~^-1 J^T scaled
 * by h, the masked rows empty, Sigma = cd), b as ops->r, x = 0 as ops->gamma, diag(A) as vec[nvec - 1];
 * 0, or -1 with the sentence in d->err */
struct mo_newton_system;
MO_MUST_USE int mo_ops_device_newton(mo_ops *ops, struct mo_device *d, const struct mo_newton_system *s, const double *b,
                         int nvec);
/* the end of a device solve: ops->gamma into x (m), then the device's first failure: 0, or -1 with its
 * sentence in the device's err */
MO_MUST_USE int mo_ops_device_end(const mo_ops *ops, double *x);
/* vector i (0 .. nvec-1) of m doubles */
static inline double *mo_ops_vec(const mo_ops *o, int i)
{
    return o->vec[i];
}

/* what the iterative solvers do over the ops (ops.c) */
/* records one history entry (both measures at (gamma, u)) if out->res_hist; returns the CCP residual,
 * *coulomb the Coulomb error (mo_solve_record) */
double mo_ops_record(const mo_ops *o, const double *gamma, const double *u, mo_solve_out *out, double *coulomb);
/* the best iterate: x copied into b->x with its measures */
void mo_ops_best_take(const mo_ops *o, mo_best *b, double measure, double res, double err, const double *x);
/* the end of a solver that keeps its best iterate (mo_solve_finish_best over the ops) */
void mo_ops_finish_best(const mo_ops *o, mo_solve_out *out, const double *best, int iterations, double residual,
                        double coulomb);
/* the largest eigenvalue of N by power iteration from the seed vector (x, y: vectors) */
double mo_ops_power_lambda(const mo_ops *o, double *x, double *y, int iters);

#endif
