/* fem_mesh.c: FEM tetrahedral meshes as objects of the world: creation
 * with validation (mo_tetmesh_check, then per element its rest shape),
 * activation, fixed nodes, attachments to rigid bodies, the queries of
 * moreau.h's "FEM meshes" block, and the state Newton step halving saves.
 *
 * Every node is a particle (mass lumped: density V / 4 from each of its
 * tetrahedra); only the boundary nodes are collision objects
 * (mo_fem_particle_skip, step/collide.c). The rows the meshes give the
 * Newton step, and their formulation, are in step/fem_rows.c; rigid shapes
 * against the boundary triangles in step/fem_contacts.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/fem.h"
#include "model/fem.h"
#include "moreau/tetmesh.h"

bool mo_fem_attach_live(const mo_world *w, const fem_attach *a)
{
    const fem_world *fw = (const fem_world *)w->fem;
    if (a->mesh >= fw->count || !fw->m[a->mesh].alive || fw->m[a->mesh].generation != a->mesh_gen) return false;
    if (a->body >= w->body_count) return false;
    const mo_body *b = &w->bodies[a->body];
    return b->alive && b->generation == a->body_gen;
}

void mo_fem_attach_purge(mo_world *w)
{
    fem_ext *fx = (fem_ext *)w->fem;
    if (!fx) return;
    int k = 0;
    for (int i = 0; i < fx->natt; i++)
        if (mo_fem_attach_live(w, &fx->att[i])) fx->att[k++] = fx->att[i];
    fx->natt = k;
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
    free(((fem_ext *)fw)->vb);
    free(((fem_ext *)fw)->eb);
    free(((fem_ext *)fw)->vid);
    free(((fem_ext *)fw)->xs);
    free(((fem_ext *)fw)->mpair);
    free(((fem_ext *)fw)->hull_ids);
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
        mo_set_error((w), "FEM mesh id (index %u, generation %u) %s",     \
                     (id).index, (id).generation, mo_id_fault((w), (id).generation, "does not name a live mesh")); \
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
    if (!mo_solver_has(w->def.solver.kind, MO_SOLVER_CAP_FEM)) {
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
        if (!(mt->young > 0.0 && mt->young <= MO_YOUNG_MAX)) {
            mo_set_error(w, "FEM material %d: Young's modulus must be finite and in (0, %g] Pa, got %g", i,
                         MO_YOUNG_MAX, mt->young);
            return -1;
        }
        if (!(mt->poisson > -1.0 && mt->poisson < 0.5)) {
            mo_set_error(w, "FEM material %d: Poisson's ratio must be in (-1, 0.5), got %g", i, mt->poisson);
            return -1;
        }
        if (!(mt->density > 0.0 && mt->density <= MO_DENSITY_MAX)) {
            mo_set_error(w, "FEM material %d: density must be finite and in (0, %g] kg/m^3, got %g", i,
                         MO_DENSITY_MAX, mt->density);
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
    MO_NEED_W(w);
    if (out) *out = (mo_fem_mesh_id){0, 0};
    MO_NEED(w, d, "def");
    MO_NEED(w, out, "out");
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
        if (mo_fem_material_init(d->materials[i].young, d->materials[i].poisson, &nm.kmat[i]) != MO_FEM_OK) {
            /* the validation above refuses these values first; kept so that a change there cannot leave a
               material uninitialised */
            mo_set_error(w, "FEM material %d: Young's modulus %g or Poisson's ratio %g refused by the element model",
                         i, d->materials[i].young, d->materials[i].poisson);
            st = MO_ERR_INVALID_ARGUMENT;
            goto fail;
        }
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
        nm.nrows += mo_fem_tet_rows(&nm, t);
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
        nm.nrows += mo_fem_fixed_rows(&nm, f);
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
    nm.generation = mo_gen_next(w, fw->m[slot].generation);
    nm.alive = true;
    fw->m[slot] = nm;
    *out = (mo_fem_mesh_id){(uint32_t)slot + 1, nm.generation};
    mo_sleep_wake_all(w); /* a world with FEM meshes never sleeps (docs/sleeping.md) */
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
    MO_NEED_W(w);
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
    mo_fem_attach_purge(w); /* its attachments go with it */
    return MO_OK;
}

