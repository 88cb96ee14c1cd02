#!/usr/bin/env bash
# Issue 19 on the H200: the gate's verdicts for unchanged code and for slow
# builds of known size, against a stored baseline from an earlier device
# session (BASE, default the committed results/h200_baseline.json) and in
# A/B; and whether a rung's figure depends on the rungs beside it.
#   bash benchmarks/h200_verdicts.sh STEP...   (steps: baseline same slow ab interleave)
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}
REC=${REC:-/tmp/gbverdicts}  # bundled into $OUT/verdicts.tar.gz at the end (8 files come back)
BASE=${BASE:-results/h200_baseline.json}
mkdir -p "$REC"
gb() { python3 -m graphbench "$@"; }
line() { grep -E "^(PASS|FAIL|ERROR)|graphbench: (error|FAIL)" "$1" | tail -1; }
verdicts() {  # metric=verdict(change) for every gated metric of a compare JSON
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(f"{v['metric']}={v['verdict']}({(v['change'] or 0):+.2%})" for v in d["verdicts"]
               if v["gated"]))
PY
}
gate_run() {  # NAME SOURCE...: one run gated against BASE, its verdicts on one line
  local name=$1; shift
  gb run --no-progress --gate-sizes 2^20,2^24 "$@" --baseline "$BASE" --json "$REC/$name.json" \
     > "$REC/$name.txt" 2>&1
  local rc=$?
  gb compare "$BASE" "$REC/$name.json" --json "$REC/$name.verdicts.json" > /dev/null 2>&1
  echo "$name rc=$rc $(line "$REC/$name.txt") :: $(verdicts "$REC/$name.verdicts.json" 2>/dev/null)"
}
step_baseline() {  # the baseline the next device session gates against
  gb run --processes 5 --gate-sizes 2^20,2^24 --json "$REC/h200_baseline_new.json" --no-progress | tail -2
}
step_same() { for i in $(seq 1 "${SAME:-10}"); do gate_run "same_$i"; done; }
step_slow() {
  for build in slow_traffic_2 slow_traffic_5 slow_traffic_10 slow_compute_2; do
    for i in $(seq 1 "${SLOW:-2}"); do gate_run "${build}_$i" --kernel-source "benchmarks/$build.cu"; done
  done
}
step_ab() {
  for build in ${AB_BUILDS:-pipeline slow_traffic_2 slow_traffic_5 slow_traffic_10 slow_compute_2}; do
    src=benchmarks/$build.cu; [ "$build" = pipeline ] && src=kernels/pipeline.cu
    for n in ${AB_SIZES:-4096 16777216}; do
      more=""; [ $n -gt 4096 ] && more="--iters 100 --max-time 10"  # enough rounds at 2^24
      gb run --no-progress --elements $n $more --kernel-source "$src" --ab kernels/pipeline.cu \
         --json "$REC/ab_${build}_$n.json" > "$REC/ab_${build}_$n.txt" 2>&1
      rc=$?
      gb compare "$REC/ab_${build}_$n.json" --json "$REC/ab_${build}_$n.verdicts.json" > /dev/null 2>&1
      echo "ab $build @$n rc=$rc :: $(verdicts "$REC/ab_${build}_$n.verdicts.json" 2>/dev/null)"
    done
  done
}
step_interleave() { python3 benchmarks/interleaving.py --reps 3 --json "$REC/interleaving.json"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm --format=csv,noheader
for step in "$@"; do echo "== $step"; s=$EPOCHREALTIME; "step_$step"; echo "   ($step: $(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s)"; done
mkdir -p "$OUT" && tar czf "$OUT/verdicts_$(date +%H%M%S).tar.gz" -C "$(dirname "$REC")" "$(basename "$REC")"
