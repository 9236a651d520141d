/* test_shapes.c: convex hulls (qhull), triangle meshes with a BVH, mass
 * properties and ray casts (collision/shapes.h) against hand-computed
 * answers and slow independent references.
 *
 * References used here (none shares code with the library):
 *   - hull: every input point inside every plane, Euler's formula, vertex
 *     degrees, face convexity and winding from cross products;
 *   - mass: closed forms, exact tetrahedron values, capsule/cylinder by 1-d
 *     Simpson integration over z of disk cross-sections, the parallel axis
 *     theorem on a two-box mesh, rigid transforms of a mesh;
 *   - BVH query: brute-force loop over all triangle boxes;
 *   - ray casts: analytic answers, and a march along the ray with
 *     point-inside tests (step tmax / 4000) for every solid; the mesh against a
 *     brute-force loop with a barycentric ray/triangle test.
 * Returns 0 when every check passes, 1 otherwise. */
#include "testutil.h"
#include "collision/shapes.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers: rng, rotations ---- */

typedef struct rng {
    uint64_t s;
} rng;

static double rnd(rng *r) /* uniform [0, 1) */
{
    return xorshift64s_uniform01(&r->s);
}

static double rnd_range(rng *r, double a, double b)
{
    return xorshift64s_range(&r->s, a, b);
}

/* rotation from a random unit quaternion, row-major */
static void mat_random(rng *g, double R[9])
{
    double q[4], l;
    do {
        for (int i = 0; i < 4; ++i) q[i] = rnd_range(g, -1, 1);
        l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (l < 0.1 || l > 1);
    mat_from_quat(q, R);
}

static mo_cl_object make_obj(int type, const double *pos, const double *R)
{
    mo_cl_object o;
    memset(&o, 0, sizeof o);
    o.type = type;
    if (pos) memcpy(o.pos, pos, sizeof o.pos);
    if (R) memcpy(o.rot, R, sizeof o.rot);
    else mat_identity(o.rot);
    return o;
}

/* runs fn with stdout and stderr captured; returns the number of bytes written to them */
static long captured_output(void (*fn)(void *), void *ctx)
{
    fflush(stdout);
    fflush(stderr);
    FILE *tmp = tmpfile();
    if (!tmp) return -1;
    int save_out = dup(1), save_err = dup(2);
    dup2(fileno(tmp), 1);
    dup2(fileno(tmp), 2);
    fn(ctx);
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    fseek(tmp, 0, SEEK_END);
    long n = ftell(tmp);
    fclose(tmp);
    return n;
}

/* ---- box and shared geometry ---- */

static void box_corners(const double *he, double *pts)
{
    for (int i = 0; i < 8; ++i) {
        pts[3 * i] = (i & 1) ? he[0] : -he[0];
        pts[3 * i + 1] = (i & 2) ? he[1] : -he[1];
        pts[3 * i + 2] = (i & 4) ? he[2] : -he[2];
    }
}

/* 12 outward (counter-clockwise from outside) triangles over box_corners */
static const int k_box_tris[36] = {
    0, 2, 3, 0, 3, 1, /* -z */
    4, 5, 7, 4, 7, 6, /* +z */
    0, 1, 5, 0, 5, 4, /* -y */
    2, 6, 7, 2, 7, 3, /* +y */
    0, 4, 6, 0, 6, 2, /* -x */
    1, 3, 7, 1, 7, 5, /* +x */
};

/* ---- hull ---- */

/* checks that hold for every hull: planes, winding, Euler, degrees, edges */
static void check_hull_invariants(const mo_cl_hull *h, const double *pts, int n, double eps)
{
    CHECK(h->nverts >= 4 && h->nfaces >= 4 && h->nedges >= 6);
    /* every input point satisfies every plane */
    int outside = 0;
    for (int f = 0; f < h->nfaces; ++f) {
        const double *pl = h->planes + 4 * f;
        CHECK_NEAR(dot3(pl, pl), 1.0, 1e-12);
        for (int i = 0; i < n; ++i)
            if (dot3(pl, pts + 3 * i) > pl[3] + eps) outside++;
    }
    CHECK(outside == 0);
    /* face vertices on their plane, convex and counter-clockwise seen from outside */
    int off_plane = 0, bad_turn = 0;
    int *deg = (int *)calloc((size_t)h->nverts, sizeof(int));
    for (int f = 0; f < h->nfaces; ++f) {
        const double *pl = h->planes + 4 * f;
        int first = h->face_first[f], k = h->face_first[f + 1] - first;
        CHECK(k >= 3);
        for (int i = 0; i < k; ++i) {
            int a = h->face_verts[first + i], b = h->face_verts[first + (i + 1) % k],
                c = h->face_verts[first + (i + 2) % k];
            CHECK(a >= 0 && a < h->nverts);
            deg[a]++;
            if (fabs(dot3(pl, h->verts + 3 * a) - pl[3]) > eps) off_plane++;
            double e1[3], e2[3], x[3];
            for (int j = 0; j < 3; ++j) {
                e1[j] = h->verts[3 * b + j] - h->verts[3 * a + j];
                e2[j] = h->verts[3 * c + j] - h->verts[3 * b + j];
            }
            cross3(e1, e2, x);
            if (dot3(x, pl) < -eps * eps) bad_turn++;
        }
    }
    CHECK(off_plane == 0);
    CHECK(bad_turn == 0);
    int low_degree = 0;
    for (int i = 0; i < h->nverts; ++i)
        if (deg[i] < 3) low_degree++;
    CHECK(low_degree == 0);
    free(deg);
    /* Euler for a convex polyhedron */
    CHECK(h->nverts - h->nedges + h->nfaces == 2);
    /* every edge is a polygon side of exactly two faces, and unique */
    int bad_edges = 0;
    for (int e = 0; e < h->nedges; ++e) {
        int a = h->edges[2 * e], b = h->edges[2 * e + 1], uses = 0;
        if (a == b) bad_edges++;
        for (int f = 0; f < h->nfaces; ++f) {
            int first = h->face_first[f], k = h->face_first[f + 1] - first;
            for (int i = 0; i < k; ++i) {
                int x = h->face_verts[first + i], y = h->face_verts[first + (i + 1) % k];
                if ((x == a && y == b) || (x == b && y == a)) uses++;
            }
        }
        if (uses != 2) bad_edges++;
        for (int e2 = e + 1; e2 < h->nedges; ++e2) {
            int c = h->edges[2 * e2], d = h->edges[2 * e2 + 1];
            if ((a == c && b == d) || (a == d && b == c)) bad_edges++;
        }
    }
    CHECK(bad_edges == 0);
    /* every hull vertex is an input point; centre and radius */
    int not_input = 0;
    double c[3] = {0, 0, 0};
    for (int v = 0; v < h->nverts; ++v) {
        int found = 0;
        for (int i = 0; i < n && !found; ++i)
            if (memcmp(h->verts + 3 * v, pts + 3 * i, 3 * sizeof(double)) == 0) found = 1;
        if (!found) not_input++;
        for (int j = 0; j < 3; ++j) c[j] += h->verts[3 * v + j] / h->nverts;
    }
    CHECK(not_input == 0);
    double r = 0;
    for (int v = 0; v < h->nverts; ++v) {
        double d[3] = {h->verts[3 * v] - c[0], h->verts[3 * v + 1] - c[1], h->verts[3 * v + 2] - c[2]};
        r = fmax(r, sqrt(dot3(d, d)));
    }
    for (int j = 0; j < 3; ++j) CHECK_NEAR(h->center[j], c[j], 1e-12);
    CHECK_NEAR(h->radius, r, 1e-12);
}

static void test_hull_box(void)
{
    const double he[3] = {1.0, 2.0, 0.5};
    rng g = {12345};
    enum { NIN = 60 };
    double pts[3 * (8 + NIN)];
    /* interior points first, so the corners are not the first 8 inputs */
    for (int i = 0; i < NIN; ++i)
        for (int j = 0; j < 3; ++j) pts[3 * i + j] = rnd_range(&g, -0.95, 0.95) * he[j];
    box_corners(he, pts + 3 * NIN);
    mo_cl_hull h;
    char err[256] = "";
    int rc = mo_cl_hull_build(pts, 8 + NIN, &h, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "hull box: %s\n", err);
        return;
    }
    CHECK(h.nverts == 8);
    CHECK(h.nfaces == 6);
    CHECK(h.nedges == 12);
    for (int f = 0; f < h.nfaces; ++f) CHECK(h.face_first[f + 1] - h.face_first[f] == 4);
    /* planes equal the box faces: each of +-x, +-y, +-z once with d = he */
    int seen[6] = {0, 0, 0, 0, 0, 0};
    for (int f = 0; f < h.nfaces; ++f) {
        const double *pl = h.planes + 4 * f;
        int axis = -1;
        for (int j = 0; j < 3; ++j)
            if (fabs(fabs(pl[j]) - 1.0) < 1e-12) axis = j;
        CHECK(axis >= 0);
        if (axis < 0) continue;
        for (int j = 0; j < 3; ++j)
            if (j != axis) CHECK_NEAR(pl[j], 0.0, 1e-12);
        CHECK_NEAR(pl[3], he[axis], 1e-12);
        seen[2 * axis + (pl[axis] < 0)]++;
    }
    for (int k = 0; k < 6; ++k) CHECK(seen[k] == 1);
    /* vertices are the corners */
    for (int v = 0; v < h.nverts; ++v)
        for (int j = 0; j < 3; ++j) CHECK_NEAR(fabs(h.verts[3 * v + j]), he[j], 0.0);
    for (int j = 0; j < 3; ++j) CHECK_NEAR(h.center[j], 0.0, 1e-15);
    CHECK_NEAR(h.radius, sqrt(1.0 + 4.0 + 0.25), 1e-12);
    check_hull_invariants(&h, pts, 8 + NIN, 1e-12);
    mo_cl_hull_free(&h);
    CHECK(h.verts == NULL && h.nverts == 0);
    mo_cl_hull_free(&h); /* twice is harmless */

    /* corners plus face centres and edge midpoints (points on the hull that are not vertices) */
    double pts2[3 * 26];
    int k = 0;
    for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
            for (int z = -1; z <= 1; ++z) {
                if (x == 0 && y == 0 && z == 0) continue;
                pts2[3 * k] = x * he[0];
                pts2[3 * k + 1] = y * he[1];
                pts2[3 * k + 2] = z * he[2];
                k++;
            }
    rc = mo_cl_hull_build(pts2, 26, &h, err, sizeof err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(h.nverts == 8);
        CHECK(h.nfaces == 6);
        CHECK(h.nedges == 12);
        check_hull_invariants(&h, pts2, 26, 1e-12);
        mo_cl_hull_free(&h);
    }
}

/* n points of one of several distributions */
static void random_points(rng *g, int kind, int n, double *pts)
{
    for (int i = 0; i < n; ++i) {
        double *p = pts + 3 * i;
        if (kind == 0) { /* cube */
            for (int j = 0; j < 3; ++j) p[j] = rnd_range(g, -1, 1);
        } else if (kind == 1) { /* on a sphere (all points on the hull) */
            double z = rnd_range(g, -1, 1), a = rnd_range(g, 0, 2 * PI), s = sqrt(1 - z * z);
            p[0] = 3.0 * s * cos(a);
            p[1] = 3.0 * s * sin(a);
            p[2] = 3.0 * z;
        } else if (kind == 2) { /* gaussian-ish blob far from the origin */
            for (int j = 0; j < 3; ++j) p[j] = 100.0 + (rnd(g) + rnd(g) + rnd(g) - 1.5) * (j + 1);
        } else { /* thin slab, small scale */
            p[0] = rnd_range(g, -1e-3, 1e-3);
            p[1] = rnd_range(g, -1e-3, 1e-3);
            p[2] = rnd_range(g, -1e-5, 1e-5);
        }
    }
}

