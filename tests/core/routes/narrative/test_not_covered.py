"""Saying "not covered": below the relevance floor the narrative channel says the documents do
not cover the question, in the question's written form; a greeting is answered as one; an
English question answered from Chinese passages gets an English lead line."""

from __future__ import annotations

import re

import pytest

from core.model.period import Period
from core.ports import RetrievedChunk, Source
from core.routes.narrative.answer import RELEVANCE_FLOOR, narrative_answer
from core.routes.narrative.attribution import Focus
from core.routes.narrative.wording import coverage_of, greeting_is, terms_of, voice_of
from core.routes.render import DESK_GREETING, NARRATIVE_NOT_COVERED, QUOTES_IN_CHINESE
from tests.fakes import demo_glossary

GLOSSARY = demo_glossary()
REGULATION = RetrievedChunk(
    1,
    "监管动态_2025H2.docx",
    "section=二、个人信息出境新规,para=1",
    "个人信息出境认证办法正式实施，会员数据跨境传输需通过认证或签署标准合同。"
    "东南亚业务共享会员体系涉及数据出境，信息安全部已启动标准合同备案。",
    1.0,
    1,
)
SUBSIDY = RetrievedChunk(
    2,
    "监管动态_2025H2.docx",
    "section=四、以旧换新补贴政策延续,para=1",
    "消费品以旧换新补贴政策延续至2026年，公司门店和线上渠道的换机需求获得支撑。",
    1.0,
    1,
)
INVESTORS = RetrievedChunk(3, "mdna.pdf", "page=2,para=1", "公司重视与投资者的沟通，定期举办业绩说明会。", 1.0, 2)
EXPANSION = RetrievedChunk(
    4,
    "东南亚扩张计划_内部.docx",
    "section=项目概述,para=1",
    "公司拟在东南亚扩张门店网络，计划在越南、泰国和马来西亚新开门店。",
    1.0,
    3,
)
PASSAGES = (REGULATION, SUBSIDY, INVESTORS, EXPANSION)


