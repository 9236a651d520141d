/* state.c: the world's state saved into a caller's buffer and restored from
 * it (mo_world_state_size, mo_world_save_state, mo_world_restore_state; the
 * model is MuJoCo's mj_getState / mj_setState): everything a step reads that
 * earlier steps or the caller's inputs changed, so that restoring and stepping
 * N times gives bit for bit the states of the N steps that followed the save.
 *
 * What is saved (the "state"): time and step counter; each live body's pose,
 * velocity and applied force and torque; each live particle's position,
 * velocity and applied force; each live joint's motor (mode, targets, max
 * force), warm-start impulses and last reactions; the contact cache (the
 * previous step's impulses, for warm starting, and Newton's friction factors);
 * each live FEM mesh's last forces (warm start), activations, fixed-node
 * targets and velocities; FEM attachments' points, compliance and last forces;
 * the FEM surface contacts of the last step (their warm start); each live
 * articulation's q, qdot and held inputs (joint torques, drives, joint damping, limits, dry friction) and its
 * limit and friction rows' last impulses (warm start).
 * What is checked, not saved (the "structure"): the slot counts of bodies,
 * shapes, particles, joints and FEM meshes, and per slot whether it is alive,
 * its generation counter (not the world tag in its high bits: a state restores
 * into another world built the same way) and its kind (body type, shape's body, particle's mesh,
 * joint type and bodies, mesh sizes, attachments' mesh, node and body, a link body's articulation and link), the
 * articulation slot count and per slot its link, coordinate and velocity counts.
 * Everything else (settings, gravity, time step, masses, shapes' geometry,
 * materials) is the model: the caller builds it the same way.
 *
 * Format (native byte order, packed, no padding): a 48-byte header (magic
 * "MOSTATE\0" at 0, version u32 at 8, the six slot counts u32 at 12, the
 * payload's size u64 at 36, its FNV-1a hash folded to u32 at 44), then the
 * payload: per slot its structure (u32s) and, when alive, its state. One walk over the world
 * (walk()) writes it, measures it, checks a buffer against the world and reads
 * it back, so the four cannot disagree; a restore checks everything first and
 * changes the world only when all of it fits. */
#include <stdlib.h>
#include <string.h>
#include "model/fem.h"

#define ST_MAGIC "MOSTATE"
#define ST_VERSION 4u /* 2: the articulations (issue 19); 3: their limits, friction and rows' impulses, link bodies;
                         4: the bodies' sleep state (issue 21; version 3 is still read: its bodies wake) */
#define ST_VERSION_MIN 3u
#define ST_HEADER 48
#define CACHE_REC (8 + 9 * 8)      /* bytes of a cached contact in the payload (walk_cache) */
#define SC_REC (9 * 4 + 20 * 8)    /* bytes of a FEM surface contact (walk_scontact) */

typedef enum { ST_MEASURE, ST_SAVE, ST_CHECK, ST_LOAD } st_mode;

typedef struct st_io {
    st_mode mode;
    unsigned char *p;       /* ST_SAVE: the payload being written */
    const unsigned char *q; /* ST_CHECK, ST_LOAD: the payload being read */
    size_t at, size;        /* cursor; payload size (reads) */
    mo_world *w;
    int bad;                /* ST_CHECK: a mismatch or a truncation was found (sentence in w->err) */
    int oom;                /* ST_CHECK: no room for the cached or FEM surface contacts (sentence in w->err) */
    uint32_t version;       /* the payload's format version (ST_VERSION when saving or measuring) */
} st_io;

static const char *const ST_FN = "mo_world_restore_state";

static bool room(st_io *io, size_t n)
{
    if (io->bad) return false;
    if ((io->mode == ST_CHECK || io->mode == ST_LOAD) && io->at + n > io->size) {
        mo_set_error(io->w, "%s: the state ends after %zu bytes of payload, short of the %zu this world's state needs "
                            "there (truncated or corrupt)", ST_FN, io->size, io->at + n);
        io->bad = 1;
        return false;
    }
    return true;
}

/* n bytes of state: written, skipped (checked for room) or read back */
static void st_bytes(st_io *io, void *v, size_t n)
{
    if (n == 0 || !room(io, n)) return; /* an empty array's pointer may be NULL */
    if (io->mode == ST_SAVE) memcpy(io->p + io->at, v, n);
    else if (io->mode == ST_LOAD) memcpy(v, io->q + io->at, n);
    io->at += n;
}

static void st_f64(st_io *io, double *v, size_t n) { st_bytes(io, v, n * sizeof(double)); }

