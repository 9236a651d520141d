/* scenes_builtin.c: stack20, heavy_stack, pile1000, chain1000, b1_net,
 * b2_spheres, b3_plates, b4_wall (SCENES.md), mixed1000 and pile:N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenes_builtin.h"

const char *const mo_scene_names[] = {"stack20",  "heavy_stack", "pile1000",  "chain1000", "b1_net",
                                      "b2_spheres", "b3_plates", "b4_wall", "mixed1000", NULL};

/* deterministic jitter in [-1, 1] (SCENES.md pile1000) */
static double jitter(int i, int salt)
{
    unsigned x = (unsigned)i * 2654435761u + (unsigned)salt * 40503u + 12345u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return ((double)(x & 0xffff) / 32767.5) - 1.0;
}

static mo_status ground(mo_world *w, mo_scene *sc, double mu)
{
    mo_body_def d = mo_default_body_def();
    d.type = MO_BODY_STATIC;
    d.shape.type = MO_SHAPE_PLANE;
    d.shape.friction = mu;
    return mo_body_create(w, &d, &sc->ground);
}

static int alloc_bodies(mo_scene *sc, int n)
{
    sc->nbodies = n;
    sc->bodies = (mo_body_id *)calloc((size_t)n, sizeof *sc->bodies);
    sc->start = (mo_vec3 *)calloc((size_t)n, sizeof *sc->start);
    sc->half_height = (double *)calloc((size_t)n, sizeof *sc->half_height);
    return sc->bodies && sc->start && sc->half_height;
}

#define TRY(x)                               \
    do {                                     \
        mo_status s_ = (x);                  \
        if (s_ != MO_OK) {                   \
            snprintf(err, err_size, "%s", mo_world_last_error(w)); \
            return s_;                       \
        }                                    \
    } while (0)

