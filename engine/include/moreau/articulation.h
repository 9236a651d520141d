/* articulation.h: robots as reduced-coordinate articulations (issue 19) in a
 * world: a tree of links joined by revolute, prismatic, spherical, fixed or
 * (at the root) free joints, stepped by mo_world_step in joint space
 * (Featherstone's algorithms: CRBA, the tree L^T D L factor, RNEA).
 * Conventions as moreau.h: SI units, value ids with generations that carry
 * their world, defs that must start from their mo_default_*_def(), a
 * mo_status from every fallible call with one sentence in
 * mo_world_last_error() naming the articulation (and the link), and the world
 * unchanged on error. A NULL w: MO_ERR_INVALID_ARGUMENT without a sentence.
 *
 * Links collide through their link bodies (mo_articulation_link_body); contacts, joint limits, dry joint friction
 * and mimics are rows of the step's contact problem on the articulation's dofs, solved by every contact solver
 * (PGS, Jacobi, APGD, P-SPG-FB and the Newton step, which keeps their J linear over its iteration).
 * docs/articulations.md.
 *
 * Coordinates. Link i's joint owns q[q_ofs .. q_ofs + nq - 1] and
 * qdot[v_ofs .. v_ofs + nv - 1] (mo_articulation_joint_dofs), in link order:
 *   joint        nq nv  q                                      qdot
 *   fixed         0  0  -                                      -
 *   revolute      1  1  angle (rad), never wrapped              rad/s
 *   prismatic     1  1  displacement along the axis (m)        m/s
 *   spherical     4  3  unit quaternion (w, x, y, z)           angular velocity in the CHILD link's axes (rad/s)
 *   free (root)   7  6  world position (m), unit quaternion    velocity of the link origin, then angular
 *                                                              velocity, both in the link's axes (m/s, rad/s)
 * Generalised forces (torques, drives, bias, inverse dynamics) have the layout
 * of qdot: N m or N per dof; a free joint's is the wrench (force, torque) in
 * the link's axes.
 *
 * Frames. Link i's joint frame is fixed on its parent at joint_position /
 * joint_orientation (in the parent link's frame; the root's in the world
 * frame after the base pose, see mo_articulation_def); at q = 0 (identity
 * quaternions) the link frame coincides with its joint frame; a revolute link
 * turns about axis, a prismatic one slides along it (axis in the joint frame).
 * A link's centre of mass and inertia are given in its own frame. */
#ifndef MOREAU_ARTICULATION_H
#define MOREAU_ARTICULATION_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* an articulation; {0} is the null id */
typedef struct mo_articulation_id { uint32_t index; uint32_t generation; } mo_articulation_id;
/* true for the null articulation id (generation 0) */
static inline bool mo_articulation_id_is_null(mo_articulation_id id) { return id.generation == 0; }

#define MO_LINKS_MAX 10000       /* links of one articulation */
#define MO_LINK_NAME_LEN 32      /* bytes of a link's name with its terminating 0 (longer names are refused) */

/* a link's joint to its parent (the world for the root) */
typedef enum mo_link_joint {
    MO_LINK_FIXED = 0,   /* welded: no coordinate */
    MO_LINK_REVOLUTE,    /* hinge about axis */
    MO_LINK_PRISMATIC,   /* slider along axis */
    MO_LINK_SPHERICAL,   /* ball joint */
    MO_LINK_FREE,        /* 6 dofs: the root (link 0) only; a floating base */
} mo_link_joint;

/* how an articulation's dynamics are integrated (its drives and damping are implicit in both) */
typedef enum mo_articulation_integrator {
    MO_INTEGRATOR_MIDPOINT = 0, /* implicit midpoint (fixed-point iteration, 4-7 factorisations a step): no secular
                                 * energy drift; the default */
    MO_INTEGRATOR_EULER,        /* semi-implicit Euler (one factorisation a step): the contact solvers' form; gains
                                 * energy on multi-link trees (17 % over 10 s on a double pendulum at 120 Hz) */
} mo_articulation_integrator;

