/* gen_fclib_hdf5.c: writes two FCLIB HDF5 inputs for fuzz_fclib.
 *
 *   fuzz_gen_fclib_hdf5 SEED.hdf5 BOMB.hdf5
 *
 * SEED: a local problem of 2 contacts (W 6x6 CSR, q, mu) written by
 * mo_fc_write: a small HDF5 seed (fuzz/corpus/fclib/two_contacts.hdf5).
 * BOMB: the same file with /fclib_local/W/n (W's column count) set to
 * 1 000 000 000 (issue
 * 18: "a 128 KB FCLIB HDF5 file whose matrix size says 1e9 makes the reader
 * allocate 3.9 GB"): fuzz/pending/fclib/w_size_1e9.hdf5, which the replay runs
 * once the reader checks sizes against the datasets (fuzz/pending/README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <moreau/fclib.h>

static int *ints(int n, const int *v)
{
    int *a = malloc((size_t)n * sizeof *a);
    if (a) memcpy(a, v, (size_t)n * sizeof *a);
    return a;
}
static double *doubles(int n, const double *v)
{
    double *a = malloc((size_t)n * sizeof *a);
    if (a) memcpy(a, v, (size_t)n * sizeof *a);
    return a;
}

static int set_int(hid_t f, const char *name, int v)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) return -1;
    herr_t e = H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
    H5Dclose(d);
    return e < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SEED.hdf5 BOMB.hdf5\n", argv[0]);
        return 2;
    }
    /* W = 2 I + a coupling between the two normals */
    static const int ptr[7] = {0, 2, 3, 4, 6, 7, 8};
    static const int col[8] = {0, 3, 1, 2, 0, 3, 4, 5};
    static const double val[8] = {2, 0.5, 2, 2, 0.5, 2, 2, 2};
    static const double q[6] = {-1, 0.2, 0, 0.5, 0, -0.1};
    static const double mu[2] = {0.3, 0.8};
    mo_fc_problem p;
    memset(&p, 0, sizeof p);
    p.nc = 2;
    p.W.rows = p.W.cols = 6;
    p.W.nnz = 8;
    p.W.ptr = ints(7, ptr);
    p.W.col = ints(8, col);
    p.W.val = doubles(8, val);
    p.q = doubles(6, q);
    p.mu = doubles(2, mu);
    char err[256];
    for (int k = 1; k <= 2; k++) {
        if (mo_fc_write(argv[k], &p, err, sizeof err) != MO_OK) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    }
    mo_fc_free(&p);
    hid_t f = H5Fopen(argv[2], H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0 || set_int(f, "/fclib_local/W/n", 1000000000) != 0) {
        fprintf(stderr, "%s: cannot patch /fclib_local/W/n\n", argv[2]);
        return 1;
    }
    H5Fclose(f);
    return 0;
}
