/* moreau-view: the interactive viewer for Moreau scene files.
 *
 *   moreau-view [SCENE] [--headless --frames N --screenshot FILE] [--script FILE] [--record DIR] [--size WxH]
 *
 * The window (GLFW, OpenGL 3.3 core) only carries events and shows what the
 * app (app.h) draws into an offscreen framebuffer; --headless draws into a
 * hidden window (under Xvfb where there is no display). Exit codes: 0 done, 1 bad input (a
 * scene or script that cannot be read, a PNG that cannot be written),
 * 2 usage, 3 no display or no OpenGL 3.3 context. */
#include <GLFW/glfw3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <moreau/moreau.h>

#include "app.h"
#include "gfx.h"

/* Sanitizer builds: Mesa's DRI driver (swrast_dri.so, Mesa 22.3) keeps two
 * 56-byte blocks reachable only from its own static data; glfwTerminate closes
 * the X display, which dlcloses the driver, and LeakSanitizer's end-of-process
 * check then sees them as leaked (they are not reported when the driver is
 * kept loaded: checked with an LD_PRELOADed dlclose that skips swrast_dri.so).
 * Their stacks end inside the unloaded driver, so no suppression pattern can
 * name them. So the leak check runs once everything of ours is freed and the
 * window destroyed, before glfwTerminate unloads the driver. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define CHECK_LEAKS_BEFORE_GL_UNLOAD() __lsan_do_leak_check()
#else
#define CHECK_LEAKS_BEFORE_GL_UNLOAD() ((void)0)
#endif

#ifndef MO_SCENES_DIR
#define MO_SCENES_DIR "scenes"
#endif

static char glfw_err[512];

static void on_glfw_error(int code, const char *desc)
{
    snprintf(glfw_err, sizeof glfw_err, "GLFW error %d: %s", code, desc);
}

static app *the_app;
static double cursor_scale = 1.0;

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)w, (void)scancode;
    app_key(the_app, key, action, mods);
}
static void on_char(GLFWwindow *w, unsigned cp)
{
    (void)w;
    app_char(the_app, cp);
}
static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)w;
    app_mouse_button(the_app, button, action, mods);
}
static void on_cursor(GLFWwindow *w, double x, double y)
{
    (void)w;
    app_cursor(the_app, x * cursor_scale, y * cursor_scale);
}
static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)w, (void)dx;
    app_scroll(the_app, dy);
}
static void on_drop(GLFWwindow *w, int n, const char **paths)
{
    (void)w;
    if (n > 0) app_drop(the_app, paths[0]);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: moreau-view [SCENE] [options]\n"
               "  SCENE               a Lua scene file, or a catalogue name (stack20, b4_wall, ...);\n"
               "                      default scenes/stack20.lua\n"
               "  --headless          render offscreen in a hidden window (no display needed beyond Xvfb)\n"
               "  --frames N          frames to run with --headless (default 120; one step of h per frame)\n"
               "  --screenshot FILE   write the last frame as PNG (headless)\n"
               "  --script FILE       drive the viewer from a script (keys, mouse, frames, prints)\n"
               "  --record DIR        write every frame as DIR/frame-NNNNNN.png\n"
               "  --size WxH          framebuffer size (default 1280x720)\n"
               "  --set NAME=VALUE    an engine setting by name (docs/settings.md; over the scene's own), else\n"
               "                      the value of param(NAME, default) in the scene file (repeatable)\n"
               "  --help              this text; the key bindings are shown by H in the viewer\n");
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* the scene argument: a path, or a catalogue name looked up in ./scenes and the source tree's scenes/ */
static void resolve_scene(const char *arg, char *out, size_t n)
{
    if (!arg) arg = "stack20";
    if (is_file(arg) || strchr(arg, '/')) {
        snprintf(out, n, "%s", arg);
        return;
    }
    const char *ext = strstr(arg, ".lua") ? "" : ".lua";
    snprintf(out, n, "scenes/%s%s", arg, ext);
    if (is_file(out)) return;
    snprintf(out, n, "%s/%s%s", MO_SCENES_DIR, arg, ext);
    if (is_file(out)) return;
    snprintf(out, n, "%s", arg); /* not found: the loader says so */
}

