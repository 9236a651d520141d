/* test_fem_world.c: FEM tetrahedral meshes in the world, solved by the
 * non-smooth Newton step (issue 7, second slice; engine/fem_world.c,
 * engine/step_newton.c).
 *
 *   1 extension: a bar 0.1 x 0.1 x 0.4 m (E 1e5 Pa, nu 0.45) stretched to
 *     twice its length by its fixed end nodes (held in z only, the lateral
 *     contraction free; one node fully held, one in y, against rigid motion).
 *     Uniaxial stretch s = 2 with free sides has closed forms:
 *       Neo-Hookean (no log term, fem.h): the lateral stress vanishes at
 *         J = alpha - mu / (2 lambda) = 1 + mu / (2 lambda) = 1.05 for any s
 *         (lambda = lambda_L + mu_L = 10 mu here): volume within 5 %;
 *       linear corotational: lateral strain -nu (S - I)_zz = -0.45, stretch
 *         0.55, J = 2 (0.55)^2 = 0.605: 39.5 % lost.
 *     Both measured volumes are asserted against these (1 %), and the
 *     corotational loss asserted larger than the Neo-Hookean change.
 *   2 cantilever 1 m x 0.1 m x 0.1 m, clamped at x = 0, under gravity
 *     (corotational, E 1e8 Pa, density 1000): the tip deflection rises toward
 *     Euler-Bernoulli q L^4 / (8 E I) monotonically over three coarse meshes
 *     (linear tetrahedra lock in bending), each printed with its error.
 *   3 refusals with exact sentences (world unchanged): inverted and flat
 *     tetrahedra by index, E <= 0, nu out of range, unknown material index,
 *     a node of no tetrahedron, a bad fixed node, the solver not Newton, a
 *     velocity-level solver set while a mesh exists, a mesh particle destroyed.
 *   4 a corotational cube of tetrahedra resting on a ground plane (particle
 *     contacts in the Newton step): total contact normal force = weight within
 *     1 %, at rest. (A free Neo-Hookean mesh diverges: docs/fem.md, not tested.)
 *   5 fixed nodes: a hanging block fixed at its top face: those nodes stay at
 *     their targets (1e-6 m) while the rest sags; a fixed node given a
 *     velocity follows it.
 *   6 boundary surface: closed, outward, no interior node.
 *   7 attachments to a kinematic body moving and turning: the attached nodes
 *     follow the body's points (1e-6 m) while the mesh hangs below it.
 *   8 attachments in statics: a block hanging from a dynamic body welded to
 *     the world: the attachment forces on the nodes sum to the mesh's weight,
 *     the weld carries body + mesh, at rest (force balance, 0.5 %); with
 *     compliance 1e-4 m/N each node rests compliance x force from its body
 *     point (C + eps lambda = 0, 1e-8 m).
 *   9 finite differences of the attachment rows (mo_newton_probe, engine/newton.h)
 *     against the Jacobian the Newton step uses, a rotated dynamic body.
 *  10 attachment refusals with exact sentences (world unchanged); a destroyed
 *     body's attachments go with it.
 *  11 surface collision: a 4 x 4 x 4-node mesh inside a static box: 56
 *     contacts, one per boundary node, none from the 8 interior nodes.
 *  12 a rigid box dropped on an FEM slab lying on the ground rests on it:
 *     box-slab contact force (node contacts and its corners on the slab's
 *     triangles) = the box's weight, ground = box + slab (1 %).
 *  13 the gripper-ball principle (scenes/gripper_ball.lua is too long for CI): a
 *     block squeezed between two kinematic pads is lifted 5 cm by their
 *     friction: its centre rises with them (2 mm), stays between them, leaves
 *     the ground.
 *  14 rigid vertices against boundary triangles: finite differences of the
 *     vertex-triangle rows (a tilted, moving box corner over a slab).
 *  15 a 6 cm box over the middle of a 10 cm cell of an FEM slab (no node under
 *     its face) rests on its 4 corners' triangle contacts: force = weight (1 %),
 *     bottom at the slab's top (1 mm); nodes alone would let it sink through.
 *     The same for a sphere of radius 3 cm (its centre's triangle contact,
 *     offset by the radius).
 *  16 a capsule and a cylinder lying across an FEM slab with their ends off
 *     it, and a 0.6 m bar lying flat across it with its corners off it, all
 *     between the slab's node lines: held only by the collision layer's
 *     points and by the bar's bottom edges where they cross the triangles'
 *     edges: normal forces = weight (1e-3), penetration < 0.1 mm, at rest
 *     (speed < 1e-6 m/s: neither sliding nor rolling).
 *  17 a 6 cm box sliding at 1 m/s (mu 0.3) over the middle of the slab's cells
 *     (friction on its corners' triangle rows) stops at implicit Euler's
 *     distance h sum (v0 - k mu g h) (1 %; v0^2/(2 mu g) is 5 % longer).
 *  18 the slab tilted by 20 deg: the box stays with mu 0.5 (< 1 mm over 1 s)
 *     and slides with mu 0.2 at g (sin - mu cos): speed N h a (1 %).
 *  19 finite differences of the new rows (normal and friction), a capsule's
 *     side and a box's edge 2 mm over the slab, moving and spinning. */
#include <time.h>
#include "testutil.h"
#include "../tools/fem_box.h"
#include "moreau/tetmesh.h"
#include "step/step.h" /* mo_newton_probe and the step stages (test 9) */
#include "solver/newton.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 70, 6)


static mo_world *newton_world(mo_vec3 g, double h, int iters, int lin)
{
    mo_world_def d = mo_default_world_def();
    d.gravity = g;
    d.time_step = h;
    d.solver.kind = MO_SOLVER_NEWTON;
    d.solver.newton.iterations = iters;
    d.solver.newton.linear_iterations = lin;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

/* ---- 1 extension ---- */

static double extension_volume_ratio(mo_fem_model model, double *secs)
{
    double t0 = now_s();
    mo_world *w = newton_world((mo_vec3){0, 0, 0}, 1.0 / 60.0, 10, 60);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 8, (mo_vec3){-0.05, -0.05, 0.0}, (mo_vec3){0.1, 0.1, 0.4});
    mo_fem_material_def mat = {1e5, 0.45, 1000.0, model};
    int fixed[64], nf = 0;
    unsigned char axes[64];
    for (int j = 0; j <= b.ny; j++)
        for (int i = 0; i <= b.nx; i++) {
            int n0 = node_index(&b, i, j, 0), n1 = node_index(&b, i, j, b.nz);
            fixed[nf] = n0;
            axes[nf++] = (i == 1 && j == 1) ? 7 : (j == 1 ? 6 : 4); /* centre: all; (x, 0): y and z; else z */
            fixed[nf] = n1;
            axes[nf++] = 4;
        }
    mo_fem_mesh_def d = box_mesh_def(&b, &mat, fixed, nf);
    d.fixed_axes = axes;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    const double T = 1.0, v = 0.4 / T;
    for (int j = 0; j <= b.ny; j++)
        for (int i = 0; i <= b.nx; i++)
            CHECK(mo_fem_mesh_set_fixed_velocity(w, id, node_index(&b, i, j, b.nz), (mo_vec3){0, 0, v}) == MO_OK);
    int steps = (int)lround(T / mo_world_time_step(w));
    for (int s = 0; s < steps; s++) mo_world_step(w);
    for (int j = 0; j <= b.ny; j++)
        for (int i = 0; i <= b.nx; i++)
            CHECK(mo_fem_mesh_set_fixed_velocity(w, id, node_index(&b, i, j, b.nz), (mo_vec3){0, 0, 0}) == MO_OK);
    for (int s = 0; s < 60; s++) mo_world_step(w);
    mo_vec3 top;
    mo_fem_mesh_node_position(w, id, node_index(&b, 1, 1, b.nz), &top);
    double cur = 0, rest = 0;
    mo_fem_mesh_volume(w, id, &cur, &rest);
    mo_step_stats st = mo_world_last_stats(w);
    printf("  %s: top z %.5f m, volume %.6g / %.6g = %.4f, Newton residual %.3g, nan %d\n",
           model == MO_FEM_NEO_HOOKEAN ? "neo-hookean " : "corotational", top.z, cur, rest, cur / rest, st.residual,
           st.nan_warnings);
    CHECK_NEAR(top.z, 0.8, 1e-4);
    box_mesh_free(&b);
    mo_world_destroy(w);
    *secs = now_s() - t0;
    return cur / rest;
}

static void test_extension(void)
{
    group_begin();
    double t1, t2;
    double nh = extension_volume_ratio(MO_FEM_NEO_HOOKEAN, &t1);
    double co = extension_volume_ratio(MO_FEM_COROTATIONAL, &t2);
    printf("  NH volume change %+.2f %% (%.1f s), corotational %+.2f %% (%.1f s)\n", 100 * (nh - 1), t1,
           100 * (co - 1), t2);
    CHECK_NEAR(nh, 1.05, 0.01);
    CHECK_NEAR(co, 0.605, 0.01);
    CHECK(fabs(co - 1) > 5 * fabs(nh - 1));
    group_end("extension: bar stretched 2x, NH volume vs corotational");
}

/* ---- 2 cantilever ---- */

