#!/usr/bin/env bash
# The H200 records of session 5 (results/session5/call3: unchanged code 10
# times and the slow builds against results/h200_baseline.json; call4: A/B
# of 30+ rounds at 2^24) judged again by this checkout's gate: the gate is a
# function of the records, so a change to the decision rule is checked on
# the same measurements. Prints one line per record: exit code and verdicts.
#   bash benchmarks/rejudge.sh
cd "$(dirname "$0")/.." || exit 2
export PYTHONPATH=.
line() {  # a compare's JSON verdicts as metric=verdict(change)
  python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join(f\"{v['metric']}={v['verdict']}({v['change']*100:+.2f}%, detects {v['detectable']*100 if v.get('detectable') is not None else float('nan'):.1f}%)\" for v in d['verdicts'] if v.get('gated')))"
}
for f in results/session5/call3/records/same_*.json results/session5/call3/records/slow_*.json; do
  case "$f" in *.verdicts.json) continue;; esac
  out=$(python3 -m graphbench compare results/h200_baseline.json "$f" --json - 2>/dev/null); rc=$?
  echo "$(basename "$f" .json) rc=$rc $(echo "$out" | line)"
done
for f in results/session5/call4/records/ab_*.json; do
  case "$f" in *.verdicts.json) continue;; esac
  out=$(python3 -m graphbench compare "$f" --json - 2>/dev/null); rc=$?
  echo "$(basename "$f" .json) rc=$rc $(echo "$out" | line)"
done
