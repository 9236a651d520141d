/* artic.h: articulations in reduced coordinates (issue 19, part 1: the core).
 * Internal: no public API yet; the world integration, contacts and the public
 * joint-space API build on this model (docs/articulations.md,
 * shared/design/ARTICULATIONS.md).
 *
 * An articulation is one tree of links, parents before children: link 0 is
 * the root (parent -1, attached to the world by its joint), every other link
 * i has a parent p(i) with 0 <= p(i) < i. Each link has a joint to its parent
 * (the world for the root):
 *
 *   type        nq  nv  q                                  v
 *   fixed        0   0  -                                  -
 *   revolute     1   1  angle (rad), never wrapped          rate (rad/s)
 *   prismatic    1   1  displacement (m)                   rate (m/s)
 *   spherical    4   3  unit quaternion (w, x, y, z)       angular velocity (rad/s)
 *   free (root)  7   6  position (m), unit quaternion      linear velocity (m/s), angular velocity (rad/s)
 *
 * Frames. Each link has a frame (its origin and axes; the centre of mass and
 * inertia are given in it). Its joint has a joint frame fixed on the parent
 * (the world for the root), placed by X_T: the joint frame's origin
 * joint_pos and orientation joint_rot in the parent link's frame. The joint
 * moves the link frame relative to the joint frame; at q = 0 (the identity
 * quaternions) the two coincide:
 * - revolute: the link frame is the joint frame rotated by q about axis
 *   (a unit vector in the joint frame; it is the same vector in the link frame);
 * - prismatic: the link frame is the joint frame translated by q axis;
 * - spherical: q is the link frame's orientation in the joint frame (it rotates
 *   link coordinates into joint coordinates); the origins coincide;
 * - free: q[0..2] is the link origin and q[3..6] the link's orientation, both in
 *   the joint frame (the world frame when the root's X_T is the identity).
 * Velocities of spherical and free joints are in the CHILD LINK's frame (body
 * frame): a spherical joint's v is the link's angular velocity relative to
 * its parent in the link's axes; a free joint's v is (the velocity of the
 * link's origin, the link's angular velocity), both in the link's axes, so
 * that d/dt pos = R v[0..2] and d/dt quat = quat (0, v[3..5]) / 2.
 *
 * Index layout: the coordinates of link i are q[q_ofs(i) .. q_ofs(i) + nq(i) - 1]
 * and v[v_ofs(i) ..], in link order. The degrees of freedom (dofs) form a tree
 * too: the parent of dof k is k - 1 inside a multi-dof joint, else the last
 * dof of the nearest ancestor link that has one (-1: none); parents come first.
 *
 * Outputs in the world frame: a link's pose (origin, rotation matrix R
 * taking link coordinates to world coordinates), its velocity as (angular
 * velocity, velocity of its origin), point Jacobians, the momentum about the
 * world origin. Gravity is a world vector (m/s^2). External forces on links are
 * spatial forces in world coordinates: (moment about the WORLD ORIGIN, force),
 * see mo_artic_point_force.
 *
 * Memory: a model (mo_artic_model, constant after creation) and a workspace
 * (mo_artic_data, the algorithms' scratch and the last factorisation) are
 * each allocated once; no algorithm allocates. Arrays are double, row-major,
 * shapes given as (rows x cols). Every function trusts its model and data
 * (made by the create calls below) and the array sizes; a state (q, v) can be
 * checked with mo_artic_check_state. Not thread-safe on one data; one data per
 * thread is. */
#ifndef MO_ARTIC_H
#define MO_ARTIC_H

#include <stddef.h>
#include "core/core.h"
#include "artic/spatial.h"

typedef enum mo_artic_joint_type {
    MO_ARTIC_FIXED = 0,
    MO_ARTIC_REVOLUTE,
    MO_ARTIC_PRISMATIC,
    MO_ARTIC_SPHERICAL,
    MO_ARTIC_FREE,
} mo_artic_joint_type;

