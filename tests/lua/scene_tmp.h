/* scene_tmp.h: a fresh temporary folder with a scene/ subfolder for the Lua
 * tests that write their own scene files, and the catalogue folder
 * ($MOREAU_SCENES_DIR, absolute) they may use as a search path. Needs
 * _XOPEN_SOURCE 700 (mkdtemp, realpath) before the first include. */
#ifndef MO_TESTS_SCENE_TMP_H
#define MO_TESTS_SCENE_TMP_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char tmpdir[256], scene_dir[300];
static const char *scenes_dir;

/* creates /tmp/<prefix>-XXXXXX and its scene/; 0 ok, -1 failed (said on stderr) */
static int scene_tmp_begin(const char *prefix)
{
    static char abs_scenes[PATH_MAX];
    scenes_dir = getenv("MOREAU_SCENES_DIR");
    if (!scenes_dir) scenes_dir = "scenes";
    if (realpath(scenes_dir, abs_scenes)) scenes_dir = abs_scenes;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/%s-XXXXXX", prefix);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(scene_dir, sizeof scene_dir, "%s/scene", tmpdir);
    mkdir(scene_dir, 0700);
    return 0;
}

static void scene_tmp_end(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* writes text to tmpdir/rel (exits on failure) */
static void write_file(const char *rel, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

#endif
