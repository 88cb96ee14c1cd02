"""The launch ladder: every way graphbench runs one pipeline iteration, from
the most host work per iteration to the least. One table that the
configuration, the measurement (graphbench.measure.modes reads its facts,
never restates them), the statistics and the report all read, so a rung's
name and nature are written once."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.metrics import COMPILED, FUSED, STAGES, STAGES_PDL

MODE_SEPARATOR = "@"  # an A/B baseline build's modes are named graph@base, ...
BASE_SUFFIX = MODE_SEPARATOR + "base"

KERNELS, TORCH, CUPY = "cuda.core", "torch", "cupy"  # the backends a pipeline runs on
FRAMEWORKS = (TORCH, CUPY)                           # what a callable pipeline is written in


@dataclass(frozen=True)
class Rung:
    name: str
    what: str
    graph: bool          # replays an instantiated graph: lifecycle, replay and cost checks
    kernel_change: bool  # needs kernels beyond the pipeline's own (PDL variants, fusion)
    launches: str        # launch calls per iteration: "stages", "one", "per-unroll", "per-iters"
    pdl: bool = False    # needs programmatic dependent launch (compute capability 9.0+)
    workload: str = STAGES  # the GPU work it runs; rungs with one workload share busy time
    backends: frozenset = frozenset({KERNELS})  # the backends that can run it
    why_not: str = ""    # why a callable pipeline cannot run it
    opt_in: bool = False  # run only when named: not part of --modes all
    # what else it needs beyond a backend that runs it and, for pdl, PDL-aware kernels
    # and compute capability 9.0 (graphbench.measure.availability checks each need once):
    # "fused-stage", "triton", "conditional-nodes"
    needs: tuple[str, ...] = ()

    def unavailable_for(self, backend: str, pipeline: str) -> str | None:
        """Why `pipeline`, run by `backend`, cannot run this rung (None: it can)."""
        if backend in self.backends:
            return None
        if backend == KERNELS:
            return f"{self.name} runs torch callables; the {pipeline} pipeline is CUDA kernels"
        return f"the {pipeline} pipeline is {backend} callables: {self.why_not}"


_EVERY = frozenset({KERNELS, TORCH, CUPY})
_RAW = "its stages are framework calls, not kernels graphbench launches"
RUNGS = (
    Rung("individual", "each stage called (a launch() per kernel stage), one iteration at a time",
         False, False, "stages", backends=_EVERY),
    Rung("driver", "cuLaunchKernel per stage, arguments packed once", False, False, "stages",
         why_not=f"cuLaunchKernel needs raw kernels; {_RAW}"),
    Rung("pdl", "launch() per stage with programmatic dependent launch", False, True, "stages",
         pdl=True, workload=STAGES_PDL,
         why_not=f"programmatic dependent launch is a launch attribute; {_RAW}"),
    Rung("graph", "one captured graph, one graph.launch per iteration", True, False, "one",
         backends=_EVERY),
    Rung("graph-pdl", "the PDL launches captured into one graph", True, True, "one", pdl=True,
         workload=STAGES_PDL,
         why_not=f"programmatic dependent launch is a launch attribute; {_RAW}"),
    Rung("unrolled", "--unroll iterations in one graph, one launch per K", True, False,
         "per-unroll", backends=_EVERY),
    Rung("loop", "one graph whose device-side while loop runs --iters iterations", True, False,
         "per-iters", needs=("conditional-nodes",),
         why_not="a device-side loop needs graphbench's counter kernel in a conditional node, "
         "which framework capture cannot hold"),
    Rung("fused", "one kernel doing every stage", False, True, "one", workload=FUSED,
         needs=("fused-stage",),
         why_not="fusing is the pipeline author's kernel; try torch-compile for torch"),
    Rung("torch-compile", "torch.compile(mode='reduce-overhead'): compiled kernels in CUDA "
         "graphs torch makes itself", True, True, "one", workload=COMPILED,
         backends=frozenset({TORCH}), why_not="torch.compile compiles torch code only",
         opt_in=True, needs=("triton",)),
)
RUNG = {rung.name: rung for rung in RUNGS}
ORDER = tuple(RUNG)                                     # every rung, in ladder order
LADDER = tuple(r.name for r in RUNGS if not r.opt_in)  # what --modes all runs
DEFAULT_MODES = ("individual", "graph", "fused")
BASELINE = "individual"  # the rung every speedup is over: the most host work per iteration
HEADLINE = "graph"       # the rung of the headline speedup: what CUDA graphs buy
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
    return sorted(modes, key=lambda m: (ORDER.index(kind(m)) if kind(m) in RUNG else len(ORDER),
                                        m != kind(m), m))
