/* fem.h: per-tetrahedron kernels of the FEM materials in compliance form
 * (SOLVERS.md B "FEM in compliance form", Macklin et al. 2019 section 9):
 * element setup, the deformation gradient and its derivative, a polar
 * decomposition, and for each material the constraint rows C(x), their exact
 * Jacobian dC/dx and their compliance E, so that the element's elastic energy
 * is  Psi V = 1/2 C^T E^-1 C (+ a constant)  and its force on the 4 particles
 *     f = -d(Psi V)/dx = J^T lambda,   lambda = -E^-1 C.
 * Plain C11 in the subset CUDA C++ shares (kernel.h): no allocation, no libc
 * beyond math.h. All matrices are row-major double arrays; a Jacobian of n
 * rows is n x 12, column 3 a + k = coordinate k of particle a (a = 0..3).
 *
 * Conventions
 *   Ds = [x1 - x0, x2 - x0, x3 - x0] (columns), Dm the same at rest,
 *   F = Ds Dm^-1, V = det(Dm) / 6 > 0 (positively oriented rest elements).
 *   dF/dx is constant: dF_ij / dx_{a,k} = delta_ik g_a[j], with g_1..g_3 the
 *   rows of Dm^-1 and g_0 = -(g_1 + g_2 + g_3). So a row C(F) with
 *   P = dC/dF has d C / d x_a = P g_a (mo_fem_row_from_dF).
 *
 * Linear corotational: F = R S (polar, R a proper rotation), rows
 *     C = voigt(sym(R^T F) - I) = (e_xx, e_yy, e_zz, 2e_yz, 2e_zx, 2e_xy)
 *   in the order (xx, yy, zz, yz, zx, xy), ENGINEERING shear gamma = 2 e_ij.
 *   K (Voigt, engineering shear) has lambda_L + 2 mu_L on the normal diagonal,
 *   lambda_L off it, mu_L on the shear diagonal, so 1/2 C^T K C =
 *   mu_L e:e + lambda_L/2 tr(e)^2. E = (V K)^-1 in closed form:
 *   normal block (1/(E_Y V)) [[1,-nu,-nu],[-nu,1,-nu],[-nu,-nu,1]], shear
 *   diagonal 1/(mu_L V) = 2 (1 + nu)/(E_Y V). The Jacobian is taken with R held
 *   fixed (SOLVERS.md: R is fixed within a Newton iteration); for this
 *   isotropic K the fixed-R force J^T lambda is the exact -d(Psi V)/dx, since
 *   dPsi/dS commutes with S and dR^T F = -W S with W skew contributes
 *   tr(sym . skew) = 0. The full derivative including R's variation is
 *   mo_fem_corot_jacobian_full (for tests and an exact Newton tangent).
 *
 * Stable Neo-Hookean (Smith, de Goes, Kim 2018) WITHOUT the log term, as in
 *   Macklin & Mueller 2021 ("A constraint-based formulation of stable
 *   Neo-Hookean materials"):
 *     Psi = mu/2 (I_C - 3) + lambda/2 (J - alpha)^2 - mu^2/(2 lambda)
 *   (the last constant makes Psi(I) = 0). Rows on invariants:
 *     C_H = J - alpha   compliance 1/(lambda V)
 *     C_D = sqrt(I_C)   compliance 1/(mu V)      (I_C = |F|_F^2)
 *   so 1/2 C^T E^-1 C = V (Psi + 3 mu/2 + mu^2/(2 lambda)). Dropping the log
 *   term changes the constants SOLVERS.md quotes: a stress-free rest state
 *   (dPsi/dF (I) = mu I + lambda (1 - alpha) I = 0) needs alpha = 1 + mu/lambda,
 *   and matching linear elasticity at small strain (the Hessian at I is
 *   mu (H:H + H:H^T) + (lambda - mu) tr(H)^2) needs
 *     mu = mu_L,  lambda = lambda_L + mu_L
 *   (Smith et al. 2018 section 3.4). The quoted mu = 4/3 mu_L,
 *   lambda = lambda_L + 5/6 mu_L, alpha = 1 + 3 mu/(4 lambda) belong to the
 *   energy WITH -mu/2 log(I_C + 1); used without it they leave a rest stress
 *   mu/4 I and a shear modulus 4/3 mu_L (the shear test catches both). The log
 *   term has negative curvature in I_C and cannot be a row with a constant
 *   positive compliance, which is why the compliance form drops it.
 *   Both rows are smooth at F = I (invariants, not principal stretches); J
 *   and its gradient cof(F) are polynomials, finite for J <= 0; C_D's gradient
 *   F/|F| is set to 0 at F = 0 exactly (all four particles coincident: the
 *   one non-differentiable point of sqrt(I_C); 0 is in its subdifferential).
 *
 * Activation (PneuNet inflation): an element with activation a > -1 behaves
 *   as if its rest shape were its reference shape scaled uniformly by
 *   s = (1 + a)^(1/3) about its centroid: Dm -> s Dm, Dm^-1 -> Dm^-1 / s,
 *   V -> (1 + a) V (mo_fem_tet_activate). Held at its reference shape the
 *   element then pushes outward with the pressure of a volumetric strain
 *   -a/(1+a) (linear: p = K_bulk a to first order, K_bulk = lambda_L +
 *   2/3 mu_L); free, it relaxes to volume (1 + a) V with no shear. Both
 *   materials use it unchanged; for Neo-Hookean it reads C_H = J/(1+a) - alpha.
 */
