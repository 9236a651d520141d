/* ops_check.h: what test_ops and test_gpu_solvers share: the problems
 * (steps of the built-in scenes, the shared FCLIB problems in the explicit
 * form mo_fc_solve poses) and the conformance check of a backend's
 * operations against plain references. */
#ifndef MO_TESTS_OPS_CHECK_H
#define MO_TESTS_OPS_CHECK_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fclib_shared.h"
#include "moreau/fclib.h"
#include "scenes_builtin.h"
#include "solver/ops.h"
#include "solver/bilateral.h"
#include "solver/krylov_ops.h"
#include "step/step.h"

/* ---- problems ---- */

typedef struct tcase {
    char name[96];
    mo_world *w;         /* J form: the world whose arrays p points into */
    mo_problem p;
    double *gamma0;      /* the warm start */
    /* explicit form (FCLIB): the arrays p points into */
    mo_fc_problem fc;
    int *block_row;
    uint8_t *kind;
    double *eta, *lo, *hi, *diag, *mu;
} tcase;

static bool scene_case(tcase *c, const char *scene, int steps)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s after %d steps", scene, steps);
    mo_world_def d = mo_default_world_def();
    if (mo_world_create(&d, &c->w, NULL, 0) != MO_OK) return false;
    mo_scene sc;
    char err[256];
    if (mo_scene_build(scene, c->w, &sc, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s: %s\n", scene, err);
        return false;
    }
    mo_scene_free(&sc);
    for (int i = 0; i < steps; i++) mo_world_step(c->w);
    if (mo_step_predict(MO_STEP_CTX(c->w)) || mo_step_collide(MO_STEP_CTX(c->w)) ||
        mo_step_assemble(MO_STEP_CTX(c->w), &c->p))
        return false;
    c->gamma0 = malloc(((size_t)c->p.m + 1) * sizeof(double));
    memcpy(c->gamma0, c->w->gamma.p, (size_t)c->p.m * sizeof(double));
    return true;
}

/* an FCLIB problem in the explicit form, as mo_fc_solve poses it (the test's own copy of that setup) */
static bool fclib_case(tcase *c, const char *file, int max_rows)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", file);
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", fclib_dir(), file);
    if (mo_fc_read(path, &c->fc, err, sizeof err) != MO_OK) return false;
    const int nc = c->fc.nc, m = 3 * nc;
    if (m > max_rows || m == 0) { /* the largest ones are covered by the fclib suites */
        mo_fc_free(&c->fc);
        return false;
    }
    c->block_row = malloc(((size_t)nc + 1) * sizeof(int));
    c->kind = malloc((size_t)nc);
    c->eta = malloc((size_t)nc * sizeof(double));
    c->mu = malloc((size_t)nc * sizeof(double));
    c->lo = calloc((size_t)m, sizeof(double));
    c->hi = malloc((size_t)m * sizeof(double));
    c->diag = calloc((size_t)m, sizeof(double));
    c->gamma0 = calloc((size_t)m + 1, sizeof(double));
    for (int i = 0; i < m; i++) {
        c->hi[i] = INFINITY;
        for (int k = c->fc.W.ptr[i]; k < c->fc.W.ptr[i + 1]; k++)
            if (c->fc.W.col[k] == i) c->diag[i] = c->fc.W.val[k];
    }
    double qn = 0.0;
    for (int i = 0; i < m; i++) qn += c->fc.q[i] * c->fc.q[i];
    for (int k = 0; k < nc; k++) {
        c->block_row[k] = 3 * k;
        c->kind[k] = MO_BLOCK_CONTACT;
        c->mu[k] = c->fc.mu[k];
        c->eta[k] = (c->diag[3 * k] + c->diag[3 * k + 1] + c->diag[3 * k + 2]) / 3.0 * 1.5;
    }
    c->block_row[nc] = m;
    mo_problem *p = &c->p;
    p->m = m;
    p->n_ptr = c->fc.W.ptr;
    p->n_col = c->fc.W.col;
    p->n_val = c->fc.W.val;
    p->r = c->fc.q;
    p->lo = c->lo;
    p->hi = c->hi;
    p->diag = c->diag;
    p->nblocks = nc;
    p->block_row = c->block_row;
    p->block_kind = c->kind;
    p->block_mu = c->mu;
    p->block_eta = c->eta;
    p->q_contact_norm = sqrt(qn);
    p->threads = 1;
    return true;
}

