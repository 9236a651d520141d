/* lua_import.c: moreau.mesh() and moreau.urdf() for scene files, compiled when
 * the importers are built (MO_HAVE_ASSIMP, MO_HAVE_URDF from scene_c_args).
 * Paths go through the sandbox's path check; a URDF's meshes must also lie in
 * the allowed folders (checked after loading; the robot is removed otherwise). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lua_internal.h"

#if defined(MO_HAVE_ASSIMP) || defined(MO_HAVE_URDF)
#include "moreau/import.h"
#endif

#ifdef MO_HAVE_ASSIMP
static int mesh_gc(lua_State *L)
{
    mo_mesh_free((mo_mesh_data *)lua_touserdata(L, 1));
    return 0;
}

/* moreau.mesh(path [, {scale = s or {sx, sy, sz}}]) -> {vertices = {{x, y, z}...}, triangles = {{i, j, k}...}}
   (1-based vertex numbers), for hull and mesh shapes */
static int l_mesh(lua_State *L)
{
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    mo_vec3 scale = {1, 1, 1};
    if (!lua_isnoneornil(L, 2)) {
        static const char *const keys[] = {"scale", NULL};
        if (!lua_istable(L, 2)) mo_lua_fail(L, "mesh", "options must be a table, got %s", luaL_typename(L, 2));
        mo_lua_check_keys(L, 2, "mesh", keys);
        int t = lua_getfield(L, 2, "scale");
        if (t == LUA_TNUMBER) {
            double s = lua_tonumber(L, -1);
            scale = (mo_vec3){s, s, s};
        } else if (t != LUA_TNIL) {
            scale = mo_lua_to_vec(L, -1, "mesh", "scale");
        }
        lua_pop(L, 1);
    }
    char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
    mo_lua_resolve_path(L, "mesh", path, len, abs, display);
    /* the arrays live in a userdata freed by __gc, so a Lua error while copying leaks nothing */
    mo_mesh_data *mp = (mo_mesh_data *)lua_newuserdatauv(L, sizeof *mp, 0);
    memset(mp, 0, sizeof *mp);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, mesh_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    char err[768];
    if (mo_mesh_load(abs, scale, mp, err, sizeof err) != MO_OK) mo_lua_fail(L, "mesh", "%s", err);
    const mo_mesh_data m = *mp;
    lua_createtable(L, 0, 2);
    lua_createtable(L, m.nvertices, 0);
    for (int i = 0; i < m.nvertices; i++) {
        lua_createtable(L, 3, 0);
        for (int c = 0; c < 3; c++) {
            lua_pushnumber(L, m.vertices[3 * i + c]);
            lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "vertices");
    lua_createtable(L, m.ntriangles, 0);
    for (int i = 0; i < m.ntriangles; i++) {
        lua_createtable(L, 3, 0);
        for (int c = 0; c < 3; c++) {
            lua_pushinteger(L, m.triangles[3 * i + c] + 1);
            lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "triangles");
    return 1;
}
#endif

#ifdef MO_HAVE_URDF
static bool inside_roots(mo_scene_file *s, const char *path)
{
    char real[PATH_MAX];
    if (!path[0]) return true;
    if (!realpath(path, real)) return false;
    for (int r = 0; r < s->nroots; r++) {
        size_t n = strlen(s->roots[r]);
        if (!strncmp(real, s->roots[r], n) && (real[n] == '/' || real[n] == '\0' || (n == 1 && real[0] == '/')))
            return true;
    }
    return false;
}

/* mo_urdf_options.allow_file for scene files: the candidate is first normalised
 * lexically (".", "..", "//" removed; relative paths are refused) and must lie inside the
 * allowed folders before anything touches the file system; an existing file must also lie
 * inside them once symlinks are resolved (realpath). So a URDF cannot make the loader open,
 * parse or even test for a file outside the scene's folders. */
static bool urdf_allow_file(void *user, const char *path)
{
    mo_scene_file *s = (mo_scene_file *)user;
    if (path[0] != '/') return false;
    char norm[PATH_MAX];
    size_t n = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 1 && p[0] == '.') {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && norm[n - 1] != '/') n--;
            if (n > 0) n--; /* the slash */
        } else {
            if (n + 1 + len + 1 > sizeof norm) return false;
            norm[n++] = '/';
            memcpy(norm + n, p, len);
            n += len;
        }
        p += len;
    }
    if (n == 0) norm[n++] = '/';
    norm[n] = '\0';
    bool in = false;
    for (int r = 0; r < s->nroots && !in; r++) {
        size_t k = strlen(s->roots[r]);
        in = !strncmp(norm, s->roots[r], k) && (norm[k] == '/' || norm[k] == '\0' || (k == 1 && norm[0] == '/'));
    }
    if (!in) return false;
    struct stat st;
    if (stat(norm, &st) != 0) return true; /* does not exist: the loader finds nothing there */
    return inside_roots(s, norm);
}

