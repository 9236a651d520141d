/* test_fclib_newton.c: the semismooth Newton solver of FCLIB local problems
 * (mo_fc_solve with MO_SOLVER_NEWTON, engine/fclib_newton.c).
 *
 *   1 one contact, W = diag(2, 1, 1), closed forms to 1e-12: sticking
 *     (r_T = -q_T, u = 0), sliding (u_N = 0, r_T = -mu r_N u_T/|u_T|) and
 *     take-off (r = 0, u = q), from r = (0.3, 0.1, 0); the histories (entry 0 the start, one per
 *     iteration) and the returned error.
 *   2 quadratic convergence: the Siconos error sequence on a shared problem
 *     with more than 8 contacts (the sparse LU path) ends with
 *     e_k+1 <= 10 e_k^2 on a step from e_k <= 1e-4 (each error printed).
 *   3 the 19 shared FCLIB / Siconos problems (MANIFEST.md) to Siconos error
 *     1e-6 from r = 0, each named, the error recomputed from the returned r. */
#include <dirent.h>
#include <float.h>

#include "moreau/fclib.h"
#include "fclib_shared.h"
#include "testutil.h"

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 62, 6)

static mo_fc_problem one_contact(const double *q, double mu)
{
    mo_fc_problem p;
    memset(&p, 0, sizeof p);
    p.nc = 1;
    p.W.rows = p.W.cols = p.W.nnz = 3;
    p.W.ptr = malloc(4 * sizeof(int));
    p.W.col = malloc(3 * sizeof(int));
    p.W.val = malloc(3 * sizeof(double));
    p.q = malloc(3 * sizeof(double));
    p.mu = malloc(sizeof(double));
    for (int i = 0; i < 3; i++) {
        p.W.ptr[i] = i;
        p.W.col[i] = i;
        p.W.val[i] = i == 0 ? 2.0 : 1.0;
        p.q[i] = q[i];
    }
    p.W.ptr[3] = 3;
    p.mu[0] = mu;
    return p;
}

static mo_solver_settings newton_settings(double tol, int max_it)
{
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_NEWTON;
    s.tolerance = tol;
    s.max_iterations = max_it;
    s.warm_start = false;
    return s;
}

static void test_one_contact(void)
{
    group_begin();
    const double mu = 0.5, ang = 0.3;
    struct {
        const char *name;
        double q[3], r[3], u[3];
    } cases[3] = {
        /* W_NN r_N = -q_N: r_N = 0.5; |q_T| = 0.112 <= mu r_N = 0.25: sticks */
        {"sticking", {-1.0, 0.1, 0.05}, {0.5, -0.1, -0.05}, {0, 0, 0}},
        /* |q_T| = 0.8 > 0.25: slides, r_T = -0.25 (cos, sin), u_T = 0.55 (cos, sin) */
        {"sliding", {-1.0, 0.8 * cos(ang), 0.8 * sin(ang)},
         {0.5, -0.25 * cos(ang), -0.25 * sin(ang)}, {0, 0.55 * cos(ang), 0.55 * sin(ang)}},
        /* q_N > 0: no contact force */
        {"take-off", {1.0, 0.3, -0.2}, {0, 0, 0}, {1.0, 0.3, -0.2}},
    };
    for (int c = 0; c < 3; c++) {
        mo_fc_problem p = one_contact(cases[c].q, mu);
        mo_solver_settings s = newton_settings(1e-14, 50);
        /* from a guess that is none of the three solutions */
        const double r0[3] = {0.3, 0.1, 0.0};
        double r[3] = {r0[0], r0[1], r0[2]}, u[3], eh[51], ch[51];
        mo_fc_result res;
        CHECK(mo_fc_solve(&p, &s, r, u, &res, eh, ch, NULL, 0) == MO_OK);
        CHECK(res.converged);
        CHECK(res.error <= 1e-14);
        CHECK_NEAR(res.error, mo_fc_error(&p, r, NULL), 1e-16);
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(r[i], cases[c].r[i], 1e-12);
            CHECK_NEAR(u[i], cases[c].u[i], 1e-12);
        }
        CHECK(res.history_count == res.iterations + 1);
        CHECK(res.iterations >= 1 && res.iterations <= 5);
        CHECK_NEAR(eh[0], mo_fc_error(&p, r0, NULL), 1e-16);
        CHECK_NEAR(eh[res.iterations], res.error, 1e-16);
        CHECK_NEAR(ch[res.iterations], res.ccp_residual, 1e-16);
        CHECK(res.ccp_residual <= 1e-14);
        printf("     %-9s r = (%.6f, %.6f, %.6f) u = (%.6f, %.6f, %.6f) in %d it, error %.1e\n", cases[c].name, r[0],
               r[1], r[2], u[0], u[1], u[2], res.iterations, res.error);
        mo_fc_free(&p);
    }
    group_end("1  one contact: sticking, sliding, take-off (closed forms)");
}

