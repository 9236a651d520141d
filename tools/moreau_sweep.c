/* moreau-sweep: runs a scene file at every point of a parameter grid (times
 * seeds), spread over MPI ranks, one row per run (parameters, claims held,
 * metrics, ms/step) gathered by rank 0 into DIR/results.csv (and
 * DIR/results.h5 with HDF5). Every finished row is appended to
 * DIR/journal.csv and flushed to the disk before the next run is handed out,
 * so a sweep killed at any point resumes where it stopped: runs with a row are
 * skipped. Runs are handed out one at a time (rank 0 runs its share too and
 * answers the other ranks between its own steps), so ranks that draw slow runs
 * take fewer. Without MPI (or with one rank) it runs everything in one process.
 * docs/tools.md, docs/scaling.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <moreau/scene.h>
#include "cli_settings.h"
#include "sweep_plan.h"
#include "sweep_h5.h"
#ifdef MO_SWEEP_MPI
#include <mpi.h>
#endif

#define ROW_MAX 8192
#define TAG_ROW 1    /* worker -> 0: a finished row ("" on the first request) */
#define TAG_RUN 2    /* 0 -> worker: the next run, -1 = none left */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: moreau-sweep SCENE.lua --grid GRID [options]   (mpirun -np N moreau-sweep ... over N ranks)\n"
            "  --grid GRID         NAME=VALUES,...: VALUES a range A:B:N (N numbers from A to B) or a list V,V,...;\n"
            "                      a NAME is an engine setting (docs/settings.md) or a param() of the scene:\n"
            "                      \"friction=0.2:0.8:4,mass=1,2\" is 8 points\n"
            "  --seeds N           run every point with seeds 0..N-1 (the scene's math.random; default 1)\n"
            "  --out DIR           where results.csv, results.h5, journal.csv and sweep.txt go (default sweep-out);\n"
            "                      a folder holding this sweep's journal resumes it (finished runs are skipped)\n"
            "  --steps N, --time T length of each run (default: the scene's duration)\n"
            "  --set NAME=VALUE    a fixed engine setting or scene param for every run (repeatable)\n"
            "  --path DIR          another folder the scene may read from (repeatable)\n"
            "  --threads K         threads of each world (default 1: one run per rank per core)\n"
            "  --max-runs K        stop after K runs of this invocation (resumable; for time-boxed jobs)\n"
            "  --check             exit 1 when a run's claims fail (else only on errors)\n"
            "  --progress, --quiet the progress line on stderr (default: only on a terminal)\n"
            "this build: %s\n"
            "exit status: 0 every run finished, 1 a run failed to load or step (or --check and a claim\n"
            "failed), 2 bad arguments or an unusable --out, 3 stopped by --max-runs with runs left\n",
#ifdef MO_SWEEP_MPI
            "MPI (runs spread over the ranks of mpirun)"
#else
            "without MPI (one process)"
#endif
    );
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct sweep {
    const char *scene, *out;
    sweep_plan pl;
    int steps;                 /* < 0: from seconds or the scene's duration */
    double seconds;
    cli_settings fixed;        /* --set settings */
    const char **params;       /* --set scene params */
    int nparams;
    const char **paths;
    int npaths, threads;
    int rank, size;
    /* rank 0 */
    char header[ROW_MAX];
    int *queue, nqueue, next;  /* runs left to hand out */
    int total_left, finished, errors, failed_claims, workers;
    char **rows;
    int nrows, cap_rows;
    bool show, fatal;
    double t0;
    char err[1024];
} sweep;

/* rank 0: the progress line */
static void draw_progress(const sweep *s)
{
    if (!s->show) return;
    double el = now_s() - s->t0;
    int width = 30, total = s->total_left;
    int fill = total ? (int)((long long)s->finished * width / total) : width;
    fprintf(stderr, "\r[");
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %d/%d runs, %d rank%s, %.1fs elapsed, %.1fs left, %d failed claims, %d errors ", s->finished,
            total, s->size, s->size > 1 ? "s" : "", el,
            s->finished ? el * (total - s->finished) / s->finished : 0.0, s->failed_claims, s->errors);
    fflush(stderr);
}

