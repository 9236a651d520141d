/* test_solver.c: the assembled constraint problem and the CCP solvers
 * (SOLVERS.md A) against references that share no code with the engine.
 *
 * Groups:
 *   1a joint rows    CSR J of every joint row against a central finite
 *                    difference of the row's constraint value g (aux[].g from
 *                    mo_joint_fill_rows, or the joint position for motor rows)
 *                    under a tiny pose change of one generalized velocity
 *                    component; W = M^-1 J^T against a dense M^-1 built here;
 *                    N_ii, Sigma, b (SPOOK), bounds and block kinds.
 *   1a contact rows  contact rows [-n, -(ra x n), n, rb x n] (and tangents)
 *                    built here from the contact list; W, N_ii, b.
 *   1b solvers       mo_solver_pgs / mo_solver_jacobi against a dense
 *                    reference: accelerated projected gradient on the dense
 *                    N = J M^-1 J^T + Sigma, r = J v~ + b, cross-checked by
 *                    exact enumeration (frictionless LCP) and Gaussian
 *                    elimination (bilateral only).
 *   1c cone          mo_k_project_cone against a brute-force projection.
 *   1d residuals     mo_problem_residuals against dense recomputation.
 *
 * Tolerances:
 *   finite differences: central, dt = 1e-6: truncation O(dt^2) ~ 1e-12 and
 *     round-off ~ eps |g| / dt ~ 1e-10, so 1e-7 per entry (entries O(1));
 *     the weld rows of fixed/prismatic joints use the rotation vector theta of
 *     the error, whose exact derivative is the row times (I - [theta]x/2 + ...):
 *     + |theta| per entry (theta ~ 1e-5 here, measured deviation 3e-6);
 *     b from those rows: 1e-6 (+ 3 |theta|) (row error x |v| <= 1 m/s);
 *   W = M^-1 J^T and N_ii: 1e-12 relative (the same products, rounded differently);
 *   contact rows: 1e-13 (same formula from the same contact data);
 *   solvers: |gamma - gamma_ref|_inf <= 1e-9 |gamma_ref|_inf (1e-10 for the
 *     1-contact and pendulum cases): the reference is iterated to a natural
 *     residual R <= 1e-13, and for a strongly monotone VI the error is at
 *     most (1 + alpha L) R / lambda_min(N), below 1e-11 here (lambda_min(N) is
 *     checked > 1e-3 lambda_max, which also makes gamma unique); reported
 *     residuals <= 1e-9 m/s and equal to the dense recomputation to 1e-10;
 *   cone: 1e-9 (1 + |x|) against the brute force (which resolves the
 *     boundary angle by bisection to ~1e-15; measured 2e-15), idempotence 1e-14;
 *   residual definitions: <= 1e-11 at the solution, 1e-12 relative to the
 *     dense values elsewhere.
 *
 * Returns 0 when every check passes, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step/step.h"

#define CHECK_NEAR CHECK_NEAR_G17_DIFF
#include "testutil.h"

/* a check with a printed context label (loops) */
#define CHECK_NEAR_L(x, y, tol, ...)                                                                       \
    do {                                                                                                   \
        double x_ = (x), y_ = (y), t_ = (tol);                                                             \
        ++check_count;                                                                                     \
        if (!(fabs(x_ - y_) <= t_)) {                                                                      \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed [", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fprintf(stderr, "]: %s = %.17g, %s = %.17g, |diff| = %.3g, tol %.3g\n", #x, x_, #y, y_,        \
                    fabs(x_ - y_), t_);                                                                    \
            ++check_failures;                                                                              \
        }                                                                                                  \
    } while (0)

static void group_begin(void) { check_group_begin(); }
/* "ok   name  N checks, F failed" */
static void group_end(const char *name) { check_group_end(name, 44, 6); }

/* ---- own small math (independent of engine/kernels/vec.h; dot3, cross3,
   mat_vec and mat_tvec are testutil.h's) ---- */

static double t_norm(const double *a) { return sqrt(dot3(a, a)); }
static void t_unit(double *a)
{
    double l = t_norm(a);
    a[0] /= l; a[1] /= l; a[2] /= l;
}

/* Hamilton product, (w, x, y, z) */
static void t_qmul(const double *a, const double *b, double *r)
{
    double av[3] = {a[1], a[2], a[3]}, bv[3] = {b[1], b[2], b[3]}, c[3];
    cross3(av, bv, c);
    double w = a[0] * b[0] - dot3(av, bv);
    double x = a[0] * bv[0] + b[0] * av[0] + c[0];
    double y = a[0] * bv[1] + b[0] * av[1] + c[1];
    double z = a[0] * bv[2] + b[0] * av[2] + c[2];
    r[0] = w; r[1] = x; r[2] = y; r[3] = z;
}

static void t_qaa(double ax, double ay, double az, double angle, double *q)
{
    double a[3] = {ax, ay, az};
    t_unit(a);
    double s = sin(0.5 * angle);
    q[0] = cos(0.5 * angle); q[1] = s * a[0]; q[2] = s * a[1]; q[3] = s * a[2];
}

/* R = (w^2 - v.v) I + 2 v v^T + 2 w [v]x, row-major */
static void t_qR(const double *q, double *R)
{
    double w = q[0], v[3] = {q[1], q[2], q[3]}, vv = dot3(v, v);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j ? w * w - vv : 0.0) + 2.0 * v[i] * v[j];
    R[1] -= 2 * w * v[2]; R[2] += 2 * w * v[1];
    R[3] += 2 * w * v[2]; R[5] -= 2 * w * v[0];
    R[6] -= 2 * w * v[1]; R[7] += 2 * w * v[0];
}

/* inverse of a small dense n x n matrix by Gauss-Jordan with partial pivoting; 0 if singular */
static int t_inverse(const double *A, double *Ai, int n)
{
    double *M = malloc(sizeof(double) * (size_t)(2 * n * n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * n; j++) M[i * 2 * n + j] = j < n ? A[i * n + j] : (j - n == i ? 1.0 : 0.0);
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(M[i * 2 * n + c]) > fabs(M[p * 2 * n + c])) p = i;
        if (fabs(M[p * 2 * n + c]) < 1e-300) { free(M); return 0; }
        for (int j = 0; j < 2 * n; j++) {
            double t = M[c * 2 * n + j]; M[c * 2 * n + j] = M[p * 2 * n + j]; M[p * 2 * n + j] = t;
        }
        double d = M[c * 2 * n + c];
        for (int j = 0; j < 2 * n; j++) M[c * 2 * n + j] /= d;
        for (int i = 0; i < n; i++) {
            if (i == c) continue;
            double f = M[i * 2 * n + c];
            if (f == 0.0) continue;
            for (int j = 0; j < 2 * n; j++) M[i * 2 * n + j] -= f * M[c * 2 * n + j];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Ai[i * n + j] = M[i * 2 * n + n + j];
    free(M);
    return 1;
}

/* solves A x = b (n x n) by Gaussian elimination with partial pivoting */
static int t_solve(const double *A, const double *b, double *x, int n)
{
    double *M = malloc(sizeof(double) * (size_t)(n * (n + 1)));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i * (n + 1) + j] = A[i * n + j];
        M[i * (n + 1) + n] = b[i];
    }
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(M[i * (n + 1) + c]) > fabs(M[p * (n + 1) + c])) p = i;
        if (fabs(M[p * (n + 1) + c]) < 1e-300) { free(M); return 0; }
        for (int j = 0; j <= n; j++) {
            double t = M[c * (n + 1) + j]; M[c * (n + 1) + j] = M[p * (n + 1) + j]; M[p * (n + 1) + j] = t;
        }
        for (int i = c + 1; i < n; i++) {
            double f = M[i * (n + 1) + c] / M[c * (n + 1) + c];
            for (int j = c; j <= n; j++) M[i * (n + 1) + j] -= f * M[c * (n + 1) + j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = M[i * (n + 1) + n];
        for (int j = i + 1; j < n; j++) s -= M[i * (n + 1) + j] * x[j];
        x[i] = s / M[i * (n + 1) + i];
    }
    free(M);
    return 1;
}

/* eigenvalues of a symmetric n x n matrix, cyclic Jacobi rotations; ev ascending */
static void t_sym_eig(const double *A, int n, double *ev)
{
    double *a = malloc(sizeof(double) * (size_t)(n * n));
    memcpy(a, A, sizeof(double) * (size_t)(n * n));
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0.0, tot = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                tot += a[i * n + j] * a[i * n + j];
                if (i != j) off += a[i * n + j] * a[i * n + j];
            }
        if (off <= 1e-30 * tot) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) < 1e-300) continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; k++) { /* columns p, q */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* rows p, q */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
            }
    }
    for (int i = 0; i < n; i++) ev[i] = a[i * n + i];
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (ev[j] < ev[i]) { double t = ev[i]; ev[i] = ev[j]; ev[j] = t; }
    free(a);
}

/* deterministic generator (xorshift64*) */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double urand(double lo, double hi)
{
    g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
    uint64_t r = g_rng * 2685821657736338717ull;
    return lo + (hi - lo) * ((double)(r >> 11) * (1.0 / 9007199254740992.0));
}

/* ---- own projection onto the Coulomb cone (closed form, written from the
 * definition; itself checked against the brute force in group 1c) ---- */
static void ref_project_cone(double *x, double mu)
{
    double s = hypot(x[1], x[2]);
    if (mu == 0.0) { x[0] = x[0] > 0 ? x[0] : 0; x[1] = x[2] = 0; return; }
    if (s <= mu * x[0]) return;
    if (mu * s <= -x[0]) { x[0] = x[1] = x[2] = 0; return; }
    /* nearest point on the boundary ray through (1, mu xt/s) */
    double d[3] = {1.0, mu * x[1] / s, mu * x[2] / s};
    double t = (x[0] * d[0] + x[1] * d[1] + x[2] * d[2]) / (1.0 + mu * mu);
    x[0] = t * d[0]; x[1] = t * d[1]; x[2] = t * d[2];
}

/* ---- worlds and bodies ---- */

static mo_world *new_world(double gz, double joint_eps)
{
    mo_world_def wd = mo_default_world_def();
    wd.gravity = (mo_vec3){0.0, 0.0, gz};
    wd.joint_compliance = joint_eps;
    return world_or_exit(&wd, "mo_world_create failed: ", 2);
}

/* generic SPD body inertia: Q diag(a, b, c) Q^T */
static mo_mat3 generic_inertia(double a, double b, double c, double ax, double ay, double az, double ang)
{
    double q[4], R[9];
    t_qaa(ax, ay, az, ang, q);
    t_qR(q, R);
    double d[3] = {a, b, c};
    mo_mat3 I;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * i + k] * d[k] * R[3 * j + k];
            I.m[i][j] = s;
        }
    /* exact symmetry */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++) I.m[i][j] = I.m[j][i];
    return I;
}

/* a shape def from its type, radius, half extents and friction */
static mo_shape_def shape_of(mo_shape_type type, double radius, double hx, double hy, double hz, double mu)
{
    mo_shape_def s = mo_default_shape_def();
    s.type = type;
    s.radius = radius;
    s.half_extents = (mo_vec3){hx, hy, hz};
    s.friction = mu;
    return s;
}

