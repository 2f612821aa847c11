"""Zero-LLM intent parsing (SPEC §5).

Takes the raw question, a glossary snapshot and a reference date; returns a `ParsedIntent`
with the four slots (metric, entity, period, channel), their multi-value forms, the route
and a `routing` record (mode, confidence, reason). Deterministic and offline.

Competitor mentions are matched jointly with every other alias, so the span of `中国竞安`
is taken by the external entity and can never be read as ACME_CN.
"""

from __future__ import annotations

import re
from datetime import date

from .glossary import GlossarySnapshot
from .normalize import compact_view, question_language, text_normalize
from .periods import periods_find
from .types import (
    ROUTE_COMPOSITE,
    ROUTE_FIND_DOCUMENTS,
    ROUTE_NARRATIVE,
    ROUTE_STRUCTURED,
    ParsedIntent,
    Period,
    Routing,
)

NARRATIVE_CUES = re.compile(
    r"为什么|为何|原因|归因|怎么看|如何看|怎么样|监管|政策|动态|进展|影响|评价|趋势|下降|上升|下滑|增长的?驱动"
    r"|(?<![a-z])(?:why|reasons?|drivers?|driven|regulat\w*|trends?|impacts?|declin\w*|fall\w*|fell|ris(?:e|es|ing)|rose|explain\w*)(?![a-z])"
)
NUMERIC_CUES = re.compile(
    r"多少|几|数值|数字|(?<![a-z])(?:what is|what was|what's|what were|what are|how much|how many)(?![a-z])"
)
DOCUMENT_CUES = re.compile(
    r"哪些文件|哪些文档|哪些资料|哪些报告|哪份|哪个文档|哪个文件|哪篇|在哪里提到|哪里提到|哪些材料"
    r"|(?<![a-z])(?:which (?:documents?|files?|reports?)|find (?:the )?(?:documents?|files?)"
    r"|where is .+ mentioned)(?![a-z])"
)
_FILLER = re.compile(
    r"请问|请|帮我|查询|查一下|查|一下|告诉我|分别|是多少|多少|是什么|什么|是|的|了|吗|呢|和|与|及|以及|对比|比较|"
    r"有|为什么|为何|原因|怎么|如何|哪些|哪个|情况|数据|[?？!！。,，、:：;；()（）\"'“”‘’\-/.0-9 ]"
)


def parse_intent(question: str, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
    normalized = text_normalize(question)
    _, positions = compact_view(normalized)
    matches = glossary.match(normalized)
    period_spans = periods_find(normalized, reference_date)

    metrics: list[str] = []
    entities: list[str] = []
    channels: list[str] = []
    external: str | None = None
    for m in matches:
        if m.kind == "entity" and m.external:
            external = external or m.code
        elif m.kind == "entity":
            _append_once(entities, m.code)
        elif m.kind == "metric":
            _append_once(metrics, m.code)
        elif m.kind == "channel":
            _append_once(channels, m.code)
    periods: list[Period] = []
    for _, _, period in period_spans:
        if period not in periods:
            periods.append(period)

    narrative_cue = NARRATIVE_CUES.search(normalized)
    numeric_cue = NUMERIC_CUES.search(normalized)
    document_cue = DOCUMENT_CUES.search(normalized)
    route, routing = _route(metrics, entities, periods, channels, narrative_cue, numeric_cue, document_cue)

    covered = [(positions[m.start], positions[m.end - 1] + 1) for m in matches]
    covered += [(start, end) for start, end, _ in period_spans]
    leftovers = _leftover_terms(normalized, covered) if not metrics else ()

    return ParsedIntent(
        raw_question=question,
        normalized=normalized,
        metric=metrics[0] if metrics else None,
        entity=entities[0] if entities else None,
        period=periods[0] if periods else None,
        channel=channels[0] if channels else "TOTAL",
        channel_given=bool(channels),
        metrics=tuple(metrics),
        entities=tuple(entities),
        periods=tuple(periods),
        route=route,
        external_entity=external,
        routing=routing,
        unrecognized_terms=leftovers,
        language=question_language(question),
    )


def _append_once(items: list[str], code: str) -> None:
    if code not in items:
        items.append(code)


def _route(
    metrics: list[str],
    entities: list[str],
    periods: list[Period],
    channels: list[str],
    narrative_cue: re.Match[str] | None,
    numeric_cue: re.Match[str] | None,
    document_cue: re.Match[str] | None,
) -> tuple[str, Routing]:
    if document_cue and not numeric_cue:
        return ROUTE_FIND_DOCUMENTS, Routing("deterministic", 1.0, f"document cue '{document_cue.group(0)}'")
    if metrics and narrative_cue:
        reason = f"metric {metrics[0]} + narrative cue '{narrative_cue.group(0)}'"
        return ROUTE_COMPOSITE, Routing("deterministic", 1.0, reason)
    if metrics:
        return ROUTE_STRUCTURED, Routing("deterministic", 1.0, f"metric {metrics[0]}")
    if numeric_cue:
        return ROUTE_STRUCTURED, Routing("deterministic", 0.9, f"numeric cue '{numeric_cue.group(0)}'")
    if narrative_cue:
        return ROUTE_NARRATIVE, Routing("deterministic", 1.0, f"narrative cue '{narrative_cue.group(0)}'")
    if entities or periods or channels:
        return ROUTE_NARRATIVE, Routing("deterministic", 0.7, "slots without a metric or cue")
    return ROUTE_NARRATIVE, Routing("deterministic", 0.5, "no slot and no cue: narrative by default")


def is_inconclusive(intent: ParsedIntent) -> bool:
    """No slot and no cue: the only case where LLM-assisted routing may be consulted."""
    return intent.routing.confidence <= 0.5


def _leftover_terms(normalized: str, covered: list[tuple[int, int]]) -> tuple[str, ...]:
    """Words the glossary did not know, for the glossary-gap report (each ≤ 32 characters)."""
    chars = list(normalized)
    for start, end in covered:
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    rest = _FILLER.sub(" ", NARRATIVE_CUES.sub(" ", NUMERIC_CUES.sub(" ", "".join(chars))))
    terms = [t for t in rest.split() if 2 <= len(t) <= 32]
    return tuple(dict.fromkeys(terms))[:3]
