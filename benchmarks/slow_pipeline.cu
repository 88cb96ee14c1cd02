// A deliberately slower build of kernels/pipeline.cu, for showing that the
// regression gate catches a real regression:
//   graphbench run --kernel-source benchmarks/slow_pipeline.cu --baseline ...
// vec_add does EXTRA_WORK dependent transcendental steps per element whose
// result is multiplied by zero: the output is unchanged (and verifies), the
// kernel is slower. Without fast-math the compiler cannot drop x * 0.0f.
#ifndef EXTRA_WORK
#define EXTRA_WORK 32
#endif
//
// Each stage is a grid-stride loop over size_t N so one launch shape serves
// every vector length; the host caps the grid and lets threads stride.
// extern "C" keeps the names unmangled so they can be looked up by name.

extern "C" __global__ void vec_add(const float* __restrict__ x,
                                   const float* __restrict__ y,
                                   float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        float extra = x[i];
        for (int k = 0; k < EXTRA_WORK; ++k) {
            extra = __sinf(extra + 1.0f);
        }
        out[i] = x[i] + y[i] + extra * 0.0f;
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
