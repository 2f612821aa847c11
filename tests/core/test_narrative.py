"""The narrative channel's core: fusion, rewriting, rerank parsing, synthesis and the numeric grounding check."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agent.core.narrative import (
    narrative_answer,
    numbers_ground,
    queries_rewrite,
    rerank_parse,
    rrf_fuse,
)
from agent.core.ports import ProviderError, ProviderResponse, RetrievedChunk
from agent.core.types import FactRecord, Period, Source
from tests.scripted import ScriptedProvider, prose

CHUNKS = [
    RetrievedChunk(
        1,
        "mdna.pdf",
        "section=二、香港业务,para=1",
        "香港营业收入同比下降6.7%。主要原因是访港旅客消费结构变化。",
        9.0,
        11,
    ),
    RetrievedChunk(2, "hk.pdf", "section=客流与客单价,para=1", "铜锣湾旗舰店客流同比下降15%。", 5.0, 12),
    RetrievedChunk(3, "secret.docx", "section=项目概述,para=1", "项目代号蓝鲸，目标估值约12亿美元。", 4.0, 13),
]
RESTRICTED_IDS = {3}


class FakeRetriever:
    """Honours clearance the way the real selectors do: hidden chunks are never returned."""

    def __init__(self, chunks=CHUNKS):
        self.chunks = chunks
        self.queries: list[tuple[str, bool]] = []

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.queries.append((query, cleared))
        return [c for c in self.chunks if cleared or c.chunk_id not in RESTRICTED_IDS][:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def test_rrf_adds_reciprocal_ranks() -> None:
    fused = rrf_fuse([[(1, 9.0), (2, 5.0)], [(2, 0.9), (3, 0.8)]])
    assert [i for i, _ in fused] == [2, 1, 3]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_rewriting_keeps_the_question_first_and_adds_at_most_four_variants(glossary) -> None:
    queries = queries_rewrite("香港收入为什么下降", glossary)
    assert queries[0] == "香港收入为什么下降"
    assert 1 < len(queries) <= 5
    assert any("hong kong" in q or "acme香港" in q for q in queries[1:])


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("[2, 1, 3]", [1, 0, 2]),
        ('{"order": [3]}', [2, 0, 1]),
        ("The best is 2, then 3.", [1, 2, 0]),
        ("[9, 0, -1, 2, 2]", [1, 0, 2]),
        ("no idea", None),
        ("[]", None),
    ],
)
def test_rerank_replies_are_parsed_robustly(reply: str, expected) -> None:
    assert rerank_parse(reply, 3) == expected


def test_grounding_removes_sentences_with_unsupported_numbers() -> None:
    text = "香港营业收入同比下降6.7%（mdna.pdf · section=二、香港业务,para=1）。管理层预计明年将增长25%。"
    grounded, removed = numbers_ground(text, snippets=[CHUNKS[0].text], doc_names=["mdna.pdf"])
    assert removed == 1
    assert "6.7%" in grounded and "25%" not in grounded
    assert grounded.endswith("（已移除 1 处无法在资料中核实的数字）")


def test_grounding_normalises_separators_and_units() -> None:
    snippet = "集团实现营业收入1,284.5亿元，同比增长8.5%。"
    fact = FactRecord("REVENUE", "ACME_GROUP", Period("FY", "2025"), "TOTAL", Decimal("128450.6"), "CNY_M", "d", "l")
    text = "营业收入为1284.5亿元。按事实表为128,450.6百万元。折合128,450,000,000元。增长8.5%。"
    grounded, removed = numbers_ground(text, snippets=[snippet], facts=[fact])
    assert removed == 0 and grounded == text


def test_citation_digits_and_question_numbers_are_not_claims() -> None:
    text = "线上退货率上升（ACME_2025Q4_渠道复盘.pptx · section=线上渠道,para=3）。"
    grounded, removed = numbers_ground(
        text, snippets=["线上退货率上升。"], question="2025年退货率", doc_names=["ACME_2025Q4_渠道复盘.pptx"]
    )
    assert removed == 0 and grounded == text


def test_offline_answers_are_extractive_and_every_sentence_is_cited(glossary) -> None:
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh"
    )
    assert outcome.kind == "answer"
    lines = outcome.text.splitlines()
    assert lines and all(line.endswith("）") and "·" in line for line in lines)
    assert {s.doc for s in outcome.sources} <= {"mdna.pdf", "hk.pdf"}
    assert outcome.numbers_unsupported == 0


def test_a_scripted_model_inventing_a_figure_has_it_removed(glossary) -> None:
    provider = ScriptedProvider(prose("香港收入下降6.7% [1]。预计反弹至30,000百万元 [2]。"))
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert "30,000" not in outcome.text and "6.7%" in outcome.text
    assert outcome.numbers_unsupported == 1
    assert "（已移除 1 处无法在资料中核实的数字）" in outcome.text
    assert "（mdna.pdf · section=二、香港业务,para=1）" in outcome.text  # [1] became a citation


def test_uncited_sources_are_appended(glossary) -> None:
    provider = ScriptedProvider(prose("香港收入下降，主要因为旅客消费结构变化。"))
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert "（资料来源：mdna.pdf section=二、香港业务,para=1；hk.pdf section=客流与客单价,para=1）" in outcome.text
    assert {s.doc for s in outcome.sources} == {"mdna.pdf", "hk.pdf"}


def test_restricted_text_never_reaches_the_prompt_of_an_uncleared_user(glossary) -> None:
    provider = ScriptedProvider(prose("无"), prose("无"))
    narrative_answer(
        "蓝鲸项目的估值",
        retriever=FakeRetriever(),
        glossary=glossary,
        cleared=False,
        language="zh",
        llm=provider,
        rerank=True,
    )
    prompts = str(provider.requests)
    assert (
        "蓝鲸" not in prompts.replace("蓝鲸项目的估值", "")
        and "12亿美元" not in prompts
        and "secret.docx" not in prompts
    )


def test_provider_errors_degrade_with_no_number(glossary) -> None:
    provider = ScriptedProvider(ProviderError("timeout"))
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert outcome.kind == "degraded" and outcome.text == "AI 服务暂时不可用，未能生成归因，请稍后再试。"


def test_no_hits_and_no_retriever_are_honest(glossary) -> None:
    empty = narrative_answer("火星基地", retriever=FakeRetriever([]), glossary=glossary, cleared=False, language="zh")
    assert empty.kind == "refusal" and empty.text == "未检索到与该问题相关的资料，无法基于现有知识库作答。"
    unwired = narrative_answer("火星基地", retriever=None, glossary=glossary, cleared=False, language="zh")
    assert unwired.kind == "degraded" and unwired.text.startswith("叙事检索通路尚未接入")


def test_rerank_garbage_falls_back_to_fused_order(glossary) -> None:
    provider = ScriptedProvider(ProviderResponse(text="I cannot rank these."), prose("香港收入下降6.7% [1]。"))
    outcome = narrative_answer(
        "香港收入为什么下降",
        retriever=FakeRetriever(),
        glossary=glossary,
        cleared=True,
        language="zh",
        llm=provider,
        rerank=True,
    )
    assert "mdna.pdf" in outcome.text and outcome.kind == "answer"
