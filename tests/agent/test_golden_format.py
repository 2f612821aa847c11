"""The golden-set keys (`computed`, `answer_kind_any`, `order`, `before`), checked
against hand-written answers: each one passes a right answer and fails a wrong one."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from agent.golden import case_problems, expectations_check, figures_shown


def result(answer: str, kind: str = "answer") -> dict[str, Any]:
    return {
        "answer": answer,
        "answer_kind": kind,
        "route": "structured",
        "clarification": {"mode": "none"},
        "facts": [],
        "sources": [],
    }


def verdict(expect: dict[str, Any], answer: str, kind: str = "answer"):
    return expectations_check({"id": "calc-x", "question": "q", "expect": expect}, result(answer, kind))


GROWTH = "ACME集团 FY2025 营业收入同比增长：8.54%（128,450.6 − 118,340.2）÷ 118,340.2"


# -- computed -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("computed", "answer"),
    [
        ({"value": "8.54", "pct": True}, GROWTH),
        ({"value": "8.54", "pct": True}, "增长 +8.54 %"),
        ({"value": "8.5432", "pct": True}, "增长8.54%"),  # within 0.01
        ({"value": "-16.87", "pct": True}, "净利率：-16.87%"),
        ({"value": "-16.87", "pct": True}, "净利率：−16.87%"),  # U+2212
        ({"value": "-16.87", "pct": True}, "净利率：－１６．８７％"),  # full-width
        ({"value": "32330.30", "pct": False}, "合计：32,330.3 百万元"),
        ({"value": "32330.30", "pct": False}, "合计：３２，３３０．３百万元"),  # full-width grouping
        ({"value": "1402.6", "pct": False}, "the total was 1,402.6, and"),
        ({"value": "-2.2", "pct": False}, "毛利率同比-2.2个百分点"),
    ],
)
def test_computed_passes_when_the_answer_shows_the_figure(computed: dict[str, Any], answer: str) -> None:
    checked = verdict({"computed": computed}, answer)
    assert checked.failures == [] and checked.gates["numeric_accuracy"] is True


@pytest.mark.parametrize(
    ("computed", "answer"),
    [
        ({"value": "8.54", "pct": True}, "ACME集团 FY2025 营业收入：128,450.6 百万元"),  # the level instead
        ({"value": "8.54", "pct": True}, "增长8.5%"),  # rounded beyond 0.01
        ({"value": "8.54", "pct": True}, "增长8.54 百万元"),  # not shown as a percentage
        ({"value": "32330.30", "pct": False}, "合计占比32,330.3%"),  # a percentage where none is asked
        ({"value": "-16.87", "pct": True}, "净利率：16.87%"),  # the sign lost
        ({"value": "-6", "pct": False}, "1-6月"),  # a hyphen is no minus
        ({"value": "450.6", "pct": False}, "128,450.6"),  # part of a larger figure
        ({"value": "1402.6", "pct": False}, "净利润1，402.6"),  # `，` is the Chinese comma, no separator
    ],
)
def test_computed_fails_when_the_answer_does_not_show_the_figure(computed: dict[str, Any], answer: str) -> None:
    checked = verdict({"computed": computed}, answer)
    assert checked.failures and checked.gates["numeric_accuracy"] is False


def test_figures_are_read_with_separators_signs_and_percent_signs() -> None:
    assert figures_shown("营收128,450.6，增长+8.54%，净利润-1,402.6；1-6月") == [
        (Decimal("128450.6"), False),
        (Decimal("8.54"), True),
        (Decimal("-1402.6"), False),
        (Decimal("1"), False),
        (Decimal("6"), False),
    ]


# -- answer_kind_any ------------------------------------------------------------------------------
def test_answer_kind_any_accepts_any_listed_kind() -> None:
    assert verdict({"answer_kind_any": ["refusal", "clarification"]}, "…", "clarification").failures == []
    refused = verdict({"answer_kind_any": ["refusal", "clarification"]}, "128,450.6", "answer")
    assert refused.failures and refused.gates["refusal_appropriateness"] is False
    assert "refusal_appropriateness" not in verdict({"answer_kind_any": ["answer", "degraded"]}, "x").gates
    assert verdict({"answer_kind_any": ["answer", "degraded"]}, "x", "refusal").failures


# -- order ----------------------------------------------------------------------------------------
RANKING = "1. ACME中国内地 96,120.3\n2. ACME香港 24,015.8\n3. ACME东南亚 8,314.5"


def test_order_passes_when_the_substrings_appear_in_that_order() -> None:
    assert verdict({"order": ["中国内地", "香港", "东南亚"]}, RANKING).failures == []


@pytest.mark.parametrize(
    "order",
    [["香港", "中国内地", "东南亚"], ["中国内地", "东南亚", "香港"], ["中国内地", "台湾"], ["96,120.3", "96,120.3"]],
)
def test_order_fails_when_a_substring_is_missing_or_out_of_order(order: list[str]) -> None:
    checked = verdict({"order": order}, RANKING)
    assert checked.failures and checked.gates["pass_rate"] is False


# -- before and the case's shape ------------------------------------------------------------------
def test_before_is_the_runners_and_not_an_expectation() -> None:
    case = {"id": "conv-x", "question": "那香港呢？", "before": ["集团2025年营收是多少"], "expect": {}}
    assert expectations_check(case, result("x")).failures == [] and case_problems(case) == []


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        ({"id": "a", "question": "q", "before": "集团2025年营收是多少"}, "'before' must be a list of questions"),
        ({"id": "a", "question": "q", "before": [""]}, "'before' must be a list of questions"),
        ({"id": "a", "question": "q", "expect": {"computed": {"value": 8.54}}}, "'expect.computed' must be"),
        ({"id": "a", "question": "q", "expect": {"computed": "8.54%"}}, "'expect.computed' must be"),
        ({"id": "a", "question": "q", "expect": {"order": "中国内地"}}, "'expect.order' must be a list"),
        ({"id": "a", "question": "q", "expect": {"answer_kind_any": "answer"}}, "'expect.answer_kind_any' must"),
        ({"question": "q"}, "'id' is required"),
        ([], "a case must be a JSON object"),
    ],
)
def test_a_malformed_case_is_reported(case: Any, problem: str) -> None:
    assert any(p.startswith(problem) for p in case_problems(case))
