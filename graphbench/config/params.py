"""A pipeline's own parameters: the keyword arguments of its file's
pipeline() that `run --param NAME=VALUE` passes and `sweep --param
NAME=V1,V2` sweeps (the API's params=).

A value is a Python literal: an int, a float, a bool, a str, or a tuple of
them. The configuration, and so the record, keeps each as its repr, the one
text that reads back (ast.literal_eval) as the value pipeline() was called
with: 0x100 and 256 are one value, 1 and 1.0 two. On the command line a
bare word (fast, float16) is a str; a configuration holds only literals."""

from __future__ import annotations

import ast
import math
import re

from graphbench.errors import ConfigError

FIELD = "params"  # the RunConfig and SweepConfig field, named so in every error
MAX_PARAMS, MAX_TEXT = 32, 1000
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
TYPES = (bool, int, float, str)
EXAMPLES = "e.g. cols=256, scale=0.5, exact=True, mode=fast or shape=(4,8)"


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "..."
        raise ConfigError(FIELD, f"has the name {shown}, not a Python identifier",
                          f"name a keyword parameter of pipeline(), {EXAMPLES}")
    return name


def value_text(name: str, value: object) -> str:
    """The stored text of a Python value, or ConfigError for a value no
    parameter takes here (None, a list, a float that is not finite)."""
    _check_value(name, value)
    text = repr(value)
    if len(text) > MAX_TEXT:
        raise ConfigError(FIELD, f"{name} is {len(text):,} characters long as a literal, "
                          f"more than {MAX_TEXT:,}", "a value that long is no setting")
    return text


def _check_value(name: str, value: object) -> None:
    if isinstance(value, tuple):
        for item in value:
            _check_value(name, item)
        return
    if type(value) not in TYPES:
        hint = "; write a tuple, (1, 2)" if isinstance(value, list) else \
            "; leave the parameter out for its default" if value is None else ""
        raise ConfigError(FIELD, f"{name} is {_a(value)}: a parameter takes an int, float, "
                          f"bool, str or a tuple of them{hint}", EXAMPLES)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(FIELD, f"{name} is {value}, not a finite number", EXAMPLES)


def _a(value: object) -> str:
    kind = type(value).__name__
    return "None" if value is None else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def literal(name: str, text: object) -> object:
    """The value a stored text names (what pipeline() is called with)."""
    if not isinstance(text, str):
        raise ConfigError(FIELD, f"{name} is stored as {_a(text)}, not as a literal's text",
                          "give each value as Python text, e.g. '256' or \"'fast'\"")
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ConfigError(FIELD, f"{name}={shown} is not a Python literal",
                          f"quote text ('a b'), {EXAMPLES}") from None


def normal_text(name: str, text: object) -> str:
    """A stored text in its one form (the repr of its value), checked."""
    return value_text(name, literal(name, text))


def typed_value(name: str, text: str) -> object:
    """A value as a user types it: a Python literal, or a bare word as a str."""
    stripped = text.strip()
    if BARE_WORD.fullmatch(stripped) and stripped not in ("True", "False", "None"):
        return stripped
    if not stripped:
        raise ConfigError(FIELD, f"{name}= has no value", EXAMPLES)
    return literal(name, stripped)


def value_texts(params: object) -> dict[str, str]:
    """Python values by name (the API's params=) as their stored texts."""
    if not isinstance(params, dict):
        raise ConfigError(FIELD, f"must be a dict of names and values, got {_a(params)}",
                          "e.g. {'cols': 256}")
    return {check_name(name): value_text(name, value) for name, value in params.items()}


def check_params(params: object, set_by: dict[str, str]) -> dict[str, str]:
    """A configuration's parameters, each name checked and each text in its
    one form. `set_by`: the parameters another setting passes, by the flag
    that sets them (depth: --depth), refused here: one setting, one way."""
    if not isinstance(params, dict):
        raise ConfigError(FIELD, f"must be a dict of names and values, got {_a(params)}",
                          "e.g. {'cols': 256}")
    if len(params) > MAX_PARAMS:
        raise ConfigError(FIELD, f"has {len(params):,} parameters, more than {MAX_PARAMS}",
                          "a pipeline() with that many is a different benchmark each")
    checked = {}
    for name, text in params.items():
        checked[check_name(name)] = normal_text(name, text)
        if name in set_by:
            raise ConfigError(FIELD, f"{name} is set by {set_by[name]}, not by a parameter",
                              f"give {set_by[name]} {shown(checked[name])} instead")
    return checked


def shown(text: str) -> str:
    """A stored text as the reports show it: a str without its quotes when
    it reads as the bare word it was typed as."""
    value = ast.literal_eval(text)
    if isinstance(value, str) and BARE_WORD.fullmatch(value) and \
            value not in ("True", "False", "None"):
        return value
    return text


def params_text(params: dict[str, str]) -> str:
    """'cols=256 mode=fast': a configuration's parameters in one line."""
    return " ".join(f"{name}={shown(text)}" for name, text in params.items())
