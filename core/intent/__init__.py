"""Zero-LLM intent parsing (SPEC §5, §6a).

Takes the raw question, a glossary snapshot and a reference date; returns a `ParsedIntent`
with the four slots (metric, entity, period, channel), their multi-value forms, the operation
asked for (`core.operations`), the route and a `routing` record (mode, confidence, and a reason
in the analyst's words: `依据：指标 营业收入 · 同比`). Deterministic and offline.

Competitor mentions are matched jointly with every other alias, so the span of `中国竞安`
is taken by the external entity and can never be read as ACME_CN.

Never a shorter alias: a metric alias followed by 率 (or by margin / ratio / rate / yield) names
a longer term; when that term is no alias of its own the metric is dropped and the term is
reported as `unknown_metric` (净利 is not 净利率). A ranking or a sum over 各地区 / 各渠道 lists the
subsidiaries or channels it runs over, never an external entity.
"""

from __future__ import annotations

import re
from datetime import date

from ..glossary import GlossarySnapshot
from ..normalize import compact_view, question_language, text_normalize
from ..operations import OVER_CHANNELS, OVER_ENTITIES, OperatorReading, cues_read, operation_read
from ..periods import periods_find
from ..types import ENTITY_SUBSIDIARY, OP_SUM, ROUTE_COMPOSITE, ROUTE_STRUCTURED, Match, ParsedIntent, Period, Routing
from .route import (
    DOCUMENT_CUES,
    MOVEMENT_CUES,
    NARRATIVE_CUES,
    NUMERIC_CUES,
    WHY_CUES,
    operation_stands,
    route_choose,
    route_cues_find,
    route_reason_write,
)

__all__ = [
    "DOCUMENT_CUES",
    "MOVEMENT_CUES",
    "NARRATIVE_CUES",
    "NUMERIC_CUES",
    "WHY_CUES",
    "is_inconclusive",
    "parse_intent",
]

TOTAL = "TOTAL"
_FILLER = re.compile(
    r"请问|请|帮我|查询|查一下|查|一下|告诉我|分别|是多少|多少|是什么|什么|是|的|了|吗|呢|和|与|及|以及|对比|比较|"
    r"有|为什么|为何|原因|怎么|如何|哪些|哪个|情况|数据|[?？!！。,，、:：;；()（）\"'“”‘’\-/.0-9 ]"
)
# What follows a metric alias and makes it a longer term (净利 + 率, net profit + margin).
_LONGER_ZH = re.compile(r"\s?率")
_LONGER_EN = re.compile(r"\s?(?:margin|ratio|rate|yield)s?(?![a-z])")


def parse_intent(question: str, glossary: GlossarySnapshot, reference_date: date) -> ParsedIntent:
    normalized = text_normalize(question)
    _, positions = compact_view(normalized)
    matches = glossary.match(normalized)
    spans = [(positions[m.start], positions[m.end - 1] + 1) for m in matches]
    names = [span for m, span in zip(matches, spans, strict=True) if not (m.kind == "channel" and m.code == TOTAL)]
    cues = cues_read(normalized, taken=names)
    cue_spans = [(c.start, c.end) for c in cues]
    kept, unknown_metric = _longer_terms_drop(normalized, matches, spans, cue_spans)
    relative = [(c.start, c.end) for c in cues if c.relative]
    period_spans = [(s, e, p) for s, e, p in periods_find(normalized, reference_date) if not _inside((s, e), relative)]

    metrics: list[str] = []
    entities: list[str] = []
    channels: list[str] = []
    external: str | None = None
    for m, _ in kept:
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

    reading = operation_read(
        cues,
        metrics=len(metrics),
        entities=len(entities),
        channels=len([c for c in channels if c != TOTAL]),
        periods=len(periods),
    )
    cues_found = route_cues_find(normalized)
    route, confidence = route_choose(metrics, entities, periods, channels, reading, unknown_metric, cues_found)
    operation = reading.operation if operation_stands(route, cues_found) else None
    if route in (ROUTE_STRUCTURED, ROUTE_COMPOSITE):
        entities = _entities_over(entities, reading.over, glossary)
        channels = _channels_over(channels, reading, glossary)

    covered = [span for _, span in kept] + [(s, e) for s, e, _ in period_spans] + cue_spans
    leftovers = _leftover_terms(normalized, covered) if not metrics else ()
    if unknown_metric and unknown_metric not in leftovers:
        leftovers = (unknown_metric, *leftovers)[:3]
    language = question_language(question)
    reason = route_reason_write(
        route,
        metrics,
        operation,
        unknown_metric,
        cues_found,
        question,
        glossary,
        language,
        has_slots=bool(entities or periods or channels),
    )

    return ParsedIntent(
        raw_question=question,
        normalized=normalized,
        metric=metrics[0] if metrics else None,
        entity=entities[0] if entities else None,
        period=periods[0] if periods else None,
        channel=channels[0] if channels else TOTAL,
        channel_given=bool(channels),
        metrics=tuple(metrics),
        entities=tuple(entities),
        periods=tuple(periods),
        route=route,
        external_entity=external,
        routing=Routing("deterministic", confidence, reason),
        unrecognized_terms=leftovers,
        language=language,
        operation=operation,
        channels=tuple(channels),
        unknown_metric=unknown_metric,
        decimals=reading.decimals,
    )


