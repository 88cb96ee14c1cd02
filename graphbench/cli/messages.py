"""What a person reads of an error: at most two lines of at most
LINE_LIMIT characters each, whatever the error says. A message that does
not fit is cut at a clause and says "(-v for details)"; under -v the whole
message, the remedy and every line of the error's details are printed, as
long as they are."""

from __future__ import annotations

from graphbench.errors import (LINE_LIMIT, ConfigError, GraphbenchError, shortened,
                               words_squeezed)

PREFIX = "graphbench: error: "
REMEDY_PREFIX = "graphbench: what to do: "  # the second line, where the first has no room
MORE = " (-v for details)"
VERBOSE_FLAGS = ("-v", "--verbose")


def parts(exc: GraphbenchError) -> tuple[str, str]:
    """(message, remedy), each printable on one line; a configuration field
    is named by its flag. A newline a user typed (in a path, an option
    value) is shown as \\n, and every other control character (a key of a
    hostile record named in a field's path) as its escape."""
    from graphbench.record.printable import printable

    message = exc.message
    if isinstance(exc, ConfigError):
        from graphbench.config import flag_for

        message = f"{flag_for(exc.field) or exc.field} {exc.problem}"
    return printable(message), printable(exc.remedy)


def error_line(exc: GraphbenchError, limit: int = LINE_LIMIT - len(PREFIX)) -> str:
    """The error as one line of at most `limit` characters (a child process
    of run --processes writes it; its parent reads one line)."""
    message, remedy = parts(exc)
    line = f"{message}; {remedy}" if remedy else message
    return shortened(line, limit, MORE if exc.details else "")


def error_lines(exc: GraphbenchError, verbose: bool = False) -> list[str]:
    """The lines the command line prints for `exc` (PREFIX included): one
    where the message and remedy fit, else the message and the remedy on
    a line each, each shortened to fit."""
    from graphbench.record.printable import printable

    message, remedy = parts(exc)
    if verbose:
        details = [f"  {printable(line)}" for line in exc.details.splitlines() if line.strip()]
        return [PREFIX + (f"{message}; {remedy}" if remedy else message), *details]
    room, tail = LINE_LIMIT - len(PREFIX), f"; {remedy}" if remedy else ""
    cut = len(message) > room or len(REMEDY_PREFIX + remedy) > LINE_LIMIT
    more = MORE if exc.details or cut else ""
    if len(PREFIX + message + more + tail) <= LINE_LIMIT:
        return [PREFIX + message + more + tail]
    squeezed = words_squeezed(message, room - len(MORE + tail))  # a long path's middle
    if len(PREFIX + squeezed + MORE + tail) <= LINE_LIMIT:
        return [PREFIX + squeezed + MORE + tail]
    first = PREFIX + shortened(message, room - len(more), "") + more
    if not remedy:
        return [first]
    return [first, REMEDY_PREFIX + shortened(remedy, LINE_LIMIT - len(REMEDY_PREFIX), "")]


def verbose_asked(args, argv: list[str]) -> bool:
    """-v given: from the parsed options where parsing got that far, else
    from the words typed (an option parsing refused may come before it)."""
    if args is not None:
        return bool(getattr(args, "verbose", False))
    return any(word in VERBOSE_FLAGS for word in argv)
