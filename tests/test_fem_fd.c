/* test_fem_fd.c: finite differences of the FEM element rows inside the
 * Newton system (issue 7: "finite-difference checks of every residual's
 * Jacobian ... each material"). mo_newton_probe (engine/newton.h) returns
 * the residual g(v, lambda) = C(x+) + eps lambda of every element row at
 * x+ = x + h v, and its derivative dg along (dv, dl) as the Newton step
 * linearises it: dg = h J dv + eps_t dl, J the Jacobian mo_fem_newton_eval
 * assembles (engine/fem_world.c), eps_t the rows' compliance in the linear
 * system (mo_fem_newton_tangent). Here dg is compared with central
 * differences of the probe's own g, for each material model, on a box of
 * 2 x 2 x 1 cells (24 tetrahedra, 0.2 x 0.2 x 0.1 m, E 1e5 Pa, nu 0.3,
 * h = 0.01 s; a third of the elements activated by a = 0.3, a third by
 * a = -0.2) whose nodes are put at x = c + R0 (X - c + s (A (X - c) + U)):
 * R0 a rotation by 1.1 rad, A a fixed stretch and shear (entries up to
 * 0.08), U random node displacements up to 4 mm (4 % of a cell), s the
 * strain level (s = 1: |dev S|_F up to 0.165 per element, |S - I|_F up to
 * 0.259; s = 1/2; s = 0: a rigid rotation, S = I, or for an activated
 * element a pure dilation S = (1 + a)^(-1/3) I); v = s V with V random in
 * [-0.1, 0.1] m/s; lambda random
 * in [-5, 5] N (both signs of the Neo-Hookean volume row's force); dv, dl
 * random in [-1, 1]. The v and lambda directions are probed separately.
 * Difference step 1e-5 (x moves by h 1e-5 |dv| <= 1e-7 m).
 *
 * References, per element at its x+, norms over the element's rows; "rel."
 * is relative to the norm over the rows of sum_j |J_ij dx_j| (the size of
 * the terms a row's derivative sums, which does not vanish by chance):
 *   J_full  the exact Jacobian, R = R(F(x)) varying (kernels/fem.h:
 *           mo_fem_corot_jacobian_full, cof(F), F / |F|; checked against
 *           finite differences in tests/fem);
 *   lin     the linearisation the engine means, written here from dF alone:
 *           cof(F) : dF and F : dF / |F| exactly, sym(R^T dF) (R held) for
 *           the rows on sym(R^T F); engineering shear, the corotational
 *           normal rows projected on Q (fem_world.c), 7-row shear / sqrt 2.
 * Asserted for s = 1, 1/2 and 0:
 *   1 g = C(x+) + eps lambda with the kernels' rows and the closed-form
 *     compliances (E_Y, nu, V), to 1e-12 max(1, |g|);
 *   2 v direction: the difference of g equals h J_full dx to 1e-8 rel.;
 *     dg equals lin to 1e-12 rel. (every model);
 *   3 exact rows (the paper's 2-row Neo-Hookean; the volume row J - alpha of
 *     the 7-row form): dg equals the difference to 1e-8 rel.;
 *   4 rows with R held (the 6 corotational rows, the 7-row form's 6 stretch
 *     rows): the gap fd - dg equals R's variation h J_full dx - lin to 1e-8
 *     rel. With M = R^T dF the gap is the rows of D = [R^T dR, S] / 2 =
 *     [R^T dR, dev S] / 2, the part of dS the fixed R leaves out, and is
 *     bounded by
 *       |gap| <= k |skew M|_F |dev S|_F / (sigma_2 + sigma_3)
 *     (k = 2 corotational, engineering shear; sqrt 2 for the 7-row rows,
 *     shear / sqrt 2; sigma the singular values of F, descending) plus
 *     1e-8 |dg| for the differences' round-off: asserted. The gap does no
 *     work against the element's equilibrium multipliers lambda* = -eps^-1 C
 *     (|lambda*^T gap| < 1e-6 |lambda*| |gap|, s > 0): the fixed-R force
 *     J^T lambda* is the exact elastic force (fem.h). At s = 1 the total
 *     gap is above 1 % of |dg|; at s = 0 (|dev S| < 1e-14, though
 *     |S - I| = 0.145 in the activated elements) below 1e-8 |dg|; the ratio
 *     of the total gaps at s = 1 and s = 1/2 is in [1.95, 2.05] (linear in
 *     the deviatoric strain).
 *   5 lambda direction: the difference equals eps dl (g is linear in lambda)
 *     to 1e-8 |eps dl|; dg equals eps dl, except the 7-row stretch rows of an
 *     element with lambda_H > 0: eps dl / (1 + eps lambda_H) (the tangent
 *     compliance 1/(mu V + lambda_H) of mo_fem_newton_tangent, by design not
 *     the derivative of g), to 1e-12 |eps dl|; both branches occur. */
