/* scenes_builtin.h: the benchmark scenes of SCENES.md built in C through the
 * public API, exactly as ../shared/tools/peers/common/scenes.h defines them for
 * the outside engines (geometry, masses, initial state, step counts), with the
 * same engine-independent metrics. Used by moreau-run and by the tests until
 * scene files exist. */
#ifndef MO_SCENES_BUILTIN_H
#define MO_SCENES_BUILTIN_H

#include <moreau/moreau.h>

typedef enum mo_scene_kind { MO_SCENE_STACK, MO_SCENE_PILE, MO_SCENE_CHAIN, MO_SCENE_WALL, MO_SCENE_MIXED } mo_scene_kind;

typedef struct mo_scene {
    const char *name;
    mo_scene_kind kind;
    int default_steps;       /* SCENES.md duration at h = 1/120 */
    int nbodies;
    mo_body_id *bodies;      /* dynamic bodies in scene order */
    mo_vec3 *start;          /* their initial positions */
    double *half_height;     /* stacks: half height of each box; pile/chain: radius */
    int njoints;
    mo_joint_id *joints;
    mo_body_id ground;       /* null for the chain */
    double box_half;         /* piles: inner half width of the open box (1 m for pile1000) */
} mo_scene;

/* names accepted by mo_scene_build, NULL-terminated (plus "pile:N", N spheres, for scaling runs) */
extern const char *const mo_scene_names[];

/* Builds scene `name` into an empty world w (gravity and time step are set to
 * SCENES.md's values). Returns MO_OK, MO_ERR_INVALID_ARGUMENT for an unknown
 * name (the sentence lists the known names in err), or an engine error. */
mo_status mo_scene_build(const char *name, mo_world *w, mo_scene *sc, char *err, size_t err_size);
void mo_scene_free(mo_scene *sc);

/* metrics, as in peers/common/scenes.h */
/* stacks: deepest overlap between consecutive boxes or the bottom box and the ground, along z */
double mo_scene_stack_penetration(const mo_world *w, const mo_scene *sc);
/* stacks: horizontal and vertical displacement of the top box from its start */
void mo_scene_stack_top(const mo_world *w, const mo_scene *sc, double *dxy, double *dz);
/* pile: deepest sphere/sphere, sphere/ground or sphere/wall overlap (O(n^2)), spheres outside the box */
double mo_scene_pile_penetration(const mo_world *w, const mo_scene *sc, int *escaped);
/* chain: largest and mean distance between the two bodies' copies of each joint anchor */
void mo_scene_chain_drift(const mo_world *w, const mo_scene *sc, double *max_drift, double *mean_drift);
/* wall: bricks moved more than 0.1 m from their start (the peers' figure); the ball is the last body */
int mo_scene_wall_moved(const mo_world *w, const mo_scene *sc);

#endif
