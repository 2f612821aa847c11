"""An analyst's formula read into the engine's formula grammar.

Takes a stretch of normalised text that states a formula in words or symbols (`365 * (average
accounts payable between fy2018 and fy2019) / (fy2019 cogs + change in inventory between fy2018
and fy2019)`, `流动资产合计除以流动负债合计`) and the glossary; returns the formula as text in the
engine's reference grammar (`core.engine.formula`, `references=True`), where a metric's qualifier
is the period it is taken at: `REVENUE[FY2019]` (a period written), `REVENUE[]` (the period the
question asks), `REVENUE[-1]` (the fiscal year before it). The words that no rule reads are
returned too, so that the question is asked back naming them, never answered without them.
The words are cut into tokens by `core.parse.defined.tokens`; a formula written inline in a
question is found by `core.parse.defined.inline`.

Terms: glossary metrics, numbers, `+ - * / × ÷`, parentheses and their words (plus, minus, less,
times, multiplied by, divided by, 加, 减去, 乘以, 除以 …); a period before or after a metric;
`average X between P1 and P2` (the mean of the two values), `change in X between P1 and P2`
(the later less the earlier), either without periods (the year asked and the year before);
`X % margin` (X ÷ revenue) and `X as a % of Y` (X ÷ Y), which also make the result a percentage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from core.glossary import GlossarySnapshot
from core.model.period import Period
from core.parse.defined.tokens import Token, tokens_read, words_joined

# The qualifiers of a reference: the period written, the one asked, the year before it.
ASKED = ""
YEAR_BEFORE = "-1"


class ExpressionError(ValueError):
    """A formula that cannot be read; `unread` holds the words no rule took."""

    def __init__(self, message: str, unread: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.unread = unread


@dataclass
class Reading:
    """A formula read: its text in the engine's grammar, whether it is a percentage, and the
    metric codes it uses."""

    formula: str
    percent: bool = False
    codes: list[str] = field(default_factory=list)


def expression_read(text: str, glossary: GlossarySnapshot, reference: date) -> Reading:
    """`text` (normalised) as a formula; raises `ExpressionError` naming what it could not read."""
    tokens = tokens_read(text, glossary, reference)
    if not any(t.kind == "metric" for t in tokens):
        raise ExpressionError("no metric in the formula", tuple(words_joined([t for t in tokens if t.kind == "word"])))
    parser = ExpressionParser(tokens, glossary)
    formula = parser.parse()
    return Reading(formula, parser.percent, parser.codes)


class ExpressionParser:
    """expr := mul (('+'|'-') mul)* ; mul := unary (('*'|'/') unary)* ; unary := '-' unary | atom ;
    atom := '(' expr ')' | number | term ; term := [period] [average|change] metric [range] [period]
    [margin] [as a % of term]."""

    def __init__(self, tokens: list[Token], glossary: GlossarySnapshot, *, periods: bool = True) -> None:
        self.tokens = tokens
        self.periods = periods  # inline in a question, its periods are the question's own
        self.glossary = glossary
        self.i = 0
        self.percent = False
        self.codes: list[str] = []

    def peek(self, kind: str | None = None, value: str | None = None) -> Token | None:
        if self.i >= len(self.tokens):
            return None
        tok = self.tokens[self.i]
        if kind is not None and tok.kind != kind:
            return None
        if value is not None and tok.value != value:
            return None
        return tok

    def take(self, kind: str, value: str | None = None) -> Token | None:
        tok = self.peek(kind, value)
        if tok is not None:
            self.i += 1
        return tok

    def unread(self) -> ExpressionError:
        """The words from where reading stopped: the first unread stretch, as written."""
        rest = self.tokens[self.i :]
        words = words_joined([t for t in rest if t.kind == "word"] or rest)
        return ExpressionError("unread part of the formula", tuple(words[:2]) or ("…",))

    def parse(self) -> str:
        formula = self.expr()
        if self.i < len(self.tokens):
            raise self.unread()
        return formula

    def expr(self) -> str:
        out = self.mul()
        while (tok := self.peek("op")) is not None and tok.value in "+-":
            right = self.operand(self.mul)
            if right is None:
                break
            out += f" {tok.value} {right}"
        return out

    def mul(self) -> str:
        out = self.unary()
        while (tok := self.peek("op")) is not None and tok.value in "*/":
            right = self.operand(self.unary)
            if right is None:
                break
            out += f" {tok.value} {right}"
        return out

    def operand(self, read: Callable[[], str]) -> str | None:
        """The operand after an operator. Inline in a question, an operator followed by no term
        (`… as a % of revenue minus verizon's`) ends the formula before it; in a definition it is
        an unread part."""
        start = self.i
        self.i += 1
        try:
            return read()
        except ExpressionError:
            if self.periods:
                raise
            self.i = start
            return None

    def unary(self) -> str:
        if self.take("op", "-"):
            return "-" + self.unary()
        return self.atom()

    def atom(self) -> str:
        if self.take("op", "("):
            inner = self.expr()
            if not self.take("op", ")"):
                raise self.unread()
            return inner if _enclosed(inner) else f"({inner})"
        number = self.take("number")
        if number is not None:
            return number.value
        return self.term()

    def take_period(self) -> Token | None:
        return self.take("period") if self.periods else None

    def term(self) -> str:
        """[periods] [average|change] metric [range] [period] [average|change] [margin | as a % of term]."""
        before = self.periods_listed()
        kind = "level"
        if self.take("average"):
            kind = "average"
        elif self.take("change"):
            kind = "change"
        before = before or self.periods_listed()
        metric = self.take("metric")
        if metric is None:
            raise self.unread()
        self.codes.append(metric.value)
        code = metric.value
        span = self.range()
        after = self.take_period()
        if kind == "level" and (self.take("average") or self.take("change")):  # `总资产的平均值`, `存货变动`
            kind = self.tokens[self.i - 1].kind
        at = ASKED
        if len(before) == 1 or after is not None:
            at = (after or before[0]).value
        if len(before) == 2 and span is None:
            span = (before[0].value, before[1].value)
        if kind == "average":
            first, last = span or (YEAR_BEFORE, at)
            text = f"(({code}[{first}] + {code}[{last}]) / 2)"
        elif kind == "change":
            first, last = span or (YEAR_BEFORE, at)
            text = f"({code}[{last}] - {code}[{first}])"
        elif len(before) > 1 or span is not None:
            raise self.unread()  # two periods named for one figure: which one is not said
        else:
            text = f"{code}[{at}]"
        if self.take("margin"):
            self.percent = True
            revenue = revenue_code(self.glossary)
            if revenue is None:
                raise ExpressionError("no revenue metric for a margin", ("margin",))
            self.codes.append(revenue)
            return f"({text} / {revenue}[{at}])"
        if self.take("pct_of"):
            self.percent = True
            return f"({text} / {self.term()})"
        return text

    def periods_listed(self) -> list[Token]:
        """`fy2019`, or `2018财年和2019财年` (two periods a figure is averaged or changed between)."""
        first = self.take_period()
        if first is None:
            return []
        start = self.i
        if self.take("and") is not None:
            second = self.take_period()
            if second is not None:
                return sorted([first, second], key=lambda t: _period_order(t.value))
        self.i = start
        return [first]

    def range(self) -> tuple[str, str] | None:
        """`between fy2018 and fy2019`, `from fy2018 to fy2019`, `for fy2018 and fy2019`."""
        if not self.periods:
            return None
        start = self.i
        self.take("between")
        first = self.take("period")
        if first is not None and self.take("and") is not None:
            last = self.take("period")
            if last is not None:
                return tuple(sorted((first.value, last.value), key=_period_order))  # type: ignore[return-value]
        self.i = start
        return None

    def skip_words(self, *words: str) -> None:
        while (tok := self.peek("word")) is not None and tok.text in words:
            self.i += 1


def _enclosed(text: str) -> bool:
    """Whether one pair of parentheses encloses all of `text` (`(a + b)`, not `(a) / (b)`)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def _period_order(label: str) -> tuple[int, str]:
    digits = re.search(r"[0-9]{4}", label)
    return (int(digits.group(0)) if digits else 0, label)


_REVENUE_WORDS = ("revenue", "营业收入", "total revenue", "revenues", "营收", "net sales", "sales")


def revenue_code(glossary: GlossarySnapshot) -> str | None:
    """The metric the glossary calls revenue, which a margin divides by."""
    for word in _REVENUE_WORDS:
        code = glossary.resolve("metric", word)
        if code is not None:
            return code
    return None


def period_of(qualifier: str, asked: Period) -> Period:
    """The period a reference's qualifier stands for, given the period the question asks."""
    if qualifier == ASKED:
        return asked
    if qualifier == YEAR_BEFORE:
        return Period(asked.period_type, f"{asked.year - 1}{asked.period[4:]}")
    if qualifier.startswith("FY"):
        return Period("FY", qualifier[2:])
    return Period("QUARTER" if "Q" in qualifier else "HY", qualifier)
