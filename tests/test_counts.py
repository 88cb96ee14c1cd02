"""graphbench.counts: the counts users type (4096, 2^20, 1e6), their limit and their refusals."""

from __future__ import annotations

import pytest
from tests_helpers import refusal, refused_option

from graphbench.counts import MAX_COUNT, parse_count
from graphbench.errors import UsageError


def test_a_bad_count_says_what_was_expected_with_examples():
    assert refusal(lambda: parse_count("abc", "--iters"), UsageError) == (
        "--iters must be a whole number, got 'abc'", "e.g. 4096, 2^20 or 1e6")
    assert refusal(lambda: parse_count("2^x", "--iters", "a size"), UsageError) == (
        "--iters must be a size, got '2^x'", "e.g. 4096, 2^20 or 1e6")


@pytest.mark.parametrize("text, value", [
    ("4096", 4096), (" 17 ", 17), ("0", 0), ("2^20", 2**20), ("1^99", 1), ("0^5", 0),
    ("2^64", 2**64 if 2**64 <= MAX_COUNT else None), ("1e6", 10**6), ("2.5e3", 2500), ("3E2", 300),
])
def test_counts_read_the_forms_users_type(text, value):
    if value is None or value > MAX_COUNT:
        refused_option(parse_count, text)
    else:
        assert parse_count(text, "--opt") == value


def test_the_largest_count_is_accepted_and_one_more_refused():
    assert parse_count(str(MAX_COUNT), "--opt") == MAX_COUNT
    assert parse_count("2^63", "--opt") == MAX_COUNT
    assert "far too large" in refused_option(parse_count, str(MAX_COUNT + 1)).message
    assert "far too large" in refused_option(parse_count, "2^65").message
    assert "far too large" in refused_option(parse_count, "9^999999999").message  # refused, not computed


@pytest.mark.parametrize("text", ["-1", "+3", "1.5", "2.5e0", "1e999", "1e", "e6", "2^", "^3", "2^-1",
                                  "٣", "４", "2^٣", "1e٣", "x", "", "2^3^4", "0x10"])
def test_counts_refuse_everything_else_with_an_example(text):
    error = refused_option(parse_count, text)
    assert "whole number" in error.message and "2^20" in error.remedy


def test_a_zero_in_scientific_form_is_zero():
    assert parse_count("0e3", "--seed") == 0
    assert parse_count("0.0e0", "--seed") == 0


@pytest.mark.parametrize("text", ["2^9999999999", "1" + "0" * 1000 + "^100000"])
def test_a_huge_power_is_refused_before_it_is_computed(text):
    # computing either would take minutes and gigabytes; the refusal is immediate
    assert "far too large" in refused_option(parse_count, text).message


def test_a_long_count_is_shown_cut_short_in_its_one_line():
    for text in ("9" * 5000, "x" * 5000, "9^" + "9" * 5000):
        message = refused_option(parse_count, text).message
        assert len(message) < 200 and "5,0" in message
