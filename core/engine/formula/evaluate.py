"""Evaluating and rendering formulas: `Decimal` only, formula metrics expanded (a stored value
wins), missing inputs named, a zero divisor "not meaningful" and never an exception; and a tree
written back as text, with the parentheses its precedence needs.

Invariant: a value comes only from the values `resolve` returns and the constants written in the
formula; there is no `eval`, no float and no default for a missing input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import (
    Decimal,
    localcontext,
)

from core.engine.formula.tree import (
    Formula,
    FormulaError,
    Group,
    Negate,
    Node,
    Number,
    Power,
    Ref,
    _level,
    decimal_context,
    node_refs,
    refs_map,
)


@dataclass(frozen=True)
class Evaluation:
    """`value`, or the inputs that are `missing`, or why the result is `not_meaningful`."""

    value: Decimal | None
    missing: tuple[str, ...] = ()  # labels of references without a value, in reading order
    not_meaningful: str | None = None  # e.g. "division by zero: REVENUE = 0"
    problem: Node | None = None  # the zero divisor or undefined power
    expanded: Node | None = None  # the formula with formula metrics expanded (formula_evaluate)
    used: tuple[str, ...] = ()  # codes whose values were used, in order of first appearance

    @property
    def status(self) -> str:
        if self.value is not None:
            return "ok"
        return "missing" if self.missing else "not_meaningful"


class _NotMeaningful(Exception):
    def __init__(self, reason: str, node: Node) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


def node_evaluate(node: Node, resolve: Callable[[Ref], Decimal | None]) -> Evaluation:
    """Evaluate a tree; `resolve` gives each reference's value (None: missing)."""
    values: dict[Ref, Decimal] = {}
    missing: dict[str, None] = {}
    for ref in node_refs(node):
        if ref in values or ref.label in missing:
            continue
        value = resolve(ref)
        if value is None:
            missing[ref.label] = None
        else:
            values[ref] = value
    if missing:
        return Evaluation(None, missing=tuple(missing))
    with localcontext(decimal_context()):
        try:
            return Evaluation(_value(node, values))
        except _NotMeaningful as exc:
            detail = f"{exc.reason}: {formula_render(exc.node)} = {_value(exc.node, values)}"
            return Evaluation(None, not_meaningful=detail, problem=exc.node)


def _value(node: Node, values: Mapping[Ref, Decimal]) -> Decimal:
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Ref):
        return values[node]
    if isinstance(node, Negate):
        return -_value(node.operand, values)
    if isinstance(node, Group):
        return _value(node.inner, values)
    if isinstance(node, Power):
        base, exponent = _value(node.base, values), _value(node.exponent, values)
        if (base < 0 and exponent != exponent.to_integral_value()) or (base == 0 and exponent <= 0):
            raise _NotMeaningful("power not defined", node.base)
        return base**exponent
    total = _value(node.first, values)
    for op, operand in node.rest:
        value = _value(operand, values)
        if op == "+":
            total += value
        elif op == "-":
            total -= value
        elif op == "*":
            total *= value
        elif value == 0:
            raise _NotMeaningful("division by zero", operand)
        else:
            total /= value
    return total + 0  # apply the context (precision) to a single stored value too


def formula_expand(formula: Formula, definitions: Mapping[str, Formula], stored: Callable[[str], bool]) -> Node:
    """The formula with every formula metric it uses replaced by its own formula, recursively.

    A formula metric for which `stored(code)` is true stays a reference: a stored fact wins.
    Raises `FormulaError` on a cycle (which `formulas_check` refuses at import).
    """

    def expand(node: Node, path: tuple[str, ...]) -> Node:
        def replace(ref: Ref) -> Node:
            if ref.code not in definitions or stored(ref.code):
                return ref
            if ref.code in path:
                raise FormulaError("cycle " + " → ".join((*path[path.index(ref.code) :], ref.code)))
            return expand(definitions[ref.code].root, (*path, ref.code))

        return refs_map(node, replace)

    return expand(formula.root, ())


def formula_evaluate(
    formula: Formula,
    resolve: Callable[[str], Decimal | None],
    definitions: Mapping[str, Formula] | None = None,
) -> Evaluation:
    """Evaluate with each code's value from `resolve`; formula metrics without one are expanded."""
    cache: dict[str, Decimal | None] = {}

    def value(code: str) -> Decimal | None:
        if code not in cache:
            cache[code] = resolve(code)
        return cache[code]

    expanded = formula_expand(formula, definitions or {}, lambda code: value(code) is not None)
    evaluation = node_evaluate(expanded, lambda ref: value(ref.code))
    used = tuple(dict.fromkeys(ref.code for ref in node_refs(expanded)))
    return Evaluation(
        evaluation.value,
        missing=evaluation.missing,
        not_meaningful=evaluation.not_meaningful,
        problem=evaluation.problem,
        expanded=expanded,
        used=used,
    )


def formula_render(node: Formula | Node, label: Mapping[str, str] | Callable[[Ref], str] | None = None) -> str:
    """The formula in codes (`OPERATING_PROFIT / REVENUE`) or, given names, in words.

    Parentheses written in the formula are kept; others are added only where precedence needs
    them, so the text parses back to an equal value.
    """
    root = node.root if isinstance(node, Formula) else node
    if label is None:
        return _render(root, _code_label)
    if callable(label):
        return _render(root, label)
    names = label

    def word(ref: Ref) -> str:
        return names.get(ref.code, ref.code) + (f"[{ref.qualifier}]" if ref.qualifier else "")

    return _render(root, word)


def _code_label(ref: Ref) -> str:
    return ref.label


def _render(node: Node, name: Callable[[Ref], str]) -> str:
    def wrapped(child: Node, parens: bool) -> str:
        text = _render(child, name)
        return f"({text})" if parens else text

    if isinstance(node, Number):
        return node.text
    if isinstance(node, Ref):
        return name(node)
    if isinstance(node, Group):
        return f"({_render(node.inner, name)})"
    if isinstance(node, Negate):
        return "-" + wrapped(node.operand, _level(node.operand) < 3)
    if isinstance(node, Power):
        return f"{wrapped(node.base, _level(node.base) <= 4)} ^ {wrapped(node.exponent, _level(node.exponent) < 3)}"
    level = _level(node)
    parts = [wrapped(node.first, _level(node.first) < level)]
    parts.extend(f"{op} {wrapped(operand, _level(operand) <= level)}" for op, operand in node.rest)
    return " ".join(parts)
