/* step_integrate.c: stages 4 and 5. Runs the chosen solver on the assembled
 * problem, keeps impulses for warm starting and reactions, then integrates
 * positions from the new velocity (kernels/dynamics.h: quaternions
 * renormalised) and records the statistics. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "parallel.h"

int mo_contact_cache_store(mo_world *w);

void mo_step_solve(mo_world *w, const mo_problem *p)
{
    const mo_solver_settings *s = &w->def.solver;
    int m = p->m, n = p->n;
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = (double *)w->gamma.p;
    o.v = (double *)w->v.p;
    if (mo_buf_reserve(&w->scratch, mo_solver_scratch_size(p) * sizeof(double)) ||
        mo_buf_reserve(&w->res_hist, (size_t)(s->max_iterations + 1) * sizeof(double)) ||
        mo_buf_reserve(&w->err_hist, (size_t)(s->max_iterations + 1) * sizeof(double))) {
        /* no room for the solve: keep v~ (unconstrained) and say so */
        memcpy(o.v, p->v_tilde, (size_t)n * sizeof(double));
        w->stats.nan_warnings++;
        return;
    }
    o.scratch = (double *)w->scratch.p;
    o.cholmod_cache = &w->cholmod_cache;
    if (s->record_residuals) {
        o.res_hist = (double *)w->res_hist.p;
        o.err_hist = (double *)w->err_hist.p;
    }
    mo_solve(p, s, &o);

    mo_step_stats *st = &w->stats;
    st->iterations = o.iterations;
    st->converged = o.converged;
    st->residual = o.residual;
    st->coulomb_error = o.coulomb_error;
    st->regularisation = o.regularisation;
    st->residual_count = o.hist_count;
    st->residual_history = o.res_hist;
    st->coulomb_error_history = o.err_hist;

    /* impulses back to joints (warm start, reactions) and contacts */
    const double *g = o.gamma;
    const mo_k_row *rows = (const mo_k_row *)w->rows.p;
    double h = w->def.time_step;
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        double f[3] = {0, 0, 0}, t[3] = {0, 0, 0};
        for (int k = 0; k < j->nrows; k++) {
            double gk = g[j->row0 + k];
            j->impulse[k] = isfinite(gk) ? gk : 0.0;
            mo_v3_axpy(f, gk / h, rows[j->row0 + k].jb);
            mo_v3_axpy(t, gk / h, rows[j->row0 + k].jb + 3);
        }
        mo_v3_copy(j->react_f, f);
        mo_v3_copy(j->react_t, t);
    }
    int mj = m - 3 * w->ncontacts;
    mo_contact_int *ct = (mo_contact_int *)w->contacts.p;
    for (int c = 0; c < w->ncontacts; c++)
        for (int k = 0; k < 3; k++) {
            double gk = g[mj + 3 * c + k];
            ct[c].impulse[k] = isfinite(gk) ? gk : 0.0;
        }
    if (mo_contact_cache_store(w)) w->ncache = 0;
}

void mo_step_integrate(mo_world *w)
{
    const int nt = w->def.threads;
    const double h = w->def.time_step;
    const int *dof = (const int *)w->owner_dof.p, *ref = (const int *)w->owner_ref.p;
    double *v = (double *)w->v.p;
    const uint8_t *ocon = (const uint8_t *)w->owner_constrained.p;
    int nown = w->nowners, nan_count = 0;
    /* non-finite velocities are reset to zero and counted */
    for (int o = 0; o < nown; o++) {
        int nd = ref[o] >= 0 ? 6 : 3;
        bool bad = false;
        for (int k = 0; k < nd; k++) bad |= !isfinite(v[dof[o] + k]);
        if (bad) {
            for (int k = 0; k < nd; k++) v[dof[o] + k] = 0.0;
            nan_count++;
        }
    }
    MO_PARALLEL_FOR(nt)
    for (int o = 0; o < nown; o++) {
        const double *vo = v + dof[o];
        if (ref[o] >= 0) {
            mo_body *b = &w->bodies[ref[o]];
            mo_v3_copy(b->k.v, vo);
            mo_v3_copy(b->k.w, vo + 3);
            /* the midpoint rotation correction only for bodies no constraint row
             * touched: the solver constrains w+, and turning a jointed body by
             * h (w+ + wrot) would move it off its joint (axis error 1e-3 rad
             * on a tumbling hinge, tests/test_joints.c) */
            static const double zero[3] = {0.0, 0.0, 0.0};
            mo_k_integrate_body(b->k.x, b->k.q, b->k.v, b->k.w, ocon[o] ? zero : b->k.wrot, h);
            mo_v3_set(b->k.f, 0, 0, 0);
            mo_v3_set(b->k.tau, 0, 0, 0);
        } else {
            mo_particle *p = &w->particles[-ref[o] - 1];
            mo_v3_copy(p->v, vo);
            mo_v3_axpy(p->x, h, p->v);
            mo_v3_set(p->f, 0, 0, 0);
        }
    }
    /* kinematic bodies follow their velocity */
    int nb = 0;
    for (int i = 0; i < w->body_count; i++) {
        mo_body *b = &w->bodies[i];
        if (!b->alive) continue;
        nb++;
        if (b->type == MO_BODY_KINEMATIC) mo_k_integrate_pose(b->k.x, b->k.q, b->k.v, b->k.w, h);
        if (b->type != MO_BODY_DYNAMIC) {
            mo_v3_set(b->k.f, 0, 0, 0);
            mo_v3_set(b->k.tau, 0, 0, 0);
        }
    }
    /* statistics */
    double maxj = 0.0;
    int nj = 0, np = 0;
    for (int i = 0; i < w->joint_count; i++) {
        const mo_joint *j = &w->joints[i];
        if (!j->alive) continue;
        nj++;
        double e = mo_joint_position_error(w, j);
        if (e > maxj) maxj = e;
    }
    for (int i = 0; i < w->particle_count; i++) np += w->particles[i].alive;
    w->stats.bodies = nb;
    w->stats.joints = nj;
    w->stats.particles = np;
    w->stats.max_joint_error = maxj;
    w->stats.nan_warnings += nan_count;
}
