"""check_replay: a torch or CuPy callable's replay check, its arguments validated
before any GPU work (a UsageError naming the argument), the caller's
process left as it was (graphbench.process_state), the caller's arrays
never written (graphbench's copies are captured and refilled)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from graphbench.errors import DeviceError, UsageError
from graphbench.replay.battery import Callee, run_battery
from graphbench.replay.outcomes import ReplayRecord
from graphbench.replay.plan import MAX_REPEATS, REPEATS
from graphbench.replay.verdicts import Judgement, judge

# replay against eager: the same kernels, but a library may choose others under capture
TOLERANCE = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-4, "float64": 1e-10}


@dataclass(frozen=True)
class ReplayCheck:
    record: ReplayRecord
    judgement: Judgement

    @property
    def passed(self) -> bool:
        return self.judgement.passed


def check_replay(fn: Callable, args: Sequence[Any], outputs: Sequence[int] = (),
                 scalars: Mapping[str, Any] | None = None, sizes: Sequence[str] = (),
                 repeats: int = REPEATS, seed: int = 0, rtol: float | None = None,
                 atol: float | None = None, stream: str | None = None) -> ReplayCheck:
    """The replay check of `fn(*args, **scalars)` (graphbench.replay.battery);
    `stream`: the keyword under which a cuda.core callable takes the stream
    (or, captured, the graph builder) it launches onto."""
    from graphbench.process_state import kept

    scalars = dict(scalars or {})
    check_arguments(fn, args, outputs, scalars, sizes, repeats, seed)
    if stream is not None and (not isinstance(stream, str) or not stream.isidentifier()
                               or stream in scalars):
        raise UsageError(f"stream must name the keyword fn takes its stream by, got {stream!r}",
                         "e.g. stream='stream' for fn(x, y, *, stream)")
    with kept():
        if stream is not None:
            adapter, fn = _cuda_core(fn, args, stream)
        else:
            adapter = adapter_for(args)
        tolerance = TOLERANCE.get(str(args[0].dtype).rsplit(".", 1)[-1], 1e-5)
        callee = Callee(fn, tuple(adapter.clone(a) for a in args), tuple(outputs), scalars,
                        tuple(sizes), tolerance if rtol is None else rtol,
                        tolerance if atol is None else atol)
        record = run_battery(callee, adapter, repeats, seed)
    return ReplayCheck(record, judge(record))


def check_arguments(fn, args, outputs, scalars, sizes, repeats, seed) -> None:
    if not callable(fn):
        raise UsageError(f"check_replay needs a function, got {type(fn).__name__}",
                         "check_replay(fn, (x, y), scalars={'alpha': 2.0})")
    if not isinstance(args, (tuple, list)) or not args:
        raise UsageError("check_replay needs the callable's array arguments as a tuple",
                         "check_replay(fn, (x,)) for fn(x)")
    if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(args)
           for i in outputs) or len(set(outputs)) != len(outputs):
        raise UsageError(f"outputs must be distinct positions among the {len(args)} arguments, "
                         f"got {list(outputs)!r}", "e.g. outputs=(1,) for fn(x, out)")
    if len(outputs) == len(args):
        raise UsageError("every argument is an output: the callable needs an input")
    for name, value in scalars.items():
        if not isinstance(name, str) or not name.isidentifier() or \
                not isinstance(value, (int, float)) or not math.isfinite(value):
            raise UsageError(f"scalar {name!r} must be a finite number passed by keyword, got "
                             f"{value!r}", "e.g. scalars={'alpha': 2.0, 'n': 4096}")
    if any(s not in scalars or isinstance(scalars[s], bool) or not isinstance(scalars[s], int)
           for s in sizes):
        raise UsageError("sizes must name integer scalars", "e.g. scalars={'n': 4096}, "
                         "sizes=('n',)")
    check_battery(repeats, seed)


def check_battery(repeats, seed, prefix: str = "") -> None:
    """The battery's own settings, named as the caller names them (`prefix`
    "--" for the command line's flags)."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or \
            not 1 <= repeats <= MAX_REPEATS:
        shown = f"{repeats:,}" if isinstance(repeats, int) else repr(repeats)
        raise UsageError(f"{prefix}repeats must be 1 to {MAX_REPEATS}, got {shown}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"{prefix}seed must be an integer 0 or more, got {seed!r}")


def _cuda_core(fn: Callable, args, keyword: str):
    """The cuda.core adapter, and `fn` given what it launches onto now."""
    if {type(a).__module__.split(".")[0] for a in args} != {"cupy"}:
        raise UsageError("a cuda.core callable's arrays must be CuPy arrays (its kernels take "
                         "their .data.ptr)", "allocate them with cupy.empty")
    from graphbench.replay.cuda_core_adapter import CudaCoreAdapter

    adapter = CudaCoreAdapter()

    def launched(*values, **scalars):
        return fn(*values, **{keyword: adapter.target}, **scalars)
    launched.__name__ = getattr(fn, "__name__", "fn") or "fn"
    return adapter, launched


def adapter_for(args):
    """The adapter of the arguments' framework (torch CUDA tensors or CuPy
    arrays, all of one), on a usable GPU."""
    kinds = {type(a).__module__.split(".")[0] for a in args}
    if len(kinds) != 1 or not kinds <= {"torch", "cupy"}:
        raise UsageError("check_replay takes torch CUDA tensors or CuPy arrays as arguments, "
                         f"all of one, got {', '.join(sorted(kinds))}",
                         "pass scalars by keyword: scalars={...}")
    if kinds == {"cupy"}:
        from graphbench.replay.cupy_adapter import CupyAdapter

        return CupyAdapter()
    import torch

    if not torch.cuda.is_available():
        raise DeviceError("no usable GPU: torch.cuda.is_available() is False",
                          "run on a machine with an NVIDIA GPU and driver")
    if not all(a.is_cuda for a in args):
        raise UsageError("every argument must be on the GPU", "x.cuda()")
    from graphbench.replay.torch_adapter import TorchAdapter

    return TorchAdapter()
