/* artic_rows.c: the contact rows of link bodies (assemble.c). A contact
 * whose side is a link body (mo_articulation_link_body) gets, after the columns
 * of its ordinary sides (none for a link body: it owns no dofs), the nv
 * columns of that side's articulation: J_art = Jp^T e_lin + Jw^T e_ang for the
 * side's 6-vector row part (e_lin, e_ang) (kernels/rows.h) and the Jacobian
 * (Jp, Jw) of the link body's origin, and W_art = (M + diag(a))^-1 J_art with
 * the factor the articulation's prediction left (artic_step.c). Both sides on
 * one articulation (self-contact) add into one block of columns; two
 * articulations give two blocks, in dof order. The block is dense over the
 * articulation's dofs, so that W keeps J's pattern (what every solver
 * assumes, solver/solver.h). */
#include <math.h>
#include <string.h>
#include "step/step.h"

/* the articulation slot + 1 of a contact side's link body, 0 when the side is no link body */
static int side_artic(const mo_world *w, const mo_contact_int *c, int side)
{
    int b = side == 0 ? c->body_a : (c->particle >= 0 ? -1 : c->body_b);
    return b >= 0 ? w->bodies[b].artic : 0;
}

int mo_artic_contact_extra(const mo_world *w, const mo_contact_int *c)
{
    int a = side_artic(w, c, 0), b = side_artic(w, c, 1), n = 0;
    if (a) n += w->artics[a - 1].m->nv;
    if (b && b != a) n += w->artics[b - 1].m->nv;
    return n;
}

int mo_artic_rows_scratch(const mo_world *w)
{
    int nv = 0;
    for (int i = 0; i < w->artic_count; i++)
        if (w->artics[i].alive && w->artics[i].m->nv > nv) nv = w->artics[i].m->nv;
    return 13 * nv + 1;
}

void mo_artic_contact_fill(const mo_world *w, const mo_contact_int *c, const mo_k_row *rows, const int *start,
                           int *col, double *val, double *wval, double *scratch)
{
    int art[2] = {side_artic(w, c, 0), side_artic(w, c, 1)};
    int body[2] = {c->body_a, c->body_b};
    static const double origin[3] = {0.0, 0.0, 0.0};
    /* per side: Jp (3 x nv) then Jw (3 x nv); then x (nv) */
    int nvmax = 0;
    for (int s = 0; s < 2; s++)
        if (art[s] && w->artics[art[s] - 1].m->nv > nvmax) nvmax = w->artics[art[s] - 1].m->nv;
    double *jac[2] = {scratch, scratch + 6 * nvmax}, *x = scratch + 12 * nvmax;
    for (int s = 0; s < 2; s++) {
        if (!art[s]) continue;
        mo_artic_obj *a = &w->artics[art[s] - 1];
        const int nv = a->m->nv;
        mo_artic_point_jacobian(a->m, a->d, a->q, w->bodies[body[s]].link, origin, jac[s], jac[s] + 3 * nv, NULL);
    }
    /* the articulations in dof order */
    int order[2] = {art[0], art[1] != art[0] ? art[1] : 0};
    if (order[0] && order[1] && w->artics[order[1] - 1].dof0 < w->artics[order[0] - 1].dof0) {
        int t = order[0]; order[0] = order[1]; order[1] = t;
    }
    if (!order[0]) { order[0] = order[1]; order[1] = 0; }
    for (int k = 0; k < 3; k++) {
        const mo_k_row *r = &rows[k];
        int p = start[k];
        for (int o = 0; o < 2 && order[o]; o++) {
            mo_artic_obj *a = &w->artics[order[o] - 1];
            const int nv = a->m->nv;
            for (int d = 0; d < nv; d++) x[d] = 0.0;
            for (int s = 0; s < 2; s++) {
                if (art[s] != order[o]) continue;
                const double *e = s == 0 ? r->ja : r->jb, *jp = jac[s], *jw = jac[s] + 3 * nv;
                for (int i = 0; i < 3; i++)
                    for (int d = 0; d < nv; d++) x[d] += e[i] * jp[i * nv + d] + e[3 + i] * jw[i * nv + d];
            }
            for (int d = 0; d < nv; d++) {
                col[p + d] = a->dof0 + d;
                val[p + d] = x[d];
            }
            mo_artic_solve(a->m, a->d, x);
            for (int d = 0; d < nv; d++) wval[p + d] = x[d];
            p += nv;
        }
    }
}

