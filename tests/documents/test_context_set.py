"""Document context in the curator's hands: an issuer, report type and period
set by hand win over what the document says, through the service, the API and `manage.py
ingest`; a document is read again from its stored bytes, all or nothing, keeping the decisions
curators made on cells that give the same value."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from documents.models import Document, DocumentFile, IngestJob
from documents.services import ContextChoice, IngestError, document_ingest, document_reingest
from facts.models import FactMetric
from facts.services import facts_review
from tests.clients import client_for
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
FIGURES = [["指标（百万元）", "本期", "上年同期"], ["营业收入", "120.5", "100"]]


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())


def _report(*, title: str = "2025年年度报告", company: str = "ACME香港", revenue: str = "120.5") -> bytes:
    def build(document: Any) -> None:
        document.add_heading(title, level=0)
        document.add_paragraph(f"公司简称：{company}")
        document.add_heading("主要会计数据", level=1)
        docx_table(document, [["指标（百万元）", "本期", "上年同期"], ["营业收入", revenue, "100"]])

    return docx_bytes(build)


def _facts(name: str) -> list[tuple[Any, ...]]:
    rows = FactMetric.objects.filter(source_doc=name)
    return sorted(rows.values_list("entity_id", "period", "value", "review_status"))


def test_a_context_set_by_hand_wins_and_the_facts_are_read_with_it(glossary: None) -> None:
    document_ingest(name="hk.docx", data=_report())
    assert {row[:2] for row in _facts("hk.docx")} == {("ACME_HK", "2025"), ("ACME_HK", "2024")}
    choice = ContextChoice(issuer="ACME_SEA", period="FY2019", by="alice")
    document_ingest(name="hk.docx", data=_report(), context=choice)
    document = Document.objects.get(name="hk.docx")
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_SEA", "annual", "FY2019")
    assert "issuer ACME_SEA: set by alice" in document.context_evidence
    assert "period FY2019: set by alice" in document.context_evidence
    assert {row[:2] for row in _facts("hk.docx")} == {("ACME_SEA", "2019"), ("ACME_SEA", "2018")}
    # What was set by hand stays at the next ingestion, and a cleared field is read again.
    document_reingest(document=document)
    assert Document.objects.get(name="hk.docx").issuer == "ACME_SEA"
    document_reingest(document=document, context=ContextChoice(cleared=frozenset({"issuer"})))
    document.refresh_from_db()
    assert (document.issuer, document.report_period) == ("ACME_HK", "FY2019")
    assert document.context_set == {"period": "FY2019", "by": "alice"}


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        (ContextChoice(issuer="NOPE"), "unknown entity code «NOPE»"),
        (ContextChoice(period="2019"), "period «2019» is not one of FY2019, 2019H1, 2019Q3"),
        (ContextChoice(period="2019Q5"), "is not one of FY2019"),
        (ContextChoice(report_type="annual", period="2019H1"), "not the period of a annual report"),
    ],
)
def test_a_bad_context_is_refused_with_a_message_and_writes_nothing(
    glossary: None, choice: ContextChoice, message: str
) -> None:
    with pytest.raises(IngestError, match=message):
        document_ingest(name="hk.docx", data=_report(), context=choice)
    assert not Document.objects.filter(name="hk.docx").exists()


def test_unchanged_bytes_are_skipped_unless_forced(glossary: None) -> None:
    data = _report()
    document_ingest(name="hk.docx", data=data)
    assert document_ingest(name="hk.docx", data=data).status == "unchanged"
    assert document_ingest(name="hk.docx", data=data, force=True).status == "replaced"
    assert bytes(DocumentFile.objects.get(document__name="hk.docx").data) == data


def test_a_document_without_stored_bytes_says_so(glossary: None) -> None:
    document_ingest(name="hk.docx", data=_report())
    document = Document.objects.get(name="hk.docx")
    DocumentFile.objects.filter(document=document).delete()
    with pytest.raises(IngestError, match="its file is not stored"):
        document_reingest(document=document)


def test_a_reviewed_decision_stays_with_a_cell_that_gives_the_same_value(glossary: None) -> None:
    document_ingest(name="hk.docx", data=_report())
    facts_review(facts=FactMetric.objects.filter(source_doc="hk.docx", period="2025"), status="rejected")
    document_reingest(document=Document.objects.get(name="hk.docx"))
    rows = FactMetric.objects.filter(source_doc="hk.docx")
    assert sorted(rows.values_list("period", "review_status", "reviewed")) == [
        ("2024", "approved", False),
        ("2025", "rejected", True),
    ]
    # Another value at the cell is another fact: read afresh, the decision gone.
    document_ingest(name="hk.docx", data=_report(revenue="130"))
    assert sorted(rows.values_list("period", "review_status", "reviewed")) == [
        ("2024", "approved", False),
        ("2025", "approved", False),
    ]


def test_a_curator_approval_of_a_held_cell_survives_re_ingest(glossary: None) -> None:
    """Two reports disagree: the curator rejects one and approves the other; reading the first
    again must not take the key back, nor put the rejected value back in the queue."""
    document_ingest(name="a.docx", data=_report())
    document_ingest(name="b.docx", data=_report(revenue="130"))
    held = FactMetric.objects.get(source_doc="b.docx", period="2025")
    assert held.review_status == "pending"
    facts_review(facts=FactMetric.objects.filter(source_doc="a.docx", period="2025"), status="rejected")
    facts_review(facts=FactMetric.objects.filter(pk=held.pk), status="approved")
    document_reingest(document=Document.objects.get(name="b.docx"))
    document_reingest(document=Document.objects.get(name="a.docx"))
    assert FactMetric.objects.get(source_doc="b.docx", period="2025").review_status == "approved"
    assert FactMetric.objects.get(source_doc="a.docx", period="2025").review_status == "rejected"


def test_a_failing_re_ingest_writes_nothing(glossary: None, monkeypatch: pytest.MonkeyPatch) -> None:
    document_ingest(name="hk.docx", data=_report())
    document = Document.objects.get(name="hk.docx")
    before = (_facts("hk.docx"), document.chunks.count(), document.issuer)

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr("documents.services.facts_replace", broken)
    with pytest.raises(RuntimeError):
        document_reingest(document=document, context=ContextChoice(issuer="ACME_SEA", by="alice"))
    document.refresh_from_db()
    assert (_facts("hk.docx"), document.chunks.count(), document.issuer) == before
    assert document.context_set == {}


def test_a_failing_extraction_writes_nothing(glossary: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from ingestion.ir import ExtractionError

    document_ingest(name="hk.docx", data=_report())
    before = _facts("hk.docx")

    def unreadable(name: str, data: bytes, **limits: int) -> None:
        raise ExtractionError("hk.docx: not a Word file")

    monkeypatch.setattr("documents.services.extract", unreadable)
    with pytest.raises(IngestError, match="not a Word file"):
        document_reingest(document=Document.objects.get(name="hk.docx"))
    assert _facts("hk.docx") == before


def test_ingest_command_takes_the_context_and_force(glossary: None, tmp_path: Path) -> None:
    path = tmp_path / "hk.docx"
    path.write_bytes(_report())  # a .docx's bytes differ at each build: written once
    out = StringIO()
    call_command("ingest", str(path), "--no-progress", stdout=out)
    call_command("ingest", str(path), "--no-progress", stdout=out)
    assert "unchanged" in out.getvalue().splitlines()[-1]
    call_command("ingest", str(path), "--no-progress", "--force", stdout=out)
    assert "replaced" in out.getvalue().splitlines()[-1]
    call_command("ingest", str(path), "--no-progress", "--entity", "ACME_SEA", "--period", "FY2019", stdout=out)
    document = Document.objects.get(name="hk.docx")
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_SEA", "annual", "FY2019")
    assert "set by manage.py ingest" in document.context_evidence
    assert {row[0] for row in _facts("hk.docx")} == {"ACME_SEA"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [(["--entity", "NOPE"], "unknown entity code «NOPE»"), (["--period", "2019-3"], "is not one of FY2019")],
)
def test_ingest_command_refuses_a_bad_context_with_a_message(
    glossary: None, tmp_path: Path, arguments: list[str], message: str
) -> None:
    path = tmp_path / "hk.docx"
    path.write_bytes(_report())
    with pytest.raises(CommandError, match=message):
        call_command("ingest", str(path), "--no-progress", *arguments, stdout=StringIO())
    assert not Document.objects.exists()


def test_upload_api_takes_the_context(glossary: None) -> None:
    curator = client_for(curator_make())
    upload = {"file": SimpleUploadedFile("hk.docx", _report()), "entity": "ACME_SEA", "period": "2019H1"}
    response = curator.post("/v1/documents", upload, format="multipart")
    assert response.status_code == 202, response.json()
    assert curator.get(response.json()["status_url"]).json()["status"] == "done"
    document = Document.objects.get(name="hk.docx")
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_SEA", "half_year", "2019H1")
    assert "set by curator" in document.context_evidence


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"entity": "NOPE"}, "unknown entity code"), ({"period": "H1 2019"}, "is not one of FY2019")],
)
def test_upload_api_refuses_a_bad_context_with_a_message(glossary: None, fields: dict[str, str], message: str) -> None:
    curator = client_for(curator_make())
    response = curator.post(
        "/v1/documents", {"file": SimpleUploadedFile("hk.docx", _report()), **fields}, format="multipart"
    )
    assert response.status_code == 400 and message in str(response.json())
    assert not Document.objects.exists()


def _page(document: Document, **changes: str) -> dict[str, str]:
    return {
        "sensitivity": document.sensitivity,
        "issuer": document.issuer,
        "report_type": document.report_type,
        "report_period": document.report_period,
        **changes,
    }


def test_admin_edit_of_the_context_reads_the_document_again(glossary: None) -> None:
    document_ingest(name="hk.docx", data=_report())
    document = Document.objects.get(name="hk.docx")
    browser = Client()
    browser.force_login(curator_make())
    url = f"/admin/documents/document/{document.pk}/change/"
    page = browser.get(url).content.decode()
    assert 'name="issuer"' in page and "ACME_SEA" in page and "reingest/" in page
    response = browser.post(url, _page(document, issuer="ACME_SEA", report_period="FY2019", report_type=""))
    assert response.status_code == 302
    document.refresh_from_db()
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_SEA", "annual", "FY2019")
    assert "issuer ACME_SEA: set by curator" in document.context_evidence
    assert {row[:2] for row in _facts("hk.docx")} == {("ACME_SEA", "2019"), ("ACME_SEA", "2018")}


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"report_period": "2019"}, "is not one of FY2019"), ({"issuer": "NOPE"}, "NOPE")],
)
def test_admin_refuses_a_bad_context_on_the_page(glossary: None, changes: dict[str, str], message: str) -> None:
    document_ingest(name="hk.docx", data=_report())
    document = Document.objects.get(name="hk.docx")
    browser = Client()
    browser.force_login(curator_make())
    response = browser.post(f"/admin/documents/document/{document.pk}/change/", _page(document, **changes))
    assert response.status_code == 200 and message in response.content.decode()
    document.refresh_from_db()
    assert (document.issuer, document.report_period, document.context_set) == ("ACME_HK", "FY2025", {})


def test_admin_re_ingest_button_and_action(glossary: None) -> None:
    document_ingest(name="hk.docx", data=_report())
    document_ingest(name="old.docx", data=_report(company="ACME东南亚"))
    DocumentFile.objects.filter(document__name="old.docx").delete()
    facts_review(facts=FactMetric.objects.filter(source_doc="hk.docx", period="2025"), status="rejected")
    browser = Client()
    browser.force_login(curator_make())
    hk = Document.objects.get(name="hk.docx")
    response = browser.post(f"/admin/documents/document/{hk.pk}/reingest/", follow=True)
    assert "已将 hk.docx 加入后台队列" in response.content.decode()
    job = IngestJob.objects.get(kind="reread")  # the test settings run a queued job at once
    assert job.status == "done" and job.document_id == hk.pk and job.outcome["document"] == "hk.docx"
    assert FactMetric.objects.get(source_doc="hk.docx", period="2025").review_status == "rejected"
    pks = list(Document.objects.values_list("pk", flat=True))
    response = browser.post("/admin/documents/document/", {"action": "reingest", "_selected_action": pks}, follow=True)
    page = response.content.decode()
    assert "已将 hk.docx 加入后台队列" in page and "未读取 old.docx：此文档未保存原文件" in page
    assert IngestJob.objects.filter(kind="reread", document=hk).count() == 2


def test_admin_upload_takes_the_context(glossary: None) -> None:
    browser = Client()
    browser.force_login(curator_make())
    upload = {"files": SimpleUploadedFile("hk.docx", _report()), "issuer": "ACME_SEA", "report_period": "2019Q3"}
    assert browser.post("/admin/documents/document/upload/", upload).status_code == 302
    document = Document.objects.get(name="hk.docx")
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_SEA", "quarterly", "2019Q3")
    bad = {"files": SimpleUploadedFile("x.docx", _report()), "report_period": "Q3"}
    response = browser.post("/admin/documents/document/upload/", bad)
    assert response.status_code == 200 and "is not one of FY2019" in response.content.decode()
    assert not Document.objects.filter(name="x.docx").exists()
