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
- **Bare title lines** and **shared wording**: see `core.routes.narrative.wording`.
- **Relevance** (`topic_of`, `FocusReader.relevant`): naming the asked entity is not being about
  the question. A question's topic is its terms beside entity names (and periods, never terms);
  a passage or sentence is relevant when it, or its section's or document's name, shares a topic
  term. A question with no topic (`香港2025年发生了什么`) asks about its entity and period in
  general: then text about the asked entity, or naming the asked period, is relevant.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.intent import Match
from core.model.period import Period
from core.ports import RetrievedChunk
from core.routes.narrative.grounding import SENTENCE
from core.routes.narrative.wording import (
    periods_named,
    periods_overlap,
    section_of,
    terms_of,
    title_line,
)

ASKED, GENERAL, OTHER = 0, 1, 2


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


def _matches(text: str, glossary: GlossarySnapshot) -> list[Match]:
    return glossary.match(text_normalize(text))


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

    def passage_terms(self, chunk: RetrievedChunk) -> frozenset[str]:
        """The terms of a passage with those of its section's and document's names."""
        return self.terms(chunk.text) | self.terms(" ".join(self._names(chunk)))

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
