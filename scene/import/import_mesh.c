/* import_mesh.c: triangle meshes from files through Assimp's C API.
 *
 * Every mesh of the file is taken with its node's accumulated transform (a
 * mesh referenced by several nodes appears once per node), triangulated by
 * Assimp, points and lines dropped; then all vertices are scaled and exactly
 * equal ones joined across meshes (Assimp joins only within one mesh), and
 * triangles that collapse to an edge or a point are dropped. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau/import.h"
#include "import_scan.h"

#ifdef MO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

static void mesh_err(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void mesh_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || n == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

void mo_mesh_free(mo_mesh_data *m)
{
    if (!m) return;
    free(m->vertices);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}

#ifndef MO_HAVE_ASSIMP

mo_status mo_mesh_load(const char *path, mo_vec3 scale, mo_mesh_data *out, char *err, size_t err_size)
{
    (void)scale;
    if (out) memset(out, 0, sizeof *out);
    mesh_err(err, err_size, "%s: cannot read: mesh files need Assimp, and this Moreau was built without it "
             "(install libassimp-dev and reconfigure with -Dmeshes=enabled)", path ? path : "(null)");
    return MO_ERR_UNSUPPORTED;
}

#else

/* ---- growable output with a vertex hash ---- */

typedef struct mesh_build {
    double *v; int nv, capv;
    int *t; int nt, capt;
    int *slots; size_t nslots; /* open addressing: vertex index + 1, 0 = empty */
} mesh_build;

static uint64_t vhash(const double *p)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < 3 * sizeof(double); i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int grow_slots(mesh_build *mb)
{
    size_t n = mb->nslots ? mb->nslots * 2 : 1024;
    int *s = calloc(n, sizeof *s);
    if (!s) return -1;
    for (int i = 0; i < mb->nv; i++) {
        size_t k = (size_t)(vhash(&mb->v[3 * i]) & (n - 1));
        while (s[k]) k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(mb->slots);
    mb->slots = s;
    mb->nslots = n;
    return 0;
}

/* index of the vertex p (added when new); -1 out of memory */
static int add_vertex(mesh_build *mb, double x, double y, double z)
{
    /* +0.0 for -0.0 so that equal values hash equal */
    double p[3] = {x + 0.0, y + 0.0, z + 0.0};
    if ((size_t)(mb->nv + 1) * 2 > mb->nslots && grow_slots(mb) < 0) return -1;
    size_t k = (size_t)(vhash(p) & (mb->nslots - 1));
    while (mb->slots[k]) {
        int i = mb->slots[k] - 1;
        if (mb->v[3 * i] == p[0] && mb->v[3 * i + 1] == p[1] && mb->v[3 * i + 2] == p[2]) return i;
        k = (k + 1) & (mb->nslots - 1);
    }
    if (mb->nv == mb->capv) {
        int cap = mb->capv ? 2 * mb->capv : 256;
        double *nvv = realloc(mb->v, (size_t)cap * 3 * sizeof *nvv);
        if (!nvv) return -1;
        mb->v = nvv;
        mb->capv = cap;
    }
    memcpy(&mb->v[3 * mb->nv], p, sizeof p);
    mb->slots[k] = mb->nv + 1;
    return mb->nv++;
}

static int add_triangle(mesh_build *mb, int a, int b, int c)
{
    if (a == b || b == c || a == c) return 0; /* collapsed by joining: not a triangle */
    if (mb->nt == mb->capt) {
        int cap = mb->capt ? 2 * mb->capt : 256;
        int *nt = realloc(mb->t, (size_t)cap * 3 * sizeof *nt);
        if (!nt) return -1;
        mb->t = nt;
        mb->capt = cap;
    }
    mb->t[3 * mb->nt] = a;
    mb->t[3 * mb->nt + 1] = b;
    mb->t[3 * mb->nt + 2] = c;
    mb->nt++;
    return 0;
}

/* m = a b (Assimp matrices: row-major, column vectors, translation in a4 b4 c4) */
static struct aiMatrix4x4 mat_mul(const struct aiMatrix4x4 *a, const struct aiMatrix4x4 *b)
{
    const ai_real *A = &a->a1, *B = &b->a1;
    struct aiMatrix4x4 m;
    ai_real *M = &m.a1;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            ai_real s = 0;
            for (int k = 0; k < 4; k++) s += A[4 * r + k] * B[4 * k + c];
            M[4 * r + c] = s;
        }
    return m;
}

