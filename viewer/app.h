/* app.h: moreau-view's state and behaviour, apart from the window: the scene
 * and its stepping (real time or fixed steps per frame), the camera, picking
 * and dragging, overlays, HUD, plots, solver panel, the path prompt and the
 * test script. Input arrives through the app_* event functions, from GLFW
 * callbacks or from the script (the same code path). Uses GLFW's key and
 * button codes. */
#ifndef MO_VIEW_APP_H
#define MO_VIEW_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "gfx.h"

typedef struct app app;

typedef struct app_options {
    const char *scene_path;   /* scene file to open */
    bool fixed_step;          /* each frame advances speed * h of simulated time (headless, scripts) instead of
                                 following the wall clock */
    const char *script_path;  /* NULL: none */
    const char *record_dir;   /* NULL: none; else one PNG per frame there */
    const char *shot_prefix;  /* screenshots by key: PREFIX-NNNN.png; default "moreau-view" */
    const char *const *sets;  /* --set NAME=VALUE: engine settings by name (applied over the scene's at every
                                 load and reset), else the scene file's param(NAME, default); NULL when nsets is 0 */
    int nsets;
} app_options;

/* Opens the scene; NULL with a sentence in err when it cannot be opened or the script cannot be read. */
app *app_create(gfx *g, const app_options *o, char *err, size_t err_size);
void app_destroy(app *a);

/* One frame: script commands, simulation, drawing into the gfx framebuffer, recording.
 * wall_dt is the wall time since the previous frame (ignored with fixed_step). */
void app_frame(app *a, double wall_dt);
/* true once the user or the script asked to quit; the process exit code then */
bool app_should_quit(const app *a);
int app_exit_code(const app *a);
/* whether a script is running (it drives the frames) */
bool app_script_active(const app *a);
/* saves the current frame as a PNG; 0 or -1 (sentence printed) */
int app_screenshot(app *a, const char *path);

/* events, pixel coordinates of the framebuffer from the top left */
void app_key(app *a, int key, int action, int mods);
void app_char(app *a, unsigned codepoint);
void app_mouse_button(app *a, int button, int action, int mods);
void app_cursor(app *a, double x, double y);
void app_scroll(app *a, double dy);
void app_drop(app *a, const char *path);

#endif
