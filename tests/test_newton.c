/* test_newton.c: the non-smooth Newton solver (MO_SOLVER_NEWTON, issue 7;
 * SOLVERS.md B, engine/step_newton.c, engine/solver_newton.c).
 *
 *   1 NCP functions: Fischer-Burmeister and minimum map against central
 *     differences, FB's choice at (0, 0), both zero exactly on complementarity.
 *   2 contact rows: the normal NCP row (both NCP functions, both sides of the
 *     minimum map's kink) and the friction rows (W frozen, as the Newton step
 *     linearises them) against central differences of the row residuals in
 *     (v+, lambda), the positions moving with q+ = q + h G(q+) v+.
 *   3 joint rows of every joint type (fixed, spherical, revolute with limits and
 *     a velocity motor, prismatic, distance, distance with limits) the same way;
 *     the weld's rotation-vector rows are first-order (docs/newton.md): tolerance
 *     |theta| there, 1e-6 relative elsewhere.
 *   4 incline: a box on a 30 degree slope sticks with mu = 0.7 > tan 30 and
 *     slides with mu = 0.3 at a = g (sin - mu cos) within 1 %; near the
 *     cone's edge (mu = tan 30 -+ 0.05) it slides at that a within 1 %, and
 *     with + 0.05 moves < 5 mm in 1 s (it creeps 3.8 mm: 12 Newton
 *     iterations with the W averaging across the edge; 24 leave 1 mm).
 *   5 heavy stack 1:512 for 2 s stands with Newton (top within 1 cm) where PGS
 *     given at least Newton's wall time per step collapses.
 *   6 complementarity preconditioning vs identity scaling on the heavy stack:
 *     lower Newton residual for the same budget (the paper's Fig. 18).
 *   7 settings refused with their sentences (world unchanged); mo_fc_solve
 *     refuses newton; statistics per Newton and per inner iteration.
 *   8 the sparse Cholesky inner solver: exact inner solves, the same step as
 *     PCR run to 1e-13.
 *   9 a sphere rolling without slip stays on its plane and rolls on (the
 *     contact point of a round side moves with the body's translation only).
 *  10 a damper-dominated drive brakes a spinning body as implicit Euler does
 *     inside its force bound and at max_force / I at it, each step converged
 *     (the box row's minimum map scaled by its whole diagonal).
 *  11 the Cholesky solver's primal form (K = M~ + h^2 J^T D^-1 J, Woodbury,
 *     with refinement) solves the Schur system exactly: on a hand-built system
 *     (a rigid body and a particle, a stiff row of cd 1e-9, a zeroed row) both
 *     forms equal a dense solve; a cantilever of tetrahedra (where the primal
 *     form is the one chosen) takes the same step as with PCR run to 1e-13.
 *  12 step halving: with a threshold no step meets, halving 1 (2) deep gives
 *     the state of 2 (4) substeps to 1e-12 with 1 (3) halvings per step; with
 *     one every step meets, the run is bit for bit the run without halving;
 *     the same exactness on an FEM slab with moving fixed nodes, an
 *     attachment and a box on its surface. */
#include <float.h>
#include "testutil.h"
#include "scenes_builtin.h"
#include "step/step.h"
#include "solver/newton.h"
#include "moreau/fclib.h"
#include "../tools/fem_box.h"

#define group_begin check_group_begin
#define group_end(name) check_group_end(name, 70, 6)

static mo_solver_settings newton_settings(void)
{
    mo_solver_settings s = mo_default_solver_settings();
    s.kind = MO_SOLVER_NEWTON;
    return s;
}

/* ---- 1 NCP functions ---- */

static void test_ncp(void)
{
    group_begin();
    uint64_t seed = 7;
    double worst = 0.0;
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 200; i++) {
            double a = sm64_uniform(&seed, -2, 2), b = sm64_uniform(&seed, -2, 2);
            if (f == MO_NCP_MIN_MAP && fabs(a - b) < 1e-3) continue; /* the kink */
            mo_ncp_val v = mo_ncp_eval((mo_ncp_function)f, a, b);
            const double d = 1e-6;
            double fa = (mo_ncp_eval((mo_ncp_function)f, a + d, b).phi - mo_ncp_eval((mo_ncp_function)f, a - d, b).phi) / (2 * d);
            double fb = (mo_ncp_eval((mo_ncp_function)f, a, b + d).phi - mo_ncp_eval((mo_ncp_function)f, a, b - d).phi) / (2 * d);
            worst = fmax(worst, fmax(fabs(fa - v.da), fabs(fb - v.db)));
        }
    printf("     NCP derivatives vs central differences: worst %.1e\n", worst);
    CHECK(worst < 1e-8);
    mo_ncp_val z = mo_ncp_eval(MO_NCP_FISCHER_BURMEISTER, 0, 0);
    CHECK(z.phi == 0.0);
    CHECK_NEAR(z.da, 1 - 1 / sqrt(2), 1e-15);
    CHECK_NEAR(z.db, 1 - 1 / sqrt(2), 1e-15);
    /* zero exactly on complementarity, non-zero off it */
    for (int f = 0; f < 2; f++) {
        CHECK(mo_ncp_eval((mo_ncp_function)f, 0.0, 3.0).phi == 0.0);
        CHECK(mo_ncp_eval((mo_ncp_function)f, 2.0, 0.0).phi == 0.0);
        CHECK(mo_ncp_eval((mo_ncp_function)f, 1.0, 1.0).phi > 0.0);
        CHECK(mo_ncp_eval((mo_ncp_function)f, -1.0, 1.0).phi < 0.0);
    }
    /* friction W: 0 when sticking inside the cone, |Dv| / (mu ln) when sliding on its edge */
    for (int f = 0; f < 2; f++) {
        CHECK(mo_newton_friction_w((mo_ncp_function)f, 0.0, 10.0, 2.0, 0.5, 0.3) == 0.0);
        CHECK_NEAR(mo_newton_friction_w((mo_ncp_function)f, 0.4, 10.0, 5.0, 0.5, 0.3), 0.4 / 5.0, 1e-15);
    }
    group_end("1  NCP functions: derivatives, (0,0) choice, zeros");
}

/* ---- finite-difference check of the rows of a world's first step ---- */

typedef struct fd_report {
    double worst[4];     /* per row type: largest |FD - analytic| / (|analytic| + scale) */
    int count[4];
    double worst_weld;   /* the weld's angular rows, separately */
} fd_report;

/* predict, collide, assemble the world's next step, then compare the
 * directional derivative of every row's residual with central differences at
 * (v, lambda): v random linear, zero angular (the Cayley map's derivative is
 * the identity there), lambda given. weld_rows: rows (by index) to report
 * apart; NULL none. */
