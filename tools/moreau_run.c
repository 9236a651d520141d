/* moreau-run: runs a scene headless for a given time or step count, with a
 * progress bar on a terminal, per-stage timings, the scene's own metrics
 * (those of the outside engines' benchmark programs), a CSV of per-step
 * statistics and optionally the bodies' trajectories. A scene is a Lua scene
 * file (scenes/X.lua, run in its sandbox, with its on_step callbacks and, with
 * --check, its claims) or a built-in C scene by name (tools/scenes_builtin.c,
 * also an example of building worlds through the C API). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <moreau/fclib.h>
#include <moreau/scene.h>
#include "cli_settings.h"
#include "scenes_builtin.h"
#include "run_batch.h"
#include "read_all.h"

#ifndef MO_SCENES_DIR
#define MO_SCENES_DIR "scenes"
#endif
#define DEFAULT_SCENE "stack20.lua"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: moreau-run [SCENE] [options]\n"
            "  SCENE               a scene file (scenes/X.lua), or a built-in scene: stack20, heavy_stack,\n"
            "                      pile1000, chain1000, b1_net, b2_spheres, b3_plates, b4_wall, mixed1000,\n"
            "                      or pile:N (N spheres, for scaling runs); none: scenes/stack20.lua\n"
            "  --steps N           number of steps (default: the scene's duration, SCENES.md)\n"
            "  --time T            simulated seconds instead of --steps\n"
            "  --csv FILE          per-step statistics as CSV\n"
            "  --residuals FILE    per-iteration residuals of every step as CSV (step,iteration,ccp,coulomb)\n"
            "  --export-fclib DIR  write each step's contact problem as FCLIB HDF5 (DIR/SCENE-stepNNNNNN.hdf5)\n"
            "  --trajectory FILE   body poses per step as CSV (step,time,body,name,x,y,z,qw,qx,qy,qz)\n"
            "  --out DIR           write DIR/steps.csv and DIR/trajectory.csv (unless --csv/--trajectory say)\n"
            "  --check             evaluate the scene file's checks at the end; exit 1 if one fails\n"
            "  --path DIR          another folder scene files may include/require/load from (repeatable)\n"
            "  --set NAME=VALUE    an engine setting by name (docs/settings.md; over the scene's own), else\n"
            "                      the value for param(NAME, default) in the scene file (repeatable)\n"
            "  --list-settings     print every engine setting (name, type, range, default, unit) and exit\n"
            "  --instructions N    Lua instruction budget for loading the scene file (default 200000000)\n"
            "  --memory MIB        memory cap of the scene file's Lua state (default 512)\n"
            "  --seed N            seed of the scene file's math.random (default 0: the same numbers every run)\n"
            "  --hash              print the state hash (mo_world_state_hash) at the end:\n"
            "                      'hash 0x<16 hex digits> at step N t=T' (N steps of this run, T the world's time)\n"
            "  --hash-every N      the same line every N steps too (implies --hash)\n"
            "  --save-state FILE   write the world's state (mo_world_save_state) to FILE after the run's step N\n"
            "                      (--at-step N; 0 = before the first step), else after the last step\n"
            "  --at-step N         the step after which --save-state writes\n"
            "  --restore-state FILE  start from a state --save-state wrote (the same scene and settings), then run\n"
            "                      --steps more steps\n"
            "  --batch N           run N copies of the scene as one batch (moreau/batch.h, docs/batch.md): world-steps\n"
            "                      per second, distinct final states, how many worlds' claims hold (--threads K:\n"
            "                      K threads over worlds, default all; with --steps, --time, --set, --path, --check)\n"
            "  --progress          force the progress bar (default: only on a terminal)\n"
            "  --quiet             no progress bar\n"
            "shorthands for engine settings (the same values as --set):\n");
    cli_settings_usage(f);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void progress(int done, int total, double elapsed)
{
    const int width = 40;
    int fill = total ? (int)((long long)done * width / total) : width;
    double eta = done > 0 ? elapsed * (total - done) / done : 0.0;
    fprintf(stderr, "\r[");
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %5.1f%%  step %d/%d  %.1fs elapsed, %.1fs left ", 100.0 * done / (total ? total : 1), done,
            total, elapsed, eta);
    fflush(stderr);
}

static bool is_scene_file(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".lua"));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* the hash line of --hash and --hash-every */
static void print_hash(const mo_world *w, int step)
{
    printf("hash 0x%016llx at step %d t=%.6f\n", (unsigned long long)mo_world_state_hash(w), step, mo_world_time(w));
    fflush(stdout);
}

