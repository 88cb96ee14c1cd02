"""The replay check's battery (graphbench.replay.plan), its record's round
trip (graphbench.replay.outcomes) and its verdicts read from recorded
outcomes (graphbench.replay.verdicts): each class of stale replay named
from the evidence a GPU run records, a correct replay never flagged.

Covers graphbench/replay/plan.py.
Covers graphbench/replay/outcomes.py.
Covers graphbench/replay/__init__.py."""

from __future__ import annotations

import pytest

from graphbench.replay.outcomes import (CaptureFacts, CaseOutcome, OutputOutcome, ReplayRecord,
                                        decode, encode)
from graphbench.replay.plan import (FRESH, POISON_OUTPUTS, REPEATS, SAME_INPUTS,
                                    SCALARS, Takes, plan)
from graphbench.replay.verdicts import judge

N = 1 << 20
KERNELS = ("add", "mul")


def run(takes: Takes, capture: CaptureFacts | None = None, wrong=None, repeats: int = 3,
        **fields) -> ReplayRecord:
    """A record of `takes`'s battery in which every case came out right,
    except where `wrong(case)` gives the outcome of output `y`; `fields`,
    by perturbation (poison_inputs for poison-inputs): a case's other fields."""
    cases = []
    for case in plan(takes, repeats):
        out = (wrong(case) if wrong else None) or OutputOutcome("y", N, 0)
        given = {"eager_kernels": KERNELS, "replay_kernels": KERNELS}
        if case.perturbation == SAME_INPUTS:
            given.update(replay_repeated=True, eager_repeated=True)  # deterministic
        given.update(fields.get(case.perturbation.replace("-", "_"), {}))
        cases.append(CaseOutcome(case.index, case.perturbation, case.repeat, (out,), **given))
    return ReplayRecord("f", takes.inputs, takes.outputs, takes.sizes,
                        capture or CaptureFacts(True, scalars={"alpha": 2.0, "n": N}),
                        tuple(cases))


TAKES = Takes(("x",), ("y",))
SCALAR_TAKES = Takes(("x",), ("y",), scalars=("alpha", "n"), sizes=("n",))


def kinds(record: ReplayRecord) -> list[str]:
    return [f.kind for f in judge(record).findings]


def test_the_battery_runs_every_perturbation_that_applies_in_every_repeat():
    cases = plan(TAKES, 2)
    assert [c.perturbation for c in cases[:4]] == [FRESH, "poison-inputs", POISON_OUTPUTS,
                                                   SAME_INPUTS]
    assert [c.index for c in cases] == list(range(8)) and {c.repeat for c in cases} == {0, 1}
    full = plan(Takes(("x",), ("y",), scalars=("alpha",)))
    assert len(full) == 5 * REPEATS and SCALARS in {c.perturbation for c in full}
    with pytest.raises(ValueError, match="needs an output"):
        plan(Takes(("x",), ()))
    with pytest.raises(ValueError, match="a size must be one of the scalars"):
        plan(Takes(("x",), ("y",), sizes=("n",)))


def test_a_correct_replay_passes_and_a_record_round_trips():
    record = run(SCALAR_TAKES)
    assert judge(record).passed and judge(record).cases == 5 * 3
    assert decode(encode(record)) == record


def test_a_hand_edited_record_names_the_field_that_is_wrong():
    text = encode(run(TAKES)).replace(b'"wrong":0', b'"wrong":"0"', 1)
    with pytest.raises(ValueError, match=r"at `\$.cases\[0\].outputs\[0\].wrong`"):
        decode(text)
    with pytest.raises(ValueError, match="unknown perturbation 'sideways'"):
        decode(encode(run(TAKES)).replace(b'"fresh"', b'"sideways"', 1))


def test_a_callable_that_cannot_be_captured_cannot_be_judged():
    record = run(TAKES, CaptureFacts(False, error="operation not permitted when stream is "
                                     "capturing"))
    judgement = judge(record)
    assert not judgement.passed and judgement.findings == ()
    assert judgement.unjudged.startswith("the callable could not be captured: operation not")