/* walks the node tree; returns -1 out of memory, -2 non-finite vertex */
static int add_node(mesh_build *mb, const struct aiScene *sc, const struct aiNode *node,
                    const struct aiMatrix4x4 *parent, const double scale[3], bool flip)
{
    struct aiMatrix4x4 g = mat_mul(parent, &node->mTransformation);
    const ai_real *G = &g.a1;
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        if (node->mMeshes[i] >= sc->mNumMeshes) continue;
        const struct aiMesh *me = sc->mMeshes[node->mMeshes[i]];
        if (!(me->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        int *map = malloc((me->mNumVertices ? me->mNumVertices : 1) * sizeof *map);
        if (!map) return -1;
        for (unsigned k = 0; k < me->mNumVertices; k++) {
            const struct aiVector3D *p = &me->mVertices[k];
            double x = (double)G[0] * p->x + (double)G[1] * p->y + (double)G[2] * p->z + (double)G[3];
            double y = (double)G[4] * p->x + (double)G[5] * p->y + (double)G[6] * p->z + (double)G[7];
            double z = (double)G[8] * p->x + (double)G[9] * p->y + (double)G[10] * p->z + (double)G[11];
            x *= scale[0];
            y *= scale[1];
            z *= scale[2];
            if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
                free(map);
                return -2;
            }
            map[k] = add_vertex(mb, x, y, z);
            if (map[k] < 0) {
                free(map);
                return -1;
            }
        }
        for (unsigned f = 0; f < me->mNumFaces; f++) {
            const struct aiFace *fc = &me->mFaces[f];
            if (fc->mNumIndices != 3) continue;
            unsigned a = fc->mIndices[0], b = fc->mIndices[1], c = fc->mIndices[2];
            if (a >= me->mNumVertices || b >= me->mNumVertices || c >= me->mNumVertices) continue;
            int r = flip ? add_triangle(mb, map[a], map[c], map[b]) : add_triangle(mb, map[a], map[b], map[c]);
            if (r < 0) {
                free(map);
                return -1;
            }
        }
        free(map);
    }
    for (unsigned i = 0; i < node->mNumChildren; i++) {
        int r = add_node(mb, sc, node->mChildren[i], &g, scale, flip);
        if (r < 0) return r;
    }
    return 0;
}

mo_status mo_mesh_load(const char *path, mo_vec3 scale, mo_mesh_data *out, char *err, size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) {
        mesh_err(err, err_size, "mo_mesh_load: path and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    double s[3] = {scale.x, scale.y, scale.z};
    for (int k = 0; k < 3; k++)
        if (!isfinite(s[k]) || s[k] == 0.0) {
            mesh_err(err, err_size, "%s: scale (%g, %g, %g) must be finite and non-zero", path, s[0], s[1], s[2]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    /* a missing file gets the system's reason rather than Assimp's generic one */
    FILE *f = fopen(path, "rb");
    if (!f) {
        mesh_err(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        return MO_ERR_IO;
    }
    fclose(f);
    /* the checks Assimp does not make: size, archives, Collada's index lists (import_scan.c) */
    mo_status scanned = mo_mesh_scan(path, err, err_size);
    if (scanned != MO_OK) return scanned;

    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) {
        mesh_err(err, err_size, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    /* coordinates as written: no Collada up-axis rotation (units are still applied) */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType |
                     aiProcess_ValidateDataStructure;
    const struct aiScene *sc = aiImportFileExWithProperties(path, flags, NULL, props);
    aiReleasePropertyStore(props);
    if (!sc) {
        const char *msg = aiGetErrorString();
        mesh_err(err, err_size, "%s: cannot read: %s", path, msg && *msg ? msg : "unknown Assimp error");
        return MO_ERR_IO;
    }
    mesh_build mb = {0};
    int r = 0;
    if (sc->mRootNode) {
        struct aiMatrix4x4 id;
        memset(&id, 0, sizeof id);
        id.a1 = id.b2 = id.c3 = id.d4 = 1;
        /* a mirroring scale turns the triangles inside out: flip them back */
        r = add_node(&mb, sc, sc->mRootNode, &id, s, s[0] * s[1] * s[2] < 0.0);
    }
    aiReleaseImport(sc);
    free(mb.slots);
    mb.slots = NULL;
    if (r == 0 && mb.nt == 0) {
        free(mb.v);
        free(mb.t);
        mesh_err(err, err_size, "%s: cannot read: the file has no triangles (empty mesh)", path);
        return MO_ERR_IO;
    }
    if (r < 0) {
        free(mb.v);
        free(mb.t);
        if (r == -2) {
            mesh_err(err, err_size, "%s: cannot read: a vertex is not finite", path);
            return MO_ERR_IO;
        }
        mesh_err(err, err_size, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    /* drop vertices no triangle uses (they came with dropped primitives) */
    int *use = calloc((size_t)mb.nv, sizeof *use);
    if (!use) {
        free(mb.v);
        free(mb.t);
        mesh_err(err, err_size, "%s: out of memory", path);
        return MO_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < 3 * mb.nt; i++) use[mb.t[i]] = 1;
    int nv = 0;
    for (int i = 0; i < mb.nv; i++) {
        if (!use[i]) {
            use[i] = -1;
            continue;
        }
        if (nv != i) memmove(&mb.v[3 * nv], &mb.v[3 * i], 3 * sizeof(double));
        use[i] = nv++;
    }
    for (int i = 0; i < 3 * mb.nt; i++) mb.t[i] = use[mb.t[i]];
    free(use);
    out->nvertices = nv;
    out->ntriangles = mb.nt;
    out->vertices = mb.v;
    out->triangles = mb.t;
    return MO_OK;
}

#endif
