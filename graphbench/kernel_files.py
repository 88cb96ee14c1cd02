"""Where graphbench's own CUDA sources are: the instrument's kernels
(harness.cu) and the built-in pipeline's (pipeline.cu), shipped in the wheel
as graphbench/kernels/ and kept in the checkout's top-level kernels/."""

from __future__ import annotations

from pathlib import Path

from graphbench.errors import CompileError

PIPELINE_FILE, HARNESS_FILE = "pipeline.cu", "harness.cu"


def kernel_dir() -> Path:
    """Where the .cu files are: inside the installed wheel, or the source tree."""
    package = Path(__file__).resolve().parent  # graphbench/
    for candidate in (package / "kernels", package.parent / "kernels"):
        if (candidate / PIPELINE_FILE).is_file():
            return candidate
    raise CompileError(f"kernel source {PIPELINE_FILE} not found next to {package}", log="",
                       remedy="reinstall graphbench from its checkout (pip install --force-reinstall .)")
