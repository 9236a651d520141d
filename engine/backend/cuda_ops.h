/* cuda_ops.h: the backend operations over a device context (cuda_ops.c). Not installed. */
#ifndef MO_BACKEND_CUDA_OPS_H
#define MO_BACKEND_CUDA_OPS_H

#include "solver/ops.h"

struct mo_device;
/* whether the device backend can hold p; false with a sentence in why */
bool mo_device_supports(const mo_problem *p, char *why, size_t why_size);
/* the ops of p on device d for a solve into out with nvec work vectors: the problem and the warm start
 * uploaded; 0, or -1 with the sentence in d->err */
int mo_ops_device(mo_ops *ops, struct mo_device *d, const mo_problem *p, mo_solve_out *out, int nvec);

#endif
