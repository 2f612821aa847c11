"""The basis of a why's rate and mix effects for a ratio: its numerator and the divisor that
weighs its parts. A formula metric's own (`GROSS_PROFIT / REVENUE`); for a stored percentage, the
amount metric whose quotient the whole's figures print in both periods (found, never assumed).
"""

from __future__ import annotations

from dataclasses import replace

from core.engine.display import decimal_round
from core.engine.formula import Chain, Ref
from core.glossary import AGGREGATION_NONE, GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.period import Period
from core.routes.computed.subjects import Reader


def ratio_basis(
    lookup: Reader, task: SubTask, base: Period, glossary: GlossarySnapshot
) -> tuple[str | None, str] | None:
    """`(numerator, divisor)` of a ratio: a formula metric's `A / B`; for a stored percentage,
    `(None, B)` where some stored `A ÷ B` prints as the whole's figure in both periods."""
    formula = glossary.formula_metrics.get(task.metric)
    if formula is not None:
        root = formula.formula.root
        if (
            isinstance(root, Chain)
            and len(root.rest) == 1
            and root.rest[0][0] == "/"
            and isinstance(root.first, Ref)
            and isinstance(root.rest[0][1], Ref)
        ):
            return root.first.code, root.rest[0][1].code
        return None
    printed = [lookup(replace(task, period=p)) for p in (task.period, base)]
    if any(f is None for f in printed):
        return None
    amounts = [m for m in glossary.metrics.values() if m.adds_up != AGGREGATION_NONE and not m.formula]
    for divisor in amounts:
        for numerator in amounts:
            if numerator.code == divisor.code or numerator.unit != divisor.unit:
                continue
            if all(
                _prints_as(lookup, task, p, numerator.code, divisor.code, f)
                for p, f in zip((task.period, base), printed, strict=True)
            ):
                return None, divisor.code
    return None


def _prints_as(
    lookup: Reader, task: SubTask, period: Period, numerator: str, divisor: str, printed: FactRecord | None
) -> bool:
    assert printed is not None
    top = lookup(SubTask(numerator, task.entity, period, task.channel))
    bottom = lookup(SubTask(divisor, task.entity, period, task.channel))
    if top is None or bottom is None or bottom.value <= 0:
        return False
    places = max(0, -printed.value.as_tuple().exponent)  # type: ignore[operator]
    return decimal_round(top.value * 100 / bottom.value, places) == printed.value
