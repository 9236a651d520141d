/* test_shapes_api.c: shapes through the public API (issue 3): compound bodies'
 * mass properties, the body frame kept at the centre of mass, every shape type
 * resting on the ground, a box on a convex-hull box and on a mesh box behaving
 * like box on box, stable contact ids for a resting box, ray casts and AABB
 * queries, and bad shape definitions refused with exact sentences. */
#include <stdlib.h>
#include <moreau/moreau.h>
#include "testutil.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static mo_world *world(void)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.max_iterations = 50;
    return world_or_exit(&wd, "", 1);
}

static mo_body_id ground(mo_world *w)
{
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id id;
    CHECK(mo_body_create(w, &g, &id) == MO_OK);
    return id;
}

static const mo_vec3 cube_pts[8] = {{-0.25, -0.25, -0.25}, {0.25, -0.25, -0.25}, {-0.25, 0.25, -0.25},
                                    {0.25, 0.25, -0.25},   {-0.25, -0.25, 0.25}, {0.25, -0.25, 0.25},
                                    {-0.25, 0.25, 0.25},   {0.25, 0.25, 0.25}};
/* 12 triangles, counter-clockwise seen from outside */
static const int cube_tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                  2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};

/* mass properties: a compound of two boxes; the body frame moves to the centre of mass */
static void test_compound_mass(void)
{
    mo_world *w = world();
    mo_body_def bd = mo_default_body_def();
    bd.mass = 1.0;
    bd.inertia.m[0][0] = bd.inertia.m[1][1] = bd.inertia.m[2][2] = 1.0;
    bd.position = (mo_vec3){1, 2, 3};
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    mo_shape_def s = mo_default_shape_def();
    s.type = MO_SHAPE_BOX;
    s.half_extents = (mo_vec3){0.5, 0.5, 0.5};
    s.density = 100.0; /* 1 m^3 -> 100 kg */
    s.position = (mo_vec3){0, 0, 0};
    mo_shape_id s1, s2;
    CHECK(mo_shape_create(w, b, &s, &s1) == MO_OK);
    s.half_extents = (mo_vec3){0.25, 0.25, 0.25}; /* 0.125 m^3 -> 12.5 kg at x = 1 */
    s.position = (mo_vec3){1, 0, 0};
    CHECK(mo_shape_create(w, b, &s, &s2) == MO_OK);
    double m1;
    mo_vec3 c1;
    mo_mat3 I1;
    CHECK(mo_shape_mass(w, s1, &m1, &c1, &I1) == MO_OK);
    CHECK_NEAR(m1, 100.0, 1e-9);
    CHECK_NEAR(I1.m[0][0], 100.0 / 6.0, 1e-9); /* m a^2 / 6 for a cube of side a = 1 */
    CHECK(mo_body_set_mass_from_shapes(w, b) == MO_OK);
    double m;
    mo_mat3 I;
    mo_body_mass(w, b, &m, &I);
    CHECK_NEAR(m, 112.5, 1e-9);
    double cx = 12.5 * 1.0 / 112.5;
    mo_vec3 p;
    mo_body_position(w, b, &p);
    CHECK_NEAR(p.x, 1.0 + cx, 1e-12); /* the body frame sits at the centre of mass */
    CHECK_NEAR(p.y, 2.0, 1e-12);
    /* Ixx: no offset along x matters; Iyy gets both parallel-axis terms */
    double Ia = 100.0 / 6.0, Ib = 12.5 * 0.25 / 6.0;
    CHECK_NEAR(I.m[0][0], Ia + Ib, 1e-9);
    CHECK_NEAR(I.m[1][1], Ia + 100.0 * cx * cx + Ib + 12.5 * (1 - cx) * (1 - cx), 1e-9);
    CHECK_NEAR(I.m[0][1], 0.0, 1e-12);
    /* nothing moved in the world: a ray down onto the small box still hits its top at z = 3.25 */
    mo_ray_hit hit;
    CHECK(mo_world_raycast(w, (mo_vec3){2, 2, 10}, (mo_vec3){0, 0, -1}, 100, &hit));
    CHECK_NEAR(hit.point.z, 3.25, 1e-9);
    CHECK(hit.shape.index == s2.index);
    mo_world_destroy(w);
}

/* the final height of a body dropped 2 cm onto the ground and settled for 2 s */
static double settle(mo_world *w, mo_body_id b, int steps)
{
    for (int i = 0; i < steps; i++) mo_world_step(w);
    mo_vec3 p;
    mo_body_position(w, b, &p);
    return p.z;
}

