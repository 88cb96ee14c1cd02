"""Typed errors. Library code raises these; only the CLI prints them and
turns them into exit codes (0 ok, 1 failed check or regression, 2 usage or
environment problem, 130 interrupted)."""

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


class DeviceError(GraphbenchError):
    """No driver, no GPU, a device id out of range, or not enough memory."""


class CompileError(GraphbenchError):
    """NVRTC rejected a kernel; `log` holds the compiler output."""

    def __init__(self, message: str, log: str, remedy: str = "") -> None:
        super().__init__(message, remedy)
        self.log = log


class RecordError(GraphbenchError):
    """A result record that cannot be read: missing, corrupt, or of an unknown schema."""


class VerificationError(GraphbenchError):
    """A mode produced wrong results."""

    exit_code = EXIT_FAILED
