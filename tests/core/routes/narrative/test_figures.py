"""Figures stated in documents: a how-much question about a term no metric holds is answered with
the sentence that states a figure for it, cited and labelled, never computed with.

The documents and terms here are made up (员工流失率, 会员续费率, 门店坪效): the mechanism, not the
demo's wording, is under test."""

from __future__ import annotations

import re
from datetime import date

import pytest

from core.model.period import Period
from core.model.result import Source
from core.pipeline import answer_question
from core.ports import Ports, RetrievedChunk
from core.routes.lookup.provider import MockProvider
from core.routes.narrative.figures import FIGURE_LABEL, NOT_STATED, figure_asked, figure_sentences
from tests.fakes import InMemoryFactStore

REF = date(2026, 3, 15)
RESTRICTED_DOC = "并购备忘录_内部.docx"


def chunk(chunk_id: int, doc: str, locator: str, text: str) -> RetrievedChunk:
    return RetrievedChunk(chunk_id, doc, locator, text, 1.0 / chunk_id, 100 + chunk_id)


CHUNKS = [
    chunk(1, "人力资源年报_2025.pdf", "page=3,para=2", "2025年集团员工流失率为12.5%，较上年下降2.0个百分点。"),
    chunk(2, "人力资源年报_2024.pdf", "page=3,para=2", "2024年集团员工流失率为14.5%，主要集中在门店一线岗位。"),
    chunk(3, "会员运营复盘.pptx", "slide=4", "会员运营\n东南亚会员续费率为40%，仍低于目标。"),
    chunk(4, "会员运营复盘.pptx", "slide=5", "香港会员续费率提升至55%，带动复购。"),
    chunk(5, "行业周报.pdf", "page=1,para=2", "竞安门店坪效达到8.6万元，居行业首位。"),
    chunk(6, RESTRICTED_DOC, "section=估值,para=1", "标的公司的客户留存率为91%，估值约12亿美元。"),
    chunk(7, "门店手册.docx", "section=二、陈列,para=1", "陈列密度影响客单价，全年新开门店30家。"),
]
RESTRICTED_IDS = {6}


class FakeRetriever:
    """Returns every chunk it may (clearance honoured as the real selectors do), recording queries."""

    def __init__(self, chunks: list[RetrievedChunk] = CHUNKS) -> None:
        self.chunks = chunks
        self.queries: list[tuple[str, bool]] = []

    def retrieve(self, query: str, *, cleared: bool, k: int = 8) -> list[RetrievedChunk]:
        self.queries.append((query, cleared))
        return [c for c in self.chunks if cleared or c.chunk_id not in RESTRICTED_IDS][:k]

    def documents_find(self, query: str, *, cleared: bool, k: int = 10) -> list[Source]:
        return []


def ask(question: str, glossary, *, cleared: bool = False, retriever: FakeRetriever | None = None):
    return answer_question(
        question,
        Ports(
            glossary=glossary,
            store=InMemoryFactStore([]),
            provider=MockProvider(),
            retriever=retriever if retriever is not None else FakeRetriever(),
        ),
        cleared=cleared,
        reference_date=REF,
    )


def test_a_term_no_metric_holds_is_answered_with_the_sentence_that_states_it(glossary) -> None:
    result = ask("请问员工流失率是多少？", glossary)
    assert result.answer_kind == "answer"
    assert FIGURE_LABEL["zh"] in result.answer
    assert "员工流失率为12.5%" in result.answer
    assert "（人力资源年报_2025.pdf · page=3,para=2）" in result.answer
    assert {s.kind for s in result.sources} == {"chunk"}
    assert result.sources[0].doc == "人力资源年报_2025.pdf"
    # with no period asked, each period's statement is quoted under its own citation
    assert "14.5%" in result.answer and "（人力资源年报_2024.pdf · page=3,para=2）" in result.answer
    assert result.clarification.mode == "none"


