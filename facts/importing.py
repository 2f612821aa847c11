"""`import_facts`: stream long-format rows into the fact table, all or nothing.

Columns: `entity,metric,period,value,unit` plus optional `channel,source_doc,locator,valid_as_of,
sensitivity,document`. `document` names an ingested document: the fact links to it, with `locator`
(required then) as its cell; document names are read once per import, not per row. Any alias
names an entity, metric or channel; any absolute period form is accepted. Rows are upserted on
the natural key of approved facts (a pending row of the same key stays in the review queue) in
batches, inside one transaction: a bad row aborts the whole import with row-numbered errors
(unless `skip_invalid`), and memory stays bounded by the batch size whatever the file's length.
A value of a metric whose sign convention is `positive` is stored as the amount, with the value
as the file gives it kept as its printed value (`core.model.sign`), as ingestion stores it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import InvalidOperation
from operator import itemgetter
from pathlib import Path
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from core.glossary import GlossarySnapshot
from core.model.sign import SIGN_POSITIVE
from core.model.types import CODE_RE, SENSITIVITIES, Period
from ingestion.values import decimal_parse

from .models import Alias, Entity, FactMetric, Metric
from .periods import period_absolute
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


def rows_from_csv(path: Path) -> Iterator[tuple[int, Cells]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, [])
        picks = _header_picks(header)
        # An absent column reads the cell one past the row, which every row gets as ''; a row
        # shorter than the header takes the slower way, cell by cell.
        absent = len(header) + 1_000
        pick = itemgetter(*(-1 if i == absent else i for i in picks))
        strip = str.strip
        for number, values in enumerate(reader, start=2):
            width = len(values)
            values.append("")
            try:
                cells = tuple(map(strip, pick(values)))
            except IndexError:
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
    """Turns raw cells into codes, with a cache per distinct cell (files repeat them a lot).

    `codes[kind]`, `periods` and `units` are the caches themselves: the row parser reads them
    directly and calls the resolver only for a cell it has not seen."""

    def __init__(self, glossary: GlossarySnapshot, create_missing: bool, report: FactImportReport):
        self.glossary = glossary
        self.create_missing = create_missing
        self.report = report
        self.codes: dict[str, dict[str, str | None]] = {"entity": {}, "metric": {}, "channel": {}}
        self.periods: dict[str, Period | None] = {}
        self.units: dict[str, str | None] = {}
        self.documents: dict[str, int] | None = None
        # Metrics whose facts store the amount (`positive` sign convention); a metric the import
        # creates is `as_printed`, the default.
        self.positive = frozenset(code for code, info in glossary.metrics.items() if info.sign == SIGN_POSITIVE)
        # Entered around the resolver's own queries (`facts_import` makes them wait while a
        # batch is being written on the same connection).
        self.database: Callable[[], AbstractContextManager[Any]] = nullcontext

    def code(self, kind: str, raw: str, unit: str = "") -> str | None:
        cache = self.codes[kind]
        if raw not in cache:
            code = self.glossary.resolve(kind, raw)
            if code is not None and kind == "entity" and self.glossary.is_external(code):
                code = None
            if code is None and self.create_missing and kind in ("entity", "metric") and raw:
                with self.database():
                    code = self._create(kind, raw, unit)
            cache[raw] = code
        return cache[raw]

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
            self.periods[raw] = period_absolute(raw)  # a relative period (去年 …) is rejected
        return self.periods[raw]

    def document(self, name: str) -> int | None:
        if self.documents is None:
            # Every name at once, on the first row that names one: one query per import.
            document_model = FactMetric._meta.get_field("document").related_model
            with self.database():
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
                with self.database():
                    code = unit_ensure(raw).code
            self.units[raw] = code
        return self.units[raw]


def _pk(kind: str, code: str) -> int:
    model = Entity if kind == "entity" else Metric
    return int(model.objects.values_list("pk", flat=True).get(code=code))


# One parsed row, in the order of the first thirteen `_COLUMNS` (its first five are its key):
# metric, entity, period type, period, channel, value (exact text), unit, source_doc, locator,
# document id, valid_as_of (ISO text), sensitivity and the printed value (exact text, or None
# when the value is as printed).
Fact = tuple[str, str, str, str, str, str, str, str, str, int | None, str | None, str, str | None]
_UNSEEN: Any = object()


def _row_parse(number: int, cells: Cells, resolver: _Resolver, source_name: str) -> Fact | str:
    raw_entity, raw_metric, raw_period, raw_value, raw_unit, raw_channel, source_doc, locator, as_of, sens, doc = cells
    # Each cache is read here and the resolver called only for a cell not seen before: a million
    # rows repeat a few thousand names.
    unit = resolver.units.get(raw_unit, _UNSEEN)
    if unit is _UNSEEN:
        unit = resolver.unit(raw_unit)
    if unit is None:
        return f"row {number}: unknown unit '{raw_unit[:40]}'"
    codes = resolver.codes
    entity = codes["entity"].get(raw_entity, _UNSEEN)
    if entity is _UNSEEN:
        entity = resolver.code("entity", raw_entity)
    if entity is None:
        return f"row {number}: unknown entity '{raw_entity[:40]}'"
    metric = codes["metric"].get(raw_metric, _UNSEEN)
    if metric is _UNSEEN:
        metric = resolver.code("metric", raw_metric, unit)
    if metric is None:
        return f"row {number}: unknown metric '{raw_metric[:40]}'"
    raw_channel = raw_channel or "TOTAL"
    channel = codes["channel"].get(raw_channel, _UNSEEN)
    if channel is _UNSEEN:
        channel = resolver.code("channel", raw_channel)
    if channel is None:
        return f"row {number}: unknown channel '{raw_channel[:40]}'"
    period = resolver.periods.get(raw_period, _UNSEEN)
    if period is _UNSEEN:
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
            valid_as_of = date.fromisoformat(as_of[:10]).isoformat()
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
    printed = None
    if metric in resolver.positive:
        printed, value = format(value, "f"), value.copy_abs()
    if len(source_doc) > 255 or len(locator) > 255:
        return f"row {number}: source_doc and locator are limited to 255 characters"
    return (
        metric,
        entity,
        period.period_type,
        period.period,
        channel,
        # The text the database keeps (SQLite) or reads exactly (PostgreSQL), scale included.
        format(value, "f"),
        unit,
        source_doc,
        locator,
        document_id,
        valid_as_of,
        sensitivity,
        printed,
    )


def facts_import(
    *,
    rows: Iterable[tuple[int, Cells]],
    source_name: str,
    skip_invalid: bool = False,
    create_missing: bool = False,
    progress: Callable[[int], None] | None = None,
) -> FactImportReport:
    """Upsert rows on the natural key; raise `ImportAborted` (writing nothing) on a bad row.

    On PostgreSQL, an import that wrote rows and is not part of a larger transaction ends with
    `VACUUM (ANALYZE)` of the fact table, as bulk loads should: the planner gets the new rows'
    statistics, and the visibility map lets one metric's figures be read from an index alone."""
    report = FactImportReport()
    with transaction.atomic(), _page_cache():
        resolver = _Resolver(glossary_snapshot(), create_missing, report)
        db = connections[DEFAULT_DB_ALIAS]  # the connection object itself, which the writer shares
        writer = _Pipeline(_PostgresWriter(db) if db.vendor == "postgresql" else _SqliteWriter(db), report)
        resolver.database = writer.idle  # the parser's own reads and writes wait for the writer
        try:
            batch: dict[tuple[str, ...], Fact] = {}
            failed = False
            for number, row in rows:
                parsed = _row_parse(number, row, resolver, source_name)
                if isinstance(parsed, str):
                    report.rejected += 1
                    if len(report.errors) < MAX_REPORTED_ERRORS:
                        report.errors.append(parsed)
                    failed = failed or not skip_invalid
                elif not failed:
                    # A key twice in one batch is written once, with its last row.
                    batch[parsed[:5]] = parsed
                    if len(batch) >= BATCH:
                        writer.write(list(batch.values()))
                        batch = {}
                if progress is not None:
                    progress(1)
            if batch and not failed:
                writer.write(list(batch.values()))
        except BaseException:
            writer.close(raising=False)  # the writer stops before the transaction rolls back
            raise
        writer.close()  # every batch written, or the writer's error raised, before the transaction ends
        if failed:
            raise ImportAborted(report.errors, report.rejected)
        if report.created_entities or report.created_metrics:
            glossary_changed()
    if connection.vendor == "postgresql" and report.created + report.updated and not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(FactMetric._meta.db_table)}")
    return report


