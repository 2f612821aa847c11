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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view
from core.language.periods import periods_find
from core.model.types import OP_AVERAGE, ROUTE_STRUCTURED, Definition, ParsedIntent, Period
from core.parse.defined.expression import (
    ExpressionError,
    Reading,
    expression_read,
    inline_find,
    revenue_code,
    words_start,
)

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
# Where a formula's words end: a sentence's end or a comma (not a thousands separator).
_END = re.compile(r"[.;](?=\s|$)|[?!。？！；，]|,(?![0-9]{3})")
_EN_CLAUSE = re.compile(
    r"(?:(?P<name>[a-z0-9(][^.?!;:=]{0,80}?)\s+(?:is|are)\s+(?:here\s+)?(?:defined|calculated|computed|measured)"
    r"\s+as\b|\bdefine\s+(?P<name2>[^.?!;:=]{1,80}?)\s+as\b)\s*:?\s*"
)
_EQUALS = re.compile(r"(?P<name>[a-z\u4e00-\u9fff][a-z0-9\u4e00-\u9fff &()'-]{0,60}?)\s*=\s*")
_ZH_CLAUSE = re.compile(
    r"(?P<name>[a-z0-9\u4e00-\u9fff]{1,24}?)的?(?:定义为|定义是|计算公式为|计算公式是|公式为|公式是|"
    r"计算方法为|等于)\s*[:：]?\s*"
)
_ZH_BY = re.compile(r"(?<![\u4e00-\u9fff])?按(?:照)?(?P<expr>[^，。？！；]{2,120}?)(?:来)?(?:计算|算)")
_FORMULA_NOTE = re.compile(r"[(（]\s*(?:公式|formula)\s*[:：]\s*(?P<expr>[^()（）]+?)\s*[)）]")
_AVERAGE_OVER = re.compile(
    r"(?:\b(?P<n>[0-9]+|two|three|four|five)[- ]years?|(?P<zh>[0-9两三四五])年)[- ]?(?:average|平均)"
)
# `… (unadjusted ebitda)`, past a frame (`from the cash flow statement`, blanked) or a unit
_NAME_AFTER = re.compile(
    r"(?:\s|\b(?:from|in|per|on|of|the|as shown|shown|usd|rmb|cny|millions|billions|thousands)\b)*"
    r"\(\s*([^()]{1,40}?)\s*\)"
)
_MARGIN_AFTER = re.compile(r"\s*(?:%|percent)\s*margin\b|\s*margin\s*%?|\s*(?:利润)?率(?![\u4e00-\u9fff])")
_OPENING = re.compile(r"(?:\s|的|之|'s\b|’s\b)*")
_PRONOUN = re.compile(r"it|this|that|this (?:ratio|metric|measure)|它|其|该指标|这个指标|此指标")
_NAME_LEAD = re.compile(r"^(?:and |where |here |then |so |the |a |an |whereas |with )+")
_NAME_TAIL = re.compile(r"\s+(?:here|thus|then)$")


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
    clauses = _clauses(text, lambda start, end: _past_slots(text, start, end, glossary, reference))
    if clauses:
        masked = spans_blanked(text, [c[3] for c in clauses])
        # several definitions (`define A as …; define B as A / revenue`): each later one may use an
        # earlier one's name, read as its formula; the one the question asks answers it
        defined: list[tuple[str, str]] = []
        for clause_name, _, expr_span, _ in clauses:
            words = text[expr_span[0] : expr_span[1]].strip()
            for earlier, earlier_words in defined:
                words = _name_replaced(words, earlier, f"({earlier_words})")
            defined.append((_name_in(clause_name, masked) if clause_name else clause_name, words))
        asked_names = [(n, w) for n, w in defined if n and _name_spans(masked, n)]
        name, written = asked_names[-1] if asked_names else defined[-1]
        if _PRONOUN.fullmatch(name):  # `it is defined as`: what the question asks is defined
            asked = _asked_term(masked, glossary, reference)
            if asked is not None:
                name = masked[asked[0] : asked[1]]
                masked = spans_blanked(masked, [asked])
            definition = _definition(name if asked else "", written, glossary, reference, masked)
            return DefinedQuestion(definition, masked, True)
        name = _name_in(name, masked)
        found = _name_spans(masked, name)
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
    named, name_span = _parenthetical_after(text, end)
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


