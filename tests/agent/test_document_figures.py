"""Figures in documents on the demo (SPEC §7): a how-much question about a term no metric holds
is answered with the cited sentence stating it (a slide, a PDF page, a Word section), labelled as
a document's figure and never a fact; a term no passage states a figure for says so; RESTRICTED
and competitor passages behave as they do everywhere."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from core.routes.narrative.figures import FIGURE_LABEL, NOT_STATED

pytestmark = pytest.mark.django_db
REFERENCE = "2026-03-15"
SECRET_DOC = "东南亚扩张计划_内部.docx"


def asked(client: APIClient, question: str) -> dict[str, Any]:
    return client.post("/v1/ask", {"question": question, "reference_date": REFERENCE}, format="json").json()


@pytest.mark.parametrize(
    ("question", "figure", "doc", "locator"),
    [
        ("第四季度线上退货率是多少", "8.3%", "ACME_2025Q4_渠道复盘.pptx", "slide=3"),
        ("存储芯片采购均价涨了多少", "35%", "供应链与原材料成本说明.md", "section=存储芯片价格,para=1"),
        ("香港的会员复购率是多少", "38%", "ACME香港业务季度回顾_2025Q3.pdf", "page=1,para=1-3"),
        ("What was the return rate?", "8.3%", "ACME_2025Q4_渠道复盘.pptx", "slide=3"),
    ],
)
def test_a_figure_stated_in_a_slide_or_a_pdf_is_quoted_and_cited(
    analyst: APIClient, question: str, figure: str, doc: str, locator: str
) -> None:
    body = asked(analyst, question)
    assert body["answer_kind"] == "answer", body["answer"]
    language = "en" if question.isascii() else "zh"
    assert body["answer"].startswith(FIGURE_LABEL[language])
    assert figure in body["answer"] and f"（{doc} · {locator}）" in body["answer"]
    assert {(s["kind"], s["doc"], s["locator"]) for s in body["sources"]} >= {("chunk", doc, locator)}
    assert body["facts"] == [] and body["computed"] == []
    assert body["guard"]["numbers_unsupported"] == 0


def test_a_restricted_word_document_answers_only_the_cleared(analyst: APIClient, cleared: APIClient) -> None:
    shown = asked(cleared, "目标估值是多少")
    assert "12亿美元" in shown["answer"] and SECRET_DOC in {s["doc"] for s in shown["sources"]}
    hidden = asked(analyst, "目标估值是多少")
    dumped = str({k: v for k, v in hidden.items() if k != "question"})
    assert "12亿" not in dumped and SECRET_DOC not in dumped and "蓝鲸" not in dumped
    assert hidden["answer"].startswith(NOT_STATED["zh"].format(term="目标估值"))


def test_a_term_no_passage_states_a_figure_for_says_so_and_still_offers_metrics(analyst: APIClient) -> None:
    body = asked(analyst, "对冲比例是多少")
    assert body["answer"].startswith(NOT_STATED["zh"].format(term="对冲比例"))
    assert body["answer_kind"] == "clarification" and body["clarification"]["narrowing_options"]
    assert body["sources"] == [] and body["facts"] == []


def test_a_competitors_figure_is_never_quoted(analyst: APIClient) -> None:
    body = asked(analyst, "市场份额是多少")  # only the industry weekly states one, about 竞安
    assert "18%" not in body["answer"] and "竞安" not in body["answer"]
