/* internal.h: the engine's private data model (not installed).
 *
 * Objects live in slot arrays with a generation per slot; ids carry
 * (slot index + 1, generation) so that the zeroed id is null. Per-step
 * scratch (DOF maps, rows, CSR arrays, solver vectors) lives in growable
 * buffers owned by the world: they grow between steps while sizes change and
 * are never freed inside a step. */
#ifndef MO_INTERNAL_H
#define MO_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include "moreau/moreau.h"
#include "kernels/dynamics.h"
#include "kernels/rows.h"
#include "kernels/cone.h"
#include "../collision/collide.h"
#include "../collision/shapes.h"

#define MO_DEF_COOKIE 0x4d6f7265 /* "More": set by mo_default_*_def() */
#define MO_ERR_LEN 512
#define MO_MAX_BLOCK 6 /* rows of the largest block (a weld's bilateral group) */

/* ---- objects ---- */

typedef struct mo_body {
    uint32_t generation;       /* odd = alive? no: alive flag below; generation >= 1 once used */
    bool alive;
    mo_body_type type;
    mo_k_body k;               /* pose, velocity, forces, mass data (kernel view) */
    double mass;
    int first_shape;           /* head of the body's shape list, -1 when none */
    int nshapes;
    uint32_t group;
    int owner;                 /* this step's DOF owner index, -1 when not dynamic */
    int njoints;               /* joints attached (for filtering and destroy) */
} mo_body;

typedef struct mo_shape {
    uint32_t generation;
    bool alive;
    int body;                  /* owning body slot */
    int next;                  /* next shape of the same body, -1 */
    int type;                  /* MO_SHAPE_* */
    double radius, he[3], half_height, margin, friction, density;
    double lpos[3], lq[4];     /* pose in the body frame */
    uint32_t category, mask;
    mo_cl_hull *hull;          /* owned */
    mo_cl_mesh *mesh;          /* owned */
} mo_shape;

typedef struct mo_particle {
    uint32_t generation;
    bool alive;
    double x[3], v[3], f[3];
    double mass, inv_mass, radius, friction;
    int owner;
    int fem_mesh;              /* issue 7: slot + 1 of the FEM mesh this particle is a node of, 0 when none */
} mo_particle;

typedef struct mo_joint {
    uint32_t generation;
    bool alive;
    mo_joint_type type;
    int a, b;                  /* body slots, a = -1 for the world */
    double la[3], lb[3];       /* anchors in body frames (la in world frame when a = -1) */
    double axa[3], axb[3];     /* unit axis in each body frame */
    double ua[3], va[3];       /* unit perpendiculars to axa in A's frame (ua x va = axa) */
    double refb[3];            /* ua expressed in B's frame at creation (revolute angle zero) */
    double qrel0[4];           /* qA^-1 qB at creation (fixed, prismatic) */
    double length;
    bool limit;
    double lower, upper;
    mo_motor_mode motor;
    double target_vel, target_pos, kp, kd, max_force;
    double compliance;
    bool collide_connected;
    double impulse[8];         /* last step's impulse per row, for warm starting */
    int nrows;                 /* rows this step */
    int row0;                  /* first row this step */
    double react_f[3], react_t[3];
} mo_joint;

/* a contact of this step (engine view) */
typedef struct mo_contact_int {
    int body_a, body_b;        /* body slots, -1 = none */
    int shape_a, shape_b;      /* shape slots, -1 = none */
    int particle;              /* particle slot for particle contacts (body_b = -1), else -1 */
    double pa[3], pb[3];       /* world points on a and b */
    double n[3], t1[3], t2[3]; /* world basis, n from a to b */
    double gap, mu;
    uint64_t key;
    double impulse[3];         /* (normal, t1, t2) */
    double fric_w, fric_k;     /* Newton: the friction fixed point's W and c_f factor at the end of the last step (k 0: none) */
} mo_contact_int;

/* previous step's contact impulses, sorted by key, for warm starting */
typedef struct mo_contact_cache {
    uint64_t key;
    double point[3];           /* world contact point (midway), for matching when features change */
    double impulse_world[3];   /* total impulse on b as a world vector */
    double normal_impulse;
    double fric_w, fric_k;     /* see mo_contact_int */
} mo_contact_cache;

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
} mo_solve_out;