static void fd_check(mo_world *w, const mo_newton_settings *ns, const double *lam_in, uint64_t *seed,
                     const int *weld_rows, int nweld, fd_report *rep)
{
    CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
    CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
    mo_problem p;
    CHECK(mo_step_assemble(MO_STEP_CTX(w), &p) == 0);
    int n = p.n, m = p.m, nc = w->ncontacts;
    double *v = calloc((size_t)n + 1, sizeof(double)), *dv = calloc((size_t)n + 1, sizeof(double));
    double *vp = calloc((size_t)n + 1, sizeof(double)), *vm = calloc((size_t)n + 1, sizeof(double));
    double *lam = calloc((size_t)m + 1, sizeof(double)), *dl = calloc((size_t)m + 1, sizeof(double));
    double *lp = calloc((size_t)m + 1, sizeof(double)), *lm = calloc((size_t)m + 1, sizeof(double));
    double *g = calloc((size_t)m + 1, sizeof(double)), *dg = calloc((size_t)m + 1, sizeof(double));
    double *gp = calloc((size_t)m + 1, sizeof(double)), *gm = calloc((size_t)m + 1, sizeof(double));
    double *tmp = calloc((size_t)m + 1, sizeof(double)), *wf = calloc((size_t)(m + nc) + 1, sizeof(double));
    uint8_t *type = calloc((size_t)m + 1, 1);
    for (int i = 0; i < n; i++) {
        v[i] = (i % 6) < 3 ? sm64_uniform(seed, -0.3, 0.3) : 0.0;
        dv[i] = sm64_uniform(seed, -1, 1);
    }
    for (int r = 0; r < m; r++) {
        lam[r] = lam_in[r];
        dl[r] = sm64_uniform(seed, -1, 1);
    }
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, ns, v, lam, dv, dl, NULL, wf, g, dg, type) == 0);
    const double d = 1e-6;
    for (int i = 0; i < n; i++) { vp[i] = v[i] + d * dv[i]; vm[i] = v[i] - d * dv[i]; }
    for (int r = 0; r < m; r++) { lp[r] = lam[r] + d * dl[r]; lm[r] = lam[r] - d * dl[r]; }
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, ns, vp, lp, dv, dl, wf, NULL, gp, tmp, type) == 0);
    CHECK(mo_newton_probe(MO_STEP_CTX(w), &p, ns, vm, lm, dv, dl, wf, NULL, gm, tmp, type) == 0);
    for (int r = 0; r < m; r++) {
        double fd = (gp[r] - gm[r]) / (2 * d);
        double scale = 1e-3 * (1.0 + fabs(dg[r]));
        double e = fabs(fd - dg[r]) / (fabs(dg[r]) + scale);
        bool weld = false;
        for (int k = 0; k < nweld; k++) weld |= weld_rows[k] == r;
        if (weld) {
            if (e > rep->worst_weld) rep->worst_weld = e;
        } else {
            if (e > rep->worst[type[r]]) rep->worst[type[r]] = e;
            rep->count[type[r]]++;
        }
    }
    free(v); free(dv); free(vp); free(vm); free(lam); free(dl); free(lp); free(lm);
    free(g); free(dg); free(gp); free(gm); free(tmp); free(wf); free(type);
}

static mo_body_id make_box(mo_world *w, double x, double y, double z, const double *axis, double ang, double mass,
                           double hx)
{
    mo_body_def d = mo_default_body_def();
    d.shape.type = MO_SHAPE_BOX;
    d.shape.half_extents = (mo_vec3){hx, hx, hx};
    d.shape.friction = 0.5;
    d.mass = mass;
    d.position = (mo_vec3){x, y, z};
    double s = sin(ang / 2), l = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    d.orientation = (mo_quat){cos(ang / 2), s * axis[0] / l, s * axis[1] / l, s * axis[2] / l};
    mo_body_id id;
    CHECK(mo_body_create(w, &d, &id) == MO_OK);
    return id;
}

/* ---- 2 contact rows ---- */

static void test_fd_contacts(void)
{
    group_begin();
    uint64_t seed = 11;
    for (int f = 0; f < 2; f++)
        for (int side = 0; side < 2; side++) {
            mo_world_def wd = mo_default_world_def();
            wd.solver = newton_settings();
            wd.solver.newton.ncp = (mo_ncp_function)f;
            mo_world *w = world_or_exit(&wd, "world: ", 1);
            mo_body_def gd = mo_default_body_def();
            gd.type = MO_BODY_STATIC;
            gd.shape.type = MO_SHAPE_PLANE;
            gd.shape.friction = 0.5;
            mo_body_id gid;
            CHECK(mo_body_create(w, &gd, &gid) == MO_OK);
            static const double ax[3] = {0.3, -0.2, 1.0};
            make_box(w, 0, 0, 0.199, ax, 0.4, 2.0, 0.2);          /* on the ground, 1 mm in */
            make_box(w, 0.05, 0.02, 0.5985, ax, 0.45, 5.0, 0.2); /* on the first box, in contact */
            CHECK(mo_step_predict(MO_STEP_CTX(w)) == 0);
            CHECK(mo_step_collide(MO_STEP_CTX(w)) == 0);
            int nc = w->ncontacts;
            CHECK(nc >= 5);
            int m = 3 * nc;
            double *lam = calloc((size_t)m, sizeof(double));
            /* side 0: forces well on (the minimum map on its constraint side); side 1: tiny normal forces
               (its multiplier side), friction inside and outside the cone */
            for (int c = 0; c < nc; c++) {
                lam[3 * c] = side == 0 ? 20.0 + c : 1e-4 * (1 + c);
                lam[3 * c + 1] = side == 0 ? 3.0 * (c % 3 - 1) : 0.0;
                lam[3 * c + 2] = side == 0 ? 12.0 * (c % 2) : 0.0;
            }
            fd_report rep;
            memset(&rep, 0, sizeof rep);
            fd_check(w, &wd.solver.newton, lam, &seed, NULL, 0, &rep);
            printf("     %s, %s: normal rows %d worst rel %.1e; friction rows %d worst rel %.1e\n",
                   f ? "min map" : "Fischer-Burmeister", side ? "lambda_n ~ 0" : "lambda_n > 0", rep.count[MO_NROW_NCP],
                   rep.worst[MO_NROW_NCP], rep.count[MO_NROW_FRICTION], rep.worst[MO_NROW_FRICTION]);
            CHECK(rep.count[MO_NROW_NCP] == nc);
            CHECK(rep.worst[MO_NROW_NCP] < 1e-6);
            CHECK(rep.worst[MO_NROW_FRICTION] < 1e-6);
            free(lam);
            mo_world_destroy(w);
        }
    group_end("2  contact normal (FB, min map) and friction rows: Jacobians vs FD");
}

/* ---- 3 joint rows ---- */

static void test_fd_joints(void)
{
    group_begin();
    uint64_t seed = 23;
    static const char *names[] = {"fixed", "spherical", "revolute+limits+motor", "prismatic", "distance",
                                  "distance+limits"};
    for (int t = 0; t < 6; t++) {
        mo_world_def wd = mo_default_world_def();
        wd.solver = newton_settings();
        wd.joint_compliance = 1e-6;
        mo_world *w = world_or_exit(&wd, "world: ", 1);
        static const double ax[3] = {0.2, 1.0, -0.4}, bx[3] = {-0.5, 0.1, 1.0};
        mo_body_id a = make_box(w, 0, 0, 2, ax, 0.3, 2.0, 0.1);
        mo_body_id b = make_box(w, 0.5, 0.1, 2.1, bx, -0.7, 3.0, 0.1);
        mo_joint_def jd = mo_default_joint_def();
        jd.body_a = a;
        jd.body_b = b;
        jd.anchor_a = (mo_vec3){0.25, 0.05, 0.05};
        jd.anchor_b = (mo_vec3){-0.2, 0.0, -0.05};
        jd.axis_a = (mo_vec3){0.3, 0.2, 1.0};
        jd.axis_b = (mo_vec3){0.1, -0.4, 1.0};
        jd.type = t == 0 ? MO_JOINT_FIXED : t == 1 ? MO_JOINT_SPHERICAL : t == 2 ? MO_JOINT_REVOLUTE
                : t == 3 ? MO_JOINT_PRISMATIC : MO_JOINT_DISTANCE;
        if (t == 2) {
            jd.enable_limit = true;
            jd.lower = -0.5;
            jd.upper = 0.5;
            jd.motor = MO_MOTOR_VELOCITY;
            jd.target_velocity = 0.7;
            jd.max_force = 50.0;
        }
        if (t == 5) {
            jd.enable_limit = true;
            jd.lower = 0.2;
            jd.upper = 0.4;
        }
        mo_joint_id j = joint_or_exit(w, &jd, "joint: ", 1);
        /* move B a little so that every row has an error (the rows were set up at creation) */
        mo_vec3 pb;
        mo_quat qb;
        mo_body_position(w, b, &pb);
        mo_body_orientation(w, b, &qb);
        double e = 2e-3, n = sqrt(1 + 3 * e * e / 4);
        mo_quat q2 = {qb.w, qb.x, qb.y, qb.z}, dq = {1 / n, 0.5 * e / n, -0.5 * e / n, 0.5 * e / n};
        q2 = (mo_quat){dq.w * qb.w - dq.x * qb.x - dq.y * qb.y - dq.z * qb.z,
                       dq.w * qb.x + dq.x * qb.w + dq.y * qb.z - dq.z * qb.y,
                       dq.w * qb.y - dq.x * qb.z + dq.y * qb.w + dq.z * qb.x,
                       dq.w * qb.z + dq.x * qb.y - dq.y * qb.x + dq.z * qb.w};
        CHECK(mo_body_set_pose(w, b, (mo_vec3){pb.x + 3e-3, pb.y - 2e-3, pb.z + 1e-3}, q2) == MO_OK);
        mo_joint *jj = mo_joint_get(w, j);
        int nr = mo_joint_row_count(jj);
        double lam[16];
        for (int r = 0; r < nr; r++) lam[r] = 5.0 * (r + 1) * (r % 2 ? -1 : 1);
        if (t == 5) { lam[0] = 0.0; lam[1] = 4.0; }
        if (t == 2) { lam[5] = 3.0; lam[6] = 0.0; lam[7] = 10.0; }
        int weld[3] = {3, 4, 5}, nweld = (t == 0 || t == 3) ? 3 : 0;
        if (t == 3) { weld[0] = 2; weld[1] = 3; weld[2] = 4; }
        fd_report rep;
        memset(&rep, 0, sizeof rep);
        fd_check(w, &wd.solver.newton, lam, &seed, weld, nweld, &rep);
        printf("     %-22s rows: bilateral %d worst rel %.1e, limits %d %.1e, motor %d %.1e%s", names[t],
               rep.count[MO_NROW_BILATERAL], rep.worst[MO_NROW_BILATERAL], rep.count[MO_NROW_NCP],
               rep.worst[MO_NROW_NCP], rep.count[MO_NROW_BOX], rep.worst[MO_NROW_BOX], nweld ? "" : "\n");
        if (nweld) printf(", weld angular 3 %.1e\n", rep.worst_weld);
        CHECK(rep.count[MO_NROW_BILATERAL] + rep.count[MO_NROW_NCP] + rep.count[MO_NROW_BOX] + nweld == nr);
        CHECK(rep.worst[MO_NROW_BILATERAL] < 1e-6);
        /* the hinge angle's limit rows (angular rows about A's axis) are exact when the two axes are aligned;
           here B's axis is 2e-3 rad off, which shows at 5e-6 */
        CHECK(rep.worst[MO_NROW_NCP] < (t == 2 ? 1e-4 : 1e-6));
        CHECK(rep.worst[MO_NROW_BOX] < 1e-6);
        CHECK(rep.worst_weld < 2e-2); /* first-order rows: error ~ |theta| / 2 ~ 2e-3 of the row, more relative to small rows */
        mo_world_destroy(w);
    }
    group_end("3  joint rows of every type: Jacobians vs FD");
}

