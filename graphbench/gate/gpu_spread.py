"""What separates physical GPUs of one model that run the same code: each
figure's relative sd from one GPU to the next, the systematic error a
comparison between two of them carries (graphbench.gate.compare adds
sqrt(2) times it). Measured with unchanged code at 2^24 elements, one or
more processes a GPU (results/gpu_reference/; the readings behind each
figure: docs/measurement.md#physical-gpus-of-one-model); a model not
measured here gets the largest figure of the models that were."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spread:
    busy: float       # GPU busy time itself
    reference: float  # busy time over the GPU reference's stream copy


SPREADS = {
    # busy falls in two groups that the stream copy does not follow, so the
    # figure over the reference stays nearly as wide as busy itself
    "NVIDIA H200": Spread(busy=0.0075, reference=0.006),
    # busy in two groups too, which the copy follows: busy over the reference
    # spreads far less than busy itself
    "NVIDIA H100 80GB HBM3": Spread(busy=0.009, reference=0.0025),
}
UNMEASURED = Spread(busy=max(s.busy for s in SPREADS.values()),
                    reference=max(s.reference for s in SPREADS.values()))


def spread_of(model: str) -> Spread:
    """The spread between physical GPUs of `model` (a device name as records keep it)."""
    return SPREADS.get(model, UNMEASURED)
