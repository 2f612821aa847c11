"""The parts of a question: what each of its clauses asks.

Takes the normalised question, the glossary hits that stand, the operator cues and the periods,
with their spans; returns the `Part`s of a question that asks each of them something of its own,
or () when one reading runs over every slot the question lists.

- A clause (split at ，？；。！, and in English at `, and`, `and how …`, `;`, `?`) stands on its
  own when it asks something: an operator (同比增长多少, 占比, 最高), or a metric with a question
  word (毛利率是多少).
  A clause that asks nothing of its own (a topic `集团2025年营收，`, a frame `根据年报，`, a rounding
  `保留两位小数`, an ellipsis `毛利率呢`) belongs to a standing one: the next when it comes before
  any, else the one before it.
- Each standing clause keeps its own metrics, channels and operation. One that asks with an
  operator and names no metric (`，同比增长多少`) asks it of the metrics and channels before it.
  It also runs over the list before it (`2025年各地区营收是多少，分别占集团的比重是多少`).
  Entities and periods a clause does not name are the ones named before it (for the first, the
  first the question names); a clause whose operation relates two items (share, ratio,
  difference) adds its own to them: as the other item (`，占集团的比重`, `，与香港之比`,
  `，较2024年增长多少`), or as the part of a share when named before its cue (`，香港营收占比`).
- Inside one clause, an operator right after a metric that is not the list's last stays with that
  metric (`营收同比增速和毛利率`); one after the last metric runs over the whole list
  (`营收和毛利率同比增长多少`).

A rounding instruction applies to every part, unless a clause gives its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from core.glossary import GlossarySnapshot
from core.model.facts import ENTITY_SUBSIDIARY
from core.model.intent import Match, Part
from core.model.operation import (
    OP_CAGR,
    OP_DIFFERENCE,
    OP_GROWTH,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    OPERATION_KINDS,
    Operation,
)
from core.model.period import Period
from core.parse.cues import CUE_OVER, OVER_CHANNELS, OVER_ENTITIES, Cue, OperatorReading, operation_read
from core.parse.intent.route import NUMERIC_CUES

TOTAL = "TOTAL"
Span = tuple[int, int]
Hit = tuple[Match, Span]

_ZH_CLAUSE_END = re.compile(r"[,?;!。，？；！]")
# English: `, and`, or `and` opening a question of its own (`and how much did it grow`).
_EN_CLAUSE_END = re.compile(
    r",\s*and(?![a-z])|,?\s+and\s+(?=(?:how|what|which|who|where|when|why)(?![a-z]))|[?;!]|\.(?=\s|$)"
)
_BINARY = (OP_SHARE, OP_RATIO, OP_DIFFERENCE)


@dataclass
class _Clause:
    start: int
    end: int
    hits: list[Hit] = field(default_factory=list)
    periods: list[Period] = field(default_factory=list)
    cues: list[Cue] = field(default_factory=list)
    standing: bool = False

    def codes(self, kind: str) -> list[str]:
        return list(dict.fromkeys(m.code for m, _ in self.hits if m.kind == kind and not m.external))


def clause_bounds(normalized: str, *, english: bool) -> list[Span]:
    """The clauses of the question, as `[start, end)` spans without their separators."""
    bounds: list[Span] = []
    at = 0
    for m in (_EN_CLAUSE_END if english else _ZH_CLAUSE_END).finditer(normalized):
        if normalized[at : m.start()].strip():
            bounds.append((at, m.start()))
        at = m.end()
    if normalized[at:].strip():
        bounds.append((at, len(normalized)))
    return bounds


def parts_read(
    normalized: str,
    kept: Sequence[Hit],
    cues: Sequence[Cue],
    period_spans: Sequence[tuple[int, int, Period]],
    *,
    english: bool,
    decimals: int | None,
    slots: Part,
    glossary: GlossarySnapshot,
) -> tuple[Part, ...]:
    """The question's parts, or (): one reading (`slots`, the question's) runs over every slot."""
    if sum(m.kind == "metric" for m, _ in kept) < 2 and not any(c.kind in OPERATION_KINDS for c in cues):
        return ()  # one metric asked at its level: nothing to part
    bounds = clause_bounds(normalized, english=english)
    clauses = [_Clause(start, end) for start, end in bounds]
    if len(clauses) > 1:
        for clause in clauses:
            inside = range(clause.start, clause.end)
            clause.hits = [(m, span) for m, span in kept if span[0] in inside]
            clause.periods = list(dict.fromkeys(p for s, _, p in period_spans if s in inside))
            clause.cues = [c for c in cues if c.start in inside]
            metric = any(m.kind == "metric" for m, _ in clause.hits)
            asks = NUMERIC_CUES.search(normalized, clause.start, clause.end) is not None
            # a direction alone (`，从低到高`) orders the ranking before it and asks nothing of its own
            operators = [c for c in clause.cues if c.kind in OPERATION_KINDS and not c.direction]
            clause.standing = bool(operators) or (metric and asks)
    groups = _groups(clauses)
    if len(groups) < 2:
        return _within(normalized, kept, cues, bounds, decimals=decimals, slots=slots)
    parts = _clause_parts(normalized, groups, bounds, decimals=decimals, glossary=glossary)
    if parts is None or len(parts) < 2:
        return _within(normalized, kept, cues, bounds, decimals=decimals, slots=slots)
    levels_alike = all(p.operation is None for p in parts) and len({_slots_of(p) for p in parts}) == 1
    return () if levels_alike else parts  # the same slots at their level: the question's list


def _slots_of(part: Part) -> tuple[object, ...]:
    return (part.entities, part.periods, part.channels)


def _groups(clauses: list[_Clause]) -> list[list[_Clause]]:
    """Each standing clause with the clauses that belong to it."""
    groups: list[list[_Clause]] = []
    waiting: list[_Clause] = []
    for clause in clauses:
        if clause.standing:
            groups.append([*waiting, clause])
            waiting = []
        elif groups:
            groups[-1].append(clause)
        else:
            waiting.append(clause)
    if waiting and groups:
        groups[-1].extend(waiting)
    return groups


def _clause_parts(
    normalized: str,
    groups: list[list[_Clause]],
    bounds: list[Span],
    *,
    decimals: int | None,
    glossary: GlossarySnapshot,
) -> tuple[Part, ...] | None:
    """The parts of each group of clauses; None when a clause asks of metrics no clause names."""
    named_entities = next((g for g in (_codes(g, "entity") for g in groups) if g), [])
    named_periods = next((g for g in (_periods(g) for g in groups) if g), [])
    entities_before, periods_before = named_entities, named_periods
    metrics_before: list[str] = []
    channels_before: list[str] = []
    over_before: list[Cue] = []
    parts: list[Part] = []
    for group in groups:
        cues = [c for clause in group for c in clause.cues]
        hits = [h for clause in group for h in clause.hits]
        metrics, channels = _codes(group, "metric"), _codes(group, "channel")
        entities, periods = _codes(group, "entity"), _periods(group)
        referring = not metrics
        if referring:  # `，分别占集团的比重是多少`: of the metrics, channels and list before it
            if not metrics_before:
                return None
            metrics, channels = metrics_before, channels or channels_before
            cues = [*over_before, *cues]
        binary = [c for c in cues if c.kind in _BINARY]
        if binary:  # a share's part named before its cue is the subject (`香港营收占比`); else the other
            before_cue = all(s < binary[0].start for m, (s, _) in hits if m.kind == "entity")
            subject = bool(entities) and binary[0].kind == OP_SHARE and before_cue
            entities = _joined(entities, entities_before) if subject else _joined(entities_before, entities)
            periods = _joined(periods_before, periods)
        else:
            entities, periods = entities or entities_before, periods or periods_before
        named = [c for c in channels if c != TOTAL]
        reading = operation_read(
            cues,
            metrics=len(metrics),
            entities=len(entities),
            channels=len(named),
            periods=len(periods),
            period_types=len({p.period_type for p in periods}),
        )
        places = reading.decimals if reading.decimals is not None else decimals
        entities_over = entities_read(entities, reading.over, glossary)
        channels_over = channels_read(channels, reading, glossary)
        slots = Part(tuple(metrics), None, tuple(entities_over), tuple(periods), tuple(channels_over), places)
        own = () if referring else _within(normalized, hits, cues, bounds, decimals=places, slots=slots)
        parts.extend(own or [replace(slots, operation=_with_decimals(reading.operation, places))])
        metrics_before, channels_before = metrics, channels
        entities_before, periods_before = entities, periods
        over_before = [c for c in cues if c.kind == CUE_OVER and not c.weak]
    return tuple(dict.fromkeys(parts))


def _codes(group: list[_Clause], kind: str) -> list[str]:
    return list(dict.fromkeys(code for clause in group for code in clause.codes(kind)))


def _periods(group: list[_Clause]) -> list[Period]:
    return list(dict.fromkeys(p for clause in group for p in clause.periods))


def _joined[T](before: Sequence[T], own: Sequence[T]) -> list[T]:
    return list(dict.fromkeys([*before, *own]))


def _with_decimals(operation: Operation | None, decimals: int | None) -> Operation | None:
    if operation is None or operation.decimals is not None or decimals is None:
        return operation
    return replace(operation, decimals=decimals)


def _within(
    normalized: str,
    kept: Sequence[Hit],
    cues: Sequence[Cue],
    bounds: Sequence[Span],
    *,
    decimals: int | None,
    slots: Part,
) -> tuple[Part, ...]:
    """Each listed metric with its own operation, when an operator follows a metric that is not
    the list's last in the same clause (`营收同比增速和毛利率`: revenue's growth and the gross
    margin's level); an operator after the last metric runs over the whole list
    (`营收和毛利率同比增长多少`), and so does one asked before an ellipsis (`营收同比增长多少，毛利率呢`): ()."""
    metrics = [(m.code, span) for m, span in kept if m.kind == "metric"]
    if len({code for code, _ in metrics}) < 2:
        return ()
    operators = [c for c in cues if c.kind in OPERATION_KINDS]
    attached: dict[str, list[Cue]] = {}
    for code, (_, end) in metrics:
        at = end
        while True:
            while at < len(normalized) and normalized[at] in "的了 ":
                at += 1
            following = [c for c in operators if c.start == at]
            if not following:
                break
            attached.setdefault(code, []).extend(following)
            at = max(c.end for c in following)
    last = metrics[-1][0]
    unary = all(c.kind in (OP_GROWTH, OP_CAGR) for cues_of in attached.values() for c in cues_of)
    if not unary or not any(code != last for code in attached):
        return ()  # 营业利润占营收的比重: a share, a ratio or a difference takes both metrics
    if len({_clause_of(span[0], bounds) for _, span in metrics}) > 1:
        return ()
    counts = {
        "entities": len(slots.entities),
        "channels": len([c for c in slots.channels if c != TOTAL]),
        "periods": len(slots.periods),
        "period_types": len({p.period_type for p in slots.periods}),
    }
    parts: list[Part] = []
    for code, _ in metrics:
        if all(code not in p.metrics for p in parts):
            own = operation_read(attached.get(code, []), metrics=1, **counts)
            parts.append(replace(slots, metrics=(code,), operation=_with_decimals(own.operation, decimals)))
    return tuple(parts)


def _clause_of(at: int, bounds: Sequence[Span]) -> int:
    return next((i for i, (start, end) in enumerate(bounds) if start <= at < end), -1)


def entities_read(entities: Sequence[str], over: str | None, glossary: GlossarySnapshot) -> list[str]:
    """A 各地区 / 哪个地区 list that names fewer than two entities: the children of the one named,
    if it has any, else the home entity's subsidiaries. Never an external entity."""
    if over != OVER_ENTITIES or len(entities) >= 2:
        return list(entities)
    if len(entities) == 1:
        children = [e.code for e in glossary.children(entities[0])]
        if children:
            return children
    home = glossary.home_entity
    subsidiaries = [e.code for e in glossary.children(home) if e.kind == ENTITY_SUBSIDIARY]
    return subsidiaries if home is not None and subsidiaries else list(entities)


