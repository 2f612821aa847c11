"""From a formula tree over facts to a `Computed`: value, display, labels, names and lineage.

Takes the tree an operator built, the facts it may refer to and the display choices; returns a
`Computed` whose value is the tree evaluated over exactly the facts it lists, or
`CannotCompute` when the tree is undefined (a zero divisor). Also the sentences of every
`Reason`, and `computed_reevaluate`, which recomputes a value from its formula text and inputs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal

from core.engine.display import value_display
from core.engine.formula import Evaluation, Node, Ref, formula_parse, formula_render, node_evaluate, node_refs
from core.engine.operands import Label, Unresolved, code_label, fact_ref, qualifier
from core.model.facts import FactRecord, SubTask
from core.model.outcome import KIND_RANK, CannotCompute, Computed, Reason, sensitivity_max


class Labels:
    """How references read: the period always; entity and channel where they tell inputs apart.

    In codes (`REVENUE[ACME_HK,FY2025]`, what `formula` holds and recomputes from) or in words
    (`ACME香港营业收入 FY2025`, `Hong Kong revenue (online) FY2025`, with `−`, `×`, `÷` for the
    operators), which the answer's formula line and the API's `formula_words` say alike.
    """

    def __init__(self, qualifiers: Iterable[str], label: Label) -> None:
        parts = [q.split(",") for q in qualifiers]
        entities = {p[0] for p in parts}
        channels = {p[2] for p in parts}
        self.entity = len(entities) > 1
        self.channel = len(channels) > 1 or channels != {"TOTAL"}
        self.label = label

    def reference(self, ref: Ref, language: str | None = None) -> str:
        entity, period, channel = ref.qualifier.split(",")
        if language is None:
            shown = [*([entity] if self.entity else []), period, *([channel] if self.channel else [])]
            return f"{ref.code}[{','.join(shown)}]"
        metric = self.label("metric", ref.code, language)
        owner = self.label("entity", entity, language) if self.entity else ""
        where = self.label("channel", channel, language) if self.channel else ""
        if language == "en":
            words = " ".join(x for x in (owner, metric) if x) + (f" ({where})" if where else "")
        else:
            words = owner + metric + (f"（{where}）" if where else "")
        return f"{words} {period}"

    def render(self, node: Node, language: str | None = None) -> str:
        if language is None:
            return formula_render(node, self.reference)
        names: list[str] = []

        def slot(ref: Ref) -> str:  # names go in after the operators are replaced: a name may hold ` - `
            names.append(self.reference(ref, language))
            return f"\x00{len(names) - 1}\x00"

        text = formula_render(node, slot)
        for plain, symbol in _SYMBOLS:
            text = text.replace(plain, symbol)
        text = "−" + text[1:] if text.startswith("-") else text
        return re.sub("\x00([0-9]+)\x00", lambda m: names[int(m.group(1))], text)


_SYMBOLS = ((" - ", " − "), (" / ", " ÷ "), (" * ", " × "))


def describe(task: SubTask, label: Label, language: str, *, entity: bool = True, channel: bool = True) -> str:
    """`ACME香港营业收入（线上）` / `Hong Kong revenue (online)`, naming only what is asked."""
    metric = label("metric", task.metric, language)
    owner = label("entity", task.entity, language) if entity else ""
    shown = channel and task.channel != "TOTAL"
    where = label("channel", task.channel, language) if shown else ""
    if language == "en":
        return " ".join(x for x in (owner, metric) if x) + (f" ({where})" if where else "")
    return owner + metric + (f"（{where}）" if where else "")


def subject_names(tasks: Sequence[SubTask], label: Label, language: str) -> list[str]:
    """What tells `tasks` apart, one name each: the entity, the channel and/or the period."""
    entity = len({t.entity for t in tasks}) > 1
    channel = len({t.channel for t in tasks}) > 1
    period = len({t.period for t in tasks}) > 1 or not (entity or channel)

    def name(t: SubTask) -> str:
        parts = [label("entity", t.entity, language)] if entity else []
        parts += [label("channel", t.channel, language)] if channel else []
        parts += [t.period.label] if period else []
        return " ".join(parts)

    return [name(t) for t in tasks]


def names(make: Callable[[str], str]) -> tuple[str, str]:
    return make("zh"), make("en")


def computed_build(
    kind: str,
    node: Node,
    pool: Iterable[FactRecord],
    *,
    unit: str,
    name: tuple[str, str],
    label: Label,
    decimals: int | None,
    subject: SubTask | None,
) -> Computed | CannotCompute:
    """Evaluate `node` over the facts of `pool` it refers to and describe the result."""
    facts = {fact_ref(f): f for f in pool}
    refs = node_refs(node)
    inputs = tuple(dict.fromkeys(facts[(r.code, r.qualifier)] for r in refs))
    evaluation = node_evaluate(node, lambda ref: facts[(ref.code, ref.qualifier)].value)
    labels = Labels((r.qualifier for r in refs), label)
    if evaluation.value is None:
        return CannotCompute(kind, not_meaningful(evaluation, labels), inputs=inputs)
    return Computed(
        kind=kind,
        name_zh=name[0],
        name_en=name[1],
        formula=labels.render(node),
        formula_zh=labels.render(node, "zh"),
        formula_en=labels.render(node, "en"),
        value=evaluation.value,
        display=value_display(evaluation.value, unit, decimals),
        unit=unit,
        inputs=inputs,
        sensitivity=sensitivity_max(f.sensitivity for f in inputs),
        decimals=decimals,
        subject=subject,
    )


def computed_reevaluate(computed: Computed) -> Decimal | None:
    """The value recomputed from `formula` (the text) and `inputs` alone: an audit of lineage."""
    if computed.kind == KIND_RANK:
        raise ValueError("a rank is an order, not a formula")
    labels = Labels((qualifier(f) for f in computed.inputs), code_label)
    values = {labels.reference(Ref(f.metric, qualifier(f))): f.value for f in computed.inputs}
    root = formula_parse(computed.formula, references=True).root
    return node_evaluate(root, lambda ref: values.get(ref.label)).value


# -- reasons -------------------------------------------------------------------------------


def not_meaningful(evaluation: Evaluation, labels: Labels) -> Reason:
    where = labels.render(evaluation.problem) if evaluation.problem is not None else ""
    if (evaluation.not_meaningful or "").startswith("division by zero"):
        return Reason(
            "not_meaningful", f"分母 {where} 为 0，结果无意义。", f"The divisor {where} is 0; not meaningful."
        )
    return Reason("not_meaningful", f"{where} 不为正，结果无意义。", f"{where} is not positive; not meaningful.")


def missing_inputs(
    kind: str, unresolved: Sequence[Unresolved], label: Label, found: Iterable[FactRecord]
) -> CannotCompute:
    """Refuse for want of inputs, naming each one (the caller renders them as not found)."""
    missing = tuple(dict.fromkeys(t for u in unresolved for t in u.missing))
    problems = [u.problem for u in unresolved if u.problem is not None]
    if not missing and problems:
        return CannotCompute(kind, problems[0], inputs=tuple(found))

    def items(language: str) -> str:
        sep = "; " if language == "en" else "；"
        return sep.join(f"{describe(t, label, language)} {t.period.label}" for t in missing)

    reason = Reason(
        "missing_inputs",
        f"缺少计算所需的数据：{items('zh')}。为避免误导，不提供任何推测数字。",
        f"Missing inputs: {items('en')}. To avoid misleading you, no estimated figure is given.",
    )
    return CannotCompute(kind, reason, missing=missing, inputs=tuple(found))


def mixed_units(kind: str, units: Iterable[str], found: Iterable[FactRecord]) -> CannotCompute:
    shown = ", ".join(dict.fromkeys(units))
    reason = Reason(
        "mixed_units",
        f"单位不一致（{shown}），不能合计或比较。",
        f"The units differ ({shown}), so the figures cannot be added or compared.",
    )
    return CannotCompute(kind, reason, inputs=tuple(found))


def refuse(kind: str, code: str, zh: str, en: str, found: Iterable[FactRecord] = ()) -> CannotCompute:
    return CannotCompute(kind, Reason(code, zh, en), inputs=tuple(found))
