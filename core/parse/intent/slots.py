"""A normalised question read into its slots, its operation and its route.

`slots_read` takes the raw question, its normalised text, the glossary and the reference date;
returns a `ParsedIntent` with the metrics, entities, periods and channels named (a parent named
right before its own child is the child), the operation the cues ask for over them (a change
over a range runs between its ends), the parts asked each with an operation of their own, the
route, and the terms no reader took. A mistyped operator word is read as the word it stands for,
and the answer says so; a how-many word that splits a name (`新开了多少家门店`) is moved to the
end of its sentence and the question read again.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view, question_language
from core.language.periods import periods_cumulative, periods_find, periods_unread, series_asked, series_words
from core.model.intent import Match, ParsedIntent, Part, Routing
from core.model.operation import OP_CAGR, OP_DIFFERENCE, OP_SUM, Operation
from core.model.period import Period
from core.model.registry import ROUTE_COMPOSITE, ROUTE_STRUCTURED
from core.parse.cues import OperatorReading, cues_read, operation_read
from core.parse.intent.clauses import channels_read, entities_read, parts_read, share_whole_last
from core.parse.intent.home import home_heads_add
from core.parse.intent.route import (
    operation_stands,
    route_choose,
    route_cues_find,
    route_reason_write,
)
from core.parse.intent.terms import longer_terms_drop
from core.parse.intent.typos import corrections_apply, reason_with_readings, typos_find
from core.parse.intent.unread import leftover_terms, route_cue_spans, unknown_term_find

TOTAL = "TOTAL"


def slots_read(
    question: str, normalized: str, glossary: GlossarySnapshot, reference_date: date, *, typos: bool
) -> ParsedIntent:
    language = question_language(question)
    _, positions = compact_view(normalized)
    matches = glossary.match(normalized)
    spans = [(positions[m.start], positions[m.end - 1] + 1) for m in matches]
    names = [span for m, span in zip(matches, spans, strict=True) if not (m.kind == "channel" and m.code == TOTAL)]
    found_periods = periods_find(normalized, reference_date)
    cues = cues_read(normalized, taken=names, numbers=[(s, e) for s, e, _ in found_periods])
    cue_spans = [(c.start, c.end) for c in cues]
    unread = [(s, e) for s, e, _ in periods_unread(normalized, reference_date)]
    read = [(s, e) for s, e, _ in found_periods] + unread + cue_spans + route_cue_spans(normalized)
    read += series_words(normalized)
    # `Group revenue`, `本集团`: the bare head noun of the home entity's name names it
    matches, spans = home_heads_add(question, normalized, matches, spans, read, glossary)
    if typos and not any(m.kind == "metric" for m in matches):
        moved = _question_word_moved(normalized)
        if moved is not None and any(m.kind == "metric" for m in glossary.match(moved)):
            return slots_read(question, moved, glossary, reference_date, typos=True)
    if typos:
        metric_spans = [span for m, span in zip(matches, spans, strict=True) if m.kind == "metric"]
        corrections = typos_find(normalized, [*spans, *read], metric_spans, english=language == "en", names=spans)
        if corrections:
            again = slots_read(
                question, corrections_apply(normalized, corrections), glossary, reference_date, typos=False
            )
            read_as = tuple((c.written, c.read_as) for c in corrections)
            return replace(
                again, corrections=read_as, routing=replace(again.routing, reason=reason_with_readings(again, read_as))
            )
    kept, unknown_metric = longer_terms_drop(question, normalized, matches, spans, read)
    kept = _children_merge(kept, normalized, glossary)
    relative = [(c.start, c.end) for c in cues if c.relative]
    period_spans = [(s, e, p) for s, e, p in found_periods if not _inside((s, e), relative)]

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

    def operation_over(spans: list[tuple[int, int, Period]]) -> OperatorReading:
        listed = list(dict.fromkeys(p for _, _, p in spans))
        return operation_read(
            cues,
            metrics=len(metrics),
            entities=len(entities),
            channels=len([c for c in channels if c != TOTAL]),
            periods=len(listed),
            period_types=len({p.period_type for p in listed}),
        )

    # A change or a CAGR over a range (`从2023到2025变化了多少`, `2021年至2025年的复合增长率`) runs
    # between its first and last periods, unless the question asks for each period (`每年增长多少`).
    ends = _range_ends(period_spans)
    reading = operation_over(ends)
    between = reading.operation is not None and reading.operation.kind in _BETWEEN_ENDS
    if ends != period_spans and (series_asked(normalized) or not between):
        reading = operation_over(period_spans)
    elif ends != period_spans:
        period_spans = ends
        periods = list(dict.fromkeys(p for _, _, p in period_spans))
    # A derived stretch (`前三季度`) is the sum of its quarters, asked at its level or as a sum;
    # under any other operation it stays unread and is asked back.
    cumulative = periods_cumulative(normalized, reference_date)
    if cumulative and (reading.operation is None or reading.operation.kind == OP_SUM):
        stretch = [(s, e, p) for s, e, quarters in cumulative for p in quarters]
        period_spans = sorted([*period_spans, *stretch], key=lambda item: item[0])
        periods = list(dict.fromkeys(p for _, _, p in period_spans))
        cue = normalized[cumulative[0][0] : cumulative[0][1]]
        reading = replace(reading, operation=reading.operation or Operation(OP_SUM, cue=cue))
    cues_found = route_cues_find(normalized)
    if unknown_metric is None:
        unknown_metric = unknown_term_find(
            question,
            language,
            normalized,
            [*spans, *read],
            period_spans,
            metrics,
            entities,
            external,
            reading,
            cues_found,
        )
    route, confidence = route_choose(metrics, entities, periods, channels, reading, unknown_metric, cues_found)
    operation = reading.operation if operation_stands(route, cues_found) else None
    parts: tuple[Part, ...] = ()
    if route in (ROUTE_STRUCTURED, ROUTE_COMPOSITE):
        entities = entities_read(share_whole_last(entities, operation, glossary), reading.over, glossary)
        channels = channels_read(channels, reading, glossary)
        slots = Part(tuple(metrics), operation, tuple(entities), tuple(periods), tuple(channels), reading.decimals)
        parts = parts_read(
            normalized,
            kept,
            cues,
            period_spans,
            english=language == "en",
            decimals=reading.decimals,
            slots=slots,
            glossary=glossary,
        )
        operation = next((p.operation for p in parts if p.operation is not None), operation)

    covered = [span for _, span in kept] + [(s, e) for s, e, _ in period_spans] + cue_spans + series_words(normalized)
    leftovers = leftover_terms(normalized, covered) if not metrics else ()
    if unknown_metric and unknown_metric not in leftovers:
        leftovers = (unknown_metric, *leftovers)[:3]
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
        parts=parts,
        channels=tuple(channels),
        unknown_metric=unknown_metric,
        decimals=reading.decimals,
    )


# `新开了多少家门店`: a how-many question word inside a verb-object name (新开门店), after an aspect
# marker (了, 过; Cantonese 咗) or none; Cantonese asks how many with 几多.
_ASPECT = "了过咗"
_INSIDE_A_NAME = re.compile(
    rf"(?<=[\u4e00-\u9fff])[{_ASPECT}]?(?:多少|几多|几)[个家名位人次笔项间]?(?=[\u4e00-\u9fff])"
)
_CLOSING = re.compile(r"[\s?!。？！,，]*$")


def _question_word_moved(normalized: str) -> str | None:
    """The question with a how-many word that splits a name moved to the end of its sentence
    (before its closing punctuation), or None."""
    m = _INSIDE_A_NAME.search(normalized)
    if m is None:
        return None
    rest = normalized[m.end() :]
    closing = _CLOSING.search(rest)
    at = closing.start() if closing is not None else len(rest)
    return normalized[: m.start()] + rest[:at] + "是" + m.group(0).lstrip(_ASPECT) + rest[at:]


_BETWEEN_ENDS = (OP_DIFFERENCE, OP_CAGR)


def _range_ends(period_spans: list[tuple[int, int, Period]]) -> list[tuple[int, int, Period]]:
    """The periods with each range (periods sharing one span) cut to its first and last."""
    kept: list[tuple[int, int, Period]] = []
    for i, item in enumerate(period_spans):
        span = item[:2]
        inner = 0 < i < len(period_spans) - 1 and period_spans[i - 1][:2] == span == period_spans[i + 1][:2]
        if not inner:
            kept.append(item)
    return kept


def _append_once(items: list[str], code: str) -> None:
    if code not in items:
        items.append(code)


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _children_merge(
    kept: list[tuple[Match, tuple[int, int]]], normalized: str, glossary: GlossarySnapshot
) -> list[tuple[Match, tuple[int, int]]]:
    """A parent entity named right before one of its own children names the child (`ACME HK`,
    `集团香港`): the two words are one name, not a list."""
    merged: list[tuple[Match, tuple[int, int]]] = []
    for m, span in kept:
        if merged and m.kind == "entity" and not m.external:
            before, before_span = merged[-1]
            child = glossary.entities.get(m.code)
            adjacent = normalized[before_span[1] : span[0]].strip() == ""
            if before.kind == "entity" and adjacent and child is not None and child.parent == before.code:
                merged[-1] = (m, (before_span[0], span[1]))
                continue
        merged.append((m, span))
    return merged