def share_whole_last(entities: Sequence[str], operation: Operation | None, glossary: GlossarySnapshot) -> list[str]:
    """A share of two entities, one inside the other, is the part's share of the whole whatever
    order they are named in (`share of group revenue did Southeast Asia account for`,
    `集团营收中东南亚的占比`): the whole goes last, where the share reads it."""
    if operation is None or operation.kind != OP_SHARE or len(entities) != 2:
        return list(entities)
    whole, part = entities
    return [part, whole] if whole in _ancestors(part, glossary) else list(entities)


def _ancestors(code: str, glossary: GlossarySnapshot) -> list[str]:
    found: list[str] = []
    parent = glossary.entities[code].parent if code in glossary.entities else None
    while parent is not None and parent not in found:
        found.append(parent)
        parent = glossary.entities[parent].parent if parent in glossary.entities else None
    return found


def channels_read(channels: Sequence[str], reading: OperatorReading, glossary: GlossarySnapshot) -> list[str]:
    """Channels a list runs over never include TOTAL (it would count twice); 各渠道 with no channel
    named is every channel."""
    named = [c for c in channels if c != TOTAL]
    op = reading.operation
    over_channels = reading.over == OVER_CHANNELS or (op is not None and op.kind == OP_SUM and len(named) >= 2)
    if not over_channels:
        return list(channels)
    return named if named else [code for code in glossary.channels if code != TOTAL]
