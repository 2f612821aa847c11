"""`import_facts`: stream long-format rows into the fact table, all or nothing.

Columns: `entity,metric,period,value,unit` plus optional `channel,source_doc,locator,valid_as_of,
sensitivity,document`. `document` names an ingested document: the fact links to it, with `locator`
(required then) as its cell; document names are read once per import, not per row. Any alias
names an entity, metric or channel; any absolute period form is accepted. Rows are upserted on
the natural key of approved facts (a pending row of the same key stays in the review queue) in
batches, inside one transaction: a bad row aborts the whole import with row-numbered errors
(unless `skip_invalid`), and memory stays bounded by the batch size whatever the file's length.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from core.glossary import GlossarySnapshot
from core.language.periods import period_parse
from core.model.types import CODE_RE, SENSITIVITIES, Period
from ingestion.values import decimal_parse

from .models import Alias, Entity, FactMetric, Metric
from .selectors import glossary_snapshot
from .services import ImportAborted, glossary_changed, unit_ensure

BATCH = 2000
MAX_REPORTED_ERRORS = 100
REQUIRED = ("entity", "metric", "period", "value", "unit")
FIELDS = (*REQUIRED, "channel", "source_doc", "locator", "valid_as_of", "sensitivity", "document")
Cells = tuple[str, ...]  # one row's cells in FIELDS order, stripped, '' when absent


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
    document_id: int | None
    valid_as_of: date | None
    sensitivity: str


def rows_from_csv(path: Path) -> Iterator[tuple[int, Cells]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        picks = _header_picks(next(reader, []))
        for number, values in enumerate(reader, start=2):
            width = len(values)
            cells = tuple(values[i].strip() if i < width else "" for i in picks)
            if any(cells):
                yield number, cells


def rows_from_xlsx(path: Path) -> Iterator[tuple[int, Cells]]:
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises zip, XML and key errors on a broken file
        raise ImportAborted([f"file: not a readable .xlsx workbook ({type(error).__name__})"]) from None
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        picks = _header_picks([str(h or "") for h in next(rows, ())])
        for number, values in enumerate(rows, start=2):
            width = len(values)
            cells = tuple(_xlsx_cell(values[i]) if i < width else "" for i in picks)
            if any(cells):
                yield number, cells
    finally:
        workbook.close()


def _xlsx_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime):
        return value.date().isoformat()
    return str(value).strip()


def _header_picks(header: list[str]) -> list[int]:
    """For each of FIELDS, its column index in the file (or one past the end when absent)."""
    names = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise ImportAborted([f"header: missing column(s) {', '.join(missing)}"])
    return [names.index(f) if f in names else len(names) + 1_000 for f in FIELDS]


def rows_count(path: Path) -> int | None:
    """Data rows in a CSV (for the progress bar), counted without parsing."""
    if path.suffix.lower() != ".csv":
        return None
    with path.open("rb") as handle:
        return max(sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1, 0)


class _Resolver:
    """Turns raw cells into codes, with a cache per distinct cell (files repeat them a lot)."""

    def __init__(self, glossary: GlossarySnapshot, create_missing: bool, report: FactImportReport):
        self.glossary = glossary
        self.create_missing = create_missing
        self.report = report
        self.cache: dict[tuple[str, str], str | None] = {}
        self.periods: dict[str, Period | None] = {}
        self.units: dict[str, str | None] = {}
        self.documents: dict[str, int] | None = None

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
        code = (
            raw.upper() if CODE_RE.match(raw.upper()) else f"AUTO_{hashlib.sha1(raw.encode()).hexdigest()[:8].upper()}"
        )
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

    def document(self, name: str) -> int | None:
        if self.documents is None:
            # Every name at once, on the first row that names one: one query per import.
            document_model = FactMetric._meta.get_field("document").related_model
            self.documents = dict(document_model.objects.values_list("name", "pk"))  # type: ignore[union-attr]
        return self.documents.get(name)

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


def _row_parse(number: int, cells: Cells, resolver: _Resolver, source_name: str) -> _Row | str:
    raw_entity, raw_metric, raw_period, raw_value, raw_unit, raw_channel, source_doc, locator, as_of, sens, doc = cells
    unit = resolver.unit(raw_unit)
    if unit is None:
        return f"row {number}: unknown unit '{raw_unit[:40]}'"
    entity = resolver.code("entity", raw_entity)
    if entity is None:
        return f"row {number}: unknown entity '{raw_entity[:40]}'"
    metric = resolver.code("metric", raw_metric, unit)
    if metric is None:
        return f"row {number}: unknown metric '{raw_metric[:40]}'"
    channel = resolver.code("channel", raw_channel or "TOTAL")
    if channel is None:
        return f"row {number}: unknown channel '{raw_channel[:40]}'"
    period = resolver.period(raw_period)
    if period is None:
        return f"row {number}: '{raw_period[:40]}' is not a period (FY2025, 2025H1, 2025Q4 …)"
    try:
        value = decimal_parse(raw_value)
    except (InvalidOperation, ValueError):
        return f"row {number}: value '{raw_value[:40]}' is not a number"
    valid_as_of = None
    if as_of:
        try:
            valid_as_of = date.fromisoformat(as_of[:10])
        except ValueError:
            return f"row {number}: valid_as_of '{as_of[:40]}' is not a date (YYYY-MM-DD)"
    sensitivity = sens.upper() if sens else "INTERNAL"
    if sensitivity not in SENSITIVITIES:
        return f"row {number}: sensitivity must be one of {', '.join(SENSITIVITIES)}"
    document_id = None
    if doc:
        document_id = resolver.document(doc)
        if document_id is None:
            return f"row {number}: unknown document '{doc[:80]}' (no ingested document has that name)"
        if source_doc and source_doc != doc:
            return f"row {number}: source_doc '{source_doc[:40]}' differs from document '{doc[:40]}'"
        if not locator:
            return f"row {number}: a document needs a locator (where in it, e.g. sheet=Sheet1!B2 or page=3)"
        source_doc = doc
    source_doc = source_doc or source_name
    locator = locator or f"file={source_name},row={number}"
    if len(source_doc) > 255 or len(locator) > 255:
        return f"row {number}: source_doc and locator are limited to 255 characters"
    return _Row(
        (metric, entity, period.period_type, period.period, channel),
        value,
        unit,
        source_doc,
        locator,
        document_id,
        valid_as_of,
        sensitivity,
    )


def facts_import(
    *,
    rows: Iterable[tuple[int, Cells]],
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


_COLUMNS = (
    "metric_code",
    "entity_code",
    "period_type",
    "period",
    "channel_code",
    "value",
    "unit_code",
    "source_doc",
    "locator",
    "document_id",
    "valid_as_of",
    "sensitivity",
    "review_status",
    "suggested_alias",
    "review_note",
    "ingested_at",
)
_KEY_COLUMNS = _COLUMNS[:5]
_STAGE = "ragspine_fact_stage"
# A literal, not a parameter: an upsert's conflict target must repeat the partial index's predicate.
_APPROVED = f"review_status = '{FactMetric.Review.APPROVED.value}'"
_PG_TYPES = ("text",) * 5 + ("numeric", "text", "text", "text", "bigint", "date") + ("text",) * 4 + ("timestamptz",)
# A row without a document keeps the link an existing fact of its key has (as before the
# `document` column existed): only a named document sets it.
_DOCUMENT_KEPT = "COALESCE(excluded.document_id, {table}.document_id)"


def _batch_write(batch: dict[tuple[str, str, str, str, str], _Row], report: FactImportReport) -> None:
    """Upsert one batch with plain SQL: the ORM's per-object work would cost more than the database."""
    postgres = connection.vendor == "postgresql"
    ops = connection.ops
    now = ops.adapt_datetimefield_value(timezone.now())
    rows = [
        (
            *key,
            row.value if postgres else format(row.value, "f"),
            row.unit,
            row.source_doc,
            row.locator,
            row.document_id,
            ops.adapt_datefield_value(row.valid_as_of),
            row.sensitivity,
            FactMetric.Review.APPROVED.value,
            "",
            "",
            now,
        )
        for key, row in batch.items()
    ]
    with connection.cursor() as cursor:
        if postgres:
            _pg_stage(cursor, rows)
            inserted = _upsert(cursor, rows, staged=True)
            report.created += sum(inserted)
            report.updated += len(inserted) - sum(inserted)
            report.unchanged += len(rows) - len(inserted)
            return
        existing = _existing(cursor, list(batch))
        writes = []
        for row, (key, parsed) in zip(rows, batch.items(), strict=True):
            old = existing.get(key)
            document_id = parsed.document_id
            if document_id is None and old is not None:
                document_id = old[4]
            new_state = (
                str(parsed.value),
                parsed.unit,
                parsed.source_doc,
                parsed.locator,
                document_id,
                parsed.valid_as_of,
                parsed.sensitivity,
                "approved",
            )
            if old == new_state:
                report.unchanged += 1
                continue
            if old is None:
                report.created += 1
            else:
                report.updated += 1
            writes.append(row)
        if writes:
            _upsert(cursor, writes, staged=False)


