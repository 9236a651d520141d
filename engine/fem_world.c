/* fem_world.c: FEM tetrahedral meshes in the world (issue 7, second slice):
 * creation with validation, queries, and the rows the non-smooth Newton step
 * (step_newton.c) appends to its system.
 *
 * Every node is a particle (mass lumped: density V / 4 from each of its
 * tetrahedra). Every tetrahedron gives rows C(x) with a diagonal compliance
 * (kernels/fem.h), solved like the joints' bilateral rows:
 *   C(x+) + eps lambda = 0,  x+ = x + h v+,  Jacobian dC/dx (so dC/dv+ = h J).
 * - Linear corotational (6 rows): fem.h's rows are the Voigt strains
 *   (e_xx, e_yy, e_zz, 2e_yz, 2e_zx, 2e_xy) of sym(R^T F) - I with the
 *   compliance E = (V K)^-1, whose normal block
 *   (1/(E_Y V)) [[1,-nu,-nu],[-nu,1,-nu],[-nu,-nu,1]] is not diagonal. The
 *   Newton step's Schur system takes a diagonal C, so the three normal rows
 *   are replaced by their projections on the block's orthonormal eigenvectors
 *   q0 = (1,1,1)/sqrt 3 (eigenvalue 1 - 2 nu: the volumetric row),
 *   q1 = (1,-1,0)/sqrt 2 and q2 = (1,1,-2)/sqrt 6 (eigenvalue 1 + nu):
 *   C' = Q^T C_n, J' = Q^T J_n, eps' = (1 - 2 nu, 1 + nu, 1 + nu)/(E_Y V).
 *   Q is orthogonal, so 1/2 C'^T eps'^-1 C' = 1/2 C_n^T E_n^-1 C_n: the same
 *   energy and the same forces. Shear rows keep eps = 1/(mu_L V). R is the
 *   polar factor of F at the Newton iterate, refreshed each Newton iteration
 *   and held fixed in the Jacobian (fem.h: the fixed-R force is exact).
 * - Stable Neo-Hookean without the log term, 7 rows (MO_FEM_NEO_HOOKEAN,
 *   fem.h mo_fem_nh7_*): C_H = J - alpha with eps = 1/(lambda V) and the six
 *   entries of the polar stretch S = R^T F (shear times sqrt 2) with
 *   eps = 1/(mu V), R refreshed each Newton iteration and held in the
 *   Jacobian as for the corotational rows: the same energy as the paper's
 *   2 rows, but the shear stiffness is in the rows' Gauss-Newton tangent
 *   instead of in C_D's curvature. mo_fem_newton_tangent lowers the stretch
 *   rows' compliance in the linear system to 1/(mu V + lambda_H) (the
 *   positive part of the volume row's curvature). At rest the rows are not
 *   zero: the rest multipliers (mu V; -mu V x 3; 0 x 3) balance (f = 0) and
 *   are the first step's starting multipliers.
 * - The paper's 2-row form (MO_FEM_NEO_HOOKEAN_2ROW, for comparison):
 *   C_H = J - alpha, C_D = sqrt(I_C) with eps = 1/(mu V), rest multipliers
 *   (mu V, -sqrt(3) mu V), shear stiffness only from the diagonal geometric
 *   stiffness of mo_fem_newton_geometric; free meshes diverge (README).
 * - Activation a: the element's rest shape scaled by (1 + a)^(1/3)
 *   (mo_fem_tet_activate).
 * - Fixed nodes: one row per held axis, C = x+_k - target_k, eps = 0, where
 *   the target is the node's position at creation moved by its fixed velocity
 *   (target of the end of the step: target + h v_fixed).
 * - Attachments (mo_fem_mesh_attach): 3 rows per attached node after every
 *   mesh's rows, C = x_node+ - (x_body+ + R_body+ r), eps the attachment's
 *   compliance, on the particle and a dynamic body's 6 DOFs (fem_ext below).
 * Forces lambda are kept per row between steps for the warm start. Only the
 * boundary nodes are collision objects (mo_fem_particle_skip, step_collide.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/fem.h"
#include "fem_internal.h"
#include "moreau/tetmesh.h"
#include "newton.h" /* MO_NROW_* row types */
#include "../collision/collide_internal.h" /* mo_cl_collide_triangle */

static const double SQ3 = 1.7320508075688772, SQ2 = 1.4142135623730951, SQ6 = 2.449489742783178;

/* Attachments (issue 7): a node held to a point fixed in a rigid body,
 * C = x_node+ - (x_body+ + R_body+ r) (3 bilateral rows, compliance eps), r
 * the node's position in the body frame when attached. They live in a list
 * of the whole world, after fem_internal.h's fem_world (w->fem points to the
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
 * the plane normal to n (step_newton.c's fixed point on W, mu the combination
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
    int skip_cap;
} fem_ext;

static bool attach_live(const mo_world *w, const fem_attach *a)
{
    const fem_world *fw = (const fem_world *)w->fem;
    if (a->mesh >= fw->count || !fw->m[a->mesh].alive || fw->m[a->mesh].generation != a->mesh_gen) return false;
    if (a->body >= w->body_count) return false;
    const mo_body *b = &w->bodies[a->body];
    return b->alive && b->generation == a->body_gen;
}

/* drops attachments whose mesh or body is gone */
static void attach_purge(mo_world *w)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx) return;
    int k = 0;
    for (int i = 0; i < fx->natt; i++)
        if (attach_live(w, &fx->att[i])) fx->att[k++] = fx->att[i];
    fx->natt = k;
}

static int tet_rows(const fem_mesh *m, int t)
{
    mo_fem_model md = m->model[m->tmat[t]];
    return md == MO_FEM_NEO_HOOKEAN ? 7 : (md == MO_FEM_NEO_HOOKEAN_2ROW ? 2 : 6);
}

static int fixed_rows(const fem_mesh *m, int f)
{
    return (m->faxes[f] & 1) + ((m->faxes[f] >> 1) & 1) + ((m->faxes[f] >> 2) & 1);
}

static void mesh_free(fem_mesh *m)
{
    free(m->node_part); free(m->tets); free(m->tmat); free(m->kmat); free(m->model); free(m->rest);
    free(m->act); free(m->fixed); free(m->faxes); free(m->ftarget); free(m->fvel); free(m->lam);
    free(m->tris); free(m->on_surface);
    uint32_t gen = m->generation;
    memset(m, 0, sizeof *m);
    m->generation = gen;
}

void mo_fem_world_free(mo_world *w)
{
    fem_world *fw = (fem_world *)w->fem;
    if (!fw) return;
    for (int i = 0; i < fw->count; i++) mesh_free(&fw->m[i]);
    free(fw->m);
    free(fw->free_list);
    free(((fem_ext *)fw)->att);
    free(((fem_ext *)fw)->skip);
    free(((fem_ext *)fw)->sc);
    free(((fem_ext *)fw)->sc_prev);
    free(fw);
    w->fem = NULL;
}

int mo_fem_live_meshes(const mo_world *w)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int n = 0;
    for (int i = 0; fw && i < fw->count; i++) n += fw->m[i].alive;
    return n;
}

#define GET_MESH(w, id)                                                                                      \
    fem_mesh *m = mo_fem_mesh_get((w), (id));                                                                       \
    if (!m) {                                                                                                \
        mo_set_error((mo_world *)(w), "FEM mesh id (index %u, generation %u) does not name a live mesh",     \
                     (id).index, (id).generation);                                                           \
        return MO_ERR_STALE_ID;                                                                              \
    }

