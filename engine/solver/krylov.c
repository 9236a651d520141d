/* krylov.c: conjugate gradients and MINRES on the bilateral rows
 * (SOLVERS.md A, "Direct and Krylov solvers for bilateral rows"): N_BB d = -u_B
 * with u = N gamma + r, from the warm start in o->gamma; contacts and other
 * rows through the block Gauss-Seidel alternation of solver_bilateral.c.
 *
 * Both are preconditioned by block Jacobi P (mo_bil_precond: the dense N^-1
 * of a joint's bilateral group, which the assembly forms anyway, 1 / N_ii for
 * single rows); always on. On chains and nets it is what makes the joint
 * groups' own 3x3 or 6x6 coupling free.
 *
 * CG: Hestenes-Stiefel PCG (Saad, Iterative Methods, Alg. 9.1). MINRES:
 * Paige and Saunders (1975) with a symmetric positive definite
 * preconditioner, in the form of SciPy's minres (Lanczos on P^-1 N, Givens
 * QR, three-term update of the search directions w), which minimises
 * |u_B|_{P^-1} over the Krylov space; like CG it needs N symmetric, and unlike
 * CG also handles a singular consistent N_BB (redundant rigid joints).
 *
 * Residuals: u is updated recursively on every row (CG: u += alpha N p;
 * MINRES: u += phi N w, with N w carried along by the same three-term
 * recurrence as w from the products N v of the Lanczos vectors, so no extra
 * product with N), and the recorded per-iteration measures are those of this
 * recursive u. test_bilateral checks them against the true N gamma + r
 * (agreement to 1e-12 relative). When the recursive residual meets the
 * tolerance, u is recomputed as N gamma + r and the solve restarts from it if
 * the true residual does not; the final measures are always the true ones
 * (mo_bil_end). Non-symmetric N (outside problems): N is used as given;
 * neither method is guaranteed to converge then, and the true residual tells.
 *
 * Problems of joints alone (every block bilateral) are solved by the same two
 * methods written over the backend operations (krylov_ops.c: CPU or device,
 * with the best-iterate safeguards of a pure solve); this file solves the
 * mixed problems, inner solves of the alternation above, and serves MINRES
 * as the Cholesky solver's fallback, on the CPU.
 *
 * Scratch: CG 3 vectors of m (p, N p, z), MINRES 11 (r1, r2, y, v, three w,
 * N v, three N w). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "solver/bilateral.h"
#include "solver/krylov_ops.h"
#include "solver/ops.h"

/* after a check asked to stop as converged: the true u; true when it holds */
static bool confirm(mo_bil *c)
{
    if (!c->converged) return true; /* stopped for another reason (inner target, outer loop's stop) */
    mo_problem_u(&c->q, c->gamma, c->u, c->work);
    c->u_exact = true;
    double ccp, coulomb;
    mo_problem_residuals(&c->q, c->gamma, c->u, &ccp, &coulomb);
    if (mo_solve_measure(c->p, ccp, coulomb) <= c->s->tolerance) return true;
    c->converged = false;
    return false;
}

/* what a Krylov loop does after an iteration: the stop test, confirmed with a true product (else a
 * restart). True when the inner loop ends, *restart then saying whether the solve restarts */
static bool iteration_ends(mo_bil *c, int it, bool *restart)
{
    (void)it;
    if (!mo_bil_check(c)) return false;
    *restart = !confirm(c);
    return true;
}

/* ---- conjugate gradients ---- */

static int cg_inner(mo_bil *c, int max_iterations)
{
    const int m = c->p->m;
    double *pv = c->vecs, *q = pv + m, *z = q + m;
    double *g = c->gamma, *u = c->u;
    int it = 0;
    while (it < max_iterations) {
        /* (re)start: residual -u_B, z = P^-1 (-u_B) */
        for (int r = 0; r < m; r++) q[r] = -u[r];
        mo_bil_precond(c, q, z);
        memcpy(pv, z, (size_t)m * sizeof(double));
        double rz = mo_bil_dot(c, q, z);
        if (!(rz > 0.0)) return it;
        bool restart = false;
        while (it < max_iterations) {
            mo_problem_apply(c->p, pv, q, c->work);
            double pq = mo_bil_dot(c, pv, q);
            if (!(pq > 0.0)) return it; /* N_BB singular along p: nothing more to gain */
            double alpha = rz / pq;
            c->u_exact = false;
            for (int r = 0; r < m; r++) {
                g[r] += alpha * pv[r]; /* pv is 0 outside B */
                u[r] += alpha * q[r];
            }
            if (iteration_ends(c, ++it, &restart)) break;
            for (int r = 0; r < m; r++) q[r] = -u[r];
            mo_bil_precond(c, q, z);
            double rz1 = mo_bil_dot(c, q, z);
            if (!(rz1 > 0.0)) return it;
            double beta = rz1 / rz;
            rz = rz1;
            for (int r = 0; r < m; r++) pv[r] = z[r] + beta * pv[r];
        }
        if (!restart) break;
    }
    return it;
}

