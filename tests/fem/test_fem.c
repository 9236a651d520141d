/* test_fem.c: the FEM material kernels of engine/kernels/fem.h (issue 7,
 * SOLVERS.md B "FEM in compliance form") against finite differences and
 * linear elasticity built here from textbook formulas.
 *
 * Groups:
 *   setup       Dm, Dm^-1, V against a triple product; flat and negatively
 *               oriented rest elements refused; bad materials and activations
 *               refused; the Neo-Hookean refit (mu_L, lambda_L + mu_L,
 *               1 + mu/lambda); E = (V K)^-1 against the textbook D matrix.
 *   polar       F = R S on random F (rotations of all angles, stretches,
 *               reflections, rank 2, 1 and 0, repeated and nearly repeated
 *               singular values, scales 1e-100..1e100): R^T R = I, det R = +1,
 *               S symmetric, R S = F, S semi-definite when det F >= 0, R the
 *               closest rotation (tr(R^T F) >= tr(Q^T F) for random and
 *               nearby Q), no NaN; bound 1e-14.
 *   dFdx        dF/dx (9 x 12) against central differences of F.
 *   jacobians   central differences, step h = 1e-6 (element size ~1), of:
 *               corotational rows with R fixed; the same rows with R = R(F(x))
 *               against mo_fem_corot_jacobian_full; Neo-Hookean rows. States:
 *               the rest state under a rotation (F = Q, repeated stretches),
 *               near identity, large rotations, large stretches, near
 *               inversion (sigma_3 = 0.05), inverted (sigma_3 < 0). Bound:
 *               max |J - J_fd| <= 1e-6 max(1, max |J|). The fixed-R and the
 *               full corotational Jacobians give the same force J^T V K C
 *               (R's variation does no work) to 1e-12.
 *   forces      f = J^T lambda, lambda = -E^-1 C (compliance form) against
 *               central differences of the element energy Psi V (both
 *               materials, the same states); 1/2 C^T E^-1 C = Psi V (+ the
 *               Neo-Hookean constant). Bound 1e-6 mu_L V.
 *   shear       F = I + gamma e1 e2^T: energy = 1/2 mu_L gamma^2 V and
 *               dE/dgamma (from the compliance-form forces) = mu_L gamma V,
 *               relative error <= gamma (corotational: O(gamma^2), NH: exact);
 *               the corotational xy row is the engineering gamma. Teeth: the
 *               tensor-shear rows with this K, and the SOLVERS.md constants
 *               (log-term refit) without the log term, both fail it by > 25 %.
 *   uniaxial    F = diag(1+e, 1-nu e, 1-nu e): energy 1/2 E_Y e^2 V
 *               (relative error <= 10 e); lateral contraction that minimises
 *               the energy at fixed e (solved from the compliance-form forces)
 *               gives nu and E_Y back to 1e-3.
 *   volume      NH: C_H = 0 at J = alpha; rest state stress-free (both);
 *               inverted, flat (coplanar), collinear and collapsed elements give
 *               finite rows, Jacobians, energies and forces for both materials.
 *   activation  free element relaxes to volume (1+a) V (rows/forces zero);
 *               held at its reference shape it pushes out with the pressure
 *               K_bulk a (first order, a = 1e-5, relative 1e-3), both materials.
 *   static_tet  nodes 0..2 pinned, force on node 3: Newton on the compliance
 *               system [H J^T; J E][du; dl] = -[J^T l + f; C + E l] converges,
 *               and the displacement matches u = K33^-1 f of linear FEM
 *               (B^T D B V built here): corotational to 1e-4 relative at
 *               strain ~5e-6 (O(strain) from R's variation); Neo-Hookean to
 *               1e-9 (with one free particle F = I + u g_3^T, J is linear and
 *               I_C quadratic in u, so the energy is exactly quadratic).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/fem.h"
#include "testutil.h"

/* worst figures, printed at the end */
static double worst_polar = 0.0, worst_jac_fixed = 0.0, worst_jac_full = 0.0, worst_jac_nh = 0.0;
static double worst_force_corot = 0.0, worst_force_nh = 0.0, worst_static = 0.0;
static int worst_sweeps = 0;

/* ---- own small math ---- */

static double det3(const double *m)
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static void diag3(double a, double b, double c, double *m)
{
    memset(m, 0, 9 * sizeof *m);
    m[0] = a;
    m[4] = b;
    m[8] = c;
}

static double maxabs(const double *a, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(a[i]) > m) m = fabs(a[i]);
    return m;
}

static int all_finite(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* Gaussian elimination with partial pivoting, A (n x n) destroyed; 0 if singular */
static int solve_dense(int n, double *A, double *b)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[n * r + c]) > fabs(A[n * p + c])) p = r;
        if (A[n * p + c] == 0.0) return 0;
        if (p != c) {
            for (int k = 0; k < n; k++) {
                double t = A[n * c + k];
                A[n * c + k] = A[n * p + k];
                A[n * p + k] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double f = A[n * r + c] / A[n * c + c];
            for (int k = c; k < n; k++) A[n * r + k] -= f * A[n * c + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < n; k++) s -= A[n * r + k] * b[k];
        b[r] = s / A[n * r + r];
    }
    return 1;
}

/* a reasonably shaped random rest tetrahedron, edge ~1, positively oriented */
static void random_rest(uint64_t *s, double *X)
{
    static const double reg[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.8660254037844386, 0,
                                   0.5, 0.28867513459481287, 0.816496580927726};
    double Q[9];
    sm64_rotation(s, Q);
    double t[3];
    sm64_vec(s, -2.0, 2.0, t);
    for (int a = 0; a < 4; a++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = reg[3 * a + k] + sm64_uniform(s, -0.15, 0.15);
        mat_vec(Q, p, X + 3 * a);
        for (int k = 0; k < 3; k++) X[3 * a + k] += t[k];
    }
}

/* x = F X + t */
static void deform(const double *F, const double *X, const double *t, double *x)
{
    for (int a = 0; a < 4; a++) {
        mat_vec(F, X + 3 * a, x + 3 * a);
        for (int k = 0; k < 3; k++) x[3 * a + k] += t[k];
    }
}

/* F = Q diag(s) P with random rotations Q, P */
static void random_F_sv(uint64_t *s, double s0, double s1, double s2, double *F)
{
    double Q[9], P[9], D[9], T[9];
    sm64_rotation(s, Q);
    sm64_rotation(s, P);
    diag3(s0, s1, s2, D);
    mat_mul(Q, D, T);
    mat_mul(T, P, F);
}

/* the families of states of the Jacobian and force checks */
enum { ST_REST, ST_NEAR_I, ST_ROTATED, ST_STRETCHED, ST_NEAR_INVERSION, ST_INVERTED, ST_COUNT };
static const char *state_name[ST_COUNT] = {"rest (F = Q)", "near identity", "large rotation", "large stretch",
                                           "near inversion", "inverted"};