def _append_once(items: list[str], code: str) -> None:
    if code not in items:
        items.append(code)


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _longer_terms_drop(
    normalized: str, matches: list[Match], spans: list[tuple[int, int]], cue_spans: list[tuple[int, int]]
) -> tuple[list[tuple[Match, tuple[int, int]]], str | None]:
    """The matches that stand for what the question names, and the first longer metric-like term
    no alias covers.

    A metric hit followed by 率 (or, after an English alias, by margin / ratio / rate / yield) is
    part of a longer term: had that term been an alias, the longest match would have taken it.
    The word is not a term's end when another hit or an operator cue holds it (营收增长率 is
    revenue and a growth; `operating profit to revenue ratio` asks for a ratio).
    """
    taken = [span for m, span in zip(matches, spans, strict=True)]
    kept: list[tuple[Match, tuple[int, int]]] = []
    unknown: str | None = None
    for m, (start, end) in zip(matches, spans, strict=True):
        if m.kind == "metric":
            follower = _LONGER_EN if normalized[end - 1].isascii() else _LONGER_ZH
            after = follower.match(normalized, end)
            if after is not None:
                word = (after.end() - len(after.group(0).lstrip()), after.end())
                held = [span for span in taken if span != (start, end)] + cue_spans
                if not any(s < word[1] and word[0] < e for s, e in held):
                    unknown = unknown or _term(normalized[start : after.end()])
                    continue
        kept.append((m, (start, end)))
    return kept, unknown


def _term(text: str) -> str:
    """A term as the analyst wrote it: Chinese without spaces, English words single-spaced."""
    return text if text.isascii() else "".join(text.split())


def _entities_over(entities: list[str], over: str | None, glossary: GlossarySnapshot) -> list[str]:
    """A 各地区 / 哪个地区 list that names fewer than two entities: the children of the one named,
    if it has any, else the home entity's subsidiaries. Never an external entity."""
    if over != OVER_ENTITIES or len(entities) >= 2:
        return entities
    if len(entities) == 1:
        children = [e.code for e in glossary.children(entities[0])]
        if children:
            return children
    home = glossary.home_entity
    subsidiaries = [e.code for e in glossary.children(home) if e.kind == ENTITY_SUBSIDIARY]
    return subsidiaries if home is not None and subsidiaries else entities


def _channels_over(channels: list[str], reading: OperatorReading, glossary: GlossarySnapshot) -> list[str]:
    """Channels a list runs over never include TOTAL (it would count twice); 各渠道 with no channel
    named is every channel."""
    named = [c for c in channels if c != TOTAL]
    op = reading.operation
    over_channels = reading.over == OVER_CHANNELS or (op is not None and op.kind == OP_SUM and len(named) >= 2)
    if not over_channels:
        return channels
    return named if named else [code for code in glossary.channels if code != TOTAL]


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
