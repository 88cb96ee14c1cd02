"""graphbench.record.printable: a record's strings as they are shown, every hidden
character written as its escape, wherever in the record's types the string is."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import make_record

from graphbench.errors import RecordError
from graphbench.record.codec import read_run
from graphbench.record.printable import printable, printable_record

ATTRIBUTION = Path(__file__).resolve().parent / "records" / "attribution.json"


def test_a_string_inside_an_optional_object_is_escaped():
    """run.attribution is `Attribution | None`: the kernel names inside it are walked too."""
    record = read_run(ATTRIBUTION)
    run = record.runs[0]
    stage = dataclasses.replace(run.attribution.stages[0], stage="vec\x1b[2Jadd")
    attribution = dataclasses.replace(run.attribution,
                                      stages=(stage,) + run.attribution.stages[1:])
    hostile = dataclasses.replace(record, runs=(dataclasses.replace(run,
                                                                    attribution=attribution),))
    shown = printable_record(hostile, "r.json")
    assert shown.runs[0].attribution.stages[0].stage == "vec\\x1b[2Jadd"
    assert shown.runs[0].attribution.stages[1:] == run.attribution.stages[1:]
    assert printable_record(record, "r.json") is record  # nothing hidden: the same object


def test_an_optional_string_is_escaped_and_an_absent_one_stays_absent():
    record = make_record()
    device = dataclasses.replace(record.device, uuid="GPU-\u202e1", driver_version=None)
    shown = printable_record(dataclasses.replace(record, device=device), "r.json")
    assert shown.device.uuid == "GPU-\\u202e1" and shown.device.driver_version is None
    assert shown.device.name == record.device.name


def test_keys_and_values_of_a_mapping_are_escaped():
    record = dataclasses.replace(make_record(), packages={"cupy\n": "14.2\x07", "numpy": "2.0"})
    assert printable_record(record, "r.json").packages == {"cupy\\n": "14.2\\x07",
                                                           "numpy": "2.0"}


def test_two_keys_that_differ_only_in_hidden_characters_are_refused_naming_the_file():
    record = dataclasses.replace(make_record(), packages={"a\x1b": "1", "a\\x1b": "2"})
    with pytest.raises(RecordError) as info:
        printable_record(record, "r.json")
    assert (info.value.message, info.value.remedy) == (
        "r.json: two keys of one object differ only in hidden characters",
        "was the record written by graphbench?")


def test_a_character_beyond_the_basic_plane_is_written_with_eight_digits():
    assert printable("a\U000e0001b") == "a\\U000e0001b"
    assert printable("\u00ad") == "\\xad" and printable("\u200b") == "\\u200b"


def test_a_string_in_an_object_inside_a_mapping_is_escaped():
    record = make_record()
    run = record.runs[0]
    modes = {**run.modes, "graph": dataclasses.replace(run.modes["graph"],
                                                       workload="stages\x1b[1m")}
    shown = printable_record(dataclasses.replace(record, runs=(dataclasses.replace(
        run, modes=modes),)), "r.json")
    assert shown.runs[0].modes["graph"].workload == "stages\\x1b[1m"
    assert shown.runs[0].modes["individual"] is run.modes["individual"]


def test_text_beyond_ascii_with_nothing_hidden_leaves_the_record_as_it_is():
    record = make_record()
    record = dataclasses.replace(record, device=dataclasses.replace(
        record.device, name="NVIDIA H200 — µs é"))
    assert printable_record(record, "r.json") is record
