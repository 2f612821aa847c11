from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.normalize import text_normalize
from core.periods import period_parse, periods_find
from core.types import Period

REF = date(2026, 3, 15)


def labels(text: str, reference: date = REF) -> list[str]:
    return [p.label for _, _, p in periods_find(text_normalize(text), reference)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FY2025", ["FY2025"]),
        ("FY25", ["FY2025"]),
        ("fy 2024", ["FY2024"]),
        ("2025", ["FY2025"]),
        ("2025年", ["FY2025"]),
        ("2025财年", ["FY2025"]),
        ("2025年度", ["FY2025"]),
        ("2025H1", ["2025H1"]),
        ("2025年上半年", ["2025H1"]),
        ("2025年下半年", ["2025H2"]),
        ("2025Q3", ["2025Q3"]),
        ("2025年第三季度", ["2025Q3"]),
        ("2025年三季度", ["2025Q3"]),
        ("Q3 2024", ["2024Q3"]),
        ("H2 2024", ["2024H2"]),
        ("今年", ["FY2026"]),
        ("去年", ["FY2025"]),
        ("前年", ["FY2024"]),
        ("上半年", ["2026H1"]),
        ("下半年", ["2026H2"]),
        ("去年上半年", ["2025H1"]),
        ("本季度", ["2026Q1"]),
        ("上季度", ["2025Q4"]),
        ("去年Q3", ["2025Q3"]),
        ("去年第四季度", ["2025Q4"]),
        ("this year", ["FY2026"]),
        ("last year", ["FY2025"]),
        ("last quarter", ["2025Q4"]),
        ("Q3", ["2026Q3"]),
        ("第三季度", ["2026Q3"]),
        ("集团2024年和2025年营收对比", ["FY2024", "FY2025"]),
        ("HK revenue 2025", ["FY2025"]),
    ],
)
def test_period_grammar(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_last_quarter_in_the_first_quarter_is_the_previous_year() -> None:
    assert labels("上季度", date(2026, 2, 1)) == ["2025Q4"]
    assert labels("上季度", date(2026, 8, 1)) == ["2026Q2"]


@pytest.mark.parametrize("text", ["2025万元", "2025.5", "12025", "1989年", "2101", "共2025家门店", "2025%", "20250"])
def test_numbers_that_are_not_years(text: str) -> None:
    assert labels(text) == []


@given(st.integers(min_value=1990, max_value=2100), st.sampled_from(["FY", "H1", "H2", "Q1", "Q2", "Q3", "Q4"]))
def test_labels_round_trip(year: int, kind: str) -> None:
    period = Period("FY", str(year)) if kind == "FY" else Period("HY" if kind[0] == "H" else "QUARTER", f"{year}{kind}")
    assert period_parse(period.label) == period


@given(st.text(max_size=40))
def test_the_grammar_never_raises_and_every_year_is_in_range(text: str) -> None:
    for _, _, period in periods_find(text_normalize(text), REF):
        assert 1990 <= period.year <= 2100


def test_period_parse_takes_exactly_one_period() -> None:
    assert period_parse("2025年") == Period("FY", "2025")
    assert period_parse("2025 and 2024") is None
    assert period_parse("revenue") is None
    assert period_parse("") is None
