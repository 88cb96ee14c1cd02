"""Typed errors. Library code raises these; only the CLI prints them and
turns them into exit codes (0 ok, 1 failed check or regression, 2 usage,
environment or bad-file problem, 130 interrupted)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


# A message a person reads is one line of at most this many characters (the
# command line's error, an exception's str); the reasoning behind it, however
# long, is the error's `details`, which the CLI shows under -v.
LINE_LIMIT = 200
# Where a long message may be cut: after a clause, or before a parenthesis.
_CLAUSE_ENDS = ("; ", ": ", ". ", ", ", " (")
# A word longer than this (a path, a value pasted whole) is shown by its two
# ends: what is wrong usually comes after it, and a path's end names the file.
WORD_CHARS, WORD_HEAD = 40, 12


def first_line(exc: BaseException, named: bool = False) -> str:
    """An exception in one line: its message's first line, or its type's
    name where it says nothing; `named`: the type's name before the message."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    line = text.splitlines()[0]
    return f"{type(exc).__name__}: {line}" if named else line


def shortened(text: str, limit: int, more: str) -> str:
    """`text` if it is at most `limit` characters long. Else its longest
    words are cut in the middle until it fits with `more` (where to read
    the rest) after it; if that is not enough, it is also cut after its
    last clause that fits, at a word where no clause ends early enough."""
    if len(text) <= limit:
        return text
    room = max(limit - len(more), 0)
    squeezed = words_squeezed(text, room)
    if len(squeezed) <= room:
        return squeezed + more
    room = max(room - len(" ..."), 0)
    head = squeezed[:room]
    cut = max(head.rfind(end) + (end != " (") for end in _CLAUSE_ENDS)
    if cut < room // 2:  # a clause that short says nothing: cut at a word
        cut = head.rfind(" ") if head.rfind(" ") > room // 2 else room
    return f"{squeezed[:cut].rstrip(' ,;:.(')} ...{more}"


def words_squeezed(text: str, room: int) -> str:
    """`text` with its longest words cut in the middle, longest first, until
    it fits in `room` characters or no word is longer than WORD_CHARS."""
    words = text.split(" ")
    for i in sorted(range(len(words)), key=lambda i: -len(words[i])):
        if len(" ".join(words)) <= room or len(words[i]) <= WORD_CHARS:
            break
        words[i] = f"{words[i][:WORD_HEAD]}...{words[i][WORD_HEAD + 3 - WORD_CHARS:]}"
    return " ".join(words)


class GraphbenchError(Exception):
    """Base error: a short message, what the user can do about it, and the
    reasoning behind it (`details`: one line per reason, possibly long).

    str(exc) is the message cut to LINE_LIMIT characters; a message longer
    than that is kept whole at the head of `details`, so nothing said is
    lost."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, remedy: str = "", details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy
        whole = message if len(message) > LINE_LIMIT else ""
        self.details = "\n".join(part for part in (whole, details) if part)

    def __str__(self) -> str:
        return shortened(self.message, LINE_LIMIT, " (the rest in .details)")

    def one_line(self) -> str:
        return f"{self.message}; {self.remedy}" if self.remedy else self.message


class UsageError(GraphbenchError):
    """A bad argument or option value."""


class ConfigError(UsageError, ValueError):
    """A configuration field with a bad value. It names the field, not a
    flag: the CLI knows which flag sets it and says that instead. A
    ValueError too, so that msgspec, decoding a stored record, names the
    field's path in the record."""

    def __init__(self, field: str, problem: str, remedy: str = "") -> None:
        super().__init__(f"{field} {problem}", remedy)
        self.field = field
        self.problem = problem


class DeviceError(GraphbenchError):
    """No driver, no GPU, a device id out of range, or not enough memory."""


class CompileError(GraphbenchError):
    """NVRTC rejected a kernel; `log` holds the compiler output."""

    def __init__(self, message: str, log: str, remedy: str = "") -> None:
        super().__init__(message, remedy)
        self.log = log


class RecordError(GraphbenchError):
    """A result record that cannot be read: missing, corrupt, of an unknown
    schema, or with a field of the wrong type (the message names its path)."""


class OutputError(GraphbenchError):
    """An output that could not be written: a full disk, an I/O error, a
    closed or full standard output. A file that was there is left as it was
    (see graphbench.record.files for the one write that cannot promise it)."""


class VerificationError(GraphbenchError):
    """A record whose results were wrong: a failure (exit 1) whatever its
    speed, so it is never judged. `check` is the first failed check."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, check, remedy: str = "") -> None:
        super().__init__(message, remedy)
        self.check = check


class HistoryError(GraphbenchError):
    """The results history could not be opened, read or written, or a
    reference to a stored record names none (graphbench.history)."""
