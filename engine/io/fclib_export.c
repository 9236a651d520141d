/* fclib_export.c: the contact problem of the world's last step as an FCLIB
 * problem (mo_world_contact_problem), so any step of any scene can be solved
 * by outside solvers or kept as a test case.
 *
 * Rows of the last step: joint rows first, then three per contact (normal,
 * t1, t2), the FCLIB order. Joint rows are eliminated at the impulses this
 * step's solve gave them: with v' = v~ + M^-1 J_j^T gamma_j,
 *   local:  W = J_c M^-1 J_c^T + Sigma_c,  q = J_c v' + b_c
 *   global: M (block diagonal: m I3 and the world inertia tensor per body,
 *           m I3 per particle), H = J_c^T, f = M v', w = b_c
 *           (written only when every contact compliance is 0: the global
 *           form has no place for Sigma).
 * b_c holds the SPOOK stabilisation terms, so q is exactly the engine's r. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"
#include "moreau/fclib.h"

static int csr_alloc(mo_csr *a, int rows, int cols, int nnz)
{
    a->rows = rows;
    a->cols = cols;
    a->nnz = nnz;
    a->ptr = calloc((size_t)rows + 1, sizeof(int));
    a->col = malloc(((size_t)nnz + 1) * sizeof(int));
    a->val = malloc(((size_t)nnz + 1) * sizeof(double));
    return a->ptr && a->col && a->val ? 0 : -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

mo_status mo_world_contact_problem(mo_world *w, mo_fc_problem *out)
{
    if (!w) return MO_ERR_INVALID_ARGUMENT;
    if (!out) {
        mo_set_error(w, "mo_world_contact_problem: out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (w->step_index == 0) {
        mo_set_error(w, "mo_world_contact_problem: no step has been taken yet");
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int m = w->stats.rows, nc = w->ncontacts, n = w->stats.dofs, mj = m - 3 * nc, mc = 3 * nc;
    const int *row_ptr = (const int *)w->row_ptr.p, *col = (const int *)w->col.p;
    const double *val = (const double *)w->val.p, *wval = (const double *)w->wval.p;
    const double *sigma = (const double *)w->row_sigma.p, *b = (const double *)w->row_b.p;
    const double *vt = (const double *)w->v_tilde.p, *gamma = (const double *)w->gamma.p;
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    mo_status st = MO_ERR_OUT_OF_MEMORY;

    double *vp = malloc(((size_t)n + 1) * sizeof(double));
    int *cstart = calloc((size_t)n + 2, sizeof(int)), *crow = NULL, *mark = NULL, *list = NULL;
    if (!vp || !cstart) goto fail;
    memcpy(vp, vt, (size_t)n * sizeof(double));
    for (int r = 0; r < mj; r++)
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) vp[col[k]] += wval[k] * gamma[r];

    out->nc = nc;
    out->q = malloc(((size_t)mc + 1) * sizeof(double));
    out->mu = malloc(((size_t)nc + 1) * sizeof(double));
    if (!out->q || !out->mu) goto fail;
    for (int c = 0; c < nc; c++) out->mu[c] = ct[c].mu;
    bool compliant = false;
    for (int i = 0; i < mc; i++) {
        int r = mj + i;
        double s = b[r];
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) s += val[k] * vp[col[k]];
        out->q[i] = s;
        if (sigma[r] != 0.0) compliant = true;
    }

    /* contact rows touching each DOF (CSC of J_c), then W row by row */
    for (int i = 0; i < mc; i++)
        for (int k = row_ptr[mj + i]; k < row_ptr[mj + i + 1]; k++) cstart[col[k] + 1]++;
    for (int j = 0; j < n; j++) cstart[j + 1] += cstart[j];
    int cnnz = cstart[n];
    crow = malloc(((size_t)cnnz + 1) * sizeof(int));
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!crow || !fill) {
        free(fill);
        goto fail;
    }
    for (int i = 0; i < mc; i++)
        for (int k = row_ptr[mj + i]; k < row_ptr[mj + i + 1]; k++) {
            int j = col[k];
            crow[cstart[j] + fill[j]++] = i;
        }
    free(fill);
    mark = malloc(((size_t)mc + 1) * sizeof(int));
    list = malloc(((size_t)mc + 1) * sizeof(int));
    if (!mark || !list) goto fail;
    for (int i = 0; i < mc; i++) mark[i] = -1;
    /* first pass counts, second fills */
    int wnnz = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && csr_alloc(&out->W, mc, mc, wnnz)) goto fail;
        int pos = 0;
        for (int i = 0; i < mc; i++) {
            int nl = 0;
            for (int k = row_ptr[mj + i]; k < row_ptr[mj + i + 1]; k++) {
                int j = col[k];
                for (int q = cstart[j]; q < cstart[j + 1]; q++) {
                    int i2 = crow[q];
                    if (mark[i2] != i) {
                        mark[i2] = i;
                        list[nl++] = i2;
                    }
                }
            }
            if (pass == 0) {
                wnnz += nl;
                for (int a = 0; a < nl; a++) mark[list[a]] = -1;
                continue;
            }
            qsort(list, (size_t)nl, sizeof(int), cmp_int);
            /* W_i,i2 = sum over shared columns of J_i * (M^-1 J^T)_i2 */
            for (int a = 0; a < nl; a++) {
                int i2 = list[a], r2 = mj + i2;
                double s = 0.0;
                int k1 = row_ptr[mj + i], e1 = row_ptr[mj + i + 1], k2 = row_ptr[r2], e2 = row_ptr[r2 + 1];
                /* at most 12 columns a row: compare them pairwise */
                for (int kk = k2; kk < e2; kk++)
                    for (int k = k1; k < e1; k++)
                        if (col[k] == col[kk]) s += val[k] * wval[kk];
                if (i2 == i) s += sigma[mj + i];
                out->W.col[pos] = i2;
                out->W.val[pos] = s;
                pos++;
            }
            out->W.ptr[i + 1] = pos;
            for (int a = 0; a < nl; a++) mark[list[a]] = -1;
        }
    }

    if (!compliant && n > 0 && !w->artic_contacts) {
        /* global form (the owners' mass blocks: an articulation's contact rows would need its joint-space M) */
        const int *odof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
        const double *im = (const double *)w->owner_inv_mass.p, *iI = (const double *)w->owner_inv_I.p;
        int mnnz = 0;
        for (int o = 0; o < w->nowners; o++) mnnz += ond[o] == 6 ? 12 : 3;
        out->ndof = n;
        if (csr_alloc(&out->M, n, n, mnnz)) goto fail;
        int pos = 0;
        for (int o = 0; o < w->nowners; o++) {
            int d0 = odof[o];
            double mass = im[o] > 0.0 ? 1.0 / im[o] : 0.0, I[9] = {0};
            if (ond[o] == 6 && !mo_m3_inverse(I, iI + 9 * o)) memset(I, 0, sizeof I);
            for (int i = 0; i < 3; i++) {
                out->M.col[pos] = d0 + i;
                out->M.val[pos++] = mass;
                out->M.ptr[d0 + i + 1] = pos;
            }
            if (ond[o] == 6)
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        out->M.col[pos] = d0 + 3 + j;
                        out->M.val[pos++] = I[3 * i + j];
                    }
                    out->M.ptr[d0 + 3 + i + 1] = pos;
                }
        }
        /* H = J_c^T: its rows are the DOFs, i.e. the CSC of J_c above */
        if (csr_alloc(&out->H, n, mc, cnnz)) goto fail;
        for (int j = 0; j < n; j++) {
            out->H.ptr[j + 1] = cstart[j + 1];
            for (int q = cstart[j]; q < cstart[j + 1]; q++) {
                int i = crow[q];
                out->H.col[q] = i;
                double s = 0.0;
                for (int k = row_ptr[mj + i]; k < row_ptr[mj + i + 1]; k++)
                    if (col[k] == j) s += val[k];
                out->H.val[q] = s;
            }
        }
        out->f = malloc(((size_t)n + 1) * sizeof(double));
        out->w = malloc(((size_t)mc + 1) * sizeof(double));
        if (!out->f || !out->w) goto fail;
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = out->M.ptr[j]; k < out->M.ptr[j + 1]; k++) s += out->M.val[k] * vp[out->M.col[k]];
            out->f[j] = s;
        }
        for (int i = 0; i < mc; i++) out->w[i] = b[mj + i];
    }
    const char *title = "Moreau step";
    out->title = malloc(strlen(title) + 1);
    if (out->title) strcpy(out->title, title);
    free(vp);
    free(cstart);
    free(crow);
    free(mark);
    free(list);
    return MO_OK;
fail:
    free(vp);
    free(cstart);
    free(crow);
    free(mark);
    free(list);
    mo_fc_free(out);
    mo_set_error(w, "mo_world_contact_problem: out of memory for %d contacts", nc);
    return st;
}
