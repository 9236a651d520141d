/* cone.h: projections onto the sets K of the cone complementarity problem
 * (SOLVERS.md A): R for bilateral rows, R+ for unilateral rows, [lo, hi] for
 * boxed rows, and the Coulomb cone F_mu = {(gn, gt): |gt| <= mu gn}. */
#ifndef MO_KERNELS_CONE_H
#define MO_KERNELS_CONE_H

#include <math.h>
#include "kernel.h"

/* block kinds of the assembled problem */
enum {
    MO_BLOCK_BILATERAL = 0, /* 1 row, K = R */
    MO_BLOCK_UNILATERAL = 1,/* 1 row, K = R+ */
    MO_BLOCK_BOXED = 2,     /* 1 row, K = [lo, hi] */
    MO_BLOCK_CONTACT = 3,   /* 3 rows (normal, t1, t2), K = F_mu */
};

/* Euclidean projection of x = (xn, xt1, xt2) onto F_mu, in place:
 * inside -> unchanged; inside the polar cone (mu s <= -xn) -> 0;
 * otherwise ((xn + mu s)/(1 + mu^2)) (1, mu xt/s). mu = 0 -> (max(xn,0), 0, 0). */
MO_KERNEL void mo_k_project_cone(double *x, double mu)
{
    /* mu = 0 first: there "s <= mu xn" would accept (xn < 0, 0, 0) as inside */
    if (mu <= 0.0) { x[0] = x[0] > 0.0 ? x[0] : 0.0; x[1] = 0.0; x[2] = 0.0; return; }
    double s = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (s <= mu * x[0]) return;
    if (mu * s <= -x[0]) { x[0] = 0.0; x[1] = 0.0; x[2] = 0.0; return; }
    double n = (x[0] + mu * s) / (1.0 + mu * mu);
    double k = mu * n / s;
    x[0] = n; x[1] *= k; x[2] *= k;
}

MO_KERNEL double mo_k_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* project one block (rows x[0..]) of the given kind */
MO_KERNEL void mo_k_project_block(double *x, int kind, double mu, double lo, double hi)
{
    switch (kind) {
    case MO_BLOCK_UNILATERAL: if (x[0] < 0.0) x[0] = 0.0; break;
    case MO_BLOCK_BOXED: x[0] = mo_k_clamp(x[0], lo, hi); break;
    case MO_BLOCK_CONTACT: mo_k_project_cone(x, mu); break;
    default: break;
    }
}

/* Siconos/FCLIB per-contact error term (MANIFEST.md): with u the contact's
 * velocity (normal first) and r its impulse, u_bar = u + (mu |u_t|, 0, 0),
 * e = r - P_K(r - u_bar); returns |e|^2. */
MO_KERNEL double mo_k_coulomb_error_sq(const double *r, const double *u, double mu)
{
    double ut = sqrt(u[1] * u[1] + u[2] * u[2]);
    double y[3] = {r[0] - (u[0] + mu * ut), r[1] - u[1], r[2] - u[2]};
    mo_k_project_cone(y, mu);
    double e0 = r[0] - y[0], e1 = r[1] - y[1], e2 = r[2] - y[2];
    return e0 * e0 + e1 * e1 + e2 * e2;
}

#endif
