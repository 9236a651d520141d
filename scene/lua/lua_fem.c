/* lua_fem.c: fem{} for scene files (issue 7): tetrahedral FEM meshes through
 * mo_fem_mesh_create (moreau.h, block "FEM meshes").
 *
 *   fem{name, mesh = "models/tet/bar.msh" | nodes = {{x, y, z}, ...} + tets = {{i, j, k, l}, ...},
 *       material = {model = "corotational"|"neo_hookean", young, poisson, density}
 *         | materials = {{model, young, poisson, density}, ...} + element_material,
 *       activation, position, orientation, velocity, fixed, attach, friction, radius}  -> a mesh handle
 *
 * Per-element data (issue 7): element_material is a list of material numbers
 * (from 1, one per element) or a function(cx, cy, cz) of the element's
 * centroid (world, at creation) returning one; activation is a number (every
 * element), a list (one per element) or such a function returning a number.
 * attach = a list of {node, body[, compliance]} (or {node = , body = ,
 * compliance = }), or a function(x, y, z) of each node's world position at
 * creation returning nil/false (free), a body, or a body and a compliance:
 * those nodes are held to the body where they are (mo_fem_mesh_attach). Every
 * attachment is checked (node numbers, live bodies, compliance >= 0, not a
 * fixed node, not twice) before the mesh is created. Methods attach(node,
 * body[, compliance]), detach(node), attachment_force(node) (N on the node
 * from the body, last step) and element_centroid(e) (current, world) go with
 * node_position and set_activation.
 *
 * Numbers seen from Lua count from 1: tets name nodes by their number in
 * nodes (or, for a file, the node's place in the file, from 1 whatever the
 * file's own numbering); fixed nodes, node_position(i), set_fixed_velocity(i, v)
 * and set_activation(e, a) likewise. The engine's sentences count from 0;
 * where they name a tetrahedron, element or node, the scene's number is added.
 * fixed is a list whose entries are a node number (all three axes held) or
 * {node, "xyz"-letters} (those world axes held), or a function(x, y, z) called
 * once per node with its world position at creation, returning false/nil
 * (free), true (all axes) or a string of axis letters ("z", "yz").
 * Mesh files go through the sandbox's path check (mo_lua_resolve_path) and
 * mo_tetmesh_load. The solver must be newton (the engine refuses any other;
 * the message says how to choose it in a scene). On any error the world is
 * unchanged: every check runs before mo_fem_mesh_create, which checks again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_internal.h"
#include "moreau/tetmesh.h"

#define FEM_MT "moreau.fem"
#define MO_ERR_LEN_LUA 512

typedef struct lfem { mo_fem_mesh_id id; } lfem;

static int tetmesh_gc(lua_State *L)
{
    mo_tetmesh_free((mo_tetmesh *)lua_touserdata(L, 1));
    return 0;
}

/* a zeroed scratch block owned by a userdata left on the stack (freed by the GC, so a Lua error leaks nothing) */
static void *scratch(lua_State *L, size_t n)
{
    void *p = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(p, 0, n ? n : 1);
    return p;
}

/* length of the list at idx (must be a table) */
static lua_Integer list_len(lua_State *L, int idx, const char *ctx, const char *what, lua_Integer max)
{
    if (!lua_istable(L, idx)) mo_lua_fail(L, ctx, "%s must be a table, got %s", what, luaL_typename(L, idx));
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > max) mo_lua_fail(L, ctx, "%s: too many entries (%lld)", what, (long long)n);
    return n;
}

/* an integer value at idx in [1, hi] */
static int int_in(lua_State *L, int idx, const char *ctx, const char *what, int hi)
{
    int isnum = 0;
    double d = lua_tonumberx(L, idx, &isnum);
    if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
        mo_lua_fail(L, ctx, "%s must be a number, got %s", what, luaL_typename(L, idx));
    if (!(d >= 1 && d <= hi) || d != floor(d)) mo_lua_fail(L, ctx, "%s: node number %g is not in 1..%d", what, d, hi);
    return (int)d - 1;
}

/* axes letters -> mask (1 x, 2 y, 4 z) */
static unsigned char axes_mask(lua_State *L, int idx, const char *ctx, const char *what)
{
    const char *s = lua_tostring(L, idx);
    unsigned m = 0;
    for (const char *c = s; *c; c++) {
        if (*c == 'x') m |= 1u;
        else if (*c == 'y') m |= 2u;
        else if (*c == 'z') m |= 4u;
        else mo_lua_fail(L, ctx, "%s: axes '%s' must be letters among x, y, z", what, s);
    }
    if (!m) mo_lua_fail(L, ctx, "%s: axes must name at least one of x, y, z", what);
    return (unsigned char)m;
}

