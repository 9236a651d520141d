/* krylov_ops.c: CG and MINRES on a problem whose blocks are all bilateral
 * (joints alone), written over the backend operations (ops.h), so they run
 * on the CPU and on a device. krylov.c states the methods and the
 * preconditioner and keeps the mixed problems; each host loop of the former
 * pure solve is one operation here:
 *
 *   q = -u                      scale(q, -1, u)
 *   z = P^-1 q                  bil_precond(q, z, d), d = diag(N) uploaded once
 *   x_B . y_B                   dot(x, y): one of the two is 0 outside B
 *                               (a preconditioned vector, or one built from them)
 *   mask to B                   mask_pos(x, d)
 *   gamma += a p, u += a N p    axpy
 *   u = N gamma + r             apply, axpy(u, 1, r)
 *
 * A plain dot adds a signed zero for each row outside B, which changes no
 * sum, so on the CPU the iterates equal those of the host loops this file
 * replaced, bit for bit (checked on chain1000 and b1_net, CG and MINRES, 40
 * steps, when it was written; test gpu_solvers_fake compares the device path
 * with the CPU's).
 *
 * Safeguards: on a singular N_BB (redundant joints, as in b1_net), once the
 * residual is near round-off the null-space part of gamma grows and the
 * recursive residual can blow up or drift from the true one (b1_net,
 * tolerance 0: CG 2e-6 after 400 iterations, 1e8 after 800; MINRES 2e-10,
 * then 3e5 at 3000). Both keep the best iterate by the recorded measure, stop
 * at the round-off floor (64 eps times the starting measure) or once the
 * measure exceeds BLOWUP times the best, check the recursion against the true
 * u every REFRESH iterations (restarting when the true measure is more than
 * twice the recorded one), and at the end return the better of the best and
 * the last by their true measures.
 *
 * Mixed problems (contacts, limits, motors next to the joints) alternate with
 * projected Gauss-Seidel sweeps, which are sequential: they stay in krylov.c
 * on the CPU, and the cuda backend refuses them with a sentence. Vectors: CG
 * 6 (u, p, N p, z, the best iterate, d), MINRES 14 (u, r1, r2, y, v, three w,
 * N v, three N w, the best iterate, d), then the products' work space and,
 * when the caller left r to the solver, r: within mo_solver_scratch_size. */
#include <float.h>
#include <math.h>
#include "solver/bilateral.h"
#include "solver/krylov_ops.h"
#include "solver/ops.h"

#define BLOWUP 1e3
#define REFRESH 64

typedef struct kry {
    const mo_ops *O;
    const mo_problem *p;
    const mo_solver_settings *s;
    mo_solve_out *o;
    double *gamma, *u, *d, *best;
    double ccp, coulomb, best_measure, start_measure;
    bool converged, u_exact;
} kry;

/* u = N gamma + r and both measures at it */
static void true_u(kry *c, const double *gamma, double *u, double *ccp, double *coulomb)
{
    c->O->apply(c->O, gamma, u);
    c->O->axpy(c->O, u, 1.0, c->O->r);
    c->O->residuals(c->O, gamma, u, ccp, coulomb);
}

/* krylov.c's confirm: after a check asked to stop as converged, the true u; true when it holds */
static bool confirm(kry *c)
{
    if (!c->converged) return true;
    true_u(c, c->gamma, c->u, &c->ccp, &c->coulomb);
    c->u_exact = true;
    if (mo_solve_measure(c->p, c->ccp, c->coulomb) <= c->s->tolerance) return true;
    c->converged = false;
    return false;
}

static void take_best(kry *c, double meas)
{
    c->best_measure = meas;
    c->O->copy(c->O, c->best, c->gamma);
}

