/* rows.h: per-row kernels of the assemble stage. Every constraint first writes
 * its rows as descriptors (the two sides' linear and angular Jacobian parts);
 * then each descriptor becomes one CSR row of J and the same row of
 * W = (M^-1 J^T)^T, independently of every other row (prefix-summed row
 * pointers), so the CPU loop and a GPU launch run the same body. */
#ifndef MO_KERNELS_ROWS_H
#define MO_KERNELS_ROWS_H

#include "vec.h"

/* one constraint row on up to two DOF owners (rigid body: 6 DOFs, particle: 3) */
typedef struct mo_k_row {
    int owner_a, owner_b;  /* index into the DOF-owner arrays, -1 = none (world, static, kinematic) */
    double ja[6], jb[6];   /* [linear(3), angular(3)] parts; particles use the linear part only */
} mo_k_row;

/* non-zeros of a row: all DOFs of both owners (kept dense per owner so that
 * M^-1 J^T has the same pattern as J) */
MO_KERNEL int mo_k_row_nnz(const mo_k_row *r, const int *owner_ndof)
{
    return (r->owner_a >= 0 ? owner_ndof[r->owner_a] : 0) + (r->owner_b >= 0 ? owner_ndof[r->owner_b] : 0);
}

/* writes one side's columns; owner_inv_I is 9 doubles per owner (unused for particles) */
MO_KERNEL int mo_k_row_side(int owner, const double *j, const int *owner_dof, const int *owner_ndof,
                            const double *owner_inv_mass, const double *owner_inv_I,
                            int *col, double *val, double *wval)
{
    int c0 = owner_dof[owner], nd = owner_ndof[owner];
    double im = owner_inv_mass[owner];
    for (int k = 0; k < 3; k++) {
        col[k] = c0 + k;
        val[k] = j[k];
        wval[k] = im * j[k];
    }
    if (nd == 6) {
        double a[3];
        mo_m3_mulv(a, owner_inv_I + 9 * owner, j + 3);
        for (int k = 0; k < 3; k++) {
            col[3 + k] = c0 + 3 + k;
            val[3 + k] = j[3 + k];
            wval[3 + k] = a[k];
        }
    }
    return nd;
}

/* fills row r of CSR J (columns ascending) and W starting at offset start */
MO_KERNEL void mo_k_fill_row(const mo_k_row *r, int start, const int *owner_dof, const int *owner_ndof,
                             const double *owner_inv_mass, const double *owner_inv_I,
                             int *col, double *val, double *wval)
{
    int first = r->owner_a, second = r->owner_b;
    const double *jf = r->ja, *js = r->jb;
    if (first >= 0 && second >= 0 && owner_dof[second] < owner_dof[first]) {
        int t = first; first = second; second = t;
        const double *tj = jf; jf = js; js = tj;
    }
    int p = start;
    if (first < 0) { first = second; jf = js; second = -1; }
    if (first >= 0)
        p += mo_k_row_side(first, jf, owner_dof, owner_ndof, owner_inv_mass, owner_inv_I,
                           col + p, val + p, wval + p);
    if (second >= 0)
        mo_k_row_side(second, js, owner_dof, owner_ndof, owner_inv_mass, owner_inv_I,
                      col + p, val + p, wval + p);
}

/* the row of a point constraint along unit direction e between a point with
 * offset ra from A's centre and a point with offset rb from B's centre:
 * [-e, -(ra x e), e, rb x e] */
MO_KERNEL void mo_k_point_row(mo_k_row *r, const double *e, const double *ra, const double *rb)
{
    double c[3];
    mo_v3_scale(r->ja, e, -1.0);
    mo_v3_cross(c, ra, e);
    mo_v3_scale(r->ja + 3, c, -1.0);
    mo_v3_copy(r->jb, e);
    mo_v3_cross(r->jb + 3, rb, e);
}

