/* step.h: one time step as stages (ARCHITECTURE.md "One time step"):
 * predict -> collide -> assemble -> solve (or the Newton step) -> integrate
 * -> project, each one file of this folder, run in that order by step.c.
 * Every stage gets the step context: the world, its settings (read-only
 * during the step) and this step's length h, which substeps and Newton step
 * halving shorten without touching the world's settings. Not installed. */
#ifndef MO_STEP_H
#define MO_STEP_H

#include "model/world.h"

typedef struct mo_step_ctx {
    mo_world *w;
    const mo_world_def *def;   /* &w->def: gravity, compliances, margins, threads, solver settings */
    double h;                  /* this step's length, s: def->time_step / substeps / 2^(halving depth) */
} mo_step_ctx;

/* the context of one whole step of world w, for code (tests) that runs the stages one by one */
#define MO_STEP_CTX(w) (&(const mo_step_ctx){(w), &(w)->def, (w)->def.time_step})

/* ---- the stages ---- */
/* 1. predict.c: the DOF map of this step (owners), the unconstrained velocity v~ */
MO_MUST_USE int mo_step_predict(const mo_step_ctx *ctx);
/* 2. collide.c: broadphase, narrowphase, the FEM surfaces' contacts, the contact cache match */
MO_MUST_USE int mo_step_collide(const mo_step_ctx *ctx);
/* 3. assemble.c: joint and contact rows -> the CSR problem p */
MO_MUST_USE int mo_step_assemble(const mo_step_ctx *ctx, mo_problem *p);
/* 4. solve.c: the velocity-level solve of p on the world's backend, impulses kept for warm starting;
 * 0, or -1 when the device failed (w->err has its sentence, w->v not valid) */
MO_MUST_USE int mo_step_solve(const mo_step_ctx *ctx, const mo_problem *p);
/* solve.c: the device a solve of a problem of `rows` rows runs on: the world's when its backend is cuda,
 * or auto with at least MO_BACKEND_AUTO_MIN_ROWS rows and settings that run there; else NULL (the CPU) */
struct mo_device *mo_step_device(const mo_world *w, int rows);
/* 4'. newton.c (MO_SOLVER_NEWTON): the position-level non-smooth Newton step
 * that replaces mo_step_solve: reads the assembled rows of p, leaves v+ in
 * w->v for mo_step_integrate, forces (times h) in the joints' and contacts'
 * impulses; 0, -1 out of memory, -2 when the device of its inner solves
 * failed, or MO_STEP_NOT_FINITE when its residual ended non-finite (w->err has the sentence of both). Its buffers are w->newton. */
MO_MUST_USE int mo_step_newton(const mo_step_ctx *ctx, const mo_problem *p);
/* 5. integrate.c: positions from the new velocity, the statistics */
void mo_step_integrate(const mo_step_ctx *ctx);
/* 6. project.c (settings.position_projections > 0): Gauss-Newton projections
 * of the rigid bilateral joint rows after integrate; 0, or -1 out of memory.
 * Its buffers are w->proj. */
MO_MUST_USE int mo_step_project(const mo_step_ctx *ctx);

/* artic_step.c: the articulations (issue 19): 1'. their new joint velocity v+ with implicit drives and damping
 * (0, or MO_STEP_NOT_FINITE with the sentence: a non-finite iterate or a singular mass matrix); 5'. q from it
 * and v = v+ */
MO_MUST_USE int mo_step_artic_predict(const mo_step_ctx *ctx);
void mo_step_artic_integrate(const mo_step_ctx *ctx);
/* artic_rows.c: the contact rows of link bodies. mo_artic_contact_extra: the columns each of contact c's 3 rows
 * has beyond its ordinary sides' (the nv of each articulation a side's link body belongs to; 0: no link body);
 * mo_artic_rows_scratch: the doubles of scratch mo_artic_contact_fill needs in this world; mo_artic_contact_fill:
 * those columns of c's rows (rows: its 3 descriptors; start: where each row's articulation columns begin) in J
 * (col, val) and W (wval), at the articulations' q and the factors their prediction left */
