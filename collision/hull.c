/* hull.c: convex hulls of point sets with reentrant qhull (libqhull_r).
 *
 * Design. qhull runs with its default options for 3-d ("qhull": C-0 merging,
 * no 'Qt'), so coplanar triangles come back merged into one non-simplicial
 * facet (a box gives 6 quads, not 12 triangles). From each facet we take:
 *   - the plane: qhull's unit normal and offset (normal . x + offset <= 0
 *     inside), so n = normal (renormalised), d = -offset;
 *   - the polygon: the facet's vertex set sorted by angle around the mean of
 *     its vertices in the facet plane, with the basis (u, v, n) right-handed,
 *     which orders it counter-clockwise seen from outside;
 *   - the edges: consecutive polygon vertices, deduplicated as (min, max).
 * Only points that are vertices of some facet are kept (re-indexed in input
 * order). The centre is the mean of the kept vertices, the radius the largest
 * distance from it.
 *
 * qhull state lives in a heap qhT (thread safe: no globals; qhT is large,
 * so not on the stack). qh_new_qhull replaces a NULL errfile by stderr, so
 * its messages go to a private fmemopen stream over a 2 KB stack buffer
 * (longer messages are cut, never printed); outfile is NULL so qhull
 * produces no output. qhull gets a copy of the points (it keeps pointers
 * into them). A qhull error longjmps inside qh_new_qhull and comes back as an
 * exit code; qh_freeqhull + qh_memfreeshort free everything in both cases.
 *
 * Degenerate input: all points equal is caught before qhull (zero extent);
 * coplanar or collinear points by qhull (qh_ERRsingular, "initial simplex is
 * flat"), and as a backstop by the hull's volume against the largest extent
 * cubed. Other qhull exit codes come back with qhull's first message line.
 * qhull's own tolerances limit the scale: a unit-shaped point set scaled by
 * 1e-200 .. 1e60 works; at 1e80 qhull calls it flat, at 1e160 it fails
 * internally (QH6014). */
#include "shapes.h"

#include <libqhull_r/libqhull_r.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hull volume at or below this times (largest extent)^3: degenerate */
static const double k_flat_rel = 1e-10;

/* angle key for sorting a facet's vertices */
typedef struct angle_key {
    double angle;
    int vert;
} angle_key;

static int cmp_angle(const void *a, const void *b)
{
    double x = ((const angle_key *)a)->angle, y = ((const angle_key *)b)->angle;
    return (x > y) - (x < y);
}

typedef struct edge_key {
    int a, b;
} edge_key;

static int cmp_edge(const void *pa, const void *pb)
{
    const edge_key *x = (const edge_key *)pa, *y = (const edge_key *)pb;
    if (x->a != y->a) return (x->a > y->a) - (x->a < y->a);
    return (x->b > y->b) - (x->b < y->b);
}

void mo_cl_hull_free(mo_cl_hull *h)
{
    if (!h) return;
    free(h->verts);
    free(h->face_first);
    free(h->face_verts);
    free(h->planes);
    free(h->edges);
    memset(h, 0, sizeof *h);
}

/* unit u, v with (u, v, n) a right-handed orthonormal basis, for unit n */
static void orthonormal_basis(const double *n, double *u, double *v)
{
    /* u: e_x (or e_y when n is close to e_x) with its n component removed */
    if (fabs(n[0]) < 0.57735) {
        u[0] = 1.0 - n[0] * n[0];
        u[1] = -n[0] * n[1];
        u[2] = -n[0] * n[2];
    } else {
        u[0] = -n[1] * n[0];
        u[1] = 1.0 - n[1] * n[1];
        u[2] = -n[1] * n[2];
    }
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    u[0] /= l;
    u[1] /= l;
    u[2] /= l;
    /* v = n x u, so (u, v, n) is right-handed */
    v[0] = n[1] * u[2] - n[2] * u[1];
    v[1] = n[2] * u[0] - n[0] * u[2];
    v[2] = n[0] * u[1] - n[1] * u[0];
}

