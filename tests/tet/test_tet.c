/* test_tet.c: the tetrahedral mesh readers (scene/tet/).
 *
 * argv[1]: tests/tet/data (made by data/gen.py), argv[2]: scenes/models/tet.
 * - the unit cube split into six tetrahedra, in TetGen 1-based and 0-based,
 *   Gmsh 2.2 and 4.1: counts, the very same arrays, regions, total volume 1
 *   to 1e-12 (computed here, independently of the library);
 * - Gmsh 2.2 with sparse shuffled node tags (one beyond 32 bits) and CRLF;
 * - every malformed file: its status, its exact message with file and line,
 *   and a zeroed output;
 * - MO_TETMESH_REORIENT, mo_tetmesh_check on meshes in memory, error buffers;
 * - the models in scenes/models/tet: counts and exact volumes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/tetmesh.h"

#include "../check.h"

static const char *data_dir, *models_dir;

/* the cube as gen.py writes it: node v = (v & 1, v >> 1 & 1, v >> 2 & 1) */
static const double cube_nodes[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
static const int cube_tets[24] = {0, 1, 3, 7, 0, 1, 7, 5, 0, 4, 5, 7, 0, 4, 7, 6, 0, 2, 6, 7, 0, 2, 7, 3};
static const int cube_regions[6] = {10, 10, 10, 20, 20, 20};

static const char *in_dir(const char *dir, const char *name)
{
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static bool zeroed(const mo_tetmesh *m)
{
    return m->nnodes == 0 && m->ntets == 0 && !m->nodes && !m->tets && !m->tet_region;
}

/* signed volume of tetrahedron t, computed here */
static double tet_volume(const mo_tetmesh *m, int t)
{
    const double *p[4];
    for (int k = 0; k < 4; k++) p[k] = m->nodes + 3 * m->tets[4 * t + k];
    double a[3], b[3], c[3];
    for (int k = 0; k < 3; k++) {
        a[k] = p[1][k] - p[0][k];
        b[k] = p[2][k] - p[0][k];
        c[k] = p[3][k] - p[0][k];
    }
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
           6.0;
}

static double total_volume(const mo_tetmesh *m)
{
    double v = 0;
    for (int t = 0; t < m->ntets; t++) v += tet_volume(m, t);
    return v;
}

static void test_cube_formats(void)
{
    const char *files[] = {"cube.node", "cube.ele", "cube0.node", "cube0.ele", "cube22.msh", "cube41.msh"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        mo_tetmesh m;
        char err[512] = "";
        mo_status s = mo_tetmesh_load(in_dir(data_dir, files[f]), &m, err, sizeof err);
        if (s != MO_OK) fprintf(stderr, "%s: %s\n", files[f], err);
        CHECK(s == MO_OK);
        if (s != MO_OK) continue;
        CHECK(m.nnodes == 8);
        CHECK(m.ntets == 6);
        CHECK(memcmp(m.nodes, cube_nodes, sizeof cube_nodes) == 0);
        CHECK(memcmp(m.tets, cube_tets, sizeof cube_tets) == 0);
        CHECK(memcmp(m.tet_region, cube_regions, sizeof cube_regions) == 0);
        CHECK_NEAR(total_volume(&m), 1.0, 1e-12);
        for (int t = 0; t < 6; t++) CHECK_NEAR(tet_volume(&m, t), 1.0 / 6.0, 1e-15);
        CHECK_NEAR(mo_tetmesh_volume(&m), 1.0, 1e-12);
        CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_OK);
        mo_tetmesh_free(&m);
        CHECK(zeroed(&m));
    }
}

static void test_sparse_tags(void)
{
    mo_tetmesh m;
    char err[512] = "";
    mo_status s = mo_tetmesh_load(in_dir(data_dir, "sparse22.msh"), &m, err, sizeof err);
    if (s != MO_OK) fprintf(stderr, "sparse22.msh: %s\n", err);
    CHECK(s == MO_OK);
    if (s != MO_OK) return;
    CHECK(m.nnodes == 8 && m.ntets == 6);
    /* nodes in file order (gen.py's order), tetrahedra through the tags: the same corners as the cube's */
    static const int order[8] = {5, 2, 7, 0, 3, 6, 1, 4};
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) CHECK(m.nodes[3 * i + k] == cube_nodes[3 * order[i] + k]);
    for (int t = 0; t < 6; t++) {
        CHECK(m.tet_region[t] == 0);
        for (int k = 0; k < 4; k++) CHECK(order[m.tets[4 * t + k]] == cube_tets[4 * t + k]);
    }
    CHECK_NEAR(total_volume(&m), 1.0, 1e-12);
    mo_tetmesh_free(&m);
}

