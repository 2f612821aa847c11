"""The written A-not-A (`是否`, `能否`, `可否`, with the copula after it: `是否为`, `是否是`) asks yes
or no of the figure, as `是不是` does: a frame, never part of a longer term; and a verb before a
yes/no word heads its phrase as it does before the copula (`营收预算是不是…` is the budget)."""

from __future__ import annotations

import pytest

from core.parse.intent import parse_intent
from tests.core.support.glossaries import COMPUTED, REF


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("香港2024年营收是否为2.5万亿元？", "REVENUE"),
        ("香港2024年营业收入是否为2.5万亿元？", "REVENUE"),
        ("香港2024年毛利率是否为30%", "GROSS_MARGIN"),
        ("香港2024年营收是否是2.5万亿", "REVENUE"),
        ("香港2024年营收可否为250亿", "REVENUE"),
        ("香港2024年营收能否达到250亿", "REVENUE"),
    ],
)
def test_whether_and_the_copula_are_frames(question: str, metric: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metric == metric
    assert intent.entity == "ACME_HK" and intent.period is not None and intent.period.label == "FY2024"


@pytest.mark.parametrize("question", ["营收预算是不是1000亿", "营收预算是否为1000亿", "营收预算是否1000亿"])
def test_a_verb_before_a_yes_no_word_names_another_figure(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is not None and intent.metric is None
