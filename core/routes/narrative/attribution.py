"""What a retrieved passage is about, for attribution about the thing asked.

Takes retrieved passages, the glossary snapshot and a `Focus` (the entities and the period a
question asked, as the intent parser resolved them); returns, for each passage and each of its
sentences, the in-scope entities it is about, its tier (`ASKED`, `GENERAL`, `OTHER`) and whether
it names the asked period, and tells a bare title line from a sentence.

- **Names are matched on normalised text** (`text_normalize`) with the glossary's own matcher,
  so every alias counts in its Traditional, full-width or spaced form.
- **What a sentence is about.** The entities it names; else the entity the sentence before it
  in its paragraph was about; else the one its section or document name names; else its
  document's issuer (the company whose report it is, `RetrievedChunk.issuer`). A passage is about
  the entities it or its section or document name names, else its issuer. The home company's
  name in a document or section name is no topic: it says whose document it is, not which part
  of the company the text is about; for the same reason a group's report is no other company's
  to a question about one of its subsidiaries (its issuer is set aside there).
- **Tiers.** `ASKED`: about an asked entity or one of its subsidiaries (a group's figure is
  explained by its parts); `OTHER`: about in-scope entities, none of them asked; `GENERAL`:
  about no entity (market text). With nothing asked, everything is `GENERAL`.
- **Periods.** A passage or sentence names the asked period when a period it names, or its
  document's or section's, lies in the asked one or holds it (`2025Q4` in `FY2025`, and back).
  Only absolute periods count: a relative one (`第四季度`, `去年`) cannot be placed without the
  document's own date, so the document's or section's period stands for it.
- **Bare title lines** (`title_line`): a line with no sentence mark, no clause and no figure
  outside brackets that is its section's or document's name, the line that opens its passage
  (a slide's title reads first) when short, or a nameplate (once glossary names, periods,
  figures and bracketed words are taken out, next to nothing is left, as in `HK QBR 2025Q4`
  or `分部营业收入（人民币百万元）`).
- **Shared wording** (`terms_of`, `terms_overlap`): glossary names as their concepts, so any
  alias in any language the glossary bridges meets any other, plus the words left; never a
  period or a figure.
- **Relevance** (`topic_of`, `FocusReader.relevant`): naming the asked entity is not being about
  the question. A question's topic is its terms beside entity names (and periods, never terms);
  a passage or sentence is relevant when it, or its section's or document's name, shares a topic
  term. A question with no topic (`香港2025年发生了什么`) asks about its entity and period in
  general: then text about the asked entity, or naming the asked period, is relevant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import PurePath

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, text_normalize
from core.language.periods import periods_find
from core.language.quantities import claims_find, prose_normalize
from core.model.types import Match, Period
from core.ports import RetrievedChunk
from core.routes.narrative.grounding import SENTENCE

ASKED, GENERAL, OTHER = 0, 1, 2
# Absolute periods do not depend on the reference date, and a document's relative ones (去年)
# cannot be placed without its own date; this reference places them where nothing is asked.
_NO_REFERENCE = date(1900, 1, 1)
_OTHER_REFERENCE = date(1950, 7, 1)
_CLOSED = re.compile(r"[。！？!?；;.]\s*$")
_CLAUSE = re.compile(r"[，,：:；;]")
_BRACKETED = re.compile(r"[（(【\[][^）)】\]]*[）)】\]]")
_ENUMERATION = re.compile(r"^(?:[一二三四五六七八九十]+|\d{1,2})[、.．)）]\s*")
_SEPARATORS = re.compile(r"[\s_\-—–·•|/:：]+")
_CJK_CHARS = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_CJK = re.compile(_CJK_CHARS)
_ASCII_WORD = re.compile(r"[a-z]+")
_TERM_CJK_RUN = re.compile(_CJK_CHARS + "+")
_TERM_ASCII_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_TOPICS = ("metric:", "channel:")
# Words that ask what happened rather than name a topic; a question of only these, its entity and
# its period asks about that entity and period in general.
_EVENT_WORDS = re.compile(
    r"发生|情况|表现|怎样|动态|近况|进展|新闻|消息"
    r"|\b(?:happen(?:ed|ing|s)?|news|updates?|latest|recent(?:ly)?|going|doing|performance|perform(?:ed)?)\b"
)
_QUESTION_FORM = re.compile(
    r"为什么|为何|原因|归因|怎么看|如何看|怎么样|是什么|什么|哪些|哪个|如何|多少|有没有|是否|请问|最近|吗|呢|的|了|是|有"
    r"|\b(?:why|what|which|how|is|are|was|were|the|a|an|of|in|did|does|do"
    r"|to|for|and|or|on|at|by|with|from|its|it|this|that|has|have|had|be|been|as)\b"
)
_HEADING_CHARS = 24  # the longest line read as the heading that opens a passage
_NAMEPLATE_LEFT = 4  # what a nameplate leaves once names and periods are out (an ASCII word counts 2)


@dataclass(frozen=True)
class Focus:
    """The entities and the period a question asked; empty when it asked none."""

    entities: tuple[str, ...] = ()
    period: Period | None = None


@dataclass(frozen=True)
class Sentence:
    text: str
    position: int  # in reading order within its passage
    paragraph: int  # the line of its passage it stands on
    about: frozenset[str]
    tier: int
    in_period: bool
    title: bool


def entities_named(text: str, glossary: GlossarySnapshot) -> frozenset[str]:
    """The in-scope entities `text` names, by any alias in any written form."""
    return frozenset(m.code for m in _matches(text, glossary) if m.kind == "entity" and not m.external)


# Pure, and asked of the same passages' sentences again and again.
@lru_cache(maxsize=8192)
def period_spans(normalized: str) -> tuple[tuple[int, int, Period], ...]:
    """The absolute periods normalised text names, as `(start, end, period)`: those read the same
    whatever the reference date (a relative one moves with it)."""
    moved = set(periods_find(normalized, _OTHER_REFERENCE))
    return tuple(span for span in periods_find(normalized, _NO_REFERENCE) if span in moved)


def periods_named(text: str) -> tuple[Period, ...]:
    return tuple(period for _, _, period in period_spans(text_normalize(text)))


def periods_overlap(first: Period, second: Period) -> bool:
    """Whether one period lies within the other (a quarter in its half or year, and back)."""
    if first.year != second.year:
        return False
    if "FY" in (first.period_type, second.period_type) or first == second:
        return True
    half, quarter = (first, second) if first.period_type == "HY" else (second, first)
    if half.period_type != "HY" or quarter.period_type != "QUARTER":
        return False
    return (int(quarter.period[-1]) <= 2) == half.period.endswith("H1")


def _matches(text: str, glossary: GlossarySnapshot) -> list[Match]:
    return glossary.match(text_normalize(text))


def section_of(locator: str) -> str:
    """The section label a locator names (`section=二、香港业务,para=1` → `二、香港业务`)."""
    for part in locator.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "section":
            return value.strip()
    return ""


def _heading_key(text: str) -> str:
    stem = _ENUMERATION.sub("", text_normalize(text).strip())
    return _SEPARATORS.sub("", stem)


def title_line(line: str, *, opens_passage: bool, names: Iterable[str], glossary: GlossarySnapshot) -> bool:
    """Whether `line` is a bare title: see the module's docstring. `names` are the passage's
    section and document names."""
    normalized = text_normalize(line).strip()
    if not normalized or _CLOSED.search(normalized) or _CLAUSE.search(normalized):
        return False
    if claims_find(prose_normalize(_BRACKETED.sub(" ", normalized))).quantities:
        return False  # a bracket holds a caption's unit (`（人民币百万元）`), which reads as a figure
    key = _heading_key(normalized)
    if any(key and key == _heading_key(name) for name in names if name):
        return True
    if opens_passage and len(compact_view(normalized)[0]) <= _HEADING_CHARS:
        return True
    return _left_over(normalized, glossary) <= _NAMEPLATE_LEFT


def _left_over(normalized: str, glossary: GlossarySnapshot) -> int:
    """How much of a line is neither a glossary name, a period, a figure nor in brackets."""
    kept = list(_BRACKETED.sub(" ", normalized))
    for start, end, _ in period_spans("".join(kept)):
        kept[start:end] = " " * (end - start)
    text = "".join(kept)
    _, positions = compact_view(text)
    blank = set()
    for match in glossary.match(text):
        blank.update(positions[match.start : match.end])
    rest = "".join(" " if i in blank else ch for i, ch in enumerate(text))
    return len(_CJK.findall(rest)) + 2 * len(_ASCII_WORD.findall(rest))


# -- what a sentence shares with the question ---------------------------------------------
def _concepts(normalized: str, glossary: GlossarySnapshot) -> tuple[set[str], str]:
    """The glossary concepts `normalized` names (`entity:ACME_HK`, `metric:REVENUE`), and the text
    left with those names and every period blanked out."""
    kept = list(normalized)
    for start, end, _ in period_spans(normalized):
        kept[start:end] = " " * (end - start)
    _, positions = compact_view(normalized)
    concepts = set()
    for match in glossary.match(normalized):
        concepts.add(f"{match.kind}:{match.code}")
        for index in positions[match.start : match.end]:
            kept[index] = " "
    return concepts, "".join(kept)


def _words(text: str) -> set[str]:
    """ASCII words and CJK character bigrams (a lone character as itself); never a figure."""
    words = {w for w in _TERM_ASCII_WORD.findall(text) if not any(ch.isdigit() for ch in w)}
    for run in _TERM_CJK_RUN.findall(text):
        words.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    return words


def terms_of(text: str, glossary: GlossarySnapshot, *, question: bool = False) -> frozenset[str]:
    """What the extractive selector compares: every glossary name as its concept (so any alias,
    in any language the glossary bridges, meets any other), and the words of what is left.

    Periods and figures are no terms: a passage is not an answer because it shares a year or a
    number with the question (the asked period ranks passages instead, see `attribution`).
    A question also loses its question words (为什么, why …).
    """
    concepts, rest = _concepts(text_normalize(text), glossary)
    if question:
        rest = _QUESTION_FORM.sub(" ", _EVENT_WORDS.sub(" ", rest))
    return frozenset(concepts | _words(rest))


def topic_of(wanted: frozenset[str]) -> frozenset[str]:
    """A question's terms beside the entities it names: what a passage must share to answer it."""
    return frozenset(term for term in wanted if not term.startswith("entity:"))


