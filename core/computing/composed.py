"""Comparisons the engine's operators do not take, built from the engine's own parts: the
difference between two metrics of one key, the share of a period in a longer period that
contains it (H1 of its year, a quarter of its half or year), and the change of a share between
two periods in percentage points. Also the names of a difference between two listed items.

Takes a lookup, the keys and the display choices; returns a `Change`, a `Computed` or
`CannotCompute`, with the engine's guarantees: `Decimal` arithmetic over the listed inputs only
(`computed_build`), a percentage compared in percentage points with no rate, no rate on a zero
or negative base, missing inputs and mixed units refused with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from ..compute import UNIT_PCT, UNIT_PP, CannotCompute, Change, Computed, FormulaMetric, Label, Reason
from ..compute.build import computed_build, describe, missing_inputs, mixed_units, names, refuse
from ..compute.display import RATE_DECIMALS, decimals_check
from ..compute.operands import FactLookup, Operand, Unresolved, operand_resolve
from ..compute.outcome import KIND_DIFFERENCE, KIND_SHARE
from ..formula import Chain, Number
from ..types import Period, SubTask

_HUNDRED = Number(Decimal(100), "100")
_POINTS = Reason(
    "percentage_points",
    "百分比指标的差异以百分点表示，不计算差异率。",
    "Percentages differ in percentage points; no relative difference is given.",
)


def metrics_difference(
    lookup: FactLookup,
    task: SubTask,
    base_metric: str,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label,
) -> Change | CannotCompute:
    """`task` − the same key of `base_metric`, and the rate against it when meaningful."""
    decimals_check(decimals)
    base_task = replace(task, metric=base_metric)
    current, base = operand_resolve(lookup, task, formulas), operand_resolve(lookup, base_task, formulas)
    found = [f for x in (current, base) for f in x.inputs]
    if isinstance(current, Unresolved) or isinstance(base, Unresolved):
        unresolved = [x for x in (current, base) if isinstance(x, Unresolved)]
        return missing_inputs(KIND_DIFFERENCE, unresolved, label, found)
    if current.unit != base.unit:
        return mixed_units(KIND_DIFFERENCE, (current.unit, base.unit), found)
    change_names, rate_names = gap_names(task, base_task, label)
    exact = current.exact and base.exact and not (current.fraction or base.fraction)
    change_decimals = decimals if decimals is not None or exact else RATE_DECIMALS
    percent = current.unit == UNIT_PCT
    node = (
        Chain(current.percent_node, (("-", base.percent_node),))
        if percent
        else Chain(current.node, (("-", base.node),))
    )
    change = computed_build(
        KIND_DIFFERENCE,
        node,
        found,
        unit=UNIT_PP if percent else current.unit,
        name=change_names,
        label=label,
        decimals=change_decimals,
        subject=task,
    )
    if isinstance(change, CannotCompute):
        return change
    if percent:
        return Change(KIND_DIFFERENCE, change, None, _POINTS)
    no_rate = _no_rate(base)
    if no_rate is not None:
        return Change(KIND_DIFFERENCE, change, None, no_rate)
    rate = computed_build(
        KIND_DIFFERENCE,
        Chain(node, (("/", base.node),)),
        found,
        unit=UNIT_PCT,
        name=rate_names,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=task,
    )
    if isinstance(rate, CannotCompute):
        return Change(KIND_DIFFERENCE, change, None, rate.reason)
    return Change(KIND_DIFFERENCE, change, rate, None)


def _no_rate(base: Operand) -> Reason | None:
    if base.value == 0:
        return Reason(
            "base_zero", "对比基数为 0，不计算相对差异。", "The base is zero, so no relative difference is given."
        )
    if base.value < 0:
        return Reason(
            "base_negative",
            "对比基数为负，不计算相对差异。",
            "The base is negative, so no relative difference is given.",
        )
    return None


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


def change_renamed(change: Change, kind: str, change_names: tuple[str, str], rate_names: tuple[str, str]) -> Change:
    """The same change and rate (values, formulas, inputs untouched) under another kind and names."""

    def renamed(item: Computed, pair: tuple[str, str]) -> Computed:
        return replace(item, kind=kind, name_zh=pair[0], name_en=pair[1])

    rate = renamed(change.rate, rate_names) if change.rate is not None else None
    return replace(change, kind=kind, change=renamed(change.change, change_names), rate=rate)


# -- the share of a period in a longer one ---------------------------------------------------
def period_contains(whole: Period, part: Period) -> bool:
    """Whether `part` lies inside `whole` and is shorter: H1 or a quarter in its year, a quarter
    in its half."""
    if whole.year != part.year or whole == part:
        return False
    if whole.period_type == "FY":
        return part.period_type in ("HY", "QUARTER")
    if whole.period_type == "HY" and part.period_type == "QUARTER":
        quarter = int(part.period[-1])
        return (quarter <= 2) == whole.period.endswith("H1")
    return False


def period_share(
    lookup: FactLookup,
    part: SubTask,
    whole: Period,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label,
) -> Computed | CannotCompute:
    """`part` / the same key over `whole`, a longer period containing it, in `PCT`."""
    decimals_check(decimals)
    if not period_contains(whole, part.period):
        return refuse(
            KIND_SHARE,
            "mismatch",
            f"{part.period.label} 不在 {whole.label} 之内，不能求占比。",
            f"{part.period.label} is not part of {whole.label}, so it has no share of it.",
        )
    whole_task = replace(part, period=whole)
    x, y = operand_resolve(lookup, part, formulas), operand_resolve(lookup, whole_task, formulas)
    found = [f for op in (x, y) for f in op.inputs]
    if isinstance(x, Unresolved) or isinstance(y, Unresolved):
        return missing_inputs(KIND_SHARE, [op for op in (x, y) if isinstance(op, Unresolved)], label, found)
    if x.unit != y.unit:
        return mixed_units(KIND_SHARE, (x.unit, y.unit), found)
    if x.unit == UNIT_PCT:
        return refuse(
            KIND_SHARE, "percent_metric", "百分比指标不能求占比。", "A percentage is not a part of a whole.", found
        )
    if y.value <= 0:
        return refuse(
            KIND_SHARE,
            "not_meaningful",
            "整体数不为正，占比无意义。",
            "The whole is not positive, so a share is not meaningful.",
            found,
        )
    name = names(
        lambda lang: (
            f"{describe(part, label, lang, entity=False)} {part.period.label} share of {whole.label}"
            if lang == "en"
            else f"{describe(part, label, lang, entity=False)} {part.period.label} 占 {whole.label} 比重"
        )
    )
    return computed_build(
        KIND_SHARE,
        Chain(x.node, (("/", y.node),)),
        found,
        unit=UNIT_PCT,
        name=name,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=part,
    )


def shares_difference(
    lookup: FactLookup,
    later: tuple[SubTask, SubTask],
    earlier: tuple[SubTask, SubTask],
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label,
) -> Change | CannotCompute:
    """(part / whole in the later period − the same in the earlier one) × 100, in percentage
    points: the change of a share the caller computed for both periods."""
    decimals_check(decimals)
    operands = [operand_resolve(lookup, task, formulas) for task in (*later, *earlier)]
    found = [f for op in operands for f in op.inputs]
    unresolved = [op for op in operands if isinstance(op, Unresolved)]
    if unresolved:
        return missing_inputs(KIND_DIFFERENCE, unresolved, label, found)
    part, whole, old_part, old_whole = (op for op in operands if isinstance(op, Operand))
    shares = (Chain(part.node, (("/", whole.node),)), Chain(old_part.node, (("/", old_whole.node),)))
    node = Chain(Chain(shares[0], (("-", shares[1]),)), (("*", _HUNDRED),))
    span = f"{earlier[0].period.label}–{later[0].period.label}"
    name = names(
        lambda lang: (
            f"{describe(later[0], label, lang, entity=False)} share change {span}"
            if lang == "en"
            else f"{describe(later[0], label, lang, entity=False)}占比变动（{span}）"
        )
    )
    change = computed_build(
        KIND_DIFFERENCE,
        node,
        found,
        unit=UNIT_PP,
        name=name,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=later[0],
    )
    if isinstance(change, CannotCompute):
        return change
    return Change(KIND_DIFFERENCE, change, None, _POINTS)