/* --save-state: the world's state into path; 0, or 1 with the reason on stderr */
static int save_state(mo_world *w, const char *path, int step)
{
    size_t n = mo_world_state_size(w);
    void *buf = malloc(n);
    if (!buf) {
        fprintf(stderr, "moreau-run: --save-state: out of memory for %zu bytes\n", n);
        return 1;
    }
    if (mo_world_save_state(w, buf, n) != MO_OK) {
        fprintf(stderr, "moreau-run: --save-state: %s\n", mo_world_last_error(w));
        free(buf);
        return 1;
    }
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(buf);
    if (!ok) {
        fprintf(stderr, "moreau-run: --save-state: cannot write '%s'\n", path);
        return 1;
    }
    printf("state saved to %s at step %d t=%.6f (%zu bytes)\n", path, step, mo_world_time(w), n);
    return 0;
}

/* --restore-state: the world's state from path; 0, or 1 with the reason on stderr */
static int restore_state(mo_world *w, const char *path)
{
    size_t n = 0;
    int missing = 0;
    char *buf = tools_read_all(path, &n, &missing);
    if (!buf) {
        fprintf(stderr, missing ? "moreau-run: --restore-state: cannot read '%s'\n"
                                : "moreau-run: --restore-state: out of memory reading '%s'\n", path);
        return 1;
    }
    int rc = 0;
    if (mo_world_restore_state(w, buf, n) != MO_OK) {
        fprintf(stderr, "moreau-run: --restore-state %s: %s\n", path, mo_world_last_error(w));
        rc = 1;
    } else {
        printf("state restored from %s t=%.6f (%zu bytes)\n", path, mo_world_time(w), n);
    }
    free(buf);
    return rc;
}

/* --set NAME=VALUE that is no engine setting and that the scene did not read while it loaded: most likely a
 * typo or a setting's short name (solver for solver.kind), which would otherwise be silently ignored */
static void warn_unread_params(const mo_scene_file *sf, const char *const *params, int n)
{
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(params[i], '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - params[i]) : 0, params[i]);
        if (!name[0] || mo_scene_file_param_read(sf, name)) continue;
        /* a setting NAME.x, or one whose last part is NAME */
        const char *like = NULL;
        size_t nl = strlen(name);
        for (int k = 0; k < mo_setting_count() && !like; k++) {
            const char *sn = mo_setting_at(k)->name, *dot = strrchr(sn, '.');
            if ((!strncmp(sn, name, nl) && sn[nl] == '.') || (dot && !strcmp(dot + 1, name))) like = sn;
        }
        fprintf(stderr, "moreau-run: warning: --set %s: no engine setting has that name and the scene did not read "
                "param('%s') while it loaded (a callback may still read it)%s%s%s\n", params[i], name,
                like ? "; did you mean the setting " : "", like ? like : "", like ? "?" : "");
    }
}