_Clause = tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]]


def _clauses(text: str, trim: Callable[[int, int], int]) -> list[_Clause]:
    """Every definition clause, in reading order (see `_clause`)."""
    found: list[_Clause] = []
    at = 0
    while at < len(text) and len(found) < _MAX_CLAUSES:
        clause = _clause(text, trim, at)
        if clause is None:
            break
        found.append(clause)
        at = max(clause[3][1], at + 1)
    return found


_MAX_CLAUSES = 8


def _name_replaced(words: str, name: str, by: str) -> str:
    bound = r"(?<![a-z0-9])" if name[:1].isascii() else ""
    tail = r"(?![a-z0-9])" if name[-1:].isascii() else ""
    return re.sub(bound + re.escape(name) + tail, lambda m: by, words) if name else words


def _clause(text: str, trim: Callable[[int, int], int], at: int = 0) -> _Clause | None:
    """(name, name span, formula span, whole clause span) of the first definition clause from
    `at`; `trim` moves a name's start past the entity and period it begins with (`苹果2019年的流动比率`)."""
    matches: list[tuple[int, re.Pattern[str], re.Match[str]]] = []
    for pattern in (_FORMULA_NOTE, _ZH_BY, _EN_CLAUSE, _ZH_CLAUSE, _EQUALS):
        m = pattern.search(text, at)
        if m is not None:
            matches.append((m.start(), pattern, m))
    for _, pattern, m in sorted(matches, key=lambda item: item[0]):
        if pattern in (_FORMULA_NOTE, _ZH_BY):
            return "", (m.start(), m.start()), m.span("expr"), m.span()
        group = "name2" if pattern is _EN_CLAUSE and m.group("name2") else "name"
        # `define X as`: X begins after `define`; otherwise the name runs from its sentence's start
        begin = m.start(group) if group == "name2" else max(at, _sentence_start(text, m.start(group)))
        start = trim(begin, m.end(group))
        name = _NAME_TAIL.sub("", _NAME_LEAD.sub("", text[start : m.end(group)].strip()))
        end = _END.search(text, m.end())
        stop = end.start() if end is not None else len(text)
        if stop <= m.end():
            continue
        return name, (start, m.end(group)), (m.end(), stop), (start, end.end() if end is not None else len(text))
    return None


def _past_slots(text: str, start: int, end: int, glossary: GlossarySnapshot, reference: date) -> int:
    """`start` moved past the entities, periods, possessives and particles that open text[start:end]."""
    while True:
        stretch = text[start:end]
        lead = _OPENING.match(stretch)
        if lead is not None and lead.end():
            start += lead.end()
            continue
        _, positions = compact_view(stretch)
        taken = [
            positions[m.end - 1] + 1 for m in glossary.match(stretch) if m.kind == "entity" and positions[m.start] == 0
        ]
        taken += [e for s, e, _ in periods_find(stretch, reference) if s == 0]
        if not taken or max(taken) >= len(stretch):
            return start
        start += max(taken)


# The words that ask, at the end of what is asked (`…的比值是多少？`, `… ratio is?`).
ASKING_TAIL = re.compile(r"(?:是多少|是几|是什么|为多少|有多少|系几多|几多|多少|是|为|is|was|[?？。!！,，]|\s)+$")


def _asked_term(text: str, glossary: GlossarySnapshot, reference: date) -> tuple[int, int] | None:
    """In the first sentence, what is asked after its entity and period (`what is acme group's
    fy2025 revenue growth index?` → `revenue growth index`), when a pronoun's definition names it."""
    end = _END.search(text)
    stop = end.start() if end is not None else len(text)
    _, positions = compact_view(text[:stop])
    ends = [positions[m.end - 1] + 1 for m in glossary.match(text[:stop]) if m.kind == "entity"]
    ends += [e for _, e, _ in periods_find(text[:stop], reference)]
    if not ends:
        return None
    start = _past_slots(text, max(ends), stop, glossary, reference)
    tail = ASKING_TAIL.search(text[start:stop])
    stop = start + tail.start() if tail is not None else stop
    return (start, stop) if stop > start else None


