/* app.c: moreau-view's behaviour (app.h). Only the public engine API, the
 * scene loader and the debug-draw interface are used. */
#include "app.h"

#include <GLFW/glfw3.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <moreau/debug_draw.h>
#include <moreau/import.h>
#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "font.h"
#include "vmath.h"

#define HIST 1200          /* steps kept for the per-step plots (10 s at h = 1/120) */
#define FOV (45.0 * VM_PI / 180.0)
#define TEXT_SCALE 2
#define LINE_H (MO_FONT_CELL_H * TEXT_SCALE)
#define CHAR_W (MO_FONT_CELL_W * TEXT_SCALE)

enum { OV_POINTS, OV_NORMALS, OV_FORCES, OV_JOINTS, OV_AABBS, OV_WIRE, OV_RESIDUALS, OV_STRAIN, OV_COUNT };
static const char *ov_names[OV_COUNT] = {"contacts", "normals", "forces", "joints", "aabbs", "wireframe",
                                         "residuals", "strain"};
/* FEM meshes' colours (cycled by the mesh's place in mo_world_fem_meshes) */
static const float fem_palette[3][3] = {{0.93f, 0.60f, 0.78f}, {0.55f, 0.85f, 0.90f}, {0.92f, 0.86f, 0.50f}};
#define STRAIN_SCALE_MIN 1e-3 /* the strain colour scale never goes below this |E|_F */

typedef struct shape_cache { uint32_t generation; int mesh; } shape_cache;
/* URDF visual meshes, loaded once per path at scale 1 (the visual's scale goes into the model matrix) */
typedef struct vis_mesh { char *path; int mesh; } vis_mesh; /* mesh -1: could not be loaded */
typedef struct hit_rect { float x, y, w, h; int action; } hit_rect;
enum { ACT_SOLVER0 = 100, ACT_ITER_DOWN = 200, ACT_ITER_UP = 201 };

