"""The numeric grounding check (SPEC §7): narrative prose keeps only the figures its sources state.

Takes prose, the snippets it may quote, the found facts and the question; returns the prose
without each sentence that states a figure no source supports, and how many such figures there
were (`guard.numbers_unsupported`). Invariant 1, extended to narrative prose: a figure reaches
the analyst only if a snippet or a found fact states it with the same value, scale, unit class
and sign (see `quantities` for how prose is read).

- **Only the system's own references are skipped.** A synthesis is checked as the model wrote
  it, *before* the system turns its `[n]` markers into citations and appends its source list,
  so the locator digits the system inserts (`para=1`, `slide=3`) are never claims and the
  notice is never false. What the model wrote itself is checked, parentheses included: a
  `（…·…）` or `（资料来源：…）` of its own making is prose. The only other text skipped is text
  the system knows verbatim: the retrieved chunks' citations, locators and document names
  (`references`), so a model that copies a real citation, or an extractive answer that carries
  the system's own, is not penalised for it.
- **Support.** A figure is supported by a source figure of the same unit class and the same
  signed, scaled value (exact decimals, no rounding): `6.7亿元` is not `6.7%`, `15家` is not
  `15%`, `1.6%` is not `1.6个百分点` (a percentage-point change restated as a relative change
  is a different claim), `1,085.2百万元` is not a loss of 1,085.2 百万元. One widening: a
  figure with a scale and no unit (`150亿`) may be supported by a money or count figure of the
  same value, since dropping the unit adds no claim. The reverse is never allowed: a source
  number with no unit (a table cell, `15`) supports only a claim with no unit, because the
  source cannot vouch for a unit it does not state; tabular figures are grounded through facts.
- **Years.** A written year (`2025年`, `FY2025`, `2025Q4`) is still checked, as a period: it is
  supported when any source, any found fact's period, or a period the question names has that
  year. A year is a coordinate, and restating the question's own period invents nothing; the
  question's *figures* (`为什么下降了30%`) are never support.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from .normalize import text_normalize
from .quantities import AMOUNT, COUNT, MONEY, Quantity, claims_find, fact_quantity
from .types import FactRecord

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
    """What the sources state: `(value, unit class)` pairs and written years."""

    quantities: frozenset[tuple[Decimal, str]]
    years: frozenset[int]

    def holds(self, quantity: Quantity) -> bool:
        value, unit = quantity.key
        if (value, unit) in self.quantities:
            return True
        if unit == AMOUNT:
            return any(v == value and (u.startswith(MONEY) or u == COUNT) for v, u in self.quantities)
        return False


def support_collect(snippets: Sequence[str], facts: Sequence[FactRecord] = (), question: str = "") -> Support:
    """The figures and years of the snippets and facts, and only the years of the question."""
    quantities: set[tuple[Decimal, str]] = set()
    years: set[int] = set()
    for snippet in snippets:
        claims = claims_find(text_normalize(snippet))
        quantities |= {q.key for q in claims.quantities}
        years |= set(claims.years)
    for fact in facts:
        quantities.add(fact_quantity(fact).key)
        years.add(fact.period.year)
    years |= set(claims_find(text_normalize(question)).years)
    return Support(frozenset(quantities), frozenset(years))


def _blanker(references: Sequence[str]) -> re.Pattern[str] | None:
    written = sorted({text_normalize(r) for r in references if r.strip()}, key=len, reverse=True)
    if not written:
        return None
    return re.compile("|".join(re.escape(r) + r"(?![0-9])" for r in written))


def unsupported_count(sentence: str, support: Support, blanker: re.Pattern[str] | None = None) -> int:
    """How many figures in one sentence no source supports (markers and references skipped)."""
    probe = text_normalize(MARKER.sub(" ", sentence))
    if blanker is not None:
        probe = blanker.sub(" ", probe)
    probe = _LIST_MARKER.sub(" ", probe)
    claims = claims_find(probe)
    return sum(not support.holds(q) for q in claims.quantities) + sum(y not in support.years for y in claims.years)


def numbers_check(text: str, *, support: Support, references: Sequence[str] = ()) -> tuple[str, int]:
    """`text` without each sentence holding an unsupported figure, and how many figures went."""
    blanker = _blanker(references)
    removed = 0
    kept: list[str] = []
    for line in text.split("\n"):
        sentences_kept = []
        for sentence in SENTENCE.findall(line) or [line]:
            unsupported = unsupported_count(sentence, support, blanker)
            if unsupported:
                removed += unsupported
                continue
            sentences_kept.append(sentence)
        if "".join(sentences_kept).strip():
            kept.append("".join(sentences_kept))
    return "\n".join(kept).strip(), removed


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
