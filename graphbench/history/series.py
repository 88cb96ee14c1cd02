"""Which series a stored run record belongs to, and a series read back.

A series is the records one gate can read as one figure over time: the same
pipeline (name and file), on the same machine class, in the same
configuration.
- The machine class is the GPU's model, the driver version and the host's
  CPU model (the record's host.processor), not the GPU's UUID: the physical
  GPUs of one model are one class, and the spread between them is part of
  the series' own spread, which the series itself measures. Python reads the
  CPU model from the platform; on Linux it is often only the architecture
  (x86_64), so there the class is the GPU model and the driver.
- The configuration is every setting that changes the figures: the element
  count, the gate sizes, the stages, the depth, the rungs, the flags and the
  pipeline's parameters (CONFIGURATION). The iterations a round are not in
  it: every figure is per iteration, and a run chooses its count by time.
The class is made of stored columns and the configuration is read from the
stored record's own text, so a history written before series existed is
read as it is: nothing is added to it or rewritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphbench.counts import power_label
from graphbench.history.documents import run_from_text
from graphbench.history.keys import MACHINE_DIGITS, SHORT_ID, Key
from graphbench.history.store import History
from graphbench.record.model import RunRecord

# The settings of a run's configuration that change its figures, as RunConfig names them
CONFIGURATION = ("elements", "depth", "stages", "modes", "flush_l2", "unroll", "grid", "block",
                 "pin_cpu", "kernel_source", "params")
SERIES_DIGITS = MACHINE_DIGITS  # of a series' hash, as listings show it
Run = tuple[Key, RunRecord]


def configuration(record: RunRecord) -> dict[str, object]:
    """The record's settings that change its figures, and its gate sizes."""
    found: dict[str, object] = {name: getattr(record.config, name) for name in CONFIGURATION}
    # a record keeps its gate sizes as its gate points (its config's own list is emptied)
    return {**found, "gate_sizes": sorted(point.config.elements for point in record.gate_points)}


@dataclass(frozen=True)
class SeriesKey:
    """What a series is filed under: its pipeline, its machine class and its
    configuration (a JSON text of its settings)."""

    pipeline: str
    pipeline_file: str
    host_cpu: str
    gpu_name: str
    driver_version: str
    configuration: str  # JSON, its keys sorted: the identity; configuration_text shows it

    @classmethod
    def of(cls, key: Key, record: RunRecord) -> SeriesKey:
        return cls(key.pipeline, key.pipeline_file, key.host_cpu, key.gpu_name,
                   key.driver_version, json.dumps(configuration(record), sort_keys=True))

    @property
    def digest(self) -> str:
        """The sha256 of every field: the series' name, as text that names no path."""
        joined = "\x1f".join((self.pipeline, self.pipeline_file, self.host_cpu, self.gpu_name,
                              self.driver_version, self.configuration))
        return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def id(self) -> str:
        return self.digest[:SERIES_DIGITS]

    @property
    def machine_class(self) -> str:
        """The class as a reader reads it: GPU model, driver, CPU."""
        return (f"{self.gpu_name or 'no GPU'}, driver {self.driver_version or '?'}, "
                f"CPU {self.host_cpu or '?'}")

    @property
    def configuration_text(self) -> str:
        """The configuration as a reader reads it: elements=2^12 stages=add,mul,sub ..."""
        try:
            settings = json.loads(self.configuration)
        except ValueError:
            return self.configuration
        return " ".join(f"{name}={_shown(name, value)}" for name, value in settings.items())

    def filters(self) -> dict[str, str]:
        """The history's filters that every record of the series passes
        (its configuration is read from each record's text)."""
        return {"kind": "run", "pipeline_name": self.pipeline,
                "pipeline_file": self.pipeline_file, "host_cpu": self.host_cpu,
                "gpu_name": self.gpu_name, "driver_version": self.driver_version}


def _shown(name: str, value: object) -> str:
    if isinstance(value, list):
        return ",".join(_shown(name, v) for v in value) or "none"
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "none"
    if name in ("elements", "gate_sizes") and type(value) is int:
        return power_label(value)
    return "none" if value is None else str(value)


def read_runs(history: History, keys: Sequence[Key]) -> list[Run]:
    """The stored run records of `keys`, in their order (RecordError for a
    record the reader refuses, naming it)."""
    return [(key, run_from_text(history.document(key.id), f"stored record {key.id[:SHORT_ID]}"))
            for key in keys]


def series_runs(history: History, series: SeriesKey, until: str | None = None,
                exclude: str | None = None, limit: int | None = None,
                keep: Callable[[RunRecord], bool] = lambda record: True) -> list[Run]:
    """The stored records of `series`, oldest first: those made at or before
    `until` (a UTC time), without record `exclude`, the newest `limit` of
    those `keep` keeps. Each candidate's text is read (its configuration is
    in it), newest first, until `limit` are found."""
    found: list[Run] = []
    keys = history.keys(**series.filters(), until=until, exclude=exclude)
    for key in keys:
        [(_, record)] = read_runs(history, [key])
        if SeriesKey.of(key, record) == series and keep(record):
            found.append((key, record))
            if limit is not None and len(found) >= limit:
                break
    return found[::-1]


def grouped(runs: Sequence[Run]) -> dict[SeriesKey, list[Run]]:
    """The runs by series, each series oldest first (by creation time)."""
    groups: dict[SeriesKey, list[Run]] = {}
    for key, record in sorted(runs, key=lambda run: (run[0].created, run[0].saved, run[0].id)):
        groups.setdefault(SeriesKey.of(key, record), []).append((key, record))
    return groups


def class_runs(history: History, keys: Sequence[Key]) -> tuple[list[Run], int]:
    """Every stored run record of the pipelines and machine classes of the
    run records among `keys` (so every record of their series), and how
    many of those the reader refused (left out)."""
    from graphbench.errors import RecordError

    classes = dict.fromkeys((k.pipeline, k.pipeline_file, k.host_cpu, k.gpu_name,
                             k.driver_version) for k in keys if k.kind == "run")
    runs, refused = [], 0
    for pipeline, file, cpu, gpu, driver in classes:
        for key in history.keys(kind="run", pipeline_name=pipeline, pipeline_file=file,
                                host_cpu=cpu, gpu_name=gpu, driver_version=driver):
            try:
                runs += read_runs(history, [key])
            except RecordError:
                refused += 1
    return runs, refused
