"""Where a question names what its formula defines: the name as the rest of the question says it
(`苹果流动比率` is asked as `流动比率`), each place it says it (with the words a parenthetical
abbreviation stands for, `days payable outstanding (dpo)`), a name given in parentheses after
an inline formula, and a name replaced by an earlier definition's formula.
"""

from __future__ import annotations

import re

from core.parse.defined.inline import words_start

# `… (unadjusted ebitda)`, past a frame (`from the cash flow statement`, blanked) or a unit
_NAME_AFTER = re.compile(
    r"(?:\s|\b(?:from|in|per|on|of|the|as shown|shown|usd|rmb|cny|millions|billions|thousands)\b)*"
    r"\(\s*([^()]{1,40}?)\s*\)"
)


def name_replaced(words: str, name: str, by: str) -> str:
    bound = r"(?<![a-z0-9])" if name[:1].isascii() else ""
    tail = r"(?![a-z0-9])" if name[-1:].isascii() else ""
    return re.sub(bound + re.escape(name) + tail, lambda m: by, words) if name else words


def name_in(name: str, rest: str) -> str:
    """The longest ending of the clause's name that the rest of the question says (`苹果流动比率`
    → `流动比率` when the question asks for 流动比率); the whole name when it says none."""
    if not name:
        return name
    words = name.split(" ") if name.isascii() else list(name)
    joiner = " " if name.isascii() else ""
    for i in range(len(words)):
        tail = joiner.join(words[i:])
        if tail and name_spans(rest, tail):
            return tail
    return name


def name_spans(text: str, name: str) -> list[tuple[int, int]]:
    """Each place `text` says `name`; with the words a parenthetical name abbreviates
    (`days payable outstanding (dpo)`)."""
    if not name:
        return []
    bound = r"(?<![a-z0-9])" if name[0].isascii() else ""
    tail = r"(?![a-z0-9])" if name[-1].isascii() else ""
    spans = []
    for m in re.finditer(bound + re.escape(name) + tail, text):
        start, end = m.span()
        if text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")"):
            start = words_start(text, text[:start].rstrip().rfind("("))
            end = text.index(")", end) + 1
        spans.append((start, end))
    return spans


def parenthetical_after(text: str, end: int) -> tuple[str, tuple[int, int] | None]:
    m = _NAME_AFTER.match(text, end)
    if m is None:
        return "", None
    return m.group(1), m.span()
