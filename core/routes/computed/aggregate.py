"""Ratio and share over the listed axes.

- ratio: the first of two listed metrics to the second; with one metric, the first of two listed
  entities or channels to the second, shown also as a multiple (`400.24%（4.00 倍）`);
- share, a part of its whole: the first of two listed metrics of the second; the shorter of two
  listed periods of the longer one containing it (H1 of its year); each region (各地区: the
  listed ones, else the entity's subsidiaries) of its parent; the first of two listed entities
  of the second; each channel (各渠道: the listed ones, else every channel) of its entity's
  TOTAL; one entity of its parent. A whole that cannot be told is refused, never guessed.
  Shares asked for two periods of one type are followed by their change in percentage points
  (`对比：FY2025 较 FY2024 +3.97 个百分点`).

A half or a year not stored is derived from the other periods of its key (`下半年营收是上半年的
几倍`, `下半年占全年的比重`: H2 as FY − H1 or Q3 + Q4), shown first with its formula and inputs.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from core.engine import CannotCompute, Computed, ratio_compute, share_compute
from core.engine.aggregate import period_contains
from core.model.facts import SubTask
from core.model.operation import OP_RATIO, OP_SHARE, Operation
from core.model.period import Period
from core.routes.computed.answer import Item
from core.routes.computed.change import derived_first, two_periods, with_derived
from core.routes.computed.composed import shares_difference
from core.routes.computed.subjects import Axes, Context, refusal

_RATIO_AXES = ("metric", "entity", "channel", "period")


def ratio_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    glossary = context.glossary
    first_task = SubTask(axes.metrics[0], axes.entities[0], axes.periods[0], axes.channels[0])
    axis = next((a for a in _RATIO_AXES if len(set(axes.listed(a))) > 1), None)
    if axis is None:
        reason = refusal(
            OP_RATIO,
            "one_metric",
            "比率需要两个指标、两个实体、两个渠道或两个期间（甲与乙之比）。",
            "A ratio needs two metrics, two entities, two channels or two periods (A to B).",
        )
        return [Item(reason, context.asked(first_task, "之比", "ratio"))]
    values = tuple(dict.fromkeys(axes.listed(axis)))
    if len(values) > 2:
        reason = refusal(
            OP_RATIO,
            "too_many",
            f"比率只比较两项，问题列出了 {len(values)} 项；请只列出两项。",
            f"A ratio compares two items; the question lists {len(values)}. Please list two.",
        )
        return [Item(reason, context.asked(first_task, "之比", "ratio"))]
    if axis == "period":  # one figure against itself in another period (`2025年是2024年的几倍`)
        other = (values[1].label, values[1].label)
    else:
        other = (glossary.display(axis, values[1], "zh"), glossary.display(axis, values[1], "en"))
    items = []
    for task in axes.tasks():
        if getattr(task, axis) != values[0]:
            continue
        outcome, derived = with_derived(context, ratio_compute, task, replace(task, **{axis: values[1]}))
        asked = context.asked(task, f"与{other[0]}之比", f"to {other[1]} ratio")
        items.extend([*derived, Item(outcome, asked, multiple=axis != "metric")])
    return derived_first(items)


def _period_pair(periods: tuple[Period, ...]) -> tuple[Period, Period] | None:
    """Two listed periods, one inside the other: (the part, the whole)."""
    listed = tuple(dict.fromkeys(periods))
    if len(listed) != 2:
        return None
    a, b = listed
    if period_contains(b, a):
        return a, b
    if period_contains(a, b):
        return b, a
    return None


def _regions(context: Context, axes: Axes) -> tuple[str, ...]:
    """The listed entities, else the subsidiaries of the one named (or of the home entity)."""
    if len(set(axes.entities)) > 1:
        return axes.entities
    owner = axes.entities[0] if axes.entities else context.glossary.home_entity
    children = tuple(e.code for e in context.glossary.in_scope_entities() if owner and e.parent == owner)
    return children or axes.entities


def share_items(context: Context, axes: Axes, operation: Operation) -> list[Item]:
    glossary = context.glossary
    parents = {code: info.parent for code, info in glossary.entities.items()}
    named = [c for c in axes.channels if c != "TOTAL"]
    pairs: list[tuple[SubTask, SubTask | None]] = []
    period_pair = _period_pair(axes.periods)
    if len(axes.metrics) > 1:
        for entity, period, channel in itertools.product(axes.entities, axes.periods, axes.channels):
            part = SubTask(axes.metrics[0], entity, period, channel)
            pairs.append((part, replace(part, metric=axes.metrics[1])))
    elif period_pair is not None:
        for metric, entity, channel in itertools.product(axes.metrics, axes.entities, axes.channels):
            part = SubTask(metric, entity, period_pair[0], channel)
            pairs.append((part, replace(part, period=period_pair[1])))
    elif operation.over == "entities" or len(set(axes.entities)) > 2:
        for metric, entity, period, channel in itertools.product(
            axes.metrics, _regions(context, axes), axes.periods, axes.channels
        ):
            part = SubTask(metric, entity, period, channel)
            parent = parents.get(entity)
            pairs.append((part, replace(part, entity=parent) if parent else None))
    elif len(axes.entities) > 1:
        for metric, period, channel in itertools.product(axes.metrics, axes.periods, axes.channels):
            part = SubTask(metric, axes.entities[0], period, channel)
            pairs.append((part, replace(part, entity=axes.entities[1])))
    elif operation.over == "channels" or named:
        every = named or [code for code in glossary.channels if code != "TOTAL"]
        for metric, entity, period, channel in itertools.product(axes.metrics, axes.entities, axes.periods, every):
            part = SubTask(metric, entity, period, channel)
            pairs.append((part, replace(part, channel="TOTAL")))
    else:
        for metric, entity, period in itertools.product(axes.metrics, axes.entities, axes.periods):
            part = SubTask(metric, entity, period)
            parent = parents.get(entity)
            pairs.append((part, replace(part, entity=parent) if parent else None))
    items = []
    shares: dict[tuple[SubTask, SubTask], Computed] = {}
    for part, whole in pairs:
        asked = context.asked(part, "占比", "share")
        outcome: CannotCompute | Computed
        if whole is None:
            outcome = _no_whole(context, part)
        else:
            outcome, derived = with_derived(context, share_compute, part, whole, parents=parents)
            items.extend(derived)
            if isinstance(outcome, Computed):
                shares[(part, whole)] = outcome
        items.append(Item(outcome, asked))
    return derived_first(items + _share_changes(context, axes, shares))


def _share_changes(context: Context, axes: Axes, shares: dict[tuple[SubTask, SubTask], Computed]) -> list[Item]:
    """The change in points of each share computed for both of two listed periods of one type."""
    periods = two_periods(axes.periods)
    if periods is None:
        return []
    earlier, later = periods
    items = []
    for part, whole in shares:
        if part.period != later:
            continue
        before = (replace(part, period=earlier), replace(whole, period=earlier))
        if before in shares:
            change, derived = with_derived(context, shares_difference, (part, whole), before)
            items.extend([*derived, Item(change, line=True)])
    return items


def _no_whole(context: Context, part: SubTask) -> CannotCompute:
    name_zh, name_en = (context.glossary.display("entity", part.entity, lang) for lang in ("zh", "en"))
    return refusal(
        OP_SHARE,
        "no_whole",
        f"{name_zh} 没有上级实体，无法确定占比的整体；请指明整体（另一指标、上级实体或渠道合计）。",
        f"{name_en} has no parent entity, so the whole of the share is unknown; "
        "name the whole (another metric, a parent entity or a channel's total).",
    )