mo_fem_mesh_def mo_default_fem_mesh_def(void)
{
    mo_fem_mesh_def d;
    memset(&d, 0, sizeof d);
    d.orientation = (mo_quat){1.0, 0.0, 0.0, 0.0};
    d.friction = 0.5;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

bool mo_fem_mesh_is_valid(const mo_world *w, mo_fem_mesh_id id) { return w && mo_fem_mesh_get(w, id) != NULL; }

/* validation of everything but the geometry; 0 or a sentence in w->err */
static int check_def(mo_world *w, const mo_fem_mesh_def *d, int nnodes, int ntets)
{
    if (w->def.solver.kind != MO_SOLVER_NEWTON) {
        mo_set_error(w, "FEM meshes need the newton solver (MO_SOLVER_NEWTON); the world's solver is '%s'",
                     mo_solver_name(w->def.solver.kind));
        return -1;
    }
    if (!d->materials || d->material_count < 1) {
        mo_set_error(w, "FEM mesh needs at least one material, got %d", d->materials ? d->material_count : 0);
        return -1;
    }
    for (int i = 0; i < d->material_count; i++) {
        const mo_fem_material_def *mt = &d->materials[i];
        if (!(mt->young > 0.0) || !isfinite(mt->young)) {
            mo_set_error(w, "FEM material %d: Young's modulus must be finite and > 0, got %g", i, mt->young);
            return -1;
        }
        if (!(mt->poisson > -1.0 && mt->poisson < 0.5)) {
            mo_set_error(w, "FEM material %d: Poisson's ratio must be in (-1, 0.5), got %g", i, mt->poisson);
            return -1;
        }
        if (!(mt->density > 0.0) || !isfinite(mt->density)) {
            mo_set_error(w, "FEM material %d: density must be finite and > 0, got %g", i, mt->density);
            return -1;
        }
        if (mt->model != MO_FEM_COROTATIONAL && mt->model != MO_FEM_NEO_HOOKEAN && mt->model != MO_FEM_NEO_HOOKEAN_2ROW) {
            mo_set_error(w, "FEM material %d: model %d is not a known model", i, (int)mt->model);
            return -1;
        }
    }
    for (int t = 0; d->element_material && t < ntets; t++)
        if (d->element_material[t] < 0 || d->element_material[t] >= d->material_count) {
            mo_set_error(w, "FEM element %d: material index %d is not in [0, %d)", t, d->element_material[t],
                         d->material_count);
            return -1;
        }
    for (int t = 0; d->activation && t < ntets; t++)
        if (!(d->activation[t] > -1.0) || !isfinite(d->activation[t])) {
            mo_set_error(w, "FEM element %d: activation must be finite and > -1, got %g", t, d->activation[t]);
            return -1;
        }
    if (d->fixed_count < 0 || (d->fixed_count > 0 && !d->fixed_nodes)) {
        mo_set_error(w, "FEM mesh: fixed_nodes must hold fixed_count (%d) node indices", d->fixed_count);
        return -1;
    }
    for (int f = 0; f < d->fixed_count; f++) {
        if (d->fixed_nodes[f] < 0 || d->fixed_nodes[f] >= nnodes) {
            mo_set_error(w, "FEM fixed node %d: node index %d is not in [0, %d)", f, d->fixed_nodes[f], nnodes);
            return -1;
        }
        if (d->fixed_axes && (d->fixed_axes[f] < 1 || d->fixed_axes[f] > 7)) {
            mo_set_error(w, "FEM fixed node %d (node %d): axes must be a non-empty mask of 1 (x), 2 (y), 4 (z), got %d",
                         f, d->fixed_nodes[f], (int)d->fixed_axes[f]);
            return -1;
        }
        for (int g = 0; g < f; g++)
            if (d->fixed_nodes[g] == d->fixed_nodes[f]) {
                mo_set_error(w, "FEM node %d is fixed twice (fixed entries %d and %d)", d->fixed_nodes[f], g, f);
                return -1;
            }
    }
    if (!(d->friction >= 0.0) || !isfinite(d->friction) || !(d->radius >= 0.0) || !isfinite(d->radius)) {
        mo_set_error(w, "FEM mesh friction and radius must be finite and >= 0, got %g and %g", d->friction, d->radius);
        return -1;
    }
    double qn = d->orientation.w * d->orientation.w + d->orientation.x * d->orientation.x +
                d->orientation.y * d->orientation.y + d->orientation.z * d->orientation.z;
    if (!mo_finite3(d->position) || !mo_finite3(d->velocity) || !(qn > 0.0) || !isfinite(qn)) {
        mo_set_error(w, "FEM mesh position, orientation and velocity must be finite (orientation not zero)");
        return -1;
    }
    return 0;
}

mo_status mo_fem_mesh_create(mo_world *w, const mo_fem_mesh_def *d, mo_fem_mesh_id *out)
{
    if (out) *out = (mo_fem_mesh_id){0, 0};
    if (!d || !out) {
        mo_set_error(w, "mo_fem_mesh_create: def and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (d->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "FEM mesh def was not initialised with mo_default_fem_mesh_def()");
        return MO_ERR_INVALID_ARGUMENT;
    }
    /* the mesh as a mo_tetmesh (borrowed arrays) for mo_tetmesh_check */
    mo_tetmesh tm;
    memset(&tm, 0, sizeof tm);
    double *nodes_copy = NULL;
    if (d->mesh) {
        tm = *d->mesh;
    } else {
        if (d->node_count > 0 && d->nodes) {
            nodes_copy = (double *)malloc((size_t)d->node_count * 3 * sizeof(double));
            if (!nodes_copy) {
                mo_set_error(w, "mo_fem_mesh_create: out of memory");
                return MO_ERR_OUT_OF_MEMORY;
            }
            for (int i = 0; i < d->node_count; i++) {
                nodes_copy[3 * i] = d->nodes[i].x;
                nodes_copy[3 * i + 1] = d->nodes[i].y;
                nodes_copy[3 * i + 2] = d->nodes[i].z;
            }
        }
        tm.nnodes = d->node_count;
        tm.nodes = nodes_copy;
        tm.ntets = d->tet_count;
        tm.tets = (int *)d->tets;
    }
    char msg[MO_ERR_LEN - 32];
    if (mo_tetmesh_check(&tm, msg, sizeof msg) != MO_OK) {
        mo_set_error(w, "FEM mesh: %s", msg);
        free(nodes_copy);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int nn = tm.nnodes, nt = tm.ntets;
    if (check_def(w, d, nn, nt)) {
        free(nodes_copy);
        return MO_ERR_INVALID_ARGUMENT;
    }
    /* world positions, rest data, lumped masses */
    mo_fem_mesh_def dd = *d;
    double q[4] = {dd.orientation.w, dd.orientation.x, dd.orientation.y, dd.orientation.z};
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= qn;
    double *X = (double *)malloc(((size_t)nn * 3 + 1) * sizeof(double));
    double *mass = (double *)calloc((size_t)nn + 1, sizeof(double));
    fem_mesh nm;
    memset(&nm, 0, sizeof nm);
    nm.nnodes = nn;
    nm.ntets = nt;
    nm.nmat = d->material_count;
    nm.nfixed = d->fixed_count;
    nm.node_part = (int *)malloc(((size_t)nn + 1) * sizeof(int));
    nm.tets = (int *)malloc(((size_t)nt * 4 + 1) * sizeof(int));
    nm.tmat = (int *)malloc(((size_t)nt + 1) * sizeof(int));
    nm.kmat = (mo_fem_material *)malloc((size_t)nm.nmat * sizeof(mo_fem_material));
    nm.model = (mo_fem_model *)malloc((size_t)nm.nmat * sizeof(mo_fem_model));
    nm.rest = (mo_fem_tet *)malloc(((size_t)nt + 1) * sizeof(mo_fem_tet));
    nm.act = (double *)calloc((size_t)nt + 1, sizeof(double));
    nm.fixed = (int *)malloc(((size_t)nm.nfixed + 1) * sizeof(int));
    nm.faxes = (unsigned char *)malloc((size_t)nm.nfixed + 1);
    nm.ftarget = (double *)malloc(((size_t)nm.nfixed * 3 + 1) * sizeof(double));
    nm.fvel = (double *)calloc((size_t)nm.nfixed * 3 + 1, sizeof(double));
    mo_status st = MO_OK;
    if (!X || !mass || !nm.node_part || !nm.tets || !nm.tmat || !nm.kmat || !nm.model || !nm.rest || !nm.act ||
        !nm.fixed || !nm.faxes || !nm.ftarget || !nm.fvel) {
        mo_set_error(w, "mo_fem_mesh_create: out of memory");
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    for (int i = 0; i < nn; i++) {
        double p[3];
        mo_q_rotate(p, q, tm.nodes + 3 * i);
        X[3 * i] = p[0] + dd.position.x;
        X[3 * i + 1] = p[1] + dd.position.y;
        X[3 * i + 2] = p[2] + dd.position.z;
    }
    for (int i = 0; i < nm.nmat; i++) {
        mo_fem_material_init(d->materials[i].young, d->materials[i].poisson, &nm.kmat[i]);
        nm.model[i] = d->materials[i].model;
    }
    memcpy(nm.tets, tm.tets, (size_t)nt * 4 * sizeof(int));
    for (int t = 0; t < nt; t++) {
        nm.tmat[t] = d->element_material ? d->element_material[t] : 0;
        nm.act[t] = d->activation ? d->activation[t] : 0.0;
        double x[12];
        for (int a = 0; a < 4; a++) mo_v3_copy(x + 3 * a, X + 3 * nm.tets[4 * t + a]);
        if (mo_fem_tet_setup(x, &nm.rest[t]) != MO_FEM_OK) { /* mo_tetmesh_check passed: cannot happen */
            mo_set_error(w, "FEM element %d: degenerate or inverted after the mesh pose", t);
            st = MO_ERR_INVALID_ARGUMENT;
            goto fail;
        }
        nm.rest_volume += nm.rest[t].V;
        nm.nrows += tet_rows(&nm, t);
        double mt = d->materials[nm.tmat[t]].density * nm.rest[t].V / 4.0;
        for (int a = 0; a < 4; a++) mass[nm.tets[4 * t + a]] += mt;
    }
    for (int i = 0; i < nn; i++)
        if (!(mass[i] > 0.0)) {
            mo_set_error(w, "FEM node %d belongs to no tetrahedron (it would have no mass)", i);
            st = MO_ERR_INVALID_ARGUMENT;
            goto fail;
        }
    for (int f = 0; f < nm.nfixed; f++) {
        nm.fixed[f] = d->fixed_nodes[f];
        nm.faxes[f] = d->fixed_axes ? d->fixed_axes[f] : 7;
        mo_v3_copy(nm.ftarget + 3 * f, X + 3 * nm.fixed[f]);
        nm.nrows += fixed_rows(&nm, f);
    }
    nm.lam = (double *)calloc((size_t)nm.nrows + 1, sizeof(double));
    nm.on_surface = (unsigned char *)calloc((size_t)nn + 1, 1);
    nm.ntris = nm.on_surface ? mo_fem_surface_build(nm.tets, nt, nn, &nm.tris, nm.on_surface) : -1;
    if (!nm.lam || nm.ntris < 0) {
        mo_set_error(w, "mo_fem_mesh_create: out of memory");
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    /* the mesh slot */
    if (!w->fem) {
        w->fem = calloc(1, sizeof(fem_ext));
        if (!w->fem) {
            mo_set_error(w, "mo_fem_mesh_create: out of memory");
            st = MO_ERR_OUT_OF_MEMORY;
            goto fail;
        }
    }
    fem_world *fw = (fem_world *)w->fem;
    int slot = mo_pool_alloc((void **)&fw->m, sizeof(fem_mesh), &fw->cap, &fw->count, &fw->free_list, &fw->nfree);
    if (slot < 0) {
        mo_set_error(w, "mo_fem_mesh_create: out of memory");
        st = MO_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    /* particles */
    for (int i = 0; i < nn; i++) {
        mo_particle_def pd = mo_default_particle_def();
        pd.position = (mo_vec3){X[3 * i], X[3 * i + 1], X[3 * i + 2]};
        pd.velocity = dd.velocity;
        pd.mass = mass[i];
        pd.radius = dd.radius;
        pd.friction = dd.friction;
        mo_particle_id pid;
        st = mo_particle_create(w, &pd, &pid);
        if (st != MO_OK) {
            for (int k = 0; k < i; k++) {
                mo_particle *p = &w->particles[nm.node_part[k]];
                p->alive = false;
                w->particle_free[w->particle_nfree++] = nm.node_part[k];
            }
            fw->free_list[fw->nfree++] = slot;
            goto fail;
        }
        nm.node_part[i] = (int)pid.index - 1;
        w->particles[nm.node_part[i]].fem_mesh = slot + 1;
    }
    nm.generation = fw->m[slot].generation + 1;
    nm.alive = true;
    fw->m[slot] = nm;
    *out = (mo_fem_mesh_id){(uint32_t)slot + 1, nm.generation};
    free(X);
    free(mass);
    free(nodes_copy);
    return MO_OK;
fail:
    mesh_free(&nm);
    free(X);
    free(mass);
    free(nodes_copy);
    return st;
}

mo_status mo_fem_mesh_destroy(mo_world *w, mo_fem_mesh_id id)
{
    GET_MESH(w, id);
    for (int i = 0; i < m->nnodes; i++) {
        mo_particle *p = &w->particles[m->node_part[i]];
        p->alive = false;
        p->fem_mesh = 0;
        w->particle_free[w->particle_nfree++] = m->node_part[i];
    }
    fem_world *fw = (fem_world *)w->fem;
    mesh_free(m);
    m->alive = false;
    fw->free_list[fw->nfree++] = (int)id.index - 1;
    attach_purge(w); /* its attachments go with it */
    return MO_OK;
}

mo_status mo_fem_mesh_set_activation(mo_world *w, mo_fem_mesh_id id, int element, double a)
{
    GET_MESH(w, id);
    if (element < 0 || element >= m->ntets) {
        mo_set_error(w, "FEM element %d is not in [0, %d)", element, m->ntets);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!(a > -1.0) || !isfinite(a)) {
        mo_set_error(w, "FEM element %d: activation must be finite and > -1, got %g", element, a);
        return MO_ERR_INVALID_ARGUMENT;
    }
    m->act[element] = a;
    return MO_OK;
}

mo_status mo_fem_mesh_set_fixed_velocity(mo_world *w, mo_fem_mesh_id id, int node, mo_vec3 v)
{
    GET_MESH(w, id);
    if (!mo_finite3(v)) {
        mo_set_error(w, "FEM node %d: fixed velocity must be finite", node);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int f = 0; f < m->nfixed; f++)
        if (m->fixed[f] == node) {
            mo_v3_set(m->fvel + 3 * f, v.x, v.y, v.z);
            return MO_OK;
        }
    mo_set_error(w, "FEM node %d is not a fixed node of the mesh", node);
    return MO_ERR_INVALID_ARGUMENT;
}

mo_status mo_fem_mesh_counts(const mo_world *w, mo_fem_mesh_id id, int *nodes, int *elements)
{
    GET_MESH(w, id);
    if (nodes) *nodes = m->nnodes;
    if (elements) *elements = m->ntets;
    return MO_OK;
}

static int node_ok(const mo_world *w, const fem_mesh *m, int node)
{
    if (node >= 0 && node < m->nnodes) return 1;
    mo_set_error((mo_world *)w, "FEM node %d is not in [0, %d)", node, m->nnodes);
    return 0;
}

mo_status mo_fem_mesh_node_position(const mo_world *w, mo_fem_mesh_id id, int node, mo_vec3 *out)
{
    GET_MESH(w, id);
    if (!node_ok(w, m, node) || !out) return MO_ERR_INVALID_ARGUMENT;
    const double *x = w->particles[m->node_part[node]].x;
    *out = (mo_vec3){x[0], x[1], x[2]};
    return MO_OK;
}

mo_status mo_fem_mesh_node_particle(const mo_world *w, mo_fem_mesh_id id, int node, mo_particle_id *out)
{
    GET_MESH(w, id);
    if (!node_ok(w, m, node) || !out) return MO_ERR_INVALID_ARGUMENT;
    int s = m->node_part[node];
    *out = (mo_particle_id){(uint32_t)s + 1, w->particles[s].generation};
    return MO_OK;
}

mo_status mo_fem_mesh_volume(const mo_world *w, mo_fem_mesh_id id, double *current, double *rest)
{
    GET_MESH(w, id);
    if (rest) *rest = m->rest_volume;
    if (current) {
        double v = 0.0;
        for (int t = 0; t < m->ntets; t++) {
            const double *x0 = w->particles[m->node_part[m->tets[4 * t]]].x;
            double e[3][3];
            for (int a = 1; a < 4; a++) mo_v3_sub(e[a - 1], w->particles[m->node_part[m->tets[4 * t + a]]].x, x0);
            double c[3];
            mo_v3_cross(c, e[1], e[2]);
            v += mo_v3_dot(e[0], c) / 6.0;
        }
        *current = v;
    }
    return MO_OK;
}

/* ---- attachments ---- */

static int find_attach(const mo_world *w, int mesh_slot, int node)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++)
        if (fx->att[i].mesh == mesh_slot && fx->att[i].node == node && attach_live(w, &fx->att[i])) return i;
    return -1;
}

mo_status mo_fem_mesh_attach(mo_world *w, mo_fem_mesh_id id, int node, mo_body_id body, double compliance)
{
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    mo_body *b = mo_body_get(w, body);
    if (!b) {
        mo_set_error(w, "FEM node %d: body id (index %u, generation %u) does not name a live body", node, body.index,
                     body.generation);
        return MO_ERR_STALE_ID;
    }
    if (!(compliance >= 0.0) || !isfinite(compliance)) {
        mo_set_error(w, "FEM node %d: attachment compliance must be finite and >= 0, got %g", node, compliance);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int f = 0; f < m->nfixed; f++)
        if (m->fixed[f] == node) {
            mo_set_error(w, "FEM node %d is a fixed node: it cannot also be attached to body %u", node, body.index);
            return MO_ERR_INVALID_ARGUMENT;
        }
    int slot = (int)id.index - 1;
    int prev = find_attach(w, slot, node);
    if (prev >= 0) {
        mo_set_error(w, "FEM node %d is already attached to body %u: detach it first", node,
                     (unsigned)((fem_ext *)w->fem)->att[prev].body + 1);
        return MO_ERR_INVALID_ARGUMENT;
    }
    fem_ext *fx = (fem_ext *)w->fem;
    attach_purge(w);
    if (fx->natt == fx->att_cap) {
        int cap = fx->att_cap ? 2 * fx->att_cap : 16;
        fem_attach *na = (fem_attach *)realloc(fx->att, (size_t)cap * sizeof *na);
        if (!na) {
            mo_set_error(w, "mo_fem_mesh_attach: out of memory");
            return MO_ERR_OUT_OF_MEMORY;
        }
        fx->att = na;
        fx->att_cap = cap;
    }
    fem_attach *a = &fx->att[fx->natt++];
    memset(a, 0, sizeof *a);
    a->mesh = slot;
    a->mesh_gen = m->generation;
    a->node = node;
    a->body = (int)body.index - 1;
    a->body_gen = b->generation;
    a->eps = compliance;
    /* r = R^T (x_node - x_body) */
    double d[3], qc[4];
    mo_v3_sub(d, w->particles[m->node_part[node]].x, b->k.x);
    mo_q_conj(qc, b->k.q);
    mo_q_rotate(a->r, qc, d);
    return MO_OK;
}

mo_status mo_fem_mesh_detach(mo_world *w, mo_fem_mesh_id id, int node)
{
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    int i = find_attach(w, (int)id.index - 1, node);
    if (i < 0) {
        mo_set_error(w, "FEM node %d is not attached to a body", node);
        return MO_ERR_INVALID_ARGUMENT;
    }
    fem_ext *fx = (fem_ext *)w->fem;
    fx->att[i] = fx->att[--fx->natt];
    return MO_OK;
}

mo_status mo_fem_mesh_attachment(const mo_world *w, mo_fem_mesh_id id, int node, mo_body_id *body, mo_vec3 *force)
{
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    int i = find_attach(w, (int)id.index - 1, node);
    if (i < 0) {
        mo_set_error((mo_world *)w, "FEM node %d is not attached to a body", node);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const fem_attach *a = &((const fem_ext *)w->fem)->att[i];
    if (body) *body = (mo_body_id){(uint32_t)a->body + 1, a->body_gen};
    if (force) *force = a->have_lam ? (mo_vec3){a->lam[0], a->lam[1], a->lam[2]} : (mo_vec3){0.0, 0.0, 0.0};
    return MO_OK;
}

mo_status mo_fem_mesh_element_centroid(const mo_world *w, mo_fem_mesh_id id, int element, mo_vec3 *out)
{
    GET_MESH(w, id);
    if (element < 0 || element >= m->ntets) {
        mo_set_error((mo_world *)w, "FEM element %d is not in [0, %d)", element, m->ntets);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!out) {
        mo_set_error((mo_world *)w, "mo_fem_mesh_element_centroid: out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    double c[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < 4; a++) mo_v3_axpy(c, 0.25, w->particles[m->node_part[m->tets[4 * element + a]]].x);
    *out = (mo_vec3){c[0], c[1], c[2]};
    return MO_OK;
}

int mo_fem_attached_to(const mo_world *w, int mesh_slot, int body_slot)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++)
        if (fx->att[i].mesh == mesh_slot && fx->att[i].body == body_slot && attach_live(w, &fx->att[i])) return 1;
    return 0;
}

int mo_fem_attach_count(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    int n = 0;
    for (int i = 0; fx && i < fx->natt; i++) n += attach_live(w, &fx->att[i]);
    return n;
}

const unsigned char *mo_fem_particle_skip(mo_world *w)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx || mo_fem_live_meshes(w) == 0) return NULL;
    if (fx->skip_cap < w->particle_count + 1) {
        unsigned char *ns = (unsigned char *)realloc(fx->skip, (size_t)w->particle_count + 1);
        if (!ns) return NULL;
        fx->skip = ns;
        fx->skip_cap = w->particle_count + 1;
    }
    memset(fx->skip, 0, (size_t)w->particle_count + 1);
    const fem_world *fw = &fx->base;
    for (int i = 0; i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int k = 0; k < m->nnodes; k++) fx->skip[m->node_part[k]] = !m->on_surface[k];
    }
    return fx->skip;
}

/* ---- rigid vertices against boundary triangles ---- */

/* the world vertices of shape slot sh (boxes: 8 corners, convex hulls: their
 * vertices; spheres: the centre, capsules: the two cap centres, with *rad
 * their radius, else 0) into v (at most cap), their count; 0 for other shapes
 * (triangle meshes: mesh_candidates) */
static int shape_vertices(const mo_world *w, int sh, double *v, int cap, double *rad)
{
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    double q[4], pos[3], lp[3];
    mo_q_mul(q, B->k.q, S->lq);
    mo_q_rotate(lp, B->k.q, S->lpos);
    mo_v3_add(pos, B->k.x, lp);
    int n = 0;
    *rad = 0.0;
    if (S->type == MO_SHAPE_SPHERE || S->type == MO_SHAPE_CAPSULE) {
        *rad = S->radius;
        int nc = S->type == MO_SHAPE_SPHERE ? 1 : 2;
        for (int c = 0; c < nc && n < cap; c++, n++) {
            double l[3] = {0.0, 0.0, nc == 1 ? 0.0 : (c ? S->half_height : -S->half_height)};
            mo_q_rotate(v + 3 * n, q, l);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    } else if (S->type == MO_SHAPE_BOX) {
        for (int c = 0; c < 8 && n < cap; c++, n++) {
            double l[3] = {(c & 1) ? S->he[0] : -S->he[0], (c & 2) ? S->he[1] : -S->he[1], (c & 4) ? S->he[2] : -S->he[2]};
            mo_q_rotate(v + 3 * n, q, l);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    } else if (S->type == MO_SHAPE_CONVEX_HULL && S->hull) {
        for (int c = 0; c < S->hull->nverts && n < cap; c++, n++) {
            mo_q_rotate(v + 3 * n, q, S->hull->verts + 3 * c);
            mo_v3_add(v + 3 * n, v + 3 * n, pos);
        }
    }
    return n;
}

/* a triangle mesh shape's candidates near the world box [lo, hi] (already grown by the margin),
 * from the mesh's BVH (the box taken into the mesh's frame): the triangles whose boxes meet it;
 * their vertices, each once, at their world positions in v (vid: the mesh's vertex index of each,
 * ascending); their edges as (index into v, index into v, 3 t + e) triples in e; *cen the world
 * position of the centroid of all the mesh's vertices (the one-sided test's inside point).
 * Returns the vertex count (0: none), -1 out of memory; the buffers grow as needed. */
typedef struct mesh_cand { int *tri; int n, cap; } mesh_cand;

static void mesh_cand_add(void *ctx, int tri)
{
    mesh_cand *c = (mesh_cand *)ctx;
    if (c->n == c->cap) {
        int nc = c->cap ? 2 * c->cap : 64;
        int *t = (int *)realloc(c->tri, (size_t)nc * sizeof(int));
        if (!t) { c->cap = -1; return; }
        c->tri = t;
        c->cap = nc;
    }
    if (c->cap > 0) c->tri[c->n++] = tri;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int mesh_candidates(const mo_world *w, int sh, const double *lo, const double *hi, double **v, int *vcap,
                           int **vid, int *idcap, int **e, int *ecap, int *ne, double *cen)
{
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    const mo_cl_mesh *M = S->mesh;
    double q[4], qc[4], pos[3], lp[3];
    mo_q_mul(q, B->k.q, S->lq);
    mo_q_rotate(lp, B->k.q, S->lpos);
    mo_v3_add(pos, B->k.x, lp);
    mo_q_conj(qc, q);
    /* the world box in the mesh's frame */
    double llo[3] = {INFINITY, INFINITY, INFINITY}, lhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 8; k++) {
        double c[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]}, d[3], l[3];
        mo_v3_sub(d, c, pos);
        mo_q_rotate(l, qc, d);
        for (int a = 0; a < 3; a++) llo[a] = fmin(llo[a], l[a]), lhi[a] = fmax(lhi[a], l[a]);
    }
    mesh_cand c = {NULL, 0, 0};
    mo_cl_mesh_query(M, llo, lhi, mesh_cand_add, &c);
    if (c.cap < 0) { free(c.tri); return -1; }
    *ne = 0;
    if (c.n == 0) { free(c.tri); return 0; }
    if (3 * c.n > *idcap || 3 * c.n > *vcap || 3 * c.n > *ecap) {
        int n3 = 3 * c.n;
        int *a = (int *)realloc(*vid, (size_t)n3 * sizeof(int));
        if (a) *vid = a;
        double *b = a ? (double *)realloc(*v, (size_t)n3 * 3 * sizeof(double)) : NULL;
        if (b) *v = b;
        int *d = b ? (int *)realloc(*e, (size_t)n3 * 3 * sizeof(int)) : NULL;
        if (d) *e = d;
        if (!d) { free(c.tri); return -1; }
        *idcap = *vcap = *ecap = n3;
    }
    int nv = 0;
    for (int t = 0; t < c.n; t++)
        for (int a = 0; a < 3; a++) (*vid)[nv++] = M->tris[3 * c.tri[t] + a];
    qsort(*vid, (size_t)nv, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < nv; k++)
        if (u == 0 || (*vid)[k] != (*vid)[u - 1]) (*vid)[u++] = (*vid)[k];
    nv = u;
    for (int k = 0; k < nv; k++) {
        mo_q_rotate(*v + 3 * k, q, M->verts + 3 * (*vid)[k]);
        mo_v3_add(*v + 3 * k, *v + 3 * k, pos);
    }
    for (int t = 0; t < c.n; t++)
        for (int a = 0; a < 3; a++) {
            int i0 = M->tris[3 * c.tri[t] + a], i1 = M->tris[3 * c.tri[t] + (a + 1) % 3];
            const int *p0 = (const int *)bsearch(&i0, *vid, (size_t)nv, sizeof(int), cmp_int);
            const int *p1 = (const int *)bsearch(&i1, *vid, (size_t)nv, sizeof(int), cmp_int);
            int *o = *e + 3 * (*ne)++;
            o[0] = (int)(p0 - *vid);
            o[1] = (int)(p1 - *vid);
            o[2] = 3 * c.tri[t] + a;
        }
    free(c.tri);
    mo_q_rotate(cen, q, M->centroid);
    mo_v3_add(cen, cen, pos);
    return nv;
}

/* whether world point p lies in a tetrahedron of mesh m at the nodes' current positions */
static bool point_in_mesh(const mo_world *w, const fem_mesh *m, const double *p)
{
    for (int t = 0; t < m->ntets; t++) {
        const double *x[4];
        for (int a = 0; a < 4; a++) x[a] = w->particles[m->node_part[m->tets[4 * t + a]]].x;
        /* p is inside when replacing any vertex by p keeps every sub-volume >= 0 */
        bool in = true;
        for (int a = 0; a < 4 && in; a++) {
            const double *y[4] = {x[0], x[1], x[2], x[3]};
            y[a] = p;
            double e1[3], e2[3], e3[3], c[3];
            mo_v3_sub(e1, y[1], y[0]);
            mo_v3_sub(e2, y[2], y[0]);
            mo_v3_sub(e3, y[3], y[0]);
            mo_v3_cross(c, e2, e3);
            in = mo_v3_dot(e1, c) >= 0.0;
        }
        if (in) return true;
    }
    return false;
}

/* appends a surface contact (NULL when out of memory), its warm start from the previous step's
 * list: the same vertex (or the same layer feature on the same triangle) of the same shape on the
 * same mesh, its friction force projected on this step's tangents */
static fem_scontact *sc_push(mo_world *w, fem_ext *fx, const fem_mesh *m, int mi, int tri, const double *bb,
                             const double *bn, int sh, int vertex, uint32_t feat, const double *p, double rad)
{
    if (fx->nsc == fx->sc_cap) {
        int cap = fx->sc_cap ? 2 * fx->sc_cap : 64;
        fem_scontact *ns = (fem_scontact *)realloc(fx->sc, (size_t)cap * sizeof *ns);
        if (!ns) return NULL;
        fx->sc = ns;
        fx->sc_cap = cap;
    }
    const mo_shape *S = &w->shapes[sh];
    const mo_body *B = &w->bodies[S->body];
    fem_scontact *k = &fx->sc[fx->nsc++];
    k->mesh = mi;
    k->tri = tri;
    for (int c = 0; c < 3; c++) k->node[c] = m->tris[3 * tri + c];
    memcpy(k->b, bb, 3 * sizeof(double));
    k->body = S->body;
    k->shape = sh;
    k->vertex = vertex;
    k->feat = feat;
    k->rad = rad;
    mo_v3_copy(k->n, bn);
    mo_v3_basis(k->n, k->t1, k->t2);
    /* the collide stage's rule for every contact: sqrt(mu_a mu_b); the mesh's friction is its nodes' */
    double mf = w->particles[m->node_part[m->tris[3 * tri]]].friction;
    k->mu = sqrt(mf * S->friction);
    double d[3], qc[4];
    mo_v3_sub(d, p, B->k.x);
    mo_q_conj(qc, B->k.q);
    mo_q_rotate(k->r, qc, d);
    k->lam[0] = k->lam[1] = k->lam[2] = 0.0;
    for (int j = 0; j < fx->nsc_prev; j++) {
        const fem_scontact *o = &fx->sc_prev[j];
        if (o->mesh != mi || o->shape != sh || o->vertex != vertex) continue;
        if (vertex < 0 && (o->tri != tri || o->feat != feat)) continue;
        double f[3];
        mo_v3_scale(f, o->t1, o->lam[1]);
        mo_v3_axpy(f, o->lam[2], o->t2);
        k->lam[0] = o->lam[0];
        k->lam[1] = mo_v3_dot(f, k->t1);
        k->lam[2] = mo_v3_dot(f, k->t2);
        break;
    }
    return k;
}

/* whether contacts k0.. (one shape's on one mesh) already have a row at world point p of body slot
 * body (within 1e-4 of the triangle's longest edge lmax, in the body frame) */
static bool sc_dup(const mo_world *w, const fem_ext *fx, int k0, int body, const double *p, double lmax)
{
    double rl[3], qc[4], dp[3];
    mo_v3_sub(dp, p, w->bodies[body].k.x);
    mo_q_conj(qc, w->bodies[body].k.q);
    mo_q_rotate(rl, qc, dp);
    for (int j = k0; j < fx->nsc; j++) {
        double dd[3];
        mo_v3_sub(dd, fx->sc[j].r, rl);
        if (mo_v3_dot(dd, dd) <= 1e-8 * lmax * lmax) return true;
    }
    return false;
}

/* the barycentric weights of p's projection on triangle tr along its normal, its outward unit
 * normal and its longest edge; false for a degenerate triangle or a projection outside it (a
 * weight below -tol, the weights then clamped: a vertex on an edge or a vertex may have a weight
 * -1e-17 by rounding, tol 1e-9; the collision layer clips a feature against the triangle's side
 * planes grown by its slop, 5e-5 of a quarter of the perimeter, tol 1e-3) */
static bool tri_project(const mo_world *w, const fem_mesh *m, int tr, const double *v, double tol, double *d_out,
                        double *bb, double *bn, double *lmax)
{
    const double *a = w->particles[m->node_part[m->tris[3 * tr]]].x;
    const double *b = w->particles[m->node_part[m->tris[3 * tr + 1]]].x;
    const double *c = w->particles[m->node_part[m->tris[3 * tr + 2]]].x;
    double e1[3], e2[3], e3[3], nrm[3], av[3];
    mo_v3_sub(e1, b, a);
    mo_v3_sub(e2, c, a);
    mo_v3_sub(e3, c, b);
    mo_v3_cross(nrm, e1, e2);
    double a2 = mo_v3_dot(nrm, nrm);
    if (!(a2 > 0.0)) return false;
    mo_v3_sub(av, v, a);
    *d_out = mo_v3_dot(av, nrm) / sqrt(a2);
    *lmax = sqrt(fmax(mo_v3_dot(e1, e1), fmax(mo_v3_dot(e2, e2), mo_v3_dot(e3, e3))));
    double cr[3], w1, w2;
    mo_v3_cross(cr, av, e2);
    w1 = mo_v3_dot(cr, nrm) / a2;
    mo_v3_cross(cr, e1, av);
    w2 = mo_v3_dot(cr, nrm) / a2;
    double w0 = 1.0 - w1 - w2;
    if (w0 < -tol || w1 < -tol || w2 < -tol) return false;
    w0 = fmax(w0, 0.0), w1 = fmax(w1, 0.0), w2 = fmax(w2, 0.0);
    double ws = w0 + w1 + w2;
    bb[0] = w0 / ws, bb[1] = w1 / ws, bb[2] = w2 / ws;
    mo_v3_scale(bn, nrm, 1.0 / sqrt(a2));
    return true;
}

int mo_fem_collide_surfaces(mo_world *w)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx) return 0;
    /* this step's list becomes the previous one (warm start) */
    fem_scontact *t = fx->sc_prev;
    int tc = fx->sc_prev_cap;
    fx->sc_prev = fx->sc;
    fx->sc_prev_cap = fx->sc_cap;
    fx->nsc_prev = fx->nsc;
    fx->sc = t;
    fx->sc_cap = tc;
    fx->nsc = 0;
    const fem_world *fw = &fx->base;
    const double margin = w->def.contact_margin;
    double *vb = NULL;
    int vcap = 0, *eb = NULL, ecap = 0, *vid = NULL, idcap = 0; /* world vertices of a shape; a triangle mesh's
                                                                     candidate edges and its vertices' indices */
    for (int mi = 0; mi < fw->count; mi++) {
        const fem_mesh *m = &fw->m[mi];
        if (!m->alive || m->ntris <= 0) continue;
        /* the boundary's box, grown by the margin */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < m->nnodes; k++) {
            if (!m->on_surface[k]) continue;
            const double *x = w->particles[m->node_part[k]].x;
            for (int c = 0; c < 3; c++) {
                if (x[c] < lo[c]) lo[c] = x[c];
                if (x[c] > hi[c]) hi[c] = x[c];
            }
        }
        for (int c = 0; c < 3; c++) lo[c] -= margin, hi[c] += margin;
        for (int sh = 0; sh < w->shape_count; sh++) {
            const mo_shape *S = &w->shapes[sh];
            if (!S->alive || (S->type != MO_SHAPE_BOX && S->type != MO_SHAPE_CONVEX_HULL && S->type != MO_SHAPE_SPHERE &&
                              S->type != MO_SHAPE_CAPSULE && S->type != MO_SHAPE_CYLINDER && S->type != MO_SHAPE_MESH))
                continue;
            const bool is_mesh = S->type == MO_SHAPE_MESH;
            if (is_mesh && !S->mesh) continue;
            if (mo_fem_attached_to(w, mi, S->body)) continue;
            const int k0 = fx->nsc; /* this shape's contacts on this mesh start here */
            /* 1. vertices (box and hull corners, sphere and capsule-cap centres) */
            int need = S->type == MO_SHAPE_BOX ? 8 : S->type == MO_SHAPE_CONVEX_HULL ? (S->hull ? S->hull->nverts : 0) : 2;
            if (need > vcap) {
                double *nv = (double *)realloc(vb, (size_t)need * 3 * sizeof(double));
                if (!nv) { free(vb); free(eb); free(vid); return -1; }
                vb = nv;
                vcap = need;
            }
            double rad = 0.0, mcen[3] = {0.0, 0.0, 0.0};
            int nv, nme = 0;
            if (is_mesh) { /* a triangle mesh: the vertices and edges of its triangles near the boundary */
                nv = mesh_candidates(w, sh, lo, hi, &vb, &vcap, &vid, &idcap, &eb, &ecap, &nme, mcen);
                if (nv < 0) { free(vb); free(eb); free(vid); return -1; }
                if (nv == 0) continue;
            } else {
                nv = shape_vertices(w, sh, vb, vcap, &rad);
            }
            for (int vi = 0; vi < nv; vi++) {
                const double *v = vb + 3 * vi;
                if (v[0] < lo[0] - rad || v[1] < lo[1] - rad || v[2] < lo[2] - rad || v[0] > hi[0] + rad ||
                    v[1] > hi[1] + rad || v[2] > hi[2] + rad)
                    continue;
                /* inside the mesh (in one of its tetrahedra) or not: a vertex inside is pushed out through
                   the nearest boundary triangle it projects into (at most that triangle's longest edge deep),
                   one outside only meets a triangle it is at most the margin above */
                const bool inside = point_in_mesh(w, m, v);
                int best = -1;
                double bd = INFINITY, bn[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
                for (int tr = 0; tr < m->ntris; tr++) {
                    double d, lmax, tb[3], tn[3];
                    if (!tri_project(w, m, tr, v, 1e-9, &d, tb, tn, &lmax)) continue;
                    if (inside ? (d > 0.0 || d < -lmax) : (d < 0.0 || d - rad > margin)) continue;
                    if (fabs(d) >= fabs(bd)) continue;
                    best = tr;
                    bd = d;
                    mo_v3_copy(bn, tn);
                    mo_v3_copy(bb, tb);
                }
                if (best < 0) continue;
                if (!sc_push(w, fx, m, mi, best, bb, bn, sh, is_mesh ? vid[vi] : vi, 0u, v, rad)) {
                    free(vb);
                    free(eb);
                    free(vid);
                    return -1;
                }
            }
            /* 2. boxes and hulls: their edges where they cross the walls of a triangle's prism (the
               planes through its edges along its normal). A convex polytope's lowest point along -n over
               a triangle is a vertex of the polytope (1.), a node of the triangle (the node's particle
               contact) or such a crossing, so with these the three kinds cover it. Points are taken
               within the margin above (at most the longest edge below) the triangle; a crossing on an
               edge shared by two triangles is kept once (below). */
            if (S->type == MO_SHAPE_BOX || S->type == MO_SHAPE_CONVEX_HULL || is_mesh) {
                if (nv < 1 || (S->type == MO_SHAPE_CONVEX_HULL && !S->hull)) continue;
                /* a triangle mesh: the 3 edges of each candidate triangle (an edge two triangles share
                   comes twice and its crossings are kept once, below) */
                int ne = S->type == MO_SHAPE_BOX ? 12 : is_mesh ? nme : S->hull->nedges;
                double o_cen[3] = {0.0, 0.0, 0.0};
                if (is_mesh) mo_v3_copy(o_cen, mcen);
                else for (int vi = 0; vi < nv; vi++) mo_v3_axpy(o_cen, 1.0 / nv, vb + 3 * vi);
                double slo[3] = {INFINITY, INFINITY, INFINITY}, shi[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (int vi = 0; vi < nv; vi++)
                    for (int c = 0; c < 3; c++) {
                        slo[c] = fmin(slo[c], vb[3 * vi + c] - margin);
                        shi[c] = fmax(shi[c], vb[3 * vi + c] + margin);
                    }
                for (int tr = 0; tr < m->ntris; tr++) {
                    const double *x[3];
                    bool apart = false;
                    for (int a = 0; a < 3; a++) x[a] = w->particles[m->node_part[m->tris[3 * tr + a]]].x;
                    for (int c = 0; c < 3 && !apart; c++)
                        apart = fmax(x[0][c], fmax(x[1][c], x[2][c])) < slo[c] || fmin(x[0][c], fmin(x[1][c], x[2][c])) > shi[c];
                    if (apart) continue;
                    double e1[3], e2[3], tn[3];
                    mo_v3_sub(e1, x[1], x[0]);
                    mo_v3_sub(e2, x[2], x[0]);
                    mo_v3_cross(tn, e1, e2);
                    double tl = mo_v3_norm(tn);
                    if (!(tl > 0.0)) continue;
                    mo_v3_scale(tn, tn, 1.0 / tl);
                    /* one-sided, as the layer's triangles: the shape's centre in front of the triangle */
                    double dc[3];
                    mo_v3_sub(dc, o_cen, x[0]);
                    if (mo_v3_dot(dc, tn) < 0.0) continue;
                    for (int ed = 0; ed < ne; ed++) {
                        int i0, i1;
                        if (S->type == MO_SHAPE_BOX) { /* corners differing in bit ed / 4 */
                            int bit = 1 << (ed >> 2), low = ed & 3;
                            i0 = bit == 1 ? low << 1 : bit == 2 ? (low & 1) | ((low & 2) << 1) : low;
                            i1 = i0 | bit;
                        } else if (is_mesh) {
                            i0 = eb[3 * ed];
                            i1 = eb[3 * ed + 1];
                            bool near = true; /* the edge's box against the triangle's, grown by the margin */
                            for (int c = 0; c < 3 && near; c++) {
                                double elo = fmin(vb[3 * i0 + c], vb[3 * i1 + c]) - margin;
                                double ehi = fmax(vb[3 * i0 + c], vb[3 * i1 + c]) + margin;
                                near = fmax(x[0][c], fmax(x[1][c], x[2][c])) >= elo && fmin(x[0][c], fmin(x[1][c], x[2][c])) <= ehi;
                            }
                            if (!near) continue;
                        } else {
                            i0 = S->hull->edges[2 * ed];
                            i1 = S->hull->edges[2 * ed + 1];
                        }
                        const double *p0 = vb + 3 * i0, *p1 = vb + 3 * i1;
                        for (int side = 0; side < 3; side++) {
                            /* wall through x[side] -> x[side + 1], containing tn: normal (x1 - x0) x tn */
                            double ee[3], wn[3], d0[3], d1[3];
                            mo_v3_sub(ee, x[(side + 1) % 3], x[side]);
                            mo_v3_cross(wn, ee, tn);
                            mo_v3_sub(d0, p0, x[side]);
                            mo_v3_sub(d1, p1, x[side]);
                            double s0 = mo_v3_dot(d0, wn), s1 = mo_v3_dot(d1, wn), pe[3];
                            mo_v3_sub(pe, p1, p0);
                            /* a crossing, not an edge lying in the wall (a bar's bottom edge in the wall
                               through a side triangle's top edge gave points anywhere along it) */
                            if ((s0 > 0.0) == (s1 > 0.0) || !(fabs(s0 - s1) > 1e-6 * mo_v3_norm(wn) * mo_v3_norm(pe)))
                                continue;
                            double u = s0 / (s0 - s1), q[3];
                            for (int c = 0; c < 3; c++) q[c] = p0[c] + u * pe[c];
                            double d, lmax, tb[3], bn[3];
                            if (!tri_project(w, m, tr, q, 1e-9, &d, tb, bn, &lmax)) continue;
                            if (d > margin || d < -lmax) continue;
                            if (sc_dup(w, fx, k0, S->body, q, lmax)) continue;
                            uint32_t feat = (uint32_t)(3 * (is_mesh ? eb[3 * ed + 2] : ed) + side);
                            if (!sc_push(w, fx, m, mi, tr, tb, bn, sh, -1, feat, q, 0.0)) {
                                free(vb);
                                free(eb);
                                free(vid);
                                return -1;
                            }
                        }
                    }
                }
                continue;
            }
            /* 3. capsules and cylinders: the collision layer's convex/triangle routine (collide_convex.c,
               one-sided triangles) where they cross a triangle between the vertices above (a capsule's
               side, a cylinder's rim or side), on triangles that hold none of this shape's vertex rows
               (those already carry this contact), only points that project into their triangle, each a
               row of the form above on the triangle's normal. (Boxes and hulls through the layer: the
               points of a face resting flat on coplanar triangles changed from step to step, 1 to 4 per
               triangle, and a bar lying across the slab rocked and sank by 1.3 mm; hence 2.) A sphere has
               its centre row on the triangle it projects into and is left to that. */
            if (S->type == MO_SHAPE_SPHERE) continue;
            mo_cl_object o;
            mo_shape_object(w, sh, &o);
            mo_cl_update_aabb(&o, margin);
            if (o.aabb_max[0] < lo[0] || o.aabb_max[1] < lo[1] || o.aabb_max[2] < lo[2] || o.aabb_min[0] > hi[0] ||
                o.aabb_min[1] > hi[1] || o.aabb_min[2] > hi[2])
                continue;
            const int k1 = fx->nsc;
            for (int tr = 0; tr < m->ntris; tr++) {
                double tw[9];
                bool apart = false;
                for (int a = 0; a < 3; a++) mo_v3_copy(tw + 3 * a, w->particles[m->node_part[m->tris[3 * tr + a]]].x);
                for (int c = 0; c < 3 && !apart; c++) {
                    double tl = fmin(tw[c], fmin(tw[3 + c], tw[6 + c])), th = fmax(tw[c], fmax(tw[3 + c], tw[6 + c]));
                    apart = th < o.aabb_min[c] || tl > o.aabb_max[c];
                }
                if (apart) continue;
                bool has_vertex = false;
                for (int j = k0; j < k1 && !has_vertex; j++) has_vertex = fx->sc[j].tri == tr;
                if (has_vertex) continue;
                mo_cl_contact out[MO_CL_MAX_POINTS];
                int nc = mo_cl_collide_triangle(tw, &o, margin, 0, out);
                for (int i = 0; i < nc; i++) {
                    /* the shape's point: point_b on its surface; for a capsule its core point on the axis
                       (carried exactly by the body while it rolls) with the radius */
                    double p[3], r = 0.0;
                    mo_v3_copy(p, out[i].point_b);
                    /* a cylinder's side (the layer's normal within sin = 0.05 of across its axis, the
                       rotation's third column, the layer's own tolerance for a side line): the point r
                       inside along the normal, near the axis, with the radius (taken as a material point of
                       the surface, a cylinder lying across the slab started rolling: 2.6 rad/s after
                       1.5 s) */
                    double ax[3] = {o.rot[2], o.rot[5], o.rot[8]};
                    if (S->type == MO_SHAPE_CAPSULE ||
                        (S->type == MO_SHAPE_CYLINDER && fabs(mo_v3_dot(ax, out[i].normal)) < 0.05)) {
                        r = S->radius + (o.margin > 0.0 ? o.margin : 0.0);
                        mo_v3_axpy(p, r, out[i].normal);
                    }
                    double d, lmax, tb[3], tn[3];
                    if (!tri_project(w, m, tr, p, 1e-3, &d, tb, tn, &lmax)) continue;
                    if (d - r > margin || d < -lmax) continue;
                    /* a point this shape already has a row for (a cap centre on a neighbouring triangle,
                       or the same point of the layer on the triangle across a shared edge: the layer's
                       clipping grows a triangle by its slop) would be a second, identical row, and the
                       Schur system singular along their difference */
                    if (sc_dup(w, fx, k0, S->body, p, lmax)) continue;
                    if (!sc_push(w, fx, m, mi, tr, tb, tn, sh, -1, out[i].feature, p, r)) {
                        free(vb);
                        free(eb);
                        free(vid);
                        return -1;
                    }
                }
            }
        }
    }
    free(vb);
    free(eb);
    free(vid);
    return 0;
}

int mo_fem_surface_contacts(const mo_world *w, double *force)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx) {
        if (force) *force = 0.0;
        return 0;
    }
    double f = 0.0;
    for (int i = 0; i < fx->nsc; i++) f += fx->sc[i].lam[0];
    if (force) *force = f;
    return fx->nsc;
}

