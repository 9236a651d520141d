/* app_input.c: moreau-view's camera (orbit, pan, zoom, pixel rays and
 * projection), grabbing bodies and FEM nodes with a spring, the actions of
 * the solver panel, and the key, character, mouse, scroll and drop events. */
#include "app_internal.h"

#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- camera ------------------------------------------------------------ */

void app_update_camera(app *a)
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
bool app_project(const app *a, const double *p, double *px, double *py)
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
    app_message(a, "grab: FEM mesh %d node %d", i, node);
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
    if (app_fem_pick(a, a->eye, dir, &tf, &fm, &fn) && (!body_hit || tf < hit.distance)) {
        grab_fem_node(a, fm, fn, dir);
        return;
    }
    if (!body_hit) {
        app_message(a, "grab: nothing under the cursor");
        return;
    }
    mo_shape_info si;
    if (mo_shape_get_info(a->w, hit.shape, &si) != MO_OK || si.body_type != MO_BODY_DYNAMIC) {
        app_message(a, "grab: that body is not dynamic");
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
    if (app_gather_fem(a))
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

void app_grab_force(app *a)
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

/* ---- actions ------------------------------------------------------------- */

static void set_solver(app *a, mo_solver_kind k)
{
    mo_solver_settings cur = mo_world_solver(a->w);
    a->solver_override = true;
    a->solver_kind = k;
    a->solver_iterations = app_solver_budget(&cur, k);
    app_apply_solver(a);
    app_message(a, "solver %s, %d iterations", mo_solver_name(a->solver_kind), a->solver_iterations);
}

static void set_iterations(app *a, int it)
{
    mo_solver_settings cur = mo_world_solver(a->w);
    if (it < 1) it = 1;
    if (it > (cur.kind == MO_SOLVER_NEWTON ? 1000 : 100000)) it = cur.kind == MO_SOLVER_NEWTON ? 1000 : 100000;
    a->solver_override = true;
    a->solver_kind = cur.kind;
    a->solver_iterations = it;
    app_apply_solver(a);
    app_message(a, "solver %s, %d iterations", mo_solver_name(a->solver_kind), a->solver_iterations);
}

/* B: the next backend (cpu -> cuda -> auto); a refusal (no device, a solver that runs on the CPU only)
 * is shown and the world keeps its backend */
static void next_backend(app *a)
{
    mo_backend b = (mo_backend)(((int)mo_world_backend(a->w) + 1) % MO_BACKEND_COUNT);
    if (mo_world_set_backend(a->w, b) != MO_OK) {
        app_message(a, "%s", mo_world_last_error(a->w));
        return;
    }
    a->backend_override = true;
    a->backend = b;
    const char *dev = mo_world_device_name(a->w);
    app_message(a, "backend %s%s%s%s", mo_backend_name(b), dev[0] ? " (" : "", dev, dev[0] ? ")" : "");
}

static void do_action(app *a, int act)
{
    if (act >= ACT_SOLVER0 && act < ACT_SOLVER0 + MO_SOLVER_COUNT) set_solver(a, (mo_solver_kind)(act - ACT_SOLVER0));
    else if (act == ACT_ITER_DOWN || act == ACT_ITER_UP) {
        mo_solver_settings cur = mo_world_solver(a->w);
        int b = app_solver_budget(&cur, cur.kind);
        set_iterations(a, act == ACT_ITER_DOWN ? b / 2 : b * 2);
    }
}

static void open_path(app *a, const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    app_load_scene(a, p, false);
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
        app_load_scene(a, p, true);
        break;
    }
    case GLFW_KEY_Z:
        a->speed = a->speed == 1.0 ? 0.25 : 1.0;
        app_message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_MINUS:
        if (a->speed > 1.0 / 64) a->speed *= 0.5;
        app_message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_EQUAL:
        if (a->speed < 8) a->speed *= 2;
        app_message(a, "speed x%g", a->speed);
        break;
    case GLFW_KEY_F: app_frame_scene(a); break;
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
    case GLFW_KEY_8:
    case GLFW_KEY_9: {
        int i = key - GLFW_KEY_1;
        a->ov[i] = !a->ov[i];
        app_message(a, "%s %s", app_overlay_names[i], a->ov[i] ? "on" : "off");
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
        app_message(a, "%s", a->show_collision ? "collision shapes" : "URDF visuals (where a scene loaded them)");
        break;
    case GLFW_KEY_G: a->show_plots = !a->show_plots; break;
    case GLFW_KEY_B: next_backend(a); break;
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
        app_update_camera(a);
    } else if (a->drag_mode == 2) {
        double k = 2.0 * a->dist * tan(0.5 * FOV) / (a->H > 0 ? a->H : 1);
        for (int i = 0; i < 3; i++) a->target[i] += k * (-dx * a->right[i] + dy * a->up[i]);
        app_update_camera(a);
    } else if (a->drag_mode == 3 && a->grabbing) {
        grab_move(a, x, y);
    }
}

void app_scroll(app *a, double dy)
{
    a->dist *= pow(0.88, dy);
    if (a->dist < 1e-3) a->dist = 1e-3;
    app_update_camera(a);
}

void app_drop(app *a, const char *path) { open_path(a, path); }
