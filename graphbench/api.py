"""The Python API: run a pipeline or bench a bare function, compare records,
read and write them.

    record = graphbench.run("softmax", elements=2**20, modes="individual,graph")
    verdict = graphbench.compare("baseline.json", record, fail_on="graph.wall:10%")

Everything is validated by the command line's own checks, before any GPU
work: text by the parsers the command line uses (graphbench.config.values), the configuration
by RunConfig, a pipeline and its kernels by graphbench.preflight. A bad
argument raises a graphbench.errors type naming it, with a remedy. Nothing
here prints, and a run leaves the process as it was (graphbench.process_state)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, Union

from graphbench.config import RunConfig, value_texts
from graphbench.errors import ConfigError, GraphbenchError, RecordError, UsageError
from graphbench.pipeline.spec import SpecError, _short  # _short: any value in one short line
from graphbench.record.model import Comparison, RunRecord, SweepRecord

if TYPE_CHECKING:
    from graphbench.gate.specs import FailSpec
    from graphbench.replay.check import ReplayCheck
    from graphbench.stats.summary import RunSummary
    from graphbench.pipeline.callables import CallablePipeline
    from graphbench.pipeline.spec import Pipeline

__all__ = ["run", "bench", "compare", "load", "save", "summarize"]
# The settings the command line takes, by field name (rtol and atol are the
# pipeline's own, stored in the record, never a run setting).
SETTINGS = {f.name: f for f in dataclasses.fields(RunConfig) if "flag" in f.metadata}
# How a setting's text is read: by the CLI's parser of that kind; the
# others (paths, flags, one launch shape) are checked by RunConfig itself.
TEXT_FORMS = ("count", "int", "fraction", "seconds", "list", "grid", "devices")
MAX_DEVICE_ID, DEVICE_EXAMPLES = 9999, "e.g. device=0 (nvidia-smi lists the ids)"
# the remedy of an error that names none, by its kind (the first that fits)
REMEDIES = ((RecordError, "give a record file graphbench wrote (graphbench.save, run --json)"),
            (SpecError, "fix the pipeline: docs/pipelines.md says what each field takes"),
            (ConfigError, "each setting takes its RunConfig field's type (config/run.py)"),
            (GraphbenchError, "see docs/python.md for what each argument takes"))
# what the API calls an option the shared checks name by its flag
KEYWORDS = {**{f.metadata["flag"]: name for name, f in SETTINGS.items()},
            "--ab": "ab", "--processes": "processes", "--fail-on": "fail_on"}
SPEC_REMEDY = "give a spec such as 'graph.wall:10%', a list of them, or None for the default gate"
AB_FIELD = next(name for name, f in SETTINGS.items() if f.metadata["flag"] == "--ab")
PipelineArg = Union["Pipeline", "CallablePipeline", str, "os.PathLike[str]", None]
RecordArg = Union[RunRecord, str, "os.PathLike[str]"]
FailOn = Union[str, "FailSpec", Sequence[Union[str, "FailSpec"]], None]


def run(pipeline: PipelineArg = None, *, elements: int | str = 4096,
        modes: str | Sequence[str] | None = None, processes: int = 1,
        gate_sizes: str | Sequence[int | str] = (), ab: str | os.PathLike | None = None,
        **config: Any) -> RunRecord:
    """Measure `pipeline` (a graphbench.pipeline.spec.Pipeline, a pipeline file's path
    or a shipped name such as "softmax"; None: the built-in add,mul,sub) and
    return the typed record. Every setting the CLI takes is accepted by its
    RunConfig field name; text values are read as the CLI reads them
    ("individual,graph", "2^20", "1%"); params={"cols": 256} is the file's pipeline()'s
    keyword arguments. `ab`: the base side of an A/B run (a git revision such as
    "main", a pipeline file or a .cu file), alternated round by round with this
    one and judged by graphbench.compare(record). Raises graphbench.errors'
    types (DeviceError: no usable GPU)."""
    from graphbench.config.values import check_fixed_rounds
    from graphbench.counts import parse_processes
    from graphbench.preflight import check_object
    from graphbench.process_state import kept
    from graphbench.runner import check_run, measure

    with in_api_words(), kept():
        if ab is not None:
            config[AB_FIELD] = _path_text(ab, "ab")
        spec, path = _pipeline(pipeline)
        settings = run_config(elements=elements, modes=modes, gate_sizes=gate_sizes,
                              pipeline=path, **config)
        check_fixed_rounds(config)  # as the CLI refuses --rounds with --max-noise
        if isinstance(processes, bool) or not isinstance(processes, int):
            raise UsageError(f"processes must be an int, got {_short(processes)}", "e.g. processes=3")
        count = parse_processes(processes, "processes")
        check_run(settings, count, spec, name=keyword)
        if spec is not None:
            check_object(settings, spec, keyword)
        return measure(settings, count, spec=spec)


def bench(fn: Callable[..., Any], *inputs: Any, rtol: float | None = None,
          atol: float | None = None, reference: Callable[..., Any] | None = None,
          **settings: Any) -> RunRecord:
    """A bare torch or CuPy function on its example inputs, laddered like a
    callable pipeline; with no reference, checked against its own eager
    results (graphbench.pipeline.bare)."""
    from graphbench.pipeline.bare import bare_pipeline, bench_settings

    with in_api_words():
        spec = bare_pipeline(fn, inputs, rtol, atol, reference)
    return run(spec, **bench_settings(inputs, settings))


def check_replay(fn: Callable[..., Any], *args: Any, outputs: Sequence[int] = (),
                 scalars: dict[str, Any] | None = None, sizes: Sequence[str] = (),
                 repeats: int = 5, seed: int = 0, rtol: float | None = None,
                 atol: float | None = None, stream: str | None = None) -> "ReplayCheck":
    """Whether a CUDA graph captured from fn(*args, **scalars) stays right on
    new data (torch CUDA tensors or CuPy arrays): captured once, replayed
    under a battery of perturbations (inputs refilled with random values and
    poison, outputs poisoned, the scalars changed, unchanged inputs twice)
    and compared with eager execution each time. `outputs`: positions of
    arguments fn writes in place (none: the arrays it returns); `sizes`:
    scalars that are sizes; `stream`: for a cuda.core callable, the keyword
    it takes the stream it launches onto by (a GraphBuilder while captured).
    The ReplayCheck's judgement names each class of stale replay with its
    evidence; `passed` where none was found (graphbench.replay)."""
    from graphbench.replay.check import check_replay as checked

    with in_api_words():
        return checked(fn, args, outputs, scalars, sizes, repeats, seed, rtol, atol, stream)


def compare(baseline: RecordArg, current: RecordArg | None = None,
            fail_on: FailOn = None) -> Comparison:
    """The gate's verdicts for `current` against `baseline` (records or their
    paths); with `current` None, `baseline` is an A/B record judged against
    its base build. `fail_on`: "graph.wall:10%" or a list of such specs
    (default: the default gate). A regression is `passed` False and
    `regressions`; what cannot be judged raises RecordError, a current record
    with wrong results VerificationError."""
    from graphbench.gate.judge import gate
    from graphbench.record.arguments import run_record

    with in_api_words():  # a verdict's note says how many --processes would judge it
        specs = fail_specs(fail_on)
        first = run_record(baseline, "baseline")
        second = None if current is None else run_record(current, "current")
        return gate(None, first, specs) if second is None else gate(first, second, specs)


def load(path: str | os.PathLike) -> RunRecord | SweepRecord:
    """A run or sweep record from its file (RecordError naming what is wrong)."""
    from graphbench.record.arguments import input_path
    from graphbench.record.codec import read_record

    with in_api_words():
        return read_record(input_path(path, "path"))


def save(path: str | os.PathLike, record: RunRecord | SweepRecord) -> Path:
    """Write `record` as graphbench run --json does, with its summary block;
    the path is checked first, as the CLI checks --json."""
    from graphbench.stats.summary import summary_document
    from graphbench.record.arguments import check_well_formed, record_path
    from graphbench.record.codec import write_record
    from graphbench.record.output_paths import check_writable

    target = record_path(path, "path")
    if not isinstance(record, (RunRecord, SweepRecord)):
        raise UsageError(f"record is {_a(type(record))}, not a run or sweep record",
                         "save writes what graphbench.run returns (a comparison's verdicts "
                         "are its fields: .passed, .regressions)")
    check_well_formed(record, "record")  # as its file would be read back: never written
    try:
        check_writable(target, "path")
    except UsageError as exc:  # the CLI's check of --json, whose remedy may go unsaid
        raise UsageError(exc.message, exc.remedy or "give a file this user can write") from None
    with in_api_words():
        return write_record(target, record, summary_document)  # OutputError if it fails


def summarize(record: RecordArg) -> RunSummary:
    """The statistics of a run record (or its path), as `graphbench report`
    shows them: each mode's medians with their spread (`.modes["graph"].wall`),
    the speedups with their intervals (`.speedup["graph"].stats.median`),
    build costs and the host-speed figures."""
    from graphbench.stats.summary import summarize_run
    from graphbench.record.arguments import run_record

    with in_api_words():
        return summarize_run(run_record(record, "record"))


def run_config(**values: Any) -> RunConfig:
    """A RunConfig from Python values: names checked, text read by the CLI's
    parsers, each value's type checked (ConfigError naming the field)."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        tolerance = unknown[0] in ("rtol", "atol")
        raise ConfigError(unknown[0], "is not a run setting", "the tolerance is the pipeline's "
                          "own (its file's rtol and atol)" if tolerance else
                          f"choose from {', '.join(SETTINGS)}")
    hints = typing.get_type_hints(RunConfig)
    checked: dict[str, Any] = {name: value_texts(value) if name == "params" else
                               _typed(name, value, hints[name]) for name, value in values.items()}
    return RunConfig(**checked)