static void test_quadratic(void)
{
    group_begin();
    const char *name = "Spheres-i099-356-679.hdf5";
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", fclib_dir(), name);
    mo_fc_problem p;
    mo_status st = mo_fc_read(path, &p, err, sizeof err);
    if (st != MO_OK) {
        printf("     %s not read (%s): skipped\n", name, err);
        group_end("2  quadratic convergence (skipped: no data)");
        return;
    }
    mo_solver_settings s = newton_settings(1e-14, 50);
    double *r = calloc((size_t)(3 * p.nc), sizeof(double)), eh[51];
    mo_fc_result res;
    CHECK(mo_fc_solve(&p, &s, r, NULL, &res, eh, NULL, err, sizeof err) == MO_OK);
    printf("     %s (%d contacts), Siconos error per iteration:", name, p.nc);
    for (int k = 0; k < res.history_count; k++) printf(" %.1e", eh[k]);
    printf("\n");
    CHECK(res.converged);
    /* a quadratic step: from e_k <= 1e-4 to e_k+1 <= 10 e_k^2 */
    bool quadratic = false;
    for (int k = 0; k + 1 < res.history_count; k++)
        if (eh[k] <= 1e-4 && eh[k] > 1e-13 && eh[k + 1] <= 10.0 * eh[k] * eh[k]) quadratic = true;
    CHECK(quadratic);
    CHECK(res.iterations <= 12);
    free(r);
    mo_fc_free(&p);
    group_end("2  quadratic convergence on Spheres-i099 (356 contacts)");
}

static void test_shared_problems(void)
{
    group_begin();
    char *names[64];
    int n = fclib_list(names, 64);
    if (n < 0) {
        printf("     %s not found: shared problems skipped\n", fclib_dir());
        group_end("3  shared FCLIB problems (skipped: no data)");
        return;
    }
    CHECK(n == 19);
    int solved = 0;
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s", fclib_dir(), names[i]);
        mo_fc_problem p;
        mo_status st = mo_fc_read(path, &p, err, sizeof err);
        if (st == MO_ERR_UNSUPPORTED) {
            printf("     %-45s not read (%s)\n", names[i], err);
            free(names[i]);
            continue;
        }
        CHECK(st == MO_OK);
        if (st != MO_OK) {
            fprintf(stderr, "%s\n", err);
            free(names[i]);
            continue;
        }
        mo_solver_settings s = newton_settings(1e-6, 1000);
        double *r = calloc((size_t)(3 * p.nc) + 1, sizeof(double));
        mo_fc_result res;
        CHECK(mo_fc_solve(&p, &s, r, NULL, &res, NULL, NULL, err, sizeof err) == MO_OK);
        double again = mo_fc_error(&p, r, NULL);
        CHECK_NEAR(again, res.error, 1e-15);
        if (!(res.converged && again <= 1e-6))
            fprintf(stderr, "%s: not solved to 1e-6 (error %.3e after %d iterations)\n", names[i], again,
                    res.iterations);
        CHECK(res.converged && again <= 1e-6);
        solved += res.converged;
        total += res.seconds;
        printf("     %-45s %4d contacts: error %.2e after %4d Newton iterations, %8.3f ms\n", names[i], p.nc, again,
               res.iterations, 1e3 * res.seconds);
        free(r);
        mo_fc_free(&p);
        free(names[i]);
    }
    printf("     %d of %d shared problems solved to 1e-6, %.3f s of solves\n", solved, n, total);
    group_end("3  shared FCLIB problems at Siconos error 1e-6 (newton)");
}

int main(void)
{
    test_one_contact();
    test_quadratic();
    test_shared_problems();
    return check_groups_result();
}
