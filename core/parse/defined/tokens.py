"""An analyst's formula in words, cut into tokens for the expression parser.

Takes a stretch of normalised text and the glossary; returns its tokens in reading order: the
metrics and periods where the glossary and the period grammar find them, and between them
numbers, operators and their words (`plus`, `divided by`, `减去`, `除以` …), the words of
`average`, `change`, `between … and`, `as a % of` and `% margin`, and every other word as
written. Words that say nothing about the value (articles, `the amount of`, `期末`) are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view
from core.language.periods import periods_find

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
    r"\s*(?:(?P<number>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)(?![0-9])|"
    r"(?P<op>[-+*/()×÷%−–—])|"
    r"(?P<word>[a-z][a-z'’&-]*|[\u4e00-\u9fff]))"
)


@dataclass(frozen=True)
class Token:
    kind: str  # metric | period | number | op | word | pct_of | margin | average | change | between | and
    text: str
    value: str = ""  # a metric code, a period label, an operator, a number
    start: int = 0  # the token's span in the text read
    end: int = 0


def tokens_read(text: str, glossary: GlossarySnapshot, reference: date) -> list[Token]:
    """Metrics and periods where the glossary and the period grammar find them; operators,
    numbers and words in between; words that say nothing dropped; the words of a known phrase
    (`divided by`, `as a % of`, `change in`) joined."""
    _, positions = compact_view(text)
    spans: list[Token] = []
    for m in glossary.match(text):
        if m.kind == "metric":
            start, end = positions[m.start], positions[m.end - 1] + 1
            spans.append(Token("metric", text[start:end], m.code, start, end))
    for start, end, period in periods_find(text, reference):
        if not any(t.start < end and start < t.end for t in spans):
            spans.append(Token("period", text[start:end], period.label, start, end))
    spans.sort(key=lambda t: t.start)
    out: list[Token] = []
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


def _plain(text: str, at: int, end: int) -> list[Token]:
    out: list[Token] = []
    while at < end:
        if text[at].isspace():
            at += 1
            continue
        rest = text[at:end]
        m = _PERCENT_OF.match(rest) or _MARGIN.match(rest)
        if m is not None:
            kind = "pct_of" if m.re is _PERCENT_OF else "margin"
            out.append(Token(kind, m.group(0), "", at, at + m.end()))
            at += m.end()
            continue
        phrase = next((p for p in _PHRASES if rest.startswith(p[0]) and _ends_word(rest, len(p[0]))), None)
        if phrase is not None:
            word, kind = phrase
            out.append(Token(kind, word, _OPERATOR_WORDS.get(word, ""), at, at + len(word)))
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
            out.append(Token("number", m.group(kind), m.group(kind).replace(",", ""), start, stop))  # 1,000 → 1000
        elif kind == "op":
            op = m.group(kind)
            out.append(Token("op", op, _OPERATOR_WORDS.get(op, op), start, stop))
        else:
            out.append(_word(m.group(kind), start, stop))
    return out


def _ends_word(text: str, length: int) -> bool:
    if not text[:length].isascii():
        return True
    return length == len(text) or not text[length].isalpha()


def _word(word: str, start: int, end: int) -> Token:
    if word in _OPERATOR_WORDS:
        return Token("op", word, _OPERATOR_WORDS[word], start, end)
    if word in _BETWEEN_WORDS:
        return Token("between", word, "", start, end)
    if word in _AND_WORDS:
        return Token("and", word, "", start, end)
    return Token("word", word, "", start, end)


def words_joined(tokens: list[Token]) -> list[str]:
    """Adjacent word tokens joined as written (`员工人数`, not `员、工、人、数`)."""
    out: list[list[Token]] = []
    for tok in tokens:
        if out and not tok.text.isascii() and not out[-1][-1].text.isascii() and out[-1][-1].end == tok.start:
            out[-1].append(tok)
        else:
            out.append([tok])
    return ["".join(t.text for t in group) for group in out]
