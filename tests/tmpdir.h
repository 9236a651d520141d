/* tmpdir.h: a test's temporary folder: made under $TMPDIR (else /tmp) as
 * "<prefix>_XXXXXX", removed with its files (one level: tests write flat).
 * Needs mkdtemp (_XOPEN_SOURCE 700 or _DEFAULT_SOURCE before the first include). */
#ifndef MOREAU_TEST_TMPDIR_H
#define MOREAU_TEST_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* makes the folder into dir (size bytes); 0, or -1 with the reason printed */
static inline int test_tmpdir_make(char *dir, size_t size, const char *prefix)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, size, "%s/%s_XXXXXX", t && *t ? t : "/tmp", prefix);
    if (mkdtemp(dir)) return 0;
    perror("mkdtemp");
    return -1;
}

/* removes dir's files and dir */
static inline void test_tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

#endif
