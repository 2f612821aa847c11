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
from tests.clients import client_for
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table, pdf_bytes, sheet_rows, xlsx_bytes

pytestmark = pytest.mark.django_db
CAPTION = "Deferred charges"
NO_PERIOD = [["Item", "Amount"], ["Deferred rent", "1,204"], ["Deferred fees", "310"]]
KIND = "no row or column of periods (years, dates or fiscal years) was found"
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
    assert document.warnings == outcome.warnings == [f"{table}: {REASON}"]
    assert f"1 warning: 1 × {KIND} ({table})" in outcome.summary()
    assert not FactMetric.objects.exists()
    again = document_ingest(name=name, data=data)
    assert (again.status, again.warnings) == ("unchanged", [f"{table}: {REASON}"])


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
    assert outcome.warnings == ["the PDF is encrypted with an empty user password (permissions only); read as usual"]
    assert Document.objects.get(name="open.pdf").warnings == outcome.warnings


def test_warnings_show_in_admin_job_status_and_the_cli(tmp_path: Path) -> None:
    curator = curator_make()
    data = SAME_TABLE["charges.docx"][0]()
    api = client_for(curator)
    response = api.post("/v1/documents", {"file": SimpleUploadedFile("charges.docx", data)}, format="multipart")
    job = api.get(response.json()["status_url"]).json()
    assert job["status"] == "done" and job["warnings"] == [f"table=1: {REASON}"]
    assert f"1 × {KIND} (table=1)" in job["message"]

    browser = Client()
    browser.force_login(curator)
    document = Document.objects.get(name="charges.docx")
    listing = browser.get("/admin/documents/document/").content.decode()
    change = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert f"1 × {KIND}" in listing and KIND in change and "table=1" in change

    (tmp_path / "fees.xlsx").write_bytes(SAME_TABLE["charges.xlsx"][0]())
    out = StringIO()
    call_command("ingest", str(tmp_path), "--no-progress", stdout=out, stderr=StringIO())
    assert "fees.xlsx: created" in out.getvalue() and f"1 × {KIND} (sheet=Charges)" in out.getvalue()


def test_many_warnings_are_grouped_by_kind_with_statements_first() -> None:
    from documents.warning_groups import warnings_grouped, warnings_summary

    warnings = [f"page={n},table=1: {REASON}" for n in range(1, 8)] + [
        "page=70,table=1: no facts read (a statement of changes in equity: its columns are equity components)",
        "3 lines of text could not be decoded (fonts without a Unicode mapping)",
    ]
    groups = warnings_grouped(warnings)
    assert [g.count for g in groups] == [1, 7, 1] and "statement" in groups[0].kind
    summary = warnings_summary(warnings)
    assert summary.startswith("9 warnings: 1 × a statement of changes in equity")
    assert f"7 × {KIND} (page=1,table=1; page=2,table=1; page=3,table=1; … (+4))" in summary
    assert len(summary) < 400
