"""The CuPy backend: stages are CuPy calls on graphbench's stream, made
CuPy's current stream; graphs are stream captures to a cupy.cuda.Graph.
CuPy's pool would hand a stage a block during capture that the graph then
bakes in, so any allocation while capturing is refused, naming the stage."""

from __future__ import annotations

import numpy as np

from graphbench.pipeline.callables import CaptureError
from graphbench.measure.backends.callable import CallableBackend


class CupyBackend(CallableBackend):
    framework = "cupy"

    def _bind(self, stream):
        import cupy

        self.cp = cupy
        external = cupy.cuda.ExternalStream(int(stream.handle))
        self._previous = cupy.cuda.get_current_stream()  # the caller's, put back by _unbind
        external.use()  # once: no stream context inside timed loops
        self.notes = ("CuPy instantiates inside end_capture: the graphs' capture figures "
                      "include instantiation",)
        return external

    def _unbind(self) -> None:
        self._previous.use()

    @property
    def framework_version(self) -> str:
        return self.cp.__version__

    def _allocate(self, spec):
        return self.cp.empty(spec.shape, dtype=spec.dtype)

    def _is_device_array(self, value) -> bool:
        return isinstance(value, self.cp.ndarray)

    def _size(self, array) -> int:
        return array.size

    def _is_integer(self, array) -> bool:
        return array.dtype.kind in "iub"

    def _copy_in(self, array, values) -> None:
        array.set(values.astype(array.dtype).reshape(array.shape))

    def _fill(self, array, value) -> None:
        if value is None:
            value = np.nan if array.dtype.kind == "f" else np.iinfo(array.dtype).max
        array.fill(value)

    def _to_host(self, value):
        return self.cp.asnumpy(value)

    def _pointer(self, array) -> int:
        return array.data.ptr

    def _held_bytes(self) -> int:
        return self.cp.get_default_memory_pool().used_bytes()

    def refuse_allocation(self, size: int):
        raise CaptureError(f"{self.plan.name}: stage {self.current or '?'} allocates "
                           f"{size:,} bytes during capture", "allocate every array in "
                           "arrays= or setup(n) and write into it with out=")

    def capture(self, stream, enqueue, iterations: int = 1, instantiate: bool = True):
        return CupyGraph(self, enqueue, iterations)


class CupyGraph:
    """`iterations` iterations captured into one cupy.cuda.Graph (CuPy
    instantiates when the capture ends: the capture figure includes it)."""

    def __init__(self, backend: CupyBackend, enqueue, iterations: int) -> None:
        self.iterations, self._stream = iterations, backend.fstream
        backend.sync()
        with backend.cp.cuda.using_allocator(backend.refuse_allocation):
            self._stream.begin_capture()
            try:
                for _ in range(iterations):
                    enqueue(None)
            except BaseException:
                _end_quietly(self._stream)
                raise
            self.graph = self._stream.end_capture()

    def instantiate(self) -> None:
        """Done by end_capture."""

    def upload(self) -> None:
        if hasattr(self.graph, "upload"):
            self.graph.upload(self._stream)

    def launch(self, stream) -> None:
        self.graph.launch(self._stream)

    def replayer(self, stream):
        launch, on = self.graph.launch, self._stream
        return lambda: launch(on)

    def close(self) -> None:
        self.graph = None


def _end_quietly(stream) -> None:
    try:
        stream.end_capture()
    except Exception:  # noqa: BLE001 - the stage's own error is the one to report
        pass
