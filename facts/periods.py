"""A period as a data file or a curator writes it (`FY2025`, `2025H1`, `2025Q4`, `2025年上半年` …):
absolute only. Shared by the fact and FX imports and the FX table's admin."""

from __future__ import annotations

from datetime import date

from core.language.periods import period_parse
from core.model.period import Period


def period_absolute(text: str) -> Period | None:
    """The one period `text` names, or None. A period that reads differently on two reference
    dates is relative (去年, last quarter …): meaningless in a stored row, so it is None too."""
    first, second = period_parse(text, date(2000, 1, 1)), period_parse(text, date(2001, 7, 1))
    return first if first == second else None