static void test_hull_random(void)
{
    rng g = {777};
    for (int kind = 0; kind < 4; ++kind)
        for (int trial = 0; trial < 6; ++trial) {
            int n = 4 + (int)(rnd(&g) * 300);
            double *pts = (double *)malloc((size_t)n * 3 * sizeof(double));
            random_points(&g, kind, n, pts);
            double scale = kind == 2 ? 100.0 : (kind == 3 ? 1e-3 : 3.0);
            mo_cl_hull h;
            char err[256] = "";
            int rc = mo_cl_hull_build(pts, n, &h, err, sizeof err);
            CHECK(rc == 0);
            if (rc != 0) {
                fprintf(stderr, "random hull kind %d n %d: %s\n", kind, n, err);
            } else {
                check_hull_invariants(&h, pts, n, 1e-10 * scale);
                if (kind == 1) CHECK(h.nverts > n / 2); /* points on a sphere are (nearly) all vertices */
                mo_cl_hull_free(&h);
            }
            free(pts);
        }
}

typedef struct hull_call {
    const double *pts;
    int n;
    int rc;
    mo_cl_hull h;
    char err[256];
} hull_call;

static void run_hull_call(void *ctx)
{
    hull_call *c = (hull_call *)ctx;
    c->rc = mo_cl_hull_build(c->pts, c->n, &c->h, c->err, sizeof c->err);
}

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; ++i)
        if (b[i]) return 0;
    return 1;
}

static void expect_hull_error(const double *pts, int n, const char *sentence)
{
    hull_call c;
    memset(&c, 0, sizeof c);
    memset(&c.h, 0xab, sizeof c.h);
    c.pts = pts;
    c.n = n;
    long printed = captured_output(run_hull_call, &c);
    CHECK(c.rc == -1);
    CHECK_STR(c.err, sentence);
    CHECK(printed == 0);
    CHECK(all_zero(&c.h, sizeof c.h));
    if (c.rc == 0) mo_cl_hull_free(&c.h);
}

static void test_hull_errors(void)
{
    const char *flat = "convex hull points are coplanar, collinear or coincident (the hull has no volume)";
    double pts[3 * 40];
    rng g = {99};
    /* 3 points */
    double three[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    expect_hull_error(three, 3, "convex hull needs at least 4 points, got 3");
    expect_hull_error(NULL, 10, "convex hull needs at least 4 points, got 0");
    /* coplanar: 40 points on a tilted plane */
    for (int i = 0; i < 40; ++i) {
        double u = rnd_range(&g, -1, 1), v = rnd_range(&g, -1, 1);
        pts[3 * i] = u;
        pts[3 * i + 1] = v;
        pts[3 * i + 2] = 0.5 * u - 0.25 * v + 2.0;
    }
    expect_hull_error(pts, 40, flat);
    /* z = 0 exactly */
    for (int i = 0; i < 40; ++i) pts[3 * i + 2] = 0;
    expect_hull_error(pts, 40, flat);
    /* collinear */
    for (int i = 0; i < 10; ++i) {
        double s = rnd_range(&g, -1, 1);
        pts[3 * i] = s;
        pts[3 * i + 1] = 2 * s;
        pts[3 * i + 2] = -s;
    }
    expect_hull_error(pts, 10, flat);
    /* coincident */
    for (int i = 0; i < 10; ++i) {
        pts[3 * i] = 1.5;
        pts[3 * i + 1] = -2;
        pts[3 * i + 2] = 3;
    }
    expect_hull_error(pts, 10, flat);
    /* a tetrahedron with a duplicated vertex is fine; 3 distinct points repeated are not */
    double dup[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0};
    expect_hull_error(dup, 5, flat);
    /* NaN and inf */
    double bad[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.2, 0.2};
    bad[7] = NAN;
    expect_hull_error(bad, 5, "convex hull point 2 is not finite, got (0, nan, 0)");
    bad[7] = 1;
    bad[14] = -INFINITY;
    expect_hull_error(bad, 5, "convex hull point 4 is not finite, got (0.2, 0.2, -inf)");
    bad[14] = 0.2;
    /* and the good tetrahedron builds quietly */
    hull_call c;
    memset(&c, 0, sizeof c);
    c.pts = bad;
    c.n = 5;
    long printed = captured_output(run_hull_call, &c);
    CHECK(c.rc == 0);
    CHECK(printed == 0);
    if (c.rc == 0) {
        CHECK(c.h.nverts == 4 && c.h.nfaces == 4 && c.h.nedges == 6);
        mo_cl_hull_free(&c.h);
    }
    CHECK(mo_cl_hull_build(three, 3, NULL, c.err, sizeof c.err) == -1);
    CHECK_STR(c.err, "mo_cl_hull_build: out must not be NULL");
}

/* the same hulls built from several threads at once agree with a sequential build */
typedef struct hull_thread {
    const double *pts;
    int n, reps;
    const mo_cl_hull *ref;
    int mismatches;
} hull_thread;

static int same_hull(const mo_cl_hull *a, const mo_cl_hull *b)
{
    if (a->nverts != b->nverts || a->nfaces != b->nfaces || a->nedges != b->nedges) return 0;
    if (memcmp(a->verts, b->verts, (size_t)a->nverts * 3 * sizeof(double)) != 0) return 0;
    if (memcmp(a->face_first, b->face_first, (size_t)(a->nfaces + 1) * sizeof(int)) != 0) return 0;
    if (memcmp(a->face_verts, b->face_verts, (size_t)a->face_first[a->nfaces] * sizeof(int)) != 0) return 0;
    if (memcmp(a->planes, b->planes, (size_t)a->nfaces * 4 * sizeof(double)) != 0) return 0;
    return memcmp(a->edges, b->edges, (size_t)a->nedges * 2 * sizeof(int)) == 0;
}

static void *hull_thread_main(void *arg)
{
    hull_thread *t = (hull_thread *)arg;
    for (int r = 0; r < t->reps; ++r) {
        mo_cl_hull h;
        char err[256];
        if (mo_cl_hull_build(t->pts, t->n, &h, err, sizeof err) != 0) {
            t->mismatches++;
            continue;
        }
        if (!same_hull(&h, t->ref)) t->mismatches++;
        mo_cl_hull_free(&h);
    }
    return NULL;
}

static void test_hull_threads(void)
{
    enum { NT = 4, NP = 400 };
    double pts[3 * NP];
    rng g = {4242};
    random_points(&g, 0, NP, pts);
    mo_cl_hull ref;
    char err[256];
    CHECK(mo_cl_hull_build(pts, NP, &ref, err, sizeof err) == 0);
    pthread_t th[NT];
    hull_thread arg[NT];
    for (int i = 0; i < NT; ++i) {
        arg[i] = (hull_thread){pts, NP, 20, &ref, 0};
        CHECK(pthread_create(&th[i], NULL, hull_thread_main, &arg[i]) == 0);
    }
    for (int i = 0; i < NT; ++i) {
        pthread_join(th[i], NULL);
        CHECK(arg[i].mismatches == 0);
    }
    mo_cl_hull_free(&ref);
}

/* ---- mass properties ---- */

static void check_mass(const mo_cl_mass *m, double vol, const double *com, const double *I, double rel)
{
    double s = fabs(vol);
    CHECK_NEAR(m->volume, vol, rel * s);
    double len = cbrt(s);
    for (int j = 0; j < 3; ++j) CHECK_NEAR(m->com[j], com[j], rel * len + 1e-300);
    double isc = 0;
    for (int k = 0; k < 9; ++k) isc = fmax(isc, fabs(I[k]));
    for (int k = 0; k < 9; ++k) CHECK_NEAR(m->inertia[k], I[k], rel * isc);
}

/* 1-d Simpson over z of disk cross-sections of radius rho(z) (axis z):
 * V = int pi rho^2, Izz = int pi rho^4 / 2, Ixx = int (pi rho^4 / 4 + pi rho^2 z^2) */
static void slices(double (*rho)(double z, const double *p), const double *p, double z0, double z1, int n,
                   double *V, double *ixx, double *izz)
{
    double h = (z1 - z0) / n;
    *V = *ixx = *izz = 0;
    for (int i = 0; i <= n; ++i) {
        double z = z0 + i * h, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
        double r = rho(z, p), a = PI * r * r;
        *V += w * a;
        *izz += w * a * r * r / 2;
        *ixx += w * (a * r * r / 4 + a * z * z);
    }
    *V *= h / 3;
    *ixx *= h / 3;
    *izz *= h / 3;
}

static double rho_capsule(double z, const double *p) /* p = {r, h} */
{
    double r = p[0], h = p[1], dz = fabs(z) - h;
    if (dz <= 0) return r;
    double s = r * r - dz * dz;
    return s > 0 ? sqrt(s) : 0;
}

/* mesh of the triangulated faces of a hull */
static int mesh_from_hull(const mo_cl_hull *h, mo_cl_mesh *m, const double *R, const double *t)
{
    int ntri = 0;
    for (int f = 0; f < h->nfaces; ++f) ntri += h->face_first[f + 1] - h->face_first[f] - 2;
    int *tris = (int *)malloc((size_t)ntri * 3 * sizeof(int));
    double *v = (double *)malloc((size_t)h->nverts * 3 * sizeof(double));
    int k = 0;
    for (int f = 0; f < h->nfaces; ++f) {
        int first = h->face_first[f], n = h->face_first[f + 1] - first;
        for (int i = 1; i + 1 < n; ++i) {
            tris[3 * k] = h->face_verts[first];
            tris[3 * k + 1] = h->face_verts[first + i];
            tris[3 * k + 2] = h->face_verts[first + i + 1];
            k++;
        }
    }
    for (int i = 0; i < h->nverts; ++i) {
        if (R) mat_vec(R, h->verts + 3 * i, v + 3 * i);
        else memcpy(v + 3 * i, h->verts + 3 * i, 3 * sizeof(double));
        if (t)
            for (int j = 0; j < 3; ++j) v[3 * i + j] += t[j];
    }
    char err[256];
    int rc = mo_cl_mesh_build(v, h->nverts, tris, ntri, m, err, sizeof err);
    if (rc) fprintf(stderr, "mesh_from_hull: %s\n", err);
    free(tris);
    free(v);
    return rc;
}

static void test_mass_primitives(void)
{
    mo_cl_mass m;
    const double zero[3] = {0, 0, 0};
    /* sphere, radius grown by the margin */
    mo_cl_object o = make_obj(MO_CL_SPHERE, NULL, NULL);
    o.radius = 0.7;
    o.margin = 0.1;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double r = 0.8, V = 4.0 / 3.0 * PI * r * r * r, i = 0.4 * V * r * r;
        double I[9] = {i, 0, 0, 0, i, 0, 0, 0, i};
        check_mass(&m, V, zero, I, 1e-14);
    }
    /* box, margin ignored */
    o = make_obj(MO_CL_BOX, NULL, NULL);
    o.he[0] = 0.5;
    o.he[1] = 1.0;
    o.he[2] = 1.5;
    o.margin = 0.3;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double a = 1, b = 2, c = 3, V = a * b * c;
        double I[9] = {V * (b * b + c * c) / 12, 0, 0, 0, V * (a * a + c * c) / 12, 0, 0, 0, V * (a * a + b * b) / 12};
        check_mass(&m, V, zero, I, 1e-14);
    }
    /* cylinder: closed form and slices */
    o = make_obj(MO_CL_CYLINDER, NULL, NULL);
    o.radius = 0.4;
    o.half_height = 0.9;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double r = 0.4, L = 1.8, V = PI * r * r * L;
        double ixx = V * (3 * r * r + L * L) / 12, izz = V * r * r / 2;
        double I[9] = {ixx, 0, 0, 0, ixx, 0, 0, 0, izz};
        check_mass(&m, V, zero, I, 1e-14);
    }
    /* capsule: closed form (textbook: cylinder + hemispheres with the 3r/8 offset) and slices */
    o = make_obj(MO_CL_CAPSULE, NULL, NULL);
    o.radius = 0.3;
    o.half_height = 0.6;
    o.margin = 0.05;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double r = 0.35, h = 0.6, L = 2 * h;
        double mc = PI * r * r * L, ms = 4.0 / 3.0 * PI * r * r * r;
        double izz = mc * r * r / 2 + ms * 2 * r * r / 5;
        double ixx = mc * (L * L / 12 + r * r / 4) + ms * (2 * r * r / 5 + L * L / 4 + 3 * L * r / 8);
        double I[9] = {ixx, 0, 0, 0, ixx, 0, 0, 0, izz};
        check_mass(&m, mc + ms, zero, I, 1e-14);
        double p[2] = {r, h}, V, sx, sz;
        /* the slices are exact polynomials inside each piece: integrate the pieces separately */
        double V1, x1, z1, V2, x2, z2;
        slices(rho_capsule, p, -h - r, -h, 2000, &V1, &x1, &z1);
        slices(rho_capsule, p, -h, h, 2000, &V, &sx, &sz);
        slices(rho_capsule, p, h, h + r, 2000, &V2, &x2, &z2);
        V += V1 + V2;
        sx += x1 + x2;
        sz += z1 + z2;
        CHECK_NEAR(m.volume, V, 1e-12 * V);
        CHECK_NEAR(m.inertia[0], sx, 1e-10 * sx);
        CHECK_NEAR(m.inertia[4], sx, 1e-10 * sx);
        CHECK_NEAR(m.inertia[8], sz, 1e-10 * sz);
    }
    /* capsule with h = 0 is a sphere */
    o.half_height = 0;
    o.radius = 0.5;
    o.margin = 0;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double V = 4.0 / 3.0 * PI * 0.125, i = 0.4 * V * 0.25;
        double I[9] = {i, 0, 0, 0, i, 0, 0, 0, i};
        check_mass(&m, V, zero, I, 1e-14);
    }
    /* plane and unknown types have no volume */
    o = make_obj(MO_CL_PLANE, NULL, NULL);
    CHECK(mo_cl_mass_properties(&o, &m) == -1);
    o = make_obj(MO_CL_HULL, NULL, NULL); /* hull pointer missing */
    CHECK(mo_cl_mass_properties(&o, &m) == -1);
}

