"""Helpers several test modules share."""

import dataclasses
import json
from pathlib import Path

import pytest

from graphbench.record.trace import Attribution, KernelActivity, RungTrace, StageWindow


def scaled_busy(record, factor):
    """The same record with every workload's GPU busy time scaled by `factor`."""
    run = record.runs[0]
    conditions = tuple(dataclasses.replace(c, busy={w: dataclasses.replace(r, us=r.us * factor)
                                                    for w, r in c.busy.items()})
                       for c in run.conditions)
    return dataclasses.replace(record, runs=(dataclasses.replace(run, conditions=conditions),))


def ab_record(build, factor=1.0, busy_factor=1.0, noise=0.005, seed=0, rounds=30):
    """A synthetic A/B record: the candidate's walls `factor` times its base
    build's, its busy time `busy_factor` times."""
    from conftest import make_record, synthetic_conditions

    walls = {**build, **{f"{m}@base": us / factor for m, us in build.items()}}
    record = make_record(walls, rounds=rounds, noise=noise, seed=seed)
    conditions = tuple(dataclasses.replace(c, busy={
        w: dataclasses.replace(r, us=r.us * (busy_factor if "@" not in w else 1.0))
        for w, r in c.busy.items()}) for c in synthetic_conditions(walls, rounds))
    run = dataclasses.replace(record.runs[0], conditions=conditions)
    pipeline = dataclasses.replace(record.pipeline, kernel_source="new.cu", ab_source="base.cu")
    return dataclasses.replace(record, runs=(run,), pipeline=pipeline)


def replace_run(record, **changes):
    """The record with its first process's fields changed."""
    return dataclasses.replace(record, runs=(dataclasses.replace(record.runs[0], **changes),))


def with_busy(record, factor=1.0, clock=None):
    """Every process's busy readings `factor` times the record's, at SM clock `clock` if given."""
    runs = []
    for run in record.runs:
        conditions = tuple(dataclasses.replace(c, busy={w: dataclasses.replace(
            r, us=r.us * factor, sm_clock_mhz=clock or r.sm_clock_mhz) for w, r in c.busy.items()})
            for c in run.conditions)
        runs.append(dataclasses.replace(run, conditions=conditions))
    return dataclasses.replace(record, runs=tuple(runs))


RECORDS = Path(__file__).resolve().parent / "records"


def stored_document(name="same_code.json"):
    """A record kept under tests/records, as the JSON document it is on disk."""
    return json.loads((RECORDS / name).read_text())


# A synthetic CUPTI trace: each kernel (name, gap before in ns, duration in ns) in
# launch order; a batch starts after a host sync (a long gap, left out).

TRACE_STAGES = (("a", ("k1",)), ("b", ("k2", "k3")))


def stage_windows(stages, workload="stages"):
    """StageWindows whose kernels are listed out of launch order (sorting must fix it)."""
    out, t = [], 0
    for stage, names in stages:
        kernels = [KernelActivity(n, t + 10 * i, t + 10 * i + 5, correlation_id=i)
                   for i, n in enumerate(names)]
        out.append(StageWindow(stage, workload, tuple(reversed(kernels))))
        t += 1000
    return tuple(out)


def kernel_trace(batches, per_batch, workload="stages", **times):
    """A rung's trace: batches of (name, gap_ns, duration_ns), `per_batch` iterations each."""
    kernels, t, cid = [], 0, 0
    for b, seq in enumerate(batches):
        t += 10**6
        for name, gap, duration in seq:
            t += gap
            kernels.append(KernelActivity(name, t, t + duration, correlation_id=cid, batch=b))
            t += duration
            cid += 1
    return RungTrace(workload, per_batch, tuple(kernels), **times)


def trace_attribution(rungs, stages=TRACE_STAGES, harness=("loop_count",)):
    return Attribution(stage_windows(stages), rungs, harness)


def iteration_kernels(gap=100, duration=1000, names=("k1", "k2", "k3")):
    return [(n, gap, duration) for n in names]


def record_with_trace(rungs, stages=TRACE_STAGES, **run_changes):
    """A synthetic record whose first process carries the traces `rungs`."""
    from conftest import make_record

    record = make_record({"individual": 14.0, "graph": 4.3, "loop": 4.0}, noise=0.001)
    return replace_run(record, attribution=trace_attribution(rungs, stages), **run_changes)


def refusal(call, error):
    """What a refused call says: the `error` it raises, as (message, remedy)."""
    with pytest.raises(error) as info:
        call()
    return info.value.message, info.value.remedy


def refused_option(parse, text, option="--opt"):
    """The UsageError of an option value refused, which names the option typed."""
    from graphbench.errors import UsageError

    with pytest.raises(UsageError) as info:
        parse(text, option)
    assert option in info.value.message
    return info.value


def short_error(err: str) -> str:
    """A command's error as a person reads it: one or two lines, the first
    "graphbench: error: ...", each at most 200 characters; returned as one
    text (the lines joined by a space) for the words a test looks for."""
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 2 and lines[0].startswith("graphbench: error: "), err
    assert all(len(line) <= 200 for line in lines), err
    return " ".join(lines)
