"""The formula tree: frozen nodes (numbers, references, chains, negation, power, groups), the
`Decimal` context every evaluation uses, `FormulaError`, and walks over a tree (its references,
whether it divides, a copy with references replaced).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)

# Significant digits of every intermediate result (IEEE decimal128). Sums, differences and
# products of stored values are exact; a quotient or a power is correctly rounded to this many
# digits (a power with a fractional exponent is "almost always" correctly rounded, see the
# `decimal` docs), far below any displayed precision.
PRECISION = 34
MAX_DEPTH = 64


def decimal_context() -> Context:
    return Context(prec=PRECISION, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow])


class FormulaError(ValueError):
    """A formula that cannot be used; the message names the column where there is one."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True)
class Number:
    value: Decimal
    text: str


@dataclass(frozen=True)
class Ref:
    """A metric code; `qualifier` (entity, period, channel) only in computed formulas."""

    code: str
    qualifier: str = ""
    column: int = field(default=0, compare=False)

    @property
    def label(self) -> str:
        return f"{self.code}[{self.qualifier}]" if self.qualifier else self.code


@dataclass(frozen=True)
class Negate:
    operand: Node


@dataclass(frozen=True)
class Chain:
    """`first op1 x1 op2 x2 …`, left to right; the operators are all `+ -` or all `* /`."""

    first: Node
    rest: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class Power:
    base: Node
    exponent: Node


@dataclass(frozen=True)
class Group:
    """Parentheses as written; kept so that rendering gives back what the curator wrote."""

    inner: Node


Node = Number | Ref | Negate | Chain | Power | Group


@dataclass(frozen=True)
class Formula:
    text: str
    root: Node
    codes: tuple[str, ...]  # metric codes used, in order of first appearance


def _level(node: Node) -> int:
    """Binding strength: `+ -` chain 1, `* /` chain 2, unary minus 3, power 4, atoms 5."""
    if isinstance(node, Chain):
        return 1 if node.rest[0][0] in "+-" else 2
    if isinstance(node, Negate):
        return 3
    return 4 if isinstance(node, Power) else 5


def node_refs(node: Node) -> list[Ref]:
    """Every reference, in reading order (repeats included)."""
    out: list[Ref] = []
    stack: list[Node] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Ref):
            out.append(item)
        elif isinstance(item, Negate):
            stack.append(item.operand)
        elif isinstance(item, Group):
            stack.append(item.inner)
        elif isinstance(item, Power):
            stack.extend((item.exponent, item.base))
        elif isinstance(item, Chain):
            stack.extend(operand for _, operand in reversed(item.rest))
            stack.append(item.first)
    return out


def node_has_division(node: Node) -> bool:
    """True when the value may be rounded: a quotient or a power anywhere in the tree."""
    if isinstance(node, Chain):
        operands = (node.first, *(x for _, x in node.rest))
        return any(op == "/" for op, _ in node.rest) or any(node_has_division(x) for x in operands)
    if isinstance(node, Negate):
        return node_has_division(node.operand)
    if isinstance(node, Group):
        return node_has_division(node.inner)
    return isinstance(node, Power)


def refs_map(node: Node, replace: Callable[[Ref], Node]) -> Node:
    """The same tree with every reference replaced."""
    if isinstance(node, Ref):
        return replace(node)
    if isinstance(node, Negate):
        return Negate(refs_map(node.operand, replace))
    if isinstance(node, Group):
        return Group(refs_map(node.inner, replace))
    if isinstance(node, Power):
        return Power(refs_map(node.base, replace), refs_map(node.exponent, replace))
    if isinstance(node, Chain):
        return Chain(refs_map(node.first, replace), tuple((op, refs_map(x, replace)) for op, x in node.rest))
    return node
