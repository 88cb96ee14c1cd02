"""Parsers for option values as users type them. They name the option in
their messages: the CLI's flag, or the Python API's keyword, which reads
text values through them too (graphbench.api)."""

from __future__ import annotations

import argparse

from graphbench.counts import parse_count
from graphbench.counts import MAX_PROCESSES, parse_processes  # noqa: F401 - the parser's, shared
from graphbench.errors import ConfigError, UsageError


def parse_positive_int(text: str, option: str) -> int:
    """Parse a CLI count; accept 1e6-style and 2^20-style forms users type."""
    value = parse_count(text, option, "a positive integer")
    if value <= 0:
        raise UsageError(f"{option} must be a positive integer, got {value}", "give 1 or more")
    return value


def _convert(text: str, option: str, convert, expected: str, example: str):
    if not text.isascii():  # float() reads fullwidth and Arabic-Indic digits too
        raise UsageError(f"{option} must be {expected} in ASCII digits, got {text!r}",
                         f"e.g. {example}")
    try:
        return convert(text.strip())
    except ValueError:
        raise UsageError(f"{option} must be {expected}, got {text!r}", f"e.g. {example}") from None


def parse_int(text: str, option: str) -> int:
    """0 or more, in the forms counts take (seeds and warm-up rounds)."""
    return parse_count(text, option)


def parse_float(text: str, option: str) -> float:
    """'1.1' or '1.1x', as speedups print."""
    return _convert(text, option, lambda t: float(t.removesuffix("x")), "a number", "1.1")


def parse_fraction(text: str, option: str) -> float:
    """'1%' or '0.01' -> 0.01."""
    return _convert(text, option, lambda t: float(t[:-1]) / 100 if t.endswith("%") else float(t),
                    "a percentage such as 1% or 0.01", "1% or 0.01")


def parse_seconds(text: str, option: str) -> float:
    return _convert(text, option, lambda t: float(t.removesuffix("s")), "a number of seconds",
                    "2 or 2s")


def parse_list(text: str, option: str = "") -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


MAX_GRID_POINTS = 1000


def parse_grid(text: str, option: str) -> tuple[int, ...]:
    """A sweep axis: '4096,65536', '2^12..2^24' (doubling) or '2^12..2^24:x4'."""
    values: list[int] = []
    for part in parse_list(text):
        values += _parse_range(part, option) if ".." in part else \
            [parse_positive_int(part, option)]
        if len(values) > MAX_GRID_POINTS:
            raise UsageError(f"{option} has more than {MAX_GRID_POINTS} values")
    if not values:
        raise UsageError(f"{option} needs at least one value, got {text!r}")
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:  # 2^20 and 1048576, or a list value inside a range: one point run twice
        raise UsageError(f"{option} names {', '.join(f'{v:,}' for v in twice)} twice",
                         "give each value once")
    return tuple(sorted(values))


def _parse_range(part: str, option: str) -> list[int]:
    span, _, step = part.partition(":")
    low_text, _, high_text = span.partition("..")
    low, high = parse_positive_int(low_text, option), parse_positive_int(high_text, option)
    factor = parse_positive_int(step.removeprefix("x"), option) if step else 2
    if low > high or factor < 2:
        raise UsageError(f"{option} range {part!r} must run upwards with a factor of 2 or more",
                         "e.g. 2^12..2^24 or 2^12..2^24:x4")
    values = [low]
    while values[-1] * factor <= high:
        values.append(values[-1] * factor)
    return values


DEVICES = "e.g. 0, 0,1 or all (nvidia-smi lists the ids)"


def parse_device_spec(text: str, option: str = "--device"):
    """'0', '0,1' or 'all' (resolved once the driver is asked)."""
    if text.strip().lower() == "all":
        return "all"
    if not parse_list(text):
        raise UsageError(f"{option} needs a device id, a list such as 0,1, or all", DEVICES)
    parts = parse_list(text)
    if any(part.startswith("-") and part[1:].isascii() and part[1:].isdigit() for part in parts):
        raise UsageError(f"{option} must be 0 or more, got {text!r}", DEVICES)
    # plain ASCII digits only: int() would also take -0, +1, 1_000 and other scripts' digits
    if not all(part.isascii() and part.isdigit() and len(part) <= 4 for part in parts):
        raise UsageError(f"{option} must be an id, a list such as 0,1, or all; got {text!r}",
                         DEVICES)
    ids = [int(part) for part in parts]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{option} names a device twice: {text!r}", DEVICES)
    return sorted(ids)


def parse_path(text: str, option: str) -> str:
    return text


def parse_record_path(text: str, option: str) -> str:
    """A record file to read: an empty path names none (it would read as the
    current folder, or as no option given at all)."""
    if text == "":
        raise UsageError(f"{option} '': the path is empty", "give a record file written "
                         "with --json")
    return text


MAX_SHAPES = 16  # each shape is a run of its own


SHAPE_EXAMPLES = {"--grid": "e.g. auto, per-element, 1056 or 8/sm", "--block": "e.g. 128, 256 or 512"}


