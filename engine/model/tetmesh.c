/* tetmesh.c: tetrahedral meshes in memory (moreau/tetmesh.h): the checks
 * every mesh passes before it becomes FEM elements (mo_tetmesh_check, also
 * called by mo_fem_mesh_create), each element's orientation and volume, and
 * freeing. The file readers are in the scene layer (scene/tet/). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "moreau/tetmesh.h"
#include "core/core.h"

/* 6 V and the longest edge cubed */
static void tet_measure(const double *x, const int *tet, double *six_v, double *l3)
{
    const double *a = x + 3 * tet[0], *b = x + 3 * tet[1], *c = x + 3 * tet[2], *d = x + 3 * tet[3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) {
        u[k] = b[k] - a[k];
        v[k] = c[k] - a[k];
        w[k] = d[k] - a[k];
    }
    *six_v = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
             u[2] * (v[0] * w[1] - v[1] * w[0]);
    const double *p[4] = {a, b, c, d};
    double m = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double dx = p[i][0] - p[j][0], dy = p[i][1] - p[j][1], dz = p[i][2] - p[j][2];
            double l2 = dx * dx + dy * dy + dz * dz;
            if (l2 > m) m = l2;
        }
    *l3 = m * sqrt(m);
}

/* flat: |6 V| <= 1e-12 L^3 (NaN from huge coordinates counts as flat) */
static bool flat(double six_v, double l3)
{
    return !(fabs(six_v) > 1e-12 * l3);
}

int mo_tetmesh_element_orientation(const mo_tetmesh *m, int t, double *volume)
{
    if (volume) *volume = NAN;
    if (!m || !m->nodes || !m->tets || t < 0 || t >= m->ntets) return 0;
    for (int k = 0; k < 4; k++)
        if (m->tets[4 * (size_t)t + k] < 0 || m->tets[4 * (size_t)t + k] >= m->nnodes) return 0;
    double six_v, l3;
    tet_measure(m->nodes, m->tets + 4 * (size_t)t, &six_v, &l3);
    if (volume) *volume = six_v / 6.0;
    if (flat(six_v, l3)) return 0;
    return six_v > 0 ? 1 : -1;
}

mo_status mo_tetmesh_check(const mo_tetmesh *m, char *err, size_t err_size)
{
    const char *f = "mo_tetmesh_check";
    if (!m) {
        mo_errf(err, err_size, "%s: mesh is NULL", f);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (m->ntets <= 0 || m->nnodes < 4 || m->ntets > INT_MAX / 4 || m->nnodes > INT_MAX / 3) {
        mo_errf(err, err_size, "%s: %d nodes and %d tetrahedra: a mesh needs at least 4 nodes and 1 tetrahedron", f,
                   m->nnodes, m->ntets);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!m->nodes || !m->tets) {
        mo_errf(err, err_size, "%s: %s is NULL", f, !m->nodes ? "nodes" : "tets");
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < m->nnodes; i++) {
        const double *x = m->nodes + 3 * (size_t)i;
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) {
            mo_errf(err, err_size, "%s: node %d has a non-finite coordinate (%g, %g, %g)", f, i, x[0], x[1], x[2]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    for (int t = 0; t < m->ntets; t++) {
        const int *tet = m->tets + 4 * (size_t)t;
        for (int k = 0; k < 4; k++) {
            if (tet[k] < 0 || tet[k] >= m->nnodes) {
                mo_errf(err, err_size, "%s: tetrahedron %d: node index %d is out of range (0 to %d)", f, t, tet[k],
                           m->nnodes - 1);
                return MO_ERR_INVALID_ARGUMENT;
            }
            for (int j = 0; j < k; j++)
                if (tet[j] == tet[k]) {
                    mo_errf(err, err_size, "%s: tetrahedron %d uses node %d twice", f, t, tet[k]);
                    return MO_ERR_INVALID_ARGUMENT;
                }
        }
    }
    for (int t = 0; t < m->ntets; t++) {
        double vol;
        int o = mo_tetmesh_element_orientation(m, t, &vol);
        if (o > 0) continue;
        mo_errf(err, err_size, "%s: tetrahedron %d %s (volume %.3g)", f, t, o == 0 ? "has zero volume" : "is inverted",
                vol);
        return MO_ERR_INVALID_ARGUMENT;
    }
    return MO_OK;
}

double mo_tetmesh_volume(const mo_tetmesh *m)
{
    if (!m || !m->nodes || !m->tets) return 0.0;
    double sum = 0.0;
    for (int t = 0; t < m->ntets; t++) {
        double six_v, l3;
        tet_measure(m->nodes, m->tets + 4 * (size_t)t, &six_v, &l3);
        sum += six_v / 6.0;
    }
    return sum;
}

void mo_tetmesh_free(mo_tetmesh *m)
{
    if (!m) return;
    free(m->nodes);
    free(m->tets);
    free(m->tet_region);
    memset(m, 0, sizeof *m);
}