static void case_free(tcase *c)
{
    if (c->w) mo_world_destroy(c->w);
    if (c->fc.W.ptr) mo_fc_free(&c->fc);
    free(c->block_row);
    free(c->kind);
    free(c->eta);
    free(c->mu);
    free(c->lo);
    free(c->hi);
    free(c->diag);
    free(c->gamma0);
}

/* ---- 1 conformance ---- */

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* y = N x from N formed densely: J M^-1 J^T + Sigma, or the explicit N */
static void dense_apply(const mo_problem *p, const double *x, double *y)
{
    const int m = p->m;
    if (p->n_ptr) {
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int k = p->n_ptr[i]; k < p->n_ptr[i + 1]; k++) s += p->n_val[k] * x[p->n_col[k]];
            y[i] = s;
        }
        return;
    }
    double *ji = calloc((size_t)p->n, sizeof(double));
    for (int i = 0; i < m; i++) {
        for (int k = p->row_ptr[i]; k < p->row_ptr[i + 1]; k++) ji[p->col[k]] = p->val[k];
        double s = p->sigma[i] * x[i];
        for (int j = 0; j < m; j++) {
            double nij = 0.0;
            for (int k = p->row_ptr[j]; k < p->row_ptr[j + 1]; k++) nij += ji[p->col[k]] * p->wval[k];
            s += nij * x[j];
        }
        y[i] = s;
        for (int k = p->row_ptr[i]; k < p->row_ptr[i + 1]; k++) ji[p->col[k]] = 0.0;
    }
    free(ji);
}

static double rel_diff(const double *a, const double *b, int m)
{
    double d = 0.0, n = 0.0;
    for (int i = 0; i < m; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        n = fmax(n, fabs(b[i]));
    }
    return n > 0.0 ? d / n : d;
}

static bool same(const double *a, const double *b, int m)
{
    return m == 0 || !memcmp(a, b, (size_t)m * sizeof(double));
}

/* every operation of ops O (over p) against the references; tol: the relative tolerance of the products
 * and sums (0: bit for bit, where the arithmetic is stated) */
