"""A yes/no check of a stated figure leads with its verdict (`不是。` / `是的。` / `No.` / `Yes.`),
then the fact line with its source as before; with no figure found there is no verdict.

The rule (`core.routes.lookup.verdict`): the asked figure is converted with its scale and unit
into the fact's unit; equal → yes; equal only after rounding both to the coarser of the
question's written precision and the fact's stored precision → yes, approximately; otherwise
no. `有没有X` / `reach X` asks whether the figure reaches X (≥ X, exactly).
"""

from __future__ import annotations

import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import GlossarySnapshot
from core.model.facts import FactRecord
from core.model.period import Period
from core.parse.intent import figure_checked
from core.routes.lookup.verdict import APPROXIMATELY, NO, YES, figure_verdict, verdict_line
from tests.fakes import demo_glossary

REF = date(2026, 3, 15)


def _fact(value: str, unit: str) -> FactRecord:
    return FactRecord("REVENUE", "ACME_HK", Period("FY", "2024"), "TOTAL", Decimal(value), unit, "report.xlsx", "A1")


def _verdict(question: str, value: str, unit: str) -> str | None:
    checked = figure_checked(question)
    return None if checked is None else figure_verdict(checked, _fact(value, unit))


# (question, stored value, stored unit, verdict): amounts with their scale words and units, in
# the question's precision; None when the question checks no figure the fact can answer.
CASES = [
    ("营收是不是13万亿？", "25730.1", "CNY_M", NO),
    ("营收是不是2.5万亿", "24611.4", "CNY_M", NO),  # 246亿, not 2.5万亿: the scale is converted
    ("营收是不是246亿", "24611.4", "CNY_M", APPROXIMATELY),
    ("营收是不是246.114亿", "24611.4", "CNY_M", YES),
    ("营收是不是250亿", "24611.4", "CNY_M", NO),  # a written zero is a written digit
    ("营收是不是24,611.4百万元", "24611.4", "CNY_M", YES),
    ("营收是否为2.5万亿元？", "24611.4", "CNY_M", NO),
    ("营收是否为246亿元", "24611.4", "CNY_M", APPROXIMATELY),
    ("营收是257.3亿元吗", "25730.1", "CNY_M", APPROXIMATELY),
    ("营收是257.301亿元吗？", "25730.1", "CNY_M", YES),
    ("营收为257.301亿吗", "25730.1", "CNY_M", YES),
    ("营收257.301亿，对吗？", "25730.1", "CNY_M", YES),
    ("营收257.301亿吗", "25730.1", "CNY_M", YES),
    ("营收达到250亿了吗", "25730.1", "CNY_M", YES),
    ("营收是不是二百五十七亿", "25730.1", "CNY_M", APPROXIMATELY),
    ("营收是不是十三万亿", "25730.1", "CNY_M", NO),
    ("营收是不是257.3012亿", "25730.1", "CNY_M", APPROXIMATELY),  # finer than the stored figure
    ("营收有没有250亿", "25730.1", "CNY_M", YES),  # reaches
    ("营收有没有260亿", "25730.1", "CNY_M", NO),
    ("营收是否达到257.301亿", "25730.1", "CNY_M", YES),
    ("毛利率是不是33.8%", "33.8", "PCT", YES),
    ("毛利率是不是34%", "33.8", "PCT", APPROXIMATELY),
    ("毛利率是不是30%", "33.8", "PCT", NO),
    ("毛利率是否为百分之三十", "33.8", "PCT", NO),
    ("新开门店数是不是412家", "412", "COUNT", YES),
    ("新开门店数是不是400家", "412", "COUNT", NO),
    ("活跃会员数是不是1200万人", "1200", "TEN_THOUSAND_PERSONS", YES),
    ("Was revenue 25.7 billion yuan?", "25730.1", "CNY_M", APPROXIMATELY),
    ("Was Hong Kong revenue in 2024 13 trillion?", "25730.1", "CNY_M", NO),
    ("Is the gross margin 33.8%?", "33.8", "PCT", YES),
    ("Hong Kong revenue in 2024 was 25,730.1 million yuan, right?", "25730.1", "CNY_M", YES),
    ("Revenue was 30 billion, right?", "25730.1", "CNY_M", NO),
    ("Did Hong Kong revenue reach 30 billion in 2024?", "25730.1", "CNY_M", NO),
    ("Did Hong Kong revenue reach 25 billion in 2024?", "25730.1", "CNY_M", YES),
    # no verdict: no figure, a change, a comparison, an approximation, another currency, a range
    ("营收是多少", "25730.1", "CNY_M", None),
    ("营收是不是增长了10%", "25730.1", "CNY_M", None),
    ("毛利率是不是提高了10%", "33.8", "PCT", None),
    ("营收是不是超过250亿", "25730.1", "CNY_M", None),
    ("营收超过250亿吗", "25730.1", "CNY_M", None),
    ("营收不到250亿，对吗", "25730.1", "CNY_M", None),
    ("营收是不是约250亿", "25730.1", "CNY_M", None),
    ("营收是不是250多亿", "25730.1", "CNY_M", None),
    ("营收是不是13万亿美元", "25730.1", "CNY_M", None),
    ("营收是不是在250亿到260亿之间", "25730.1", "CNY_M", None),
    ("营收257亿", "25730.1", "CNY_M", None),  # a statement, not a question
    ("Was revenue over 25 billion?", "25730.1", "CNY_M", None),
    ("Did revenue grow 10%?", "25730.1", "CNY_M", None),
    ("毛利率是不是30个百分点", "33.8", "PCT", None),
]


