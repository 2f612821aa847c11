"""Narrative knows its company: a retrieved passage carries its
document's issuer, and a question about one company never quotes another company's report
unlabelled: the asked company's passages are preferred, and another's, when it alone answers,
come under that company's label. Two tiny reports whose passages name no company."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.render import ABOUT_ENTITY
from documents.services import document_ingest
from facts.selectors import glossary_snapshot
from retrieval.selectors import OrmNarrativeRetriever

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo"
HK = "# 2025年年度报告\n\n公司简称：ACME香港\n\n## 经营回顾\n\n本年度营业收入增长，主要来自会员复购。\n"
SEA = (
    "# 2025年年度报告\n\n公司简称：ACME东南亚\n\n## 经营回顾\n\n本年度营业收入增长，主要来自新店开业。\n\n"
    "## 风险\n\n汇率波动加大了采购成本。\n"
)


@pytest.fixture
def reports(db: Any) -> None:
    call_command("import_glossary", str(DEMO / "glossary.csv"), stdout=StringIO())
    document_ingest(name="report_a.md", data=HK.encode())
    document_ingest(name="report_b.md", data=SEA.encode())


def ask(question: str):
    return narrative_answer(
        question,
        retriever=OrmNarrativeRetriever(),
        glossary=glossary_snapshot(),
        cleared=False,
        language="zh",
        focus=Focus(("ACME_HK",)),
    )


def test_a_passage_carries_its_documents_issuer(reports: None) -> None:
    found = OrmNarrativeRetriever().retrieve("营业收入增长", cleared=False)
    assert {(chunk.doc, chunk.issuer) for chunk in found} >= {("report_a.md", "ACME_HK"), ("report_b.md", "ACME_SEA")}


def test_the_asked_companys_report_is_quoted_and_the_other_ones_left_out(reports: None) -> None:
    outcome = ask("香港营业收入为什么增长")
    assert outcome.kind == "answer" and "会员复购" in outcome.text
    assert "新店开业" not in outcome.text and {source.doc for source in outcome.sources} == {"report_a.md"}


def test_another_companys_report_answers_only_under_its_label(reports: None) -> None:
    outcome = ask("香港汇率波动有什么影响")
    lines = outcome.text.splitlines()
    assert lines and "汇率波动" in outcome.text
    label = ABOUT_ENTITY["zh"].format(name="ACME东南亚")
    assert all(line.startswith(label) for line in lines if "report_b.md" in line), outcome.text