def _pg_stage(cursor: Any, rows: list[tuple[Any, ...]]) -> None:
    """COPY the batch into a temporary table (PostgreSQL's fastest way in)."""
    columns = ", ".join(f"{c} {t}" for c, t in zip(_COLUMNS, _PG_TYPES, strict=True))
    cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_STAGE} ({columns}) ON COMMIT DROP")
    cursor.execute(f"TRUNCATE {_STAGE}")
    with cursor.cursor.copy(f"COPY {_STAGE} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _upsert(cursor: Any, writes: list[tuple[Any, ...]], *, staged: bool) -> list[bool]:
    """Insert or update; from the PostgreSQL stage only rows that differ, returning which were new."""
    table = connection.ops.quote_name(FactMetric._meta.db_table)
    document_kept = _DOCUMENT_KEPT.format(table=table)
    updates = ", ".join(f"{c} = {document_kept}" if c == "document_id" else f"{c} = excluded.{c}" for c in _COLUMNS[5:])
    # The conflict target is the partial unique index of approved facts (`fact_approved_key`):
    # a pending row on the same key is left in the review queue, beside the imported fact.
    conflict = f"ON CONFLICT ({', '.join(_KEY_COLUMNS)}) WHERE {_APPROVED} DO UPDATE SET {updates}"
    if staged:
        changed = ", ".join(f"{table}.{c}" for c in _COLUMNS[5:-1])
        incoming = ", ".join(document_kept if c == "document_id" else f"excluded.{c}" for c in _COLUMNS[5:-1])
        # xmax is 0 on a freshly inserted row version and set on an updated one.
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(_COLUMNS)}) SELECT {', '.join(_COLUMNS)} FROM {_STAGE} "
            f"{conflict} WHERE ({changed}) IS DISTINCT FROM ({incoming}) RETURNING (xmax = 0)"
        )
        return [bool(row[0]) for row in cursor.fetchall()]
    row_sql = "(" + ",".join(["%s"] * len(_COLUMNS)) + ")"
    for start in range(0, len(writes), 500):
        chunk = writes[start : start + 500]
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(_COLUMNS)}) VALUES {','.join([row_sql] * len(chunk))} {conflict}",
            [cell for row in chunk for cell in row],
        )
    return []


