/* test_alloc: once a world's sizes are stable, a step allocates nothing (the
 * world's buffers grow between steps and are kept; mo_solve carves its work
 * space from the caller's scratch). This program counts every malloc, calloc
 * and realloc (it defines them over glibc's) while catalogue scenes take ten
 * steps after twenty to settle, and asserts none. Scenes whose solver is
 * CHOLMOD's factorisation (it allocates inside) and scenes still gathering
 * contacts (their buffers still grow) are not in the list; docs/
 * architecture.md has the measured counts of every scene.
 * Skips (77) under AddressSanitizer (which owns malloc) and without Lua. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#include "check.h"

#ifndef UNDER_ASAN
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static bool counting;
static long allocations;

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

void *malloc(size_t n)
{
    if (counting) allocations++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t size)
{
    if (counting) allocations++;
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n)
{
    if (counting) allocations++;
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }

static const char *const scenes[] = {"stack20.lua", "arch.lua",      "heavy_stack.lua", "pyramid.lua",
                                     "gs_spheres.lua", "incline.lua", "extension.lua",  "gripper_ball.lua",
                                     "vat.lua",       "b3_plates.lua"};
#endif

int main(void)
{
#ifdef UNDER_ASAN
    printf("SKIP: AddressSanitizer owns malloc\n");
    return 77;
#else
    const char *dir = getenv("MOREAU_SCENES_DIR");
    if (!dir) dir = "scenes";
    char path[1024], err[512];
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, scenes[i]);
        mo_scene_file *s = NULL;
        mo_status st = mo_scene_file_load(path, NULL, &s, err, sizeof err);
        if (st == MO_ERR_UNSUPPORTED) return 77; /* no Lua */
        CHECK(st == MO_OK);
        if (st != MO_OK) {
            fprintf(stderr, "%s\n", err);
            continue;
        }
        mo_world *w = mo_scene_file_world(s);
        for (int k = 0; k < 20; k++) CHECK(mo_world_step(w) == MO_OK);
        allocations = 0;
        counting = true;
        for (int k = 0; k < 10; k++) mo_world_step(w);
        counting = false;
        printf("%-18s %ld allocations in 10 steps\n", scenes[i], allocations);
        if (allocations != 0) {
            fprintf(stderr, "%s: %ld allocations in 10 steps after 20 (expected none)\n", scenes[i], allocations);
            check_failures++;
        }
        mo_scene_file_destroy(s);
    }
    return check_result_counted("alloc");
#endif
}