static double cantilever_tip(int nx, int nyz, double *secs, int *nt)
{
    double t0 = now_s();
    const double L = 1.0, a = 0.1, E = 1e8, rho = 1000.0, g = 9.81;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, 0.05, 8, 200);
    box_mesh b;
    box_mesh_make(&b, nx, nyz, nyz, (mo_vec3){0.0, -a / 2, -a / 2}, (mo_vec3){L, a, a});
    mo_fem_material_def mat = {E, 0.3, rho, MO_FEM_COROTATIONAL};
    int *fixed = (int *)malloc((size_t)b.nn * sizeof(int)), nf = 0;
    for (int k = 0; k <= nyz; k++)
        for (int j = 0; j <= nyz; j++) fixed[nf++] = node_index(&b, 0, j, k);
    mo_fem_mesh_def d = box_mesh_def(&b, &mat, fixed, nf);
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    /* implicit Euler with h = 0.05 s (about 4 steps per period of the first mode) damps to the static sag */
    double tip = 0.0, prev = 1.0;
    for (int s = 0; s < 200; s++) {
        mo_world_step(w);
        double z = 0.0;
        for (int k = 0; k <= nyz; k++)
            for (int j = 0; j <= nyz; j++) {
                mo_vec3 p;
                mo_fem_mesh_node_position(w, id, node_index(&b, nx, j, k), &p);
                z += p.z;
            }
        tip = -z / ((nyz + 1) * (nyz + 1));
        if (s > 20 && fabs(tip - prev) < 1e-7) break;
        prev = tip;
    }
    CHECK(mo_world_last_stats(w).nan_warnings == 0);
    *nt = b.nt;
    free(fixed);
    box_mesh_free(&b);
    mo_world_destroy(w);
    *secs = now_s() - t0;
    return tip;
}

static void test_cantilever(void)
{
    group_begin();
    const double L = 1.0, a = 0.1, E = 1e8, rho = 1000.0, g = 9.81;
    const double I = a * a * a * a / 12.0, q = rho * g * a * a, eb = q * L * L * L * L / (8.0 * E * I);
    static const int meshes[3][2] = {{4, 1}, {8, 2}, {16, 2}};
    double err_prev = 1e30;
    for (int i = 0; i < 3; i++) {
        double secs;
        int nt;
        double tip = cantilever_tip(meshes[i][0], meshes[i][1], &secs, &nt);
        double err = fabs(tip - eb) / eb;
        printf("  cantilever %2d x %d x %d cells (%4d tets): tip sag %.6f m, Euler-Bernoulli %.6f m, error %5.1f %% "
               "(%.1f s)\n", meshes[i][0], meshes[i][1], meshes[i][1], nt, tip, eb, 100 * err, secs);
        CHECK(tip > 0.0);
        CHECK(err < err_prev);
        err_prev = err;
    }
    group_end("cantilever: tip sag converges toward Euler-Bernoulli");
}

/* ---- 3 refusals ---- */

static mo_world *refusal_world(void)
{
    return newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
}

static void expect_refusal(mo_world *w, const mo_fem_mesh_def *d, const char *sentence)
{
    mo_fem_mesh_id id = {7, 7};
    uint64_t h0 = mo_world_state_hash(w);
    mo_status st = mo_fem_mesh_create(w, d, &id);
    CHECK(st == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_fem_mesh_id_is_null(id));
    CHECK(mo_world_state_hash(w) == h0);
    if (strcmp(mo_world_last_error(w), sentence)) {
        fprintf(stderr, "  expected: %s\n  got:      %s\n", sentence, mo_world_last_error(w));
        CHECK(!"sentence");
    }
}

static void test_refusals(void)
{
    group_begin();
    mo_world *w = refusal_world();
    /* two tetrahedra sharing a face */
    mo_vec3 nodes[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {5, 5, 5}};
    int tets[8] = {0, 1, 2, 3, 1, 2, 3, 4};
    /* orientation of the second: (1,2,3,4) */
    mo_fem_material_def mats[2] = {{1e5, 0.3, 1000, MO_FEM_COROTATIONAL}, {1e5, 0.45, 1000, MO_FEM_NEO_HOOKEAN}};
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = nodes;
    d.node_count = 5;
    d.tets = tets;
    d.tet_count = 2;
    d.materials = mats;
    d.material_count = 2;
    mo_fem_mesh_id id;
    /* the good mesh first (orientation of tet 1 fixed if needed) */
    mo_status st0 = mo_fem_mesh_create(w, &d, &id);
    if (st0 != MO_OK) { int t = tets[6]; tets[6] = tets[7]; tets[7] = t; st0 = mo_fem_mesh_create(w, &d, &id); }
    CHECK(st0 == MO_OK);
    CHECK(mo_fem_mesh_destroy(w, id) == MO_OK);
    CHECK(!mo_fem_mesh_is_valid(w, id));

    int inv[8];
    memcpy(inv, tets, sizeof inv);
    int t = inv[6]; inv[6] = inv[7]; inv[7] = t; /* tetrahedron 1 inverted */
    d.tets = inv;
    char buf[256];
    double vol = -1.0 / 6.0 * 2.0 / 2.0; /* not used for the sentence: the checker prints it */
    (void)vol;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strstr(mo_world_last_error(w), "FEM mesh: mo_tetmesh_check: tetrahedron 1 is inverted (volume ") ==
          mo_world_last_error(w));
    d.tets = tets;

    mo_vec3 flat_nodes[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
    int flat[8] = {0, 1, 2, 3, 0, 1, 4, 2};
    d.nodes = flat_nodes;
    d.tets = flat;
    snprintf(buf, sizeof buf, "%s", "");
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_ERR_INVALID_ARGUMENT);
    CHECK(strstr(mo_world_last_error(w), "tetrahedron 1") != NULL);
    printf("  flat: %s\n", mo_world_last_error(w));
    d.nodes = nodes;
    d.tets = tets;

    mats[0].young = 0.0;
    expect_refusal(w, &d, "FEM material 0: Young's modulus must be finite and in (0, 1e+15] Pa, got 0");
    mats[0].young = 1e5;
    mats[1].poisson = 0.5;
    expect_refusal(w, &d, "FEM material 1: Poisson's ratio must be in (-1, 0.5), got 0.5");
    mats[1].poisson = 0.45;
    mats[1].density = -3;
    expect_refusal(w, &d, "FEM material 1: density must be finite and in (0, 1e+08] kg/m^3, got -3");
    mats[1].density = 1000;
    int emat[2] = {0, 2};
    d.element_material = emat;
    expect_refusal(w, &d, "FEM element 1: material index 2 is not in [0, 2)");
    d.element_material = NULL;
    d.node_count = 6;
    expect_refusal(w, &d, "FEM node 5 belongs to no tetrahedron (it would have no mass)");
    d.node_count = 5;
    int fx[2] = {0, 9};
    d.fixed_nodes = fx;
    d.fixed_count = 2;
    expect_refusal(w, &d, "FEM fixed node 1: node index 9 is not in [0, 5)");
    d.fixed_count = 0;
    double act[2] = {0.0, -1.0};
    d.activation = act;
    expect_refusal(w, &d, "FEM element 1: activation must be finite and > -1, got -1");
    d.activation = NULL;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    CHECK(mo_fem_mesh_set_activation(w, id, 2, 0.1) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w), "FEM element 2 is not in [0, 2)"));
    CHECK(mo_fem_mesh_set_activation(w, id, 1, 0.1) == MO_OK);
    CHECK(mo_fem_mesh_set_fixed_velocity(w, id, 3, (mo_vec3){0, 0, 1}) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w), "FEM node 3 is not a fixed node of the mesh"));
    /* velocity-level solvers would ignore the elements */
    mo_solver_settings pgs = mo_default_solver_settings();
    CHECK(mo_world_set_solver(w, &pgs) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w),
                  "FEM meshes need the newton solver: solver 'pgs' would ignore the world's 1 FEM mesh(es)"));
    CHECK(mo_world_solver(w).kind == MO_SOLVER_NEWTON);
    mo_particle_id pid;
    CHECK(mo_fem_mesh_node_particle(w, id, 0, &pid) == MO_OK);
    CHECK(mo_particle_destroy(w, pid) == MO_ERR_INVALID_ARGUMENT);
    snprintf(buf, sizeof buf, "particle %u is a node of an FEM mesh: destroy the mesh instead", pid.index);
    CHECK(!strcmp(mo_world_last_error(w), buf));
    CHECK(mo_fem_mesh_destroy(w, id) == MO_OK);
    CHECK(mo_fem_mesh_destroy(w, id) == MO_ERR_STALE_ID);
    CHECK(mo_world_set_solver(w, &pgs) == MO_OK);
    expect_refusal(w, &d, "FEM meshes need the newton solver (MO_SOLVER_NEWTON); the world's solver is 'pgs'");
    mo_world_destroy(w);
    group_end("refusals: sentences naming element, node, material; world unchanged");
}

/* ---- 4 cube resting on the ground ---- */

/* mesh 0: on the ground plane; 1: on a static triangle mesh (a 2 x 2 m square of two triangles at z = 0, the
   nodes' particles against the mesh's triangles) */
