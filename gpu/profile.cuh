/* profile.cuh: where the device's time goes, per operation, when the
 * environment variable MOREAU_CUDA_PROFILE is set (docs/gpu.md): each
 * operation of a context is bracketed by two CUDA events on the context's
 * stream (its time on the GPU) and by the host clock (its time on the host,
 * the launch and, for the operations that synchronise, the wait). At the
 * context's end one table goes to stderr: per operation the calls, the GPU
 * and host milliseconds and microseconds per call. Without the variable
 * nothing is allocated and each bracket is one NULL test.
 *
 * The events are kept in a pool of PROF_POOL pairs; when it fills, the
 * pool is drained (one cudaEventSynchronize on the last event, which
 * perturbs the host times of that one call). Brackets never nest. */
#ifndef MO_GPU_PROFILE_CUH
#define MO_GPU_PROFILE_CUH

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROF_MAX_OPS 48
#define PROF_POOL 1024

typedef struct mo_gpu_prof {
    cudaStream_t stream;
    int n_ops;
    const char *name[PROF_MAX_OPS];
    long calls[PROF_MAX_OPS];
    double host_ms[PROF_MAX_OPS], gpu_ms[PROF_MAX_OPS];
    cudaEvent_t ev[PROF_POOL][2];
    int ev_op[PROF_POOL];
    int n_ev;
    long uploads, max_rows;
} mo_gpu_prof;

static inline double prof_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* a profile for stream s when MOREAU_CUDA_PROFILE is set, else NULL (also when anything fails) */
static inline mo_gpu_prof *prof_create(cudaStream_t s)
{
    const char *env = getenv("MOREAU_CUDA_PROFILE");
    if (!env || !env[0] || !strcmp(env, "0")) return NULL;
    mo_gpu_prof *p = (mo_gpu_prof *)calloc(1, sizeof *p);
    if (!p) return NULL;
    p->stream = s;
    for (int i = 0; i < PROF_POOL; i++)
        if (cudaEventCreate(&p->ev[i][0]) != cudaSuccess || cudaEventCreate(&p->ev[i][1]) != cudaSuccess) {
            cudaGetLastError();
            for (int j = 0; j <= i; j++) {
                if (p->ev[j][0]) cudaEventDestroy(p->ev[j][0]);
                if (p->ev[j][1]) cudaEventDestroy(p->ev[j][1]);
            }
            free(p);
            return NULL;
        }
    return p;
}

/* the pool's elapsed times into the totals */
static inline void prof_drain(mo_gpu_prof *p)
{
    if (!p || p->n_ev == 0) return;
    cudaEventSynchronize(p->ev[p->n_ev - 1][1]);
    for (int i = 0; i < p->n_ev; i++) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, p->ev[i][0], p->ev[i][1]) == cudaSuccess) p->gpu_ms[p->ev_op[i]] += ms;
    }
    cudaGetLastError();
    p->n_ev = 0;
}

static inline int prof_op(mo_gpu_prof *p, const char *name)
{
    for (int i = 0; i < p->n_ops; i++)
        if (p->name[i] == name || !strcmp(p->name[i], name)) return i;
    if (p->n_ops == PROF_MAX_OPS) return PROF_MAX_OPS - 1; /* the last row collects the rest */
    p->name[p->n_ops] = name;
    return p->n_ops++;
}

/* the table to stderr, then the profile freed */
static inline void prof_destroy(mo_gpu_prof *p)
{
    if (!p) return;
    prof_drain(p);
    double gpu = 0.0, host = 0.0;
    for (int i = 0; i < p->n_ops; i++) {
        gpu += p->gpu_ms[i];
        host += p->host_ms[i];
    }
    fprintf(stderr, "moreau-cuda profile: %ld uploads, at most %ld rows; GPU %.3f ms, host inside the module %.3f ms\n",
            p->uploads, p->max_rows, gpu, host);
    fprintf(stderr, "  %-28s %9s %11s %11s %10s %10s\n", "operation", "calls", "gpu ms", "host ms", "gpu us/call",
            "host us/call");
    int order[PROF_MAX_OPS];
    for (int i = 0; i < p->n_ops; i++) order[i] = i;
    for (int i = 1; i < p->n_ops; i++) /* by GPU time, largest first */
        for (int j = i; j > 0 && p->gpu_ms[order[j]] > p->gpu_ms[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int k = 0; k < p->n_ops; k++) {
        int i = order[k];
        double c = p->calls[i] > 0 ? (double)p->calls[i] : 1.0;
        fprintf(stderr, "  %-28s %9ld %11.3f %11.3f %10.2f %10.2f\n", p->name[i], p->calls[i], p->gpu_ms[i],
                p->host_ms[i], 1e3 * p->gpu_ms[i] / c, 1e3 * p->host_ms[i] / c);
    }
    for (int i = 0; i < PROF_POOL; i++) {
        cudaEventDestroy(p->ev[i][0]);
        cudaEventDestroy(p->ev[i][1]);
    }
    cudaGetLastError();
    free(p);
}

/* one bracket: the events and the host clock around the enclosing block */
struct prof_scope {
    mo_gpu_prof *p;
    int op, slot;
    double t0;
    prof_scope(mo_gpu_prof *prof, const char *name) : p(prof), op(0), slot(0), t0(0.0)
    {
        if (!p) return;
        op = prof_op(p, name);
        if (p->n_ev == PROF_POOL) prof_drain(p);
        slot = p->n_ev++;
        p->ev_op[slot] = op;
        cudaEventRecord(p->ev[slot][0], p->stream);
        t0 = prof_now_ms();
    }
    ~prof_scope()
    {
        if (!p) return;
        cudaEventRecord(p->ev[slot][1], p->stream);
        p->host_ms[op] += prof_now_ms() - t0;
        p->calls[op]++;
    }
};

#endif