static mo_vec3 qrot(mo_quat q, mo_vec3 v)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    q.w /= n, q.x /= n, q.y /= n, q.z /= n;
    double tx = 2 * (q.y * v.z - q.z * v.y), ty = 2 * (q.z * v.x - q.x * v.z), tz = 2 * (q.x * v.y - q.y * v.x);
    return (mo_vec3){v.x + q.w * tx + (q.y * tz - q.z * ty), v.y + q.w * ty + (q.z * tx - q.x * tz),
                     v.z + q.w * tz + (q.x * ty - q.y * tx)};
}

/* the engine's sentence, with the scene's 1-based number added where it names one */
static int fem_fail(lua_State *L, const char *ctx, const char *msg, bool inline_mesh)
{
    static const struct { const char *key, *lua_inline, *lua_file; } names[] = {
        {"tetrahedron ", "tets[%d]", "tetrahedron %d counting from 1"},
        {"FEM element ", "tets[%d]", "element %d counting from 1"},
        {"FEM node ", "nodes[%d]", "node %d counting from 1"},
    };
    char extra[128] = "";
    for (size_t k = 0; k < sizeof names / sizeof names[0] && !extra[0]; k++) {
        const char *p = strstr(msg, names[k].key);
        int i;
        if (p && sscanf(p + strlen(names[k].key), "%d", &i) == 1) {
            char what[96];
            snprintf(what, sizeof what, inline_mesh ? names[k].lua_inline : names[k].lua_file, i + 1);
            snprintf(extra, sizeof extra, " (%s in the scene)", what);
        }
    }
    return mo_lua_fail(L, ctx, "%s%s", msg, extra);
}

/* a material table at the top of the stack into *mat (what: "material" or "materials[k]") */
static void read_material(lua_State *L, const char *ctx, const char *what, mo_fem_material_def *mat)
{
    static const char *const mat_keys[] = {"model", "young", "poisson", "density", NULL};
    if (!lua_istable(L, -1))
        mo_lua_fail(L, ctx, "%s must be {model = \"corotational\"|\"neo_hookean\", young, poisson, density}, got %s", what,
                    luaL_typename(L, -1));
    mo_lua_check_keys(L, -1, ctx, mat_keys);
    *mat = (mo_fem_material_def){0, 0, 0, MO_FEM_COROTATIONAL};
    if (lua_getfield(L, -1, "model") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, ctx, "%s.model must be a string, got %s", what, luaL_typename(L, -1));
        const char *m = lua_tostring(L, -1);
        if (!strcmp(m, "corotational")) mat->model = MO_FEM_COROTATIONAL;
        else if (!strcmp(m, "neo_hookean")) mat->model = MO_FEM_NEO_HOOKEAN;
        else mo_lua_fail(L, ctx, "%s.model '%s' is not one of corotational, neo_hookean", what, m);
    }
    lua_pop(L, 1);
    static const char *const req[] = {"young", "poisson", "density"};
    double mv[3];
    for (int k = 0; k < 3; k++) {
        if (lua_getfield(L, -1, req[k]) == LUA_TNIL) mo_lua_fail(L, ctx, "%s needs %s", what, req[k]);
        lua_pop(L, 1);
        mv[k] = mo_lua_num_field(L, -1, req[k], 0.0, ctx);
    }
    mat->young = mv[0], mat->poisson = mv[1], mat->density = mv[2];
}

/* centroid of element t (world, at creation) */
static mo_vec3 centroid(const mo_fem_mesh_def *d, const mo_vec3 *rest, const int *tets, int t)
{
    mo_vec3 c = {0, 0, 0};
    for (int a = 0; a < 4; a++) {
        mo_vec3 p = rest[tets[4 * t + a]];
        c.x += 0.25 * p.x, c.y += 0.25 * p.y, c.z += 0.25 * p.z;
    }
    mo_vec3 r = qrot(d->orientation, c);
    return (mo_vec3){r.x + d->position.x, r.y + d->position.y, r.z + d->position.z};
}

/* calls the function at fi with (x, y, z), leaving nres results */
static void call_xyz(lua_State *L, int fi, mo_vec3 p, int nres)
{
    lua_pushvalue(L, fi);
    lua_pushnumber(L, p.x);
    lua_pushnumber(L, p.y);
    lua_pushnumber(L, p.z);
    lua_call(L, 3, nres);
}

