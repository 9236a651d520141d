/* read_all.h: a whole file into memory, for the tools (header-only, no dependency) */
#ifndef MO_TOOLS_READ_ALL_H
#define MO_TOOLS_READ_ALL_H

#include <stdio.h>
#include <stdlib.h>

/* The file at path, with a terminating 0 after its *len bytes (malloc'ed: free it); NULL when it cannot be
 * opened (*open_failed true) or memory runs out (*open_failed false). */
static inline char *tools_read_all(const char *path, size_t *len, int *open_failed)
{
    *len = 0;
    *open_failed = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *open_failed = 1;
        return NULL;
    }
    size_t cap = 1 << 16, n = 0, got;
    char *p = malloc(cap + 1);
    while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *q = realloc(p, 2 * cap + 1);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (p) p[n] = '\0';
    *len = n;
    return p;
}

#endif
