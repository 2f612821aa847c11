"""The period grammar.

Takes normalised text (see `normalize.text_normalize`) and a reference date; returns the
periods it names, with their spans, in reading order. Absolute forms (`FY2025`, `FY25`,
`2025财年`, `2025年上半年`, `2025Q3`, `2025年第三季度` …) and relative ones (`去年`, `上季度`,
`去年Q3`, `last quarter` …) are understood.

Month spans are read as the period they cover (`1-6月` → H1, `1-3月` → Q1, `7-12月` → H2,
`1-12月` → the year, `前两季度` → H1); English halves and quarters too (`H1 2025`, `first half of 2025`,
`Q3 FY25`). A quarter or a half named without a year takes the year of the list it stands in
(`2025年第三季度和第四季度`, `Q3 and Q4 2025`), or of the period before it in the sentence; with
none to take, it is the latest complete such period at the reference date, never one not yet over
(`第四季度` at 2026-03-15 is 2025Q4, `第一季度` 2025Q1, `前三季度` 2025Q1–Q3), and is listed by
`periods_assumed` so that the answer says so (`years`).

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

from core.language.periods.calendar import (
    latest_complete_fiscal_year,
    latest_complete_of_type,
    period_end,
    period_from_parts,
    periods_before,
)
from core.language.periods.grammar import (
    period_parse,
    periods_assumed,
    periods_cumulative,
    periods_find,
    periods_unread,
)
from core.language.periods.series import period_shifts, series_asked, series_unbounded, series_words

__all__ = [
    "latest_complete_fiscal_year",
    "latest_complete_of_type",
    "period_end",
    "period_from_parts",
    "period_parse",
    "period_shifts",
    "periods_assumed",
    "periods_before",
    "periods_cumulative",
    "periods_find",
    "periods_unread",
    "series_asked",
    "series_unbounded",
    "series_words",
]
