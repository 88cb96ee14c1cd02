#!/usr/bin/env bash
# The stored-baseline gate again, against results/h200_baseline.json (made in
# the previous call), after gate-size points moved to fresh processes.
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}; REC=$(realpath -m "$OUT/records"); mkdir -p "$REC"
{
for i in $(seq 1 10); do
  python3 -m graphbench run --no-progress --gate-sizes 2^20,2^24 --baseline results/h200_baseline.json --json "$REC/gate_same_$i.json" > "$REC/gate_same_$i.txt" 2>&1
  echo "unchanged gate $i: rc=$? $(grep -E 'PASS|FAIL|ERROR' "$REC/gate_same_$i.txt" | tail -1)"
done
for i in 1 2 3 4 5; do
  python3 -m graphbench run --no-progress --gate-sizes 2^20,2^24 --kernel-source benchmarks/slow_bandwidth.cu --baseline results/h200_baseline.json --json "$REC/gate_slow_bandwidth_$i.json" > "$REC/gate_slow_bandwidth_$i.txt" 2>&1
  echo "slow_bandwidth gate $i: rc=$? $(grep -E 'PASS|FAIL|ERROR' "$REC/gate_slow_bandwidth_$i.txt" | tail -1)"
done
grep -A14 "metric " "$REC/gate_same_1.txt"
} 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/records.tar.gz" -C "$OUT" records && rm -rf "$REC"
