/* fem_query.c: what FEM meshes show of themselves (issue 7): the boundary
 * surface (faces of exactly one tetrahedron), built once at creation and used
 * by collision and drawing; the world's live meshes, per-element and per-node
 * strain (|E|_F of the Green-Lagrange strain) and node masses, for viewers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/fem.h"

typedef struct face_key {
    int v[3];   /* sorted node indices */
    int tri[3]; /* the face wound outward from its tetrahedron */
} face_key;

static int face_cmp(const void *pa, const void *pb)
{
    const face_key *a = (const face_key *)pa, *b = (const face_key *)pb;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

static void sort3(int *v)
{
    int t;
    if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
    if (v[1] > v[2]) { t = v[1]; v[1] = v[2]; v[2] = t; }
    if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
}

int mo_fem_surface_build(const int *tets, int ntets, int nnodes, int **tris, unsigned char *on_surface)
{
    /* a positively oriented tetrahedron (a, b, c, d): ((b-a) x (c-a)) . (d-a) > 0, so the faces
       opposite d, c, b, a wound outward are (a, c, b), (a, b, d), (a, d, c), (b, c, d) */
    static const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    *tris = NULL;
    face_key *f = (face_key *)malloc(((size_t)ntets * 4 + 1) * sizeof(face_key));
    if (!f) return -1;
    for (int t = 0; t < ntets; t++)
        for (int k = 0; k < 4; k++) {
            face_key *e = &f[4 * t + k];
            for (int j = 0; j < 3; j++) e->tri[j] = e->v[j] = tets[4 * t + F[k][j]];
            sort3(e->v);
        }
    const int nf = 4 * ntets;
    qsort(f, (size_t)nf, sizeof(face_key), face_cmp);
    int n = 0;
    for (int i = 0; i < nf;) {
        int j = i + 1;
        while (j < nf && face_cmp(&f[i], &f[j]) == 0) j++;
        if (j - i == 1) f[n++] = f[i];
        i = j;
    }
    int *out = (int *)malloc(((size_t)n * 3 + 1) * sizeof(int));
    if (!out) {
        free(f);
        return -1;
    }
    if (on_surface) memset(on_surface, 0, (size_t)nnodes);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            out[3 * i + j] = f[i].tri[j];
            if (on_surface) on_surface[f[i].tri[j]] = 1;
        }
    free(f);
    *tris = out;
    return n;
}

mo_status mo_fem_mesh_surface(const mo_world *w, mo_fem_mesh_id id, const int **triangles, int *count)
{
    MO_NEED_W(w);
    fem_mesh *m = mo_fem_mesh_get(w, id);
    if (!m) {
        mo_set_error(w, "FEM mesh id (index %u, generation %u) %s", id.index,
                     id.generation, mo_id_fault(w, id.generation, "does not name a live mesh"));
        return MO_ERR_STALE_ID;
    }
    if (triangles) *triangles = m->tris;
    if (count) *count = m->ntris;
    return MO_OK;
}

/* ---- enumeration, strains, node masses (the viewer's queries) ---- */

#define GET_MESH_Q(w, id)                                                                                    \
    fem_mesh *m = mo_fem_mesh_get((w), (id));                                                                \
    if (!m) {                                                                                                \
        mo_set_error((w), "FEM mesh id (index %u, generation %u) %s",     \
                     (id).index, (id).generation, mo_id_fault((w), (id).generation, "does not name a live mesh")); \
        return MO_ERR_STALE_ID;                                                                              \
    }

int mo_world_fem_meshes(const mo_world *w, mo_fem_mesh_id *out, int cap)
{
    const fem_world *fw = w ? (const fem_world *)w->fem : NULL;
    int n = 0;
    for (int i = 0; fw && i < fw->count; i++) {
        if (!fw->m[i].alive) continue;
        if (out && n < cap) out[n] = (mo_fem_mesh_id){(uint32_t)i + 1, fw->m[i].generation};
        n++;
    }
    return n;
}

/* |E|_F of tetrahedron t, E = 1/2 (F^T F - I), F = Ds Dm^-1 against the activated rest shape */
static double tet_strain(const mo_world *w, const fem_mesh *m, int t)
{
    mo_fem_tet rt;
    const mo_fem_tet *r = &m->rest[t];
    if (m->act[t] != 0.0 && mo_fem_tet_activate(r, m->act[t], &rt) == MO_FEM_OK) r = &rt;
    double x[12], F[9];
    for (int a = 0; a < 4; a++) mo_v3_copy(x + 3 * a, w->particles[m->node_part[m->tets[4 * t + a]]].x);
    mo_fem_deformation_gradient(x, r->Dm_inv, F);
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* (F^T F)_ij = sum_k F_ki F_kj */
            double c = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
            double e = 0.5 * (c - (i == j ? 1.0 : 0.0));
            s += e * e;
        }
    return sqrt(s);
}

/* out may be NULL only with cap 0 */
static bool out_ok(const mo_world *w, const char *fn, const double *out, int cap)
{
    if (cap >= 0 && (out || cap == 0)) return true;
    mo_set_error(w, "%s: out must hold cap (%d) values (cap >= 0, out not NULL when cap > 0)", fn, cap);
    return false;
}

mo_status mo_fem_mesh_element_strain(const mo_world *w, mo_fem_mesh_id id, double *out, int cap)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    GET_MESH_Q(w, id);
    if (!out_ok(w, "mo_fem_mesh_element_strain", out, cap)) return MO_ERR_INVALID_ARGUMENT;
    for (int t = 0; t < m->ntets && t < cap; t++) out[t] = tet_strain(w, m, t);
    return MO_OK;
}

mo_status mo_fem_mesh_node_strain(const mo_world *w, mo_fem_mesh_id id, double *out, int cap)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    GET_MESH_Q(w, id);
    if (!out_ok(w, "mo_fem_mesh_node_strain", out, cap)) return MO_ERR_INVALID_ARGUMENT;
    const int n = m->nnodes < cap ? m->nnodes : cap;
    if (n <= 0) return MO_OK;
    int *cnt = (int *)calloc((size_t)n, sizeof(int));
    if (!cnt) {
        mo_set_error(w, "mo_fem_mesh_node_strain: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < n; i++) out[i] = 0.0;
    for (int t = 0; t < m->ntets; t++) {
        const int *v = m->tets + 4 * t;
        if (v[0] >= n && v[1] >= n && v[2] >= n && v[3] >= n) continue;
        const double e = tet_strain(w, m, t);
        for (int a = 0; a < 4; a++)
            if (v[a] < n) out[v[a]] += e, cnt[v[a]]++;
    }
    for (int i = 0; i < n; i++) out[i] = cnt[i] ? out[i] / cnt[i] : 0.0;
    free(cnt);
    return MO_OK;
}

mo_status mo_fem_mesh_node_mass(const mo_world *w, mo_fem_mesh_id id, int node, double *mass)
{
    MO_NEED_W(w);
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    GET_MESH_Q(w, id);
    if (node < 0 || node >= m->nnodes) {
        mo_set_error(w, "FEM node %d is not in [0, %d)", node, m->nnodes);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mass) {
        mo_set_error(w, "mo_fem_mesh_node_mass: mass must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    *mass = w->particles[m->node_part[node]].mass;
    return MO_OK;
}
