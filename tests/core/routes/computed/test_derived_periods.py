"""Questions about a part of a year, asked in the words analysts use, answered through
`answer_question` on the demo (reference date 2026-03-15): a part of its own whole (`占全年的比重`),
a derived half inside a comparison (`下半年比上半年`), a sum of listed quarters (`第三和第四季度`),
a balance at a period's end (`2025年末`). Never a different question: what cannot be computed is
refused or asked back with the reason (SPEC §5, §5a, §6a)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from core.engine import Change, computed_reevaluate
from core.model.facts import SubTask
from core.model.period import Period
from core.model.registry import KIND_ANSWER
from core.model.result import AgentResult
from core.routes.computed.answer import assemble
from core.routes.computed.change import derived_pair
from core.routes.computed.subjects import Context, Reader
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import GLOSSARY, ask, demo_store
from tests.fakes import demo_facts

D = Decimal


def values(result: AgentResult) -> list[tuple[str, str, str]]:
    return [(c.kind, c.value_text, c.display) for c in result.computed]


def lineage_holds(result: AgentResult) -> None:
    """Every computed value comes back from its formula and inputs, each a stored fact listed."""
    stored = set(demo_facts())
    for item in result.computed:
        assert computed_reevaluate(item) == item.value, item.formula
        assert set(item.inputs) <= set(result.facts) <= stored


@pytest.mark.parametrize(
    ("question", "share", "periods"),
    [
        ("集团2025年第四季度营收占全年的比重", "27.35%", {"2025Q4", "FY2025"}),
        ("集團2025年上半年營收佔全年嘅比例", "47.65%", {"2025H1", "FY2025"}),
        ("集团2025年第一季度营收占全年度的比例是多少", "23.26%", {"2025Q1", "FY2025"}),
        ("What share of full-year 2025 revenue did the group make in Q4 2025?", "27.35%", {"2025Q4", "FY2025"}),
    ],
)
def test_a_part_within_its_own_whole_year(question: str, share: str, periods: set[str]) -> None:
    result = ask(question)
    assert result.answer_kind == KIND_ANSWER, result.answer
    assert [(c.kind, c.display) for c in result.computed] == [("share", share)]
    assert {f.period.label for f in result.facts} == periods
    lineage_holds(result)


def test_a_yearless_whole_year_is_the_latest_complete_one_and_says_so() -> None:
    result = ask("集团第四季度营收占全年的比重")
    assert [c.display for c in result.computed] == ["27.35%"]
    assert "【假设】" in result.answer and "“全年”" in result.answer and "FY2025" in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "集团下半年营收比上半年增长多少",
        "集团2025年下半年营收比上半年高多少",
        "How much did the group's H2 2025 revenue grow over H1?",
    ],
)
def test_the_second_half_against_the_first_is_derived(question: str) -> None:
    """H2 is not stored: FY − H1 (= Q3 + Q4) = 67,245.8 against 61,204.8, +6,041.0, +9.87%."""
    result = ask(question)
    assert result.answer_kind == KIND_ANSWER, result.answer
    derived, rate, change = result.computed
    assert (derived.kind, derived.value, derived.subject) == (
        "derived",
        D("67245.8"),
        SubTask("REVENUE", "ACME_GROUP", Period("HY", "2025H2")),
    )
    assert (rate.display, change.value) == ("9.87%", D("6041.0"))
    assert change.formula == "(REVENUE[FY2025] - REVENUE[2025H1]) - REVENUE[2025H1]"
    assert "67,245.8" in result.answer and "6,041.0" in result.answer
    assert {f.period.label for f in result.facts} == {"FY2025", "2025H1"}
    lineage_holds(result)


@pytest.mark.parametrize(
    ("question", "kind", "display"),
    [
        ("集团2025年下半年营收是上半年的多少倍", "ratio", "109.87%"),
        ("集团2025年下半年营收与上半年之比", "ratio", "109.87%"),
        ("What was the ratio of the group's H2 2025 revenue to H1?", "ratio", "109.87%"),
        ("集团2025年下半年营收占全年的比重", "share", "52.35%"),
    ],
)
def test_a_ratio_or_share_of_a_derived_half(question: str, kind: str, display: str) -> None:
    result = ask(question)
    assert result.answer_kind == KIND_ANSWER, result.answer
    assert [(c.kind, c.display) for c in result.computed] == [("derived", "67,245.8"), (kind, display)]
    lineage_holds(result)


def test_a_stored_second_half_wins_over_its_derivation() -> None:
    h1 = next(
        f for f in demo_facts() if f.period.label == "2025H1" and f.metric == "REVENUE" and f.entity == "ACME_GROUP"
    )
    stored = demo_store(replace(h1, period=Period("HY", "2025H2"), value=D("67000")))
    result = ask("集团2025年下半年营收比上半年增长多少", store=stored)
    assert [c.kind for c in result.computed] == ["difference", "difference"]
    assert result.computed[1].value == D("5795.2")


@pytest.mark.parametrize(
    "question",
    [
        "集团2025年第三和第四季度营收合计",
        "集团2025年三、四季度营收合计",
        "集团2025年Q3和Q4营收合计",
        "集团2025年第三季度和第四季度营收合计",
    ],
)
def test_quarters_listed_with_their_word_said_once_add_up(question: str) -> None:
    result = ask(question)
    assert values(result) == [("sum", "67245.8", "67,245.8")]
    assert [f.period.label for f in result.facts] == ["2025Q3", "2025Q4"]


def test_the_first_three_quarters_in_english_add_up_like_qian_san_ji_du() -> None:
    result = ask("What was the group's revenue for the first three quarters of 2025?")
    assert values(result) == [("sum", "93323.3", "93,323.3")]
    assert "FY2025" not in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "集团2025年年末活跃会员数",
        "集团2025年末活跃会员数",
        "集团2025年底的活跃会员数是多少",
        "集团2025年期末活跃会员数",
        "What were the group's active members at the end of 2025?",
    ],
)
def test_a_balance_at_the_year_end_is_the_year_s_figure(question: str) -> None:
    result = ask(question, provider=MockProvider())
    assert result.answer_kind == KIND_ANSWER, result.answer
    assert [(f.metric, f.period.label, f.value) for f in result.facts] == [("ACTIVE_MEMBERS", "FY2025", D("5832"))]


def test_the_start_of_a_year_is_asked_back_never_answered_for_the_year() -> None:
    result = ask("集团2025年初活跃会员数", provider=MockProvider())
    assert result.answer_kind == "clarification" and result.facts == ()
    assert "2025年初" in result.answer


def test_a_listed_pair_with_a_derived_half_has_its_difference() -> None:
    """What the level answer of `H2 vs H1` adds as its comparison (`derived_pair`)."""
    context = Context(GLOSSARY, Reader(demo_store(), False), "zh", None)
    h1, h2 = (SubTask("REVENUE", "ACME_GROUP", Period("HY", f"2025H{n}")) for n in (1, 2))
    item = derived_pair(context, [h2, h1])
    assert item is not None and isinstance(item.outcome, Change)
    change = item.outcome
    assert change.change.value == D("6041.0") and change.rate is not None and change.rate.display == "9.87%"
    assert change.change.formula == "(REVENUE[FY2025] - REVENUE[2025H1]) - REVENUE[2025H1]"
    text = assemble([item], GLOSSARY, "zh").text
    assert text.startswith("ACME集团 2025H2 营业收入较 2025H1 增长 9.87%，增加 6,041.0 百万元。"), text
    fy = SubTask("REVENUE", "ACME_GROUP", Period("FY", "2025"))
    assert derived_pair(context, [fy, replace(fy, period=Period("FY", "2024"))]) is None  # two stored facts
    assert derived_pair(context, [h2, fy]) is None  # not one period type
