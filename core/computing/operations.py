"""The operations (SPEC §6a) mapped onto the engine: which keys each one reads, over which listed
entities, periods and channels, and what is refused before any figure is read.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .. import render
from ..compute import (
    QOQ,
    UNIT_PCT,
    YOY,
    CannotCompute,
    Change,
    Computed,
    Ranking,
    cagr_compute,
    difference_compute,
    facts_lookup,
    formula_compute,
    growth_compute,
    rank_compute,
    ratio_compute,
    share_compute,
    sum_compute,
    value_display,
)
from ..compute.display import MAX_DECIMALS
from ..glossary import GlossarySnapshot
from ..ports import FactStore
from ..types import (
    KIND_CLARIFICATION,
    OP_CAGR,
    OP_DIFFERENCE,
    OP_GROWTH,
    OP_RANK,
    OP_RATIO,
    OP_SHARE,
    OP_SUM,
    FactRecord,
    Operation,
    ParsedIntent,
    SubTask,
)
from .answer import RANK_LISTED_WHOLE, RANK_SHOWN, ComputedAnswer, Item, assemble
from .subjects import Axes, Context, Reader, members_of, refusal


# -- operations ----------------------------------------------------------------------------
def computed_answer(
    intent: ParsedIntent, *, glossary: GlossarySnapshot, store: FactStore, cleared: bool
) -> ComputedAnswer:
    """The operation the intent asks for, over every subject it lists."""
    operation = intent.operation
    assert operation is not None
    language = intent.language
    axes = Axes.of(intent)
    if not axes.metrics:
        return ComputedAnswer(render.WHICH_METRIC[language], KIND_CLARIFICATION)
    problem = _operation_problem(operation)
    if problem is not None:
        return assemble([Item(problem)], glossary, language)
    context = Context(glossary, Reader(store, cleared), language, operation.decimals)
    items = OPERATIONS[operation.kind](context, axes, operation)
    return assemble(items, glossary, language)


def _operation_problem(operation: Operation) -> CannotCompute | None:
    if operation.kind not in OPERATIONS:
        return refusal(
            operation.kind, "unknown_operation", "无法识别要做的计算。", "The computation asked for is not known."
        )
    if operation.decimals is not None and not 0 <= operation.decimals <= MAX_DECIMALS:
        return refusal(
            operation.kind,
            "bad_decimals",
            f"小数位数须在 0 到 {MAX_DECIMALS} 之间。",
            f"Decimal places must be between 0 and {MAX_DECIMALS}.",
        )
    if operation.kind in (OP_GROWTH, OP_DIFFERENCE) and operation.comparison not in (YOY, QOQ):
        return refusal(
            operation.kind, "bad_comparison", "无法识别增长的比较基期。", "The growth comparison is not known."
        )
    if operation.kind == OP_RANK and (operation.order not in ("desc", "asc") or (operation.top or 1) < 1):
        return refusal(operation.kind, "bad_rank", "无法识别排名的方式。", "The ranking asked for is not understood.")
    return None


_COMPARISON_WORDS = {YOY: ("同比", "YoY"), QOQ: ("环比", "QoQ")}


def _growth(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    zh, en = _COMPARISON_WORDS[operation.comparison]
    change_only = operation.kind == OP_DIFFERENCE
    items = []
    for task in axes.tasks():
        outcome = growth_compute(context.lookup, task, operation.comparison, **context.options)
        asked = context.asked(
            task, f"{zh}变动额" if change_only else f"{zh}增长率", f"{en} change" if change_only else f"{en} growth"
        )
        items.append(Item(outcome, asked, (zh, en), change_only))
    return items


def _difference(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    if len(axes.periods) < 2:
        return _growth(context, axes, operation)
    ordered = sorted(axes.periods, key=lambda p: p.sort_key)
    base, current = ordered[0], ordered[-1]
    items = []
    for metric, entity, channel in itertools.product(axes.metrics, axes.entities, axes.channels):
        task = SubTask(metric, entity, current, channel)
        outcome = difference_compute(context.lookup, task, replace(task, period=base), **context.options)
        words = (f"较 {base.label} ", f"vs {base.label}")
        items.append(
            Item(outcome, context.asked(task, f"较 {base.label} 的差额", f"difference vs {base.label}"), words)
        )
    return items


def _cagr(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    ordered = sorted(axes.periods, key=lambda p: p.sort_key)
    items = []
    for metric, entity, channel in itertools.product(axes.metrics, axes.entities, axes.channels):
        task = SubTask(metric, entity, ordered[-1], channel)
        asked = context.asked(task, "复合年增长率", "CAGR")
        if len(ordered) < 2:
            outcome: CannotCompute | Computed = refusal(
                OP_CAGR,
                "one_period",
                "复合增长率需要起止两个年份（例如 2022年到2025年）。",
                "A CAGR needs a start and an end year (e.g. 2022 to 2025).",
            )
        else:
            outcome = cagr_compute(context.lookup, task, ordered[0], **context.options)
        items.append(Item(outcome, asked))
    return items


def _ratio(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    items = []
    for entity, period, channel in itertools.product(axes.entities, axes.periods, axes.channels):
        numerator = SubTask(axes.metrics[0], entity, period, channel)
        other = context.glossary.display("metric", axes.metrics[1], "zh") if len(axes.metrics) > 1 else ""
        other_en = context.glossary.display("metric", axes.metrics[1], "en") if len(axes.metrics) > 1 else ""
        asked = context.asked(numerator, f"与{other}之比", f"to {other_en} ratio")
        if len(axes.metrics) < 2:
            outcome: CannotCompute | Computed = refusal(
                OP_RATIO, "one_metric", "比率需要两个指标（甲与乙之比）。", "A ratio needs two metrics (A to B)."
            )
        else:
            outcome = ratio_compute(
                context.lookup, numerator, replace(numerator, metric=axes.metrics[1]), **context.options
            )
        items.append(Item(outcome, asked))
    return items


def _share(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """Part of a whole: two metrics, two entities, a channel of its TOTAL, an entity of its parent."""
    glossary = context.glossary
    parents = {code: info.parent for code, info in glossary.entities.items()}
    pairs: list[tuple[SubTask, SubTask | None]] = []
    if len(axes.metrics) > 1:
        for entity, period, channel in itertools.product(axes.entities, axes.periods, axes.channels):
            part = SubTask(axes.metrics[0], entity, period, channel)
            pairs.append((part, replace(part, metric=axes.metrics[1])))
    elif len(axes.entities) > 1:
        for metric, period, channel in itertools.product(axes.metrics, axes.periods, axes.channels):
            part = SubTask(metric, axes.entities[0], period, channel)
            pairs.append((part, replace(part, entity=axes.entities[1])))
    elif any(c != "TOTAL" for c in axes.channels):
        for metric, entity, period, channel in itertools.product(
            axes.metrics, axes.entities, axes.periods, [c for c in axes.channels if c != "TOTAL"]
        ):
            part = SubTask(metric, entity, period, channel)
            pairs.append((part, replace(part, channel="TOTAL")))
    else:
        for metric, entity, period in itertools.product(axes.metrics, axes.entities, axes.periods):
            part = SubTask(metric, entity, period)
            parent = parents.get(entity)
            pairs.append((part, replace(part, entity=parent) if parent else None))
    items = []
    for part, whole in pairs:
        asked = context.asked(part, "占比", "share")
        if whole is None:
            name_zh, name_en = (glossary.display("entity", part.entity, lang) for lang in ("zh", "en"))
            outcome: CannotCompute | Computed = refusal(
                OP_SHARE,
                "no_whole",
                f"{name_zh} 没有上级实体，无法确定占比的整体；请指明整体（另一指标、上级实体或渠道合计）。",
                f"{name_en} has no parent entity, so the whole of the share is unknown; "
                "name the whole (another metric, a parent entity or a channel's total).",
            )
        else:
            outcome = share_compute(context.lookup, part, whole, parents=parents, **context.options)
        items.append(Item(outcome, asked))
    return items


def _across(context: Context, axes: Axes, operation: Operation, words: tuple[str, str]) -> list[Item]:
    """One sum or ranking per combination of the other axes, over the members (and every metric
    listed: the engine refuses more than one)."""
    members = members_of(context, axes, operation)
    first = SubTask(axes.metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
    if isinstance(members, CannotCompute):
        return [Item(members, context.asked(first, *words))]
    axis, values = members
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
            outcome = sum_compute(context.lookup, tasks, parents=parents, **context.options)
        items.append(Item(outcome, context.asked(first, *words, period=axis != "period")))
    return items


def _ranking(
    context: Context, first: SubTask, axis: str, values: Sequence[Any], metrics: Sequence[str], operation: Operation
) -> Ranking | CannotCompute:
    """A ranking across `values` of `axis`; a long field is listed by its head (`RANK_SHOWN`
    rows, or the top N asked for), which is found from bare figures when the store can read
    them (one metric across entities), before any key of the rest is built."""
    count = len(values) * len(metrics)
    top = operation.top if operation.top is not None or count <= RANK_LISTED_WHOLE else RANK_SHOWN
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


def _sum(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    return _across(context, axes, operation, ("合计", "total"))


def _rank(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    return _across(context, axes, operation, ("排名", "ranking"))


OPERATIONS: dict[str, Callable[[Context, Axes, Operation], list[Item]]] = {
    OP_GROWTH: _growth,
    OP_DIFFERENCE: _difference,
    OP_CAGR: _cagr,
    OP_RATIO: _ratio,
    OP_SHARE: _share,
    OP_SUM: _sum,
    OP_RANK: _rank,
}


# -- levels --------------------------------------------------------------------------------
def levels_answer(
    tasks: Sequence[SubTask], *, glossary: GlossarySnapshot, store: FactStore, cleared: bool, language: str
) -> ComputedAnswer:
    """Each sub-task's stored fact, else its formula metric's value, else `查不到`; with exactly
    two found facts that differ only in period (of one type), their difference."""
    context = Context(glossary, Reader(store, cleared), language, None)
    formulas = glossary.formula_metrics
    items: list[Item] = []
    for task in tasks:
        fact = context.lookup(task)
        if fact is not None or task.metric not in formulas:
            items.append(Item(fact if fact is not None else task))
            continue
        outcome = formula_compute(context.lookup, task, formulas, label=glossary.display)
        items.append(Item(outcome, context.asked(task, "", "")))
    pair = render.comparable_pair([i.outcome for i in items if isinstance(i.outcome, FactRecord)])
    if pair is not None:
        older, newer = pair
        task = SubTask(newer.metric, newer.entity, newer.period, newer.channel)
        change = difference_compute(
            facts_lookup(pair), task, replace(task, period=older.period), label=glossary.display
        )
        if isinstance(change, Change):
            items.append(Item(_line_rate(change), line=True))
    return assemble(items, glossary, language)


def _line_rate(change: Change) -> Change:
    """The listed pair's rate shown to one place (`+8.5%`, SPEC §6); the exact value is kept."""
    if change.rate is None:
        return change
    return replace(change, rate=replace(change.rate, display=value_display(change.rate.value, UNIT_PCT, 1), decimals=1))
