/* test_viewer.c: moreau-view under Xvfb + Mesa, driven by scripts.
 *
 *   test_viewer VIEWER DATA_DIR OUT_DIR [SCENES_DIR]
 *
 * Starts Xvfb (-displayfd: it picks a free display) when DISPLAY is unset,
 * runs the viewer headless on small scenes with --script, and asserts on the
 * PNGs it writes (not blank, the sky, the ground and the box where the
 * viewer's own projection puts it, overlay colours only when enabled, HUD
 * text) and on what the scripts print (pause holds the state bit for bit,
 * single steps, solver switching, the camera under the mouse, dragging a box
 * up with the spring and letting it fall back, reset, opening and dropping
 * scene files). FEM meshes (issue 7): a block of tetrahedra drawn in its
 * colour where the viewer projects it; particles as spheres of their radius
 * (a point for radius 0); the strain overlay (key 8) colours a
 * stretched bar from the hot end of the ramp and a free one at rest in the
 * ramp's zero colour, with the legend in the HUD; a scripted ctrl+drag of a
 * node lifts it, release lets it fall back, reset rebuilds the mesh at rest.
 * Articulation skeletons (key 9): an arm without shapes (tests/viewer/data/
 * artic.lua) prints its 3 bones and 2 axes and shows bone-colour pixels only
 * while the overlay is on.
 * Bad input: missing and broken scene files, no display, bad options. Exits
 * 77 only when no OpenGL context can be made at all. */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"

static const char *viewer, *data_dir, *out_dir, *scenes_dir;
static pid_t xvfb_pid = -1;

static void stop_xvfb(void)
{
    if (xvfb_pid > 0) {
        kill(xvfb_pid, SIGTERM);
        waitpid(xvfb_pid, NULL, 0);
        xvfb_pid = -1;
    }
}

/* 0: a display is there (given or started); -1: none */
static int ensure_display(void)
{
    const char *d = getenv("DISPLAY");
    if (d && d[0]) return 0;
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        if (fd[1] != 3) {
            dup2(fd[1], 3);
            close(fd[1]);
        }
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 2), dup2(nul, 1);
        execlp("Xvfb", "Xvfb", "-displayfd", "3", "-screen", "0", "1280x720x24", "-nolisten", "tcp", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    xvfb_pid = pid;
    atexit(stop_xvfb);
    /* Xvfb writes the display number once it accepts connections */
    char buf[32] = "";
    size_t n = 0;
    struct pollfd p = {fd[0], POLLIN, 0};
    while (n < sizeof buf - 1 && poll(&p, 1, 15000) > 0) {
        ssize_t r = read(fd[0], buf + n, sizeof buf - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (memchr(buf, '\n', n)) break;
    }
    close(fd[0]);
    buf[n] = 0;
    int num = atoi(buf);
    if (n == 0 || (num == 0 && buf[0] != '0')) {
        fprintf(stderr, "test_viewer: Xvfb did not start (is the xvfb package installed?)\n");
        stop_xvfb();
        return -1;
    }
    char disp[32];
    snprintf(disp, sizeof disp, ":%d", num);
    setenv("DISPLAY", disp, 1);
    printf("started Xvfb on %s\n", disp);
    return 0;
}

/* ---- running the viewer ---- */

static char out_text[65536], err_text[65536];

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t r = fread(buf, 1, n - 1, f);
    buf[r] = 0;
    fclose(f);
}

/* runs the viewer with args (NULL-terminated), stdout/stderr into out_text/err_text;
   display: NULL = as set, else DISPLAY for the child; returns the exit code (-1 killed) */
static int run(const char *name, const char *display, ...)
{
    const char *argv[32];
    int argc = 0;
    argv[argc++] = viewer;
    va_list ap;
    va_start(ap, display);
    for (const char *a; argc < 31 && (a = va_arg(ap, const char *));) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    char po[1024], pe[1024];
    snprintf(po, sizeof po, "%s/%s.out", out_dir, name);
    snprintf(pe, sizeof pe, "%s/%s.err", out_dir, name);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(126);
        dup2(o, 1), dup2(e, 2);
        if (display) setenv("DISPLAY", display, 1);
        execv(viewer, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    /* 50 s is far beyond any of these runs (ASan builds included) */
    for (int i = 0; i < 1000; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (i == 999) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "%s: killed after 50 s\n", name);
            return -1;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    slurp(po, out_text, sizeof out_text);
    slurp(pe, err_text, sizeof err_text);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0) fprintf(stderr, "--- %s exited %d; stderr:\n%s---\n", name, code, err_text);
    return code;
}

static const char *write_script(const char *name, const char *text)
{
    static char path[8][1024];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 1024, "%s/%s.script", out_dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

static const char *data(const char *file)
{
    static char path[8][1024];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 1024, "%s/%s", data_dir, file);
    return p;
}

static const char *out(const char *file)
{
    static char path[8][1024];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 1024, "%s/%s", out_dir, file);
    return p;
}

/* the value after "key" in the first output line starting with prefix; NAN when absent */
static double field(const char *prefix, int nth_line, const char *key)
{
    const char *s = out_text;
    int seen = 0;
    size_t lp = strlen(prefix);
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= lp && !strncmp(s, prefix, lp) && seen++ == nth_line) {
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)len, s);
            char *k = strstr(line, key);
            if (!k) return NAN;
            return atof(k + strlen(key));
        }
        s += len + (e ? 1 : 0);
    }
    return NAN;
}

