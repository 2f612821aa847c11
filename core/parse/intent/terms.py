"""Terms the glossary does not know (never a shorter alias, never another entity).

Takes the normalised question, the question as written, the glossary hits with their spans in
the normalised text, and every span another reader took (periods, stretches of time no period
type holds, operator cues, route cues). Returns the hits that stand for what the question names,
and the first term it names that no alias covers, as the analyst wrote it:

- a metric alias with unread Chinese words right beside it, on either side, is part of a longer
  term (归母净利润, 资本开支回报率, 归属于母公司所有者的净利润): had the term been an alias, the
  longest match would have taken it. Words are unread when no hit, period, cue, question word,
  filler or dimension word (地区, 渠道 …) holds them; the structural 的/之/于 joins a name's words
  and does not separate them. An English alias makes a longer term with a word that modifies it
  before it (adjusted net income, budgeted capex, net revenue), `per <noun>` after it (revenue per
  store), a head noun after it that ends its phrase (revenue target, capex budget), or margin /
  ratio / rate / yield; an English function word never does;
- a Latin token asking for a number that nothing reads (ROA, EBITDA, `EBITDA margin`): all capitals,
  or any case in a Chinese question, not a currency, standard or English function word;
- an in-scope entity's alias inside a longer name (中国平安 holds 中国; in English a capitalised
  name: Sea Limited holds SEA), by the same rule as a metric's, and a name where the entity goes
  (腾讯2025年营收, Tencent revenue) when the question names no entity but a metric: never answered
  as a known entity or the home entity.

The clarifier asks back for each (`term_names_entity` tells it which kind). Only the question's
shape is read: no demo word or code.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from core.glossary import GlossarySnapshot
from core.model.intent import Match, ParsedIntent
from core.parse.intent.latin import (
    LATIN,
    NOT_A_TERM,
    Span,
    latin_term_find,
    latin_tokens,
    longer_english,
    longer_english_name,
    taken_mask,
)
from core.parse.intent.tokens import (
    DIMENSION,
    GENERIC_WORDS,
    UNKNOWN,
    Word,
    clause_openers,
    left_attached,
    right_attached,
    words_read,
)

__all__ = ["latin_term_find", "longer_terms_drop", "name_term_find", "term_is_a_name", "term_names_entity"]


def longer_terms_drop(
    question: str, normalized: str, matches: Sequence[Match], spans: Sequence[Span], taken: Sequence[Span]
) -> tuple[list[tuple[Match, Span]], str | None]:
    """The hits that stand, and the first longer term no alias covers: a metric's (归母净利润,
    adjusted net income) or an in-scope entity's (中国平安 holds 中国, 腾讯集团 holds 集团, Sea
    Limited holds SEA). An external entity's hit stays: the security gate refuses it whatever
    surrounds it; so does a hit inside another's longer term (the store of `revenue per store`).

    `taken` holds every span another reader took (cues, periods …); the hits' own spans are added.
    What is left is segmented and typed (`core.parse.intent.tokens`): only content beside a name makes
    it longer, never a frame.
    """
    mask = taken_mask(len(normalized), [*spans, *taken])
    words = words_read(normalized, [*spans, *taken])
    openers = clause_openers(normalized, words)
    metric_starts = {span[0] for m, span in zip(matches, spans, strict=True) if m.kind == "metric"}
    latin = latin_tokens(question, normalized) if LATIN.search(normalized) else ()
    longer: dict[int, tuple[str, Span]] = {}
    if metric_starts:
        for i, (m, (start, end)) in enumerate(zip(matches, spans, strict=True)):
            if m.kind == "entity" and not m.external and normalized[end - 1].isascii():
                named = longer_english_name(normalized, latin, mask, start, end)
                if named is not None:
                    longer[i] = named
    names = [span for _, span in longer.values()]
    named_entity = any(m.kind == "entity" and i not in longer for i, m in enumerate(matches))
    for i, (m, (start, end)) in enumerate(zip(matches, spans, strict=True)):
        if m.kind != "metric":
            continue
        term: tuple[str, Span] | None
        if normalized[end - 1].isascii():
            term = longer_english(normalized, latin, mask, start, end, names=names, named_entity=named_entity)
        else:
            left = left_attached(words, start, openers)
            right = right_attached(words, end, normalized)
            term = None
            if left or right:
                first = left[0].start if left else start
                last = right[-1].end if right else end
                term = (_as_one_word(normalized[first:last]), (first, last))
        if term is not None:
            longer[i] = term
    # An entity's longer name counts in a question for a figure: `东南亚扩张有什么计划` is a topic.
    if any(m.kind == "metric" and i not in longer for i, m in enumerate(matches)):
        for i, (m, (start, end)) in enumerate(zip(matches, spans, strict=True)):
            if m.kind == "entity" and not m.external and i not in longer:
                name = _longer_name(normalized, words, start, end, before_metric=metric_starts)
                if name is not None:
                    longer[i] = (name, (start, end))
    inside = [span for _, span in longer.values()]
    kept = [
        (m, span)
        for i, (m, span) in enumerate(zip(matches, spans, strict=True))
        if i not in longer and (m.external or not any(s <= span[0] and span[1] <= e for s, e in inside))
    ]
    return kept, _as_written(question, longer[min(longer)][0]) if longer else None


def _as_written(question: str, term: str) -> str:
    """The term in the case the analyst wrote it (`ACME日本`, not `acme日本`) when the question holds it."""
    written = unicodedata.normalize("NFKC", question)
    at = written.lower().find(term)
    return written[at : at + len(term)] if at >= 0 and len(written.lower()) == len(written) else term


def _in_a_name(word: Word) -> bool:
    """Whether a word glued to a name, or opening a question where a name goes, is part of one:
    content, an adjective or a distinguishing word (平安 of 中国平安), never a function word, a
    request verb, a generic or a dimension word."""
    if word.kind == UNKNOWN:
        return True
    if word.kind == DIMENSION or word.text in GENERIC_WORDS:
        return False
    return word.tag.startswith(("a", "b"))


def _longer_name(
    normalized: str, words: Sequence[Word], start: int, end: int, *, before_metric: set[int]
) -> str | None:
    """An in-scope entity's alias inside a longer name (中国平安, 腾讯集团); words between an
    entity and its metric belong to the metric (集团总营收)."""
    before = [w for w in words if w.end <= start]
    after = [w for w in words if w.start >= end]
    left: list[Word] = []
    for word in reversed(before):
        if word.end != (left[0].start if left else start) or not _in_a_name(word):
            break
        left.insert(0, word)
    right: list[Word] = []
    for word in after:
        if word.start != (right[-1].end if right else end) or not _in_a_name(word):
            break
        if word.kind != UNKNOWN and word.tag.startswith("a") and len(word.text) == 1:
            break  # a one-character adjective after a name says something of it (中国内地快还是慢)
        right.append(word)
    if right and right[-1].end in before_metric:
        right = []
    if not (left or right):
        return None
    return _as_one_word(normalized[left[0].start if left else start : right[-1].end if right else end])


def _as_one_word(text: str) -> str:
    """A term as the analyst wrote it: Chinese without spaces, English words single-spaced."""
    return text if text.isascii() else "".join(text.split())


def name_term_find(question: str, normalized: str, taken: Sequence[Span], period_spans: Sequence[Span]) -> str | None:
    """A name where the entity goes, for a question that names a metric and no entity:
    capitalised Latin words nothing reads (`Tencent revenue`, `What was Tencent's revenue`; of
    several, the one where the entity goes: `Hey, … China Mobile's revenue`), or
    unread Chinese words that open the question right before its period or metric
    (`腾讯2025年营收`, `请问腾讯在2025年的营收`); right before the metric, the words are a longer
    term (`longer_terms_drop`)."""
    mask = taken_mask(len(normalized), taken)
    tokens = latin_tokens(question, normalized)

    def is_name(token: tuple[int, int, str]) -> bool:
        start, end, word = token
        return not any(mask[start:end]) and word[:1].isupper() and not word.isupper() and word.lower() not in NOT_A_TERM

    def opens_a_frame(i: int) -> bool:
        """A capital that only opens a sentence, followed by a function word (`According to`,
        `Regarding the`), is no name."""
        before = normalized[: tokens[i][0]].rstrip()
        opening = not before.strip(" \"'“”‘’([") or before[-1:] in ".?!:;,"
        following = tokens[i + 1][2].lower() if i + 1 < len(tokens) else ""
        return opening and following in NOT_A_TERM

    def where_the_entity_goes(first: int, last: int) -> bool:
        """Owning (`China Mobile's`), before a word another reader took (`Tencent revenue`), or
        after a preposition that names an owner (`revenue of Tencent`)."""
        end = tokens[last][1]
        before_a_read_word = normalized[end : end + 1] == " " and end + 1 < len(mask) and mask[end + 1]
        owner = normalized.startswith(("'s", "’s", "s'"), end) or before_a_read_word
        return owner or normalized[: tokens[first][0]].endswith(("of ", "for ", "at ", "from "))

    names: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        if not is_name(tokens[i]) or opens_a_frame(i):
            i += 1
            continue
        last = i
        while last + 1 < len(tokens) and normalized[tokens[last][1] : tokens[last + 1][0]] == " ":
            if not is_name(tokens[last + 1]):
                break
            last += 1
        names.append((i, last))
        i = last + 1
    if names:  # several capitalised words: the one where the entity goes (`Hey, … China Mobile's`)
        first, last = next((n for n in names if where_the_entity_goes(*n)), names[0])
        return " ".join(word for _, _, word in tokens[first : last + 1])
    first = next((i for i, ch in enumerate(normalized) if not (ch.isspace() or _is_punctuation(ch))), None)
    if first is None or mask[first] or normalized[first].isascii():
        return None
    opening: list[Word] = []
    for word in words_read(normalized, taken):
        if word.start < first:
            continue
        if word.start != (opening[-1].end if opening else first):
            break
        opening.append(word)
    at = opening[-1].end if opening else first
    following = next((i for i in range(at, len(normalized)) if not normalized[i].isspace()), None)
    if following not in {s for s, _ in period_spans}:
        return None  # right before the metric, `longer_terms_drop` has read it (主营业务收入)
    names = [word for word in opening if _in_a_name(word)]
    return _as_one_word(normalized[names[0].start : names[-1].end]) if names else None  # 那净利润呢: frames only


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def term_names_entity(intent: ParsedIntent, glossary: GlossarySnapshot) -> bool:
    """Whether the intent's unknown term names an entity (`name_term_find`, or an entity alias
    inside a longer name), not a metric: it holds no metric alias and is no acronym, in a
    question that names a metric."""
    return term_is_a_name(intent.unknown_metric, intent.metrics, glossary)


def term_is_a_name(term: str | None, metrics: Sequence[str], glossary: GlossarySnapshot) -> bool:
    """`term_names_entity` for a term and the metrics the question names."""
    if not term or not metrics:
        return False
    if any(m.kind == "metric" for m in glossary.match(term)):
        return False
    return not (term.isascii() and term.split()[0].isupper())
