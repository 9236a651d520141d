/* articulation.c: articulations as world objects (issue 19, phase 1 of the
 * world integration): creation from checked defs, destruction, the
 * joint-space state, the held inputs (torques, PD drives, damping), the
 * queries (link poses and velocities, M, bias, gravity compensation, RNEA,
 * point Jacobians, energies), and the parts of the world's state, hash and
 * rollback that are theirs. The math is engine/artic/; the step is
 * step/artic_step.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/world.h"
#include "moreau/articulation.h"

mo_link_def mo_default_link_def(void)
{
    mo_link_def d;
    memset(&d, 0, sizeof d);
    d.parent = -1;
    d.joint = MO_LINK_REVOLUTE;
    d.axis = (mo_vec3){0.0, 0.0, 1.0};
    d.joint_orientation = (mo_quat){1.0, 0.0, 0.0, 0.0};
    d.mass = 1.0;
    d.inertia.m[0][0] = d.inertia.m[1][1] = d.inertia.m[2][2] = 0.01;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

mo_articulation_def mo_default_articulation_def(void)
{
    mo_articulation_def d;
    memset(&d, 0, sizeof d);
    d.base_orientation = (mo_quat){1.0, 0.0, 0.0, 0.0};
    d.integrator = MO_INTEGRATOR_MIDPOINT;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

mo_joint_drive mo_default_joint_drive(void)
{
    mo_joint_drive d;
    memset(&d, 0, sizeof d);
    d.max_effort = INFINITY;
    return d;
}

static mo_artic_obj *artic_get(const mo_world *w, mo_articulation_id id)
{
    if (!w || id.index == 0 || id.index > (uint32_t)w->artic_count) return NULL;
    mo_artic_obj *a = &w->artics[id.index - 1];
    if (!a->alive || a->generation != id.generation) return NULL;
    return a;
}

bool mo_articulation_is_valid(const mo_world *w, mo_articulation_id id) { return artic_get(w, id) != NULL; }

int mo_world_articulations(const mo_world *w, mo_articulation_id *out, int cap)
{
    if (!w) return 0;
    int n = 0;
    for (int i = 0; i < w->artic_count; i++) {
        if (!w->artics[i].alive) continue;
        if (out && n < cap) out[n] = (mo_articulation_id){(uint32_t)i + 1, w->artics[i].generation};
        n++;
    }
    return n;
}

/* the articulation of id, or NULL with the stale-id sentence (fn: the calling function) */
static mo_artic_obj *get_or_stale(const mo_world *w, mo_articulation_id id, const char *fn)
{
    mo_artic_obj *a = artic_get(w, id);
    if (!a)
        mo_set_error(w, "%s: articulation id (index %u, generation %u) %s", fn, id.index, id.generation,
                     mo_id_fault(w, id.generation, "does not name a live articulation"));
    return a;
}

#define GET(w, id, a)                                      \
    MO_NEED_W(w);                                          \
    mo_artic_obj *a = get_or_stale((w), (id), __func__);   \
    if (!a) return MO_ERR_STALE_ID

/* "link 2" or "link 2 (\"elbow\")" */
static const char *link_label(char *buf, size_t n, const mo_artic_obj *a, int i)
{
    const char *name = a->m->links[i].name;
    if (name[0]) mo_errf(buf, n, "link %d (\"%s\")", i, name);
    else mo_errf(buf, n, "link %d", i);
    return buf;
}

/* link in range, else the sentence */
static bool link_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int link, const char *fn)
{
    if (link >= 0 && link < a->m->nlink) return true;
    mo_set_error(w, "%s: articulation %u has no link %d (links 0 to %d)", fn, id.index, link, a->m->nlink - 1);
    return false;
}

/* a caller buffer of count doubles holds at least need, else the sentence */
static bool room_ok(const mo_world *w, mo_articulation_id id, int count, int need, const char *what, const char *fn)
{
    if (count >= need) return true;
    mo_set_error(w, "%s: count %d is less than the %d values of articulation %u's %s", fn, count, need, id.index,
                 what);
    return false;
}

/* ---- creation ---- */

static bool quat_ok(mo_quat q)
{
    double l = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return isfinite(l) && l > 1e-9;
}

