/* fem_internal.h: the FEM meshes' storage (fem_world.c) shared with the
 * queries of fem_query.c (boundary surface, strains). Not installed. */
#ifndef MO_FEM_INTERNAL_H
#define MO_FEM_INTERNAL_H

#include "internal.h"
#include "kernels/fem.h"

typedef struct fem_mesh {
    uint32_t generation;
    bool alive;
    int nnodes, ntets, nmat, nfixed, nrows;
    int *node_part;             /* particle slot of each node */
    int *tets;                  /* 4 per tetrahedron */
    int *tmat;                  /* material of each tetrahedron */
    mo_fem_material *kmat;     /* per material */
    mo_fem_model *model;        /* per material */
    mo_fem_tet *rest;           /* per tetrahedron */
    double *act;                /* per tetrahedron */
    int *fixed;                 /* node of each fixed entry */
    unsigned char *faxes;       /* axes held */
    double *ftarget, *fvel;     /* 3 per fixed entry */
    double *lam;                /* nrows: last step's forces */
    bool have_lam;
    double rest_volume;
    int ntris;                  /* boundary triangles (faces of one tetrahedron only), outward */
    int *tris;                  /* 3 node indices per boundary triangle */
    unsigned char *on_surface;  /* per node: 1 when it is a vertex of a boundary triangle */
} fem_mesh;

typedef struct fem_world {
    fem_mesh *m;
    int cap, count, nfree;
    int *free_list;
} fem_world;

static inline fem_mesh *mo_fem_mesh_get(const mo_world *w, mo_fem_mesh_id id)
{
    fem_world *fw = (fem_world *)w->fem;
    if (!fw || id.index == 0 || id.index > (uint32_t)fw->count) return NULL;
    fem_mesh *m = &fw->m[id.index - 1];
    return m->alive && m->generation == id.generation ? m : NULL;
}


/* the boundary triangles of a tetrahedral mesh: every face that belongs to
 * exactly one tetrahedron, wound so that its normal (b - a) x (c - a) points
 * out of that tetrahedron (tets positively oriented). *tris gets 3 node
 * indices per triangle (malloc'd, the caller frees), on_surface (nnodes,
 * may be NULL) 1 for nodes of a boundary triangle. Returns the triangle
 * count, -1 out of memory. */
int mo_fem_surface_build(const int *tets, int ntets, int nnodes, int **tris, unsigned char *on_surface);

/* The compliance the Newton step's linear system uses for the FEM rows
 * (eps_t), next to the rows' own eps (the residual C + eps lambda keeps eps):
 * the 7-row Neo-Hookean stretch rows get 1/(mu V + lambda_H) when the
 * volume row's force lambda_H > 0, which puts the positive part of that row's
 * curvature, -lambda_H d2J/dx2 (at rest: +lambda_H on symmetric deviatoric
 * modes), into the tangent. eps_t holds eps on entry (every FEM row) and
 * only the stretch rows are changed. A quasi-Newton tangent: the solution is
 * the same. */
void mo_fem_newton_tangent(const mo_world *w, const double *lambda, const double *eps, double *eps_t);

#endif
