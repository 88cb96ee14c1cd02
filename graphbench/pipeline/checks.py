"""Type and range checks for every field a pipeline file sets (Pipeline,
Stage, buffer(), count(), scalar()), so a bad value is one SpecError naming
the file, the stage and the field, never a traceback from numpy or a launch.

Launch limits are the ones every GPU graphbench runs on shares (CUDA C++
Programming Guide, "Features and Technical Specifications", table of
technical specifications per compute capability, 7.0 to 12.x): a block has
at most 1024 threads (x, y <= 1024, z <= 64); a grid at most 2^31 - 1 blocks
in x and 65535 in y and z. Dynamic shared memory per block is at most
48 KiB: the same table grants 227 KiB on compute capability 9.0 (163 KiB on
8.0), but above 48 KiB only to a kernel that opts in with
cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) (the
Programming Guide's compute capability sections), and graphbench's launches
(measure/pipeline.py, measure/driver.py) do not, so a larger request would
pass here and fail at the first launch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from graphbench._version import install_command
from graphbench.launch_shape import MAX_BLOCK_THREADS
from graphbench.pipeline.spec import SpecError, _short

MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_SHARED_BYTES = 48 * 1024       # without the opt-in; every GPU since compute capability 3.0
OPT_IN_SHARED_BYTES = 227 * 1024   # compute capability 9.0 with the opt-in graphbench lacks
TEXT_FIELDS = ("name", "source")


def check_pipeline_fields(spec, where: str) -> None:
    """Pipeline's own fields (its buffers and stages are checked one by one)."""
    for name in TEXT_FIELDS:
        value = getattr(spec, name)
        if not isinstance(value, str) or not value.strip() or not _printable(value):
            raise SpecError(f"{where}: Pipeline {name} must be a non-empty string of "
                            f"printable text, got {_short(value)}")
    for name in ("buffers", "stages"):
        value = getattr(spec, name)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise SpecError(f"{where}: Pipeline {name} must be a list, got {_short(value)}",
                            f"give {name}=[...]")
    if not isinstance(spec.description, str) or not _printable(spec.description):
        raise SpecError(f"{where}: Pipeline description must be a string, got "
                        f"{_short(spec.description)}")
    if not isinstance(spec.params, Mapping):
        raise SpecError(f"{where}: Pipeline params must be a dict, got {_short(spec.params)}")
    if not callable(spec.reference):
        raise SpecError(f"{where}: Pipeline reference is not a function",
                        "give reference(inputs, n) -> {output name: expected array}")
    for name in ("rtol", "atol"):
        value = getattr(spec, name)
        if not _real(value) or not 0 <= value < math.inf:
            raise SpecError(f"{where}: Pipeline {name} must be a number 0 or more, got "
                            f"{_short(value)}")


def _printable(text: str) -> bool:
    """Text a terminal and a UTF-8 record can hold (a lone surrogate is neither);
    a source's newlines are fine."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()


def _real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and not (isinstance(value, float) and math.isnan(value))


def dtype_of(text, where: str, kinds: str = "biuf") -> np.dtype:
    """A dtype CuPy computes with; `kinds` narrows it (counts are integers)."""
    if not isinstance(text, (str, np.dtype, type)):
        raise SpecError(f"{where}: dtype {_short(text)} is not a dtype name",
                        'give e.g. "float32"')
    try:
        dtype = np.dtype(text)
    except Exception:  # numpy raises TypeError, ValueError or SyntaxError for "i4,,"
        dtype = None
    if dtype is None or dtype.kind not in kinds or dtype.itemsize > 8 or dtype.fields:
        wanted = "an integer dtype" if kinds == "iu" else "one CuPy computes with"
        raise SpecError(f"{where}: dtype {_short(text)} is not {wanted}",
                        "use float32, float64, float16, int32, int64, uint32, ...")
    return dtype


def check_buffer_fields(b, where: str) -> None:
    for name in ("low", "high"):
        if not _real(getattr(b, name)) or not math.isfinite(getattr(b, name)):
            raise SpecError(f"{where}: {name} must be a finite number, got "
                            f"{_short(getattr(b, name))}")
    if not b.low <= b.high:
        raise SpecError(f"{where}: low {b.low} is above high {b.high}")


def typed_value(value, dtype: np.dtype, where: str):
    """`value` as a numpy scalar of `dtype`, refused when the dtype cannot hold it."""
    if not _real(value) or not math.isfinite(value):
        raise SpecError(f"{where}: value {_short(value)} is not a finite number")
    if dtype.kind in "biu":
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        if isinstance(value, float) and not value.is_integer():
            raise SpecError(f"{where}: value {_short(value)} is not a whole number for "
                            f"{dtype.name}")
        low, high = (info.min, info.max) if info else (0, 1)
        if not low <= value <= high:
            raise SpecError(f"{where}: value {_short(value)} does not fit {dtype.name} "
                            f"({low} to {high})", "choose a wider dtype")
        return dtype.type(int(value))
    if abs(value) > float(np.finfo(dtype).max):  # a Python comparison: numpy would warn
        raise SpecError(f"{where}: value {_short(value)} does not fit {dtype.name}",
                        "choose a wider dtype")
    return dtype.type(value)


def check_launch(block: tuple, grid, shared, where: str) -> int:
    """The block and grid against every GPU's limits; the shared-memory bytes."""
    for axis, (size, limit) in enumerate(zip(block, MAX_BLOCK)):
        if size > limit:
            raise SpecError(f"{where}: block {'xyz'[axis]} is {size:,}, more than {limit:,} "
                            "(CUDA's limit on every GPU)")
    if math.prod(block) > MAX_BLOCK_THREADS:
        raise SpecError(f"{where}: block has {math.prod(block):,} threads, more than "
                        f"{MAX_BLOCK_THREADS} (CUDA's limit on every GPU)")
    if isinstance(grid, tuple):
        for axis, (size, limit) in enumerate(zip(grid, MAX_GRID)):
            if size > limit:
                raise SpecError(f"{where}: grid {'xyz'[axis]} is {size:,}, more than "
                                f"{limit:,} (CUDA's limit on every GPU)")
    if isinstance(shared, bool) or not isinstance(shared, (int, np.integer)) \
            or not 0 <= shared <= MAX_SHARED_BYTES:
        raise SpecError(f"{where}: shared_bytes must be a whole number from 0 to "
                        f"{MAX_SHARED_BYTES:,} (48 KiB), got {_short(shared)}",
                        "give 48 KiB or less: more (up to 227 KiB on compute capability 9.0) "
                        "needs an opt-in graphbench does not make")
    return int(shared)