/* One link and its joint. Start from mo_default_link_def(); mo_articulation_create refuses values out of the
 * ranges below. */
typedef struct mo_link_def {
    const char *name;            /* may be NULL; shorter than MO_LINK_NAME_LEN bytes, unique among the
                                  * articulation's named links; copied */
    int parent;                  /* -1 for link 0 (the root), else 0 <= parent < this link's index; default -1 */
    mo_link_joint joint;         /* default MO_LINK_REVOLUTE */
    mo_vec3 axis;                /* revolute/prismatic axis in the joint frame, finite, non-zero (normalised);
                                  * default (0, 0, 1) */
    mo_vec3 joint_position;      /* the joint frame's origin in the parent link's frame, m (|.| <= MO_LENGTH_MAX) */
    mo_quat joint_orientation;   /* the joint frame's orientation in the parent's frame, finite non-zero
                                  * (normalised); default identity */
    double mass;                 /* kg, in [MO_MASS_MIN, MO_MASS_MAX], or 0 for a massless frame (zero inertia);
                                  * default 1 */
    mo_vec3 com;                 /* centre of mass in the link frame, m */
    mo_mat3 inertia;             /* about the centre of mass, link axes, kg m^2, symmetric positive definite
                                  * (entries within MO_INERTIA_MAX); default diag(0.01) */
    double damping;              /* viscous joint damping per dof, N m s/rad or N s/m, finite >= 0 (implicit);
                                  * default 0 */
    double armature;             /* rotor inertia added to the mass matrix's diagonal per dof, kg m^2 or kg, finite
                                  * >= 0; default 0 */
    int internal_value;          /* set by mo_default_link_def(); do not touch */
} mo_link_def;

/* The default link def (see the fields); the only valid start for a mo_link_def. */
MO_API mo_link_def mo_default_link_def(void);

/* An articulation to create. Start from mo_default_articulation_def(). */
typedef struct mo_articulation_def {
    const mo_link_def *links;    /* link_count defs, parents before children; not NULL; copied */
    int link_count;              /* in [1, MO_LINKS_MAX] */
    mo_vec3 base_position;       /* a fixed base (any root joint but free): where the root's joint frame is placed
                                  * (the root's joint_position/orientation are then taken in this base frame);
                                  * a free base: the root link's initial world pose (the root's joint pose is
                                  * ignored, q holds the world pose). m; default origin */
    mo_quat base_orientation;    /* finite non-zero (normalised); default identity */
    mo_articulation_integrator integrator; /* default MO_INTEGRATOR_MIDPOINT */
    int internal_value;          /* set by mo_default_articulation_def(); do not touch */
} mo_articulation_def;

/* The default articulation def (no links: refused until links are given); the only valid start. */
MO_API mo_articulation_def mo_default_articulation_def(void);
/* Creates an articulation at its reference configuration (q = 0, identity quaternions; a free base at the base
 * pose) at rest, with no torques and every drive off (mo_default_joint_drive). def and out must not be NULL;
 * *out is the new id or the null id on failure. MO_ERR_INVALID_ARGUMENT with a sentence naming the link and the
 * value for a def not from its default, a bad value (ranges above), a parent not before its link, a free joint
 * that is not the root's, a duplicate name, or a mass matrix that is singular at the reference configuration (a
 * massless link on a moving joint without armature); MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_articulation_create(mo_world *w, const mo_articulation_def *def, mo_articulation_id *out);
/* Destroys an articulation (its id becomes stale). MO_ERR_STALE_ID for a stale or foreign id. */
MO_API mo_status mo_articulation_destroy(mo_world *w, mo_articulation_id id);
/* true when id names a live articulation of this world */
MO_API bool mo_articulation_is_valid(const mo_world *w, mo_articulation_id id);
/* The live articulations of w in slot order (creation order unless some were destroyed): writes up to cap of
 * them into out (may be NULL) and returns how many there are; 0 for a NULL w. */
