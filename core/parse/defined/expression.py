"""An analyst's formula read into the engine's formula grammar.

Takes a stretch of normalised text that states a formula in words or symbols (`365 * (average
accounts payable between fy2018 and fy2019) / (fy2019 cogs + change in inventory between fy2018
and fy2019)`, `流动资产合计除以流动负债合计`) and the glossary; returns the formula as text in the
engine's reference grammar (`core.engine.formula`, `references=True`), where a metric's qualifier
is the period it is taken at: `REVENUE[FY2019]` (a period written), `REVENUE[]` (the period the
question asks), `REVENUE[-1]` (the fiscal year before it). The words that no rule reads are
returned too, so that the question is asked back naming them, never answered without them.

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
from core.language.normalize import compact_view
from core.language.periods import periods_find
from core.model.types import Period

# The qualifiers of a reference: the period written, the one asked, the year before it.
ASKED = ""
YEAR_BEFORE = "-1"

_OPERATOR_WORDS = {
    "plus": "+",
    "minus": "-",
    "less": "-",
    "times": "*",
    "multiplied by": "*",
    "divided by": "/",
    "over": "/",
    "加上": "+",
    "加": "+",
    "减去": "-",
    "减": "-",
    "乘以": "*",
    "乘": "*",
    "除以": "/",
    "×": "*",
    "÷": "/",
    "x": "*",
    "−": "-",
    "–": "-",
    "—": "-",
}
_AVERAGE_WORDS = ("average", "avg", "mean", "平均值", "平均数", "平均")
_CHANGE_WORDS = (
    "year-over-year change",
    "year over year change",
    "change",
    "变动额",
    "变动",
    "变化额",
    "变化",
    "增加额",
)
_BETWEEN_WORDS = ("between", "from", "从", "在")
_AND_WORDS = ("and", "to", "through", "至", "到", "和", "与", "及")
_PERCENT_OF = re.compile(r"as an? (?:%|percent|percentage|share) of|as % of|% of")
_MARGIN = re.compile(r"(?:%|percent) ?margin|margin ?%")
# Words that say nothing about the value: articles, possessives, `the amount of`, `total` before
# a name the glossary already holds whole, the statement an item is read from.
_FILLER = re.compile(
    r"^(?:the|a|an|of|in|'s|’s|s|for|its|value|values|amount|amounts|figure|figures|balance|balances|"
    r"year-end|year end|ending|reported|as reported|total)$"
)

# Chinese words that say nothing about the value (the amount of, at the year end, a particle).
_FILLER_ZH = ("合计数", "数额", "金额", "余额", "期末", "年末", "的", "之")
_TOKEN = re.compile(
    r"\s*(?:(?P<number>[0-9]+(?:\.[0-9]+)?)(?![0-9])|(?P<op>[-+*/()×÷%−–—])|"
    r"(?P<word>[a-z][a-z'’&-]*|[\u4e00-\u9fff]))"
)


class ExpressionError(ValueError):
    """A formula that cannot be read; `unread` holds the words no rule took."""

    def __init__(self, message: str, unread: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.unread = unread


@dataclass(frozen=True)
class _Tok:
    kind: str  # metric | period | number | op | word | pct_of | margin | average | change | between | and
    text: str
    value: str = ""  # a metric code, a period label, an operator, a number
    start: int = 0  # the token's span in the text read
    end: int = 0


@dataclass
class Reading:
    """A formula read: its text in the engine's grammar, whether it is a percentage, and the
    metric codes it uses."""

    formula: str
    percent: bool = False
    codes: list[str] = field(default_factory=list)


def expression_read(text: str, glossary: GlossarySnapshot, reference: date) -> Reading:
    """`text` (normalised) as a formula; raises `ExpressionError` naming what it could not read."""
    tokens = _tokens(text, glossary, reference)
    if not any(t.kind == "metric" for t in tokens):
        raise ExpressionError("no metric in the formula", tuple(_stretches([t for t in tokens if t.kind == "word"])))
    parser = _Parser(tokens, glossary)
    formula = parser.parse()
    return Reading(formula, parser.percent, parser.codes)


def _tokens(text: str, glossary: GlossarySnapshot, reference: date) -> list[_Tok]:
    """Metrics and periods where the glossary and the period grammar find them; operators,
    numbers and words in between; words that say nothing dropped; the words of a known phrase
    (`divided by`, `as a % of`, `change in`) joined."""
    _, positions = compact_view(text)
    spans: list[_Tok] = []
    for m in glossary.match(text):
        if m.kind == "metric":
            start, end = positions[m.start], positions[m.end - 1] + 1
            spans.append(_Tok("metric", text[start:end], m.code, start, end))
    for start, end, period in periods_find(text, reference):
        if not any(t.start < end and start < t.end for t in spans):
            spans.append(_Tok("period", text[start:end], period.label, start, end))
    spans.sort(key=lambda t: t.start)
    out: list[_Tok] = []
    at = 0
    for tok in spans:
        out.extend(_plain(text, at, tok.start))
        out.append(tok)
        at = tok.end
    out.extend(_plain(text, at, len(text)))
    return [t for t in out if t.kind != "filler" and not (t.kind == "word" and _FILLER.match(t.text))]


_PHRASES = sorted(
    [
        *((w, "op") for w in _OPERATOR_WORDS if " " in w or not w.isascii()),
        *((w, "average") for w in _AVERAGE_WORDS),
        *((w, "change") for w in _CHANGE_WORDS),
        *((w, "filler") for w in _FILLER_ZH),
    ],
    key=lambda item: -len(item[0]),
)


def _plain(text: str, at: int, end: int) -> list[_Tok]:
    out: list[_Tok] = []
    while at < end:
        if text[at].isspace():
            at += 1
            continue
        rest = text[at:end]
        m = _PERCENT_OF.match(rest) or _MARGIN.match(rest)
        if m is not None:
            kind = "pct_of" if m.re is _PERCENT_OF else "margin"
            out.append(_Tok(kind, m.group(0), "", at, at + m.end()))
            at += m.end()
            continue
        phrase = next((p for p in _PHRASES if rest.startswith(p[0]) and _ends_word(rest, len(p[0]))), None)
        if phrase is not None:
            word, kind = phrase
            out.append(_Tok(kind, word, _OPERATOR_WORDS.get(word, ""), at, at + len(word)))
            at += len(word)
            continue
        m = _TOKEN.match(rest)
        if m is None or not m.group(0).strip():  # punctuation that says nothing (`:`, `,`, quotes)
            at += 1
            continue
        kind = m.lastgroup or "word"
        start, stop = at + m.start(kind), at + m.end(kind)
        at += m.end()
        if kind == "number":
            out.append(_Tok("number", m.group(kind), m.group(kind), start, stop))
        elif kind == "op":
            op = m.group(kind)
            out.append(_Tok("op", op, _OPERATOR_WORDS.get(op, op), start, stop))
        else:
            out.append(_word(m.group(kind), start, stop))
    return out


def _ends_word(text: str, length: int) -> bool:
    if not text[:length].isascii():
        return True
    return length == len(text) or not text[length].isalpha()


def _word(word: str, start: int, end: int) -> _Tok:
    if word in _OPERATOR_WORDS:
        return _Tok("op", word, _OPERATOR_WORDS[word], start, end)
    if word in _BETWEEN_WORDS:
        return _Tok("between", word, "", start, end)
    if word in _AND_WORDS:
        return _Tok("and", word, "", start, end)
    return _Tok("word", word, "", start, end)


class _Parser:
    """expr := mul (('+'|'-') mul)* ; mul := unary (('*'|'/') unary)* ; unary := '-' unary | atom ;
    atom := '(' expr ')' | number | term ; term := [period] [average|change] metric [range] [period]
    [margin] [as a % of term]."""

    def __init__(self, tokens: list[_Tok], glossary: GlossarySnapshot, *, periods: bool = True) -> None:
        self.tokens = tokens
        self.periods = periods  # inline in a question, its periods are the question's own
        self.glossary = glossary
        self.i = 0
        self.percent = False
        self.codes: list[str] = []

    def peek(self, kind: str | None = None, value: str | None = None) -> _Tok | None:
        if self.i >= len(self.tokens):
            return None
        tok = self.tokens[self.i]
        if kind is not None and tok.kind != kind:
            return None
        if value is not None and tok.value != value:
            return None
        return tok

    def take(self, kind: str, value: str | None = None) -> _Tok | None:
        tok = self.peek(kind, value)
        if tok is not None:
            self.i += 1
        return tok

    def unread(self) -> ExpressionError:
        """The words from where reading stopped: the first unread stretch, as written."""
        rest = self.tokens[self.i :]
        words = _stretches([t for t in rest if t.kind == "word"] or rest)
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

    def take_period(self) -> _Tok | None:
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

    def periods_listed(self) -> list[_Tok]:
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


def _stretches(tokens: list[_Tok]) -> list[str]:
    """Adjacent word tokens joined as written (`员工人数`, not `员、工、人、数`)."""
    out: list[list[_Tok]] = []
    for tok in tokens:
        if out and not tok.text.isascii() and not out[-1][-1].text.isascii() and out[-1][-1].end == tok.start:
            out[-1].append(tok)
        else:
            out.append([tok])
    return ["".join(t.text for t in group) for group in out]


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


# Words without which no formula is written inline (a cheap test before any reading).
_MAY_BE_INLINE = re.compile(
    r"[-+*/×÷%−–]|plus|minus|less|times|multiplied|divided|over|margin|percent|ratio|加|减|乘|除|比率"
)
_RATIO_USING = ("using", "with", "based", "on", "用", "以")


def inline_find(
    text: str, glossary: GlossarySnapshot, reference: date
) -> tuple[tuple[int, int], Reading, str, str] | None:
    """A formula written inline in the question: `(start, end)`, the reading, the name the
    question gives it (`x ratio (using a and b)`) and the formula in its words, or None.
    Metrics joined by an operator, `X as a % of Y` and `X % margin` are formulas; a lone metric
    or a period range is not."""
    if _MAY_BE_INLINE.search(text) is None:
        return None
    tokens = _tokens(text, glossary, reference)
    for i, tok in enumerate(tokens):
        if tok.kind != "metric":
            continue
        parser = _Parser(tokens, glossary, periods=False)
        parser.i = i
        try:
            formula = parser.expr()
        except ExpressionError:
            continue
        used = tokens[i : parser.i]
        joined = sum(t.kind == "metric" for t in used) >= 2 and any(t.kind == "op" for t in used)
        if joined or parser.percent:
            start, end = used[0].start, used[-1].end
            return (start, end), Reading(formula, parser.percent, parser.codes), "", text[start:end]
    return _ratio_using(text, tokens)


def _ratio_using(text: str, tokens: list[_Tok]) -> tuple[tuple[int, int], Reading, str, str] | None:
    """`dividend payout ratio (using total cash dividends paid and net income)`: the first named
    over the second."""
    kinds = [t.kind for t in tokens]
    for i, tok in enumerate(tokens):
        if tok.kind != "word" or tok.text not in ("ratio", "比率", "比"):
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].value == "(":
            j += 1
        said = j
        while j < len(tokens) and tokens[j].kind in ("word", "between") and tokens[j].text in _RATIO_USING:
            j += 1
        if j == said or kinds[j : j + 3] != ["metric", "and", "metric"]:
            continue
        first, second = tokens[j], tokens[j + 2]
        end = second.end
        if j + 3 < len(tokens) and tokens[j + 3].value == ")":
            end = tokens[j + 3].end
        start = words_start(text, tok.start)
        reading = Reading(f"{first.value}[] / {second.value}[]", False, [first.value, second.value])
        return (start, end), reading, text[start : tok.end], f"{first.text} / {second.text}"
    return None


_STOP = re.compile(r"^(?:the|is|was|are|what|what's|whats|a|an|for|in|of|and|how|much|many|its)$")


def words_start(text: str, at: int) -> int:
    """Where the plain words before `at` begin (`days payable outstanding` before `(dpo)`): back
    over lower-case words to a stop (an article, a verb, a possessive, a year)."""
    start = at
    for m in reversed(list(re.finditer(r"\S+", text[:at]))):
        if not re.fullmatch(r"[a-z][a-z&-]*", m.group(0)) or _STOP.match(m.group(0)):
            break
        start = m.start()
    return start
