/* test_fclib_bounds.c: FCLIB files whose declared sizes are lies (issue 18,
 * "bounded cost for any input"). Each file is small; each is read in a child
 * process capped at 1 GiB of address space (tests/bounded.h) and must fail
 * there with its exact sentence, so a reader that allocates for the declared
 * size before checking it (3.9 GB for the first file before the fix) fails
 * the test.
 *
 *   1 W 1e9 x 1e9    a 1-contact local HDF5 file whose W (3 triplets) says
 *                    m = n = 1e9: 3.9 GB before the fix
 *   2 extent 1e9     W/x declares 1e9 doubles in a chunked dataset with no
 *                    chunk written (fill values: 8 GB from a few KB of file)
 *   3 global M 1e9   a global HDF5 file whose M says 1e9 x 1e9 with 2 dofs
 *   4 .dat 1e9       a .dat whose header declares 1e9 contacts in 40 bytes
 *   5 damaged heap   fuzz/regressions/fclib/fclib_hdf5_heap_segv.h5: a local
 *                    heap on which libhdf5 1.10.8 dereferences NULL inside
 *                    H5Lexists; mo_fc_read reads HDF5 in a child first, so
 *                    the caller gets MO_ERR_IO and a sentence, not SIGSEGV
 *
 * The HDF5 files are written with the HDF5 API here, into a fresh directory
 * under $TMPDIR (or /tmp), removed at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "bounded.h"
#include "tmpdir.h"
#include "moreau/fclib.h"

#ifdef MO_HAVE_FCLIB
#include <hdf5.h>
#endif

#define CAP ((size_t)1 << 30)

static char tmpdir[512];

static int read_child(void *arg, char *msg, size_t size)
{
    mo_fc_problem p;
    mo_status st = mo_fc_read((const char *)arg, &p, msg, size);
    mo_fc_free(&p);
    return (int)st;
}

/* reads path in the capped child: the status and sentence must be as given */
static void expect_bounded(const char *path, mo_status want, const char *want_msg)
{
    char msg[2048];
    int st = -1;
    int rc = bounded_run(read_child, (void *)path, CAP, &st, msg, sizeof msg);
    CHECK(rc == 0);
    if (rc != 0) {
        printf("  %s: the reader died in a 1 GiB address space\n", path);
        return;
    }
    CHECK(st == (int)want);
    CHECK_STR(msg, want_msg);
}

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

/* a dataset of n doubles, chunked, with no chunk written: it reads as n fill values */
static void h5_empty_doubles(hid_t f, const char *name, hsize_t n)
{
    hsize_t chunk = 1024;
    hid_t s = H5Screate_simple(1, &n, NULL), pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, 1, &chunk);
    hid_t d = H5Dcreate2(f, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, pl, H5P_DEFAULT);
    H5Dclose(d), H5Pclose(pl), H5Sclose(s);
}

