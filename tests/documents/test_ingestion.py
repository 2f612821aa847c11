"""Office files through the real pipeline: facts with cell-level locators, chunks, jobs, failures."""

from __future__ import annotations

import csv
import io
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from openpyxl import Workbook
from rest_framework.test import APIClient

from documents.models import Document, IngestJob
from documents.services import IngestError, document_delete, document_ingest
from facts.models import FactMetric
from ingestion.ir import is_cell_locator
from retrieval.models import Chunk
from tests.clients import client_for
from tests.factories import curator_make

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"


def test_facts_from_the_generated_demo_files_equal_facts_csv(demo) -> None:
    with (DEMO / "facts.csv").open(encoding="utf-8") as handle:
        expected = {
            (
                r["entity"],
                r["metric"],
                r["period"],
                r["channel"],
                r["value"],
                r["unit"],
                r["source_doc"],
                r["sensitivity"],
            )
            for r in csv.DictReader(handle)
        }
    stored = set()
    for fact in FactMetric.objects.filter(review_status="approved"):
        stored.add(
            (
                fact.entity_id,
                fact.metric_id,
                fact.period_label,
                fact.channel_id,
                str(fact.value),
                fact.unit_id,
                fact.source_doc,
                fact.sensitivity,
            )
        )
        assert is_cell_locator(fact.locator), fact.locator
        assert fact.document is not None and fact.document.name == fact.source_doc
    assert stored == expected
    assert FactMetric.objects.count() == 72


def test_locators_point_at_cells_per_format(demo) -> None:
    locators = {f.source_doc: f.locator for f in FactMetric.objects.all()}
    assert locators["ACME_FY2025_Annual_Results.pptx"].startswith("slide=")
    assert locators["ACME_5yr_Summary.xlsx"].startswith("sheet=") and "!" in locators["ACME_5yr_Summary.xlsx"]
    assert locators["ACME_2025_Interim_Report.pdf"].startswith("page=1,table=1")
    assert locators["东南亚扩张计划_内部.docx"].startswith("table=")
    chunk_locators = set(Chunk.objects.values_list("locator", flat=True))
    assert any(loc.startswith("slide=") for loc in chunk_locators) and any(
        loc.startswith("page=") for loc in chunk_locators
    )


def workbook_bytes(rows: list[list[object]], title: str = "ACME香港") -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_unknown_row_labels_wait_in_the_review_queue(demo, analyst: APIClient) -> None:
    data = workbook_bytes([["指标（百万元）", "FY2026"], ["营业收入", 30000.5], ["坪效", 12.3]])
    outcome = document_ingest(name="hk_2026.xlsx", data=data)
    assert outcome.facts == {"approved": 1, "pending": 1, "conflicts": 0}
    pending = FactMetric.objects.get(review_status="pending")
    assert pending.suggested_alias == "坪效" and pending.metric_id is None and pending.locator == "sheet=ACME香港!B3"
    body = analyst.post("/v1/ask", {"question": "香港2026年营收是多少"}, format="json").json()
    assert body["facts"][0]["value"] == "30000.5" and body["facts"][0]["source"]["locator"] == "sheet=ACME香港!B2"


def test_reingesting_is_idempotent_and_a_changed_file_replaces_its_facts(demo) -> None:
    # One file, sent twice: a workbook built twice carries two save times, so two different files.
    data = workbook_bytes([["指标", "FY2026"], ["营业收入", 1.5]])
    first = document_ingest(name="hk_2026.xlsx", data=data)
    again = document_ingest(name="hk_2026.xlsx", data=data)
    assert (first.status, again.status) == ("created", "unchanged")
    document_ingest(name="hk_2026.xlsx", data=workbook_bytes([["指标", "FY2027"], ["毛利率", "30.5%"]]))
    facts = FactMetric.objects.filter(source_doc="hk_2026.xlsx")
    assert [(f.metric_id, f.period, str(f.value), f.unit_id) for f in facts] == [
        ("GROSS_MARGIN", "2027", "30.5", "PCT")
    ]