static void test_mass_polyhedra(void)
{
    mo_cl_mass m, ref;
    char err[256];
    const double he[3] = {0.5, 1.0, 1.5};
    double corners[24];
    box_corners(he, corners);

    /* hull of the box corners == box */
    mo_cl_hull h;
    CHECK(mo_cl_hull_build(corners, 8, &h, err, sizeof err) == 0);
    mo_cl_object o = make_obj(MO_CL_HULL, NULL, NULL);
    o.hull = &h;
    o.margin = 0.2; /* ignored */
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    mo_cl_object box = make_obj(MO_CL_BOX, NULL, NULL);
    memcpy(box.he, he, sizeof box.he);
    CHECK(mo_cl_mass_properties(&box, &ref) == 0);
    check_mass(&m, ref.volume, ref.com, ref.inertia, 1e-13);
    mo_cl_hull_free(&h);

    /* closed mesh box == box, also far from the origin (COM moved, inertia the same) */
    mo_cl_mesh mesh;
    CHECK(mo_cl_mesh_build(corners, 8, k_box_tris, 12, &mesh, err, sizeof err) == 0);
    CHECK(mesh.closed == 1);
    o = make_obj(MO_CL_MESH, NULL, NULL);
    o.mesh = &mesh;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    check_mass(&m, ref.volume, ref.com, ref.inertia, 1e-13);
    mo_cl_mesh_free(&mesh);

    /* the unit right tetrahedron: V = 1/6, COM = 1/4, I = [1/80 on the diagonal, 1/480 off it] */
    const double tv[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const int tt[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    CHECK(mo_cl_mesh_build(tv, 4, tt, 4, &mesh, err, sizeof err) == 0);
    CHECK(mesh.closed == 1);
    o.mesh = &mesh;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        const double com[3] = {0.25, 0.25, 0.25};
        const double I[9] = {1.0 / 80, 1.0 / 480, 1.0 / 480, 1.0 / 480, 1.0 / 80, 1.0 / 480, 1.0 / 480, 1.0 / 480, 1.0 / 80};
        check_mass(&m, 1.0 / 6.0, com, I, 1e-14);
    }
    mo_cl_mesh_free(&mesh);
    /* inside-out tetrahedron (closed, negative volume) and an open one are refused */
    const int tt_inv[12] = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
    CHECK(mo_cl_mesh_build(tv, 4, tt_inv, 4, &mesh, err, sizeof err) == 0);
    CHECK(mesh.closed == 1);
    CHECK(mo_cl_mass_properties(&o, &m) == -1);
    mo_cl_mesh_free(&mesh);
    CHECK(mo_cl_mesh_build(tv, 4, tt, 3, &mesh, err, sizeof err) == 0);
    CHECK(mesh.closed == 0);
    CHECK(mo_cl_mass_properties(&o, &m) == -1);
    mo_cl_mesh_free(&mesh);

    /* hull of a finely sampled sphere -> sphere within 0.5 % (inscribed polyhedron, 4000 Fibonacci points) */
    enum { NS = 4000 };
    double *sp = (double *)malloc(NS * 3 * sizeof(double));
    const double R = 1.3, golden = PI * (3.0 - sqrt(5.0));
    for (int i = 0; i < NS; ++i) {
        double z = 1.0 - (2.0 * i + 1.0) / NS, s = sqrt(1.0 - z * z);
        sp[3 * i] = R * s * cos(golden * i) + 0.25;
        sp[3 * i + 1] = R * s * sin(golden * i) - 0.5;
        sp[3 * i + 2] = R * z + 2.0;
    }
    CHECK(mo_cl_hull_build(sp, NS, &h, err, sizeof err) == 0);
    o = make_obj(MO_CL_HULL, NULL, NULL);
    o.hull = &h;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    {
        double V = 4.0 / 3.0 * PI * R * R * R, i = 0.4 * V * R * R;
        const double com[3] = {0.25, -0.5, 2.0};
        double I[9] = {i, 0, 0, 0, i, 0, 0, 0, i};
        check_mass(&m, V, com, I, 5e-3);
        CHECK(m.volume < V); /* inscribed */
    }
    /* the same hull as a triangle mesh gives the same mass properties */
    CHECK(mesh_from_hull(&h, &mesh, NULL, NULL) == 0);
    mo_cl_object om = make_obj(MO_CL_MESH, NULL, NULL);
    om.mesh = &mesh;
    CHECK(mo_cl_mass_properties(&om, &ref) == 0);
    check_mass(&ref, m.volume, m.com, m.inertia, 1e-11);
    mo_cl_mesh_free(&mesh);
    mo_cl_hull_free(&h);
    free(sp);

    /* rigid transforms of an irregular closed mesh: COM moves, inertia turns as R I R^T */
    rng g = {31337};
    double pts[3 * 60];
    for (int i = 0; i < 60; ++i) {
        pts[3 * i] = rnd_range(&g, -1, 2);
        pts[3 * i + 1] = rnd_range(&g, -0.5, 0.5);
        pts[3 * i + 2] = rnd_range(&g, -0.2, 0.3);
    }
    CHECK(mo_cl_hull_build(pts, 60, &h, err, sizeof err) == 0);
    mo_cl_mass base;
    CHECK(mesh_from_hull(&h, &mesh, NULL, NULL) == 0);
    om.mesh = &mesh;
    CHECK(mo_cl_mass_properties(&om, &base) == 0);
    mo_cl_mesh_free(&mesh);
    o.hull = &h;
    CHECK(mo_cl_mass_properties(&o, &m) == 0);
    check_mass(&m, base.volume, base.com, base.inertia, 1e-12);
    for (int trial = 0; trial < 5; ++trial) {
        double Rm[9], t[3] = {rnd_range(&g, -50, 50), rnd_range(&g, -50, 50), rnd_range(&g, -50, 50)};
        if (trial == 0) mat_identity(Rm); /* pure translation */
        else mat_random(&g, Rm);
        CHECK(mesh_from_hull(&h, &mesh, Rm, t) == 0);
        CHECK(mo_cl_mass_properties(&om, &m) == 0);
        double com[3], I[9], T[9];
        mat_vec(Rm, base.com, com);
        for (int j = 0; j < 3; ++j) com[j] += t[j];
        /* I = R base R^T */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                T[3 * i + j] = 0;
                for (int k = 0; k < 3; ++k) T[3 * i + j] += Rm[3 * i + k] * base.inertia[3 * k + j];
            }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                I[3 * i + j] = 0;
                for (int k = 0; k < 3; ++k) I[3 * i + j] += T[3 * i + k] * Rm[3 * j + k];
            }
        check_mass(&m, base.volume, com, I, 1e-11);
        mo_cl_mesh_free(&mesh);
    }
    mo_cl_hull_free(&h);

    /* parallel axes: one mesh of two disjoint boxes = sum of the boxes moved to the joint COM */
    {
        const double ha[3] = {0.5, 0.25, 0.75}, hb[3] = {0.2, 0.6, 0.3};
        const double ca[3] = {-1.0, 0.5, 0.2}, cb[3] = {2.0, -0.3, 1.1};
        double v[48];
        int tris[72];
        box_corners(ha, v);
        box_corners(hb, v + 24);
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 3; ++j) {
                v[3 * i + j] += ca[j];
                v[24 + 3 * i + j] += cb[j];
            }
        for (int k = 0; k < 36; ++k) {
            tris[k] = k_box_tris[k];
            tris[36 + k] = k_box_tris[k] + 8;
        }
        CHECK(mo_cl_mesh_build(v, 16, tris, 24, &mesh, err, sizeof err) == 0);
        CHECK(mesh.closed == 1);
        om.mesh = &mesh;
        CHECK(mo_cl_mass_properties(&om, &m) == 0);
        mo_cl_object ba = make_obj(MO_CL_BOX, NULL, NULL), bb = make_obj(MO_CL_BOX, NULL, NULL);
        memcpy(ba.he, ha, sizeof ba.he);
        memcpy(bb.he, hb, sizeof bb.he);
        mo_cl_mass ma, mb;
        CHECK(mo_cl_mass_properties(&ba, &ma) == 0);
        CHECK(mo_cl_mass_properties(&bb, &mb) == 0);
        double V = ma.volume + mb.volume, com[3], I[9];
        for (int j = 0; j < 3; ++j) com[j] = (ma.volume * ca[j] + mb.volume * cb[j]) / V;
        for (int k = 0; k < 9; ++k) I[k] = ma.inertia[k] + mb.inertia[k];
        const double *cs[2] = {ca, cb};
        double vs[2] = {ma.volume, mb.volume};
        for (int b = 0; b < 2; ++b) {
            double r[3] = {cs[b][0] - com[0], cs[b][1] - com[1], cs[b][2] - com[2]};
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) I[3 * i + j] += vs[b] * ((i == j ? dot3(r, r) : 0) - r[i] * r[j]);
        }
        check_mass(&m, V, com, I, 1e-13);
        mo_cl_mesh_free(&mesh);
    }
}