static void group(hid_t f, const char *name)
{
    H5Gclose(H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

/* a 1-contact local problem: W is m x n with 3 triplets on its diagonal (the layout
   Siconos writes); W/x declares xlen values */
static void write_local(const char *path, int m, int n, hsize_t xlen)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const int three = 3, nnz = 3, p[3] = {0, 1, 2}, i[3] = {0, 1, 2};
    const double x[3] = {1.0, 1.0, 1.0}, q[3] = {-1.0, 0.0, 0.0}, mu = 0.5;
    group(f, "/fclib_local");
    group(f, "/fclib_local/W");
    group(f, "/fclib_local/vectors");
    h5_ints(f, "/fclib_local/spacedim", &three, 1);
    h5_ints(f, "/fclib_local/W/m", &m, 1);
    h5_ints(f, "/fclib_local/W/n", &n, 1);
    h5_ints(f, "/fclib_local/W/nz", &nnz, 1);
    h5_ints(f, "/fclib_local/W/nzmax", &nnz, 1);
    h5_ints(f, "/fclib_local/W/p", p, 3);
    h5_ints(f, "/fclib_local/W/i", i, 3);
    if (xlen == 3)
        h5_doubles(f, "/fclib_local/W/x", x, 3);
    else
        h5_empty_doubles(f, "/fclib_local/W/x", xlen);
    h5_doubles(f, "/fclib_local/vectors/q", q, 3);
    h5_doubles(f, "/fclib_local/vectors/mu", &mu, 1);
    H5Fclose(f);
}

/* a 1-contact global problem with 2 dofs (f has 2 values), M declared mm x mm */
static void write_global(const char *path, int mm)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const int three = 3, two = 2, nz2 = 2, nz3 = 3, mi[2] = {0, 1}, hi[3] = {0, 1, 1}, hp[3] = {0, 1, 2};
    const double mx[2] = {1.0, 1.0}, hx[3] = {1.0, 1.0, 1.0}, fv[2] = {0.0, -1.0}, w[3] = {0.0, 0.0, 0.0}, mu = 0.3;
    group(f, "/fclib_global");
    group(f, "/fclib_global/M");
    group(f, "/fclib_global/H");
    group(f, "/fclib_global/vectors");
    h5_ints(f, "/fclib_global/spacedim", &three, 1);
    h5_ints(f, "/fclib_global/M/m", &mm, 1);
    h5_ints(f, "/fclib_global/M/n", &mm, 1);
    h5_ints(f, "/fclib_global/M/nz", &nz2, 1);
    h5_ints(f, "/fclib_global/M/nzmax", &nz2, 1);
    h5_ints(f, "/fclib_global/M/i", mi, 2);
    h5_ints(f, "/fclib_global/M/p", mi, 2);
    h5_doubles(f, "/fclib_global/M/x", mx, 2);
    h5_ints(f, "/fclib_global/H/m", &two, 1);
    h5_ints(f, "/fclib_global/H/n", &three, 1);
    h5_ints(f, "/fclib_global/H/nz", &nz3, 1);
    h5_ints(f, "/fclib_global/H/nzmax", &nz3, 1);
    h5_ints(f, "/fclib_global/H/i", hi, 3);
    h5_ints(f, "/fclib_global/H/p", hp, 3);
    h5_doubles(f, "/fclib_global/H/x", hx, 3);
    h5_doubles(f, "/fclib_global/vectors/f", fv, 2);
    h5_doubles(f, "/fclib_global/vectors/w", w, 3);
    h5_doubles(f, "/fclib_global/vectors/mu", &mu, 1);
    H5Fclose(f);
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

static void test_h5(void)
{
    char path[1024], want[2048];
    mo_fc_problem p;
    char err[1024];
    /* the honest file reads (the writer and the checks agree) */
    snprintf(path, sizeof path, "%s/ok.hdf5", tmpdir);
    write_local(path, 3, 3, 3);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    mo_fc_free(&p);
    snprintf(path, sizeof path, "%s/ok_global.hdf5", tmpdir);
    write_global(path, 2);
    CHECK(mo_fc_read(path, &p, err, sizeof err) == MO_OK);
    CHECK(p.nc == 1 && p.W.rows == 3);
    mo_fc_free(&p);

    /* 1: W's sizes say 1e9 */
    snprintf(path, sizeof path, "%s/w1e9.hdf5", tmpdir);
    write_local(path, 1000000000, 1000000000, 3);
    CHECK(file_size(path) < 64 * 1024);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': HDF5 matrix /fclib_local/W is 1000000000 x 1000000000 but 1 contacts need 3 x 3",
             path);
    expect_bounded(path, MO_ERR_IO, want);

    /* 2: W/x's extent says 1e9 doubles, none stored */
    snprintf(path, sizeof path, "%s/x1e9.hdf5", tmpdir);
    write_local(path, 3, 3, 1000000000);
    CHECK(file_size(path) < 64 * 1024);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': HDF5 dataset /fclib_local/W/x declares 1000000000 values (8000000000 bytes) but "
             "stores 0 bytes in the file",
             path);
    expect_bounded(path, MO_ERR_IO, want);

    /* 3: a global M of 1e9 x 1e9 for 2 dofs */
    snprintf(path, sizeof path, "%s/m1e9.hdf5", tmpdir);
    write_global(path, 1000000000);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': HDF5 matrix /fclib_global/M is 1000000000 x 1000000000 but 2 dofs (the length of f) "
             "need 2 x 2",
             path);
    expect_bounded(path, MO_ERR_IO, want);
}
#endif

static void test_dat(void)
{
    char path[1024], want[2048];
    snprintf(path, sizeof path, "%s/nc1e9.dat", tmpdir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("3\n1000000000\n1\n3000000000\n3000000000\n", f);
    fclose(f);
    /* 1e9 contacts are 3e9 rows: more than an int holds */
    snprintf(want, sizeof want, "mo_fc_read: '%s': the number of contacts 1000000000 is out of range (must be >= 1)",
             path);
    expect_bounded(path, MO_ERR_IO, want);
    f = fopen(path, "w");
    if (!f) return;
    fputs("3\n100000000\n1\n300000000\n300000000\n1 1 1\n300000000\n300000000\n2 0\n0 \n", f);
    fclose(f);
    snprintf(want, sizeof want,
             "mo_fc_read: '%s': the header declares 100000000 contacts but the 56 bytes after it hold at most 28 "
             "numbers (4 per contact)",
             path);
    expect_bounded(path, MO_ERR_IO, want);
}

int main(void)
{
    if (test_tmpdir_make(tmpdir, sizeof tmpdir, "moreau_fcbounds")) return 1;
    if (!bounded_capped()) printf("AddressSanitizer: the 1 GiB address-space cap is not applied\n");
#ifdef MO_HAVE_FCLIB
    check_group_begin();
    test_h5();
    check_group_end("HDF5 sizes", 12, 3);
    check_group_begin();
    {
        const char *path = MO_SOURCE_ROOT "/fuzz/regressions/fclib/fclib_hdf5_heap_segv.h5";
        char want[1024];
        snprintf(want, sizeof want,
                 "mo_fc_read: '%s': the HDF5 library crashed reading it (signal 11 in a child process): the file is "
                 "damaged",
                 path);
        expect_bounded(path, MO_ERR_IO, want);
    }
    check_group_end("HDF5 damaged", 12, 3);
#endif
    check_group_begin();
    test_dat();
    check_group_end(".dat sizes", 12, 3);
    test_tmpdir_remove(tmpdir);
    return check_groups_result();
}
