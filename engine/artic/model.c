/* model.c: an articulation's model (checked link defs, index layout, the dof
 * tree and the tree-sparse pattern), its workspace, and the coordinates
 * (neutral configuration, state check, integration on the manifold). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "artic/artic.h"

mo_artic_link_def mo_artic_default_link_def(void)
{
    mo_artic_link_def d;
    memset(&d, 0, sizeof d);
    d.name = NULL;
    d.parent = -1;
    d.joint = MO_ARTIC_FIXED;
    d.axis[2] = 1.0;
    d.joint_rot[0] = 1.0;
    d.mass = 1.0;
    d.inertia[0] = d.inertia[4] = d.inertia[8] = 0.01;
    return d;
}

static const char *joint_name(int t)
{
    switch (t) {
    case MO_ARTIC_FIXED: return "fixed";
    case MO_ARTIC_REVOLUTE: return "revolute";
    case MO_ARTIC_PRISMATIC: return "prismatic";
    case MO_ARTIC_SPHERICAL: return "spherical";
    case MO_ARTIC_FREE: return "free";
    default: return "unknown";
    }
}

/* "link 3" or "link 3 (\"forearm\")" into buf */
static const char *link_label(char *buf, size_t n, int i, const char *name)
{
    if (name && name[0]) mo_errf(buf, n, "link %d (\"%.*s\")", i, MO_ARTIC_NAME_LEN - 1, name);
    else mo_errf(buf, n, "link %d", i);
    return buf;
}

/* the first failed check of link i's def, as a sentence into err; 0 when the def is good */
static int check_def(const mo_artic_link_def *d, int i, int nfree_before, int first_free, char *err, size_t n)
{
    char lab[MO_ARTIC_NAME_LEN + 32];
    link_label(lab, sizeof lab, i, d->name);
    const char *fn = "mo_artic_model_create";
    if (i == 0 && d->parent != -1) {
        mo_errf(err, n, "%s: %s: parent %d: link 0 is the root and must have parent -1", fn, lab, d->parent);
        return 1;
    }
    if (i > 0 && d->parent == -1) {
        mo_errf(err, n, "%s: %s: parent -1: only link 0 may be a root (one tree per articulation)", fn, lab);
        return 1;
    }
    if (i > 0 && (d->parent < 0 || d->parent >= i)) {
        mo_errf(err, n, "%s: %s: parent %d is not before the link (parents must come first: 0 <= parent < %d)",
                fn, lab, d->parent, i);
        return 1;
    }
    if ((int)d->joint < MO_ARTIC_FIXED || (int)d->joint > MO_ARTIC_FREE) {
        mo_errf(err, n, "%s: %s: unknown joint type %d", fn, lab, (int)d->joint);
        return 1;
    }
    if (d->joint == MO_ARTIC_FREE && nfree_before > 0) {
        mo_errf(err, n, "%s: %s: a second free joint (link %d has one): an articulation has at most one, at its root",
                fn, lab, first_free);
        return 1;
    }
    if (d->joint == MO_ARTIC_FREE && i != 0) {
        mo_errf(err, n, "%s: %s: a free joint must be the root's (link 0), not a child's (parent %d)", fn, lab,
                d->parent);
        return 1;
    }
    struct { const char *what; const double *a; int n; } fields[] = {
        {"axis", d->axis, 3}, {"joint_pos", d->joint_pos, 3}, {"joint_rot", d->joint_rot, 4},
        {"mass", &d->mass, 1}, {"com", d->com, 3}, {"inertia", d->inertia, 9},
    };
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (int k = 0; k < fields[f].n; k++)
            if (!isfinite(fields[f].a[k])) {
                mo_errf(err, n, "%s: %s: %s[%d] is not finite (%g)", fn, lab, fields[f].what, k, fields[f].a[k]);
                return 1;
            }
    if ((d->joint == MO_ARTIC_REVOLUTE || d->joint == MO_ARTIC_PRISMATIC) && !(mo_v3_norm(d->axis) > 1e-12)) {
        mo_errf(err, n, "%s: %s: the %s joint's axis (%g, %g, %g) is zero", fn, lab, joint_name(d->joint),
                d->axis[0], d->axis[1], d->axis[2]);
        return 1;
    }
    const double *r = d->joint_rot;
    if (!(sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]) > 1e-12)) {
        mo_errf(err, n, "%s: %s: joint_rot (%g, %g, %g, %g) is zero (a quaternion (w, x, y, z) is needed)", fn, lab,
                r[0], r[1], r[2], r[3]);
        return 1;
    }
    if (d->mass < 0.0) {
        mo_errf(err, n, "%s: %s: negative mass %g kg", fn, lab, d->mass);
        return 1;
    }
    const double *I = d->inertia;
    double scale = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (fabs(I[3 * a + b] - I[3 * b + a]) > 1e-9 * scale) {
                mo_errf(err, n, "%s: %s: inertia is not symmetric: [%d][%d] = %g, [%d][%d] = %g", fn, lab, a, b,
                        I[3 * a + b], b, a, I[3 * b + a]);
                return 1;
            }
    bool zero = true;
    for (int k = 0; k < 9; k++) zero = zero && I[k] == 0.0;
    if (d->mass == 0.0) {
        if (!zero) {
            mo_errf(err, n, "%s: %s: mass 0 with a non-zero inertia (a massless link has a zero inertia)", fn, lab);
            return 1;
        }
        return 0;
    }
    /* Sylvester: the leading minors positive */
    double m1 = I[0], m2 = I[0] * I[4] - I[1] * I[3], m3 = mo_m3_det(I);
    if (!(m1 > 0.0 && m2 > 0.0 && m3 > 0.0)) {
        mo_errf(err, n,
                "%s: %s: inertia is not positive definite (diagonal %g, %g, %g; leading minors %g, %g, %g)", fn, lab,
                I[0], I[4], I[8], m1, m2, m3);
        return 1;
    }
    return 0;
}