#include "testutil.h"
#include "../tools/fem_box.h"
#include "step/step.h"
#include "solver/newton.h"
#include "kernels/fem.h"

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 70, 6)

static const double H = 0.01, YOUNG = 1e5, NU = 0.3, DIFF = 1e-5;

typedef struct fd_result {
    double max_strain;   /* largest |S - I|_F of an element at x+ */
    double max_dev;      /* largest |dev S|_F = |S - tr(S)/3 I|_F */
    double g_err;        /* 1: max |g - (C + eps lambda)| / max(1, |C + eps lambda|) */
    double full_err;     /* 2: max |fd - h J_full dx| / scale (scale: |sum_j |J_ij dx_j||_2 over the rows) */
    double exact_err;    /* 3: max |fd - dg| / scale over the exact rows */
    double fix_err;      /* 2: max |dg - lin| / scale (lin: linearised(), every row) */
    double gap_err;      /* 4: max |(fd - dg) - (h J_full dx - lin)| / scale */
    double gap_rel;      /* 4: max |fd - dg| / |dg| over the fixed-R rows */
    double gap_bound;    /* 4: max |fd - dg| / bound */
    double gap_c;        /* 4: max |fd - dg| / (|skew M| |S - I|) */
    double gap_work;     /* 4: max |lambda*^T (fd - dg)| / (|lambda*| |fd - dg|), lambda* = -eps^-1 C */
    double gap_total;    /* 4: |fd - dg|_2 over every fixed-R row */
    double dg_total;     /* 4: |dg|_2 over the same rows */
    double lfd_err;      /* 5: max |fd_l - eps dl| / |eps dl| */
    double ldg_err;      /* 5: max |dg_l - want| / |eps dl| */
    int n_tangent;       /* 5: 7-row elements with lambda_H > 0 (modified tangent) */
} fd_result;