static void random_state(uint64_t *s, int kind, double *F)
{
    switch (kind) {
    case ST_REST: /* exactly at rest under a rotation: three equal stretches */
        sm64_rotation(s, F);
        break;
    case ST_NEAR_I:
        for (int k = 0; k < 9; k++) F[k] = (k % 4 == 0 ? 1.0 : 0.0) + sm64_uniform(s, -0.1, 0.1);
        break;
    case ST_ROTATED: {
        double Q[9], A[9];
        sm64_rotation(s, Q);
        for (int k = 0; k < 9; k++) A[k] = (k % 4 == 0 ? 1.0 : 0.0) + sm64_uniform(s, -0.3, 0.3);
        mat_mul(Q, A, F);
        break;
    }
    case ST_STRETCHED:
        random_F_sv(s, sm64_uniform(s, 1.5, 3.0), sm64_uniform(s, 0.6, 1.4), sm64_uniform(s, 0.3, 0.5), F);
        break;
    case ST_NEAR_INVERSION:
        random_F_sv(s, sm64_uniform(s, 0.9, 1.3), sm64_uniform(s, 0.7, 0.9), 0.05, F);
        break;
    default:
        random_F_sv(s, sm64_uniform(s, 0.9, 1.3), sm64_uniform(s, 0.7, 0.9), -sm64_uniform(s, 0.1, 0.4), F);
        break;
    }
}

/* ---- setup ---- */

static void test_setup(void)
{
    uint64_t s = 11;
    for (int trial = 0; trial < 50; trial++) {
        double X[12];
        random_rest(&s, X);
        mo_fem_tet t;
        CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
        double e1[3], e2[3], e3[3], c[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = X[3 + k] - X[k];
            e2[k] = X[6 + k] - X[k];
            e3[k] = X[9 + k] - X[k];
        }
        cross3(e2, e3, c);
        CHECK_NEAR(t.V, dot3(e1, c) / 6.0, 1e-14);
        double P[9];
        mat_mul(t.Dm, t.Dm_inv, P);
        for (int k = 0; k < 9; k++) CHECK_NEAR(P[k], k % 4 == 0 ? 1.0 : 0.0, 1e-13);
        for (int k = 0; k < 3; k++) CHECK(t.Dm[3 * k] == e1[k] && t.Dm[3 * k + 1] == e2[k] && t.Dm[3 * k + 2] == e3[k]);
        /* swapping two particles inverts it */
        double Y[12];
        memcpy(Y, X, sizeof Y);
        for (int k = 0; k < 3; k++) {
            Y[3 + k] = X[6 + k];
            Y[6 + k] = X[3 + k];
        }
        mo_fem_tet u;
        CHECK(mo_fem_tet_setup(Y, &u) == MO_FEM_INVERTED);
        CHECK_NEAR(u.V, -t.V, 1e-14);
    }
    /* flat: coplanar, collinear, coincident; and a sliver just above the tolerance */
    double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 0};
    double line[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    double point[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    double sliver[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 1e-9};
    mo_fem_tet t;
    t.V = 42.0;
    CHECK(mo_fem_tet_setup(flat, &t) == MO_FEM_FLAT);
    CHECK(t.V == 42.0);
    CHECK(mo_fem_tet_setup(line, &t) == MO_FEM_FLAT);
    CHECK(mo_fem_tet_setup(point, &t) == MO_FEM_FLAT);
    CHECK(mo_fem_tet_setup(sliver, &t) == MO_FEM_OK);
    CHECK_NEAR(t.V, 1e-9 / 6.0, 1e-22);

    /* materials */
    mo_fem_material m;
    CHECK(mo_fem_material_init(0.0, 0.3, &m) == MO_FEM_BAD_YOUNG);
    CHECK(mo_fem_material_init(-1.0, 0.3, &m) == MO_FEM_BAD_YOUNG);
    CHECK(mo_fem_material_init(NAN, 0.3, &m) == MO_FEM_BAD_YOUNG);
    CHECK(mo_fem_material_init(INFINITY, 0.3, &m) == MO_FEM_BAD_YOUNG);
    CHECK(mo_fem_material_init(1e5, 0.5, &m) == MO_FEM_BAD_POISSON);
    CHECK(mo_fem_material_init(1e5, -1.0, &m) == MO_FEM_BAD_POISSON);
    CHECK(mo_fem_material_init(1e5, NAN, &m) == MO_FEM_BAD_POISSON);
    CHECK(mo_fem_material_init(1e5, 0.45, &m) == MO_FEM_OK);
    double mu = 1e5 / 2.9, lam = 1e5 * 0.45 / (1.45 * 0.1);
    CHECK_NEAR(m.mu_l / mu, 1.0, 1e-15);
    CHECK_NEAR(m.lambda_l / lam, 1.0, 1e-14);
    CHECK_NEAR(m.nh_mu / mu, 1.0, 1e-15);
    CHECK_NEAR(m.nh_lambda / (lam + mu), 1.0, 1e-14);
    CHECK_NEAR(m.nh_alpha, 1.0 + mu / (lam + mu), 1e-15);

    /* activation */
    mo_fem_tet a;
    double X[12];
    random_rest(&s, X);
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    CHECK(mo_fem_tet_activate(&t, -1.0, &a) == MO_FEM_BAD_ACTIVATION);
    CHECK(mo_fem_tet_activate(&t, NAN, &a) == MO_FEM_BAD_ACTIVATION);
    CHECK(mo_fem_tet_activate(&t, INFINITY, &a) == MO_FEM_BAD_ACTIVATION);
    CHECK(mo_fem_tet_activate(&t, 0.5, &a) == MO_FEM_OK);
    CHECK_NEAR(a.V / t.V, 1.5, 1e-15);
    CHECK_NEAR(det3(a.Dm) / det3(t.Dm), 1.5, 1e-14);

    /* E = (V K)^-1 against the textbook D (engineering shear) */
    double nus[4] = {-0.5, 0.0, 0.3, 0.49};
    for (int q = 0; q < 4; q++) {
        double Ey = 3e6, nu = nus[q], V = 0.37;
        CHECK(mo_fem_material_init(Ey, nu, &m) == MO_FEM_OK);
        double D[36] = {0}, Ec[36], VK[36];
        double f = Ey / ((1 + nu) * (1 - 2 * nu));
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) D[6 * i + j] = f * (i == j ? 1 - nu : nu);
            D[6 * (i + 3) + i + 3] = f * (1 - 2 * nu) / 2;
        }
        mo_fem_corot_compliance(&m, V, Ec);
        mo_fem_corot_stiffness(&m, V, VK);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                CHECK_NEAR(VK[6 * i + j], V * D[6 * i + j], 1e-9 * V * f);
                double p = 0.0;
                for (int k = 0; k < 6; k++) p += Ec[6 * i + k] * V * D[6 * k + j];
                CHECK_NEAR(p, i == j ? 1.0 : 0.0, 1e-13);
            }
        double En[2];
        mo_fem_nh_compliance(&m, V, En);
        CHECK_NEAR(En[0] * m.nh_lambda * V, 1.0, 1e-15);
        CHECK_NEAR(En[1] * m.nh_mu * V, 1.0, 1e-15);
    }
}

/* ---- polar decomposition ---- */

