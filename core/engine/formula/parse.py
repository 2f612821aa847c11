"""Parsing and checking formulas: text to a `Formula` tree, and a glossary's formulas checked
per code for syntax errors, unknown codes and cycles (`A → B → A`), so an importer can reject
rows with their row numbers. `references=True` reads the engine's own qualified references
(`REVENUE[FY2025]`) and powers `^`, which curator formulas may not use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from decimal import (
    Decimal,
)

from core.engine.formula.evaluate import node_evaluate
from core.engine.formula.tree import (
    MAX_DEPTH,
    Chain,
    Formula,
    FormulaError,
    Group,
    Negate,
    Node,
    Number,
    Power,
    Ref,
    node_refs,
)

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
