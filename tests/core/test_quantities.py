"""Reading figures out of prose: value, unit class and sign (the grounding check's parser)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.normalize import text_normalize
from core.quantities import chinese_integer, claims_find, fact_quantity
from core.types import FactRecord, Period


def read(text: str) -> list[tuple[Decimal, str]]:
    return [q.key for q in claims_find(text_normalize(text)).quantities]


def fig(value: str, unit: str) -> tuple[Decimal, str]:
    return (Decimal(value).normalize(), unit)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("营业收入1,284.5亿元", [fig("128450000000", "money:CNY")]),
        ("按事实表为128,450.6 百万元", [fig("128450600000", "money:CNY")]),
        ("RMB150亿", [fig("15000000000", "money:CNY")]),
        ("HKD320亿", [fig("32000000000", "money:HKD")]),
        ("US$5m", [fig("5000000", "money:USD")]),
        ("港币5亿元", [fig("500000000", "money:HKD")]),
        ("约12亿美元", [fig("1200000000", "money:USD")]),
        ("１５０亿元", [fig("15000000000", "money:CNY")]),
        ("6.7%", [fig("6.7", "percent")]),
        ("6.7％", [fig("6.7", "percent")]),
        ("1.6个百分点", [fig("1.6", "points")]),
        ("1.6pp", [fig("1.6", "points")]),
        ("50个基点", [fig("0.5", "points")]),
        ("15家", [fig("15", "count")]),
        ("5,832万人", [fig("58320000", "count")]),
        ("3.5倍", [fig("3.5", "times")]),
        ("150亿", [fig("15000000000", "amount")]),
        ("门店数量15", [fig("15", "number")]),
        ("三成", [fig("30", "percent")]),
        ("两成", [fig("20", "percent")]),
        ("百分之三十", [fig("30", "percent")]),
        ("百分之12.5", [fig("12.5", "percent")]),
        ("二十亿元", [fig("2000000000", "money:CNY")]),
        ("五百万元", [fig("5000000", "money:CNY")]),
        ("一百二十亿", [fig("12000000000", "amount")]),
        ("三点五亿元", [fig("350000000", "money:CNY")]),
        ("贰拾亿元", [fig("2000000000", "money:CNY")]),
        ("两家", [fig("2", "count")]),
        ("关闭了三个门店", [fig("3", "count")]),
        ("新增三项业务", [fig("3", "count")]),
        ("十余家", [fig("10", "count")]),
    ],
)
def test_figures_are_read_with_value_and_unit_class(text: str, expected: list[tuple[Decimal, str]]) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("营业利润-1,085.2百万元", fig("-1085200000", "money:CNY")),
        ("营业利润−10.852亿元", fig("-1085200000", "money:CNY")),
        ("rmb-5亿", fig("-500000000", "money:CNY")),
        ("全年营业利润为亏损10.85亿元", fig("-1085000000", "money:CNY")),
        ("香港营业收入同比下降6.7%", fig("-6.7", "percent")),
        ("人均消费同比下降约12%", fig("-12", "percent")),
        ("负增长5%", fig("-5", "percent")),
        ("revenue was down 6.7%", fig("-6.7", "percent")),
        ("毛利率下降至29.7%", fig("29.7", "percent")),  # a level, not a change
        ("增长8%-10%", fig("8", "percent")),  # a range's dash is no minus
        ("（15%）", fig("15", "percent")),  # parentheses are an aside, not a negative
    ],
)
def test_the_sign_is_read_from_a_minus_or_a_stated_loss_or_fall(text: str, expected: tuple[Decimal, str]) -> None:
    assert read(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "第一，访港旅客消费结构变化",
        "第3名",
        "主要有两个原因",
        "三项措施",
        "3个主要方面",
        "将一家门店改造为体验店",
        "统一成本核算",
        "十分明显",
        "几十亿",
        "数百万",
        "十几亿",
        "千万不要",
        "一二线城市",
        "q4",
        "iphone15",
        "b2b",
        "5g网络",
        "去年同期",
    ],
)
def test_words_that_only_look_like_figures_state_none(text: str) -> None:
    assert claims_find(text_normalize(text)).quantities == ()


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("2025年", (2025,)),
        ("FY2025", (2025,)),
        ("2025Q4", (2025,)),
        ("2025H1", (2025,)),
        ("2025年第三季度", (2025,)),
        ("二〇二六年", (2026,)),
        ("去年", ()),
        ("Q3", ()),
        ("2025万元", ()),
    ],
)
def test_written_years_are_periods_not_quantities(text: str, years: tuple[int, ...]) -> None:
    claims = claims_find(text_normalize(text))
    assert claims.years == years
    assert (claims.quantities == ()) == (text != "2025万元")


@pytest.mark.parametrize(
    ("run", "value"),
    [
        ("十", 10),
        ("十五", 15),
        ("二十", 20),
        ("一百零五", 105),
        ("三百五", 350),
        ("一万二", 12000),
        ("两千三百万", 23_000_000),
        ("三亿五千万", 350_000_000),
        ("一万亿", 10**12),
        ("一二", None),
        ("万一", None),
    ],
)
def test_chinese_integers(run: str, value: int | None) -> None:
    assert chinese_integer(run) == value


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        ("-1085.2", "CNY_M", fig("-1085200000", "money:CNY")),
        ("320", "HKD_M", fig("320000000", "money:HKD")),
        ("29.7", "PCT", fig("29.7", "percent")),
        ("95", "COUNT", fig("95", "count")),
        ("5104", "TEN_THOUSAND_PERSONS", fig("51040000", "count")),
        ("7", "WIDGETS", fig("7", "number")),
    ],
)
def test_fact_units_map_to_unit_classes(value: str, unit: str, expected: tuple[Decimal, str]) -> None:
    fact = FactRecord("M", "E", Period("FY", "2025"), "TOTAL", Decimal(value), unit, "d", "l")
    assert fact_quantity(fact).key == expected


@given(st.text(alphabet="0123456789,.%亿万元家-−负下降第一二三十百千成两 rmbhkd$", max_size=30))
def test_reading_is_total_and_idempotent_over_normalisation(text: str) -> None:
    once = claims_find(text_normalize(text))
    assert claims_find(text_normalize(text_normalize(text))) == once
