/* test_fem_query.c: the FEM queries a viewer needs (engine/fem_query.c):
 *
 *   1 mo_world_fem_meshes: none, three in creation order, a destroyed one
 *     left out, cap and NULL out;
 *   2 mo_fem_mesh_element_strain = |E|_F, E = 1/2 (F^T F - I): zero at rest
 *     (1e-15), after a rigid translation (every node given the same
 *     velocity, one step) and after a rigid rotation + translation (all nodes
 *     fixed, their targets carried to R X + c in one step); under the
 *     uniform stretch diag(1.5, 0.8, 1.2), then that stretch rotated, the
 *     closed form 1/2 sqrt(sum (s_i^2 - 1)^2) = 0.68660396... in every element
 *     (1e-9: the held nodes reach their targets to ~1e-12 m);
 *   3 mo_fem_mesh_node_strain: the mean over each node's tetrahedra of the
 *     element strains after one corner is pulled (non-uniform), exactly;
 *   4 mo_fem_mesh_node_mass: density x V / 4 per tetrahedron of the node
 *     (a corner in all 6 tetrahedra of a cube: rho a^3 / 4; one in 2:
 *     rho a^3 / 12), summing to rho V;
 *   5 refusals: stale ids with fem_world.c's sentence, node out of range,
 *     NULL out with cap > 0; cap 0 with NULL out is fine, a short cap
 *     writes only cap values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/moreau.h>

#include "../check.h"

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 64, 4)

/* an n x n x n box of side a at o, each cube cut into 6 tetrahedra along its main
   diagonal (Freudenthal), positively oriented */
typedef struct cube_mesh { int n, nn, nt; mo_vec3 *nodes; int *tets; } cube_mesh;

static int idx(int n, int i, int j, int k) { return i + (n + 1) * (j + (n + 1) * k); }

static void cube_make(cube_mesh *c, int n, double a, mo_vec3 o)
{
    c->n = n;
    c->nn = (n + 1) * (n + 1) * (n + 1);
    c->nt = 6 * n * n * n;
    c->nodes = malloc((size_t)c->nn * sizeof *c->nodes);
    c->tets = malloc((size_t)c->nt * 4 * sizeof(int));
    for (int k = 0; k <= n; k++)
        for (int j = 0; j <= n; j++)
            for (int i = 0; i <= n; i++)
                c->nodes[idx(n, i, j, k)] = (mo_vec3){o.x + a * i / n, o.y + a * j / n, o.z + a * k / n};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int t = 0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                for (int p = 0; p < 6; p++) {
                    int cc[3] = {i, j, k}, v[4];
                    v[0] = idx(n, i, j, k);
                    for (int s = 0; s < 3; s++) {
                        cc[perm[p][s]]++;
                        v[s + 1] = idx(n, cc[0], cc[1], cc[2]);
                    }
                    mo_vec3 x0 = c->nodes[v[0]], x1 = c->nodes[v[1]], x2 = c->nodes[v[2]], x3 = c->nodes[v[3]];
                    double d1[3] = {x1.x - x0.x, x1.y - x0.y, x1.z - x0.z}, d2[3] = {x2.x - x0.x, x2.y - x0.y, x2.z - x0.z},
                           d3[3] = {x3.x - x0.x, x3.y - x0.y, x3.z - x0.z};
                    double vol = d1[0] * (d2[1] * d3[2] - d2[2] * d3[1]) - d1[1] * (d2[0] * d3[2] - d2[2] * d3[0]) +
                                 d1[2] * (d2[0] * d3[1] - d2[1] * d3[0]);
                    if (vol < 0) {
                        int x = v[2];
                        v[2] = v[3];
                        v[3] = x;
                    }
                    memcpy(c->tets + 4 * t++, v, sizeof v);
                }
}

static void cube_free(cube_mesh *c) { free(c->nodes), free(c->tets); }