#ifndef MO_KERNELS_FEM_H
#define MO_KERNELS_FEM_H

#include "vec.h"

/* statuses of the setup functions; the caller turns them into a sentence
 * naming the element (or material) */
enum {
    MO_FEM_OK = 0,
    MO_FEM_FLAT = 1,            /* |det Dm| <= MO_FEM_FLAT_TOL * (longest edge)^3: zero volume */
    MO_FEM_INVERTED = 2,        /* det Dm < 0: negatively oriented rest element */
    MO_FEM_BAD_YOUNG = 3,       /* Young's modulus not finite and > 0 */
    MO_FEM_BAD_POISSON = 4,     /* Poisson's ratio not in (-1, 0.5) */
    MO_FEM_BAD_ACTIVATION = 5,  /* activation not finite and > -1 */
    MO_FEM_SINGULAR = 6,        /* corotational full Jacobian: sigma_i + sigma_j = 0 */
};

/* relative volume below which a rest element counts as flat: |det Dm| <= tol L^3 */
#define MO_FEM_FLAT_TOL 1e-12
/* one-sided Jacobi SVD: a column pair is rotated while |a_p . a_q| > tol |a_p| |a_q| */
#define MO_FEM_SVD_TOL 1e-15
#define MO_FEM_SVD_MAX_SWEEPS 30

/* rest data of one tetrahedron */
typedef struct mo_fem_tet {
    double Dm[9];      /* rest edge matrix [X1-X0, X2-X0, X3-X0] (columns), m */
    double Dm_inv[9];  /* its inverse, 1/m */
    double V;          /* rest volume det(Dm)/6, m^3, > 0 */
} mo_fem_tet;

/* material constants of one element (mo_fem_material_init) */
typedef struct mo_fem_material {
    double young, poisson;            /* E_Y (Pa), nu */
    double mu_l, lambda_l;            /* Lame parameters, Pa */
    double nh_mu, nh_lambda, nh_alpha; /* stable Neo-Hookean (no log term): mu_L, lambda_L + mu_L, 1 + mu/lambda */
} mo_fem_material;

/* ---- element setup ---- */

/* rest data from the four rest positions X (12 doubles, particle-major).
 * Returns MO_FEM_OK, MO_FEM_FLAT (t untouched) or MO_FEM_INVERTED (t filled
 * with the negative volume in t->V, so a caller may report it; not usable). */
MO_KERNEL int mo_fem_tet_setup(const double *X, mo_fem_tet *t)
{
    double Dm[9], L2 = 0.0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) Dm[3 * i + c] = X[3 * (c + 1) + i] - X[i];
    /* longest of the six edges */
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
            double d[3];
            mo_v3_sub(d, X + 3 * b, X + 3 * a);
            double l2 = mo_v3_dot(d, d);
            if (l2 > L2) L2 = l2;
        }
    double det = mo_m3_det(Dm), L3 = L2 * sqrt(L2);
    if (!(fabs(det) > MO_FEM_FLAT_TOL * L3)) return MO_FEM_FLAT;
    for (int k = 0; k < 9; k++) t->Dm[k] = Dm[k];
    mo_m3_inverse(t->Dm_inv, Dm);
    t->V = det / 6.0;
    return det > 0.0 ? MO_FEM_OK : MO_FEM_INVERTED;
}