int mo_fem_surface_edge_contacts(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    int n = 0;
    for (int i = 0; fx && i < fx->nsc; i++) n += fx->sc[i].vertex < 0;
    return n;
}

double mo_fem_surface_min_gap(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    double g = INFINITY;
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &fx->base.m[k->mesh];
        const mo_body *B = &w->bodies[k->body];
        double p[3];
        mo_q_rotate(p, B->k.q, k->r);
        mo_v3_add(p, p, B->k.x);
        double c = mo_v3_dot(k->n, p) - k->rad;
        for (int a = 0; a < 3; a++) c -= k->b[a] * mo_v3_dot(k->n, w->particles[m->node_part[k->node[a]]].x);
        if (c < g) g = c;
    }
    return g;
}

void mo_fem_surface_force(const mo_world *w, int body, double *f)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    f[0] = f[1] = f[2] = 0.0;
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        if (k->body != body) continue;
        mo_v3_axpy(f, k->lam[0], k->n);
        mo_v3_axpy(f, k->lam[1], k->t1);
        mo_v3_axpy(f, k->lam[2], k->t2);
    }
}

/* ---- the Newton step's rows ---- */

int mo_fem_newton_rows(const mo_world *w, int *nnz)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int rows = 0, nz = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntets; t++) {
            rows += tet_rows(m, t);
            nz += 12 * tet_rows(m, t);
        }
        for (int f = 0; f < m->nfixed; f++) {
            rows += fixed_rows(m, f);
            nz += fixed_rows(m, f);
        }
    }
    /* attachments after every mesh: 3 rows of 1 particle column, + 4 body columns when the body is dynamic */
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        if (!attach_live(w, &fx->att[i])) continue;
        rows += 3;
        nz += w->bodies[fx->att[i].body].owner >= 0 ? 15 : 3;
    }
    /* rigid points on boundary triangles: 3 rows (normal, 2 friction) of 9 particle columns, + 6 for a
       dynamic body */
    for (int i = 0; fx && i < fx->nsc; i++) {
        rows += 3;
        nz += 3 * (w->bodies[fx->sc[i].body].owner >= 0 ? 15 : 9);
    }
    if (nnz) *nnz = nz;
    return rows;
}

