"""`answer_question`: the one entry point of the orchestrator.

Takes a question, the caller's clearance and the ports; returns an `AgentResult`.
The early returns keep a fixed order (invariant 3): the security gate's refusal, then
ask-first, then assumptions, and only then the FAQ lookup, the fact store, retrieval or any
LLM (a period asked back reads, with the user's clearance, only which of the periods it could
offer are answered with a figure, and shows none of them). On the structured path every figure
is rendered from a fact row (invariant 1): the model's prose is discarded, and if the model
calls no tool the agent runs `query_metric` itself; a computation (growth, share, ranking …)
is the engine's, over fact rows only (`core.routes.computed`). A `ProviderError` yields a
fixed message with no number (invariant 7).

The module stays whole (about 480 lines): it is the stage order itself, and each route
handler here only turns a route's outcome into the channel's `_Part`; the work is in the
stages (`core.parse.scope` narrows, `core.routes.lookup.loop` runs the tool loop).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from core.engine import Computed, Ranking
from core.gates.clarify import clarify_scope
from core.gates.screening import ScreenedRetriever
from core.gates.security import security_screen
from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.types import (
    CLARIFY_ASK_FIRST,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    KIND_ANSWER,
    KIND_CLARIFICATION,
    KIND_DEGRADED,
    KIND_REFUSAL,
    ROUTE_COMPOSITE,
    ROUTE_FAQ,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    AgentResult,
    AnswerSections,
    ClarificationResult,
    FactRecord,
    Guard,
    ParsedIntent,
    Source,
    SubTask,
)
from core.parse.follow_up import follow_up_apply, follow_up_topic
from core.parse.intent import (
    FigureChecked,
    asks_for_a_list,
    asks_why_change,
    figure_checked,
    parse_intent,
    reading_note,
)
from core.parse.scope import ScopeError, scope_apply
from core.ports import (
    FactStore,
    FaqHit,
    FaqLookup,
    FxRates,
    IntentParser,
    LLMProvider,
    NarrativeRetriever,
    ProviderError,
)
from core.routes import render
from core.routes.computed import (
    ComputedAnswer,
    computed_answer,
    levels_answer,
    part_intent,
    periods_answerable,
    subtasks_of,
)
from core.routes.computed.defined import defined_answer
from core.routes.computed.scaled import fx_rate_for, scaled_answer
from core.routes.computed.why import WhyAnswer, why_answer, why_whole
from core.routes.documents import documents_list
from core.routes.lookup import render as lookup_render
from core.routes.lookup.loop import task_results, tool_loop
from core.routes.lookup.tools import (
    FOUND,
    NOT_FOUND,
    UNRECOGNIZED,
    task_pending,
)
from core.routes.lookup.verdict import verdict_line
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.narrative.figures import figure_answer


@dataclass
class _Request:
    """One question on its way through the stages: what it was asked with, the ports it may use,
    and what it accumulates (stage timings, token usage, provider time)."""

    question: str
    glossary: GlossarySnapshot
    store: FactStore
    provider: LLMProvider
    cleared: bool
    reference: date
    request_id: str
    # Every passage is screened for competitors before reranking, synthesis or display.
    retriever: ScreenedRetriever | None = None
    synthesizer: LLMProvider | None = None
    rerank: bool = False
    fx: FxRates | None = None  # the curated FX rates a currency asked is converted with
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    provider_seconds: float = 0.0
    follow_up_note: str | None = None  # what a follow-up inherited, in the analyst's words
    topic: str | None = None  # what retrieval searches for when it is not the question as asked
    _mark: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._mark = self.started

    def lap(self, stage: str) -> None:
        """Time the stage that just ended (from the end of the previous one)."""
        now = time.perf_counter()
        self.timings[stage] = round((now - self._mark) * 1000, 3)
        self._mark = now

    def add_usage(self, usage: Mapping[str, int]) -> None:
        for key, value in usage.items():
            self.usage[key] = self.usage.get(key, 0) + int(value)

    def add_provider_time(self, seconds: float) -> None:
        self.provider_seconds += seconds


@dataclass(frozen=True)
class _Part:
    """The outcome of one channel: its text (as answer sections), kind, facts, results and sources."""

    sections: AnswerSections
    kind: str
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    sources: tuple[Source, ...] = ()
    numbers_unsupported: int = 0
    chunk_scores: tuple[tuple[int, float], ...] = ()
    computed: tuple[Computed, ...] = ()
    ranking: Ranking | None = None


def answer_question(
    question: str,
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    provider: LLMProvider,
    cleared: bool,
    reference_date: date | None = None,
    scope: Mapping[str, str] | None = None,
    narrative_retriever: NarrativeRetriever | None = None,
    intent_parser: IntentParser | None = None,
    faq: FaqLookup | None = None,
    request_id: str | None = None,
    synthesizer: LLMProvider | None = None,
    rerank: bool = False,
    previous: ParsedIntent | None = None,
    fx: FxRates | None = None,
) -> AgentResult:
    """Answer one question; `previous` is the conversation's last answered intent, which a
    follow-up (`那香港呢？`) may inherit slots and the operation from (`follow_up_apply`). The
    answer then leads with the note saying what was inherited; a narrative follow-up
    (`那为什么呢？`) searches the documents for the inherited slots as well as its own words."""
    request = _Request(
        question=question,
        glossary=glossary,
        store=store,
        provider=provider,
        cleared=cleared,
        reference=reference_date or date.today(),
        request_id=request_id or uuid.uuid4().hex,
        retriever=ScreenedRetriever(narrative_retriever, glossary) if narrative_retriever is not None else None,
        synthesizer=synthesizer,
        rerank=rerank,
        fx=fx,
    )
    intent = _intent_parse(request, intent_parser, scope or {})
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
            return _result(
                request,
                intent,
                ClarificationResult(),
                _narrative_route(request, intent, clarification),
                ROUTE_NARRATIVE,
            )
        if figure is not None:
            text = _with_notice(figure.text, request, intent)
            part = _Part(AnswerSections(narrative=text), figure.kind, sources=figure.sources)
            request.lap("retrieval")
            return _result(request, intent, figure.clarification, part, intent.route)
    if clarification.mode in (CLARIFY_OUT_OF_SCOPE_ENTITY, CLARIFY_ASK_FIRST):
        return _result(request, intent, clarification, _clarification_part(intent, clarification), intent.route)
    effective = replace(
        intent,
        entity=intent.entity or clarification.assumed_entity,
        period=intent.period or clarification.assumed_period,
    )
    if faq is not None:
        hit = faq.lookup(effective, cleared=cleared, reference_date=request.reference)
        request.lap("faq")
        if hit is not None:
            return _result(request, intent, clarification, _faq_part(hit), ROUTE_FAQ, faq_hit=hit)
    part = ROUTE_HANDLERS[effective.route](request, effective, clarification)
    return _result(request, intent, clarification, part, effective.route)


def _intent_parse(request: _Request, parser: IntentParser | None, scope: Mapping[str, str]) -> ParsedIntent:
    if parser is not None:
        intent = parser.parse(request.question, glossary=request.glossary, reference_date=request.reference)
        intent = replace(intent, raw_question=request.question)
    else:
        intent = parse_intent(request.question, request.glossary, request.reference)
    return scope_apply(intent, scope, request.glossary, request.reference)


def _result(
    request: _Request,
    intent: ParsedIntent,
    clarification: ClarificationResult,
    part: _Part,
    route: str,
    *,
    faq_hit: FaqHit | None = None,
) -> AgentResult:
    request.timings["total"] = round((time.perf_counter() - request.started) * 1000, 3)
    found_any = any(r.get("status") == FOUND for r in part.tool_results)
    sections = part.sections
    notes = (reading_note(intent), request.follow_up_note)
    if any(notes):
        lead = "\n".join(n for n in (*notes, sections.assumption_note) if n)
        sections = replace(sections, assumption_note=lead)
    return AgentResult(
        request_id=request.request_id,
        question=request.question,
        sections=sections,
        answer_kind=part.kind,
        route=route,
        routing=intent.routing,
        intent=intent,
        clarification=clarification,
        facts=part.facts,
        tool_results=part.tool_results,
        sources=part.sources,
        guard=Guard(
            fabrication_guard_triggered=bool(part.tool_results) and not found_any,
            numbers_unsupported=part.numbers_unsupported,
        ),
        faq={"id": faq_hit.id, "version": faq_hit.version} if faq_hit else None,
        language=intent.language,
        timings=dict(request.timings),
        usage=dict(request.usage),
        chunk_scores=part.chunk_scores,
        provider_seconds=round(request.provider_seconds, 6),
        computed=part.computed,
        ranking=part.ranking,
        follow_up_note=request.follow_up_note,
    )


def _clarification_part(intent: ParsedIntent, clarification: ClarificationResult) -> _Part:
    """A refusal or an ask-first question, in the channel the question was routed to."""
    text = clarification.question or ""
    kind = KIND_REFUSAL if clarification.mode == CLARIFY_OUT_OF_SCOPE_ENTITY else KIND_CLARIFICATION
    if intent.route in (ROUTE_NARRATIVE, ROUTE_FIND_DOCUMENTS):
        return _Part(AnswerSections(narrative=text), kind)
    return _Part(AnswerSections(structured=text), kind)


def _faq_part(hit: FaqHit) -> _Part:
    source = Source("faq", hit.source, f"faq={hit.id},version={hit.version}", None, "")
    return _Part(AnswerSections(narrative=hit.answer), KIND_ANSWER, sources=(source,))


# -- routes --------------------------------------------------------------------------------
def _structured_route(request: _Request, intent: ParsedIntent, clarification: ClarificationResult) -> _Part:
    part = _run_structured(request, intent)
    if intent.unit_asked is not None and part.kind == KIND_ANSWER:
        part = _in_unit_asked(part, intent, request)
    request.lap("structured")
    if clarification.assumption_note and part.kind != KIND_DEGRADED:
        part = replace(part, sections=replace(part.sections, assumption_note=clarification.assumption_note))
    return part


def _narrative_route(request: _Request, intent: ParsedIntent, clarification: ClarificationResult) -> _Part:
    part = _run_narrative(request, intent)
    request.lap("narrative")
    return part


def _find_documents_route(request: _Request, intent: ParsedIntent, clarification: ClarificationResult) -> _Part:
    part = _run_find_documents(intent, request.retriever, request.cleared)
    part = replace(part, sections=AnswerSections(narrative=_with_notice(part.sections.narrative, request, intent)))
    request.lap("retrieval")
    return part


def _composite_route(request: _Request, intent: ParsedIntent, clarification: ClarificationResult) -> _Part:
    """Structured, then the narrative under the attribution heading. A why asked of a figure's
    movement adds the change and its parts (`why_answer`) to the structured part, and the parts
    that moved most steer the passages."""
    structured = _structured_route(request, intent, clarification)
    whole, split = why_whole(intent, request.glossary)
    found = structured.kind == KIND_ANSWER or split is not None  # a listed split: the whole's why
    if found and not intent.parts and asks_why_change(text_normalize(intent.raw_question)):
        glossary = request.glossary
        why = why_answer(whole, glossary=glossary, store=request.store, cleared=request.cleared, dimension=split)
        if why is not None:
            structured = _why_joined(structured, why)
            movers = " ".join(_part_said(p, whole, request.glossary) for p in why.movers)
            # an English why meets the documents through the catalogue's names of what it asks
            asked = follow_up_topic(intent, request.glossary) if intent.language == "en" else request.question
            request.topic = f"{request.topic or asked} {movers}".strip()
            request.lap("why")
    explanation = _run_narrative(request, intent, facts=structured.facts)
    request.lap("narrative")
    sections = replace(
        structured.sections,
        narrative_heading=render.ATTRIBUTION_HEADING[intent.language],
        narrative=explanation.sections.narrative,
    )
    return _Part(
        sections=sections,
        kind=KIND_ANSWER if KIND_ANSWER in (structured.kind, explanation.kind) else structured.kind,
        facts=structured.facts,
        tool_results=structured.tool_results,
        sources=structured.sources + explanation.sources,
        numbers_unsupported=explanation.numbers_unsupported,
        chunk_scores=explanation.chunk_scores,
        computed=structured.computed,
        ranking=structured.ranking,
    )


def _why_joined(structured: _Part, why: WhyAnswer) -> _Part:
    """The figure's part with its change and the change's parts after it, each fact cited once."""
    text = "\n".join(x for x in (structured.sections.structured, *why.lines) if x)
    facts = tuple(dict.fromkeys((*structured.facts, *why.facts)))
    extra = tuple(_fact_source(f) for f in facts if f not in structured.facts)
    return replace(
        structured,
        sections=replace(structured.sections, structured=text),
        facts=facts,
        sources=structured.sources + extra,
        computed=tuple(dict.fromkeys((*structured.computed, *why.computed))),
    )


def _part_said(part: SubTask, intent: ParsedIntent, glossary: GlossarySnapshot) -> str:
    """A part's name as the documents would print it (its glossary name)."""
    if part.channel != (intent.channel or "TOTAL"):
        return glossary.display("channel", part.channel, "zh")
    if part.entity != intent.entity:
        return glossary.display("entity", part.entity, "zh")
    return part.period.label


