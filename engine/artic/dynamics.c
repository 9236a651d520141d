/* dynamics.c: an articulation's dynamics in joint space, after Featherstone,
 * "Rigid Body Dynamics Algorithms" (2008): the composite-rigid-body algorithm
 * for M(q) (sec. 6.2), the tree-sparse L^T D L factorisation and solves
 * (sec. 6.5), recursive Newton-Euler inverse dynamics (sec. 5.3), and the
 * semi-implicit step built on them. Frames and layouts: artic.h. */
#include <math.h>

#include "artic/artic.h"

/* ---- the mass matrix ---- */

void mo_artic_mass_matrix(const mo_artic_model *m, mo_artic_data *d, const double *q, double *M)
{
    int n = m->nlink, nv = m->nv;
    mo_artic_forward_kinematics(m, d, q, NULL, NULL);
    /* composite inertias, leaves first, each in its own link's frame */
    for (int i = 0; i < n; i++) d->ic[i] = m->links[i].inertia;
    for (int i = n - 1; i > 0; i--) {
        mo_sinertia t = mo_si_to_parent(&d->ic[i], &d->xup[i]);
        mo_si_add(&d->ic[m->links[i].parent], &t);
    }
    /* per dof k: F = Ic S_k, moved up the tree; row k of the pattern is S_a . F for each ancestor dof a */
    for (int i = 0; i < n; i++) {
        const mo_artic_link *l = &m->links[i];
        for (int j = 0; j < l->nv; j++) {
            int k = l->v_ofs + j, pos = 0;
            double F[6], *row = d->hm + m->ld_ofs[k];
            mo_si_apply(F, &d->ic[i], m->S + 6 * k);
            d->hm_diag[k] = mo_sp_dot(m->S + 6 * k, F);
            for (int jj = j - 1; jj >= 0; jj--) row[pos++] = mo_sp_dot(m->S + 6 * (l->v_ofs + jj), F);
            for (int a = i; m->links[a].parent >= 0;) {
                mo_sx_force_inv(F, &d->xup[a], F);
                a = m->links[a].parent;
                const mo_artic_link *la = &m->links[a];
                for (int jj = la->nv - 1; jj >= 0; jj--) row[pos++] = mo_sp_dot(m->S + 6 * (la->v_ofs + jj), F);
            }
        }
    }
    if (!M) return;
    for (int r = 0; r < nv * nv; r++) M[r] = 0.0;
    for (int k = 0; k < nv; k++) {
        M[k * nv + k] = d->hm_diag[k];
        const double *row = d->hm + m->ld_ofs[k];
        int a = m->dof_parent[k];
        for (int p = 0; p < m->ld_len[k]; p++, a = m->dof_parent[a]) M[k * nv + a] = M[a * nv + k] = row[p];
    }
}

/* ---- the tree-sparse factorisation ---- */

mo_status mo_artic_factor(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *diag, char *err,
                          size_t err_size)
{
    int nv = m->nv;
    d->factored = 0;
    mo_artic_mass_matrix(m, d, q, NULL);
    for (int s = 0; s < m->ld_size; s++) d->ld[s] = d->hm[s];
    for (int k = 0; k < nv; k++) d->ld_diag[k] = d->hm_diag[k] + (diag ? diag[k] : 0.0);
    /* leaves first: eliminate dof k from its ancestors' rows; the ancestors of an ancestor of k
       are the rest of k's row, so the pattern does not fill */
    for (int k = nv - 1; k >= 0; k--) {
        double Dk = d->ld_diag[k];
        if (!(Dk > 0.0) || !isfinite(Dk)) {
            const mo_artic_link *l = &m->links[m->dof_link[k]];
            if (l->name[0])
                mo_errf(err, err_size,
                        "mo_artic_factor: the mass matrix is not positive definite: pivot %g at dof %d (link %d (\"%s\"))",
                        Dk, k, m->dof_link[k], l->name);
            else
                mo_errf(err, err_size, "mo_artic_factor: the mass matrix is not positive definite: pivot %g at dof %d (link %d)",
                        Dk, k, m->dof_link[k]);
            return MO_ERR_INVALID_ARGUMENT;
        }
        double *rk = d->ld + m->ld_ofs[k];
        int len = m->ld_len[k], i = m->dof_parent[k];
        for (int p = 0; p < len; p++, i = m->dof_parent[i]) {
            double a = rk[p] / Dk, *ri = d->ld + m->ld_ofs[i];
            d->ld_diag[i] -= rk[p] * a;
            for (int t = 1; t < len - p; t++) ri[t - 1] -= rk[p + t] * a;
            rk[p] = a;
        }
    }
    d->factored = 1;
    return MO_OK;
}

