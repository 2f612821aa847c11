"""Series and stretches the grammar reads beyond single periods.

`series_asked` / `series_unbounded` / `series_words` find the words asking for each period of a
range (`每年`, `各季度`, `quarterly`); `period_shifts` reads a stretch just before the periods
asked before (`那前三年呢`), for a follow-up to resolve with `periods_before`. (A stretch from the
start of a year read as its quarters, `前三季度` → Q1–Q3, is the grammar's `periods_cumulative`.)
"""

from __future__ import annotations

import re
from datetime import date

from core.language.periods.builders import _MAX_SERIES, _count
from core.language.periods.grammar import periods_unread
from core.language.periods.patterns import _SHIFT_BACK_RE

# words asking for each period of a range, not for a change between its ends
_EACH_PERIOD = re.compile(
    r"每一?年|各个?年度?|历年|逐年|分别|每一?个?季度|各个?季度|逐季|分季度|(?<=年)季度(?![末初])"
    r"|(?<![a-z])(?:each|every|per year|yearly|annually|quarterly|year by year)(?![a-z])"
)


def series_asked(text: str) -> bool:
    """Whether normalised `text` asks for each period of its range (`每年`, `各季度`, `each of`)."""
    return _EACH_PERIOD.search(text) is not None


# the words among those that name the period type itself (每年, 各季度, quarterly): a question that
# says them but no range asks for a series it has not bounded
_EACH_NAMED = re.compile(
    r"每一?年|各个?年度?|历年|逐年|每一?个?季度|各个?季度|逐季|分季度|(?<=年)季度(?![末初])"
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
