"""A fiscal period: a year (`FY` + `2025`), a half (`HY` + `2025H1`) or a quarter (`QUARTER` +
`2025Q4`), with its label and its place in time. Frozen, like every value type of the core: a
stage that reads a period can never rewrite it for the stages after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PeriodType = Literal["FY", "HY", "QUARTER"]


@dataclass(frozen=True, order=True)
class Period:
    """A fiscal period: `FY` + `2025`, `HY` + `2025H1`, `QUARTER` + `2025Q4`."""

    period_type: str
    period: str

    @property
    def year(self) -> int:
        return int(self.period[:4])

    @property
    def label(self) -> str:
        return f"FY{self.period}" if self.period_type == "FY" else self.period

    @property
    def sort_key(self) -> tuple[int, int]:
        """Chronological order: quarters and halves sort inside their year."""
        if self.period_type == "FY":
            return (self.year, 9)
        if self.period_type == "HY":
            return (self.year, 2 if self.period.endswith("H1") else 6)
        return (self.year, int(self.period[-1]) * 2 - 1)
