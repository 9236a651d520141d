/* world.h: the engine's data model (not installed): the world and its
 * objects (bodies, shapes, particles, joints), this step's contacts and the
 * contact cache, and the calls the model files share.
 *
 * Objects live in slot arrays with a generation per slot; ids carry
 * (slot index + 1, generation) so that the zeroed id is null. Per-step
 * scratch (DOF maps, rows, CSR arrays, solver vectors) lives in growable
 * buffers owned by the world: they grow between steps while sizes change and
 * are never freed inside a step. The model includes core/, kernels/,
 * solver/ and collision/; the step (step/) is above it. */
#ifndef MO_WORLD_H
#define MO_WORLD_H

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include "core/core.h"
#include "kernels/dynamics.h"
#include "kernels/rows.h"
#include "kernels/cone.h"
#include "solver/solver.h"
#include "collision/collide.h"
#include "collision/shapes.h"
#include "artic/artic.h"

/* ---- objects ---- */

typedef struct mo_body {
    uint32_t generation;       /* odd = alive? no: alive flag below; generation >= 1 once used */
    bool alive;
    bool no_sleep;             /* mo_body_set_sleep_allowed(false): never sleeps, nor does its island */
    bool moved;                /* a kinematic body moved by the API (pose, velocity) since the last step: counts as
                                  moving in the next collide stage (wakes the sleeping bodies it touches) */
    mo_body_type type;
    int sleep_island;          /* asleep: 1 + the smallest body slot of its island (the island's id); 0 awake
                                  (the flags and this fill the padding: the rollback copies bodies every step) */
    mo_k_body k;               /* pose, velocity, forces, mass data (kernel view) */
    double mass;
    int first_shape;           /* head of the body's shape list, -1 when none */
    int nshapes;
    uint32_t group;
    int owner;                 /* this step's DOF owner index, -1 when not dynamic */
    int njoints;               /* joints attached (for filtering and destroy) */
    int nexcl;                 /* pairs excluded with it (mo_world_set_pair_collision; filtering and destroy) */
    int artic, link;           /* a link body (mo_articulation_link_body): articulation slot + 1 and link index;
                                  artic 0: an ordinary body. A link body is kinematic: its pose and velocity are
                                  the link's (artic_links.c sets them), its contacts are rows on the articulation's
                                  dofs (assemble.c) */
    double rest_time;          /* sleeping (issue 21; model/sleep.c, step/island.c): s the body has stayed under
                                  the sleep thresholds (0 when above them) */
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

#define MO_ARTIC_ROWS_PER_DOF 4 /* an articulation dof's possible rows: lower, upper, friction, mimic (artic_rows.c) */

/* an articulation (model/articulation.c; stepped by step/artic_step.c). Its per-dof arrays are one allocation
 * (buf), made at creation: a step allocates nothing. */
typedef struct mo_artic_obj {
    uint32_t generation;
    bool alive;
    int integrator;            /* mo_articulation_integrator */
    mo_artic_model *m;         /* the constant tree */
    mo_artic_data *d;          /* the step's workspace */
    mo_artic_data *qd;         /* the queries' workspace (queries on a const world write only here) */
    double *buf;               /* owns the arrays below */
    double *q, *v;             /* the state: (nq), (nv) */
    double *tau;               /* (nv) joint torques, held until changed */
    double *kp, *kd, *qt, *vt, *ff, *effort; /* (nv) drives: gains, target position and velocity, feed-forward
                                * torque, effort limit (INFINITY: none); kp = kd = ff = 0: off */
    double *damping, *armature; /* (nv) */
    double *v_new;             /* (nv) the step's new velocity (prediction -> integration) */
    double *diag, *force, *sat; /* (nv) step scratch: the implicit diagonal, the explicit forces, saturated drives */
    int last_iters;            /* the midpoint iterations of the last step (< 0: not converged) */
    double *text;              /* (nv) step scratch: the joint forces of the forces applied to its link bodies */
    double *acc;               /* (nv) the last step's mean acceleration (v+ - v) / h (mo_articulation_joint_wrench) */
    double *fapp;              /* (6 nlink) the last step's forces applied to its link bodies, spatial, world
                                  (moment about the world origin, force; mo_artic_point_force's form) */
    double acc_h;              /* the (sub)step length acc is of (0: no step since creation or a restore) */
    int *link_body;            /* (nlink) the body slot of each link's link body, -1 none (artic_links.c) */
    int nlink_bodies;          /* link bodies made */
    uint32_t group;            /* the collision group of its link bodies (mo_articulation_set_collision_group; 0: none) */
    int dof0;                  /* this step: the first of its nv entries in the DOF vector (predict.c) */
    double *lower, *upper;     /* (nv) joint limits (-inf / inf: none; one-dof joints only), rows of the problem */
    double *fric;              /* (nv) dry joint friction (N m or N; 0: none), a boxed row */
    double *mimic_src, *mimic_k, *mimic_off; /* (nv) a mimic: the leader dof (-1: none), multiplier and offset
                                  (q_k = mimic_k q_leader + mimic_off, a bilateral row) */
    double *imp;               /* (MO_ARTIC_ROWS_PER_DOF nv) the last impulses of each dof's lower, upper, friction and
                                  mimic rows (warm start) */
    double last_h;             /* the (sub)step length of the last solve of those rows (0: none yet) */
    int row0, nrows;           /* this step: its limit and friction rows (assemble.c) */
    int touched;               /* this step: a contact, limit or friction row on its dofs has a non-zero impulse (solve.c;
                                  the integration is then semi-implicit Euler, artic_step.c) */
} mo_artic_obj;

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
    /* read-back only (mo_world_contacts, mo_body_contact_force; the step never reads them): the length of
       the (sub)step whose solve wrote impulse (s; 0 until a solve did), and each body's lever arm from its
       centre of mass to its contact point pa, pb at the collide stage (world, m; 0 for no body, a particle) */
    double h, ra[3], rb[3];
} mo_contact_int;

