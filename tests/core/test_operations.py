"""Operators read from the question (SPEC §6a): a table of Chinese and English questions and the
operation, slots and route each must parse to, plus the properties that hold for any question."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.glossary import AliasRecord, GlossarySnapshot, MetricInfo, glossary_build
from core.intent import parse_intent
from core.types import OPERATIONS, ParsedIntent
from tests.fakes import DEMO, demo_glossary

REF = date(2026, 3, 15)
# The demo glossary with the curators' formula metrics (净利率, 营业利润率 …): the copy the issue
# ships, until the project's own demo glossary carries the `formula` column.
SHARED_GLOSSARY = Path(__file__).resolve().parents[3] / "shared" / "demo" / "glossary.csv"
FORMULA_CODES = ("NET_MARGIN", "OPERATING_MARGIN")


def computed_glossary() -> GlossarySnapshot:
    with (DEMO / "glossary.csv").open(encoding="utf-8") as handle:
        has_formulas = "formula" in handle.readline()
    return demo_glossary(DEMO / "glossary.csv" if has_formulas or not SHARED_GLOSSARY.exists() else SHARED_GLOSSARY)


def glossary_without(glossary: GlossarySnapshot, *codes: str) -> GlossarySnapshot:
    """The same glossary without some metrics: `净利率` is then a term nobody defined."""
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=[m for m in glossary.metrics.values() if m.code not in codes],
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[a for a in glossary.aliases if not (a.kind == "metric" and a.code in codes)],
        home_company_name=glossary.home_company_name,
    )


def glossary_with_metric(glossary: GlossarySnapshot, code: str, name: str, *aliases: str) -> GlossarySnapshot:
    return glossary_build(
        entities=glossary.entities.values(),
        metrics=[*glossary.metrics.values(), MetricInfo(code, name, "CNY_M")],
        channels=glossary.channels.values(),
        units=glossary.units.values(),
        aliases=[*glossary.aliases, *(AliasRecord("metric", text, code) for text in aliases)],
        home_company_name=glossary.home_company_name,
    )


COMPUTED = computed_glossary()
UNDEFINED = glossary_without(COMPUTED, *FORMULA_CODES)
SUBSIDIARIES = ("ACME_CN", "ACME_HK", "ACME_SEA")
CHANNELS = ("ONLINE", "STORE", "DISTRIBUTOR")


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
    ("集团2025年前三季度营收", dict(op=None, periods=())),
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
    assert {e["op"] for _, e in TABLE if e.get("op")} == set(OPERATIONS)
    english = [q for q, _ in TABLE if q.isascii()]
    assert len(english) >= 15


# -- never a shorter alias (SPEC §6a) ----------------------------------------------------------------
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
    assert slots(parsed(cued)) == slots(parsed(plain))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([q for q, _ in TABLE]))
def test_every_operation_is_well_formed(question: str) -> None:
    intent = parsed(question)
    op = intent.operation
    if op is not None:
        assert op.kind in OPERATIONS and op.cue
        assert op.comparison in ("yoy", "qoq") and op.order in ("asc", "desc")
        assert op.top is None or op.top >= 1
        assert op.over in (None, "entities", "channels")
        assert op.decimals == intent.decimals
    for code in intent.entities:
        assert not COMPUTED.is_external(code)
    assert intent.channel == (intent.channels[0] if intent.channels else "TOTAL")


def test_cues_inside_a_metric_name_are_not_operators() -> None:
    from core.operations import cues_read

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
