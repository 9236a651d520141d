/* app.c: moreau-view's behaviour (app.h): creation, the scene (loading,
 * framing, solver settings), stepping, screenshots and the frame. The rest is
 * in app_input.c (camera, grabbing, keys and mouse), app_draw.c (the world
 * and the debug-draw overlays), app_fem.c (FEM meshes and particles),
 * app_hud.c (HUD, help, plots) and app_script.c (the test script), sharing
 * app_internal.h. Only the public engine API, the scene loader and the
 * debug-draw interface are used. */
#include "app_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <moreau/debug_draw.h>

double app_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void app_message(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_time = app_now();
    if (!a->creating) fprintf(stderr, "moreau-view: %s\n", a->msg);
}

/* ---- scene ------------------------------------------------------------- */

static void scene_print(void *user, const char *line)
{
    app *a = user;
    app_message(a, "scene: %s", line);
}

static void clear_cache(app *a)
{
    for (int i = 0; i < a->cache_cap; i++)
        if (a->cache[i].mesh > 0) gfx_mesh_delete(a->g, a->cache[i].mesh);
    if (a->cache) memset(a->cache, 0, (size_t)a->cache_cap * sizeof *a->cache);
    for (int i = 0; i < a->nvmeshes; i++) {
        if (a->vmeshes[i].mesh > 0) gfx_mesh_delete(a->g, a->vmeshes[i].mesh);
        free(a->vmeshes[i].path);
    }
    a->nvmeshes = 0;
}

int app_refresh_shapes(app *a)
{
    int n = mo_world_shapes(a->w, NULL, 0);
    if (n > a->shape_cap) {
        mo_shape_id *s = realloc(a->shapes, (size_t)n * sizeof *s);
        if (!s) return 0;
        a->shapes = s;
        a->shape_cap = n;
    }
    return mo_world_shapes(a->w, a->shapes, a->shape_cap);
}

/* bounding radius of a shape about its origin */
static double shape_bound(const mo_shape_info *s)
{
    switch (s->type) {
    case MO_SHAPE_SPHERE: return s->radius;
    case MO_SHAPE_BOX: return sqrt(s->half_extents.x * s->half_extents.x + s->half_extents.y * s->half_extents.y +
                                   s->half_extents.z * s->half_extents.z);
    case MO_SHAPE_CAPSULE: return s->radius + s->half_height;
    case MO_SHAPE_CYLINDER: return sqrt(s->radius * s->radius + s->half_height * s->half_height);
    case MO_SHAPE_CONVEX_HULL:
    case MO_SHAPE_MESH: {
        double r = 0;
        for (int i = 0; i < s->vertex_count; i++) {
            double l = vm_norm(s->vertices + 3 * i);
            if (l > r) r = l;
        }
        return r;
    }
    default: return 0;
    }
}

typedef struct bounds { double lo[3], hi[3]; } bounds;

static void bounds_add(bounds *b, mo_vec3 p, double r)
{
    double c[3] = {p.x, p.y, p.z};
    for (int k = 0; k < 3; k++) {
        if (c[k] - r < b->lo[k]) b->lo[k] = c[k] - r;
        if (c[k] + r > b->hi[k]) b->hi[k] = c[k] + r;
    }
}
static void bounds_line(void *u, mo_vec3 p, mo_vec3 q, uint32_t c)
{
    (void)c;
    bounds_add(u, p, 0), bounds_add(u, q, 0);
}
static void bounds_point(void *u, mo_vec3 p, double s, uint32_t c)
{
    (void)c;
    bounds_add(u, p, s);
}

