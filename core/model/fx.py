"""A curated exchange rate as the FX table hands it to the core (SPEC §5a: a currency asked is
converted only with a curated rate, average for flows and closing for balances)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from core.model.period import Period

RATE_AVERAGE = "average"  # over the period: for flows (revenue, profit)
RATE_CLOSING = "closing"  # at the period's end: for balances (assets, debt)
RATE_TYPES = (RATE_AVERAGE, RATE_CLOSING)
CURRENCY_RE = re.compile(r"^[A-Z]{3}$")  # an ISO 4217 code: USD, EUR, CNY …


@dataclass(frozen=True)
class FxQuote:
    """One curated rate: 1 `base_currency` is worth `rate` `quote_currency` over `period`
    (USD/CNY 7.1: one US dollar is 7.1 yuan), with where the rate comes from and its date."""

    base_currency: str
    quote_currency: str
    rate: Decimal
    rate_type: str
    period: Period  # `period.label` is how an answer names it: FY2025, 2025H1, 2025Q4
    source: str
    as_of: date | None = None

    def __post_init__(self) -> None:
        for currency in (self.base_currency, self.quote_currency):
            if not CURRENCY_RE.match(currency):
                raise ValueError(f"a currency is an ISO 4217 code of three capitals, not {currency!r}")
        if self.base_currency == self.quote_currency:
            raise ValueError(f"a rate converts between two currencies, not {self.base_currency} to itself")
        if not isinstance(self.rate, Decimal) or not self.rate.is_finite() or self.rate <= 0:
            raise ValueError(f"a rate is a positive finite Decimal, not {self.rate!r}")
        if self.rate_type not in RATE_TYPES:
            raise ValueError(f"a rate type is one of {', '.join(RATE_TYPES)}, not {self.rate_type!r}")

    @property
    def pair(self) -> str:
        return f"{self.base_currency}/{self.quote_currency}"