void mo_fem_newton_pattern(const mo_world *w, int base, int *row_ptr, int *col)
{
    const fem_world *fw = (const fem_world *)w->fem;
    const int *dof = (const int *)w->owner_dof.p;
    int r = 0, p = base;
    row_ptr[0] = base;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntets; t++)
            for (int k = 0; k < tet_rows(m, t); k++) {
                for (int a = 0; a < 4; a++) {
                    int d0 = dof[w->particles[m->node_part[m->tets[4 * t + a]]].owner];
                    for (int c = 0; c < 3; c++) col[p++] = d0 + c;
                }
                row_ptr[++r] = p;
            }
        for (int f = 0; f < m->nfixed; f++)
            for (int c = 0; c < 3; c++) {
                if (!(m->faxes[f] & (1 << c))) continue;
                col[p++] = dof[w->particles[m->node_part[m->fixed[f]]].owner] + c;
                row_ptr[++r] = p;
            }
    }
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!attach_live(w, a)) continue;
        int dp = dof[w->particles[((const fem_world *)fx)->m[a->mesh].node_part[a->node]].owner];
        int ob = w->bodies[a->body].owner;
        for (int c = 0; c < 3; c++) {
            col[p++] = dp + c;
            if (ob >= 0) {
                col[p++] = dof[ob] + c;
                for (int k = 3; k < 6; k++) col[p++] = dof[ob] + k;
            }
            row_ptr[++r] = p;
        }
    }
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &((const fem_world *)fx)->m[k->mesh];
        for (int q = 0; q < 3; q++) {
            for (int a = 0; a < 3; a++) {
                int d0 = dof[w->particles[m->node_part[k->node[a]]].owner];
                for (int c = 0; c < 3; c++) col[p++] = d0 + c;
            }
            int ob = w->bodies[k->body].owner;
            if (ob >= 0)
                for (int c = 0; c < 6; c++) col[p++] = dof[ob] + c;
            row_ptr[++r] = p;
        }
    }
}

