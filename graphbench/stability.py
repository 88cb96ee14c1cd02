"""Stability warnings as data: each names what looks wrong, on which mode,
and what to do about it. A pure function of a record, so a saved record can
be re-assessed and every rule can be tested on data built to trigger it."""

from __future__ import annotations

from statistics import median

HIGH_CV = 0.10
OUTLIER_HIGH = 1.25   # max this many times the median
OUTLIER_LOW = 0.80    # min this fraction of the median
CLOCK_DROP = 0.90     # lowest SM clock seen below this fraction of the highest
MIN_ROUND_S = 1e-3    # a round under 1 ms is too close to timer and event resolution
HOST_SPEED_SPREAD = 1.15  # slowest host probe this many times the fastest


def _warning(code: str, subject: str, message: str, remedy: str) -> dict:
    return {"code": code, "subject": subject, "message": message, "remedy": remedy}


def mode_warnings(name: str, wall_us: list[float], iters: int) -> list[dict]:
    found, mid = [], median(wall_us)
    mean = sum(wall_us) / len(wall_us)
    if len(wall_us) > 1:
        stdev = (sum((x - mean) ** 2 for x in wall_us) / (len(wall_us) - 1)) ** 0.5
        if stdev / mean >= HIGH_CV:
            found.append(_warning("high-cv", name, f"{name}: wall time varies by "
                                  f"{stdev / mean:.0%} (CV) between rounds",
                                  "close other GPU and CPU work, or raise --iters"))
    if max(wall_us) >= OUTLIER_HIGH * mid or min(wall_us) <= OUTLIER_LOW * mid:
        found.append(_warning("outliers", name, f"{name}: rounds range {min(wall_us):.2f}.."
                              f"{max(wall_us):.2f} us around a median of {mid:.2f} us",
                              "the machine changed speed during sampling; run again or "
                              "raise --min-rounds"))
    if mid * iters / 1e6 < MIN_ROUND_S:
        found.append(_warning("short-round", name, f"{name}: a round lasts only "
                              f"{mid * iters:.0f} us, close to the timers' resolution",
                              f"raise --iters to at least {int(MIN_ROUND_S * 1e6 / mid) + 1}"))
    return found


def condition_warnings(conditions: list[dict]) -> list[dict]:
    found = []
    clocks = [c["sm_clock_mhz"] for c in conditions if c.get("sm_clock_mhz")]
    if clocks and min(clocks) < CLOCK_DROP * max(clocks):
        found.append(_warning("clock-drop", "device", f"SM clock fell from {max(clocks)} to "
                              f"{min(clocks)} MHz during sampling",
                              "the GPU changed speed (power or thermal management); let it "
                              "cool or check its cooling and power limits"))
    probes = [c["host_probe_us"] for c in conditions if c.get("host_probe_us")]
    if probes and max(probes) > HOST_SPEED_SPREAD * min(probes):
        found.append(_warning("host-speed", "host", f"the host CPU's speed changed during "
                              f"sampling: a fixed CPU probe took {min(probes):.0f}.."
                              f"{max(probes):.0f} us", "launch costs are CPU work and move with "
                              "it (other tenants, power management): use a quiet, dedicated "
                              "host, and compare runs made side by side"))
    reasons = sorted({r for c in conditions for r in c.get("throttle_reasons", [])})
    if reasons:
        found.append(_warning("throttled", "device", f"the driver reported clock throttling: "
                              f"{', '.join(reasons)}", "check cooling, power and other load"))
    return found


def record_warnings(record: dict) -> list[dict]:
    found = []
    iters = record["config"]["iters"]
    for name, entry in record["modes"].items():
        found += mode_warnings(name, entry["samples"]["wall_us"], iters)
    sampling = record.get("sampling", {})
    found += condition_warnings(sampling.get("conditions", []))
    others = record.get("environment", {}).get("other_gpu_processes")
    if others:
        found.append(_warning("other-processes", "device", f"{len(others)} other process(es) "
                              f"use this GPU (pids {', '.join(map(str, others))})",
                              "run graphbench on an idle GPU"))
    if sampling.get("stop_reason") == "time-budget":
        found.append(_warning("noise-target-missed", "sampling",
                              f"the time budget ran out with noise {sampling['noise']:.1%}, "
                              f"above the {sampling['max_noise']:.1%} target",
                              "raise --max-time, or quiet the machine"))
    return found