static double nrm(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

static void upd(double *m, double v)
{
    if (!(v <= *m)) *m = v; /* NaN propagates */
}

/* the rows of one element in the engine's order (the corotational normal rows projected on Q, fem_world.c),
 * their exact Jacobian (kernels: R = R(F(x)) varying) and the closed-form compliances */
static const double QN[3][3] = {{0.57735026918962576, 0.57735026918962576, 0.57735026918962576},
                                {0.70710678118654752, -0.70710678118654752, 0.0},
                                {0.40824829046386302, 0.40824829046386302, -0.81649658092772603}};

static int element_rows(mo_fem_model model, const double *F, const double *Dm_inv, double V, double *C,
                        double *Jfull, double *eps)
{
    const double mu = YOUNG / (2 * (1 + NU)), lam_nh = YOUNG / (2 * (1 + NU) * (1 - 2 * NU));
    const double alpha = 1 + mu / lam_nh;
    double R[9], S[9];
    mo_fem_polar(F, R, S, NULL);
    if (model == MO_FEM_NEO_HOOKEAN_2ROW) {
        double ic = 0;
        for (int k = 0; k < 9; k++) ic += F[k] * F[k];
        C[0] = mo_m3_det(F) - alpha;
        C[1] = sqrt(ic);
        mo_fem_nh_jacobian(F, Dm_inv, Jfull);
        eps[0] = 1 / (lam_nh * V);
        eps[1] = 1 / (mu * V);
        return 2;
    }
    double cv[6], jf[72];
    mo_fem_corot_rows(F, R, cv);
    CHECK(mo_fem_corot_jacobian_full(R, S, Dm_inv, jf) == MO_FEM_OK);
    if (model == MO_FEM_NEO_HOOKEAN) {
        double cof[9], g[12];
        mo_fem_cofactor(F, cof);
        mo_fem_shape_gradients(Dm_inv, g);
        mo_fem_row_from_dF(cof, g, Jfull);
        C[0] = mo_m3_det(F) - alpha;
        eps[0] = 1 / (lam_nh * V);
        for (int k = 0; k < 6; k++) {
            double f = k < 3 ? 1.0 : 1 / SQ2;
            C[1 + k] = (cv[k] + (k < 3 ? 1.0 : 0.0)) * f;
            for (int c = 0; c < 12; c++) Jfull[12 * (1 + k) + c] = f * jf[12 * k + c];
            eps[1 + k] = 1 / (mu * V);
        }
        return 7;
    }
    for (int q = 0; q < 3; q++) {
        C[q] = QN[q][0] * cv[0] + QN[q][1] * cv[1] + QN[q][2] * cv[2];
        for (int c = 0; c < 12; c++) Jfull[12 * q + c] = QN[q][0] * jf[c] + QN[q][1] * jf[12 + c] + QN[q][2] * jf[24 + c];
    }
    for (int q = 3; q < 6; q++) {
        C[q] = cv[q];
        memcpy(Jfull + 12 * q, jf + 12 * q, 12 * sizeof(double));
    }
    eps[0] = (1 - 2 * NU) / (YOUNG * V);
    eps[1] = eps[2] = (1 + NU) / (YOUNG * V);
    eps[3] = eps[4] = eps[5] = 2 * (1 + NU) / (YOUNG * V);
    return 6;
}

/* the derivative of the element's rows along dF as the Newton step means to linearise them, written here
 * from dF alone (no kernel Jacobian): det F and |F| exactly (cof(F) : dF with cof = det(F) F^-T, and
 * F : dF / |F|); the rows on sym(R^T F) with R held: sym(R^T dF) */
static void linearised(mo_fem_model model, const double *F, const double *R, const double *dF, double *ex)
{
    double Fi[9], detF = mo_m3_det(F), cd = 0, fdf = 0, fn = 0;
    CHECK(mo_m3_inverse(Fi, F));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) cd += detF * Fi[3 * j + i] * dF[3 * i + j];
    for (int k = 0; k < 9; k++) {
        fdf += F[k] * dF[k];
        fn += F[k] * F[k];
    }
    if (model == MO_FEM_NEO_HOOKEAN_2ROW) {
        ex[0] = cd;
        ex[1] = fdf / sqrt(fn);
        return;
    }
    double M[9], e[9], vg[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) M[3 * i + j] = R[i] * dF[j] + R[3 + i] * dF[3 + j] + R[6 + i] * dF[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) e[3 * i + j] = 0.5 * (M[3 * i + j] + M[3 * j + i]);
    vg[0] = e[0]; vg[1] = e[4]; vg[2] = e[8];
    vg[3] = 2 * e[5]; vg[4] = 2 * e[6]; vg[5] = 2 * e[1]; /* engineering shear (yz, zx, xy) */
    if (model == MO_FEM_NEO_HOOKEAN) {
        ex[0] = cd;
        for (int k = 0; k < 6; k++) ex[1 + k] = k < 3 ? vg[k] : vg[k] / SQ2;
        return;
    }
    for (int q = 0; q < 3; q++) ex[q] = QN[q][0] * vg[0] + QN[q][1] * vg[1] + QN[q][2] * vg[2];
    for (int q = 3; q < 6; q++) ex[q] = vg[q];
}