/* previous step's contact impulses, sorted by key, for warm starting */
typedef struct mo_contact_cache {
    uint64_t key;
    double point[3];           /* world contact point (midway), for matching when features change */
    double impulse_world[3];   /* total impulse on b as a world vector */
    double normal_impulse;
    double fric_w, fric_k;     /* see mo_contact_int */
} mo_contact_cache;

/* The world's growable buffers (mo_buf, grown between steps, never shrunk), in one list: declared
 * in mo_world below and freed together by mo_world_destroy, so a new buffer is one entry here. */
#define MO_WORLD_BUFS(X)                                                                                 \
    /* this step's DOF owners (owner_ref: +slot body, -(slot+1) particle) and velocities */             \
    X(owner_dof) X(owner_ndof) X(owner_inv_mass) X(owner_inv_I) X(owner_ref) X(owner_constrained)        \
    X(v) X(v_tilde) X(v_start)                                                                           \
    /* collision objects, contacts, displacements, per-object motion and filter data (step/collide.c) */ \
    X(cl_objs) X(cl_contacts) X(cl_disp) X(cl_info) X(cl_sleep)                                           \
    /* world queries (shape.c): plane shape slots, candidate scratch */                                  \
    X(q_planes) X(q_hits)                                                                                \
    /* this step's contacts, the previous step's impulses (warm start) */                                \
    X(contacts) X(cache)                                                                                 \
    /* the assembled rows, blocks and CSR arrays (step/assemble.c) */                                   \
    X(rows) X(row_aux) X(row_g) X(row_sigma) X(row_b) X(row_lo) X(row_hi) X(row_diag) X(row_r) X(gamma)  \
    X(block_row) X(block_kind) X(block_mu) X(block_inv) X(inv) X(block_eta)                              \
    X(row_ptr) X(col) X(val) X(wval)                                                                     \
    /* the articulations' rows: extra non-zeros per row, Jacobian and force scratch (assemble.c, artic_step.c) */ \
    X(row_artic) X(artic_scratch)                                                                        \
    /* the solve's scratch and histories, the joint filter's keys, room for mo_sort_stable */           \
    X(scratch) X(res_hist) X(err_hist) X(joint_pairs) X(sort_tmp)                                  \
    /* pairs of bodies excluded from collision (mo_world_set_pair_collision), sorted keys */            \
    X(excl_pairs)                                                                                        \
    /* islands (step/island.c): union-find parents, per-root rest time and flags */                    \
    X(isl_parent) X(isl_rest) X(isl_flag)