#define MO_ARTIC_NAME_LEN 32 /* bytes of a link's name, with its terminating 0 (longer names are cut) */
#define MO_ARTIC_MAX_LINKS 100000

/* one link and its joint, as given to mo_artic_model_create; start from mo_artic_default_link_def() */
typedef struct mo_artic_link_def {
    const char *name;         /* for error messages; may be NULL; copied (cut to MO_ARTIC_NAME_LEN - 1 bytes) */
    int parent;               /* -1 for link 0 (the root), else 0 <= parent < this link's index */
    mo_artic_joint_type joint;
    double axis[3];           /* revolute/prismatic: the joint axis in the joint frame, non-zero (normalised) */
    double joint_pos[3];      /* X_T: the joint frame's origin in the parent link's frame (m) */
    double joint_rot[4];      /* X_T: the joint frame's orientation in the parent's frame, quaternion (w, x, y, z),
                                 non-zero (normalised) */
    double mass;              /* kg, >= 0; 0 only with a zero inertia (a massless frame) */
    double com[3];            /* centre of mass in the link frame (m) */
    double inertia[9];        /* about the centre of mass, link axes (kg m^2), symmetric positive definite */
} mo_artic_link_def;

/* per link of a model */
typedef struct mo_artic_link {
    int parent, joint;        /* parent index (-1: the root), mo_artic_joint_type */
    int q_ofs, nq, v_ofs, nv; /* coordinates q[q_ofs..q_ofs+nq-1], velocities v[v_ofs..v_ofs+nv-1] */
    double axis[3];           /* unit joint axis (revolute, prismatic) */
    mo_sxform xt;             /* X_T: parent link frame (world for the root) -> joint frame */
    mo_sinertia inertia;      /* spatial inertia about the link origin, link coordinates */
    double mass, com[3], inertia_c[9]; /* as given (inertia about the centre of mass) */
    char name[MO_ARTIC_NAME_LEN];
} mo_artic_link;

/* a model: constant after mo_artic_model_create */
typedef struct mo_artic_model {
    int nlink, nq, nv;
    mo_artic_link *links; /* (nlink) */
    double *S;            /* (nv x 6): each dof's motion subspace column in its link's frame (constant) */
    int *dof_link;        /* (nv): the link of each dof */
    int *dof_parent;      /* (nv): the parent dof (-1: none), < the dof */
    int *ld_ofs, *ld_len; /* (nv): row k of the tree-sparse mass matrix holds M[k][a] for the ld_len[k] dof
                             ancestors a of k, nearest first (k's parent, its parent, ...), at ld_ofs[k] + m */
    int ld_size;          /* sum of ld_len: the off-diagonal entries of the tree pattern (below the diagonal) */
} mo_artic_model;

/* a workspace: scratch for the algorithms and the last factorisation */
typedef struct mo_artic_data {
    mo_sxform *xup;     /* (nlink): parent link frame (world for the root) -> link frame, at the last q */
    mo_sxform *x0;      /* (nlink): world -> link frame; E^T is the link's rotation R, r its origin (world) */
    double *vel;        /* (nlink x 6): link spatial velocities, link coordinates */
    double *acc, *frc;  /* (nlink x 6): scratch */
    mo_sinertia *ic;    /* (nlink): composite inertias, scratch */
    double *hm, *hm_diag; /* (ld_size), (nv): the tree-sparse mass matrix of the last CRBA */
    double *ld, *ld_diag; /* (ld_size), (nv): the last factorisation M + diag(d) = L^T D L: L's entries in the
                             layout of the model's ld_ofs (unit diagonal implied), D */
    double *tmp;        /* (5 nv + nq): scratch of the steps */
    int factored;       /* ld holds a factorisation */
} mo_artic_data;

/* ---- model and workspace ---- */

/* a link def with: name NULL, parent -1, joint fixed, axis (0, 0, 1), joint frame at the parent's origin with
   its axes (joint_pos 0, joint_rot (1, 0, 0, 0)), mass 1 kg, com 0, inertia diag(0.01) kg m^2 */
