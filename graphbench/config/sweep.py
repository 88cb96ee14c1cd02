"""SweepConfig: a grid of runs, elements x depth x launch shape x the
pipeline's own parameters, each point a RunConfig made from its base."""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field

from graphbench.config.fields import SWEEP, option
from graphbench.config.params import EXAMPLES, FIELD, check_params, shown
from graphbench.config.run import MAX_DEPTH, MAX_ELEMENTS, RunConfig, passed_by
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
    params: dict[str, tuple[str, ...]] = option(
        None, "--param", "params", "sweep a parameter of the pipeline's pipeline(): "
        "NAME=V1,V2,... (Python literals, or bare words as text; (4,8) is one tuple), one "
        "point per value; repeatable, each an axis (default: pipeline()'s own defaults)",
        commands=(SWEEP,), metavar="NAME=V1,V2", factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.threshold < math.inf:
            raise ConfigError("threshold", f"must be a positive number, got {self.threshold}",
                              "e.g. 1.1 (where the speedup falls below 1.1x)")
        require_normal("threshold", self.threshold)
        for name, values in (("elements", self.elements), ("depths", self.depths)):
            if not values or min(values) <= 0 or len(set(values)) != len(values):
                raise ConfigError(name, "needs positive values, each once")
        self._check_shapes()
        self._check_params()
        points = len(self.elements) * len(self.depths) * len(self.shapes) * \
            len(self.param_points)
        if points > MAX_SWEEP_POINTS:
            axes = "with --depth, --grid and --block" if len(self.shapes) > 1 else "and --depth"
            axes += " and --param" if self.params else ""
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

    def _check_params(self) -> None:
        """Each axis's values checked as run's --param is, each named once;
        a parameter is an axis or the base run's, not both."""
        if not isinstance(self.params, dict):
            raise ConfigError(FIELD, f"must be a dict of names and value lists, got "
                              f"{type(self.params).__name__}", "e.g. {'cols': ('256', '1024')}")
        check_params(dict.fromkeys(self.params, "0"), {})  # the names, and how many
        axes = {}
        for name, values in self.params.items():
            if not isinstance(values, (tuple, list)) or not values:
                raise ConfigError(FIELD, f"{name} needs one value or more", EXAMPLES)
            texts = tuple(check_params({name: v}, passed_by())[name] for v in values)
            if twice := [t for t in dict.fromkeys(texts) if texts.count(t) > 1]:
                raise ConfigError(FIELD, f"{name} names {shown(twice[0])} twice",
                                  "give each value once")
            if name in self.base.params:
                raise ConfigError(FIELD, f"{name} is an axis and the base run's setting too",
                                  "give it once")
            axes[name] = texts
        object.__setattr__(self, "params", axes)

    @property
    def param_points(self) -> list[dict[str, str]]:
        """Every combination of the parameter axes, the first outermost ([{}]: none)."""
        return [dict(zip(self.params, values))
                for values in itertools.product(*self.params.values())]

    @property
    def shapes(self) -> list[tuple[str, int | None]]:
        """Every (grid, block) of the sweep, blocks outermost (as run's)."""
        return [(grid, block) for block in self.blocks for grid in self.grids]

    def points(self) -> list[RunConfig]:
        """Shapes outermost, then parameters: a sweep of one shape and no
        parameter axis runs the points it always did."""
        return [dataclasses.replace(self.base, elements=n, depth=d, grid=grid, block=block,
                                    params={**self.base.params, **values})
                for grid, block in self.shapes for values in self.param_points
                for d in self.depths for n in self.elements]
