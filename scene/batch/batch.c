/* batch.c: batches of worlds (moreau/batch.h), built on the public API only.
 *
 * A batch owns N worlds (or N loaded scenes and their worlds), the ids of each
 * world's dynamic bodies and articulations in one order, and each world's
 * initial state (mo_world_save_state). mo_batch_step is one OpenMP loop over
 * worlds; every world keeps threads = 1 inside, so a world's arithmetic is
 * that of the same world stepped alone and results do not depend on the
 * thread count or on the schedule. Setters check every value before changing
 * any world, with the engine's own limits, so that a refused call leaves the
 * batch unchanged. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <moreau/batch.h>

#ifdef _OPENMP
#  include <omp.h>
#endif

#define BATCH_COOKIE 0x6d6f6261 /* "moba": a def from mo_default_batch_def() */

struct mo_batch {
    int n;                       /* worlds */
    int threads;                 /* OpenMP threads over worlds (0 = the default) */
    mo_world **w;                /* (n) */
    mo_scene_file **sf;          /* (n) scenes, or NULL when built by a callback */
    mo_status *status;           /* (n) each world's status in the last step */
    void **init;                 /* (n) initial states */
    size_t *init_size;           /* (n) their bytes */
    int nbody;                   /* dynamic bodies per world */
    mo_body_id *body;            /* (n x nbody) */
    int nart;                    /* articulations per world */
    mo_articulation_id *art;     /* (n x nart) */
    int nq, nv;                  /* joint coordinates and velocities per world */
    int *art_nq, *art_nv;        /* (nart) each articulation's */
    int ndrive;                  /* revolute and prismatic joints per world (drive slots) */
    int *drive_art, *drive_link; /* (ndrive) their articulation and link */
    int nquat;                   /* quaternions in a world's q */
    int *quat_ofs;               /* (nquat) their offsets in a world's q */
    char err[1024];
};

static void set_err(const mo_batch *cb, const char *fmt, ...)
{
    mo_batch *b = (mo_batch *)cb; /* the sentence is not part of the batch's value */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
}

static void put_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

mo_batch_def mo_default_batch_def(void)
{
    mo_batch_def d;
    memset(&d, 0, sizeof d);
    d.worlds = 1;
    d.threads = 1;
    d.internal_value = BATCH_COOKIE;
    return d;
}

void mo_batch_destroy(mo_batch *b)
{
    if (!b) return;
    for (int i = 0; i < b->n; i++) {
        if (b->sf) mo_scene_file_destroy(b->sf[i]);
        else if (b->w) mo_world_destroy(b->w[i]);
        if (b->init) free(b->init[i]);
    }
    free(b->w);
    free(b->sf);
    free(b->status);
    free(b->init);
    free(b->init_size);
    free(b->body);
    free(b->art);
    free(b->art_nq);
    free(b->art_nv);
    free(b->quat_ofs);
    free(b->drive_art);
    free(b->drive_link);
    free(b);
}

const char *mo_batch_last_error(const mo_batch *b) { return b ? b->err : "mo_batch_last_error: the batch is NULL"; }

int mo_batch_world_count(const mo_batch *b) { return b ? b->n : 0; }

/* world i's state into its initial-state buffer; false when out of memory (the old one kept) */
static bool mark(mo_batch *b, int i)
{
    size_t n = mo_world_state_size(b->w[i]);
    void *buf = malloc(n ? n : 1);
    if (!buf) return false;
    if (mo_world_save_state(b->w[i], buf, n) != MO_OK) {
        free(buf);
        return false;
    }
    free(b->init[i]);
    b->init[i] = buf;
    b->init_size[i] = n;
    return true;
}

/* the dynamic bodies of world i: their count, and their ids into out (room for cap) when out is not NULL */
static int dynamic_bodies(mo_world *w, mo_body_id *out, int cap)
{
    int all = mo_world_bodies(w, NULL, 0);
    mo_body_id *ids = malloc((size_t)(all ? all : 1) * sizeof *ids);
    if (!ids) return -1;
    mo_world_bodies(w, ids, all);
    int n = 0;
    for (int k = 0; k < all; k++) {
        double m = 0.0;
        if (mo_body_mass(w, ids[k], &m, NULL) != MO_OK || !(m > 0.0)) continue; /* static or kinematic */
        if (out && n < cap) out[n] = ids[k];
        n++;
    }
    free(ids);
    return n;
}

