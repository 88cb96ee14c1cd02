"""The launch ladder: every way graphbench runs one pipeline iteration, from
the most host work per iteration to the least. One table that the
configuration, the measurement, the statistics and the report all read, so a
rung's name and nature are written once."""

from __future__ import annotations

from dataclasses import dataclass

MODE_SEPARATOR = "@"  # an A/B baseline build's modes are named graph@base, ...


@dataclass(frozen=True)
class Rung:
    name: str
    what: str
    graph: bool          # replays an instantiated graph: lifecycle, replay and cost checks
    kernel_change: bool  # needs kernels beyond the pipeline's own (PDL variants, fusion)
    launches: str        # launch calls per iteration: "stages", "one", "per-unroll", "per-iters"
    pdl: bool = False    # needs programmatic dependent launch (compute capability 9.0+)


RUNGS = (
    Rung("individual", "cuda.core launch() per stage", False, False, "stages"),
    Rung("driver", "cuLaunchKernel per stage, arguments packed once", False, False, "stages"),
    Rung("pdl", "launch() per stage with programmatic dependent launch", False, True, "stages",
         pdl=True),
    Rung("graph", "one captured graph, one graph.launch per iteration", True, False, "one"),
    Rung("graph-pdl", "the PDL launches captured into one graph", True, True, "one", pdl=True),
    Rung("unrolled", "--unroll iterations in one graph, one launch per K", True, False,
         "per-unroll"),
    Rung("loop", "one graph whose device-side while loop runs --iters iterations", True, False,
         "per-iters"),
    Rung("fused", "one kernel doing every stage", False, True, "one"),
)
RUNG = {rung.name: rung for rung in RUNGS}
LADDER = tuple(RUNG)
DEFAULT_MODES = ("individual", "graph", "fused")
ALL = "all"


def kind(mode: str) -> str:
    """The rung a mode name runs: graph@base runs the graph rung."""
    return mode.split(MODE_SEPARATOR)[0]


def rung(mode: str) -> Rung | None:
    return RUNG.get(kind(mode))


def launches_per_iteration(mode: str, stage_launches: int, unroll: int, iters: int) -> float:
    """Host launch calls per pipeline iteration of `mode`."""
    per = rung(mode).launches if rung(mode) else "stages"
    return {"stages": float(stage_launches), "one": 1.0, "per-unroll": 1.0 / max(1, unroll),
            "per-iters": 1.0 / max(1, iters)}[per]


def ladder_order(modes) -> list[str]:
    """Modes sorted by their rung (A/B base modes right after their own rung)."""
    return sorted(modes, key=lambda m: (LADDER.index(kind(m)) if kind(m) in RUNG else len(LADDER),
                                        m != kind(m), m))