static void test_resting_shapes(void)
{
    struct {
        mo_shape_type type;
        double expect_z; /* resting height of the centre */
    } cases[] = {{MO_SHAPE_SPHERE, 0.2}, {MO_SHAPE_BOX, 0.25}, {MO_SHAPE_CAPSULE, 0.2}, {MO_SHAPE_CYLINDER, 0.3},
                 {MO_SHAPE_CONVEX_HULL, 0.25}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mo_world *w = world();
        ground(w);
        mo_body_def bd = mo_default_body_def();
        bd.shape.type = cases[k].type;
        bd.shape.radius = 0.2;
        bd.shape.half_extents = (mo_vec3){0.25, 0.25, 0.25};
        bd.shape.half_height = 0.3;
        bd.shape.points = cube_pts;
        bd.shape.point_count = 8;
        /* capsules lie on their side (axis along x) */
        if (cases[k].type == MO_SHAPE_CAPSULE) bd.orientation = (mo_quat){cos(M_PI / 4), 0, sin(M_PI / 4), 0};
        bd.position = (mo_vec3){0, 0, cases[k].expect_z + 0.02};
        mo_body_id b;
        CHECK(mo_body_create(w, &bd, &b) == MO_OK);
        double z = settle(w, b, 240);
        mo_vec3 v;
        mo_body_linear_velocity(w, b, &v);
        printf("rest: shape %d settles at z = %.5f (expected %.5f), |v| = %.1e\n", (int)cases[k].type, z,
               cases[k].expect_z, sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
        CHECK_NEAR(z, cases[k].expect_z, 2e-3);
        CHECK(sqrt(v.x * v.x + v.y * v.y + v.z * v.z) < 1e-2);
        mo_world_destroy(w);
    }
}

/* a box (top_mesh: a mesh box) resting on a support box, on a hull box and on a mesh
   box: the same result; *drift: how far it moved sideways while settling */
static void stack_on(int support, int top_mesh, double *z, int *contacts, double *drift)
{
    mo_world *w = world();
    mo_body_def sd = mo_default_body_def();
    sd.type = MO_BODY_STATIC;
    sd.position = (mo_vec3){0, 0, 0.25};
    sd.shape.type = support == 0 ? MO_SHAPE_BOX : support == 1 ? MO_SHAPE_CONVEX_HULL : MO_SHAPE_MESH;
    sd.shape.half_extents = (mo_vec3){0.25, 0.25, 0.25};
    sd.shape.points = cube_pts;
    sd.shape.point_count = 8;
    sd.shape.vertices = cube_pts;
    sd.shape.vertex_count = 8;
    sd.shape.indices = cube_tris;
    sd.shape.triangle_count = 12;
    mo_body_id sup;
    CHECK(mo_body_create(w, &sd, &sup) == MO_OK);
    mo_body_def bd = mo_default_body_def();
    static const mo_vec3 small_pts[8] = {{-0.15, -0.15, -0.15}, {0.15, -0.15, -0.15}, {-0.15, 0.15, -0.15},
                                         {0.15, 0.15, -0.15},   {-0.15, -0.15, 0.15}, {0.15, -0.15, 0.15},
                                         {-0.15, 0.15, 0.15},   {0.15, 0.15, 0.15}};
    bd.shape.type = top_mesh ? MO_SHAPE_MESH : MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.15, 0.15, 0.15};
    bd.shape.vertices = small_pts;
    bd.shape.vertex_count = 8;
    bd.shape.indices = cube_tris;
    bd.shape.triangle_count = 12;
    bd.position = (mo_vec3){0.03, -0.02, 0.65};
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    *z = settle(w, b, 360);
    *contacts = mo_world_last_stats(w).contacts;
    mo_vec3 p;
    mo_body_position(w, b, &p);
    *drift = hypot(p.x - 0.03, p.y + 0.02);
    mo_world_destroy(w);
}

static void test_box_on_hull_and_mesh(void)
{
    double z0, z1, z2, z3, z4, d0, d1, d2, d3, d4;
    int c0, c1, c2, c3, c4;
    stack_on(0, 0, &z0, &c0, &d0);
    stack_on(1, 0, &z1, &c1, &d1);
    stack_on(2, 0, &z2, &c2, &d2);
    stack_on(2, 1, &z3, &c3, &d3); /* mesh on mesh */
    stack_on(0, 1, &z4, &c4, &d4); /* mesh on box */
    printf("box on box z = %.6f (%d contacts), on hull box %.6f (%d), on mesh box %.6f (%d); mesh box on mesh box "
           "%.6f (%d, drift %.1e), on box %.6f (%d)\n",
           z0, c0, z1, c1, z2, c2, z3, c3, d3, z4, c4);
    CHECK_NEAR(z0, 0.65, 1e-3);
    CHECK_NEAR(z1, z0, 1e-4);
    CHECK_NEAR(z2, z0, 1e-4);
    CHECK_NEAR(z3, z0, 1e-4);
    CHECK_NEAR(z4, z0, 1e-4);
    CHECK(c0 == 4);
    CHECK(c1 == 4);
    CHECK(c2 >= 4);
    CHECK(c3 == 4); /* the mesh pair is reduced to 4 points, as box on box */
    CHECK(d3 < 1e-3 && fabs(d3 - d0) < 1e-4); /* stays put like box on box */
}

