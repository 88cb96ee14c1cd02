"""Columnar views of a process's readings: the numbers of every set of
rounds' conditions as read-only numpy arrays, one per field of each
workload's (busy, reference) or mode's (submit) readings, made in one walk
over the conditions and kept on the process (a record never changes).
Statistics over 200,000 sets of rounds then read arrays instead of walking
millions of Python objects again and again."""

from __future__ import annotations

from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Sequence

import numpy as np

_KEY = "_columns"  # where a process keeps its columns


def frozen(values) -> np.ndarray:
    """`values` as a read-only array of floats (None as NaN)."""
    array = floats(values)
    array.flags.writeable = False
    return array


def floats(values) -> np.ndarray:
    """A sequence of numbers as a new array of floats, None as NaN (read
    element by element when it holds no None: twice as fast as np.array)."""
    if isinstance(values, np.ndarray):
        return np.array(values, dtype=float)
    try:
        return np.fromiter(values, float, len(values))
    except TypeError:  # a None among them
        return np.array(values, dtype=float)


class _Table:
    """Objects of one kind (readings, or conditions) whose fields are read a
    column at a time; each column is made when first asked for."""

    def __init__(self, items: Sequence):
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def values(self, name: str) -> list:
        """Field `name` of every object, as it is (None where the object lacks
        it), fetched once."""
        cache = self.__dict__.setdefault("_fetched", {})
        if name not in cache:
            try:
                cache[name] = list(map(attrgetter(name), self.items))
            except AttributeError:
                cache[name] = [getattr(item, name, None) for item in self.items]
        return cache[name]

    def column(self, name: str) -> np.ndarray:
        """Field `name` of every object as floats: None (or no such field) as NaN, True as 1."""
        cache = self.__dict__.setdefault("_made", {})
        if name not in cache:
            cache[name] = self._floats(name)
        return cache[name]

    def _floats(self, name: str) -> np.ndarray:
        """Field `name` read straight into floats, when every object has it
        and none is None; else through values()."""
        if name not in self.__dict__.get("_fetched", {}):
            try:
                array = np.fromiter(map(attrgetter(name), self.items), float, len(self.items))
            except (AttributeError, TypeError):  # a None, or an object without it
                pass
            else:
                array.flags.writeable = False
                return array
        return frozen(self.values(name))


class Readings(_Table):
    """One workload's or mode's readings, in the order of the sets that have one."""

    def __init__(self, items: list, sets: np.ndarray):
        super().__init__(items)
        self.sets = sets

    @cached_property
    def us(self) -> np.ndarray:
        return self.column("us")

    @cached_property
    def clocks(self) -> np.ndarray:
        """The SM clock each reading measured, where it did (a truthy clock), in order."""
        clock = self.column("sm_clock_mhz")
        return frozen(clock[~np.isnan(clock) & (clock != 0)])

    @cached_property
    def uncovered(self) -> int:
        """Readings whose hold ended before the host had queued the work."""
        return self.values("covered").count(False)  # False (or 0): not None


class Columns(_Table):
    """A sequence of conditions (sets of rounds), and their readings by
    workload (busy, reference) or mode (submit): `tables` gives those
    already made (joined), the rest are made when first asked for."""

    def __init__(self, conditions: Sequence, tables: dict | None = None):
        super().__init__(conditions)
        self.count = len(conditions)
        self.__dict__.update(tables or {})

    @cached_property
    def busy(self) -> dict[str, Readings]:
        return by_key(self.values("busy"))

    @cached_property
    def submit(self) -> dict[str, Readings]:
        return by_key(self.values("submit"))

    @cached_property
    def reference(self) -> dict[str, Readings]:
        return by_key(self.values("reference"))

    def every_reading(self) -> list[Readings]:
        """The busy and submit readings (what the hold kernel covers)."""
        return [*self.busy.values(), *self.submit.values()]


