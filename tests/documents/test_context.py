"""A document's context on the document: `document_ingest` stores the
issuer, report type and period it read, with where it read them, shows them in admin, and lets a
table that names no entity take the issuer while a table that names one keeps its own."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from documents.models import Document
from documents.services import document_ingest
from facts.models import FactMetric
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
REPORT = (
    "# 2025年半年度报告\n\n公司简称：ACME香港 公司代码：ACME_HK\n\n## 经营回顾\n\n本期收入增长，客户包括ACME东南亚。\n"
)


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())


def _report(company: str, *, sections: list[tuple[str, list[list[str]]]]) -> bytes:
    def build(document: Any) -> None:
        document.add_heading("2025年年度报告", level=0)
        document.add_paragraph(f"公司简称：{company}")
        for heading, rows in sections:
            document.add_heading(heading, level=1)
            docx_table(document, rows)

    return docx_bytes(build)


def test_the_context_read_is_stored_on_the_document(glossary: None) -> None:
    document_ingest(name="hk_interim.md", data=REPORT.encode())
    document = Document.objects.get(name="hk_interim.md")
    assert (document.issuer, document.report_type, document.report_period) == ("ACME_HK", "half_year", "2025H1")
    assert "公司简称" in document.context_evidence and "2025年半年度报告" in document.context_evidence


def test_a_document_that_says_nothing_stores_blanks(glossary: None) -> None:
    document_ingest(name="memo.md", data=b"# Memo\nThe lease ends.\n")
    document = Document.objects.get(name="memo.md")
    assert (document.issuer, document.report_type, document.report_period, document.context_evidence) == (
        "",
        "",
        "",
        "",
    )


def test_a_table_naming_no_entity_takes_the_issuer_and_one_naming_another_keeps_it(glossary: None) -> None:
    figures = [["指标（百万元）", "FY2025"], ["营业收入", "120.5"]]
    data = _report("ACME香港", sections=[("主要会计数据", figures), ("ACME东南亚", figures)])
    outcome = document_ingest(name="hk_annual.docx", data=data)
    facts = FactMetric.objects.filter(source_doc="hk_annual.docx")
    assert outcome.facts["approved"] == 2, outcome.summary()
    assert sorted(facts.values_list("entity_id", "review_status")) == [
        ("ACME_HK", "approved"),
        ("ACME_SEA", "approved"),
    ]
    assert Document.objects.get(name="hk_annual.docx").report_period == "FY2025"


def test_an_external_issuer_is_recorded_but_gives_no_table_its_entity(glossary: None) -> None:
    """A competitor's report is recorded as theirs; its figures never become approved facts."""
    data = _report("竞安", sections=[("主要会计数据", [["指标（百万元）", "FY2025"], ["营业收入", "99"]])])
    outcome = document_ingest(name="rival.docx", data=data)
    assert Document.objects.get(name="rival.docx").issuer == "EXT_JINGAN"
    assert outcome.facts["approved"] == 0
    assert not FactMetric.objects.filter(source_doc="rival.docx", review_status="approved").exists()


def test_admin_shows_the_context(glossary: None) -> None:
    document_ingest(name="hk_interim.md", data=REPORT.encode())
    document = Document.objects.get(name="hk_interim.md")
    browser = Client()
    browser.force_login(curator_make())
    listing = browser.get("/admin/documents/document/").content.decode()
    change = browser.get(f"/admin/documents/document/{document.pk}/change/").content.decode()
    assert "ACME_HK" in listing and "2025H1" in listing
    assert all(text in change for text in ("ACME_HK", "half_year", "2025H1", "公司简称"))