/* ---- mesh ---- */

typedef struct tri_list {
    int *tri;
    int n, cap;
} tri_list;

static void collect(void *ctx, int tri)
{
    tri_list *l = (tri_list *)ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->tri = (int *)realloc(l->tri, (size_t)l->cap * sizeof(int));
    }
    l->tri[l->n++] = tri;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* structure: boxes nest, leaves hold 1..4 triangles, every triangle in exactly one leaf; returns the depth */
static int check_bvh(const mo_cl_mesh *m)
{
    int n = m->ntris;
    CHECK(m->nnodes >= 1 && m->nnodes <= 2 * n - 1);
    int *seen = (int *)calloc((size_t)n, sizeof(int));
    int *visits = (int *)calloc((size_t)m->nnodes, sizeof(int));
    int stack[256][2], sp = 0, depth = 0, bad = 0;
    stack[sp][0] = 0;
    stack[sp++][1] = 1;
    while (sp > 0) {
        --sp;
        int id = stack[sp][0], d = stack[sp][1];
        if (d > depth) depth = d;
        const mo_cl_bvh_node *nd = &m->nodes[id];
        visits[id]++;
        if (nd->count > 0) {
            if (nd->count > 4 || nd->first < 0 || nd->first + nd->count > n) {
                bad++;
                continue;
            }
            for (int i = nd->first; i < nd->first + nd->count; ++i) {
                int t = m->tri_order[i];
                seen[t]++;
                for (int k = 0; k < 3; ++k)
                    for (int j = 0; j < 3; ++j) {
                        double x = m->verts[3 * m->tris[3 * t + k] + j];
                        if (x < nd->lo[j] || x > nd->hi[j]) bad++;
                    }
            }
        } else {
            int l = nd->first;
            if (l <= id || l + 1 >= m->nnodes) {
                bad++;
                continue;
            }
            for (int c = l; c <= l + 1; ++c)
                for (int j = 0; j < 3; ++j)
                    if (m->nodes[c].lo[j] < nd->lo[j] || m->nodes[c].hi[j] > nd->hi[j]) bad++;
            if (sp + 2 > 256) {
                bad++;
                break;
            }
            stack[sp][0] = l;
            stack[sp++][1] = d + 1;
            stack[sp][0] = l + 1;
            stack[sp++][1] = d + 1;
        }
    }
    CHECK(bad == 0);
    int missing = 0;
    for (int t = 0; t < n; ++t)
        if (seen[t] != 1) missing++;
    CHECK(missing == 0);
    int unreached = 0;
    for (int i = 0; i < m->nnodes; ++i)
        if (visits[i] != 1) unreached++;
    CHECK(unreached == 0);
    free(seen);
    free(visits);
    return depth;
}

/* random query boxes against brute force */
static void check_queries(const mo_cl_mesh *m, rng *g, int nq, double lo_range, double hi_range)
{
    tri_list got = {NULL, 0, 0};
    int *want = (int *)malloc((size_t)m->ntris * sizeof(int));
    int mismatches = 0, nonempty = 0;
    for (int q = 0; q < nq; ++q) {
        double lo[3], hi[3];
        for (int j = 0; j < 3; ++j) {
            double c = rnd_range(g, lo_range, hi_range), e = rnd_range(g, 0, 0.3 * (hi_range - lo_range));
            if (q % 10 == 0) e = 0; /* point queries */
            lo[j] = c - e;
            hi[j] = c + e;
        }
        got.n = 0;
        mo_cl_mesh_query(m, lo, hi, collect, &got);
        int nw = 0;
        for (int t = 0; t < m->ntris; ++t) {
            int hit = 1;
            for (int j = 0; j < 3 && hit; ++j) {
                double a = m->verts[3 * m->tris[3 * t] + j], b = m->verts[3 * m->tris[3 * t + 1] + j],
                       c = m->verts[3 * m->tris[3 * t + 2] + j];
                double tl = fmin(a, fmin(b, c)), th = fmax(a, fmax(b, c));
                if (tl > hi[j] || th < lo[j]) hit = 0;
            }
            if (hit) want[nw++] = t;
        }
        if (nw) nonempty++;
        if (got.n) qsort(got.tri, (size_t)got.n, sizeof(int), cmp_int);
        if (got.n != nw || (nw && memcmp(got.tri, want, (size_t)nw * sizeof(int)) != 0)) mismatches++;
    }
    CHECK(mismatches == 0);
    if (m->ntris >= 100) CHECK(nonempty > nq / 10); /* the queries are not all trivial */
    free(got.tri);
    free(want);
}

/* brute-force ray/triangle: plane intersection, then inside by the three edge half-planes */
static int ref_ray_tri(const double *o, const double *d, const double *a, const double *b, const double *c, double *t)
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3];
    cross3(e1, e2, n);
    double den = dot3(n, d);
    if (fabs(den) < 1e-300) return 0;
    double ao[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    double tt = dot3(n, ao) / den;
    if (tt < 0) return 0;
    double p[3] = {o[0] + tt * d[0], o[1] + tt * d[1], o[2] + tt * d[2]};
    const double *v[3] = {a, b, c};
    for (int k = 0; k < 3; ++k) {
        const double *x = v[k], *y = v[(k + 1) % 3];
        double ex[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]}, px[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]}, w[3];
        cross3(ex, px, w);
        if (dot3(w, n) < 0) return 0;
    }
    *t = tt;
    return 1;
}

static void test_mesh_bvh(void)
{
    rng g = {2024};
    char err[256];
    /* triangle soups of several sizes */
    const int sizes[5] = {1, 3, 5, 100, 3000};
    for (int s = 0; s < 5; ++s) {
        int nt = sizes[s], nv = 3 * nt;
        double *v = (double *)malloc((size_t)nv * 3 * sizeof(double));
        int *t = (int *)malloc((size_t)nt * 3 * sizeof(int));
        for (int i = 0; i < nt; ++i) {
            double c[3] = {rnd_range(&g, -5, 5), rnd_range(&g, -5, 5), rnd_range(&g, -1, 1)};
            double size = rnd_range(&g, 0.05, 0.8);
            for (int k = 0; k < 3; ++k) {
                for (int j = 0; j < 3; ++j) v[3 * (3 * i + k) + j] = c[j] + rnd_range(&g, -size, size);
                t[3 * i + k] = 3 * i + k;
            }
        }
        mo_cl_mesh m;
        int rc = mo_cl_mesh_build(v, nv, t, nt, &m, err, sizeof err);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(m.closed == 0);
            CHECK(m.ntris == nt && m.nverts == nv);
            CHECK(memcmp(m.verts, v, (size_t)nv * 3 * sizeof(double)) == 0);
            CHECK(memcmp(m.tris, t, (size_t)nt * 3 * sizeof(int)) == 0);
            int depth = check_bvh(&m);
            CHECK(depth <= 64);
            check_queries(&m, &g, 300, -6, 6);
            mo_cl_mesh_free(&m);
        }
        free(v);
        free(t);
    }
    /* a height field grid with shared vertices (open) */
    {
        enum { GN = 40 };
        double v[(GN + 1) * (GN + 1) * 3];
        int t[GN * GN * 6];
        for (int i = 0; i <= GN; ++i)
            for (int j = 0; j <= GN; ++j) {
                double *p = v + 3 * (i * (GN + 1) + j);
                p[0] = i * 0.25;
                p[1] = j * 0.25;
                p[2] = 0.3 * sin(0.7 * i) * cos(0.4 * j);
            }
        int k = 0;
        for (int i = 0; i < GN; ++i)
            for (int j = 0; j < GN; ++j) {
                int a = i * (GN + 1) + j, b = a + 1, c = a + GN + 1, d = c + 1;
                t[k++] = a;
                t[k++] = c;
                t[k++] = d;
                t[k++] = a;
                t[k++] = d;
                t[k++] = b;
            }
        mo_cl_mesh m;
        CHECK(mo_cl_mesh_build(v, (GN + 1) * (GN + 1), t, GN * GN * 2, &m, err, sizeof err) == 0);
        CHECK(m.closed == 0);
        check_bvh(&m);
        check_queries(&m, &g, 300, -1, 11);
        mo_cl_mesh_free(&m);
    }
    /* all centroids coincide (triangles spun about one point): the median fallback */
    {
        enum { NT = 200 };
        double v[NT * 9];
        int t[NT * 3];
        for (int i = 0; i < NT; ++i) {
            double a = 2 * PI * i / NT;
            double p[3][3] = {{cos(a), sin(a), 0.5}, {cos(a + 2.1), sin(a + 2.1), -0.25}, {0, 0, 0}};
            for (int j = 0; j < 3; ++j) p[2][j] = -(p[0][j] + p[1][j]); /* centroid at the origin */
            memcpy(v + 9 * i, p, sizeof p);
            for (int k = 0; k < 3; ++k) t[3 * i + k] = 3 * i + k;
        }
        mo_cl_mesh m;
        CHECK(mo_cl_mesh_build(v, 3 * NT, t, NT, &m, err, sizeof err) == 0);
        check_bvh(&m);
        check_queries(&m, &g, 100, -2, 2);
        mo_cl_mesh_free(&m);
    }
    /* centroids in geometric progression along x: each binned SAH split peels off a few triangles, so the
     * depth would grow with ntris; past depth 48 the build switches to median splits */
    {
        enum { NT = 1500 };
        double *v = (double *)malloc(NT * 9 * sizeof(double));
        int *t = (int *)malloc(NT * 3 * sizeof(int));
        for (int i = 0; i < NT; ++i) {
            double x = pow(2.0, 0.5 * i) - 1.0;
            double p[9] = {x, 0, 0, x, 1, 0, x, 0, 1};
            memcpy(v + 9 * i, p, sizeof p);
            for (int k = 0; k < 3; ++k) t[3 * i + k] = 3 * i + k;
        }
        mo_cl_mesh m;
        CHECK(mo_cl_mesh_build(v, 3 * NT, t, NT, &m, err, sizeof err) == 0);
        int depth = check_bvh(&m);
        CHECK(depth > 48);                     /* the fallback was needed */
        CHECK(depth <= 48 + 12);               /* and bounded it: 48 + log2(1500 / 4) + slack */
        check_queries(&m, &g, 200, -0.5, 1.5);
        /* rays down the deep tree, against brute force */
        int bad = 0, nhit = 0;
        for (int r = 0; r < 50; ++r) {
            double org[3] = {rnd_range(&g, -1, 60), rnd_range(&g, -0.2, 1), rnd_range(&g, -0.2, 1)}, dir[3] = {1, 0, 0};
            mo_cl_object o = make_obj(MO_CL_MESH, NULL, NULL);
            o.mesh = &m;
            double th, n[3], best = HUGE_VAL;
            int hit = mo_cl_raycast(&o, org, dir, 1e6, &th, n);
            for (int i = 0; i < NT; ++i) {
                double tt;
                if (ref_ray_tri(org, dir, v + 9 * i, v + 9 * i + 3, v + 9 * i + 6, &tt) && tt <= 1e6 && tt < best)
                    best = tt;
            }
            nhit += hit;
            if (hit != (best < HUGE_VAL) || (hit && fabs(th - best) > 1e-12)) bad++;
        }
        CHECK(bad == 0);
        CHECK(nhit > 10);
        mo_cl_mesh_free(&m);
        free(v);
        free(t);
    }
}