/* the element with activation a (> -1): rest shape scaled by s = (1+a)^(1/3),
 * Dm -> s Dm, Dm^-1 -> Dm^-1 / s, V -> (1 + a) V. out may be rest. */
MO_KERNEL int mo_fem_tet_activate(const mo_fem_tet *rest, double a, mo_fem_tet *out)
{
    if (!(a > -1.0) || !(a < 1e300)) return MO_FEM_BAD_ACTIVATION;
    double s = cbrt(1.0 + a);
    for (int k = 0; k < 9; k++) {
        out->Dm[k] = rest->Dm[k] * s;
        out->Dm_inv[k] = rest->Dm_inv[k] / s;
    }
    out->V = rest->V * (1.0 + a);
    return MO_FEM_OK;
}

/* Lame parameters and the Neo-Hookean refit from Young's modulus (Pa, > 0)
 * and Poisson's ratio (-1 < nu < 0.5) */
MO_KERNEL int mo_fem_material_init(double young, double poisson, mo_fem_material *m)
{
    if (!(young > 0.0) || !(young < 1e300)) return MO_FEM_BAD_YOUNG;
    if (!(poisson > -1.0) || !(poisson < 0.5)) return MO_FEM_BAD_POISSON;
    m->young = young;
    m->poisson = poisson;
    m->mu_l = young / (2.0 * (1.0 + poisson));
    m->lambda_l = young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
    m->nh_mu = m->mu_l;
    /* lambda_L + mu_L = E / (2 (1 + nu)(1 - 2 nu)), written so nu < 0 stays exact */
    m->nh_lambda = young / (2.0 * (1.0 + poisson) * (1.0 - 2.0 * poisson));
    m->nh_alpha = 1.0 + m->nh_mu / m->nh_lambda;
    return MO_FEM_OK;
}

/* ---- deformation gradient ---- */

/* g (12): the gradients g_a of the four linear shape functions, g_1..g_3 the
 * rows of Dm^-1, g_0 = -(g_1 + g_2 + g_3) */
MO_KERNEL void mo_fem_shape_gradients(const double *Dm_inv, double *g)
{
    for (int j = 0; j < 3; j++) {
        g[3 + j] = Dm_inv[j];
        g[6 + j] = Dm_inv[3 + j];
        g[9 + j] = Dm_inv[6 + j];
        g[j] = -(Dm_inv[j] + Dm_inv[3 + j] + Dm_inv[6 + j]);
    }
}

/* F = Ds Dm^-1 from the current positions x (12) */
MO_KERNEL void mo_fem_deformation_gradient(const double *x, const double *Dm_inv, double *F)
{
    double Ds[9];
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) Ds[3 * i + c] = x[3 * (c + 1) + i] - x[i];
    mo_m3_mul(F, Ds, Dm_inv);
}

/* dF/dx as a 9 x 12 matrix: row 3 i + j (F_ij), column 3 a + k:
 * delta_ik g_a[j] */
MO_KERNEL void mo_fem_dF_dx(const double *Dm_inv, double *dF)
{
    double g[12];
    mo_fem_shape_gradients(Dm_inv, g);
    for (int r = 0; r < 9 * 12; r++) dF[r] = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int a = 0; a < 4; a++) dF[12 * (3 * i + j) + 3 * a + i] = g[3 * a + j];
}

/* one Jacobian row (12) of a row C(F) from P = dC/dF (3x3): dC/dx_a = P g_a */
MO_KERNEL void mo_fem_row_from_dF(const double *P, const double *g, double *row)
{
    for (int a = 0; a < 4; a++) mo_m3_mulv(row + 3 * a, P, g + 3 * a);
}

/* ---- polar decomposition ---- */