/* probe at (v, lam) along (dv, dl) and central differences of g; fd, dg out (m) */
static void probe_fd(mo_world *w, mo_problem *p, const mo_newton_settings *ns, const double *v, const double *lam,
                     const double *dv, const double *dl, double *g, double *dg, double *fd)
{
    int n = p->n, m = p->m + mo_fem_newton_rows(w, NULL);
    double *vp = malloc((size_t)n * sizeof(double)), *lp = malloc((size_t)m * sizeof(double));
    double *gp = malloc((size_t)m * sizeof(double)), *gm = malloc((size_t)m * sizeof(double));
    double *tmp = malloc((size_t)m * sizeof(double)), *wf = malloc((size_t)(m + w->ncontacts + 1) * sizeof(double));
    uint8_t *type = malloc((size_t)m);
    CHECK(mo_newton_probe(MO_STEP_CTX(w), p, ns, v, lam, dv, dl, NULL, wf, g, dg, type) == 0);
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
        for (int i = 0; i < n; i++) vp[i] = v[i] + sgn * DIFF * dv[i];
        for (int r = 0; r < m; r++) lp[r] = lam[r] + sgn * DIFF * dl[r];
        CHECK(mo_newton_probe(MO_STEP_CTX(w), p, ns, vp, lp, dv, dl, wf, NULL, sgn > 0 ? gp : gm, tmp, type) == 0);
    }
    for (int r = 0; r < m; r++) {
        fd[r] = (gp[r] - gm[r]) / (2 * DIFF);
        CHECK(type[r] == MO_NROW_BILATERAL);
    }
    free(vp); free(lp); free(gp); free(gm); free(tmp); free(wf); free(type);
}

