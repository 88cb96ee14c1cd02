"""graphbench.gate.specs: --fail-on specs as users type them, their errors, and the default
gate."""

from __future__ import annotations

import pytest
from conftest import make_record, make_run

from graphbench.gate.specs import (FailSpec, check_spec_fields, check_specs, default_specs,
                                   elements_label, parse_size, parse_spec)
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
                     "graph.wall": ("10%", True), "floor.launch": ("10%", True),
                     "floor.replay": ("10%", True), "individual.busy": ("5%", True)}


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


def refusal(call, *args, **kwargs) -> tuple[str, str]:
    with pytest.raises(UsageError) as info:
        call(*args, **kwargs)
    return info.value.message, info.value.remedy


def test_each_spec_error_says_how_to_write_it_right():
    assert refusal(parse_spec, "graph.wall:5%junk")[1] == (
        "e.g. graph.wall:10%, individual.busy@2^24:5%, individual.wall:0.5us")
    for text in ("graph.wall:5x", "speedup:5us"):
        assert refusal(parse_spec, text)[1] == (
            "e.g. graph.wall:10%, individual.wall:0.5us, speedup:5%")
    assert refusal(parse_spec, "graph.speed:5%")[1] == (
        "use speedup, speedup.fused, floor.launch, floor.replay or "
        "MODE.{wall,submit,device,busy,cycles} with MODE one of "
        "individual, driver, pdl, graph, graph-pdl, unrolled, loop, fused, torch-compile")
    assert refusal(check_specs, [parse_spec("graph.wall:5%"), parse_spec("graph.wall:10%")]) == (
        "--fail-on gates graph.wall twice (5% and 10%)", "give each metric once")


def test_a_spec_s_bad_size_is_named_with_the_caller_s_option():
    assert refusal(parse_spec, "graph.busy@2^40:5%", option="fail_on")[0] == (
        "fail_on size 2^40 is not an element count a GPU can hold")


def test_a_hand_built_spec_is_held_to_what_parse_spec_would_make():
    """check_spec_fields (the API's fail_on=FailSpec(...)): a threshold from 0
    to the largest float, flags that are bools, a size from 1 to MAX_ELEMENTS
    or None; each refusal names the field, its value and what it may be."""
    import sys

    from graphbench.config import MAX_ELEMENTS

    for threshold in (0, 0.0, 0.05, 3, sys.float_info.max):
        check_spec_fields(FailSpec("graph.wall", threshold, True), "fail_on x")
    for size in (None, 1, 4096, MAX_ELEMENTS):
        check_spec_fields(FailSpec("graph.busy", 0.05, True, size=size), "fail_on x")
    threshold_rule = "a threshold is a finite number of 0 or more"
    for threshold in (True, -1.0, float("inf"), "5", 10 ** 400):
        message, remedy = refusal(check_spec_fields, FailSpec("graph.wall", threshold, True),
                                  "fail_on x")
        assert message.startswith("fail_on x has threshold ") and remedy == threshold_rule
    assert refusal(check_spec_fields, FailSpec("graph.wall", 0.1, 1), "fail_on x") == (
        "fail_on x has relative=1", "relative is True or False")
    assert refusal(check_spec_fields, FailSpec("graph.wall", 0.1, True, gated="yes"),
                   "fail_on x") == ("fail_on x has gated='yes'", "gated is True or False")
    size_rule = f"a size is None or an element count from 1 to {MAX_ELEMENTS:,}"
    for size in (0, -1, MAX_ELEMENTS + 1, 2.0, True):
        assert refusal(check_spec_fields, FailSpec("graph.busy", 0.05, True, size=size),
                       "fail_on x") == (f"fail_on x has size {size!r}", size_rule)
