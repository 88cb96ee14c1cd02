"""The examples and exit-code lines under each command's --help."""

RUN_EXAMPLES = """examples:
  graphbench run                               defaults: 4096 elements, 1000 iterations, device 0
  graphbench run --elements 2^20 --json out.json
  graphbench run --max-noise 0.5% --max-time 10 more rounds until the speedup is known to 0.5%
  graphbench run --rounds 20 --modes individual,graph   exactly 20 rounds, two modes
  graphbench run --elements 2^24 --flush-l2 --verbose   cold-cache figures, all details

exit codes: 0 ok, 1 verification failed, 2 usage or environment error, 130 interrupted
"""

COMPARE_EXAMPLES = """examples:
  graphbench compare results/h200_baseline.json new.json
  graphbench compare base.json new.json --fail-on speedup:5% --fail-on graph.wall:10%
  graphbench compare base.json new.json --markdown summary.md --json verdicts.json

metrics: speedup, speedup.fused, MODE.wall, MODE.submit, MODE.device, MODE.busy
  (MODE: individual, graph, fused); thresholds in %, us (times) or x (speedups).
default gate: speedup:5%, and per mode wall:10% and busy:5% when both records come
  from the same device model and driver (otherwise times are shown, not gated).
verdicts: faster, same, slower, ambiguous (too noisy to tell), incompatible, missing.
exit codes: 0 pass, 1 regression, 2 usage error or unreadable / incompatible record
"""

SWEEP_EXAMPLES = """examples:
  graphbench sweep                                     2^12..2^24 (x4) elements x depth 1,4,16
  graphbench sweep --elements 2^12..2^24 --depth 1..16 --json sweep.json --plot sweep.svg
  graphbench sweep --elements 4096,65536 --depth 1,8 --threshold 1.5

Each point is a full verified run (adaptive sampling, --max-time per point).
The record is rewritten after every point, so an interrupted sweep keeps its points.
"""

REPORT_EXAMPLES = """examples:
  graphbench report results/h200_default.json
  graphbench report run_a.json run_b.json --markdown summary.md     side by side
  graphbench report sweep.json --plot sweep.png
"""

KERNELS_EXAMPLES = """examples:
  graphbench kernels                 compile for sm_90 (no GPU needed)
  graphbench kernels --arch sm_100
"""