/* extract the merged facets from a finished qhull run into out; returns 0, or -1 (out of memory) */
static int extract(qhT *qh, int n, mo_cl_hull *out)
{
    facetT *facet;
    vertexT *vertex, **vertexp;
    int nfaces = 0, nfv = 0, maxfv = 0;
    int *remap = NULL;
    angle_key *keys = NULL;
    edge_key *ek = NULL;

    FORALLfacets {
        int k = qh_setsize(qh, facet->vertices);
        nfaces++;
        nfv += k;
        if (k > maxfv) maxfv = k;
    }
    remap = (int *)malloc((size_t)n * sizeof *remap);
    keys = (angle_key *)malloc((size_t)(maxfv > 0 ? maxfv : 1) * sizeof *keys);
    ek = (edge_key *)malloc((size_t)(nfv > 0 ? nfv : 1) * sizeof *ek);
    out->face_first = (int *)malloc((size_t)(nfaces + 1) * sizeof(int));
    out->face_verts = (int *)malloc((size_t)(nfv > 0 ? nfv : 1) * sizeof(int));
    out->planes = (double *)malloc((size_t)(nfaces > 0 ? nfaces : 1) * 4 * sizeof(double));
    if (!remap || !keys || !ek || !out->face_first || !out->face_verts || !out->planes) goto oom;

    /* hull vertices, numbered in input order */
    for (int i = 0; i < n; ++i) remap[i] = -1;
    FORALLfacets {
        FOREACHvertex_(facet->vertices) remap[qh_pointid(qh, vertex->point)] = 0;
    }
    int nv = 0;
    for (int i = 0; i < n; ++i)
        if (remap[i] == 0) remap[i] = nv++;
    out->nverts = nv;
    out->verts = (double *)malloc((size_t)nv * 3 * sizeof(double));
    if (!out->verts) goto oom;
    for (int i = 0; i < n; ++i)
        if (remap[i] >= 0) memcpy(out->verts + 3 * remap[i], qh->first_point + 3 * i, 3 * sizeof(double));

    /* faces: plane, then vertices sorted counter-clockwise about the normal */
    int f = 0, pos = 0, ne = 0;
    FORALLfacets {
        double nrm[3] = {facet->normal[0], facet->normal[1], facet->normal[2]};
        double l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        double *pl = out->planes + 4 * f;
        pl[0] = nrm[0] / l;
        pl[1] = nrm[1] / l;
        pl[2] = nrm[2] / l;
        pl[3] = -facet->offset / l;
        double c[3] = {0, 0, 0};
        int k = 0;
        FOREACHvertex_(facet->vertices) {
            int vi = remap[qh_pointid(qh, vertex->point)];
            keys[k++].vert = vi;
            for (int j = 0; j < 3; ++j) c[j] += out->verts[3 * vi + j];
        }
        for (int j = 0; j < 3; ++j) c[j] /= k;
        double u[3], v[3];
        orthonormal_basis(pl, u, v);
        for (int i = 0; i < k; ++i) {
            const double *p = out->verts + 3 * keys[i].vert;
            double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            keys[i].angle = atan2(r[0] * v[0] + r[1] * v[1] + r[2] * v[2], r[0] * u[0] + r[1] * u[1] + r[2] * u[2]);
        }
        qsort(keys, (size_t)k, sizeof *keys, cmp_angle);
        out->face_first[f] = pos;
        for (int i = 0; i < k; ++i) {
            int a = keys[i].vert, b = keys[(i + 1) % k].vert;
            out->face_verts[pos + i] = a;
            ek[ne].a = a < b ? a : b;
            ek[ne].b = a < b ? b : a;
            ne++;
        }
        pos += k;
        f++;
    }
    out->face_first[f] = pos;
    out->nfaces = nfaces;

    /* unique edges */
    qsort(ek, (size_t)ne, sizeof *ek, cmp_edge);
    int nu = 0;
    for (int i = 0; i < ne; ++i)
        if (i == 0 || cmp_edge(&ek[i], &ek[i - 1]) != 0) ek[nu++] = ek[i];
    out->edges = (int *)malloc((size_t)(nu > 0 ? nu : 1) * 2 * sizeof(int));
    if (!out->edges) goto oom;
    for (int i = 0; i < nu; ++i) {
        out->edges[2 * i] = ek[i].a;
        out->edges[2 * i + 1] = ek[i].b;
    }
    out->nedges = nu;

    /* centre and bounding radius */
    double c[3] = {0, 0, 0};
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < 3; ++j) c[j] += out->verts[3 * i + j];
    for (int j = 0; j < 3; ++j) out->center[j] = c[j] / nv;
    double r2 = 0;
    for (int i = 0; i < nv; ++i) {
        const double *p = out->verts + 3 * i;
        double dx = p[0] - out->center[0], dy = p[1] - out->center[1], dz = p[2] - out->center[2];
        double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > r2) r2 = d2;
    }
    out->radius = sqrt(r2);

    free(remap);
    free(keys);
    free(ek);
    return 0;
oom:
    free(remap);
    free(keys);
    free(ek);
    return -1;
}

