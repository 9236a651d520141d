/* sleep.h: islands and sleeping (issue 21). With mo_world_def.sleep on, the
 * dynamic bodies are split every step into islands: bodies joined by contacts
 * (with other dynamic bodies) and by joints. Static and kinematic bodies join
 * no island. An island whose every body stayed below sleep_linear_velocity and
 * sleep_angular_velocity for sleep_time seconds falls asleep: its velocities
 * become exactly zero and the step leaves it out (no prediction, no
 * narrowphase of its pairs with each other or with static and still kinematic
 * bodies, no rows, no solve, no integration), so its poses stay bit for bit
 * the same. It wakes (the whole island, velocities zero) when an awake body,
 * a moving kinematic body (a velocity, or moved by the API), a link body or a
 * particle touches it (in that step, which then runs its prediction and
 * collision detection again), and on the calls that change one of its bodies:
 * forces and torques, pose, velocity, mass from shapes, shapes created or
 * destroyed, joints created, destroyed or driven (mo_joint_set_motor), pair
 * collision, destruction; every island wakes when gravity changes, sleeping
 * is turned off, a static or kinematic body is moved by mo_body_set_pose, or a
 * static or kinematic body is
 * destroyed or changes shapes.
 * Islands touching a particle, a link body or a moving kinematic body, or
 * joined to a kinematic or link body, never sleep; nor does any body of a
 * world with FEM meshes. The state (mo_world_save_state) holds the sleep
 * state. The default is off: the reference behaviour stays that of every body
 * stepped. docs/sleeping.md. A NULL w: MO_ERR_INVALID_ARGUMENT without a sentence. */
#ifndef MOREAU_SLEEP_H
#define MOREAU_SLEEP_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out (must not be NULL) = true when the body sleeps (always false for static and kinematic bodies).
 * MO_ERR_STALE_ID with the sentence for a stale id, MO_ERR_INVALID_ARGUMENT for a NULL out. */
MO_API mo_status mo_body_is_sleeping(const mo_world *w, mo_body_id id, bool *out);
/* Wakes the body's island (a no-op for an awake, static or kinematic body); its rest time restarts, so it
 * sleeps again no sooner than sleep_time from now. MO_ERR_STALE_ID with the sentence for a stale id. */
MO_API mo_status mo_body_wake(mo_world *w, mo_body_id id);
/* Allows (true, the default) or forbids (false) the body to sleep; an island with a body that may not sleep
 * stays awake. Forbidding wakes its island. MO_ERR_STALE_ID with the sentence for a stale id. */
MO_API mo_status mo_body_set_sleep_allowed(mo_world *w, mo_body_id id, bool allowed);

#ifdef __cplusplus
}
#endif

#endif