struct app {
    gfx *g;
    app_options opt;
    char path[1024];
    mo_scene_file *scene;
    mo_world *w;
    /* simulation control */
    bool paused;
    double speed, accum;
    int step_requests;
    bool solver_override;
    mo_solver_kind solver_kind;
    int solver_iterations;
    /* statistics */
    mo_step_stats st;
    double res_hist[4096], err_hist[4096];
    int res_count;
    float hist_iter[HIST], hist_ms[HIST], hist_solve_ms[HIST];
    int hist_n, hist_head;
    double rtf, frame_ms, last_frame, force_max;
    /* camera */
    double target[3], yaw, pitch, dist;
    double eye[3], right[3], up[3], fwd[3];
    vm_mat4 vp;
    int W, H;
    /* mouse */
    double mx, my;
    int drag_mode; /* 0 none, 1 orbit, 2 pan, 3 grab */
    bool grabbing;
    bool grab_fem;             /* the grabbed thing is an FEM node (grab_mesh, grab_node), else grab_body */
    mo_body_id grab_body;
    mo_fem_mesh_id grab_mesh;
    int grab_node;
    double grab_local[3], grab_target[3], grab_plane_n[3], grab_plane_d;
    double grab_offset[3];     /* FEM node minus the cursor ray's point on the drag plane at the grab */
    /* FEM meshes, gathered per frame: ids, node positions (3 per node, all meshes one after another),
       node strains (overlay 8) and where each mesh's nodes start */
    mo_fem_mesh_id *fem_ids;
    int fem_cap, nfem;
    double *fem_x, *fem_strain;
    int *fem_first;
    int fem_node_cap, fem_first_cap;
    double strain_max, strain_scale; /* largest node strain of the last drawn frame; the colour scale's top */
    int print_count;                 /* script: particles printed */
    /* overlays and panels */
    bool ov[OV_COUNT];
    bool show_help, show_plots, show_hud;
    hit_rect hits[32];
    int nhits;
    /* prompt */
    bool prompt;
    char prompt_buf[1024];
    /* messages */
    char msg[512];
    double msg_time;
    /* shapes */
    mo_shape_id *shapes;
    int shape_cap;
    shape_cache *cache;
    int cache_cap;
    double scene_radius;
    /* URDF visuals (mo_scene_file_visuals): drawn instead of their bodies' collision shapes unless
       show_collision (key C) or wireframe; body_vis[body index] marks bodies drawn by their visuals */
    bool show_collision;
    mo_scene_visual *vis;
    int vis_cap;
    vis_mesh *vmeshes;
    int nvmeshes, vmesh_cap;
    struct { uint32_t generation; unsigned char state; } *body_vis; /* state 1: visuals, 2: a mesh failed */
    int body_vis_cap;
    /* script */
    FILE *script;
    int script_line, script_wait;
    bool quit;
    int exit_code;
    /* recording, screenshots */
    unsigned char *rgb;
    size_t rgb_cap;
    long frame_index;
    int shot_count;
    bool shot_requested;
    bool creating; /* in app_create: messages go to its err, not stderr */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void message(app *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void message(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_time = now_s();
    if (!a->creating) fprintf(stderr, "moreau-view: %s\n", a->msg);
}

/* ---- scene ------------------------------------------------------------- */

static void scene_print(void *user, const char *line)
{
    app *a = user;
    message(a, "scene: %s", line);
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

static int refresh_shapes(app *a)
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

/* ---- FEM meshes and particles ----------------------------------------- */

/* the world's FEM meshes and their nodes' positions now (fem_ids, fem_first, fem_x); false out of memory */
static bool gather_fem(app *a)
{
    a->nfem = 0;
    int n = mo_world_fem_meshes(a->w, NULL, 0);
    if (n > a->fem_cap) {
        mo_fem_mesh_id *p = realloc(a->fem_ids, (size_t)n * sizeof *p);
        if (!p) return false;
        a->fem_ids = p;
        a->fem_cap = n;
    }
    if (n + 1 > a->fem_first_cap) {
        int *p = realloc(a->fem_first, (size_t)(n + 1) * sizeof *p);
        if (!p) return false;
        a->fem_first = p;
        a->fem_first_cap = n + 1;
    }
    n = mo_world_fem_meshes(a->w, a->fem_ids, n);
    int total = 0;
    for (int i = 0; i < n; i++) {
        int nn = 0;
        mo_fem_mesh_counts(a->w, a->fem_ids[i], &nn, NULL);
        a->fem_first[i] = total;
        total += nn;
    }
    a->fem_first[n] = total;
    if (total > a->fem_node_cap) {
        double *x = realloc(a->fem_x, (size_t)total * 3 * sizeof *x);
        if (!x) return false;
        a->fem_x = x;
        double *e = realloc(a->fem_strain, (size_t)total * sizeof *e);
        if (!e) return false;
        a->fem_strain = e;
        a->fem_node_cap = total;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < a->fem_first[i + 1] - a->fem_first[i]; k++) {
            mo_vec3 x = {0, 0, 0};
            mo_fem_mesh_node_position(a->w, a->fem_ids[i], k, &x);
            double *o = a->fem_x + 3 * (a->fem_first[i] + k);
            o[0] = x.x, o[1] = x.y, o[2] = x.z;
        }
    a->nfem = n;
    return true;
}

/* the smallest 1, 2 or 5 x 10^k at or above x (> 0) */
static double nice_ceil(double x)
{
    double p = pow(10.0, floor(log10(x)));
    static const double m[4] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (m[i] * p >= x * (1 - 1e-12)) return m[i] * p;
    return 10 * p;
}

/* node strains of every gathered mesh (fem_strain), their maximum, and the colour scale's top:
   the maximum rounded up to 1, 2, 5 x 10^k, at least STRAIN_SCALE_MIN */
static void gather_strain(app *a)
{
    double mx = 0;
    for (int i = 0; i < a->nfem; i++) {
        int f = a->fem_first[i], n = a->fem_first[i + 1] - f;
        if (mo_fem_mesh_node_strain(a->w, a->fem_ids[i], a->fem_strain + f, n) != MO_OK)
            for (int k = 0; k < n; k++) a->fem_strain[f + k] = 0;
        for (int k = 0; k < n; k++)
            if (a->fem_strain[f + k] > mx) mx = a->fem_strain[f + k];
    }
    a->strain_max = mx;
    a->strain_scale = nice_ceil(mx > STRAIN_SCALE_MIN ? mx : STRAIN_SCALE_MIN);
}

/* the strain colour ramp at t in [0, 1]: blue, cyan, green, yellow, red (0xRRGGBBAA) */
static uint32_t strain_color(double t)
{
    static const double stop[5][3] = {{0.15, 0.35, 1.0}, {0.10, 0.80, 1.0}, {0.20, 0.90, 0.30}, {1.0, 0.85, 0.10},
                                      {1.0, 0.15, 0.10}};
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    double u = 4 * t;
    int i = (int)u;
    if (i > 3) i = 3;
    u -= i;
    uint32_t c = 0xffu;
    for (int k = 0; k < 3; k++) {
        double v = stop[i][k] + u * (stop[i + 1][k] - stop[i][k]);
        c |= (uint32_t)lround(255 * v) << (24 - 8 * k);
    }
    return c;
}

static uint32_t rgba_of(const float *c)
{
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) r |= (uint32_t)lroundf(255 * (c[k] < 0 ? 0 : c[k] > 1 ? 1 : c[k])) << (24 - 8 * k);
    return r;
}

/* a mesh's colour: by its place in the list, lighter while one of its nodes is grabbed */
static void fem_color(const app *a, int i, float *c)
{
    const float *p = fem_palette[i % 3];
    bool grabbed = a->grabbing && a->grab_fem && a->grab_mesh.index == a->fem_ids[i].index &&
                   a->grab_mesh.generation == a->fem_ids[i].generation;
    for (int k = 0; k < 3; k++) c[k] = grabbed ? 0.5f + 0.5f * p[k] : p[k];
    c[3] = 1;
}

/* every FEM mesh's boundary surface, flat-shaded from the nodes' current positions, in the mesh's
   colour or (overlay 8) coloured per vertex by node strain */
static void draw_fem(app *a)
{
    if (!gather_fem(a) || a->nfem == 0) return;
    const bool strain = a->ov[OV_STRAIN];
    if (strain) gather_strain(a);
    for (int i = 0; i < a->nfem; i++) {
        const int *tri = NULL;
        int nt = 0;
        if (mo_fem_mesh_surface(a->w, a->fem_ids[i], &tri, &nt) != MO_OK) continue;
        const double *X = a->fem_x + 3 * a->fem_first[i];
        const double *E = a->fem_strain + a->fem_first[i];
        float base[4];
        fem_color(a, i, base);
        const uint32_t bc = rgba_of(base);
        for (int t = 0; t < nt; t++) {
            const int *v = tri + 3 * t;
            const double *p0 = X + 3 * v[0], *p1 = X + 3 * v[1], *p2 = X + 3 * v[2];
            double e1[3], e2[3], n[3];
            for (int k = 0; k < 3; k++) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k];
            vm_cross(n, e1, e2);
            vm_normalize(n);
            uint32_t c[3] = {bc, bc, bc};
            if (strain)
                for (int j = 0; j < 3; j++) c[j] = strain_color(E[v[j]] / a->strain_scale);
            gfx_tri(a->g, p0, p1, p2, n, c);
        }
    }
    gfx_flush_tris(a->g);
}

static void draw_part(app *a, int mesh, const double *p, const double *R, const double *s, const float *c);

/* particles (not FEM nodes) as lit spheres of their radius, through the debug draw; those of radius 0
   (size 0 with point_size 0) as 7-pixel points, depth-tested */
static void particle_sphere(void *user, mo_vec3 p, double size, uint32_t c)
{
    app *a = user;
    double x[3] = {p.x, p.y, p.z}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, sc[3] = {size, size, size};
    if (!(size > 0)) {
        gfx_point(a->g, 0, x, c);
        return;
    }
    float col[4] = {(float)(c >> 24 & 255) / 255.0f, (float)(c >> 16 & 255) / 255.0f, (float)(c >> 8 & 255) / 255.0f,
                    1.0f};
    draw_part(a, GFX_MESH_SPHERE, x, R, sc, col);
}

static void no_line(void *user, mo_vec3 p, mo_vec3 q, uint32_t c) { (void)user, (void)p, (void)q, (void)c; }

static bool project(const app *a, const double *p, double *px, double *py);

/* print particles: one line per particle drawn */
static void print_particle(void *user, mo_vec3 p, double size, uint32_t c)
{
    (void)c;
    app *a = user;
    double x[3] = {p.x, p.y, p.z}, px = -1, py = -1;
    project(a, x, &px, &py);
    printf("particle %d %.6f %.6f %.6f radius %.6f pixel %.1f %.1f\n", a->print_count++, p.x, p.y, p.z, size, px, py);
}

static void draw_particles(app *a)
{
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = a;
    dd.line = no_line;
    dd.point = particle_sphere;
    dd.point_size = 0; /* particles of radius 0: points */
    mo_world_debug_draw(a->w, &dd, MO_DRAW_PARTICLES);
}

/* the nearest FEM boundary triangle along the ray o + t d (Moller-Trumbore, both sides): its distance,
   the mesh's place in fem_ids and the triangle's vertex nearest the hit */
static bool fem_pick(app *a, const double *o, const double *d, double *t_out, int *mesh, int *node)
{
    if (!gather_fem(a)) return false;
    double best = HUGE_VAL;
    for (int i = 0; i < a->nfem; i++) {
        const int *tri = NULL;
        int nt = 0;
        if (mo_fem_mesh_surface(a->w, a->fem_ids[i], &tri, &nt) != MO_OK) continue;
        const double *X = a->fem_x + 3 * a->fem_first[i];
        for (int t = 0; t < nt; t++) {
            const int *v = tri + 3 * t;
            const double *p0 = X + 3 * v[0], *p1 = X + 3 * v[1], *p2 = X + 3 * v[2];
            double e1[3], e2[3], pv[3], tv[3], qv[3];
            for (int k = 0; k < 3; k++) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k], tv[k] = o[k] - p0[k];
            vm_cross(pv, d, e2);
            double det = vm_dot(e1, pv);
            if (!(fabs(det) > 1e-300)) continue;
            double inv = 1.0 / det, u = vm_dot(tv, pv) * inv;
            if (u < 0 || u > 1) continue;
            vm_cross(qv, tv, e1);
            double w = vm_dot(d, qv) * inv;
            if (w < 0 || u + w > 1) continue;
            double tt = vm_dot(e2, qv) * inv;
            if (!(tt > 0) || tt >= best) continue;
            best = tt;
            *mesh = i;
            double b0 = 1 - u - w;
            *node = b0 >= u && b0 >= w ? v[0] : u >= w ? v[1] : v[2];
        }
    }
    *t_out = best;
    return best < HUGE_VAL;
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

static void update_camera(app *a);

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
static void frame_scene(app *a)
{
    int n = refresh_shapes(a);
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
    update_camera(a);
}

/* the iteration budget the viewer shows and changes: Newton iterations per step for the Newton
   solver (it ignores max_iterations), else max_iterations */
static int budget_of(const mo_solver_settings *s, mo_solver_kind k)
{
    return k == MO_SOLVER_NEWTON ? s->newton.iterations : s->max_iterations;
}

static void apply_solver(app *a)
{
    mo_solver_settings s = mo_world_solver(a->w);
    if (a->solver_override) {
        s.kind = a->solver_kind;
        if (s.kind == MO_SOLVER_NEWTON) s.newton.iterations = a->solver_iterations;
        else s.max_iterations = a->solver_iterations;
    }
    s.record_residuals = true;
    if (mo_world_set_solver(a->w, &s) != MO_OK) {
        message(a, "%s", mo_world_last_error(a->w));
        /* back to what the world has */
        mo_solver_settings cur = mo_world_solver(a->w);
        a->solver_kind = cur.kind;
        a->solver_iterations = budget_of(&cur, cur.kind);
        return;
    }
    a->solver_kind = s.kind;
    a->solver_iterations = budget_of(&s, s.kind);
}

/* loads path; keeps the current scene when it fails. reset: same scene again, camera kept */
static int load_scene(app *a, const char *path, bool reset)
{
    mo_scene_options o = mo_default_scene_options();
    o.print = scene_print;
    o.print_user = a;
    mo_scene_file *s = NULL;
    char err[1024] = "";
    mo_status st = mo_scene_file_load(path, &o, &s, err, sizeof err);
    if (st != MO_OK) {
        /* the loader's sentences name the file already */
        if (err[0] && strstr(err, path)) message(a, "%s", err);
        else message(a, "cannot open %s: %s", path, err[0] ? err : mo_status_name(st));
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
    apply_solver(a);
    if (!reset) frame_scene(a);
    message(a, "%s %s", reset ? "reset" : "opened", a->path);
    return 0;
}

/* ---- camera ------------------------------------------------------------ */

static void update_camera(app *a)
{
    double cp = cos(a->pitch), sp = sin(a->pitch), cy = cos(a->yaw), sy = sin(a->yaw);
    double back[3] = {cp * cy, cp * sy, sp};
    for (int k = 0; k < 3; k++) {
        a->eye[k] = a->target[k] + a->dist * back[k];
        a->fwd[k] = -back[k];
    }
    double z[3] = {0, 0, 1};
    vm_cross(a->right, a->fwd, z);
    vm_normalize(a->right);
    vm_cross(a->up, a->right, a->fwd);
    double znear = a->dist * 0.01, zfar = a->dist * 10 + 100 * (a->scene_radius + 1);
    vm_mat4 view = vm_view(a->eye, a->right, a->up, a->fwd);
    vm_mat4 proj = vm_perspective(FOV, (double)a->W / (double)(a->H > 0 ? a->H : 1), znear, zfar);
    a->vp = vm_mul(&proj, &view);
}

/* the ray through a pixel */
static void pixel_ray(const app *a, double px, double py, double *dir)
{
    double t = tan(0.5 * FOV), asp = (double)a->W / (double)a->H;
    double x = (2.0 * (px + 0.5) / a->W - 1.0) * t * asp, y = (1.0 - 2.0 * (py + 0.5) / a->H) * t;
    for (int k = 0; k < 3; k++) dir[k] = a->fwd[k] + x * a->right[k] + y * a->up[k];
    vm_normalize(dir);
}

/* pixel of a world point; false behind the camera */
static bool project(const app *a, const double *p, double *px, double *py)
{
    const float *m = a->vp.m;
    double c[4];
    for (int i = 0; i < 4; i++) c[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    if (c[3] <= 0) return false;
    *px = (c[0] / c[3] + 1.0) * 0.5 * a->W;
    *py = (1.0 - c[1] / c[3]) * 0.5 * a->H;
    return true;
}

/* ---- grabbing ---------------------------------------------------------- */

/* grabs FEM node `node` of the mesh at place i: the drag plane faces the camera through the node */
static void grab_fem_node(app *a, int i, int node, const double *dir)
{
    mo_vec3 x;
    if (mo_fem_mesh_node_position(a->w, a->fem_ids[i], node, &x) != MO_OK) return;
    a->grab_fem = true;
    a->grab_mesh = a->fem_ids[i];
    a->grab_node = node;
    double p[3] = {x.x, x.y, x.z};
    memcpy(a->grab_plane_n, a->fwd, sizeof a->grab_plane_n);
    a->grab_plane_d = vm_dot(a->grab_plane_n, p);
    /* the cursor's point on that plane; the node keeps its offset from it while dragged */
    double den = vm_dot(a->grab_plane_n, dir), t = fabs(den) > 1e-9 ? (a->grab_plane_d - vm_dot(a->grab_plane_n, a->eye)) / den : 0;
    for (int k = 0; k < 3; k++) {
        a->grab_offset[k] = t > 0 ? p[k] - (a->eye[k] + t * dir[k]) : 0;
        a->grab_target[k] = p[k];
    }
    a->grabbing = true;
    message(a, "grab: FEM mesh %d node %d", i, node);
}

static void grab_start(app *a, double px, double py)
{
    double dir[3];
    pixel_ray(a, px, py, dir);
    mo_ray_hit hit;
    bool body_hit = mo_world_raycast(a->w, (mo_vec3){a->eye[0], a->eye[1], a->eye[2]},
                                     (mo_vec3){dir[0], dir[1], dir[2]}, 1e4, &hit);
    double tf = HUGE_VAL;
    int fm = -1, fn = -1;
    /* an FEM surface nearer than any shape: its nearest node */
    if (fem_pick(a, a->eye, dir, &tf, &fm, &fn) && (!body_hit || tf < hit.distance)) {
        grab_fem_node(a, fm, fn, dir);
        return;
    }
    if (!body_hit) {
        message(a, "grab: nothing under the cursor");
        return;
    }
    mo_shape_info si;
    if (mo_shape_get_info(a->w, hit.shape, &si) != MO_OK || si.body_type != MO_BODY_DYNAMIC) {
        message(a, "grab: that body is not dynamic");
        return;
    }
    mo_vec3 x;
    mo_quat q;
    mo_body_position(a->w, hit.body, &x);
    mo_body_orientation(a->w, hit.body, &q);
    double R[9], d[3] = {hit.point.x - x.x, hit.point.y - x.y, hit.point.z - x.z};
    vm_quat_to_m3(R, q.w, q.x, q.y, q.z);
    for (int i = 0; i < 3; i++) a->grab_local[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2];
    a->grab_body = hit.body;
    a->grab_target[0] = hit.point.x, a->grab_target[1] = hit.point.y, a->grab_target[2] = hit.point.z;
    /* the drag plane faces the camera through the hit point */
    memcpy(a->grab_plane_n, a->fwd, sizeof a->grab_plane_n);
    a->grab_plane_d = vm_dot(a->grab_plane_n, a->grab_target);
    a->grab_fem = false;
    a->grabbing = true;
}

static void grab_move(app *a, double px, double py)
{
    double dir[3];
    pixel_ray(a, px, py, dir);
    double den = vm_dot(a->grab_plane_n, dir);
    if (fabs(den) < 1e-9) return;
    double t = (a->grab_plane_d - vm_dot(a->grab_plane_n, a->eye)) / den;
    if (t <= 0) return;
    for (int k = 0; k < 3; k++) a->grab_target[k] = a->eye[k] + t * dir[k] + (a->grab_fem ? a->grab_offset[k] : 0);
}

/* an FEM node: the body grab's spring per unit mass (k = 100 / s^2, c = 20 / s, critically damped at
   10 rad/s) acting on the nodes around the grabbed one with weight exp(-(d / R)^2), d the distance to
   it and R a quarter of the mesh's extent, and the whole mesh's weight carried while grabbed. Per unit
   mass the loop gains are h^2 k and h c whatever the node masses, so the pull is stable for light nodes
   in stiff meshes as for bodies, and it drags a region, not a single node out of the mesh. */
static void grab_force_fem(app *a)
{
    int i = -1;
    if (gather_fem(a))
        for (int j = 0; j < a->nfem; j++)
            if (a->fem_ids[j].index == a->grab_mesh.index && a->fem_ids[j].generation == a->grab_mesh.generation) i = j;
    mo_particle_id pid;
    if (i < 0 || mo_fem_mesh_node_particle(a->w, a->grab_mesh, a->grab_node, &pid) != MO_OK) {
        a->grabbing = a->grab_fem = false;
        return;
    }
    const int first = a->fem_first[i], nn = a->fem_first[i + 1] - first;
    const double *X = a->fem_x + 3 * first, *xg = X + 3 * a->grab_node;
    mo_vec3 v, gv = mo_world_gravity(a->w);
    mo_particle_velocity(a->w, pid, &v);
    double vg[3] = {v.x, v.y, v.z}, g[3] = {gv.x, gv.y, gv.z}, acc[3], lo[3], hi[3];
    const double k = 100.0, c = 20.0;
    for (int d = 0; d < 3; d++) {
        acc[d] = k * (a->grab_target[d] - xg[d]) - c * vg[d];
        lo[d] = HUGE_VAL, hi[d] = -HUGE_VAL;
    }
    for (int j = 0; j < nn; j++)
        for (int d = 0; d < 3; d++) {
            if (X[3 * j + d] < lo[d]) lo[d] = X[3 * j + d];
            if (X[3 * j + d] > hi[d]) hi[d] = X[3 * j + d];
        }
    double ext2 = 0;
    for (int d = 0; d < 3; d++) ext2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    const double R2 = ext2 / 16 > 1e-12 ? ext2 / 16 : 1e-12;
    for (int j = 0; j < nn; j++) {
        mo_particle_id pj;
        double m;
        if (mo_fem_mesh_node_particle(a->w, a->grab_mesh, j, &pj) != MO_OK ||
            mo_fem_mesh_node_mass(a->w, a->grab_mesh, j, &m) != MO_OK)
            continue;
        double d2 = 0;
        for (int d = 0; d < 3; d++) d2 += (X[3 * j + d] - xg[d]) * (X[3 * j + d] - xg[d]);
        const double wj = exp(-d2 / R2);
        mo_particle_apply_force(a->w, pj, (mo_vec3){m * (wj * acc[0] - g[0]), m * (wj * acc[1] - g[1]),
                                                     m * (wj * acc[2] - g[2])});
    }
}

static void grab_force(app *a)
{
    if (!a->grabbing) return;
    if (a->grab_fem) {
        grab_force_fem(a);
        return;
    }
    if (!mo_body_is_valid(a->w, a->grab_body)) {
        a->grabbing = false;
        return;
    }
    double mass;
    mo_mat3 I;
    mo_vec3 p, x, v, om;
    mo_body_mass(a->w, a->grab_body, &mass, &I);
    mo_body_world_point(a->w, a->grab_body, (mo_vec3){a->grab_local[0], a->grab_local[1], a->grab_local[2]}, &p);
    mo_body_position(a->w, a->grab_body, &x);
    mo_body_linear_velocity(a->w, a->grab_body, &v);
    mo_body_angular_velocity(a->w, a->grab_body, &om);
    double r[3] = {p.x - x.x, p.y - x.y, p.z - x.z}, w[3] = {om.x, om.y, om.z}, wr[3];
    vm_cross(wr, w, r);
    double vp[3] = {v.x + wr[0], v.y + wr[1], v.z + wr[2]}, pp[3] = {p.x, p.y, p.z};
    mo_vec3 gv = mo_world_gravity(a->w);
    double gr[3] = {gv.x, gv.y, gv.z};
    const double k = 100.0, c = 20.0;
    double f[3];
    for (int i = 0; i < 3; i++) f[i] = mass * (k * (a->grab_target[i] - pp[i]) - c * vp[i] - gr[i]);
    mo_body_apply_force_at(a->w, a->grab_body, (mo_vec3){f[0], f[1], f[2]}, p);
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
        message(a, "the scene stopped%s%s", reason && reason[0] ? ": " : "", reason ? reason : "");
        return false;
    }
    grab_force(a);
    if (mo_scene_file_step(a->scene) != MO_OK) {
        a->paused = true;
        message(a, "step failed: %s", mo_scene_file_last_error(a->scene));
        return false;
    }
    record_stats(a);
    return true;
}

static void simulate(app *a, double dt)
{
    const double h = mo_world_time_step(a->w);
    double t_sim0 = mo_world_time(a->w), t0 = now_s();
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
            if (!a->opt.fixed_step && now_s() - t0 > 0.06) {
                a->accum = 0;
                break;
            }
        }
    }
    /* real-time factor: simulated time over wall time between frames, smoothed */
    double tn = now_s(), dsim = mo_world_time(a->w) - t_sim0;
    if (a->last_frame > 0 && tn > a->last_frame) {
        double inst = dsim / (tn - a->last_frame);
        a->rtf = a->rtf > 0 ? 0.95 * a->rtf + 0.05 * inst : inst;
    }
    a->last_frame = tn;
}

