"""Reads of the curated FX table: the rates (`fx_rate_list`) and one pair's rate either way round
(`fx_rate_get`, which `facts.selectors.OrmFxRates` serves to the core). Rates carry no
sensitivity: every user may see them."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from core.model.fx import FxQuote
from core.model.period import Period

from .models import FxRate


def fx_rate_list() -> QuerySet[FxRate]:
    return FxRate.objects.all()


def fx_rate_get(*, base: str, quote: str, period_type: str, period: str, rate_type: str) -> FxQuote | None:
    """The `rate_type` rate between `base` and `quote` for the period: the pair as asked when it
    is stored, else its inverse (the quote's currencies say which), else None. One query."""
    direct = Q(base_currency=base, quote_currency=quote)
    inverse = Q(base_currency=quote, quote_currency=base)
    row = (
        fx_rate_list()
        .filter(direct | inverse, rate_type=rate_type, period_type=period_type, period=period)
        .order_by(Case(When(direct, then=Value(0)), default=Value(1), output_field=IntegerField()))
        .first()
    )
    if row is None:
        return None
    return FxQuote(
        base_currency=row.base_currency,
        quote_currency=row.quote_currency,
        rate=row.rate,
        rate_type=row.rate_type,
        period=Period(row.period_type, row.period),
        source=row.source,
        as_of=row.as_of,
    )
