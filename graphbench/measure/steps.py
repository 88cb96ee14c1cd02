"""Steps written out as code: what the timing loop calls, with no more
Python in it than a person's bare loop has.

A step is a function of no arguments that enqueues one call of a mode. The
timing loop runs `repeat_of(step)(count)`: for a generated step that is the
same statements inside one `for` loop, so a round makes no Python call per
iteration beyond the launches themselves: a call per iteration shows most
in a one-launch rung such as fused, which read closer to its bare loop
running the step's own loop (results/cross_checks/ladder_against_bare_h100.json;
docs/results.md#cross-checks-against-bare-loops); a stage step pays the
call once per three launches.
"""

from __future__ import annotations

from typing import Callable

Step = Callable[[], None]


def written_step(label: str, statements: list[str], bindings: dict[str, object]) -> Step:
    """A step running `statements` (lines of Python, indented relative to
    each other) with `bindings` as closure variables, and its `repeat(count)`:
    the same lines in one loop. `label` names the code in tracebacks."""
    def block(indent: str) -> str:
        return "".join(f"{indent}{line}\n" for line in statements) or f"{indent}pass\n"

    source = (f"def make({', '.join(bindings)}):\n"
              f"    def step():\n{block(' ' * 8)}"
              f"    def repeat(count):\n"
              f"        for _ in range(count):\n{block(' ' * 12)}"
              f"    step.repeat = repeat\n"
              f"    return step\n")
    namespace: dict = {}
    exec(compile(source, f"<graphbench {label}>", "exec"), namespace)  # noqa: S102
    return namespace["make"](*bindings.values())


def repeat_of(step: Step) -> Callable[[int], None]:
    """`count` calls of `step`: its own written-out loop where it has one."""
    written = getattr(step, "repeat", None)
    if written is not None:
        return written

    def repeat(count: int) -> None:
        for _ in range(count):
            step()
    return repeat
