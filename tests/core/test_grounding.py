"""The numeric grounding check against a lying model (red-team findings on `numbers_ground`).

Each invented figure below got past the check once; each is now a failing sentence. The
controls beside them are true restatements that must stay.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.grounding import SENTENCE, numbers_ground

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


DEMO_DOCS = sorted((Path(__file__).resolve().parents[2] / "demo" / "docs").glob("*.md"))


@pytest.mark.parametrize("doc", DEMO_DOCS, ids=lambda p: p.name)
def test_every_demo_sentence_grounds_against_itself(doc: Path) -> None:
    # The extractive (no-LLM) answers quote these sentences; none may lose a figure.
    for line in doc.read_text(encoding="utf-8").splitlines():
        for sentence in SENTENCE.findall(line):
            assert numbers_ground(sentence, snippets=[sentence]) == (sentence, 0), sentence


def test_the_demo_documents_exist() -> None:
    assert len(DEMO_DOCS) >= 7
