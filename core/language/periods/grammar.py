"""The period grammar's rules: which pattern builds which period, tried most specific first.

Takes normalised text and a reference date; `periods_find` returns the periods it names with
their spans in reading order, `periods_unread` the stretches of time no period type holds,
`periods_cumulative` those that are the first three quarters of a year, `periods_assumed` the
periods named without a year (read as the latest complete ones, see `years`), and `period_parse`
reads a string that is exactly one period.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

from core.language.normalize import text_normalize
from core.language.periods.builders import (
    _UNREAD,
    Builder,
    _en_first,
    _en_quarter_list,
    _first_quarters,
    _last_n,
    _months,
    _quarter_list,
    _quarter_number,
    _quarter_range,
    _rel_year,
    _unread,
    _with_year,
    _year_of,
    _year_range,
)
from core.language.periods.calendar import (
    _current_quarter,
    _fy,
    _hy,
    _previous_quarter,
    _qtr,
    _year_period,
)
from core.language.periods.patterns import (
    _ANY_YEAR,
    _BAD_HALF,
    _BAD_MONTH,
    _BAD_QUARTER,
    _EACH_QUARTER,
    _EN_END_BEFORE,
    _EN_FIRST_N,
    _EN_HALF,
    _EN_LAST_N,
    _EN_OF_YEAR,
    _EN_QUARTER,
    _EN_QUARTER_LIST,
    _EN_START_BEFORE,
    _EN_UNREAD,
    _EN_WHOLE_YEAR,
    _EN_YEAR_JOIN,
    _END_AFTER,
    _FIRST_MONTHS,
    _FIRST_QUARTERS,
    _HALF,
    _HALF_LIST,
    _LAST_N,
    _MONTHS,
    _NOT_A_QUANTITY,
    _ONE_MONTH,
    _ORDINAL,
    _QUARTER,
    _QUARTER_LIST,
    _QUARTER_RANGE,
    _RECENT,
    _REL_YEAR,
    _RELATIVE_MONTH,
    _SHIFT_BACK_RE,
    _SHORT_YEAR,
    _START_AFTER,
    _WHOLE_YEAR,
    _YEAR,
    _YEAR_END,
    _YEAR_PREFIX,
    _YEAR_RANGE,
    _YEAR_START,
)
from core.language.periods.years import IMPLIED, NAMED, RELATIVE, Found, years_settle
from core.model.period import Period


def _both_halves(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """`上、下半年`, `上下半年`: both halves of the year named (else this year's)."""
    year = _year_of(m, ref)
    return None if year is None else (_hy(year, "h1"), _hy(year, "h2"))


_RULES: list[tuple[re.Pattern[str], Builder, str]] = [
    (_SHIFT_BACK_RE, _unread, NAMED),
    (re.compile(_YEAR_RANGE), _year_range, NAMED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_QUARTER_RANGE}"), _quarter_range, NAMED),
    (re.compile(rf"{_QUARTER_RANGE}\s?(?:of\s)?(?:fy\s?)?{_YEAR}"), _quarter_range, NAMED),
    (re.compile(_QUARTER_RANGE), _quarter_range, IMPLIED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_QUARTER_LIST}"), _quarter_list, NAMED),
    (re.compile(_QUARTER_LIST), _quarter_list, IMPLIED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_HALF_LIST}"), _both_halves, NAMED),
    (re.compile(_HALF_LIST), _both_halves, IMPLIED),
    (re.compile(rf"{_EN_QUARTER_LIST}{_EN_YEAR_JOIN}\s?{_YEAR}"), _en_quarter_list, NAMED),
    (re.compile(_EN_QUARTER_LIST), _en_quarter_list, IMPLIED),
    (re.compile(rf"{_EN_FIRST_N}{_EN_YEAR_JOIN}\s?{_YEAR}"), _en_first, NAMED),
    (re.compile(_EN_FIRST_N), _en_first, IMPLIED),
    (re.compile(_LAST_N), _last_n, RELATIVE),
    (re.compile(_EN_LAST_N), _last_n, RELATIVE),
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _MONTHS), _months, NAMED),
    (re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _MONTHS), _months, NAMED),
    (re.compile(_MONTHS), _months, IMPLIED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_FIRST_MONTHS}"), _months, NAMED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_FIRST_QUARTERS}"), _first_quarters, NAMED),
    (re.compile(_FIRST_QUARTERS), _first_quarters, IMPLIED),
    (re.compile(rf"(?:{_BAD_QUARTER}|{_BAD_HALF})\s?(?:fy\s?)?{_ANY_YEAR}"), _unread, NAMED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?(?:{_BAD_QUARTER}|{_BAD_HALF})"), _unread, NAMED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?(?:{_BAD_MONTH}|{_ONE_MONTH})"), _unread, NAMED),
    (re.compile(_RELATIVE_MONTH), _unread, NAMED),
    (re.compile(_RECENT), _unread, NAMED),
    (re.compile(rf"{_EN_UNREAD}(?:(?: of)?(?: fy)?\s?{_ANY_YEAR})?"), _unread, NAMED),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_WHOLE_YEAR}"), _with_year(lambda y, m: _fy(y)), NAMED),
    (re.compile(rf"{_EN_WHOLE_YEAR}{_EN_YEAR_JOIN}\s?{_YEAR}"), _with_year(lambda y, m: _fy(y)), NAMED),
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _HALF), lambda m, r: _hy(_rel_year(m, r), m.group("half")), NAMED),
    (
        re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _QUARTER),
        lambda m, r: _qtr(_rel_year(m, r), _quarter_number(m)),
        NAMED,
    ),
    (
        re.compile(r"(?<![a-z])(?:last|previous|prior) (?:fiscal )?year(?![a-z])"),
        lambda m, r: _fy(r.year - 1),
        NAMED,
    ),
    (re.compile(r"(?<![a-z])(?:this|current) (?:fiscal )?year(?![a-z])"), lambda m, r: _fy(r.year), NAMED),
    (re.compile(r"(?<![a-z])(?:last|previous|prior) quarter(?![a-z])"), lambda m, r: _previous_quarter(r), RELATIVE),
    (
        re.compile(r"(?<![a-z])(?:this|current) quarter(?![a-z])"),
        lambda m, r: _qtr(r.year, _current_quarter(r)),
        RELATIVE,
    ),
    (
        re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _HALF),
        _with_year(lambda year, m: _hy(year, m.group("half"))),
        NAMED,
    ),
    (
        re.compile(r"(?<![a-z])(?P<half>h1|h2)\s?(?:" + _YEAR + r"|fy\s?'?(?P<yy>[0-9]{2})(?![0-9]))"),
        _with_year(lambda year, m: _hy(year, m.group("half"))),
        NAMED,
    ),
    (
        re.compile(_EN_HALF + _EN_OF_YEAR),
        _with_year(lambda year, m: _hy(year, "h2" if _ORDINAL[m.group("ord")] == 2 else "h1")),
        NAMED,
    ),
    (
        re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _QUARTER),
        _with_year(lambda year, m: _qtr(year, _quarter_number(m))),
        NAMED,
    ),
    (
        re.compile(r"(?<![a-z])q(?P<q1>[1-4])\s?(?:(?:fy\s?)?" + _YEAR + r"|fy\s?'?(?P<yy>[0-9]{2})(?![0-9]))"),
        _with_year(lambda year, m: _qtr(year, int(m.group("q1")))),
        NAMED,
    ),
    (
        re.compile(_EN_QUARTER + _EN_OF_YEAR),
        _with_year(lambda year, m: _qtr(year, _ORDINAL[m.group("ord")])),
        NAMED,
    ),
    (
        re.compile(r"(?<![a-z0-9])fy\s?'?(?P<fy>[0-9]{4}|[0-9]{2})(?![0-9])"),
        lambda m, r: _year_period(m.group("fy"), r),
        NAMED,
    ),
    (
        re.compile(r"(?<![a-z])fiscal (?:year )?" + _YEAR),
        lambda m, r: _fy(int(m.group("year"))),
        NAMED,
    ),
    (
        re.compile(_YEAR + r"\s?(?:财政年度|会计年度|财年|年度|年)"),
        lambda m, r: _fy(int(m.group("year"))),
        NAMED,
    ),
    (re.compile(_SHORT_YEAR), _with_year(lambda year, m: _fy(year)), NAMED),
    (re.compile(r"本财年|本年度"), lambda m, r: _fy(r.year), NAMED),
    (re.compile(r"上一?财年|上年度"), lambda m, r: _fy(r.year - 1), NAMED),
    (re.compile(_REL_YEAR), lambda m, r: _fy(_rel_year(m, r)), NAMED),
    (re.compile(r"本季度?|这个?季度|当季"), lambda m, r: _qtr(r.year, _current_quarter(r)), RELATIVE),
    (re.compile(r"上一?个?季度"), lambda m, r: _previous_quarter(r), RELATIVE),
    (re.compile(r"(?<![0-9])" + _HALF + r"(?![0-9])"), lambda m, r: _hy(r.year, m.group("half")), IMPLIED),
    (re.compile(_QUARTER + r"(?![0-9])"), lambda m, r: _qtr(r.year, _quarter_number(m)), IMPLIED),
    (
        re.compile(_EN_HALF + r"(?![a-z])"),
        lambda m, r: _hy(r.year, "h2" if _ORDINAL[m.group("ord")] == 2 else "h1"),
        IMPLIED,
    ),
    (re.compile(_EN_QUARTER + r"(?![a-z])"), lambda m, r: _qtr(r.year, _ORDINAL[m.group("ord")]), IMPLIED),
    (re.compile(rf"{_WHOLE_YEAR}|{_EN_WHOLE_YEAR}|{_YEAR_END}"), lambda m, r: _fy(r.year), IMPLIED),
    (re.compile(_YEAR_START), _unread, NAMED),
    (re.compile(_YEAR + _NOT_A_QUANTITY), lambda m, r: _fy(int(m.group("year"))), NAMED),
]


