"""The period grammar.

Takes normalised text (see `normalize.text_normalize`) and a reference date; returns the
periods it names, with their spans, in reading order. Absolute forms (`FY2025`, `FY25`,
`2025财年`, `2025年上半年`, `2025Q3`, `2025年第三季度` …) and relative ones (`去年`, `上季度`,
`去年Q3`, `last quarter` …) are understood; bare `Q3` / `上半年` mean this year's.

Month spans are read as the period they cover (`1-6月` → H1, `1-3月` → Q1, `7-12月` → H2,
`1-12月` → the year, `前两季度` → H1); English halves and quarters too (`H1 2025`, `first half of 2025`,
`Q3 FY25`). A quarter or a half named without a year takes the year of the list it stands in
(`2025年第三季度和第四季度`, `Q3 and Q4 2025`), or of the period before it in the sentence.

A four-digit number is a year only in 1990–2100 and only when no unit or decimal follows,
so `2025万元` or `2025.5` never become periods. A two-digit number is a year only right before
年 (`24年`), not as a count of years (`近3年`, `近10年`, `10年期`). The fiscal year is the
calendar year.

A stretch no period type holds (`前三季度`, `1-9月`, a single month, `Q5`, `13月`) is claimed with
its year, so the year is never read as the fiscal year, and is listed by `periods_unread`. So is a
stretch just before the periods asked before (`前三年`, `之前两个季度`, `the three years before`):
only a follow-up can read it (`period_shifts`, `periods_before`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from functools import lru_cache

from core.language.normalize import text_normalize
from core.model.types import Period

_CN_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_CN_NUMBER = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_YEAR = r"(?<![0-9.])(?P<year>199[0-9]|20[0-9]{2}|2100)(?![0-9])"
# A two-digit year is read only right before 年 (`24年`), never after a digit or a word that makes
# the number a count of years (`近10年`, `过去10年`), nor when 年 goes on to a duration (`10年期`).
_SHORT_YEAR = (
    r"(?<![0-9.近去来前后每这那几多第了满达逾超约共续立])(?P<yy>[0-9]{2})"
    r"(?:财年|年度|年(?!来|内|间|期|以来|之|多|左右|前|后|里|半(?!年)|级|代|龄))"
)
_YEAR_PREFIX = rf"(?:(?<![a-z])(?:fy\s?)?{_YEAR}\s?(?:财年|年度|年)?|{_SHORT_YEAR})"
# An English unit ends where no ASCII letter follows (`2000 percent的增长`): `\b` would see the
# Chinese character after it as part of the word and read the number as a year.
_NOT_A_QUANTITY = (
    r"(?!\.[0-9]|\s?(?:万|亿|元|百万|千|个|家|人|%|‰|美元|港元|块|件|台|名|倍|笔|次|份|"
    r"亩|平|米|公里|吨|kg|km|(?:m|k|bn|mn|x|pp|bps?|percent(?:age)?|times"
    r"|(?:million|billion|thousand|trillion)s?)(?![a-z])))"
)
_HALF = r"(?P<half>上半年|下半年|上半|下半|h1|h2)"
_QUARTER = r"(?:(?<![a-z])q(?P<q1>[1-4])|第(?P<q2>[一二三四1-4])季度?|(?P<q3>[一二三四])季度)"
_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_MONTHS = rf"(?<![0-9一二三四五六七八九十])(?P<m1>{_MONTH})\s?月?\s?(?:-|~|〜|至|到|—|–)\s?(?P<m2>{_MONTH})\s?月份?"
# `2025年前6个月` is the months from January (without a year it may mean the last six);
# `前两季度` is the first half, `前三季度` (nine months) is no period type (see `_UNREAD`).
_FIRST_MONTHS = r"前(?P<m2>[0-9]{1,2}|十[一二]?|[一二两三四五六七八九])个月"
_FIRST_QUARTERS = r"前(?P<fq>[一二两三四1-4])个?季度?"
_FIRST_QUARTERS_SPAN = {1: ("QUARTER", "Q1"), 2: ("HY", "H1"), 4: ("FY", "")}
# Stretches of time the grammar recognises but no period type holds: a single month, a month or
# a quarter that does not exist, a year to date. Each is claimed with the year before it, so
# the year is never read as the whole fiscal year, and reported by `periods_unread`.
_ANY_YEAR = r"(?<![0-9.])(?:199[0-9]|20[0-9]{2}|2100)(?![0-9])"
_BAD_QUARTER = r"(?:(?<![a-z])q(?:0|[5-9]|[1-9][0-9]+)(?![0-9])|第(?:[五六七八九十零]+|0|[5-9]|[1-9][0-9]+)季度?)"
_BAD_HALF = r"(?<![a-z])h(?:0|[3-9]|[1-9][0-9]+)(?![0-9])"
_BAD_MONTH = r"(?<![0-9])(?:0+|1[3-9]|[2-9][0-9]|[1-9][0-9]{2,})\s?月"
# a date (`12月31日`) is left alone: `截至2025年12月31日止年度` names the year
_ONE_MONTH = (
    r"(?<![0-9一二三四五六七八九十])(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s?月份?"
    r"(?!\s?(?:[0-9]|[一二三四五六七八九十])+\s?[日号])"
)
_RELATIVE_MONTH = r"本月|当月|这个?月|上一?个?月|下一?个?月"
# the last N months, or the first N years: a stretch the question does not name
_RECENT = r"(?:近|最近|过去|前)(?:[0-9]+|[一二两三四五六七八九十]+)个?(?:财年|年度|年|季度|个?月)"
# Ranges expand into every period of them, in order.
_COUNT = r"(?P<n>[0-9]{1,2}|[一二三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
_RANGE_JOIN = r"\s?(?:到|至|-|~|〜|—|–|to|through)\s?"
# the last N complete years or quarters at the reference date (`近三年`, `过去5年`, `最近4个季度`)
_LAST_N = rf"(?:近|最近|过去)\s?{_COUNT}\s?个?(?P<unit>财年|年度|年|季度)(?!来|内|间|期|以来)"
_EN_NUMBER = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "ten": 10, "twelve": 12}
_EN_LAST_N = (
    r"(?<![a-z])(?:the )?(?:last|past|previous|recent) (?P<n>[0-9]{1,2}|two|three|four|five|six|seven|eight|ten|twelve)"
    r" (?:fiscal |full )?(?P<unit>years|quarters)(?![a-z])"
)
# A stretch just before the periods asked before (`那前三年呢`, `之前四个季度`, `the three years
# before`): read only against the previous question's periods (`periods_before`); on its own it
# names no period and is asked back. `前三季度` / `前三个季度` stay the first three quarters.
_EN_COUNT = r"(?P<n>[0-9]{1,2}|two|three|four|five|six|seven|eight|ten|twelve)"
_SHIFT_BACK = (
    rf"(?:之前|此前|以前|往前|再往前|更早)的?\s?{_COUNT}\s?个?(?P<unit>财年|年度|年|季度)(?!来|内|间|期|以来)"
    rf"|(?<![0-9.])前\s?{_COUNT.replace('<n>', '<n2>')}\s?个?(?P<unit2>财年|年度|年)(?!来|内|间|期|以来)"
    rf"|(?<![a-z])(?:the )?{_EN_COUNT.replace('<n>', '<en>')} (?:fiscal |full )?(?P<en_unit>years|quarters)"
    r" (?:before|earlier|prior)(?: (?:that|it|then|this|those|these))?(?![a-z])"
    rf"|(?<![a-z])(?:the )?preceding {_EN_COUNT.replace('<n>', '<en2>')} (?:fiscal |full )?(?P<en_unit2>years|quarters)"
    r"(?![a-z])"
)
_SHIFT_BACK_RE = re.compile(_SHIFT_BACK)
# `2022到2025年`, `2022年至2025年`, `22-25年`, `FY2022-FY2025`, `2022 to 2025`
_YEAR_END = r"(?:fy\s?)?(?P<{0}>199[0-9]|20[0-9]{{2}}|2100|[0-9]{{2}})"
_YEAR_RANGE = (
    r"(?<![0-9.a-z])"
    + _YEAR_END.format("a")
    + r"(?![0-9])\s?(?:财年|年度|年)?"
    + _RANGE_JOIN
    + _YEAR_END.format("b")
    + r"(?![0-9.])"
    + _NOT_A_QUANTITY
    # the last year's half, quarter or month is no range of years (`2024-2025年上半年`)
    + r"(?!\s?(?:财年|年度|年)?\s?(?:的)?\s?(?:上半|下半|h[12]|q[1-4]|第|[一二三四]季|[0-9]{1,2}\s?月))"
    + r"\s?(?P<unit>财年|年度|年(?!期|以来|来|内|间))?"
)
# `Q1到Q4`, `一到四季度`, `第一至第四季度`, `Q1 to Q4 2025`
_QUARTER_RANGE = (
    r"(?:(?<![a-z])q(?P<qa>[1-4])" + _RANGE_JOIN + r"q(?P<qb>[1-4])(?![0-9])"
    r"|第?(?P<qc>[一二三四1-4])(?:季度)?" + _RANGE_JOIN + r"第?(?P<qd>[一二三四1-4])个?季度?(?<=季|度))"
)
# every quarter of the years named (`2025年每个季度`, `各季度`, `quarterly`)
_EACH_QUARTER = re.compile(
    r"每一?个?季度|各个?季度?|逐季|分季度|(?:哪|边)一?个?季度?"
    r"|(?<![a-z])(?:quarterly|each quarter|every quarter|which quarters?)(?![a-z])"
)
_EN_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_EN_UNREAD = (
    r"(?<![a-z0-9])(?:9m|(?:the )?(?:first )?(?:nine|9) months|ytd|year[- ]to[- ]date|this month|last month"
    rf"|{_EN_MONTH}\.?(?= (?:of )?{_ANY_YEAR}))(?![a-z])"
)
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_EN_HALF = r"(?<![a-z])(?P<ord>first|second|1st|2nd) half"
_EN_QUARTER = r"(?<![a-z])(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th) quarter"
_EN_OF_YEAR = rf"(?: of)?(?: the)?(?: fiscal(?: year)?| fy)?\s?{_YEAR}"
_REL_YEAR = r"(?P<rel>去年|今年|前年|本年|明年|上年|上一年)"
_REL_YEAR_OFFSET = {"去年": -1, "上年": -1, "上一年": -1, "今年": 0, "本年": 0, "前年": -2, "明年": 1}
# What may stand between the periods of one list (`2025年第三季度和第四季度`, `Q3 and Q4 2025`).
# A semicolon joins the clauses of one sentence: the year named before it still holds after it.
_SENTENCE_END = re.compile(r"[。？?！!]")
_LIST_JOINER = re.compile(r"(?:\s|和|与|及|以及|、|,|/|跟|或|至|到|-|~|较|相比|对比|比|and|&|or|to|vs\.?|versus)*")
# (start, end, period, whether its year was only implied by the reference date)
_Found = tuple[int, int, Period, bool]

Builder = Callable[[re.Match[str], date], Period | tuple[Period, ...] | None]
# A span that names a stretch of time no period type covers (`1-9月`, `前三季度`): claimed, so
# its year is not read as the whole fiscal year, and not reported.
_UNREAD = Period("", "")


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


def _short_year(text: str, ref: date) -> int | None:
    """`25` → 2025, `98` → 1998: years are read in 1990–2089 whatever the reference date, so a
    data file's `FY26` is the same period on every day it is imported."""
    number = int(text)
    return 1900 + number if number >= 90 else 2000 + number


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


