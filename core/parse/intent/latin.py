"""Latin words in a question: which are terms the glossary does not know.

Takes the normalised question (and the question as written, for the case of each word) and the
spans other readers took. `longer_english` finds an English metric alias inside a longer term
(adjusted net income, revenue per store, revenue target, EBITDA margin), `longer_english_name`
an English entity alias inside a capitalised name (Sea Limited), `latin_term_find` an acronym or
a Latin word asking for a number that nothing reads (ROA). English function words, currencies
and standards (`NOT_A_TERM`) are never a term.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

Span = tuple[int, int]


def _word_set(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


_LONGER_EN = re.compile(r"\s?(?:margin|ratio|rate|yield)s?(?![a-z])")
LATIN = re.compile(r"[a-z][a-z0-9&]*", re.IGNORECASE)
_LATIN_FOLLOWER = re.compile(r"\s?(?:(?:margin|ratio|rate|yield)s?(?![a-z])|率)")
# Latin words that are no metric: English function words and requests, currencies, standards.
NOT_A_TERM = _word_set(
    "a an the of in on at for by from to and or vs versus with than as per via into over under",
    "up down out what whats what's was is are were be been being how much many which who whom",
    "whose when where why did does do done has have had can could would will should may might",
    "must shall please show me give tell list get find display compare compared calculate",
    "need want know pull fetch grab send confirm verify quote retrieve obtain view",
    "compute summarize summarise explain describe provide report check look see rank sort break",
    "breakdown let lets us i we you it its our my your their this that these those there here s",
    "last previous prior current next year years quarter quarters half month months fiscal fy annual yearly",
    "total group company companies firm overall whole entire all each every both between about",
    "approximately around roughly value figure figures number numbers amount level latest",
    "recent most data result results reported change growth usd cny rmb hkd eur gbp jpy sgd",
    "ifrs gaap hkfrs cas pct pp bps ttm ltm",
    "myr twd krw aud cad chf inr thb idr php vnd bn mn tn",
    # the rest of the prepositions, and the interjections a question may open with
    "regarding concerning including excluding during within without across against among around along",
    "beside besides beyond despite except following like near since until upon toward towards unlike plus",
    "hey hi hello thanks thank ok okay yes sorry dear",
)


def taken_mask(length: int, taken: Sequence[Span]) -> list[bool]:
    mask = [False] * length
    for start, end in taken:
        for i in range(max(start, 0), min(end, length)):
            mask[i] = True
    return mask


_AUXILIARIES = _word_set("did does do has have had will would can could should shall may might must")
_PER_WORD = re.compile(r" per ([a-z][a-z0-9&]*)(?![a-z0-9&])")
# What ends an English noun phrase asked about: the clause's end, or the period it is asked for.
_PHRASE_END = re.compile(
    r"\s*(?:[,.;:?!)]|$)|\s+(?:(?:for|in|of|during|from|at)\s+)?(?:(?:the\s+)?fy\s?'?|q[1-4]\s?|h[12]\s?)?[0-9]"
)


def longer_english(
    normalized: str,
    latin: Sequence[tuple[int, int, str]],
    mask: list[bool],
    start: int,
    end: int,
    *,
    names: Sequence[Span],
    named_entity: bool,
) -> tuple[str, Span] | None:
    """An English metric alias inside a longer term: a word that modifies it before it
    (adjusted net income, budgeted capex, core net profit, net revenue, average revenue), `per
    <noun>` after it (revenue per store), a head noun after it (revenue target, capex budget), or
    margin / ratio / rate / yield after it. English function words never make one, nor a word
    another reader took, nor one inside a name (the Limited of `Sea Limited revenue`)."""
    after = _LONGER_EN.match(normalized, end)
    if after is not None:
        word = (after.end() - len(after.group(0).lstrip()), after.end())
        if not any(mask[i] for i in range(*word)):  # `operating profit to revenue ratio`: a cue's word
            return normalized[start : after.end()], (start, after.end())
    first, last = start, end
    before = [t for t in latin if t[1] <= start]
    for s, e, word in reversed(before):
        if normalized[e:first] not in (" ", "-") or not _modifies(word, (s, e), mask, names):
            break
        if word[:1].isupper() and not named_entity:
            break  # `Tencent revenue`: a name where the entity goes (`name_term_find`)
        first = s
    per = _PER_WORD.match(normalized, end)
    if per is not None and not mask[per.start() + 1]:
        last = per.end()
    elif not _inverted(normalized, latin, start):
        head = next(((s, e, w) for s, e, w in latin if s == end + 1 and normalized[end] == " "), None)
        noun = head is not None and _modifies(head[2], head[:2], mask, names) and not head[2].endswith(("ed", "ing"))
        if head is not None and noun and _PHRASE_END.match(normalized, head[1]):
            last = head[1]
    if (first, last) == (start, end):
        return None
    return normalized[first:last], (first, last)


def _modifies(word: str, span: Span, mask: list[bool], names: Sequence[Span]) -> bool:
    """Whether a Latin word beside a metric is content: no function word, digit, or word another
    reader or a name took."""
    if any(mask[span[0] : span[1]]) or any(s <= span[0] and span[1] <= e for s, e in names):
        return False
    return word.lower() not in NOT_A_TERM and not word.isdigit()


def _inverted(normalized: str, latin: Sequence[tuple[int, int, str]], start: int) -> bool:
    """Whether an auxiliary opens the metric's clause (`did revenue grow`, `has capex risen`): the
    word after the metric is then its verb, not its head noun."""
    opening = max((normalized.rfind(p, 0, start) for p in ",;?!."), default=-1)
    return any(opening < s and e <= start and w.lower() in _AUXILIARIES for s, e, w in latin)


def longer_english_name(
    normalized: str, latin: Sequence[tuple[int, int, str]], mask: list[bool], start: int, end: int
) -> tuple[str, Span] | None:
    """An English entity alias inside a capitalised name (Sea Limited holds SEA, Hong Kong
    Telecom holds Hong Kong): capitalised words nothing reads, right beside it."""

    def capital(token: tuple[int, int, str]) -> bool:
        s, e, word = token
        return word[:1].isupper() and not any(mask[s:e]) and word.lower() not in NOT_A_TERM

    first, last = start, end
    for token in reversed([t for t in latin if t[1] <= start]):
        if normalized[token[1] : first] != " " or not capital(token):
            break
        first = token[0]
    for token in [t for t in latin if t[0] >= end]:
        if normalized[last : token[0]] != " " or not capital(token):
            break
        last = token[1]
    if (first, last) == (start, end):
        return None
    written = " ".join(w for s, e, w in latin if first <= s and e <= last)
    return written, (first, last)


@lru_cache(maxsize=64)
def latin_tokens(question: str, normalized: str) -> tuple[tuple[int, int, str], ...]:
    """The Latin words of the normalised question with their spans, each in the case it was
    written in (lower case when the two cannot be lined up). Remembered: a parse reads them for
    the longer terms and again for the acronyms."""
    found = [(m.start(), m.end(), m.group(0)) for m in LATIN.finditer(normalized)]
    written = [m.group(0) for m in LATIN.finditer(unicodedata.normalize("NFKC", question))]
    if len(written) == len(found) and all(w.lower() == t for w, (_, _, t) in zip(written, found, strict=True)):
        return tuple((s, e, w) for (s, e, _), w in zip(found, written, strict=True))
    return tuple(found)


def latin_term_find(
    question: str, normalized: str, taken: Sequence[Span], *, language: str, asks_for_numbers: bool
) -> str | None:
    """A Latin word asking for a number that nothing reads (ROA, `EBITDA margin`): all capitals,
    or any case in a Chinese question. Capitalised words are names (`name_term_find`)."""
    if not asks_for_numbers:
        return None
    mask = taken_mask(len(normalized), taken)
    for start, end, word in latin_tokens(question, normalized):
        if any(mask[start:end]) or word.lower() in NOT_A_TERM or word.isdigit():
            continue
        shouting = word.isupper() and len(word) >= 2
        if not (shouting or (language == "zh" and word.islower())):
            continue
        after = _LATIN_FOLLOWER.match(normalized, end)
        if after is not None and not any(mask[after.start() : after.end()]):
            follower = after.group(0)
            return word + (follower if follower.strip() == "率" else " " + follower.strip())
        return word
    return None
