"""Document admin: what a curator without clearance may learn from the document list."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from core.model.facts import RESTRICTED
from documents.models import Document, IngestJob
from facts.models import FactMetric
from tests.factories import curator_make, document_make, entity_make, metric_make

pytestmark = pytest.mark.django_db

DECK = "ACME_FY2025_Annual_Results.pptx"


def fact_counts(user: Any) -> dict[str, int]:
    browser = Client()
    browser.force_login(user)
    listing = browser.get("/admin/documents/document/").content.decode()
    rows = re.findall(
        r'<th class="field-name"><a [^>]*>([^<]+)</a></th>.*?<td class="field-fact_count">(\d+)</td>', listing
    )
    return {name: int(count) for name, count in rows}


def test_the_fact_count_counts_only_the_facts_the_curator_may_see(demo: dict[str, Any]) -> None:
    deck = Document.objects.get(name=DECK)
    total = deck.facts.count()
    secret = deck.facts.order_by("pk").first()
    FactMetric.objects.filter(pk=secret.pk).update(sensitivity=RESTRICTED)  # one figure reclassified
    uncleared, cleared = curator_make("curator_uncleared"), demo["users"]["curator"]
    assert fact_counts(cleared)[DECK] == total
    assert fact_counts(uncleared)[DECK] == total - 1  # the count does not give the RESTRICTED one away
    assert "东南亚扩张计划_内部.docx" not in fact_counts(uncleared)


def _fact(document: Document, status: str, **fields: Any) -> FactMetric:
    values = {
        "entity_id": "ACME_HK",
        "metric_id": "REVENUE",
        "period_type": "FY",
        "period": "2019",
        "channel_id": "TOTAL",
        **fields,
    }
    return FactMetric.objects.create(
        **values,
        value=1,
        unit_id="CNY_M",
        source_doc=document.name,
        document=document,
        locator="p=1",
        review_status=status,
    )


def test_the_document_page_links_its_candidates_into_the_review_queue() -> None:
    entity_make()
    metric_make()
    report = document_make("sifang.pdf")
    _fact(report, "approved")
    _fact(report, "pending")  # beside the approved figure of its key
    _fact(report, "pending", period="2018")
    _fact(report, "pending", metric_id=None, suggested_alias="资产总计")
    _fact(report, "pending", period="2017", sensitivity=RESTRICTED)
    uncleared = Client()
    uncleared.force_login(curator_make())
    page = uncleared.get(f"/admin/documents/document/{report.pk}/change/").content.decode()
    summary = page.split('id="document-review"')[1].split("</p>")[0]
    queue = f"/admin/facts/factmetric/review/?document={report.pk}"
    assert "已批准 1 条" in summary
    assert f'<a href="{queue}">审核此文档的 3 条候选' in summary  # the RESTRICTED one is not counted
    assert f'<a href="{queue}&amp;key=held">其中 1 条同键已有批准值' in summary
    assert f'<a href="{queue}&amp;reason=label">1 条行标签术语表不认识' in summary
    FactMetric.objects.filter(review_status="pending").update(review_status="rejected")
    page = uncleared.get(f"/admin/documents/document/{report.pk}/change/").content.decode()
    assert "没有待审核的候选" in page


def test_the_job_list_opens_the_document_and_the_job_says_what_the_upload_set() -> None:
    report = document_make("sifang.pdf")
    curator = curator_make()
    job = IngestJob.objects.create(name=report.name, data=b"", document=report, status="done", created_by=curator)
    asked = IngestJob.objects.create(name="x.pdf", data=b"", issuer="ACME_HK", report_period="FY2019")
    browser = Client()
    browser.force_login(curator)
    listing = browser.get("/admin/documents/ingestjob/").content.decode()
    assert f'<a href="/admin/documents/document/{report.pk}/change/">sifang.pdf</a>' in listing
    page = browser.get(f"/admin/documents/ingestjob/{job.pk}/change/").content.decode()
    assert "上传时指定" in page and "set on upload" not in page and "无：按文档所读" in page
    page = browser.get(f"/admin/documents/ingestjob/{asked.pk}/change/").content.decode()
    assert "发行主体 ACME_HK、报告期 FY2019" in page


def test_the_job_list_reloads_itself_while_a_job_is_unfinished() -> None:
    curator = curator_make()
    browser = Client()
    browser.force_login(curator)
    job = IngestJob.objects.create(name="report.pdf", data=b"", status="queued", created_by=curator)
    assert '<meta http-equiv="refresh" content="5">' in browser.get("/admin/documents/ingestjob/").content.decode()
    IngestJob.objects.filter(pk=job.pk).update(status="done")
    assert 'http-equiv="refresh"' not in browser.get("/admin/documents/ingestjob/").content.decode()
