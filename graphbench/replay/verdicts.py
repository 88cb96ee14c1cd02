"""The verdict of a replay check, one finding per class of stale replay,
each with its evidence, judged from the recorded outcomes alone
(graphbench.replay.outcomes): the same record always reads the same way.

A replay is stale where its outputs differ from eager execution on the same
inputs, or where a detector saw what values alone cannot show. Which class
a wrong replay is, is read from where it went wrong:
- an output that kept the poison written before the replay: the callable
  writes a result it allocates during capture, not the caller's buffer
  (capture-allocation);
- wrong only after the host scalars changed: a scalar baked in at capture
  (host-scalar), or, where the scalar is a size, a launch shape computed
  from the size seen then (frozen-shape);
- wrong on new data where eager ran other kernels than at capture: a
  data-dependent branch frozen at capture (frozen-branch);
- outputs that repeat bit for bit across replays on unchanged inputs where
  eager's do not: random numbers that repeat (repeating-random);
- detectors: work left on a stream not joined to the capture (side-stream),
  copies from pageable host memory (pageable-staging), host syncs inside the
  callable (host-sync), kernels the replay runs that eager does not or the
  reverse, with eager's own kernels the same in every case (kernels);
- wrong on new data with none of these: stale, its cause unnamed.
Where eager execution itself draws new values on unchanged inputs (random
numbers), values cannot be held to eager's: only repeating-random is read.
A callable that could not be captured at all cannot be judged, unless the
capture's own error names the class (a side stream never joined; a host
synchronisation, which capture forbids).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from graphbench.replay.outcomes import CaseOutcome, ReplayRecord
from graphbench.replay.plan import DATA_CASES, SAME_INPUTS, SCALARS

CLASSES = {
    "capture-allocation": "writes a tensor it allocates during capture, not the buffer you passed",
    "host-scalar": "a host scalar was baked into the graph at capture",
    "frozen-shape": "a launch shape follows the size seen at capture",
    "frozen-branch": "a data-dependent branch was frozen at capture",
    "repeating-random": ("the replay repeats what eager changes from call to call: random "
                         "numbers, or Python-side state frozen at capture"),
    "side-stream": "work on a side stream is never joined to the capture",
    "pageable-staging": "an input is staged from pageable host memory",
    "host-sync": "the callable synchronises with or reads from the host inside",
    "kernels": "the replay runs other kernels than eager execution",
    "stale": "the replay reads data seen at capture; no detector named why",
}


@dataclass(frozen=True)
class Finding:
    kind: str             # a key of CLASSES
    evidence: str         # what was seen, in one line
    cases: tuple[int, ...] = ()

    @property
    def cause(self) -> str:
        return CLASSES[self.kind]


@dataclass(frozen=True)
class Judgement:
    findings: tuple[Finding, ...]
    unjudged: str = ""    # why the check cannot judge ("" where it could)
    cases: int = 0

    @property
    def passed(self) -> bool:
        return not self.findings and not self.unjudged


def judge(record: ReplayRecord) -> Judgement:
    """Every class's finding on the record (the module docstring)."""
    if not record.capture.captured:  # judged where the capture's error names a class
        named = detected(record)
        return Judgement(tuple(named)) if named else \
            Judgement((), f"the callable could not be captured: {record.capture.error}")
    if not record.cases:
        return Judgement((), "no case ran")
    findings = [*detected(record), *from_values(record)]
    if any(f.kind != "stale" for f in findings):
        findings = [f for f in findings if f.kind != "stale"]
    return Judgement(tuple(findings), cases=len(record.cases))


def detected(record: ReplayRecord) -> list[Finding]:
    """What the capture's detectors saw."""
    facts, found = record.capture, []
    for kind, count, what in (("side-stream", facts.side_stream_work,
                               "operation(s) left on a stream not joined to the capture"),
                              ("pageable-staging", facts.pageable_copies,
                               "copy(ies) from pageable host memory captured"),
                              ("host-sync", facts.host_syncs,
                               "host synchronisation(s) or read(s) inside the callable")):
        if count:
            failed = "" if facts.captured else f"; the capture failed: {facts.error}"
            found.append(Finding(kind, f"{count:,} {what}{failed}"))
    if not facts.captured and facts.allocated_bytes:  # allocating while capturing failed it
        found.append(Finding("capture-allocation", f"the capture failed: {facts.error}"))
    found += kernel_findings(record.cases)
    return found


def from_values(record: ReplayRecord) -> list[Finding]:
    """What the values show. Where eager execution itself gave other values
    on unchanged inputs (random numbers drawn anew), no replay can be held
    to eager's values: only whether the replay's repeat is judged."""
    if eager_varies(record.cases):
        return repeating(record.cases)
    found = []
    for name in record.outputs:
        found += unwritten(record, name)
        found += after_scalars(record, name)
        found += on_new_data(record, name)
    found += repeating(record.cases)
    return found


