"""What every route gives back: `RouteAnswer`, one shape for the structured, narrative,
composite and find-documents routes, which the pipeline turns into the `AgentResult`.

A fact a route cites becomes a source with `fact_source`: the document and locator it was read
from, and a snippet naming the row (with the figure as printed, when its sign convention changed it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.model.facts import FactRecord
from core.model.outcome import Computed, Ranking
from core.model.result import AnswerSections, Source
from core.routes import render


@dataclass(frozen=True)
class RouteAnswer:
    """A route's answer: its text (as answer sections), kind, facts, tool results and sources."""

    sections: AnswerSections
    kind: str
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    sources: tuple[Source, ...] = ()
    numbers_unsupported: int = 0
    chunk_scores: tuple[tuple[int, float], ...] = ()
    computed: tuple[Computed, ...] = ()
    ranking: Ranking | None = None


def fact_source(fact: FactRecord) -> Source:
    snippet = f"{fact.metric} · {fact.entity} · {fact.period.label} · {fact.channel} = {fact.value} {fact.unit}"
    snippet += render.printed_note(fact, "en")  # the figure as printed, when the sign convention changed it
    return Source("fact", fact.source_doc, fact.locator, fact.document_id, snippet)
