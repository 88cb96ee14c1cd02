"""Parsers for option values as users type them. They name the flag in
their messages, which is why they live in the CLI layer."""

from __future__ import annotations

from graphbench.counts import parse_count
from graphbench.errors import UsageError


def parse_positive_int(text: str, option: str) -> int:
    """Parse a CLI count; accept 1e6-style and 2^20-style forms users type."""
    value = parse_count(text, option, "a positive integer")
    if value <= 0:
        raise UsageError(f"{option} must be a positive integer, got {value}")
    return value


def _convert(text: str, option: str, convert, expected: str):
    try:
        return convert(text.strip())
    except ValueError:
        raise UsageError(f"{option} must be {expected}, got {text!r}") from None


def parse_int(text: str, option: str) -> int:
    """0 or more, in the forms counts take (seeds and warm-up rounds)."""
    return parse_count(text, option)


def parse_float(text: str, option: str) -> float:
    """'1.1' or '1.1x', as speedups print."""
    return _convert(text, option, lambda t: float(t.removesuffix("x")), "a number")


def parse_fraction(text: str, option: str) -> float:
    """'1%' or '0.01' -> 0.01."""
    return _convert(text, option, lambda t: float(t[:-1]) / 100 if t.endswith("%") else float(t),
                    "a percentage such as 1% or 0.01")


def parse_seconds(text: str, option: str) -> float:
    return _convert(text, option, lambda t: float(t.removesuffix("s")), "a number of seconds")


def parse_list(text: str, option: str = "") -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


MAX_GRID_POINTS = 1000


def parse_grid(text: str, option: str) -> tuple[int, ...]:
    """A sweep axis: '4096,65536', '2^12..2^24' (doubling) or '2^12..2^24:x4'."""
    values: set[int] = set()
    for part in parse_list(text):
        if ".." in part:
            values.update(_parse_range(part, option))
        else:
            values.add(parse_positive_int(part, option))
        if len(values) > MAX_GRID_POINTS:
            raise UsageError(f"{option} has more than {MAX_GRID_POINTS} values")
    if not values:
        raise UsageError(f"{option} needs at least one value, got {text!r}")
    return tuple(sorted(values))


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


def parse_device_spec(text: str, option: str = "--device"):
    """'0', '0,1' or 'all' (resolved once the driver is asked)."""
    if text.strip().lower() == "all":
        return "all"
    if not parse_list(text):
        raise UsageError(f"{option} needs a device id, a list such as 0,1, or all")
    try:
        ids = [int(part) for part in parse_list(text)]
    except ValueError:
        raise UsageError(f"{option} must be an id, a list such as 0,1, or all; got {text!r}") from None
    if not ids or min(ids) < 0:
        raise UsageError(f"{option} must be 0 or more, got {text!r}")
    return sorted(set(ids))


def parse_path(text: str, option: str) -> str:
    return text


PARSERS = {"count": parse_positive_int, "int": parse_int, "float": parse_float,
           "fraction": parse_fraction, "seconds": parse_seconds, "list": parse_list,
           "grid": parse_grid, "devices": parse_device_spec, "path": parse_path}
