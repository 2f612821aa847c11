"""`import_facts`, writing: parsed rows upserted batch by batch on the natural key of approved
facts, by one statement per batch on PostgreSQL (`PostgresWriter`) or multi-row statements on
SQLite (`SqliteWriter`), on a second thread while the next batch is parsed (`Pipeline`), with
SQLite's page cache enlarged for the import (`page_cache`)."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from ..models import FactMetric
from .fact_import_rows import Fact, FactImportReport

# SQLite's page cache during an import, in KiB (its default is 2,000): a batch's rows land all
# over the index of one metric's figures (`fact_metric_key_idx`), whose pages then stay cached
# between batches instead of being read back and spilled. A bound, whatever the file's length.
SQLITE_IMPORT_CACHE_KIB = 16_384
SQLITE_ROWS = 100  # rows per SQLite upsert statement


@contextmanager
def page_cache() -> Iterator[None]:
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


COLUMNS = (
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
_KEY_COLUMNS = COLUMNS[:5]
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
    updates = ", ".join(f"{c} = {kept}" if c == "document_id" else f"{c} = excluded.{c}" for c in COLUMNS[5:])
    compared = COLUMNS[5:-1]  # everything but the time stamp
    old = ", ".join(f"{table}.{c}" for c in compared)
    new = ", ".join(kept if c == "document_id" else f"excluded.{c}" for c in compared)
    return (
        f"ON CONFLICT ({', '.join(_KEY_COLUMNS)}) WHERE {_APPROVED} DO UPDATE SET {updates} "
        f"WHERE ({old}) {distinct} ({new})"
    )


class SqliteWriter:
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
        return f"INSERT INTO {self.table} ({', '.join(COLUMNS)}) VALUES {', '.join([row_sql] * rows)} " + _upsert_tail(
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


class PostgresWriter:
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
            f"WITH written AS (INSERT INTO {table} ({', '.join(COLUMNS)}) "
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


class Pipeline:
    """Writes each batch on a second thread while the caller parses the next one: the database
    works (SQLite's C code and a PostgreSQL server both run without Python's lock) while Python
    parses. One batch waits at most, so memory stays bounded by the batch size. The writer
    thread uses the caller's connection, inside its transaction; `idle` holds off the caller's
    own queries while a batch is being written, and the first error stops the writing and is
    raised to the caller (by `write` or `close`), whose transaction then rolls back."""

    def __init__(self, writer: SqliteWriter | PostgresWriter, report: FactImportReport) -> None:
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