# SQLite's page cache during an import, in KiB (its default is 2,000): a batch's rows land all
# over the index of one metric's figures (`fact_metric_key_idx`), whose pages then stay cached
# between batches instead of being read back and spilled. A bound, whatever the file's length.
SQLITE_IMPORT_CACHE_KIB = 16_384
SQLITE_ROWS = 100  # rows per SQLite upsert statement


@contextmanager
def _page_cache() -> Iterator[None]:
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (before,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(before)}")


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
    "printed_value",
    "review_status",
    "suggested_alias",
    "review_note",
    "ingested_at",
)
_KEY_COLUMNS = _COLUMNS[:5]
# A literal, not a parameter: an upsert's conflict target must repeat the partial index's predicate.
_APPROVED = f"review_status = '{FactMetric.Review.APPROVED.value}'"
# What an imported row sets besides its thirteen parsed cells: approved, no review note, stamped now.
_SET_BY_IMPORT = f"'{FactMetric.Review.APPROVED.value}', '', '', %s"


def _upsert_tail(table: str, *, distinct: str) -> str:
    """The conflict clause of both backends' upserts. The conflict target is the partial unique
    index of approved facts (`fact_approved_key`): a pending row on the same key is left in the
    review queue, beside the imported fact. A row without a document keeps the link an existing
    fact of its key has (as before the `document` column existed): only a named document sets
    it. An existing fact that the row would not change is not written (`distinct`: the
    backend's `IS DISTINCT FROM`), so it counts as unchanged."""
    kept = f"COALESCE(excluded.document_id, {table}.document_id)"
    updates = ", ".join(f"{c} = {kept}" if c == "document_id" else f"{c} = excluded.{c}" for c in _COLUMNS[5:])
    compared = _COLUMNS[5:-1]  # everything but the time stamp
    old = ", ".join(f"{table}.{c}" for c in compared)
    new = ", ".join(kept if c == "document_id" else f"excluded.{c}" for c in compared)
    return (
        f"ON CONFLICT ({', '.join(_KEY_COLUMNS)}) WHERE {_APPROVED} DO UPDATE SET {updates} "
        f"WHERE ({old}) {distinct} ({new})"
    )