/* the row of an angular constraint about unit world axis e: [0, -e, 0, e] */
MO_KERNEL void mo_k_angular_row(mo_k_row *r, const double *e)
{
    mo_v3_set(r->ja, 0.0, 0.0, 0.0);
    mo_v3_scale(r->ja + 3, e, -1.0);
    mo_v3_set(r->jb, 0.0, 0.0, 0.0);
    mo_v3_copy(r->jb + 3, e);
}

/* J_row . v for a row descriptor against the owners' velocities (6 or 3 per owner) */
MO_KERNEL double mo_k_row_dot(const mo_k_row *r, const int *owner_dof, const int *owner_ndof, const double *v)
{
    double s = 0.0;
    if (r->owner_a >= 0) {
        const double *va = v + owner_dof[r->owner_a];
        for (int k = 0; k < owner_ndof[r->owner_a]; k++) s += r->ja[k] * va[k];
    }
    if (r->owner_b >= 0) {
        const double *vb = v + owner_dof[r->owner_b];
        for (int k = 0; k < owner_ndof[r->owner_b]; k++) s += r->jb[k] * vb[k];
    }
    return s;
}

/* how a row's sigma and b are formed from its aux data (SOLVERS.md A, SPOOK) */
enum {
    MO_ROW_SPOOK = 0,      /* equality: SPOOK with g and compliance eps */
    MO_ROW_UNILATERAL = 1, /* contact normal or limit: speculative for g >= 0, SPOOK with capped push-out for g < 0 */
    MO_ROW_TANGENT = 2,    /* friction: b = 0 */
    MO_ROW_DIRECT = 3,     /* motors and drives: sigma = eps, b = bconst */
};

typedef struct mo_row_aux {
    int mode;              /* MO_ROW_* */
    double g;              /* constraint value, m or rad */
    double eps;            /* compliance (SPOOK, UNILATERAL) or sigma itself (DIRECT) */
    double bconst;         /* DIRECT rows' b */
    double jv_kin;         /* J . v of the sides that are not DOF owners (kinematic bodies) */
} mo_row_aux;

/* Sigma and b of one row. jv is J . v at the start of the step over all sides
 * (owners and kinematic), d = tau/h the damping in steps. SPOOK:
 *     Sigma = 4 eps / (h^2 (1 + 4d)),  b = (4/h) g / (1 + 4d) - J v / (1 + 4d)
 * so that the row reads J v+ + Sigma gamma = -(4/h) g/(1+4d) + J v/(1+4d), every
 * term a velocity. Unilateral rows with g >= 0 are speculative (b = g/h: the gap
 * may close within the step, no sooner); with g < 0 the push-out speed
 * (4/h)(-g)/(1 + 4d) is capped at max_push, and the SPOOK term -J v/(1 + 4d)
 * is left out: it would let a row that is already penetrating keep
 * approaching at a 17th of its speed (b jumps at g = 0: a limit reached
 * exactly, g = -1e-16 after rounding, overshot by 0.8 mm), so a penetrating
 * unilateral row only ever separates, at the push-out speed. The kinematic sides' known
 * velocity J_kin v_kin moves to b, since only owners' DOFs are unknowns. */
MO_KERNEL void mo_k_row_rhs(const mo_row_aux *a, double jv, double h, double d, double max_push,
                            double *sigma, double *b)
{
    double ups = 1.0 / (1.0 + 4.0 * d);
    switch (a->mode) {
    case MO_ROW_SPOOK:
        *sigma = 4.0 * a->eps / (h * h) * ups;
        *b = (4.0 / h) * a->g * ups - jv * ups + a->jv_kin;
        break;
    case MO_ROW_UNILATERAL:
        *sigma = 4.0 * a->eps / (h * h) * ups;
        if (a->g >= 0.0) {
            *b = a->g / h + a->jv_kin;
        } else {
            double push = -(4.0 / h) * a->g * ups;
            if (push > max_push) push = max_push;
            *b = -push + a->jv_kin;
        }
        break;
    case MO_ROW_TANGENT:
        *sigma = 0.0;
        *b = a->jv_kin;
        break;
    default:
        *sigma = a->eps;
        *b = a->bconst + a->jv_kin;
        break;
    }
}

#endif
