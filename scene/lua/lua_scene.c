/* lua_scene.c: the sandbox a scene file runs in and the public mo_scene_file_*
 * entry points.
 *
 * Sandbox: a fresh lua_State whose allocator counts bytes against
 * opt.memory_limit; a count hook charges every 1000 VM instructions against the
 * running call's budget (loading, one step's callbacks, one check). Opened:
 * the base library without dofile, loadfile, load of binary chunks (load is
 * text-only, its env defaults to the scene's), collectgarbage limited to
 * "collect", "count", "step" and "isrunning"; math, string (without
 * string.dump), table; os with clock only. No io, debug, package, coroutine,
 * utf8. require/include read .lua text files from the scene's folder or the
 * search folders only (realpath, then a prefix check: no .. or symlink escapes).
 * setmetatable refuses __gc (finalizers run with hooks off); xpcall skips the
 * user's handler for budget errors (handlers of hook errors run with hooks off).
 * Once a budget or the memory cap is exhausted, pcall/xpcall inside the script
 * re-raise, so a script cannot swallow the error and go on. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lualib.h>

#include "lua_internal.h"

#define HOOK_INSTRUCTIONS 1000
#define MAX_SOURCE_BYTES (64u << 20)

static const int options_cookie = 0x4d6f5363; /* "MoSc" */

mo_scene_options mo_default_scene_options(void)
{
    mo_scene_options o;
    memset(&o, 0, sizeof o);
    o.load_instructions = 200000000ull;
    o.step_instructions = 20000000ull;
    o.check_instructions = 20000000ull;
    o.memory_limit = (size_t)512 << 20;
    o.max_objects = 1000000;
    o.internal_value = options_cookie;
    return o;
}

mo_scene_file *mo_lua_scene(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (mo_scene_file *)ud;
}

/* ---- allocator and budget ---- */

static void *scene_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mo_scene_file *s = (mo_scene_file *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->mem_used -= old;
        return NULL;
    }
    if (nsize > old && (nsize - old > s->opt.memory_limit || s->mem_used + (nsize - old) > s->opt.memory_limit)) {
        s->mem_refused = true;
        s->dead = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        s->mem_refused = true;
        s->dead = true;
        return NULL;
    }
    s->mem_used = s->mem_used - old + nsize;
    /* C work that grows memory is charged to the instruction budget: a new string
       (osize is then the object's type) one instruction a byte, since every string the
       script builds (.., string.rep, table.concat, format, gsub) was copied byte by
       byte in C where the count hook does not run; other growth (tables, buffers) one
       per 16 bytes. A loop that builds strings stops in proportion to the bytes it
       copies. */
    if (!ptr && osize == LUA_TSTRING)
        s->used += nsize;
    else if (nsize > old)
        s->used += (nsize - old) / 16;
    return p;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    mo_scene_file *s = mo_lua_scene(L);
    s->used += HOOK_INSTRUCTIONS;
    if (s->used > s->budget) {
        s->dead = true;
        lua_getinfo(L, "Sl", ar);
        if (ar->currentline > 0)
            lua_pushfstring(L, "%s:%d: instruction budget of %I exceeded", ar->short_src, ar->currentline,
                            (lua_Integer)s->budget);
        else
            lua_pushfstring(L, "instruction budget of %I exceeded", (lua_Integer)s->budget);
        lua_error(L);
    }
}

/* error message of a failed protected call into s->err */
static void take_error(mo_scene_file *s, lua_State *L, int status, const char *file)
{
    if (status == LUA_ERRMEM || s->mem_refused) {
        snprintf(s->err, sizeof s->err, "%s: memory limit of %.0f MiB exceeded", file,
                 (double)s->opt.memory_limit / (1024.0 * 1024.0));
    } else {
        const char *m = lua_tostring(L, -1);
        if (m)
            snprintf(s->err, sizeof s->err, "%s", m);
        else
            snprintf(s->err, sizeof s->err, "%s: error object is a %s value", file, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
}

/* whether an error message already starts with a position "chunk:line: " */
static bool has_position(const char *m)
{
    for (const char *c = strchr(m, ':'); c; c = strchr(c + 1, ':')) {
        const char *d = c + 1;
        while (*d >= '0' && *d <= '9') d++;
        if (d > c + 1 && *d == ':') return true;
        if (c - m > 4096) break;
    }
    return false;
}

/* the message handler of budget_pcall: an error raised inside a C function (a library call such as
   ipairs(nil)) carries no position; it gets the innermost Lua line's "chunk:line: " (scene.h
   promises errors that name the file and line; found by fuzz_scene) */
static int position_msgh(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (!m || has_position(m)) return 1;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
        lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, m);
        return 1;
    }
    return 1;
}