class _SqliteWriter:
    """Multi-row upserts of `SQLITE_ROWS` rows, one prepared statement run over the batch
    (`executemany`): within a statement SQLite keeps its index cursors where the last row left
    them, which a one-row statement run per row does not (that cost grows with the table), and
    the statement's text stays short enough to be prepared cheaply. The rows it inserted are the
    ones past the table's highest id before the batch (an update keeps its row's id); the rows it
    neither inserted nor changed are unchanged."""

    def __init__(self, db: BaseDatabaseWrapper) -> None:
        self.db = db
        self.table = db.ops.quote_name(FactMetric._meta.db_table)
        self.now = db.ops.adapt_datetimefield_value(timezone.now())
        self.rows = max(min(SQLITE_ROWS, db.features.max_query_params // 14), 1)

    def statement(self, rows: int) -> str:
        row_sql = "(" + ", ".join(["%s"] * 13) + f", {_SET_BY_IMPORT})"
        return f"INSERT INTO {self.table} ({', '.join(_COLUMNS)}) VALUES {', '.join([row_sql] * rows)} " + _upsert_tail(
            self.table, distinct="IS NOT"
        )

    def write(self, rows: list[Fact], report: FactImportReport) -> None:
        now, size = self.now, self.rows
        whole = len(rows) - len(rows) % size
        params = [[cell for row in rows[i : i + size] for cell in (*row, now)] for i in range(0, len(rows), size)]
        with self.db.cursor() as cursor:
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {self.table}")
            highest = cursor.fetchone()[0]
            written = 0
            if whole:
                cursor.executemany(self.statement(size), params[: whole // size])
                written += cursor.rowcount
            if whole < len(rows):
                cursor.execute(self.statement(len(rows) - whole), params[-1])
                written += cursor.rowcount
            cursor.execute(f"SELECT count(*) FROM {self.table} WHERE id > %s", [highest])
            created = cursor.fetchone()[0]
        report.created += created
        report.updated += written - created
        report.unchanged += len(rows) - written


# Each parsed column's type, as a PostgreSQL batch reads it back from JSON.
_PG_TYPES = ("text",) * 5 + ("numeric", "text", "text", "text", "bigint", "date", "text", "numeric")


class _PostgresWriter:
    """A batch is one statement with one parameter: the rows as a JSON array of arrays (encoded
    in C, parsed once by the server), turned back into typed rows by the statement, and the
    upsert reports how many rows it inserted and updated (`xmax` is 0 on a freshly inserted row
    version). One round trip per batch, no staging table."""

    def __init__(self, db: BaseDatabaseWrapper) -> None:
        self.db = db
        table = db.ops.quote_name(FactMetric._meta.db_table)
        self.now = timezone.now()
        cells = ", ".join(f"(r ->> {i})::{t}" for i, t in enumerate(_PG_TYPES))
        self.sql = (
            f"WITH written AS (INSERT INTO {table} ({', '.join(_COLUMNS)}) "
            f"SELECT {cells}, {_SET_BY_IMPORT} FROM jsonb_array_elements(%s::jsonb) AS r "
            + _upsert_tail(table, distinct="IS DISTINCT FROM")
            + " RETURNING (xmax = 0) AS created) "
            "SELECT count(*) FILTER (WHERE created), count(*) FROM written"
        )

    def write(self, rows: list[Fact], report: FactImportReport) -> None:
        with self.db.cursor() as cursor:
            cursor.execute(self.sql, [self.now, json.dumps(rows, ensure_ascii=False)])  # the stamp comes first
            created, written = cursor.fetchone()
        report.created += created
        report.updated += written - created
        report.unchanged += len(rows) - written


class _Pipeline:
    """Writes each batch on a second thread while the caller parses the next one: the database
    works (SQLite's C code and a PostgreSQL server both run without Python's lock) while Python
    parses. One batch waits at most, so memory stays bounded by the batch size. The writer
    thread uses the caller's connection, inside its transaction; `idle` holds off the caller's
    own queries while a batch is being written, and the first error stops the writing and is
    raised to the caller (by `write` or `close`), whose transaction then rolls back."""

    def __init__(self, writer: _SqliteWriter | _PostgresWriter, report: FactImportReport) -> None:
        self.writer, self.report = writer, report
        self.batches: queue.Queue[list[Fact] | None] = queue.Queue(maxsize=1)
        self.busy = threading.Lock()
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._run, name="import_facts writer", daemon=True)
        writer.db.inc_thread_sharing()
        self.thread.start()

    def _run(self) -> None:
        while (rows := self.batches.get()) is not None:
            if self.error is None and not self.cancelled:
                try:
                    with self.busy:
                        self.writer.write(rows, self.report)
                except BaseException as error:  # raised again in the caller's thread
                    self.error = error

    def idle(self) -> threading.Lock:
        return self.busy

    def write(self, rows: list[Fact]) -> None:
        if self.error is not None:
            raise self.error
        self.batches.put(rows)

    def close(self, *, raising: bool = True) -> None:
        """Wait for the batches handed over to be written; `raising=False` (the caller failed)
        drops any not begun and keeps the writer's error to itself."""
        self.cancelled = not raising
        self.batches.put(None)
        self.thread.join()
        self.writer.db.dec_thread_sharing()
        if self.error is not None and raising:
            raise self.error


__all__ = ["FactImportReport", "ImportAborted", "facts_import", "rows_count", "rows_from_csv", "rows_from_xlsx"]
