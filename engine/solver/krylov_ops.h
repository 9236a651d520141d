/* krylov_ops.h: CG and MINRES over the backend operations (krylov_ops.c) for
 * problems whose blocks are all bilateral; krylov.c keeps the mixed problems
 * (block Gauss-Seidel with contacts), which run on the CPU only. Not
 * installed. */
#ifndef MO_SOLVER_KRYLOV_OPS_H
#define MO_SOLVER_KRYLOV_OPS_H

#include "solver/solver.h"

/* p can be solved by mo_krylov_ops_solve: rows, r given, every block bilateral, not a facet problem */
bool mo_krylov_ops_applies(const mo_problem *p);
/* CG (minres false) or MINRES on p, on out->device when set, else on the CPU */
void mo_krylov_ops_solve(const mo_problem *p, const mo_solver_settings *s, mo_solve_out *o, bool minres);

#endif