/* the recorded check, the best iterate, the drift refresh (krylov.c's iteration_ends) */
static bool iteration_ends(kry *c, int it, bool *restart)
{
    c->ccp = mo_ops_record(c->O, c->gamma, c->u, c->o, &c->coulomb);
    if (mo_solve_stop(c->p, c->s, c->ccp, c->coulomb, &c->converged)) {
        *restart = !confirm(c);
        return true;
    }
    double meas = mo_solve_measure(c->p, c->ccp, c->coulomb);
    if (meas <= 64.0 * DBL_EPSILON * c->start_measure) {
        take_best(c, meas);
        return true;
    }
    if (meas < c->best_measure) take_best(c, meas);
    else if (meas > BLOWUP * c->best_measure) return true;
    *restart = false;
    if (it % REFRESH != 0) return false;
    double rec = meas;
    true_u(c, c->gamma, c->u, &c->ccp, &c->coulomb);
    c->u_exact = true;
    double tru = mo_solve_measure(c->p, c->ccp, c->coulomb);
    if (tru < c->best_measure) take_best(c, tru);
    *restart = tru > 2.0 * rec;
    return *restart;
}

static int cg_inner(kry *c, double *pv, double *q, double *z)
{
    const mo_ops *O = c->O;
    double *g = c->gamma, *u = c->u;
    const int max = c->s->max_iterations;
    int it = 0;
    while (it < max) {
        O->scale(O, q, -1.0, u);
        O->bil_precond(O, q, z, c->d);
        O->copy(O, pv, z);
        double rz = O->dot(O, q, z);
        if (!(rz > 0.0)) return it;
        bool restart = false;
        while (it < max) {
            O->apply(O, pv, q);
            double pq = O->dot(O, pv, q);
            if (!(pq > 0.0)) return it;
            double alpha = rz / pq;
            c->u_exact = false;
            O->axpy(O, g, alpha, pv);
            O->axpy(O, u, alpha, q);
            if (iteration_ends(c, ++it, &restart)) break;
            O->scale(O, q, -1.0, u);
            O->bil_precond(O, q, z, c->d);
            double rz1 = O->dot(O, q, z);
            if (!(rz1 > 0.0)) return it;
            double beta = rz1 / rz;
            rz = rz1;
            O->waxpy(O, pv, z, beta, pv);
        }
        if (!restart) break;
    }
    return it;
}

static int minres_inner(kry *c, double *const vec[11])
{
    const mo_ops *O = c->O;
    double *g = c->gamma, *u = c->u;
    double *r1 = vec[0], *r2 = vec[1], *y = vec[2], *v = vec[3], *w = vec[4], *w1 = vec[5], *w2 = vec[6];
    double *av = vec[7], *aw = vec[8], *aw1 = vec[9], *aw2 = vec[10];
    const int max = c->s->max_iterations;
    int it = 0;
    while (it < max) {
        O->scale(O, r1, -1.0, u);
        O->mask_pos(O, r1, c->d);
        O->copy(O, r2, r1);
        O->bil_precond(O, r1, y, c->d);
        double beta1 = O->dot(O, r1, y);
        if (!(beta1 > 0.0)) return it;
        beta1 = sqrt(beta1);
        double oldb = 0.0, beta = beta1;
        mo_minres_rot g_rot = {.cs = -1.0, .sn = 0.0, .dbar = 0.0, .epsln = 0.0, .phibar = beta1};
        O->zero(O, w);
        O->zero(O, w1);
        O->zero(O, w2);
        O->zero(O, aw);
        O->zero(O, aw1);
        O->zero(O, aw2);
        bool restart = false;
        for (int local = 0; it < max; local++) {
            /* Lanczos step on P^-1 N */
            O->scale(O, v, 1.0 / beta, y);
            O->apply(O, v, av);
            O->copy(O, y, av);
            O->mask_pos(O, y, c->d);
            if (local > 0) O->axpy(O, y, -(beta / oldb), r1);
            double alfa = O->dot(O, v, y);
            O->axpy(O, y, -(alfa / beta), r2);
            double *t = r1;
            r1 = r2;
            r2 = y;
            y = t;
            O->bil_precond(O, r2, y, c->d);
            oldb = beta;
            beta = O->dot(O, r2, y);
            if (beta < 0.0) return it;
            beta = sqrt(beta);
            /* Givens rotation of the tridiagonal's new column */
            double oldeps, delta, den, phi;
            mo_minres_rotate(&g_rot, alfa, beta, &oldeps, &delta, &den, &phi);
            c->u_exact = false;
            double *ow1 = w1, *oaw1 = aw1;
            w1 = w2;
            w2 = w;
            w = ow1;
            aw1 = aw2;
            aw2 = aw;
            aw = oaw1;
            /* w = (v - oldeps w1 - delta w2) den, N w alike, in krylov.c's order of operations */
            O->waxpy(O, w, v, -oldeps, w1);
            O->axpy(O, w, -delta, w2);
            O->scale(O, w, den, w);
            O->waxpy(O, aw, av, -oldeps, aw1);
            O->axpy(O, aw, -delta, aw2);
            O->scale(O, aw, den, aw);
            O->axpy(O, g, phi, w);
            O->axpy(O, u, phi, aw);
            if (iteration_ends(c, ++it, &restart)) break;
            if (!(beta > 0.0)) return it;
        }
        if (!restart) break;
    }
    return it;
}

