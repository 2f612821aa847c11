"""A series asked without a range (`集团历年营收`, `哪一年营收最高`, `quarterly revenue`) is asked
back with ranges that answer; it is never answered for the latest year alone, nor turned into a
ranking of entities."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from core.model.facts import INTERNAL, FactRecord
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_glossary

GLOSSARY = demo_glossary()
REFERENCE = date(2026, 3, 15)
YEARS = {f"FY{y}": f"{1000 + y}.5" for y in range(2019, 2026)}
QUARTERS = {f"{y}Q{q}": f"{y - 2000}{q}.25" for y in (2024, 2025) for q in range(1, 5)}


def record(period: str, value: str, entity: str = "ACME_GROUP") -> FactRecord:
    parsed = Period("FY", period[2:]) if period.startswith("FY") else Period("QUARTER", period)
    return FactRecord(
        "REVENUE", entity, parsed, "TOTAL", Decimal(value), "CNY_M", "t.xlsx", f"sheet=t!{period}", sensitivity=INTERNAL
    )


STORE = InMemoryFactStore(
    [record(p, v) for p, v in {**YEARS, **QUARTERS}.items()] + [record("FY2025", "700.5", "ACME_HK")]
)


def ask(question: str):  # type: ignore[no-untyped-def]
    return answer_question(
        question, Ports(glossary=GLOSSARY, store=STORE, provider=MockProvider()), cleared=True, reference_date=REFERENCE
    )


@pytest.mark.parametrize(
    ("question", "period_type"),
    [
        ("集团历年营收", "FY"),
        ("集团每年的营收是多少", "FY"),
        ("集团各年度营收", "FY"),
        ("集团哪一年营收最高", "FY"),
        ("集团营收最低的是哪年", "FY"),
        ("集团每个季度的营收", "QUARTER"),
        ("集团哪个季度营收最高", "QUARTER"),
        ("Group revenue year by year", "FY"),
        ("Which year had the highest group revenue?", "FY"),
        ("quarterly revenue of the group", "QUARTER"),
    ],
)
def test_a_series_without_a_range_is_asked_back_with_ranges_that_answer(question: str, period_type: str) -> None:
    result = ask(question)
    assert result.answer_kind == "clarification" and not result.facts and not result.computed
    assert result.clarification.narrowing_options
    for option in result.clarification.narrowing_options:
        chosen = ask(option.question)
        assert chosen.answer_kind == "answer", (option.question, chosen.answer)
        listed = {f.period for f in chosen.facts}
        assert len(listed) >= 3 and {p.period_type for p in listed} == {period_type}
        assert {f.entity for f in chosen.facts} == {"ACME_GROUP"}


def test_the_quarter_of_a_year_ranked_is_ranked_among_that_years_quarters() -> None:
    result = ask("2025年集团哪个季度营收最低")
    assert result.ranking is not None
    assert [row.subject.period.label for row in result.ranking.rows] == ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]


def test_listing_entities_or_ranking_them_is_not_a_series() -> None:
    both = ask("集团和香港2025年的营收分别是多少")
    assert both.answer_kind == "answer" and {f.entity for f in both.facts} == {"ACME_GROUP", "ACME_HK"}
    ranked = ask("哪个地区2025年营收最高")
    assert ranked.clarification.mode != "ask_first"