mo_status mo_scene_build(const char *name, mo_world *w, mo_scene *sc, char *err, size_t err_size)
{
    memset(sc, 0, sizeof *sc);
    sc->name = name;
    TRY(mo_world_set_gravity(w, (mo_vec3){0, 0, -9.81}));
    TRY(mo_world_set_time_step(w, 1.0 / 120.0));
    const double mu = 0.5;
    if (!strcmp(name, "stack20") || !strcmp(name, "heavy_stack")) {
        int heavy = !strcmp(name, "heavy_stack"), n = heavy ? 10 : 20;
        sc->kind = MO_SCENE_STACK;
        sc->default_steps = 1200;
        if (!alloc_bodies(sc, n)) return MO_ERR_OUT_OF_MEMORY;
        TRY(ground(w, sc, mu));
        for (int i = 0; i < n; i++) {
            mo_body_def d = mo_default_body_def();
            d.shape.type = MO_SHAPE_BOX;
            d.shape.half_extents = (mo_vec3){0.25, 0.25, 0.25};
            d.shape.friction = mu;
            d.mass = heavy ? (double)(1 << i) : 1.0;
            d.position = (mo_vec3){0, 0, 0.25 + 0.5 * i};
            TRY(mo_body_create(w, &d, &sc->bodies[i]));
            sc->start[i] = d.position;
            sc->half_height[i] = 0.25;
        }
        return MO_OK;
    }
    if (!strcmp(name, "b3_plates")) {
        /* SCENES.md B3: 20 steel plates 1 x 1 m (density 7800) of alternating thickness
           0.01 / 0.2 m (78 kg / 1560 kg, 1:20), mu 0.3, stacked on the ground */
        const int n = 20;
        const double mu3 = 0.3;
        sc->kind = MO_SCENE_STACK;
        sc->default_steps = 1200;
        if (!alloc_bodies(sc, n)) return MO_ERR_OUT_OF_MEMORY;
        TRY(ground(w, sc, mu3));
        double z = 0.0;
        for (int i = 0; i < n; i++) {
            double hz = (i % 2 == 0) ? 0.005 : 0.1;
            mo_body_def d = mo_default_body_def();
            d.shape.type = MO_SHAPE_BOX;
            d.shape.half_extents = (mo_vec3){0.5, 0.5, hz};
            d.shape.friction = mu3;
            d.mass = 7800.0 * 1.0 * 1.0 * 2.0 * hz;
            d.position = (mo_vec3){0, 0, z + hz};
            z += 2.0 * hz;
            TRY(mo_body_create(w, &d, &sc->bodies[i]));
            sc->start[i] = d.position;
            sc->half_height[i] = hz;
        }
        return MO_OK;
    }
    if (!strcmp(name, "b1_net")) {
        /* SCENES.md B1: a 40 x 25 net of 1000 spheres (r 0.05, 1 kg, 0.15 apart) in the
           vertical x-z plane, each joined to its right, lower and lower-right neighbours by
           distance joints (rest lengths 0.15 and 0.15 sqrt 2), the top row pinned to the
           world by spherical joints; no collision geometry: a bilateral-only problem of
           975 + 960 + 936 distance rows and 120 pin rows */
        const int nx = 40, nz = 25;
        const double a = 0.15, r = 0.05;
        sc->kind = MO_SCENE_CHAIN;
        sc->default_steps = 600;
        if (!alloc_bodies(sc, nx * nz)) return MO_ERR_OUT_OF_MEMORY;
        int nj = nx + (nx - 1) * nz + nx * (nz - 1) + (nx - 1) * (nz - 1);
        sc->joints = (mo_joint_id *)calloc((size_t)nj, sizeof *sc->joints);
        if (!sc->joints) return MO_ERR_OUT_OF_MEMORY;
        for (int iz = 0; iz < nz; iz++)
            for (int ix = 0; ix < nx; ix++) {
                int k = iz * nx + ix;
                mo_body_def d = mo_default_body_def();
                d.mass = 1.0;
                double I = 0.4 * r * r;
                d.inertia.m[0][0] = d.inertia.m[1][1] = d.inertia.m[2][2] = I;
                d.position = (mo_vec3){a * ix, 0, -a * iz};
                TRY(mo_body_create(w, &d, &sc->bodies[k]));
                sc->start[k] = d.position;
                sc->half_height[k] = r;
            }
        int j = 0;
        for (int ix = 0; ix < nx; ix++) {
            mo_joint_def jd = mo_default_joint_def();
            jd.type = MO_JOINT_SPHERICAL;
            jd.body_b = sc->bodies[ix];
            jd.anchor_a = sc->start[ix]; /* world point at the sphere's centre */
            TRY(mo_joint_create(w, &jd, &sc->joints[j++]));
        }
        static const int nb[3][2] = {{1, 0}, {0, 1}, {1, 1}}; /* right, lower, lower-right */
        for (int iz = 0; iz < nz; iz++)
            for (int ix = 0; ix < nx; ix++)
                for (int q = 0; q < 3; q++) {
                    int jx = ix + nb[q][0], jz = iz + nb[q][1];
                    if (jx >= nx || jz >= nz) continue;
                    mo_joint_def jd = mo_default_joint_def();
                    jd.type = MO_JOINT_DISTANCE;
                    jd.body_a = sc->bodies[iz * nx + ix];
                    jd.body_b = sc->bodies[jz * nx + jx];
                    TRY(mo_joint_create(w, &jd, &sc->joints[j++]));
                }
        sc->njoints = j;
        return MO_OK;
    }
    if (!strcmp(name, "pile1000") || !strcmp(name, "b2_spheres")) {
        /* b2_spheres (SCENES.md B2) is pile1000 without friction: a unilateral-only problem
           once the spheres have settled */
        const double pmu = !strcmp(name, "b2_spheres") ? 0.0 : 0.5;
        sc->kind = MO_SCENE_PILE;
        sc->default_steps = 600;
        sc->box_half = 1.0;
        if (!alloc_bodies(sc, 1000)) return MO_ERR_OUT_OF_MEMORY;
        TRY(ground(w, sc, pmu));
        /* open box: inner faces at x, y = +-1, walls 0.1 thick and 4 m high */
        const double t = 0.05, hh = 2.0;
        const double walls[4][6] = {{t, 1.0 + 2 * t, hh, 1.0 + t, 0, hh},
                                    {t, 1.0 + 2 * t, hh, -1.0 - t, 0, hh},
                                    {1.0, t, hh, 0, 1.0 + t, hh},
                                    {1.0, t, hh, 0, -1.0 - t, hh}};
        for (int k = 0; k < 4; k++) {
            mo_body_def d = mo_default_body_def();
            d.type = MO_BODY_STATIC;
            d.shape.type = MO_SHAPE_BOX;
            d.shape.half_extents = (mo_vec3){walls[k][0], walls[k][1], walls[k][2]};
            d.shape.friction = pmu;
            d.position = (mo_vec3){walls[k][3], walls[k][4], walls[k][5]};
            mo_body_id id;
            TRY(mo_body_create(w, &d, &id));
        }
        for (int k = 0; k < 1000; k++) {
            int l = k / 81, iy = (k % 81) / 9, ix = k % 9;
            mo_body_def d = mo_default_body_def();
            d.shape.type = MO_SHAPE_SPHERE;
            d.shape.radius = 0.1;
            d.shape.friction = pmu;
            d.mass = 1.0;
            d.position = (mo_vec3){-0.84 + 0.21 * ix + 0.004 * jitter(k, 1), -0.84 + 0.21 * iy + 0.004 * jitter(k, 2),
                                   0.3 + 0.25 * l};
            TRY(mo_body_create(w, &d, &sc->bodies[k]));
            sc->start[k] = d.position;
            sc->half_height[k] = 0.1;
        }
        return MO_OK;
    }
    if (!strcmp(name, "chain1000")) {
        const int n = 1000;
        const double L = 0.1, r = 0.05;
        sc->kind = MO_SCENE_CHAIN;
        sc->default_steps = 600;
        if (!alloc_bodies(sc, n)) return MO_ERR_OUT_OF_MEMORY;
        sc->njoints = n;
        sc->joints = (mo_joint_id *)calloc((size_t)n, sizeof *sc->joints);
        if (!sc->joints) return MO_ERR_OUT_OF_MEMORY;
        for (int i = 0; i < n; i++) {
            mo_body_def d = mo_default_body_def();
            d.mass = 1.0;
            double I = 0.4 * r * r; /* solid sphere, no collision geometry */
            d.inertia.m[0][0] = d.inertia.m[1][1] = d.inertia.m[2][2] = I;
            d.position = (mo_vec3){(i + 1) * L, 0, 0};
            TRY(mo_body_create(w, &d, &sc->bodies[i]));
            sc->start[i] = d.position;
            sc->half_height[i] = r;
            mo_joint_def j = mo_default_joint_def();
            j.type = MO_JOINT_SPHERICAL;
            if (i > 0) {
                j.body_a = sc->bodies[i - 1];
                j.anchor_a = (mo_vec3){0.5 * L, 0, 0};
            } else {
                j.anchor_a = (mo_vec3){0.5 * L, 0, 0}; /* world point x = 0.05 */
            }
            j.body_b = sc->bodies[i];
            j.anchor_b = (mo_vec3){-0.5 * L, 0, 0};
            TRY(mo_joint_create(w, &j, &sc->joints[i]));
        }
        return MO_OK;
    }
    if (!strcmp(name, "b4_wall")) {
        /* SCENES.md B4: 750 bricks 0.4 x 0.2 x 0.2 m, 25 kg, 25 wide x 30 high, odd rows
           offset 0.2 m; a 500 kg ball (r 0.5) at (5, -1.5, 1.5) moving +y at 8 m/s; 5 s */
        const int nx = 25, nz = 30;
        sc->kind = MO_SCENE_WALL;
        sc->default_steps = 600;
        if (!alloc_bodies(sc, nx * nz + 1)) return MO_ERR_OUT_OF_MEMORY;
        TRY(ground(w, sc, mu));
        int k = 0;
        for (int r = 0; r < nz; r++)
            for (int c = 0; c < nx; c++, k++) {
                mo_body_def d = mo_default_body_def();
                d.shape.type = MO_SHAPE_BOX;
                d.shape.half_extents = (mo_vec3){0.2, 0.1, 0.1};
                d.shape.friction = mu;
                d.mass = 25.0;
                d.position = (mo_vec3){0.2 + 0.4 * c + ((r & 1) ? 0.2 : 0.0), 0, 0.1 + 0.2 * r};
                TRY(mo_body_create(w, &d, &sc->bodies[k]));
                sc->start[k] = d.position;
                sc->half_height[k] = 0.1;
            }
        mo_body_def d = mo_default_body_def();
        d.shape.type = MO_SHAPE_SPHERE;
        d.shape.radius = 0.5;
        d.shape.friction = mu;
        d.mass = 500.0;
        d.position = (mo_vec3){5.0, -1.5, 1.5};
        d.linear_velocity = (mo_vec3){0, 8.0, 0};
        TRY(mo_body_create(w, &d, &sc->bodies[k]));
        sc->start[k] = d.position;
        sc->half_height[k] = 0.5;
        return MO_OK;
    }
    int npile = 0;
    if (!strcmp(name, "mixed1000") || sscanf(name, "pile:%d", &npile) == 1) {
        /* mixed1000: 1000 convex shapes of five kinds (sphere, box, capsule, cylinder,
           hull of an irregular octahedron), about 0.1 m across, on pile1000's grid and in
           its box; pile:N: N spheres (r 0.1) on a square grid of g x g per layer,
           g = ceil(sqrt(N / 12)), so about 12 layers whatever N, in a box 0.21 g wide */
        int mixed = npile == 0;
        int n = mixed ? 1000 : npile;
        if (n < 1 || n > 1000000) {
            snprintf(err, err_size, "pile:N needs 1 <= N <= 1000000, got %d", n);
            return MO_ERR_INVALID_ARGUMENT;
        }
        int g = mixed ? 9 : (int)ceil(sqrt(n / 12.0));
        double half = mixed ? 1.0 : 0.105 * g + 0.05;
        sc->kind = mixed ? MO_SCENE_MIXED : MO_SCENE_PILE;
        sc->box_half = half;
        sc->default_steps = 600;
        if (!alloc_bodies(sc, n)) return MO_ERR_OUT_OF_MEMORY;
        TRY(ground(w, sc, mu));
        const double t = 0.05, hh = 2.0;
        const double walls[4][6] = {{t, half + 2 * t, hh, half + t, 0, hh},
                                    {t, half + 2 * t, hh, -half - t, 0, hh},
                                    {half, t, hh, 0, half + t, hh},
                                    {half, t, hh, 0, -half - t, hh}};
        for (int q = 0; q < 4; q++) {
            mo_body_def d = mo_default_body_def();
            d.type = MO_BODY_STATIC;
            d.shape.type = MO_SHAPE_BOX;
            d.shape.half_extents = (mo_vec3){walls[q][0], walls[q][1], walls[q][2]};
            d.shape.friction = mu;
            d.position = (mo_vec3){walls[q][3], walls[q][4], walls[q][5]};
            mo_body_id id;
            TRY(mo_body_create(w, &d, &id));
        }
        const double x0 = -0.105 * (g - 1);
        for (int k = 0; k < n; k++) {
            int l = k / (g * g), iy = (k % (g * g)) / g, ix = k % g;
            mo_body_def d = mo_default_body_def();
            d.shape.friction = mu;
            d.mass = 1.0;
            d.position = (mo_vec3){x0 + 0.21 * ix + 0.004 * jitter(k, 1), x0 + 0.21 * iy + 0.004 * jitter(k, 2),
                                   0.3 + 0.25 * l};
            mo_vec3 hull[6];
            int kind = mixed ? k % 5 : 0;
            switch (kind) {
            case 0: d.shape.type = MO_SHAPE_SPHERE; d.shape.radius = 0.1; break;
            case 1: d.shape.type = MO_SHAPE_BOX; d.shape.half_extents = (mo_vec3){0.09, 0.07, 0.05}; break;
            case 2: d.shape.type = MO_SHAPE_CAPSULE; d.shape.radius = 0.05; d.shape.half_height = 0.05; break;
            case 3: d.shape.type = MO_SHAPE_CYLINDER; d.shape.radius = 0.08; d.shape.half_height = 0.06; break;
            default:
                for (int a = 0; a < 3; a++)
                    for (int sgn = 0; sgn < 2; sgn++) {
                        double v[3] = {0, 0, 0};
                        v[a] = (sgn ? -1.0 : 1.0) * (0.07 + 0.02 * jitter(k, 3 + 2 * a + sgn));
                        hull[2 * a + sgn] = (mo_vec3){v[0], v[1], v[2]};
                    }
                d.shape.type = MO_SHAPE_CONVEX_HULL;
                d.shape.points = hull;
                d.shape.point_count = 6;
                break;
            }
            if (mixed) { /* a tilted start so nothing rests on a symmetric edge */
                double ang = 0.5 * jitter(k, 9);
                d.orientation = (mo_quat){cos(ang / 2), sin(ang / 2) * 0.6, sin(ang / 2) * 0.8, 0};
            }
            TRY(mo_body_create(w, &d, &sc->bodies[k]));
            mo_body_position(w, sc->bodies[k], &sc->start[k]);
            sc->half_height[k] = 0.1;
        }
        return MO_OK;
    }
    snprintf(err, err_size,
             "unknown scene '%s' (built-in scenes: stack20, heavy_stack, pile1000, chain1000, b1_net, b2_spheres, "
             "b3_plates, b4_wall, mixed1000, pile:N)",
             name);
    return MO_ERR_INVALID_ARGUMENT;
}

