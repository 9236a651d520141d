/* app_fem.c: moreau-view's FEM meshes and particles: the meshes' nodes and
 * strains gathered per frame, their surfaces drawn in the mesh colour or by
 * strain, particles drawn as spheres, and picking a mesh's node along a ray. */
#include "app_internal.h"

#include <math.h>
#include <stdlib.h>

#include <moreau/debug_draw.h>

/* FEM meshes' colours (cycled by the mesh's place in mo_world_fem_meshes) */
static const float fem_palette[3][3] = {{0.93f, 0.60f, 0.78f}, {0.55f, 0.85f, 0.90f}, {0.92f, 0.86f, 0.50f}};
#define STRAIN_SCALE_MIN 1e-3 /* the strain colour scale never goes below this |E|_F */

/* ---- FEM meshes and particles ----------------------------------------- */

/* the world's FEM meshes and their nodes' positions now (fem_ids, fem_first, fem_x); false out of memory */
bool app_gather_fem(app *a)
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
uint32_t app_strain_color(double t)
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
void app_draw_fem(app *a)
{
    if (!app_gather_fem(a) || a->nfem == 0) return;
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
                for (int j = 0; j < 3; j++) c[j] = app_strain_color(E[v[j]] / a->strain_scale);
            gfx_tri(a->g, p0, p1, p2, n, c);
        }
    }
    gfx_flush_tris(a->g);
}


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
    app_draw_part(a, GFX_MESH_SPHERE, x, R, sc, col);
}

void app_no_line(void *user, mo_vec3 p, mo_vec3 q, uint32_t c) { (void)user, (void)p, (void)q, (void)c; }

void app_draw_particles(app *a)
{
    mo_debug_draw dd = mo_default_debug_draw();
    dd.user = a;
    dd.line = app_no_line;
    dd.point = particle_sphere;
    dd.point_size = 0; /* particles of radius 0: points */
    mo_world_debug_draw(a->w, &dd, MO_DRAW_PARTICLES);
}

/* the nearest FEM boundary triangle along the ray o + t d (Moller-Trumbore, both sides): its distance,
   the mesh's place in fem_ids and the triangle's vertex nearest the hit */
bool app_fem_pick(app *a, const double *o, const double *d, double *t_out, int *mesh, int *node)
{
    if (!app_gather_fem(a)) return false;
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