static mo_body_id add_body(mo_world *w, mo_body_type type, const double *x, const double *q, const double *v,
                           const double *om, double mass, const mo_mat3 *I, const mo_shape_def *shape)
{
    mo_body_def bd = mo_default_body_def();
    bd.type = type;
    bd.position = (mo_vec3){x[0], x[1], x[2]};
    if (q) bd.orientation = (mo_quat){q[0], q[1], q[2], q[3]};
    if (v) bd.linear_velocity = (mo_vec3){v[0], v[1], v[2]};
    if (om) bd.angular_velocity = (mo_vec3){om[0], om[1], om[2]};
    bd.mass = mass;
    if (I) bd.inertia = *I;
    if (shape) bd.shape = *shape;
    mo_body_id id;
    if (mo_body_create(w, &bd, &id) != MO_OK) {
        fprintf(stderr, "mo_body_create failed: %s\n", mo_world_last_error(w));
        exit(2);
    }
    return id;
}

static mo_body *BODY(mo_world *w, mo_body_id id) { return &w->bodies[id.index - 1]; }

/* world point of a body-frame point (own rotation) */
static void body_point(mo_world *w, mo_body_id id, const double *local, double *out)
{
    mo_body *b = BODY(w, id);
    double R[9];
    t_qR(b->k.q, R);
    mat_vec(R, local, out);
    for (int k = 0; k < 3; k++) out[k] += b->k.x[k];
}

/* body-frame point of a world point */
static void body_local(mo_world *w, mo_body_id id, const double *world, double *out)
{
    mo_body *b = BODY(w, id);
    double R[9], d[3] = {world[0] - b->k.x[0], world[1] - b->k.x[1], world[2] - b->k.x[2]};
    t_qR(b->k.q, R);
    mat_tvec(R, d, out);
}

/* world vector of a body-frame vector and back */
static void body_dir(mo_world *w, mo_body_id id, const double *local, double *out)
{
    double R[9];
    t_qR(BODY(w, id)->k.q, R);
    mat_vec(R, local, out);
}
static void body_dir_local(mo_world *w, mo_body_id id, const double *world, double *out)
{
    double R[9];
    t_qR(BODY(w, id)->k.q, R);
    mat_tvec(R, world, out);
}

/* rotates a body's orientation by angle about a world axis: q <- q(axis, angle) q */
static void rotate_body(mo_world *w, mo_body_id id, double ax, double ay, double az, double angle)
{
    mo_body *b = BODY(w, id);
    double r[4], q[4];
    t_qaa(ax, ay, az, angle, r);
    t_qmul(r, b->k.q, q);
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    mo_body_set_pose(w, id, (mo_vec3){b->k.x[0], b->k.x[1], b->k.x[2]}, (mo_quat){q[0] / l, q[1] / l, q[2] / l, q[3] / l});
}

static mo_joint_id add_joint(mo_world *w, const mo_joint_def *d)
{
    return joint_or_exit(w, d, "mo_joint_create failed: ", 2);
}

/* ---- the dense view of an assembled problem ---- */

typedef struct dense {
    int n, m;
    double *J;     /* m x n, from the CSR */
    double *Minv;  /* n x n, built here from masses, body inertia and quaternions */
    double *N;     /* m x m = J Minv J^T + Sigma */
    double *r;     /* m = J v~ + b */
} dense;

/* dense M^-1 from the world's owners: mass and body inertia from the public
 * API, world inverse inertia R I^-1 R^T from the quaternion (own code) */
static double *dense_minv(mo_world *w, int n)
{
    double *Mi = calloc((size_t)(n * n), sizeof(double));
    const int *dof = (const int *)w->owner_dof.p, *ref = (const int *)w->owner_ref.p;
    for (int o = 0; o < w->nowners; o++) {
        int d0 = dof[o];
        if (ref[o] >= 0) {
            int s = ref[o];
            mo_body_id id = {(uint32_t)s + 1, w->bodies[s].generation};
            double m;
            mo_mat3 Ib;
            mo_body_mass(w, id, &m, &Ib);
            double I[9], Ii[9], R[9], T[9];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) I[3 * i + j] = Ib.m[i][j];
            t_inverse(I, Ii, 3);
            t_qR(w->bodies[s].k.q, R);
            /* T = R Ii R^T */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double acc = 0;
                    for (int k = 0; k < 3; k++)
                        for (int l = 0; l < 3; l++) acc += R[3 * i + k] * Ii[3 * k + l] * R[3 * j + l];
                    T[3 * i + j] = acc;
                }
            for (int k = 0; k < 3; k++) Mi[(d0 + k) * n + d0 + k] = 1.0 / m;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) Mi[(d0 + 3 + i) * n + d0 + 3 + j] = T[3 * i + j];
        } else {
            const mo_particle *p = &w->particles[-ref[o] - 1];
            for (int k = 0; k < 3; k++) Mi[(d0 + k) * n + d0 + k] = 1.0 / p->mass;
        }
    }
    return Mi;
}

static dense dense_from(mo_world *w, const mo_problem *p)
{
    dense D;
    int n = p->n, m = p->m;
    D.n = n; D.m = m;
    D.J = calloc((size_t)(m * n) + 1, sizeof(double));
    for (int r = 0; r < m; r++)
        for (int k = p->row_ptr[r]; k < p->row_ptr[r + 1]; k++) D.J[r * n + p->col[k]] += p->val[k];
    D.Minv = dense_minv(w, n);
    double *MJt = calloc((size_t)(n * m) + 1, sizeof(double)); /* n x m */
    for (int i = 0; i < n; i++)
        for (int r = 0; r < m; r++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += D.Minv[i * n + k] * D.J[r * n + k];
            MJt[i * m + r] = s;
        }
    D.N = calloc((size_t)(m * m) + 1, sizeof(double));
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += D.J[a * n + k] * MJt[k * m + b];
            D.N[a * m + b] = s + (a == b ? p->sigma[a] : 0.0);
        }
    /* exact symmetry (the products above round differently) */
    for (int a = 0; a < m; a++)
        for (int b = 0; b < a; b++) {
            double s = 0.5 * (D.N[a * m + b] + D.N[b * m + a]);
            D.N[a * m + b] = D.N[b * m + a] = s;
        }
    D.r = calloc((size_t)m + 1, sizeof(double));
    for (int a = 0; a < m; a++) {
        double s = p->b[a];
        for (int k = 0; k < n; k++) s += D.J[a * n + k] * p->v_tilde[k];
        D.r[a] = s;
    }
    free(MJt);
    return D;
}

static void dense_free(dense *D)
{
    free(D->J); free(D->Minv); free(D->N); free(D->r);
}

/* u = N g + r */
static void dense_u(const dense *D, const double *g, double *u)
{
    for (int a = 0; a < D->m; a++) {
        double s = D->r[a];
        for (int b = 0; b < D->m; b++) s += D->N[a * D->m + b] * g[b];
        u[a] = s;
    }
}

/* projection onto K block by block (own code) */
static void ref_project(const mo_problem *p, double *x)
{
    for (int k = 0; k < p->nblocks; k++) {
        int r0 = p->block_row[k];
        switch (p->block_kind[k]) {
        case MO_BLOCK_BILATERAL: break;
        case MO_BLOCK_UNILATERAL: if (x[r0] < 0) x[r0] = 0; break;
        case MO_BLOCK_BOXED:
            if (x[r0] < p->lo[r0]) x[r0] = p->lo[r0];
            if (x[r0] > p->hi[r0]) x[r0] = p->hi[r0];
            break;
        case MO_BLOCK_CONTACT: ref_project_cone(x + r0, p->block_mu[k]); break;
        default: break;
        }
    }
}

/* CCP natural residual |g - P_K(g - a (N g + r))| / a with a = 1 / max diag N (own code) */
static double ref_ccp_residual(const mo_problem *p, const dense *D, const double *g)
{
    int m = D->m;
    double dmax = 0;
    for (int a = 0; a < m; a++)
        if (D->N[a * m + a] > dmax) dmax = D->N[a * m + a];
    double al = dmax > 0 ? 1.0 / dmax : 1.0;
    double *u = malloc(sizeof(double) * (size_t)(m + 1)), *x = malloc(sizeof(double) * (size_t)(m + 1));
    dense_u(D, g, u);
    for (int a = 0; a < m; a++) x[a] = g[a] - al * u[a];
    ref_project(p, x);
    double s = 0;
    for (int a = 0; a < m; a++) s += (g[a] - x[a]) * (g[a] - x[a]);
    free(u); free(x);
    return sqrt(s) / al;
}

/* FCLIB / Siconos Coulomb error over contact blocks (MANIFEST.md), own code:
 * ubar = u + (mu |u_t|, 0, 0), e = g - P(g - ubar), sqrt(sum |e|^2) / max(|q|, |g|, |u|)
 * with q = r, g, u restricted to contact rows */
static double ref_coulomb_error(const mo_problem *p, const dense *D, const double *g)
{
    int m = D->m;
    double *u = malloc(sizeof(double) * (size_t)(m + 1));
    dense_u(D, g, u);
    double es = 0, qn = 0, gn = 0, un = 0;
    for (int k = 0; k < p->nblocks; k++) {
        if (p->block_kind[k] != MO_BLOCK_CONTACT) continue;
        int r0 = p->block_row[k];
        double mu = p->block_mu[k];
        double ut = hypot(u[r0 + 1], u[r0 + 2]);
        double y[3] = {g[r0] - (u[r0] + mu * ut), g[r0 + 1] - u[r0 + 1], g[r0 + 2] - u[r0 + 2]};
        ref_project_cone(y, mu);
        for (int i = 0; i < 3; i++) {
            double e = g[r0 + i] - y[i];
            es += e * e;
            qn += D->r[r0 + i] * D->r[r0 + i];
            gn += g[r0 + i] * g[r0 + i];
            un += u[r0 + i] * u[r0 + i];
        }
    }
    free(u);
    double den = sqrt(qn);
    if (sqrt(gn) > den) den = sqrt(gn);
    if (sqrt(un) > den) den = sqrt(un);
    return den > 2.220446049250313e-16 ? sqrt(es) / den : sqrt(es);
}

/* Dense reference CCP solver: FISTA (accelerated projected gradient) with
 * step 1/lambda_max(N) and gradient-based adaptive restart, run until the
 * natural residual is below tol (or the budget ends). Returns the residual. */
static double ref_solve(const mo_problem *p, const dense *D, double *g, double tol)
{
    int m = D->m;
    double *ev = malloc(sizeof(double) * (size_t)(m + 1));
    t_sym_eig(D->N, m, ev);
    double L = ev[m - 1];
    free(ev);
    double al = 1.0 / L;
    double *y = calloc((size_t)m + 1, sizeof(double)), *gn = calloc((size_t)m + 1, sizeof(double));
    double *u = calloc((size_t)m + 1, sizeof(double));
    memset(g, 0, sizeof(double) * (size_t)m);
    double t = 1.0, res = INFINITY;
    for (int it = 0; it < 2000000; it++) {
        dense_u(D, y, u);
        for (int a = 0; a < m; a++) gn[a] = y[a] - al * u[a];
        ref_project(p, gn);
        double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
        /* restart when the momentum points uphill */
        double dot = 0;
        for (int a = 0; a < m; a++) dot += (y[a] - gn[a]) * (gn[a] - g[a]);
        if (dot > 0) {
            tn = 1.0;
            for (int a = 0; a < m; a++) y[a] = gn[a];
        } else {
            for (int a = 0; a < m; a++) y[a] = gn[a] + ((t - 1.0) / tn) * (gn[a] - g[a]);
        }
        for (int a = 0; a < m; a++) g[a] = gn[a];
        t = tn;
        if (it % 50 == 49) {
            res = ref_ccp_residual(p, D, g);
            if (res <= tol) break;
        }
    }
    res = ref_ccp_residual(p, D, g);
    free(y); free(gn); free(u);
    return res;
}