/* rank 0: a row's status and claims into the sweep's counts */
static void count_row(sweep *s, const char *row)
{
    /* the status and claims_held columns */
    const char *c = row;
    for (int k = 0; k < 3 + s->pl.nparams && c; k++) c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
    if (c && !strncmp(c, "error,", 6)) s->errors++;
    const char *held = c;
    for (int k = 0; k < 3 && held; k++) held = strchr(held, ',') ? strchr(held, ',') + 1 : NULL;
    if (held && !strncmp(held, "false", 5) && strncmp(c, "error,", 6)) s->failed_claims++;
}

/* rank 0: a finished row into the journal and the rows kept */
static void take_row(sweep *s, const char *row)
{
    if (s->fatal) return;
    if (sweep_journal_append(s->out, s->header, row, s->err, sizeof s->err) != 0) {
        fprintf(stderr, "\nmoreau-sweep: %s\n", s->err);
        s->fatal = true;
        return;
    }
    char *copy = strdup(row);
    if (s->nrows == s->cap_rows) {
        int cap = s->cap_rows ? 2 * s->cap_rows : 64;
        char **nr = realloc(s->rows, (size_t)cap * sizeof *nr);
        if (nr) {
            s->rows = nr;
            s->cap_rows = cap;
        }
    }
    if (!copy || s->nrows == s->cap_rows) { /* journaled: a rerun of the command writes the results */
        fprintf(stderr, "\nmoreau-sweep: out of memory keeping the rows (they are in the journal)\n");
        free(copy);
        s->fatal = true;
        return;
    }
    s->rows[s->nrows++] = copy;
    s->finished++;
    count_row(s, row);
    draw_progress(s);
}

#ifdef MO_SWEEP_MPI
/* rank 0: answers every waiting worker (block: wait for at least one message) */
static void serve(sweep *s, bool block)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        if (block) {
            MPI_Probe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &st);
            flag = 1;
            block = false;
        } else {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &flag, &st);
        }
        if (!flag) return;
        int n = 0;
        MPI_Get_count(&st, MPI_CHAR, &n);
        char row[ROW_MAX];
        if (n >= ROW_MAX) n = ROW_MAX - 1;
        MPI_Recv(row, n, MPI_CHAR, st.MPI_SOURCE, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        row[n] = '\0';
        if (n > 0) take_row(s, row);
        int r = !s->fatal && s->next < s->nqueue ? s->queue[s->next++] : -1;
        if (r < 0) s->workers--;
        MPI_Send(&r, 1, MPI_INT, st.MPI_SOURCE, TAG_RUN, MPI_COMM_WORLD);
    }
}
#endif

static void poll_workers(sweep *s)
{
#ifdef MO_SWEEP_MPI
    if (s->rank == 0 && s->size > 1) serve(s, false);
#else
    (void)s;
#endif
}

/* the "name=value" lists of run r: scene params and settings */
static void run_inputs(const sweep *s, int r, char (*text)[SWEEP_NAME_LEN + SWEEP_VALUE_LEN + 2], const char **params,
                       int *np, const char **settings, int *ns)
{
    int idx[SWEEP_MAX_PARAMS];
    sweep_plan_run(&s->pl, r, NULL, NULL, idx);
    *np = 0;
    *ns = 0;
    for (int i = 0; i < s->nparams; i++) params[(*np)++] = s->params[i];
    for (int i = 0; i < s->fixed.n; i++) settings[(*ns)++] = s->fixed.items[i];
    for (int i = 0; i < s->pl.nparams; i++) {
        const sweep_param *p = &s->pl.params[i];
        snprintf(text[i], sizeof text[i], "%s=%s", p->name, p->values[idx[i]]);
        if (p->setting) settings[(*ns)++] = text[i];
        else params[(*np)++] = text[i];
    }
}

static void appendf(char *dst, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t l = strlen(dst);
    if (l < n) snprintf(dst + l, n - l, fmt, a, b);
}