_RULES: list[tuple[re.Pattern[str], Builder, bool]] = [
    (_SHIFT_BACK_RE, _unread, False),
    (re.compile(_YEAR_RANGE), _year_range, False),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_QUARTER_RANGE}"), _quarter_range, False),
    (re.compile(rf"{_QUARTER_RANGE}\s?(?:of\s)?(?:fy\s?)?{_YEAR}"), _quarter_range, False),
    (re.compile(_QUARTER_RANGE), _quarter_range, True),
    (re.compile(_LAST_N), _last_n, False),
    (re.compile(_EN_LAST_N), _last_n, False),
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _MONTHS), _months, False),
    (re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _MONTHS), _months, False),
    (re.compile(_MONTHS), _months, True),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})\s?(?:的)?\s?{_FIRST_MONTHS}"), _months, False),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?{_FIRST_QUARTERS}"), _first_quarters, False),
    (re.compile(rf"(?:{_BAD_QUARTER}|{_BAD_HALF})\s?(?:fy\s?)?{_ANY_YEAR}"), _unread, False),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?(?:{_BAD_QUARTER}|{_BAD_HALF})"), _unread, False),
    (re.compile(rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?(?:{_BAD_MONTH}|{_ONE_MONTH})"), _unread, False),
    (re.compile(_RELATIVE_MONTH), _unread, False),
    (re.compile(_RECENT), _unread, False),
    (re.compile(rf"{_EN_UNREAD}(?:(?: of)?(?: fy)?\s?{_ANY_YEAR})?"), _unread, False),
    (re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _HALF), lambda m, r: _hy(_rel_year(m, r), m.group("half")), False),
    (
        re.compile(_REL_YEAR + r"\s?(?:的)?\s?" + _QUARTER),
        lambda m, r: _qtr(_rel_year(m, r), _quarter_number(m)),
        False,
    ),
    (
        re.compile(r"(?<![a-z])(?:last|previous|prior) (?:fiscal )?year(?![a-z])"),
        lambda m, r: _fy(r.year - 1),
        False,
    ),
    (re.compile(r"(?<![a-z])(?:this|current) (?:fiscal )?year(?![a-z])"), lambda m, r: _fy(r.year), False),
    (re.compile(r"(?<![a-z])(?:last|previous|prior) quarter(?![a-z])"), lambda m, r: _previous_quarter(r), False),
    (
        re.compile(r"(?<![a-z])(?:this|current) quarter(?![a-z])"),
        lambda m, r: _qtr(r.year, _current_quarter(r)),
        False,
    ),
    (
        re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _HALF),
        _with_year(lambda year, m: _hy(year, m.group("half"))),
        False,
    ),
    (
        re.compile(r"(?<![a-z])(?P<half>h1|h2)\s?(?:" + _YEAR + r"|fy\s?'?(?P<yy>[0-9]{2})(?![0-9]))"),
        _with_year(lambda year, m: _hy(year, m.group("half"))),
        False,
    ),
    (
        re.compile(_EN_HALF + _EN_OF_YEAR),
        _with_year(lambda year, m: _hy(year, "h2" if _ORDINAL[m.group("ord")] == 2 else "h1")),
        False,
    ),
    (
        re.compile(_YEAR_PREFIX + r"\s?(?:的)?\s?" + _QUARTER),
        _with_year(lambda year, m: _qtr(year, _quarter_number(m))),
        False,
    ),
    (
        re.compile(r"(?<![a-z])q(?P<q1>[1-4])\s?(?:(?:fy\s?)?" + _YEAR + r"|fy\s?'?(?P<yy>[0-9]{2})(?![0-9]))"),
        _with_year(lambda year, m: _qtr(year, int(m.group("q1")))),
        False,
    ),
    (
        re.compile(_EN_QUARTER + _EN_OF_YEAR),
        _with_year(lambda year, m: _qtr(year, _ORDINAL[m.group("ord")])),
        False,
    ),
    (
        re.compile(r"(?<![a-z0-9])fy\s?'?(?P<fy>[0-9]{4}|[0-9]{2})(?![0-9])"),
        lambda m, r: _year_period(m.group("fy"), r),
        False,
    ),
    (
        re.compile(r"(?<![a-z])fiscal (?:year )?" + _YEAR),
        lambda m, r: _fy(int(m.group("year"))),
        False,
    ),
    (
        re.compile(_YEAR + r"\s?(?:财政年度|会计年度|财年|年度|年)"),
        lambda m, r: _fy(int(m.group("year"))),
        False,
    ),
    (re.compile(_SHORT_YEAR), _with_year(lambda year, m: _fy(year)), False),
    (re.compile(r"本财年|本年度"), lambda m, r: _fy(r.year), False),
    (re.compile(r"上一?财年|上年度"), lambda m, r: _fy(r.year - 1), False),
    (re.compile(_REL_YEAR), lambda m, r: _fy(_rel_year(m, r)), False),
    (re.compile(r"本季度?|这个?季度|当季"), lambda m, r: _qtr(r.year, _current_quarter(r)), False),
    (re.compile(r"上一?个?季度"), lambda m, r: _previous_quarter(r), False),
    (re.compile(r"(?<![0-9])" + _HALF + r"(?![0-9])"), lambda m, r: _hy(r.year, m.group("half")), True),
    (re.compile(_QUARTER + r"(?![0-9])"), lambda m, r: _qtr(r.year, _quarter_number(m)), True),
    (
        re.compile(_EN_HALF + r"(?![a-z])"),
        lambda m, r: _hy(r.year, "h2" if _ORDINAL[m.group("ord")] == 2 else "h1"),
        True,
    ),
    (re.compile(_EN_QUARTER + r"(?![a-z])"), lambda m, r: _qtr(r.year, _ORDINAL[m.group("ord")]), True),
    (re.compile(_YEAR + _NOT_A_QUANTITY), lambda m, r: _fy(int(m.group("year"))), False),
]


