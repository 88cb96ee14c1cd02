// graphbench harness kernels: part of the measuring instrument, not of the
// pipeline under test, so a --kernel-source variant never replaces them.

// Does nothing: its launch cost is the floor every launch on this machine pays.
extern "C" __global__ void empty() {}

// Does nothing with the arguments a built-in stage takes: the host probe read
// between rounds launches it (graphbench.measure.conditions.LaunchProbe), so
// that it pays the same argument packing as the launches it stands for.
extern "C" __global__ void probe_launch(const float*, const float*, float*,
                                        unsigned long long) {}

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

// The device-side loop of the `loop` rung: a graph whose while-loop node runs
// the pipeline's stages and then loop_count, until loop_count sets the
// loop's condition to 0. loop_reset runs once before the loop node, so every
// launch of the graph runs *target iterations (the host sets target before
// timing). NVRTC needs cudaGraphSetConditional declared (cuda.core's own
// graph tests declare it the same way).
extern "C" __device__ __cudart_builtin__ void CUDARTAPI
cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);

extern "C" __global__ void loop_reset(unsigned int* counter, const unsigned int* target) {
    *counter = *target;
}

extern "C" __global__ void loop_count(cudaGraphConditionalHandle handle, unsigned int* counter) {
    // never below zero: a target of 0 runs one iteration, not 2^32
    unsigned int left = *counter > 1u ? --*counter : (*counter = 0u);
    cudaGraphSetConditional(handle, left != 0u);
}

// Evicts the L2 for cold-cache figures by reading a buffer twice its size.
// Reading, not writing: a write-based flush leaves the L2 full of dirty
// lines, and the timed kernel then pays for writing them back to memory
// (measured on the H200: +4% stage time at 2^24 elements, where warm and
// cold should agree). The sum is stored only if it equals a value the
// uniform contents cannot add up to, so the reads cannot be optimised away.
extern "C" __global__ void l2_flush(const unsigned int* __restrict__ scratch, size_t n,
                                    unsigned int* sink) {
    unsigned int sum = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        sum += scratch[i];
    }
    if (sum == 0xdeadbeefu) *sink = sum;
}

// The GPU reference: two fixed workloads timed beside the pipeline, so that
// busy time can be stated relative to what this physical GPU does with a
// workload that never changes. Between two GPUs of one model the pipeline's
// busy time moved by up to 1.4% at 2^24 elements (memory bandwidth differs
// between parts); the reference moves with it, the code under test does not.
//
// ref_stream: a copy far larger than the L2, so it runs at the memory's
// bandwidth. ref_compute: a chain of dependent FMAs per thread, so it runs at
// the SMs' clock. Both store their result only where it cannot be dead code.
extern "C" __global__ void ref_stream(const float4* __restrict__ src, float4* __restrict__ dst,
                                      size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        dst[i] = src[i];
    }
}

extern "C" __global__ void ref_compute(float* out, int steps) {
    float a = threadIdx.x * 1e-3f, b = 1.0f - blockIdx.x * 1e-6f;
    for (int i = 0; i < steps; ++i) {
        a = fmaf(a, b, 1e-7f);
        b = fmaf(b, a, -1e-7f);
    }
    if (a == 12345.0f) out[0] = a + b;
}