static void joint_dims(int t, int *nq, int *nv)
{
    static const int q[] = {0, 1, 1, 4, 7}, v[] = {0, 1, 1, 3, 6};
    *nq = q[t];
    *nv = v[t];
}

mo_status mo_artic_model_create(const mo_artic_link_def *defs, int n, mo_artic_model **out, char *err,
                                size_t err_size)
{
    if (out) *out = NULL;
    if (!out || !defs) {
        mo_errf(err, err_size, "mo_artic_model_create: %s is NULL", out ? "defs" : "out");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (n < 1 || n > MO_ARTIC_MAX_LINKS) {
        mo_errf(err, err_size, "mo_artic_model_create: %d links (1 to %d)", n, MO_ARTIC_MAX_LINKS);
        return MO_ERR_INVALID_ARGUMENT;
    }
    int nfree = 0, first_free = -1;
    for (int i = 0; i < n; i++) {
        if (check_def(&defs[i], i, nfree, first_free, err, err_size)) return MO_ERR_INVALID_ARGUMENT;
        if (defs[i].joint == MO_ARTIC_FREE && nfree++ == 0) first_free = i;
    }

    mo_artic_model *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->nlink = n;
    m->links = calloc((size_t)n, sizeof *m->links);
    if (!m->links) goto oom;
    /* index layout */
    for (int i = 0; i < n; i++) {
        const mo_artic_link_def *d = &defs[i];
        mo_artic_link *l = &m->links[i];
        l->parent = d->parent;
        l->joint = (int)d->joint;
        joint_dims(l->joint, &l->nq, &l->nv);
        l->q_ofs = m->nq;
        l->v_ofs = m->nv;
        m->nq += l->nq;
        m->nv += l->nv;
        mo_v3_copy(l->axis, d->axis);
        if (l->joint == MO_ARTIC_REVOLUTE || l->joint == MO_ARTIC_PRISMATIC) (void)mo_v3_normalize(l->axis);
        else mo_v3_set(l->axis, 0, 0, 1);
        /* X_T: E rotates parent axes to joint axes = R_T^T, r = the joint origin in the parent */
        double qr[4] = {d->joint_rot[0], d->joint_rot[1], d->joint_rot[2], d->joint_rot[3]}, R[9];
        (void)mo_q_normalize(qr);
        mo_q_to_m3(R, qr);
        mo_m3_transpose(l->xt.E, R);
        mo_v3_copy(l->xt.r, d->joint_pos);
        l->mass = d->mass;
        mo_v3_copy(l->com, d->com);
        for (int k = 0; k < 9; k++) l->inertia_c[k] = 0.5 * (d->inertia[k] + d->inertia[3 * (k % 3) + k / 3]);
        l->inertia = mo_si_from_body(l->mass, l->com, l->inertia_c);
        if (d->name) {
            strncpy(l->name, d->name, MO_ARTIC_NAME_LEN - 1);
            l->name[MO_ARTIC_NAME_LEN - 1] = 0;
        }
    }
    /* the dof tree and the pattern */
    int nv = m->nv;
    size_t nvs = nv > 0 ? (size_t)nv : 1;
    m->S = calloc(nvs * 6, sizeof *m->S);
    m->dof_link = calloc(nvs, sizeof *m->dof_link);
    m->dof_parent = calloc(nvs, sizeof *m->dof_parent);
    m->ld_ofs = calloc(nvs, sizeof *m->ld_ofs);
    m->ld_len = calloc(nvs, sizeof *m->ld_len);
    if (!m->S || !m->dof_link || !m->dof_parent || !m->ld_ofs || !m->ld_len) goto oom;
    for (int i = 0; i < n; i++) {
        const mo_artic_link *l = &m->links[i];
        /* the last dof above this link: walk up to the nearest ancestor with dofs */
        int up = -1;
        for (int a = l->parent; a >= 0; a = m->links[a].parent)
            if (m->links[a].nv > 0) {
                up = m->links[a].v_ofs + m->links[a].nv - 1;
                break;
            }
        for (int j = 0; j < l->nv; j++) {
            int k = l->v_ofs + j;
            double *s = m->S + 6 * k;
            m->dof_link[k] = i;
            m->dof_parent[k] = j == 0 ? up : k - 1;
            m->ld_len[k] = m->dof_parent[k] < 0 ? 0 : m->ld_len[m->dof_parent[k]] + 1;
            switch (l->joint) {
            case MO_ARTIC_REVOLUTE: mo_v3_copy(s, l->axis); break;
            case MO_ARTIC_PRISMATIC: mo_v3_copy(s + 3, l->axis); break;
            case MO_ARTIC_SPHERICAL: s[j] = 1.0; break;
            case MO_ARTIC_FREE: s[j < 3 ? 3 + j : j - 3] = 1.0; break; /* (v_lin, w) */
            default: break;
            }
        }
    }
    for (int k = 0; k < nv; k++) {
        m->ld_ofs[k] = m->ld_size;
        m->ld_size += m->ld_len[k];
    }
    *out = m;
    return MO_OK;
oom:
    mo_artic_model_destroy(m);
    mo_errf(err, err_size, "mo_artic_model_create: out of memory (%d links)", n);
    return MO_ERR_OUT_OF_MEMORY;
}

void mo_artic_model_destroy(mo_artic_model *m)
{
    if (!m) return;
    free(m->links);
    free(m->S);
    free(m->dof_link);
    free(m->dof_parent);
    free(m->ld_ofs);
    free(m->ld_len);
    free(m);
}

mo_status mo_artic_data_create(const mo_artic_model *m, mo_artic_data **out)
{
    *out = NULL;
    mo_artic_data *d = calloc(1, sizeof *d);
    if (!d) return MO_ERR_OUT_OF_MEMORY;
    size_t n = (size_t)m->nlink, nv = m->nv > 0 ? (size_t)m->nv : 1, ns = m->ld_size > 0 ? (size_t)m->ld_size : 1;
    d->xup = calloc(n, sizeof *d->xup);
    d->x0 = calloc(n, sizeof *d->x0);
    d->vel = calloc(6 * n, sizeof *d->vel);
    d->acc = calloc(6 * n, sizeof *d->acc);
    d->frc = calloc(6 * n, sizeof *d->frc);
    d->ic = calloc(n, sizeof *d->ic);
    d->hm = calloc(ns, sizeof *d->hm);
    d->hm_diag = calloc(nv, sizeof *d->hm_diag);
    d->ld = calloc(ns, sizeof *d->ld);
    d->ld_diag = calloc(nv, sizeof *d->ld_diag);
    d->tmp = calloc(5 * nv + (size_t)m->nq, sizeof *d->tmp);
    if (!d->xup || !d->x0 || !d->vel || !d->acc || !d->frc || !d->ic || !d->hm || !d->hm_diag || !d->ld ||
        !d->ld_diag || !d->tmp) {
        mo_artic_data_destroy(d);
        return MO_ERR_OUT_OF_MEMORY;
    }
    *out = d;
    return MO_OK;
}

void mo_artic_data_destroy(mo_artic_data *d)
{
    if (!d) return;
    free(d->xup);
    free(d->x0);
    free(d->vel);
    free(d->acc);
    free(d->frc);
    free(d->ic);
    free(d->hm);
    free(d->hm_diag);
    free(d->ld);
    free(d->ld_diag);
    free(d->tmp);
    free(d);
}

/* ---- coordinates ---- */

void mo_artic_q_neutral(const mo_artic_model *m, double *q)
{
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        double *qi = q + l->q_ofs;
        for (int k = 0; k < l->nq; k++) qi[k] = 0.0;
        if (l->joint == MO_ARTIC_SPHERICAL) qi[0] = 1.0;
        if (l->joint == MO_ARTIC_FREE) qi[3] = 1.0;
    }
}

