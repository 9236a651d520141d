/* test_fclib.c: FCLIB problem I/O (engine/fclib_io.c, engine/fclib_dat.c)
 * against the shared problems of ../shared/data/fclib (MANIFEST.md) and the
 * independent Python reader ../shared/tools/siconos/fcload.py.
 *
 * Groups:
 *   1 shared files   every one of the 19 files read: nc, n, nnz(W), mu as in
 *                    MANIFEST.md; mo_fc_error at three reactions against
 *                    fcload.py's fc3d_error (numbers from
 *                    tests/data/fclib_reference.py), 1e-12 relative.
 *   2 global         Spheres-i099-356-679.hdf5 (12000 dofs, diagonal M): the
 *                    local reduction against fcload.py's (norms, entries);
 *                    a permuted block-diagonal M (blocks {0,2,5}, {1,3,4})
 *                    against a dense H^T M^-1 H; singular and too-large
 *                    blocks refused. HDF5 layouts: triplets (i = row,
 *                    p = column, nz < nzmax, duplicates summed) and CSC
 *                    written with the HDF5 API; bad indices and storage.
 *   3 round trips    read -> mo_fc_write -> read: every array identical bit
 *                    for bit (and libfclib's own reader agrees, when built);
 *                    read -> mo_fc_write_dat -> read: q, mu bit for bit, W the
 *                    same matrix bit for bit (stored 3x3 blocks are written
 *                    whole, so nnz becomes 9 per block).
 *   4 malformed      (and a duplicated .dat block, summed)
 *                    truncated, garbage, wrong dim, storage, sizes, negative
 *                    mu, NaN, empty, missing, bad block numbers, HDF5 without
 *                    /fclib_local, a dataset missing, a truncated HDF5 file:
 *                    the exact sentence, the status and a zeroed problem.
 *   5 error measure  a hand-computed mu = 0 case and the u output.
 *
 * The data directory comes in MOREAU_FCLIB_DIR (set by tests/meson.build to
 * <source root>/../shared/data/fclib); when it is absent, groups 1-3 on the
 * shared files are skipped and the test exits 77 after the others pass.
 * Scratch files go to a fresh directory under $TMPDIR (or /tmp), removed at
 * the end. */
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <moreau/fclib.h>

#ifdef MO_HAVE_FCLIB
#include <hdf5.h>
#endif
#ifdef MO_HAVE_LIBFCLIB
#include <fclib.h>
#endif

#define CHECK_NEAR CHECK_NEAR_G17_DIFF
#include "check.h"

/* ---- reference numbers (tests/data/fclib_reference.py, fcload.py) ---- */

typedef struct ref_file {
    const char *file;
    int nc, nnz;
    double err0, err1, err3; /* error at r = 0, s = 1, s = 1e-3 */
} ref_file;

static const ref_file refs[] = {
    /* file, nc, nnz(W), error at r = 0, at s = 1, at s = 1e-3 */
    {"BoxesStack1-i100000-32.hdf5.dat", 52, 5328, 0.999999950260734, 0.4647827184852196, 0.9953996626505207},
    {"Capsules-i100-1090.dat", 276, 11214, 0.007441086408077654, 0.3105091186091777, 0.005431504336989566},
    {"Capsules-i101-404.dat", 225, 9099, 0.006134002004106835, 0.3035745251023357, 0.005067920512340142},
    {"Capsules-i122-1617.dat", 296, 12420, 0.007351240256891382, 0.30115321443353993, 0.005162541524152033},
    {"Capsules-i125-1213.hdf5", 286, 11772, 0.01579881542885599, 0.3109354614998504, 0.013884933732630386},
    {"Confeti-ex13-4contact-Fc3D-SBM.dat", 4, 144, 0.0021848402209683837, 0.05514602916133552, 0.002185714780608222},
    {"Confeti-ex13-Fc3D-SBM.dat", 107, 18171, 0.07273480636678076, 0.0727752971231854, 0.07273480638936798},
    {"FC3D_Example1.dat", 3, 9, 0.30001500112509377, 0.22981433603842938, 0.2999400010134741},
    {"FrictionContact3D_1c.dat", 1, 9, 0.26593487520457093, 0.05347834174424526, 0.2653531454420521},
    {"KaplasTower-i1061-4.hdf5.dat", 570, 116784, 0.9997146791195604, 0.40143774801843257, 0.9764224036069907},
    {"LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 60, 9576, 0.9273163580516092, 0.20082085413877054,
     0.9273167639495805},
    {"NESpheres_30_1.dat", 44, 1384, 0.2641352718976871, 0.2612801209104564, 0.26413040255006387},
    {"OneObject-i100000-316.hdf5.dat", 25, 1863, 0.002357535125726177, 0.17046774742387266, 0.003108753141685886},
    {"OneObject-i1028-138.hdf5.dat", 23, 1377, 0.0055476610174169955, 0.24352926851253912, 0.006245408243284969},
    {"Rover1039.dat", 4, 144, 0.3651008077961234, 0.4746196426509073, 0.3650912366257839},
    {"Rover11035.dat", 1, 9, 0.22488655008407915, 0.9768055057350208, 0.22487044397078032},
    {"Rover4396.dat", 2, 36, 0.22769088045756028, 0.22913368435492615, 0.22769052756111802},
    {"Spheres-i099-356-679.hdf5", 356, 7165, 0.9138004565994613, 0.7609646172496319, 0.9137161656821056},
    {"local_problem_test.hdf5", 48, 4896, 0.9999997677580159, 0.44579389011818493, 0.4463720703018638},
};
#define NREF ((int)(sizeof refs / sizeof refs[0]))