void mo_artic_solve(const mo_artic_model *m, const mo_artic_data *d, double *x)
{
    int nv = m->nv;
    /* L^T y = x, leaves first */
    for (int k = nv - 1; k >= 0; k--) {
        const double *rk = d->ld + m->ld_ofs[k];
        int i = m->dof_parent[k];
        for (int p = 0; i >= 0; p++, i = m->dof_parent[i]) x[i] -= rk[p] * x[k];
    }
    for (int k = 0; k < nv; k++) x[k] /= d->ld_diag[k];
    /* L x = z, roots first */
    for (int k = 0; k < nv; k++) {
        const double *rk = d->ld + m->ld_ofs[k];
        int i = m->dof_parent[k];
        for (int p = 0; i >= 0; p++, i = m->dof_parent[i]) x[k] -= rk[p] * x[i];
    }
}

/* ---- recursive Newton-Euler ---- */

void mo_artic_inverse_dynamics(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v,
                               const double *a, const double *gravity, const double *f_ext, double *tau)
{
    int n = m->nlink;
    mo_artic_forward_kinematics(m, d, q, NULL, NULL);
    /* outward: velocities, accelerations (gravity as the base's upward acceleration), net forces */
    for (int i = 0; i < n; i++) {
        const mo_artic_link *l = &m->links[i];
        double vj[6] = {0, 0, 0, 0, 0, 0}, t[6], *vi = d->vel + 6 * i, *ai = d->acc + 6 * i, *fi = d->frc + 6 * i;
        for (int j = 0; j < l->nv; j++) {
            const double *s = m->S + 6 * (l->v_ofs + j);
            double qd = v ? v[l->v_ofs + j] : 0.0;
            for (int k = 0; k < 6; k++) vj[k] += s[k] * qd;
        }
        if (l->parent < 0) {
            double a0[6] = {0, 0, 0, 0, 0, 0};
            if (gravity) mo_v3_scale(a0 + 3, gravity, -1.0);
            for (int k = 0; k < 6; k++) vi[k] = vj[k];
            mo_sx_motion(ai, &d->xup[i], a0);
        } else {
            mo_sx_motion(vi, &d->xup[i], d->vel + 6 * l->parent);
            for (int k = 0; k < 6; k++) vi[k] += vj[k];
            mo_sx_motion(ai, &d->xup[i], d->acc + 6 * l->parent);
        }
        mo_sp_cross_motion(t, vi, vj);
        for (int k = 0; k < 6; k++) ai[k] += t[k];
        if (a)
            for (int j = 0; j < l->nv; j++) {
                const double *s = m->S + 6 * (l->v_ofs + j);
                for (int k = 0; k < 6; k++) ai[k] += s[k] * a[l->v_ofs + j];
            }
        double h[6];
        mo_si_apply(fi, &l->inertia, ai);
        mo_si_apply(h, &l->inertia, vi);
        mo_sp_cross_force(t, vi, h);
        for (int k = 0; k < 6; k++) fi[k] += t[k];
        if (f_ext) {
            mo_sx_force(t, &d->x0[i], f_ext + 6 * i);
            for (int k = 0; k < 6; k++) fi[k] -= t[k];
        }
    }
    /* inward: joint forces, the rest passed to the parent */
    for (int i = n - 1; i >= 0; i--) {
        const mo_artic_link *l = &m->links[i];
        double *fi = d->frc + 6 * i;
        for (int j = 0; j < l->nv; j++) tau[l->v_ofs + j] = mo_sp_dot(m->S + 6 * (l->v_ofs + j), fi);
        if (l->parent >= 0) {
            double t[6], *fp = d->frc + 6 * l->parent;
            mo_sx_force_inv(t, &d->xup[i], fi);
            for (int k = 0; k < 6; k++) fp[k] += t[k];
        }
    }
}

