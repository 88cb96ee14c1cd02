"""The gate's promises between moments, checked on a GPU with graphbench's
own command line (each run a fresh process, as CI makes them):

- same:  a stored baseline of 5 processes, then N currents of 3 processes of
         unchanged code, each compared at the default gate;
- host:  the same with tests/host_delay_chain.py, the currents spinning
         --delay-us before every eager stage (a host-side regression);
- gpu:   at 2^24 elements, slow builds from tests/slow_build.py (--builds:
         more traffic or more compute): each measured in A/B against the
         shipped kernels, then gated against a stored baseline at
         individual.busy:5%; and identical builds in A/B at 2^24 with every metric at 2%;
- fresh: N single default runs, for the spread of their figures at the
         reference host speed;
- bases: only the 5-process baselines of same, host and gpu, for a later
         `--bases DIR` run to gate against (another moment, likely another GPU).

Writes every record and comparison under --out, and gate_check.json with one
row per comparison (exit code and each verdict).

    PYTHONPATH=. python3 benchmarks/gate_check.py --out /tmp/gate --steps same,host,gpu,fresh
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def graphbench(*args: str, env: dict | None = None) -> int:
    command = [sys.executable, "-m", "graphbench", *args]
    started = time.perf_counter()
    done = subprocess.run(command, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True)
    print(f"[{time.perf_counter() - started:5.1f} s, exit {done.returncode}] "
          f"graphbench {' '.join(args)}", flush=True)
    if done.returncode not in (0, 1):
        print(done.stdout[-1500:], done.stderr[-1500:], flush=True)
    return done.returncode


def compared(out: Path, name: str, base: Path, current: Path | None, *specs: str) -> dict:
    target = out / f"{name}.compare.json"
    args = ["compare", str(base)] + ([str(current)] if current else []) + ["--json", str(target),
                                                                            "--quiet"]
    for spec in specs:
        args += ["--fail-on", spec]
    code = graphbench(*args)
    verdicts = {}
    if target.exists():
        data = json.loads(target.read_text())
        verdicts = {v["metric"]: {"verdict": v["verdict"], "change": v.get("change"),
                                  "detectable": v.get("detectable"),
                                  "note": v.get("note", "")} for v in data.get("verdicts", [])}
    return {"name": name, "exit": code, "verdicts": verdicts}


def baseline(path: Path, stored: Path | None, *args: str) -> Path:
    """A 5-process baseline: the one stored earlier (--bases), else made now."""
    if stored:
        return stored / path.name
    graphbench("run", *args, "--processes", "5", "--no-progress", "--quiet", "--json", str(path))
    return path


def same_code(out: Path, n: int, rows: list, stored: Path | None = None) -> None:
    base = baseline(out / "same_base.json", stored)
    for i in range(n):
        current = out / f"same_{i}.json"
        graphbench("run", "--processes", "3", "--no-progress", "--quiet", "--json", str(current))
        rows.append({"step": "same", **compared(out, f"same_{i}", base, current)})


def host_delay(out: Path, n: int, delay_us: float, rows: list,
               stored: Path | None = None) -> None:
    pipeline = str(ROOT / "tests" / "host_delay_chain.py")
    base = baseline(out / "host_base.json", stored, "--pipeline", pipeline)
    for i in range(n):
        current = out / f"host_{i}.json"
        graphbench("run", "--pipeline", pipeline, "--processes", "3", "--no-progress", "--quiet",
                   "--json", str(current), env={"GRAPHBENCH_HOST_DELAY_US": str(delay_us)})
        rows.append({"step": "host", **compared(out, f"host_{i}", base, current,
                                                "individual.wall:10%", "graph.wall:10%")})


def build_source(options: str) -> str:
    """A slow build from slow_build.py's own options, e.g. "--extra 64 --work 8"."""
    from slow_build import build_parser, slow_source

    args = build_parser(out_required=False).parse_args(options.split())
    return slow_source(args.extra, work=args.work, modulo=args.modulo)


def gpu_builds(out: Path, builds: list[str], rows: list, stored: Path | None = None) -> None:
    shipped = str(ROOT / "kernels" / "pipeline.cu")
    base = baseline(out / "gpu_base.json", stored, "--elements", "2^24")
    same_ab = out / "ab_same.json"
    graphbench("run", "--elements", "2^24", "--ab", shipped, "--no-progress", "--quiet",
               "--json", str(same_ab))
    every = [f"{mode}.{field}:2%" for mode in ("individual", "graph", "fused")
             for field in ("wall", "busy")]
    rows.append({"step": "ab-same", **compared(out, "ab_same", same_ab, None, *every)})
    for options in builds:
        name = "_".join(options.replace("-", "").split())
        source = out / f"slow_{name}.cu"
        source.write_text(build_source(options))
        ab = out / f"ab_slow_{name}.json"
        graphbench("run", "--elements", "2^24", "--kernel-source", str(source), "--ab", shipped,
                   "--no-progress", "--quiet", "--json", str(ab))
        rows.append({"step": f"ab-slow-{name}", **compared(out, f"ab_slow_{name}", ab, None,
                                                            "individual.busy:2%")})
        current = out / f"gpu_slow_{name}.json"
        graphbench("run", "--elements", "2^24", "--kernel-source", str(source), "--processes",
                   "3", "--no-progress", "--quiet", "--json", str(current))
        rows.append({"step": f"gpu-slow-{name}", **compared(out, f"gpu_slow_{name}", base,
                                                             current, "individual.busy:5%")})


def fresh_runs(out: Path, n: int, rows: list) -> None:
    for i in range(n):
        record = out / f"fresh_{i}.json"
        started = time.perf_counter()
        code = graphbench("run", "--no-progress", "--quiet", "--json", str(record))
        rows.append({"step": "fresh", "name": record.name, "exit": code,
                     "seconds": time.perf_counter() - started})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", default="same,host,gpu,fresh")
    parser.add_argument("--n", type=int, default=10, help="currents (or fresh runs) per step")
    parser.add_argument("--delay-us", type=float, default=1.5)
    parser.add_argument("--builds", default="--work 10|--extra 8|--extra 64 --work 8",
                        help="slow builds for the gpu step, slow_build.py's options, "
                             "'|'-separated (about +1.5%%, +3%% and +6%% GPU time at 2^24 on "
                             "an H100)")
    parser.add_argument("--bases", default=None, help="a folder of stored baselines "
                        "(same_base.json, host_base.json, gpu_base.json) that same, host and gpu "
                        "gate against, "
                        "made earlier by --steps bases")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT / "tests"))  # slow_build
    rows: list = []
    steps = args.steps.split(",")
    stored = Path(args.bases) if args.bases else None
    try:
        if "bases" in steps:
            baseline(out / "same_base.json", None)
            baseline(out / "host_base.json", None, "--pipeline",
                     str(ROOT / "tests" / "host_delay_chain.py"))
            baseline(out / "gpu_base.json", None, "--elements", "2^24")
        if "fresh" in steps:
            fresh_runs(out, args.n, rows)
        if "same" in steps:
            same_code(out, args.n, rows, stored)
        if "gpu" in steps:
            gpu_builds(out, args.builds.split("|"), rows, stored)
        if "host" in steps:
            host_delay(out, args.n, args.delay_us, rows, stored)
    finally:
        (out / "gate_check.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
