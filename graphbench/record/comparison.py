"""The gate's result as a typed record: one verdict per metric."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    metric: str
    verdict: str
    gated: bool
    threshold: str
    baseline: float | None = None
    current: float | None = None
    change: float | None = None       # relative, current vs baseline
    p_value: float | None = None
    detectable: float | None = None   # the smallest relative change this pair can detect
    note: str = ""


@dataclass(frozen=True)
class Comparison:
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...]
    incompatible: tuple[str, ...]

    @property
    def regressions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.gated and v.verdict == "slower"]

    @property
    def unjudged(self) -> list[Verdict]:
        """Gated metrics one record lacks: they cannot be judged, so no PASS."""
        return [v for v in self.verdicts if v.gated and v.verdict == "missing"]

    @property
    def passed(self) -> bool:
        return not self.regressions and not self.incompatible and not self.unjudged
