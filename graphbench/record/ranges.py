"""The range of every number a record can hold, so that what is read can be
computed with and rendered: a record from elsewhere (a CI artifact) is
untrusted input. Driven by the model's type hints and the unit a field's
name states:

- a time (`us`, `*_us`, and a version-1 record's `medians`): 0, or 1e-6 to
  1e12 us (a picosecond to 11.6 days); a time per iteration below a
  picosecond is no measurement, and squares and ratios of such values
  overflow;
- seconds (`*_s`): 0, or 1e-12 to 1e6 s;
- a clock (`*_mhz`): 0, or 1e-3 to 1e6 MHz;
- a timestamp in nanoseconds (`*_ns`): 0 to 2^62;
- every other number: finite, an integer within +-2^63, and no float so
  small that it has lost precision (subnormal, below 2.2e-308).

Checked a field at a time over every object of a class (200,000 rounds'
readings in a fraction of a second); only an object that fails is walked
again, one value at a time, to name the field's path."""

from __future__ import annotations

import functools
import sys
from itertools import chain
from operator import attrgetter

from graphbench.counts import MAX_COUNT
from graphbench.errors import RecordError

MIN_US, MAX_US = 1e-6, 1e12
SMALLEST = sys.float_info.min  # below it a float is subnormal
TIME_NAMES = ("us", "medians")
# (suffix, lowest nonzero, highest, what it is): zero is always allowed, negatives never
UNITS = (("_us", MIN_US, MAX_US, "a time", "us"),
         ("_s", MIN_US / 1e6, MAX_US / 1e6, "a time", "s"),
         ("_mhz", 1e-3, 1e6, "a clock", "MHz"),
         ("_ns", 1, 2**62, "a timestamp", "ns"))


def unit_of(name: str) -> tuple | None:
    """(lowest nonzero, highest, noun, unit) of a field by its name; None: no unit."""
    if name in TIME_NAMES:
        return UNITS[0][1:]
    return next((unit[1:] for unit in UNITS if name.endswith(unit[0])), None)


def numbers_fit(name: str, values) -> bool:
    """Every number in `values` (ints and floats, no None) fits field `name`."""
    if not values:
        return True
    low, high = min(values), max(values)
    unit = unit_of(name)
    if unit is not None:
        least, most = unit[0], unit[1]
        if low >= least and high <= most:
            return True  # the common case, in C
        return low >= 0 and high <= most and all(v == 0 or v >= least for v in values)
    if low < -MAX_COUNT or high > MAX_COUNT:
        return False
    # a subnormal float lies strictly between -SMALLEST and SMALLEST, and is not 0
    return low >= SMALLEST or high <= -SMALLEST or \
        all(v == 0 or not -SMALLEST < v < SMALLEST for v in values)


def refusal(name: str, value, path: str) -> RecordError:
    """The one line for a number outside what field `name` holds."""
    unit = unit_of(name)
    if unit is not None:
        least, most, noun, symbol = unit
        return RecordError(f"{path}: {noun} of {value:.3g} {symbol}, outside what graphbench "
                           f"measures (0, or {least:g} to {most:g} {symbol})",
                           "was the record written by graphbench?")
    if isinstance(value, int):
        return RecordError(f"{path}: a whole number beyond 2^63, which no record holds")
    return RecordError(f"{path}: {value!r} is too small to compute with (subnormal)",
                       "was the record written by graphbench?")


def check_numbers(record) -> None:
    """RecordError naming the first number of `record` (a dataclass of the
    model) outside its field's range."""
    _walk(type(record), record, "", "")


def _walk(hint, value, path: str, name: str) -> None:
    """One value of type `hint`, field `name`, at `path`: every number in it checked."""
    from graphbench.record.decode import field_shapes, shape

    if value is None:
        return
    kind = shape(hint)
    if kind[0] == "union":
        real = next(o for o in kind[1] if o is not type(None))
        return _walk(real, value, path, name)
    if kind[0] == "dataclass":
        for field, field_hint in field_shapes(hint):
            _walk(field_hint, getattr(value, field), _join(path, field), field)
    elif kind[0] in ("list", "dict"):
        keys = list(value) if kind[0] == "dict" else range(len(value))
        items = list(value.values()) if kind[0] == "dict" else list(value)
        if _fits(kind[1], items, name):
            return
        for key, item in zip(keys, items):
            where = _join(path, key) if kind[0] == "dict" else f"{path}[{key}]"
            _walk(kind[1], item, where, name)
    elif type(value) in (int, float) and not numbers_fit(name, [value]):
        raise refusal(name, value, path)


def _fits(hint, items: list, name: str) -> bool:
    """Every item (of type `hint`, in field `name`) fits, checked a field at a time."""
    from graphbench.record.decode import shape

    if not items:
        return True
    kind = shape(hint)
    if kind[0] == "union":
        hint = next(o for o in kind[1] if o is not type(None))
        items = [item for item in items if item is not None]
        kind = shape(hint)
    if kind[0] == "dataclass":
        fields = _numeric_fields(hint)
        if not fields:
            return True
        # every field of an object fetched at once: one visit to each object's memory
        columns = zip(*map(attrgetter(*(name for name, _ in fields)), items)) \
            if len(fields) > 1 else [list(map(attrgetter(fields[0][0]), items))]
        return all(_fits(field_hint, list(column), field)
                   for (field, field_hint), column in zip(fields, columns))
    if kind[0] == "list":
        return _fits(kind[1], list(chain.from_iterable(items)), name)
    if kind[0] == "dict":
        return _fits(kind[1], list(chain.from_iterable(map(dict.values, items))), name)
    if hint in (int, float):
        return numbers_fit(name, items)
    return True


@functools.lru_cache(maxsize=None)
def _numeric_fields(cls) -> tuple:
    """(name, type) of the fields of `cls` that can hold a number."""
    from graphbench.record.decode import field_shapes

    return tuple((name, hint) for name, hint in field_shapes(cls) if _numeric(hint, ()))


def _numeric(hint, seen: tuple) -> bool:
    from graphbench.record.decode import field_shapes, shape

    kind = shape(hint)
    if kind[0] == "union":
        return any(_numeric(o, seen) for o in kind[1])
    if kind[0] in ("list", "dict"):
        return _numeric(kind[1], seen)
    if kind[0] == "dataclass":  # a class met again on its own path adds nothing new
        return hint not in seen and any(_numeric(h, seen + (hint,))
                                        for _, h in field_shapes(hint))
    return hint in (int, float)


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)

