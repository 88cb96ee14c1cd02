"""What raises the GPU busy time after verification? (issue 11, part 1)

Each scenario runs in a fresh process: it opens a graphbench Session, then
runs its steps in order, and after each step measures (a) the bare busy
figure, CUDA events around one graph of 100 pipelines, and (b) the SM clock
the GPU really runs at, from clock64 against %globaltimer in a one-thread
probe kernel, and NVML's reading.

    PYTHONPATH=. python3 benchmarks/busy_rise.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

import numpy as np

PROBE_KERNELS = r"""
extern "C" __global__ void shuffle(const float* x, float* out, size_t n) {
    float v = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[0] = v;
}
extern "C" __global__ void atomic(const float* x, float* out, size_t n) {
    if (threadIdx.x < n) atomicAdd(out, x[threadIdx.x]);
}
extern "C" __global__ void shared(const float* x, float* out, size_t n) {
    __shared__ float tile[256];
    tile[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) { float v = 0; for (int i = 0; i < 256; ++i) v += tile[i]; out[0] = v; }
}
"""

CLOCK_PROBE = r"""
extern "C" __global__ void clock_probe(unsigned long long ns, unsigned long long* out) {
    unsigned long long t0, t1, c0, c1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); } while (t1 - t0 < ns);
    c1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = c1 - c0; out[1] = t1 - t0; }
}
"""

SCENARIOS = {
    "nothing": ["rounds"],
    "verify": ["verify", "rounds"],
    "verify_rounds_free_pool": ["verify", "rounds", "free_pool"],
    "cupy_compare": ["compare", "rounds"],
    "host_compare": ["host_compare", "rounds"],
    "isclose_only": ["isclose", "rounds"],
    "reductions_only": ["reductions", "rounds"],
    "float64_only": ["float64", "rounds"],
    "verify_unpinned": ["unpinned", "verify", "rounds"],
    # which kernels flip the state: a warp shuffle, a global atomic, shared memory
    "shuffle_kernel": ["shuffle", "rounds"],
    "atomic_kernel": ["atomic", "rounds"],
    "shared_memory_kernel": ["shared", "rounds"],
    "rounds_then_verify": ["rounds", "verify", "measure", "rounds"],
    # graphbench's order: its sampling, then its checks, then more rounds; the
    # bare probe after each, in the same process
    "graphbench_sampling": ["sample", "verify", "rounds"],
}


class Probe:
    def __init__(self, session):
        import cupy
        from cuda.core import EventOptions, LaunchConfig, Program, ProgramOptions

        from graphbench.measure.graphs import CapturedGraph

        self.session, self.cupy = session, cupy
        self.graph = CapturedGraph(session.stream, session.pipeline.enqueue_stages, 100)
        options = EventOptions(timing_enabled=True)
        self.start, self.end = (session.device.create_event(options) for _ in range(2))
        code = Program(CLOCK_PROBE, "c++", ProgramOptions(arch=session.info.arch)).compile("cubin")
        self.kernel, self.config = code.get_kernel("clock_probe"), LaunchConfig(grid=1, block=1)
        self.out = cupy.zeros(2, dtype=cupy.uint64)

    def busy_us(self) -> float:
        stream, times = self.session.stream, []
        for _ in range(9):
            stream.sync()
            stream.record(self.start)
            self.graph.graph.launch(stream)
            stream.record(self.end)
            stream.sync()
            times.append((self.end - self.start) * 1e3 / 100)
        return statistics.median(times)

    def sm_mhz(self) -> float:
        from cuda.core import launch

        self.cupy.cuda.get_current_stream().synchronize()
        launch(self.session.stream, self.config, self.kernel, np.uint64(200_000),
               self.out.data.ptr)
        self.session.stream.sync()
        cycles, ns = (int(x) for x in self.out.get())
        return cycles / ns * 1e3

    def reading(self, step: str) -> dict:
        nvml = self.session.monitor.read()["sm_clock_mhz"]
        return {"step": step, "busy_us": round(self.busy_us(), 4),
                "sm_mhz_measured": round(self.sm_mhz(), 1), "sm_mhz_nvml": nvml}


def launch_probe_kernel(name: str, session, x) -> None:
    import cupy
    from cuda.core import LaunchConfig, Program, ProgramOptions, launch

    code = Program(PROBE_KERNELS, "c++", ProgramOptions(arch=session.info.arch)).compile("cubin")
    out = cupy.zeros(1, dtype=cupy.float32)
    cupy.cuda.get_current_stream().synchronize()
    launch(session.stream, LaunchConfig(grid=1, block=256), code.get_kernel(name), x.data.ptr,
           out.data.ptr, np.uint64(x.size))
    session.stream.sync()


def run_step(name: str, session, rng) -> None:
    import cupy

    from graphbench.analyze.stopping import FixedRounds
    from graphbench.measure.benchmark import verify_modes
    from graphbench.measure.timing import run_rounds

    pipeline = session.pipeline
    expected = pipeline.reference()  # {last output: array}; also names the checked output
    result = pipeline.result()[pipeline.checked[0]]
    expected = expected[pipeline.checked[0]]
    if name == "verify":
        verify_modes(session, rng)
    elif name == "compare":  # graphbench's comparison before it moved to the host
        good = cupy.isclose(result, expected, rtol=1e-5, atol=1e-5)
        error = cupy.abs(result.astype(cupy.float64) - expected.astype(cupy.float64))
        error = cupy.where(cupy.isnan(error), cupy.inf, error)
        _ = int(good.sum()), int(cupy.argmin(good)), float(error.max())
    elif name == "host_compare":
        np.isclose(result.get(), expected.get(), rtol=1e-5, atol=1e-5).all()
    elif name == "isclose":
        cupy.isclose(result, expected)
        cupy.cuda.get_current_stream().synchronize()
    elif name == "reductions":
        _ = int(result.sum()), int(cupy.argmin(result)), float(result.max())
    elif name == "float64":
        result.astype(cupy.float64)
        cupy.cuda.get_current_stream().synchronize()
    elif name in ("shuffle", "atomic", "shared"):
        launch_probe_kernel(name, session, result)
    elif name == "free_pool":
        cupy.get_default_memory_pool().free_all_blocks()
    elif name == "rounds":
        pipeline.fill_random(rng)
        run_rounds({m.name: m.step for m in session.modes}, 1000, session.timer, FixedRounds(10))
    elif name == "sample":
        from graphbench.measure.benchmark import sample

        sampling = sample(session, rng, None)
        return {"graphbench_busy_us": statistics.median(c.busy["stages"].us
                                                        for c in sampling.conditions)}
    return {}


def child(scenario: str) -> None:
    from graphbench.config import RunConfig
    from graphbench.measure.session import Session

    steps = SCENARIOS[scenario]
    config = RunConfig(pin_cpu="unpinned" not in steps)
    rng = np.random.default_rng(0)
    with Session(config, None) as session:
        session.pipeline.fill_random(rng)
        probe = Probe(session)
        readings = [probe.reading("start")]
        for step in steps:
            extra = {} if step in ("unpinned", "measure") else run_step(step, session, rng)
            readings.append({**probe.reading(step), **(extra or {})})
    print(json.dumps({"scenario": scenario, "readings": readings}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    results = []
    for scenario in SCENARIOS:
        out = subprocess.run([sys.executable, __file__, "--child", scenario], capture_output=True,
                             text=True)
        if out.returncode:
            print(scenario, "FAILED", out.stderr[-2000:])
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(scenario, " | ".join(f"{r['step']}: {r['busy_us']:.3f} us {r['sm_mhz_measured']:.0f}"
                                   f"/{r['sm_mhz_nvml']} MHz" + (
                                       f" graphbench {r['graphbench_busy_us']:.3f} us"
                                       if "graphbench_busy_us" in r else "")
                                   for r in results[-1]["readings"]))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
