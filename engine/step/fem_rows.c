/* fem_rows.c: the rows the FEM meshes and their attachments give the
 * non-smooth Newton step (step/newton.c appends them to its system), their
 * warm start, and the fixed nodes' targets moved at the end of a step.
 *
 * Every node is a particle (mass lumped: density V / 4 from each of its
 * tetrahedra). Every tetrahedron gives rows C(x) with a diagonal compliance
 * (kernels/fem.h), solved like the joints' bilateral rows:
 *   C(x+) + eps lambda = 0,  x+ = x + h v+,  Jacobian dC/dx (so dC/dv+ = h J).
 * - Linear corotational (6 rows): fem.h's rows are the Voigt strains
 *   (e_xx, e_yy, e_zz, 2e_yz, 2e_zx, 2e_xy) of sym(R^T F) - I with the
 *   compliance E = (V K)^-1, whose normal block
 *   (1/(E_Y V)) [[1,-nu,-nu],[-nu,1,-nu],[-nu,-nu,1]] is not diagonal. The
 *   Newton step's Schur system takes a diagonal C, so the three normal rows
 *   are replaced by their projections on the block's orthonormal eigenvectors
 *   q0 = (1,1,1)/sqrt 3 (eigenvalue 1 - 2 nu: the volumetric row),
 *   q1 = (1,-1,0)/sqrt 2 and q2 = (1,1,-2)/sqrt 6 (eigenvalue 1 + nu):
 *   C' = Q^T C_n, J' = Q^T J_n, eps' = (1 - 2 nu, 1 + nu, 1 + nu)/(E_Y V).
 *   Q is orthogonal, so 1/2 C'^T eps'^-1 C' = 1/2 C_n^T E_n^-1 C_n: the same
 *   energy and the same forces. Shear rows keep eps = 1/(mu_L V). R is the
 *   polar factor of F at the Newton iterate, refreshed each Newton iteration
 *   and held fixed in the Jacobian (fem.h: the fixed-R force is exact).
 * - Stable Neo-Hookean without the log term, 7 rows (MO_FEM_NEO_HOOKEAN,
 *   fem.h mo_fem_nh7_*): C_H = J - alpha with eps = 1/(lambda V) and the six
 *   entries of the polar stretch S = R^T F (shear times sqrt 2) with
 *   eps = 1/(mu V), R refreshed each Newton iteration and held in the
 *   Jacobian as for the corotational rows: the same energy as the paper's
 *   2 rows, but the shear stiffness is in the rows' Gauss-Newton tangent
 *   instead of in C_D's curvature. mo_fem_newton_tangent lowers the stretch
 *   rows' compliance in the linear system to 1/(mu V + lambda_H) (the
 *   positive part of the volume row's curvature). At rest the rows are not
 *   zero: the rest multipliers (mu V; -mu V x 3; 0 x 3) balance (f = 0) and
 *   are the first step's starting multipliers.
 * - The paper's 2-row form (MO_FEM_NEO_HOOKEAN_2ROW, for comparison):
 *   C_H = J - alpha, C_D = sqrt(I_C) with eps = 1/(mu V), rest multipliers
 *   (mu V, -sqrt(3) mu V), shear stiffness only from the diagonal geometric
 *   stiffness of mo_fem_newton_geometric; free meshes diverge (docs/fem.md, "Formulation").
 * - Activation a: the element's rest shape scaled by (1 + a)^(1/3)
 *   (mo_fem_tet_activate).
 * - Fixed nodes: one row per held axis, C = x+_k - target_k, eps = 0, where
 *   the target is the node's position at creation moved by its fixed velocity
 *   (target of the end of the step: target + h v_fixed).
 * - Attachments (mo_fem_mesh_attach): 3 rows per attached node after every
 *   mesh's rows, C = x_node+ - (x_body+ + R_body+ r), eps the attachment's
 *   compliance, on the particle and a dynamic body's 6 DOFs (model/fem.h: fem_ext).
 * Forces lambda are kept per row between steps for the warm start. The meshes
 * themselves (creation, queries) are model/fem_mesh.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/fem.h"
#include "model/fem.h"
#include "solver/newton.h" /* MO_NROW_* row types */
#include "step/step.h"

static const double SQ3 = 1.7320508075688772, SQ2 = 1.4142135623730951, SQ6 = 2.449489742783178;

/* ---- the Newton step's rows ---- */