static void conformance(const mo_ops *O, const char *name, double tol)
{
    const mo_problem *p = O->p;
    const int m = p->m;
    const size_t b = (size_t)m * sizeof(double);
    double *hx = malloc(b + 8), *hy = malloc(b + 8), *hz = malloc(b + 8), *ref = malloc(b + 8), *got = malloc(b + 8);
    double *x = mo_ops_vec(O, 0), *y = mo_ops_vec(O, 1), *z = mo_ops_vec(O, 2), *w = mo_ops_vec(O, 3);
    for (int i = 0; i < m; i++) {
        hx[i] = urand();
        hy[i] = urand();
        hz[i] = 0.5 + fabs(urand()); /* positive: a divisor */
    }
    O->upload(O, x, hx);
    O->upload(O, y, hy);
    O->upload(O, z, hz);
    int bad = 0;
#define OP_CHECK(cond, what)                                            \
    do {                                                                \
        CHECK(cond);                                                    \
        if (!(cond) && bad++ < 8) fprintf(stderr, "  %s: %s\n", name, what); \
    } while (0)
#define GOT(v) (O->download(O, got, v), got)
    /* N x */
    O->apply(O, x, w);
    dense_apply(p, hx, ref);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= fmax(tol, 1e-12), "apply against dense N");
    /* projection and D^-1, block by block */
    memcpy(ref, hx, b);
    for (int k = 0; k < p->nblocks; k++)
        mo_k_project_block(ref + p->block_row[k], p->block_kind[k], p->block_mu[k], p->lo[p->block_row[k]],
                           p->hi[p->block_row[k]]);
    O->copy(O, w, x);
    O->project(O, w);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "project");
    for (int k = 0; k < p->nblocks; k++) mo_problem_block_solve(p, k, hx + p->block_row[k], ref + p->block_row[k]);
    O->block_solve(O, x, w);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "block_solve");
    /* residuals at (projected x, y) */
    double c0, e0, c1, e1;
    double *px = malloc(b + 8);
    memcpy(px, hx, b);
    mo_problem_project(p, px);
    mo_problem_residuals(p, px, hy, &c0, &e0);
    O->upload(O, w, px);
    O->residuals(O, w, y, &c1, &e1);
    OP_CHECK(fabs(c1 - c0) <= fmax(tol, 0.0) * fabs(c0) && fabs(e1 - e0) <= tol * fabs(e0), "residuals");
    free(px);
    /* the vector updates, each against its stated arithmetic */
    const double a = 0.37, bb = -1.3;
    for (int i = 0; i < m; i++) ref[i] = a * hx[i];
    O->scale(O, w, a, x);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "scale");
    for (int i = 0; i < m; i++) ref[i] = hx[i] / 3.7;
    O->divide(O, w, x, 3.7);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "divide");
    for (int i = 0; i < m; i++) ref[i] = hx[i] + a * hy[i];
    O->waxpy(O, w, x, a, y);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "waxpy");
    O->axpy(O, w, bb, z);
    for (int i = 0; i < m; i++) ref[i] += bb * hz[i];
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "axpy");
    for (int i = 0; i < m; i++) ref[i] = hx[i] - hy[i];
    O->sub(O, w, x, y);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "sub");
    for (int i = 0; i < m; i++) ref[i] = hx[i] + bb * (hx[i] - hy[i]);
    O->extrap(O, w, x, bb, y);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "extrap");
    for (int i = 0; i < m; i++) ref[i] = hx[i] - a * hy[i] / hz[i];
    O->pstep(O, w, x, a, y, z);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "pstep");
    for (int i = 0; i < m; i++) ref[i] = 1.0 + 0.01 * (double)(i % 7);
    O->seed(O, w);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "seed");
    O->copy(O, w, y);
    OP_CHECK(same(GOT(w), hy, m), "copy");
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k], nr = p->block_row[k + 1] - r0;
        double avg = 0.0;
        for (int i = 0; i < nr; i++) avg += p->diag[r0 + i];
        avg /= (double)nr;
        for (int i = 0; i < nr; i++) ref[r0 + i] = avg > 0.0 ? avg : 1.0;
    }
    O->block_mean_diag(O, w);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "block_mean_diag");
    /* the sums, in index order */
    double sd = 0.0, sw = 0.0, si = 0.0, s2 = 0.0, s3 = 0.0;
    for (int i = 0; i < m; i++) {
        sd += hx[i] * hy[i];
        s2 += hy[i] * hz[i];
        s3 += hx[i] * hx[i];
        sw += hx[i] * hz[i] * hy[i];
        si += hx[i] * hy[i] / hz[i];
    }
    double d3[3];
    O->dot3(O, x, y, y, z, x, x, d3);
    const double st = tol > 0.0 ? tol : 0.0;
    OP_CHECK(fabs(O->dot(O, x, y) - sd) <= st * (fabs(sd) + 1.0), "dot");
    OP_CHECK(fabs(d3[0] - sd) <= st * (fabs(sd) + 1.0) && fabs(d3[1] - s2) <= st * (fabs(s2) + 1.0) &&
                 fabs(d3[2] - s3) <= st * (fabs(s3) + 1.0),
             "dot3");
    OP_CHECK(fabs(O->wdot(O, x, z, y) - sw) <= st * (fabs(sw) + 1.0), "wdot");
    OP_CHECK(fabs(O->idot(O, x, y, z) - si) <= st * (fabs(si) + 1.0), "idot");
    /* step_dots(x, y, nx = z, g = y, r = x, x1 = z) and dot_diff(z, x, y) */
    double q0 = 0.0, q1 = 0.0, q2 = 0.0, q3 = 0.0, sdd = 0.0, sd3[4];
    for (int i = 0; i < m; i++) {
        double d = hx[i] - hy[i], e = hz[i] - (hy[i] - hx[i]);
        q0 += d * d;
        q1 += d * e;
        q2 += e * e;
        q3 += hy[i] * (hx[i] - hz[i]);
        sdd += hz[i] * (hx[i] - hy[i]);
    }
    O->step_dots(O, x, y, z, y, x, z, sd3);
    OP_CHECK(fabs(sd3[0] - q0) <= st * (fabs(q0) + 1.0) && fabs(sd3[1] - q1) <= st * (fabs(q1) + 1.0) &&
                 fabs(sd3[2] - q2) <= st * (fabs(q2) + 1.0) && fabs(sd3[3] - q3) <= st * (fabs(q3) + 1.0),
             "step_dots");
    O->step_dots(O, x, y, z, y, x, NULL, sd3);
    OP_CHECK(sd3[3] == 0.0 && fabs(sd3[0] - q0) <= st * (fabs(q0) + 1.0), "step_dots without x1");
    OP_CHECK(fabs(O->dot_diff(O, z, x, y) - sdd) <= st * (fabs(sdd) + 1.0), "dot_diff");
    /* sums: the six terms at once, each equal to its single sum (the same value on the CPU, bit for bit) */
    {
        mo_sum t6[6] = {{MO_SUM_DOT, x, y, NULL},  {MO_SUM_WDOT, x, z, y}, {MO_SUM_IDOT, x, y, z},
                        {MO_SUM_DIFF, z, x, y},   {MO_SUM_DOT, y, z, NULL}, {MO_SUM_DOT, x, x, NULL}};
        const double want[6] = {sd, sw, si, sdd, s2, s3};
        double fused[6];
        O->sums(O, 6, t6, fused);
        for (int q = 0; q < 6; q++)
            OP_CHECK(fabs(fused[q] - want[q]) <= st * (fabs(want[q]) + 1.0), "sums (six terms)");
        O->sums(O, 2, t6 + 1, fused);
        OP_CHECK(fabs(fused[0] - sw) <= st * (fabs(sw) + 1.0) && fabs(fused[1] - si) <= st * (fabs(si) + 1.0),
                 "sums (two terms)");
    }
    for (int i = 0; i < m; i++) ref[i] = hx[i] / hz[i];
    O->ediv(O, w, x, z);
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "ediv");
    /* the Krylov solvers' operations: zero, mask_pos (d = y - 1.05, about half the rows positive), the block
     * Jacobi against solver/bilateral.c's host form on the same problem */
    O->zero(O, w);
    for (int i = 0; i < m; i++) ref[i] = 0.0;
    OP_CHECK(same(GOT(w), ref, m), "zero");
    for (int i = 0; i < m; i++) hz[i] = hy[i] - 1.05;
    O->upload(O, z, hz);
    O->copy(O, w, x);
    O->mask_pos(O, w, z);
    for (int i = 0; i < m; i++) ref[i] = hz[i] > 0.0 ? hx[i] : 0.0;
    OP_CHECK(same(GOT(w), ref, m), "mask_pos");
    O->upload(O, z, p->diag);
    O->bil_precond(O, x, w, z);
    {
        mo_bil bc;
        memset(&bc, 0, sizeof bc);
        bc.p = p;
        mo_bil_precond(&bc, hx, ref);
    }
    OP_CHECK(rel_diff(GOT(w), ref, m) <= tol, "bil_precond");