/* a structural value: written, or compared with the world's (a mismatch is the error: what, slot, values) */
static void st_check(st_io *io, uint32_t v, const char *what, int slot)
{
    if (!room(io, 4)) return;
    if (io->mode == ST_SAVE) memcpy(io->p + io->at, &v, 4);
    else if (io->mode == ST_CHECK) {
        uint32_t s;
        memcpy(&s, io->q + io->at, 4);
        if (s != v) {
            mo_set_error(io->w, "%s: the state is from a world of another structure: %s of slot %d is %u in the state, "
                                "%u in this world", ST_FN, what, slot, s, v);
            io->bad = 1;
        }
    }
    io->at += 4;
}

/* a count the state decides (cache entries, surface contacts): the world's n when saving, the state's when
   reading, where the rest of the payload must hold that many records of rec bytes */
static int st_count(st_io *io, int n, size_t rec)
{
    uint32_t v = (uint32_t)n;
    if (!room(io, 4)) return 0;
    if (io->mode == ST_SAVE) memcpy(io->p + io->at, &v, 4);
    else if (io->mode != ST_MEASURE) memcpy(&v, io->q + io->at, 4);
    io->at += 4;
    if ((io->mode == ST_CHECK || io->mode == ST_LOAD) && v > (io->size - io->at) / rec) {
        mo_set_error(io->w, "%s: the state says %u records of %zu bytes follow, but only %zu bytes do (truncated or "
                            "corrupt)", ST_FN, v, rec, io->size - io->at);
        io->bad = 1;
        return 0;
    }
    return (int)v;
}

static void st_i32(st_io *io, int *v)
{
    int32_t x = (int32_t)*v;
    st_bytes(io, &x, 4);
    if (io->mode == ST_LOAD) *v = x;
}

/* the structure: slot counts, recorded in the header and compared before the payload is read */
static void counts(const mo_world *w, uint32_t c[6])
{
    const fem_ext *fx = (const fem_ext *)w->fem;
    c[0] = (uint32_t)w->body_count;
    c[1] = (uint32_t)w->shape_count;
    c[2] = (uint32_t)w->particle_count;
    c[3] = (uint32_t)w->joint_count;
    c[4] = fx ? (uint32_t)fx->base.count : 0u;
    c[5] = fx ? (uint32_t)fx->natt : 0u;
}

/* the contact cache's entries (the room for n of them is there when loading) */
static void walk_cache(st_io *io, int n)
{
    mo_contact_cache *c = (mo_contact_cache *)io->w->cache.p;
    for (int i = 0; i < n && !io->bad; i++) {
        mo_contact_cache tmp, *e = io->mode == ST_SAVE || io->mode == ST_LOAD ? &c[i] : &tmp;
        st_bytes(io, &e->key, sizeof e->key);
        st_f64(io, e->point, 3);
        st_f64(io, e->impulse_world, 3);
        st_f64(io, &e->normal_impulse, 1);
        st_f64(io, &e->fric_w, 1);
        st_f64(io, &e->fric_k, 1);
    }
}

static void walk_scontact(st_io *io, fem_scontact *s)
{
    st_i32(io, &s->mesh);
    st_i32(io, &s->tri);
    for (int k = 0; k < 3; k++) st_i32(io, &s->node[k]);
    st_i32(io, &s->body);
    st_i32(io, &s->shape);
    st_i32(io, &s->vertex);
    st_bytes(io, &s->feat, sizeof s->feat);
    st_f64(io, s->b, 3);
    st_f64(io, s->r, 3);
    st_f64(io, &s->rad, 1);
    st_f64(io, s->n, 3);
    st_f64(io, s->t1, 3);
    st_f64(io, s->t2, 3);
    st_f64(io, &s->mu, 1);
    st_f64(io, s->lam, 3);
}

