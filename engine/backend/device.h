/* device.h: a world's CUDA device context on the libmoreau side (cuda.c):
 * the loaded module's solver functions (cuda_module.h, ABI 2), its context
 * on one device (stream, handles, device buffers kept between solves), the
 * host staging buffers of an upload, and the last failure's sentence. A world
 * that selects the CUDA backend opens one (mo_world_set_backend) and closes
 * it with the world. Not installed. */
#ifndef MO_BACKEND_DEVICE_H
#define MO_BACKEND_DEVICE_H

#include <stddef.h>
#include "moreau/moreau.h"
#include "core/core.h"
#include "backend/cuda_module.h"

typedef struct mo_device {
    mo_cuda_fns fns;
    void *ctx;
    char name[128];            /* the device's name */
    char module_path[512];
    char err[384];             /* the last failure's sentence */
    /* host staging of an upload and of host() views: grown on demand, kept */
    mo_buf block_scale, block_mean, host_vec;
    mo_buf sys_val, sys_wval, zeros; /* a Newton system's scaled J, M~^-1 J^T; zeros for its bounds and v~ */
    long uploads;              /* problems uploaded so far (tests, statistics) */
    double res_alpha;          /* the uploaded problem's residual step 1 / max diag(N) (mo_problem_residuals) */
} mo_device;

/* Opens the CUDA backend: loads the module ($MOREAU_CUDA_MODULE, else the
 * install path), checks its ABI, finds a device and creates a context on
 * device 0. MO_OK, or MO_ERR_UNSUPPORTED / MO_ERR_OUT_OF_MEMORY with one
 * sentence (the module path, the driver's or the module's reason). */
MO_MUST_USE mo_status mo_device_open(mo_device **out, char *err, size_t err_size);
/* frees the context and the staging buffers; NULL allowed */
void mo_device_close(mo_device *d);

#endif
