"""A period named without a year is answered for the latest complete such period and says so: the
`answer_with_assumptions` banner names the period assumed and offers the other choices, each a
question that names its year (SPEC §4 step 2.4, §5a), in a follow-up too."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.gates.clarify import clarify_scope
from core.gates.security import security_screen
from core.language.periods import period_end
from core.model.intent import ParsedIntent
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

REF = date(2026, 3, 15)
GLOSSARY = demo_glossary()
STORE = InMemoryFactStore(demo_facts())


def clarify(question: str, reference: date = REF, scope_period: str | None = None):  # type: ignore[no-untyped-def]
    intent = parse_intent(question, GLOSSARY, reference)
    verdict = security_screen(raw_question=question, glossary=GLOSSARY, language=intent.language)
    return clarify_scope(intent, glossary=GLOSSARY, reference_date=reference, verdict=verdict)


def ask(question: str, previous: ParsedIntent | None = None, scope: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return answer_question(
        question,
        Ports(glossary=GLOSSARY, store=STORE, provider=MockProvider()),
        cleared=False,
        reference_date=REF,
        previous=previous,
        scope=scope,
    )


def found(result) -> dict[str, Decimal]:  # type: ignore[no-untyped-def]
    return {f"{f.entity}/{f.period.label}": f.value for f in result.facts}


@pytest.mark.parametrize(
    ("question", "assumed", "options"),
    [
        ("集团第四季度营收是多少", "2025Q4", ["2024Q4"]),
        ("集团第一季度营收是多少", "2025Q1", ["2024Q1", "2025Q4"]),
        ("集团Q3营收是多少", "2025Q3", ["2024Q3", "2025Q4"]),
        ("集团上半年营收", "2025H1", ["2024H1", "2025H2"]),
        ("集团下半年营收", "2025H2", ["2024H2"]),
        ("集團第四季營收係幾多", "2025Q4", ["2024Q4"]),
    ],
)
def test_the_banner_names_the_period_assumed_and_offers_the_others(
    question: str, assumed: str, options: list[str]
) -> None:
    result = clarify(question)
    assert result.mode == "answer_with_assumptions"
    assert result.assumed_entity is None and result.assumed_period is not None
    assert result.assumed_period.label == assumed
    note = result.assumption_note or ""
    assert note.startswith("【假设】") and "未指定年份" in note and assumed in note and "（如需收窄：" in note
    assert [o.label for o in result.narrowing_options] == options
    assert all(o.label in note for o in result.narrowing_options)


def test_each_option_is_the_question_with_its_year_written() -> None:
    result = clarify("集团第一季度营收是多少")
    assert [(o.question, o.scope) for o in result.narrowing_options] == [
        ("集团2024Q1营收是多少", {}),
        ("集团2025Q4营收是多少", {}),
    ]


def test_the_banner_is_in_english_for_an_english_question() -> None:
    result = clarify("What was the group's revenue in Q3?")
    assert result.mode == "answer_with_assumptions"
    note = result.assumption_note or ""
    assert note.startswith("[Assumption]") and "no year given" in note and "'Q3'" in note and "2025Q3" in note
    assert "(To narrow:" in note and "未指定" not in note
    labels = [o.label for o in result.narrowing_options]
    assert "2024Q3" in labels and "2025Q4" in labels
    assert "What was the group's revenue in 2024Q3?" in [o.question for o in result.narrowing_options]


def test_the_first_three_quarters_are_assumed_as_one_stretch() -> None:
    result = clarify("集团前三季度营收是多少")
    assert result.mode == "answer_with_assumptions"
    note = result.assumption_note or ""
    assert "“前三季度”" in note and "2025Q1" in note and "2025Q3" in note
    options = [(o.label, o.question) for o in result.narrowing_options]
    assert options == [("2024年前三季度", "集团2024年前三季度营收是多少")]


def test_an_assumed_entity_and_an_assumed_year_share_one_banner() -> None:
    result = clarify("第四季度营收是多少")
    assert result.assumed_entity == "ACME_GROUP" and result.assumed_period is not None
    note = result.assumption_note or ""
    assert note.count("【假设】") == 1 and "未指定实体" in note and "未指定年份" in note
    scopes = [o.scope for o in result.narrowing_options]
    assert {"entity": "ACME_HK"} in scopes and "2024Q4" in [o.label for o in result.narrowing_options]


@pytest.mark.parametrize(
    "question",
    ["集团2025年第四季度营收是多少", "集团2025年第三季度和第四季度营收", "集团去年上半年营收", "集团上季度营收是多少"],
)
def test_a_year_named_or_implied_by_a_relative_word_is_no_assumption(question: str) -> None:
    assert clarify(question).mode == "none"


# -- through the pipeline, on the demo facts -----------------------------------------------------
@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("集团第四季度营收是多少", {"ACME_GROUP/2025Q4": Decimal("35127.3")}),
        ("集团Q3营收是多少", {"ACME_GROUP/2025Q3": Decimal("32118.5")}),
        ("集团上半年营收", {"ACME_GROUP/2025H1": Decimal("61204.8")}),
        ("What was the group's H1 revenue?", {"ACME_GROUP/2025H1": Decimal("61204.8")}),
    ],
)
def test_a_period_without_a_year_answers_the_latest_complete_one(question: str, expected: dict) -> None:
    result = ask(question)
    assert result.answer_kind == "answer" and found(result) == expected
    assert result.clarification.mode == "answer_with_assumptions"
    assert result.answer.startswith(("【假设】", "[Assumption]"))


def test_the_first_three_quarters_sum_the_latest_complete_ones() -> None:
    result = ask("集团前三季度营收是多少")
    assert result.answer_kind == "answer" and [c.value for c in result.computed] == [Decimal("93323.3")]
    assert set(found(result)) == {"ACME_GROUP/2025Q1", "ACME_GROUP/2025Q2", "ACME_GROUP/2025Q3"}
    assert result.answer.startswith("【假设】")


def test_the_second_half_is_derived_for_the_latest_complete_year() -> None:
    result = ask("集团下半年营收是多少")  # FY − H1 and Q3 + Q4 agree: both are shown
    assert result.answer_kind == "answer" and {c.value for c in result.computed} == {Decimal("67245.8")}
    assert "2025H2" in result.answer and "2026" not in result.answer


def test_a_chosen_option_answers_without_the_banner_again() -> None:
    chosen = clarify("集团第一季度营收是多少").narrowing_options[1]
    result = ask(chosen.question, scope=chosen.scope)
    assert result.clarification.mode == "none" and found(result) == {"ACME_GROUP/2025Q4": Decimal("35127.3")}
    narrowed = ask("集团第一季度营收是多少", scope={"period": "2024Q1"})
    assert narrowed.clarification.mode == "none" and narrowed.intent.period is not None
    assert narrowed.intent.period.label == "2024Q1"


def test_a_follow_up_without_a_year_is_the_latest_complete_period_and_says_so() -> None:
    first = ask("集团2025年营收是多少")
    second = ask("第四季度呢", previous=first.intent)
    assert found(second) == {"ACME_GROUP/2025Q4": Decimal("35127.3")}
    assert second.clarification.mode == "answer_with_assumptions"
    assert "【沿用上一问】" in second.answer and "【假设】" in second.answer and "2025Q4" in second.answer
    assert [o.question for o in second.clarification.narrowing_options] == ["2024Q4呢"]
    third = ask("环比增长多少", previous=second.intent)
    assert third.answer_kind == "answer" and third.computed
    assert set(found(third)) == {"ACME_GROUP/2025Q3", "ACME_GROUP/2025Q4"}
    # the option, asked as a follow-up, keeps the previous question's metric and entity
    option = ask(second.clarification.narrowing_options[0].question, previous=second.intent)
    assert option.intent.metric == "REVENUE" and option.intent.entity == "ACME_GROUP"
    assert option.intent.period is not None and option.intent.period.label == "2024Q4"


# -- the property, through the parser and the gate ------------------------------------------------
_WORDS = [
    *("第一季度", "第二季度", "第三季度", "第四季度", "四季度", "上半年", "下半年", "前三季度", "1-6月"),
    *("第四季", "上半年度", "前三季", "q1", "Q2", "Q3", "q4", "H1", "h2", "first half", "second half"),
    *("third quarter", "4th quarter", "the first nine months", "一到四季度"),
]
_FILLER = ["集团", "集團", "香港", "营收", "營收", "毛利率", "revenue", "和", "and", "、", "？", "呢", " ", "嘅"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(_WORDS + _FILLER), min_size=1, max_size=6).map("".join),
    st.dates(min_value=date(1995, 1, 1), max_value=date(2099, 12, 31)),
)
def test_no_parsed_question_without_a_year_asks_for_a_period_not_yet_over(question: str, reference: date) -> None:
    intent = parse_intent(question, GLOSSARY, reference)
    result = clarify_scope(
        intent,
        glossary=GLOSSARY,
        reference_date=reference,
        verdict=security_screen(raw_question=question, glossary=GLOSSARY, language=intent.language),
    )
    periods = [*intent.periods, *(p for part in intent.parts for p in part.periods)]
    periods += [p for p in (intent.period, result.assumed_period) if p is not None]
    assert all(period_end(p) < reference for p in periods), (question, reference, periods)
