"""Halves and years not stored, derived from other periods of the same key.

Takes a lookup, the key asked about and its metric's aggregation (`sum`, `end` or `none`);
returns each derivation that can be computed as a `Computed` of kind `derived`, with its formula
and inputs: H2 = FY − H1 and Q3 + Q4, H1 = Q1 + Q2 and FY − H2, a year = H1 + H2 and its four
quarters. A ratio (`none`, every percentage) is never derived by adding or subtracting; a value
at a date (`end`) is its period-end value, never a difference.
"""

from __future__ import annotations

from dataclasses import replace

from core.engine.build import computed_build, describe, names
from core.engine.display import UNIT_PCT
from core.engine.formula import Chain
from core.engine.operands import FactLookup, Label, Operand, code_label
from core.engine.operands import operand_resolve as resolve
from core.engine.outcome import KIND_DERIVED, CannotCompute, Computed
from core.model.types import Period, SubTask


def _derivations(period: Period, aggregation: str) -> list[tuple[str, tuple[Period, ...]]]:
    """The ways a half or a year is made of other periods: (sign after the first, parts). A value
    at a date (`end`) is the value at the period's last day: H2 and the year are Q4's, H1 is Q2's."""
    year = period.year
    fy, h1, h2 = Period("FY", str(year)), Period("HY", f"{year}H1"), Period("HY", f"{year}H2")
    q = [Period("QUARTER", f"{year}Q{n}") for n in (1, 2, 3, 4)]
    if aggregation == "end":
        ends = {h2: [(fy,), (q[3],)], h1: [(q[1],)], fy: [(h2,), (q[3],)]}
        return [("+", parts) for parts in ends.get(period, [])]
    if period == h2:
        return [("-", (fy, h1)), ("+", (q[2], q[3]))]
    if period == h1:
        return [("+", (q[0], q[1])), ("-", (fy, h2))]
    if period == fy:
        return [("+", (h1, h2)), ("+", tuple(q))]
    return []


def period_derive(
    lookup: FactLookup, task: SubTask, *, label: Label = code_label, aggregation: str = "sum"
) -> list[Computed | CannotCompute]:
    """A half or a year not stored, derived: H2 as FY − H1 and Q3 + Q4, H1 as Q1 + Q2 and
    FY − H2, a year as H1 + H2 and its four quarters; each with its formula and inputs, whichever
    can be computed. A ratio (`none`, every percentage) is never derived by adding or subtracting;
    a value at a date (`end`) is its period-end value."""
    derived: list[Computed | CannotCompute] = []
    if aggregation == "none":
        return derived
    for sign, periods in _derivations(task.period, aggregation):
        operands = [resolve(lookup, replace(task, period=p), None) for p in periods]
        resolved = [op for op in operands if isinstance(op, Operand)]
        units = {op.unit for op in resolved}
        if len(resolved) != len(periods) or len(units) != 1 or UNIT_PCT in units:
            continue
        found = [f for op in resolved for f in op.inputs]

        def name(language: str) -> str:
            metric = describe(task, label, language, entity=False)
            period = task.period.label
            return f"{period} {metric} (derived)" if language == "en" else f"{period} {metric}（推算）"

        derived.append(
            computed_build(
                KIND_DERIVED,
                Chain(resolved[0].node, tuple((sign, op.node) for op in resolved[1:]))
                if len(resolved) > 1
                else resolved[0].node,
                found,
                unit=resolved[0].unit,
                name=names(name),
                label=label,
                decimals=None,
                subject=task,
            )
        )
    return derived