/* ---- drawing the world ------------------------------------------------- */

static void body_color(const mo_shape_info *s, bool grabbed, float *c)
{
    static const float pal[8][3] = {{0.86f, 0.46f, 0.26f}, {0.30f, 0.58f, 0.86f}, {0.46f, 0.76f, 0.34f},
                                    {0.88f, 0.74f, 0.28f}, {0.66f, 0.46f, 0.82f}, {0.30f, 0.76f, 0.70f},
                                    {0.86f, 0.40f, 0.56f}, {0.62f, 0.62f, 0.68f}};
    if (s->type == MO_SHAPE_PLANE) {
        c[0] = 0.36f, c[1] = 0.38f, c[2] = 0.42f;
    } else if (s->body_type == MO_BODY_STATIC) {
        c[0] = 0.55f, c[1] = 0.56f, c[2] = 0.58f;
    } else if (s->body_type == MO_BODY_KINEMATIC) {
        c[0] = 0.35f, c[1] = 0.45f, c[2] = 0.95f;
    } else {
        const float *p = pal[(s->body.index * 2654435761u >> 7) % 8];
        c[0] = p[0], c[1] = p[1], c[2] = p[2];
    }
    if (grabbed)
        for (int k = 0; k < 3; k++) c[k] = 0.5f + 0.5f * c[k];
    c[3] = 1.0f;
}

/* flat-shaded triangles of a hull (faces fanned) or mesh, in the shape frame */
static int shape_mesh(app *a, mo_shape_id id, const mo_shape_info *s)
{
    if ((int)id.index >= a->cache_cap) {
        int cap = a->cache_cap ? a->cache_cap : 64;
        while (cap <= (int)id.index) cap *= 2;
        shape_cache *c = realloc(a->cache, (size_t)cap * sizeof *c);
        if (!c) return -1;
        memset(c + a->cache_cap, 0, (size_t)(cap - a->cache_cap) * sizeof *c);
        a->cache = c;
        a->cache_cap = cap;
    }
    shape_cache *e = &a->cache[id.index];
    if (e->mesh > 0 && e->generation == id.generation) return e->mesh;
    if (e->mesh > 0) gfx_mesh_delete(a->g, e->mesh);
    e->mesh = 0;
    int ntri = s->triangle_count;
    if (s->type == MO_SHAPE_CONVEX_HULL) {
        ntri = 0;
        for (int f = 0; f < s->face_count; f++) ntri += s->face_first[f + 1] - s->face_first[f] - 2;
    }
    if (ntri <= 0) return -1;
    float *v = malloc((size_t)ntri * 18 * sizeof(float));
    if (!v) return -1;
    int n = 0;
    const double *P = s->vertices;
    for (int t = 0, f = 0; ; ) {
        int i0, i1, i2;
        if (s->type == MO_SHAPE_MESH) {
            if (t >= s->triangle_count) break;
            i0 = s->triangles[3 * t], i1 = s->triangles[3 * t + 1], i2 = s->triangles[3 * t + 2];
            t++;
        } else {
            if (f >= s->face_count) break;
            int f0 = s->face_first[f], len = s->face_first[f + 1] - f0;
            if (t + 2 >= len) {
                f++, t = 0;
                continue;
            }
            i0 = s->face_vertices[f0], i1 = s->face_vertices[f0 + t + 1], i2 = s->face_vertices[f0 + t + 2];
            t++;
        }
        double e1[3], e2[3], nn[3];
        for (int k = 0; k < 3; k++) e1[k] = P[3 * i1 + k] - P[3 * i0 + k], e2[k] = P[3 * i2 + k] - P[3 * i0 + k];
        vm_cross(nn, e1, e2);
        vm_normalize(nn);
        int idx[3] = {i0, i1, i2};
        for (int j = 0; j < 3; j++) {
            float *o = v + 6 * n++;
            for (int k = 0; k < 3; k++) o[k] = (float)P[3 * idx[j] + k], o[3 + k] = (float)nn[k];
        }
    }
    e->mesh = gfx_mesh_create(a->g, v, n);
    e->generation = id.generation;
    free(v);
    return e->mesh;
}