static void cube_on_ground(int mesh)
{
    group_begin();
    const double h = 1.0 / 60.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, h, 10, 60);
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    const mo_vec3 sq[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    const int tri[6] = {0, 1, 2, 0, 2, 3};
    if (mesh) {
        gd.shape.type = MO_SHAPE_MESH;
        gd.shape.vertices = sq;
        gd.shape.vertex_count = 4;
        gd.shape.indices = tri;
        gd.shape.triangle_count = 2;
    }
    mo_body_id ground;
    CHECK(mo_body_create(w, &gd, &ground) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){-0.1, -0.1, 0.002}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_material_def mat = {1e6, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b.nodes;
    d.node_count = b.nn;
    d.tets = b.tets;
    d.tet_count = b.nt;
    d.materials = &mat;
    d.material_count = 1;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    double cur, rest;
    mo_fem_mesh_volume(w, id, &cur, &rest);
    CHECK_NEAR(cur, 0.008, 1e-12);
    const double weight = 500.0 * 0.008 * 9.81;
    for (int s = 0; s < 180; s++) mo_world_step(w);
    int nc = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)malloc((size_t)(nc + 1) * sizeof(mo_contact));
    mo_world_contacts(w, c, nc);
    double fz = 0.0;
    for (int i = 0; i < nc; i++) fz += c[i].impulse.x * c[i].normal.z / h;
    double vmax = 0.0, zmin = 1.0;
    for (int i = 0; i < b.nn; i++) {
        mo_particle_id pid;
        mo_vec3 v, p;
        mo_fem_mesh_node_particle(w, id, i, &pid);
        mo_particle_velocity(w, pid, &v);
        mo_particle_position(w, pid, &p);
        double sp = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        if (sp > vmax) vmax = sp;
        if (p.z < zmin) zmin = p.z;
    }
    printf("  cube on %s: %d contacts, contact force %.4f N, weight %.4f N, max node speed %.2g m/s, "
           "lowest node z %.2g m\n", mesh ? "a triangle mesh" : "ground", nc, fz, weight, vmax, zmin);
    CHECK(nc == (mesh ? 12 : 9)); /* on the mesh the 3 bottom nodes on the square's diagonal touch both triangles */
    CHECK_NEAR(fz, weight, 0.01 * weight);
    CHECK(vmax < 1e-3);
    CHECK(zmin > -1e-3);
    free(c);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(mesh ? "cube on a static triangle mesh: contact force = weight" : "cube on the ground: contact force = weight");
}

static void test_cube_on_ground(void)
{
    cube_on_ground(0);
    cube_on_ground(1);
}

/* ---- 5 fixed nodes ---- */

static void test_fixed_nodes(void)
{
    group_begin();
    const double h = 1.0 / 60.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, h, 10, 60);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_material_def mat = {1e5, 0.3, 1000.0, MO_FEM_COROTATIONAL};
    int fixed[9], nf = 0;
    for (int j = 0; j <= 2; j++)
        for (int i = 0; i <= 2; i++) fixed[nf++] = node_index(&b, i, j, 2);
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b.nodes;
    d.node_count = b.nn;
    d.tets = b.tets;
    d.tet_count = b.nt;
    d.materials = &mat;
    d.material_count = 1;
    d.fixed_nodes = fixed;
    d.fixed_count = nf;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    for (int s = 0; s < 60; s++) mo_world_step(w);
    double emax = 0.0;
    for (int f = 0; f < nf; f++) {
        mo_vec3 p, p0 = b.nodes[fixed[f]];
        mo_fem_mesh_node_position(w, id, fixed[f], &p);
        double e = sqrt((p.x - p0.x) * (p.x - p0.x) + (p.y - p0.y) * (p.y - p0.y) + (p.z - p0.z) * (p.z - p0.z));
        if (e > emax) emax = e;
    }
    mo_vec3 bot;
    mo_fem_mesh_node_position(w, id, node_index(&b, 1, 1, 0), &bot);
    printf("  fixed nodes: largest drift %.2g m; bottom centre sag %.4f m\n", emax, -bot.z);
    CHECK(emax < 1e-6);
    CHECK(bot.z < -1e-3);
    /* move one fixed corner up at 0.1 m/s for 0.5 s */
    int corner = node_index(&b, 0, 0, 2);
    CHECK(mo_fem_mesh_set_fixed_velocity(w, id, corner, (mo_vec3){0, 0, 0.1}) == MO_OK);
    for (int s = 0; s < 30; s++) mo_world_step(w);
    mo_vec3 pc;
    mo_fem_mesh_node_position(w, id, corner, &pc);
    printf("  moved fixed node: z %.6f m (target 0.25)\n", pc.z);
    CHECK_NEAR(pc.z, 0.25, 1e-6);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("fixed nodes: held at their targets, moved by their velocity");
}

/* ---- 6 boundary surface ---- */

static void test_surface(void)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, 0}, 1.0 / 60.0, 4, 20);
    box_mesh b;
    box_mesh_make(&b, 3, 2, 2, (mo_vec3){0.1, -0.2, 0.3}, (mo_vec3){0.3, 0.4, 0.2});
    mo_fem_material_def mat = {1e6, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b.nodes;
    d.node_count = b.nn;
    d.tets = b.tets;
    d.tet_count = b.nt;
    d.materials = &mat;
    d.material_count = 1;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    const int *tri = NULL;
    int nt = -1;
    CHECK(mo_fem_mesh_surface(w, id, &tri, &nt) == MO_OK);
    /* a 3 x 2 x 2 box: 2 triangles per boundary cell face, 2 (3 2 + 3 2 + 2 2) = 32 faces */
    CHECK(nt == 2 * 32);
    /* closed and wound outward: the divergence theorem gives the volume, 1/6 sum a . (b x c) */
    double vol = 0.0, area = 0.0;
    for (int i = 0; i < nt; i++) {
        mo_vec3 a = b.nodes[tri[3 * i]], p = b.nodes[tri[3 * i + 1]], c = b.nodes[tri[3 * i + 2]];
        vol += (a.x * (p.y * c.z - p.z * c.y) - a.y * (p.x * c.z - p.z * c.x) + a.z * (p.x * c.y - p.y * c.x)) / 6.0;
        double e1[3] = {p.x - a.x, p.y - a.y, p.z - a.z}, e2[3] = {c.x - a.x, c.y - a.y, c.z - a.z};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    printf("  surface of a 3 x 2 x 2 box mesh: %d triangles, enclosed volume %.12f (0.024), area %.12f (0.52)\n", nt,
           vol, area);
    CHECK_NEAR(vol, 0.3 * 0.4 * 0.2, 1e-14);
    CHECK_NEAR(area, 2 * (0.3 * 0.4 + 0.3 * 0.2 + 0.4 * 0.2), 1e-13);
    /* no interior node (the 2 interior nodes of a 3 x 2 x 2 grid) is on a triangle */
    int inner[2] = {node_index(&b, 1, 1, 1), node_index(&b, 2, 1, 1)};
    for (int i = 0; i < 3 * nt; i++) CHECK(tri[i] != inner[0] && tri[i] != inner[1]);
    CHECK(mo_fem_mesh_surface(w, (mo_fem_mesh_id){7, 1}, &tri, &nt) == MO_ERR_STALE_ID);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("boundary surface: closed, outward, no interior node");
}

/* ---- 7-10 attachments ---- */

static double fmax2(double a, double b) { return a > b ? a : b; }

static mo_fem_mesh_id block_mesh(mo_world *w, box_mesh *b, double young, double density)
{
    mo_fem_material_def mat = {young, 0.3, density, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = box_mesh_def(b, &mat, NULL, 0);
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    return id;
}

/* world point of body-frame point r */
static mo_vec3 body_point(mo_world *w, mo_body_id b, const double *r)
{
    mo_vec3 x;
    mo_quat q;
    mo_body_position(w, b, &x);
    mo_body_orientation(w, b, &q);
    double qq[4] = {q.w, q.x, q.y, q.z}, R[9], o[3];
    mat_from_quat(qq, R);
    mat_vec(R, r, o);
    return (mo_vec3){x.x + o[0], x.y + o[1], x.z + o[2]};
}

static void test_attach_kinematic(void)
{
    group_begin();
    const double h = 1.0 / 60.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, h, 10, 60);
    mo_body_def bd = mo_default_body_def();
    bd.type = MO_BODY_KINEMATIC;
    bd.position = (mo_vec3){0.1, 0.1, 0.25};
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.15, 0.15, 0.05};
    bd.linear_velocity = (mo_vec3){0.2, -0.1, 0.3};
    bd.angular_velocity = (mo_vec3){0.0, 0.3, 0.8};
    mo_body_id kb;
    CHECK(mo_body_create(w, &bd, &kb) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e5, 500.0);
    /* the top face's 9 nodes (inside the body's box: the mesh does not collide with it) */
    int att[9], na = 0;
    double r[9][3];
    for (int j = 0; j <= 2; j++)
        for (int i = 0; i <= 2; i++) {
            att[na] = node_index(&b, i, j, 2);
            CHECK(mo_fem_mesh_attach(w, id, att[na], kb, 0.0) == MO_OK);
            mo_vec3 p = b.nodes[att[na]];
            r[na][0] = p.x - 0.1; r[na][1] = p.y - 0.1; r[na][2] = p.z - 0.25; /* body starts unrotated */
            na++;
        }
    double emax = 0.0;
    for (int s = 0; s < 90; s++) {
        mo_world_step(w);
        for (int k = 0; k < na; k++) {
            mo_vec3 p, q = body_point(w, kb, r[k]);
            mo_fem_mesh_node_position(w, id, att[k], &p);
            double e = sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) + (p.z - q.z) * (p.z - q.z));
            if (e > emax) emax = e;
        }
    }
    mo_vec3 bot, xb;
    mo_fem_mesh_node_position(w, id, node_index(&b, 1, 1, 0), &bot);
    mo_body_position(w, kb, &xb);
    double dist = sqrt((xb.x - bot.x) * (xb.x - bot.x) + (xb.y - bot.y) * (xb.y - bot.y) + (xb.z - bot.z) * (xb.z - bot.z));
    printf("  kinematic carry (1.5 s, turned by (0, 0.45, 1.2) rad): largest node-to-body-point error %.2g m, "
           "bottom centre %.4f m from the body centre (0.25 at rest), %.4f m below it, %d contacts\n", emax, dist,
           xb.z - bot.z, mo_world_contacts(w, NULL, 0));
    CHECK(emax < 1e-6);
    CHECK(mo_world_contacts(w, NULL, 0) == 0); /* no contact between the mesh and its body */
    CHECK(dist > 0.2 && dist < 0.3);           /* the block hangs on: neither torn nor crushed */
    CHECK(xb.z - bot.z > 0.2);
    CHECK(mo_world_last_stats(w).nan_warnings == 0);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("attachments to a kinematic body: nodes follow it");
}