/* F = U diag(sigma) V^T with U, V proper rotations (det +1), |sigma_0| >=
 * |sigma_1| >= |sigma_2|, sigma_0, sigma_1 >= 0 and sigma_2 carrying the sign
 * of det F (the "rotation-variant" SVD of Irving et al. 2004, which makes
 * R = U V^T the closest rotation to F even for reflections).
 * Method: one-sided Jacobi (Hestenes) on the columns of A = F V: plane
 * rotations V <- V G orthogonalise the columns of A (each rotation zeroes one
 * pair's dot product; quadratic convergence, 4-6 sweeps at double precision),
 * the columns are sorted by length (a swap negates one column to keep
 * det V = +1), then u_0 = a_0/|a_0|, u_1 = the normalised part of a_1
 * orthogonal to u_0 (any unit vector orthogonal to u_0 when that is zero),
 * u_2 = u_0 x u_1, sigma_i = a_i . u_i. Rank-deficient F need no special
 * case beyond that (F = 0 gives U = V = I, sigma = 0); F is never squared, so
 * small singular values keep full relative accuracy. Returns the sweeps run. */
MO_KERNEL int mo_fem_svd3(const double *F, double *U, double *sigma, double *V)
{
    double A[9];
    for (int k = 0; k < 9; k++) { A[k] = F[k]; V[k] = (k % 4 == 0) ? 1.0 : 0.0; }
    int sweeps = 0;
    for (; sweeps < MO_FEM_SVD_MAX_SWEEPS; sweeps++) {
        int rotated = 0;
        for (int pair = 0; pair < 3; pair++) {
            int p = pair == 2 ? 1 : 0, q = pair == 0 ? 1 : 2;
            double al = 0.0, be = 0.0, ga = 0.0;
            for (int i = 0; i < 3; i++) {
                al += A[3 * i + p] * A[3 * i + p];
                be += A[3 * i + q] * A[3 * i + q];
                ga += A[3 * i + p] * A[3 * i + q];
            }
            if (!(fabs(ga) > MO_FEM_SVD_TOL * sqrt(al) * sqrt(be))) continue;
            double zeta = (be - al) / (2.0 * ga);
            double t = fabs(zeta) > 1e150 ? 0.5 / zeta
                                          : (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
            double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
            for (int i = 0; i < 3; i++) {
                double ap = A[3 * i + p], aq = A[3 * i + q];
                A[3 * i + p] = c * ap - s * aq;
                A[3 * i + q] = s * ap + c * aq;
                double vp = V[3 * i + p], vq = V[3 * i + q];
                V[3 * i + p] = c * vp - s * vq;
                V[3 * i + q] = s * vp + c * vq;
            }
            rotated = 1;
        }
        if (!rotated) break;
    }
    /* sort the columns by length, descending; a swap negates the moved column
     * of A and V alike (F = A V^T unchanged, det V stays +1) */
    for (int pass = 0; pass < 2; pass++)
        for (int p = 0; p < 2 - pass; p++) {
            int q = p + 1;
            double np = 0.0, nq = 0.0;
            for (int i = 0; i < 3; i++) {
                np += A[3 * i + p] * A[3 * i + p];
                nq += A[3 * i + q] * A[3 * i + q];
            }
            if (nq > np)
                for (int i = 0; i < 3; i++) {
                    double ta = A[3 * i + p], tv = V[3 * i + p];
                    A[3 * i + p] = A[3 * i + q]; V[3 * i + p] = V[3 * i + q];
                    A[3 * i + q] = -ta; V[3 * i + q] = -tv;
                }
        }
    double a0[3] = {A[0], A[3], A[6]}, a1[3] = {A[1], A[4], A[7]}, a2[3] = {A[2], A[5], A[8]};
    double u0[3], u1[3], u2[3];
    double s0 = mo_v3_norm(a0);
    if (!(s0 > 0.0)) {
        /* F = 0 */
        for (int k = 0; k < 9; k++) { U[k] = (k % 4 == 0) ? 1.0 : 0.0; V[k] = U[k]; }
        sigma[0] = sigma[1] = sigma[2] = 0.0;
        return sweeps;
    }
    mo_v3_scale(u0, a0, 1.0 / s0);
    mo_v3_copy(u1, a1);
    mo_v3_axpy(u1, -mo_v3_dot(a1, u0), u0);
    double n1 = mo_v3_norm(u1);
    if (n1 > 1e-150 * s0) {
        mo_v3_scale(u1, u1, 1.0 / n1);
    } else {
        /* rank 1: any unit vector orthogonal to u0 (cross with the axis least aligned) */
        double e[3] = {0.0, 0.0, 0.0};
        int k = 0;
        if (fabs(u0[1]) < fabs(u0[k])) k = 1;
        if (fabs(u0[2]) < fabs(u0[k])) k = 2;
        e[k] = 1.0;
        mo_v3_cross(u1, u0, e);
        mo_v3_normalize(u1);
        if (mo_v3_dot(a1, u1) < 0.0) mo_v3_scale(u1, u1, -1.0);
    }
    mo_v3_cross(u2, u0, u1);
    sigma[0] = s0;
    sigma[1] = mo_v3_dot(a1, u1);
    sigma[2] = mo_v3_dot(a2, u2);
    for (int i = 0; i < 3; i++) {
        U[3 * i] = u0[i];
        U[3 * i + 1] = u1[i];
        U[3 * i + 2] = u2[i];
    }
    return sweeps;
}

/* F = R S: R a proper rotation (the closest one to F in the Frobenius norm),
 * S = V diag(sigma) V^T symmetric (positive semi-definite when det F >= 0;
 * with one negative eigenvalue, the smallest in magnitude, when det F < 0).
 * Finite for every finite F, including reflections and rank-deficient F.
 * sigma (3, may be NULL) receives the signed singular values. Returns the
 * Jacobi sweeps run. */
MO_KERNEL int mo_fem_polar(const double *F, double *R, double *S, double *sigma)
{
    double U[9], V[9], sg[3];
    int sweeps = mo_fem_svd3(F, U, sg, V);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            R[3 * i + j] = U[3 * i] * V[3 * j] + U[3 * i + 1] * V[3 * j + 1] + U[3 * i + 2] * V[3 * j + 2];
            if (j >= i) {
                double s = V[3 * i] * sg[0] * V[3 * j] + V[3 * i + 1] * sg[1] * V[3 * j + 1] +
                           V[3 * i + 2] * sg[2] * V[3 * j + 2];
                S[3 * i + j] = s;
                S[3 * j + i] = s;
            }
        }
    if (sigma) mo_v3_copy(sigma, sg);
    return sweeps;
}

