/* fuzz_util.h: what the fuzz targets share: the libFuzzer entry point's
 * prototype, a private temporary folder per process (the file readers take
 * paths, so each input is written to a file there first) and the folder of the
 * project's scene catalogue (scenes/, for scene files that include its
 * libraries or load its models).
 *
 * Each target is one C file defining LLVMFuzzerTestOneInput. It is linked
 * either with -fsanitize=fuzzer (clang: libFuzzer's main) or with replay.c
 * (any compiler: runs every file given on the command line once). A target
 * reports a broken promise with FUZZ_CHECK, which aborts: libFuzzer and the
 * sanitizers record the input, the replay test fails. */
#ifndef MOREAU_FUZZ_UTIL_H
#define MOREAU_FUZZ_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a promise of the API that the input broke: print it and abort */
#define FUZZ_CHECK(cond)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static char fuzz_dir_path[256];

static inline void fuzz_dir_remove(void)
{
    /* the files the targets write: remove whatever is there, then the folder */
    static const char *names[] = {"scene.lua", "robot.urdf", "mesh.obj", "mesh.stl", "mesh.dae", "mesh.gltf",
                                  "mesh.glb", "mesh.ply", "tet.node", "tet.ele", "tet.msh", "problem.dat",
                                  "problem.h5", "roundtrip.dat"};
    char p[320];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", fuzz_dir_path, names[i]);
        unlink(p);
    }
    rmdir(fuzz_dir_path);
}

/* the process's temporary folder (created on first use, removed at exit) */
static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_path[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/moreau-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(fuzz_dir_path) == NULL) {
            fprintf(stderr, "fuzz: cannot create a temporary folder: %s\n", strerror(errno));
            abort();
        }
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir_path;
}

/* Writes data to NAME in the temporary folder; the full path goes to path.
 * A failure to write is the machine's, not the input's: abort. */
static inline void fuzz_write(const char *name, const uint8_t *data, size_t size, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
}

/* scenes/ of the source tree: $MOREAU_SCENES_DIR, else the build's source root */
static inline const char *fuzz_scenes_dir(void)
{
    const char *d = getenv("MOREAU_SCENES_DIR");
#ifdef MO_FUZZ_SCENES_DIR
    if (d == NULL || *d == '\0') d = MO_FUZZ_SCENES_DIR;
#endif
    return d;
}

#endif
