// Row-wise softmax of a rows x cols matrix (row-major), as three kernels with
// one block per row, and fused into one. Each kernel also has a PDL variant
// (suffix _pdl) that waits for its predecessor before touching memory.
#include "graphbench_pdl.cuh"

#define BLOCK 256
#define NEG_INF __int_as_float(0xff800000)  // NVRTC has no INFINITY

// The block's reduction of one value per thread (max or sum), in shared memory.
__device__ float block_reduce(float v, bool take_max) {
    __shared__ float part[BLOCK];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int step = BLOCK / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) {
            float other = part[threadIdx.x + step];
            part[threadIdx.x] = take_max ? fmaxf(part[threadIdx.x], other)
                                         : part[threadIdx.x] + other;
        }
        __syncthreads();
    }
    float result = part[0];
    __syncthreads();
    return result;
}

__device__ void row_max_body(const float* x, float* row_max, int cols) {
    const float* row = x + (size_t)blockIdx.x * cols;
    float m = NEG_INF;
    for (int j = threadIdx.x; j < cols; j += BLOCK) m = fmaxf(m, row[j]);
    m = block_reduce(m, true);
    if (threadIdx.x == 0) row_max[blockIdx.x] = m;
}

__device__ void exp_sum_body(const float* x, const float* row_max, float* e, float* row_sum,
                             int cols) {
    size_t base = (size_t)blockIdx.x * cols;
    float m = row_max[blockIdx.x], s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += BLOCK) {
        float v = expf(x[base + j] - m);
        e[base + j] = v;
        s += v;
    }
    s = block_reduce(s, false);
    if (threadIdx.x == 0) row_sum[blockIdx.x] = s;
}

__device__ void normalise_body(const float* e, const float* row_sum, float* y, int cols) {
    size_t base = (size_t)blockIdx.x * cols;
    float inv = 1.0f / row_sum[blockIdx.x];
    for (int j = threadIdx.x; j < cols; j += BLOCK) y[base + j] = e[base + j] * inv;
}

extern "C" __global__ void row_max(const float* x, float* m, int cols) {
    row_max_body(x, m, cols);
}
extern "C" __global__ void exp_sum(const float* x, const float* m, float* e, float* s, int cols) {
    exp_sum_body(x, m, e, s, cols);
}
extern "C" __global__ void normalise(const float* e, const float* s, float* y, int cols) {
    normalise_body(e, s, y, cols);
}

extern "C" __global__ void row_max_pdl(const float* x, float* m, int cols) {
    GRID_DEPENDENCY_WAIT();
    row_max_body(x, m, cols);
    TRIGGER_DEPENDENTS();
}
extern "C" __global__ void exp_sum_pdl(const float* x, const float* m, float* e, float* s,
                                       int cols) {
    GRID_DEPENDENCY_WAIT();
    exp_sum_body(x, m, e, s, cols);
    TRIGGER_DEPENDENTS();
}
extern "C" __global__ void normalise_pdl(const float* e, const float* s, float* y, int cols) {
    GRID_DEPENDENCY_WAIT();
    normalise_body(e, s, y, cols);
    TRIGGER_DEPENDENTS();
}

// All three in one pass per row: the max, then the sum of exponentials, then
// the division, reading the row three times but launching once.
extern "C" __global__ void softmax_fused(const float* x, float* y, int cols) {
    const float* row = x + (size_t)blockIdx.x * cols;
    float m = NEG_INF, s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += BLOCK) m = fmaxf(m, row[j]);
    m = block_reduce(m, true);
    for (int j = threadIdx.x; j < cols; j += BLOCK) s += expf(row[j] - m);
    float inv = 1.0f / block_reduce(s, false);
    for (int j = threadIdx.x; j < cols; j += BLOCK)
        y[(size_t)blockIdx.x * cols + j] = expf(row[j] - m) * inv;
}