static void test_attach_statics_c(double compliance)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){0.1, 0.1, 0.25};
    bd.mass = 2.0;
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.15, 0.15, 0.05};
    mo_body_id db;
    CHECK(mo_body_create(w, &bd, &db) == MO_OK);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_FIXED;
    jd.body_b = db;
    jd.anchor_a = (mo_vec3){0.1, 0.1, 0.25};
    mo_joint_id jid;
    CHECK(mo_joint_create(w, &jd, &jid) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e5, 500.0);
    const double mesh_w = 500.0 * 0.008 * g, body_w = 2.0 * g;
    for (int j = 0; j <= 2; j++)
        for (int i = 0; i <= 2; i++)
            CHECK(mo_fem_mesh_attach(w, id, node_index(&b, i, j, 2), db, compliance) == MO_OK);
    for (int s = 0; s < 240; s++) mo_world_step(w);
    double fz = 0.0, espring = 0.0, fmax = 0.0;
    for (int j = 0; j <= 2; j++)
        for (int i = 0; i <= 2; i++) {
            mo_vec3 f, p;
            mo_body_id ob;
            int nd = node_index(&b, i, j, 2);
            CHECK(mo_fem_mesh_attachment(w, id, nd, &ob, &f) == MO_OK);
            CHECK(ob.index == db.index && ob.generation == db.generation);
            fz += f.z;
            /* statics of C + eps lambda = 0: the node sits eps f from its body point, against f */
            double r[3] = {b.nodes[nd].x - 0.1, b.nodes[nd].y - 0.1, b.nodes[nd].z - 0.25};
            mo_vec3 q = body_point(w, db, r);
            mo_fem_mesh_node_position(w, id, nd, &p);
            double e[3] = {p.x - q.x + compliance * f.x, p.y - q.y + compliance * f.y, p.z - q.z + compliance * f.z};
            espring = fmax2(espring, sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]));
            fmax = fmax2(fmax, sqrt(f.x * f.x + f.y * f.y + f.z * f.z));
        }
    mo_vec3 jf, jt;
    CHECK(mo_joint_reaction(w, jid, &jf, &jt) == MO_OK);
    double vmax = 0.0;
    for (int i = 0; i < b.nn; i++) {
        mo_particle_id pid;
        mo_vec3 v;
        mo_fem_mesh_node_particle(w, id, i, &pid);
        mo_particle_velocity(w, pid, &v);
        double sp = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        if (sp > vmax) vmax = sp;
    }
    printf("  hanging block, attachment compliance %g m/N: attachment forces on the nodes %.5f N up (mesh weight "
           "%.5f N), weld on the body %.5f N (body + mesh %.5f N), max node speed %.2g m/s; node - body point + eps f: "
           "%.2g m (largest eps f %.3g m)\n", compliance, fz, mesh_w, jf.z, mesh_w + body_w, vmax, espring,
           compliance * fmax);
    CHECK(espring < 1e-8);
    CHECK_NEAR(fz, mesh_w, 0.005 * mesh_w);
    CHECK_NEAR(jf.z, mesh_w + body_w, 0.005 * (mesh_w + body_w));
    CHECK(vmax < 1e-3);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(compliance > 0 ? "compliant attachments in statics: weight, offset = compliance x force"
                             : "attachments in statics: reaction = the mesh's weight");
}

static void test_attach_statics(void)
{
    test_attach_statics_c(0.0);
    test_attach_statics_c(1e-4);
}

/* After mo_step_predict and mo_step_collide: assembles the step and checks the last `last` rows of the
   Newton system (all of type `type`) against central differences of mo_newton_probe along a random
   direction (v random with the first body's angular velocity 0, lambda in [lam_lo, 5]); worst relative
   error and largest directional derivative out */
static void fd_last_rows(mo_world *w, uint64_t seed, double lam_lo, int last, int type_want, double *worst,
                         double *cmax)
{
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    int n = p.n, m = p.m + mo_fem_newton_rows(w, NULL), nc = w->ncontacts;
    mo_newton_settings ns = mo_world_solver(w).newton;
    double *v = calloc((size_t)n, sizeof(double)), *dv = calloc((size_t)n, sizeof(double));
    double *vp = calloc((size_t)n, sizeof(double)), *vm = calloc((size_t)n, sizeof(double));
    double *lam = calloc((size_t)m, sizeof(double)), *dl = calloc((size_t)m, sizeof(double));
    double *g = calloc((size_t)m, sizeof(double)), *dg = calloc((size_t)m, sizeof(double));
    double *gp = calloc((size_t)m, sizeof(double)), *gm = calloc((size_t)m, sizeof(double));
    /* the frozen scalings (m) and one W per frictional contact (at most nc + m) */
    double *tmp = calloc((size_t)m, sizeof(double)), *wf = calloc((size_t)(2 * m + nc) + 1, sizeof(double));
    uint8_t *type = calloc((size_t)m, 1);
    /* the body's DOFs come first (owners: bodies, then particles): linear random, angular 0 */
    for (int i = 0; i < n; i++) {
        v[i] = (i >= 3 && i < 6) ? 0.0 : sm64_uniform(&seed, -0.3, 0.3);
        dv[i] = sm64_uniform(&seed, -1, 1);
    }
    for (int r = 0; r < m; r++) {
        lam[r] = sm64_uniform(&seed, lam_lo, 5);
        dl[r] = sm64_uniform(&seed, -1, 1);
    }
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, &ns, v, lam, dv, dl, NULL, wf, g, dg, type) == 0);
    const double d = 1e-6;
    for (int i = 0; i < n; i++) { vp[i] = v[i] + d * dv[i]; vm[i] = v[i] - d * dv[i]; }
    for (int r = 0; r < m; r++) lam[r] += d * dl[r];
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, &ns, vp, lam, dv, dl, wf, NULL, gp, tmp, type) == 0);
    for (int r = 0; r < m; r++) lam[r] -= 2 * d * dl[r];
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, &ns, vm, lam, dv, dl, wf, NULL, gm, tmp, type) == 0);
    *worst = 0.0;
    *cmax = 0.0;
    for (int r = m - last; r < m; r++) {
        double fd = (gp[r] - gm[r]) / (2 * d);
        double e = fabs(fd - dg[r]) / (fabs(dg[r]) + 1e-3 * (1.0 + fabs(dg[r])));
        if (e > *worst) *worst = e;
        if (fabs(dg[r]) > *cmax) *cmax = fabs(dg[r]);
        /* type_want < 0: surface-contact triples (normal NCP row, two friction rows) */
        int want = type_want >= 0 ? type_want : ((r - (m - last)) % 3 ? MO_NROW_FRICTION : MO_NROW_NCP);
        CHECK(type[r] == want);
    }
    free(v); free(dv); free(vp); free(vm); free(lam); free(dl); free(g); free(dg); free(gp); free(gm); free(tmp);
    free(wf); free(type);
}

static void test_attach_fd(void)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){0.1, 0.1, 0.3};
    double ang = 0.7, ax[3] = {0.3, -0.5, 0.8}, l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    bd.orientation = (mo_quat){cos(ang / 2), sin(ang / 2) * ax[0] / l, sin(ang / 2) * ax[1] / l, sin(ang / 2) * ax[2] / l};
    bd.mass = 1.5;
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.1, 0.05, 0.08};
    bd.linear_velocity = (mo_vec3){0.1, 0.2, -0.3};
    bd.angular_velocity = (mo_vec3){1.0, -0.5, 0.7};
    mo_body_id db;
    CHECK(mo_body_create(w, &bd, &db) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 1, 1, 1, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e5, 500.0);
    CHECK(mo_fem_mesh_attach(w, id, node_index(&b, 0, 0, 1), db, 0.0) == MO_OK);
    CHECK(mo_fem_mesh_attach(w, id, node_index(&b, 1, 1, 1), db, 1e-4) == MO_OK);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    double worst, cmax;
    fd_last_rows(w, 5, -5.0, 6, 0, &worst, &cmax); /* the 2 attachments' rows are the last 6, bilateral */
    printf("  attachment rows: worst relative FD error %.2g (largest directional derivative %.3g m)\n", worst, cmax);
    CHECK(worst < 1e-5);
    CHECK(cmax > 1e-4); /* the rows move with v */
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("attachment rows: Jacobian vs finite differences");
}

static void expect_attach_refusal(mo_world *w, mo_fem_mesh_id id, int node, mo_body_id body, double c,
                                  mo_status want, const char *sentence)
{
    uint64_t h0 = mo_world_state_hash(w);
    CHECK(mo_fem_mesh_attach(w, id, node, body, c) == want);
    CHECK(mo_world_state_hash(w) == h0);
    if (strcmp(mo_world_last_error(w), sentence)) {
        fprintf(stderr, "  expected: %s\n  got:      %s\n", sentence, mo_world_last_error(w));
        CHECK(!"sentence");
    }
}

