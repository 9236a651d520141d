/* scene.h: Lua scene files.
 *
 * A scene file is a Lua 5.4 script that builds a world through the same
 * checks as the C API (it fills *_def structs and calls mo_*_create), adds
 * per-step callbacks for scripted scenarios and states its claims as checks.
 * Scene files are untrusted input: they run in a sandbox (base functions
 * without dofile/loadfile, text-only load, math, string, table, os.clock;
 * files only from the scene's folder and the search folders), under an
 * instruction budget and a memory cap, so a broken or hostile script ends
 * with an error sentence, never a crash or a hang. The Lua API is described
 * in docs/scenes.md.
 *
 * Errors name the file and line: "scenes/arm.lua:12: body 'link3': mass must
 * be finite and > 0, got -1". A scene that fails to load leaves nothing
 * behind (it is built into a fresh world that is destroyed on failure).
 *
 * Without Lua (-Dlua=disabled, or liblua5.4-dev missing) these functions
 * exist but mo_scene_file_load returns MO_ERR_UNSUPPORTED with a sentence.
 *
 * Every function taking a const or non-const mo_scene_file * accepts NULL
 * (it then returns the empty answer its comment names). */
#ifndef MOREAU_SCENE_H
#define MOREAU_SCENE_H

#include "moreau.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a loaded scene: its Lua state, its world, its callbacks and checks (opaque) */
typedef struct mo_scene_file mo_scene_file;

/* How a scene file is run. Start from mo_default_scene_options();
 * mo_scene_file_load refuses values out of the ranges below. The arrays are
 * read during mo_scene_file_load only. */
typedef struct mo_scene_options {
    /* more folders from which include()/require()/moreau.urdf()/moreau.mesh() may read,
       after the scene's own folder; NULL allowed when search_path_count is 0 */
    const char *const *search_paths;
    int search_path_count;          /* entries of search_paths, >= 0; each must be an existing folder */
    /* values for param(name, default) in the script, each "name=value"; NULL allowed
       when param_count is 0 */
    const char *const *params;
    int param_count;                /* entries of params, >= 0 */
    uint64_t load_instructions;     /* Lua VM instructions for running the file, > 0; default 200 000 000 */
    uint64_t step_instructions;     /* for one step's callbacks together, > 0; default 20 000 000 */
    uint64_t check_instructions;    /* for each check, > 0; default 20 000 000 */
    size_t memory_limit;            /* bytes the Lua state may hold, >= 64 KiB; default 512 MiB. A file the
                                       scene loads (mesh, URDF, tet mesh, include, require) larger than
                                       what is left of it is refused before it is read. New strings are
                                       charged one instruction a byte against the budgets above (other
                                       memory growth one per 16 bytes); string.rep and table.concat refuse
                                       a result larger than what is left of either, before building it */
    int max_objects;                /* bodies + shapes + joints + particles a scene may create, >= 0;
                                       default 1 000 000 */
    /* where print() in the script writes (one call per line, without newline); NULL = stdout */
    void (*print)(void *user, const char *line);
    void *print_user;               /* passed to print as user; may be NULL */
    uint64_t seed;                  /* seed of the script's math.random (math.randomseed(seed) before the file
                                       runs), so a scene that draws random numbers is reproducible; default 0 */
    int internal_value;             /* set by mo_default_scene_options(); do not touch */
} mo_scene_options;

/* The default options (listed above); the only valid start for
 * mo_scene_options (mo_scene_file_load refuses options it did not initialise). */
MO_API mo_scene_options mo_default_scene_options(void);

/* Runs the scene file at path (opt NULL = defaults) and returns the scene with its
 * world in *out. path and out must not be NULL (refused). On failure *out is NULL,
 * err (may be NULL, then err_size is ignored) gets a sentence naming the file and
 * line, and nothing is left allocated. MO_ERR_IO for an unreadable file or a
 * search path that is not a folder, MO_ERR_UNSUPPORTED without Lua,
 * MO_ERR_INVALID_ARGUMENT for NULL arguments, options out of range, a param not
 * of the form name=value, script errors, bad values, budget or memory
 * exhaustion; MO_ERR_OUT_OF_MEMORY. The caller destroys the scene with
 * mo_scene_file_destroy. */
MO_API mo_status mo_scene_file_load(const char *path, const mo_scene_options *opt, mo_scene_file **out, char *err,
                                    size_t err_size);
/* Destroys the scene and its world. NULL is allowed. */
MO_API void mo_scene_file_destroy(mo_scene_file *s);

/* The scene's world, owned by the scene (do not destroy it; valid until
 * mo_scene_file_destroy). Callers may step it, change its solver settings or
 * read it; mo_scene_file_step also runs the scene's callbacks. NULL for a NULL
 * scene and without Lua. */
MO_API mo_world *mo_scene_file_world(const mo_scene_file *s);

/* Duration the scene asks for (world{duration = ...}), s; 0 when it does not say (or s is NULL). */
MO_API double mo_scene_file_duration(const mo_scene_file *s);

