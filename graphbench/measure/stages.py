"""The pipeline's stages: which kernel each runs and what it computes.

Stage k reads the previous stage's output (the first reads `a`) and one of
the inputs, so the default add,mul,sub chain is r1 = a + b, r2 = r1 * c,
r3 = r2 - a. The same table drives the launches and the reference, which
works on numpy and CuPy arrays alike.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

DEFAULT_STAGES = ("add", "mul", "sub")
FIRST_INPUT = "a"


@dataclass(frozen=True)
class Stage:
    name: str
    kernel: str
    operand: str
    apply: Callable


STAGE_TABLE = {
    "add": Stage("add", "vec_add", "b", operator.add),
    "mul": Stage("mul", "vec_mul", "c", operator.mul),
    "sub": Stage("sub", "vec_sub", "a", operator.sub),
}


def expand(names: Sequence[str], depth: int = 1) -> list[Stage]:
    return [STAGE_TABLE[name] for name in names] * depth


def reference(inputs: Mapping[str, object], stages: Sequence[Stage]):
    """What the last stage must hold, computed by the array library itself."""
    value = inputs[FIRST_INPUT]
    for stage in stages:
        value = stage.apply(value, inputs[stage.operand])
    return value


def is_default_chain(stages: Sequence[Stage]) -> bool:
    """The fused kernel implements exactly (a + b) * c - a."""
    return [s.name for s in stages] == list(DEFAULT_STAGES)
