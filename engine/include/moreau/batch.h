/* batch.h: batches of worlds on the CPU (issue 20, item 4).
 *
 * A batch is N independent worlds built the same way, from one scene file
 * (moreau/scene.h: each world is its own loaded scene, with its own Lua state
 * and callbacks) or from a caller's build function called once per world.
 * mo_batch_step steps every world once, worlds spread over OpenMP threads and
 * each world single-threaded inside, so every world's states are bit-identical
 * to those of the same world stepped alone, for any thread count. Per-world
 * parameters (gravity, any setting by name, initial state) are set between
 * steps; state is read and written in bulk, world-major, for control and
 * learning loops; each world can be reset to its initial state (the state
 * right after building, or the one mo_batch_mark_initial took).
 *
 * Every world runs on its own backend (the CPU by default): a batch is not one
 * block-diagonal problem on a device. docs/batch.md.
 *
 * Conventions as moreau.h: a def that must start from mo_default_batch_def(), a
 * mo_status from every fallible call with one sentence in mo_batch_last_error()
 * (naming the function and, where one is at fault, the world index), and the
 * batch unchanged on error (mo_batch_step is the exception: see there). A NULL
 * batch: MO_ERR_INVALID_ARGUMENT without a sentence, or the neutral value. One
 * batch must not be used from several threads at once. */
#ifndef MOREAU_BATCH_H
#define MOREAU_BATCH_H

#include "moreau.h"
#include "articulation.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a batch of worlds (opaque) */
typedef struct mo_batch mo_batch;

#define MO_BATCH_WORLDS_MAX 65536 /* worlds of one batch */
#define MO_BATCH_ALL (-1)         /* as a world index: every world of the batch */

/* Builds world `index` (0 <= index < worlds) into w, an empty world made from
 * mo_batch_def.world_def. Returns MO_OK, or a status with a sentence in err
 * (err_size bytes, never NULL). Every world must come out with the same
 * structure (the same dynamic bodies and articulations in the same order);
 * per-world differences (masses, friction, poses...) are the caller's. Called
 * from one thread, in index order, during mo_batch_create only. */
typedef mo_status (*mo_batch_build_fn)(void *user, int index, mo_world *w, char *err, size_t err_size);

/* How a batch is made. Start from mo_default_batch_def(); mo_batch_create
 * refuses values out of the ranges below. Pointers are read during
 * mo_batch_create only. Exactly one of scene_path and build must be set. */
typedef struct mo_batch_def {
    int worlds;                          /* N in [1, MO_BATCH_WORLDS_MAX]; default 1 */
    const char *scene_path;              /* a scene file loaded once per world (mo_scene_file_load); default NULL */
    const mo_scene_options *scene_options; /* its options; NULL = mo_default_scene_options(); default NULL */
    mo_batch_build_fn build;             /* or this, called for each world; default NULL */
    void *build_user;                    /* passed to build; may be NULL */
    const mo_world_def *world_def;       /* the empty world build starts from; NULL = mo_default_world_def() */
    const char *const *settings;         /* "NAME=VALUE" applied to every world after building (over the scene's);
                                          * NULL allowed when setting_count is 0 */
    int setting_count;                   /* entries of settings, >= 0; default 0 */
    int threads;                         /* OpenMP threads over worlds, in [0, mo_world_max_threads()]; 0 = OpenMP's
                                          * default; ignored without OpenMP; default 1 */
    int internal_value;                  /* set by mo_default_batch_def(); do not touch */
} mo_batch_def;

/* The default batch def (listed above); the only valid start for a mo_batch_def. */
MO_API mo_batch_def mo_default_batch_def(void);

/* Builds def->worlds worlds (in index order, on the calling thread), applies
 * def->settings to each, sets each world's own threads to 1 and records each
 * world's state as its initial state. *out receives the batch or NULL; err (may
 * be NULL, then err_size is ignored) gets "" or a sentence naming the world
 * that failed ("mo_batch_create: world 3: ..."). MO_ERR_INVALID_ARGUMENT for
 * NULL def/out, a def not from mo_default_batch_def(), a value out of range,
 * both or neither of scene_path and build, a setting refused, or worlds of
 * different structure (dynamic body or articulation counts, or articulation
 * sizes, unlike world 0's); the status of a failed load or build;
 * MO_ERR_OUT_OF_MEMORY. Nothing is left allocated on failure. */
