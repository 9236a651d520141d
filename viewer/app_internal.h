/* app_internal.h: what moreau-view's app_*.c files share: the app state,
 * its constants and the functions one file calls in another (app.h is the
 * interface to main.c). */
#ifndef MO_VIEW_APP_INTERNAL_H
#define MO_VIEW_APP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <moreau/moreau.h>
#include <moreau/scene.h>

#include "app.h"
#include "font.h"
#include "vmath.h"

#define HIST 1200          /* steps kept for the per-step plots (10 s at h = 1/120) */
#define FOV (45.0 * VM_PI / 180.0)
#define TEXT_SCALE 2
#define LINE_H (MO_FONT_CELL_H * TEXT_SCALE)
#define CHAR_W (MO_FONT_CELL_W * TEXT_SCALE)

enum { OV_POINTS, OV_NORMALS, OV_FORCES, OV_JOINTS, OV_AABBS, OV_WIRE, OV_RESIDUALS, OV_STRAIN, OV_SKELETON, OV_COUNT };
/* the overlays' names, shown in the HUD and the messages (app_hud.c) */
extern const char *app_overlay_names[OV_COUNT];

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
    bool backend_override;     /* B chose a backend: kept across reloads */
    mo_backend backend;
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
    int print_count, print_count2;   /* script: particles printed; skeleton bones and axes counted */
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

/* ---- app.c ---- */

/* wall-clock seconds (monotonic) */
double app_now(void);
/* the message line (and stderr, unless in app_create) */
void app_message(app *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* the world's shapes into a->shapes; their count */
int app_refresh_shapes(app *a);
/* points the camera at every bounded shape (planes excluded), particle and FEM mesh */
void app_frame_scene(app *a);
/* the iteration budget the viewer shows and changes (Newton: iterations per step) */
int app_solver_budget(const mo_solver_settings *s, mo_solver_kind k);
/* the viewer's solver choice into the world (residuals recorded) */
void app_apply_solver(app *a);
/* loads path; keeps the current scene when it fails. reset: same scene again, camera kept */
int app_load_scene(app *a, const char *path, bool reset);

/* ---- app_input.c ---- */

/* eye, axes and view-projection from yaw, pitch, distance and target */
void app_update_camera(app *a);
/* pixel of a world point; false behind the camera */
bool app_project(const app *a, const double *p, double *px, double *py);
/* the grab spring's force on the grabbed body or FEM mesh, before a step */
void app_grab_force(app *a);

/* ---- app_fem.c ---- */

/* the world's FEM meshes and their nodes' positions now (fem_ids, fem_first, fem_x); false out of memory */
bool app_gather_fem(app *a);
/* the strain colour ramp at t in [0, 1] (0xRRGGBBAA) */
uint32_t app_strain_color(double t);
/* every FEM mesh's boundary surface; the particles */
void app_draw_fem(app *a);
void app_draw_particles(app *a);
/* a debug-draw line callback that draws nothing */
void app_no_line(void *user, mo_vec3 p, mo_vec3 q, uint32_t c);
/* the nearest FEM boundary triangle along the ray o + t d: its distance, the mesh's place in fem_ids and
   the triangle's vertex nearest the hit */
bool app_fem_pick(app *a, const double *o, const double *d, double *t_out, int *mesh, int *node);

/* ---- app_draw.c ---- */

/* a lit mesh at position p, rotation R, scale s, colour c */
void app_draw_part(app *a, int mesh, const double *p, const double *R, const double *s, const float *c);
/* the frame: world, overlays, HUD, plots, help */
void app_render(app *a);

/* ---- app_hud.c ---- */

void app_draw_hud(app *a);
void app_draw_help(app *a);
void app_draw_plots(app *a);

/* ---- app_script.c ---- */

/* runs commands until one that waits for frames */
void app_script_run(app *a);

#endif