@lru_cache(maxsize=1024)
def _claim(text: str, reference: date) -> tuple[Found, ...]:
    """Rules are tried most specific first; a span claimed by one rule is not reused (remembered:
    the parser asks for a question's periods and for its unread stretches of time)."""
    claimed: list[Found] = []
    for pattern, build, year in _RULES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < c_end and c_start < end for c_start, c_end, _, _ in claimed):
                continue
            built = build(m, reference)
            # a range claims one span for every period of it, in order
            for period in (built,) if isinstance(built, Period) else built or ():
                claimed.append((start, end, period, year))
    return tuple(_each_quarter(text, _edges(text, sorted(claimed, key=lambda item: item[0]))))


def _edges(text: str, claimed: list[Found]) -> list[Found]:
    """A period with the words of its end (`2025年末`, `第三季度末`, `the end of 2025`) is the
    period; with the words of its start (`2025年初`, `the beginning of 2025`) it is a stretch no
    period type holds, asked back. A range is left as it is."""
    spans = [(start, end) for start, end, _, _ in claimed]
    edged: list[Found] = []
    for start, end, period, year in claimed:
        if period == _UNREAD or spans.count((start, end)) > 1:
            edged.append((start, end, period, year))
            continue
        new_start, new_end, read = start, end, period
        after = _END_AFTER[period.period_type].match(text, end)
        starts = _START_AFTER.match(text, end)
        before = _EN_END_BEFORE.search(text[:start]) or _EN_START_BEFORE.search(text[:start])
        if after is not None:
            new_end = after.end()
        elif starts is not None:
            new_end, read = starts.end(), _UNREAD
        if before is not None:
            new_start = before.start()
            read = _UNREAD if before.re is _EN_START_BEFORE else read
        free = all(e <= new_start or new_end <= s for s, e in spans if (s, e) != (start, end))
        edged.append((new_start, new_end, read, year) if free else (start, end, period, year))
    return edged