void mo_artic_bias(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v,
                   const double *gravity, const double *f_ext, double *c)
{
    mo_artic_inverse_dynamics(m, d, q, v, NULL, gravity, f_ext, c);
}

void mo_artic_gravity_compensation(const mo_artic_model *m, mo_artic_data *d, const double *q,
                                   const double *gravity, double *tau)
{
    mo_artic_inverse_dynamics(m, d, q, NULL, NULL, gravity, NULL, tau);
}

/* ---- forward dynamics and the step ---- */

mo_status mo_artic_forward_dynamics(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v,
                                    const double *tau, const double *gravity, const double *f_ext, double *a,
                                    char *err, size_t err_size)
{
    mo_status s = mo_artic_factor(m, d, q, NULL, err, err_size);
    if (s != MO_OK) return s;
    mo_artic_bias(m, d, q, v, gravity, f_ext, a);
    for (int k = 0; k < m->nv; k++) a[k] = (tau ? tau[k] : 0.0) - a[k];
    mo_artic_solve(m, d, a);
    return MO_OK;
}

mo_status mo_artic_step(const mo_artic_model *m, mo_artic_data *d, double *q, double *v, const double *tau,
                        const double *gravity, const double *f_ext, const double *damping, double h, char *err,
                        size_t err_size)
{
    int nv = m->nv;
    double *rhs = d->tmp, *hd = d->tmp + nv;
    if (damping)
        for (int k = 0; k < nv; k++) hd[k] = h * damping[k];
    mo_status s = mo_artic_factor(m, d, q, damping ? hd : NULL, err, err_size);
    if (s != MO_OK) return s;
    /* (M + h D) dv = h (tau - c - D v) */
    mo_artic_bias(m, d, q, v, gravity, f_ext, rhs);
    for (int k = 0; k < nv; k++) rhs[k] = (tau ? tau[k] : 0.0) - rhs[k] - (damping ? damping[k] * v[k] : 0.0);
    mo_artic_solve(m, d, rhs);
    for (int k = 0; k < nv; k++) v[k] += h * rhs[k];
    mo_artic_integrate(m, q, v, h, q);
    return MO_OK;
}

mo_status mo_artic_step_midpoint(const mo_artic_model *m, mo_artic_data *d, double *q, double *v,
                                 const double *tau, const double *gravity, const double *f_ext,
                                 const double *damping, double h, int max_iter, int *iters, char *err,
                                 size_t err_size)
{
    int nv = m->nv, it = 0, mi = max_iter < 1 ? 1 : max_iter, converged = 0;
    double *rhs = d->tmp, *hd = d->tmp + nv, *v1 = d->tmp + 2 * nv, *vm = d->tmp + 3 * nv, *vn = d->tmp + 4 * nv;
    double *qm = d->tmp + 5 * nv;
    if (iters) *iters = 0;
    if (damping)
        for (int k = 0; k < nv; k++) hd[k] = 0.5 * h * damping[k];
    /* the first guess: the semi-implicit step's velocity */
    for (int k = 0; k < nv; k++) vm[k] = v[k];
    for (int k = 0; k < m->nq; k++) qm[k] = q[k];
    for (it = 1; it <= mi; it++) {
        /* v1 = v + h (M(q_m) + h/2 D)^-1 (tau - c(q_m, v_m) - D v) */
        mo_status s = mo_artic_factor(m, d, qm, damping ? hd : NULL, err, err_size);
        if (s != MO_OK) return s;
        mo_artic_bias(m, d, qm, vm, gravity, f_ext, rhs);
        for (int k = 0; k < nv; k++) rhs[k] = (tau ? tau[k] : 0.0) - rhs[k] - (damping ? damping[k] * v[k] : 0.0);
        mo_artic_solve(m, d, rhs);
        double change = 0.0, size = 0.0;
        for (int k = 0; k < nv; k++) {
            double nk = v[k] + h * rhs[k];
            if (!isfinite(nk)) {
                mo_errf(err, err_size, "mo_artic_step_midpoint: iteration %d gave a non-finite velocity at dof %d (link %d)",
                        it, k, m->dof_link[k]);
                return MO_ERR_NOT_FINITE;
            }
            if (it > 1) change = fmax(change, fabs(nk - v1[k]));
            size = fmax(size, fabs(nk));
            v1[k] = nk;
        }
        for (int k = 0; k < nv; k++) vm[k] = 0.5 * (v[k] + v1[k]);
        mo_artic_integrate(m, q, vm, 0.5 * h, qm);
        if (it > 1 && change <= 1e-12 * (1.0 + size)) {
            converged = 1;
            break;
        }
    }
    if (iters) *iters = converged ? it : -mi;
    for (int k = 0; k < nv; k++) vn[k] = v1[k];
    mo_artic_integrate(m, q, vm, h, q);
    for (int k = 0; k < nv; k++) v[k] = vn[k];
    return MO_OK;
}

