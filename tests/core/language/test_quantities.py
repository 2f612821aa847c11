"""Reading figures out of prose: value, unit class and sign (the grounding check's parser)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.language.normalize import text_normalize
from core.language.quantities import chinese_integer, claims_find, fact_quantity, prose_normalize
from core.model.facts import FactRecord
from core.model.period import Period


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
        "去年同期",
        "q4",
        "一二线城市",
        "万一",
        "百货",
        "数百家",
        "几万人",
        "第一，访港旅客消费结构变化；第二，核心商圈客流减少",
        "第二个原因",
        "I am",
    ],
)
def test_words_that_only_look_like_figures_state_none(text: str) -> None:
    assert claims_find(text_normalize(text)).quantities == ()


def cased(text: str) -> list[tuple[Decimal, str]]:
    return [q.key for q in claims_find(prose_normalize(text)).quantities]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Digits glued to letters: a known unit, or a class of their own that only they support.
        ("2.2pct", [fig("2.2", "pct")]),
        ("2.2ppt", [fig("2.2", "points")]),
        ("1.6 percentage points", [fig("1.6", "points")]),
        ("25bps", [fig("0.25", "points")]),
        ("3x", [fig("3", "times")]),
        ("3 x 4", [fig("3", "number"), fig("4", "number")]),
        ("1.5e9 yuan", [fig("1500000000", "money:CNY")]),
        ("us$1.5tn", [fig("1500000000000", "money:USD")]),
        ("5mn", [fig("5000000", "amount")]),
        ("iphone15", [fig("15", "glued:iphone#")]),
        ("b2b", [fig("2", "glued:b#b")]),
        ("5g网络", [fig("5", "glued:#g")]),
        ("covid-19", [fig("19", "glued:covid#")]),
        # Any three letters glued to an amount, or capitals beside it, are a currency code.
        ("MYR1.2bn", [fig("1200000000", "money:MYR")]),
        ("thb30bn", [fig("30000000000", "money:THB")]),
        ("MYR 1.2bn", [fig("1200000000", "money:MYR")]),
        ("1.2bn MYR", [fig("1200000000", "money:MYR")]),
        ("the 5", [fig("5", "number")]),
        # Ranks are claims.
        ("第3名", [fig("3", "rank")]),
        ("排名第二", [fig("2", "rank")]),
        ("位居行业第2", [fig("2", "rank")]),
        ("No.1", [fig("1", "rank")]),
        ("#1", [fig("1", "rank")]),
        ("2nd", [fig("2", "rank")]),
        ("top3", [fig("3", "rank:top")]),
        ("top 3", [fig("3", "rank:top")]),
        ("前三名", [fig("3", "rank:top")]),
        # Chinese forms.
        ("三分之一", [fig(str(Decimal(1) / 3), "ratio")]),
        ("1/3", [fig(str(Decimal(1) / 3), "ratio")]),
        ("千分之五", [fig("5", "permille")]),
        ("一半", [fig("0.5", "ratio")]),
        ("打七折", [fig("0.7", "ratio")]),
        ("七五折", [fig("0.75", "ratio")]),
        ("8.5折", [fig("0.85", "ratio")]),
        ("三折叠屏", []),
        ("翻倍", [fig("2", "times")]),
        ("翻两番", [fig("4", "times")]),
        ("doubled", [fig("2", "times")]),
        ("tripled", [fig("3", "times")]),
        ("零增长", [fig("0", "percent")]),
        ("Ⅻ家", [fig("12", "count")]),
        ("XII", [fig("12", "number")]),
        ("٢٥%", [fig("25", "percent")]),
        ("双十一", [fig("11", "number")]),
        ("千元以下", [fig("1000", "money:CNY")]),
        ("突破百亿", [fig("10000000000", "amount")]),
        ("三四成", [(Decimal(0), "written:三四成")]),
        # 数 before a place value is "several"; the 数 of a counted noun is not.
        ("门店总数三百家", [fig("300", "count")]),
        ("活跃会员人数六千万", [fig("60000000", "amount")]),
        ("用户数十万", [fig("100000", "amount")]),
    ],
)
def test_every_number_is_a_claim_of_some_class(text: str, expected: list[tuple[Decimal, str]]) -> None:
    assert cased(text) == expected


@pytest.mark.parametrize(
    ("text", "value", "signed_by"),
    [
        ("同比下挫21.2%", "-21.2", "fall"),
        ("同比出现21.2%的下滑", "-21.2", "fall"),
        ("较上年缩水10.0%", "-10.0", "fall"),
        ("online revenue slumped 21.2%", "-21.2", "fall"),
        ("saw a 10.0% decline", "-10.0", "fall"),
        ("21.2%的降幅", "-21.2", "fall"),
        ("降幅为6.7%", "-6.7", "fall"),
        ("负增长5%", "-5", "fall"),
        ("同比增长21.2%", "21.2", "rise"),
        ("实现21.2%的增长", "21.2", "rise"),
        ("rose 21.2%", "21.2", "rise"),
        ("亏损10.85亿元", "-1085000000", "loss"),
        ("亏损扩大至10.85亿元", "-1085000000", "loss"),
        ("10.85亿元的营业亏损", "-1085000000", "loss"),
        ("an operating loss of rmb1.085bn", "-1085000000", "loss"),
        ("负5%", "-5", "minus"),
        ("-5%", "-5", "minus"),
        ("+5%", "5", "plus"),
        ("下降至29.7%", "29.7", ""),
        ("fell to 29.7%", "29.7", ""),
        ("较上年回落,幅度为10.0%", "-10.0", "fall"),
        ("翻倍", "2", "rise"),
        ("halved", "-0.5", "fall"),
        ("排名下降至第2", "2", ""),
    ],
)
def test_a_direction_is_read_before_or_after_its_figure(text: str, value: str, signed_by: str) -> None:
    (quantity,) = claims_find(text_normalize(text)).quantities
    assert (quantity.value.normalize(), quantity.signed_by) == (Decimal(value).normalize(), signed_by)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("由31.9%下降至29.7%", ["", ""]),  # moves from a level to a level: both are levels
        ("fell from 31.9% to 29.7%", ["", ""]),
        ("收入增长10%而成本下降5%", ["rise", "fall"]),  # the nearest word wins
        ("分别增长10%和5%", ["rise", "rise"]),  # a list shares its word
        ("增长8%-10%", ["rise", "rise"]),
        ("rose 8.5% to 1,284.5bn", ["rise", ""]),  # a word does not reach past another figure
        ("营业收入1,284.5亿元,同比增长8.5%", ["", "rise"]),  # nor past its clause
        ("亏损主要来自新开95家门店", [""]),  # a loss word must stand beside its figure
    ],
)
def test_a_direction_stays_in_its_clause_and_with_its_figure(text: str, expected: list[str]) -> None:
    assert [q.signed_by for q in claims_find(text_normalize(text)).quantities] == expected


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


def test_prose_normalisation_keeps_the_capitals_a_currency_code_is_written_in() -> None:
    assert prose_normalize("东南亚营收ＭＹＲ 1.2bn，門店Ⅻ家") == "东南亚营收MYR 1.2bn,门店XII家"


@given(st.text(alphabet="ＡＢａｂABCxyzMYR 0123456789，。%亿門店Ⅻ\u200b", max_size=30))
def test_prose_normalisation_is_text_normalisation_with_the_case_kept(text: str) -> None:
    assert prose_normalize(text).lower() == text_normalize(text)


@pytest.mark.parametrize(
    "text",
    [
        "saw a 2000 percent decline",
        "rose 2024 percentage points",
        "up 2010 pp",
        "down 1999 bps",
        "grew 2000x",
        "2030 times the cost",
        "a loss of 2019 million",
        "2020 billion in sales",
        "2025 thousand units",
    ],
)
def test_a_year_like_number_with_a_unit_word_is_a_figure_not_a_year(text: str) -> None:
    """`2000 percent` is a figure, as `2000%` always was: a unit after it says it is no year."""
    claims = claims_find(prose_normalize(text))
    assert claims.years == () and len(claims.quantities) == 1