int main(int argc, char **argv)
{
    cli_cuda_module_default();
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--list-settings")) {
        cli_settings_list(stdout);
        return 0;
    }
    const char *scene = NULL, *csv_path = NULL, *res_path = NULL, *export_dir = NULL, *traj_path = NULL,
               *out_dir = NULL;
    int exported = 0;
    int steps = -1, show = isatty(STDERR_FILENO), do_check = 0;
    int do_hash = 0, hash_every = 0, save_at = -1;
    const char *save_path = NULL, *restore_path = NULL;
    double seconds = -1.0;
    int batch = 0;
    static cli_settings cs; /* the engine settings given, applied over the scene's */
    char serr[512];
    const char **paths = calloc((size_t)argc, sizeof(char *)), **params = calloc((size_t)argc, sizeof(char *));
    int npaths = 0, nparams = 0;
    mo_scene_options sopt = mo_default_scene_options();
    if (!paths || !params) {
        fprintf(stderr, "moreau-run: out of memory\n");
        return 1;
    }
    for (int i = 1, k = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                        \
    do {                                                              \
        if (!val) {                                                   \
            fprintf(stderr, "moreau-run: option %s needs a value\n", a); \
            return 2;                                                 \
        }                                                             \
        i++;                                                          \
    } while (0)
        if (a[0] != '-' && !scene) scene = a;
        else if (!strcmp(a, "--steps")) { NEED(); steps = atoi(val); }
        else if (!strcmp(a, "--time")) { NEED(); seconds = atof(val); }
        else if ((k = cli_settings_flag(&cs, argc, argv, &i, serr, sizeof serr)) != 0) {
            if (k < 0) {
                fprintf(stderr, "moreau-run: %s\n", serr);
                return 2;
            }
        }
        else if (!strcmp(a, "--csv")) { NEED(); csv_path = val; }
        else if (!strcmp(a, "--residuals")) {
            NEED();
            res_path = val;
            cli_settings_add(&cs, "solver.record_residuals", "true", serr, sizeof serr);
        }
        else if (!strcmp(a, "--export-fclib")) { NEED(); export_dir = val; }
        else if (!strcmp(a, "--trajectory")) { NEED(); traj_path = val; }
        else if (!strcmp(a, "--out")) { NEED(); out_dir = val; }
        else if (!strcmp(a, "--check")) do_check = 1;
        else if (!strcmp(a, "--path")) { NEED(); paths[npaths++] = val; }
        else if (!strcmp(a, "--set")) {
            NEED();
            if ((k = cli_settings_set(&cs, val, serr, sizeof serr)) < 0) {
                fprintf(stderr, "moreau-run: --set %s: %s\n", val, serr);
                return 2;
            }
            if (k == 0) params[nparams++] = val;
        }
        else if (!strcmp(a, "--instructions")) { NEED(); sopt.load_instructions = strtoull(val, NULL, 10); }
        else if (!strcmp(a, "--memory")) { NEED(); sopt.memory_limit = (size_t)(atof(val) * 1048576.0); }
        else if (!strcmp(a, "--seed")) {
            NEED();
            char *end = NULL;
            sopt.seed = strtoull(val, &end, 10);
            if (!val[0] || *end || val[0] == '-') {
                fprintf(stderr, "moreau-run: --seed: '%s' is not a non-negative integer\n", val);
                return 2;
            }
        }
        else if (!strcmp(a, "--hash")) do_hash = 1;
        else if (!strcmp(a, "--hash-every")) {
            NEED();
            hash_every = atoi(val);
            do_hash = 1;
            if (hash_every < 1) {
                fprintf(stderr, "moreau-run: --hash-every needs a step count >= 1, got '%s'\n", val);
                free(paths);
                free(params);
                return 2;
            }
        }
        else if (!strcmp(a, "--save-state")) { NEED(); save_path = val; }
        else if (!strcmp(a, "--at-step")) {
            NEED();
            save_at = atoi(val);
            if (save_at < 0) {
                fprintf(stderr, "moreau-run: --at-step needs a step count >= 0, got '%s'\n", val);
                free(paths);
                free(params);
                return 2;
            }
        }
        else if (!strcmp(a, "--restore-state")) { NEED(); restore_path = val; }
        else if (!strcmp(a, "--batch")) {
            NEED();
            batch = atoi(val);
            if (batch < 1) {
                fprintf(stderr, "moreau-run: --batch needs a world count >= 1, got '%s'\n", val);
                return 2;
            }
        }
        else if (!strcmp(a, "--progress")) show = 1;
        else if (!strcmp(a, "--quiet")) show = 0;
        else { fprintf(stderr, "moreau-run: unknown option '%s'\n", a); usage(stderr); return 2; }
#undef NEED
    }

    if (save_at >= 0 && !save_path) {
        fprintf(stderr, "moreau-run: --at-step goes with --save-state FILE\n");
        free(paths);
        free(params);
        return 2;
    }

    /* the default demo: scenes/stack20.lua here, else in the source tree */
    char default_path[4096];
    if (!scene) {
        struct stat st;
        snprintf(default_path, sizeof default_path, "scenes/%s", DEFAULT_SCENE);
        if (stat(default_path, &st) != 0) snprintf(default_path, sizeof default_path, "%s/%s", MO_SCENES_DIR, DEFAULT_SCENE);
        scene = default_path;
        fprintf(stderr, "moreau-run: no scene given, running the demo scene %s\n", scene);
    }
    if (batch > 0) {
        if (csv_path || res_path || export_dir || traj_path || out_dir || do_hash || save_path || restore_path) {
            fprintf(stderr, "moreau-run: --batch goes with --steps, --time, --set, --path, --check and the settings "
                            "flags only\n");
            return 2;
        }
        if (!is_scene_file(scene) && (do_check || npaths || nparams)) {
            fprintf(stderr, "moreau-run: --check, --path and --set apply to scene files (scenes/X.lua), not to the "
                            "built-in scene '%s'\n", scene);
            return 2;
        }
        sopt.search_paths = paths;
        sopt.search_path_count = npaths;
        sopt.params = params;
        sopt.param_count = nparams;
        int rc = run_batch(scene, is_scene_file(scene), &sopt, cs.items, cs.n, batch, steps, seconds, do_check);
        free(paths);
        free(params);
        return rc;
    }
    char out_csv[4096], out_traj[4096];
    if (out_dir) {
        mkdir(out_dir, 0777);
        struct stat st;
        if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "moreau-run: --out: cannot create the folder '%s'\n", out_dir);
            return 1;
        }
        snprintf(out_csv, sizeof out_csv, "%s/steps.csv", out_dir);
        snprintf(out_traj, sizeof out_traj, "%s/trajectory.csv", out_dir);
        if (!csv_path) csv_path = out_csv;
        if (!traj_path) traj_path = out_traj;
    }

    char err[1024];
    mo_world *w = NULL;
    mo_scene sc;
    memset(&sc, 0, sizeof sc);
    mo_scene_file *sf = NULL;
    const bool file = is_scene_file(scene);
    if (file) {
        sopt.search_paths = paths;
        sopt.search_path_count = npaths;
        sopt.params = params;
        sopt.param_count = nparams;
        if (mo_scene_file_load(scene, &sopt, &sf, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-run: %s\n", err);
            return 1;
        }
        w = mo_scene_file_world(sf);
        if (mo_world_set_settings(w, cs.items, cs.n) != MO_OK) {
            fprintf(stderr, "moreau-run: %s\n", mo_world_last_error(w));
            mo_scene_file_destroy(sf);
            return 2;
        }
        warn_unread_params(sf, params, nparams);
    } else {
        if (do_check || npaths || nparams) {
            fprintf(stderr, "moreau-run: --check, --path and --set apply to scene files (scenes/X.lua), not to the "
                            "built-in scene '%s'\n", scene);
            return 2;
        }
        mo_world_def wd = mo_default_world_def();
        if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-run: %s\n", err);
            return 1;
        }
        if (mo_scene_build(scene, w, &sc, err, sizeof err) != MO_OK) {
            fprintf(stderr, "moreau-run: %s\n", err);
            mo_scene_free(&sc);
            mo_world_destroy(w);
            return 1;
        }
        if (mo_world_set_settings(w, cs.items, cs.n) != MO_OK) {
            fprintf(stderr, "moreau-run: %s\n", mo_world_last_error(w));
            mo_scene_free(&sc);
            mo_world_destroy(w);
            return 2;
        }
    }
    if (restore_path && restore_state(w, restore_path)) {
        if (file) mo_scene_file_destroy(sf);
        else {
            mo_scene_free(&sc);
            mo_world_destroy(w);
        }
        free(paths);
        free(params);
        return 1;
    }
    double h = mo_world_time_step(w);
    if (seconds >= 0.0) steps = (int)llround(seconds / h);
    if (steps < 0) {
        if (file) {
            double dur = mo_scene_file_duration(sf);
            steps = (int)llround((dur > 0.0 ? dur : 5.0) / h);
        } else {
            steps = sc.default_steps;
        }
    }

    FILE *csv = NULL, *res = NULL, *traj = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "moreau-run: cannot write '%s'\n", csv_path);
        return 1;
    }
    if (res_path && !(res = fopen(res_path, "w"))) {
        fprintf(stderr, "moreau-run: cannot write '%s'\n", res_path);
        return 1;
    }
    if (traj_path && !(traj = fopen(traj_path, "w"))) {
        fprintf(stderr, "moreau-run: cannot write '%s'\n", traj_path);
        return 1;
    }
    if (csv)
        fprintf(csv, "step,time,pairs,contacts,rows,nonzeros,iterations,residual,coulomb_error,max_penetration,"
                     "max_joint_error,t_predict_ms,t_collide_ms,t_assemble_ms,t_solve_ms,t_integrate_ms,t_step_ms,"
                     "scene_metric,halvings,awake_bodies,sleeping_bodies,islands\n");
    if (res) fprintf(res, "step,iteration,ccp_residual,coulomb_error\n");
    if (traj) fprintf(traj, "step,time,body,name,x,y,z,qw,qx,qy,qz\n");
    mo_scene_body *tb = NULL;
    int ntb = 0;

    double *t_step = calloc((size_t)steps + 1, sizeof(double)), *t_stage[5];
    for (int k = 0; k < 5; k++) t_stage[k] = calloc((size_t)steps + 1, sizeof(double));
    long long iter_sum = 0, pair_sum = 0, contact_sum = 0, halving_sum = 0, halved_steps = 0, device_steps = 0;
    double max_pen_metric = 0.0, max_contact_pen = 0.0, max_joint = 0.0, wall0 = 0.0;
    mo_step_stats st;
    memset(&st, 0, sizeof st);
    int shown = -1, done = 0, hashed = -1;
    if (save_path && save_at == 0 && save_state(w, save_path, 0)) return 1;
    for (int s = 0; s < steps; s++) {
        if (wall0 == 0.0) wall0 = now_s();
        if (file) {
            if (mo_scene_file_step(sf) != MO_OK) {
                fprintf(stderr, "\nmoreau-run: step %d failed: %s\n", s, mo_scene_file_last_error(sf));
                return 1;
            }
            const char *why = NULL;
            if (mo_scene_file_done(sf, &why)) {
                if (show) fputc('\n', stderr);
                printf("stopped by the scene at step %d (t = %.4f s)%s%s\n", s, mo_world_time(w), why[0] ? ": " : "",
                       why);
                steps = s;
                done = 1;
                break;
            }
        } else if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "\nmoreau-run: step %d failed: %s\n", s, mo_world_last_error(w));
            return 1;
        }
        st = mo_world_last_stats(w);
        if (export_dir && st.contacts > 0) {
            /* this step's contact problem, as FCLIB HDF5 */
            mo_fc_problem fc;
            char path[4096], base[256];
            /* the scene name as a file name: its base name without .lua; separators and ':' become '_' */
            const char *b0 = file && strrchr(scene, '/') ? strrchr(scene, '/') + 1 : scene;
            snprintf(base, sizeof base, "%.*s", (int)sizeof base - 1, b0); /* cut to the buffer */
            size_t bl = strlen(base);
            if (bl > 4 && !strcmp(base + bl - 4, ".lua")) base[bl - 4] = '\0';
            for (char *c = base; *c; c++)
                if (*c == '/' || *c == ':' || *c == '\\') *c = '_';
            snprintf(path, sizeof path, "%s/%s-step%06d.hdf5", export_dir, base, s);
            if (mo_world_contact_problem(w, &fc) != MO_OK) {
                fprintf(stderr, "\nmoreau-run: --export-fclib: %s\n", mo_world_last_error(w));
                return 1;
            }
            if (mo_fc_write(path, &fc, err, sizeof err) != MO_OK) {
                fprintf(stderr, "\nmoreau-run: --export-fclib: %s\n", err);
                mo_fc_free(&fc);
                return 1;
            }
            mo_fc_free(&fc);
            exported++;
        }
        if (traj) {
            double t = mo_world_time(w);
            if (file) {
                int n = mo_scene_file_bodies(sf, NULL, 0);
                if (n > ntb) {
                    mo_scene_body *nb = realloc(tb, (size_t)n * sizeof *tb);
                    if (!nb) {
                        fprintf(stderr, "\nmoreau-run: out of memory\n");
                        return 1;
                    }
                    tb = nb;
                }
                ntb = mo_scene_file_bodies(sf, tb, n);
            }
            int n = file ? ntb : sc.nbodies;
            for (int b = 0; b < n; b++) {
                mo_body_id id = file ? tb[b].id : sc.bodies[b];
                mo_vec3 p;
                mo_quat q;
                if (mo_body_position(w, id, &p) != MO_OK || mo_body_orientation(w, id, &q) != MO_OK) continue;
                fprintf(traj, "%d,%.6f,%u,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", s, t, id.index,
                        file ? tb[b].name : "", p.x, p.y, p.z, q.w, q.x, q.y, q.z);
            }
        }
        double stage[5] = {st.t_predict, st.t_collide, st.t_assemble, st.t_solve, st.t_integrate};
        double tot = 0.0;
        for (int k = 0; k < 5; k++) {
            t_stage[k][s] = stage[k];
            tot += stage[k];
        }
        t_step[s] = tot;
        iter_sum += st.iterations;
        device_steps += st.backend == MO_BACKEND_CUDA;
        halving_sum += st.halvings;
        if (st.halvings) halved_steps++;
        pair_sum += st.pairs;
        contact_sum += st.contacts;
        if (st.max_penetration > max_contact_pen) max_contact_pen = st.max_penetration;
        if (st.max_joint_error > max_joint) max_joint = st.max_joint_error;
        double metric = 0.0;
        if (!file && sc.kind == MO_SCENE_STACK) {
            metric = mo_scene_stack_penetration(w, &sc);
            if (metric > max_pen_metric) max_pen_metric = metric;
        } else if (file || sc.kind == MO_SCENE_CHAIN) {
            metric = st.max_joint_error;
        }
        if (csv)
            fprintf(csv, "%d,%.6f,%d,%d,%d,%d,%d,%.6e,%.6e,%.6e,%.6e,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6e,%d,%d,%d,%d\n", s,
                    mo_world_time(w), st.pairs, st.contacts, st.rows, st.nonzeros, st.iterations, st.residual,
                    st.coulomb_error, st.max_penetration, st.max_joint_error, 1e3 * st.t_predict,
                    1e3 * st.t_collide, 1e3 * st.t_assemble, 1e3 * st.t_solve, 1e3 * st.t_integrate, 1e3 * tot,
                    metric, st.halvings, st.awake_bodies, st.sleeping_bodies, st.islands);
        if (res)
            for (int k = 0; k < st.residual_count; k++)
                fprintf(res, "%d,%d,%.6e,%.6e\n", s, k + 1, st.residual_history[k], st.coulomb_error_history[k]);
        if (hash_every && (s + 1) % hash_every == 0) {
            if (show) fputc('\n', stderr);
            print_hash(w, s + 1);
            hashed = s + 1;
        }
        if (save_path && save_at == s + 1 && save_state(w, save_path, s + 1)) return 1;
        int pct = (int)(100LL * (s + 1) / steps);
        if (show && pct != shown) {
            progress(s + 1, steps, now_s() - wall0);
            shown = pct;
        }
    }
    if (show && !done) fputc('\n', stderr);
    if (do_hash && hashed != steps) print_hash(w, steps);
    if (save_path && (save_at < 0 || save_at > steps)) {
        if (save_at > steps)
            fprintf(stderr, "moreau-run: --at-step %d is past the run's %d steps: the state is saved at the end\n",
                    save_at, steps);
        if (save_state(w, save_path, steps)) return 1;
    }
    if (csv) fclose(csv);
    if (res) fclose(res);
    if (traj) fclose(traj);
    free(tb);

    const char *names[5] = {"predict", "collide", "assemble", "solve", "integrate"};
    double med_stage[5];
    for (int k = 0; k < 5; k++) med_stage[k] = 1e3 * median(t_stage[k], steps);
    double total_s = 0.0;
    for (int s = 0; s < steps; s++) total_s += t_step[s];
    double med = 1e3 * median(t_step, steps);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    mo_solver_settings ss = mo_world_solver(w);
    char friction[32], threads[32];
    mo_world_get_setting(w, "solver.friction", friction, sizeof friction);
    mo_world_get_setting(w, "threads", threads, sizeof threads);
    printf("scene=%s steps=%d h=%.6f solver=%s friction=%s iterations=%d warm_start=%d threads=%s substeps=%d\n", scene, steps, h,
           mo_solver_name(ss.kind), friction, ss.max_iterations, (int)ss.warm_start, threads, mo_world_substeps(w));
    printf("backend=%s device=\"%s\" steps_solved_on_device=%lld\n", mo_backend_name(mo_world_backend(w)),
           mo_world_device_name(w), device_steps);
    printf("ms_per_step median=%.4f mean=%.4f", med, steps ? 1e3 * total_s / steps : 0.0);
    for (int k = 0; k < 5; k++) printf(" %s=%.4f", names[k], med_stage[k]);
    printf("\n");
    printf("collision: mean_pairs=%.0f mean_contacts=%.0f collide_ms_median=%.4f\n", steps ? (double)pair_sum / steps : 0.0,
           steps ? (double)contact_sum / steps : 0.0, med_stage[1]);
    char halving_note[96] = "";
    if (halving_sum)
        snprintf(halving_note, sizeof halving_note, " halvings=%lld (in %lld steps)", halving_sum, halved_steps);
    printf("final: contacts=%d rows=%d mean_iterations=%.1f residual=%.3e coulomb_error=%.3e "
           "max_contact_penetration_all_steps=%.5f max_joint_error_all_steps=%.6f peak_rss_mib=%.1f%s\n",
           st.contacts, st.rows, steps ? (double)iter_sum / steps : 0.0, st.residual, st.coulomb_error,
           max_contact_pen, max_joint, ru.ru_maxrss / 1024.0, halving_note);
    char sleep_on[16];
    mo_world_get_setting(w, "sleep", sleep_on, sizeof sleep_on);
    if (!strcmp(sleep_on, "true"))
        printf("sleep: awake_bodies=%d sleeping_bodies=%d islands=%d (after the last step)\n", st.awake_bodies,
               st.sleeping_bodies, st.islands);
    if (export_dir) printf("exported %d contact problems to %s\n", exported, export_dir);
    int status = 0;
    if (file) {
        if (do_check) {
            int n = mo_scene_file_check_count(sf);
            mo_scene_check_result *cr = calloc((size_t)(n ? n : 1), sizeof *cr);
            if (!cr) {
                fprintf(stderr, "moreau-run: out of memory\n");
                return 1;
            }
            int failed = mo_scene_file_checks(sf, cr, n);
            for (int i = 0; i < n; i++)
                printf("check %s: %s%s%s%s\n", cr[i].passed ? "PASS" : "FAIL", cr[i].name, cr[i].detail[0] ? " (" : "",
                       cr[i].detail, cr[i].detail[0] ? ")" : "");
            printf("checks: %d passed, %d failed\n", n - failed, failed);
            if (n == 0) printf("checks: the scene declares none\n");
            free(cr);
            if (failed) status = 1;
        }
    } else if (sc.kind == MO_SCENE_STACK) {
        double dxy, dz;
        mo_scene_stack_top(w, &sc, &dxy, &dz);
        int stands = dxy < 0.1 && fabs(dz) < 0.1;
        printf("stack: top_dxy=%.5f top_dz=%.5f stands=%d within_1cm=%d max_pen_all_steps=%.5f final_pen=%.5f\n",
               dxy, dz, stands, dxy < 0.01 && fabs(dz) < 0.01, max_pen_metric, mo_scene_stack_penetration(w, &sc));
    } else if (sc.kind == MO_SCENE_WALL) {
        mo_vec3 bp;
        mo_body_position(w, sc.bodies[sc.nbodies - 1], &bp);
        printf("wall: bricks_moved_gt_0.1m=%d ball_pos=%.3f,%.3f,%.3f\n", mo_scene_wall_moved(w, &sc), bp.x, bp.y, bp.z);
    } else if (sc.kind == MO_SCENE_MIXED) {
        int esc = 0;
        for (int i = 0; i < sc.nbodies; i++) {
            mo_vec3 p;
            mo_body_position(w, sc.bodies[i], &p);
            if (fabs(p.x) > sc.box_half || fabs(p.y) > sc.box_half || p.z < -0.1) esc++;
        }
        printf("mixed: escaped=%d\n", esc);
    } else if (sc.kind == MO_SCENE_PILE) {
        int esc = 0;
        double pen = mo_scene_pile_penetration(w, &sc, &esc);
        printf("pile: final_max_pen=%.5f escaped=%d\n", pen, esc);
    } else {
        double mx, mean;
        mo_scene_chain_drift(w, &sc, &mx, &mean);
        mo_vec3 e;
        mo_body_position(w, sc.bodies[sc.nbodies - 1], &e);
        printf("chain: max_joint_drift=%.6f mean_joint_drift=%.6f end_pos=%.3f,%.3f,%.3f\n", mx, mean, e.x, e.y, e.z);
    }
    if (st.nan_warnings) printf("warnings: nan=%d\n", st.nan_warnings);
    free(t_step);
    for (int k = 0; k < 5; k++) free(t_stage[k]);
    free(paths);
    free(params);
    if (file) {
        mo_scene_file_destroy(sf);
    } else {
        mo_scene_free(&sc);
        mo_world_destroy(w);
    }
    return status;
}
