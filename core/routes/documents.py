"""The find-documents route: a list of the documents that match a question, with no model.

Takes the request and the parsed intent; returns the documents as the route's answer, each a
source with its best locators and a snippet, and the notice of what screening held back. The topic is the
question without its document words; the retriever decides what the asker may see, so a
restricted document never reaches an uncleared asker's list.
"""

from __future__ import annotations

from core.model.clarification import ClarificationResult
from core.model.intent import ParsedIntent
from core.model.registry import KIND_ANSWER, KIND_DEGRADED, KIND_REFUSAL
from core.model.result import AnswerSections, Source
from core.parse.intent import DOCUMENT_CUES
from core.routes import render
from core.routes.outcome import RouteAnswer
from core.routes.request import RouteRequest


def find_documents_route(
    request: RouteRequest, intent: ParsedIntent, clarification: ClarificationResult
) -> RouteAnswer:
    found = documents_list(request, intent)
    request.lap("retrieval")
    return found


def documents_list(request: RouteRequest, intent: ParsedIntent) -> RouteAnswer:
    """Ranked documents with their best locators and a snippet."""
    if request.retriever is None:
        return _said(request, intent, render.NARRATIVE_NOT_WIRED[intent.language], KIND_DEGRADED)
    topic = DOCUMENT_CUES.sub(" ", intent.normalized).strip() or intent.raw_question
    documents = request.retriever.documents_find(topic, cleared=request.cleared)
    if not documents:
        return _said(request, intent, render.NARRATIVE_NO_HITS[intent.language], KIND_REFUSAL)
    header = (
        f"找到 {len(documents)} 份相关文件：" if intent.language == "zh" else f"{len(documents)} matching document(s):"
    )
    lines = [header] + [f"{i}. {d.doc}（{d.locator}）：{d.snippet}" for i, d in enumerate(documents, 1)]
    return _said(request, intent, "\n".join(lines), KIND_ANSWER, tuple(documents))


def _said(
    request: RouteRequest, intent: ParsedIntent, text: str, kind: str, sources: tuple[Source, ...] = ()
) -> RouteAnswer:
    return RouteAnswer(AnswerSections(narrative=request.noticed(text, intent.language)), kind, sources=sources)