def terms_overlap(wanted: frozenset[str], terms: frozenset[str]) -> int:
    """Shared terms; a metric's or channel's name counts twice, like the two bigrams of a short
    Chinese name it stands for (the entity is what the tiers rank by, so it counts once)."""
    return sum(2 if term.startswith(_TOPICS) else 1 for term in wanted & terms)


class FocusReader:
    """Reads passages against one question's focus (built once per question)."""

    def __init__(self, focus: Focus | None, glossary: GlossarySnapshot):
        self.focus = focus or Focus()
        self.glossary = glossary
        self.home = glossary.home_entity
        scope: set[str] = set()
        pending = [code for code in self.focus.entities if code in glossary.entities]
        while pending:
            code = pending.pop()
            if code not in scope:
                scope.add(code)
                pending.extend(child.code for child in glossary.children(code))
        self.scope = frozenset(scope)
        holders: set[str] = set()
        for code in self.focus.entities:
            parent = glossary.entities[code].parent if code in glossary.entities else None
            while parent is not None and parent not in holders:
                holders.add(parent)
                parent = glossary.entities[parent].parent if parent in glossary.entities else None
        self.holders = frozenset(holders - scope)
        self._contexts: dict[int, tuple[frozenset[str], tuple[Period, ...], frozenset[str]]] = {}
        self._named: dict[str, frozenset[str]] = {}
        self._terms: dict[str, frozenset[str]] = {}

    # -- tiers ------------------------------------------------------------------------------
    def tier(self, about: frozenset[str]) -> int:
        if not self.scope or not about:
            return GENERAL
        return ASKED if about & self.scope else OTHER

    def in_period(self, periods: Iterable[Period]) -> bool:
        asked = self.focus.period
        return asked is not None and any(periods_overlap(asked, period) for period in periods)

    # -- passages ---------------------------------------------------------------------------
    def _names(self, chunk: RetrievedChunk) -> tuple[str, str]:
        return section_of(chunk.locator), PurePath(chunk.doc).stem

    def named(self, text: str) -> frozenset[str]:
        if text not in self._named:
            self._named[text] = entities_named(text, self.glossary)
        return self._named[text]

    def periods(self, text: str) -> tuple[Period, ...]:
        """The periods `text` names; none are read when no period was asked."""
        return periods_named(text) if self.focus.period is not None else ()

    def issuer(self, chunk: RetrievedChunk) -> frozenset[str]:
        """The passage's issuer as what it is about, unless it is a group holding an asked entity."""
        info = self.glossary.entities.get(chunk.issuer)
        if info is None or self.glossary.is_external(info.code) or info.code in self.holders:
            return frozenset()
        return frozenset({info.code})

    def context(self, chunk: RetrievedChunk) -> tuple[frozenset[str], tuple[Period, ...]]:
        """The entities (the home company aside) and periods the passage's section or document names;
        its issuer when they name none."""
        named, periods, issuer = self._context(chunk)
        return named or issuer, periods

    def _context(self, chunk: RetrievedChunk) -> tuple[frozenset[str], tuple[Period, ...], frozenset[str]]:
        if chunk.chunk_id not in self._contexts:
            section, document = self._names(chunk)
            periods = self.periods(section) + self.periods(document)
            named = next((found for found in (self.named(n) - {self.home} for n in (section, document)) if found), None)
            self._contexts[chunk.chunk_id] = (named or frozenset(), periods, self.issuer(chunk))
        return self._contexts[chunk.chunk_id]

    def passage_rank(self, chunk: RetrievedChunk) -> tuple[int, bool]:
        """(tier, misses the asked period): what passages are ordered by, lowest first."""
        _, periods, _ = self._context(chunk)
        return self.tier(self.about_chunk(chunk)), not self.in_period(periods + self.periods(chunk.text))

    def passages_order(self, chunks: list[RetrievedChunk], topic: frozenset[str] | None = None) -> list[RetrievedChunk]:
        """Relevant passages (to `topic`, see `relevant`; all when no topic is given) first; among
        them and then among the rest, the asked entity's, general ones, another entity's; within
        each, those naming the asked period first. Another entity's are left out once a relevant
        passage about the asked one exists. Stable."""
        ranks = {}
        for chunk in chunks:
            tier, missed = self.passage_rank(chunk)
            fits = topic is None or self.relevant(chunk, self.terms(chunk.text), topic, tier, not missed)
            ranks[chunk.chunk_id] = (not fits, tier, missed)
        ordered = sorted(chunks, key=lambda chunk: ranks[chunk.chunk_id])
        if any(ranks[c.chunk_id][:2] == (False, ASKED) for c in ordered):
            ordered = [c for c in ordered if ranks[c.chunk_id][1] != OTHER]
        return ordered

    # -- relevance --------------------------------------------------------------------------
    def terms(self, text: str) -> frozenset[str]:
        if text not in self._terms:
            self._terms[text] = terms_of(text, self.glossary)
        return self._terms[text]

    def relevant(
        self, chunk: RetrievedChunk, terms: frozenset[str], topic: frozenset[str], tier: int, in_period: bool
    ) -> bool:
        """Whether text of `chunk` with these `terms`, tier and period answers a question with this
        `topic`: it or its passage's section or document name shares a topic term; with no topic,
        it is about the asked entity or names the asked period."""
        if not topic:
            return in_period or (bool(self.scope) and tier == ASKED)
        return bool(topic & terms) or bool(topic & self.terms(" ".join(self._names(chunk))))

    def about_chunk(self, chunk: RetrievedChunk) -> frozenset[str]:
        """What the passage names, with what its section or document names; else its issuer."""
        named, _, issuer = self._context(chunk)
        return (self.named(chunk.text) | named) or issuer

    # -- sentences --------------------------------------------------------------------------
    def sentences(self, chunk: RetrievedChunk) -> list[Sentence]:
        entities, periods = self.context(chunk)
        names = self._names(chunk)
        out: list[Sentence] = []
        lines = [line for line in chunk.text.split("\n") if line.strip()]
        for index, line in enumerate(lines):
            carried = frozenset[str]()
            pieces = [piece.strip() for piece in SENTENCE.findall(line) if piece.strip()]
            for piece in pieces:
                named = self.named(piece)
                carried = named or carried
                about = carried or entities
                title = len(pieces) == 1 and title_line(
                    piece, opens_passage=index == 0, names=names, glossary=self.glossary
                )
                in_period = self.in_period(self.periods(piece) or periods)
                out.append(Sentence(piece, len(out), index, about, self.tier(about), in_period, title))
        return out
