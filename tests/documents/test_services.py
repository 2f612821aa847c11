"""`documents.services` on files made in the test, with a glossary of two rows, not the demo."""

from __future__ import annotations

import pytest

from documents.models import Document
from documents.services import IngestError, document_delete, document_ingest
from facts.models import FactMetric
from retrieval.index import retrieval_token
from retrieval.models import Chunk
from tests.factories import entity_make, metric_make
from tests.ingestion.builders import sheet_rows, xlsx_bytes

pytestmark = pytest.mark.django_db
MEMO = "# 备忘\n## 要点\n香港门店租约到期。\n".encode()


def test_a_text_document_is_written_with_its_chunks() -> None:
    outcome = document_ingest(name="memo.md", data=MEMO)
    assert (outcome.status, outcome.chunks, outcome.facts["approved"]) == ("created", 1, 0)
    document = Document.objects.get(name="memo.md")
    assert (document.media_type, document.status, document.sensitivity) == ("text/markdown", "ready", "INTERNAL")
    assert list(document.chunks.values_list("locator", "sensitivity")) == [("section=要点,para=1", "INTERNAL")]
    assert document_ingest(name="memo.md", data=MEMO).status == "unchanged"


def test_a_workbook_becomes_facts_and_goes_with_them() -> None:
    entity_make()
    metric_make()
    book = xlsx_bytes(
        lambda w: sheet_rows(w.create_sheet("ACME香港"), [["指标（百万元）", "FY2026"], ["营业收入", 42]])
    )
    outcome = document_ingest(name="hk.xlsx", data=book)
    assert outcome.facts == {"approved": 1, "pending": 0, "conflicts": 0}
    fact = FactMetric.objects.get()
    assert (fact.entity_id, fact.metric_id, fact.document_id, fact.locator) == (
        "ACME_HK",
        "REVENUE",
        outcome.document.pk,
        "sheet=ACME香港!B2",
    )
    memo = document_ingest(name="memo.md", data=MEMO).document
    token = retrieval_token()
    document_delete(document=outcome.document)
    document_delete(document=memo)
    assert not (Document.objects.exists() or FactMetric.objects.exists() or Chunk.objects.exists())
    assert retrieval_token() != token


def test_a_file_that_cannot_be_read_writes_nothing() -> None:
    with pytest.raises(IngestError, match="unsupported file type"):
        document_ingest(name="tool.exe", data=b"MZ")
    with pytest.raises(IngestError, match="sensitivity must be one of"):
        document_ingest(name="memo.md", data=MEMO, sensitivity="SECRET")
    assert not Document.objects.exists()


HTML_REPORT = (
    '<html><head><meta charset="gbk"><title>ACME香港 2026年报</title></head><body>'
    "<h2>ACME香港</h2><p>门店网络调整。</p><p>单位：人民币百万元</p>"
    "<table><tr><th>项目</th><th>FY2026</th></tr><tr><td>营业收入</td><td>42</td></tr></table>"
    "</body></html>"
).encode("gbk")


def test_an_html_page_becomes_facts_and_chunks() -> None:
    entity_make()
    metric_make()
    outcome = document_ingest(name="hk_2026.htm", data=HTML_REPORT)
    assert outcome.facts == {"approved": 1, "pending": 0, "conflicts": 0}
    document = Document.objects.get(name="hk_2026.htm")
    assert (document.media_type, document.status) == ("text/html", "ready")
    fact = FactMetric.objects.get()
    assert (fact.entity_id, fact.metric_id, str(fact.value), fact.unit_id, fact.locator) == (
        "ACME_HK",
        "REVENUE",
        "42",
        "CNY_M",
        "table=1,row=营业收入,col=FY2026",
    )
    assert list(document.chunks.values_list("locator", flat=True)) == ["section=ACME香港,para=1-2"]


def test_a_file_named_html_that_is_not_html_writes_nothing() -> None:
    with pytest.raises(IngestError, match="not HTML"):
        document_ingest(name="notes.html", data="只是一段文字。\n".encode())
    with pytest.raises(IngestError, match="mislabelled"):
        document_ingest(name="report.html", data=xlsx_bytes(lambda w: w.create_sheet("S")))
    assert not (Document.objects.exists() or FactMetric.objects.exists() or Chunk.objects.exists())


def test_the_page_limit_is_a_setting_that_fits_the_longest_annual_reports(settings) -> None:
    """Annual reports run to about a thousand pages (a 549-page 10-K was refused at 500): the
    default takes them, and a deployment sets its own limit, which refuses a longer file whole."""
    from tests.ingestion.builders import pdf_bytes

    assert settings.RAGSPINE["MAX_PAGES"] >= 1000
    settings.RAGSPINE = {**settings.RAGSPINE, "MAX_PAGES": 2}
    long = pdf_bytes([[("p", f"Page {n} of a long report.")] for n in range(3)])
    with pytest.raises(IngestError, match="3 pages exceed the limit of 2"):
        document_ingest(name="long.pdf", data=long)
    assert not Document.objects.filter(name="long.pdf").exists()
    settings.RAGSPINE = {**settings.RAGSPINE, "MAX_PAGES": 3}
    assert document_ingest(name="long.pdf", data=long).status == "created"


def test_a_cover_proposes_the_year_end_month_the_glossary_lacks() -> None:
    """`For the fiscal year ended May 31, 2019` on a 10-K's cover, for a company whose year-end
    month the glossary does not set: a warning proposes the month to a curator; nothing sets it."""
    from facts.models import Alias, Entity
    from tests.ingestion.builders import pdf_bytes

    entity = entity_make("ORCL", "Oracle Corporation", "peer")
    Alias.objects.create(text="Oracle Corporation", key="oracle corporation", kind="entity", entity=entity)
    cover = [
        ("p", "UNITED STATES SECURITIES AND EXCHANGE COMMISSION"),
        ("p", "FORM 10-K"),
        ("p", "For the fiscal year ended May 31, 2019"),
        ("p", "Oracle Corporation"),
        ("p", "(Exact name of registrant as specified in its charter)"),
    ]
    outcome = document_ingest(name="orcl-10k.pdf", data=pdf_bytes([cover]))
    proposed = [w for w in outcome.warnings if w.code == "context.year_end_unset"]
    assert [w.text for w in proposed] == [
        "the cover says ORCL's fiscal year ended May 31, 2019: set its year-end month (May, 5) in the glossary"
    ]
    assert Entity.objects.get(code="ORCL").year_end_month is None
    entity.year_end_month = 5  # the curator sets it (admin or glossary CSV)
    entity.save()
    again = document_ingest(name="orcl-10k.pdf", data=pdf_bytes([cover]), force=True)
    assert not [w for w in again.warnings if w.code == "context.year_end_unset"]