MO_API int mo_world_articulations(const mo_world *w, mo_articulation_id *out, int cap);
/* Sizes: links, coordinates nq and velocities nv (each pointer may be NULL). MO_ERR_STALE_ID. */
MO_API mo_status mo_articulation_size(const mo_world *w, mo_articulation_id id, int *links, int *nq, int *nv);
/* The index of the link called name into *out (both not NULL). MO_ERR_INVALID_ARGUMENT when no link has that
 * name; MO_ERR_STALE_ID. Every per-link call below takes the index: this is the lookup by name. */
MO_API mo_status mo_articulation_find_link(const mo_world *w, mo_articulation_id id, const char *name, int *out);
/* Where link's joint sits in q and qdot: offsets and counts (each pointer may be NULL). MO_ERR_INVALID_ARGUMENT
 * for a link out of range; MO_ERR_STALE_ID. */
MO_API mo_status mo_articulation_joint_dofs(const mo_world *w, mo_articulation_id id, int link, int *q_ofs, int *nq,
                                            int *v_ofs, int *nv);

/* ---- joint-space state ----
 * Bulk arrays: count is the number of doubles the buffer holds and must be at least nq (q) or nv (qdot,
 * torques); MO_ERR_INVALID_ARGUMENT otherwise. Setters check every value first (finite, coordinates within
 * MO_LENGTH_MAX, velocities within MO_SPEED_MAX, quaternions non-zero: normalised here) and change nothing on
 * error. A new state takes effect at once for the queries and from the next step for the dynamics. */
MO_API mo_status mo_articulation_get_q(const mo_world *w, mo_articulation_id id, double *q, int count);
MO_API mo_status mo_articulation_set_q(mo_world *w, mo_articulation_id id, const double *q, int count);
MO_API mo_status mo_articulation_get_qdot(const mo_world *w, mo_articulation_id id, double *qdot, int count);
MO_API mo_status mo_articulation_set_qdot(mo_world *w, mo_articulation_id id, const double *qdot, int count);
/* One joint: q (its nq values) and qdot (its nv values) of link's joint; either may be NULL (not read or written;
 * both NULL is allowed). A fixed joint has none. Checks as the bulk calls; MO_ERR_INVALID_ARGUMENT for a link out
 * of range. */
MO_API mo_status mo_articulation_get_joint(const mo_world *w, mo_articulation_id id, int link, double *q,
                                           double *qdot);
MO_API mo_status mo_articulation_set_joint(mo_world *w, mo_articulation_id id, int link, const double *q,
                                           const double *qdot);

/* ---- inputs: joint torques, drives, damping (all held until changed; part of the saved state) ----
 * Joint torques (N m or N per dof, within MO_FORCE_MAX) act in every step until they are changed or cleared
 * (unlike mo_body_apply_force they are NOT consumed by a step). */
MO_API mo_status mo_articulation_set_torques(mo_world *w, mo_articulation_id id, const double *tau, int count);
/* link's joint torques (its nv values; tau not NULL) */
MO_API mo_status mo_articulation_set_joint_torque(mo_world *w, mo_articulation_id id, int link, const double *tau);
/* every joint torque to 0 */
MO_API mo_status mo_articulation_clear_torques(mo_world *w, mo_articulation_id id);

/* A PD drive on a revolute or prismatic joint:
 *   tau = torque - stiffness (q - target_position) - damping (qdot - target_velocity),  |tau| <= max_effort,
 * taken implicitly: the step evaluates it at q + h qdot+ and qdot+ (the end of the step), so that any gain is
 * stable at any time step (the factor gets h damping + h^2 stiffness on the diagonal, the targets go to the
 * right-hand side). When the implicit drive torque of a step would exceed max_effort the drive is saturated for
 * that step: it is replaced by the explicit torque +-max_effort (the sign of the implicit one) and the step is
 * solved again; the torque applied is then exactly max_effort. Joint damping (mo_link_def.damping) is
 * separate and not limited. */