/* a Krylov solve of a mixed problem: the inner solver with vecs vectors of scratch */
static void krylov_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, int vecs,
                         mo_bil_inner_fn inner)
{
    mo_bil c;
    if (mo_bil_begin(&c, p, s, o, vecs)) mo_bil_run(&c, inner);
    mo_bil_end(&c);
}

/* a problem with only bilateral blocks goes to the ops form (krylov_ops.c: CPU or device); a mixed one
 * stays here, on the CPU */
static bool ops_form(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, bool minres)
{
    if (mo_krylov_ops_applies(p)) {
        mo_krylov_ops_solve(p, s, o, minres);
        return true;
    }
    if (!o->device) return false;
    mo_ops_refuse(o, minres ? "solver 'minres' runs on the cuda backend for joints alone; with contacts, limits or "
                              "motor rows in the step it alternates with Gauss-Seidel sweeps, which run on the cpu "
                              "backend only"
                            : "solver 'cg' runs on the cuda backend for joints alone; with contacts, limits or "
                              "motor rows in the step it alternates with Gauss-Seidel sweeps, which run on the cpu "
                              "backend only");
    mo_ops_failed(o);
    return true;
}

void mo_solver_cg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    if (!ops_form(p, s, o, false)) krylov_solve(p, s, o, 3, cg_inner);
}

/* ---- MINRES ---- */

int mo_bil_minres_inner(mo_bil *c, int max_iterations)
{
    const int m = c->p->m;
    const size_t bytes = (size_t)m * sizeof(double);
    double *g = c->gamma, *u = c->u;
    double *r1 = c->vecs, *r2 = r1 + m, *y = r2 + m, *v = y + m;
    double *w = v + m, *w1 = w + m, *w2 = w1 + m;
    double *av = w2 + m, *aw = av + m, *aw1 = aw + m, *aw2 = aw1 + m;
    int it = 0;
    while (it < max_iterations) {
        /* (re)start from the current residual b = -u_B */
        for (int r = 0; r < m; r++) r1[r] = -u[r];
        mo_bil_mask(c, r1);
        memcpy(r2, r1, bytes);
        mo_bil_precond(c, r1, y);
        double beta1 = mo_bil_dot(c, r1, y);
        if (!(beta1 > 0.0)) return it;
        beta1 = sqrt(beta1);
        double oldb = 0.0, beta = beta1;
        mo_minres_rot g_rot = {.cs = -1.0, .sn = 0.0, .dbar = 0.0, .epsln = 0.0, .phibar = beta1};
        memset(w, 0, bytes);
        memset(w1, 0, bytes);
        memset(w2, 0, bytes);
        memset(aw, 0, bytes);
        memset(aw1, 0, bytes);
        memset(aw2, 0, bytes);
        bool restart = false;
        for (int local = 0; it < max_iterations; local++) {
            /* Lanczos step on P^-1 N */
            double sc = 1.0 / beta;
            for (int r = 0; r < m; r++) v[r] = sc * y[r];
            mo_problem_apply(c->p, v, av, c->work);
            memcpy(y, av, bytes);
            mo_bil_mask(c, y);
            if (local > 0)
                for (int r = 0; r < m; r++) y[r] -= (beta / oldb) * r1[r];
            double alfa = mo_bil_dot(c, v, y);
            for (int r = 0; r < m; r++) y[r] -= (alfa / beta) * r2[r];
            double *t = r1;
            r1 = r2;
            r2 = y;
            y = t;
            mo_bil_precond(c, r2, y);
            oldb = beta;
            beta = mo_bil_dot(c, r2, y);
            if (beta < 0.0) return it; /* P not positive definite: cannot happen with N_ii > 0 */
            beta = sqrt(beta);
            /* Givens rotation of the tridiagonal's new column */
            double oldeps, delta, den, phi;
            mo_minres_rotate(&g_rot, alfa, beta, &oldeps, &delta, &den, &phi);
            c->u_exact = false;
            /* w1 <- w2, w2 <- w, w <- (v - oldeps w1 - delta w2) / gamma; N w alike */
            double *ow1 = w1, *oaw1 = aw1;
            w1 = w2;
            w2 = w;
            w = ow1;
            aw1 = aw2;
            aw2 = aw;
            aw = oaw1;
            for (int r = 0; r < m; r++) {
                w[r] = (v[r] - oldeps * w1[r] - delta * w2[r]) * den;
                aw[r] = (av[r] - oldeps * aw1[r] - delta * aw2[r]) * den;
                g[r] += phi * w[r];
                u[r] += phi * aw[r];
            }
            if (iteration_ends(c, ++it, &restart)) break;
            if (!(beta > 0.0)) return it; /* the Krylov space is exhausted: u_B is as small as it gets */
        }
        if (!restart) break;
    }
    return it;
}

void mo_solver_minres(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o)
{
    if (!ops_form(p, s, o, true)) krylov_solve(p, s, o, 11, mo_bil_minres_inner);
}
