"""The one way graphbench captures a graph.

Buffers must exist before capture (allocating during a capture breaks it in
cuda.core 1.2), and nothing may synchronise while it runs. A builder lives
exactly as long as the graph made from it: its definition lists the nodes a
graph update re-points, and closing both together keeps one rule for every
graph graphbench makes.
"""

from __future__ import annotations

from typing import Callable

from graphbench.measure.steps import written_step

Enqueue = Callable[[object], None]  # enqueue one iteration onto a stream or builder

# Every backend's capture returns an object with `iterations`, `launch(stream)`,
# `replayer(stream) -> step` and `close()`: this class for cuda.core kernels,
# graphbench.measure.backends.torch / .cupy for framework capture.


def capture(stream, enqueue: Enqueue, iterations: int = 1):
    """An ended builder holding `iterations` captured iterations (the caller closes it)."""
    builder = stream.create_graph_builder()
    try:
        builder.begin_building()
        for _ in range(iterations):
            enqueue(builder)
        builder.end_building()
    except BaseException:
        builder.close()
        raise
    return builder


class CapturedGraph:
    """A captured, instantiated and uploaded graph, with its builder."""

    def __init__(self, stream, enqueue: Enqueue, iterations: int = 1) -> None:
        self.iterations = iterations
        self.builder = capture(stream, enqueue, iterations)
        try:
            self.graph = self.builder.complete()
            self.graph.upload(stream)
            stream.sync()
        except BaseException:
            self.builder.close()
            raise

    def launch(self, stream) -> None:
        self.graph.launch(stream)

    def replayer(self, stream):
        """A step that replays the graph, its bound method held in a closure
        so the timing loop measures the launch, not attribute lookups."""
        return written_step("graph replay", ["launch_graph(stream)"],
                            {"launch_graph": self.graph.launch, "stream": stream})

    def close(self) -> None:
        self.graph.close()
        self.builder.close()