mo_artic_link_def mo_artic_default_link_def(void);

/* Checks n link defs (defs: n entries, 1 <= n <= MO_ARTIC_MAX_LINKS) and builds a model into *out.
   MO_ERR_INVALID_ARGUMENT with a sentence naming the link and the value in err (err may be NULL; err_size
   bytes) for: a non-finite value, a parent not before the link or a second root, an unknown joint type, a
   zero axis or joint_rot, a free joint that is not link 0 or a second free joint, a negative mass, an
   inertia that is not symmetric positive definite (or not zero with mass 0). MO_ERR_OUT_OF_MEMORY.
   *out is NULL on failure. */
MO_MUST_USE mo_status mo_artic_model_create(const mo_artic_link_def *defs, int n, mo_artic_model **out,
                                            char *err, size_t err_size);
/* frees m (NULL: nothing) */
void mo_artic_model_destroy(mo_artic_model *m);

/* a workspace for m into *out: MO_OK or MO_ERR_OUT_OF_MEMORY (*out NULL) */
MO_MUST_USE mo_status mo_artic_data_create(const mo_artic_model *m, mo_artic_data **out);
/* frees d (NULL: nothing) */
void mo_artic_data_destroy(mo_artic_data *d);

/* ---- coordinates ---- */

/* q (nq) = the reference configuration: 0 for revolute and prismatic joints, identity quaternions, free
   joints at the joint frame's origin */
void mo_artic_q_neutral(const mo_artic_model *m, double *q);

/* MO_OK when q (nq) and v (nv; NULL: not checked) are finite and every quaternion has a length in
   [0.5, 2] (the steps renormalise them); else MO_ERR_INVALID_ARGUMENT with a sentence naming the link
   and the coordinate in err (may be NULL) */
MO_MUST_USE mo_status mo_artic_check_state(const mo_artic_model *m, const double *q, const double *v, char *err,
                                           size_t err_size);

/* q_out (nq) = q (nq) moved along the velocity v (nv) for a time h (s), on the manifold: revolute and
   prismatic q + h v (angles never wrapped); quaternions quat exp(h w / 2) (w in the link frame: right
   multiplication), renormalised; a free joint by the exponential of its body twist (exact for a constant
   v: pos + R J(h w) h v_lin, J the left Jacobian of SO(3), then the quaternion as above). q_out may be q. */
void mo_artic_integrate(const mo_artic_model *m, const double *q, const double *v, double h, double *q_out);

/* The rotation angle (rad, in [0, pi]) of the unit quaternion quat (w, x, y, z) (q and -q alike), and its axis
   into n (unit, the same in both frames; (1, 0, 0) at angle 0): for quat' = quat (0, w) / 2 the angle changes at
   n . w. A spherical joint's cone limit row holds this angle (step/artic_rows.c). */
double mo_artic_rotation_angle(const double *quat, double *n);

/* ---- kinematics ---- */

/* forward kinematics at q (nq): fills d->xup and d->x0; pos (nlink x 3) the links' origins and rot
   (nlink x 9) their rotation matrices (link to world coordinates, row-major), each may be NULL */
void mo_artic_forward_kinematics(const mo_artic_model *m, mo_artic_data *d, const double *q, double *pos,
                                 double *rot);

/* link velocities at q (nq), v (nv): fills d->xup, d->x0, d->vel; out (nlink x 6, may be NULL): per link
   (angular velocity, velocity of the link's origin), world axes (rad/s, m/s) */
void mo_artic_velocities(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v, double *out);

/* The Jacobian at q (nq) of the point fixed on link `link` (0 <= link < nlink) at `point` (link coordinates, m):
   its world velocity is jv v and the link's world angular velocity jw v. jv, jw (3 x nv each, row-major;
   either may be NULL), world_point (3, may be NULL): the point in the world. Columns of dofs not on the
   path from the root to the link are 0. */
void mo_artic_point_jacobian(const mo_artic_model *m, mo_artic_data *d, const double *q, int link,
                             const double *point, double *jv, double *jw, double *world_point);

