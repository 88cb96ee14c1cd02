#!/usr/bin/env bash
# Session 7 on the H200 (issue 19): the GPU suite on the new stop rule, long
# runs whose windows check the median's interval on real rounds
# (benchmarks/window_coverage.py), default runs (where they stop now), and
# A/B of identical builds and of slow_traffic_2 at 2^24.
#   bash benchmarks/h200_session7.sh STEP...   (steps: gpu long default ab)
# Records go to $OUT/session7_*.tar.gz.
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:-.}
OUT=${OUT:-/tmp/gbout}
REC=${REC:-/tmp/gbsession7}
mkdir -p "$REC" "$OUT"
gb() { python3 -m graphbench "$@"; }
step_gpu() {  # every GPU test
  timeout 300 python3 -m pytest -q -rf -m gpu -p no:cacheprovider tests > "$REC/gpu_tests.txt" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$REC/gpu_tests.txt" | tail -25
  grep -E "^E   " "$REC/gpu_tests.txt" | head -30
}
step_long() {  # long runs in fresh processes, cut into windows afterwards
  for name in 4096_1:4096:600 4096_2:4096:600 2_20:2^20:400; do
    IFS=: read -r tag n rounds <<< "$name"
    gb run --no-progress --elements $n --rounds $rounds --json "$REC/long_$tag.json" \
       > "$REC/long_$tag.txt" 2>&1; echo "long $tag rc=$?"
  done
  python3 benchmarks/window_coverage.py "$REC"/long_*.json --json "$REC/window_coverage.json" \
    | tail -8
}
step_default() {  # where a default run stops now, and what it states
  for i in 1 2 3; do
    gb run --no-progress --json "$REC/default_4096_$i.json" > "$REC/default_4096_$i.txt" 2>&1
    echo "default 4096 #$i rc=$?"; grep -E "rounds$|^stopped|speedup|95% interval|wide:" "$REC/default_4096_$i.txt"
  done
  gb run --no-progress --elements 2^24 --json "$REC/default_2_24.json" > "$REC/default_2_24.txt" 2>&1
  echo "default 2^24 rc=$?"; grep -E "rounds$|^stopped|speedup|95% interval|wide:" "$REC/default_2_24.txt"
}
step_ab() {
  REC="$REC/ab" AB_BUILDS="pipeline slow_traffic_2" AB_SIZES=16777216 bash benchmarks/h200_verdicts.sh ab
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm --format=csv,noheader | tee "$REC/gpu.txt"
for step in "$@"; do echo "== $step"; s=$EPOCHREALTIME; "step_$step"; echo "   ($step: $(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s)"; done
tar czf "$OUT/session7_$(date +%H%M%S).tar.gz" -C "$(dirname "$REC")" "$(basename "$REC")"
