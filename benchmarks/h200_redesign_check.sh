#!/usr/bin/env bash
# One device call: the record-model redesign (issue 10) against the code
# before it, on the same machine in the same call, plus the probes of
# issue 11 (busy-time rise, pinning, bare loops). The old tree is carried
# as .old/ (git archive of the commit before the redesign).
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}; REC=$(realpath -m "$OUT/records"); mkdir -p "$REC"
new() { PYTHONPATH=. python3 -m graphbench "$@"; }
old() { (cd .old && PYTHONPATH=. python3 -m graphbench "$@"); }
secs() { local s=$EPOCHREALTIME; "$@" > /dev/null 2>&1; local rc=$?; awk -v a="$s" -v b="$EPOCHREALTIME" -v c="$rc" 'BEGIN{printf "%.2f s rc=%s", b-a, c}'; }
{
echo "=== info"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
new kernels > /dev/null; old kernels > /dev/null   # warm both compile caches
echo "=== gpu tests (new code)"; PYTHONPATH=. timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider tests 2>&1 | tail -4
echo "=== default run wall time, old vs new, alternating"
for i in 1 2 3; do
  echo "old $i: $(secs old run --no-progress --json "$REC/old_default_$i.json")   new $i: $(secs new run --no-progress --json "$REC/new_default_$i.json")"
done
echo "=== harness overhead, old vs new, alternating"
for i in 1 2 3; do
  (cd .old && PYTHONPATH=. python3 benchmarks/harness_overhead.py --json "$REC/old_harness_$i.json" | tail -2)
  PYTHONPATH=. python3 benchmarks/harness_overhead.py --json "$REC/new_harness_$i.json" | tail -2
done
echo "=== busy rise scenarios"; PYTHONPATH=. python3 benchmarks/busy_rise.py --json "$REC/busy_rise.json"
echo "=== bare loops vs graphbench run, fresh processes, alternating"
for i in 1 2 3; do
  for pin in none before after; do python3 benchmarks/bare_loops.py --pin $pin --verify; done
  new run --no-progress --json "$REC/pin_$i.json" > /dev/null; new run --no-progress --no-pin --json "$REC/nopin_$i.json" > /dev/null
done
} 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/records.tar.gz" -C "$OUT" records && rm -rf "$REC"