/* the word after "key" in the nth line starting with prefix ("" when absent) */
static const char *word(const char *prefix, int nth_line, const char *key)
{
    static char w[128];
    w[0] = 0;
    const char *s = out_text;
    int seen = 0;
    size_t lp = strlen(prefix);
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= lp && !strncmp(s, prefix, lp) && seen++ == nth_line) {
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)len, s);
            char *k = strstr(line, key);
            if (k) sscanf(k + strlen(key), "%127s", w);
            return w;
        }
        s += len + (e ? 1 : 0);
    }
    return w;
}

/* ---- images ---- */

typedef struct image { int w, h; unsigned char *rgb; } image;

static int read_png(const char *path, image *im)
{
    memset(im, 0, sizeof *im);
    png_image p;
    memset(&p, 0, sizeof p);
    p.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&p, path)) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    p.format = PNG_FORMAT_RGB;
    im->w = (int)p.width, im->h = (int)p.height;
    im->rgb = malloc(PNG_IMAGE_SIZE(p));
    if (!im->rgb || !png_image_finish_read(&p, NULL, im->rgb, 0, NULL)) {
        free(im->rgb);
        im->rgb = NULL;
        png_image_free(&p);
        return -1;
    }
    return 0;
}

static const unsigned char *px(const image *im, int x, int y) { return im->rgb + 3 * ((size_t)y * im->w + x); }

/* pixels of exactly this colour in [x0, x1) x [y0, y1) */
static int count_color(const image *im, unsigned rgb, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1 && y < im->h; y++)
        for (int x = x0; x < x1 && x < im->w; x++) {
            const unsigned char *p = px(im, x, y);
            n += p[0] == (rgb >> 16 & 255) && p[1] == (rgb >> 8 & 255) && p[2] == (rgb & 255);
        }
    return n;
}

/* pixels in the residual ramp (green - yellow - red, blue 0, one channel full) */
static int count_ramp(const image *im)
{
    int n = 0;
    for (int i = 0; i < im->w * im->h; i++) {
        const unsigned char *p = im->rgb + 3 * (size_t)i;
        n += p[2] == 0 && (p[0] == 255 || p[1] == 255);
    }
    return n;
}

static int distinct_colors(const image *im)
{
    static unsigned char seen[1 << 18];
    memset(seen, 0, sizeof seen);
    int n = 0;
    for (int i = 0; i < im->w * im->h; i++) {
        const unsigned char *p = im->rgb + 3 * (size_t)i;
        unsigned k = (unsigned)(p[0] >> 2) << 12 | (unsigned)(p[1] >> 2) << 6 | (unsigned)(p[2] >> 2);
        if (!seen[k]) seen[k] = 1, n++;
    }
    return n;
}

#define BG 0x292e38u /* the clear colour (0.16, 0.18, 0.22) */

static bool near_rgb(const unsigned char *p, unsigned rgb, int tol)
{
    return abs(p[0] - (int)(rgb >> 16 & 255)) <= tol && abs(p[1] - (int)(rgb >> 8 & 255)) <= tol &&
           abs(p[2] - (int)(rgb & 255)) <= tol;
}

/* ---- the tests ---- */

