/* test_run_hash: moreau-run's --hash, --hash-every, --save-state / --at-step
 * and --restore-state, on the built executable (its path is argv[1]):
 *   - the hash lines of pile:200 (60 steps, every 20) are the same with
 *     --threads 1 and --threads 2, and are mo_world_state_hash of the same
 *     scene stepped here through the C API;
 *   - a run saved at step 30 and a second process restoring that file and
 *     running 30 more steps print the first run's hashes at t = 1/3 s and
 *     t = 1/2 s;
 *   - restoring the file into another scene fails (exit 1) with the
 *     library's sentence. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <moreau/moreau.h>
#include "check.h"
#include "scenes_builtin.h"

#define MAXL 16

typedef struct run_out {
    int status;                 /* exit status */
    int nh;                     /* hash lines */
    unsigned long long h[MAXL]; /* their hashes */
    int step[MAXL];
    double t[MAXL];
    char text[8192];            /* stdout and stderr, truncated */
} run_out;

static const char *exe;

/* runs moreau-run with args (stdout and stderr together); the hash lines parsed */
static void run(const char *args, run_out *o)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", exe, args);
    memset(o, 0, sizeof *o);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "cannot run %s\n", cmd);
        exit(1);
    }
    char line[1024];
    size_t at = 0;
    while (fgets(line, sizeof line, p)) {
        size_t n = strlen(line);
        if (at + n < sizeof o->text) {
            memcpy(o->text + at, line, n + 1);
            at += n;
        }
        unsigned long long h;
        int s;
        double t;
        if (sscanf(line, "hash 0x%16llx at step %d t=%lf", &h, &s, &t) == 3 && o->nh < MAXL) {
            o->h[o->nh] = h;
            o->step[o->nh] = s;
            o->t[o->nh++] = t;
        }
    }
    int st = pclose(p);
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    printf("$ moreau-run %s\n  exit %d, %d hash line(s)\n", args, o->status, o->nh);
    if (o->status != 0) printf("%s", o->text);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_run_hash PATH/moreau-run\n");
        return 1;
    }
    exe = argv[1];
    run_out a, b, c, d;

    /* threads */
    run("pile:200 --steps 60 --hash-every 20 --threads 1 --quiet", &a);
    run("pile:200 --steps 60 --hash-every 20 --threads 2 --quiet", &b);
    CHECK(a.status == 0 && b.status == 0);
    CHECK(a.nh == 3 && b.nh == 3);
    for (int i = 0; i < 3 && i < a.nh && i < b.nh; i++) {
        CHECK(a.h[i] == b.h[i]);
        CHECK(a.step[i] == 20 * (i + 1) && b.step[i] == a.step[i]);
    }

    /* the printed value is mo_world_state_hash */
    mo_world_def wd = mo_default_world_def();
    mo_world *w = NULL;
    mo_scene sc;
    char err[512];
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
    CHECK(mo_scene_build("pile:200", w, &sc, err, sizeof err) == MO_OK);
    for (int s = 1; s <= 60; s++) {
        CHECK(mo_world_step(w) == MO_OK);
        if (s % 20 == 0 && s / 20 - 1 < a.nh) {
            uint64_t h = mo_world_state_hash(w);
            if (h != a.h[s / 20 - 1])
                fprintf(stderr, "step %d: here %016" PRIx64 ", moreau-run %016llx\n", s, h, a.h[s / 20 - 1]);
            CHECK(h == a.h[s / 20 - 1]);
            CHECK_NEAR(mo_world_time(w), a.t[s / 20 - 1], 1e-6);
        }
    }
    mo_scene_free(&sc);
    mo_world_destroy(w);

    /* save at 30 in one process, restore in another */
    char path[256], args[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/moreau-test-run-hash-%ld.state", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    snprintf(args, sizeof args, "pile:200 --steps 60 --hash-every 20 --quiet --save-state '%s' --at-step 30", path);
    run(args, &c);
    CHECK(c.status == 0 && c.nh == 3);
    CHECK(strstr(c.text, "state saved to ") && strstr(c.text, " at step 30 t=0.250000 ("));
    for (int i = 0; i < 3 && i < c.nh && i < a.nh; i++) CHECK(c.h[i] == a.h[i]); /* saving changes nothing */
    snprintf(args, sizeof args, "pile:200 --steps 30 --hash-every 10 --threads 2 --quiet --restore-state '%s'", path);
    run(args, &d);
    CHECK(d.status == 0 && d.nh == 3);
    CHECK(strstr(d.text, "state restored from ") && strstr(d.text, " t=0.250000 ("));
    if (d.nh == 3 && a.nh == 3) {
        CHECK(d.step[0] == 10 && d.h[0] == a.h[1]); /* t = 1/3 s */
        CHECK_NEAR(d.t[0], a.t[1], 1e-6);
        CHECK(d.step[2] == 30 && d.h[2] == a.h[2]); /* t = 1/2 s */
        CHECK_NEAR(d.t[2], a.t[2], 1e-6);
    }

    /* into another scene: refused with the library's sentence */
    snprintf(args, sizeof args, "pile:100 --steps 5 --hash --quiet --restore-state '%s'", path);
    run(args, &d);
    CHECK(d.status == 1 && d.nh == 0);
    CHECK(strstr(d.text, "mo_world_restore_state: the state is from a world of another structure: 205 body slots in "
                         "the state, 105 in this world") != NULL);
    /* --at-step without --save-state, --hash-every 0 */
    run("pile:100 --steps 5 --at-step 3 --quiet", &d);
    CHECK(d.status == 2 && strstr(d.text, "--at-step goes with --save-state FILE"));
    run("pile:100 --steps 5 --hash-every 0 --quiet", &d);
    CHECK(d.status == 2 && strstr(d.text, "--hash-every needs a step count >= 1, got '0'"));
    remove(path);
    return check_result("run_hash");
}