static void check_polar(const double *F, const char *what)
{
    double R[9], S[9], sg[3], RtR[9], RS[9], Rt[9];
    int sweeps = mo_fem_polar(F, R, S, sg);
    int fin = all_finite(R, 9) && all_finite(S, 9) && all_finite(sg, 3);
    CHECK(fin);
    CHECK(sweeps < MO_FEM_SVD_MAX_SWEEPS);
    if (sweeps > worst_sweeps) worst_sweeps = sweeps;
    double nF = 0.0;
    for (int k = 0; k < 9; k++) nF += F[k] * F[k];
    nF = sqrt(nF);
    mo_m3_transpose(Rt, R);
    mat_mul(Rt, R, RtR);
    double e = 0.0;
    for (int k = 0; k < 9; k++) e = fmax(e, fabs(RtR[k] - (k % 4 == 0 ? 1.0 : 0.0)));
    e = fmax(e, fabs(det3(R) - 1.0));
    mat_mul(R, S, RS);
    double es = 0.0;
    for (int k = 0; k < 9; k++) es = fmax(es, fabs(RS[k] - F[k]));
    es = nF > 0.0 ? es / nF : es;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) CHECK(S[3 * i + j] == S[3 * j + i]);
    double worst = fmax(e, es);
    if (worst > worst_polar) worst_polar = worst;
    if (!(worst <= 1e-14)) fprintf(stderr, "polar %s: orthonormality %.3g, |RS - F|/|F| %.3g\n", what, e, es);
    CHECK(worst <= 1e-14);
    /* signed singular values: sorted by magnitude, the first two >= 0, product det F */
    CHECK(sg[0] >= fabs(sg[1]) * (1 - 1e-15) && fabs(sg[1]) >= fabs(sg[2]) * (1 - 1e-15));
    CHECK(sg[0] >= 0.0 && sg[1] >= 0.0);
    CHECK_NEAR(sg[0] * sg[1] * sg[2], det3(F), 1e-14 * nF * nF * nF + 1e-300);
    /* S semi-definite when det F >= 0 (x^T S x >= -tol on a set of directions) */
    if (det3(F) >= 0.0)
        for (int k = 0; k < 26; k++) {
            double x[3] = {(double)(k % 3) - 1, (double)((k / 3) % 3) - 1, (double)(k / 9) - 1}, Sx[3];
            if (k == 13) continue;
            mat_vec(S, x, Sx);
            CHECK(dot3(x, Sx) >= -1e-14 * nF);
        }
    /* R is the closest rotation: tr(R^T F) >= tr(Q^T F) for Q random and Q = R exp(small) */
    uint64_t s = 99;
    double best = 0.0;
    for (int k = 0; k < 9; k++) best += R[k] * F[k];
    for (int trial = 0; trial < 60; trial++) {
        double Q[9], D[9];
        if (trial < 30) {
            sm64_rotation(&s, Q);
        } else {
            double u[3];
            sm64_unit(&s, u);
            mat_axis_angle(u[0], u[1], u[2], 1e-3, D);
            mat_mul(R, D, Q);
        }
        double tq = 0.0;
        for (int k = 0; k < 9; k++) tq += Q[k] * F[k];
        CHECK(best >= tq - 1e-14 * nF);
    }
}

