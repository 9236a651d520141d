/* app_draw.c: moreau-view's drawing of the world: bodies' collision shapes
 * (meshes of hulls and triangle meshes cached per shape), planes with a grid,
 * URDF visuals, the debug-draw overlays and the grab line, and the frame's
 * render pass (the HUD and plots: app_hud.c). */
#include "app_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/debug_draw.h>
#include <moreau/import.h>

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

void app_draw_part(app *a, int mesh, const double *p, const double *R, const double *s, const float *c)
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
    app_draw_part(a, GFX_MESH_QUAD, o, R, s, c);
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
        app_message(a, "visual mesh not drawn (collision shapes instead): %s", err);
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
        app_draw_part(a, mesh, p, R, sc, c);
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
    int n = app_refresh_shapes(a);
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
            app_draw_part(a, GFX_MESH_BOX, p, R, sc, c);
            break;
        }
        case MO_SHAPE_SPHERE: {
            double sc[3] = {s.radius, s.radius, s.radius};
            app_draw_part(a, GFX_MESH_SPHERE, p, R, sc, c);
            break;
        }
        case MO_SHAPE_CYLINDER: {
            double sc[3] = {s.radius, s.radius, s.half_height};
            app_draw_part(a, GFX_MESH_CYLINDER, p, R, sc, c);
            break;
        }
        case MO_SHAPE_CAPSULE: {
            double sc[3] = {s.radius, s.radius, s.half_height}, sr[3] = {s.radius, s.radius, s.radius};
            app_draw_part(a, GFX_MESH_CYLINDER, p, R, sc, c);
            for (int e = -1; e <= 1; e += 2) {
                double pe[3];
                for (int k = 0; k < 3; k++) pe[k] = p[k] + e * s.half_height * R[3 * k + 2];
                app_draw_part(a, GFX_MESH_SPHERE, pe, R, sr, c);
            }
            break;
        }
        case MO_SHAPE_CONVEX_HULL:
        case MO_SHAPE_MESH: {
            int m = shape_mesh(a, a->shapes[i], &s);
            double one[3] = {1, 1, 1};
            if (m > 0) app_draw_part(a, m, p, R, one, c);
            break;
        }
        case MO_SHAPE_PLANE: draw_plane(a, p, R, c); break;
        default: break;
        }
    }
    app_draw_particles(a);
    app_draw_fem(a);
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
    if (a->ov[OV_SKELETON]) flags |= MO_DRAW_SKELETON;
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
                    double f = sqrt(ct[i].force.x * ct[i].force.x + ct[i].force.y * ct[i].force.y +
                                    ct[i].force.z * ct[i].force.z);
                    if (f > fmax) fmax = f;
                }
                free(ct);
            }
        }
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

void app_render(app *a)
{
    gfx_size(a->g, &a->W, &a->H);
    app_update_camera(a);
    gfx_begin(a->g, &a->vp, a->eye);
    draw_shapes(a);
    gfx_flush_3d(a->g, 0);
    draw_overlays(a);
    gfx_flush_3d(a->g, 1);
    a->nhits = 0;
    if (a->show_hud) app_draw_hud(a);
    if (a->show_plots) app_draw_plots(a);
    if (a->show_help) app_draw_help(a);
    gfx_flush_2d(a->g);
}
