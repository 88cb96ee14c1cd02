"""graphbench.record.decode: values decoded by type with msgspec, and how a bad value is
named: the field's path msgspec gives, after the caller's, and what was expected.

Covers graphbench/record/machine.py."""

from __future__ import annotations

import json
import typing

import msgspec
import pytest
from conftest import make_record
from tests_helpers import refusal

from graphbench.config import RunConfig
from graphbench.errors import RecordError
from graphbench.record import codec
from graphbench.record.decode import REMEDY, decode, decode_json, field_shapes, said, shape
from graphbench.record.machine import DeviceInfo, Environment
from graphbench.record.model import BusyReading, Condition, SubmitReading


@pytest.mark.parametrize("hint, value, said_", [
    (int, "7", "x: expected a whole number, got a string"),
    (bool, 1, "x: expected true or false, got a whole number"),
    (str, 5, "x: expected a string, got a whole number"),
    (tuple[float, ...], {"a": 1}, "x: expected a list, got an object"),
    (dict[str, int], [1], "x: expected an object, got a list"),
    (dict[str, int], {"k": "v"}, "x[...]: expected a whole number, got a string"),
    (int | None, "v", "x: expected a whole number or null, got a string"),
    (tuple[str, ...], ["a", 3], "x[1]: expected a string, got a whole number"),
    (tuple[int | str, ...], [1, None], "x[1]: expected a whole number or a string, got null"),
    (typing.Literal["python", "launch"], "bogus", "x: invalid enum value 'bogus'"),
])
def test_a_wrong_type_is_named_by_its_path_and_what_was_expected(hint, value, said_):
    assert refusal(lambda: decode(hint, value, "x"), RecordError) == (said_, REMEDY)


def test_a_field_s_path_follows_the_caller_s_and_a_missing_one_is_named_whole():
    device = {"index": 0, "name": "H200", "compute_capability": "9.0"}
    assert refusal(lambda: decode(DeviceInfo, device, "device"), RecordError)[0] == \
        "device.arch: required field is missing"
    assert refusal(lambda: decode(DeviceInfo, device), RecordError)[0] == \
        "arch: required field is missing"  # a field of the record itself: no leading dot
    assert refusal(lambda: decode(Environment, {"pinned_cpu": "x" * 500}, "env"),
                   RecordError)[0] == "env.pinned_cpu: expected a whole number or null, got a string"
    assert refusal(lambda: decode(dict[str, BusyReading], {"a": {"hold_us": 1.0}}, "c"),
                   RecordError)[0] == "c[...].us: required field is missing"
    assert refusal(lambda: decode(DeviceInfo, [1]), RecordError)[0] == \
        "the record: expected an object, got a list"


def test_said_turns_any_msgspec_message_into_one_line():
    assert said("Expected `float`, got `str` - at `$.runs[0].modes[...].wall_us[3]`") == \
        "runs[0].modes[...].wall_us[3]: expected a number, got a string"
    assert said("Object missing required field `checks` - at `$.runs[0]`") == \
        "runs[0].checks: required field is missing"
    assert said("Number out of range", "x") == "x: number out of range"


def test_a_configuration_s_own_check_is_a_record_error():
    """RunConfig checks its values itself; its ConfigError is a ValueError,
    which msgspec passes on with the field's path: a RecordError naming it."""
    message, _ = refusal(lambda: decode(RunConfig, {"min_rounds": 0}, "config"), RecordError)
    assert message.startswith("config: min_rounds must be")
    assert refusal(lambda: decode(RunConfig, {"min_rounds": 0}), RecordError)[0].startswith(
        "the record: min_rounds must be")


def test_values_are_built_as_the_model_has_them():
    read = decode(dict[str, BusyReading], {"a": {"us": 1}, "b": {"us": 2.0, "extra": 1}}, "x")
    assert read == {"a": BusyReading(1.0), "b": BusyReading(2.0)}  # an unknown field is left
    assert type(read["a"].us) is float and list(read) == ["a", "b"]
    assert decode(dict[str, SubmitReading], {"m": {"us": 0.5, "covered": False}}) == \
        {"m": SubmitReading(0.5, False)}
    assert decode(dict[str, Condition], {"x": {"busy": {"w": {"us": 1.0}}}}) == \
        {"x": Condition(busy={"w": BusyReading(1.0)})}
    assert decode(tuple[int | None, ...], [1, None], "x") == (1, None)
    grid = decode(tuple[int, ...], [16, 1, 1], "pipeline.grid")
    assert grid == (16, 1, 1) and [type(v) for v in grid] == [int, int, int]
    assert [type(v) for v in decode(tuple[float, ...], [1, 2.5], "x")] == [float, float]
    record = make_record(rounds=3)
    again = codec.load_document(json.loads(json.dumps(codec.run_document(record))), "r.json")
    assert [type(v) for v in again.pipeline.grid] == [int, int, int]


def test_json_text_is_read_straight_into_the_model_and_text_that_is_no_json_is_left_to_parse():
    read = decode_json(BusyReading, b'{"us": 2.5, "covered": true}')
    assert type(read) is BusyReading and read == BusyReading(2.5, None, True, None)
    assert refusal(lambda: decode_json(BusyReading, b'{"us": "2.5"}'), RecordError)[0] == \
        "us: expected a number, got a string"
    assert refusal(lambda: decode_json(BusyReading, b'{"us": 1e400}'), RecordError)[0] == \
        "us: number out of range"
    with pytest.raises(msgspec.DecodeError):
        decode_json(BusyReading, b'{"us": ')


def test_shapes_tell_the_walks_over_the_model_what_kind_each_type_is():
    assert shape(DeviceInfo) == ("dataclass",)
    assert shape(int | None) == ("union", (int, type(None)))
    assert shape(tuple[float, ...]) == ("list", float)
    assert shape(dict[str, BusyReading]) == ("dict", BusyReading)
    assert shape(str) == ("scalar",)
    assert field_shapes(BusyReading)[0] == ("us", float)