static void test_polar(void)
{
    uint64_t s = 7;
    double F[9], D[9];
    /* special matrices */
    double specials[][9] = {
        {1, 0, 0, 0, 1, 0, 0, 0, 1},    {2, 0, 0, 0, 2, 0, 0, 0, 1},  {-1, 0, 0, 0, 1, 0, 0, 0, 1},
        {1, 0, 0, 0, 1, 0, 0, 0, -1},   {-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {1, 0, 0, 0, 1, 0, 0, 0, 0},    {0, 0, 0, 0, 0, 0, 0, 0, 1},   {0, 1, 0, 1, 0, 0, 0, 0, 1},
        {0, 0, 0, 0, 0, 0, 1, 2, 3},    {1, 1, 1, 1, 1, 1, 1, 1, 1},   {1, 2, 3, 4, 5, 6, 7, 8, 9},
        {0, -1, 0, 1, 0, 0, 0, 0, 1},   {1, 0, 0, 0, -1, 0, 0, 0, -1}, {3, 0, 0, 0, -3, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) check_polar(specials[i], "special");
    for (int trial = 0; trial < 400; trial++) {
        int kind = trial % 10;
        switch (kind) {
        case 0: /* general */
            for (int k = 0; k < 9; k++) F[k] = sm64_uniform(&s, -2.0, 2.0);
            break;
        case 1: /* pure rotation, any angle */
            sm64_rotation(&s, F);
            break;
        case 2: /* reflection */
            random_F_sv(&s, 1.0, 1.0, -1.0, F);
            break;
        case 3: /* inverted, general */
            random_F_sv(&s, sm64_uniform(&s, 0.5, 2), sm64_uniform(&s, 0.2, 0.5), -sm64_uniform(&s, 0.01, 0.2), F);
            break;
        case 4: /* rank 2 */
            random_F_sv(&s, sm64_uniform(&s, 0.5, 2), sm64_uniform(&s, 0.1, 0.5), 0.0, F);
            break;
        case 5: /* rank 1 */
            random_F_sv(&s, sm64_uniform(&s, 0.5, 2), 0.0, 0.0, F);
            break;
        case 6: /* repeated / nearly repeated singular values */
            random_F_sv(&s, 1.0, 1.0 + (trial % 20 == 6 ? 0.0 : 1e-12), 1.0 - 1e-13, F);
            break;
        case 7: /* tiny scale */
            for (int k = 0; k < 9; k++) F[k] = 1e-100 * sm64_uniform(&s, -1.0, 1.0);
            break;
        case 8: /* huge scale */
            for (int k = 0; k < 9; k++) F[k] = 1e100 * sm64_uniform(&s, -1.0, 1.0);
            break;
        default: /* ill-conditioned, either orientation */
            random_F_sv(&s, 1.0, 1e-6, (trial % 20 == 9 ? -1.0 : 1.0) * 1e-11, F);
            break;
        }
        check_polar(F, "random");
    }
    /* a rank-1 F with its vectors on the axes, and diag with a permutation */
    diag3(0, 0, 5, D);
    check_polar(D, "rank-1 axis");
    printf("polar: max |R^T R - I|, |det R - 1|, |R S - F| / |F| = %.2g; at most %d Jacobi sweeps\n", worst_polar,
           worst_sweeps);
}

/* ---- dF/dx ---- */

static void test_dFdx(void)
{
    uint64_t s = 5;
    double X[12], x[12], dF[108], F0[9], Fp[9], Fm[9];
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    for (int k = 0; k < 12; k++) x[k] = X[k] + sm64_uniform(&s, -0.3, 0.3);
    mo_fem_dF_dx(t.Dm_inv, dF);
    mo_fem_deformation_gradient(X, t.Dm_inv, F0);
    for (int k = 0; k < 9; k++) CHECK_NEAR(F0[k], k % 4 == 0 ? 1.0 : 0.0, 1e-14);
    double e = 0.0, h = 1e-6;
    for (int c = 0; c < 12; c++) {
        double xp[12], xm[12];
        memcpy(xp, x, sizeof xp);
        memcpy(xm, x, sizeof xm);
        xp[c] += h;
        xm[c] -= h;
        mo_fem_deformation_gradient(xp, t.Dm_inv, Fp);
        mo_fem_deformation_gradient(xm, t.Dm_inv, Fm);
        for (int r = 0; r < 9; r++) e = fmax(e, fabs((Fp[r] - Fm[r]) / (2 * h) - dF[12 * r + c]));
    }
    CHECK(e <= 1e-8);
    printf("dF/dx: max |FD - exact| %.2g\n", e);
}

/* ---- Jacobians ---- */

/* rows of a state: which = 0 corot with R fixed (R given), 1 corot with R =
 * R(F(x)), 2 Neo-Hookean */
static void rows_at(int which, const mo_fem_material *m, const mo_fem_tet *t, const double *x, const double *Rfix,
                    double *C)
{
    double F[9], R[9], S[9];
    mo_fem_deformation_gradient(x, t->Dm_inv, F);
    if (which == 0) {
        mo_fem_corot_rows(F, Rfix, C);
    } else if (which == 1) {
        mo_fem_polar(F, R, S, (double *)0);
        mo_fem_corot_rows(F, R, C);
    } else if (which == 2) {
        mo_fem_nh_rows(m, F, C);
    } else {
        mo_fem_nh7_rows(m, F, Rfix, C);
    }
}

static double fd_jacobian_error(int which, const mo_fem_material *m, const mo_fem_tet *t, const double *x,
                                const double *Rfix, const double *Jac)
{
    int n = which == 2 ? 2 : (which == 3 ? 7 : 6);
    double h = 1e-6, e = 0.0;
    for (int c = 0; c < 12; c++) {
        double xp[12], xm[12], Cp[7], Cm[7];
        memcpy(xp, x, sizeof xp);
        memcpy(xm, x, sizeof xm);
        xp[c] += h;
        xm[c] -= h;
        rows_at(which, m, t, xp, Rfix, Cp);
        rows_at(which, m, t, xm, Rfix, Cm);
        for (int r = 0; r < n; r++) e = fmax(e, fabs((Cp[r] - Cm[r]) / (2 * h) - Jac[12 * r + c]));
    }
    return e / fmax(1.0, maxabs(Jac, 12 * n));
}

static void test_jacobians(void)
{
    uint64_t s = 3;
    mo_fem_material m;
    CHECK(mo_fem_material_init(1e5, 0.45, &m) == MO_FEM_OK);
    double worst_kind[3][ST_COUNT] = {{0}};
    for (int trial = 0; trial < 200; trial++) {
        int kind = trial % ST_COUNT;
        double X[12], x[12], F[9], Fx[9], tr[3], R[9], S[9];
        random_rest(&s, X);
        mo_fem_tet t;
        CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
        random_state(&s, kind, F);
        sm64_vec(&s, -1.0, 1.0, tr);
        deform(F, X, tr, x);
        mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
        mo_fem_polar(Fx, R, S, (double *)0);
        double J6[72], Jf[72], J2[24];
        mo_fem_corot_jacobian(R, t.Dm_inv, J6);
        CHECK(mo_fem_corot_jacobian_full(R, S, t.Dm_inv, Jf) == MO_FEM_OK);
        mo_fem_nh_jacobian(Fx, t.Dm_inv, J2);
        double e0 = fd_jacobian_error(0, &m, &t, x, R, J6);
        double e1 = fd_jacobian_error(1, &m, &t, x, R, Jf);
        double e2 = fd_jacobian_error(2, &m, &t, x, R, J2);
        worst_kind[0][kind] = fmax(worst_kind[0][kind], e0);
        worst_kind[1][kind] = fmax(worst_kind[1][kind], e1);
        worst_kind[2][kind] = fmax(worst_kind[2][kind], e2);
        CHECK(e0 <= 1e-6);
        CHECK(e1 <= 1e-6);
        CHECK(e2 <= 1e-6);
        /* at the polar R the fixed-R rows are S - I, and so are the rows of the full derivative */
        double C[6];
        mo_fem_corot_rows(Fx, R, C);
        CHECK_NEAR(C[0], S[0] - 1.0, 1e-13);
        CHECK_NEAR(C[3], 2.0 * S[5], 1e-13);
        /* R's variation does no work: J_full^T (V K) C = J_fixed^T (V K) C */
        double VK[36], ff[12], fx[12];
        mo_fem_corot_stiffness(&m, t.V, VK);
        mo_fem_rows_force(6, C, J6, VK, (double *)0, fx);
        mo_fem_rows_force(6, C, Jf, VK, (double *)0, ff);
        double dfx = 0.0;
        for (int c = 0; c < 12; c++) dfx = fmax(dfx, fabs(ff[c] - fx[c]));
        CHECK(dfx <= 1e-12 * fmax(m.mu_l * t.V, maxabs(fx, 12)));
    }
    printf("Jacobians, max |J - J_fd| / max(1, |J|) per state (corot R fixed / corot full / NH):\n");
    for (int k = 0; k < ST_COUNT; k++) {
        printf("  %-15s %.2g  %.2g  %.2g\n", state_name[k], worst_kind[0][k], worst_kind[1][k], worst_kind[2][k]);
        worst_jac_fixed = fmax(worst_jac_fixed, worst_kind[0][k]);
        worst_jac_full = fmax(worst_jac_full, worst_kind[1][k]);
        worst_jac_nh = fmax(worst_jac_nh, worst_kind[2][k]);
    }
    /* the full derivative refuses where R is not differentiable */
    double Rs[9], Ss[9], Jf[72], X[12], F0[9] = {0};
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    mo_fem_polar(F0, Rs, Ss, (double *)0);
    CHECK(mo_fem_corot_jacobian_full(Rs, Ss, t.Dm_inv, Jf) == MO_FEM_SINGULAR);
    double Fo[9];
    diag3(2.0, 1.0, -1.0, Fo);
    mo_fem_polar(Fo, Rs, Ss, (double *)0);
    CHECK(mo_fem_corot_jacobian_full(Rs, Ss, t.Dm_inv, Jf) == MO_FEM_SINGULAR);
}

/* ---- forces against energy differences ---- */

static void test_forces(void)
{
    uint64_t s = 17;
    mo_fem_material m;
    double nus[3] = {0.45, 0.3, -0.2};
    for (int trial = 0; trial < 150; trial++) {
        int kind = trial % ST_COUNT;
        CHECK(mo_fem_material_init(1e5, nus[trial % 3], &m) == MO_FEM_OK);
        double X[12], x[12], F[9], tr[3];
        random_rest(&s, X);
        mo_fem_tet t;
        CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
        random_state(&s, kind, F);
        sm64_vec(&s, -1.0, 1.0, tr);
        deform(F, X, tr, x);
        double fc[12], fn[12];
        double Ec = mo_fem_corot_element(&m, &t, x, fc, (double *)0);
        double En = mo_fem_nh_element(&m, &t, x, fn);
        double scale = m.mu_l * t.V, h = 1e-6, ec = 0.0, en = 0.0;
        for (int c = 0; c < 12; c++) {
            double xp[12], xm[12];
            memcpy(xp, x, sizeof xp);
            memcpy(xm, x, sizeof xm);
            xp[c] += h;
            xm[c] -= h;
            double gc = (mo_fem_corot_element(&m, &t, xp, (double *)0, (double *)0) -
                         mo_fem_corot_element(&m, &t, xm, (double *)0, (double *)0)) / (2 * h);
            double gn = (mo_fem_nh_element(&m, &t, xp, (double *)0) - mo_fem_nh_element(&m, &t, xm, (double *)0)) /
                        (2 * h);
            ec = fmax(ec, fabs(fc[c] + gc));
            en = fmax(en, fabs(fn[c] + gn));
        }
        ec /= scale;
        en /= scale;
        worst_force_corot = fmax(worst_force_corot, ec);
        worst_force_nh = fmax(worst_force_nh, en);
        CHECK(ec <= 1e-6);
        CHECK(en <= 1e-6);
        /* the compliance-form energy 1/2 C^T E^-1 C against Psi V */
        double Fx[9], R[9], S[9], C[6], VK[36], Cn[2];
        mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
        mo_fem_polar(Fx, R, S, (double *)0);
        mo_fem_corot_rows(Fx, R, C);
        mo_fem_corot_stiffness(&m, t.V, VK);
        double q = 0.0;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) q += 0.5 * C[i] * VK[6 * i + j] * C[j];
        CHECK_NEAR(q, Ec, 1e-12 * fmax(scale, fabs(Ec)));
        mo_fem_nh_rows(&m, Fx, Cn);
        double qn = 0.5 * m.nh_lambda * t.V * Cn[0] * Cn[0] + 0.5 * m.nh_mu * t.V * Cn[1] * Cn[1];
        double cst = t.V * (1.5 * m.nh_mu + 0.5 * m.nh_mu * m.nh_mu / m.nh_lambda);
        CHECK_NEAR(qn - cst, En, 1e-12 * fmax(scale, fabs(qn)));
        /* momentum: the forces sum to zero and have no torque about the origin */
        double sum[3] = {0, 0, 0}, tq[3] = {0, 0, 0};
        for (int a = 0; a < 4; a++) {
            double c3[3];
            cross3(x + 3 * a, fn + 3 * a, c3);
            for (int k = 0; k < 3; k++) {
                sum[k] += fn[3 * a + k] + fc[3 * a + k];
                tq[k] += c3[k];
            }
            cross3(x + 3 * a, fc + 3 * a, c3);
            for (int k = 0; k < 3; k++) tq[k] += c3[k];
        }
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(sum[k], 0.0, 1e-10 * scale * (1 + maxabs(F, 9)));
            CHECK_NEAR(tq[k], 0.0, 1e-9 * scale * (1 + maxabs(F, 9)) * (1 + maxabs(x, 12)));
        }
    }
    printf("forces: max |f + d(Psi V)/dx| / (mu_L V): corot %.2g, NH %.2g\n", worst_force_corot, worst_force_nh);
}

