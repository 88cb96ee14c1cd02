"""graphbench.pipeline.spec: size expressions, short values in messages, and the defaults of
buffer(), count() and scalar().

Covers graphbench/pipeline/__init__.py."""

from __future__ import annotations

import pytest
from tests_helpers import refusal

from graphbench.pipeline import spec
from graphbench.pipeline.spec import MAX_SIZE, SpecError, evaluate_size


@pytest.mark.parametrize("expr, n, message, remedy", [
    (2.5, 5, "buffer x: size 2.5 is not an integer expression in n",
     'write e.g. "n", "n // 4" or 1024'),
    ("n / 2", 5, "buffer x: size 'n / 2' is not an integer expression in n ('n / 2' is not "
     "allowed)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("2 ** 64 * 2 ** 64", 5, "buffer x: size '2 ** 64 * 2 ** 64' is not an integer expression "
     "in n (far too large)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("n ** 65", 5, "buffer x: size 'n ** 65' is not an integer expression in n (an exponent "
     "must be 0 to 64)", 'use n, integers and + - * // % **, e.g. "n // 4"'),
    ("n - 5000", 4096, "buffer x: size 'n - 5000' is -904 at n = 4,096, not positive",
     "choose a larger --elements or another size expression"),
    ("2 ** 48 + n", 4096, "buffer x: size '2 ** 48 + n' is more than 2^48 at n = 4,096",
     "no GPU holds that many; check the expression"),
])
def test_size_refusals_say_what_and_what_to_do(expr, n, message, remedy):
    assert refusal(lambda: evaluate_size(expr, n, "buffer x"), SpecError) == (message, remedy)


def test_a_long_value_is_cut_to_sixty_characters_in_messages():
    from graphbench.pipeline.spec import _short

    assert _short("x" * 58) == repr("x" * 58)  # 60 with its quotes: kept
    cut = _short("x" * 59)
    assert len(cut) == 60 and cut == repr("x" * 59)[:57] + "..."


@pytest.mark.parametrize("expr, n, value", [
    ("n", 10, 10), ("n // 4", 10, 2), ("2 * n", 3, 6), ("n + 1", 3, 4), ("n - 1", 3, 2),
    ("n % 4", 7, 3), ("n ** 2", 3, 9), ("2 ** 0", 5, 1), ("-(-n)", 5, 5), ("n - -1", 5, 6),
    (4096, 1, 4096), ("2 ** 48", 1, MAX_SIZE), ("2 ** 64 // 2 ** 16", 1, MAX_SIZE),
])
def test_sizes_evaluate_integer_expressions_in_n(expr, n, value):
    assert evaluate_size(expr, n, "stage a") == value


@pytest.mark.parametrize("expr, words", [
    ("0", "not positive"), ("n - n", "not positive"), ("-n", "-5 at n = 5"),
    (0, "not positive"), ("2 ** 48 + 1", "more than 2^48"), (MAX_SIZE + 1, "more than 2^48"),
    ("n / 2", "not an integer expression"), ("m", "not an integer expression"),
    ("n ** -1", "exponent"), ("n ** 65", "exponent"), ("2 ** 64 * 2 ** 64", "far too large"),
    ("n // 0", "not an integer expression"), ("1.5", "not an integer expression"),
    ("+n", "not allowed"), ("f(n)", "not allowed"), ("n <<2", "not allowed"), ("True", "not allowed"),
    (True, "not an integer expression"), (2.0, "not an integer expression"), (None, "None"),
    ("n +", "not an integer expression"),
])
def test_sizes_refuse_what_no_buffer_can_be(expr, words):
    with pytest.raises(SpecError) as info:
        evaluate_size(expr, 5, "buffer x")
    assert info.value.message.startswith("buffer x: size ")
    assert words in info.value.message and info.value.remedy


def test_an_intermediate_beyond_the_square_of_the_limit_is_refused_fast():
    assert evaluate_size(f"{MAX_SIZE ** 2} // {MAX_SIZE}", 1, "s") == MAX_SIZE
    with pytest.raises(SpecError, match="far too large"):
        evaluate_size(f"{MAX_SIZE ** 2 + 1} // {MAX_SIZE}", 1, "s")
    with pytest.raises(SpecError, match="far too large"):
        evaluate_size(f"-{MAX_SIZE ** 2 + 1} + {MAX_SIZE ** 2 + 2}", 1, "s")


def test_the_size_in_a_message_is_the_expression_and_the_n_it_was_evaluated_at():
    with pytest.raises(SpecError) as info:
        evaluate_size("n - 2000", 1000, "buffer y")
    assert "'n - 2000' is -1000 at n = 1,000" in info.value.message


def test_short_keeps_messages_to_one_readable_line():
    assert spec._short("abc") == "'abc'"
    assert spec._short(10**29) == str(10**29)
    assert spec._short(10**30) == "an integer of 31 digits"
    assert spec._short(-10**30) == "an integer of 31 digits"
    long = spec._short("x" * 100)
    assert len(long) == 60 and long.endswith("...") and long.startswith("'xxx")
    assert spec._short("x" * 58) == repr("x" * 58)  # 60 characters: kept whole

    class Bad:
        def __repr__(self):
            raise RuntimeError("no")
    assert spec._short(Bad()) == "a Bad"


def test_a_buffer_defaults_to_a_float32_output_of_n_elements_in_minus_one_to_one():
    assert spec.buffer("x") == spec.Buffer("x") == spec.Buffer("x", "float32", "n", "output", -1.0, 1.0)
    assert spec.buffer("y", "int32", "n // 2", "input", 0, 9) == spec.Buffer("y", "int32", "n // 2", "input", 0, 9)
    assert spec.count() == spec.Count("n", "uint64")
    assert spec.count("n // 2", "int32") == spec.Count("n // 2", "int32")
    assert spec.scalar(2) == spec.Scalar(2, "float32")
    assert spec.scalar(2, "int32") == spec.Scalar(2, "int32")