typedef void (*mo_solver_fn)(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);

/* ---- growable scratch ---- */
typedef struct mo_buf { void *p; size_t cap; } mo_buf;

#define MO_HALVINGS_MAX 10 /* the deepest Newton step halving (mo_newton_settings.halvings) */

typedef struct mo_world {
    mo_world_def def;
    double time;
    uint64_t step_index;
    char err[MO_ERR_LEN];

    mo_body *bodies; int body_cap, body_count; int *body_free; int body_nfree;
    mo_shape *shapes; int shape_cap, shape_count; int *shape_free; int shape_nfree;
    mo_particle *particles; int particle_cap, particle_count; int *particle_free; int particle_nfree;
    mo_joint *joints; int joint_cap, joint_count; int *joint_free; int joint_nfree;

    /* this step */
    int nowners;
    mo_buf owner_dof, owner_ndof, owner_inv_mass, owner_inv_I, owner_ref, owner_constrained; /* owner_ref: +slot body, -(slot+1) particle */
    mo_buf v, v_tilde, v_start;
    mo_buf cl_objs; int ncl; mo_cl_pairs pairs; mo_buf cl_contacts, cl_disp, cl_info; /* cl_info: step_collide.c per-object motion and filter data */
    mo_cl_broadphase_tree *bp;  /* dynamic AABB trees (static and moving), incremental across steps */
    /* world queries (shape.c): the trees hold the current poses (cleared by steps and pose or shape
       changes), plane shape slots, the largest shape margin, candidate scratch */
    int q_synced; mo_buf q_planes; int q_nplanes; double q_margin; mo_buf q_hits;
    mo_buf contacts; int ncontacts;
    mo_buf cache; int ncache;
    mo_buf rows, row_aux, row_g, row_sigma, row_b, row_lo, row_hi, row_diag, row_r, gamma;
    mo_buf block_row, block_kind, block_mu, block_inv, inv, block_eta;
    mo_buf row_ptr, col, val, wval;
    mo_buf scratch, res_hist, err_hist;
    mo_buf joint_pairs; int njoint_pairs; /* sorted (min slot, max slot) keys of non-colliding joined bodies */
    void *cholmod_cache;       /* MO_SOLVER_CHOLESKY's cache across steps (solver_cholesky.c), NULL until used */
    void *proj;                /* step_project.c's buffers (and its own CHOLMOD cache), NULL until used */
    void *newton;              /* step_newton.c's buffers (MO_SOLVER_NEWTON), NULL until used */
    void *fem;                 /* fem_world.c's FEM meshes (issue 7), NULL until the first mesh */
    mo_buf halve[MO_HALVINGS_MAX]; /* step.c: the world's state at the start of a step at each halving depth */
    mo_step_stats stats;
} mo_world;