/* render the box scene; plain, with contacts + forces, with residual colours, with AABBs */
static void test_render(void)
{
    char text[4096];
    snprintf(text, sizeof text,
             "camera -60 10 4 0 0 0.25\n"
             "key g\n"
             "frames 20\n"
             "print project box\n"
             "print step\n"
             "screenshot %s/plain.png\n"
             "key 1\nkey 3\n"
             "frames 2\n"
             "screenshot %s/overlay.png\n"
             "key 1\nkey 3\nkey 7\n"
             "frames 2\n"
             "screenshot %s/residual.png\n"
             "key 7\nkey 5\n"
             "frames 1\n"
             "screenshot %s/aabb.png\n",
             out_dir, out_dir, out_dir, out_dir);
    const char *s = write_script("render", text);
    int code = run("render", NULL, data("box.lua"), "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    double bx = NAN, by = NAN;
    const char *pl = strstr(out_text, "project box ");
    if (pl) sscanf(pl, "project box %lf %lf", &bx, &by);
    CHECK(field("step", 0, "step ") == 20);
    image plain, ov, res, ab;
    if (read_png(out("plain.png"), &plain) || read_png(out("overlay.png"), &ov) ||
        read_png(out("residual.png"), &res) || read_png(out("aabb.png"), &ab)) {
        CHECK(!"screenshots readable");
        return;
    }
    CHECK(plain.w == 1280 && plain.h == 720);
    /* not blank */
    int dc = distinct_colors(&plain);
    printf("distinct colours (6 bits per channel): %d\n", dc);
    CHECK(dc >= 8); /* sky, ground, grid, three lit box faces, HUD panel and text */
    /* the box where the viewer projects its centre: a saturated body colour, not sky nor ground */
    CHECK(bx > 400 && bx < 880 && by > 200 && by < 600);
    if (bx > 0 && by > 0) {
        const unsigned char *p = px(&plain, (int)bx, (int)by);
        int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
        int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
        printf("box pixel (%.0f, %.0f): %d %d %d\n", bx, by, p[0], p[1], p[2]);
        CHECK(mx - mn > 40);
        /* and the same pixel 200 px to the side is not the box */
        const unsigned char *q = px(&plain, (int)bx + 200, (int)by);
        CHECK(!near_rgb(q, (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2], 8));
    }
    /* sky above the horizon: the clear colour; the ground below the box: grey, lit, not the sky */
    CHECK(near_rgb(px(&plain, 640, 160), BG, 1));
    const unsigned char *gp = px(&plain, 640, 700);
    printf("sky pixel: %d %d %d, ground pixel: %d %d %d\n", px(&plain, 640, 160)[0], px(&plain, 640, 160)[1],
           px(&plain, 640, 160)[2], gp[0], gp[1], gp[2]);
    CHECK(!near_rgb(gp, BG, 6));
    CHECK(abs(gp[0] - gp[1]) < 20 && abs(gp[1] - gp[2]) < 25 && gp[0] > 50);
    /* HUD text (white) in the top left */
    CHECK(count_color(&plain, 0xffffff, 0, 0, 900, 120) > 500);
    /* overlays: contact points (ff2020) and force arrows (ffd000) only when on */
    int c0 = count_color(&plain, 0xff2020, 0, 0, plain.w, plain.h), c1 = count_color(&ov, 0xff2020, 0, 0, ov.w, ov.h);
    int f0 = count_color(&plain, 0xffd000, 0, 0, plain.w, plain.h), f1 = count_color(&ov, 0xffd000, 0, 0, ov.w, ov.h);
    int r0 = count_ramp(&plain), r1 = count_ramp(&res);
    int a0 = count_color(&plain, 0xff40ff, 0, 0, plain.w, plain.h), a1 = count_color(&ab, 0xff40ff, 0, 0, ab.w, ab.h);
    printf("overlay pixels off/on: contacts %d/%d, forces %d/%d, residual ramp %d/%d, aabb %d/%d\n", c0, c1, f0, f1,
           r0, r1, a0, a1);
    CHECK(c0 == 0 && c1 >= 4 * 20);
    CHECK(f0 == 0 && f1 >= 40);
    CHECK(r0 == 0 && r1 >= 4 * 20);
    CHECK(a0 == 0 && a1 >= 200);
    /* the contact points sit near the bottom of the box, below its centre on screen */
    int below = count_color(&ov, 0xff2020, (int)bx - 150, (int)by, (int)bx + 150, (int)by + 150);
    CHECK(below == c1);
    free(plain.rgb), free(ov.rgb), free(res.rgb), free(ab.rgb);
}

/* pause, single steps, solver keys, orbit and zoom, drag the box up with the spring, release, reset */
static void test_input(void)
{
    const char *s = write_script("input", "camera -60 10 4 0 0 0.25\n"
                                          "frames 5\n"
                                          "key space\n"
                                          "print step\n"
                                          "frames 30\n"
                                          "print step\n"
                                          "key n\nkey n\nkey n\n"
                                          "frames 1\n"
                                          "print step\n"
                                          "key tab\nkey [\n"
                                          "print solver\n"
                                          "key tab shift\nkey ]\nkey ]\n"
                                          "print solver\n"
                                          "print camera\n"
                                          "move 100 300\npress left\nmoveby 50 0\nmoveby 50 -20\nrelease left\n"
                                          "scroll 1\n"
                                          "print camera\n"
                                          "camera -60 10 4 0 0 0.25\n"
                                          "key space\n"
                                          "move body box\n"
                                          "press left ctrl\n"
                                          "moveby 0 -30\nframes 2\nmoveby 0 -30\nframes 2\nmoveby 0 -30\nframes 2\n"
                                          "moveby 0 -30\nframes 2\nmoveby 0 -30\nframes 2\n"
                                          "frames 240\n"
                                          "print body box\n"
                                          "release left\n"
                                          "frames 240\n"
                                          "print body box\n"
                                          "print step\n"
                                          "key r\n"
                                          "print step\n"
                                          "print body box\n");
    int code = run("input", NULL, data("box.lua"), "--headless", "--script", s, "--size", "800x600", NULL);
    CHECK(code == 0);
    if (code) return;
    /* pause holds the state bit for bit; three single steps advance exactly three */
    double s0 = field("step", 0, "step "), s1 = field("step", 1, "step "), s2 = field("step", 2, "step ");
    CHECK(s0 == 5 && s1 == 5 && s2 == 8);
    CHECK(!strcmp(word("step", 0, "hash "), word("step", 1, "hash ")));
    CHECK(field("step", 1, "paused ") == 1);
    /* Tab: next solver (pgs -> jacobi); [ halves the budget; shift+Tab back; ] ] quadruples */
    CHECK(!strcmp(word("solver", 0, "solver "), "jacobi"));
    CHECK(field("solver", 0, "jacobi ") == 20);
    CHECK(field("solver", 0, "record ") == 1);
    CHECK(!strcmp(word("solver", 1, "solver "), "pgs"));
    CHECK(field("solver", 1, "pgs ") == 80);
    /* the stepped solves recorded their residual history */
    CHECK(field("solver", 0, "residuals ") > 0);
    /* left drag by (100, -20) px turns the camera by 0.006 rad per px; one wheel notch: distance x 0.88 */
    double y0 = field("camera", 0, "yaw "), y1 = field("camera", 1, "yaw ");
    double p0 = field("camera", 0, "pitch "), p1 = field("camera", 1, "pitch ");
    CHECK_NEAR(y1 - y0, -0.006 * 100 * 180 / 3.14159265358979, 1e-4);
    CHECK_NEAR(p1 - p0, 0.006 * -20 * 180 / 3.14159265358979, 1e-4);
    CHECK_NEAR(field("camera", 1, "dist "), 4 * 0.88, 1e-6);
    /* the spring lifted the box (150 px up at 4 m is about 0.75 m), it fell back once released */
    double z_up = NAN, z_down = NAN;
    {
        const char *l = strstr(out_text, "body box ");
        double x, y, z;
        if (l && sscanf(l, "body box %lf %lf %lf", &x, &y, &z) == 3) z_up = z;
        l = l ? strstr(l + 1, "body box ") : NULL;
        if (l && sscanf(l, "body box %lf %lf %lf", &x, &y, &z) == 3) z_down = z;
    }
    printf("box held at z = %.4f m, released at z = %.4f m\n", z_up, z_down);
    CHECK(z_up > 0.7 && z_up < 1.3);
    CHECK_NEAR(z_down, 0.25, 0.01);
    /* reset: step 0, the box back at its start */
    CHECK(field("step", 4, "step ") == 0);
    CHECK(strstr(out_text, "step 0 time 0.000000") != NULL);
    CHECK(strstr(out_text, "body box 0.000000 0.000000 0.250000") != NULL);
}

/* the path prompt and drag and drop: bad paths keep the scene and say why; a good one replaces it */
static void test_open(void)
{
    char text[4096];
    snprintf(text, sizeof text,
             "frames 2\n"
             "key o\ntype %s/no_such_scene.lua\nkey enter\n"
             "print body box\n"
             "key o\ntype %s\nkey enter\n"
             "print body box\n"
             "key o\ntype abc\nkey escape\n"
             "print body box\n"
             "drop %s\n"
             "frames 2\n"
             "print body ball\n"
             "print step\n",
             data_dir, data("broken.lua"), data("ball.lua"));
    const char *s = write_script("open", text);
    int code = run("open", NULL, data("box.lua"), "--headless", "--script", s, "--size", "320x240", NULL);
    CHECK(code == 0);
    CHECK(strstr(err_text, "no_such_scene.lua") != NULL);
    CHECK(strstr(err_text, "broken.lua:4:") != NULL);
    CHECK(strstr(out_text, "body box 0.000000 0.000000 0.250000") != NULL);
    /* three prints of the box: the scene survived both failures and the cancelled prompt */
    const char *p = out_text;
    int boxes = 0;
    while ((p = strstr(p, "body box "))) boxes++, p++;
    CHECK(boxes == 3);
    CHECK(strstr(out_text, "body ball 0.000000 0.000000 0.3") != NULL);
    CHECK(field("step", 0, "step ") == 2);
}

/* bad input and no display: plain messages and exit codes, never a crash */
static void test_errors(void)
{
    CHECK(run("missing", NULL, data("no_such.lua"), "--headless", "--frames", "1", NULL) == 1);
    CHECK(strstr(err_text, "cannot open") && strstr(err_text, "no_such.lua"));
    CHECK(run("broken", NULL, data("broken.lua"), "--headless", "--frames", "1", NULL) == 1);
    CHECK(strstr(err_text, "broken.lua:4:") != NULL);
    CHECK(run("nodisplay", "", data("box.lua"), NULL) == 3);
    CHECK(strstr(err_text, "no display") && strstr(err_text, "--headless") && strstr(err_text, "moreau-run"));
    CHECK(run("badopt", NULL, "--frobnicate", NULL) == 2);
    CHECK(strstr(err_text, "--frobnicate") != NULL);
    const char *s = write_script("badscript", "frames 1\nwiggle 3\n");
    CHECK(run("badscript", NULL, data("box.lua"), "--headless", "--script", s, "--size", "64x64", NULL) == 1);
    CHECK(strstr(err_text, "badscript.script:2: unknown command 'wiggle'") != NULL);
}

/* --set: engine settings by name over the scene's (kept by a reset), other names are the scene's
   param()s; a bad value is refused before anything opens */
static void test_set(void)
{
    const char *s = write_script("set", "print solver\nprint body box\nframes 1\nkey r\nprint solver\n");
    int code = run("set", NULL, data("param_box.lua"), "--headless", "--script", s, "--size", "64x64", "--set",
                   "solver.kind=apgd", "--set", "solver.iterations=7", "--set", "z=2", NULL);
    CHECK(code == 0);
    if (code) return;
    CHECK(!strcmp(word("solver", 0, "solver "), "apgd"));
    CHECK(field("solver", 0, "apgd ") == 7);
    CHECK(!strcmp(word("solver", 1, "solver "), "apgd"));
    CHECK(field("solver", 1, "apgd ") == 7);
    CHECK(strstr(out_text, "body box 0.000000 0.000000 2.000000") != NULL);
    CHECK(run("badset", NULL, data("param_box.lua"), "--headless", "--frames", "1", "--set", "solver.kind=magic",
              NULL) == 2);
    CHECK(strstr(err_text, "--set solver.kind=magic: solver.kind 'magic' is not one of pgs, jacobi, apgd, spg, cg, "
                           "minres, cholesky, newton") != NULL);
}

/* B: the backend cycles cpu -> cuda -> auto -> cpu, kept by a reset; the HUD's solver line and the
   statistics say where the solve ran. On the test device (tests/fake_cuda, $MOREAU_TEST_FAKE_CUDA) so
   that it runs without a GPU; a solver that runs on the CPU only is refused with the engine's sentence */
static void test_backend(void)
{
    const char *fake = getenv("MOREAU_TEST_FAKE_CUDA");
    if (!fake || !fake[0]) {
        printf("backend: no fake device module given, not run\n");
        return;
    }
    setenv("MOREAU_CUDA_MODULE", fake, 1);
    const char *s = write_script("backend", "frames 1\nprint solver\nkey b\nframes 1\nprint solver\n"
                                            "key r\nframes 1\nprint solver\nkey b\nframes 1\nprint solver\n"
                                            "key b\nframes 1\nprint solver\n");
    int code = run("backend", NULL, data("box.lua"), "--headless", "--script", s, "--size", "64x64", "--set",
                   "solver.kind=apgd", NULL);
    CHECK(code == 0);
    if (code == 0) {
        const char *want[5][2] = {{"cpu", "cpu"}, {"cuda", "cuda"}, {"cuda", "cuda"}, {"auto", "cpu"}, {"cpu", "cpu"}};
        for (int i = 0; i < 5; i++) {
            char b[64], l[64];
            snprintf(b, sizeof b, "%s", word("solver", i, "backend "));
            snprintf(l, sizeof l, "%s", word("solver", i, "last_backend "));
            CHECK(!strcmp(b, want[i][0]) && !strcmp(l, want[i][1]));
            if (strcmp(b, want[i][0]) || strcmp(l, want[i][1]))
                fprintf(stderr, "backend line %d: backend %s last_backend %s\n", i, b, l);
        }
        CHECK(strstr(err_text, "moreau-view: backend cuda (Moreau fake device (host memory))") != NULL);
    }
    const char *s2 = write_script("backend_pgs", "frames 1\nkey b\nframes 1\nprint solver\n");
    code = run("backend_pgs", NULL, data("box.lua"), "--headless", "--script", s2, "--size", "64x64", "--set",
               "solver.kind=pgs", NULL);
    CHECK(code == 0);
    CHECK(strstr(err_text, "moreau-view: solver 'pgs' runs on the cpu backend only; the cuda backend runs jacobi, "
                           "apgd, spg, cg, minres, newton") != NULL);
    CHECK(!strcmp(word("solver", 0, "backend "), "cpu"));
    unsetenv("MOREAU_CUDA_MODULE");
}

/* --record writes one PNG per frame; --frames + --screenshot */
static void test_record(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/record", out_dir);
    for (int i = 0; i < 8; i++) {
        char f[1100];
        snprintf(f, sizeof f, "%s/frame-%06d.png", dir, i);
        unlink(f);
    }
    int code = run("record", NULL, data("shapes.lua"), "--headless", "--frames", "3", "--record", dir, "--size",
                   "320x240", "--screenshot", out("shapes.png"), NULL);
    CHECK(code == 0);
    for (int i = 0; i < 4; i++) {
        char f[1100];
        snprintf(f, sizeof f, "%s/frame-%06d.png", dir, i);
        image im = {0, 0, NULL};
        int ok = access(f, F_OK) == 0 && read_png(f, &im) == 0;
        CHECK(ok == (i < 3));
        if (ok) {
            CHECK(im.w == 320 && im.h == 240 && distinct_colors(&im) > 20);
            free(im.rgb);
        }
    }
    image im;
    CHECK(read_png(out("shapes.png"), &im) == 0);
    if (im.rgb) {
        CHECK(im.w == 320 && im.h == 240);
        free(im.rgb);
    }
}

/* pixels of the arm's "orange" URDF material (0.95 0.5 0.1) as lit (colour x d, plus a little
   specular): red dominant, green about half of it, blue under a fifth (no body colour is like it) */
static int count_orange(const image *im, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < im->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < im->w; x++) {
            const unsigned char *p = px(im, x, y);
            double r = p[0], g = p[1], b = p[2];
            n += r > 60 && g > 0.42 * r && g < 0.62 * r && b < 0.2 * r;
        }
    return n;
}