/* mu of each file (MANIFEST.md): one value, or two for LMGC */
static void manifest_mu(const char *file, double *a, double *b)
{
    *b = -1.0;
    if (!strncmp(file, "Confeti", 7)) *a = 0.04;
    else if (!strncmp(file, "FC3D", 4) || !strncmp(file, "FrictionContact3D", 17)) *a = 0.1;
    else if (!strncmp(file, "KaplasTower", 11) || !strncmp(file, "OneObject", 9)) *a = 0.3;
    else if (!strncmp(file, "NESpheres", 9)) *a = 0.8;
    else if (!strncmp(file, "LMGC", 4)) *a = 0.3, *b = 0.5;
    else *a = 0.7;
}

#ifdef MO_HAVE_FCLIB
/* Spheres global -> local, fcload.py: |W|_F, |q|_2, sum of W, entries */
static const double spheres_wnorm = 173.12169921048215, spheres_qnorm = 24.78331306859791,
                    spheres_wsum = 5006.475464107947;
static const struct {
    int i, j;
    double v;
} spheres_w[] = {
    {0, 1, -2.0895044837122722e-14}, {0, 514, -0.07752413449912637}, {389, 387, 3.396651640940086e-17},
    {541, 126, 0.03597060536035877}, {1067, 1067, 6.973190085283138},
};
static const struct {
    int i;
    double v;
} spheres_q[] = {
    {0, -0.004903324999953984}, {1, -1.2505281400242846e-09}, {500, -6.4478637966658425e-06}, {1067, 0.9427344515860829},
};
#endif

/* the reaction of fclib_reference.py: exact binary fractions times s */
static void reaction(int nc, double s, double *r)
{
    for (int c = 0; c < nc; c++) {
        r[3 * c] = (double)(c % 7 + 1) / 8.0 * s;
        r[3 * c + 1] = (double)(c % 5 - 2) / 16.0 * s;
        r[3 * c + 2] = (double)((c % 3 - 1) * 3) / 32.0 * s;
    }
}

/* ---- helpers ---- */

static char tmpdir[512];
static const char *data_dir;

static void path_in(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static void write_text(const char *name, const char *text, char *path, size_t size)
{
    path_in(path, size, tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static bool is_zeroed(const mo_fc_problem *p)
{
    static const mo_fc_problem zero;
    return memcmp(p, &zero, sizeof zero) == 0;
}

static bool csr_identical(const mo_csr *a, const mo_csr *b)
{
    if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz) return false;
    if (memcmp(a->ptr, b->ptr, ((size_t)a->rows + 1) * sizeof(int)) != 0) return false;
    if (a->nnz == 0) return true;
    return memcmp(a->col, b->col, (size_t)a->nnz * sizeof(int)) == 0 &&
           memcmp(a->val, b->val, (size_t)a->nnz * sizeof(double)) == 0;
}

/* same matrix bit for bit: b holds every entry of a with the same bits, and
   its other stored entries are zeros */
static bool csr_same_matrix(const mo_csr *a, const mo_csr *b)
{
    if (a->rows != b->rows || a->cols != b->cols) return false;
    for (int i = 0; i < a->rows; i++) {
        int k = a->ptr[i];
        for (int l = b->ptr[i]; l < b->ptr[i + 1]; l++) {
            if (k < a->ptr[i + 1] && a->col[k] == b->col[l]) {
                if (memcmp(&a->val[k], &b->val[l], sizeof(double)) != 0) return false;
                k++;
            } else if (b->val[l] != 0.0) {
                return false;
            }
        }
        if (k != a->ptr[i + 1]) return false;
    }
    return true;
}

static bool same_bits(const double *a, const double *b, int n)
{
    return n == 0 || (a && b && memcmp(a, b, (size_t)n * sizeof(double)) == 0);
}

static __attribute__((unused)) bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* the number of distinct 3x3 blocks holding a stored entry */
static int block_count(const mo_csr *a)
{
    int nb = 0, n = a->rows / 3;
    int *mark = malloc(((size_t)n + 1) * sizeof(int));
    for (int j = 0; j < n; j++) mark[j] = -1;
    for (int I = 0; I < n; I++)
        for (int i = 3 * I; i < 3 * I + 3; i++)
            for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
                if (mark[a->col[k] / 3] != I) mark[a->col[k] / 3] = I, nb++;
    free(mark);
    return nb;
}

static double csr_get(const mo_csr *a, int i, int j)
{
    for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
        if (a->col[k] == j) return a->val[k];
    return 0.0;
}

static bool csr_has(const mo_csr *a, int i, int j)
{
    for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
        if (a->col[k] == j) return true;
    return false;
}

/* a CSR from a dense row-major matrix, nonzeros only */
static __attribute__((unused)) void csr_dense(mo_csr *a, int rows, int cols, const double *d)
{
    int nnz = 0;
    for (int k = 0; k < rows * cols; k++) nnz += d[k] != 0.0;
    a->rows = rows, a->cols = cols, a->nnz = nnz;
    a->ptr = calloc((size_t)rows + 1, sizeof(int));
    a->col = malloc(((size_t)nnz + 1) * sizeof(int));
    a->val = malloc(((size_t)nnz + 1) * sizeof(double));
    nnz = 0;
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++)
            if (d[i * cols + j] != 0.0) a->col[nnz] = j, a->val[nnz++] = d[i * cols + j];
        a->ptr[i + 1] = nnz;
    }
}

/* ---- 1 shared files ---- */

