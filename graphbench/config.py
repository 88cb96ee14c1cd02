"""The validated, frozen run configuration and the parsers that build it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from graphbench.errors import UsageError

ALL_MODES = ("individual", "graph", "fused")
BLOCK_SIZE = 256
TOLERANCE = 1e-5  # rtol = atol for float32 values of order one


@dataclass(frozen=True)
class RunConfig:
    elements: int = 4096
    iters: int = 1000
    device: int = 0
    seed: int = 0
    rounds: int | None = None  # None: adaptive, stop on the noise target
    max_noise: float = 0.01
    min_rounds: int = 10
    max_time: float = 2.0
    warmup_rounds: int = 1
    flush_l2: bool = False
    kernel_source: str | None = None  # a .cu file replacing the shipped kernels
    modes: tuple[str, ...] = ALL_MODES
    block_size: int = BLOCK_SIZE
    rtol: float = TOLERANCE
    atol: float = TOLERANCE

    def __post_init__(self) -> None:
        for name in ("elements", "iters", "min_rounds"):
            _require_positive(name, getattr(self, name))
        if self.rounds is not None:
            _require_positive("rounds", self.rounds)
        if not 0 < self.max_noise < 1:
            raise UsageError(f"--max-noise must be between 0% and 100%, got {self.max_noise:.2%}")
        if not self.max_time > 0:
            raise UsageError(f"--max-time must be positive seconds, got {self.max_time}")
        if self.device < 0:
            raise UsageError(f"--device must be 0 or more, got {self.device}")
        if self.warmup_rounds < 0:
            raise UsageError(f"--warmup must be 0 or more, got {self.warmup_rounds}")
        unknown = [m for m in self.modes if m not in ALL_MODES]
        if unknown or not self.modes:
            raise UsageError(
                f"unknown mode(s) {', '.join(unknown) or '(none)'}",
                f"choose from {', '.join(ALL_MODES)}",
            )
        if "graph" in self.modes and "individual" not in self.modes:
            # The speedup and the graph's replay checks need both.
            raise UsageError("--modes with graph also needs individual")

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["modes"] = list(self.modes)
        return data


def _require_positive(name: str, value: int) -> None:
    if value <= 0:
        raise UsageError(f"--{name} must be a positive integer, got {value}")


def parse_positive_int(text: str, option: str) -> int:
    """Parse a CLI count; accept 1e6-style and 2^20-style forms users type."""
    value = _parse_int(text.strip(), option)
    _require_positive(option.lstrip("-"), value)
    return value


def _parse_int(text: str, option: str) -> int:
    try:
        if "^" in text:
            base, exponent = text.split("^", 1)
            return int(base) ** int(exponent)
        if "e" in text.lower():
            number = float(text)
            if number != int(number):
                raise ValueError
            return int(number)
        return int(text, 10)
    except (ValueError, OverflowError):
        raise UsageError(f"{option} must be a positive integer, got {text!r}") from None


def parse_fraction(text: str, option: str) -> float:
    """'1%' or '0.01' -> 0.01."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise UsageError(f"{option} must be a percentage such as 1% or 0.01, got {text!r}") from None
    return value


def parse_seconds(text: str, option: str) -> float:
    try:
        return float(text.strip().removesuffix("s"))
    except ValueError:
        raise UsageError(f"{option} must be a number of seconds, got {text!r}") from None


def parse_modes(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
