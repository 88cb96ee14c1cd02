"""Where graphbench's own CUDA sources are: the instrument's kernels
(harness.cu) and the built-in pipeline's (pipeline.cu), shipped in the wheel
as graphbench/kernels/ and kept in the checkout's top-level kernels/."""

from __future__ import annotations

from pathlib import Path

from graphbench.errors import CompileError, UsageError

PIPELINE_FILE, HARNESS_FILE = "pipeline.cu", "harness.cu"
# far beyond any kernel source; a stream such as /dev/zero is cut off here, not read to the end
MAX_SOURCE_BYTES = 16 << 20


def kernel_dir() -> Path:
    """Where the .cu files are: inside the installed wheel, or the source tree."""
    package = Path(__file__).resolve().parent  # graphbench/
    for candidate in (package / "kernels", package.parent / "kernels"):
        if (candidate / PIPELINE_FILE).is_file():
            return candidate
    raise CompileError(f"kernel source {PIPELINE_FILE} not found next to {package}", log="",
                       remedy="reinstall graphbench from its checkout (pip install --force-reinstall .)")


def read_source(path: Path, what: str) -> str:
    """A user's CUDA source file as text: at most MAX_SOURCE_BYTES, UTF-8,
    not empty. UsageError naming `what` otherwise."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a name the OS cannot encode
        raise UsageError(f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}",
                         "give a CUDA C++ source file") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise UsageError(f"{what} is larger than {MAX_SOURCE_BYTES >> 20} MiB: no kernel source is",
                         "give a CUDA C++ source file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{what} is not a UTF-8 text file", "give a CUDA C++ source file") from None
    if not text.strip():
        raise UsageError(f"{what} is empty", "give a CUDA C++ source file with the kernels")
    return text
