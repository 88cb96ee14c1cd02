"""Records are untrusted input (a CI artifact is input too): every number a
record can hold is either rendered or refused with one line naming its
field, no string of a record reaches an output with a control character
in it, records beyond the size limit are refused, and the fast way of
reading a record gives the very record the careful way gives."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from tests_helpers import refusal, short_error

from graphbench.errors import RecordError
from graphbench.record import codec, files
from graphbench.record.printable import may_hide, printable, printable_record

ROOT = Path(__file__).resolve().parent.parent
RECORDS = Path(__file__).parent / "records"
BASELINE = RECORDS / "baseline.json"
DOCUMENT = json.loads(BASELINE.read_text())
HOSTILE = "\x1b[2J\x1b]0;title\x07\r\nverified: fake\t\x7f\x9b31m\u202e\u2028\x00"


def leaves(document, kind, path=()):
    """The path of every leaf of type `kind`; two items of each list, the summary left out."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key != "summary":
                yield from leaves(value, kind, path + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document[:2]):
            yield from leaves(value, kind, path + (index,))
    elif isinstance(document, kind) and not isinstance(document, bool):
        yield path


def one_of_each(paths):
    """One path per field: runs[0] and runs[1] are the same field."""
    seen = {}
    for path in paths:
        seen.setdefault(tuple(p if isinstance(p, str) else 0 for p in path), path)
    return list(seen.values())