RouteHandler = Callable[[_Request, ParsedIntent, ClarificationResult], _Part]
ROUTE_HANDLERS: dict[str, RouteHandler] = {
    ROUTE_STRUCTURED: _structured_route,
    ROUTE_NARRATIVE: _narrative_route,
    ROUTE_COMPOSITE: _composite_route,
    ROUTE_FIND_DOCUMENTS: _find_documents_route,
}


def _run_narrative(request: _Request, intent: ParsedIntent, facts: tuple[FactRecord, ...] = ()) -> _Part:
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
    return _Part(
        AnswerSections(narrative=_with_notice(outcome.text, request, intent)),
        outcome.kind,
        sources=outcome.sources,
        numbers_unsupported=outcome.numbers_unsupported,
        chunk_scores=outcome.chunk_scores,
    )


def _with_notice(text: str, request: _Request, intent: ParsedIntent) -> str:
    notice = request.retriever.notice(intent.language) if request.retriever is not None else ""
    return f"{text}\n{notice}" if notice else text


# -- structured channel --------------------------------------------------------------------
def _run_structured(request: _Request, intent: ParsedIntent) -> _Part:
    glossary, store, cleared = request.glossary, request.store, request.cleared
    if intent.definition is not None:
        return _computed_part(defined_answer(intent, glossary=glossary, store=store, cleared=cleared))
    if intent.parts:
        return _parts_joined([_part_run(request, part_intent(intent, part)) for part in intent.parts])
    if intent.operation is not None:
        return _computed_part(computed_answer(intent, glossary=glossary, store=store, cleared=cleared))
    tasks = subtasks_of(intent)
    if len(tasks) > 1 or intent.decimals is not None or any(t.metric in glossary.formula_metrics for t in tasks):
        # Listed sub-tasks, formula metrics and a level asked rounded run deterministically, with no LLM.
        answer = levels_answer(
            tasks,
            glossary=glossary,
            store=store,
            cleared=cleared,
            language=intent.language,
            decimals=intent.decimals,
        )
        return _computed_part(answer)
    task = tasks[0]
    try:
        executed = tool_loop(
            intent.raw_question,
            task,
            glossary=glossary,
            store=store,
            provider=request.provider,
            cleared=cleared,
            reference=request.reference,
            meter=request,
        )
    except ProviderError:
        return _Part(AnswerSections(structured=render.DEGRADED_STRUCTURED[intent.language]), KIND_DEGRADED)
    tool_results, relevant = task_results(executed, task, store, cleared=cleared)
    if not any(f is not None for _, f in relevant) and task.period.period_type in ("FY", "HY"):
        # a half or a year not stored may be derived (FY − H1, Q3 + Q4 …), with its formula and inputs
        derived = levels_answer([task], glossary=glossary, store=store, cleared=cleared, language=intent.language)
        if derived.computed:
            return _computed_part(derived)
    return _structured_answer(
        [r for r, _ in relevant],
        [f for _, f in relevant if f is not None],
        [r for _, r, _ in tool_results],
        task,
        glossary,
        intent.language,
        pending=lambda: task_pending(store, task, cleared=cleared),
        checked=figure_checked(intent.raw_question),
    )


