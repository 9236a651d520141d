/* table.c: the one solver table. Every solver family is one row: its name,
 * what it supports (MO_SOLVER_CAP_*) and its velocity-level entry. Every
 * question the engine asks about a solver (may it run polyhedral friction
 * as facets, take outer Coulomb updates, be scaled, run FEM meshes, run on
 * the GPU, replace the velocity solve with a position-level step, serve the
 * position projections) reads the row's flags; nothing else tests a kind.
 *
 * MO_SOLVER_NEWTON has no velocity-level entry: in a world step it is the
 * position-level step (MO_SOLVER_CAP_POSITION, step/newton.c, given the step
 * context); on outside problems mo_fc_solve runs its semismooth Newton
 * method (io/fclib_newton.c). An unknown kind has no row: callers refuse it
 * with a sentence (mo_solver_check) instead of running another solver.
 * The backends' names live here too (the backend a solve runs on is the
 * row's MO_SOLVER_CAP_CUDA question). */
#include <stdio.h>
#include "solver/solver.h"

#define CONE (MO_SOLVER_CAP_CONTACTS | MO_SOLVER_CAP_BILATERAL | MO_SOLVER_CAP_CPU)
#define KRYLOV (MO_SOLVER_CAP_BILATERAL | MO_SOLVER_CAP_BILATERAL_SOLVE | MO_SOLVER_CAP_SYMMETRIC | \
                MO_SOLVER_CAP_COULOMB_UPDATES | MO_SOLVER_CAP_CPU)

static const mo_solver_row rows[MO_SOLVER_COUNT] = {
    [MO_SOLVER_PGS] = {"pgs", CONE | MO_SOLVER_CAP_INLINE_COULOMB, mo_solver_pgs},
    [MO_SOLVER_JACOBI] = {"jacobi", CONE | MO_SOLVER_CAP_FACETS | MO_SOLVER_CAP_COULOMB_UPDATES | MO_SOLVER_CAP_CUDA,
                          mo_solver_jacobi},
    [MO_SOLVER_APGD] = {"apgd", CONE | MO_SOLVER_CAP_FACETS | MO_SOLVER_CAP_SCALING | MO_SOLVER_CAP_COULOMB_UPDATES |
                                    MO_SOLVER_CAP_CUDA,
                        mo_solver_apgd},
    [MO_SOLVER_SPG] = {"spg", CONE | MO_SOLVER_CAP_FACETS | MO_SOLVER_CAP_SCALING | MO_SOLVER_CAP_COULOMB_UPDATES |
                                  MO_SOLVER_CAP_CUDA,
                       mo_solver_spg},
    /* on the device for problems of joints alone (krylov_ops.c); a step with other rows is refused there */
    [MO_SOLVER_CG] = {"cg", KRYLOV | MO_SOLVER_CAP_CUDA, mo_solver_cg},
    [MO_SOLVER_MINRES] = {"minres", KRYLOV | MO_SOLVER_CAP_CUDA, mo_solver_minres},
    [MO_SOLVER_CHOLESKY] = {"cholesky", KRYLOV, mo_solver_cholesky, mo_cholesky_available,
                            "solver 'cholesky' needs CHOLMOD, which this build of Moreau does not have (install "
                            "libsuitesparse-dev and configure with -Dcholmod=enabled); use 'minres' or 'cg' instead"},
    /* on the device: the inner linear solves (PCR, PCG, Jacobi) of each Newton iteration */
    [MO_SOLVER_NEWTON] = {"newton", MO_SOLVER_CAP_CONTACTS | MO_SOLVER_CAP_BILATERAL | MO_SOLVER_CAP_FEM |
                                        MO_SOLVER_CAP_POSITION | MO_SOLVER_CAP_CPU | MO_SOLVER_CAP_CUDA,
                          NULL},
};

const mo_solver_row *mo_solver_row_of(mo_solver_kind k)
{
    return (int)k >= 0 && k < MO_SOLVER_COUNT ? &rows[k] : NULL;
}

bool mo_solver_has(mo_solver_kind k, unsigned caps)
{
    const mo_solver_row *r = mo_solver_row_of(k);
    return r && (r->caps & caps) == caps;
}

unsigned mo_solver_caps(mo_solver_kind k)
{
    const mo_solver_row *r = mo_solver_row_of(k);
    return r ? r->caps : 0u;
}

bool mo_solver_available(mo_solver_kind k)
{
    const mo_solver_row *r = mo_solver_row_of(k);
    return r && (!r->available || r->available());
}

const char *mo_solver_name(mo_solver_kind k)
{
    const mo_solver_row *r = mo_solver_row_of(k);
    return r ? r->name : "?";
}

bool mo_solver_from_name(const char *name, mo_solver_kind *out)
{
    if (!name) return false;
    for (int k = 0; k < MO_SOLVER_COUNT; k++)
        if (!strcmp(name, rows[k].name)) {
            if (out) *out = (mo_solver_kind)k;
            return true;
        }
    return false;
}

int mo_solver_device_check(const mo_solver_settings *s, char *err, size_t n)
{
    const mo_solver_row *r = mo_solver_row_of(s->kind);
    if (!r) {
        snprintf(err, n, "solver kind %d is not a known solver", (int)s->kind);
        return 0;
    }
    if (!(r->caps & MO_SOLVER_CAP_CUDA)) {
        char list[128] = "";
        size_t at = 0;
        for (int k = 0; k < MO_SOLVER_COUNT; k++)
            if (rows[k].caps & MO_SOLVER_CAP_CUDA)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", at ? ", " : "", rows[k].name);
        snprintf(err, n, "solver '%s' runs on the cpu backend only; the cuda backend runs %s", r->name, list);
        return 0;
    }
    if ((r->caps & MO_SOLVER_CAP_POSITION) && s->newton.linear != MO_NEWTON_PCR && s->newton.linear != MO_NEWTON_PCG &&
        s->newton.linear != MO_NEWTON_JACOBI) {
        static const char *const linear[] = {"pcr", "pcg", "jacobi", "gauss_seidel", "cholesky"};
        const int l = (int)s->newton.linear;
        snprintf(err, n, "the newton solver's inner solver '%s' runs on the cpu backend only; the cuda backend runs "
                 "pcr, pcg, jacobi", l >= 0 && l < 5 ? linear[l] : "?");
        return 0;
    }
    if (s->friction == MO_FRICTION_POLYHEDRAL && (r->caps & MO_SOLVER_CAP_FACETS)) {
        snprintf(err, n, "polyhedral friction runs on the cpu backend only in this version (the cuda backend "
                 "solves the cone and box models)");
        return 0;
    }
    if (s->diagonal_scaling && (r->caps & MO_SOLVER_CAP_SCALING)) {
        snprintf(err, n, "diagonal_scaling runs on the cpu backend only in this version");
        return 0;
    }
    return 1;
}

static const char *const backend_names[MO_BACKEND_COUNT] = {"cpu", "cuda", "auto"};

const char *mo_backend_name(mo_backend b)
{
    return (int)b >= 0 && b < MO_BACKEND_COUNT ? backend_names[b] : "?";
}

bool mo_backend_from_name(const char *name, mo_backend *out)
{
    if (!name) return false;
    for (int k = 0; k < MO_BACKEND_COUNT; k++)
        if (!strcmp(name, backend_names[k])) {
            if (out) *out = (mo_backend)k;
            return true;
        }
    return false;
}