def _shapes(text: str, option: str, read) -> tuple:
    from graphbench.launch_shape import ShapeError

    values = tuple(parse_list(text))
    if not values or len(values) > MAX_SHAPES:
        raise UsageError(f"{option} needs 1 to {MAX_SHAPES} values, got {len(values)}")
    try:
        shapes = tuple(read(v) for v in values)
    except ShapeError as exc:
        what = str(exc).removeprefix("grid ").removeprefix("block ")  # the flag names it
        raise UsageError(f"{option} {what}", exc.remedy or SHAPE_EXAMPLES[option]) from None
    twice = sorted({str(s) for s in shapes if shapes.count(s) > 1})
    if twice:  # 8/sm and 8x, or 1024 and 2^10: the same shape would run twice
        raise UsageError(f"{option} names {', '.join(twice)} twice", "give each shape once")
    return shapes


def parse_grids(text: str, option: str) -> tuple[str, ...]:
    """'auto,1056,8/sm': grids of the grid-stride stages (graphbench.launch_shape)."""
    from graphbench.launch_shape import normal_grid

    return _shapes(text, option, normal_grid)


def parse_blocks(text: str, option: str) -> tuple[int, ...]:
    """'128,256,512': threads per block, each 1 to 1024."""
    from graphbench.launch_shape import check_block

    def read(value):
        block = parse_positive_int(value, option)
        check_block(block)
        return block
    return _shapes(text, option, read)


def parse_param(text: str, option: str) -> tuple[str, str]:
    """run's 'cols=256': a pipeline() parameter's name and its value's stored
    text (graphbench.config.params); one value, so a comma outside brackets
    and quotes is refused (a tuple is written (4,8))."""
    name, values = _param_values(text, option)
    if len(values) > 1:
        raise UsageError(f"{option} {name} has {len(values)} values: a run takes one",
                         "write a tuple as (4,8); sweep --param sweeps a list")
    return name, values[0]


def parse_param_axis(text: str, option: str) -> tuple[str, tuple[str, ...]]:
    """sweep's 'cols=256,1024': a parameter and its values, each once."""
    from graphbench.config.params import shown

    name, values = _param_values(text, option)
    if twice := [v for v in dict.fromkeys(values) if values.count(v) > 1]:
        raise UsageError(f"{option} {name} names {shown(twice[0])} twice", "give each value once")
    return name, tuple(values)


def _param_values(text: str, option: str) -> tuple[str, list[str]]:
    from graphbench.config.params import EXAMPLES, check_name, typed_value, value_text

    name, equals, values = text.partition("=")
    if not equals:
        raise UsageError(f"{option} {text!r} is not NAME=VALUE", EXAMPLES)
    try:  # named by the flag here: the parser's errors are printed as they are
        name = check_name(name.strip())
        return name, [value_text(name, typed_value(name, v)) for v in split_top(values)]
    except ConfigError as exc:
        raise UsageError(f"{option} {exc.problem}", exc.remedy) from None


def split_top(text: str) -> list[str]:
    """`text` split at each comma outside brackets and quotes: '(1,2),3' is
    ['(1,2)', '3']."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


PARSERS = {"count": parse_positive_int, "int": parse_int, "float": parse_float,
           "fraction": parse_fraction, "seconds": parse_seconds, "list": parse_list,
           "grid": parse_grid, "devices": parse_device_spec, "path": parse_path,
           "grids": parse_grids, "blocks": parse_blocks, "param": parse_param,
           "params": parse_param_axis}


class StoreGiven(argparse.Action):
    """Store the value and note that the user typed the option (args.given):
    a conflict is only one when both options were typed, not defaulted."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.given = {*getattr(namespace, "given", ()), self.dest}


class StoreParam(StoreGiven):
    """--param NAME=VALUE, repeatable: each name once, in the order given."""

    repeatable = True  # a project default's list is one --param per item (project_defaults)

    def __call__(self, parser, namespace, values, option_string=None):
        name, value = values
        given = dict(getattr(namespace, self.dest, None) or {})
        if name in given:
            raise UsageError(f"{option_string} names {name} twice",
                             f"give {name} once" + (", with its values in one list"
                                                   if isinstance(value, tuple) else ""))
        super().__call__(parser, namespace, {**given, name: value}, option_string)


ADAPTIVE = ("max_noise", "min_rounds", "max_time")  # steer adaptive sampling, which rounds ends


def check_fixed_rounds(given, name=str) -> None:
    """`rounds` and a setting of ADAPTIVE both named by the user (the CLI's
    typed options, the API's keyword arguments) are refused: guessing which
    was meant would measure something not asked for. `name`: a field as
    messages name it (the CLI: its flag)."""
    for field in (f for f in ADAPTIVE if f in given and "rounds" in given):
        raise ConfigError("rounds", f"fixes the number of rounds, so {name(field)} (which steers "
                          "adaptive sampling) would be ignored; refused",
                          f"give {name('rounds')} alone, or {name(field)} without {name('rounds')}")


def check_conflicts(args) -> None:
    """Refuse options that contradict each other, named by flag: only options
    the user typed conflict, not defaults."""
    from graphbench.config import flag_for

    check_fixed_rounds(getattr(args, "given", set()), lambda name: flag_for(name) or name)
