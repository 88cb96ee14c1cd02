"""A run's --param values as the keyword arguments of a pipeline file's
pipeline(): each name checked against its signature, each value against
the kind of its default, before the function is called (and so before any
GPU work). The values themselves are graphbench.config.params'."""

from __future__ import annotations

import inspect
from pathlib import Path

from graphbench.config.params import FIELD, literal, shown
from graphbench.config.run import PASSED
from graphbench.errors import ConfigError
from graphbench.spelling import nearest

KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
# a default's kind: the values it takes and how a remedy asks for one (bool before int)
KINDS = ((bool, (bool,), "True or False"), (int, (int,), "a whole number, e.g. 256"),
         (float, (int, float), "a number, e.g. 0.5"), (str, (str,), "text, e.g. fast"),
         (tuple, (tuple,), "a tuple, e.g. (4,8)"))


def own_parameters(accepted) -> list[str]:
    """The keyword parameters of pipeline() that --param may set (not depth
    or stages: their own options pass them)."""
    return [name for name, p in accepted.items() if p.kind in KEYWORD and name not in PASSED]


def pipeline_arguments(accepted, params: dict[str, str], path: Path) -> dict[str, object]:
    """`params` as pipeline()'s keyword arguments; ConfigError for a name it
    does not take, or a value unlike its default."""
    own = own_parameters(accepted)
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    arguments = {}
    for name, text in params.items():
        if name not in own and not (open_ended and name not in accepted):
            close = nearest(name, own)
            takes = f"it takes {', '.join(own)}" if own else \
                "it takes no parameters of its own: leave out --param"
            raise ConfigError(FIELD, f"{name}: {path.name}'s pipeline() has no such parameter"
                              + (f" (did you mean {close}?)" if close else ""), takes)
        value = literal(name, text)
        if name in accepted:
            _check_kind(name, value, accepted[name].default, path)
        arguments[name] = value
    return arguments


def _check_kind(name: str, value: object, default: object, path: Path) -> None:
    """A value of its default's kind: a bool for a bool (the text true is no
    bool), a whole number for an int, a number for a float; a parameter
    without a default, or one of None, takes any value."""
    for kind, takes, wanted in KINDS:
        if isinstance(default, kind):
            if not isinstance(value, takes) or (kind is not bool and isinstance(value, bool)):
                raise ConfigError(FIELD, f"{name}={shown(repr(value))}: {path.name}'s "
                                  f"pipeline() defaults {name} to {default!r}", f"give {wanted}")
            return
