/* assemble.c: stage 3. Every constraint becomes rows (joints: their
 * bilateral, limit and motor rows; contacts: normal + two tangents as one
 * cone block). Row counts are known up front, so row offsets come from a prefix
 * sum and each constraint fills its rows independently; then each row becomes
 * one CSR row of J and of W = rows of M^-1 J^T (kernels/rows.h), and gets its
 * compliance Sigma_ii and right-hand side b_i (SPOOK, kernels/rows.h) and the
 * diagonal N_ii = J_i . W_i + Sigma_ii. */
#include <math.h>
#include <string.h>
#include "step/step.h"
#include "core/parallel.h"

#define RESERVE(buf, n, T) mo_buf_reserve(&(buf), (size_t)((n) + 1) * sizeof(T))

/* inverse of a small symmetric positive semidefinite matrix by Gauss-Jordan
 * with partial pivoting; a singular block (redundant rows) is regularised by
 * 1e-10 of its largest diagonal and inverted again */
static void dense_inverse(const double *a_in, int n, double *inv)
{
    double dmax = 0.0;
    for (int i = 0; i < n; i++)
        if (a_in[i * n + i] > dmax) dmax = a_in[i * n + i];
    for (int attempt = 0; attempt < 2; attempt++) {
        double a[MO_MAX_BLOCK * MO_MAX_BLOCK];
        memcpy(a, a_in, (size_t)(n * n) * sizeof(double));
        if (attempt) for (int i = 0; i < n; i++) a[i * n + i] += 1e-10 * dmax + 1e-300;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) inv[i * n + j] = i == j ? 1.0 : 0.0;
        int ok = 1;
        for (int c = 0; c < n && ok; c++) {
            int piv = c;
            for (int r = c + 1; r < n; r++)
                if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
            if (!(fabs(a[piv * n + c]) > 1e-13 * dmax)) { ok = 0; break; }
            if (piv != c)
                for (int j = 0; j < n; j++) {
                    double t = a[c * n + j]; a[c * n + j] = a[piv * n + j]; a[piv * n + j] = t;
                    t = inv[c * n + j]; inv[c * n + j] = inv[piv * n + j]; inv[piv * n + j] = t;
                }
            double d = 1.0 / a[c * n + c];
            for (int j = 0; j < n; j++) { a[c * n + j] *= d; inv[c * n + j] *= d; }
            for (int r = 0; r < n; r++) {
                if (r == c) continue;
                double f = a[r * n + c];
                if (f == 0.0) continue;
                for (int j = 0; j < n; j++) { a[r * n + j] -= f * a[c * n + j]; inv[r * n + j] -= f * inv[c * n + j]; }
            }
        }
        if (ok) return;
    }
}

/* largest eigenvalue of a symmetric 3x3 matrix (closed form, Smith 1961) */
static double sym3_max_eigenvalue(const double *a)
{
    double p1 = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    double q = (a[0] + a[4] + a[8]) / 3.0;
    if (p1 <= 1e-30 * (q * q + 1e-300)) {
        double m = a[0] > a[4] ? a[0] : a[4];
        return m > a[8] ? m : a[8];
    }
    double p2 = (a[0] - q) * (a[0] - q) + (a[4] - q) * (a[4] - q) + (a[8] - q) * (a[8] - q) + 2.0 * p1;
    double pp = sqrt(p2 / 6.0), b[9];
    for (int i = 0; i < 9; i++) b[i] = (a[i] - (i % 4 == 0 ? q : 0.0)) / pp;
    double r = mo_m3_det(b) / 2.0;
    r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
    return q + 2.0 * pp * cos(acos(r) / 3.0);
}

