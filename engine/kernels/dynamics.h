/* dynamics.h: per-body kernels of the predict and integrate stages.
 *
 * predict: v~ = v + h M^-1 f_ext, with the gyroscopic term implicit in the body
 * frame. SOLVERS.md suggests one Newton step of backward Euler on
 *     I (w' - w) + h w' x I w' = 0
 * (Bullet, Box2D); measured here, that loses 14 % of the energy of a body
 * tumbling at |w| = 3.7 rad/s in 10 s at h = 1/120 (tests/test_physics.c).
 * The implicit midpoint rule,
 *     I (w' - w) + h wm x I wm = 0,  wm = (w + w') / 2,
 * conserves both quadratic invariants of Euler's equations (w.Iw and |Iw|)
 * exactly, so it is used instead, solved by Newton (2-4 iterations to 1e-14).
 * Explicit Euler gains energy and is not acceptable.
 * Damping is implicit too: v <- v / (1 + h c). */
#ifndef MO_KERNELS_DYNAMICS_H
#define MO_KERNELS_DYNAMICS_H

#include "vec.h"

/* body state the kernels read and write; q is (w, x, y, z) */
typedef struct mo_k_body {
    double x[3], q[4], v[3], w[3];
    double f[3], tau[3];       /* applied force and torque, world */
    double wrot[3];            /* this step's gyroscopic rotation correction (mo_k_predict_body_ex) */
    double inv_mass;
    double I_body[9];          /* body-frame inertia */
    double inv_I_body[9];
    double lin_damp, ang_damp;
    int gyroscopic;
} mo_k_body;

/* r = skew(a) * M, i.e. each column c of M becomes a x M_c */
MO_KERNEL void mo_k_skew_mul(double *r, const double *a, const double *M)
{
    for (int c = 0; c < 3; c++) {
        double col[3] = {M[c], M[3 + c], M[6 + c]}, out[3];
        mo_v3_cross(out, a, col);
        r[c] = out[0]; r[3 + c] = out[1]; r[6 + c] = out[2];
    }
}

/* unconstrained velocities v~, w~ of one dynamic body under gravity g; wrot
 * (may be NULL) receives the rotation correction (w0 + w')/2 - w' of the
 * gyroscopic midpoint step, world frame, for mo_k_integrate_pose */
MO_KERNEL void mo_k_predict_body_ex(const mo_k_body *b, const double *g, double h, double *vt, double *wt,
                                    double *wrot)
{
    /* linear: gravity + applied force, implicit damping */
    for (int k = 0; k < 3; k++) vt[k] = b->v[k] + h * (g[k] + b->inv_mass * b->f[k]);
    if (b->lin_damp > 0.0) mo_v3_scale(vt, vt, 1.0 / (1.0 + h * b->lin_damp));

    /* angular, in the body frame */
    double R[9], wb[3], tb[3];
    mo_q_to_m3(R, b->q);
    mo_m3_tmulv(wb, R, b->w);
    mo_m3_tmulv(tb, R, b->tau);
    if (b->gyroscopic) {
        /* implicit midpoint: I (w' - w) + h wm x I wm = 0, wm = (w + w')/2,
         * Newton on F(w') with dF/dw' = I + h/2 (skew(wm) I - skew(I wm)) */
        double w0[3] = {wb[0], wb[1], wb[2]}, Iw0[3];
        mo_m3_mulv(Iw0, b->I_body, w0);
        for (int it = 0; it < 8; it++) {
            double wm[3], Iwm[3], c[3], Iw[3], F[3], J[9], S1[9], S2[9], Ji[9], dw[3];
            for (int k = 0; k < 3; k++) wm[k] = 0.5 * (w0[k] + wb[k]);
            mo_m3_mulv(Iwm, b->I_body, wm);
            mo_v3_cross(c, wm, Iwm);
            mo_m3_mulv(Iw, b->I_body, wb);
            for (int k = 0; k < 3; k++) F[k] = Iw[k] - Iw0[k] + h * c[k];
            mo_k_skew_mul(S1, wm, b->I_body);
            S2[0] = 0.0;     S2[1] = -Iwm[2]; S2[2] = Iwm[1];
            S2[3] = Iwm[2];  S2[4] = 0.0;     S2[5] = -Iwm[0];
            S2[6] = -Iwm[1]; S2[7] = Iwm[0];  S2[8] = 0.0;
            for (int k = 0; k < 9; k++) J[k] = b->I_body[k] + 0.5 * h * (S1[k] - S2[k]);
            if (!mo_m3_inverse(Ji, J)) break;
            mo_m3_mulv(dw, Ji, F);
            mo_v3_sub(wb, wb, dw);
            if (mo_v3_dot(dw, dw) <= 1e-28 * (1.0 + mo_v3_dot(wb, wb))) break;
        }
        if (wrot) {
            double d[3] = {0.5 * (w0[0] - wb[0]), 0.5 * (w0[1] - wb[1]), 0.5 * (w0[2] - wb[2])};
            mo_m3_mulv(wrot, R, d);
        }
    } else if (wrot) {
        mo_v3_set(wrot, 0.0, 0.0, 0.0);
    }
    double dwt[3];
    mo_m3_mulv(dwt, b->inv_I_body, tb);
    mo_v3_axpy(wb, h, dwt);
    mo_m3_mulv(wt, R, wb);
    if (b->ang_damp > 0.0) mo_v3_scale(wt, wt, 1.0 / (1.0 + h * b->ang_damp));
}

