"""The public API of a pipeline file: what a user writes to benchmark their
own chain of kernels, and what graphbench's built-in pipeline is written in.

A pipeline file is trusted Python (like a pytest conftest) that defines
`pipeline(...)`, a function returning a `Pipeline`; graphbench passes it
`depth` (and the built-in's `stages`) when the function takes them.

    from graphbench.pipeline.spec import Pipeline, Stage, buffer, count

    def reference(inputs, n):
        return {"out": inputs["x"] * 2}

    def pipeline():
        return Pipeline(name="double", source="double.cu",  # next to this file
                        buffers=[buffer("x", role="input"), buffer("out")],
                        stages=[Stage("twice", args=("x", "out", count("n")))],
                        reference=reference)

Sizes are integer expressions in `n`, the run's --elements ("n", "n // 4",
"2 * n"). Everything here is checked before any GPU work; `SpecError`
names what is wrong and where.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from graphbench.errors import UsageError
from graphbench.launch_shape import AUTO  # noqa: F401 - a Stage's default grid, public here

ROLES = ("input", "output", "scratch")


class SpecError(UsageError):
    """A pipeline file that does not describe a runnable pipeline."""


@dataclass(frozen=True)
class Buffer:
    """A device array. Inputs are filled with seeded random data (uniform in
    [low, high)); outputs are poisoned with NaN (or the dtype's maximum)
    before every check; scratch is neither."""

    name: str
    dtype: str = "float32"
    size: str = "n"
    role: str = "output"
    low: float = -1.0
    high: float = 1.0


def buffer(name: str, dtype: str = "float32", size: str = "n", role: str = "output",
           low: float = -1.0, high: float = 1.0) -> Buffer:
    return Buffer(name, dtype, size, role, low, high)


@dataclass(frozen=True)
class Count:
    """A kernel argument computed from n, passed with `dtype` (size_t is uint64)."""

    expr: str = "n"
    dtype: str = "uint64"


def count(expr: str = "n", dtype: str = "uint64") -> Count:
    return Count(expr, dtype)


@dataclass(frozen=True)
class Scalar:
    """A typed constant kernel argument."""

    value: float | int
    dtype: str = "float32"


def scalar(value: float | int, dtype: str = "float32") -> Scalar:
    return Scalar(value, dtype)


Argument = "str | Count | Scalar"  # a buffer name, a count or a scalar


@dataclass(frozen=True)
class Stage:
    """One kernel launch per iteration.

    grid: "auto" sizes a grid-stride grid from `work` (an expression in n,
    the elements the kernel loops over), capped at 32 blocks per SM; or an
    int, a size expression, or a tuple of them. pdl_kernel: the stage's
    PDL-aware variant (it must call griddepcontrol.wait before reading),
    for the pdl and graph-pdl rungs."""

    kernel: str
    args: tuple = ()
    grid: object = AUTO
    block: object = 256
    work: str = "n"
    pdl_kernel: str | None = None
    shared_bytes: int = 0


@dataclass(frozen=True)
class Pipeline:
    """A chain of stages over named buffers, with the CuPy reference that
    computes what the checked outputs must hold.

    reference(inputs, n) -> {output name: expected array}: inputs maps every
    input buffer's name to its CuPy array. fused: one stage that writes the
    same checked outputs, for the fused rung. source: CUDA C++ text, or a
    path to a .cu file (relative to the pipeline file)."""

    name: str
    source: str
    buffers: Sequence[Buffer]
    stages: Sequence[Stage]
    reference: Callable
    fused: Stage | None = None
    rtol: float = 1e-5
    atol: float = 1e-5
    description: str = ""
    params: Mapping[str, object] = field(default_factory=dict)  # what the function was given

    def __post_init__(self) -> None:
        """Text fields that are strings but unusable, said as such (a wrong
        type is graphbench.pipeline.checks' to name): a message would else
        call an empty name "pipeline" and a description "not a string"."""
        if isinstance(self.name, str) and not self.name.strip():
            raise SpecError(f"Pipeline name is {'empty' if not self.name else 'blank'}",
                            'give the pipeline a name, e.g. name="softmax"')
        if isinstance(self.description, str):
            control = next((c for c in self.description if _control(c)), None)
            if control is not None:
                raise SpecError(f"Pipeline description holds the control character "
                                f"{control!r}, which would reach the terminal",
                                "write it as plain text (a newline or tab is fine)")


def _control(char: str) -> bool:
    """A character a terminal would act on rather than show (an escape,
    a bell); a newline and a tab are text."""
    return char not in "\n\t" and not char.isprintable() and not char.isspace()


# --- size expressions -----------------------------------------------------------

_OPERATORS: dict[type, Callable[[int, int], int]] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}


# A size beyond this is no buffer, grid or count any GPU holds (2^48 is 256 TiB of
# bytes); intermediates are capped too, so "n**64**64" fails fast, not after minutes.
MAX_SIZE = 2**48


def evaluate_size(expr: object, n: int, where: str) -> int:
    """An integer expression in n ('n // 4', '2 * n', 4096), checked positive."""
    if isinstance(expr, bool) or not isinstance(expr, (int, str)):
        raise SpecError(f"{where}: size {_short(expr)} is not an integer expression in n",
                        'write e.g. "n", "n // 4" or 1024')
    try:
        value = expr if isinstance(expr, int) else _evaluate(ast.parse(expr, mode="eval").body, n)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError,
            MemoryError) as exc:
        raise SpecError(f"{where}: size {_short(expr)} is not an integer expression in n ({exc})",
                        'use n, integers and + - * // % **, e.g. "n // 4"') from None
    if value <= 0:
        raise SpecError(f"{where}: size {_short(expr)} is {value} at n = {n:,}, not positive",
                        "choose a larger --elements or another size expression")
    if value > MAX_SIZE:
        raise SpecError(f"{where}: size {_short(expr)} is more than 2^48 at n = {n:,}",
                        "no GPU holds that many; check the expression")
    return value


def _digit_count(number: int) -> str:
    """Exact where str() can say it; past Python's int-to-text limit, about."""
    if number.bit_length() < 13000:  # under 4,300 digits
        return str(len(str(number)))
    return f"about {int(number.bit_length() * 0.30103) + 1}"


def _short(value: object) -> str:
    """A user's value in a one-line message, never a 10,000-digit one."""
    try:
        text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 \
            else f"an integer of {_digit_count(abs(value))} digits"
    except Exception:  # an int beyond Python's str() limit, or a repr that raises
        text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _evaluate(node: ast.expr, n: int) -> int:
    value = _node(node, n)
    if abs(value) > MAX_SIZE**2:
        raise ValueError("far too large")
    return value


def _node(node: ast.expr, n: int) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id == "n":
        return n
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left, n), _evaluate(node.right, n)
        if isinstance(node.op, ast.Pow) and not 0 <= right <= 64:
            # a negative exponent gives a float (n**-1 is 1/n), a large one a huge number
            raise ValueError("an exponent must be 0 to 64")
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, n)
    raise ValueError(f"{ast.unparse(node)!r} is not allowed")
