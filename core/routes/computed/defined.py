"""A formula the question defines, computed exactly as a curated formula metric is.

Takes the intent with its `Definition` (`core.parse.defined`), the glossary, the fact store and
the user's clearance; returns a `ComputedAnswer`: the result, the formula as the analyst wrote
it, the formula in words with each input's period, and every input with its source. A term the
data lacks is named (`missing_inputs`); a part of the formula no rule read is asked back by
name, never answered without it.

Each reference is read for the entity asked at the period its qualifier says (`core.parse.
defined.expression.period_of`); a formula metric inside is expanded as the glossary's own. The
result's unit follows the formula: amounts added or subtracted keep their unit, a quotient of
like amounts is a plain ratio, a percentage asked (`as a % of`, `% margin`, `in percent`) is
shown × 100 with `%`. Units that cannot be added are refused, with the reason.

An amount paid (a cash outflow: capex, dividends paid), stored negative as a cash-flow statement
prints it, enters the analyst's formula as the amount paid; the answer says so, and the formula
shows the sign change, so it re-evaluates from its inputs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from core.engine import CannotCompute, Computed
from core.engine.build import computed_build, missing_inputs
from core.engine.display import RATE_DECIMALS
from core.engine.formula import (
    Chain,
    FormulaError,
    Group,
    Negate,
    Node,
    Number,
    Power,
    Ref,
    formula_parse,
    node_refs,
    refs_map,
)
from core.engine.operands import Operand, Unresolved, comparison_period, fact_ref, operand_resolve
from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord, SubTask
from core.model.intent import Definition, ParsedIntent
from core.model.operation import OP_DIFFERENCE, OP_GROWTH
from core.model.outcome import KIND_FORMULA, UNIT_PCT, UNIT_PP, Reason
from core.model.period import Period
from core.model.registry import KIND_CLARIFICATION, KIND_REFUSAL
from core.parse.defined import DEFINED
from core.parse.defined.expression import period_of
from core.ports import FactStore
from core.routes.computed.answer import ComputedAnswer, Item, assemble
from core.routes.computed.subjects import Reader, paid_metrics, paid_notes

_POINTS_ASKED = re.compile(r"百分点|percentage points?|(?<![a-z])(?:pp|ppts?)(?![a-z])")
_PERCENT_ASKED = re.compile(r"in (?:units of )?percent|as a percentage|in %|百分比|百分数|以%")
_MIXED = object()
_ANY = object()  # a number written in the formula: of the unit of what it is added to


def defined_answer(
    intent: ParsedIntent, *, glossary: GlossarySnapshot, store: FactStore, cleared: bool
) -> ComputedAnswer:
    definition = intent.definition
    assert definition is not None
    language = intent.language
    if definition.unread or not definition.formula:
        return ComputedAnswer(_unread_question(definition, language), KIND_CLARIFICATION)
    operation = intent.operation
    relative = re.search(r"\[(?:-1)?\]", definition.formula) is not None
    if operation is not None and (operation.kind not in (OP_DIFFERENCE, OP_GROWTH) or not relative):
        # a change of a formula whose every year is written would be zero: never answered
        return ComputedAnswer(_operation_refused(definition, operation.cue, language), KIND_REFUSAL)
    paid = paid_metrics(glossary)
    reader = Reader(store, cleared, paid)
    period = intent.period
    assert period is not None
    written = set(re.findall(r"\[([^\[\],]+)\]", definition.formula)) - {"", "-1"}
    if not relative and not definition.over and len(written) == 1 and period.label not in written:
        # the formula is written for one year, and the question asks another: which is meant?
        return ComputedAnswer(_years_conflict(definition, period, sorted(written), language), KIND_CLARIFICATION)
    entities = intent.entities or ((intent.entity,) if intent.entity else ())
    between: tuple[Period, Period] | None = None
    listed = sorted(set(intent.periods), key=lambda p: p.sort_key)
    if operation is not None and len(entities) == 2 and len(listed) <= 1:
        # two entities and one period: the first's figure less the second's
        gap, outflows = _evaluate(definition, entities[0], period, reader, glossary, intent, other=entities[1])
        answer = assemble([Item(gap[0], _asked(definition, entities[0], period, glossary))], glossary, language)
        notes = paid_notes(outflows, paid, glossary, language) if answer.computed else []
        lines = answer.text.split("\n")
        if answer.computed:
            lines = [lines[0], _as_defined(definition, language), *notes, *lines[1:]]
        return replace(answer, text="\n".join(lines))
    if operation is not None:
        between = (
            (listed[0], listed[-1]) if len(listed) > 1 else (comparison_period(period, operation.comparison), period)
        )
    items: list[Item] = []
    notes: list[str] = []
    for entity in entities:
        outcomes, outflows = _evaluate(definition, entity, period, reader, glossary, intent, between)
        asked = _asked(definition, entity, period, glossary)
        items.extend(Item(outcome, asked) for outcome in outcomes)
        if all(isinstance(o, Computed) for o in outcomes):
            notes.extend(paid_notes(outflows, paid, glossary, language))
    for metric in (m for m in intent.metrics if m != DEFINED):  # asked beside the formula: its level
        for entity in entities:
            task = SubTask(metric, entity, period)
            fact = reader(task)
            items.append(Item(fact) if fact is not None else Item(task))
    answer = assemble(items, glossary, language, pending=reader.pending)
    lines = answer.text.split("\n")
    said = _as_defined(definition, language)
    if answer.computed:
        lines = [lines[0], said, *notes, *lines[1:]]
    return replace(answer, text="\n".join(lines))


def _evaluate(
    definition: Definition,
    entity: str,
    period: Period,
    reader: Reader,
    glossary: GlossarySnapshot,
    intent: ParsedIntent,
    between: tuple[Period, Period] | None = None,
    *,
    other: str | None = None,
) -> tuple[list[Computed | CannotCompute], list[FactRecord]]:
    """The formula's value at `period` (averaged over `definition.over` when asked), or, with
    `between`, its change from the first period to the second (and the rate, for a growth), or,
    with `other`, `entity`'s value less `other`'s."""
    try:
        root = formula_parse(definition.formula, references=True).root
    except FormulaError:
        return [_unreadable(definition)], []
    formulas = glossary.formula_metrics
    operands: dict[SubTask, Operand | Unresolved] = {}
    outflows: list[FactRecord] = []

    def at(year: Period, owner: str) -> Node:
        def qualify(ref: Ref) -> Node:
            task = SubTask(ref.code, owner, period_of(ref.qualifier, year))
            if task not in operands:
                operands[task] = operand_resolve(reader, task, formulas)
            operand = operands[task]
            if isinstance(operand, Unresolved):
                return ref
            # an amount paid stored negative arrives as paid (`operand_resolve`); the answer says so
            outflows.extend(f for f in operand.inputs if f.metric in reader.paid and f.value < 0)
            return operand.fraction_node

        return refs_map(root, qualify)

    def figure(at_period: Period, owner: str = entity) -> Node:
        years = [period_of(label, at_period) for label in definition.over] or [at_period]
        nodes = [at(year, owner) for year in years]
        if len(nodes) == 1:
            return nodes[0]
        total = Chain(Group(nodes[0]), tuple(("+", Group(n)) for n in nodes[1:]))
        return Chain(Group(total), (("/", Number(Decimal(len(nodes)), str(len(nodes)))),))

    # every key the formula reads, at every year it runs over, in one read
    asked = [between[0], between[1]] if between is not None else [period]
    years = [period_of(label, p) for p in asked for label in definition.over] or asked
    refs = node_refs(root)
    owners = [entity] if other is None else [entity, other]
    reader.prefetch(
        [SubTask(r.code, e, period_of(r.qualifier, y)) for e in owners for y in years for r in refs], formulas
    )
    if other is not None:
        base = None
        node = Chain(Group(figure(period)), (("-", Group(figure(period, other))),))
    elif between is None:
        node = figure(period)
        base = None
    else:
        base = figure(between[0])
        node = Chain(Group(figure(between[1])), (("-", Group(base)),))
    unresolved = [o for o in operands.values() if isinstance(o, Unresolved)]
    found = tuple(dict.fromkeys(f for o in operands.values() for f in o.inputs))
    if unresolved:
        return [missing_inputs(KIND_FORMULA, unresolved, glossary.display, found)], []
    unit = _unit(node, {fact_ref(f): f.unit for f in found})
    if unit is _MIXED:
        reason = Reason(
            "mixed_units", "公式中相加减的数据单位不一致，无法计算。", "The formula adds figures in different units."
        )
        return [CannotCompute(KIND_FORMULA, reason, inputs=found)], []
    percent = definition.percent or bool(_PERCENT_ASKED.search(intent.normalized))
    shown = UNIT_PCT if percent and unit == "" else str(unit)
    decimals = intent.decimals
    if decimals is None and (shown in ("", UNIT_PCT) or _divides(node)):
        decimals = RATE_DECIMALS
    name = definition.name or definition.written
    names = (name, name)
    if definition.over:
        first, last, n = definition.over[0], definition.over[-1], len(definition.over)
        names = (f"{first}–{last} {n}年平均{name}", f"{n}-year average {name}, {first}–{last}")
    points = False
    if other is not None:
        zh_one, en_one = glossary.display("entity", entity, "zh"), glossary.display("entity", entity, "en")
        zh_two, en_two = glossary.display("entity", other, "zh"), glossary.display("entity", other, "en")
        names = (f"{zh_one}与{zh_two}的{name}之差", f"{name}, {en_one} less {en_two}")
    if between is not None or other is not None:
        if between is not None:
            old, new = between[0].label, between[1].label
            names = (f"{name} {new} 较 {old} 的变动", f"change in {name} from {old} to {new}")
        # a ratio or a percentage changes in percentage points when points or a percentage are asked
        points = shown in ("", UNIT_PCT) and (shown == UNIT_PCT or bool(_POINTS_ASKED.search(intent.normalized)))
        if points:
            node, shown = Chain(Group(node), (("*", Number(Decimal(100), "100")),)), UNIT_PP
    outcome = computed_build(
        KIND_FORMULA, node, found, unit=shown, name=names, label=glossary.display, decimals=decimals, subject=None
    )
    single = between is None and not definition.over
    if single and isinstance(outcome, Computed) and len({f.period for f in outcome.inputs}) > 1:
        outcome = replace(outcome, name_zh=f"{period.label} {name}", name_en=f"{period.label} {name}")
    outcomes: list[Computed | CannotCompute] = [outcome]
    if base is not None and not points and intent.operation is not None and intent.operation.kind == OP_GROWTH:
        rate = Chain(Group(node), (("/", Group(base)),))
        names = (
            f"{name} {between[1].label} 较 {between[0].label} 的增长率",
            f"{name} growth {between[0].label} to {between[1].label}",
        )  # type: ignore[index]
        outcomes.append(
            computed_build(
                KIND_FORMULA,
                rate,
                found,
                unit=UNIT_PCT,
                name=names,
                label=glossary.display,
                decimals=intent.decimals if intent.decimals is not None else RATE_DECIMALS,
                subject=None,
            )
        )
    return outcomes, list(dict.fromkeys(outflows))


def _unit(node: Node, units: dict[tuple[str, str], str]) -> object:
    """The result's unit: a stored unit, "" (a plain number) or `_MIXED` (amounts in two stored
    units added or subtracted). A number or a ratio added to an amount takes the amount's unit."""
    found = _dimension(node, units)
    return "" if found is _ANY else found