/* a mesh box dropped on an open mesh ground (a 6 x 6 grid of quads) settles like a box on
   a plane and stays put, and it slides down a tilted ground at the box-on-plane rate */
static void mesh_on_ground(double tilt, double *z, double *vx, int *contacts, double *drift)
{
    mo_world *w = world();
    enum { G = 6 };
    mo_vec3 gv[(G + 1) * (G + 1)];
    int gt[G * G * 6], nt = 0;
    for (int i = 0; i <= G; i++)
        for (int j = 0; j <= G; j++) gv[(G + 1) * i + j] = (mo_vec3){-3.0 + j, -3.0 + i, 0.0};
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            int v = (G + 1) * i + j;
            int q[6] = {v, v + 1, v + G + 2, v, v + G + 2, v + G + 1};
            for (int k = 0; k < 6; k++) gt[nt++] = q[k];
        }
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.orientation = (mo_quat){cos(tilt / 2), 0, sin(tilt / 2), 0}; /* about y: downhill is +x */
    gd.shape.type = MO_SHAPE_MESH;
    gd.shape.vertices = gv;
    gd.shape.vertex_count = (G + 1) * (G + 1);
    gd.shape.indices = gt;
    gd.shape.triangle_count = nt / 3;
    gd.shape.friction = tilt > 0 ? 0.2 : 0.5;
    mo_body_id gid;
    CHECK(mo_body_create(w, &gd, &gid) == MO_OK);
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_MESH;
    bd.shape.vertices = cube_pts;
    bd.shape.vertex_count = 8;
    bd.shape.indices = cube_tris;
    bd.shape.triangle_count = 12;
    bd.shape.friction = gd.shape.friction;
    bd.orientation = gd.orientation;
    /* 1 mm above the ground, along its normal, off the grid lines */
    double nx = sin(tilt), nz = cos(tilt), h = 0.251;
    bd.position = (mo_vec3){0.37 + h * nx, 0.21, h * nz};
    mo_body_id b;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    int steps = tilt > 0 ? 60 : 240;
    for (int i = 0; i < steps; i++) mo_world_step(w);
    mo_vec3 p, v, om;
    mo_body_position(w, b, &p);
    mo_body_linear_velocity(w, b, &v);
    mo_body_angular_velocity(w, b, &om);
    *z = p.x * nx + p.z * nz; /* height along the ground normal */
    *vx = v.x * nz - v.z * nx; /* downhill speed */
    *contacts = mo_world_last_stats(w).contacts;
    *drift = hypot(p.x * nz - p.z * nx - (0.37 + h * nx) * nz + h * nz * nx, p.y - 0.21) + hypot(om.x, hypot(om.y, om.z));
    mo_world_destroy(w);
}

static void test_mesh_on_mesh_ground(void)
{
    double z, vx, drift, zt, vt, dt;
    int c, ct;
    mesh_on_ground(0.0, &z, &vx, &c, &drift);
    mesh_on_ground(0.3, &zt, &vt, &ct, &dt);
    /* box on a plane tilted by 0.3 rad, mu 0.2: a = g (sin - mu cos) after the 60 steps (0.5 s) */
    double g = 9.81, a = g * (sin(0.3) - 0.2 * cos(0.3)), t = 60 * mo_default_world_def().time_step;
    printf("mesh box on open mesh ground: height %.6f (%d contacts, drift %.1e); on the ground tilted 0.3 rad: "
           "height %.6f, downhill speed %.4f m/s (box on plane: %.4f)\n",
           z, c, drift, zt, vt, a * t);
    CHECK_NEAR(z, 0.25, 1e-3);
    CHECK(c == 4);
    CHECK(drift < 1e-3);
    CHECK_NEAR(zt, 0.25, 2e-3);
    CHECK_NEAR(vt, a * t, 0.03 * a * t);
}

