"""Sum, average and rank across the members of one axis (the listed entities, channels or
periods), once per combination of the other axes; a long ranking is listed by its head.

A sum adds one metric only: two metrics are refused before any figure is read, saying why (two
units, or two different metrics). A ratio is never added up, nor averaged by adding; a value at
a date is not added up over periods.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from core.engine import UNIT_PCT, CannotCompute, Computed, Ranking, rank_compute, sum_compute
from core.glossary import AGGREGATION_END, AGGREGATION_NONE
from core.model.facts import SubTask
from core.model.operation import OP_AVERAGE, OP_RANK, OP_SUM, Operation
from core.routes.computed.answer import RANK_LISTED_WHOLE, RANK_SHOWN, Item
from core.routes.computed.subjects import Axes, Context, members_of, metrics_joined, refusal, units_refusal


def across_items(context: Context, axes: Axes, operation: Operation, words: tuple[str, str]) -> list[Item]:
    """One sum or ranking per combination of the other axes, over the members (and every metric
    listed: the engine refuses more than one)."""
    members = members_of(context, axes, operation)
    first = SubTask(axes.metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
    if isinstance(members, CannotCompute):
        return [Item(members, context.asked(first, *words))]
    axis, values = members
    if operation.kind in (OP_SUM, OP_AVERAGE):
        refused = _not_additive(context, axes.metrics[0], axis, operation.kind)
        if refused is not None:
            return [Item(refused, context.asked(first, *words, **{axis: False}))]
    if axis != "channel" and any(c != "TOTAL" for c in axes.channels):
        # A channel named with a total word (`线上收入合计`): the run is over the named channel,
        # not also over the TOTAL channel the word matched.
        axes = replace(axes, channels=tuple(c for c in axes.channels if c != "TOTAL"))
    rest = {
        "entity": (axes.entities[:1], axes.periods, axes.channels),
        "channel": (axes.entities, axes.periods, axes.channels[:1]),
        "period": (axes.entities, axes.periods[:1], axes.channels),
    }[axis]
    parents = {code: info.parent for code, info in context.glossary.entities.items()}
    items = []
    for entity, period, channel in itertools.product(*rest):
        first = SubTask(axes.metrics[0], entity, period, channel)
        outcome: Computed | Ranking | CannotCompute
        if operation.kind == OP_RANK:
            outcome = _ranking(context, first, axis, values, axes.metrics, operation)
        else:
            tasks = [_member(first, m, axis, v) for m in axes.metrics for v in values]
            context.lookup.prefetch(tasks, context.glossary.formula_metrics)
            average = operation.kind == OP_AVERAGE
            outcome = sum_compute(context.lookup, tasks, parents=parents, average=average, **context.options)
        position = operation.position if operation.kind == OP_RANK else None
        asked = context.asked(first, *words, **{axis: False})  # the members are not one of them
        items.append(Item(outcome, asked, position=position))
    return items


def _ranking(
    context: Context, first: SubTask, axis: str, values: Sequence[Any], metrics: Sequence[str], operation: Operation
) -> Ranking | CannotCompute:
    """A ranking across `values` of `axis`; a long field is listed by its head (`RANK_SHOWN`
    rows, or the top N asked for), which is found from bare figures when the store can read
    them (one metric across entities), before any key of the rest is built."""
    count = len(values) * len(metrics)
    top = operation.top if operation.top is not None or count <= RANK_LISTED_WHOLE else RANK_SHOWN
    if top is not None and operation.position is not None and count > RANK_LISTED_WHOLE:
        top = max(top, operation.position)  # the place asked about is among the rows listed
    formulas = context.glossary.formula_metrics
    if top is not None and count > RANK_LISTED_WHOLE and axis == "entity" and len(metrics) == 1:
        head = context.lookup.ranking_head(first, values, order=operation.order, top=top, formulas=formulas)
        if head is not None:
            ranked, pool = head
            return rank_compute(context.lookup, ranked, order=operation.order, top=top, pool=pool, **context.options)
    tasks = [_member(first, m, axis, v) for m in metrics for v in values]
    context.lookup.prefetch(tasks, formulas)
    return rank_compute(context.lookup, tasks, order=operation.order, top=top, **context.options)


def _member(first: SubTask, metric: str, axis: str, value: Any) -> SubTask:
    """`first` with the metric and the one axis a sum or ranking runs across replaced (built
    directly: a ranking over thousands of entities builds thousands of these)."""
    entity = value if axis == "entity" else first.entity
    period = value if axis == "period" else first.period
    channel = value if axis == "channel" else first.channel
    return SubTask(metric, entity, period, channel)


def sum_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    metrics = tuple(dict.fromkeys(axes.metrics))
    if len(metrics) > 1:
        first = SubTask(metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
        more = metrics_joined(context, metrics[1:])
        asked = context.asked(first, f"和{more[0]}合计", f"and {more[1]} total")
        refused = units_refusal(context, OP_SUM, metrics, ("合计", "added up")) or _two_metrics(context, metrics)
        return [Item(refused, asked)]
    return across_items(context, axes, operation, ("合计", "total"))


def _not_additive(context: Context, metric: str, axis: str, kind: str) -> CannotCompute | None:
    """A ratio (`aggregation` none) is never added up or averaged by adding; a balance or a count at
    a date (`end`) is not added up over periods, though it may be over entities or averaged."""
    info = context.glossary.metrics.get(metric)
    if info is None:
        return None
    name = context.glossary.display("metric", metric, context.language)
    if info.adds_up == AGGREGATION_NONE and info.unit != UNIT_PCT:  # a percentage is refused by the engine
        return refusal(
            kind,
            "not_additive",
            f"{name}是比率类指标，不能相加或由相加求平均。",
            f"{name} is a ratio and does not add up.",
        )
    if info.adds_up == AGGREGATION_END and axis == "period" and kind == OP_SUM:
        return refusal(
            kind,
            "point_in_time",
            f"{name}是时点数（期末值），不同期间不能相加。",
            f"{name} is a value at a date (period end); periods of it do not add up.",
        )
    return None


def _two_metrics(context: Context, metrics: Sequence[str]) -> CannotCompute:
    zh, en = metrics_joined(context, metrics)
    return refusal(
        OP_SUM,
        "mixed_metrics",
        f"{zh}是不同的指标，不能相加；合计只加总同一指标的多个实体、渠道或期间。",
        f"{en} are different metrics and are not added up; a total adds one metric over entities, channels or periods.",
    )


def rank_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    return across_items(context, axes, operation, ("排名", "ranking"))