/* ---- simple shear and uniaxial strain ---- */

/* energy of material `which` (0 corot, 1 NH) at positions x; force in f (may be NULL) */
static double element_energy(int which, const mo_fem_material *m, const mo_fem_tet *t, const double *x, double *f)
{
    return which == 0 ? mo_fem_corot_element(m, t, x, f, (double *)0) : mo_fem_nh_element(m, t, x, f);
}

static void test_shear(void)
{
    uint64_t s = 23;
    double X[12], x[12], zero[3] = {0, 0, 0};
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    mo_fem_material m;
    CHECK(mo_fem_material_init(1e5, 0.45, &m) == MO_FEM_OK);
    double gammas[3] = {1e-2, 1e-3, 1e-4};
    for (int which = 0; which < 2; which++)
        for (int g = 0; g < 3; g++) {
            double gam = gammas[g], F[9], f[12];
            diag3(1, 1, 1, F);
            F[1] = gam;
            deform(F, X, zero, x);
            double E = element_energy(which, &m, &t, x, f);
            double ref = 0.5 * m.mu_l * gam * gam * t.V;
            /* dE/dgamma = -f . dx/dgamma, dx_a/dgamma = (X_a,y, 0, 0) */
            double dE = 0.0;
            for (int a = 0; a < 4; a++) dE -= f[3 * a] * X[3 * a + 1];
            double rel = fabs(E / ref - 1.0), rels = fabs(dE / (m.mu_l * gam * t.V) - 1.0);
            printf("shear %s gamma %.0e: energy / (mu_L gamma^2 V / 2) - 1 = %.2g, stress rel. error %.2g\n",
                   which == 0 ? "corot" : "NH   ", gam, E / ref - 1.0, rels);
            CHECK(rel <= gam);
            CHECK(rels <= gam);
            if (which == 0) {
                /* the xy row is the engineering shear gamma (to O(gamma^3)), the others O(gamma^2) */
                double Fx[9], R[9], S[9], C[6];
                mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
                mo_fem_polar(Fx, R, S, (double *)0);
                mo_fem_corot_rows(Fx, R, C);
                CHECK_NEAR(C[5], gam, gam * gam);
                CHECK(fabs(C[3]) <= 1e-14 && fabs(C[4]) <= 1e-14);
                CHECK(fabs(C[0]) <= gam * gam && fabs(C[1]) <= gam * gam && fabs(C[2]) <= 1e-14);
                /* teeth: tensor shear rows (e_xy, not 2 e_xy) with this K give a quarter of the shear energy */
                double VK[36], q = 0.0, Ct[6] = {C[0], C[1], C[2], C[3] / 2, C[4] / 2, C[5] / 2};
                mo_fem_corot_stiffness(&m, t.V, VK);
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) q += 0.5 * Ct[i] * VK[6 * i + j] * Ct[j];
                CHECK(fabs(q / ref - 1.0) > 0.25);
            } else {
                /* teeth: the SOLVERS.md constants (refit for the energy with the log term) without the log term */
                mo_fem_material w = m;
                w.nh_mu = 4.0 / 3.0 * m.mu_l;
                w.nh_lambda = m.lambda_l + 5.0 / 6.0 * m.mu_l;
                w.nh_alpha = 1.0 + 0.75 * w.nh_mu / w.nh_lambda;
                double Ew = mo_fem_nh_element(&w, &t, x, (double *)0) -
                            mo_fem_nh_element(&w, &t, X, (double *)0);
                CHECK(fabs(Ew / ref - 1.0) > 0.25);
                double f0[12];
                mo_fem_nh_element(&w, &t, X, f0);
                CHECK(maxabs(f0, 12) > 1e-3 * m.mu_l * t.V); /* a rest stress */
            }
        }
}

/* the lateral strain t minimising the energy at F = diag(1+e, 1+t, 1+t), from
 * dE/dt = -f . dx/dt = 0 by the secant method */
static double lateral_minimiser(int which, const mo_fem_material *m, const mo_fem_tet *t, const double *X, double e,
                                double *E_at)
{
    double zero[3] = {0, 0, 0};
    double tt[2] = {0.0, -0.3 * e}, g[2];
    for (int it = 0; it < 60; it++) {
        for (int k = (it == 0 ? 0 : 1); k < 2; k++) {
            double F[9], x[12], f[12];
            diag3(1 + e, 1 + tt[k], 1 + tt[k], F);
            deform(F, X, zero, x);
            element_energy(which, m, t, x, f);
            g[k] = 0.0;
            for (int a = 0; a < 4; a++) g[k] -= f[3 * a + 1] * X[3 * a + 1] + f[3 * a + 2] * X[3 * a + 2];
        }
        if (g[1] == g[0]) break;
        double tn = tt[1] - g[1] * (tt[1] - tt[0]) / (g[1] - g[0]);
        tt[0] = tt[1];
        g[0] = g[1];
        tt[1] = tn;
        if (fabs(tt[1] - tt[0]) <= 1e-14 * fabs(e)) break;
    }
    double F[9], x[12];
    diag3(1 + e, 1 + tt[1], 1 + tt[1], F);
    deform(F, X, zero, x);
    *E_at = element_energy(which, m, t, x, (double *)0);
    return tt[1];
}

static void test_uniaxial(void)
{
    uint64_t s = 29;
    double X[12], x[12], zero[3] = {0, 0, 0};
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    double nus[3] = {0.45, 0.3, -0.3};
    for (int q = 0; q < 3; q++) {
        mo_fem_material m;
        double Ey = 2.5e6, nu = nus[q];
        CHECK(mo_fem_material_init(Ey, nu, &m) == MO_FEM_OK);
        for (int which = 0; which < 2; which++) {
            double e = 1e-4, F[9];
            diag3(1 + e, 1 - nu * e, 1 - nu * e, F);
            deform(F, X, zero, x);
            double E = element_energy(which, &m, &t, x, (double *)0);
            double ref = 0.5 * Ey * e * e * t.V;
            CHECK(fabs(E / ref - 1.0) <= 10 * e);
            double Emin, lat = lateral_minimiser(which, &m, &t, X, e, &Emin);
            double nu_m = -lat / e, E_m = 2.0 * Emin / (e * e * t.V);
            printf("uniaxial %s nu %.2f: energy rel. error %.2g, recovered nu %.6f, E_Y / E_Y - 1 = %.2g\n",
                   which == 0 ? "corot" : "NH   ", nu, E / ref - 1.0, nu_m, E_m / Ey - 1.0);
            CHECK_NEAR(nu_m, nu, 1e-3);
            CHECK_NEAR(E_m / Ey, 1.0, 1e-3);
        }
    }
}