static mo_world *newton_world(void)
{
    mo_world_def d = mo_default_world_def();
    d.gravity = (mo_vec3){0, 0, 0};
    d.time_step = 0.01;
    d.solver.kind = MO_SOLVER_NEWTON;
    d.solver.newton.iterations = 20;
    d.solver.newton.linear_iterations = 200;
    mo_world *w = NULL;
    char err[256];
    if (mo_world_create(&d, &w, err, sizeof err) != MO_OK) {
        fprintf(stderr, "world: %s\n", err);
        exit(1);
    }
    return w;
}

static const mo_fem_material_def MAT = {1e6, 0.3, 800.0, MO_FEM_COROTATIONAL};

/* a mesh of c; fixed: all nodes held (their targets then move with set_fixed_velocity) */
static mo_fem_mesh_id add_mesh(mo_world *w, const cube_mesh *c, bool fixed, mo_vec3 velocity)
{
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = c->nodes;
    d.node_count = c->nn;
    d.tets = c->tets;
    d.tet_count = c->nt;
    d.materials = &MAT;
    d.material_count = 1;
    d.velocity = velocity;
    int *all = malloc((size_t)c->nn * sizeof(int));
    for (int i = 0; i < c->nn; i++) all[i] = i;
    if (fixed) {
        d.fixed_nodes = all;
        d.fixed_count = c->nn;
    }
    mo_fem_mesh_id id = {0, 0};
    if (mo_fem_mesh_create(w, &d, &id) != MO_OK) fprintf(stderr, "mesh: %s\n", mo_world_last_error(w));
    free(all);
    return id;
}

/* largest |value - want| over the mesh's element strains */
static double strain_dev(mo_world *w, mo_fem_mesh_id id, int nt, double want)
{
    double *e = malloc((size_t)nt * sizeof(double)), worst = 0;
    if (mo_fem_mesh_element_strain(w, id, e, nt) != MO_OK) worst = HUGE_VAL;
    for (int t = 0; worst < HUGE_VAL && t < nt; t++)
        if (!(fabs(e[t] - want) <= worst)) worst = fabs(e[t] - want);
    free(e);
    return worst;
}

/* carries every node's target from where the node is to map(X) in one step: v = (map(X) - x) / h */
static void move_targets(mo_world *w, mo_fem_mesh_id id, const cube_mesh *c, const double *M, mo_vec3 t)
{
    const double h = mo_world_time_step(w);
    for (int i = 0; i < c->nn; i++) {
        mo_vec3 X = c->nodes[i], x;
        mo_fem_mesh_node_position(w, id, i, &x);
        mo_vec3 y = {M[0] * X.x + M[1] * X.y + M[2] * X.z + t.x, M[3] * X.x + M[4] * X.y + M[5] * X.z + t.y,
                     M[6] * X.x + M[7] * X.y + M[8] * X.z + t.z};
        mo_fem_mesh_set_fixed_velocity(w, id, i, (mo_vec3){(y.x - x.x) / h, (y.y - x.y) / h, (y.z - x.z) / h});
    }
}

/* largest distance of a node from map(X) */
static double node_dev(mo_world *w, mo_fem_mesh_id id, const cube_mesh *c, const double *M, mo_vec3 t)
{
    double worst = 0;
    for (int i = 0; i < c->nn; i++) {
        mo_vec3 X = c->nodes[i], x;
        mo_fem_mesh_node_position(w, id, i, &x);
        double d[3] = {x.x - (M[0] * X.x + M[1] * X.y + M[2] * X.z + t.x),
                       x.y - (M[3] * X.x + M[4] * X.y + M[5] * X.z + t.y),
                       x.z - (M[6] * X.x + M[7] * X.y + M[8] * X.z + t.z)};
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (l > worst) worst = l;
    }
    return worst;
}

/* ---- 1 ---- */