#undef GOT
#undef OP_CHECK
    free(hx);
    free(hy);
    free(hz);
    free(ref);
    free(got);
}

/* ---- one solve, into its own buffers ---- */

typedef struct solved {
    double *gamma, *v, *rh, *eh, *scratch;
    mo_solve_out o;
} solved;

/* fn on p under s from gamma0 on device dev (NULL: the CPU), histories recorded; the scratch is
 * mo_solve's for s and starts as NaN, so that a solver reading before writing shows */
static void solve_on(struct mo_device *dev, mo_solver_fn fn, const mo_problem *p, const mo_solver_settings *s,
                     const double *gamma0, solved *r)
{
    r->gamma = malloc(((size_t)p->m + 1) * sizeof(double));
    memcpy(r->gamma, gamma0, (size_t)p->m * sizeof(double));
    r->v = calloc((size_t)p->n + 1, sizeof(double));
    r->rh = calloc((size_t)s->max_iterations + 1, sizeof(double));
    r->eh = calloc((size_t)s->max_iterations + 1, sizeof(double));
    size_t ss = mo_solve_scratch_size(p, s);
    r->scratch = malloc(ss * sizeof(double));
    for (size_t i = 0; i < ss; i++) r->scratch[i] = NAN;
    memset(&r->o, 0, sizeof r->o);
    r->o.gamma = r->gamma;
    r->o.v = p->n > 0 ? r->v : NULL;
    r->o.res_hist = r->rh;
    r->o.err_hist = r->eh;
    r->o.scratch = r->scratch;
    r->o.device = dev;
    fn(p, s, &r->o);
}

static void solved_free(solved *r)
{
    free(r->gamma);
    free(r->v);
    free(r->rh);
    free(r->eh);
    free(r->scratch);
}

#endif