/* ---- limit, friction and mimic rows ----
 * Per articulation, per dof k in order, up to four rows (t = 0..3, MO_ARTIC_ROWS_PER_DOF): a finite lower
 * bound (J = e_k, g = q_k - lower) and a finite upper bound (J = -e_k, g = upper - q_k), unilateral; dry
 * friction (J = e_k, b = 0, |gamma| <= h friction), boxed; a mimic (J = e_k - c e_l, g = q_k - c q_l - offset
 * for leader dof l), bilateral. A spherical joint's cone limit is the upper row of its first dof k
 * (mo_articulation_set_cone_limit: upper[k] holds the angle): g = angle - theta(quat), J = -n over its three
 * dofs k..k+2, theta and n the rotation angle and axis of the joint's quaternion (mo_artic_rotation_angle:
 * theta' = n . w, w the joint's three velocities). Their rows have no ordinary sides; their nv columns are the
 * articulation's. */

/* whether dof k of a is a spherical joint's (its first: the one whose upper row is the cone limit) */
static bool is_cone(const mo_artic_obj *a, int k)
{
    return a->m->links[a->m->dof_link[k]].joint == MO_ARTIC_SPHERICAL;
}

/* the rotation angle of the spherical joint of dof k and its axis into n */
static double cone_angle(const mo_artic_obj *a, int k, double *n)
{
    return mo_artic_rotation_angle(a->q + a->m->links[a->m->dof_link[k]].q_ofs, n);
}

/* the coordinate of one-dof joint dof k (its q_ofs: revolute and prismatic joints have nq = nv = 1) */
static double dof_q(const mo_artic_obj *a, int k)
{
    return a->q[a->m->links[a->m->dof_link[k]].q_ofs];
}

/* whether dof k of a has row t */
static bool row_on(const mo_artic_obj *a, int k, int t)
{
    switch (t) {
    case 0: return a->lower[k] > -INFINITY;
    case 1: return a->upper[k] < INFINITY;
    case 2: return a->fric[k] > 0.0;
    default: return a->mimic_src[k] >= 0.0;
    }
}

int mo_artic_limit_rows(mo_world *w, int row0)
{
    int n = 0;
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        a->row0 = row0 + n;
        a->nrows = 0;
        for (int k = 0; k < a->m->nv; k++)
            for (int t = 0; t < MO_ARTIC_ROWS_PER_DOF; t++) a->nrows += row_on(a, k, t);
        n += a->nrows;
    }
    return n;
}

void mo_artic_limit_fill(const mo_world *w, double h, bool warm, mo_k_row *rows, mo_row_aux *aux, uint8_t *kind,
                         double *lo, double *hi, double *gamma)
{
    static const int modes[4] = {MO_ROW_UNILATERAL, MO_ROW_UNILATERAL, MO_ROW_DIRECT, MO_ROW_SPOOK};
    static const int kinds[4] = {MO_BLOCK_UNILATERAL, MO_BLOCK_UNILATERAL, MO_BLOCK_BOXED, MO_BLOCK_BILATERAL};
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive || !a->nrows) continue;
        int r = a->row0;
        for (int k = 0; k < a->m->nv; k++)
            for (int t = 0; t < MO_ARTIC_ROWS_PER_DOF; t++) {
                if (!row_on(a, k, t)) continue;
                double g = 0.0;
                double n[3];
                if (t == 0) g = dof_q(a, k) - a->lower[k];
                else if (t == 1) g = a->upper[k] - (is_cone(a, k) ? cone_angle(a, k, n) : dof_q(a, k));
                else if (t == 3) g = dof_q(a, k) - a->mimic_k[k] * dof_q(a, (int)a->mimic_src[k]) - a->mimic_off[k];
                memset(&rows[r], 0, sizeof rows[r]);
                rows[r].owner_a = rows[r].owner_b = -1;
                aux[r].mode = modes[t];
                aux[r].g = g;
                aux[r].eps = 0.0;
                aux[r].bconst = 0.0;
                aux[r].jv_kin = 0.0;
                kind[r] = (uint8_t)kinds[t];
                lo[r] = t == 2 ? -h * a->fric[k] : -INFINITY;
                hi[r] = t == 2 ? h * a->fric[k] : INFINITY;
                double g0 = warm ? a->imp[MO_ARTIC_ROWS_PER_DOF * k + t] : 0.0;
                gamma[r] = g0 < lo[r] ? lo[r] : (g0 > hi[r] ? hi[r] : g0);
                r++;
            }
    }
}

void mo_artic_limit_csr(const mo_world *w, const int *row_ptr, int *col, double *val, double *wval)
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive || !a->nrows) continue;
        const int nv = a->m->nv;
        int r = a->row0;
        for (int k = 0; k < nv; k++)
            for (int t = 0; t < MO_ARTIC_ROWS_PER_DOF; t++) {
                if (!row_on(a, k, t)) continue;
                const int p = row_ptr[r];
                for (int d = 0; d < nv; d++) {
                    col[p + d] = a->dof0 + d;
                    val[p + d] = d == k ? (t == 1 ? -1.0 : 1.0) : 0.0;
                }
                if (t == 3) val[p + (int)a->mimic_src[k]] -= a->mimic_k[k];
                if (t == 1 && is_cone(a, k)) { /* J = -n over the joint's three dofs */
                    double n[3];
                    cone_angle(a, k, n);
                    for (int e = 0; e < 3; e++) val[p + k + e] = -n[e];
                }
                memcpy(wval + p, val + p, (size_t)nv * sizeof(double));
                mo_artic_solve(a->m, a->d, wval + p); /* (M + diag(a))^-1 J^T */
                r++;
            }
    }
}