def test_a_document_figure_never_enters_facts_or_computations(glossary) -> None:
    for question in ("员工流失率是多少", "员工流失率同比增长了多少"):
        result = ask(question, glossary)
        assert result.facts == () and result.computed == () and result.tool_results == (), question
        assert result.guard.numbers_unsupported == 0
        # every figure shown is one the cited passage states
        cited = " ".join(s.snippet for s in result.sources)
        for figure in re.findall(r"\d+(?:\.\d+)?%", result.answer):
            assert figure in cited


def test_an_english_question_finds_the_figure_in_a_chinese_passage(glossary) -> None:
    result = ask("What was the employee turnover rate?", glossary)
    assert result.answer_kind == "answer"
    assert FIGURE_LABEL["en"] in result.answer
    assert "12.5%" in result.answer and "人力资源年报_2025.pdf" in result.answer


def test_a_term_with_no_stated_figure_says_so_in_the_questions_language(glossary) -> None:
    # 陈列密度 is in a passage, but no figure is stated for it: 30家 is about new stores.
    for question, language in (("陈列密度是多少", "zh"), ("What is the shelf density?", "en")):
        result = ask(question, glossary)
        assert result.answer_kind == "clarification", question
        assert NOT_STATED[language].split("{")[0] in result.answer
        assert "30" not in result.answer
        assert not any(s.kind == "chunk" for s in result.sources)


def test_a_term_and_a_figure_far_apart_about_different_things_are_not_chosen(glossary) -> None:
    retriever = FakeRetriever(
        [chunk(1, "门店手册.docx", "para=1", "陈列密度是门店管理的重点，华南全年新开门店共计30家。")]
    )
    result = ask("陈列密度是多少", glossary, retriever=retriever)
    assert "30家" not in result.answer
    assert result.answer_kind == "clarification"


def test_a_restricted_passage_is_neither_shown_nor_hinted_to_an_uncleared_user(glossary) -> None:
    hidden = ask("客户留存率是多少", glossary, cleared=False)
    assert "91" not in hidden.answer and RESTRICTED_DOC not in hidden.answer
    assert not hidden.sources
    # exactly what the user would get if the passage did not exist at all
    without = FakeRetriever([c for c in CHUNKS if c.chunk_id not in RESTRICTED_IDS])
    absent = ask("客户留存率是多少", glossary, cleared=False, retriever=without)
    assert hidden.answer == absent.answer and hidden.answer_kind == absent.answer_kind == "clarification"
    assert hidden.clarification == absent.clarification
    shown = ask("客户留存率是多少", glossary, cleared=True)
    assert "客户留存率为91%" in shown.answer and RESTRICTED_DOC in shown.answer


def test_a_competitors_passage_is_screened(glossary) -> None:
    result = ask("门店坪效是多少", glossary)
    assert "8.6" not in result.answer and "竞安" not in result.answer
    assert result.answer_kind == "clarification"


def test_a_competitor_named_in_the_question_is_refused_before_any_retrieval(glossary) -> None:
    retriever = FakeRetriever()
    result = ask("竞安的门店坪效是多少", glossary, retriever=retriever)
    assert result.answer_kind == "refusal"
    assert retriever.queries == []


def test_the_entity_named_chooses_its_own_sentence(glossary) -> None:
    result = ask("香港的会员续费率是多少", glossary)
    assert "55%" in result.answer and "40%" not in result.answer
    result = ask("东南亚会员续费率是多少", glossary)
    assert "40%" in result.answer and "55%" not in result.answer


def test_the_period_named_chooses_its_own_sentence(glossary) -> None:
    result = ask("2024年员工流失率是多少", glossary)
    assert "14.5%" in result.answer and "12.5%" not in result.answer
    result = ask("2025年员工流失率是多少", glossary)
    assert "12.5%" in result.answer and "14.5%" not in result.answer


