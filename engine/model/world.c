/* world.c: world creation, settings, errors, scratch buffers, statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model/world.h"
#include "core/parallel.h"
#include "backend/device.h"

const char *mo_status_name(mo_status s)
{
    switch (s) {
    case MO_OK: return "MO_OK";
    case MO_ERR_INVALID_ARGUMENT: return "MO_ERR_INVALID_ARGUMENT";
    case MO_ERR_STALE_ID: return "MO_ERR_STALE_ID";
    case MO_ERR_OUT_OF_MEMORY: return "MO_ERR_OUT_OF_MEMORY";
    case MO_ERR_UNSUPPORTED: return "MO_ERR_UNSUPPORTED";
    case MO_ERR_IO: return "MO_ERR_IO";
    case MO_ERR_NOT_FINITE: return "MO_ERR_NOT_FINITE";
    }
    return "MO_ERR_UNKNOWN";
}

void mo_set_error(const mo_world *w, const char *fmt, ...)
{
    mo_err_text *e = w->err;
    while (atomic_flag_test_and_set_explicit(&e->lock, memory_order_acquire)) {
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    atomic_flag_clear_explicit(&e->lock, memory_order_release);
}

/* the next world's tag, 1..MO_TAG_MAX round robin */
static uint32_t next_tag(void)
{
    static atomic_uint counter;
    return atomic_fetch_add(&counter, 1u) % MO_TAG_MAX + 1u;
}

void mo_world_set_error(mo_world *w, const char *sentence)
{
    if (w) mo_set_error(w, "%s", sentence ? sentence : "");
}

mo_world_def mo_default_world_def(void)
{
    mo_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = (mo_vec3){0.0, 0.0, -9.81};
    d.time_step = 1.0 / 120.0;
    d.solver = mo_default_solver_settings();
    d.contact_compliance = 0.0;
    d.joint_compliance = 0.0;
    d.damping_steps = 4.0;
    d.max_push_velocity = 1.0;
    d.contact_margin = 0.01;
    d.threads = 1;
    d.substeps = 1;
    d.sleep = false; /* off: the reference behaviour, every body stepped (docs/sleeping.md) */
    d.sleep_linear_velocity = 0.05;
    d.sleep_angular_velocity = 0.05;
    d.sleep_time = 0.5;
    d.internal_value = MO_DEF_COOKIE;
    return d;
}