/* ---- 4 incline ---- */

/* a box on a plane tilted by th about x, released at rest; returns its displacement along the slope
   (down positive) after `steps` steps and its speed along the slope */
static void incline(const mo_solver_settings *s, double mu, double th, int steps, double *dist, double *speed)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver = *s;
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    mo_body_def gd = mo_default_body_def();
    gd.type = MO_BODY_STATIC;
    gd.shape.type = MO_SHAPE_PLANE;
    gd.shape.friction = mu;
    gd.orientation = (mo_quat){cos(th / 2), sin(th / 2), 0, 0};
    mo_body_id gid;
    CHECK(mo_body_create(w, &gd, &gid) == MO_OK);
    /* slope normal (0, -sin, cos); down the slope: (0, -cos, -sin) */
    double nrm[3] = {0, -sin(th), cos(th)}, down[3] = {0, -cos(th), -sin(th)};
    mo_body_def d = mo_default_body_def();
    d.shape.type = MO_SHAPE_BOX;
    d.shape.half_extents = (mo_vec3){0.2, 0.2, 0.1};
    d.shape.friction = mu;
    d.orientation = gd.orientation;
    d.position = (mo_vec3){0, 0.1 * nrm[1], 0.1 * nrm[2]};
    mo_body_id b;
    CHECK(mo_body_create(w, &d, &b) == MO_OK);
    for (int i = 0; i < steps; i++) CHECK(mo_world_step(w) == MO_OK);
    mo_vec3 p, v;
    mo_body_position(w, b, &p);
    mo_body_linear_velocity(w, b, &v);
    double dp[3] = {p.x - d.position.x, p.y - d.position.y, p.z - d.position.z}, vv[3] = {v.x, v.y, v.z};
    *dist = dot3(dp, down);
    *speed = dot3(vv, down);
    mo_world_destroy(w);
}

static void test_incline(void)
{
    group_begin();
    const double th = PI / 6, g = 9.81;
    mo_solver_settings s = newton_settings();
    for (int f = 0; f < 2; f++) {
        s.newton.ncp = (mo_ncp_function)f;
        double dist, speed;
        incline(&s, 0.7, th, 120, &dist, &speed);
        printf("     %s, mu 0.7 > tan 30 = 0.577: moved %.2e m, speed %.2e m/s after 1 s\n", f ? "min map" : "FB",
               dist, speed);
        CHECK(fabs(dist) < 1e-3);
        CHECK(fabs(speed) < 1e-3);
        const double mu = 0.3, a = g * (sin(th) - mu * cos(th));
        incline(&s, mu, th, 120, &dist, &speed);
        printf("     %s, mu 0.3: speed %.4f m/s after 1 s (a t = %.4f), distance %.4f m (a t^2/2 = %.4f)\n",
               f ? "min map" : "FB", speed, a, dist, 0.5 * a);
        CHECK(fabs(speed - a) < 0.01 * a);
        CHECK(fabs(dist - 0.5 * a) < 0.02 * 0.5 * a + 0.5 * a / 120); /* backward Euler positions: a t h / 2 */
    }
    /* near the cone's edge, mu = tan 30 -+ 0.05 (catalogue incline.lua): the W fixed point used to cycle
       across the edge there and the block never slid; now it slides at g (sin - mu cos) and the other sticks */
    s.newton.ncp = MO_NCP_FISCHER_BURMEISTER;
    const double mu_lo = tan(th) - 0.05, mu_hi = tan(th) + 0.05, a_lo = g * (sin(th) - mu_lo * cos(th));
    double dist, speed;
    incline(&s, mu_lo, th, 120, &dist, &speed);
    printf("     FB, mu tan 30 - 0.05: speed %.4f m/s after 1 s (a t = %.4f), distance %.4f m\n", speed, a_lo, dist);
    CHECK(fabs(speed - a_lo) < 0.01 * a_lo);
    incline(&s, mu_hi, th, 120, &dist, &speed);
    printf("     FB, mu tan 30 + 0.05: moved %.2e m, speed %.2e m/s after 1 s\n", dist, speed);
    CHECK(fabs(dist) < 5e-3); /* creeps 3.8 mm (docs/newton.md: the W averaging at 12 iterations) */
    group_end("4  incline: sticks above tan(theta), slides at g(sin - mu cos) below");
}

/* ---- 5 heavy stack: Newton stands, PGS at the same wall time does not ---- */

static mo_world *build_scene(const char *name, const mo_solver_settings *s, mo_scene *sc)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver = *s;
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    char err[256];
    if (mo_scene_build(name, w, sc, err, sizeof err) != MO_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    CHECK(mo_world_set_solver(w, s) == MO_OK);
    return w;
}

/* runs steps of the scene; returns the wall time per step (s); top box motion and penetration out */
static double run_stack(const mo_solver_settings *s, int steps, double *dxy, double *dz, double *pen)
{
    mo_scene sc;
    mo_world *w = build_scene("heavy_stack", s, &sc);
    int nan = 0;
    double t0 = mo_now();
    for (int i = 0; i < steps; i++) {
        mo_world_step(w);
        nan += mo_world_last_stats(w).nan_warnings;
    }
    double t = (mo_now() - t0) / steps;
    CHECK(nan == 0);
    mo_scene_stack_top(w, &sc, dxy, dz);
    *pen = mo_scene_stack_penetration(w, &sc);
    mo_scene_free(&sc);
    mo_world_destroy(w);
    return t;
}

