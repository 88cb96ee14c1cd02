// A build of kernels/pipeline.cu that moves about 2% more memory per
// pipeline iteration and computes the same results: for 12 of every 64
// elements vec_add also reads the other half of y (12/64 x 4 bytes per
// element on top of the pipeline's 36), and uses the value only in a
// comparison that the inputs, uniform in [-1, 1), never satisfy. At 2^24
// elements the pipeline streams from HBM and busy time grows with the
// traffic. For the gate benchmark (issue 19):
//   graphbench run --gate-sizes 2^20,2^24 --kernel-source benchmarks/slow_traffic_2.cu --baseline ...

extern "C" __global__ void vec_add(const float* __restrict__ x,
                                   const float* __restrict__ y,
                                   float* __restrict__ out, size_t N) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < N;
         i += (size_t)gridDim.x * blockDim.x) {
        // 12 of every 64 elements also read the other half of y
        size_t j = i + N / 2;  // the element half a vector away, without a 64-bit modulo
        if (j >= N) j -= N;
        float other = (i & 63) < 12 ? y[j] : 0.0f;
        out[i] = x[i] + y[i] + (other == 1234.5f ? 1.0f : 0.0f);
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