def _typed(name: str, value: Any, hint: Any) -> Any:
    """`value` as the field's type wants it, or ConfigError."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    options = typing.get_args(hint) if union else (hint,)
    if value is None and type(None) in options:
        return None
    kind = next(o for o in options if o is not type(None))
    if isinstance(value, str) and SETTINGS[name].metadata["parse"] in TEXT_FORMS:
        value = _parsed(name, value)
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(name, f"must be a list, got {_short(value)}",
                              "e.g. a list or tuple, or its text with commas")
        return tuple(_scalar(name, v.strip() if isinstance(v, str) else v, item) for v in value)
    return _scalar(name, value, kind)


def _parsed(name: str, text: str) -> Any:
    """Text read by the CLI's parser of the field's kind, named by the field."""
    from graphbench.config.values import PARSERS

    kind = SETTINGS[name].metadata["parse"]
    read = typing.cast(typing.Callable[[str, str], Any], PARSERS[kind])
    try:
        value = read(text, name)
    except UsageError as exc:
        raise ConfigError(name, exc.message.removeprefix(name).lstrip(": "), exc.remedy) from None
    if kind == "devices":  # the CLI runs each device of a list; a call measures one
        if value == "all" or len(value) != 1:
            raise ConfigError(name, f"is {text!r}: a call measures one device",
                              "call graphbench.run once per device id")
        return value[0]
    return value


def _scalar(name: str, value: Any, kind: Any) -> Any:
    from graphbench.counts import EXAMPLES, MAX_COUNT, parse_count

    if kind is int and isinstance(value, str):
        try:
            return parse_count(value, name)
        except UsageError as exc:  # name the field, as every other setting's error does
            raise ConfigError(name, f"is {_short(value)}, not a count", exc.remedy) from None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an int beyond any float
            raise ConfigError(name, f"{_short(value)} is far too large", EXAMPLES) from None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ConfigError(name, f"must be {_a(kind)}, got {_short(value)}",
                          "each setting takes its RunConfig field's type (config/run.py)")
    # as the CLI refuses them: a count past MAX_COUNT, a device id of more than
    # 4 digits (an id past this machine's count only the driver can refuse)
    device = name == "device"
    if kind is int and value > (MAX_DEVICE_ID if device else MAX_COUNT):
        raise ConfigError(name, f"{_short(value)} is " + (f"no device id (0 to {MAX_DEVICE_ID})"
                          if device else "far too large"), DEVICE_EXAMPLES if device else EXAMPLES)
    return value


def _pipeline(pipeline: PipelineArg) -> tuple[Any, str | None]:
    """(a pipeline object, checked by graphbench.pipeline.objects, or None; a path or None)."""
    if pipeline is None or isinstance(pipeline, (str, os.PathLike)):
        return None, None if pipeline is None else os.fspath(pipeline)
    return pipeline, None


def _path_text(value: Any, name: str) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{name} must be a str or a path, got {_short(value)}",
                         f"e.g. {name}=\"main\" (a git revision) or {name}=\"old.cu\"")
    return os.fspath(value)


def keyword(flag: str) -> str:  # a command-line flag as the API names it: --ab is ab
    return KEYWORDS.get(flag, flag)


@contextlib.contextmanager
def in_api_words() -> Iterator[None]:
    """An error raised by code shared with the command line, in the API's
    words where that code cannot be told them (a launch shape's, a
    verdict's note): each flag becomes its keyword (not in a command: run --ab);
    one that says no remedy gets its kind's (REMEDIES)."""
    try:
        yield
    except GraphbenchError as exc:
        exc.remedy = exc.remedy or next(r for kind, r in REMEDIES if isinstance(exc, kind))
        for flag, name in KEYWORDS.items():
            pattern = rf"(?<![\w-])(?<!run ){re.escape(flag)}(?![\w-])"  # not `run --ab`
            exc.message, exc.remedy, exc.details = (re.sub(pattern, name, text) for text in
                                                    (exc.message, exc.remedy, exc.details))
        exc.args = (exc.message,)
        raise


def fail_specs(fail_on: FailOn) -> list[FailSpec] | None:
    """--fail-on's specs from a string, a FailSpec or a list of them, read
    by the CLI's parser; a refusal names fail_on."""
    from graphbench.gate.specs import FailSpec, check_specs

    if fail_on is None:
        return None
    items = [fail_on] if isinstance(fail_on, (str, FailSpec)) else fail_on
    if not isinstance(items, (list, tuple)):
        raise UsageError(f"fail_on must be a spec or a list of them, got {_short(fail_on)}",
                         SPEC_REMEDY)
    if not items:
        raise UsageError("fail_on is empty: a gate that judges nothing has not passed",
                         SPEC_REMEDY)
    try:
        return check_specs([_spec(item) for item in items], "fail_on")
    except UsageError as exc:
        said = exc.message if "fail_on" in exc.message else f"fail_on: {exc.message}"
        raise UsageError(said, exc.remedy or SPEC_REMEDY) from None


def _spec(item: object) -> FailSpec:
    from graphbench.gate.specs import FailSpec, check_metric_name, check_spec_fields, parse_spec

    if isinstance(item, str):
        return parse_spec(item, option="fail_on")
    if not isinstance(item, FailSpec):
        raise UsageError(f"fail_on has {_short(item)}, {_a(type(item))}, not a spec", SPEC_REMEDY)
    if not isinstance(item.metric, str):
        raise UsageError(f"fail_on has a spec whose metric is {_short(item.metric)}", SPEC_REMEDY)
    check_metric_name(item.metric)
    check_spec_fields(item, f"fail_on {_short(item.metric)}")
    return item


def _a(kind: type) -> str:  # 'an int', 'a str': a type as a message names it
    return f"{'an' if kind.__name__[0] in 'aeiou' else 'a'} {kind.__name__}"
