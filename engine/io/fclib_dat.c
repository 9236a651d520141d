/* fclib_dat.c: Siconos's text form of a frictional contact problem
 * (FrictionContactProblem ".dat", as frictionContact_newFromFile reads it;
 * layout in ../shared/data/fclib/MANIFEST.md):
 *
 *   dim nc
 *   storage n0 n1                    W as a NumericsMatrix, n0 = n1 = 3 nc
 *     0: n0 n1, then n0*n1 values column-major
 *     1: nbblocks nbrows nbcols, cumulative row sizes, cumulative column
 *        sizes, filled1 filled2, block-row pointers, block-column indices,
 *        then per block its number and its values column-major
 *   q (n1 values), mu (nc values)
 *
 * Tokens are separated by any whitespace. Anything after mu is ignored (some
 * Siconos files end with a flag). A dense W keeps its nonzeros only; a sparse
 * block W keeps every stored value, explicit zeros included; duplicate blocks
 * are summed. Every number is checked as it is read: the error names the
 * file, the line and the section ("header", "W header", "W block structure",
 * "W values", "q", "mu"). The writer always writes the sparse block form with
 * 3x3 blocks and %.17g, so every double reads back to the same bits. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/fclib_internal.h"

typedef struct dat_reader {
    const char *path;
    const char *p, *end; /* *end == '\0' */
    int line;
    const char *section;
    const char *tok; /* last token */
    size_t tok_len;
    char *err;
    size_t err_size;
} dat_reader;

/* the next token, or false at the end of the buffer */
static bool dat_next(dat_reader *r)
{
    const char *p = r->p;
    while (p < r->end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')) {
        if (*p == '\n') r->line++;
        p++;
    }
    if (p == r->end) {
        r->p = p;
        return false;
    }
    const char *s = p;
    while (p < r->end && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')) p++;
    r->tok = s;
    r->tok_len = (size_t)(p - s);
    r->p = p;
    return true;
}

/* at most this many more tokens fit in the rest of the buffer (each takes a
   character and a separator): bounds every allocation by the file's size */
static int64_t dat_room(const dat_reader *r)
{
    return ((int64_t)(r->end - r->p) + 1) / 2;
}

static void dat_truncated(dat_reader *r)
{
    mo_fc_set_err(r->err, r->err_size, "mo_fc_read: '%s' is truncated: it ends in section \"%s\"", r->path,
                  r->section);
}

/* the last token for a message: at most 40 characters, unprintable bytes as '?' */
static void dat_token_text(const dat_reader *r, char out[48])
{
    size_t n = r->tok_len > 40 ? 40 : r->tok_len;
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)r->tok[k];
        out[k] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
    }
    strcpy(out + n, r->tok_len > 40 ? "..." : "");
}

static void dat_not_number(dat_reader *r, const char *kind)
{
    char t[48];
    dat_token_text(r, t);
    mo_fc_set_err(r->err, r->err_size, "mo_fc_read: '%s' line %d: \"%s\" is not %s (section \"%s\")", r->path,
                  r->line, t, kind, r->section);
}

static bool dat_int(dat_reader *r, int *v)
{
    if (!dat_next(r)) {
        dat_truncated(r);
        return false;
    }
    char *e = NULL;
    errno = 0;
    long x = strtol(r->tok, &e, 10);
    if (e != r->tok + r->tok_len || errno == ERANGE || x < INT_MIN || x > INT_MAX) {
        dat_not_number(r, "an integer");
        return false;
    }
    *v = (int)x;
    return true;
}

static bool dat_double(dat_reader *r, double *v)
{
    if (!dat_next(r)) {
        dat_truncated(r);
        return false;
    }
    char *e = NULL;
    double x = strtod(r->tok, &e);
    if (e != r->tok + r->tok_len) {
        dat_not_number(r, "a number");
        return false;
    }
    if (!isfinite(x)) {
        char t[48];
        dat_token_text(r, t);
        mo_fc_set_err(r->err, r->err_size, "mo_fc_read: '%s' line %d: value \"%s\" is not finite (section \"%s\")",
                      r->path, r->line, t, r->section);
        return false;
    }
    *v = x;
    return true;
}

/* count ints into a new array, each checked by dat_int */
static bool dat_ints(dat_reader *r, int count, int **out)
{
    if (count > dat_room(r)) {
        dat_truncated(r);
        return false;
    }
    *out = malloc(((size_t)count + 1) * sizeof(int));
    if (!*out) {
        mo_fc_set_err(r->err, r->err_size, "mo_fc_read: out of memory reading '%s'", r->path);
        return false;
    }
    for (int k = 0; k < count; k++)
        if (!dat_int(r, &(*out)[k])) return false;
    return true;
}

