"""Attribution about the thing asked, through the real orchestrator and the ORM retriever.

The demo's documents plus two notes, one per entity, that both speak of revenue: the composite
answer's attribution of one entity's figure quotes that entity's passages first and never
another entity's passage unlabelled. An English question over the Chinese documents gets a cited
extractive answer. Runs on SQLite and, with `RAGSPINE_TEST_DB=postgres`, on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.services import question_ask
from core.language.normalize import text_normalize
from core.routes.render import ABOUT_ENTITY, QUOTES_IN_CHINESE
from documents.services import document_ingest
from facts.selectors import glossary_snapshot

pytestmark = pytest.mark.django_db

NOTES = {
    "经营说明_甲.md": "# 经营说明\n\n## 收入变化\n香港营业收入同比下降，主要因为访港旅客减少、核心商圈门店客流下滑。\n",
    "经营说明_乙.md": "# 经营说明\n\n## 收入变化\n中国内地营业收入同比增长，主要得益于线上渠道和以旧换新补贴。\n",
}


@pytest.fixture
def notes(demo: dict[str, Any]) -> dict[str, Any]:
    for name, text in NOTES.items():
        document_ingest(name=name, data=text.encode(), sensitivity="INTERNAL")
    return demo


def _named(text: str) -> set[str]:
    """The in-scope entities a line names, by the glossary's own matcher on normalised text."""
    glossary = glossary_snapshot()
    return {m.code for m in glossary.match(text_normalize(text)) if m.kind == "entity" and not m.external}


def _lines(narrative: str) -> list[str]:
    return [line.rsplit("（", 1)[0] for line in narrative.splitlines() if line.strip()]


@pytest.mark.parametrize("question", ["香港收入为什么下降", "香港營業收入為什麼下降", "Why did HK revenue fall?"])
def test_the_attribution_of_one_entitys_figure_quotes_that_entity_first_and_no_other_unlabelled(
    notes: dict[str, Any], question: str
) -> None:
    result = question_ask(question, user=notes["users"]["analyst"]).result
    assert result.route == "composite" and result.facts and result.facts[0].entity == "ACME_HK"
    lines = _lines(result.sections.narrative)
    assert lines, result.sections.narrative
    chunks = [s for s in result.sources if s.kind == "chunk"]
    # The first passage quoted is about Hong Kong: its text or its document names it.
    assert chunks and "ACME_HK" in _named(chunks[0].doc + "\n" + chunks[0].snippet), chunks[0]
    label = ABOUT_ENTITY[result.language].split("{")[0]
    for line in lines:
        named = _named(line)
        if named and "ACME_HK" not in named:
            assert line.startswith(label), f"another entity's passage unlabelled: {line}"
    # Hong Kong material exists, so no other entity's passage is shown at all.
    assert not [line for line in lines if _named(line) and "ACME_HK" not in _named(line)]
    assert "经营说明_乙.md" not in {s.doc for s in chunks}
    assert result.guard.numbers_unsupported == 0


def test_an_english_why_question_over_the_chinese_documents_gets_a_cited_extractive_answer(
    demo: dict[str, Any],
) -> None:
    result = question_ask("Why did Hong Kong revenue decline?", user=demo["users"]["analyst"]).result
    narrative = result.sections.narrative
    assert result.answer_kind == "answer"
    assert "No relevant material" not in narrative
    lead, *quoted = [line for line in narrative.splitlines() if line.strip() and not line.startswith("(")]
    assert lead == QUOTES_IN_CHINESE["en"], narrative  # one English line before the Chinese quotes
    lines = quoted
    assert lines and all(line.endswith("）") and " · " in line for line in lines), narrative
    assert any("香港营业收入同比下降6.7%" in line for line in lines)
    assert {"ACME_FY2025_管理层讨论与分析.pdf", "ACME香港业务季度回顾_2025Q3.pdf"} & {
        s.doc for s in result.sources if s.kind == "chunk"
    }


def test_a_hong_kong_regulatory_question_leaves_out_the_mainland_section(demo: dict[str, Any]) -> None:
    result = question_ask("香港最近有什么监管动态", user=demo["users"]["analyst"]).result
    assert result.route == "narrative" and result.answer_kind == "answer"
    lines = _lines(result.sections.narrative)
    assert "ACME_HK" in _named(lines[0])
    assert not [line for line in lines if "ACME_CN" in _named(line)]


@pytest.mark.parametrize("question", ["存储芯片涨价对香港毛利率有什么影响？", "Why did Hong Kong gross margin fall?"])
def test_with_nothing_relevant_about_the_asked_entity_another_entitys_passage_is_shown_labelled(
    demo: dict[str, Any], question: str
) -> None:
    """The demo has no passage on Hong Kong's margin, only its deck's notes caption naming it;
    the caption is no answer, and the group's margin passage is quoted under its label."""
    result = question_ask(question, user=demo["users"]["analyst"]).result
    assert result.route == "composite" and result.facts[0].entity == "ACME_HK"
    lines = _lines(result.sections.narrative)
    assert not [line for line in lines if "口径" in line], result.sections.narrative
    label = ABOUT_ENTITY[result.language].format(
        name=glossary_snapshot().display("entity", "ACME_GROUP", result.language)
    )
    assert any(line.startswith(label) and "毛利率" in line for line in lines), result.sections.narrative
    for line in lines:
        assert "ACME_HK" in _named(line) or not _named(line) or line.startswith(label), line
    assert result.guard.numbers_unsupported == 0


def test_a_question_naming_only_a_period_quotes_that_periods_review(demo: dict[str, Any]) -> None:
    result = question_ask("2025年第四季度发生了什么？", user=demo["users"]["analyst"]).result
    assert result.route == "narrative" and result.answer_kind == "answer", result.sections.narrative
    assert {s.doc for s in result.sources if s.kind == "chunk"} == {"ACME_2025Q4_渠道复盘.pptx"}


def test_a_reason_list_is_quoted_whole_and_no_sentence_twice(demo: dict[str, Any]) -> None:
    result = question_ask("香港营业利润为什么下降？", user=demo["users"]["analyst"]).result
    lines = _lines(result.sections.narrative)
    assert [n for n in ("第一", "第二", "第三") if any(line.startswith(n) or n in line for line in lines)] == [
        "第一",
        "第二",
        "第三",
    ], result.sections.narrative
    assert len(lines) == len(set(lines))
