"""A formula the question brings: defined in a clause of its own, or written inline.

Takes the normalised question, the glossary and the reference date; returns a `Definition`
(the analyst's name and words for it, the formula in the engine's reference grammar, whether
it is a percentage, the words no rule read) and the question with the formula's words blanked
out, which the rest of the parser reads for the entity, the period and the rounding. Or None,
when the question brings no formula.

A definition clause: `X is defined as: …`, `X here is defined as …`, `Define X as …`, `X = …`,
`X定义为…`, `X的计算公式为…`, `按…计算`, `（公式：…）`. Inline: metrics joined by operators
(`operating income + depreciation and amortization`), `X as a % of Y`, `X % margin`, `X ratio
(using A and B)` (A ÷ B). `N year average` with a range of years (`FY2019 - FY2021 3 year
average …`) averages the formula over each year of the range.

The statement a figure is read from (`cash flow statement`, `balance sheet`, `现金流量表` …) is
a frame, never a metric's words (`statement_spans`).

The clauses are found by `clauses`, the inline forms by `inline`; `expression` reads a
formula's words (cut into tokens by `tokens`), `names` finds the name the question asks by, and
`applied` makes the intent that asks for the formula.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.periods import periods_find
from core.model.intent import Definition
from core.parse.defined.applied import DEFINED, definition_apply
from core.parse.defined.clauses import ASKING_TAIL, asked_term_find, clauses_find, slots_past
from core.parse.defined.expression import ExpressionError, Reading, expression_read, revenue_code
from core.parse.defined.inline import inline_find
from core.parse.defined.names import name_in, name_replaced, name_spans, parenthetical_after

__all__ = [
    "ASKING_TAIL",
    "DEFINED",
    "DefinedQuestion",
    "definition_apply",
    "definition_read",
    "spans_blanked",
    "statement_spans",
]

_STATEMENTS = re.compile(
    r"(?:consolidated )?(?:statements? of (?:cash flows?|income|operations|earnings|comprehensive income|"
    r"financial position)|cash ?flows? statements?|income statements?|balance sheets?|p ?& ?l(?: statement)?|"
    r"profit and loss(?: statement| account)?|现金流量表|利润表|损益表|资产负债表)"
)
_AVERAGE_OVER = re.compile(
    r"(?:\b(?P<n>[0-9]+|two|three|four|five)[- ]years?|(?P<zh>[0-9两三四五])年)[- ]?(?:average|平均)"
)
_MARGIN_AFTER = re.compile(r"\s*(?:%|percent)\s*margin\b|\s*margin\s*%?|\s*(?:利润)?率(?![\u4e00-\u9fff])")
_PRONOUN = re.compile(r"it|this|that|this (?:ratio|metric|measure)|它|其|该指标|这个指标|此指标")


@dataclass(frozen=True)
class DefinedQuestion:
    definition: Definition
    masked: str  # the question with the formula's words blanked (same length)
    named: bool  # the question's own words name what the formula defines


def statement_spans(normalized: str) -> list[tuple[int, int]]:
    """Where the question names a financial statement (a frame: where to read, not what)."""
    return [m.span() for m in _STATEMENTS.finditer(normalized)]


def definition_read(normalized: str, glossary: GlossarySnapshot, reference: date) -> DefinedQuestion | None:
    """The formula the question brings, or None (see the module's docstring)."""
    text = spans_blanked(normalized, statement_spans(normalized))
    clauses = clauses_find(text, lambda start, end: slots_past(text, start, end, glossary, reference))
    if clauses:
        masked = spans_blanked(text, [c[3] for c in clauses])
        # several definitions (`define A as …; define B as A / revenue`): each later one may use an
        # earlier one's name, read as its formula; the one the question asks answers it
        defined: list[tuple[str, str]] = []
        for clause_name, _, expr_span, _ in clauses:
            words = text[expr_span[0] : expr_span[1]].strip()
            for earlier, earlier_words in defined:
                words = name_replaced(words, earlier, f"({earlier_words})")
            defined.append((name_in(clause_name, masked) if clause_name else clause_name, words))
        asked_names = [(n, w) for n, w in defined if n and name_spans(masked, n)]
        name, written = asked_names[-1] if asked_names else defined[-1]
        if _PRONOUN.fullmatch(name):  # `it is defined as`: what the question asks is defined
            asked = asked_term_find(masked, glossary, reference)
            if asked is not None:
                name = masked[asked[0] : asked[1]]
                masked = spans_blanked(masked, [asked])
            definition = _definition(name if asked else "", written, glossary, reference, masked)
            return DefinedQuestion(definition, masked, True)
        name = name_in(name, masked)
        found = name_spans(masked, name)
        margins = [m.span() for _, end in found if (m := _MARGIN_AFTER.match(masked, end)) is not None]
        masked = spans_blanked(masked, found + margins)
        definition = _definition(name, written, glossary, reference, masked)
        if margins and definition.formula:
            definition = _as_margin(definition, glossary)
        return DefinedQuestion(definition, masked, bool(found))
    inline = inline_find(text, glossary, reference)
    if inline is None:
        return None
    (start, end), reading, name, written = inline
    named, name_span = parenthetical_after(text, end)
    name = named or name
    spans = [(start, name_span[1] if name_span else end)]
    masked = spans_blanked(text, spans)
    definition = _with_average(Definition(name, written, reading.formula, reading.percent), masked, reference)
    return DefinedQuestion(definition, masked, True)


def _as_margin(definition: Definition, glossary: GlossarySnapshot) -> Definition:
    """`EBITDA % margin` of a defined EBITDA: the formula over revenue, as a percentage."""
    revenue = revenue_code(glossary)
    if revenue is None:
        return replace(definition, formula="", unread=("margin",))
    formula = f"({definition.formula}) / {revenue}[]"
    name = f"{definition.name} % margin" if definition.name.isascii() else f"{definition.name}率"
    return replace(definition, name=name, formula=formula, percent=True)


def _definition(name: str, written: str, glossary: GlossarySnapshot, reference: date, masked: str) -> Definition:
    try:
        reading: Reading = expression_read(written, glossary, reference)
    except ExpressionError as exc:
        return Definition(name, written, "", unread=exc.unread or (written[:32],))
    return _with_average(Definition(name, written, reading.formula, reading.percent), masked, reference)


def _with_average(definition: Definition, masked: str, reference: date) -> Definition:
    """`FY2019 - FY2021 3 year average …`: the formula averaged over each year of the range."""
    if _AVERAGE_OVER.search(masked) is None:
        return definition
    years = sorted({p.year for _, _, p in periods_find(masked, reference) if p.period_type == "FY"})
    if len(years) < 2:
        return definition
    over = tuple(f"FY{year}" for year in range(years[0], years[-1] + 1))
    return Definition(definition.name, definition.written, definition.formula, definition.percent, over=over)


def spans_blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span replaced by spaces (its length kept, so positions stay valid)."""
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            chars[i] = " "
    return "".join(chars)
