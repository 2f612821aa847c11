"""The narrative route as the pipeline calls it: the question (or the topic a follow-up or a why
searches for) answered from the documents, ranked by what the intent is about, with the notice
of what screening held back."""

from __future__ import annotations

from core.model.clarification import ClarificationResult
from core.model.facts import FactRecord
from core.model.intent import ParsedIntent
from core.model.result import AnswerSections
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.outcome import RouteAnswer
from core.routes.request import RouteRequest


def narrative_route(request: RouteRequest, intent: ParsedIntent, clarification: ClarificationResult) -> RouteAnswer:
    answer = narrative_part(request, intent)
    request.lap("narrative")
    return answer


def narrative_part(request: RouteRequest, intent: ParsedIntent, facts: tuple[FactRecord, ...] = ()) -> RouteAnswer:
    """The narrative channel about what the intent asks: its entities (as asked, or as the
    structured answer it explains assumed them) and its period rank the passages."""
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    outcome = narrative_answer(
        request.topic or request.question,
        retriever=request.retriever,
        glossary=request.glossary,
        cleared=request.cleared,
        language=intent.language,
        llm=request.synthesizer,
        rerank=request.rerank,
        facts=facts,
        focus=Focus(tuple(entities), intent.period or next(iter(intent.periods), None)),
    )
    request.add_usage(outcome.usage)
    return RouteAnswer(
        AnswerSections(narrative=request.noticed(outcome.text, intent.language)),
        outcome.kind,
        sources=outcome.sources,
        numbers_unsupported=outcome.numbers_unsupported,
        chunk_scores=outcome.chunk_scores,
    )