/* the FEM part: meshes, attachments, surface contacts */
static void walk_fem(st_io *io)
{
    fem_ext *fx = (fem_ext *)io->w->fem;
    if (!fx) return;
    for (int i = 0; i < fx->base.count && !io->bad; i++) {
        fem_mesh *m = &fx->base.m[i];
        st_check(io, m->alive, "the FEM mesh alive flag", i);
        st_check(io, m->generation & MO_GEN_MASK, "the FEM mesh generation", i);
        if (!m->alive) continue;
        st_check(io, (uint32_t)m->nnodes, "the FEM mesh node count", i);
        st_check(io, (uint32_t)m->ntets, "the FEM mesh tetrahedron count", i);
        st_check(io, (uint32_t)m->nfixed, "the FEM mesh fixed-node count", i);
        st_check(io, (uint32_t)m->nrows, "the FEM mesh row count", i);
        if (io->bad) return;
        uint32_t have = m->have_lam;
        st_bytes(io, &have, 4);
        if (io->mode == ST_LOAD) m->have_lam = have != 0;
        st_f64(io, m->lam, (size_t)m->nrows);
        st_f64(io, m->act, (size_t)m->ntets);
        st_f64(io, m->ftarget, 3 * (size_t)m->nfixed);
        st_f64(io, m->fvel, 3 * (size_t)m->nfixed);
    }
    for (int i = 0; i < fx->natt && !io->bad; i++) {
        fem_attach *a = &fx->att[i];
        st_check(io, (uint32_t)a->mesh, "the FEM attachment's mesh", i);
        st_check(io, a->mesh_gen & MO_GEN_MASK, "the FEM attachment's mesh generation", i);
        st_check(io, (uint32_t)a->node, "the FEM attachment's node", i);
        st_check(io, (uint32_t)a->body, "the FEM attachment's body", i);
        st_check(io, a->body_gen & MO_GEN_MASK, "the FEM attachment's body generation", i);
        uint32_t have = a->have_lam;
        st_bytes(io, &have, 4);
        if (io->mode == ST_LOAD) a->have_lam = have != 0;
        st_f64(io, a->r, 3);
        st_f64(io, &a->eps, 1);
        st_f64(io, a->lam, 3);
    }
    int nsc = st_count(io, fx->nsc, SC_REC);
    if (io->bad) return;
    if (io->mode == ST_CHECK && nsc > fx->sc_cap) { /* room before anything changes */
        fem_scontact *ns = (fem_scontact *)realloc(fx->sc, (size_t)nsc * sizeof *ns);
        if (!ns) {
            mo_set_error(io->w, "%s: out of memory for %d FEM surface contacts", ST_FN, nsc);
            io->bad = io->oom = 1;
            return;
        }
        fx->sc = ns;
        fx->sc_cap = nsc;
    }
    for (int i = 0; i < nsc && !io->bad; i++) {
        fem_scontact tmp;
        memset(&tmp, 0, sizeof tmp);
        walk_scontact(io, io->mode == ST_CHECK || io->mode == ST_MEASURE ? &tmp : &fx->sc[i]);
    }
    if (io->mode == ST_LOAD) {
        fx->nsc = nsc;
        fx->nsc_prev = 0;
    }
}

/* the articulations: the slot count, per slot its structure and, when alive, q, qdot and the held inputs */
static void walk_artic(st_io *io)
{
    mo_world *w = io->w;
    if (io->bad) return;
    if (!room(io, 4)) return;
    uint32_t n = (uint32_t)w->artic_count, s = n;
    if (io->mode == ST_SAVE) memcpy(io->p + io->at, &n, 4);
    else if (io->mode == ST_CHECK) memcpy(&s, io->q + io->at, 4);
    io->at += 4;
    if (s != n) {
        mo_set_error(w, "%s: the state is from a world of another structure: %u articulation slots in the state, %u in "
                        "this world", ST_FN, s, n);
        io->bad = 1;
        return;
    }
    for (int i = 0; i < w->artic_count && !io->bad; i++) {
        mo_artic_obj *a = &w->artics[i];
        st_check(io, a->alive, "the articulation alive flag", i);
        st_check(io, a->generation & MO_GEN_MASK, "the articulation generation", i);
        if (!a->alive) continue;
        st_check(io, (uint32_t)a->m->nlink, "the articulation's link count", i);
        st_check(io, (uint32_t)a->m->nq, "the articulation's coordinate count", i);
        st_check(io, (uint32_t)a->m->nv, "the articulation's velocity count", i);
        if (io->bad) return;
        const size_t nv = (size_t)a->m->nv;
        if (io->mode == ST_LOAD) a->last_iters = 0, a->acc_h = 0.0; /* no step since the restore */
        st_f64(io, a->q, (size_t)a->m->nq);
        double *arr[] = {a->v, a->tau, a->kp, a->kd, a->qt, a->vt, a->ff, a->effort, a->damping, a->lower, a->upper,
                         a->fric, a->mimic_src, a->mimic_k, a->mimic_off};
        for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) st_f64(io, arr[k], nv);
        st_f64(io, a->imp, MO_ARTIC_ROWS_PER_DOF * nv);
        st_f64(io, &a->last_h, 1);
    }
}