mo_status mo_artic_check_state(const mo_artic_model *m, const double *q, const double *v, char *err,
                               size_t err_size)
{
    char lab[MO_ARTIC_NAME_LEN + 32];
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        for (int k = 0; k < l->nq; k++)
            if (!isfinite(q[l->q_ofs + k])) {
                mo_errf(err, err_size, "mo_artic_check_state: %s: q[%d] (the %s joint's coordinate %d) is not finite (%g)",
                        link_label(lab, sizeof lab, i, l->name), l->q_ofs + k, joint_name(l->joint), k,
                        q[l->q_ofs + k]);
                return MO_ERR_INVALID_ARGUMENT;
            }
        if (v)
            for (int k = 0; k < l->nv; k++)
                if (!isfinite(v[l->v_ofs + k])) {
                    mo_errf(err, err_size, "mo_artic_check_state: %s: v[%d] (the %s joint's velocity %d) is not finite (%g)",
                            link_label(lab, sizeof lab, i, l->name), l->v_ofs + k, joint_name(l->joint), k,
                            v[l->v_ofs + k]);
                    return MO_ERR_INVALID_ARGUMENT;
                }
        if (l->joint == MO_ARTIC_SPHERICAL || l->joint == MO_ARTIC_FREE) {
            const double *qq = q + l->q_ofs + (l->joint == MO_ARTIC_FREE ? 3 : 0);
            double len = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
            if (!(len >= 0.5 && len <= 2.0)) {
                mo_errf(err, err_size, "mo_artic_check_state: %s: the %s joint's quaternion has length %g (0.5 to 2)",
                        link_label(lab, sizeof lab, i, l->name), joint_name(l->joint), len);
                return MO_ERR_INVALID_ARGUMENT;
            }
        }
    }
    return MO_OK;
}