int main(int argc, char **argv)
{
#ifdef MO_BUILD_CUDA_MODULE
    /* run from the build tree: the CUDA module built beside it, unless $MOREAU_CUDA_MODULE names one */
    const char *cm = getenv("MOREAU_CUDA_MODULE");
    if ((!cm || !cm[0]) && access(MO_BUILD_CUDA_MODULE, F_OK) == 0) setenv("MOREAU_CUDA_MODULE", MO_BUILD_CUDA_MODULE, 1);
#endif
    const char *scene_arg = NULL, *shot = NULL, *script = NULL, *record = NULL;
    const char *sets[64];
    int nsets = 0;
    bool headless = false;
    int frames = -1, width = 1280, height = 720;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--headless")) {
            headless = true;
        } else if (!strcmp(a, "--frames") && more) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 100000000) {
                fprintf(stderr, "moreau-view: --frames wants a whole number >= 0, got '%s'\n", argv[i]);
                return 2;
            }
            frames = (int)v;
        } else if (!strcmp(a, "--screenshot") && more) {
            shot = argv[++i];
        } else if (!strcmp(a, "--script") && more) {
            script = argv[++i];
        } else if (!strcmp(a, "--set") && more) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            char name[128], err[512];
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - v) : 0, v);
            mo_world_def d = mo_default_world_def();
            if (!eq || eq == v || nsets == 64) {
                fprintf(stderr, "moreau-view: --set wants NAME=VALUE (at most 64), got '%s'\n", v);
                return 2;
            }
            if (mo_setting_find(name) && mo_world_def_set(&d, name, eq + 1, err, sizeof err) != MO_OK) {
                fprintf(stderr, "moreau-view: --set %s: %s\n", v, err);
                return 2;
            }
            sets[nsets++] = v;
        } else if (!strcmp(a, "--record") && more) {
            record = argv[++i];
        } else if (!strcmp(a, "--size") && more) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width < 16 || height < 16 || width > 8192 ||
                height > 8192) {
                fprintf(stderr, "moreau-view: --size wants WxH (16..8192), got '%s'\n", argv[i]);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "moreau-view: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        } else if (!scene_arg) {
            scene_arg = a;
        } else {
            fprintf(stderr, "moreau-view: one scene at a time (got '%s' and '%s')\n", scene_arg, a);
            return 2;
        }
    }
    if (shot && !headless && !script) {
        fprintf(stderr, "moreau-view: --screenshot goes with --headless (or a --script); in the window press P\n");
        return 2;
    }
    if (frames < 0) frames = 120;
    char scene[1024];
    resolve_scene(scene_arg, scene, sizeof scene);

    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        const char *disp = getenv("DISPLAY"), *way = getenv("WAYLAND_DISPLAY");
        if ((!disp || !disp[0]) && (!way || !way[0]))
            fprintf(stderr, "moreau-view: no display (DISPLAY is not set), so no window can be opened.\n");
        else
            fprintf(stderr, "moreau-view: cannot open the display '%s' (%s).\n", disp ? disp : way, glfw_err);
        fprintf(stderr, "  To render offscreen without a display, run it under a virtual X server:\n"
                        "    xvfb-run -a moreau-view %s --headless --frames 240 --screenshot out.png\n"
                        "  To run the scene without graphics (figures, CSV): moreau-run %s\n",
                scene_arg ? scene_arg : "scenes/stack20.lua", scene_arg ? scene_arg : "stack20");
        return 3;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, headless ? GLFW_FALSE : GLFW_TRUE);
    GLFWwindow *win = glfwCreateWindow(width, height, "moreau-view", NULL, NULL);
    if (!win) {
        fprintf(stderr, "moreau-view: cannot make an OpenGL 3.3 core context (%s)\n", glfw_err);
        glfwTerminate();
        return 3;
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(headless ? 0 : 1);

    int fbw = width, fbh = height;
    if (!headless) glfwGetFramebufferSize(win, &fbw, &fbh);
    char err[1200];
    gfx *g = gfx_create(fbw, fbh, err, sizeof err);
    if (!g) {
        fprintf(stderr, "moreau-view: %s\n", err);
        glfwDestroyWindow(win);
        CHECK_LEAKS_BEFORE_GL_UNLOAD();
        glfwTerminate();
        return 3;
    }
    app_options o = {0};
    o.scene_path = scene;
    o.fixed_step = headless || script;
    o.script_path = script;
    o.record_dir = record;
    o.sets = sets;
    o.nsets = nsets;
    app *a = app_create(g, &o, err, sizeof err);
    if (!a) {
        fprintf(stderr, "moreau-view: %s\n", err);
        gfx_destroy(g);
        glfwDestroyWindow(win);
        CHECK_LEAKS_BEFORE_GL_UNLOAD();
        glfwTerminate();
        return 1;
    }
    the_app = a;
    glfwSetKeyCallback(win, on_key);
    glfwSetCharCallback(win, on_char);
    glfwSetMouseButtonCallback(win, on_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);
    glfwSetDropCallback(win, on_drop);

    int code = 0;
    if (headless) {
        /* a script drives the frames itself; else run the frames asked for */
        for (int f = 0; script ? !app_should_quit(a) : f < frames && !app_should_quit(a); f++) app_frame(a, 0.0);
        code = app_exit_code(a);
        if (code == 0 && shot && app_screenshot(a, shot)) code = 1;
    } else {
        double last = glfwGetTime();
        while (!glfwWindowShouldClose(win) && !app_should_quit(a)) {
            glfwPollEvents();
            int ww, wh;
            glfwGetFramebufferSize(win, &fbw, &fbh);
            glfwGetWindowSize(win, &ww, &wh);
            cursor_scale = ww > 0 ? (double)fbw / ww : 1.0;
            if (fbw > 0 && fbh > 0) gfx_resize(g, fbw, fbh);
            double t = glfwGetTime();
            app_frame(a, t - last);
            last = t;
            gfx_present(g, fbw, fbh);
            glfwSwapBuffers(win);
        }
        code = app_exit_code(a);
        if (code == 0 && shot && app_screenshot(a, shot)) code = 1;
    }
    app_destroy(a);
    gfx_destroy(g);
    glfwDestroyWindow(win);
    CHECK_LEAKS_BEFORE_GL_UNLOAD();
    glfwTerminate();
    return code;
}