/* ---- linear corotational ---- */

/* the 6 rows C = voigt(sym(R^T F) - I), engineering shear:
 * (G00-1, G11-1, G22-1, G12+G21, G20+G02, G01+G10), G = R^T F */
MO_KERNEL void mo_fem_corot_rows(const double *F, const double *R, double *C)
{
    double Rt[9], G[9];
    mo_m3_transpose(Rt, R);
    mo_m3_mul(G, Rt, F);
    C[0] = G[0] - 1.0;
    C[1] = G[4] - 1.0;
    C[2] = G[8] - 1.0;
    C[3] = G[5] + G[7];
    C[4] = G[6] + G[2];
    C[5] = G[1] + G[3];
}

/* the 6 x 12 Jacobian of mo_fem_corot_rows with R held fixed:
 * dG_ij/dx_{a,k} = R_ki g_a[j], so row (ii) = R_ki g_a[i] and row (ij) =
 * R_ki g_a[j] + R_kj g_a[i] */
MO_KERNEL void mo_fem_corot_jacobian(const double *R, const double *Dm_inv, double *Jac)
{
    double g[12];
    mo_fem_shape_gradients(Dm_inv, g);
    for (int r = 0; r < 6; r++) {
        /* Voigt index pairs (0,0) (1,1) (2,2) (1,2) (2,0) (0,1) */
        int i = r < 3 ? r : (r - 2) % 3, j = r < 3 ? r : (r - 1) % 3;
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 3; k++) {
                double v = R[3 * k + i] * g[3 * a + j];
                if (r >= 3) v += R[3 * k + j] * g[3 * a + i];
                Jac[12 * r + 3 * a + k] = v;
            }
    }
}

/* the full 6 x 12 derivative of C(x) = voigt(S(x) - I), R = R(F(x)) varying,
 * at F = R S (R, S from mo_fem_polar of F). For dF = e_k g_a^T:
 * M = R^T dF, R^T dR = W = [w]x with W S + S W = M - M^T, i.e.
 * (tr(S) I - S) w = axial(M - M^T), and dS = M - W S (symmetric). Returns
 * MO_FEM_SINGULAR (Jac untouched) when tr(S) I - S is singular, i.e.
 * sigma_i + sigma_j = 0 for a pair (F = 0, or an inverted F with two
 * opposite singular values): R is not differentiable there. */