static void test_heavy_stack(void)
{
    group_begin();
    const int steps = 240;
    double dxy, dz, pen;
    mo_solver_settings s = newton_settings();
    s.tolerance = 1e-6; /* m: Newton stops once its residual is 1 micrometre */
    double tn = run_stack(&s, steps, &dxy, &dz, &pen);
    printf("     newton (<= %d x %d PCR, tolerance 1e-6 m): %.3f ms/step; top moved %.2e m sideways, %.2e m vertically; penetration %.2e m\n",
           s.newton.iterations, s.newton.linear_iterations, 1e3 * tn, dxy, dz, pen);
    CHECK(hypot(dxy, dz) < 1e-2);
    CHECK(pen < 1e-3);
    /* PGS with at least Newton's wall time per step: sweeps first scaled from a timed run at 50 sweeps, then
       raised until the whole run takes at least Newton's time per step (the run that is asserted) */
    mo_solver_settings pg = mo_default_solver_settings();
    pg.max_iterations = 50;
    double tp = run_stack(&pg, steps, &dxy, &dz, &pen);
    int sweeps = (int)ceil(50.0 * tn / tp);
    if (sweeps < 1) sweeps = 1;
    for (int k = 0; k < 10; k++) {
        pg.max_iterations = sweeps;
        tp = run_stack(&pg, steps, &dxy, &dz, &pen);
        if (tp >= tn) break;
        sweeps = (int)ceil(1.2 * sweeps * tn / tp);
    }
    printf("     pgs %d sweeps: %.3f ms/step; top moved %.2e m sideways, %.2e m vertically; penetration %.2e m\n", sweeps,
           1e3 * tp, dxy, dz, pen);
    CHECK(tp >= tn);
    CHECK(hypot(dxy, dz) > 1e-2); /* does not stand: the top box leaves the 1 cm Newton keeps */
    group_end("5  heavy stack 1:512: Newton stands, PGS at Newton's wall time does not");
}

/* ---- 6 complementarity preconditioning (Fig. 18) ---- */

/* mean final Newton residual over `steps` steps of the heavy stack from a standing state reached with
   the default settings; cold starts (no warm start) so that the budget decides */
static double stack_residual(mo_newton_scaling scaling, int iterations, int linear, int steps)
{
    mo_solver_settings s = newton_settings();
    mo_scene sc;
    mo_world *w = build_scene("heavy_stack", &s, &sc);
    for (int i = 0; i < 30; i++) mo_world_step(w);
    s.warm_start = false;
    s.newton.scaling = scaling;
    s.newton.iterations = iterations;
    s.newton.linear_iterations = linear;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    double sum = 0.0;
    for (int i = 0; i < steps; i++) {
        mo_world_step(w);
        sum += mo_world_last_stats(w).residual;
    }
    mo_scene_free(&sc);
    mo_world_destroy(w);
    return sum / steps;
}

static void test_preconditioning(void)
{
    group_begin();
    double rm = stack_residual(MO_NEWTON_SCALING_MASS, 8, 20, 10);
    double ri = stack_residual(MO_NEWTON_SCALING_IDENTITY, 8, 20, 10);
    double rc = stack_residual(MO_NEWTON_SCALING_CONSTANT, 8, 20, 10);
    printf("     heavy stack, 8 Newton x 20 PCR, cold start, mean of 10 steps: residual %.2e (effective mass), "
           "%.2e (identity, %.0fx), %.2e (constant k = 1)\n", rm, ri, ri / rm, rc);
    CHECK(ri > 10.0 * rm);
    group_end("6  complementarity preconditioning beats identity scaling (Fig. 18)");
}

/* ---- 7 settings and statistics ---- */

static void expect_refused(mo_world *w, const mo_solver_settings *s, const char *sentence)
{
    mo_solver_settings before = mo_world_solver(w);
    CHECK(mo_world_set_solver(w, s) == MO_ERR_INVALID_ARGUMENT);
    CHECK_STR(mo_world_last_error(w), sentence);
    CHECK(memcmp(&before, &(mo_solver_settings){0}, 0) == 0);
    mo_solver_settings after = mo_world_solver(w);
    CHECK(after.kind == before.kind && after.newton.iterations == before.newton.iterations &&
          after.newton.step_fraction == before.newton.step_fraction);
}

static void test_settings(void)
{
    group_begin();
    mo_solver_settings d = mo_default_solver_settings();
    CHECK(d.newton.iterations == 12 && d.newton.linear_iterations == 20 && d.newton.step_fraction == 0.8 &&
          d.newton.halvings == 0 && d.newton.halving_residual == 1e-5 &&
          d.newton.regularisation == 1e-9 && d.newton.ncp == MO_NCP_FISCHER_BURMEISTER &&
          d.newton.linear == MO_NEWTON_PCR && d.newton.scaling == MO_NEWTON_SCALING_MASS);
    mo_world_def wd = mo_default_world_def();
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    mo_solver_settings s = d;
    s.kind = MO_SOLVER_NEWTON;
    s.newton.iterations = 0;
    expect_refused(w, &s, "Newton iterations must be in [1, 1000], got 0");
    s = d; s.newton.linear_iterations = 0;
    expect_refused(w, &s, "Newton linear_iterations must be in [1, 100000], got 0");
    s = d; s.newton.linear_tolerance = 1.0;
    expect_refused(w, &s, "Newton linear_tolerance must be in [0, 1), got 1");
    s = d; s.newton.step_fraction = 0.0;
    expect_refused(w, &s, "Newton step_fraction must be in (0, 1], got 0");
    s = d; s.newton.step_fraction = 1.5;
    expect_refused(w, &s, "Newton step_fraction must be in (0, 1], got 1.5");
    s = d; s.newton.regularisation = -1e-9;
    expect_refused(w, &s, "Newton regularisation must be finite and >= 0, got -1e-09");
    s = d; s.newton.ncp = (mo_ncp_function)5;
    expect_refused(w, &s, "Newton NCP function 5 is not a known function");
    s = d; s.newton.linear = (mo_newton_linear)9;
    expect_refused(w, &s, "Newton linear solver 9 is not a known solver");
    s = d; s.newton.scaling = (mo_newton_scaling)3;
    expect_refused(w, &s, "Newton complementarity scaling 3 is not a known scaling");
    s = d; s.newton.scaling_constant = 0.0;
    expect_refused(w, &s, "Newton scaling_constant must be finite and > 0, got 0");
    s = d; s.newton.jacobi_omega = 1.2;
    expect_refused(w, &s, "Newton jacobi_omega must be in (0, 1], got 1.2");
    s = d; s.newton.halvings = 11;
    expect_refused(w, &s, "Newton halvings must be in [0, 10], got 11");
    s = d; s.newton.halving_residual = 0.0;
    expect_refused(w, &s, "Newton halving_residual must be finite and > 0, got 0");
    /* names */
    CHECK_STR(mo_solver_name(MO_SOLVER_NEWTON), "newton");
    mo_solver_kind k = MO_SOLVER_PGS;
    CHECK(mo_solver_from_name("newton", &k) && k == MO_SOLVER_NEWTON);
    CHECK(mo_solver_available(MO_SOLVER_NEWTON));
    mo_world_destroy(w);
    /* world creation refuses the same way */
    wd.solver = d;
    wd.solver.kind = MO_SOLVER_NEWTON;
    wd.solver.newton.iterations = 2000;
    mo_world *w2 = NULL;
    char err[256];
    CHECK(mo_world_create(&wd, &w2, err, sizeof err) == MO_ERR_INVALID_ARGUMENT && w2 == NULL);
    CHECK_STR(err, "Newton iterations must be in [1, 1000], got 2000");
    /* mo_fc_solve takes newton as the FCLIB semismooth Newton (engine/fclib_newton.c;
     * tests/test_fclib_newton.c): an empty problem is solved at once */
    mo_fc_problem fc;
    memset(&fc, 0, sizeof fc);
    s = d;
    s.kind = MO_SOLVER_NEWTON;
    double r[3] = {0, 0, 0};
    mo_fc_result res;
    CHECK(mo_fc_solve(&fc, &s, r, NULL, &res, NULL, NULL, err, sizeof err) == MO_OK && res.iterations == 0);
    group_end("7  settings refused with sentences; names; mo_fc_solve takes newton");
}

