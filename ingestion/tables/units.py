"""What a value cell is counted in: the scale and currency that apply to it, and
its conversion into the metric's unit, or why it waits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from core.language.normalize import text_normalize

from ..scales import AS_PRINTED, DOLLAR, Printed, dollar_currency, scale_read, unit_code, unit_parse
from ..values import UnitHint
from .layout import _Column
from .scope import Row, TableScope

COUNT = "COUNT"


def printed_merge(statements: Iterable[Printed | None]) -> Printed | None:
    """The first scale stated, with the first currency stated beside any of them."""
    stated = [p for p in statements if p is not None]
    scaled = next((p for p in stated if p.factor is not None), None)
    # The nearest currency named wins (a row's `US$` over the table's `RMB'000`); a bare `$` only
    # when nothing names one.
    currency = next((p.currency for p in stated if p.currency and p.currency != DOLLAR), "")
    currency = currency or next((p.currency for p in stated if p.currency), "")
    if scaled is None:
        return Printed(currency, None) if currency else None
    excepted = " ".join(p.excepted for p in stated if p.excepted)
    return Printed(currency, scaled.factor, excepted)


def unit_resolve(
    scope: TableScope,
    row: Row,
    column: _Column,
    *,
    metric: str,
    entity: str,
    parsed: tuple[Decimal, bool],
    currency: str,
) -> tuple[Decimal, str, list[str]]:
    """The value in the unit the fact is stored in, that unit's code ("" for none), and problems.

    A percent value (`29.7%`) or a unit on the row label (`（家）`) must be the metric's unit. A
    money figure takes its scale from the row label, else the column header, else the table
    (header, title, caption, the sentence before it) and its currency from the cell, the label,
    the header, the table, else the company's; it is converted exactly into the metric's scale,
    or kept as printed for an `AS_PRINTED` metric. No stated scale: pending, never a guess.
    """
    value, percent = parsed
    glossary = scope.reader.glossary
    metric_info = glossary.metrics.get(metric)
    metric_unit = metric_info.unit if metric_info is not None else ""
    metric_money = unit_parse(metric_unit)
    explicit = UnitHint("PCT") if percent else row.unit
    table = scope.context.printed
    percent_open = explicit is None and table is not None and (metric_unit in ("", AS_PRINTED) or metric_money)
    kind = _excepted_kind(table.excepted, row) if percent_open else None
    if kind == "percent":
        explicit = UnitHint("PCT")  # `(in millions, except percentages)`: a `%` row is a percentage
    elif kind == "percent?":
        return value, "", [f"the table excepts percentages: is '{row.label}' one?"]
    if explicit is not None:
        problems = []
        if metric_unit and metric_unit != AS_PRINTED and explicit.code != metric_unit:
            problems.append(f"unit {explicit.code} but {metric} is in {metric_unit}")
        return value * explicit.factor, explicit.code, problems
    if metric_unit and metric_unit != AS_PRINTED and metric_money is None:
        return _count_resolve(scope, row, column, value=value, metric=metric, unit=metric_unit)
    if per_share_row(glossary, row, metric):
        return value, metric_unit, [f"a per-share figure ('{row.label}'): not {metric}, which is in {metric_unit}"]
    printed = _printed_for(scope, row, column, currency)
    info = glossary.entities.get(entity)
    company = info.currency if info is not None else ""
    stated = printed.currency if printed is not None else ""
    if stated == DOLLAR:
        stated = dollar_currency(company)
    factor = printed.factor if printed is not None else None
    if factor is None:
        where = "the row, its column, the table's title or the sentence before it"
        return value, metric_unit if metric_money else "", [f"no scale stated ({where} name none)"]
    if metric_money is None:  # AS_PRINTED, or no metric: keep what the table prints
        code = unit_code(stated or company, factor)
        if code is None:
            return value, "", [f"a scale of {factor} has no unit"]
        return value, code, []
    wanted_currency, wanted_factor = metric_money
    stated = stated or company
    if stated and wanted_currency and stated != wanted_currency:
        return value, metric_unit, [f"printed in {stated} but {metric} is in {wanted_currency}"]
    return value * (factor / wanted_factor), metric_unit, []


def _count_resolve(
    scope: TableScope, row: Row, column: _Column, *, value: Decimal, metric: str, unit: str
) -> tuple[Decimal, str, list[str]]:
    """A figure of a metric that is no money (a count, persons, a ratio). A scale on its own row
    (`Stores (thousands)`) converts a plain count exactly; a scale with no currency that the
    table states for every figure (`(in thousands)`) leaves it open whether it counts this row
    too, so the fact waits; a money statement (`RMB'000`) does not concern it."""
    ambient = column.reading.unit or scope.context.unit
    factor = ambient.factor if ambient is not None and ambient.code == unit else Decimal(1)
    stated = row.printed.factor if row.printed is not None else None
    if stated is not None:
        if unit == COUNT:
            return value * stated, unit, []
        return value, unit, [f"the row states a scale of {stated} for {metric}, which is in {unit}"]
    table = scope.context.printed
    if unit == COUNT and table is not None and table.factor not in (None, Decimal(1)) and not table.currency:
        excepted = _excepted_kind(table.excepted, row) is not None
        if not excepted:
            return (
                value,
                unit,
                [f"the table states a scale of {table.factor} for every figure: is {metric} counted in it?"],
            )
    return value * factor, unit, []


def _printed_for(scope: TableScope, row: Row, column: _Column, currency: str) -> Printed | None:
    """The scale and currency that apply to one cell: the row's, else the column's, else the
    table's; a row of the kind the table's statement excepts (`except per share data`) keeps
    its own figures."""
    table = scope.context.printed
    if table is not None and _excepted_kind(table.excepted, row) is not None:
        table = Printed(table.currency, Decimal(1))
    cell = scale_read(text_normalize(currency)) if currency else None
    return printed_merge([row.printed, column.reading.printed, table, cell])


# What an exception names, and the rows it covers (by their label or heading).
_EXCEPTIONS = {
    "per share": (
        re.compile(r"per[- ](?:share|ads|adr|unit)"),
        re.compile(r"per (?:[a-z]+ ){0,2}(?:share|ads|adr|unit)|\beps\b|每股"),
    ),
    "shares": (re.compile(r"(?<!per )\bshares?\b"), re.compile(r"(?<!per )\bshares?\b(?! price)|share count")),
    "percent": (re.compile(r"percent|%|ratio"), re.compile(r"%|percent|ratio")),
    "percent?": (re.compile(r"percent|%|ratio"), re.compile(r"margin|\brate\b|yield|return on")),
    "counts": (
        re.compile(r"headcount|employees|number of|units|stores"),
        re.compile(r"headcount|employees|number of|\bstores\b"),
    ),
}


def _excepted_kind(exception: str, row: Row) -> str | None:
    """Which kind of row the statement's exception covers this row as (by its heading and label), or None."""
    if not exception:
        return None
    text = f"{row.section} {row.label}".lower()
    return next(
        (kind for kind, (said, rows) in _EXCEPTIONS.items() if said.search(exception) and rows.search(text)), None
    )


def per_share_row(glossary: object, row: Row, metric: str) -> bool:
    """Whether a row prints an amount per share (by its label or heading) for a money metric
    that is no amount per share (`Earnings per share:` › `Net income attributable to …`)."""
    info = glossary.metrics.get(metric) if metric else None  # type: ignore[attr-defined]
    if info is None or unit_parse(info.unit) is None:
        return False
    return per_share_label(f"{row.section} {row.label}") and not _per_share_metric(glossary, metric)


def per_share_label(text: str) -> bool:
    """A row an amount per share is printed in (`Earnings per share:` › `Basic`, `每股收益`)."""
    return bool(_EXCEPTIONS["per share"][1].search(text.lower()))


def _per_share_metric(glossary: object, metric: str) -> bool:
    """Whether a metric is itself an amount per share (its name or an alias says so)."""
    aliases = glossary.aliases_of("metric", metric)  # type: ignore[attr-defined]
    return any(per_share_label(text) for text in aliases)