/* the first bad value of link i's def, as a sentence; 0 when good */
static int check_link(mo_world *w, const mo_articulation_def *def, int i)
{
    const mo_link_def *l = &def->links[i];
    char lab[MO_LINK_NAME_LEN + 32];
    const char *fn = "mo_articulation_create";
    if (l->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "%s: link %d def was not initialised with mo_default_link_def()", fn, i);
        return 1;
    }
    if (l->name && strlen(l->name) >= MO_LINK_NAME_LEN) {
        mo_set_error(w, "%s: link %d: name \"%.20s...\" has %zu bytes (at most %d)", fn, i, l->name, strlen(l->name),
                     MO_LINK_NAME_LEN - 1);
        return 1;
    }
    if (l->name && l->name[0]) mo_errf(lab, sizeof lab, "link %d (\"%s\")", i, l->name);
    else mo_errf(lab, sizeof lab, "link %d", i);
    if (l->name && l->name[0])
        for (int k = 0; k < i; k++)
            if (def->links[k].name && strcmp(def->links[k].name, l->name) == 0) {
                mo_set_error(w, "%s: %s: the name is link %d's too (names must be unique)", fn, lab, k);
                return 1;
            }
    if ((int)l->joint < MO_LINK_FIXED || (int)l->joint > MO_LINK_FREE) {
        mo_set_error(w, "%s: %s: joint type %d is not a known joint type", fn, lab, (int)l->joint);
        return 1;
    }
    if (!mo_within3(l->axis, MO_LENGTH_MAX) ||
        ((l->joint == MO_LINK_REVOLUTE || l->joint == MO_LINK_PRISMATIC) &&
         !(fabs(l->axis.x) + fabs(l->axis.y) + fabs(l->axis.z) > 1e-9))) {
        mo_set_error(w, "%s: %s: axis must be finite and non-zero, got (%g, %g, %g)", fn, lab, l->axis.x, l->axis.y,
                     l->axis.z);
        return 1;
    }
    if (!mo_within3(l->joint_position, MO_LENGTH_MAX)) {
        mo_set_error(w, "%s: %s: joint_position must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", fn,
                     lab, MO_LENGTH_MAX, MO_LENGTH_MAX, l->joint_position.x, l->joint_position.y, l->joint_position.z);
        return 1;
    }
    if (!quat_ok(l->joint_orientation)) {
        mo_quat q = l->joint_orientation;
        mo_set_error(w, "%s: %s: joint_orientation must be a finite non-zero quaternion, got (%g, %g, %g, %g)", fn, lab,
                     q.w, q.x, q.y, q.z);
        return 1;
    }
    if (!(l->mass == 0.0 || (l->mass >= MO_MASS_MIN && l->mass <= MO_MASS_MAX))) {
        mo_set_error(w, "%s: %s: mass must be 0 (a massless frame) or in [%g, %g] kg, got %g", fn, lab, MO_MASS_MIN,
                     MO_MASS_MAX, l->mass);
        return 1;
    }
    if (!mo_within3(l->com, MO_LENGTH_MAX)) {
        mo_set_error(w, "%s: %s: com must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", fn, lab,
                     MO_LENGTH_MAX, MO_LENGTH_MAX, l->com.x, l->com.y, l->com.z);
        return 1;
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (!(fabs(l->inertia.m[r][c]) <= MO_INERTIA_MAX)) {
                mo_set_error(w, "%s: %s: inertia must be finite with entries in [-%g, %g] kg m^2, got [%d][%d] = %g",
                             fn, lab, MO_INERTIA_MAX, MO_INERTIA_MAX, r, c, l->inertia.m[r][c]);
                return 1;
            }
    if (!(l->damping >= 0.0 && l->damping <= MO_FORCE_MAX) || !(l->armature >= 0.0 && l->armature <= MO_INERTIA_MAX)) {
        mo_set_error(w, "%s: %s: damping must be in [0, %g] and armature in [0, %g], got %g and %g", fn, lab,
                     MO_FORCE_MAX, MO_INERTIA_MAX, l->damping, l->armature);
        return 1;
    }
    return 0;
}

static void artic_free(mo_artic_obj *a)
{
    mo_artic_data_destroy(a->d);
    mo_artic_data_destroy(a->qd);
    mo_artic_model_destroy(a->m);
    free(a->buf);
    free(a->link_body);
    a->link_body = NULL;
    a->d = a->qd = NULL;
    a->m = NULL;
    a->buf = NULL;
}

/* a core sentence "mo_artic_xxx: rest" as "fn: rest" */
static void core_error(mo_world *w, const char *fn, const char *err)
{
    const char *colon = strstr(err, ": ");
    mo_set_error(w, "%s: %s", fn, colon && strncmp(err, "mo_artic_", 9) == 0 ? colon + 2 : err);
}