/* the whole payload, in one order for every mode */
static void walk(st_io *io)
{
    mo_world *w = io->w;
    st_f64(io, &w->time, 1);
    st_bytes(io, &w->step_index, sizeof w->step_index);
    for (int i = 0; i < w->body_count && !io->bad; i++) {
        mo_body *b = &w->bodies[i];
        st_check(io, b->alive, "the body alive flag", i);
        st_check(io, b->generation & MO_GEN_MASK, "the body generation", i);
        if (!b->alive) continue;
        st_check(io, (uint32_t)b->type, "the body type", i);
        st_check(io, (uint32_t)b->nshapes, "the body's shape count", i);
        st_check(io, (uint32_t)b->artic, "the body's articulation (a link body)", i);
        st_check(io, (uint32_t)b->link, "the body's articulation link", i);
        st_f64(io, b->k.x, 3);
        st_f64(io, b->k.q, 4);
        st_f64(io, b->k.v, 3);
        st_f64(io, b->k.w, 3);
        st_f64(io, b->k.f, 3);
        st_f64(io, b->k.tau, 3);
        /* 4: the sleep state (island id, rest time); version 3 states wake the body */
        if (io->version >= 4) {
            st_i32(io, &b->sleep_island);
            st_f64(io, &b->rest_time, 1);
            if (io->mode == ST_LOAD && (b->sleep_island < 0 || b->sleep_island > w->body_count)) b->sleep_island = 0;
        } else if (io->mode == ST_LOAD) {
            b->sleep_island = 0;
            b->rest_time = 0.0;
        }
    }
    for (int i = 0; i < w->shape_count && !io->bad; i++) {
        const mo_shape *s = &w->shapes[i];
        st_check(io, s->alive, "the shape alive flag", i);
        st_check(io, s->generation & MO_GEN_MASK, "the shape generation", i);
        if (s->alive) st_check(io, (uint32_t)s->body, "the shape's body", i);
    }
    for (int i = 0; i < w->particle_count && !io->bad; i++) {
        mo_particle *p = &w->particles[i];
        st_check(io, p->alive, "the particle alive flag", i);
        st_check(io, p->generation & MO_GEN_MASK, "the particle generation", i);
        if (!p->alive) continue;
        st_check(io, (uint32_t)p->fem_mesh, "the particle's FEM mesh", i);
        st_f64(io, p->x, 3);
        st_f64(io, p->v, 3);
        st_f64(io, p->f, 3);
    }
    for (int i = 0; i < w->joint_count && !io->bad; i++) {
        mo_joint *j = &w->joints[i];
        st_check(io, j->alive, "the joint alive flag", i);
        st_check(io, j->generation & MO_GEN_MASK, "the joint generation", i);
        if (!j->alive) continue;
        st_check(io, (uint32_t)j->type, "the joint type", i);
        st_check(io, (uint32_t)j->a, "the joint's body A", i);
        st_check(io, (uint32_t)j->b, "the joint's body B", i);
        int motor = (int)j->motor;
        st_i32(io, &motor);
        if (io->mode == ST_LOAD) j->motor = (mo_motor_mode)motor;
        st_f64(io, &j->target_vel, 1);
        st_f64(io, &j->target_pos, 1);
        st_f64(io, &j->max_force, 1);
        st_i32(io, &j->nrows); /* the last step's row count: the next keeps the impulses only when it is the same */
        if (io->mode == ST_LOAD && (j->nrows < 0 || j->nrows > 8)) j->nrows = 0;
        st_f64(io, j->impulse, 8);
        st_f64(io, j->react_f, 3);
        st_f64(io, j->react_t, 3);
    }
    if (io->bad) return;
    /* the contact cache: the state's count; its room is made while checking, before anything changes */
    int nc = st_count(io, w->ncache, CACHE_REC);
    if (io->bad) return;
    if (io->mode == ST_CHECK && mo_buf_reserve(&w->cache, (size_t)(nc + 1) * sizeof(mo_contact_cache))) {
        mo_set_error(w, "%s: out of memory for %d cached contacts", ST_FN, nc);
        io->bad = io->oom = 1;
        return;
    }
    walk_cache(io, nc);
    if (io->mode == ST_LOAD) w->ncache = nc;
    walk_fem(io);
    walk_artic(io);
}

