"""What `import_facts` leaves behind besides the facts: SQLite's page cache as it was, and on
PostgreSQL a fact table whose statistics and visibility map are current (a standalone import
ends with `VACUUM (ANALYZE)`), so one metric's figures are read from the index alone."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from facts.models import FactMetric

pytestmark = pytest.mark.django_db


def write(tmp_path: Path) -> Path:
    path = tmp_path / "facts.csv"
    rows = "".join(f"ACME_HK,REVENUE,{year}Q{q},{year}.{q},CNY_M\n" for year in range(2000, 2030) for q in range(1, 5))
    path.write_text("entity,metric,period,value,unit\n" + rows, encoding="utf-8")
    return path


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_an_import_leaves_the_connections_page_cache_as_it_found_it(demo, tmp_path: Path) -> None:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size = -1234")
    out = StringIO()
    call_command("import_facts", str(write(tmp_path)), "--no-progress", stdout=out)
    assert "120 created" in out.getvalue()
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        assert cursor.fetchone()[0] == -1234


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's VACUUM")
@pytest.mark.django_db(transaction=True)
def test_a_standalone_import_ends_with_the_table_vacuumed_and_analyzed(tmp_path: Path) -> None:
    call_command("import_glossary", "demo/glossary.csv", stdout=StringIO())
    table = FactMetric._meta.db_table
    out = StringIO()
    call_command("import_facts", str(write(tmp_path)), "--no-progress", stdout=out)
    assert "120 created" in out.getvalue()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.reltuples, s.last_vacuum IS NOT NULL, s.last_analyze IS NOT NULL FROM pg_class c "
            "JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = %s",
            [table],
        )
        # The visibility map's bits are set too, unless another transaction still needs the old
        # rows (as a test run's other connections may): that is VACUUM's rule, not the import's.
        assert cursor.fetchone() == (120, True, True)


def test_an_error_while_a_batch_is_written_aborts_the_whole_import(
    demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from facts.services import fact_import, fact_import_writers

    monkeypatch.setattr(fact_import, "BATCH", 50)
    postgres = connection.vendor == "postgresql"
    writer = fact_import_writers.PostgresWriter if postgres else fact_import_writers.SqliteWriter
    real = writer.write
    calls = []

    def failing(self, rows, report) -> None:  # type: ignore[no-untyped-def]
        calls.append(len(rows))
        if len(calls) == 2:
            raise RuntimeError("the disk is full")
        real(self, rows, report)

    monkeypatch.setattr(writer, "write", failing)
    before = FactMetric.objects.count()
    with pytest.raises(RuntimeError, match="the disk is full"):
        call_command("import_facts", str(write(tmp_path)), "--no-progress", stdout=StringIO())
    assert FactMetric.objects.count() == before
    assert calls == [50, 50]  # the writer stopped at its error
