// graphbench pipeline kernels.
//
// Each stage is a grid-stride loop over size_t N so one launch shape serves
// every vector length; the host caps the grid and lets threads stride.
// extern "C" keeps the names unmangled so they can be looked up by name.

extern "C" __global__ void vec_add(const float* __restrict__ x,
                                   const float* __restrict__ y,
                                   float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = x[i] + y[i];
    }
}

extern "C" __global__ void vec_mul(const float* __restrict__ x,
                                   const float* __restrict__ y,
                                   float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = x[i] * y[i];
    }
}

extern "C" __global__ void vec_sub(const float* __restrict__ x,
                                   const float* __restrict__ y,
                                   float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = x[i] - y[i];
    }
}

// The whole add/mul/sub pipeline in one pass: the floor a user reaches by
// fusing. __fmul_rn/__fsub_rn forbid FMA contraction so the result rounds
// exactly like the three separate kernels.
extern "C" __global__ void fused(const float* __restrict__ a,
                                 const float* __restrict__ b,
                                 const float* __restrict__ c,
                                 float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        float ai = a[i];
        out[i] = __fsub_rn(__fmul_rn(ai + b[i], c[i]), ai);
    }
}

// Programmatic dependent launch (PDL) variants of the stages, for the pdl and
// graph-pdl rungs (compute capability 9.0+). Launched with programmatic
// stream serialization, a stage may start while its predecessor is still
// running: it waits at griddepcontrol.wait until the predecessor has
// finished and its writes are visible, so nothing is read early. Waiting
// before any memory access also orders this stage's writes after the reads
// of every earlier kernel. The predecessor lets its dependant launch once its
// own loop is done (launch_dependents), so the dependant's launch overlaps
// the predecessor's tail.
#include "graphbench_pdl.cuh"  // GRID_DEPENDENCY_WAIT, TRIGGER_DEPENDENTS

#define PDL_STAGE(name, op)                                                    \
    extern "C" __global__ void name(const float* __restrict__ x,               \
                                    const float* __restrict__ y,               \
                                    float* __restrict__ out, size_t N) {       \
        GRID_DEPENDENCY_WAIT();                                                \
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;  \
             i += (size_t)gridDim.x * blockDim.x) {                            \
            out[i] = x[i] op y[i];                                             \
        }                                                                      \
        TRIGGER_DEPENDENTS();                                                  \
    }

PDL_STAGE(vec_add_pdl, +)
PDL_STAGE(vec_mul_pdl, *)
PDL_STAGE(vec_sub_pdl, -)