#define BODY_MT_NAME "moreau.body" /* lua_api.c's body handles: userdata starting with the mo_body_id */

static int l_fem(lua_State *L)
{
    static const char *const keys[] = {"name", "mesh", "nodes", "tets", "material", "materials", "element_material",
                                       "activation", "position", "orientation", "velocity", "fixed", "attach",
                                       "friction", "radius", NULL};
    mo_scene_file *s = mo_lua_scene(L);
    mo_world *w = mo_lua_world(L);
    lua_settop(L, 1);
    if (!lua_istable(L, 1)) mo_lua_fail(L, "fem", "expects a table of named fields, got %s", luaL_typename(L, 1));
    const char *name = NULL;
    if (lua_getfield(L, 1, "name") == LUA_TSTRING) name = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1)) mo_lua_fail(L, "fem", "name must be a string, got %s", luaL_typename(L, -1));
    lua_pop(L, 1); /* the table keeps it alive */
    char ctx[160];
    if (name) snprintf(ctx, sizeof ctx, "fem '%s'", name);
    else snprintf(ctx, sizeof ctx, "fem");
    mo_lua_check_keys(L, 1, ctx, keys);

    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    /* materials: material = {...} or materials = {{...}, ...} */
    bool has_mat = lua_getfield(L, 1, "material") != LUA_TNIL;
    lua_pop(L, 1);
    bool has_mats = lua_getfield(L, 1, "materials") != LUA_TNIL;
    lua_pop(L, 1);
    if (has_mat && has_mats) mo_lua_fail(L, ctx, "give material (one) or materials (a list), not both");
    int nmat = 1;
    mo_fem_material_def *mats;
    if (has_mats) {
        lua_getfield(L, 1, "materials");
        int mi = lua_gettop(L);
        nmat = (int)list_len(L, mi, ctx, "materials", 100000);
        if (nmat < 1) mo_lua_fail(L, ctx, "materials must list at least one material");
        mats = (mo_fem_material_def *)scratch(L, (size_t)nmat * sizeof *mats);
        for (int k = 0; k < nmat; k++) {
            char what[48];
            snprintf(what, sizeof what, "materials[%d]", k + 1);
            lua_rawgeti(L, mi, k + 1);
            read_material(L, ctx, what, &mats[k]);
            lua_pop(L, 1);
        }
    } else {
        mats = (mo_fem_material_def *)scratch(L, sizeof *mats);
        if (lua_getfield(L, 1, "material") != LUA_TTABLE)
            mo_lua_fail(L, ctx, "needs material = {model = \"corotational\"|\"neo_hookean\", young, poisson, density}, got %s",
                        luaL_typename(L, -1));
        read_material(L, ctx, "material", &mats[0]);
        lua_pop(L, 1);
    }
    d.materials = mats;
    d.material_count = nmat;

    /* pose, velocity, contact */
    d.position = mo_lua_vec_field(L, 1, "position", d.position, ctx);
    if (lua_getfield(L, 1, "orientation") != LUA_TNIL) {
        if (!lua_istable(L, -1)) mo_lua_fail(L, ctx, "orientation must be {w, x, y, z}, got %s", luaL_typename(L, -1));
        static const char *const wxyz[] = {"w", "x", "y", "z"};
        double q[4];
        for (int k = 0; k < 4; k++) {
            if (lua_rawgeti(L, -1, k + 1) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_getfield(L, -1, wxyz[k]);
            }
            if (lua_type(L, -1) != LUA_TNUMBER)
                mo_lua_fail(L, ctx, "orientation.%s must be a number, got %s", wxyz[k], luaL_typename(L, -1));
            q[k] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        d.orientation = (mo_quat){q[0], q[1], q[2], q[3]};
    }
    lua_pop(L, 1);
    d.velocity = mo_lua_vec_field(L, 1, "velocity", d.velocity, ctx);
    d.friction = mo_lua_num_field(L, 1, "friction", d.friction, ctx);
    d.radius = mo_lua_num_field(L, 1, "radius", d.radius, ctx);

    /* the mesh: a file or nodes + tets */
    bool has_mesh = lua_getfield(L, 1, "mesh") != LUA_TNIL;
    lua_pop(L, 1);
    bool has_nodes = lua_getfield(L, 1, "nodes") != LUA_TNIL;
    lua_pop(L, 1);
    bool has_tets = lua_getfield(L, 1, "tets") != LUA_TNIL;
    lua_pop(L, 1);
    if (has_mesh && (has_nodes || has_tets)) mo_lua_fail(L, ctx, "give mesh (a file) or nodes and tets, not both");
    if (!has_mesh && !(has_nodes && has_tets))
        mo_lua_fail(L, ctx, "needs mesh = \"file.msh\" (or .node/.ele) or nodes = {{x, y, z}, ...} and tets = {{i, j, k, l}, ...}");
    int nn = 0, nt = 0;
    const mo_vec3 *rest = NULL; /* mesh-frame node positions */
    if (has_mesh) {
        lua_getfield(L, 1, "mesh");
        if (lua_type(L, -1) != LUA_TSTRING) mo_lua_fail(L, ctx, "mesh must be a file name, got %s", luaL_typename(L, -1));
        size_t len;
        const char *path = lua_tolstring(L, -1, &len);
        char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
        mo_lua_resolve_path(L, ctx, path, len, abs, display);
        mo_tetmesh *tm = (mo_tetmesh *)scratch(L, sizeof *tm);
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, tetmesh_gc);
        lua_setfield(L, -2, "__gc");
        lua_setmetatable(L, -2);
        char err[768];
        if (mo_tetmesh_load(abs, tm, err, sizeof err) != MO_OK) {
            /* show the file as the scene names it: the loaded file's folder as displayed */
            const char *sa = strrchr(abs, '/'), *sd = strrchr(display, '/');
            size_t na = sa ? (size_t)(sa - abs + 1) : 0, nd = sd ? (size_t)(sd - display + 1) : 0;
            if (na && !strncmp(err, abs, na)) mo_lua_fail(L, ctx, "%.*s%s", (int)nd, display, err + na);
            mo_lua_fail(L, ctx, "%s", err);
        }
        d.mesh = tm;
        nn = tm->nnodes;
        nt = tm->ntets;
        mo_vec3 *r = (mo_vec3 *)scratch(L, (size_t)nn * sizeof *r);
        for (int i = 0; i < nn; i++) r[i] = (mo_vec3){tm->nodes[3 * i], tm->nodes[3 * i + 1], tm->nodes[3 * i + 2]};
        rest = r;
    } else {
        lua_getfield(L, 1, "nodes");
        int ni = lua_gettop(L);
        nn = (int)list_len(L, ni, ctx, "nodes", 10000000);
        mo_vec3 *nodes = (mo_vec3 *)scratch(L, (size_t)nn * sizeof *nodes);
        char what[48];
        for (int i = 0; i < nn; i++) {
            lua_rawgeti(L, ni, i + 1);
            snprintf(what, sizeof what, "nodes[%d]", i + 1);
            nodes[i] = mo_lua_to_vec(L, -1, ctx, what);
            lua_pop(L, 1);
        }
        lua_getfield(L, 1, "tets");
        int ti = lua_gettop(L);
        nt = (int)list_len(L, ti, ctx, "tets", 10000000);
        int *tets = (int *)scratch(L, (size_t)nt * 4 * sizeof *tets);
        for (int t = 0; t < nt; t++) {
            lua_rawgeti(L, ti, t + 1);
            snprintf(what, sizeof what, "tets[%d]", t + 1);
            if (!lua_istable(L, -1) || lua_rawlen(L, -1) != 4)
                mo_lua_fail(L, ctx, "%s must be {i, j, k, l} (1-based node numbers), got %s", what,
                            lua_istable(L, -1) ? "a table of another length" : luaL_typename(L, -1));
            for (int c = 0; c < 4; c++) {
                lua_rawgeti(L, -1, c + 1);
                tets[4 * t + c] = int_in(L, -1, ctx, what, nn);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        d.nodes = nodes;
        d.node_count = nn;
        d.tets = tets;
        d.tet_count = nt;
        rest = nodes;
    }

    /* fixed nodes */
    if (lua_getfield(L, 1, "fixed") != LUA_TNIL) {
        int fi = lua_gettop(L);
        int *fixed = (int *)scratch(L, (size_t)nn * sizeof *fixed);
        unsigned char *axes = (unsigned char *)scratch(L, (size_t)nn);
        int nf = 0;
        if (lua_isfunction(L, fi)) {
            for (int i = 0; i < nn; i++) {
                mo_vec3 p = qrot(d.orientation, rest[i]);
                lua_pushvalue(L, fi);
                lua_pushnumber(L, p.x + d.position.x);
                lua_pushnumber(L, p.y + d.position.y);
                lua_pushnumber(L, p.z + d.position.z);
                lua_call(L, 3, 1);
                int t = lua_type(L, -1);
                if (t == LUA_TSTRING) {
                    char what[64];
                    snprintf(what, sizeof what, "fixed(...) for node %d", i + 1);
                    axes[nf] = axes_mask(L, -1, ctx, what);
                    fixed[nf++] = i;
                } else if (t == LUA_TBOOLEAN || t == LUA_TNIL) {
                    if (lua_toboolean(L, -1)) axes[nf] = 7, fixed[nf++] = i;
                } else {
                    mo_lua_fail(L, ctx, "fixed(x, y, z) must return true, false, nil or axis letters (\"z\"), got %s for node %d",
                                luaL_typename(L, -1), i + 1);
                }
                lua_pop(L, 1);
            }
        } else {
            lua_Integer n = list_len(L, fi, ctx, "fixed (a list of node numbers or a function(x, y, z))", nn);
            for (int k = 0; k < (int)n; k++) {
                char what[48];
                snprintf(what, sizeof what, "fixed[%d]", k + 1);
                lua_rawgeti(L, fi, k + 1);
                if (lua_istable(L, -1)) {
                    lua_rawgeti(L, -1, 1);
                    fixed[nf] = int_in(L, -1, ctx, what, nn);
                    lua_pop(L, 1);
                    if (lua_rawgeti(L, -1, 2) != LUA_TSTRING)
                        mo_lua_fail(L, ctx, "%s must be a node number or {node, \"axes\"}, got a %s as axes", what,
                                    luaL_typename(L, -1));
                    axes[nf++] = axes_mask(L, -1, ctx, what);
                    lua_pop(L, 1);
                } else {
                    axes[nf] = 7;
                    fixed[nf++] = int_in(L, -1, ctx, what, nn);
                }
                lua_pop(L, 1);
            }
        }
        d.fixed_nodes = fixed;
        d.fixed_axes = axes;
        d.fixed_count = nf;
    } else {
        lua_pop(L, 1);
    }

    const int *tets_used = d.mesh ? d.mesh->tets : d.tets;
    /* per-element materials */
    if (lua_getfield(L, 1, "element_material") != LUA_TNIL) {
        int ei = lua_gettop(L);
        int *em = (int *)scratch(L, (size_t)nt * sizeof *em);
        char what[64];
        if (lua_isfunction(L, ei)) {
            for (int t = 0; t < nt; t++) {
                call_xyz(L, ei, centroid(&d, rest, tets_used, t), 1);
                snprintf(what, sizeof what, "element_material(...) for element %d", t + 1);
                if (lua_type(L, -1) != LUA_TNUMBER)
                    mo_lua_fail(L, ctx, "%s must return a material number, got %s", what, luaL_typename(L, -1));
                double v = lua_tonumber(L, -1);
                if (!(v >= 1 && v <= nmat) || v != floor(v))
                    mo_lua_fail(L, ctx, "%s: material number %g is not in 1..%d", what, v, nmat);
                em[t] = (int)v - 1;
                lua_pop(L, 1);
            }
        } else {
            lua_Integer n = list_len(L, ei, ctx, "element_material (a list or a function(x, y, z))", 10000000);
            if (n != nt) mo_lua_fail(L, ctx, "element_material lists %lld materials for %d elements", (long long)n, nt);
            for (int t = 0; t < nt; t++) {
                lua_rawgeti(L, ei, t + 1);
                snprintf(what, sizeof what, "element_material[%d]", t + 1);
                if (lua_type(L, -1) != LUA_TNUMBER) mo_lua_fail(L, ctx, "%s must be a number, got %s", what, luaL_typename(L, -1));
                double v = lua_tonumber(L, -1);
                if (!(v >= 1 && v <= nmat) || v != floor(v))
                    mo_lua_fail(L, ctx, "%s: material number %g is not in 1..%d", what, v, nmat);
                em[t] = (int)v - 1;
                lua_pop(L, 1);
            }
        }
        d.element_material = em;
    } else {
        lua_pop(L, 1);
    }
    /* activation: a number, a list, or a function of the centroid */
    if (lua_getfield(L, 1, "activation") != LUA_TNIL) {
        int ai = lua_gettop(L);
        double *act = (double *)scratch(L, (size_t)nt * sizeof *act);
        if (lua_type(L, ai) == LUA_TNUMBER) {
            for (int t = 0; t < nt; t++) act[t] = lua_tonumber(L, ai);
        } else if (lua_isfunction(L, ai)) {
            for (int t = 0; t < nt; t++) {
                call_xyz(L, ai, centroid(&d, rest, tets_used, t), 1);
                if (lua_type(L, -1) != LUA_TNUMBER)
                    mo_lua_fail(L, ctx, "activation(...) must return a number, got %s for element %d", luaL_typename(L, -1), t + 1);
                act[t] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
        } else {
            lua_Integer n = list_len(L, ai, ctx, "activation (a number, a list or a function(x, y, z))", 10000000);
            if (n != nt) mo_lua_fail(L, ctx, "activation lists %lld values for %d elements", (long long)n, nt);
            for (int t = 0; t < nt; t++) {
                lua_rawgeti(L, ai, t + 1);
                if (lua_type(L, -1) != LUA_TNUMBER)
                    mo_lua_fail(L, ctx, "activation[%d] must be a number, got %s", t + 1, luaL_typename(L, -1));
                act[t] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
        }
        d.activation = act;
    } else {
        lua_pop(L, 1);
    }
    /* attachments, all checked before the mesh exists */
    int natt = 0;
    int *anode = NULL;
    mo_body_id *abody = NULL;
    double *acomp = NULL;
    if (lua_getfield(L, 1, "attach") != LUA_TNIL) {
        int ai = lua_gettop(L);
        anode = (int *)scratch(L, (size_t)nn * sizeof *anode);
        abody = (mo_body_id *)scratch(L, (size_t)nn * sizeof *abody);
        acomp = (double *)scratch(L, (size_t)nn * sizeof *acomp);
        unsigned char *seen = (unsigned char *)scratch(L, (size_t)nn);
        char what[64];
        if (lua_isfunction(L, ai)) {
            for (int i = 0; i < nn; i++) {
                mo_vec3 p = qrot(d.orientation, rest[i]);
                call_xyz(L, ai, (mo_vec3){p.x + d.position.x, p.y + d.position.y, p.z + d.position.z}, 2);
                if (!lua_toboolean(L, -2)) {
                    lua_pop(L, 2);
                    continue;
                }
                snprintf(what, sizeof what, "attach(...) for node %d", i + 1);
                void *u = luaL_testudata(L, -2, BODY_MT_NAME);
                if (!u) mo_lua_fail(L, ctx, "%s must return nil, false or a body, got %s", what, luaL_typename(L, -2));
                anode[natt] = i;
                abody[natt] = *(const mo_body_id *)u;
                acomp[natt] = 0.0;
                if (!lua_isnil(L, -1)) {
                    if (lua_type(L, -1) != LUA_TNUMBER)
                        mo_lua_fail(L, ctx, "%s: the compliance must be a number, got %s", what, luaL_typename(L, -1));
                    acomp[natt] = lua_tonumber(L, -1);
                }
                natt++;
                lua_pop(L, 2);
            }
        } else {
            lua_Integer n = list_len(L, ai, ctx, "attach (a list of {node, body[, compliance]} or a function(x, y, z))", nn);
            for (int k = 0; k < (int)n; k++) {
                snprintf(what, sizeof what, "attach[%d]", k + 1);
                lua_rawgeti(L, ai, k + 1);
                if (!lua_istable(L, -1))
                    mo_lua_fail(L, ctx, "%s must be {node, body[, compliance]}, got %s", what, luaL_typename(L, -1));
                static const char *const fk[3] = {"node", "body", "compliance"};
                for (int f = 0; f < 3; f++) {
                    if (lua_rawgeti(L, -1 - f, f + 1) == LUA_TNIL) {
                        lua_pop(L, 1);
                        lua_getfield(L, -1 - f, fk[f]);
                    }
                }
                /* stack: entry, node, body, compliance */
                anode[natt] = int_in(L, -3, ctx, what, nn);
                void *u = luaL_testudata(L, -2, BODY_MT_NAME);
                if (!u) mo_lua_fail(L, ctx, "%s: body must be a body, got %s", what, luaL_typename(L, -2));
                abody[natt] = *(const mo_body_id *)u;
                acomp[natt] = 0.0;
                if (!lua_isnil(L, -1)) {
                    if (lua_type(L, -1) != LUA_TNUMBER)
                        mo_lua_fail(L, ctx, "%s: compliance must be a number, got %s", what, luaL_typename(L, -1));
                    acomp[natt] = lua_tonumber(L, -1);
                }
                natt++;
                lua_pop(L, 4);
            }
        }
        for (int k = 0; k < natt; k++) {
            int i = anode[k];
            if (!mo_body_is_valid(w, abody[k]))
                mo_lua_fail(L, ctx, "attach: node %d: the body (index %u) is not a live body", i + 1, abody[k].index);
            if (!(acomp[k] >= 0.0) || !isfinite(acomp[k]))
                mo_lua_fail(L, ctx, "attach: node %d: compliance must be finite and >= 0, got %g", i + 1, acomp[k]);
            if (seen[i]) mo_lua_fail(L, ctx, "attach: node %d is attached twice", i + 1);
            seen[i] = 1;
            for (int f = 0; f < d.fixed_count; f++)
                if (d.fixed_nodes[f] == i) mo_lua_fail(L, ctx, "attach: node %d is a fixed node: it cannot also be attached", i + 1);
        }
    } else {
        lua_pop(L, 1);
    }

    /* the nodes are particles: count them against the object limit before creating */
    if (s->objects + (long long)nn > s->opt.max_objects)
        mo_lua_fail(L, "", "object limit of %d bodies, shapes, joints and particles reached", s->opt.max_objects);
    mo_fem_mesh_id id;
    if (mo_fem_mesh_create(w, &d, &id) != MO_OK) {
        const char *e = mo_world_last_error(w);
        if (!(mo_solver_caps(mo_world_solver(w).kind) & MO_SOLVER_CAP_FEM))
            mo_lua_fail(L, ctx, "%s: give world{solver = {kind = \"newton\"}} (or call moreau.set_solver{kind = "
                        "\"newton\"}) before fem{}", e);
        fem_fail(L, ctx, e, !has_mesh);
    }
    for (int k = 0; k < natt; k++) /* checked above: cannot fail but for memory */
        if (mo_fem_mesh_attach(w, id, anode[k], abody[k], acomp[k]) != MO_OK) {
            char e[MO_ERR_LEN_LUA];
            snprintf(e, sizeof e, "%s", mo_world_last_error(w));
            mo_fem_mesh_destroy(w, id);
            fem_fail(L, ctx, e, !has_mesh);
        }
    s->objects += nn;
    lfem *f = (lfem *)lua_newuserdatauv(L, sizeof *f, 1);
    f->id = id;
    luaL_setmetatable(L, FEM_MT);
    if (name) {
        lua_pushstring(L, name);
        lua_setiuservalue(L, -2, 1);
    }
    return 1;
}

/* ---- methods ---- */

/* self and its context string */
static mo_fem_mesh_id self(lua_State *L, char *ctx, size_t n)
{
    lfem *f = (lfem *)luaL_testudata(L, 1, FEM_MT);
    if (!f) mo_lua_fail(L, "", "expected an FEM mesh (call it as m:method()), got %s", luaL_typename(L, 1));
    if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) snprintf(ctx, n, "fem '%s'", lua_tostring(L, -1));
    else snprintf(ctx, n, "fem");
    lua_pop(L, 1);
    return f->id;
}

static int world_fail(lua_State *L, const char *ctx) { return fem_fail(L, ctx, mo_world_last_error(mo_lua_world(L)), false); }

static void counts(lua_State *L, mo_fem_mesh_id id, const char *ctx, int *nn, int *ne)
{
    if (mo_fem_mesh_counts(mo_lua_world(L), id, nn, ne) != MO_OK) world_fail(L, ctx);
}

/* a 1-based number argument in 1..hi, returned 0-based */
static int arg_index(lua_State *L, int idx, const char *ctx, const char *what, int hi)
{
    if (lua_type(L, idx) != LUA_TNUMBER) mo_lua_fail(L, ctx, "%s must be a number, got %s", what, luaL_typename(L, idx));
    double v = lua_tonumber(L, idx);
    if (!(v >= 1 && v <= hi) || v != floor(v)) mo_lua_fail(L, ctx, "%s %g is not in 1..%d", what, v, hi);
    return (int)v - 1;
}

static int m_node_count(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    lua_pushinteger(L, nn);
    return 1;
}

static int m_element_count(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    lua_pushinteger(L, ne);
    return 1;
}

static int m_node_position(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int i = arg_index(L, 2, ctx, "node", nn);
    mo_vec3 p;
    if (mo_fem_mesh_node_position(mo_lua_world(L), id, i, &p) != MO_OK) world_fail(L, ctx);
    mo_lua_push_vec(L, p);
    return 1;
}

static int volumes(lua_State *L, bool current)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    double cur, rest;
    if (mo_fem_mesh_volume(mo_lua_world(L), id, &cur, &rest) != MO_OK) world_fail(L, ctx);
    lua_pushnumber(L, current ? cur : rest);
    return 1;
}

static int m_volume(lua_State *L) { return volumes(L, true); }
static int m_rest_volume(lua_State *L) { return volumes(L, false); }

static int m_set_fixed_velocity(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int i = arg_index(L, 2, ctx, "node", nn);
    mo_vec3 v = mo_lua_to_vec(L, 3, ctx, "velocity");
    if (mo_fem_mesh_set_fixed_velocity(mo_lua_world(L), id, i, v) != MO_OK) world_fail(L, ctx);
    return 0;
}

static int m_set_activation(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int e = arg_index(L, 2, ctx, "element", ne);
    if (lua_type(L, 3) != LUA_TNUMBER) mo_lua_fail(L, ctx, "activation must be a number, got %s", luaL_typename(L, 3));
    if (mo_fem_mesh_set_activation(mo_lua_world(L), id, e, lua_tonumber(L, 3)) != MO_OK) world_fail(L, ctx);
    return 0;
}

/* a body argument (lua_api.c's handles) */
static mo_body_id body_arg(lua_State *L, int idx, const char *ctx)
{
    void *u = luaL_testudata(L, idx, BODY_MT_NAME);
    if (!u) mo_lua_fail(L, ctx, "body must be a body, got %s", luaL_typename(L, idx));
    return *(const mo_body_id *)u;
}

static int m_attach(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int i = arg_index(L, 2, ctx, "node", nn);
    mo_body_id b = body_arg(L, 3, ctx);
    double c = 0.0;
    if (!lua_isnoneornil(L, 4)) {
        if (lua_type(L, 4) != LUA_TNUMBER) mo_lua_fail(L, ctx, "compliance must be a number, got %s", luaL_typename(L, 4));
        c = lua_tonumber(L, 4);
    }
    if (mo_fem_mesh_attach(mo_lua_world(L), id, i, b, c) != MO_OK) world_fail(L, ctx);
    return 0;
}

static int m_detach(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int i = arg_index(L, 2, ctx, "node", nn);
    if (mo_fem_mesh_detach(mo_lua_world(L), id, i) != MO_OK) world_fail(L, ctx);
    return 0;
}

static int m_attachment_force(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int i = arg_index(L, 2, ctx, "node", nn);
    mo_vec3 f;
    if (mo_fem_mesh_attachment(mo_lua_world(L), id, i, NULL, &f) != MO_OK) world_fail(L, ctx);
    mo_lua_push_vec(L, f);
    return 1;
}

static int m_element_centroid(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    int nn, ne;
    counts(L, id, ctx, &nn, &ne);
    int e = arg_index(L, 2, ctx, "element", ne);
    mo_vec3 c;
    if (mo_fem_mesh_element_centroid(mo_lua_world(L), id, e, &c) != MO_OK) world_fail(L, ctx);
    mo_lua_push_vec(L, c);
    return 1;
}

static int m_destroy(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    mo_world *w = mo_lua_world(L);
    int nn = 0, ne;
    if (mo_fem_mesh_counts(w, id, &nn, &ne) != MO_OK) world_fail(L, ctx);
    if (mo_fem_mesh_destroy(w, id) != MO_OK) world_fail(L, ctx);
    return 0;
}

static int m_valid(lua_State *L)
{
    char ctx[160];
    mo_fem_mesh_id id = self(L, ctx, sizeof ctx);
    lua_pushboolean(L, mo_fem_mesh_is_valid(mo_lua_world(L), id));
    return 1;
}

static int m_name(lua_State *L)
{
    char ctx[160];
    self(L, ctx, sizeof ctx);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

static int m_tostring(lua_State *L)
{
    lfem *f = (lfem *)luaL_checkudata(L, 1, FEM_MT);
    mo_lua_push_handle_string(L, "fem mesh", f->id.index);
    return 1;
}

void mo_lua_open_fem(lua_State *L)
{
    static const luaL_Reg methods[] = {{"node_count", m_node_count},
                                       {"element_count", m_element_count},
                                       {"node_position", m_node_position},
                                       {"volume", m_volume},
                                       {"rest_volume", m_rest_volume},
                                       {"set_fixed_velocity", m_set_fixed_velocity},
                                       {"set_activation", m_set_activation},
                                       {"attach", m_attach},
                                       {"detach", m_detach},
                                       {"attachment_force", m_attachment_force},
                                       {"element_centroid", m_element_centroid},
                                       {"destroy", m_destroy},
                                       {"valid", m_valid},
                                       {"name", m_name},
                                       {NULL, NULL}};
    luaL_newmetatable(L, FEM_MT);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    /* fem: a field of the moreau table at the top of the stack and a global */
    lua_pushcfunction(L, l_fem);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "fem");
    lua_setglobal(L, "fem");
}