/* the last error's sentence (mo_set_error), written under a spin lock so that failing calls from
   several threads on one world do not tear it */
typedef struct mo_err_text {
    atomic_flag lock;
    char text[MO_ERR_LEN];
} mo_err_text;

/* ids carry their world: a generation is (world tag << MO_GEN_BITS) | per-slot counter. Tags run
   1..MO_TAG_MAX and repeat after MO_TAG_MAX worlds have been created; tag 0 is no world's. */
#define MO_GEN_BITS 20u
#define MO_GEN_MASK ((1u << MO_GEN_BITS) - 1u)
#define MO_TAG_MAX ((1u << (32u - MO_GEN_BITS)) - 1u)

/* the generation a slot takes when it is (re)used: the counter after old's, never 0 */
#define mo_gen_next(w, old) \
    (((w)->tag << MO_GEN_BITS) | ((((old) & MO_GEN_MASK) + 1u > MO_GEN_MASK) ? 1u : (((old) & MO_GEN_MASK) + 1u)))
/* true when a generation was handed out by another world (a foreign id) */
#define mo_gen_foreign(w, gen) (((gen) >> MO_GEN_BITS) != 0u && ((gen) >> MO_GEN_BITS) != (w)->tag)

struct mo_world;
/* the end of a bad-id sentence: what (e.g. "does not name a live body"), or "belongs to another
   world" when the id's generation carries another world's tag */
#define mo_id_fault(w, gen, what) (mo_gen_foreign((w), (gen)) ? "belongs to another world" : (what))

typedef struct mo_world {
    mo_world_def def;
    double time;
    uint64_t step_index;
    mo_err_text *err;          /* the last failure's sentence: a separate object, so that const calls that
                                * fail can write it without casting the world's const away */
    uint32_t tag;              /* this world's tag in the high bits of every id's generation (mo_gen_next) */

    mo_body *bodies; int body_cap, body_count; int *body_free; int body_nfree;
    mo_shape *shapes; int shape_cap, shape_count; int *shape_free; int shape_nfree;
    mo_particle *particles; int particle_cap, particle_count; int *particle_free; int particle_nfree;
    mo_joint *joints; int joint_cap, joint_count; int *joint_free; int joint_nfree;
    mo_artic_obj *artics; int artic_cap, artic_count; int *artic_free; int artic_nfree;

    /* this step */
#define MO_WORLD_BUF_FIELD(name) mo_buf name;
    MO_WORLD_BUFS(MO_WORLD_BUF_FIELD)
#undef MO_WORLD_BUF_FIELD
    int nowners;               /* DOF owners this step */
    int artic_contacts;        /* this step's contacts with a link body side (assemble.c; the Newton step refuses them) */
    int artic_limit_rows;      /* this step's articulation limit and friction rows (likewise) */
    int ncl;                   /* collision objects */
    mo_cl_pairs pairs;         /* broadphase pairs */
    mo_cl_broadphase_tree *bp; /* dynamic AABB trees (static and moving), incremental across steps */
    /* world queries (shape.c): the trees hold the current poses (cleared by steps and pose or shape
       changes), the plane count, the largest shape margin */
    int q_synced, q_nplanes;
    double q_margin;
    int ncontacts, ncache;     /* this step's contacts, the previous step's cached ones */
    int rows_assembled;        /* rows of the last step's assembled problem (row_* buffers; the contacts' rows last) */
    int njoint_pairs;          /* sorted (min slot, max slot) keys of non-colliding joined bodies in joint_pairs */
    int nexcl_pairs;           /* sorted (min slot, max slot) keys of excluded body pairs in excl_pairs (model:
                                * kept across steps, entries of a destroyed body dropped with it) */
    struct mo_device *device;  /* the CUDA device context (backend/device.h) while the backend is cuda or auto
                                * and a device opened, else NULL */
    void *cholmod_cache;       /* MO_SOLVER_CHOLESKY's cache across steps (solver/cholesky.c), NULL until used */
    mo_owned proj;             /* step/project.c's buffers (and its own CHOLMOD cache), NULL until used */
    mo_owned newton;           /* step/newton.c's buffers (MO_SOLVER_NEWTON), NULL until used */
    void *fem;                 /* fem_mesh.c's FEM meshes (fem.h), NULL until the first mesh */
    mo_buf halve[MO_HALVINGS_MAX]; /* step/step.c: the world's state at the start of a step at each halving depth */
    mo_buf guard, guard_contacts;  /* step/step.c: the state, and the contact list, before mo_world_step (rollback) */
    int guard_ncontacts;
    mo_step_stats guard_stats;
    const char *fail_stage;        /* step/step.c: the stage that ran out of memory (a static name) */
    mo_step_stats stats;
} mo_world;

