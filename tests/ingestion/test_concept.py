"""`concept_key` / `same_concept`: formatting never changes a label's concept, a content word
always does, whatever the word (Hypothesis over names built from a statement's characters)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ingestion.tables.concept import concept_key, same_concept

# Characters statements build item names from, without the words that name nothing (的 及 与 …).
CONTENT = (
    "营业收入成本利润总净资产负债现金流量投资经营筹资费用税金附加研发管理销售"
    "财务得每股收益综合额计动非外其他少数归属母公司期初末余职工人员率"
)
names = st.text(alphabet=CONTENT, min_size=2, max_size=10)
FORMATTING = st.sampled_from(["", "一、", "（一）", "1.", "加：", "减：", "其中：", "三、加："])
UNITS = st.sampled_from(
    ["", "（元）", "（元/股）", "(%)", "（人）", "（万元）", "(in millions)", "（亏损以“－”号填列）"]
)


@given(name=names, before=FORMATTING, after=UNITS)
def test_formatting_around_a_name_keeps_its_concept(name: str, before: str, after: str) -> None:
    assert same_concept(f"{before}{name}{after}", name)


@given(name=names, word=st.text(alphabet=CONTENT, min_size=1, max_size=3), at=st.integers(min_value=0))
def test_a_content_word_anywhere_in_a_name_makes_another_concept(name: str, word: str, at: int) -> None:
    at %= len(name) + 1
    assert not same_concept(name[:at] + word + name[at:], name)


@given(name=names)
def test_the_key_is_idempotent(name: str) -> None:
    assert concept_key(concept_key(name)) == concept_key(name)


@pytest.mark.parametrize(
    ("label", "name", "same"),
    [
        # formatting and words that name nothing
        ("四、净利润（净亏损以“－”号填列）", "净利润", True),
        ("（二）稀释每股收益(元/股)", "稀释每股收益", True),
        ("其中：营业成本", "营业成本", True),
        ("归属于母公司股东的净利润", "归属母公司所有者净利润", True),
        ("收回投资与取得投资收益的现金", "收回投资和取得投资收益的现金", True),
        ("Revenues ($ in millions)", "Revenue", True),
        ("Total stockholders' equity", "Total shareholders' equity", True),
        ("Cost of sales", "cost sales", True),
        # a word of content, wherever it is and whatever it says
        ("加：营业外收入", "营业收入", False),
        ("其他收益", "收益", False),
        ("营业外支出", "营业支出", False),
        ("营业总收入", "营业收入", False),
        ("少数股东损益", "损益", False),
        ("基本每股收益", "收益", False),
        ("毛利率", "毛利", False),
        ("现金的期初余额", "现金的期末余额", False),
        ("Non-operating income", "Operating income", False),
        ("Other income", "Income", False),
        ("Net income attributable to noncontrolling interests", "Net income", False),
        # nothing left is no concept
        ("其中：", "", False),
        ("（元）", "（人）", False),
    ],
)
def test_a_label_is_a_name_printed_another_way_only_by_formatting(label: str, name: str, same: bool) -> None:
    assert same_concept(label, name) is same
