// graphbench harness kernels: part of the measuring instrument, not of the
// pipeline under test, so a --kernel-source variant never replaces them.

// Does nothing: its launch cost is the floor every launch on this machine pays.
extern "C" __global__ void empty() {}

// Spins for `ns` nanoseconds of the GPU's global timer. Queued ahead of a
// timed graph replay it keeps the GPU occupied while the host records the
// start event, launches the graph and records the end event, so the events
// time the graph's GPU work alone and not the host's submission of it (the
// "blocking kernel" of timing harnesses such as nvbench).
extern "C" __global__ void hold(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
