/* test_lua_bounds: string building in a scene file is charged by the byte
 * (issue 18, "bounded cost for any input"). A memory-bomb scene cost 7-99 s
 * before: the sandbox charged a new string one instruction per 16 bytes, so
 * string.rep, table.concat and .. loops copied gigabytes within the budget.
 *
 * Each case loads a scene with a 20 000 000-instruction budget and a 32 MiB
 * cap, checks the exact error sentence (file and line), and checks the cost
 * through a measurable proxy: the bytes malloc, calloc and realloc were asked
 * for during the load (this program defines them over glibc's, as test_alloc
 * does). With one instruction a byte a load can build at most about the
 * budget in strings (plus buffers charged at 1/16), so each bound below is a
 * few times 20 MB; at 1/16 the same scenes asked for 16 times as much.
 * The byte counts are skipped under AddressSanitizer (which owns malloc); the
 * sentences are checked everywhere. */
#define _XOPEN_SOURCE 700
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "check.h"
#include "scene_tmp.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static bool counting;
static unsigned long long asked; /* bytes asked for while counting */

#ifndef UNDER_ASAN
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

void *malloc(size_t n)
{
    if (counting) asked += n;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t size)
{
    if (counting) asked += (unsigned long long)n * size;
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n)
{
    if (counting) asked += n;
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
#endif

/* loads text as tmpdir/t.lua: must fail with exactly "<tmpdir>/t.lua:" + want, asking
   malloc for at most max_mib MiB */
static void expect_bounded(const char *what, const char *text, const char *want, double max_mib)
{
    char path[512], err[1024] = "", full[1024];
    snprintf(path, sizeof path, "%s/t.lua", tmpdir);
    write_file("t.lua", text);
    mo_scene_options o = mo_default_scene_options();
    o.load_instructions = 20000000;
    o.memory_limit = 32u << 20;
    mo_scene_file *s = NULL;
    asked = 0;
    counting = true;
    mo_status st = mo_scene_file_load(path, &o, &s, err, sizeof err);
    counting = false;
    CHECK(st != MO_OK && s == NULL);
    snprintf(full, sizeof full, "%s%s", path, want);
    if (strcmp(err, full) != 0) {
        fprintf(stderr, "%s:\n  got      \"%s\"\n  expected \"%s\"\n", what, err, full);
        check_failures++;
    }
    double mib = (double)asked / (1024.0 * 1024.0);
#ifndef UNDER_ASAN
    CHECK(mib <= max_mib);
    printf("  %-14s asked malloc for %7.1f MiB (bound %.0f)\n", what, mib, max_mib);
#else
    (void)mib, (void)max_mib;
#endif
    mo_scene_file_destroy(s);
}

int main(void)
{
    if (scene_tmp_begin("moreau-lua-bounds") != 0) return 1;
    /* no Lua: nothing to bound */
    {
        mo_scene_file *s = NULL;
        char err[256];
        char path[512];
        snprintf(path, sizeof path, "%s/ok.lua", tmpdir);
        write_file("ok.lua", "local x = 1\n");
        if (mo_scene_file_load(path, NULL, &s, err, sizeof err) == MO_ERR_UNSUPPORTED) {
            scene_tmp_end();
            return 77;
        }
        mo_scene_file_destroy(s);
    }
    check_group_begin();
    /* a string larger than the memory cap is refused before it is built */
    expect_bounded("rep > cap", "local s = string.rep('x', 1 << 30)\n",
                   ":1: memory limit of 32 MiB exceeded (string.rep would build a string of 1073741824 bytes)", 4);
    /* a loop of strings under the cap stops when their bytes exhaust the budget:
       two 8 MB strings fit in 20 000 000 instructions, the third is refused */
    expect_bounded("rep loop", "for i = 1, 1e9 do\n  local s = string.rep('x', 8e6)\nend\n",
                   ":2: instruction budget of 20000000 exceeded (string.rep would build a string of 8000000 bytes, "
                   "one instruction a byte)",
                   64);
    /* the same with a separator and a method call */
    expect_bounded("rep sep", "local s = ('ab'):rep(4e6, ',')\nlocal t = ('ab'):rep(4e6, ',')\n",
                   ":2: instruction budget of 20000000 exceeded (string.rep would build a string of 11999999 bytes, "
                   "one instruction a byte)",
                   64);
    /* table.concat of 1 MB, over and over */
    expect_bounded("concat loop",
                   "local t = {}\nfor i = 1, 100 do t[i] = string.rep('y', 10000) end\nfor i = 1, 1e9 do\n"
                   "  local s = table.concat(t, ',')\nend\n",
                   ":4: instruction budget of 20000000 exceeded (table.concat would build a string of 1000099 bytes, "
                   "one instruction a byte)",
                   128);
    /* .. in a loop: quadratic copying, every new string charged its bytes */
    expect_bounded("..", "local s = ''\nfor i = 1, 1e9 do\n  s = s .. 'x'\nend\n",
                   ":2: instruction budget of 20000000 exceeded", 64);
    /* gsub and format build through buffers: their results are charged by the allocator */
    expect_bounded("gsub", "local s = string.rep('x', 1e6)\nfor i = 1, 1e9 do\n  local r = s:gsub('x', 'yy')\nend\n",
                   ":3: instruction budget of 20000000 exceeded (string pattern with a worst case of 1062501.0 steps on "
                   "1000000 bytes)",
                   64);
    /* loops in C that allocate nothing: a plain find compares the needle at every place
       (1.7 s for a 10 KB needle in 10 MB before, uncharged), table.move copies nils */
    expect_bounded("plain find",
                   "local s = string.rep('a', 1e6)\nlocal p = string.rep('a', 1000) .. 'b'\nlocal r = s:find(p, 1, true)\n",
                   ":3: instruction budget of 20000000 exceeded (string pattern with a worst case of 62562500.0 steps "
                   "on 1000000 bytes)",
                   8);
    expect_bounded("table.move", "local t = table.move({}, 1, 1e18, 2)\n",
                   ":1: instruction budget of 20000000 exceeded (table.move of 1000000000000000000 elements, one "
                   "instruction each)",
                   4);
    /* loops in C that copy nothing: bounded too (Lua's string.rep ran 1e18 empty copies) */
    {
        char path[512], err[1024];
        snprintf(path, sizeof path, "%s/t.lua", tmpdir);
        write_file("t.lua", "assert(string.rep('', 1e18) == '')\nassert(('').rep('', 1e18, '') == '')\n"
                            "assert(table.concat({'a', 'b'}, '', 1, math.maxinteger) == nil)\n");
        mo_scene_file *s = NULL;
        mo_scene_options o = mo_default_scene_options();
        o.load_instructions = 20000000;
        o.memory_limit = 32u << 20;
        CHECK(mo_scene_file_load(path, &o, &s, err, sizeof err) != MO_OK);
        char want[1024];
        snprintf(want, sizeof want, "%s:3: invalid value (nil) at index 3 in table for 'concat'", path);
        CHECK_STR(err, want);
        mo_scene_file_destroy(s);
    }
    check_group_end("string bytes", 14, 3);

    /* a file a scene loads (mesh, URDF, tet mesh, include) larger than what is left of
       the memory cap is refused before any reader opens it (sparse: no disk used) */
    check_group_begin();
    {
        char path[512];
        snprintf(path, sizeof path, "%s/big.obj", tmpdir);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL && ftruncate(fileno(f), (off_t)40 << 20) == 0);
        if (f) fclose(f);
        expect_bounded("mesh > cap", "world{}\nlocal m = moreau.mesh('big.obj')\n",
                       ":2: mesh: 'big.obj' has 41943040 bytes, more than is left of the scene's memory limit of "
                       "32 MiB",
                       4);
        expect_bounded("include > cap", "include('big.obj')\n",
                       ":1: include: 'big.obj' has 41943040 bytes, more than is left of the scene's memory limit of "
                       "32 MiB",
                       4);
    }
    check_group_end("file sizes", 14, 3);
    scene_tmp_end();
    return check_groups_result();
}
