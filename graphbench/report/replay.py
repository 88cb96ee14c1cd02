"""The replay check as the command line prints it: one line for the
verdict, then each finding's class, cause and evidence."""

from __future__ import annotations


def replay_lines(check) -> list[str]:
    record, judgement = check.record, check.judgement
    head = (f"replay check of {record.callable}: {len(record.cases)} cases over "
            f"{', '.join(record.outputs)}")
    if judgement.unjudged:
        return [head, f"NOT JUDGED: {judgement.unjudged}"]
    if judgement.passed:
        return [head, "PASS: every replay matched eager execution on new data"]
    lines = [head, f"STALE: {len(judgement.findings)} class(es) of stale replay"]
    for finding in judgement.findings:
        lines += [f"  {finding.kind}: {finding.cause}", f"    {finding.evidence}"]
    return lines


def replay_document(check) -> dict:
    """--json: the verdict, each finding, and every case's outcome."""
    import msgspec

    judgement = check.judgement
    return {"schema": "graphbench-replay", "schema_version": 1, "passed": check.passed,
            "unjudged": judgement.unjudged or None,
            "findings": [{"kind": f.kind, "cause": f.cause, "evidence": f.evidence,
                          "cases": list(f.cases)} for f in judgement.findings],
            "record": msgspec.to_builtins(check.record)}