MO_API mo_status mo_batch_create(const mo_batch_def *def, mo_batch **out, char *err, size_t err_size);
/* Destroys the batch and its worlds (and scenes). NULL is allowed. */
MO_API void mo_batch_destroy(mo_batch *b);
/* Sentence of the most recent failed call on this batch ("" when none). Owned by
 * the batch. b may be NULL: returns a static sentence saying so. */
MO_API const char *mo_batch_last_error(const mo_batch *b);

/* number of worlds; 0 for NULL */
MO_API int mo_batch_world_count(const mo_batch *b);
/* Sizes of one world (the same in every world; any pointer may be NULL): the
 * dynamic bodies of the bulk body arrays, the articulations, and the doubles of
 * one world's joint coordinates (nq) and velocities (nv) in the bulk joint
 * arrays (all articulations one after the other). MO_ERR_INVALID_ARGUMENT for a
 * NULL b. */
MO_API mo_status mo_batch_sizes(const mo_batch *b, int *bodies, int *articulations, int *nq, int *nv);
/* World `index` (0 <= index < count), owned by the batch, for any call of the
 * world API between steps (reading it, forces, motors, drives, torques). Changes
 * to its structure (creating or destroying objects) are not allowed. NULL for a
 * NULL b or an index out of range (with the sentence). */
MO_API mo_world *mo_batch_world(mo_batch *b, int index);
/* The scene of world `index` when the batch was made from a scene file (for its
 * checks and bodies), else NULL; NULL also for a NULL b or an index out of range
 * (with the sentence). */
MO_API mo_scene_file *mo_batch_scene(mo_batch *b, int index);
/* The dynamic body k (0 <= k < bodies) of the bulk arrays, as an id of world
 * `index`; the null id (with the sentence) when either is out of range or b is NULL. */
MO_API mo_body_id mo_batch_body(const mo_batch *b, int index, int k);
/* Articulation a (0 <= a < articulations) of world `index`, in creation order;
 * the null id (with the sentence) when either is out of range or b is NULL. */
MO_API mo_articulation_id mo_batch_articulation(const mo_batch *b, int index, int a);

/* OpenMP threads over worlds of the next steps, as mo_batch_def.threads.
 * MO_ERR_INVALID_ARGUMENT outside [0, mo_world_max_threads()]. */
MO_API mo_status mo_batch_set_threads(mo_batch *b, int threads);
MO_API int mo_batch_threads(const mo_batch *b);

/* Steps every world once (mo_scene_file_step for scene worlds: their callbacks
 * run, a scene that called stop() is not stepped; mo_world_step otherwise).
 * Worlds are independent: a world whose step fails is rolled back to before the
 * call by mo_world_step while the others have stepped; the call then returns
 * the status of the failed world of lowest index, and the sentence names it
 * ("mo_batch_step: world 7: ..."); mo_batch_world_status tells which failed. */
MO_API mo_status mo_batch_step(mo_batch *b);
/* steps (>= 1) steps of every world, each world taking its steps in a row (one OpenMP loop over worlds): the
 * states are bit-identical to those of `steps` calls of mo_batch_step, with one parallel region instead of
 * `steps` and each world's data hot in its thread's caches across its steps; for sweeps and Monte Carlo runs
 * where nothing is read or set between steps. A world whose step fails stops there (rolled back to before that
 * step); the others take all their steps; the status and sentence are mo_batch_step's.
 * MO_ERR_INVALID_ARGUMENT for steps < 1. */
MO_API mo_status mo_batch_step_n(mo_batch *b, int steps);
/* The status of world `index` in the last mo_batch_step or mo_batch_step_n (MO_OK before the first);
 * MO_ERR_INVALID_ARGUMENT for a NULL b or an index out of range (with the sentence). */
MO_API mo_status mo_batch_world_status(const mo_batch *b, int index);