/* a scene loading a URDF (scenes/robot_arm.lua): its links drawn with their visuals in their material
   colours; key C shows the collision shapes (body colours) instead, and again the visuals */
static void test_urdf_visuals(void)
{
    char scene[1024], text[4096];
    snprintf(scene, sizeof scene, "%s/robot_arm.lua", scenes_dir);
    snprintf(text, sizeof text,
             "camera -60 15 2.2 0 0 0.4\n"
             "key g\n"
             "frames 2\n"
             "print project link2\n"
             "screenshot %s/arm_visual.png\n"
             "key c\n"
             "frames 1\n"
             "screenshot %s/arm_collision.png\n"
             "key c\n"
             "frames 1\n"
             "screenshot %s/arm_visual2.png\n",
             out_dir, out_dir, out_dir);
    const char *s = write_script("urdf_visuals", text);
    int code = run("urdf_visuals", NULL, scene, "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    double lx = NAN, ly = NAN;
    const char *pl = strstr(out_text, "project link2 ");
    if (pl) sscanf(pl, "project link2 %lf %lf", &lx, &ly);
    bool inside = lx > 100 && lx < 1180 && ly > 100 && ly < 620;
    CHECK(inside);
    image vis, col, vis2;
    if (read_png(out("arm_visual.png"), &vis) || read_png(out("arm_collision.png"), &col) ||
        read_png(out("arm_visual2.png"), &vis2)) {
        CHECK(!"screenshots readable");
        return;
    }
    if (inside) {
        int x = (int)lx, y = (int)ly;
        const unsigned char *p = px(&vis, x, y), *q = px(&col, x, y);
        printf("link2 (orange) at (%d, %d): visuals %d %d %d, collision shapes %d %d %d\n", x, y, p[0], p[1], p[2],
               q[0], q[1], q[2]);
        CHECK(count_orange(&vis, x, y, x + 1, y + 1) == 1);
        int o_vis = count_orange(&vis, x - 40, y - 40, x + 40, y + 40);
        int o_col = count_orange(&col, x - 40, y - 40, x + 40, y + 40);
        int o_vis2 = count_orange(&vis2, x - 40, y - 40, x + 40, y + 40);
        printf("orange material pixels around link2: visuals %d, collision shapes %d, visuals again %d\n", o_vis,
               o_col, o_vis2);
        CHECK(o_vis > 1000);
        CHECK(o_col == 0);
        CHECK(o_vis2 > 1000);
    }
    free(vis.rgb), free(col.rgb), free(vis2.rgb);
}

/* "fem M ... pixel X Y" and "node M N ... pixel X Y": the nth line starting with prefix, its pixel */
static bool line_pixel(const char *prefix, int nth, double *x, double *y)
{
    *x = *y = NAN;
    double v = field(prefix, nth, "pixel ");
    if (isnan(v)) return false;
    const char *s = out_text;
    int seen = 0;
    size_t lp = strlen(prefix);
    while ((s = strstr(s, prefix))) {
        if ((s == out_text || s[-1] == '\n') && seen++ == nth) {
            const char *p = strstr(s, "pixel ");
            return p && sscanf(p, "pixel %lf %lf", x, y) == 2;
        }
        s += lp;
    }
    return false;
}

/* a pixel of the FEM meshes' first colour (0.93, 0.60, 0.78) lit: red over blue over green */
static bool is_pink(const unsigned char *p) { return p[0] > p[1] + 25 && p[2] > p[1] + 10 && p[0] + 4 >= p[2]; }
/* the strain ramp's zero colour (0.15, 0.35, 1.0) lit: blue well above red and green */
static bool is_cold(const unsigned char *p) { return p[2] > p[0] + 60 && p[2] > p[1] + 40; }
/* the ramp's upper half (green, yellow, red) lit: blue well below the largest channel */
static bool is_hot(const unsigned char *p) { return (p[0] > p[2] + 50 || p[1] > p[2] + 50); }

static int count_where(const image *im, bool (*f)(const unsigned char *), int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < im->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < im->w; x++) n += f(px(im, x, y));
    return n;
}

