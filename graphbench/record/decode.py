"""Decoding a JSON document into the typed record model, driven by its type
hints: every field's type is checked, required fields must be present and
numbers finite, and a problem raises one RecordError naming the field's
path, e.g. `runs[0].modes.graph.wall_us[3]: expected a number, got "nan"`.
Plain values are accepted in one pass and only what fails takes the path
that names it. decode_json is the fast way for a whole record's text."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import types
import typing

from graphbench.counts import MAX_COUNT
from graphbench.errors import GraphbenchError, RecordError

MAX_INT = MAX_COUNT  # beyond it a number is no count, id or byte size graphbench writes


@functools.lru_cache(maxsize=None)
def _shape(hint) -> tuple:
    """What kind of type `hint` is, worked out once per hint."""
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


def _plain_numbers(items) -> bool:
    """Every item a finite float or an int within MAX_INT (no bool): the
    common case of a sample series, checked in one pass."""
    return all((type(v) is float and math.isfinite(v)) or (type(v) is int and -MAX_INT <= v <= MAX_INT)
               for v in items)


def decode_json(cls, data: bytes):
    """The JSON text `data` straight to an instance of the dataclass `cls`,
    when it plainly is one: msgspec parses and checks every field's type in
    C, building the model's objects without a tree of dicts between (a
    record of 200,000 rounds in a few seconds, not tens). None for anything
    it refuses, or anything else that goes wrong: the careful way (parse_json,
    then decode) then reads it again and names what is wrong. The numbers'
    ranges are checked after either way (graphbench.record.ranges)."""
    try:
        return _decoder(cls).decode(data)
    except Exception:  # noqa: BLE001 - whatever it is, the careful way names it
        return None


def convert(cls, document):
    """An already parsed document (an older version's, upgraded) to an
    instance of `cls`, checked in C as decode_json checks; None as there."""
    import msgspec

    try:
        return msgspec.convert(document, cls)
    except Exception:  # noqa: BLE001 - whatever it is, the careful way names it
        return None


@functools.lru_cache(maxsize=None)
def _decoder(cls):
    """cls None: a decoder to plain dicts and lists (an older version's record)."""
    import msgspec

    return msgspec.json.Decoder() if cls is None else msgspec.json.Decoder(cls)


def decode(hint, value, path: str):
    """`value` as an instance of the type `hint`, checked all the way down."""
    shape = _shape(hint)
    if shape[0] == "dataclass":
        return _decode_dataclass(hint, value, path)
    if shape[0] == "union":
        return _decode_union(shape[1], value, path)
    if shape[0] == "list":
        item = shape[1]
        items = _expect(value, list, "a list", path)
        if item is float and _plain_numbers(items):  # 20,000 rounds read in a fraction of a second
            return tuple(float(v) for v in items)
        return tuple(decode(item, v, f"{path}[{i}]") for i, v in enumerate(items))
    if shape[0] == "dict":
        entries = _expect(value, dict, "an object", path)
        flat = _flat(shape[1]) if _shape(shape[1])[0] == "dataclass" else None
        if flat is not None:
            return _flat_entries(shape[1], flat, entries, path)  # every round's readings
        return {k: decode(shape[1], v, _join(path, k)) for k, v in entries.items()}
    return _decode_scalar(hint, value, path)


@functools.lru_cache(maxsize=None)
def _type_hints(cls) -> dict:
    """The fields' types, resolved once per class (resolving them took most
    of the time of reading a record)."""
    return typing.get_type_hints(cls)


@functools.lru_cache(maxsize=None)
def _fields(cls) -> tuple:
    """(name, type, required, plain type, None allowed) of every field of
    `cls`, worked out once. The plain type is the str, bool, int or float a
    value of the field plainly is (None when the type is anything else)."""
    hints, out = _type_hints(cls), []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        shape = _shape(hint)
        optional = shape[0] == "union" and type(None) in shape[1]
        real = next((o for o in shape[1] if o is not type(None)), None) if shape[0] == "union" \
            else hint
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f.name, hint, required, real if real in _PLAIN else None, optional))
    return tuple(out)


_PLAIN = (str, bool, int, float)


def shape(hint) -> tuple:
    """("dataclass",), ("union", options), ("list", item type), ("dict", value
    type) or ("scalar",): what kind of type `hint` is."""
    return _shape(hint)


def field_shapes(cls) -> tuple:
    """(name, type) of every field of the dataclass `cls`."""
    return tuple((name, hint) for name, hint, *_ in _fields(cls))


def _plain(kind, value) -> bool:
    """`value`, of type `kind`, needs no further check: a finite float or an
    int within MAX_INT (str and bool are whole as they are)."""
    if kind is float:
        return math.isfinite(value)
    return kind is not int or -MAX_INT <= value <= MAX_INT


