"""Period words beyond a period's own name (SPEC §5, §5a): the whole year of the year in context
(`全年`, `full year`), a period's end and start (`2025年末`, `期末`, `at year end`; `2025年初`),
quarter words without 度 (`第四季`, `首季`), quarters or halves listed with their word said once
(`第三和第四季度`, `三、四季度`, `上、下半年`, `the third and fourth quarters`) and English stretches
from the start of a year (`the first six months`, `the first three quarters`)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.language.normalize import text_normalize
from core.language.periods import periods_assumed, periods_cumulative, periods_find, periods_unread

REF = date(2026, 3, 15)


def labels(text: str, reference: date = REF) -> list[str]:
    """The periods found, each once, in reading order."""
    found = [p.label for _, _, p in periods_find(text_normalize(text), reference)]
    return list(dict.fromkeys(found))


def unread(text: str) -> list[str]:
    return [words for _, _, words in periods_unread(text_normalize(text), REF)]


def assumed(text: str) -> list[str]:
    return [p.label for _, _, found in periods_assumed(text_normalize(text), REF) for p in found]


def cumulative(text: str) -> list[list[str]]:
    return [[p.label for p in quarters] for _, _, quarters in periods_cumulative(text_normalize(text), REF)]


@pytest.mark.parametrize(
    ("text", "expected", "yearless"),
    [
        # the year named before it in the sentence
        ("集团2025年第四季度营收占全年的比重", ["2025Q4", "FY2025"], []),
        ("集團2025年上半年營收佔全年嘅比例", ["2025H1", "FY2025"], []),
        ("2024年第一季度营收占全年度的比例", ["2024Q1", "FY2024"], []),
        ("2023年第三季度营收占整年的多少", ["2023Q3", "FY2023"], []),
        ("Q4 2024 revenue as a share of the full year", ["2024Q4", "FY2024"], []),
        ("what share of the whole year was Q2 2024", ["FY2024", "2024Q2"], []),
        # the year written with it
        ("2025年全年营收", ["FY2025"], []),
        ("去年全年营收", ["FY2025"], []),
        ("full year 2024 revenue", ["FY2024"], []),
        ("full-year fiscal 2024 revenue", ["FY2024"], []),
        # no year anywhere: the latest complete one, said as an assumption
        ("集团全年营收", ["FY2025"], ["FY2025"]),
        ("第四季度营收占全年的比重", ["2025Q4", "FY2025"], ["2025Q4", "FY2025"]),
        ("the entire year", ["FY2025"], ["FY2025"]),
    ],
)
def test_the_whole_year_is_the_fiscal_year_in_context(text: str, expected: list[str], yearless: list[str]) -> None:
    assert labels(text) == expected
    assert assumed(text) == yearless


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("集团2025年年末活跃会员数", ["FY2025"]),
        ("集团2025年末活跃会员数", ["FY2025"]),
        ("集团2025年底活跃会员数", ["FY2025"]),
        ("集团2025年期末活跃会员数", ["FY2025"]),
        ("2025年度末", ["FY2025"]),
        ("去年年底", ["FY2025"]),
        ("去年末", ["FY2025"]),
        ("2025年第三季度末活跃会员数", ["2025Q3"]),
        ("2025年上半年末", ["2025H1"]),
        ("Q3 2025期末", ["2025Q3"]),
        ("active members at the end of 2024", ["FY2024"]),
        ("active members at year end 2024", ["FY2024"]),
        ("active members as of the end of Q3 2025", ["2025Q3"]),
        ("FY2024 year-end members", ["FY2024"]),
    ],
)
def test_a_period_s_end_is_the_period(text: str, expected: list[str]) -> None:
    assert labels(text) == expected
    assert unread(text) == []


@pytest.mark.parametrize("text", ["集团年末活跃会员数", "年底的会员数", "active members at year end"])
def test_a_year_end_without_a_year_is_the_latest_complete_year(text: str) -> None:
    assert labels(text) == ["FY2025"]
    assert assumed(text) == ["FY2025"]


@pytest.mark.parametrize(
    "text",
    [
        "2025年年初活跃会员数",
        "2025年初活跃会员数",
        "今年年初",
        "年初至今营收",
        "at the beginning of 2025",
        "start of 2025",
    ],
)
def test_a_period_s_start_is_asked_back_never_read_as_the_period(text: str) -> None:
    """The start of 2025 is the end of 2024, not FY2025: a stretch no period type holds."""
    assert labels(text) == []
    assert unread(text)


@pytest.mark.parametrize(
    ("text", "expected", "yearless"),
    [
        ("咁第四季呢？", ["2025Q4"], ["2025Q4"]),
        ("第一季营收", ["2025Q1"], ["2025Q1"]),
        ("集團2025年第四季營收", ["2025Q4"], []),
        ("2024年首季营收", ["2024Q1"], []),
        ("首季度", ["2025Q1"], ["2025Q1"]),
    ],
)
def test_a_quarter_said_without_du(text: str, expected: list[str], yearless: list[str]) -> None:
    assert labels(text) == expected
    assert assumed(text) == yearless


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("集团2025年第三和第四季度营收合计", ["2025Q3", "2025Q4"]),
        ("2025年三、四季度", ["2025Q3", "2025Q4"]),
        ("2024年第一、二季度", ["2024Q1", "2024Q2"]),
        ("2025年1、3季度", ["2025Q1", "2025Q3"]),
        ("2025年一、二、四季度", ["2025Q1", "2025Q2", "2025Q4"]),
        ("2025年Q3和Q4", ["2025Q3", "2025Q4"]),
        ("2024年上、下半年", ["2024H1", "2024H2"]),
        ("2024年上下半年", ["2024H1", "2024H2"]),
        ("the third and fourth quarters of 2024", ["2024Q3", "2024Q4"]),
        ("the first, second and fourth quarters of fiscal 2024", ["2024Q1", "2024Q2", "2024Q4"]),
        # without a year: the latest year in which all of them are over
        ("三、四季度", ["2025Q3", "2025Q4"]),
        ("上下半年", ["2025H1", "2025H2"]),
        ("the first and second quarters", ["2025Q1", "2025Q2"]),
    ],
)
def test_a_list_with_its_word_said_once(text: str, expected: list[str]) -> None:
    assert labels(text) == expected
    assert unread(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the first six months of 2024", ["2024H1"]),
        ("first 6 months of fiscal 2024", ["2024H1"]),
        ("the first two quarters of 2024", ["2024H1"]),
        ("the first three months of 2024", ["2024Q1"]),
        ("the first twelve months of 2024", ["FY2024"]),
        ("the first six months", ["2025H1"]),
    ],
)
def test_an_english_stretch_from_the_start_of_a_year(text: str, expected: list[str]) -> None:
    """As `前6个月` is H1: never the year named after it."""
    assert labels(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the first three quarters of 2024", [["2024Q1", "2024Q2", "2024Q3"]]),
        ("first 3 quarters of fiscal 2024", [["2024Q1", "2024Q2", "2024Q3"]]),
        ("the first nine months of 2024", [["2024Q1", "2024Q2", "2024Q3"]]),
        ("the first three quarters", [["2025Q1", "2025Q2", "2025Q3"]]),
    ],
)
def test_the_first_three_quarters_in_english_are_like_qian_san_ji_du(text: str, expected: list[list[str]]) -> None:
    assert labels(text) == []  # never FY2024
    assert cumulative(text) == expected


@pytest.mark.parametrize("text", ["the first ten months of 2024", "the first five months"])
def test_another_english_stretch_is_asked_back(text: str) -> None:
    assert labels(text) == []
    assert unread(text)


@pytest.mark.parametrize("text", ["2025年初步统计的营收", "2025年底薪总额", "2025年末期股息"])
def test_a_word_that_only_begins_with_an_edge_is_no_edge(text: str) -> None:
    """初步 (preliminary), 底薪 (base pay), 末期 (final): the year is read, the rest is the question's."""
    assert labels(text) == ["FY2025"]
    assert unread(text) == []