int mo_fem_newton_rows(const mo_world *w, int *nnz)
{
    int rows = 0, nz = 0;
    MO_FEM_EACH_MESH(w, m) {
        for (int t = 0; t < m->ntets; t++) {
            rows += mo_fem_tet_rows(m, t);
            nz += 12 * mo_fem_tet_rows(m, t);
        }
        for (int f = 0; f < m->nfixed; f++) {
            rows += mo_fem_fixed_rows(m, f);
            nz += mo_fem_fixed_rows(m, f);
        }
    }
    /* attachments after every mesh: 3 rows of 1 particle column, + 4 body columns when the body is dynamic */
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        if (!mo_fem_attach_live(w, &fx->att[i])) continue;
        rows += 3;
        nz += w->bodies[fx->att[i].body].owner >= 0 ? 15 : 3;
    }
    /* rigid points on boundary triangles: 3 rows (normal, 2 friction) of 9 particle columns, + 6 for a
       dynamic body */
    for (int i = 0; fx && i < fx->nsc; i++) {
        rows += 3;
        nz += 3 * (w->bodies[fx->sc[i].body].owner >= 0 ? 15 : 9);
    }
    if (nnz) *nnz = nz;
    return rows;
}

void mo_fem_newton_pattern(const mo_world *w, int base, int *row_ptr, int *col)
{
    const int *dof = (const int *)w->owner_dof.p;
    int r = 0, p = base;
    row_ptr[0] = base;
    MO_FEM_EACH_MESH(w, m) {
        for (int t = 0; t < m->ntets; t++)
            for (int k = 0; k < mo_fem_tet_rows(m, t); k++) {
                for (int a = 0; a < 4; a++) {
                    int d0 = dof[w->particles[m->node_part[m->tets[4 * t + a]]].owner];
                    for (int c = 0; c < 3; c++) col[p++] = d0 + c;
                }
                row_ptr[++r] = p;
            }
        for (int f = 0; f < m->nfixed; f++)
            for (int c = 0; c < 3; c++) {
                if (!(m->faxes[f] & (1 << c))) continue;
                col[p++] = dof[w->particles[m->node_part[m->fixed[f]]].owner] + c;
                row_ptr[++r] = p;
            }
    }
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!mo_fem_attach_live(w, a)) continue;
        int dp = dof[w->particles[((const fem_world *)fx)->m[a->mesh].node_part[a->node]].owner];
        int ob = w->bodies[a->body].owner;
        for (int c = 0; c < 3; c++) {
            col[p++] = dp + c;
            if (ob >= 0) {
                col[p++] = dof[ob] + c;
                for (int k = 3; k < 6; k++) col[p++] = dof[ob] + k;
            }
            row_ptr[++r] = p;
        }
    }
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &((const fem_world *)fx)->m[k->mesh];
        for (int q = 0; q < 3; q++) {
            for (int a = 0; a < 3; a++) {
                int d0 = dof[w->particles[m->node_part[k->node[a]]].owner];
                for (int c = 0; c < 3; c++) col[p++] = d0 + c;
            }
            int ob = w->bodies[k->body].owner;
            if (ob >= 0)
                for (int c = 0; c < 6; c++) col[p++] = dof[ob] + c;
            row_ptr[++r] = p;
        }
    }
}