static void test_shared_files(void)
{
    char path[1024], err[1024];
    for (int f = 0; f < NREF; f++) {
        const ref_file *rf = &refs[f];
        path_in(path, sizeof path, data_dir, rf->file);
        mo_fc_problem p;
        mo_status st = mo_fc_read(path, &p, err, sizeof err);
#ifndef MO_HAVE_FCLIB
        if (strstr(rf->file, ".hdf5") && !strstr(rf->file, ".hdf5.dat")) {
            /* built without HDF5: refused with a sentence */
            char want[1400];
            snprintf(want, sizeof want,
                     "mo_fc_read: '%s' is an FCLIB HDF5 file and this Moreau was built without HDF5 (meson option "
                     "-Dfclib=enabled needs libhdf5-dev)",
                     path);
            CHECK(st == MO_ERR_UNSUPPORTED);
            CHECK_STR(err, want);
            CHECK(is_zeroed(&p));
            continue;
        }
#endif
        CHECK(st == MO_OK);
        if (st != MO_OK) {
            fprintf(stderr, "  %s: %s\n", rf->file, err);
            continue;
        }
        CHECK(p.nc == rf->nc);
        CHECK(p.W.rows == 3 * rf->nc && p.W.cols == 3 * rf->nc);
        CHECK(p.W.nnz == rf->nnz);
        if (p.W.nnz != rf->nnz) fprintf(stderr, "  %s: nnz %d, MANIFEST %d\n", rf->file, p.W.nnz, rf->nnz);
        double a, b;
        manifest_mu(rf->file, &a, &b);
        int bad_mu = 0, seen_b = 0;
        for (int c = 0; c < p.nc; c++) {
            if (p.mu[c] == b) seen_b++;
            else if (p.mu[c] != a) bad_mu++;
        }
        CHECK(bad_mu == 0);
        if (b > 0) CHECK(seen_b > 0 && seen_b < p.nc);
        CHECK(p.ndof == (!strncmp(rf->file, "Spheres", 7) ? 12000 : 0));
        /* the error at three reactions against fcload.py */
        double *r = malloc(3 * (size_t)p.nc * sizeof(double)), *u = malloc(3 * (size_t)p.nc * sizeof(double));
        const double s[3] = {0.0, 1.0, 1e-3}, want[3] = {rf->err0, rf->err1, rf->err3};
        for (int k = 0; k < 3; k++) {
            reaction(p.nc, s[k], r);
            double e = mo_fc_error(&p, r, NULL);
            CHECK_NEAR(e, want[k], 1e-12 * want[k]);
            double e2 = mo_fc_error(&p, r, u);
            CHECK(e2 == e);
            /* u = W r + q */
            double du = 0.0;
            for (int i = 0; i < 3 * p.nc; i++) {
                double x = p.q[i], mag = fabs(p.q[i]);
                for (int l = p.W.ptr[i]; l < p.W.ptr[i + 1]; l++) {
                    x += p.W.val[l] * r[p.W.col[l]];
                    mag += fabs(p.W.val[l] * r[p.W.col[l]]);
                }
                du = fmax(du, fabs(x - u[i]) / (mag + DBL_MIN));
            }
            CHECK(du <= 1e-14);
        }
        free(r), free(u);
        /* titles come from HDF5 info/ */
        if (strstr(rf->file, "Capsules-i125")) CHECK(p.title && !strcmp(p.title, "Capsules"));
        if (!strncmp(rf->file, "Spheres", 7)) CHECK(p.title && !strcmp(p.title, "Spheres Tower"));
        if (strstr(rf->file, ".dat")) CHECK(!p.title && !p.description);
        mo_fc_free(&p);
        CHECK(is_zeroed(&p));
    }
}

/* ---- 2 global ---- */

#ifdef MO_HAVE_FCLIB
static void test_spheres_global(void)
{
    char path[1024], err[1024];
    path_in(path, sizeof path, data_dir, "Spheres-i099-356-679.hdf5");
    mo_fc_problem p;
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    if (p.nc == 0) return;
    CHECK(p.ndof == 12000);
    CHECK(p.M.rows == 12000 && p.M.nnz == 12000);
    CHECK(p.H.rows == 12000 && p.H.cols == 1068 && p.H.nnz == 9110);
    CHECK(p.f && p.w);
    double wn = 0.0, ws = 0.0, wmax = 0.0, qn = 0.0;
    for (int k = 0; k < p.W.nnz; k++) {
        wn += p.W.val[k] * p.W.val[k];
        ws += p.W.val[k];
        wmax = fmax(wmax, fabs(p.W.val[k]));
    }
    for (int i = 0; i < 3 * p.nc; i++) qn += p.q[i] * p.q[i];
    CHECK_NEAR(sqrt(wn), spheres_wnorm, 1e-12 * spheres_wnorm);
    CHECK_NEAR(sqrt(qn), spheres_qnorm, 1e-12 * spheres_qnorm);
    CHECK_NEAR(ws, spheres_wsum, 1e-11 * spheres_wsum);
    for (size_t k = 0; k < sizeof spheres_w / sizeof spheres_w[0]; k++) {
        CHECK(csr_has(&p.W, spheres_w[k].i, spheres_w[k].j));
        CHECK_NEAR(csr_get(&p.W, spheres_w[k].i, spheres_w[k].j), spheres_w[k].v, 1e-13 * wmax);
    }
    for (size_t k = 0; k < sizeof spheres_q / sizeof spheres_q[0]; k++)
        CHECK_NEAR(p.q[spheres_q[k].i], spheres_q[k].v, 1e-13 * sqrt(qn));
    mo_fc_free(&p);
}

/* a global problem with a permuted block-diagonal M: blocks {0, 2, 5} (B,
   row-major) and {1, 3, 4} (diag 4 and a 2x2 on 3, 4), H 6 x 6, 2 contacts */