static bool dat_increasing(dat_reader *r, const int *cum, int count, int total, const char *what)
{
    int prev = 0;
    for (int k = 0; k < count; k++) {
        if (cum[k] <= prev) {
            mo_fc_set_err(r->err, r->err_size,
                          "mo_fc_read: '%s': the cumulative %s sizes of W are not increasing at entry %d (section \"%s\")",
                          r->path, what, k, r->section);
            return false;
        }
        prev = cum[k];
    }
    if (prev != total) {
        mo_fc_set_err(r->err, r->err_size,
                      "mo_fc_read: '%s': the cumulative %s sizes of W end at %d, not at W's size %d (section \"%s\")",
                      r->path, what, prev, total, r->section);
        return false;
    }
    return true;
}

mo_status mo_fc_read_dat(const char *path, const char *buf, size_t len, mo_fc_problem *out, char *err,
                         size_t err_size)
{
    dat_reader rd = {.path = path, .p = buf, .end = buf + len, .line = 1, .section = "header", .err = err,
                     .err_size = err_size};
    dat_reader *r = &rd;
    mo_status st = MO_ERR_IO;
    int *rowcum = NULL, *colcum = NULL, *rowptr = NULL, *colidx = NULL, *ti = NULL, *tj = NULL;
    double *tv = NULL;
    size_t nt = 0;

    /* header */
    int dim, nc, storage, n0, n1;
    if (!dat_int(r, &dim) || !dat_int(r, &nc)) goto fail;
    if (dim != 3) {
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s': contact dimension %d is not supported (only 3D friction, dim 3)", path, dim);
        st = MO_ERR_UNSUPPORTED;
        goto fail;
    }
    if (nc < 1 || nc > INT_MAX / 3) {
        mo_fc_set_err(err, err_size, "mo_fc_read: '%s': the number of contacts %d is out of range (must be >= 1)", path,
                      nc);
        goto fail;
    }
    /* q and mu take 4 numbers a contact: a count beyond what the rest of the file
       can hold is refused here, before any size derived from it is used */
    if ((int64_t)nc > dat_room(r)) {
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s': the header declares %d contacts but the %lld bytes after it hold at most "
                      "%lld numbers (4 per contact)",
                      path, nc, (long long)(r->end - r->p), (long long)dat_room(r));
        goto fail;
    }
    const int n = 3 * nc;
    r->section = "W header";
    if (!dat_int(r, &storage)) goto fail;
    const int storage_line = r->line;
    if (!dat_int(r, &n0) || !dat_int(r, &n1)) goto fail;
    if (storage != 0 && storage != 1) {
        mo_fc_set_err(err, err_size,
                      "mo_fc_read: '%s' line %d: W storage type %d is not supported (0 dense, 1 sparse block)", path,
                      storage_line, storage);
        st = storage == 2 ? MO_ERR_UNSUPPORTED : MO_ERR_IO;
        goto fail;
    }
    if (n0 != n || n1 != n) {
        mo_fc_set_err(err, err_size, "mo_fc_read: '%s': W is %d x %d but %d contacts need %d x %d", path, n0, n1, nc,
                      n, n);
        goto fail;
    }

    if (storage == 0) {
        /* dense, column-major, the sizes written once more */
        int m0, m1;
        if (!dat_int(r, &m0) || !dat_int(r, &m1)) goto fail;
        if (m0 != n0 || m1 != n1) {
            mo_fc_set_err(err, err_size, "mo_fc_read: '%s': dense W sizes %d x %d repeated as %d x %d", path, n0, n1,
                          m0, m1);
            goto fail;
        }
        r->section = "W values";
        int64_t count = (int64_t)n * n;
        if (count > dat_room(r)) {
            dat_truncated(r);
            goto fail;
        }
        ti = malloc((size_t)count * sizeof(int));
        tj = malloc((size_t)count * sizeof(int));
        tv = malloc((size_t)count * sizeof(double));
        if (!ti || !tj || !tv) goto oom;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double x;
                if (!dat_double(r, &x)) goto fail;
                if (x != 0.0) {
                    ti[nt] = i;
                    tj[nt] = j;
                    tv[nt++] = x;
                }
            }
    } else {
        /* sparse block */
        r->section = "W block structure";
        int nbb, bn0, bn1, filled1, filled2;
        if (!dat_int(r, &nbb) || !dat_int(r, &bn0) || !dat_int(r, &bn1)) goto fail;
        if (nbb < 0 || bn0 < 1 || bn1 < 1 || bn0 > n || bn1 > n) {
            mo_fc_set_err(err, err_size,
                          "mo_fc_read: '%s' line %d: %d blocks in %d x %d block rows and columns is out of range for "
                          "a %d x %d W (section \"%s\")",
                          path, r->line, nbb, bn0, bn1, n, n, r->section);
            goto fail;
        }
        if (!dat_ints(r, bn0, &rowcum) || !dat_increasing(r, rowcum, bn0, n, "row")) goto fail;
        if (!dat_ints(r, bn1, &colcum) || !dat_increasing(r, colcum, bn1, n, "column")) goto fail;
        if (!dat_int(r, &filled1) || !dat_int(r, &filled2)) goto fail;
        if (filled1 != bn0 + 1 || filled2 != nbb) {
            mo_fc_set_err(err, err_size,
                          "mo_fc_read: '%s' line %d: filled sizes %d %d do not match %d block rows and %d blocks "
                          "(expected %d %d, section \"%s\")",
                          path, r->line, filled1, filled2, bn0, nbb, bn0 + 1, nbb, r->section);
            goto fail;
        }
        if (!dat_ints(r, filled1, &rowptr) || !dat_ints(r, filled2, &colidx)) goto fail;
        for (int b = 0; b < bn0; b++)
            if (rowptr[0] != 0 || rowptr[b + 1] < rowptr[b] || rowptr[bn0] != nbb) {
                mo_fc_set_err(err, err_size,
                              "mo_fc_read: '%s': W's block row pointers must rise from 0 to %d blocks (bad at block "
                              "row %d, section \"%s\")",
                              path, nbb, b, r->section);
                goto fail;
            }
        for (int b = 0; b < nbb; b++)
            if (colidx[b] < 0 || colidx[b] >= bn1) {
                mo_fc_set_err(err, err_size,
                              "mo_fc_read: '%s': W's block %d has block column %d, outside 0..%d (section \"%s\")",
                              path, b, colidx[b], bn1 - 1, r->section);
                goto fail;
            }
        /* every stored value and block number must still fit in the file */
        r->section = "W values";
        int64_t count = 0;
        for (int bi = 0; bi < bn0; bi++) {
            int nr = rowcum[bi] - (bi ? rowcum[bi - 1] : 0);
            for (int b = rowptr[bi]; b < rowptr[bi + 1]; b++) {
                int bc = colidx[b];
                count += (int64_t)nr * (colcum[bc] - (bc ? colcum[bc - 1] : 0));
            }
        }
        if (count + nbb > dat_room(r)) {
            dat_truncated(r);
            goto fail;
        }
        ti = malloc(((size_t)count + 1) * sizeof(int));
        tj = malloc(((size_t)count + 1) * sizeof(int));
        tv = malloc(((size_t)count + 1) * sizeof(double));
        if (!ti || !tj || !tv) goto oom;
        for (int bi = 0; bi < bn0; bi++) {
            int r0 = bi ? rowcum[bi - 1] : 0, nr = rowcum[bi] - r0;
            for (int b = rowptr[bi]; b < rowptr[bi + 1]; b++) {
                int bnum, bc = colidx[b], c0 = bc ? colcum[bc - 1] : 0, ncl = colcum[bc] - c0;
                if (!dat_int(r, &bnum)) goto fail;
                if (bnum != b) {
                    mo_fc_set_err(err, err_size,
                                  "mo_fc_read: '%s' line %d: block number %d where %d was expected (section \"%s\")",
                                  path, r->line, bnum, b, r->section);
                    goto fail;
                }
                for (int j = 0; j < ncl; j++)
                    for (int i = 0; i < nr; i++) {
                        if (!dat_double(r, &tv[nt])) goto fail;
                        ti[nt] = r0 + i;
                        tj[nt++] = c0 + j;
                    }
            }
        }
    }

    /* q and mu */
    r->section = "q";
    if (n > dat_room(r)) {
        dat_truncated(r);
        goto fail;
    }
    out->q = malloc((size_t)n * sizeof(double));
    out->mu = malloc((size_t)nc * sizeof(double));
    if (!out->q || !out->mu) goto oom;
    for (int i = 0; i < n; i++)
        if (!dat_double(r, &out->q[i])) goto fail;
    r->section = "mu";
    for (int i = 0; i < nc; i++)
        if (!dat_double(r, &out->mu[i])) goto fail;

    out->nc = nc;
    if (mo_csr_from_triplets(&out->W, n, n, nt, ti, tj, tv, false) != 0) goto oom;
    char what[64 + 4096];
    snprintf(what, sizeof what, "mo_fc_read: '%s'", path);
    st = mo_fc_check(out, MO_FC_CHECK_LOCAL, what, err, err_size);
    if (st != MO_OK) goto fail;
    free(rowcum), free(colcum), free(rowptr), free(colidx), free(ti), free(tj), free(tv);
    return MO_OK;

