#!/usr/bin/env bash
# Session 6 on the H200: the issue-22 GPU tests and figures still missing
# (softmax and jacobi attributed on every rung at 4096 and 2^24, launch
# shapes with per-stage time, graph memory over many copies) and the
# issue-21 torch probes (why graph replay differs from a bare loop, and
# whether torch.compile's reduce-overhead makes graphs of the MLP).
#   bash benchmarks/h200_session6.sh STEP...
#   steps: tests attribute shapes memory bisect reverse compile compile2 builtin torchx3 loop loopiters memtest layout torchx gpu
# Records go to $OUT/session6_*.tar.gz (the device returns 8 files at most).
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:-.}
OUT=${OUT:-/tmp/gbout}
REC=${REC:-/tmp/gbsession6}
mkdir -p "$REC" "$OUT"
gb() { python3 -m graphbench "$@"; }
step_tests() {  # the issue-22 GPU tests
  timeout 300 python3 -m pytest -q -rf -p no:cacheprovider tests/test_gpu_attribution.py \
    tests/test_gpu_shapes.py tests/test_gpu_graph_costs.py tests/test_gpu_profile.py \
    > "$REC/gpu_tests_22.txt" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$REC/gpu_tests_22.txt" | tail -25
  grep -E "^E   " "$REC/gpu_tests_22.txt" | head -30
}
step_gpu() {  # every GPU test
  timeout 500 python3 -m pytest -q -rf -m gpu -p no:cacheprovider tests > "$REC/gpu_tests.txt" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$REC/gpu_tests.txt" | tail -25
  grep -E "^E   " "$REC/gpu_tests.txt" | head -30
}
step_attribute() {
  for p in softmax jacobi; do
    for n in 4096 16777216; do
      gb run --no-progress --attribute --modes all --pipeline $p --elements $n \
         --timeline "$REC/timeline_${p}_$n.svg" --json "$REC/attribute_${p}_$n.json" \
         > "$REC/attribute_${p}_$n.txt" 2>&1; echo "$p $n rc=$?"
      sed -n '/where the GPU time goes/,$p' "$REC/attribute_${p}_$n.txt" | head -60
    done
  done
}
step_builtin() {  # the built-in chain on every rung, for the closing note's tables and picture
  for n in 4096 16777216; do
    gb run --no-progress --attribute --modes all --elements $n --timeline "$REC/timeline_builtin_$n.svg" \
       --json "$REC/attribute_builtin_$n.json" > "$REC/attribute_builtin_$n.txt" 2>&1; echo "builtin $n rc=$?"
    grep -E "^(individual|graph|graph-pdl|unrolled|loop|fused|pdl|driver): |inside the graph|CAPTURE|memory" "$REC/attribute_builtin_$n.txt" | head -30
  done
}
step_shapes() {
  gb run --no-progress --attribute --elements 2^20 --modes individual,graph,unrolled \
     --grid auto,1056,8/sm --block 256 --json "$REC/shapes_2_20.json" > "$REC/shapes_2_20.txt" 2>&1
  echo "rc=$?"; sed -n '/side by side/,$p' "$REC/shapes_2_20.txt" | head -30
  grep -A8 "where the GPU time goes" "$REC/shapes_2_20.txt" | head -40
  gb sweep --no-progress --elements 2^20,2^22,2^24 --depth 1 --grid auto,1056 --block 256 \
     --max-time 0.5 --json "$REC/sweep_shapes.json" > "$REC/sweep_shapes.txt" 2>&1
  echo "rc=$?"; tail -30 "$REC/sweep_shapes.txt"
}
step_memory() {
  python3 benchmarks/graph_memory_probe.py > "$REC/graph_memory_probe.json" 2>&1; echo "rc=$?"
  python3 -c "import json,sys; [print(r) for r in json.load(open(sys.argv[1]))['rows']]" \
     "$REC/graph_memory_probe.json" || tail -5 "$REC/graph_memory_probe.json"
}
step_bisect() {
  for n in 1048576 4096; do
    python3 benchmarks/torch_bisect.py $n --graphbench > "$REC/torch_bisect_$n.json" 2> "$REC/torch_bisect_$n.err"
    echo "rc=$?"; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['elements'], d['median_us'], d.get('graphbench_graph'))" "$REC/torch_bisect_$n.json" || tail -5 "$REC/torch_bisect_$n.err"
  done
}
step_reverse() {  # the same variants built in the other order: method or addresses?
  for n in 1048576; do
    for order in "" --reverse; do
      python3 benchmarks/torch_bisect.py $n $order > "$REC/torch_bisect_${n}${order}.json" 2>&1
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['built'], d['median_us'])" "$REC/torch_bisect_${n}${order}.json" || tail -3 "$REC/torch_bisect_${n}${order}.json"
    done
  done
}
step_compile2() {
  timeout 200 python3 benchmarks/torch_compile_probe.py > "$REC/torch_compile_probe2.json" 2> "$REC/torch_compile_probe2.err"
  echo "rc=$?"; grep '^{"name"' "$REC/torch_compile_probe2.json"; grep -i "skip\|cudagraph" "$REC/torch_compile_probe2.err" | sort | uniq -c | sort -rn | head -12
}
step_compile() {
  timeout 240 python3 benchmarks/torch_compile_probe.py > "$REC/torch_compile_probe.json" 2> "$REC/torch_compile_probe.err"
  echo "rc=$?"; grep '^{"name"' "$REC/torch_compile_probe.json"; grep -i "skip\|cudagraph" "$REC/torch_compile_probe.err" | sort | uniq -c | head -20
  TORCH_LOGS=perf_hints gb run --no-progress --pipeline torch_mlp --elements 8192 \
     --modes individual,graph,torch-compile --json "$REC/torch_mlp_compile.json" \
     > "$REC/torch_mlp_compile.txt" 2>&1; echo "rc=$?"; grep -E "^ (individual|graph|torch-compile) |skip" "$REC/torch_mlp_compile.txt" | head
}
step_torchx3() {  # as torchx, with 2^24 (beyond the L2: tensor placement matters less there)
  for i in 1 2 3; do
    python3 benchmarks/torch_crosscheck.py --pin --sizes 4096,1048576,16777216 > "$REC/torch_bare3_$i.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('bare', {n: (round(v['eager']['wall_us'],2), round(v['graph_replay']['wall_us'],2)) for n, v in d['sizes'].items()})" "$REC/torch_bare3_$i.json"
    for n in 4096 1048576 16777216; do
      gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements $n \
         --json "$REC/torch_chain3_${n}_$i.json" | grep -E "^ (individual|graph) "
    done
  done
}
step_loop() {  # the device loop's conditional node, attributed on its own
  for n in 4096 16777216; do
    gb run --no-progress --attribute --modes individual,graph,loop --elements $n \
       --json "$REC/loop_$n.json" > "$REC/loop_$n.txt" 2>&1; echo "loop $n rc=$?"
    grep -E "^loop|loop conditional|kernels per iteration" "$REC/loop_$n.txt" | head -8
  done
}
step_layout() {  # the bare loop with graphbench's tensor layout, against graphbench, at 2^20
  for i in 1 2 3; do
    python3 benchmarks/torch_crosscheck.py --pin --sizes 1048576 --layout graphbench > "$REC/torch_bare_layout_$i.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('bare', d['layout'], {n: (round(v['eager']['wall_us'],2), round(v['graph_replay']['wall_us'],2)) for n, v in d['sizes'].items()})" "$REC/torch_bare_layout_$i.json"
    gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements 1048576 \
       --json "$REC/torch_chain_layout_$i.json" | grep -E "^ (individual|graph) "
  done
}
step_loopiters() {  # when does CUPTI list the device loop's body once per launch?
  for iters in 8 50 200 1000; do
    gb run --no-progress --attribute --modes individual,graph,loop --iters $iters --rounds 3 \
       --elements 4096 --json "$REC/loop_iters$iters.json" > "$REC/loop_iters$iters.txt" 2>&1
    echo "iters $iters rc=$?"; grep -E "^loop|loop conditional" "$REC/loop_iters$iters.txt" | head -3
  done
}
step_memtest() {
  timeout 120 python3 -m pytest -q -rf -p no:cacheprovider tests/test_gpu_graph_costs.py \
    tests/test_gpu_attribution.py > "$REC/gpu_tests_memory.txt" 2>&1
  grep -E "passed|failed" "$REC/gpu_tests_memory.txt" | tail -2; grep -E "^E  " "$REC/gpu_tests_memory.txt" | head -20
}
step_torchx() {  # bare and graphbench alternating in fresh processes, pinned
  for i in 1 2 3; do
    python3 benchmarks/torch_crosscheck.py --pin > "$REC/torch_bare_$i.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('bare', {n: (round(v['eager']['wall_us'],2), round(v['graph_replay']['wall_us'],2)) for n, v in d['sizes'].items()})" "$REC/torch_bare_$i.json"
    for n in 4096 1048576; do
      gb run --no-progress --pipeline benchmarks/torch_chain.py --modes individual,graph --elements $n \
         --json "$REC/torch_chain_${n}_$i.json" | grep -E "^ (individual|graph) "
    done
  done
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm --format=csv,noheader | tee "$REC/gpu.txt"
for step in "$@"; do echo "== $step"; s=$EPOCHREALTIME; "step_$step"; echo "   ($step: $(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s)"; done
tar czf "$OUT/session6_$(date +%H%M%S).tar.gz" -C "$(dirname "$REC")" "$(basename "$REC")"