static int check_world_def(const mo_world_def *d, char *err, size_t n)
{
    if (d->internal_value != MO_DEF_COOKIE) {
        snprintf(err, n, "world def was not initialised with mo_default_world_def()");
        return 0;
    }
    if (!mo_within3(d->gravity, MO_GRAVITY_MAX)) {
        snprintf(err, n, "world gravity must be finite with components in [-%g, %g] m/s^2, got (%g, %g, %g)",
                 MO_GRAVITY_MAX, MO_GRAVITY_MAX, d->gravity.x, d->gravity.y, d->gravity.z);
        return 0;
    }
    if (!(d->time_step >= MO_TIME_STEP_MIN && d->time_step <= MO_TIME_STEP_MAX)) {
        snprintf(err, n, "world time_step must be in [%g, %g] s, got %g", MO_TIME_STEP_MIN, MO_TIME_STEP_MAX,
                 d->time_step);
        return 0;
    }
    if (!(d->contact_compliance >= 0.0) || !isfinite(d->contact_compliance) || !(d->joint_compliance >= 0.0) ||
        !isfinite(d->joint_compliance)) {
        snprintf(err, n, "world compliances must be finite and >= 0, got contact %g, joint %g", d->contact_compliance,
                 d->joint_compliance);
        return 0;
    }
    if (!(d->damping_steps >= 0.0) || !isfinite(d->damping_steps)) {
        snprintf(err, n, "world damping_steps must be finite and >= 0, got %g", d->damping_steps);
        return 0;
    }
    if (!(d->max_push_velocity > 0.0)) {
        snprintf(err, n, "world max_push_velocity must be > 0, got %g", d->max_push_velocity);
        return 0;
    }
    if (!(d->contact_margin >= 0.0) || !isfinite(d->contact_margin)) {
        snprintf(err, n, "world contact_margin must be finite and >= 0, got %g", d->contact_margin);
        return 0;
    }
    if (d->threads < 0 || d->threads > mo_world_max_threads()) {
        snprintf(err, n, "world threads must be in [0, %d] (%d per core of this machine), got %d",
                 mo_world_max_threads(), MO_THREADS_PER_CORE, d->threads);
        return 0;
    }
    if (d->substeps < 1 || d->substeps > 1000) {
        snprintf(err, n, "world substeps must be in [1, 1000], got %d", d->substeps);
        return 0;
    }
    if (!(d->sleep_linear_velocity >= 0.0) || !isfinite(d->sleep_linear_velocity) ||
        !(d->sleep_angular_velocity >= 0.0) || !isfinite(d->sleep_angular_velocity) || !(d->sleep_time >= 0.0) ||
        !isfinite(d->sleep_time)) {
        snprintf(err, n, "world sleep thresholds must be finite and >= 0, got sleep_linear_velocity %g m/s, "
                 "sleep_angular_velocity %g rad/s, sleep_time %g s", d->sleep_linear_velocity,
                 d->sleep_angular_velocity, d->sleep_time);
        return 0;
    }
    if ((int)d->backend < 0 || d->backend >= MO_BACKEND_COUNT) {
        snprintf(err, n, "world backend %d is not a known backend (cpu, cuda, auto)", (int)d->backend);
        return 0;
    }
    if (!mo_solver_check(&d->solver, err, n)) return 0;
    return d->backend != MO_BACKEND_CUDA || mo_solver_device_check(&d->solver, err, n);
}

/* makes w's device match backend b: opened for cuda and auto when w holds none (a failure is an error
 * for cuda, the CPU for auto), closed for cpu. MO_OK, or the error with its sentence in w->err */
static mo_status backend_switch(mo_world *w, mo_backend b)
{
    if (b == MO_BACKEND_CPU) {
        mo_device_close(w->device);
        w->device = NULL;
        return MO_OK;
    }
    if (w->device) return MO_OK;
    char msg[MO_ERR_LEN];
    mo_status st = mo_device_open(&w->device, msg, sizeof msg);
    if (st == MO_OK || b == MO_BACKEND_AUTO) return MO_OK;
    mo_set_error(w, "backend 'cuda': %s", msg);
    return st;
}

mo_status mo_world_set_backend(mo_world *w, mo_backend b)
{
    MO_NEED_W(w);
    mo_world_def d = w->def;
    d.backend = b;
    if (!check_world_def(&d, w->err->text, sizeof w->err->text)) return MO_ERR_INVALID_ARGUMENT;
    mo_status st = backend_switch(w, b);
    if (st == MO_OK) w->def.backend = b;
    return st;
}

mo_backend mo_world_backend(const mo_world *w) { return w ? w->def.backend : MO_BACKEND_CPU; }

const char *mo_world_device_name(const mo_world *w) { return w && w->device ? w->device->name : ""; }

