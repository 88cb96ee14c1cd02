"""Records that JSON or Python allow but graphbench never writes: each is
refused with one line naming the file and the field's path."""

import json

import pytest

from test_bad_inputs import BASELINE, RUN, assert_clean, run_cli

MODE = next(iter(RUN["runs"][0]["modes"]))
SAMPLES = f"runs[0].modes.{MODE}"


def changed(path: list, value):
    document = json.loads(json.dumps(RUN))
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return document


@pytest.mark.parametrize("path, value, message", [
    (["runs", 0, "modes", MODE, "wall_us", 0], int("9" * 401),
     "runs[0].modes[...].wall_us[0]: number out of range"),
    (["runs", 0, "seed"], int("9" * 401), "runs[0].seed: a whole number beyond 2^63"),
    (["device", "name"], "\ud800", "device.name: a string with a lone surrogate"),
    (["runs", 0, "modes", MODE, "wall_us", 2], 1e308, f"{SAMPLES}.wall_us[2]: a time of 1e+308"),
    (["runs", 0, "modes", MODE, "device_us", 1], 2e12, f"{SAMPLES}.device_us[1]: a time of"),
    (["runs", 0, "modes", MODE, "submit_us", 0], -5.0,
     f"{SAMPLES}.submit_us[0]: a time of -5.0 us, not 0 or more"),
    (["runs", 0, "modes", MODE, "wall_us", 3], float("nan"),
     f"{SAMPLES}.wall_us[3]: bare NaN is not JSON"),
    (["runs", 0, "modes", MODE, "wall_us", 3], float("-inf"),
     f"{SAMPLES}.wall_us[3]: bare -Infinity is not JSON"),
])
def test_a_bad_value_is_named_by_file_and_field(tmp_path, path, value, message):
    record = tmp_path / "bad.json"
    record.write_text(json.dumps(changed(path, value)))
    for argv in (["report", str(record)], ["compare", BASELINE, str(record)]):
        code, err = run_cli(argv)
        assert_clean(code, err)
        assert code == 2 and f"{record}: {message}" in err, err


def test_a_submit_time_of_zero_is_read(tmp_path):
    record = tmp_path / "zero.json"
    record.write_text(json.dumps(changed(["runs", 0, "modes", MODE, "submit_us", 0], 0.0)))
    assert run_cli(["report", str(record)])[0] == 0


def test_an_integer_beyond_the_digit_limit_is_one_line(tmp_path):
    record = tmp_path / "huge.json"
    record.write_text(json.dumps(RUN).replace('"seed": 0', '"seed": ' + "9" * 5000, 1))
    code, err = run_cli(["report", str(record)])
    assert code == 2 and "config.seed: integer value out of range" in err


def test_a_run_record_with_no_launches_per_iteration_is_refused_in_one_line(tmp_path):
    import json

    from graphbench.errors import RecordError
    from graphbench.record.codec import read_record, run_document
    from conftest import make_record

    document = run_document(make_record())
    document["pipeline"]["kernel_launches_per_iteration"] = 0
    path = tmp_path / "zero.json"
    path.write_text(json.dumps(document))
    with pytest.raises(RecordError, match="kernel_launches_per_iteration: 0, not a count"):
        read_record(path)
