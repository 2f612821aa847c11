"""What the glossary left unread in a question: the term to ask back about, and the content
words for the glossary-gap report.

`unknown_term_find` takes the question, the spans every reader took and what the question names;
it returns an acronym asking for a number (ROA) or a name where the entity goes (腾讯2025年营收),
else None. `leftover_terms` returns up to three content words no reader took, for the curators'
glossary-gap report; frames (question words, fillers, dimension words) are never one.
"""

from __future__ import annotations

import re

from core.model.period import Period
from core.parse.cues import OperatorReading
from core.parse.intent.route import CHANGE_WHY_CUES, DOCUMENT_CUES, NARRATIVE_CUES, NUMERIC_CUES, RouteCues
from core.parse.intent.terms import latin_term_find, name_term_find
from core.parse.intent.tokens import UNKNOWN, Word, words_read

# In a why (`为什么营收增长`), the way the figure moved is what is asked about, not a metric's name
# (营收增长 is not a metric the glossary lacks, as 营收增长率 would be).
_MOVED_IN_A_WHY = re.compile(r"增长|增加|减少|提升|回落|下降|上升|下滑|下跌|上涨|跌|涨")


def route_cue_spans(normalized: str) -> list[tuple[int, int]]:
    """The words the route cues read (多少, 为什么, 下降 …): never part of a metric's name."""
    spans = [m.span() for cue in (NARRATIVE_CUES, NUMERIC_CUES, DOCUMENT_CUES) for m in cue.finditer(normalized)]
    if CHANGE_WHY_CUES.search(normalized):
        spans += [m.span() for m in _MOVED_IN_A_WHY.finditer(normalized) if not _rate_follows(normalized, m.end())]
    return spans


def _rate_follows(normalized: str, end: int) -> bool:
    """`增长率`, `增速`: a rate's name, which stays a term."""
    return normalized[end : end + 1] in ("率", "速")


def unknown_term_find(
    question: str,
    language: str,
    normalized: str,
    read: list[tuple[int, int]],
    period_spans: list[tuple[int, int, Period]],
    metrics: list[str],
    entities: list[str],
    external: str | None,
    reading: OperatorReading,
    cues: RouteCues,
) -> str | None:
    """An acronym asking for a number (ROA), or a name where the entity goes (腾讯2025年营收)."""
    asks_for_numbers = bool(cues.numeric or reading.operation or (entities and period_spans) or metrics)
    acronym = latin_term_find(question, normalized, read, language=language, asks_for_numbers=asks_for_numbers)
    if acronym is not None or not metrics or entities or external is not None:
        return acronym
    return name_term_find(question, normalized, read, [(s, e) for s, e, _ in period_spans])


def leftover_terms(normalized: str, covered: list[tuple[int, int]]) -> tuple[str, ...]:
    """Content words the glossary did not know, for the glossary-gap report (each ≤ 32
    characters): adjacent content words are one term, frames are never one."""
    terms: list[str] = []
    group: list[Word] = []
    for word in [*words_read(normalized, [*covered, *route_cue_spans(normalized)]), None]:
        content = word is not None and (word.kind == UNKNOWN or (word.tag == "eng" and not word.text.isdigit()))
        if content and group and word.start == group[-1].end and word.tag != "eng":
            group.append(word)
            continue
        if group:
            terms.append(_term_text(normalized, group))
        group = [word] if content else []
    return tuple(dict.fromkeys(t for t in terms if 2 <= len(t) <= 32))[:3]


def _term_text(normalized: str, group: list[Word]) -> str:
    return normalized[group[0].start : group[-1].end]
