"""Halves and years not stored, derived from other periods of the same key.

Takes a lookup, the key asked about and its metric's aggregation (`sum`, `end` or `none`);
returns each derivation that can be computed as a `Computed` of kind `derived`, with its formula
and inputs: H2 = FY − H1 and Q3 + Q4, H1 = Q1 + Q2 and FY − H2, a year = H1 + H2 and its four
quarters. A ratio (`none`, every percentage) is never derived by adding or subtracting; a value
at a date (`end`) is its period-end value, never a difference.

`derived_run` puts a derivation inside any operation (`下半年比上半年增长多少`, H2 to H1, H2's
share of its year): when an operation lacks only such periods, it runs again with each of them
standing in, and every formula that used one is rebuilt over the derivation's own formula and
stored inputs, so the result's value, formula and inputs are those of stored facts alone. A
stored fact wins; two derivations that disagree are both shown and the operation is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.engine.build import Labels, computed_build, describe, names
from core.engine.formula import Chain, Group, Node, Ref, formula_parse, refs_map
from core.engine.operands import FactLookup, Label, Operand, code_label, qualifier
from core.engine.operands import operand_resolve as resolve
from core.model.facts import FactRecord, SubTask
from core.model.outcome import KIND_DERIVED, UNIT_PCT, CannotCompute, Change, Computed, Outcome, Reason, sensitivity_max
from core.model.period import Period


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


def _parts(period: Period, aggregation: str) -> list[Period]:
    """Every period a derivation of `period` may read."""
    if aggregation == "none":
        return []
    return list(dict.fromkeys(p for _, parts in _derivations(period, aggregation) for p in parts))


@dataclass(frozen=True)
class Derivation:
    """One way a key not stored is made of stored periods: its formula, inputs and value."""

    node: Node  # over `Ref(metric, "ENTITY,PERIOD,CHANNEL")` of stored facts
    inputs: tuple[FactRecord, ...]
    unit: str
    computed: Computed  # the derived value as the answer shows it (kind `derived`)


def derivations_find(
    lookup: FactLookup, task: SubTask, *, label: Label = code_label, aggregation: str = "sum"
) -> list[Derivation]:
    """Every derivation of `task` whose parts are all stored, in one unit that is not a percentage."""
    found: list[Derivation] = []
    if aggregation == "none":
        return found
    for sign, periods in _derivations(task.period, aggregation):
        operands = [resolve(lookup, replace(task, period=p), None) for p in periods]
        resolved = [op for op in operands if isinstance(op, Operand)]
        units = {op.unit for op in resolved}
        if len(resolved) != len(periods) or len(units) != 1 or UNIT_PCT in units:
            continue
        inputs = tuple(f for op in resolved for f in op.inputs)
        node = (
            Chain(resolved[0].node, tuple((sign, op.node) for op in resolved[1:]))
            if len(resolved) > 1
            else resolved[0].node
        )

        def name(language: str) -> str:
            metric = describe(task, label, language, entity=False)
            period = task.period.label
            return f"{period} {metric} (derived)" if language == "en" else f"{period} {metric}（推算）"

        computed = computed_build(
            KIND_DERIVED,
            node,
            inputs,
            unit=resolved[0].unit,
            name=names(name),
            label=label,
            decimals=None,
            subject=task,
        )
        if isinstance(computed, Computed):
            found.append(Derivation(node, inputs, resolved[0].unit, computed))
    return found


def period_derive(
    lookup: FactLookup, task: SubTask, *, label: Label = code_label, aggregation: str = "sum"
) -> list[Computed | CannotCompute]:
    """A half or a year not stored, derived: H2 as FY − H1 and Q3 + Q4, H1 as Q1 + Q2 and
    FY − H2, a year as H1 + H2 and its four quarters; each with its formula and inputs, whichever
    can be computed. A ratio (`none`, every percentage) is never derived by adding or subtracting;
    a value at a date (`end`) is its period-end value."""
    return [d.computed for d in derivations_find(lookup, task, label=label, aggregation=aggregation)]


# -- a derived period inside an operation ---------------------------------------------------------

_STANDING_IN = "(derived)"  # the source of a figure that stands in for a derivation while it runs
_ROUNDS = 3


@dataclass(frozen=True)
class Derived:
    """An operation's outcome over derived periods, and the derived values it used, each a
    `Computed` of kind `derived` (both of two that disagree, the first led by a flag)."""

    outcome: Outcome | tuple[Computed, ...]
    shown: tuple[Computed, ...] = ()
    disagree: bool = False


def derived_run(
    run: Callable[[FactLookup], Outcome | tuple[Computed, ...]],
    lookup: FactLookup,
    *,
    aggregation: Callable[[str], str],
    label: Label = code_label,
    prefetch: Callable[[list[SubTask]], None] | None = None,
) -> Derived:
    """`run` over `lookup`; when it is refused for want of halves or years that other periods of
    the same keys make up, `run` again with each derived.

    `aggregation` gives a metric's (`sum`, `end`, `none`); `prefetch`, when given, reads every
    key the derivations may use at once before they are tried. A key is derived only when it is not
    stored (the refusal names it missing), so a stored fact always wins. Every `Computed` of the
    last run that used a derived key is rebuilt over the derivation's formula and stored inputs;
    a refusal lists the stored inputs. When two derivations of a key disagree, the
    operation is refused naming both formulas, and both values are shown."""
    outcome = first = run(lookup)
    chosen: dict[tuple[str, ...], Derivation] = {}
    shown: list[Computed] = []
    # An operation may stop at its first missing key (a gap between two growths): each round
    # derives what the last one still lacked.
    for _ in range(_ROUNDS):
        if not isinstance(outcome, CannotCompute) or not outcome.missing:
            break
        missing = [t for t in dict.fromkeys(outcome.missing) if t.key not in chosen]
        if prefetch is not None:
            prefetch([replace(t, period=p) for t in missing for p in _parts(t.period, aggregation(t.metric))])
        refused = _refusal_rebuilt(outcome, _stand_ins(chosen))
        for task in missing:
            found = derivations_find(lookup, task, label=label, aggregation=aggregation(task.metric))
            if not found:
                return Derived(refused)
            shown.extend(d.computed for d in found)
            if len({d.computed.value for d in found}) > 1:
                return Derived(_disagreement(refused, task, found), tuple(shown), disagree=True)
            chosen[task.key] = found[0]
        outcome = run(_standing_in(lookup, _stand_ins(chosen)))
    if not chosen:
        return Derived(outcome)
    rebuilt = _rebuilt(outcome, _stand_ins(chosen), label)
    if rebuilt is None or isinstance(rebuilt, CannotCompute):
        # refused on other grounds (or a result that cannot be rebuilt): no derived value answers
        return Derived(rebuilt if isinstance(rebuilt, CannotCompute) else first)
    used = {d.computed for d in chosen.values()}
    return Derived(rebuilt, tuple(dict.fromkeys(c for c in shown if c in used)))


def _stand_ins(chosen: Mapping[tuple[str, ...], Derivation]) -> dict[FactRecord, Derivation]:
    return {_stand_in(key, d): d for key, d in chosen.items()}


def _standing_in(lookup: FactLookup, stand_ins: Mapping[FactRecord, Derivation]) -> FactLookup:
    """`lookup`, with each derived key's stand-in found in its place."""
    by_key = {_key(fact): fact for fact in stand_ins}
    return lambda task: by_key.get(task.key) or lookup(task)


