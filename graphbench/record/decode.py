"""The typed record model read with msgspec, which checks in C that every
field has its type and every required field is there, and builds the
model's objects without a tree of dicts between (a record of 200,000 rounds
in a few seconds). A value msgspec refuses is one RecordError naming the
field's path as msgspec gives it (a dict's key is `[...]`: msgspec does not
name it), e.g. `runs[0].modes[...].wall_us[3]: expected a number, got a
string`. The numbers' ranges are checked after (graphbench.record.ranges).

`shape` and `field_shapes` tell the walks over the model (ranges,
printable) what kind each type is."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
import types
import typing

import msgspec

from graphbench.errors import GraphbenchError, RecordError

REMEDY = "give a record graphbench wrote"
# msgspec's names of JSON types, in the words of graphbench's messages
_WORDS = {"float": "a number", "int": "a whole number", "bool": "true or false", "str": "a string",
          "object": "an object", "array": "a list", "null": "null"}
_WHERE = re.compile(r" - at `\$(.*)`$")
_MISSING = re.compile(r"Object missing required field `(.*)`")


def decode(cls, value, path: str = ""):
    """An already parsed document `value` (at `path`) as an instance of `cls`."""
    with _named(path):
        return msgspec.convert(value, cls)


def decode_json(cls, data: bytes):
    """The JSON text `data` as an instance of `cls`. msgspec.DecodeError
    where `data` is no JSON msgspec reads: the caller parses it again
    (parse_json names what is wrong)."""
    with _named(""):
        return _decoder(cls).decode(data)


@functools.lru_cache(maxsize=None)
def _decoder(cls):
    return msgspec.json.Decoder(cls)


@contextlib.contextmanager
def _named(path: str):
    """msgspec's ValidationError as RecordError: a configuration's own check
    (a ConfigError of RunConfig or SweepConfig) is one too, with its path,
    being a ValueError; any other graphbench error is named as it is."""
    try:
        yield
    except msgspec.ValidationError as exc:
        raise RecordError(said(str(exc), path), REMEDY) from None
    except RecordError:
        raise
    except GraphbenchError as exc:
        raise RecordError(f"{path or 'a configuration'}: {exc.message}", exc.remedy) from None


def said(message: str, path: str = "") -> str:
    """msgspec's `message` (`Expected `int`, got `str` - at `$.config.elements``)
    as one line: the field's path, after `path`, and what was expected."""
    found = _WHERE.search(message)
    problem, where = (message[:found.start()], found.group(1)) if found else (message, "")
    where = (path + where).lstrip(".")
    missing = _MISSING.fullmatch(problem)
    if missing:
        where, problem = f"{where}.{missing.group(1)}".lstrip("."), "required field is missing"
    problem = re.sub(r"`([^`]*)`", lambda m: " or ".join(
        _WORDS.get(name, name) for name in m.group(1).split(" | ")), problem)
    return f"{where or 'the record'}: {problem[:1].lower()}{problem[1:]}"


@functools.lru_cache(maxsize=None)
def shape(hint) -> tuple:
    """("dataclass",), ("union", options), ("list", item type), ("dict", value
    type) or ("scalar",): what kind of type `hint` is."""
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return ("dataclass",)
    if origin in (typing.Union, types.UnionType):
        return ("union", typing.get_args(hint))
    if origin in (tuple, list):
        return ("list", typing.get_args(hint)[0])
    if origin is dict:
        return ("dict", typing.get_args(hint)[1])
    return ("scalar",)


@functools.lru_cache(maxsize=None)
def field_shapes(cls) -> tuple:
    """(name, type) of every field of the dataclass `cls`, resolved once."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))
