"""The gap between two growth rates, in percentage points (`东南亚增速比内地高多少个百分点`,
`增速比2024年放缓了多少个百分点`).

Takes a lookup and two keys, each grown against its own comparison period (`growth_compute`);
returns the gap, `first`'s rate less `second`'s (unit `PP`), with both rates, or `CannotCompute`
with the reason when either key has no rate (a missing figure, a percentage, a base that is
zero or negative).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from core.engine.build import computed_build, describe, names
from core.engine.change import growth_compute
from core.engine.display import RATE_DECIMALS
from core.engine.formula import Chain, Group, Number
from core.engine.operands import YOY, FactLookup, FormulaMetric, Label, Operand, code_label, comparison_task
from core.engine.operands import operand_resolve as resolve
from core.model.facts import FactRecord, SubTask
from core.model.outcome import KIND_DIFFERENCE, UNIT_PP, CannotCompute, Computed, Reason


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
