""""Did you mean": the known name nearest to one a user mistyped (an option,
a sub-command, a shipped pipeline), by difflib's ratio as git and argparse
3.14 do."""

from __future__ import annotations

import difflib
from typing import Iterable

CUTOFF = 0.6  # rnu reaches run, --elments --elements, sofmax softmax; --json no other option


def nearest(word: str, known: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, list(known), n=1, cutoff=CUTOFF)
    return found[0] if found else None