MO_KERNEL int mo_fem_corot_jacobian_full(const double *R, const double *S, const double *Dm_inv, double *Jac)
{
    double T[9], Ti[9], g[12];
    double tr = S[0] + S[4] + S[8];
    for (int k = 0; k < 9; k++) T[k] = -S[k];
    T[0] += tr; T[4] += tr; T[8] += tr;
    double scale = fabs(S[0]) + fabs(S[4]) + fabs(S[8]) + fabs(S[1]) + fabs(S[2]) + fabs(S[5]);
    if (!(fabs(mo_m3_det(T)) > 1e-14 * scale * scale * scale) || !mo_m3_inverse(Ti, T)) return MO_FEM_SINGULAR;
    mo_fem_shape_gradients(Dm_inv, g);
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) {
            double M[9], ax[3], w[3], dS[9];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) M[3 * i + j] = R[3 * k + i] * g[3 * a + j];
            ax[0] = M[7] - M[5];
            ax[1] = M[2] - M[6];
            ax[2] = M[3] - M[1];
            mo_m3_mulv(w, Ti, ax);
            /* W S with W = [w]x */
            double W[9] = {0.0, -w[2], w[1], w[2], 0.0, -w[0], -w[1], w[0], 0.0}, WS[9];
            mo_m3_mul(WS, W, S);
            for (int q = 0; q < 9; q++) dS[q] = M[q] - WS[q];
            int c = 3 * a + k;
            Jac[c] = dS[0];
            Jac[12 + c] = dS[4];
            Jac[24 + c] = dS[8];
            Jac[36 + c] = dS[5] + dS[7];
            Jac[48 + c] = dS[6] + dS[2];
            Jac[60 + c] = dS[1] + dS[3];
        }
    return MO_FEM_OK;
}

/* V K (6x6, Pa m^3): the element stiffness of the Voigt rows, engineering shear */
MO_KERNEL void mo_fem_corot_stiffness(const mo_fem_material *m, double V, double *K)
{
    for (int r = 0; r < 36; r++) K[r] = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) K[6 * i + j] = V * m->lambda_l;
        K[6 * i + i] = V * (m->lambda_l + 2.0 * m->mu_l);
        K[6 * (i + 3) + i + 3] = V * m->mu_l;
    }
}

/* E = (V K)^-1 (6x6, 1/(Pa m^3)), closed form: normal block
 * (1/(E_Y V)) [[1,-nu,-nu],[-nu,1,-nu],[-nu,-nu,1]], shear 1/(mu_L V) */
MO_KERNEL void mo_fem_corot_compliance(const mo_fem_material *m, double V, double *E)
{
    double c = 1.0 / (m->young * V);
    for (int r = 0; r < 36; r++) E[r] = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) E[6 * i + j] = -m->poisson * c;
        E[6 * i + i] = c;
        E[6 * (i + 3) + i + 3] = 1.0 / (m->mu_l * V);
    }
}

/* elastic energy density of the corotational model at S (the polar factor
 * R^T F): mu_L |S - I|^2 + lambda_L/2 tr(S - I)^2, J/m^3 */
MO_KERNEL double mo_fem_corot_psi(const mo_fem_material *m, const double *S)
{
    double e2 = 0.0, tr = S[0] + S[4] + S[8] - 3.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double e = S[3 * i + j] - (i == j ? 1.0 : 0.0);
            e2 += e * e;
        }
    return m->mu_l * e2 + 0.5 * m->lambda_l * tr * tr;
}

/* ---- stable Neo-Hookean (no log term) ---- */

/* cof(F) = J F^-T = dJ/dF, defined for every F */
MO_KERNEL void mo_fem_cofactor(const double *F, double *cof)
{
    double t[9];
    t[0] = F[4] * F[8] - F[5] * F[7];
    t[1] = F[5] * F[6] - F[3] * F[8];
    t[2] = F[3] * F[7] - F[4] * F[6];
    t[3] = F[2] * F[7] - F[1] * F[8];
    t[4] = F[0] * F[8] - F[2] * F[6];
    t[5] = F[1] * F[6] - F[0] * F[7];
    t[6] = F[1] * F[5] - F[2] * F[4];
    t[7] = F[2] * F[3] - F[0] * F[5];
    t[8] = F[0] * F[4] - F[1] * F[3];
    for (int k = 0; k < 9; k++) cof[k] = t[k];
}

