"""What a replay check recorded: the capture's facts, and per case each
output's comparison of the replay with eager execution on the same inputs.
A typed record that round-trips through JSON (msgspec checks every field on
the way back, so a hand-edited file fails with the field's path)."""

from __future__ import annotations

import msgspec

from graphbench.replay.plan import PERTURBATIONS

SCHEMA_VERSION = 1


class OutputOutcome(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One output after one replay: of its `elements`, how many differ from
    eager on the same inputs (`wrong`), of those how many equal the captured
    run's value (`stale`), and how many still hold the poison written before
    the replay (`unwritten`)."""

    name: str
    elements: int
    wrong: int
    stale: int = 0
    unwritten: int = 0


class CaseOutcome(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One case (graphbench.replay.plan.Case) as it ran. Kernels by name, as
    CUPTI listed them (None where it was not available); `replay_repeated`
    and `eager_repeated`, in a same-inputs case: whether the second run gave
    the first's outputs bit for bit."""

    case: int
    perturbation: str
    repeat: int
    outputs: tuple[OutputOutcome, ...]
    eager_kernels: tuple[str, ...] | None = None
    replay_kernels: tuple[str, ...] | None = None
    replay_repeated: bool | None = None
    eager_repeated: bool | None = None
    scalars: dict[str, float] = {}  # the scalars' values in this case, where varied


class CaptureFacts(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the capture itself showed; None: not observable here."""

    captured: bool
    error: str = ""                      # why it could not be captured
    allocated_bytes: int | None = None   # allocations made while capturing
    side_stream_work: int | None = None  # operations left on streams not joined to it
    host_syncs: int | None = None        # host synchronisations or reads inside the callable
    pageable_copies: int | None = None   # copies from pageable host memory it captured
    scalars: dict[str, float] = {}       # the scalars' values at capture


class ReplayRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    callable: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    sizes: tuple[str, ...]
    capture: CaptureFacts
    cases: tuple[CaseOutcome, ...]
    schema_version: int = SCHEMA_VERSION


def encode(record: ReplayRecord) -> bytes:
    return msgspec.json.encode(record)


def decode(data: bytes | str) -> ReplayRecord:
    """The record from its JSON; ValueError naming the field that is wrong."""
    try:
        record = msgspec.json.decode(data, type=ReplayRecord)
    except msgspec.DecodeError as exc:  # ValidationError is one: its text names the field
        raise ValueError(f"not a replay-check record: {exc}") from None
    if record.schema_version != SCHEMA_VERSION:
        raise ValueError(f"replay-check record version {record.schema_version}: this "
                         f"graphbench reads version {SCHEMA_VERSION}")
    unknown = sorted({c.perturbation for c in record.cases} - set(PERTURBATIONS))
    if unknown:
        raise ValueError(f"unknown perturbation {unknown[0]!r} in a replay-check record")
    return record
