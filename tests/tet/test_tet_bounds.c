/* test_tet_bounds: tetrahedral mesh files whose headers declare more nodes or
 * elements than the file can hold (issue 18, "bounded cost for any input").
 * The readers refuse a count above one record per two bytes left in the file
 * before allocating for it; each file here is a few dozen bytes declaring
 * 1e8-5e8 records (2-12 GB of arrays if believed), loaded in a child process
 * capped at 1 GiB of address space (tests/bounded.h; not applied under ASan),
 * and must fail there with its exact sentence, file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau/tetmesh.h"
#include "bounded.h"
#include "tmpdir.h"
#include "check.h"

#define CAP ((size_t)1 << 30)

static char tmpdir[256];

static int load_child(void *arg, char *msg, size_t size)
{
    mo_tetmesh m;
    mo_status st = mo_tetmesh_load((const char *)arg, &m, msg, size);
    mo_tetmesh_free(&m);
    return (int)st;
}

static void write_text(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) exit(1);
    fputs(text, f);
    fclose(f);
}

/* path + tail exactly, status MO_ERR_IO, in the capped child */
static void expect_bounded(const char *load, const char *shown, const char *tail)
{
    char msg[2048], want[2048];
    int st = -1;
    int rc = bounded_run(load_child, (void *)load, CAP, &st, msg, sizeof msg);
    CHECK(rc == 0);
    if (rc != 0) return;
    CHECK(st == (int)MO_ERR_IO);
    snprintf(want, sizeof want, "%s%s", shown, tail);
    CHECK_STR(msg, want);
}

int main(void)
{
    if (test_tmpdir_make(tmpdir, sizeof tmpdir, "moreau_tet_bounds")) return 1;
    if (!bounded_capped()) printf("AddressSanitizer: the 1 GiB address-space cap is not applied\n");
    char path[512], other[512];
    check_group_begin();
    /* Gmsh 2.2: 5e8 nodes (12 GB of coordinates) */
    write_text("n22.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n500000000\n1 0 0 0\n$EndNodes\n", path,
               sizeof path);
    expect_bounded(path, path, ":5: the file is too short for the 500000000 nodes its header declares");
    /* Gmsh 4.1: 4 nodes, then 5e8 elements in one block */
    write_text("e41.msh",
               "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n"
               "0 0 1\n$EndNodes\n$Elements\n1 500000000 1 500000000\n3 1 4 500000000\n1 1 2 3 4\n$EndElements\n",
               path, sizeof path);
    expect_bounded(path, path, ":17: the file is too short for the 500000000 elements its header declares");
    /* TetGen: a 4-node .node and an .ele declaring 1e8 tetrahedra */
    write_text("t.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", path, sizeof path);
    write_text("t.ele", "100000000 4 0\n1 1 2 3 4\n", other, sizeof other);
    expect_bounded(path, other, ":1: the file is too short for the 100000000 tetrahedra its header declares");
    check_group_end("counts", 8, 3);
    test_tmpdir_remove(tmpdir);
    return check_groups_result();
}