/* statistics: one Newton residual and one inner final residual per Newton
 * iteration, the inner histories concatenated; every inner solver lowers the
 * linear residual; a tolerance stops Newton early */
static void test_stats(void)
{
    group_begin();
    for (int lin = 0; lin < 4; lin++) {
        mo_solver_settings s = newton_settings();
        s.record_residuals = true;
        s.newton.linear = (mo_newton_linear)lin;
        s.newton.linear_iterations = 30;
        mo_scene sc;
        mo_world *w = build_scene("heavy_stack", &s, &sc);
        for (int i = 0; i < 5; i++) mo_world_step(w);
        mo_step_stats st = mo_world_last_stats(w);
        static const char *names[] = {"PCR", "PCG", "Jacobi", "Gauss-Seidel"};
        printf("     %-12s Newton %d, linear %d, residual %.2e; first inner solve %.1e -> %.1e\n", names[lin],
               st.iterations, st.linear_iterations, st.residual, st.linear_history ? st.linear_history[0] : -1.0,
               st.coulomb_error_history ? st.coulomb_error_history[0] : -1.0);
        CHECK(st.iterations == s.newton.iterations);
        CHECK(st.residual_count == st.iterations);
        CHECK(st.residual_history && st.residual_history[st.residual_count - 1] == st.residual);
        CHECK(st.linear_count == st.linear_iterations && st.linear_count <= st.iterations * 30);
        CHECK(st.coulomb_error_history[0] < 1.0);
        CHECK(isfinite(st.residual) && st.nan_warnings == 0);
        if (lin == 0) { /* PCR: the residual never increases within an inner solve (monotone, Fong-Saunders) */
            int mono = 1;
            for (int k = 1; k < 30 && k < st.linear_count; k++)
                if (st.linear_history[k - 1] > 1e-12) /* above round-off */
                    mono &= st.linear_history[k] <= st.linear_history[k - 1] * (1 + 1e-12);
            CHECK(mono);
        }
        mo_scene_free(&sc);
        mo_world_destroy(w);
    }
    /* a tolerance stops the Newton loop early */
    mo_solver_settings s = newton_settings();
    s.tolerance = 1e-3;
    s.newton.iterations = 50;
    mo_scene sc;
    mo_world *w = build_scene("heavy_stack", &s, &sc);
    for (int i = 0; i < 5; i++) mo_world_step(w);
    mo_step_stats st = mo_world_last_stats(w);
    printf("     tolerance 1e-3: %d Newton iterations, residual %.2e, converged %d\n", st.iterations, st.residual,
           (int)st.converged);
    CHECK(st.converged && st.residual <= 1e-3 && st.iterations < 50);
    mo_scene_free(&sc);
    mo_world_destroy(w);
    group_end("8  statistics per Newton and inner iteration; inner solvers; tolerance");
}

/* ---- 8 sparse Cholesky inner solver ---- */

static void test_cholesky(void)
{
    group_begin();
#ifdef MO_HAVE_CHOLMOD
    /* the heavy stack from a standing state, twice: one step with Cholesky solves each Newton system to
       round-off, and that step equals the step with PCR run to a 1e-13 relative residual */
    mo_solver_settings s = newton_settings();
    mo_scene sc, sc2;
    mo_world *w = build_scene("heavy_stack", &s, &sc), *w2 = build_scene("heavy_stack", &s, &sc2);
    for (int i = 0; i < 30; i++) {
        mo_world_step(w);
        mo_world_step(w2);
    }
    s.record_residuals = true;
    s.newton.linear = MO_NEWTON_CHOLESKY;
    CHECK(mo_world_set_solver(w, &s) == MO_OK);
    mo_world_step(w);
    mo_step_stats st = mo_world_last_stats(w);
    double worst = 0.0;
    for (int k = 0; k < st.iterations; k++) worst = fmax(worst, st.coulomb_error_history[k]);
    CHECK(st.linear_iterations == st.iterations);
    s.newton.linear = MO_NEWTON_PCR;
    s.newton.linear_iterations = 5000;
    s.newton.linear_tolerance = 1e-13;
    CHECK(mo_world_set_solver(w2, &s) == MO_OK);
    mo_world_step(w2);
    mo_step_stats st2 = mo_world_last_stats(w2);
    double dx = 0.0;
    for (int i = 0; i < sc.nbodies; i++) {
        mo_vec3 a, b;
        mo_body_position(w, sc.bodies[i], &a);
        mo_body_position(w2, sc2.bodies[i], &b);
        dx = fmax(dx, fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z));
    }
    printf("     heavy stack, one step: Cholesky worst relative inner residual %.2g (%d Newton iterations, %d solves); "
           "PCR to 1e-13 took %d iterations; positions differ by %.2g m\n", worst, st.iterations,
           st.linear_iterations, st2.linear_iterations, dx);
    CHECK(worst < 1e-10);
    CHECK(dx < 1e-9);
    mo_scene_free(&sc);
    mo_scene_free(&sc2);
    mo_world_destroy(w);
    mo_world_destroy(w2);
    group_end("8  sparse Cholesky inner solver: exact solves, same step as converged PCR");
#else
    group_end("8  sparse Cholesky inner solver: not built (no CHOLMOD)");
#endif
}

/* ---- 9 rolling sphere ---- */

static void test_rolling(void)
{
    group_begin();
    /* a 3 cm sphere rolling without slip (v = 0.3 m/s, w = v / r) on a plane with mu 0.5, 1 s at h = 1/60:
       it stays on the plane and rolls on at v (no force acts along the plane when it rolls) */
    mo_world_def wd = mo_default_world_def();
    wd.solver = newton_settings();
    wd.time_step = 1.0 / 60.0;
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    g.shape.friction = 0.5;
    mo_body_id ground, ball;
    CHECK(mo_body_create(w, &g, &ground) == MO_OK);
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_SPHERE;
    b.shape.radius = 0.03;
    b.shape.friction = 0.5;
    b.mass = 1.0;
    b.position = (mo_vec3){0, 0, 0.03};
    CHECK(mo_body_create(w, &b, &ball) == MO_OK);
    CHECK(mo_body_set_velocity(w, ball, (mo_vec3){0.3, 0, 0}, (mo_vec3){0, 10.0, 0}) == MO_OK);
    double zlo = 1.0, zhi = 0.0;
    for (int i = 0; i < 60; i++) {
        mo_world_step(w);
        mo_vec3 p;
        mo_body_position(w, ball, &p);
        zlo = fmin(zlo, p.z);
        zhi = fmax(zhi, p.z);
    }
    mo_vec3 p, v, om;
    mo_body_position(w, ball, &p);
    mo_body_linear_velocity(w, ball, &v);
    mo_body_angular_velocity(w, ball, &om);
    printf("     rolling sphere 1 s: z in [%.6f, %.6f] m, x %.5f m, v %.5f m/s, w %.4f rad/s\n", zlo, zhi, p.x, v.x, om.y);
    CHECK(zlo > 0.03 - 1e-4 && zhi < 0.03 + 1e-4);
    CHECK_NEAR(v.x, 0.3, 3e-3);
    CHECK_NEAR(p.x, 0.3, 3e-3);
    CHECK_NEAR(om.y, 10.0, 0.1);
    mo_world_destroy(w);
    group_end("9  a rolling sphere stays on the plane and rolls on (round contact points)");
}

/* ---- 10 a damper-dominated drive with a force bound ---- */

/* w after 0.1 s of a 0.2 m cube (1 kg, I = 1/150 kg m^2) on a revolute joint about y, no gravity, spinning at
   20 rad/s, braked by a pure damper drive kd = 0.05 N m s/rad bounded at max_force; worst residual out */