typedef struct mo_joint_drive {
    double stiffness;            /* N m/rad or N/m, finite >= 0 */
    double damping;              /* N m s/rad or N s/m, finite >= 0 */
    double target_position;      /* rad or m, |.| <= MO_LENGTH_MAX (revolute targets are not wrapped) */
    double target_velocity;      /* feed-forward velocity, rad/s or m/s, |.| <= MO_SPEED_MAX */
    double torque;               /* feed-forward torque, N m or N, |.| <= MO_FORCE_MAX */
    double max_effort;           /* > 0, N m or N; INFINITY: no limit */
} mo_joint_drive;
/* the drive that does nothing: gains, targets and torque 0, max_effort INFINITY */
MO_API mo_joint_drive mo_default_joint_drive(void);
/* Sets (drive not NULL) link's drive from the next step on. MO_ERR_INVALID_ARGUMENT for a joint that is not
 * revolute or prismatic, a link out of range or a bad value (drive unchanged). */
MO_API mo_status mo_articulation_set_drive(mo_world *w, mo_articulation_id id, int link, const mo_joint_drive *drive);
/* link's drive into *out (not NULL); a joint without a drive reads mo_default_joint_drive(). */
MO_API mo_status mo_articulation_drive(const mo_world *w, mo_articulation_id id, int link, mo_joint_drive *out);
/* Sets link's joint damping (N m s/rad or N s/m per dof, finite >= 0; implicit). */
MO_API mo_status mo_articulation_set_joint_damping(mo_world *w, mo_articulation_id id, int link, double damping);

/* ---- joint limits and dry friction: rows of the contact problem ----
 * A limit lower <= q <= upper on a revolute or prismatic joint (rad or m, on the never-wrapped coordinate: limits
 * beyond +-pi act; -INFINITY / INFINITY: no bound on that side) is one unilateral row per finite bound, and dry joint
 * friction (|tau_f| <= friction, N m or N; 0: none) a boxed row holding qdot = 0 until the bound: rows of the
 * step's contact problem with J = +-e_k on the joint's dof and W = (M + diag(a))^-1 J^T, solved with the contacts
 * by the velocity-level solvers (a limit is speculative: the joint may reach it within the step, no further;
 * past it, it is pushed back at most at max_push_velocity). Changeable at any time; none by default. MO_ERR_INVALID_ARGUMENT
 * for another joint type, lower > upper, NaN, a finite bound beyond MO_LENGTH_MAX, friction outside
 * [0, MO_FORCE_MAX]. */
MO_API mo_status mo_articulation_set_limits(mo_world *w, mo_articulation_id id, int link, double lower, double upper);
/* link's limits (either pointer may be NULL) */
MO_API mo_status mo_articulation_limits(const mo_world *w, mo_articulation_id id, int link, double *lower,
                                        double *upper);
MO_API mo_status mo_articulation_set_joint_friction(mo_world *w, mo_articulation_id id, int link, double friction);
/* A mimic joint (URDF <mimic>): link's coordinate follows leader's, q_link = multiplier q_leader + offset, held by a
 * bilateral row J = e_link - multiplier e_leader (both revolute or prismatic, leader != link; leader < 0 removes
 * it). MO_ERR_INVALID_ARGUMENT for other joints, a link mimicking
 * itself, or a multiplier beyond MO_FORCE_MAX / an offset beyond MO_LENGTH_MAX (or not finite). */
MO_API mo_status mo_articulation_set_mimic(mo_world *w, mo_articulation_id id, int link, int leader, double multiplier,
                                           double offset);
