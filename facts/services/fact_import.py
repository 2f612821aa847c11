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

from collections.abc import Callable, Iterable

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

from ..models import FactMetric
from ..selectors import glossary_snapshot
from .fact_import_rows import (
    Cells,
    Fact,
    FactImportReport,
    Resolver,
    row_parse,
    rows_count,
    rows_from_csv,
    rows_from_xlsx,
)
from .fact_import_writers import Pipeline, PostgresWriter, SqliteWriter, page_cache
from .glossary import glossary_changed
from .glossary_import import ImportAborted

BATCH = 2000
MAX_REPORTED_ERRORS = 100


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
    with transaction.atomic(), page_cache():
        resolver = Resolver(glossary_snapshot(), create_missing, report)
        db = connections[DEFAULT_DB_ALIAS]  # the connection object itself, which the writer shares
        writer = Pipeline(PostgresWriter(db) if db.vendor == "postgresql" else SqliteWriter(db), report)
        resolver.database = writer.idle  # the parser's own reads and writes wait for the writer
        try:
            batch: dict[tuple[str, ...], Fact] = {}
            failed = False
            for number, row in rows:
                parsed = row_parse(number, row, resolver, source_name)
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


__all__ = ["FactImportReport", "ImportAborted", "facts_import", "rows_count", "rows_from_csv", "rows_from_xlsx"]
