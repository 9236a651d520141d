/* app_hud.c: moreau-view's 2-D layer: the HUD (scene, step statistics,
 * overlays, strain legend), the solver panel with its click targets, the
 * message line and path prompt, the help box and the plots (residual per
 * iteration, iterations and milliseconds per step). */
#include "app_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *app_overlay_names[OV_COUNT] = {"contacts", "normals", "forces", "joints", "aabbs", "wireframe",
                                         "residuals", "strain", "skeleton"};

/* ---- HUD, panels, plots --------------------------------------------------- */

static void add_hit(app *a, float x, float y, float w, float h, int action)
{
    if (a->nhits < (int)(sizeof a->hits / sizeof a->hits[0])) a->hits[a->nhits++] = (hit_rect){x, y, w, h, action};
}

void app_draw_hud(app *a)
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
    snprintf(buf, sizeof buf, "solver %s on %s  iterations %d / %d  residual %.3g  coulomb %.3g%s",
             mo_solver_name(ss.kind), mo_backend_name(s->backend), s->iterations, app_solver_budget(&ss, ss.kind),
             s->residual, s->coulomb_error, s->converged ? "  converged" : "");
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
            n += snprintf(buf + n, sizeof buf - (size_t)n, " %d%s%s", i + 1, a->ov[i] ? "+" : "-", app_overlay_names[i]);
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
                     app_strain_color((i + 0.5) / nb));
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
    snprintf(buf, sizeof buf, "it %d", app_solver_budget(&ss, ss.kind));
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
    } else if (a->msg[0] && app_now() - a->msg_time < 6.0) {
        gfx_rect(g, 0, (float)a->H - LINE_H - 12, (float)(strlen(a->msg) * CHAR_W + 16), LINE_H + 12, 0x000000a0u);
        gfx_text(g, 8, (float)a->H - LINE_H - 6, a->msg, 0xffe080ffu, TEXT_SCALE);
    } else {
        gfx_text(g, 8, (float)a->H - LINE_H - 6, "H: help", 0xa0a8b0ffu, TEXT_SCALE);
    }
}

void app_draw_help(app *a)
{
    static const char *help =
        "mouse: left drag orbit | right drag (or shift+left) pan | wheel zoom\n"
        "       ctrl+left (or middle) drag: grab a body or FEM node (spring)\n"
        "Space pause/run   N step   R reset   Z slow motion   - = speed /2 x2\n"
        "F frame the scene   O open a scene (or drop a file)   P / F12 screenshot\n"
        "1 contacts 2 normals 3 forces 4 joints 5 AABBs 6 wireframe 7 residuals\n"
        "8 FEM strain colours (|E|_F per node, scale in the HUD)\n"
        "9 articulation skeletons (bones between link origins, joint axes)\n"
        "Tab / shift+Tab solver   [ ] iterations /2 x2   G plots   H help\n"
        "B backend cpu / cuda / auto   C collision shapes instead of URDF visuals\n"
        "Esc / Q quit";
    float w = 74 * CHAR_W + 24, h = 10 * LINE_H + 24, x = 0.5f * ((float)a->W - w), y = 0.5f * ((float)a->H - h);
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

void app_draw_plots(app *a)
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