/* one run: load, step, checks; the row in res. probe: load only, and check that the grid's scene params are
 * read (0, or -1 with the sentence in res->error) */
static int run_one(sweep *s, int r, sweep_result *res, bool probe)
{
    memset(res, 0, sizeof *res);
    res->run = r;
    sweep_plan_run(&s->pl, r, &res->point, &res->seed, NULL);
    res->status = "error";
    res->rank = s->rank;
    double w0 = now_s();
    char text[SWEEP_MAX_PARAMS][SWEEP_NAME_LEN + SWEEP_VALUE_LEN + 2];
    const char *params[SWEEP_MAX_PARAMS + 256], *settings[SWEEP_MAX_PARAMS + CLI_MAX_SETTINGS];
    int np, ns;
    run_inputs(s, r, text, params, &np, settings, &ns);
    mo_scene_options o = mo_default_scene_options();
    o.params = params;
    o.param_count = np;
    o.search_paths = s->paths;
    o.search_path_count = s->npaths;
    o.seed = (uint64_t)res->seed;
    o.print = NULL;
    mo_scene_file *sf = NULL;
    if (mo_scene_file_load(s->scene, &o, &sf, res->error, sizeof res->error) != MO_OK) return -1;
    mo_world *w = mo_scene_file_world(sf);
    if (probe) {
        for (int i = 0; i < s->pl.nparams; i++) {
            const sweep_param *p = &s->pl.params[i];
            if (p->setting || mo_scene_file_param_read(sf, p->name)) continue;
            snprintf(res->error, sizeof res->error,
                     "--grid: '%s' is neither an engine setting (moreau-run --list-settings) nor a param() the scene "
                     "file '%s' reads when it loads", p->name, s->scene);
            mo_scene_file_destroy(sf);
            return -1;
        }
        mo_scene_file_destroy(sf);
        return 0;
    }
    if (mo_world_set_settings(w, settings, ns) != MO_OK || mo_world_set_threads(w, s->threads) != MO_OK) {
        snprintf(res->error, sizeof res->error, "%s", mo_world_last_error(w));
        mo_scene_file_destroy(sf);
        return -1;
    }
    double h = mo_world_time_step(w);
    int steps = s->steps;
    if (s->seconds >= 0.0) steps = (int)llround(s->seconds / h);
    if (steps < 0) {
        double dur = mo_scene_file_duration(sf);
        steps = (int)llround((dur > 0.0 ? dur : 5.0) / h);
    }
    double *t = malloc((size_t)(steps > 0 ? steps : 1) * sizeof *t);
    long long iters = 0;
    int done = 0, rc = 0;
    for (; done < steps && t; done++) {
        if (mo_scene_file_done(sf, NULL)) break;
        double t0 = now_s();
        if (mo_scene_file_step(sf) != MO_OK) {
            snprintf(res->error, sizeof res->error, "step %d: %s", done, mo_scene_file_last_error(sf));
            rc = -1;
            break;
        }
        t[done] = now_s() - t0;
        mo_step_stats st = mo_world_last_stats(w);
        iters += st.iterations;
        if (st.max_penetration > res->max_penetration) res->max_penetration = st.max_penetration;
        if (st.max_joint_error > res->max_joint_error) res->max_joint_error = st.max_joint_error;
        if (st.residual > res->max_residual) res->max_residual = st.residual;
        if (st.contacts > res->max_contacts) res->max_contacts = st.contacts;
        poll_workers(s);
    }
    if (!t) {
        snprintf(res->error, sizeof res->error, "out of memory");
        rc = -1;
    }
    res->steps = mo_scene_file_steps(sf);
    res->sim_time = mo_world_time(w);
    res->hash = mo_world_state_hash(w);
    res->mean_iterations = done > 0 ? (double)iters / done : 0.0;
    if (t && done > 0) {
        qsort(t, (size_t)done, sizeof *t, cmp_d);
        res->ms_per_step = 1e3 * (done % 2 ? t[done / 2] : 0.5 * (t[done / 2 - 1] + t[done / 2]));
    }
    free(t);
    if (rc == 0) {
        int n = mo_scene_file_check_count(sf);
        mo_scene_check_result *cr = n > 0 ? calloc((size_t)n, sizeof *cr) : NULL;
        int failed = n > 0 && cr ? mo_scene_file_checks(sf, cr, n) : (n > 0 ? n : 0);
        res->checks = n;
        res->checks_held = n - failed;
        for (int i = 0; cr && i < n; i++) {
            if (!cr[i].passed) appendf(res->failed, sizeof res->failed, "%s%s", res->failed[0] ? ";" : "", cr[i].name);
            appendf(res->details, sizeof res->details, "%s%s=", res->details[0] ? ";" : "", cr[i].name);
            appendf(res->details, sizeof res->details, "%s%s", cr[i].detail, "");
        }
        free(cr);
        res->status = "ok";
    }
    mo_scene_file_destroy(sf);
    res->wall_s = now_s() - w0;
    return rc;
}