def _year_period(text: str, ref: date) -> Period | None:
    year = int(text) if len(text) == 4 else _short_year(text, ref)
    return _fy(year) if year is not None and 1990 <= year <= 2100 else None


def _in_year(period: Period, year: int) -> Period:
    return Period(period.period_type, f"{year}{period.period[4:]}")


def _years_carry(text: str, found: list[_Found]) -> list[_Found]:
    """A period whose year was only implied takes the year of the period before it in the same
    sentence (`2025年第三季度和第四季度`, `2025年第四季度营收较第三季度`), else of the period it is
    listed with right after it (`Q3 and Q4 2025`)."""
    items = list(found)

    def joined(left: _Found, right: _Found) -> bool:
        return _LIST_JOINER.fullmatch(text[left[1] : right[0]]) is not None

    def one_sentence(left: _Found, right: _Found) -> bool:
        return _SENTENCE_END.search(text[left[1] : right[0]]) is None

    for i in range(1, len(items)):
        before, item = items[i - 1], items[i]
        if item[3] and not before[3] and one_sentence(before, item):
            items[i] = (item[0], item[1], _in_year(item[2], before[2].year), False)
    for i in range(len(items) - 2, -1, -1):
        item, after = items[i], items[i + 1]
        if item[3] and not after[3] and joined(item, after):
            items[i] = (item[0], item[1], _in_year(item[2], after[2].year), False)
    return items


