/* core.h: the bottom of the engine (errors' sizes, growable buffers, slot
 * pools, owned blocks, the clock). Every engine folder may include it; it
 * includes only the public header and the C library. Not installed. */
#ifndef MO_CORE_H
#define MO_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "moreau/moreau.h"

/* on the engine's internal calls that return a status: a caller that drops it does not compile
   (-Werror), so that every failure is either handled or explicitly discarded with (void) */
#if defined(__GNUC__)
#  define MO_MUST_USE __attribute__((warn_unused_result))
#else
#  define MO_MUST_USE
#endif

#define MO_DEF_COOKIE 0x4d6f7265 /* "More": set by mo_default_*_def() */
#define MO_ERR_LEN 512           /* bytes of a world's error sentence */

/* a growable buffer: grows between steps while sizes change, never shrinks */
typedef struct mo_buf { void *p; size_t cap; } mo_buf;

/* grows b to hold at least bytes; returns 0 on success, -1 out of memory (b unchanged) */
MO_MUST_USE int mo_buf_reserve(mo_buf *b, size_t bytes);
void mo_buf_free(mo_buf *b);

/* A block a world owns for a layer above the one that frees the world (the
 * step's Newton and projection buffers): the layer that makes it sets p and
 * free_fn, mo_owned_free calls free_fn(p) (p NULL: nothing) and clears both. */
typedef struct mo_owned { void *p; void (*free_fn)(void *p); } mo_owned;
void mo_owned_free(mo_owned *o);

/* a slot from an object pool: a freed slot, else the next one (the arrays grow by doubling,
 * new slots zeroed); returns -1 when out of memory */
MO_MUST_USE int mo_pool_alloc(void **items, size_t item_size, int *cap, int *count, int **free_list, int *nfree);

/* Sorts n items of size bytes by cmp, stably (a merge sort: equal items keep their order, the
 * order glibc's qsort gives too), with tmp as room for n items (grown when needed, kept by the
 * caller, so a step that sorts allocates nothing once sizes are stable). 0, or -1 out of memory
 * (base unchanged). */
MO_MUST_USE int mo_sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), mo_buf *tmp);

/* the formatted sentence into err (nothing when err is NULL or n is 0) */
void mo_errf(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* seconds of a monotonic clock */
double mo_now(void);

/* every component finite */
bool mo_finite3(mo_vec3 v);

#endif
