"""Merge the records of several processes of the same run into one.

On a shared machine much of the noise is between processes (CPU placement,
host speed over seconds), which no single process can see. A record merged
from N processes keeps every process's rounds in order, so its noise figure
(which compares consecutive blocks of rounds) includes that spread, and a
gate against it does not call process-to-process drift a regression.
"""

from __future__ import annotations

import copy

from statistics import median

from graphbench.assemble import breakdown_entry, lifecycle_entry, speedup_entry, summarize_all
from graphbench.compare import metric_samples
from graphbench.errors import RecordError
from graphbench.stability import record_warnings
from graphbench.stats import summarize
from graphbench.stopping import series_noise

SAME_KEYS = ("elements", "iters", "stages", "depth", "modes", "flush_l2", "kernel_source")


def _concat(lists) -> list:
    return [value for values in lists for value in values]


def merge_runs(records: list[dict]) -> dict:
    if not records:
        raise RecordError("no records to merge")
    first = records[0]
    for other in records[1:]:
        differing = [k for k in SAME_KEYS if other["config"].get(k) != first["config"].get(k)]
        if differing:
            raise RecordError(f"cannot merge runs that differ in {', '.join(differing)}")
    merged = copy.deepcopy(first)
    _merge_modes(merged, records)
    walls = {name: [x for r in records for x in r["modes"][name]["samples"]["wall_us"]]
             for name in merged["modes"]}
    merged["speedup"] = {other: speedup_entry(walls["individual"], walls[other])
                         for other in first.get("speedup", {})}
    _merge_extras(merged, records)
    _merge_sampling(merged, records)
    merged["sampling"]["per_process_medians"] = per_process_medians(records)
    merged["verification"] = {
        "passed": all(r["verification"]["passed"] for r in records),
        "checks": [{**c, "name": f"process {i + 1}: {c['name']}"}
                   for i, r in enumerate(records) for c in r["verification"]["checks"]]}
    merged["environment"] = {"processes": [r.get("environment", {}) for r in records]}
    merged["warnings"] = record_warnings(merged)
    return merged


def per_process_medians(records: list[dict]) -> dict[str, list[float]]:
    """Each gateable metric's median in each process: what the gate needs to
    judge how far a new process may land from these by chance."""
    first = records[0]
    metrics = [f"speedup{'' if other == 'graph' else '.' + other}" for other in first["speedup"]]
    metrics += [f"{mode}.{key.removesuffix('_us')}" for mode, entry in first["modes"].items()
                for key in entry["samples"]]
    return {metric: [median(metric_samples(r, metric)) for r in records] for metric in metrics}


def _merge_modes(merged: dict, records: list[dict]) -> None:
    for name, entry in merged["modes"].items():
        for key in entry["samples"]:
            entry["samples"][key] = _concat(r["modes"][name]["samples"][key] for r in records)
        entry["stats"] = {key.removesuffix("_us"): summarize(values)
                          for key, values in entry["samples"].items()}


def _merge_extras(merged: dict, records: list[dict]) -> None:
    def raw(section: str) -> dict:
        keys = [k for k, v in records[0][section].items() if isinstance(v, dict) and "samples" in v]
        return {k: _concat(r[section][k]["samples"] for r in records) for k in keys}

    if "launch_floor" in merged:
        merged["launch_floor"] = summarize_all(raw("launch_floor"))
    if "graph_lifecycle" in merged:
        walls = {name: e["stats"]["wall"] for name, e in merged["modes"].items()}
        merged["graph_lifecycle"] = lifecycle_entry(raw("graph_lifecycle"), walls)
        merged["graph_update"] = summarize_all(raw("graph_update"))
    if "breakdown" in merged:
        launches = {name: row["launches_per_iteration"] for name, row in merged["breakdown"].items()}
        merged["breakdown"] = breakdown_entry(merged["modes"], launches)


def _merge_sampling(merged: dict, records: list[dict]) -> None:
    sampling = merged["sampling"]
    ratios = merged.get("speedup", {}).get("graph", {}).get("per_round")
    walls = [e["samples"]["wall_us"] for e in merged["modes"].values()]
    sampling.update(
        processes=len(records),
        rounds=sum(r["sampling"]["rounds"] for r in records),
        stop_reason=", ".join(sorted({r["sampling"]["stop_reason"] for r in records})),
        noise=series_noise(ratios) if ratios else max(series_noise(w) for w in walls),
        conditions=_concat(r["sampling"].get("conditions", []) for r in records),
        elapsed_s=sum(r["sampling"]["elapsed_s"] for r in records))
