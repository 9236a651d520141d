/* step_assemble.c: stage 3. Every constraint becomes rows (joints: their
 * bilateral, limit and motor rows; contacts: normal + two tangents as one
 * cone block). Row counts are known up front, so row offsets come from a prefix
 * sum and each constraint fills its rows independently; then each row becomes
 * one CSR row of J and of W = rows of M^-1 J^T (kernels/rows.h), and gets its
 * compliance Sigma_ii and right-hand side b_i (SPOOK, kernels/rows.h) and the
 * diagonal N_ii = J_i . W_i + Sigma_ii. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "parallel.h"

#define RESERVE(buf, n, T) mo_buf_reserve(&(buf), (size_t)((n) + 1) * sizeof(T))

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
        if (c->body_a >= 0 && oa < 0)
            s += mo_v3_dot(r->ja, w->bodies[c->body_a].k.v) + mo_v3_dot(r->ja + 3, w->bodies[c->body_a].k.w);
        if (c->particle < 0 && c->body_b >= 0 && ob < 0)
            s += mo_v3_dot(r->jb, w->bodies[c->body_b].k.v) + mo_v3_dot(r->jb + 3, w->bodies[c->body_b].k.w);
        aux[k].jv_kin = s;
    }
}

int mo_step_assemble(mo_world *w, mo_problem *p)
{
    const int nt = w->def.threads;
    /* row and block counts */
    int m = 0, nblocks = 0, njl = 0;
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        int r = mo_joint_row_count(j);
        if (r != j->nrows) memset(j->impulse, 0, sizeof j->impulse);
        j->row0 = m;
        j->nrows = r;
        m += r;
        nblocks += r; /* one block per joint row */
        njl++;
    }
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
    MO_PARALLEL_FOR(nt)
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        mo_joint_fill_rows(w, j, rows + j->row0, aux + j->row0, row_kind + j->row0, lo + j->row0, hi + j->row0);
        for (int k = 0; k < j->nrows; k++) gamma[j->row0 + k] = warm ? j->impulse[k] : 0.0;
    }
    /* contact rows */
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    MO_PARALLEL_FOR(nt)
    for (int c = 0; c < nc; c++) {
        int r0 = mj + 3 * c;
        contact_rows(w, &ct[c], rows + r0, aux + r0);
        for (int k = 0; k < 3; k++) {
            lo[r0 + k] = -INFINITY;
            hi[r0 + k] = INFINITY;
            gamma[r0 + k] = ct[c].impulse[k];
        }
    }
    /* blocks */
    for (int r = 0; r < mj; r++) {
        block_row[r] = r;
        block_kind[r] = row_kind[r];
        block_mu[r] = 0.0;
    }
    for (int c = 0; c < nc; c++) {
        block_row[mj + c] = mj + 3 * c;
        block_kind[mj + c] = MO_BLOCK_CONTACT;
        block_mu[mj + c] = ct[c].mu;
    }
    block_row[nblocks] = m;

    /* CSR pattern by prefix sum */
    const int *odof = (const int *)w->owner_dof.p, *ond = (const int *)w->owner_ndof.p;
    row_ptr[0] = 0;
    for (int r = 0; r < m; r++) row_ptr[r + 1] = row_ptr[r] + mo_k_row_nnz(&rows[r], ond);
    int nnz = row_ptr[m];
    if (RESERVE(w->col, nnz, int) || RESERVE(w->val, nnz, double) || RESERVE(w->wval, nnz, double)) return -1;
    int *col = (int *)w->col.p;
    double *val = (double *)w->val.p, *wval = (double *)w->wval.p;
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    const double *vs = (const double *)w->v_start.p;
    double h = w->def.time_step, d = w->def.damping_steps, push = w->def.max_push_velocity;
    MO_PARALLEL_FOR(nt)
    for (int r = 0; r < m; r++) {
        mo_k_fill_row(&rows[r], row_ptr[r], odof, ond, oim, oiI, col, val, wval);
        double jv = mo_k_row_dot(&rows[r], odof, ond, vs) + aux[r].jv_kin;
        mo_k_row_rhs(&aux[r], jv, h, d, push, &sigma[r], &b[r]);
        double s = 0.0;
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) s += val[k] * wval[k];
        diag[r] = s + sigma[r];
    }

    /* |J v~ + b| over contact rows, for the Coulomb error */
    const double *vt = (const double *)w->v_tilde.p;
    double qn = 0.0;
    for (int r = mj; r < m; r++) {
        double s = b[r];
        for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) s += val[k] * vt[col[k]];
        qn += s * s;
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
    p->v_tilde = vt;
    p->q_contact_norm = sqrt(qn);
    p->threads = nt;
    w->stats.rows = m;
    w->stats.nonzeros = nnz;
    (void)njl;
    return 0;
}
