"""Reading schema version 1, the layout graphbench wrote before the typed
model: nested dicts with stored statistics. `upgrade` keeps only what was
measured (configuration and raw samples) in the version-2 layout; the
statistics are derived again on load, exactly as version 1 derived them.
The committed records under results/v1/ are version 1.
"""

from __future__ import annotations

from graphbench.errors import RecordError

EXTRA_SECTIONS = ("launch_floor", "graph_lifecycle", "graph_update")


def upgrade(data: dict, source: str) -> dict:
    if data["schema"] == "graphbench/sweep":
        return _upgrade_sweep(data, source)
    return _upgrade_run(data, source)


def _take(data, *keys):
    """data[k1][k2]..., or RecordError naming the version-1 path."""
    value, path = data, ""
    for key in keys:
        path = f"{path}.{key}" if path else str(key)
        if not isinstance(value, dict) or key not in value:
            raise RecordError(f"{path}: required field is missing (schema version 1)")
        value = value[key]
    return value


def _upgrade_sweep(data: dict, source: str) -> dict:
    config = _take(data, "config")
    points = _take(data, "points")
    if not isinstance(points, list):
        raise RecordError("points: expected a list (schema version 1)")
    return {**data, "config": {"elements": _take(config, "elements"),
                               "depths": _take(config, "depths"),
                               "threshold": _take(config, "threshold"),
                               "base": _take(config, "run")},
            "points": [_upgrade_run(p, f"{source} point {i}") for i, p in enumerate(points)]}


def _upgrade_run(data: dict, source: str) -> dict:
    for key in ("tool", "device", "config", "modes", "verification"):
        _take(data, key)
    sampling = data.get("sampling") or {}
    if not isinstance(sampling, dict):
        raise RecordError(f"sampling: must be an object, got {type(sampling).__name__} "
                          "(schema version 1)", "give a record graphbench wrote")
    merged = sampling.get("processes", 1) > 1
    upgraded = {key: data.get(key) for key in ("tool", "created", "host", "packages", "device",
                                               "config", "pipeline")}
    upgraded["runs"] = [_run(data, sampling, merged)]
    if merged:
        upgraded["legacy_processes"] = {"count": sampling["processes"],
                                        "medians": sampling.get("per_process_medians", {})}
    return upgraded


def _run(data: dict, sampling: dict, merged: bool) -> dict:
    run = {"seed": _take(data, "config", "seed"), "rounds": sampling.get("rounds", 0),
           "stop_reason": sampling.get("stop_reason", ""),
           "elapsed_s": sampling.get("elapsed_s", 0.0), "sampling_s": sampling.get("sampling_s"),
           "modes": {name: _mode(_take(data, "modes", name, "samples"), name)
                     for name in data["modes"]},
           "conditions": [_condition(c) for c in sampling.get("conditions", [])],
           "checks": [_check(c) for c in _take(data, "verification", "checks")],
           "environment": {} if merged else data.get("environment", {})}
    for section in EXTRA_SECTIONS:
        entries = data.get(section) or {}
        samples = {key: entry["samples"] for key, entry in entries.items()
                   if isinstance(entry, dict) and "samples" in entry}
        run[section] = samples or None
    return run


def _workload(mode: str) -> str:
    return "fused" if mode == "fused" else "stages"


def _mode(samples, name: str):
    """Version 1 copied each mode's busy readings into its samples; version 2
    keeps them once per workload, in the conditions."""
    if not isinstance(samples, dict):
        return samples
    kept = {k: v for k, v in samples.items() if k != "busy_us"}
    return {**kept, "workload": _workload(name)}


def _condition(condition):
    if not isinstance(condition, dict):
        return condition
    busy = condition.get("busy_us") or {}
    by_workload = {_workload(mode): {"us": us} for mode, us in busy.items()} \
        if isinstance(busy, dict) else busy
    kept = {k: v for k, v in condition.items() if k != "busy_us"}
    return {**kept, "busy": by_workload}


def _check(check):
    """Version 1 wrote an infinite error as the string "inf"; the model says None."""
    if isinstance(check, dict) and check.get("max_abs_error") in ("inf", "nan", "Infinity"):
        return {**check, "max_abs_error": None}
    return check
