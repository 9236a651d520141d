/* settings.c: the solver settings' defaults, names and checks (every
 * solver's ranges in one place; mo_world_set_solver and mo_fc_solve refuse
 * what mo_solver_check refuses, with its sentence). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "solver/solver.h"

mo_solver_settings mo_default_solver_settings(void)
{
    mo_solver_settings s;
    memset(&s, 0, sizeof s);
    s.kind = MO_SOLVER_PGS;
    s.friction = MO_FRICTION_CONE;
    s.max_iterations = 50;
    s.tolerance = 0.0;
    s.omega = 1.0;
    s.warm_start = true;
    s.record_residuals = false;
    s.friction_facets = 8;
    s.coulomb_updates = 0;
    s.position_projections = 0;
    s.apgd.rho = MO_RHO_EIGEN;
    s.apgd.backtracking = true;
    s.apgd.adaptive_rho = true;
    s.apgd.restart = true;
    s.apgd.rho_ratio_max = 0.9;
    s.apgd.rho_ratio_min = 0.3;
    s.apgd.rho_factor = 2.0 / 3.0;
    s.spg.alpha_min = 1e-9;
    s.spg.alpha_max = 1e9;
    s.spg.n_gll = 10;
    s.spg.armijo = 1e-4;
    s.spg.sigma_min = 0.1;
    s.spg.sigma_max = 0.9;
    s.spg.tau_g = 0.0;
    s.spg.alpha0 = 0.0;
    s.spg.preconditioner = true;
    s.spg.step_rule = MO_SPG_ALTERNATE;
    /* non-smooth Newton (issue 7) */
    s.newton.iterations = 12;
    s.newton.linear_iterations = 20;
    s.newton.linear_tolerance = 0.0;
    s.newton.step_fraction = 0.8;
    s.newton.regularisation = 1e-9;
    s.newton.ncp = MO_NCP_FISCHER_BURMEISTER;
    s.newton.linear = MO_NEWTON_PCR;
    s.newton.scaling = MO_NEWTON_SCALING_MASS;
    s.newton.scaling_constant = 1.0;
    s.newton.jacobi_omega = 0.5;
    s.newton.halvings = 0;
    s.newton.halving_residual = 1e-5;
    return s;
}

int mo_solver_check(const mo_solver_settings *s, char *err, size_t n)
{
    return mo_solver_check_max(s, MO_ITERATIONS_MAX, err, n);
}