typedef struct bad_case {
    const char *load;     /* the file given to mo_tetmesh_load */
    mo_status status;
    const char *file;     /* the file the message names */
    int line;
    const char *message;  /* after "dir/file:line: " */
} bad_case;

static const bad_case bad_cases[] = {
    /* TetGen .node */
    {"tg_nan.node", MO_ERR_IO, "tg_nan.node", 5, "node 3 has a non-finite y coordinate (nan)"},
    {"tg_notnum.node", MO_ERR_IO, "tg_notnum.node", 6, "expected a number for the z coordinate of node 4, found '0.5x'"},
    {"tg_dupnode.node", MO_ERR_IO, "tg_dupnode.node", 7, "node 3 is defined twice"},
    {"tg_seq.node", MO_ERR_IO, "tg_seq.node", 7, "node number 7 is out of sequence (expected 5)"},
    {"tg_trunc_node.node", MO_ERR_IO, "tg_trunc_node.node", 8, "the file ends after 6 of 8 nodes"},
    {"tg_dim2.node", MO_ERR_UNSUPPORTED, "tg_dim2.node", 2, "the dimension is 2: only 3D meshes are read"},
    {"tg_first5.node", MO_ERR_IO, "tg_first5.node", 3, "the first node number is 5: TetGen numbers nodes from 0 or 1"},
    {"tg_short_node.ele", MO_ERR_IO, "tg_short_node.node", 4,
     "a node line has 4 values, expected 5 (number, x, y, z, boundary marker)"},
    {"tg_extra_node.node", MO_ERR_IO, "tg_extra_node.node", 11,
     "unexpected '9 2 2 2 1' after the 8 nodes the header declares"},
    {"tg_count.node", MO_ERR_IO, "tg_count.node", 2,
     "the file is too short for the 100000000 nodes its header declares"},
    /* TetGen .ele */
    {"tg_range.ele", MO_ERR_IO, "tg_range.ele", 4,
     "tetrahedron 3: node 9 is out of range (the nodes are numbered 1 to 8)"},
    {"tg_zero_index.node", MO_ERR_IO, "tg_zero_index.ele", 2,
     "tetrahedron 1: node 0 is out of range (the nodes are numbered 1 to 8)"},
    {"tg_inverted.node", MO_ERR_IO, "tg_inverted.ele", 4, "tetrahedron 3 is inverted (volume -0.167)"},
    {"tg_flat.node", MO_ERR_IO, "tg_flat.ele", 5, "tetrahedron 4 has zero volume (volume 0)"},
    {"tg_repeat.ele", MO_ERR_IO, "tg_repeat.ele", 3, "tetrahedron 2 uses node 2 twice"},
    {"tg_o2.node", MO_ERR_UNSUPPORTED, "tg_o2.ele", 1,
     "10-node (second-order) tetrahedra are not read: mesh without TetGen's -o2"},
    {"tg_trunc_ele.node", MO_ERR_IO, "tg_trunc_ele.ele", 5, "the file ends after 4 of 6 tetrahedra"},
    {"tg_fewvals.node", MO_ERR_IO, "tg_fewvals.ele", 6,
     "a tetrahedron line has 5 values, expected 6 (number, 4 nodes, attributes)"},
    {"tg_region.node", MO_ERR_IO, "tg_region.ele", 7, "tetrahedron 6: the region attribute '2.5' is not a whole number"},
    {"tg_eleseq.node", MO_ERR_IO, "tg_eleseq.ele", 3, "tetrahedron number 3 is out of sequence (expected 2)"},
    /* Gmsh 2.2 */
    {"g_binary.msh", MO_ERR_UNSUPPORTED, "g_binary.msh", 2,
     "binary .msh files are not read: save the mesh as ASCII (Gmsh: Mesh.Binary = 0)"},
    {"g_v40.msh", MO_ERR_UNSUPPORTED, "g_v40.msh", 2,
     "Gmsh format 4 is not read: save as format 4.1 or 2.2 ASCII (Mesh.MshFileVersion)"},
    {"g_v30.msh", MO_ERR_UNSUPPORTED, "g_v30.msh", 2,
     "Gmsh format 3.0 is not read: save as format 4.1 or 2.2 ASCII (Mesh.MshFileVersion)"},
    {"g_notgmsh.msh", MO_ERR_IO, "g_notgmsh.msh", 1, "not a Gmsh file: the first line is 'solid cube', expected $MeshFormat"},
    {"g_empty.msh", MO_ERR_IO, "g_empty.msh", 1, "the file is empty (expected $MeshFormat)"},
    {"g_notri.msh", MO_ERR_IO, "g_notri.msh", 20, "$Elements holds no tetrahedra (element type 4)"},
    {"g_order2.msh", MO_ERR_UNSUPPORTED, "g_order2.msh", 25,
     "element 6 is a second-order tetrahedron (type 11): only linear tetrahedra (type 4) are read; mesh with "
     "Mesh.ElementOrder = 1"},
    {"g_unknown_node.msh", MO_ERR_IO, "g_unknown_node.msh", 26, "element 7: node 88 is not in $Nodes"},
    {"g_dupnode.msh", MO_ERR_IO, "g_dupnode.msh", 16, "node 5 is defined twice (first on line 15)"},
    {"g_trunc.msh", MO_ERR_IO, "g_trunc.msh", 27, "the file ends inside $Elements after 6 of 9 elements"},
    {"g_notnum.msh", MO_ERR_IO, "g_notnum.msh", 13, "expected a number for the y coordinate of node 3, found '1.0.0'"},
    {"g_inf.msh", MO_ERR_IO, "g_inf.msh", 13, "node 3 has a non-finite y coordinate (inf)"},
    {"g_inverted.msh", MO_ERR_IO, "g_inverted.msh", 27, "tetrahedron 6 is inverted (volume -0.167)"},
    {"g_elements_first.msh", MO_ERR_IO, "g_elements_first.msh", 4, "$Elements comes before $Nodes"},
    {"g_no_end.msh", MO_ERR_IO, "g_no_end.msh", 33, "the file ends inside $Comments (no $EndComments)"},
    /* Gmsh 4.1 */
    {"g_41_order2.msh", MO_ERR_UNSUPPORTED, "g_41_order2.msh", 42,
     "a block of 3 second-order tetrahedra (type 11): only linear tetrahedra (type 4) are read; mesh with "
     "Mesh.ElementOrder = 1"},
    {"g_41_trunc_nodes.msh", MO_ERR_IO, "g_41_trunc_nodes.msh", 33,
     "the file ends inside $Nodes after 2 of 4 coordinate lines of the block"},
    {"g_41_unknown_volume.msh", MO_ERR_IO, "g_41_unknown_volume.msh", 46,
     "a block of tetrahedra in volume 9, which $Entities does not list"},
    {"g_41_missing_node.msh", MO_ERR_IO, "g_41_missing_node.msh", 44, "element 4: node 77 is not in $Nodes"},
    {"g_41_blocksum.msh", MO_ERR_IO, "g_41_blocksum.msh", 35, "the 2 node blocks hold 8 nodes, the header declares 9"},
    {"g_41_short_tet.msh", MO_ERR_IO, "g_41_short_tet.msh", 43,
     "a tetrahedron line has 4 values, expected 5 (tag, 4 nodes)"},
    {"g_41_nan.msh", MO_ERR_IO, "g_41_nan.msh", 25, "node 3 has a non-finite y coordinate (nan)"},
};