CORRUPT = {
    "deck.pptx": b"PK\x03\x04 broken zip",
    "book.xlsx": b"PK\x03\x04 broken zip",
    "report.pdf": b"%PDF-1.4\n%broken",
    "memo.docx": b"not a zip at all",
    "fake.pdf": workbook_bytes([["a"]]),
    "empty.docx": b"",
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_malformed_file_of_each_format_writes_nothing(demo, name: str) -> None:
    before = (Document.objects.count(), FactMetric.objects.count(), Chunk.objects.count())
    with pytest.raises(IngestError) as error:
        document_ingest(name=name, data=CORRUPT[name])
    assert name in str(error.value) and "Traceback" not in str(error.value)
    assert (Document.objects.count(), FactMetric.objects.count(), Chunk.objects.count()) == before


def test_the_cli_reports_a_malformed_file_and_keeps_going(demo, tmp_path: Path) -> None:
    (tmp_path / "deck.pptx").write_bytes(CORRUPT["deck.pptx"])
    (tmp_path / "hk.xlsx").write_bytes(workbook_bytes([["指标", "FY2026"], ["营业收入", 7]]))
    err, out = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 of 2"):
        call_command("ingest", str(tmp_path), "--no-progress", stdout=out, stderr=err)
    assert "deck.pptx: failed, nothing written" in err.getvalue() and "hk.xlsx: created" in out.getvalue()


def test_upload_api_queues_a_job_and_reports_it(demo) -> None:
    curator = client_for(demo["users"]["curator"])
    data = workbook_bytes([["指标", "FY2026"], ["营业收入", 42]])
    response = curator.post("/v1/documents", {"file": SimpleUploadedFile("hk.xlsx", data)}, format="multipart")
    assert response.status_code == 202
    job = curator.get(response.json()["status_url"]).json()
    assert job["status"] == "done" and job["progress"] == 100 and job["document_id"]
    bad = curator.post(
        "/v1/documents", {"file": SimpleUploadedFile("deck.pptx", CORRUPT["deck.pptx"])}, format="multipart"
    )
    failed = curator.get(bad.json()["status_url"]).json()
    assert failed["status"] == "failed" and "deck.pptx" in failed["message"]
    analyst = client_for(demo["users"]["analyst"])
    assert (
        analyst.post("/v1/documents", {"file": SimpleUploadedFile("x.xlsx", data)}, format="multipart").status_code
        == 403
    )
    assert analyst.get(response.json()["status_url"]).status_code == 404
    unsupported = curator.post("/v1/documents", {"file": SimpleUploadedFile("x.exe", b"MZ")}, format="multipart")
    assert unsupported.status_code == 400


def test_every_format_the_upload_api_accepts_is_ingested(demo) -> None:
    """The upload check and the job read one format registry: `.markdown` was accepted, then failed."""
    curator = client_for(demo["users"]["curator"])
    text = "# 周报\n## 物流\n华南智能仓投产。\n".encode()
    response = curator.post("/v1/documents", {"file": SimpleUploadedFile("weekly.markdown", text)}, format="multipart")
    assert response.status_code == 202
    job = curator.get(response.json()["status_url"]).json()
    assert job["status"] == "done", job["message"]
    assert Document.objects.get(name="weekly.markdown").media_type == "text/markdown"


def test_html_is_accepted_by_the_upload_api_the_admin_upload_and_the_cli(tmp_path: Path) -> None:
    """`.html` / `.htm` come from the format registry: every entry point takes them, none lists them."""
    curator = curator_make()
    page = "<h2>物流</h2><p>华南智能仓投产。</p>".encode()
    response = client_for(curator).post(
        "/v1/documents", {"file": SimpleUploadedFile("weekly.html", page)}, format="multipart"
    )
    assert response.status_code == 202
    job = client_for(curator).get(response.json()["status_url"]).json()
    assert job["status"] == "done", job["message"]
    assert Document.objects.get(name="weekly.html").media_type == "text/html"
    client = Client()
    client.force_login(curator)
    form = client.get("/admin/documents/document/upload/").content.decode()
    assert "html、htm" in form and 'accept=".pptx,.xlsx,.pdf,.docx,.md,.markdown,.txt,.html,.htm"' in form
    (tmp_path / "memo.htm").write_bytes(page)
    out = StringIO()
    call_command("ingest", str(tmp_path / "memo.htm"), "--no-progress", stdout=out, stderr=StringIO())
    assert "memo.htm: created, 1 chunk(s)" in out.getvalue()


def test_admin_upload_queues_jobs_and_shows_failures(demo) -> None:
    client = Client()
    client.force_login(demo["users"]["curator"])
    response = client.post(
        "/admin/documents/document/upload/",
        {"files": [SimpleUploadedFile("deck.pptx", CORRUPT["deck.pptx"])]},
        follow=True,
    )
    assert response.status_code == 200 and "deck.pptx" in response.content.decode()
    job = IngestJob.objects.get(name="deck.pptx")
    assert job.status == "failed" and job.message and not Document.objects.filter(name="deck.pptx").exists()


def test_deleting_a_document_removes_its_facts_and_chunks(demo) -> None:
    document = Document.objects.get(name="ACME_Quarterly_KPI.xlsx")
    document_delete(document=document)
    assert not FactMetric.objects.filter(source_doc="ACME_Quarterly_KPI.xlsx").exists()
