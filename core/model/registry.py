"""The registry of routes and answer kinds, each with the badge the analyst UI shows for it.

The API's choices, the trace's checks, the UI's badges and their CSS classes all read it, so a
route is added here (and given a handler in the orchestrator) and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Badge:
    """How the analyst UI shows a route or an answer kind: a label, and a tone the CSS colours."""

    label: str
    tone: str

    @property
    def css_class(self) -> str:
        return f"tone-{self.tone}"


ROUTE_STRUCTURED = "structured"
ROUTE_NARRATIVE = "narrative"
ROUTE_COMPOSITE = "composite"
ROUTE_FIND_DOCUMENTS = "find_documents"
ROUTE_FAQ = "faq"
ROUTE_BADGES = {
    ROUTE_STRUCTURED: Badge("数据", "data"),
    ROUTE_NARRATIVE: Badge("文档", "documents"),
    ROUTE_COMPOSITE: Badge("数据 + 归因", "mixed"),
    ROUTE_FIND_DOCUMENTS: Badge("找文件", "documents"),
    ROUTE_FAQ: Badge("FAQ", "cached"),
}
ANSWER_ROUTES = tuple(ROUTE_BADGES)  # every route an answer can report
ROUTES = tuple(r for r in ANSWER_ROUTES if r != ROUTE_FAQ)  # what the parser can choose: FAQ is a short-circuit

KIND_ANSWER = "answer"
KIND_CLARIFICATION = "clarification"
KIND_REFUSAL = "refusal"
KIND_DEGRADED = "degraded"
KIND_BADGES: dict[str, Badge | None] = {
    KIND_ANSWER: None,
    KIND_CLARIFICATION: None,
    KIND_REFUSAL: Badge("未作答", "refused"),
    KIND_DEGRADED: Badge("服务降级", "degraded"),
}
ANSWER_KINDS = tuple(KIND_BADGES)