/* world 0's layout: bodies, articulations and their sizes, the quaternions of q; 0 or a status with err */
static mo_status layout(mo_batch *b, int worlds, char *err, size_t err_size)
{
    mo_world *w = b->w[0];
    b->nbody = dynamic_bodies(w, NULL, 0);
    b->nart = mo_world_articulations(w, NULL, 0);
    if (b->nbody < 0) goto oom;
    b->body = malloc((size_t)worlds * (size_t)(b->nbody ? b->nbody : 1) * sizeof *b->body);
    b->art = malloc((size_t)worlds * (size_t)(b->nart ? b->nart : 1) * sizeof *b->art);
    b->art_nq = calloc((size_t)(b->nart ? b->nart : 1), sizeof(int));
    b->art_nv = calloc((size_t)(b->nart ? b->nart : 1), sizeof(int));
    if (!b->body || !b->art || !b->art_nq || !b->art_nv) goto oom;
    mo_world_articulations(w, b->art, b->nart);
    int nquat = 0;
    for (int a = 0; a < b->nart; a++) {
        int links = 0;
        mo_articulation_size(w, b->art[a], &links, &b->art_nq[a], &b->art_nv[a]);
        b->nq += b->art_nq[a];
        b->nv += b->art_nv[a];
        for (int l = 0; l < links; l++) {
            int q_ofs, nq, v_ofs, nv;
            mo_articulation_joint_dofs(w, b->art[a], l, &q_ofs, &nq, &v_ofs, &nv);
            if (nq == 4 || nq == 7) nquat++;
        }
    }
    b->quat_ofs = malloc((size_t)(nquat ? nquat : 1) * sizeof(int));
    b->drive_art = malloc((size_t)(b->nq ? b->nq : 1) * sizeof(int)); /* at most one drive per coordinate */
    b->drive_link = malloc((size_t)(b->nq ? b->nq : 1) * sizeof(int));
    if (!b->quat_ofs || !b->drive_art || !b->drive_link) goto oom;
    for (int a = 0, base = 0; a < b->nart; base += b->art_nq[a], a++) {
        int links = 0;
        mo_articulation_size(w, b->art[a], &links, NULL, NULL);
        for (int l = 0; l < links; l++) {
            int q_ofs, nq, v_ofs, nv;
            mo_articulation_joint_dofs(w, b->art[a], l, &q_ofs, &nq, &v_ofs, &nv);
            if (nq == 1) { /* revolute or prismatic: a drive slot */
                b->drive_art[b->ndrive] = a;
                b->drive_link[b->ndrive++] = l;
            }
            if (nq == 4) b->quat_ofs[b->nquat++] = base + q_ofs;
            if (nq == 7) b->quat_ofs[b->nquat++] = base + q_ofs + 3; /* free joint: position, then quaternion */
        }
    }
    return MO_OK;
oom:
    put_err(err, err_size, "mo_batch_create: out of memory for the layout of %d worlds", worlds);
    return MO_ERR_OUT_OF_MEMORY;
}

