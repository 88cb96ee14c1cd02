"""The gate's result as a typed record: one verdict per metric."""

from __future__ import annotations

from dataclasses import dataclass

JUDGED = ("faster", "same", "changed", "slower")  # verdicts on a metric that was judged


@dataclass(frozen=True)
class Verdict:
    metric: str
    verdict: str
    gated: bool
    threshold: str
    baseline: float | None = None
    current: float | None = None
    change: float | None = None       # relative, current vs baseline
    p_value: float | None = None      # unused since schema 3 of compare records
    detectable: float | None = None   # the smallest threshold the pair can gate
    note: str = ""
    change_low: float | None = None   # the 99% interval of the relative change
    change_high: float | None = None
    scope: str = ""                   # what that interval covers
    # the A/A resolution: a `changed` verdict needs |change| above it (records
    # written before it was stated lack it: None)
    resolution: float | None = None


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
    def judged(self) -> list[Verdict]:
        """Gated metrics that got a verdict: a gate that judged none has not passed."""
        return [v for v in self.verdicts if v.gated and v.verdict in JUDGED]

    @property
    def passed(self) -> bool:
        return (not self.regressions and not self.incompatible and not self.unjudged
                and bool(self.judged))
