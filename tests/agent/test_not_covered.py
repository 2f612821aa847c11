"""Off-topic and empty questions over the demo say the documents do not cover them; a greeting
is answered as one (the demo's documents, through the real orchestrator and ORM retriever)."""

from __future__ import annotations

from typing import Any

import pytest

from agent.services import question_ask
from core.routes.render import DESK_GREETING, NARRATIVE_NOT_COVERED

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("question", "voice"),
    [("差旅报销标准是什么", "zh"), ("公司的产假政策是怎样的", "zh")],
)
def test_an_off_topic_question_over_the_demo_is_not_covered(demo: dict[str, Any], question: str, voice: str) -> None:
    result = question_ask(question, user=demo["users"]["analyst"]).result
    assert result.answer_kind == "refusal" and not result.sources, result.sections.narrative
    assert result.sections.narrative.startswith(NARRATIVE_NOT_COVERED[voice])


@pytest.mark.parametrize(("question", "voice"), [("你好", "zh"), ("hello", "en"), ("哈囉", "zh-Hant")])
def test_a_greeting_over_the_demo_is_answered_as_one(demo: dict[str, Any], question: str, voice: str) -> None:
    result = question_ask(question, user=demo["users"]["analyst"]).result
    assert result.sections.narrative.startswith(DESK_GREETING[voice]) and not result.sources


def test_a_narrative_question_the_demo_covers_is_still_answered(demo: dict[str, Any]) -> None:
    result = question_ask("最近有哪些监管政策变化", user=demo["users"]["analyst"]).result
    assert result.answer_kind == "answer" and any(s.doc == "监管动态_2025H2.docx" for s in result.sources)