/* spatial force out (6) in world coordinates (moment about the world origin, force) of the force f (3, N)
   acting at the world point p (3, m): (p x f, f); the form of mo_artic_inverse_dynamics' f_ext */
void mo_artic_point_force(const double *p, const double *f, double *out);

/* ---- dynamics: M(q) a + c(q, v) = tau ---- */

/* The joint-space mass matrix at q by the composite-rigid-body algorithm, O(n d) (d the depth of the dof
   tree): into d->hm / d->hm_diag (the tree-sparse layout of the model) and, when M is not NULL, dense into
   M (nv x nv, row-major, zeros outside the tree pattern) */
void mo_artic_mass_matrix(const mo_artic_model *m, mo_artic_data *d, const double *q, double *M);

/* Factorises M(q) + diag(diag) = L^T D L in the tree's pattern (no fill-in; Featherstone's LTDL, leaves
   first): the mass matrix by mo_artic_mass_matrix, then the factor into d->ld / d->ld_diag, O(sum over
   dofs of depth^2) <= O(n d^2) (a chain: dense; a branched robot: far less).
   diag (nv) may be NULL (none); it is where implicit damping and drives go (h D + h^2 K).
   MO_ERR_INVALID_ARGUMENT with a sentence naming the dof and link when a pivot is not positive and finite
   (the matrix is not positive definite), and d->factored is then 0. */
MO_MUST_USE mo_status mo_artic_factor(const mo_artic_model *m, mo_artic_data *d, const double *q,
                                      const double *diag, char *err, size_t err_size);

/* x (nv) = (M + diag(d))^-1 x with the last mo_artic_factor of d, in place, O(n d). d must hold a
   factorisation (d->factored). */
void mo_artic_solve(const mo_artic_model *m, const mo_artic_data *d, double *x);

/* Inverse dynamics by recursive Newton-Euler, O(n): tau (nv) = M(q) a + c(q, v) the joint forces (N, N m)
   that give the accelerations a (nv; NULL: zero) at q (nq), v (nv; NULL: zero) under gravity (3, world,
   m/s^2; NULL: none) and the external forces f_ext (nlink x 6: per link a spatial force in world
   coordinates, see mo_artic_point_force; NULL: none). A free joint's tau is the body-frame wrench
   (force, torque) in the link's axes, a spherical joint's the torque in the link's axes. Fills d->xup,
   d->x0, d->vel. */
void mo_artic_inverse_dynamics(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v,
                               const double *a, const double *gravity, const double *f_ext, double *tau);

/* c (nv) = the bias forces: inverse dynamics with a = 0 (Coriolis, centrifugal, gravity, external) */
void mo_artic_bias(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v,
                   const double *gravity, const double *f_ext, double *c);

/* tau (nv) = the joint forces that hold the articulation still at q against gravity: inverse dynamics
   with v = a = 0 */
void mo_artic_gravity_compensation(const mo_artic_model *m, mo_artic_data *d, const double *q,
                                   const double *gravity, double *tau);

/* Forward dynamics: a (nv) = M^-1 (tau - c(q, v)), tau (nv) NULL: zero; gravity and f_ext as for inverse
   dynamics. Leaves the factor of M(q) in d. The status of mo_artic_factor. */
MO_MUST_USE mo_status mo_artic_forward_dynamics(const mo_artic_model *m, mo_artic_data *d, const double *q,
                                                const double *v, const double *tau, const double *gravity,
                                                const double *f_ext, double *a, char *err, size_t err_size);

/* One semi-implicit step of length h (s), in place on q (nq) and v (nv):
     (M + h diag(damping)) (v+ - v) = h (tau - c(q, v) - damping v),   q+ = mo_artic_integrate(q, v+, h)
   i.e. v+ = v + h a with the joint damping (N s/m, N m s/rad; damping (nv) NULL: none) taken implicitly,
   stable for any damping. tau (nv), gravity, f_ext as for inverse dynamics (NULL allowed). On an error
   (the status of mo_artic_factor) q and v are unchanged. */