/* the 2 rows (C_H, C_D) = (J - alpha, sqrt(I_C)) */
MO_KERNEL void mo_fem_nh_rows(const mo_fem_material *m, const double *F, double *C)
{
    double ic = 0.0;
    for (int k = 0; k < 9; k++) ic += F[k] * F[k];
    C[0] = mo_m3_det(F) - m->nh_alpha;
    C[1] = sqrt(ic);
}

/* their exact 2 x 12 Jacobian: dC_H/dx_a = cof(F) g_a, dC_D/dx_a = F g_a / |F|
 * (0 at F = 0) */
MO_KERNEL void mo_fem_nh_jacobian(const double *F, const double *Dm_inv, double *Jac)
{
    double g[12], cof[9], P[9], ic = 0.0;
    mo_fem_shape_gradients(Dm_inv, g);
    mo_fem_cofactor(F, cof);
    mo_fem_row_from_dF(cof, g, Jac);
    for (int k = 0; k < 9; k++) ic += F[k] * F[k];
    double inv = ic > 0.0 ? 1.0 / sqrt(ic) : 0.0;
    for (int k = 0; k < 9; k++) P[k] = F[k] * inv;
    mo_fem_row_from_dF(P, g, Jac + 12);
}

/* the diagonal compliance (1/(lambda V), 1/(mu V)) of (C_H, C_D), 1/(Pa m^3) */
MO_KERNEL void mo_fem_nh_compliance(const mo_fem_material *m, double V, double *E)
{
    E[0] = 1.0 / (m->nh_lambda * V);
    E[1] = 1.0 / (m->nh_mu * V);
}

/* Psi = mu/2 (I_C - 3) + lambda/2 (J - alpha)^2 - mu^2/(2 lambda), J/m^3
 * (0 at F = I; finite for every finite F) */
MO_KERNEL double mo_fem_nh_psi(const mo_fem_material *m, const double *F)
{
    double ic = 0.0;
    for (int k = 0; k < 9; k++) ic += F[k] * F[k];
    double dj = mo_m3_det(F) - m->nh_alpha;
    return 0.5 * m->nh_mu * (ic - 3.0) + 0.5 * m->nh_lambda * dj * dj -
           0.5 * m->nh_mu * m->nh_mu / m->nh_lambda;
}

/* ---- stable Neo-Hookean as 7 rows (the form the Newton step uses) ----
 * The same energy, Psi = mu/2 I_C + lambda/2 (J - alpha)^2 + const, with
 * I_C = |F|^2 = |S|^2 for the polar stretch S = R^T F, written as
 *   row 0:     C_H = J - alpha,                                    eps 1/(lambda V)
 *   rows 1..6: (S_xx, S_yy, S_zz, r2 S_yz, r2 S_zx, r2 S_xy), r2 = sqrt 2,  eps 1/(mu V)
 * so that 1/2 C^T eps^-1 C = V Psi + V (3 mu/2 + mu^2/(2 lambda)). The
 * deviatoric rows are the corotational rows sym(R^T F) (+ I, shear scaled by
 * 1/sqrt 2): linear in x for a fixed R, so their Gauss-Newton tangent
 * J^T eps^-1 J carries the shear stiffness mu V, which the single row
 * C_D = sqrt(I_C) only has in its curvature. With R held fixed the force
 * J^T lambda is exact (S symmetric: mu V R S = mu V F). */
MO_KERNEL void mo_fem_nh7_rows(const mo_fem_material *m, const double *F, const double *R, double *C)
{
    double cv[6];
    mo_fem_corot_rows(F, R, cv);
    C[0] = mo_m3_det(F) - m->nh_alpha;
    for (int k = 0; k < 3; k++) C[1 + k] = cv[k] + 1.0;
    for (int k = 3; k < 6; k++) C[1 + k] = cv[k] * 0.70710678118654752440;
}

