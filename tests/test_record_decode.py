"""graphbench.record.decode: values decoded by type, the flat fast path, and how a bad value is
named and shown.

Covers graphbench/record/machine.py."""

from __future__ import annotations

import dataclasses
import json
import math
import typing

import pytest
from conftest import make_record
from tests_helpers import refusal

from graphbench.errors import RecordError
from graphbench.record import codec
from graphbench.record import decode as decode_module
from graphbench.record.decode import MAX_INT, _shown, decode
from graphbench.record.machine import DeviceInfo, HostInfo, ToolInfo
from graphbench.record.model import BusyReading, Check, Condition, SubmitReading


@pytest.mark.parametrize("value, shown", [
    ("abc", '"abc"'), (3, "3"), (1.5, "1.5"), (True, "true"), (None, "null"),
    ({"a": 1}, "an object"), ([1], "a list"), ("x" * 38, '"' + "x" * 38 + '"'),
])
def test_a_bad_value_is_shown_as_json_or_its_kind(value, shown):
    assert _shown(value) == shown


def test_a_long_bad_value_is_cut_to_forty_characters():
    text = _shown("y" * 100)
    assert len(text) == 40 and text == '"' + "y" * 36 + "..."


def test_whole_numbers_reach_two_to_the_63rd_and_no_further():
    assert decode(tuple[int, ...], [2**63, -(2**63)], "x") == (2**63, -(2**63))
    with pytest.raises(RecordError) as info:
        decode(tuple[int, ...], [1, 2**63 + 1], "x")
    assert info.value.message.startswith("x[1]: a whole number beyond 2^63")
    assert decode(float, 2**63, "x") == float(2**63) and decode(float, 1e300, "x") == 1e300
    with pytest.raises(RecordError, match="expected a finite number"):
        decode(float, float("inf"), "x")


@pytest.mark.parametrize("hint, value, said", [
    (int, "7", 'x: expected a whole number, got "7"'),
    (bool, 1, "x: expected true or false, got 1"),
    (str, 5, "x: expected a string, got 5"),
    (tuple[float, ...], {"a": 1}, "x: expected a list, got an object"),
    (dict[str, int], [1], "x: expected an object, got a list"),
    (dict[str, int], {"k": "v"}, 'x.k: expected a whole number, got "v"'),
    (int | None, "v", 'x: expected a whole number, got "v"'),
    (tuple[str, ...], ["a", 3], "x[1]: expected a string, got 3"),
])
def test_a_wrong_type_is_named_with_the_value_found(hint, value, said):
    with pytest.raises(RecordError) as info:
        decode(hint, value, "x")
    assert info.value.message == said


def test_a_top_level_document_of_the_wrong_kind_is_the_record():
    from graphbench.record.model import RunRecord

    with pytest.raises(RecordError) as info:
        decode(RunRecord, [1], "")
    assert info.value.message == "the record: expected an object, got a list"


def test_a_long_wrong_value_is_cut_to_forty_characters():
    from graphbench.record.model import Environment

    kept = refusal(lambda: decode(Environment, {"pinned_cpu": "x" * 38}, "env"), RecordError)[0]
    assert kept == f'env.pinned_cpu: expected a whole number, got "{"x" * 38}"'
    cut = refusal(lambda: decode(Environment, {"pinned_cpu": "x" * 39}, "env"), RecordError)[0]
    assert cut == f'env.pinned_cpu: expected a whole number, got "{"x" * 36}...'


NONE = type(None)


def _instance(cls, entries):
    return decode_module._flat_instance(cls, decode_module._flat(cls), entries)


def test_flat_lists_each_field_s_plain_types_the_required_names_and_the_defaults():
    accepted, required, defaults = decode_module._flat(BusyReading)
    assert accepted == {"us": frozenset({float}), "hold_us": frozenset({float, NONE}),
                        "covered": frozenset({bool, NONE}),
                        "sm_clock_mhz": frozenset({float, NONE})}
    assert required == frozenset({"us"}) and type(required) is frozenset
    assert defaults == {"hold_us": None, "covered": None, "sm_clock_mhz": None}
    accepted, required, defaults = decode_module._flat(ToolInfo)
    assert accepted == {"name": frozenset({str}), "version": frozenset({str}),
                        "git_commit": frozenset({str, NONE}), "git_dirty": frozenset({bool, NONE})}
    assert required == {"name", "version"} and defaults == {"git_commit": None, "git_dirty": None}
    assert decode_module._flat(HostInfo) == (
        {"hostname": frozenset({str}), "platform": frozenset({str}), "processor": frozenset({str})},
        frozenset(), {"hostname": "", "platform": "", "processor": ""})


