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

import numpy as np

from graphbench.counts import MAX_COUNT
from graphbench.record.columns import Columns, floats, made_columns, made_round_array
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
        return RecordError(f"{path}: {noun} of {_number(value)} {symbol}, outside what graphbench "
                           f"measures (0, or {least:g} to {most:g} {symbol})",
                           "was the record written by graphbench?")
    if isinstance(value, int):
        return RecordError(f"{path}: a whole number beyond 2^63, which no record holds")
    return RecordError(f"{path}: {value!r} is too small to compute with (subnormal)",
                       "was the record written by graphbench?")


def _number(value) -> str:
    """A number as the refusal shows it: 3 significant digits, or the digit
    count of an integer too large for a float (10**400)."""
    try:
        return f"{value:.3g}"
    except OverflowError:
        return f"a {len(str(abs(value))):,}-digit number" if abs(value) < 10 ** 4000 \
            else "a number of thousands of digits"


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
            made = made_columns(value, field)
            if made is None or not _columns_fit(shape(field_hint)[1], made):
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
        if hint is float:  # None is NaN in the array, and left out there
            return floats_fit(name, items)
        items = [item for item in items if item is not None]
        kind = shape(hint)
    if kind[0] == "dataclass":
        fields = _numeric_fields(hint)
        if not fields:
            return True
        return all(_field_fits(field, field_hint, items) for field, field_hint in fields)
    if kind[0] == "list":
        return _fits(kind[1], list(chain.from_iterable(items)), name)
    if kind[0] == "dict":
        return _fits(kind[1], list(chain.from_iterable(map(dict.values, items))), name)
    if hint is float:
        return floats_fit(name, items)
    if hint is int:
        return numbers_fit(name, items)
    return True


def floats_fit(name: str, items) -> bool:
    """numbers_fit for a field of floats (None left out), in numpy: every
    value read into a float field is a float, so the array holds them exactly."""
    values = items if isinstance(items, np.ndarray) else floats(items)
    values = values[~np.isnan(values)]
    if values.size < 64:
        return numbers_fit(name, values.tolist())
    low, high, unit = values.min(), values.max(), unit_of(name)
    if unit is not None:
        if low >= unit[0] and high <= unit[1]:
            return True
        return bool(low >= 0 and high <= unit[1] and np.all((values == 0) | (values >= unit[0])))
    if low < -MAX_COUNT or high > MAX_COUNT:
        return False
    return bool(low >= SMALLEST or high <= -SMALLEST or
                np.all((values == 0) | (values <= -SMALLEST) | (values >= SMALLEST)))


def _field_fits(field: str, hint, items: list) -> bool:
    """Field `field` of every item fits: from the items' columns where they
    are made (a process's conditions: made_columns), else fetched here."""
    from graphbench.record.decode import shape

    if items and made_columns(items[0], field) is not None:
        tables = [made_columns(item, field) for item in items]
        if all(table is not None for table in tables):
            return all(_columns_fit(shape(hint)[1], table) for table in tables)
    arrays = [made_round_array(item, field) for item in items]  # the modes' rounds
    if items and all(array is not None for array in arrays):
        return floats_fit(field, np.concatenate(arrays))
    return _fits(hint, list(map(attrgetter(field), items)), field)


def _columns_fit(cls, columns: Columns) -> bool:
    """Every number of objects of `cls` fits, read from their columns
    (graphbench.record.columns): a dict field's readings key by key."""
    from graphbench.record.decode import shape

    for name, hint in _numeric_fields(cls):
        kind = shape(hint)
        if kind[0] == "dict":
            if not all(_columns_fit(kind[1], table) for table in getattr(columns, name).values()):
                return False
        elif not _column_fits(hint, name, columns):
            return False
    return True


def _column_fits(hint, name: str, table) -> bool:
    """One plain field (`hint`: a number, or one or None) of a table's objects fits."""
    from graphbench.record.decode import shape

    kind = shape(hint)
    real = next(o for o in kind[1] if o is not type(None)) if kind[0] == "union" else hint
    if real is float:
        return floats_fit(name, table.column(name))
    return _fits(hint, table.values(name), name)


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