@lru_cache(maxsize=1024)
def _claim(text: str, reference: date) -> tuple[_Found, ...]:
    """Rules are tried most specific first; a span claimed by one rule is not reused (remembered:
    the parser asks for a question's periods and for its unread stretches of time)."""
    claimed: list[_Found] = []
    for pattern, build, bare in _RULES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < c_end and c_start < end for c_start, c_end, _, _ in claimed):
                continue
            built = build(m, reference)
            # a range claims one span for every period of it, in order
            for period in (built,) if isinstance(built, Period) else built or ():
                claimed.append((start, end, period, bare))
    return tuple(_each_quarter(text, sorted(claimed, key=lambda item: item[0])))


def _each_quarter(text: str, claimed: list[_Found]) -> list[_Found]:
    """`2025年每个季度`, `近三年各季度`, `quarterly`: each year named stands for its four quarters."""
    if _EACH_QUARTER.search(text) is None:
        return claimed
    expanded: list[_Found] = []
    for start, end, period, bare in claimed:
        if period.period_type == "FY":
            expanded.extend((start, end, _qtr(period.year, q), bare) for q in range(1, 5))
        else:
            expanded.append((start, end, period, bare))
    return expanded


# words asking for each period of a range, not for a change between its ends
_EACH_PERIOD = re.compile(
    r"每一?年|各个?年度?|历年|逐年|分别|每一?个?季度|各个?季度|逐季|分季度"
    r"|(?<![a-z])(?:each|every|per year|yearly|annually|quarterly|year by year)(?![a-z])"
)


