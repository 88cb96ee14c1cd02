#!/usr/bin/env bash
# One device-tool call's worth of GPU work: the GPU tests and the benchmarks
# the issues ask for. Records are bundled into $OUT/records.tar.gz (the tool
# returns at most 8 files). Usage: bash benchmarks/h200_run.sh STEP...
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}
REC=$(realpath -m "$OUT/records")
mkdir -p "$REC"
gb() { python3 -m graphbench "$@"; }
timed() { local s=$EPOCHREALTIME; "$@"; local rc=$?; awk -v a="$s" -v b="$EPOCHREALTIME" -v c="$rc" -v cmd="$*" 'BEGIN{printf "wall_s=%.2f rc=%s :: %s\n", b-a, c, cmd > "/dev/stderr"}'; }
speedups() {  # speedup, noise and stop reason of each record given
  python3 - "$@" <<'PY'
import sys
from graphbench.analyze.summary import summarize_run
from graphbench.record.codec import read_run
values = []
for f in sys.argv[1:]:
    r = read_run(f); s = summarize_run(r); values.append(s.speedup["graph"].stats.median)
    probes = [c.host_probe_us for c in r.conditions]
    print(f"{f.split('/')[-1]}: speedup {values[-1]:.3f} rounds {r.rounds} {r.stop_reason} "
          f"noise {s.noise:.3f} host probe {min(probes):.0f}..{max(probes):.0f} us "
          f"warnings {[w.code + ':' + w.subject for w in s.warnings]}")
print(f"max/min speedup over {len(values)} processes = {max(values) / min(values):.4f}")
PY
}

