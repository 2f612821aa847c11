"""A table that yields no fact: the document is accepted in every format, with the same warning,
stored on the document and shown wherever the outcome is (admin, job status, `manage.py ingest`)."""

from __future__ import annotations

import io
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from documents.models import Document
from documents.services import IngestError, document_ingest
from facts.models import FactMetric
from ingestion.tables import TABLE_PROBLEMS
from tests.clients import client_for
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table, pdf_bytes, sheet_rows, xlsx_bytes

pytestmark = pytest.mark.django_db
CAPTION = "Deferred charges"
NO_PERIOD = [["Item", "Amount"], ["Deferred rent", "1,204"], ["Deferred fees", "310"]]
KIND = "no row or column of periods (years, dates or fiscal years) was found"
KIND_ZH = "未找到期间行或期间列（年份、日期或财年）"
REASON = f"no facts read ({KIND})"


def _docx(document: Any) -> None:
    document.add_paragraph(CAPTION)
    docx_table(document, NO_PERIOD)


SAME_TABLE = {
    "charges.xlsx": (
        lambda: xlsx_bytes(lambda w: sheet_rows(w.create_sheet("Charges"), [[CAPTION], *NO_PERIOD])),
        "sheet=Charges",
    ),
    "charges.docx": (lambda: docx_bytes(_docx), "table=1"),
    "charges.pdf": (lambda: pdf_bytes([[("table", CAPTION, NO_PERIOD)]]), "page=1,table=1"),
}


@pytest.mark.parametrize("name", sorted(SAME_TABLE))
def test_a_table_without_facts_is_accepted_with_the_same_warning_in_every_format(name: str) -> None:
    build, table = SAME_TABLE[name]
    data = build()
    outcome = document_ingest(name=name, data=data)
    document = Document.objects.get(name=name)
    assert (outcome.status, document.status, outcome.facts["approved"]) == ("created", "ready", 0)
    assert [w.line for w in outcome.warnings] == [f"{table}: {REASON}"]
    assert document.warnings == [{"code": "table.no_period_axis", "text": REASON, "place": table, "count": 0}]
    assert f"1 warning: 1 × {KIND} ({table})" in outcome.summary()
    assert f"1 条警告：1 × {KIND_ZH} ({table})" in outcome.summary("zh-hans")
    assert not FactMetric.objects.exists()
    again = document_ingest(name=name, data=data)
    assert (again.status, again.warnings) == ("unchanged", outcome.warnings)


def test_a_document_without_warnings_stores_none_and_a_file_with_nothing_is_still_refused() -> None:
    assert document_ingest(name="memo.md", data=b"# Memo\nThe lease ends.\n").warnings == []
    assert Document.objects.get(name="memo.md").warnings == []
    with pytest.raises(IngestError, match="no text or tables"):
        document_ingest(name="empty.xlsx", data=xlsx_bytes(lambda w: w.create_sheet("Empty")))
    assert not Document.objects.filter(name="empty.xlsx").exists()


def test_extraction_warnings_are_stored_with_the_table_warnings() -> None:
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, encrypt=StandardEncryption("", ownerPassword="owner"), invariant=1)
    page.drawString(72, 720, "Public annual report text.")
    page.save()
    outcome = document_ingest(name="open.pdf", data=buffer.getvalue())
    assert [(w.code, w.line) for w in outcome.warnings] == [
        ("pdf.empty_password", "the PDF is encrypted with an empty user password (permissions only); read as usual")
    ]
    assert Document.objects.get(name="open.pdf").warnings == [w.as_dict() for w in outcome.warnings]


