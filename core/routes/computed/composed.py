"""Comparisons the engine's operators do not take, built from the engine's own parts: the
change of a share between two periods in percentage points, and a change renamed for the
question that asked it.

Takes a lookup, the keys and the display choices; returns a `Change` or `CannotCompute`, with
the engine's guarantees: `Decimal` arithmetic over the listed inputs only (`computed_build`),
a percentage compared in percentage points with no rate, missing inputs refused with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from core.engine import UNIT_PP, CannotCompute, Change, Computed, FormulaMetric, Label, Reason
from core.engine.build import computed_build, describe, missing_inputs, names
from core.engine.change import GAP_NO_RATE
from core.engine.display import RATE_DECIMALS, decimals_check
from core.engine.formula import Chain, Number
from core.engine.operands import FactLookup, Operand, Unresolved, operand_resolve
from core.model.facts import SubTask
from core.model.outcome import KIND_DIFFERENCE

_HUNDRED = Number(Decimal(100), "100")
_POINTS = Reason("percentage_points", *GAP_NO_RATE["percentage_points"])


def change_renamed(change: Change, kind: str, change_names: tuple[str, str], rate_names: tuple[str, str]) -> Change:
    """The same change and rate (values, formulas, inputs untouched) under another kind and names."""

    def renamed(item: Computed, pair: tuple[str, str]) -> Computed:
        return replace(item, kind=kind, name_zh=pair[0], name_en=pair[1])

    rate = renamed(change.rate, rate_names) if change.rate is not None else None
    return replace(change, kind=kind, change=renamed(change.change, change_names), rate=rate)


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