static double damper_run(double max_force, double *worst)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver = newton_settings();
    wd.gravity = (mo_vec3){0, 0, 0};
    mo_world *w = world_or_exit(&wd, "world: ", 1);
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    b.mass = 1.0;
    mo_body_id cube;
    CHECK(mo_body_create(w, &b, &cube) == MO_OK);
    CHECK(mo_body_set_velocity(w, cube, (mo_vec3){0, 0, 0}, (mo_vec3){0, 20.0, 0}) == MO_OK);
    mo_joint_def jd = mo_default_joint_def();
    jd.type = MO_JOINT_REVOLUTE;
    jd.body_b = cube;
    jd.axis_a = jd.axis_b = (mo_vec3){0, 1, 0};
    jd.motor = MO_MOTOR_POSITION;
    jd.stiffness = 0.0;
    jd.damping = 0.05;
    jd.max_force = max_force;
    mo_joint_id j;
    CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
    *worst = 0.0;
    for (int i = 0; i < 12; i++) {
        mo_world_step(w);
        *worst = fmax(*worst, mo_world_last_stats(w).residual);
    }
    mo_vec3 om;
    mo_body_angular_velocity(w, cube, &om);
    mo_world_destroy(w);
    return om.y;
}

static void test_damper_bound(void)
{
    group_begin();
    /* The drive's row has sigma = 1 / (h kd) = 2400, twenty times its c = h / I = 1.25: with the box's
       minimum map scaled by c alone, a row whose solution is inside its box jumped from one bound to the
       other at every Newton iteration (docs/newton.md: the humanoids' URDF dampers). Inside the bound (5 N m)
       the damper brakes as implicit Euler does, w+ = w / (1 + h kd / I) per step; at the bound
       (0.5 N m, the damper asks 1 N m) w falls at 0.5 / I = 75 rad/s^2. */
    const double h = 1.0 / 120.0, I = 1.0 / 150.0;
    double worst_in, worst_at;
    double w_in = damper_run(5.0, &worst_in), w_at = damper_run(0.5, &worst_at);
    double e_in = 20.0 * pow(1.0 + h * 0.05 / I, -12), e_at = 20.0 - 0.5 / I * 12 * h;
    printf("     damper inside its bound: w %.5f rad/s (implicit Euler %.5f), worst residual %.2g; at its bound: "
           "w %.5f (20 - 75 t = %.5f), worst residual %.2g\n", w_in, e_in, worst_in, w_at, e_at, worst_at);
    CHECK_NEAR(w_in, e_in, 1e-4 * e_in);
    CHECK_NEAR(w_at, e_at, 1e-4 * e_at);
    CHECK(worst_in < 1e-8 && worst_at < 1e-8);
    group_end("10 a damper-dominated drive: braking inside and at its bound (no flip between bounds)");
}


/* ---- 11 the primal form of the Cholesky solver ---- */

static void test_cholesky_primal(void)
{
    group_begin();
#ifdef MO_HAVE_CHOLMOD
    /* owners: a rigid body (DOFs 0-5, mass 2, a full inertia) and a particle (DOFs 6-8, mass 0.5, M~ = M / 0.8) */
    enum { N = 9, M = 5 };
    const double h = 0.01;
    int odof[2] = {0, 6}, ondof[2] = {6, 3};
    double oim[2] = {0.5, 2.0};
    double I[9] = {0.3, 0.05, -0.02, 0.05, 0.2, 0.01, -0.02, 0.01, 0.25}, Ii[9];
    double mrot[18] = {0};
    memcpy(mrot, I, sizeof I);
    double msc[N] = {1, 1, 1, 1, 1, 1, 0.8, 0.8, 0.8};
    /* inverse of I (cofactors) */
    double det = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) + I[2] * (I[3] * I[7] - I[4] * I[6]);
    Ii[0] = (I[4] * I[8] - I[5] * I[7]) / det; Ii[1] = (I[2] * I[7] - I[1] * I[8]) / det; Ii[2] = (I[1] * I[5] - I[2] * I[4]) / det;
    Ii[3] = (I[5] * I[6] - I[3] * I[8]) / det; Ii[4] = (I[0] * I[8] - I[2] * I[6]) / det; Ii[5] = (I[2] * I[3] - I[0] * I[5]) / det;
    Ii[6] = (I[3] * I[7] - I[4] * I[6]) / det; Ii[7] = (I[1] * I[6] - I[0] * I[7]) / det; Ii[8] = (I[0] * I[4] - I[1] * I[3]) / det;
    /* rows: which owners each covers, its cd, masked */
    static const int cover[M][2] = {{1, 1}, {1, 0}, {0, 1}, {1, 1}, {1, 1}};
    static const double cdv[M] = {1e-2, 1e-9, 0.3, 1.0, 5e-4};
    static const uint8_t mask[M] = {0, 0, 0, 1, 0};
    int rp[M + 1], col[M * N];
    double val[M * N], wval[M * N], dense_j[M][N], diag[M], b[M];
    uint64_t seed = 11;
    int q = 0;
    memset(dense_j, 0, sizeof dense_j);
    for (int r = 0; r < M; r++) {
        rp[r] = q;
        for (int o = 0; o < 2; o++) {
            if (!cover[r][o]) continue;
            for (int k = 0; k < ondof[o]; k++) {
                col[q] = odof[o] + k;
                val[q] = sm64_uniform(&seed, -1, 1);
                dense_j[r][col[q]] = val[q];
                q++;
            }
        }
        b[r] = sm64_uniform(&seed, -1, 1);
    }
    rp[M] = q;
    /* wval = M~^-1 J^T on the row's pattern; diag = h^2 (J M~^-1 J^T)_ii + cd */
    for (int r = 0; r < M; r++) {
        double dj = 0.0;
        for (int k = rp[r]; k < rp[r + 1]; k++) {
            int c = col[k];
            double wv;
            if (c < 3) wv = oim[0] * val[k];
            else if (c < 6) {
                wv = 0.0;
                for (int j = 0; j < 3; j++) wv += Ii[3 * (c - 3) + j] * dense_j[r][3 + j];
            } else wv = oim[1] * msc[c] * val[k];
            wval[k] = wv;
            dj += val[k] * wv;
        }
        diag[r] = mask[r] ? 1.0 : h * h * dj + cdv[r];
    }
    mo_newton_system sys = {N, M, 1, h, rp, col, val, wval, mask, cdv, diag, 2, odof, ondof, oim, mrot, msc, NULL, NULL, 0, NULL};
    /* dense A = h^2 Jm M~^-1 Jm^T + D */
    double A[M][M + 1];
    for (int r = 0; r < M; r++) {
        for (int t = 0; t < M; t++) {
            double a = 0.0;
            if (!mask[r] && !mask[t])
                for (int k = rp[t]; k < rp[t + 1]; k++) a += dense_j[r][col[k]] * wval[k];
            A[r][t] = h * h * a + (r == t ? cdv[r] : 0.0);
        }
        A[r][M] = b[r];
    }
    for (int i = 0; i < M; i++) /* Gauss-Jordan with partial pivoting */
    {
        int pv = i;
        for (int r = i + 1; r < M; r++) if (fabs(A[r][i]) > fabs(A[pv][i])) pv = r;
        for (int c = 0; c <= M; c++) { double t = A[i][c]; A[i][c] = A[pv][c]; A[pv][c] = t; }
        for (int r = 0; r < M; r++) {
            if (r == i) continue;
            double f = A[r][i] / A[i][i];
            for (int c = i; c <= M; c++) A[r][c] -= f * A[i][c];
        }
    }
    double xd[M], xs[M], xp[M], work[N], es = 0.0, ep = 0.0, xn = 0.0;
    for (int r = 0; r < M; r++) xd[r] = A[r][M] / A[r][r];
    int used_s = 0, used_p = 0;
    CHECK(mo_newton_cholesky_form(&sys, b, xs, work, 1, &used_s) == 0 && used_s == 1);
    CHECK(mo_newton_cholesky_form(&sys, b, xp, work, 2, &used_p) == 0 && used_p == 2);
    for (int r = 0; r < M; r++) {
        es = fmax(es, fabs(xs[r] - xd[r]));
        ep = fmax(ep, fabs(xp[r] - xd[r]));
        xn = fmax(xn, fabs(xd[r]));
    }
    printf("     hand-built system (rigid body + particle, a row of cd 1e-9, a zeroed row): Schur form %.2g, primal "
           "form %.2g from the dense solve (|x| %.3g)\n", es / xn, ep / xn, xn);
    CHECK(es < 1e-9 * xn);
    CHECK(ep < 1e-9 * xn);
    /* with a cache: the same answers bit for bit, one symbolic analysis per form while the pattern stays,
       a new one when a row is zeroed (the pattern changes) */
    {
        void *cache = NULL;
        mo_newton_system sc = sys;
        sc.chol = &cache;
        double ys[M], yp[M], cd2[M];
        long an = 0, fa = 0;
        for (int rep = 0; rep < 2; rep++) {
            CHECK(mo_newton_cholesky_form(&sc, b, ys, work, 1, &used_s) == 0 && used_s == 1);
            CHECK(mo_newton_cholesky_form(&sc, b, yp, work, 2, &used_p) == 0 && used_p == 2);
            CHECK(!memcmp(ys, xs, sizeof ys) && !memcmp(yp, xp, sizeof yp));
        }
        mo_newton_chol_counts(cache, &an, &fa);
        CHECK(an == 2 && fa == 4);
        /* new values on the same pattern: refactored, not analysed again; the answer as without a cache */
        for (int r = 0; r < M; r++) cd2[r] = 2.0 * cdv[r];
        sc.cd = cd2;
        sys.cd = cd2;
        CHECK(mo_newton_cholesky_form(&sc, b, ys, work, 1, &used_s) == 0);
        CHECK(mo_newton_cholesky_form(&sys, b, xs, work, 1, &used_s) == 0);
        CHECK(!memcmp(ys, xs, sizeof ys));
        mo_newton_chol_counts(cache, &an, &fa);
        CHECK(an == 2 && fa == 5);
        unsigned char mask2[M];
        memcpy(mask2, mask, sizeof mask2);
        for (int r = 0; r < M; r++)
            if (!mask2[r]) {
                mask2[r] = 1;
                break;
            }
        sc.mask = mask2;
        CHECK(mo_newton_cholesky_form(&sc, b, ys, work, 1, &used_s) == 0);
        mo_newton_chol_counts(cache, &an, &fa);
        CHECK(an == 3 && fa == 6);
        mo_newton_chol_free(cache);
        sys.cd = cdv;
    }
    /* without inertia the primal form does not apply */
    double mzero[18] = {0};
    sys.mrot = mzero;
    CHECK(mo_newton_cholesky_form(&sys, b, xp, work, 2, &used_p) == -1);

    /* a cantilever of 8 x 1 x 1 cells held at x = 0, one step of h = 0.05 with 8 Newton iterations: Cholesky
       (the primal form: 864 entries against the Schur form's thousands) and PCR to 1e-13 take the same step */
    double tip[2];
    int lin[2];
    for (int k = 0; k < 2; k++) {
        mo_world_def d = mo_default_world_def();
        d.gravity = (mo_vec3){0, 0, -9.81};
        d.time_step = 0.05;
        d.solver.kind = MO_SOLVER_NEWTON;
        d.solver.newton.iterations = 8;
        d.solver.newton.linear = k == 0 ? MO_NEWTON_CHOLESKY : MO_NEWTON_PCR;
        d.solver.newton.linear_iterations = k == 0 ? 1 : 20000;
        d.solver.newton.linear_tolerance = k == 0 ? 0.0 : 1e-13;
        mo_world *w = world_or_exit(&d, "cantilever", 1);
        box_mesh bm;
        box_mesh_make(&bm, 8, 1, 1, (mo_vec3){0, -0.05, -0.05}, (mo_vec3){1, 0.1, 0.1});
        mo_fem_material_def mat = {1e8, 0.3, 1000.0, MO_FEM_COROTATIONAL};
        int fixed[4] = {node_index(&bm, 0, 0, 0), node_index(&bm, 0, 1, 0), node_index(&bm, 0, 0, 1),
                        node_index(&bm, 0, 1, 1)};
        mo_fem_mesh_def fd = box_mesh_def(&bm, &mat, fixed, 4);
        mo_fem_mesh_id id;
        CHECK(mo_fem_mesh_create(w, &fd, &id) == MO_OK);
        mo_world_step(w);
        mo_vec3 p;
        CHECK(mo_fem_mesh_node_position(w, id, node_index(&bm, 8, 1, 1), &p) == MO_OK);
        tip[k] = p.z;
        lin[k] = mo_world_last_stats(w).linear_iterations;
        box_mesh_free(&bm);
        mo_world_destroy(w);
    }
    printf("     cantilever 8 x 1 x 1 cells, one step: tip z %.15f (Cholesky, %d solves), %.15f (PCR, %d iterations)\n",
           tip[0], lin[0], tip[1], lin[1]);
    CHECK(fabs(tip[0] - tip[1]) < 1e-10);
    CHECK(tip[0] < 0.05 - 1e-4); /* it sagged */
    group_end("11 Cholesky's primal form: equals the Schur form and a dense solve; cache: same answers, one analysis per pattern; same FEM step as PCR");