def _sentence_start(text: str, at: int) -> int:
    before = [m.end() for m in re.finditer(r"[.;](?=\s)|[?!。？！；，,]", text[:at])]
    return before[-1] if before else 0


def _name_in(name: str, rest: str) -> str:
    """The longest ending of the clause's name that the rest of the question says (`苹果流动比率`
    → `流动比率` when the question asks for 流动比率); the whole name when it says none."""
    if not name:
        return name
    words = name.split(" ") if name.isascii() else list(name)
    joiner = " " if name.isascii() else ""
    for i in range(len(words)):
        tail = joiner.join(words[i:])
        if tail and _name_spans(rest, tail):
            return tail
    return name


def _name_spans(text: str, name: str) -> list[tuple[int, int]]:
    """Each place `text` says `name`; with the words a parenthetical name abbreviates
    (`days payable outstanding (dpo)`)."""
    if not name:
        return []
    bound = r"(?<![a-z0-9])" if name[0].isascii() else ""
    tail = r"(?![a-z0-9])" if name[-1].isascii() else ""
    spans = []
    for m in re.finditer(bound + re.escape(name) + tail, text):
        start, end = m.span()
        if text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")"):
            start = words_start(text, text[:start].rstrip().rfind("("))
            end = text.index(")", end) + 1
        spans.append((start, end))
    return spans


def _parenthetical_after(text: str, end: int) -> tuple[str, tuple[int, int] | None]:
    m = _NAME_AFTER.match(text, end)
    if m is None:
        return "", None
    return m.group(1), m.span()


def spans_blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span replaced by spaces (its length kept, so positions stay valid)."""
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            chars[i] = " "
    return "".join(chars)


DEFINED = "DEFINED"  # the metric slot of a question that defines its own formula


def definition_apply(rest: ParsedIntent, definition: Definition, normalized: str) -> ParsedIntent:
    """The intent of the question's other words with the formula as what is asked: its metric
    slot `DEFINED`, the structured route, no glossary operation (the formula is the operation),
    and the period the formula's own years end in when the question names none."""
    period = rest.period
    if period is None and definition.over:
        period = Period("FY", definition.over[-1][2:])
    if period is None:
        written = [label for label in re.findall(r"\[(FY[0-9]{4})\]", definition.formula)]
        period = Period("FY", max(written)[2:]) if written else None
    term = rest.unknown_metric or ""
    definition = replace(
        definition,
        name=_as_written(definition.name or term, rest.raw_question),  # `it is defined as`: the term asked
        written=_as_written(definition.written, rest.raw_question),
    )
    operation = rest.operation
    if operation is not None and (operation.cue in term or (definition.over and operation.kind == OP_AVERAGE)):
        operation = None  # a word of the term defined (`revenue growth index`), or the average it runs
    label = definition.name or definition.written
    reason = (
        f"依据：问题自带的公式 {label}" if rest.language != "en" else f"based on: the question's own formula {label}"
    )
    return replace(
        rest,
        normalized=normalized,
        metric=DEFINED,
        metrics=(DEFINED, *rest.metrics),  # a metric asked beside the formula is answered too
        period=period,
        periods=rest.periods or ((period,) if period else ()),
        route=ROUTE_STRUCTURED,
        parts=(),
        operation=operation,
        unknown_metric=None,
        unrecognized_terms=(),
        definition=definition,
        routing=replace(rest.routing, confidence=1.0, reason=reason),
    )


def _as_written(text: str, question: str) -> str:
    """`text` (normalised) as the question writes it, capitals kept (`dpo` → `DPO`), when the
    question holds it with only case and spacing changed; else `text`."""
    if not text or not text.isascii():
        return text
    pattern = r"\s*".join(re.escape(part) for part in text.split())
    m = re.search(pattern, question, flags=re.IGNORECASE)
    return m.group(0) if m is not None else text
