/* test_ops.c: the backend operations (solver/ops.h) and the solvers written
 * over them.
 *
 *   1 conformance: every operation of the CPU backend against a plain
 *     reference on steps of the built-in scenes: N x against N formed densely
 *     from J, M^-1 J^T and Sigma (1e-12 relative), the projection, D^-1 and
 *     the residuals against the problem's block functions, the vector updates
 *     and sums against the arithmetic ops.h states (bit for bit). The same
 *     routine takes any backend's ops (a device's: to rounding).
 *   2 the same iterates as before the ops: Jacobi, APGD and P-SPG-FB under
 *     their settings variants against their host implementations from before
 *     (tests/reference/solvers_v0.c) on steps of stack20, heavy_stack,
 *     pile1000 and chain1000 and on the shared FCLIB problems: impulses,
 *     velocities, both residual histories, iteration counts and convergence
 *     identical bit for bit, with and without the outer Coulomb updates'
 *     shifted problem.
 *   3 the solver table: every kind has one row; unknown kinds none and a
 *     sentence; position-level rows have no velocity entry; the flags the
 *     engine reads are the behaviour (facets, scaling, FEM refusal). */
#include "ops_check.h"
#include "reference/solvers_v0.h"


/* ---- 2 iterates against the pre-ops solvers ---- */

static int compared = 0;

static void compare(const char *cname, const char *variant, mo_solver_fn now, mo_solver_fn before,
                    const mo_problem *p, const mo_solver_settings *s, const double *gamma0)
{
    solved a, b;
    solve_on(NULL, now, p, s, gamma0, &a);
    solve_on(NULL, before, p, s, gamma0, &b);
    bool ok = a.o.iterations == b.o.iterations && a.o.converged == b.o.converged &&
              a.o.hist_count == b.o.hist_count && same(a.gamma, b.gamma, p->m) && same(a.v, b.v, p->n) &&
              same(a.rh, b.rh, a.o.hist_count) && same(a.eh, b.eh, a.o.hist_count) &&
              !memcmp(&a.o.residual, &b.o.residual, sizeof(double)) &&
              !memcmp(&a.o.coulomb_error, &b.o.coulomb_error, sizeof(double));
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s, %s: ops %d it res %.17g, before %d it res %.17g, gamma rel diff %.3g\n", cname,
                variant, a.o.iterations, a.o.residual, b.o.iterations, b.o.residual, rel_diff(a.gamma, b.gamma, p->m));
    compared++;
    solved_free(&a);
    solved_free(&b);
}

static void compare_all(const tcase *c, const mo_problem *p, const char *form)
{
    char cname[160];
    snprintf(cname, sizeof cname, "%s (%s)", c->name, form);
    mo_solver_settings s = mo_default_solver_settings();
    s.max_iterations = 40;
    /* Jacobi: omega 1 and 0.6 with a tolerance */
    compare(cname, "jacobi", mo_solver_jacobi, ref_solver_jacobi, p, &s, c->gamma0);
    mo_solver_settings t = s;
    t.omega = 0.6;
    t.tolerance = 1e-6;
    compare(cname, "jacobi omega 0.6 tol 1e-6", mo_solver_jacobi, ref_solver_jacobi, p, &t, c->gamma0);
    /* APGD: each step-size rule and switch */
    compare(cname, "apgd", mo_solver_apgd, ref_solver_apgd, p, &s, c->gamma0);
    const mo_apgd_rho rhos[] = {MO_RHO_NORM, MO_RHO_SMALLER, MO_RHO_NORMAL, MO_RHO_ACARY};
    for (int k = 0; k < 4; k++) {
        t = s;
        t.apgd.rho = rhos[k];
        compare(cname, "apgd rho rule", mo_solver_apgd, ref_solver_apgd, p, &t, c->gamma0);
    }
    t = s;
    t.apgd.adaptive_rho = false;
    compare(cname, "apgd backtracking", mo_solver_apgd, ref_solver_apgd, p, &t, c->gamma0);
    t.apgd.restart = false;
    t.tolerance = 1e-5;
    compare(cname, "apgd no restart tol 1e-5", mo_solver_apgd, ref_solver_apgd, p, &t, c->gamma0);
    /* SPG: both step rules, tau_g, no preconditioner */
    compare(cname, "spg", mo_solver_spg, ref_solver_spg, p, &s, c->gamma0);
    t = s;
    t.spg.step_rule = MO_SPG_ABBMIN;
    compare(cname, "spg abbmin", mo_solver_spg, ref_solver_spg, p, &t, c->gamma0);
    t = s;
    t.spg.tau_g = 1e-3;
    t.spg.preconditioner = false;
    compare(cname, "spg tau_g, no preconditioner", mo_solver_spg, ref_solver_spg, p, &t, c->gamma0);
}

