/* fem_box.h: a structured tetrahedral box mesh (header-only), for the FEM
 * benchmark (bench_cantilever.c) and the FEM tests. */
#ifndef MO_TOOLS_FEM_BOX_H
#define MO_TOOLS_FEM_BOX_H

#include <stdlib.h>
#include <string.h>
#include "moreau/moreau.h"

/* a structured box mesh: (nx, ny, nz) cells of size (lx/nx, ...) from origin o,
 * each cube cut into 6 tetrahedra along its main diagonal (Freudenthal: the
 * same diagonal in every cube, so faces match), positively oriented */
typedef struct box_mesh {
    int nx, ny, nz, nn, nt;
    mo_vec3 *nodes;
    int *tets;
} box_mesh;

static int node_index(const box_mesh *b, int i, int j, int k) { return i + (b->nx + 1) * (j + (b->ny + 1) * k); }

static void box_mesh_make(box_mesh *b, int nx, int ny, int nz, mo_vec3 o, mo_vec3 size)
{
    b->nx = nx; b->ny = ny; b->nz = nz;
    b->nn = (nx + 1) * (ny + 1) * (nz + 1);
    b->nt = 6 * nx * ny * nz;
    b->nodes = (mo_vec3 *)malloc((size_t)b->nn * sizeof(mo_vec3));
    b->tets = (int *)malloc((size_t)b->nt * 4 * sizeof(int));
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 0; i <= nx; i++)
                b->nodes[node_index(b, i, j, k)] =
                    (mo_vec3){o.x + size.x * i / nx, o.y + size.y * j / ny, o.z + size.z * k / nz};
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int t = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                for (int p = 0; p < 6; p++) {
                    int c[3] = {i, j, k}, v[4];
                    v[0] = node_index(b, c[0], c[1], c[2]);
                    for (int s = 0; s < 3; s++) {
                        c[perm[p][s]]++;
                        v[s + 1] = node_index(b, c[0], c[1], c[2]);
                    }
                    /* orientation */
                    mo_vec3 a = b->nodes[v[0]], e1 = b->nodes[v[1]], e2 = b->nodes[v[2]], e3 = b->nodes[v[3]];
                    double d1[3] = {e1.x - a.x, e1.y - a.y, e1.z - a.z}, d2[3] = {e2.x - a.x, e2.y - a.y, e2.z - a.z},
                           d3[3] = {e3.x - a.x, e3.y - a.y, e3.z - a.z};
                    double vol = d1[0] * (d2[1] * d3[2] - d2[2] * d3[1]) - d1[1] * (d2[0] * d3[2] - d2[2] * d3[0]) +
                                 d1[2] * (d2[0] * d3[1] - d2[1] * d3[0]);
                    if (vol < 0) { int x = v[2]; v[2] = v[3]; v[3] = x; }
                    memcpy(b->tets + 4 * t++, v, sizeof v);
                }
}

/* the mesh definition of b with one material (copied by mo_fem_mesh_create) and nfixed fixed nodes
   (fixed may be NULL when nfixed is 0) */
static mo_fem_mesh_def box_mesh_def(const box_mesh *b, const mo_fem_material_def *mat, const int *fixed, int nfixed)
{
    mo_fem_mesh_def d = mo_default_fem_mesh_def();
    d.nodes = b->nodes;
    d.node_count = b->nn;
    d.tets = b->tets;
    d.tet_count = b->nt;
    d.materials = mat;
    d.material_count = 1;
    d.fixed_nodes = fixed;
    d.fixed_count = nfixed;
    return d;
}

static void box_mesh_free(box_mesh *b)
{
    free(b->nodes);
    free(b->tets);
}

#endif
