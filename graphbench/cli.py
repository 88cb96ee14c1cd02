"""Command line: parse, validate, call the library, print, choose the exit code.

This is the only module that prints or exits.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager

from graphbench import __version__
from graphbench.config import (RunConfig, parse_fraction, parse_modes, parse_positive_int,
                               parse_seconds)
from graphbench.errors import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CompileError,
                               GraphbenchError, RecordError, UsageError)

RUN_EXAMPLES = """examples:
  graphbench run                               defaults: 4096 elements, 1000 iterations, device 0
  graphbench run --elements 2^20 --json out.json
  graphbench run --max-noise 0.5% --max-time 10 more rounds until the speedup is known to 0.5%
  graphbench run --rounds 20 --modes individual,graph   exactly 20 rounds, two modes
  graphbench run --elements 2^24 --flush-l2 --verbose   cold-cache figures, all details

exit codes: 0 ok, 1 verification failed, 2 usage or environment error, 130 interrupted
"""

COMPARE_EXAMPLES = """examples:
  graphbench compare results/h200_baseline.json new.json
  graphbench compare base.json new.json --fail-on speedup:5% --fail-on graph.wall:10%
  graphbench compare base.json new.json --markdown summary.md --json verdicts.json

metrics: speedup, speedup.fused, MODE.wall, MODE.submit, MODE.device, MODE.busy
  (MODE: individual, graph, fused); thresholds in %, us (times) or x (speedups).
default gate: speedup:5%, and per mode wall:10% and busy:5% when both records come
  from the same device model and driver (otherwise times are shown, not gated).
verdicts: faster, same, slower, ambiguous (too noisy to tell), incompatible, missing.
exit codes: 0 pass, 1 regression, 2 usage error or unreadable / incompatible record
"""

KERNELS_EXAMPLES = """examples:
  graphbench kernels                 compile for sm_90 (no GPU needed)
  graphbench kernels --arch sm_100
"""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def error(self, message: str):
        raise UsageError(message, f"see {self.prog} --help")


def _count(option: str):
    return lambda text: parse_positive_int(text, option)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="graphbench", description=(
        "Measure what CUDA Graphs buy on this GPU: a three-stage elementwise pipeline "
        "(r1 = a + b, r2 = r1 * c, r3 = r2 - a) run as individual launches, as one replayed "
        "graph and as one fused kernel, every result checked against CuPy."))
    parser.add_argument("--version", action="version", version=f"graphbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)

    run = commands.add_parser("run", help="benchmark the pipeline on a GPU",
                              description="Benchmark the pipeline: verify every mode, then time "
                              "interleaved rounds of each and report medians with their spread.",
                              epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--elements", type=_count("--elements"), default=4096, metavar="N",
                     help="vector length (default 4096; 2^20 and 1e6 forms work)")
    run.add_argument("--iters", type=_count("--iters"), default=1000, metavar="N",
                     help="pipeline iterations per timed round (default 1000)")
    run.add_argument("--rounds", type=_count("--rounds"), default=None, metavar="N",
                     help="exactly N timed rounds per mode (default: adaptive, see --max-noise)")
    run.add_argument("--max-noise", type=lambda t: parse_fraction(t, "--max-noise"), default=0.01,
                     metavar="PCT", help="stop when the speedup's 95%% CI half-width is within "
                     "PCT of its median (default 1%%)")
    run.add_argument("--min-rounds", type=_count("--min-rounds"), default=10, metavar="N",
                     help="rounds before the noise target is checked (default 10)")
    run.add_argument("--max-time", type=lambda t: parse_seconds(t, "--max-time"), default=2.0,
                     metavar="SECONDS", help="sampling time budget (default 2 s)")
    run.add_argument("--flush-l2", action="store_true",
                     help="clear the L2 cache before every timed round (cold-cache figures)")
    run.add_argument("--warmup", type=int, default=1, metavar="N",
                     help="untimed warm-up rounds per mode (default 1)")
    run.add_argument("--device", type=int, default=0, metavar="ID", help="CUDA device id (default 0)")
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    run.add_argument("--modes", type=parse_modes, default=None, metavar="LIST",
                     help="comma-separated subset of individual,graph,fused (default all)")
    run.add_argument("--json", metavar="FILE", help="write the result record to FILE (atomically)")
    run.add_argument("--kernel-source", metavar="FILE",
                     help="compile this .cu file instead of the shipped kernels (same kernel "
                     "names); the record keeps its SHA-256")
    run.add_argument("--verbose", "-v", action="store_true",
                     help="also show where the time goes and every one-off cost")
    run.add_argument("--no-progress", action="store_true", help="no progress display")

    run.add_argument("--baseline", metavar="FILE",
                     help="after the run, compare with this record and gate on it (exit 1 on a "
                     "regression)")
    add_gate_options(run)

    compare = commands.add_parser("compare", help="compare two result records (a CI gate)",
                                  description="Compare a current record with a baseline, metric "
                                  "by metric, and fail on a significant regression.",
                                  epilog=COMPARE_EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_argument("baseline", help="baseline record (graphbench run --json)")
    compare.add_argument("current", help="current record")
    compare.add_argument("--json", metavar="FILE", help="write the verdicts as JSON")
    add_gate_options(compare)

    kernels = commands.add_parser("kernels", help="compile every kernel offline (no GPU needed)",
                                  description="Compile every kernel with NVRTC for an arch and "
                                  "print registers and spills. Needs no GPU or driver.",
                                  epilog=KERNELS_EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    kernels.add_argument("--arch", default="sm_90", help="target such as sm_80, sm_90, sm_100")
    kernels.add_argument("--kernel-source", metavar="FILE",
                         help="check this .cu file instead of the shipped kernels")
    return parser


def add_gate_options(parser) -> None:
    parser.add_argument("--fail-on", action="append", type=_spec, metavar="SPEC", default=None,
                        help="gate on METRIC:THRESHOLD, e.g. speedup:5%%, graph.wall:10%%, "
                        "individual.wall:0.5us (repeatable; replaces the default gate)")
    parser.add_argument("--markdown", metavar="FILE",
                        help="write the comparison as a markdown table (CI job summary)")


def _spec(text: str):
    from graphbench.compare import parse_spec

    return parse_spec(text)


def config_from_args(args) -> RunConfig:
    extra = {"modes": args.modes} if args.modes else {}
    return RunConfig(elements=args.elements, iters=args.iters, rounds=args.rounds,
                     max_noise=args.max_noise, min_rounds=args.min_rounds, max_time=args.max_time,
                     flush_l2=args.flush_l2, warmup_rounds=args.warmup, device=args.device,
                     seed=args.seed, kernel_source=args.kernel_source, **extra)


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


@contextmanager
def round_progress(total: int | None, enabled: bool):
    """A progress display on stderr while rounds run; nothing when not a terminal.
    Adaptive sampling has no known total: the bar then just pulses."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("timing rounds"), BarColumn(), TextColumn("{task.completed} rounds"),
                  TimeElapsedColumn(), console=_console(stderr=True), transient=True) as progress:
        task = progress.add_task("rounds", total=total)
        yield lambda done, reason: progress.update(task, completed=done)


