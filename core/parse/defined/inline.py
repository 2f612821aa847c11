"""A formula written inline in a question, with no clause that defines it: metrics joined by an
operator (`operating income + depreciation and amortization`), `X as a % of Y`, `X % margin`,
or `X ratio (using A and B)` (A ÷ B).

Takes the normalised question and the glossary; returns where the formula stands, its reading
in the engine's grammar, the name the question gives it and its words, or None: a lone metric
or a range of periods is no formula. Its periods are the question's own, read by the parser.
"""

from __future__ import annotations

import re
from datetime import date

from core.glossary import GlossarySnapshot
from core.parse.defined.expression import ExpressionError, ExpressionParser, Reading
from core.parse.defined.tokens import Token, tokens_read

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
    tokens = tokens_read(text, glossary, reference)
    for i, tok in enumerate(tokens):
        if tok.kind != "metric":
            continue
        parser = ExpressionParser(tokens, glossary, periods=False)
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


def _ratio_using(text: str, tokens: list[Token]) -> tuple[tuple[int, int], Reading, str, str] | None:
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
