/* kinematics.c: an articulation's forward kinematics, link velocities, point
 * Jacobians, energies and momentum (artic.h has the frames). Each walks the
 * links in order, parents first: O(n), the Jacobian O(depth). */
#include <math.h>

#include "artic/artic.h"

/* X_J(q_i): the joint frame -> the link frame, for link l at its coordinates qi (nq) */
static mo_sxform joint_xform(const mo_artic_link *l, const double *qi)
{
    mo_sxform X = mo_sx_identity();
    double R[9], quat[4];
    switch (l->joint) {
    case MO_ARTIC_REVOLUTE: {
        double s = sin(0.5 * qi[0]);
        quat[0] = cos(0.5 * qi[0]);
        quat[1] = s * l->axis[0]; quat[2] = s * l->axis[1]; quat[3] = s * l->axis[2];
        mo_q_to_m3(R, quat);
        mo_m3_transpose(X.E, R);
        break;
    }
    case MO_ARTIC_PRISMATIC: mo_v3_scale(X.r, l->axis, qi[0]); break;
    case MO_ARTIC_SPHERICAL:
    case MO_ARTIC_FREE: {
        const double *qq = qi + (l->joint == MO_ARTIC_FREE ? 3 : 0);
        quat[0] = qq[0]; quat[1] = qq[1]; quat[2] = qq[2]; quat[3] = qq[3];
        (void)mo_q_normalize(quat);
        mo_q_to_m3(R, quat);
        mo_m3_transpose(X.E, R);
        if (l->joint == MO_ARTIC_FREE) mo_v3_copy(X.r, qi);
        break;
    }
    default: break;
    }
    return X;
}

void mo_artic_forward_kinematics(const mo_artic_model *m, mo_artic_data *d, const double *q, double *pos,
                                 double *rot)
{
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        mo_sxform xj = joint_xform(l, q + l->q_ofs);
        d->xup[i] = mo_sx_compose(&xj, &l->xt);
        d->x0[i] = l->parent < 0 ? d->xup[i] : mo_sx_compose(&d->xup[i], &d->x0[l->parent]);
        if (pos) mo_v3_copy(pos + 3 * i, d->x0[i].r);
        if (rot) mo_m3_transpose(rot + 9 * i, d->x0[i].E);
    }
}

/* d->vel from d->xup (forward kinematics done) and v */
static void link_velocities(const mo_artic_model *m, mo_artic_data *d, const double *v)
{
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        double *vi = d->vel + 6 * i;
        if (l->parent < 0) for (int k = 0; k < 6; k++) vi[k] = 0.0;
        else mo_sx_motion(vi, &d->xup[i], d->vel + 6 * l->parent);
        for (int j = 0; j < l->nv; j++) {
            const double *s = m->S + 6 * (l->v_ofs + j);
            for (int k = 0; k < 6; k++) vi[k] += s[k] * v[l->v_ofs + j];
        }
    }
}

void mo_artic_velocities(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v, double *out)
{
    mo_artic_forward_kinematics(m, d, q, NULL, NULL);
    link_velocities(m, d, v);
    if (!out) return;
    for (int i = 0; i < m->nlink; i++) {
        mo_m3_tmulv(out + 6 * i, d->x0[i].E, d->vel + 6 * i);
        mo_m3_tmulv(out + 6 * i + 3, d->x0[i].E, d->vel + 6 * i + 3);
    }
}

void mo_artic_point_jacobian(const mo_artic_model *m, mo_artic_data *d, const double *q, int link,
                             const double *point, double *jv, double *jw, double *world_point)
{
    int nv = m->nv;
    mo_artic_forward_kinematics(m, d, q, NULL, NULL);
    double P[3];
    mo_m3_tmulv(P, d->x0[link].E, point);
    mo_v3_add(P, P, d->x0[link].r);
    if (world_point) mo_v3_copy(world_point, P);
    for (int r = 0; r < 3 * nv; r++) {
        if (jv) jv[r] = 0.0;
        if (jw) jw[r] = 0.0;
    }
    /* each dof on the path: its motion subspace column moved to the world and to the point */
    for (int a = link; a >= 0; a = m->links[a].parent) {
        const mo_artic_link *l = &m->links[a];
        const mo_sxform *X = &d->x0[a];
        double rel[3];
        mo_v3_sub(rel, P, X->r);
        for (int j = 0; j < l->nv; j++) {
            int k = l->v_ofs + j;
            const double *s = m->S + 6 * k;
            double w[3], u[3], t[3];
            mo_m3_tmulv(w, X->E, s);
            mo_m3_tmulv(u, X->E, s + 3);
            mo_v3_cross(t, w, rel);
            mo_v3_add(u, u, t);
            for (int r = 0; r < 3; r++) {
                if (jv) jv[r * nv + k] = u[r];
                if (jw) jw[r * nv + k] = w[r];
            }
        }
    }
}

void mo_artic_point_force(const double *p, const double *f, double *out)
{
    double n[3];
    mo_v3_cross(n, p, f);
    mo_v3_copy(out + 3, f);
    mo_v3_copy(out, n);
}

double mo_artic_kinetic_energy(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v)
{
    mo_artic_velocities(m, d, q, v, NULL);
    double e = 0.0;
    for (int i = 0; i < m->nlink; i++) {
        double h[6];
        mo_si_apply(h, &m->links[i].inertia, d->vel + 6 * i);
        e += 0.5 * mo_sp_dot(d->vel + 6 * i, h);
    }
    return e;
}

double mo_artic_potential_energy(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *gravity)
{
    mo_artic_forward_kinematics(m, d, q, NULL, NULL);
    double e = 0.0;
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        double c[3];
        mo_m3_tmulv(c, d->x0[i].E, l->com);
        mo_v3_add(c, c, d->x0[i].r);
        e -= l->mass * mo_v3_dot(gravity, c);
    }
    return e;
}

void mo_artic_momentum(const mo_artic_model *m, mo_artic_data *d, const double *q, const double *v, double *out)
{
    mo_artic_velocities(m, d, q, v, NULL);
    for (int k = 0; k < 6; k++) out[k] = 0.0;
    for (int i = 0; i < m->nlink; i++) {
        double h[6], hw[6];
        mo_si_apply(h, &m->links[i].inertia, d->vel + 6 * i);
        mo_sx_force_inv(hw, &d->x0[i], h);
        for (int k = 0; k < 6; k++) out[k] += hw[k];
    }
}

double mo_artic_rotation_angle(const double *quat, double *n)
{
    const double s = sqrt(quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
    if (!(s > 0.0)) {
        n[0] = 1.0;
        n[1] = n[2] = 0.0;
        return 0.0;
    }
    const double sign = quat[0] < 0.0 ? -1.0 : 1.0; /* -q is the same rotation: its axis is -v */
    for (int i = 0; i < 3; i++) n[i] = sign * quat[1 + i] / s;
    return 2.0 * atan2(s, fabs(quat[0]));
}
