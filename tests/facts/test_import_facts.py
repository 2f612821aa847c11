from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from openpyxl import Workbook
from rest_framework.test import APIClient

from documents.models import Document
from facts.models import Entity, FactMetric, Metric

pytestmark = pytest.mark.django_db

HEADER = "entity,metric,period,value,unit,channel,source_doc,locator,valid_as_of,sensitivity\n"


def write(tmp_path: Path, body: str, name: str = "facts.csv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def run(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_facts", str(path), "--no-progress", *args, stdout=out, stderr=out)
    return out.getvalue()


def test_aliases_and_any_period_form_are_accepted_and_upserts_are_counted(demo, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '香港,营收,2026年上半年,"12,345.60",CNY_M,线上,deck.pptx,"slide=2,table=1",2026-07-31,INTERNAL\n'
        "ACME_HK,ROE,FY26,(1.5),PCT,,,,,\n",
    )
    assert "2 created, 0 updated, 0 unchanged" in run(path)
    fact = FactMetric.objects.get(entity_id="ACME_HK", metric_id="REVENUE", period="2026H1", channel_id="ONLINE")
    assert fact.value == Decimal("12345.60") and str(fact.value) == "12345.60"
    assert (fact.source_doc, fact.locator, str(fact.valid_as_of)) == ("deck.pptx", "slide=2,table=1", "2026-07-31")
    negative = FactMetric.objects.get(entity_id="ACME_HK", metric_id="ROE", period="2026")
    assert str(negative.value) == "-1.5"
    assert (negative.source_doc, negative.locator) == ("facts.csv", "file=facts.csv,row=3")
    assert "0 created, 0 updated, 2 unchanged" in run(path)
    path.write_text(path.read_text(encoding="utf-8").replace("(1.5)", "(1.6)"), encoding="utf-8")
    assert "0 created, 1 updated, 1 unchanged" in run(path)


def test_a_bad_row_aborts_everything_with_row_numbers(demo, tmp_path: Path) -> None:
    before = FactMetric.objects.count()
    path = write(
        tmp_path,
        "ACME_HK,REVENUE,FY2030,1,CNY_M,,,,,\n"
        "某公司,REVENUE,FY2030,1,CNY_M,,,,,\n"
        "ACME_HK,REVENUE,someday,1,CNY_M,,,,,\n"
        "ACME_HK,REVENUE,FY2031,abc,CNY_M,,,,,\n"
        "ACME_HK,REVENUE,FY2032,NaN,CNY_M,,,,,\n"
        "ACME_HK,REVENUE,FY2033,1,CNY_M,ONLNE,,,,\n"
        "ACME_HK,REVENUE,去年,1,CNY_M,,,,,\n"
        "竞安,REVENUE,FY2030,1,CNY_M,,,,,\n",
    )
    with pytest.raises(CommandError, match="7 invalid row"):
        out = StringIO()
        call_command("import_facts", str(path), "--no-progress", stdout=out, stderr=out)
    assert FactMetric.objects.count() == before


def test_error_messages_name_the_row(demo, tmp_path: Path) -> None:
    path = write(tmp_path, "ACME_HK,REVENUE,FY2030,1,CNY_M,,,,,\n某公司,REVENUE,FY2030,1,CNY_M,,,,,\n")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_facts", str(path), "--no-progress", stdout=StringIO(), stderr=err)
    assert "row 3: unknown entity '某公司'" in err.getvalue()


def test_skip_invalid_imports_the_good_rows_and_reports_the_rest(demo, tmp_path: Path) -> None:
    path = write(tmp_path, "ACME_HK,REVENUE,FY2030,1,CNY_M,,,,,\n某公司,REVENUE,FY2030,1,CNY_M,,,,,\n")
    out = run(path, "--skip-invalid")
    assert "1 created" in out and "1 rejected" in out and "row 3" in out
    assert FactMetric.objects.filter(period="2030").count() == 1


def test_create_missing_creates_entities_and_metrics(demo, tmp_path: Path) -> None:
    path = write(tmp_path, "ACME_JP,REVENUE,FY2025,10,CNY_M,,,,,\nACME_HK,门店坪效,FY2025,3.2,CNY,,,,,\n")
    out = run(path, "--create-missing")
    assert "ACME_JP" in out and "2 created" in out
    assert Entity.objects.filter(code="ACME_JP").exists()
    assert Metric.objects.filter(name="门店坪效").exists()


def test_a_missing_column_or_file_is_a_clear_error(demo, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("entity,metric,value\nACME_HK,REVENUE,1\n", encoding="utf-8")
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_facts", str(path), "--no-progress", stdout=StringIO(), stderr=StringIO())
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_facts", str(tmp_path / "missing.csv"))
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CommandError):
        call_command("import_facts", str(binary), "--no-progress", stdout=StringIO(), stderr=StringIO())