static void test_mesh_closed_and_errors(void)
{
    char err[256];
    const double he[3] = {1, 1, 1};
    double c[24];
    box_corners(he, c);
    mo_cl_mesh m;
    CHECK(mo_cl_mesh_build(c, 8, k_box_tris, 12, &m, err, sizeof err) == 0);
    CHECK(m.closed == 1);
    check_bvh(&m);
    mo_cl_mesh_free(&m);
    CHECK(m.nodes == NULL && m.ntris == 0);
    /* one triangle missing: open */
    CHECK(mo_cl_mesh_build(c, 8, k_box_tris, 11, &m, err, sizeof err) == 0);
    CHECK(m.closed == 0);
    mo_cl_mesh_free(&m);
    /* one triangle flipped: every edge used twice, but two of them in the same direction */
    int t[36];
    memcpy(t, k_box_tris, sizeof t);
    int s = t[4];
    t[4] = t[5];
    t[5] = s;
    CHECK(mo_cl_mesh_build(c, 8, t, 12, &m, err, sizeof err) == 0);
    CHECK(m.closed == 0);
    mo_cl_mesh_free(&m);
    /* the box twice (every edge used four times): not closed by this definition */
    int t2[72];
    memcpy(t2, k_box_tris, sizeof k_box_tris);
    memcpy(t2 + 36, k_box_tris, sizeof k_box_tris);
    CHECK(mo_cl_mesh_build(c, 8, t2, 24, &m, err, sizeof err) == 0);
    CHECK(m.closed == 0);
    mo_cl_mesh_free(&m);

    /* errors, named by index */
    memset(&m, 0xab, sizeof m);
    CHECK(mo_cl_mesh_build(c, 8, k_box_tris, 0, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh needs at least 1 triangle, got 0");
    CHECK(all_zero(&m, sizeof m));
    CHECK(mo_cl_mesh_build(c, 2, k_box_tris, 12, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh needs at least 3 vertices, got 2");
    memcpy(t, k_box_tris, sizeof t);
    t[3 * 5 + 1] = 8;
    CHECK(mo_cl_mesh_build(c, 8, t, 12, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh triangle 5 has vertex index 8 out of range [0, 8)");
    t[3 * 5 + 1] = -1;
    CHECK(mo_cl_mesh_build(c, 8, t, 12, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh triangle 5 has vertex index -1 out of range [0, 8)");
    memcpy(t, k_box_tris, sizeof t);
    t[3 * 7 + 2] = t[3 * 7]; /* repeated vertex */
    CHECK(mo_cl_mesh_build(c, 8, t, 12, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh triangle 7 is degenerate (zero area)");
    CHECK(all_zero(&m, sizeof m));
    /* three distinct collinear vertices */
    double lv[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 0};
    int lt[6] = {0, 1, 3, 0, 1, 2};
    CHECK(mo_cl_mesh_build(lv, 4, lt, 2, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh triangle 1 is degenerate (zero area)");
    /* coincident vertices at different indices */
    lv[6] = lv[7] = lv[8] = 1;
    CHECK(mo_cl_mesh_build(lv, 4, lt, 2, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh triangle 1 is degenerate (zero area)");
    /* a tiny but proper triangle is fine */
    double sv[9] = {0, 0, 0, 1e-9, 0, 0, 0, 1e-9, 0};
    int st[3] = {0, 1, 2};
    CHECK(mo_cl_mesh_build(sv, 3, st, 1, &m, err, sizeof err) == 0);
    mo_cl_mesh_free(&m);
    double nv[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    nv[7] = NAN;
    CHECK(mo_cl_mesh_build(nv, 4, st, 1, &m, err, sizeof err) == -1);
    CHECK_STR(err, "mesh vertex 2 is not finite, got (0, nan, 0)");
    CHECK(mo_cl_mesh_build(nv, 4, st, 1, NULL, err, sizeof err) == -1);
    CHECK_STR(err, "mo_cl_mesh_build: out must not be NULL");
}

/* ---- ray casts ---- */

static void check_ray(const mo_cl_object *o, const double *org, const double *dir, double tmax, int expect_hit,
                      double t_expect, const double *n_expect)
{
    double t = -1, n[3] = {0, 0, 0};
    int hit = mo_cl_raycast(o, org, dir, tmax, &t, n);
    CHECK(hit == expect_hit);
    if (hit && expect_hit) {
        CHECK_NEAR(t, t_expect, 1e-12);
        for (int j = 0; j < 3; ++j) CHECK_NEAR(n[j], n_expect[j], 1e-12);
    }
}

static void test_ray_analytic(void)
{
    double R[9];
    /* sphere r 0.5 + margin 0.1 at (1, 2, 3) */
    const double sp[3] = {1, 2, 3};
    mo_cl_object s = make_obj(MO_CL_SPHERE, sp, NULL);
    s.radius = 0.5;
    s.margin = 0.1;
    {
        const double org[3] = {1, 2, 0}, dir[3] = {0, 0, 2}, n[3] = {0, 0, -1};
        check_ray(&s, org, dir, 10, 1, 1.2, n);
        check_ray(&s, org, dir, 1.1, 0, 0, NULL); /* too short */
        const double dir2[3] = {0, 0, -1};
        check_ray(&s, org, dir2, 10, 0, 0, NULL); /* away */
        const double org2[3] = {1.7, 2, 0};
        check_ray(&s, org2, dir, 10, 0, 0, NULL); /* beside it */
        const double org3[3] = {1.1, 2.1, 3.2}, d3[3] = {3, 0, 4}, n3[3] = {-0.6, 0, -0.8};
        check_ray(&s, org3, d3, 10, 1, 0, n3); /* inside: t = 0, -dir/|dir| */
        /* grazing ray at distance 0.6: hits tangentially */
        const double org4[3] = {1.6, 2, 0}, n4[3] = {1, 0, 0};
        check_ray(&s, org4, dir, 10, 1, 1.5, n4);
        /* a ray starting on the surface going in hits at 0, going out misses */
        const double org5[3] = {1, 2, 2.4}, n5[3] = {0, 0, -1};
        check_ray(&s, org5, dir, 10, 1, 0, n5);
        check_ray(&s, org5, dir2, 10, 0, 0, NULL);
    }
    /* box (1, 2, 3) turned 90 degrees about z at (5, 0, 0): x extent 2 in world */
    mat_axis_angle(0, 0, 1, PI / 2, R);
    const double bp[3] = {5, 0, 0};
    mo_cl_object b = make_obj(MO_CL_BOX, bp, R);
    b.he[0] = 1;
    b.he[1] = 2;
    b.he[2] = 3;
    b.margin = 0.5; /* ignored */
    {
        const double org[3] = {0, 0, 0}, dir[3] = {1, 0, 0}, n[3] = {-1, 0, 0};
        check_ray(&b, org, dir, 10, 1, 3, n);
        const double org2[3] = {5, 0, 10}, dir2[3] = {0, 0, -0.5}, n2[3] = {0, 0, 1};
        check_ray(&b, org2, dir2, 100, 1, 14, n2);
        const double org3[3] = {5, 1.5, -10}, dir3[3] = {0, 0, 1};
        check_ray(&b, org3, dir3, 100, 0, 0, NULL); /* |y| = 1.5 > 1 after the turn */
        const double org4[3] = {5.5, 0.5, 1}, n4[3] = {-1, 0, 0};
        check_ray(&b, org4, dir, 100, 1, 0, n4); /* inside */
        /* parallel to a face, outside it; the box behind the ray; leaving from its surface */
        const double org5[3] = {0, 1.2, 0};
        check_ray(&b, org5, dir, 100, 0, 0, NULL);
        const double org5b[3] = {8, 0.5, 0.5}, org5c[3] = {7, 0.5, 0.5};
        check_ray(&b, org5b, dir, 100, 0, 0, NULL);
        check_ray(&b, org5c, dir, 100, 0, 0, NULL);
        /* through an edge region at 45 degrees: enters the +y... face? from (0, 5, 0) towards (5, 0, 0) */
        const double org6[3] = {5, 5, 0}, dir6[3] = {0, -1, 0}, n6[3] = {0, 1, 0};
        check_ray(&b, org6, dir6, 100, 1, 4, n6);
    }
    /* rays passing just outside and just inside an edge of a box and of the hull of its corners */
    {
        const double he1[3] = {1, 1, 1};
        double corners[24];
        box_corners(he1, corners);
        mo_cl_hull hb;
        char err[256];
        CHECK(mo_cl_hull_build(corners, 8, &hb, err, sizeof err) == 0);
        mo_cl_object ob = make_obj(MO_CL_BOX, NULL, NULL), oh = make_obj(MO_CL_HULL, NULL, NULL);
        memcpy(ob.he, he1, sizeof ob.he);
        oh.hull = &hb;
        const double org[3] = {0, 2.0005, 0.3}, org2[3] = {0, 1.9995, 0.3}, dir[3] = {1, -1, 0}, n[3] = {0, 1, 0};
        check_ray(&ob, org, dir, 10, 0, 0, NULL);
        check_ray(&oh, org, dir, 10, 0, 0, NULL);
        check_ray(&ob, org2, dir, 10, 1, 0.9995, n);
        check_ray(&oh, org2, dir, 10, 1, 0.9995, n);
        mo_cl_hull_free(&hb);
    }
    /* plane: tilted 90 degrees about x so its normal is R (0, 0, 1) = (0, -1, 0), through (0, 2, 0) */
    mat_axis_angle(1, 0, 0, PI / 2, R);
    const double pp[3] = {0, 2, 0};
    mo_cl_object p = make_obj(MO_CL_PLANE, pp, R);
    {
        const double org[3] = {1, -3, 7}, dir[3] = {0, 2, 0}, n[3] = {0, -1, 0};
        check_ray(&p, org, dir, 10, 1, 2.5, n);
        const double dir2[3] = {1, 0, 0};
        check_ray(&p, org, dir2, 10, 0, 0, NULL);
        const double org3[3] = {0, 5, 0}, n3[3] = {0, -1, 0};
        check_ray(&p, org3, dir, 10, 1, 0, n3); /* inside the half-space */
    }
    /* capsule r 0.3 + margin 0.1, h 1, axis along world x (turned about y) at the origin */
    mat_axis_angle(0, 1, 0, PI / 2, R);
    mo_cl_object c = make_obj(MO_CL_CAPSULE, NULL, R);
    c.radius = 0.3;
    c.margin = 0.1;
    c.half_height = 1;
    {
        const double org[3] = {0.5, 0, 5}, dir[3] = {0, 0, -1}, n[3] = {0, 0, 1};
        check_ray(&c, org, dir, 10, 1, 4.6, n); /* side */
        const double org2[3] = {-5, 0, 0}, dir2[3] = {1, 0, 0}, n2[3] = {-1, 0, 0};
        check_ray(&c, org2, dir2, 10, 1, 3.6, n2); /* end cap */
        /* hits the cap sphere off axis: x = 1.2, from above at z -> sqrt(0.16 - 0.04) */
        const double org3[3] = {1.2, 0, 5}, n3[3] = {0.5, 0, sqrt(0.75)};
        check_ray(&c, org3, dir, 10, 1, 5 - sqrt(0.12), n3);
        const double org4[3] = {1.45, 0, 5};
        check_ray(&c, org4, dir, 10, 0, 0, NULL);
        const double org5[3] = {1.2, 0.1, 0.1}, n5[3] = {0, 0, 1};
        check_ray(&c, org5, dir, 10, 1, 0, n5); /* inside the end sphere */
        /* beyond the end, within the radius, going away and towards the axis: no hit behind the origin */
        const double org6[3] = {1.3, 0, 0.35}, dir6[3] = {1, 0, -0.1};
        check_ray(&c, org6, dir6, 10, 0, 0, NULL);
        /* level rays just past the end of the cylinder part hit the end sphere (z = 0.005 below the rim) */
        const double org8[3] = {-1.005, 5, 0}, dir8[3] = {0, -1, 0};
        const double rho = sqrt(0.16 - 0.005 * 0.005), n8[3] = {-0.005 / 0.4, rho / 0.4, 0};
        check_ray(&c, org8, dir8, 10, 1, 5 - rho, n8);
        /* the capsule behind the ray */
        const double org7[3] = {5, 0, 0}, dir7[3] = {1, 0, 0};
        check_ray(&c, org7, dir7, 10, 0, 0, NULL);
    }
    /* cylinder r 0.5, h 1 along z at (0, 0, 1), margin ignored */
    const double cp[3] = {0, 0, 1};
    mo_cl_object y = make_obj(MO_CL_CYLINDER, cp, NULL);
    y.radius = 0.5;
    y.half_height = 1;
    y.margin = 0.2;
    {
        const double org[3] = {-3, 0, 1.5}, dir[3] = {1, 0, 0}, n[3] = {-1, 0, 0};
        check_ray(&y, org, dir, 10, 1, 2.5, n); /* side */
        const double org2[3] = {0.3, 0.2, 5}, dir2[3] = {0, 0, -2}, n2[3] = {0, 0, 1};
        check_ray(&y, org2, dir2, 10, 1, 1.5, n2); /* top cap */
        const double org3[3] = {0.3, 0.2, -5}, dir3[3] = {0, 0, 1}, n3[3] = {0, 0, -1};
        check_ray(&y, org3, dir3, 10, 1, 5, n3); /* bottom cap */
        const double org4[3] = {-3, 0, 2.1};
        check_ray(&y, org4, dir, 10, 0, 0, NULL); /* above the top */
        const double org5[3] = {0.6, 0, 5};
        check_ray(&y, org5, dir2, 10, 0, 0, NULL); /* beside, parallel to the axis */
        const double org6[3] = {0, 0.1, 0.5}, n6[3] = {-1, 0, 0};
        check_ray(&y, org6, dir, 10, 1, 0, n6); /* inside */
        /* diagonal into the rim region: from (-2, 0, 3.5) direction (1, 0, -1) hits the side at x = -0.5, z = 2 */
        const double org7[3] = {-2, 0, 3.5}, dir7[3] = {1, 0, -1}, n7[3] = {-1, 0, 0};
        check_ray(&y, org7, dir7, 10, 1, 1.5, n7);
        /* the same line, a bit higher: enters through the top cap at z = 2 */
        const double org8[3] = {-2, 0, 3.7}, n8[3] = {0, 0, 1};
        check_ray(&y, org8, dir7, 10, 1, 1.7, n8);
        /* parallel to the axis just inside and just outside the rim */
        const double org9[3] = {0.4999, 0, 5}, org10[3] = {0.5001, 0, 5};
        check_ray(&y, org9, dir2, 10, 1, 1.5, n2);
        check_ray(&y, org10, dir2, 10, 0, 0, NULL);
        const double org11[3] = {0, -0.5001, -3};
        check_ray(&y, org11, dir3, 10, 0, 0, NULL);
        /* below the bottom, on the axis, going down: the caps behind the origin are not hits */
        const double dir3b[3] = {0, 0, -1};
        check_ray(&y, org3, dir3b, 10, 0, 0, NULL);
        /* level rays just below the bottom rim miss, just above it hit the side */
        const double org13[3] = {-3, 0, -0.0005}, org14[3] = {-3, 0, 0.0005};
        check_ray(&y, org13, dir, 10, 0, 0, NULL);
        check_ray(&y, org14, dir, 10, 1, 2.5, n);
        /* above the top, within the radius, going up and inward: the side's root behind the origin is not a hit */
        const double org12[3] = {0.3, 0, 2.5}, dir12[3] = {-0.5, 0, 2};
        check_ray(&y, org12, dir12, 10, 0, 0, NULL);
    }
    /* bad arguments miss */
    {
        const double org[3] = {1, 2, 0}, dir0[3] = {0, 0, 0}, dir[3] = {0, 0, 1};
        double t, n[3];
        CHECK(mo_cl_raycast(&s, org, dir0, 10, &t, n) == 0);
        CHECK(mo_cl_raycast(&s, org, dir, -1, &t, n) == 0);
        CHECK(mo_cl_raycast(&s, org, dir, NAN, &t, n) == 0);
        CHECK(mo_cl_raycast(&s, org, dir, INFINITY, &t, n) == 1);
        CHECK_NEAR(t, 2.4, 1e-12);
    }
}

/* point-inside tests (local frames), independent of the library */
static int inside_local(const mo_cl_object *o, const double *p)
{
    switch (o->type) {
    case MO_CL_SPHERE: {
        double r = o->radius + o->margin;
        return dot3(p, p) < r * r;
    }
    case MO_CL_BOX: return fabs(p[0]) < o->he[0] && fabs(p[1]) < o->he[1] && fabs(p[2]) < o->he[2];
    case MO_CL_PLANE: return p[2] < 0;
    case MO_CL_CAPSULE: {
        double r = o->radius + o->margin, z = fmax(-o->half_height, fmin(o->half_height, p[2]));
        double d[3] = {p[0], p[1], p[2] - z};
        return dot3(d, d) < r * r;
    }
    case MO_CL_CYLINDER:
        return p[0] * p[0] + p[1] * p[1] < o->radius * o->radius && fabs(p[2]) < o->half_height;
    case MO_CL_HULL:
        for (int f = 0; f < o->hull->nfaces; ++f)
            if (!(dot3(o->hull->planes + 4 * f, p) < o->hull->planes[4 * f + 3])) return 0;
        return 1;
    default: return 0;
    }
}

static int inside_world(const mo_cl_object *o, const double *x)
{
    double w[3] = {x[0] - o->pos[0], x[1] - o->pos[1], x[2] - o->pos[2]}, p[3];
    mat_tvec(o->rot, w, p);
    return inside_local(o, p);
}

static void random_object(rng *g, int type, mo_cl_object *o, const mo_cl_hull *hull)
{
    double R[9], pos[3];
    mat_random(g, R);
    for (int j = 0; j < 3; ++j) pos[j] = rnd_range(g, -2, 2);
    *o = make_obj(type, pos, R);
    o->radius = rnd_range(g, 0.3, 1.5);
    o->margin = rnd_range(g, 0, 0.2);
    o->half_height = rnd_range(g, 0.1, 1.5);
    for (int j = 0; j < 3; ++j) o->he[j] = rnd_range(g, 0.1, 1.5);
    o->hull = hull;
}

static void test_ray_marching(void)
{
    rng g = {8080};
    char err[256];
    /* a random hull for the hull rays */
    double hp[3 * 40];
    for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 3; ++j) hp[3 * i + j] = rnd_range(&g, -1.2, 1.2) * (j + 1) * 0.5;
    mo_cl_hull hull;
    CHECK(mo_cl_hull_build(hp, 40, &hull, err, sizeof err) == 0);
    const int types[6] = {MO_CL_SPHERE, MO_CL_BOX, MO_CL_PLANE, MO_CL_CAPSULE, MO_CL_CYLINDER, MO_CL_HULL};
    enum { RAYS = 250, STEPS = 4000 };
    for (int ti = 0; ti < 6; ++ti) {
        int hits = 0, insides = 0, bad_t = 0, bad_n = 0, bad_miss = 0, sliver = 0;
        for (int r = 0; r < RAYS; ++r) {
            mo_cl_object o;
            random_object(&g, types[ti], &o, &hull);
            double org[3], dir[3], aim[3];
            for (int j = 0; j < 3; ++j) {
                org[j] = o.pos[j] + rnd_range(&g, -5, 5);
                aim[j] = o.pos[j] + rnd_range(&g, -1.5, 1.5);
            }
            if (r % 8 == 0) /* some origins inside or near */
                for (int j = 0; j < 3; ++j) org[j] = o.pos[j] + rnd_range(&g, -0.5, 0.5);
            double scale = rnd_range(&g, 0.3, 3.0);
            for (int j = 0; j < 3; ++j) dir[j] = (aim[j] - org[j]) * scale;
            if (r % 7 == 0)
                for (int j = 0; j < 3; ++j) dir[j] = rnd_range(&g, -1, 1);
            double dl = sqrt(dot3(dir, dir));
            double tmax = 12.0 / dl;
            double t = -1, n[3];
            int hit = mo_cl_raycast(&o, org, dir, tmax, &t, n);
            if (hit && !(t >= 0 && t <= tmax)) bad_t++;
            if (inside_world(&o, org)) {
                insides++;
                CHECK(hit == 1);
                if (hit) {
                    CHECK(t == 0);
                    for (int j = 0; j < 3; ++j) CHECK_NEAR(n[j], -dir[j] / dl, 1e-15);
                }
                continue;
            }
            /* march */
            double h = tmax / STEPS, tref = -1;
            for (int k = 1; k <= STEPS; ++k) {
                double x[3] = {org[0] + k * h * dir[0], org[1] + k * h * dir[1], org[2] + k * h * dir[2]};
                if (inside_world(&o, x)) {
                    tref = k * h;
                    break;
                }
            }
            if (tref >= 0) {
                hits++;
                if (!hit) {
                    bad_miss++;
                    continue;
                }
                if (!(t >= tref - h - 1e-12 && t <= tref + 1e-12)) bad_t++;
            } else if (hit) {
                sliver++; /* the chord is shorter than a step: check the point is on the surface below */
            } else {
                continue;
            }
            /* the normal: unit, outward (just outside along +n, just inside along -n), facing the ray */
            double q[3] = {org[0] + t * dir[0], org[1] + t * dir[1], org[2] + t * dir[2]};
            double e = 1e-7 * (1 + sqrt(dot3(q, q)));
            double qo[3] = {q[0] + e * n[0], q[1] + e * n[1], q[2] + e * n[2]};
            double qi[3] = {q[0] - e * n[0], q[1] - e * n[1], q[2] - e * n[2]};
            if (fabs(dot3(n, n) - 1) > 1e-12 || inside_world(&o, qo) || !inside_world(&o, qi) || dot3(n, dir) > 0)
                bad_n++;
        }
        if (bad_t || bad_n || bad_miss || sliver > RAYS / 50)
            fprintf(stderr, "ray marching type %d: hits %d inside %d bad_t %d bad_n %d bad_miss %d sliver %d\n",
                    types[ti], hits, insides, bad_t, bad_n, bad_miss, sliver);
        CHECK(bad_t == 0);
        CHECK(bad_n == 0);
        CHECK(bad_miss == 0);
        CHECK(sliver <= RAYS / 50);
        CHECK(hits > RAYS / 5);
        CHECK(insides > 0);
    }
    /* hull of a box == box, ray for ray */
    {
        const double he[3] = {0.4, 0.7, 1.1};
        double corners[24];
        box_corners(he, corners);
        mo_cl_hull hb;
        CHECK(mo_cl_hull_build(corners, 8, &hb, err, sizeof err) == 0);
        int differ = 0, nhit = 0;
        for (int r = 0; r < 500; ++r) {
            double R[9], pos[3], org[3], dir[3];
            mat_random(&g, R);
            for (int j = 0; j < 3; ++j) {
                pos[j] = rnd_range(&g, -1, 1);
                org[j] = rnd_range(&g, -3, 3);
                dir[j] = pos[j] + rnd_range(&g, -1, 1) - org[j];
            }
            mo_cl_object ob = make_obj(MO_CL_BOX, pos, R), oh = make_obj(MO_CL_HULL, pos, R);
            memcpy(ob.he, he, sizeof ob.he);
            oh.hull = &hb;
            double t1 = -1, t2 = -1, n1[3] = {0, 0, 0}, n2[3] = {0, 0, 0};
            int h1 = mo_cl_raycast(&ob, org, dir, 10, &t1, n1), h2 = mo_cl_raycast(&oh, org, dir, 10, &t2, n2);
            nhit += h1;
            if (h1 != h2 || (h1 && (fabs(t1 - t2) > 1e-12 || fabs(n1[0] - n2[0]) > 1e-12 ||
                                    fabs(n1[1] - n2[1]) > 1e-12 || fabs(n1[2] - n2[2]) > 1e-12)))
                differ++;
        }
        CHECK(differ == 0);
        CHECK(nhit > 100);
        mo_cl_hull_free(&hb);
    }
    mo_cl_hull_free(&hull);
}

static void test_ray_mesh(void)
{
    char err[256];
    /* the closed box mesh: outside hit, inside hit on the inner side (normal against the ray) */
    const double he[3] = {1, 2, 3};
    double c[24];
    box_corners(he, c);
    mo_cl_mesh box;
    CHECK(mo_cl_mesh_build(c, 8, k_box_tris, 12, &box, err, sizeof err) == 0);
    const double pos[3] = {10, 0, 0};
    mo_cl_object o = make_obj(MO_CL_MESH, pos, NULL);
    o.mesh = &box;
    o.margin = 0.3; /* ignored */
    {
        const double org[3] = {0, 0.3, 0.2}, dir[3] = {2, 0, 0}, n[3] = {-1, 0, 0};
        check_ray(&o, org, dir, 100, 1, 4.5, n);
        const double org2[3] = {10, 0.5, 0.5}, dir2[3] = {0, 0, 1}, n2[3] = {0, 0, -1};
        check_ray(&o, org2, dir2, 100, 1, 2.5, n2); /* from inside: the top face, seen from below */
        const double dir3[3] = {0, 0, -1}, n3[3] = {0, 0, 1};
        check_ray(&o, org2, dir3, 100, 1, 3.5, n3);
        const double org4[3] = {0, 2.5, 0};
        check_ray(&o, org4, dir, 100, 0, 0, NULL);
        check_ray(&o, org, dir, 4.4, 0, 0, NULL);
    }
    /* rotated: the normal turns with the mesh */
    double R[9];
    mat_axis_angle(0, 0, 1, PI / 2, R);
    o = make_obj(MO_CL_MESH, pos, R);
    o.mesh = &box;
    {
        const double org[3] = {0, 0.3, 0.2}, dir[3] = {1, 0, 0}, n[3] = {-1, 0, 0};
        check_ray(&o, org, dir, 100, 1, 8, n); /* x half extent is 2 after the turn */
    }
    mo_cl_mesh_free(&box);

    /* random soup vs brute force, world frame */
    rng g = {555};
    enum { NT = 1500 };
    double *v = (double *)malloc(NT * 9 * sizeof(double));
    int *t = (int *)malloc(NT * 3 * sizeof(int));
    for (int i = 0; i < NT; ++i) {
        double cc[3] = {rnd_range(&g, -3, 3), rnd_range(&g, -3, 3), rnd_range(&g, -3, 3)};
        for (int k = 0; k < 3; ++k) {
            for (int j = 0; j < 3; ++j) v[3 * (3 * i + k) + j] = cc[j] + rnd_range(&g, -0.4, 0.4);
            t[3 * i + k] = 3 * i + k;
        }
    }
    mo_cl_mesh m;
    CHECK(mo_cl_mesh_build(v, 3 * NT, t, NT, &m, err, sizeof err) == 0);
    int bad = 0, nhit = 0;
    for (int r = 0; r < 400; ++r) {
        double Rm[9], p[3], org[3], dir[3];
        mat_random(&g, Rm);
        for (int j = 0; j < 3; ++j) {
            p[j] = rnd_range(&g, -1, 1);
            org[j] = rnd_range(&g, -6, 6);
            dir[j] = rnd_range(&g, -1, 1);
        }
        if (r % 3 == 0)
            for (int j = 0; j < 3; ++j) dir[j] = p[j] - org[j] + rnd_range(&g, -2, 2);
        double tmax = r % 5 == 0 ? rnd_range(&g, 0, 5) : 100;
        mo_cl_object om = make_obj(MO_CL_MESH, p, Rm);
        om.mesh = &m;
        double th = -1, n[3];
        int hit = mo_cl_raycast(&om, org, dir, tmax, &th, n);
        /* reference in the local frame */
        double w[3] = {org[0] - p[0], org[1] - p[1], org[2] - p[2]}, lo[3], ld[3];
        mat_tvec(Rm, w, lo);
        mat_tvec(Rm, dir, ld);
        double best = HUGE_VAL;
        int bt = -1;
        for (int i = 0; i < NT; ++i) {
            double tt;
            if (ref_ray_tri(lo, ld, v + 9 * i, v + 9 * i + 3, v + 9 * i + 6, &tt) && tt <= tmax && tt < best) {
                best = tt;
                bt = i;
            }
        }
        if ((bt >= 0) != hit) {
            bad++;
            continue;
        }
        if (!hit) continue;
        nhit++;
        if (fabs(th - best) > 1e-9 * (1 + best)) bad++;
        /* normal: the triangle's, turned against the ray */
        double e1[3], e2[3], nl[3], nw[3];
        for (int j = 0; j < 3; ++j) {
            e1[j] = v[9 * bt + 3 + j] - v[9 * bt + j];
            e2[j] = v[9 * bt + 6 + j] - v[9 * bt + j];
        }
        cross3(e1, e2, nl);
        mat_vec(Rm, nl, nw);
        double l = sqrt(dot3(nw, nw));
        if (dot3(nw, dir) > 0) l = -l;
        for (int j = 0; j < 3; ++j)
            if (fabs(n[j] - nw[j] / l) > 1e-9) {
                bad++;
                break;
            }
    }
    CHECK(bad == 0);
    CHECK(nhit > 100);
    mo_cl_mesh_free(&m);
    free(v);
    free(t);
}

/* ---- mesh/mesh contacts (collide_mesh.c) ---- */

/* contacts of mesh objects a and b: count, every normal == n, every gap == gap (1e-12),
   every point_a within the xy square |x|, |y| <= r (when r > 0; 1e-4: the clipping's
   rounding of crossing edges) */
static void check_mm(const mo_cl_object *a, const mo_cl_object *b, double margin, int count, const double *n,
                     double gap, double r, const char *what)
{
    mo_cl_contact c[MO_CL_MAX_POINTS];
    int k = mo_cl_collide_mesh(a, 3, b, 7, margin, c);
    int bad = k != count;
    for (int i = 0; i < k && i < MO_CL_MAX_POINTS; i++) {
        if (c[i].a != 3 || c[i].b != 7) bad++;
        for (int j = 0; j < 3; j++)
            if (fabs(c[i].normal[j] - n[j]) > 1e-12) bad++;
        if (fabs(c[i].gap - gap) > 1e-12) bad++;
        /* point_b = point_a + gap n */
        for (int j = 0; j < 3; j++)
            if (fabs(c[i].point_b[j] - c[i].point_a[j] - gap * c[i].normal[j]) > 1e-12) bad++;
        if (r > 0 && (fabs(c[i].point_a[0]) > r + 1e-4 || fabs(c[i].point_a[1]) > r + 1e-4)) bad++;
    }
    if (bad) {
        fprintf(stderr, "  mesh/mesh %s: %d contacts (expected %d)\n", what, k, count);
        for (int i = 0; i < k; i++)
            fprintf(stderr, "    n (%g %g %g) gap %.15g a (%g %g %g)\n", c[i].normal[0], c[i].normal[1], c[i].normal[2],
                    c[i].gap, c[i].point_a[0], c[i].point_a[1], c[i].point_a[2]);
    }
    CHECK(bad == 0);
}

static void test_mesh_mesh(void)
{
    char err[256];
    const double he[3] = {0.5, 0.5, 0.5}, hs[3] = {0.2, 0.2, 0.2};
    double cb[24], cs[24];
    box_corners(he, cb);
    box_corners(hs, cs);
    mo_cl_mesh big, small;
    CHECK(mo_cl_mesh_build(cb, 8, k_box_tris, 12, &big, err, sizeof err) == 0);
    CHECK(mo_cl_mesh_build(cs, 8, k_box_tris, 12, &small, err, sizeof err) == 0);
    /* an open ground: 4 x 4 quads over [-2, 2]^2 at z = 0, facing up */
    double gv[25 * 3];
    int gt[32 * 3], nt = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            gv[3 * (5 * i + j)] = -2.0 + j;
            gv[3 * (5 * i + j) + 1] = -2.0 + i;
            gv[3 * (5 * i + j) + 2] = 0.0;
        }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int v = 5 * i + j;
            int q[6] = {v, v + 1, v + 6, v, v + 6, v + 5};
            memcpy(gt + 3 * nt, q, sizeof q);
            nt += 2;
        }
    mo_cl_mesh ground;
    CHECK(mo_cl_mesh_build(gv, 25, gt, 32, &ground, err, sizeof err) == 0);
    CHECK(ground.closed == 0);

    const double up[3] = {0, 0, 1}, down[3] = {0, 0, -1}, px[3] = {1, 0, 0};
    double pa[3] = {0, 0, 0}, pb[3] = {0, 0, 1.003};
    mo_cl_object A = make_obj(MO_CL_MESH, pa, NULL), B = make_obj(MO_CL_MESH, pb, NULL);
    A.mesh = &big;
    B.mesh = &big;
    /* face on face, 3 mm apart: the 4 corners of the common square */
    check_mm(&A, &B, 0.01, 4, up, 0.003, 0.5, "stacked cubes");
    check_mm(&B, &A, 0.01, 4, down, 0.003, 0.5, "stacked cubes, swapped");
    check_mm(&A, &B, 0.002, 0, up, 0, 0, "beyond the margin");
    B.pos[2] = 0.98; /* 2 cm deep */
    check_mm(&A, &B, 0.01, 4, up, -0.02, 0.5, "penetrating cubes");
    /* turned 45 degrees about z: still face on face, points inside the lower top face */
    double Rz[9];
    double cz = cos(PI / 4), sz = sin(PI / 4);
    double Rz_[9] = {cz, -sz, 0, sz, cz, 0, 0, 0, 1};
    memcpy(Rz, Rz_, sizeof Rz);
    B = make_obj(MO_CL_MESH, pb, Rz);
    B.mesh = &big;
    check_mm(&A, &B, 0.01, 4, up, 0.003, 0.5, "turned cube");
    /* a small cube on the big one: its own 4 bottom corners */
    double ps[3] = {0.1, -0.05, 0.5 + 0.2 + 0.004};
    mo_cl_object S = make_obj(MO_CL_MESH, ps, NULL);
    S.mesh = &small;
    {
        mo_cl_contact c[MO_CL_MAX_POINTS];
        int k = mo_cl_collide_mesh(&A, 0, &S, 1, 0.01, c);
        int corners = 0;
        for (int i = 0; i < k; i++) {
            CHECK_NEAR(c[i].gap, 0.004, 1e-12);
            CHECK_NEAR(c[i].normal[2], 1.0, 1e-12);
            corners += fabs(fabs(c[i].point_b[0] - ps[0]) - 0.2) < 1e-12 && fabs(fabs(c[i].point_b[1] - ps[1]) - 0.2) < 1e-12;
        }
        CHECK(k == 4 && corners == 4);
    }
    /* side by side along x */
    double pxp[3] = {1.004, 0.2, 0.1};
    B = make_obj(MO_CL_MESH, pxp, NULL);
    B.mesh = &big;
    {
        mo_cl_contact c[MO_CL_MAX_POINTS];
        int k = mo_cl_collide_mesh(&A, 0, &B, 1, 0.01, c), bad = k != 4;
        for (int i = 0; i < k; i++)
            bad += fabs(c[i].gap - 0.004) > 1e-12 || fabs(c[i].normal[0] - px[0]) > 1e-12;
        CHECK(bad == 0);
    }
    /* a margin on a thickens it: the gap shrinks by it */
    A.margin = 0.001;
    B = make_obj(MO_CL_MESH, pb, NULL);
    B.mesh = &big;
    check_mm(&A, &B, 0.01, 4, up, 0.002, 0.5, "margin on a");
    A.margin = 0.0;
    B.margin = 0.0015;
    check_mm(&A, &B, 0.01, 4, up, 0.0015, 0.5, "margin on b");
    /* on the open ground, either order; far away: nothing */
    mo_cl_object G = make_obj(MO_CL_MESH, NULL, NULL);
    G.mesh = &ground;
    double pc[3] = {0.3, 0.6, 0.2 + 0.001};
    S = make_obj(MO_CL_MESH, pc, NULL);
    S.mesh = &small;
    {
        mo_cl_contact c[MO_CL_MAX_POINTS];
        for (int order = 0; order < 2; order++) {
            int k = order ? mo_cl_collide_mesh(&S, 0, &G, 1, 0.01, c) : mo_cl_collide_mesh(&G, 0, &S, 1, 0.01, c);
            int bad = k != 4;
            for (int i = 0; i < k; i++)
                bad += fabs(c[i].gap - 0.001) > 1e-12 || fabs(c[i].normal[2] - (order ? -1.0 : 1.0)) > 1e-12;
            if (bad) fprintf(stderr, "  mesh/mesh cube on the open ground (order %d): %d contacts\n", order, k);
            CHECK(bad == 0);
        }
        S.pos[2] = -0.5; /* under the ground: behind its triangles */
        CHECK(mo_cl_collide_mesh(&G, 0, &S, 1, 0.01, c) == 0);
        S.pos[0] = 10.0;
        S.pos[2] = 0.201;
        CHECK(mo_cl_collide_mesh(&G, 0, &S, 1, 0.01, c) == 0);
        S.pos[0] = NAN;
        CHECK(mo_cl_collide_mesh(&G, 0, &S, 1, 0.01, c) == 0);
    }
    (void)down;
    mo_cl_mesh_free(&big);
    mo_cl_mesh_free(&small);
    mo_cl_mesh_free(&ground);
}

/* ---- world ray cast and box query through the broadphase trees ---- */

/* the loops over every shape (engine/shape.c): the reference */
bool mo_world_raycast_all(const mo_world *w, mo_vec3 origin, mo_vec3 dir, double max_distance, mo_ray_hit *hit);
int mo_world_query_aabb_all(const mo_world *w, mo_vec3 lo, mo_vec3 hi, mo_shape_id *out, int cap);

static uint64_t q_rng = 0x2545f4914f6cdd1du;
static double q_rnd(double a, double b)
{
    q_rng ^= q_rng << 13;
    q_rng ^= q_rng >> 7;
    q_rng ^= q_rng << 17;
    return a + (b - a) * (double)(q_rng >> 11) * (1.0 / 9007199254740992.0);
}

static const mo_vec3 q_cube[8] = {{-0.1, -0.1, -0.1}, {0.1, -0.1, -0.1}, {-0.1, 0.1, -0.1}, {0.1, 0.1, -0.1},
                                  {-0.1, -0.1, 0.1},  {0.1, -0.1, 0.1},  {-0.1, 0.1, 0.1},  {0.1, 0.1, 0.1}};
static const int q_cube_tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                    2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};

/* one random body: every shape type, some compound, some with a margin */
static mo_body_id q_body(mo_world *w, int k)
{
    mo_body_def bd = mo_default_body_def();
    bd.position = (mo_vec3){q_rnd(-3, 3), q_rnd(-3, 3), q_rnd(0.2, 4)};
    double a = q_rnd(0, 3);
    bd.orientation = (mo_quat){cos(a / 2), sin(a / 2) * 0.6, 0, sin(a / 2) * 0.8};
    mo_shape_def *sd = &bd.shape;
    sd->margin = k % 7 == 3 ? 0.02 : 0.0;
    switch (k % 6) {
    case 0: sd->type = MO_SHAPE_SPHERE; sd->radius = q_rnd(0.05, 0.2); break;
    case 1: sd->type = MO_SHAPE_BOX; sd->half_extents = (mo_vec3){q_rnd(0.05, 0.2), q_rnd(0.05, 0.2), 0.1}; break;
    case 2: sd->type = MO_SHAPE_CAPSULE; sd->radius = 0.08; sd->half_height = q_rnd(0.05, 0.2); break;
    case 3: sd->type = MO_SHAPE_CYLINDER; sd->radius = 0.1; sd->half_height = q_rnd(0.05, 0.2); break;
    case 4: sd->type = MO_SHAPE_CONVEX_HULL; sd->points = q_cube; sd->point_count = 8; break;
    default:
        sd->type = MO_SHAPE_MESH;
        sd->vertices = q_cube;
        sd->vertex_count = 8;
        sd->indices = q_cube_tris;
        sd->triangle_count = 12;
        break;
    }
    mo_body_id id = {0, 0};
    CHECK(mo_body_create(w, &bd, &id) == MO_OK);
    if (k % 5 == 2) { /* a compound body: a second sphere off the origin */
        mo_shape_def s2 = mo_default_shape_def();
        s2.type = MO_SHAPE_SPHERE;
        s2.radius = 0.06;
        s2.position = (mo_vec3){0.2, 0, 0};
        mo_shape_id sid;
        CHECK(mo_shape_create(w, id, &s2, &sid) == MO_OK);
    }
    return id;
}

/* random rays and boxes: the tree answers == the loops' answers, bit for bit */
static void q_compare(mo_world *w, const char *phase, int *nhits, int *nfound)
{
    int bad_ray = 0, bad_box = 0;
    for (int k = 0; k < 300; k++) {
        mo_vec3 o = {q_rnd(-4, 4), q_rnd(-4, 4), q_rnd(-0.5, 5)};
        mo_vec3 d = {q_rnd(-1, 1), q_rnd(-1, 1), q_rnd(-1, 1)};
        if (k % 10 == 0) d = (mo_vec3){0, 0, -1};
        double len = k % 3 == 0 ? 100.0 : q_rnd(0, 6);
        mo_ray_hit h1, h2;
        bool r1 = mo_world_raycast(w, o, d, len, &h1), r2 = mo_world_raycast_all(w, o, d, len, &h2);
        if (r1 != r2 || (r1 && (h1.shape.index != h2.shape.index || h1.shape.generation != h2.shape.generation ||
                                h1.body.index != h2.body.index || h1.distance != h2.distance ||
                                h1.normal.x != h2.normal.x || h1.normal.y != h2.normal.y ||
                                h1.normal.z != h2.normal.z || h1.point.x != h2.point.x)))
            bad_ray++;
        *nhits += r1;
    }
    for (int k = 0; k < 200; k++) {
        mo_vec3 c = {q_rnd(-4, 4), q_rnd(-4, 4), q_rnd(-0.5, 5)};
        double e = k % 4 == 0 ? q_rnd(0, 0.02) : q_rnd(0.05, 1.5);
        mo_vec3 lo = {c.x - e, c.y - q_rnd(0, 1), c.z - e}, hi = {c.x + e, c.y + e, c.z + q_rnd(0, 1)};
        mo_shape_id a[64], b[64];
        int na = mo_world_query_aabb(w, lo, hi, a, 64), nb = mo_world_query_aabb_all(w, lo, hi, b, 64);
        int m = na < 64 ? na : 64;
        if (na != nb || (m > 0 && memcmp(a, b, (size_t)m * sizeof a[0])) ||
            mo_world_query_aabb(w, lo, hi, NULL, 0) != nb)
            bad_box++;
        *nfound += na;
    }
    if (bad_ray || bad_box) fprintf(stderr, "  queries %s: %d rays and %d boxes differ from the loops\n", phase, bad_ray, bad_box);
    CHECK(bad_ray == 0);
    CHECK(bad_box == 0);
}

static void test_world_queries_trees(void)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver.max_iterations = 10;
    mo_world *w = NULL;
    char err[256];
    CHECK(mo_world_create(&wd, &w, err, sizeof err) == MO_OK);
    if (!w) return;
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    mo_body_id gid;
    CHECK(mo_body_create(w, &g, &gid) == MO_OK);
    mo_body_def wall = mo_default_body_def();
    wall.type = MO_BODY_STATIC;
    wall.shape.type = MO_SHAPE_BOX;
    wall.shape.half_extents = (mo_vec3){0.1, 3, 1};
    wall.position = (mo_vec3){3.3, 0, 1};
    CHECK(mo_body_create(w, &wall, &gid) == MO_OK);
    enum { NB = 240 };
    mo_body_id ids[NB];
    for (int k = 0; k < NB; k++) ids[k] = q_body(w, k);
    for (int k = 0; k < 20; k++) { /* particles: in the trees, never reported */
        mo_particle_def pd = mo_default_particle_def();
        pd.position = (mo_vec3){q_rnd(-3, 3), q_rnd(-3, 3), q_rnd(0.5, 3)};
        pd.radius = 0.05;
        mo_particle_id pid;
        CHECK(mo_particle_create(w, &pd, &pid) == MO_OK);
    }
    int hits = 0, found = 0;
    q_compare(w, "before the first step", &hits, &found);
    for (int s = 0; s < 40; s++) CHECK(mo_world_step(w) == MO_OK);
    q_compare(w, "after 40 steps", &hits, &found);
    for (int k = 0; k < NB; k += 9) /* moved by the user */
        CHECK(mo_body_set_pose(w, ids[k], (mo_vec3){q_rnd(-3, 3), q_rnd(-3, 3), q_rnd(0.2, 3)},
                               (mo_quat){1, 0, 0, 0}) == MO_OK);
    q_compare(w, "after set_pose", &hits, &found);
    for (int k = 1; k < NB; k += 11) { /* bodies gone, new ones */
        CHECK(mo_body_destroy(w, ids[k]) == MO_OK);
        ids[k] = q_body(w, k + 1);
    }
    q_compare(w, "after destroy/create", &hits, &found);
    CHECK(mo_world_step(w) == MO_OK);
    q_compare(w, "after one more step", &hits, &found);
    printf("  world queries through the trees: %d ray hits, %d box results, equal to the loops\n", hits, found);
    CHECK(hits > 400 && found > 1000); /* the scenes are not empty */
    mo_world_destroy(w);
}

int main(void)
{
    test_hull_box();
    test_hull_random();
    test_hull_errors();
    test_hull_threads();
    test_mass_primitives();
    test_mass_polyhedra();
    test_mesh_bvh();
    test_mesh_closed_and_errors();
    test_ray_analytic();
    test_ray_marching();
    test_ray_mesh();
    test_mesh_mesh();
    test_world_queries_trees();
    return check_result("test_shapes");
}