bool mo_krylov_ops_applies(const mo_problem *p)
{
    if (p->base || p->m == 0 || (!p->r && !p->row_ptr)) return false;
    for (int k = 0; k < p->nblocks; k++)
        if (p->block_kind[k] != MO_BLOCK_BILATERAL) return false;
    return true;
}

void mo_krylov_ops_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, bool minres)
{
    o->hist_count = 0;
    o->converged = false;
    o->iterations = 0;
    o->regularisation = 0.0;
    const int nvec = minres ? 14 : 6;
    mo_problem q = *p;
    if (!p->r) { /* a J-form problem may leave r = J v~ + b to the solver: after the vectors and the work space */
        double *r = o->scratch + (size_t)nvec * (size_t)p->m + mo_problem_apply_work(p);
        mo_problem_prepare_r(p, r);
        q.r = r;
    }
    p = &q;
    mo_ops ops;
    const mo_ops *O = &ops;
    if (mo_ops_make(&ops, p, o, nvec)) {
        mo_ops_failed(o);
        return;
    }
    kry c = {.O = O, .p = p, .s = s, .o = o, .gamma = O->gamma};
    c.u = mo_ops_vec(O, 0);
    c.d = mo_ops_vec(O, nvec - 1);
    c.best = mo_ops_vec(O, nvec - 2);
    O->upload(O, c.d, p->diag);
    true_u(&c, c.gamma, c.u, &c.ccp, &c.coulomb);
    c.u_exact = true;
    int iterations = 0;
    const bool done = s->tolerance > 0.0 && mo_solve_measure(p, c.ccp, c.coulomb) <= s->tolerance;
    if (done) c.converged = true;
    if (!done) {
        c.start_measure = mo_solve_measure(p, c.ccp, c.coulomb);
        take_best(&c, c.start_measure);
        if (minres) {
            double *const v[11] = {mo_ops_vec(O, 1), mo_ops_vec(O, 2), mo_ops_vec(O, 3), mo_ops_vec(O, 4),
                                   mo_ops_vec(O, 5), mo_ops_vec(O, 6), mo_ops_vec(O, 7), mo_ops_vec(O, 8),
                                   mo_ops_vec(O, 9), mo_ops_vec(O, 10), mo_ops_vec(O, 11)};
            iterations = minres_inner(&c, v);
        } else {
            iterations = cg_inner(&c, mo_ops_vec(O, 1), mo_ops_vec(O, 2), mo_ops_vec(O, 3));
        }
        /* krylov.c's best_end: the better of the best and the last by their true measures */
        if (!c.converged) {
            double *ub = mo_ops_vec(O, 1); /* free once the inner solve is done */
            double ccp_b, coul_b;
            true_u(&c, c.best, ub, &ccp_b, &coul_b);
            true_u(&c, c.gamma, c.u, &c.ccp, &c.coulomb);
            c.u_exact = true;
            if (mo_solve_measure(p, ccp_b, coul_b) < mo_solve_measure(p, c.ccp, c.coulomb)) {
                O->copy(O, c.gamma, c.best);
                O->copy(O, c.u, ub);
                c.ccp = ccp_b;
                c.coulomb = coul_b;
            }
        }
    }
    /* mo_bil_end */
    if (!c.u_exact) true_u(&c, c.gamma, c.u, &c.ccp, &c.coulomb);
    o->iterations = iterations;
    o->residual = c.ccp;
    o->coulomb_error = c.coulomb;
    o->converged = c.converged && s->tolerance > 0.0 && mo_solve_measure(p, c.ccp, c.coulomb) <= s->tolerance;
    O->finish(O, o);
}
