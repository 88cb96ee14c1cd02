"""graphbench.config.values: option values as users type them; each refusal names the option typed."""

from __future__ import annotations

import argparse

import pytest
from tests_helpers import refusal, refused_option

from graphbench.config import values
from graphbench.errors import UsageError


def test_too_many_processes_has_a_remedy():
    assert refusal(lambda: values.parse_processes("1001"), UsageError) == (
        "--processes 1001 is more than 1000 processes",
        "each one starts a fresh interpreter and CUDA context; use a few (3 to 10) for a "
        "baseline")


def test_number_messages_name_the_expected_form():
    assert refusal(lambda: values.parse_fraction("lots", "--max-noise"), UsageError)[0] == (
        "--max-noise must be a percentage such as 1% or 0.01, got 'lots'")
    assert refusal(lambda: values.parse_seconds("soon", "--max-time"), UsageError)[0] == (
        "--max-time must be a number of seconds, got 'soon'")
    assert refusal(lambda: values.parse_seconds("\uff11", "--max-time"), UsageError)[0] == (
        "--max-time must be a number of seconds in ASCII digits, got '\uff11'")


def test_ranges_multiply_up_to_the_top():
    assert values.parse_grid("4..64", "--elements") == (4, 8, 16, 32, 64)
    assert values.parse_grid("4..100:x3", "--elements") == (4, 12, 36)
    assert values.parse_grid("5..5", "--elements") == (5,)


def test_a_range_factor_is_a_lower_case_x():
    assert values.parse_grid("2^4..2^8:x4", "--elements") == (16, 64, 256)
    with pytest.raises(UsageError):
        values.parse_grid("2^4..2^8:X4", "--elements")


def test_a_bad_range_has_examples():
    assert refusal(lambda: values.parse_grid("64..4", "--elements"), UsageError) == (
        "--elements range '64..4' must run upwards with a factor of 2 or more",
        "e.g. 2^12..2^24 or 2^12..2^24:x4")


def test_a_bad_device_is_named_as_the_device_option():
    assert refusal(lambda: values.parse_device_spec("gpu"), UsageError)[0] == (
        "--device must be an id, a list such as 0,1, or all; got 'gpu'")
    assert refusal(lambda: values.parse_device_spec(","), UsageError)[0] == (
        "--device needs a device id, a list such as 0,1, or all")
    assert refusal(lambda: values.parse_device_spec("-1"), UsageError)[0] == "--device must be 0 or more, got '-1'"


def test_a_count_names_what_it_expected():
    assert "a positive integer" in refused_option(values.parse_positive_int, "x").message


@pytest.mark.parametrize("text", ["0", "0^3"])
def test_positive_counts_refuse_zero(text):
    assert "positive" in refused_option(values.parse_positive_int, text).message


def test_processes_stop_at_the_limit():
    assert values.parse_processes("1") == 1
    assert values.parse_processes(str(values.MAX_PROCESSES)) == values.MAX_PROCESSES
    with pytest.raises(UsageError) as info:
        values.parse_processes(str(values.MAX_PROCESSES + 1))
    assert info.value.message.startswith("--processes ") and info.value.remedy
    with pytest.raises(UsageError) as info:
        values.parse_processes("2000", "--baseline-processes")
    assert "--baseline-processes 2000" in info.value.message
    refused_option(values.parse_processes, "0", "--processes")


def test_seeds_and_warmups_take_zero():
    assert values.parse_int("0", "--seed") == 0
    assert values.parse_int("2^4", "--seed") == 16
    refused_option(values.parse_int, "-1")


@pytest.mark.parametrize("parse, text, value", [
    (values.parse_float, "1.1", 1.1), (values.parse_float, " 1.25x ", 1.25), (values.parse_float, "2", 2.0),
    (values.parse_fraction, "1%", 0.01), (values.parse_fraction, " 2.5% ", 0.025),
    (values.parse_fraction, "0.01", 0.01), (values.parse_seconds, "30", 30.0),
    (values.parse_seconds, "1.5s", 1.5), (values.parse_seconds, " 2s ", 2.0),
])
def test_numbers_read_their_suffixes(parse, text, value):
    assert parse(text, "--opt") == pytest.approx(value)


@pytest.mark.parametrize("parse", [values.parse_float, values.parse_fraction, values.parse_seconds])
@pytest.mark.parametrize("text", ["abc", "1..2", "", "１", "٣"])
def test_numbers_refuse_words_and_foreign_digits(parse, text):
    error = refused_option(parse, text)
    assert repr(text) in error.message
    assert ("ASCII" in error.message) == (not text.isascii())


def test_number_messages_say_what_was_expected():
    assert "a number, got" in refused_option(values.parse_float, "x").message
    assert "seconds" in refused_option(values.parse_seconds, "x").message
    assert "1%" in refused_option(values.parse_fraction, "x").message


def test_lists_drop_blanks_and_spaces():
    assert values.parse_list(" a, b ,,c ,") == ("a", "b", "c")
    assert values.parse_list(" , ") == ()


@pytest.mark.parametrize("text, grid", [
    ("4096,65536", (4096, 65536)), ("8,4", (4, 8)), ("2^2..2^5", (4, 8, 16, 32)),
    ("2^2..2^6:x4", (4, 16, 64)), ("4..20:3", (4, 12)), ("4..4", (4,)), ("4..31", (4, 8, 16)),
    ("2..8,3", (2, 3, 4, 8)),
])
def test_grids_expand_ranges_by_their_factor(text, grid):
    assert values.parse_grid(text, "--sizes") == grid