/* ---- argument checks of the public calls ---- */

/* a NULL world: MO_ERR_INVALID_ARGUMENT without a sentence (there is no world to hold it) */
#define MO_NEED_W(w)                                        \
    do {                                                    \
        if (!(w)) return MO_ERR_INVALID_ARGUMENT;           \
    } while (0)
/* a required pointer argument: "<function>: <name> must not be NULL" */
#define MO_NEED(w, p, name)                                                        \
    do {                                                                           \
        if (!(p)) {                                                                \
            mo_set_error((w), "%s: %s must not be NULL", __func__, (name));        \
            return MO_ERR_INVALID_ARGUMENT;                                        \
        }                                                                          \
    } while (0)

/* finite with every component in [-lim, lim] (moreau.h's MO_*_MAX limits) */
static inline bool mo_within3(mo_vec3 v, double lim)
{
    return fabs(v.x) <= lim && fabs(v.y) <= lim && fabs(v.z) <= lim; /* false for NaN */
}

/* ---- the model's shared calls ---- */
void mo_set_error(const mo_world *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

mo_body *mo_body_get(const mo_world *w, mo_body_id id);
mo_shape *mo_shape_get(const mo_world *w, mo_shape_id id);
/* validates a shape def for a body of the given type; writes the sentence */
MO_MUST_USE int mo_shape_check_def(mo_world *w, const mo_shape_def *d, mo_body_type body_type);
/* attaches a validated shape; returns the slot or -1 (out of memory, or hull/mesh build failure: sentence set) */
MO_MUST_USE int mo_shape_attach(mo_world *w, int body_slot, const mo_shape_def *d);
void mo_shape_release(mo_world *w, int slot);
/* collision object of a shape at its body's current pose */
void mo_shape_object(const mo_world *w, int slot, mo_cl_object *o);
/* unit-density mass properties of a shape in its body's frame: 0, or -1 when it has no volume */
MO_MUST_USE int mo_shape_unit_mass(const mo_world *w, int slot, mo_cl_mass *m);
mo_joint *mo_joint_get(const mo_world *w, mo_joint_id id);
mo_particle *mo_particle_get(const mo_world *w, mo_particle_id id);

/* every setting of d checked as mo_world_create checks them (and the FEM meshes' solver), then
 * w->def = *d; MO_ERR_INVALID_ARGUMENT with the sentence, world unchanged (settings.c) */
MO_MUST_USE mo_status mo_world_apply_def(mo_world *w, const mo_world_def *d);

/* ---- FEM meshes as model objects (fem_mesh.c; storage in fem.h) ----
 * mo_fem_live_meshes: meshes alive; mo_fem_world_free frees w->fem;
 * mo_fem_attached_to: 1 when a live attachment joins mesh slot and body slot
 * (the collide stage does not pair them); mo_fem_attach_count: live ones;
 * mo_fem_particle_skip: per particle slot 1 for a mesh's interior node (no
 * collision object), NULL when there is no mesh (or out of memory).
 * Newton step halving (step/step.c) saves the FEM state a step changes at its
 * start (size in bytes, save into a buffer of that size) and restores it after
 * the step is undone. */
int mo_fem_live_meshes(const mo_world *w);
void mo_fem_world_free(mo_world *w);
int mo_fem_attached_to(const mo_world *w, int mesh_slot, int body_slot);
int mo_fem_attach_count(const mo_world *w);
const unsigned char *mo_fem_particle_skip(mo_world *w);
size_t mo_fem_state_size(const mo_world *w);
void mo_fem_state_save(const mo_world *w, void *buf);
void mo_fem_state_restore(mo_world *w, const void *buf);

/* ---- sleeping (model/sleep.c; the islands: step/island.c) ----
 * mo_sleep_wake_island: wakes body slot s's island when it sleeps (every body of the
 * same sleep_island: velocities stay zero, rest times restart); mo_sleep_wake_all:
 * every sleeping body; mo_sleep_touch: a body the caller changed (force, pose,
 * velocity, mass, shapes, joints): a dynamic one's island wakes and its rest
 * time restarts; a kinematic one is marked moved (mo_body.moved); static: nothing. */
void mo_sleep_wake_island(mo_world *w, int s);
void mo_sleep_wake_all(mo_world *w);
void mo_sleep_touch(mo_world *w, int s);
/* 1 when joint j's rows are left out of this step: no side is an awake dynamic body and a side sleeps
   (the joint sleeps with its island; its impulses are kept for the warm start after waking) */
static inline int mo_joint_asleep(const mo_world *w, const mo_joint *j)
{
    const mo_body *a = j->a >= 0 ? &w->bodies[j->a] : NULL, *b = j->b >= 0 ? &w->bodies[j->b] : NULL;
    if (!(a && a->sleep_island) && !(b && b->sleep_island)) return 0;
    return !(a && a->type == MO_BODY_DYNAMIC && !a->sleep_island) && !(b && b->type == MO_BODY_DYNAMIC && !b->sleep_island);
}

/* ---- pair exclusion (body.c) ---- */
/* the (min slot, max slot) key of a body pair, as in joint_pairs and excl_pairs */
static inline uint64_t mo_pair_key(int a, int b)
{
    if (a > b) { int t = a; a = b; b = t; }
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}
/* 1 when the pair of body slots a, b was excluded with mo_world_set_pair_collision */
int mo_pair_excluded(const mo_world *w, int a, int b);
/* ---- articulations (articulation.c) ----
 * mo_artic_world_free frees every articulation (mo_world_destroy); the state
 * a step changes (every live articulation's q, v and limit rows' impulses) for the step's rollback
 * and Newton halving: its size in bytes, saved into and restored from a
 * buffer of that size; mo_artic_hash folds the live articulations' q and v
 * into the state hash h. */
void mo_artic_world_free(mo_world *w);
size_t mo_artic_state_size(const mo_world *w);
void mo_artic_state_save(const mo_world *w, void *buf);
void mo_artic_state_restore(mo_world *w, const void *buf);
uint64_t mo_artic_hash(const mo_world *w, uint64_t h, uint64_t (*fold)(uint64_t, const void *, size_t));
/* ---- link bodies (artic_links.c) ----
 * mo_artic_sync_bodies: articulation a's link bodies to its links' poses and velocities at its (q, v), through
 * its query workspace; mo_artic_destroy_bodies: destroys them (mo_articulation_destroy);
 * mo_link_body_refuse: for an API call fn that cannot act on a link body: 1 and the sentence "<fn>: body <i>
 * is link <l> of articulation <a>: <what>" when body slot s is one, else 0. */
void mo_artic_sync_bodies(mo_world *w, mo_artic_obj *a);
/* the unit quaternion of rotation matrix R (row-major; articulation.c) */
mo_quat mo_artic_quat_of(const double *R);
void mo_artic_destroy_bodies(mo_world *w, mo_artic_obj *a);
int mo_link_body_refuse(const mo_world *w, int s, const char *fn, const char *what);

/* ---- joints (joint.c) ---- */
void mo_joint_rebuild_filter(mo_world *w);
double mo_joint_position_error(const mo_world *w, const mo_joint *j);
int mo_joint_row_count(const mo_joint *j);

/* writes j's rows for a step of length h (descriptors, aux, per-row kinds and bounds; step/assemble.c groups
 * the leading bilateral rows into one block) */
void mo_joint_fill_rows(const mo_world *w, const mo_joint *j, double h, mo_k_row *rows, mo_row_aux *aux,
                        uint8_t *kind, double *lo, double *hi);

#endif
