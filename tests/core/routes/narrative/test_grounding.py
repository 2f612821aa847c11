"""The numeric grounding check against a lying model (red-team findings on `numbers_ground`).

Each invented figure below got past the check once; each is now a failing sentence. The
controls beside them are true restatements that must stay.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.routes.narrative.grounding import SENTENCE, numbers_ground

SOURCES = [
    "2025财年，集团实现营业收入1,284.5亿元，同比增长8.5%。中国内地营业收入同比增长10.0%，"
    "其中线上渠道收入同比增长21.2%。",
    "集团毛利率由上年的31.9%下降至29.7%。东南亚营业收入同比增长59.7%，但仍处于投入期，全年营业利润为亏损10.85亿元。",
]


def removed(claim: str) -> int:
    return numbers_ground(claim, snippets=SOURCES)[1]


@pytest.mark.parametrize(
    "lie",
    [
        "中国内地线上渠道收入同比出现21.2%的下滑。",
        "线上渠道收入同比下挫21.2%。",
        "中国内地营业收入较上年缩水10.0%。",
        "Online revenue slumped 21.2% year on year.",
        "Mainland China revenue saw a 10.0% decline.",
        "Mainland revenue contracted 10.0%.",
        "线上渠道收入21.2%的降幅主要来自直播。",
        "东南亚营业利润盈利10.85亿元。",
        "东南亚营业利润10.85亿元。",
        "东南亚营业利润减少10.85亿元。",
    ],
)
def test_a_direction_that_no_source_states_is_unsupported(lie: str) -> None:
    assert removed(lie) >= 1


@pytest.mark.parametrize(
    "lie",
    [
        "毛利率同比下降2.2pct。",
        "毛利率同比-2.2ppt。",
        "集团营业收入达1.5e9 yuan。",
        "线上渠道收入有望达到US$1.5tn。",
        "线上渠道收入增长3x。",
        "东南亚业务营收约为MYR1.2bn。",
        "东南亚业务营收为THB30bn。",
        "东南亚业务营收约为MYR 1.2bn。",
        "线上渠道收入来自iphone15。",
        "线上渠道收入增长21.2%，5g用户贡献最大。",
    ],
)
def test_a_number_glued_to_letters_is_a_claim(lie: str) -> None:
    assert removed(lie) >= 1


@pytest.mark.parametrize(
    "lie",
    [
        "线上渠道收入约占中国内地收入的三分之一。",
        "线上渠道退货率约千分之五。",
        "线上渠道商品普遍打七折销售。",
        "线上渠道收入同比翻倍。",
        "Online revenue doubled.",
        "集团营业收入同比零增长。",
        "门店数增加Ⅻ家。",
        "门店总数三百家。",
        "集团活跃会员人数六千万。",
        "线上渠道收入约占1/3。",
    ],
)
def test_chinese_and_other_written_forms_are_claims(lie: str) -> None:
    assert removed(lie) >= 1


@pytest.mark.parametrize(
    "lie",
    [
        "ACME线上市场份额位居行业第2。",
        "ACME位列行业top3。",
        "ACME行业排名第二。",
        "ACME is No.1 online.",
        "ACME行业排名：第一，领先同业。",
        "ACME ranks 2nd.",
    ],
)
def test_an_invented_rank_is_a_claim(lie: str) -> None:
    assert removed(lie) >= 1


@pytest.mark.parametrize(
    "truth",
    [
        "线上渠道收入同比增长21.2%。",
        "线上渠道收入实现21.2%的增长。",
        "Online revenue rose 21.2%.",
        "线上渠道收入的增幅为21.2%。",
        "线上渠道收入21.2%。",
        "全年营业利润为亏损10.85亿元。",
        "东南亚营业利润-10.85亿元。",
        "东南亚亏损10.85亿元。",
        "东南亚录得10.85亿元的亏损。",
        "毛利率下降至29.7%。",
        "毛利率从31.9%降至29.7%。",
        "第一，线上渠道收入同比增长21.2%；第二，东南亚营业收入同比增长59.7%。",
        "主要有两个原因。",
        "FY2025营业收入1,284.5亿元。",
    ],
)
def test_a_true_restatement_is_kept(truth: str) -> None:
    assert numbers_ground(truth, snippets=SOURCES) == (truth, 0)


DEMO_DOCS = sorted((Path(__file__).resolve().parents[4] / "demo" / "docs").glob("*.md"))


@pytest.mark.parametrize("doc", DEMO_DOCS, ids=lambda p: p.name)
def test_every_demo_sentence_grounds_against_itself(doc: Path) -> None:
    # The extractive (no-LLM) answers quote these sentences; none may lose a figure.
    for line in doc.read_text(encoding="utf-8").splitlines():
        for sentence in SENTENCE.findall(line):
            assert numbers_ground(sentence, snippets=[sentence]) == (sentence, 0), sentence


def test_the_demo_documents_exist() -> None:
    assert len(DEMO_DOCS) >= 7


# -- a property: any rendering of a source figure is supported, any change of it is not -------
# How a figure may be written: (template, the divisor its digits are shown in).
FORMS = {
    "money": [
        ("{}元", 1),
        ("{}万元", 10**4),
        ("{}亿元", 10**8),
        ("rmb{}亿", 10**8),
        ("RMB{}bn", 10**9),
        ("{} million yuan", 10**6),
    ],
    "percent": [("{}%", 1), ("{}％", 1), ("{} percent", 1), ("百分之{}", 1)],
    "points": [("{}个百分点", 1), ("{}pp", 1), ("{} percentage points", 1), ("{}bps", Decimal("0.01"))],
    "count": [("{}家", 1), ("{} stores", 1), ("{}万家", 10**4)],
    "times": [("{}倍", 1), ("{}x", 1), ("{} times", 1)],
}
# How its direction may be written, in either language, before or after it.
DIRECTIONS = {
    "level": ["为{}", "was {}"],
    "rise": ["同比增长{}", "实现{}的增长", "rose {}", "up {}"],
    "fall": ["同比下降{}", "同比出现{}的下滑", "下挫了{}", "fell {}", "saw a {} decline"],
    "loss": ["亏损{}", "录得{}的亏损", "a net loss of {}"],
    "minus": ["为-{}"],
}
NEGATIVE = {"fall", "loss", "minus"}


def _agrees(source: str, claim: str) -> bool:
    """The direction rule: the same sign, a minus for a fall or a loss, or a level for a fall."""
    if claim == source or {claim, source} in ({"fall", "minus"}, {"loss", "minus"}):
        return True
    if claim == "level":
        return source in ("rise", "fall")  # a level drops a fall; never a minus or a loss
    return claim == "rise" and source == "level"  # both positive


def _render(value: Decimal, kind: str, form: int, direction: str, phrasing: int) -> str:
    template, divisor = FORMS[kind][form % len(FORMS[kind])]
    shown = f"{(value / divisor).normalize():f}"
    phrases = DIRECTIONS[direction]
    return phrases[phrasing % len(phrases)].format(template.format(shown))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    cents=st.integers(min_value=1, max_value=10**9),
    kind=st.sampled_from(sorted(FORMS)),
    forms=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    directions=st.tuples(st.sampled_from(sorted(DIRECTIONS)), st.sampled_from(sorted(DIRECTIONS))),
    phrasings=st.tuples(st.integers(0, 4), st.integers(0, 4)),
)
def test_a_figure_is_supported_in_any_form_and_direction_and_no_change_of_it_is(
    cents: int,
    kind: str,
    forms: tuple[int, int],
    directions: tuple[str, str],
    phrasings: tuple[int, int],
) -> None:
    value = Decimal(cents) / 100 * (10**6 if kind in ("money", "count") else 1)
    source_direction, claim_direction = directions
    snippet = f"据披露，该项{_render(value, kind, forms[0], source_direction, phrasings[0])}。"

    def removed(claim_value: Decimal, claim_kind: str, direction: str, form: int = forms[1]) -> int:
        claim = f"该项{_render(claim_value, claim_kind, form, direction, phrasings[1])}。"
        return numbers_ground(claim, snippets=[snippet])[1]

    agrees = _agrees(source_direction, claim_direction)
    assert removed(value, kind, claim_direction) == (0 if agrees else 1)
    # The source's own direction in any other form and phrasing is support; any change is not.
    assert removed(value, kind, source_direction) == 0
    divisor = FORMS[kind][forms[1] % len(FORMS[kind])][1]
    assert removed(value + Decimal(divisor) / 100, kind, source_direction) == 1
    other_kind = {"money": "percent", "percent": "points", "points": "percent", "count": "money", "times": "count"}
    assert removed(value, other_kind[kind], source_direction, form=0) == 1
    if kind in ("money", "count"):  # the same digits at another scale
        other = next(i for i, (_, d) in enumerate(FORMS[kind]) if d != divisor)
        assert removed(value / divisor * FORMS[kind][other][1], kind, source_direction, form=other) == 1
    flipped = {"level": "fall", "rise": "fall", "fall": "rise", "loss": "level", "minus": "level"}
    assert removed(value, kind, flipped[source_direction]) == 1
