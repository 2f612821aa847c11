"""Periods as a calendar: building them from a year, moving between them, validating stored ones.

The fiscal year is the calendar year. `periods_before` steps back from the periods asked before
by whole years or quarters; `period_from_parts` validates stored `(period_type, period)` columns;
`period_end` is a period's last day, and a period is complete at a reference date once that day
is past (`latest_complete_of_type`, `complete_year`): 2026Q1 is not complete on 2026-03-31.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from core.model.period import Period


def _fy(year: int) -> Period:
    return Period("FY", str(year))


def _hy(year: int, half: str) -> Period:
    second = half.startswith("下") or half == "h2"
    return Period("HY", f"{year}H{2 if second else 1}")


def _qtr(year: int, quarter: int) -> Period:
    return Period("QUARTER", f"{year}Q{quarter}")


def _current_quarter(ref: date) -> int:
    return (ref.month - 1) // 3 + 1


def _previous_quarter(ref: date) -> Period:
    quarter = _current_quarter(ref) - 1
    return _qtr(ref.year, quarter) if quarter else _qtr(ref.year - 1, 4)


def _short_year(text: str, ref: date) -> int | None:
    """`25` → 2025, `98` → 1998: years are read in 1990–2089 whatever the reference date, so a
    data file's `FY26` is the same period on every day it is imported."""
    number = int(text)
    return 1900 + number if number >= 90 else 2000 + number


def _year_period(text: str, ref: date) -> Period | None:
    year = int(text) if len(text) == 4 else _short_year(text, ref)
    return _fy(year) if year is not None and 1990 <= year <= 2100 else None


def _in_year(period: Period, year: int) -> Period:
    return Period(period.period_type, f"{year}{period.period[4:]}")


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


def period_from_parts(period_type: str, period: str) -> Period | None:
    """Validate stored `(period_type, period)` columns."""
    patterns = {"FY": r"[0-9]{4}", "HY": r"[0-9]{4}H[12]", "QUARTER": r"[0-9]{4}Q[1-4]"}
    pattern = patterns.get(period_type)
    if pattern and re.fullmatch(pattern, period):
        return Period(period_type, period)
    return None


def latest_complete_fiscal_year(reference: date) -> Period:
    return _fy(reference.year - 1)


def _last_month(period: Period) -> int:
    """The month a period ends in: 12 for a year and a second half, 6 for a first half, 3·n for Qn."""
    if period.period_type == "QUARTER":
        return int(period.period[-1]) * 3
    return 6 if period.period.endswith("H1") else 12


def period_end(period: Period) -> date:
    """The period's last day (2025Q1 → 2025-03-31, 2025H2 and FY2025 → 2025-12-31)."""
    month = _last_month(period)
    return date(period.year, month, calendar.monthrange(period.year, month)[1])


def complete_year(period: Period, reference: date) -> int:
    """The latest year whose period of this kind (the year, its half or its quarter) ended before
    `reference`: at 2026-03-15, 2025 for Q1 (2026Q1 ends on 03-31) and for Q4, H1 and the year."""
    return reference.year if reference.month > _last_month(period) else reference.year - 1


def latest_complete_of_type(period_type: str, reference: date) -> Period:
    """The latest complete quarter, half or year at `reference` (2026-03-15: 2025Q4, 2025H2, FY2025)."""
    if period_type == "QUARTER":
        return _previous_quarter(reference)
    if period_type == "HY":
        return Period("HY", f"{reference.year}H1") if reference.month > 6 else Period("HY", f"{reference.year - 1}H2")
    return latest_complete_fiscal_year(reference)
