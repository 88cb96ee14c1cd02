"""The sub-commands: validated config -> one library call -> render -> exit code."""

from __future__ import annotations

import sys
from dataclasses import replace

from graphbench.cli import outputs
from graphbench.cli.attribution import show_attribution
from graphbench.cli.gate import gate
from graphbench.cli.history import cmd_history, open_for_save, save_run
from graphbench.cli.outputs import check_outputs, write_outputs
from graphbench.cli.progress import console, round_progress, show_progress, sweep_progress
from graphbench.config import RUN, SWEEP, RunConfig, SweepConfig, cli_fields
from graphbench.errors import EXIT_FAILED, EXIT_OK, UsageError
from graphbench.cli.shapes import first_shape, run_shapes
from graphbench.config.values import check_conflicts
from graphbench.runner import check_run
from graphbench.preflight import check_configs
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.record.output_paths import is_stream_output, per_device_path, standard_stream
from graphbench.record.printable import printable
from graphbench.report.outputs import COMPARISON, OUTPUTS, RUN, SWEEP, outputs_for, record_text


def run_config(args, command: str = RUN, **changes) -> RunConfig:
    """The RunConfig the options of `command` describe (device: the first asked for)."""
    values = {f.name: getattr(args, f.name) for f in cli_fields(RunConfig, command)
              if f.name != "device"}
    values.update(first_shape(args))  # --grid and --block lists: the first shape
    first_device = 0 if args.device == "all" else args.device[0]
    return RunConfig(**{**values, "device": first_device, **changes})


def sweep_config(args) -> SweepConfig:
    values = {f.name: getattr(args, f.name) for f in cli_fields(SweepConfig, SWEEP)}
    return SweepConfig(**values, base=run_config(args, SWEEP))


def cmd_run(args) -> int:
    base = run_config(args)  # bad options fail before the driver is asked
    if args.profile:
        from graphbench.cli.profile import cmd_profile

        return cmd_profile(args, base)
    return run_shapes(args, run_each)  # one run per launch shape (one, unless --grid/--block list)


def checked_run(args) -> tuple[RunConfig, RunRecord | None, list[int]]:
    """The run's configuration, its baseline and devices, everything checked
    before the driver is asked to run anything."""
    from graphbench.record.codec import read_run

    base = run_config(args)
    gated = [o for o, kind in outputs_for((RUN, COMPARISON)) if kind == COMPARISON]
    if not (args.baseline or base.ab_source) and (args.fail_on or any(
            getattr(args, o.name) for o in gated)):
        raise UsageError(f"--fail-on and {' and '.join(o.flag for o in gated)} need "
                         "--baseline FILE or --ab BASE.cu")
    if args.baseline and base.ab_source:
        raise UsageError("--ab gates against its own base build; leave out --baseline")
    if args.timeline and not base.attribute:
        raise UsageError("--timeline draws the --attribute trace", "add --attribute")
    check_conflicts(args)
    check_run(base, args.processes)  # the pipeline file, its sizes and the kernel sources
    baseline = read_run(args.baseline) if args.baseline else None  # fail before running
    open_for_save(args)  # run --save: the history opened before running
    return base, baseline, checked_devices(args)


def run_each(args) -> tuple[list[RunRecord], int]:
    """The run on every device asked for: its records and exit code."""
    from graphbench.report.run import failure_text, run_report, runs_side_by_side
    from graphbench.report.tables import simple_table

    base, baseline, devices = checked_run(args)
    records, exit_code = [], EXIT_OK
    for device in devices:
        try:
            record = measured(replace(base, device=device), args.processes, _progress(args))
        except KeyboardInterrupt:
            print("graphbench: run interrupted before it finished: no record written",
                  file=sys.stderr)
            raise
        records.append(record)
        console().print(run_report(record, verbose=args.verbose))
        show_attribution(record)
        write_outputs(args, RUN, record, lambda path: per_device_path(path, device, len(devices)))
        save_run(args, record)
        for check in (c for c in record.checks if not c.passed):
            print(f"graphbench: verification failed: {failure_text(check)}", file=sys.stderr)
        if not all(point.verified for point in (record, *record.gate_points)):
            exit_code = EXIT_FAILED
        elif baseline is not None or base.ab_source:
            exit_code = max(exit_code, gate(baseline, record, args, args.baseline,
                                            args.json or "this run", lambda path:
                                            per_device_path(path, device, len(devices))))
    if len(records) > 1:
        names = [f"device {r.device.index}" for r in records]
        console().print(simple_table("devices side by side", *runs_side_by_side(records, names)))
    return records, exit_code


