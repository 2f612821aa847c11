"""The period grammar's builders: from a matched pattern and the reference date, the period(s) it names.

Each builder reads a match's groups (a year written out, short, relative or implied; a half, a
quarter, a month span, a count of years or quarters, a range) and returns a period, a tuple of
periods for a range, `_UNREAD` for a stretch no period type holds, or None when the match names
no period after all. The rules pairing patterns with builders are in `grammar`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from core.language.periods.calendar import (
    _fy,
    _previous_quarter,
    _qtr,
    _short_year,
    latest_complete_fiscal_year,
)
from core.language.periods.patterns import (
    _CN_DIGIT,
    _CN_NUMBER,
    _EN_COUNTS,
    _EN_NUMBER,
    _FIRST_QUARTERS_SPAN,
    _ORDINAL,
    _REL_YEAR_OFFSET,
)
from core.model.period import Period

Builder = Callable[[re.Match[str], date], Period | tuple[Period, ...] | None]
# A span that names a stretch of time no period type covers (`1-9月`, `前三季度`): claimed, so
# its year is not read as the whole fiscal year, and not reported.
_UNREAD = Period("", "")


def _quarter_number(m: re.Match[str]) -> int:
    digit = m.group("q1") or m.group("q2") or m.group("q3") or m.group("q4")
    return _CN_DIGIT[digit]


def _rel_year(m: re.Match[str], ref: date) -> int:
    return ref.year + _REL_YEAR_OFFSET[m.group("rel")]


def _year_of(m: re.Match[str], ref: date) -> int | None:
    groups = m.groupdict()
    if groups.get("year"):
        return int(groups["year"])
    if groups.get("yy"):
        return _short_year(groups["yy"], ref)
    if groups.get("rel"):
        return _rel_year(m, ref)
    return ref.year


def _month_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.startswith("十"):
        return 10 + (_CN_NUMBER[text[1]] if len(text) > 1 else 0)
    return _CN_NUMBER[text]


_MONTH_SPANS = {
    (1, 3): ("QUARTER", "Q1"),
    (4, 6): ("QUARTER", "Q2"),
    (7, 9): ("QUARTER", "Q3"),
    (10, 12): ("QUARTER", "Q4"),
    (1, 6): ("HY", "H1"),
    (7, 12): ("HY", "H2"),
    (1, 12): ("FY", ""),
}


def _months(m: re.Match[str], ref: date) -> Period | None:
    """`1-6月` is H1, `1-3月` Q1, `7-12月` H2, `1-12月` the year; other spans are `_UNREAD`."""
    year = _year_of(m, ref)
    first = _month_number(m.group("m1")) if m.groupdict().get("m1") else 1
    span = _MONTH_SPANS.get((first, _month_number(m.group("m2"))))
    if year is None:
        return None
    if span is None:
        return _UNREAD
    period_type, suffix = span
    return Period(period_type, f"{year}{suffix}")


def _en_first(m: re.Match[str], ref: date) -> Period | None:
    """`the first six months` is H1, `the first quarter`'s plural forms too (`first two quarters`
    H1, `first four quarters` the year); `the first nine months` and `the first three quarters`
    are `_UNREAD` (the stretch the grammar reads as Q1–Q3), and so is any other span."""
    year = _year_of(m, ref)
    text = m.group("en")
    count = int(text) if text.isdigit() else _EN_COUNTS[text]
    months = count * 3 if m.group("en_unit") == "quarters" else count
    span = _MONTH_SPANS.get((1, months))
    if year is None:
        return None
    if span is None:
        return _UNREAD
    period_type, suffix = span
    return Period(period_type, f"{year}{suffix}")


def _quarter_list(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """`第三和第四季度`, `三、四季度`: each quarter listed, of the year named (else this year's)."""
    year = _year_of(m, ref)
    quarters = dict.fromkeys(_CN_DIGIT[d] for d in re.findall("[一二三四1-4]", m.group("ql")))
    return None if year is None or len(quarters) < 2 else tuple(_qtr(year, q) for q in quarters)


def _en_quarter_list(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """`the third and fourth quarters (of 2025)`: each quarter listed."""
    year = _year_of(m, ref)
    quarters = dict.fromkeys(_ORDINAL[w] for w in re.findall(r"[a-z0-9]+", m.group("el")) if w in _ORDINAL)
    return None if year is None or len(quarters) < 2 else tuple(_qtr(year, q) for q in quarters)


def _first_quarters(m: re.Match[str], ref: date) -> Period | None:
    """`前两季度` is H1, `前一季度` Q1, `前四季度` the year; `前三季度` is `_UNREAD`."""
    year = _year_of(m, ref)
    span = _FIRST_QUARTERS_SPAN.get(_CN_NUMBER.get(m.group("fq")) or int(m.group("fq")))
    if year is None:
        return None
    if span is None:
        return _UNREAD
    period_type, suffix = span
    return Period(period_type, f"{year}{suffix}")


def _unread(m: re.Match[str], ref: date) -> Period:
    return _UNREAD


def _count(text: str) -> int:
    """`3`, `三`, `十二`, `二十`: a small count of years or quarters."""
    if text.isdigit():
        return int(text)
    if text in _EN_NUMBER:
        return _EN_NUMBER[text]
    tens, _, units = text.partition("十")
    if "十" not in text:
        return _CN_NUMBER[text]
    return (_CN_NUMBER[tens] if tens else 1) * 10 + (_CN_NUMBER[units] if units else 0)


_MAX_SERIES = 40  # a range longer than this is no analyst's series: left to the other rules


def _last_n(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """The last N complete years (`近三年` at 2026-03-15: FY2023–FY2025) or quarters, oldest first."""
    count = _count(m.group("n"))
    if not 1 <= count <= _MAX_SERIES:
        return None
    if "季" in m.group("unit") or m.group("unit") == "quarters":
        last = _previous_quarter(ref)
        index = last.year * 4 + int(last.period[-1]) - 1
        return tuple(_qtr(i // 4, i % 4 + 1) for i in range(index - count + 1, index + 1))
    last_year = latest_complete_fiscal_year(ref).year
    return tuple(_fy(year) for year in range(last_year - count + 1, last_year + 1))


def _range_year(text: str, ref: date) -> int:
    return int(text) if len(text) == 4 else _short_year(text, ref) or 0


def _year_range(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """`2022到2025年` → FY2022, FY2023, FY2024, FY2025. A two-digit end is a year only with 年
    after the range (`22-25年`) or `fy` before it; anything else is left to the other rules."""
    short = len(m.group("a")) == 2 or len(m.group("b")) == 2
    if short and not m.group("unit") and "fy" not in m.group(0):
        return None
    first, last = _range_year(m.group("a"), ref), _range_year(m.group("b"), ref)
    if not (1990 <= first < last <= 2100 and last - first < _MAX_SERIES):
        return None
    return tuple(_fy(year) for year in range(first, last + 1))


def _quarter_range(m: re.Match[str], ref: date) -> tuple[Period, ...] | None:
    """`2025年Q1到Q4`, `一到四季度`: every quarter between, of the year named (else this year's)."""
    first = _CN_DIGIT[m.group("qa") or m.group("qc")]
    last = _CN_DIGIT[m.group("qb") or m.group("qd")]
    year = _year_of(m, ref)
    if year is None or first >= last:
        return None
    return tuple(_qtr(year, q) for q in range(first, last + 1))


def _with_year(build: Callable[[int, re.Match[str]], Period]) -> Builder:
    def builder(m: re.Match[str], ref: date) -> Period | None:
        year = _year_of(m, ref)
        return None if year is None else build(year, m)

    return builder
