#!/usr/bin/env bash
# The GPU checks behind results/: each step runs graphbench (and the
# cross-checks beside it) as results/README.md says, writing records under
# $OUT/records/ in results/' folders and names; the records are bundled
# into $OUT/records.tar.gz at the end. Run from the repository root on a
# machine with an NVIDIA GPU:
#   bash benchmarks/device_checks.sh STEP...
# steps: info tests ladder sizes stability hostspeed processes gate between
#        ab crosschecks validity pipelines callables torchchain attribution
#        shapes badinputs  (default: info tests ladder sizes gate ab)
set -u
export PYTHONPATH=${PYTHONPATH:-.} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gbout}
REC=$(realpath -m "$OUT/records")
mkdir -p "$REC"
gb() { python3 -m graphbench "$@"; }
timed() { local s=$EPOCHREALTIME; "$@"; local rc=$?; awk -v a="$s" -v b="$EPOCHREALTIME" -v c="$rc" -v cmd="$*" 'BEGIN{printf "wall_s=%.2f rc=%s :: %s\n", b-a, c, cmd > "/dev/stderr"}'; }
slow() { python3 tests/slow_build.py "$@" --out "$REC/slow.cu" && echo "$REC/slow.cu"; }
in_dir() { mkdir -p "$REC/$1"; echo "$REC/$1"; }