/* world i's bodies and articulations in the batch's order; a status with err when its structure differs */
static mo_status world_ids(mo_batch *b, int i, char *err, size_t err_size)
{
    mo_world *w = b->w[i];
    int nb = dynamic_bodies(w, b->body + (size_t)i * (size_t)b->nbody, b->nbody);
    int na = mo_world_articulations(w, b->art + (size_t)i * (size_t)b->nart, b->nart);
    if (nb < 0) {
        put_err(err, err_size, "mo_batch_create: world %d: out of memory listing its bodies", i);
        return MO_ERR_OUT_OF_MEMORY;
    }
    if (nb != b->nbody || na != b->nart) {
        put_err(err, err_size,
                "mo_batch_create: world %d has %d dynamic bodies and %d articulations, world 0 has %d and %d: every "
                "world must have the same structure", i, nb, na, b->nbody, b->nart);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int a = 0; a < na; a++) {
        int nq = 0, nv = 0;
        mo_articulation_size(w, b->art[(size_t)i * (size_t)b->nart + (size_t)a], NULL, &nq, &nv);
        if (nq != b->art_nq[a] || nv != b->art_nv[a]) {
            put_err(err, err_size,
                    "mo_batch_create: world %d: articulation %d has nq %d and nv %d, world 0's has %d and %d: every "
                    "world must have the same structure", i, a, nq, nv, b->art_nq[a], b->art_nv[a]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    return MO_OK;
}

/* builds world i (a scene or the callback), applies the settings; a status with err */
static mo_status build_world(mo_batch *b, const mo_batch_def *def, int i, char *err, size_t err_size)
{
    char msg[768] = "";
    mo_status st;
    if (def->scene_path) {
        st = mo_scene_file_load(def->scene_path, def->scene_options, &b->sf[i], msg, sizeof msg);
        if (st != MO_OK) {
            put_err(err, err_size, "mo_batch_create: world %d: %s", i, msg);
            return st;
        }
        b->w[i] = mo_scene_file_world(b->sf[i]);
    } else {
        mo_world_def wd = def->world_def ? *def->world_def : mo_default_world_def();
        st = mo_world_create(&wd, &b->w[i], msg, sizeof msg);
        if (st != MO_OK) {
            put_err(err, err_size, "mo_batch_create: world %d: %s", i, msg);
            return st;
        }
        st = def->build(def->build_user, i, b->w[i], msg, sizeof msg);
        if (st != MO_OK) {
            if (!msg[0]) snprintf(msg, sizeof msg, "the build function returned %s", mo_status_name(st));
            put_err(err, err_size, "mo_batch_create: world %d: %s", i, msg);
            return st;
        }
    }
    if (mo_world_set_settings(b->w[i], def->settings, def->setting_count) != MO_OK) {
        put_err(err, err_size, "mo_batch_create: world %d: %s", i, mo_world_last_error(b->w[i]));
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_world_set_threads(b->w[i], 1);
    return MO_OK;
}

static mo_status check_def(const mo_batch_def *def, char *err, size_t err_size)
{
    const char *fn = "mo_batch_create";
    if (def->internal_value != BATCH_COOKIE) {
        put_err(err, err_size, "%s: the def was not initialised with mo_default_batch_def()", fn);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (def->worlds < 1 || def->worlds > MO_BATCH_WORLDS_MAX) {
        put_err(err, err_size, "%s: worlds must be in [1, %d], got %d", fn, MO_BATCH_WORLDS_MAX, def->worlds);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!def->scene_path == !def->build) {
        put_err(err, err_size, "%s: exactly one of scene_path and build must be set, got %s", fn,
                def->scene_path ? "both" : "neither");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (def->setting_count < 0 || (def->setting_count > 0 && !def->settings)) {
        put_err(err, err_size, "%s: setting_count must be >= 0 with settings not NULL when > 0, got %d", fn,
                def->setting_count);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (def->threads < 0 || def->threads > mo_world_max_threads()) {
        put_err(err, err_size, "%s: threads must be in [0, %d], got %d", fn, mo_world_max_threads(), def->threads);
        return MO_ERR_INVALID_ARGUMENT;
    }
    return MO_OK;
}

mo_status mo_batch_create(const mo_batch_def *def, mo_batch **out, char *err, size_t err_size)
{
    put_err(err, err_size, "%s", "");
    if (out) *out = NULL;
    if (!def || !out) {
        put_err(err, err_size, "mo_batch_create: %s must not be NULL", def ? "out" : "def");
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_status st = check_def(def, err, err_size);
    if (st != MO_OK) return st;
    mo_batch *b = calloc(1, sizeof *b);
    size_t n = (size_t)def->worlds;
    if (!b) goto oom;
    b->threads = def->threads;
    b->w = calloc(n, sizeof *b->w);
    b->status = calloc(n, sizeof *b->status);
    b->init = calloc(n, sizeof *b->init);
    b->init_size = calloc(n, sizeof *b->init_size);
    if (def->scene_path) b->sf = calloc(n, sizeof *b->sf);
    if (!b->w || !b->status || !b->init || !b->init_size || (def->scene_path && !b->sf)) goto oom;
    for (int i = 0; i < def->worlds; i++) {
        b->n = i + 1; /* destroy frees what is built so far */
        if ((st = build_world(b, def, i, err, err_size)) != MO_OK) goto fail;
        if (i == 0 && (st = layout(b, def->worlds, err, err_size)) != MO_OK) goto fail;
        if ((st = world_ids(b, i, err, err_size)) != MO_OK) goto fail;
        if (!mark(b, i)) {
            put_err(err, err_size, "mo_batch_create: world %d: out of memory for its initial state", i);
            st = MO_ERR_OUT_OF_MEMORY;
            goto fail;
        }
    }
    *out = b;
    return MO_OK;
oom:
    put_err(err, err_size, "mo_batch_create: out of memory for %d worlds", def->worlds);
    st = MO_ERR_OUT_OF_MEMORY;
fail:
    mo_batch_destroy(b);
    return st;
}

/* ---- access ---- */

static bool index_ok(const mo_batch *b, int i, bool all, const char *fn)
{
    if ((i >= 0 && i < b->n) || (all && i == MO_BATCH_ALL)) return true;
    set_err(b, "%s: world index %d is out of range [0, %d]%s", fn, i, b->n - 1, all ? " (or MO_BATCH_ALL)" : "");
    return false;
}

mo_status mo_batch_sizes(const mo_batch *b, int *bodies, int *articulations, int *nq, int *nv)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (bodies) *bodies = b->nbody;
    if (articulations) *articulations = b->nart;
    if (nq) *nq = b->nq;
    if (nv) *nv = b->nv;
    return MO_OK;
}

mo_world *mo_batch_world(mo_batch *b, int index)
{
    if (!b || !index_ok(b, index, false, __func__)) return NULL;
    return b->w[index];
}

mo_scene_file *mo_batch_scene(mo_batch *b, int index)
{
    if (!b || !index_ok(b, index, false, __func__)) return NULL;
    return b->sf ? b->sf[index] : NULL;
}

mo_body_id mo_batch_body(const mo_batch *b, int index, int k)
{
    mo_body_id none = {0, 0};
    if (!b || !index_ok(b, index, false, __func__)) return none;
    if (k < 0 || k >= b->nbody) {
        set_err(b, "%s: body %d is out of range [0, %d]", __func__, k, b->nbody - 1);
        return none;
    }
    return b->body[(size_t)index * (size_t)b->nbody + (size_t)k];
}

mo_articulation_id mo_batch_articulation(const mo_batch *b, int index, int a)
{
    mo_articulation_id none = {0, 0};
    if (!b || !index_ok(b, index, false, __func__)) return none;
    if (a < 0 || a >= b->nart) {
        set_err(b, "%s: articulation %d is out of range [0, %d]", __func__, a, b->nart - 1);
        return none;
    }
    return b->art[(size_t)index * (size_t)b->nart + (size_t)a];
}

mo_status mo_batch_set_threads(mo_batch *b, int threads)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (threads < 0 || threads > mo_world_max_threads()) {
        set_err(b, "mo_batch_set_threads: threads must be in [0, %d], got %d", mo_world_max_threads(), threads);
        return MO_ERR_INVALID_ARGUMENT;
    }
    b->threads = threads;
    return MO_OK;
}

int mo_batch_threads(const mo_batch *b) { return b ? b->threads : 0; }

/* ---- stepping ---- */

/* world i's steps in a row, stopping at a failure; its status */
static mo_status world_steps(mo_batch *b, int i, int steps)
{
    mo_status st = MO_OK;
    for (int s = 0; s < steps && st == MO_OK; s++) st = b->sf ? mo_scene_file_step(b->sf[i]) : mo_world_step(b->w[i]);
    return st;
}

/* every world's `steps` steps, worlds over threads; the first failure's status with the sentence (fn) */
static mo_status step_all(mo_batch *b, int steps, const char *fn)
{
    const int n = b->n;
#ifdef _OPENMP
    const int nt = b->threads > 0 ? b->threads : omp_get_max_threads();
#  pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1 && n > 1)
#endif
    for (int i = 0; i < n; i++) b->status[i] = world_steps(b, i, steps);
    for (int i = 0; i < n; i++)
        if (b->status[i] != MO_OK) {
            set_err(b, "%s: world %d: %s", fn, i,
                    b->sf ? mo_scene_file_last_error(b->sf[i]) : mo_world_last_error(b->w[i]));
            return b->status[i];
        }
    return MO_OK;
}

mo_status mo_batch_step(mo_batch *b)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    return step_all(b, 1, __func__);
}

mo_status mo_batch_step_n(mo_batch *b, int steps)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (steps < 1) {
        set_err(b, "mo_batch_step_n: steps must be >= 1, got %d", steps);
        return MO_ERR_INVALID_ARGUMENT;
    }
    return step_all(b, steps, __func__);
}

mo_status mo_batch_world_status(const mo_batch *b, int index)
{
    if (!b || !index_ok(b, index, false, __func__)) return MO_ERR_INVALID_ARGUMENT;
    return b->status[index];
}

/* ---- bulk state ---- */

/* count against need (worlds x per); false with the sentence */
static bool count_ok(const mo_batch *b, int count, int per, const char *what, const char *fn)
{
    long long need = (long long)b->n * per;
    if (count == need) return true;
    set_err(b, "%s: arrays of %d entries, the batch has %d worlds x %d %s = %lld", fn, count, b->n, per, what, need);
    return false;
}

static bool within3(mo_vec3 v, double lim) { return fabs(v.x) <= lim && fabs(v.y) <= lim && fabs(v.z) <= lim; }

mo_status mo_batch_get_bodies(const mo_batch *b, mo_vec3 *position, mo_quat *orientation, mo_vec3 *linear,
                              mo_vec3 *angular, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if ((position || orientation || linear || angular) && !count_ok(b, count, b->nbody, "bodies", __func__))
        return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < b->nbody; k++) {
            size_t j = (size_t)i * (size_t)b->nbody + (size_t)k;
            if (position) mo_body_position(b->w[i], b->body[j], &position[j]);
            if (orientation) mo_body_orientation(b->w[i], b->body[j], &orientation[j]);
            if (linear) mo_body_linear_velocity(b->w[i], b->body[j], &linear[j]);
            if (angular) mo_body_angular_velocity(b->w[i], b->body[j], &angular[j]);
        }
    return MO_OK;
}

/* entry j's values as the engine checks them; false with the sentence */
static bool body_values_ok(const mo_batch *b, size_t j, const mo_vec3 *p, const mo_quat *q, const mo_vec3 *v,
                           const mo_vec3 *om)
{
    const char *fn = "mo_batch_set_bodies";
    int i = (int)(j / (size_t)b->nbody), k = (int)(j % (size_t)b->nbody);
    if (p && !within3(p[j], MO_LENGTH_MAX)) {
        set_err(b, "%s: world %d, body %d: position must be finite with coordinates in [-%g, %g] m, got (%g, %g, %g)",
                fn, i, k, MO_LENGTH_MAX, MO_LENGTH_MAX, p[j].x, p[j].y, p[j].z);
        return false;
    }
    if (q) {
        double l = sqrt(q[j].w * q[j].w + q[j].x * q[j].x + q[j].y * q[j].y + q[j].z * q[j].z);
        if (!isfinite(l) || l < 1e-9) {
            set_err(b, "%s: world %d, body %d: orientation must be a finite non-zero quaternion, got (%g, %g, %g, %g)",
                    fn, i, k, q[j].w, q[j].x, q[j].y, q[j].z);
            return false;
        }
    }
    if ((v && !within3(v[j], MO_SPEED_MAX)) || (om && !within3(om[j], MO_SPEED_MAX))) {
        const mo_vec3 *x = v && !within3(v[j], MO_SPEED_MAX) ? &v[j] : &om[j];
        set_err(b, "%s: world %d, body %d: %s velocity must be finite with components in [-%g, %g], got (%g, %g, %g)",
                fn, i, k, x == &om[j] && om ? "angular" : "linear", MO_SPEED_MAX, MO_SPEED_MAX, x->x, x->y, x->z);
        return false;
    }
    return true;
}

mo_status mo_batch_set_bodies(mo_batch *b, const mo_vec3 *position, const mo_quat *orientation,
                              const mo_vec3 *linear, const mo_vec3 *angular, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!position && !orientation && !linear && !angular) return MO_OK;
    if (!count_ok(b, count, b->nbody, "bodies", __func__)) return MO_ERR_INVALID_ARGUMENT;
    const size_t total = (size_t)b->n * (size_t)b->nbody;
    for (size_t j = 0; j < total; j++)
        if (!body_values_ok(b, j, position, orientation, linear, angular)) return MO_ERR_INVALID_ARGUMENT;
    for (size_t j = 0; j < total; j++) {
        mo_world *w = b->w[j / (size_t)b->nbody];
        mo_body_id id = b->body[j];
        if (position || orientation) {
            mo_vec3 p;
            mo_quat q;
            mo_body_position(w, id, &p);
            mo_body_orientation(w, id, &q);
            mo_body_set_pose(w, id, position ? position[j] : p, orientation ? orientation[j] : q);
        }
        if (linear || angular) {
            mo_vec3 v, om;
            mo_body_linear_velocity(w, id, &v);
            mo_body_angular_velocity(w, id, &om);
            mo_body_set_velocity(w, id, linear ? linear[j] : v, angular ? angular[j] : om);
        }
    }
    return MO_OK;
}

mo_status mo_batch_get_joints(const mo_batch *b, double *q, int q_count, double *qdot, int qdot_count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if ((q && !count_ok(b, q_count, b->nq, "joint coordinates", __func__)) ||
        (qdot && !count_ok(b, qdot_count, b->nv, "joint velocities", __func__)))
        return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++)
        for (int a = 0, oq = 0, ov = 0; a < b->nart; oq += b->art_nq[a], ov += b->art_nv[a], a++) {
            mo_articulation_id id = b->art[(size_t)i * (size_t)b->nart + (size_t)a];
            if (q) mo_articulation_get_q(b->w[i], id, q + (size_t)i * (size_t)b->nq + oq, b->art_nq[a]);
            if (qdot) mo_articulation_get_qdot(b->w[i], id, qdot + (size_t)i * (size_t)b->nv + ov, b->art_nv[a]);
        }
    return MO_OK;
}

mo_status mo_batch_set_joints(mo_batch *b, const double *q, int q_count, const double *qdot, int qdot_count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    const char *fn = "mo_batch_set_joints";
    if ((q && !count_ok(b, q_count, b->nq, "joint coordinates", fn)) ||
        (qdot && !count_ok(b, qdot_count, b->nv, "joint velocities", fn)))
        return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; q && i < b->n; i++) {
        const double *qi = q + (size_t)i * (size_t)b->nq;
        for (int k = 0; k < b->nq; k++)
            if (!(fabs(qi[k]) <= MO_LENGTH_MAX)) {
                set_err(b, "%s: world %d: q[%d] must be finite and within %g, got %g", fn, i, k, MO_LENGTH_MAX, qi[k]);
                return MO_ERR_INVALID_ARGUMENT;
            }
        for (int u = 0; u < b->nquat; u++) {
            const double *e = qi + b->quat_ofs[u];
            if (!(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] > 1e-18)) {
                set_err(b, "%s: world %d: the quaternion q[%d..%d] (%g, %g, %g, %g) is zero", fn, i, b->quat_ofs[u],
                        b->quat_ofs[u] + 3, e[0], e[1], e[2], e[3]);
                return MO_ERR_INVALID_ARGUMENT;
            }
        }
    }
    for (int i = 0; qdot && i < b->n; i++) {
        const double *vi = qdot + (size_t)i * (size_t)b->nv;
        for (int k = 0; k < b->nv; k++)
            if (!(fabs(vi[k]) <= MO_SPEED_MAX)) {
                set_err(b, "%s: world %d: qdot[%d] must be finite and within %g, got %g", fn, i, k, MO_SPEED_MAX,
                        vi[k]);
                return MO_ERR_INVALID_ARGUMENT;
            }
    }
    for (int i = 0; i < b->n; i++)
        for (int a = 0, oq = 0, ov = 0; a < b->nart; oq += b->art_nq[a], ov += b->art_nv[a], a++) {
            mo_articulation_id id = b->art[(size_t)i * (size_t)b->nart + (size_t)a];
            mo_status st = MO_OK;
            if (q) st = mo_articulation_set_q(b->w[i], id, q + (size_t)i * (size_t)b->nq + oq, b->art_nq[a]);
            if (st == MO_OK && qdot)
                st = mo_articulation_set_qdot(b->w[i], id, qdot + (size_t)i * (size_t)b->nv + ov, b->art_nv[a]);
            if (st != MO_OK) { /* not reached: the values were checked above as the engine checks them */
                set_err(b, "%s: world %d: %s", fn, i, mo_world_last_error(b->w[i]));
                return st;
            }
        }
    return MO_OK;
}

