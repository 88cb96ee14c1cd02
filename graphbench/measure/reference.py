"""The GPU reference: fixed workloads timed behind the hold kernel after
every set of rounds, beside the pipeline's busy probe.

The pipeline's busy time moves between physical GPUs of one model (memory
bandwidth differing between parts: docs/measurement.md#physical-gpus-of-one-model);
a workload that never changes moves with the GPU and not with the
code. Busy time over the reference is therefore what the gate compares
between two physical GPUs (graphbench.gate.compare)."""

from __future__ import annotations

from graphbench.measure.busy import BusyProbe, Hold
from graphbench.measure.kernels import REF_COMPUTE_KERNEL, REF_STREAM_KERNEL
from graphbench.record.model import BusyReading

STREAM = "stream"    # a copy far larger than any L2: memory bandwidth
COMPUTE = "compute"  # dependent FMAs: the SMs' clock
STREAM_VECTORS = 1 << 23   # float4 elements: 128 MiB read and 128 MiB written
STREAM_BLOCKS_PER_SM = 8
COMPUTE_BLOCKS_PER_SM, COMPUTE_STEPS = 4, 4096
BLOCK = 256


class GpuReference:
    """Two busy probes of fixed workloads, read once per set of rounds."""

    def __init__(self, session, hold: Hold) -> None:
        import cupy
        import numpy as np
        from cuda.core import LaunchConfig, launch

        sms = session.info.multiprocessors or 1
        kernels = session.kernels
        self._src = cupy.full(STREAM_VECTORS * 4, 1.0, dtype=cupy.float32)
        self._dst = cupy.empty_like(self._src)
        self._sink = cupy.zeros(1, dtype=cupy.float32)
        session.device.sync()  # CuPy's work is done before cuda.core captures
        stream_config = LaunchConfig(grid=STREAM_BLOCKS_PER_SM * sms, block=BLOCK)
        compute_config = LaunchConfig(grid=COMPUTE_BLOCKS_PER_SM * sms, block=BLOCK)
        src, dst, sink = self._src.data.ptr, self._dst.data.ptr, self._sink.data.ptr

        def copy(target) -> None:
            launch(target, stream_config, kernels[REF_STREAM_KERNEL], src, dst,
                   np.uint64(STREAM_VECTORS))

        def fma(target) -> None:
            launch(target, compute_config, kernels[REF_COMPUTE_KERNEL], sink,
                   np.int32(COMPUTE_STEPS))

        self._probes = {}
        try:
            for name, enqueue in ((STREAM, copy), (COMPUTE, fma)):
                self._probes[name] = BusyProbe(session.device, session.stream, enqueue, hold)
        except BaseException:
            self.close()
            raise

    def measure(self) -> dict[str, BusyReading]:
        return {name: probe.measure() for name, probe in self._probes.items()}

    def close(self) -> None:
        for probe in self._probes.values():
            probe.close()
        self._probes = {}
        self._src = self._dst = self._sink = None


def gpu_reference(session, hold: Hold) -> GpuReference | None:
    """The GPU reference, or None where its 256 MiB do not fit beside the
    pipeline: it only informs the gate between GPUs (which then falls back
    to the spread of busy time itself), so it never stops a run."""
    import cupy

    try:
        return GpuReference(session, hold)
    except cupy.cuda.memory.OutOfMemoryError:
        return None
