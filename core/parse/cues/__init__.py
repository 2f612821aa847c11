"""Operator cues: what a question asks to compute over its slots.

`cues_read` takes normalised text and the spans the glossary took, and returns every operator
cue in it, Chinese and English: growth (同比 / 环比 / 增长率 / YoY / QoQ / percentage points),
CAGR, difference, share, ratio, sum, rank (最高 / 前N / which region), what a ranking or a sum runs
over (各地区 / by channel) and the rounding asked for (保留N位小数 / N decimal places).
`operation_read` turns the cues and the number of listed slots into one `Operation` (or None:
the level), with the span of each cue for the leftover-term report and the periods a relative
cue stands for (the 去年 of 较去年 is the base of a growth, not a period asked about).

Invariants: a cue that lies inside a glossary match is part of a name, not an operator (the 增长率
of a metric called 营收增长率); a cue inside a longer cue is part of it (the 增长率 of 复合增长率).
Only words are read: the kind never depends on a demo code or value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.model.operation import (
    OP_AVERAGE,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_EXCLUDE,
    OP_FILTER,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    Operation,
)
from core.parse.cues.kinds import (
    CUE_CONDITION,
    CUE_DECIMALS,
    CUE_OVER,
    CUE_RATE_GAP,
    OVER_CHANNELS,
    OVER_ENTITIES,
    OVER_PERIODS,
    QOQ,
    YOY,
)
from core.parse.cues.read import Cue, cues_read
from core.parse.cues.words import OPERATOR_WORDS_EN, OPERATOR_WORDS_ZH

__all__ = [
    "CUE_DECIMALS",
    "CUE_OVER",
    "OPERATOR_WORDS_EN",
    "OPERATOR_WORDS_ZH",
    "OVER_CHANNELS",
    "OVER_ENTITIES",
    "OVER_PERIODS",
    "QOQ",
    "YOY",
    "Cue",
    "OperatorReading",
    "cues_read",
    "operation_read",
]


@dataclass(frozen=True)
class OperatorReading:
    """What the cues ask for, over the slots the question listed."""

    operation: Operation | None
    over: str | None  # also for a plain listing (2025年各地区营收)
    decimals: int | None
    cue_spans: tuple[tuple[int, int], ...]  # every cue read, for the leftover-term report
    relative_spans: tuple[tuple[int, int], ...]  # 较去年: its period is the base, not asked about


def operation_read(
    cues: Sequence[Cue], *, metrics: int, entities: int, channels: int, periods: int, period_types: int = 1
) -> OperatorReading:
    """The one operation the cues ask for, given how many metrics, entities, channels (TOTAL
    aside) and periods (of how many period types) the question listed.

    Precedence: CAGR, share, ratio, then growth or difference (a difference needs two listed
    items; with two periods it is the difference between them, and so is a growth asked over
    exactly two periods of one type: `2023年和2025年营收同比增长多少` is 2025 against 2023, not each
    year's own growth), then sum (which needs two listed entities, channels or periods, or a 各X
    list: otherwise 合计 is the TOTAL channel's level), then rank. A rank cue beside another
    operator keeps its order, top, place and list on that operation.

    Counts are passed on as asked (前0名, 保留100位小数): the clarifier refuses one out of range.
    """
    by_kind: dict[str, list[Cue]] = {}
    for cue in cues:
        by_kind.setdefault(cue.kind, []).append(cue)
    has_rank_or_sum = OP_RANK in by_kind or OP_SUM in by_kind
    over_cues = [c for c in by_kind.get(CUE_OVER, []) if not c.weak or has_rank_or_sum]
    over = over_cues[0].over if over_cues else None
    decimals = by_kind[CUE_DECIMALS][0].decimals if CUE_DECIMALS in by_kind else None
    listed = max(entities, channels, periods) >= 2 or (metrics >= 2)

    two_periods = periods == 2 and period_types == 1
    condition = None
    if CUE_CONDITION in by_kind and (CUE_OVER in by_kind or OP_RANK in by_kind):
        # `营业利润为负的地区有哪些`, `which regions grew faster than 10%`: the members meeting it
        said = by_kind[CUE_CONDITION][0].condition
        assert said is not None
        condition = (*said, OP_GROWTH in by_kind)
        over = over or OVER_ENTITIES
    gap = CUE_RATE_GAP in by_kind and not any(k in by_kind for k in (OP_CAGR, OP_SHARE, OP_RATIO))
    if gap:  # two growth rates compared: a growth, each rate against its own year before
        by_kind.setdefault(OP_GROWTH, []).insert(0, by_kind[CUE_RATE_GAP][0])
        by_kind.pop(OP_DIFFERENCE, None)
    kind = (
        OP_FILTER
        if condition
        else OP_GROWTH
        if gap
        else _kind(
            by_kind,
            listed=listed,
            periods=periods,
            two_periods=two_periods,
            entities=entities,
            channels=channels,
            over=over,
        )
    )
    if kind is not None and kind == OP_RANK and over is None and entities == 0 and channels < 2 and metrics:
        over = OVER_ENTITIES  # a ranking that names no list runs over the home entity's subsidiaries
    operation = None
    if kind is not None:
        shown = by_kind.get(kind) or by_kind.get(OP_DIFFERENCE) or by_kind.get(OP_GROWTH) or []
        if condition:
            shown = by_kind[CUE_CONDITION]
        if gap:
            shown = by_kind[CUE_RATE_GAP]
        if kind == OP_RANK:  # 最高 / 前三 says more than 哪个地区
            shown = [c for c in shown if c.order or c.top or c.position] or shown
        growth = by_kind.get(OP_GROWTH, [])
        ranks = by_kind.get(OP_RANK, [])
        orders = [c.order for c in ranks if c.order]  # the first word that says which end
        operation = Operation(
            kind=kind,
            cue=shown[0].text,
            comparison=QOQ if any(c.comparison == QOQ for c in growth) else YOY,
            order=orders[0] if orders else "desc",
            top=next((c.top for c in ranks if c.top is not None), None),
            position=next((c.position for c in ranks if c.position is not None), None),
            decimals=decimals,
            over=over,
            ranked=kind == OP_GROWTH and bool(ranks) and not gap,
            gap=gap,
            condition=condition,
        )
    return OperatorReading(
        operation=operation,
        over=over,
        decimals=decimals,
        cue_spans=tuple((c.start, c.end) for c in cues),
        relative_spans=tuple((c.start, c.end) for c in cues if c.relative),
    )


_POINTS_ONLY = re.compile(r"(?:(?:多少|几)个?)?百分点|个百分点|percentage points?|pp")


def _kind(
    by_kind: dict[str, list[Cue]],
    *,
    listed: bool,
    periods: int,
    two_periods: bool,
    entities: int,
    channels: int,
    over: str | None,
) -> str | None:
    for kind in (OP_EXCLUDE, OP_CAGR, OP_SHARE, OP_RATIO):
        if kind in by_kind:
            return kind
    # a growth cue that only names the unit (`多少个百分点`, `percentage points`) asks no growth
    growth_said = any(not _POINTS_ONLY.fullmatch(c.text) for c in by_kind.get(OP_GROWTH, []))
    if OP_DIFFERENCE in by_kind and (periods >= 2 or (not growth_said and listed)):
        return OP_DIFFERENCE
    if OP_GROWTH in by_kind and two_periods:
        return OP_DIFFERENCE  # a growth between the two periods named
    if OP_GROWTH in by_kind and not growth_said and OP_DIFFERENCE not in by_kind and periods < 2:
        pass  # `营业利润率是多少个百分点`: a level asked in its unit, no change
    elif OP_GROWTH in by_kind or OP_DIFFERENCE in by_kind:
        return OP_GROWTH  # 较上年增加了多少: the change against the year before
    if OP_SUM in by_kind and (max(entities, channels, periods) >= 2 or over is not None):
        return OP_SUM
    if OP_AVERAGE in by_kind and (max(entities, channels, periods) >= 2 or over is not None):
        return OP_AVERAGE
    if OP_RANK in by_kind:
        return OP_RANK
    return None
