import numpy as np

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
