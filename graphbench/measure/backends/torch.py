"""The torch backend: stages are torch calls on graphbench's stream, made
torch's current stream; graphs are torch.cuda.CUDAGraph captures, each with
its own private memory pool, as a torch user ships them. Imported only when
a torch pipeline runs."""

from __future__ import annotations

import time

from graphbench.errors import first_line
from graphbench.pipeline.callables import CaptureError
from graphbench.measure.backends.callable import CallableBackend
from graphbench.record.model import LifecycleSamples

COMPILE_CALLS = 3  # reduce-overhead: a warm-up call, a recording call, then replays


class TorchBackend(CallableBackend):
    framework = "torch"

    def _bind(self, stream):
        import torch

        self.torch = torch
        self._previous = torch.cuda.current_stream()
        external = torch.cuda.ExternalStream(int(stream.handle))
        torch.cuda.set_stream(external)  # once: no stream context inside timed loops
        return external

    def _unbind(self) -> None:
        self.torch.cuda.set_stream(self._previous)

    @property
    def framework_version(self) -> str:
        return self.torch.__version__

    def _allocate(self, spec):
        return self.torch.empty(spec.shape, dtype=getattr(self.torch, spec.dtype), device="cuda")

    def _is_device_array(self, value) -> bool:
        return isinstance(value, self.torch.Tensor) and value.is_cuda

    def _size(self, array) -> int:
        return array.numel()

    def _is_integer(self, array) -> bool:
        return not (array.dtype.is_floating_point or array.dtype.is_complex)

    def _copy_in(self, array, values) -> None:
        host = self.torch.from_numpy(values.astype("float64" if not self._is_integer(array)
                                                   else "int64"))
        array.copy_(host.reshape(array.shape))  # into the same tensor: graphs keep its address

    def _fill(self, array, value) -> None:
        if value is None:
            value = float("nan") if not self._is_integer(array) else \
                self.torch.iinfo(array.dtype).max
        array.fill_(value)

    def _to_host(self, value):
        value = value.detach()
        wide = self.torch.int64 if self._is_integer(value) else self.torch.float32
        return value.to(wide).cpu().numpy()  # numpy has no bfloat16

    def _pointer(self, array) -> int:
        return array.data_ptr()

    def _held_bytes(self) -> int:
        return self.torch.cuda.memory_allocated()

    def capture(self, stream, enqueue, iterations: int = 1, instantiate: bool = True):
        return TorchGraph(self, enqueue, iterations, instantiate)

    # --- torch.compile --------------------------------------------------------
    def compile_iteration(self):
        """torch.compile(mode="reduce-overhead") of one iteration, compiled
        and recorded here: (step, compile us, first call after it in us)."""
        torch, buffers, calls = self.torch, self.buffers, self._calls
        for array in buffers.values():  # the graphs may then mutate them in place
            torch._dynamo.mark_static_address(array)

        def iteration():
            for fn, args in calls:
                fn(*args)
        step = torch.compile(iteration, mode="reduce-overhead")
        try:
            compile_us = _timed(lambda: [step() for _ in range(COMPILE_CALLS)], self.sync)
        except Exception as exc:
            raise CaptureError(f"{self.plan.name}: torch.compile failed: "
                               f"{first_line(exc, named=True)}",
                               "leave torch-compile out of --modes") from None
        return step, compile_us, _timed(step, self.sync)

    def compile_lifecycle(self, compile_us: float, first_us: float) -> LifecycleSamples:
        """Compiling is its build cost, once (instantiate and upload are inside it)."""
        return LifecycleSamples((compile_us,), (0.0,), (0.0,), (first_us,))


def _timed(fn, sync) -> float:
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    return (time.perf_counter() - t0) * 1e6


class TorchGraph:
    """`iterations` iterations captured into one torch.cuda.CUDAGraph."""

    def __init__(self, backend: TorchBackend, enqueue, iterations: int,
                 instantiate: bool = True) -> None:
        torch = backend.torch
        self.iterations = iterations
        self.graph, self._ready = torch.cuda.CUDAGraph(), True
        if not instantiate:  # torch 2.7+ instantiates apart from capture: each timed alone
            try:
                self.graph, self._ready = torch.cuda.CUDAGraph(keep_graph=True), False
            except TypeError:
                backend.notes = ("torch instantiates inside capture_end here: the graphs' "
                                 "capture figures include instantiation",)
        backend.sync()
        self.graph.capture_begin()  # on the current stream: graphbench's
        try:
            for _ in range(iterations):
                enqueue(None)
        except BaseException:
            _end_quietly(self.graph)
            raise
        try:
            self.graph.capture_end()
        except RuntimeError as exc:
            raise backend._capture_error(backend.current or "(one of them)", exc) from None

    def instantiate(self) -> None:
        if not self._ready:
            self.graph.instantiate()
            self._ready = True

    def upload(self) -> None:
        """torch uploads on the first replay; nothing to do apart."""

    def launch(self, stream) -> None:
        self.graph.replay()

    def replayer(self, stream):
        return self.graph.replay  # replays on torch's current stream: graphbench's

    def close(self) -> None:
        self.graph.reset()


def _end_quietly(graph) -> None:
    """End a capture a stage broke; the stage's own error is the one to report."""
    try:
        graph.capture_end()
    except Exception:  # noqa: BLE001 - the invalidated capture's error says less
        pass
