// Centre a vector on its mean: a two-pass reduction (block partial sums in
// double, then one block adds the partials and writes the mean), followed by
// a kernel that reads the mean from device memory and subtracts it. The
// data dependence runs through device memory, not through the host.
#include "graphbench_pdl.cuh"

#define BLOCK 256

__device__ double block_sum(double v) {
    __shared__ double part[BLOCK];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int step = BLOCK / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
        __syncthreads();
    }
    return part[0];
}

__device__ void partial_body(const float* x, double* partial, size_t n) {
    double s = 0.0;
    for (size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * BLOCK)
        s += x[i];
    s = block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__device__ void mean_body(const double* partial, int parts, float* mean, size_t n) {
    double s = 0.0;
    for (int i = threadIdx.x; i < parts; i += BLOCK) s += partial[i];
    s = block_sum(s);
    if (threadIdx.x == 0) mean[0] = (float)(s / (double)n);
}

__device__ void centre_body(const float* x, const float* mean, float* y, size_t n) {
    float m = mean[0];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] - m;
}

extern "C" __global__ void partial_sums(const float* x, double* partial, size_t n) {
    partial_body(x, partial, n);
}
extern "C" __global__ void mean_of(const double* partial, int parts, float* mean, size_t n) {
    mean_body(partial, parts, mean, n);
}
extern "C" __global__ void centre(const float* x, const float* mean, float* y, size_t n) {
    centre_body(x, mean, y, n);
}

extern "C" __global__ void partial_sums_pdl(const float* x, double* partial, size_t n) {
    GRID_DEPENDENCY_WAIT();
    partial_body(x, partial, n);
    TRIGGER_DEPENDENTS();
}
extern "C" __global__ void mean_of_pdl(const double* partial, int parts, float* mean, size_t n) {
    GRID_DEPENDENCY_WAIT();
    mean_body(partial, parts, mean, n);
    TRIGGER_DEPENDENTS();
}
extern "C" __global__ void centre_pdl(const float* x, const float* mean, float* y, size_t n) {
    GRID_DEPENDENCY_WAIT();
    centre_body(x, mean, y, n);
    TRIGGER_DEPENDENTS();
}