/* A cone limit on a spherical joint (MJCF's ball range, MuJoCo's rule): the joint's rotation angle theta = 2
 * atan2(|(x, y, z)|, |w|) of its quaternion (rad, in [0, pi]: how far the child is turned from its joint frame
 * about any axis, so every axis of the child stays within angle of where it is at q = identity; for a swing
 * without twist, the angle between the child's axis and the parent's) held <= angle by one unilateral row of
 * the contact problem, J = -n on the joint's three dofs (n the quaternion's rotation axis: theta' = n . qdot),
 * g = angle - theta, speculative and pushed back as the limits above. angle in [0, pi] rad, or INFINITY: none
 * (the default). Its force is in mo_articulation_constraint_forces (-n times the row's force, on the joint's
 * dofs, n at the current q). MO_ERR_INVALID_ARGUMENT for a joint that is not spherical, a link out of range or
 * angle outside [0, pi] (not INFINITY); MO_ERR_STALE_ID. */
MO_API mo_status mo_articulation_set_cone_limit(mo_world *w, mo_articulation_id id, int link, double angle);
/* link's cone limit into *angle (not NULL; INFINITY: none). Errors as above. */
MO_API mo_status mo_articulation_cone_limit(const mo_world *w, mo_articulation_id id, int link, double *angle);
/* The joint forces of the last step's limit, friction and mimic rows, per dof (N m or N; count >= nv): what the limits
 * and the dry friction applied, a sensor-like read (0 for dofs without such rows, and before any step). */
MO_API mo_status mo_articulation_constraint_forces(const mo_world *w, mo_articulation_id id, double *tau, int count);
/* The joint reaction of link's joint over the last step, a sensor-like read: the force and torque its parent exerts
 * on the link through the joint (N, N m), world axes, the torque about the link frame's origin (the joint's). It is
 * the whole wrench the joint transmits: its component along the joint's motion axes is the joint force (torques,
 * drives, damping, limit, friction and mimic rows; armature excepted), the rest the constraint reaction. Computed
 * by recursive Newton-Euler at the current state with the step's mean accelerations (v+ - v) / h, gravity, the
 * forces applied to the link bodies in that step and their contact forces (mo_body_contact_force). A free root's
 * wrench is zero (to round-off) unless torques act on it. Zero before the first step and after a state restore
 * until the next step. Either output may be NULL. MO_ERR_INVALID_ARGUMENT for a link out of range;
 * MO_ERR_STALE_ID; MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_articulation_joint_wrench(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *force,
                                              mo_vec3 *torque);

/* ---- link bodies: collision shapes, contacts and applied forces on links ----
 * A link's body (*out) is a body of the world that moves with the link: its frame is the link frame (origin and
 * axes), its pose and velocity are the link's after every step and every write of q or qdot. Give it shapes with
 * mo_shape_create (a plane excepted) and it collides: its contacts are rows of the contact problem on the
 * articulation's dofs (J maps qdot to the contact velocities, the articulation's joint-space M^-1 applies), solved
 * with every other contact by the contact solvers (PGS, Jacobi, APGD, P-SPG-FB, Newton). Its
 * contacts read back as every body's (mo_world_contacts, mo_body_contact_force); mo_body_apply_force(_at) on it
 * acts on the articulation for the next step (the joint forces J^T f); collision groups, masks and
 * mo_world_set_pair_collision apply to it. The link bodies of a parent and its child never collide with each
 * other; other links of one articulation do, unless the articulation has a collision group
 * (mo_articulation_set_collision_group: no two of its links collide) or the pair is excluded
 * (mo_world_set_pair_collision). A link body's group is its articulation's. The first call for
 * a link makes its body (it reports as MO_BODY_KINEMATIC), later calls return the same one; it goes with the
 * articulation. The calls that would move it or give it mass apart from its link (mo_body_set_pose,
 * mo_body_set_velocity, mo_body_set_mass_from_shapes, mo_body_destroy) refuse it with MO_ERR_INVALID_ARGUMENT and a
 * sentence naming the articulation and link. MO_ERR_INVALID_ARGUMENT for a link out of range; MO_ERR_STALE_ID;
 * MO_ERR_OUT_OF_MEMORY. */