/* one model at strain level s; the same random state (seed) for every s */
static void run(mo_fem_model model, double s, fd_result *res)
{
    memset(res, 0, sizeof *res);
    mo_world_def wd = mo_default_world_def();
    wd.gravity = (mo_vec3){0, 0, 0};
    wd.time_step = H;
    wd.solver.kind = MO_SOLVER_NEWTON;
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    box_mesh b;
    box_mesh_make(&b, 2, 2, 1, (mo_vec3){0, 0, 0}, (mo_vec3){0.2, 0.2, 0.1});
    mo_fem_material_def mat = {YOUNG, NU, 1000.0, model};
    mo_fem_mesh_def d = box_mesh_def(&b, &mat, NULL, 0);
    /* activations: a third of the elements inflated by 30 %, a third shrunk by 20 % */
    double *act = malloc((size_t)b.nt * sizeof(double));
    for (int t = 0; t < b.nt; t++) act[t] = t % 3 == 0 ? 0.3 : (t % 3 == 1 ? -0.2 : 0.0);
    d.activation = act;
    mo_fem_mesh_id id;
    CHECK(mo_fem_mesh_create(w, &d, &id) == MO_OK);

    /* deformed, rotated positions x = c + R0 (X - c + s (A (X - c) + U)) */
    uint64_t seed = 12345;
    double R0[9], c[3] = {0.1, 0.1, 0.05};
    const double A[9] = {0.08, 0.03, -0.02, -0.01, -0.05, 0.04, 0.02, 0.01, 0.06};
    mat_axis_angle(0.3, -0.5, 0.8, 1.1, R0);
    double *xs = malloc((size_t)b.nn * 3 * sizeof(double));
    int *slot = malloc((size_t)b.nn * sizeof(int));
    for (int i = 0; i < b.nn; i++) {
        double X[3] = {b.nodes[i].x - c[0], b.nodes[i].y - c[1], b.nodes[i].z - c[2]}, y[3];
        for (int k = 0; k < 3; k++)
            y[k] = X[k] + s * (A[3 * k] * X[0] + A[3 * k + 1] * X[1] + A[3 * k + 2] * X[2] +
                               sm64_uniform(&seed, -0.004, 0.004));
        mo_particle_id pid;
        CHECK(mo_fem_mesh_node_particle(w, id, i, &pid) == MO_OK);
        slot[i] = (int)pid.index - 1; /* ids count slots from 1 */
        for (int k = 0; k < 3; k++) {
            xs[3 * i + k] = c[k] + R0[3 * k] * y[0] + R0[3 * k + 1] * y[1] + R0[3 * k + 2] * y[2];
            w->particles[slot[i]].x[k] = xs[3 * i + k];
        }
    }
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    CHECK(w->ncontacts == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    const int n = p.n, m = p.m + mo_fem_newton_rows(w, NULL);
    const int *dof = (const int *)w->owner_dof.p;
    mo_newton_settings ns = mo_world_solver(w).newton;
    double *v = calloc((size_t)n, sizeof(double)), *dv = calloc((size_t)n, sizeof(double));
    double *zn = calloc((size_t)n, sizeof(double)), *zm = calloc((size_t)m, sizeof(double));
    double *lam = calloc((size_t)m, sizeof(double)), *dl = calloc((size_t)m, sizeof(double));
    double *g = calloc((size_t)m, sizeof(double)), *dg = calloc((size_t)m, sizeof(double));
    double *fd = calloc((size_t)m, sizeof(double)), *dgl = calloc((size_t)m, sizeof(double));
    double *fdl = calloc((size_t)m, sizeof(double));
    for (int i = 0; i < n; i++) {
        v[i] = s * sm64_uniform(&seed, -0.1, 0.1);
        dv[i] = sm64_uniform(&seed, -1, 1);
    }
    for (int r = 0; r < m; r++) {
        lam[r] = sm64_uniform(&seed, -5, 5);
        dl[r] = sm64_uniform(&seed, -1, 1);
    }
    probe_fd(w, &p, &ns, v, lam, dv, zm, g, dg, fd);   /* v direction */
    probe_fd(w, &p, &ns, v, lam, zn, dl, g, dgl, fdl); /* lambda direction */

    const int nr = model == MO_FEM_COROTATIONAL ? 6 : (model == MO_FEM_NEO_HOOKEAN ? 7 : 2);
    CHECK(m - p.m == nr * b.nt);
    const int fix0 = model == MO_FEM_NEO_HOOKEAN ? 1 : 0; /* first fixed-R row of an element */
    const int fixn = model == MO_FEM_COROTATIONAL ? 6 : (model == MO_FEM_NEO_HOOKEAN ? 6 : 0);
    const double kb = model == MO_FEM_COROTATIONAL ? 2.0 : SQ2;
    double gap2 = 0, dg2 = 0;
    for (int t = 0; t < b.nt; t++) {
        double X[12], xp[12], dx[12];
        for (int a = 0; a < 4; a++) {
            int nd = b.tets[4 * t + a], o = dof[w->particles[slot[nd]].owner];
            X[3 * a] = b.nodes[nd].x; X[3 * a + 1] = b.nodes[nd].y; X[3 * a + 2] = b.nodes[nd].z;
            for (int k = 0; k < 3; k++) {
                xp[3 * a + k] = xs[3 * nd + k] + H * v[o + k];
                dx[3 * a + k] = H * dv[o + k];
            }
        }
        mo_fem_tet el;
        CHECK(mo_fem_tet_setup(X, &el) == MO_FEM_OK);
        if (act[t] != 0.0) CHECK(mo_fem_tet_activate(&el, act[t], &el) == MO_FEM_OK);
        double F[9], dF[9], R[9], S[9], sig[3], Ds[9], M[9], Rt[9];
        mo_fem_deformation_gradient(xp, el.Dm_inv, F);
        mo_fem_polar(F, R, S, sig);
        /* the direction's dF = dDs Dm^-1 (F is linear in x) and M = R^T dF */
        for (int col = 0; col < 3; col++)
            for (int i = 0; i < 3; i++) Ds[3 * i + col] = dx[3 * (col + 1) + i] - dx[i];
        mo_m3_mul(dF, Ds, el.Dm_inv);
        mo_m3_transpose(Rt, R);
        mo_m3_mul(M, Rt, dF);
        double Cr[7], Jfull[84], eps[7], ex[7];
        CHECK(element_rows(model, F, el.Dm_inv, el.V, Cr, Jfull, eps) == nr);
        linearised(model, F, R, dF, ex);
        /* strain |S - I|_F, its deviatoric part |dev S|_F, and the rotational part |skew(R^T dF)|_F of the
           direction */
        double es = 0, ed = 0, sk = 0, tr3 = (S[0] + S[4] + S[8]) / 3;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double e = S[3 * i + j] - (i == j), q = 0.5 * (M[3 * i + j] - M[3 * j + i]);
                double de = S[3 * i + j] - (i == j) * tr3;
                es += e * e;
                ed += de * de;
                sk += q * q;
            }
        es = sqrt(es);
        ed = sqrt(ed);
        sk = sqrt(sk);
        upd(&res->max_strain, es);
        upd(&res->max_dev, ed);
        const int r0 = p.m + nr * t;
        double ef[7], ge[7], dge[7], fde[7], gap[7], gx[7], lw[7], ldg[7], lfd[7], sc[7];
        for (int k = 0; k < nr; k++) {
            ef[k] = sc[k] = 0;
            for (int q = 0; q < 12; q++) {
                ef[k] += Jfull[12 * k + q] * dx[q];
                sc[k] += fabs(Jfull[12 * k + q] * dx[q]);
            }
            /* 1 */
            double gw = Cr[k] + eps[k] * lam[r0 + k];
            upd(&res->g_err, fabs(g[r0 + k] - gw) / fmax(1.0, fabs(gw)));
            dge[k] = dg[r0 + k];
            fde[k] = fd[r0 + k];
            ge[k] = fde[k] - ef[k];
            gap[k] = fde[k] - dge[k];
            gx[k] = gap[k] - (ef[k] - ex[k]);
            /* 5 */
            double lH = nr == 7 ? lam[r0] : 0.0, want = eps[k] * dl[r0 + k];
            lw[k] = want;
            lfd[k] = fdl[r0 + k] - want;
            if (nr == 7 && k >= 1 && lH > 0) want = eps[k] * dl[r0 + k] / (1 + eps[k] * lH);
            ldg[k] = dgl[r0 + k] - want;
        }
        if (nr == 7 && lam[r0] > 0) res->n_tangent++;
        upd(&res->full_err, nrm(ge, nr) / nrm(sc, nr));
        upd(&res->lfd_err, nrm(lfd, nr) / nrm(lw, nr));
        upd(&res->ldg_err, nrm(ldg, nr) / nrm(lw, nr));
        /* exact rows: 2-row all, 7-row row 0 */
        int exn = model == MO_FEM_NEO_HOOKEAN_2ROW ? 2 : (model == MO_FEM_NEO_HOOKEAN ? 1 : 0);
        if (exn > 0) {
            upd(&res->exact_err, nrm(gap, exn) / nrm(sc, exn));
            double dd[2];
            for (int k = 0; k < exn; k++) dd[k] = dge[k] - ex[k];
            upd(&res->fix_err, nrm(dd, exn) / nrm(sc, exn));
        }
        if (fixn > 0) {
            double dd[7];
            for (int k = 0; k < fixn; k++) dd[k] = dge[fix0 + k] - ex[fix0 + k];
            double ng = nrm(gap + fix0, fixn), nd = nrm(dge + fix0, fixn), ns_ = nrm(sc + fix0, fixn);
            upd(&res->fix_err, nrm(dd, fixn) / ns_);
            upd(&res->gap_err, nrm(gx + fix0, fixn) / ns_);
            upd(&res->gap_rel, ng / nd);
            double bound = kb * sk * ed / (sig[1] + sig[2]);
            upd(&res->gap_bound, ng / (bound + 1e-8 * nd));
            if (sk * ed > 0) upd(&res->gap_c, ng / (sk * ed));
            /* the work of the element's equilibrium multipliers lambda* = -eps^-1 C on the gap (every row) */
            double wk = 0, ls[7];
            for (int k = 0; k < nr; k++) {
                ls[k] = -Cr[k] / eps[k];
                wk += ls[k] * gap[k];
            }
            if (s > 0) upd(&res->gap_work, fabs(wk) / (nrm(ls, nr) * nrm(gap, nr)));
            gap2 += ng * ng;
            dg2 += nd * nd;
        }
    }
    res->gap_total = sqrt(gap2);
    res->dg_total = sqrt(dg2);
    free(v); free(dv); free(zn); free(zm); free(lam); free(dl); free(g); free(dg); free(fd); free(dgl); free(fdl);
    free(xs); free(slot); free(act);
    box_mesh_free(&b);
    mo_world_destroy(w);
}

