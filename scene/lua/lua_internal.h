/* lua_internal.h: the scene-file loader's shared state (scene/lua/).
 * lua_scene.c owns the Lua state, the sandbox, budgets, paths and the public
 * mo_scene_file_* entry points; lua_api.c binds the world API to Lua;
 * lua_import.c binds the URDF and mesh importers when they are built. */
#ifndef MO_LUA_INTERNAL_H
#define MO_LUA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>
#include <lauxlib.h>

#include "moreau/moreau.h"
#include "moreau/articulation.h"
#include "moreau/scene.h"

#define MO_LUA_PATH_MAX 4096

struct mo_scene_file {
    lua_State *L;
    mo_world *w;               /* NULL until the first call that needs it (world{} may come first) */
    mo_world *scratch;         /* private world for mass computations of compound bodies, or NULL */
    mo_world_def wdef;         /* the world{} settings */
    bool world_set;            /* world{} was called */
    double duration;           /* world{duration}, s; 0 = not said */
    mo_scene_options opt;      /* copy; strings below are owned */
    int nroots;                /* allowed folders: [0] the scene's folder, then the search paths */
    char **roots;              /* realpath of each */
    char **root_display;       /* prefix shown in messages for files under each root ("" = none) */
    char **param_names, **param_values;
    bool *param_read;          /* per param: param(name) read it */
    /* budgets */
    size_t mem_used;
    bool mem_refused;          /* the allocator refused a block since the last protected call began */
    uint64_t budget, used;     /* instruction budget of the running protected call, and what it used */
    bool dead;                 /* budget or memory exhausted: pcall inside the script re-raises */
    int objects;               /* bodies + shapes + joints + particles created */
    /* registry references: on_step functions (array), checks (array of {name, fn}), loaded modules */
    int ref_steps, ref_checks, ref_modules;
    uint64_t steps;
    bool done, failed;
    char *stop_reason;
    char err[1024];
    /* bodies created, in order (names malloc'ed, "" when none) */
    mo_body_id *body_ids;
    char **body_names;
    int nbody_records, body_record_cap;
    /* URDF visuals loaded (mesh_path malloc'ed), for mo_scene_file_visuals */
    mo_scene_visual *visuals;
    int nvisuals, visual_cap;
    /* strings of the last mo_scene_file_checks results */
    char **check_names, **check_details;
    int ncheck_strings;
};

/* the scene of a Lua state (the allocator's user data) */
mo_scene_file *mo_lua_scene(lua_State *L);

/* creates the world from wdef when it does not exist yet; raises a Lua error on failure */
mo_world *mo_lua_world(lua_State *L);

/* counts one created object against opt.max_objects (raises a Lua error beyond it) */
void mo_lua_count_object(lua_State *L);

/* Resolves name (relative to the allowed folders, or absolute inside one) to a real
 * path in abs (MO_LUA_PATH_MAX bytes) and the name shown in messages in display.
 * Raises a Lua error naming the path when it is missing or outside the folders. */
void mo_lua_resolve_path(lua_State *L, const char *what, const char *name, size_t len, char *abs, char *display);

/* records a body the scene created (for mo_scene_file_bodies); raises on out of memory */
void mo_lua_record_body(lua_State *L, mo_body_id id, const char *name);

/* records a visual (copies mesh_path) for mo_scene_file_visuals; raises on out of memory */
void mo_lua_record_visual(lua_State *L, const mo_scene_visual *v);

/* registers the world API (globals and the moreau table at the top of the stack) */
void mo_lua_open_api(lua_State *L);
/* adds moreau.urdf and moreau.mesh to the table at the top of the stack when built */
void mo_lua_open_import(lua_State *L);
void mo_lua_open_fem(lua_State *L); /* fem{} (lua_fem.c): in the table at the top of the stack and as a global */
/* moreau.contacts and the body method contact_force (lua_contacts.c): in the table at the top of the stack
 * and the body class (mo_lua_open_api registers the classes first) */
void mo_lua_open_contacts(lua_State *L);
/* articulation{} (lua_artic.c): in the table at the top of the stack and as a global */
void mo_lua_open_artic(lua_State *L);
/* pushes a handle of the articulation id (methods of articulation{}); name (may be NULL) is shown by tostring
   and in errors; the metatable must exist (mo_lua_open_artic ran) */
void mo_lua_push_articulation(lua_State *L, mo_articulation_id id, const char *name);

/* ---- helpers for reading argument tables (lua_api.c) ---- */

