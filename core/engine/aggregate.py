"""Ratio, share and sum over found or computed figures.

Takes a lookup and the keys asked about; returns a `Computed` (ratio and share as `PCT`
fractions, sum in the inputs' unit) or `CannotCompute` with the reason. A share's whole is
another metric, the parent entity, the channels' TOTAL or a longer period of the same key that
contains the part's. A sum needs every input, one metric and one unit, and refuses overlapping
items (a channel with its total, an entity with its parent) instead of counting twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from core.engine.build import computed_build, describe, missing_inputs, mixed_units, names, refuse
from core.engine.display import RATE_DECIMALS, decimals_check
from core.engine.formula import Chain, Group, Node, Number
from core.engine.operands import FactLookup, FormulaMetric, Label, Operand, Unresolved, code_label
from core.engine.operands import operand_resolve as resolve
from core.model.facts import FactRecord, SubTask
from core.model.outcome import KIND_AVERAGE, KIND_RATIO, KIND_SHARE, KIND_SUM, UNIT_PCT, CannotCompute, Computed
from core.model.period import Period

Parents = Mapping[str, str | None]  # entity code → parent code


def _pair(
    kind: str, lookup: FactLookup, a: SubTask, b: SubTask, formulas: Mapping[str, FormulaMetric] | None, label: Label
) -> tuple[Operand, Operand, list[FactRecord]] | CannotCompute:
    x, y = resolve(lookup, a, formulas), resolve(lookup, b, formulas)
    found = [f for op in (x, y) for f in op.inputs]
    if isinstance(x, Unresolved) or isinstance(y, Unresolved):
        return missing_inputs(kind, [op for op in (x, y) if isinstance(op, Unresolved)], label, found)
    if x.unit != y.unit:
        return mixed_units(kind, (x.unit, y.unit), found)
    return x, y, found


def _quotient(x: Operand, y: Operand) -> Node:
    """`x / y`, a stored PCT figure taken as a fraction when the other one is a fraction."""
    if x.unit == UNIT_PCT and x.fraction != y.fraction:
        return Chain(x.fraction_node, (("/", y.fraction_node),))
    return Chain(x.node, (("/", y.node),))


def ratio_compute(
    lookup: FactLookup,
    numerator: SubTask,
    denominator: SubTask,
    *,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> Computed | CannotCompute:
    """`numerator / denominator` in `PCT`: one period, one unit, or one figure against itself in
    another period of the same type (`2025年是2022年的几倍`); a zero divisor is not meaningful."""
    decimals_check(decimals)
    across = numerator.period != denominator.period
    itself = (numerator.metric, numerator.entity, numerator.channel) == (
        denominator.metric,
        denominator.entity,
        denominator.channel,
    )
    if across and not (itself and numerator.period.period_type == denominator.period.period_type):
        return refuse(
            KIND_RATIO,
            "mismatch",
            "比率只比较同一期间的两个数，或同一数字在同类期间之间；其他跨期间请问增长。",
            "A ratio compares two figures of one period, or one figure across periods of one type; "
            "otherwise, across periods, ask for growth.",
        )
    pair = _pair(KIND_RATIO, lookup, numerator, denominator, formulas, label)
    if isinstance(pair, CannotCompute):
        return pair
    x, y, found = pair
    entity, channel = numerator.entity != denominator.entity, numerator.channel != denominator.channel

    def said(task: SubTask, lang: str) -> str:
        words = describe(task, label, lang, entity=entity, channel=channel)
        return f"{words} {task.period.label}" if across else words

    name = names(
        lambda lang: (
            f"{said(numerator, lang)} to {said(denominator, lang)} ratio"
            if lang == "en"
            else f"{said(numerator, lang)}与{said(denominator, lang)}之比"
        )
    )
    return computed_build(
        KIND_RATIO,
        _quotient(x, y),
        found,
        unit=UNIT_PCT,
        name=name,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=numerator,
    )


def _ancestors(entity: str, parents: Parents) -> list[str]:
    out: list[str] = []
    parent = parents.get(entity)
    while parent and parent not in out and parent != entity:
        out.append(parent)
        parent = parents.get(parent)
    return out


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


def share_compute(
    lookup: FactLookup,
    part: SubTask,
    whole: SubTask,
    *,
    parents: Parents | None = None,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> Computed | CannotCompute:
    """`part / whole` in `PCT`, where the whole is another metric, the parent entity, TOTAL or a
    longer period containing the part's (H1 of its year, a quarter of its half or year)."""
    decimals_check(decimals)
    axes = ("metric", "entity", "channel", "period")
    differ = [axis for axis in axes if getattr(part, axis) != getattr(whole, axis)]
    if differ == ["period"] and not period_contains(whole.period, part.period):
        return refuse(
            KIND_SHARE,
            "mismatch",
            f"{part.period.label} 不在 {whole.period.label} 之内，不能求占比。",
            f"{part.period.label} is not part of {whole.period.label}, so it has no share of it.",
        )
    fits = len(differ) == 1
    if fits and differ == ["channel"]:
        fits = whole.channel == "TOTAL"
    if fits and differ == ["entity"] and parents is not None:
        fits = whole.entity in _ancestors(part.entity, parents)
    if not fits:
        return refuse(
            KIND_SHARE,
            "mismatch",
            "占比需要部分与其整体：两个指标、实体与其上级、或渠道与其合计，且为同一期间。",
            "A share needs a part and its whole of one period: two metrics, an entity and its parent, "
            "or a channel and its total.",
        )
    pair = _pair(KIND_SHARE, lookup, part, whole, formulas, label)
    if isinstance(pair, CannotCompute):
        return pair
    x, y, found = pair
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
    entity = differ == ["entity"]
    if differ == ["period"]:
        name = names(
            lambda lang: (
                f"{describe(part, label, lang, entity=False)} {part.period.label} share of {whole.period.label}"
                if lang == "en"
                else f"{describe(part, label, lang, entity=False)} {part.period.label} 占 {whole.period.label} 比重"
            )
        )
    else:
        name = names(
            lambda lang: (
                f"{describe(part, label, lang, entity=entity)} share of {describe(whole, label, lang, entity=entity)}"
                if lang == "en"
                else f"{describe(part, label, lang, entity=entity)}占{describe(whole, label, lang, entity=entity)}比重"
            )
        )
    return computed_build(
        KIND_SHARE,
        _quotient(x, y),
        found,
        unit=UNIT_PCT,
        name=name,
        label=label,
        decimals=RATE_DECIMALS if decimals is None else decimals,
        subject=part,
    )


