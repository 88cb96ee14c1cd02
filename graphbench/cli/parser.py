"""The command-line parsers. Options that set a configuration field are
built from that field (graphbench.config): its flag, parser, default and
help are written once, there."""

from __future__ import annotations

import argparse
import dataclasses

from graphbench._version import __version__
from graphbench.cli.completion import EPILOG, add_completion
from graphbench.cli.help import (COMPARE_EXAMPLES, KERNELS_EXAMPLES, REPLAY_EXAMPLES,
                                 REPORT_EXAMPLES, RUN_EXAMPLES, SWEEP_EXAMPLES)
from graphbench.cli.history import (REFERENCES, add_history, add_history_option,
                                    add_save_options)
from graphbench.config.values import (PARSERS, StoreGiven, StoreParam, parse_int,
                                     parse_positive_int, parse_processes, parse_record_path)
from graphbench.config import RUN, SWEEP, RunConfig, SweepConfig, cli_default, cli_fields
from graphbench.errors import UsageError
from graphbench.replay.plan import MAX_REPEATS, REPEATS
from graphbench.report.outputs import outputs_for


METAVARS = {"count": "N", "int": "N", "float": "X", "fraction": "PCT", "seconds": "SECONDS",
            "list": "LIST", "grid": "GRID", "devices": "IDS", "path": "FILE",
            "grids": "GRIDS", "blocks": "THREADS"}


