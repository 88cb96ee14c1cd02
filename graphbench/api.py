"""The Python API: run a pipeline, compare records, read and write them.

    import graphbench
    record = graphbench.run("softmax", elements=2**20, modes="individual,graph")
    verdict = graphbench.compare("baseline.json", record, fail_on="graph.wall:10%")

Everything is validated as the command line validates it, before any GPU
work: a bad setting raises ConfigError naming its field, a bad pipeline
SpecError, a record that cannot be judged RecordError. Nothing here prints;
the CLI is a thin layer over the same library calls (graphbench.runner,
graphbench.analyze.gate).
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, Union

from graphbench.config import RunConfig
from graphbench.errors import ConfigError, UsageError
from graphbench.record.model import Comparison, RunRecord, SweepRecord

if TYPE_CHECKING:
    from graphbench.analyze.specs import FailSpec
    from graphbench.analyze.summary import RunSummary
    from graphbench.pipeline.spec import Pipeline

__all__ = ["run", "compare", "load", "save", "summarize"]
SETTINGS = {f.name: f for f in dataclasses.fields(RunConfig)}


PipelineArg = Union["Pipeline", str, "os.PathLike[str]", None]
RecordArg = Union[RunRecord, str, "os.PathLike[str]"]
FailOn = Union[str, "FailSpec", Sequence[Union[str, "FailSpec"]], None]


def run(pipeline: PipelineArg = None, *, elements: int | str = 4096,
        modes: str | Sequence[str] | None = None, processes: int = 1,
        gate_sizes: str | Sequence[int | str] = (), **config: Any) -> RunRecord:
    """Measure `pipeline` (a graphbench.pipeline.spec.Pipeline, a pipeline file's path
    or a shipped name such as "softmax"; None: the built-in add,mul,sub) and
    return the typed record. Every RunConfig field is accepted by its name;
    `modes` and `stages` may be "individual,graph" or a sequence, counts
    may be written "2^20". Raises the typed errors of graphbench.errors,
    e.g. DeviceError where no GPU is usable."""
    from graphbench.runner import check_run, measure

    spec, path = _pipeline(pipeline)
    settings = run_config(elements=elements, modes=modes, gate_sizes=gate_sizes, pipeline=path,
                          **config)
    check_run(settings, processes, spec)
    return measure(settings, processes, spec=spec)


def compare(baseline: RecordArg, current: RecordArg | None = None,
            fail_on: FailOn = None) -> Comparison:
    """The gate's verdicts for `current` against `baseline` (records or their
    paths); with `current` None, `baseline` is an A/B record judged against
    its base build. `fail_on`: "graph.wall:10%" or a list of such specs
    (default: the default gate). A regression is `passed` False and
    `regressions`; what cannot be judged raises RecordError, a current record
    with wrong results VerificationError."""
    from graphbench.analyze.gate import gate

    specs = fail_specs(fail_on)
    first = _run_record(baseline, "baseline")
    if current is None:
        return gate(None, first, specs)
    return gate(first, _run_record(current, "current"), specs)


def load(path: str | os.PathLike) -> RunRecord | SweepRecord:
    """A run or sweep record from its file (RecordError naming what is wrong)."""
    from graphbench.record.codec import read_record

    return read_record(path)


def save(path: str | os.PathLike, record: RunRecord | SweepRecord) -> Path:
    """Write `record` as graphbench run --json does, with its summary block."""
    from graphbench.analyze.summary import summary_document
    from graphbench.record.codec import write_record

    return write_record(path, record, summary_document)


def summarize(record: RecordArg) -> RunSummary:
    """The statistics of a run record (or its path), as `graphbench report`
    shows them: each mode's medians with their spread (`.modes["graph"].wall`),
    the speedups with their intervals (`.speedup["graph"].stats.median`),
    build costs and the host-speed figures."""
    from graphbench.analyze.summary import summarize_run

    return summarize_run(_run_record(record, "record"))


def run_config(**values: Any) -> RunConfig:
    """A RunConfig from Python values: names checked, lists and counts in
    their text forms accepted, each value's type checked (ConfigError)."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise ConfigError(unknown[0], "is not a run setting",
                          f"choose from {', '.join(SETTINGS)}")
    hints = typing.get_type_hints(RunConfig)
    checked = {name: _typed(name, value, hints[name]) for name, value in values.items()}
    return RunConfig(**checked)


def _typed(name: str, value: Any, hint: Any) -> Any:
    """`value` as the field's type wants it, or ConfigError."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    options = typing.get_args(hint) if union else (hint,)
    if value is None and type(None) in options:
        return None
    kind = next(o for o in options if o is not type(None))
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)):
            raise ConfigError(name, f"must be a list, got {value!r}")
        return tuple(_scalar(name, v.strip() if isinstance(v, str) else v, item) for v in items)
    return _scalar(name, value, kind)


def _scalar(name: str, value: Any, kind: Any) -> Any:
    from graphbench.counts import parse_count

    if kind is int and isinstance(value, str):
        try:
            return parse_count(value, name)
        except UsageError as exc:  # name the field, as every other setting's error does
            raise ConfigError(name, f"is {value!r}, not a count", exc.remedy) from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ConfigError(name, f"must be {kind.__name__}, got {value!r}")
    return value


def _pipeline(pipeline: PipelineArg) -> tuple[Any, str | None]:
    """(an already-built pipeline object or None, the path or name or None)."""
    if pipeline is None or isinstance(pipeline, str):
        return None, pipeline
    if isinstance(pipeline, os.PathLike):
        return None, os.fspath(pipeline)
    return pipeline, None  # checked as a Pipeline by graphbench.pipeline.objects


def fail_specs(fail_on: FailOn) -> list[FailSpec] | None:
    """--fail-on's specs from a string, a list of strings or FailSpecs."""
    from graphbench.analyze.specs import FailSpec, parse_spec

    if fail_on is None:
        return None
    items = [fail_on] if isinstance(fail_on, (str, FailSpec)) else list(fail_on)
    return [item if isinstance(item, FailSpec) else parse_spec(item) for item in items] or None


def _run_record(value: object, side: str) -> RunRecord:
    from graphbench.record.codec import read_run

    if isinstance(value, RunRecord):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_run(value)
    raise UsageError(f"the {side} is a {type(value).__name__}, not a run record",
                     "give a RunRecord or the path of a record written by graphbench run --json")