void mo_fem_newton_eval(const mo_world *w, double h, const double *ppx, const double *bpx, const double *bpq,
                        const int *row_ptr, double *val, double *wval, double *C, double *eps, double *kin)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int r = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntets; t++) {
            const mo_fem_material *mt = &m->kmat[m->tmat[t]];
            mo_fem_tet el = m->rest[t];
            if (m->act[t] != 0.0) mo_fem_tet_activate(&m->rest[t], m->act[t], &el);
            double x[12], im[4], F[9], Cr[7], Jac[84], ep[7];
            for (int a = 0; a < 4; a++) {
                int ps = m->node_part[m->tets[4 * t + a]];
                mo_v3_copy(x + 3 * a, ppx + 3 * ps);
                im[a] = w->particles[ps].inv_mass;
            }
            mo_fem_deformation_gradient(x, el.Dm_inv, F);
            int nr = tet_rows(m, t);
            if (nr == 2) { /* the paper's 2 rows (MO_FEM_NEO_HOOKEAN_2ROW) */
                mo_fem_nh_rows(mt, F, Cr);
                mo_fem_nh_jacobian(F, el.Dm_inv, Jac);
                mo_fem_nh_compliance(mt, el.V, ep);
            } else if (nr == 7) {
                double R[9], S[9];
                mo_fem_polar(F, R, S, NULL);
                mo_fem_nh7_rows(mt, F, R, Cr);
                mo_fem_nh7_jacobian(F, R, el.Dm_inv, Jac);
                mo_fem_nh7_compliance(mt, el.V, ep);
            } else {
                double R[9], S[9], Cv[6], Jv[72];
                mo_fem_polar(F, R, S, NULL);
                mo_fem_corot_rows(F, R, Cv);
                mo_fem_corot_jacobian(R, el.Dm_inv, Jv);
                /* normal rows on the eigenvectors of the normal compliance block (file comment) */
                static const double Q[3][3] = {{1.0 / SQ3, 1.0 / SQ3, 1.0 / SQ3},
                                               {1.0 / SQ2, -1.0 / SQ2, 0.0},
                                               {1.0 / SQ6, 1.0 / SQ6, -2.0 / SQ6}};
                for (int q = 0; q < 3; q++) {
                    Cr[q] = Q[q][0] * Cv[0] + Q[q][1] * Cv[1] + Q[q][2] * Cv[2];
                    for (int c = 0; c < 12; c++)
                        Jac[12 * q + c] = Q[q][0] * Jv[c] + Q[q][1] * Jv[12 + c] + Q[q][2] * Jv[24 + c];
                }
                for (int q = 3; q < 6; q++) {
                    Cr[q] = Cv[q];
                    for (int c = 0; c < 12; c++) Jac[12 * q + c] = Jv[12 * q + c];
                }
                double c = 1.0 / (mt->young * el.V);
                ep[0] = (1.0 - 2.0 * mt->poisson) * c;
                ep[1] = ep[2] = (1.0 + mt->poisson) * c;
                ep[3] = ep[4] = ep[5] = 1.0 / (mt->mu_l * el.V);
            }
            for (int k = 0; k < nr; k++, r++) {
                int p = row_ptr[r];
                for (int c = 0; c < 12; c++) {
                    val[p + c] = Jac[12 * k + c];
                    wval[p + c] = im[c / 3] * Jac[12 * k + c];
                }
                C[r] = Cr[k];
                eps[r] = ep[k];
            }
        }
        for (int f = 0; f < m->nfixed; f++) {
            int ps = m->node_part[m->fixed[f]];
            for (int c = 0; c < 3; c++) {
                if (!(m->faxes[f] & (1 << c))) continue;
                int p = row_ptr[r];
                val[p] = 1.0;
                wval[p] = w->particles[ps].inv_mass;
                C[r] = ppx[3 * ps + c] - (m->ftarget[3 * f + c] + h * m->fvel[3 * f + c]);
                eps[r] = 0.0;
                r++;
            }
        }
    }
    /* attachments: C = x_node+ - (x_body+ + R+ r); rows [e | -e, e x a] with a = R+ r (particle, body v, w) */
    const fem_ext *fx = (const fem_ext *)w->fem;
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!attach_live(w, a)) continue;
        int ps = fw->m[a->mesh].node_part[a->node];
        int ob = w->bodies[a->body].owner;
        double ar[3];
        mo_q_rotate(ar, bpq + 4 * a->body, a->r);
        for (int c = 0; c < 3; c++, r++) {
            int p = row_ptr[r];
            val[p] = 1.0;
            wval[p] = w->particles[ps].inv_mass;
            if (ob >= 0) {
                double e[3] = {0.0, 0.0, 0.0}, ang[3], iang[3];
                e[c] = 1.0;
                mo_v3_cross(ang, e, ar);
                mo_m3_mulv(iang, oiI + 9 * ob, ang);
                val[p + 1] = -1.0;
                wval[p + 1] = -oim[ob];
                for (int k = 0; k < 3; k++) {
                    val[p + 2 + k] = ang[k];
                    wval[p + 2 + k] = iang[k];
                }
            }
            C[r] = ppx[3 * ps + c] - (bpx[3 * a->body + c] + ar[c]);
            eps[r] = a->eps;
        }
    }
    /* rigid points on boundary triangles: C = n . (p+ - sum b_i x_i+) - rad, rows [-b_i e | e, r+ x e]
       for e = n (the normal row), t1, t2 (the friction rows: C 0, J v their slip speed; kin: the part of
       J v from a kinematic body's motion, which is not in v) */
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &fw->m[k->mesh];
        const mo_body *B = &w->bodies[k->body];
        double rp[3], pp[3];
        mo_q_rotate(rp, bpq + 4 * k->body, k->r);
        mo_v3_add(pp, bpx + 3 * k->body, rp);
        const int ob = B->owner;
        const double *dirs[3] = {k->n, k->t1, k->t2};
        for (int q = 0; q < 3; q++, r++) {
            const double *e = dirs[q];
            double cn = mo_v3_dot(e, pp);
            int p = row_ptr[r];
            for (int a = 0; a < 3; a++) {
                int ps = m->node_part[k->node[a]];
                cn -= k->b[a] * mo_v3_dot(e, ppx + 3 * ps);
                for (int c = 0; c < 3; c++, p++) {
                    val[p] = -k->b[a] * e[c];
                    wval[p] = w->particles[ps].inv_mass * val[p];
                }
            }
            double ang[3];
            mo_v3_cross(ang, rp, e);
            if (ob >= 0) {
                double iang[3];
                mo_m3_mulv(iang, oiI + 9 * ob, ang);
                for (int c = 0; c < 3; c++) {
                    val[p + c] = e[c];
                    wval[p + c] = oim[ob] * e[c];
                    val[p + 3 + c] = ang[c];
                    wval[p + 3 + c] = iang[c];
                }
            }
            if (kin) kin[r] = ob < 0 && B->type == MO_BODY_KINEMATIC ? mo_v3_dot(e, B->k.v) + mo_v3_dot(ang, B->k.w) : 0.0;
            C[r] = q == 0 ? cn - k->rad : 0.0;
            eps[r] = q == 0 ? w->def.contact_compliance : 0.0;
        }
    }
}

