"""Run the same benchmark in several fresh processes, one after another, and
read their records back (pyperf's remedy for between-process noise)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from graphbench.config import RunConfig
from graphbench.errors import EXIT_FAILED, GraphbenchError
from graphbench.record import read_record


def child_argv(config: RunConfig, seed: int, json_path: str) -> list[str]:
    """The `graphbench run` command line that reproduces `config` in one process."""
    argv = ["run", "--elements", str(config.elements), "--device", str(config.device),
            "--seed", str(seed), "--stages", ",".join(config.stages), "--depth", str(config.depth),
            "--max-noise", repr(config.max_noise), "--min-rounds", str(config.min_rounds),
            "--max-time", repr(config.max_time), "--warmup", str(config.warmup_rounds),
            "--modes", ",".join(config.run_modes), "--json", json_path, "--no-progress"]
    optional = {"--iters": config.iters, "--rounds": config.rounds,
                "--kernel-source": config.kernel_source}
    for option, value in optional.items():
        if value is not None:
            argv += [option, str(value)]
    argv += ["--flush-l2"] if config.flush_l2 else []
    argv += [] if config.pin_cpu else ["--no-pin"]
    return argv


def run_processes(config: RunConfig, count: int,
                  on_done: Callable[[int], None] | None = None) -> list[dict]:
    """Each process gets its own seed (fresh inputs) and writes its own record."""
    records = []
    with tempfile.TemporaryDirectory(prefix="graphbench-") as folder:
        for index in range(count):
            path = str(Path(folder) / f"process{index}.json")
            argv = child_argv(config, config.seed + index, path)
            result = subprocess.run([sys.executable, "-m", "graphbench", *argv],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if result.returncode not in (0, EXIT_FAILED):
                raise GraphbenchError(f"process {index + 1} of {count} failed: "
                                      f"{result.stderr.strip().splitlines()[-1:]}")
            records.append(read_record(path))
            if on_done:
                on_done(index + 1)
    return records
