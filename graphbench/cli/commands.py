"""The sub-commands: validated config -> one library call -> render -> exit code."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from graphbench.cli.gate import cmd_compare, gate
from graphbench.cli.progress import console, round_progress, sweep_progress
from graphbench.config import RUN, SWEEP, RunConfig, SweepConfig, cli_fields
from graphbench.errors import EXIT_FAILED, EXIT_OK, UsageError
from graphbench.cli.values import check_conflicts
from graphbench.pipeline_files import check_configs
from graphbench.record.files import write_text_atomic
from graphbench.record.model import RunRecord, SweepRecord


def run_config(args, command: str = RUN, **changes) -> RunConfig:
    """The RunConfig the options of `command` describe (device: the first asked for)."""
    values = {f.name: getattr(args, f.name) for f in cli_fields(RunConfig, command)
              if f.name != "device"}
    first_device = 0 if args.device == "all" else args.device[0]
    return RunConfig(**{**values, "device": first_device, **changes})


def sweep_config(args) -> SweepConfig:
    values = {f.name: getattr(args, f.name) for f in cli_fields(SweepConfig, SWEEP)}
    return SweepConfig(**values, base=run_config(args, SWEEP))


def cmd_run(args) -> int:
    from graphbench.record.codec import read_run, write_record
    from graphbench.report.run import failure_text, run_report, runs_side_by_side
    from graphbench.report.tables import simple_table

    base = run_config(args)  # bad options fail before the driver is asked
    if not (args.baseline or base.ab_source) and (args.fail_on or args.markdown):
        raise UsageError("--fail-on and --markdown need --baseline FILE or --ab BASE.cu")
    if args.baseline and base.ab_source:
        raise UsageError("--ab gates against its own base build; leave out --baseline")
    check_conflicts(args)
    check_configs([base])  # the pipeline file, its sizes and the kernel sources
    baseline = read_run(args.baseline) if args.baseline else None  # fail before running
    devices = checked_devices(args)
    records, exit_code = [], EXIT_OK
    for device in devices:
        try:
            record = measure(replace(base, device=device), args.processes, _progress(args))
        except KeyboardInterrupt:
            print("graphbench: run interrupted before it finished: no record written",
                  file=sys.stderr)
            raise
        records.append(record)
        console().print(run_report(record, verbose=args.verbose))
        if args.json:
            path = write_record(per_device_path(args.json, device, len(devices)), record)
            console().print(f"record written to {path}", style="dim")
        for check in (c for c in record.checks if not c.passed):
            print(f"graphbench: verification failed: {failure_text(check)}", file=sys.stderr)
        if not all(point.verified for point in (record, *record.gate_points)):
            exit_code = EXIT_FAILED
        elif baseline is not None or base.ab_source:
            markdown = per_device_path(args.markdown, device, len(devices)) if args.markdown else None
            exit_code = max(exit_code, gate(baseline, record, args, args.baseline,
                                            args.json or "this run", markdown=markdown))
    if len(records) > 1:
        names = [f"device {r.device.index}" for r in records]
        console().print(simple_table("devices side by side", *runs_side_by_side(records, names)))
    return exit_code


def checked_devices(args) -> list[int]:
    """The devices to run on, with every output path checked for them: before
    the driver is asked, unless `all` leaves the list to the driver."""
    if args.device != "all":
        check_outputs(args, args.device)
        return args.device
    devices = resolve_devices(args.device)
    check_outputs(args, devices)
    return devices


def check_outputs(args, devices: list[int] | None = None) -> None:
    """Every output path and format, before any GPU work."""
    from graphbench.record.files import check_writable
    from graphbench.report.chart import check_chart_path

    count = len(devices) if devices else 1
    for option in ("json", "markdown", "plot"):
        path = getattr(args, option, None)
        if not path:
            continue
        if option == "plot":
            check_chart_path(path)
        for device in devices or [0]:
            check_writable(per_device_path(path, device, count), f"--{option}")


def _progress(args) -> bool:
    return sys.stdout.isatty() and not args.no_progress


def measure(config: RunConfig, processes: int, show_progress: bool) -> RunRecord:
    """The run, and the same run at each of its gate sizes.

    A size point runs in fresh processes even when the run itself does not:
    after one run's checks, a second run in the same process measured 10%
    more busy time at 2^20 elements on the H200 (see measure/benchmark.py),
    and its baseline's points ran fresh. It chooses its own iterations
    (about 10 ms per round, as a sweep does)."""
    from graphbench.analyze.merge import merge_runs
    from graphbench.measure.processes import run_processes

    record = measure_one(replace(config, gate_sizes=()), processes, show_progress)
    points = tuple(merge_runs(run_processes(replace(config, elements=size, gate_sizes=(),
                                                    iters=None), processes))
                   for size in config.gate_sizes)
    return replace(record, gate_points=points) if points else record


def measure_one(config: RunConfig, processes: int, show_progress: bool) -> RunRecord:
    """One run in this process, or `processes` fresh ones merged."""
    from graphbench.analyze.merge import merge_runs
    from graphbench.measure.benchmark import run_benchmark
    from graphbench.measure.processes import run_processes

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


def resolve_devices(spec) -> list[int]:
    if spec == "all":
        from graphbench.measure.device import list_devices

        return [device.device_id for device in list_devices()]
    return spec


def cmd_sweep(args) -> int:
    first = sweep_config(args)  # bad options fail before the driver is asked
    check_conflicts(args)
    check_configs(first.points())
    devices = checked_devices(args)
    sweeps = []
    for device in devices:
        config = replace(first, base=replace(first.base, device=device))
        path = per_device_path(args.json, device, len(devices)) if args.json else None
        sweep = sweep_device(config, path, _progress(args))
        sweeps.append(sweep)
        show_sweep(sweep, args, device, len(devices), path)
    if len(sweeps) > 1:
        show_crossovers(sweeps)
    if any(not p.verified for sweep in sweeps for p in sweep.points):
        print("graphbench: verification failed at some sweep points (marked FAILED)",
              file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def sweep_device(config: SweepConfig, path: str | None, show_progress: bool) -> SweepRecord:
    """One device's sweep, saved after every point; on Ctrl-C, say what was kept."""
    from graphbench.measure.benchmark import run_benchmark
    from graphbench.measure.sweep import run_sweep
    from graphbench.record.codec import write_record

    saved: list[SweepRecord] = []

    def keep(record: SweepRecord) -> None:
        saved[:] = [record]
        if path:
            write_record(path, record)

    try:
        with sweep_progress(len(config.points()), show_progress) as on_point:
            return run_sweep(config, run_benchmark, save=keep, on_point=on_point)
    except KeyboardInterrupt:
        done = len(saved[0].points) if saved else 0
        where = f"; {path} keeps them" if path else " (no --json: nothing written)"
        print(f"graphbench: sweep interrupted after {done} of {len(config.points())} "
              f"points{where}", file=sys.stderr)
        raise