int mo_artic_contact_extra(const mo_world *w, const mo_contact_int *c);
/* limit and friction rows (mo_articulation_set_limits, _set_joint_friction): mo_artic_limit_rows numbers them
 * from row0 (a->row0, a->nrows) and returns their count; mo_artic_limit_fill writes their descriptors (no
 * ordinary sides), aux, block kinds, bounds and warm starts; mo_artic_limit_csr their nv columns in J and W
 * (row_ptr ready); mo_artic_limit_store keeps their impulses after the solve (h: the step's length) */
int mo_artic_limit_rows(mo_world *w, int row0);
void mo_artic_limit_fill(const mo_world *w, double h, bool warm, mo_k_row *rows, mo_row_aux *aux, uint8_t *kind,
                         double *lo, double *hi, double *gamma);
void mo_artic_limit_csr(const mo_world *w, const int *row_ptr, int *col, double *val, double *wval);
void mo_artic_limit_store(mo_world *w, const double *gamma, double h);
/* after the solve: marks (a->touched) the articulations that a contact with a non-zero impulse acts on (extra:
 * the per-row articulation columns of assemble.c, mj: the first contact row); mo_artic_limit_store marks those
 * whose limit or friction rows have one */
void mo_artic_contacts_touch(mo_world *w, const mo_contact_int *ct, int nc, const int *extra, int mj);
/* the Newton step (newton.c): y = (M + diag a)^-1 x and y = (M + diag a) x on every live articulation's dofs (the
 * prediction's factor and mass matrix; other entries of y untouched); mo_artic_newton_rows: at the iterate v, the
 * articulation rows' frozen columns (col, val, wval from p), the limit/friction/mimic rows' aux and
 * C = g + h J v into cg, and the link side's displacement h J_art v added to a link contact's normal C */
void mo_artic_minv(const mo_world *w, const double *x, double *y);
void mo_artic_mulv(const mo_world *w, const double *x, double *y);
void mo_artic_newton_rows(const mo_world *w, const mo_problem *p, double h, const double *v, mo_row_aux *aux,
                          int *col, double *val, double *wval, double *cg);
int mo_artic_rows_scratch(const mo_world *w);
void mo_artic_contact_fill(const mo_world *w, const mo_contact_int *c, const mo_k_row *rows, const int *start,
                           int *col, double *val, double *wval, double *scratch);

/* ---- guard.c: the finite checks between stages ---- */
/* a stage's return value for a non-finite result (the sentence is set); -1 is out of memory, -2 a
 * device failure */
#define MO_STEP_NOT_FINITE (-3)
/* mo_step_collide: a contact touched a sleeping island, which woke: the step runs predict and collide again */
#define MO_STEP_WOKE 1
/* island.c, after a whole step (its substeps) of length dt: islands of the awake dynamic bodies (this step's
 * contacts and the joints), rest times, islands at rest for sleep_time put to sleep (settings.sleep), the step
 * statistics' awake, sleeping and island counts; 0, or -1 out of memory (then nothing sleeps this step) */
int mo_step_islands(mo_world *w, double dt);
/* every DOF owner's entries of the DOF vector v (this step's owners) finite; else the sentence
 * "the <stage> gave <object> a non-finite <what> ..." and MO_STEP_NOT_FINITE */
MO_MUST_USE int mo_guard_dofs(mo_world *w, const double *v, const char *stage, const char *what);
/* every live body's pose and velocity, every live particle's position and velocity finite (and the
 * quaternions non-zero); else the sentence and MO_STEP_NOT_FINITE */
MO_MUST_USE int mo_guard_poses(mo_world *w, const char *stage);
/* every live articulation's q and qdot finite; else the sentence and MO_STEP_NOT_FINITE */
MO_MUST_USE int mo_guard_artic(mo_world *w, const char *stage);

/* collide.c: this step's contact impulses into the cache the next step warm-starts from; 0, or -1 out of memory */
MO_MUST_USE int mo_contact_cache_store(mo_world *w);