static void test_attach_refusals(void)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){0, 0, 1};
    bd.shape.type = MO_SHAPE_SPHERE;
    bd.shape.radius = 0.05;
    mo_body_id b1, b2, dead;
    CHECK(mo_body_create(w, &bd, &b1) == MO_OK);
    CHECK(mo_body_create(w, &bd, &b2) == MO_OK);
    CHECK(mo_body_create(w, &bd, &dead) == MO_OK);
    CHECK(mo_body_destroy(w, dead) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 1, 1, 1, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.2});
    mo_fem_material_def mat = {1e5, 0.3, 500.0, MO_FEM_COROTATIONAL};
    int fixed[1] = {0};
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b.nodes;
    d.node_count = b.nn;
    d.tets = b.tets;
    d.tet_count = b.nt;
    d.materials = &mat;
    d.material_count = 1;
    d.fixed_nodes = fixed;
    d.fixed_count = 1;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    char buf[200];
    snprintf(buf, sizeof buf, "FEM node 3: body id (index %u, generation %u) does not name a live body", dead.index,
             dead.generation);
    expect_attach_refusal(w, id, 3, dead, 0.0, MO_ERR_STALE_ID, buf);
    expect_attach_refusal(w, id, 8, b1, 0.0, MO_ERR_INVALID_ARGUMENT, "FEM node 8 is not in [0, 8)");
    expect_attach_refusal(w, id, 3, b1, -1.0, MO_ERR_INVALID_ARGUMENT,
                          "FEM node 3: attachment compliance must be finite and >= 0, got -1");
    snprintf(buf, sizeof buf, "FEM node 0 is a fixed node: it cannot also be attached to body %u", b1.index);
    expect_attach_refusal(w, id, 0, b1, 0.0, MO_ERR_INVALID_ARGUMENT, buf);
    expect_attach_refusal(w, (mo_fem_mesh_id){5, 1}, 3, b1, 0.0, MO_ERR_STALE_ID,
                          "FEM mesh id (index 5, generation 1) does not name a live mesh");
    CHECK(mo_fem_mesh_attach(w, id, 3, b1, 0.0) == MO_OK);
    snprintf(buf, sizeof buf, "FEM node 3 is already attached to body %u: detach it first", b1.index);
    expect_attach_refusal(w, id, 3, b2, 0.0, MO_ERR_INVALID_ARGUMENT, buf);
    CHECK(mo_fem_mesh_detach(w, id, 5) == MO_ERR_INVALID_ARGUMENT);
    CHECK(!strcmp(mo_world_last_error(w), "FEM node 5 is not attached to a body"));
    CHECK(mo_fem_mesh_attach(w, id, 5, b2, 0.0) == MO_OK);
    CHECK(mo_fem_mesh_detach(w, id, 3) == MO_OK);
    CHECK(mo_fem_mesh_attachment(w, id, 3, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_fem_mesh_attach(w, id, 3, b2, 0.0) == MO_OK); /* re-attach after detach */
    mo_world_step(w);
    /* destroying body 2 removes its two attachments */
    mo_body_id ob;
    CHECK(mo_fem_mesh_attachment(w, id, 5, &ob, NULL) == MO_OK && ob.index == b2.index);
    CHECK(mo_body_destroy(w, b2) == MO_OK);
    CHECK(mo_fem_mesh_attachment(w, id, 5, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_fem_mesh_attachment(w, id, 3, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    mo_world_step(w);
    mo_body_id b3;
    CHECK(mo_body_create(w, &bd, &b3) == MO_OK); /* may reuse body 2's slot: a new generation, not attached */
    CHECK(mo_fem_mesh_attachment(w, id, 5, NULL, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_fem_mesh_attach(w, id, 5, b3, 0.0) == MO_OK);
    CHECK(mo_fem_mesh_destroy(w, id) == MO_OK);
    CHECK(mo_world_last_stats(w).nan_warnings == 0);
    mo_world_step(w);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("attachment refusals; a destroyed body's attachments go with it");
}

/* ---- 11-12 surface collision ---- */

static void test_surface_contacts(void)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
    /* a static box enclosing a 3 x 3 x 3 cell mesh: every boundary node touches it, no interior node may */
    mo_body_def bd = mo_default_body_def();
    bd.type = MO_BODY_STATIC;
    bd.position = (mo_vec3){0.15, 0.15, 0.15};
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.2, 0.2, 0.2};
    mo_body_id sb;
    CHECK(mo_body_create(w, &bd, &sb) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 3, 3, 3, (mo_vec3){0, 0, 0}, (mo_vec3){0.3, 0.3, 0.3});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e5, 500.0);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    int nc = w->ncontacts, interior = 0;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int c = 0; c < nc; c++) {
        mo_vec3 p = {0, 0, 0};
        for (int i = 0; i < b.nn; i++) {
            mo_particle_id pid;
            mo_fem_mesh_node_particle(w, id, i, &pid);
            if ((int)pid.index - 1 == ct[c].particle) {
                int k = i / 16, j = (i / 4) % 4, q = i % 4;
                interior += k > 0 && k < 3 && j > 0 && j < 3 && q > 0 && q < 3;
                mo_fem_mesh_node_position(w, id, i, &p);
            }
        }
        (void)p;
    }
    /* boundary nodes of a 4 x 4 x 4 grid: 64 - 8 */
    printf("  mesh of 64 nodes (8 interior) inside a static box: %d contacts, %d from interior nodes\n", nc, interior);
    CHECK(nc == 56);
    CHECK(interior == 0);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("surface collision: interior nodes never touch anything");
}

static void test_box_on_slab(void)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81, mb = 2.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id ground;
    CHECK(mo_body_create(w, &gd, &ground) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 4, 4, 1, (mo_vec3){-0.2, -0.2, 0.0}, (mo_vec3){0.4, 0.4, 0.05});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e6, 500.0);
    (void)id;
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){0.0, 0.0, 0.05 + 0.05 + 0.02};
    bd.mass = mb;
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.12, 0.12, 0.05}; /* the 9 nodes under it inside its face: normals vertical */
    bd.shape.friction = 0.5;
    mo_body_id box;
    CHECK(mo_body_create(w, &bd, &box) == MO_OK);
    for (int s = 0; s < 120; s++) mo_world_step(w);
    int nc = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)malloc((size_t)(nc + 1) * sizeof(mo_contact));
    mo_world_contacts(w, c, nc);
    double fbox = 0.0, fground = 0.0;
    int nbox = 0;
    for (int i = 0; i < nc; i++) {
        bool on_box = (c[i].body_a.index == box.index && c[i].body_a.generation == box.generation) ||
                      (c[i].body_b.index == box.index && c[i].body_b.generation == box.generation);
        double f = fabs(c[i].impulse.x * c[i].normal.z) / h; /* vertical part */
        if (on_box) { fbox += f; nbox++; }
        else fground += f;
    }
    mo_vec3 xb, vb;
    mo_body_position(w, box, &xb);
    mo_body_linear_velocity(w, box, &vb);
    const double slab_w = 500.0 * 0.4 * 0.4 * 0.05 * g;
    double fcorner = 0.0;
    int ncorner = mo_fem_surface_contacts(w, &fcorner); /* its 4 bottom corners on the slab's top triangles, */
    int nlayer = mo_fem_surface_edge_contacts(w);       /* and its bottom edges across the triangles */
    printf("  box on an FEM slab: %d node contacts carrying %.4f N and %d triangle contacts (%d corners, %d edge "
           "crossings) %.4f N: %.4f N (weight %.4f N), ground %.4f N (box + slab %.4f N), box bottom at "
           "z %.5f m (slab top 0.05), speed %.2g m/s\n", nbox, fbox, ncorner, ncorner - nlayer, nlayer, fcorner,
           fbox + fcorner, mb * g, fground, mb * g + slab_w, xb.z - 0.05, sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z));
    CHECK(ncorner - nlayer == 4);
    fbox += fcorner;
    CHECK(nbox >= 9);
    CHECK_NEAR(fbox, mb * g, 0.01 * mb * g);
    CHECK_NEAR(fground, mb * g + slab_w, 0.01 * (mb * g + slab_w));
    CHECK(xb.z - 0.05 > 0.045 && xb.z - 0.05 < 0.051);
    CHECK(fabs(vb.z) < 1e-3);
    /* mo_body_contact_force: the node contacts (the box is their A: it gets -force) and the triangle
       contacts together; the ground gets the weight of both, downward */
    mo_vec3 ft, tt, fg;
    CHECK(mo_body_contact_force(w, box, &ft, &tt) == MO_OK);
    CHECK(mo_body_contact_force(w, ground, &fg, NULL) == MO_OK);
    printf("  mo_body_contact_force: box (%.3g, %.3g, %.6f) N, torque |%.3g| N m; ground z %.6f N\n", ft.x, ft.y,
           ft.z, sqrt(tt.x * tt.x + tt.y * tt.y + tt.z * tt.z), fg.z);
    CHECK_NEAR(ft.z, fbox, 1e-5 * fbox); /* fbox: normal parts only (measured 2e-5 N apart) */
    CHECK_NEAR(ft.z, mb * g, 1e-9 * mb * g); /* measured: to rounding */
    CHECK(fabs(ft.x) < 1e-9 && fabs(ft.y) < 1e-9);
    CHECK(sqrt(tt.x * tt.x + tt.y * tt.y + tt.z * tt.z) < 1e-9);
    CHECK_NEAR(fg.z, -fground, 1e-9 * fground);
    free(c);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("box on an FEM slab: contact force = weight");
}

