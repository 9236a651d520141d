/* app_script.c: moreau-view's test script: one command a line (keys, typed
 * text, cursor moves onto bodies and FEM nodes, buttons, scrolls, drops, the
 * camera, screenshots, prints of the state for the viewer test), run until a
 * command waits for frames. */
#include "app_internal.h"

#include <GLFW/glfw3.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/articulation.h>
#include <moreau/debug_draw.h>

/* ---- script -------------------------------------------------------------- */

/* print particles: one line per particle drawn */
static void print_particle(void *user, mo_vec3 p, double size, uint32_t c)
{
    (void)c;
    app *a = user;
    double x[3] = {p.x, p.y, p.z}, px = -1, py = -1;
    app_project(a, x, &px, &py);
    printf("particle %d %.6f %.6f %.6f radius %.6f pixel %.1f %.1f\n", a->print_count++, p.x, p.y, p.z, size, px, py);
}

/* print skeleton: counts the segments MO_DRAW_SKELETON draws, bones (print_count) and axes (print_count2) */
static void count_segment(void *user, mo_vec3 p, mo_vec3 q, uint32_t c)
{
    (void)p, (void)q;
    app *a = user;
    if (c == MO_DRAW_COLOR_SKELETON) a->print_count++;
    else a->print_count2++;
}

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
    app_gather_fem(a);
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

/* pixel of world point x with the framebuffer's size and camera now; false (px, py untouched) behind
   the camera */
static bool script_project(app *a, const double *x, double *px, double *py)
{
    gfx_size(a->g, &a->W, &a->H);
    app_update_camera(a);
    return app_project(a, x, px, py);
}

/* the cursor onto world point x, plus the pixel offset in off[0], off[1] when off is not NULL; false
   (script failed: fmt with arg) when x is behind the camera */
static bool script_cursor_to(app *a, const double *x, char *const *off, const char *fmt, const char *arg)
{
    double px, py;
    if (!script_project(a, x, &px, &py)) {
        script_fail(a, fmt, arg);
        return false;
    }
    if (off) px += atof(off[0]), py += atof(off[1]);
    app_cursor(a, px, py);
    return true;
}

/* runs commands until one that waits for frames; false at the end of the script */
void app_script_run(app *a)
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
            double x[3];
            if (!script_node(a, tok[2], tok[3], x)) return;
            if (!script_cursor_to(a, x, nt == 6 ? tok + 4 : NULL, "FEM node %s is behind the camera", tok[3]))
                return;
        } else if (!strcmp(c, "move") && nt == 3 && strcmp(tok[1], "body") && strcmp(tok[1], "node")) {
            app_cursor(a, atof(tok[1]), atof(tok[2]));
        } else if (!strcmp(c, "move") && (nt == 3 || nt == 5) && !strcmp(tok[1], "body")) {
            /* the cursor onto a body's centre, plus an offset in pixels */
            mo_body_id id;
            mo_vec3 p;
            double x[3];
            if (!find_body(a, tok[2], &id) || mo_body_position(a->w, id, &p) != MO_OK) {
                script_fail(a, "no body named '%s'", tok[2]);
                return;
            }
            x[0] = p.x, x[1] = p.y, x[2] = p.z;
            if (!script_cursor_to(a, x, nt == 5 ? tok + 3 : NULL, "body '%s' is behind the camera", tok[2]))
                return;
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
            app_update_camera(a);
        } else if (!strcmp(c, "screenshot") && nt == 2) {
            app_render(a);
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
                printf("solver %s %d record %d last_iterations %d residuals %d backend %s last_backend %s\n",
                       mo_solver_name(s.kind), app_solver_budget(&s, s.kind), s.record_residuals ? 1 : 0,
                       a->st.iterations, a->res_count, mo_backend_name(mo_world_backend(a->w)),
                       mo_backend_name(a->st.backend));
            } else if ((!strcmp(tok[1], "body") || !strcmp(tok[1], "project")) && nt == 3) {
                mo_body_id id;
                mo_vec3 p;
                if (!find_body(a, tok[2], &id) || mo_body_position(a->w, id, &p) != MO_OK)
                    { script_fail(a, "no body named '%s'", tok[2]); return; }
                if (tok[1][0] == 'b') {
                    printf("body %s %.6f %.6f %.6f\n", tok[2], p.x, p.y, p.z);
                } else {
                    double x[3] = {p.x, p.y, p.z}, px = -1, py = -1;
                    script_project(a, x, &px, &py);
                    printf("project %s %.1f %.1f\n", tok[2], px, py);
                }
            } else if (!strcmp(tok[1], "node") && nt == 4) {
                double x[3], px = -1, py = -1;
                if (!script_node(a, tok[2], tok[3], x)) return;
                script_project(a, x, &px, &py);
                printf("node %s %s %.6f %.6f %.6f pixel %.1f %.1f\n", tok[2], tok[3], x[0], x[1], x[2], px, py);
            } else if (!strcmp(tok[1], "particles") && nt == 2) {
                /* every particle drawn (not FEM nodes), in slot order: position, drawn radius, pixel */
                mo_debug_draw dd = mo_default_debug_draw();
                dd.user = a;
                dd.line = app_no_line;
                dd.point = print_particle;
                dd.point_size = 0;
                gfx_size(a->g, &a->W, &a->H);
                app_update_camera(a);
                a->print_count = 0;
                mo_world_debug_draw(a->w, &dd, MO_DRAW_PARTICLES);
                printf("particles %d\n", a->print_count);
            } else if (!strcmp(tok[1], "skeleton") && nt == 2) {
                /* the skeleton overlay's segments as of now (drawn or not: "overlay" says whether key 9 shows it) */
                mo_debug_draw dd = mo_default_debug_draw();
                dd.user = a;
                dd.line = count_segment;
                a->print_count = a->print_count2 = 0;
                mo_world_debug_draw(a->w, &dd, MO_DRAW_SKELETON);
                printf("skeleton articulations %d lines %d bones %d axes %d overlay %d\n",
                       mo_world_articulations(a->w, NULL, 0), a->print_count + a->print_count2, a->print_count,
                       a->print_count2, a->ov[OV_SKELETON] ? 1 : 0);
            } else if (!strcmp(tok[1], "fem") && nt == 3) {
                /* mesh M: counts, volume, strain (the overlay's scale as of the last drawn frame) */
                int m = atoi(tok[2]), nn = 0, ne = 0, ntri = 0;
                app_gather_fem(a);
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
                script_project(a, cx, &px, &py);
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
