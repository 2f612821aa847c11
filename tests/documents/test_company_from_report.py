"""A report whose company the glossary lacks: ingestion reads what the report says of its issuer
(`IssuerProposal`), the document's page offers to create the company prefilled from it, and on
save the entity is created with its names as aliases and the document is queued to be read again
with it as its issuer: its candidates then carry the company. Bad input writes nothing."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client, override_settings

from documents.models import IngestJob
from documents.services import document_ingest
from documents.tasks import ingest_job_execute
from facts.models import Alias, Entity, FactMetric
from tests.documents.newcomer import newcomer_report
from tests.factories import curator_make

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())


def _curator() -> Client:
    browser = Client()
    browser.force_login(curator_make())
    return browser


def _form(**changes: str) -> dict[str, str]:
    form = {
        "code": "SH688321",
        "name": "远岫精工",
        "aliases": "远岫精工股份有限公司\n远岫精工",
        "kind": "peer",
        "parent": "",
        "year_end_month": "",
        "currency": "CNY",
    }
    return {**form, **changes}


def test_ingestion_reads_the_issuer_the_glossary_lacks(glossary: None) -> None:
    document = document_ingest(name="yuanxiu.docx", data=newcomer_report()).document
    assert document.issuer == ""
    assert document.issuer_proposed == {
        "full_name": "远岫精工股份有限公司",
        "short_name": "远岫精工",
        "stock_code": "688321",
        "code": "SH688321",
        "currency": "CNY",
        "evidence": document.issuer_proposed["evidence"],
    }
    assert "公司代码" in document.issuer_proposed["evidence"]
    assert set(FactMetric.objects.filter(source_doc="yuanxiu.docx").values_list("entity", flat=True)) == {None}


def test_a_known_issuer_proposes_nothing(glossary: None) -> None:
    data = newcomer_report("ACME香港")
    document = document_ingest(name="hk.docx", data=data).document
    assert document.issuer == "ACME_HK" and document.issuer_proposed == {}


@override_settings(TASKS=QUEUED_ONLY)
def test_the_page_offers_the_company_and_one_click_creates_it_and_reads_the_report_again(glossary: None) -> None:
    document = document_ingest(name="yuanxiu.docx", data=newcomer_report()).document
    browser = _curator()
    page = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert 'id="issuer-create"' in page and "远岫精工股份有限公司" in page
    queue = browser.get("/admin/facts/factmetric/review/").content.decode()
    assert f"/admin/documents/document/{document.pk}/company/" in queue and "远岫精工股份有限公司" in queue
    form_page = browser.get(f"/admin/documents/document/{document.pk}/company/").content.decode()
    assert 'value="SH688321"' in form_page and "远岫精工股份有限公司\n远岫精工\n688321" in form_page
    assert 'value="CNY"' in form_page and re.search(r'<input[^>]*value="peer"[^>]*checked', form_page)
    assert "never refused" in form_page or "不会被拒答" in form_page  # each kind explained

    response = browser.post(f"/admin/documents/document/{document.pk}/company/", _form())
    assert response.status_code == 302
    entity = Entity.objects.get(code="SH688321")
    assert (entity.name, entity.kind, entity.currency) == ("远岫精工", "peer", "CNY")
    assert set(Alias.objects.filter(entity=entity).values_list("text", flat=True)) == {
        "远岫精工股份有限公司",
        "远岫精工",
    }
    job = IngestJob.objects.get(kind="reread", document=document)
    assert job.status == "queued" and job.context["issuer"] == "SH688321"
    page = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert 'id="document-job"' in page and 'id="issuer-create"' not in page  # the re-read is under way

    ingest_job_execute(str(job.pk))
    document.refresh_from_db()
    assert (document.issuer, document.issuer_proposed) == ("SH688321", {})
    revenue = FactMetric.objects.get(source_doc="yuanxiu.docx", metric="REVENUE", period="2024")
    assert revenue.entity_id == "SH688321"
    page = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert 'id="issuer-create"' not in page
    again = browser.get(f"/admin/documents/document/{document.pk}/company/")  # an old link: no empty form
    assert again.status_code == 302 and again["Location"].endswith(f"/{document.pk}/change/")
    assert "/company/" not in browser.get("/admin/facts/factmetric/review/").content.decode()


@override_settings(TASKS=QUEUED_ONLY)
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"code": "ACME_HK"}, "ACME_HK 已被其他实体使用"),
        ({"aliases": "远岫精工股份有限公司\nACME香港"}, "already names entity ACME_HK"),
        ({"code": "bad code!"}, "大写字母"),
        ({"currency": "RMB1"}, "ISO 4217"),
        ({"kind": "home"}, "术语表已有本公司"),
    ],
)
def test_bad_input_on_the_company_form_writes_nothing(glossary: None, changes: dict[str, str], message: str) -> None:
    document = document_ingest(name="yuanxiu.docx", data=newcomer_report()).document
    entities = set(Entity.objects.values_list("code", flat=True))
    response = _curator().post(f"/admin/documents/document/{document.pk}/company/", _form(**changes))
    assert response.status_code == 200 and message in response.content.decode()
    assert set(Entity.objects.values_list("code", flat=True)) == entities
    assert not Alias.objects.filter(text="远岫精工股份有限公司").exists()
    assert not IngestJob.objects.filter(kind="reread").exists()


def test_a_curator_who_may_not_add_companies_is_not_offered_the_form(glossary: None) -> None:
    document = document_ingest(name="yuanxiu.docx", data=newcomer_report()).document
    user = curator_make("reader")
    user.user_permissions.remove(*Permission.objects.filter(codename="add_entity"))
    user.groups.clear()
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_document", "change_document"]))
    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert 'id="issuer-create"' not in page
    assert "/company/" not in browser.get("/admin/facts/factmetric/review/").content.decode()
    assert browser.post(f"/admin/documents/document/{document.pk}/company/", _form()).status_code == 302
    assert not Entity.objects.filter(code="SH688321").exists()