static void make_block_global(mo_fc_problem *p, const double B[9])
{
    double M[36] = {0}, H[36], f[6] = {0.5, -1.0, 0.25, 2.0, -0.75, 1.5}, w[6] = {0.1, 0.0, -0.2, 0.05, 0.3, 0.0};
    const int b[3] = {0, 2, 5};
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) M[b[a] * 6 + b[c]] = B[a * 3 + c];
    M[1 * 6 + 1] = 4.0;
    M[3 * 6 + 3] = 2.0, M[3 * 6 + 4] = -0.5, M[4 * 6 + 3] = -0.5, M[4 * 6 + 4] = 1.5;
    for (int k = 0; k < 36; k++) H[k] = (k % 5 == 0) ? 0.0 : (double)((k * 7) % 11 - 5) / 4.0;
    memset(p, 0, sizeof *p);
    p->nc = 2, p->ndof = 6;
    csr_dense(&p->M, 6, 6, M);
    csr_dense(&p->H, 6, 6, H);
    p->f = malloc(sizeof f), memcpy(p->f, f, sizeof f);
    p->w = malloc(sizeof w), memcpy(p->w, w, sizeof w);
    p->mu = malloc(2 * sizeof(double)), p->mu[0] = 0.5, p->mu[1] = 0.0;
    p->title = malloc(8), strcpy(p->title, "blocks");
}

/* x = A^-1 y for a dense 6x6 A (Gaussian elimination, partial pivoting) */
static void dense_solve6(const double *A, const double *y, double *x)
{
    double a[6][7];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) a[i][j] = A[i * 6 + j];
        a[i][6] = y[i];
    }
    for (int c = 0; c < 6; c++) {
        int piv = c;
        for (int i = c + 1; i < 6; i++)
            if (fabs(a[i][c]) > fabs(a[piv][c])) piv = i;
        for (int j = 0; j < 7; j++) {
            double t = a[c][j];
            a[c][j] = a[piv][j], a[piv][j] = t;
        }
        for (int i = c + 1; i < 6; i++) {
            double m = a[i][c] / a[c][c];
            for (int j = c; j < 7; j++) a[i][j] -= m * a[c][j];
        }
    }
    for (int i = 5; i >= 0; i--) {
        double s = a[i][6];
        for (int j = i + 1; j < 6; j++) s -= a[i][j] * x[j];
        x[i] = s / a[i][i];
    }
}

static void test_block_global(void)
{
    char path[1024], err[1024];
    mo_fc_problem g, p;
    const double spd[9] = {2.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.5};
    make_block_global(&g, spd);
    path_in(path, sizeof path, tmpdir, "blocks.hdf5");
    CHECK(mo_fc_write(path, &g, err, sizeof err) == MO_OK);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    /* dense reference: W = H^T M^-1 H, q = H^T M^-1 f + w */
    double M[36] = {0}, H[36] = {0}, X[36], mf[6];
    for (int i = 0; i < 6; i++) {
        for (int k = g.M.ptr[i]; k < g.M.ptr[i + 1]; k++) M[i * 6 + g.M.col[k]] = g.M.val[k];
        for (int k = g.H.ptr[i]; k < g.H.ptr[i + 1]; k++) H[i * 6 + g.H.col[k]] = g.H.val[k];
    }
    for (int j = 0; j < 6; j++) {
        double col[6], x[6];
        for (int i = 0; i < 6; i++) col[i] = H[i * 6 + j];
        dense_solve6(M, col, x);
        for (int i = 0; i < 6; i++) X[i * 6 + j] = x[i];
    }
    dense_solve6(M, g.f, mf);
    double maxdiff = 0.0, qdiff = 0.0;
    for (int i = 0; i < 6; i++) {
        double qi = g.w[i];
        for (int k = 0; k < 6; k++) qi += H[k * 6 + i] * mf[k];
        qdiff = fmax(qdiff, fabs(qi - p.q[i]));
        for (int j = 0; j < 6; j++) {
            double wij = 0.0;
            for (int k = 0; k < 6; k++) wij += H[k * 6 + i] * X[k * 6 + j];
            maxdiff = fmax(maxdiff, fabs(wij - csr_get(&p.W, i, j)));
        }
    }
    CHECK_NEAR(maxdiff, 0.0, 1e-14);
    CHECK_NEAR(qdiff, 0.0, 1e-14);
    CHECK(p.title && !strcmp(p.title, "blocks") && !p.description);
    mo_fc_free(&p);
    mo_fc_free(&g);

    /* a singular block on {0, 2, 5}: its second row twice its first */
    const double sing[9] = {1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 3.0};
    make_block_global(&g, sing);
    path_in(path, sizeof path, tmpdir, "singular.hdf5");
    CHECK(mo_fc_write(path, &g, err, sizeof err) == MO_OK);
    char want[1200];
    snprintf(want, sizeof want, "mo_fc_read: '%s': M is singular: its 3 x 3 block at dofs 0..5 cannot be inverted",
             path);
    memset(&p, 0xab, sizeof p);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_IO);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    mo_fc_free(&g);

    /* a zero diagonal mass, stored */
    make_block_global(&g, spd);
    free(g.M.ptr), free(g.M.col), free(g.M.val);
    g.M.nnz = 6;
    g.M.ptr = malloc(7 * sizeof(int)), g.M.col = malloc(6 * sizeof(int)), g.M.val = malloc(6 * sizeof(double));
    for (int i = 0; i < 6; i++) g.M.ptr[i] = i, g.M.col[i] = i, g.M.val[i] = i == 3 ? 0.0 : 1.0;
    g.M.ptr[6] = 6;
    path_in(path, sizeof path, tmpdir, "zeromass.hdf5");
    CHECK(mo_fc_write(path, &g, err, sizeof err) == MO_OK);
    snprintf(want, sizeof want, "mo_fc_read: '%s': M is singular: its diagonal entry at dof 3 is 0", path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_IO);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    mo_fc_free(&g);

    /* a tridiagonal M of 65 dofs is one block: too large */
    memset(&g, 0, sizeof g);
    g.nc = 1, g.ndof = 65;
    g.M.rows = g.M.cols = 65;
    g.M.ptr = malloc(66 * sizeof(int)), g.M.col = malloc(200 * sizeof(int)), g.M.val = malloc(200 * sizeof(double));
    int nnz = 0;
    for (int i = 0; i < 65; i++) {
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < 65) g.M.col[nnz] = j, g.M.val[nnz++] = i == j ? 4.0 : -1.0;
        g.M.ptr[i + 1] = nnz;
    }
    g.M.ptr[0] = 0, g.M.nnz = nnz;
    double Hd[65 * 3] = {0};
    Hd[0] = 1.0, Hd[1 * 3 + 1] = 1.0, Hd[2 * 3 + 2] = 1.0;
    csr_dense(&g.H, 65, 3, Hd);
    g.f = calloc(65, sizeof(double)), g.w = calloc(3, sizeof(double)), g.mu = calloc(1, sizeof(double));
    path_in(path, sizeof path, tmpdir, "bigblock.hdf5");
    CHECK(mo_fc_write(path, &g, err, sizeof err) == MO_OK);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': M couples 65 dofs in one block (dof 0 and 64 more); only block-diagonal M with "
             "blocks of at most 64 dofs is supported",
             path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_UNSUPPORTED);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    mo_fc_free(&g);
}
#endif

