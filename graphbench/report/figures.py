"""What every picture graphbench writes shares: the output path's check,
the axes' tick values and labels. The SVG and the matplotlib PNG of one
chart read these, so the two show the same titles, ticks and labels."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

from graphbench.errors import UsageError

SUFFIXES = (".svg", ".png")


def check_figure_path(path: str, flag: str, noun: str) -> None:
    """UsageError now, before any GPU work, for a picture that could not be
    written later: an unknown suffix, or a PNG without matplotlib."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"{flag} {path}: the file must end in .svg or .png")
    if suffix == ".png":
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError(f"PNG {noun} need matplotlib",
                             "pip install matplotlib, or write an .svg instead") from None


def write_figure(path: str, svg: Callable[[], str], png: Callable[[Path], None]) -> Path:
    """A picture as SVG or PNG, chosen by the file's suffix (its path checked
    before any work by check_figure_path), its folder made if missing."""
    from graphbench.record.files import write_text_atomic

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.suffix.lower() == ".svg":
        write_text_atomic(target, svg())
    else:
        png(target)
    return target


def save_png(figure, path) -> None:
    """A matplotlib figure as PNG, written as every output is (atomically,
    OutputError when it cannot be), and closed."""
    import io

    import matplotlib.pyplot as plt

    from graphbench.record.files import write_bytes_atomic

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=110)
    finally:
        plt.close(figure)
    write_bytes_atomic(path, buffer.getvalue())


def nice_ticks(low: float, high: float, log: bool) -> list[float]:
    """Round tick values inside [low, high] (data units): 4 to 10 steps of
    1, 2 or 5 times a power of ten; on a log axis spanning more than half a
    decade, 1, 2 and 5 times each power of ten (the powers alone past two
    decades)."""
    if not high > low:
        return [low]
    span = math.log10(high / low) if log and low > 0 else 0.0
    if span > 0.5:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        steps = (1, 2, 5) if span <= 2 else (1,)
        return [m * 10.0 ** e for e in range(first, last + 1) for m in steps
                if low <= m * 10.0 ** e <= high]
    power = 10.0 ** math.floor(math.log10(high - low))
    for step in (m * power for m in (5, 2, 1, 0.5, 0.2, 0.1)):
        start = math.ceil(low / step) * step
        ticks = [round(start + i * step, 12) for i in range(int((high - start) / step + 1e-9) + 1)]
        if len(ticks) >= 4:
            return ticks
    return ticks


def tick_text(value: float) -> str:
    """A tick as a reader writes it: 0.5, 2, 1000, 20000 (no exponent forms)."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.6g}"


def y_label(unit: str, log: bool) -> str:
    return {"us": "us per iteration", "speedup": "speedup (x)"}.get(unit, unit) + \
        (" (log scale)" if log else "")
