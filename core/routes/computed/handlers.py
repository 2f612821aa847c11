"""The operations mapped onto the engine: which keys each one reads, over which listed
entities, periods and channels, and what is refused before any figure is read. Growth,
difference and CAGR are in `change`, ratio and share in `aggregate` (named after the engine
modules they run); sum and rank run here, across the members of one axis.

A sum adds one metric only: two metrics are refused before any figure is read, saying why (two
units, or two different metrics).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from core.engine import (
    QOQ,
    UNIT_PCT,
    YOY,
    CannotCompute,
    Change,
    Computed,
    Ranking,
    difference_compute,
    facts_lookup,
    formula_compute,
    growth_compute,
    number_display,
    period_derive,
    rank_compute,
    sum_compute,
)
from core.engine.display import MAX_DECIMALS, percent_of
from core.glossary import AGGREGATION_END, AGGREGATION_NONE, AGGREGATION_SUM, GlossarySnapshot
from core.model.types import (
    KIND_CLARIFICATION,
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
    FactRecord,
    Operation,
    ParsedIntent,
    SubTask,
)
from core.ports import FactStore
from core.routes import render
from core.routes.computed import render as computed_render
from core.routes.computed.aggregate import ratio_items, share_items
from core.routes.computed.answer import RANK_LISTED_WHOLE, RANK_SHOWN, ComputedAnswer, Item, assemble
from core.routes.computed.change import cagr_items, difference_items, growth_items
from core.routes.computed.subjects import (
    Axes,
    Context,
    Reader,
    members_of,
    metrics_joined,
    paid_metrics,
    paid_notes,
    refusal,
    units_refusal,
)


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
    paid = paid_metrics(glossary)
    context = Context(glossary, Reader(store, cleared, paid), language, operation.decimals)
    items = OPERATION_HANDLERS[operation.kind](context, axes, operation)
    answer = assemble(items, glossary, language, pending=context.lookup.pending)
    notes = paid_notes((f for c in answer.computed for f in c.inputs), paid, glossary, language)
    return replace(answer, text="\n".join([*notes, answer.text])) if notes else answer


def _operation_problem(operation: Operation) -> CannotCompute | None:
    if operation.kind not in OPERATION_HANDLERS:
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
    out_of_range = any(n is not None and n < 1 for n in (operation.top, operation.position))
    if operation.kind == OP_RANK and (operation.order not in ("desc", "asc") or out_of_range):
        return refusal(operation.kind, "bad_rank", "无法识别排名的方式。", "The ranking asked for is not understood.")
    return None


def _across(context: Context, axes: Axes, operation: Operation, words: tuple[str, str]) -> list[Item]:
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


def _sum(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    metrics = tuple(dict.fromkeys(axes.metrics))
    if len(metrics) > 1:
        first = SubTask(metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
        more = metrics_joined(context, metrics[1:])
        asked = context.asked(first, f"和{more[0]}合计", f"and {more[1]} total")
        refused = units_refusal(context, OP_SUM, metrics, ("合计", "added up")) or _two_metrics(context, metrics)
        return [Item(refused, asked)]
    return _across(context, axes, operation, ("合计", "total"))


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


def _rank(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    return _across(context, axes, operation, ("排名", "ranking"))


def _filter(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """The members whose figure, or growth rate, meets the condition asked (`营业利润为负的地区有哪些`,
    `which regions grew faster than 10%`), named first; then every member's figure with its source,
    those without one named as missing. A threshold is read in the figure's stored unit (a rate in
    percent)."""
    assert operation.condition is not None
    comparator, written, _, of_growth = operation.condition
    threshold = Decimal(written)
    glossary = context.glossary
    metric, period, channel = axes.metrics[0], axes.periods[0], axes.channels[0]
    tasks = [SubTask(metric, entity, period, channel) for entity in axes.entities]
    context.lookup.prefetch(tasks, glossary.formula_metrics)
    outcomes: list[Any] = []
    met: list[tuple[SubTask, tuple[str, str]]] = []
    missing: list[SubTask] = []
    for task in tasks:
        shown = ("", "")
        if of_growth:
            outcome: Any = growth_compute(context.lookup, task, operation.comparison, **context.options)
            rate = outcome.rate if isinstance(outcome, Change) else None
            figure = percent_of(rate.value) if rate is not None else None
            shown = (rate.display, rate.display) if rate is not None else shown
        else:
            outcome = context.lookup(task) or task
            figure = outcome.value if isinstance(outcome, FactRecord) else None
            if isinstance(outcome, FactRecord):
                shown = tuple(  # type: ignore[assignment]
                    number_display(outcome.value) + render.unit_suffix(glossary, outcome.unit, lang)
                    for lang in ("zh", "en")
                )
        outcomes.append(outcome)
        if figure is None:
            missing.append(task)
        elif (figure < threshold) if comparator == "<" else (figure > threshold):
            met.append((task, shown))
    lead = _filter_lead(context, operation, metric, period, met, missing, of_growth)
    words = (("环比", "QoQ") if operation.comparison == QOQ else ("同比", "YoY")) if of_growth else ("", "")
    items = [Item(o, context.asked(t, "", ""), words) for o, t in zip(outcomes, tasks, strict=True)]
    return [replace(items[0], lead=lead), *items[1:]] if items else []


def _filter_lead(
    context: Context,
    operation: Operation,
    metric: str,
    period: Any,
    met: list[tuple[SubTask, tuple[str, str]]],
    missing: list[SubTask],
    of_growth: bool,
) -> tuple[str, str]:
    display = context.glossary.display

    def line(language: str) -> str:
        what = display("metric", metric, language)
        at = 1 if language == "en" else 0
        names = [
            f"{display('entity', t.entity, language)} ({shown[at]})"
            if language == "en"
            else f"{display('entity', t.entity, language)}（{shown[at]}）"
            for t, shown in met
        ]
        absent = [display("entity", t.entity, language) for t in missing]
        if language == "en":
            asked = f"{period.label} {what}{' growth' if of_growth else ''} {operation.cue}"
            head = f"{asked}: {', '.join(names)}." if names else f"None has {asked}."
            return head + (f" No figure: {', '.join(absent)}." if absent else "")
        asked = f"{period.label} {what}{'增长率' if of_growth else ''}{operation.cue}"
        head = f"{asked}的：{'、'.join(names)}。" if names else f"没有{asked}的。"
        return head + (f"无数据：{'、'.join(absent)}。" if absent else "")

    return line("zh"), line("en")


def _exclude(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """A whole less a part it holds (`集团营业收入（不含香港）`): the first entity listed less a
    child of it, or the entity's total less a channel; only for a figure that adds up (a flow).
    A ratio or a balance excluding a part is refused with the reason, never shown whole."""
    glossary = context.glossary
    metric = axes.metrics[0]
    info = glossary.metrics.get(metric)
    whole = SubTask(metric, axes.entities[0], axes.periods[0], "TOTAL")
    asked = context.asked(whole, "（剔除部分后）", "excluding a part")
    part: SubTask | None = None
    children = [
        e for e in axes.entities[1:] if glossary.entities.get(e) and glossary.entities[e].parent == whole.entity
    ]
    named = [c for c in axes.channels if c != "TOTAL"]
    if children:
        part = replace(whole, entity=children[0])
    elif named:
        part = replace(whole, channel=named[0])
    if part is None or len(axes.entities) > 2 or len(named) > 1:
        reason = refusal(
            OP_EXCLUDE,
            "exclude_what",
            "无法确定要剔除的部分：需为所问实体的下属实体或渠道之一。",
            "Cannot tell which part to exclude: it must be one subsidiary or channel of the entity asked.",
        )
        return [Item(reason, asked)]
    if info is None or info.adds_up != AGGREGATION_SUM:
        reason = refusal(
            OP_EXCLUDE,
            "exclude_not_additive",
            "该指标不是可加总的流量（如比率、期末数），不能从整体中剔除一部分计算；为避免误导，不提供数字。",
            "This figure does not add up (a ratio or a balance), so a part cannot be excluded from it; "
            "no figure is given.",
        )
        return [Item(reason, asked)]
    outcome = difference_compute(context.lookup, whole, part, **context.options)
    if isinstance(outcome, Change):
        kind, code = ("entity", part.entity) if part.entity != whole.entity else ("channel", part.channel)
        name, name_en = glossary.display(kind, code, "zh"), glossary.display(kind, code, "en")
        metric_zh, metric_en = glossary.display("metric", metric, "zh"), glossary.display("metric", metric, "en")
        if kind == "entity":  # the inputs differ in entity: the whole is named with its metric
            metric_zh = glossary.display("entity", whole.entity, "zh") + metric_zh
            metric_en = f"{glossary.display('entity', whole.entity, 'en')} {metric_en}"
        change = replace(
            outcome.change,
            name_zh=f"{metric_zh}（不含{name}）",
            name_en=f"{metric_en} excluding {name_en}",
        )
        return [Item(change, asked)]
    return [Item(outcome, asked)]


OPERATION_HANDLERS: dict[str, Callable[[Context, Axes, Operation], list[Item]]] = {
    OP_EXCLUDE: _exclude,
    OP_FILTER: _filter,
    OP_GROWTH: growth_items,
    OP_DIFFERENCE: difference_items,
    OP_CAGR: cagr_items,
    OP_RATIO: ratio_items,
    OP_SHARE: share_items,
    OP_SUM: _sum,
    OP_AVERAGE: lambda context, axes, operation: _across(context, axes, operation, ("平均", "average")),
    OP_RANK: _rank,
}


# -- levels --------------------------------------------------------------------------------
def levels_answer(
    tasks: Sequence[SubTask],
    *,
    glossary: GlossarySnapshot,
    store: FactStore,
    cleared: bool,
    language: str,
    decimals: int | None = None,
) -> ComputedAnswer:
    """Each sub-task's stored fact, else its formula metric's value (either shown to `decimals`
    places when the question asked), else `查不到`; with exactly two found facts that differ only in
    period (of one type) and nothing else asked, their difference: a series of more periods is
    listed whole, its gaps named, with no change between two of them picked out."""
    context = Context(glossary, Reader(store, cleared), language, decimals)
    formulas = glossary.formula_metrics
    if len(tasks) > 1 or any(task.metric in formulas for task in tasks):
        # a series, a list or a formula's inputs: one read, not one per key
        context.lookup.prefetch(tasks, formulas)
    items: list[Item] = []
    for task in tasks:
        fact = context.lookup(task)
        if fact is None and task.metric not in formulas and task.period.period_type in ("FY", "HY"):
            # a half or a year not stored: each derivation there is, both shown when they disagree
            aggregation = glossary.metrics[task.metric].adds_up if task.metric in glossary.metrics else ""
            derived = period_derive(context.lookup, task, label=glossary.display, aggregation=aggregation)
            values = {c.value for c in derived if isinstance(c, Computed)}
            lead = ("【推算结果不一致】", "[Derivations disagree]") if len(values) > 1 else ("", "")
            items.extend(
                Item(c, context.asked(task, "", ""), lead=lead if i == 0 else ("", "")) for i, c in enumerate(derived)
            )
            if derived:
                continue
        if fact is not None or task.metric not in formulas:
            items.append(Item(fact, decimals=decimals) if fact is not None else Item(task))
            continue
        outcome = formula_compute(context.lookup, task, formulas, label=glossary.display, decimals=decimals)
        items.append(Item(outcome, context.asked(task, "", "")))
    found = [i.outcome for i in items if isinstance(i.outcome, FactRecord)]
    pair = computed_render.comparable_pair(found) if len(tasks) == 2 else None
    if pair is not None:
        older, newer = pair
        task = SubTask(newer.metric, newer.entity, newer.period, newer.channel)
        # the line's rate reads as a growth answer's (`+8.54%`): one rate display across the product
        change = difference_compute(
            facts_lookup(pair), task, replace(task, period=older.period), decimals=decimals, label=glossary.display
        )
        if isinstance(change, Change):
            items.append(Item(change, line=True))
    return assemble(items, glossary, language, pending=context.lookup.pending)