mo_status mo_articulation_create(mo_world *w, const mo_articulation_def *def, mo_articulation_id *out)
{
    MO_NEED_W(w);
    if (out) *out = (mo_articulation_id){0, 0};
    MO_NEED(w, def, "def");
    MO_NEED(w, out, "out");
    const char *fn = "mo_articulation_create";
    if (def->internal_value != MO_DEF_COOKIE) {
        mo_set_error(w, "articulation def was not initialised with mo_default_articulation_def()");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (def->link_count < 1 || def->link_count > MO_LINKS_MAX) {
        mo_set_error(w, "%s: link_count must be in [1, %d], got %d", fn, MO_LINKS_MAX, def->link_count);
        return MO_ERR_INVALID_ARGUMENT;
    }
    MO_NEED(w, def->links, "def->links");
    if (!mo_within3(def->base_position, MO_LENGTH_MAX) || !quat_ok(def->base_orientation)) {
        mo_quat q = def->base_orientation;
        mo_set_error(w, "%s: the base pose must be finite (position within %g m, orientation a non-zero quaternion), "
                        "got (%g, %g, %g), (%g, %g, %g, %g)", fn, MO_LENGTH_MAX, def->base_position.x,
                     def->base_position.y, def->base_position.z, q.w, q.x, q.y, q.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if ((int)def->integrator < MO_INTEGRATOR_MIDPOINT || (int)def->integrator > MO_INTEGRATOR_EULER) {
        mo_set_error(w, "%s: integrator %d is not a known integrator (midpoint 0, euler 1)", fn, (int)def->integrator);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int n = def->link_count;
    for (int i = 0; i < n; i++)
        if (check_link(w, def, i)) return MO_ERR_INVALID_ARGUMENT;

    /* the core's link defs; the root's joint frame placed in the base frame (a free root: the world's) */
    mo_artic_link_def *cd = calloc((size_t)n, sizeof *cd);
    if (!cd) goto oom0;
    double bq[4] = {def->base_orientation.w, def->base_orientation.x, def->base_orientation.y,
                    def->base_orientation.z};
    double bp[3] = {def->base_position.x, def->base_position.y, def->base_position.z};
    (void)mo_q_normalize(bq);
    for (int i = 0; i < n; i++) {
        const mo_link_def *l = &def->links[i];
        mo_artic_link_def *c = &cd[i];
        *c = mo_artic_default_link_def();
        c->name = l->name;
        c->parent = l->parent;
        c->joint = (mo_artic_joint_type)l->joint;
        mo_v3_set(c->axis, l->axis.x, l->axis.y, l->axis.z);
        mo_v3_set(c->joint_pos, l->joint_position.x, l->joint_position.y, l->joint_position.z);
        double jq[4] = {l->joint_orientation.w, l->joint_orientation.x, l->joint_orientation.y,
                        l->joint_orientation.z};
        (void)mo_q_normalize(jq);
        if (i == 0 && l->joint == MO_LINK_FREE) {
            mo_v3_set(c->joint_pos, 0, 0, 0);
            jq[0] = 1; jq[1] = jq[2] = jq[3] = 0;
        } else if (i == 0) {
            double t[3];
            mo_q_rotate(t, bq, c->joint_pos);
            mo_v3_add(c->joint_pos, bp, t);
            mo_q_mul(jq, bq, jq);
        }
        for (int k = 0; k < 4; k++) c->joint_rot[k] = jq[k];
        c->mass = l->mass;
        mo_v3_set(c->com, l->com.x, l->com.y, l->com.z);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) c->inertia[3 * r + k] = l->inertia.m[r][k];
    }
    char err[MO_ERR_LEN];
    mo_artic_model *m = NULL;
    mo_status st = mo_artic_model_create(cd, n, &m, err, sizeof err);
    free(cd);
    if (st != MO_OK) {
        if (st == MO_ERR_OUT_OF_MEMORY) goto oom0;
        core_error(w, fn, err);
        return st;
    }
    mo_artic_obj tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.m = m;
    tmp.integrator = (int)def->integrator;
    const size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
    tmp.buf = calloc(nq + (23 + MO_ARTIC_ROWS_PER_DOF) * nv + 6 * (size_t)n + 1, sizeof(double));
    tmp.link_body = malloc((size_t)n * sizeof(int));
    if (!tmp.buf || !tmp.link_body || mo_artic_data_create(m, &tmp.d) != MO_OK || mo_artic_data_create(m, &tmp.qd) != MO_OK) goto oom;
    double *p = tmp.buf;
    double **arrays[] = {&tmp.v, &tmp.tau, &tmp.kp, &tmp.kd, &tmp.qt, &tmp.vt, &tmp.ff, &tmp.effort, &tmp.damping,
                         &tmp.armature, &tmp.v_new, &tmp.diag, &tmp.force, &tmp.sat, &tmp.text, &tmp.acc,
                         &tmp.lower, &tmp.upper, &tmp.fric, &tmp.mimic_src, &tmp.mimic_k, &tmp.mimic_off, &tmp.imp};
    tmp.q = p;
    p += nq;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++, p += nv) *arrays[k] = p;
    p += (MO_ARTIC_ROWS_PER_DOF - 1) * nv; /* imp holds MO_ARTIC_ROWS_PER_DOF nv */
    tmp.fapp = p;
    for (int i = 0; i < n; i++) tmp.link_body[i] = -1;
    mo_artic_q_neutral(m, tmp.q);
    if (m->links[0].joint == MO_ARTIC_FREE) {
        mo_v3_copy(tmp.q, bp);
        for (int k = 0; k < 4; k++) tmp.q[3 + k] = bq[k];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m->links[i].nv; j++) {
            int k = m->links[i].v_ofs + j;
            tmp.damping[k] = def->links[i].damping;
            tmp.armature[k] = def->links[i].armature;
            tmp.effort[k] = INFINITY;
            tmp.lower[k] = -INFINITY;
            tmp.upper[k] = INFINITY;
            tmp.mimic_src[k] = -1.0;
        }
    /* M + armature positive definite where it starts (a massless leaf on a joint is refused here, not in a step) */
    st = mo_artic_factor(m, tmp.d, tmp.q, tmp.armature, err, sizeof err);
    if (st != MO_OK) {
        mo_set_error(w, "%s: the mass matrix is singular at the reference configuration (%s): a massless link on a "
                        "moving joint needs armature", fn, strstr(err, "pivot") ? strstr(err, "pivot") : err);
        artic_free(&tmp);
        return MO_ERR_INVALID_ARGUMENT;
    }
    int slot = mo_pool_alloc((void **)&w->artics, sizeof(mo_artic_obj), &w->artic_cap, &w->artic_count,
                             &w->artic_free, &w->artic_nfree);
    if (slot < 0) goto oom;
    mo_artic_obj *a = &w->artics[slot];
    tmp.generation = mo_gen_next(w, a->generation);
    tmp.alive = true;
    *a = tmp;
    *out = (mo_articulation_id){(uint32_t)slot + 1, a->generation};
    return MO_OK;
oom:
    artic_free(&tmp);
oom0:
    mo_set_error(w, "%s: out of memory (%d links)", fn, n);
    return MO_ERR_OUT_OF_MEMORY;
}

mo_status mo_articulation_destroy(mo_world *w, mo_articulation_id id)
{
    GET(w, id, a);
    mo_artic_destroy_bodies(w, a);
    artic_free(a);
    a->alive = false;
    w->artic_free[w->artic_nfree++] = (int)id.index - 1;
    return MO_OK;
}

void mo_artic_world_free(mo_world *w)
{
    for (int i = 0; i < w->artic_count; i++) artic_free(&w->artics[i]);
    free(w->artics);
    free(w->artic_free);
}

mo_status mo_articulation_size(const mo_world *w, mo_articulation_id id, int *links, int *nq, int *nv)
{
    GET(w, id, a);
    if (links) *links = a->m->nlink;
    if (nq) *nq = a->m->nq;
    if (nv) *nv = a->m->nv;
    return MO_OK;
}

mo_status mo_articulation_find_link(const mo_world *w, mo_articulation_id id, const char *name, int *out)
{
    MO_NEED_W(w);
    MO_NEED(w, name, "name");
    MO_NEED(w, out, "out");
    GET(w, id, a);
    for (int i = 0; i < a->m->nlink; i++)
        if (a->m->links[i].name[0] && strcmp(a->m->links[i].name, name) == 0) {
            *out = i;
            return MO_OK;
        }
    mo_set_error(w, "mo_articulation_find_link: articulation %u has no link called \"%.40s\"", id.index, name);
    return MO_ERR_INVALID_ARGUMENT;
}

mo_status mo_articulation_joint_dofs(const mo_world *w, mo_articulation_id id, int link, int *q_ofs, int *nq,
                                     int *v_ofs, int *nv)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    const mo_artic_link *l = &a->m->links[link];
    if (q_ofs) *q_ofs = l->q_ofs;
    if (nq) *nq = l->nq;
    if (v_ofs) *v_ofs = l->v_ofs;
    if (nv) *nv = l->nv;
    return MO_OK;
}

/* ---- state ---- */

/* q values of link l (nq of them at q) checked: finite, within MO_LENGTH_MAX, quaternions non-zero */
static bool q_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int i, const double *q,
                 const char *fn)
{
    const mo_artic_link *l = &a->m->links[i];
    char lab[MO_LINK_NAME_LEN + 32];
    for (int k = 0; k < l->nq; k++)
        if (!(fabs(q[k]) <= MO_LENGTH_MAX)) {
            mo_set_error(w, "%s: articulation %u %s: q[%d] must be finite and within %g, got %g", fn, id.index,
                         link_label(lab, sizeof lab, a, i), l->q_ofs + k, MO_LENGTH_MAX, q[k]);
            return false;
        }
    if (l->joint == MO_ARTIC_SPHERICAL || l->joint == MO_ARTIC_FREE) {
        const double *u = q + (l->joint == MO_ARTIC_FREE ? 3 : 0);
        if (!(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3] > 1e-18)) {
            mo_set_error(w, "%s: articulation %u %s: the joint's quaternion (%g, %g, %g, %g) is zero", fn, id.index,
                         link_label(lab, sizeof lab, a, i), u[0], u[1], u[2], u[3]);
            return false;
        }
    }
    return true;
}

