/* moreau-run: runs a scene headless for a given time or step count, with a
 * progress bar on a terminal, per-stage timings, the scene's own metrics
 * (those of the outside engines' benchmark programs) and a CSV of per-step
 * statistics. Until scene files exist it runs the built-in scenes by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <moreau/fclib.h>
#include "scenes_builtin.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: moreau-run SCENE [options]\n"
            "  SCENE               built-in scene: stack20, heavy_stack, pile1000, chain1000, b4_wall,\n"
            "                      mixed1000, or pile:N (N spheres, for scaling runs)\n"
            "  --steps N           number of steps (default: the scene's duration, SCENES.md)\n"
            "  --time T            simulated seconds instead of --steps\n"
            "  --solver NAME       pgs (default), jacobi, apgd, spg, cg, minres or cholesky\n"
            "  --friction MODEL    cone (default: exact cone, CCP), box (per-axis, PGS) or polyhedral\n"
            "  --facets P          tangent directions of the polyhedral cone, >= 4 (default 8)\n"
            "  --coulomb-updates U outer updates of s = mu|u_t| for exact Coulomb friction (default 0: CCP)\n"
            "  --iterations N      solver sweeps per step (default 50)\n"
            "  --tolerance X       stop sweeps at CCP residual X m/s (default 0: all sweeps)\n"
            "  --omega W           SOR/relaxation factor in (0, 2) (default 1)\n"
            "  --projections P     Gauss-Newton position projections of rigid joint rows per step (default 0)\n"
            "  --no-warm-start     start each solve from zero impulses\n"
            "  --threads N         worker threads (default 1)\n"
            "  --csv FILE          per-step statistics as CSV\n"
            "  --residuals FILE    per-iteration residuals of every step as CSV (step,iteration,ccp,coulomb)\n"
            "  --export-fclib DIR  write each step's contact problem as FCLIB HDF5 (DIR/SCENE-stepNNNNNN.hdf5)\n"
            "  --progress          force the progress bar (default: only on a terminal)\n"
            "  --quiet             no progress bar\n");
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

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *scene = argv[1], *csv_path = NULL, *res_path = NULL, *export_dir = NULL;
    int exported = 0;
    int steps = -1, threads = 1, show = isatty(STDERR_FILENO);
    double seconds = -1.0;
    mo_world_def wd = mo_default_world_def();
    for (int i = 2; i < argc; i++) {
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
        if (!strcmp(a, "--steps")) { NEED(); steps = atoi(val); }
        else if (!strcmp(a, "--time")) { NEED(); seconds = atof(val); }
        else if (!strcmp(a, "--solver")) {
            NEED();
            if (!mo_solver_from_name(val, &wd.solver.kind)) {
                fprintf(stderr, "moreau-run: unknown solver '%s' (pgs, jacobi, apgd, spg, cg, minres, cholesky)\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--friction")) {
            NEED();
            if (!strcmp(val, "cone")) wd.solver.friction = MO_FRICTION_CONE;
            else if (!strcmp(val, "box")) wd.solver.friction = MO_FRICTION_BOX;
            else if (!strcmp(val, "polyhedral")) wd.solver.friction = MO_FRICTION_POLYHEDRAL;
            else { fprintf(stderr, "moreau-run: unknown friction model '%s' (cone, box, polyhedral)\n", val); return 2; }
        } else if (!strcmp(a, "--facets")) { NEED(); wd.solver.friction_facets = atoi(val); }
        else if (!strcmp(a, "--coulomb-updates")) { NEED(); wd.solver.coulomb_updates = atoi(val);
        } else if (!strcmp(a, "--iterations")) { NEED(); wd.solver.max_iterations = atoi(val); }
        else if (!strcmp(a, "--tolerance")) { NEED(); wd.solver.tolerance = atof(val); }
        else if (!strcmp(a, "--omega")) { NEED(); wd.solver.omega = atof(val); }
        else if (!strcmp(a, "--projections")) { NEED(); wd.solver.position_projections = atoi(val); }
        else if (!strcmp(a, "--no-warm-start")) wd.solver.warm_start = false;
        else if (!strcmp(a, "--threads")) { NEED(); threads = atoi(val); }
        else if (!strcmp(a, "--csv")) { NEED(); csv_path = val; }
        else if (!strcmp(a, "--residuals")) { NEED(); res_path = val; wd.solver.record_residuals = true; }
        else if (!strcmp(a, "--export-fclib")) { NEED(); export_dir = val; }
        else if (!strcmp(a, "--progress")) show = 1;
        else if (!strcmp(a, "--quiet")) show = 0;
        else { fprintf(stderr, "moreau-run: unknown option '%s'\n", a); usage(stderr); return 2; }
#undef NEED
    }
    wd.threads = threads;

    char err[512];
    mo_world *w = NULL;
    if (mo_world_create(&wd, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-run: %s\n", err);
        return 1;
    }
    mo_scene sc;
    if (mo_scene_build(scene, w, &sc, err, sizeof err) != MO_OK) {
        fprintf(stderr, "moreau-run: %s\n", err);
        mo_scene_free(&sc);
        mo_world_destroy(w);
        return 1;
    }
    double h = mo_world_time_step(w);
    if (seconds >= 0.0) steps = (int)llround(seconds / h);
    if (steps < 0) steps = sc.default_steps;

    FILE *csv = NULL, *res = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "moreau-run: cannot write '%s'\n", csv_path);
        return 1;
    }
    if (res_path && !(res = fopen(res_path, "w"))) {
        fprintf(stderr, "moreau-run: cannot write '%s'\n", res_path);
        return 1;
    }
    if (csv)
        fprintf(csv, "step,time,pairs,contacts,rows,nonzeros,iterations,residual,coulomb_error,max_penetration,"
                     "max_joint_error,t_predict_ms,t_collide_ms,t_assemble_ms,t_solve_ms,t_integrate_ms,t_step_ms,"
                     "scene_metric\n");
    if (res) fprintf(res, "step,iteration,ccp_residual,coulomb_error\n");

    double *t_step = calloc((size_t)steps + 1, sizeof(double)), *t_stage[5];
    for (int k = 0; k < 5; k++) t_stage[k] = calloc((size_t)steps + 1, sizeof(double));
    long long iter_sum = 0, pair_sum = 0, contact_sum = 0;
    double max_pen_metric = 0.0, max_contact_pen = 0.0, max_joint = 0.0, wall0 = 0.0;
    mo_step_stats st;
    memset(&st, 0, sizeof st);
    int shown = -1;
    for (int s = 0; s < steps; s++) {
        if (wall0 == 0.0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            wall0 = ts.tv_sec + 1e-9 * ts.tv_nsec;
        }
        if (mo_world_step(w) != MO_OK) {
            fprintf(stderr, "\nmoreau-run: step %d failed: %s\n", s, mo_world_last_error(w));
            return 1;
        }
        st = mo_world_last_stats(w);
        if (export_dir && st.contacts > 0) {
            /* this step's contact problem, as FCLIB HDF5 */
            mo_fc_problem fc;
            char path[4096], base[256];
            /* the scene name as a file name: path separators and ':' become '_' */
            snprintf(base, sizeof base, "%s", scene);
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
        double stage[5] = {st.t_predict, st.t_collide, st.t_assemble, st.t_solve, st.t_integrate};
        double tot = 0.0;
        for (int k = 0; k < 5; k++) {
            t_stage[k][s] = stage[k];
            tot += stage[k];
        }
        t_step[s] = tot;
        iter_sum += st.iterations;
        pair_sum += st.pairs;
        contact_sum += st.contacts;
        if (st.max_penetration > max_contact_pen) max_contact_pen = st.max_penetration;
        if (st.max_joint_error > max_joint) max_joint = st.max_joint_error;
        double metric = 0.0;
        if (sc.kind == MO_SCENE_STACK) {
            metric = mo_scene_stack_penetration(w, &sc);
            if (metric > max_pen_metric) max_pen_metric = metric;
        } else if (sc.kind == MO_SCENE_CHAIN) {
            metric = st.max_joint_error;
        }
        if (csv)
            fprintf(csv, "%d,%.6f,%d,%d,%d,%d,%d,%.6e,%.6e,%.6e,%.6e,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6e\n", s,
                    mo_world_time(w), st.pairs, st.contacts, st.rows, st.nonzeros, st.iterations, st.residual,
                    st.coulomb_error, st.max_penetration, st.max_joint_error, 1e3 * st.t_predict,
                    1e3 * st.t_collide, 1e3 * st.t_assemble, 1e3 * st.t_solve, 1e3 * st.t_integrate, 1e3 * tot,
                    metric);
        if (res)
            for (int k = 0; k < st.residual_count; k++)
                fprintf(res, "%d,%d,%.6e,%.6e\n", s, k + 1, st.residual_history[k], st.coulomb_error_history[k]);
        int pct = (int)(100LL * (s + 1) / steps);
        if (show && pct != shown) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            progress(s + 1, steps, ts.tv_sec + 1e-9 * ts.tv_nsec - wall0);
            shown = pct;
        }
    }
    if (show) fputc('\n', stderr);
    if (csv) fclose(csv);
    if (res) fclose(res);

    const char *names[5] = {"predict", "collide", "assemble", "solve", "integrate"};
    double med_stage[5];
    for (int k = 0; k < 5; k++) med_stage[k] = 1e3 * median(t_stage[k], steps);
    double total_s = 0.0;
    for (int s = 0; s < steps; s++) total_s += t_step[s];
    double med = 1e3 * median(t_step, steps);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    mo_solver_settings ss = mo_world_solver(w);
    printf("scene=%s steps=%d h=%.6f solver=%s friction=%s iterations=%d warm_start=%d threads=%d\n", scene, steps, h,
           mo_solver_name(ss.kind), ss.friction == MO_FRICTION_CONE ? "cone" : "box",
           ss.max_iterations, (int)ss.warm_start, threads);
    printf("ms_per_step median=%.4f mean=%.4f", med, steps ? 1e3 * total_s / steps : 0.0);
    for (int k = 0; k < 5; k++) printf(" %s=%.4f", names[k], med_stage[k]);
    printf("\n");
    printf("collision: mean_pairs=%.0f mean_contacts=%.0f collide_ms_median=%.4f\n", steps ? (double)pair_sum / steps : 0.0,
           steps ? (double)contact_sum / steps : 0.0, med_stage[1]);
    printf("final: contacts=%d rows=%d mean_iterations=%.1f residual=%.3e coulomb_error=%.3e "
           "max_contact_penetration_all_steps=%.5f max_joint_error_all_steps=%.6f peak_rss_mib=%.1f\n",
           st.contacts, st.rows, steps ? (double)iter_sum / steps : 0.0, st.residual, st.coulomb_error,
           max_contact_pen, max_joint, ru.ru_maxrss / 1024.0);
    if (export_dir) printf("exported %d contact problems to %s\n", exported, export_dir);
    if (sc.kind == MO_SCENE_STACK) {
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
    mo_scene_free(&sc);
    mo_world_destroy(w);
    return 0;
}
