"""Headings are never sentences, in any format: slide titles, numbered PDF and Word section
headings, table captions with a unit in brackets, in passages as the ingestion chunks them."""

from __future__ import annotations

import pytest

from core.ports import RetrievedChunk, Source
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.wording import title_line
from tests.fakes import demo_glossary

GLOSSARY = demo_glossary()


class ListRetriever:
    def __init__(self, *chunks: RetrievedChunk):
        self.chunks = list(chunks)

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        return self.chunks[:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def _quoted(question: str, chunk: RetrievedChunk) -> list[str]:
    outcome = narrative_answer(
        question, retriever=ListRetriever(chunk), glossary=GLOSSARY, cleared=False, language="zh"
    )
    return [line.removesuffix(f"（{chunk.doc} · {chunk.locator}）") for line in outcome.text.splitlines()]


# (format, document, locator, passage text, question, the heading, the sentence that answers)
CASES = [
    (
        "pdf-numbered-bracket",
        "annual_report.pdf",
        "page=12,para=3-5",
        "报告期内公司坚持门店与线上并重。\n(一) 主营业务分析\n公司主营业务为消费电子零售，收入来自门店与线上渠道。",
        "主营业务分析",
        "(一) 主营业务分析",
        "公司主营业务为消费电子零售，收入来自门店与线上渠道。",
    ),
    (
        "pdf-numbered-chinese",
        "annual_report.pdf",
        "page=14,para=1-3",
        "公司持续投入门店数字化改造。\n三、核心竞争力分析\n公司的核心竞争力在于会员体系与供应链议价能力。",
        "核心竞争力分析",
        "三、核心竞争力分析",
        "公司的核心竞争力在于会员体系与供应链议价能力。",
    ),
    (
        "pdf-numbered-english",
        "10-K.pdf",
        "page=3,para=1-3",
        "We file this report annually.\n1. Business\nOur business is the retail of consumer electronics.",
        "Describe the business",
        "1. Business",
        "Our business is the retail of consumer electronics.",
    ),
    (
        "docx-caption",
        "东南亚扩张计划.docx",
        "section=财务影响,para=1-2",
        "2026年计划在越南和泰国新开门店，主要财务数据见下表。\nACME东南亚 主要财务数据（人民币百万元）",
        "东南亚主要财务数据",
        "ACME东南亚 主要财务数据（人民币百万元）",
        "2026年计划在越南和泰国新开门店，主要财务数据见下表。",
    ),
    (
        "docx-short-heading",
        "经营说明.docx",
        "section=经营概况,para=2-3",
        "门店网络继续优化调整。\n门店网络调整\n公司关闭了低效门店，门店网络调整带动坪效回升。",
        "门店网络调整",
        "门店网络调整",
        "公司关闭了低效门店，门店网络调整带动坪效回升。",
    ),
    (
        "pptx-slide-title-after-body",
        "deck.pptx",
        "slide=4",
        "会员复购持续改善。\n会员运营成效\n会员运营成效显著，复购率和客单价均有提升。",
        "会员运营成效",
        "会员运营成效",
        "会员运营成效显著，复购率和客单价均有提升。",
    ),
    (
        "xlsx-caption",
        "ACME_5yr_Summary.xlsx",
        "sheet=ACME香港!A1:F9",
        "香港五年财务摘要按管理口径编制。\nACME香港 五年财务摘要（人民币百万元）",
        "香港五年财务摘要",
        "ACME香港 五年财务摘要（人民币百万元）",
        "香港五年财务摘要按管理口径编制。",
    ),
    (
        "xlsx-caption-english",
        "summary.xlsx",
        "sheet=Summary!A1:F9",
        "Revenue by segment is shown on a management basis.\n(In millions)",
        "revenue by segment in millions",
        "(In millions)",
        "Revenue by segment is shown on a management basis.",
    ),
]


@pytest.mark.parametrize(
    ("doc", "locator", "text", "question", "heading", "sentence"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_heading_in_a_passage_is_never_quoted_and_its_sentence_is(
    doc: str, locator: str, text: str, question: str, heading: str, sentence: str
) -> None:
    quoted = _quoted(question, RetrievedChunk(1, doc, locator, text, 1.0, 1))
    assert heading not in quoted, quoted
    assert sentence in quoted, quoted


@pytest.mark.parametrize(
    "line",
    [
        "(一) 主营业务分析",
        "（二）核心竞争力分析",
        "三、核心竞争力分析",
        "第二节 公司业务概要",
        "1. Business",
        "1.2 Risk Factors",
        "Item 1A. Risk Factors",
        "ACME东南亚 主要财务数据（人民币百万元）",
        "(In millions)",
        "(in millions of U.S. dollars, except per share data)",
        "Consolidated Statements of Operations",
        "会员运营成效",
    ],
)
def test_every_heading_class_is_a_title_wherever_it_stands(line: str) -> None:
    assert title_line(line, opens_passage=False, names=(), glossary=GLOSSARY)


@pytest.mark.parametrize(
    "line",
    [
        "线上退货率上升至8.3%",  # a slide bullet stating a figure
        "门店渠道同店销售基本持平",  # a statement, though unpunctuated
        "1. 营业收入同比增长8.5%",  # a numbered item stating a figure
        "第一，访港旅客消费结构变化",  # a reason in a list
        "Revenue grew in every region except Hong Kong",
    ],
)
def test_a_statement_without_a_full_stop_is_no_heading(line: str) -> None:
    assert not title_line(line, opens_passage=False, names=(), glossary=GLOSSARY)