/* ---- volume, rest state, inverted and degenerate elements ---- */

static void test_volume(void)
{
    uint64_t s = 31;
    mo_fem_material m;
    CHECK(mo_fem_material_init(1e5, 0.45, &m) == MO_FEM_OK);
    double X[12], x[12], F[9], tr[3];
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    /* at J = alpha the hydrostatic row vanishes (any rotation, any isochoric shape) */
    for (int trial = 0; trial < 20; trial++) {
        double a = cbrt(m.nh_alpha);
        random_F_sv(&s, a * 1.3, a / 1.3 * (trial % 2 ? 1.1 : 1.0), a / (trial % 2 ? 1.1 : 1.0), F);
        sm64_vec(&s, -1, 1, tr);
        deform(F, X, tr, x);
        double Fx[9], C[2];
        mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
        mo_fem_nh_rows(&m, Fx, C);
        CHECK_NEAR(C[0], 0.0, 1e-13);
    }
    /* the rest state (any rigid motion) is stress-free for both */
    for (int trial = 0; trial < 20; trial++) {
        double f[12];
        sm64_rotation(&s, F);
        sm64_vec(&s, -1, 1, tr);
        deform(F, X, tr, x);
        double Ec = mo_fem_corot_element(&m, &t, x, f, (double *)0);
        CHECK(maxabs(f, 12) <= 1e-12 * m.mu_l * t.V);
        CHECK(fabs(Ec) <= 1e-24 * m.mu_l * t.V);
        double En = mo_fem_nh_element(&m, &t, x, f);
        CHECK(maxabs(f, 12) <= 1e-12 * m.mu_l * t.V);
        CHECK(fabs(En) <= 1e-12 * m.mu_l * t.V);
    }
    /* inverted and degenerate elements: everything finite */
    double states[6][9];
    diag3(1, 1, -0.5, states[0]);       /* inverted */
    diag3(-1, -1, -1, states[1]);       /* point-reflected */
    diag3(1, 1, 0, states[2]);          /* flat: particles coplanar */
    diag3(1, 0, 0, states[3]);          /* collinear */
    diag3(0, 0, 0, states[4]);          /* collapsed to a point */
    diag3(2, -2, 1e-300, states[5]);    /* sigma_i + sigma_j = 0 (R not differentiable) */
    for (int k = 0; k < 6; k++) {
        sm64_vec(&s, -1, 1, tr);
        deform(states[k], X, tr, x);
        double Fx[9], R[9], S[9], C6[6], C2[2], J6[72], J2[24], f[12];
        mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
        mo_fem_polar(Fx, R, S, (double *)0);
        mo_fem_corot_rows(Fx, R, C6);
        mo_fem_corot_jacobian(R, t.Dm_inv, J6);
        mo_fem_nh_rows(&m, Fx, C2);
        mo_fem_nh_jacobian(Fx, t.Dm_inv, J2);
        CHECK(all_finite(R, 9) && all_finite(S, 9) && all_finite(C6, 6) && all_finite(J6, 72));
        CHECK(all_finite(C2, 2) && all_finite(J2, 24));
        double Ec = mo_fem_corot_element(&m, &t, x, f, (double *)0);
        CHECK(isfinite(Ec) && all_finite(f, 12));
        double En = mo_fem_nh_element(&m, &t, x, f);
        CHECK(isfinite(En) && all_finite(f, 12));
        /* an inverted or flattened element is resisted: its energy exceeds the rest state's */
        CHECK(Ec > 0.0 && En > 0.0);
        if (k == 0) {
            /* NH: the hydrostatic multiplier lambda_H = -lambda V C_H pushes J up (C_H < 0) */
            CHECK(C2[0] < 0.0);
            /* and the forces point to larger J: dJ . f > 0 */
            double dJ = 0.0;
            for (int c = 0; c < 12; c++) dJ += J2[c] * f[c];
            CHECK(dJ > 0.0);
        }
    }
}

/* ---- activation ---- */

static void test_activation(void)
{
    uint64_t s = 37;
    double X[12], x[12];
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    mo_fem_material m;
    CHECK(mo_fem_material_init(1e5, 0.3, &m) == MO_FEM_OK);
    double cen[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) cen[k] += 0.25 * X[3 * a + k];
    /* free: relaxes to volume (1 + a) V, no force, corotational rows zero */
    double acts[3] = {0.5, 1e-5, -0.3};
    for (int q = 0; q < 3; q++) {
        mo_fem_tet ta;
        CHECK(mo_fem_tet_activate(&t, acts[q], &ta) == MO_FEM_OK);
        double sc = cbrt(1 + acts[q]), f[12], Q[9];
        sm64_rotation(&s, Q);
        for (int a = 0; a < 4; a++) {
            double d[3];
            for (int k = 0; k < 3; k++) d[k] = sc * (X[3 * a + k] - cen[k]);
            mat_vec(Q, d, x + 3 * a);
        }
        double Fx[9], R[9], S[9], C[6];
        mo_fem_deformation_gradient(x, ta.Dm_inv, Fx);
        mo_fem_polar(Fx, R, S, (double *)0);
        mo_fem_corot_rows(Fx, R, C);
        CHECK(maxabs(C, 6) <= 1e-13);
        mo_fem_corot_element(&m, &ta, x, f, (double *)0);
        CHECK(maxabs(f, 12) <= 1e-12 * m.mu_l * t.V);
        mo_fem_nh_element(&m, &ta, x, f);
        CHECK(maxabs(f, 12) <= 1e-12 * m.mu_l * t.V);
        /* the current volume is (1 + a) V */
        double e1[3], e2[3], e3[3], c[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = x[3 + k] - x[k];
            e2[k] = x[6 + k] - x[k];
            e3[k] = x[9 + k] - x[k];
        }
        cross3(e2, e3, c);
        CHECK_NEAR(dot3(e1, c) / 6.0 / t.V, 1.0 + acts[q], 1e-13);
        /* NH hydrostatic row reads J/(1+a) - alpha on the reference volume */
        double Cn[2], F0[9];
        mo_fem_deformation_gradient(X, ta.Dm_inv, F0);
        mo_fem_nh_rows(&m, F0, Cn);
        CHECK_NEAR(Cn[0], 1.0 / (1.0 + acts[q]) - m.nh_alpha, 1e-13);
    }
    /* held at the reference shape: pushes out with p = K_bulk a, f_a = -p A_a n_a / 3 */
    double a = 1e-5, Kb = m.lambda_l + 2.0 / 3.0 * m.mu_l, p = Kb * a;
    mo_fem_tet ta;
    CHECK(mo_fem_tet_activate(&t, a, &ta) == MO_FEM_OK);
    for (int which = 0; which < 2; which++) {
        double f[12], worst = 0.0;
        element_energy(which, &m, &ta, X, f);
        for (int n = 0; n < 4; n++) {
            /* outward area vector of the face opposite particle n */
            int b = (n + 1) % 4, c = (n + 2) % 4, d = (n + 3) % 4;
            double u[3], v[3], An[3], dn[3];
            for (int k = 0; k < 3; k++) {
                u[k] = X[3 * c + k] - X[3 * b + k];
                v[k] = X[3 * d + k] - X[3 * b + k];
                dn[k] = X[3 * b + k] - X[3 * n + k];
            }
            cross3(u, v, An);
            double sg = dot3(An, dn) > 0.0 ? 0.5 : -0.5;
            for (int k = 0; k < 3; k++) {
                double ref = -p * sg * An[k] / 3.0;
                worst = fmax(worst, fabs(f[3 * n + k] - ref));
            }
            CHECK(dot3(f + 3 * n, dn) < 0.0); /* away from the opposite face */
        }
        double fs = p * t.V / 1.0; /* force scale ~ p * area ~ p V / edge */
        printf("activation %s: |f - (-p A n / 3)| / (p V) = %.2g\n", which == 0 ? "corot" : "NH   ", worst / fs);
        CHECK(worst <= 1e-3 * fs);
    }
}

