"""Load the CUDA sources shipped with graphbench and compile them with NVRTC.

Two sources: pipeline.cu holds the kernels under test (a user may swap it for
a variant with --kernel-source); harness.cu holds the instrument's own kernels
(the launch-floor kernel and the GPU hold before a timed replay), always the
shipped ones so a variant cannot change how it is measured.

Compilation needs no GPU: NVRTC compiles for a named arch (sm_90, ...). The
compiled cubin is cached on disk with cuda.core's own FileStreamProgramCache,
so a second run skips NVRTC entirely.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from graphbench.errors import CompileError, UsageError
from graphbench.kernel_files import HARNESS_FILE, PIPELINE_FILE, kernel_dir, read_source  # noqa: F401

EMPTY_KERNEL, HOLD_KERNEL, PROBE_KERNEL = "empty", "hold", "probe_launch"
LOOP_RESET_KERNEL, LOOP_COUNT_KERNEL = "loop_reset", "loop_count"
L2_FLUSH_KERNEL = "l2_flush"
REF_STREAM_KERNEL, REF_COMPUTE_KERNEL = "ref_stream", "ref_compute"
HARNESS_KERNELS = (EMPTY_KERNEL, HOLD_KERNEL, PROBE_KERNEL, LOOP_RESET_KERNEL, LOOP_COUNT_KERNEL,
                   L2_FLUSH_KERNEL, REF_STREAM_KERNEL, REF_COMPUTE_KERNEL)
CACHE_ENV = "GRAPHBENCH_CACHE_DIR"


def load_source(path: str | None = None, option: str = "--kernel-source") -> str:
    """The shipped kernels, or a user's variant of them (`option`: the flag
    that named it, --kernel-source or --ab, for messages)."""
    from graphbench.record.files import check_not_waiting

    if path is None:
        return (kernel_dir() / PIPELINE_FILE).read_text(encoding="utf-8")
    if not path.strip() or "\0" in path or len(path) > 4096:
        raise UsageError(f"{option} {path[:60]!r} names no file", "give a CUDA C++ source file")
    shown = path if path.isprintable() else repr(path)  # a newline would break the one line
    check_not_waiting(path, option)  # a FIFO nothing writes to: read, it would never end
    return read_source(Path(path), f"{option} {shown}")


def load_harness_source() -> str:
    return (kernel_dir() / HARNESS_FILE).read_text(encoding="utf-8")


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def validate_arch(arch: str) -> str:
    """sm_NN[a|f] that this NVRTC compiles for, refused before NVRTC's own log."""
    match = re.fullmatch(r"sm_(\d{2,3})[af]?", arch, re.ASCII)  # \d alone takes ９ too
    if not match:
        raise UsageError(f"--arch must look like sm_90, got {arch[:40]!r}")
    known = supported_archs()
    if known and int(match.group(1)) not in known:
        raise UsageError(f"--arch {arch}: this NVRTC compiles for "
                         f"{', '.join(f'sm_{a}' for a in known)}", "choose one of them")
    return arch


def supported_archs() -> list[int]:
    """The archs NVRTC knows (nvrtcGetSupportedArchs); [] when it cannot say."""
    try:
        from cuda.bindings import nvrtc

        status, archs = nvrtc.nvrtcGetSupportedArchs()
        return sorted(int(a) for a in archs) if int(status) == 0 else []
    except Exception:  # an older binding without the call: NVRTC's own error remains
        return []


def default_cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "graphbench" / "programs"


INCLUDE = re.compile(r'^\s*#\s*include\s+"(graphbench_[a-z_]+\.cuh)"', re.MULTILINE)


def expand_includes(source: str) -> str:
    """Sources may #include graphbench's own headers (graphbench_pdl.cuh);
    they are pasted in here, so the compile cache's key is the whole text."""
    def paste(match) -> str:
        path = kernel_dir() / match.group(1)
        if not path.is_file():
            raise CompileError(f"#include \"{match.group(1)}\": graphbench has no such header",
                               log="", remedy="graphbench ships graphbench_pdl.cuh")
        return path.read_text(encoding="utf-8")
    return INCLUDE.sub(paste, source)


def _program(source: str, arch: str, verbose_ptxas: bool):
    from cuda.core import Program, ProgramOptions

    source = expand_includes(source)
    options = ProgramOptions(arch=arch, std="c++17",
                             ptxas_options="-v" if verbose_ptxas else None)
    return Program(source, "c++", options)


def compile_cubin(source: str, arch: str, cache_dir: Path | None = None, label: str = ""):
    """Compile `source` to a cubin ObjectCode, through the on-disk cache.
    label: what the source is (--kernel-source x.cu), for the error."""
    from cuda.core.utils import FileStreamProgramCache

    where = cache_dir or default_cache_dir()
    try:
        cache = FileStreamProgramCache(where)
    except OSError as exc:  # GRAPHBENCH_CACHE_DIR or XDG_CACHE_HOME pointing somewhere unusable
        raise UsageError(f"cannot use the compile cache {where}: {exc.strerror or exc}",
                         f"set {CACHE_ENV} to a folder graphbench may write") from None
    try:
        return _compile(_program(source, arch, False), arch, label, cache=cache)
    finally:
        close = getattr(cache, "close", None)
        if close:
            close()


def _compile(program, arch: str, label: str = "", **kwargs):
    from cuda.core._utils.cuda_utils import CUDAError

    try:
        return program.compile("cubin", **kwargs)
    except CUDAError as exc:
        raise CompileError(f"NVRTC could not compile {label or 'the kernels'} for {arch}",
                           log=str(exc), remedy="the compiler log follows") from None


@dataclass(frozen=True)
class KernelResources:
    name: str
    registers: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int


def compile_report(arch: str, source: str, required) -> list[KernelResources]:
    """Compile the pipeline and harness sources without the cache (a cache hit
    writes no ptxas log) and parse per-kernel register and spill counts from
    `ptxas -v`. `required`: the kernels the pipeline's stages name."""
    arch = validate_arch(arch)
    pipeline = _resources(source, arch)
    missing = [name for name in dict.fromkeys(required)
               if name not in {k.name for k in pipeline}]
    if missing:  # the same rule `run` applies when it looks the kernels up
        raise UsageError(f"the kernel source defines no kernel named {', '.join(missing)}",
                         "the pipeline's stages name them; define them as "
                         "extern \"C\" __global__")
    return pipeline + _resources(load_harness_source(), arch)


def _resources(text: str, arch: str) -> list[KernelResources]:
    log = io.StringIO()
    _compile(_program(text, arch, True), arch, logs=log)
    return parse_ptxas_log(log.getvalue())


_ENTRY = re.compile(r"Compiling entry function '(\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")


def parse_ptxas_log(text: str) -> list[KernelResources]:
    kernels, current, frame = [], None, (0, 0, 0)
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
        elif (m := _FRAME.search(line)) and current:
            frame = tuple(int(g) for g in m.groups())
        elif (m := _REGS.search(line)) and current:
            stack, stores, loads = frame
            kernels.append(KernelResources(current, int(m.group(1)), stores, loads, stack))
            current, frame = None, (0, 0, 0)
    return kernels
