"""graphbench.record.parse: JSON that no record holds is refused with the field's path and a
remedy."""

from __future__ import annotations

import pytest
from tests_helpers import refusal

from graphbench.errors import RecordError
from graphbench.record.parse import parse_json


def test_parse_errors_carry_a_remedy_and_name_the_field():
    with pytest.raises(RecordError) as info:
        parse_json('{"a": [1, ', "t.json")
    assert info.value.message.startswith("t.json is not valid JSON") and info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('{"a": {"b": NaN}}', "t.json")
    assert info.value.message == "t.json: a.b: bare NaN is not JSON" and info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('NaN', "t.json")
    assert info.value.message == "t.json: the record: bare NaN is not JSON"
    with pytest.raises(RecordError) as info:
        parse_json('{"a": {"\\ud800": 1}}', "t.json")
    assert info.value.message == "t.json: a: a string with a lone surrogate, not text"
    assert info.value.remedy
    with pytest.raises(RecordError) as info:
        parse_json('["\\udc00"]', "t.json")
    assert info.value.message == "t.json: [0]: a string with a lone surrogate, not text"
    assert parse_json('["\\u00e9", "\\\\u", 1.5]', "t.json") == ["é", "\\u", 1.5]
    assert parse_json('[[1, "NaN"]]', "t.json") == [[1, "NaN"]]  # a string, not a bare constant


def test_parse_refusals_and_their_remedies():
    assert refusal(lambda: parse_json('{"a": ', "t.json"), RecordError) == (
        "t.json is not valid JSON (Expecting value at line 1)",
        "was it truncated? re-run graphbench with --json")
    assert refusal(lambda: parse_json("1" * 5000, "t.json"), RecordError) == (
        "t.json holds an integer of thousands of digits, which no graphbench record does", "")
    assert refusal(lambda: parse_json("[" * 100000 + "]" * 100000, "t.json"), RecordError) == (
        "t.json is nested too deeply to be a graphbench record", "")
    assert refusal(lambda: parse_json('{"a": [1, NaN]}', "t.json"), RecordError) == (
        "t.json: a[1]: bare NaN is not JSON", "a record stores finite numbers only")
    assert refusal(lambda: parse_json("Infinity", "t.json"), RecordError) == (
        "t.json: the record: bare Infinity is not JSON", "a record stores finite numbers only")
    assert refusal(lambda: parse_json('"\\udc00"', "t.json"), RecordError) == (
        "t.json: the record: a string with a lone surrogate, not text",
        "was the file written by graphbench?")
