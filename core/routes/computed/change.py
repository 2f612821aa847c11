"""Growth, difference and CAGR over the listed axes.

- growth: each listed key against its comparison period (同比 / 环比); with exactly two listed
  periods of one type, one change from the earlier to the later instead (`2025年 vs 2023年`),
  never each period's own growth;
- difference: between the two items listed on one axis, first minus second in the listed order
  (metrics, else entities, else channels), else the later of the listed periods minus the
  earlier, else the growth's absolute change;
- CAGR: between the first and last listed years.

A half or a year not stored is derived from the other periods of its key wherever it is
compared (`下半年比上半年增长多少`: H2 as FY − H1 or Q3 + Q4, `derived_run`): the derived value is
shown first, with its formula and inputs, and the comparison's formula is written over them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from core.engine import (
    QOQ,
    YOY,
    CannotCompute,
    Change,
    Computed,
    cagr_compute,
    comparison_task,
    difference_compute,
    growth_compute,
)
from core.engine.build import describe
from core.engine.change import gap_names
from core.engine.derive import derived_run
from core.engine.rate_gap import rate_gap_compute
from core.model.facts import SubTask
from core.model.operation import OP_CAGR, OP_DIFFERENCE, OP_GROWTH, Operation
from core.model.outcome import KIND_DERIVED
from core.model.period import Period
from core.routes.computed.answer import Item
from core.routes.computed.composed import change_renamed
from core.routes.computed.subjects import Axes, Context, refusal, units_refusal

_COMPARISON_WORDS = {YOY: ("同比", "YoY"), QOQ: ("环比", "QoQ")}
_DISAGREE = ("【推算结果不一致】", "[Derivations disagree]")
_AXES = ("metric", "entity", "channel")  # a difference's pair is read on the first listing two


def with_derived(context: Context, compute: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[Item]]:
    """`compute(lookup, *args, **kwargs)` with the context's options, a half or a year not stored
    derived from the other periods of its key (`derived_run`); and the derived values it used,
    as items to show before its result (two that disagree flagged, the computation refused)."""
    glossary = context.glossary

    def aggregation(code: str) -> str:
        info = glossary.metrics.get(code)
        return info.adds_up if info is not None else ""

    derived = derived_run(
        lambda lookup: compute(lookup, *args, **context.options, **kwargs),
        context.lookup,
        aggregation=aggregation,
        label=glossary.display,
        prefetch=lambda tasks: context.lookup.prefetch(tasks, glossary.formula_metrics),
    )
    shown = []
    for i, item in enumerate(derived.shown):
        assert item.subject is not None
        lead = _DISAGREE if derived.disagree and i == 0 else ("", "")
        shown.append(Item(item, context.asked(item.subject, "", ""), lead=lead))
    return derived.outcome, shown


def derived_first(items: list[Item]) -> list[Item]:
    """The derived values before the results that used them, each once."""
    derived = [i for i in items if isinstance(i.outcome, Computed) and i.outcome.kind == KIND_DERIVED]
    return [*dict.fromkeys(derived), *(i for i in items if i not in derived)]


def growth_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    if operation.gap:
        return _rate_gap(context, axes, operation)
    between = two_periods(axes.periods)
    if between is not None and operation.kind == OP_GROWTH:
        return _between(context, axes, *between, growth=True)
    zh, en = _COMPARISON_WORDS[operation.comparison]
    change_only = operation.kind == OP_DIFFERENCE
    tasks = axes.tasks()
    # a series' periods and the ones they compare with, read at once rather than period by period
    compared = [comparison_task(task, operation.comparison) for task in tasks]
    context.lookup.prefetch([*tasks, *compared], context.glossary.formula_metrics)
    items, derived = [], []
    for task in tasks:
        outcome, shown = with_derived(context, growth_compute, task, operation.comparison)
        derived.extend(shown)
        asked = context.asked(
            task, f"{zh}变动额" if change_only else f"{zh}增长率", f"{en} change" if change_only else f"{en} growth"
        )
        items.append(Item(outcome, asked, (zh, en), change_only))
    ranked = _by_rate(context, items, operation) if operation.ranked and len(items) > 1 else items
    return derived_first([*derived, *ranked])


def _rate_gap(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    """Two growth rates compared in percentage points: of two listed entities (or channels) in
    one period, of one subject in two listed periods, or of one period against the year before
    (`增速放缓了多少个百分点`); first listed less second."""
    first = SubTask(axes.metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
    if len(set(axes.entities)) > 1:
        second = replace(first, entity=axes.entities[1])
    elif len(set(axes.channels)) > 1:
        second = replace(first, channel=axes.channels[1])
    elif len(set(axes.periods)) > 1:
        second = replace(first, period=axes.periods[1])
    else:
        second = comparison_task(first, operation.comparison)
    outcome, derived = with_derived(context, rate_gap_compute, first, second, operation.comparison)
    asked = context.asked(first, "增长率之差", "growth gap")
    if isinstance(outcome, CannotCompute):
        return derived_first([*derived, Item(outcome, asked)])
    gap, one, other = outcome

    def rate(task: SubTask, item: Computed, language: str) -> str:
        what = describe(task, context.glossary.display, language)
        if language == "en":
            return f"{what} {task.period.label} growth {item.display_text(language)}"
        return f"{what} {task.period.label} 增长率 {item.display_text(language)}"

    lead = (
        f"{rate(first, one, 'zh')}；{rate(second, other, 'zh')}。",
        f"{rate(first, one, 'en')}; {rate(second, other, 'en')}.",
    )
    return derived_first([*derived, Item(gap, asked, lead=lead)])


def _by_rate(context: Context, items: list[Item], operation: Operation) -> list[Item]:
    """Growths ordered by their rate (哪个地区增长最快, 增速排名), the fastest (or slowest) named
    first, ties named together; a member without a rate follows, as it is, never dropped.

    When some members have no rate, the lead says how many have one and names the fastest among
    those only; with fewer than two rates it names none (one rate is nobody's fastest)."""
    desc = operation.order == "desc"
    rated = [i for i in items if isinstance(i.outcome, Change) and i.outcome.rate is not None]
    rest = [i for i in items if i not in rated]
    rated.sort(key=lambda i: i.outcome.rate.value, reverse=desc)  # type: ignore[union-attr]
    count, total = len(rated), len(items)
    fastest = ("最快", "fastest") if desc else ("最慢", "slowest")
    if count < 2:
        if count == 1:
            zh = f"{total:,} 项中只有 1 项有增长率，无法比较快慢。"
            en = f"Only 1 of {total:,} items has a growth rate, so there is no {fastest[1]}."
        else:
            zh = f"{total:,} 项均无增长率，无法比较快慢。"
            en = f"None of the {total:,} items has a growth rate, so there is no {fastest[1]}."
        ordered = [*rated, *rest]
        return [replace(ordered[0], lead=(zh, en)), *ordered[1:]]
    top = rated[0].outcome.rate  # type: ignore[union-attr]
    leaders = [i.outcome.rate for i in rated if i.outcome.rate.value == top.value]  # type: ignore[union-attr]

    def who(language: str) -> str:
        names = []
        for rate in leaders:
            subject = rate.subject
            varying = {i.outcome.rate.subject.entity for i in rated}  # type: ignore[union-attr]
            kind, code = ("entity", subject.entity) if len(varying) > 1 else ("channel", subject.channel)
            names.append(context.glossary.display(kind, code, language))
        return (", " if language == "en" else "、").join(names)

    tied = len(leaders) > 1
    zh = f"增长{fastest[0]}的是 {who('zh')}（{top.display_text('zh')}）{'（并列）' if tied else ''}。"
    among = f" among those {count:,}" if count < total else ""
    en = f"{fastest[1].capitalize()} growth{among}: {who('en')} ({top.display_text('en')}){' (tied)' if tied else ''}."
    if count < total:
        zh = f"{total:,} 项中有 {count:,} 项有增长率；在这 {count:,} 项中，{zh}"
        en = f"{count:,} of {total:,} items have a growth rate. {en}"
    return [replace(rated[0], lead=(zh, en)), *rated[1:], *rest]


def two_periods(periods: tuple[Period, ...]) -> tuple[Period, Period] | None:
    """Exactly two listed periods of one type, earlier first."""
    listed = tuple(dict.fromkeys(periods))
    if len(listed) != 2 or listed[0].period_type != listed[1].period_type:
        return None
    earlier, later = sorted(listed, key=lambda p: p.sort_key)
    return earlier, later


def _between(context: Context, axes: Axes, base: Period, current: Period, *, growth: bool) -> list[Item]:
    """The later period against the earlier one, for every metric, entity and channel."""
    items = []
    span = f"{base.label}–{current.label}"
    for metric, entity, channel in itertools.product(axes.metrics, axes.entities, axes.channels):
        task = SubTask(metric, entity, current, channel)
        outcome, derived = with_derived(context, difference_compute, task, replace(task, period=base))
        items.extend(derived)
        if growth and isinstance(outcome, Change):
            zh, en = (describe(task, context.glossary.display, lang, entity=False) for lang in ("zh", "en"))
            outcome = change_renamed(
                outcome,
                OP_GROWTH,
                (f"{zh}变动额（{span}）", f"{en} change {span}"),
                (f"{zh}增长率（{span}）", f"{en} growth {span}"),
            )
        words = (f"较 {base.label} ", f"vs {base.label}")
        asked = (
            context.asked(task, f"较 {base.label} 增长率", f"growth vs {base.label}")
            if growth
            else context.asked(task, f"较 {base.label} 的差额", f"difference vs {base.label}")
        )
        items.append(Item(outcome, asked, words))
    return derived_first(items)


def derived_pair(context: Context, tasks: Sequence[SubTask]) -> Item | None:
    """The change between two keys listed at their level that differ only in period, of one type,
    when one of them is a half or a year not stored (`H2 vs H1`): the later against the earlier,
    over the derivation, with its formula and inputs; None when they are not such a pair or it
    cannot be computed. (Two stored facts make their difference line from the facts themselves.)"""
    if len(tasks) != 2 or any(t.metric in context.glossary.formula_metrics for t in tasks):
        return None
    older, newer = sorted(tasks, key=lambda t: t.period.sort_key)
    if replace(older, period=newer.period) != newer or older.period.period_type != newer.period.period_type:
        return None
    if all(context.lookup(t) is not None for t in tasks):
        return None
    axes = Axes((newer.metric,), (newer.entity,), (older.period, newer.period), (newer.channel,))
    item = _between(context, axes, older.period, newer.period, growth=False)[-1]
    return item if isinstance(item.outcome, Change) else None


def difference_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    for axis in _AXES:
        if len(set(axes.listed(axis))) > 1:
            return _gaps(context, axes, axis)
    if len(axes.periods) < 2:
        return growth_items(context, axes, operation)
    ordered = sorted(axes.periods, key=lambda p: p.sort_key)
    return _between(context, axes, ordered[0], ordered[-1], growth=False)


def _gaps(context: Context, axes: Axes, axis: str) -> list[Item]:
    """First minus second of the two items listed on `axis`, for every combination of the rest."""
    values = tuple(dict.fromkeys(axes.listed(axis)))
    first_task = SubTask(axes.metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
    if len(values) != 2:
        asked = context.asked(first_task, "差额", "difference")
        reason = refusal(
            OP_DIFFERENCE,
            "too_many",
            f"差额只比较两项，问题列出了 {len(values)} 项；请只列出两项。",
            f"A difference compares two items; the question lists {len(values)}. Please list two.",
        )
        return [Item(reason, asked)]
    first, second = values
    glossary, label = context.glossary, context.glossary.display
    other = (glossary.display(axis, second, "zh"), glossary.display(axis, second, "en"))
    if axis == "metric":
        units = units_refusal(context, OP_DIFFERENCE, values, ("比较", "compared"))
        if units is not None:
            return [Item(units, context.asked(first_task, f"与{other[0]}的差额", f"difference from {other[1]}"))]
    items = []
    for task in axes.tasks():
        if getattr(task, axis) != first:
            continue
        base = replace(task, **{axis: second})
        outcome, derived = with_derived(context, difference_compute, task, base)
        items.extend(derived)
        if axis != "metric" and isinstance(outcome, Change):
            outcome = change_renamed(outcome, OP_DIFFERENCE, *gap_names(task, base, label))
        asked = context.asked(task, f"与{other[0]}的差额", f"difference from {other[1]}")
        items.append(Item(outcome, asked, other=other))
    return derived_first(items)


def cagr_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
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
            outcome, derived = with_derived(context, cagr_compute, task, ordered[0])
            items.extend(derived)
        items.append(Item(outcome, asked))
    return derived_first(items)