MAX_VALUE = 1000  # characters of an option's value (of each item of a list), a path aside


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line, exit 2) instead of printing usage."""

    def error(self, message: str):
        raise UsageError(message, f"see {self.prog} --help")

    def _get_values(self, action, arg_strings):
        """A value of `--` (`--elements=--`) is read as the text it is:
        argparse drops it and stores [] unparsed, which nothing expects. A
        value longer than any setting's (not a path) is refused by its
        length, not echoed whole in the error."""
        long = [n for n in (len(item) for text in arg_strings for item in text.split(","))
                if n > MAX_VALUE]  # a list's items: 100,000 stages are counted where refused
        if long and action.option_strings and "FILE" not in str(action.metavar):
            raise UsageError(f"{action.option_strings[0]} is given {long[0]:,} characters, "
                             f"more than any of its values has", f"see {self.prog} --help")
        if action.nargs is None and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value
        return super()._get_values(action, arg_strings)


def add_config_option(parser, f: dataclasses.Field, command: str) -> None:
    """One option from one configuration field."""
    meta, default = f.metadata, cli_default(f, command)
    help_text = meta["helps"].get(command, meta["help"]).format(default=default)
    if meta["parse"] == "flag":
        parser.add_argument(meta["flag"], dest=f.name, action="store_true", help=help_text)
    elif meta["parse"] == "no-flag":
        parser.add_argument(meta["flag"], dest=f.name, action="store_false", help=help_text)
    else:
        read, flag = PARSERS[meta["parse"]], meta["flag"]
        action = StoreParam if meta["parse"] in ("param", "params") else StoreGiven
        parser.add_argument(flag, dest=f.name, type=lambda text: read(text, flag), action=action,
                            default=[default] if meta["parse"] == "devices" else default,
                            metavar=meta.get("metavar") or METAVARS[meta["parse"]], help=help_text)


def add_config_options(parser, command: str, *classes) -> None:
    for cls in classes:
        for f in cli_fields(cls, command):
            add_config_option(parser, f, command)


def _count(option: str):
    return lambda text: parse_positive_int(text, option)


def _record(option: str):
    return lambda text: parse_record_path(text, option)


def _subcommand(commands, name: str, help_text: str, description: str, epilog: str):
    return commands.add_parser(name, help=help_text, description=description, epilog=epilog,
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def add_outputs(parser, command: str) -> None:
    """Every output format this command writes, its flag and help from the
    registry (graphbench.report.outputs)."""
    from graphbench.cli.outputs import COMMAND_KINDS

    for output, kind in outputs_for(COMMAND_KINDS[command]):
        parser.add_argument(output.flag, metavar="FILE", help=output.renders[kind].help)


def add_quiet(parser) -> None:
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors "
                        "(and a failed gate's decision); outputs are still written")


def add_gate_options(parser) -> None:
    parser.add_argument("--fail-on", action="append", type=_spec, metavar="SPEC", default=None,
                        help="gate on METRIC:THRESHOLD, e.g. speedup:5%%, graph.wall:10%%, "
                        "individual.wall:0.5us (repeatable; replaces the default gate)")


def _spec(text: str):
    from graphbench.gate.specs import parse_spec

    return parse_spec(text)


def add_run(commands) -> None:
    run = _subcommand(commands, "run", "benchmark the pipeline on a GPU",
                      "Benchmark the pipeline: verify every mode, then time interleaved rounds "
                      "of each and report medians with their spread.", RUN_EXAMPLES)
    add_config_options(run, RUN, RunConfig)
    run.add_argument("--processes", type=parse_processes, default=1, metavar="N",
                     help="run in N fresh processes one after another and merge their rounds, "
                     "so the noise includes the spread between processes (use for baselines)")
    add_outputs(run, "run")
    run.add_argument("--no-progress", action="store_true", help="no progress display")
    run.add_argument("--verbose", "-v", action="store_true",
                     help="also show where the time goes and every one-off cost; on an "
                     "error, the full reasoning behind it")
    run.add_argument("--profile", action="store_true", help="profiling run: 20 iterations "
                     "of each rung between cuProfilerStart and cuProfilerStop, in NVTX ranges, "
                     "no timing and no record; prints the nsys and ncu command lines")
    run.add_argument("--baseline", metavar="FILE", type=_record("--baseline"),
                     help="after the run, compare with this "
                     "record and gate on it (exit 1 on a regression)")
    add_gate_options(run)
    add_save_options(run)
    add_quiet(run)


def add_sweep(commands) -> None:
    sweep = _subcommand(commands, "sweep", "benchmark a grid of sizes and pipeline depths",
                        "Run the benchmark over elements x depth, find where the graph speedup "
                        "fades, and chart it.", SWEEP_EXAMPLES)
    add_config_options(sweep, SWEEP, SweepConfig, RunConfig)
    add_outputs(sweep, "sweep")
    sweep.add_argument("--no-progress", action="store_true", help="no progress display")
    add_quiet(sweep)


def add_report(commands) -> None:
    report = _subcommand(commands, "report", "render saved run or sweep records",
                         "Render saved records as the live run printed them; several run "
                         "records side by side.", REPORT_EXAMPLES)
    report.add_argument("files", nargs="+", metavar="FILE", type=_record("FILE"),
                        help="records written with --json")
    add_outputs(report, "report")
    report.add_argument("--verbose", "-v", action="store_true", help="every detail of a run; "
                        "on an error, the full reasoning behind it")
    add_quiet(report)


def add_compare(commands) -> None:
    compare = _subcommand(commands, "compare", "compare two result records (a CI gate)",
                          "Compare a current record with a baseline, metric by metric, and fail "
                          "on a significant regression.", COMPARE_EXAMPLES + "\n" + REFERENCES)
    compare.add_argument("baseline", type=_record("BASELINE"),
                         help="baseline record (graphbench run --json), or one A/B "
                         "record (graphbench run --ab), or a stored record: last, a commit, "
                         "a branch (references, below)")
    compare.add_argument("current", nargs="?", type=_record("CURRENT"),
                         help="current record (none for an A/B record), or a stored one")
    add_outputs(compare, "compare")
    add_history_option(compare)
    add_gate_options(compare)
    add_quiet(compare)


def add_kernels(commands) -> None:
    kernels = _subcommand(commands, "kernels", "compile every kernel offline (no GPU needed)",
                          "Compile every kernel with NVRTC for an arch and print registers and "
                          "spills. Needs no GPU or driver.", KERNELS_EXAMPLES)
    kernels.add_argument("--arch", default="sm_90", help="target such as sm_80, sm_90, sm_100 "
                         "(default sm_90)")
    kernels.add_argument("--kernel-source", metavar="FILE",
                         help="check this .cu file instead of the pipeline's own kernels")
    kernels.add_argument("--pipeline", metavar="FILE|NAME",
                         help="the pipeline file (or shipped pipeline) whose kernels to compile "
                         "(default: the built-in add,mul,sub)")
    params = next(f for f in dataclasses.fields(RunConfig) if f.name == "params")
    add_config_option(kernels, params, RUN)  # --param, as run passes it to pipeline()
    add_quiet(kernels)


def add_replay(commands) -> None:
    replay = _subcommand(commands, "replay", "prove a captured graph replays right on new data",
                         "Capture a torch or CuPy pipeline once, replay it under a battery of new "
                         "inputs, poison and repeats, and compare every replay with eager "
                         "execution.", REPLAY_EXAMPLES)
    replay.add_argument("--pipeline", metavar="FILE|NAME", required=True,
                        help="a callable (torch or CuPy) pipeline file, or a shipped one "
                        "(torch_mlp, cupy_chain)")
    replay.add_argument("--elements", type=lambda t: parse_positive_int(t, "--elements"),
                        default=4096, metavar="N", help="the pipeline's size n (default 4096)")
    replay.add_argument("--repeats", type=lambda t: parse_positive_int(t, "--repeats"),
                        default=REPEATS, metavar="N", help=f"each case this many times, "
                        f"interleaved (default {REPEATS}, at most {MAX_REPEATS})")
    replay.add_argument("--seed", type=lambda t: parse_int(t, "--seed"), default=1,
                        metavar="N", help="the random inputs' seed (default 1)")
    params = next(f for f in dataclasses.fields(RunConfig) if f.name == "params")
    add_config_option(replay, params, RUN)
    add_outputs(replay, "replay")
    add_quiet(replay)


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="graphbench", epilog=EPILOG,  # the epilog's command: one line
                            formatter_class=argparse.RawDescriptionHelpFormatter, description=(
        "Measure what CUDA Graphs buy on this GPU: a chain of kernels (built in: r1 = a + b,\n"
        "r2 = r1 * c, r3 = r2 - a; or --pipeline FILE) run as individual launches, as one\n"
        "replayed graph, as one fused kernel and on every other rung of the launch ladder,\n"
        "every result checked against CuPy."))
    parser.add_argument("--version", action="version", version=f"graphbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    for add in (add_run, add_sweep, add_report, add_compare, add_kernels, add_replay,
                add_history, add_completion):
        add(commands)
    for command in commands_of(parser):
        if "--verbose" not in command._option_string_actions:
            command.add_argument("--verbose", "-v", action="store_true",
                                 help="on an error, the full reasoning behind it")
    return parser


def commands_of(parser) -> list:
    """Every command's own parser, an action's (history list) rather than
    the group's: the options of the command a user types."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found += commands_of(sub) or [sub]
    return found