int mo_batch_drive_count(const mo_batch *b) { return b ? b->ndrive : 0; }

mo_status mo_batch_get_drive_targets(const mo_batch *b, double *position, double *velocity, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if ((position || velocity) && !count_ok(b, count, b->ndrive, "drives", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++)
        for (int k = 0; k < b->ndrive; k++) {
            mo_joint_drive d = mo_default_joint_drive();
            mo_articulation_drive(b->w[i], b->art[(size_t)i * (size_t)b->nart + (size_t)b->drive_art[k]],
                                  b->drive_link[k], &d);
            size_t j = (size_t)i * (size_t)b->ndrive + (size_t)k;
            if (position) position[j] = d.target_position;
            if (velocity) velocity[j] = d.target_velocity;
        }
    return MO_OK;
}

mo_status mo_batch_set_drive_targets(mo_batch *b, const double *position, const double *velocity, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    const char *fn = "mo_batch_set_drive_targets";
    if (!position && !velocity) return MO_OK;
    if (!count_ok(b, count, b->ndrive, "drives", fn)) return MO_ERR_INVALID_ARGUMENT;
    const size_t total = (size_t)b->n * (size_t)b->ndrive;
    for (size_t j = 0; j < total; j++) {
        int i = (int)(j / (size_t)b->ndrive), k = (int)(j % (size_t)b->ndrive);
        if (position && !(fabs(position[j]) <= MO_LENGTH_MAX)) {
            set_err(b, "%s: world %d, drive %d: target position must be finite and within %g, got %g", fn, i, k,
                    MO_LENGTH_MAX, position[j]);
            return MO_ERR_INVALID_ARGUMENT;
        }
        if (velocity && !(fabs(velocity[j]) <= MO_SPEED_MAX)) {
            set_err(b, "%s: world %d, drive %d: target velocity must be finite and within %g, got %g", fn, i, k,
                    MO_SPEED_MAX, velocity[j]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    }
    for (size_t j = 0; j < total; j++) {
        int i = (int)(j / (size_t)b->ndrive), k = (int)(j % (size_t)b->ndrive);
        mo_articulation_id id = b->art[(size_t)i * (size_t)b->nart + (size_t)b->drive_art[k]];
        mo_joint_drive d = mo_default_joint_drive();
        mo_articulation_drive(b->w[i], id, b->drive_link[k], &d);
        if (position) d.target_position = position[j];
        if (velocity) d.target_velocity = velocity[j];
        mo_articulation_set_drive(b->w[i], id, b->drive_link[k], &d); /* checked above: cannot fail */
    }
    return MO_OK;
}

mo_status mo_batch_contact_counts(const mo_batch *b, int *out, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!out) {
        set_err(b, "mo_batch_contact_counts: out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!count_ok(b, count, 1, "count", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++) out[i] = mo_world_last_stats(b->w[i]).contacts;
    return MO_OK;
}

mo_status mo_batch_state_hashes(const mo_batch *b, uint64_t *out, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!out) {
        set_err(b, "mo_batch_state_hashes: out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!count_ok(b, count, 1, "hash", __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++) out[i] = mo_world_state_hash(b->w[i]);
    return MO_OK;
}

/* ---- per-world parameters and reset ---- */

mo_status mo_batch_set_gravity(mo_batch *b, int index, mo_vec3 g)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!index_ok(b, index, true, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (!within3(g, MO_GRAVITY_MAX)) {
        set_err(b, "mo_batch_set_gravity: gravity must be finite with components in [-%g, %g] m/s^2, got (%g, %g, %g)",
                MO_GRAVITY_MAX, MO_GRAVITY_MAX, g.x, g.y, g.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < b->n; i++)
        if (index == MO_BATCH_ALL || index == i) mo_world_set_gravity(b->w[i], g);
    return MO_OK;
}

mo_status mo_batch_set_settings(mo_batch *b, int index, const char *const *assignments, int count)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!index_ok(b, index, true, __func__)) return MO_ERR_INVALID_ARGUMENT;
    if (count < 0 || (count > 0 && !assignments)) {
        set_err(b, "mo_batch_set_settings: count must be >= 0 with assignments not NULL when > 0, got %d", count);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (index != MO_BATCH_ALL) {
        if (mo_world_set_settings(b->w[index], assignments, count) != MO_OK) {
            set_err(b, "mo_batch_set_settings: world %d: %s", index, mo_world_last_error(b->w[index]));
            return MO_ERR_INVALID_ARGUMENT;
        }
        return MO_OK;
    }
    /* every world: the settings of each are kept as text and put back if a later world refuses */
    char(*old)[128] = NULL;
    const int ns = mo_setting_count();
    old = malloc((size_t)b->n * (size_t)ns * sizeof *old);
    const char **undo = malloc((size_t)ns * sizeof *undo);
    char(*text)[256] = malloc((size_t)ns * sizeof *text);
    if (!old || !undo || !text) {
        free(old);
        free(undo);
        free(text);
        set_err(b, "mo_batch_set_settings: out of memory for %d worlds' settings", b->n);
        return MO_ERR_OUT_OF_MEMORY;
    }
    mo_status st = MO_OK;
    int i = 0;
    for (; i < b->n; i++) {
        for (int s = 0; s < ns; s++)
            mo_world_get_setting(b->w[i], mo_setting_at(s)->name, old[(size_t)i * (size_t)ns + (size_t)s], 128);
        if (mo_world_set_settings(b->w[i], assignments, count) != MO_OK) {
            set_err(b, "mo_batch_set_settings: world %d: %s", i, mo_world_last_error(b->w[i]));
            st = MO_ERR_INVALID_ARGUMENT;
            break;
        }
    }
    for (int j = 0; st != MO_OK && j < i; j++) { /* put the earlier worlds' settings back */
        for (int s = 0; s < ns; s++) {
            snprintf(text[s], sizeof text[s], "%s=%s", mo_setting_at(s)->name, old[(size_t)j * (size_t)ns + (size_t)s]);
            undo[s] = text[s];
        }
        mo_world_set_settings(b->w[j], undo, ns);
    }
    free(old);
    free(undo);
    free(text);
    return st;
}

mo_status mo_batch_reset(mo_batch *b, int index)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!index_ok(b, index, true, __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++) {
        if (index != MO_BATCH_ALL && index != i) continue;
        mo_status st = mo_world_restore_state(b->w[i], b->init[i], b->init_size[i]);
        if (st != MO_OK) { /* only out of memory for the contact cache: the world is unchanged */
            set_err(b, "mo_batch_reset: world %d: %s", i, mo_world_last_error(b->w[i]));
            return st;
        }
        b->status[i] = MO_OK;
    }
    return MO_OK;
}

mo_status mo_batch_mark_initial(mo_batch *b, int index)
{
    if (!b) return MO_ERR_INVALID_ARGUMENT;
    if (!index_ok(b, index, true, __func__)) return MO_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < b->n; i++) {
        if ((index == MO_BATCH_ALL || index == i) && !mark(b, i)) {
            set_err(b, "mo_batch_mark_initial: world %d: out of memory for its state", i);
            return MO_ERR_OUT_OF_MEMORY;
        }
    }
    return MO_OK;
}
