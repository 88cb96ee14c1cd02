"""graphbench.analyze.specs: --fail-on specs as users type them, their errors, and the default
gate."""

from __future__ import annotations

import pytest
from conftest import make_record, make_run

from graphbench.analyze.specs import (check_specs, default_specs, elements_label, parse_size,
                                      parse_spec)
from graphbench.errors import UsageError


def test_a_spec_must_end_where_its_unit_does():
    with pytest.raises(UsageError) as info:
        parse_spec("graph.wall:5%junk")
    assert info.value.message == "--fail-on 'graph.wall:5%junk' is not METRIC[@SIZE]:THRESHOLD"
    assert parse_spec(" graph.wall:5% ").threshold == pytest.approx(0.05)


def test_the_default_gate_catches_a_6_percent_busy_regression_and_a_12_percent_wall_one():
    base = make_record({"individual": 14.0, "graph": 4.3}, runs=[
        make_run({"individual": 14.0, "graph": 4.3}, seed=i) for i in range(3)])
    specs = {s.name: (s.text, s.gated) for s in default_specs(base)}
    assert specs == {"speedup": ("5%", False), "individual.wall": ("10%", True),
                     "graph.wall": ("10%", True), "individual.busy": ("5%", True)}


def test_spec_errors_say_what_is_wrong():
    with pytest.raises(UsageError) as info:
        parse_spec("graph.wall:5x")
    assert info.value.message == "--fail-on 'graph.wall:5x': graph.wall takes % or us"
    with pytest.raises(UsageError) as info:
        parse_spec("speedup:5us")
    assert info.value.message == "--fail-on 'speedup:5us': speedup takes % or x"
    with pytest.raises(UsageError) as info:
        parse_spec("graph.speed:5%")
    assert info.value.message == "unknown metric 'graph.speed'"
    with pytest.raises(UsageError) as info:
        parse_spec("graph.busy@2^40:5%")
    assert info.value.message == ("--fail-on size 2^40 is not an element count a GPU can hold")
    with pytest.raises(UsageError) as info:
        check_specs([parse_spec("graph.wall:5%"), parse_spec("graph.wall:10%")])
    assert info.value.message == "--fail-on gates graph.wall twice (5% and 10%)"
    assert parse_spec("speedup:1.5x").text == "1.5x" and parse_spec("graph.wall:2us").text == "2us"


def test_sizes_and_their_labels():
    assert parse_size("2^24") == 1 << 24 and parse_size("1000") == 1000
    assert elements_label(1 << 24) == "2^24" and elements_label(1000) == "1000"
    assert elements_label(1) == "2^0"
    assert parse_spec("graph.busy@2^20:5%").name == "graph.busy@2^20"
    with pytest.raises(UsageError):
        parse_size("0")


@pytest.mark.parametrize("text", ["graph.wall:１0%", "graph.wall:10٪", "graph.busy@2^2４:5%",
                                  "graph.wall:٣%"])
def test_a_threshold_in_other_digits_than_ascii_is_refused(text):
    with pytest.raises(UsageError, match="is not METRIC\\[@SIZE\\]:THRESHOLD"):
        parse_spec(text)


def test_a_gate_size_from_one_element_to_what_a_gpu_holds_is_accepted():
    from graphbench.config import MAX_ELEMENTS

    assert parse_size("1") == 1 and parse_size(str(MAX_ELEMENTS)) == MAX_ELEMENTS
    for text in ("0", str(MAX_ELEMENTS + 1)):
        with pytest.raises(UsageError) as info:
            parse_size(text, option="fail_on")
        assert (info.value.message, info.value.remedy) == (
            f"fail_on size {text} is not an element count a GPU can hold",
            "e.g. graph.busy@2^24:5%")
    with pytest.raises(UsageError) as info:
        parse_size("many")
    assert (info.value.message, info.value.remedy) == (
        "--fail-on size must be an element count, got 'many'", "e.g. 4096, 2^20 or 1e6")
    with pytest.raises(UsageError) as info:
        parse_size("2^99", option="fail_on")
    assert info.value.message == "fail_on size 2^99 is far too large"
