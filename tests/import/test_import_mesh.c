/* test_import_mesh: mo_mesh_load on one box (half extents 0.5 0.25 0.1) written
 * in six formats by scenes/models/tools/gen_models.py (OBJ with quads, binary
 * and ASCII STL with 36 unjoined corners, Collada and glTF/glb with the
 * vertices shifted and a node translation shifting them back): every file must
 * give 8 vertices, 12 triangles, volume 0.1 and the same bounds; scale and
 * mirroring; malformed OBJ and STL files give Assimp's reason after the path. */
#include <stdlib.h>
#include <unistd.h>

#include "moreau/import.h"
#include "testutil.h"

#define DATA MO_SOURCE_ROOT "/tests/import/data/"

/* signed volume (divergence theorem) and bounds */
static double volume(const mo_mesh_data *m, double lo[3], double hi[3])
{
    for (int c = 0; c < 3; c++) lo[c] = 1e300, hi[c] = -1e300;
    for (int k = 0; k < m->nvertices; k++)
        for (int c = 0; c < 3; c++) {
            double x = m->vertices[3 * k + c];
            if (x < lo[c]) lo[c] = x;
            if (x > hi[c]) hi[c] = x;
        }
    double v = 0;
    for (int t = 0; t < m->ntriangles; t++) {
        const double *a = &m->vertices[3 * m->triangles[3 * t]], *b = &m->vertices[3 * m->triangles[3 * t + 1]],
                     *c = &m->vertices[3 * m->triangles[3 * t + 2]];
        double bc[3];
        cross3(b, c, bc);
        v += dot3(a, bc) / 6.0;
    }
    return v;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* loads path and expects failure with exactly "path: " + tail */
static void expect_error(const char *path, const char *tail, mo_status want)
{
    mo_mesh_data m;
    char err[512], expected[1024];
    mo_status s = mo_mesh_load(path, (mo_vec3){1, 1, 1}, &m, err, sizeof err);
    CHECK(s == want);
    CHECK(m.nvertices == 0 && m.vertices == NULL && m.triangles == NULL);
    snprintf(expected, sizeof expected, "%s: %s", path, tail);
    CHECK_STR(err, expected);
}

/* ASCII STL cut inside a vertex. Run alone (argument "stl-ascii-error") under a leak
 * suppression: Assimp 5.2's STLImporter::LoadASCIIFile keeps its new aiMesh (1320 bytes)
 * and aiNode (1144 bytes) in local std::vectors of raw pointers until the end of the
 * parse, so the DeadlyImportError thrown by fast_atoreal_move unwinds past them and
 * both leak inside Assimp (tests/import/lsan_assimp_stl_ascii.supp) */
static int stl_ascii_error(void)
{
    char dir[] = "/tmp/moreau_import_meshXXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char p[256];
    snprintf(p, sizeof p, "%s/cut.stl", dir);
    const char *stl_cut = "solid cut\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0\n";
    write_file(p, stl_cut, strlen(stl_cut));
    expect_error(p, "cannot read: Cannot parse string \"?\" as a real number: does not start with digit or "
                    "decimal point followed by digit.", MO_ERR_IO);
    unlink(p);
    rmdir(dir);
    return check_result_counted("import_mesh_stl_ascii_error");
}

int main(int argc, char **argv)
{
    mo_mesh_data m;
    char err[512];
    if (mo_mesh_load(DATA "box.obj", (mo_vec3){1, 1, 1}, &m, err, sizeof err) == MO_ERR_UNSUPPORTED) {
        printf("import_mesh: built without Assimp (%s): skipped\n", err);
        return 77;
    }
    mo_mesh_free(&m);
    if (argc > 1 && strcmp(argv[1], "stl-ascii-error") == 0) return stl_ascii_error();

    /* ---- the same box in every format ---- */
    static const char *const files[] = {"box.obj", "box_binary.stl", "box_ascii.stl", "box.dae", "box.gltf",
                                        "box.glb"};
    for (int i = 0; i < 6; i++) {
        char path[512];
        snprintf(path, sizeof path, DATA "%s", files[i]);
        mo_status s = mo_mesh_load(path, (mo_vec3){1, 1, 1}, &m, err, sizeof err);
        CHECK(s == MO_OK);
        if (s != MO_OK) {
            fprintf(stderr, "%s\n", err);
            continue;
        }
        CHECK(m.nvertices == 8);
        CHECK(m.ntriangles == 12);
        double lo[3], hi[3];
        /* float coordinates in the files: 1e-6 */
        CHECK_NEAR(volume(&m, lo, hi), 0.1, 1e-6);
        CHECK_VEC(lo, -0.5, -0.25, -0.1, 1e-6);
        CHECK_VEC(hi, 0.5, 0.25, 0.1, 1e-6);
        for (int k = 0; k < 3 * m.ntriangles; k++) CHECK(m.triangles[k] >= 0 && m.triangles[k] < 8);
        mo_mesh_free(&m);
        CHECK(m.vertices == NULL && m.triangles == NULL && m.nvertices == 0 && m.ntriangles == 0);
    }

    /* ---- scale, also mirroring (the winding is turned back: volume stays positive) ---- */
    CHECK(mo_mesh_load(DATA "box.glb", (mo_vec3){2, 3, 4}, &m, err, sizeof err) == MO_OK);
    double lo[3], hi[3];
    CHECK_NEAR(volume(&m, lo, hi), 0.1 * 24, 1e-5);
    CHECK_VEC(hi, 1.0, 0.75, 0.4, 1e-6);
    mo_mesh_free(&m);
    CHECK(mo_mesh_load(DATA "box.obj", (mo_vec3){-1, 1, 1}, &m, err, sizeof err) == MO_OK);
    CHECK_NEAR(volume(&m, lo, hi), 0.1, 1e-6);
    mo_mesh_free(&m);
    CHECK(mo_mesh_load(DATA "box.obj", (mo_vec3){1, 0, 1}, &m, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, DATA "box.obj: scale (1, 0, 1) must be finite and non-zero");
    mo_mesh_free(NULL);

    /* ---- malformed files (messages: Assimp 5.2's reason after "PATH: cannot read: ") ---- */
    char dir[] = "/tmp/moreau_import_meshXXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char p[8][256];
    for (int i = 0; i < 8; i++) snprintf(p[i], sizeof p[i], "%s/f%d", dir, i);
    strcat(p[0], ".obj");
    strcat(p[1], ".obj");
    strcat(p[2], ".stl");
    strcat(p[3], ".stl");
    strcat(p[4], ".stl");
    strcat(p[5], ".obj");
    /* face naming a vertex that does not exist */
    const char *obj_bad_index = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n";
    write_file(p[0], obj_bad_index, strlen(obj_bad_index));
    expect_error(p[0], "cannot read: OBJ: vertex index out of range", MO_ERR_IO);
    /* vertices but no faces: Assimp's validation refuses it */
    const char *obj_no_faces = "# three points and nothing else\nv 0 0 0\nv 1 0 0\nv 0 1 0\n";
    write_file(p[1], obj_no_faces, strlen(obj_no_faces));
    expect_error(p[1], "cannot read: Validation failed: Mesh  contains no faces", MO_ERR_IO);
    /* one triangle on three equal corners: joined, it is no triangle: our own refusal */
    const char *obj_degenerate = "v 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\n";
    write_file(p[5], obj_degenerate, strlen(obj_degenerate));
    expect_error(p[5], "cannot read: the file has no triangles (empty mesh)", MO_ERR_IO);
    unlink(p[5]);
    /* binary STL announcing 12 triangles but holding 2 */
    unsigned char bin[84 + 2 * 50];
    memset(bin, 0, sizeof bin);
    memset(bin, ' ', 80);
    bin[80] = 12;
    write_file(p[3], bin, sizeof bin);
    {
        char tail[512];
        snprintf(tail, sizeof tail, "cannot read: Failed to determine STL storage representation for %s.", p[3]);
        expect_error(p[3], tail, MO_ERR_IO);
    }
    /* an empty file */
    write_file(p[4], "", 0);
    expect_error(p[4], "cannot read: File is empty", MO_ERR_IO);
    /* a missing file */
    expect_error(p[5], "cannot read: No such file or directory", MO_ERR_IO);
    for (int i = 0; i < 5; i++) unlink(p[i]);
    rmdir(dir);
    return check_result_counted("import_mesh");
}
