"""Every string of a record as a terminal, a markdown file and a CSV file may
show it. A record from elsewhere is untrusted input: a device name holding
"\\x1b[2J" would clear the screen, one holding a newline could print a line
of its own ("verified: ..."). So as a record is read, every control
character (C0, DEL, C1), line or paragraph separator and invisible format
character (bidi overrides, zero-width spaces) in any of its strings, dict
keys included, is replaced by its escape: \\x1b, \\n, \\u202e. Records
graphbench writes hold none, and are not walked."""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata

from graphbench.errors import RecordError
from graphbench.record.decode import shape

_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp"))
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SAFE = re.compile(r"[\x20-\x7e]*")  # printable ASCII: nothing to look at
# what in a record's bytes can decode to a hidden character: a JSON escape
# other than a printable ASCII one, or any byte beyond ASCII
_MAYBE = re.compile(rb'\\[bfnrt]|\\u(?!00[2-6][0-9a-fA-F]|007[0-9a-eA-E])|[\x7f-\xff]')


def printable(text: str) -> str:
    """`text` with every hidden character written as its escape."""
    if _SAFE.fullmatch(text):
        return text
    return "".join(_escaped(c) if not " " <= c <= "~" and unicodedata.category(c) in _HIDDEN
                   else c for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def may_hide(data: bytes) -> bool:
    """False when the record text `data` cannot hold a hidden character
    (every record graphbench writes): the walk below is then skipped."""
    if data.isascii() and b"\\" not in data:  # two scans in C: milliseconds for 300 MB
        return False
    return _MAYBE.search(data) is not None


def printable_record(record, source: str):
    """`record` (a dataclass of the model, read from `source`) with every
    string printable; the same object where nothing changes."""
    try:
        return _walk(type(record), record)
    except RecordError as exc:
        raise RecordError(f"{source}: {exc.message}", exc.remedy) from None


def _walk(hint, value):
    if value is None:
        return None
    kind = shape(hint)
    if kind[0] == "union":
        real = [o for o in kind[1] if o is not type(None)]
        return _walk(real[0], value) if len(real) == 1 else _plain(value)
    if kind[0] == "dataclass":
        changed = {}
        for name, field_hint in _text_fields(hint):
            old = getattr(value, name)
            new = _walk(field_hint, old)
            if new is not old:
                changed[name] = new
        return dataclasses.replace(value, **changed) if changed else value
    if kind[0] == "list":
        if not _holds_text(kind[1]):
            return value
        items = [_walk(kind[1], item) for item in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if kind[0] == "dict":
        deep = _holds_text(kind[1])
        items = {printable(k) if isinstance(k, str) else k: _walk(kind[1], v) if deep else v
                 for k, v in value.items()}
        if len(items) != len(value):  # "a\x1b" and "a\\x1b" would be one key
            raise RecordError("two keys of one object differ only in hidden characters",
                              "was the record written by graphbench?")
        unchanged = list(items) == list(value) and all(items[k] is value[k] for k in items)
        return value if unchanged else items
    return _plain(value)


def _plain(value):
    if isinstance(value, str):
        new = printable(value)
        return value if new == value else new
    return value


@functools.lru_cache(maxsize=None)
def _text_fields(cls) -> tuple:
    """(name, type) of the fields of `cls` that can hold a string."""
    from graphbench.record.decode import field_shapes

    return tuple((name, hint) for name, hint in field_shapes(cls) if _holds_text(hint))


@functools.lru_cache(maxsize=None)
def _holds_text(hint, seen: tuple = ()) -> bool:
    from graphbench.record.decode import field_shapes

    kind = shape(hint)
    if kind[0] == "union":
        return any(_holds_text(o, seen) for o in kind[1])
    if kind[0] == "list":
        return _holds_text(kind[1], seen)
    if kind[0] == "dict":
        return True  # its keys
    if kind[0] == "dataclass":  # a class met again on its own path adds nothing new
        return hint not in seen and any(_holds_text(h, seen + (hint,))
                                        for _, h in field_shapes(hint))
    return hint is str
