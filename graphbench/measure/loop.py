"""The `loop` rung's graph: the stages inside a device-side while loop
(a conditional node), so one graph launch runs many iterations with no host
involvement at all.

    loop_reset(counter, target)         once per launch: counter = *target
    while (condition):                  the conditional node, default 1
        stage 1 .. stage n              one pipeline iteration
        loop_count(condition, counter)  --counter; condition = counter != 0

`target` lives in device memory, so the iterations per launch are set after
the graph is built (the run's --iters is known only after calibration).
"""

from __future__ import annotations

from graphbench.measure.graphs import Enqueue
from graphbench.measure.kernels import LOOP_COUNT_KERNEL, LOOP_RESET_KERNEL


class DeviceLoop:
    """The loop's counter and target, and the enqueue that builds the loop."""

    def __init__(self, kernels, body: Enqueue) -> None:
        import cupy
        from cuda.core import LaunchConfig

        self._reset, self._count = kernels[LOOP_RESET_KERNEL], kernels[LOOP_COUNT_KERNEL]
        self._body, self._one = body, LaunchConfig(grid=1, block=1)
        self._counter = cupy.zeros(1, dtype=cupy.uint32)
        self._target = cupy.ones(1, dtype=cupy.uint32)
        self.iterations = 1
        self._builders: list = []  # the loop bodies' builders, closed with the loop

    def set_iterations(self, iterations: int) -> None:
        import cupy

        self.iterations = max(1, int(iterations))
        self._target[...] = self.iterations
        cupy.cuda.get_current_stream().synchronize()  # before any launch reads it

    def enqueue(self, builder) -> None:
        """Capture the reset, the while loop and its body onto `builder`."""
        from cuda.core import launch

        condition = builder.create_condition(default_value=1)
        launch(builder, self._one, self._reset, self._counter.data.ptr, self._target.data.ptr)
        body = builder.while_loop(condition)
        self._builders.append(body)
        body.begin_building()
        self._body(body)
        launch(body, self._one, self._count, condition, self._counter.data.ptr)
        body.end_building()

    def close(self) -> None:
        for body in self._builders:
            body.close()
        self._builders = []