def _existing(cursor: Any, keys: list[tuple[str, str, str, str, str]]) -> dict[tuple[str, ...], tuple[Any, ...]]:
    """Current state of the approved facts with these keys, by an indexed join (500 keys a query;
    SQLite only). The index is named: left to itself, SQLite's planner may build a temporary
    index over the whole table for every batch, which made an import quadratic."""
    table = connection.ops.quote_name(FactMetric._meta.db_table)
    found: dict[tuple[str, ...], tuple[Any, ...]] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        cursor.execute(
            f"WITH k (m, e, pt, p, c) AS (VALUES {','.join(['(%s,%s,%s,%s,%s)'] * len(chunk))}) "
            f"SELECT f.metric_code, f.entity_code, f.period_type, f.period, f.channel_code, f.value, f.unit_code, "
            f"f.source_doc, f.locator, f.document_id, f.valid_as_of, f.sensitivity, f.review_status "
            f"FROM k JOIN {table} f INDEXED BY fact_approved_key ON f.metric_code = k.m "
            f"AND f.entity_code = k.e AND f.period_type = k.pt AND f.period = k.p AND f.channel_code = k.c "
            f"AND f.{_APPROVED}",
            [part for key in chunk for part in key],
        )
        for row in cursor.fetchall():
            as_of = date.fromisoformat(row[10]) if isinstance(row[10], str) else row[10]
            found[tuple(row[:5])] = (str(row[5]), row[6], row[7], row[8], row[9], as_of, row[11], row[12])
    return found


__all__ = ["FactImportReport", "ImportAborted", "facts_import", "rows_count", "rows_from_csv", "rows_from_xlsx"]