void mo_fem_newton_geometric(const mo_world *w, const double *ppx, const double *lambda, double *kdiag)
{
    const fem_world *fw = (const fem_world *)w->fem;
    const int *dof = (const int *)w->owner_dof.p;
    int r = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntets; t++) {
            int nr = tet_rows(m, t);
            double lD = nr == 2 ? lambda[r + 1] : 0.0; /* the 2-row form's C_D (the 7-row form has no diagonal curvature) */
            r += nr;
            if (!(lD < 0.0)) continue;
            mo_fem_tet el = m->rest[t];
            if (m->act[t] != 0.0) mo_fem_tet_activate(&m->rest[t], m->act[t], &el);
            double x[12], F[9], g[12], nf = 0.0;
            for (int a = 0; a < 4; a++) mo_v3_copy(x + 3 * a, ppx + 3 * m->node_part[m->tets[4 * t + a]]);
            mo_fem_deformation_gradient(x, el.Dm_inv, F);
            for (int k = 0; k < 9; k++) nf += F[k] * F[k];
            nf = sqrt(nf);
            if (!(nf > 0.0)) continue;
            mo_fem_shape_gradients(el.Dm_inv, g);
            double c = -lD / nf;
            for (int a = 0; a < 4; a++) {
                int d0 = dof[w->particles[m->node_part[m->tets[4 * t + a]]].owner];
                double gg = mo_v3_dot(g + 3 * a, g + 3 * a);
                for (int k = 0; k < 3; k++) {
                    double fg = (F[3 * k] * g[3 * a] + F[3 * k + 1] * g[3 * a + 1] + F[3 * k + 2] * g[3 * a + 2]) / nf;
                    double kk = c * (gg - fg * fg);
                    if (kk > 0.0) kdiag[d0 + k] += kk;
                }
            }
        }
        for (int f = 0; f < m->nfixed; f++) r += fixed_rows(m, f);
    }
}