def test_no_term_or_a_metric_term_keeps_its_own_path(glossary) -> None:
    retriever = FakeRetriever()
    bare = ask("是多少", glossary, retriever=retriever)
    assert bare.answer_kind == "clarification" and "请问您想查询哪个指标" in bare.answer
    assert retriever.queries == []
    metric = ask("2025年毛利率是多少", glossary, retriever=retriever)
    assert FIGURE_LABEL["zh"] not in metric.answer
    assert retriever.queries == []


def test_without_a_retriever_the_metric_ask_back_is_unchanged(glossary) -> None:
    result = answer_question(
        "员工流失率是多少",
        Ports(glossary=glossary, store=InMemoryFactStore([]), provider=MockProvider()),
        cleared=False,
        reference_date=REF,
    )
    assert result.answer_kind == "clarification" and "请问您想查询哪个指标" in result.answer


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("员工流失率为12.5%。", True),
        ("员工流失率同比下降2个百分点。", True),
        ("12.5%的员工流失率高于同业。", True),
        ("员工流失率保持稳定，门店新增30家。", False),
        ("员工流失率受多重因素影响，其中薪酬竞争力下降约3%。", False),
        ("2025年的员工流失率", False),
    ],
)
def test_the_figure_must_stand_beside_the_term(glossary, sentence: str, stated: bool) -> None:
    from core.parse.intent import parse_intent

    asked = figure_asked(parse_intent("员工流失率是多少", glossary, REF), glossary)
    assert asked is not None
    found = figure_sentences(asked, [chunk(1, "d.pdf", "page=1", sentence)], glossary)
    assert bool(found) is stated, sentence


def test_the_term_read_leaves_out_the_slots_and_the_asking_words(glossary) -> None:
    from core.parse.intent import parse_intent

    asked = figure_asked(parse_intent("请问2025年第四季度香港的会员续费率大概是多少？", glossary, REF), glossary)
    assert asked is not None
    assert asked.term == "会员续费率"
    assert asked.entities == ("ACME_HK",) and asked.period == Period("QUARTER", "2025Q4")
    assert figure_asked(parse_intent("是多少", glossary, REF), glossary) is None


def test_an_english_passage_states_a_figure_for_an_english_term(glossary) -> None:
    retriever = FakeRetriever(
        [
            chunk(
                1,
                "10-K.pdf",
                "page=41,para=2",
                "Store traffic fell 3% while the basket size grew. "
                "The employee turnover rate was 18.2% in fiscal 2025, down from 21.0%.",
            ),
        ]
    )
    result = ask("What was the employee turnover rate?", glossary, retriever=retriever)
    assert result.answer_kind == "answer"
    assert "The employee turnover rate was 18.2% in fiscal 2025" in result.answer
    assert "3%" not in result.answer


def test_a_base_of_comparison_is_not_the_period_a_figure_is_stated_for(glossary) -> None:
    retriever = FakeRetriever(
        [chunk(1, "会员复盘_2025Q4.pptx", "slide=2", "会员续费率上升至61%，较第三季度提高3个百分点。")]
    )
    assert "61%" in ask("第四季度会员续费率是多少", glossary, retriever=retriever).answer
    assert "61%" not in ask("第三季度会员续费率是多少", glossary, retriever=retriever).answer


def test_a_question_asking_for_things_not_a_figure_is_answered_from_the_documents(glossary) -> None:
    # `What are …` asks for a list: with no figure stated for it, the documents answer it as
    # narrative; the metric ask-back is for a figure asked (`What is …`, `是多少`).
    passage = chunk(8, "风险提示.pdf", "page=2,para=1", "The main risks are staff turnover and store rents rising.")
    retriever = FakeRetriever([passage])
    listed = ask("What are the main risks of the stores?", glossary, retriever=retriever)
    assert listed.route == "narrative" and listed.answer_kind == "answer"
    assert [s.doc for s in listed.sources] == ["风险提示.pdf"] and "Which metric" not in listed.answer
    figure = ask("What is the shelf density?", glossary, retriever=retriever)
    assert figure.answer_kind == "clarification" and NOT_STATED["en"].split("{")[0] in figure.answer
