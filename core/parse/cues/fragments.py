"""The pieces the cue rules are written with: the bounds of an English word, one character inside
a clause, and the extras of a rule that adds nothing to its cue, or always the same (the order,
the comparison, what a list runs over). Extras that read their match live beside their rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

EN_START = r"(?<![a-z0-9])"
EN_END = r"(?![a-z0-9])"
SEP = r"[^,，。.？?!！;；、]"  # one character inside a clause

# What a rule's match adds to its cue (an order, a count, a place, a comparison).
Extras = Callable[[re.Match[str]], dict[str, Any]]


def no_extras(m: re.Match[str]) -> dict[str, Any]:
    return {}


def fixed(**extras: Any) -> Extras:
    return lambda m: dict(extras)