@given(
    st.integers(min_value=1995, max_value=2024), st.sampled_from(["全年", "全年度", "整年", "年末", "年底", "末", "底"])
)
def test_a_year_with_its_whole_or_end_words_is_that_fiscal_year(year: int, words: str) -> None:
    assert labels(f"{year}年{words}营收") == [f"FY{year}"]
    assert unread(f"{year}年{words}营收") == []


@given(
    st.integers(min_value=1995, max_value=2024),
    st.sampled_from(["第二季度", "Q2", "上半年", "H1"]),
    st.sampled_from(["全年", "全年度", "整年", "整个年度"]),
)
def test_a_part_s_whole_year_is_its_own_year(year: int, part: str, whole: str) -> None:
    found = labels(f"{year}年{part}营收占{whole}的比重")
    assert found[1:] == [f"FY{year}"] and found[0].startswith(str(year))


@given(
    st.integers(min_value=1995, max_value=2024),
    st.lists(
        st.sampled_from("一二三四1234"),
        min_size=2,
        max_size=4,
        unique_by=lambda d: "一二三四".index(d) if d in "一二三四" else int(d) - 1,
    ),
    st.sampled_from(["和", "、", "与", ",", "及"]),
    st.booleans(),
)
def test_a_listed_quarter_takes_the_word_said_once(year: int, digits: list[str], joiner: str, ordinal: bool) -> None:
    numbers = ["一二三四".index(d) + 1 if d in "一二三四" else int(d) for d in digits]
    text = f"{year}年" + ("第" if ordinal else "") + joiner.join(digits) + "季度营收"
    assert labels(text) == [f"{year}Q{n}" for n in numbers]