static bool v_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int i, const double *v,
                 double lim, const char *what, const char *fn)
{
    const mo_artic_link *l = &a->m->links[i];
    char lab[MO_LINK_NAME_LEN + 32];
    for (int k = 0; k < l->nv; k++)
        if (!(fabs(v[k]) <= lim)) {
            mo_set_error(w, "%s: articulation %u %s: %s[%d] must be finite and within %g, got %g", fn, id.index,
                         link_label(lab, sizeof lab, a, i), what, l->v_ofs + k, lim, v[k]);
            return false;
        }
    return true;
}

/* copies link i's q into dst, its quaternions normalised */
static void q_store(const mo_artic_obj *a, int i, const double *src, double *dst)
{
    const mo_artic_link *l = &a->m->links[i];
    for (int k = 0; k < l->nq; k++) dst[k] = src[k];
    if (l->joint == MO_ARTIC_SPHERICAL) (void)mo_q_normalize(dst);
    if (l->joint == MO_ARTIC_FREE) (void)mo_q_normalize(dst + 3);
}

mo_status mo_articulation_get_q(const mo_world *w, mo_articulation_id id, double *q, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, q, "q");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nq, "coordinates (nq)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    memcpy(q, a->q, (size_t)a->m->nq * sizeof *q);
    return MO_OK;
}

mo_status mo_articulation_get_qdot(const mo_world *w, mo_articulation_id id, double *qdot, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, qdot, "qdot");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "velocities (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    memcpy(qdot, a->v, (size_t)a->m->nv * sizeof *qdot);
    return MO_OK;
}

mo_status mo_articulation_set_q(mo_world *w, mo_articulation_id id, const double *q, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, q, "q");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nq, "coordinates (nq)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < a->m->nlink; i++)
        if (!q_ok(w, a, id, i, q + a->m->links[i].q_ofs, __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < a->m->nlink; i++) q_store(a, i, q + a->m->links[i].q_ofs, a->q + a->m->links[i].q_ofs);
    mo_artic_sync_bodies(w, a);
    return MO_OK;
}

mo_status mo_articulation_set_qdot(mo_world *w, mo_articulation_id id, const double *qdot, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, qdot, "qdot");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "velocities (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < a->m->nlink; i++)
        if (!v_ok(w, a, id, i, qdot + a->m->links[i].v_ofs, MO_SPEED_MAX, "qdot", __func__))
            return MO_ERR_INVALID_ARGUMENT;
    memcpy(a->v, qdot, (size_t)a->m->nv * sizeof *qdot);
    mo_artic_sync_bodies(w, a);
    return MO_OK;
}

mo_status mo_articulation_get_joint(const mo_world *w, mo_articulation_id id, int link, double *q, double *qdot)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    const mo_artic_link *l = &a->m->links[link];
    if (q) memcpy(q, a->q + l->q_ofs, (size_t)l->nq * sizeof *q);
    if (qdot) memcpy(qdot, a->v + l->v_ofs, (size_t)l->nv * sizeof *qdot);
    return MO_OK;
}

mo_status mo_articulation_set_joint(mo_world *w, mo_articulation_id id, int link, const double *q,
                                    const double *qdot)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    const mo_artic_link *l = &a->m->links[link];
    if ((q && !q_ok(w, a, id, link, q, __func__)) ||
        (qdot && !v_ok(w, a, id, link, qdot, MO_SPEED_MAX, "qdot", __func__)))
        return MO_ERR_INVALID_ARGUMENT;
    if (q) q_store(a, link, q, a->q + l->q_ofs);
    if (qdot) memcpy(a->v + l->v_ofs, qdot, (size_t)l->nv * sizeof *qdot);
    mo_artic_sync_bodies(w, a);
    return MO_OK;
}