/* the particle colour (MO_DRAW_COLOR_PARTICLE c0ff40) lit: green over red over blue */
static bool is_lime(const unsigned char *p) { return p[1] > p[0] + 10 && p[0] > p[2] + 30; }

/* particles resting on the ground: spheres of their radius in the particle colour where the viewer
   projects them, one of radius 0 as a point of that colour */
static void test_particles(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "camera -90 15 1.5 0 0 0.05\n"
             "key g\n"
             "frames 30\n"
             "print particles\n"
             "screenshot %s/particles.png\n",
             out_dir);
    const char *s = write_script("particles", text);
    int code = run("particles", NULL, data("particles.lua"), "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    CHECK(field("particles ", 0, "particles ") == 3); /* the FEM-free scene's three particles, drawn */
    double x[3], y[3], r[3];
    for (int i = 0; i < 3; i++) {
        char pre[32];
        snprintf(pre, sizeof pre, "particle %d ", i);
        r[i] = field(pre, 0, "radius ");
        line_pixel(pre, 0, &x[i], &y[i]);
    }
    CHECK(r[0] == 0.1 && r[1] == 0.05 && r[2] == 0);
    image im;
    if (read_png(out("particles.png"), &im)) {
        CHECK(!"screenshot readable");
        return;
    }
    bool inside = true;
    for (int i = 0; i < 3; i++) inside = inside && x[i] > 200 && x[i] < 1080 && y[i] > 200 && y[i] < 600;
    CHECK(inside);
    if (inside) {
        const unsigned char *p0 = px(&im, (int)x[0], (int)y[0]), *p1 = px(&im, (int)x[1], (int)y[1]);
        printf("particles at (%.0f, %.0f) r 0.1: %d %d %d; (%.0f, %.0f) r 0.05: %d %d %d\n", x[0], y[0], p0[0], p0[1],
               p0[2], x[1], y[1], p1[0], p1[1], p1[2]);
        CHECK(is_lime(p0) && is_lime(p1));
        CHECK(!is_lime(px(&im, (int)x[0], (int)y[0] + 150)));
        /* the larger sphere covers more pixels (about 4 times) */
        int n0 = count_where(&im, is_lime, (int)x[0] - 80, (int)y[0] - 80, (int)x[0] + 80, (int)y[0] + 80);
        int n1 = count_where(&im, is_lime, (int)x[1] - 80, (int)y[1] - 80, (int)x[1] + 80, (int)y[1] + 80);
        int n2 = count_color(&im, 0xc0ff40, (int)x[2] - 6, (int)y[2] - 6, (int)x[2] + 7, (int)y[2] + 7);
        printf("particle pixels: r 0.1 %d, r 0.05 %d, point %d\n", n0, n1, n2);
        CHECK(n0 > 3 * n1 && n0 < 5 * n1);
        CHECK(n2 >= 12); /* a 7-pixel point, crossed by the ground's grid line */
    }
    free(im.rgb);
}

