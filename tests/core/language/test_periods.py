from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.language.normalize import text_normalize
from core.language.periods import period_parse, period_shifts, periods_before, periods_find, periods_unread
from core.model.period import Period

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
        ("上半年", ["2025H1"]),  # the latest complete one (tests/core/language/test_periods_without_year.py)
        ("下半年", ["2025H2"]),
        ("去年上半年", ["2025H1"]),
        ("本季度", ["2026Q1"]),
        ("上季度", ["2025Q4"]),
        ("去年Q3", ["2025Q3"]),
        ("去年第四季度", ["2025Q4"]),
        ("this year", ["FY2026"]),
        ("last year", ["FY2025"]),
        ("last quarter", ["2025Q4"]),
        ("Q3", ["2025Q3"]),
        ("第三季度", ["2025Q3"]),
        ("集团2024年和2025年营收对比", ["FY2024", "FY2025"]),
        ("HK revenue 2025", ["FY2025"]),
    ],
)
def test_period_grammar(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_last_quarter_in_the_first_quarter_is_the_previous_year() -> None:
    assert labels("上季度", date(2026, 2, 1)) == ["2025Q4"]
    assert labels("上季度", date(2026, 8, 1)) == ["2026Q2"]


@pytest.mark.parametrize(
    "text",
    [
        "2025万元",
        "2025.5",
        "12025",
        "1989年",
        "2101",
        "共2025家门店",
        "2025%",
        "20250",
        # an English unit before a Chinese word (`\b` saw no word end there)
        "实现2000 percent的增长",
        "2020 million的收入",
        "增长2000pp的",
    ],
)
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


# -- month ranges, two-digit years, English halves, and a year shared by a list ------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025年1-6月", ["2025H1"]),
        ("2025年1至6月", ["2025H1"]),
        ("2025年1~6月", ["2025H1"]),
        ("2025年1～6月", ["2025H1"]),
        ("2025年一至六月", ["2025H1"]),
        ("2025年1月-6月", ["2025H1"]),
        ("2025年1-3月", ["2025Q1"]),
        ("2025年4-6月", ["2025Q2"]),
        ("2025年7-9月", ["2025Q3"]),
        ("2025年10-12月", ["2025Q4"]),
        ("2025年十至十二月", ["2025Q4"]),
        ("2025年7-12月", ["2025H2"]),
        ("2025年1-12月", ["FY2025"]),
        ("1-6月", ["2025H1"]),
        ("去年7-12月", ["2025H2"]),
        ("24年", ["FY2024"]),
        ("24年上半年", ["2024H1"]),
        ("24年第三季度", ["2024Q3"]),
        ("24年1-6月", ["2024H1"]),
        ("24财年", ["FY2024"]),
        ("2025年第三季度和第四季度", ["2025Q3", "2025Q4"]),
        ("2025年Q1、Q2和Q3", ["2025Q1", "2025Q2", "2025Q3"]),
        ("2025年上半年和下半年", ["2025H1", "2025H2"]),
        ("2024年第四季度较第三季度", ["2024Q4", "2024Q3"]),
        ("2024年第四季度营收较第三季度增长多少", ["2024Q4", "2024Q3"]),
        ("去年第三季度和第四季度", ["2025Q3", "2025Q4"]),
        ("Q3 and Q4 2025", ["2025Q3", "2025Q4"]),
        ("Q1, Q2 and Q3 2024", ["2024Q1", "2024Q2", "2024Q3"]),
        ("H1 2025", ["2025H1"]),
        ("first half of 2025", ["2025H1"]),
        ("the second half of 2024", ["2024H2"]),
        ("third quarter of 2025", ["2025Q3"]),
        ("FY24", ["FY2024"]),
        ("Q3 FY25", ["2025Q3"]),
    ],
)
def test_month_ranges_short_years_and_lists(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("近3年营收", ["FY2023", "FY2024", "FY2025"]),  # a count of years, not FY2003
        ("过去10年", [f"FY{y}" for y in range(2016, 2026)]),
        ("10年期国债", []),
        ("2024年营收", ["FY2024"]),
        ("12024年", []),
        ("第三季度营收和2023年营收", ["2025Q3", "FY2023"]),  # backwards only across a list
        ("2023年营收是多少？第三季度呢", ["FY2023", "2025Q3"]),  # nor into another sentence
        ("2025年第四季度营收是多少；上半年营收是多少", ["2025Q4", "2025H1"]),  # a semicolon joins clauses
    ],
)
def test_what_is_not_a_short_year_or_a_list(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


@given(
    st.integers(min_value=2000, max_value=2030),
    st.sampled_from(
        [((1, 3), "Q1"), ((4, 6), "Q2"), ((7, 9), "Q3"), ((10, 12), "Q4"), ((1, 6), "H1"), ((7, 12), "H2")]
    ),
    st.sampled_from(["-", "至", "~", "到"]),
)
def test_month_ranges_are_the_period_they_cover(year: int, months: tuple[tuple[int, int], str], dash: str) -> None:
    (first, last), kind = months
    assert labels(f"{year}年{first}{dash}{last}月") == [f"{year}{kind}"]


@given(
    st.integers(min_value=2000, max_value=2030),
    st.lists(
        st.sampled_from(["第一季度", "第二季度", "第三季度", "第四季度", "Q1", "Q2", "Q3", "Q4"]),
        min_size=2,
        max_size=4,
    ),
    st.sampled_from(["和", "、", "与", ",", "及"]),
)
def test_the_year_carries_across_a_list(year: int, quarters: list[str], joiner: str) -> None:
    found = labels(f"{year}年" + joiner.join(quarters))
    assert len(found) == len(quarters)
    assert all(label.startswith(str(year)) for label in found)


@pytest.mark.parametrize("text", ["2025年1-9月", "2025年前三季度", "前三季度", "3-5月"])
def test_a_stretch_no_period_type_covers_is_not_read_as_the_year(text: str) -> None:
    """Nine months is not the fiscal year: better no period (and a stated assumption) than FY."""
    assert labels(text) == []


def test_the_first_months_of_a_year() -> None:
    assert labels("2025年前6个月") == ["2025H1"]
    assert labels("去年前三个月") == ["2025Q1"]


@pytest.mark.parametrize(("text", "label"), [("FY26", "FY2026"), ("FY98", "FY1998"), ("24年", "FY2024")])
def test_a_two_digit_year_reads_the_same_on_every_reference_date(text: str, label: str) -> None:
    for reference in (date(2000, 1, 1), date(2001, 7, 1), date(2026, 3, 15), date(2080, 1, 1)):
        period = period_parse(text, reference)
        assert period is not None and period.label == label, (text, reference)


# -- stretches of time no period type holds (redteam D) ------------------------------------------------
def unread(text: str) -> list[str]:
    return [words for _, _, words in periods_unread(text_normalize(text), REF)]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("集团2025年前三季度营收", ["2025年前三季度"]),
        ("2025年1-9月", ["2025年1-9月"]),
        ("集团2025年Q5营收", ["2025年q5"]),
        ("Q5 2025", ["q5 2025"]),
        ("2025年第五季度", ["2025年第五季度"]),
        ("2025年13月营收", ["2025年13月"]),
        ("2025年3月营收", ["2025年3月"]),
        ("去年12月", ["去年12月"]),
        ("上个月营收", ["上个月"]),
        ("近3个月营收", ["近3个月"]),
        ("revenue in March 2025", ["march 2025"]),
        ("9M 2025 revenue", ["9m 2025"]),
        ("YTD revenue", ["ytd"]),
        ("2025H3", ["2025h3"]),
    ],
)
def test_a_stretch_no_period_type_holds_is_reported_with_its_year_and_never_read(text: str, words: list[str]) -> None:
    assert unread(text) == words
    assert labels(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025年前两季度", ["2025H1"]),
        ("2025年前两个季度", ["2025H1"]),
        ("2025年前一季度", ["2025Q1"]),
        ("2025年前四季度", ["FY2025"]),
        ("截至2025年12月31日止年度", ["FY2025"]),  # a date, not a month
        ("2025年第三季度", ["2025Q3"]),
        ("2025年1-6月", ["2025H1"]),
        ("近年来营收", []),
    ],
)
def test_what_the_unread_rules_leave_alone(text: str, expected: list[str]) -> None:
    assert labels(text) == expected and unread(text) == []