/* volume of the extracted hull scaled by 1 / ext (fan tetrahedra from the centre): no under/overflow */
static double hull_volume_scaled(const mo_cl_hull *h, double ext)
{
    double s = 1.0 / ext;
    double vol = 0;
    const double *o = h->center;
    for (int f = 0; f < h->nfaces; ++f) {
        int first = h->face_first[f], k = h->face_first[f + 1] - first;
        const double *a = h->verts + 3 * h->face_verts[first];
        for (int i = 1; i + 1 < k; ++i) {
            const double *b = h->verts + 3 * h->face_verts[first + i];
            const double *c = h->verts + 3 * h->face_verts[first + i + 1];
            double x[3] = {(a[0] - o[0]) * s, (a[1] - o[1]) * s, (a[2] - o[2]) * s};
            double y[3] = {(b[0] - o[0]) * s, (b[1] - o[1]) * s, (b[2] - o[2]) * s};
            double z[3] = {(c[0] - o[0]) * s, (c[1] - o[1]) * s, (c[2] - o[2]) * s};
            vol += (x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0]) +
                    x[2] * (y[0] * z[1] - y[1] * z[0])) / 6.0;
        }
    }
    return vol;
}

static const char k_err_flat[] = "convex hull points are coplanar, collinear or coincident (the hull has no volume)";

int mo_cl_hull_build(const double *pts, int n, mo_cl_hull *out, char *err, size_t err_size)
{
    if (!out) {
        mo_cl_set_err(err, err_size, "mo_cl_hull_build: out must not be NULL");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (n < 4 || !pts) {
        mo_cl_set_err(err, err_size, "convex hull needs at least 4 points, got %d", pts ? n : 0);
        return -1;
    }
    double lo[3], hi[3];
    for (int i = 0; i < n; ++i) {
        const double *p = pts + 3 * i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            mo_cl_set_err(err, err_size, "convex hull point %d is not finite, got (%g, %g, %g)", i, p[0], p[1], p[2]);
            return -1;
        }
        for (int j = 0; j < 3; ++j) {
            if (i == 0 || p[j] < lo[j]) lo[j] = p[j];
            if (i == 0 || p[j] > hi[j]) hi[j] = p[j];
        }
    }
    double ext = 0;
    for (int j = 0; j < 3; ++j)
        if (hi[j] - lo[j] > ext) ext = hi[j] - lo[j];
    if (!(ext > 0)) {
        mo_cl_set_err(err, err_size, "%s", k_err_flat);
        return -1;
    }

    /* qhull keeps pointers into the points: give it a private copy */
    coordT *copy = (coordT *)malloc((size_t)n * 3 * sizeof(coordT));
    qhT *qh = (qhT *)calloc(1, sizeof(qhT));
    char msg[2048];
    memset(msg, 0, sizeof msg);
    FILE *ferr = fmemopen(msg, sizeof msg - 1, "w");
    if (!copy || !qh || !ferr) {
        if (ferr) fclose(ferr);
        free(copy);
        free(qh);
        mo_cl_set_err(err, err_size, "mo_cl_hull_build: out of memory");
        return -1;
    }
    memcpy(copy, pts, (size_t)n * 3 * sizeof(double));

    char cmd[] = "qhull";
    qh_zero(qh, ferr);
    int code = qh_new_qhull(qh, 3, n, copy, False, cmd, NULL, ferr);
    int rc = 0;
    if (code == 0) {
        if (extract(qh, n, out) != 0) {
            mo_cl_hull_free(out);
            mo_cl_set_err(err, err_size, "mo_cl_hull_build: out of memory");
            rc = -1;
        }
    }
    int curlong = 0, totlong = 0;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    free(qh);
    free(copy);
    fclose(ferr);

    if (code != 0) {
        if (code == qh_ERRsingular) {
            mo_cl_set_err(err, err_size, "%s", k_err_flat);
        } else if (code == qh_ERRmem) {
            mo_cl_set_err(err, err_size, "mo_cl_hull_build: out of memory");
        } else {
            /* first line of qhull's message */
            char *nl = strchr(msg, '\n');
            if (nl) *nl = '\0';
            mo_cl_set_err(err, err_size, "convex hull failed: qhull exit code %d (%s)", code, msg);
        }
        return -1;
    }
    if (rc != 0) return -1;

    /* backstop: a hull with (almost) no volume is degenerate */
    if (out->nfaces < 4 || out->nverts < 4 || !(hull_volume_scaled(out, ext) > k_flat_rel)) {
        mo_cl_hull_free(out);
        mo_cl_set_err(err, err_size, "%s", k_err_flat);
        return -1;
    }
    return 0;
}
