"""Regenerate the golden report texts: `python tests/golden/make_golden.py`.

Each committed record under results/ (the H200 records, of every schema
version) is rendered by `graphbench report` (and `report --verbose` for
version-1 run records) at 100 columns.
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
WIDTH = "100"


def golden_cases() -> list[tuple[str, list[str]]]:
    """(golden file name, report arguments) for every committed record."""
    cases = []
    for folder in ("results",):
        for path in sorted((ROOT / folder).rglob("*.json")):
            try:
                data = json.loads(path.read_text())
            except (ValueError, UnicodeDecodeError):
                continue
            if not isinstance(data, dict) or data.get("schema") not in ("graphbench/run",
                                                                        "graphbench/sweep"):
                continue
            rel = path.relative_to(ROOT).as_posix()
            stem = rel.removesuffix(".json").replace("/", "__")
            cases.append((f"{stem}.txt", ["report", rel]))
            if data["schema"] == "graphbench/run" and data.get("schema_version") == 1:
                cases.append((f"{stem}.verbose.txt", ["report", "--verbose", rel]))
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