/* ---- 13 the gripper-ball principle: a block squeezed between two pads and lifted by friction ---- */

static void test_squeeze_lift(void)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id ground;
    CHECK(mo_body_create(w, &gd, &ground) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 2, (mo_vec3){-0.05, -0.05, 0.0}, (mo_vec3){0.1, 0.1, 0.1});
    mo_fem_material_def mat = {1e5, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b.nodes;
    d.node_count = b.nn;
    d.tets = b.tets;
    d.tet_count = b.nt;
    d.materials = &mat;
    d.material_count = 1;
    d.friction = 0.8;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    /* two kinematic pads 5 mm off the block's sides, taller than it */
    mo_body_id pad[2];
    for (int k = 0; k < 2; k++) {
        mo_body_def pd = mo_default_body_def();
        pd.type = MO_BODY_KINEMATIC;
        pd.position = (mo_vec3){(k ? 1 : -1) * (0.05 + 0.005 + 0.01), 0.0, 0.06};
        pd.shape.type = MO_SHAPE_BOX;
        pd.shape.half_extents = (mo_vec3){0.01, 0.08, 0.08};
        pd.shape.friction = 0.8;
        CHECK(mo_body_create(w, &pd, &pad[k]) == MO_OK);
    }
    double z0 = 0.0;
    for (int i = 0; i < b.nn; i++) z0 += b.nodes[i].z / b.nn;
    /* close 10 mm each at 0.04 m/s (0.25 s): 5 mm of squeeze a side; hold 0.1 s; lift at 0.1 m/s for
       0.5 s; hold 0.25 s */
    const int n_close = 15, n_hold = 6, n_lift = 30, n_end = 15;
    for (int s = 0; s < n_close + n_hold + n_lift + n_end; s++) {
        for (int k = 0; k < 2; k++) {
            mo_vec3 v = {0, 0, 0};
            if (s < n_close) v.x = (k ? -1 : 1) * 0.04;
            else if (s >= n_close + n_hold && s < n_close + n_hold + n_lift) v.z = 0.1;
            mo_body_set_velocity(w, pad[k], v, (mo_vec3){0, 0, 0});
        }
        mo_world_step(w);
    }
    double c[3] = {0, 0, 0}, zmin = 1.0;
    for (int i = 0; i < b.nn; i++) {
        mo_vec3 p;
        mo_fem_mesh_node_position(w, id, i, &p);
        c[0] += p.x / b.nn, c[1] += p.y / b.nn, c[2] += p.z / b.nn;
        if (p.z < zmin) zmin = p.z;
    }
    int nc = mo_world_contacts(w, NULL, 0), nground = 0;
    mo_contact *ct = (mo_contact *)malloc((size_t)(nc + 1) * sizeof(mo_contact));
    mo_world_contacts(w, ct, nc);
    double fn = 0.0;
    for (int i = 0; i < nc; i++) {
        if (ct[i].body_a.index == ground.index) nground += ct[i].impulse.x != 0.0;
        else fn += fabs(ct[i].impulse.x) / h;
    }
    mo_vec3 xp;
    mo_body_position(w, pad[0], &xp);
    const double lift = xp.z - 0.06, weight = 500.0 * 0.001 * g;
    printf("  squeeze and lift: pads up %.4f m, block centre up %.4f m (x %.2g, y %.2g), lowest node %.4f m, "
           "%d pad contacts pressing %.2f N in all (weight %.3f N), %d loaded ground contacts\n", lift, c[2] - z0,
           c[0], c[1], zmin, nc, fn, weight, nground);
    CHECK_NEAR(lift, 0.05, 1e-9);
    CHECK_NEAR(c[2] - z0, lift, 2e-3); /* rises with the pads: friction holds it */
    CHECK(fabs(c[0]) < 1e-3);         /* between them */
    CHECK(zmin > 0.04);               /* off the ground */
    CHECK(nground == 0);
    CHECK(fn > 2.0 * weight / 0.8);    /* the squeeze exceeds what friction needs */
    CHECK(mo_world_last_stats(w).nan_warnings == 0);
    free(ct);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("squeezed block lifted by two pads' friction (gripper principle)");
}

/* ---- 14-15 rigid vertices against boundary triangles ---- */

static void test_surface_fd(void)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 1, (mo_vec3){-0.2, -0.2, 0.0}, (mo_vec3){0.4, 0.4, 0.05});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e6, 500.0);
    (void)id;
    /* a tilted box whose lowest corner is 2 mm above the slab's top, away from its nodes */
    mo_body_def bd = mo_default_body_def();
    double ang = 0.3, ax[3] = {1.0, 0.4, 0.0}, l = sqrt(ax[0] * ax[0] + ax[1] * ax[1]);
    bd.orientation = (mo_quat){cos(ang / 2), sin(ang / 2) * ax[0] / l, sin(ang / 2) * ax[1] / l, 0.0};
    bd.position = (mo_vec3){0.05, 0.06, 0.3};
    bd.mass = 1.0;
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.04, 0.03, 0.02};
    bd.linear_velocity = (mo_vec3){0.1, -0.2, -0.3};
    bd.angular_velocity = (mo_vec3){0.5, 1.0, -0.7};
    mo_body_id db;
    CHECK(mo_body_create(w, &bd, &db) == MO_OK);
    /* lower it so that its lowest corner is 2 mm above z = 0.05 */
    double zmin = 1e9;
    for (int c = 0; c < 8; c++) {
        double v[3] = {(c & 1) ? 0.04 : -0.04, (c & 2) ? 0.03 : -0.03, (c & 4) ? 0.02 : -0.02}, R[9], o[3];
        double q[4] = {bd.orientation.w, bd.orientation.x, bd.orientation.y, bd.orientation.z};
        mat_from_quat(q, R);
        mat_vec(R, v, o);
        if (o[2] < zmin) zmin = o[2];
    }
    bd.position.z = 0.05 + 0.002 - zmin;
    CHECK(mo_body_destroy(w, db) == MO_OK);
    CHECK(mo_body_create(w, &bd, &db) == MO_OK);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    int nsc = mo_fem_surface_contacts(w, NULL);
    double worst, cmax;
    /* the vertex-triangle contacts' rows are the last 3 nsc: normal (NCP) and two friction rows each */
    fd_last_rows(w, 9, 0.0, 3 * nsc, -1, &worst, &cmax);
    printf("  %d vertex-triangle contacts (%d edge crossings), %d rows: worst relative FD error %.2g (largest "
           "directional derivative %.3g)\n", nsc, mo_fem_surface_edge_contacts(w), 3 * nsc, worst, cmax);
    CHECK(nsc >= 1);
    CHECK(worst < 1e-5);
    CHECK(cmax > 1e-4);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("vertex-triangle rows: Jacobian vs finite differences");
}

/* a box of half extents he as a closed triangle mesh shape: corner c at (+-he) by its bits (into v, which
   the shape points at), 2 triangles per face, counter-clockwise seen from outside */
static void box_tri_mesh(mo_shape_def *sd, mo_vec3 he, mo_vec3 v[8])
{
    static const int tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    for (int c = 0; c < 8; c++) v[c] = (mo_vec3){c & 1 ? he.x : -he.x, c & 2 ? he.y : -he.y, c & 4 ? he.z : -he.z};
    sd->type = MO_SHAPE_MESH;
    sd->vertices = v;
    sd->vertex_count = 8;
    sd->indices = tris;
    sd->triangle_count = 12;
}

static void test_box_between_nodes_shape(int sphere)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81, mb = 0.5;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    mo_body_id ground;
    CHECK(mo_body_create(w, &gd, &ground) == MO_OK);
    box_mesh b;
    box_mesh_make(&b, 4, 4, 1, (mo_vec3){-0.2, -0.2, 0.0}, (mo_vec3){0.4, 0.4, 0.05});
    mo_fem_mesh_id id = block_mesh(w, &b, 1e6, 500.0);
    (void)id;
    /* a 6 cm box (or a sphere of radius 3 cm) over the middle of a 10 cm cell: no node under its face,
       only its corners (its centre) on the slab's triangles can hold it */
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){0.05, 0.05, 0.05 + 0.03 + 0.005};
    bd.mass = mb;
    bd.shape.type = sphere == 1 ? MO_SHAPE_SPHERE : MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.03, 0.03, 0.03};
    bd.shape.radius = 0.03;
    /* sphere == 2: the box as a closed triangle mesh, its 4 bottom vertices the points */
    mo_vec3 cube_v[8];
    if (sphere == 2) box_tri_mesh(&bd.shape, (mo_vec3){0.03, 0.03, 0.03}, cube_v);
    mo_body_id box;
    CHECK(mo_body_create(w, &bd, &box) == MO_OK);
    for (int s = 0; s < 90; s++) mo_world_step(w);
    double f = 0.0;
    int nsc = mo_fem_surface_contacts(w, &f), nbox = 0;
    int nc = mo_world_contacts(w, NULL, 0);
    mo_contact *c = (mo_contact *)malloc((size_t)(nc + 1) * sizeof(mo_contact));
    mo_world_contacts(w, c, nc);
    for (int i = 0; i < nc; i++) nbox += c[i].body_a.index == box.index && c[i].impulse.x != 0.0;
    mo_vec3 xb, vb;
    mo_body_position(w, box, &xb);
    mo_body_linear_velocity(w, box, &vb);
    printf("  6 cm %s between the slab's nodes: %d loaded node contacts, %d %s-triangle contacts carrying %.4f N "
           "(weight %.4f N), bottom at z %.5f m (slab top 0.05), speed %.2g m/s\n",
           sphere == 1 ? "sphere" : sphere == 2 ? "triangle-mesh cube" : "box", nbox, nsc,
           sphere == 1 ? "centre" : "corner", f, mb * g, xb.z - 0.03, sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z));
    CHECK(nbox == 0);
    /* the mesh cube: its 4 bottom vertices and the crossing of its bottom face's diagonal edge with the
       wall through the cell's diagonal */
    CHECK(nsc == (sphere == 1 ? 1 : sphere == 2 ? 5 : 4));
    CHECK_NEAR(f, mb * g, 0.01 * mb * g);
    CHECK(fabs(xb.z - 0.03 - 0.05) < 1e-3);
    CHECK(fabs(vb.z) < 1e-3);
    free(c);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(sphere == 1 ? "a sphere on a slab between its nodes: held by its centre's triangle"
              : sphere == 2 ? "a triangle-mesh cube on a slab between its nodes: held by its vertices' triangles"
                            : "a box on a slab between its nodes: held by its corners' triangles");
}

