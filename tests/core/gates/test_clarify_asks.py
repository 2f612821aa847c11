"""The clarifier asks back, never answers a different question: an unknown term is
named, a name where the entity goes is never the home entity, a stretch of time no period type
holds is never the full year, and a count out of range (保留100位小数, 前0名) never reaches the
engine."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.display import MAX_DECIMALS
from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.glossary import GlossarySnapshot
from core.model.clarification import ClarificationResult
from core.model.operation import OPERATION_KINDS, Operation
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

REF = date(2026, 3, 15)
GLOSSARY = demo_glossary()
GROUP_REVENUE_2025 = "128,450.6"


def clarify(question: str, glossary: GlossarySnapshot = GLOSSARY) -> ClarificationResult:
    intent = parse_intent(question, glossary, REF)
    verdict = security_screen(raw_question=question, glossary=glossary, language=intent.language)
    return clarify_scope(intent, glossary=glossary, reference_date=REF, verdict=verdict)


def ask(question: str, **kwargs):
    store = InMemoryFactStore(demo_facts())
    result = answer_question(
        question,
        Ports(glossary=GLOSSARY, store=store, provider=MockProvider()),
        cleared=True,
        reference_date=REF,
        **kwargs,
    )
    return result


# -- an unknown term is named (redteam A, I) ------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "term", "first"),
    [
        ("集团2025年归母净利润是多少", "归母净利润", "NET_PROFIT"),
        ("集团2025年资本开支回报率是多少", "资本开支回报率", "CAPEX"),
        ("集团2025年ROA是多少", "ROA", "ROE"),
        ("香港2025年GMV", "GMV", None),
    ],
)
def test_the_chinese_ask_back_names_the_unknown_term(question: str, term: str, first: str | None) -> None:
    result = clarify(question)
    assert result.mode == "ask_first" and result.question is not None
    assert result.question.startswith(f"未找到指标“{term}”")
    if first:
        assert result.narrowing_options[0].scope == {"metric": first}


def test_the_english_ask_back_names_the_unknown_term() -> None:
    result = clarify("What was ACME Group EBITDA margin in 2025?")
    assert result.mode == "ask_first" and "'EBITDA margin' is not defined" in (result.question or "")


@pytest.mark.parametrize("question", ["集团2025年归母净利润是多少", "集团2025年ROA是多少", "香港2025年GMV"])
def test_an_unknown_term_gets_no_figure(question: str) -> None:
    result = ask(question)
    assert result.answer_kind == "clarification" and result.facts == () and result.computed == ()


def test_a_question_with_no_metric_names_its_unknown_chinese_words() -> None:
    result = clarify("2025年利润是多少")
    assert result.mode == "ask_first" and "“利润”" in (result.question or "")


# -- a name where the entity goes (redteam J) ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "name"),
    [("腾讯2025年营收", "腾讯"), ("Tencent revenue in 2025", "Tencent"), ("中国平安2025年营收", "中国平安")],
)
def test_an_unknown_name_is_asked_about_never_answered_as_the_home_entity(question: str, name: str) -> None:
    result = ask(question)
    assert result.answer_kind == "clarification" and result.facts == ()
    assert name in result.answer and GROUP_REVENUE_2025 not in result.answer
    scopes = [o.scope for o in result.clarification.narrowing_options]
    assert {"entity": "ACME_HK", "metric": "REVENUE"} in scopes
    assert not any(GLOSSARY.is_external(s["entity"]) for s in scopes)


def test_choosing_an_entity_for_an_unknown_name_answers_it() -> None:
    result = ask("腾讯2025年营收", scope={"entity": "ACME_HK", "metric": "REVENUE"})
    assert result.answer_kind == "answer" and [f.entity for f in result.facts] == ["ACME_HK"]


# -- a stretch of time no period type holds (redteam D) ----------------------------------------------------
UNREAD_PERIODS = [
    ("集团2025年前三季度营收同比增长多少", "前三季度"),  # a growth of a derived stretch is asked back
    ("集团2025年1-8月营收", "1-8月"),
    ("集团2025年Q5营收", "Q5"),
    ("集团2025年第五季度营收", "第五季度"),
    ("集团2025年13月营收", "13月"),
    ("集团2025年3月营收", "3月"),
]


@pytest.mark.parametrize(("question", "words"), UNREAD_PERIODS)
def test_a_period_no_type_holds_is_asked_back_with_the_periods_there_are(question: str, words: str) -> None:
    result = clarify(question)
    assert result.mode == "ask_first" and result.question is not None
    assert words in result.question
    assert all(kind in result.question for kind in ("FY", "H1", "H2", "Q1", "Q4"))
    labels = [o.label for o in result.narrowing_options]
    assert labels == ["FY2025", "2025H1", "2025H2", "2025Q1", "2025Q2", "2025Q3", "2025Q4"]
    for option in result.narrowing_options:
        assert words not in option.question and option.scope == {"period": option.label}
        assert [p.label for p in parse_intent(option.question, GLOSSARY, REF).periods] == [option.label]


@pytest.mark.parametrize(("question", "words"), UNREAD_PERIODS)
def test_a_period_no_type_holds_is_never_answered_for_the_year(question: str, words: str) -> None:
    result = ask(question)
    assert result.answer_kind == "clarification" and result.facts == ()
    assert GROUP_REVENUE_2025 not in result.answer


def test_without_a_year_the_options_are_the_latest_complete_year() -> None:
    result = clarify("集团1-8月营收是多少")
    assert [o.label for o in result.narrowing_options][:2] == ["FY2025", "2025H1"]


def test_the_english_period_ask_back() -> None:
    result = clarify("What was ACME Group revenue in Q5 2025?")
    assert result.mode == "ask_first" and "Q5 2025" in (result.question or "")


def test_choosing_an_offered_period_answers_it() -> None:
    option = clarify("集团2025年1-8月营收").narrowing_options[-1]
    result = ask(option.question, scope=option.scope)
    assert result.answer_kind == "answer" and [f.period.label for f in result.facts] == ["2025Q4"]


# -- counts out of range (redteam L, M) -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "集团2025年营收同比增长多少，保留100位小数",
        "集团2025年营收同比增长多少，保留1000000000位小数",
        "集团2025年营业利润率是多少，保留100位小数",
        "ACME Group revenue growth in 2025 to 100 decimal places",
    ],
)
def test_decimal_places_out_of_range_are_refused_with_the_range(question: str) -> None:
    """An operation's rounding is refused by the engine, a level's by the clarifier: either way
    the range is stated and no figure is shown with another rounding."""
    result = ask(question)
    assert result.answer_kind in ("refusal", "clarification") and result.facts == () and result.computed == ()
    assert f"0 到 {MAX_DECIMALS}" in result.answer or f"0 and {MAX_DECIMALS}" in result.answer


@pytest.mark.parametrize("question", ["2025年营收前0名", "Top 0 regions by revenue in 2025", "2025年营收排名第0的地区"])
def test_a_ranking_of_none_is_refused_not_raised(question: str) -> None:
    result = ask(question)
    assert result.answer_kind == "clarification" and result.facts == ()
    assert "1" in result.answer


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([*OPERATION_KINDS, "median"]),
    st.sampled_from(["yoy", "qoq", "mom"]),
    st.sampled_from(["asc", "desc", "up"]),
    st.one_of(st.none(), st.integers(-3, 5)),
    st.one_of(st.none(), st.integers(-3, 5)),
    st.one_of(st.none(), st.integers(-3, MAX_DECIMALS + 3)),
    st.sampled_from([None, "entities", "channels", "metrics"]),
)
def test_no_operation_out_of_range_passes_the_clarifier(
    kind: str, comparison: str, order: str, top, position, decimals, over
) -> None:
    """Every field is in range once past the clarifier, but an operation's rounding, which the
    engine refuses with the range (`test_decimals_out_of_range_are_refused_with_a_reason`)."""
    operation = Operation(kind, "cue", comparison, order, top, decimals, over, position)
    intent = replace(parse_intent("集团2025年营收", GLOSSARY, REF), operation=operation, decimals=decimals)
    verdict = security_screen(raw_question=intent.raw_question, glossary=GLOSSARY, language="zh")
    result = clarify_scope(intent, glossary=GLOSSARY, reference_date=REF, verdict=verdict)
    valid = (
        kind in OPERATION_KINDS
        and comparison in ("yoy", "qoq")
        and order in ("asc", "desc")
        and (top is None or top >= 1)
        and (position is None or position >= 1)
        and over in (None, "entities", "channels")
    )
    assert (result.mode == "ask_first") == (not valid)


@pytest.mark.parametrize("decimals", [-1, MAX_DECIMALS + 1, 10**18])
def test_a_levels_rounding_out_of_range_is_asked_back(decimals: int) -> None:
    intent = replace(parse_intent("集团2025年营业利润率", GLOSSARY, REF), decimals=decimals)
    verdict = security_screen(raw_question=intent.raw_question, glossary=GLOSSARY, language="zh")
    result = clarify_scope(intent, glossary=GLOSSARY, reference_date=REF, verdict=verdict)
    assert result.mode == "ask_first" and f"0 到 {MAX_DECIMALS}" in (result.question or "")