static void test_enumeration(void)
{
    group_begin();
    mo_world *w = newton_world();
    mo_fem_mesh_id ids[4];
    CHECK(mo_world_fem_meshes(w, NULL, 0) == 0);
    CHECK(mo_world_fem_meshes(w, ids, 4) == 0);
    cube_mesh c;
    cube_make(&c, 1, 0.1, (mo_vec3){0, 0, 0});
    mo_fem_mesh_id a = add_mesh(w, &c, false, (mo_vec3){0, 0, 0});
    mo_fem_mesh_id b = add_mesh(w, &c, false, (mo_vec3){0, 0, 0});
    mo_fem_mesh_id d = add_mesh(w, &c, false, (mo_vec3){0, 0, 0});
    CHECK(mo_world_fem_meshes(w, NULL, 0) == 3);
    CHECK(mo_world_fem_meshes(w, ids, 4) == 3);
    CHECK(ids[0].index == a.index && ids[0].generation == a.generation);
    CHECK(ids[1].index == b.index && ids[1].generation == b.generation);
    CHECK(ids[2].index == d.index && ids[2].generation == d.generation);
    /* a short cap: the count, only cap written */
    ids[1] = (mo_fem_mesh_id){99, 99};
    CHECK(mo_world_fem_meshes(w, ids, 1) == 3);
    CHECK(ids[1].index == 99);
    /* the destroyed one is left out; the others keep their order */
    CHECK(mo_fem_mesh_destroy(w, b) == MO_OK);
    CHECK(mo_world_fem_meshes(w, ids, 4) == 2);
    CHECK(ids[0].index == a.index && ids[1].index == d.index);
    for (int i = 0; i < 2; i++) CHECK(mo_fem_mesh_is_valid(w, ids[i]));
    CHECK(mo_world_fem_meshes(NULL, ids, 4) == 0);
    cube_free(&c);
    mo_world_destroy(w);
    group_end("mo_world_fem_meshes: live meshes in order, cap, NULL");
}

/* ---- 2 ---- */

