/* fuzz_mesh.c: the mesh loader (mo_mesh_load, Assimp) on arbitrary bytes, and
 * the loaded triangles as engine shapes (triangle mesh and convex hull).
 *
 * Assimp picks its importer by the file's extension, so the target picks one
 * from the content, as a user's file would be named: "glTF" at offset 0 is
 * .glb; "<COLLADA" anywhere in the first 4 KiB is .dae; a first non-blank '{'
 * is .gltf; "solid" at offset 0, or a size of 84 + 50 n bytes with n at offset
 * 80, is .stl; "ply" at offset 0 is .ply; anything else .obj. Mutations can so
 * move an input from one importer to another.
 *
 * Promises checked (import.h): a failure returns a status other than MO_OK,
 * zeroes *out and writes "PATH: reason"; a success gives >= 3 vertices, >= 1
 * triangle, finite coordinates, indices in range and no degenerate triangle
 * (three distinct indices). Meshes of at most 20 000 triangles then become a
 * static mesh shape and, from their vertices, a convex hull on a dynamic body
 * (either may be refused with MO_ERR_INVALID_ARGUMENT, e.g. coplanar points,
 * but must not crash); the world is stepped once. */
#include <math.h>

#include <moreau/import.h>

#include "fuzz_util.h"

static const char *mesh_name(const uint8_t *d, size_t n)
{
    if (n >= 4 && memcmp(d, "glTF", 4) == 0) return "mesh.glb";
    size_t look = n < 4096 ? n : 4096;
    static const char collada[] = "<COLLADA";
    for (size_t i = 0; i + sizeof collada - 1 <= look; i++)
        if (memcmp(d + i, collada, sizeof collada - 1) == 0) return "mesh.dae";
    size_t i = 0;
    while (i < look && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n')) i++;
    if (i < look && d[i] == '{') return "mesh.gltf";
    if (n >= 5 && memcmp(d, "solid", 5) == 0) return "mesh.stl";
    if (n >= 84) {
        uint32_t ntri = (uint32_t)d[80] | (uint32_t)d[81] << 8 | (uint32_t)d[82] << 16 | (uint32_t)d[83] << 24;
        if ((uint64_t)ntri * 50 + 84 == n) return "mesh.stl";
    }
    if (n >= 3 && memcmp(d, "ply", 3) == 0) return "mesh.ply";
    return "mesh.obj";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_write(mesh_name(data, size), data, size, path, sizeof path);

    mo_mesh_data m;
    memset(&m, 0xab, sizeof m);
    char err[512];
    err[0] = '\0';
    mo_status st = mo_mesh_load(path, (mo_vec3){1, 1, 1}, &m, err, sizeof err);
    FUZZ_CHECK(st >= MO_OK && st <= MO_ERR_IO);
    if (st != MO_OK) {
        FUZZ_CHECK(m.nvertices == 0 && m.ntriangles == 0 && m.vertices == NULL && m.triangles == NULL);
        FUZZ_CHECK(err[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(m.nvertices >= 3 && m.ntriangles >= 1 && m.vertices != NULL && m.triangles != NULL);
    for (int i = 0; i < 3 * m.nvertices; i++) FUZZ_CHECK(isfinite(m.vertices[i]));
    for (int t = 0; t < m.ntriangles; t++) {
        const int *tri = &m.triangles[3 * t];
        for (int k = 0; k < 3; k++) FUZZ_CHECK(tri[k] >= 0 && tri[k] < m.nvertices);
        FUZZ_CHECK(tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2]);
    }

    if (m.ntriangles <= 20000) {
        mo_world *w = NULL;
        mo_world_def wd = mo_default_world_def();
        FUZZ_CHECK(mo_world_create(&wd, &w, NULL, 0) == MO_OK);
        mo_vec3 *v = malloc((size_t)m.nvertices * sizeof *v);
        FUZZ_CHECK(v != NULL);
        for (int i = 0; i < m.nvertices; i++) v[i] = (mo_vec3){m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2]};

        mo_body_def sb = mo_default_body_def();
        sb.type = MO_BODY_STATIC;
        sb.shape = mo_default_shape_def();
        sb.shape.type = MO_SHAPE_MESH;
        sb.shape.vertices = v;
        sb.shape.vertex_count = m.nvertices;
        sb.shape.indices = m.triangles;
        sb.shape.triangle_count = m.ntriangles;
        mo_body_id b;
        mo_status s1 = mo_body_create(w, &sb, &b);
        FUZZ_CHECK(s1 == MO_OK || s1 == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK((s1 == MO_OK) == mo_body_is_valid(w, b));

        mo_body_def db = mo_default_body_def();
        db.position = (mo_vec3){0, 0, 0.25};
        db.shape = mo_default_shape_def();
        db.shape.type = MO_SHAPE_CONVEX_HULL;
        db.shape.points = v;
        db.shape.point_count = m.nvertices;
        mo_status s2 = mo_body_create(w, &db, &b);
        FUZZ_CHECK(s2 == MO_OK || s2 == MO_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK((s2 == MO_OK) == mo_body_is_valid(w, b));
        if (s1 == MO_OK || s2 == MO_OK) FUZZ_CHECK(mo_world_step(w) == MO_OK);
        free(v);
        mo_world_destroy(w);
    }
    mo_mesh_free(&m);
    return 0;
}