/* ---- FEM meshes in the Newton step (fem_rows.c, fem_contacts.c) ----
 * The mesh rows follow the problem's rows in the Newton system: per live mesh
 * (slot order) its elements' rows (corotational 6, Neo-Hookean 7, its 2-row form 2), then one
 * row per fixed axis. mo_fem_newton_rows:
 * row count and non-zeros (*nnz); mo_fem_newton_pattern: row_ptr offsets
 * (rows + 1 entries, starting at base) and columns (this step's particle
 * owners); mo_fem_newton_eval: J (val), M^-1 J^T (wval), C and the diagonal
 * compliance eps of every row at the particles' predicted positions ppx (3 per
 * particle slot) and the fixed targets of the end of the step (h);
 * lambda_get: the warm start (previous step's forces, else the rest
 * multipliers), lambda_set keeps them; mo_fem_step_end advances the fixed
 * targets by h.
 * Attachments (mo_fem_mesh_attach) add 3 rows each after every mesh's rows,
 * C = x_node+ - (x_body+ + R_body+ r), on the node's particle and, for a
 * dynamic body, its 6 DOFs; mo_fem_newton_eval reads the bodies' predicted
 * poses bpx (3 per body slot) and bpq (4) at the Newton iterate. */
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
MO_MUST_USE int mo_fem_collide_surfaces(mo_world *w);
int mo_fem_surface_contacts(const mo_world *w, double *force);
void mo_fem_surface_force(const mo_world *w, int body, double *f);
/* of this step's surface contacts: how many are edge crossings or the
 * collision layer's points (the rest are vertex and centre rows); the smallest C = n . (p - sum b_i x_i)
 * - rad at the bodies' and nodes' current positions (m; +inf when none) */
int mo_fem_surface_edge_contacts(const mo_world *w);
double mo_fem_surface_min_gap(const mo_world *w);
void mo_fem_newton_types(const mo_world *w, uint8_t *type);
int mo_fem_newton_friction(const mo_world *w, int base, int *rn, double *mu);
/* The compliance the Newton step's linear system uses for the FEM rows
 * (eps_t), next to the rows' own eps (the residual C + eps lambda keeps eps):
 * the 7-row Neo-Hookean stretch rows get 1/(mu V + lambda_H) when the
 * volume row's force lambda_H > 0, which puts the positive part of that row's
 * curvature, -lambda_H d2J/dx2 (at rest: +lambda_H on symmetric deviatoric
 * modes), into the tangent. eps_t holds eps on entry (every FEM row) and
 * only the stretch rows are changed. A quasi-Newton tangent: the solution is
 * the same. */
void mo_fem_newton_tangent(const mo_world *w, const double *lambda, const double *eps, double *eps_t);
/* ---- probe (tests) ---- */

/* After mo_step_predict, mo_step_collide and mo_step_assemble(w, p): the row
 * residuals g(v, lambda) at the predicted positions q+ = q + h G(q+) v
 * (bilateral: C + E lambda; NCP rows: phi; friction: D v + W lambda_f; boxes:
 * J v + sigma h lambda + b), their derivative along (dv, dl) as the Newton step
 * linearises them (dg = d/ds g(v + s dv, lambda + s dl) with the scalings c and
 * W frozen and dC/dv+ = h J(q+)), and the row types. The frozen values (m
 * scalings c, one per row, then one W per frictional contact: the contacts, then
 * the FEM surface contacts, mo_fem_newton_friction) are taken from fixed when it
 * is not NULL, else computed at (v, lambda) (c from ns) and written to
 * fixed_out (may be NULL). 0, or -1 out of memory. */
MO_MUST_USE int mo_newton_probe(const mo_step_ctx *ctx, const mo_problem *p, const mo_newton_settings *ns, const double *v,
                    const double *lambda, const double *dv, const double *dl, const double *fixed, double *fixed_out,
                    double *g, double *dg, uint8_t *type);

#endif