void mo_fem_newton_eval(const mo_world *w, double h, const double *ppx, const double *bpx, const double *bpq,
                        const int *row_ptr, double *val, double *wval, double *C, double *eps, double *kin)
{
    const fem_world *fw = (const fem_world *)w->fem;
    int r = 0;
    MO_FEM_EACH_MESH(w, m) {
        for (int t = 0; t < m->ntets; t++) {
            const mo_fem_material *mt = &m->kmat[m->tmat[t]];
            mo_fem_tet el = m->rest[t];
            if (m->act[t] != 0.0) mo_fem_tet_activate(&m->rest[t], m->act[t], &el);
            double x[12], im[4], F[9], Cr[7], Jac[84], ep[7];
            for (int a = 0; a < 4; a++) {
                int ps = m->node_part[m->tets[4 * t + a]];
                mo_v3_copy(x + 3 * a, ppx + 3 * ps);
                im[a] = w->particles[ps].inv_mass;
            }
            mo_fem_deformation_gradient(x, el.Dm_inv, F);
            int nr = mo_fem_tet_rows(m, t);
            if (nr == 2) { /* the paper's 2 rows (MO_FEM_NEO_HOOKEAN_2ROW) */
                mo_fem_nh_rows(mt, F, Cr);
                mo_fem_nh_jacobian(F, el.Dm_inv, Jac);
                mo_fem_nh_compliance(mt, el.V, ep);
            } else if (nr == 7) {
                double R[9], S[9];
                mo_fem_polar(F, R, S, NULL);
                mo_fem_nh7_rows(mt, F, R, Cr);
                mo_fem_nh7_jacobian(F, R, el.Dm_inv, Jac);
                mo_fem_nh7_compliance(mt, el.V, ep);
            } else {
                double R[9], S[9], Cv[6], Jv[72];
                mo_fem_polar(F, R, S, NULL);
                mo_fem_corot_rows(F, R, Cv);
                mo_fem_corot_jacobian(R, el.Dm_inv, Jv);
                /* normal rows on the eigenvectors of the normal compliance block (file comment) */
                static const double Q[3][3] = {{1.0 / SQ3, 1.0 / SQ3, 1.0 / SQ3},
                                               {1.0 / SQ2, -1.0 / SQ2, 0.0},
                                               {1.0 / SQ6, 1.0 / SQ6, -2.0 / SQ6}};
                for (int q = 0; q < 3; q++) {
                    Cr[q] = Q[q][0] * Cv[0] + Q[q][1] * Cv[1] + Q[q][2] * Cv[2];
                    for (int c = 0; c < 12; c++)
                        Jac[12 * q + c] = Q[q][0] * Jv[c] + Q[q][1] * Jv[12 + c] + Q[q][2] * Jv[24 + c];
                }
                for (int q = 3; q < 6; q++) {
                    Cr[q] = Cv[q];
                    for (int c = 0; c < 12; c++) Jac[12 * q + c] = Jv[12 * q + c];
                }
                double c = 1.0 / (mt->young * el.V);
                ep[0] = (1.0 - 2.0 * mt->poisson) * c;
                ep[1] = ep[2] = (1.0 + mt->poisson) * c;
                ep[3] = ep[4] = ep[5] = 1.0 / (mt->mu_l * el.V);
            }
            for (int k = 0; k < nr; k++, r++) {
                int p = row_ptr[r];
                for (int c = 0; c < 12; c++) {
                    val[p + c] = Jac[12 * k + c];
                    wval[p + c] = im[c / 3] * Jac[12 * k + c];
                }
                C[r] = Cr[k];
                eps[r] = ep[k];
            }
        }
        for (int f = 0; f < m->nfixed; f++) {
            int ps = m->node_part[m->fixed[f]];
            for (int c = 0; c < 3; c++) {
                if (!(m->faxes[f] & (1 << c))) continue;
                int p = row_ptr[r];
                val[p] = 1.0;
                wval[p] = w->particles[ps].inv_mass;
                C[r] = ppx[3 * ps + c] - (m->ftarget[3 * f + c] + h * m->fvel[3 * f + c]);
                eps[r] = 0.0;
                r++;
            }
        }
    }
    /* attachments: C = x_node+ - (x_body+ + R+ r); rows [e | -e, e x a] with a = R+ r (particle, body v, w) */
    const fem_ext *fx = (const fem_ext *)w->fem;
    const double *oim = (const double *)w->owner_inv_mass.p, *oiI = (const double *)w->owner_inv_I.p;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!mo_fem_attach_live(w, a)) continue;
        int ps = fw->m[a->mesh].node_part[a->node];
        int ob = w->bodies[a->body].owner;
        double ar[3];
        mo_q_rotate(ar, bpq + 4 * a->body, a->r);
        for (int c = 0; c < 3; c++, r++) {
            int p = row_ptr[r];
            val[p] = 1.0;
            wval[p] = w->particles[ps].inv_mass;
            if (ob >= 0) {
                double e[3] = {0.0, 0.0, 0.0}, ang[3], iang[3];
                e[c] = 1.0;
                mo_v3_cross(ang, e, ar);
                mo_m3_mulv(iang, oiI + 9 * ob, ang);
                val[p + 1] = -1.0;
                wval[p + 1] = -oim[ob];
                for (int k = 0; k < 3; k++) {
                    val[p + 2 + k] = ang[k];
                    wval[p + 2 + k] = iang[k];
                }
            }
            C[r] = ppx[3 * ps + c] - (bpx[3 * a->body + c] + ar[c]);
            eps[r] = a->eps;
        }
    }
    /* rigid points on boundary triangles: C = n . (p+ - sum b_i x_i+) - rad, rows [-b_i e | e, r+ x e]
       for e = n (the normal row), t1, t2 (the friction rows: C 0, J v their slip speed; kin: the part of
       J v from a kinematic body's motion, which is not in v) */
    for (int i = 0; fx && i < fx->nsc; i++) {
        const fem_scontact *k = &fx->sc[i];
        const fem_mesh *m = &fw->m[k->mesh];
        const mo_body *B = &w->bodies[k->body];
        double rp[3], pp[3];
        mo_q_rotate(rp, bpq + 4 * k->body, k->r);
        mo_v3_add(pp, bpx + 3 * k->body, rp);
        const int ob = B->owner;
        const double *dirs[3] = {k->n, k->t1, k->t2};
        for (int q = 0; q < 3; q++, r++) {
            const double *e = dirs[q];
            double cn = mo_v3_dot(e, pp);
            int p = row_ptr[r];
            for (int a = 0; a < 3; a++) {
                int ps = m->node_part[k->node[a]];
                cn -= k->b[a] * mo_v3_dot(e, ppx + 3 * ps);
                for (int c = 0; c < 3; c++, p++) {
                    val[p] = -k->b[a] * e[c];
                    wval[p] = w->particles[ps].inv_mass * val[p];
                }
            }
            double ang[3];
            mo_v3_cross(ang, rp, e);
            if (ob >= 0) {
                double iang[3];
                mo_m3_mulv(iang, oiI + 9 * ob, ang);
                for (int c = 0; c < 3; c++) {
                    val[p + c] = e[c];
                    wval[p + c] = oim[ob] * e[c];
                    val[p + 3 + c] = ang[c];
                    wval[p + 3 + c] = iang[c];
                }
            }
            if (kin) kin[r] = ob < 0 && B->type == MO_BODY_KINEMATIC ? mo_v3_dot(e, B->k.v) + mo_v3_dot(ang, B->k.w) : 0.0;
            C[r] = q == 0 ? cn - k->rad : 0.0;
            eps[r] = q == 0 ? w->def.contact_compliance : 0.0;
        }
    }
}

