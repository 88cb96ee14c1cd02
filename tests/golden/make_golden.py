"""Regenerate the golden report texts: `python tests/golden/make_golden.py`.

A hand-picked set of H200 records in tests/records/h200 (copies of records
graphbench wrote; tests/records/h200/README.md says which), one of each shape
`graphbench report` renders: run records of schema versions 1, 2 and 3, a
merged multi-process record (v1, v3) and one with gate points, an A/B record, an
attributed run, every rung, a torch-compile rung, sweeps (v1, and an
interrupted v3 one); each rendered by `graphbench report` (and
`report --verbose` for version-1 run records) at 100 columns, and one
`graphbench compare` of two of them.
test_golden.py renders them again and diffs. Regenerate only for a change
of rendering made on purpose, and name it in the commit.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
RECORDS = "tests/records/h200"
WIDTH = "100"

REPORTED = [
    "v1/default_4096.json",                      # schema 1, one process
    "v1/baseline.json",                          # schema 1, 5 processes merged
    "v1/sweep_2_sizes_2_depths.json",            # schema 1 sweep
    "ladder/default_4096.json",                  # schema 2
    "sizes/elements_16777216.json",              # schema 2 at 2^24, back-pressured
    "gate/same_1.json",                          # schema 2 with gate points
    "gate/baseline.json",                        # 5 processes with gate points
    "host_speed/default_4096_4.json",            # a default run
    "ladder/all_rungs_4096.json",                # every rung
    "ab/softmax_identical_4096.json",            # A/B of a user pipeline
    "attribution/loop_iters_8.json",             # run --attribute, the device loop
    "pipelines/jacobi_depth_8_processes_2.json",  # a user pipeline over 2 processes
    "callables/torch_mlp_compile_8192_1.json",   # a torch callable with torch-compile
    "bad_inputs/elements_2147483653.json",       # more than 2^31 elements, two modes
    "bad_inputs/interrupted_sweep.json",         # an interrupted sweep
]
COMPARED = [("gate/baseline.json", "gate/same_1.json")]


def golden_cases() -> list[tuple[str, list[str]]]:
    """(golden file name, command arguments) for every picked record."""
    cases = []
    for name in REPORTED:
        rel = f"{RECORDS}/{name}"
        stem = "h200__" + name.removesuffix(".json").replace("/", "__")
        cases.append((f"{stem}.txt", ["report", rel]))
        data = json.loads((ROOT / rel).read_text())
        if data["schema"] == "graphbench/run" and data.get("schema_version") == 1:
            cases.append((f"{stem}.verbose.txt", ["report", "--verbose", rel]))
    for base, current in COMPARED:
        stem = "__".join(n.removesuffix(".json").replace("/", "__") for n in (base, current))
        cases.append((f"h200__compare__{stem}.txt",
                      ["compare", f"{RECORDS}/{base}", f"{RECORDS}/{current}"]))
    return cases


def render(args: list[str]) -> tuple[int, str]:
    from graphbench.cli import main

    os.environ["COLUMNS"] = WIDTH
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(args)
    return code, out.getvalue()


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    for name, args in golden_cases():
        code, text = render(args)
        (GOLDEN / name).write_text(f"exit {code}\n{text}")
        print(name, code)