/* the outer Coulomb updates' problem: r shifted by mu |u_t| of the warm start, Coulomb stopping */
static void compare_shifted(const tcase *c)
{
    const mo_problem *p = &c->p;
    const int m = p->m;
    double *u = malloc(((size_t)m + 1) * sizeof(double)), *shift = calloc((size_t)m + 1, sizeof(double));
    double *rbar = malloc(((size_t)m + 1) * sizeof(double));
    double *work = malloc((mo_problem_apply_work(p) + 1) * sizeof(double));
    mo_problem_u(p, c->gamma0, u, work);
    for (int k = 0; k < p->nblocks; k++)
        if (p->block_kind[k] == MO_BLOCK_CONTACT) {
            int r0 = p->block_row[k];
            shift[r0] = p->block_mu[k] * hypot(u[r0 + 1], u[r0 + 2]);
        }
    for (int i = 0; i < m; i++) rbar[i] = p->r[i] + shift[i];
    mo_problem q = *p;
    q.r = rbar;
    q.shift = shift;
    q.stop_coulomb = true;
    q.inner_ccp_stop = 1e-9;
    compare_all(c, &q, "shifted, Coulomb stop");
    free(u);
    free(shift);
    free(rbar);
    free(work);
}

/* ---- 3 the table ---- */

static void test_table(void)
{
    for (int k = 0; k < MO_SOLVER_COUNT; k++) {
        const mo_solver_row *r = mo_solver_row_of((mo_solver_kind)k);
        CHECK(r != NULL && r->name && r->name[0]);
        mo_solver_kind back;
        CHECK(mo_solver_from_name(r->name, &back) && back == (mo_solver_kind)k);
        CHECK(mo_solver_caps((mo_solver_kind)k) == r->caps && (r->caps & MO_SOLVER_CAP_CPU));
        /* a velocity entry exactly when the row is not position-level */
        CHECK((r->solve == NULL) == ((r->caps & MO_SOLVER_CAP_POSITION) != 0));
        /* the CUDA flag only on solvers written over the ops (newton: its inner linear solves; cg and minres:
         * their solves of joints alone, krylov_ops.c) */
        if (r->caps & MO_SOLVER_CAP_CUDA)
            CHECK(r->solve == mo_solver_jacobi || r->solve == mo_solver_apgd || r->solve == mo_solver_spg ||
                  r->solve == mo_solver_cg || r->solve == mo_solver_minres || (mo_solver_kind)k == MO_SOLVER_NEWTON);
    }
    CHECK(mo_solver_row_of((mo_solver_kind)MO_SOLVER_COUNT) == NULL && mo_solver_row_of((mo_solver_kind)-1) == NULL);
    CHECK(mo_solver_caps((mo_solver_kind)99) == 0 && !strcmp(mo_solver_name((mo_solver_kind)99), "?"));
    CHECK(!mo_solver_available((mo_solver_kind)99));
    /* an unknown kind is refused with a sentence, never run as another solver */
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = (mo_solver_kind)99;
    char err[256] = "";
    CHECK(mo_solver_check(&s, err, sizeof err) == 0);
    CHECK(!strcmp(err, "solver kind 99 is not a known solver"));
    mo_world_def d = mo_default_world_def();
    d.solver.kind = (mo_solver_kind)99;
    mo_world *w = NULL;
    CHECK(mo_world_create(&d, &w, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && w == NULL);
    /* mo_solve with a kind without a velocity entry solves nothing */
    double g[3] = {1, 2, 3};
    mo_solve_out o;
    memset(&o, 0, sizeof o);
    o.gamma = g;
    mo_problem p;
    memset(&p, 0, sizeof p);
    s.kind = MO_SOLVER_NEWTON;
    mo_solve(&p, &s, &o);
    CHECK(o.iterations == 0 && !o.converged && isnan(o.residual) && g[0] == 1 && g[2] == 3);
    /* the flags are the behaviour: FEM needs the FEM flag */
    for (int k = 0; k < MO_SOLVER_COUNT; k++) {
        d = mo_default_world_def();
        d.solver.kind = (mo_solver_kind)k;
        if (!mo_solver_available((mo_solver_kind)k) || mo_world_create(&d, &w, NULL, 0) != MO_OK) continue;
        mo_fem_mesh_def fd = mo_default_fem_mesh_def();
        const mo_vec3 nodes[4] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {0, 0, 2}};
        const int tets[4] = {0, 1, 2, 3};
        const mo_fem_material_def mat = {1e5, 0.3, 1000.0, MO_FEM_COROTATIONAL};
        fd.materials = &mat;
        fd.material_count = 1;
        fd.nodes = nodes;
        fd.node_count = 4;
        fd.tets = tets;
        fd.tet_count = 1;
        mo_fem_mesh_id id;
        bool made = mo_fem_mesh_create(w, &fd, &id) == MO_OK;
        CHECK(made == ((mo_solver_caps((mo_solver_kind)k) & MO_SOLVER_CAP_FEM) != 0));
        mo_world_destroy(w);
        w = NULL;
    }
}