void mo_fem_newton_geometric(const mo_world *w, const double *ppx, const double *lambda, double *kdiag)
{
    const int *dof = (const int *)w->owner_dof.p;
    int r = 0;
    MO_FEM_EACH_MESH(w, m) {
        for (int t = 0; t < m->ntets; t++) {
            int nr = mo_fem_tet_rows(m, t);
            double lD = nr == 2 ? lambda[r + 1] : 0.0; /* the 2-row form's C_D (the 7-row form has no diagonal curvature) */
            r += nr;
            if (!(lD < 0.0)) continue;
            mo_fem_tet el = m->rest[t];
            if (m->act[t] != 0.0) mo_fem_tet_activate(&m->rest[t], m->act[t], &el);
            double x[12], F[9], g[12], nf = 0.0;
            for (int a = 0; a < 4; a++) mo_v3_copy(x + 3 * a, ppx + 3 * m->node_part[m->tets[4 * t + a]]);
            mo_fem_deformation_gradient(x, el.Dm_inv, F);
            for (int k = 0; k < 9; k++) nf += F[k] * F[k];
            nf = sqrt(nf);
            if (!(nf > 0.0)) continue;
            mo_fem_shape_gradients(el.Dm_inv, g);
            double c = -lD / nf;
            for (int a = 0; a < 4; a++) {
                int d0 = dof[w->particles[m->node_part[m->tets[4 * t + a]]].owner];
                double gg = mo_v3_dot(g + 3 * a, g + 3 * a);
                for (int k = 0; k < 3; k++) {
                    double fg = (F[3 * k] * g[3 * a] + F[3 * k + 1] * g[3 * a + 1] + F[3 * k + 2] * g[3 * a + 2]) / nf;
                    double kk = c * (gg - fg * fg);
                    if (kk > 0.0) kdiag[d0 + k] += kk;
                }
            }
        }
        for (int f = 0; f < m->nfixed; f++) r += mo_fem_fixed_rows(m, f);
    }
}

void mo_fem_newton_tangent(const mo_world *w, const double *lambda, const double *eps, double *eps_t)
{
    int r = 0;
    MO_FEM_EACH_MESH(w, m) {
        for (int t = 0; t < m->ntets; t++) {
            int nr = mo_fem_tet_rows(m, t);
            if (nr == 7 && lambda[r] > 0.0) /* S rows: 1/(mu V + lambda_H) */
                for (int k = 1; k < 7; k++) eps_t[r + k] = eps[r + k] / (1.0 + eps[r + k] * lambda[r]);
            r += nr;
        }
        for (int f = 0; f < m->nfixed; f++) r += mo_fem_fixed_rows(m, f);
    }
}