def _dimension(node: Node, units: dict[tuple[str, str], str]) -> object:
    if isinstance(node, Number):
        return _ANY
    if isinstance(node, Ref):
        unit = units.get((node.code, node.qualifier), "")
        return "" if unit == UNIT_PCT else unit
    if isinstance(node, (Negate, Group)):
        return _dimension(node.operand if isinstance(node, Negate) else node.inner, units)
    if isinstance(node, Power):
        return ""
    assert isinstance(node, Chain)
    found = [_dimension(node.first, units), *(_dimension(x, units) for _, x in node.rest)]
    if _MIXED in found:
        return _MIXED
    if node.rest[0][0] in "+-":
        # two stored units added (CNY_M + USD_M, an amount + a count) cannot be; a plain number or
        # ratio added to an amount is the analyst's own formula, in the amount's unit
        named = {u for u in found if u is not _ANY and u != ""}
        if len(named) > 1:
            return _MIXED
        return named.pop() if named else "" if "" in found else _ANY
    found = ["" if u is _ANY else u for u in found]
    unit = found[0]
    for (op, _), right in zip(node.rest, found[1:], strict=True):
        if right == "":
            continue
        # a product by a plain number keeps the unit; like units divided cancel; anything else
        # (a product or a quotient of different units) is a plain number
        unit = right if op == "*" and unit == "" else ""
    return unit


