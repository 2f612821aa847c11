"""Compound annual growth (CAGR) of one key between a start period and the period it is asked at.

Takes a lookup, the key asked about (its period is the end) and the start period; returns the
rate `(end / start) ^ (1 / years) - 1` as a `Computed`, or `CannotCompute` when the start is
not an earlier period of the same kind, a figure is missing, the units differ, the metric is a
percentage (its change is in points) or either end is not positive.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from core.engine.build import computed_build, describe, missing_inputs, mixed_units, names, refuse
from core.engine.display import RATE_DECIMALS, decimals_check
from core.engine.formula import Chain, Group, Number, Power
from core.engine.operands import FactLookup, FormulaMetric, Label, Unresolved, code_label
from core.engine.operands import operand_resolve as resolve
from core.model.facts import SubTask
from core.model.outcome import KIND_CAGR, UNIT_PCT, CannotCompute, Computed
from core.model.period import Period

_ONE = Number(Decimal(1), "1")


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