/* ---- inputs ---- */

mo_status mo_articulation_set_torques(mo_world *w, mo_articulation_id id, const double *tau, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, tau, "tau");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "torques (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < a->m->nlink; i++)
        if (!v_ok(w, a, id, i, tau + a->m->links[i].v_ofs, MO_FORCE_MAX, "tau", __func__))
            return MO_ERR_INVALID_ARGUMENT;
    memcpy(a->tau, tau, (size_t)a->m->nv * sizeof *tau);
    return MO_OK;
}

mo_status mo_articulation_set_joint_torque(mo_world *w, mo_articulation_id id, int link, const double *tau)
{
    MO_NEED_W(w);
    MO_NEED(w, tau, "tau");
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!v_ok(w, a, id, link, tau, MO_FORCE_MAX, "tau", __func__)) return MO_ERR_INVALID_ARGUMENT;
    const mo_artic_link *l = &a->m->links[link];
    memcpy(a->tau + l->v_ofs, tau, (size_t)l->nv * sizeof *tau);
    return MO_OK;
}

mo_status mo_articulation_clear_torques(mo_world *w, mo_articulation_id id)
{
    GET(w, id, a);
    memset(a->tau, 0, (size_t)a->m->nv * sizeof *a->tau);
    return MO_OK;
}

/* link's joint takes a drive (one dof), else the sentence */
static bool one_dof_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int link, const char *fn,
                       const char *what)
{
    if (!link_ok(w, a, id, link, fn)) return false;
    int t = a->m->links[link].joint;
    if (t == MO_ARTIC_REVOLUTE || t == MO_ARTIC_PRISMATIC) return true;
    static const char *names[] = {"fixed", "revolute", "prismatic", "spherical", "free"};
    char lab[MO_LINK_NAME_LEN + 32];
    mo_set_error(w, "%s: articulation %u %s has a %s joint: %s are for revolute and prismatic joints", fn, id.index,
                 link_label(lab, sizeof lab, a, link), names[t], what);
    return false;
}

static bool drive_joint_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int link, const char *fn)
{
    return one_dof_ok(w, a, id, link, fn, "drives");
}

mo_status mo_articulation_set_drive(mo_world *w, mo_articulation_id id, int link, const mo_joint_drive *dr)
{
    MO_NEED_W(w);
    MO_NEED(w, dr, "drive");
    GET(w, id, a);
    if (!drive_joint_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!(dr->stiffness >= 0.0 && dr->stiffness <= MO_FORCE_MAX) || !(dr->damping >= 0.0 && dr->damping <= MO_FORCE_MAX) ||
        !(fabs(dr->target_position) <= MO_LENGTH_MAX) || !(fabs(dr->target_velocity) <= MO_SPEED_MAX) ||
        !(fabs(dr->torque) <= MO_FORCE_MAX) || !(dr->max_effort > 0.0)) {
        char lab[MO_LINK_NAME_LEN + 32];
        mo_set_error(w, "%s: articulation %u %s: the drive needs stiffness and damping in [0, %g], |target_position| "
                        "<= %g, |target_velocity| <= %g, |torque| <= %g, max_effort > 0; got %g, %g, %g, %g, %g, %g",
                     __func__, id.index, link_label(lab, sizeof lab, a, link), MO_FORCE_MAX, MO_LENGTH_MAX,
                     MO_SPEED_MAX, MO_FORCE_MAX, dr->stiffness, dr->damping, dr->target_position, dr->target_velocity,
                     dr->torque, dr->max_effort);
        return MO_ERR_INVALID_ARGUMENT;
    }
    int k = a->m->links[link].v_ofs;
    a->kp[k] = dr->stiffness;
    a->kd[k] = dr->damping;
    a->qt[k] = dr->target_position;
    a->vt[k] = dr->target_velocity;
    a->ff[k] = dr->torque;
    a->effort[k] = dr->max_effort;
    return MO_OK;
}

mo_status mo_articulation_drive(const mo_world *w, mo_articulation_id id, int link, mo_joint_drive *out)
{
    MO_NEED_W(w);
    MO_NEED(w, out, "out");
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    *out = mo_default_joint_drive();
    const mo_artic_link *l = &a->m->links[link];
    if (l->joint != MO_ARTIC_REVOLUTE && l->joint != MO_ARTIC_PRISMATIC) return MO_OK;
    int k = l->v_ofs;
    *out = (mo_joint_drive){a->kp[k], a->kd[k], a->qt[k], a->vt[k], a->ff[k], a->effort[k]};
    return MO_OK;
}

mo_status mo_articulation_set_joint_damping(mo_world *w, mo_articulation_id id, int link, double damping)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!(damping >= 0.0 && damping <= MO_FORCE_MAX)) {
        char lab[MO_LINK_NAME_LEN + 32];
        mo_set_error(w, "%s: articulation %u %s: damping must be in [0, %g], got %g", __func__, id.index,
                     link_label(lab, sizeof lab, a, link), MO_FORCE_MAX, damping);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const mo_artic_link *l = &a->m->links[link];
    for (int j = 0; j < l->nv; j++) a->damping[l->v_ofs + j] = damping;
    return MO_OK;
}

/* ---- limits and dry friction: rows of the contact problem (step/assemble.c) ---- */

