/* core.c: growable buffers, slot pools, owned blocks, the clock. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/core.h"

int mo_buf_reserve(mo_buf *b, size_t bytes)
{
    if (bytes <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < bytes) cap *= 2;
    void *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void mo_buf_free(mo_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}

void mo_owned_free(mo_owned *o)
{
    if (o->p && o->free_fn) o->free_fn(o->p);
    o->p = NULL;
    o->free_fn = NULL;
}

/* grows a slot pool; returns the new slot or -1 */
int mo_pool_alloc(void **items, size_t item_size, int *cap, int *count, int **free_list, int *nfree)
{
    if (*nfree > 0) return (*free_list)[--*nfree];
    if (*count == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        void *p = realloc(*items, (size_t)nc * item_size);
        if (!p) return -1;
        *items = p;
        int *f = (int *)realloc(*free_list, (size_t)nc * sizeof(int));
        if (!f) return -1;
        *free_list = f;
        memset((char *)*items + (size_t)*cap * item_size, 0, (size_t)(nc - *cap) * item_size);
        *cap = nc;
    }
    return (*count)++;
}

double mo_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool mo_finite3(mo_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
