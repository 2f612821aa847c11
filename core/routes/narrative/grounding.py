"""The numeric grounding check: narrative prose keeps only the figures its sources state.

Takes prose, the snippets it may quote, the found facts and the question; returns the prose
without each sentence that states a figure no source supports, and how many such figures there
were (`guard.numbers_unsupported`). Invariant 1, extended to narrative prose: a figure reaches
the analyst only if a snippet or a found fact states it with the same value, scale, unit class
and sign (see `quantities` for how prose is read, and how it fails closed: a number it
cannot classify is still a claim).

- **Only the system's own references are skipped.** A synthesis is checked as the model wrote
  it, *before* the system turns its `[n]` markers into citations and appends its source list,
  so the locator digits the system inserts (`para=1`, `slide=3`) are never claims and the
  notice is never false. What the model wrote itself is checked, parentheses included: a
  `（…·…）` or `（资料来源：…）` of its own making is prose. The only other text skipped is text
  the system knows verbatim: the retrieved chunks' citations, locators and document names
  (`references`), so a model that copies a real citation, or an extractive answer that carries
  the system's own, is not penalised for it.
- **Support.** A figure is supported by a source figure of the same unit class and the same
  scaled value (exact decimals, no rounding): `6.7亿元` is not `6.7%`, `15家` is not `15%`,
  `1.6%` is not `1.6个百分点`, `2.2pct` is neither, and a glued or unread form
  (`iphone15`, `三四成`) only by itself. One widening: a figure with a scale and no unit (`150亿`)
  may be supported by a money or count figure of the same value, since dropping the unit adds
  no claim. The reverse is never allowed: a source number with no unit (a table cell, `15`)
  supports only a claim with no unit; tabular figures are grounded through facts.
- **Direction.** Every figure carries what signs it (see `quantities.direction`): a minus, a
  loss word beside it (`亏损10.85亿元`, `10.85亿元的亏损`), or the nearest rise or fall word of
  its clause, before or after it (`下挫21.2%`, `21.2%的下滑`, `a 10.0% decline`); a move to a
  level (`下降至29.7%`) is a level. A claim is supported only by a source stating the same
  signed value: a fall or a loss (negative) by a source's minus or the same kind of word (a
  fall is no loss, a loss no fall; a fact row's sign counts as either), a positive figure by
  any positive statement of it. A figure with no sign word is positive: it may drop a source's
  *fall* (`下降6.7%` supports `6.7%`), never a value that is negative in itself — a source's
  `亏损10.85亿元` supports `亏损10.85亿元` and `-10.85亿元`, never `营业利润10.85亿元`.
- **Years.** A written year (`2025年`, `FY2025`, `2025Q4`) is still checked, as a period: it is
  supported when any source, any found fact's period, or a period the question names has that
  year. A year is a coordinate, and restating the question's own period invents nothing; the
  question's *figures* (`为什么下降了30%`) are never support.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from core.language.normalize import text_normalize
from core.language.quantities import (
    AMOUNT,
    COUNT,
    FACT,
    FALL,
    LOSS,
    MINUS,
    MONEY,
    Quantity,
    claims_find,
    fact_quantity,
    prose_normalize,
)
from core.model.facts import FactRecord

SENTENCE = re.compile(r"[^。！？!?；;\n]+[。！？!?；;]?")
# The `[n]` markers a synthesis cites snippets with; the system replaces every one of them.
MARKER = re.compile(r"[\[［]\s*\d+(?:\s*[,，、]\s*\d+)*\s*[\]］]")
_LIST_MARKER = re.compile(r"^\s*(?:\(\d{1,2}\)|\d{1,2}[.、)]|[一二三四五六七八九十]{1,2}[、.])(?!\d)")
UNSUPPORTED_NOTICE = {
    "zh": "（已移除 {n} 处无法在资料中核实的数字）",
    "en": "({n} figure(s) that the sources do not support were removed)",
}


@dataclass(frozen=True)
class Support:
    """What the sources state: what signed each `(value, unit class)` they hold, and their years."""

    quantities: Mapping[tuple[Decimal, str], frozenset[str]]
    years: frozenset[int]

    def holds(self, quantity: Quantity) -> bool:
        value, unit = quantity.key
        if unit != AMOUNT:
            return self._states(value, unit, quantity.signed_by)
        units = {u for _, u in self.quantities if u.startswith(MONEY) or u in (COUNT, AMOUNT)}
        return any(self._states(value, u, quantity.signed_by) for u in units)

    def _states(self, value: Decimal, unit: str, signed_by: str) -> bool:
        marks = self.quantities.get((value, unit), frozenset())
        if value >= 0:
            # A level may drop a source's fall (下降6.7% → 6.7%), never a source's minus or loss.
            return bool(marks) or (not signed_by and FALL in self.quantities.get((-value, unit), frozenset()))
        if signed_by == LOSS:
            return bool(marks & {LOSS, MINUS, FACT})  # a fall is no loss
        if signed_by == FALL:
            return bool(marks & {FALL, MINUS, FACT})  # a loss is no fall
        return bool(marks)


def support_collect(snippets: Sequence[str], facts: Sequence[FactRecord] = (), question: str = "") -> Support:
    """The figures and years of the snippets and facts, and only the years of the question."""
    quantities: dict[tuple[Decimal, str], set[str]] = {}
    years: set[int] = set()

    def add(quantity: Quantity) -> None:
        quantities.setdefault(quantity.key, set()).add(quantity.signed_by)

    for snippet in snippets:
        claims = claims_find(prose_normalize(snippet))
        for quantity in claims.quantities:
            add(quantity)
        years |= set(claims.years)
    for fact in facts:
        add(fact_quantity(fact))
        years.add(fact.period.year)
    years |= set(claims_find(prose_normalize(question)).years)
    return Support({key: frozenset(marks) for key, marks in quantities.items()}, frozenset(years))


def _blanker(references: Sequence[str]) -> re.Pattern[str] | None:
    written = sorted({text_normalize(r) for r in references if r.strip()}, key=len, reverse=True)
    if not written:
        return None
    return re.compile("|".join(re.escape(r) + r"(?![0-9])" for r in written), re.IGNORECASE)


def unsupported_count(sentence: str, support: Support, blanker: re.Pattern[str] | None = None) -> int:
    """How many figures in one sentence no source supports (markers and references skipped)."""
    probe = prose_normalize(MARKER.sub(" ", sentence))
    if blanker is not None:
        probe = blanker.sub(" ", probe)
    probe = _LIST_MARKER.sub(" ", probe)
    claims = claims_find(probe)
    return sum(not support.holds(q) for q in claims.quantities) + sum(y not in support.years for y in claims.years)


def numbers_check(text: str, *, support: Support, references: Sequence[str] = ()) -> tuple[str, int]:
    """`text` without each sentence holding an unsupported figure, and how many figures went."""
    blanker = _blanker(references)
    verbatim = _verbatim(references)
    removed = 0
    kept: list[str] = []
    for line in text.split("\n"):
        sentences_kept = []
        for sentence in _sentences(line, verbatim):
            unsupported = unsupported_count(sentence, support, blanker)
            if unsupported:
                removed += unsupported
                continue
            sentences_kept.append(sentence)
        if "".join(sentences_kept).strip():
            kept.append("".join(sentences_kept))
    return "\n".join(kept).strip(), removed


def _verbatim(references: Sequence[str]) -> re.Pattern[str] | None:
    written = sorted({r for r in references if r.strip()}, key=len, reverse=True)
    return re.compile("|".join(re.escape(r) for r in written)) if written else None


def _sentences(line: str, verbatim: re.Pattern[str] | None) -> list[str]:
    """The sentences of a line; a reference is never cut (`sheet=5yr!A1:F9` holds a `!`)."""
    pieces = list(SENTENCE.finditer(line))
    if not pieces:
        return [line]
    inside: set[int] = set()
    for match in verbatim.finditer(line) if verbatim is not None else ():
        inside.update(range(match.start() + 1, match.end()))
    spans: list[list[int]] = []
    for piece in pieces:
        if spans and piece.start() in inside:
            spans[-1][1] = piece.end()  # the gap between them is part of the reference
        else:
            spans.append([piece.start(), piece.end()])
    return [line[start:end] for start, end in spans]


def notice_add(text: str, removed: int, language: str) -> str:
    if not removed:
        return text
    return (text + "\n" if text else "") + UNSUPPORTED_NOTICE[language].format(n=removed)


def numbers_ground(
    text: str,
    *,
    snippets: Sequence[str],
    facts: Sequence[FactRecord] = (),
    question: str = "",
    doc_names: Sequence[str] = (),
    references: Sequence[str] = (),
    language: str = "zh",
) -> tuple[str, int]:
    """Remove every sentence holding a figure no snippet or fact supports, then add the notice.

    `doc_names` and `references` (citations, locators) are strings the system itself inserted
    or knows verbatim; they are skipped wherever they appear. Nothing else is.
    """
    kept, removed = numbers_check(
        text, support=support_collect(snippets, facts, question), references=[*doc_names, *references]
    )
    return notice_add(kept, removed, language), removed
