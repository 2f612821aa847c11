"""Operators read from the question: a table of Chinese and English questions and the
operation, slots and route each must parse to, plus the properties that hold for any question."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import GlossarySnapshot
from core.model.intent import ParsedIntent
from core.model.operation import OP_SHARE, OPERATION_KINDS
from core.parse.intent import parse_intent
from tests.core.support.glossaries import (
    CHANNELS,
    COMPUTED,
    REF,
    SUBSIDIARIES,
    UNDEFINED,
    glossary_with_metric,
)


def parsed(question: str, glossary: GlossarySnapshot = COMPUTED) -> ParsedIntent:
    return parse_intent(question, glossary, REF)


def op_fields(intent: ParsedIntent) -> dict[str, Any]:
    op = intent.operation
    if op is None:
        return {"op": None}
    return {
        "op": op.kind,
        "comparison": op.comparison,
        "order": op.order,
        "top": op.top,
        "decimals": op.decimals,
        "over": op.over,
    }


def check(intent: ParsedIntent, expected: dict[str, Any]) -> None:
    got = {
        **op_fields(intent),
        "metrics": intent.metrics,
        "entities": intent.entities,
        "periods": tuple(p.label for p in intent.periods),
        "channels": intent.channels,
        "unknown": intent.unknown_metric,
        "route": intent.route,
        "decimals_asked": intent.decimals,
    }
    assert {k: got[k] for k in expected} == expected


# question → what it must parse to; keys left out are not checked (the op's own fields only
# when the op is named). `periods` are labels; `unknown` is `unknown_metric`.
TABLE: list[tuple[str, dict[str, Any]]] = [
    # -- the golden questions of computed.jsonl -------------------------------------------------
    (
        "集团2025年营收同比增长多少",
        dict(
            op="growth",
            comparison="yoy",
            metrics=("REVENUE",),
            entities=("ACME_GROUP",),
            periods=("FY2025",),
            route="structured",
        ),
    ),
    (
        "集团2025年营业利润率是多少",
        dict(op=None, metrics=("OPERATING_MARGIN",), entities=("ACME_GROUP",), periods=("FY2025",), route="structured"),
    ),
    (
        "2025年哪个地区营收最高",
        dict(
            op="rank",
            order="desc",
            top=None,
            over="entities",
            metrics=("REVENUE",),
            entities=SUBSIDIARIES,
            periods=("FY2025",),
            route="structured",
        ),
    ),
    (
        "2025年香港和东南亚营收合计是多少",
        dict(op="sum", metrics=("REVENUE",), entities=("ACME_HK", "ACME_SEA"), channels=("TOTAL",), route="structured"),
    ),
    (
        "集团2025年毛利率同比变化多少个百分点",
        dict(
            op="growth",
            comparison="yoy",
            metrics=("GROSS_MARGIN",),
            entities=("ACME_GROUP",),
            periods=("FY2025",),
            route="structured",
        ),
    ),
    (
        "东南亚2025年净利率是多少",
        dict(op=None, metrics=("NET_MARGIN",), entities=("ACME_SEA",), unknown=None, route="structured"),
    ),
    (
        "What was the group's revenue growth in 2025?",
        dict(op="growth", comparison="yoy", metrics=("REVENUE",), periods=("FY2025",), route="structured"),
    ),
    ("那香港呢？", dict(op=None, metrics=(), entities=("ACME_HK",), route="narrative")),
    ("最近的监管政策怎么样", dict(op=None, metrics=(), route="narrative")),
    # -- growth, zh ----------------------------------------------------------------------------------
    (
        "集团营收较上年增长了多少",
        dict(op="growth", comparison="yoy", metrics=("REVENUE",), periods=(), route="structured"),
    ),
    ("集团2025年营收较去年同期增长多少", dict(op="growth", comparison="yoy", periods=("FY2025",), route="structured")),
    ("集团2025年营收比去年增长多少", dict(op="growth", comparison="yoy", periods=("FY2025",))),
    ("香港2025年上半年营收同比增长率", dict(op="growth", comparison="yoy", entities=("ACME_HK",), periods=("2025H1",))),
    ("集团2025年1-6月营收同比增速", dict(op="growth", comparison="yoy", periods=("2025H1",))),
    ("集团24年营收增幅", dict(op="growth", comparison="yoy", periods=("FY2024",), route="structured")),
    ("集团2025年营收增长率", dict(op="growth", metrics=("REVENUE",), unknown=None, route="structured")),
    ("集团2025年第四季度营收环比增长多少", dict(op="growth", comparison="qoq", periods=("2025Q4",))),
    ("香港2025年第四季度营收较上季度增长多少", dict(op="growth", comparison="qoq", periods=("2025Q4",))),
    (
        "集团毛利率同比下降了多少个百分点",
        dict(op="growth", comparison="yoy", metrics=("GROSS_MARGIN",), route="structured"),
    ),
    ("集团2025年营收同比增长多少，保留两位小数", dict(op="growth", decimals=2, decimals_asked=2)),
    ("集团2025年营收同比增长率，保留3位小数", dict(op="growth", decimals=3)),
    # -- cagr, difference, share, ratio, sum, zh ---------------------------------------------------
    ("集团2021年至2025年营收的年均复合增长率", dict(op="cagr", periods=("FY2021", "FY2025"), route="structured")),
    ("集团2021-2025年营收复合增长率是多少", dict(op="cagr", metrics=("REVENUE",))),
    ("集团2025年营收较2023年增加了多少", dict(op="difference", periods=("FY2025", "FY2023"), route="structured")),
    ("香港和东南亚2025年营收相差多少", dict(op="difference", entities=("ACME_HK", "ACME_SEA"))),
    ("2025年香港营收比东南亚多多少", dict(op="difference", entities=("ACME_HK", "ACME_SEA"))),
    (
        "香港2025年营收占集团的比重",
        dict(op="share", entities=("ACME_HK", "ACME_GROUP"), metrics=("REVENUE",), route="structured"),
    ),
    ("香港2025年营收占集团营收的比例是多少", dict(op="share", entities=("ACME_HK", "ACME_GROUP"))),
    ("2025年线上收入占比", dict(op="share", channels=("ONLINE",), metrics=("REVENUE",))),
    ("集团2025年线上收入占集团营收的比重", dict(op="share", channels=("ONLINE",), entities=("ACME_GROUP",))),
    ("集团2025年营业利润与营收之比", dict(op="ratio", metrics=("OPERATING_PROFIT", "REVENUE"), route="structured")),
    ("集团2025年营业利润和营收的比值", dict(op="ratio", metrics=("OPERATING_PROFIT", "REVENUE"))),
    ("2025年香港营收是东南亚的几倍", dict(op="ratio", entities=("ACME_HK", "ACME_SEA"))),
    ("集团2025年线上和门店收入合计", dict(op="sum", channels=("ONLINE", "STORE"), entities=("ACME_GROUP",))),
    ("2025年香港和东南亚营收一共多少", dict(op="sum", entities=("ACME_HK", "ACME_SEA"))),
    ("集团2025年营收（不含香港）是多少", dict(op="exclude", entities=("ACME_GROUP", "ACME_HK"), metrics=("REVENUE",))),
    (
        "What was ACME Group's FY2025 revenue excluding Hong Kong?",
        dict(op="exclude", entities=("ACME_GROUP", "ACME_HK")),
    ),
    ("2025年营业利润为负的地区有哪些", dict(op="filter", metrics=("OPERATING_PROFIT",))),
    ("Which regions grew revenue faster than 10% in FY2025?", dict(op="filter", metrics=("REVENUE",))),
    ("2025年各子公司营收合计", dict(op="sum", over="entities", entities=SUBSIDIARIES)),
    ("香港2025年营收合计是多少", dict(op=None, channels=("TOTAL",), entities=("ACME_HK",), route="structured")),
    ("集团2025年营收总共多少", dict(op=None, entities=("ACME_GROUP",))),
    # -- rank and lists, zh ------------------------------------------------------------------------------
    ("集团2025年哪个地区营收最高", dict(op="rank", order="desc", over="entities", entities=SUBSIDIARIES)),
    ("2025年营收最低的子公司", dict(op="rank", order="asc", over="entities", entities=SUBSIDIARIES)),
    ("2025年营收排名前两位的地区", dict(op="rank", order="desc", top=2, entities=SUBSIDIARIES)),
    ("2025年各地区营收排名前二", dict(op="rank", top=2, over="entities", entities=SUBSIDIARIES)),
    ("2025年营收最高的两个地区", dict(op="rank", order="desc", top=2, entities=SUBSIDIARIES)),
    ("香港2025年第四季度营收较第三季度增长多少", dict(op="difference", periods=("2025Q4", "2025Q3"))),
    ("2025年营收前三名", dict(op="rank", top=3, entities=SUBSIDIARIES, route="structured")),
    ("集团2025年哪个渠道收入最高", dict(op="rank", over="channels", channels=CHANNELS, entities=("ACME_GROUP",))),
    ("2025年香港和东南亚哪个营收更高", dict(op="rank", entities=("ACME_HK", "ACME_SEA"))),
    ("2025年各地区营收", dict(op=None, entities=SUBSIDIARIES, metrics=("REVENUE",), route="structured")),
    ("集团2025年各渠道营收", dict(op=None, channels=CHANNELS, entities=("ACME_GROUP",))),
    ("集团2025年前三季度营收", dict(op="sum", periods=("2025Q1", "2025Q2", "2025Q3"))),  # Q1+Q2+Q3
    ("集团2025年前三季度营收同比增长多少", dict(op="growth", periods=())),
    ("2025年哪个地区利润最高", dict(op="rank", metrics=(), entities=SUBSIDIARIES, route="structured")),
    # -- periods and channels ------------------------------------------------------------------------
    ("集团2025年第三季度和第四季度营收", dict(op=None, periods=("2025Q3", "2025Q4"))),
    ("中国内地2025年线上和门店收入", dict(op=None, channels=("ONLINE", "STORE"), entities=("ACME_CN",))),
    ("集团2025年营业利润率是多少，保留三位小数", dict(op=None, decimals_asked=3)),
    # -- never a shorter alias: a term no one defined ------------------------------------------------
    ("集团2025年营收和毛利率", dict(op=None, metrics=("REVENUE", "GROSS_MARGIN"), unknown=None)),
    # -- routes that must not move -------------------------------------------------------------------------
    ("香港收入为什么下降", dict(op=None, route="composite")),
    ("香港营收同比为什么下降", dict(op="growth", route="composite")),
    ("集团营收上升趋势", dict(op=None, route="composite")),
    ("竞争对手为什么增长", dict(op=None, metrics=(), route="narrative")),
    ("哪些文件提到了营收增长率", dict(op=None, route="find_documents")),
    ("2025年利润是多少", dict(op=None, metrics=(), route="structured")),
    ("最大的风险是什么", dict(metrics=(), entities=(), route="narrative")),
    ("那同比呢？", dict(op="growth", metrics=(), route="narrative")),  # read, for a follow-up to use
    # -- English ------------------------------------------------------------------------------------
    (
        "ACME Group revenue YoY in 2025",
        dict(op="growth", comparison="yoy", entities=("ACME_GROUP",), periods=("FY2025",)),
    ),
    ("What was Hong Kong revenue QoQ growth in Q4 2025?", dict(op="growth", comparison="qoq", periods=("2025Q4",))),
    ("Hong Kong revenue growth year-over-year in H1 2025", dict(op="growth", comparison="yoy", periods=("2025H1",))),
    ("How much did ACME Group revenue grow compared with last year?", dict(op="growth", comparison="yoy", periods=())),
    ("ACME Group revenue CAGR from 2021 to 2025", dict(op="cagr", periods=("FY2021", "FY2025"))),
    # -- average over a range -----------------------------------------------------------------------
    ("集团近三年营收平均是多少", dict(op="average", periods=("FY2023", "FY2024", "FY2025"))),
    ("ACME Group revenue on average over 2023-2025", dict(op="average", periods=("FY2023", "FY2024", "FY2025"))),
    ("集团2021年至2025年营收的年均复合增长率", dict(op="cagr", periods=("FY2021", "FY2025"))),
    ("集团2025年营收平均增速", dict(op="growth")),
    (
        "What share of ACME Group revenue came from online in 2025?",
        dict(op="share", channels=("ONLINE",), entities=("ACME_GROUP",)),
    ),
    (
        "Hong Kong revenue as a percentage of ACME Group revenue in 2025",
        dict(op="share", entities=("ACME_HK", "ACME_GROUP")),
    ),
    (
        "ratio of operating profit to revenue for ACME Group in 2025",
        dict(op="ratio", metrics=("OPERATING_PROFIT", "REVENUE")),
    ),
    (
        "Which region had the highest revenue in 2025?",
        dict(op="rank", order="desc", over="entities", entities=SUBSIDIARIES),
    ),
    ("Which subsidiary had the lowest revenue in 2025?", dict(op="rank", order="asc", entities=SUBSIDIARIES)),
    ("Top 2 channels by revenue for ACME Group in 2025", dict(op="rank", top=2, over="channels", channels=CHANNELS)),
    (
        "What was the combined revenue of Hong Kong and Southeast Asia in 2025?",
        dict(op="sum", entities=("ACME_HK", "ACME_SEA")),
    ),
    (
        "Total revenue of Hong Kong and Southeast Asia in 2025",
        dict(op="sum", entities=("ACME_HK", "ACME_SEA"), channels=("TOTAL",)),
    ),
    ("What was ACME Group total revenue in 2025?", dict(op=None, channels=("TOTAL",))),
    ("Online and offline revenue for ACME Group in 2025 in total", dict(op="sum", channels=("ONLINE", "STORE"))),
    (
        "Difference between Hong Kong and Southeast Asia revenue in 2025",
        dict(op="difference", entities=("ACME_HK", "ACME_SEA")),
    ),
    ("ACME Group revenue growth in 2025 to 3 decimal places", dict(op="growth", decimals=3)),
    ("ACME Group gross margin change in percentage points in 2025", dict(op="growth", metrics=("GROSS_MARGIN",))),
    ("ACME Group revenue in Q3 and Q4 2025", dict(op=None, periods=("2025Q3", "2025Q4"))),
    ("Why did ACME Group revenue decline in 2025?", dict(op=None, route="composite")),
    ("What was the most recent revenue of Hong Kong?", dict(op=None, entities=("ACME_HK",))),
]


@pytest.mark.parametrize(("question", "expected"), TABLE, ids=[q for q, _ in TABLE])
def test_operators_slots_and_routes(question: str, expected: dict[str, Any]) -> None:
    check(parsed(question), expected)


def test_the_table_is_broad() -> None:
    assert len(TABLE) >= 60
    assert {e["op"] for _, e in TABLE if e.get("op")} == set(OPERATION_KINDS)
    english = [q for q, _ in TABLE if q.isascii()]
    assert len(english) >= 15


# -- never a shorter alias ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "metrics", "unknown"),
    [
        ("东南亚2025年净利率是多少", (), "净利率"),
        ("集团2025年营业利润率是多少", (), "营业利润率"),
        ("集团营收和净利率", ("REVENUE",), "净利率"),
        ("What was the net profit margin of Southeast Asia in 2025?", (), "net profit margin"),
        ("ACME Group operating profit ratio in 2025", (), "operating profit ratio"),
        ("集团2025年营收增长率", ("REVENUE",), None),
        ("集团2025年毛利率", ("GROSS_MARGIN",), None),
        ("集团2025年净利润是多少", ("NET_PROFIT",), None),
        ("ratio of operating profit to revenue in 2025", ("OPERATING_PROFIT", "REVENUE"), None),
        ("operating profit to revenue ratio in 2025", ("OPERATING_PROFIT", "REVENUE"), None),
    ],
)
def test_an_alias_inside_a_longer_undefined_term_is_not_a_match(question: str, metrics, unknown) -> None:
    intent = parsed(question, UNDEFINED)
    assert (intent.metrics, intent.unknown_metric) == (metrics, unknown)
    if unknown and not metrics:
        assert intent.metric is None and unknown in intent.unrecognized_terms
        assert intent.route == "structured"  # so the clarifier asks back with the closest metrics


def test_the_rule_reads_the_matches_not_a_word_list() -> None:
    """Any metric followed by 率 is a longer term, whatever the metric."""
    glossary = glossary_with_metric(UNDEFINED, "BAD_DEBT", "坏账", "坏账")
    intent = parsed("集团2025年坏账率是多少", glossary)
    assert (intent.metrics, intent.unknown_metric) == ((), "坏账率")
    assert parsed("集团2025年坏账是多少", glossary).metrics == ("BAD_DEBT",)


def test_only_unknown_words_are_reported_as_the_glossary_gap() -> None:
    intent = parsed("2025年哪个地区利润同比增长最高", UNDEFINED)
    assert intent.unrecognized_terms == ("利润",)


def test_function_words_in_a_metric_name_match_the_long_alias() -> None:
    glossary = glossary_with_metric(COMPUTED, "NET_PROFIT_ATTR", "归属母公司所有者净利润", "归属母公司所有者净利润")
    intent = parsed("集团2025年归属于母公司所有者的净利润是多少", glossary)
    assert intent.metrics == ("NET_PROFIT_ATTR",) and intent.entities == ("ACME_GROUP",)
    assert parsed("集团2025年的净利润是多少", glossary).metrics == ("NET_PROFIT",)


# -- the analyst's words in the route reason ---------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("集团2025年营收同比增长多少", "依据：指标 营业收入 · 同比"),
        ("中国内地FY2025的营收是多少", "依据：指标 营业收入"),
        ("2025年哪个地区营收最高", "依据：指标 营业收入 · 最高"),
        ("香港和东南亚2024年和2025年的营收和毛利率", "依据：指标 营业收入、毛利率"),
        ("香港收入为什么下降", "依据：指标 营业收入 · 归因线索「为什么」"),
        ("2025年利润是多少", "依据：数值线索「多少」"),
        ("最近有哪些监管政策变化", "依据：叙述线索「监管」"),
        ("哪些文件提到了存储芯片", "依据：找文件线索「哪些文件」"),
        ("ACME Group revenue YoY in 2025", "Basis: metric revenue · YoY"),
        ("What was ACME Group revenue in FY2023?", "Basis: metric revenue"),
        ("Why did gross margin decline?", 'Basis: metric gross margin · narrative cue "Why"'),
    ],
)
def test_the_route_reason_speaks_the_analysts_language(question: str, reason: str) -> None:
    assert parsed(question).routing.reason == reason


def test_an_undefined_term_is_named_in_the_reason() -> None:
    assert (
        parsed("东南亚2025年净利率是多少", UNDEFINED).routing.reason
        == "依据：数值线索「多少」 · 未识别的指标「净利率」"
    )


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([q for q, _ in TABLE]))
def test_no_reason_shows_a_code(question: str) -> None:
    reason = parsed(question).routing.reason
    codes = [*COMPUTED.metrics, *COMPUTED.entities, *COMPUTED.channels]
    assert reason and not any(code in reason for code in codes)


# -- properties ----------------------------------------------------------------------------------------
ZH_CUES = [
    "同比",
    "环比",
    "增长率",
    "增速",
    "增幅",
    "占比",
    "之比",
    "比值",
    "差额",
    "排名",
    "最高",
    "最低",
    "前三名",
    "保留两位小数",
]
EN_CUES = [" yoy", " qoq", " growth", " cagr", " share of", " highest", " lowest", " ranking", " to 2 decimal places"]
PIECES_ZH = [
    "香港",
    "东南亚",
    "集团",
    "中国内地",
    "营收",
    "毛利率",
    "净利润",
    "新开门店数",
    "2025年",
    "2024年",
    "去年",
    "2025年第三季度",
    "线上",
]
PIECES_EN = ["hong kong", "acme group", "revenue", "gross margin", "net profit", "2025", "fy2024", "online"]


def slots(intent: ParsedIntent) -> tuple[Any, ...]:
    return (intent.metrics, intent.entities, intent.periods, intent.channels, intent.unknown_metric)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.tuples(st.lists(st.sampled_from(PIECES_ZH), min_size=1, max_size=5), st.sampled_from(ZH_CUES), st.just("")),
        st.tuples(st.lists(st.sampled_from(PIECES_EN), min_size=1, max_size=5), st.sampled_from(EN_CUES), st.just(" ")),
    ),
    st.booleans(),
)
def test_an_operator_cue_never_changes_the_slots(case: tuple[list[str], str, str], at_end: bool) -> None:
    pieces, cue, joiner = case
    if not any(p in ("香港", "东南亚", "集团", "中国内地", "hong kong", "acme group") for p in pieces):
        pieces = ["集团" if joiner == "" else "acme group", *pieces]  # a ranking with no entity lists all
    plain = joiner.join(pieces)
    cued = plain + cue if at_end else cue.strip() + joiner + plain
    read, bare = parsed(cued), parsed(plain)
    if read.operation is not None and read.operation.kind == OP_SHARE:
        # a share names its part first and its whole last, whatever order they were said in
        # (`clauses.share_whole_last`): the same entities, ordered as part and whole
        assert sorted(read.entities) == sorted(bare.entities)
        read, bare = replace(read, entities=()), replace(bare, entities=())
    assert slots(read) == slots(bare)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([q for q, _ in TABLE]))
def test_every_operation_is_well_formed(question: str) -> None:
    intent = parsed(question)
    op = intent.operation
    if op is not None:
        assert op.kind in OPERATION_KINDS and op.cue
        assert op.comparison in ("yoy", "qoq") and op.order in ("asc", "desc")
        assert op.top is None or op.top >= 1
        assert op.over in (None, "entities", "channels")
        assert op.decimals == intent.decimals
    for code in intent.entities:
        assert not COMPUTED.is_external(code)
    assert intent.channel == (intent.channels[0] if intent.channels else "TOTAL")


def test_cues_inside_a_metric_name_are_not_operators() -> None:
    from core.parse.cues import cues_read

    glossary = glossary_with_metric(COMPUTED, "REVENUE_GROWTH", "营收增长率", "营收增长率")
    intent = parsed("集团2025年营收增长率是多少", glossary)
    assert intent.metrics == ("REVENUE_GROWTH",) and intent.operation is None
    assert [c.kind for c in cues_read("集团2025年营收增长率是多少", taken=[])] == ["growth"]


def test_a_listed_channel_replaces_the_default_and_keeps_the_first_in_channel() -> None:
    intent = parsed("中国内地2025年线上和门店收入")
    assert intent.channel == "ONLINE" and intent.channel_given
    assert replace(intent, channels=()).channel == "ONLINE"


def test_a_list_word_inside_an_operator_phrase_is_still_read() -> None:
    intent = parsed("集团2025年线上收入占各渠道合计的比重")
    assert intent.operation is not None and intent.operation.kind == "share"
    assert intent.operation.over == "channels"
    assert intent.channels == ("ONLINE",)  # the named part; the whole is its entity's TOTAL


# -- a metric alias inside a longer term no alias covers (redteam A) --------------------------------
# The longer term is the alias with the CJK words right beside it that nothing else reads: no
# name, period, operator cue, question word or filler.
LONGER_TERMS = [
    ("集团2025年归母净利润是多少", "归母净利润"),
    ("集团2025年扣非净利润是多少", "扣非净利润"),
    ("集团2025年付费会员数是多少", "付费会员数"),
    ("集团2025年资本开支回报率是多少", "资本开支回报率"),
    ("集团2025年归属于母公司所有者的净利润是多少", "归属于母公司所有者的净利润"),
    ("请问归母净利润", "归母净利润"),
    ("香港2025年营业外收入", "营业外收入"),
    ("2025年扣非后净利润同比增长多少", "扣非后净利润"),
]


@pytest.mark.parametrize(("question", "term"), LONGER_TERMS, ids=[q for q, _ in LONGER_TERMS])
def test_a_metric_alias_beside_unread_words_is_part_of_a_longer_term(question: str, term: str) -> None:
    intent = parsed(question)
    assert (intent.metrics, intent.unknown_metric) == ((), term)
    assert intent.route == "structured" and term in intent.unrecognized_terms


def test_a_longer_term_beside_a_known_metric_keeps_the_known_one() -> None:
    intent = parsed("集团2025年营收和归母净利润")
    assert (intent.metrics, intent.unknown_metric) == (("REVENUE",), "归母净利润")


def test_the_longer_term_rule_reads_the_glossary_not_a_word_list() -> None:
    """Once a curator adds the longer term as an alias, it is that metric."""
    glossary = glossary_with_metric(COMPUTED, "NET_PROFIT_PARENT", "归母净利润", "归母净利润")
    assert (parsed("集团2025年归母净利润是多少", glossary).metrics, parsed("集团2025年归母净利润").unknown_metric) == (
        ("NET_PROFIT_PARENT",),
        "归母净利润",
    )


# Ordinary questions whose words beside the metric are names, periods, cues, question words or
# filler: each keeps its metric and names no unknown term.
KEEPS_ITS_METRIC: list[tuple[str, tuple[str, ...]]] = [
    ("香港营收", ("REVENUE",)),
    ("集团的净利润", ("NET_PROFIT",)),
    ("请问净利润", ("NET_PROFIT",)),
    ("营收同比", ("REVENUE",)),
    ("哪个地区营收最高", ("REVENUE",)),
    ("线上收入占比", ("REVENUE",)),
    ("2025年营收前两名", ("REVENUE",)),
    ("净利润和营收合计", ("NET_PROFIT", "REVENUE")),
    ("营收是多少呢", ("REVENUE",)),
    ("上半年营收", ("REVENUE",)),
    ("香港地区的营收", ("REVENUE",)),
    ("东南亚市场营收是多少", ("REVENUE",)),
    ("集团线上渠道收入", ("REVENUE",)),
    ("公司去年营收", ("REVENUE",)),
    ("集团在香港的营收", ("REVENUE",)),
    ("集团全年营收", ("REVENUE",)),
    ("集团2025年营收总额", ("REVENUE",)),
    ("2025年营收规模有多大", ("REVENUE",)),
    ("香港营收情况", ("REVENUE",)),
    ("中国内地营收数据", ("REVENUE",)),
    ("集团营收为多少", ("REVENUE",)),
    ("集团营收同比增长多少", ("REVENUE",)),
    ("集团营收较上年增长了多少", ("REVENUE",)),
    ("集团新开门店数量", ("NEW_STORES",)),
    ("帮我查一下营收", ("REVENUE",)),
    ("告诉我香港的毛利率", ("GROSS_MARGIN",)),
    ("营收和毛利分别是多少", ("REVENUE", "GROSS_PROFIT")),
    ("香港营收比东南亚多多少", ("REVENUE",)),
    ("各地区营收排名", ("REVENUE",)),
    ("今年一季度营收", ("REVENUE",)),
    ("2025年1-6月营收", ("REVENUE",)),
    ("营收为什么下降", ("REVENUE",)),
    ("我们的营收是多少", ("REVENUE",)),
    ("集团营收大约多少", ("REVENUE",)),
    ("集团整体营收", ("REVENUE",)),
    ("香港子公司营收", ("REVENUE",)),
    ("去年同期营收", ("REVENUE",)),
    ("集团2025年营收是多少亿元", ("REVENUE",)),
    ("香港营收占集团的比重", ("REVENUE",)),
    ("最新的营收", ("REVENUE",)),
    ("集团2025年营收增长率", ("REVENUE",)),
    ("2025年营收最少的地区", ("REVENUE",)),
    ("营收排在最后的地区", ("REVENUE",)),
    ("2025年营收第二名是哪个地区", ("REVENUE",)),
]


@pytest.mark.parametrize(("question", "metrics"), KEEPS_ITS_METRIC, ids=[q for q, _ in KEEPS_ITS_METRIC])
def test_ordinary_words_beside_a_metric_keep_it(question: str, metrics: tuple[str, ...]) -> None:
    intent = parsed(question)
    assert (intent.metrics, intent.unknown_metric) == (metrics, None)


def test_the_ordinary_questions_are_many() -> None:
    assert len(KEEPS_ITS_METRIC) >= 30


# -- unknown Latin metric-like terms (redteam I) --------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("集团2025年ROA是多少", "ROA"),
        ("集团2025年EBITDA是多少", "EBITDA"),
        ("香港2025年GMV", "GMV"),
        ("What was ACME Group EBIT in 2025?", "EBIT"),
        ("What was ACME Group EBITDA margin in 2025?", "EBITDA margin"),
        ("集团2025年营收和EBITDA", "EBITDA"),
    ],
)
def test_an_unknown_acronym_asking_for_a_number_is_an_unknown_metric(question: str, term: str) -> None:
    intent = parsed(question)
    assert intent.unknown_metric == term and intent.route == "structured"
    assert "REVENUE" not in intent.metrics or "营收" in question


@pytest.mark.parametrize(
    "question",
    [
        "What was Hong Kong revenue in FY2025 in USD?",
        "ACME Group revenue YoY in 2025",
        "集团2025年ROE是多少",
        "ACME Group revenue CAGR from 2021 to 2025",
        "集团的AI战略",
        "HK revenue Q3 2025",
    ],
)
def test_known_or_non_metric_acronyms_are_not_unknown_metrics(question: str) -> None:
    assert parsed(question).unknown_metric is None


# -- a company the glossary does not know (redteam J) ---------------------------------------------------
@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("腾讯2025年营收", "腾讯"),
        ("请问腾讯2025年的营收是多少", "腾讯"),
        ("Tencent revenue in 2025", "Tencent"),
        ("What was Tencent's revenue in 2025?", "Tencent"),
        ("中国平安2025年营收", "中国平安"),  # holds the alias 中国
        ("腾讯集团2025年营收是多少", "腾讯集团"),  # holds the alias 集团
        ("ACME日本2025年营收", "ACME日本"),  # a Latin alias with Chinese words glued to it
        ("ACME新加坡2025年营收是多少", "ACME新加坡"),
    ],
)
def test_an_unknown_name_in_entity_position_is_never_the_home_entity(question: str, term: str) -> None:
    intent = parsed(question)
    assert intent.entities == () and intent.unknown_metric == term
    assert intent.metrics == ("REVENUE",) and intent.route == "structured"


@pytest.mark.parametrize(
    "question",
    [
        "2025年营收",
        "公司2025年营收",
        "今年营收是多少",
        "What was revenue in 2025?",
        "Show me revenue for 2025",
        "Group revenue in 2025",
        "Total revenue in 2025",
    ],
)
def test_generic_words_in_entity_position_are_not_a_name(question: str) -> None:
    intent = parsed(question)
    assert intent.unknown_metric is None and intent.metrics == ("REVENUE",)


def test_an_unknown_name_is_named_as_a_name_in_the_reason() -> None:
    assert parsed("腾讯2025年营收").routing.reason == "依据：指标 营业收入 · 未识别的名称「腾讯」"


def test_words_between_an_entity_and_its_metric_belong_to_the_metric() -> None:
    intent = parsed("集团2025年归母净利润")
    assert (intent.entities, intent.unknown_metric) == (("ACME_GROUP",), "归母净利润")
    assert parsed("集团总营收").metrics == ("REVENUE",)


def test_an_entity_beside_unread_words_in_a_topic_question_stays_a_topic() -> None:
    intent = parsed("东南亚扩张有什么计划")
    assert (intent.route, intent.entities, intent.unknown_metric) == ("narrative", ("ACME_SEA",), None)


def test_a_parent_named_right_before_its_child_is_the_child() -> None:
    assert parsed("ACME HK revenue 2025").entities == ("ACME_HK",)
    assert parsed("ACME Group and HK revenue 2025").entities == ("ACME_GROUP", "ACME_HK")


# -- position words (redteam F) -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "order", "position", "top"),
    [
        ("2025年营收排在最后的地区", "asc", None, None),
        ("2025年营收排名最后的是哪个地区", "asc", None, None),
        ("2025年营收倒数第一的地区", "asc", 1, None),
        ("2025年营收倒数第二的地区", "asc", 2, None),
        ("2025年营收最少的地区", "asc", None, None),
        ("2025年营收排名第二的地区", "desc", 2, None),
        ("2025年营收第二名是哪个地区", "desc", 2, None),
        ("2025年营收第二高的地区", "desc", 2, None),
        ("2025年营收排第三的地区", "desc", 3, None),
        ("2025年营收倒数前两名", "asc", None, 2),
        ("Which region had the second highest revenue in 2025?", "desc", 2, None),
        ("Which region ranked last by revenue in 2025?", "asc", None, None),
        ("Which region had the 3rd lowest revenue in 2025?", "asc", 3, None),
    ],
)
def test_position_words_read_the_order_and_the_place(
    question: str, order: str, position: int | None, top: int | None
) -> None:
    op = parsed(question).operation
    assert op is not None and op.kind == "rank"
    assert (op.order, op.position, op.top) == (order, position, top)


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("2025年各地区毛利率排名，从低到高", "asc"),
        ("2025年各地区营收由小到大排序", "asc"),
        ("2025年各地区营收按升序排列", "asc"),
        ("2025年各地区营收排名，从高到低", "desc"),
        ("2025年各地区营收降序排列", "desc"),
        ("Rank the regions by revenue in 2025 in ascending order", "asc"),
        ("Rank the regions by revenue in 2025, smallest to largest", "asc"),
        ("Rank the regions by revenue in 2025 in descending order", "desc"),
    ],
)
def test_an_order_said_in_words_is_the_rankings_order(question: str, order: str) -> None:
    op = parsed(question).operation
    assert op is not None and op.kind == "rank" and op.order == order


@pytest.mark.parametrize(
    ("question", "kind", "periods"),
    [
        ("集团2025年季度平均营收是多少", "average", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("集团2025年平均每季度营收", "average", ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
        ("集团2022到2025年平均营收", "average", ["FY2022", "FY2023", "FY2024", "FY2025"]),
        ("集团近三年平均营收", "average", ["FY2023", "FY2024", "FY2025"]),
        ("集团近三年营收年平均增长率", "cagr", ["FY2023", "FY2025"]),
        ("集团2025年季度营收", None, ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
    ],
)
def test_an_average_over_the_periods_of_a_year_or_a_range_is_read(question: str, kind, periods) -> None:
    """`2025年季度…` is each quarter of 2025, and 平均 right after 年 is still an average (年平均增长率
    is the CAGR's full form): never the year's total given as its average."""
    intent = parsed(question)
    assert (intent.operation.kind if intent.operation else None) == kind
    assert [p.label for p in intent.periods] == periods and intent.unknown_metric is None


def test_a_quarter_is_no_place_in_a_ranking() -> None:
    intent = parsed("集团2025年第二季度营收")
    assert intent.operation is None and [p.label for p in intent.periods] == ["2025Q2"]


# -- numbers as asked: rounding and top N (redteam L, M) --------------------------------------------------
@pytest.mark.parametrize(
    ("question", "decimals"),
    [
        ("集团2025年营收同比增长多少，保留100位小数", 100),
        ("集团2025年营收同比增长多少，保留1000000000位小数", 1000000000),
        ("集团2025年营收同比增长多少，保留2位小数", 2),
        ("集团2025年营收同比增长多少，保留十二位小数", 12),
        ("ACME Group revenue growth in 2025 to 100 decimal places", 100),
    ],
)
def test_the_rounding_asked_for_is_read_whole(question: str, decimals: int) -> None:
    assert parsed(question).decimals == decimals


def test_a_very_long_number_of_places_is_read_without_raising() -> None:
    assert (parsed("集团2025年营收同比增长多少，保留" + "9" * 5000 + "位小数").decimals or 0) > 12


@pytest.mark.parametrize(
    ("question", "top"),
    [("2025年营收前0名", 0), ("Top 0 regions by revenue in 2025", 0), ("2025年营收前100名", 100)],
)
def test_the_top_n_asked_for_is_read_whole(question: str, top: int) -> None:
    op = parsed(question).operation
    assert op is not None and op.kind == "rank" and op.top == top


# -- decline and drop with how much (redteam G) ----------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "How much did HK revenue decline last year?",
        "How much did Hong Kong revenue drop in 2025?",
        "By how much did ACME Group net profit fall in 2025?",
        "How much has HK revenue declined in 2025?",
    ],
)
def test_how_much_with_a_fall_is_a_growth(question: str) -> None:
    intent = parsed(question)
    assert intent.operation is not None and intent.operation.kind == "growth"
    assert intent.operation.comparison == "yoy" and intent.route == "structured"
    assert "how much" not in intent.operation.cue


@pytest.mark.parametrize(
    "question", ["Why did ACME Group revenue decline in 2025?", "Did HK revenue fall in 2025?", "HK revenue decline"]
)
def test_a_fall_without_how_much_is_no_computation(question: str) -> None:
    assert parsed(question).operation is None


# -- differences between two listed items (redteam B) ---------------------------------------------------
DIFFERENCES: list[tuple[str, dict[str, Any]]] = [
    ("2025年香港营收比东南亚少多少", dict(entities=("ACME_HK", "ACME_SEA"), periods=("FY2025",))),
    ("2025年东南亚营收比香港少多少", dict(entities=("ACME_SEA", "ACME_HK"))),
    ("2025年香港和东南亚营收的差额", dict(entities=("ACME_HK", "ACME_SEA"))),
    ("集团2025年营收和净利润差多少", dict(metrics=("REVENUE", "NET_PROFIT"), entities=("ACME_GROUP",))),
    ("集团2025年营收比净利润多多少", dict(metrics=("REVENUE", "NET_PROFIT"))),
    ("集团2025年线上和门店收入相差多少", dict(channels=("ONLINE", "STORE"))),
    ("集团2025年线上收入比门店多多少", dict(channels=("ONLINE", "STORE"))),
    ("集团2025年 vs 2023年营收增长多少", dict(periods=("FY2025", "FY2023"), metrics=("REVENUE",))),
    ("集团营收从2023到2025变化了多少", dict(periods=("FY2023", "FY2025"))),
    ("集团2023年和2025年营收同比增长多少", dict(periods=("FY2023", "FY2025"))),
    ("ACME Group revenue growth 2025 vs 2023", dict(periods=("FY2025", "FY2023"))),
]


@pytest.mark.parametrize(("question", "expected"), DIFFERENCES, ids=[q for q, _ in DIFFERENCES])
def test_a_difference_lists_both_items_in_the_order_asked(question: str, expected: dict[str, Any]) -> None:
    check(parsed(question), dict(op="difference", route="structured", unknown=None, **expected))


@pytest.mark.parametrize(
    ("question", "periods"),
    [
        ("香港和东南亚2025年营收同比增长多少", ("FY2025",)),
        ("集团2023年、2024年和2025年营收同比增长多少", ("FY2023", "FY2024", "FY2025")),
    ],
)
def test_a_growth_over_one_or_many_periods_stays_a_growth(question: str, periods: tuple[str, ...]) -> None:
    check(parsed(question), dict(op="growth", periods=periods))