static void test_strain_rigid_and_stretch(void)
{
    group_begin();
    cube_mesh c;
    cube_make(&c, 2, 0.2, (mo_vec3){-0.1, -0.1, 0.0});
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* rest */
    mo_world *w = newton_world();
    mo_fem_mesh_id id = add_mesh(w, &c, false, (mo_vec3){0.3, -0.2, 0.5});
    double rest = strain_dev(w, id, c.nt, 0.0);
    /* translation: every node moves with the same velocity, no element is strained */
    for (int s = 0; s < 3; s++) mo_world_step(w);
    double moved = node_dev(w, id, &c, I, (mo_vec3){0, 0, 0}), trans = strain_dev(w, id, c.nt, 0.0);
    printf("  rest: max |E|_F %.3g; translated %.4f m: max |E|_F %.3g\n", rest, moved, trans);
    CHECK(rest <= 1e-15);
    CHECK(moved > 0.01);
    CHECK(trans <= 1e-14);
    mo_world_destroy(w);

    /* rotation (60 degrees about (1, 2, 2)/3) and translation, then a stretch, then the stretch rotated:
       every node held, its target carried to the map of its rest position in one step */
    w = newton_world();
    id = add_mesh(w, &c, true, (mo_vec3){0, 0, 0});
    double ax[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, th = 3.14159265358979323846 / 3, cs = cos(th), sn = sin(th), R[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            static const int eps[3][3][3] = {{{0, 0, 0}, {0, 0, 1}, {0, -1, 0}},
                                             {{0, 0, -1}, {0, 0, 0}, {1, 0, 0}},
                                             {{0, 1, 0}, {-1, 0, 0}, {0, 0, 0}}};
            double k = 0;
            for (int l = 0; l < 3; l++) k -= eps[i][j][l] * ax[l]; /* [a]x_ij = -eps_ijl a_l */
            R[3 * i + j] = cs * (i == j) + (1 - cs) * ax[i] * ax[j] + sn * k;
        }
    mo_vec3 t = {0.4, -0.3, 1.1};
    move_targets(w, id, &c, R, t);
    mo_world_step(w);
    double rot_pos = node_dev(w, id, &c, R, t), rot = strain_dev(w, id, c.nt, 0.0);
    const double S[9] = {1.5, 0, 0, 0, 0.8, 0, 0, 0, 1.2};
    const double want = 0.5 * sqrt(pow(1.5 * 1.5 - 1, 2) + pow(0.8 * 0.8 - 1, 2) + pow(1.2 * 1.2 - 1, 2));
    move_targets(w, id, &c, S, (mo_vec3){0, 0, 0});
    mo_world_step(w);
    double st_pos = node_dev(w, id, &c, S, (mo_vec3){0, 0, 0}), st = strain_dev(w, id, c.nt, want);
    double RS[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) RS[3 * i + j] = R[3 * i + j] * S[4 * j]; /* R diag(s) */
    move_targets(w, id, &c, RS, t);
    mo_world_step(w);
    double rs_pos = node_dev(w, id, &c, RS, t), rs = strain_dev(w, id, c.nt, want);
    printf("  rotated 60 deg + moved: nodes within %.2g m of R X + t, max |E|_F %.3g\n", rot_pos, rot);
    printf("  stretch diag(1.5, 0.8, 1.2): nodes within %.2g m, every |E|_F within %.2g of %.15f\n", st_pos, st, want);
    printf("  the stretch rotated: nodes within %.2g m, every |E|_F within %.2g\n", rs_pos, rs);
    /* the Newton solve puts the held nodes on their targets to ~1e-12 m (0.1 m elements: strain ~1e-11) */
    CHECK(rot_pos <= 1e-10 && st_pos <= 1e-10 && rs_pos <= 1e-10);
    CHECK(rot <= 1e-9);
    CHECK_NEAR(want, 0.686603961538236, 1e-15);
    CHECK(st <= 1e-9);
    CHECK(rs <= 1e-9);
    mo_world_destroy(w);
    cube_free(&c);
    group_end("element strain: 0 at rest and rigid, closed form under stretch");
}

/* ---- 3 ---- */

static void test_node_strain(void)
{
    group_begin();
    cube_mesh c;
    cube_make(&c, 2, 0.2, (mo_vec3){0, 0, 0});
    mo_world *w = newton_world();
    mo_fem_mesh_id id = add_mesh(w, &c, true, (mo_vec3){0, 0, 0});
    /* one corner pulled 3 cm out along its diagonal, the other nodes held */
    int corner = idx(2, 2, 2, 2);
    mo_fem_mesh_set_fixed_velocity(w, id, corner, (mo_vec3){1, 1, 1});
    mo_world_step(w);
    double *e = malloc((size_t)c.nt * sizeof(double)), *n = malloc((size_t)c.nn * sizeof(double));
    double sum[27] = {0};
    int cnt[27] = {0};
    CHECK(mo_fem_mesh_element_strain(w, id, e, c.nt) == MO_OK);
    CHECK(mo_fem_mesh_node_strain(w, id, n, c.nn) == MO_OK);
    for (int t = 0; t < c.nt; t++)
        for (int a = 0; a < 4; a++) sum[c.tets[4 * t + a]] += e[t], cnt[c.tets[4 * t + a]]++;
    int strained = 0, zero = 0;
    double worst = 0;
    for (int i = 0; i < c.nn; i++) {
        double want = sum[i] / cnt[i];
        if (fabs(n[i] - want) > worst) worst = fabs(n[i] - want);
        strained += n[i] > 1e-3;
        zero += n[i] <= 1e-12;
    }
    printf("  corner pulled: node strains = means of their elements within %.2g; corner %.6f, %d strained, %d at 0\n",
           worst, n[corner], strained, zero);
    CHECK(worst <= 1e-15);
    CHECK(n[corner] > 0.05);
    /* the far corner's tetrahedra do not touch the pulled one's cell */
    CHECK(n[idx(2, 0, 0, 0)] <= 1e-12);
    CHECK(strained > 0 && zero > 0);
    free(e), free(n);
    mo_world_destroy(w);
    cube_free(&c);
    group_end("node strain: mean of the incident elements");
}

/* ---- 4 ---- */

static void test_node_mass(void)
{
    group_begin();
    cube_mesh c;
    const double a = 0.3;
    cube_make(&c, 1, a, (mo_vec3){0, 0, 0});
    mo_world *w = newton_world();
    mo_fem_mesh_id id = add_mesh(w, &c, false, (mo_vec3){0, 0, 0});
    double total = 0, m0 = 0, m1 = 0;
    for (int i = 0; i < c.nn; i++) {
        double m = -1;
        CHECK(mo_fem_mesh_node_mass(w, id, i, &m) == MO_OK);
        total += m;
    }
    mo_fem_mesh_node_mass(w, id, idx(1, 0, 0, 0), &m0);
    mo_fem_mesh_node_mass(w, id, idx(1, 1, 0, 0), &m1);
    printf("  cube %.1f m, density %.0f: nodes %.9f kg (all 6 tets), %.9f kg (2 tets), sum %.9f kg\n", a,
           MAT.density, m0, m1, total);
    CHECK_NEAR(m0, MAT.density * a * a * a / 4, 1e-13);
    CHECK_NEAR(m1, MAT.density * a * a * a / 12, 1e-13);
    CHECK_NEAR(total, MAT.density * a * a * a, 1e-12);
    mo_world_destroy(w);
    cube_free(&c);
    group_end("node mass: density V / 4 per tetrahedron");
}

/* ---- 5 ---- */

static void test_refusals(void)
{
    group_begin();
    cube_mesh c;
    cube_make(&c, 1, 0.1, (mo_vec3){0, 0, 0});
    mo_world *w = newton_world();
    mo_fem_mesh_id id = add_mesh(w, &c, false, (mo_vec3){0, 0, 0});
    double e[6] = {-1, -1, -1, -1, -1, -1}, m;
    /* a short cap writes only cap values; cap 0 with NULL is fine */
    CHECK(mo_fem_mesh_element_strain(w, id, e, 2) == MO_OK);
    CHECK(e[0] == 0 && e[1] == 0 && e[2] == -1);
    CHECK(mo_fem_mesh_node_strain(w, id, e, 3) == MO_OK);
    CHECK(e[2] == 0 && e[3] == -1);
    CHECK(mo_fem_mesh_element_strain(w, id, NULL, 0) == MO_OK);
    CHECK(mo_fem_mesh_node_strain(w, id, NULL, 0) == MO_OK);
    CHECK(mo_fem_mesh_element_strain(w, id, NULL, 6) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w),
              "mo_fem_mesh_element_strain: out must hold cap (6) values (cap >= 0, out not NULL when cap > 0)");
    CHECK(mo_fem_mesh_node_strain(w, id, e, -1) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w),
              "mo_fem_mesh_node_strain: out must hold cap (-1) values (cap >= 0, out not NULL when cap > 0)");
    CHECK(mo_fem_mesh_node_mass(w, id, 8, &m) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "FEM node 8 is not in [0, 8)");
    CHECK(mo_fem_mesh_node_mass(w, id, -1, &m) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "FEM node -1 is not in [0, 8)");
    CHECK(mo_fem_mesh_node_mass(w, id, 0, NULL) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), "mo_fem_mesh_node_mass: mass must not be NULL");
    /* stale ids: the sentence of fem_world.c */
    CHECK(mo_fem_mesh_destroy(w, id) == MO_OK);
    char want[128];
    snprintf(want, sizeof want, "FEM mesh id (index %u, generation %u) does not name a live mesh", id.index,
             id.generation);
    CHECK(mo_fem_mesh_element_strain(w, id, e, 6) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_fem_mesh_node_strain(w, id, e, 6) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_fem_mesh_node_mass(w, id, 0, &m) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), want);
    CHECK(mo_fem_mesh_element_strain(w, (mo_fem_mesh_id){0, 0}, e, 6) == MO_ERR_STALE_ID);
    CHECK_STR(mo_world_last_error(w), "FEM mesh id (index 0, generation 0) does not name a live mesh");
    CHECK(mo_fem_mesh_element_strain(NULL, id, e, 6) == MO_ERR_INVALID_ARGUMENT);
    CHECK(mo_world_fem_meshes(w, NULL, 0) == 0);
    mo_world_destroy(w);
    cube_free(&c);
    group_end("refusals: stale ids, node range, NULL out");
}

int main(void)
{
    test_enumeration();
    test_strain_rigid_and_stretch();
    test_node_strain();
    test_node_mass();
    test_refusals();
    return check_groups_result();
}
