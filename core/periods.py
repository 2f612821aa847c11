"""The period grammar (SPEC §5).

Takes normalised text (see `normalize.text_normalize`) and a reference date; returns the
periods it names, with their spans, in reading order. Absolute forms (`FY2025`, `FY25`,
`2025财年`, `2025年上半年`, `2025Q3`, `2025年第三季度` …) and relative ones (`去年`, `上季度`,
`去年Q3`, `last quarter` …) are understood; bare `Q3` / `上半年` mean this year's.

A four-digit number is a year only in 1990–2100 and only when no unit or decimal follows,
so `2025万元` or `2025.5` never become periods. The fiscal year is the calendar year.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from .normalize import text_normalize
from .types import Period

_CN_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_YEAR = r"(?<![0-9.])(?P<year>199[0-9]|20[0-9]{2}|2100)(?![0-9])"
_NOT_A_QUANTITY = (
    r"(?!\.[0-9]|\s?(?:万|亿|元|百万|千|个|家|人|%|‰|美元|港元|块|件|台|名|倍|笔|次|份|"
    r"亩|平|米|公里|吨|kg|km|m\b|k\b|bn\b|mn\b))"
)
_HALF = r"(?P<half>上半年|下半年|上半|下半|h1|h2)"
_QUARTER = r"(?:(?<![a-z])q(?P<q1>[1-4])|第(?P<q2>[一二三四1-4])季度?|(?P<q3>[一二三四])季度)"
_REL_YEAR = r"(?P<rel>去年|今年|前年|本年|明年|上年|上一年)"
_REL_YEAR_OFFSET = {"去年": -1, "上年": -1, "上一年": -1, "今年": 0, "本年": 0, "前年": -2, "明年": 1}

Builder = Callable[[re.Match[str], date], Period | None]


def _fy(year: int) -> Period:
    return Period("FY", str(year))


def _hy(year: int, half: str) -> Period:
    second = half.startswith("下") or half == "h2"
    return Period("HY", f"{year}H{2 if second else 1}")


def _qtr(year: int, quarter: int) -> Period:
    return Period("QUARTER", f"{year}Q{quarter}")


def _quarter_number(m: re.Match[str]) -> int:
    digit = m.group("q1") or m.group("q2") or m.group("q3")
    return _CN_DIGIT[digit]


def _current_quarter(ref: date) -> int:
    return (ref.month - 1) // 3 + 1


def _previous_quarter(ref: date) -> Period:
    quarter = _current_quarter(ref) - 1
    return _qtr(ref.year, quarter) if quarter else _qtr(ref.year - 1, 4)


def _rel_year(m: re.Match[str], ref: date) -> int:
    return ref.year + _REL_YEAR_OFFSET[m.group("rel")]


def _two_digit_year(text: str) -> int:
    return 2000 + int(text) if len(text) == 2 else int(text)


_RULES: list[tuple[re.Pattern[str], Builder]] = [
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _HALF), lambda m, r: _hy(_rel_year(m, r), m.group("half"))),
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _QUARTER), lambda m, r: _qtr(_rel_year(m, r), _quarter_number(m))),
    (
        re.compile(r"(?<![a-z])(?:last|previous|prior) (?:fiscal )?year(?![a-z])"),
        lambda m, r: _fy(r.year - 1),
    ),
    (re.compile(r"(?<![a-z])(?:this|current) (?:fiscal )?year(?![a-z])"), lambda m, r: _fy(r.year)),
    (re.compile(r"(?<![a-z])(?:last|previous|prior) quarter(?![a-z])"), lambda m, r: _previous_quarter(r)),
    (
        re.compile(r"(?<![a-z])(?:this|current) quarter(?![a-z])"),
        lambda m, r: _qtr(r.year, _current_quarter(r)),
    ),
    (
        re.compile(r"(?<![a-z])(?:fy\s?)?" + _YEAR + r"\s?(?:年|财年|年度)?\s?(?:的)?\s?" + _HALF),
        lambda m, r: _hy(int(m.group("year")), m.group("half")),
    ),
    (
        re.compile(r"(?<![a-z])(?P<half>h1|h2)\s?" + _YEAR),
        lambda m, r: _hy(int(m.group("year")), m.group("half")),
    ),
    (
        re.compile(r"(?<![a-z])(?:fy\s?)?" + _YEAR + r"\s?(?:年|财年|年度)?\s?(?:的)?\s?" + _QUARTER),
        lambda m, r: _qtr(int(m.group("year")), _quarter_number(m)),
    ),
    (
        re.compile(r"(?<![a-z])q(?P<q1>[1-4])\s?(?:fy\s?)?" + _YEAR),
        lambda m, r: _qtr(int(m.group("year")), int(m.group("q1"))),
    ),
    (
        re.compile(r"(?<![a-z0-9])fy\s?'?(?P<year>[0-9]{4}|[0-9]{2})(?![0-9])"),
        lambda m, r: _year_period(_two_digit_year(m.group("year"))),
    ),
    (
        re.compile(r"(?<![a-z])fiscal (?:year )?" + _YEAR),
        lambda m, r: _fy(int(m.group("year"))),
    ),
    (
        re.compile(_YEAR + r"\s?(?:财政年度|会计年度|财年|年度|年)"),
        lambda m, r: _fy(int(m.group("year"))),
    ),
    (re.compile(r"本财年|本年度"), lambda m, r: _fy(r.year)),
    (re.compile(r"上一?财年|上年度"), lambda m, r: _fy(r.year - 1)),
    (re.compile(_REL_YEAR), lambda m, r: _fy(_rel_year(m, r))),
    (re.compile(r"本季度?|这个?季度|当季"), lambda m, r: _qtr(r.year, _current_quarter(r))),
    (re.compile(r"上一?个?季度"), lambda m, r: _previous_quarter(r)),
    (re.compile(r"(?<![0-9])" + _HALF + r"(?![0-9])"), lambda m, r: _hy(r.year, m.group("half"))),
    (re.compile(_QUARTER + r"(?![0-9])"), lambda m, r: _qtr(r.year, _quarter_number(m))),
    (re.compile(_YEAR + _NOT_A_QUANTITY), lambda m, r: _fy(int(m.group("year")))),
]


def _year_period(year: int) -> Period | None:
    return _fy(year) if 1990 <= year <= 2100 else None


def periods_find(text: str, reference: date) -> list[tuple[int, int, Period]]:
    """Every period named in normalised `text`, as `(start, end, period)` in reading order.

    Rules are tried most specific first; a span claimed by one rule is not reused.
    """
    claimed: list[tuple[int, int, Period]] = []
    for pattern, build in _RULES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < c_end and c_start < end for c_start, c_end, _ in claimed):
                continue
            period = build(m, reference)
            if period is not None:
                claimed.append((start, end, period))
    claimed.sort(key=lambda item: item[0])
    return claimed


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


def period_from_parts(period_type: str, period: str) -> Period | None:
    """Validate stored `(period_type, period)` columns."""
    patterns = {"FY": r"[0-9]{4}", "HY": r"[0-9]{4}H[12]", "QUARTER": r"[0-9]{4}Q[1-4]"}
    pattern = patterns.get(period_type)
    if pattern and re.fullmatch(pattern, period):
        return Period(period_type, period)
    return None


def latest_complete_fiscal_year(reference: date) -> Period:
    return _fy(reference.year - 1)
