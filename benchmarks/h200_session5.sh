#!/usr/bin/env bash
# Issue 21 on the H200: torch and CuPy callables on the ladder, the torch
# cross-checks (bare loops in fresh processes and what do_bench,
# do_bench_cudagraph and torch.utils.benchmark report), and issue 19's
# interleaving check in fresh processes. Records go to $OUT/session5.tar.gz.
#   bash benchmarks/h200_session5.sh STEP...   (steps: torch mlp cupy interleave)
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}
REC=${REC:-/tmp/gbsession5}
mkdir -p "$REC" "$OUT"
gb() { python3 -m graphbench "$@"; }
walls() {  # mode wall (and busy) medians of the records given
  python3 - "$@" <<'PY'
import sys
from graphbench.analyze.summary import summarize_run
from graphbench.record.codec import read_run
for f in sys.argv[1:]:
    s = summarize_run(read_run(f))
    print(f.split("/")[-1], " ".join(f"{m}={x.wall.median:.2f}" + (f"/busy {x.busy.median:.2f}" if x.busy else "")
                                    for m, x in s.modes.items()))
PY
}
step_torch() {
  for i in 1 2; do
    python3 benchmarks/torch_crosscheck.py > "$REC/torch_bare_$i.json"; cat "$REC/torch_bare_$i.json"
    for n in 4096 1048576; do
      gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements $n \
         --json "$REC/torch_chain_${n}_$i.json" > /dev/null; walls "$REC/torch_chain_${n}_$i.json"
    done
  done
  python3 benchmarks/torch_tools.py | tee "$REC/torch_tools.json"
}
step_mlp() {
  for n in 8192 65536 1048576; do  # batch 8, 64, 1024 rows of 1024
    gb run --no-progress --pipeline torch_mlp --modes all --elements $n --json "$REC/torch_mlp_$n.json" | head -16
  done
  gb run --no-progress --pipeline torch_mlp --modes individual,graph,unrolled,torch-compile --elements 8192 \
     --json "$REC/torch_mlp_compile_8192.json" | head -24
}
step_cupy() {
  for n in 4096 1048576 16777216; do
    gb run --no-progress --pipeline cupy_chain --modes all --elements $n --json "$REC/cupy_chain_$n.json" | head -14
  done
}
step_interleave() {  # graph replay against bare loops, fresh processes, alternating
  for i in 1 2 3; do
    gb run --no-progress --modes individual,graph --json "$REC/inter_two_$i.json" > /dev/null
    gb run --no-progress --modes all --json "$REC/inter_all_$i.json" > /dev/null
    python3 benchmarks/bare_loops.py --pin before > "$REC/inter_bare_$i.json"
    walls "$REC/inter_two_$i.json" "$REC/inter_all_$i.json"; cat "$REC/inter_bare_$i.json"
  done
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm --format=csv,noheader
for step in "$@"; do echo "== $step"; s=$EPOCHREALTIME; "step_$step"; echo "   ($step: $(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s)"; done
tar czf "$OUT/session5_$(date +%H%M%S).tar.gz" -C "$(dirname "$REC")" "$(basename "$REC")"
