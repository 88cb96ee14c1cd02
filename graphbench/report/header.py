"""A run record's first lines: the tool, device and size, the pipeline, and
why sampling stopped with the noise it reached."""

from __future__ import annotations

import math

from rich.text import Text

from graphbench._version import __version__
from graphbench.stats.summary import RunSummary
from graphbench.config.params import params_text
from graphbench.record.model import RunRecord

STOP_TEXT = {"fixed-rounds": "fixed round count", "noise-target": "noise target reached",
             "time-budget": "time budget ran out before the noise target"}


def header(record: RunRecord, summary: RunSummary) -> Text:
    dev, cfg = record.device, record.config
    text = Text.assemble(
        ("graphbench ", "bold"), (record.tool.version, "dim"), "  ", (dev.name, "bold cyan"),
        f" (cc {dev.compute_capability}, device {dev.index})",
        f"\n{cfg.elements:,} elements  x  {cfg.iters:,} iterations  x  {record.rounds} rounds")
    if record.pipeline.file != "built-in":
        pipe = record.pipeline
        text.append(f"\npipeline {pipe.name} ({pipe.file}): {pipe.description}", style="cyan")
    if cfg.params:  # what its pipeline() was given (--param)
        text.append(f"\nparameters {params_text(cfg.params)}", style="cyan")
    if record.process_count > 1:
        text.append(f" from {record.process_count} processes")
    if summary.noise is not None:
        reason = record.stop_reason
        noise = f"{summary.noise:.1%}" if math.isfinite(summary.noise) else \
            "unknown (too few rounds for an interval)"
        text.append(f"\nstopped: {STOP_TEXT.get(reason, reason)}{_judged_by(record, summary)}; "
                    f"noise {noise} (target {cfg.max_noise:.1%}){_why_missed(record, summary)}",
                    style="yellow" if reason == "time-budget" else "")
    return text


def _why_missed(record: RunRecord, summary: RunSummary) -> str:
    """Once, why a run's budget ran out: drift that more rounds would not
    take away, or a spread that more rounds would."""
    if record.stop_reason != "time-budget" or not math.isfinite(summary.noise or math.inf):
        return ""
    drift = summary.noise_drift or 0.0
    if drift > record.config.max_noise:  # the target can never be met, however long it runs
        return (f": the rounds drifted {drift:.1%} beyond their spread (the host's speed moved), "
                f"which more rounds do not take away; --max-noise {math.ceil(drift * 100)}% "
                "stops on what this host allows")
    return ": the rounds' spread needs more of them (--max-time)"


def _judged_by(record: RunRecord, summary: RunSummary) -> str:
    """Whose judgement a met noise target was, where this graphbench reads the
    noise above it: each process's own (a merged record), or an earlier
    version's, whose intervals had no allowance for slow host phases."""
    if record.stop_reason != "noise-target" or summary.noise <= record.config.max_noise:
        return ""
    if record.process_count > 1:
        return " in each process"
    if record.tool.version != __version__:
        return f" by graphbench {record.tool.version}'s rule"
    return ""