#ifdef MO_HAVE_FCLIB
static void h5_ints(hid_t f, const char *name, const int *v, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL), d = H5Dcreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d), H5Sclose(s);
}

static void h5_doubles(hid_t f, const char *name, const double *v, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL), d = H5Dcreate2(f, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d), H5Sclose(s);
}

/* a 1-contact local file with W in layout nz (p, i, x of length len), written with the HDF5 API */
static void write_local_h5(const char *path, int nz, int nzmax, const int *pp, const int *ii, const double *xx, int len,
                           int np)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const int three = 3;
    const double q[3] = {-1.0, 0.0, 0.0}, mu = 0.5;
    H5Gclose(H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    h5_ints(f, "/fclib_local/spacedim", &three, 1);
    h5_ints(f, "/fclib_local/W/m", &three, 1);
    h5_ints(f, "/fclib_local/W/n", &three, 1);
    h5_ints(f, "/fclib_local/W/nz", &nz, 1);
    h5_ints(f, "/fclib_local/W/nzmax", &nzmax, 1);
    h5_ints(f, "/fclib_local/W/p", pp, (hsize_t)np);
    h5_ints(f, "/fclib_local/W/i", ii, (hsize_t)len);
    h5_doubles(f, "/fclib_local/W/x", xx, (hsize_t)len);
    h5_doubles(f, "/fclib_local/vectors/q", q, 3);
    h5_doubles(f, "/fclib_local/vectors/mu", &mu, 1);
    H5Fclose(f);
}

static void test_h5_layouts(void)
{
    char path[1024], err[1024];
    mo_fc_problem p;
    path_in(path, sizeof path, tmpdir, "layout.hdf5");
    /* triplets, i = row, p = column, only the first nz = 3 of nzmax = 5: (0, 1) given twice is summed */
    const int ti[5] = {0, 0, 2, 9, 9}, tp[5] = {1, 1, 0, 9, 9};
    const double tx[5] = {1.0, 2.0, 5.0, 7.0, 7.0};
    write_local_h5(path, 3, 5, tp, ti, tx, 5, 5);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    CHECK(p.W.nnz == 2 && csr_get(&p.W, 0, 1) == 3.0 && csr_get(&p.W, 2, 0) == 5.0);
    mo_fc_free(&p);
    /* CSC: p = column pointers, i = row indices: W(1, 0) = 4, W(0, 2) = -1 */
    const int cp[4] = {0, 1, 1, 2}, ci[2] = {1, 0};
    const double cx[2] = {4.0, -1.0};
    write_local_h5(path, -1, 2, cp, ci, cx, 2, 4);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    CHECK(p.W.nnz == 2 && csr_get(&p.W, 1, 0) == 4.0 && csr_get(&p.W, 0, 2) == -1.0);
    mo_fc_free(&p);
    /* CSR with a column out of range */
    const int rp[4] = {0, 1, 1, 2}, ri[2] = {1, 3};
    write_local_h5(path, -2, 2, rp, ri, cx, 2, 4);
    char want[1400];
    snprintf(want, sizeof want, "mo_fc_read: '%s': HDF5 matrix /fclib_local/W has index 3 out of range 0..2 at entry 1",
             path);
    memset(&p, 0xab, sizeof p);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_IO);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    /* an unknown storage */
    write_local_h5(path, -3, 2, rp, ri, cx, 2, 4);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': HDF5 matrix /fclib_local/W has storage nz = -3 (not -2 CSR, -1 CSC or >= 0 triplets)",
             path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_IO);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
}
#endif

/* ---- 3 round trips ---- */