@functools.lru_cache(maxsize=None)
def _flat(cls):
    """For a class whose every field is a plain value (or None) and which
    checks nothing itself (no __post_init__, whose errors the checked path
    words): the types each field's value may plainly have, the required
    names and the defaults. None for any other class."""
    if hasattr(cls, "__post_init__"):
        return None
    accepted, required, defaults = {}, set(), {}
    for f, (name, _, needed, plain, optional) in zip(dataclasses.fields(cls), _fields(cls)):
        if plain is None:
            return None
        accepted[name] = frozenset({plain, type(None)} if optional else {plain})
        if needed:
            required.add(name)
        else:
            defaults[name] = f.default
    return accepted, frozenset(required), defaults


_NONE_ACCEPTED = frozenset()


def _flat_instance(cls, flat, entries):
    """`entries` as an instance of the flat class `cls` (`flat` = _flat(cls)),
    when it is a dict whose every value is plainly its field's type and no
    field is unknown; None sends it the checked way. Written for speed:
    20,000 rounds' readings are hundreds of thousands of these, so the
    instance's fields are set as its frozen __init__ would set them, without
    the call (the class checks nothing itself)."""
    if type(entries) is not dict:
        return None
    accepted, required, defaults = flat
    for name, item in entries.items():
        kind = type(item)
        if kind not in accepted.get(name, _NONE_ACCEPTED):
            return None
        if kind is float:
            if item - item != 0.0:  # inf or nan
                return None
        elif kind is int and not -MAX_INT <= item <= MAX_INT:
            return None
    if not required <= entries.keys():
        return None
    instance = object.__new__(cls)
    fields = getattr(instance, "__dict__", None)
    if fields is None:  # a slotted class (the readings)
        for name, item in {**defaults, **entries}.items():
            object.__setattr__(instance, name, item)
    else:
        fields.update(defaults)
        fields.update(entries)
    return instance


def _flat_entries(cls, flat, entries: dict, path: str) -> dict:
    """A dict of flat readings (a round's busy or submit readings by name),
    each through _flat_instance; a key's path is spelled only where its
    value needs the checked way."""
    out = {}
    for key, value in entries.items():
        instance = _flat_instance(cls, flat, value)
        out[key] = instance if instance is not None else \
            _decode_dataclass(cls, value, _join(path, key))
    return out


def _decode_dataclass(cls, value, path: str):
    """The checked path runs only for a field whose value is not plainly its
    type, so what fails is named by its path and the rest is read in one pass."""
    entries = _expect(value, dict, "an object", path)
    flat = _flat(cls)
    if flat is not None:
        instance = _flat_instance(cls, flat, entries)
        if instance is not None:
            return instance
    kwargs = {}
    for name, hint, required, plain, optional in _fields(cls):
        if name in entries:
            item = entries[name]
            kind = type(item)
            if (kind is plain and _plain(kind, item)) or (item is None and optional):
                kwargs[name] = item
            else:
                kwargs[name] = decode(hint, item, _join(path, name))
        elif required:
            raise RecordError(f"{_join(path, name)}: required field is missing")
    try:
        return cls(**kwargs)
    except GraphbenchError as exc:  # the model's own validation (RunConfig)
        raise RecordError(f"{_join(path, getattr(exc, 'field', ''))}: "
                          f"{getattr(exc, 'problem', exc.message)}") from None


def _decode_union(options, value, path: str):
    if value is None and type(None) in options:
        return None
    real = [o for o in options if o is not type(None)]
    return decode(real[0], value, path)


def _decode_scalar(hint, value, path: str):
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RecordError(f"{path}: expected a number, got {_shown(value)}")
        if isinstance(value, int) and abs(value) > MAX_INT:
            raise RecordError(f"{path}: expected a number, got a {len(str(abs(value)))}-digit one")
        if not math.isfinite(value):
            raise RecordError(f"{path}: expected a finite number, got {value}")
        return float(value)
    if hint is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise RecordError(f"{path}: expected a whole number, got {_shown(value)}")
    if hint is int and abs(value) > MAX_INT:
        raise RecordError(f"{path}: a whole number beyond 2^63, which no record holds")
    if hint is bool and not isinstance(value, bool):
        raise RecordError(f"{path}: expected true or false, got {_shown(value)}")
    if hint is str and not isinstance(value, str):
        raise RecordError(f"{path}: expected a string, got {_shown(value)}")
    if typing.get_origin(hint) is typing.Literal and value not in typing.get_args(hint):
        raise RecordError(f"{path}: expected one of "
                          f"{', '.join(map(json.dumps, typing.get_args(hint)))}, got {_shown(value)}")
    return value


def _expect(value, kind, name: str, path: str):
    if not isinstance(value, kind):
        raise RecordError(f"{path or 'the record'}: expected {name}, got {_shown(value)}")
    return value


def _shown(value) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) \
        else type(value).__name__.replace("dict", "an object").replace("list", "a list")
    return text if len(text) <= 40 else text[:37] + "..."


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