def _overlap(tasks: Sequence[SubTask], parents: Parents | None, label: Label) -> CannotCompute | None:
    """A channel listed with its TOTAL, or an entity with an ancestor: the total would count twice."""
    keys = {(t.entity, t.period, t.channel) for t in tasks}
    channels: dict[tuple[str, Period], list[str]] = {}
    for t in tasks:
        channels.setdefault((t.entity, t.period), []).append(t.channel)
    for t in tasks:
        listed = channels[(t.entity, t.period)]
        if t.channel == "TOTAL" and len(listed) > 1:
            inner = next(c for c in listed if c != "TOTAL")
            return _overlap_refusal(("entity", t.entity), ("channel", inner), label)
        ancestors = _ancestors(t.entity, parents) if parents is not None else []
        outer = next((a for a in ancestors if (a, t.period, t.channel) in keys), None)
        if outer is not None:
            return _overlap_refusal(("entity", outer), ("entity", t.entity), label)
    return None


def _overlap_refusal(outer: tuple[str, str], inner: tuple[str, str], label: Label) -> CannotCompute:
    def named(item: tuple[str, str], language: str) -> str:
        return label(item[0], item[1], language)

    return refuse(
        KIND_SUM,
        "overlap",
        f"所列项目有重叠（{named(outer, 'zh')} 已包含 {named(inner, 'zh')}），合计会重复计算。",
        f"The items overlap ({named(outer, 'en')} already includes {named(inner, 'en')}), "
        "so a total would count twice.",
    )