/* runs a solver from gamma = 0 on p; gamma (m) and v (n) returned in the caller's arrays */
static mo_solve_out run_solver(mo_solver_fn fn, const mo_problem *p, const mo_solver_settings *s, double *gamma,
                               double *v, double *res_hist, double *err_hist)
{
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    memset(gamma, 0, sizeof(double) * (size_t)p->m);
    o.gamma = gamma;
    o.v = v;
    o.scratch = malloc(sizeof(double) * mo_solver_scratch_size(p));
    o.res_hist = res_hist;
    o.err_hist = err_hist;
    fn(p, s, &o);
    free(o.scratch);
    o.scratch = NULL;
    return o;
}

static double vmax_abs(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        if (fabs(a[i]) > s) s = fabs(a[i]);
    return s;
}

static double vdiff_max(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > s) s = fabs(a[i] - b[i]);
    return s;
}

/* ====================================================================== */
/* 1a: joint rows against finite differences                               */
/* ====================================================================== */

/* the value whose time derivative row k of joint j is: aux[k].g, except the
 * motor row (last), whose value is the joint's free coordinate */
static void joint_values(mo_world *w, mo_joint_id id, double *out)
{
    mo_joint *j = mo_joint_get(w, id);
    mo_k_row rows[8];
    mo_row_aux aux[8];
    uint8_t kind[8];
    double lo[8], hi[8];
    mo_joint_fill_rows(w, j, w->def.time_step, rows, aux, kind, lo, hi);
    int nr = mo_joint_row_count(j);
    for (int k = 0; k < nr; k++) out[k] = aux[k].g;
    if (j->motor != MO_MOTOR_OFF) {
        double s;
        mo_joint_position(w, id, &s);
        out[nr - 1] = s;
    }
}

/* advances body slot s's pose along generalized velocity component c (0-2
 * linear, 3-5 world angular) by dt: x += dt e_c, q += dt/2 (0, e_c) q, normalised */
static void advance_pose(mo_body *b, int c, double dt)
{
    if (c < 3) {
        b->k.x[c] += dt;
        return;
    }
    double wq[4] = {0, 0, 0, 0}, dq[4];
    wq[1 + (c - 3)] = 1.0;
    t_qmul(wq, b->k.q, dq);
    for (int k = 0; k < 4; k++) b->k.q[k] += 0.5 * dt * dq[k];
    double l = sqrt(b->k.q[0] * b->k.q[0] + b->k.q[1] * b->k.q[1] + b->k.q[2] * b->k.q[2] + b->k.q[3] * b->k.q[3]);
    for (int k = 0; k < 4; k++) b->k.q[k] /= l;
}

/* finite-difference Jacobian of joint id's rows: fd[k][6 * slot + c] for every body slot */
static void joint_fd(mo_world *w, mo_joint_id id, int nr, double *fd, double dt)
{
    int nb = w->body_count;
    for (int s = 0; s < nb; s++) {
        mo_body *b = &w->bodies[s];
        for (int c = 0; c < 6; c++) {
            double x0[3], q0[4], gp[8], gm[8];
            memcpy(x0, b->k.x, sizeof x0);
            memcpy(q0, b->k.q, sizeof q0);
            advance_pose(b, c, dt);
            joint_values(w, id, gp);
            memcpy(b->k.x, x0, sizeof x0);
            memcpy(b->k.q, q0, sizeof q0);
            advance_pose(b, c, -dt);
            joint_values(w, id, gm);
            memcpy(b->k.x, x0, sizeof x0);
            memcpy(b->k.q, q0, sizeof q0);
            for (int k = 0; k < nr; k++) fd[k * 6 * nb + 6 * s + c] = (gp[k] - gm[k]) / (2.0 * dt);
        }
    }
}

