"""Writes of the curated FX table: one rate saved (admin), and `manage.py import_fx`'s rows
upserted on their key (pair, rate type, period), all or nothing.

Columns: `base,quote,period,rate,rate_type` plus optional `as_of,source`. A bad row (a currency
that is not three letters, a rate that is not a positive decimal, a rate type other than
`average` / `closing`, a period that is not one absolute period, a pair whose inverse is stored
for the same type and period) aborts the import with row-numbered errors, and nothing is written.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from core.model.fx import CURRENCY_RE, RATE_TYPES
from core.model.period import Period

from ..models import FxRate
from ..periods import period_absolute
from .glossary_import import ImportAborted

REQUIRED = ("base", "quote", "period", "rate", "rate_type")
OPTIONAL = ("as_of", "source")
MAX_REPORTED_ERRORS = 100
_SOURCE_LENGTH = FxRate._meta.get_field("source").max_length or 255
_EXTRA = "\x00extra"  # marks a row with more values than the header has columns; no header is named so


@dataclass(frozen=True)
class FxRateDraft:
    """One rate to store: its key (pair, rate type, period) and what it says."""

    base_currency: str
    quote_currency: str
    period: Period
    rate: Decimal
    rate_type: str
    source: str
    as_of: date | None = None


@dataclass
class FxImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0


@transaction.atomic
def fx_rate_save(*, fx_rate: FxRate) -> FxRate:
    """Save a rate a curator edited (admin), checked first (`FxRate.clean`)."""
    fx_rate.full_clean()
    fx_rate.save()
    return fx_rate


@transaction.atomic
def fx_rate_put(*, draft: FxRateDraft) -> tuple[FxRate, str]:
    """Store `draft` on its key: `created`, `updated` (its rate, date or source changed) or
    `unchanged`. A rate that breaks a rule (`FxRate.clean`: its inverse is already stored for the
    same type and period …) raises `ValidationError` and writes nothing."""
    key = {
        "base_currency": draft.base_currency,
        "quote_currency": draft.quote_currency,
        "rate_type": draft.rate_type,
        "period_type": draft.period.period_type,
        "period": draft.period.period,
    }
    fx_rate = FxRate.objects.filter(**key).first()
    if fx_rate is not None and _said(fx_rate.rate, fx_rate.as_of, fx_rate.source) == _said(
        draft.rate, draft.as_of, draft.source
    ):
        return fx_rate, "unchanged"
    outcome = "created" if fx_rate is None else "updated"
    fx_rate = fx_rate or FxRate(**key)
    fx_rate.rate, fx_rate.as_of, fx_rate.source = draft.rate, draft.as_of, draft.source
    fx_rate.full_clean()
    fx_rate.save()
    return fx_rate, outcome


def _said(rate: Decimal, as_of: date | None, source: str) -> tuple[str, date | None, str]:
    """What a rate says, compared as the text stored: a rate is kept with its scale (`7.10`
    stays `7.10`), so a new scale is a change, on both backends alike."""
    return (format(rate, "f"), as_of, source)


def fx_rows_read(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The file's rows, numbered as a spreadsheet shows them (the header is row 1)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        names = {(name or "").strip().lower() for name in reader.fieldnames or []}
        missing = [column for column in REQUIRED if column not in names]
        if missing:
            raise ImportAborted([f"header: missing column(s) {', '.join(missing)}"])
        rows = []
        for number, row in enumerate(reader, start=2):
            cells = {(name or "").strip().lower(): value for name, value in row.items() if name is not None}
            if any((extra or "").strip() for extra in row.get(None) or ()):  # type: ignore[call-overload]
                cells[_EXTRA] = "yes"
            if any((value or "").strip() for value in cells.values()):
                rows.append((number, cells))
        return rows


def fx_row_parse(number: int, cells: dict[str, str], *, source_name: str) -> FxRateDraft | str:
    """One row as a draft, or its row-numbered errors in one message."""
    value = {column: (cells.get(column) or "").strip() for column in (*REQUIRED, *OPTIONAL)}
    problems = []
    if cells.get(_EXTRA):
        problems.append("more values than the header has columns")
    base, quote = value["base"].upper(), value["quote"].upper()
    for column, code in (("base", base), ("quote", quote)):
        if not CURRENCY_RE.match(code):
            problems.append(
                f"{column} '{value[column][:40]}' is not an ISO 4217 currency code (three letters: USD, EUR, CNY …)"
            )
    if CURRENCY_RE.match(base) and base == quote:
        problems.append(f"base and quote are both {base}; a rate converts between two currencies")
    rate = _rate_parse(value["rate"])
    if isinstance(rate, str):
        problems.append(rate)
    rate_type = value["rate_type"].lower()
    if rate_type not in RATE_TYPES:
        problems.append(
            f"rate_type '{value['rate_type'][:40]}' is not one of {', '.join(RATE_TYPES)} "
            "(average for flows, closing for balances)"
        )
    period = period_absolute(value["period"]) if value["period"] else None
    if period is None:
        problems.append(f"period '{value['period'][:40]}' is not a period (FY2025, 2025H1, 2025Q4 …)")
    as_of = None
    if value["as_of"]:
        try:
            as_of = date.fromisoformat(value["as_of"][:10])
        except ValueError:
            problems.append(f"as_of '{value['as_of'][:40]}' is not a date (YYYY-MM-DD)")
    source = value["source"] or source_name
    if len(source) > _SOURCE_LENGTH:
        problems.append(f"source is limited to {_SOURCE_LENGTH} characters")
    if problems or isinstance(rate, str) or period is None:
        return f"row {number}: {'; '.join(problems)}"
    return FxRateDraft(base, quote, period, rate, rate_type, source, as_of)


def _rate_parse(text: str) -> Decimal | str:
    try:
        rate = Decimal(text)
    except InvalidOperation:
        return f"rate '{text[:40]}' is not a decimal number (7.1, 0.1408 …)"
    if not rate.is_finite():
        return f"rate '{text[:40]}' is not a finite number"
    if rate <= 0:
        return f"rate '{text[:40]}' is not positive"
    return rate


@transaction.atomic
def fx_rates_import(*, rows: Iterable[tuple[int, dict[str, str]]], source_name: str) -> FxImportReport:
    """Upsert each row on its key (pair, rate type, period), all or nothing: any bad row raises
    `ImportAborted` with every bad row's number, and nothing is written. A blank `source` is the
    file's name."""
    drafts: list[tuple[int, FxRateDraft]] = []
    errors: list[str] = []
    first_row: dict[tuple[str, ...], int] = {}
    for number, cells in rows:
        parsed = fx_row_parse(number, cells, source_name=source_name)
        if isinstance(parsed, str):
            errors.append(parsed)
            continue
        pair = tuple(sorted((parsed.base_currency, parsed.quote_currency)))
        key = (*pair, parsed.rate_type, parsed.period.period_type, parsed.period.period)
        if key in first_row:
            errors.append(
                f"row {number}: {parsed.base_currency}/{parsed.quote_currency} {parsed.rate_type} "
                f"{parsed.period.label} is also on row {first_row[key]} (one rate per pair, either way round)"
            )
            continue
        first_row[key] = number
        drafts.append((number, parsed))
    if errors:
        raise ImportAborted(errors[:MAX_REPORTED_ERRORS], len(errors))
    report = FxImportReport()
    for number, draft in drafts:
        try:
            _, outcome = fx_rate_put(draft=draft)
        except ValidationError as error:
            errors.append(f"row {number}: {' '.join(error.messages)}")
            continue
        setattr(report, outcome, getattr(report, outcome) + 1)
    if errors:
        raise ImportAborted(errors[:MAX_REPORTED_ERRORS], len(errors))
    return report