/* a corotational block of tetrahedra on the ground: drawn in the mesh colour where the viewer projects
   its nodes' centroid (and not 250 px aside); its 48 boundary triangles */
static void test_fem_render(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "camera -60 25 1.6 0 0 0.15\n"
             "key g\n"
             "frames 30\n"
             "print fem 0\n"
             "screenshot %s/fem_plain.png\n"
             "key 6\n"
             "frames 1\n"
             "screenshot %s/fem_wire.png\n"
             "print solver\n"
             "key ]\n"
             "key tab\n"
             "frames 1\n"
             "print solver\n",
             out_dir, out_dir);
    const char *s = write_script("fem_render", text);
    int code = run("fem_render", NULL, data("fem_block.lua"), "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    CHECK(field("fem 0", 0, "nodes ") == 27 && field("fem 0", 0, "elements ") == 48);
    CHECK(field("fem 0", 0, "triangles ") == 48); /* 2 x 2 x 2 cells: 6 faces x 4 squares x 2 */
    /* the budget of the Newton solver is its Newton iterations (8 in the scene): ] doubles them; Tab to
       pgs is refused by the engine while a mesh exists, with its sentence, and Newton stays */
    CHECK(!strcmp(word("solver", 0, "solver "), "newton") && field("solver", 0, "newton ") == 8);
    CHECK(!strcmp(word("solver", 1, "solver "), "newton") && field("solver", 1, "newton ") == 16);
    CHECK(field("solver", 1, "last_iterations ") == 16);
    CHECK(strstr(err_text, "FEM meshes need the newton solver: solver 'pgs' would ignore the world's 1 FEM mesh(es)") !=
          NULL);
    double cx, cy;
    CHECK(line_pixel("fem 0", 0, &cx, &cy));
    CHECK(cx > 400 && cx < 880 && cy > 200 && cy < 600);
    image plain, wire;
    if (read_png(out("fem_plain.png"), &plain) || read_png(out("fem_wire.png"), &wire)) {
        CHECK(!"screenshots readable");
        return;
    }
    if (cx > 400 && cx < 880 && cy > 200 && cy < 600) {
        const unsigned char *p = px(&plain, (int)cx, (int)cy), *q = px(&plain, (int)cx - 250, (int)cy);
        printf("FEM block centroid pixel (%.0f, %.0f): %d %d %d; 250 px left: %d %d %d\n", cx, cy, p[0], p[1], p[2],
               q[0], q[1], q[2]);
        CHECK(is_pink(p));
        CHECK(!is_pink(q));
        int near = count_where(&plain, is_pink, (int)cx - 100, (int)cy - 100, (int)cx + 100, (int)cy + 100);
        int all = count_where(&plain, is_pink, 0, 0, plain.w, plain.h);
        /* the wireframe overlay draws the surface as lines: most of the block's pixels show through */
        int wired = count_where(&wire, is_pink, 0, 0, wire.w, wire.h);
        printf("mesh-coloured pixels: %d within 100 px of the centroid, %d in all; wireframe %d\n", near, all, wired);
        CHECK(near > 20000 && all < near + 20000);
        CHECK(wired > 100 && wired < all / 4);
    }
    free(plain.rgb), free(wire.rgb);
}

