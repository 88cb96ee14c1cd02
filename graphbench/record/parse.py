"""Record text to a JSON document, refusing what JSON or Python allow but a
record never holds (a bare NaN, a lone surrogate, an integer beyond the
int-from-str digit limit), each named by its file and field path."""

from __future__ import annotations

import json
import re

from graphbench.errors import RecordError


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def parse_json(text: str, source: str):
    try:
        data = json.loads(text, parse_constant=_Bare)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} is not valid JSON ({exc.msg} at line {exc.lineno})",
                          "was it truncated? re-run graphbench with --json") from None
    except ValueError:  # an integer beyond Python's int-from-str digit limit (4300)
        raise RecordError(f"{source} holds an integer of thousands of digits, which no "
                          "graphbench record does") from None
    except RecursionError:
        raise RecordError(f"{source} is nested too deeply to be a graphbench record") from None
    if not _suspect(text):  # neither a bare constant nor an escaped surrogate: nothing to name
        return data
    try:
        _scan(data, "")
    except RecordError as exc:
        raise RecordError(f"{source}: {exc.message}", exc.remedy) from None
    except RecursionError:
        raise RecordError(f"{source} is nested too deeply to be a graphbench record") from None
    return data


# What _scan looks for can only come from these spellings in the text: the
# bare constants json reads, and \uD800-\uDFFF escapes (UTF-8 text holds no
# raw surrogate). A record without them, every record graphbench writes, is
# not walked, which took a second for 20,000 rounds.
_SUSPECT = re.compile(r"NaN|Infinity|\\u[dD][89a-fA-F]")


def _suspect(text: str) -> bool:
    """Plain substring tests first: they scan 24 MB in milliseconds."""
    return "NaN" in text or "Infinity" in text or ("\\u" in text and bool(_SUSPECT.search(text)))


class _Bare(str):
    """NaN, Infinity or -Infinity as Python's json reads them: kept as a
    marker so the error can name the field that holds it."""


def _scan(value, path: str) -> None:
    """What JSON allows but a record never holds, named by its path: a bare
    NaN or Infinity, and a lone surrogate (\\ud800), which no terminal can print."""
    if isinstance(value, _Bare):
        raise RecordError(f"{path or 'the record'}: bare {str(value)} is not JSON",
                          "a record stores finite numbers only")
    if isinstance(value, str):
        _check_text(value, path)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, path)
            _scan(item, _join(path, key))
    elif isinstance(value, list):
        if all(type(item) in (int, float) for item in value):
            return  # a series of numbers holds no bare NaN marker or text
        for index, item in enumerate(value):
            _scan(item, f"{path}[{index}]")


def _check_text(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RecordError(f"{path or 'the record'}: a string with a lone surrogate, not text",
                          "was the file written by graphbench?") from None
