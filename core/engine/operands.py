"""Operands: the figure for one key (metric, entity, period, channel), found or computed.

Takes a `FactLookup` (the caller's: it reads the store with the user's clearance, so a
RESTRICTED fact the user may not see is simply not found) and the formula metrics; returns an
`Operand` (value, unit, the formula tree over the facts used, those facts) or `Unresolved` (the
keys that are missing, or why the figure is undefined). A stored fact wins over a formula for
the same key; a formula metric without one is expanded down to stored facts.

Invariant: an operand's value is its tree evaluated over its own facts, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from core.engine.display import RATE_DECIMALS, number_display, percent_of, value_display
from core.engine.formula import (
    Chain,
    Formula,
    FormulaError,
    Group,
    Negate,
    Node,
    Number,
    Ref,
    formula_expand,
    formula_parse,
    formula_render,
    formulas_check,
    node_evaluate,
    node_has_division,
    node_refs,
    refs_map,
)
from core.model.facts import FactRecord, SubTask
from core.model.outcome import UNIT_PCT, Reason
from core.model.period import Period

FactLookup = Callable[[SubTask], FactRecord | None]
Label = Callable[[str, str, str], str]  # (kind, code, language) → text, e.g. `GlossarySnapshot.display`

YOY = "yoy"
QOQ = "qoq"
_HUNDRED = Number(Decimal(100), "100")


def code_label(kind: str, code: str, language: str) -> str:
    return code


def facts_lookup(facts: Iterable[FactRecord]) -> FactLookup:
    """A lookup over facts the caller already holds."""
    table = {SubTask(f.metric, f.entity, f.period, f.channel).key: f for f in facts}
    return lambda task: table.get(task.key)


@dataclass(frozen=True)
class FormulaMetric:
    code: str
    formula: Formula
    unit: str  # PCT: the formula yields a fraction, shown × 100


def formula_metrics_build(definitions: Mapping[str, str], units: Mapping[str, str]) -> dict[str, FormulaMetric]:
    """Parsed formula metrics; `units` maps every metric code (stored or formula) to its unit.

    Raises `FormulaError` listing every unusable definition (the importer refuses them first).
    """
    errors = formulas_check(definitions, units)
    if errors:
        raise FormulaError("; ".join(f"{code}: {error}" for code, error in errors.items()))
    return {code: FormulaMetric(code, formula_parse(text), units.get(code, "")) for code, text in definitions.items()}


def comparison_period(period: Period, operator: str) -> Period:
    """The period a growth compares with: `yoy` a year earlier (2025Q3 → 2024Q3), `qoq` the
    previous period of the same type (Q1 → last year's Q4, H1 → last year's H2, FY → FY)."""
    if operator not in (YOY, QOQ):
        raise ValueError(f"unknown growth operator {operator!r}")
    year, kind = period.year, period.period_type
    if operator == YOY or kind == "FY":
        return Period(kind, f"{year - 1}{period.period[4:]}")
    letter, part = period.period[4], int(period.period[5])
    if part > 1:
        return Period(kind, f"{year}{letter}{part - 1}")
    return Period(kind, f"{year - 1}{letter}{2 if kind == 'HY' else 4}")


def comparison_task(task: SubTask, operator: str) -> SubTask:
    return replace(task, period=comparison_period(task.period, operator))


def qualifier(task: SubTask | FactRecord) -> str:
    return f"{task.entity},{task.period.label},{task.channel}"


def fact_ref(fact: FactRecord) -> tuple[str, str]:
    return fact.metric, qualifier(fact)


@dataclass(frozen=True)
class Operand:
    task: SubTask
    value: Decimal
    unit: str
    node: Node  # over `Ref(metric, "ENTITY,PERIOD,CHANNEL")`; evaluates to `value`
    inputs: tuple[FactRecord, ...]
    fraction: bool  # a PCT figure held as a fraction (a formula metric); stored PCT is in percent
    exact: bool  # no quotient or power inside, so the value needs no rounding for display

    @property
    def percent_node(self) -> Node:
        """The tree in the units shown: a PCT fraction × 100; anything else as it is."""
        return Chain(self.node, (("*", _HUNDRED),)) if self.fraction else self.node

    @property
    def fraction_node(self) -> Node:
        """The tree with a stored PCT figure as a fraction (÷ 100)."""
        return Chain(self.node, (("/", _HUNDRED),)) if self.unit == UNIT_PCT and not self.fraction else self.node

    @property
    def comparable(self) -> Decimal:
        """The value in the units shown, for ordering stored and computed figures together."""
        return percent_of(self.value) if self.fraction else self.value

    def display(self, decimals: int | None) -> str:
        if self.fraction:
            return value_display(self.value, UNIT_PCT, decimals)
        default = None if self.exact else RATE_DECIMALS
        shown = number_display(self.value, default if decimals is None else decimals)
        return shown + "%" if self.unit == UNIT_PCT else shown


@dataclass(frozen=True)
class Unresolved:
    task: SubTask
    missing: tuple[SubTask, ...] = ()
    problem: Reason | None = None
    inputs: tuple[FactRecord, ...] = ()


def operand_resolve(
    lookup: FactLookup, task: SubTask, formulas: Mapping[str, FormulaMetric] | None = None
) -> Operand | Unresolved:
    """The stored fact for `task`, else its formula metric's value, else what is missing.

    An amount paid (a metric in the lookup's `paid`: capex, dividends paid) stored negative, as a
    cash-flow statement prints an outflow, is computed with as the amount paid: its tree is the
    stored value negated, so the value still re-evaluates from the stored fact."""
    fact = lookup(task)
    if fact is not None:
        ref = Ref(fact.metric, qualifier(fact))
        if fact.value < 0 and fact.metric in getattr(lookup, "paid", ()):
            return Operand(task, -fact.value, fact.unit, Group(Negate(ref)), (fact,), False, True)
        return Operand(task, fact.value, fact.unit, ref, (fact,), False, True)
    if formulas is None or task.metric not in formulas:
        return Unresolved(task, missing=(task,))
    return formula_operand(lookup, task, formulas)


def formula_operand(lookup: FactLookup, task: SubTask, formulas: Mapping[str, FormulaMetric]) -> Operand | Unresolved:
    """A formula metric's value for `task`, its own stored fact not consulted (the caller's)."""
    metric = formulas[task.metric]
    fetched: dict[str, FactRecord | None] = {}

    def fetch(code: str) -> FactRecord | None:
        if code not in fetched:
            fetched[code] = lookup(replace(task, metric=code))
        return fetched[code]

    definitions = {code: m.formula for code, m in formulas.items()}
    expanded = formula_expand(metric.formula, definitions, stored=lambda code: fetch(code) is not None)

    def qualify(ref: Ref) -> Node:
        fact = fetch(ref.code)
        node = Ref(ref.code, qualifier(fact if fact is not None else task))
        # A stored figure of a PCT formula metric is in percent; inside a formula it is a fraction.
        inner = formulas.get(ref.code)
        return Chain(node, (("/", _HUNDRED),)) if inner is not None and inner.unit == UNIT_PCT else node

    node = refs_map(expanded, qualify)
    codes = list(dict.fromkeys(ref.code for ref in node_refs(node)))
    found = tuple(f for f in (fetch(code) for code in codes) if f is not None)
    missing = tuple(replace(task, metric=code) for code in codes if fetch(code) is None)
    if missing:
        return Unresolved(task, missing=missing, inputs=found)
    values = {fact_ref(f): f.value for f in found}
    evaluation = node_evaluate(node, lambda ref: values.get((ref.code, ref.qualifier)))
    if evaluation.value is None:  # a zero divisor: curator formulas have no other undefined step
        where = formula_render(evaluation.problem) if evaluation.problem is not None else ""
        reason = Reason(
            "not_meaningful",
            f"分母 {where} 为 0，{task.metric} 无意义。",
            f"The divisor {where} is 0, so {task.metric} is not meaningful.",
        )
        return Unresolved(task, problem=reason, inputs=found)
    fraction = metric.unit == UNIT_PCT
    return Operand(task, evaluation.value, metric.unit, node, found, fraction, not node_has_division(node))