void mo_artic_contacts_touch(mo_world *w, const mo_contact_int *ct, int nc, const int *extra, int mj)
{
    for (int c = 0; c < nc; c++) {
        if (!extra[mj + 3 * c]) continue;
        if (ct[c].impulse[0] == 0.0 && ct[c].impulse[1] == 0.0 && ct[c].impulse[2] == 0.0) continue;
        for (int s = 0; s < 2; s++) {
            int art = side_artic(w, &ct[c], s);
            if (art) w->artics[art - 1].touched = 1;
        }
    }
}

void mo_artic_limit_store(mo_world *w, const double *gamma, double h)
{
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        int r = a->row0;
        for (int k = 0; k < a->m->nv; k++)
            for (int t = 0; t < MO_ARTIC_ROWS_PER_DOF; t++) {
                double *imp = &a->imp[MO_ARTIC_ROWS_PER_DOF * k + t];
                if (!row_on(a, k, t)) {
                    *imp = 0.0;
                    continue;
                }
                *imp = isfinite(gamma[r]) ? gamma[r] : 0.0;
                if (*imp != 0.0 && t < 3) a->touched = 1; /* a mimic row acts all along: it leaves the integrator be */
                r++;
            }
        a->last_h = h;
    }
}

/* ---- the articulations in the Newton step (newton.c) ----
 * Their rows keep the assembled J and W = (M + diag a)^-1 J^T (frozen over the Newton iteration: the
 * articulation's q+ is q + h v+ in a step where its rows act, artic_step.c, so a row's C(q+) = g + h J v+ is
 * linear in v+ with these J, exactly for limits and mimics on one-dof joints, to first order for cone limits and
 * contacts). */

void mo_artic_minv(const mo_world *w, const double *x, double *y)
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        memcpy(y + a->dof0, x + a->dof0, (size_t)a->m->nv * sizeof(double));
        mo_artic_solve(a->m, a->d, y + a->dof0);
    }
}

void mo_artic_mulv(const mo_world *w, const double *x, double *y)
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        const mo_artic_model *m = a->m;
        const double *xa = x + a->dof0;
        double *ya = y + a->dof0;
        /* the tree-sparse M of the prediction's last factor (d->hm: row k holds M[k][anc] for k's dof ancestors,
           nearest first) plus the implicit diagonal it was factored with (a->diag) */
        for (int k = 0; k < m->nv; k++) ya[k] = (a->d->hm_diag[k] + a->diag[k]) * xa[k];
        for (int k = 0; k < m->nv; k++) {
            int anc = m->dof_parent[k];
            for (int j = 0; j < m->ld_len[k]; j++, anc = m->dof_parent[anc]) {
                const double mk = a->d->hm[m->ld_ofs[k] + j];
                ya[k] += mk * xa[anc];
                ya[anc] += mk * xa[k];
            }
        }
    }
}

void mo_artic_newton_rows(const mo_world *w, const mo_problem *p, double h, const double *v, mo_row_aux *aux,
                          int *col, double *val, double *wval, double *cg)
{
    const int *row_ptr = p->row_ptr, *extra = (const int *)w->row_artic.p;
    const mo_row_aux *aux0 = (const mo_row_aux *)w->row_aux.p;
    const int nc = w->ncontacts, mj = p->m - 3 * nc;
    for (int i = 0; i < w->artic_count; i++) { /* limit, friction and mimic rows: all columns frozen */
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        for (int r = a->row0; r < a->row0 + a->nrows; r++) {
            double jv = 0.0;
            for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) {
                col[k] = p->col[k];
                val[k] = p->val[k];
                wval[k] = p->wval[k];
                jv += val[k] * v[col[k]];
            }
            aux[r] = aux0[r];
            cg[r] = aux0[r].g + h * jv;
        }
    }
    if (!w->artic_contacts) return;
    for (int c = 0; c < nc; c++) { /* contacts on link bodies: their articulation columns frozen, C_n moved */
        const int r0 = mj + 3 * c;
        if (!extra[r0]) continue;
        for (int q = 0; q < 3; q++) {
            const int r = r0 + q;
            double jv = 0.0;
            for (int k = row_ptr[r + 1] - extra[r]; k < row_ptr[r + 1]; k++) {
                col[k] = p->col[k];
                val[k] = p->val[k];
                wval[k] = p->wval[k];
                jv += val[k] * v[col[k]];
            }
            if (q == 0) cg[r] += h * jv; /* the link side's displacement along the normal */
        }
    }
}
