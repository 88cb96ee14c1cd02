"""The chain benchmarks/torch_crosscheck.py times bare, as a graphbench
pipeline file: graphbench run --pipeline benchmarks/torch_chain.py
--modes individual,graph --elements 4096 (then 2^20)."""

import torch

from graphbench.callables import CallablePipeline, array


def add(b):
    torch.add(b["a"], b["b"], out=b["r1"])


def mul(b):
    torch.mul(b["r1"], b["c"], out=b["r2"])


def sub(b):
    torch.sub(b["r2"], b["a"], out=b["r3"])


def reference(inputs, n):
    return {"r3": (inputs["a"] + inputs["b"]) * inputs["c"] - inputs["a"]}


def pipeline():
    return CallablePipeline(
        name="torch_chain", framework="torch", stages=[add, mul, sub], reference=reference,
        arrays=[array(x, role="input") for x in "abc"] + [array("r1", role="scratch"),
                                                          array("r2", role="scratch"),
                                                          array("r3")])
