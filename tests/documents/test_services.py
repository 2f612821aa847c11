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
