"""What a run returns (`AgentResult`): the answer as the channels wrote it (`AnswerSections`), its
kind and route, the intent and the clarification it came from, the facts, computed values and
ranking behind it, the sources it cites (`Source`, one of `SOURCE_KINDS`) and the fabrication
guard's verdict (`Guard`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.model.clarification import ClarificationResult
from core.model.facts import FactRecord
from core.model.intent import ParsedIntent, Routing
from core.model.outcome import Computed, Ranking

SOURCE_KINDS = ("fact", "chunk", "faq", "document")


@dataclass(frozen=True)
class Source:
    kind: str  # fact | chunk | faq | document
    doc: str
    locator: str
    document_id: int | None = None
    snippet: str = ""
    # RESTRICTED when the passage or its document is (only a cleared caller receives one): the
    # page labels an answer built from it; "" otherwise.
    sensitivity: str = ""


@dataclass(frozen=True)
class Guard:
    fabrication_guard_triggered: bool = False
    numbers_unsupported: int = 0


@dataclass(frozen=True)
class AnswerSections:
    """The answer as the channels wrote it: the assumption note, the structured lines, and the
    narrative (under `narrative_heading` when it follows a structured part, as in a composite).
    A refusal or an ask-first question is the section of the channel the question was routed to.
    `text` joins them into the one answer the API returns."""

    assumption_note: str = ""
    structured: str = ""
    narrative_heading: str = ""
    narrative: str = ""

    @property
    def structured_text(self) -> str:
        """The structured section with its assumption note, as it leads the answer."""
        return "\n".join(part for part in (self.assumption_note, self.structured) if part)

    @property
    def text(self) -> str:
        if self.narrative_heading:
            return f"{self.structured_text}\n\n{self.narrative_heading}\n{self.narrative}"
        return "\n\n".join(part for part in (self.structured_text, self.narrative) if part)


@dataclass(frozen=True)
class AgentResult:
    request_id: str
    question: str
    sections: AnswerSections
    answer_kind: str
    route: str
    routing: Routing
    intent: ParsedIntent
    clarification: ClarificationResult
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    sources: tuple[Source, ...] = ()
    guard: Guard = field(default_factory=Guard)
    faq: dict[str, Any] | None = None
    language: str = "zh"
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    chunk_scores: tuple[tuple[int, float], ...] = ()
    provider_seconds: float = 0.0
    # every computed value in the answer (its inputs are also in `facts`), and the
    # ranking when the question asked for one (its rows feed the UI's bar chart).
    computed: tuple[Computed, ...] = ()
    ranking: Ranking | None = None
    follow_up_note: str | None = None  # what a follow-up inherited from the previous turn

    @property
    def answer(self) -> str:
        return self.sections.text