mo_status mo_articulation_set_limits(mo_world *w, mo_articulation_id id, int link, double lower, double upper)
{
    GET(w, id, a);
    if (!one_dof_ok(w, a, id, link, __func__, "limits")) return MO_ERR_INVALID_ARGUMENT;
    if (isnan(lower) || isnan(upper) || lower == INFINITY || upper == -INFINITY || !(lower <= upper) ||
        (isfinite(lower) && fabs(lower) > MO_LENGTH_MAX) || (isfinite(upper) && fabs(upper) > MO_LENGTH_MAX)) {
        char lab[MO_LINK_NAME_LEN + 32];
        mo_set_error(w, "%s: articulation %u %s: limits need lower <= upper, each within %g or -inf / inf (no bound), "
                        "got %g and %g", __func__, id.index, link_label(lab, sizeof lab, a, link), MO_LENGTH_MAX, lower,
                     upper);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int k = a->m->links[link].v_ofs;
    a->lower[k] = lower;
    a->upper[k] = upper;
    a->imp[MO_ARTIC_ROWS_PER_DOF * k] = a->imp[MO_ARTIC_ROWS_PER_DOF * k + 1] = 0.0; /* no warm start from another bound */
    return MO_OK;
}

mo_status mo_articulation_limits(const mo_world *w, mo_articulation_id id, int link, double *lower, double *upper)
{
    GET(w, id, a);
    if (!one_dof_ok(w, a, id, link, __func__, "limits")) return MO_ERR_INVALID_ARGUMENT;
    const int k = a->m->links[link].v_ofs;
    if (lower) *lower = a->lower[k];
    if (upper) *upper = a->upper[k];
    return MO_OK;
}

/* a spherical joint's cone limit: the upper row of its first dof (step/artic_rows.c) */
static bool spherical_ok(const mo_world *w, const mo_artic_obj *a, mo_articulation_id id, int link, const char *fn)
{
    if (!link_ok(w, a, id, link, fn)) return false;
    int t = a->m->links[link].joint;
    if (t == MO_ARTIC_SPHERICAL) return true;
    static const char *names[] = {"fixed", "revolute", "prismatic", "spherical", "free"};
    char lab[MO_LINK_NAME_LEN + 32];
    mo_set_error(w, "%s: articulation %u %s has a %s joint: cone limits are for spherical joints", fn, id.index,
                 link_label(lab, sizeof lab, a, link), names[t]);
    return false;
}

mo_status mo_articulation_set_cone_limit(mo_world *w, mo_articulation_id id, int link, double angle)
{
    GET(w, id, a);
    if (!spherical_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!(angle >= 0.0 && angle <= MO_PI) && angle != INFINITY) {
        char lab[MO_LINK_NAME_LEN + 32];
        mo_set_error(w, "%s: articulation %u %s: the cone limit must be in [0, pi] rad or inf (none), got %g",
                     __func__, id.index, link_label(lab, sizeof lab, a, link), angle);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int k = a->m->links[link].v_ofs;
    a->upper[k] = angle;
    a->imp[MO_ARTIC_ROWS_PER_DOF * k + 1] = 0.0;
    return MO_OK;
}

mo_status mo_articulation_cone_limit(const mo_world *w, mo_articulation_id id, int link, double *angle)
{
    MO_NEED_W(w);
    MO_NEED(w, angle, "angle");
    GET(w, id, a);
    if (!spherical_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    *angle = a->upper[a->m->links[link].v_ofs];
    return MO_OK;
}

mo_status mo_articulation_set_joint_friction(mo_world *w, mo_articulation_id id, int link, double friction)
{
    GET(w, id, a);
    if (!one_dof_ok(w, a, id, link, __func__, "dry friction rows")) return MO_ERR_INVALID_ARGUMENT;
    if (!(friction >= 0.0 && friction <= MO_FORCE_MAX)) {
        char lab[MO_LINK_NAME_LEN + 32];
        mo_set_error(w, "%s: articulation %u %s: friction must be in [0, %g], got %g", __func__, id.index,
                     link_label(lab, sizeof lab, a, link), MO_FORCE_MAX, friction);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const int k = a->m->links[link].v_ofs;
    a->fric[k] = friction;
    if (friction == 0.0) a->imp[MO_ARTIC_ROWS_PER_DOF * k + 2] = 0.0;
    return MO_OK;
}

mo_status mo_articulation_constraint_forces(const mo_world *w, mo_articulation_id id, double *tau, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, tau, "tau");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "velocities (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    const int nv = a->m->nv, R = MO_ARTIC_ROWS_PER_DOF;
    for (int k = 0; k < nv; k++) tau[k] = 0.0;
    if (a->last_h > 0.0) /* J^T gamma / h over the rows (artic_rows.c) */
        for (int k = 0; k < nv; k++) {
            const double *g = a->imp + R * k;
            double up = g[1];
            if (up != 0.0 && a->m->links[a->m->dof_link[k]].joint == MO_ARTIC_SPHERICAL) { /* a cone: -n gamma */
                double n[3];
                mo_artic_rotation_angle(a->q + a->m->links[a->m->dof_link[k]].q_ofs, n);
                for (int i = 0; i < 3; i++) tau[k + i] -= n[i] * up / a->last_h;
                up = 0.0;
            }
            tau[k] += (g[0] - up + g[2] + g[3]) / a->last_h;
            if (a->mimic_src[k] >= 0.0) tau[(int)a->mimic_src[k]] -= a->mimic_k[k] * g[3] / a->last_h;
        }
    return MO_OK;
}

static const double *gravity_of(const mo_world *w, double *g);

mo_status mo_articulation_joint_wrench(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *force,
                                       mo_vec3 *torque)
{
    MO_NEED_W(w);
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (force) *force = (mo_vec3){0, 0, 0};
    if (torque) *torque = (mo_vec3){0, 0, 0};
    if (!(a->acc_h > 0.0)) return MO_OK;
    const int nl = a->m->nlink, nv = a->m->nv;
    double *fext = malloc((size_t)(6 * nl + nv) * sizeof(double)), *tau = fext ? fext + 6 * nl : NULL;
    if (!fext) {
        mo_set_error(w, "%s: out of memory (%d links)", __func__, nl);
        return MO_ERR_OUT_OF_MEMORY;
    }
    /* the external forces of the step: those applied to the link bodies, and the link bodies' contact forces
       (mo_body_contact_force: the torque about the body's origin, the link frame's) */
    memcpy(fext, a->fapp, (size_t)(6 * nl) * sizeof(double));
    for (int l = 0; l < nl; l++) {
        const int slot = a->link_body[l];
        if (slot < 0) continue;
        mo_vec3 F, T;
        mo_body_id b = {(uint32_t)slot + 1, w->bodies[slot].generation};
        if (mo_body_contact_force(w, b, &F, &T) != MO_OK) continue;
        double f[3] = {F.x, F.y, F.z}, s[6];
        mo_artic_point_force(w->bodies[slot].k.x, f, s);
        s[0] += T.x, s[1] += T.y, s[2] += T.z;
        for (int k = 0; k < 6; k++) fext[6 * l + k] += s[k];
    }
    double g[3];
    mo_artic_inverse_dynamics(a->m, a->qd, a->q, a->v, a->acc, gravity_of(w, g), fext, tau);
    /* d->frc[link]: the force across the joint on the link, link coordinates about its origin; x0's E turns
       world axes into the link's */
    const double *fr = a->qd->frc + 6 * link, *E = a->qd->x0[link].E;
    double n[3], f[3];
    mo_m3_tmulv(n, E, fr);
    mo_m3_tmulv(f, E, fr + 3);
    if (torque) *torque = (mo_vec3){n[0], n[1], n[2]};
    if (force) *force = (mo_vec3){f[0], f[1], f[2]};
    free(fext);
    return MO_OK;
}

mo_status mo_articulation_set_mimic(mo_world *w, mo_articulation_id id, int link, int leader, double multiplier,
                                    double offset)
{
    GET(w, id, a);
    if (!one_dof_ok(w, a, id, link, __func__, "mimics")) return MO_ERR_INVALID_ARGUMENT;
    const int k = a->m->links[link].v_ofs;
    if (leader < 0) { /* none */
        a->mimic_src[k] = -1.0;
        a->imp[MO_ARTIC_ROWS_PER_DOF * k + 3] = 0.0;
        return MO_OK;
    }
    if (!one_dof_ok(w, a, id, leader, __func__, "mimics")) return MO_ERR_INVALID_ARGUMENT;
    char lab[MO_LINK_NAME_LEN + 32];
    if (leader == link) {
        mo_set_error(w, "%s: articulation %u %s cannot mimic itself", __func__, id.index,
                     link_label(lab, sizeof lab, a, link));
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(multiplier) || fabs(multiplier) > MO_FORCE_MAX || !isfinite(offset) ||
        fabs(offset) > MO_LENGTH_MAX) {
        mo_set_error(w, "%s: articulation %u %s: the mimic needs a finite multiplier within %g and offset within %g, "
                        "got %g and %g", __func__, id.index, link_label(lab, sizeof lab, a, link), MO_FORCE_MAX,
                     MO_LENGTH_MAX, multiplier, offset);
        return MO_ERR_INVALID_ARGUMENT;
    }
    a->mimic_src[k] = (double)a->m->links[leader].v_ofs;
    a->mimic_k[k] = multiplier;
    a->mimic_off[k] = offset;
    a->imp[MO_ARTIC_ROWS_PER_DOF * k + 3] = 0.0;
    return MO_OK;
}

/* ---- queries ---- */

/* the unit quaternion of the rotation matrix R (row-major), Shepperd's method */
mo_quat mo_artic_quat_of(const double *R)
{
    double t = R[0] + R[4] + R[8], q[4];
    if (t > 0.0) {
        double s = 2.0 * sqrt(1.0 + t);
        q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
    }
    (void)mo_q_normalize(q);
    return (mo_quat){q[0], q[1], q[2], q[3]};
}

mo_status mo_articulation_link_pose(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *position,
                                    mo_quat *orientation)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    mo_artic_forward_kinematics(a->m, a->qd, a->q, NULL, NULL);
    const mo_sxform *X = &a->qd->x0[link];
    if (position) *position = (mo_vec3){X->r[0], X->r[1], X->r[2]};
    if (orientation) {
        double R[9];
        mo_m3_transpose(R, X->E);
        *orientation = mo_artic_quat_of(R);
    }
    return MO_OK;
}

mo_status mo_articulation_link_velocity(const mo_world *w, mo_articulation_id id, int link, mo_vec3 *angular,
                                        mo_vec3 *linear)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    mo_artic_velocities(a->m, a->qd, a->q, a->v, NULL);
    double wv[3], lv[3];
    mo_m3_tmulv(wv, a->qd->x0[link].E, a->qd->vel + 6 * link);
    mo_m3_tmulv(lv, a->qd->x0[link].E, a->qd->vel + 6 * link + 3);
    if (angular) *angular = (mo_vec3){wv[0], wv[1], wv[2]};
    if (linear) *linear = (mo_vec3){lv[0], lv[1], lv[2]};
    return MO_OK;
}

mo_status mo_articulation_mass_matrix(const mo_world *w, mo_articulation_id id, double *M, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, M, "M");
    GET(w, id, a);
    int nv = a->m->nv;
    if (!room_ok(w, id, count, nv * nv, "mass matrix (nv x nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    mo_artic_mass_matrix(a->m, a->qd, a->q, M);
    for (int k = 0; k < nv; k++) M[k * nv + k] += a->armature[k];
    return MO_OK;
}

static const double *gravity_of(const mo_world *w, double *g)
{
    g[0] = w->def.gravity.x;
    g[1] = w->def.gravity.y;
    g[2] = w->def.gravity.z;
    return g;
}

mo_status mo_articulation_bias_forces(const mo_world *w, mo_articulation_id id, double *c, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, c, "c");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "bias forces (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    double g[3];
    mo_artic_bias(a->m, a->qd, a->q, a->v, gravity_of(w, g), NULL, c);
    return MO_OK;
}

mo_status mo_articulation_gravity_compensation(const mo_world *w, mo_articulation_id id, double *tau, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, tau, "tau");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "torques (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    double g[3];
    mo_artic_gravity_compensation(a->m, a->qd, a->q, gravity_of(w, g), tau);
    return MO_OK;
}

