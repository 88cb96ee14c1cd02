"""An elementwise chain of CuPy ufuncs, each writing a preallocated array
with out=: y = exp((a + b) * c - a). --elements is the vector length."""

import cupy

from graphbench.callables import CallablePipeline, array


def add(b):
    cupy.add(b["a"], b["b"], out=b["r1"])


def multiply(b):
    cupy.multiply(b["r1"], b["c"], out=b["r2"])


def subtract(b):
    cupy.subtract(b["r2"], b["a"], out=b["r3"])


def exp(b):
    cupy.exp(b["r3"], out=b["y"])


def reference(inputs, n):
    a, b, c = (inputs[x].astype(cupy.float64) for x in "abc")
    return {"y": cupy.exp((a + b) * c - a)}


def pipeline():
    return CallablePipeline(
        name="cupy_chain", framework="cupy", stages=[add, multiply, subtract, exp],
        reference=reference, rtol=1e-5, atol=1e-6,
        arrays=[array(x, role="input") for x in "abc"] +
               [array(r, role="scratch") for r in ("r1", "r2", "r3")] + [array("y")],
        description="cupy add, multiply, subtract, exp with out=")
