/* fem.h: the FEM meshes' storage (fem_mesh.c), shared with the queries of
 * fem_query.c (boundary surface, strains), the debug drawing and the step's
 * FEM rows and surface contacts (step/fem_rows.c, step/fem_contacts.c).
 * Not installed. */
#ifndef MO_FEM_H
#define MO_FEM_H

#include "model/world.h"
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

/* Attachments: a node held to a point fixed in a rigid body,
 * C = x_node+ - (x_body+ + R_body+ r) (3 bilateral rows, compliance eps), r
 * the node's position in the body frame when attached. They live in a list
 * of the whole world, after fem_world (w->fem points to the
 * fem_ext, whose first member is that fem_world): rows in list order after
 * every mesh's rows, so the per-mesh row numbering that fem_query.c and
 * mo_fem_newton_geometric walk is untouched. An attachment is live while
 * its mesh and its body are (ids checked by generation): destroying the body
 * drops it (like the body's joints), destroying the mesh removes its. */
typedef struct fem_attach {
    int mesh;               /* mesh slot */
    uint32_t mesh_gen;
    int node;
    int body;               /* body slot */
    uint32_t body_gen;
    double r[3];            /* point in the body frame */
    double eps;             /* compliance, m/N */
    double lam[3];          /* last step's force on the node, N (world) */
    bool have_lam;
} fem_attach;

/* A point of a rigid shape against a boundary triangle of a mesh (this
 * step's, found by mo_fem_collide_surfaces in the collide stage): one
 * unilateral row C = n . (p+ - s+) - rad >= 0, with n the triangle's outward
 * unit normal at the start of the step (held fixed, as the contacts' normals
 * are), p+ the point carried by its body, s+ = sum b_i x_i+ the point of the
 * triangle under it (barycentric weights b fixed), and two friction rows
 * t_k . (v_p+ - sum b_i v_i+) + W lambda_k = 0 along a fixed basis t1, t2 of
 * the plane normal to n (step/newton.c's fixed point on W, mu the combination
 * sqrt(mu_mesh mu_shape) the collide stage uses for every contact). The point
 * is a vertex of a box or hull or the centre of a sphere or capsule cap
 * (vertex >= 0), or a contact point of the collision layer's convex/triangle
 * routine (vertex = -1, feat its feature id on that triangle): see
 * mo_fem_collide_surfaces. */
typedef struct fem_scontact {
    int mesh;               /* mesh slot */
    int tri;                /* boundary triangle */
    int node[3];            /* its nodes */
    double b[3];            /* barycentric weights of the point under the vertex */
    int body, shape, vertex;/* body and shape slots, vertex index in the shape (-1: a collision-layer point) */
    uint32_t feat;          /* the layer's feature id on this triangle (vertex = -1) */
    double r[3];            /* the point (a sphere's or capsule's core point) in the body frame */
    double rad;             /* 0 for a surface point, the radius of a sphere or capsule */
    double n[3];            /* outward normal of the triangle (world) */
    double t1[3], t2[3];    /* friction directions: a fixed basis of the plane normal to n */
    double mu;              /* friction coefficient */
    double lam[3];          /* normal and friction forces (N): warm start in, result out */
} fem_scontact;

typedef struct fem_ext {
    fem_world base;         /* first: mo_fem_mesh_get casts w->fem to fem_world */
    fem_attach *att;
    int natt, att_cap;
    fem_scontact *sc, *sc_prev; /* this step's surface contacts and the previous step's (warm start) */
    int nsc, sc_cap, nsc_prev, sc_prev_cap;
    unsigned char *skip;    /* per particle slot: 1 = interior node of a mesh (collides with nothing) */
    double *vb;             /* step/fem_contacts.c's buffers, kept between steps: a shape's world vertices (3 per */
    int *eb, *vid;          /* vertex), a triangle mesh's candidate edges (3 each) and its vertices' indices, */
    int vcap, ecap, idcap;  /* and their room in vertices, edges, indices */
    double *xs;             /* a mesh's node positions in one array (3 per node) for the collision layer */
    int *mpair, *hull_ids;  /* a triangle mesh's edges as pairs and ids; a hull's edge ids (their index) */
    int xs_cap, mpair_cap, hull_ids_cap; /* their room: nodes, pair entries, ids */
    int skip_cap;
} fem_ext;

/* the live meshes of w in slot order, after prev (NULL: from the first); NULL at the end */
static inline fem_mesh *mo_fem_mesh_next(const mo_world *w, const fem_mesh *prev)
{
    const fem_world *fw = (const fem_world *)w->fem;
    if (!fw) return NULL;
    for (int i = prev ? (int)(prev - fw->m) + 1 : 0; i < fw->count; i++)
        if (fw->m[i].alive) return &fw->m[i];
    return NULL;
}
/* for (each live mesh m of w, in slot order) */
#define MO_FEM_EACH_MESH(w, m) for (fem_mesh *m = mo_fem_mesh_next(w, NULL); m; m = mo_fem_mesh_next(w, m))

/* the rows of tetrahedron t (corotational 6, Neo-Hookean 7, its 2-row form 2) and of fixed entry f (one per held axis) */
static inline int mo_fem_tet_rows(const fem_mesh *m, int t)
{
    mo_fem_model md = m->model[m->tmat[t]];
    return md == MO_FEM_NEO_HOOKEAN ? 7 : (md == MO_FEM_NEO_HOOKEAN_2ROW ? 2 : 6);
}

static inline int mo_fem_fixed_rows(const fem_mesh *m, int f)
{
    return (m->faxes[f] & 1) + ((m->faxes[f] >> 1) & 1) + ((m->faxes[f] >> 2) & 1);
}

/* an attachment is live while its mesh and its body are */
bool mo_fem_attach_live(const mo_world *w, const fem_attach *a);
/* drops attachments whose mesh or body is gone */
void mo_fem_attach_purge(mo_world *w);


/* the boundary triangles of a tetrahedral mesh: every face that belongs to
 * exactly one tetrahedron, wound so that its normal (b - a) x (c - a) points
 * out of that tetrahedron (tets positively oriented). *tris gets 3 node
 * indices per triangle (malloc'd, the caller frees), on_surface (nnodes,
 * may be NULL) 1 for nodes of a boundary triangle. Returns the triangle
 * count, -1 out of memory. */
MO_MUST_USE int mo_fem_surface_build(const int *tets, int ntets, int nnodes, int **tris, unsigned char *on_surface);


#endif
