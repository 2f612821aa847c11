"""The composite route: a figure and why it moved. The structured answer first, then the
narrative under the attribution heading.

A why asked of a figure's movement adds the change and its parts (`why_answer`) to the
structured answer, each fact cited once, and the parts that moved most steer the passages: the
documents are searched for the question (or, in English, the catalogue's names of what it asks)
and the movers' names as the documents print them.
"""

from __future__ import annotations

from dataclasses import replace

from core.glossary import GlossarySnapshot
from core.language.normalize import text_normalize
from core.model.clarification import ClarificationResult
from core.model.facts import SubTask
from core.model.intent import ParsedIntent
from core.model.registry import KIND_ANSWER
from core.parse.follow_up import follow_up_topic
from core.parse.intent import asks_why_change
from core.routes import render
from core.routes.computed.why import WhyAnswer, why_answer, why_whole
from core.routes.narrative.route import narrative_part
from core.routes.outcome import RouteAnswer, fact_source
from core.routes.request import RouteRequest
from core.routes.structured import structured_route


def composite_route(request: RouteRequest, intent: ParsedIntent, clarification: ClarificationResult) -> RouteAnswer:
    structured = structured_route(request, intent, clarification)
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
    explanation = narrative_part(request, intent, facts=structured.facts)
    request.lap("narrative")
    sections = replace(
        structured.sections,
        narrative_heading=render.ATTRIBUTION_HEADING[intent.language],
        narrative=explanation.sections.narrative,
    )
    return RouteAnswer(
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


def _why_joined(structured: RouteAnswer, why: WhyAnswer) -> RouteAnswer:
    """The figure's answer with its change and the change's parts after it, each fact cited once."""
    text = "\n".join(x for x in (structured.sections.structured, *why.lines) if x)
    facts = tuple(dict.fromkeys((*structured.facts, *why.facts)))
    extra = tuple(fact_source(f) for f in facts if f not in structured.facts)
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