void mo_fem_newton_tangent(const mo_world *w, const double *lambda, const double *eps, double *eps_t)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int r = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int t = 0; t < m->ntets; t++) {
            int nr = tet_rows(m, t);
            if (nr == 7 && lambda[r] > 0.0) /* S rows: 1/(mu V + lambda_H) */
                for (int k = 1; k < 7; k++) eps_t[r + k] = eps[r + k] / (1.0 + eps[r + k] * lambda[r]);
            r += nr;
        }
        for (int f = 0; f < m->nfixed; f++) r += fixed_rows(m, f);
    }
}

void mo_fem_newton_lambda_get(const mo_world *w, bool warm, double *lambda)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int r = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        const fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        if (warm && m->have_lam) {
            for (int k = 0; k < m->nrows; k++) lambda[r + k] = isfinite(m->lam[k]) ? m->lam[k] : 0.0;
            r += m->nrows;
            continue;
        }
        /* the rest multipliers: corotational and fixed rows 0; Neo-Hookean (mu V, -sqrt(3) mu V) */
        for (int t = 0; t < m->ntets; t++) {
            int nr = tet_rows(m, t);
            if (nr == 2) {
                double V = m->rest[t].V * (1.0 + m->act[t]), mu = m->kmat[m->tmat[t]].nh_mu;
                lambda[r] = mu * V;
                lambda[r + 1] = -SQ3 * mu * V;
            } else if (nr == 7) {
                mo_fem_nh7_rest_multipliers(&m->kmat[m->tmat[t]], m->rest[t].V * (1.0 + m->act[t]), lambda + r);
            } else {
                for (int k = 0; k < nr; k++) lambda[r + k] = 0.0;
            }
            r += nr;
        }
        for (int f = 0; f < m->nfixed; f++)
            for (int k = 0; k < fixed_rows(m, f); k++) lambda[r++] = 0.0;
    }
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!attach_live(w, a)) continue;
        for (int k = 0; k < 3; k++) lambda[r++] = warm && a->have_lam && isfinite(a->lam[k]) ? a->lam[k] : 0.0;
    }
    for (int i = 0; fx && i < fx->nsc; i++)
        for (int q = 0; q < 3; q++) lambda[r++] = warm && isfinite(fx->sc[i].lam[q]) ? fx->sc[i].lam[q] : 0.0;
}