/* a bar stretched by its fixed end faces and a free bar at rest: the strain overlay colours the first
   from the ramp's upper half and the second in its zero colour; without it both keep their mesh
   colours; the legend sits below the HUD */
static void test_fem_strain(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "camera -60 15 1.5 0 0 0.25\n"
             "key g\n"
             "frames 40\n"
             "print fem 0\n"
             "print fem 1\n"
             "screenshot %s/strain_off.png\n"
             "key 8\n"
             "frames 1\n"
             "print fem 0\n"
             "print fem 1\n"
             "screenshot %s/strain_on.png\n",
             out_dir, out_dir);
    const char *s = write_script("fem_strain", text);
    int code = run("fem_strain", NULL, data("fem_stretch.lua"), "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    double e0 = field("fem 0", 1, "strain_max "), e1 = field("fem 1", 1, "strain_max ");
    double x0, y0, x1, y1;
    CHECK(line_pixel("fem 0", 1, &x0, &y0) && line_pixel("fem 1", 1, &x1, &y1));
    printf("strain: pulled bar max |E|_F %.4f, free bar %.3g, colour scale top %g\n", e0, e1,
           field("fem 0", 1, "scale "));
    CHECK(e0 > 0.3 && e0 < 1.0);
    CHECK(e1 < 1e-12);
    CHECK(field("fem 0", 1, "scale ") == 1); /* the largest node strain rounded up in 1, 2, 5 x 10^k */
    image off, on;
    if (read_png(out("strain_off.png"), &off) || read_png(out("strain_on.png"), &on)) {
        CHECK(!"screenshots readable");
        return;
    }
    bool inside = x0 > 100 && x0 < 1180 && y0 > 150 && y0 < 700 && x1 > 100 && x1 < 1180 && y1 > 150 && y1 < 700;
    CHECK(inside);
    if (inside) {
        const unsigned char *a0 = px(&off, (int)x0, (int)y0), *a1 = px(&on, (int)x0, (int)y0);
        const unsigned char *b0 = px(&off, (int)x1, (int)y1), *b1 = px(&on, (int)x1, (int)y1);
        printf("pulled bar (%.0f, %.0f): %d %d %d -> %d %d %d; free bar (%.0f, %.0f): %d %d %d -> %d %d %d\n", x0, y0,
               a0[0], a0[1], a0[2], a1[0], a1[1], a1[2], x1, y1, b0[0], b0[1], b0[2], b1[0], b1[1], b1[2]);
        /* overlay off: the meshes' own colours (pink, light cyan) */
        CHECK(is_pink(a0));
        CHECK(b0[2] > b0[0] + 20 && b0[1] > b0[0] + 20);
        /* on: strained hot, unstrained the zero colour */
        CHECK(is_hot(a1) && !is_cold(a1));
        CHECK(is_cold(b1));
        /* over each bar's neighbourhood (the bars are 150 px apart on screen) */
        int hot0 = count_where(&on, is_hot, (int)x0 - 60, (int)y0 - 150, (int)x0 + 60, (int)y0 + 150);
        int hot1 = count_where(&on, is_hot, (int)x1 - 60, (int)y1 - 150, (int)x1 + 60, (int)y1 + 150);
        int cold1 = count_where(&on, is_cold, (int)x1 - 60, (int)y1 - 150, (int)x1 + 60, (int)y1 + 150);
        int cold_off = count_where(&off, is_cold, (int)x1 - 60, (int)y1 - 150, (int)x1 + 60, (int)y1 + 150);
        printf("hot pixels: pulled bar %d, free bar %d; zero-colour pixels on the free bar %d (%d without overlay)\n",
               hot0, hot1, cold1, cold_off);
        CHECK(hot0 > 5000 && hot1 == 0 && cold1 > 5000 && cold_off == 0);
    }
    /* the legend: the ramp's cold and hot ends below the HUD, only with the overlay */
    int leg_on = count_where(&on, is_cold, 0, 140, 400, 230), leg_off = count_where(&off, is_cold, 0, 140, 400, 230);
    CHECK(leg_on > 100 && leg_off == 0);
    free(off.rgb), free(on.rgb);
}

