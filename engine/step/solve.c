/* solve.c: stage 4. Runs the chosen velocity-level solver (solver/) on the
 * assembled problem, then keeps the impulses: joints' for warm starting and
 * their reactions, contacts' for the contact cache the next step starts
 * from. MO_SOLVER_NEWTON takes newton.c instead of this stage. */
#include <math.h>
#include <string.h>
#include "step/step.h"
#include "backend/device.h"

mo_device *mo_step_device(const mo_world *w, int rows)
{
    if (!w->device || w->def.backend == MO_BACKEND_CPU) return NULL;
    if (w->def.backend == MO_BACKEND_CUDA) return w->device; /* the settings were checked against it */
    char why[8];
    if (rows < MO_BACKEND_AUTO_MIN_ROWS || !mo_solver_device_check(&w->def.solver, why, sizeof why)) return NULL;
    return w->device;
}

int mo_step_solve(const mo_step_ctx *ctx, const mo_problem *p)
{
    mo_world *w = ctx->w;
    const mo_solver_settings *s = &w->def.solver;
    int m = p->m, n = p->n;
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = (double *)w->gamma.p;
    o.v = (double *)w->v.p;
    if (mo_buf_reserve(&w->scratch, mo_solve_scratch_size(p, s) * sizeof(double)) ||
        mo_buf_reserve(&w->res_hist, (size_t)(s->max_iterations + 1) * sizeof(double)) ||
        mo_buf_reserve(&w->err_hist, (size_t)(s->max_iterations + 1) * sizeof(double))) {
        /* no room for the solve: keep v~ (unconstrained) and say so */
        memcpy(o.v, p->v_tilde, (size_t)n * sizeof(double));
        w->stats.nan_warnings++;
        return 0;
    }
    o.scratch = (double *)w->scratch.p;
    o.cholmod_cache = &w->cholmod_cache;
    if (s->record_residuals) {
        o.res_hist = (double *)w->res_hist.p;
        o.err_hist = (double *)w->err_hist.p;
    }
    o.device = mo_step_device(w, p->m);
    mo_solve(p, s, &o);
    if (o.device_failed) {
        mo_set_error(w, "mo_world_step: the cuda backend failed at step %llu (%d rows): %s",
                     (unsigned long long)w->step_index, p->m, o.device->err);
        return -1;
    }

    mo_step_stats *st = &w->stats;
    st->backend = o.device ? MO_BACKEND_CUDA : MO_BACKEND_CPU;
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
    double h = ctx->h;
    for (int i = 0; i < w->joint_count; i++) {
        mo_joint *j = &w->joints[i];
        if (!j->alive || mo_joint_asleep(w, j)) continue; /* asleep: its last impulses and reactions kept */
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
    if (w->artic_limit_rows) mo_artic_limit_store(w, g, h);
    int mj = m - 3 * w->ncontacts;
    mo_contact_int *ct = (mo_contact_int *)w->contacts.p;
    for (int c = 0; c < w->ncontacts; c++) {
        for (int k = 0; k < 3; k++) {
            double gk = g[mj + 3 * c + k];
            ct[c].impulse[k] = isfinite(gk) ? gk : 0.0;
        }
        ct[c].h = h; /* read-back: force = impulse / h */
    }
    if (w->artic_contacts) mo_artic_contacts_touch(w, ct, w->ncontacts, (const int *)w->row_artic.p, mj);
    if (mo_contact_cache_store(w)) w->ncache = 0;
    return 0;
}
