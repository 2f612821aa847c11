"""A period asked back offers only periods that lead somewhere: each option,
when chosen, is answered with a figure (stored, or derived by the derived-period rules where the
metric adds up), and no period that would answer `查不到` is offered."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.model.facts import RESTRICTED, FactRecord
from core.model.period import Period
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.computed import periods_answerable
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import REF, fact
from tests.fakes import InMemoryFactStore, demo_glossary

GLOSSARY = demo_glossary()
YEAR_2025 = ["FY2025", "2025H1", "2025H2", "2025Q1", "2025Q2", "2025Q3", "2025Q4"]


def ask(question: str, store: InMemoryFactStore, *, cleared: bool = True, scope: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return answer_question(
        question,
        Ports(glossary=GLOSSARY, store=store, provider=MockProvider()),
        cleared=cleared,
        reference_date=REF,
        scope=scope,
    )


def offered(question: str, store: InMemoryFactStore, *, cleared: bool = True) -> list[str]:
    result = ask(question, store, cleared=cleared)
    assert result.answer_kind == "clarification" and result.clarification.mode == "ask_first"
    assert result.facts == () and result.computed == ()
    return [o.label for o in result.clarification.narrowing_options]


def with_figure(result) -> bool:  # type: ignore[no-untyped-def]
    return result.answer_kind == "answer" and bool(result.facts or result.computed)


# Revenue (a flow, `sum`) has FY2025 and 2025H1 only; net profit (also `sum`) FY2025 only; gross
# margin (a ratio, `none`) FY2025 and 2025H1.
STORE_FACTS = [
    fact("REVENUE", "ACME_HK", "FY2025", "24015.8"),
    fact("REVENUE", "ACME_HK", "2025H1", "11809.4"),
    fact("NET_PROFIT", "ACME_HK", "FY2025", "1200.0"),
    fact("GROSS_MARGIN", "ACME_HK", "FY2025", "33.1", unit="PCT"),
    fact("GROSS_MARGIN", "ACME_HK", "2025H1", "32.0", unit="PCT"),
]


def test_a_flow_with_a_year_and_its_first_half_offers_the_second_half_derived() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    assert offered("香港2025年3月营收", store) == ["FY2025", "2025H1", "2025H2"]


def test_a_metric_with_only_the_year_offers_only_the_year() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    assert offered("香港2025年3月净利润", store) == ["FY2025"]


def test_a_ratios_second_half_is_not_derivable_and_not_offered() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    assert offered("香港2025年3月毛利率", store) == ["FY2025", "2025H1"]


def test_every_option_offered_is_answered_with_a_figure() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    for question in ("香港2025年3月营收", "香港2025年3月净利润", "香港2025年3月毛利率", "香港2025年Q5营收"):
        for option in ask(question, store).clarification.narrowing_options:
            assert with_figure(ask(option.question, store, scope=option.scope)), option


def test_a_restricted_figure_is_offered_only_to_the_cleared() -> None:
    secret = FactRecord(
        "NET_PROFIT",
        "ACME_HK",
        Period("HY", "2025H1"),
        "TOTAL",
        STORE_FACTS[2].value,
        "CNY_M",
        "t",
        "x",
        sensitivity=RESTRICTED,
    )
    store = InMemoryFactStore([*STORE_FACTS, secret])
    assert offered("香港2025年3月净利润", store, cleared=False) == ["FY2025"]
    assert offered("香港2025年3月净利润", store, cleared=True) == ["FY2025", "2025H1", "2025H2"]


def test_with_nothing_in_the_year_named_the_latest_complete_year_is_offered() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    result = ask("香港2030年3月营收", store)
    assert [o.label for o in result.clarification.narrowing_options] == ["FY2025", "2025H1", "2025H2"]
    assert "2030年没有查得到此问数据的期间" in result.answer


def test_with_nothing_at_all_nothing_is_offered_and_the_question_says_so() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    result = ask("东南亚2025年3月营收", store)
    assert result.clarification.narrowing_options == ()
    assert "2025年没有查得到此问数据的期间" in result.answer
    assert result.facts == () and not re.search(r"\d[\d,]*\.\d", result.answer)  # no figure of anything
    english = ask("What was Southeast Asia revenue in March 2025?", store)
    assert english.clarification.narrowing_options == () and "No period of 2025 has a figure" in english.answer


def test_an_operation_asked_offers_the_periods_it_can_be_computed_for() -> None:
    """A growth needs the period a year before too: only the year has both."""
    store = InMemoryFactStore([*STORE_FACTS, fact("REVENUE", "ACME_HK", "FY2024", "25730.1")])
    assert offered("香港2025年3月营收同比增长多少", store) == ["FY2025"]


def test_the_home_entity_is_assumed_as_the_chosen_option_will_assume_it() -> None:
    store = InMemoryFactStore(
        [fact("REVENUE", "ACME_GROUP", "2025Q1", "10"), fact("REVENUE", "ACME_HK", "FY2025", "5")]
    )
    assert offered("2025年3月营收", store) == ["2025Q1"]


def test_the_store_is_read_in_one_bulk_read_for_every_candidate() -> None:
    store = InMemoryFactStore(STORE_FACTS)
    intent = parse_intent("香港2025年3月营收", GLOSSARY, REF)
    periods = [Period("FY", "2025"), Period("HY", "2025H1"), Period("HY", "2025H2"), Period("QUARTER", "2025Q1")]
    kept = periods_answerable(intent, periods, glossary=GLOSSARY, store=store, cleared=True)
    assert [p.label for p in kept] == ["FY2025", "2025H1", "2025H2"]
    assert store.calls == 0 and store.bulk_calls == 1 and store.pending_calls == 0


# -- the property: offered exactly when answered with a figure --------------------------------------------------
METRICS = {
    "REVENUE": ("营收", "CNY_M"),
    "GROSS_MARGIN": ("毛利率", "PCT"),
    "ACTIVE_MEMBERS": ("活跃会员数", "TEN_THOUSAND_PERSONS"),
}
PERIODS_2025 = st.sets(st.sampled_from(YEAR_2025))
VALUES = st.decimals(min_value=-1000, max_value=100000, places=1, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    metric=st.sampled_from([*METRICS, "NET_MARGIN"]),
    held=st.fixed_dictionaries(
        {code: PERIODS_2025 for code in ("REVENUE", "NET_PROFIT", "GROSS_MARGIN", "ACTIVE_MEMBERS")}
    ),
    values=st.lists(VALUES, min_size=28, max_size=28),
    unread=st.sampled_from(["3月", "Q5", "1-8月"]),
)
def test_a_period_is_offered_exactly_when_choosing_it_answers_with_a_figure(
    metric: str, held: dict[str, set[str]], values: list, unread: str
) -> None:
    units = {"REVENUE": "CNY_M", "NET_PROFIT": "CNY_M", "GROSS_MARGIN": "PCT", "ACTIVE_MEMBERS": "TEN_THOUSAND_PERSONS"}
    facts = [
        fact(code, "ACME_HK", label, str(values[i * 7 + YEAR_2025.index(label)]), unit=units[code])
        for i, code in enumerate(sorted(held))
        for label in held[code]
    ]
    store = InMemoryFactStore(facts)
    name = METRICS[metric][0] if metric in METRICS else "净利率"
    labels = offered(f"香港2025年{unread}{name}", store)
    assert labels == [label for label in YEAR_2025 if label in labels]  # in the usual order
    for label in YEAR_2025:
        chosen = ask(f"香港{label}{name}", store, scope={"period": label})
        assert with_figure(chosen) == (label in labels), (label, chosen.answer)
        if label not in labels:
            assert "查不到" in chosen.answer or "无法计算" in chosen.answer
