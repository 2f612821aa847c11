"""Period headers as annual reports print them, rewritten into the period grammar (`core.language.periods`).

`header_prepare` runs before `text_normalize` (which would turn `2019¹` into `20191`): footnote
superscripts and marks go, spaced digits join (`2 0 1 8` → `2018`). `periods_rewrite` runs after
it and returns the text with every dated or fiscal form as `fy<year>`, and the dates it read:

- dates: `2019年12月31日` (a month end; `2019年1月1日` opens a year and names none),
  `december 31, 2019`, `dec 29, 2018`, `30 june 2019`, `december31,` (glued), a caption
  `years ended september 30,` joined with the year below it, `december 2019`;
- fiscal forms: `fiscal 2019`, `fy19`, `f19`, `fy 2019`, `2019/20` and `2019-20` (the year they
  end in);
- footnotes: `2018 (4)`, `2019 (a)`, `restated3`, `fy19**`.

A date names the fiscal year that ends on it (`fiscal_year`): without a company rule the year of
the date, a date in the first week of January closing the year before (52/53-week years);
with a year-end month, the year whose nominal end lies within a week of the date, else none.
`not_a_period` tells a column that holds no period's figures (`Change`, `% of total`, `Note`).
"""

from __future__ import annotations

import calendar
import re
from datetime import date

_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾ᵃᵇᶜᵈᵉ*†‡§"
_SPACED_YEAR = re.compile(r"(?<![0-9])([12]) ([09]) ([0-9]) ([0-9])(?![0-9])")
_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS |= {"sept": 9}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?P<year>19[0-9]{2}|20[0-9]{2}|2100)"
_MONTH_DAY_YEAR = re.compile(
    rf"(?<![a-z])(?P<month>{_MONTH})\.?\s?(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?\s?,?\s?{_YEAR}(?![0-9])"
)
_DAY_MONTH_YEAR = re.compile(rf"(?<![0-9])(?P<day>[0-9]{{1,2}})\s?(?P<month>{_MONTH})\.?,?\s?{_YEAR}(?![0-9])")
# `2019年12月31日`: a balance at a month end; `2019年1月1日` opens a year (after any restatement).
_YMD_ZH = re.compile(rf"(?<![0-9]){_YEAR}\s?年\s?(?P<month>[01]?[0-9])\s?月\s?(?P<day>[0-3]?[0-9])\s?日")
_MONTH_YEAR = re.compile(rf"(?<![a-z])(?P<month>{_MONTH})\.?,?\s?{_YEAR}(?![0-9])")
_SPLIT_YEAR = re.compile(
    r"(?<![0-9])(?:fy\s?)?(19[0-9]{2}|20[0-9]{2})\s?(?:/\s?((?:19|20)?[0-9]{2})|-\s?([0-9]{2}))(?![0-9])"
)  # `2019/20`, `2017/2018`, `2019-20`; `2021-2022` is a range of two years
_SHORT_FISCAL = re.compile(r"(?<![a-z0-9])(?:fy|f)\s?'?([0-9]{2})(?![0-9])")
_FISCAL_WORD = re.compile(rf"(?<![a-z])fiscal(?: year)?\s?{_YEAR}")
_FOOTNOTE = re.compile(
    r"\(\s?(?:[0-9]{1,2}|[ac-jl-z])\s?\)|(?<=[a-z]{3})[0-9]{1,2}(?![0-9])"
    r"|(?<![a-z])(?:see )?notes? [0-9]{1,2}[a-z]?(?![0-9])"
)
_NOT_PERIOD = re.compile(
    r"(?<![a-z])(?:change|changes|chg|variance|var|increase|decrease|growth|movement|difference|cagr|yoy|vs"
    r"|versus|(?<!see )notes?(?!\s?[0-9])|percentage|percent|proportion|fav|unfav|better|worse|weeks?|months?"
    r"|quarters?|half|budget"
    r"|forecast|estimated?|guidance|outlook|ytd|ltm|ttm|pro ?forma|consensus|non-?gaap|adjusted|underlying"
    r"|constant currency|organic|like-for-like|lfl|continuing|discontinued|peers?|median|industry|street|low|high"
    r"|case|average|avg|run-?rate|cumulative|since|before|after|year to date|as adjusted)(?![a-z])"
    r"|(?:19|20)[0-9]{2}\s?\+"
    r"|(?:19|20)[0-9]{2}\s?(?:plan|target)(?![a-z])"
    r"|(?<![a-z0-9])(?:fy)?(?:19|20)[0-9]{2}[b-gi-pr-z](?![a-z])"
    r"|%\s*[a-z]|[a-z]\s*\(?%|变动|增减|增长|同比|环比|占比|比例|附注|变化|比重|预算|预测|目标|计划|累计"
)
_YEAR_WEEKS = re.compile(r"(?<![0-9])5[23]\s?weeks|(?:twelve|12)\s?months")


def header_prepare(raw: str) -> str:
    """A raw cell text without footnote superscripts, its spaced year digits joined."""
    text = "".join(" " if ch in _SUPERSCRIPTS else ch for ch in raw)
    return _SPACED_YEAR.sub(lambda m: "".join(m.groups()), text)