/* contact rows: normal (unilateral) then t1, t2 (tangent) */
static void contact_rows(const mo_world *w, const mo_contact_int *c, mo_k_row *rows, mo_row_aux *aux)
{
    int oa = c->body_a >= 0 ? w->bodies[c->body_a].owner : -1;
    int ob = c->particle >= 0 ? w->particles[c->particle].owner : (c->body_b >= 0 ? w->bodies[c->body_b].owner : -1);
    double ra[3] = {0, 0, 0}, rb[3] = {0, 0, 0};
    if (c->body_a >= 0) mo_v3_sub(ra, c->pa, w->bodies[c->body_a].k.x);
    if (c->particle < 0 && c->body_b >= 0) mo_v3_sub(rb, c->pb, w->bodies[c->body_b].k.x);
    const double *dirs[3] = {c->n, c->t1, c->t2};
    for (int k = 0; k < 3; k++) {
        mo_k_row *r = &rows[k];
        mo_k_point_row(r, dirs[k], ra, rb);
        r->owner_a = oa;
        r->owner_b = ob;
        aux[k].mode = k == 0 ? MO_ROW_UNILATERAL : MO_ROW_TANGENT;
        aux[k].g = k == 0 ? c->gap : 0.0;
        aux[k].eps = k == 0 ? w->def.contact_compliance : 0.0;
        aux[k].bconst = 0.0;
        /* kinematic sides' known velocity */
        double s = 0.0;
        /* (a link body's velocity is the articulation's dofs': artic_rows.c) */
        if (c->body_a >= 0 && oa < 0 && !w->bodies[c->body_a].artic)
            s += mo_v3_dot(r->ja, w->bodies[c->body_a].k.v) + mo_v3_dot(r->ja + 3, w->bodies[c->body_a].k.w);
        if (c->particle < 0 && c->body_b >= 0 && ob < 0 && !w->bodies[c->body_b].artic)
            s += mo_v3_dot(r->jb, w->bodies[c->body_b].k.v) + mo_v3_dot(r->jb + 3, w->bodies[c->body_b].k.w);
        aux[k].jv_kin = s;
    }
}