def checked_devices(args) -> list[int]:
    """The devices to run on, with every output path checked for them: before
    the driver is asked, unless `all` leaves the list to the driver."""
    if args.device != "all":
        check_outputs(args, args.device)
        return args.device
    devices = resolve_devices(args.device)
    check_outputs(args, devices)
    return devices


def _progress(args) -> bool:
    return show_progress(args.no_progress)


def measured(config: RunConfig, processes: int, show_progress: bool) -> RunRecord:
    """The library's run (graphbench.runner, as the API's), with a progress bar."""
    from graphbench.runner import measure

    return measure(config, processes,
                   lambda total, unit: round_progress(total, show_progress, unit))


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
    """One device's sweep, its record rewritten after every point (a stream
    gets it once, at the end); on Ctrl-C, say what was kept."""
    from graphbench.runner import measure_one
    from graphbench.measure.sweep import run_sweep

    saved: list[SweepRecord] = []
    once = bool(path) and is_stream_output(path)

    def keep(record: SweepRecord) -> None:
        saved[:] = [record]
        if path and not once:
            outputs.write(path, record_text(record))

    try:
        with sweep_progress(len(config.points()), show_progress) as on_point:
            # the first point in this process, the others each in a fresh one (measure_one)
            sweep = run_sweep(config, measure_one, save=keep, on_point=on_point)
    except KeyboardInterrupt:
        done = len(saved[0].points) if saved else 0
        if once and saved:
            outputs.write(path, record_text(saved[0]))
        where = f"; {path} keeps them" if path and done else \
            " (nothing written)" if path else " (no --json: nothing written)"
        print(f"graphbench: sweep interrupted after {done} of {len(config.points())} "
              f"points{where}", file=sys.stderr)
        raise
    if once:
        outputs.write(path, record_text(sweep))
    return sweep


def show_sweep(sweep: SweepRecord, args, device: int, devices: int, path: str | None) -> None:
    """The sweep's report, and every output but its record (kept as it went: sweep_device)."""
    from graphbench.report.sweep import sweep_report

    console().print(sweep_report(sweep))
    if path and standard_stream(path) is None:
        console().print(f"{OUTPUTS['json'].renders[SWEEP].noun} written to "
                        f"{printable(str(path))}", style="dim")
    write_outputs(args, SWEEP, sweep, lambda out: per_device_path(out, device, devices),
                  skip=("json",))


def show_crossovers(sweeps: list[SweepRecord]) -> None:
    from graphbench.report.sweep import crossover_rows
    from graphbench.report.tables import simple_table

    for sweep in sweeps:
        columns, rows = crossover_rows(sweep)
        console().print(simple_table(f"crossover on device {sweep.device.index}", columns, rows))


def cmd_completion(args) -> int:
    """graphbench completion SHELL: the script, on standard output."""
    from graphbench.cli.completion import completion_script
    from graphbench.cli.parser import build_parser

    sys.stdout.write(completion_script(args.shell, build_parser()))
    return EXIT_OK


from graphbench.cli.reading import cmd_compare, cmd_kernels, cmd_report  # noqa: E402
from graphbench.cli.replay import cmd_replay  # noqa: E402

COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "report": cmd_report, "compare": cmd_compare,
            "kernels": cmd_kernels, "replay": cmd_replay, "history": cmd_history,
            "completion": cmd_completion}