def series_asked(text: str) -> bool:
    """Whether normalised `text` asks for each period of its range (`每年`, `各季度`, `each of`)."""
    return _EACH_PERIOD.search(text) is not None


# the words among those that name the period type itself (每年, 各季度, quarterly): a question that
# says them but no range asks for a series it has not bounded
_EACH_NAMED = re.compile(
    r"每一?年|各个?年度?|历年|逐年|每一?个?季度|各个?季度|逐季|分季度"
    r"|(?<![a-z])(?:(?:each|every) (?:year|quarter)|per (?:year|quarter)|yearly|annually|quarterly"
    r"|year by year|quarter by quarter)(?![a-z])"
)


def series_unbounded(text: str) -> str | None:
    """`FY` or `QUARTER` when normalised `text` asks for each year or each quarter (`历年`,
    `每个季度`, `quarterly`); None otherwise. Said without a range, such a series has no ends."""
    found = _EACH_NAMED.search(text)
    if found is None:
        return None
    return "QUARTER" if re.search("季|quarter", found.group(0)) else "FY"


def series_words(text: str) -> list[tuple[int, int]]:
    """The spans of the words asking for each period (`每个季度`): read, never a metric's name."""
    return [m.span() for m in _EACH_PERIOD.finditer(text)]


def periods_find(text: str, reference: date) -> list[tuple[int, int, Period]]:
    """Every period named in normalised `text`, as `(start, end, period)` in reading order.

    A quarter or a half named without a year takes the year of its list or sentence, else the
    reference's. A stretch no period type holds is left out (see `periods_unread`).
    """
    claimed = [item for item in _claim(text, reference) if item[2] != _UNREAD]
    return [(start, end, period) for start, end, period, _ in _years_carry(text, claimed)]