/* checks settings; writes the sentence into err */
int mo_solver_check_max(const mo_solver_settings *s, int max_iterations, char *err, size_t n)
{
    if (!mo_solver_row_of(s->kind)) {
        snprintf(err, n, "solver kind %d is not a known solver", (int)s->kind);
        return 0;
    }
    const mo_solver_row *row = mo_solver_row_of(s->kind);
    if (row->available && !row->available()) {
        snprintf(err, n, "%s", row->unavailable);
        return 0;
    }
    if (s->friction != MO_FRICTION_CONE && s->friction != MO_FRICTION_BOX && s->friction != MO_FRICTION_POLYHEDRAL) {
        snprintf(err, n, "friction model %d is not a known model", (int)s->friction);
        return 0;
    }
    if (s->max_iterations < 1 || s->max_iterations > max_iterations) {
        snprintf(err, n, "solver max_iterations must be in [1, %d], got %d", max_iterations, s->max_iterations);
        return 0;
    }
    if (!(s->tolerance >= 0.0) || !isfinite(s->tolerance)) {
        snprintf(err, n, "solver tolerance must be finite and >= 0, got %g", s->tolerance);
        return 0;
    }
    if (!(s->omega > 0.0 && s->omega < 2.0)) {
        snprintf(err, n, "solver omega must be in (0, 2), got %g", s->omega);
        return 0;
    }
    if (s->friction == MO_FRICTION_POLYHEDRAL && (s->friction_facets < 4 || s->friction_facets > 64)) {
        snprintf(err, n, "solver friction_facets must be in [4, 64], got %d", s->friction_facets);
        return 0;
    }
    if (s->position_projections < 0 || s->position_projections > 16) {
        snprintf(err, n, "solver position_projections must be in [0, 16], got %d", s->position_projections);
        return 0;
    }
    if (s->coulomb_updates < 0 || s->coulomb_updates > 1000) {
        snprintf(err, n, "solver coulomb_updates must be in [0, 1000], got %d", s->coulomb_updates);
        return 0;
    }
    const mo_apgd_settings *a = &s->apgd;
    if ((int)a->rho < 0 || a->rho > MO_RHO_ACARY) {
        snprintf(err, n, "APGD rho choice %d is not a known choice", (int)a->rho);
        return 0;
    }
    if (!(a->rho_ratio_min > 0.0 && a->rho_ratio_min < a->rho_ratio_max && a->rho_ratio_max < 1.0 &&
          a->rho_factor > 0.0 && a->rho_factor < 1.0)) {
        snprintf(err, n, "APGD rho rule needs 0 < L_min < L < 1 and 0 < w < 1, got L_min %g, L %g, w %g",
                 a->rho_ratio_min, a->rho_ratio_max, a->rho_factor);
        return 0;
    }
    const mo_spg_settings *g = &s->spg;
    if (!(g->alpha_min > 0.0 && g->alpha_min < g->alpha_max && isfinite(g->alpha_max))) {
        snprintf(err, n, "SPG needs 0 < alpha_min < alpha_max < inf, got %g, %g", g->alpha_min, g->alpha_max);
        return 0;
    }
    if (g->n_gll < 1 || g->n_gll > 100) {
        snprintf(err, n, "SPG n_gll must be in [1, 100], got %d", g->n_gll);
        return 0;
    }
    if (g->step_rule != MO_SPG_ALTERNATE && g->step_rule != MO_SPG_ABBMIN) {
        snprintf(err, n, "SPG step_rule must be MO_SPG_ALTERNATE or MO_SPG_ABBMIN, got %d", (int)g->step_rule);
        return 0;
    }
    if (!(g->armijo > 0.0 && g->armijo < 1.0 && g->sigma_min > 0.0 && g->sigma_min < g->sigma_max &&
          g->sigma_max < 1.0 && g->tau_g >= 0.0 && isfinite(g->tau_g) && g->alpha0 >= 0.0 && isfinite(g->alpha0))) {
        snprintf(err, n, "SPG needs 0 < armijo < 1, 0 < sigma_min < sigma_max < 1, tau_g >= 0, alpha0 >= 0; "
                 "got %g, %g, %g, %g, %g", g->armijo, g->sigma_min, g->sigma_max, g->tau_g, g->alpha0);
        return 0;
    }
    /* non-smooth Newton (issue 7) */
    const mo_newton_settings *nw = &s->newton;
    if (nw->iterations < 1 || nw->iterations > 1000) {
        snprintf(err, n, "Newton iterations must be in [1, 1000], got %d", nw->iterations);
        return 0;
    }
    if (nw->linear_iterations < 1 || nw->linear_iterations > MO_LINEAR_ITERATIONS_MAX) {
        snprintf(err, n, "Newton linear_iterations must be in [1, %d], got %d", MO_LINEAR_ITERATIONS_MAX,
                 nw->linear_iterations);
        return 0;
    }
    if (!(nw->linear_tolerance >= 0.0 && nw->linear_tolerance < 1.0)) {
        snprintf(err, n, "Newton linear_tolerance must be in [0, 1), got %g", nw->linear_tolerance);
        return 0;
    }
    if (!(nw->step_fraction > 0.0 && nw->step_fraction <= 1.0)) {
        snprintf(err, n, "Newton step_fraction must be in (0, 1], got %g", nw->step_fraction);
        return 0;
    }
    if (!(nw->regularisation >= 0.0) || !isfinite(nw->regularisation)) {
        snprintf(err, n, "Newton regularisation must be finite and >= 0, got %g", nw->regularisation);
        return 0;
    }
    if (nw->halvings < 0 || nw->halvings > MO_HALVINGS_MAX) {
        snprintf(err, n, "Newton halvings must be in [0, %d], got %d", MO_HALVINGS_MAX, nw->halvings);
        return 0;
    }
    if (!(nw->halving_residual > 0.0) || !isfinite(nw->halving_residual)) {
        snprintf(err, n, "Newton halving_residual must be finite and > 0, got %g", nw->halving_residual);
        return 0;
    }
    if (nw->ncp != MO_NCP_FISCHER_BURMEISTER && nw->ncp != MO_NCP_MIN_MAP) {
        snprintf(err, n, "Newton NCP function %d is not a known function", (int)nw->ncp);
        return 0;
    }
    if ((int)nw->linear < 0 || nw->linear > MO_NEWTON_CHOLESKY) {
        snprintf(err, n, "Newton linear solver %d is not a known solver", (int)nw->linear);
        return 0;
    }
#ifndef MO_HAVE_CHOLMOD
    if (nw->linear == MO_NEWTON_CHOLESKY) {
        snprintf(err, n, "Newton linear solver 'cholesky' needs CHOLMOD, which this build does not have (-Dcholmod)");
        return 0;
    }
#endif
    if ((int)nw->scaling < 0 || nw->scaling > MO_NEWTON_SCALING_CONSTANT) {
        snprintf(err, n, "Newton complementarity scaling %d is not a known scaling", (int)nw->scaling);
        return 0;
    }
    if (!(nw->scaling_constant > 0.0) || !isfinite(nw->scaling_constant)) {
        snprintf(err, n, "Newton scaling_constant must be finite and > 0, got %g", nw->scaling_constant);
        return 0;
    }
    if (!(nw->jacobi_omega > 0.0 && nw->jacobi_omega <= 1.0)) {
        snprintf(err, n, "Newton jacobi_omega must be in (0, 1], got %g", nw->jacobi_omega);
        return 0;
    }
    return 1;
}