def cmd_run(args) -> int:
    from graphbench.record import read_record, write_json_atomic
    from graphbench.render import failure_text, run_report
    from graphbench.runner import run_benchmark

    config = config_from_args(args)
    baseline = read_record(args.baseline) if args.baseline else None  # fail before running
    if not args.baseline and (args.fail_on or args.markdown):
        raise UsageError("--fail-on and --markdown need --baseline FILE")
    show_progress = sys.stdout.isatty() and not args.no_progress
    with round_progress(config.rounds, show_progress) as on_round:
        record = run_benchmark(config, on_round=on_round)
    _console().print(run_report(record, verbose=args.verbose))
    if args.json:
        path = write_json_atomic(args.json, record)
        _console().print(f"record written to {path}", style="dim")
    if not record["verification"]["passed"]:
        for check in record["verification"]["checks"]:
            if not check["passed"]:
                print(f"graphbench: verification failed: {failure_text(check)}", file=sys.stderr)
        return EXIT_FAILED
    if baseline is not None:
        return gate(baseline, record, args, args.baseline, args.json or "this run")
    return EXIT_OK


def gate(baseline: dict, current: dict, args, baseline_name: str, current_name: str,
         json_out: str | None = None) -> int:
    """Compare, print, write the requested files, and choose the exit code."""
    from graphbench.compare import compare_records
    from graphbench.record import write_json_atomic
    from graphbench.render import comparison_markdown, comparison_report, decision_line

    comparison = compare_records(baseline, current, args.fail_on)
    _console().print(comparison_report(comparison))
    if args.markdown:
        _write_text(args.markdown, comparison_markdown(comparison, baseline_name, current_name))
    if json_out:
        write_json_atomic(json_out, comparison.to_dict())
    if comparison.incompatible:
        raise RecordError(f"records are not comparable: {'; '.join(comparison.incompatible)}",
                          "compare runs made with the same --elements and --iters")
    if comparison.regressions:
        print(f"graphbench: {decision_line(comparison)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _write_text(path: str, text: str) -> None:
    from graphbench.record import write_text_atomic

    write_text_atomic(path, text)


def cmd_compare(args) -> int:
    from graphbench.record import read_record

    baseline, current = read_record(args.baseline), read_record(args.current)
    return gate(baseline, current, args, args.baseline, args.current, json_out=args.json)


def cmd_kernels(args) -> int:
    from rich.table import Table

    from graphbench.kernels import compile_report, load_source

    resources = compile_report(args.arch, load_source(args.kernel_source))
    table = Table(title=f"kernels compiled for {args.arch} (NVRTC, no GPU needed)",
                  title_justify="left")
    for column in ("kernel", "registers", "spill stores (B)", "spill loads (B)", "stack (B)"):
        table.add_column(column, justify="left" if column == "kernel" else "right")
    for k in sorted(resources, key=lambda r: r.name):
        table.add_row(k.name, str(k.registers), str(k.spill_stores), str(k.spill_loads),
                      str(k.stack_bytes))
    _console().print(table)
    return EXIT_OK


COMMANDS = {"run": cmd_run, "compare": cmd_compare, "kernels": cmd_kernels}


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if not args.command:
            build_parser().print_help()
            return EXIT_OK
        return COMMANDS[args.command](args)
    except CompileError as exc:
        print(f"graphbench: error: {exc.message}", file=sys.stderr)
        print(exc.log, file=sys.stderr)
        return exc.exit_code
    except GraphbenchError as exc:
        print(f"graphbench: error: {exc.one_line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("graphbench: interrupted; GPU resources released", file=sys.stderr)
        return EXIT_INTERRUPTED
