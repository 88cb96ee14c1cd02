// One Jacobi relaxation step of the 2-D Laplace equation on a width x height
// grid (row-major): every interior point becomes the mean of its four
// neighbours, boundary points are copied. A grid-stride loop over all points,
// so one launch shape serves every size. jacobi_step_pdl waits for the
// previous step before reading its output.
#include "graphbench_pdl.cuh"

__device__ void step_body(const float* __restrict__ in, float* __restrict__ out, int width,
                          int height) {
    size_t total = (size_t)width * height;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x) {
        int i = (int)(k / width), j = (int)(k % width);
        if (i == 0 || j == 0 || i == height - 1 || j == width - 1) {
            out[k] = in[k];
        } else {
            // (a + b) + (c + d) in this order, as the CuPy reference adds them
            out[k] = 0.25f * ((in[k - width] + in[k + width]) + (in[k - 1] + in[k + 1]));
        }
    }
}

extern "C" __global__ void jacobi_step(const float* in, float* out, int width, int height) {
    step_body(in, out, width, height);
}

extern "C" __global__ void jacobi_step_pdl(const float* in, float* out, int width, int height) {
    GRID_DEPENDENCY_WAIT();
    step_body(in, out, width, height);
    TRIGGER_DEPENDENTS();
}