MO_KERNEL void mo_k_predict_body(const mo_k_body *b, const double *g, double h, double *vt, double *wt)
{
    mo_k_predict_body_ex(b, g, h, vt, wt, (double *)0);
}

/* positions from the new velocity: x += h v, and q rotated by the Cayley map
 * of h w: q' = normalise((1, h w / 2)) q, a rotation by 2 atan(h |w| / 2)
 * about w. With w = w+ + wrot (wrot from mo_k_predict_body_ex) a free body
 * turns by the Cayley map of h times its midpoint angular velocity, the
 * rotation that carries the midpoint step's body-frame angular momentum
 * (itself a Cayley rotation of the old one) back onto the old world angular
 * momentum: world L is conserved exactly along with the energy. */
MO_KERNEL void mo_k_integrate_pose(double *x, double *q, const double *v, const double *w, double h)
{
    mo_v3_axpy(x, h, v);
    double dq[4] = {1.0, 0.5 * h * w[0], 0.5 * h * w[1], 0.5 * h * w[2]}, r[4];
    mo_q_mul(r, dq, q);
    for (int k = 0; k < 4; k++) q[k] = r[k];
    mo_q_normalize(q);
}

/* a dynamic body's pose from its new velocity (v, w) and the gyroscopic
 * correction wrot: turns by the Cayley map of h (w + wrot) and turns w with it,
 * so that the body-frame angular velocity the solver produced is kept (the
 * world angular velocity of a free body is not constant; its body-frame one
 * after the midpoint step is what the step computed) */
MO_KERNEL void mo_k_integrate_body(double *x, double *q, const double *v, double *w, const double *wrot, double h)
{
    mo_v3_axpy(x, h, v);
    double a[3] = {w[0] + wrot[0], w[1] + wrot[1], w[2] + wrot[2]};
    double dq[4] = {1.0, 0.5 * h * a[0], 0.5 * h * a[1], 0.5 * h * a[2]}, r[4];
    mo_q_normalize(dq);
    mo_q_mul(r, dq, q);
    for (int k = 0; k < 4; k++) q[k] = r[k];
    mo_q_normalize(q);
    mo_q_rotate(r, dq, w);
    mo_v3_copy(w, r);
}

/* world inverse inertia R I^-1 R^T */
MO_KERNEL void mo_k_world_inv_inertia(double *r, const double *q, const double *inv_I_body)
{
    double R[9];
    mo_q_to_m3(R, q);
    mo_m3_rotate_tensor(r, R, inv_I_body);
}

#endif
