"""Assemble the result record from measured values. Pure: no GPU, so tests
build records from synthetic samples and merged multi-process runs reuse it."""

from __future__ import annotations

from graphbench import provenance
from graphbench.analysis import break_even_iterations, cache_state, time_breakdown
from graphbench.config import RunConfig
from graphbench.device import DeviceInfo
from graphbench.record import METRICS, RUN_SCHEMA, SCHEMA_VERSION, mode_entry
from graphbench.stability import record_warnings
from graphbench.stages import expand
from graphbench.stats import median_ci, paired_ratios, summarize
from graphbench.stopping import noise
from graphbench.timing import Sample, Sampling
from graphbench.verify import Check, all_passed


def per_round_us(samples: list[Sample], iters: int) -> dict[str, list[float]]:
    rows = [sample.per_iteration_us(iters) for sample in samples]
    return {metric: [row[metric] for row in rows] for metric in METRICS}


def speedup_entry(numerator_wall: list[float], denominator_wall: list[float]) -> dict:
    ratios = paired_ratios(numerator_wall, denominator_wall)
    low, high = median_ci(ratios)
    return {**summarize(ratios), "ci95": [low, high], "per_round": ratios}


def summarize_all(times: dict[str, list[float]]) -> dict:
    """Summaries that keep their samples, so records of several processes can merge."""
    return {key: {**summarize(values), "samples": list(values)} for key, values in times.items()}


def lifecycle_entry(times: dict[str, list[float]], walls: dict) -> dict:
    entry = summarize_all(times)
    build_us = sum(entry[k]["median"] for k in ("capture_us", "instantiate_us", "upload_us"))
    entry["build_us"] = build_us
    entry["break_even_iterations"] = break_even_iterations(
        build_us, walls["individual"]["median"], walls["graph"]["median"])
    return entry


def breakdown_entry(modes: dict, launches: dict) -> dict:
    return {name: time_breakdown(entry["stats"]["wall"]["median"],
                                 entry["stats"]["submit"]["median"],
                                 entry["stats"]["device"]["median"],
                                 entry["stats"]["busy"]["median"] if "busy" in entry["stats"] else None,
                                 launches[name])
            for name, entry in modes.items()}


def sampling_entry(config: RunConfig, sampling: Sampling | None) -> dict:
    entry = {"rule": "fixed" if config.rounds is not None else "adaptive",
             "max_noise": config.max_noise, "min_rounds": config.min_rounds,
             "max_time_s": config.max_time, "warmup_rounds": config.warmup_rounds,
             "flush_l2": config.flush_l2}
    if sampling is None:
        return {**entry, "rounds": 0, "stop_reason": "not-run: verification failed"}
    return {**entry, "rounds": sampling.rounds, "stop_reason": sampling.stop_reason,
            "noise": noise(sampling.samples), "sampling_s": sampling.elapsed_s,
            "conditions": sampling.conditions}


def build_record(config: RunConfig, info: DeviceInfo, sampling: Sampling | None,
                 checks: list[Check], pipeline: dict, extras: dict, environment: dict,
                 elapsed_s: float) -> dict:
    """Assemble the record from measured values (tests feed synthetic ones)."""
    samples = sampling.samples if sampling else {}
    modes, walls = {}, {}
    for name, mode_samples in samples.items():
        per_round = per_round_us(mode_samples, config.iters)
        modes[name] = mode_entry(per_round, {m: summarize(per_round[m]) for m in METRICS})
        walls[name] = per_round["wall"]
    speedup = {other: speedup_entry(walls["individual"], walls[other])
               for other in ("graph", "fused") if other in walls and "individual" in walls}
    record = {
        "schema": RUN_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": provenance.tool_info(),
        "created": provenance.utc_timestamp(),
        "host": provenance.host_info(),
        "packages": provenance.package_versions(),
        "device": info.to_dict(),
        "config": config.to_dict(),
        "pipeline": pipeline,
        "sampling": {**sampling_entry(config, sampling), "elapsed_s": elapsed_s},
        "modes": modes,
        "speedup": speedup,
        "verification": {"passed": all_passed(checks), "checks": [c.to_dict() for c in checks]},
        "cache": cache_state(config.elements, expand(config.stages, config.depth),
                             info.l2_bytes, config.flush_l2),
        "environment": environment,
    }
    if extras:
        add_extras(record, extras)
    record["warnings"] = record_warnings(record)
    return record


def add_extras(record: dict, extras: dict) -> None:
    walls = {name: entry["stats"]["wall"] for name, entry in record["modes"].items()}
    launches = {name: 1 if name in ("graph", "fused") else
                record["pipeline"]["kernel_launches_per_iteration"] for name in walls}
    record["launch_floor"] = summarize_all(extras["launch_floor"])
    for name, busy in extras["busy_us"].items():
        # GPU time per iteration with no host gaps: immune to host-speed noise
        record["modes"][name]["samples"]["busy_us"] = list(busy)
        record["modes"][name]["stats"]["busy"] = summarize(busy)
    record["breakdown"] = breakdown_entry(record["modes"], launches)
    if "graph_lifecycle" in extras:
        record["graph_lifecycle"] = lifecycle_entry(extras["graph_lifecycle"], walls)
        record["graph_update"] = summarize_all(extras["graph_update"])
