// A build of kernels/pipeline.cu whose vec_add does EXTRA_WORK dependent
// transcendental steps per element, multiplied by zero (the output is
// unchanged and verifies): about 2% more GPU time at 4096 elements, where
// the kernels are latency-bound (32 steps gave +14%).
#define EXTRA_WORK 5

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