#else
    group_end("11 Cholesky's primal form: not built (no CHOLMOD)");
#endif
}

/* ---- 12 step halving ---- */

/* a Newton world (h = 1/60) with the given halving and substeps */
static mo_world *halving_world(int halvings, double thr, int substeps, const char *what)
{
    mo_world_def wd = mo_default_world_def();
    wd.solver = newton_settings();
    wd.solver.newton.halvings = halvings;
    wd.solver.newton.halving_residual = thr;
    wd.substeps = substeps;
    wd.time_step = 1.0 / 60.0;
    return world_or_exit(&wd, what, 1);
}

/* `steps` steps; the halvings summed over them and the largest per step */
static void halving_steps(mo_world *w, int steps, int *sum, int *most)
{
    *sum = *most = 0;
    for (int i = 0; i < steps; i++) {
        CHECK(mo_world_step(w) == MO_OK);
        mo_step_stats st = mo_world_last_stats(w);
        *sum += st.halvings;
        if (st.halvings > *most) *most = st.halvings;
    }
}

/* a small world with every kind of state a step carries to the next: a box sliding on the ground
   (friction, contact warm start), a two-link pendulum on revolute joints with a PD drive (joint
   warm start) swinging into the ground, a free particle. Runs `steps` steps and returns the
   bodies' and particle's positions and velocities in out (40 numbers), the halvings summed over
   the steps and the largest per step. */
static void halving_run(int halvings, double thr, int substeps, int steps, double *out, int *sum, int *most)
{
    mo_world *w = halving_world(halvings, thr, substeps, "world: ");
    mo_body_def g = mo_default_body_def();
    g.type = MO_BODY_STATIC;
    g.shape.type = MO_SHAPE_PLANE;
    g.shape.friction = 0.4;
    mo_body_id ground, id[3];
    CHECK(mo_body_create(w, &g, &ground) == MO_OK);
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.1, 0.1, 0.1};
    b.shape.friction = 0.4;
    b.position = (mo_vec3){0, 0, 0.1};
    CHECK(mo_body_create(w, &b, &id[0]) == MO_OK);
    CHECK(mo_body_set_velocity(w, id[0], (mo_vec3){1.5, 0.2, 0}, (mo_vec3){0, 0, 0}) == MO_OK);
    b.shape.half_extents = (mo_vec3){0.15, 0.03, 0.03};
    for (int k = 0; k < 2; k++) {
        b.position = (mo_vec3){1.15 + 0.3 * k, 2.0, 0.35};
        CHECK(mo_body_create(w, &b, &id[1 + k]) == MO_OK);
        mo_joint_def jd = mo_default_joint_def();
        jd.type = MO_JOINT_REVOLUTE;
        jd.body_a = k == 0 ? (mo_body_id){0, 0} : id[k];
        jd.body_b = id[1 + k];
        jd.anchor_a = k == 0 ? (mo_vec3){1.0, 2.0, 0.35} : (mo_vec3){0.15, 0, 0}; /* the world's point, link 1's end */
        jd.anchor_b = (mo_vec3){-0.15, 0, 0};
        jd.axis_a = jd.axis_b = (mo_vec3){0, 1, 0};
        if (k == 1) {
            jd.motor = MO_MOTOR_POSITION;
            jd.stiffness = 5.0;
            jd.damping = 0.1;
        }
        mo_joint_id j;
        CHECK(mo_joint_create(w, &jd, &j) == MO_OK);
    }
    mo_particle_def pd = mo_default_particle_def();
    pd.position = (mo_vec3){-1, 0, 0.5};
    pd.mass = 0.1;
    pd.radius = 0.02;
    mo_particle_id pid;
    CHECK(mo_particle_create(w, &pd, &pid) == MO_OK);
    halving_steps(w, steps, sum, most);
    for (int k = 0; k < 3; k++) {
        mo_vec3 p, v, om;
        mo_quat q;
        mo_body_position(w, id[k], &p);
        mo_body_orientation(w, id[k], &q);
        mo_body_linear_velocity(w, id[k], &v);
        mo_body_angular_velocity(w, id[k], &om);
        double x[13] = {p.x, p.y, p.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, om.x, om.y, om.z};
        memcpy(out + 13 * k, x, sizeof x);
    }
    mo_vec3 pp;
    mo_particle_position(w, pid, &pp);
    out[39] = pp.z;
    mo_world_destroy(w);
}

