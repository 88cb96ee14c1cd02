"""Run the same benchmark in several fresh processes, one after another, and
read their records back (pyperf's remedy for between-process noise).

Each child receives its configuration as JSON, exactly as the parent holds
it; nothing is rebuilt into command-line flags."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable

from graphbench.config import RunConfig
from graphbench.errors import EXIT_FAILED, GraphbenchError
from graphbench.record.codec import read_run, to_json
from graphbench.record.model import RunRecord

CHILD_MODULE = "graphbench.cli.child"


def child_command(config_path: str, record_path: str) -> list[str]:
    return [sys.executable, "-m", CHILD_MODULE, config_path, record_path]


def run_processes(config: RunConfig, count: int,
                  on_done: Callable[[int], None] | None = None) -> list[RunRecord]:
    """Each process gets its own seed (fresh inputs) and writes its own record."""
    records = []
    with tempfile.TemporaryDirectory(prefix="graphbench-") as folder:
        for index in range(count):
            config_path = Path(folder) / f"config{index}.json"
            record_path = Path(folder) / f"process{index}.json"
            child = replace(config, seed=config.seed + index)
            config_path.write_text(json.dumps(to_json(child)), encoding="utf-8")
            result = subprocess.run(child_command(str(config_path), str(record_path)),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if result.returncode not in (0, EXIT_FAILED):
                last = (result.stderr.strip().splitlines() or ["no message"])[-1]
                raise GraphbenchError(f"process {index + 1} of {count} failed: {last}")
            records.append(read_run(record_path))
            if on_done:
                on_done(index + 1)
    return records
