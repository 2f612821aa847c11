from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import GlossarySnapshot
from core.model.period import Period
from core.parse.intent import is_inconclusive, parse_intent

REF = date(2026, 3, 15)


@pytest.mark.parametrize(
    ("question", "route", "metric", "entity", "period", "channel"),
    [
        ("中国内地FY2025的营收是多少", "structured", "REVENUE", "ACME_CN", "FY2025", "TOTAL"),
        ("中国内地线上渠道2025财年收入是多少", "structured", "REVENUE", "ACME_CN", "FY2025", "ONLINE"),
        ("集团上季度营收是多少", "structured", "REVENUE", "ACME_GROUP", "2025Q4", "TOTAL"),
        ("What was ACME Group revenue in FY2023?", "structured", "REVENUE", "ACME_GROUP", "FY2023", "TOTAL"),
        ("香港收入为什么下降", "composite", "REVENUE", "ACME_HK", None, "TOTAL"),
        ("毛利率下降的原因是什么", "composite", "GROSS_MARGIN", None, None, "TOTAL"),
        ("最近有哪些监管政策变化", "narrative", None, None, None, "TOTAL"),
        ("哪些文件提到了存储芯片", "find_documents", None, None, None, "TOTAL"),
        ("2025年利润是多少", "structured", None, None, "FY2025", "TOTAL"),
        ("Why did gross margin decline?", "composite", "GROSS_MARGIN", None, None, "TOTAL"),
    ],
)
def test_slots_and_routes(glossary: GlossarySnapshot, question, route, metric, entity, period, channel) -> None:
    intent = parse_intent(question, glossary, REF)
    assert intent.route == route
    assert intent.metric == metric
    assert intent.entity == entity
    assert (intent.period.label if intent.period else None) == period
    assert intent.channel == channel
    assert intent.routing.mode == "deterministic"
    assert intent.routing.reason


def test_listed_values_fill_the_multi_value_slots(glossary: GlossarySnapshot) -> None:
    intent = parse_intent("香港和东南亚2024年和2025年的营收和毛利率", glossary, REF)
    assert intent.entities == ("ACME_HK", "ACME_SEA")
    assert intent.periods == (Period("FY", "2024"), Period("FY", "2025"))
    assert intent.metrics == ("REVENUE", "GROSS_MARGIN")


def test_language_follows_the_question(glossary: GlossarySnapshot) -> None:
    assert parse_intent("HK revenue 2025", glossary, REF).language == "en"
    assert parse_intent("香港营收", glossary, REF).language == "zh"


def test_unknown_words_are_reported_for_the_glossary_gap(glossary: GlossarySnapshot) -> None:
    intent = parse_intent("2025年利润是多少", glossary, REF)
    assert "利润" in intent.unrecognized_terms


def test_no_slot_and_no_cue_is_inconclusive(glossary: GlossarySnapshot) -> None:
    assert is_inconclusive(parse_intent("你好", glossary, REF))
    assert not is_inconclusive(parse_intent("香港营收", glossary, REF))


def test_a_glossary_of_the_other_kind_cannot_capture_a_metric_inside_a_name(glossary: GlossarySnapshot) -> None:
    intent = parse_intent("集团新开门店数", glossary, REF)
    assert intent.channel == "TOTAL" and not intent.channel_given


EXTERNAL_TEXTS = ["竞安", "中国竞安", "华鼎", "Huading", "北辰", "Jingcheng"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*EXTERNAL_TEXTS, "中国", "香港", "营收", "2025年", "是多少", " ", "HK", "的", "\u200b"]),
        max_size=8,
    )
)
def test_no_output_slot_refers_to_an_external_entity(glossary: GlossarySnapshot, parts: list[str]) -> None:
    intent = parse_intent("".join(parts), glossary, REF)
    for code in (intent.entity, *intent.entities):
        assert code is None or not glossary.is_external(code)


@pytest.mark.parametrize(
    "question",
    [
        "最近的监管政策怎么样",
        "竞争对手为什么增长",
        "行业增速为什么放缓",
        "哪个地区的监管最严格",
        "市场份额的变化趋势",
        "各地区的监管政策有什么变化",
        "线上退货率为什么上升",
        "Why is the competitor growing so fast?",
        "Why is regulation tightening in the top markets?",
    ],
)
def test_narrative_questions_with_operator_words_stay_narrative(glossary: GlossarySnapshot, question: str) -> None:
    intent = parse_intent(question, glossary, REF)
    assert intent.route == "narrative" and intent.metric is None
    assert intent.operation is None and intent.entities == ()  # no computation, no list expanded


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("集团2025年营收同比下降了多少", "structured"),  # 下降 is the direction of the growth asked for
        ("香港营收同比为什么下降", "composite"),  # an explicit why keeps the explanation
        ("香港收入为什么下降", "composite"),
        ("集团营收下降", "composite"),  # no operation: movement words still ask for the narrative
        ("哪些文件提到了营收同比增长", "find_documents"),
    ],
)
def test_an_operation_with_a_metric_is_structured_unless_asked_why(
    glossary: GlossarySnapshot, question: str, route: str
) -> None:
    assert parse_intent(question, glossary, REF).route == route


def test_every_named_channel_is_kept_in_order(glossary: GlossarySnapshot) -> None:
    intent = parse_intent("中国内地2025年门店和线上收入", glossary, REF)
    assert intent.channels == ("STORE", "ONLINE") and intent.channel == "STORE" and intent.channel_given
    plain = parse_intent("中国内地2025年收入", glossary, REF)
    assert plain.channels == () and plain.channel == "TOTAL" and not plain.channel_given