/* what defines the sweep, for DIR/sweep.txt */
static void signature(const sweep *s, const char *grid, char *out, size_t n)
{
    int l = snprintf(out, n, "scene %s\ngrid %s\nseeds %d\nsteps %d\ntime %.17g\nthreads %d\n", s->scene,
                     grid ? grid : "", s->pl.seeds, s->steps, s->seconds, s->threads);
    for (int i = 0; i < s->fixed.n && l > 0 && (size_t)l < n; i++)
        l += snprintf(out + l, n - (size_t)l, "set %s\n", s->fixed.items[i]);
    for (int i = 0; i < s->nparams && l > 0 && (size_t)l < n; i++)
        l += snprintf(out + l, n - (size_t)l, "set %s\n", s->params[i]);
    for (int i = 0; i < s->npaths && l > 0 && (size_t)l < n; i++)
        l += snprintf(out + l, n - (size_t)l, "path %s\n", s->paths[i]);
}

static int mkdirs(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
        *c = '/';
    }
    return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* rank 0: everything before the first run. 0, or the exit status */
static int prepare(sweep *s, const char *grid)
{
    sweep_result probe;
    if (run_one(s, 0, &probe, true) != 0) {
        fprintf(stderr, "moreau-sweep: %s\n", probe.error);
        return 2;
    }
    char sig[8192];
    signature(s, grid, sig, sizeof sig);
    if (mkdirs(s->out) != 0) {
        fprintf(stderr, "moreau-sweep: --out '%s': cannot create the folder: %s\n", s->out, strerror(errno));
        return 2;
    }
    if (sweep_signature_check(s->out, sig, s->err, sizeof s->err) != 0) {
        fprintf(stderr, "moreau-sweep: %s\n", s->err);
        return 2;
    }
    sweep_csv_header(&s->pl, s->header, sizeof s->header);
    bool *done = calloc((size_t)s->pl.nruns, sizeof *done);
    s->queue = malloc((size_t)s->pl.nruns * sizeof *s->queue);
    if (!done || !s->queue) {
        fprintf(stderr, "moreau-sweep: out of memory\n");
        free(done);
        return 2;
    }
    if (sweep_journal_read(s->out, s->header, &s->pl, done, &s->rows, &s->nrows, s->err, sizeof s->err) != 0) {
        fprintf(stderr, "moreau-sweep: %s\n", s->err);
        free(done);
        return 2;
    }
    s->cap_rows = s->nrows;
    for (int i = 0; i < s->nrows; i++) count_row(s, s->rows[i]);
    for (int r = 0; r < s->pl.nruns; r++)
        if (!done[r]) s->queue[s->nqueue++] = r;
    free(done);
    return 0;
}

