"""How a configuration field says the command line sets it: `option` puts
its flag, parser, help and per-command defaults in the field's metadata,
and the CLI builds its options from those fields."""

from __future__ import annotations

import dataclasses
from dataclasses import field

RUN, SWEEP = "run", "sweep"


def option(default, flag: str, parse: str, help: str, commands=(RUN, SWEEP), metavar=None,
           helps=None, factory=None, **defaults):
    """A configuration field the command line sets.

    parse: how the CLI reads the text (see graphbench.config.values.PARSERS).
    help: may use {default}; helps: a per-command help text. defaults: a
    per-command default, e.g. sweep=None. factory: makes the default (a
    dict), in place of `default`."""
    metadata = {"flag": flag, "parse": parse, "help": help, "helps": helps or {},
                "commands": commands, "metavar": metavar, "defaults": defaults}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def cli_fields(cls, command: str) -> list[dataclasses.Field]:
    """The fields of `cls` that `command` sets from the command line, in order."""
    return [f for f in dataclasses.fields(cls) if command in f.metadata.get("commands", ())]


def cli_default(f: dataclasses.Field, command: str):
    defaults = f.metadata["defaults"]
    if command in defaults:
        return defaults[command]
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()