/* ---- one tetrahedron, three particles pinned, a force on the fourth ---- */

/* linear FEM stiffness block of particle 3 (3x3), built from textbook formulas */
static void linear_k33(const double *X, double Ey, double nu, double *K33)
{
    double g[12], V;
    {
        double e1[3], e2[3], e3[3], c[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = X[3 + k] - X[k];
            e2[k] = X[6 + k] - X[k];
            e3[k] = X[9 + k] - X[k];
        }
        cross3(e2, e3, c);
        V = dot3(e1, c) / 6.0;
    }
    /* grad N_n = -(outward area vector of the opposite face) / (3 V) */
    for (int n = 0; n < 4; n++) {
        int b = (n + 1) % 4, c = (n + 2) % 4, d = (n + 3) % 4;
        double u[3], v[3], An[3], dn[3];
        for (int k = 0; k < 3; k++) {
            u[k] = X[3 * c + k] - X[3 * b + k];
            v[k] = X[3 * d + k] - X[3 * b + k];
            dn[k] = X[3 * b + k] - X[3 * n + k];
        }
        cross3(u, v, An);
        double sg = dot3(An, dn) > 0.0 ? 0.5 : -0.5;
        for (int k = 0; k < 3; k++) g[3 * n + k] = -sg * An[k] / (3.0 * V);
    }
    /* B of particle 3 (6x3), engineering shear, order xx yy zz yz zx xy */
    const double *q = g + 9;
    double B[18] = {q[0], 0, 0, 0, q[1], 0, 0, 0, q[2], 0, q[2], q[1], q[2], 0, q[0], q[1], q[0], 0};
    double D[36] = {0}, f = Ey / ((1 + nu) * (1 - 2 * nu));
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) D[6 * i + j] = f * (i == j ? 1 - nu : nu);
        D[6 * (i + 3) + i + 3] = f * (1 - 2 * nu) / 2;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0.0;
            for (int r = 0; r < 6; r++)
                for (int c = 0; c < 6; c++) sum += B[3 * r + i] * D[6 * r + c] * B[3 * c + j];
            K33[3 * i + j] = V * sum;
        }
}

/* Newton on the compliance system of particle 3: unknowns u (3) and lambda (n),
 *   r1 = J3^T lambda + f_ext = 0,  r2 = C(x) + E lambda = 0,
 *   [H J3^T; J3 E] [du; dl] = -[r1; r2],  H = sum_r lambda_r d2 C_r / dx3^2
 * (corotational: R from the current F, held fixed, H = 0 as in the solver;
 * Neo-Hookean: H by central differences of the exact Jacobian rows).
 * Returns the iterations, -1 without convergence. */
static int static_solve(int which, const mo_fem_material *m, const mo_fem_tet *t, const double *X,
                        const double *fext, double *u)
{
    int n = which == 0 ? 6 : 2, N = 3 + n;
    double lam[6] = {0}, Em[36] = {0};
    if (which == 0) {
        mo_fem_corot_compliance(m, t->V, Em);
    } else {
        double e[2];
        mo_fem_nh_compliance(m, t->V, e);
        Em[0] = e[0];
        Em[3] = e[1];
    }
    /* start from the rest multipliers (the NH rows carry a stress at rest) */
    {
        double F[9], C[6], R[9], S[9];
        mo_fem_deformation_gradient(X, t->Dm_inv, F);
        if (which == 0) {
            mo_fem_polar(F, R, S, (double *)0);
            mo_fem_corot_rows(F, R, C);
        } else {
            mo_fem_nh_rows(m, F, C);
        }
        double VK[36];
        if (which == 0) {
            mo_fem_corot_stiffness(m, t->V, VK);
        } else {
            memset(VK, 0, sizeof VK);
            VK[0] = m->nh_lambda * t->V;
            VK[3] = m->nh_mu * t->V;
        }
        for (int r = 0; r < n; r++) {
            lam[r] = 0.0;
            for (int c = 0; c < n; c++) lam[r] -= VK[n * r + c] * C[c];
        }
    }
    u[0] = u[1] = u[2] = 0.0;
    double fscale = sqrt(dot3(fext, fext));
    for (int it = 0; it < 100; it++) {
        double x[12], F[9], R[9], S[9], C[6], Jac[72];
        memcpy(x, X, sizeof x);
        for (int k = 0; k < 3; k++) x[9 + k] += u[k];
        mo_fem_deformation_gradient(x, t->Dm_inv, F);
        if (which == 0) {
            mo_fem_polar(F, R, S, (double *)0);
            mo_fem_corot_rows(F, R, C);
            mo_fem_corot_jacobian(R, t->Dm_inv, Jac);
        } else {
            mo_fem_nh_rows(m, F, C);
            mo_fem_nh_jacobian(F, t->Dm_inv, Jac);
        }
        double A[81] = {0}, b[9];
        double r1n = 0.0, r2n = 0.0;
        for (int k = 0; k < 3; k++) {
            double r1 = fext[k];
            for (int r = 0; r < n; r++) r1 += Jac[12 * r + 9 + k] * lam[r];
            b[k] = -r1;
            r1n = fmax(r1n, fabs(r1));
        }
        for (int r = 0; r < n; r++) {
            double r2 = C[r];
            for (int c = 0; c < n; c++) r2 += Em[n * r + c] * lam[c];
            b[3 + r] = -r2;
            r2n = fmax(r2n, fabs(r2));
        }
        /* force balance J^T lambda + f is a cancellation of the rows' forces,
         * |J| |lambda| ~ mu V at rest for NH (C_D = sqrt 3 there): measure it
         * against that scale */
        double iscale = fscale;
        for (int r = 0; r < n; r++) iscale += fabs(lam[r]) * maxabs(Jac + 12 * r + 9, 3);
        if (r1n <= 1e-14 * iscale && r2n <= 1e-15) return it;
        /* H */
        if (which == 1) {
            double h = 1e-6;
            for (int c = 0; c < 3; c++) {
                double xp[12], xm[12], Fp[9], Fm[9], Jp[24], Jm[24];
                memcpy(xp, x, sizeof xp);
                memcpy(xm, x, sizeof xm);
                xp[9 + c] += h;
                xm[9 + c] -= h;
                mo_fem_deformation_gradient(xp, t->Dm_inv, Fp);
                mo_fem_deformation_gradient(xm, t->Dm_inv, Fm);
                mo_fem_nh_jacobian(Fp, t->Dm_inv, Jp);
                mo_fem_nh_jacobian(Fm, t->Dm_inv, Jm);
                for (int k = 0; k < 3; k++) {
                    double hs = 0.0;
                    for (int r = 0; r < 2; r++) hs += lam[r] * (Jp[12 * r + 9 + k] - Jm[12 * r + 9 + k]) / (2 * h);
                    A[N * k + c] = hs;
                }
            }
        }
        for (int r = 0; r < n; r++)
            for (int k = 0; k < 3; k++) {
                A[N * k + 3 + r] = Jac[12 * r + 9 + k];
                A[N * (3 + r) + k] = Jac[12 * r + 9 + k];
            }
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) A[N * (3 + r) + 3 + c] = Em[n * r + c];
        if (!solve_dense(N, A, b)) return -1;
        for (int k = 0; k < 3; k++) u[k] += b[k];
        for (int r = 0; r < n; r++) lam[r] += b[3 + r];
    }
    return -1;
}