MO_API mo_status mo_articulation_link_body(mo_world *w, mo_articulation_id id, int link, mo_body_id *out);
/* Sets the collision group of the articulation's link bodies, with mo_body_def.collision_group's rule: bodies
 * sharing a non-zero group never collide. Every link body it has and every one mo_articulation_link_body makes
 * later gets group (mo_body_collision_group reads it on each); 0 (the default) is none. A group keeps all its
 * links apart at no cost per pair: the broadphase drops same-group pairs before any filter, with no pair
 * exclusion stored (n(n-1)/2 of them would do the same for n link bodies). Other bodies and articulations given
 * the same group never collide with its links either. From the next step on; model, like the
 * exclusions: not in mo_world_save_state. MO_ERR_STALE_ID for a stale or foreign id. */
MO_API mo_status mo_articulation_set_collision_group(mo_world *w, mo_articulation_id id, uint32_t group);
/* The articulation's collision group (0: none) into *out (not NULL). MO_ERR_STALE_ID. */
MO_API mo_status mo_articulation_collision_group(const mo_world *w, mo_articulation_id id, uint32_t *out);

/* ---- queries at the current state (the world's gravity) ---- */
/* link's frame in the world: origin (m) and orientation (unit quaternion); either may be NULL */
MO_API mo_status mo_articulation_link_pose(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *position,
                                           mo_quat *orientation);
/* link's spatial velocity in world axes: angular (rad/s) and the velocity of the link frame's origin (m/s); either
 * may be NULL */
MO_API mo_status mo_articulation_link_velocity(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *angular,
                                               mo_vec3 *linear);
/* The joint-space mass matrix M(q) (CRBA, armature on the diagonal), dense, row-major, nv x nv into M (count >=
 * nv * nv doubles); symmetric positive definite. */
MO_API mo_status mo_articulation_mass_matrix(const mo_world *w, mo_articulation_id id, double *M, int count);
/* The bias forces c(q, qdot) (Coriolis, centrifugal and gravity: M qddot + c = tau) into c (count >= nv). */
MO_API mo_status mo_articulation_bias_forces(const mo_world *w, mo_articulation_id id, double *c, int count);
/* The joint torques that hold the articulation still at q against gravity (RNEA with qdot = qddot = 0). */
MO_API mo_status mo_articulation_gravity_compensation(const mo_world *w, mo_articulation_id id, double *tau,
                                                      int count);
/* Inverse dynamics (RNEA): tau = M(q) qddot + c(q, qdot), the torques that give the accelerations qddot (nv
 * values, not NULL, finite) at the current state; count >= nv is tau's size. */
MO_API mo_status mo_articulation_inverse_dynamics(const mo_world *w, mo_articulation_id id, const double *qddot,
                                                  double *tau, int count);
/* The Jacobian of the point fixed on link at point (link frame, m): its world velocity is jv qdot and the link's
 * world angular velocity jw qdot; jv and jw are 3 x nv row-major (count >= 3 nv each), either may be NULL. */
MO_API mo_status mo_articulation_jacobian(const mo_world *w, mo_articulation_id id, int link, mo_vec3 point,
                                          double *jv, double *jw, int count);
/* Kinetic energy (J; the armature's share included) and potential energy in the world's gravity (J, zero at the
 * world origin); either may be NULL. */
MO_API mo_status mo_articulation_energy(const mo_world *w, mo_articulation_id id, double *kinetic, double *potential);

/* The fixed-point iterations the last step's prediction took (*out, not NULL): 1 with MO_INTEGRATOR_EULER; with
 * the midpoint 2 or more (4-7 is usual), or -30 when its tolerance (a change of at most 1e-12 (1 + max |qdot+|))
 * was not met in 30 iterations and the last iterate was taken (stiff trees at long steps); 0 before the first step
 * (and after a restore). */
MO_API mo_status mo_articulation_iterations(const mo_world *w, mo_articulation_id id, int *out);

#ifdef __cplusplus
}
#endif
#endif