static void test_round_trips(void)
{
    char path[1024], out[1024], err[1024];
    for (int f = 0; f < NREF; f++) {
        mo_fc_problem p, d;
        path_in(path, sizeof path, data_dir, refs[f].file);
#ifndef MO_HAVE_FCLIB
        if (strstr(refs[f].file, ".hdf5") && !strstr(refs[f].file, ".hdf5.dat")) continue;
#endif
        if (mo_fc_read(path, &p, err, sizeof err) != MO_OK) {
            CHECK(0);
            continue;
        }
#ifdef MO_HAVE_FCLIB
        path_in(out, sizeof out, tmpdir, "trip.hdf5");
        CHECK(mo_fc_write(out, &p, err, sizeof err) == MO_OK);
        mo_fc_problem h;
        mo_status st = mo_fc_read(out, &h, err, sizeof err);
        CHECK(st == MO_OK);
        if (st == MO_OK) {
            CHECK(h.nc == p.nc && h.ndof == p.ndof);
            CHECK(csr_identical(&h.W, &p.W));
            CHECK(same_bits(h.q, p.q, 3 * p.nc) && same_bits(h.mu, p.mu, p.nc));
            if (p.ndof) {
                CHECK(csr_identical(&h.M, &p.M) && csr_identical(&h.H, &p.H));
                CHECK(same_bits(h.f, p.f, p.ndof) && same_bits(h.w, p.w, 3 * p.nc));
            }
            CHECK(same_str(h.title, p.title) && same_str(h.description, p.description));
            mo_fc_free(&h);
        }
#ifdef MO_HAVE_LIBFCLIB
        /* libfclib reads what we write */
        if (p.ndof == 0) {
            struct fclib_local *l = fclib_read_local(out);
            CHECK(l != NULL);
            if (l) {
                CHECK(l->spacedim == 3 && l->W->nz == -2 && l->W->m == 3 * p.nc && l->W->n == 3 * p.nc);
                CHECK(l->W->nzmax == p.W.nnz);
                CHECK(!memcmp(l->W->p, p.W.ptr, ((size_t)p.W.rows + 1) * sizeof(int)));
                CHECK(!memcmp(l->W->i, p.W.col, (size_t)p.W.nnz * sizeof(int)));
                CHECK(same_bits(l->W->x, p.W.val, p.W.nnz));
                CHECK(same_bits(l->q, p.q, 3 * p.nc) && same_bits(l->mu, p.mu, p.nc));
                fclib_delete_local(l);
                free(l);
            }
        } else {
            struct fclib_global *g = fclib_read_global(out);
            CHECK(g != NULL);
            if (g) {
                CHECK(g->spacedim == 3 && g->M->nz == p.M.nnz && g->H->nz == p.H.nnz && g->H->n == 3 * p.nc);
                CHECK(same_bits(g->M->x, p.M.val, p.M.nnz) && same_bits(g->H->x, p.H.val, p.H.nnz));
                CHECK(same_bits(g->f, p.f, p.ndof) && same_bits(g->w, p.w, 3 * p.nc));
                fclib_delete_global(g);
                free(g);
            }
        }
#endif
#endif
        path_in(out, sizeof out, tmpdir, "trip.dat");
        CHECK(mo_fc_write_dat(out, &p, err, sizeof err) == MO_OK);
        CHECK(mo_fc_read(out, &d, err, sizeof err) == MO_OK);
        if (d.nc) {
            CHECK(d.nc == p.nc && d.ndof == 0);
            CHECK(csr_same_matrix(&p.W, &d.W));
            CHECK(d.W.nnz == 9 * block_count(&p.W));
            CHECK(same_bits(d.q, p.q, 3 * p.nc) && same_bits(d.mu, p.mu, p.nc));
            /* a .dat of sparse blocks comes back array for array */
            if (strstr(refs[f].file, ".dat") && p.W.nnz == 9 * block_count(&p.W)) CHECK(csr_identical(&d.W, &p.W));
            mo_fc_free(&d);
        }
        mo_fc_free(&p);
    }
}

/* ---- 4 malformed ---- */

/* reads text written to name: status st and the sentence "mo_fc_read: '<path>'<tail>" */
static void check_refused(const char *name, const char *text, mo_status want_st, const char *tail)
{
    char path[1024], err[1024], want[1400];
    write_text(name, text, path, sizeof path);
    mo_fc_problem p;
    memset(&p, 0xab, sizeof p);
    mo_status st = mo_fc_read(path, &p, err, sizeof err);
    CHECK(st == want_st);
    snprintf(want, sizeof want, "mo_fc_read: '%s'%s", path, tail);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    mo_fc_free(&p);
}

/* a 2-contact sparse block problem with one stray block, to break piece by piece */
#define DAT_OK                                                                       \
    "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 1 1\n"                         \
    "0\n1 0 0 0 1 0 0 0 1\n1\n0.5 0 0 0 0.5 0 0 0 0.5\n2\n2 0 0 0 2 0 0 0 2\n" \
    "-1 0 0 -2 0.5 0\n0.5 0.25\n"

