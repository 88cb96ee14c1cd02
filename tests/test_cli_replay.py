"""graphbench replay: its refusals before any GPU work (one line, exit 2),
its --help, and what it prints and writes for a check's verdict.

Covers graphbench/cli/replay.py.
Covers graphbench/report/replay.py.
Covers graphbench/replay/pipeline_check.py."""

from __future__ import annotations

import json

import pytest

from graphbench.cli import main
from graphbench.replay.check import ReplayCheck
from graphbench.replay.outcomes import CaptureFacts, CaseOutcome, OutputOutcome, ReplayRecord
from graphbench.replay.verdicts import judge
from graphbench.report.outputs import OUTPUTS, REPLAY
from graphbench.report.replay import replay_document, replay_lines


@pytest.mark.parametrize("argv, said", [
    (["--pipeline", "add_mul_sub"], "replay checks callable pipelines (torch or CuPy)"),
    (["--pipeline", "no_such_file.py"], "pipeline file 'no_such_file.py' not found"),
    (["--pipeline", "torch_mlp", "--repeats", "1000"], "--repeats must be 1 to 100"),
    (["--pipeline", "torch_mlp", "--repeats", "0"], "--repeats must be a positive integer"),
    (["--pipeline", "torch_mlp", "--seed", "-1"], "--seed"),
    (["--pipeline", "torch_mlp", "--elements", "2^50"], "more than any GPU holds"),
    ([], "the following arguments are required: --pipeline"),
])
def test_what_replay_cannot_check_is_one_line_and_exit_2(argv, said, capsys):
    assert main(["replay", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and said in err[0]


def test_without_a_gpu_or_its_framework_replay_says_so_in_one_line(capsys):
    """cupy_chain: no CuPy here, or no usable GPU where CuPy is installed."""
    assert main(["replay", "--pipeline", "cupy_chain"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and ("needs cupy, which is not installed" in err[0]
                              or "no usable GPU" in err[0] or "NVIDIA driver" in err[0])


def test_replay_help_shows_runnable_examples(capsys):
    with pytest.raises(SystemExit) as done:
        main(["replay", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "graphbench replay --pipeline torch_mlp" in out and "exit codes: 0" in out


def _check(wrong: int) -> ReplayCheck:
    cases = tuple(CaseOutcome(i, "fresh", i, (OutputOutcome("y", 8, wrong, wrong),))
                  for i in range(2))
    record = ReplayRecord("mlp", ("x",), ("y",), (), CaptureFacts(True), cases)
    return ReplayCheck(record, judge(record))


def test_a_passing_check_prints_pass_and_a_stale_one_each_finding():
    assert replay_lines(_check(0)) == [
        "replay check of mlp: 2 cases over y",
        "PASS: every replay matched eager execution on new data"]
    lines = replay_lines(_check(8))
    assert lines[1] == "STALE: 1 class(es) of stale replay"
    assert lines[2].startswith("  stale: the replay reads data seen at capture")
    assert "output `y` differs from eager after new inputs (8 of 8 elements" in lines[3]


def test_the_json_output_holds_the_verdict_the_findings_and_every_case():
    text = OUTPUTS["json"].renders[REPLAY].make(_check(8))
    document = json.loads(text)
    assert document["schema"] == "graphbench-replay" and document["passed"] is False
    assert [f["kind"] for f in document["findings"]] == ["stale"]
    assert len(document["record"]["cases"]) == 2
    assert replay_document(_check(0))["passed"] is True
