#!/usr/bin/env bash
# One device-tool call's worth of GPU work: GPU tests, the benchmarks the
# issues ask for, records bundled into $OUT/records.tar.gz (the tool returns
# at most 8 files). Usage: bash benchmarks/h200_run.sh STEP... (default: all)
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}
REC=$OUT/records
mkdir -p "$REC"
gb() { python3 -m graphbench "$@"; }
timed() { local s=$EPOCHREALTIME; "$@"; local rc=$?; awk -v a="$s" -v b="$EPOCHREALTIME" -v c="$rc" -v cmd="$*" 'BEGIN{printf "wall_s=%.2f rc=%s :: %s\n", b-a, c, cmd}'; }

step_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  python3 -c "import cuda.core, cupy, numpy; print('cuda.core', cuda.core.__version__, 'cupy', cupy.__version__, 'numpy', numpy.__version__)"
}
step_tests() { timed python3 -m pytest -q -m gpu -p no:cacheprovider tests 2>&1 | tail -25; }
step_issue2() {
  timed gb run --json "$REC/run_default_cold.json" --no-progress
  timed gb run --json "$REC/h200_default.json" --no-progress
  timed gb run --elements 1048576 --json "$REC/h200_elements_1048576.json" --no-progress
  timed gb run --elements 16777216 --json "$REC/h200_elements_16777216.json" --no-progress
  for i in 1 2 3 4 5; do timed gb run --json "$REC/repeat_$i.json" --no-progress > /dev/null; done
  python3 - "$REC" <<'PY'
import json, sys, glob
v = [json.load(open(f))["speedup"]["graph"]["median"] for f in sorted(glob.glob(sys.argv[1] + "/repeat_*.json"))]
print("speedups across 5 processes:", [round(x, 4) for x in v], "max/min = %.4f" % (max(v) / min(v)))
PY
}
step_variance() {
  lscpu | head -20; nproc
  python3 -c "from cuda.core import Device; d=Device(0); s=d.to_system_device(); print('gpu cpu affinity', s.get_cpu_affinity())" 2>&1 | tail -1
  timed python3 benchmarks/process_variance.py --runs 5 --cpus 0,1,2,8
}
step_issue3() {
  timed gb run --verbose --json "$REC/h200_default_verbose.json" --no-progress
  timed gb run --elements 16777216 --flush-l2 --verbose --json "$REC/h200_16M_flush_l2.json" --no-progress
  python3 - "$REC" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/repeat_*.json")):
    d = json.load(open(f)); s = d["sampling"]
    clocks = [c["sm_clock_mhz"] for c in s["conditions"]]
    print(f.split("/")[-1], "rounds", s["rounds"], s["stop_reason"], "noise %.3f" % s["noise"],
          "speedup %.3f" % d["speedup"]["graph"]["median"], "clock", min(clocks), max(clocks),
          [w["code"] + ":" + w["subject"] for w in d["warnings"]])
PY
}
step_overhead() { timed python3 benchmarks/harness_overhead.py --json "$REC/harness_overhead.json"; }
steps=${*:-info tests issue2}
for s in $steps; do echo "=== $s"; "step_$s"; done 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/records.tar.gz" -C "$OUT" records && rm -rf "$REC"
