"""Growth (YoY, QoQ), difference and CAGR over found or computed figures.

Takes a lookup, the key asked about and the comparison (an operator, another key or a start
period); returns a `Change` (the absolute change, and the rate when meaningful), a `Computed`
CAGR, or `CannotCompute`. A PCT metric changes in percentage points (unit `PP`) and has no rate;
a zero or negative base gives the change and `no_rate`, never a rate. Growth and difference are
one computation: growth only chooses the base period; a difference is of one metric, or between
two metrics of one key (named and worded as a gap between them, 甲与乙的差额).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from core.engine.build import computed_build, describe, missing_inputs, mixed_units, names, refuse
from core.engine.display import RATE_DECIMALS, UNIT_PCT, UNIT_PP, decimals_check
from core.engine.formula import Chain, Group, Number, Power
from core.engine.operands import (
    YOY,
    FactLookup,
    FormulaMetric,
    Label,
    Operand,
    Unresolved,
    code_label,
    comparison_task,
)
from core.engine.operands import operand_resolve as resolve
from core.engine.outcome import KIND_CAGR, KIND_DIFFERENCE, KIND_GROWTH, CannotCompute, Change, Computed, Reason
from core.model.types import FactRecord, Period, SubTask

_ONE = Number(Decimal(1), "1")
_WORDS = {
    "yoy": ("同比", "YoY"),
    "qoq": ("环比", "QoQ"),
}


def growth_compute(
    lookup: FactLookup,
    task: SubTask,
    operator: str = YOY,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> Change | CannotCompute:
    """`task` against the same key in `comparison_period(task.period, operator)`."""
    decimals_check(decimals)
    base = comparison_task(task, operator)
    zh, en = _WORDS[operator]
    wording = _wording(task, label, (zh, f" {en}"), ("变动额", "change"), ("增长率", "growth"))
    return _change(KIND_GROWTH, lookup, task, base, formulas, decimals, label, wording)


def difference_compute(
    lookup: FactLookup,
    task: SubTask,
    base: SubTask,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> Change | CannotCompute:
    """`task` − `base` (and the rate against `base`): one metric and one period type, or two
    metrics (of one unit) of one entity, period and channel."""
    decimals_check(decimals)
    if task.period.period_type != base.period.period_type:
        return refuse(
            KIND_DIFFERENCE,
            "mismatch",
            "只比较同一指标、同类期间的两个数。",
            "Only two figures of one metric and one period type are compared.",
        )
    if task.metric != base.metric:
        if replace(task, metric=base.metric) != base:
            return refuse(
                KIND_DIFFERENCE,
                "mismatch",
                "两个指标只在同一实体、期间和渠道上比较。",
                "Two metrics are compared only for one entity, period and channel.",
            )
        change, rate = gap_names(task, base, label)
        wording = _Wording(change, change, rate, GAP_NO_RATE)
    else:
        wording = _wording(task, label, ("", ""), ("差额", "difference"), ("差异率", "relative difference"))
    return _change(KIND_DIFFERENCE, lookup, task, base, formulas, decimals, label, wording)


def gap_names(task: SubTask, base: SubTask, label: Label) -> tuple[tuple[str, str], tuple[str, str]]:
    """The names of `task` − `base` and of its rate, naming only what tells the two apart."""
    entity = task.entity != base.entity
    channel = task.channel != base.channel

    def words(item: SubTask, language: str) -> str:
        return describe(item, label, language, entity=entity, channel=channel or item.channel != "TOTAL")

    change = names(
        lambda lang: (
            f"{words(task, lang)} minus {words(base, lang)}"
            if lang == "en"
            else f"{words(task, lang)}与{words(base, lang)}的差额"
        )
    )
    rate = names(
        lambda lang: (
            f"{words(task, lang)} relative to {words(base, lang)}"
            if lang == "en"
            else f"{words(task, lang)}较{words(base, lang)}的差异率"
        )
    )
    return change, rate


NoRateTexts = Mapping[str, tuple[str, str]]  # reason code → (zh, en)
GROWTH_NO_RATE: NoRateTexts = {
    "percentage_points": (
        "百分比指标的变化以百分点表示，不计算增长率。",
        "A percentage changes in percentage points; no growth rate is given.",
    ),
    "base_zero": (
        "基期数为 0，增长率无意义，仅给出变动额。",
        "The base is zero, so a growth rate is not meaningful; only the change is given.",
    ),
    "base_negative": (
        "基期数为负，增长率无意义，仅给出变动额。",
        "The base is negative, so a growth rate is not meaningful; only the change is given.",
    ),
}
GAP_NO_RATE: NoRateTexts = {
    "percentage_points": (
        "百分比指标的差异以百分点表示，不计算差异率。",
        "Percentages differ in percentage points; no relative difference is given.",
    ),
    "base_zero": ("对比基数为 0，不计算相对差异。", "The base is zero, so no relative difference is given."),
    "base_negative": ("对比基数为负，不计算相对差异。", "The base is negative, so no relative difference is given."),
}


@dataclass(frozen=True)
class _Wording:
    """The names of a change in points, of a change and of its rate, and why a rate is absent."""

    points: tuple[str, str]
    change: tuple[str, str]
    rate: tuple[str, str]
    no_rate: NoRateTexts


def _wording(
    task: SubTask, label: Label, prefix: tuple[str, str], change: tuple[str, str], rate: tuple[str, str]
) -> _Wording:
    def name(suffix: tuple[str, str]) -> tuple[str, str]:
        return names(
            lambda lang: (
                f"{describe(task, label, lang, entity=False)}{prefix[1]} {suffix[1]}"
                if lang == "en"
                else f"{describe(task, label, lang, entity=False)}{prefix[0]}{suffix[0]}"
            )
        )

    return _Wording(name(("变动", "change")), name(change), name(rate), GROWTH_NO_RATE)


def _change(
    kind: str,
    lookup: FactLookup,
    task: SubTask,
    base_task: SubTask,
    formulas: Mapping[str, FormulaMetric] | None,
    decimals: int | None,
    label: Label,
    wording: _Wording,
) -> Change | CannotCompute:
    current, base = resolve(lookup, task, formulas), resolve(lookup, base_task, formulas)
    found = [f for x in (current, base) for f in x.inputs]
    if isinstance(current, Unresolved) or isinstance(base, Unresolved):
        return missing_inputs(kind, [x for x in (current, base) if isinstance(x, Unresolved)], label, found)
    if current.unit != base.unit:
        return mixed_units(kind, (current.unit, base.unit), found)
    exact = current.exact and base.exact and not (current.fraction or base.fraction)
    change_decimals = decimals if decimals is not None or exact else RATE_DECIMALS
    percent = current.unit == UNIT_PCT
    node = (
        Chain(current.percent_node, (("-", base.percent_node),))
        if percent
        else Chain(current.node, (("-", base.node),))
    )
    change = computed_build(
        kind,
        node,
        found,
        unit=UNIT_PP if percent else current.unit,
        name=wording.points if percent else wording.change,
        label=label,
        decimals=change_decimals,
        subject=task,
    )
    if isinstance(change, CannotCompute):
        return change
    no_rate = _no_rate(base, wording.no_rate)
    if no_rate is not None:
        return Change(kind, change, None, no_rate)
    rate = computed_build(
        kind,
        Chain(node, (("/", base.node),)),
        found,
        unit=UNIT_PCT,
        name=wording.rate,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=task,
    )
    if isinstance(rate, CannotCompute):
        return Change(kind, change, None, rate.reason)
    return Change(kind, change, rate, None)


def _no_rate(base: Operand, texts: NoRateTexts) -> Reason | None:
    """Why `base` gives no rate: a percentage (points instead), a zero or a negative base."""
    code = (
        "percentage_points"
        if base.unit == UNIT_PCT
        else "base_zero"
        if base.value == 0
        else "base_negative"
        if base.value < 0
        else None
    )
    return Reason(code, *texts[code]) if code is not None else None


def cagr_compute(
    lookup: FactLookup,
    task: SubTask,
    start: Period,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> Computed | CannotCompute:
    """`(end / start) ^ (1 / years) - 1` between `start` and `task.period` (same part of a year).

    Computed with `Decimal` at 34 significant digits; a fractional power is "almost always"
    correctly rounded there, which is some thirty digits beyond anything displayed.
    """
    decimals_check(decimals)
    end = task.period
    if start.period_type != end.period_type or start.period[4:] != end.period[4:] or start.year >= end.year:
        return refuse(
            KIND_CAGR,
            "bad_periods",
            f"复合增长率需要同类、较早的起始期间（{start.label} → {end.label}）。",
            f"A CAGR needs an earlier start period of the same kind ({start.label} → {end.label}).",
        )
    first = resolve(lookup, SubTask(task.metric, task.entity, start, task.channel), formulas)
    last = resolve(lookup, task, formulas)
    found = [f for x in (last, first) for f in x.inputs]
    if isinstance(first, Unresolved) or isinstance(last, Unresolved):
        return missing_inputs(KIND_CAGR, [x for x in (last, first) if isinstance(x, Unresolved)], label, found)
    if first.unit != last.unit:
        return mixed_units(KIND_CAGR, (last.unit, first.unit), found)
    if last.unit == UNIT_PCT:
        return refuse(
            KIND_CAGR,
            "percent_metric",
            "百分比指标不计算复合增长率；可改问百分点变化。",
            "A percentage has no compound growth rate; ask for the change in percentage points.",
            found,
        )
    if first.value <= 0 or last.value <= 0:
        return refuse(
            KIND_CAGR,
            "not_meaningful",
            "起点或终点数不为正，复合增长率无意义。",
            "The start or end figure is not positive, so a CAGR is not meaningful.",
            found,
        )
    years = end.year - start.year
    ratio = Group(Chain(last.node, (("/", first.node),)))
    exponent = Group(Chain(_ONE, (("/", Number(Decimal(years), str(years))),)))
    node = Chain(Power(ratio, exponent), (("-", _ONE),))
    span = f"{start.label}–{end.label}"
    name = names(
        lambda lang: (
            f"{describe(task, label, lang, entity=False)} CAGR {span}"
            if lang == "en"
            else f"{describe(task, label, lang, entity=False)}复合年增长率（{span}）"
        )
    )
    return computed_build(
        KIND_CAGR,
        node,
        found,
        unit=UNIT_PCT,
        name=name,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=task,
    )


def rate_gap_compute(
    lookup: FactLookup,
    first: SubTask,
    second: SubTask,
    operator: str = YOY,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> tuple[Computed, Computed, Computed] | CannotCompute:
    """The gap between two growth rates in percentage points (`东南亚增速比内地高多少个百分点`,
    `增速比2024年放缓了多少个百分点`): `first`'s rate less `second`'s, each against its own
    comparison period, with both rates. Refused, with the reason, when either has no rate."""
    rates: list[Computed] = []
    nodes = []
    found: list[FactRecord] = []
    for task in (first, second):
        growth = growth_compute(lookup, task, operator, formulas=formulas, decimals=decimals, label=label)
        if isinstance(growth, CannotCompute):
            return growth
        if growth.rate is None:
            reason = growth.no_rate or Reason("no_rate", "没有增长率。", "There is no growth rate.")
            return CannotCompute(KIND_DIFFERENCE, reason, inputs=growth.inputs)
        current, base = resolve(lookup, task, formulas), resolve(lookup, comparison_task(task, operator), formulas)
        assert isinstance(current, Operand) and isinstance(base, Operand)
        nodes.append(Chain(Group(Chain(current.node, (("-", base.node),))), (("/", base.node),)))
        rates.append(growth.rate)
        found.extend(f for f in growth.inputs if f not in found)
    node = Chain(Group(Chain(Group(nodes[0]), (("-", Group(nodes[1])),))), (("*", Number(Decimal(100), "100")),))
    entity = first.entity != second.entity

    def said(task: SubTask, lang: str) -> str:
        return f"{describe(task, label, lang, entity=entity)} {task.period.label}".strip()

    gap = computed_build(
        KIND_DIFFERENCE,
        node,
        found,
        unit=UNIT_PP,
        name=names(
            lambda lang: (
                f"gap between the growth of {said(first, lang)} and of {said(second, lang)}"
                if lang == "en"
                else f"{said(first, lang)}与{said(second, lang)}增长率之差"
            )
        ),
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=first,
    )
    if isinstance(gap, CannotCompute):
        return gap
    return gap, rates[0], rates[1]