/* quat = quat exp(h w / 2), renormalised (w in the rotated frame) */
static void quat_step(double *quat, const double *w, double h)
{
    double t[3], e[4];
    mo_v3_scale(t, w, h);
    mo_q_exp(e, t);
    mo_q_mul(quat, quat, e);
    (void)mo_q_normalize(quat);
}

void mo_artic_integrate(const mo_artic_model *m, const double *q, const double *v, double h, double *q_out)
{
    for (int i = 0; i < m->nlink; i++) {
        const mo_artic_link *l = &m->links[i];
        const double *qi = q + l->q_ofs, *vi = v + l->v_ofs;
        double *qo = q_out + l->q_ofs;
        switch (l->joint) {
        case MO_ARTIC_REVOLUTE:
        case MO_ARTIC_PRISMATIC: qo[0] = qi[0] + h * vi[0]; break;
        case MO_ARTIC_SPHERICAL: {
            double qq[4] = {qi[0], qi[1], qi[2], qi[3]};
            quat_step(qq, vi, h);
            for (int k = 0; k < 4; k++) qo[k] = qq[k];
            break;
        }
        case MO_ARTIC_FREE: {
            /* the exponential of the body twist: pos + R J(h w) h v_lin, J(f) = 1 + (1 - cos a) / a^2 [f]x
               + (a - sin a) / a^3 [f]x^2 (a = |f|), exact for a constant twist */
            double qq[4] = {qi[3], qi[4], qi[5], qi[6]}, R[9], dp[3], f[3], u[3], fu[3], ffu[3];
            (void)mo_q_normalize(qq);
            mo_q_to_m3(R, qq);
            mo_v3_scale(f, vi + 3, h);
            mo_v3_scale(u, vi, h);
            double a2 = mo_v3_dot(f, f), a = sqrt(a2), c1, c2;
            if (a < 1e-4) {
                c1 = 0.5 - a2 / 24.0 + a2 * a2 / 720.0;
                c2 = 1.0 / 6.0 - a2 / 120.0 + a2 * a2 / 5040.0;
            } else {
                c1 = (1.0 - cos(a)) / a2;
                c2 = (a - sin(a)) / (a2 * a);
            }
            mo_v3_cross(fu, f, u);
            mo_v3_cross(ffu, f, fu);
            for (int k = 0; k < 3; k++) u[k] += c1 * fu[k] + c2 * ffu[k];
            mo_m3_mulv(dp, R, u);
            for (int k = 0; k < 3; k++) qo[k] = qi[k] + dp[k];
            quat_step(qq, vi + 3, h);
            for (int k = 0; k < 4; k++) qo[3 + k] = qq[k];
            break;
        }
        default: break;
        }
    }
}