def _part_run(request: _Request, intent: ParsedIntent) -> _Part:
    """One part of a question, run deterministically like any list of sub-tasks (no LLM)."""
    glossary, store, cleared = request.glossary, request.store, request.cleared
    if intent.operation is not None:
        return _computed_part(computed_answer(intent, glossary=glossary, store=store, cleared=cleared))
    answer = levels_answer(
        subtasks_of(intent),
        glossary=glossary,
        store=store,
        cleared=cleared,
        language=intent.language,
        decimals=intent.decimals,
    )
    return _computed_part(answer)


def _parts_joined(parts: list[_Part]) -> _Part:
    """The answers to a question's parts, one after another, each with its own facts and sources."""
    answered = [p for p in parts if p.kind == KIND_ANSWER]
    return _Part(
        AnswerSections(structured="\n".join(p.sections.structured for p in parts if p.sections.structured)),
        KIND_ANSWER if answered else parts[0].kind,
        tuple(f for p in parts for f in p.facts),
        tuple(r for p in parts for r in p.tool_results),
        tuple(s for p in parts for s in p.sources),
        computed=tuple(c for p in parts for c in p.computed),
    )


def _structured_answer(
    relevant: list[dict[str, Any]],
    facts: list[FactRecord],
    all_results: list[dict[str, Any]],
    task: SubTask,
    glossary: GlossarySnapshot,
    language: str,
    *,
    pending: Callable[[], int] = lambda: 0,
    checked: FigureChecked | None = None,
) -> _Part:
    """The anti-fabrication guard: the answer is rebuilt from tool results, never model prose.
    `pending` counts the task's candidates awaiting review; it is read only when not found. A
    figure the question checks (`是不是13万亿`) puts the verdict before the fact line, stating
    only the asked figure and the fact's value (`verdict_line`); with no fact, no verdict."""
    if facts:
        line = lookup_render.fact_line(facts[0], glossary, language)
        verdict = verdict_line(checked, facts[0], glossary, language) if checked is not None else None
        sections = AnswerSections(structured=f"{verdict}\n{line}" if verdict else line)
        return _Part(sections, KIND_ANSWER, (facts[0],), tuple(all_results), (_fact_source(facts[0]),))
    if any(r.get("status") == NOT_FOUND for r in relevant):
        text = lookup_render.not_found_line(task, glossary, language, pending())
        return _Part(AnswerSections(structured=text), KIND_REFUSAL, (), tuple(all_results))
    unrecognized = [r for r in relevant if r.get("status") == UNRECOGNIZED]
    text = (
        lookup_render.unrecognized_line(unrecognized[0], language)
        if unrecognized
        else lookup_render.not_found_line(task, glossary, language, pending())
    )
    return _Part(AnswerSections(structured=text), KIND_REFUSAL, (), tuple(all_results))