def _each_quarter(text: str, claimed: list[Found]) -> list[Found]:
    """`2025年每个季度`, `近三年各季度`, `quarterly`: each year named stands for its four quarters."""
    if _EACH_QUARTER.search(text) is None:
        return claimed
    expanded: list[Found] = []
    for start, end, period, year in claimed:
        if period.period_type == "FY":
            expanded.extend((start, end, _qtr(period.year, q), year) for q in range(1, 5))
        else:
            expanded.append((start, end, period, year))
    return expanded


@lru_cache(maxsize=1024)
def _settled(text: str, reference: date) -> tuple[tuple[Found, ...], tuple[Found, ...]]:
    periods, stretches = years_settle(text, list(_claim(text, reference)), reference)
    return tuple(periods), tuple(stretches)


def periods_find(text: str, reference: date) -> list[tuple[int, int, Period]]:
    """Every period named in normalised `text`, as `(start, end, period)` in reading order.

    A quarter or a half named without a year takes the year of its list or sentence, else it is
    the latest complete such period at `reference` (see `years`). A stretch no period type holds
    is left out (see `periods_unread`).
    """
    return [(start, end, period) for start, end, period, _ in _settled(text, reference)[0]]


def periods_cumulative(text: str, reference: date) -> list[tuple[int, int, tuple[Period, ...]]]:
    """The unread stretches of normalised `text` that are a sum of quarters from the start of the
    year (`2025年前三季度`, `1-9月` → Q1, Q2, Q3), as `(start, end, quarters)`: a derived period,
    answered as the sum of its quarters with the formula and the inputs. Without a year it is the
    latest year whose Q3 is over."""
    return [(start, end, _first_three(q3)) for start, end, q3, _ in _settled(text, reference)[1]]