def fiscal_year(day: date, year_end_month: int | None = None) -> int | None:
    """The fiscal year a period ending on `day` closes (see the module docstring), or None."""
    if year_end_month is None:
        return day.year - 1 if day.month == 1 and day.day <= 7 else day.year
    for year in (day.year - 1, day.year, day.year + 1):
        end = date(year, year_end_month, calendar.monthrange(year, year_end_month)[1])
        if abs((day - end).days) <= 7:
            return year
    return None


def _date(year: str, month: str, day: str | None) -> date | None:
    number = _MONTHS.get(month.rstrip(".").lower())
    if number is None:
        return None
    last = calendar.monthrange(int(year), number)[1]
    which = last if day is None else int(day)
    return date(int(year), number, which) if 1 <= which <= last else None


def periods_rewrite(normalized: str) -> tuple[str, tuple[date, ...]]:
    """`normalized` with dated and fiscal forms as `fy<year>`, and the dates read, in order."""
    text = _FOOTNOTE.sub(" ", normalized)
    dates: list[tuple[int, date]] = []

    def dated(m: re.Match[str]) -> str:
        found = _date(m.group("year"), m.group("month"), m.groupdict().get("day"))
        if found is None:
            return m.group(0)
        dates.append((m.start(), found))
        return f" fy{fiscal_year(found)} "

    def dated_zh(m: re.Match[str]) -> str:
        year, month, day = int(m.group("year")), int(m.group("month")), int(m.group("day"))
        if not 1 <= month <= 12 or day != calendar.monthrange(year, month)[1]:
            return " 期初 " if (month, day) == (1, 1) else m.group(0)  # an opening balance, possibly restated
        found = date(year, month, day)
        dates.append((m.start(), found))
        return f" fy{fiscal_year(found)} "

    text = _YMD_ZH.sub(dated_zh, text)
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR, _MONTH_YEAR):
        text = pattern.sub(dated, text)
    text = _SPLIT_YEAR.sub(
        lambda m: (
            f" fy{int(m.group(1)) + 1} "
            if (int(m.group(1)) + 1) % 100 == int(m.group(2) or m.group(3)) % 100
            else m.group(0)
        ),
        text,
    )
    text = _FISCAL_WORD.sub(lambda m: f" fy{m.group('year')} ", text)
    text = _SHORT_FISCAL.sub(lambda m: f" fy20{m.group(1)} ", text)
    text = _YEAR_WEEKS.sub(" ", text)
    return " ".join(text.split()), tuple(d for _, d in sorted(dates, key=lambda item: item[0]))


_SUB_ANNUAL = re.compile(
    r"(?<![a-z])(?:quarters?|(?:three|six|nine|3|6|9) months|interim|half[- ]years?|semi-?annual|year[- ]to[- ]date|ytd"
    r"|first half|second half)(?![a-z])"
    r"|(?<![0-9])(?:[1-9]|[1-4][0-9]|5[01]) weeks|季度|半年|中期|(?:三|六|九)个月|年初至"
)
# What a sentence before a table must say to make its columns sub-annual (prose mentions quarters freely).
_SUB_ANNUAL_PROSE = re.compile(
    r"(?<![a-z])(?:(?:three|six|nine|3|6|9) months (?:ended|to)|quarters? ended|half[- ]year(?:ly)? (?:ended|to)"
    r"|interim (?:period|results|report))(?![a-z])|截至.{0,12}止(?:三|六|九)个月|半年度|中期报告"
)


def sub_annual(normalized: str, *, prose: bool = False) -> bool:
    """A caption that makes a table's year columns quarters, halves or year-to-date figures
    (`Six Months Ended June 30,`, `Quarters Ended`), not fiscal years; `prose` for the sentence
    before the table, which must name such a period outright."""
    return bool((_SUB_ANNUAL_PROSE if prose else _SUB_ANNUAL).search(normalized))


_MEASURE = re.compile(
    r"(?<![a-z])(?:percent|percentage|change|growth|variance|increase|decrease)(?![a-z])|%|占比|比例|增长|变动|同比"
)


def names_a_measure(normalized: str) -> bool:
    """A caption that says what a column measures other than the period's figure (`(As percentage
    of net revenues)`, `Change`), unlike an annotation (`Audited`, `See note 3`)."""
    return bool(_MEASURE.search(normalized))


_DUE = re.compile(
    r"(?<![a-z])(?:thereafter|later years?|(?:less|more) than (?:one|two|three|five|[0-9]+) years?"
    r"|within (?:one|1) years?|after (?:one|five|[0-9]+) years?|beyond)(?![a-z])|以后年度|以后|以上"
)


def due_schedule(normalized: str) -> bool:
    """A column of a schedule of amounts due (`Thereafter`, `More than 5 years`): its year columns
    are due dates, not fiscal years."""
    return bool(_DUE.search(normalized))


def not_a_period(normalized: str) -> bool:
    """A header that marks a column of something other than a period's figures."""
    return bool(_NOT_PERIOD.search(_YEAR_WEEKS.sub(" ", normalized)))
