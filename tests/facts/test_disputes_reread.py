"""A document read again keeps its analysts' disputes: each follows its cell to the new row, an
open one stays open, and a curator's correction stays while the cell still prints the figure it
corrected. A cell the document no longer has takes its disputes with it."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from documents.services import document_ingest, document_reingest
from facts.models import FactDispute, FactMetric
from facts.services.disputes import dispute_file, disputes_settle
from tests.factories import curator_make
from tests.ingestion.builders import docx_bytes, docx_table

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"


@pytest.fixture
def glossary(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())


def _report(profit: str = "12.5") -> bytes:
    def build(document: Any) -> None:
        document.add_heading("2025年年度报告", level=0)
        document.add_paragraph("公司简称：ACME香港")
        document.add_heading("主要会计数据", level=1)
        docx_table(
            document, [["指标（百万元）", "本期", "上年同期"], ["营业收入", "120.5", "100"], ["净利润", profit, "10"]]
        )

    return docx_bytes(build)


def _fact(metric: str) -> FactMetric:
    return FactMetric.objects.get(source_doc="hk.docx", metric_id=metric, period="2025", review_status="approved")


def test_a_re_read_keeps_open_and_corrected_disputes_with_their_cells(glossary: None) -> None:
    document = document_ingest(name="hk.docx", data=_report()).document
    curator = curator_make()
    revenue, profit = _fact("REVENUE"), _fact("NET_PROFIT")
    opened = dispute_file(fact_id=revenue.pk, note="应为 121.5", user=curator, cleared=True)
    fixed = dispute_file(fact_id=profit.pk, note="应为 13.5", user=curator, cleared=True)
    disputes_settle(
        disputes=FactDispute.objects.all(), fact_id=profit.pk, outcome="corrected", user=curator, value=Decimal("13.5")
    )

    document_reingest(document=document)
    opened.refresh_from_db()
    fixed.refresh_from_db()
    assert opened.fact_id == _fact("REVENUE").pk != revenue.pk and opened.status == "open"
    assert fixed.fact_id == _fact("NET_PROFIT").pk and fixed.status == "corrected"
    assert _fact("NET_PROFIT").value == Decimal("13.5")  # the correction outlives the re-read
    assert not FactMetric.objects.filter(pk__in=[revenue.pk, profit.pk]).exists()


def test_a_cell_that_prints_another_figure_now_is_read_as_printed(glossary: None) -> None:
    document = document_ingest(name="hk.docx", data=_report()).document
    curator = curator_make()
    profit = _fact("NET_PROFIT")
    fixed = dispute_file(fact_id=profit.pk, note="应为 13.5", user=curator, cleared=True)
    disputes_settle(
        disputes=FactDispute.objects.all(), fact_id=profit.pk, outcome="corrected", user=curator, value=Decimal("13.5")
    )
    document_ingest(name="hk.docx", data=_report(profit="14.0"))  # the issuer restated it
    fixed.refresh_from_db()
    assert fixed.fact_id == _fact("NET_PROFIT").pk and _fact("NET_PROFIT").value == Decimal("14.0")
    assert document.facts.filter(review_status="rejected").count() == 0  # no old row left behind