/* ---- helpers shared by the engine files ---- */
void mo_set_error(mo_world *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* grows b to hold at least bytes; returns 0 on success, -1 out of memory (b unchanged) */
int mo_buf_reserve(mo_buf *b, size_t bytes);
void mo_buf_free(mo_buf *b);
/* a slot from an object pool: a freed slot, else the next one (the arrays grow by doubling,
 * new slots zeroed); returns -1 when out of memory */
int mo_pool_alloc(void **items, size_t item_size, int *cap, int *count, int **free_list, int *nfree);
double mo_now(void);

mo_body *mo_body_get(const mo_world *w, mo_body_id id);
mo_shape *mo_shape_get(const mo_world *w, mo_shape_id id);
/* validates a shape def for a body of the given type; writes the sentence */
int mo_shape_check_def(mo_world *w, const mo_shape_def *d, mo_body_type body_type);
/* attaches a validated shape; returns the slot or -1 (out of memory, or hull/mesh build failure: sentence set) */
int mo_shape_attach(mo_world *w, int body_slot, const mo_shape_def *d);
void mo_shape_release(mo_world *w, int slot);
/* collision object of a shape at its body's current pose */
void mo_shape_object(const mo_world *w, int slot, mo_cl_object *o);
/* unit-density mass properties of a shape in its body's frame: 0, or -1 when it has no volume */
int mo_shape_unit_mass(const mo_world *w, int slot, mo_cl_mass *m);
mo_joint *mo_joint_get(const mo_world *w, mo_joint_id id);
mo_particle *mo_particle_get(const mo_world *w, mo_particle_id id);
bool mo_finite3(mo_vec3 v);

/* stages of a step (step_*.c) */
int mo_step_predict(mo_world *w);
int mo_step_collide(mo_world *w);
int mo_step_assemble(mo_world *w, mo_problem *p);
void mo_step_solve(mo_world *w, const mo_problem *p);
void mo_step_integrate(mo_world *w);
/* optional stage after integrate: settings.position_projections Gauss-Newton
 * projections of the rigid bilateral joint rows (step_project.c); 0, or -1 out of memory */
int mo_step_project(mo_world *w);
void mo_step_project_free(void *buf);
/* MO_SOLVER_NEWTON (issue 7): the position-level non-smooth Newton step that
 * replaces mo_step_solve (step_newton.c): reads the assembled rows of p, leaves
 * v+ in w->v for mo_step_integrate, forces (times h) in the joints' and
 * contacts' impulses; 0, or -1 out of memory. mo_step_newton_free frees
 * w->newton (NULL allowed). */
int mo_step_newton(mo_world *w, const mo_problem *p);
void mo_step_newton_free(void *buf);
/* ==== FEM meshes in the Newton step (issue 7; fem_world.c) ====
 * The mesh rows follow the problem's rows in the Newton system: per live mesh
 * (slot order) its elements' rows (corotational 6, Neo-Hookean 7, its 2-row form 2), then one
 * row per fixed axis. mo_fem_live_meshes: meshes alive; mo_fem_newton_rows:
 * row count and non-zeros (*nnz); mo_fem_newton_pattern: row_ptr offsets
 * (rows + 1 entries, starting at base) and columns (this step's particle
 * owners); mo_fem_newton_eval: J (val), M^-1 J^T (wval), C and the diagonal
 * compliance eps of every row at the particles' predicted positions ppx (3 per
 * particle slot) and the fixed targets of the end of the step (h);
 * lambda_get: the warm start (previous step's forces, else the rest
 * multipliers), lambda_set keeps them; mo_fem_step_end advances the fixed
 * targets by h; mo_fem_world_free frees w->fem.
 * Attachments (mo_fem_mesh_attach) add 3 rows each after every mesh's rows,
 * C = x_node+ - (x_body+ + R_body+ r), on the node's particle and, for a
 * dynamic body, its 6 DOFs; mo_fem_newton_eval reads the bodies' predicted
 * poses bpx (3 per body slot) and bpq (4) at the Newton iterate.
 * mo_fem_attached_to: 1 when a live attachment joins mesh slot and body slot
 * (the collide stage does not pair them); mo_fem_attach_count: live ones;
 * mo_fem_particle_skip: per particle slot 1 for a mesh's interior node (no
 * collision object), NULL when there is no mesh (or out of memory). */
int mo_fem_live_meshes(const mo_world *w);
int mo_fem_newton_rows(const mo_world *w, int *nnz);
void mo_fem_newton_pattern(const mo_world *w, int base, int *row_ptr, int *col);
void mo_fem_newton_eval(const mo_world *w, double h, const double *ppx, const double *bpx, const double *bpq,
                        const int *row_ptr, double *val, double *wval, double *C, double *eps, double *kin);
/* adds to kdiag (n, per DOF) the diagonal geometric stiffness of the FEM rows
 * at ppx with forces lambda (the FEM rows' part), N/m, each entry >= 0 */
void mo_fem_newton_geometric(const mo_world *w, const double *ppx, const double *lambda, double *kdiag);
void mo_fem_newton_lambda_get(const mo_world *w, bool warm, double *lambda);
void mo_fem_newton_lambda_set(mo_world *w, const double *lambda);
void mo_fem_step_end(mo_world *w, double h);
/* Newton step halving (step.c): the FEM state a step changes, saved at its start (size in bytes,
 * save into a buffer of that size) and restored after the step is undone */
size_t mo_fem_state_size(const mo_world *w);
void mo_fem_state_save(const mo_world *w, void *buf);
void mo_fem_state_restore(mo_world *w, const void *buf);
void mo_fem_world_free(mo_world *w);
int mo_fem_attached_to(const mo_world *w, int mesh_slot, int body_slot);
int mo_fem_attach_count(const mo_world *w);
const unsigned char *mo_fem_particle_skip(mo_world *w);
/* Rigid shapes against boundary triangles (collide stage, after the
 * contacts): every vertex of a box or convex hull, centre of a sphere or of a
 * capsule's cap, within the margin outside (or at most the triangle's longest
 * edge inside) a mesh's boundary triangle it projects into; the points where
 * an edge of a box or hull crosses the walls of a triangle's prism (the planes
 * through its edges along its normal); and the points the collision layer's
 * convex/triangle routine (mo_cl_collide_triangle) finds between capsules and
 * cylinders and the triangles that hold none of their cap centres' rows: 3
 * rows each after the attachments' rows, a unilateral normal row and two
 * friction rows (mo_fem_newton_types: MO_NROW_NCP, MO_NROW_FRICTION x 2 for
 * those, bilateral for the rest; mo_fem_newton_friction: their count and, for
 * each, the system row of its normal row, base + the FEM-local row, and its
 * friction coefficient sqrt(mu_mesh mu_shape)). 0, or -1 out of memory.
 * mo_fem_newton_eval's kin (may be NULL) gets the part of each FEM row's J v
 * that comes from a kinematic body's motion. mo_fem_surface_contacts: their
 * count this step and (force, may be NULL) the sum of their normal forces (N)
 * after it; mo_fem_surface_force: the sum of their forces (normal and
 * friction) on body slot body, world, N. */
int mo_fem_collide_surfaces(mo_world *w);
int mo_fem_surface_contacts(const mo_world *w, double *force);
void mo_fem_surface_force(const mo_world *w, int body, double *f);
/* of this step's surface contacts: how many are edge crossings or the
 * collision layer's points (the rest are vertex and centre rows); the smallest C = n . (p - sum b_i x_i)
 * - rad at the bodies' and nodes' current positions (m; +inf when none) */
int mo_fem_surface_edge_contacts(const mo_world *w);
double mo_fem_surface_min_gap(const mo_world *w);
void mo_fem_newton_types(const mo_world *w, uint8_t *type);
int mo_fem_newton_friction(const mo_world *w, int base, int *rn, double *mu);
/* ==== end of FEM meshes ==== */
void mo_joint_rebuild_filter(mo_world *w);
double mo_joint_position_error(const mo_world *w, const mo_joint *j);
int mo_joint_row_count(const mo_joint *j);

/* writes j's rows (descriptors, aux, per-row kinds and bounds; step_assemble.c groups the leading bilateral rows into one block) */
void mo_joint_fill_rows(const mo_world *w, const mo_joint *j, mo_k_row *rows, mo_row_aux *aux, uint8_t *kind,
                        double *lo, double *hi);

/* solvers (solver_*.c) and their shared code (solver.c).
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
mo_solver_fn mo_solver_table(mo_solver_kind k);
/* solver_cholesky.c: whether this build has CHOLMOD; frees a cache made by
 * mo_solver_cholesky (NULL allowed); its symbolic analyses and numeric
 * factorisations so far (tests) */
bool mo_cholesky_available(void);
void mo_cholmod_cache_free(void *cache);
void mo_cholmod_cache_counts(const void *cache, long *analyses, long *factorisations);
/* checks settings; writes one sentence into err; 1 = valid */
int mo_solver_check(const mo_solver_settings *s, char *err, size_t n);
/* The solve entry used by the step and by mo_fc_solve: the polyhedral
 * transform, the outer Coulomb (s) updates, then the chosen solver. */
void mo_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
/* doubles of o->scratch that mo_solve needs for p */
size_t mo_solver_scratch_size(const mo_problem *p);
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
/* v = v~ + M^-1 J^T gamma */
void mo_problem_velocity(const mo_problem *p, const double *gamma, double *v);
/* u = J v + Sigma gamma + b  (= N gamma + r when v = v~ + M^-1 J^T gamma) */
void mo_problem_row_velocity(const mo_problem *p, const double *v, const double *gamma, double *u);
/* both residual measures at (gamma, u) */
/* out = D^-1 in for block k: N^-1 of a bilateral group, else 1 / (mean diagonal) */
void mo_problem_block_solve(const mo_problem *p, int k, const double *in, double *out);
void mo_problem_residuals(const mo_problem *p, const double *gamma, const double *u, double *ccp, double *coulomb);

#endif
