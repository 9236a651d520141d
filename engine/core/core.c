/* core.c: growable buffers, slot pools, owned blocks, the clock. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

/* merges the sorted runs a[0, h) and a[h, n) into out */
static void merge(const char *a, size_t h, size_t n, size_t size, int (*cmp)(const void *, const void *), char *out)
{
    size_t i = 0, j = h;
    while (i < h && j < n) {
        /* the left item first when equal: stable */
        if (cmp(a + j * size, a + i * size) < 0) {
            memcpy(out, a + j * size, size);
            j++;
        } else {
            memcpy(out, a + i * size, size);
            i++;
        }
        out += size;
    }
    memcpy(out, a + i * size, (h - i) * size);
    out += (h - i) * size;
    memcpy(out, a + j * size, (n - j) * size);
}

/* sorts a[0, n) in place, tmp holding n items */
static void msort(char *a, size_t n, size_t size, int (*cmp)(const void *, const void *), char *tmp)
{
    if (n < 2) return;
    const size_t h = n / 2;
    msort(a, h, size, cmp, tmp);
    msort(a + h * size, n - h, size, cmp, tmp);
    if (cmp(a + h * size, a + (h - 1) * size) >= 0) return; /* already in order */
    merge(a, h, n, size, cmp, tmp);
    memcpy(a, tmp, n * size);
}

int mo_sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), mo_buf *tmp)
{
    if (n < 2) return 0;
    if (mo_buf_reserve(tmp, n * size)) return -1;
    msort((char *)base, n, size, cmp, (char *)tmp->p);
    return 0;
}

void mo_errf(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

double mo_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool mo_finite3(mo_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