int main(void)
{
    test_table();
    /* scenes */
    const struct {
        const char *scene;
        int steps;
    } scenes[] = {{"stack20", 30}, {"heavy_stack", 30}, {"pile1000", 150}, {"chain1000", 5}};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        tcase c;
        if (!scene_case(&c, scenes[i].scene, scenes[i].steps)) {
            CHECK(!"scene case");
            case_free(&c);
            continue;
        }
        printf("%s: %d rows, %d blocks\n", c.name, c.p.m, c.p.nblocks);
        CHECK(c.p.m > 0);
        mo_solve_out o;
        memset(&o, 0, sizeof o);
        size_t ss = mo_solver_scratch_size(&c.p);
        o.scratch = malloc(ss * sizeof(double));
        o.gamma = malloc(((size_t)c.p.m + 1) * sizeof(double));
        mo_ops ops;
        mo_ops_cpu(&ops, &c.p, &o, 4);
        if (c.p.m <= 4000) conformance(&ops, c.name, 0.0);
        free(o.scratch);
        free(o.gamma);
        compare_all(&c, &c.p, "J form");
        if (i < 2) compare_shifted(&c);
        case_free(&c);
    }
    /* the shared FCLIB problems (explicit N) */
    char *names[64];
    int nf = fclib_list(names, 64);
    if (nf < 0) {
        printf("FCLIB folder %s absent: the explicit-form half is not run\n", fclib_dir());
    }
    int nfc = 0;
    for (int i = 0; i < nf; i++) {
        tcase c;
        if (fclib_case(&c, names[i], 3000)) {
            nfc++;
            mo_solve_out o;
            memset(&o, 0, sizeof o);
            o.scratch = malloc(mo_solver_scratch_size(&c.p) * sizeof(double));
            o.gamma = c.gamma0;
            mo_ops ops;
            mo_ops_cpu(&ops, &c.p, &o, 4);
            conformance(&ops, c.name, 0.0);
            free(o.scratch);
            compare_all(&c, &c.p, "explicit");
            if (nfc <= 3) compare_shifted(&c);
        }
        case_free(&c);
        free(names[i]);
    }
    printf("%d solves compared with the pre-ops solvers (%d FCLIB problems), %d checks\n", compared, nfc, check_count);
    if (nf >= 0) CHECK(nfc >= 10);
    return check_result("ops");
}
