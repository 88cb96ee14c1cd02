"""The validated, frozen run configuration and the parsers that build it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from graphbench.errors import UsageError
from graphbench.stages import DEFAULT_STAGES, STAGE_TABLE, expand, is_default_chain

ALL_MODES = ("individual", "graph", "fused")
BLOCK_SIZE = 256
TOLERANCE = 1e-5  # rtol = atol for float32 values of order one


@dataclass(frozen=True)
class RunConfig:
    elements: int = 4096
    iters: int | None = 1000  # None: chosen so one round lasts about 10 ms
    stages: tuple[str, ...] = DEFAULT_STAGES
    depth: int = 1
    device: int = 0
    seed: int = 0
    rounds: int | None = None  # None: adaptive, stop on the noise target
    max_noise: float = 0.01
    min_rounds: int = 10
    max_time: float = 2.0
    warmup_rounds: int = 1
    flush_l2: bool = False
    kernel_source: str | None = None  # a .cu file replacing the shipped kernels
    pin_cpu: bool = True  # pin the launching thread to one CPU near the GPU
    modes: tuple[str, ...] | None = None  # None: every mode this pipeline has
    block_size: int = BLOCK_SIZE
    rtol: float = TOLERANCE
    atol: float = TOLERANCE

    def __post_init__(self) -> None:
        for name in ("elements", "min_rounds", "depth"):
            _require_positive(name, getattr(self, name))
        for name in ("iters", "rounds"):
            if getattr(self, name) is not None:
                _require_positive(name, getattr(self, name))
        unknown_stages = [s for s in self.stages if s not in STAGE_TABLE]
        if unknown_stages or not self.stages:
            raise UsageError(f"unknown stage(s) {', '.join(unknown_stages) or '(none)'}",
                             f"--stages takes a list of {', '.join(STAGE_TABLE)}")
        if not 0 < self.max_noise < 1:
            raise UsageError(f"--max-noise must be between 0% and 100%, got {self.max_noise:.2%}")
        if not self.max_time > 0:
            raise UsageError(f"--max-time must be positive seconds, got {self.max_time}")
        if self.device < 0:
            raise UsageError(f"--device must be 0 or more, got {self.device}")
        if self.warmup_rounds < 0:
            raise UsageError(f"--warmup must be 0 or more, got {self.warmup_rounds}")
        if self.modes is not None:
            self._check_modes(self.modes)

    def _check_modes(self, modes) -> None:
        unknown = [m for m in modes if m not in ALL_MODES]
        if unknown or not modes:
            raise UsageError(f"unknown mode(s) {', '.join(unknown) or '(none)'}",
                             f"choose from {', '.join(ALL_MODES)}")
        if "graph" in modes and "individual" not in modes:
            # The speedup and the graph's replay checks need both.
            raise UsageError("--modes with graph also needs individual")
        if "fused" in modes and not self.fused_available:
            raise UsageError("the fused mode exists only for the add,mul,sub pipeline at depth 1",
                             "leave fused out of --modes")

    @property
    def fused_available(self) -> bool:
        return is_default_chain(expand(self.stages, self.depth))

    @property
    def run_modes(self) -> tuple[str, ...]:
        if self.modes is not None:
            return self.modes
        return ALL_MODES if self.fused_available else ("individual", "graph")

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data.update(modes=list(self.run_modes), stages=list(self.stages))
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


def parse_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parse_grid(text: str, option: str) -> list[int]:
    """A sweep axis: '4096,65536', '2^12..2^24' (doubling) or '2^12..2^24:x4'."""
    values: set[int] = set()
    for part in parse_list(text):
        if ".." in part:
            values.update(_parse_range(part, option))
        else:
            values.add(parse_positive_int(part, option))
    if not values:
        raise UsageError(f"{option} needs at least one value, got {text!r}")
    return sorted(values)


def _parse_range(part: str, option: str) -> list[int]:
    span, _, step = part.partition(":")
    low_text, _, high_text = span.partition("..")
    low, high = parse_positive_int(low_text, option), parse_positive_int(high_text, option)
    factor = parse_positive_int(step.lstrip("x"), option) if step else 2
    if low > high or factor < 2:
        raise UsageError(f"{option} range {part!r} must run upwards with a factor of 2 or more",
                         "e.g. 2^12..2^24 or 2^12..2^24:x4")
    values = [low]
    while values[-1] * factor <= high:
        values.append(values[-1] * factor)
    return values