def periods_unread(text: str, reference: date) -> list[tuple[int, int, str]]:
    """Every stretch of time in normalised `text` that the grammar recognises but no period type
    (FY, H1/H2, Q1–Q4) holds, as `(start, end, words)`: `前三季度`, `1-9月`, `3月`, `Q5`, `第五季度`,
    `13月`, `YTD`. A question naming one must be asked back, never answered for the year."""
    return [(start, end, text[start:end].strip()) for start, end, p, _ in _claim(text, reference) if p == _UNREAD]


# a stretch from the start of a year that is the sum of its first quarters (`前三季度`, `1-9月`)
_CUMULATIVE = re.compile(
    rf"(?:{_REL_YEAR}|{_YEAR_PREFIX})?\s?(?:的)?\s?"
    r"(?:前(?:三|3)个?季度?|(?:1|一)\s?月?\s?(?:-|~|〜|至|到|—|–)\s?(?:9|九)\s?月份?"
    r"|(?:9m|(?:the )?first (?:nine|9) months)"
    r"(?:(?: of)?(?: fy)?\s?(?P<ey>199[0-9]|20[0-9]{2}|2100))?)"
)


def periods_cumulative(text: str, reference: date) -> list[tuple[int, int, tuple[Period, ...]]]:
    """The unread stretches of normalised `text` that are a sum of quarters from the start of the
     year (`2025年前三季度`, `1-9月` → Q1, Q2, Q3), as `(start, end, quarters)`: a derived period
    , answered as the sum of its quarters with the formula and the inputs."""
    found = []
    for start, end, _ in periods_unread(text, reference):
        m = _CUMULATIVE.fullmatch(text[start:end])
        year = None if m is None else int(m.group("ey")) if m.group("ey") else _year_of(m, reference)
        if year is not None:
            found.append((start, end, tuple(_qtr(year, q) for q in (1, 2, 3))))
    return found


def period_shifts(text: str, reference: date) -> list[tuple[int, int, int, str]]:
    """The unread stretches of normalised `text` that lie just before the periods asked before
    (`那前三年呢`, `之前四个季度`, `the three years before`), as `(start, end, count, unit)` with
    `unit` `year` or `quarter`: a follow-up reads them with `periods_before`."""
    found = []
    for start, end, _ in periods_unread(text, reference):
        m = _SHIFT_BACK_RE.fullmatch(text[start:end])
        if m is None:
            continue
        groups = m.groupdict()
        count = _count(groups["n"] or groups["n2"] or groups["en"] or groups["en2"])
        unit = groups["unit"] or groups["unit2"] or groups["en_unit"] or groups["en_unit2"]
        if 1 <= count <= _MAX_SERIES:
            found.append((start, end, count, "quarter" if "季" in unit or unit == "quarters" else "year"))
    return found


_MONTHS_OF = {"FY": 12, "HY": 6, "QUARTER": 3}


def _first_month(period: Period) -> int:
    """The period's first month, counted from year 0: FY2025 and 2025Q1 start at 2025 × 12."""
    part = int(period.period[5]) - 1 if period.period_type != "FY" else 0
    return period.year * 12 + part * _MONTHS_OF[period.period_type]


def _period_at(month: int, period_type: str) -> Period:
    year, within = divmod(month, 12)
    if period_type == "FY":
        return _fy(year)
    if period_type == "HY":
        return Period("HY", f"{year}H{within // 6 + 1}")
    return _qtr(year, within // 3 + 1)


def periods_before(periods: tuple[Period, ...], count: int, unit: str) -> tuple[Period, ...]:
    """The `count` years (`unit` `year`) or quarters (`quarter`) just before the earliest of
    `periods`, oldest first: after FY2022–FY2025, `前三年` is FY2019–FY2021; after 2025Q1–Q4 it is
    2022Q1–2024Q4. They are listed as the periods asked before were (years, halves or quarters)
    when the stretch is a whole number of them, else by `unit` (after FY2025, `之前两个季度` is
    2024Q3, 2024Q4)."""
    if not periods or count < 1:
        return ()
    months = count * (12 if unit == "year" else 3)
    start = min(_first_month(p) for p in periods)
    types = {p.period_type for p in periods}
    kind = next(iter(types)) if len(types) == 1 else ""
    if not kind or months % _MONTHS_OF[kind] or start % _MONTHS_OF[kind]:
        kind = "FY" if unit == "year" and start % 12 == 0 else "QUARTER"
    step = _MONTHS_OF[kind]
    return tuple(_period_at(month, kind) for month in range(start - months, start, step))


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
