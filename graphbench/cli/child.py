"""One process of `graphbench run --processes N`: read a RunConfig as JSON,
run it, write the record. `python -m graphbench.cli.child CONFIG RECORD`."""

from __future__ import annotations

import sys

from graphbench.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, GraphbenchError


def main(argv: list[str]) -> int:
    from graphbench.cli import error_line
    from graphbench.config import RunConfig
    from graphbench.runner import run_benchmark
    from graphbench.record.codec import decode, parse_json, write_record
    from graphbench.record.files import read_text

    if len(argv) != 2:
        print("usage: python -m graphbench.cli.child CONFIG.json RECORD.json", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = decode(RunConfig, parse_json(read_text(argv[0]), argv[0]), "config")
        record = run_benchmark(config)
        write_record(argv[1], record)  # no summary block: the parent reads only the samples
    except GraphbenchError as exc:
        print(f"graphbench: error: {error_line(exc)}", file=sys.stderr)
        return exc.exit_code
    return EXIT_OK if record.verified else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