/* lua_pcall under a fresh budget; on error the sentence is in s->err */
static int budget_pcall(mo_scene_file *s, int nargs, int nres, uint64_t budget, const char *file)
{
    s->budget = budget;
    s->used = 0;
    s->dead = false;
    s->mem_refused = false;
    const int base = lua_gettop(s->L) - nargs; /* the function's index: the handler goes below it */
    lua_pushcfunction(s->L, position_msgh);
    lua_insert(s->L, base);
    int status = lua_pcall(s->L, nargs, nres, base);
    if (status != LUA_OK) take_error(s, s->L, status, file);
    lua_remove(s->L, base);
    s->dead = false;
    return status;
}

/* ---- sandboxed base functions ---- */

/* pcall and xpcall that do not catch an exhausted budget or memory cap */
static int finish_pcall(lua_State *L, int status, int base)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (status != LUA_OK) {
        if (s->dead) return lua_error(L);
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, base);
    return lua_gettop(L) - base + 1;
}

static int sb_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    return finish_pcall(L, status, 1);
}

/* xpcall's message handler, wrapped: once the budget is exhausted the error came from
   the count hook, and Lua runs handlers of such errors with hooks off, so the user's
   handler is skipped (it could loop unbudgeted) */
static int sb_msgh(lua_State *L)
{
    if (mo_lua_scene(L)->dead) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_msgh, 1); /* wrapped handler */
    lua_pushvalue(L, 1);             /* f */
    lua_replace(L, 2);               /* f at 2 */
    lua_replace(L, 1);               /* handler at 1 */
    int status = lua_pcall(L, n - 2, LUA_MULTRET, 1);
    return finish_pcall(L, status, 2);
}

/* setmetatable without __gc: Lua runs finalizers with hooks off, so a looping __gc
   would escape the instruction budget */
static int sb_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "setmetatable: __gc finalizers are not allowed in a scene file");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int sb_load(lua_State *L)
{
    size_t len = 0;
    const char *chunk = lua_tolstring(L, 1, &len);
    if (!chunk) return luaL_error(L, "load: only source text (a string) can be loaded in a scene file");
    const char *name = luaL_optstring(L, 2, "=(load)");
    const char *mode = luaL_optstring(L, 3, "t");
    if (strcmp(mode, "t") != 0) return luaL_error(L, "load: mode '%s' refused: scene files load text only", mode);
    int status = luaL_loadbufferx(L, chunk, len, name, "t");
    if (status != LUA_OK) {
        if (mo_lua_scene(L)->dead) return lua_error(L);
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    /* env: the fourth argument if given, else the scene's globals */
    if (!lua_isnone(L, 4)) {
        lua_pushvalue(L, 4);
    } else {
        lua_pushglobaltable(L);
    }
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    return 1;
}

static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (!strcmp(opt, "count")) {
        int k = lua_gc(L, LUA_GCCOUNT, 0), b = lua_gc(L, LUA_GCCOUNTB, 0);
        lua_pushnumber(L, (lua_Number)k + (lua_Number)b / 1024.0);
        return 1;
    }
    if (!strcmp(opt, "collect")) {
        lua_gc(L, LUA_GCCOLLECT);
        lua_pushinteger(L, 0);
        return 1;
    }
    if (!strcmp(opt, "step")) {
        lua_pushboolean(L, lua_gc(L, LUA_GCSTEP, (int)luaL_optinteger(L, 2, 0)));
        return 1;
    }
    if (!strcmp(opt, "isrunning")) {
        lua_pushboolean(L, lua_gc(L, LUA_GCISRUNNING));
        return 1;
    }
    return luaL_error(L, "collectgarbage('%s') is not allowed in a scene file", opt);
}

static int sb_print(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    const char *line = lua_tostring(L, -1);
    if (s->opt.print)
        s->opt.print(s->opt.print_user, line);
    else {
        fputs(line, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    return 0;
}

/* ---- files ---- */

static bool under_root(const char *abs, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/') return true;
    return strncmp(abs, root, n) == 0 && (abs[n] == '/' || abs[n] == '\0');
}

void mo_lua_resolve_path(lua_State *L, const char *what, const char *name, size_t len, char *abs, char *display)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (len == 0 || strlen(name) != len) luaL_error(L, "%s: bad path (empty or containing a zero byte)", what);
    if (len >= MO_LUA_PATH_MAX - 1) luaL_error(L, "%s: path too long", what);
    char cand[2 * MO_LUA_PATH_MAX];
    bool outside = false;
    for (int r = 0; r < s->nroots; r++) {
        if (name[0] == '/')
            snprintf(cand, sizeof cand, "%s", name);
        else
            snprintf(cand, sizeof cand, "%s/%s", s->roots[r], name);
        char real[PATH_MAX];
        if (!realpath(cand, real)) {
            if (name[0] == '/') break;
            continue;
        }
        int inside = -1;
        for (int q = 0; q < s->nroots && inside < 0; q++)
            if (under_root(real, s->roots[q])) inside = q;
        if (inside < 0) {
            outside = true;
            if (name[0] == '/') break;
            continue;
        }
        struct stat st;
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) luaL_error(L, "%s: '%s' is not a regular file", what, name);
        /* the importers' memory is not the Lua state's, but a file larger than what is
           left of the scene's memory cap is refused before any reader looks at it */
        if ((double)st.st_size > (double)s->opt.memory_limit - (double)s->mem_used)
            luaL_error(L, "%s: '%s' has %I bytes, more than is left of the scene's memory limit of %d MiB", what, name,
                       (lua_Integer)st.st_size, (int)(s->opt.memory_limit >> 20));
        snprintf(abs, MO_LUA_PATH_MAX, "%s", real);
        const char *rel = real + strlen(s->roots[inside]);
        while (*rel == '/') rel++;
        if (s->root_display[inside][0])
            snprintf(display, MO_LUA_PATH_MAX, "%s/%s", s->root_display[inside], rel);
        else
            snprintf(display, MO_LUA_PATH_MAX, "%s", rel);
        return;
    }
    if (outside)
        luaL_error(L, "%s: '%s' is outside the scene's folder and the search paths", what, name);
    luaL_error(L, "%s: cannot find '%s' in the scene's folder or the search paths", what, name);
}

