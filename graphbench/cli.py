"""Command line: parse, validate, call the library, print, choose the exit code.

This is the only module that prints or exits.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from graphbench import __version__
from graphbench.config import (RunConfig, parse_fraction, parse_grid, parse_list,
                               parse_positive_int, parse_seconds)
from graphbench.errors import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CompileError,
                               GraphbenchError, RecordError, UsageError)
from graphbench.stages import DEFAULT_STAGES

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

SWEEP_EXAMPLES = """examples:
  graphbench sweep                                     2^12..2^24 (x4) elements x depth 1,4,16
  graphbench sweep --elements 2^12..2^24 --depth 1..16 --json sweep.json --plot sweep.svg
  graphbench sweep --elements 4096,65536 --depth 1,8 --threshold 1.5

Each point is a full verified run (adaptive sampling, --max-time per point).
The record is rewritten after every point, so an interrupted sweep keeps its points.
"""

REPORT_EXAMPLES = """examples:
  graphbench report results/h200_default.json
  graphbench report run_a.json run_b.json --markdown summary.md     side by side
  graphbench report sweep.json --plot sweep.png
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


def _subcommand(commands, name: str, help_text: str, description: str, epilog: str):
    return commands.add_parser(name, help=help_text, description=description, epilog=epilog,
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="graphbench", description=(
        "Measure what CUDA Graphs buy on this GPU: a three-stage elementwise pipeline "
        "(r1 = a + b, r2 = r1 * c, r3 = r2 - a) run as individual launches, as one replayed "
        "graph and as one fused kernel, every result checked against CuPy."))
    parser.add_argument("--version", action="version", version=f"graphbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)

    run = _subcommand(commands, "run", "benchmark the pipeline on a GPU",
                      "Benchmark the pipeline: verify every mode, then time interleaved rounds "
                      "of each and report medians with their spread.", RUN_EXAMPLES)
    run.add_argument("--elements", type=_count("--elements"), default=4096, metavar="N",
                     help="vector length (default 4096; 2^20 and 1e6 forms work)")
    run.add_argument("--iters", type=_count("--iters"), default=1000, metavar="N",
                     help="pipeline iterations per timed round (default 1000)")
    run.add_argument("--rounds", type=_count("--rounds"), default=None, metavar="N",
                     help="exactly N timed rounds per mode (default: adaptive, see --max-noise)")
    run.add_argument("--depth", type=_count("--depth"), default=1, metavar="K",
                     help="repeat the stage chain K times, each stage reading the previous "
                     "one's output (default 1)")
    run.add_argument("--modes", type=parse_list, default=None, metavar="LIST",
                     help="comma-separated subset of individual,graph,fused (default: all the "
                     "pipeline has; fused exists for add,mul,sub at depth 1)")
    run.add_argument("--warmup", type=int, default=1, metavar="N",
                     help="untimed warm-up rounds per mode (default 1)")
    run.add_argument("--processes", type=_count("--processes"), default=1, metavar="N",
                     help="run in N fresh processes one after another and merge their rounds, "
                     "so the noise includes the spread between processes (use for baselines)")
    add_measure_options(run, max_time=2.0)
    run.add_argument("--verbose", "-v", action="store_true",
                     help="also show where the time goes and every one-off cost")
    run.add_argument("--baseline", metavar="FILE",
                     help="after the run, compare with this record and gate on it (exit 1 on a "
                     "regression)")
    add_gate_options(run)

    sweep = _subcommand(commands, "sweep", "benchmark a grid of sizes and pipeline depths",
                        "Run the benchmark over elements x depth, find where the graph speedup "
                        "fades, and chart it.", SWEEP_EXAMPLES)
    sweep.add_argument("--elements", type=lambda t: parse_grid(t, "--elements"),
                       default=parse_grid("2^12..2^24:x4", "--elements"), metavar="GRID",
                       help="sizes: a list (4096,65536) or a range (2^12..2^24 doubles, "
                       "2^12..2^24:x4 quadruples; default 2^12..2^24:x4)")
    sweep.add_argument("--depth", type=lambda t: parse_grid(t, "--depth"), default=[1, 4, 16],
                       metavar="GRID", help="pipeline depths, same forms (default 1,4,16)")
    sweep.add_argument("--iters", type=_count("--iters"), default=None, metavar="N",
                       help="iterations per round (default: about 10 ms of work per round)")
    sweep.add_argument("--threshold", type=float, default=1.1, metavar="X",
                       help="report where the speedup falls below X (default 1.1)")
    sweep.add_argument("--plot", metavar="FILE", help="write the charts to FILE (.svg or .png)")
    sweep.add_argument("--markdown", metavar="FILE", help="write the tables as markdown")
    add_measure_options(sweep, max_time=1.0)

    report = _subcommand(commands, "report", "render saved run or sweep records",
                         "Render saved records as the live run printed them; several run "
                         "records side by side.", REPORT_EXAMPLES)
    report.add_argument("files", nargs="+", metavar="FILE", help="records written with --json")
    report.add_argument("--markdown", metavar="FILE", help="write the tables as markdown")
    report.add_argument("--plot", metavar="FILE", help="chart one sweep record (.svg or .png)")
    report.add_argument("--verbose", "-v", action="store_true", help="every detail of a run")

    compare = _subcommand(commands, "compare", "compare two result records (a CI gate)",
                          "Compare a current record with a baseline, metric by metric, and fail "
                          "on a significant regression.", COMPARE_EXAMPLES)
    compare.add_argument("baseline", help="baseline record (graphbench run --json)")
    compare.add_argument("current", help="current record")
    compare.add_argument("--json", metavar="FILE", help="write the verdicts as JSON")
    add_gate_options(compare)

    kernels = _subcommand(commands, "kernels", "compile every kernel offline (no GPU needed)",
                          "Compile every kernel with NVRTC for an arch and print registers and "
                          "spills. Needs no GPU or driver.", KERNELS_EXAMPLES)
    kernels.add_argument("--arch", default="sm_90", help="target such as sm_80, sm_90, sm_100")
    kernels.add_argument("--kernel-source", metavar="FILE",
                         help="check this .cu file instead of the shipped kernels")
    return parser


def add_measure_options(parser, max_time: float) -> None:
    """Options run and sweep share: sampling, inputs, devices, output."""
    parser.add_argument("--stages", type=parse_list, default=DEFAULT_STAGES, metavar="LIST",
                        help="the stage chain, from add,mul,sub (default add,mul,sub)")
    parser.add_argument("--max-noise", type=lambda t: parse_fraction(t, "--max-noise"),
                        default=0.01, metavar="PCT", help="stop when the speedup's 95%% CI "
                        "half-width is within PCT of its median (default 1%%)")
    parser.add_argument("--min-rounds", type=_count("--min-rounds"), default=10, metavar="N",
                        help="rounds before the noise target is checked (default 10)")
    parser.add_argument("--max-time", type=lambda t: parse_seconds(t, "--max-time"),
                        default=max_time, metavar="SECONDS",
                        help=f"sampling time budget per run (default {max_time:g} s)")
    parser.add_argument("--flush-l2", action="store_true",
                        help="clear the L2 cache before every timed round (cold-cache figures)")
    parser.add_argument("--device", type=parse_device_spec, default=[0], metavar="IDS",
                        help="CUDA device id, a list such as 0,1, or all (default 0); one record "
                        "per device")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    parser.add_argument("--kernel-source", metavar="FILE",
                        help="compile this .cu file instead of the shipped kernels (same kernel "
                        "names); the record keeps its SHA-256")
    parser.add_argument("--json", metavar="FILE", help="write the record to FILE (atomically; a "
                        "sweep rewrites it after every point)")
    parser.add_argument("--no-pin", action="store_true",
                        help="do not pin the launching thread to one CPU near the GPU")
    parser.add_argument("--no-progress", action="store_true", help="no progress display")


def add_gate_options(parser) -> None:
    parser.add_argument("--fail-on", action="append", type=_spec, metavar="SPEC", default=None,
                        help="gate on METRIC:THRESHOLD, e.g. speedup:5%%, graph.wall:10%%, "
                        "individual.wall:0.5us (repeatable; replaces the default gate)")
    parser.add_argument("--markdown", metavar="FILE",
                        help="write the comparison as a markdown table (CI job summary)")


def _spec(text: str):
    from graphbench.compare import parse_spec

    return parse_spec(text)


def config_from_args(args, device: int) -> RunConfig:
    return RunConfig(elements=args.elements, iters=args.iters, rounds=args.rounds,
                     max_noise=args.max_noise, min_rounds=args.min_rounds, max_time=args.max_time,
                     flush_l2=args.flush_l2, warmup_rounds=args.warmup, device=device,
                     seed=args.seed, kernel_source=args.kernel_source, modes=args.modes,
                     stages=args.stages, depth=args.depth, pin_cpu=not args.no_pin)


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


@contextmanager
def round_progress(total: int | None, enabled: bool, unit: str = "rounds"):
    """A progress display on stderr while rounds run; nothing when not a terminal.
    Adaptive sampling has no known total: the bar then just pulses."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("timing"), BarColumn(), TextColumn(f"{{task.completed}} {unit}"),
                  TimeElapsedColumn(), console=_console(stderr=True), transient=True) as progress:
        task = progress.add_task("rounds", total=total)
        yield lambda done, reason: progress.update(task, completed=done)


def cmd_run(args) -> int:
    from graphbench.record import read_record, write_json_atomic
    from graphbench.render import failure_text, run_report, runs_side_by_side, simple_table

    base = config_from_args(args, device=0)  # bad options fail before the driver is asked
    devices = resolve_devices(args.device)
    configs = [replace(base, device=device) for device in devices]
    baseline = read_record(args.baseline) if args.baseline else None  # fail before running
    if not args.baseline and (args.fail_on or args.markdown):
        raise UsageError("--fail-on and --markdown need --baseline FILE")
    show_progress = sys.stdout.isatty() and not args.no_progress
    records, exit_code = [], EXIT_OK
    for config in configs:
        record = measure(config, args.processes, show_progress)
        records.append(record)
        _console().print(run_report(record, verbose=args.verbose))
        if args.json:
            path = write_json_atomic(per_device_path(args.json, config.device, len(configs)), record)
            _console().print(f"record written to {path}", style="dim")
        failures = [c for c in record["verification"]["checks"] if not c["passed"]]
        for check in failures:
            print(f"graphbench: verification failed: {failure_text(check)}", file=sys.stderr)
        if failures:
            exit_code = EXIT_FAILED
        elif baseline is not None:
            markdown = per_device_path(args.markdown, config.device, len(configs)) \
                if args.markdown else None
            exit_code = max(exit_code, gate(baseline, record, args, args.baseline,
                                            args.json or "this run", markdown=markdown))
    if len(records) > 1:
        names = [f"device {r['device']['index']}" for r in records]
        _console().print(simple_table("devices side by side", *runs_side_by_side(records, names)))
    return exit_code


def measure(config: RunConfig, processes: int, show_progress: bool) -> dict:
    """One run in this process, or `processes` fresh ones merged."""
    from graphbench.merge import merge_runs
    from graphbench.processes import run_processes
    from graphbench.runner import run_benchmark

    if processes == 1:
        with round_progress(config.rounds, show_progress) as on_round:
            return run_benchmark(config, on_round=on_round)
    with round_progress(processes, show_progress, "processes") as on_done:
        done = (lambda count: on_done(count, None)) if on_done else None
        return merge_runs(run_processes(config, processes, done))


def per_device_path(path: str, device: int, count: int) -> str:
    """out.json for one device; out.dev0.json, out.dev1.json, ... for several."""
    if count == 1:
        return path
    target = Path(path)
    return str(target.with_name(f"{target.stem}.dev{device}{target.suffix}"))


def parse_device_spec(text: str):
    """'0', '0,1' or 'all' (resolved once the driver is asked)."""
    if text.strip().lower() == "all":
        return "all"
    try:
        ids = [int(part) for part in parse_list(text)]
    except ValueError:
        raise UsageError(f"--device must be an id, a list such as 0,1, or all; got {text!r}") from None
    if not ids or min(ids) < 0:
        raise UsageError(f"--device must be 0 or more, got {text!r}")
    return sorted(set(ids))


def resolve_devices(spec) -> list[int]:
    if spec == "all":
        from graphbench.device import list_devices

        return [device.device_id for device in list_devices()]
    return spec


def cmd_sweep(args) -> int:
    from graphbench.chart import sweep_panels, write_chart
    from graphbench.record import write_json_atomic
    from graphbench.render import crossover_rows, simple_table, sweep_markdown, sweep_report
    from graphbench.runner import run_benchmark
    from graphbench.sweep import SweepConfig, run_sweep

    first = SweepConfig(tuple(args.elements), tuple(args.depth), sweep_base_config(args, 0),
                        args.threshold)  # bad options fail before the driver is asked
    devices = resolve_devices(args.device)
    sweeps, exit_code = [], EXIT_OK
    for device in devices:
        config = replace(first, base=replace(first.base, device=device))
        path = per_device_path(args.json, device, len(devices)) if args.json else None
        save = (lambda record, path=path: write_json_atomic(path, record)) if path else None
        with sweep_progress(len(config.points()), sys.stdout.isatty() and not args.no_progress) \
                as on_point:
            sweep = run_sweep(config, run_benchmark, save=save, on_point=on_point)
        sweeps.append(sweep)
        _console().print(sweep_report(sweep))
        if path:
            _console().print(f"sweep record written to {path}", style="dim")
        if args.plot:
            chart = write_chart(per_device_path(args.plot, device, len(devices)), sweep_panels(sweep))
            _console().print(f"chart written to {chart}", style="dim")
        if args.markdown:
            _write_text(per_device_path(args.markdown, device, len(devices)), sweep_markdown(sweep))
        if any(not p["verification"]["passed"] for p in sweep["points"]):
            print("graphbench: verification failed at some sweep points (marked FAILED)",
                  file=sys.stderr)
            exit_code = EXIT_FAILED
    if len(sweeps) > 1:
        for sweep in sweeps:
            columns, rows = crossover_rows(sweep)
            _console().print(simple_table(f"crossover on device {sweep['device']['index']}",
                                          columns, rows))
    return exit_code


def sweep_base_config(args, device: int) -> RunConfig:
    return RunConfig(iters=args.iters, stages=args.stages, max_noise=args.max_noise,
                     min_rounds=args.min_rounds, max_time=args.max_time, device=device,
                     seed=args.seed, flush_l2=args.flush_l2, kernel_source=args.kernel_source,
                     pin_cpu=not args.no_pin)


@contextmanager
def sweep_progress(total: int, enabled: bool):
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=_console(stderr=True), transient=True) as progress:
        task = progress.add_task("sweep", total=total)

        def on_point(index, count, config):
            progress.update(task, completed=index, description=f"{config.elements:,} elements, "
                            f"depth {config.depth}")
        yield on_point


def cmd_report(args) -> int:
    from graphbench.chart import sweep_panels, write_chart
    from graphbench.record import RUN_SCHEMA, read_json, validate_record
    from graphbench.render import (markdown_table, run_report, runs_side_by_side, simple_table,
                                   sweep_markdown, sweep_report)
    from graphbench.sweep import SWEEP_SCHEMA, validate_sweep

    runs, sweeps = [], []
    for path in args.files:
        data = read_json(path)
        if isinstance(data, dict) and data.get("schema") == SWEEP_SCHEMA:
            sweeps.append((path, validate_sweep(data, path)))
        else:
            runs.append((path, validate_record(data, RUN_SCHEMA, path)))
    if args.plot and len(sweeps) != 1:
        raise UsageError("--plot needs exactly one sweep record")
    markdown = []
    if len(runs) == 1:
        _console().print(run_report(runs[0][1], verbose=args.verbose))
    elif runs:
        columns, rows = runs_side_by_side([r for _, r in runs], [Path(p).name for p, _ in runs])
        _console().print(simple_table("records side by side", columns, rows))
        markdown.append(markdown_table(columns, rows))
    for path, sweep in sweeps:
        _console().print(sweep_report(sweep))
        markdown.append(sweep_markdown(sweep))
    if args.plot:
        _console().print(f"chart written to {write_chart(args.plot, sweep_panels(sweeps[0][1]))}",
                         style="dim")
    if args.markdown:
        if len(runs) == 1:
            markdown.insert(0, markdown_table(*runs_side_by_side([runs[0][1]], [runs[0][0]])))
        _write_text(args.markdown, "\n\n".join(markdown) + "\n")
    return EXIT_OK


def gate(baseline: dict, current: dict, args, baseline_name: str, current_name: str,
         json_out: str | None = None, markdown: str | None = None) -> int:
    """Compare, print, write the requested files, and choose the exit code."""
    from graphbench.compare import compare_records
    from graphbench.record import write_json_atomic
    from graphbench.render import comparison_markdown, comparison_report, decision_line

    comparison = compare_records(baseline, current, args.fail_on)
    _console().print(comparison_report(comparison))
    markdown = markdown or args.markdown
    if markdown:
        _write_text(markdown, comparison_markdown(comparison, baseline_name, current_name))
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


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "report": cmd_report, "compare": cmd_compare,
            "kernels": cmd_kernels}


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