def changed(document, path, value):
    document = copy.deepcopy(document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value(parent[path[-1]]) if callable(value) else value
    return document


def written(tmp_path, document, name="record.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


# --- numbers -------------------------------------------------------------------

@pytest.mark.parametrize("path, value, said", [
    (("runs", 0, "modes", "graph", "wall_us", 3), 5e-324,
     "runs[0].modes.graph.wall_us[3]: a time of 4.94e-324 us, outside what graphbench "
     "measures (0, or 1e-06 to 1e+12 us)"),
    (("runs", 0, "modes", "fused", "device_us", 0), 1e-300, "runs[0].modes.fused.device_us[0]"),
    (("runs", 1, "conditions", 2, "host_probe_us"), 1e-300, "runs[1].conditions[2].host_probe_us"),
    (("runs", 1, "conditions", 2, "busy", "stages", "sm_clock_mhz"), 1e300,
     "runs[1].conditions[2].busy.stages.sm_clock_mhz: a clock of 1e+300 MHz"),
    (("runs", 0, "conditions", 0, "busy", "stages", "us"), 5e-324,
     "runs[0].conditions[0].busy.stages.us: a time of 4.94e-324 us"),
    (("runs", 0, "elapsed_s", ), 1e300, "runs[0].elapsed_s: a time of 1e+300 s"),
    (("runs", 0, "checks", 0, "max_abs_error"), 1e-310,
     "runs[0].checks[0].max_abs_error: 1e-310 is too small to compute with (subnormal)"),
    (("device", "sm_clock_mhz"), 10**9, "device.sm_clock_mhz: a clock of 1e+09 MHz"),
])
def test_a_number_out_of_its_range_is_refused_naming_the_field(tmp_path, path, value, said):
    record = written(tmp_path, changed(DOCUMENT, path, value))
    with pytest.raises(RecordError) as info:
        codec.read_record(record)
    assert info.value.message.startswith(f"{record}: {said}")


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_denormal_time_is_one_line_and_exit_2_not_a_crash(tmp_path, command):
    record = written(tmp_path, changed(DOCUMENT, ("runs", 0, "modes", "graph", "wall_us", 0),
                                       5e-324))
    argv = [str(record)] if command == "report" else [str(BASELINE), str(record)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "graphbench", command, *argv], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and short_error(done.stderr)
    assert "wall_us[0]: a time of 4.94e-324 us" in done.stderr


def report_quietly(path) -> None:
    """What report and compare compute and render, with any numpy warning an error."""
    from graphbench.gate.judge import judged
    from graphbench.report.compare import comparison_markdown, comparison_report
    from graphbench.report.csv_rows import report_csv
    from graphbench.report.run import run_report
    from graphbench.report.tables import to_text

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        record = codec.read_record(path)
        to_text(run_report(record, verbose=True))
        report_csv([(str(path), record)])
        comparison = judged(codec.read_run(BASELINE), record, None)
        to_text(comparison_report(comparison))
        comparison_markdown(comparison, "a", "b")


NUMBERS = one_of_each(leaves(DOCUMENT, (int, float)))


@pytest.mark.parametrize("path", NUMBERS, ids=lambda p: ".".join(map(str, p)))
def test_every_number_is_rendered_or_refused(tmp_path, path):
    for value in (5e-324, 1e-300, 1e300):
        record = written(tmp_path, changed(DOCUMENT, path, value))
        try:
            report_quietly(record)
        except RecordError as exc:
            assert "\n" not in exc.message and str(record) in exc.message


# --- strings -------------------------------------------------------------------

@pytest.mark.parametrize("text, shown", [
    ("\x1b[2J", "\\x1b[2J"), ("a\nb\r\tc", "a\\nb\\r\\tc"), ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
    ("\x9b31m", "\\x9b31m"), ("\u202eevil", "\\u202eevil"), ("a\u2028b\u200bc", "a\\u2028b\\u200bc"),
    ("\U000e0041", "\\U000e0041"),
])
def test_every_hidden_character_is_written_as_its_escape(text, shown):
    assert printable(text) == shown
    assert printable(shown) == shown


def test_printable_text_is_left_as_it_is():
    for text in ("NVIDIA H200", "µs × 2 — é", "графбенч", "", "back\\slash"):
        assert printable(text) == text


def test_only_records_that_may_hide_a_character_are_walked():
    assert not may_hide(BASELINE.read_bytes())
    assert may_hide(b'{"name": "a\\u001b"}') and may_hide(b'{"name": "a\\n"}')
    assert may_hide(b'{"name": "\xc2\x9b"}') and may_hide('{"n": "\u202e"}'.encode())
    assert not may_hide(b'{"name": "a\\u0041\\"\\\\"}')  # printable escapes only


def hostile_record(tmp_path):
    """The baseline with the hostile text at the end of every string the reader
    takes (schema names and mode lists it refuses, in one line each)."""
    document, refused = DOCUMENT, []
    for path in one_of_each(leaves(DOCUMENT, str)):
        trial = changed(document, path, lambda text: text + HOSTILE)
        try:
            codec.read_record(written(tmp_path, trial, "trial.json"))
        except RecordError as exc:
            refused.append(exc.message)
            continue
        document = trial
    return written(tmp_path, document, "hostile.json"), refused


def assert_printable(text: str) -> None:
    bad = sorted({c for c in text if (c < " " and c != "\n") or "\x7f" <= c <= "\x9f"
                  or c in "\u202e\u2028"})
    assert bad == [], text[:2000]


@pytest.mark.slow
def test_no_string_of_a_hostile_record_reaches_an_output_raw(tmp_path):
    record, refused = hostile_record(tmp_path)
    assert len(refused) < 6 and all(HOSTILE not in line for line in refused)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1"}
    outputs = []
    for argv in (["report", str(record), "--verbose"],
                 ["report", str(record), "--markdown", "-"], ["report", str(record), "--csv", "-"],
                 ["report", str(record), "--json", "-"],
                 ["compare", str(BASELINE), str(record)],
                 ["compare", str(BASELINE), str(record), "--markdown", "-"],
                 ["compare", str(BASELINE), str(record), "--csv", "-"]):
        done = subprocess.run([sys.executable, "-m", "graphbench", *argv], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout + done.stderr)
    assert "\\x1b[2J" in outputs[0]  # the text is shown, escaped
    for text in outputs:
        assert_printable(text)


def test_a_hostile_key_is_escaped_alike_wherever_it_is_used():
    record = codec.read_run(BASELINE)
    run = record.runs[0]
    hostile = "graph\x1b[2J"
    import dataclasses

    modes = {hostile if name == "graph" else name: samples for name, samples in run.modes.items()}
    changed_run = dataclasses.replace(run, modes=modes)
    shown = printable_record(dataclasses.replace(record, runs=(changed_run,)), "r.json")
    assert list(shown.runs[0].modes) == ["individual", "graph\\x1b[2J", "fused"]
    assert shown.device is record.device  # what needs no escape is the same object


def test_two_keys_that_print_alike_are_refused(tmp_path):
    document = changed(DOCUMENT, ("packages",), {"a\x1b": "1", "a\\x1b": "2"})
    with pytest.raises(RecordError, match="two keys of one object differ only in hidden"):
        codec.read_record(written(tmp_path, document))


def test_a_refusal_naming_a_hostile_key_is_printable(tmp_path):
    document = changed(DOCUMENT, ("runs", 0, "modes"), lambda modes: {
        **modes, "x\x1b[2J": {"wall_us": "nan"}})
    with pytest.raises(RecordError) as info:
        codec.read_record(written(tmp_path, document))
    assert info.value.message.endswith("runs[0].modes[...].wall_us: expected a list, got a string")
    assert_printable(info.value.message)  # msgspec names no key: the hostile one is not echoed


# --- size, and the fast way ----------------------------------------------------

def test_a_record_beyond_the_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(RecordError) as info:
        codec.read_record(BASELINE)
    assert info.value.message == f"{BASELINE} is larger than the 0 MiB a record may be"
    with pytest.raises(RecordError, match="larger than"):
        codec.read_record("/dev/zero")  # a stream without end is not read to its end


@pytest.mark.slow
def test_the_fast_way_gives_the_record_the_careful_way_gives():
    """Every JSON file of the tests' records, of every version and files that are none."""
    paths = sorted(RECORDS.rglob("*.json"))
    assert len(paths) > 30
    for path in paths:
        data, source = path.read_bytes(), str(path)
        try:
            careful = codec.load_document(codec.parse_json(data.decode(), source), source)
        except RecordError as exc:
            with pytest.raises(RecordError) as info:
                codec.read_record(path)
            assert info.value.message == exc.message
            continue
        fast = codec.load_json(data, source, data.decode)
        assert fast == careful, path


def test_the_fast_way_and_the_careful_way_name_a_refusal_alike(tmp_path):
    document = changed(DOCUMENT, ("runs", 0, "modes", "graph", "wall_us", 1), "slow")
    path = written(tmp_path, document)
    with pytest.raises(RecordError) as info:
        codec.read_record(path)
    assert info.value.message == f"{path}: runs[0].modes[...].wall_us[1]: expected a number, " \
        "got a string"
    careful = refusal(lambda: codec.load_document(json.loads(path.read_text()), str(path)),
                      RecordError)
    assert careful == (info.value.message, info.value.remedy)


def test_a_long_schema_value_is_shown_cut_short(tmp_path):
    """A record's schema field is echoed in the refusal: a 100,000-character
    one is cut short with its length, so the error stays one short line."""
    import json

    from graphbench.errors import RecordError
    from graphbench.record.codec import read_record

    path = tmp_path / "long.json"
    path.write_text(json.dumps({"schema": "x" * 100_000, "schema_version": 3}))
    with pytest.raises(RecordError) as found:
        read_record(path)
    line = found.value.one_line()
    assert len(line) < 300 and "(100,002 characters)" in line and "\n" not in line


def test_an_integer_too_large_for_a_float_is_refused_in_one_line(tmp_path):
    """A clock of 10**400 MHz (found by the mutated-record search): refused
    with its digit count, not an OverflowError from formatting it."""
    import json

    from graphbench.errors import RecordError
    from graphbench.record.codec import read_record

    document = json.loads((Path(__file__).parent / "records" / "baseline.json").read_text())
    document["device"]["sm_clock_mhz"] = 10 ** 400
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(document))
    with pytest.raises(RecordError) as found:
        read_record(path)
    line = found.value.one_line()
    assert "device.sm_clock_mhz" in line and "401-digit number" in line and len(line) < 300