step_info() {
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  python3 -c "import cuda.core, cupy, numpy; print('cuda.core', cuda.core.__version__, 'cupy', cupy.__version__)"
}
step_tests() { timed python3 -m pytest -q -rf -m gpu -p no:cacheprovider tests > "$OUT/gpu_tests.txt" 2>&1; grep -E "^(FAILED|ERROR|E  )|passed|failed" "$OUT/gpu_tests.txt" | tail -30; }
step_ladder() {  # the default rungs, every rung at three sizes, the sweep of every rung
  local d; d=$(in_dir ladder)
  gb kernels > /dev/null  # warm the compile cache
  timed gb run --verbose --no-progress --json "$d/default_4096.json"
  for n in 4096 1048576 16777216; do
    timed gb run --modes all --elements $n --verbose --no-progress --json "$d/all_rungs_$n.json" | tail -16
  done
  timed gb sweep --modes all --elements 2^12..2^24:x4 --depth 1,4,16 --no-progress \
    --json "$d/all_rungs_sweep.json" --plot "$d/all_rungs_sweep.svg" --markdown "$d/all_rungs_sweep.md" | tail -12
}
step_sizes() {  # warm and cold L2 (--flush-l2) near the L2 and far beyond it
  local d; d=$(in_dir sizes)
  for n in 1048576 16777216; do
    timed gb run --elements $n --verbose --no-progress --json "$d/warm_$n.json" | tail -8
    timed gb run --elements $n --flush-l2 --verbose --no-progress --json "$d/cold_$n.json" | tail -8
  done
}
step_stability() {  # the default run in 5 fresh processes, one after another
  local d; d=$(in_dir stability)
  for i in 1 2 3 4 5; do timed gb run --no-progress --json "$d/repeat_$i.json" | grep -E "speedup|host:"; done
}
step_hostspeed() {  # 10 fresh default runs: their figures and the host CPU probe beside them
  local d; d=$(in_dir host_speed)
  for i in $(seq 0 9); do timed gb run --no-progress --json "$d/default_4096_$i.json" | grep -E "speedup|host:"; done
}
step_processes() {  # 10 processes merged
  local d; d=$(in_dir stability)
  for n in 4096 1048576; do timed gb run --processes 10 --elements $n --no-progress --json "$d/processes_10_$n.json" | tail -4; done
}
step_gate() {  # the stored baseline, unchanged code 10 times, the +11% traffic build 5 times
  local d; d=$(in_dir gate); local src
  [ -f "$d/baseline.json" ] || timed gb run --processes 5 --gate-sizes 2^20,2^24 --no-progress --json "$d/baseline.json" | tail -3
  for i in $(seq 1 10); do
    gb run --no-progress --gate-sizes 2^20,2^24 --baseline "$d/baseline.json" --json "$d/same_$i.json" > "$OUT/gate_same_$i.txt" 2>&1
    echo "unchanged $i: rc=$? $(grep -E 'PASS|FAIL|error' "$OUT/gate_same_$i.txt" | tail -1)"
  done
  src=$(slow --extra 64 --modulo)
  for i in 1 2 3 4 5; do
    gb run --no-progress --gate-sizes 2^20,2^24 --kernel-source "$src" --baseline "$d/baseline.json" --json "$d/slow_bandwidth_$i.json" > "$OUT/gate_slow_$i.txt" 2>&1
    echo "slow_bandwidth $i: rc=$? $(grep -E 'PASS|FAIL|error' "$OUT/gate_slow_$i.txt" | tail -1)"
  done
}
step_between() {  # the gate between moments: unchanged code, a host-side regression, slow builds
  timed python3 benchmarks/gate_check.py --out "$(in_dir gate/between_moments)" --steps same,host,gpu --extras 8,16,40,64
}
step_ab() {  # A/B on one GPU: the A/B checks, identical and slow builds at 2^24, a user pipeline
  local d; d=$(in_dir ab)
  timed python3 benchmarks/ab_check.py --json "$d/ab_check.json" | tail -3
  timed gb run --no-progress --elements 16777216 --kernel-source kernels/pipeline.cu --ab kernels/pipeline.cu --json "$d/identical_16777216.json" | tail -10
  timed gb run --no-progress --elements 16777216 --kernel-source "$(slow --extra 12)" --ab kernels/pipeline.cu --json "$d/slow_extra_12_16777216.json" | tail -10
  timed gb run --no-progress --pipeline softmax --ab kernels/softmax.cu --json "$d/softmax_identical_4096.json" | tail -10
}
step_crosschecks() {  # graphbench against bare loops of the same calls
  local d; d=$(in_dir cross_checks)
  timed python3 benchmarks/agreement.py --pairs 5 --json "$d/bare_against_graphbench_fresh_processes.json" | tail -4
  timed python3 benchmarks/interleaving.py --reps 3 --json "$d/graph_rung_against_bare_same_process.json" | tail -6
  timed python3 benchmarks/harness_overhead.py --json "$d/harness_overhead_all_rungs.json" | grep ratio
}
step_validity() {  # busy time against a bare 100-pipeline graph; busy before and after the checks
  local d; d=$(in_dir validity)
  timed python3 benchmarks/busy_probe_check.py --processes 3 --json "$d/busy_probe_check_3_processes.json"
  timed gb run --verbose --no-progress --json "$d/default_after_checks.json" | grep -i "after the checks"
}
step_pipelines() {  # the shipped example pipelines through every rung, a Jacobi sweep over depth
  local d; d=$(in_dir pipelines)
  for n in 1048576 16777216; do
    for p in softmax reduction; do
      timed gb run --pipeline $p --modes all --elements $n --no-progress --json "$d/${p}_all_rungs_$n.json" | grep -E "^ [a-z-]+ +[0-9]|verified|unavailable"
    done
    timed gb run --pipeline jacobi --depth 4 --modes all --elements $n --no-progress --json "$d/jacobi_depth_4_all_rungs_$n.json" | grep -E "^ [a-z-]+ +[0-9]|verified"
  done
  timed gb sweep --pipeline jacobi --elements 2^14..2^24:x4 --depth 1,4,16,64 --no-progress \
    --json "$d/jacobi_sweep.json" --plot "$d/jacobi_sweep.svg" --markdown "$d/jacobi_sweep.md" | tail -12
  timed gb run --pipeline jacobi --depth 8 --processes 2 --no-progress --json "$d/jacobi_depth_8_processes_2.json" | grep -E "processes|verified"
}
step_callables() {  # torch and CuPy callables on the ladder (needs torch; torch-compile needs triton)
  local d; d=$(in_dir callables)
  for n in 8192 65536 1048576; do  # batch 8, 64, 1024 rows of 1024
    timed gb run --pipeline torch_mlp --modes all --elements $n --no-progress --json "$d/torch_mlp_$n.json" | head -16
  done
  timed gb run --pipeline torch_mlp --modes individual,graph,unrolled,torch-compile --elements 8192 --no-progress --json "$d/torch_mlp_compile_8192_1.json" | head -20
  for n in 4096 1048576 16777216; do
    timed gb run --pipeline cupy_chain --modes all --elements $n --no-progress --json "$d/cupy_chain_$n.json" | head -14
  done
}
step_torchchain() {  # the torch chain bare (torch_crosscheck.py) against graphbench, alternating fresh processes
  local d; d=$(in_dir cross_checks/torch_chain)
  for i in 1 2 3; do
    python3 benchmarks/torch_crosscheck.py --pin --sizes 4096,1048576,16777216 > "$d/bare_$i.json"
    for n in 4096 1048576 16777216; do
      gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements $n --json "$d/graphbench_${n}_$i.json" | grep -E "^ (individual|graph) "
    done
    python3 benchmarks/torch_crosscheck.py --pin --sizes 1048576 --layout graphbench > "$d/bare_layout_graphbench_$i.json"
    gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements 1048576 --json "$d/graphbench_1048576_layout_$i.json" | grep -E "^ (individual|graph) "
  done
  python3 benchmarks/torch_tools.py > "$REC/cross_checks/torch_tools.json"
}
step_attribution() {  # per-stage GPU time on every rung (needs cupti-python), the device loop at several --iters
  local d; d=$(in_dir attribution)
  for n in 4096 16777216; do
    timed gb run --attribute --modes all --elements $n --no-progress --timeline "$d/builtin_all_rungs_${n}_timeline.svg" --json "$d/builtin_all_rungs_$n.json" | tail -40
  done
  for p in softmax jacobi; do
    timed gb run --attribute --modes all --pipeline $p --elements 4096 --no-progress --timeline "$d/${p}_all_rungs_4096_timeline.svg" --json "$d/${p}_all_rungs_4096.json" | tail -30
  done
  for iters in 8 50 200 1000; do
    gb run --attribute --modes individual,graph,loop --iters $iters --rounds 3 --elements 4096 --no-progress --json "$d/loop_iters_$iters.json" | grep -E "^loop|loop conditional"
  done
}
step_shapes() {  # graphbench's auto grid against NVIDIA's sample's one thread per element, at 2^24
  local d; d=$(in_dir launch_shape)
  timed gb run --elements 16777216 --grid auto,per-element --no-progress --json "$d/shapes.json" | tail -8
  mv "$d/shapes.block256.gridauto.json" "$d/auto_16777216.json"
  mv "$d/shapes.block256.gridper-element.json" "$d/per_element_16777216.json"
}
step_badinputs() {  # an interrupted sweep, unwritable outputs, more than 2^31 elements
  local d; d=$(in_dir bad_inputs)
  cat > /tmp/sigint_gb.py <<'PY'
import runpy, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # a non-interactive shell may ignore SIGINT
sys.argv = ["graphbench"] + sys.argv[1:]
runpy.run_module("graphbench", run_name="__main__")
PY
  python3 /tmp/sigint_gb.py sweep --elements 2^12..2^24:x4 --depth 1,4 --json "$d/interrupted_sweep.json" --no-progress > "$OUT/interrupted.txt" 2>&1 &
  local pid=$!; sleep 12; kill -INT $pid; wait $pid; echo "interrupted sweep: rc=$? (130 expected)"; tail -2 "$OUT/interrupted.txt"
  gb report "$d/interrupted_sweep.json" > /dev/null 2>&1; echo "report of it: rc=$?"
  timed gb run --json /nonexistent/dir/x.json --no-progress; echo "rc=$? (2 expected)"
  timed gb run --json /proc/version --no-progress; echo "rc=$? (2 expected)"
  timed gb run --elements 2147483653 --modes individual,fused --iters 2 --rounds 2 --no-progress --json "$d/elements_2147483653.json"
}
steps=${*:-info tests ladder sizes gate ab}
for s in $steps; do echo "=== $s"; "step_$s"; done 2>&1 | tee "$OUT/log.txt"
rm -f "$REC/slow.cu"
tar -czf "$OUT/records.tar.gz" -C "$OUT" records