static void test_box_between_nodes(void)
{
    test_box_between_nodes_shape(0);
    test_box_between_nodes_shape(1);
    test_box_between_nodes_shape(2);
}

/* ---- 16-19 rigid shapes across the boundary triangles (edge crossings, the collision layer), with friction ---- */

/* a slab of 4 x 4 x 1 cells, 0.4 x 0.4 x 0.05 m (mesh frame from (-0.2, -0.2, 0)), bottom nodes fixed, posed by
   (pos, q), E 1e6 Pa, density 500, node friction mu */
static mo_fem_mesh_id fixed_slab(mo_world *w, box_mesh *b, double mu, mo_vec3 pos, mo_quat q)
{
    box_mesh_make(b, 4, 4, 1, (mo_vec3){-0.2, -0.2, 0.0}, (mo_vec3){0.4, 0.4, 0.05});
    int fixed[25], nf = 0;
    for (int j = 0; j <= b->ny; j++)
        for (int i = 0; i <= b->nx; i++) fixed[nf++] = node_index(b, i, j, 0);
    mo_fem_material_def mat = {1e6, 0.3, 500.0, MO_FEM_COROTATIONAL};
    mo_fem_mesh_def d = box_mesh_def(b, &mat, fixed, nf);
    d.friction = mu;
    d.position = pos;
    d.orientation = q;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);
    return id;
}

/* the forces on body b this step: from its node contacts (f_node, their normal parts' sum fn_node, count n_node)
   and from its triangle contacts (f_tri) */
static void body_forces(mo_world *w, mo_body_id b, double *f_node, double *fn_node, int *n_node, double *f_tri)
{
    const double h = mo_world_time_step(w);
    const int slot = (int)b.index - 1;
    f_node[0] = f_node[1] = f_node[2] = 0.0;
    *fn_node = 0.0;
    *n_node = 0;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    for (int c = 0; c < w->ncontacts; c++) {
        const mo_contact_int *k = &ct[c];
        double sgn = k->body_a == slot ? -1.0 : (k->body_b == slot ? 1.0 : 0.0); /* impulses are on B */
        if (sgn == 0.0 || k->particle < 0) continue;
        for (int q = 0; q < 3; q++) {
            const double *e = q == 0 ? k->n : q == 1 ? k->t1 : k->t2;
            for (int a = 0; a < 3; a++) f_node[a] += sgn * k->impulse[q] * e[a] / h;
        }
        *fn_node += k->impulse[0] / h;
        *n_node += k->impulse[0] != 0.0;
    }
    mo_fem_surface_force(w, slot, f_tri);
}

/* a capsule or a long box lying across the slab between its node lines: only the collision layer's points hold it */
static void test_across_slab_shape(int box)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81, mb = 1.0, r = 0.02;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    box_mesh b;
    fixed_slab(w, &b, 0.5, (mo_vec3){0, 0, 0}, (mo_quat){1, 0, 0, 0});
    mo_body_def bd = mo_default_body_def();
    bd.mass = mb;
    /* a triangular prism 0.6 m long along x as a convex hull: bottom face 0.06 m wide at z = -0.02, ridge at
       z = +0.03 (its vertices off the slab, like the bar's) */
    mo_vec3 bar_v[8]; /* box == 4: the bar as a triangle mesh */
    const mo_vec3 prism[6] = {{-0.3, -0.03, -0.02}, {-0.3, 0.03, -0.02}, {-0.3, 0.0, 0.03},
                              {0.3, -0.03, -0.02},  {0.3, 0.03, -0.02},  {0.3, 0.0, 0.03}};
    if (box == 1) { /* a 0.6 x 0.06 x 0.06 m bar lying flat along x: its corners off the slab, no node under its face */
        bd.position = (mo_vec3){0.0, 0.05, 0.05 + 0.03 + 0.003};
        bd.shape.type = MO_SHAPE_BOX;
        bd.shape.half_extents = (mo_vec3){0.3, 0.03, 0.03};
    } else if (box == 3) {
        bd.position = (mo_vec3){0.0, 0.05, 0.05 + 0.02 + 0.003};
        bd.shape.type = MO_SHAPE_CONVEX_HULL;
        bd.shape.points = prism;
        bd.shape.point_count = 6;
    } else if (box == 4) { /* the bar as a closed triangle mesh (8 vertices, 12 triangles) */
        bd.position = (mo_vec3){0.0, 0.05, 0.05 + 0.03 + 0.003};
        box_tri_mesh(&bd.shape, (mo_vec3){0.3, 0.03, 0.03}, bar_v);
    } else { /* axis along x, caps' centres (a cylinder's caps) at x = -+0.3 (the slab spans -0.2..0.2) */
        bd.orientation = (mo_quat){cos(MO_PI / 4), 0, sin(MO_PI / 4), 0};
        bd.position = (mo_vec3){0.0, 0.05, 0.05 + r + 0.003};
        bd.shape.type = box == 2 ? MO_SHAPE_CYLINDER : MO_SHAPE_CAPSULE;
        bd.shape.radius = r;
        bd.shape.half_height = 0.3;
    }
    mo_body_id body;
    CHECK(mo_body_create(w, &bd, &body) == MO_OK);
    for (int s = 0; s < 90; s++) mo_world_step(w);
    double fnode[3], fnn, ftri[3], fn = 0.0;
    int nnode;
    body_forces(w, body, fnode, &fnn, &nnode, ftri);
    int nsc = mo_fem_surface_contacts(w, &fn), nlayer = mo_fem_surface_edge_contacts(w);
    double gap = mo_fem_surface_min_gap(w);
    mo_vec3 xb, vb;
    mo_body_position(w, body, &xb);
    mo_body_linear_velocity(w, body, &vb);
    printf("  %s across the slab: %d triangle contacts (%d edge crossings or layer points) with normal forces %.6f N, vertical force "
           "%.6f N + %d loaded node contacts %.6f N (weight %.6f N); deepest row %.3g m, centre z %.5f m, speed %.2g m/s\n",
           box == 1 ? "0.6 m bar (0.06 m square) lying flat" : box == 4 ? "the bar as a triangle mesh" : box == 3 ? "0.6 m triangular prism (hull) on its face" : box == 2 ? "cylinder r 0.02 m, 0.6 m long" : "capsule r 0.02 m, 0.6 m between caps", nsc, nlayer, fn, ftri[2], nnode,
           fnode[2], mb * g, gap, xb.z, sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z));
    CHECK(nlayer == nsc);   /* no vertex or cap centre over the slab */
    CHECK(nlayer >= 2);
    CHECK(nnode == 0);      /* no node under it */
    CHECK_NEAR(fn, mb * g, 1e-3 * mb * g);
    CHECK_NEAR(ftri[2], mb * g, 1e-3 * mb * g);
    CHECK(gap > -1e-4);     /* penetration below 0.1 mm */
    /* on the slab's top (its sag under the load included); the prism's body origin is its centroid, 0.02 - 0.01 / 3
       above its bottom face */
    CHECK(xb.z > 0.05 + (box == 1 || box == 4 ? 0.03 : box == 3 ? 0.02 - 0.01 / 3.0 : r) - 2e-3);
    CHECK(fabs(vb.z) < 1e-3);
    CHECK(sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z) < 1e-6); /* at rest: neither sliding nor rolling */
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(box == 1 ? "a bar's bottom edges across the slab's faces rest on them (edge crossings)"
              : box == 3 ? "a hull prism's bottom edges across the slab's faces rest on them (edge crossings)"
              : box == 4 ? "a triangle-mesh bar's bottom edges across the slab's faces rest on them"
              : box == 2 ? "a cylinder's side across the slab's faces rests on them (collision layer)"
                         : "a capsule's side across the slab's faces rests on them (collision layer)");
}

static void test_across_slab(void)
{
    test_across_slab_shape(0);
    test_across_slab_shape(1);
    test_across_slab_shape(2);
    test_across_slab_shape(3);
    test_across_slab_shape(4);
}

/* implicit Euler of a block decelerated by mu g from v0: v_k = v0 - k mu g h until it would turn, x += h v_k */
static double euler_stop_distance(double v0, double a, double h)
{
    double x = 0.0, v = v0;
    while (v - a * h > 0.0) {
        v -= a * h;
        x += h * v;
    }
    return x;
}

