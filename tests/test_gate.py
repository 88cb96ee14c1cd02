"""graphbench.gate.judge: the gate's fail-closed checks on both records, and its choice between a
comparison and an A/B record.

Covers graphbench/gate/judge.py.
Covers graphbench/gate/__init__.py."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import make_record, make_run, with_runs
from tests_helpers import replace_run

from graphbench.gate.judge import check_decidable, check_judgeable, gate, judge, judged
from graphbench.errors import RecordError, UsageError, VerificationError
from graphbench.record.model import Comparison, Verdict


def ab(record):
    return make_record({"individual": 14.0, "graph": 4.3, "individual@base": 14.0,
                        "graph@base": 4.4})


def verdict(metric, verdict="same", gated=True, note=""):
    return Verdict(metric=metric, verdict=verdict, gated=gated, threshold="5%", note=note)


def test_judged_checks_the_current_records_results_first():
    base, current = make_record(), make_record(passed=False)
    with pytest.raises(VerificationError) as caught:
        judged(base, current, None)
    assert caught.value.message == "the current record failed verification"
    assert caught.value.remedy == "fix the code until graphbench run verifies it"


def test_check_judgeable_messages():
    record = make_record()
    check_judgeable(record, "baseline")  # a complete record passes
    with pytest.raises(RecordError) as caught:
        check_judgeable(replace_run(record, checks=()), "baseline")
    assert caught.value.message == ("the baseline record has no verification checks, so it "
                                    "cannot be judged")
    assert caught.value.remedy == "give a record written by graphbench run --json"
    with pytest.raises(RecordError) as caught:
        check_judgeable(make_record(passed=False, elements=12345), "current")
    assert caught.value.message == ("the current record failed verification at 12,345 "
                                    "elements, so it cannot be judged")
    assert caught.value.remedy == "make the record again from code that verifies"
    with pytest.raises(RecordError) as caught:
        check_judgeable(replace_run(record, rounds=0), "current")
    assert caught.value.message == "the current record has no timed rounds"
    assert caught.value.remedy == "give a complete record"
    with pytest.raises(RecordError, match="the baseline record has no timed rounds"):
        check_judgeable(replace_run(record, modes={}), "baseline")
    point = make_record(passed=False, elements=4096)
    with pytest.raises(RecordError, match="failed verification at 4,096 elements"):
        check_judgeable(dataclasses.replace(record, gate_points=(point,)), "baseline")


def test_judged_refuses_a_bad_baseline_before_looking_at_the_current():
    with pytest.raises(RecordError, match="the baseline record failed verification"):
        judged(make_record(passed=False), make_record(passed=False), None)
    with pytest.raises(RecordError, match="the current record has no timed rounds"):
        judged(make_record(), replace_run(make_record(), rounds=0), None)


def test_judge_refuses_mixing_ab_records_and_needs_one_or_the_other():
    base = make_record()
    for pair in ((ab(base), base), (base, ab(base))):
        with pytest.raises(UsageError) as caught:
            judge(*pair, None)
        assert caught.value.message == ("an A/B record holds both builds and is judged on its "
                                        "own, not against another record")
        assert caught.value.remedy == ("graphbench compare AB.json (one file: the candidate "
                                       "against its @base build)")
    with pytest.raises(UsageError) as caught:
        judge(None, base, None)
    assert caught.value.message == ("compare needs a baseline and a current record, or one A/B "
                                    "record")
    assert caught.value.remedy == ("graphbench compare BASE.json NEW.json; an A/B record comes "
                                   "from graphbench run --ab BASE.cu")


def test_judge_and_gate_use_the_given_specs():
    from graphbench.gate.specs import parse_spec

    record = ab(None)
    specs = [parse_spec("graph.wall:50%")]
    assert [v.metric for v in judge(None, record, specs).verdicts] == ["graph.wall"]
    assert len(judge(None, record, None).verdicts) > 1  # the A/B defaults
    base = with_runs(make_record(), *(make_run(seed=s) for s in range(3)))
    gated = gate(base, make_record(seed=5), specs)
    assert [v.metric for v in gated.verdicts if v.gated] == ["graph.wall"]


def test_judge_compares_against_the_baseline():
    base = make_record()
    comparison = judge(base, make_record(seed=1), None)
    assert isinstance(comparison, Comparison) and comparison.verdicts


def test_check_decidable_messages():
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison((verdict("speedup"),), (), ("elements 1 vs 2", "iters 3 vs 4")))
    assert caught.value.message == "records are not comparable: elements 1 vs 2; iters 3 vs 4"
    assert caught.value.remedy == ("compare records of the same pipeline, --elements, --iters, "
                                   "--depth, --stages and --flush-l2")
    missing = Comparison((verdict("speedup"), verdict("graph.busy", "missing", note="no busy"),
                          verdict("fused.wall", "missing", note="absent"),
                          verdict("pdl.wall", "missing", gated=False, note="ungated")), (), ())
    with pytest.raises(RecordError) as caught:
        check_decidable(missing)
    assert caught.value.message == "cannot judge graph.busy (no busy), fused.wall (absent)"
    assert caught.value.remedy == ("gate only what both records measured (--fail-on), or "
                                   "remake one")
    nothing = Comparison((verdict("speedup", "undecided", note="too few processes"),
                          verdict("graph.wall", "undecided", note="too few processes"),
                          verdict("fused.wall", "undecided", note="other device"),
                          verdict("pdl.wall", "same", gated=False, note="ungated"),
                          verdict("graph.busy", "undecided")), (), ())
    with pytest.raises(RecordError) as caught:
        check_decidable(nothing)
    assert caught.value.message == ("the gate judged nothing, so it has not passed (speedup, "
                                    "graph.wall: too few processes; fused.wall: other device)")
    assert caught.value.remedy == ("gate records of the same device model, from a baseline of 3 "
                                   "or more processes, or use run --ab")
    assert caught.value.details == ("speedup: too few processes\ngraph.wall: too few processes\n"
                                    "fused.wall: other device")
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison((), (), ()))
    assert caught.value.message == ("the gate judged nothing, so it has not passed (no metric "
                                    "is gated on this pair)")
    check_decidable(Comparison((verdict("speedup", "slower"),), (), ()))  # decided: no error


def test_gate_decides_or_raises():
    base = with_runs(make_record(), *(make_run(seed=s) for s in range(3)))
    comparison = gate(base, make_record(seed=5))
    assert comparison.judged and comparison.passed
    with pytest.raises(RecordError) as caught:
        gate(make_record(), make_record(seed=5))
    assert caught.value.message.startswith("the gate judged nothing, so it has not passed "
                                           "(individual.wall, graph.wall, fused.wall and 4 more: "
                                           "too few baseline processes)")
    assert caught.value.remedy.startswith("make the baseline with --processes 3 or more")
    assert "1 process(es) cannot tell a change" in caught.value.details


NOISY = "not gateable on this pair: it detects 340.9%, the threshold is 10.0%; not even 64 " \
        "processes on each side would make it gateable"


def test_a_gate_that_judged_nothing_says_why_in_a_line_and_keeps_each_note_in_its_details():
    """Every metric too noisy (the docs' softmax example at 2^16, 3 processes
    a side): a short message naming them and the threshold, a remedy for
    noise, the notes whole in the details."""
    noisy = [Verdict(f"{mode}.wall", "not gateable", True, "10%", note=NOISY)
             for mode in ("individual", "graph", "fused", "pdl", "graph_k4")]
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison(tuple(noisy), (), ()))
    assert caught.value.message == ("the gate judged nothing, so it has not passed "
                                    "(individual.wall, graph.wall, fused.wall and 2 more: too "
                                    "noisy at 10%)")
    assert caught.value.remedy.startswith("run more --processes on each side")
    assert caught.value.details.splitlines() == [f"{v.metric}: {NOISY}" for v in noisy]
    assert str(caught.value) == caught.value.message


def test_a_long_reason_is_cut_to_its_first_clause_in_the_message():
    long = "a reason " + "that goes on " * 20 + ": and its arithmetic"
    with pytest.raises(RecordError) as caught:
        check_decidable(Comparison((verdict("graph.wall", "undecided", note=long),), (), ()))
    assert len(caught.value.message) < 150 and "arithmetic" not in caught.value.message
    assert caught.value.details == f"graph.wall: {long}"
