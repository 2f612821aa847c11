"""A formula metric's value for one key (entity, period, channel).

Takes a lookup, the key, the formula metrics and the stored fact for that key, if the caller
found one; returns that stored fact unchanged (a stored fact wins), else a `Computed` of kind
`formula`, else `CannotCompute` naming the missing inputs or the zero divisor. A `PCT` formula
metric's value is a fraction and shows × 100 with `%`.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.engine.build import computed_build, describe, missing_inputs, names, refuse
from core.engine.display import RATE_DECIMALS, decimals_check
from core.engine.operands import FactLookup, FormulaMetric, Label, Unresolved, code_label, formula_operand
from core.model.facts import FactRecord, SubTask
from core.model.outcome import KIND_FORMULA, UNIT_PCT, CannotCompute, Computed


def formula_compute(
    lookup: FactLookup,
    task: SubTask,
    formulas: Mapping[str, FormulaMetric],
    *,
    stored: FactRecord | None = None,
    decimals: int | None = None,
    label: Label = code_label,
) -> FactRecord | Computed | CannotCompute:
    """`stored` if given, else the formula evaluated over the facts `lookup` finds for `task`."""
    decimals_check(decimals)
    if stored is not None:
        return stored
    metric = formulas.get(task.metric)
    if metric is None:
        return refuse(
            KIND_FORMULA,
            "not_formula",
            f"{task.metric} 没有公式，且未找到该数据。",
            f"{task.metric} has no formula and no stored figure.",
        )
    operand = formula_operand(lookup, task, formulas)
    if isinstance(operand, Unresolved):
        return missing_inputs(KIND_FORMULA, [operand], label, operand.inputs)
    default = RATE_DECIMALS if metric.unit == UNIT_PCT or not operand.exact else None
    return computed_build(
        KIND_FORMULA,
        operand.node,
        operand.inputs,
        unit=metric.unit,
        name=names(lambda lang: describe(task, label, lang, entity=False)),
        label=label,
        decimals=default if decimals is None else decimals,
        subject=task,
    )
