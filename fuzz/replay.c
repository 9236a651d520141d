/* replay.c: main() for a fuzz target built without libFuzzer (gcc, or clang
 * without the fuzzer runtime): runs every input given on the command line
 * through LLVMFuzzerTestOneInput once, so that the normal and sanitizer
 * builds check the seed corpora and the regression inputs as meson tests.
 *
 *   replay [--root DIR] PATH...
 *
 * A PATH that is a folder: each regular file in it (sorted by name; README*
 * and dot files skipped). A PATH ending in ".list": a seed list, one path per
 * line relative to --root (default: the current folder), '#' comments; a
 * listed file that is missing is reported and skipped (../shared/ may be
 * absent), unless no input at all is left. Any other PATH: that file.
 * A broken promise aborts inside the target (the test fails); otherwise it
 * prints the number of inputs and the slowest one, and exits 0. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz_util.h"

static int runs, missing;
static double slowest_s, total_s;
static char slowest[1024];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s (skipped)\n", path);
        missing++;
        return;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        exit(1);
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    /* libFuzzer hands the target a buffer of exactly size bytes: copy to one */
    uint8_t *exact = malloc(n > 0 ? n : 1);
    if (exact == NULL) exit(1);
    memcpy(exact, buf, n);
    free(buf);
    double t0 = now_s();
    LLVMFuzzerTestOneInput(exact, n);
    double dt = now_s() - t0;
    free(exact);
    runs++;
    total_s += dt;
    if (dt > slowest_s) {
        slowest_s = dt;
        snprintf(slowest, sizeof slowest, "%s", path);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open folder %s\n", dir);
        exit(1);
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, (size_t)cap * sizeof *names);
            if (nn == NULL) exit(1);
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (names[n] == NULL) exit(1);
        n++;
    }
    closedir(d);
    if (n > 0) qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char path[2048];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) run_file(path);
        free(names[i]);
    }
    free(names);
}

static void run_list(const char *list, const char *root)
{
    FILE *f = fopen(list, "r");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open seed list %s\n", list);
        exit(1);
    }
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL) {
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        size_t len = strcspn(s, "#\r\n");
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        s[len] = '\0';
        if (len == 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", root, s);
        struct stat st;
        if (stat(path, &st) != 0) {
            fprintf(stderr, "replay: %s listed in %s is missing (skipped)\n", path, list);
            missing++;
            continue;
        }
        run_file(path);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *root = ".";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
            continue;
        }
        struct stat st;
        size_t len = strlen(argv[i]);
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(argv[i]);
        else if (len > 5 && strcmp(argv[i] + len - 5, ".list") == 0)
            run_list(argv[i], root);
        else
            run_file(argv[i]);
    }
    printf("replay: %d inputs in %.2f s (%d listed files missing); slowest %.3f s: %s\n", runs, total_s, missing,
           slowest_s, runs ? slowest : "-");
    if (runs == 0) {
        fprintf(stderr, "replay: no input ran\n");
        return 1;
    }
    return 0;
}