static uint64_t fnv(const unsigned char *c, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

static size_t payload_size(mo_world *w)
{
    st_io io = {ST_MEASURE, NULL, NULL, 0, 0, w, 0, 0, ST_VERSION};
    walk(&io);
    return io.at;
}

size_t mo_world_state_size(const mo_world *w)
{
    if (!w) return 0;
    return ST_HEADER + payload_size((mo_world *)w); /* measuring reads the world only */
}

mo_status mo_world_save_state(mo_world *w, void *buf, size_t size)
{
    MO_NEED_W(w);
    const size_t need = mo_world_state_size(w);
    if (!buf) {
        mo_set_error(w, "mo_world_save_state: buf must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (size < need) {
        mo_set_error(w, "mo_world_save_state: the buffer holds %zu bytes, the state needs %zu (mo_world_state_size)",
                     size, need);
        return MO_ERR_INVALID_ARGUMENT;
    }
    unsigned char *h = (unsigned char *)buf;
    st_io io = {ST_SAVE, h + ST_HEADER, NULL, 0, 0, w, 0, 0, ST_VERSION};
    walk(&io);
    uint64_t n = io.at, sum = fnv(h + ST_HEADER, io.at);
    uint32_t v = ST_VERSION, c[6];
    counts(w, c);
    memset(h, 0, ST_HEADER);
    memcpy(h, ST_MAGIC, 8);
    memcpy(h + 8, &v, 4);
    memcpy(h + 12, c, sizeof c); /* 24 bytes: 12..35 */
    memcpy(h + 36, &n, 8);
    uint32_t s32 = (uint32_t)(sum ^ (sum >> 32));
    memcpy(h + 44, &s32, 4);
    return MO_OK;
}

mo_status mo_world_restore_state(mo_world *w, const void *buf, size_t size)
{
    MO_NEED_W(w);
    static const char *const what[6] = {"body", "shape", "particle", "joint", "FEM mesh", "FEM attachment"};
    if (!buf) {
        mo_set_error(w, "%s: buf must not be NULL", ST_FN);
        return MO_ERR_INVALID_ARGUMENT;
    }
    const unsigned char *h = (const unsigned char *)buf;
    if (size < ST_HEADER) {
        mo_set_error(w, "%s: the buffer holds %zu bytes, shorter than the state's %d-byte header (truncated)", ST_FN,
                     size, ST_HEADER);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (memcmp(h, ST_MAGIC, 8) != 0) {
        mo_set_error(w, "%s: the buffer does not start with a Moreau state (bad magic)", ST_FN);
        return MO_ERR_INVALID_ARGUMENT;
    }
    uint32_t v, c[6], wc[6], s32;
    uint64_t n;
    memcpy(&v, h + 8, 4);
    if (v < ST_VERSION_MIN || v > ST_VERSION) {
        mo_set_error(w, "%s: the state has format version %u, this build reads versions %u to %u", ST_FN, v,
                     ST_VERSION_MIN, ST_VERSION);
        return MO_ERR_INVALID_ARGUMENT;
    }
    memcpy(c, h + 12, sizeof c);
    memcpy(&n, h + 36, 8);
    memcpy(&s32, h + 44, 4);
    if (n > size - ST_HEADER) {
        mo_set_error(w, "%s: the buffer holds %zu bytes, the state it starts says %llu (truncated)", ST_FN, size,
                     (unsigned long long)(n + ST_HEADER));
        return MO_ERR_INVALID_ARGUMENT;
    }
    uint64_t sum = fnv(h + ST_HEADER, (size_t)n);
    if ((uint32_t)(sum ^ (sum >> 32)) != s32) {
        mo_set_error(w, "%s: the state's checksum does not match its contents (corrupt)", ST_FN);
        return MO_ERR_INVALID_ARGUMENT;
    }
    counts(w, wc);
    for (int k = 0; k < 6; k++)
        if (c[k] != wc[k]) {
            mo_set_error(w, "%s: the state is from a world of another structure: %u %s slots in the state, %u in "
                            "this world", ST_FN, c[k], what[k], wc[k]);
            return MO_ERR_INVALID_ARGUMENT;
        }
    /* everything checked (and room made) first; then read, which cannot fail */
    st_io io = {ST_CHECK, NULL, h + ST_HEADER, 0, (size_t)n, w, 0, 0, v};
    walk(&io);
    if (io.bad) return io.oom ? MO_ERR_OUT_OF_MEMORY : MO_ERR_INVALID_ARGUMENT;
    if (io.at != n) {
        mo_set_error(w, "%s: the state has %llu bytes of payload, this world's state %zu (corrupt)", ST_FN,
                     (unsigned long long)n, io.at);
        return MO_ERR_INVALID_ARGUMENT;
    }
    io.mode = ST_LOAD;
    io.at = 0;
    walk(&io);
    /* what the last step left for queries is not state: no contacts, no statistics until the next step */
    w->ncontacts = 0;
    memset(&w->stats, 0, sizeof w->stats);
    w->q_synced = 0; /* the world queries' trees hold the old poses */
    return MO_OK;
}