def test_a_class_with_a_structured_field_or_its_own_checks_is_not_flat():
    assert decode_module._flat(Condition) is None   # busy, submit: dicts of readings

    @dataclasses.dataclass(frozen=True)
    class Checked:
        us: float

        def __post_init__(self):
            if self.us > 5:
                raise ValueError("too big")

    assert decode_module._flat(Checked) is None

    @dataclasses.dataclass(frozen=True)
    class Late:        # a structured field after plain ones
        us: float
        names: tuple[str, ...] = ()

    assert decode_module._flat(Late) is None


def test_flat_instance_takes_only_dicts_of_plain_known_finite_values_with_every_required_one():
    made = _instance(BusyReading, {"us": 2.5, "covered": True})
    assert type(made) is BusyReading and made == BusyReading(2.5, None, True, None)
    assert {f.name: getattr(made, f.name) for f in dataclasses.fields(made)} == {
        "us": 2.5, "hold_us": None, "covered": True, "sm_clock_mhz": None}  # every field set
    assert _instance(BusyReading, {"us": 2.5, "hold_us": None}) == BusyReading(2.5)
    for refused in ([("us", 2.5)], {"us": 2.5, "extra": 1.0}, {"us": 2}, {"us": "2.5"},
                    {"us": math.inf}, {"us": -math.inf}, {"us": math.nan}, {"hold_us": 1.0},
                    {"us": 1.0, "covered": 1}, {"us": None}):
        assert _instance(BusyReading, refused) is None, refused

    class Mapping(dict):
        pass

    assert _instance(BusyReading, Mapping(us=2.5)) is None
    whole = {"name": "graph", "passed": True, "elements": MAX_INT, "bad_elements": -MAX_INT,
             "max_abs_error": 0.0, "first_bad_index": None}
    assert _instance(Check, whole) == Check("graph", True, MAX_INT, -MAX_INT, 0.0, None)
    assert _instance(Check, {**whole, "elements": MAX_INT + 1}) is None
    assert _instance(Check, {**whole, "bad_elements": -MAX_INT - 1}) is None
    assert _instance(Check, {**whole, "first_bad_index": 3}).first_bad_index == 3
    assert _instance(HostInfo, {}) == HostInfo()


def test_values_the_fast_path_refuses_are_read_or_refused_by_the_checked_path_by_name():
    hint = dict[str, BusyReading]
    read = decode(hint, {"a": {"us": 1}, "b": {"us": 2.0, "extra": 1}}, "runs[0].busy")
    assert read == {"a": BusyReading(1.0), "b": BusyReading(2.0)}
    assert type(read["a"].us) is float and list(read) == ["a", "b"]
    with pytest.raises(RecordError) as info:
        decode(hint, {"a": {"us": 1.0}, "b": {"us": "x"}}, "runs[0].busy")
    assert info.value.message == 'runs[0].busy.b.us: expected a number, got "x"'
    with pytest.raises(RecordError) as info:
        decode(hint, {"a": {"hold_us": 1.0}}, "c")
    assert info.value.message == "c.a.us: required field is missing"
    with pytest.raises(RecordError) as info:
        decode(hint, {"w": 3}, "c")
    assert info.value.message == "c.w: expected an object, got 3"
    with pytest.raises(RecordError) as info:
        decode(hint, [1], "c")
    assert info.value.message == "c: expected an object, got a list"
    assert decode(dict[str, SubmitReading], {"m": {"us": 0.5, "covered": False}}, "") == \
        {"m": SubmitReading(0.5, False)}
    # a dict of structured values takes the general way
    assert decode(dict[str, Condition], {"x": {"busy": {"w": {"us": 1.0}}}}, "") == \
        {"x": Condition(busy={"w": BusyReading(1.0)})}