class ListRetriever:
    def __init__(self, *chunks: RetrievedChunk):
        self.chunks = list(chunks)
        self.asked = 0

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.asked += 1
        return self.chunks[:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def _answer(question: str, *chunks: RetrievedChunk, language: str = "zh", focus: Focus | None = None):
    retriever = ListRetriever(*(chunks or PASSAGES))
    outcome = narrative_answer(
        question, retriever=retriever, glossary=GLOSSARY, cleared=False, language=language, focus=focus
    )
    return outcome, retriever


@pytest.mark.parametrize(
    ("question", "language", "voice"),
    [
        ("差旅报销标准是什么", "zh", "zh"),  # shares 标准 with 标准合同
        ("帮我写一封给投资者的邮件", "zh", "zh"),  # shares 投资 with 投资者
        ("公司的产假政策是怎样的", "zh", "zh"),  # shares 政策 with 补贴政策
        ("火星项目进展如何", "zh", "zh"),
        ("出差可以坐商務艙嗎", "zh", "zh-Hant"),
        ("部電腦點樣裝打印機", "zh", "yue"),
        ("What is the hotel allowance for business trips?", "en", "en"),
        ("Write me a poem about autumn", "en", "en"),
        ("請問？", "zh", "zh-Hant"),  # no content at all
    ],
)
def test_a_question_the_passages_do_not_speak_to_is_not_covered(question: str, language: str, voice: str) -> None:
    outcome, _ = _answer(question, language=language)
    assert outcome.kind == "refusal" and not outcome.sources, outcome.text
    assert outcome.text == NARRATIVE_NOT_COVERED[voice]


@pytest.mark.parametrize(
    ("question", "chunks"),
    [
        ("最近有哪些监管政策变化", (REGULATION, SUBSIDY)),
        ("东南亚扩张有什么计划", (EXPANSION,)),
        ("以旧换新补贴政策会延续吗", (SUBSIDY,)),
    ],
)
def test_a_question_the_passages_speak_to_is_still_answered(question: str, chunks: tuple[RetrievedChunk, ...]) -> None:
    outcome, _ = _answer(question, *chunks)
    assert outcome.kind == "answer" and outcome.sources, outcome.text


def test_a_question_about_an_entitys_period_in_general_has_no_topic_and_is_still_answered() -> None:
    quarter = RetrievedChunk(5, "deck.pptx", "slide=2", "2025年第四季度集团营业收入环比增长，主要受大促带动。", 1.0, 4)
    outcome, _ = _answer("2025年第四季度发生了什么？", quarter, focus=Focus((), Period("QUARTER", "2025Q4")))
    assert outcome.kind == "answer", outcome.text


def test_coverage_counts_words_not_the_bigrams_across_them_nor_a_word_in_another_script() -> None:
    held = [terms_of(f"{REGULATION.doc} {REGULATION.text}", GLOSSARY), terms_of(SUBSIDY.text, GLOSSARY)]
    # 监管 and 政策 are held, 变化 not: 4 of 6 characters, the bigram 管政 across two words aside.
    assert coverage_of("监管政策变化", GLOSSARY, held) == pytest.approx(4 / 6)
    # An English word cannot be held by a Chinese passage: only the glossary bridges them.
    assert coverage_of("What are the data transfer rules?", GLOSSARY, held) is None
    assert coverage_of("What changed in the online channel?", GLOSSARY, [terms_of("线上渠道收入增长。", GLOSSARY)]) == 1
    assert 0 < RELEVANCE_FLOOR < 1


# -- greetings ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "language", "voice"),
    [
        ("你好", "zh", "zh"),
        ("您好！", "zh", "zh"),
        ("大家好", "zh", "zh"),
        ("哈囉", "zh", "zh-Hant"),
        ("早晨", "zh", "zh"),
        ("早晨呀", "zh", "zh"),
        ("hello", "en", "en"),
        ("Hi there!", "en", "en"),
        ("Good morning, team", "en", "en"),
    ],
)
def test_a_greeting_is_answered_as_one_saying_what_the_desk_answers(question: str, language: str, voice: str) -> None:
    outcome, retriever = _answer(question, language=language)
    assert outcome.kind == "answer" and not outcome.sources and retriever.asked == 0
    assert outcome.text == DESK_GREETING[voice]


@pytest.mark.parametrize(
    "question",
    ["你好，香港收入为什么下降", "hello, what drove revenue?", "Hi, tell me a joke", "你好吗今天天气", "好"],
)
def test_a_greeting_with_anything_else_in_it_is_no_greeting(question: str) -> None:
    assert not greeting_is(question)


def test_the_fixed_messages_state_no_figure_and_speak_every_voice() -> None:
    for table in (NARRATIVE_NOT_COVERED, DESK_GREETING):
        assert set(table) == {"zh", "zh-Hant", "yue", "en"}
        assert not any(re.search(r"\d", text) for text in table.values())
    assert not re.search(r"\d", QUOTES_IN_CHINESE["en"])
    assert voice_of("點解香港收入跌咗", "zh") == "yue" and voice_of("香港收入為什麼下降", "zh") == "zh-Hant"


# -- an English lead ---------------------------------------------------------------------------
def test_an_english_question_answered_from_chinese_passages_gets_one_english_lead_line() -> None:
    growth = RetrievedChunk(6, "mdna.pdf", "page=1,para=4", "东南亚营业收入同比增长59.7%，主要来自新开门店。", 1.0, 2)
    outcome, _ = _answer("Why did Southeast Asia revenue grow?", growth, language="en")
    lead, *quotes = outcome.text.splitlines()
    assert outcome.kind == "answer" and lead == QUOTES_IN_CHINESE["en"]
    assert quotes == ["东南亚营业收入同比增长59.7%，主要来自新开门店。（mdna.pdf · page=1,para=4）"]
    assert outcome.numbers_unsupported == 0


def test_a_chinese_question_gets_no_english_lead() -> None:
    outcome, _ = _answer("东南亚扩张有什么计划", EXPANSION)
    assert outcome.kind == "answer" and QUOTES_IN_CHINESE["en"] not in outcome.text