mo_status mo_artic_step_implicit(const mo_artic_model *m, mo_artic_data *d, int midpoint, const double *q,
                                 const double *v, const double *f, const double *gravity, const double *a, double h,
                                 int max_iter, int *iters, double *v_out, char *err, size_t err_size)
{
    int nv = m->nv, mi = max_iter < 1 ? 1 : max_iter, it, converged = 0;
    double *rhs = d->tmp, *vm = d->tmp + nv, *acc = d->tmp + 2 * nv, *qm = d->tmp + 5 * nv;
    if (iters) *iters = 0;
    for (int k = 0; k < nv; k++) vm[k] = v[k];
    for (int k = 0; k < m->nq; k++) qm[k] = q[k];
    /* one factorisation, at q: the first iterate is v + h (M(q) + diag(a))^-1 (f - c(q, v)); later ones correct
       v_out by (M(q) + diag(a))^-1 r with the residual r = h (f - c(q_m, v_m)) - (M(q_m) + diag(a)) (v_out - v)
       of the midpoint equations, M(q_m) (v_out - v) + h c(q_m, v_m) by recursive Newton-Euler with the
       accelerations (v_out - v) / h: the fixed point is the midpoint's, and a step costs one factorisation and
       one RNEA per iteration instead of a factorisation per iteration (M(q) differs from M(q_m) by O(h |v|),
       so the iteration contracts about as fast) */
    mo_status s = mo_artic_factor(m, d, q, a, err, err_size);
    if (s != MO_OK) return s;
    for (it = 1; it <= (midpoint ? mi : 1); it++) {
        if (it == 1) {
            mo_artic_bias(m, d, qm, vm, gravity, NULL, rhs);
            for (int k = 0; k < nv; k++) rhs[k] = f[k] - rhs[k];
            mo_artic_solve(m, d, rhs);
            for (int k = 0; k < nv; k++) rhs[k] *= h;
        } else {
            for (int k = 0; k < nv; k++) acc[k] = (v_out[k] - v[k]) / h;
            mo_artic_inverse_dynamics(m, d, qm, vm, acc, gravity, NULL, rhs);
            for (int k = 0; k < nv; k++)
                rhs[k] = h * (f[k] - rhs[k]) - (a ? a[k] : 0.0) * (v_out[k] - v[k]);
            mo_artic_solve(m, d, rhs);
        }
        double change = 0.0, size = 0.0;
        for (int k = 0; k < nv; k++) {
            double nk = (it == 1 ? v[k] : v_out[k]) + rhs[k];
            if (!isfinite(nk)) {
                mo_errf(err, err_size, "iteration %d gave a non-finite velocity at dof %d (link %d)", it, k,
                        m->dof_link[k]);
                return MO_ERR_NOT_FINITE;
            }
            if (it > 1) change = fmax(change, fabs(nk - v_out[k]));
            size = fmax(size, fabs(nk));
            v_out[k] = nk;
        }
        if (!midpoint) {
            converged = 1;
            break;
        }
        for (int k = 0; k < nv; k++) vm[k] = 0.5 * (v[k] + v_out[k]);
        mo_artic_integrate(m, q, vm, 0.5 * h, qm);
        if (it > 1 && change <= 1e-12 * (1.0 + size)) {
            converged = 1;
            break;
        }
    }
    if (iters) *iters = converged ? it : -mi;
    /* the factor left for the contact and limit rows' W = (M + diag(a))^-1 J^T: the midpoint's, at q_m */
    if (midpoint) {
        s = mo_artic_factor(m, d, qm, a, err, err_size);
        if (s != MO_OK) return s;
    }
    return MO_OK;
}