/* an FEM slab (3 x 2 x 1 cells, 0.3 x 0.2 x 0.05 m) with its two left corner nodes fixed and moving
   up at 0.1 m/s, its far right top node attached to a free 0.2 kg ball hanging on it, and a 0.5 kg
   box dropped on its middle (surface contacts with friction); out: 12 node positions, the ball's and
   the box's positions and velocities (48 numbers) */
static void halving_fem_run(int halvings, double thr, int substeps, int steps, double *out, int *sum, int *most)
{
    mo_world *w = halving_world(halvings, thr, substeps, "fem world");
    box_mesh bm;
    box_mesh_make(&bm, 3, 2, 1, (mo_vec3){-0.15, -0.1, 0.3}, (mo_vec3){0.3, 0.2, 0.05});
    mo_fem_material_def mat = {2e5, 0.3, 1000.0, MO_FEM_COROTATIONAL};
    int fixed[2] = {node_index(&bm, 0, 0, 0), node_index(&bm, 0, 2, 0)};
    mo_fem_mesh_def fd = box_mesh_def(&bm, &mat, fixed, 2);
    mo_fem_mesh_id mid;
    CHECK(mo_fem_mesh_create(w, &fd, &mid) == MO_OK);
    for (int k = 0; k < 2; k++) CHECK(mo_fem_mesh_set_fixed_velocity(w, mid, fixed[k], (mo_vec3){0, 0, 0.1}) == MO_OK);
    mo_body_def b = mo_default_body_def();
    b.shape.type = MO_SHAPE_SPHERE;
    b.shape.radius = 0.02;
    b.mass = 0.2;
    const int tip = node_index(&bm, 3, 2, 1);
    b.position = bm.nodes[tip];
    mo_body_id ball, box;
    CHECK(mo_body_create(w, &b, &ball) == MO_OK);
    CHECK(mo_fem_mesh_attach(w, mid, tip, ball, 0.0) == MO_OK);
    b.shape.type = MO_SHAPE_BOX;
    b.shape.half_extents = (mo_vec3){0.03, 0.03, 0.03};
    b.shape.friction = 0.5;
    b.mass = 0.5;
    b.position = (mo_vec3){0.02, 0.01, 0.35 + 0.03 + 0.004};
    CHECK(mo_body_create(w, &b, &box) == MO_OK);
    halving_steps(w, steps, sum, most);
    const int probe[12] = {0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23};
    for (int k = 0; k < 12; k++) {
        mo_vec3 p;
        mo_fem_mesh_node_position(w, mid, probe[k], &p);
        out[3 * k] = p.x, out[3 * k + 1] = p.y, out[3 * k + 2] = p.z;
    }
    mo_vec3 x;
    mo_body_position(w, ball, &x);
    out[36] = x.x, out[37] = x.y, out[38] = x.z;
    mo_body_linear_velocity(w, ball, &x);
    out[39] = x.x, out[40] = x.y, out[41] = x.z;
    mo_body_position(w, box, &x);
    out[42] = x.x, out[43] = x.y, out[44] = x.z;
    mo_body_linear_velocity(w, box, &x);
    out[45] = x.x, out[46] = x.y, out[47] = x.z;
    box_mesh_free(&bm);
    mo_world_destroy(w);
}

static double max_diff(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static void test_halving(void)
{
    group_begin();
    /* A step undone and redone as two halves must be exactly two steps of h/2: with a threshold no
       residual meets, halvings = 1 must equal substeps = 2 and halvings = 2 substeps = 4, every step
       halved 1 and 3 times. Any state the undone step left behind (a pose, a joint's or a contact's
       warm start, W's slope in the contact cache) would show as a difference. A threshold every step
       meets never halves: the same steps as no halving at all, bit for bit. */
    const int steps = 90;
    double a[40], b[40], c[40], d[40], e[40], f[40];
    int s1, m1, s2, m2, s3, m3, s4, m4, s5, m5, s6, m6;
    halving_run(0, 1e-5, 2, steps, a, &s1, &m1);
    halving_run(1, 1e-300, 1, steps, b, &s2, &m2);
    halving_run(0, 1e-5, 4, steps, c, &s3, &m3);
    halving_run(2, 1e-300, 1, steps, d, &s4, &m4);
    halving_run(0, 1e-5, 1, steps, e, &s5, &m5);
    halving_run(3, 1e3, 1, steps, f, &s6, &m6);
    double d12 = max_diff(a, b, 40), d34 = max_diff(c, d, 40), d56 = max_diff(e, f, 40);
    printf("     halved every step: 1 deep vs 2 substeps max difference %.2g, 2 deep vs 4 substeps %.2g; "
           "never halved vs off %.2g; halvings %d (1 deep), %d (2 deep), %d (never)\n", d12, d34, d56, s2, s4, s6);
    CHECK(d12 < 1e-12 && d34 < 1e-12);
    CHECK(d56 == 0.0);
    CHECK(s1 == 0 && s3 == 0 && s5 == 0 && s6 == 0);
    CHECK(s2 == steps && m2 == 1);
    CHECK(s4 == 3 * steps && m4 == 3);
    CHECK(max_diff(a, e, 40) > 1e-6); /* the comparisons see the time step */
    /* the same with FEM meshes: the meshes' forces, fixed-node targets, attachments and surface contacts */
    double fa[48], fb[48], fc[48], fd[48];
    int t1, u1, t2, u2, t3, u3, t4, u4;
    halving_fem_run(0, 1e-5, 2, 30, fa, &t1, &u1);
    halving_fem_run(1, 1e-300, 1, 30, fb, &t2, &u2);
    halving_fem_run(0, 1e-5, 4, 30, fc, &t3, &u3);
    halving_fem_run(2, 1e-300, 1, 30, fd, &t4, &u4);
    double e12 = max_diff(fa, fb, 48), e34 = max_diff(fc, fd, 48);
    printf("     FEM slab (fixed nodes moving, a node attached to a body, a box on it): 1 deep vs 2 substeps %.2g, "
           "2 deep vs 4 substeps %.2g; halvings %d, %d\n", e12, e34, t2, t4);
    CHECK(e12 < 1e-12 && e34 < 1e-12);
    CHECK(t1 == 0 && t3 == 0 && t2 == 30 && u2 == 1 && t4 == 90 && u4 == 3);
    CHECK(max_diff(fa, fc, 48) > 1e-9);
    group_end("12 step halving: a halved step is two steps of h/2 exactly (rigid, FEM); never halving changes nothing");
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
#define RUN(name, fn) do { if (!only || !strcmp(only, name)) fn(); } while (0)
    RUN("ncp", test_ncp);
    RUN("contacts", test_fd_contacts);
    RUN("joints", test_fd_joints);
    RUN("incline", test_incline);
    RUN("stats", test_stats);
    RUN("settings", test_settings);
    RUN("precond", test_preconditioning);
    RUN("stack", test_heavy_stack);
    RUN("cholesky", test_cholesky);
    RUN("rolling", test_rolling);
    RUN("damper", test_damper_bound);
    RUN("primal", test_cholesky_primal);
    RUN("halving", test_halving);
    return check_groups_result();
}
