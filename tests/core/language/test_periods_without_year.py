"""A period named without a year (`第四季度`, `上半年`, `前三季度`, `H1`, `Q3`) is the latest
complete such period at the reference date, never one that ends on or after it (SPEC §5a)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.language.normalize import text_normalize
from core.language.periods import period_end, periods_assumed, periods_cumulative, periods_find
from core.model.period import Period

REF = date(2026, 3, 15)


def labels(text: str, reference: date = REF) -> list[str]:
    return [p.label for _, _, p in periods_find(text_normalize(text), reference)]


def cumulative(text: str, reference: date = REF) -> list[list[str]]:
    return [[p.label for p in quarters] for _, _, quarters in periods_cumulative(text_normalize(text), reference)]


def assumed(text: str, reference: date = REF) -> list[tuple[str, list[str]]]:
    normalized = text_normalize(text)
    return [(normalized[s:e], [p.label for p in found]) for s, e, found in periods_assumed(normalized, reference)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("集团第四季度营收是多少", ["2025Q4"]),
        ("四季度", ["2025Q4"]),
        ("Q4", ["2025Q4"]),
        ("fourth quarter revenue", ["2025Q4"]),
        ("第三季度", ["2025Q3"]),
        ("Q3", ["2025Q3"]),
        ("third quarter", ["2025Q3"]),
        # 2026Q1 ends on 03-31: not complete on 03-15
        ("第一季度", ["2025Q1"]),
        ("Q1", ["2025Q1"]),
        ("上半年", ["2025H1"]),
        ("H1", ["2025H1"]),
        ("first half", ["2025H1"]),
        ("下半年", ["2025H2"]),
        ("H2", ["2025H2"]),
        ("the second half", ["2025H2"]),
        ("1-6月", ["2025H1"]),
        ("前两季度", ["2025H1"]),
        ("Q1到Q4", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("一到三季度", ["2025Q1", "2025Q2", "2025Q3"]),
        # Traditional and Cantonese wording
        ("集團第四季營收係幾多", ["2025Q4"]),
        ("集團上半年嘅收入", ["2025H1"]),
    ],
)
def test_a_period_without_a_year_is_the_latest_complete_one(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize(
    ("text", "reference", "expected"),
    [
        ("第一季度", date(2026, 3, 31), ["2025Q1"]),  # its last day: not over yet
        ("第一季度", date(2026, 4, 1), ["2026Q1"]),
        ("上半年", date(2026, 6, 30), ["2025H1"]),
        ("上半年", date(2026, 7, 1), ["2026H1"]),
        ("第四季度", date(2026, 12, 31), ["2025Q4"]),
        ("第四季度", date(2027, 1, 1), ["2026Q4"]),
        ("Q3", date(2026, 11, 15), ["2026Q3"]),
    ],
)
def test_the_latest_complete_period_moves_with_the_reference_date(
    text: str, reference: date, expected: list[str]
) -> None:
    assert labels(text, reference) == expected


@pytest.mark.parametrize(
    ("text", "reference", "expected"),
    [
        # periods named together without a year share one: the latest in which all are complete
        ("第三季度和第四季度", date(2026, 11, 15), ["2025Q3", "2025Q4"]),
        ("上半年和下半年", date(2026, 8, 15), ["2025H1", "2025H2"]),
        ("下半年比上半年", date(2026, 8, 15), ["2025H2", "2025H1"]),
        ("Q1 and Q2", date(2026, 8, 15), ["2026Q1", "2026Q2"]),
    ],
)
def test_periods_named_together_without_a_year_share_one(text: str, reference: date, expected: list[str]) -> None:
    assert labels(text, reference) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a year named in the sentence or the list still carries over
        ("2025年第三季度和第四季度", ["2025Q3", "2025Q4"]),
        ("2023年第三季度和第四季度", ["2023Q3", "2023Q4"]),
        ("Q3 and Q4 2023", ["2023Q3", "2023Q4"]),
        ("2024年第四季度营收较第三季度增长多少", ["2024Q4", "2024Q3"]),
        ("去年上半年和下半年", ["2025H1", "2025H2"]),
        # and from a stretch of quarters named with its year
        ("2023年前三季度和第四季度", ["2023Q4"]),
        # a year said outright is the year asked, complete or not
        ("今年上半年", ["2026H1"]),
        ("本季度", ["2026Q1"]),
        ("2026年第四季度", ["2026Q4"]),
    ],
)
def test_a_year_named_in_the_question_still_holds(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize(
    ("text", "reference", "expected"),
    [
        ("集团前三季度营收", REF, [["2025Q1", "2025Q2", "2025Q3"]]),
        ("1-9月", REF, [["2025Q1", "2025Q2", "2025Q3"]]),
        ("the first nine months", REF, [["2025Q1", "2025Q2", "2025Q3"]]),
        ("前三季度", date(2026, 9, 30), [["2025Q1", "2025Q2", "2025Q3"]]),
        ("前三季度", date(2026, 10, 1), [["2026Q1", "2026Q2", "2026Q3"]]),
        ("2024年前三季度", REF, [["2024Q1", "2024Q2", "2024Q3"]]),
        ("2024年营收和前三季度营收", REF, [["2024Q1", "2024Q2", "2024Q3"]]),
    ],
)
def test_the_first_three_quarters_without_a_year_are_the_latest_complete_ones(
    text: str, reference: date, expected: list[list[str]]
) -> None:
    assert cumulative(text, reference) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("集团第四季度营收是多少", [("第四季度", ["2025Q4"])]),
        ("what was revenue in q3?", [("q3", ["2025Q3"])]),
        ("集团前三季度营收", [("前三季度", ["2025Q1", "2025Q2", "2025Q3"])]),
        ("第三季度和第四季度", [("第三季度", ["2025Q3"]), ("第四季度", ["2025Q4"])]),
        ("2025年第四季度", []),
        ("2025年第三季度和第四季度", []),
        ("去年第四季度", []),
        ("上季度", []),
        ("2025年营收", []),
    ],
)
def test_the_periods_assumed_are_those_no_year_was_named_for(text: str, expected: list) -> None:
    assert assumed(text) == expected


def test_period_end_is_the_last_day_of_the_period() -> None:
    assert period_end(Period("QUARTER", "2025Q1")) == date(2025, 3, 31)
    assert period_end(Period("HY", "2024H1")) == date(2024, 6, 30)
    assert period_end(Period("HY", "2024H2")) == date(2024, 12, 31)
    assert period_end(Period("FY", "2023")) == date(2023, 12, 31)


# -- the property: no question without a year is ever read as a period not yet over ------------
_WORDS = [
    # Simplified
    *("第一季度", "第二季度", "第三季度", "第四季度", "一季度", "四季度", "上半年", "下半年", "上半", "下半"),
    *("前三季度", "前两季度", "前三个季度", "1-6月", "7-12月", "1-9月", "10-12月", "一到四季度", "Q1到Q3"),
    # Traditional and Cantonese
    *("第四季", "第一季", "上半年度", "下半年度", "前三季", "一至三季度"),
    # English
    *("q1", "q2", "Q3", "Q4", "h1", "H2", "first half", "second half", "first quarter", "third quarter"),
    *("4th quarter", "the first nine months", "9M", "Q1 to Q4", "last quarter", "上季度"),
]
_FILLER = ["集团", "集團", "营收", "營收", "revenue", "和", "與", "and", "、", "，", "？", "。", "呢", " ", "的", "嘅"]


@st.composite
def _question_without_year(draw: st.DrawFn) -> str:
    tokens = draw(st.lists(st.sampled_from(_WORDS + _FILLER), min_size=1, max_size=8))
    return "".join(tokens)


_REFERENCES = st.dates(min_value=date(1995, 1, 1), max_value=date(2099, 12, 31))


@settings(max_examples=300, deadline=None)
@given(_question_without_year(), _REFERENCES)
def test_no_question_without_a_year_is_read_as_a_period_not_yet_over(question: str, reference: date) -> None:
    normalized = text_normalize(question)
    periods = [p for _, _, p in periods_find(normalized, reference)]
    periods += [p for _, _, quarters in periods_cumulative(normalized, reference) for p in quarters]
    for period in periods:
        assert period_end(period) < reference, (question, reference, period)


@settings(max_examples=100, deadline=None)
@given(_question_without_year(), _REFERENCES)
def test_every_period_assumed_is_one_the_question_reads(question: str, reference: date) -> None:
    normalized = text_normalize(question)
    read = {p for _, _, p in periods_find(normalized, reference)}
    read |= {p for _, _, quarters in periods_cumulative(normalized, reference) for p in quarters}
    for _, _, found in periods_assumed(normalized, reference):
        assert found and set(found) <= read
        assert all(period_end(p) < reference <= period_end(p) + timedelta(days=366 * 2) for p in found)
