/* ops_kernels.cuh: the kernels of the solver operations (solver_ops.cu, the
 * only includer): element-wise kernels with ops.h's arithmetic, the block
 * kernels over the shared bodies of engine/kernels/cone.h, the sparse
 * products, and the one-launch sums. Each states its order of operations,
 * which depends on the sizes only, never on the device or the run, so every
 * result is the same from run to run.
 *
 * Sparse products (k_csr_rows, with MOREAU_CUDA_OWN_KERNELS; else cuSPARSE): a group of L lanes per row (L a power of two
 * from 1 to 32, chosen by the caller from the average entries per row, so a
 * function of the pattern only); lane l adds entries k0 + l, k0 + l + L, ...
 * in order, then the group adds its lanes in a fixed shuffle tree. The
 * epilogue writes y = s, y = sigma x + s or y = add + s (the products of
 * apply and velocity, fused with their vector update).
 *
 * Sums: two passes (k_sum_partials, k_sum_final, then a copy to the host),
 * or with MOREAU_CUDA_OWN_KERNELS one launch (k_sum), in the same order. Block b of G = min(ceil(n / 256), 512) blocks of
 * 256 threads adds its terms as the two-pass sums did (thread t: terms
 * i = b 256 + t, + 256 G, ... in order, then a fixed shared-memory tree) and
 * writes its partials; the last block to finish (an atomic ticket, reset by
 * that block) adds the G partials of each sum in a fixed order (thread t:
 * partials t, t + 256, ..., then the tree) and writes the results to the
 * host's mapped pinned buffer. The order of every addition is fixed by n
 * alone. */
#ifndef MO_GPU_OPS_KERNELS_CUH
#define MO_GPU_OPS_KERNELS_CUH

