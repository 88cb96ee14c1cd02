"""A pipeline file for the gate's host-side checks: the cupy_chain pipeline
whose every eager stage first spins on the host clock for
GRAPHBENCH_HOST_DELAY_US microseconds (default 0).

A graph replays the captured GPU work without calling the stages again, so
the delay slows individual launches and not graph replay: a host-side
regression of a known size, for `compare` against a baseline made without
it. The file, its name and its hash do not change with the delay.

    GRAPHBENCH_HOST_DELAY_US=1.5 graphbench run --pipeline tests/host_delay_chain.py
"""

import os
import time

import cupy

from graphbench.callables import CallablePipeline, array

DELAY_S = float(os.environ.get("GRAPHBENCH_HOST_DELAY_US", "0")) * 1e-6


def _spin() -> None:
    if DELAY_S:
        end = time.perf_counter() + DELAY_S
        while time.perf_counter() < end:
            pass


def add(b):
    _spin()
    cupy.add(b["a"], b["b"], out=b["r1"])


def multiply(b):
    _spin()
    cupy.multiply(b["r1"], b["c"], out=b["r2"])


def subtract(b):
    _spin()
    cupy.subtract(b["r2"], b["a"], out=b["r3"])


def reference(inputs, n):
    a, b, c = (inputs[x].astype(cupy.float64) for x in "abc")
    return {"r3": (a + b) * c - a}


def pipeline():
    return CallablePipeline(
        name="host_delay_chain", framework="cupy", stages=[add, multiply, subtract],
        reference=reference, rtol=1e-5, atol=1e-6,
        arrays=[array(x, role="input") for x in "abc"] +
               [array(r, role="scratch") for r in ("r1", "r2")] + [array("r3")],
        description="cupy add, multiply, subtract; each eager stage spins "
                    "GRAPHBENCH_HOST_DELAY_US first")