def _key(fact: FactRecord) -> tuple[str, ...]:
    return SubTask(fact.metric, fact.entity, fact.period, fact.channel).key


def _stand_in(key: tuple[str, ...], derivation: Derivation) -> FactRecord:
    task = derivation.computed.subject
    assert task is not None and task.key == key
    return FactRecord(
        task.metric,
        task.entity,
        task.period,
        task.channel,
        derivation.computed.value,
        derivation.unit,
        _STANDING_IN,
        derivation.computed.formula,
        sensitivity=sensitivity_max(f.sensitivity for f in derivation.inputs),
    )


def _rebuilt(
    outcome: Outcome | tuple[Computed, ...], stand_ins: Mapping[FactRecord, Derivation], label: Label
) -> Outcome | tuple[Computed, ...] | None:
    """`outcome` with every stand-in replaced by its derivation; None when that cannot be done."""
    if isinstance(outcome, CannotCompute):
        return _refusal_rebuilt(outcome, stand_ins)
    if isinstance(outcome, Computed):
        return _computed_rebuilt(outcome, stand_ins, label)
    if isinstance(outcome, Change):
        change = _computed_rebuilt(outcome.change, stand_ins, label)
        rate = _computed_rebuilt(outcome.rate, stand_ins, label) if outcome.rate is not None else None
        if not isinstance(change, Computed) or (outcome.rate is not None and not isinstance(rate, Computed)):
            return None
        return replace(outcome, change=change, rate=rate if isinstance(rate, Computed) else None)
    if isinstance(outcome, tuple):
        items = [_computed_rebuilt(c, stand_ins, label) for c in outcome]
        return tuple(c for c in items if isinstance(c, Computed)) if len(items) == len(outcome) else None
    return None  # a ranking is never run over derived figures