def _wrong(cases, name: str, kinds) -> list[tuple[CaseOutcome, object]]:
    return [(c, o) for c in cases if c.perturbation in kinds for o in c.outputs
            if o.name == name and o.wrong]


def _repeats(hits, record: ReplayRecord, kinds) -> str:
    ran = {c.repeat for c in record.cases if c.perturbation in kinds}
    seen = {c.repeat for c, _ in hits}
    return "" if seen == ran else f", in {len(seen)} of {len(ran)} repeats"


def unwritten(record: ReplayRecord, name: str) -> list[Finding]:
    hits = [(c, o) for c, o in _wrong(record.cases, name, DATA_CASES) if o.unwritten]
    if not hits:
        return []
    case, worst = max(hits, key=lambda hit: hit[1].unwritten)
    allocated = record.capture.allocated_bytes
    made = f"; {allocated:,} bytes were allocated during capture" if allocated else ""
    return [Finding("capture-allocation", f"stale: output `{name}` kept the poison written "
                    f"before the replay ({worst.unwritten:,} of {worst.elements:,} elements)"
                    f"{made}{_repeats(hits, record, DATA_CASES)}",
                    tuple(c.case for c, _ in hits))]


def after_scalars(record: ReplayRecord, name: str) -> list[Finding]:
    """Wrong once the scalars changed, right on new data alone."""
    hits = _wrong(record.cases, name, (SCALARS,))
    if not hits or _wrong(record.cases, name, DATA_CASES):
        return []
    case, worst = max(hits, key=lambda hit: hit[1].wrong)
    varied = sorted(k for k, v in case.scalars.items() if record.capture.scalars.get(k) != v)
    kind = "frozen-shape" if set(varied) & set(record.sizes) else "host-scalar"
    which = f" ({', '.join(varied)})" if varied else ""
    return [Finding(kind, f"stale: output `{name}` wrong after new scalars{which}: "
                    f"{worst.wrong:,} of {worst.elements:,} elements, "
                    f"{worst.stale:,} equal to the captured run's value"
                    f"{_repeats(hits, record, (SCALARS,))}", tuple(c.case for c, _ in hits))]


def on_new_data(record: ReplayRecord, name: str) -> list[Finding]:
    """Wrong on new data, written: a frozen branch where eager's kernels
    moved with the data, else stale with no named cause."""
    hits = [(c, o) for c, o in _wrong(record.cases, name, DATA_CASES) if not o.unwritten]
    if not hits:
        return []
    case, worst = max(hits, key=lambda hit: hit[1].wrong)
    kernel_sets = {c.eager_kernels for c in record.cases if c.eager_kernels is not None}
    kind = "frozen-branch" if len(kernel_sets) > 1 else "stale"
    return [Finding(kind, f"stale: output `{name}` differs from eager after new inputs "
                    f"({worst.wrong:,} of {worst.elements:,} elements, {worst.stale:,} equal "
                    f"to the captured run's value){_repeats(hits, record, DATA_CASES)}",
                    tuple(c.case for c, _ in hits))]


def eager_varies(cases) -> bool:
    return any(c.eager_repeated is False for c in cases if c.perturbation == SAME_INPUTS)


def repeating(cases) -> list[Finding]:
    same = [c for c in cases if c.perturbation == SAME_INPUTS]
    hits = [c for c in same if c.replay_repeated and c.eager_repeated is False]
    if not hits:
        return []
    return [Finding("repeating-random", f"the replay gave the same outputs bit for bit on "
                    f"unchanged inputs in {len(hits)} of {len(same)} cases where eager's "
                    "differed", tuple(c.case for c in hits))]


def kernel_findings(cases) -> list[Finding]:
    """Kernels the replay ran that eager did not, or the reverse, where
    eager ran the same kernels in every case (else the data chose them:
    frozen-branch reads it from the values)."""
    listed = [c for c in cases if c.eager_kernels is not None and c.replay_kernels is not None]
    if not listed or len({c.eager_kernels for c in listed}) > 1:
        return []
    differing = [c for c in listed if Counter(c.eager_kernels) != Counter(c.replay_kernels)]
    if not differing:
        return []
    eager, replay = Counter(differing[0].eager_kernels), Counter(differing[0].replay_kernels)
    extra, missing = replay - eager, eager - replay
    parts = [f"the replay runs {_names(extra)} that eager does not" if extra else "",
             f"eager runs {_names(missing)} that the replay does not" if missing else ""]
    return [Finding("kernels", "; ".join(p for p in parts if p),
                    tuple(c.case for c in differing))]


def _names(kernels: Counter) -> str:
    shown = [f"{name} x{n}" if n > 1 else name for name, n in sorted(kernels.items())[:3]]
    more = len(kernels) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
