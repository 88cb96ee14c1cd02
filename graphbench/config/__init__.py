"""The validated, frozen run and sweep configurations: the single source of
every default and of the help text the command line shows for it.

A field that the command line sets carries `metadata` (see fields.option):
its flag, how the text is parsed, its help, and per-command default
overrides. The CLI builds its parsers from these fields, so a default or a
help line is written once. Validation names fields, never flags
(ConfigError); the CLI maps a field back to its flag when it prints the
message (flag_for).

    fields.py   option(): a field's flag, parser and help; the fields a command sets
    run.py      RunConfig: one run's settings, their limits and checks
    sweep.py    SweepConfig: the sweep's axes, each point a RunConfig
    params.py   a pipeline's own parameters (--param): their values and stored text
"""

from __future__ import annotations

import dataclasses

from graphbench.config.params import value_texts  # noqa: F401 - the API's params=
from graphbench.config.fields import RUN, SWEEP, cli_default, cli_fields, option  # noqa: F401
from graphbench.config.run import (ALL_MODES, DEFAULT_MIN_ROUNDS, DEFAULT_STAGES,  # noqa: F401
                                   LIMITS, MAX_DEPTH, MAX_ELEMENTS, MAX_STAGES, TOLERANCE,
                                   RunConfig)
from graphbench.config.sweep import DEFAULT_THRESHOLD, MAX_SWEEP_POINTS, SweepConfig  # noqa: F401


def flag_for(field_name: str) -> str | None:
    """The flag that sets a configuration field, for messages."""
    for cls in (RunConfig, SweepConfig):
        for f in dataclasses.fields(cls):
            if f.name == field_name and "flag" in f.metadata:
                return f.metadata["flag"]
    return None