_Static_assert((int)MO_SCENE_VISUAL_MESH == (int)MO_URDF_GEOM_MESH &&
                   (int)MO_SCENE_VISUAL_BOX == (int)MO_URDF_GEOM_BOX &&
                   (int)MO_SCENE_VISUAL_CYLINDER == (int)MO_URDF_GEOM_CYLINDER &&
                   (int)MO_SCENE_VISUAL_SPHERE == (int)MO_URDF_GEOM_SPHERE,
               "mo_scene_visual_type follows mo_urdf_geometry_type");

static mo_quat qmul(mo_quat a, mo_quat b)
{
    return (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/* v rotated by the unit quaternion q */
static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    mo_vec3 t = {2 * (q.y * v.z - q.z * v.y), 2 * (q.z * v.x - q.x * v.z), 2 * (q.x * v.y - q.y * v.x)};
    return (mo_vec3){v.x + q.w * t.x + q.y * t.z - q.z * t.y, v.y + q.w * t.y + q.z * t.x - q.x * t.z,
                     v.z + q.w * t.z + q.x * t.y - q.y * t.x};
}

static const char *const mesh_modes[] = {"auto", "hull", "triangles", NULL};

/* the model's arrays, freed by __gc whatever happens */
typedef struct lurdf { mo_urdf_model m; } lurdf;

static int urdf_gc(lua_State *L)
{
    lurdf *u = (lurdf *)lua_touserdata(L, 1);
    mo_urdf_model_free(&u->m);
    return 0;
}

/* a zeroed model on the Lua stack whose arrays __gc frees, whatever the load does next */
static mo_urdf_model *new_model(lua_State *L)
{
    lurdf *u = (lurdf *)lua_newuserdatauv(L, sizeof *u, 0);
    memset(u, 0, sizeof *u);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, urdf_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    return &u->m;
}

/* exclude_pairs = {{"link_a", "link_b"}, ...} of the options table at 2 into a userdata of 2 n names (the strings
   kept alive in the table at keep); returns n */
static int exclude_pairs(lua_State *L, int keep, const char ***names)
{
    *names = NULL;
    if (lua_getfield(L, 2, "exclude_pairs") == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    int t = lua_gettop(L);
    if (!lua_istable(L, t)) mo_lua_fail(L, "urdf", "exclude_pairs must be a table of {link, link} pairs");
    lua_Unsigned n = lua_rawlen(L, t);
    if (n > 65536) mo_lua_fail(L, "urdf", "at most 65536 exclude_pairs");
    const char **v = (const char **)lua_newuserdatauv(L, (size_t)(2 * n + 1) * sizeof(char *), 0);
    lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
    for (lua_Unsigned i = 1; i <= n; i++) {
        if (lua_rawgeti(L, t, (lua_Integer)i) != LUA_TTABLE) mo_lua_fail(L, "urdf", "exclude_pairs[%d] must be {link, link}", (int)i);
        for (int k = 0; k < 2; k++) {
            if (lua_rawgeti(L, -1, k + 1) != LUA_TSTRING)
                mo_lua_fail(L, "urdf", "exclude_pairs[%d][%d] must be a link name", (int)i, k + 1);
            v[2 * (i - 1) + (lua_Unsigned)k] = lua_tostring(L, -1);
            lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    *names = v;
    return (int)n;
}

/* result.warnings = {text...} (the table at the top), each also printed */
static void push_warnings(lua_State *L, mo_scene_file *s, const mo_urdf_model *m)
{
    lua_createtable(L, m->nwarnings, 0);
    for (int i = 0; i < m->nwarnings; i++) {
        char line[512];
        snprintf(line, sizeof line, "warning: %s", m->warnings[i].text);
        if (s->opt.print) s->opt.print(s->opt.print_user, line);
        else fprintf(stderr, "%s\n", line);
        lua_pushstring(L, m->warnings[i].text);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "warnings");
}

static int push_robot(lua_State *L, mo_scene_file *s, mo_world *w, mo_urdf_model *m, const char *display,
                      const char *who);

/* moreau.urdf(path [, {fixed_base, position, orientation, search_paths, meshes, self_collision,
   exclude_adjacent, exclude_pairs, drive_stiffness, drive_damping, friction, ignore_damping, ignore_friction,
   lock_zero_limits, max_hull_vertices, articulation, maximal}]) -> by default (mo_urdf_options.articulation) one
   articulation: {name, articulation = handle (the methods of articulation{}, link names as the URDF's),
   links = {name = link number from 1}, joints = {name = the number of the joint's child link}, warnings};
   with maximal = true (or articulation = false) bodies and joints: {name, root, links = {name = body},
   joints = {name = joint}, warnings = {text...}}; each warning is also printed (the scene's print, else stderr)
   as "warning: <text>" */
static int l_urdf(lua_State *L)
{
    static const char *const keys[] = {"fixed_base", "position", "orientation", "search_paths", "meshes",
                                       "self_collision", "exclude_adjacent", "exclude_pairs", "drive_stiffness",
                                       "drive_damping", "friction", "ignore_damping", "ignore_friction",
                                       "lock_zero_limits", "max_hull_vertices", "articulation", "maximal", NULL};
    lua_settop(L, 2); /* moreau.urdf(path): the options slot is nil, not whatever is pushed next */
    mo_scene_file *s = mo_lua_scene(L);
    mo_world *w = mo_lua_world(L);
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
    mo_lua_resolve_path(L, "urdf", path, len, abs, display);
    mo_urdf_options o = mo_default_urdf_options();
    o.allow_file = urdf_allow_file;
    o.allow_user = s;
    /* search folders: those given (each inside the allowed folders), else the allowed folders */
    int nsp = 0;
    const char **sp = (const char **)lua_newuserdatauv(L, (size_t)(s->nroots + 64) * sizeof(char *), 0);
    int sp_index = lua_gettop(L);
    lua_newtable(L); /* keeps the resolved strings alive */
    int keep = lua_gettop(L);
    if (!lua_isnoneornil(L, 2)) {
        if (!lua_istable(L, 2)) mo_lua_fail(L, "urdf", "options must be a table, got %s", luaL_typename(L, 2));
        mo_lua_check_keys(L, 2, "urdf", keys);
        o.fixed_base = mo_lua_bool_field(L, 2, "fixed_base", o.fixed_base, "urdf");
        o.base_position = mo_lua_vec_field(L, 2, "position", o.base_position, "urdf");
        if (lua_getfield(L, 2, "orientation") != LUA_TNIL) {
            static const char *const wxyz[] = {"w", "x", "y", "z"};
            double q[4];
            int t = lua_gettop(L);
            bool named = lua_getfield(L, t, "w") != LUA_TNIL;
            lua_pop(L, 1);
            for (int i = 0; i < 4; i++) {
                if ((named ? lua_getfield(L, t, wxyz[i]) : lua_rawgeti(L, t, i + 1)) != LUA_TNUMBER)
                    mo_lua_fail(L, "urdf", "orientation must be {w, x, y, z}");
                q[i] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            o.base_orientation = (mo_quat){q[0], q[1], q[2], q[3]};
        }
        lua_pop(L, 1);
        o.self_collision = mo_lua_bool_field(L, 2, "self_collision", o.self_collision, "urdf");
        o.exclude_adjacent = mo_lua_bool_field(L, 2, "exclude_adjacent", o.exclude_adjacent, "urdf");
        o.ignore_damping = mo_lua_bool_field(L, 2, "ignore_damping", o.ignore_damping, "urdf");
        o.ignore_friction = mo_lua_bool_field(L, 2, "ignore_friction", o.ignore_friction, "urdf");
        o.lock_zero_limits = mo_lua_bool_field(L, 2, "lock_zero_limits", o.lock_zero_limits, "urdf");
        /* the default is one articulation; maximal = true (or articulation = false) asks for bodies and joints */
        bool has_artic = lua_getfield(L, 2, "articulation") != LUA_TNIL;
        bool has_maximal = lua_getfield(L, 2, "maximal") != LUA_TNIL;
        lua_pop(L, 2);
        bool artic = mo_lua_bool_field(L, 2, "articulation", o.articulation, "urdf");
        bool maximal = mo_lua_bool_field(L, 2, "maximal", !o.articulation, "urdf");
        if (has_artic && has_maximal && artic == maximal)
            mo_lua_fail(L, "urdf", "maximal = %s and articulation = %s contradict each other (give one of them)",
                        maximal ? "true" : "false", artic ? "true" : "false");
        o.articulation = has_maximal ? !maximal : artic;
        o.max_hull_vertices = mo_lua_int_field(L, 2, "max_hull_vertices", o.max_hull_vertices, "urdf");
        const char **ep = NULL;
        o.nexclude_pairs = exclude_pairs(L, keep, &ep);
        o.exclude_pairs = ep;
        o.drive_stiffness = mo_lua_num_field(L, 2, "drive_stiffness", o.drive_stiffness, "urdf");
        o.drive_damping = mo_lua_num_field(L, 2, "drive_damping", o.drive_damping, "urdf");
        o.friction = mo_lua_num_field(L, 2, "friction", o.friction, "urdf");
        if (lua_getfield(L, 2, "meshes") != LUA_TNIL) {
            const char *m = lua_tostring(L, -1);
            int k = -1;
            for (int i = 0; m && mesh_modes[i]; i++)
                if (!strcmp(m, mesh_modes[i])) k = i;
            if (k < 0) mo_lua_fail(L, "urdf", "meshes must be auto, hull or triangles");
            o.collision_meshes = (mo_urdf_mesh_mode)k;
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "search_paths") != LUA_TNIL) {
            int t = lua_gettop(L);
            if (!lua_istable(L, t)) mo_lua_fail(L, "urdf", "search_paths must be a table of folder names");
            lua_Unsigned n = lua_rawlen(L, t);
            if (n > 64) mo_lua_fail(L, "urdf", "at most 64 search_paths");
            for (lua_Unsigned i = 1; i <= n; i++) {
                lua_rawgeti(L, t, (lua_Integer)i);
                const char *d = lua_tostring(L, -1);
                if (!d || lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, "urdf", "search_paths[%d] must be a string", (int)i);
                /* a folder inside the allowed folders */
                bool found = false;
                for (int r = 0; r < s->nroots && !found; r++) {
                    char cand[2 * MO_LUA_PATH_MAX], real[PATH_MAX];
                    snprintf(cand, sizeof cand, "%s/%s", s->roots[r], d);
                    struct stat st;
                    if (d[0] != '/' && realpath(cand, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode) &&
                        inside_roots(s, real)) {
                        lua_pushstring(L, real);
                        sp[nsp++] = lua_tostring(L, -1);
                        lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
                        found = true;
                    }
                }
                if (!found) mo_lua_fail(L, "urdf", "search path '%s' is not a folder inside the scene's folder or the search paths", d);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (nsp == 0)
        for (int r = 0; r < s->nroots; r++) sp[nsp++] = s->roots[r];
    o.search_paths = sp;
    o.nsearch_paths = nsp;
    (void)sp_index;
    mo_urdf_model *m = new_model(L);
    char err[768];
    if (mo_urdf_load(w, abs, &o, m, err, sizeof err) != MO_OK) mo_lua_fail(L, "urdf", "%s", err);
    return push_robot(L, s, w, m, display, "urdf");
}

/* the loaded robot m (URDF or MJCF) as the Lua table moreau.urdf describes; who names the call in errors */
static int push_robot(lua_State *L, mo_scene_file *s, mo_world *w, mo_urdf_model *m, const char *display,
                      const char *who)
{
    /* every file it read must be inside the allowed folders */
    const char *bad = NULL;
    for (int i = 0; i < m->ncollisions && !bad; i++)
        if (!inside_roots(s, m->collisions[i].mesh_path)) bad = m->collisions[i].mesh_path;
    for (int i = 0; i < m->nvisuals && !bad; i++)
        if (!inside_roots(s, m->visuals[i].mesh_path)) bad = m->visuals[i].mesh_path;
    bool artic = !mo_articulation_id_is_null(m->articulation);
    s->objects += (artic ? 1 : m->nlinks + m->njoints) + m->ncollisions + m->nequalities;
    if (bad || s->objects > s->opt.max_objects) {
        char b[600];
        snprintf(b, sizeof b, "%s", bad ? bad : "");
        if (artic) mo_articulation_destroy(w, m->articulation);
        if (!mo_body_id_is_null(m->world_body)) mo_body_destroy(w, m->world_body);
        for (int i = 0; i < m->nlinks && !artic; i++) mo_body_destroy(w, m->links[i].body); /* also their joints */
        if (bad) mo_lua_fail(L, who, "%s: mesh '%s' is outside the scene's folder and the search paths", display, b);
        mo_lua_fail(L, "", "object limit of %d bodies, shapes, joints and particles reached", s->opt.max_objects);
    }
    lua_createtable(L, 0, 4);
    lua_pushstring(L, m->name);
    lua_setfield(L, -2, "name");
    if (artic) {
        mo_lua_push_articulation(L, m->articulation, m->name);
        lua_setfield(L, -2, "articulation");
        lua_createtable(L, 0, m->nlinks);
        for (int i = 0; i < m->nlinks; i++) {
            lua_pushinteger(L, i + 1);
            lua_setfield(L, -2, m->links[i].name);
        }
        lua_setfield(L, -2, "links");
        lua_createtable(L, 0, m->njoints);
        for (int i = 0; i < m->njoints; i++) {
            lua_pushinteger(L, m->joints[i].child_link + 1);
            lua_setfield(L, -2, m->joints[i].name);
        }
        lua_setfield(L, -2, "joints");
        push_warnings(L, s, m);
        return 1;
    }
    lua_createtable(L, 0, m->nlinks);
    for (int i = 0; i < m->nlinks; i++) {
        mo_lua_record_body(L, m->links[i].body, m->links[i].name);
        mo_lua_push_body(L, m->links[i].body, m->links[i].name);
        if (i == 0) {
            lua_pushvalue(L, -1);
            lua_setfield(L, -4, "root");
        }
        lua_setfield(L, -2, m->links[i].name);
    }
    lua_setfield(L, -2, "links");
    /* the visuals, kept for viewers (mo_scene_file_visuals) in their body's frame:
       link frame in the body composed with the visual's origin in the link frame */
    for (int i = 0; i < m->nvisuals; i++) {
        const mo_urdf_visual *v = &m->visuals[i];
        const mo_urdf_link *l = &m->links[v->link];
        if (v->type > MO_URDF_GEOM_MESH) continue; /* MJCF's capsules and planes: no scene visual kind */
        mo_scene_visual sv;
        memset(&sv, 0, sizeof sv);
        sv.body = l->body;
        sv.type = v->type;
        sv.size = v->size;
        sv.mesh_path = v->type == MO_URDF_GEOM_MESH ? v->mesh_path : "";
        mo_vec3 r = qrot(l->frame_orientation, v->position);
        sv.position = (mo_vec3){l->frame_position.x + r.x, l->frame_position.y + r.y, l->frame_position.z + r.z};
        sv.orientation = qmul(l->frame_orientation, v->orientation);
        memcpy(sv.rgba, v->rgba, sizeof sv.rgba);
        mo_lua_record_visual(L, &sv);
    }
    lua_createtable(L, 0, m->njoints);
    for (int i = 0; i < m->njoints; i++) {
        if (mo_joint_id_is_null(m->joints[i].joint)) continue;
        mo_lua_push_joint(L, m->joints[i].joint, m->joints[i].name);
        lua_setfield(L, -2, m->joints[i].name);
    }
    lua_setfield(L, -2, "joints");
    /* MJCF <equality> connect and weld: their joints by name (active ones) */
    lua_createtable(L, 0, m->nequalities);
    for (int i = 0; i < m->nequalities; i++) {
        if (mo_joint_id_is_null(m->equalities[i].joint)) continue;
        mo_lua_push_joint(L, m->equalities[i].joint, m->equalities[i].name);
        lua_setfield(L, -2, m->equalities[i].name);
    }
    lua_setfield(L, -2, "equalities");
    push_warnings(L, s, m);
    return 1;
}

/* moreau.mjcf(path [, {articulation, maximal, meshes, self_collision, friction, apply_option}]) or
   moreau.mjcf{file = path, ...the same keys}: an MJCF file (mo_mjcf_load) -> the table moreau.urdf returns
   (its links are the MJCF bodies, "world" first unless the root is free); mesh files only inside the scene's
   folders */
static int l_mjcf(lua_State *L)
{
    static const char *const keys[] = {"file", "articulation", "maximal", "meshes", "self_collision", "friction",
                                       "apply_option", NULL};
    lua_settop(L, 2);
    mo_scene_file *s = mo_lua_scene(L);
    mo_world *w = mo_lua_world(L);
    int opts = 2;
    if (lua_istable(L, 1)) { /* moreau.mjcf{file = ..., ...} */
        if (!lua_isnoneornil(L, 2)) mo_lua_fail(L, "mjcf", "give the options in the one table: mjcf{file = ..., ...}");
        lua_getfield(L, 1, "file");
        if (lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, "mjcf", "file must be the MJCF file's name");
        lua_replace(L, 2);
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_replace(L, 1);
        lua_replace(L, 2);
    } else if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))
        mo_lua_fail(L, "mjcf", "options must be a table, got %s", luaL_typename(L, 2));
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
    mo_lua_resolve_path(L, "mjcf", path, len, abs, display);
    mo_mjcf_options o = mo_default_mjcf_options();
    o.allow_file = urdf_allow_file;
    o.allow_user = s;
    o.search_paths = (const char *const *)s->roots;
    o.nsearch_paths = s->nroots < 64 ? s->nroots : 64;
    if (lua_istable(L, opts)) {
        mo_lua_check_keys(L, opts, "mjcf", keys);
        bool has_artic = lua_getfield(L, opts, "articulation") != LUA_TNIL;
        bool has_maximal = lua_getfield(L, opts, "maximal") != LUA_TNIL;
        lua_pop(L, 2);
        bool artic = mo_lua_bool_field(L, opts, "articulation", o.articulation, "mjcf");
        bool maximal = mo_lua_bool_field(L, opts, "maximal", !o.articulation, "mjcf");
        if (has_artic && has_maximal && artic == maximal)
            mo_lua_fail(L, "mjcf", "maximal = %s and articulation = %s contradict each other (give one of them)",
                        maximal ? "true" : "false", artic ? "true" : "false");
        o.articulation = has_maximal ? !maximal : artic;
        o.self_collision = mo_lua_bool_field(L, opts, "self_collision", o.self_collision, "mjcf");
        o.apply_option = mo_lua_bool_field(L, opts, "apply_option", o.apply_option, "mjcf");
        o.friction = mo_lua_num_field(L, opts, "friction", o.friction, "mjcf");
        if (lua_getfield(L, opts, "meshes") != LUA_TNIL) {
            const char *mm = lua_tostring(L, -1);
            int k = -1;
            for (int i = 0; mm && mesh_modes[i]; i++)
                if (!strcmp(mm, mesh_modes[i])) k = i;
            if (k < 0) mo_lua_fail(L, "mjcf", "meshes must be auto, hull or triangles");
            o.collision_meshes = (mo_urdf_mesh_mode)k;
        }
        lua_pop(L, 1);
    }
    mo_urdf_model *m = new_model(L);
    char err[768];
    if (mo_mjcf_load(w, abs, &o, m, err, sizeof err) != MO_OK) mo_lua_fail(L, "mjcf", "%s", err);
    return push_robot(L, s, w, m, display, "mjcf");
}
#endif

void mo_lua_open_import(lua_State *L)
{
#ifdef MO_HAVE_ASSIMP
    lua_pushcfunction(L, l_mesh);
    lua_setfield(L, -2, "mesh");
#endif
#ifdef MO_HAVE_URDF
    lua_pushcfunction(L, l_urdf);
    lua_setfield(L, -2, "urdf");
    lua_pushcfunction(L, l_mjcf);
    lua_setfield(L, -2, "mjcf");
#endif
    (void)L;
}
