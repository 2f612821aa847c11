"""The ports through which the core reaches the outside world.

Django apps provide ORM-backed adapters (wired in `agent/bootstrap.py`); tests pass fakes.
Every read port takes the caller's clearance so that RESTRICTED rows are filtered where they
are loaded, never afterwards. The glossary is not a port but a value: the caller
passes the current `GlossarySnapshot`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.fx import FxQuote
from core.model.intent import ParsedIntent
from core.model.period import Period
from core.model.result import Source


class FactStore(Protocol):
    def fact_get(self, task: SubTask, *, cleared: bool) -> FactRecord | None: ...

    def pending_count(self, task: SubTask, *, cleared: bool) -> int:
        """How many candidate figures for `task`'s key wait for curator review, counting only
        those the caller may see (a RESTRICTED one counted would reveal that it exists). Read on
        the not-found path only. A store that keeps no review queue counts none; `task_pending`
        reads it from a store that does not declare this method as well."""
        return 0


@runtime_checkable
class BulkFactStore(Protocol):
    """A store that can also read many keys at once (a ranking over thousands of entities):
    the same facts `fact_get` would return one by one, keyed by `SubTask.key`."""

    def facts_get(self, tasks: Iterable[SubTask], *, cleared: bool) -> Mapping[tuple[str, ...], FactRecord]: ...

    def figures_get(self, tasks: Iterable[SubTask], *, cleared: bool) -> Mapping[tuple[str, ...], tuple[Decimal, str]]:
        """Only the value and sensitivity of those facts: what a long ranking reads first."""
        ...


@dataclass(frozen=True)
class FiguresHead:
    """The head of one metric's figures across many entities, and what the rest add up to: what
    a long ranking needs, without reading every figure.

    `rows` are `(entity, value, sensitivity, unit)`, best first: every figure up to the
    `top`-th, every figure equal to the `top`-th as a double, and then the next figure if the
    field has one (so the cut is known). `count` is how many of the entities have a figure the
    caller may see, `units` and `sensitivity` are over all of them, and `found` names them when
    some entity has none (None when every entity has one)."""

    rows: tuple[tuple[str, Any, str, str], ...]
    count: int
    units: frozenset[str]
    sensitivity: str
    found: frozenset[str] | None


@runtime_checkable
class FiguresHeadStore(Protocol):
    """A store that can find the head of a long ranking itself, in the database (`FiguresHead`),
    instead of returning every figure (`BulkFactStore.figures_get`). It returns None when it
    cannot tell the head for these entities; the caller then reads every figure."""

    def figures_head(
        self,
        metric: str,
        entities: Collection[str],
        period: Period,
        channel: str,
        *,
        cleared: bool,
        order: str,
        top: int,
    ) -> FiguresHead | None: ...


@dataclass(frozen=True)
class ChangesHead:
    """The largest changes of one metric between two periods across many entities, and what all
    the changes add up to: what a why over thousands of subsidiaries needs, without reading
    every figure.

    `rows` are `(entity, value now, value before, level now, level before, unit now, unit
    before)`, values exact: the first `top` by `|now − before|`, largest first, ties by entity
    code (as Python orders text). `count` is how many of the entities have a
    figure the caller may see in both periods; `units`, `sensitivity` and `total` (the exact
    sum of their changes) are over those; `lacking` names the entities with a figure in one of
    the two periods only."""

    rows: tuple[tuple[str, Decimal, Decimal, str, str, str, str], ...]
    count: int
    units: frozenset[str]
    sensitivity: str
    lacking: frozenset[str]
    total: Decimal


@runtime_checkable
class ChangesHeadStore(Protocol):
    """A store that can find the largest changes between two periods itself, in the database
    (`ChangesHead`), instead of returning every figure of both. It returns None when it cannot
    tell them exactly for these entities; the caller then reads every figure."""

    def changes_head(
        self,
        metric: str,
        entities: Collection[str],
        now: Period,
        before: Period,
        channel: str,
        *,
        cleared: bool,
        top: int,
    ) -> ChangesHead | None: ...


@dataclass(frozen=True)
class RetrievedChunk:
    chunk_id: int
    doc: str
    locator: str
    text: str
    score: float
    document_id: int | None = None
    issuer: str = ""  # the entity code of the company whose document it is ("" when unknown)
    sensitivity: str = ""  # RESTRICTED when the chunk or its document is; "" otherwise


class NarrativeRetriever(Protocol):
    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]: ...

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]: ...


@runtime_checkable
class BatchNarrativeRetriever(NarrativeRetriever, Protocol):
    """A retriever that can also answer several queries at once (a question and its glossary
    variants): the same lists `retrieve` would return one by one, in the order of `queries`, with
    the shared work (embedding the queries, reading the hits) done once."""

    def retrieve_many(self, queries: Sequence[str], *, cleared: bool, k: int = 8) -> list[list[RetrievedChunk]]: ...


@runtime_checkable
class ScopedNarrativeRetriever(NarrativeRetriever, Protocol):
    """A retriever that can also search within what is about some entities (SPEC §7, scoped to
    the entity asked): the passages of documents one of `entities` issued, and passages that name
    one of them by a glossary alias. The scope applies before the top-k, so the `k` places go to
    passages within it; lists come back empty when nothing within it matches (the caller then
    decides whether to search everything). One list per query, in the order of `queries`.

    A retriever without this method is asked without a scope (the port as it was)."""

    def retrieve_within(
        self, queries: Sequence[str], *, entities: frozenset[str], cleared: bool, k: int = 8
    ) -> list[list[RetrievedChunk]]: ...


class ScreenedPassages(NarrativeRetriever, Protocol):
    """A retriever whose passages were screened (`core.gates.screening.ScreenedRetriever`): it
    can say, in the asker's language, what it held back."""

    def notice(self, language: str) -> str: ...


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ProviderResponse:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = "end_turn"
    usage: dict[str, int] = field(default_factory=dict)