def test_xlsx_files_import_the_same_way(demo, tmp_path: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet.append(["entity", "metric", "period", "value", "unit", "channel"])
    sheet.append(["Hong Kong", "revenue", "2026Q1", 5890.25, "CNY_M", "TOTAL"])
    sheet.append(["ACME_SEA", "NEW_STORES", 2026, 40, "COUNT", None])
    path = tmp_path / "facts.xlsx"
    book.save(path)
    assert "2 created" in run(path)
    assert str(FactMetric.objects.get(entity_id="ACME_HK", period="2026Q1").value) == "5890.25"
    assert str(FactMetric.objects.get(entity_id="ACME_SEA", metric_id="NEW_STORES", period="2026").value) == "40"
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_facts", str(broken), "--no-progress", stdout=StringIO(), stderr=StringIO())


def test_more_rows_than_a_batch_stream_through(demo, tmp_path: Path) -> None:
    rows = "".join(
        f"ACME_HK,REVENUE,{year}Q{q},{year}.{q},CNY_M,,,,,\n" for year in range(1990, 2100) for q in range(1, 5)
    )
    rows += "".join(
        f"ACME_CN,REVENUE,{year}Q{q},{year}.{q},CNY_M,,,,,\n" for year in range(1990, 2100) for q in range(1, 5)
    )
    assert "880 created" in run(write(tmp_path, rows * 1))
    from facts.services import fact_import

    original = fact_import.BATCH
    fact_import.BATCH = 100
    try:
        (tmp_path / "again").mkdir()
        assert "880 unchanged" in run(write(tmp_path / "again", rows))
    finally:
        fact_import.BATCH = original


# -- hand-entered facts traced to an ingested document ----------------------------------------
DOC = "ACME_FY2025_Annual_Results.pptx"
DOC_HEADER = "entity,metric,period,value,unit,document,locator\n"


def write_traced(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "traced.csv"
    path.write_text(DOC_HEADER + body, encoding="utf-8")
    return path


def test_a_named_document_links_the_fact_and_keeps_its_locator(demo, tmp_path: Path) -> None:
    document = Document.objects.get(name=DOC)
    path = write_traced(
        tmp_path, f'ACME_HK,REVENUE,FY2030,12.5,CNY_M,{DOC},"slide=4,table=1,row=营业收入,col=FY2030"\n'
    )
    assert "1 created" in run(path)
    fact = FactMetric.objects.get(entity_id="ACME_HK", metric_id="REVENUE", period="2030", channel_id="TOTAL")
    assert fact.document_id == document.pk
    assert (fact.source_doc, fact.locator) == (DOC, "slide=4,table=1,row=营业收入,col=FY2030")
    source = APIClient()
    source.force_authenticate(demo["users"]["analyst"])
    body = source.get("/v1/facts", {"entity": "ACME_HK", "metric": "REVENUE", "period": "FY2030"}).json()
    assert body["results"][0]["source"] == {
        "doc": DOC,
        "locator": "slide=4,table=1,row=营业收入,col=FY2030",
        "document_id": document.pk,
    }
    assert "0 created, 0 updated, 1 unchanged" in run(path)


def test_an_unknown_document_aborts_the_import_naming_the_row(demo, tmp_path: Path) -> None:
    before = FactMetric.objects.count()
    path = write_traced(
        tmp_path,
        f"ACME_HK,REVENUE,FY2030,1,CNY_M,{DOC},slide=4\n"
        "ACME_HK,REVENUE,FY2031,1,CNY_M,ACME_FY2031_Missing.pptx,slide=4\n"
        f"ACME_HK,REVENUE,FY2032,1,CNY_M,{DOC},\n",
    )
    err = StringIO()
    with pytest.raises(CommandError, match="2 invalid row"):
        call_command("import_facts", str(path), "--no-progress", stdout=StringIO(), stderr=err)
    assert "row 3: unknown document 'ACME_FY2031_Missing.pptx'" in err.getvalue()
    assert "row 4: a document needs a locator" in err.getvalue()
    assert FactMetric.objects.count() == before


def test_document_names_are_read_once_per_import(demo, tmp_path: Path) -> None:
    names = list(Document.objects.values_list("name", flat=True)[:3])
    rows = "".join(
        f"ACME_HK,REVENUE,{year}Q{q},1,CNY_M,{names[(year + q) % 3]},row={year}\n"
        for year in range(2000, 2100)
        for q in range(1, 5)
    )
    with CaptureQueriesContext(connection) as queries:
        assert "400 created" in run(write_traced(tmp_path, rows))
    documents_table = connection.ops.quote_name(Document._meta.db_table)
    assert sum(documents_table in q["sql"] for q in queries.captured_queries) == 1


def test_without_a_document_a_fact_keeps_the_csv_locator_and_any_link_it_had(demo, tmp_path: Path) -> None:
    linked = FactMetric.objects.filter(document__isnull=False, review_status="approved").first()
    assert linked is not None
    key = (
        f"{linked.entity_id},{linked.metric_id},{linked.period},{linked.value + 1},{linked.unit_id},{linked.channel_id}"
    )
    path = write(tmp_path, f"{key},,,,\nACME_HK,REVENUE,FY2030,1,CNY_M,,,,,\n")
    assert "1 created, 1 updated" in run(path)
    linked.refresh_from_db()
    new = FactMetric.objects.get(entity_id="ACME_HK", metric_id="REVENUE", period="2030", channel_id="TOTAL")
    assert (new.source_doc, new.locator, new.document_id) == ("facts.csv", "file=facts.csv,row=3", None)
    assert (linked.source_doc, linked.locator) == ("facts.csv", "file=facts.csv,row=2")
    assert linked.document_id is not None
