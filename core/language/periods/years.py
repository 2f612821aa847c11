"""The year of a period named without one (`第四季度`, `上半年`, `前三季度`, `H1`, `Q3`).

Takes the spans the grammar's rules claimed, each with how its year was given (named, implied by
nothing the question says, or counted back from the reference date), and returns them with their
years settled, in reading order:

1. a period without a year takes the named year of the period before it in the same sentence
   (`2025年第三季度和第四季度`, `2025年第四季度营收较第三季度`), else of the period it is listed with
   right after it (`Q3 and Q4 2025`); the whole year (`全年`, `the full year`) is the year of a
   part of it named anywhere in its sentence (`what share of the full year was Q4 2024`);
2. the periods still without one are the latest complete such periods at the reference date,
   and share one year, the latest in which all of them are complete (at 2026-08-15,
   `上半年和下半年` is 2025H1 and 2025H2). Never a period that has not ended: at 2026-03-15,
   `第一季度` is 2025Q1, since 2026Q1 ends on 03-31. They stay `IMPLIED`, so that the answer can
   say what was assumed (`periods_assumed`).

Words that count back from the reference date without naming a year (`上季度`, `本季度`, `last
quarter`, `近三年`) lend no year: `第二季度和上季度` is still the latest complete Q2.

The first three quarters (`前三季度`, `1-9月`, no period type) are settled with the rest as the
stretch ending with Q3, so `2023年前三季度和第四季度` is 2023Q4 and `前三季度` alone is the
latest year whose Q3 is over. The year is the calendar year: the grammar knows no entity's fiscal
year end (a company whose fiscal year ends in June has its periods end earlier than the calendar
ones of the same label, so none of them is ever in the future either).
"""

from __future__ import annotations

from datetime import date

from core.language.periods.builders import _UNREAD, _year_of
from core.language.periods.calendar import _in_year, _qtr, complete_year
from core.language.periods.patterns import _CUMULATIVE, _LIST_JOINER, _SENTENCE_END
from core.model.period import Period

# How a period's year was given: named (`2025年`, `FY25`, `去年`, `this year`), implied by nothing
# the question says (`第四季度`, `H1`), or counted from the reference date by words that name no
# year (`上季度`, `本季度`, `last quarter`, `近三年`), which lend none to the periods around them.
NAMED, IMPLIED, RELATIVE = "named", "implied", "relative"
# (start, end, period, how its year was given)
Found = tuple[int, int, Period, str]


def years_carry(text: str, found: list[Found]) -> list[Found]:
    """A period whose year was only implied takes the named year of the period before it in the
    same sentence, else of the period it is listed with right after it; the whole year, that of
    a part of it named later in its sentence."""
    items = list(found)

    def joined(left: Found, right: Found) -> bool:
        return _LIST_JOINER.fullmatch(text[left[1] : right[0]]) is not None

    def one_sentence(left: Found, right: Found) -> bool:
        return _SENTENCE_END.search(text[left[1] : right[0]]) is None

    for i in range(1, len(items)):
        before, item = items[i - 1], items[i]
        if item[3] == IMPLIED and before[3] == NAMED and one_sentence(before, item):
            items[i] = (item[0], item[1], _in_year(item[2], before[2].year), NAMED)
    for i in range(len(items) - 2, -1, -1):
        item, after = items[i], items[i + 1]
        if item[3] == IMPLIED and after[3] == NAMED and joined(item, after):
            items[i] = (item[0], item[1], _in_year(item[2], after[2].year), NAMED)
    for i, item in enumerate(items):
        part = next((a for a in items[i + 1 :] if a[3] == NAMED and a[2].period_type != "FY"), None)
        if item[3] == IMPLIED and item[2].period_type == "FY" and part is not None and one_sentence(item, part):
            items[i] = (item[0], item[1], _in_year(item[2], part[2].year), NAMED)
    return items


def latest_complete(found: list[Found], reference: date) -> list[Found]:
    """The periods still without a year, in the latest year in which every one of them is over."""
    implied = [period for _, _, period, year in found if year == IMPLIED]
    if not implied:
        return found
    latest = min(complete_year(period, reference) for period in implied)
    return [(s, e, _in_year(p, latest), year) if year == IMPLIED else (s, e, p, year) for s, e, p, year in found]


def first_quarters(text: str, claimed: list[Found], reference: date) -> list[Found]:
    """The unread stretches that are the first three quarters of a year (`2025年前三季度`, `1-9月`,
    `the first nine months`), each as its Q3 (implied when it names no year) while years are settled."""
    found: list[Found] = []
    for start, end, period, _ in claimed:
        m = _CUMULATIVE.fullmatch(text[start:end]) if period == _UNREAD else None
        if m is None:
            continue
        groups = m.groupdict()
        if groups.get("ey"):
            found.append((start, end, _qtr(int(groups["ey"]), 3), NAMED))
        elif any(groups.get(name) for name in ("year", "yy", "rel")):
            found.append((start, end, _qtr(_year_of(m, reference) or reference.year, 3), NAMED))
        else:
            found.append((start, end, _qtr(reference.year, 3), IMPLIED))
    return found


def years_settle(text: str, claimed: list[Found], reference: date) -> tuple[list[Found], list[Found]]:
    """The periods claimed (unread stretches left out) and the first-three-quarter stretches
    (each as its Q3), with their years settled together."""
    stretches = first_quarters(text, claimed, reference)
    spans = {(start, end) for start, end, _, _ in stretches}
    periods = [item for item in claimed if item[2] != _UNREAD]
    settled = latest_complete(years_carry(text, sorted([*periods, *stretches], key=lambda i: i[0])), reference)
    return (
        [item for item in settled if item[:2] not in spans],
        [item for item in settled if item[:2] in spans],
    )
