"""Every re-read runs in the background worker: the admin's button and action, and a change of a
document's context, queue a job and return at once; the document changes all at once when the
job commits, and the page shows its progress meanwhile."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from documents.models import Document, IngestJob
from documents.services import document_delete, document_ingest
from documents.tasks import ingest_job_execute
from facts.models import FactMetric
from facts.services import facts_review
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())


def _report(company: str = "ACME香港") -> bytes:
    def build(document: Any) -> None:
        document.add_heading("2025年年度报告", level=0)
        document.add_paragraph(f"公司简称：{company}")
        document.add_heading("主要会计数据", level=1)
        docx_table(document, [["指标（百万元）", "本期", "上年同期"], ["营业收入", "120.5", "100"]])

    return docx_bytes(build)


def _curator() -> Client:
    browser = Client()
    browser.force_login(curator_make())
    return browser


def _facts(name: str) -> set[tuple[str, str, str]]:
    return set(FactMetric.objects.filter(source_doc=name).values_list("entity", "period", "review_status"))


@override_settings(TASKS=QUEUED_ONLY)
def test_the_re_read_button_queues_a_job_and_the_request_reads_nothing(glossary: None) -> None:
    document = document_ingest(name="hk.docx", data=_report()).document
    before = _facts("hk.docx")
    facts_review(facts=FactMetric.objects.filter(source_doc="hk.docx", period="2025"), status="rejected")
    browser = _curator()
    response = browser.post(f"/admin/documents/document/{document.pk}/reingest/", follow=True)
    page = response.content.decode()
    job = IngestJob.objects.get(kind=IngestJob.Kind.REREAD)
    assert (job.status, job.document_id, job.data) == ("queued", document.pk, b"")
    assert "已将 hk.docx 加入后台队列" in page and 'id="document-job"' in page and 'http-equiv="refresh"' in page
    # Nothing was read in the request: the rejected decision is as the curator left it.
    assert FactMetric.objects.get(source_doc="hk.docx", period="2025").review_status == "rejected"

    done = ingest_job_execute(str(job.pk))
    assert done.status == "done" and "hk.docx" in done.message and done.outcome
    assert {row[:2] for row in _facts("hk.docx")} == {row[:2] for row in before}
    assert FactMetric.objects.get(source_doc="hk.docx", period="2025").review_status == "rejected"  # kept
    page = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert 'id="document-job"' not in page and 'http-equiv="refresh"' not in page


@override_settings(TASKS=QUEUED_ONLY)
def test_a_changed_context_is_read_in_the_background_with_the_curators_choice(glossary: None) -> None:
    document = document_ingest(name="hk.docx", data=_report()).document
    browser = _curator()
    form = {"sensitivity": document.sensitivity, "issuer": "ACME_SEA", "report_type": "", "report_period": "FY2019"}
    assert browser.post(f"/admin/documents/document/{document.pk}/change/", form).status_code == 302
    document.refresh_from_db()
    assert (document.issuer, document.report_period) == ("ACME_HK", "FY2025")  # not yet: the job reads it
    job = IngestJob.objects.get(kind=IngestJob.Kind.REREAD)
    assert job.context["issuer"] == "ACME_SEA" and job.context["by"] == "curator"

    ingest_job_execute(str(job.pk))
    document.refresh_from_db()
    assert (document.issuer, document.report_period) == ("ACME_SEA", "FY2019")
    assert {row[:2] for row in _facts("hk.docx")} == {("ACME_SEA", "2019"), ("ACME_SEA", "2018")}


@override_settings(TASKS=QUEUED_ONLY)
def test_the_list_action_queues_one_job_per_document(glossary: None) -> None:
    for name, company in (("hk.docx", "ACME香港"), ("sea.docx", "ACME东南亚")):
        document_ingest(name=name, data=_report(company))
    pks = list(Document.objects.values_list("pk", flat=True))
    _curator().post("/admin/documents/document/", {"action": "reingest", "_selected_action": pks})
    assert sorted(IngestJob.objects.filter(kind="reread").values_list("name", flat=True)) == ["hk.docx", "sea.docx"]
    assert not IngestJob.objects.exclude(status="queued").exists()


@override_settings(TASKS=QUEUED_ONLY)
def test_a_document_deleted_before_its_re_read_fails_the_job_cleanly(glossary: None) -> None:
    document = document_ingest(name="hk.docx", data=_report()).document
    _curator().post(f"/admin/documents/document/{document.pk}/reingest/")
    job = IngestJob.objects.get(kind=IngestJob.Kind.REREAD)
    document_delete(document=document)
    done = ingest_job_execute(str(job.pk))
    assert done.status == "failed" and "deleted" in done.message
    assert not Document.objects.filter(name="hk.docx").exists()
