"""The gate's command-line side: a record against a stored baseline, or an
A/B record's candidate build against its base build, judged by the library
(graphbench.gate.judge), shown, written, and turned into the exit code.
Exit 0 pass, 1 regression or failed verification, 2 when anything cannot be
judged (never a pass)."""

from __future__ import annotations

import sys

from graphbench.cli.progress import console
from graphbench.errors import EXIT_FAILED, EXIT_OK, VerificationError
from graphbench.ladder import BASE_SUFFIX
from graphbench.record.model import RunRecord


def gate(baseline: RunRecord | None, current: RunRecord, args, baseline_name: str | None,
         current_name: str, path_of=lambda path: path,
         series: tuple[list, list] | None = None) -> int:
    """Compare, print, write the requested files (the command's outputs of
    the verdicts, each at path_of(its path)), and choose the exit code.
    With no baseline, `current` is judged against `series` (its earlier
    records and their commits) where given, else it is an A/B record judged
    against its base build."""
    from graphbench.gate.judge import check_decidable, judged, judged_series
    from graphbench.cli.outputs import write_outputs
    from graphbench.report.compare import comparison_report
    from graphbench.report.outputs import COMPARISON, Verdicts
    from graphbench.report.run import failure_text

    try:
        comparison = judged_series(series[0], current, args.fail_on, series[1]) \
            if series is not None else judged(baseline, current, args.fail_on)
    except VerificationError as exc:
        print(f"graphbench: {current_name} failed verification: {failure_text(exc.check)}",
              file=sys.stderr)
        return EXIT_FAILED
    baseline_name = baseline_name or f"{current_name} (its {BASE_SUFFIX} build)"
    console().print(comparison_report(comparison))
    write_outputs(args, COMPARISON, Verdicts(comparison, baseline_name, current_name), path_of)
    check_decidable(comparison)  # after the verdicts are shown: they say what is missing
    return gate_exit_code(comparison)


def gate_exit_code(comparison) -> int:
    from graphbench.report.compare import decision_line

    if comparison.regressions:
        print(f"graphbench: {decision_line(comparison)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