def test_a_flat_class_read_alone_skips_init_and_a_refused_one_is_named():
    device = decode(DeviceInfo, {"index": 0, "name": "H200", "compute_capability": "9.0",
                                 "arch": "sm_90", "l2_bytes": 52428800}, "device")
    assert device == DeviceInfo(0, "H200", "9.0", "sm_90", l2_bytes=52428800)
    with pytest.raises(RecordError) as info:
        decode(DeviceInfo, {"index": 0, "name": "H200", "compute_capability": "9.0"}, "device")
    assert info.value.message == "device.arch: required field is missing"
    with pytest.raises(RecordError) as info:
        decode(DeviceInfo, {"index": 0.5, "name": "H200", "compute_capability": "9.0",
                            "arch": "sm_90"}, "device")
    assert info.value.message.startswith("device.index: ")


def test_whole_numbers_in_a_list_stay_integers():
    grid = decode(tuple[int, ...], [16, 1, 1], "pipeline.grid")
    assert grid == (16, 1, 1) and [type(v) for v in grid] == [int, int, int]
    assert [type(v) for v in decode(tuple[float, ...], [1, 2.5], "x")] == [float, float]
    record = make_record(rounds=3)
    again = codec.load_document(json.loads(json.dumps(codec.run_document(record))), "r.json")
    assert [type(v) for v in again.pipeline.grid] == [int, int, int]


def test_a_field_of_named_values_takes_only_those():
    """Environment.host_probe: what the round probes timed, which decides
    whether two records' host speeds can be related at all."""
    hint = typing.Literal["python", "launch"]
    assert decode(hint, "launch", "env.host_probe") == "launch"
    for bad, shown in (("bogus", '"bogus"'), (3, "3"), (None, "null")):
        with pytest.raises(RecordError) as caught:
            decode(hint, bad, "env.host_probe")
        assert caught.value.message == f'env.host_probe: expected one of "python", "launch", got {shown}'


def test_a_number_too_long_for_a_float_is_named_by_its_digits():
    for value in (10**30, -(10**30)):
        with pytest.raises(RecordError) as info:
            decode(float, value, "x")
        assert info.value.message == "x: expected a number, got a 31-digit one"


def test_a_null_is_kept_where_the_type_allows_it_and_named_where_it_does_not():
    assert decode(tuple[int | None, ...], [1, None], "x") == (1, None)
    assert decode(dict[str, float | None], {"a": None}, "x") == {"a": None}
    with pytest.raises(RecordError) as info:
        decode(tuple[int | str, ...], [1, None], "x")
    assert info.value.message == "x[1]: expected a whole number, got null"


def test_a_plain_field_out_of_range_is_refused_by_name_when_its_class_is_read_the_checked_way():
    """The flat reader refuses the value, and the field-by-field reader
    must refuse it too, not take it as plainly an int or a float."""
    device = {"index": 2**64, "name": "H200", "compute_capability": "9.0", "arch": "sm_90"}
    with pytest.raises(RecordError) as info:
        decode(DeviceInfo, device, "device")
    assert info.value.message == "device.index: a whole number beyond 2^63, which no record holds"
    with pytest.raises(RecordError) as info:
        decode(BusyReading, {"us": math.nan}, "r")
    assert info.value.message == "r.us: expected a finite number, got nan"
    with pytest.raises(RecordError) as info:   # a field of the record itself: no leading dot
        decode(DeviceInfo, device, "")
    assert info.value.message.startswith("index: a whole number beyond 2^63")


def test_the_c_reader_builds_a_plainly_well_formed_instance_and_gives_none_for_anything_else():
    """decode_json and convert are the fast way: None sends the careful way,
    which names the problem."""
    read = decode_module.decode_json(BusyReading, b'{"us": 2.5, "covered": true}')
    assert type(read) is BusyReading and read == BusyReading(2.5, None, True, None)
    assert decode_module.decode_json(BusyReading, b'{"us": "2.5"}') is None
    assert decode_module.decode_json(BusyReading, b'{"us": ') is None
    assert decode_module.decode_json(None, b'{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    made = decode_module.convert(BusyReading, {"us": 2.5, "hold_us": 1.0})
    assert type(made) is BusyReading and made == BusyReading(2.5, 1.0)
    assert decode_module.convert(BusyReading, {"us": "2.5"}) is None
    assert decode_module.convert(BusyReading, {"hold_us": 1.0}) is None
