"""graphbench replay: the replay check of a callable pipeline, printed, its
outputs written, and its exit code: 0 every replay right, 1 a stale replay
found, 2 nothing could be judged (a RecordError's one line)."""

from __future__ import annotations

from graphbench.cli.outputs import write_outputs
from graphbench.cli.progress import console
from graphbench.errors import EXIT_FAILED, EXIT_OK, RecordError
from graphbench.report.outputs import REPLAY


def cmd_replay(args) -> int:
    from graphbench.replay.pipeline_check import check_pipeline
    from graphbench.report.replay import replay_lines

    check = check_pipeline(args.pipeline, args.elements, dict(args.params or {}), args.repeats,
                           args.seed)
    write_outputs(args, REPLAY, check)
    for line in replay_lines(check):
        console().print(line, highlight=False, markup=False)
    if check.judgement.unjudged:
        raise RecordError(f"cannot judge the replay: {check.judgement.unjudged}",
                          "make the pipeline capturable (docs/replay.md)")
    return EXIT_OK if check.passed else EXIT_FAILED
