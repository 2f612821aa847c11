"""`import_facts`: stream long-format rows into the fact table, all or nothing.

Columns: `entity,metric,period,value,unit` plus optional `channel,source_doc,locator,valid_as_of,
sensitivity`. Any alias names an entity, metric or channel; any absolute period form is
accepted. Rows are upserted on the natural key in batches, inside one transaction: a bad row
aborts the whole import with row-numbered errors (unless `skip_invalid`), and memory stays
bounded by the batch size whatever the file's length.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from django.db import connection, transaction

from agent.core.glossary import GlossarySnapshot
from agent.core.periods import period_parse
from agent.core.types import CODE_RE, SENSITIVITIES, Period

from .models import Alias, Entity, FactMetric, Metric
from .selectors import glossary_snapshot
from .services import ImportAborted, glossary_changed, unit_ensure

BATCH = 2000
MAX_REPORTED_ERRORS = 100
REQUIRED = ("entity", "metric", "period", "value", "unit")
_UPDATE_FIELDS = ["value", "unit", "source_doc", "locator", "valid_as_of", "sensitivity", "review_status", "ingested_at"]


@dataclass
class FactImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)
    created_entities: list[str] = field(default_factory=list)
    created_metrics: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Row:
    key: tuple[str, str, str, str, str]
    value: Decimal
    unit: str
    source_doc: str
    locator: str
    valid_as_of: date | None
    sensitivity: str


def rows_from_csv(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = [h.strip().lower() for h in next(reader, [])]
        _check_header(header)
        for number, values in enumerate(reader, start=2):
            if not any(v.strip() for v in values):
                continue
            yield number, dict(zip(header, values))


def rows_from_xlsx(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises zip, XML and key errors on a broken file
        raise ImportAborted([f"file: not a readable .xlsx workbook ({type(error).__name__})"]) from None
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        header = [str(h or "").strip().lower() for h in next(rows, ())]
        _check_header(header)
        for number, values in enumerate(rows, start=2):
            if all(v in (None, "") for v in values):
                continue
            yield number, dict(zip(header, values))
    finally:
        workbook.close()


def rows_count(path: Path) -> int | None:
    """Data rows in a CSV (for the progress bar), counted without parsing."""
    if path.suffix.lower() != ".csv":
        return None
    with path.open("rb") as handle:
        return max(sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1, 0)


def _check_header(header: list[str]) -> None:
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ImportAborted([f"header: missing column(s) {', '.join(missing)}"])


class _Resolver:
    """Turns raw cells into codes, with a cache per distinct cell (files repeat them a lot)."""

    def __init__(self, glossary: GlossarySnapshot, create_missing: bool, report: FactImportReport):
        self.glossary = glossary
        self.create_missing = create_missing
        self.report = report
        self.cache: dict[tuple[str, str], str | None] = {}
        self.periods: dict[str, Period | None] = {}
        self.units: dict[str, str | None] = {}

    def code(self, kind: str, raw: str, unit: str = "") -> str | None:
        key = (kind, raw)
        if key not in self.cache:
            code = self.glossary.resolve(kind, raw)
            if code is not None and kind == "entity" and self.glossary.is_external(code):
                code = None
            if code is None and self.create_missing and kind in ("entity", "metric") and raw:
                code = self._create(kind, raw, unit)
            self.cache[key] = code
        return self.cache[key]

    def _create(self, kind: str, raw: str, unit: str) -> str | None:
        code = raw.upper() if CODE_RE.match(raw.upper()) else f"AUTO_{hashlib.sha1(raw.encode()).hexdigest()[:8].upper()}"
        if kind == "entity":
            Entity.objects.get_or_create(code=code, defaults={"name": raw, "kind": "subsidiary"})
            self.report.created_entities.append(code)
        else:
            if not unit:
                return None
            Metric.objects.get_or_create(code=code, defaults={"name": raw, "unit_id": unit})
            self.report.created_metrics.append(code)
        if raw != code:
            Alias.objects.get_or_create(text=raw, defaults={f"{kind}_id": _pk(kind, code), "kind": kind})
        return code

    def period(self, raw: str) -> Period | None:
        if raw not in self.periods:
            # A period that reads differently on two reference dates is relative (去年, last
            # quarter …): meaningless in a data file, so it is rejected.
            first, second = period_parse(raw, date(2000, 1, 1)), period_parse(raw, date(2001, 7, 1))
            self.periods[raw] = first if first == second else None
        return self.periods[raw]

    def unit(self, raw: str) -> str | None:
        if raw not in self.units:
            code: str | None = raw if raw in self.glossary.units else None
            if code is None:
                for unit in self.glossary.units.values():
                    if raw and raw in (unit.name_zh, unit.name_en):
                        code = unit.code
            if code is None and self.create_missing and CODE_RE.match(raw):
                code = unit_ensure(raw).code
            self.units[raw] = code
        return self.units[raw]


def _pk(kind: str, code: str) -> int:
    model = Entity if kind == "entity" else Metric
    return int(model.objects.values_list("pk", flat=True).get(code=code))


def _cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value).strip()


def decimal_parse(raw: str) -> Decimal:
    """Exact decimal from a cell: `1,234.5`, `(1,234)` as negative; never NaN or infinity."""
    text = raw.replace(",", "").replace("，", "").replace(" ", "")
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1]
    value = Decimal(text)
    if not value.is_finite():
        raise InvalidOperation
    return -value if negative else value


def _row_parse(number: int, row: dict[str, Any], resolver: _Resolver, source_name: str) -> _Row | str:
    unit = resolver.unit(_cell(row, "unit"))
    if unit is None:
        return f"row {number}: unknown unit '{_cell(row, 'unit')[:40]}'"
    entity = resolver.code("entity", _cell(row, "entity"))
    if entity is None:
        return f"row {number}: unknown entity '{_cell(row, 'entity')[:40]}'"
    metric = resolver.code("metric", _cell(row, "metric"), unit)
    if metric is None:
        return f"row {number}: unknown metric '{_cell(row, 'metric')[:40]}'"
    raw_channel = _cell(row, "channel") or "TOTAL"
    channel = resolver.code("channel", raw_channel)
    if channel is None:
        return f"row {number}: unknown channel '{raw_channel[:40]}'"
    period = resolver.period(_cell(row, "period"))
    if period is None:
        return f"row {number}: '{_cell(row, 'period')[:40]}' is not a period (FY2025, 2025H1, 2025Q4 …)"
    try:
        value = decimal_parse(_cell(row, "value"))
    except (InvalidOperation, ValueError):
        return f"row {number}: value '{_cell(row, 'value')[:40]}' is not a number"
    valid_as_of = None
    if _cell(row, "valid_as_of"):
        try:
            valid_as_of = date.fromisoformat(_cell(row, "valid_as_of")[:10])
        except ValueError:
            return f"row {number}: valid_as_of '{_cell(row, 'valid_as_of')[:40]}' is not a date (YYYY-MM-DD)"
    sensitivity = (_cell(row, "sensitivity") or "INTERNAL").upper()
    if sensitivity not in SENSITIVITIES:
        return f"row {number}: sensitivity must be one of {', '.join(SENSITIVITIES)}"
    source_doc = _cell(row, "source_doc") or source_name
    locator = _cell(row, "locator") or f"file={source_name},row={number}"
    if len(source_doc) > 255 or len(locator) > 255:
        return f"row {number}: source_doc and locator are limited to 255 characters"
    key = (metric, entity, period.period_type, period.period, channel)
    return _Row(key, value, unit, source_doc[:255], locator, valid_as_of, sensitivity)


def facts_import(
    *,
    rows: Iterable[tuple[int, dict[str, Any]]],
    source_name: str,
    skip_invalid: bool = False,
    create_missing: bool = False,
    progress: Callable[[int], None] | None = None,
) -> FactImportReport:
    """Upsert rows on the natural key; raise `ImportAborted` (writing nothing) on a bad row."""
    report = FactImportReport()
    with transaction.atomic():
        resolver = _Resolver(glossary_snapshot(), create_missing, report)
        batch: dict[tuple[str, str, str, str, str], _Row] = {}
        failed = False
        for number, row in rows:
            parsed = _row_parse(number, row, resolver, source_name)
            if isinstance(parsed, str):
                report.rejected += 1
                if len(report.errors) < MAX_REPORTED_ERRORS:
                    report.errors.append(parsed)
                failed = failed or not skip_invalid
            elif not failed:
                batch[parsed.key] = parsed
                if len(batch) >= BATCH:
                    _batch_write(batch, report)
                    batch = {}
            if progress is not None:
                progress(1)
        if failed:
            raise ImportAborted(report.errors, report.rejected)
        if batch:
            _batch_write(batch, report)
        if report.created_entities or report.created_metrics:
            glossary_changed()
    return report


def _batch_write(batch: dict[tuple[str, str, str, str, str], _Row], report: FactImportReport) -> None:
    existing = _existing(list(batch))
    writes = []
    for key, row in batch.items():
        old = existing.get(key)
        new_state = (str(row.value), row.unit, row.source_doc, row.locator, row.valid_as_of, row.sensitivity)
        if old is not None and old == new_state + ("approved",):
            report.unchanged += 1
            continue
        if old is None:
            report.created += 1
        else:
            report.updated += 1
        metric, entity, period_type, period, channel = key
        writes.append(
            FactMetric(
                metric_id=metric,
                entity_id=entity,
                period_type=period_type,
                period=period,
                channel_id=channel,
                value=row.value,
                unit_id=row.unit,
                source_doc=row.source_doc,
                locator=row.locator,
                valid_as_of=row.valid_as_of,
                sensitivity=row.sensitivity,
                review_status=FactMetric.Review.APPROVED,
            )
        )
    if writes:
        FactMetric.objects.bulk_create(
            writes,
            batch_size=500,
            update_conflicts=True,
            unique_fields=["metric", "entity", "period_type", "period", "channel"],
            update_fields=_UPDATE_FIELDS,
        )


def _existing(keys: list[tuple[str, str, str, str, str]]) -> dict[tuple[str, ...], tuple[Any, ...]]:
    """Current state of the rows with these natural keys, in one query per 500 keys."""
    table = FactMetric._meta.db_table
    found: dict[tuple[str, ...], tuple[Any, ...]] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            values = ",".join(["(%s,%s,%s,%s,%s)"] * len(chunk))
            params = [part for key in chunk for part in key]
            cursor.execute(
                f"SELECT metric_code, entity_code, period_type, period, channel_code, value, unit_code, "
                f"source_doc, locator, valid_as_of, sensitivity, review_status FROM {table} "
                f"WHERE (metric_code, entity_code, period_type, period, channel_code) IN (VALUES {values})",
                params,
            )
            for row in cursor.fetchall():
                as_of = row[9]
                if isinstance(as_of, str):
                    as_of = date.fromisoformat(as_of)
                found[tuple(row[:5])] = (str(row[5]), row[6], row[7], row[8], as_of, row[10], row[11])
    return found


__all__ = ["FactImportReport", "ImportAborted", "facts_import", "rows_count", "rows_from_csv", "rows_from_xlsx"]