void mo_fem_newton_types(const mo_world *w, uint8_t *type)
{
    int nnz, n = mo_fem_newton_rows(w, &nnz);
    const fem_ext *fx = (const fem_ext *)w->fem;
    int r0 = n - 3 * (fx ? fx->nsc : 0);
    for (int r = 0; r < n; r++) type[r] = r < r0 ? MO_NROW_BILATERAL : (r - r0) % 3 ? MO_NROW_FRICTION : MO_NROW_NCP;
}

int mo_fem_newton_friction(const mo_world *w, int base, int *rn, double *mu)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx || fx->nsc == 0) return 0;
    int nnz, n = mo_fem_newton_rows(w, &nnz), r0 = base + n - 3 * fx->nsc;
    for (int i = 0; i < fx->nsc; i++) {
        if (rn) rn[i] = r0 + 3 * i;
        if (mu) mu[i] = fx->sc[i].mu;
    }
    return fx->nsc;
}

void mo_fem_newton_lambda_set(mo_world *w, const double *lambda)
{
    fem_world *fw = (fem_world *)w->fem;
    int r = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        memcpy(m->lam, lambda + r, (size_t)m->nrows * sizeof(double));
        m->have_lam = true;
        r += m->nrows;
    }
    /* attachments keep their forces; their dynamic bodies count as constrained owners, so that
     * mo_step_integrate turns them by the solver's w+ alone (the pose the rows were solved at) */
    fem_ext *fx = (fem_ext *)w->fem;
    uint8_t *ocon = (uint8_t *)w->owner_constrained.p;
    for (int i = 0; fx && i < fx->natt; i++) {
        fem_attach *a = &fx->att[i];
        if (!attach_live(w, a)) continue;
        memcpy(a->lam, lambda + r, 3 * sizeof(double));
        a->have_lam = true;
        r += 3;
        int ob = w->bodies[a->body].owner;
        if (ob >= 0 && ocon) ocon[ob] = 1;
    }
    for (int i = 0; fx && i < fx->nsc; i++) {
        for (int q = 0; q < 3; q++) fx->sc[i].lam[q] = lambda[r++];
        int ob = w->bodies[fx->sc[i].body].owner;
        if (ob >= 0 && ocon) ocon[ob] = 1;
    }
}

/* The FEM state a step changes (Newton step halving, step.c): per live mesh its rows' forces and
 * fixed-node targets, the attachments (forces), and this step's surface contacts (their forces, the
 * next step's warm start). Layout: per live mesh have_lam, lam[nrows], ftarget[3 nfixed]; natt, then
 * the attachments; nsc (doubles, then the attachments' bytes). */
size_t mo_fem_state_size(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx) return 0;
    size_t n = 2;
    for (int i = 0; i < fx->base.count; i++) {
        const fem_mesh *m = &fx->base.m[i];
        if (m->alive) n += 1 + (size_t)m->nrows + 3 * (size_t)m->nfixed;
    }
    return n * sizeof(double) + (size_t)fx->natt * sizeof(fem_attach);
}

void mo_fem_state_save(const mo_world *w, void *buf)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx) return;
    double *d = (double *)buf;
    for (int i = 0; i < fx->base.count; i++) {
        const fem_mesh *m = &fx->base.m[i];
        if (!m->alive) continue;
        *d++ = m->have_lam;
        memcpy(d, m->lam, (size_t)m->nrows * sizeof(double));
        d += m->nrows;
        memcpy(d, m->ftarget, 3 * (size_t)m->nfixed * sizeof(double));
        d += 3 * m->nfixed;
    }
    *d++ = fx->natt;
    *d++ = fx->nsc;
    memcpy(d, fx->att, (size_t)fx->natt * sizeof(fem_attach));
}

/* after a step is undone: buf from mo_fem_state_save at its start. The step's collide stage made
   the list of surface contacts it started with the previous list (sc_prev, read only since): it
   becomes the current one again */
void mo_fem_state_restore(mo_world *w, const void *buf)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx) return;
    const double *d = (const double *)buf;
    for (int i = 0; i < fx->base.count; i++) {
        fem_mesh *m = &fx->base.m[i];
        if (!m->alive) continue;
        m->have_lam = *d++ != 0.0;
        memcpy(m->lam, d, (size_t)m->nrows * sizeof(double));
        d += m->nrows;
        memcpy(m->ftarget, d, 3 * (size_t)m->nfixed * sizeof(double));
        d += 3 * m->nfixed;
    }
    fx->natt = (int)*d++;
    int nsc = (int)*d++;
    memcpy(fx->att, d, (size_t)fx->natt * sizeof(fem_attach)); /* attachments only leave during a step */
    fem_scontact *t = fx->sc;
    int tc = fx->sc_cap;
    fx->sc = fx->sc_prev;
    fx->sc_cap = fx->sc_prev_cap;
    fx->nsc = nsc;
    fx->sc_prev = t;
    fx->sc_prev_cap = tc;
    fx->nsc_prev = 0;
}

void mo_fem_step_end(mo_world *w, double h)
{
    fem_world *fw = (fem_world *)w->fem;
    for (int i = 0; fw && i < fw->count; i++) {
        fem_mesh *m = &fw->m[i];
        if (!m->alive) continue;
        for (int f = 0; f < 3 * m->nfixed; f++) m->ftarget[f] += h * m->fvel[f];
    }
    attach_purge(w); /* attachments of bodies destroyed since */
}