mo_status mo_world_create(const mo_world_def *def, mo_world **out, char *err, size_t err_size)
{
    char tmp[MO_ERR_LEN];
    if (out) *out = NULL;
    if (!def || !out) {
        if (err && err_size) snprintf(err, err_size, "mo_world_create: def and out must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!check_world_def(def, tmp, sizeof tmp)) {
        if (err && err_size) snprintf(err, err_size, "%s", tmp);
        return MO_ERR_INVALID_ARGUMENT;
    }
    mo_world *w = (mo_world *)calloc(1, sizeof *w);
    if (!w) {
        if (err && err_size) snprintf(err, err_size, "mo_world_create: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    w->def = *def;
    w->tag = next_tag();
    w->err = calloc(1, sizeof *w->err);
    w->bp = mo_cl_bp_create();
    if (!w->bp || !w->err) {
        if (w->bp) mo_cl_bp_destroy(w->bp);
        free(w->err);
        free(w);
        if (err && err_size) snprintf(err, err_size, "mo_world_create: out of memory");
        return MO_ERR_OUT_OF_MEMORY;
    }
    if (def->backend != MO_BACKEND_CPU) {
        mo_status st = backend_switch(w, def->backend);
        if (st != MO_OK) {
            if (err && err_size) snprintf(err, err_size, "%s", w->err->text);
            mo_world_destroy(w);
            return st;
        }
    }
    if (err && err_size) err[0] = '\0';
    *out = w;
    return MO_OK;
}

void mo_world_destroy(mo_world *w)
{
    if (!w) return;
    for (int i = 0; i < w->shape_count; i++) {
        if (w->shapes[i].hull) { mo_cl_hull_free(w->shapes[i].hull); free(w->shapes[i].hull); }
        if (w->shapes[i].mesh) { mo_cl_mesh_free(w->shapes[i].mesh); free(w->shapes[i].mesh); }
    }
    free(w->shapes);
    free(w->shape_free);
    free(w->bodies);
    free(w->body_free);
    free(w->particles);
    free(w->particle_free);
    free(w->joints);
    free(w->joint_free);
#define FREE_BUF(name) mo_buf_free(&w->name);
    MO_WORLD_BUFS(FREE_BUF)
#undef FREE_BUF
    for (int i = 0; i < MO_HALVINGS_MAX; i++) mo_buf_free(&w->halve[i]);
    mo_buf_free(&w->guard);
    mo_buf_free(&w->guard_contacts);
    mo_cl_pairs_free(&w->pairs);
    if (w->bp) mo_cl_bp_destroy(w->bp);
    mo_cholmod_cache_free(w->cholmod_cache);
    mo_device_close(w->device);
    mo_owned_free(&w->proj);
    mo_owned_free(&w->newton);
    mo_fem_world_free(w);
    mo_artic_world_free(w);
    free(w->err);
    free(w);
}

const char *mo_world_last_error(const mo_world *w) { return w ? w->err->text : "mo_world_last_error: world is NULL"; }

mo_status mo_world_set_gravity(mo_world *w, mo_vec3 g)
{
    MO_NEED_W(w);
    if (!mo_within3(g, MO_GRAVITY_MAX)) {
        mo_set_error(w, "world gravity must be finite with components in [-%g, %g] m/s^2, got (%g, %g, %g)",
                     MO_GRAVITY_MAX, MO_GRAVITY_MAX, g.x, g.y, g.z);
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (g.x != w->def.gravity.x || g.y != w->def.gravity.y || g.z != w->def.gravity.z) mo_sleep_wake_all(w);
    w->def.gravity = g;
    return MO_OK;
}

mo_vec3 mo_world_gravity(const mo_world *w) { return w ? w->def.gravity : (mo_vec3){0.0, 0.0, 0.0}; }

mo_status mo_world_set_time_step(mo_world *w, double h)
{
    MO_NEED_W(w);
    if (!(h >= MO_TIME_STEP_MIN && h <= MO_TIME_STEP_MAX)) {
        mo_set_error(w, "world time_step must be in [%g, %g] s, got %g", MO_TIME_STEP_MIN, MO_TIME_STEP_MAX, h);
        return MO_ERR_INVALID_ARGUMENT;
    }
    w->def.time_step = h;
    return MO_OK;
}

double mo_world_time_step(const mo_world *w) { return w ? w->def.time_step : 0.0; }

/* the FEM rows exist only in the Newton step: another solver is refused while a mesh lives */
static bool fem_solver_ok(mo_world *w, mo_solver_kind k)
{
    if (mo_solver_has(k, MO_SOLVER_CAP_FEM) || mo_fem_live_meshes(w) == 0) return true;
    mo_set_error(w, "FEM meshes need the newton solver: solver '%s' would ignore the world's %d FEM mesh(es)",
                 mo_solver_name(k), mo_fem_live_meshes(w));
    return false;
}

mo_status mo_world_set_solver(mo_world *w, const mo_solver_settings *s)
{
    MO_NEED_W(w);
    if (!s) {
        mo_set_error(w, "mo_world_set_solver: settings must not be NULL");
        return MO_ERR_INVALID_ARGUMENT;
    }
    if (!mo_solver_check(s, w->err->text, sizeof w->err->text)) return MO_ERR_INVALID_ARGUMENT;
    if (w->def.backend == MO_BACKEND_CUDA && !mo_solver_device_check(s, w->err->text, sizeof w->err->text))
        return MO_ERR_INVALID_ARGUMENT;
    if (!fem_solver_ok(w, s->kind)) return MO_ERR_INVALID_ARGUMENT;
    w->def.solver = *s;
    return MO_OK;
}

mo_status mo_world_apply_def(mo_world *w, const mo_world_def *d)
{
    if (!check_world_def(d, w->err->text, sizeof w->err->text)) return MO_ERR_INVALID_ARGUMENT;
    if (!fem_solver_ok(w, d->solver.kind)) return MO_ERR_INVALID_ARGUMENT;
    if (d->backend != w->def.backend || (d->backend != MO_BACKEND_CPU && !w->device)) {
        mo_status st = backend_switch(w, d->backend);
        if (st != MO_OK) return st;
    }
    /* every island wakes when gravity changes or sleeping is turned off */
    const mo_vec3 g = w->def.gravity;
    if (!d->sleep || d->gravity.x != g.x || d->gravity.y != g.y || d->gravity.z != g.z) mo_sleep_wake_all(w);
    w->def = *d;
    return MO_OK;
}

mo_solver_settings mo_world_solver(const mo_world *w) { return w ? w->def.solver : mo_default_solver_settings(); }

int mo_world_max_threads(void)
{
#ifdef _OPENMP
    int cores = omp_get_num_procs();
#else
    int cores = 1;
#endif
    int cap = MO_THREADS_PER_CORE * (cores > 0 ? cores : 1);
    return cap < 4 ? 4 : cap;
}

mo_status mo_world_set_threads(mo_world *w, int threads)
{
    MO_NEED_W(w);
    if (threads < 0 || threads > mo_world_max_threads()) {
        mo_set_error(w, "world threads must be in [0, %d] (%d per core of this machine), got %d",
                     mo_world_max_threads(), MO_THREADS_PER_CORE, threads);
        return MO_ERR_INVALID_ARGUMENT;
    }
    w->def.threads = threads;
    return MO_OK;
}

mo_status mo_world_set_substeps(mo_world *w, int substeps)
{
    MO_NEED_W(w);
    if (substeps < 1 || substeps > 1000) {
        mo_set_error(w, "world substeps must be in [1, 1000], got %d", substeps);
        return MO_ERR_INVALID_ARGUMENT;
    }
    w->def.substeps = substeps;
    return MO_OK;
}

int mo_world_substeps(const mo_world *w) { return w ? w->def.substeps : 0; }

double mo_world_time(const mo_world *w) { return w ? w->time : 0.0; }

mo_step_stats mo_world_last_stats(const mo_world *w)
{
    if (w) return w->stats;
    mo_step_stats zero;
    memset(&zero, 0, sizeof zero);
    return zero;
}

/* FNV-1a over the raw bits of every live body's and particle's state */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t mo_world_state_hash(const mo_world *w)
{
    if (!w) return 0;
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < w->body_count; i++) {
        const mo_body *b = &w->bodies[i];
        if (!b->alive) continue;
        h = fnv(h, b->k.x, sizeof b->k.x);
        h = fnv(h, b->k.q, sizeof b->k.q);
        h = fnv(h, b->k.v, sizeof b->k.v);
        h = fnv(h, b->k.w, sizeof b->k.w);
    }
    for (int i = 0; i < w->particle_count; i++) {
        const mo_particle *p = &w->particles[i];
        if (!p->alive) continue;
        h = fnv(h, p->x, sizeof p->x);
        h = fnv(h, p->v, sizeof p->v);
    }
    return mo_artic_hash(w, h, fnv);
}