static void test_joint_rows(void)
{
    group_begin();
    const double h = 1.0 / 120.0, dsteps = 4.0, jeps = 1e-7;
    mo_world *w = new_world(-9.81, jeps);

    /* bodies at generic poses, with velocities (they enter b) */
    double q1[4], q2[4], q3[4], q4[4], qk[4], qs[4];
    t_qaa(1, 2, 3, 0.7, q1);
    t_qaa(-2, 1, 0.5, 1.1, q2);
    t_qaa(0.3, -1, 2, -0.6, q3);
    t_qaa(1, 1, -1, 2.0, q4);
    t_qaa(0, 1, 1, 0.4, qk);
    t_qaa(2, -1, 1, 0.9, qs);
    mo_mat3 I1 = generic_inertia(0.02, 0.035, 0.05, 1, 0, 1, 0.5);
    mo_mat3 I2 = generic_inertia(0.1, 0.07, 0.04, 0, 1, 1, -0.8);
    mo_mat3 I3 = generic_inertia(0.3, 0.2, 0.25, 1, -1, 0, 1.2);
    mo_mat3 I4 = generic_inertia(0.05, 0.05, 0.09, 1, 2, 3, 0.3);
    mo_body_id b1 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.1, 0.2, 1.0}, q1, (double[]){0.3, -0.2, 0.1},
                             (double[]){0.5, -0.4, 0.9}, 1.5, &I1, NULL);
    mo_body_id b2 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.6, -0.1, 1.3}, q2, (double[]){-0.1, 0.4, 0.2},
                             (double[]){-0.3, 0.6, 0.2}, 0.8, &I2, NULL);
    mo_body_id b3 = add_body(w, MO_BODY_DYNAMIC, (double[]){1.2, 0.4, 0.9}, q3, (double[]){0.05, 0.1, -0.3},
                             (double[]){0.2, 0.1, -0.7}, 3.0, &I3, NULL);
    mo_body_id b4 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.5, 0.9, 0.6}, q4, (double[]){-0.2, -0.1, 0.15},
                             (double[]){0.4, 0.3, 0.1}, 1.2, &I4, NULL);
    mo_body_id bk = add_body(w, MO_BODY_KINEMATIC, (double[]){-0.5, 0.3, 1.1}, qk, (double[]){0.2, 0.1, -0.3},
                             (double[]){0.3, 0.2, -0.1}, 1.0, NULL, NULL);
    mo_body_id bs = add_body(w, MO_BODY_STATIC, (double[]){1.5, -0.5, 0.2}, qs, NULL, NULL, 1.0, NULL, NULL);

    /* revolute b1-b2 with limit and velocity motor; axes aligned exactly so that
     * the hinge angle's derivative is exactly the +-aA row (see header) */
    mo_joint_def d = mo_default_joint_def();
    double la[3] = {0.15, -0.05, 0.2}, pa[3], pb[3], lb[3], axa[3] = {0.3, 0.8, -0.5}, axw[3], axb[3];
    t_unit(axa);
    body_point(w, b1, la, pa);
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (double[]){0.02, -0.01, 0.015}[k];
    body_local(w, b2, pb, lb);
    body_dir(w, b1, axa, axw);
    body_dir_local(w, b2, axw, axb);
    d.type = MO_JOINT_REVOLUTE;
    d.body_a = b1; d.body_b = b2;
    d.anchor_a = (mo_vec3){la[0], la[1], la[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    d.axis_a = (mo_vec3){axa[0], axa[1], axa[2]};
    d.axis_b = (mo_vec3){axb[0], axb[1], axb[2]};
    d.enable_limit = true; d.lower = -0.5; d.upper = 0.7;
    d.motor = MO_MOTOR_VELOCITY; d.target_velocity = 1.5; d.max_force = 10.0;
    mo_joint_id jrev = add_joint(w, &d);
    /* swing b2 about the hinge axis: angle 0.3 rad, axes still aligned */
    rotate_body(w, b2, axw[0], axw[1], axw[2], 0.3);

    /* prismatic b2-b3 with limit and position drive, own compliance */
    d = mo_default_joint_def();
    double la2[3] = {0.1, 0.1, -0.1}, ax2[3] = {1, -0.5, 0.2};
    t_unit(ax2);
    body_point(w, b2, la2, pa);
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (double[]){0.01, 0.2, -0.015}[k];
    body_local(w, b3, pb, lb);
    d.type = MO_JOINT_PRISMATIC;
    d.body_a = b2; d.body_b = b3;
    d.anchor_a = (mo_vec3){la2[0], la2[1], la2[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    d.axis_a = (mo_vec3){ax2[0], ax2[1], ax2[2]};
    d.enable_limit = true; d.lower = -0.4; d.upper = 0.6;
    d.motor = MO_MOTOR_POSITION; d.target_position = 0.1; d.stiffness = 50.0; d.damping = 5.0; d.max_force = 20.0;
    d.compliance = 2e-6;
    mo_joint_id jpri = add_joint(w, &d);

    /* fixed b3-b4 */
    d = mo_default_joint_def();
    double la3[3] = {-0.1, 0.05, 0.1};
    body_point(w, b3, la3, pa);
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (double[]){0.005, -0.003, 0.004}[k];
    body_local(w, b4, pb, lb);
    d.type = MO_JOINT_FIXED;
    d.body_a = b3; d.body_b = b4;
    d.anchor_a = (mo_vec3){la3[0], la3[1], la3[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    mo_joint_id jfix = add_joint(w, &d);

    /* distance b4-b1, length 0.01 longer than now */
    d = mo_default_joint_def();
    d.type = MO_JOINT_DISTANCE;
    d.body_a = b4; d.body_b = b1;
    d.anchor_a = (mo_vec3){0.05, -0.1, 0.02};
    d.anchor_b = (mo_vec3){-0.1, 0.03, 0.07};
    {
        double p1[3], p2[3], l1[3] = {0.05, -0.1, 0.02}, l2[3] = {-0.1, 0.03, 0.07};
        body_point(w, b4, l1, p1);
        body_point(w, b1, l2, p2);
        double dd[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
        d.length = t_norm(dd) + 0.01;
    }
    mo_joint_id jdis = add_joint(w, &d);

    /* distance b2-b4 with limits, the lower one violated by 2 mm (SPOOK push-out path) */
    d = mo_default_joint_def();
    d.type = MO_JOINT_DISTANCE;
    d.body_a = b2; d.body_b = b4;
    d.anchor_a = (mo_vec3){0.0, 0.1, 0.0};
    d.anchor_b = (mo_vec3){0.1, 0.0, -0.05};
    double L24;
    {
        double p1[3], p2[3], l1[3] = {0.0, 0.1, 0.0}, l2[3] = {0.1, 0.0, -0.05};
        body_point(w, b2, l1, p1);
        body_point(w, b4, l2, p2);
        double dd[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
        L24 = t_norm(dd);
    }
    d.enable_limit = true; d.lower = L24 + 0.002; d.upper = L24 + 0.3;
    mo_joint_id jdlim = add_joint(w, &d);

    /* spherical world-b4 */
    d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    double wa[3] = {0.5, 0.9, 1.0};
    for (int k = 0; k < 3; k++) pb[k] = wa[k] + (double[]){0.003, 0.0, -0.002}[k];
    body_local(w, b4, pb, lb);
    d.body_b = b4;
    d.anchor_a = (mo_vec3){wa[0], wa[1], wa[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    mo_joint_id jsph = add_joint(w, &d);

    /* revolute kinematic-b3 (the kinematic side's velocity goes to b) */
    d = mo_default_joint_def();
    double lak[3] = {0.3, 0.0, -0.1}, axk[3] = {0.0, 0.6, 0.8}, axkw[3], axkb[3];
    body_point(w, bk, lak, pa);
    for (int k = 0; k < 3; k++) pb[k] = pa[k] + (double[]){-0.01, 0.02, 0.0}[k];
    body_local(w, b3, pb, lb);
    body_dir(w, bk, axk, axkw);
    body_dir_local(w, b3, axkw, axkb);
    d.type = MO_JOINT_REVOLUTE;
    d.body_a = bk; d.body_b = b3;
    d.anchor_a = (mo_vec3){lak[0], lak[1], lak[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    d.axis_a = (mo_vec3){axk[0], axk[1], axk[2]};
    d.axis_b = (mo_vec3){axkb[0], axkb[1], axkb[2]};
    mo_joint_id jkin = add_joint(w, &d);

    /* distance static-b1 */
    d = mo_default_joint_def();
    d.type = MO_JOINT_DISTANCE;
    d.body_a = bs; d.body_b = b1;
    d.anchor_a = (mo_vec3){0.1, 0.2, 0.3};
    d.anchor_b = (mo_vec3){0.0, 0.0, 0.1};
    mo_joint_id jsta = add_joint(w, &d);

    /* prismatic world-b4 (A is the world; weld created at the current pose) */
    d = mo_default_joint_def();
    d.type = MO_JOINT_PRISMATIC;
    d.body_b = b4;
    d.anchor_a = (mo_vec3){0.4, 0.8, 0.7};
    d.anchor_b = (mo_vec3){-0.05, 0.0, 0.1};
    d.axis_a = (mo_vec3){0.0, 0.0, 1.0};
    mo_joint_id jpw = add_joint(w, &d);

    /* small weld errors on the prismatic b2-b3 and fixed b3-b4 joints: the
     * angular rows are then exact only to O(|theta|) (rotation-vector error) */
    rotate_body(w, b3, 1, -1, 0.5, 1e-5);

    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    CHECK(p.n == 24); /* 4 dynamic bodies */
    int n = p.n, nb = w->body_count;
    double *Mi = dense_minv(w, n);
    const int *odof = (const int *)w->owner_dof.p;
    /* block of every row; blocks tile the rows in order */
    int *row_block = malloc(sizeof(int) * (size_t)p.m);
    CHECK(p.block_row[0] == 0 && p.block_row[p.nblocks] == p.m);
    for (int k = 0; k < p.nblocks; k++) {
        CHECK(p.block_row[k + 1] > p.block_row[k]);
        for (int r = p.block_row[k]; r < p.block_row[k + 1]; r++) row_block[r] = k;
    }

    struct { mo_joint_id id; const char *name; } js[] = {
        {jrev, "revolute b1-b2 (limit, velocity motor)"}, {jpri, "prismatic b2-b3 (limit, PD drive)"},
        {jfix, "fixed b3-b4"}, {jdis, "distance b4-b1"}, {jdlim, "distance b2-b4 (limits)"},
        {jsph, "spherical world-b4"}, {jkin, "revolute kinematic-b3"}, {jsta, "distance static-b1"},
        {jpw, "prismatic world-b4"},
    };
    int expect_rows[] = {8, 8, 6, 1, 2, 3, 5, 1, 5};
    const double dt = 1e-6;
    double max_fd_err = 0, max_weld_err = 0;
    for (size_t ji = 0; ji < sizeof js / sizeof js[0]; ji++) {
        mo_joint *j = mo_joint_get(w, js[ji].id);
        int nr = j->nrows;
        CHECK_NEAR_L(nr, expect_rows[ji], 0, "%s row count", js[ji].name);
        double *fd = calloc((size_t)(nr * 6 * nb), sizeof(double));
        joint_fd(w, js[ji].id, nr, fd, dt);
        /* values at the current pose (g of each row) */
        double g0[8];
        {
            mo_k_row rows[8]; mo_row_aux aux[8]; uint8_t kind[8]; double lo[8], hi[8];
            mo_joint_fill_rows(w, j, w->def.time_step, rows, aux, kind, lo, hi);
            for (int k = 0; k < nr; k++) g0[k] = aux[k].g;
        }
        /* weld rows of fixed/prismatic: their exact derivative differs from the
         * row by O(|theta|) (the inverse left Jacobian of the rotation vector,
         * I - [theta]x/2 + ...), so allow |theta| per entry (entries are unit
         * axis components, the deviation is about |theta|/2) */
        int weld0 = -1;
        double th = 0;
        if (j->type == MO_JOINT_FIXED) weld0 = 3;
        if (j->type == MO_JOINT_PRISMATIC) weld0 = 2;
        if (weld0 >= 0) th = sqrt(g0[weld0] * g0[weld0] + g0[weld0 + 1] * g0[weld0 + 1] + g0[weld0 + 2] * g0[weld0 + 2]);
        if (weld0 >= 0 && js[ji].id.index != jpw.index) CHECK(th > 1e-6 && th < 1e-4); /* the set-up worked */
        for (int k = 0; k < nr; k++) {
            int r = j->row0 + k;
            /* the CSR row: columns exactly the owners' 6 DOFs, ascending */
            double *row = calloc((size_t)n, sizeof(double));
            int *seen = calloc((size_t)n, sizeof(int));
            int ok_sorted = 1;
            for (int q = p.row_ptr[r]; q < p.row_ptr[r + 1]; q++) {
                if (q > p.row_ptr[r] && p.col[q] <= p.col[q - 1]) ok_sorted = 0;
                row[p.col[q]] = p.val[q];
                seen[p.col[q]]++;
            }
            CHECK(ok_sorted);
            int expect_nnz = 0;
            double jv = 0, jv_kin = 0, diag = 0;
            for (int sl = 0; sl < nb; sl++) {
                mo_body *b = &w->bodies[sl];
                const double *fr = fd + k * 6 * nb + 6 * sl;
                double vel[6] = {b->k.v[0], b->k.v[1], b->k.v[2], b->k.w[0], b->k.w[1], b->k.w[2]};
                double tol = 1e-7;
                if (weld0 >= 0 && k >= weld0 && k < weld0 + 3) tol += th;
                int is_side = sl == j->a || sl == j->b;
                if (b->owner >= 0 && is_side) {
                    expect_nnz += 6;
                    int c0 = odof[b->owner];
                    for (int c = 0; c < 6; c++) {
                        CHECK_NEAR_L(row[c0 + c], fr[c], tol, "%s row %d body slot %d dof %d", js[ji].name, k, sl, c);
                        CHECK(seen[c0 + c] == 1);
                        double e = fabs(row[c0 + c] - fr[c]);
                        if (tol > 1e-6) { if (e > max_weld_err) max_weld_err = e; }
                        else if (e > max_fd_err) max_fd_err = e;
                        jv += row[c0 + c] * vel[c];
                    }
                } else if (b->type == MO_BODY_KINEMATIC && is_side) {
                    /* no DOFs: the kinematic side's J v goes to b */
                    for (int c = 0; c < 6; c++) jv_kin += fr[c] * vel[c];
                } else if (is_side) {
                    /* a static side: g depends on its pose, but it has no DOFs (no columns) and no velocity */
                    CHECK(b->type == MO_BODY_STATIC);
                } else {
                    /* bodies not in the joint: zero derivative, no columns */
                    for (int c = 0; c < 6; c++) {
                        CHECK_NEAR_L(fr[c], 0.0, 1e-9, "%s row %d slot %d not in the row", js[ji].name, k, sl);
                        if (b->owner >= 0) CHECK(seen[odof[b->owner] + c] == 0);
                    }
                }
            }
            /* no column outside the two owners */
            int nnz = p.row_ptr[r + 1] - p.row_ptr[r];
            CHECK_NEAR_L(nnz, expect_nnz, 0, "%s row %d nnz", js[ji].name, k);
            /* W row = M^-1 J^T, and N_ii */
            for (int q = p.row_ptr[r]; q < p.row_ptr[r + 1]; q++) {
                double s = 0;
                for (int c = 0; c < n; c++) s += Mi[p.col[q] * n + c] * row[c];
                CHECK_NEAR_L(p.wval[q], s, 1e-12 * (1.0 + fabs(s)), "%s row %d W col %d", js[ji].name, k, p.col[q]);
                diag += row[p.col[q]] * s;
            }
            diag += p.sigma[r];
            CHECK_NEAR_L(p.diag[r], diag, 1e-12 * diag, "%s row %d N_ii", js[ji].name, k);
            /* Sigma, b, kind, bounds (SPOOK, kernels/rows.h) */
            double ups = 1.0 / (1.0 + 4.0 * dsteps);
            double eps = j->compliance >= 0 ? j->compliance : jeps;
            int is_motor = j->motor != MO_MOTOR_OFF && k == nr - 1;
            int is_limit = j->limit && !is_motor &&
                           ((j->type == MO_JOINT_DISTANCE) || k >= nr - 2 - (j->motor != MO_MOTOR_OFF));
            double gk = g0[k];
            /* jv over all sides: owners (CSR) and kinematic (finite differences) */
            double jv_all = jv + jv_kin;
            double esig, eb, elo = -INFINITY, ehi = INFINITY;
            int ekind;
            if (is_motor) {
                ekind = MO_BLOCK_BOXED;
                elo = -h * j->max_force; ehi = h * j->max_force;
                if (j->motor == MO_MOTOR_VELOCITY) {
                    esig = 0.0;
                    eb = -j->target_vel + jv_kin;
                } else {
                    double s;
                    mo_joint_position(w, js[ji].id, &s);
                    esig = 1.0 / (h * h * j->kp + h * j->kd);
                    eb = j->kp * (s - j->target_pos) / (h * j->kp + j->kd) + jv_kin;
                }
            } else if (is_limit) {
                ekind = MO_BLOCK_UNILATERAL;
                esig = 4.0 * eps / (h * h) * ups;
                if (gk >= 0) eb = gk / h + jv_kin;
                else eb = -fmin(-(4.0 / h) * gk * ups, 1.0) + jv_kin; /* no SPOOK velocity term on unilateral rows */
            } else {
                ekind = MO_BLOCK_BILATERAL;
                esig = 4.0 * eps / (h * h) * ups;
                eb = (4.0 / h) * gk * ups - jv_all * ups + jv_kin;
            }
            /* the row's block: its kind, and a block never spans two joints */
            int blk = row_block[r];
            CHECK_NEAR_L(p.block_kind[blk], ekind, 0, "%s row %d kind", js[ji].name, k);
            CHECK(p.block_row[blk] >= j->row0 && p.block_row[blk + 1] <= j->row0 + nr);
            if (ekind != MO_BLOCK_BILATERAL) CHECK(p.block_row[blk + 1] - p.block_row[blk] == 1);
            CHECK_NEAR_L(p.sigma[r], esig, 1e-12 * (1.0 + esig), "%s row %d sigma", js[ji].name, k);
            /* b from finite-difference rows: fd error 1e-7 times |v| < 1 */
            double btol = 1e-6 + (weld0 >= 0 && k >= weld0 && k < weld0 + 3 ? 3.0 * th : 0.0);
            CHECK_NEAR_L(p.b[r], eb, btol, "%s row %d b", js[ji].name, k);
            CHECK(p.lo[r] == elo && p.hi[r] == ehi);
            free(row);
            free(seen);
        }
        free(fd);
    }
    /* the negative-g limit row really took the SPOOK branch */
    {
        mo_joint *j = mo_joint_get(w, jdlim);
        mo_k_row rows[8]; mo_row_aux aux[8]; uint8_t kind[8]; double lo[8], hi[8];
        mo_joint_fill_rows(w, j, w->def.time_step, rows, aux, kind, lo, hi);
        CHECK_NEAR(aux[0].g, -0.002, 1e-12);
        CHECK(aux[1].g > 0.29);
    }
    /* bilateral group blocks solved with a dense N^-1: check it against the
     * dense N block formed here */
    {
        dense D = dense_from(w, &p);
        int ngroups = 0;
        for (int k = 0; k < p.nblocks; k++) {
            int r0 = p.block_row[k], nr = p.block_row[k + 1] - r0;
            if (p.block_kind[k] != MO_BLOCK_BILATERAL || nr < 2) continue;
            CHECK(p.block_inv != NULL && p.block_inv[k] >= 0);
            if (!(p.block_inv && p.block_inv[k] >= 0)) continue;
            ngroups++;
            const double *Ai = p.inv + p.block_inv[k];
            double worst = 0;
            for (int a = 0; a < nr; a++)
                for (int c = 0; c < nr; c++) {
                    double s2 = 0;
                    for (int q = 0; q < nr; q++) s2 += Ai[a * nr + q] * D.N[(r0 + q) * p.m + r0 + c];
                    double e = fabs(s2 - (a == c ? 1.0 : 0.0));
                    if (e > worst) worst = e;
                }
            CHECK_NEAR_L(worst, 0.0, 1e-9, "group block %d (rows %d-%d): N^-1 N = I", k, r0, r0 + nr - 1);
            /* and mo_problem_block_solve applies it */
            double in[8], out[8];
            for (int a = 0; a < nr; a++) in[a] = urand(-1, 1);
            mo_problem_block_solve(&p, k, in, out);
            for (int a = 0; a < nr; a++) {
                double s2 = 0;
                for (int q = 0; q < nr; q++) s2 += D.N[(r0 + a) * p.m + r0 + q] * out[q];
                CHECK_NEAR(s2, in[a], 1e-9);
            }
        }
        CHECK(ngroups >= 1);
        dense_free(&D);
    }
    free(row_block);
    printf("     (joint rows: max |J - fd| %.2e on exact rows, %.2e on weld rows)\n", max_fd_err, max_weld_err);
    free(Mi);
    mo_world_destroy(w);
    group_end("1a joint rows vs finite differences");
}

/* ====================================================================== */
/* 1a: contact rows                                                        */
/* ====================================================================== */

static void test_contact_rows(void)
{
    group_begin();
    const double h = 1.0 / 120.0, ups = 1.0 / 17.0;
    mo_world *w = new_world(-9.81, 0.0);
    mo_shape_def plane = shape_of(MO_SHAPE_PLANE, 0, 0, 0, 0, 0.8);
    mo_body_id gnd = add_body(w, MO_BODY_STATIC, (double[]){0, 0, 0}, NULL, NULL, NULL, 1.0, NULL, &plane);
    /* box tilted about a generic axis, lowest corner 2 mm deep */
    double qb[4], qyaw[4], qtilt[4], Rb[9];
    t_qaa(0, 0, 1, 0.4, qyaw);
    t_qaa(1, 0.5, 0, 0.03, qtilt);
    t_qmul(qtilt, qyaw, qb);
    t_qR(qb, Rb);
    double he[3] = {0.3, 0.2, 0.1}, zmin = INFINITY;
    for (int c = 0; c < 8; c++) {
        double l[3] = {(c & 1) ? he[0] : -he[0], (c & 2) ? he[1] : -he[1], (c & 4) ? he[2] : -he[2]}, r[3];
        mat_vec(Rb, l, r);
        if (r[2] < zmin) zmin = r[2];
    }
    mo_shape_def box = shape_of(MO_SHAPE_BOX, 0, he[0], he[1], he[2], 0.6);
    mo_body_id bx = add_body(w, MO_BODY_DYNAMIC, (double[]){0.2, -0.1, -zmin - 0.002}, qb, (double[]){0.4, -0.1, -0.05},
                             (double[]){0.1, 0.2, -0.3}, 2.0, NULL, &box);
    /* sphere on the box's top face, 1 mm deep */
    double ntop[3], off[3], xs[3], xb[3] = {0.2, -0.1, -zmin - 0.002};
    mat_vec(Rb, (double[]){0, 0, 1}, ntop);
    mat_vec(Rb, (double[]){0.05, -0.03, 0.1}, off);
    for (int k = 0; k < 3; k++) xs[k] = xb[k] + off[k] + ntop[k] * (0.08 - 0.001);
    mo_shape_def sph = shape_of(MO_SHAPE_SPHERE, 0.08, 0, 0, 0, 0.5);
    mo_mat3 Is = generic_inertia(0.002, 0.003, 0.0025, 1, 1, 0, 0.7); /* explicit, generic */
    double qsph[4];
    t_qaa(3, 1, -2, 0.8, qsph);
    mo_body_id sp = add_body(w, MO_BODY_DYNAMIC, xs, qsph, (double[]){-0.2, 0.1, 0.0}, (double[]){1.0, 0.0, 0.5}, 0.7,
                             &Is, &sph);
    /* a particle sliding on the plane, 1 mm deep */
    mo_particle_def pd = mo_default_particle_def();
    pd.position = (mo_vec3){2.0, 2.0, 0.049};
    pd.velocity = (mo_vec3){0.5, 0.0, 0.0};
    pd.radius = 0.05;
    pd.mass = 0.3;
    mo_particle_id pid;
    CHECK(mo_particle_create(w, &pd, &pid) == MO_OK);

    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    int n = p.n, nc = w->ncontacts;
    CHECK(n == 15);
    const mo_contact_int *ct = (const mo_contact_int *)w->contacts.p;
    int nbox = 0, nsph = 0, npart = 0;
    for (int c = 0; c < nc; c++) {
        int a = ct[c].body_a, b = ct[c].body_b;
        if (ct[c].particle >= 0) npart++;
        else if ((a == (int)gnd.index - 1 && b == (int)bx.index - 1) || (b == (int)gnd.index - 1 && a == (int)bx.index - 1)) nbox++;
        else if ((a == (int)sp.index - 1 && b == (int)bx.index - 1) || (b == (int)sp.index - 1 && a == (int)bx.index - 1)) nsph++;
    }
    CHECK(nbox >= 2 && nbox <= 4);
    CHECK(nsph == 1);
    CHECK(npart == 1);
    CHECK(p.m == 3 * nc);
    double *Mi = dense_minv(w, n);
    const int *odof = (const int *)w->owner_dof.p;
    int nsliding = 0;
    for (int c = 0; c < nc; c++) {
        const mo_contact_int *k = &ct[c];
        /* frame: orthonormal, right-handed, t1 along the sliding direction when sliding */
        CHECK_NEAR(t_norm(k->n), 1.0, 1e-12);
        CHECK_NEAR(t_norm(k->t1), 1.0, 1e-12);
        CHECK_NEAR(t_norm(k->t2), 1.0, 1e-12);
        CHECK_NEAR(dot3(k->n, k->t1), 0.0, 1e-12);
        CHECK_NEAR(dot3(k->n, k->t2), 0.0, 1e-12);
        double c12[3];
        cross3(k->t1, k->t2, c12);
        for (int i = 0; i < 3; i++) CHECK_NEAR(c12[i], k->n[i], 1e-12);
        /* block data */
        {
            int bk = -1;
            for (int q = 0; q < p.nblocks; q++)
                if (p.block_row[q] == 3 * c) bk = q;
            CHECK(bk >= 0);
            if (bk >= 0) {
                CHECK(p.block_kind[bk] == MO_BLOCK_CONTACT);
                CHECK(p.block_row[bk + 1] == 3 * c + 3);
                CHECK_NEAR(p.block_mu[bk], k->mu, 0.0);
            }
        }
        /* dense rows built here: side a gets [-e, -(ra x e)], side b [e, rb x e] */
        const double *dirs[3] = {k->n, k->t1, k->t2};
        for (int i = 0; i < 3; i++) {
            int r = 3 * c + i;
            double *row = calloc((size_t)n, sizeof(double));
            int sides[2] = {k->body_a, k->particle >= 0 ? -2 : k->body_b};
            for (int sd = 0; sd < 2; sd++) {
                double sg = sd == 0 ? -1.0 : 1.0;
                const double *pt = sd == 0 ? k->pa : k->pb;
                if (sides[sd] == -2) { /* particle: linear part only */
                    int o = w->particles[k->particle].owner;
                    for (int q = 0; q < 3; q++) row[odof[o] + q] += sg * dirs[i][q];
                    continue;
                }
                if (sides[sd] < 0) continue;
                mo_body *b = &w->bodies[sides[sd]];
                if (b->owner < 0) continue;
                double rr[3] = {pt[0] - b->k.x[0], pt[1] - b->k.x[1], pt[2] - b->k.x[2]}, cr[3];
                cross3(rr, dirs[i], cr);
                for (int q = 0; q < 3; q++) {
                    row[odof[b->owner] + q] += sg * dirs[i][q];
                    row[odof[b->owner] + 3 + q] += sg * cr[q];
                }
            }
            double *csr = calloc((size_t)n, sizeof(double));
            for (int q = p.row_ptr[r]; q < p.row_ptr[r + 1]; q++) csr[p.col[q]] = p.val[q];
            for (int q = 0; q < n; q++) CHECK_NEAR_L(csr[q], row[q], 1e-13, "contact %d row %d col %d", c, i, q);
            /* W and N_ii against the dense M^-1 */
            double diag = 0;
            for (int q = p.row_ptr[r]; q < p.row_ptr[r + 1]; q++) {
                double s = 0;
                for (int cc = 0; cc < n; cc++) s += Mi[p.col[q] * n + cc] * row[cc];
                CHECK_NEAR_L(p.wval[q], s, 1e-12 * (1.0 + fabs(s)), "contact %d row %d W col %d", c, i, p.col[q]);
                diag += row[p.col[q]] * s;
            }
            CHECK_NEAR_L(p.diag[r], diag, 1e-12 * diag, "contact %d row %d N_ii", c, i);
            /* b: speculative g/h for g >= 0, SPOOK with capped push-out for g < 0, tangent 0 */
            double jv = 0;
            for (int q = 0; q < n; q++) jv += row[q] * ((const double *)w->v_start.p)[q];
            double eb;
            if (i > 0) eb = 0.0;
            else if (k->gap >= 0) eb = k->gap / h;
            else {
                double push = -(4.0 / h) * k->gap * ups;
                if (push > 1.0) push = 1.0;
                eb = -push; /* no SPOOK velocity term on unilateral rows */
                (void)jv;
            }
            CHECK_NEAR_L(p.b[r], eb, 1e-12, "contact %d row %d b", c, i);
            CHECK_NEAR_L(p.sigma[r], 0.0, 0.0, "contact %d row %d sigma", c, i);
            free(row);
            free(csr);
        }
        /* relative tangential velocity lies along t1 (J_t2 v ~ 0, J_t1 v > 0) when sliding */
        {
            double jt[2] = {0, 0};
            const double *vs = (const double *)w->v_start.p;
            for (int i = 1; i < 3; i++) {
                int r = 3 * c + i;
                double s = 0;
                for (int q = p.row_ptr[r]; q < p.row_ptr[r + 1]; q++) s += p.val[q] * vs[p.col[q]];
                jt[i - 1] = s;
            }
            if (hypot(jt[0], jt[1]) > 1e-3) {
                nsliding++;
                CHECK(jt[0] > 0);
                CHECK_NEAR_L(jt[1], 0.0, 1e-12, "contact %d sliding along t1", c);
            }
        }
        /* gap consistency: pb = pa + gap n */
        for (int q = 0; q < 3; q++) CHECK_NEAR(k->pb[q], k->pa[q] + k->gap * k->n[q], 1e-12);
    }
    CHECK(nsliding >= 2); /* the box and the particle slide: the t1 choice was exercised */
    free(Mi);
    mo_world_destroy(w);
    group_end("1a contact rows and W = M^-1 J^T");
}

/* ====================================================================== */
/* 1b / 1d: solvers against the dense reference                            */
/* ====================================================================== */

typedef struct problem_case {
    const char *name;
    mo_world *w;
    mo_problem p;
    dense D;
} problem_case;

static void build_case(problem_case *pc)
{
    CHECK(mo_step_predict(MO_STEP_CTX(pc->w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(pc->w)) == 0);
    if (mo_step_assemble(MO_STEP_CTX(pc->w), &pc->p)) {
        fprintf(stderr, "assemble failed\n");
        exit(2);
    }
    pc->D = dense_from(pc->w, &pc->p);
}

/* three spheres touching each other and the ground, with friction and
 * velocities that make some contacts slide */
static mo_world *world_three_spheres(double mu)
{
    mo_world *w = new_world(-9.81, 0.0);
    mo_shape_def plane = shape_of(MO_SHAPE_PLANE, 0, 0, 0, 0, mu);
    add_body(w, MO_BODY_STATIC, (double[]){0, 0, 0}, NULL, NULL, NULL, 1.0, NULL, &plane);
    mo_shape_def sph = shape_of(MO_SHAPE_SPHERE, 0.1, 0, 0, 0, mu);
    const double R = 0.1, dctr = 0.2 - 0.001; /* 1 mm overlaps */
    double c0[3] = {0, 0, R - 0.0005}, c1[3] = {dctr, 0, R - 0.0008};
    double c2[3] = {0.5 * dctr, dctr * sqrt(3.0) / 2.0, R - 0.0003};
    add_body(w, MO_BODY_DYNAMIC, c0, NULL, (double[]){0.6, 0.1, 0}, (double[]){0.0, 2.0, 1.0}, 1.0, NULL, &sph);
    add_body(w, MO_BODY_DYNAMIC, c1, NULL, (double[]){-0.2, 0.3, -0.1}, (double[]){-1.0, 0.5, 0.0}, 1.5, NULL, &sph);
    add_body(w, MO_BODY_DYNAMIC, c2, NULL, (double[]){0.0, -0.4, 0}, (double[]){0.3, 0.0, -2.0}, 2.0, NULL, &sph);
    return w;
}

/* a sphere sliding on a plane */
static mo_world *world_sliding_sphere(void)
{
    mo_world *w = new_world(-9.81, 0.0);
    mo_shape_def plane = shape_of(MO_SHAPE_PLANE, 0, 0, 0, 0, 0.4);
    add_body(w, MO_BODY_STATIC, (double[]){0, 0, 0}, NULL, NULL, NULL, 1.0, NULL, &plane);
    mo_shape_def sph = shape_of(MO_SHAPE_SPHERE, 0.1, 0, 0, 0, 0.4);
    add_body(w, MO_BODY_DYNAMIC, (double[]){0, 0, 0.099}, NULL, (double[]){2.0, 0.5, 0}, NULL, 1.0, NULL, &sph);
    return w;
}

/* frictionless pyramid: two spheres on the ground touching, one on top of both */
static mo_world *world_pyramid(void)
{
    mo_world *w = new_world(-9.81, 0.0);
    mo_shape_def plane = shape_of(MO_SHAPE_PLANE, 0, 0, 0, 0, 0.0);
    add_body(w, MO_BODY_STATIC, (double[]){0, 0, 0}, NULL, NULL, NULL, 1.0, NULL, &plane);
    mo_shape_def sph = shape_of(MO_SHAPE_SPHERE, 0.1, 0, 0, 0, 0.0);
    add_body(w, MO_BODY_DYNAMIC, (double[]){-0.0995, 0, 0.0995}, NULL, (double[]){0.1, 0, -0.2}, NULL, 1.0, NULL, &sph);
    add_body(w, MO_BODY_DYNAMIC, (double[]){0.0995, 0.01, 0.0998}, NULL, (double[]){0.9, 0, 0.0}, NULL, 2.0, NULL, &sph);
    add_body(w, MO_BODY_DYNAMIC, (double[]){0.002, 0.004, 0.0995 + 0.1725}, NULL, (double[]){0.0, 0.1, -0.5}, NULL, 0.5,
             NULL, &sph);
    return w;
}

/* pendulum of two bodies with spherical joints (world-b1, b1-b2) */
static mo_world *world_pendulum(void)
{
    mo_world *w = new_world(-9.81, 0.0);
    double q1[4], q2[4];
    t_qaa(1, 1, 0, 0.3, q1);
    t_qaa(0, 1, -1, 1.0, q2);
    mo_mat3 I1 = generic_inertia(0.01, 0.02, 0.015, 1, 0, 0, 0.4);
    mo_mat3 I2 = generic_inertia(0.03, 0.01, 0.02, 0, 0, 1, 0.9);
    mo_body_id b1 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.2, 0.0, -0.4}, q1, (double[]){0.3, -0.2, 0.1},
                             (double[]){0.5, 1.0, -0.2}, 1.0, &I1, NULL);
    mo_body_id b2 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.5, 0.1, -0.8}, q2, (double[]){-0.4, 0.1, 0.3},
                             (double[]){-1.0, 0.2, 0.3}, 2.0, &I2, NULL);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_b = b1;
    d.anchor_a = (mo_vec3){0, 0, 0};
    double la[3], lb[3], wp[3] = {0.002, -0.001, 0.0};
    body_local(w, b1, wp, lb);
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    add_joint(w, &d);
    d = mo_default_joint_def();
    d.type = MO_JOINT_SPHERICAL;
    d.body_a = b1; d.body_b = b2;
    double mid[3] = {0.35, 0.05, -0.6}, mid2[3] = {0.353, 0.05, -0.598};
    body_local(w, b1, mid, la);
    body_local(w, b2, mid2, lb);
    d.anchor_a = (mo_vec3){la[0], la[1], la[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    add_joint(w, &d);
    return w;
}

/* boxed rows: b1 on a prismatic joint to the world with a velocity motor whose
 * force limit is active, b2 on a revolute joint to b1 with an unsaturated motor */
static mo_world *world_motors(void)
{
    mo_world *w = new_world(-9.81, 0.0);
    double q1[4], q2[4];
    t_qaa(1, 0, 1, 0.2, q1);
    t_qaa(0, 1, 0, -0.5, q2);
    mo_mat3 I1 = generic_inertia(0.02, 0.03, 0.04, 1, 2, 0, 0.3);
    mo_mat3 I2 = generic_inertia(0.01, 0.015, 0.012, 0, 1, 2, 0.6);
    mo_body_id b1 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.0, 0.0, 1.0}, q1, (double[]){0.1, 0, 0}, NULL, 2.0, &I1, NULL);
    mo_body_id b2 = add_body(w, MO_BODY_DYNAMIC, (double[]){0.3, 0.0, 0.8}, q2, NULL, (double[]){0.0, 0.5, 0.0}, 1.0, &I2, NULL);
    mo_joint_def d = mo_default_joint_def();
    d.type = MO_JOINT_PRISMATIC;
    d.body_b = b1;
    d.anchor_a = (mo_vec3){0, 0, 1.0};
    d.anchor_b = (mo_vec3){0, 0, 0};
    d.axis_a = (mo_vec3){1, 0, 0.3};
    d.motor = MO_MOTOR_VELOCITY;
    d.target_velocity = 2.0;
    d.max_force = 3.0; /* 2 kg needs 2*(2 - 0.1)/h = 456 N: saturated */
    add_joint(w, &d);
    d = mo_default_joint_def();
    d.type = MO_JOINT_REVOLUTE;
    d.body_a = b1; d.body_b = b2;
    double pw[3] = {0.15, 0.0, 0.9}, la[3], lb[3], ax[3] = {0, 1, 0}, axa[3], axb[3];
    body_local(w, b1, pw, la);
    body_local(w, b2, pw, lb);
    body_dir_local(w, b1, ax, axa);
    body_dir_local(w, b2, ax, axb);
    d.anchor_a = (mo_vec3){la[0], la[1], la[2]};
    d.anchor_b = (mo_vec3){lb[0], lb[1], lb[2]};
    d.axis_a = (mo_vec3){axa[0], axa[1], axa[2]};
    d.axis_b = (mo_vec3){axb[0], axb[1], axb[2]};
    d.motor = MO_MOTOR_VELOCITY;
    d.target_velocity = -1.0;
    d.max_force = 1e4;
    add_joint(w, &d);
    return w;
}

/* exact solution of a frictionless contact problem (mu = 0 cones: tangents 0)
 * by enumeration of the active normal sets: N_SS g_S = -r_S, g_S >= 0, u >= 0 */
static int enumerate_frictionless(const mo_problem *p, const dense *D, double *g)
{
    int nc = p->nblocks, m = D->m, found = 0;
    int *idx = malloc(sizeof(int) * (size_t)nc);
    for (int mask = 0; mask < (1 << nc); mask++) {
        int k = 0;
        for (int c = 0; c < nc; c++)
            if (mask & (1 << c)) idx[k++] = p->block_row[c];
        double *A = malloc(sizeof(double) * (size_t)(k * k + 1)), *rhs = malloc(sizeof(double) * (size_t)(k + 1));
        double *x = malloc(sizeof(double) * (size_t)(k + 1));
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++) A[a * k + b] = D->N[idx[a] * m + idx[b]];
            rhs[a] = -D->r[idx[a]];
        }
        int ok = k == 0 || t_solve(A, rhs, x, k);
        double *gg = calloc((size_t)m, sizeof(double)), *u = calloc((size_t)m, sizeof(double));
        for (int a = 0; ok && a < k; a++) {
            if (x[a] < -1e-14) ok = 0;
            gg[idx[a]] = x[a] > 0 ? x[a] : 0;
        }
        if (ok) {
            dense_u(D, gg, u);
            for (int c = 0; c < nc; c++)
                if (!(mask & (1 << c)) && u[p->block_row[c]] < -1e-12) ok = 0;
        }
        if (ok) {
            if (!found) memcpy(g, gg, sizeof(double) * (size_t)m);
            found++;
        }
        free(A); free(rhs); free(x); free(gg); free(u);
    }
    free(idx);
    return found;
}

static void compare_solvers(problem_case *pc, const double *gref, int pgs_iters, int jac_iters, double rtol)
{
    const mo_problem *p = &pc->p;
    int m = p->m, n = p->n;
    double *g = malloc(sizeof(double) * (size_t)(m + 1)), *v = malloc(sizeof(double) * (size_t)(n + 1));
    double scale = vmax_abs(gref, m);
    mo_solver_settings s = mo_default_solver_settings();
    s.friction = MO_FRICTION_CONE;
    /* the accelerated solvers stop early only when no descent direction is left (SPG) */
    struct { mo_solver_fn fn; const char *name; int iters; } sv[4] = {
        {mo_solver_pgs, "PGS", pgs_iters}, {mo_solver_jacobi, "Jacobi", jac_iters},
        {mo_solver_apgd, "APGD", pgs_iters}, {mo_solver_spg, "SPG", pgs_iters}};
    for (int k = 0; k < 4; k++) {
        s.max_iterations = sv[k].iters;
        mo_solve_out o = run_solver(sv[k].fn, p, &s, g, v, NULL, NULL);
        double dg = vdiff_max(g, gref, m);
        CHECK_NEAR_L(dg, 0.0, rtol * scale, "%s %s max |gamma - gamma_ref| (scale %.3g)", pc->name, sv[k].name, scale);
        if (k < 2) CHECK(o.iterations == sv[k].iters);
        else CHECK(o.iterations >= 1 && o.iterations <= sv[k].iters);
        /* reported residual tiny, and equal to the dense recomputation */
        double rr = ref_ccp_residual(p, &pc->D, g);
        CHECK_NEAR_L(o.residual, 0.0, 1e-9, "%s %s reported residual", pc->name, sv[k].name);
        CHECK_NEAR_L(o.residual, rr, 1e-10, "%s %s residual vs dense", pc->name, sv[k].name);
        /* v = v~ + M^-1 J^T gamma */
        double dv = 0;
        for (int i = 0; i < n; i++) {
            double s2 = p->v_tilde[i];
            for (int r = 0; r < m; r++)
                for (int c = 0; c < n; c++) s2 += pc->D.Minv[i * n + c] * pc->D.J[r * n + c] * g[r];
            if (fabs(s2 - v[i]) > dv) dv = fabs(s2 - v[i]);
        }
        CHECK_NEAR_L(dv, 0.0, 1e-12, "%s %s v = v~ + M^-1 J^T gamma", pc->name, sv[k].name);
        printf("     %-26s %-6s %5d it: |dgamma| %.1e (|gamma| %.2g), residual %.1e\n", pc->name, sv[k].name,
               o.iterations, dg, scale, o.residual);
    }
    free(g);
    free(v);
}

/* eigenvalue bounds of N; returns lambda_min / lambda_max */
static double n_condition(const dense *D, double *lmin, double *lmax)
{
    double *ev = malloc(sizeof(double) * (size_t)(D->m + 1));
    t_sym_eig(D->N, D->m, ev);
    *lmin = ev[0];
    *lmax = ev[D->m - 1];
    free(ev);
    return *lmin / *lmax;
}

static void test_solvers(void)
{
    group_begin();
    double lmin, lmax;

    /* three spheres with friction: unique gamma needs N > 0 */
    problem_case A = {"three spheres mu=0.5", world_three_spheres(0.5), {0}, {0}};
    build_case(&A);
    CHECK(A.w->ncontacts == 6);
    n_condition(&A.D, &lmin, &lmax);
    CHECK(lmin > 1e-3 * lmax); /* nonsingular: the CCP solution is unique */
    double *gA = malloc(sizeof(double) * (size_t)A.p.m);
    double resA = ref_solve(&A.p, &A.D, gA, 1e-14);
    CHECK(resA <= 1e-13);
    {
        /* the problem exercises every cone case: separating, sticking, sliding */
        int nsep = 0, nstick = 0, nslide = 0;
        for (int c = 0; c < A.p.nblocks; c++) {
            int r0 = A.p.block_row[c];
            double gt = hypot(gA[r0 + 1], gA[r0 + 2]), mu = A.p.block_mu[c];
            if (gA[r0] <= 1e-12) nsep++;
            else if (gt < mu * gA[r0] * (1 - 1e-9)) nstick++;
            else nslide++;
        }
        printf("     three spheres: %d contacts separating, %d sticking, %d sliding; N eig [%.2e, %.2e]\n", nsep,
               nstick, nslide, lmin, lmax);
        CHECK(nstick >= 1);
        CHECK(nslide >= 1);
    }
    compare_solvers(&A, gA, 3000, 30000, 1e-9);

    /* one sphere sliding on a plane: the cone boundary is active */
    problem_case B = {"sliding sphere mu=0.4", world_sliding_sphere(), {0}, {0}};
    build_case(&B);
    CHECK(B.w->ncontacts == 1);
    n_condition(&B.D, &lmin, &lmax);
    CHECK(lmin > 1e-3 * lmax);
    double gB[3];
    CHECK(ref_solve(&B.p, &B.D, gB, 1e-14) <= 1e-13);
    CHECK(gB[0] > 0);
    CHECK_NEAR(hypot(gB[1], gB[2]), 0.4 * gB[0], 1e-12); /* on the cone boundary: sliding */
    CHECK(gB[1] < 0); /* t1 is the sliding direction: friction opposes it */
    compare_solvers(&B, gB, 500, 5000, 1e-10);

    /* frictionless pyramid: exact enumeration, and the dense reference agrees */
    problem_case C = {"frictionless pyramid", world_pyramid(), {0}, {0}};
    build_case(&C);
    CHECK(C.w->ncontacts == 5);
    double *gC = calloc((size_t)C.p.m, sizeof(double)), *gC2 = calloc((size_t)C.p.m, sizeof(double));
    int nsol = enumerate_frictionless(&C.p, &C.D, gC);
    CHECK(nsol == 1); /* unique LCP solution */
    {
        int nact = 0;
        for (int c = 0; c < C.p.nblocks; c++) nact += gC[C.p.block_row[c]] > 0;
        printf("     pyramid normals:");
        for (int c = 0; c < C.p.nblocks; c++) printf(" %.4g", gC[C.p.block_row[c]]);
        printf("\n");
        CHECK(nact >= 2 && nact < 5); /* some contacts active, some not */
    }
    CHECK(ref_solve(&C.p, &C.D, gC2, 1e-14) <= 1e-13);
    CHECK_NEAR(vdiff_max(gC, gC2, C.p.m), 0.0, 1e-11);
    compare_solvers(&C, gC, 2000, 20000, 1e-9);

    /* bilateral pendulum: Gaussian elimination on N g = -r */
    problem_case P = {"two-body spherical pendulum", world_pendulum(), {0}, {0}};
    build_case(&P);
    CHECK(P.p.m == 6);
    n_condition(&P.D, &lmin, &lmax);
    CHECK(lmin > 1e-3 * lmax);
    double gP[6], mr[6], gP2[6];
    for (int i = 0; i < 6; i++) mr[i] = -P.D.r[i];
    CHECK(t_solve(P.D.N, mr, gP, 6));
    CHECK(ref_solve(&P.p, &P.D, gP2, 1e-14) <= 1e-13);
    CHECK_NEAR(vdiff_max(gP, gP2, 6), 0.0, 1e-11);
    compare_solvers(&P, gP, 500, 5000, 1e-10);
    {
        /* SOR factor != 1 has the same fixed point */
        double g[6], v[12];
        mo_solver_settings s = mo_default_solver_settings();
        s.max_iterations = 500;
        s.omega = 1.4;
        run_solver(mo_solver_pgs, &P.p, &s, g, v, NULL, NULL);
        CHECK_NEAR(vdiff_max(g, gP, 6), 0.0, 1e-10 * vmax_abs(gP, 6));
    }

    /* boxed motor rows */
    problem_case Mo = {"motors (boxed rows)", world_motors(), {0}, {0}};
    build_case(&Mo);
    CHECK(Mo.p.m == 12);
    n_condition(&Mo.D, &lmin, &lmax);
    CHECK(lmin > 1e-4 * lmax);
    double gM[12];
    CHECK(ref_solve(&Mo.p, &Mo.D, gM, 1e-14) <= 1e-13);
    /* the prismatic motor (row 5) sits on its bound, the revolute motor (row 11) does not */
    CHECK_NEAR(gM[5], Mo.p.hi[5], 1e-12);
    CHECK(fabs(gM[11]) < 0.9 * Mo.p.hi[11]);
    compare_solvers(&Mo, gM, 1000, 20000, 1e-9);

    group_end("1b PGS / Jacobi vs dense reference");

    /* ---- 1d residual definitions ---- */
    group_begin();
    problem_case *cases[] = {&A, &B, &C, &P, &Mo};
    const double *refs[] = {gA, gB, gC, gP, gM};
    for (int ci = 0; ci < 5; ci++) {
        problem_case *pc = cases[ci];
        const mo_problem *p = &pc->p;
        int m = p->m;
        double *u = malloc(sizeof(double) * (size_t)m), *gp = malloc(sizeof(double) * (size_t)m);
        double *v = malloc(sizeof(double) * (size_t)p->n);
        double ccp, cou;
        /* at the reference solution */
        mo_problem_velocity(p, refs[ci], v);
        mo_problem_row_velocity(p, v, refs[ci], u);
        mo_problem_residuals(p, refs[ci], u, &ccp, &cou);
        CHECK_NEAR_L(ccp, 0.0, 1e-11, "%s: CCP residual at the solution", pc->name);
        /* Coulomb error: 0 unless a contact slides (the CCP solution then has
         * u_n = mu |u_t| > 0 where exact Coulomb has u_n = 0); always equal to
         * the dense recomputation of the FCLIB formula */
        double cref = ref_coulomb_error(p, &pc->D, refs[ci]);
        CHECK_NEAR_L(cou, cref, 1e-10 * (1.0 + cref), "%s: Coulomb error vs dense", pc->name);
        if (pc == &C || pc == &P || pc == &Mo) CHECK_NEAR_L(cou, 0.0, 1e-11, "%s: Coulomb error at the solution", pc->name);
        if (pc == &B) CHECK(cou > 1e-3); /* sliding: the relaxation's normal velocity shows */
        /* u from the engine equals N g + r */
        double du = 0, *ud = malloc(sizeof(double) * (size_t)m);
        dense_u(&pc->D, refs[ci], ud);
        du = vdiff_max(u, ud, m);
        CHECK_NEAR_L(du, 0.0, 1e-12, "%s: u = N gamma + r", pc->name);
        free(ud);
        /* at a perturbed gamma: both measures > 0 and equal to the dense ones */
        double sc = vmax_abs(refs[ci], m);
        for (int i = 0; i < m; i++) gp[i] = refs[ci][i] + 0.05 * sc * urand(-1, 1);
        mo_problem_velocity(p, gp, v);
        mo_problem_row_velocity(p, v, gp, u);
        mo_problem_residuals(p, gp, u, &ccp, &cou);
        double rref = ref_ccp_residual(p, &pc->D, gp);
        CHECK(ccp > 1e-4);
        CHECK_NEAR_L(ccp, rref, 1e-12 * (1.0 + rref), "%s: perturbed CCP residual vs dense", pc->name);
        double cref2 = ref_coulomb_error(p, &pc->D, gp);
        CHECK_NEAR_L(cou, cref2, 1e-12 * (1.0 + cref2), "%s: perturbed Coulomb error vs dense", pc->name);
        if (pc != &P && pc != &Mo) CHECK(cou > 1e-4);
        else CHECK(cou == 0.0); /* no contact rows */
        free(u); free(gp); free(v);
    }
    /* residual history and the tolerance stop */
    {
        const mo_problem *p = &A.p;
        int m = p->m, n = p->n;
        double *g = malloc(sizeof(double) * (size_t)m), *v = malloc(sizeof(double) * (size_t)n);
        double rh[400], eh[400];
        mo_solver_settings s = mo_default_solver_settings();
        s.max_iterations = 400;
        s.record_residuals = true;
        mo_solve_out o = run_solver(mo_solver_pgs, p, &s, g, v, rh, eh);
        CHECK(o.hist_count == 400);
        CHECK_NEAR(rh[399], o.residual, 0.0);
        CHECK_NEAR(eh[399], o.coulomb_error, 0.0);
        CHECK(rh[399] < 1e-3 * rh[0]);
        s.record_residuals = false;
        s.tolerance = 1e-6;
        o = run_solver(mo_solver_pgs, p, &s, g, v, NULL, NULL);
        CHECK(o.converged);
        CHECK(o.iterations < 400);
        CHECK(o.residual <= 1e-6);
        CHECK_NEAR(o.residual, ref_ccp_residual(p, &A.D, g), 1e-12);
        o = run_solver(mo_solver_jacobi, p, &s, g, v, NULL, NULL);
        CHECK(o.converged);
        CHECK(o.residual <= 1e-6);
        CHECK_NEAR(o.residual, ref_ccp_residual(p, &A.D, g), 1e-12);
        free(g); free(v);
    }
    group_end("1d residual definitions");

    for (int ci = 0; ci < 5; ci++) {
        dense_free(&cases[ci]->D);
        mo_world_destroy(cases[ci]->w);
    }
    free(gA); free(gC); free(gC2);
}

/* ====================================================================== */
/* 1c: cone projection                                                     */
/* ====================================================================== */

/* brute force: the nearest point of F_mu to x among x itself (when inside),
 * the apex, and the boundary points s (1, mu cos phi, mu sin phi), s >= 0:
 * phi sampled on 720 points; around the best sample phi is refined by
 * bisection on the sign of d/dphi of x . (1, mu cos phi, mu sin phi) (the
 * stationarity condition of the parametrisation; golden-section search on the
 * distance itself only resolves phi to ~sqrt(eps)); for each phi the best s is
 * the clamped 1-D least-squares value */
static double brute_dist2(const double *x, double mu, double phi, double *y)
{
    double d[3] = {1.0, mu * cos(phi), mu * sin(phi)};
    double s = (x[0] * d[0] + x[1] * d[1] + x[2] * d[2]) / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (s < 0) s = 0;
    for (int k = 0; k < 3; k++) y[k] = s * d[k];
    return (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
}

static void brute_project(const double *x, double mu, double *out)
{
    if (hypot(x[1], x[2]) <= mu * x[0] && x[0] >= 0) { memcpy(out, x, 3 * sizeof(double)); return; }
    double best = x[0] * x[0] + x[1] * x[1] + x[2] * x[2], y[3];
    out[0] = out[1] = out[2] = 0.0;
    const int ns = 720;
    double bphi = 0;
    for (int i = 0; i < ns; i++) {
        double phi = 2.0 * PI * i / ns, dd = brute_dist2(x, mu, phi, y);
        if (dd < best) { best = dd; bphi = phi; memcpy(out, y, sizeof y); }
    }
    /* refine: x . d(phi) is maximal where its derivative -x1 sin + x2 cos changes sign from + to - */
    double a = bphi - 2.0 * PI / ns, b = bphi + 2.0 * PI / ns;
    double fa = -x[1] * sin(a) + x[2] * cos(a), fb = -x[1] * sin(b) + x[2] * cos(b);
    if (fa > 0 && fb < 0) {
        for (int it = 0; it < 200 && b - a > 0; it++) {
            double c = 0.5 * (a + b), fc = -x[1] * sin(c) + x[2] * cos(c);
            if (c <= a || c >= b) break;
            if (fc > 0) a = c; else b = c;
        }
        double dd = brute_dist2(x, mu, 0.5 * (a + b), y);
        if (dd <= best) memcpy(out, y, sizeof y);
    }
}

static void test_cone(void)
{
    group_begin();
    const double mus[] = {0.0, 0.05, 0.3, 0.8, 1.0, 2.5, 10.0};
    int ncase = 0, nin = 0, npolar = 0, nbd = 0;
    double worst = 0;
    for (int it = 0; it < 3000; it++) {
        double mu = mus[it % 7], x[3];
        int kind = (it / 7) % 5;
        double t1 = urand(-2, 2), t2 = urand(-2, 2), s = hypot(t1, t2);
        switch (kind) {
        case 0: x[0] = urand(-2, 2); x[1] = t1; x[2] = t2; break;            /* anywhere */
        case 1: /* inside (mu = 0: the cone is the ray t = 0) */
            if (mu > 0) { x[0] = s / mu + urand(0, 1); x[1] = t1; x[2] = t2; }
            else { x[0] = urand(0, 2); x[1] = x[2] = 0; }
            break;
        case 2: x[0] = -mu * s - urand(0, 1); x[1] = t1; x[2] = t2; break;   /* polar cone */
        case 3: /* on the axis (mu = 0 with x_n < 0 is the separate regression check below) */
            x[0] = mu > 0 ? urand(-2, 2) : urand(0, 2); x[1] = x[2] = 0; break;
        default: x[0] = urand(-0.5, 2) * s; x[1] = 1e-3 * t1; x[2] = t2; break; /* thin tangent part */
        }
        double pe[3] = {x[0], x[1], x[2]}, pb[3];
        mo_k_project_cone(pe, mu);
        brute_project(x, mu, pb);
        double sc = 1.0 + t_norm(x);
        for (int k = 0; k < 3; k++) CHECK_NEAR_L(pe[k], pb[k], 1e-9 * sc, "x=(%g,%g,%g) mu=%g comp %d", x[0], x[1], x[2], mu, k);
        for (int k = 0; k < 3; k++) if (fabs(pe[k] - pb[k]) > worst) worst = fabs(pe[k] - pb[k]);
        /* in the cone */
        CHECK(hypot(pe[1], pe[2]) <= mu * pe[0] + 1e-12 * sc);
        CHECK(pe[0] >= 0);
        /* idempotent */
        double pp[3] = {pe[0], pe[1], pe[2]};
        mo_k_project_cone(pp, mu);
        for (int k = 0; k < 3; k++) CHECK_NEAR_L(pp[k], pe[k], 1e-14 * sc, "idempotence mu=%g", mu);
        /* Moreau: z = P(x) - x lies in the dual cone F_mu* = {mu |z_t| <= z_n}, and z . P(x) = 0 */
        double z[3] = {pe[0] - x[0], pe[1] - x[1], pe[2] - x[2]};
        CHECK(mu * hypot(z[1], z[2]) <= z[0] + 1e-12 * sc);
        CHECK_NEAR(dot3(z, pe), 0.0, 1e-12 * sc * sc);
        ncase++;
        if (hypot(x[1], x[2]) <= mu * x[0]) nin++;
        else if (mu * hypot(x[1], x[2]) <= -x[0]) npolar++;
        else nbd++;
    }
    CHECK(nin > 300 && npolar > 300 && nbd > 300);
    /* exact cases */
    {
        double x[3] = {1.0, 3.0, 4.0};
        mo_k_project_cone(x, 0.5); /* s = 5: n = (1 + 2.5)/1.25 = 2.8, t = 0.5*2.8*(3,4)/5 */
        CHECK_NEAR(x[0], 2.8, 1e-15);
        CHECK_NEAR(x[1], 0.84, 1e-15);
        CHECK_NEAR(x[2], 1.12, 1e-15);
        /* regression: mo_k_project_cone once tested "s <= mu x_n" first, which
         * with mu = 0 and x_t = 0 reads 0 <= -0.0 for any x_n < 0 and returned
         * (-1, 0, 0) unchanged (an attractive frictionless contact: see the
         * world check below). It now handles mu <= 0 first. */
        double ax[3] = {-1.0, 0.0, 0.0};
        mo_k_project_cone(ax, 0.0);
        CHECK(ax[0] == 0.0 && ax[1] == 0.0 && ax[2] == 0.0);
        double ax2[3] = {-0.25, 0.0, 0.0};
        mo_k_project_block(ax2, MO_BLOCK_CONTACT, 0.0, -INFINITY, INFINITY);
        CHECK(ax2[0] == 0.0); /* same path through mo_k_project_block */
        double y[3] = {-1.0, 0.3, 0.4};
        mo_k_project_cone(y, 0.0);
        CHECK(y[0] == 0.0 && y[1] == 0.0 && y[2] == 0.0);
        double z[3] = {2.0, 0.3, 0.4};
        mo_k_project_cone(z, 0.0);
        CHECK(z[0] == 2.0 && z[1] == 0.0 && z[2] == 0.0);
        double o[3] = {0, 0, 0};
        mo_k_project_cone(o, 0.7);
        CHECK(o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0);
    }
    /* the other block kinds */
    {
        double a = -0.3;
        mo_k_project_block(&a, MO_BLOCK_UNILATERAL, 0, -INFINITY, INFINITY);
        CHECK(a == 0.0);
        a = 0.3;
        mo_k_project_block(&a, MO_BLOCK_UNILATERAL, 0, -INFINITY, INFINITY);
        CHECK(a == 0.3);
        a = 5.0;
        mo_k_project_block(&a, MO_BLOCK_BOXED, 0, -1.0, 2.0);
        CHECK(a == 2.0);
        a = -5.0;
        mo_k_project_block(&a, MO_BLOCK_BOXED, 0, -1.0, 2.0);
        CHECK(a == -1.0);
        a = -5.0;
        mo_k_project_block(&a, MO_BLOCK_BILATERAL, 0, -1.0, 2.0);
        CHECK(a == -5.0);
    }
    /* the old bug's consequence in a world: a frictionless sphere at rest 5 mm
     * above a frictionless plane (inside the 1 cm contact margin). The contact
     * is speculative (b = gap/h = 0.6 m/s > h g), so the correct impulse is 0
     * and the sphere falls freely: v_z = -h g = -0.08175 m/s after one step.
     * With the bug the normal impulse was -0.518 N s (attractive) and
     * v_z = -gap/h = -0.6 m/s. Friction 0.5 is the control. */
    for (int fr = 0; fr < 2; fr++) {
        mo_world *w = new_world(-9.81, 0.0);
        double mu = fr ? 0.5 : 0.0;
        mo_shape_def plane = shape_of(MO_SHAPE_PLANE, 0, 0, 0, 0, mu);
        add_body(w, MO_BODY_STATIC, (double[]){0, 0, 0}, NULL, NULL, NULL, 1.0, NULL, &plane);
        mo_shape_def sph = shape_of(MO_SHAPE_SPHERE, 0.1, 0, 0, 0, mu);
        mo_body_id s1 = add_body(w, MO_BODY_DYNAMIC, (double[]){0, 0, 0.105}, NULL, NULL, NULL, 1.0, NULL, &sph);
        mo_world_step(w);
        mo_contact c[4];
        int nct = mo_world_contacts(w, c, 4);
        mo_vec3 v;
        mo_body_linear_velocity(w, s1, &v);
        CHECK(nct == 1);
        CHECK_NEAR_L(c[0].impulse.x, 0.0, 1e-12, "hovering sphere, mu = %g: normal impulse", mu);
        CHECK_NEAR_L(v.z, -9.81 / 120.0, 1e-12, "hovering sphere, mu = %g: free fall", mu);
        mo_world_destroy(w);
    }
    printf("     (cone: %d inputs, %d inside, %d polar, %d boundary; max |P - brute| %.1e)\n", ncase, nin, npolar,
           nbd, worst);
    group_end("1c cone projection vs brute force");
}

int main(void)
{
    test_joint_rows();
    test_contact_rows();
    test_cone();
    test_solvers();
    return check_groups_result();
}