static void test_malformed(void)
{
    char path[1024], err[1024], want[1400];
    mo_fc_problem p;

    /* the good one reads */
    write_text("ok.dat", DAT_OK, path, sizeof path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    CHECK(p.nc == 2 && p.W.nnz == 27 && p.mu[1] == 0.25 && csr_get(&p.W, 1, 4) == 0.5);
    mo_fc_free(&p);

    /* a block given twice in block row 0 (column 0) is summed */
    write_text("dup.dat",
               "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 0 1\n"
               "0\n1 0 0 0 1 0 0 0 1\n1\n0.5 0 0 0 0.5 0 0 0 0.5\n2\n2 0 0 0 2 0 0 0 2\n"
               "-1 0 0 -2 0.5 0\n0.5 0.25\n",
               path, sizeof path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    CHECK(p.W.nnz == 18 && csr_get(&p.W, 0, 0) == 1.5 && csr_get(&p.W, 1, 0) == 0.0 && csr_has(&p.W, 1, 0));
    CHECK(csr_get(&p.W, 4, 4) == 2.0 && p.W.ptr[3] == 9);
    mo_fc_free(&p);

    check_refused("trunc_w.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0\n0 1\n", MO_ERR_IO,
                  " is truncated: it ends in section \"W values\"");
    check_refused("trunc_q.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0\n", MO_ERR_IO,
                  " is truncated: it ends in section \"q\"");
    check_refused("trunc_mu.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n", MO_ERR_IO,
                  " is truncated: it ends in section \"mu\"");
    check_refused("trunc_blocks.dat",
                  "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 1 1\n0\n1 0 0 0 1 0 0 0 1\n1\n0.5 0\n",
                  MO_ERR_IO, " is truncated: it ends in section \"W values\"");
    check_refused("trunc_header.dat", "3\n", MO_ERR_IO, " is truncated: it ends in section \"header\"");
    check_refused("garbage.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0\n0 x 0\n0 0 1\n-1 0 0\n0.3\n", MO_ERR_IO,
                  " line 8: \"x\" is not a number (section \"W values\")");
    check_refused("garbage_int.dat", "3\none\n", MO_ERR_IO, " line 2: \"one\" is not an integer (section \"header\")");
    check_refused("dim2.dat", "2\n1\n0\n2\n2\n2 2\n1 0 0 1\n-1 0\n0.3\n", MO_ERR_UNSUPPORTED,
                  ": contact dimension 2 is not supported (only 3D friction, dim 3)");
    check_refused("storage.dat", "3\n1\n5\n3\n3\n", MO_ERR_IO,
                  " line 3: W storage type 5 is not supported (0 dense, 1 sparse block)");
    check_refused("sizes.dat", "3\n2\n0\n3\n3\n3 3\n", MO_ERR_IO, ": W is 3 x 3 but 2 contacts need 6 x 6");
    check_refused("negmu.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\n-0.5\n", MO_ERR_IO,
                  ": mu[0] = -0.5 is negative (friction coefficients must be >= 0)");
    check_refused("nan.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 nan 0\n0.3\n", MO_ERR_IO,
                  " line 8: value \"nan\" is not finite (section \"q\")");
    check_refused("infmu.dat", "3\n1\n0\n3\n3\n3 3\n1 0 0 0 1 0 0 0 1\n-1 0 0\ninf\n", MO_ERR_IO,
                  " line 9: value \"inf\" is not finite (section \"mu\")");
    check_refused("blocknum.dat",
                  "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 1 1\n0\n1 0 0 0 1 0 0 0 1\n7\n"
                  "0.5 0 0 0 0.5 0 0 0 0.5\n2\n2 0 0 0 2 0 0 0 2\n-1 0 0 -2 0.5 0\n0.5 0.25\n",
                  MO_ERR_IO, " line 17: block number 7 where 1 was expected (section \"W values\")");
    check_refused("blockcol.dat", "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 4 1\n", MO_ERR_IO,
                  ": W's block 1 has block column 4, outside 0..1 (section \"W block structure\")");
    check_refused("empty.dat", "", MO_ERR_IO, " is empty");
    check_refused("blank.dat", " \n\t\n", MO_ERR_IO, " is empty");

    /* a missing file */
    path_in(path, sizeof path, tmpdir, "no_such_file.dat");
    memset(&p, 0xab, sizeof p);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_read: cannot open '%s': No such file or directory", path);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&p));
    CHECK(mo_fc_read(NULL, &p, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_fc_read: path and out must not be NULL");

    /* writers refuse bad problems and unwritable places */
    write_text("ok.dat", DAT_OK, path, sizeof path);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    p.mu[1] = -1.0;
    path_in(path, sizeof path, tmpdir, "bad_out.dat");
    CHECK(mo_fc_write_dat(path, &p, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_fc_write_dat: the problem: mu[1] = -1 is negative (friction coefficients must be >= 0)");
    p.mu[1] = 0.25;
    p.W.col[1] = 0; /* row 0 now has column 0 twice */
    CHECK(mo_fc_write_dat(path, &p, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_fc_write_dat: the problem: W's row 0 has column 0 out of range or out of order (columns must "
                   "be sorted and distinct, in 0..5)");
    p.W.col[1] = 1;
    snprintf(path, sizeof path, "%s/no_dir/x.dat", tmpdir);
    CHECK(mo_fc_write_dat(path, &p, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_write_dat: cannot create '%s': No such file or directory", path);
    CHECK_STR(err, want);
#ifdef MO_HAVE_FCLIB
    snprintf(path, sizeof path, "%s/no_dir/x.hdf5", tmpdir);
    CHECK(mo_fc_write(path, &p, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_write: cannot create '%s': No such file or directory", path);
    CHECK_STR(err, want);

    /* HDF5 without /fclib_local */
    char h5path[1024];
    path_in(h5path, sizeof h5path, tmpdir, "nogroup.hdf5");
    hid_t file = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(file, "/something_else", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    H5Fclose(file);
    mo_fc_problem q;
    memset(&q, 0xab, sizeof q);
    CHECK(mo_fc_read(h5path, &q, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_read: '%s': the HDF5 file has neither a /fclib_local nor a /fclib_global group",
             h5path);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&q));

    /* a dataset missing: W/x deleted from a good file */
    path_in(h5path, sizeof h5path, tmpdir, "nox.hdf5");
    CHECK(mo_fc_write(h5path, &p, err, sizeof err) == MO_OK);
    file = H5Fopen(h5path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(H5Ldelete(file, "/fclib_local/W/x", H5P_DEFAULT) >= 0);
    H5Fclose(file);
    memset(&q, 0xab, sizeof q);
    CHECK(mo_fc_read(h5path, &q, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_read: '%s': HDF5 dataset /fclib_local/W/x is missing", h5path);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&q));

    /* NaN in an HDF5 q */
    p.q[4] = NAN;
    path_in(h5path, sizeof h5path, tmpdir, "nan.hdf5");
    CHECK(mo_fc_write(h5path, &p, err, sizeof err) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(err, "mo_fc_write: the problem: q[4] is not finite");
    p.q[4] = 0.5;
    CHECK(mo_fc_write(h5path, &p, err, sizeof err) == MO_OK);
    file = H5Fopen(h5path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t ds = H5Dopen2(file, "/fclib_local/vectors/q", H5P_DEFAULT);
    double qn[6];
    memcpy(qn, p.q, sizeof qn);
    qn[4] = NAN;
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, qn);
    H5Dclose(ds);
    H5Fclose(file);
    CHECK(mo_fc_read(h5path, &q, err, sizeof err) == MO_ERR_IO);
    snprintf(want, sizeof want, "mo_fc_read: '%s': q[4] is not finite", h5path);
    CHECK_STR(err, want);
    CHECK(is_zeroed(&q));

    /* a truncated HDF5 file: its first 100 bytes */
    {
        char cut[1024];
        path_in(h5path, sizeof h5path, tmpdir, "nan.hdf5");
        path_in(cut, sizeof cut, tmpdir, "cut.hdf5");
        FILE *in = fopen(h5path, "rb"), *o = fopen(cut, "wb");
        char buf[100];
        size_t n = fread(buf, 1, sizeof buf, in);
        fwrite(buf, 1, n, o);
        fclose(in), fclose(o);
        memset(&q, 0xab, sizeof q);
        CHECK(mo_fc_read(cut, &q, err, sizeof err) == MO_ERR_IO);
        snprintf(want, sizeof want,
                 "mo_fc_read: '%s' has the HDF5 signature but HDF5 cannot open it (truncated or damaged?)", cut);
        CHECK_STR(err, want);
        CHECK(is_zeroed(&q));
    }
#else
    path_in(path, sizeof path, tmpdir, "x.hdf5");
    CHECK(mo_fc_write(path, &p, err, sizeof err) == MO_ERR_UNSUPPORTED);
#endif
    mo_fc_free(&p);
}

/* ---- 5 error measure ---- */

static void test_error_measure(void)
{
    /* W = 0, q = (-1, 0.5, 0), r = (1, 0, 0), mu = 0: u = q, x = r - u = (2, -0.5, 0),
       P(x) = (2, 0, 0), e = (-1, 0, 0): err = 1 / max(|q|, |r|, |u|) = 1 / sqrt(1.25) */
    mo_fc_problem p = {0};
    int ptr[4] = {0, 0, 0, 0};
    double q[3] = {-1.0, 0.5, 0.0}, mu[1] = {0.0}, r[3] = {1.0, 0.0, 0.0}, u[3];
    p.nc = 1;
    p.W.rows = p.W.cols = 3;
    p.W.ptr = ptr;
    p.q = q, p.mu = mu;
    CHECK_NEAR(mo_fc_error(&p, r, u), 1.0 / sqrt(1.25), 1e-15);
    CHECK(u[0] == -1.0 && u[1] == 0.5 && u[2] == 0.0);
    /* mu = 0.5: ubar = (-0.75, 0.5, 0), x = r - ubar = (1.75, -0.5, 0) is inside
       (0.5 <= 0.875), so e = ubar: err = sqrt(0.8125 / 1.25) */
    mu[0] = 0.5;
    CHECK_NEAR(mo_fc_error(&p, r, NULL), sqrt(0.65), 1e-15);
    /* a solution: q = 0, r = (1, 0, 0) sticking, u = 0 */
    q[0] = q[1] = 0.0;
    CHECK(mo_fc_error(&p, r, NULL) == 0.0);
    /* everything zero: no division */
    q[0] = q[1] = 0.0, r[0] = 0.0;
    CHECK(mo_fc_error(&p, r, NULL) == 0.0);
    CHECK(isnan(mo_fc_error(NULL, r, NULL)));
}

/* ---- main ---- */

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d) return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(tmpdir);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/moreau_fclib_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    data_dir = getenv("MOREAU_FCLIB_DIR");
    struct stat sb;
    bool have_data = data_dir && stat(data_dir, &sb) == 0 && S_ISDIR(sb.st_mode);

#define GROUP(name, call)               \
    do {                                \
        check_group_begin();            \
        call;                           \
        check_group_end(name, 16, 5);   \
    } while (0)
    if (have_data) {
        GROUP("shared files", test_shared_files());
    }
#ifdef MO_HAVE_FCLIB
    if (have_data) GROUP("global", test_spheres_global());
    GROUP("block global", test_block_global());
    GROUP("HDF5 layouts", test_h5_layouts());
#endif
    if (have_data) GROUP("round trips", test_round_trips());
    GROUP("malformed", test_malformed());
    GROUP("error measure", test_error_measure());
    remove_tmpdir();
    int rc = check_groups_result();
    if (rc == 0 && !have_data) {
        printf("shared problems skipped: %s\n", data_dir ? "MOREAU_FCLIB_DIR is not a directory" : "MOREAU_FCLIB_DIR is unset");
        return 77;
    }
    return rc;
}