class ProviderError(Exception):
    """A network, API or timeout failure of an LLM provider. Programming errors are not wrapped."""


class LLMProvider(Protocol):
    name: str

    def create_message(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
    ) -> ProviderResponse: ...


class IntentParser(Protocol):
    def parse(self, question: str, *, glossary: GlossarySnapshot, reference_date: Any) -> ParsedIntent: ...


@dataclass(frozen=True)
class FaqHit:
    """A vetted FAQ answer, and the item and version it came from."""

    id: int
    version: int
    answer: str
    source: str


@dataclass(frozen=True)
class FaqCandidate:
    """An FAQ item whose wording matches a question, with everything the gate decides on
    (`core.gates.faq.faq_decide`): whether it is enabled, its validity window, its level."""

    id: int
    version: int
    question: str
    answer: str
    source: str
    sensitivity: str
    enabled: bool = True
    valid_from: date | None = None
    valid_until: date | None = None

    def hit(self) -> FaqHit:
        return FaqHit(id=self.id, version=self.version, answer=self.answer, source=self.source)


class FaqLookup(Protocol):
    """The FAQ store: the items whose wording matches, newest version first. It decides nothing
    (the gate does) and writes nothing (a served hit is counted by the caller of the pipeline)."""

    def candidates(self, question: str) -> Sequence[FaqCandidate]: ...


class FxRates(Protocol):
    """The curated FX table (SPEC §5a). Rates are not sensitive, so it takes no clearance."""

    def rate(self, base: str, quote: str, period_type: str, period: str, rate_type: str) -> FxQuote | None:
        """The curated `rate_type` rate (`average` or `closing`) between `base` and `quote` for the
        period (`FY` + `2025`, `HY` + `2025H1`, `QUARTER` + `2025Q4`): the pair as asked when it is
        stored, else its inverse (the quote says which; `core.engine.fx.fx_convert` divides by an
        inverse), else None, and the caller refuses, naming the missing rate. Never a rate of
        another type or period."""
        ...


@dataclass(frozen=True)
class Ports:
    """What `answer_question` reads through, wired once per question (`agent.bootstrap`): the
    glossary, the fact store and the LLM always; the documents, an LLM that routes questions,
    the FAQ, an LLM that writes prose and the FX rates when there are any."""

    glossary: GlossarySnapshot
    store: FactStore
    provider: LLMProvider
    retriever: NarrativeRetriever | None = None
    parser: IntentParser | None = None
    faq: FaqLookup | None = None
    synthesizer: LLMProvider | None = None
    fx: FxRates | None = None
