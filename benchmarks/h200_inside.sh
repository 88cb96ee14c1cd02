#!/usr/bin/env bash
# Issue 22 on the H200 and the pinned torch cross-check (issue 21): the GPU
# tests with cupti-python and nvtx installed, run --attribute with its
# timeline at 4096 and 2^24, and the torch chain bare (pinned) against
# graphbench. Records go to $OUT/inside_*.tar.gz.
#   bash benchmarks/h200_inside.sh STEP...   (steps: tests attribute torchpin)
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:-.}
OUT=${OUT:-/tmp/gbout}
REC=${REC:-/tmp/gbinside}
mkdir -p "$REC" "$OUT"
gb() { python3 -m graphbench "$@"; }
step_tests() {
  timeout 240 python3 -m pytest -q -rf -m gpu -p no:cacheprovider tests > "$OUT/gpu_tests.txt" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/gpu_tests.txt" | tail -25
  grep -E "^E   " "$OUT/gpu_tests.txt" | head -30
}
step_attribute() {
  gb run --no-progress --attribute --modes all --elements 4096 --timeline "$OUT/timeline_4096.svg" \
     --json "$REC/attribute_4096.json" > "$REC/attribute_4096.txt" 2>&1; echo "rc=$?"; tail -70 "$REC/attribute_4096.txt"
  gb run --no-progress --attribute --elements 16777216 --json "$REC/attribute_16777216.json" \
     > "$REC/attribute_16777216.txt" 2>&1; echo "rc=$?"; grep -A12 -i "stage" "$REC/attribute_16777216.txt" | head -40
}
step_torchpin() {
  for i in 1 2; do
    python3 benchmarks/torch_crosscheck.py --pin > "$REC/torch_bare_pinned_$i.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({n: (v['eager']['wall_us'], v['graph_replay']['wall_us']) for n, v in d['sizes'].items()})" "$REC/torch_bare_pinned_$i.json"
    for n in 4096 1048576; do
      gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements $n \
         --json "$REC/torch_chain_${n}_$i.json" | grep -E "^ (individual|graph) "
    done
  done
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm --format=csv,noheader
for step in "$@"; do echo "== $step"; s=$EPOCHREALTIME; "step_$step"; echo "   ($step: $(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s)"; done
tar czf "$OUT/inside_$(date +%H%M%S).tar.gz" -C "$(dirname "$REC")" "$(basename "$REC")"