def _first_three(q3: Period) -> tuple[Period, ...]:
    return tuple(_qtr(q3.year, q) for q in (1, 2, 3))


def periods_assumed(text: str, reference: date) -> list[tuple[int, int, tuple[Period, ...]]]:
    """The periods normalised `text` names without a year, none named in their sentence or list to
    take one from (`第四季度`, `上半年`, `前三季度`, `H1`, `Q3`), as `(start, end, periods)` in reading
    order: each is the latest complete such period at `reference`, an assumption to be said."""
    periods, stretches = _settled(text, reference)
    found = [(start, end, (period,)) for start, end, period, year in periods if year == IMPLIED]
    found += [(start, end, _first_three(q3)) for start, end, q3, year in stretches if year == IMPLIED]
    spans: dict[tuple[int, int], tuple[Period, ...]] = {}
    for start, end, named in sorted(found, key=lambda item: item[0]):
        spans[(start, end)] = spans.get((start, end), ()) + named
    return [(start, end, named) for (start, end), named in spans.items()]


def periods_unread(text: str, reference: date) -> list[tuple[int, int, str]]:
    """Every stretch of time in normalised `text` that the grammar recognises but no period type
    (FY, H1/H2, Q1–Q4) holds, as `(start, end, words)`: `前三季度`, `1-9月`, `3月`, `Q5`, `第五季度`,
    `13月`, `YTD`. A question naming one must be asked back, never answered for the year."""
    return [(start, end, text[start:end].strip()) for start, end, p, _ in _claim(text, reference) if p == _UNREAD]


def period_parse(text: str, reference: date | None = None) -> Period | None:
    """Parse a string that is exactly one period (`FY2025`, `2025H1`, `2025年`, `去年` …)."""
    normalized = text_normalize(text)
    if not normalized:
        return None
    found = periods_find(normalized, reference or date.today())
    if len(found) != 1:
        return None
    start, end, period = found[0]
    rest = (normalized[:start] + normalized[end:]).strip()
    return period if rest == "" else None