/* ctrl+drag a node of the block 100 px up: it rises with the block (the spring carries the mesh's
   weight); released, the block falls back; reset rebuilds the mesh at rest */
static void test_fem_drag(void)
{
    const char *s = write_script("fem_drag", "camera -60 25 1.6 0 0 0.15\n"
                                             "frames 30\n"
                                             "print node 0 22\n"
                                             "move node 0 22 3 2\n"
                                             "press left ctrl\n"
                                             "print fem 0\n"
                                             "moveby 0 -25\nframes 2\nmoveby 0 -25\nframes 2\n"
                                             "moveby 0 -25\nframes 2\nmoveby 0 -25\n"
                                             "frames 60\n"
                                             "print node 0 22\n"
                                             "release left\n"
                                             "frames 90\n"
                                             "print node 0 22\n"
                                             "print fem 0\n"
                                             "key r\n"
                                             "print node 0 22\n"
                                             "print step\n"
                                             "print fem 0\n");
    int code = run("fem_drag", NULL, data("fem_block.lua"), "--headless", "--script", s, NULL);
    CHECK(code == 0);
    if (code) return;
    double z[4];
    for (int i = 0; i < 4; i++) {
        z[i] = NAN;
        const char *l = out_text;
        for (int k = 0; k <= i && l; k++) l = strstr(k ? l + 1 : l, "node 0 22 ");
        double x, y;
        if (l) sscanf(l, "node 0 22 %lf %lf %lf", &x, &y, &z[i]);
    }
    printf("top-centre node z: at rest %.4f, dragged %.4f, released %.4f, after reset %.6f\n", z[0], z[1], z[2], z[3]);
    CHECK(field("fem 0", 0, "grabbed ") == 22); /* the node nearest the cursor's hit on the top face */
    CHECK(z[0] > 0.28 && z[0] < 0.302);           /* the block sags a little under its weight */
    CHECK(z[1] > z[0] + 0.1);                      /* 100 px at 1.6 m: about 0.17 m up */
    CHECK(field("fem 0", 1, "grabbed ") == -1);
    CHECK(z[2] > 0.28 && z[2] < 0.31);            /* back on the ground */
    CHECK(strstr(out_text, "node 0 22 0.000000 0.000000 0.302000") != NULL);
    CHECK(field("step", 0, "step ") == 0);
    CHECK(field("fem 0", 2, "nodes ") == 27 && field("fem 0", 2, "strain_max ") == 0);
}

/* key 9: the articulations' skeletons (MO_DRAW_SKELETON) of an arm without shapes, in the bone colour
   (MO_DRAW_COLOR_SKELETON ffa040, drawn unlit over everything) only while the overlay is on */
static void test_skeleton(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "camera -70 10 2.0 0.3 0 0.4\n"
             "key g\n"
             "frames 2\n"
             "print skeleton\n"
             "screenshot %s/skeleton_off.png\n"
             "key 9\n"
             "frames 1\n"
             "print skeleton\n"
             "screenshot %s/skeleton_on.png\n"
             "key 9\n"
             "frames 1\n"
             "screenshot %s/skeleton_off2.png\n",
             out_dir, out_dir, out_dir);
    const char *s = write_script("skeleton", text);
    int code = run("skeleton", NULL, data("artic.lua"), "--headless", "--script", s, "--size", "800x600", NULL);
    CHECK(code == 0);
    if (code) return;
    /* 3 bones (upper, fore, hand) and 2 axes (the revolute and prismatic joints) */
    CHECK(strstr(out_text, "skeleton articulations 1 lines 5 bones 3 axes 2 overlay 0\n") != NULL);
    CHECK(strstr(out_text, "skeleton articulations 1 lines 5 bones 3 axes 2 overlay 1\n") != NULL);
    image off, on, off2;
    if (read_png(out("skeleton_off.png"), &off) || read_png(out("skeleton_on.png"), &on) ||
        read_png(out("skeleton_off2.png"), &off2)) {
        CHECK(!"screenshots readable");
        return;
    }
    /* below the HUD and above the message line */
    int n_off = count_color(&off, 0xffa040u, 0, 150, 800, 560), n_on = count_color(&on, 0xffa040u, 0, 150, 800, 560),
        n_off2 = count_color(&off2, 0xffa040u, 0, 150, 800, 560);
    printf("skeleton: bone-colour pixels off %d, on %d, off again %d\n", n_off, n_on, n_off2);
    CHECK(n_off == 0 && n_off2 == 0);
    CHECK(n_on > 200);
    free(off.rgb), free(on.rgb), free(off2.rgb);
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: test_viewer VIEWER DATA_DIR OUT_DIR [SCENES_DIR]\n");
        return 2;
    }
    viewer = argv[1], data_dir = argv[2], out_dir = argv[3], scenes_dir = argc == 5 ? argv[4] : NULL;
    if (ensure_display()) {
        printf("SKIP: no display and Xvfb could not be started\n");
        return 77;
    }
    /* can a GL 3.3 context be made at all? */
    int code = run("probe", NULL, data("box.lua"), "--headless", "--frames", "1", "--size", "64x64", NULL);
    if (code == 3) {
        printf("SKIP: no OpenGL 3.3 core context: %s\n", err_text);
        return 77;
    }
    CHECK(code == 0);
    test_render();
    test_input();
    test_open();
    test_errors();
    test_record();
    test_set();
    test_backend();
    if (scenes_dir) test_urdf_visuals();
    test_particles();
    test_fem_render();
    test_fem_strain();
    test_fem_drag();
    test_skeleton();
    return check_result_counted("viewer");
}