@pytest.mark.parametrize("text", ["8,4,8", "2^2..2^5,16", "2^20,1048576"])
def test_a_grid_value_named_twice_is_refused(text):
    with pytest.raises(UsageError, match="twice"):
        values.parse_grid(text, "--sizes")


@pytest.mark.parametrize("text", ["8..4", "4..64:x1", "4..64:1", "0..8", "4..0", "4..x", "", " , "])
def test_grids_refuse_ranges_that_do_not_run_upwards(text):
    refused_option(values.parse_grid, text, "--sizes")


def test_a_backwards_range_is_explained():
    error = refused_option(values.parse_grid, "8..4", "--sizes")
    assert "'8..4'" in error.message and "2^12..2^24" in error.remedy


def test_grids_stop_at_the_point_limit():
    limit = values.MAX_GRID_POINTS
    assert len(values.parse_grid(",".join(str(n) for n in range(1, limit + 1)), "--sizes")) == limit
    assert "more than" in refused_option(values.parse_grid, ",".join(str(n) for n in range(1, limit + 2)),
                                  "--sizes").message


def test_empty_grid_says_it_needs_a_value():
    assert "at least one" in refused_option(values.parse_grid, ",", "--sizes").message


@pytest.mark.parametrize("text, devices", [
    ("0", [0]), ("1,0", [0, 1]), (" 3 , 2 ", [2, 3]), ("all", "all"), (" ALL ", "all"),
])
def test_devices_read_ids_lists_and_all(text, devices):
    assert values.parse_device_spec(text) == devices


@pytest.mark.parametrize("text, words", [
    ("", "needs a device id"), (" , ", "needs a device id"), ("a", "must be an id"),
    ("٣", "must be an id"), ("-1", "0 or more"), ("0,-2", "0 or more"),
])
def test_devices_refuse_other_text(text, words):
    with pytest.raises(UsageError) as info:
        values.parse_device_spec(text, "--devices")
    assert words in info.value.message and "--devices" in info.value.message


def test_paths_are_kept_as_typed():
    assert values.parse_path(" a b ", "--out") == " a b "


def test_blocks_keep_their_order_refuse_repeats_and_are_checked():
    assert values.parse_blocks("256,128", "--block") == (256, 128)
    assert "--block names 256 twice" in refused_option(values.parse_blocks, "256,128,256",
                                                       "--block").message
    refused_option(values.parse_blocks, "0", "--block")
    refused_option(values.parse_blocks, "2048", "--block")
    refused_option(values.parse_blocks, ",", "--block")
    limit = values.MAX_SHAPES
    assert len(values.parse_blocks(",".join(str(32 * n) for n in range(1, limit + 1)), "--block")) == limit
    assert f"1 to {limit}" in refused_option(values.parse_blocks, ",".join(str(32 * n) for n in range(1, limit + 2)),
                                      "--block").message


def test_grids_of_launch_shapes_read_auto():
    assert len(values.parse_grids("auto", "--grid")) == 1
    refused_option(values.parse_grids, "nonsense", "--grid")


def test_every_kind_has_a_parser():
    assert values.PARSERS["count"] is values.parse_positive_int
    assert values.PARSERS["grid"] is values.parse_grid
    assert values.PARSERS["devices"] is values.parse_device_spec


def test_rounds_conflict_only_with_typed_adaptive_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", action=values.StoreGiven)
    parser.add_argument("--max-noise", action=values.StoreGiven, default="1%")
    parser.add_argument("--max-time", action=values.StoreGiven)
    values.check_conflicts(parser.parse_args(["--rounds", "5"]))
    values.check_conflicts(parser.parse_args(["--max-noise", "2%"]))
    args = parser.parse_args(["--rounds", "5", "--max-time", "3"])
    assert args.given == {"rounds", "max_time"} and args.max_time == "3"
    with pytest.raises(UsageError) as info:
        values.check_conflicts(args)
    assert "--max-time" in info.value.message and "--max-time" in info.value.remedy
    values.check_conflicts(argparse.Namespace())


@pytest.mark.parametrize("text", ["x", "0", "4..x", "4..64:xq", "4..64:x0"])
def test_a_bad_grid_value_names_the_option(text):
    refused_option(values.parse_grid, text, "--sizes")


def test_a_bad_device_names_the_device_option_by_default():
    with pytest.raises(UsageError, match="--device"):
        values.parse_device_spec("gpu0")


@pytest.mark.parametrize("text, message", [("-0", "must be 0 or more"), ("+1", "must be an id"),
                                           ("1_000", "must be an id"), ("9" * 23, "must be an id"),
                                           ("1,1", "names a device twice")])
def test_a_device_id_is_plain_digits_named_once(text, message):
    with pytest.raises(UsageError, match=message):
        values.parse_device_spec(text)


def test_a_range_step_takes_one_x():
    with pytest.raises(UsageError, match="got 'x4'"):
        values.parse_grid("2^12..2^24:xx4", "--elements")
    assert values.parse_grid("2^12..2^16:x4", "--elements") == (4096, 16384, 65536)
