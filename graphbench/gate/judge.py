"""The gate as a library: judge a record against a baseline, or an A/B
record's candidate build against its base build, and fail closed.

Whatever cannot be judged raises RecordError (the CLI's exit 2, never a
pass); a current record with wrong results raises VerificationError (exit
1). A regression is not an error: it is the Comparison's verdict."""

from __future__ import annotations

import re

from graphbench.gate.decide import NOT_GATEABLE, TOO_FEW, WORSE_AS_MEASURED
from graphbench.gate.host_match import HOST_BOUND
from graphbench.errors import RecordError, UsageError, VerificationError, shortened
from graphbench.ladder import BASE_SUFFIX
from graphbench.record.model import Comparison, RunRecord


def judge(baseline: RunRecord | None, current: RunRecord, specs) -> Comparison:
    """The verdicts; with no baseline, `current` must be an A/B record."""
    from graphbench.gate.ab import compare_ab, is_ab
    from graphbench.gate.compare import compare_records

    if baseline is not None:
        if is_ab(baseline) or is_ab(current):
            raise UsageError("an A/B record holds both builds and is judged on its own, not "
                             "against another record",
                             "graphbench compare AB.json (one file: the candidate against its "
                             f"{BASE_SUFFIX} build)")
        return compare_records(baseline, current, specs)
    if not is_ab(current):
        raise UsageError("compare needs a baseline and a current record, or one A/B record",
                         "graphbench compare BASE.json NEW.json; an A/B record comes from "
                         "graphbench run --ab BASE.cu")
    return compare_ab(current, specs)


def judged(baseline: RunRecord | None, current: RunRecord, specs) -> Comparison:
    """Both records checked, in the order the gate has always checked them,
    then judged. The comparison may still hold what cannot be decided:
    `check_decidable` says so (the CLI shows the verdicts first)."""
    if baseline is not None:
        check_judgeable(baseline, "baseline")
    check_current(current)
    return judge(baseline, current, specs)


def judged_series(earlier: list[RunRecord], current: RunRecord, specs,
                  commits: list[str | None] | None = None) -> Comparison:
    """The current record checked as `judged` checks it, then judged against
    its series (`earlier`, oldest first: records `is_judgeable` keeps; see
    graphbench.gate.series)."""
    from graphbench.gate.ab import is_ab
    from graphbench.gate.series import judge_series

    check_current(current)
    if is_ab(current):
        raise UsageError("an A/B record is judged on its own, not against a series",
                         "graphbench compare AB.json")
    return judge_series(earlier, current, specs, commits)


def check_current(current: RunRecord) -> None:
    """A wrong result is a failure whatever its speed; then fail closed on a
    record the gate cannot judge."""
    failed = next((c for c in current.checks if not c.passed), None)
    if failed is not None:
        raise VerificationError("the current record failed verification", failed,
                                "fix the code until graphbench run verifies it")
    check_judgeable(current, "current")


def is_judgeable(record: RunRecord) -> bool:
    """A record the gate can judge, as a series' earlier record: not an A/B
    record (judged on its own), and one check_judgeable accepts."""
    from graphbench.gate.ab import is_ab

    try:
        check_judgeable(record, "stored")
    except RecordError:
        return False
    return not is_ab(record)


def check_judgeable(record: RunRecord, side: str) -> None:
    """Fail closed on a record the gate cannot judge."""
    for point in (record, *record.gate_points):
        if not point.checks:
            raise RecordError(f"the {side} record has no verification checks, so it cannot be "
                              "judged", "give a record written by graphbench run --json")
        if not point.verified:
            raise RecordError(f"the {side} record failed verification at "
                              f"{point.config.elements:,} elements, so it cannot be judged",
                              "make the record again from code that verifies")
    if not record.mode_names or record.rounds == 0:
        raise RecordError(f"the {side} record has no timed rounds", "give a complete record")