/* reads a whole file; NULL with errno set on failure */
static char *read_file(const char *path, size_t *len, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t n = 0, size = 4096;
    char *buf = (char *)malloc(size);
    while (buf) {
        size_t got = fread(buf + n, 1, size - n, f);
        n += got;
        if (got == 0) break;
        if (n == size) {
            if (size >= cap) {
                free(buf);
                buf = NULL;
                errno = EFBIG;
                break;
            }
            char *nb = (char *)realloc(buf, size * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            size *= 2;
        }
    }
    int e = ferror(f);
    fclose(f);
    if (buf && e) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* loads the text chunk of abs (chunk name "@display") with the scene's globals; raises on error */
static void load_chunk(lua_State *L, const char *abs, const char *display)
{
    size_t len = 0;
    char *src = read_file(abs, &len, MAX_SOURCE_BYTES);
    if (!src) luaL_error(L, "cannot read '%s': %s", display, strerror(errno));
    char chunk[MO_LUA_PATH_MAX + 2];
    snprintf(chunk, sizeof chunk, "@%s", display);
    int status = luaL_loadbufferx(L, src, len, chunk, "t");
    free(src);
    if (status != LUA_OK) lua_error(L);
}

/* include("file.lua"): runs another scene file in the same globals; returns its results */
static int sb_include(lua_State *L)
{
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
    mo_lua_resolve_path(L, "include", name, len, abs, display);
    int top = lua_gettop(L);
    load_chunk(L, abs, display);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - top;
}

/* require("lib.name"): lib/name.lua from the allowed folders, run once, its result cached */
static int sb_require(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    size_t len;
    const char *mod = luaL_checklstring(L, 1, &len);
    if (len == 0 || strlen(mod) != len || len > 200) return luaL_error(L, "require: bad module name");
    for (size_t i = 0; i < len; i++) {
        char c = mod[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return luaL_error(L, "require: module name '%s' may hold only letters, digits, '_', '-' and '.'", mod);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_modules);
    lua_getfield(L, -1, mod);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    char rel[256];
    snprintf(rel, sizeof rel, "%s", mod);
    for (char *c = rel; *c; c++)
        if (*c == '.') *c = '/';
    size_t rl = strlen(rel);
    if (rl + 4 >= sizeof rel) return luaL_error(L, "require: module name too long");
    memcpy(rel + rl, ".lua", 5);
    char abs[MO_LUA_PATH_MAX], display[MO_LUA_PATH_MAX];
    mo_lua_resolve_path(L, "require", rel, strlen(rel), abs, display);
    load_chunk(L, abs, display);
    lua_pushstring(L, mod);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, mod);
    return 1;
}

/* param(name, default): a value given by the runner (--set name=value), converted to the
   default's type, else the default */
static int sb_param(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    const char *name = luaL_checkstring(L, 1);
    for (int i = 0; i < s->opt.param_count; i++) {
        if (strcmp(s->param_names[i], name) != 0) continue;
        const char *v = s->param_values[i];
        s->param_read[i] = true;
        switch (lua_type(L, 2)) {
        case LUA_TNUMBER:
            if (!lua_stringtonumber(L, v))
                return luaL_error(L, "param '%s': value '%s' is not a number", name, v);
            return 1;
        case LUA_TBOOLEAN:
            if (!strcmp(v, "true") || !strcmp(v, "1")) lua_pushboolean(L, 1);
            else if (!strcmp(v, "false") || !strcmp(v, "0")) lua_pushboolean(L, 0);
            else return luaL_error(L, "param '%s': value '%s' is not a boolean", name, v);
            return 1;
        default:
            lua_pushstring(L, v);
            return 1;
        }
    }
    lua_settop(L, 2);
    return 1;
}

/* ---- state set-up ---- */

static void remove_field(lua_State *L, const char *lib, const char *field)
{
    lua_getglobal(L, lib);
    lua_pushnil(L);
    lua_setfield(L, -2, field);
    lua_pop(L, 1);
}

/* Lua's pattern matching (string.find, match, gmatch, gsub) backtracks in C,
 * where the instruction hook never runs: ".-.-.-x" on a long subject takes
 * O(n^4) steps. Each call is charged its worst case up front, n^(q+1) for a
 * subject of n bytes and q unbounded quantifiers (*, +, -) in the pattern, to
 * the same budget; a call that cannot fit is refused before it starts. */
static double pattern_cost(const char *p, size_t plen, size_t n)
{
    int q = 0;
    for (size_t i = 0; i < plen; i++) {
        char c = p[i];
        if (c == '%') {
            i++; /* escaped character, or the class letter / %b's two / %f's set follow */
            if (i < plen && p[i] == 'b') i += 2;
        } else if (c == '[') {
            i++;
            if (i < plen && p[i] == '^') i++;
            if (i < plen && p[i] == ']') i++; /* a leading ] is literal */
            while (i < plen && p[i] != ']') {
                if (p[i] == '%') i++;
                i++;
            }
        } else if (c == '*' || c == '+' || c == '-') {
            q++;
        }
    }
    double cost = (double)n + 1.0;
    for (int k = 0; k < q; k++) cost *= (double)n + 1.0;
    return cost;
}

static int sb_pattern(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    size_t n = 0, plen = 0;
    const char *subject = lua_tolstring(L, 1, &n);
    const char *pat = lua_tolstring(L, 2, &plen);
    /* string.find(s, p, init, plain): no pattern */
    bool plain = lua_toboolean(L, lua_upvalueindex(2)) && lua_toboolean(L, 4);
    if (subject && pat) {
        /* a plain find, and a pattern without special characters, compare the pattern
           at every place of the subject (memchr, memcmp): n plen / 16 more */
        double cost = (plain ? 0.0 : pattern_cost(pat, plen, n)) + (double)n * (double)plen / 16.0;
        double left = (double)s->budget - (double)s->used;
        if (cost > left) {
            s->dead = true;
            luaL_where(L, 1);
            lua_pushfstring(L, "instruction budget of %I exceeded (string pattern with a worst case of %f steps "
                               "on %I bytes)",
                            (lua_Integer)s->budget, cost, (lua_Integer)n);
            lua_concat(L, 2);
            return lua_error(L);
        }
        s->used += (uint64_t)cost;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* string.rep and table.concat know their result's size before they copy a byte:
 * a result larger than what is left of the memory cap or of the instruction budget
 * (one instruction a byte, as the allocator charges it) is refused up front, with
 * the scene file and line, instead of being built and then refused. */
static int sb_refuse_size(lua_State *L, const char *fn, double bytes)
{
    mo_scene_file *s = mo_lua_scene(L);
    double mem_left = (double)s->opt.memory_limit - (double)s->mem_used;
    double left = (double)s->budget - (double)s->used;
    if (bytes <= mem_left && bytes <= left) return 0;
    s->dead = true;
    luaL_where(L, 1);
    if (bytes > mem_left)
        lua_pushfstring(L, "memory limit of %d MiB exceeded (%s would build a string of %I bytes)",
                        (int)(s->opt.memory_limit >> 20), fn, (lua_Integer)bytes);
    else
        lua_pushfstring(L, "instruction budget of %I exceeded (%s would build a string of %I bytes, one instruction "
                           "a byte)",
                        (lua_Integer)s->budget, fn, (lua_Integer)bytes);
    lua_concat(L, 2);
    return lua_error(L);
}

/* calls the wrapped function (upvalue 1) with the arguments; its own errors get the
   scene's file and line, which Lua would have given them without the wrapper */
static int sb_call_wrapped(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, 1, 0);
    if (status == LUA_OK) return 1;
    if (!mo_lua_scene(L)->dead && status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int sb_rep(lua_State *L)
{
    size_t l = 0, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0 && l + lsep == 0) {
        /* Lua's loop would run n times copying nothing, out of the hook's reach */
        lua_pushliteral(L, "");
        return 1;
    }
    if (n > 0) sb_refuse_size(L, "string.rep", ((double)l + (double)lsep) * (double)n - (double)lsep);
    return sb_call_wrapped(L);
}

static int sb_concat(lua_State *L)
{
    size_t lsep = 0;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer last = lua_isnoneornil(L, 4) ? (lua_Integer)luaL_len(L, 1) : luaL_checkinteger(L, 4);
    /* the size without copying: one pass over the lengths, up to the first element
       that is neither a string nor a number (table.concat raises its error there, so
       the pass is bounded by the elements the table really holds) */
    double bytes = 0.0;
    for (lua_Integer k = i; k <= last; k++) {
        lua_geti(L, 1, k);
        int type = lua_type(L, -1);
        size_t len = 24; /* a number's text */
        if (type == LUA_TSTRING) lua_tolstring(L, -1, &len);
        lua_pop(L, 1);
        if (type != LUA_TSTRING && type != LUA_TNUMBER) break;
        bytes += (double)len + (k < last ? (double)lsep : 0.0);
        mo_lua_scene(L)->used += 1; /* a look at each element */
        if (k == last) break;       /* no k++ past LUA_MAXINTEGER */
    }
    sb_refuse_size(L, "table.concat", bytes);
    return sb_call_wrapped(L);
}

/* table.move copies element by element in C, where the hook does not run, and
   copying nils allocates nothing: table.move({}, 1, 1e18, 2) never ended. Each
   element is charged one instruction up front; a move that cannot fit is refused. */
static int sb_move(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    if (e >= f) {
        double count = (double)e - (double)f + 1.0, left = (double)s->budget - (double)s->used;
        if (count > left) {
            s->dead = true;
            luaL_where(L, 1);
            lua_pushfstring(L, "instruction budget of %I exceeded (table.move of %I elements, one instruction each)",
                            (lua_Integer)s->budget, (lua_Integer)count);
            lua_concat(L, 2);
            return lua_error(L);
        }
        s->used += (uint64_t)count;
    }
    return sb_call_wrapped(L);
}

static void guard_size(lua_State *L, const char *lib, const char *name, lua_CFunction fn)
{
    lua_getglobal(L, lib);
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

static void guard_pattern(lua_State *L, const char *name, bool find)
{
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_getfield(L, -1, name);
    lua_pushboolean(L, find);
    lua_pushcclosure(L, sb_pattern, 2);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

static int setup_state(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0); /* not global: only clock is kept */
    lua_pop(L, 5);
    /* os with clock only */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, LUA_OSLIBNAME);
    lua_newtable(L);
    lua_getfield(L, -2, "clock");
    lua_setfield(L, -2, "clock");
    lua_setglobal(L, "os");
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setfield(L, -2, LUA_OSLIBNAME);
    lua_pop(L, 1);
    /* base: remove file access, replace load/pcall/xpcall/collectgarbage/print */
    static const char *const removed[] = {"dofile", "loadfile", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    remove_field(L, LUA_STRLIBNAME, "dump");
    guard_pattern(L, "find", true);
    guard_pattern(L, "match", false);
    guard_pattern(L, "gmatch", false);
    guard_pattern(L, "gsub", false);
    guard_size(L, LUA_STRLIBNAME, "rep", sb_rep);
    guard_size(L, LUA_TABLIBNAME, "concat", sb_concat);
    guard_size(L, LUA_TABLIBNAME, "move", sb_move);
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, sb_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    lua_register(L, "load", sb_load);
    lua_register(L, "pcall", sb_pcall);
    lua_register(L, "xpcall", sb_xpcall);
    lua_register(L, "collectgarbage", sb_collectgarbage);
    lua_register(L, "print", sb_print);
    lua_register(L, "include", sb_include);
    lua_register(L, "require", sb_require);
    lua_register(L, "param", sb_param);
    /* math.random from the options' seed (Lua seeds it from the clock otherwise) */
    lua_getglobal(L, LUA_MATHLIBNAME);
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)s->opt.seed);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    /* registry tables */
    lua_newtable(L);
    s->ref_steps = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    s->ref_checks = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    s->ref_modules = luaL_ref(L, LUA_REGISTRYINDEX);
    /* the world API */
    lua_newtable(L);
    mo_lua_open_api(L);
    mo_lua_open_import(L);
    lua_setglobal(L, "moreau");
    return 0;
}

static char *dup_str(const char *a)
{
    size_t n = strlen(a) + 1;
    char *p = (char *)malloc(n);
    if (p) memcpy(p, a, n);
    return p;
}

static mo_status fail(mo_scene_file *s, mo_status st, char *err, size_t err_size)
{
    if (err && err_size) snprintf(err, err_size, "%s", s->err);
    mo_scene_file_destroy(s);
    return st;
}

mo_status mo_scene_file_load(const char *path, const mo_scene_options *opt, mo_scene_file **out, char *err,
                             size_t err_size)
{
    if (out) *out = NULL;
    if (!path || !out) {
        if (err && err_size) snprintf(err, err_size, "mo_scene_file_load: path and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_scene_options def = mo_default_scene_options();
    if (!opt) opt = &def;
    if (opt->internal_value != options_cookie) {
        if (err && err_size)
            snprintf(err, err_size, "scene options were not initialised with mo_default_scene_options()");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (opt->memory_limit < (64u << 10) || opt->load_instructions == 0 || opt->step_instructions == 0 ||
        opt->check_instructions == 0 || opt->max_objects < 0 || opt->search_path_count < 0 || opt->param_count < 0 ||
        (opt->search_path_count > 0 && !opt->search_paths) || (opt->param_count > 0 && !opt->params)) {
        if (err && err_size)
            snprintf(err, err_size,
                     "scene options: budgets must be > 0, memory_limit >= 64 KiB, counts >= 0 with their arrays");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_scene_file *s = (mo_scene_file *)calloc(1, sizeof *s);
    if (!s) {
        if (err && err_size) snprintf(err, err_size, "mo_scene_file_load: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    s->opt = *opt;
    s->opt.search_paths = NULL;
    s->opt.params = NULL;
    s->wdef = mo_default_world_def();
    s->ref_steps = s->ref_checks = s->ref_modules = LUA_NOREF;

    /* the scene file and the allowed folders */
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        snprintf(s->err, sizeof s->err, "%s: cannot open: %s", path, strerror(errno));
        return fail(s, MO_ERR_IO, err, err_size);
    }
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(s->err, sizeof s->err, "%s: not a regular file", path);
        return fail(s, MO_ERR_IO, err, err_size);
    }
    s->nroots = 1 + opt->search_path_count;
    s->roots = (char **)calloc((size_t)s->nroots, sizeof *s->roots);
    s->root_display = (char **)calloc((size_t)s->nroots, sizeof *s->root_display);
    if (!s->roots || !s->root_display) {
        snprintf(s->err, sizeof s->err, "mo_scene_file_load: out of memory");
        return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);
    }
    {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", real);
        char *slash = strrchr(dir, '/');
        if (slash == dir) slash[1] = '\0';
        else if (slash) *slash = '\0';
        s->roots[0] = dup_str(dir);
        char shown[PATH_MAX];
        snprintf(shown, sizeof shown, "%s", path);
        slash = strrchr(shown, '/');
        if (slash == shown) slash[1] = '\0';
        else if (slash) *slash = '\0';
        else shown[0] = '\0';
        s->root_display[0] = dup_str(shown);
    }
    for (int i = 0; i < opt->search_path_count; i++) {
        const char *p = opt->search_paths[i];
        char r[PATH_MAX];
        if (!p || !realpath(p, r) || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(s->err, sizeof s->err, "search path '%s' is not a folder", p ? p : "(null)");
            return fail(s, MO_ERR_IO, err, err_size);
        }
        s->roots[i + 1] = dup_str(r);
        s->root_display[i + 1] = dup_str(p);
    }
    for (int i = 0; i < s->nroots; i++)
        if (!s->roots[i] || !s->root_display[i]) {
            snprintf(s->err, sizeof s->err, "mo_scene_file_load: out of memory");
            return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);
        }
    if (opt->param_count > 0) {
        s->param_names = (char **)calloc((size_t)opt->param_count, sizeof(char *));
        s->param_values = (char **)calloc((size_t)opt->param_count, sizeof(char *));
        s->param_read = (bool *)calloc((size_t)opt->param_count, sizeof(bool));
        if (!s->param_names || !s->param_values || !s->param_read) {
            snprintf(s->err, sizeof s->err, "mo_scene_file_load: out of memory");
            return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);
        }
        s->opt.param_count = 0;
        for (int i = 0; i < opt->param_count; i++) {
            const char *p = opt->params[i], *eq = p ? strchr(p, '=') : NULL;
            if (!eq || eq == p) {
                snprintf(s->err, sizeof s->err, "scene parameter '%s' is not of the form name=value", p ? p : "(null)");
                return fail(s, MO_ERR_INVALID_ARGUMENT, err, err_size);
            }
            s->param_names[i] = dup_str(p);
            s->param_values[i] = dup_str(eq + 1);
            s->opt.param_count = i + 1;
            if (!s->param_names[i] || !s->param_values[i]) {
                snprintf(s->err, sizeof s->err, "mo_scene_file_load: out of memory");
                return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);
            }
            s->param_names[i][eq - p] = '\0';
        }
    }

    /* the Lua state */
    s->L = lua_newstate(scene_alloc, s);
    if (!s->L) {
        snprintf(s->err, sizeof s->err, "%s: cannot create a Lua state", path);
        return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);
    }
    lua_sethook(s->L, count_hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    lua_pushcfunction(s->L, setup_state);
    if (budget_pcall(s, 0, 0, opt->load_instructions, path) != LUA_OK)
        return fail(s, MO_ERR_OUT_OF_MEMORY, err, err_size);

    /* run the file */
    size_t len = 0;
    char *src = read_file(real, &len, MAX_SOURCE_BYTES);
    if (!src) {
        snprintf(s->err, sizeof s->err, "%s: cannot read: %s", path, strerror(errno));
        return fail(s, MO_ERR_IO, err, err_size);
    }
    char chunk[PATH_MAX + 2];
    snprintf(chunk, sizeof chunk, "@%s", path);
    s->budget = opt->load_instructions;
    s->used = 0;
    int status = luaL_loadbufferx(s->L, src, len, chunk, "t");
    free(src);
    if (status != LUA_OK) {
        take_error(s, s->L, status, path);
        if (!has_position(s->err)) { /* "attempt to load a binary chunk (mode is 't')" names no file */
            const size_t pl = strlen(path), ml = strlen(s->err);
            if (pl + 2 + ml < sizeof s->err) {
                memmove(s->err + pl + 2, s->err, ml + 1);
                memcpy(s->err, path, pl);
                s->err[pl] = ':';
                s->err[pl + 1] = ' ';
            }
        }
        return fail(s, MO_ERR_INVALID_ARGUMENT, err, err_size);
    }
    if (budget_pcall(s, 0, 0, opt->load_instructions, path) != LUA_OK)
        return fail(s, MO_ERR_INVALID_ARGUMENT, err, err_size);
    /* a scene that created nothing still has a world */
    if (!s->w) {
        if (mo_world_create(&s->wdef, &s->w, s->err, sizeof s->err) != MO_OK) {
            char tmp[sizeof s->err];
            snprintf(tmp, sizeof tmp, "%s", s->err);
            snprintf(s->err, sizeof s->err, "%s: world: %.900s", path, tmp);
            return fail(s, MO_ERR_INVALID_ARGUMENT, err, err_size);
        }
    }
    mo_world_destroy(s->scratch);
    s->scratch = NULL;
    lua_gc(s->L, LUA_GCCOLLECT);
    s->err[0] = '\0';
    *out = s;
    return MO_OK;
}

void mo_lua_record_body(lua_State *L, mo_body_id id, const char *name)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (s->nbody_records == s->body_record_cap) {
        int cap = s->body_record_cap ? 2 * s->body_record_cap : 64;
        mo_body_id *ids = (mo_body_id *)realloc(s->body_ids, (size_t)cap * sizeof *ids);
        if (ids) s->body_ids = ids;
        char **names = ids ? (char **)realloc(s->body_names, (size_t)cap * sizeof *names) : NULL;
        if (names) s->body_names = names;
        if (!ids || !names) luaL_error(L, "out of memory");
        s->body_record_cap = cap;
    }
    char *n = dup_str(name ? name : "");
    if (!n) luaL_error(L, "out of memory");
    s->body_ids[s->nbody_records] = id;
    s->body_names[s->nbody_records++] = n;
}

int mo_scene_file_bodies(const mo_scene_file *s, mo_scene_body *out, int cap)
{
    if (!s || !s->w) return 0;
    int n = 0;
    for (int i = 0; i < s->nbody_records; i++) {
        if (!mo_body_is_valid(s->w, s->body_ids[i])) continue;
        if (out && n < cap) {
            out[n].id = s->body_ids[i];
            out[n].name = s->body_names[i];
        }
        n++;
    }
    return n;
}

void mo_lua_record_visual(lua_State *L, const mo_scene_visual *v)
{
    mo_scene_file *s = mo_lua_scene(L);
    if (s->nvisuals == s->visual_cap) {
        int cap = s->visual_cap ? 2 * s->visual_cap : 32;
        mo_scene_visual *n = (mo_scene_visual *)realloc(s->visuals, (size_t)cap * sizeof *n);
        if (!n) luaL_error(L, "out of memory");
        s->visuals = n;
        s->visual_cap = cap;
    }
    char *path = dup_str(v->mesh_path ? v->mesh_path : "");
    if (!path) luaL_error(L, "out of memory");
    s->visuals[s->nvisuals] = *v;
    s->visuals[s->nvisuals++].mesh_path = path;
}

int mo_scene_file_visuals(const mo_scene_file *s, mo_scene_visual *out, int cap)
{
    if (!s || !s->w) return 0;
    int n = 0;
    for (int i = 0; i < s->nvisuals; i++) {
        if (!mo_body_is_valid(s->w, s->visuals[i].body)) continue;
        if (out && n < cap) out[n] = s->visuals[i];
        n++;
    }
    return n;
}

static void free_check_strings(mo_scene_file *s)
{
    for (int i = 0; i < s->ncheck_strings; i++) {
        free(s->check_names[i]);
        free(s->check_details[i]);
    }
    free(s->check_names);
    free(s->check_details);
    s->check_names = s->check_details = NULL;
    s->ncheck_strings = 0;
}

void mo_scene_file_destroy(mo_scene_file *s)
{
    if (!s) return;
    if (s->L) lua_close(s->L);
    mo_world_destroy(s->w);
    mo_world_destroy(s->scratch);
    for (int i = 0; i < s->nroots; i++) {
        if (s->roots) free(s->roots[i]);
        if (s->root_display) free(s->root_display[i]);
    }
    free(s->roots);
    free(s->root_display);
    for (int i = 0; i < s->opt.param_count; i++) {
        free(s->param_names[i]);
        free(s->param_values[i]);
    }
    free(s->param_names);
    free(s->param_values);
    free(s->param_read);
    free(s->stop_reason);
    for (int i = 0; i < s->nbody_records; i++) free(s->body_names[i]);
    free(s->body_ids);
    free(s->body_names);
    for (int i = 0; i < s->nvisuals; i++) free((char *)s->visuals[i].mesh_path);
    free(s->visuals);
    free_check_strings(s);
    free(s);
}

mo_world *mo_scene_file_world(const mo_scene_file *s) { return s ? s->w : NULL; }
double mo_scene_file_duration(const mo_scene_file *s) { return s ? s->duration : 0.0; }
uint64_t mo_scene_file_steps(const mo_scene_file *s) { return s ? s->steps : 0; }

bool mo_scene_file_param_read(const mo_scene_file *s, const char *name)
{
    if (!s || !name) return false;
    for (int i = 0; i < s->opt.param_count; i++)
        if (!strcmp(s->param_names[i], name) && s->param_read[i]) return true;
    return false;
}
const char *mo_scene_file_last_error(const mo_scene_file *s) { return s ? s->err : ""; }

bool mo_scene_file_done(const mo_scene_file *s, const char **reason)
{
    if (reason) *reason = s && s->stop_reason ? s->stop_reason : "";
    return s && s->done;
}

static int run_callbacks(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_steps);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    double t = mo_world_time(s->w);
    for (lua_Integer i = 1; i <= n && !s->done; i++) {
        lua_rawgeti(L, -1, i);
        lua_pushnumber(L, t);
        lua_pushinteger(L, (lua_Integer)s->steps);
        lua_call(L, 2, 0);
    }
    return 0;
}

mo_status mo_scene_file_step(mo_scene_file *s)
{
    if (!s) return MO_ERR_INVALID_ARGUMENT;
    if (s->failed) return MO_ERR_INVALID_ARGUMENT;
    if (s->done) return MO_OK;
    lua_pushcfunction(s->L, run_callbacks);
    if (budget_pcall(s, 0, 0, s->opt.step_instructions, "on_step") != LUA_OK) {
        s->failed = true;
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (s->done) return MO_OK;
    mo_status st = mo_world_step(s->w);
    if (st != MO_OK) {
        snprintf(s->err, sizeof s->err, "step %llu: %s", (unsigned long long)s->steps, mo_world_last_error(s->w));
        return st;
    }
    s->steps++;
    return MO_OK;
}

int mo_scene_file_check_count(const mo_scene_file *s)
{
    if (!s || !s->L) return 0;
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->ref_checks);
    int n = (int)lua_rawlen(s->L, -1);
    lua_pop(s->L, 1);
    return n;
}

/* calls check i: pushes the joined detail and the verdict */
static int run_check(lua_State *L)
{
    mo_scene_file *s = mo_lua_scene(L);
    lua_Integer i = lua_tointeger(L, 1);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_checks);
    lua_rawgeti(L, 1, i);
    lua_rawgeti(L, 2, 2);
    lua_call(L, 0, LUA_MULTRET);
    int n = lua_gettop(L) - 2;
    bool ok = n >= 1 && lua_toboolean(L, 3);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int k = 4; k <= n + 2; k++) {
        if (k > 4) luaL_addstring(&b, ", ");
        if (lua_type(L, k) == LUA_TNUMBER && !lua_isinteger(L, k)) {
            char num[64];
            snprintf(num, sizeof num, "%.6g", lua_tonumber(L, k));
            luaL_addstring(&b, num);
        } else {
            luaL_tolstring(L, k, NULL);
            luaL_addvalue(&b);
        }
    }
    luaL_pushresult(&b);
    lua_pushboolean(L, ok);
    return 2;
}

