"""SweepConfig: a grid of runs, elements x depth x launch shape, each point
a RunConfig made from its base."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from graphbench.config.fields import SWEEP, option
from graphbench.config.run import MAX_DEPTH, MAX_ELEMENTS, RunConfig
from graphbench.counts import require_normal
from graphbench.errors import ConfigError

MAX_SWEEP_POINTS, DEFAULT_THRESHOLD = 1000, 1.1


@dataclass(frozen=True)
class SweepConfig:
    elements: tuple[int, ...] = option((4096, 16384, 65536, 262144, 1048576, 4194304, 16777216),
                                       "--elements", "grid", "sizes: a list (4096,65536) or a "
                                       "range (2^12..2^24 doubles, 2^12..2^24:x4 quadruples; "
                                       "default 2^12..2^24:x4)", commands=(SWEEP,))
    depths: tuple[int, ...] = option((1, 4, 16), "--depth", "grid", "pipeline depths, same "
                                     "forms (default 1,4,16)", commands=(SWEEP,))
    threshold: float = option(DEFAULT_THRESHOLD, "--threshold", "float", "report where the "
                              "speedup falls below X (default {default:g})", commands=(SWEEP,))
    grids: tuple[str, ...] = option(("auto",), "--grid", "grids", "grids of the pipeline's "
                                    "grid-stride stages, as run's --grid (auto, per-element, 1056, "
                                    "8/sm); each is an axis value (default auto)", commands=(SWEEP,))
    blocks: tuple[int | None, ...] = option((None,), "--block", "blocks", "threads per block "
                                            "of those stages, as run's --block; each is an axis "
                                            "value (default: the pipeline's, 256)", commands=(SWEEP,))
    base: RunConfig = field(default_factory=lambda: RunConfig(iters=None, max_time=1.0))

    def __post_init__(self) -> None:
        if not 0 < self.threshold < math.inf:
            raise ConfigError("threshold", f"must be a positive number, got {self.threshold}",
                              "e.g. 1.1 (where the speedup falls below 1.1x)")
        require_normal("threshold", self.threshold)
        for name, values in (("elements", self.elements), ("depths", self.depths)):
            if not values or min(values) <= 0 or len(set(values)) != len(values):
                raise ConfigError(name, "needs positive values, each once")
        self._check_shapes()
        points = len(self.elements) * len(self.depths) * len(self.shapes)
        if points > MAX_SWEEP_POINTS:
            axes = "with --depth, --grid and --block" if len(self.shapes) > 1 else "and --depth"
            raise ConfigError("elements", f"{axes} make {points:,} points, more "
                              f"than {MAX_SWEEP_POINTS:,}", "sweep a coarser grid (e.g. :x4)")
        if max(self.elements) > MAX_ELEMENTS or max(self.depths) > MAX_DEPTH:
            raise ConfigError("elements", "or --depth is beyond what any GPU runs",
                              f"at most {MAX_ELEMENTS:,} elements and depth {MAX_DEPTH}")

    def _check_shapes(self) -> None:
        # Each shape is checked as run's --grid/--block are (RunConfig), so a
        # library caller's bad shape fails here, before any point runs.
        if not self.grids or not self.blocks:
            raise ConfigError("grids" if not self.grids else "blocks", "is empty",
                              "give auto (--grid) or the pipeline's block (leave out --block)")
        grids = tuple(dict.fromkeys(RunConfig(grid=g).grid for g in self.grids))
        for block in self.blocks:
            RunConfig(block=block)
        object.__setattr__(self, "grids", grids)
        object.__setattr__(self, "blocks", tuple(dict.fromkeys(self.blocks)))

    @property
    def shapes(self) -> list[tuple[str, int | None]]:
        """Every (grid, block) of the sweep, blocks outermost (as run's)."""
        return [(grid, block) for block in self.blocks for grid in self.grids]

    def points(self) -> list[RunConfig]:
        """Shapes outermost: a sweep of one shape runs the points it always did."""
        return [dataclasses.replace(self.base, elements=n, depth=d, grid=grid, block=block)
                for grid, block in self.shapes for d in self.depths for n in self.elements]