static void draw_part(app *a, int mesh, const double *p, const double *R, const double *s, const float *c)
{
    vm_mat4 m = vm_model(p, R, s);
    float nm[9];
    vm_normal_matrix(nm, R, s);
    gfx_draw_mesh(a->g, mesh, &m, nm, c);
}

static void draw_plane(app *a, const double *p, const double *R, const float *c)
{
    /* a square around the point of the plane nearest the camera target, and a 1 m grid on it */
    double L = 10.0;
    while (L < 4 * a->scene_radius) L *= 2;
    double n[3] = {R[2], R[5], R[8]}, ex[3] = {R[0], R[3], R[6]}, ey[3] = {R[1], R[4], R[7]};
    double d[3] = {a->target[0] - p[0], a->target[1] - p[1], a->target[2] - p[2]};
    double u = floor(vm_dot(d, ex)), v = floor(vm_dot(d, ey)), o[3];
    for (int k = 0; k < 3; k++) o[k] = p[k] + u * ex[k] + v * ey[k] - 1e-4 * L * n[k];
    double s[3] = {L, L, 1};
    draw_part(a, GFX_MESH_QUAD, o, R, s, c);
    double step = L > 40 ? L / 20 : 1.0;
    for (double t = -L; t <= L + 1e-9; t += step) {
        double a0[3], a1[3], b0[3], b1[3];
        for (int k = 0; k < 3; k++) {
            double base = o[k] + 1e-4 * L * n[k] * 2;
            a0[k] = base + t * ex[k] - L * ey[k];
            a1[k] = base + t * ex[k] + L * ey[k];
            b0[k] = base - L * ex[k] + t * ey[k];
            b1[k] = base + L * ex[k] + t * ey[k];
        }
        uint32_t col = fabs(t) < 1e-9 ? 0x8a909cffu : 0x5a606cffu;
        gfx_line(a->g, 0, a0, a1, col);
        gfx_line(a->g, 0, b0, b1, col);
    }
}

