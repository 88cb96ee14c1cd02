"""Typed errors. Library code raises these; only the CLI prints them and
turns them into exit codes (0 ok, 1 failed check or regression, 2 usage,
environment or bad-file problem, 130 interrupted)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class GraphbenchError(Exception):
    """Base error: a one-line message plus what the user can do about it."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, remedy: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy

    def one_line(self) -> str:
        return f"{self.message}; {self.remedy}" if self.remedy else self.message


class UsageError(GraphbenchError):
    """A bad argument or option value."""


class ConfigError(UsageError):
    """A configuration field with a bad value. It names the field, not a
    flag: the CLI knows which flag sets it and says that instead."""

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