/* One step of the scenario: runs the on_step callbacks (in registration order,
 * with the simulated time and the step index), then mo_world_step unless a
 * callback called stop(). Once stop() was called it returns MO_OK without doing
 * anything. A callback error or an exhausted budget returns
 * MO_ERR_INVALID_ARGUMENT (the world is not stepped; callbacks that ran may have
 * changed it); the sentence is in mo_scene_file_last_error, and every later call
 * returns MO_ERR_INVALID_ARGUMENT. A failed mo_world_step returns its status.
 * MO_ERR_INVALID_ARGUMENT for a NULL s; MO_ERR_UNSUPPORTED without Lua. */
MO_API mo_status mo_scene_file_step(mo_scene_file *s);

/* True once a callback called stop(reason); reason (may be NULL) gets the reason
 * ("" when none was given), owned by the scene (valid until it is destroyed).
 * False for a NULL s; always true without Lua. */
MO_API bool mo_scene_file_done(const mo_scene_file *s, const char **reason);

/* Last error sentence of the scene (script errors, or the world's), "" when none
 * or s is NULL. Owned by the scene, overwritten by the next failure. */
MO_API const char *mo_scene_file_last_error(const mo_scene_file *s);

/* True when the options gave a value for the parameter name (mo_scene_options.params) and the script
 * has read it with param(name) since the load began (a runner's check that a parameter it sets is one the
 * scene uses). False for a NULL s or name, a name not given, and without Lua. */
MO_API bool mo_scene_file_param_read(const mo_scene_file *s, const char *name);

/* Steps taken through mo_scene_file_step (those that ran mo_world_step); 0 for a NULL s. */
MO_API uint64_t mo_scene_file_steps(const mo_scene_file *s);

/* a body the scene created, with its name (mo_scene_file_bodies) */
typedef struct mo_scene_body {
    mo_body_id id;            /* the body in the scene's world */
    const char *name;         /* name given in the script ("" when none), owned by the scene (valid until
                                 mo_scene_file_destroy) */
} mo_scene_body;
/* Bodies the scene created (body{}, ground{}, moreau.urdf()) that are still alive, in
 * creation order: writes up to cap of them into out (may be NULL) and returns how many
 * there are; 0 for a NULL s or without Lua. */
MO_API int mo_scene_file_bodies(const mo_scene_file *s, mo_scene_body *out, int cap);

/* the geometry of a scene visual (mo_scene_visual.type) */
typedef enum mo_scene_visual_type {
    MO_SCENE_VISUAL_BOX = 0,  /* size = full lengths x, y, z */
    MO_SCENE_VISUAL_CYLINDER, /* size.x = radius, size.z = length (along z) */
    MO_SCENE_VISUAL_SPHERE,   /* size.x = radius */
    MO_SCENE_VISUAL_MESH,     /* mesh_path, size = scale (for mo_mesh_load) */
} mo_scene_visual_type; /* same values as mo_urdf_geometry_type */
/* one URDF <visual> of a robot the scene loaded; the world pose of a visual is
 * its body's pose composed with (position, orientation) */
typedef struct mo_scene_visual {
    mo_body_id body;          /* the body it is drawn with */
    int type;                 /* mo_scene_visual_type */
    mo_vec3 size;             /* see mo_scene_visual_type, m (scale for meshes) */
    const char *mesh_path;    /* resolved path the URDF loader read (inside the scene's allowed folders);
                                 "" unless a mesh; owned by the scene */
    mo_vec3 position;         /* pose in the body frame: the link frame's pose in the body */
    mo_quat orientation;      /* composed with the URDF <visual><origin> */
    float rgba[4];            /* material colour (0.7 0.7 0.7 1 when none) */
} mo_scene_visual;
/* Visual geometry of the URDF robots the scene loaded (moreau.urdf()), for viewers:
 * not simulated. One entry per URDF <visual>, in load order, only those whose body
 * is still alive. Writes up to cap of them into out (may be NULL) and returns how
 * many there are; 0 for a NULL s, without Lua or without URDF support. */
MO_API int mo_scene_file_visuals(const mo_scene_file *s, mo_scene_visual *out, int cap);

/* ---- checks: the scene's claims -------------------------------------------- */

/* the verdict of one check (mo_scene_file_checks) */
typedef struct mo_scene_check_result {
    const char *name;     /* as given to check(); owned by the scene */
    bool passed;          /* the check function returned a true first value without error */
    const char *detail;   /* its other return values joined by ", ", or the error sentence; "" when none */
} mo_scene_check_result;

/* Number of checks the scene declared; 0 for a NULL s or without Lua. */
MO_API int mo_scene_file_check_count(const mo_scene_file *s);

/* Evaluates every check now (each under its own instruction budget) and writes up
 * to cap results into out (may be NULL: only counts). Returns the number of
 * checks that failed (a check that errs or exceeds its budget fails; when the
 * result strings cannot be allocated, every check counts as failed and nothing
 * is written); 0 for a NULL s or without Lua. Strings in the results stay valid
 * until the next call or mo_scene_file_destroy. */
MO_API int mo_scene_file_checks(mo_scene_file *s, mo_scene_check_result *out, int cap);

#ifdef __cplusplus
}
#endif
#endif