@given(st.text(alphabet="2025年前三季度第五Q5q1-913月份上个近H3 ", max_size=30))
def test_a_span_is_either_read_or_unread_never_both(text: str) -> None:
    normalized = text_normalize(text)
    read = [(s, e) for s, e, _ in periods_find(normalized, REF)]
    for start, end, _ in periods_unread(normalized, REF):
        assert not any(s < end and start < e for s, e in read)


# -- ranges and series -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("集团2022到2025年每年的营收", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("2023年到2025年营收分别是多少", ["FY2023", "FY2024", "FY2025"]),
        ("2022至2025年", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("2022-2025年", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("22-25年营收", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("FY2023-FY2025", ["FY2023", "FY2024", "FY2025"]),
        ("revenue 2022-2025", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("近三年营收", ["FY2023", "FY2024", "FY2025"]),
        ("过去两年", ["FY2024", "FY2025"]),
        ("最近4个季度", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("近两个季度", ["2025Q3", "2025Q4"]),
        ("revenue for each of the last three years", ["FY2023", "FY2024", "FY2025"]),
        ("the last 2 quarters", ["2025Q3", "2025Q4"]),
        ("2025年每个季度的营收", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("2025年各季度", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("2025年一到四季度", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("2025年Q2到Q4", ["2025Q2", "2025Q3", "2025Q4"]),
        ("Q1 to Q4 2025 revenues", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("2025 quarterly revenue", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("2023年和2025年营收对比", ["FY2023", "FY2025"]),  # two named periods stay two
        ("营收10-12亿", []),
        ("2024-2025年上半年", ["FY2024", "2025H1"]),  # not a range of years
    ],
)
def test_a_range_expands_into_every_period_of_it_in_order(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_the_last_years_are_anchored_on_the_latest_complete_one() -> None:
    assert labels("近三年", date(2025, 12, 31)) == ["FY2022", "FY2023", "FY2024"]
    assert labels("最近1个季度", date(2025, 4, 1)) == ["2025Q1"]
    assert labels("最近2个季度", date(2025, 2, 1)) == ["2024Q3", "2024Q4"]


@given(
    st.integers(min_value=1990, max_value=2080),
    st.integers(min_value=1, max_value=20),
    st.sampled_from(["到", "至", "-", "年到", "年至"]),
)
def test_a_year_range_lists_each_year_once_in_order(first: int, length: int, joiner: str) -> None:
    last = first + length
    found = labels(f"{first}{joiner}{last}年营收")
    assert found == [f"FY{year}" for year in range(first, last + 1)]


@pytest.mark.parametrize(("text", "expected"), [("近三五年", []), ("近十二个季度", 12), ("近二十年", 20)])
def test_a_count_of_years_is_one_number(text: str, expected: list[str] | int) -> None:
    found = labels(text)
    assert (len(found) if isinstance(expected, int) else found) == expected


# -- a stretch just before the periods asked before (`那前三年呢`) ------------------------------------
@pytest.mark.parametrize(
    ("text", "count", "unit"),
    [
        ("那前三年呢", 3, "year"),
        ("那之前三年呢", 3, "year"),
        ("再往前两年呢", 2, "year"),
        ("此前4个季度", 4, "quarter"),
        ("what about the three years before?", 3, "year"),
        ("the 2 quarters before that", 2, "quarter"),
        ("the preceding five years", 5, "year"),
    ],
)
def test_a_stretch_before_is_read_as_a_count_and_a_unit_and_names_no_period(text: str, count: int, unit: str) -> None:
    normalized = text_normalize(text)
    assert [(c, u) for _, _, c, u in period_shifts(normalized, REF)] == [(count, unit)]
    assert periods_find(normalized, REF) == [] and periods_unread(normalized, REF)  # asked back on its own


@pytest.mark.parametrize("text", ["前三季度", "2025年前三个季度", "前年", "近三年", "前6个月"])
def test_other_stretches_are_not_a_stretch_before(text: str) -> None:
    assert period_shifts(text_normalize(text), REF) == []


_MONTHS = {"FY": 12, "HY": 6, "QUARTER": 3}


def _start(period: Period) -> int:
    part = 0 if period.period_type == "FY" else int(period.period[5]) - 1
    return period.year * 12 + part * _MONTHS[period.period_type]


@given(
    kind=st.sampled_from(["FY", "HY", "QUARTER"]),
    first=st.integers(min_value=2000 * 12, max_value=2030 * 12),
    length=st.integers(min_value=1, max_value=12),
    count=st.integers(min_value=1, max_value=12),
    unit=st.sampled_from(["year", "quarter"]),
)
def test_the_stretch_before_ends_where_the_range_starts_and_covers_exactly_the_count(
    kind: str, first: int, length: int, count: int, unit: str
) -> None:
    step = _MONTHS[kind]
    start = first - first % step
    series = []
    for month in range(start, start + length * step, step):
        year, within = divmod(month, 12)
        suffix = "" if kind == "FY" else f"{'H' if kind == 'HY' else 'Q'}{within // step + 1}"
        series.append(Period(kind, f"{year}{suffix}"))
    before = periods_before(tuple(series), count, unit)
    starts = [_start(p) for p in before]
    ends = [s + _MONTHS[p.period_type] for s, p in zip(starts, before, strict=True)]
    assert starts == sorted(starts) and all(a == b for a, b in zip(ends, starts[1:], strict=False))  # contiguous
    assert ends[-1] == start and start - starts[0] == count * (12 if unit == "year" else 3)
    if (count * (12 if unit == "year" else 3)) % step == 0:
        assert {p.period_type for p in before} == {kind}  # listed as the range was