def _in_unit_asked(part: _Part, intent: ParsedIntent, request: _Request) -> _Part:
    """The part with its money figures in the unit the question asks (`scaled_answer`), a
    currency converted only with a curated rate (`fx_rate_for`)."""
    assert intent.unit_asked is not None
    glossary = request.glossary
    scaled = scaled_answer(
        part.sections.structured,
        part.kind,
        part.facts,
        part.computed,
        intent.unit_asked,
        glossary,
        intent.language,
        decimals=intent.decimals,
        rate_for=fx_rate_for(request.fx, glossary),
    )
    sections = replace(part.sections, structured=scaled.text)
    if scaled.kind == KIND_REFUSAL:
        return _Part(sections, KIND_REFUSAL, tool_results=part.tool_results)
    return replace(part, sections=sections, computed=part.computed + scaled.computed)


def _computed_part(answer: ComputedAnswer) -> _Part:
    """A computed or listed answer as the structured channel's part, a fact source per input."""
    return _Part(
        AnswerSections(structured=answer.text),
        answer.kind,
        answer.facts,
        answer.tool_results,
        tuple(_fact_source(f) for f in answer.facts),
        computed=answer.computed,
        ranking=answer.ranking,
    )


def _fact_source(fact: FactRecord) -> Source:
    snippet = f"{fact.metric} · {fact.entity} · {fact.period.label} · {fact.channel} = {fact.value} {fact.unit}"
    snippet += render.printed_note(fact, "en")  # the figure as printed, when the sign convention changed it
    return Source("fact", fact.source_doc, fact.locator, fact.document_id, snippet)


def _run_find_documents(intent: ParsedIntent, retriever: NarrativeRetriever | None, cleared: bool) -> _Part:
    sections, kind, sources = documents_list(intent, retriever, cleared)
    return _Part(sections, kind, sources=sources)


__all__ = ["ClarificationResult", "ScopeError", "answer_question"]