/* the GL mesh of a visual's mesh file (flat-shaded, scale 1), loaded on first use; -1 when it cannot be */
static int visual_mesh(app *a, const char *path)
{
    for (int i = 0; i < a->nvmeshes; i++)
        if (!strcmp(a->vmeshes[i].path, path)) return a->vmeshes[i].mesh;
    if (a->nvmeshes == a->vmesh_cap) {
        int cap = a->vmesh_cap ? 2 * a->vmesh_cap : 16;
        vis_mesh *v = realloc(a->vmeshes, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->vmeshes = v;
        a->vmesh_cap = cap;
    }
    char *p = malloc(strlen(path) + 1);
    if (!p) return -1;
    strcpy(p, path);
    int handle = -1;
    mo_mesh_data m;
    char err[768];
    if (mo_mesh_load(path, (mo_vec3){1, 1, 1}, &m, err, sizeof err) != MO_OK) {
        message(a, "visual mesh not drawn (collision shapes instead): %s", err);
    } else {
        float *v = malloc((size_t)m.ntriangles * 18 * sizeof(float));
        if (v) {
            for (int t = 0; t < m.ntriangles; t++) {
                const int *ix = m.triangles + 3 * t;
                const double *P0 = m.vertices + 3 * ix[0], *P1 = m.vertices + 3 * ix[1], *P2 = m.vertices + 3 * ix[2];
                double e1[3], e2[3], nn[3];
                for (int k = 0; k < 3; k++) e1[k] = P1[k] - P0[k], e2[k] = P2[k] - P0[k];
                vm_cross(nn, e1, e2);
                vm_normalize(nn);
                for (int j = 0; j < 3; j++) {
                    float *o = v + 18 * t + 6 * j;
                    for (int k = 0; k < 3; k++) o[k] = (float)m.vertices[3 * ix[j] + k], o[3 + k] = (float)nn[k];
                }
            }
            handle = gfx_mesh_create(a->g, v, 3 * m.ntriangles);
            free(v);
        }
        mo_mesh_free(&m);
    }
    a->vmeshes[a->nvmeshes++] = (vis_mesh){p, handle > 0 ? handle : -1};
    return handle > 0 ? handle : -1;
}

static void quat_mul(mo_quat *r, mo_quat a, mo_quat b)
{
    *r = (mo_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/* marks the bodies drawn by their URDF visuals (all of a body's meshes loaded) and draws those visuals;
   returns how many visuals there are (a->vis holds them) */
static int draw_visuals(app *a)
{
    if (a->show_collision || a->ov[OV_WIRE]) return 0;
    int n = mo_scene_file_visuals(a->scene, NULL, 0);
    if (n <= 0) return 0;
    if (n > a->vis_cap) {
        mo_scene_visual *v = realloc(a->vis, (size_t)n * sizeof *v);
        if (!v) return 0;
        a->vis = v;
        a->vis_cap = n;
    }
    n = mo_scene_file_visuals(a->scene, a->vis, n);
    int maxi = -1;
    for (int i = 0; i < n; i++)
        if ((int)a->vis[i].body.index > maxi) maxi = (int)a->vis[i].body.index;
    if (maxi >= a->body_vis_cap) {
        int cap = a->body_vis_cap ? a->body_vis_cap : 64;
        while (cap <= maxi) cap *= 2;
        void *b = realloc(a->body_vis, (size_t)cap * sizeof *a->body_vis);
        if (!b) return 0;
        a->body_vis = b;
        memset(a->body_vis + a->body_vis_cap, 0, (size_t)(cap - a->body_vis_cap) * sizeof *a->body_vis);
        a->body_vis_cap = cap;
    }
    for (int i = 0; i < n; i++) {
        const mo_scene_visual *v = &a->vis[i];
        a->body_vis[v->body.index].generation = v->body.generation;
        if (a->body_vis[v->body.index].state == 0) a->body_vis[v->body.index].state = 1;
        if (v->type == MO_SCENE_VISUAL_MESH && visual_mesh(a, v->mesh_path) <= 0) a->body_vis[v->body.index].state = 2;
    }
    for (int i = 0; i < n; i++) {
        const mo_scene_visual *v = &a->vis[i];
        if (a->body_vis[v->body.index].state != 1) continue;
        mo_vec3 r;
        mo_quat bq, q;
        if (mo_body_orientation(a->w, v->body, &bq) != MO_OK) continue;
        if (mo_body_world_point(a->w, v->body, v->position, &r) != MO_OK) continue;
        quat_mul(&q, bq, v->orientation);
        double p[3] = {r.x, r.y, r.z}, R[9], sc[3];
        vm_quat_to_m3(R, q.w, q.x, q.y, q.z);
        float c[4] = {v->rgba[0], v->rgba[1], v->rgba[2], v->rgba[3]};
        if (a->grabbing && !a->grab_fem && v->body.index == a->grab_body.index &&
            v->body.generation == a->grab_body.generation)
            for (int k = 0; k < 3; k++) c[k] = 0.5f + 0.5f * c[k];
        int mesh;
        switch (v->type) {
        case MO_SCENE_VISUAL_BOX:
            mesh = GFX_MESH_BOX, sc[0] = 0.5 * v->size.x, sc[1] = 0.5 * v->size.y, sc[2] = 0.5 * v->size.z;
            break;
        case MO_SCENE_VISUAL_CYLINDER:
            mesh = GFX_MESH_CYLINDER, sc[0] = sc[1] = v->size.x, sc[2] = 0.5 * v->size.z;
            break;
        case MO_SCENE_VISUAL_SPHERE: mesh = GFX_MESH_SPHERE, sc[0] = sc[1] = sc[2] = v->size.x; break;
        case MO_SCENE_VISUAL_MESH:
            mesh = visual_mesh(a, v->mesh_path), sc[0] = v->size.x, sc[1] = v->size.y, sc[2] = v->size.z;
            break;
        default: continue;
        }
        draw_part(a, mesh, p, R, sc, c);
    }
    return n;
}

/* true when the body's shapes are not drawn because its visuals are */
static bool drawn_by_visuals(const app *a, mo_body_id b)
{
    return (int)b.index < a->body_vis_cap && a->body_vis[b.index].state == 1 &&
           a->body_vis[b.index].generation == b.generation;
}

static void draw_shapes(app *a)
{
    int n = refresh_shapes(a);
    int nvis = draw_visuals(a);
    gfx_set_wireframe(a->g, a->ov[OV_WIRE]);
    for (int i = 0; i < n; i++) {
        mo_shape_info s;
        mo_vec3 pv;
        mo_quat q;
        if (mo_shape_get_info(a->w, a->shapes[i], &s) != MO_OK) continue;
        if (nvis > 0 && drawn_by_visuals(a, s.body)) continue;
        if (mo_shape_world_pose(a->w, a->shapes[i], &pv, &q) != MO_OK) continue;
        double p[3] = {pv.x, pv.y, pv.z}, R[9];
        vm_quat_to_m3(R, q.w, q.x, q.y, q.z);
        float c[4];
        bool grabbed = a->grabbing && !a->grab_fem && s.body.index == a->grab_body.index &&
                       s.body.generation == a->grab_body.generation;
        body_color(&s, grabbed, c);
        switch (s.type) {
        case MO_SHAPE_BOX: {
            double sc[3] = {s.half_extents.x, s.half_extents.y, s.half_extents.z};
            draw_part(a, GFX_MESH_BOX, p, R, sc, c);
            break;
        }
        case MO_SHAPE_SPHERE: {
            double sc[3] = {s.radius, s.radius, s.radius};
            draw_part(a, GFX_MESH_SPHERE, p, R, sc, c);
            break;
        }
        case MO_SHAPE_CYLINDER: {
            double sc[3] = {s.radius, s.radius, s.half_height};
            draw_part(a, GFX_MESH_CYLINDER, p, R, sc, c);
            break;
        }
        case MO_SHAPE_CAPSULE: {
            double sc[3] = {s.radius, s.radius, s.half_height}, sr[3] = {s.radius, s.radius, s.radius};
            draw_part(a, GFX_MESH_CYLINDER, p, R, sc, c);
            for (int e = -1; e <= 1; e += 2) {
                double pe[3];
                for (int k = 0; k < 3; k++) pe[k] = p[k] + e * s.half_height * R[3 * k + 2];
                draw_part(a, GFX_MESH_SPHERE, pe, R, sr, c);
            }
            break;
        }
        case MO_SHAPE_CONVEX_HULL:
        case MO_SHAPE_MESH: {
            int m = shape_mesh(a, a->shapes[i], &s);
            double one[3] = {1, 1, 1};
            if (m > 0) draw_part(a, m, p, R, one, c);
            break;
        }
        case MO_SHAPE_PLANE: draw_plane(a, p, R, c); break;
        default: break;
        }
    }
    draw_particles(a);
    draw_fem(a);
    gfx_set_wireframe(a->g, false);
    for (int i = 0; i < nvis; i++) a->body_vis[a->vis[i].body.index].state = 0;
}

/* debug-draw callbacks onto the over-everything layer */
static void dd_line(void *user, mo_vec3 p, mo_vec3 q, uint32_t c)
{
    app *a = user;
    double x[3] = {p.x, p.y, p.z}, y[3] = {q.x, q.y, q.z};
    gfx_line(a->g, 1, x, y, c);
}
static void dd_point(void *user, mo_vec3 p, double size, uint32_t c)
{
    (void)size;
    app *a = user;
    double x[3] = {p.x, p.y, p.z};
    gfx_point(a->g, 1, x, c);
}
static void dd_arrow(void *user, mo_vec3 t, mo_vec3 h, uint32_t c)
{
    app *a = user;
    double x[3] = {t.x, t.y, t.z}, y[3] = {h.x, h.y, h.z}, d[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
    gfx_line(a->g, 1, x, y, c);
    double l = vm_norm(d), side[3];
    if (!(l > 0)) return;
    /* head in the plane facing the camera */
    vm_cross(side, d, a->fwd);
    if (vm_norm(side) < 1e-12 * l) return;
    vm_normalize(side);
    for (int s = -1; s <= 1; s += 2) {
        double e[3];
        for (int k = 0; k < 3; k++) e[k] = y[k] - 0.2 * d[k] + s * 0.08 * l * side[k];
        gfx_line(a->g, 1, y, e, c);
    }
}

static void draw_overlays(app *a)
{
    unsigned flags = 0;
    if (a->ov[OV_POINTS]) flags |= MO_DRAW_CONTACTS;
    if (a->ov[OV_NORMALS]) flags |= MO_DRAW_NORMALS;
    if (a->ov[OV_FORCES]) flags |= MO_DRAW_FORCES;
    if (a->ov[OV_JOINTS]) flags |= MO_DRAW_JOINTS;
    if (a->ov[OV_AABBS]) flags |= MO_DRAW_AABBS;
    if (a->ov[OV_RESIDUALS]) flags |= MO_DRAW_RESIDUALS;
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = a;
    dd.line = dd_line;
    dd.point = dd_point;
    dd.arrow = dd_arrow;
    /* sizes follow the scene: normals a tenth of its radius; forces: the heaviest
       typical contact (m g of a body) about a quarter of the scene radius */
    dd.normal_length = 0.1 * a->scene_radius;
    dd.frame_scale = 0.08 * a->scene_radius;
    /* forces: the largest contact force of the step a quarter of the scene radius long
       (the scale follows the largest force, smoothed so that arrows do not flicker) */
    if (flags & MO_DRAW_FORCES) {
        int nc = mo_world_contacts(a->w, NULL, 0);
        double fmax = 0;
        if (nc > 0) {
            mo_contact *ct = malloc((size_t)nc * sizeof *ct);
            if (ct) {
                nc = mo_world_contacts(a->w, ct, nc);
                for (int i = 0; i < nc; i++) {
                    double f = sqrt(ct[i].impulse.x * ct[i].impulse.x + ct[i].impulse.y * ct[i].impulse.y +
                                    ct[i].impulse.z * ct[i].impulse.z);
                    if (f > fmax) fmax = f;
                }
                free(ct);
            }
        }
        fmax /= mo_world_time_step(a->w) / mo_world_substeps(a->w);
        a->force_max = a->force_max > 0 ? 0.9 * a->force_max + 0.1 * fmax : fmax;
    }
    dd.force_scale = a->force_max > 0 ? 0.25 * a->scene_radius / a->force_max : 0.01;
    if (flags) mo_world_debug_draw(a->w, &dd, flags);
    if (a->grabbing) {
        mo_vec3 p;
        mo_status st = a->grab_fem ? mo_fem_mesh_node_position(a->w, a->grab_mesh, a->grab_node, &p)
                                   : mo_body_world_point(a->w, a->grab_body,
                                                         (mo_vec3){a->grab_local[0], a->grab_local[1], a->grab_local[2]}, &p);
        if (st == MO_OK) {
            double x[3] = {p.x, p.y, p.z};
            gfx_line(a->g, 1, x, a->grab_target, 0xffffffffu);
            gfx_point(a->g, 1, a->grab_target, 0xffffffffu);
        }
    }
}

/* ---- HUD, panels, plots --------------------------------------------------- */

static void add_hit(app *a, float x, float y, float w, float h, int action)
{
    if (a->nhits < (int)(sizeof a->hits / sizeof a->hits[0])) a->hits[a->nhits++] = (hit_rect){x, y, w, h, action};
}

static void draw_hud(app *a)
{
    gfx *g = a->g;
    char buf[1300];
    const mo_step_stats *s = &a->st;
    const char *name = strrchr(a->path, '/');
    name = name ? name + 1 : a->path;
    double total = s->t_predict + s->t_collide + s->t_assemble + s->t_solve + s->t_integrate;
    mo_solver_settings ss = mo_world_solver(a->w);
    int lines = 7;
    gfx_rect(g, 0, 0, 76 * CHAR_W + 16, (float)(lines * LINE_H + 12), 0x000000a0u);
    float y = 6;
    snprintf(buf, sizeof buf, "%s  %s  speed x%.3g  real-time factor %.2f", name, a->paused ? "PAUSED" : "running",
             a->speed, a->rtf);
    gfx_text(g, 8, y, buf, a->paused ? 0xffc040ffu : 0xffffffffu, TEXT_SCALE), y += LINE_H;
    snprintf(buf, sizeof buf, "t %.3f s  step %llu  h %.3g ms  bodies %d  joints %d  particles %d  fem %d",
             mo_world_time(a->w), (unsigned long long)mo_scene_file_steps(a->scene), 1e3 * mo_world_time_step(a->w),
             s->bodies, s->joints, s->particles, mo_world_fem_meshes(a->w, NULL, 0));
    gfx_text(g, 8, y, buf, 0xffffffffu, TEXT_SCALE), y += LINE_H;
    snprintf(buf, sizeof buf, "contacts %d  rows %d  pairs %d  penetration %.2g m", s->contacts, s->rows, s->pairs,
             s->max_penetration);
    gfx_text(g, 8, y, buf, 0xffffffffu, TEXT_SCALE), y += LINE_H;
    snprintf(buf, sizeof buf, "solver %s  iterations %d / %d  residual %.3g  coulomb %.3g%s", mo_solver_name(ss.kind),
             s->iterations, budget_of(&ss, ss.kind), s->residual, s->coulomb_error, s->converged ? "  converged" : "");
    gfx_text(g, 8, y, buf, 0xffffffffu, TEXT_SCALE), y += LINE_H;
    snprintf(buf, sizeof buf, "ms: predict %.2f collide %.2f assemble %.2f solve %.2f integrate %.2f = %.2f",
             1e3 * s->t_predict, 1e3 * s->t_collide, 1e3 * s->t_assemble, 1e3 * s->t_solve, 1e3 * s->t_integrate,
             1e3 * total);
    gfx_text(g, 8, y, buf, 0xffffffffu, TEXT_SCALE), y += LINE_H;
    /* overlays on two lines (the second clear of the solver panel) */
    for (int half = 0; half < 2; half++) {
        int n = 0;
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s", half ? "         " : "overlays:");
        for (int i = half ? 4 : 0; i < (half ? OV_COUNT : 4); i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " %d%s%s", i + 1, a->ov[i] ? "+" : "-", ov_names[i]);
        if (half) snprintf(buf + n, sizeof buf - (size_t)n, " C%scoll", a->show_collision ? "+" : "-");
        gfx_text(g, 8, y, buf, 0xc0c8d0ffu, TEXT_SCALE), y += LINE_H;
    }

    /* strain legend below the HUD: the colour ramp from 0 to the scale's top */
    if (a->ov[OV_STRAIN]) {
        const float lx = 8, ly = (float)(lines * LINE_H + 12) + 6, bw = 384, bh = 16;
        gfx_rect(g, 0, ly, bw + 2 * lx + 8 * CHAR_W, 3 * LINE_H + bh + 12, 0x000000a0u);
        if (a->nfem > 0)
            snprintf(buf, sizeof buf, "strain |E|_F (Green-Lagrange, node mean), max %.3g", a->strain_max);
        else
            snprintf(buf, sizeof buf, "strain |E|_F: no FEM mesh");
        gfx_text(g, lx, ly + 4, buf, 0xffffffffu, TEXT_SCALE);
        const int nb = 96;
        for (int i = 0; i < nb; i++)
            gfx_rect(g, lx + bw * (float)i / nb, ly + 6 + LINE_H, bw / nb + 1, bh,
                     strain_color((i + 0.5) / nb));
        float ty = ly + 10 + LINE_H + bh;
        gfx_text(g, lx, ty, "0", 0xffffffffu, TEXT_SCALE);
        snprintf(buf, sizeof buf, "%.3g", 0.5 * a->strain_scale);
        gfx_text(g, lx + 0.5f * bw - (float)strlen(buf) * CHAR_W / 2, ty, buf, 0xffffffffu, TEXT_SCALE);
        snprintf(buf, sizeof buf, "%.3g", a->strain_scale);
        gfx_text(g, lx + bw - (float)strlen(buf) * CHAR_W / 2, ty, buf, 0xffffffffu, TEXT_SCALE);
    }

    /* solver panel, top right: click a solver, or - / + for the iteration budget */
    float pw = 14 * CHAR_W + 16, px = (float)a->W - pw - 6, py = 6;
    gfx_rect(g, px, py, pw, (float)((MO_SOLVER_COUNT + 3) * LINE_H + 10), 0x000000a0u);
    gfx_text(g, px + 8, py + 4, "solver [Tab]", 0xc0c8d0ffu, TEXT_SCALE);
    for (int k = 0; k < MO_SOLVER_COUNT; k++) {
        float ry = py + 4 + (float)((k + 1) * LINE_H);
        bool cur = ss.kind == (mo_solver_kind)k;
        if (cur) gfx_rect(g, px + 4, ry - 2, pw - 8, LINE_H, 0x3070c0ffu);
        gfx_text(g, px + 8, ry, mo_solver_name((mo_solver_kind)k), 0xffffffffu, TEXT_SCALE);
        add_hit(a, px, ry - 2, pw, LINE_H, ACT_SOLVER0 + k);
    }
    float ry = py + 4 + (float)((MO_SOLVER_COUNT + 1) * LINE_H) + 4;
    snprintf(buf, sizeof buf, "it %d", budget_of(&ss, ss.kind));
    gfx_text(g, px + 8, ry, buf, 0xffffffffu, TEXT_SCALE);
    float bx = px + pw - 2 * (3 * CHAR_W) - 8;
    gfx_rect(g, bx, ry - 2, 3 * CHAR_W - 4, LINE_H, 0x505860ffu);
    gfx_text(g, bx + CHAR_W - 2, ry, "-", 0xffffffffu, TEXT_SCALE);
    add_hit(a, bx, ry - 2, 3 * CHAR_W - 4, LINE_H, ACT_ITER_DOWN);
    bx += 3 * CHAR_W;
    gfx_rect(g, bx, ry - 2, 3 * CHAR_W - 4, LINE_H, 0x505860ffu);
    gfx_text(g, bx + CHAR_W - 2, ry, "+", 0xffffffffu, TEXT_SCALE);
    add_hit(a, bx, ry - 2, 3 * CHAR_W - 4, LINE_H, ACT_ITER_UP);

    /* message line and prompt, bottom left */
    if (a->prompt) {
        snprintf(buf, sizeof buf, "open scene: %s_", a->prompt_buf);
        gfx_rect(g, 0, (float)a->H - LINE_H - 12, (float)a->W, LINE_H + 12, 0x203050e0u);
        gfx_text(g, 8, (float)a->H - LINE_H - 6, buf, 0xffffffffu, TEXT_SCALE);
    } else if (a->msg[0] && now_s() - a->msg_time < 6.0) {
        gfx_rect(g, 0, (float)a->H - LINE_H - 12, (float)(strlen(a->msg) * CHAR_W + 16), LINE_H + 12, 0x000000a0u);
        gfx_text(g, 8, (float)a->H - LINE_H - 6, a->msg, 0xffe080ffu, TEXT_SCALE);
    } else {
        gfx_text(g, 8, (float)a->H - LINE_H - 6, "H: help", 0xa0a8b0ffu, TEXT_SCALE);
    }
}

static void draw_help(app *a)
{
    static const char *help =
        "mouse: left drag orbit | right drag (or shift+left) pan | wheel zoom\n"
        "       ctrl+left (or middle) drag: grab a body or FEM node (spring)\n"
        "Space pause/run   N step   R reset   Z slow motion   - = speed /2 x2\n"
        "F frame the scene   O open a scene (or drop a file)   P / F12 screenshot\n"
        "1 contacts 2 normals 3 forces 4 joints 5 AABBs 6 wireframe 7 residuals\n"
        "8 FEM strain colours (|E|_F per node, scale in the HUD)\n"
        "Tab / shift+Tab solver   [ ] iterations /2 x2   G plots   H help\n"
        "C collision shapes instead of URDF visuals   Esc / Q quit";
    float w = 74 * CHAR_W + 24, h = 8 * LINE_H + 24, x = 0.5f * ((float)a->W - w), y = 0.5f * ((float)a->H - h);
    gfx_rect(a->g, x, y, w, h, 0x101820e8u);
    gfx_text(a->g, x + 12, y + 12, help, 0xffffffffu, TEXT_SCALE);
}

/* a plot frame with a title; maps data to pixels with the given ranges */
typedef struct plot_box { float x, y, w, h; double x0, x1, y0, y1; bool logy; } plot_box;

static float plot_px(const plot_box *p, double x) { return p->x + (float)((x - p->x0) / (p->x1 - p->x0)) * p->w; }
static float plot_py(const plot_box *p, double y)
{
    double t = p->logy ? (log10(y) - p->y0) / (p->y1 - p->y0) : (y - p->y0) / (p->y1 - p->y0);
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    return p->y + p->h - (float)t * p->h;
}

static void plot_frame(app *a, const plot_box *p, const char *title, const char *ylo, const char *yhi)
{
    gfx_rect(a->g, p->x - 58, p->y - 22, p->w + 66, p->h + 30, 0x000000b0u);
    gfx_line2d(a->g, p->x, p->y, p->x, p->y + p->h, 0x808890ffu);
    gfx_line2d(a->g, p->x, p->y + p->h, p->x + p->w, p->y + p->h, 0x808890ffu);
    gfx_text(a->g, p->x, p->y - 19, title, 0xffffffffu, TEXT_SCALE);
    gfx_text(a->g, p->x - 56, p->y, yhi, 0xc0c8d0ffu, 1);
    gfx_text(a->g, p->x - 56, p->y + p->h - MO_FONT_CELL_H, ylo, 0xc0c8d0ffu, 1);
}

static void draw_plots(app *a)
{
    const float pw = 330, ph = 110, x = (float)a->W - pw - 12, gap = ph + 40;
    float y = (float)a->H - 3 * gap;
    char lo[32], hi[32], title[64];
    /* residual against iteration, this step, log scale */
    if (a->res_count > 0) {
        double mn = HUGE_VAL, mx = 0;
        for (int i = 0; i < a->res_count; i++)
            for (int s = 0; s < 2; s++) {
                double v = s ? a->err_hist[i] : a->res_hist[i];
                if (v > 0 && isfinite(v)) {
                    if (v < mn) mn = v;
                    if (v > mx) mx = v;
                }
            }
        if (!(mx > 0)) mn = 1e-16, mx = 1;
        plot_box p = {x, y, pw, ph, 0, a->res_count > 1 ? a->res_count - 1 : 1, floor(log10(mn)), ceil(log10(mx)),
                      true};
        if (p.y1 <= p.y0) p.y1 = p.y0 + 1;
        snprintf(lo, sizeof lo, "1e%d", (int)p.y0);
        snprintf(hi, sizeof hi, "1e%d", (int)p.y1);
        snprintf(title, sizeof title, "residual/iteration (%d)", a->res_count);
        plot_frame(a, &p, title, lo, hi);
        for (int s = 0; s < 2; s++) {
            const double *h = s ? a->err_hist : a->res_hist;
            uint32_t c = s ? 0xffa040ffu : 0x40e0ffffu;
            for (int i = 1; i < a->res_count; i++)
                if (h[i - 1] > 0 && h[i] > 0 && isfinite(h[i - 1]) && isfinite(h[i]))
                    gfx_line2d(a->g, plot_px(&p, i - 1), plot_py(&p, h[i - 1]), plot_px(&p, i), plot_py(&p, h[i]), c);
        }
        gfx_text(a->g, x + pw - 17 * MO_FONT_CELL_W, y + 2, "ccp", 0x40e0ffffu, 1);
        gfx_text(a->g, x + pw - 10 * MO_FONT_CELL_W, y + 2, "coulomb", 0xffa040ffu, 1);
    } else {
        plot_box p = {x, y, pw, ph, 0, 1, 0, 1, false};
        plot_frame(a, &p, "residual/iteration", "", "");
        gfx_text(a->g, x + 8, y + ph / 2, "no step yet", 0xc0c8d0ffu, TEXT_SCALE);
    }
    /* iterations and ms per step over the last HIST steps */
    for (int k = 0; k < 2; k++) {
        y += gap;
        const float *h = k == 0 ? a->hist_iter : a->hist_ms;
        double mx = 1e-9;
        for (int i = 0; i < a->hist_n; i++) {
            if (h[i] > mx) mx = h[i];
            if (k == 1 && a->hist_solve_ms[i] > mx) mx = a->hist_solve_ms[i];
        }
        /* the x axis grows with the history up to HIST steps (10 s at 120 Hz) */
        int span = a->hist_n > 120 ? a->hist_n : 120;
        plot_box p = {x, y, pw, ph, 0, span - 1, 0, mx * 1.1, false};
        snprintf(hi, sizeof hi, "%.3g", mx * 1.1);
        snprintf(title, sizeof title, "%s (%d steps)", k == 0 ? "iterations/step" : "ms/step", a->hist_n);
        plot_frame(a, &p, title, "0", hi);
        if (k == 1) {
            gfx_text(a->g, x + pw - 17 * MO_FONT_CELL_W, y + 2, "total", 0x80ff80ffu, 1);
            gfx_text(a->g, x + pw - 10 * MO_FONT_CELL_W, y + 2, "solve", 0xffa040ffu, 1);
        }
        for (int s = 0; s < (k == 1 ? 2 : 1); s++) {
            const float *d = s ? a->hist_solve_ms : h;
            uint32_t c = s ? 0xffa040ffu : 0x80ff80ffu;
            for (int i = 1; i < a->hist_n; i++) {
                int i0 = (a->hist_head - a->hist_n + i - 1 + HIST) % HIST, i1 = (i0 + 1) % HIST;
                double xo = 0;
                gfx_line2d(a->g, plot_px(&p, xo + i - 1), plot_py(&p, d[i0]), plot_px(&p, xo + i), plot_py(&p, d[i1]),
                           c);
            }
        }
    }
}

static void render(app *a)
{
    gfx_size(a->g, &a->W, &a->H);
    update_camera(a);
    gfx_begin(a->g, &a->vp, a->eye);
    draw_shapes(a);
    gfx_flush_3d(a->g, 0);
    draw_overlays(a);
    gfx_flush_3d(a->g, 1);
    a->nhits = 0;
    if (a->show_hud) draw_hud(a);
    if (a->show_plots) draw_plots(a);
    if (a->show_help) draw_help(a);
    gfx_flush_2d(a->g);
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
            message(a, "screenshot: out of memory");
            return -1;
        }
        a->rgb = p;
        a->rgb_cap = need;
    }
    gfx_read_rgb(a->g, a->rgb);
    char err[600];
    if (gfx_write_png(path, w, h, a->rgb, err, sizeof err)) {
        message(a, "%s", err);
        return -1;
    }
    return 0;
}

/* ---- actions ------------------------------------------------------------- */

static void set_solver(app *a, mo_solver_kind k)
{
    mo_solver_settings cur = mo_world_solver(a->w);
    a->solver_override = true;
    a->solver_kind = k;
    a->solver_iterations = budget_of(&cur, k);
    apply_solver(a);
    message(a, "solver %s, %d iterations", mo_solver_name(a->solver_kind), a->solver_iterations);
}

static void set_iterations(app *a, int it)
{
    mo_solver_settings cur = mo_world_solver(a->w);
    if (it < 1) it = 1;
    if (it > (cur.kind == MO_SOLVER_NEWTON ? 1000 : 100000)) it = cur.kind == MO_SOLVER_NEWTON ? 1000 : 100000;
    a->solver_override = true;
    a->solver_kind = cur.kind;
    a->solver_iterations = it;
    apply_solver(a);
    message(a, "solver %s, %d iterations", mo_solver_name(a->solver_kind), a->solver_iterations);
}

static void do_action(app *a, int act)
{
    if (act >= ACT_SOLVER0 && act < ACT_SOLVER0 + MO_SOLVER_COUNT) set_solver(a, (mo_solver_kind)(act - ACT_SOLVER0));
    else if (act == ACT_ITER_DOWN || act == ACT_ITER_UP) {
        mo_solver_settings cur = mo_world_solver(a->w);
        int b = budget_of(&cur, cur.kind);
        set_iterations(a, act == ACT_ITER_DOWN ? b / 2 : b * 2);
    }
}

static void open_path(app *a, const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    load_scene(a, p, false);
}

void app_key(app *a, int key, int action, int mods)
{
    if (action == GLFW_RELEASE) return;
    if (a->prompt) {
        if (key == GLFW_KEY_ESCAPE) {
            a->prompt = false;
        } else if (key == GLFW_KEY_ENTER || key == GLFW_KEY_KP_ENTER) {
            a->prompt = false;
            if (a->prompt_buf[0]) open_path(a, a->prompt_buf);
        } else if (key == GLFW_KEY_BACKSPACE) {
            size_t n = strlen(a->prompt_buf);
            if (n) a->prompt_buf[n - 1] = 0;
        }
        return;
    }
    bool shift = mods & GLFW_MOD_SHIFT;
    switch (key) {
    case GLFW_KEY_ESCAPE:
        if (a->show_help) a->show_help = false;
        else a->quit = true;
        break;
    case GLFW_KEY_Q: a->quit = true; break;
    case GLFW_KEY_SPACE:
        a->paused = !a->paused;
        a->accum = 0;
        break;
    case GLFW_KEY_N:
    case GLFW_KEY_RIGHT:
        a->paused = true;
        a->step_requests++;
        break;
    case GLFW_KEY_R: {
        char p[1024];
        snprintf(p, sizeof p, "%s", a->path);
        load_scene(a, p, true);
        break;
    }
    case GLFW_KEY_Z:
        a->speed = a->speed == 1.0 ? 0.25 : 1.0;
        message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_MINUS:
        if (a->speed > 1.0 / 64) a->speed *= 0.5;
        message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_EQUAL:
        if (a->speed < 8) a->speed *= 2;
        message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_F: frame_scene(a); break;
    case GLFW_KEY_O:
        a->prompt = true;
        a->prompt_buf[0] = 0;
        break;
    case GLFW_KEY_P:
    case GLFW_KEY_F12: a->shot_requested = true; break;
    case GLFW_KEY_1:
    case GLFW_KEY_2:
    case GLFW_KEY_3:
    case GLFW_KEY_4:
    case GLFW_KEY_5:
    case GLFW_KEY_6:
    case GLFW_KEY_7:
    case GLFW_KEY_8: {
        int i = key - GLFW_KEY_1;
        a->ov[i] = !a->ov[i];
        message(a, "%s %s", ov_names[i], a->ov[i] ? "on" : "off");
        break;
    }
    case GLFW_KEY_TAB: {
        int k = (int)mo_world_solver(a->w).kind;
        k = (k + (shift ? MO_SOLVER_COUNT - 1 : 1)) % MO_SOLVER_COUNT;
        set_solver(a, (mo_solver_kind)k);
        break;
    }
    case GLFW_KEY_LEFT_BRACKET: do_action(a, ACT_ITER_DOWN); break;
    case GLFW_KEY_RIGHT_BRACKET: do_action(a, ACT_ITER_UP); break;
    case GLFW_KEY_H: a->show_help = !a->show_help; break;
    case GLFW_KEY_C:
        a->show_collision = !a->show_collision;
        message(a, "%s", a->show_collision ? "collision shapes" : "URDF visuals (where a scene loaded them)");
        break;
    case GLFW_KEY_G: a->show_plots = !a->show_plots; break;
    default: break;
    }
}

void app_char(app *a, unsigned cp)
{
    if (!a->prompt || cp < 32 || cp > 126) return;
    size_t n = strlen(a->prompt_buf);
    if (n + 1 < sizeof a->prompt_buf) a->prompt_buf[n] = (char)cp, a->prompt_buf[n + 1] = 0;
}

void app_mouse_button(app *a, int button, int action, int mods)
{
    if (action == GLFW_RELEASE) {
        if (a->drag_mode == 3) a->grabbing = false;
        a->drag_mode = 0;
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_LEFT && !(mods & (GLFW_MOD_CONTROL | GLFW_MOD_SHIFT))) {
        for (int i = 0; i < a->nhits; i++) {
            const hit_rect *r = &a->hits[i];
            if (a->mx >= r->x && a->mx < r->x + r->w && a->my >= r->y && a->my < r->y + r->h) {
                do_action(a, r->action);
                return;
            }
        }
    }
    if (button == GLFW_MOUSE_BUTTON_MIDDLE || (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_CONTROL))) {
        a->drag_mode = 3;
        grab_start(a, a->mx, a->my);
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT || (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT))) {
        a->drag_mode = 2;
    } else if (button == GLFW_MOUSE_BUTTON_LEFT) {
        a->drag_mode = 1;
    }
}