/* ---- bulk state ------------------------------------------------------------
 * Arrays are world-major: world i's entries follow world i-1's. Body arrays hold
 * worlds x bodies entries (mo_batch_sizes) in the order of mo_batch_body; joint
 * arrays worlds x nq (q) or worlds x nv (qdot) doubles. count is the number of
 * entries each non-NULL array holds and must equal what the batch needs;
 * MO_ERR_INVALID_ARGUMENT otherwise ("... arrays of 10 entries, the batch has 4
 * worlds x 3 bodies = 12"). Any array may be NULL (not read or written). Setters
 * check every value first (finite; positions within MO_LENGTH_MAX, velocities
 * within MO_SPEED_MAX, quaternions non-zero: normalised when stored) and change
 * nothing on error; the sentence names the world and the body (or the joint
 * coordinate). Only dynamic bodies are in the body arrays: static bodies never
 * move and kinematic ones (articulation link bodies among them) follow their
 * set velocities or their links (read them through mo_batch_world). */

/* positions (m), orientations, linear (m/s) and angular (rad/s) velocities, world frame */
MO_API mo_status mo_batch_get_bodies(const mo_batch *b, mo_vec3 *position, mo_quat *orientation, mo_vec3 *linear,
                                     mo_vec3 *angular, int count);
MO_API mo_status mo_batch_set_bodies(mo_batch *b, const mo_vec3 *position, const mo_quat *orientation,
                                     const mo_vec3 *linear, const mo_vec3 *angular, int count);
/* joint coordinates and velocities of every world's articulations (moreau/articulation.h for the layout);
 * q_count and qdot_count are the doubles q and qdot hold */
MO_API mo_status mo_batch_get_joints(const mo_batch *b, double *q, int q_count, double *qdot, int qdot_count);
MO_API mo_status mo_batch_set_joints(mo_batch *b, const double *q, int q_count, const double *qdot, int qdot_count);
/* Drive targets of every world's revolute and prismatic joints (moreau/articulation.h, mo_joint_drive): per
 * world mo_batch_drive_count() entries, each articulation's such links in link order, articulations in order.
 * get: target_position (rad or m) and target_velocity (rad/s or m/s); set: the same, keeping each drive's gains,
 * feed-forward torque and effort limit (a drive with zero gains does nothing: give gains in the scene or the build
 * function, or through mo_articulation_set_drive). Set checks every value first (positions within MO_LENGTH_MAX,
 * velocities within MO_SPEED_MAX) and changes nothing on error. A scene's callbacks that set drives every step
 * overwrite these. */
MO_API int mo_batch_drive_count(const mo_batch *b);
MO_API mo_status mo_batch_get_drive_targets(const mo_batch *b, double *position, double *velocity, int count);
MO_API mo_status mo_batch_set_drive_targets(mo_batch *b, const double *position, const double *velocity, int count);
/* contact points of each world's last step (mo_step_stats.contacts) into out (count = worlds entries) */
MO_API mo_status mo_batch_contact_counts(const mo_batch *b, int *out, int count);
/* mo_world_state_hash of each world into out (count = worlds entries) */
MO_API mo_status mo_batch_state_hashes(const mo_batch *b, uint64_t *out, int count);

/* ---- per-world parameters and reset ----------------------------------------
 * index is a world (0 <= index < worlds) or MO_BATCH_ALL. Parameters are the
 * model, not the state: a reset keeps them. */

/* gravity of world index (or all), m/s^2; MO_ERR_INVALID_ARGUMENT for a non-finite component or one beyond
 * MO_GRAVITY_MAX, or a bad index */
MO_API mo_status mo_batch_set_gravity(mo_batch *b, int index, mo_vec3 g);
/* mo_world_set_settings on world index (or on every world: all are checked before any changes) */
MO_API mo_status mo_batch_set_settings(mo_batch *b, int index, const char *const *assignments, int count);
/* Restores world index (or every world) to its initial state (mo_world_restore_state): the worlds are then
 * bit-identical to what they were at the mark and step on identically. The Lua variables of a scene's callbacks
 * are not part of a world's state and are not reset (nor a stop() a callback called). MO_ERR_OUT_OF_MEMORY when
 * room for a world's cached contacts cannot be made: that world is unchanged (with MO_BATCH_ALL the worlds before
 * it were reset). */
MO_API mo_status mo_batch_reset(mo_batch *b, int index);
/* Takes world index's (or every world's) current state as its initial state, for example after setting
 * per-world initial poses. MO_ERR_OUT_OF_MEMORY keeps the named world's old initial state (with MO_BATCH_ALL the
 * worlds before it took their new one). */
MO_API mo_status mo_batch_mark_initial(mo_batch *b, int index);

#ifdef __cplusplus
}
#endif
#endif