mo_status mo_fem_mesh_set_activation(mo_world *w, mo_fem_mesh_id id, int element, double a)
{
    MO_NEED_W(w);
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
    MO_NEED_W(w);
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
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (nodes) *nodes = m->nnodes;
    if (elements) *elements = m->ntets;
    return MO_OK;
}

static int node_ok(const mo_world *w, const fem_mesh *m, int node)
{
    if (node >= 0 && node < m->nnodes) return 1;
    mo_set_error(w, "FEM node %d is not in [0, %d)", node, m->nnodes);
    return 0;
}

mo_status mo_fem_mesh_node_position(const mo_world *w, mo_fem_mesh_id id, int node, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    MO_NEED(w, out, "out");
    const double *x = w->particles[m->node_part[node]].x;
    *out = (mo_vec3){x[0], x[1], x[2]};
    return MO_OK;
}

mo_status mo_fem_mesh_node_particle(const mo_world *w, mo_fem_mesh_id id, int node, mo_particle_id *out)
{
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    MO_NEED(w, out, "out");
    int s = m->node_part[node];
    *out = (mo_particle_id){(uint32_t)s + 1, w->particles[s].generation};
    return MO_OK;
}

mo_status mo_fem_mesh_volume(const mo_world *w, mo_fem_mesh_id id, double *current, double *rest)
{
    MO_NEED_W(w);
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
        if (fx->att[i].mesh == mesh_slot && fx->att[i].node == node && mo_fem_attach_live(w, &fx->att[i])) return i;
    return -1;
}

mo_status mo_fem_mesh_attach(mo_world *w, mo_fem_mesh_id id, int node, mo_body_id body, double compliance)
{
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    mo_body *b = mo_body_get(w, body);
    if (!b) {
        mo_set_error(w, "FEM node %d: body id (index %u, generation %u) %s", node, body.index,
                     body.generation, mo_id_fault(w, body.generation, "does not name a live body"));
        return MO_ERR_STALE_ID;
    }
    if (mo_link_body_refuse(w, (int)body.index - 1, "mo_fem_mesh_attach",
                            "FEM attachments to link bodies are not supported"))
        return MO_ERR_INVALID_ARGUMENT;
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
    mo_fem_attach_purge(w);
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
    MO_NEED_W(w);
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
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (!node_ok(w, m, node)) return MO_ERR_INVALID_ARGUMENT;
    int i = find_attach(w, (int)id.index - 1, node);
    if (i < 0) {
        mo_set_error(w, "FEM node %d is not attached to a body", node);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const fem_attach *a = &((const fem_ext *)w->fem)->att[i];
    if (body) *body = (mo_body_id){(uint32_t)a->body + 1, a->body_gen};
    if (force) *force = a->have_lam ? (mo_vec3){a->lam[0], a->lam[1], a->lam[2]} : (mo_vec3){0.0, 0.0, 0.0};
    return MO_OK;
}

mo_status mo_fem_mesh_element_centroid(const mo_world *w, mo_fem_mesh_id id, int element, mo_vec3 *out)
{
    MO_NEED_W(w);
    GET_MESH(w, id);
    if (element < 0 || element >= m->ntets) {
        mo_set_error(w, "FEM element %d is not in [0, %d)", element, m->ntets);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!out) {
        mo_set_error(w, "mo_fem_mesh_element_centroid: out must not be NULL");
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
        if (fx->att[i].mesh == mesh_slot && fx->att[i].body == body_slot && mo_fem_attach_live(w, &fx->att[i])) return 1;
    return 0;
}

int mo_fem_attach_count(const mo_world *w)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    int n = 0;
    for (int i = 0; fx && i < fx->natt; i++) n += mo_fem_attach_live(w, &fx->att[i]);
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

/* The FEM state a step changes (Newton step halving, step/step.c): per live mesh its rows' forces and
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
    if (fx->natt) memcpy(d, fx->att, (size_t)fx->natt * sizeof(fem_attach));
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
    if (fx->natt) memcpy(fx->att, d, (size_t)fx->natt * sizeof(fem_attach)); /* attachments only leave during a step */
    fem_scontact *t = fx->sc;
    int tc = fx->sc_cap;
    fx->sc = fx->sc_prev;
    fx->sc_cap = fx->sc_prev_cap;
    fx->nsc = nsc;
    fx->sc_prev = t;
    fx->sc_prev_cap = tc;
    fx->nsc_prev = 0;
}