def test_an_output_left_with_the_poison_is_a_tensor_allocated_during_capture():
    def poisoned(case):
        if case.perturbation == POISON_OUTPUTS:
            return OutputOutcome("y", N, N, 0, N)
    record = run(TAKES, CaptureFacts(True, allocated_bytes=4 * N), poisoned)
    [finding] = judge(record).findings
    assert finding.kind == "capture-allocation"
    assert finding.evidence == ("stale: output `y` kept the poison written before the replay "
                                "(1,048,576 of 1,048,576 elements); 4,194,304 bytes were "
                                "allocated during capture")
    assert finding.cause == "writes a tensor it allocates during capture, not the buffer you passed"


@pytest.mark.parametrize("varied, kind", [({"alpha": 3.0, "n": N}, "host-scalar"),
                                          ({"alpha": 2.0, "n": N // 2}, "frozen-shape")])
def test_wrong_only_after_new_scalars_is_a_baked_scalar_or_a_frozen_shape(varied, kind):
    def baked(case):
        if case.perturbation == SCALARS:
            return OutputOutcome("y", N, N, N)
    record = run(SCALAR_TAKES, wrong=baked, scalars={"scalars": varied})
    [finding] = judge(record).findings
    assert finding.kind == kind and "wrong after new scalars (" in finding.evidence


def test_wrong_on_new_data_where_eager_changed_its_kernels_is_a_frozen_branch():
    def branch(case):
        if case.perturbation == FRESH:
            return OutputOutcome("y", N, N // 2, N // 2)
    record = run(TAKES, wrong=branch, fresh={"eager_kernels": ("add", "relu")})
    assert kinds(record) == ["frozen-branch"]
    stale = run(TAKES, wrong=branch)  # eager's kernels never moved: no cause is named
    assert kinds(stale) == ["stale"]
    assert "524,288 of 1,048,576 elements, 524,288 equal to the captured" in \
        judge(stale).findings[0].evidence


def test_a_race_seen_in_some_repeats_only_is_flagged_and_says_how_often():
    def racy(case):
        if case.perturbation == FRESH and case.repeat == 1:
            return OutputOutcome("y", N, 17, 0)
    record = run(TAKES, CaptureFacts(True, side_stream_work=2), racy)
    found = judge(record).findings
    assert [f.kind for f in found] == ["side-stream"]  # the detector names the stale values
    assert kinds(run(TAKES, wrong=racy)) == ["stale"]
    assert judge(run(TAKES, wrong=racy)).findings[0].evidence.endswith(", in 1 of 3 repeats")


def test_replays_that_repeat_where_eager_does_not_are_repeating_random_numbers():
    record = run(TAKES, same_inputs={"replay_repeated": True, "eager_repeated": False})
    [finding] = judge(record).findings
    assert finding.kind == "repeating-random" and "in 3 of 3 cases" in finding.evidence
    deterministic = run(TAKES, same_inputs={"replay_repeated": True, "eager_repeated": True})
    assert judge(deterministic).passed


def test_a_random_callable_is_held_only_to_drawing_anew_on_every_replay():
    """Where eager draws new numbers on unchanged inputs, no replay can match
    eager's values: graph-safe random numbers pass, whatever the values."""
    def differs(case):
        return OutputOutcome("y", N, N)
    fresh = run(TAKES, wrong=differs, same_inputs={"replay_repeated": False,
                                                   "eager_repeated": False})
    assert judge(fresh).passed
    stuck = run(TAKES, wrong=differs, same_inputs={"replay_repeated": True,
                                                   "eager_repeated": False})
    assert kinds(stuck) == ["repeating-random"]


def test_kernels_the_replay_adds_or_drops_are_named():
    added = run(TAKES, **{p: {"replay_kernels": ("add", "mul", "mul", "copy")} for p in
                          ("fresh", "poison_inputs", "poison_outputs", "same_inputs")})
    [finding] = judge(added).findings
    assert finding.kind == "kernels"
    assert finding.evidence == "the replay runs copy, mul that eager does not"
    dropped = run(TAKES, **{p: {"replay_kernels": ("add",)} for p in
                            ("fresh", "poison_inputs", "poison_outputs", "same_inputs")})
    assert judge(dropped).findings[0].evidence == "eager runs mul that the replay does not"


@pytest.mark.parametrize("facts, kind", [
    (CaptureFacts(True, pageable_copies=1), "pageable-staging"),
    (CaptureFacts(True, host_syncs=3), "host-sync")])
def test_detectors_name_what_values_alone_cannot_show(facts, kind):
    [finding] = judge(run(TAKES, facts)).findings
    assert finding.kind == kind and finding.evidence.startswith(("1 ", "3 "))
