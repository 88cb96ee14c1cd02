"""A bare function with example inputs as a callable pipeline
(graphbench/pipeline/bare.py, graphbench.bench): the framework read off the
inputs, outputs shaped by the first call, its own eager results as the
reference unless one is given, and the record saying which. On CPU with
stand-in arrays; tests/test_gpu_bare.py runs torch on a GPU."""

import pytest

import graphbench
from graphbench.errors import ConfigError
from graphbench.pipeline import bare
from graphbench.pipeline.spec import SpecError


class ndarray:  # noqa: N801 - stands in for cupy.ndarray by its module and name
    __module__ = "cupy._core.core"

    def __init__(self, values, dtype="float32"):
        self.values, self.dtype, self.size = list(values), dtype, len(values)

    def copy(self):
        return ndarray(self.values, self.dtype)


def double(x):
    return ndarray([2 * v for v in x.values], x.dtype)


def test_the_framework_is_the_inputs_own():
    assert bare.framework_of([ndarray([1.0])]) == "cupy"
    for inputs in ([], [1.0], [ndarray([1.0]), [1.0]]):
        with pytest.raises(SpecError, match="all torch tensors or all CuPy arrays"):
            bare.framework_of(inputs)


def test_a_bare_function_becomes_a_pipeline_checked_against_its_own_results():
    calls = []

    def traced(x):
        calls.append(x)
        return double(x)

    x = ndarray([1.0, 2.0], "float16")
    spec = bare.bare_pipeline(traced, [x])
    assert len(calls) == 1  # called once to shape the outputs
    assert (spec.name, spec.framework, spec.inputs, spec.outputs) == \
        ("traced", "cupy", ["input0"], ["output0"])
    assert spec.description == bare.OWN_RESULTS and spec.rtol == spec.atol == 1e-2
    assert spec.reference({"input0": x}, 2)["output0"].values == [2.0, 4.0]
    mine = bare.bare_pipeline(double, [x], rtol=0.5, reference=lambda inputs, n: {})
    assert mine.rtol == 0.5 and "reference of its own" in mine.description


def test_a_function_must_return_arrays_of_its_framework():
    with pytest.raises(SpecError, match="must return cupy arrays"):
        bare.bare_pipeline(lambda x: 3.0, [ndarray([1.0])])
    with pytest.raises(SpecError, match="needs a function"):
        bare.bare_pipeline(5, [ndarray([1.0])])


def test_the_elements_are_the_first_input_s_and_the_rungs_individual_and_graph():
    assert bare.bench_settings([ndarray([0.0] * 7)], {}) == {
        "modes": "individual,graph", "elements": 7}
    assert bare.bench_settings([ndarray([0.0])], {"modes": "all"})["modes"] == "all"


def test_the_api_refuses_what_is_no_bare_function_before_any_gpu_work():
    with pytest.raises(SpecError, match="all torch tensors or all CuPy arrays, got numpy"):
        import numpy

        graphbench.bench(lambda x: x, numpy.zeros(3))
    with pytest.raises(ConfigError, match="no_such_setting is not a run setting"):
        graphbench.bench(double, ndarray([1.0]), no_such_setting=1)


def test_a_bare_function_gets_the_callable_pipeline_checks_and_reaches_the_driver():
    """A callable pipeline object goes through the offline checks a callable
    file does (no CUDA source to compile; rungs it cannot have refused), then
    to the driver, which this machine may not have."""
    from graphbench.errors import DeviceError, UsageError

    with pytest.raises(UsageError, match="modes pdl cannot run: the double pipeline is cupy"):
        graphbench.bench(double, ndarray([1.0] * 8), modes="pdl")
    try:
        graphbench.bench(double, ndarray([1.0] * 8), rounds=1)
    except DeviceError:
        pass  # no GPU here: everything before the driver was accepted