def check_stage_fields(stage, where: str) -> None:
    if not isinstance(stage.kernel, str) or not stage.kernel.isidentifier():
        raise SpecError(f"{where}: kernel must be a kernel's name, got {_short(stage.kernel)}",
                        'use Stage("kernel", args=...)')
    if stage.pdl_kernel is not None and (not isinstance(stage.pdl_kernel, str)
                                         or not stage.pdl_kernel.isidentifier()):
        raise SpecError(f"{where}: pdl_kernel must be a kernel's name or None, got "
                        f"{_short(stage.pdl_kernel)}")
    if isinstance(stage.args, (str, bytes)) or not isinstance(stage.args, Sequence):
        raise SpecError(f"{where}: args must be a tuple, got {_short(stage.args)}",
                        'give args=("x", "out", count("n"))')


FRAMEWORK_INSTALL = {"torch": install_command("torch"), "cupy": "pip install cupy-cuda13x"}


def check_callable_fields(spec, where: str) -> None:
    """A CallablePipeline's own fields, as check_pipeline_fields checks a
    kernel pipeline's: text fields printable and non-empty, lists that are
    lists, numbers that are finite, and its framework importable here."""
    import importlib.util

    if not isinstance(spec.name, str) or not spec.name.strip() or not _printable(spec.name):
        raise SpecError(f"{where}: CallablePipeline name must be a non-empty string of "
                        f"printable text, got {_short(spec.name)}")
    for name in ("stages", "arrays", "inputs", "outputs"):
        value = getattr(spec, name)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise SpecError(f"{where}: CallablePipeline {name} must be a list, got "
                            f"{_short(value)}", f"give {name}=[...]")
    for name in ("inputs", "outputs"):
        if not all(isinstance(x, str) for x in getattr(spec, name)):
            raise SpecError(f"{where}: CallablePipeline {name} must name arrays, got "
                            f"{_short(getattr(spec, name))}", f'give {name}=["x", ...]')
    if not isinstance(spec.description, str) or not _printable(spec.description):
        raise SpecError(f"{where}: CallablePipeline description must be a string, got "
                        f"{_short(spec.description)}")
    if not isinstance(spec.params, Mapping):
        raise SpecError(f"{where}: CallablePipeline params must be a dict, got "
                        f"{_short(spec.params)}")
    for name in ("rtol", "atol"):
        value = getattr(spec, name)
        if not _real(value) or not 0 <= value < math.inf:
            raise SpecError(f"{where}: CallablePipeline {name} must be a number 0 or more, got "
                            f"{_short(value)}")
    if spec.framework in FRAMEWORK_INSTALL and importlib.util.find_spec(spec.framework) is None:
        raise SpecError(f"{where}: the pipeline is {spec.framework} callables, and "
                        f"{spec.framework} is not installed", FRAMEWORK_INSTALL[spec.framework])