def check_decidable(comparison: Comparison) -> None:
    """RecordError for records that are not comparable, metrics one lacks, or
    a comparison in which no gated metric could be judged. The message says
    which metrics and why in a few words; each metric's whole note is in the
    error's details."""
    if comparison.incompatible:
        raise RecordError(f"records are not comparable: {'; '.join(comparison.incompatible)}",
                          "compare records of the same pipeline, --elements, --iters, "
                          "--depth, --stages and --flush-l2",
                          details="\n".join(comparison.incompatible))
    if comparison.unjudged:
        names = ", ".join(f"{v.metric} ({v.note})" for v in comparison.unjudged)
        raise RecordError(f"cannot judge {names}",
                          "gate only what both records measured (--fail-on), or remake one",
                          details=notes_of(comparison.unjudged))
    worse = [v for v in comparison.verdicts if v.gated and v.note.startswith(WORSE_AS_MEASURED)]
    if worse:  # fail closed: a change beyond the threshold that could not be judged
        raise RecordError(f"cannot judge {_names([v.metric for v in worse])}: worse as measured "
                          "by more than the threshold, and the records too noisy to judge it",
                          REMEDIES["noisy"], details=notes_of(worse))
    if not comparison.judged:  # a gate that judged nothing has not passed
        why = [v for v in comparison.verdicts if v.gated and v.note]
        raise RecordError(f"the gate judged nothing, so it has not passed "
                          f"({reasons(why) or 'no metric is gated on this pair'})",
                          _remedy(why), details=notes_of(why))


UNJUDGED_REMEDY = ("gate records of the same device model, from a baseline of 3 or more "
                   "processes, or use run --ab")
# what to do where every metric was left unjudged for the one reason
REMEDIES = {"noisy": "run more --processes on each side (the details say how many), or gate "
                     "with run --ab",
            "few": "make the baseline with --processes 3 or more (5 is better), or use run --ab",
            "host": "gate with run --ab, or compare records of one host in one CPU speed state"}
NAMED = 3  # metrics named in a reason; more are counted
REASON_CHARS = 60  # of a reason's first clause: the rest is in the details


def reasons(verdicts) -> str:
    """Why each metric was not judged, in a few words: metrics that share a
    reason named together ("graph.wall, fused.wall: too noisy at 10%")."""
    groups: dict[str, list[str]] = {}
    for v in verdicts:
        groups.setdefault(_reason(v), []).append(v.metric)
    return "; ".join(f"{_names(metrics)}: {reason}" for reason, metrics in groups.items())


def notes_of(verdicts) -> str:
    """Each metric's whole note, one line each: the reasoning -v shows."""
    return "\n".join(f"{v.metric}: {v.note}" for v in verdicts if v.note)


def _too_noisy(verdict) -> bool:
    return verdict.note.startswith(f"{NOT_GATEABLE} on this pair")


def _kind(verdict) -> str:
    if verdict.note.startswith(HOST_BOUND):
        return "host"
    return "noisy" if _too_noisy(verdict) else "few" if verdict.note.startswith(TOO_FEW) else ""


def _remedy(verdicts) -> str:
    kinds = {_kind(v) for v in verdicts}
    return REMEDIES.get(kinds.pop(), UNJUDGED_REMEDY) if len(kinds) == 1 else UNJUDGED_REMEDY


def _reason(verdict) -> str:
    """A note's first clause (what is wrong, not the arithmetic after it)."""
    if _too_noisy(verdict):
        return f"too noisy at {verdict.threshold}"
    if verdict.note.startswith(HOST_BOUND):  # which mismatch, without the pointer at --ab
        return verdict.note.removeprefix(HOST_BOUND).split("; ")[0]
    return shortened(re.split(r": |; ", verdict.note, maxsplit=1)[0], REASON_CHARS, "")


def _names(metrics: list[str]) -> str:
    shown = ", ".join(metrics[:NAMED])
    return shown if len(metrics) <= NAMED else f"{shown} and {len(metrics) - NAMED} more"


def gate(baseline: RunRecord | None, current: RunRecord, specs=None) -> Comparison:
    """The decided comparison: `passed` and `regressions` say the verdict."""
    comparison = judged(baseline, current, specs)
    check_decidable(comparison)
    return comparison
