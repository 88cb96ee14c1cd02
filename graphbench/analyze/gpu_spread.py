"""What separates physical GPUs of one model that run the same code: each
figure's relative sd from one GPU to the next, the systematic error a
comparison between two of them carries (graphbench.analyze.compare adds
sqrt(2) times it). Measured with unchanged code at 2^24 elements, one or
more processes a GPU (results/gpu_reference/); a model not measured here
gets the largest figure of the models that were."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    busy: float       # GPU busy time itself
    reference: float  # busy time over the GPU reference's stream copy


SPREADS = {
    # busy differed by up to 1.3% between two H200s (0.2-1.2% between five others);
    # over the stream copy six read 2.4862-2.5224 in two groups of busy (173.4 and
    # 175.6-175.9 us) that the copy does not follow: the last GPU's busy 1.4% above
    # the others', its copy 0.4%
    "NVIDIA H200": Spread(busy=0.0075, reference=0.006),
    # nine H100s: busy in two groups too (218.6-218.8 and 222.6-222.8 us: sd 0.9%),
    # which the copy follows: busy over it 2.2887-2.3052, within 0.46% of their
    # median (sd 0.25%)
    "NVIDIA H100 80GB HBM3": Spread(busy=0.009, reference=0.0025),
}
UNMEASURED = Spread(busy=max(s.busy for s in SPREADS.values()),
                    reference=max(s.reference for s in SPREADS.values()))


def spread_of(model: str) -> Spread:
    """The spread between physical GPUs of `model` (a device name as records keep it)."""
    return SPREADS.get(model, UNMEASURED)