/* raises "<ctx>: <message>" at the caller's line */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int mo_lua_fail(lua_State *L, const char *ctx, const char *fmt, ...);
/* refuses keys of the table at idx that are not in the NULL-terminated list */
void mo_lua_check_keys(lua_State *L, int idx, const char *ctx, const char *const *allowed);
double mo_lua_num_field(lua_State *L, int idx, const char *key, double def, const char *ctx);
bool mo_lua_bool_field(lua_State *L, int idx, const char *key, bool def, const char *ctx);
mo_vec3 mo_lua_vec_field(lua_State *L, int idx, const char *key, mo_vec3 def, const char *ctx);
/* a vector value at stack index idx: {x, y, z} or {x = , y = , z = } */
mo_vec3 mo_lua_to_vec(lua_State *L, int idx, const char *ctx, const char *what);
void mo_lua_push_vec(lua_State *L, mo_vec3 v);
/* pushes a body handle for id (name may be NULL) */
void mo_lua_push_body(lua_State *L, mo_body_id id, const char *name);
void mo_lua_push_joint(lua_State *L, mo_joint_id id, const char *name);
/* The shape = {...} or shapes = {{...}, ...} field of the table at idx, read as body{} reads it, into *count
 * definitions (0 and NULL when neither is there); the definitions and the arrays they point to are
 * userdata left on the stack (keep them there until the shapes are created). Errors "<ctx>: give shape or
 * shapes, not both", "<ctx> shape <i>: ...". */
mo_shape_def *mo_lua_shapes_field(lua_State *L, int idx, const char *ctx, int *count);
/* the body handle at idx, else raises "<ctx>: <what> must be a body, got <type>" */
mo_body_id mo_lua_check_body(lua_State *L, int idx, const char *ctx, const char *what);
/* __tostring of a handle at index 1: "<kind> <index>" and " '<name>'" when it has one */
void mo_lua_push_handle_string(lua_State *L, const char *kind, uint32_t index);
/* self (index 1) of a body method and its context string ("body 'name'") into ctx */
mo_body_id mo_lua_self_body(lua_State *L, char *ctx, size_t n);
/* body methods a:set_pair_collision(b, enabled) and a:pair_collision(b) (lua_filter.c) */
int mo_lua_b_set_pair_collision(lua_State *L);
int mo_lua_b_pair_collision(lua_State *L);

/* Reads the settings in the table at idx (Lua names are the engine's setting names: world{} keys are
 * "time_step", "solver" is a table whose keys are "solver.kind"'s last part, and so on), each checked
 * for its type here (errors "<ctx>: <key> must be ...", "<ctx> newton: ncp 'x' is not one of ...",
 * "<ctx>: unknown field 'k'"), in the table's order; apply gets each as its full name and text
 * value. Keys in skip (NULL-terminated, may be NULL) are left to the caller. */
typedef void (*mo_lua_setting_fn)(lua_State *L, void *user, const char *name, const char *value, const char *ctx);
void mo_lua_read_settings(lua_State *L, int idx, const char *prefix, const char *ctx, const char *const *skip,
                          mo_lua_setting_fn apply, void *user);

/* the other readers and helpers of lua_args.c; mo_lua_solver is moreau.solver() */
int mo_lua_solver(lua_State *L);
void mo_lua_need_table(lua_State *L, int idx, const char *ctx);
int mo_lua_field(lua_State *L, int idx, const char *key);
double mo_lua_to_num(lua_State *L, int idx, const char *ctx, const char *what);
int mo_lua_int_field(lua_State *L, int idx, const char *key, int def, const char *ctx);
uint32_t mo_lua_u32_field(lua_State *L, int idx, const char *key, uint32_t def, const char *ctx);
const char *mo_lua_str_field(lua_State *L, int idx, const char *key, const char *ctx);
bool mo_lua_has_field(lua_State *L, int idx, const char *key);
void mo_lua_to_numbers(lua_State *L, int idx, const char *ctx, const char *what, int n, const char *const *names,
                       double *out);
mo_quat mo_lua_to_quat(lua_State *L, int idx, const char *ctx, const char *what);
mo_quat mo_lua_quat_field(lua_State *L, int idx, const char *key, mo_quat def, const char *ctx);
int mo_lua_enum_value(lua_State *L, const char *ctx, const char *key, const char *s, const char *const *names);
void mo_lua_push_quat(lua_State *L, mo_quat q);
mo_vec3 mo_lua_qrot(mo_quat q, mo_vec3 v);
mo_vec3 mo_lua_qrot_inv(mo_quat q, mo_vec3 v);
void mo_lua_make_ctx(char *ctx, size_t n, const char *what, const char *name);
int mo_lua_world_fail(lua_State *L, const char *ctx);

#endif
