"""Merge the records of several processes of the same run into one.

On a shared machine much of the noise is between processes (CPU placement,
host speed over seconds), which no single process can see. A merged record
keeps each process's run, so the gate can judge how far one more process
may land from them, and its noise figure spans every process's rounds.
Merging is a key check followed by concatenating the runs.
"""

from __future__ import annotations

from dataclasses import replace

from graphbench.errors import RecordError
from graphbench.record.model import RunRecord

# Not iters: figures are per iteration, and a run that chooses its own
# iterations (a --gate-sizes point, a sweep) may choose differently per process.
SAME_KEYS = ("elements", "stages", "depth", "modes", "flush_l2", "kernel_source", "ab_source")


def merge_runs(records: list[RunRecord]) -> RunRecord:
    if not records:
        raise RecordError("no records to merge")
    first = records[0]
    for other in records[1:]:
        differing = [k for k in SAME_KEYS if getattr(other.config, k) != getattr(first.config, k)]
        if differing:
            raise RecordError(f"cannot merge runs that differ in {', '.join(differing)}")
    if any(r.legacy_processes for r in records):
        raise RecordError("cannot merge a version-1 merged record",
                          "make the baseline again with graphbench run --processes N")
    return replace(first, runs=tuple(run for r in records for run in r.runs))