def test_warnings_show_in_admin_job_status_and_the_cli(tmp_path: Path) -> None:
    curator = curator_make()
    data = SAME_TABLE["charges.docx"][0]()
    api = client_for(curator)
    response = api.post("/v1/documents", {"file": SimpleUploadedFile("charges.docx", data)}, format="multipart")
    job = api.get(response.json()["status_url"]).json()
    assert job["status"] == "done" and job["warnings"] == [f"table=1: {REASON}"]
    assert f"1 × {KIND} (table=1)" in job["message"]

    # The curator reads them in Chinese, English beside on the document's page.
    browser = Client()
    browser.force_login(curator)
    document = Document.objects.get(name="charges.docx")
    listing = browser.get("/admin/documents/document/").content.decode()
    change = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert f"1 × {KIND_ZH}" in listing and KIND not in listing
    assert KIND_ZH in change and KIND not in change and "table=1" in change
    jobs = browser.get("/admin/documents/ingestjob/").content.decode()
    assert "charges.docx：已新建，" in jobs and f"1 条警告：1 × {KIND_ZH} (table=1)" in jobs and KIND not in jobs

    (tmp_path / "fees.xlsx").write_bytes(SAME_TABLE["charges.xlsx"][0]())
    out = StringIO()
    call_command("ingest", str(tmp_path), "--no-progress", stdout=out, stderr=StringIO())
    assert "fees.xlsx: created" in out.getvalue() and f"1 × {KIND} (sheet=Charges)" in out.getvalue()


def test_many_warnings_are_grouped_by_kind_with_statements_first_in_the_curators_language() -> None:
    from documents.warning_groups import warnings_grouped, warnings_summary
    from ingestion.ir import IngestWarning

    def table(code: str, n: int) -> IngestWarning:
        return IngestWarning(code, f"no facts read ({TABLE_PROBLEMS[code]})", place=f"page={n},table=1")

    warnings = [table("table.no_period_axis", n) for n in range(1, 8)] + [
        table("table.equity_changes", 70),
        IngestWarning("pdf.undecodable_lines", "3 lines of text could not be decoded (…)", count=3),
        IngestWarning("a.kind.this.release.does.not.name", "something new happened"),
    ]
    groups = warnings_grouped(warnings)
    assert [(g.code, g.count) for g in groups][:2] == [("table.equity_changes", 1), ("table.no_period_axis", 7)]
    summary = warnings_summary(warnings, "zh-hans")
    assert summary.startswith("10 条警告：1 × 所有者权益变动表：各列是权益项目，不是期间 (page=70,table=1)；")
    assert f"7 × {KIND_ZH} (page=1,table=1; page=2,table=1; page=3,table=1; … (+4))" in summary
    assert "1 × 3 行文字无法解码" in summary and "1 × something new happened" in summary
    assert "equity" not in summary and len(summary) < 400
    english = warnings_summary(warnings, "en")
    assert english.startswith("10 warnings: 1 × a statement of changes in equity") and "财年" not in english


def test_every_kind_of_warning_ingestion_gives_has_a_name_in_both_languages() -> None:
    from documents.warning_groups import WARNING_KINDS
    from ingestion import ir

    codes = {*TABLE_PROBLEMS, *(getattr(ir, n) for n in dir(ir) if n.startswith("PDF_"))}
    assert codes <= WARNING_KINDS.keys(), codes - WARNING_KINDS.keys()
    from django.utils import translation

    with translation.override("zh-hans"):
        chinese = [kind.said(2) for kind in WARNING_KINDS.values()]
    with translation.override("en"):
        english = [kind.said(2) for kind in WARNING_KINDS.values()]
    assert all(zh and zh != en for zh, en in zip(chinese, english, strict=True))


def test_warnings_stored_as_lines_are_given_their_code_by_the_migration() -> None:
    from importlib import import_module

    migration = import_module("documents.migrations.0007_ingest_job_outcome_and_warning_codes")
    assert migration._coded(f"page=4,table=1: {REASON}") == {
        "code": "table.no_period_axis",
        "text": REASON,
        "place": "page=4,table=1",
        "count": 0,
    }
    undecodable = "12 lines of text could not be decoded (fonts without a Unicode mapping)"
    assert migration._coded(undecodable)["code"] == "pdf.undecodable_lines"
    assert migration._coded(undecodable)["count"] == 12
    assert migration._coded("an old warning")["code"] == ""
    assert migration._line(migration._coded(f"table=2: {REASON}")) == f"table=2: {REASON}"