/* out filled with garbage first: the loader must zero it */
static void poison(mo_tetmesh *m)
{
    memset(m, 0x5a, sizeof *m);
}

static void test_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const bad_case *c = &bad_cases[i];
        mo_tetmesh m;
        poison(&m);
        char err[512] = "", want[1024];
        mo_status s = mo_tetmesh_load(in_dir(data_dir, c->load), &m, err, sizeof err);
        snprintf(want, sizeof want, "%s:%d: %s", in_dir(data_dir, c->file), c->line, c->message);
        if (s != c->status) fprintf(stderr, "%s: status %s, expected %s\n", c->load, mo_status_name(s), mo_status_name(c->status));
        CHECK(s == c->status);
        CHECK_STR(err, want);
        CHECK(zeroed(&m));
    }
}

static void test_bad_calls(void)
{
    mo_tetmesh m;
    char err[512], want[1024];

    poison(&m);
    CHECK(mo_tetmesh_load(in_dir(data_dir, "tg_noele.node"), &m, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", in_dir(data_dir, "tg_noele.ele"));
    CHECK_STR(err, want);
    CHECK(zeroed(&m));

    poison(&m);
    CHECK(mo_tetmesh_load(in_dir(data_dir, "missing.msh"), &m, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", in_dir(data_dir, "missing.msh"));
    CHECK_STR(err, want);
    CHECK(zeroed(&m));

    poison(&m);
    CHECK(mo_tetmesh_load("cube.vtk", &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_load: 'cube.vtk' has none of the extensions .node, .ele (TetGen) or .msh (Gmsh)");
    CHECK(zeroed(&m));

    poison(&m);
    CHECK(mo_tetmesh_load(NULL, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_load: path is NULL");
    CHECK(zeroed(&m));
    CHECK(mo_tetmesh_load("cube.msh", NULL, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_load: out is NULL");

    poison(&m);
    CHECK(mo_tetmesh_load_flags(in_dir(data_dir, "cube.node"), 6u, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_load: unknown flags 0x6");
    CHECK(zeroed(&m));

    /* no error buffer, and a short one (truncated, terminated) */
    poison(&m);
    CHECK(mo_tetmesh_load(in_dir(data_dir, "g_inverted.msh"), &m, NULL, 0) == MO_ERR_IO);
    CHECK(zeroed(&m));
    char small[12];
    memset(small, 'x', sizeof small);
    CHECK(mo_tetmesh_load(in_dir(data_dir, "g_inverted.msh"), &m, small, sizeof small) == MO_ERR_IO);
    CHECK(strlen(small) == sizeof small - 1);
    CHECK(strncmp(small, data_dir, sizeof small - 1) == 0);

    /* free: NULL and twice */
    mo_tetmesh_free(NULL);
    mo_tetmesh_free(&m);
    CHECK(zeroed(&m));
    CHECK(mo_tetmesh_volume(NULL) == 0.0);
}

static void test_reorient(void)
{
    mo_tetmesh m;
    char err[512] = "";
    /* tetrahedron 3 written (1 6 5 8): turned over to (1 6 8 5) */
    mo_status s = mo_tetmesh_load_flags(in_dir(data_dir, "tg_inverted.node"), MO_TETMESH_REORIENT, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s == MO_OK) {
        static const int want[4] = {0, 5, 7, 4};
        CHECK(memcmp(m.tets + 8, want, sizeof want) == 0);
        CHECK(memcmp(m.tets, cube_tets, 8 * sizeof(int)) == 0);
        CHECK(memcmp(m.tets + 12, cube_tets + 12, 12 * sizeof(int)) == 0);
        for (int t = 0; t < 6; t++) CHECK_NEAR(tet_volume(&m, t), 1.0 / 6.0, 1e-15);
        CHECK_NEAR(total_volume(&m), 1.0, 1e-12);
        mo_tetmesh_free(&m);
    }
    s = mo_tetmesh_load_flags(in_dir(data_dir, "g_inverted.msh"), MO_TETMESH_REORIENT, &m, err, sizeof err);
    CHECK(s == MO_OK);
    if (s == MO_OK) {
        CHECK_NEAR(total_volume(&m), 1.0, 1e-12);
        mo_tetmesh_free(&m);
    }
    /* flat ones are refused all the same */
    poison(&m);
    s = mo_tetmesh_load_flags(in_dir(data_dir, "tg_flat.node"), MO_TETMESH_REORIENT, &m, err, sizeof err);
    char want[1024];
    snprintf(want, sizeof want, "%s:5: tetrahedron 4 has zero volume (volume 0)", in_dir(data_dir, "tg_flat.ele"));
    CHECK(s == MO_ERR_IO);
    CHECK_STR(err, want);
    CHECK(zeroed(&m));
}

static void test_check_memory(void)
{
    double nodes[24];
    int tets[24], regions[6];
    memcpy(nodes, cube_nodes, sizeof nodes);
    memcpy(tets, cube_tets, sizeof tets);
    memcpy(regions, cube_regions, sizeof regions);
    mo_tetmesh m = {8, 6, nodes, tets, regions};
    char err[512] = "";
    CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_OK);
    m.tet_region = NULL;
    CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_OK);
    CHECK_NEAR(mo_tetmesh_volume(&m), 1.0, 1e-12);

    /* one defect at a time, each message exact */
    struct {
        int what; /* 0 node coordinate, 1 tet index */
        int at;
        double x;
        int v;
        const char *message;
    } cases[] = {
        {0, 3 * 6 + 2, NAN, 0, "mo_tetmesh_check: node 6 has a non-finite coordinate (0, 1, nan)"},
        {0, 3 * 2 + 0, INFINITY, 0, "mo_tetmesh_check: node 2 has a non-finite coordinate (inf, 1, 0)"},
        {1, 4 * 4 + 1, 0, 8, "mo_tetmesh_check: tetrahedron 4: node index 8 is out of range (0 to 7)"},
        {1, 4 * 1 + 0, 0, -1, "mo_tetmesh_check: tetrahedron 1: node index -1 is out of range (0 to 7)"},
        {1, 4 * 5 + 3, 0, 2, "mo_tetmesh_check: tetrahedron 5 uses node 2 twice"},
        {1, 4 * 2 + 3, 0, 1, "mo_tetmesh_check: tetrahedron 2 has zero volume (volume 0)"}, /* (0 4 5 1): y = 0 */
        {1, 4 * 3 + 3, 0, 5, "mo_tetmesh_check: tetrahedron 3 is inverted (volume -0.167)"}, /* (0 4 7 5) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double xs = nodes[cases[i].at % 24];
        int vs = tets[cases[i].at % 24];
        if (cases[i].what == 0) nodes[cases[i].at] = cases[i].x;
        else tets[cases[i].at] = cases[i].v;
        CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
        CHECK_STR(err, cases[i].message);
        if (cases[i].what == 0) nodes[cases[i].at] = xs;
        else tets[cases[i].at] = vs;
    }
    CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_OK);

    mo_tetmesh e = m;
    e.ntets = 0;
    CHECK(mo_tetmesh_check(&e, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_check: 8 nodes and 0 tetrahedra: a mesh needs at least 4 nodes and 1 tetrahedron");
    e = m;
    e.tets = NULL;
    CHECK(mo_tetmesh_check(&e, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_check: tets is NULL");
    CHECK(mo_tetmesh_check(NULL, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_check: mesh is NULL");

    /* nearly flat: a sliver 1e-13 high over a unit triangle is flat, 1e-9 is not */
    double sl[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1e-13};
    int st[4] = {0, 1, 2, 3};
    mo_tetmesh s = {4, 1, sl, st, NULL};
    CHECK(mo_tetmesh_check(&s, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_tetmesh_check: tetrahedron 0 has zero volume (volume 1.67e-14)");
    sl[11] = 1e-9;
    CHECK(mo_tetmesh_check(&s, err, sizeof err) == MO_OK);
}

/* the models under scenes/models/tet (tools/gen_tet_models.py): each in both
   formats, the same arrays; the bar's exact volume, the ball's below the
   sphere's (its boundary nodes lie on the sphere) and within 10% of it */
static void test_models(void)
{
    struct {
        const char *a, *b;
        int nnodes, ntets, core; /* core: tetrahedra of region 2 */
        double volume, tol;
    } models[] = {
        {"bar.node", "bar.msh", 81, 192, 0, 0.1 * 0.1 * 0.4, 1e-15},
        {"ball.ele", "ball.msh", 125, 384, 48, 4.0 / 3.0 * 3.14159265358979323846 * 1e-3, 0.1},
    };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        mo_tetmesh a, b;
        char err[512] = "";
        mo_status sa = mo_tetmesh_load(in_dir(models_dir, models[i].a), &a, err, sizeof err);
        if (sa != MO_OK) fprintf(stderr, "%s\n", err);
        mo_status sb = mo_tetmesh_load(in_dir(models_dir, models[i].b), &b, err, sizeof err);
        if (sb != MO_OK) fprintf(stderr, "%s\n", err);
        CHECK(sa == MO_OK && sb == MO_OK);
        if (sa == MO_OK && sb == MO_OK) {
            CHECK(a.nnodes == models[i].nnodes && a.ntets == models[i].ntets);
            CHECK(b.nnodes == models[i].nnodes && b.ntets == models[i].ntets);
            CHECK(memcmp(a.nodes, b.nodes, 3 * sizeof(double) * (size_t)a.nnodes) == 0);
            CHECK(memcmp(a.tets, b.tets, 4 * sizeof(int) * (size_t)a.ntets) == 0);
            CHECK(memcmp(a.tet_region, b.tet_region, sizeof(int) * (size_t)a.ntets) == 0);
            int core = 0, other = 0;
            for (int t = 0; t < a.ntets; t++) {
                core += a.tet_region[t] == 2;
                other += a.tet_region[t] == 1;
            }
            CHECK(core == models[i].core && other == a.ntets - core);
            double v = total_volume(&a);
            if (models[i].tol < 1e-9) {
                CHECK_NEAR(v, models[i].volume, models[i].tol);
            } else {
                CHECK(v < models[i].volume);
                CHECK(v > (1.0 - models[i].tol) * models[i].volume);
            }
            for (int t = 0; t < a.ntets; t++) CHECK(tet_volume(&a, t) > 0);
        }
        mo_tetmesh_free(&a);
        mo_tetmesh_free(&b);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_tet DATA_DIR MODELS_DIR\n");
        return 1;
    }
    data_dir = argv[1];
    models_dir = argv[2];
    test_cube_formats();
    test_sparse_tags();
    test_bad_files();
    test_bad_calls();
    test_reorient();
    test_check_memory();
    test_models();
    return check_result_counted("test_tet");
}
