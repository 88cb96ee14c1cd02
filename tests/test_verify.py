import numpy as np
import pytest

from graphbench.pipeline.files import load_pipeline
from graphbench.measure.verify import compare


def test_exact_result_passes():
    ref = np.arange(10, dtype=np.float32)
    check = compare("m", ref.copy(), ref, 1e-5, 1e-5)
    assert check.passed and check.bad_elements == 0 and check.first_bad_index is None


def test_unwritten_poisoned_element_fails_with_its_index():
    ref = np.ones(10, dtype=np.float32)
    out = ref.copy()
    out[7] = np.nan
    check = compare("graph", out, ref, 1e-5, 1e-5)
    assert not check.passed and check.first_bad_index == 7 and check.bad_elements == 1
    assert check.max_abs_error is None  # a NaN: the error is not a finite number
    from graphbench.report.run import failure_text

    assert failure_text(check) == ("graph: 1 of 10 elements wrong, max abs error inf, "
                                   "first bad index 7")


def test_error_beyond_tolerance_is_reported_with_max_abs_error():
    ref = np.ones(5, dtype=np.float32)
    out = ref.copy()
    out[2] += 1e-3
    out[4] += 1e-7  # within tolerance
    check = compare("m", out, ref, 1e-5, 1e-5)
    assert check.first_bad_index == 2 and check.bad_elements == 1
    assert abs(check.max_abs_error - 1e-3) < 1e-6


def test_reference_of_the_default_chain():
    rng = np.random.default_rng(0)
    inputs = {k: rng.uniform(-1, 1, 100).astype(np.float32) for k in "abc"}
    reference = load_pipeline(None).spec.reference
    got = reference(inputs, 100)["r3"]
    np.testing.assert_allclose(got, (inputs["a"] + inputs["b"]) * inputs["c"] - inputs["a"])
    assert reference({"a": 1.0, "b": 2.0, "c": 3.0}, 1) == {"r3": 8.0}


def test_chunked_comparison_equals_one_pass(monkeypatch):
    import graphbench.measure.verify as verify

    rng = np.random.default_rng(5)
    expected = rng.uniform(-1, 1, 10_007).astype(np.float32)
    actual = expected.copy()
    actual[[999, 1000, 5003]] += np.float32(0.5)
    actual[7777] = np.inf
    whole = compare("x", actual, expected, 1e-5, 1e-5)
    monkeypatch.setattr(verify, "CHUNK", 1000)  # the bad elements straddle chunk edges
    assert compare("x", actual, expected, 1e-5, 1e-5) == whole
    assert (whole.bad_elements, whole.first_bad_index, whole.max_abs_error) == (4, 999, None)


def test_untouched_counts_across_arrays_and_chunks(monkeypatch):
    import graphbench.measure.verify as verify

    from graphbench.measure.verify import untouched

    monkeypatch.setattr(verify, "CHUNK", 3)
    arrays = [np.full(7, np.nan, dtype=np.float32) for _ in range(2)]
    assert untouched("old", arrays).passed
    arrays[1][4] = 0.0
    check = untouched("old", arrays)
    assert (check.passed, check.elements, check.bad_elements, check.first_bad_index) == \
        (False, 14, 1, 11)


def test_compare_follows_isclose_on_infinities_nan_and_the_tolerance_edge():
    from graphbench.measure.verify import compare

    actual = np.array([np.inf, -np.inf, np.nan, 1.0, 1.0, np.inf, 0.0, 1.0 + 0.9e-5],
                      dtype=np.float32)
    expected = np.array([np.inf, np.inf, np.nan, 1.0 + 2.5e-5, 1.5, 1.0, 1e-6, 1.0],
                        dtype=np.float32)
    check = compare("edge", actual, expected, 1e-5, 1e-5)
    close = np.isclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert check.bad_elements == int((~close).sum()) == 5
    assert check.first_bad_index == 1 and check.max_abs_error is None  # a NaN: no finite largest


def test_compare_finds_the_first_bad_element_and_the_largest_error_across_slices():
    from graphbench.measure.host_work import SLICE
    from graphbench.measure.verify import compare

    expected = np.linspace(-1, 1, 3 * SLICE + 7, dtype=np.float32)
    actual = expected.copy()
    actual[2 * SLICE + 3] += 0.5
    actual[SLICE + 1] += 0.25
    check = compare("slices", actual, expected, 1e-5, 1e-5)
    assert (check.bad_elements, check.first_bad_index) == (2, SLICE + 1)
    assert check.max_abs_error == pytest.approx(0.5, rel=1e-6)


def test_integer_results_are_compared_without_wrapping_around():
    from graphbench.measure.verify import compare

    check = compare("int", np.array([2**31 - 1], np.int32), np.array([-2**31], np.int32), 0, 0)
    assert not check.passed and check.max_abs_error == 2**32 - 1


def test_random_inputs_are_the_same_for_a_seed_in_range_and_never_all_equal():
    from graphbench.measure.host_work import SLICE
    from graphbench.measure.pipeline import random_values

    size = 2 * SLICE + 5
    first = random_values(np.random.default_rng(7), -1.0, 1.0, size, np.float32)
    again = random_values(np.random.default_rng(7), -1.0, 1.0, size, np.float32)
    other = random_values(np.random.default_rng(8), -1.0, 1.0, size, np.float32)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert first.dtype == np.float32 and -1.0 <= first.min() and first.max() < 1.0
    assert not np.array_equal(first[:SLICE], first[SLICE:2 * SLICE])  # slices draw apart
    ints = random_values(np.random.default_rng(7), 0, 10, 10_000, np.int32)
    assert ints.dtype == np.int32 and set(np.unique(ints)) == set(range(10))