oom:
    mo_fc_set_err(err, err_size, "mo_fc_read: out of memory reading '%s'", path);
    st = MO_ERR_OUT_OF_MEMORY;
fail:
    free(rowcum), free(colcum), free(rowptr), free(colidx), free(ti), free(tj), free(tv);
    mo_fc_free(out);
    return st;
}

/* ---- writer ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

mo_status mo_fc_write_dat(const char *path, const mo_fc_problem *p, char *err, size_t err_size)
{
    if (!path || !p) {
        mo_fc_set_err(err, err_size, "mo_fc_write_dat: path and problem must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_status st = mo_fc_check(p, MO_FC_CHECK_LOCAL, "mo_fc_write_dat: the problem", err, err_size);
    if (st != MO_OK) return st;

    /* 3x3 blocks: per block row (contact) the sorted block columns holding a stored entry */
    const int nc = p->nc, n = 3 * nc;
    const mo_csr *W = &p->W;
    int *bptr = calloc((size_t)nc + 1, sizeof(int)), *mark = malloc((size_t)nc * sizeof(int));
    int *bcol = NULL;
    double *bval = NULL;
    FILE *f = NULL;
    if (!bptr || !mark) goto oom;
    for (int J = 0; J < nc; J++) mark[J] = -1;
    for (int I = 0; I < nc; I++) {
        int cnt = 0;
        for (int i = 3 * I; i < 3 * I + 3; i++)
            for (int k = W->ptr[i]; k < W->ptr[i + 1]; k++)
                if (mark[W->col[k] / 3] != I) mark[W->col[k] / 3] = I, cnt++;
        bptr[I + 1] = bptr[I] + cnt;
    }
    const int nbb = bptr[nc];
    bcol = malloc(((size_t)nbb + 1) * sizeof(int));
    bval = calloc((size_t)nbb * 9 + 1, sizeof(double));
    if (!bcol || !bval) goto oom;
    for (int J = 0; J < nc; J++) mark[J] = -1;
    for (int I = 0; I < nc; I++) {
        int cnt = bptr[I];
        for (int i = 3 * I; i < 3 * I + 3; i++)
            for (int k = W->ptr[i]; k < W->ptr[i + 1]; k++)
                if (mark[W->col[k] / 3] != I) mark[W->col[k] / 3] = I, bcol[cnt++] = W->col[k] / 3;
        qsort(bcol + bptr[I], (size_t)(cnt - bptr[I]), sizeof(int), cmp_int);
        for (int b = bptr[I]; b < cnt; b++) mark[bcol[b]] = b; /* block number of column J in this row */
        for (int i = 3 * I; i < 3 * I + 3; i++)
            for (int k = W->ptr[i]; k < W->ptr[i + 1]; k++) {
                int b = mark[W->col[k] / 3];
                bval[9 * b + 3 * (W->col[k] % 3) + (i - 3 * I)] = W->val[k]; /* column-major */
            }
        for (int b = bptr[I]; b < cnt; b++) mark[bcol[b]] = -1;
    }

    f = fopen(path, "w");
    if (!f) {
        mo_fc_set_err(err, err_size, "mo_fc_write_dat: cannot create '%s': %s", path, strerror(errno));
        st = MO_ERR_IO;
        goto done;
    }
    fprintf(f, "3\n%d\n1\n%d\n%d\n%d\n%d\n%d\n", nc, n, n, nbb, nc, nc);
    for (int pass = 0; pass < 2; pass++) {
        for (int I = 0; I < nc; I++) fprintf(f, "%d\t", 3 * I + 3);
        fputc('\n', f);
    }
    fprintf(f, "%d\n%d\n", nc + 1, nbb);
    for (int I = 0; I <= nc; I++) fprintf(f, "%d\t", bptr[I]);
    fputc('\n', f);
    for (int b = 0; b < nbb; b++) fprintf(f, "%d\t", bcol[b]);
    fputc('\n', f);
    for (int b = 0; b < nbb; b++) {
        fprintf(f, "%d\n", b);
        for (int c = 0; c < 3; c++)
            fprintf(f, "%.17g %.17g %.17g\n", bval[9 * b + 3 * c], bval[9 * b + 3 * c + 1], bval[9 * b + 3 * c + 2]);
    }
    for (int i = 0; i < n; i++) fprintf(f, "%.17g\n", p->q[i]);
    for (int i = 0; i < nc; i++) fprintf(f, "%.17g\n", p->mu[i]);
    int bad = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !bad) bad = 1, saved = errno;
    f = NULL;
    if (bad) {
        mo_fc_set_err(err, err_size, "mo_fc_write_dat: writing '%s' failed: %s", path, strerror(saved));
        st = MO_ERR_IO;
        goto done;
    }
    st = MO_OK;
    goto done;

oom:
    mo_fc_set_err(err, err_size, "mo_fc_write_dat: out of memory for %d contacts", nc);
    st = MO_ERR_OUT_OF_MEMORY;
done:
    free(bptr), free(mark), free(bcol), free(bval);
    return st;
}