def by_key(dicts: list[dict]) -> dict[str, Readings]:
    """The values of each key over a list of dicts (one per set of rounds),
    with the indices of the sets that have it; the first dict's keys first."""
    first = list(dicts[0]) if dicts else []
    if first and list(chain.from_iterable(dicts)) == first * len(dicts):
        # the common case, every dict with the same keys in the same order:
        # every value in one walk, each key's every width-th from its place
        flat, width = list(chain.from_iterable(map(dict.values, dicts))), len(first)
        every = np.arange(len(dicts))
        return {key: Readings(flat[i::width], every) for i, key in enumerate(first)}
    keys = set().union(*dicts)
    out = {}
    for key in first + sorted(keys.difference(first)):
        sets = [i for i, d in enumerate(dicts) if key in d]
        out[key] = Readings([dicts[i][key] for i in sets], np.array(sets, dtype=int))
    return out


def columns_of(conditions: Sequence) -> Columns:
    """The columns of a sequence of conditions (graphbench.record.readings)."""
    return Columns(conditions)


def run_columns(run) -> Columns:
    """The columns of one process's conditions, made once per process."""
    found = run.__dict__.get(_KEY)
    if found is None:
        found = run.__dict__[_KEY] = columns_of(run.conditions)
    return found


def made_columns(value, field: str) -> Columns | None:
    """The columns of a process's `field` (its conditions) when they are
    made (run_columns), for a range check to read; None otherwise."""
    found = getattr(value, "__dict__", {}).get(_KEY) if field == "conditions" else None
    return found if isinstance(found, Columns) else None


def joined(parts: Sequence[Columns]) -> Columns:
    """The columns of several processes' conditions, one after another."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [part.count for part in parts])
    conditions = tuple(c for part in parts for c in part.items)
    return Columns(conditions, {name: _joined([getattr(part, name) for part in parts], offsets)
                                for name in ("busy", "submit", "reference")})


def _joined(tables: list[dict[str, Readings]], offsets) -> dict[str, Readings]:
    keys = dict.fromkeys(chain.from_iterable(tables))
    return {key: Readings([item for table in tables for item in table.get(key, _NONE).items],
                          np.concatenate([table[key].sets + offset for table, offset
                                          in zip(tables, offsets) if key in table]))
            for key in keys}


_NONE = Readings([], np.zeros(0, dtype=int))


def round_array(samples, metric: str) -> np.ndarray:
    """One metric's rounds of one mode in one process (a ModeSamples) as a
    read-only array, made once per process and metric."""
    cache = samples.__dict__.setdefault(_KEY, {})
    if metric not in cache:
        cache[metric] = frozen(getattr(samples, f"{metric}_us"))
    return cache[metric]


def made_round_array(samples, field: str) -> np.ndarray | None:
    """A ModeSamples' series `field` (wall_us, ...) as round_array made it,
    if it did, for a range check to read; None otherwise."""
    cache = getattr(samples, "__dict__", {}).get(_KEY)
    found = cache.get(field.removesuffix("_us")) if isinstance(cache, dict) else None
    return found if field.endswith("_us") else None


def busy_array(readings: Readings | None, metric: str) -> np.ndarray:
    """A workload's busy times ("busy"), or its busy times in SM cycles at
    the clock the hold measured, where it did ("cycles")."""
    if readings is None:
        return frozen(())
    if metric == "busy":
        return readings.us
    clock = readings.column("sm_clock_mhz")
    measured = ~np.isnan(clock) & (clock != 0)
    return frozen(readings.us[measured] * clock[measured])


def relative_busy(busy: Readings | None, reference: Readings | None) -> np.ndarray:
    """Busy time over the GPU reference's reading of the same set, in the
    sets that have both and a reference above 0."""
    if busy is None or reference is None:
        return frozen(())
    _, mine, theirs = np.intersect1d(busy.sets, reference.sets, assume_unique=True,
                                     return_indices=True)
    over = reference.us[theirs]
    kept = over > 0
    return frozen(busy.us[mine][kept] / over[kept])
