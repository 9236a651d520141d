/* fem_query.c: what FEM meshes show of themselves (issue 7): the boundary
 * surface (faces of exactly one tetrahedron), built once at creation and used
 * by collision and drawing. */
#include <stdlib.h>
#include <string.h>
#include "fem_internal.h"

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
    fem_mesh *m = mo_fem_mesh_get(w, id);
    if (!m) {
        mo_set_error((mo_world *)w, "FEM mesh id (index %u, generation %u) does not name a live mesh", id.index,
                     id.generation);
        return MO_ERR_STALE_ID;
    }
    if (triangles) *triangles = m->tris;
    if (count) *count = m->ntris;
    return MO_OK;
}