/* points the camera at every bounded shape (planes excluded), particle and FEM mesh */
void app_frame_scene(app *a)
{
    int n = app_refresh_shapes(a);
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (int i = 0; i < n; i++) {
        mo_shape_info s;
        mo_vec3 p;
        if (mo_shape_get_info(a->w, a->shapes[i], &s) != MO_OK || s.type == MO_SHAPE_PLANE) continue;
        if (mo_shape_world_pose(a->w, a->shapes[i], &p, NULL) != MO_OK) continue;
        double r = shape_bound(&s), c[3] = {p.x, p.y, p.z};
        for (int k = 0; k < 3; k++) {
            if (c[k] - r < lo[k]) lo[k] = c[k] - r;
            if (c[k] + r > hi[k]) hi[k] = c[k] + r;
        }
    }
    /* particles and FEM meshes (boundary nodes), through the debug draw's points and edges */
    bounds b;
    memcpy(b.lo, lo, sizeof lo), memcpy(b.hi, hi, sizeof hi);
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = &b;
    dd.line = bounds_line;
    dd.point = bounds_point;
    dd.point_size = 0;
    mo_world_debug_draw(a->w, &dd, MO_DRAW_PARTICLES | MO_DRAW_FEM);
    memcpy(lo, b.lo, sizeof lo), memcpy(hi, b.hi, sizeof hi);
    if (!(lo[0] <= hi[0])) {
        lo[0] = lo[1] = lo[2] = -1;
        hi[0] = hi[1] = hi[2] = 1;
    }
    double rad = 0;
    for (int k = 0; k < 3; k++) {
        a->target[k] = 0.5 * (lo[k] + hi[k]);
        rad += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    rad = sqrt(rad);
    if (rad < 0.25) rad = 0.25;
    a->scene_radius = rad;
    a->dist = 1.25 * rad / sin(0.5 * FOV);
    app_update_camera(a);
}

/* the iteration budget the viewer shows and changes: Newton iterations per step for the Newton
   solver (it ignores max_iterations), else max_iterations */
int app_solver_budget(const mo_solver_settings *s, mo_solver_kind k)
{
    return k == MO_SOLVER_NEWTON ? s->newton.iterations : s->max_iterations;
}

void app_apply_solver(app *a)
{
    mo_solver_settings s = mo_world_solver(a->w);
    if (a->solver_override) {
        s.kind = a->solver_kind;
        if (s.kind == MO_SOLVER_NEWTON) s.newton.iterations = a->solver_iterations;
        else s.max_iterations = a->solver_iterations;
    }
    s.record_residuals = true;
    if (mo_world_set_solver(a->w, &s) != MO_OK) {
        app_message(a, "%s", mo_world_last_error(a->w));
        /* back to what the world has */
        mo_solver_settings cur = mo_world_solver(a->w);
        a->solver_kind = cur.kind;
        a->solver_iterations = app_solver_budget(&cur, cur.kind);
        return;
    }
    a->solver_kind = s.kind;
    a->solver_iterations = app_solver_budget(&s, s.kind);
    if (a->backend_override && mo_world_backend(a->w) != a->backend && mo_world_set_backend(a->w, a->backend) != MO_OK)
        app_message(a, "%s", mo_world_last_error(a->w));
}

/* loads path; keeps the current scene when it fails. reset: same scene again, camera kept */
int app_load_scene(app *a, const char *path, bool reset)
{
    mo_scene_options o = mo_default_scene_options();
    o.print = scene_print;
    o.print_user = a;
    /* --set: engine settings by name, the rest are the scene's parameters */
    const char *params[64], *sets[64];
    int np = 0, ns = 0;
    for (int i = 0; i < a->opt.nsets && i < 64; i++) {
        const char *eq = strchr(a->opt.sets[i], '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a->opt.sets[i]) : 0, a->opt.sets[i]);
        if (eq && mo_setting_find(name)) sets[ns++] = a->opt.sets[i];
        else params[np++] = a->opt.sets[i];
    }
    o.params = params;
    o.param_count = np;
    mo_scene_file *s = NULL;
    char err[1024] = "";
    mo_status st = mo_scene_file_load(path, &o, &s, err, sizeof err);
    if (st == MO_OK && mo_world_set_settings(mo_scene_file_world(s), sets, ns) != MO_OK) {
        snprintf(err, sizeof err, "%s: --set: %s", path, mo_world_last_error(mo_scene_file_world(s)));
        mo_scene_file_destroy(s);
        st = MO_ERR_INVALID_ARGUMENT;
    }
    if (st != MO_OK) {
        /* the loader's sentences name the file already */
        if (err[0] && strstr(err, path)) app_message(a, "%s", err);
        else app_message(a, "cannot open %s: %s", path, err[0] ? err : mo_status_name(st));
        return -1;
    }
    mo_scene_file_destroy(a->scene);
    a->scene = s;
    a->w = mo_scene_file_world(s);
    if (a->path != path) snprintf(a->path, sizeof a->path, "%s", path);
    clear_cache(a);
    a->grabbing = false;
    a->grab_fem = false;
    a->drag_mode = 0;
    a->accum = 0;
    a->step_requests = 0;
    a->hist_n = a->hist_head = 0;
    a->res_count = 0;
    a->force_max = 0;
    memset(&a->st, 0, sizeof a->st);
    app_apply_solver(a);
    if (!reset) app_frame_scene(a);
    app_message(a, "%s %s", reset ? "reset" : "opened", a->path);
    return 0;
}

/* ---- simulation --------------------------------------------------------- */

static void record_stats(app *a)
{
    a->st = mo_world_last_stats(a->w);
    int n = a->st.residual_count;
    if (n > 4096) n = 4096;
    if (a->st.residual_history && n > 0) {
        memcpy(a->res_hist, a->st.residual_history, (size_t)n * sizeof(double));
        memcpy(a->err_hist, a->st.coulomb_error_history, (size_t)n * sizeof(double));
    } else {
        n = 0;
    }
    a->res_count = n;
    a->st.residual_history = NULL;
    a->st.coulomb_error_history = NULL;
    double total = a->st.t_predict + a->st.t_collide + a->st.t_assemble + a->st.t_solve + a->st.t_integrate;
    a->hist_iter[a->hist_head] = (float)a->st.iterations;
    a->hist_ms[a->hist_head] = (float)(1e3 * total);
    a->hist_solve_ms[a->hist_head] = (float)(1e3 * a->st.t_solve);
    a->hist_head = (a->hist_head + 1) % HIST;
    if (a->hist_n < HIST) a->hist_n++;
}

/* one step of the scenario; false when it cannot go on */
static bool step_once(app *a)
{
    const char *reason = NULL;
    if (mo_scene_file_done(a->scene, &reason)) {
        a->paused = true;
        app_message(a, "the scene stopped%s%s", reason && reason[0] ? ": " : "", reason ? reason : "");
        return false;
    }
    app_grab_force(a);
    if (mo_scene_file_step(a->scene) != MO_OK) {
        a->paused = true;
        app_message(a, "step failed: %s", mo_scene_file_last_error(a->scene));
        return false;
    }
    record_stats(a);
    return true;
}

static void simulate(app *a, double dt)
{
    const double h = mo_world_time_step(a->w);
    double t_sim0 = mo_world_time(a->w), t0 = app_now();
    while (a->step_requests > 0) {
        a->step_requests--;
        if (!step_once(a)) break;
    }
    if (!a->paused) {
        a->accum += dt * a->speed;
        int n = (int)floor(a->accum / h + 1e-9);
        a->accum -= n * h;
        for (int i = 0; i < n; i++) {
            if (!step_once(a)) break;
            /* real time: give up on catching up after 60 ms of stepping in a frame */
            if (!a->opt.fixed_step && app_now() - t0 > 0.06) {
                a->accum = 0;
                break;
            }
        }
    }
    /* real-time factor: simulated time over wall time between frames, smoothed */
    double tn = app_now(), dsim = mo_world_time(a->w) - t_sim0;
    if (a->last_frame > 0 && tn > a->last_frame) {
        double inst = dsim / (tn - a->last_frame);
        a->rtf = a->rtf > 0 ? 0.95 * a->rtf + 0.05 * inst : inst;
    }
    a->last_frame = tn;
}

/* ---- screenshots and recording ----------------------------------------- */

int app_screenshot(app *a, const char *path)
{
    int w, h;
    gfx_size(a->g, &w, &h);
    size_t need = (size_t)w * (size_t)h * 3;
    if (need > a->rgb_cap) {
        unsigned char *p = realloc(a->rgb, need);
        if (!p) {
            app_message(a, "screenshot: out of memory");
            return -1;
        }
        a->rgb = p;
        a->rgb_cap = need;
    }
    gfx_read_rgb(a->g, a->rgb);
    char err[600];
    if (gfx_write_png(path, w, h, a->rgb, err, sizeof err)) {
        app_message(a, "%s", err);
        return -1;
    }
    return 0;
}

/* ---- frame ------------------------------------------------------------- */

void app_frame(app *a, double wall_dt)
{
    double t0 = app_now();
    if (a->script) app_script_run(a);
    if (a->quit) return;
    if (a->opt.fixed_step) wall_dt = mo_world_time_step(a->w);
    if (wall_dt > 0.1) wall_dt = 0.1;
    simulate(a, wall_dt);
    app_render(a);
    if (a->shot_requested) {
        a->shot_requested = false;
        char p[1100];
        snprintf(p, sizeof p, "%s-%04d.png", a->opt.shot_prefix ? a->opt.shot_prefix : "moreau-view", a->shot_count++);
        if (app_screenshot(a, p) == 0) app_message(a, "screenshot saved to %s", p);
    }
    if (a->opt.record_dir) {
        char p[1100];
        snprintf(p, sizeof p, "%s/frame-%06ld.png", a->opt.record_dir, a->frame_index);
        if (app_screenshot(a, p)) {
            a->quit = true;
            a->exit_code = 1;
        }
    }
    a->frame_index++;
    if (a->script_wait > 0) a->script_wait--;
    a->frame_ms = 1e3 * (app_now() - t0);
}

bool app_should_quit(const app *a) { return a->quit; }
int app_exit_code(const app *a) { return a->exit_code; }
bool app_script_active(const app *a) { return a->script != NULL; }

app *app_create(gfx *g, const app_options *o, char *err, size_t err_size)
{
    app *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    a->g = g;
    a->opt = *o;
    a->speed = 1.0;
    a->show_hud = true;
    a->show_plots = true;
    a->yaw = -60.0 * VM_PI / 180, a->pitch = 20.0 * VM_PI / 180, a->dist = 10;
    gfx_size(g, &a->W, &a->H);
    if (o->record_dir && mkdir(o->record_dir, 0777) && errno != EEXIST) {
        snprintf(err, err_size, "cannot make the folder %s: %s", o->record_dir, strerror(errno));
        free(a);
        return NULL;
    }
    if (o->script_path) {
        a->script = fopen(o->script_path, "r");
        if (!a->script) {
            snprintf(err, err_size, "cannot read the script %s: %s", o->script_path, strerror(errno));
            free(a);
            return NULL;
        }
    }
    a->creating = true;
    if (app_load_scene(a, o->scene_path, false)) {
        snprintf(err, err_size, "%s", a->msg);
        app_destroy(a);
        return NULL;
    }
    a->creating = false;
    return a;
}

void app_destroy(app *a)
{
    if (!a) return;
    clear_cache(a);
    free(a->cache);
    free(a->vmeshes);
    free(a->vis);
    free(a->body_vis);
    free(a->shapes);
    free(a->fem_ids);
    free(a->fem_first);
    free(a->fem_x);
    free(a->fem_strain);
    free(a->rgb);
    if (a->script) fclose(a->script);
    mo_scene_file_destroy(a->scene);
    free(a);
}
