"""The device memory one executable graph takes, from free-memory reads.

cuMemGetInfo moves in the driver's 2 MiB chunks, and the driver keeps the
chunks closed graphs held, so one executable's reading is a whole chunk or
nothing, and later in a run whole batches read nothing
(results/cross_checks/graph_memory_probe.json; docs/profiling.md): one
executable's reading says nothing. Instead copies of one capture are
instantiated and uploaded in batches until free memory has fallen by SPAN
past its first fall (the pool the driver kept is used up there): the fall
over the copies made after that point, per copy, is the figure, within
2 MiB over SPAN."""

from __future__ import annotations

from typing import Callable

BATCH = 32          # executables between free-memory reads
MOST = 1024         # executables at most, then whatever fall was seen
SPAN = 32 << 20     # fall measured past the first one: chunk rounding under 7%


def per_executable(stream, builder, free_memory: Callable[[], int]) -> int | None:
    """Bytes one executable of `builder`'s capture takes; 0 where MOST of
    them moved free memory by no chunk; None where the driver refuses more
    than one executable of the capture (a graph with a conditional node:
    CUDA_ERROR_NOT_SUPPORTED, docs/profiling.md) or free memory rose while
    they were made (the driver released memory it had kept): not measured."""
    made: list = []
    try:
        stream.sync()
        start = free_memory()
        first_fall = None  # (copies, free) at the first read below `start`
        while len(made) < MOST:
            for _ in range(BATCH):
                made.append(builder.complete())
                made[-1].upload(stream)
            stream.sync()
            free = free_memory()
            if first_fall is None and free < start:
                first_fall = (len(made), free)
            elif first_fall and first_fall[1] - free >= SPAN:
                break
        if first_fall is None:
            return 0
        copies, fall = len(made) - first_fall[0], first_fall[1] - free
        # free memory that rose meanwhile: the driver released what closed graphs held
        return round(fall / copies) if copies and fall > 0 else None
    except Exception:  # noqa: BLE001 - the driver's refusal of a second executable
        return None    # (its figure is then not measured; the graph itself is fine)
    finally:
        for one in made:
            one.close()
