"""Through `answer_question`: a yes/no check of a stated figure leads with its verdict in the
question's language, then the figure with its source exactly as a plain lookup shows it; with no
figure found, no verdict (the rule itself: `tests/core/routes/lookup/test_verdict.py`)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from core.glossary import GlossarySnapshot
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore

REF = date(2026, 3, 15)


def _ask(question: str, glossary: GlossarySnapshot, store: InMemoryFactStore):
    return answer_question(
        question, Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=False, reference_date=REF
    )


def test_a_wrong_figure_is_answered_no_first_then_the_fact_with_its_source(glossary, store) -> None:
    plain = _ask("香港2024年营收是多少", glossary, store)
    result = _ask("香港2024年营收是不是13万亿？", glossary, store)
    assert result.answer_kind == "answer"
    first, rest = result.answer.split("\n", 1)
    assert first.startswith("不是。") and "13万亿" in first and "25,730.1" in first
    assert rest == plain.answer  # the figure with its source, as before
    assert [f.value for f in result.facts] == [Decimal("25730.1")]


def test_the_copula_form_of_whether_is_read_and_answered(glossary, store) -> None:
    result = _ask("香港2024年营收是否为2.5万亿元？", glossary, store)
    assert result.answer_kind == "answer" and result.clarification.mode == "none"
    assert result.answer.startswith("不是。") and "25,730.1" in result.answer


def test_an_english_check_is_answered_in_english(glossary, store) -> None:
    result = _ask("Was Hong Kong revenue in 2024 25.7 billion yuan?", glossary, store)
    assert result.answer.startswith("Yes, approximately")
    no = _ask("Did Hong Kong revenue reach 30 billion in 2024?", glossary, store)
    assert no.answer.startswith("No. ")


def test_with_no_figure_found_there_is_no_verdict(glossary, store) -> None:
    result = _ask("香港2019年营收是不是13万亿？", glossary, store)
    assert result.answer_kind != "answer"
    assert not result.answer.startswith(("不是", "是的")) and "13万亿" not in result.answer


def test_a_plain_question_has_no_verdict(glossary, store) -> None:
    result = _ask("香港2024年营收是多少", glossary, store)
    assert result.answer.startswith("ACME香港")
