from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from openpyxl import Workbook

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
    from facts import importing

    original = importing.BATCH
    importing.BATCH = 100
    try:
        (tmp_path / "again").mkdir()
        assert "880 unchanged" in run(write(tmp_path / "again", rows))
    finally:
        importing.BATCH = original
