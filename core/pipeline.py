"""`answer_question`: the one entry point of the orchestrator, and the order of its stages.

Takes a question, the ports (`core.ports.Ports`) and the caller's clearance; returns an
`AgentResult`. The early returns keep a fixed order (invariant 3): the security gate's refusal,
then ask-first, then assumptions, and only then the FAQ (`core.gates.faq`), the fact store,
retrieval or any LLM (a period asked back reads, with the user's clearance, only which of the
periods it could offer are answered with a figure, and shows none of them). Then the route
the intent names answers (`ROUTE_HANDLERS`, each a module of `core.routes` returning a
`RouteAnswer`): on the structured route every figure is rendered from a fact row (invariant 1)
and a computation is the engine's, over fact rows only; a `ProviderError` yields a fixed
message with no number (invariant 7).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date

from core.gates.clarify import clarify_scope
from core.gates.faq import faq_decide
from core.gates.screening import ScreenedRetriever
from core.gates.security import security_screen
from core.language.normalize import text_normalize
from core.model.clarification import CLARIFY_ASK_FIRST, CLARIFY_OUT_OF_SCOPE_ENTITY, ClarificationResult
from core.model.intent import ParsedIntent
from core.model.registry import (
    KIND_ANSWER,
    KIND_CLARIFICATION,
    KIND_REFUSAL,
    ROUTE_COMPOSITE,
    ROUTE_FAQ,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
)
from core.model.result import AgentResult, AnswerSections, Guard, Source
from core.parse.follow_up import continues_nothing, follow_up_apply, follow_up_topic
from core.parse.follow_up.note import NOTHING_TO_CONTINUE
from core.parse.intent import asks_for_a_list, parse_intent, reading_note
from core.parse.scope import ScopeError, scope_apply
from core.ports import FaqHit, IntentParser, Ports
from core.routes.composite import composite_route
from core.routes.computed import periods_answerable
from core.routes.documents import find_documents_route
from core.routes.lookup.tools import FOUND
from core.routes.narrative.figures import figure_answer
from core.routes.narrative.route import narrative_route
from core.routes.outcome import RouteAnswer
from core.routes.request import RouteRequest
from core.routes.structured import structured_route

RouteHandler = Callable[[RouteRequest, ParsedIntent, ClarificationResult], RouteAnswer]
ROUTE_HANDLERS: dict[str, RouteHandler] = {
    ROUTE_STRUCTURED: structured_route,
    ROUTE_NARRATIVE: narrative_route,
    ROUTE_COMPOSITE: composite_route,
    ROUTE_FIND_DOCUMENTS: find_documents_route,
}


def answer_question(
    question: str,
    ports: Ports,
    *,
    cleared: bool,
    reference_date: date | None = None,
    scope: Mapping[str, str] | None = None,
    request_id: str | None = None,
    rerank: bool = False,
    previous: ParsedIntent | None = None,
) -> AgentResult:
    """Answer one question; `previous` is the conversation's last answered intent, which a
    follow-up (`那香港呢？`) may inherit slots and the operation from (`follow_up_apply`). The
    answer then leads with the note saying what was inherited; a narrative follow-up
    (`那为什么呢？`) searches the documents for the inherited slots as well as its own words."""
    glossary, store = ports.glossary, ports.store
    request = RouteRequest(
        question=question,
        glossary=glossary,
        store=store,
        provider=ports.provider,
        cleared=cleared,
        reference=reference_date or date.today(),
        request_id=request_id or uuid.uuid4().hex,
        retriever=ScreenedRetriever(ports.retriever, glossary) if ports.retriever is not None else None,
        synthesizer=ports.synthesizer,
        rerank=rerank,
        fx=ports.fx,
    )
    intent = _intent_parse(request, ports.parser, scope or {})
    if previous is not None and not scope:
        intent, request.follow_up_note = follow_up_apply(intent, previous, glossary)
        if request.follow_up_note and intent.route in (ROUTE_NARRATIVE, ROUTE_COMPOSITE):
            request.topic = follow_up_topic(intent, glossary)
    request.lap("parse")
    verdict = security_screen(
        raw_question=question, glossary=glossary, language=intent.language, scope_entity=intent.entity
    )
    clarification = clarify_scope(
        intent,
        glossary=glossary,
        reference_date=request.reference,
        verdict=verdict,
        answerable=lambda periods: periods_answerable(intent, periods, glossary=glossary, store=store, cleared=cleared),
    )
    request.lap("clarify")
    if (
        previous is None
        and not scope
        and clarification.mode != CLARIFY_OUT_OF_SCOPE_ENTITY
        and continues_nothing(intent, glossary)
    ):
        # `那香港呢？` with no question before it: nothing to continue, so nothing is assumed or searched
        asked = ClarificationResult(
            CLARIFY_ASK_FIRST, NOTHING_TO_CONTINUE.get(intent.language, NOTHING_TO_CONTINUE["zh"])
        )
        return _result(request, intent, asked, _clarification_answer(intent, asked), intent.route)

    # The fixed order of early returns (invariant 3): refusal, then ask-first, then assumptions,
    # and only then the FAQ, the fact store, retrieval or any LLM.
    if clarification.mode == CLARIFY_ASK_FIRST and request.retriever is not None:
        # a how-much question about a term no metric holds: the sentence stating its figure, cited
        figure = figure_answer(
            intent, retriever=request.retriever, glossary=glossary, cleared=cleared, asked_back=clarification
        )
        if (
            figure is not None
            and figure.kind != KIND_ANSWER
            and asks_for_a_list(intent.normalized or text_normalize(intent.raw_question))
        ):
            # `What are the main risk factors?`: things asked for, not a figure, and none stated:
            # the documents answer it as they would any question about them
            intent = replace(intent, route=ROUTE_NARRATIVE)
            answer = narrative_route(request, intent, clarification)
            return _result(request, intent, ClarificationResult(), answer, ROUTE_NARRATIVE)
        if figure is not None:
            text = request.noticed(figure.text, intent.language)
            answer = RouteAnswer(AnswerSections(narrative=text), figure.kind, sources=figure.sources)
            request.lap("retrieval")
            return _result(request, intent, figure.clarification, answer, intent.route)
    if clarification.mode in (CLARIFY_OUT_OF_SCOPE_ENTITY, CLARIFY_ASK_FIRST):
        return _result(request, intent, clarification, _clarification_answer(intent, clarification), intent.route)
    effective = replace(
        intent,
        entity=intent.entity or clarification.assumed_entity,
        period=intent.period or clarification.assumed_period,
    )
    if ports.faq is not None:
        hit = faq_decide(effective, ports.faq, reference_date=request.reference).hit
        request.lap("faq")
        if hit is not None:
            return _result(request, intent, clarification, _faq_answer(hit), ROUTE_FAQ, faq_hit=hit)
    answer = ROUTE_HANDLERS[effective.route](request, effective, clarification)
    return _result(request, intent, clarification, answer, effective.route)


def _intent_parse(request: RouteRequest, parser: IntentParser | None, scope: Mapping[str, str]) -> ParsedIntent:
    if parser is not None:
        intent = parser.parse(request.question, glossary=request.glossary, reference_date=request.reference)
        intent = replace(intent, raw_question=request.question)
    else:
        intent = parse_intent(request.question, request.glossary, request.reference)
    return scope_apply(intent, scope, request.glossary, request.reference)


def _result(
    request: RouteRequest,
    intent: ParsedIntent,
    clarification: ClarificationResult,
    answer: RouteAnswer,
    route: str,
    *,
    faq_hit: FaqHit | None = None,
) -> AgentResult:
    request.timings["total"] = round((time.perf_counter() - request.started) * 1000, 3)
    found_any = any(r.get("status") == FOUND for r in answer.tool_results)
    sections = answer.sections
    notes = (reading_note(intent), request.follow_up_note)
    if any(notes):
        lead = "\n".join(n for n in (*notes, sections.assumption_note) if n)
        sections = replace(sections, assumption_note=lead)
    return AgentResult(
        request_id=request.request_id,
        question=request.question,
        sections=sections,
        answer_kind=answer.kind,
        route=route,
        routing=intent.routing,
        intent=intent,
        clarification=clarification,
        facts=answer.facts,
        tool_results=answer.tool_results,
        sources=answer.sources,
        guard=Guard(
            fabrication_guard_triggered=bool(answer.tool_results) and not found_any,
            numbers_unsupported=answer.numbers_unsupported,
        ),
        faq={"id": faq_hit.id, "version": faq_hit.version} if faq_hit else None,
        language=intent.language,
        timings=dict(request.timings),
        usage=dict(request.usage),
        chunk_scores=answer.chunk_scores,
        provider_seconds=round(request.provider_seconds, 6),
        computed=answer.computed,
        ranking=answer.ranking,
        follow_up_note=request.follow_up_note,
    )


def _clarification_answer(intent: ParsedIntent, clarification: ClarificationResult) -> RouteAnswer:
    """A refusal or an ask-first question, in the channel the question was routed to."""
    text = clarification.question or ""
    kind = KIND_REFUSAL if clarification.mode == CLARIFY_OUT_OF_SCOPE_ENTITY else KIND_CLARIFICATION
    if intent.route in (ROUTE_NARRATIVE, ROUTE_FIND_DOCUMENTS):
        return RouteAnswer(AnswerSections(narrative=text), kind)
    return RouteAnswer(AnswerSections(structured=text), kind)


def _faq_answer(hit: FaqHit) -> RouteAnswer:
    source = Source("faq", hit.source, f"faq={hit.id},version={hit.version}", None, "")
    return RouteAnswer(AnswerSections(narrative=hit.answer), KIND_ANSWER, sources=(source,))


__all__ = ["ClarificationResult", "ScopeError", "answer_question"]
