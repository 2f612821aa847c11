"""The clauses that define a formula in a question, and what the question asks of it.

A clause: `X is defined as: …`, `X here is defined as …`, `Define X as …`, `X = …`, `X定义为…`,
`X的计算公式为…`, `按…计算`, `（公式：…）`. `clauses_find` takes the text and returns every clause
in reading order, each as its name, the name's span, the formula's span and the whole clause's
span; `asked_term_find` returns what the first sentence asks after its entity and period, for a
clause that defines a pronoun (`it is defined as`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from core.glossary import GlossarySnapshot
from core.language.normalize import compact_view
from core.language.periods import periods_find

# Where a formula's words end: a sentence's end or a comma, but not a comma between a number's
# thousands (`1,000`; `，2025年` after a word is a comma, then a year).
_END = re.compile(r"[.;](?=\s|$)|[?!。？！；，]|(?<![0-9]),|,(?![0-9]{3}(?![0-9]))")
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
_OPENING = re.compile(r"(?:\s|的|之|'s\b|’s\b)*")
_NAME_LEAD = re.compile(r"^(?:and |where |here |then |so |the |a |an |whereas |with )+")
_NAME_TAIL = re.compile(r"\s+(?:here|thus|then)$")
# The words that ask, at the end of what is asked (`…的比值是多少？`, `… ratio is?`).
ASKING_TAIL = re.compile(r"(?:是多少|是几|是什么|为多少|有多少|系几多|几多|多少|是|为|is|was|[?？。!！,，]|\s)+$")


Clause = tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]]


def clauses_find(text: str, trim: Callable[[int, int], int]) -> list[Clause]:
    """Every definition clause, in reading order (see `_clause`)."""
    found: list[Clause] = []
    at = 0
    while at < len(text) and len(found) < _MAX_CLAUSES:
        clause = _clause(text, trim, at)
        if clause is None:
            break
        found.append(clause)
        at = max(clause[3][1], at + 1)
    return found


_MAX_CLAUSES = 8


def _clause(text: str, trim: Callable[[int, int], int], at: int = 0) -> Clause | None:
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


def slots_past(text: str, start: int, end: int, glossary: GlossarySnapshot, reference: date) -> int:
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


def asked_term_find(text: str, glossary: GlossarySnapshot, reference: date) -> tuple[int, int] | None:
    """In the first sentence, what is asked after its entity and period (`what is acme group's
    fy2025 revenue growth index?` → `revenue growth index`), when a pronoun's definition names it."""
    end = _END.search(text)
    stop = end.start() if end is not None else len(text)
    _, positions = compact_view(text[:stop])
    ends = [positions[m.end - 1] + 1 for m in glossary.match(text[:stop]) if m.kind == "entity"]
    ends += [e for _, e, _ in periods_find(text[:stop], reference)]
    if not ends:
        return None
    start = slots_past(text, max(ends), stop, glossary, reference)
    tail = ASKING_TAIL.search(text[start:stop])
    stop = start + tail.start() if tail is not None else stop
    return (start, stop) if stop > start else None


def _sentence_start(text: str, at: int) -> int:
    before = [m.end() for m in re.finditer(r"[.;](?=\s)|[?!。？！；，,]", text[:at])]
    return before[-1] if before else 0