/* contact keys of a resting box stay the same for 100 steps */
static void test_stable_ids(void)
{
    mo_world *w = world();
    ground(w);
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.3, 0.2, 0.1};
    bd.position = (mo_vec3){0, 0, 0.1};
    mo_body_id b;
    mo_body_create(w, &bd, &b);
    for (int i = 0; i < 30; i++) mo_world_step(w);
    mo_contact first[8], now[8];
    int n0 = mo_world_contacts(w, first, 8);
    CHECK(n0 == 4);
    int changed = 0;
    for (int s = 0; s < 100; s++) {
        mo_world_step(w);
        int n = mo_world_contacts(w, now, 8);
        if (n != n0) changed++;
        for (int i = 0; i < n && i < n0; i++)
            if (now[i].key != first[i].key) changed++;
    }
    CHECK(changed == 0);
    mo_world_destroy(w);
}

static void test_queries_and_errors(void)
{
    mo_world *w = world();
    ground(w);
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.5;
    bd.position = (mo_vec3){3, 0, 1};
    mo_body_id b;
    mo_body_create(w, &bd, &b);
    mo_ray_hit hit;
    CHECK(mo_world_raycast(w, (mo_vec3){0, 0, 1}, (mo_vec3){2, 0, 0}, 10, &hit));
    CHECK_NEAR(hit.distance, 2.5, 1e-9);
    CHECK_NEAR(hit.normal.x, -1.0, 1e-9);
    CHECK(hit.body.index == b.index);
    CHECK(!mo_world_raycast(w, (mo_vec3){0, 0, 1}, (mo_vec3){0, 1, 0}, 10, &hit));
    CHECK(mo_world_raycast(w, (mo_vec3){0, 0, 1}, (mo_vec3){0, 0, -1}, 10, &hit)); /* the ground */
    CHECK_NEAR(hit.distance, 1.0, 1e-9);
    mo_shape_id ids[4];
    CHECK(mo_world_query_aabb(w, (mo_vec3){2, -1, 0.6}, (mo_vec3){4, 1, 2}, ids, 4) == 1);
    CHECK(mo_world_query_aabb(w, (mo_vec3){2, -1, -1}, (mo_vec3){4, 1, 2}, ids, 4) == 2);

    /* bad shape definitions: exact sentences, nothing created */
    mo_shape_def s = mo_default_shape_def();
    mo_shape_id sid;
    s.type = MO_SHAPE_CAPSULE;
    s.radius = 0.1;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "capsule radius and half_height must be in (0, 1e+09] m, got 0.1 and 0");
    s.type = MO_SHAPE_SPHERE;
    s.radius = 0.0;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "sphere radius must be in (0, 1e+09] m, got 0");
    s.type = MO_SHAPE_CONVEX_HULL;
    s.points = cube_pts;
    s.point_count = 3;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "convex hull needs at least 4 points, got 3");
    static const mo_vec3 flat[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5, 0.5, 0}};
    s.points = flat;
    s.point_count = 5;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strncmp(mo_world_last_error(w), "convex hull: ", 13) == 0);
    s = mo_default_shape_def();
    s.type = MO_SHAPE_MESH;
    static const int bad_tris[3] = {0, 1, 9};
    s.vertices = cube_pts;
    s.vertex_count = 8;
    s.indices = bad_tris;
    s.triangle_count = 1;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strncmp(mo_world_last_error(w), "mesh: ", 6) == 0);
    s = mo_default_shape_def();
    s.type = MO_SHAPE_BOX;
    s.half_extents = (mo_vec3){1, 1, 1};
    s.density = -1;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "shape density must be in (0, 1e+08] kg/m^3, got -1");
    CHECK(mo_world_query_aabb(w, (mo_vec3){2, -1, 0.6}, (mo_vec3){4, 1, 2}, NULL, 0) == 1);

    /* shape ids: destroyed with their body, stale afterwards */
    s.density = 1000;
    CHECK(mo_shape_create(w, b, &s, &sid) == MO_OK);
    CHECK(mo_shape_is_valid(w, sid));
    mo_body_destroy(w, b);
    CHECK(!mo_shape_is_valid(w, sid));
    mo_body_id owner;
    CHECK(mo_shape_body(w, sid, &owner) == MO_ERR_STALE_ID);
    mo_world_destroy(w);
}

