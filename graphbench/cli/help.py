"""The examples and exit-code lines under each command's --help; the
output lines name the command's outputs from the registry
(graphbench.report.outputs)."""

import textwrap

from graphbench.cli.outputs import COMMAND_KINDS
from graphbench.report.outputs import outputs_for


def output_note(command: str) -> str:
    """The outputs of `command` that `-` may take (every one but a picture)."""
    flags = [o.flag for o, _ in outputs_for(COMMAND_KINDS[command]) if o.picture is None]
    listed = " and ".join([", ".join(flags[:-1]), flags[-1]] if len(flags) > 1 else flags)
    return textwrap.fill(f"output: - is standard output for {listed} (then the record is all "
                         "stdout holds; the report goes to stderr). --quiet prints only errors "
                         "and a failed gate's decision; NO_COLOR=1 turns colour off.",
                         width=79, subsequent_indent="  ")


REPLAY_EXAMPLES = """examples:
  graphbench replay --pipeline torch_mlp       the shipped torch MLP, 4096 elements
  graphbench replay --pipeline cupy_chain      the shipped CuPy chain
  graphbench replay --pipeline my_model.py --elements 2^20 --repeats 10
  graphbench replay --pipeline my_model.py --json replay.json

Each case refills the inputs (random values, poison), poisons the outputs,
or replays twice on unchanged inputs, then compares the replay with eager
execution on the same inputs (docs/replay.md).
exit codes: 0 every replay right, 1 a stale replay found, 2 cannot judge.
"""

RUN_EXAMPLES = """examples:
  graphbench run                               defaults: 4096 elements, 1000 iterations, device 0
  graphbench run --elements 2^20 --json out.json
  graphbench run --max-noise 0.5% --max-time 10
  graphbench run --rounds 20 --modes individual,graph
  graphbench run --elements 2^24 --flush-l2 --verbose
  graphbench run --processes 5 --gate-sizes 2^20,2^24 --json baseline.json
  graphbench run --gate-sizes 2^20,2^24 --baseline baseline.json
  graphbench run --kernel-source new.cu --ab base.cu
  graphbench run --modes all                   every rung of the launch ladder
  graphbench run --pipeline softmax --modes all --elements 2^20
  graphbench run --pipeline my_pipeline.py     your own kernels (docs/pipelines.md)
  graphbench run --pipeline softmax --param cols=256 --elements 2^20    pipeline(cols=256)
  graphbench run --pipeline torch_mlp --modes all --elements 8192    torch, batch 8
  graphbench run --elements 2^24 --grid auto,per-element     auto against NVIDIA's sample's shape
  graphbench run --json - | jq .summary        the record on stdout, the report on stderr

--max-noise 0.5% (or 0.005) stops once the speedup's 95% CI is within 0.5% of it.
--grid per-element launches one thread per element, uncapped, as NVIDIA's
  cudaGraphs sample does; auto caps at 32 blocks per SM (4,224 on a 132-SM GPU).
--ab alternates both builds' rounds in this process and gates new.cu on paired
  ratios (default: each mode's wall 5%, each GPU workload's busy time 2%).
OUTPUT_NOTE
exit codes: 0 ok, 1 verification failed or regression, 2 usage, environment or
  bad-file error, 130 interrupted
"""
RUN_EXAMPLES = RUN_EXAMPLES.replace("OUTPUT_NOTE", output_note("run"))

COMPARE_EXAMPLES = """examples:
  graphbench compare results/gate/baseline.json new.json
  graphbench compare base.json new.json --fail-on graph.wall:10% --fail-on graph.busy@2^24:3%
  graphbench compare base.json new.json --markdown summary.md --json verdicts.json
  graphbench compare ab.json                      an A/B record (run --ab): new against base

metrics: MODE.wall, MODE.submit, MODE.device, MODE.busy (MODE: a rung such as
  individual, driver, pdl, graph, graph-pdl, unrolled, loop, fused), optionally
  @SIZE for a --gate-sizes point, MODE.cycles (busy time in SM cycles), and
  speedup, speedup.fused; thresholds in %, us (times) or x (speedups).
default gate: each mode's wall 10%, each GPU workload's busy time 5% (individual
  and graph share one) at the run's size and every gate size; the speedup is
  shown, not gated (it falls when individual launches get faster). Times are
  gated only between records of the same device model and driver, and only
  against a baseline of 3 or more processes (--processes 5 is better).
verdicts: same (no detectable change), faster, changed (a real change smaller
  than the threshold: shown, not failing), slower (past 3/4 of the threshold
  on a pair that catches the threshold 95% of the time and passes half of it
  95%, or a 99% interval wholly above it: fails), not gateable (the pair cannot
  tell the threshold from noise and its interval is not clear of it; says why),
  incompatible, missing (a gated one is an error). detects: the smallest
  threshold the pair can gate.
  A gate that judged nothing exits 2.
OUTPUT_NOTE
exit codes: 0 pass, 1 regression or failed verification of the current record,
  2 usage error, or a record or metric that cannot be judged
"""
COMPARE_EXAMPLES = COMPARE_EXAMPLES.replace("OUTPUT_NOTE", output_note("compare"))

SWEEP_EXAMPLES = """examples:
  graphbench sweep                                     2^12..2^24 (x4) elements x depth 1,4,16
  graphbench sweep --elements 2^12..2^24 --depth 1..16 --json sweep.json --plot sweep.svg
  graphbench sweep --elements 4096,65536 --depth 1,8 --threshold 1.5
  graphbench sweep --modes all --json ladder.json --plot ladder.svg
  graphbench sweep --pipeline jacobi --depth 1,4,16,64         depth = Jacobi steps
  graphbench sweep --grid auto,1056 --block 128,256     each launch shape is an axis too
  graphbench sweep --pipeline softmax --depth 1 --param cols=256,1024,4096
                            any parameter of the pipeline's pipeline() is an axis (--param)
  graphbench sweep --elements 2^20,2^24 --depth 1 --grid auto,per-element
                            auto against per-element (NVIDIA's sample: one thread per element)

Each point is a full verified run (adaptive sampling, --max-time per point).
The record is rewritten after every point, so an interrupted sweep keeps its points.
OUTPUT_NOTE
exit codes: 0 ok, 1 verification failed at a point, 2 usage, environment or
  bad-file error, 130 interrupted
"""
SWEEP_EXAMPLES = SWEEP_EXAMPLES.replace("OUTPUT_NOTE", output_note("sweep"))

REPORT_EXAMPLES = """examples:
  graphbench report results/ladder/default_4096.json
  graphbench report run_a.json run_b.json --markdown summary.md     side by side
  graphbench report sweep.json --plot sweep.png
  graphbench report run.json --csv run.csv    one row per mode (a sweep: per point and mode)
  graphbench report run.json --markdown /dev/stdout | less

OUTPUT_NOTE
exit codes: 0 ok, 2 usage error or unreadable record
"""
REPORT_EXAMPLES = REPORT_EXAMPLES.replace("OUTPUT_NOTE", output_note("report"))

KERNELS_EXAMPLES = """examples:
  graphbench kernels                 compile for sm_90 (no GPU needed)
  graphbench kernels --arch sm_100
  graphbench kernels --pipeline softmax       a shipped pipeline's kernels
  graphbench kernels --pipeline mine.py       your pipeline file's kernels
  graphbench kernels --pipeline softmax --param cols=4096    as pipeline(cols=4096) builds them

--quiet prints only errors; NO_COLOR=1 turns colour off.
exit codes: 0 ok, 2 usage error or compile error (the compiler log follows)
"""