static void test_static_tet(void)
{
    uint64_t s = 41;
    for (int trial = 0; trial < 6; trial++) {
        double X[12];
        random_rest(&s, X);
        mo_fem_tet t;
        CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
        mo_fem_material m;
        double Ey = 1e6, nu = trial % 2 ? 0.45 : 0.25;
        CHECK(mo_fem_material_init(Ey, nu, &m) == MO_FEM_OK);
        double K33[9], dir[3], fext[3], ulin[3];
        linear_k33(X, Ey, nu, K33);
        sm64_unit(&s, dir);
        /* load for a strain ~1e-6: |f| ~ E_Y * area * 1e-6 */
        for (int k = 0; k < 3; k++) fext[k] = Ey * 0.4 * 1e-6 * dir[k];
        memcpy(ulin, fext, sizeof ulin);
        double Kc[9];
        memcpy(Kc, K33, sizeof Kc);
        CHECK(solve_dense(3, Kc, ulin));
        for (int which = 0; which < 2; which++) {
            double u[3];
            int its = static_solve(which, &m, &t, X, fext, u);
            CHECK(its >= 0);
            double d[3] = {u[0] - ulin[0], u[1] - ulin[1], u[2] - ulin[2]};
            double rel = sqrt(dot3(d, d) / dot3(ulin, ulin));
            worst_static = fmax(worst_static, rel);
            printf("static tet %d %s: %d Newton iterations, |u - u_lin| / |u_lin| = %.2g (|u| %.3g m)\n", trial,
                   which == 0 ? "corot" : "NH   ", its, rel, sqrt(dot3(u, u)));
            /* NH: F = I + u g_3^T is a rank-one update, so J is linear and I_C
             * quadratic in u: the energy is exactly quadratic, with the linear
             * Hessian at rest, and u = u_lin to round-off. Corotational: R
             * varies with u, O(strain) deviation */
            CHECK(rel <= (which == 0 ? 1e-4 : 1e-9));
        }
    }
}

/* ---- the 7-row Neo-Hookean form of the Newton step ---- */

static double worst_nh7;

static void test_nh7(void)
{
    uint64_t s = 29;
    mo_fem_material m;
    double nus[3] = {0.45, 0.3, -0.2};
    for (int trial = 0; trial < 150; trial++) {
        int kind = trial % ST_COUNT;
        CHECK(mo_fem_material_init(1e5, nus[trial % 3], &m) == MO_FEM_OK);
        double X[12], x[12], F[9], Fx[9], tr[3], R[9], S[9];
        random_rest(&s, X);
        mo_fem_tet t;
        CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
        random_state(&s, kind, F);
        sm64_vec(&s, -1.0, 1.0, tr);
        deform(F, X, tr, x);
        mo_fem_deformation_gradient(x, t.Dm_inv, Fx);
        mo_fem_polar(Fx, R, S, (double *)0);
        double J7[84], C[7], E[7], lam[7], f7[12], fn[12];
        mo_fem_nh7_jacobian(Fx, R, t.Dm_inv, J7);
        double ej = fd_jacobian_error(3, &m, &t, x, R, J7);
        CHECK(ej <= 1e-6);
        worst_nh7 = fmax(worst_nh7, ej);
        /* the same energy: 1/2 C^T eps^-1 C = V Psi + V (3 mu/2 + mu^2/(2 lambda)) */
        mo_fem_nh7_rows(&m, Fx, R, C);
        mo_fem_nh7_compliance(&m, t.V, E);
        double en = 0.0;
        for (int k = 0; k < 7; k++) en += 0.5 * C[k] * C[k] / E[k];
        double psi = mo_fem_nh_element(&m, &t, x, fn);
        double cst = t.V * (1.5 * m.nh_mu + 0.5 * m.nh_mu * m.nh_mu / m.nh_lambda);
        CHECK(fabs(en - cst - psi) <= 1e-9 * fmax(en, m.mu_l * t.V));
        /* the same forces: J7^T lambda with lambda = -eps^-1 C (R fixed at the polar factor) */
        for (int k = 0; k < 7; k++) lam[k] = -C[k] / E[k];
        for (int c = 0; c < 12; c++) {
            f7[c] = 0.0;
            for (int k = 0; k < 7; k++) f7[c] += J7[12 * k + c] * lam[k];
        }
        double df = 0.0;
        for (int c = 0; c < 12; c++) df = fmax(df, fabs(f7[c] - fn[c]));
        CHECK(df <= 1e-9 * fmax(m.mu_l * t.V, maxabs(fn, 12)));
    }
    /* rest: the rest multipliers satisfy the rows (C + eps lambda = 0) and exert no force */
    double X[12], C[7], E[7], lam[7], J7[84], I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    random_rest(&s, X);
    mo_fem_tet t;
    CHECK(mo_fem_tet_setup(X, &t) == MO_FEM_OK);
    CHECK(mo_fem_material_init(1e5, 0.45, &m) == MO_FEM_OK);
    mo_fem_nh7_rows(&m, I, I, C);
    mo_fem_nh7_compliance(&m, t.V, E);
    mo_fem_nh7_rest_multipliers(&m, t.V, lam);
    mo_fem_nh7_jacobian(I, I, t.Dm_inv, J7);
    for (int k = 0; k < 7; k++) CHECK(fabs(C[k] + E[k] * lam[k]) <= 1e-15);
    for (int c = 0; c < 12; c++) {
        double f = 0.0;
        for (int k = 0; k < 7; k++) f += J7[12 * k + c] * lam[k];
        CHECK(fabs(f) <= 1e-12 * m.mu_l * t.V);
    }
    printf("7-row Neo-Hookean: max |J - J_fd| / max(1, |J|) %.2g; energy and force equal the 2-row form's\n",
           worst_nh7);
}

int main(void)
{
    struct {
        const char *name;
        void (*fn)(void);
    } groups[] = {
        {"setup", test_setup},       {"polar", test_polar},       {"dFdx", test_dFdx},
        {"jacobians", test_jacobians}, {"forces", test_forces},   {"shear", test_shear},
        {"uniaxial", test_uniaxial}, {"volume", test_volume},     {"activation", test_activation},
        {"static_tet", test_static_tet}, {"nh7", test_nh7},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        check_group_begin();
        groups[i].fn();
        check_group_end(groups[i].name, 11, 6);
    }
    printf("worst: polar %.2g, Jacobian (corot fixed R) %.2g, (corot full) %.2g, (NH) %.2g, "
           "force corot %.2g, NH %.2g, static %.2g\n",
           worst_polar, worst_jac_fixed, worst_jac_full, worst_jac_nh, worst_force_corot, worst_force_nh,
           worst_static);
    return check_groups_result();
}
