"""What torch and CuPy pipelines share: arrays by name, stage calls that
name the stage when they fail, the checks that stages write in place, and
the CuPy-free fills, poison, reference and host copies the checks compare.

A subclass says how its framework allocates, fills, copies to the host,
counts its memory and captures a graph (see graphbench.measure.backends.torch)."""

from __future__ import annotations

import copy
import time
from types import MappingProxyType

import numpy as np

from graphbench.errors import first_line
from graphbench.pipeline.callables import CaptureError
from graphbench.record.model import LifecycleSamples
from graphbench.pipeline.spec import SpecError

CHECK_PASSES = 2  # the first call warms up (cuBLAS workspaces, kernel caches): check the second


class CallableBackend:
    framework = ""

    def __init__(self, plan, stream) -> None:
        self.plan, self.elements, self.stages = plan, plan.elements, plan.stages
        self.stream, self.checked, self.launch_config = stream, (), None
        self.notes: tuple[str, ...] = ()  # what this backend's figures cannot say, for the record
        self.fstream = self._bind(stream)  # the framework's stream object, made current
        self.buffers = self._arrays()
        self.view = MappingProxyType(self.buffers)  # stages write into arrays, never rebind
        self._calls = tuple((s.fn, (self.view, self.fstream) if s.takes_stream else (self.view,))
                            for s in self.stages)
        self.current = ""
        for _ in range(CHECK_PASSES):
            self.check_stages()

    def with_build(self, plan, kernels=None) -> "CallableBackend":
        """The same arrays, with `plan`'s stage calls (an A/B base build:
        graphbench.pipeline.revision checked that the arrays agree), checked
        as the constructor checks its own. Only the original releases them."""
        other = copy.copy(self)
        other.plan, other.stages = plan, plan.stages
        other._calls = tuple((s.fn, (self.view, self.fstream) if s.takes_stream else (self.view,))
                             for s in plan.stages)
        for _ in range(CHECK_PASSES):
            other.check_stages()
        return other

    # --- arrays ------------------------------------------------------------
    def _arrays(self) -> dict:
        if self.plan.setup is None:
            return {name: self._allocate(a) for name, a in self.plan.buffers.items()}
        where = f"{self.plan.name}: setup({self.elements})"
        try:
            made = self.plan.setup(self.elements)
        except Exception as exc:  # a user's function: name it, never a traceback
            raise SpecError(f"{where} raised {type(exc).__name__}: {exc}") from None
        if not isinstance(made, dict) or any(not self._is_device_array(v) for v in made.values()):
            raise SpecError(f"{where} did not return {{name: {self.framework} GPU array}}")
        missing = [name for name in self.plan.roles if name not in made]
        if missing:
            raise SpecError(f"{where} returned no {', '.join(missing)}",
                            "return every array named in inputs= and outputs=")
        self.sync()
        return dict(made)

    @property
    def inputs(self) -> dict:
        return {name: self.buffers[name] for name in self.plan.inputs}

    @property
    def outputs(self) -> list:
        return [self.buffers[name] for name in self.plan.outputs]

    def _range(self, name: str) -> tuple[float, float]:
        spec = self.plan.buffers.get(name)
        return (spec.low, spec.high) if spec else (-1.0, 1.0)

    def fill_random(self, rng: np.random.Generator) -> None:
        """Fresh uniform values copied INTO each input (the captured arrays)."""
        for name in self.plan.inputs:
            array = self.buffers[name]
            values = rng.uniform(*self._range(name), self._size(array))
            self._copy_in(array, np.floor(values) if self._is_integer(array) else values)
        self.sync()

    def fill_constant(self) -> None:
        for k, name in enumerate(self.plan.inputs):
            self._fill(self.buffers[name], k + 1)
        self.sync()

    def poison(self) -> None:
        for array in self.outputs:
            self._fill(array, None)  # NaN, or the integer maximum
        self.sync()

    def reference(self) -> dict:
        """The reference's outputs on the current inputs, as host arrays."""
        name = self.plan.name
        try:
            expected = self.plan.reference(self.inputs, self.elements)
        except Exception as exc:
            raise SpecError(f"{name}: the reference raised {type(exc).__name__}: {exc}") from None
        if not isinstance(expected, dict) or not expected:
            raise SpecError(f"{name}: the reference returned {type(expected).__name__}, "
                            "not {output name: array}")
        host = {}
        for out, value in expected.items():
            if out not in self.plan.outputs:
                raise SpecError(f"{name}: the reference returned {out!r}, not an output "
                                f"({', '.join(self.plan.outputs)})")
            shape = tuple(self.buffers[out].shape)
            if tuple(getattr(value, "shape", ())) != shape:
                raise SpecError(f"{name}: the reference's {out} has shape "
                                f"{tuple(getattr(value, 'shape', ()))}, the array {shape}")
            host[out] = self._to_host(value)
        self.checked = tuple(host)
        return host

    def result(self) -> dict:
        return {name: self._to_host(self.buffers[name]) for name in self.plan.outputs}

    # --- stages ------------------------------------------------------------
    def stage_enqueuer(self, target=None):
        """One eager iteration, the calls held in a closure (no checks: they
        ran when the backend was built)."""
        calls = self._calls

        def iteration():
            for fn, args in calls:
                fn(*args)
        return iteration

    def enqueue_stages(self, target=None) -> None:
        """One iteration, each stage named if it fails (what captures run)."""
        for stage, (fn, args) in zip(self.stages, self._calls):
            self.current = stage.name
            try:
                fn(*args)
            except CaptureError:
                raise
            except Exception as exc:
                raise self._capture_error(stage.name, exc) from None
        self.current = ""

    def workload_enqueue(self, workload: str):
        return self.enqueue_stages

    def _capture_error(self, stage: str, exc: Exception) -> CaptureError:
        text = first_line(exc)
        if "captur" in text.lower() or "not permitted" in text.lower():
            return CaptureError(f"{self.plan.name}: stage {stage} cannot run inside a graph: "
                                f"it synchronises with the host or does what capture forbids "
                                f"({text})", "keep .item(), .cpu(), prints of GPU values and "
                                "synchronize() out of the stages")
        return CaptureError(f"{self.plan.name}: stage {stage} failed while capturing: "
                            f"{type(exc).__name__}: {text}")

    def check_stages(self) -> None:
        """Two eager iterations, the second with each stage checked: it returns
        nothing new, keeps the arrays where they are, and keeps no memory it
        allocated. The first lets a framework set up what it keeps for good
        (torch's first matmul allocates cuBLAS's 32 MiB workspace)."""
        for checked in (False, True):
            self._stage_pass(checked)

    def _stage_pass(self, checked: bool) -> None:
        for stage, (fn, args) in zip(self.stages, self._calls):
            where = f"{self.plan.name}: stage {stage.name}"
            pointers, held = self._pointers(), self._held_bytes()
            try:
                returned = fn(*args)
            except TypeError as exc:
                if "mappingproxy" in str(exc):
                    raise CaptureError(f"{where} assigns to bufs instead of writing into an "
                                       "array", "write in place: out=..., copy_(), [...] =") \
                        from None
                raise SpecError(f"{where} raised TypeError: {exc}") from None
            except Exception as exc:
                raise SpecError(f"{where} raised {type(exc).__name__}: {exc}") from None
            self.sync()
            if checked:
                self._check_stage(where, returned, pointers, held)

    def _check_stage(self, where: str, returned, pointers: dict, held: int) -> None:
        if returned is not None and not any(returned is a for a in self.buffers.values()):
            raise CaptureError(f"{where} returned a new {type(returned).__name__} instead of "
                               "writing its output", "write into bufs[...] in place (out=, "
                               "copy_) and return None")
        moved = [name for name, ptr in self._pointers().items() if pointers[name] != ptr]
        if moved:
            raise CaptureError(f"{where} moved array {', '.join(moved)} to new memory "
                               "(resize_, set_)", "write into the arrays where they are")
        grown = self._held_bytes() - held
        if grown > 0:
            raise CaptureError(f"{where} allocates {grown:,} bytes of GPU memory it keeps, "
                               "outside the declared arrays", "allocate every array in arrays= "
                               "or setup(n) and write into it")

    def _pointers(self) -> dict:
        return {name: self._pointer(a) for name, a in self.buffers.items()}

    # --- timing of one-off costs ---------------------------------------------
    def lifecycle(self, stream, enqueue, iterations: int = 1, reps: int = 10):
        """Capture, instantiate, upload and first launch, each timed alone."""
        clock, phases = time.perf_counter, [[], [], [], []]
        for _ in range(reps):
            self.sync()
            t0 = clock()
            graph = self.capture(stream, enqueue, iterations, instantiate=False)
            t1 = clock()
            graph.instantiate()
            t2 = clock()
            graph.upload()
            self.sync()
            t3 = clock()
            graph.launch(stream)
            self.sync()
            t4 = clock()
            graph.close()
            for phase, (start, end) in zip(phases, ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
                phase.append((end - start) * 1e6)
        return LifecycleSamples(*(tuple(phase) for phase in phases))

    def sync(self) -> None:
        self.stream.sync()

    def release(self) -> None:
        self.buffers, self._calls = {}, ()
        self._unbind()