@pytest.mark.parametrize(("question", "value", "unit", "expected"), CASES)
def test_the_verdict_compares_in_the_facts_unit_at_the_precision_asked(
    question: str, value: str, unit: str, expected: str | None
) -> None:
    assert _verdict(question, value, unit) == expected


# -- properties ----------------------------------------------------------------------------
_SCALES = {"百万元": 6, "亿元": 8, "万元": 4, "万亿元": 12}


def _written(value_base: Decimal, power: int, places: int) -> str:
    shown = (value_base / Decimal(10) ** power).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{shown:f}"


def _numbers(text: str) -> set[Decimal]:
    return {Decimal(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


@settings(max_examples=200, deadline=None)
@given(
    tenths=st.integers(min_value=1, max_value=10**9),
    scale=st.sampled_from(sorted(_SCALES)),
    places=st.integers(min_value=0, max_value=4),
    language=st.sampled_from(["zh", "en"]),
)
def test_the_facts_own_figure_in_any_scale_is_yes_or_approximately(
    tenths: int, scale: str, places: int, language: str
) -> None:
    """The stored figure asked back in any scale, rounded half-up to any number of places, is
    `yes` when the rounding lost nothing and `yes, approximately` otherwise; one unit more at the
    coarser precision is `no`. The verdict line states no number but the two figures."""
    fact = _fact(f"{Decimal(tenths).scaleb(-1):f}", "CNY_M")  # stored to the 0.1 百万元
    base = fact.value * 10**6
    power = _SCALES[scale]
    written = _written(base, power, places)
    if Decimal(written) == 0:
        return
    checked = figure_checked(f"营收是不是{written}{scale}？")
    assert checked is not None
    exact = Decimal(written) * Decimal(10) ** power == base
    assert figure_verdict(checked, fact) == (YES if exact else APPROXIMATELY)
    line = verdict_line(checked, fact, _glossary(), language)
    assert line is not None and line.startswith(("是的", "Yes"))
    assert _numbers(line) <= _numbers(written) | _numbers(f"{fact.value:,f}")
    step = max(Decimal(1).scaleb(-places) * Decimal(10) ** power, Decimal("0.1") * 10**6)
    wrong = (Decimal(written) * Decimal(10) ** power + step) / Decimal(10) ** power
    off = figure_checked(f"营收是不是{wrong:f}{scale}？")
    assert off is not None and figure_verdict(off, fact) == NO
    no_line = verdict_line(off, fact, _glossary(), language)
    assert no_line is not None and no_line.startswith(("不是", "No."))


def _glossary() -> GlossarySnapshot:
    return demo_glossary()