def _members(tasks: Sequence[SubTask], label: Label, language: str) -> list[str]:
    axes = [
        axis
        for axis, values in (("entity", {t.entity for t in tasks}), ("channel", {t.channel for t in tasks}))
        if len(values) > 1
    ]
    periods = len({t.period for t in tasks}) > 1

    def member(t: SubTask) -> str:
        parts = [label(axis, getattr(t, axis), language) for axis in axes]
        return " ".join([*parts, t.period.label] if periods else parts)

    return [member(t) for t in tasks]


def sum_compute(
    lookup: FactLookup,
    tasks: Sequence[SubTask],
    *,
    parents: Parents | None = None,
    formulas: Mapping[str, FormulaMetric] | None = None,
    decimals: int | None = None,
    label: Label = code_label,
    average: bool = False,
) -> Computed | CannotCompute:
    """The total of one metric over the listed entities, channels or periods (of one type), or
    with `average` their mean: the total ÷ the number of members, every member found."""
    decimals_check(decimals)
    tasks = list(dict.fromkeys(tasks))
    if not tasks:
        return refuse(KIND_SUM, "no_inputs", "没有要合计的项目。", "There is nothing to add up.")
    if len({t.metric for t in tasks}) > 1:
        codes = ", ".join(dict.fromkeys(t.metric for t in tasks))
        return refuse(
            KIND_SUM, "mixed_metrics", f"只能合计同一指标（{codes}）。", f"Only one metric can be added up ({codes})."
        )
    if len({t.period.period_type for t in tasks}) > 1:
        return refuse(
            KIND_SUM,
            "mismatch",
            "不同类型的期间（年度、半年、季度）不能相加。",
            "Periods of different kinds (years, halves, quarters) are not added up.",
        )
    overlap = _overlap(tasks, parents, label)
    if overlap is not None:
        return overlap
    operands = [resolve(lookup, t, formulas) for t in tasks]
    found = [f for op in operands for f in op.inputs]
    units = {op.unit for op in operands if isinstance(op, Operand)}
    if len(units) > 1:
        return mixed_units(KIND_SUM, (op.unit for op in operands if isinstance(op, Operand)), found)
    unresolved = [op for op in operands if isinstance(op, Unresolved)]
    if unresolved:
        return missing_inputs(KIND_SUM, unresolved, label, found)
    resolved = [op for op in operands if isinstance(op, Operand)]
    if resolved[0].unit == UNIT_PCT:
        return refuse(KIND_SUM, "percent_metric", "百分比不能相加。", "Percentages do not add up.", found)
    node = (
        Chain(resolved[0].node, tuple(("+", op.node) for op in resolved[1:])) if len(resolved) > 1 else resolved[0].node
    )
    exact = all(op.exact for op in resolved)
    if average:
        count = Number(Decimal(len(resolved)), str(len(resolved)))
        node = Chain(Group(node) if len(resolved) > 1 else node, (("/", count),))
        exact = False

    def name(language: str) -> str:
        members = _members(tasks, label, language)
        metric = describe(tasks[0], label, language, entity=False, channel=len({t.channel for t in tasks}) == 1)
        if language == "en":
            more = f" and {len(members) - 5} more" if len(members) > 5 else ""
            return f"{metric} {'average' if average else 'total'} of {', '.join(members[:5])}{more}"
        more = f"等 {len(members)} 项" if len(members) > 5 else ""
        return f"{'、'.join(members[:5])}{more}{metric}{'平均' if average else '合计'}"

    return computed_build(
        KIND_AVERAGE if average else KIND_SUM,
        node,
        found,
        unit=resolved[0].unit,
        name=names(name),
        label=label,
        decimals=decimals if decimals is not None or exact else RATE_DECIMALS,
        subject=None,
    )