MO_MUST_USE mo_status mo_artic_step(const mo_artic_model *m, mo_artic_data *d, double *q, double *v,
                                    const double *tau, const double *gravity, const double *f_ext,
                                    const double *damping, double h, char *err, size_t err_size);

/* One implicit-midpoint step of length h (s), in place on q (nq) and v (nv): with v_m = (v + v+) / 2 and
   q_m = mo_artic_integrate(q, v_m, h / 2),
     (M(q_m) + h/2 diag(damping)) (v+ - v) = h (tau - c(q_m, v_m) - damping v),   q+ = mo_artic_integrate(q, v_m, h),
   solved by fixed-point iteration on v+ from the semi-implicit step's v+ until the change is at most
   1e-12 (1 + max |v+|) or after max_iter (>= 1) iterations; *iters (may be NULL) gets the number used, or
   -max_iter when the tolerance was not met (the last iterate is taken). Second order and symmetric: no
   secular energy drift on a conservative tree (docs/articulations.md has the figures), at 4 to 7
   mass-matrix factorisations per step. The fixed point needs h |d a / d(q, v)| < 1 (the damping excepted:
   it is implicit): long chains of light links at h = 1e-3 do not converge (a Newton iteration is not done). Arguments and errors as for mo_artic_step; a non-finite
   iterate is MO_ERR_NOT_FINITE with a sentence. On an error q and v are unchanged. */
MO_MUST_USE mo_status mo_artic_step_midpoint(const mo_artic_model *m, mo_artic_data *d, double *q, double *v,
                                             const double *tau, const double *gravity, const double *f_ext,
                                             const double *damping, double h, int max_iter, int *iters, char *err,
                                             size_t err_size);

/* The velocity of one step of length h (s) with an implicit diagonal, for the world's step (drives, damping and
   armature taken implicitly by the caller): v_out (nv) = v + dv with
     (M(q_m) + diag(a)) dv = h (f - c(q_m, v_m)),
   a (nv, >= 0; NULL: none) the implicit diagonal and f (nv, not NULL) the joint forces at v_out = v (what the
   implicit terms give at the start of the step, plus the applied torques). midpoint 0: semi-implicit Euler,
   q_m = q, v_m = v, one factorisation; midpoint 1: the implicit midpoint's v_m = (v + v_out) / 2,
   q_m = mo_artic_integrate(q, v_m, h / 2), by fixed-point iteration as mo_artic_step_midpoint (max_iter, iters
   likewise; the last iterate when the tolerance is not met), with one factorisation at q (the iterates
   corrected by the midpoint equations' residual, computed by RNEA) and, at the end, the factor at the last q_m
   left in d for the caller's rows. q and v are not changed: the caller integrates q
   with v_out (Euler) or (v + v_out) / 2 (midpoint). Errors as mo_artic_factor; MO_ERR_NOT_FINITE with a
   sentence (without a function name) for a non-finite iterate. Uses d->tmp (rhs, v_m, q_m). */
MO_MUST_USE mo_status mo_artic_step_implicit(const mo_artic_model *m, mo_artic_data *d, int midpoint, const double *q,
                                             const double *v, const double *f, const double *gravity,
                                             const double *a, double h, int max_iter, int *iters, double *v_out,
                                             char *err, size_t err_size);

/* ---- energy and momentum ---- */

/* kinetic energy (J) at q (nq), v (nv): sum over links of v_i . I_i v_i / 2 */
double mo_artic_kinetic_energy(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v);

/* potential energy (J) in the uniform gravity (3, m/s^2): -sum m_i g . c_i, c_i the world centres of mass
   (zero at the world origin) */
double mo_artic_potential_energy(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *gravity);

/* out (6) = the total spatial momentum in world coordinates: (angular momentum about the world origin,
   N m s; linear momentum, N s) */
void mo_artic_momentum(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v, double *out);

#endif