int main(int argc, char **argv)
{
    cli_cuda_module_default();
    static sweep s;
    s.rank = 0;
    s.size = 1;
#ifdef MO_SWEEP_MPI
    /* MPI only under a launcher: alone, Open MPI's singleton start would fork a daemon for one rank */
    bool mpi = false;
    static const char *const launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", NULL};
    for (int i = 0; launched[i] && !mpi; i++) mpi = getenv(launched[i]) != NULL;
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    }
#endif
#ifndef MO_SWEEP_MPI
    /* started as one of several ranks by a launcher while built without MPI: every copy would run everything */
    static const char *const launcher_sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL};
    for (int i = 0; launcher_sizes[i]; i++) {
        const char *e = getenv(launcher_sizes[i]);
        if (e && atoi(e) > 1) {
            fprintf(stderr, "moreau-sweep: started as one of %d ranks (%s) but built without MPI: install "
                    "libopenmpi-dev and reconfigure with -Dmpi=enabled, or run it without mpirun\n", atoi(e),
                    launcher_sizes[i]);
            return 2;
        }
    }
#endif
    const char *grid = NULL;
    int seeds = 1, max_runs = -1, check = 0, show = isatty(STDERR_FILENO), status = 0;
    s.out = "sweep-out";
    s.steps = -1;
    s.seconds = -1.0;
    s.threads = 1;
    s.params = calloc((size_t)argc, sizeof(char *));
    s.paths = calloc((size_t)argc, sizeof(char *));
    char serr[512];
    for (int i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool needs = !strcmp(a, "--grid") || !strcmp(a, "--seeds") || !strcmp(a, "--out") || !strcmp(a, "--steps") ||
                     !strcmp(a, "--time") || !strcmp(a, "--set") || !strcmp(a, "--path") ||
                     !strcmp(a, "--threads") || !strcmp(a, "--max-runs");
        if (needs && !val) {
            if (s.rank == 0) fprintf(stderr, "moreau-sweep: option %s needs a value\n", a);
            status = 2;
            break;
        }
        if (needs) i++;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (s.rank == 0) usage(stdout);
            status = -1;
        } else if (a[0] != '-' && !s.scene) s.scene = a;
        else if (!strcmp(a, "--grid")) grid = val;
        else if (!strcmp(a, "--seeds")) seeds = atoi(val);
        else if (!strcmp(a, "--out")) s.out = val;
        else if (!strcmp(a, "--steps")) s.steps = atoi(val);
        else if (!strcmp(a, "--time")) s.seconds = atof(val);
        else if (!strcmp(a, "--path")) s.paths[s.npaths++] = val;
        else if (!strcmp(a, "--threads")) s.threads = atoi(val);
        else if (!strcmp(a, "--max-runs")) max_runs = atoi(val);
        else if (!strcmp(a, "--check")) check = 1;
        else if (!strcmp(a, "--progress")) show = 1;
        else if (!strcmp(a, "--quiet")) show = 0;
        else if (!strcmp(a, "--set")) {
            int k = cli_settings_set(&s.fixed, val, serr, sizeof serr);
            if (k < 0) {
                if (s.rank == 0) fprintf(stderr, "moreau-sweep: --set %s: %s\n", val, serr);
                status = 2;
            } else if (k == 0) {
                if (!strchr(val, '=')) {
                    if (s.rank == 0) fprintf(stderr, "moreau-sweep: --set '%s': not NAME=VALUE\n", val);
                    status = 2;
                }
                s.params[s.nparams++] = val;
            }
        } else {
            if (s.rank == 0) fprintf(stderr, "moreau-sweep: unknown option '%s' (moreau-sweep --help)\n", a);
            status = 2;
        }
    }
    if (status == 0 && !s.scene) {
        if (s.rank == 0) fprintf(stderr, "moreau-sweep: no scene file (moreau-sweep --help)\n");
        status = 2;
    }
    if (status == 0 && (s.threads < 0 || s.threads > mo_world_max_threads())) {
        if (s.rank == 0) fprintf(stderr, "moreau-sweep: --threads %d: must be in [0, %d]\n", s.threads,
                                 mo_world_max_threads());
        status = 2;
    }
    if (status == 0 && sweep_plan_parse(&s.pl, grid, seeds, serr, sizeof serr) != 0) {
        if (s.rank == 0) fprintf(stderr, "moreau-sweep: %s\n", serr);
        status = 2;
    }
    /* rank 0 checks the scene and the folder and reads the journal; the others wait for its verdict */
    if (status == 0 && s.rank == 0) status = prepare(&s, grid);
