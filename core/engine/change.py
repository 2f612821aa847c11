"""Growth (YoY, QoQ) and difference over found or computed figures.

Takes a lookup, the key asked about and the comparison (an operator, or another key); returns a
`Change` (the absolute change, and the rate when meaningful) or `CannotCompute`. A PCT metric
changes in percentage points (unit `PP`) and has no rate; a zero or negative base gives the
change and `no_rate`, never a rate. Growth and difference are one computation: growth only
chooses the base period; a difference is of one metric, or between two metrics of one key
(named and worded as a gap between them, 甲与乙的差额). A CAGR is `core.engine.cagr`'s, a gap
between two growth rates `core.engine.rate_gap`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from core.engine.build import computed_build, describe, missing_inputs, mixed_units, names, refuse
from core.engine.display import RATE_DECIMALS, decimals_check
from core.engine.formula import Chain
from core.engine.operands import YOY, FactLookup, FormulaMetric, Label, Operand, Unresolved, code_label, comparison_task
from core.engine.operands import operand_resolve as resolve
from core.model.facts import SubTask
from core.model.outcome import KIND_DIFFERENCE, KIND_GROWTH, UNIT_PCT, UNIT_PP, CannotCompute, Change, Reason

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
