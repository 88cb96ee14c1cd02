"""Command line: parse -> validated config -> one library call -> render ->
exit code. This package is the only place that prints or exits."""

from __future__ import annotations

import errno
import sys

from graphbench.cli.messages import error_line, error_lines, verbose_asked
from graphbench.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CompileError, GraphbenchError

__all__ = ["error_line", "main"]


GPU_COMMANDS = ("run", "sweep")
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)  # a full or failing disk


def main(argv: list[str] | None = None) -> int:
    """The command line; a caller's process (a test calling main) is left as
    it was found: graphbench.process_state."""
    from graphbench.process_state import kept

    with kept():
        return _main(sys.argv[1:] if argv is None else argv)


def _main(argv: list[str]) -> int:
    from graphbench.cli.progress import route

    route(report_to_stderr=False, quiet=False)  # main may run many times in one process
    args = None
    try:
        from graphbench.cli.commands import COMMANDS
        from graphbench.cli.parser import build_parser
        from graphbench.cli.project_defaults import with_project_defaults

        parser = build_parser()
        args = parse(parser, with_project_defaults(argv, parser))
        args.argv = list(argv)  # run --profile prints the command lines that repeat them
        if not args.command:
            build_parser().print_help()
            return EXIT_OK
        from graphbench.cli.outputs import start

        start(args)  # where the console goes; every output path that needs no device count
        return COMMANDS[args.command](args)
    except CompileError as exc:
        return _compile_failed(exc)
    except GraphbenchError as exc:
        print("\n".join(error_lines(exc, verbose_asked(args, argv))), file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # a reader such as `head` left early: say so, no traceback
        _drop_stdout()
        print("graphbench: error: standard output was closed before everything was written",
              file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # the report itself could not be printed: a full standard output
        if exc.errno not in WRITE_ERRORS:
            raise
        return _report_unwritten(exc)
    except KeyboardInterrupt:
        gpu = bool(argv) and argv[0] in GPU_COMMANDS
        print(f"graphbench: interrupted{'; GPU resources released' if gpu else ''}",
              file=sys.stderr)
        return EXIT_INTERRUPTED


def _compile_failed(exc: CompileError) -> int:
    """The error line, then the compiler's log: its own lines kept, any other
    control character (an escape sequence quoted from a source line) written
    as its escape."""
    from graphbench.record.printable import printable

    print(f"graphbench: error: {error_line(exc)}", file=sys.stderr)
    print("\n".join(printable(line) for line in exc.log.splitlines()), file=sys.stderr)
    return exc.exit_code


def _report_unwritten(exc: OSError) -> int:
    from graphbench.record.files import write_failed

    _drop_stdout()
    print(f"graphbench: error: {error_line(write_failed('the report', exc))}", file=sys.stderr)
    return EXIT_USAGE


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush cannot fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _dash_values_attached(argv: list[str]) -> list[str]:
    """`--grid -1/sm` as `--grid=-1/sm`: argparse takes a value that starts
    with a dash for an option unless it is a plain negative number, and then
    says the option "expected one argument" instead of what is wrong with
    the value. No option of graphbench's starts with a dash and a digit."""
    out: list[str] = []
    for token in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and len(token) > 1 \
                and token[0] == "-" and token[1].isdigit():
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def parse(parser, argv: list[str]):
    """argparse reports a sub-command's unknown option through the top-level
    parser; point the user at the sub-command's own help instead."""
    from graphbench.cli.suggest import subparser, unknown_command_hint, unknown_option_hint
    from graphbench.errors import UsageError

    try:
        return parser.parse_args(_dash_values_attached(argv))
    except UsageError as exc:
        command = next((a for a in argv if not a.startswith("-")), None)
        own = subparser(parser, command)
        hint = unknown_option_hint(exc.message, own or parser) or \
            unknown_command_hint(exc.message, parser)
        message = f"{exc.message} ({hint})" if hint else exc.message
        if own is not None and exc.remedy == "see graphbench --help":
            raise UsageError(message, f"see graphbench {command} --help") from None
        raise UsageError(message, exc.remedy) from None