int mo_step_assemble(const mo_step_ctx *ctx, mo_problem *p)
{
    mo_world *w = ctx->w;
    const double h = ctx->h;
    const int nt = w->def.threads;
    /* row and block counts */
    int m = 0, nblocks = 0, njl = 0;
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        if (mo_joint_asleep(w, j)) { /* no rows; nrows and the impulses kept for the warm start after waking */
            j->row0 = m;
            continue;
        }
        int r = mo_joint_row_count(j);
        if (r != j->nrows) memset(j->impulse, 0, sizeof j->impulse);
        j->row0 = m;
        j->nrows = r;
        m += r;
        nblocks += r; /* upper bound: blocks are counted again below */
        njl++;
    }
    /* the articulations' limit and friction rows follow the joints' (artic_rows.c) */
    const int ma0 = m, nar = mo_artic_limit_rows(w, m);
    m += nar;
    nblocks += nar;
    int mj = m;
    int nc = w->ncontacts;
    m += 3 * nc;
    nblocks += nc;
    if (RESERVE(w->rows, m, mo_k_row) || RESERVE(w->row_aux, m, mo_row_aux) || RESERVE(w->row_sigma, m, double) ||
        RESERVE(w->row_b, m, double) || RESERVE(w->row_lo, m, double) || RESERVE(w->row_hi, m, double) ||
        RESERVE(w->row_diag, m, double) || RESERVE(w->gamma, m, double) || RESERVE(w->row_ptr, m + 1, int) ||
        RESERVE(w->block_row, nblocks + 1, int) || RESERVE(w->block_kind, nblocks, uint8_t) ||
        RESERVE(w->block_mu, nblocks, double) || RESERVE(w->row_g, m, uint8_t))
        return -1;
    mo_k_row *rows = (mo_k_row *)w->rows.p;
    mo_row_aux *aux = (mo_row_aux *)w->row_aux.p;
    double *sigma = (double *)w->row_sigma.p, *b = (double *)w->row_b.p, *lo = (double *)w->row_lo.p,
           *hi = (double *)w->row_hi.p, *diag = (double *)w->row_diag.p, *gamma = (double *)w->gamma.p;
    int *row_ptr = (int *)w->row_ptr.p, *block_row = (int *)w->block_row.p;
    uint8_t *block_kind = (uint8_t *)w->block_kind.p, *row_kind = (uint8_t *)w->row_g.p;
    double *block_mu = (double *)w->block_mu.p;
    bool warm = w->def.solver.warm_start;

    /* joint rows (each joint writes its own range) */
    MO_PARALLEL_LOOP(nt, w->joint_count, for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive || mo_joint_asleep(w, j)) continue;
        mo_joint_fill_rows(w, j, h, rows + j->row0, aux + j->row0, row_kind + j->row0, lo + j->row0, hi + j->row0);
        for (int k = 0; k < j->nrows; k++) gamma[j->row0 + k] = warm ? j->impulse[k] : 0.0;
    });
    if (nar) mo_artic_limit_fill(w, h, warm, rows, aux, row_kind, lo, hi, gamma);
    /* contact rows */
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    MO_PARALLEL_LOOP(nt, nc, for (int c = 0; c < nc; c++) {
        int r0 = mj + 3 * c;
        contact_rows(w, &ct[c], rows + r0, aux + r0);
        for (int k = 0; k < 3; k++) {
            lo[r0 + k] = -INFINITY;
            hi[r0 + k] = INFINITY;
            gamma[r0 + k] = ct[c].impulse[k];
        }
    });
    /* blocks: a joint's bilateral rows form one group block (solved exactly with
     * a dense N^-1 inside the sweeps: block Gauss-Seidel), every limit and motor
     * row is a block of its own, every contact a cone block of 3 rows */
    nblocks = 0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive || mo_joint_asleep(w, j)) continue;
        int nb = 0;
        while (nb < j->nrows && nb < MO_MAX_BLOCK && row_kind[j->row0 + nb] == MO_BLOCK_BILATERAL) nb++;
        int r = j->row0;
        if (nb > 0) {
            block_row[nblocks] = r;
            block_kind[nblocks] = MO_BLOCK_BILATERAL;
            block_mu[nblocks++] = 0.0;
            r += nb;
        }
        for (; r < j->row0 + j->nrows; r++) {
            block_row[nblocks] = r;
            block_kind[nblocks] = row_kind[r];
            block_mu[nblocks++] = 0.0;
        }
    }
    for (int r = ma0; r < mj; r++) {
        block_row[nblocks] = r;
        block_kind[nblocks] = row_kind[r];
        block_mu[nblocks++] = 0.0;
    }
    for (int c = 0; c < nc; c++) {
        block_row[nblocks] = mj + 3 * c;
        block_kind[nblocks] = MO_BLOCK_CONTACT;
        block_mu[nblocks++] = ct[c].mu;
    }
    block_row[nblocks] = m;

    /* owners that some row touches: their rotation follows the solver's w+
     * alone (integrate.c) */
    if (RESERVE(w->owner_constrained, w->nowners, uint8_t)) return -1;
    uint8_t *ocon = (uint8_t *)w->owner_constrained.p;
    memset(ocon, 0, (size_t)w->nowners);
    for (int r = 0; r < m; r++) {
        if (rows[r].owner_a >= 0) ocon[rows[r].owner_a] = 1;
        if (rows[r].owner_b >= 0) ocon[rows[r].owner_b] = 1;
    }

    /* CSR pattern by prefix sum */
    const int *odof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    /* contacts of link bodies: their rows' articulation columns (artic_rows.c) */
    bool links = false;
    for (int i = 0; i < w->artic_count && !links; i++) links = w->artics[i].alive && w->artics[i].nlink_bodies > 0;
    int *extra = NULL, nac = 0; /* per row: the articulation columns */
    if (links || nar) {
        if (RESERVE(w->row_artic, m, int)) return -1;
        extra = (int *)w->row_artic.p;
        memset(extra, 0, (size_t)m * sizeof(int));
        for (int i = 0; i < w->artic_count; i++)
            for (int r = 0; r < (w->artics[i].alive ? w->artics[i].nrows : 0); r++)
                extra[w->artics[i].row0 + r] = w->artics[i].m->nv;
    }
    if (links) {
        for (int c = 0; c < nc; c++) {
            int e = mo_artic_contact_extra(w, &ct[c]);
            extra[mj + 3 * c] = extra[mj + 3 * c + 1] = extra[mj + 3 * c + 2] = e;
            nac += e > 0;
        }
    }
    w->artic_contacts = nac;
    w->artic_limit_rows = nar;
    row_ptr[0] = 0;
    for (int r = 0; r < m; r++) row_ptr[r + 1] = row_ptr[r] + mo_k_row_nnz(&rows[r], ond) + (extra ? extra[r] : 0);
    int nnz = row_ptr[m];
    if (RESERVE(w->col, nnz, int) || RESERVE(w->val, nnz, double) || RESERVE(w->wval, nnz, double)) return -1;
    int *col = (int *)w->col.p;
    double *val = (double *)w->val.p, *wval = (double *)w->wval.p;
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    const double *vs = (const double *)w->v_start.p;
    double d = w->def.damping_steps, push = w->def.max_push_velocity;
    MO_PARALLEL_LOOP(nt, m, for (int r = 0; r < m; r++) {
        mo_k_fill_row(&rows[r], row_ptr[r], odof, ond, oim, oiI, col, val, wval);
        double jv = mo_k_row_dot(&rows[r], odof, ond, vs) + aux[r].jv_kin;
        mo_k_row_rhs(&aux[r], jv, h, d, push, &sigma[r], &b[r]);
        double s = 0.0; /* the ordinary columns (articulation columns are filled, and these redone, below) */
        for (int k = row_ptr[r], e = row_ptr[r] + mo_k_row_nnz(&rows[r], ond); k < e; k++) s += val[k] * wval[k];
        diag[r] = s + sigma[r];
    });
    if (nac) {
        if (mo_buf_reserve(&w->artic_scratch, (size_t)mo_artic_rows_scratch(w) * sizeof(double))) return -1;
        double *scr = (double *)w->artic_scratch.p;
        for (int c = 0; c < nc; c++) {
            const int r0 = mj + 3 * c;
            if (!extra[r0]) continue;
            int start[3];
            for (int k = 0; k < 3; k++) start[k] = row_ptr[r0 + k] + mo_k_row_nnz(&rows[r0 + k], ond);
            mo_artic_contact_fill(w, &ct[c], rows + r0, start, col, val, wval, scr);
            /* the right-hand side and diagonal again, with the articulation columns */
            for (int r = r0; r < r0 + 3; r++) {
                double jv = mo_k_row_dot(&rows[r], odof, ond, vs) + aux[r].jv_kin, s = 0.0;
                for (int k = start[r - r0]; k < row_ptr[r + 1]; k++) jv += val[k] * vs[col[k]];
                mo_k_row_rhs(&aux[r], jv, h, d, push, &sigma[r], &b[r]);
                for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) s += val[k] * wval[k];
                diag[r] = s + sigma[r];
            }
        }
    }
    if (nar) { /* limit and friction rows: their columns, right-hand sides and diagonals */
        mo_artic_limit_csr(w, row_ptr, col, val, wval);
        for (int r = ma0; r < mj; r++) {
            double jv = 0.0, s = 0.0;
            for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
                jv += val[k] * vs[col[k]];
                s += val[k] * wval[k];
            }
            mo_k_row_rhs(&aux[r], jv, h, d, push, &sigma[r], &b[r]);
            diag[r] = s + sigma[r];
        }
    }

    /* dense inverses of the bilateral groups' N blocks */
    if (RESERVE(w->block_inv, nblocks, int)) return -1;
    int *binv = (int *)w->block_inv.p, ninv = 0;
    for (int k = 0; k < nblocks; k++) {
        int nr = block_row[k + 1] - block_row[k];
        binv[k] = (block_kind[k] == MO_BLOCK_BILATERAL && nr > 1) ? ninv : -1;
        if (binv[k] >= 0) ninv += nr * nr;
    }
    if (RESERVE(w->inv, ninv, double)) return -1;
    double *inv = (double *)w->inv.p;
    MO_PARALLEL_LOOP(nt, nblocks, for (int k = 0; k < nblocks; k++) {
        if (binv[k] < 0) continue;
        int r0 = block_row[k], nr = block_row[k + 1] - r0;
        double a[MO_MAX_BLOCK * MO_MAX_BLOCK];
        /* rows of one joint share their owners, hence their column pattern */
        for (int i = 0; i < nr; i++)
            for (int jj = 0; jj < nr; jj++) {
                int pi = row_ptr[r0 + i], pj = row_ptr[r0 + jj], len = row_ptr[r0 + i + 1] - pi;
                double sum = i == jj ? sigma[r0 + i] : 0.0;
                for (int q = 0; q < len; q++) sum += val[pi + q] * wval[pj + q];
                a[i * nr + jj] = sum;
            }
        dense_inverse(a, nr, inv + binv[k]);
    });

    /* contact blocks' step scale: the largest eigenvalue of the 3x3 N block */
    if (RESERVE(w->block_eta, nblocks, double)) return -1;
    double *eta = (double *)w->block_eta.p;
    MO_PARALLEL_LOOP(nt, nblocks, for (int k = 0; k < nblocks; k++) {
        eta[k] = 0.0;
        if (block_kind[k] != MO_BLOCK_CONTACT) continue;
        int r0 = block_row[k], len = row_ptr[r0 + 1] - row_ptr[r0];
        double a[9];
        for (int i = 0; i < 3; i++) {
            a[4 * i] = diag[r0 + i];
            for (int jj = i + 1; jj < 3; jj++) { /* N is symmetric: J_i . W_j = J_j . W_i */
                const double *ji = val + row_ptr[r0 + i], *wj = wval + row_ptr[r0 + jj];
                double sum = 0.0;
                for (int q = 0; q < len; q++) sum += ji[q] * wj[q];
                a[3 * i + jj] = a[3 * jj + i] = sum;
            }
        }
        eta[k] = sym3_max_eigenvalue(a);
    });

    /* r = J v~ + b (u = N gamma + r), and its norm over contact rows for the Coulomb error */
    const double *vt = (const double *)w->v_tilde.p;
    if (mo_buf_reserve(&w->row_r, ((size_t)m + 1) * sizeof(double))) return -1;
    double *rr = (double *)w->row_r.p;
    double qn = 0.0, hnorm = 0.0;
    for (int r = 0; r < m; r++) {
        double s = b[r], ha = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
            s += val[k] * vt[col[k]];
            ha += fabs(val[k]);
        }
        rr[r] = s;
        if (r >= mj) qn += s * s;
        if (ha > hnorm) hnorm = ha;
    }
    /* APGD's Acary rho |M|_1 / |H|_1 with H = J^T: |H|_1 is J's largest row
     * sum; |M|_1 the largest column sum of the mass matrix (m, or a column of
     * the world inertia tensor) */
    double mnorm = 0.0;
    {
        const int *ondof = (const int *)w->owner_ndof.p;
        const double *im = (const double *)w->owner_inv_mass.p, *iI = (const double *)w->owner_inv_I.p;
        for (int o = 0; o < w->nowners; o++) {
            if (im[o] > 0.0 && 1.0 / im[o] > mnorm) mnorm = 1.0 / im[o];
            if (ondof[o] == 6) {
                double I[9];
                if (mo_m3_inverse(I, iI + 9 * o))
                    for (int c = 0; c < 3; c++) {
                        double cs = fabs(I[c]) + fabs(I[3 + c]) + fabs(I[6 + c]);
                        if (cs > mnorm) mnorm = cs;
                    }
            }
        }
    }

    memset(p, 0, sizeof *p);
    p->n = w->stats.dofs;
    p->m = m;
    p->row_ptr = row_ptr;
    p->col = col;
    p->val = val;
    p->wval = wval;
    p->sigma = sigma;
    p->b = b;
    p->lo = lo;
    p->hi = hi;
    p->diag = diag;
    p->nblocks = nblocks;
    p->block_row = block_row;
    p->block_kind = block_kind;
    p->block_mu = block_mu;
    p->block_inv = binv;
    p->block_eta = eta;
    p->inv = inv;
    p->v_tilde = vt;
    p->q_contact_norm = sqrt(qn);
    p->threads = nt;
    p->r = rr;
    p->acary_rho = hnorm > 0.0 ? mnorm / hnorm : 0.0;
    w->stats.rows = m;
    w->rows_assembled = m; /* the Newton step may add FEM rows to stats.rows, not to these buffers */
    w->stats.nonzeros = nnz;
    (void)njl;
    return 0;
}