void mo_fem_newton_lambda_get(const mo_world *w, bool warm, double *lambda)
{
    int r = 0;
    MO_FEM_EACH_MESH(w, m) {
        if (warm && m->have_lam) {
            for (int k = 0; k < m->nrows; k++) lambda[r + k] = isfinite(m->lam[k]) ? m->lam[k] : 0.0;
            r += m->nrows;
            continue;
        }
        /* the rest multipliers: corotational and fixed rows 0; Neo-Hookean (mu V, -sqrt(3) mu V) */
        for (int t = 0; t < m->ntets; t++) {
            int nr = mo_fem_tet_rows(m, t);
            if (nr == 2) {
                double V = m->rest[t].V * (1.0 + m->act[t]), mu = m->kmat[m->tmat[t]].nh_mu;
                lambda[r] = mu * V;
                lambda[r + 1] = -SQ3 * mu * V;
            } else if (nr == 7) {
                mo_fem_nh7_rest_multipliers(&m->kmat[m->tmat[t]], m->rest[t].V * (1.0 + m->act[t]), lambda + r);
            } else {
                for (int k = 0; k < nr; k++) lambda[r + k] = 0.0;
            }
            r += nr;
        }
        for (int f = 0; f < m->nfixed; f++)
            for (int k = 0; k < mo_fem_fixed_rows(m, f); k++) lambda[r++] = 0.0;
    }
    const fem_ext *fx = (const fem_ext *)w->fem;
    for (int i = 0; fx && i < fx->natt; i++) {
        const fem_attach *a = &fx->att[i];
        if (!mo_fem_attach_live(w, a)) continue;
        for (int k = 0; k < 3; k++) lambda[r++] = warm && a->have_lam && isfinite(a->lam[k]) ? a->lam[k] : 0.0;
    }
    for (int i = 0; fx && i < fx->nsc; i++)
        for (int q = 0; q < 3; q++) lambda[r++] = warm && isfinite(fx->sc[i].lam[q]) ? fx->sc[i].lam[q] : 0.0;
}

void mo_fem_newton_types(const mo_world *w, uint8_t *type)
{
    int nnz, n = mo_fem_newton_rows(w, &nnz);
    const fem_ext *fx = (const fem_ext *)w->fem;
    int r0 = n - 3 * (fx ? fx->nsc : 0);
    for (int r = 0; r < n; r++) type[r] = r < r0 ? MO_NROW_BILATERAL : (r - r0) % 3 ? MO_NROW_FRICTION : MO_NROW_NCP;
}

int mo_fem_newton_friction(const mo_world *w, int base, int *rn, double *mu)
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    if (!fx || fx->nsc == 0) return 0;
    int nnz, n = mo_fem_newton_rows(w, &nnz), r0 = base + n - 3 * fx->nsc;
    for (int i = 0; i < fx->nsc; i++) {
        if (rn) rn[i] = r0 + 3 * i;
        if (mu) mu[i] = fx->sc[i].mu;
    }
    return fx->nsc;
}

void mo_fem_newton_lambda_set(mo_world *w, const double *lambda)
{
    int r = 0;
    MO_FEM_EACH_MESH(w, m) {
        memcpy(m->lam, lambda + r, (size_t)m->nrows * sizeof(double));
        m->have_lam = true;
        r += m->nrows;
    }
    /* attachments keep their forces; their dynamic bodies count as constrained owners, so that
     * mo_step_integrate turns them by the solver's w+ alone (the pose the rows were solved at) */
    fem_ext *fx = (fem_ext *)w->fem;
    uint8_t *ocon = (uint8_t *)w->owner_constrained.p;
    for (int i = 0; fx && i < fx->natt; i++) {
        fem_attach *a = &fx->att[i];
        if (!mo_fem_attach_live(w, a)) continue;
        memcpy(a->lam, lambda + r, 3 * sizeof(double));
        a->have_lam = true;
        r += 3;
        int ob = w->bodies[a->body].owner;
        if (ob >= 0 && ocon) ocon[ob] = 1;
    }
    for (int i = 0; fx && i < fx->nsc; i++) {
        for (int q = 0; q < 3; q++) fx->sc[i].lam[q] = lambda[r++];
        int ob = w->bodies[fx->sc[i].body].owner;
        if (ob >= 0 && ocon) ocon[ob] = 1;
    }
}

void mo_fem_step_end(mo_world *w, double h)
{
    MO_FEM_EACH_MESH(w, m) {
        for (int f = 0; f < 3 * m->nfixed; f++) m->ftarget[f] += h * m->fvel[f];
    }
    mo_fem_attach_purge(w); /* attachments of bodies destroyed since */
}
