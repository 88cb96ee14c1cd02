"""run --attribute's trace in a fresh process:
`python -m graphbench.measure.trace_child CONFIG.json TRACE.json`.

The measuring process (graphbench.runner), after its timed rounds and
checks, writes its config as JSON, exactly as it holds it (its calibrated
iterations and the rungs it ran; graphbench.measure.processes passes a
config the same way), and waits. The child opens the Session for that
config, fills the same random inputs from the same seed, builds the same
rungs and traces them (graphbench.measure.attribution.trace_rungs), with
nothing timed or verified before; it writes the Attribution as JSON. Why a
fresh process: graphbench.measure.attribution's docstring. The child needs
its own set of buffers beside the waiting parent's.

An error is one line on stderr and the error's exit code, as in
graphbench.cli.child; the parent raises it as one GraphbenchError."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from graphbench.config import RunConfig
from graphbench.errors import EXIT_OK, EXIT_USAGE, GraphbenchError
from graphbench.record.trace import FRESH, Attribution

TRACE_MODULE = "graphbench.measure.trace_child"
ERROR_PREFIX = "graphbench: error: "


def trace_command(config_path: str, trace_path: str) -> list[str]:
    return [sys.executable, "-m", TRACE_MODULE, config_path, trace_path]


def trace_fresh(config: RunConfig) -> Attribution:
    """Every rung of `config` traced in a fresh process; GraphbenchError
    naming the cause when the process fails or writes no readable trace."""
    from graphbench.record.codec import to_json

    with tempfile.TemporaryDirectory(prefix="graphbench-trace-") as folder:
        config_path, trace_path = Path(folder) / "config.json", Path(folder) / "trace.json"
        config_path.write_text(json.dumps(to_json(config)), encoding="utf-8")
        result = subprocess.run(trace_command(str(config_path), str(trace_path)),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode != EXIT_OK:
            last = (result.stderr.strip().splitlines() or ["no message"])[-1]
            raise GraphbenchError(f"the trace's fresh process failed (exit {result.returncode}): "
                                  f"{last.removeprefix(ERROR_PREFIX)}")
        return read_trace(trace_path)


def read_trace(path: str | Path) -> Attribution:
    """The Attribution a trace process wrote; GraphbenchError when it is
    missing or not one."""
    from graphbench.errors import RecordError
    from graphbench.record.codec import decode, parse_json
    from graphbench.record.files import read_text

    try:
        return decode(Attribution, parse_json(read_text(path), str(path)), "attribution")
    except RecordError as exc:
        raise GraphbenchError(f"the trace's fresh process wrote no readable trace: "
                              f"{exc.one_line()}") from None


def trace_config(config: RunConfig) -> Attribution:
    """This process's trace of every rung of `config`: the measuring
    process's inputs (its seed's random fill), nothing timed before.

    Unpinned, on every CPU the process may use: CUPTI's threads, created
    after a pinning, would share the launching thread's one CPU (and a child
    inherits the measuring process's one-CPU mask), which inflated traced
    wall far more than unpinned
    (docs/profiling.md#per-stage-attribution-run---attribute); the trace
    compares traced with untraced batches of this same process."""
    import dataclasses

    import numpy as np

    from graphbench.measure.attribution import trace_rungs
    from graphbench.measure.session import Session
    from graphbench.pipeline.files import no_hard_exit

    _every_cpu()
    config = dataclasses.replace(config, pin_cpu=False)
    with no_hard_exit("the pipeline"), Session(config, None) as session:
        session.pipeline.fill_random(np.random.default_rng(config.seed))
        return trace_rungs(session, FRESH)


def _every_cpu() -> None:
    """Undo the one-CPU mask inherited from the measuring process (the
    kernel keeps it within the CPUs this process may use)."""
    import os

    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except (AttributeError, OSError):  # no affinity on this system: nothing to undo
        pass


def main(argv: list[str]) -> int:
    from graphbench.record.codec import decode, parse_json, to_json
    from graphbench.record.files import read_text, write_text_atomic
    from graphbench.record.printable import printable

    if len(argv) != 2:
        print(f"usage: python -m {TRACE_MODULE} CONFIG.json TRACE.json", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = decode(RunConfig, parse_json(read_text(argv[0]), argv[0]), "config")
        write_text_atomic(argv[1], json.dumps(to_json(trace_config(config))))
    except GraphbenchError as exc:
        print(ERROR_PREFIX + printable(exc.one_line()), file=sys.stderr)
        return exc.exit_code
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