def _refusal_rebuilt(outcome: CannotCompute, stand_ins: Mapping[FactRecord, Derivation]) -> CannotCompute:
    """A refusal with each stand-in among its inputs replaced by its derivation's stored inputs."""
    inputs = tuple(dict.fromkeys(g for f in outcome.inputs for g in _facts_of(f, stand_ins)))
    return replace(outcome, inputs=inputs)


def _facts_of(fact: FactRecord, stand_ins: Mapping[FactRecord, Derivation]) -> Sequence[FactRecord]:
    derivation = stand_ins.get(fact)
    return derivation.inputs if derivation is not None else (fact,)


def _computed_rebuilt(
    item: Computed, stand_ins: Mapping[FactRecord, Derivation], label: Label
) -> Computed | CannotCompute | None:
    """The same computation with each stand-in's reference replaced by its derivation's formula,
    evaluated again over the stored inputs alone (the formula text parses back to its tree, as
    `computed_reevaluate` relies on)."""
    if not any(f in stand_ins for f in item.inputs):
        return item
    labels = Labels((qualifier(f) for f in item.inputs), code_label)
    facts = {labels.reference(Ref(f.metric, qualifier(f))): f for f in item.inputs}
    root = formula_parse(item.formula, references=True).root

    def swapped(ref: Ref) -> Node:
        fact = facts[ref.label]
        derivation = stand_ins.get(fact)
        if derivation is None:
            return Ref(fact.metric, qualifier(fact))
        return Group(derivation.node) if isinstance(derivation.node, Chain) else derivation.node

    pool = [g for f in item.inputs for g in _facts_of(f, stand_ins)]
    rebuilt = computed_build(
        item.kind,
        refs_map(root, swapped),
        pool,
        unit=item.unit,
        name=(item.name_zh, item.name_en),
        label=label,
        decimals=item.decimals,
        subject=item.subject,
    )
    if isinstance(rebuilt, Computed) and any(f in stand_ins for f in rebuilt.inputs):
        return None
    return rebuilt


def _disagreement(outcome: CannotCompute, task: SubTask, found: Sequence[Derivation]) -> CannotCompute:
    """The operation refused: `task`'s derivations give different values."""

    def listed(language: str) -> str:
        return ("; " if language == "en" else "；").join(d.computed.formula_words(language) for d in found)

    period = task.period.label
    reason = Reason(
        "derivations_disagree",
        f"{period} 未单独记录，其推算（{listed('zh')}）结果不一致，为避免误导，不据此计算。",
        f"{period} is not stored and its derivations ({listed('en')}) disagree, so nothing is computed from it.",
    )
    inputs = tuple(dict.fromkeys([*outcome.inputs, *(f for d in found for f in d.inputs)]))
    return CannotCompute(outcome.kind, reason, missing=(), inputs=inputs)
