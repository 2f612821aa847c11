"""The narrative channel's core: fusion, rewriting, rerank parsing, synthesis and the numeric grounding check."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.model.facts import FactRecord
from core.model.period import Period
from core.model.result import Source
from core.ports import ProviderError, ProviderResponse, RetrievedChunk
from core.routes.narrative.answer import narrative_answer
from core.routes.narrative.grounding import numbers_ground
from core.routes.narrative.retrieve import queries_rewrite, rerank_parse, rrf_fuse
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
    grounded, removed = numbers_ground(
        text, snippets=[CHUNKS[0].text], doc_names=["mdna.pdf"], references=[CHUNKS[0].locator]
    )
    assert removed == 1
    assert "6.7%" in grounded and "25%" not in grounded
    assert grounded.endswith("（已移除 1 处无法在资料中核实的数字）")


def test_grounding_normalises_separators_and_units() -> None:
    snippet = "集团实现营业收入1,284.5亿元，同比增长8.5%。"
    fact = FactRecord("REVENUE", "ACME_GROUP", Period("FY", "2025"), "TOTAL", Decimal("128450.6"), "CNY_M", "d", "l")
    text = "营业收入为1284.5亿元。按事实表为128,450.6百万元。折合128,450,000,000元。增长8.5%。"
    grounded, removed = numbers_ground(text, snippets=[snippet], facts=[fact])
    assert removed == 0 and grounded == text


def test_the_systems_own_citation_digits_are_not_claims() -> None:
    citation = "（ACME_2025Q4_渠道复盘.pptx · section=线上渠道,para=3）"
    text = f"线上退货率上升{citation}。"
    grounded, removed = numbers_ground(
        text, snippets=["线上退货率上升。"], doc_names=["ACME_2025Q4_渠道复盘.pptx"], references=[citation]
    )
    assert removed == 0 and grounded == text
    # The same shape from anywhere else is prose: its digits are checked.
    assert numbers_ground(text, snippets=["线上退货率上升。"])[1] > 0


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


# -- numeric grounding that cannot be talked around ------------------------
SEA_LOSS = FactRecord(
    "OPERATING_PROFIT", "ACME_SEA", Period("FY", "2025"), "TOTAL", Decimal("-1085.2"), "CNY_M", "d", "l"
)


def ground(text: str, *snippets: str, **kwargs) -> tuple[str, int]:
    return numbers_ground(text, snippets=list(snippets or [CHUNKS[0].text, CHUNKS[1].text]), **kwargs)


@pytest.mark.parametrize(
    "smuggled",
    [
        "（2026年香港收入将降至150亿元 · 管理层预测）",
        "（资料来源：管理层预测香港收入将降至150亿元）",
    ],
)
def test_a_citation_shaped_parenthetical_the_model_wrote_is_checked(smuggled: str) -> None:
    grounded, removed = ground(f"香港营业收入同比下降6.7%。{smuggled}")
    assert "150" not in grounded and removed >= 1
    assert "6.7%" in grounded


def test_a_scripted_model_cannot_smuggle_a_figure_inside_a_fake_citation(glossary) -> None:
    smuggled = "（2026年香港收入将降至150亿元 · 管理层预测）"
    provider = ScriptedProvider(prose(f"香港收入下降6.7% [1]{smuggled}。客流下降15% [2]。"))
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert "150亿" not in outcome.text and "15%" in outcome.text
    assert outcome.numbers_unsupported == 2  # the year 2026 and 150亿元; the system's own citations count nothing
    assert "（hk.pdf · section=客流与客单价,para=1）" in outcome.text


def test_system_citations_and_a_copied_citation_never_raise_a_false_notice(glossary) -> None:
    provider = ScriptedProvider(
        prose("香港收入下降6.7%（mdna.pdf · section=二、香港业务,para=1）。铜锣湾客流下降15% [2]。mdna.pdf 有说明。")
    )
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert outcome.numbers_unsupported == 0 and "已移除" not in outcome.text
    assert "para=1" in outcome.text and "6.7%" in outcome.text and "15%" in outcome.text


@pytest.mark.parametrize("glued", ["RMB150亿", "HKD320亿", "US$5m", "人民币12亿元"])
def test_amounts_glued_after_letters_are_numbers(glued: str) -> None:
    grounded, removed = ground(f"香港营业收入同比下降6.7%。香港收入约{glued}。")
    assert removed == 1 and glued not in grounded


@pytest.mark.parametrize("figure", ["三成", "两成", "百分之三十", "二十亿元", "五百万元", "一百二十亿", "十二家"])
def test_chinese_numerals_are_numbers(figure: str) -> None:
    grounded, removed = ground(f"香港营业收入同比下降6.7%。管理层预计回升{figure}。")
    assert removed == 1 and figure not in grounded


@pytest.mark.parametrize(
    ("claim", "snippet"),
    [
        ("香港营业收入为6.7亿元。", "香港业务占集团收入的6.7%。"),
        ("铜锣湾关闭了15家门店。", "铜锣湾旗舰店贡献了15%的客流。"),
        ("旗舰店收入为15元。", "铜锣湾旗舰店贡献了15%的客流。"),
        ("线上退货率上升1.6%。", "退货率较第三季度提高1.6个百分点。"),
        ("香港营业收入为6.7万元。", "香港营业收入为6.7亿元。"),
        ("项目估值约12亿美元。", "项目估值约12亿元。"),
    ],
)
def test_a_number_is_matched_with_its_unit_and_scale(claim: str, snippet: str) -> None:
    grounded, removed = ground(claim, snippet)
    assert removed == 1 and grounded == "（已移除 1 处无法在资料中核实的数字）"


def test_the_sign_is_part_of_the_number() -> None:
    grounded, removed = ground("东南亚营业利润1,085.2百万元。", "东南亚业务仍处于投入期。", facts=[SEA_LOSS])
    assert removed == 1 and "1,085.2" not in grounded
    kept = "东南亚营业利润-1,085.2百万元。折合−10.852亿元。即亏损1,085.2百万元。"
    assert ground(kept, "东南亚业务仍处于投入期。", facts=[SEA_LOSS]) == (kept, 0)


def test_a_loss_in_the_source_does_not_support_a_profit() -> None:
    snippet = "全年营业利润为亏损10.85亿元。"
    assert ground("全年营业利润为亏损10.85亿元。", snippet)[1] == 0
    assert ground("全年营业利润为10.85亿元。", snippet)[1] == 1


def test_the_question_numbers_are_not_support() -> None:
    grounded, removed = ground("香港收入下降了30%。", question="香港收入为什么下降了30%")
    assert removed == 1 and "30%" not in grounded


def test_a_scripted_model_echoing_the_question_figure_has_it_removed(glossary) -> None:
    provider = ScriptedProvider(prose("香港收入下降了30% [1]。主要原因是访港旅客消费结构变化 [1]。"))
    question = "香港收入为什么下降了30%"
    outcome = narrative_answer(
        question, retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert "30%" not in outcome.text and outcome.numbers_unsupported == 1


def test_a_year_is_checked_as_a_period() -> None:
    snippet = "2025财年，集团实现营业收入1,284.5亿元。"
    assert ground("2026年营业收入将保持增长。", snippet) == ("（已移除 1 处无法在资料中核实的数字）", 1)
    assert ground("FY2025营业收入为1,284.5亿元。", snippet)[1] == 0
    # A year the question or a found fact names is a period the answer may restate; never a figure.
    assert ground("2024年香港营业收入下降。", snippet, question="2024年香港收入为什么下降")[1] == 0
    assert ground("2024年香港营业收入下降。", snippet, facts=[SEA_LOSS])[1] == 1
    assert ground("2025年东南亚营业利润-1,085.2百万元。", "东南亚业务仍处于投入期。", facts=[SEA_LOSS])[1] == 0


def test_a_list_marker_is_no_figure() -> None:
    text = "1. 香港营业收入同比下降6.7%。\n2) 铜锣湾旗舰店客流同比下降15%。"
    assert ground(text) == (text, 0)


# How a figure may be written: (unit word, the scale its digits are in).
_FORMS = {
    "money": [("元", 1), ("万元", 10**4), ("百万元", 10**6), ("亿元", 10**8), ("rmb", 10**8)],
    "percent": [("%", 1), ("％", 1)],
    "count": [("家", 1)],
}


def _written(value: Decimal, unit: str, scale: int, negative: bool, separators: bool = True) -> str:
    shown = (value / scale).normalize()
    digits = f"{shown:,f}" if separators else f"{shown:f}"
    sign = "-" if negative else ""
    return f"{sign}rmb{digits}亿" if unit == "rmb" else f"{sign}{digits}{unit}"


@given(
    cents=st.integers(min_value=1, max_value=10**9),
    kind=st.sampled_from(sorted(_FORMS)),
    source_form=st.integers(0, 4),
    claim_form=st.integers(0, 4),
    negative=st.booleans(),
    separators=st.booleans(),
)
def test_any_rendering_of_a_source_figure_is_supported_and_no_perturbation_is(
    cents: int, kind: str, source_form: int, claim_form: int, negative: bool, separators: bool
) -> None:
    forms = _FORMS[kind]
    value = Decimal(cents) / 100 * (10**6 if kind == "money" else 1)
    source_unit, source_scale = forms[source_form % len(forms)]
    unit, scale = forms[claim_form % len(forms)]
    snippet = f"据披露，该项为{_written(value, source_unit, source_scale, negative)}。"

    def removed(claim: str) -> int:
        return numbers_ground(f"该项为{claim}。", snippets=[snippet])[1]

    assert removed(_written(value, unit, scale, negative, separators)) == 0
    assert removed(_written(value + Decimal("0.01") * scale, unit, scale, negative, separators)) == 1
    assert removed(_written(value, unit, scale, not negative, separators)) == 1
    other_unit = {"money": "%", "percent": "家", "count": "元"}[kind]
    assert removed(_written(value, other_unit, scale, negative, separators)) == 1
    if kind == "money":
        wrong_unit = "万元" if scale != 10**4 else "亿元"
        assert removed(_written(value, wrong_unit, scale, negative, separators)) == 1


def test_an_answer_with_every_sentence_removed_is_a_refusal_with_the_notice(glossary) -> None:
    provider = ScriptedProvider(prose("香港收入将回升至150亿元 [1]。"))
    outcome = narrative_answer(
        "香港收入为什么下降", retriever=FakeRetriever(), glossary=glossary, cleared=False, language="zh", llm=provider
    )
    assert outcome.kind == "refusal" and outcome.sources == ()
    assert outcome.text == "（已移除 1 处无法在资料中核实的数字）" and outcome.numbers_unsupported == 1
