/* kernel.h: the marker for per-element kernel bodies shared by the CPU and
 * CUDA backends. Headers in engine/kernels/ are written in the common subset
 * of C11 and CUDA C++ (TOOLCHAIN.md): static inline functions marked MO_KERNEL,
 * plain structs, explicit casts, no VLAs, no allocation or I/O. */
#ifndef MO_KERNEL_H
#define MO_KERNEL_H

#ifdef __CUDACC__
#  define MO_KERNEL static inline __host__ __device__
#  define MO_RESTRICT __restrict__
#else
#  define MO_KERNEL static inline
#  define MO_RESTRICT restrict
#endif

#ifdef __cplusplus
#  define MO_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#  define MO_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

#define MO_PI 3.14159265358979323846

#endif
