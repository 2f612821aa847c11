"""Formula metrics: parse, check, expand, evaluate and render curator formulas.

Takes the text of the glossary's `formula` column, an arithmetic expression over metric codes
(`OPERATING_PROFIT / REVENUE`, `(M024-M025)/M024`) with `+ - * /`, unary minus, parentheses and
decimal constants. Returns a `Formula`: an AST of frozen nodes and the codes it uses.
`formulas_check` refuses syntax errors, unknown codes and cycles (`A → B → A`) per code, so an
importer can reject rows with their row numbers. `formula_evaluate` computes with `Decimal`
only (precision `PRECISION`), expands formula metrics used inside (a stored value wins), names
missing inputs and treats a zero divisor as "not meaningful", never as an exception.

Invariant: a value comes only from the values `resolve` returns and the constants written in the
formula; there is no `eval`, no float and no default for a missing input.

The computation engine (`core.engine`) also renders its own formulas with this grammar,
extended (`references=True`) by qualified references `REVENUE[FY2025]` and a power `^`, so that
every computed value can be re-evaluated from its formula text and its inputs. Curator formulas
may use neither.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
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


# -- the tree ------------------------------------------------------------------------------


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


# -- parsing -------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<number>[0-9]+(?:\.[0-9]+)?)|(?P<code>[A-Z][A-Z0-9_]*)|(?P<op>[-+*/()^\[])|(?P<bad>\S))")
_QUALIFIER = re.compile(r"\[([^\[\]]*)\]")


class _Parser:
    def __init__(self, text: str, references: bool) -> None:
        self.text = text
        self.references = references
        self.tokens: list[tuple[str, str, int]] = []  # kind, text, 1-based column
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:  # only trailing whitespace is left
                break
            kind = m.lastgroup or "bad"
            value = m.group(kind)
            column = m.start(kind) + 1
            pos = m.end()
            if kind == "code" and references and text.startswith("[", pos):
                q = _QUALIFIER.match(text, pos)
                if q is None:
                    raise FormulaError(f"unclosed '[' at column {pos + 1}", pos + 1)
                value, pos = value + q.group(0), q.end()
            self.tokens.append((kind, value, column))
        self.end = len(text.rstrip()) + 1
        self.i = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "", self.end)

    def unexpected(self) -> FormulaError:
        kind, value, column = self.peek()
        if kind == "end":
            return FormulaError(f"unexpected end of formula at column {column}", column)
        return FormulaError(f"unexpected '{value}' at column {column}", column)

    def parse(self) -> Node:
        if not self.tokens:
            raise FormulaError("empty formula")
        node = self.expr(0)
        if self.i < len(self.tokens):
            raise self.unexpected()
        return node

    def chain(self, ops: str, operand: Callable[[int], Node], depth: int) -> Node:
        first = operand(depth)
        rest: list[tuple[str, Node]] = []
        while self.peek()[0] == "op" and self.peek()[1] in ops:
            _, op, column = self.peek()
            self.i += 1
            right = operand(depth)
            if op == "/" and _constant(right) == 0:
                raise FormulaError(f"division by a constant zero at column {column}", column)
            rest.append((op, right))
        return Chain(first, tuple(rest)) if rest else first

    def expr(self, depth: int) -> Node:
        return self.chain("+-", self.term, depth)

    def term(self, depth: int) -> Node:
        return self.chain("*/", self.unary, depth)

    def unary(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise FormulaError(f"formula nested too deeply at column {self.peek()[2]}", self.peek()[2])
        if self.peek()[:2] == ("op", "-"):
            self.i += 1
            return Negate(self.unary(depth + 1))
        base = self.primary(depth)
        if self.references and self.peek()[:2] == ("op", "^"):
            self.i += 1
            return Power(base, self.unary(depth + 1))
        return base

    def primary(self, depth: int) -> Node:
        kind, value, column = self.peek()
        if kind == "number":
            self.i += 1
            return Number(Decimal(value), value)
        if kind == "code":
            self.i += 1
            code, _, qualifier = value.partition("[")
            return Ref(code, qualifier[:-1], column)
        if (kind, value) == ("op", "("):
            self.i += 1
            inner = self.expr(depth + 1)
            if self.peek()[:2] != ("op", ")"):
                if self.peek()[0] == "end":
                    raise FormulaError(f"missing ')' for '(' at column {column}", column)
                raise self.unexpected()
            self.i += 1
            return Group(inner)
        raise self.unexpected()


def _constant(node: Node) -> Decimal | None:
    """The value of a subexpression without references, or None."""
    if node_refs(node):
        return None
    return node_evaluate(node, lambda ref: None).value


def formula_parse(text: str, *, known_codes: Collection[str] | None = None, references: bool = False) -> Formula:
    """Parse a formula; raise `FormulaError` with the column of the first problem."""
    root = _Parser(text, references).parse()
    refs = node_refs(root)
    if not refs:
        raise FormulaError("formula uses no metric code")
    if known_codes is not None:
        for ref in refs:
            if ref.code not in known_codes:
                raise FormulaError(f"unknown metric code {ref.code} at column {ref.column}", ref.column)
    return Formula(text, root, tuple(dict.fromkeys(ref.code for ref in refs)))


def formulas_check(definitions: Mapping[str, str], known_codes: Iterable[str]) -> dict[str, str]:
    """Every formula metric that cannot be used, with the reason; `{}` when all are usable.

    A code is known if it is a stored metric or a formula metric. A formula is refused for a
    syntax error, an unknown code, a cycle (`cycle A → B → A`), or because it uses a refused
    formula metric, so every code left out of the result expands fully to stored metrics.
    """
    known = set(known_codes) | set(definitions)
    errors: dict[str, str] = {}
    parsed: dict[str, Formula] = {}
    for code, text in definitions.items():
        try:
            parsed[code] = formula_parse(text, known_codes=known)
        except FormulaError as exc:
            errors[code] = exc.message
    edges = {code: [c for c in f.codes if c in definitions] for code, f in parsed.items()}
    for code in parsed:
        cycle = _shortest_cycle(code, edges)
        if cycle:
            errors[code] = "cycle " + " → ".join(cycle)
    changed = True
    while changed:
        changed = False
        for code in parsed:
            bad = next((c for c in edges[code] if c in errors), None) if code not in errors else None
            if bad is not None:
                errors[code] = f"uses {bad}, which has an error"
                changed = True
    return {code: errors[code] for code in definitions if code in errors}


def _shortest_cycle(start: str, edges: Mapping[str, list[str]]) -> list[str] | None:
    """`[start, …, start]` along the fewest edges, or None when no path returns to `start`."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for code in frontier:
            for nxt in edges.get(code, ()):
                if nxt == start:
                    path = [code]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt not in previous:
                    previous[nxt] = code
                    following.append(nxt)
        frontier = following
    return None


# -- evaluation ----------------------------------------------------------------------------


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


# -- rendering -----------------------------------------------------------------------------


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
