/* fclib_shared.h: the shared FCLIB problems for the solver tests: where they
 * are (MOREAU_FCLIB_DIR, set by tests/meson.build) and their file names. */
#ifndef MO_TESTS_FCLIB_SHARED_H
#define MO_TESTS_FCLIB_SHARED_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static inline const char *fclib_dir(void)
{
    const char *d = getenv("MOREAU_FCLIB_DIR");
    return d ? d : "../shared/data/fclib";
}

static int fclib_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the .dat and .hdf5 files of fclib_dir(), sorted, as malloc'd names (at most
 * cap; the caller frees each); -1 when the folder cannot be opened */
static inline int fclib_list(char **names, int cap)
{
    DIR *d = opendir(fclib_dir());
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        size_t l = strlen(e->d_name);
        if ((l > 4 && !strcmp(e->d_name + l - 4, ".dat")) || (l > 5 && !strcmp(e->d_name + l - 5, ".hdf5")))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), fclib_cmp_names);
    return n;
}

#endif