/* category/mask filtering, a compound body's own shapes, and particles on every static shape */
static void test_filtering_and_particles(void)
{
    mo_world *w = world();
    mo_world_set_gravity(w, (mo_vec3){0, 0, 0});
    mo_body_def bd = mo_default_body_def();
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.1;
    bd.position = (mo_vec3){0, 0, 0};
    bd.shape.category = 2;
    bd.shape.mask = 0xffffffffu & ~4u; /* does not want category 4 */
    mo_body_id a, b, c;
    CHECK(mo_body_create(w, &bd, &a) == MO_OK);
    bd.position = (mo_vec3){0.15, 0, 0}; /* overlaps a by 5 cm */
    bd.shape.category = 4;
    bd.shape.mask = 0xffffffffu;
    CHECK(mo_body_create(w, &bd, &b) == MO_OK);
    mo_world_step(w);
    CHECK(mo_world_last_stats(w).contacts == 0); /* a's mask excludes b's category */
    bd.position = (mo_vec3){-0.15, 0, 0};
    bd.shape.category = 8;
    CHECK(mo_body_create(w, &bd, &c) == MO_OK);
    mo_world_step(w);
    mo_contact ct[4];
    CHECK(mo_world_contacts(w, ct, 4) == 1); /* a and c collide */
    CHECK((ct[0].body_a.index == a.index && ct[0].body_b.index == c.index) ||
          (ct[0].body_a.index == c.index && ct[0].body_b.index == a.index));
    CHECK(!mo_shape_id_is_null(ct[0].shape_a) && !mo_shape_id_is_null(ct[0].shape_b));
    /* two overlapping shapes of one body never touch each other */
    mo_shape_def s = mo_default_shape_def();
    s.type = MO_SHAPE_BOX;
    s.half_extents = (mo_vec3){0.2, 0.2, 0.2};
    s.position = (mo_vec3){0, 0, 3};
    mo_body_def lone = mo_default_body_def();
    lone.position = (mo_vec3){10, 10, 10};
    lone.shape.type = MO_SHAPE_BOX;
    lone.shape.half_extents = (mo_vec3){0.2, 0.2, 0.2};
    mo_body_id d;
    mo_shape_id extra;
    CHECK(mo_body_create(w, &lone, &d) == MO_OK);
    s.position = (mo_vec3){0.1, 0, 0};
    CHECK(mo_shape_create(w, d, &s, &extra) == MO_OK);
    mo_world_step(w);
    CHECK(mo_world_last_stats(w).contacts == 1); /* still only a-c */
    mo_world_destroy(w);

    /* particles (radius 2 cm) settle on a capsule, a hull, a cylinder and a mesh */
    mo_shape_type types[4] = {MO_SHAPE_CAPSULE, MO_SHAPE_CONVEX_HULL, MO_SHAPE_CYLINDER, MO_SHAPE_MESH};
    double top[4] = {0.5, 0.25, 0.3, 0.25}; /* capsule: half_height + radius */
    for (int k = 0; k < 4; k++) {
        w = world();
        mo_body_def sd = mo_default_body_def();
        sd.type = MO_BODY_STATIC;
        sd.shape.type = types[k];
        sd.shape.radius = 0.2;
        sd.shape.half_height = 0.3;
        sd.shape.points = cube_pts;
        sd.shape.point_count = 8;
        sd.shape.vertices = cube_pts;
        sd.shape.vertex_count = 8;
        sd.shape.indices = cube_tris;
        sd.shape.triangle_count = 12;
        mo_body_id sid;
        CHECK(mo_body_create(w, &sd, &sid) == MO_OK);
        mo_particle_def pd = mo_default_particle_def();
        pd.radius = 0.02;
        pd.position = (mo_vec3){0.01, -0.02, top[k] + 0.1};
        mo_particle_id p;
        CHECK(mo_particle_create(w, &pd, &p) == MO_OK);
        for (int i = 0; i < 240; i++) mo_world_step(w);
        mo_vec3 pp;
        mo_particle_position(w, p, &pp);
        printf("particle on shape %d rests at z = %.5f (flat top: %.5f)\n", (int)types[k], pp.z, top[k] + 0.02);
        if (types[k] == MO_SHAPE_CAPSULE) /* on the dome: 0.22 from the cap's centre (0, 0, 0.3) */
            CHECK_NEAR(sqrt(pp.x * pp.x + pp.y * pp.y + (pp.z - 0.3) * (pp.z - 0.3)), 0.22, 1e-4);
        else
            CHECK_NEAR(pp.z, top[k] + 0.02, 1e-4);
        mo_world_destroy(w);
    }
}

int main(void)
{
    test_filtering_and_particles();
    test_compound_mass();
    test_resting_shapes();
    test_box_on_hull_and_mesh();
    test_mesh_on_mesh_ground();
    test_stable_ids();
    test_queries_and_errors();
    return check_result("test_shapes_api");
}
