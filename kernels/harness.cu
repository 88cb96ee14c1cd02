// graphbench harness kernels: part of the measuring instrument, not of the
// pipeline under test, so a --kernel-source variant never replaces them.

// Does nothing: its launch cost is the floor every launch on this machine pays.
extern "C" __global__ void empty() {}

// Spins for `ns` nanoseconds of the GPU's global timer. Queued ahead of a
// timed graph replay it keeps the GPU occupied while the host records the
// start event, launches the graph and records the end event, so the events
// time the graph's GPU work alone and not the host's submission of it (the
// "blocking kernel" of timing harnesses such as nvbench).
// It also writes the SM cycles and nanoseconds it spun: their ratio is the
// clock the SMs really ran at just before the timed work, which NVML's
// reading (taken afterwards, and a setting more than a measurement) is not.
extern "C" __global__ void hold(unsigned long long ns, unsigned long long* clock_out) {
    unsigned long long start, now;
    long long cycles = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    clock_out[0] = (unsigned long long)(clock64() - cycles);
    clock_out[1] = now - start;
}

// Verification, written here rather than with CuPy: CuPy's reductions left
// the pipeline kernels 18% slower for the rest of the process once timed
// rounds had run (measured on the H200; isclose, casts and host-side
// comparisons did not), so graphbench's own checks use only these kernels.
//
// out[0]: elements that are not close, out[1]: the first such index,
// out[2]: the largest |actual - expected| as float bits (+inf for NaN).
// Close means what numpy.isclose means: |a - e| <= atol + rtol * |e|, equal
// values (infinities included) are close, NaN never is.
__device__ void reduce_and_publish(unsigned long long bad, unsigned long long first,
                                   unsigned int error, unsigned long long* out) {
    for (int offset = 16; offset > 0; offset /= 2) {  // one atomic per warp, not per element
        bad += __shfl_xor_sync(0xffffffffu, bad, offset);
        first = min(first, __shfl_xor_sync(0xffffffffu, first, offset));
        error = max(error, __shfl_xor_sync(0xffffffffu, error, offset));
    }
    if ((threadIdx.x & 31) == 0) {
        if (bad) atomicAdd(&out[0], bad);
        if (bad) atomicMin(&out[1], first);
        atomicMax((unsigned int*)&out[2], error);  // non-negative floats order as their bits
    }
}

extern "C" __global__ void check_close(const float* __restrict__ actual,
                                       const float* __restrict__ expected, size_t n,
                                       float rtol, float atol, unsigned long long* out) {
    unsigned long long bad = 0, first = ~0ull;
    unsigned int error = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float a = actual[i], e = expected[i];
        float diff = a == e ? 0.0f : fabsf(a - e);
        bool close = a == e || diff <= atol + rtol * fabsf(e);
        error = max(error, __float_as_uint(isnan(diff) ? __int_as_float(0x7f800000) : diff));
        if (!close) {
            bad += 1;
            first = min(first, (unsigned long long)i);
        }
    }
    reduce_and_publish(bad, first, error, out);
}

// Counts elements that no longer hold the NaN poison (something wrote them):
// out[0] the count, out[1] the first index, offset by `base`.
extern "C" __global__ void count_written(const float* __restrict__ x, size_t n, size_t base,
                                         unsigned long long* out) {
    unsigned long long written = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (!isnan(x[i])) {
            written += 1;
            first = min(first, (unsigned long long)(base + i));
        }
    }
    reduce_and_publish(written, first, 0u, out);
}