#ifdef MO_SWEEP_MPI
    if (mpi) MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    if (status != 0) {
        sweep_plan_free(&s.pl);
#ifdef MO_SWEEP_MPI
        if (mpi) MPI_Finalize();
#endif
        return status < 0 ? 0 : status;
    }

    sweep_result res;
    char row[ROW_MAX];
    if (s.rank == 0) {
        int resumed = s.nrows;
        s.show = show;
        s.t0 = now_s();
        if (max_runs >= 0 && s.nqueue > max_runs) s.nqueue = max_runs;
        s.total_left = s.nqueue;
        s.workers = s.size - 1;
        draw_progress(&s);
        while (!s.fatal && s.next < s.nqueue) {
            int r = s.queue[s.next++];
            run_one(&s, r, &res, false);
            sweep_csv_row(&s.pl, &res, row, sizeof row); /* fits: every field is bounded */
            take_row(&s, row);
            poll_workers(&s);
        }
#ifdef MO_SWEEP_MPI
        while (s.workers > 0) serve(&s, true);
#endif
        if (s.show) fputc('\n', stderr);
        int left = s.pl.nruns - s.nrows;
        if (!s.fatal && sweep_write_results(s.out, s.header, s.rows, s.nrows, s.err, sizeof s.err) != 0) {
            fprintf(stderr, "moreau-sweep: %s\n", s.err);
            s.fatal = true;
        }
        bool h5 = !s.fatal && sweep_write_h5(s.out, &s.pl, s.scene, grid, s.header, s.rows, s.nrows, s.err,
                                             sizeof s.err) == 0;
        if (!s.fatal && !h5 && s.err[0]) fprintf(stderr, "moreau-sweep: %s\n", s.err);
        printf("moreau-sweep: %d of %d runs done (%d this time on %d rank%s in %.2f s, %d from the journal); "
               "%d failed a claim, %d errors; %s/results.csv%s%s\n",
               s.nrows, s.pl.nruns, s.finished, s.size, s.size > 1 ? "s" : "", now_s() - s.t0, resumed,
               s.failed_claims, s.errors, s.out, h5 ? ", " : "", h5 ? "results.h5" : "");
        if (left > 0) printf("moreau-sweep: %d runs left: run the same command again to go on\n", left);
        double best_ms = 0.0;
        int best = left == 0 ? sweep_cheapest(&s.pl, s.rows, s.nrows, &best_ms) : -1;
        if (best >= 0) {
            char what[1024] = "";
            int idx[SWEEP_MAX_PARAMS];
            sweep_plan_run(&s.pl, best * s.pl.seeds, NULL, NULL, idx);
            for (int i = 0; i < s.pl.nparams; i++)
                appendf(what, sizeof what, i ? ", %s=%s" : "%s=%s", s.pl.params[i].name, s.pl.params[i].values[idx[i]]);
            printf("moreau-sweep: cheapest point whose claims held on every seed: point %d (%s), %.6g ms/step\n",
                   best, what[0] ? what : "no grid names", best_ms);
        } else if (left == 0) {
            printf("moreau-sweep: no point held its claims on every seed\n");
        }
        status = s.fatal ? 2 : s.errors ? 1 : (check && s.failed_claims) ? 1 : left > 0 ? 3 : 0;
        for (int i = 0; i < s.nrows; i++) free(s.rows[i]);
        free(s.rows);
        free(s.queue);
    }
#ifdef MO_SWEEP_MPI
    else {
        row[0] = '\0';
        for (;;) {
            MPI_Send(row, (int)strlen(row), MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
            int r = -1;
            MPI_Recv(&r, 1, MPI_INT, 0, TAG_RUN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (r < 0) break;
            run_one(&s, r, &res, false);
            sweep_csv_row(&s.pl, &res, row, sizeof row);
        }
    }
    if (mpi) {
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Finalize();
    }
#endif
    sweep_plan_free(&s.pl);
    free(s.params);
    free(s.paths);
    return status;
}
