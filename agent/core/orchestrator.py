"""`answer_question`: the one entry point of the orchestrator (SPEC §4).

Takes a question, the caller's clearance and the ports; returns an `AgentResult`.
The early returns keep a fixed order (invariant 3): the security gate's refusal, then
ask-first, then assumptions, and only then the FAQ lookup, the fact store, retrieval or any
LLM. On the structured path every figure is rendered from a fact row (invariant 1): the
model's prose is discarded, and if the model calls no tool the agent runs `query_metric`
itself. A `ProviderError` yields a fixed message with no number (invariant 7).
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from . import render
from .clarify import clarify_scope
from .glossary import GlossarySnapshot
from .intent import DOCUMENT_CUES, parse_intent
from .narrative import narrative_answer
from .periods import period_parse
from .ports import FactStore, FaqHit, FaqLookup, IntentParser, LLMProvider, NarrativeRetriever, ProviderError
from .provider import slots_message
from .screening import ScreenedRetriever
from .security import security_screen
from .tools import (
    FOUND,
    NOT_FOUND,
    TOOL_NAME,
    UNRECOGNIZED,
    arguments_normalize,
    task_run,
    tool_schema_anthropic,
    tool_schema_openai,
)
from .types import (
    CLARIFY_ASK_FIRST,
    CLARIFY_OUT_OF_SCOPE_ENTITY,
    KIND_ANSWER,
    KIND_CLARIFICATION,
    KIND_DEGRADED,
    KIND_REFUSAL,
    ROUTE_COMPOSITE,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    AgentResult,
    ClarificationResult,
    FactRecord,
    Guard,
    ParsedIntent,
    Period,
    Source,
    SubTask,
)

MAX_TOOL_ITERATIONS = 5
SYSTEM_PROMPT = (
    "You answer questions about a company's figures. Always call the query_metric tool with the "
    "slots given after 'slots:'. Never state a figure the tool did not return; if the tool says "
    "not_found, say that the figure is not available."
)


class ScopeError(ValueError):
    """A `scope` value the glossary does not know."""


@dataclass
class _Run:
    """What one request accumulates on its way through the stages."""

    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    provider_seconds: float = 0.0

    def lap(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.timings[stage] = round((now - since) * 1000, 3)
        return now

    def add_usage(self, usage: Mapping[str, int]) -> None:
        for key, value in usage.items():
            self.usage[key] = self.usage.get(key, 0) + int(value)


@dataclass(frozen=True)
class _Part:
    """The outcome of one channel: text, facts, results and sources."""

    text: str
    kind: str
    facts: tuple[FactRecord, ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    sources: tuple[Source, ...] = ()
    numbers_unsupported: int = 0
    chunk_scores: tuple[tuple[int, float], ...] = ()


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
) -> AgentResult:
    run = _Run()
    request_id = request_id or uuid.uuid4().hex
    reference = reference_date or date.today()

    mark = run.started
    if intent_parser is not None:
        intent = intent_parser.parse(question, glossary=glossary, reference_date=reference)
        intent = replace(intent, raw_question=question)
    else:
        intent = parse_intent(question, glossary, reference)
    intent = _scope_apply(intent, scope or {}, glossary, reference)
    mark = run.lap("parse", mark)

    verdict = security_screen(
        raw_question=question, glossary=glossary, language=intent.language, scope_entity=intent.entity
    )
    clarification = clarify_scope(intent, glossary=glossary, reference_date=reference, verdict=verdict)
    mark = run.lap("clarify", mark)

    def result(part: _Part, route: str, *, faq_hit: FaqHit | None = None) -> AgentResult:
        run.timings["total"] = round((time.perf_counter() - run.started) * 1000, 3)
        found_any = any(r.get("status") == FOUND for r in part.tool_results)
        return AgentResult(
            request_id=request_id,
            question=question,
            answer=part.text,
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
            timings=dict(run.timings),
            usage=dict(run.usage),
            chunk_scores=part.chunk_scores,
            provider_seconds=round(run.provider_seconds, 6),
        )

    if clarification.mode == CLARIFY_OUT_OF_SCOPE_ENTITY:
        return result(_Part(clarification.question or "", KIND_REFUSAL), intent.route)
    if clarification.mode == CLARIFY_ASK_FIRST:
        return result(_Part(clarification.question or "", KIND_CLARIFICATION), intent.route)

    effective = replace(
        intent,
        entity=intent.entity or clarification.assumed_entity,
        period=intent.period or clarification.assumed_period,
    )

    if faq is not None:
        hit = faq.lookup(effective, cleared=cleared, reference_date=reference)
        mark = run.lap("faq", mark)
        if hit is not None:
            source = Source("faq", hit.source, f"faq={hit.id},version={hit.version}", None, "")
            return result(_Part(hit.answer, KIND_ANSWER, sources=(source,)), "faq", faq_hit=hit)

    # Every passage is screened for competitors before reranking, synthesis or display.
    screened = ScreenedRetriever(narrative_retriever, glossary) if narrative_retriever is not None else None

    def narrative(facts: tuple[FactRecord, ...] = ()) -> _Part:
        outcome = narrative_answer(
            question,
            retriever=screened,
            glossary=glossary,
            cleared=cleared,
            language=effective.language,
            llm=synthesizer,
            rerank=rerank,
            facts=facts,
        )
        run.add_usage(outcome.usage)
        return _Part(
            _with_notice(outcome.text, screened, effective.language),
            outcome.kind,
            sources=outcome.sources,
            numbers_unsupported=outcome.numbers_unsupported,
            chunk_scores=outcome.chunk_scores,
        )

    route = effective.route
    if route == ROUTE_FIND_DOCUMENTS:
        part = _run_find_documents(effective, screened, cleared)
        part = replace(part, text=_with_notice(part.text, screened, effective.language))
        run.lap("retrieval", mark)
        return result(part, route)
    if route == ROUTE_NARRATIVE:
        part = narrative()
        run.lap("narrative", mark)
        return result(part, route)

    structured = _run_structured(effective, glossary, store, provider, cleared, reference, run)
    mark = run.lap("structured", mark)
    if clarification.assumption_note and structured.kind != KIND_DEGRADED:
        structured = replace(structured, text=f"{clarification.assumption_note}\n{structured.text}")
    if route == ROUTE_STRUCTURED:
        return result(structured, route)

    explanation = narrative(structured.facts)
    run.lap("narrative", mark)
    heading = render.ATTRIBUTION_HEADING[effective.language]
    kind = KIND_ANSWER if KIND_ANSWER in (structured.kind, explanation.kind) else structured.kind
    merged = _Part(
        text=f"{structured.text}\n\n{heading}\n{explanation.text}",
        kind=kind,
        facts=structured.facts,
        tool_results=structured.tool_results,
        sources=structured.sources + explanation.sources,
        numbers_unsupported=explanation.numbers_unsupported,
        chunk_scores=explanation.chunk_scores,
    )
    return result(merged, ROUTE_COMPOSITE)


def _with_notice(text: str, screened: ScreenedRetriever | None, language: str) -> str:
    notice = screened.notice(language) if screened is not None else ""
    return f"{text}\n{notice}" if notice else text


# -- scope ---------------------------------------------------------------------------------
def _scope_apply(
    intent: ParsedIntent, scope: Mapping[str, str], glossary: GlossarySnapshot, reference: date
) -> ParsedIntent:
    """Narrow the parsed slots with an explicit `scope` (the narrowing buttons use it)."""
    changes: dict[str, Any] = {}
    for kind in ("metric", "entity", "channel"):
        raw = scope.get(kind)
        if raw in (None, ""):
            continue
        code = glossary.resolve(kind, raw)
        if code is None:
            raise ScopeError(f"scope.{kind} '{str(raw)[:64]}' is not in the glossary")
        changes[kind] = code
        plural = {"metric": "metrics", "entity": "entities"}.get(kind)
        if plural:
            changes[plural] = (code,)
        else:
            changes["channel_given"] = True
    raw_period = scope.get("period")
    if raw_period not in (None, ""):
        period = period_parse(str(raw_period), reference)
        if period is None:
            raise ScopeError(f"scope.period '{str(raw_period)[:64]}' is not a period")
        changes["period"] = period
        changes["periods"] = (period,)
    if not changes:
        return intent
    if "metric" in changes and intent.route == ROUTE_NARRATIVE:
        changes["route"] = ROUTE_STRUCTURED
    return replace(intent, **changes)


# -- structured channel --------------------------------------------------------------------
def _subtasks(intent: ParsedIntent) -> list[SubTask]:
    metrics = intent.metrics or ((intent.metric,) if intent.metric else ())
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    periods: tuple[Period, ...] = intent.periods or ((intent.period,) if intent.period else ())
    return [SubTask(m, e, p, intent.channel) for m, e, p in itertools.product(metrics, entities, periods)]


def _run_structured(
    intent: ParsedIntent,
    glossary: GlossarySnapshot,
    store: FactStore,
    provider: LLMProvider,
    cleared: bool,
    reference: date,
    run: _Run,
) -> _Part:
    tasks = _subtasks(intent)
    if len(tasks) > 1:
        return _multi_subtask_answer(tasks, glossary, store, cleared, intent.language)
    task = tasks[0]
    try:
        tool_results = _run_tool_loop(task, intent, glossary, store, provider, cleared, reference, run)
    except ProviderError:
        return _Part(render.DEGRADED_STRUCTURED[intent.language], KIND_DEGRADED)
    # A call for another fact is not this task's result: its `found` would hide from the guard
    # that the task's own figure is missing. Unrecognised calls name no fact and stay.
    tool_results = [(t, r, f) for t, r, f in tool_results if t is None or t == task]
    relevant = [(r, f) for t, r, f in tool_results if t == task]
    if not relevant:
        # The model answered without looking the figure up: the agent looks it up itself.
        own, fact = task_run(store, task, cleared=cleared)
        tool_results.append((task, own, fact))
        relevant = [(own, fact)]
    return _structured_answer(
        [r for r, _ in relevant],
        [f for _, f in relevant if f is not None],
        [r for _, r, _ in tool_results],
        task,
        glossary,
        intent.language,
    )


def _run_tool_loop(
    task: SubTask,
    intent: ParsedIntent,
    glossary: GlossarySnapshot,
    store: FactStore,
    provider: LLMProvider,
    cleared: bool,
    reference: date,
    run: _Run,
) -> list[tuple[SubTask | None, dict[str, Any], FactRecord | None]]:
    shape = getattr(provider, "tool_format", "anthropic")
    tools = [tool_schema_openai(glossary) if shape == "openai" else tool_schema_anthropic(glossary)]
    slots = {"metric": task.metric, "entity": task.entity, "period": task.period.label, "channel": task.channel}
    messages: list[dict[str, Any]] = [{"role": "user", "content": slots_message(intent.raw_question, slots)}]
    executed: list[tuple[SubTask | None, dict[str, Any], FactRecord | None]] = []
    for _ in range(MAX_TOOL_ITERATIONS):
        began = time.perf_counter()
        try:
            response = provider.create_message(system=SYSTEM_PROMPT, messages=messages, tools=tools)
        finally:
            run.provider_seconds += time.perf_counter() - began
        run.add_usage(response.usage)
        if not response.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": response.text,
                "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls],
            }
        )
        for call in response.tool_calls:
            normalized: SubTask | dict[str, Any]
            if call.name != TOOL_NAME:
                normalized = {"status": UNRECOGNIZED, "param": "tool", "raw": str(call.name)[:64]}
            elif not isinstance(call.arguments, dict):
                normalized = {"status": UNRECOGNIZED, "param": "arguments", "raw": str(call.arguments)[:64]}
            else:
                normalized = arguments_normalize(call.arguments, glossary, reference)
            if isinstance(normalized, SubTask):
                outcome, fact = task_run(store, normalized, cleared=cleared)
                executed.append((normalized, outcome, fact))
            else:
                outcome = normalized
                executed.append((None, outcome, None))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(outcome)})
    return executed


def _structured_answer(
    relevant: list[dict[str, Any]],
    facts: list[FactRecord],
    all_results: list[dict[str, Any]],
    task: SubTask,
    glossary: GlossarySnapshot,
    language: str,
) -> _Part:
    """The anti-fabrication guard: the answer is rebuilt from tool results, never model prose."""
    if facts:
        lines = [render.fact_line(f, glossary, language) for f in facts[:1]]
        return _Part("\n".join(lines), KIND_ANSWER, (facts[0],), tuple(all_results), (_fact_source(facts[0]),))
    if any(r.get("status") == NOT_FOUND for r in relevant):
        return _Part(render.not_found_line(task, glossary, language), KIND_REFUSAL, (), tuple(all_results))
    unrecognized = [r for r in relevant if r.get("status") == UNRECOGNIZED]
    text = (
        render.unrecognized_line(unrecognized[0], language)
        if unrecognized
        else render.not_found_line(task, glossary, language)
    )
    return _Part(text, KIND_REFUSAL, (), tuple(all_results))


def _multi_subtask_answer(
    tasks: list[SubTask], glossary: GlossarySnapshot, store: FactStore, cleared: bool, language: str
) -> _Part:
    """Listed metrics, entities or periods: each looked up deterministically, with no LLM."""
    lines: list[str] = []
    facts: list[FactRecord] = []
    results: list[dict[str, Any]] = []
    for task in tasks:
        outcome, fact = task_run(store, task, cleared=cleared)
        results.append(outcome)
        if fact is None:
            lines.append(render.not_found_line(task, glossary, language))
        else:
            facts.append(fact)
            lines.append(render.fact_line(fact, glossary, language))
    pair = render.comparable_pair(facts)
    if pair is not None:
        lines.append(render.difference_line(*pair, glossary, language))
    kind = KIND_ANSWER if facts else KIND_REFUSAL
    return _Part("\n".join(lines), kind, tuple(facts), tuple(results), tuple(_fact_source(f) for f in facts))


def _fact_source(fact: FactRecord) -> Source:
    snippet = f"{fact.metric} · {fact.entity} · {fact.period.label} · {fact.channel} = {fact.value} {fact.unit}"
    return Source("fact", fact.source_doc, fact.locator, fact.document_id, snippet)


# -- find_documents -----------------------------------------------------------------------
def _run_find_documents(intent: ParsedIntent, retriever: NarrativeRetriever | None, cleared: bool) -> _Part:
    """Ranked documents with their best locators and a snippet; no LLM."""
    if retriever is None:
        return _Part(render.NARRATIVE_NOT_WIRED[intent.language], KIND_DEGRADED)
    topic = DOCUMENT_CUES.sub(" ", intent.normalized).strip() or intent.raw_question
    documents = retriever.documents_find(topic, cleared=cleared)
    if not documents:
        return _Part(render.NARRATIVE_NO_HITS[intent.language], KIND_REFUSAL)
    header = (
        f"找到 {len(documents)} 份相关文件：" if intent.language == "zh" else f"{len(documents)} matching document(s):"
    )
    lines = [header] + [f"{i}. {d.doc}（{d.locator}）：{d.snippet}" for i, d in enumerate(documents, 1)]
    return _Part("\n".join(lines), KIND_ANSWER, sources=tuple(documents))


__all__ = ["ClarificationResult", "ScopeError", "answer_question"]
