/* solvers_v0.h: the pre-ops solvers kept as test_ops's reference (solvers_v0.c). */
#ifndef MO_TESTS_SOLVERS_V0_H
#define MO_TESTS_SOLVERS_V0_H
#include "solver/solver.h"
void ref_solver_jacobi(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void ref_solver_apgd(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
void ref_solver_spg(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o);
#endif