/* a 6 cm box sliding over the middle of the slab's cells: its corners' triangle rows carry the friction */
static void test_slide_stop(void)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81, mu = 0.3, v0 = 1.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 10, 60);
    box_mesh b;
    fixed_slab(w, &b, mu, (mo_vec3){0, 0, 0}, (mo_quat){1, 0, 0, 0});
    mo_body_def bd = mo_default_body_def();
    bd.mass = 0.5;
    bd.position = (mo_vec3){-0.15, 0.05, 0.05 + 0.03};
    bd.linear_velocity = (mo_vec3){v0, 0, 0};
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.03, 0.03, 0.03};
    bd.shape.friction = mu;
    mo_body_id box;
    CHECK(mo_body_create(w, &bd, &box) == MO_OK);
    int stop = -1;
    for (int s = 0; s < 60; s++) {
        mo_world_step(w);
        mo_vec3 v;
        mo_body_linear_velocity(w, box, &v);
        if (stop < 0 && v.x < 1e-3) stop = s + 1;
    }
    mo_vec3 xb, vb;
    mo_body_position(w, box, &xb);
    mo_body_linear_velocity(w, box, &vb);
    double d = xb.x + 0.15, dc = v0 * v0 / (2 * mu * g), de = euler_stop_distance(v0, mu * g, h);
    printf("  6 cm box sliding at %.1f m/s, mu %.1f: stopped after %d steps (Euler %d), distance %.5f m; v0^2/(2 mu g) "
           "%.5f m, implicit Euler %.5f m (error %.2f %%); lateral drift %.2g m, speed after 1 s %.2g m/s\n", v0, mu,
           stop, (int)ceil(v0 / (mu * g * h)) - 1, d, dc, de, 100 * (d - de) / de, xb.y - 0.05,
           sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z));
    CHECK_NEAR(d, de, 0.01 * de);
    CHECK(fabs(xb.y - 0.05) < 1e-3);
    CHECK(sqrt(vb.x * vb.x + vb.y * vb.y) < 1e-3);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end("a box sliding on the slab stops after v0^2/(2 mu g) (implicit Euler's value)");
}

/* a 6 cm box on the slab tilted by 20 deg: mu 0.5 > tan 20 holds it, mu 0.2 lets it slide at g (sin - mu cos) */
static void test_incline_mu(double mu, int steps)
{
    group_begin();
    const double h = 1.0 / 60.0, g = 9.81, th = 20.0 * MO_PI / 180.0;
    mo_world *w = newton_world((mo_vec3){0, 0, -g}, h, 12, 20);
    box_mesh b;
    mo_quat q = {cos(th / 2), 0, sin(th / 2), 0}; /* about y: the mesh's x axis goes down along (cos, 0, -sin) */
    fixed_slab(w, &b, mu, (mo_vec3){0, 0, 0}, q);
    const double lx = -0.1, lz = 0.05 + 0.03; /* the box centre in the slab's frame, over the middle of a cell */
    mo_body_def bd = mo_default_body_def();
    bd.mass = 0.5;
    bd.orientation = q;
    bd.position = (mo_vec3){lx * cos(th) + lz * sin(th), 0.05, -lx * sin(th) + lz * cos(th)};
    bd.shape.type = MO_SHAPE_BOX;
    bd.shape.half_extents = (mo_vec3){0.03, 0.03, 0.03};
    bd.shape.friction = mu;
    mo_body_id box;
    CHECK(mo_body_create(w, &bd, &box) == MO_OK);
    const double dir[3] = {cos(th), 0, -sin(th)};
    mo_vec3 x0;
    mo_body_position(w, box, &x0);
    for (int s = 0; s < steps; s++) mo_world_step(w);
    mo_vec3 xb, vb;
    mo_body_position(w, box, &xb);
    mo_body_linear_velocity(w, box, &vb);
    double dist = (xb.x - x0.x) * dir[0] + (xb.z - x0.z) * dir[2], v = vb.x * dir[0] + vb.z * dir[2];
    double a = g * (sin(th) - mu * cos(th)), T = steps * h;
    if (a > 0) {
        /* implicit Euler under a constant a: v_N = N h a exactly, x_N = h^2 a N (N + 1) / 2 */
        double ve = steps * h * a, xe = h * h * a * steps * (steps + 1) / 2.0;
        printf("  mu %.1f < tan 20 = %.3f: after %.2f s speed %.5f m/s (g (sin - mu cos) t = %.5f, error %.2f %%), "
               "distance %.5f m (implicit Euler %.5f)\n", mu, tan(th), T, v, ve, 100 * (v - ve) / ve, dist, xe);
        CHECK_NEAR(v, ve, 0.01 * ve);
        CHECK_NEAR(dist, xe, 0.02 * xe);
    } else {
        printf("  mu %.1f > tan 20 = %.3f: after %.2f s moved %.3g m down the slope, speed %.2g m/s\n", mu, tan(th), T,
               dist, sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z));
        CHECK(fabs(dist) < 1e-3); /* creep bound over 1 s (the slab's elastic shear and settling included) */
        CHECK(sqrt(vb.x * vb.x + vb.y * vb.y + vb.z * vb.z) < 1e-3);
    }
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(a > 0 ? "a box on the tilted slab with mu < tan slides at g (sin - mu cos)"
                    : "a box on the tilted slab with mu > tan stays");
}

static void test_incline(void)
{
    test_incline_mu(0.5, 60);
    test_incline_mu(0.2, 30);
}

/* finite differences of the new rows (normal and friction): a capsule (collision layer) and a long box on an edge
   (edge crossings) tilted a little, moving, their lowest point 2 mm over the slab between its nodes */
static void test_layer_fd_shape(int box)
{
    group_begin();
    mo_world *w = newton_world((mo_vec3){0, 0, -9.81}, 0.01, 4, 20);
    box_mesh b;
    fixed_slab(w, &b, 0.5, (mo_vec3){0, 0, 0}, (mo_quat){1, 0, 0, 0});
    mo_body_def bd = mo_default_body_def();
    double tilt = 0.02;
    bd.mass = 1.0;
    if (box) {
        /* 45 deg about x (an edge down), then tilted about y: qb qa */
        double qa[4] = {cos(MO_PI / 8), sin(MO_PI / 8), 0, 0}, qb[4] = {cos(tilt / 2), 0, sin(tilt / 2), 0};
        bd.orientation = (mo_quat){qb[0] * qa[0], qb[0] * qa[1], qb[2] * qa[0], -qb[2] * qa[1]};
        bd.shape.type = MO_SHAPE_BOX;
        bd.shape.half_extents = (mo_vec3){0.3, 0.03, 0.03};
    } else {
        double a = MO_PI / 2 + tilt;
        bd.orientation = (mo_quat){cos(a / 2), 0, sin(a / 2), 0};
        bd.shape.type = MO_SHAPE_CAPSULE;
        bd.shape.radius = 0.02;
        bd.shape.half_height = 0.3;
    }
    bd.linear_velocity = (mo_vec3){0.1, -0.2, -0.3};
    bd.angular_velocity = (mo_vec3){0.5, 1.0, -0.7};
    bd.position = (mo_vec3){0.0, 0.05, 0.5};
    mo_body_id db;
    CHECK(mo_body_create(w, &bd, &db) == MO_OK);
    /* lower it so that its lowest point is 2 mm above the slab (the support function along -z) */
    mo_cl_object o;
    mo_shape_object(w, w->bodies[db.index - 1].first_shape, &o);
    mo_cl_update_aabb(&o, 0.0);
    mo_vec3 x;
    mo_quat q;
    mo_body_position(w, db, &x);
    mo_body_orientation(w, db, &q);
    x.z += 0.05 + 0.002 - o.aabb_min[2];
    CHECK(mo_body_set_pose(w, db, x, q) == MO_OK);
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    int nsc = mo_fem_surface_contacts(w, NULL), nlayer = mo_fem_surface_edge_contacts(w);
    double worst, cmax;
    fd_last_rows(w, 11, 0.0, 3 * nsc, -1, &worst, &cmax);
    printf("  %s: %d triangle contacts (%d edge crossings or layer points), %d rows: worst relative FD error %.2g (largest directional "
           "derivative %.3g)\n", box ? "box edge" : "capsule side", nsc, nlayer, 3 * nsc, worst, cmax);
    CHECK(nlayer >= 1);
    CHECK(worst < 1e-5);
    CHECK(cmax > 1e-4);
    box_mesh_free(&b);
    mo_world_destroy(w);
    group_end(box ? "edge-crossing rows (box edge): Jacobian vs finite differences"
                  : "collision-layer rows (capsule side): Jacobian vs finite differences");
}

static void test_layer_fd(void)
{
    test_layer_fd_shape(0);
    test_layer_fd_shape(1);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL; /* one group by name, e.g. test_fem_world across_slab */
#define RUN(name) do { if (!only || !strcmp(only, #name)) test_##name(); } while (0)
    RUN(extension);
    RUN(cantilever);
    RUN(refusals);
    RUN(cube_on_ground);
    RUN(fixed_nodes);
    RUN(surface);
    RUN(attach_kinematic);
    RUN(attach_statics);
    RUN(attach_fd);
    RUN(attach_refusals);
    RUN(surface_contacts);
    RUN(box_on_slab);
    RUN(squeeze_lift);
    RUN(surface_fd);
    RUN(box_between_nodes);
    RUN(across_slab);
    RUN(slide_stop);
    RUN(incline);
    RUN(layer_fd);
    return check_groups_result();
}