void app_cursor(app *a, double x, double y)
{
    double dx = x - a->mx, dy = y - a->my;
    a->mx = x, a->my = y;
    if (a->drag_mode == 1) {
        a->yaw -= 0.006 * dx;
        a->pitch += 0.006 * dy;
        if (a->pitch > 1.55) a->pitch = 1.55;
        if (a->pitch < -1.55) a->pitch = -1.55;
        update_camera(a);
    } else if (a->drag_mode == 2) {
        double k = 2.0 * a->dist * tan(0.5 * FOV) / (a->H > 0 ? a->H : 1);
        for (int i = 0; i < 3; i++) a->target[i] += k * (-dx * a->right[i] + dy * a->up[i]);
        update_camera(a);
    } else if (a->drag_mode == 3 && a->grabbing) {
        grab_move(a, x, y);
    }
}

void app_scroll(app *a, double dy)
{
    a->dist *= pow(0.88, dy);
    if (a->dist < 1e-3) a->dist = 1e-3;
    update_camera(a);
}

void app_drop(app *a, const char *path) { open_path(a, path); }

/* ---- script -------------------------------------------------------------- */

static int key_code(const char *s)
{
    static const struct { const char *name; int key; } names[] = {
        {"space", GLFW_KEY_SPACE}, {"enter", GLFW_KEY_ENTER}, {"escape", GLFW_KEY_ESCAPE}, {"tab", GLFW_KEY_TAB},
        {"backspace", GLFW_KEY_BACKSPACE}, {"right", GLFW_KEY_RIGHT}, {"f12", GLFW_KEY_F12}, {"[", GLFW_KEY_LEFT_BRACKET},
        {"]", GLFW_KEY_RIGHT_BRACKET}, {"-", GLFW_KEY_MINUS}, {"=", GLFW_KEY_EQUAL},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name)) return names[i].key;
    if (strlen(s) == 1 && isalpha((unsigned char)s[0])) return GLFW_KEY_A + (toupper((unsigned char)s[0]) - 'A');
    if (strlen(s) == 1 && isdigit((unsigned char)s[0])) return GLFW_KEY_0 + (s[0] - '0');
    return -1;
}