static void test_model(mo_fem_model model, const char *name)
{
    group_begin();
    fd_result r[3], wst; /* s = 1, 1/2, 0; the worst of the three */
    const double lv[3] = {1.0, 0.5, 0.0};
    for (int i = 0; i < 3; i++) run(model, lv[i], &r[i]);
    memset(&wst, 0, sizeof wst);
    for (int i = 0; i < 3; i++) {
        upd(&wst.g_err, r[i].g_err);
        upd(&wst.full_err, r[i].full_err);
        upd(&wst.exact_err, r[i].exact_err);
        upd(&wst.fix_err, r[i].fix_err);
        upd(&wst.gap_err, r[i].gap_err);
        upd(&wst.gap_bound, r[i].gap_bound);
        if (lv[i] > 0) upd(&wst.gap_c, r[i].gap_c); /* at s = 0 both sides are round-off */
        upd(&wst.gap_work, r[i].gap_work);
        upd(&wst.lfd_err, r[i].lfd_err);
        upd(&wst.ldg_err, r[i].ldg_err);
    }
    const bool fixr = model != MO_FEM_NEO_HOOKEAN_2ROW, exr = model != MO_FEM_COROTATIONAL;
    printf("  %s: max |S - I|_F %.3f, %.3f, %.3f; max |dev S|_F %.3f, %.3f, %.1e (s = 1, 1/2, 0); worst over the "
           "three:\n", name, r[0].max_strain, r[1].max_strain, r[2].max_strain, r[0].max_dev, r[1].max_dev,
           r[2].max_dev);
    printf("    g vs C + eps lambda %.1e; v direction: fd vs h J_full dx %.1e; dg vs the intended linearisation %.1e",
           wst.g_err, wst.full_err, wst.fix_err);
    if (exr) printf("; exact rows: fd vs dg %.1e", wst.exact_err);
    printf("\n");
    if (fixr)
        printf("    rows with R held: fd - dg vs h (J_full - J_fix) dx %.1e; gap / bound up to %.3f; "
               "gap / (|skew M| |dev S|) up to %.3f (s > 0)\n"
               "    cosine of the gap with lambda* = -eps^-1 C up to %.1e (s > 0)\n"
               "    their gap |fd - dg| / |dg|: per element up to %.3f, %.3f, %.1e; total %.4f, %.4f, %.1e "
               "(s = 1, 1/2, 0; ratio 1 : 1/2 = %.3f)\n",
               wst.gap_err, wst.gap_bound, wst.gap_c, wst.gap_work, r[0].gap_rel, r[1].gap_rel, r[2].gap_rel,
               r[0].gap_total / r[0].dg_total, r[1].gap_total / r[1].dg_total, r[2].gap_total / r[2].dg_total,
               r[0].gap_total / r[1].gap_total);
    printf("    lambda direction: fd vs eps dl %.1e; dg vs eps dl", wst.lfd_err);
    if (model == MO_FEM_NEO_HOOKEAN)
        printf(" (stretch rows of elements with lambda_H > 0: eps dl / (1 + eps lambda_H); %d of 24 at s = 1)",
               r[0].n_tangent);
    printf(" %.1e\n", wst.ldg_err);
    CHECK(wst.g_err < 1e-12);
    CHECK(wst.full_err < 1e-8);
    CHECK(wst.fix_err < 1e-12);
    CHECK(wst.lfd_err < 1e-8);
    CHECK(wst.ldg_err < 1e-12);
    if (exr) CHECK(wst.exact_err < 1e-8);
    CHECK(r[0].max_strain > 0.1);
    CHECK(r[2].max_dev < 1e-14); /* s = 0: F = R0 (unactivated) or R0 / (1 + a)^(1/3): S isotropic */
    CHECK(r[2].max_strain > 0.1);  /* the activated elements' dilation: the gap below vanishes nonetheless */
    if (fixr) {
        CHECK(wst.gap_err < 1e-8);
        CHECK(wst.gap_bound <= 1.0);
        CHECK(wst.gap_work < 1e-6);                     /* R's variation does no work against the stress */
        CHECK(r[0].gap_total > 0.01 * r[0].dg_total);   /* the fixed-R gap is there at finite strain */
        CHECK(r[2].gap_total < 1e-8 * r[2].dg_total);   /* and vanishes at zero strain */
        double ratio = r[0].gap_total / r[1].gap_total; /* linear in the strain */
        CHECK(ratio > 1.95 && ratio < 2.05);
    }
    if (model == MO_FEM_NEO_HOOKEAN) CHECK(r[0].n_tangent > 0 && r[0].n_tangent < 24); /* both branches */
    group_end(name);
}

int main(void)
{
    test_model(MO_FEM_COROTATIONAL, "corotational (6 rows): probe vs finite differences");
    test_model(MO_FEM_NEO_HOOKEAN, "Neo-Hookean, 7 rows: probe vs finite differences");
    test_model(MO_FEM_NEO_HOOKEAN_2ROW, "Neo-Hookean, paper's 2 rows: probe vs finite differences");
    return check_groups_result();
}