step_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  python3 -c "import cuda.core, cupy, numpy; print('cuda.core', cuda.core.__version__, 'cupy', cupy.__version__)"
}
step_tests() { timed python3 -m pytest -q -rf -m gpu -p no:cacheprovider tests > "$REC/gpu_tests.txt" 2>&1; grep -E "^(FAILED|ERROR|E  )|passed|failed" "$REC/gpu_tests.txt" | tail -30; }
step_startup() {  # the default run's wall time against the tree before the redesign (.old, carried)
  [ -d .old ] || { echo "no .old tree carried"; return; }
  for i in 1 2 3; do
    (cd .old && timed python3 -m graphbench run --no-progress > /dev/null)
    timed gb run --no-progress --json "$REC/startup_$i.json" > /dev/null
  done
}
step_runs() {
  gb kernels > /dev/null  # warm the compile cache
  timed gb run --verbose --json "$REC/h200_default.json" --no-progress
  for n in 1048576 16777216; do
    timed gb run --elements $n --verbose --json "$REC/h200_elements_$n.json" --no-progress | tail -22
    timed gb run --elements $n --flush-l2 --verbose --json "$REC/h200_elements_${n}_flush_l2.json" --no-progress | tail -22
  done
  for i in 1 2 3 4 5; do timed gb run --json "$REC/repeat_$i.json" --no-progress > /dev/null; done
  speedups "$REC"/repeat_*.json
  timed python3 benchmarks/harness_overhead.py --json "$REC/h200_harness_overhead.json"
}
step_busy() { timed python3 benchmarks/busy_rise.py --json "$REC/h200_busy_rise.json"; }
step_agreement() { timed python3 benchmarks/agreement.py --pairs 5 --json "$REC/h200_agreement.json"; }
step_baseline() { timed gb run --processes 5 --gate-sizes 2^20,2^24 --json "$REC/h200_baseline.json" --no-progress | tail -3; }
step_gate() {
  [ -f "$REC/h200_baseline.json" ] || step_baseline
  for i in $(seq 1 10); do
    gb run --no-progress --gate-sizes 2^20,2^24 --baseline "$REC/h200_baseline.json" --json "$REC/gate_same_$i.json" > "$REC/gate_same_$i.txt" 2>&1
    echo "unchanged gate $i: rc=$? $(grep -E 'PASS|FAIL' "$REC/gate_same_$i.txt" | tail -1)"
  done
  for build in slow_pipeline slow_bandwidth; do
    for i in 1 2 3 4 5; do
      gb run --no-progress --gate-sizes 2^20,2^24 --kernel-source benchmarks/$build.cu --baseline "$REC/h200_baseline.json" --json "$REC/gate_${build}_$i.json" > "$REC/gate_${build}_$i.txt" 2>&1
      echo "$build gate $i: rc=$? $(grep -E 'FAIL|PASS' "$REC/gate_${build}_$i.txt" | tail -1)"
    done
    grep -B2 -A14 "metric " "$REC/gate_${build}_1.txt" | head -30
  done
}
step_ab() { timed python3 benchmarks/ab_check.py --json "$REC/h200_ab_checks.json"; }
step_sweep() {
  timed gb sweep --elements 2^12..2^24:x4 --depth 1,4,16 --json "$REC/h200_sweep.json" --plot "$REC/h200_sweep.svg" --markdown "$REC/h200_sweep.md" --no-progress
  gb report "$REC/h200_sweep.json" --plot "$REC/h200_sweep.png" > "$REC/report.txt"
}
step_badinputs() {  # issue 13 on the GPU: interrupt, unwritable output, a > 2^31 element count
  cat > /tmp/sigint_gb.py <<'PY'
import runpy, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # the device shell ignores SIGINT
sys.argv = ["graphbench"] + sys.argv[1:]
runpy.run_module("graphbench", run_name="__main__")
PY
  python3 /tmp/sigint_gb.py sweep --elements 2^12..2^24:x4 --depth 1,4 --json "$REC/interrupted_sweep.json" --no-progress > "$REC/interrupted.txt" 2>&1 &
  local pid=$!; sleep 12; kill -INT $pid; wait $pid; echo "interrupted sweep: rc=$? (130 expected)"; tail -2 "$REC/interrupted.txt"
  gb report "$REC/interrupted_sweep.json" > "$REC/interrupted_report.txt" 2>&1; echo "report of it: rc=$?"; head -12 "$REC/interrupted_report.txt"
  mkdir -p /tmp/ro && chmod 555 /tmp/ro
  timed gb run --json /tmp/ro/x.json --no-progress; echo "unwritable (root ignores modes, so a missing dir too):"
  timed gb run --json /nonexistent/dir/x.json --no-progress
  timed gb run --json /proc/version --no-progress
  timed gb run --elements 2147483653 --modes individual,fused --iters 2 --rounds 2 --no-progress --json "$REC/elements_2147483653.json"
}
step_ladder() {  # issue 14: every rung at three sizes, the bare cross-check, the sweep
  gb kernels > /dev/null
  for n in 4096 1048576 16777216; do
    timed gb run --modes all --elements $n --verbose --json "$REC/h200_ladder_$n.json" --no-progress
  done
  timed python3 benchmarks/harness_overhead.py --json "$REC/h200_harness_overhead.json"
}
step_laddersweep() {
  timed gb sweep --modes all --elements 2^12..2^24:x4 --depth 1,4,16 --json "$REC/h200_ladder_sweep.json" --plot "$REC/h200_ladder_sweep.svg" --markdown "$REC/h200_ladder_sweep.md" --no-progress
}
step_pipelines() {  # issue 15: the shipped example pipelines through every rung, a Jacobi sweep over K
  for n in 1048576 16777216; do
    for p in softmax reduction; do
      timed gb run --pipeline $p --modes all --elements $n --json "$REC/h200_${p}_$n.json" --no-progress | grep -E "^ [a-z-]+ +[0-9]|fastest|verified|FAILED|unavailable"
    done
    timed gb run --pipeline jacobi --depth 4 --modes all --elements $n --json "$REC/h200_jacobi4_$n.json" --no-progress | grep -E "^ [a-z-]+ +[0-9]|fastest|verified|FAILED|unavailable"
  done
  timed gb sweep --pipeline jacobi --elements 2^14..2^24:x4 --depth 1,4,16,64 --json "$REC/h200_jacobi_sweep.json" --plot "$REC/h200_jacobi_sweep.svg" --markdown "$REC/h200_jacobi_sweep.md" --no-progress | head -30
}
step_builtin() {  # the built-in pipeline after its move into a pipeline file: 5 processes, harness
  for i in 1 2 3 4 5; do timed gb run --json "$REC/builtin_$i.json" --no-progress > /dev/null; done
  python3 - "$REC"/builtin_*.json <<'PY'
import sys, statistics
from graphbench.analyze.summary import summarize_run
from graphbench.record.codec import read_run
rows = [summarize_run(read_run(f)) for f in sys.argv[1:]]
for mode in ("individual", "graph", "fused"):
    walls = [s.modes[mode].wall.median for s in rows]
    busy = [s.modes[mode].busy.median for s in rows]
    print(f"{mode:10s} wall {' '.join(f'{w:.2f}' for w in walls)} median {statistics.median(walls):.3f}"
          f"  busy median {statistics.median(busy):.3f}")
print("speedups", [round(s.speedup['graph'].stats.median, 3) for s in rows])
PY
  timed python3 benchmarks/harness_overhead.py --json "$REC/h200_harness_overhead_after_pipeline_files.json" | grep ratio
}
step_validity() {  # issue 11's two open targets: busy against a bare 100-graph, cold against warm
  timed python3 benchmarks/busy_probe_check.py --processes 3 --json "$REC/h200_busy_probe_check.json"
  for n in 1048576 16777216; do
    gb run --elements $n --json "$REC/h200_warm_$n.json" --no-progress > /dev/null
    gb run --elements $n --flush-l2 --json "$REC/h200_cold_$n.json" --no-progress > /dev/null
  done
  python3 - "$REC" <<'PY'
import sys
from graphbench.analyze.summary import summarize_run
from graphbench.record.codec import read_run
for n in (1048576, 16777216):
    warm, cold = (summarize_run(read_run(f"{sys.argv[1]}/h200_{t}_{n}.json")) for t in ("warm", "cold"))
    for mode in ("graph", "fused"):
        w, c = warm.modes[mode], cold.modes[mode]
        print(f"{n:>9} {mode:6s} busy warm {w.busy.median:8.2f} cold {c.busy.median:8.2f} "
              f"(x{c.busy.median / w.busy.median:.3f})  wall warm {w.wall.median:8.2f} "
              f"cold {c.wall.median:8.2f} (x{c.wall.median / w.wall.median:.3f})")
PY
}
step_abpipeline() {  # A/B of a user pipeline: the shipped softmax against itself
  timed gb run --pipeline softmax --ab kernels/softmax.cu --json "$REC/h200_ab_softmax.json" --no-progress | tail -12
  timed gb run --pipeline jacobi --depth 8 --processes 2 --json "$REC/h200_jacobi8_processes.json" --no-progress | grep -E "processes|verified"
}
step_deviceall() { timed gb run --device all --no-progress --json "$REC/h200_device_all.json" | tail -3; }
steps=${*:-info tests runs busy agreement baseline gate ab sweep deviceall}
for s in $steps; do echo "=== $s"; "step_$s"; done 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/records.tar.gz" -C "$OUT" records && rm -rf "$REC"