static int mods_of(char **tok, int ntok, int from)
{
    int m = 0;
    for (int i = from; i < ntok; i++) {
        if (!strcmp(tok[i], "shift")) m |= GLFW_MOD_SHIFT;
        if (!strcmp(tok[i], "ctrl")) m |= GLFW_MOD_CONTROL;
    }
    return m;
}

static int button_of(const char *s)
{
    if (!strcmp(s, "left")) return GLFW_MOUSE_BUTTON_LEFT;
    if (!strcmp(s, "right")) return GLFW_MOUSE_BUTTON_RIGHT;
    if (!strcmp(s, "middle")) return GLFW_MOUSE_BUTTON_MIDDLE;
    return -1;
}

static bool find_body(app *a, const char *name, mo_body_id *out)
{
    int n = mo_scene_file_bodies(a->scene, NULL, 0);
    mo_scene_body *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    if (!b) return false;
    n = mo_scene_file_bodies(a->scene, b, n);
    bool found = false;
    for (int i = 0; i < n && !found; i++)
        if (!strcmp(b[i].name, name)) *out = b[i].id, found = true;
    free(b);
    return found;
}

static void script_fail(app *a, const char *fmt, const char *arg)
{
    fprintf(stderr, "moreau-view: %s:%d: ", a->opt.script_path, a->script_line);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    a->quit = true;
    a->exit_code = 1;
}