/* their 7 x 12 Jacobian, R held fixed (row 0 exact: cof(F) g_a) */
MO_KERNEL void mo_fem_nh7_jacobian(const double *F, const double *R, const double *Dm_inv, double *Jac)
{
    double g[12], cof[9];
    mo_fem_shape_gradients(Dm_inv, g);
    mo_fem_cofactor(F, cof);
    mo_fem_row_from_dF(cof, g, Jac);
    mo_fem_corot_jacobian(R, Dm_inv, Jac + 12);
    for (int c = 48; c < 84; c++) Jac[c] *= 0.70710678118654752440;
}

/* the diagonal compliance (7) */
MO_KERNEL void mo_fem_nh7_compliance(const mo_fem_material *m, double V, double *E)
{
    E[0] = 1.0 / (m->nh_lambda * V);
    for (int k = 1; k < 7; k++) E[k] = 1.0 / (m->nh_mu * V);
}

/* the multipliers lambda = -eps^-1 C at rest (F = R = I): (mu V, -mu V x 3, 0 x 3);
 * their force J^T lambda is zero (cof(I) = I balances -I) */
MO_KERNEL void mo_fem_nh7_rest_multipliers(const mo_fem_material *m, double V, double *lambda)
{
    lambda[0] = m->nh_mu * V;
    for (int k = 1; k < 4; k++) lambda[k] = -m->nh_mu * V;
    for (int k = 4; k < 7; k++) lambda[k] = 0.0;
}

/* ---- compliance form: multipliers and forces ---- */

/* lambda = -E^-1 C and f = J^T lambda for n rows, with Kinv = E^-1 (n x n,
 * the element stiffness V K of the rows); lambda (n) may be NULL, f is 12 */
MO_KERNEL void mo_fem_rows_force(int n, const double *C, const double *Jac, const double *Kinv,
                                 double *lambda, double *f)
{
    double lam[6];
    for (int r = 0; r < n; r++) {
        double s = 0.0;
        for (int c = 0; c < n; c++) s += Kinv[n * r + c] * C[c];
        lam[r] = -s;
        if (lambda) lambda[r] = -s;
    }
    for (int c = 0; c < 12; c++) {
        double s = 0.0;
        for (int r = 0; r < n; r++) s += Jac[12 * r + c] * lam[r];
        f[c] = s;
    }
}

/* corotational element at positions x (12): returns Psi V (J) and, when f
 * (12) is not NULL, the force f = J^T lambda, lambda = -V K C, from the rows
 * with R from the polar decomposition of F; R (9) may be NULL */
MO_KERNEL double mo_fem_corot_element(const mo_fem_material *m, const mo_fem_tet *t, const double *x,
                                      double *f, double *R_out)
{
    double F[9], R[9], S[9];
    mo_fem_deformation_gradient(x, t->Dm_inv, F);
    mo_fem_polar(F, R, S, (double *)0);
    if (R_out)
        for (int k = 0; k < 9; k++) R_out[k] = R[k];
    if (f) {
        double C[6], Jac[72], K[36];
        mo_fem_corot_rows(F, R, C);
        mo_fem_corot_jacobian(R, t->Dm_inv, Jac);
        mo_fem_corot_stiffness(m, t->V, K);
        mo_fem_rows_force(6, C, Jac, K, (double *)0, f);
    }
    return t->V * mo_fem_corot_psi(m, S);
}

/* Neo-Hookean element at positions x (12): returns Psi V (J) and, when f
 * (12) is not NULL, the force f = J^T lambda, lambda = -E^-1 C, from the rows */
MO_KERNEL double mo_fem_nh_element(const mo_fem_material *m, const mo_fem_tet *t, const double *x, double *f)
{
    double F[9];
    mo_fem_deformation_gradient(x, t->Dm_inv, F);
    if (f) {
        double C[2], Jac[24], K[4];
        mo_fem_nh_rows(m, F, C);
        mo_fem_nh_jacobian(F, t->Dm_inv, Jac);
        K[0] = m->nh_lambda * t->V; K[1] = 0.0;
        K[2] = 0.0; K[3] = m->nh_mu * t->V;
        mo_fem_rows_force(2, C, Jac, K, (double *)0, f);
    }
    return t->V * mo_fem_nh_psi(m, F);
}

#endif