def show_sweep(sweep: SweepRecord, args, device: int, devices: int, path: str | None) -> None:
    from graphbench.report.chart import sweep_panels, write_chart
    from graphbench.report.sweep import sweep_markdown, sweep_report

    console().print(sweep_report(sweep))
    if path:
        console().print(f"sweep record written to {path}", style="dim")
    if args.plot:
        chart = write_chart(per_device_path(args.plot, device, devices), sweep_panels(sweep))
        console().print(f"chart written to {chart}", style="dim")
    if args.markdown:
        write_text_atomic(per_device_path(args.markdown, device, devices), sweep_markdown(sweep))


def show_crossovers(sweeps: list[SweepRecord]) -> None:
    from graphbench.report.sweep import crossover_rows
    from graphbench.report.tables import simple_table

    for sweep in sweeps:
        columns, rows = crossover_rows(sweep)
        console().print(simple_table(f"crossover on device {sweep.device.index}", columns, rows))


def cmd_report(args) -> int:
    from graphbench.record.codec import read_record
    from graphbench.report.chart import sweep_panels, write_chart

    check_outputs(args)
    records = [(path, read_record(path)) for path in args.files]
    runs = [(p, r) for p, r in records if isinstance(r, RunRecord)]
    sweeps = [(p, r) for p, r in records if isinstance(r, SweepRecord)]
    if args.plot and len(sweeps) != 1:
        raise UsageError("--plot needs exactly one sweep record")
    markdown = show_runs(runs, args.verbose) + show_sweeps(sweeps)
    if args.plot:
        console().print(f"chart written to {write_chart(args.plot, sweep_panels(sweeps[0][1]))}",
                        style="dim")
    if args.markdown:
        write_text_atomic(args.markdown, "\n\n".join(markdown) + "\n")
    return EXIT_OK


def show_runs(runs: list[tuple[str, RunRecord]], verbose: bool) -> list[str]:
    """Print one run in full, or several side by side; return their markdown."""
    from graphbench.report.run import run_report, runs_side_by_side
    from graphbench.report.tables import markdown_table, simple_table

    if not runs:
        return []
    if len(runs) == 1:
        console().print(run_report(runs[0][1], verbose=verbose))
        show_ab(runs[0][1])
        return [markdown_table(*runs_side_by_side([runs[0][1]], [runs[0][0]]))]
    columns, rows = runs_side_by_side([r for _, r in runs], [Path(p).name for p, _ in runs])
    console().print(simple_table("records side by side", columns, rows))
    return [markdown_table(columns, rows)]


def show_ab(record: RunRecord) -> None:
    """An A/B record also shows its candidate build against its base build."""
    from graphbench.analyze.ab import compare_ab, is_ab
    from graphbench.report.compare import comparison_report

    if is_ab(record):
        console().print(comparison_report(compare_ab(record)))


def show_sweeps(sweeps: list[tuple[str, SweepRecord]]) -> list[str]:
    from graphbench.report.sweep import sweep_markdown, sweep_report

    for _, sweep in sweeps:
        console().print(sweep_report(sweep))
    return [sweep_markdown(sweep) for _, sweep in sweeps]



def cmd_kernels(args) -> int:
    from graphbench.measure.kernels import compile_report, validate_arch
    from graphbench.preflight import kernels_preflight
    from graphbench.report.kernels import kernels_table

    arch = validate_arch(args.arch)  # before NVRTC, whose log would say less
    required, source = kernels_preflight(args.pipeline, args.kernel_source, arch)
    console().print(kernels_table(compile_report(arch, source, required), arch))
    return EXIT_OK


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "report": cmd_report, "compare": cmd_compare,
            "kernels": cmd_kernels}
