"""graphbench run --profile: the command lines that profile graphbench, and
the profiling run itself (graphbench.measure.profile). It writes no record:
nothing is timed, and a profiler's figures are the profiler's.

nsys (Nsight Systems; untested: docs/profiling.md) starts its capture at
cuProfilerStart with --capture-range=cudaProfilerApi and traces each graph
node as its own kernel with --cuda-graph-trace=node. ncu (Nsight Compute)
honours cuProfilerStart/Stop with --profile-from-start off and profiles each
graph node as a kernel with --graph-profiling node (the default, graph,
profiles a whole graph launch as one workload)."""

from __future__ import annotations

import shlex

from rich.text import Text

from graphbench.cli.progress import console
from graphbench.errors import EXIT_OK, UsageError

NSYS = "nsys profile --capture-range=cudaProfilerApi --cuda-graph-trace=node -o graphbench"
NCU = "ncu --graph-profiling node --profile-from-start off -o graphbench"
# options that gate on or store figures, which a profiling run does not make (and
# every output of the registry, graphbench.report.outputs)
NO_FIGURES = {"baseline": "--baseline", "fail_on": "--fail-on", "save": "--save"}
# options that steer timed sampling, which a profiling run does not do
NO_SAMPLING = {"rounds": "--rounds", "max_noise": "--max-noise", "min_rounds": "--min-rounds",
               "max_time": "--max-time", "warmup_rounds": "--warmup"}


def profile_commands(argv: list[str]) -> list[str]:
    """The nsys and ncu command lines that run these same arguments."""
    arguments = shlex.join(["python", "-m", "graphbench", *argv])
    return [f"{NSYS} {arguments}", f"{NCU} {arguments}"]


def check_profile_options(args, config) -> None:
    """Refused before any GPU work: what a profiling run cannot give."""
    from graphbench.report.outputs import OUTPUTS

    flags = {**{output.name: output.flag for output in OUTPUTS.values()}, **NO_FIGURES}
    for name, flag in flags.items():
        if getattr(args, name, None):
            raise UsageError(f"--profile times nothing and writes no record, so {flag} has "
                             "nothing to write or gate on", f"leave out {flag}, or --profile")
    steered = [flag for name, flag in NO_SAMPLING.items() if name in getattr(args, "given", ())]
    if steered:
        raise UsageError(f"--profile runs a few iterations of every rung untimed, so "
                         f"{', '.join(steered)} would be ignored; refused",
                         f"leave out {', '.join(steered)}, or --profile")
    if args.processes != 1 or config.gate_sizes:
        raise UsageError("--profile runs once, in this process",
                         "leave out --processes and --gate-sizes")
    if args.device == "all" or len(args.device) != 1:
        raise UsageError("--profile profiles one device", "give --device N")


def profile_text(run) -> Text:
    """What the profiled range held, rung by rung."""
    from graphbench.measure.nvtx import INSTALL

    rungs = ", ".join(f"{mode} {run.calls[mode]} call{'s' * (run.calls[mode] != 1)} "
                      f"({run.iterations[mode]} iterations)" for mode in run.modes)
    text = Text(f"profiled {run.device} between cuProfilerStart and cuProfilerStop: {rungs}\n")
    text.append("NVTX ranges: graphbench profile MODE around each rung, graphbench MODE call I "
                "around each call\n" if run.nvtx else f"NVTX ranges absent: {INSTALL}\n")
    text.append("no timing figures and no record: the profiler's report holds the figures",
                style="dim")
    return text


def cmd_profile(args, config) -> int:
    from graphbench.measure.profile import run_profile
    from graphbench.runner import check_run

    check_profile_options(args, config)
    check_run(config)  # the pipeline file, its sizes and kernel sources, before the GPU
    lines = Text("profile this run with (nsys is Nsight Systems, ncu Nsight Compute):\n")
    for line in profile_commands(args.argv):
        lines.append(f"  {line}\n")
    console().print(lines, soft_wrap=True)  # whole lines, to copy and paste
    console().print(profile_text(run_profile(config)))
    return EXIT_OK