void mo_scene_free(mo_scene *sc)
{
    free(sc->bodies);
    free(sc->start);
    free(sc->half_height);
    free(sc->joints);
    memset(sc, 0, sizeof *sc);
}

double mo_scene_stack_penetration(const mo_world *w, const mo_scene *sc)
{
    mo_vec3 p0, p1;
    mo_body_position(w, sc->bodies[0], &p0);
    double m = sc->half_height[0] - p0.z;
    for (int i = 0; i + 1 < sc->nbodies; i++) {
        mo_body_position(w, sc->bodies[i], &p0);
        mo_body_position(w, sc->bodies[i + 1], &p1);
        double pen = sc->half_height[i] + sc->half_height[i + 1] - (p1.z - p0.z);
        if (pen > m) m = pen;
    }
    return m;
}

void mo_scene_stack_top(const mo_world *w, const mo_scene *sc, double *dxy, double *dz)
{
    int t = sc->nbodies - 1;
    mo_vec3 p;
    mo_body_position(w, sc->bodies[t], &p);
    double dx = p.x - sc->start[t].x, dy = p.y - sc->start[t].y;
    *dxy = sqrt(dx * dx + dy * dy);
    *dz = p.z - sc->start[t].z;
}

double mo_scene_pile_penetration(const mo_world *w, const mo_scene *sc, int *escaped)
{
    int n = sc->nbodies, esc = 0;
    mo_vec3 *p = (mo_vec3 *)malloc((size_t)n * sizeof *p);
    if (!p) return NAN;
    for (int i = 0; i < n; i++) mo_body_position(w, sc->bodies[i], &p[i]);
    double m = 0.0;
    for (int i = 0; i < n; i++) {
        double r = sc->half_height[i];
        if (r - p[i].z > m) m = r - p[i].z;
        double bh = sc->box_half;
        if (fabs(p[i].x) > bh || fabs(p[i].y) > bh || p[i].z < -0.5) {
            esc++;
        } else {
            double wx = fabs(p[i].x) + r - bh, wy = fabs(p[i].y) + r - bh;
            if (wx > m) m = wx;
            if (wy > m) m = wy;
        }
        for (int j = i + 1; j < n; j++) {
            double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y, dz = p[i].z - p[j].z;
            double d2 = dx * dx + dy * dy + dz * dz, rr = r + sc->half_height[j];
            if (d2 < rr * rr) {
                double pen = rr - sqrt(d2);
                if (pen > m) m = pen;
            }
        }
    }
    free(p);
    if (escaped) *escaped = esc;
    return m;
}

int mo_scene_wall_moved(const mo_world *w, const mo_scene *sc)
{
    int moved = 0;
    for (int i = 0; i + 1 < sc->nbodies; i++) {
        mo_vec3 p;
        mo_body_position(w, sc->bodies[i], &p);
        double dx = p.x - sc->start[i].x, dy = p.y - sc->start[i].y, dz = p.z - sc->start[i].z;
        if (dx * dx + dy * dy + dz * dz > 0.01) moved++;
    }
    return moved;
}

void mo_scene_chain_drift(const mo_world *w, const mo_scene *sc, double *max_drift, double *mean_drift)
{
    double mx = 0.0, sum = 0.0;
    for (int k = 0; k < sc->njoints; k++) {
        double e = 0.0;
        mo_joint_error(w, sc->joints[k], &e);
        if (e > mx) mx = e;
        sum += e;
    }
    *max_drift = mx;
    *mean_drift = sc->njoints ? sum / sc->njoints : 0.0;
}