int mo_scene_file_checks(mo_scene_file *s, mo_scene_check_result *out, int cap)
{
    if (!s || !s->L) return 0;
    free_check_strings(s);
    int n = mo_scene_file_check_count(s), failed = 0;
    if (n == 0) return 0;
    s->check_names = (char **)calloc((size_t)n, sizeof(char *));
    s->check_details = (char **)calloc((size_t)n, sizeof(char *));
    if (!s->check_names || !s->check_details) {
        free(s->check_names);
        free(s->check_details);
        s->check_names = s->check_details = NULL;
        return n;
    }
    s->ncheck_strings = n;
    for (int i = 0; i < n; i++) {
        lua_State *L = s->L;
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->ref_checks);
        lua_rawgeti(L, -1, i + 1);
        lua_rawgeti(L, -1, 1);
        s->check_names[i] = dup_str(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
        lua_pop(L, 3);
        lua_pushcfunction(L, run_check);
        lua_pushinteger(L, i + 1);
        bool ok = false;
        if (budget_pcall(s, 1, 2, s->opt.check_instructions, "check") == LUA_OK) {
            ok = lua_toboolean(L, -1);
            s->check_details[i] = dup_str(lua_tostring(L, -2) ? lua_tostring(L, -2) : "");
            lua_pop(L, 2);
        } else {
            s->check_details[i] = dup_str(s->err);
        }
        if (!ok) failed++;
        if (out && i < cap) {
            out[i].name = s->check_names[i] ? s->check_names[i] : "?";
            out[i].passed = ok;
            out[i].detail = s->check_details[i] ? s->check_details[i] : "";
        }
    }
    return failed;
}