/* FEM mesh ms's node ns (both from 0) and its position; false (script failed) when there is none */
static bool script_node(app *a, const char *ms, const char *ns, double *x)
{
    int m = atoi(ms), n = atoi(ns), nn = 0;
    gather_fem(a);
    if (m < 0 || m >= a->nfem) {
        script_fail(a, "no FEM mesh %s", ms);
        return false;
    }
    mo_vec3 p;
    mo_fem_mesh_counts(a->w, a->fem_ids[m], &nn, NULL);
    if (n < 0 || n >= nn || mo_fem_mesh_node_position(a->w, a->fem_ids[m], n, &p) != MO_OK) {
        script_fail(a, "no FEM node %s", ns);
        return false;
    }
    x[0] = p.x, x[1] = p.y, x[2] = p.z;
    return true;
}

/* runs commands until one that waits for frames; false at the end of the script */
static void script_run(app *a)
{
    char line[1200];
    while (a->script && a->script_wait == 0 && !a->quit) {
        if (!fgets(line, sizeof line, a->script)) {
            fclose(a->script);
            a->script = NULL;
            a->quit = true;
            return;
        }
        a->script_line++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *tok[16];
        int nt = 0;
        for (char *p = strtok(line, " \t\r\n"); p && nt < 16; p = strtok(NULL, " \t\r\n")) tok[nt++] = p;
        if (nt == 0) continue;
        const char *c = tok[0];
        if (!strcmp(c, "frames") && nt == 2) {
            a->script_wait = atoi(tok[1]);
        } else if (!strcmp(c, "key") && nt >= 2) {
            int k = key_code(tok[1]);
            if (k < 0) { script_fail(a, "unknown key '%s'", tok[1]); return; }
            int m = mods_of(tok, nt, 2);
            app_key(a, k, GLFW_PRESS, m);
            app_key(a, k, GLFW_RELEASE, m);
        } else if (!strcmp(c, "type") && nt >= 2) {
            for (int i = 1; i < nt; i++) {
                if (i > 1) app_char(a, ' ');
                for (const char *p = tok[i]; *p; p++) app_char(a, (unsigned char)*p);
            }
        } else if (!strcmp(c, "move") && (nt == 4 || nt == 6) && !strcmp(tok[1], "node")) {
            /* the cursor onto FEM mesh M's node N (both from 0, meshes in mo_world_fem_meshes order), plus an offset */
            double x[3], px, py;
            if (!script_node(a, tok[2], tok[3], x)) return;
            gfx_size(a->g, &a->W, &a->H);
            update_camera(a);
            if (!project(a, x, &px, &py)) {
                script_fail(a, "FEM node %s is behind the camera", tok[3]);
                return;
            }
            if (nt == 6) px += atof(tok[4]), py += atof(tok[5]);
            app_cursor(a, px, py);
        } else if (!strcmp(c, "move") && nt == 3 && strcmp(tok[1], "body") && strcmp(tok[1], "node")) {
            app_cursor(a, atof(tok[1]), atof(tok[2]));
        } else if (!strcmp(c, "move") && (nt == 3 || nt == 5) && !strcmp(tok[1], "body")) {
            /* the cursor onto a body's centre, plus an offset in pixels */
            mo_body_id id;
            mo_vec3 p;
            double x[3], px, py;
            if (!find_body(a, tok[2], &id) || mo_body_position(a->w, id, &p) != MO_OK) {
                script_fail(a, "no body named '%s'", tok[2]);
                return;
            }
            x[0] = p.x, x[1] = p.y, x[2] = p.z;
            gfx_size(a->g, &a->W, &a->H);
            update_camera(a);
            if (!project(a, x, &px, &py)) {
                script_fail(a, "body '%s' is behind the camera", tok[2]);
                return;
            }
            if (nt == 5) px += atof(tok[3]), py += atof(tok[4]);
            app_cursor(a, px, py);
        } else if ((!strcmp(c, "press") || !strcmp(c, "release")) && nt >= 2) {
            int b = button_of(tok[1]);
            if (b < 0) { script_fail(a, "unknown mouse button '%s'", tok[1]); return; }
            app_mouse_button(a, b, c[0] == 'p' ? GLFW_PRESS : GLFW_RELEASE, mods_of(tok, nt, 2));
        } else if (!strcmp(c, "moveby") && nt == 3) {
            app_cursor(a, a->mx + atof(tok[1]), a->my + atof(tok[2]));
        } else if (!strcmp(c, "scroll") && nt == 2) {
            app_scroll(a, atof(tok[1]));
        } else if (!strcmp(c, "drop") && nt == 2) {
            app_drop(a, tok[1]);
        } else if (!strcmp(c, "camera") && nt == 7) {
            a->yaw = atof(tok[1]) * VM_PI / 180, a->pitch = atof(tok[2]) * VM_PI / 180, a->dist = atof(tok[3]);
            for (int k = 0; k < 3; k++) a->target[k] = atof(tok[4 + k]);
            update_camera(a);
        } else if (!strcmp(c, "screenshot") && nt == 2) {
            render(a);
            if (app_screenshot(a, tok[1])) {
                a->quit = true;
                a->exit_code = 1;
            }
        } else if (!strcmp(c, "print") && nt >= 2) {
            if (!strcmp(tok[1], "step")) {
                printf("step %llu time %.6f paused %d hash %016llx\n", (unsigned long long)mo_scene_file_steps(a->scene),
                       mo_world_time(a->w), a->paused ? 1 : 0, (unsigned long long)mo_world_state_hash(a->w));
            } else if (!strcmp(tok[1], "camera")) {
                printf("camera yaw %.6f pitch %.6f dist %.6f target %.6f %.6f %.6f\n", a->yaw * 180 / VM_PI,
                       a->pitch * 180 / VM_PI, a->dist, a->target[0], a->target[1], a->target[2]);
            } else if (!strcmp(tok[1], "solver")) {
                mo_solver_settings s = mo_world_solver(a->w);
                printf("solver %s %d record %d last_iterations %d residuals %d\n", mo_solver_name(s.kind),
                       budget_of(&s, s.kind), s.record_residuals ? 1 : 0, a->st.iterations, a->res_count);
            } else if ((!strcmp(tok[1], "body") || !strcmp(tok[1], "project")) && nt == 3) {
                mo_body_id id;
                mo_vec3 p;
                if (!find_body(a, tok[2], &id) || mo_body_position(a->w, id, &p) != MO_OK)
                    { script_fail(a, "no body named '%s'", tok[2]); return; }
                if (tok[1][0] == 'b') {
                    printf("body %s %.6f %.6f %.6f\n", tok[2], p.x, p.y, p.z);
                } else {
                    double x[3] = {p.x, p.y, p.z}, px = -1, py = -1;
                    gfx_size(a->g, &a->W, &a->H);
                    update_camera(a);
                    project(a, x, &px, &py);
                    printf("project %s %.1f %.1f\n", tok[2], px, py);
                }
            } else if (!strcmp(tok[1], "node") && nt == 4) {
                double x[3], px = -1, py = -1;
                if (!script_node(a, tok[2], tok[3], x)) return;
                gfx_size(a->g, &a->W, &a->H);
                update_camera(a);
                project(a, x, &px, &py);
                printf("node %s %s %.6f %.6f %.6f pixel %.1f %.1f\n", tok[2], tok[3], x[0], x[1], x[2], px, py);
            } else if (!strcmp(tok[1], "particles") && nt == 2) {
                /* every particle drawn (not FEM nodes), in slot order: position, drawn radius, pixel */
                mo_debug_draw dd = mo_default_debug_draw();
                dd.user = a;
                dd.line = no_line;
                dd.point = print_particle;
                dd.point_size = 0;
                gfx_size(a->g, &a->W, &a->H);
                update_camera(a);
                a->print_count = 0;
                mo_world_debug_draw(a->w, &dd, MO_DRAW_PARTICLES);
                printf("particles %d\n", a->print_count);
            } else if (!strcmp(tok[1], "fem") && nt == 3) {
                /* mesh M: counts, volume, strain (the overlay's scale as of the last drawn frame) */
                int m = atoi(tok[2]), nn = 0, ne = 0, ntri = 0;
                gather_fem(a);
                if (m < 0 || m >= a->nfem) { script_fail(a, "no FEM mesh %s", tok[2]); return; }
                mo_fem_mesh_counts(a->w, a->fem_ids[m], &nn, &ne);
                mo_fem_mesh_surface(a->w, a->fem_ids[m], NULL, &ntri);
                double vol = 0, rest = 0, emax = 0;
                mo_fem_mesh_volume(a->w, a->fem_ids[m], &vol, &rest);
                double *e = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *e);
                if (e && mo_fem_mesh_element_strain(a->w, a->fem_ids[m], e, ne) == MO_OK)
                    for (int i = 0; i < ne; i++) emax = e[i] > emax ? e[i] : emax;
                free(e);
                /* the nodes' centroid and its pixel */
                double cx[3] = {0, 0, 0}, px = -1, py = -1;
                for (int i = 0; i < nn; i++)
                    for (int k = 0; k < 3; k++) cx[k] += a->fem_x[3 * (a->fem_first[m] + i) + k] / nn;
                gfx_size(a->g, &a->W, &a->H);
                update_camera(a);
                project(a, cx, &px, &py);
                printf("fem %d nodes %d elements %d triangles %d volume %.6f rest %.6f strain_max %.6g scale %.6g "
                       "grabbed %d center %.6f %.6f %.6f pixel %.1f %.1f\n", m, nn, ne, ntri, vol, rest, emax,
                       a->strain_scale, a->grabbing && a->grab_fem ? a->grab_node : -1, cx[0], cx[1], cx[2], px, py);
            } else {
                { script_fail(a, "unknown print '%s'", tok[1]); return; }
            }
            fflush(stdout);
        } else if (!strcmp(c, "quit")) {
            a->quit = true;
        } else {
            { script_fail(a, "unknown command '%s'", c); return; }
        }
    }
}

/* ---- frame ------------------------------------------------------------- */

void app_frame(app *a, double wall_dt)
{
    double t0 = now_s();
    if (a->script) script_run(a);
    if (a->quit) return;
    if (a->opt.fixed_step) wall_dt = mo_world_time_step(a->w);
    if (wall_dt > 0.1) wall_dt = 0.1;
    simulate(a, wall_dt);
    render(a);
    if (a->shot_requested) {
        a->shot_requested = false;
        char p[1100];
        snprintf(p, sizeof p, "%s-%04d.png", a->opt.shot_prefix ? a->opt.shot_prefix : "moreau-view", a->shot_count++);
        if (app_screenshot(a, p) == 0) message(a, "screenshot saved to %s", p);
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
    a->frame_ms = 1e3 * (now_s() - t0);
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
    if (load_scene(a, o->scene_path, false)) {
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