#define GRID_STRIDE(i, n)                                                             \
    for (long i = (long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x; i < (n); \
         i += (long)gridDim.x * (long)blockDim.x)

/* ---- element-wise kernels (ops.h's arithmetic per element, as written there) ---- */

__global__ void k_seed(long m, double *x)
{
    GRID_STRIDE(i, m) x[i] = 1.0 + 0.01 * (double)(i % 7);
}

__global__ void k_copy(long m, double *y, const double *x)
{
    GRID_STRIDE(i, m) y[i] = x[i];
}

__global__ void k_zero(long m, double *x)
{
    GRID_STRIDE(i, m) x[i] = 0.0;
}

__global__ void k_mask_pos(long m, double *x, const double *d)
{
    GRID_STRIDE(i, m) if (!(d[i] > 0.0)) x[i] = 0.0;
}

__global__ void k_scale(long m, double *y, double a, const double *x)
{
    GRID_STRIDE(i, m) y[i] = a * x[i];
}

__global__ void k_divide(long m, double *y, const double *x, double a)
{
    GRID_STRIDE(i, m) y[i] = x[i] / a;
}

__global__ void k_axpy(long m, double *y, double a, const double *x)
{
    GRID_STRIDE(i, m) y[i] += a * x[i];
}

__global__ void k_waxpy(long m, double *w, const double *x, double a, const double *y)
{
    GRID_STRIDE(i, m) w[i] = x[i] + a * y[i];
}

__global__ void k_sub(long m, double *w, const double *x, const double *y)
{
    GRID_STRIDE(i, m) w[i] = x[i] - y[i];
}

__global__ void k_extrap(long m, double *w, const double *x, double b, const double *z)
{
    GRID_STRIDE(i, m) w[i] = x[i] + b * (x[i] - z[i]);
}

__global__ void k_pstep(long m, double *w, const double *x, double a, const double *g, const double *d)
{
    GRID_STRIDE(i, m) w[i] = x[i] - a * g[i] / d[i];
}

__global__ void k_ediv(long m, double *y, const double *x, const double *d)
{
    GRID_STRIDE(i, m) y[i] = x[i] / d[i];
}

/* y = Sigma x + J t (jt = J t from SpMV, or NULL when J has no entries: y = Sigma x as the CPU's empty rows) */
__global__ void k_sigma_add(long m, double *y, const double *sigma, const double *x, const double *jt)
{
    if (jt) {
        GRID_STRIDE(i, m) y[i] = sigma[i] * x[i] + jt[i];
    } else {
        GRID_STRIDE(i, m) y[i] = sigma[i] * x[i];
    }
}

/* v = v~ + t in place (t = W^T gamma) */
__global__ void k_add_to(long n, double *t, const double *v_tilde)
{
    GRID_STRIDE(i, n) t[i] = v_tilde[i] + t[i];
}

/* ---- block kernels: one thread per block (solver/backend_cpu.c, solver/problem.c) ---- */

__global__ void k_project(long nblocks, const int *block_row, const unsigned char *block_kind, const double *block_mu,
                          const double *lo, const double *hi, double *x)
{
    GRID_STRIDE(k, nblocks) {
        int r0 = block_row[k];
        mo_k_project_block(x + r0, (int)block_kind[k], block_mu[k], lo[r0], hi[r0]);
    }
}

/* mo_problem_block_solve with the host's scale; the block's input is read first, so y may be x */
__global__ void k_block_solve(long nblocks, const int *block_row, const int *block_inv, const double *inv,
                              const double *block_scale, const double *x, double *y)
{
    GRID_STRIDE(k, nblocks) {
        int r0 = block_row[k], nr = block_row[k + 1] - r0;
        double in[MO_GPU_MAX_BLOCK];
        for (int i = 0; i < nr; i++) in[i] = x[r0 + i];
        if (block_inv && block_inv[k] >= 0) {
            const double *a = inv + block_inv[k];
            for (int i = 0; i < nr; i++) {
                double s = 0.0;
                for (int j = 0; j < nr; j++) s += a[i * nr + j] * in[j];
                y[r0 + i] = s;
            }
        } else {
            double d = block_scale[k];
            for (int i = 0; i < nr; i++) y[r0 + i] = d > 0.0 ? in[i] / d : 0.0;
        }
    }
}

/* mo_bil_precond (solver/bilateral.c) with d = diag(N); the block's input is read as it goes (y != x) */
__global__ void k_bil_precond(long nblocks, const int *block_row, const unsigned char *block_kind, const int *block_inv,
                              const double *inv, const double *d, const double *x, double *y)
{
    GRID_STRIDE(k, nblocks) {
        int r0 = block_row[k], nr = block_row[k + 1] - r0;
        if ((int)block_kind[k] != MO_BLOCK_BILATERAL) {
            for (int i = 0; i < nr; i++) y[r0 + i] = 0.0;
            continue;
        }
        bool all = true;
        for (int i = 0; i < nr; i++) all = all && d[r0 + i] > 0.0;
        if (all && nr > 1 && block_inv && block_inv[k] >= 0) {
            const double *a = inv + block_inv[k];
            for (int i = 0; i < nr; i++) {
                double s = 0.0;
                for (int j = 0; j < nr; j++) s += a[i * nr + j] * x[r0 + j];
                y[r0 + i] = s;
            }
            continue;
        }
        for (int i = 0; i < nr; i++) y[r0 + i] = d[r0 + i] > 0.0 ? x[r0 + i] / d[r0 + i] : 0.0;
    }
}

__global__ void k_block_mean_diag(long nblocks, const int *block_row, const double *block_mean, double *y)
{
    GRID_STRIDE(k, nblocks) {
        int r0 = block_row[k], nr = block_row[k + 1] - r0;
        for (int i = 0; i < nr; i++) y[r0 + i] = block_mean[k];
    }
}

/* ---- the sums ------------------------------------------------------------------ */

/* the terms: term(i, s) adds element (or block) i's terms to s[0 .. NS-1] */
struct term_dot3 {
    const double *x1, *y1, *x2, *y2, *x3, *y3; /* a pair with a NULL gives 0 */
    __device__ void operator()(long i, double *s) const
    {
        if (x1) s[0] += x1[i] * y1[i];
        if (x2) s[1] += x2[i] * y2[i];
        if (x3) s[2] += x3[i] * y3[i];
    }
};

/* APGD's step test and, when x1 is set, its restart test's sum g (x - x1) */
struct term_step_dots {
    const double *x, *y, *nx, *g, *r, *x1;
    __device__ void operator()(long i, double *s) const
    {
        double d = x[i] - y[i];
        double e = nx[i] - (g[i] - r[i]);
        s[0] += d * d;
        s[1] += d * e;
        s[2] += e * e;
        if (x1) s[3] += g[i] * (x[i] - x1[i]);
    }
};

/* up to MO_CUDA_MAX_SUMS fused sums, each one of the MO_CUDA_SUM_* terms (cuda_module.h) */
struct term_sums {
    int k;
    int kind[MO_CUDA_MAX_SUMS];
    const double *a[MO_CUDA_MAX_SUMS], *b[MO_CUDA_MAX_SUMS], *c[MO_CUDA_MAX_SUMS];
    __device__ void operator()(long i, double *s) const
    {
        for (int t = 0; t < k; t++) {
            switch (kind[t]) {
            case MO_CUDA_SUM_DOT: s[t] += a[t][i] * b[t][i]; break;
            case MO_CUDA_SUM_WDOT: s[t] += a[t][i] * b[t][i] * c[t][i]; break;
            case MO_CUDA_SUM_IDOT: s[t] += a[t][i] * b[t][i] / c[t][i]; break;
            default: s[t] += a[t][i] * (b[t][i] - c[t][i]); break; /* MO_CUDA_SUM_DIFF */
            }
        }
    }
};

struct term_dot_diff {
    const double *a, *x, *y;
    __device__ void operator()(long i, double *s) const { s[0] += a[i] * (x[i] - y[i]); }
};

struct term_wdot {
    const double *x, *d, *y;
    __device__ void operator()(long i, double *s) const { s[0] += x[i] * d[i] * y[i]; }
};

struct term_idot {
    const double *x, *y, *d;
    __device__ void operator()(long i, double *s) const { s[0] += x[i] * y[i] / d[i]; }
};

/* block k's terms of mo_problem_residuals (solver/problem.c): s[0] sum |gamma - P_K(gamma - alpha u)|^2,
 * contact blocks: s[1] Coulomb error^2 at (gamma, u - shift), s[2] |gamma_c|^2, s[3] |u_c - shift_c|^2 */
struct term_residual {
    const int *block_row;
    const unsigned char *block_kind;
    const double *block_mu, *lo, *hi, *shift, *gamma, *u;
    double alpha;
    __device__ void operator()(long k, double *s) const
    {
        int r0 = block_row[k], nr = block_row[k + 1] - r0;
        int kind = (int)block_kind[k];
        double x[MO_GPU_MAX_BLOCK];
        for (int i = 0; i < nr; i++) x[i] = gamma[r0 + i] - alpha * u[r0 + i];
        mo_k_project_block(x, kind, block_mu[k], lo[r0], hi[r0]);
        for (int i = 0; i < nr; i++) {
            double e = gamma[r0 + i] - x[i];
            s[0] += e * e;
        }
        if (kind == MO_BLOCK_CONTACT) {
            double ut[3] = {u[r0], u[r0 + 1], u[r0 + 2]};
            if (shift) ut[0] -= shift[r0];
            s[1] += mo_k_coulomb_error_sq(gamma + r0, ut, block_mu[k]);
            for (int i = 0; i < 3; i++) {
                s[2] += gamma[r0 + i] * gamma[r0 + i];
                s[3] += ut[i] * ut[i];
            }
        }
    }
};

/* sh[c][0] = sh[c][0] + ... + sh[c][RED_THREADS-1] in a fixed tree (all RED_THREADS threads call it) */
template <int NS>
__device__ void block_tree_sum(double (*sh)[RED_THREADS])
{
    int t = (int)threadIdx.x;
    __syncthreads();
    for (int h = RED_THREADS / 2; h > 0; h /= 2) {
        if (t < h)
            for (int c = 0; c < NS; c++) sh[c][t] += sh[c][t + h];
        __syncthreads();
    }
}

/* the two-pass sums (the default until the one-launch form has run on a GPU): pass one as k_sum's first
 * part, launched with RED_THREADS threads and at most RED_MAX_BLOCKS blocks */
template <int NS, class Term>
__global__ void k_sum_partials(long n, Term term, double *partials)
{
    __shared__ double sh[NS][RED_THREADS];
    double s[NS];
    for (int c = 0; c < NS; c++) s[c] = 0.0;
    GRID_STRIDE(i, n) term(i, s);
    for (int c = 0; c < NS; c++) sh[c][threadIdx.x] = s[c];
    block_tree_sum<NS>(sh);
    if (threadIdx.x == 0)
        for (int c = 0; c < NS; c++) partials[c * RED_MAX_BLOCKS + (int)blockIdx.x] = sh[c][0];
}

/* pass two: one block of RED_THREADS threads over nparts partials of each sum, in k_sum's final order */
template <int NS>
__global__ void k_sum_final(int nparts, const double *partials, double *out)
{
    __shared__ double sh[NS][RED_THREADS];
    int t = (int)threadIdx.x;
    for (int c = 0; c < NS; c++) {
        double s = 0.0;
        for (int b = t; b < nparts; b += RED_THREADS) s += partials[c * RED_MAX_BLOCKS + b];
        sh[c][t] = s;
    }
    block_tree_sum<NS>(sh);
    if (t == 0)
        for (int c = 0; c < NS; c++) out[c] = sh[c][0];
}

/* the sums of term over 0 .. n-1 into out[0 .. NS-1] (host-mapped), in one launch of at most RED_MAX_BLOCKS
 * blocks of RED_THREADS threads; partials (NS x RED_MAX_BLOCKS) and ticket (0 between launches) are the
 * context's */
template <int NS, class Term>
__global__ void k_sum(long n, Term term, double *partials, unsigned *ticket, double *out)
{
    __shared__ double sh[NS][RED_THREADS];
    __shared__ bool last;
    int t = (int)threadIdx.x;
    double s[NS];
    for (int c = 0; c < NS; c++) s[c] = 0.0;
    GRID_STRIDE(i, n) term(i, s);
    for (int c = 0; c < NS; c++) sh[c][t] = s[c];
    block_tree_sum<NS>(sh);
    if (t == 0) {
        for (int c = 0; c < NS; c++) partials[c * RED_MAX_BLOCKS + (int)blockIdx.x] = sh[c][0];
        __threadfence(); /* the partials reach memory before the ticket is taken */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const int nparts = (int)gridDim.x;
    for (int c = 0; c < NS; c++) {
        double v = 0.0;
        for (int b = t; b < nparts; b += RED_THREADS) v += __ldcg(partials + c * RED_MAX_BLOCKS + b);
        sh[c][t] = v;
    }
    block_tree_sum<NS>(sh);
    if (t == 0) {
        for (int c = 0; c < NS; c++) out[c] = sh[c][0];
        *ticket = 0u;
    }
}

/* ---- sparse products --------------------------------------------------------------- */

enum { CSR_PLAIN = 0, CSR_SIGMA = 1, CSR_ADD = 2 };

/* rows x cols CSR times x, L lanes per row; epilogue: CSR_PLAIN y = s, CSR_SIGMA y = sigma xs + s (xs may be
 * y: each row reads only its own), CSR_ADD y = add + s. y must not be x. */
template <int L>
__global__ void k_csr_rows(long rows, const int *ptr, const int *col, const double *val, const double *x, double *y,
                           int epilogue, const double *sigma, const double *xs, const double *add)
{
    const long groups = ((long)gridDim.x * (long)blockDim.x) / L;
    const int lane = (int)(threadIdx.x & (L - 1));
    const unsigned mask = L == 32 ? 0xffffffffu : (((1u << (L & 31)) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(L - 1)));
    for (long row = ((long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x) / L; row < rows; row += groups) {
        const int k1 = ptr[row + 1];
        double s = 0.0;
        for (int k = ptr[row] + lane; k < k1; k += L) s += val[k] * x[col[k]];
        for (int off = L / 2; off > 0; off /= 2) s += __shfl_down_sync(mask, s, off, L);
        if (lane == 0) {
            if (epilogue == CSR_SIGMA) y[row] = sigma[row] * xs[row] + s;
            else if (epilogue == CSR_ADD) y[row] = add[row] + s;
            else y[row] = s;
        }
    }
}

#endif
