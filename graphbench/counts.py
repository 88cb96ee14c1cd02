"""Counts as users type them: 4096, 2^20, 1e6. Shared by the command line
and the gate's --fail-on sizes; messages name the option they came from."""

from __future__ import annotations

import math
import re
import sys

from graphbench.errors import ConfigError, UsageError

MAX_COUNT = 2**63  # nothing graphbench counts comes near; larger is a typo
# Each process is a fresh interpreter, CUDA context and compile-cache load (seconds
# each: docs/measurement.md#host-side-costs): 1000 of them is half an hour of
# start-up alone, so more is a typo.
MAX_PROCESSES = 1000
EXAMPLES = "e.g. 4096, 2^20 or 1e6"
SMALLEST_NUMBER = sys.float_info.min  # below it a float is subnormal (record/ranges.py)
SCIENTIFIC = re.compile(r"[0-9]+(\.[0-9]+)?[eE][0-9]+")  # 1e6, 2.5e3: one rule, ASCII digits


def power_label(count: float, separator: str = ",") -> str:
    """A count as a reader writes it: 2^20 for a power of two, else its
    digits (12,288; separator "" where the label must parse back as a count)."""
    whole = int(count)
    if whole == count and whole > 0 and whole & (whole - 1) == 0:
        return f"2^{whole.bit_length() - 1}"
    return f"{count:{separator}.0f}"


def parse_count(text: str, option: str, expected: str = "a whole number") -> int:
    """A whole number of 0 or more: 4096, 2^20, 1e6. Digits only, no sign, and
    never a huge intermediate: 9^999999999 is refused, not computed."""
    raw = text.strip()
    try:
        if "^" in raw:
            base, exponent = (int(part, 10) for part in _digits(raw.split("^", 1)))
            if base == exponent == 0:  # Python says 1; no count is meant by it
                raise UsageError(f"{option} {shown(text, quote=False)} has no value (0^0)", EXAMPLES)
            if base > 1 and exponent * math.log2(base) > 64:
                raise UsageError(f"{option} {shown(text, quote=False)} is far too large", EXAMPLES)
            value = base ** exponent
        elif "e" in raw.lower():
            # float() also reads fullwidth and Arabic-Indic digits; counts take ASCII only
            if not SCIENTIFIC.fullmatch(raw):
                raise ValueError
            number = float(raw)
            if not number.is_integer() or number < 0:
                raise ValueError
            value = int(number)
        else:
            value = int(_digits([raw])[0], 10)
    except (ValueError, OverflowError):  # 1e999 is inf: OverflowError from int()
        raise UsageError(f"{option} must be {expected}, got {shown(text)}", EXAMPLES) from None
    if value > MAX_COUNT:
        raise UsageError(f"{option} {shown(text, quote=False)} is far too large", EXAMPLES)
    return value


def shown(text: str, quote: bool = True) -> str:
    """A user's text in a one-line message, cut short past 60 characters
    (a 5,000-digit count is not echoed whole)."""
    if len(text) <= 60:
        return repr(text) if quote else text
    return f"{text[:40]!r}... ({len(text):,} characters)"


def parse_processes(value: int | str, option: str = "--processes") -> int:
    """A count of fresh processes, 1 to MAX_PROCESSES, typed as a count
    ("3", "2^2") or given as an int: the one check of --processes, the
    API's processes= and the pytest plugin's --graphbench-processes."""
    remedy = "e.g. 3: a baseline the gate can judge needs 3 or more"
    try:
        number = parse_count(value, option, "a positive integer") if isinstance(value, str) else value
    except UsageError as exc:
        raise UsageError(exc.message, remedy) from None
    if isinstance(number, bool) or not isinstance(number, int):
        raise UsageError(f"{option} must be a positive integer, got {value!r}", remedy)
    if number <= 0:
        raise UsageError(f"{option} must be a positive integer, got {number}", remedy)
    if number > MAX_PROCESSES:
        shown = value if isinstance(value, str) or number < 10**30 else "given"
        raise UsageError(f"{option} {shown} is more than {MAX_PROCESSES} processes",
                         "each one starts a fresh interpreter and CUDA context; "
                         "use a few (3 to 10) for a baseline")
    return number


def _digits(parts: list[str]) -> list[str]:
    if not all(part.isdigit() and part.isascii() for part in parts):
        raise ValueError
    return parts


def require_positive(name: str, value: int) -> None:
    """A configuration's count (named by its field) of 1 or more."""
    if value <= 0:
        raise ConfigError(name, f"must be a positive integer, got {value}", "give 1 or more")


def require_normal(name: str, value: float) -> None:
    """A configuration's positive number too small for a float to hold at full
    precision (subnormal: 5e-324, 1e-310) is refused, as a record holding it is."""
    if 0 < value < SMALLEST_NUMBER:
        raise ConfigError(name, f"is {value!r}, too small to compute with (subnormal)",
                          f"the smallest accepted is {SMALLEST_NUMBER:.4g}")
