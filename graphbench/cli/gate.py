"""The gate commands: a record against a stored baseline, or an A/B
record's candidate build against its base build. Exit 0 pass, 1 regression
or failed verification, 2 when anything cannot be judged (never a pass)."""

from __future__ import annotations

import sys

from graphbench.cli.progress import console
from graphbench.errors import EXIT_FAILED, EXIT_OK, RecordError, UsageError
from graphbench.record.model import RunRecord


def judge(baseline: RunRecord | None, current: RunRecord, specs):
    from graphbench.analyze.ab import compare_ab, is_ab
    from graphbench.analyze.compare import compare_records

    if baseline is not None:
        return compare_records(baseline, current, specs)
    if not is_ab(current):
        raise UsageError("compare needs a baseline and a current record, or one A/B record",
                         "graphbench compare BASE.json NEW.json; an A/B record comes from "
                         "graphbench run --ab BASE.cu")
    return compare_ab(current, specs)


def gate(baseline: RunRecord | None, current: RunRecord, args, baseline_name: str | None,
         current_name: str, json_out: str | None = None, markdown: str | None = None,
         csv_out: str | None = None) -> int:
    """Compare, print, write the requested files, and choose the exit code.
    With no baseline, `current` is an A/B record judged against its base build."""
    from graphbench.cli.outputs import json_text, write
    from graphbench.record.codec import COMPARE_SCHEMA, to_json
    from graphbench.report.csv_rows import comparison_csv
    from graphbench.report.compare import comparison_markdown, comparison_report
    from graphbench.report.run import failure_text

    if baseline is not None:
        check_judgeable(baseline, "baseline")
    failed = next((c for c in current.checks if not c.passed), None)
    if failed is not None:  # a wrong result is a failure whatever its speed
        print(f"graphbench: {current_name} failed verification: {failure_text(failed)}",
              file=sys.stderr)
        return EXIT_FAILED
    check_judgeable(current, "current")
    comparison = judge(baseline, current, args.fail_on)
    baseline_name = baseline_name or f"{current_name} (its @base build)"
    console().print(comparison_report(comparison))
    markdown = markdown or args.markdown
    if markdown:
        write(markdown, comparison_markdown(comparison, baseline_name, current_name))
    if json_out:
        write(json_out, json_text({"schema": COMPARE_SCHEMA, "schema_version": 2,
                                   "passed": comparison.passed,
                                   "regressions": [v.metric for v in comparison.regressions],
                                   **to_json(comparison)}))
    if csv_out:
        write(csv_out, comparison_csv(comparison))
    return gate_exit_code(comparison)


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


def gate_exit_code(comparison) -> int:
    from graphbench.report.compare import decision_line

    if comparison.incompatible:
        raise RecordError(f"records are not comparable: {'; '.join(comparison.incompatible)}",
                          "compare runs made with the same --elements and --iters")
    if comparison.unjudged:
        names = ", ".join(f"{v.metric} ({v.note})" for v in comparison.unjudged)
        raise RecordError(f"cannot judge {names}",
                          "gate only what both records measured (--fail-on), or remake one")
    if not comparison.judged:
        why = "; ".join(dict.fromkeys(v.note for v in comparison.verdicts if v.gated and v.note))
        raise RecordError(f"the gate judged nothing, so it has not passed ({why or 'no metric is gated on this pair'})",
                          "gate records of the same device model, from a baseline of 3 or more "
                          "processes, or use run --ab")
    if comparison.regressions:
        print(f"graphbench: {decision_line(comparison)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK



def cmd_compare(args) -> int:
    from graphbench.cli.commands import check_outputs
    from graphbench.record.codec import read_run

    check_outputs(args)
    if args.current is None:  # one A/B record
        return gate(None, read_run(args.baseline), args, None, args.baseline, json_out=args.json,
                    csv_out=args.csv)
    baseline, current = read_run(args.baseline), read_run(args.current)
    return gate(baseline, current, args, args.baseline, args.current, json_out=args.json,
                csv_out=args.csv)
