/* fuzz_fclib.c: the FCLIB problem reader (mo_fc_read: Siconos .dat text and
 * FCLIB HDF5, told apart by content) on arbitrary bytes.
 *
 * The input is written as problem.dat (the reader looks at the HDF5 signature,
 * not the name). A problem that reads is written back as .dat, read again, and
 * solved briefly (PGS, 20 sweeps) when it has at most 64 contacts.
 *
 * Promises checked (fclib.h): a failure returns a status other than MO_OK,
 * zeroes *out and writes a sentence naming the file; a success gives nc >= 0,
 * W of 3nc x 3nc in CSR with ptr[0] == 0, non-decreasing row pointers ending
 * at nnz, sorted columns without duplicates, in range, finite values, finite q
 * and finite mu >= 0; the .dat it writes reads back to the same nc, q and mu
 * (bit for bit: %.17g) and, row by row, the same W values wherever the first
 * W stores one; mo_fc_solve accepts it (MO_OK). */
#include <math.h>

#include <moreau/fclib.h>

#include "fuzz_util.h"

static void check_csr(const mo_csr *a, int n)
{
    FUZZ_CHECK(a->rows == n && a->cols == n);
    FUZZ_CHECK(a->ptr != NULL);
    FUZZ_CHECK(a->ptr[0] == 0 && a->ptr[n] == a->nnz);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(a->ptr[i] <= a->ptr[i + 1]);
        for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            FUZZ_CHECK(a->col[k] >= 0 && a->col[k] < n);
            FUZZ_CHECK(k == a->ptr[i] || a->col[k - 1] < a->col[k]);
            FUZZ_CHECK(isfinite(a->val[k]));
        }
    }
}

/* W value at (i, j) of a CSR matrix, 0 when not stored */
static double csr_at(const mo_csr *a, int i, int j)
{
    for (int k = a->ptr[i]; k < a->ptr[i + 1]; k++)
        if (a->col[k] == j) return a->val[k];
    return 0.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_write("problem.dat", data, size, path, sizeof path);

    mo_fc_problem p;
    memset(&p, 0xab, sizeof p);
    char err[512];
    err[0] = '\0';
    mo_status st = mo_fc_read(path, &p, err, sizeof err);
    FUZZ_CHECK(st >= MO_OK && st <= MO_ERR_IO);
    if (st != MO_OK) {
        FUZZ_CHECK(p.nc == 0 && p.W.ptr == NULL && p.q == NULL && p.mu == NULL && p.ndof == 0);
        FUZZ_CHECK(err[0] != '\0' && strstr(err, "problem.dat") != NULL);
        return 0;
    }
    FUZZ_CHECK(p.nc >= 0);
    int n = 3 * p.nc;
    if (p.nc > 0) {
        check_csr(&p.W, n);
        for (int i = 0; i < n; i++) FUZZ_CHECK(isfinite(p.q[i]));
        for (int c = 0; c < p.nc; c++) FUZZ_CHECK(isfinite(p.mu[c]) && p.mu[c] >= 0);
    }

    if (p.nc > 0 && p.nc <= 2000) {
        char back[512];
        snprintf(back, sizeof back, "%s/roundtrip.dat", fuzz_dir());
        FUZZ_CHECK(mo_fc_write_dat(back, &p, err, sizeof err) == MO_OK);
        mo_fc_problem p2;
        FUZZ_CHECK(mo_fc_read(back, &p2, err, sizeof err) == MO_OK);
        FUZZ_CHECK(p2.nc == p.nc);
        FUZZ_CHECK(memcmp(p2.q, p.q, (size_t)n * sizeof *p.q) == 0);
        FUZZ_CHECK(memcmp(p2.mu, p.mu, (size_t)p.nc * sizeof *p.mu) == 0);
        check_csr(&p2.W, n);
        for (int i = 0; i < n; i++)
            for (int k = p.W.ptr[i]; k < p.W.ptr[i + 1]; k++) FUZZ_CHECK(csr_at(&p2.W, i, p.W.col[k]) == p.W.val[k]);
        mo_fc_free(&p2);
    }

    if (p.nc > 0 && p.nc <= 64) {
        mo_solver_settings s = mo_default_solver_settings();
        s.max_iterations = 20;
        double *r = calloc((size_t)n, sizeof *r);
        FUZZ_CHECK(r != NULL);
        mo_fc_result res;
        mo_status ss = mo_fc_solve(&p, &s, r, NULL, &res, NULL, NULL, err, sizeof err);
        FUZZ_CHECK(ss == MO_OK);
        (void)res;
        free(r);
    }
    mo_fc_free(&p);
    return 0;
}