mo_status mo_articulation_inverse_dynamics(const mo_world *w, mo_articulation_id id, const double *qddot,
                                           double *tau, int count)
{
    MO_NEED_W(w);
    MO_NEED(w, qddot, "qddot");
    MO_NEED(w, tau, "tau");
    GET(w, id, a);
    if (!room_ok(w, id, count, a->m->nv, "torques (nv)", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < a->m->nv; k++)
        if (!isfinite(qddot[k])) {
            mo_set_error(w, "%s: qddot[%d] must be finite, got %g", __func__, k, qddot[k]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    double g[3];
    mo_artic_inverse_dynamics(a->m, a->qd, a->q, a->v, qddot, gravity_of(w, g), NULL, tau);
    for (int k = 0; k < a->m->nv; k++) tau[k] += a->armature[k] * qddot[k];
    return MO_OK;
}

mo_status mo_articulation_jacobian(const mo_world *w, mo_articulation_id id, int link, mo_vec3 point, double *jv,
                                   double *jw, int count)
{
    GET(w, id, a);
    if (!link_ok(w, a, id, link, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!mo_within3(point, MO_LENGTH_MAX)) {
        mo_set_error(w, "%s: point must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)", __func__,
                     MO_LENGTH_MAX, MO_LENGTH_MAX, point.x, point.y, point.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if ((jv || jw) && !room_ok(w, id, count, 3 * a->m->nv, "Jacobian (3 x nv)", __func__))
        return MO_ERR_INVALID_ARGUMENT;
    double p[3] = {point.x, point.y, point.z};
    mo_artic_point_jacobian(a->m, a->qd, a->q, link, p, jv, jw, NULL);
    return MO_OK;
}

mo_status mo_articulation_energy(const mo_world *w, mo_articulation_id id, double *kinetic, double *potential)
{
    GET(w, id, a);
    if (kinetic) {
        double e = mo_artic_kinetic_energy(a->m, a->qd, a->q, a->v);
        for (int k = 0; k < a->m->nv; k++) e += 0.5 * a->armature[k] * a->v[k] * a->v[k];
        *kinetic = e;
    }
    double g[3];
    if (potential) *potential = mo_artic_potential_energy(a->m, a->qd, a->q, gravity_of(w, g));
    return MO_OK;
}

mo_status mo_articulation_iterations(const mo_world *w, mo_articulation_id id, int *out)
{
    MO_NEED_W(w);
    MO_NEED(w, out, "out");
    GET(w, id, a);
    *out = a->last_iters;
    return MO_OK;
}

/* ---- the world's state: rollback, hash ---- */

size_t mo_artic_state_size(const mo_world *w)
{
    size_t n = 0;
    for (int i = 0; i < w->artic_count; i++)
        if (w->artics[i].alive)
            n += (size_t)(w->artics[i].m->nq + (2 + MO_ARTIC_ROWS_PER_DOF) * w->artics[i].m->nv + 1) * sizeof(double);
    return n;
}

void mo_artic_state_save(const mo_world *w, void *buf)
{
    char *p = (char *)buf;
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        size_t nq = (size_t)a->m->nq * sizeof(double), nv = (size_t)a->m->nv * sizeof(double);
        memcpy(p, a->q, nq);
        memcpy(p + nq, a->v, nv);
        const size_t ni = MO_ARTIC_ROWS_PER_DOF * nv;
        memcpy(p + nq + nv, a->imp, ni); /* the limit, friction and mimic rows' warm start */
        memcpy(p + nq + nv + ni, &a->last_h, sizeof(double));
        p += nq + nv + ni + sizeof(double);
    }
}

void mo_artic_state_restore(mo_world *w, const void *buf)
{
    const char *p = (const char *)buf;
    for (int i = 0; i < w->artic_count; i++) {
        mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        size_t nq = (size_t)a->m->nq * sizeof(double), nv = (size_t)a->m->nv * sizeof(double);
        memcpy(a->q, p, nq);
        memcpy(a->v, p + nq, nv);
        const size_t ni = MO_ARTIC_ROWS_PER_DOF * nv;
        memcpy(a->imp, p + nq + nv, ni);
        memcpy(&a->last_h, p + nq + nv + ni, sizeof(double));
        p += nq + nv + ni + sizeof(double);
    }
}

uint64_t mo_artic_hash(const mo_world *w, uint64_t h, uint64_t (*fold)(uint64_t, const void *, size_t))
{
    for (int i = 0; i < w->artic_count; i++) {
        const mo_artic_obj *a = &w->artics[i];
        if (!a->alive) continue;
        h = fold(h, a->q, (size_t)a->m->nq * sizeof(double));
        h = fold(h, a->v, (size_t)a->m->nv * sizeof(double));
    }
    return h;
}
