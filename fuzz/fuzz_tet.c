/* fuzz_tet.c: the tetrahedral mesh readers (moreau/tetmesh.h: TetGen
 * .node/.ele and Gmsh .msh) on arbitrary text.
 *
 * An input holding "$MeshFormat" is written as tet.msh. Any other input is a
 * TetGen pair: the text up to the first line that is exactly "%%ele" is
 * tet.node, the rest tet.ele (without such a line both files get the whole
 * input). The seeds in fuzz/corpus/tet are built that way from tests/tet/data.
 * The first byte's low bit picks MO_TETMESH_REORIENT.
 *
 * Promises checked (tetmesh.h): a failure returns a status other than MO_OK,
 * zeroes *out and writes a sentence naming the file; a success gives a mesh
 * that mo_tetmesh_check accepts (>= 1 tetrahedron, indices in range, every
 * tetrahedron positively oriented), with a region array. A loaded mesh of at
 * most 64 tetrahedra then becomes an FEM mesh (Newton solver) over a ground
 * plane, stepped once; creation may refuse it (e.g. nodes of no tetrahedron),
 * never crash. */
#include <moreau/tetmesh.h>

#include "fuzz_util.h"

static const char marker[] = "\n%%ele\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512], other[512];
    bool msh = false;
    static const char fmt[] = "$MeshFormat";
    for (size_t i = 0; i + sizeof fmt - 1 <= size && !msh; i++)
        if (memcmp(data + i, fmt, sizeof fmt - 1) == 0) msh = true;
    if (msh) {
        fuzz_write("tet.msh", data, size, path, sizeof path);
    } else {
        size_t cut = size, rest = size;
        for (size_t i = 0; i + sizeof marker - 1 <= size; i++)
            if (memcmp(data + i, marker, sizeof marker - 1) == 0) {
                cut = i + 1;
                rest = i + sizeof marker - 1;
                break;
            }
        fuzz_write("tet.node", data, cut, path, sizeof path);
        if (rest < size || cut < size)
            fuzz_write("tet.ele", data + rest, size - rest, other, sizeof other);
        else
            fuzz_write("tet.ele", data, size, other, sizeof other);
    }
    unsigned flags = (size > 0 && (data[0] & 1)) ? MO_TETMESH_REORIENT : 0;

    mo_tetmesh m;
    memset(&m, 0xab, sizeof m);
    char err[512];
    err[0] = '\0';
    mo_status st = mo_tetmesh_load_flags(path, flags, &m, err, sizeof err);
    FUZZ_CHECK(st >= MO_OK && st <= MO_ERR_IO);
    if (st != MO_OK) {
        FUZZ_CHECK(m.nnodes == 0 && m.ntets == 0 && m.nodes == NULL && m.tets == NULL && m.tet_region == NULL);
        FUZZ_CHECK(err[0] != '\0' && strstr(err, "tet.") != NULL);
        return 0;
    }
    FUZZ_CHECK(m.ntets >= 1 && m.nodes != NULL && m.tets != NULL && m.tet_region != NULL);
    FUZZ_CHECK(mo_tetmesh_check(&m, err, sizeof err) == MO_OK);
    for (int t = 0; t < m.ntets; t++) FUZZ_CHECK(mo_tetmesh_element_orientation(&m, t, NULL) == 1);

    if (m.ntets <= 64 && m.nnodes <= 256) {
        mo_world *w = NULL;
        mo_world_def wd = mo_default_world_def();
        wd.solver.kind = MO_SOLVER_NEWTON;
        FUZZ_CHECK(mo_world_create(&wd, &w, NULL, 0) == MO_OK);
        mo_body_def g = mo_default_body_def();
        g.type = MO_BODY_STATIC;
        g.position = (mo_vec3){0, 0, -1};
        g.shape = mo_default_shape_def();
        g.shape.type = MO_SHAPE_PLANE;
        mo_body_id gid;
        FUZZ_CHECK(mo_body_create(w, &g, &gid) == MO_OK);
        mo_fem_material_def mat = {1e5, 0.3, 1000, MO_FEM_COROTATIONAL};
        if (flags) mat.model = MO_FEM_NEO_HOOKEAN;
        mo_fem_mesh_def fd = mo_default_fem_mesh_def();
        fd.mesh = &m;
        fd.materials = &mat;
        fd.material_count = 1;
        fd.radius = 0.01;
        mo_fem_mesh_id id;
        uint64_t h0 = mo_world_state_hash(w);
        mo_status fs = mo_fem_mesh_create(w, &fd, &id);
        FUZZ_CHECK(fs == MO_OK || fs == MO_ERR_INVALID_ARGUMENT);
        if (fs == MO_OK) {
            int nn = -1, ne = -1;
            FUZZ_CHECK(mo_fem_mesh_counts(w, id, &nn, &ne) == MO_OK);
            FUZZ_CHECK(nn == m.nnodes && ne == m.ntets);
            FUZZ_CHECK(mo_world_step(w) == MO_OK);
        } else {
            FUZZ_CHECK(mo_fem_mesh_id_is_null(id));
            FUZZ_CHECK(mo_world_state_hash(w) == h0);
        }
        mo_world_destroy(w);
    }
    mo_tetmesh_free(&m);
    return 0;
}