def _divides(node: Node) -> bool:
    if isinstance(node, Chain):
        return any(op == "/" for op, _ in node.rest) or _divides(node.first) or any(_divides(x) for _, x in node.rest)
    if isinstance(node, (Negate, Group)):
        return _divides(node.operand if isinstance(node, Negate) else node.inner)
    return False


def _as_defined(definition: Definition, language: str) -> str:
    name = definition.name
    shown = f"{name} = {definition.written}" if name else definition.written
    return f"As you defined it: {shown}" if language == "en" else f"按你的定义：{shown}"


def _asked(definition: Definition, entity: str, period: Period, glossary: GlossarySnapshot) -> tuple[str, str]:
    name = definition.name or definition.written
    return (
        f"{glossary.display('entity', entity, 'zh')} {period.label} {name}",
        f"{glossary.display('entity', entity, 'en')} {period.label} {name}",
    )


def _unread_question(definition: Definition, language: str) -> str:
    words = "、".join(definition.unread) if language != "en" else ", ".join(f"'{w}'" for w in definition.unread)
    name = definition.name or definition.written
    if language == "en":
        return (
            f"The formula for {name} could not be read in full: {words} is not a metric, a period or an "
            "operator I know. Please say it with the glossary's metric names; no figure is given without it."
        )
    return (
        f"未能完整读懂 {name} 的公式：{words} 不是已知的指标、期间或运算。"
        "请用术语表中的指标名称重述；缺少这部分时不提供任何数字。"
    )


def _years_conflict(definition: Definition, period: Period, written: list[str], language: str) -> str:
    name = definition.name or definition.written
    years = ", ".join(written)
    if language == "en":
        return (
            f"The formula for {name} names {years}, but the question asks about {period.label}. "
            f"Which is meant? Write the formula for {period.label}, or ask about {years}."
        )
    return (
        f"{name} 的公式写明了 {years}，而问题问的是 {period.label}。"
        f"请问指哪一个？可按 {period.label} 重写公式，或改问 {years}。"
    )


def _operation_refused(definition: Definition, cue: str, language: str) -> str:
    name = definition.name or definition.written
    if language == "en":
        return (
            f"The question defines {name} and asks '{cue}' of it; only its value, its change and its growth are "
            "computed from a formula the question brings, so no figure is given. Ask for its value."
        )
    return (
        f"问题自带 {name} 的公式，并要求对其“{cue}”；"
        "自带公式只计算其数值、变动额与增长率，因此不提供数字。可改问其数值。"
    )


def _unreadable(definition: Definition) -> CannotCompute:
    reason = Reason(
        "unreadable", f"公式无法读取：{definition.written}", f"The formula cannot be read: {definition.written}"
    )
    return CannotCompute(KIND_FORMULA, reason)
