"""RunConfig: the validated, frozen configuration of one run, the single
source of every default of its settings and of the help text the command
line shows for each (graphbench.config.fields.option). Validation names
fields, never flags (ConfigError); the CLI maps a field back to its flag."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from graphbench.config.fields import RUN, SWEEP, option
from graphbench.config.params import check_params
from graphbench.counts import require_normal, require_positive
from graphbench.errors import ConfigError
from graphbench.ladder import ALL, BASELINE, DEFAULT_MODES, HEADLINE, LADDER, ORDER
from graphbench.limits import MIN_ROUNDS

DEFAULT_STAGES = ("add", "mul", "sub")  # the built-in pipeline's chain (pipeline/shipped/add_mul_sub.py)
MAX_STAGES = 64  # a longer chain is --depth's job

ALL_MODES = ORDER  # every rung; --modes all runs LADDER (torch-compile is opt-in)
TOLERANCE = 1e-5  # rtol = atol for float32 values of order one
# The stop rule's noise figure is the median's interval for correlated rounds:
# below 10 rounds it is almost never valid, and none is stated below
# MIN_ROUNDS (a slow host phase could last the whole run), so the default
# waits for MIN_ROUNDS; records of older runs keep 10-19
MIN_ROUNDS_FLOOR = 10
DEFAULT_MIN_ROUNDS = MIN_ROUNDS
# pipeline() parameters that a setting of their own passes (--depth, --stages):
# refused as a --param (graphbench.config.params)
PASSED = ("depth", "stages")


@dataclass(frozen=True)
class RunConfig:
    elements: int = option(4096, "--elements", "count", "vector length (default {default}; "
                           "2^20 and 1e6 forms work)", commands=(RUN,))
    iters: int | None = option(None, "--iters", "count", "pipeline iterations per timed round "
                               "(default: about 10 ms of work per round, at every size)",
                               sweep=None)
    rounds: int | None = option(None, "--rounds", "count", "exactly N timed rounds per mode "
                                "(default: adaptive, see --max-noise)", commands=(RUN,))
    depth: int = option(1, "--depth", "count", "repeat the stage chain K times, each stage "
                        "reading the previous one's output (default {default})", commands=(RUN,),
                        metavar="K")
    modes: tuple[str, ...] | None = option(
        None, "--modes", "list", f"comma-separated rungs of the launch ladder: {', '.join(ORDER)}; "
        f"or all, which is every rung but the opt-in {', '.join(sorted(set(ORDER) - set(LADDER)))} "
        f"(default {','.join(DEFAULT_MODES)}; fused exists for add,mul,sub at depth 1)")
    unroll: int = option(10, "--unroll", "count", "iterations captured into one graph by the "
                         "unrolled rung (default {default})", metavar="K")
    warmup_rounds: int = option(1, "--warmup", "int", "untimed warm-up rounds per mode "
                                "(default {default})", commands=(RUN,))
    stages: tuple[str, ...] = option(DEFAULT_STAGES, "--stages", "list", "the built-in "
                                     f"pipeline's stage chain, from add,mul,sub, at most "
                                     f"{MAX_STAGES} stages (default add,mul,sub)")
    pipeline: str | None = option(None, "--pipeline", "path", "benchmark this pipeline file "
                                  "(a .py path) or shipped pipeline (softmax, jacobi, reduction, "
                                  "torch_mlp, cupy_chain; "
                                  "default: the built-in add,mul,sub); the record keeps its "
                                  "SHA-256", metavar="FILE|NAME")
    max_noise: float = option(0.01, "--max-noise", "fraction", "stop when the speedup's 95%% CI "
                              "half-width is within PCT of its median: 1%% or 0.01 (a bare "
                              "number is a fraction: 0.5 means 50%%; default 1%%)")
    min_rounds: int = option(DEFAULT_MIN_ROUNDS, "--min-rounds", "count", "rounds before the "
                             "noise target is checked (default {default}: no interval is "
                             "stated from fewer, since a slow host phase could last the whole "
                             "run)")
    max_time: float = option(3.0, "--max-time", "seconds", "sampling time budget per run "
                             "(default {default:g} s)", sweep=1.0)
    flush_l2: bool = option(False, "--flush-l2", "flag", "clear the L2 cache before every "
                            "timed round (cold-cache figures)")
    device: int = option(0, "--device", "devices", "CUDA device id, a list such as 0,1, or all "
                         "(default 0); one record per device")
    seed: int = option(0, "--seed", "int", "seed of the random inputs (default {default})")
    kernel_source: str | None = option(None, "--kernel-source", "path", "compile this .cu file "
                                       "instead of the pipeline's own source (same kernel "
                                       "names); the record keeps its SHA-256")
    pin_cpu: bool = option(True, "--no-pin", "no-flag", "do not pin the process to a CPU near "
                           "the GPU, nor move it to one in the host's fast speed state before "
                           "each set of rounds")
    gate_sizes: tuple[int, ...] = option(
        (), "--gate-sizes", "grid", "also run at these sizes, so a gate sees bandwidth, not only "
        "per-kernel cost (e.g. 2^20,2^24: near L2 and far beyond; default none)", commands=(RUN,))
    ab_source: str | None = option(None, "--ab", "path", "A/B: the base side, compiled, "
                                   "verified and alternated round by round with this one in "
                                   "this process: a git revision (main, HEAD~1, a commit: its "
                                   "copy of the pipeline file and kernels), a pipeline .py file "
                                   "or a .cu file; every wall, busy time and the speedup judged "
                                   "on paired rounds", commands=(RUN,), metavar="REF|FILE")
    attribute: bool = option(False, "--attribute", "flag", "after the timed rounds and checks, "
                             "trace a few iterations of every rung with CUPTI: per-stage GPU "
                             "time, gaps, capture escapes (needs the cupti extra)",
                             commands=(RUN,))
    grid: str = option("auto", "--grid", "grids", "grid of the pipeline's grid-stride stages: "
                       "auto (one thread per element, at most 32 blocks per SM), per-element "
                       "(one thread per element, uncapped: NVIDIA's cudaGraphs sample), a block "
                       "count (1056) or blocks per SM (8/sm); a list runs each (one record per "
                       "shape)", commands=(RUN,))
    block: int | None = option(None, "--block", "blocks", "threads per block of those stages "
                               "(default: the pipeline's, 256); a list runs each",
                               commands=(RUN,))
    rtol: float = TOLERANCE
    atol: float = TOLERANCE
    # set by the run, never by a flag: this is one of its --gate-sizes points, whose GPU busy
    # time is all the gate reads there (graphbench.gate.specs.default_specs)
    gate_point: bool = False
    params: dict[str, str] = option(
        None, "--param", "param", "pass NAME=VALUE to the pipeline's pipeline(): a Python "
        "literal (256, 0.5, True, (4,8)) or a bare word, as text; repeatable (default: "
        "pipeline()'s own defaults)", commands=(RUN,), metavar="NAME=VALUE", factory=dict)

    def __post_init__(self) -> None:
        for name in ("elements", "min_rounds", "depth", "unroll", "iters", "rounds"):
            if getattr(self, name) is not None:
                require_positive(name, getattr(self, name))
        if self.min_rounds < MIN_ROUNDS_FLOOR:
            raise ConfigError("min_rounds", f"must be at least {MIN_ROUNDS_FLOOR}, got "
                              f"{self.min_rounds}", "fewer rounds give no interval the noise "
                              "target can be judged by (use --rounds N for a fixed count)")
        for name, limit in LIMITS.items():
            value = getattr(self, name)
            if value is not None and value > limit:
                raise ConfigError(name, f"is {value:,}, more than {limit:,}", LIMIT_REMEDY[name])
        self._check_gate_sizes(self.gate_sizes)
        if not 0 < len(self.stages) <= MAX_STAGES:
            raise ConfigError("stages", f"needs 1 to {MAX_STAGES} stages, got {len(self.stages):,}",
                              "choose from add, mul, sub; --depth repeats the chain")
        if not 0 < self.max_noise < 1:
            raise ConfigError("max_noise", f"must be between 0% and 100%, got {self.max_noise:.2%}",
                              "e.g. 1% (0.01)")
        if not self.max_time > 0:
            raise ConfigError("max_time", f"must be positive seconds, got {self.max_time}", "e.g. 2")
        for name in ("max_noise", "max_time"):
            require_normal(name, getattr(self, name))
        for name in ("device", "warmup_rounds", "seed"):
            if getattr(self, name) < 0:
                raise ConfigError(name, f"must be 0 or more, got {getattr(self, name)}", "e.g. 0")
        for name in ("kernel_source", "ab_source"):
            if getattr(self, name) == "":
                raise ConfigError(name, "is an empty path", "give a .cu file, or leave it out")
        if self.modes is not None:
            self._check_modes(self.modes)
        self._check_shape()
        object.__setattr__(self, "params", check_params(self.params, passed_by()))

    def _check_gate_sizes(self, sizes) -> None:
        if any(not 0 < size <= MAX_ELEMENTS for size in sizes):
            raise ConfigError("gate_sizes", f"needs element counts from 1 to {MAX_ELEMENTS:,}, got "
                              f"{', '.join(map(str, sizes))}", "e.g. 2^20,2^24")
        if again := sorted({n for n in sizes if sizes.count(n) > 1 or n == self.elements}):
            raise ConfigError("gate_sizes", f"names {again[0]:,} twice" if again[0] != self.elements
                              else f"has {again[0]:,}, the run's own size", "give each other size once")

    def _check_modes(self, modes) -> None:
        if ALL in modes:
            if len(modes) > 1:
                raise ConfigError("modes", "has all and other modes", "give all on its own")
            return
        unknown = [m for m in modes if m not in ALL_MODES]
        if unknown or not modes:
            raise ConfigError("modes", f"has unknown mode(s) {', '.join(unknown) or '(none)'}",
                              f"choose from {', '.join(ALL_MODES)}, or all")
        if len(set(modes)) != len(modes):
            raise ConfigError("modes", "names a mode twice", "name each mode once")
        if HEADLINE in modes and BASELINE not in modes:
            # The speedup and the graph's replay checks need both.
            raise ConfigError("modes", f"with {HEADLINE} also needs {BASELINE}",
                              f"add {BASELINE}, e.g. {BASELINE},{HEADLINE}")

    def _check_shape(self) -> None:
        from graphbench.launch_shape import ShapeError, check_block, check_grid, normal_grid

        try:
            check_block(self.block)
        except ShapeError as exc:
            raise ConfigError("block", f"{exc}".removeprefix("block "), "e.g. 128, 256 "
                              "or 512") from None
        try:  # per-element past CUDA's grid-x limit fails here, not at the launch
            object.__setattr__(self, "grid", normal_grid(self.grid))
            check_grid(self.grid, self.elements, self.block)
        except ShapeError as exc:
            raise ConfigError("grid", f"{exc}".removeprefix("grid "), exc.remedy or "e.g. "
                              "auto, per-element, 1056 or 8/sm") from None

    @property
    def ladder(self) -> bool:
        """--modes all: rungs this device or kernel source cannot run are
        reported unavailable rather than refused."""
        return self.modes == (ALL,)

    @property
    def implied_modes(self) -> bool:
        """The modes were not named one by one (the default, or all): a rung
        the pipeline lacks (fused) is left out rather than refused."""
        return self.modes is None or self.ladder

    @property
    def run_modes(self) -> tuple[str, ...]:
        """The modes asked for, in ladder order."""
        wanted = LADDER if self.ladder else self.modes or DEFAULT_MODES
        return tuple(m for m in ORDER if m in wanted)

    def resolved(self, **changes) -> "RunConfig":
        """The configuration as a record stores it: modes named, not implied."""
        return dataclasses.replace(self, **{"modes": self.run_modes, **changes})


# Beyond these a value is a typo, not a benchmark: 2^34 float32 elements in the
# six vectors of the shortest pipeline need 384 GiB, more than any GPU has.
MAX_ELEMENTS, MAX_DEPTH = 2**34, 1024
LIMITS = {"elements": MAX_ELEMENTS, "iters": 10**7, "unroll": 1000, "rounds": 10**6, "min_rounds": 10**6,
          "depth": MAX_DEPTH, "warmup_rounds": 10**4, "max_time": 86_400.0}
FEWER = "more is a typo, not a benchmark"
LIMIT_REMEDY = {"elements": "no GPU holds that many elements", "iters": "leave it out: about 10 ms "
                "of work per round", "rounds": FEWER, "min_rounds": FEWER, "unroll": "a longer "
                "graph is a different benchmark", "depth": "a deeper chain is a different "
                "benchmark", "warmup_rounds": FEWER, "max_time": "a day is the longest budget"}


def passed_by() -> dict[str, str]:
    """The flag of each setting that passes a pipeline() parameter (depth: --depth)."""
    return {f.name: f.metadata["flag"] for f in dataclasses.fields(RunConfig) if f.name in PASSED}
