"""Every word of a question accounted for: properties over a checked-in frame corpus,
rounding instructions, function words from the segmenter's own dictionary and period digits.

The frame corpus (`data/frames.json`) was written from analyst phrasing in Simplified,
Traditional, Cantonese and English, not from the parser: a frame wraps an answerable question
(whole), its metric or its period, and never changes what the question asks.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.model.intent import ParsedIntent
from core.parse.intent import parse_intent, reading_note, term_names_entity
from core.parse.intent.tokens import FRAME, UNKNOWN, words_read
from tests.core.support.glossaries import COMPUTED, REF, SUBSIDIARIES

FRAMES = json.loads((Path(__file__).parent / "data" / "frames.json").read_text(encoding="utf-8"))
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Answerable questions (entity, period, metric), in the parts a frame can wrap.
ZH_PARTS = [
    ("集团", "2025年", "营收"),
    ("香港", "2024年", "毛利率"),
    ("东南亚", "2025年", "资本开支"),
    ("中国内地", "2025年", "营业利润"),
    ("集团", "2024年", "净利润"),
    ("香港", "2025年", "营业收入"),
]
EN_QUESTIONS = ["Hong Kong revenue in 2025", "the gross margin of ACME Group in 2024", "Southeast Asia capex for 2025"]


def reading(intent: ParsedIntent) -> tuple[object, ...]:
    op = intent.operation
    return (
        intent.metrics,
        intent.entities,
        tuple(p.label for p in intent.periods),
        op.kind if op else None,
        intent.unknown_metric,
        intent.external_entity,
    )


@cache
def read(question: str) -> tuple[object, ...]:
    return reading(parse_intent(question, COMPUTED, REF))


def zh_question(entity: str, period: str, metric: str) -> str:
    return f"{entity}{period}{metric}是多少"


def frames(kind: str, *, english: bool) -> list[str]:
    return [f["frame"] for f in FRAMES[kind] if (f["lang"] == "en") == english]


# -- the corpus ------------------------------------------------------------------------------
def test_the_frame_corpus_is_large_and_in_every_language_form() -> None:
    every = [f for kind in ("whole", "metric", "period") for f in FRAMES[kind]]
    assert len(every) >= 60
    assert {f["lang"] for f in every} == {"zh-Hans", "zh-Hant", "yue", "en"}
    for kind, slot in (("whole", "{q}"), ("metric", "{m}"), ("period", "{p}")):
        assert all(f["frame"].count(slot) == 1 for f in FRAMES[kind])


def test_the_answerable_questions_are_answerable() -> None:
    for parts in ZH_PARTS:
        metrics, entities, periods, op, unknown, _ = read(zh_question(*parts))
        assert len(metrics) == 1 and len(entities) == 1 and len(periods) == 1 and op is None and unknown is None
    for question in EN_QUESTIONS:
        metrics, entities, periods, op, unknown, _ = read(question)
        assert len(metrics) == 1 and len(entities) == 1 and len(periods) == 1 and unknown is None


# -- properties --------------------------------------------------------------------------------
@PROPERTY
@given(parts=st.sampled_from(ZH_PARTS), frame=st.sampled_from(frames("whole", english=False)))
def test_a_request_frame_never_changes_the_reading(parts: tuple[str, str, str], frame: str) -> None:
    question = zh_question(*parts)
    assert read(frame.replace("{q}", question)) == read(question)


@PROPERTY
@given(question=st.sampled_from(EN_QUESTIONS), frame=st.sampled_from(frames("whole", english=True)))
def test_an_english_request_frame_never_changes_the_reading(question: str, frame: str) -> None:
    assert read(frame.replace("{q}", question)) == read(question)


@PROPERTY
@given(parts=st.sampled_from(ZH_PARTS), frame=st.sampled_from(frames("metric", english=False)))
def test_a_frame_around_the_metric_never_changes_the_reading(parts: tuple[str, str, str], frame: str) -> None:
    entity, period, metric = parts
    assert read(entity + period + frame.replace("{m}", metric)) == read(zh_question(*parts))


@PROPERTY
@given(parts=st.sampled_from(ZH_PARTS), frame=st.sampled_from(frames("period", english=False)))
def test_a_frame_around_the_period_never_changes_the_reading(parts: tuple[str, str, str], frame: str) -> None:
    entity, period, metric = parts
    assert read(entity + frame.replace("{p}", period) + "的" + metric) == read(zh_question(*parts))


ROUNDINGS = st.one_of(
    st.integers(0, 6).map(lambda n: f"，保留{n}位小数"),
    st.sampled_from("一两三四五").map(lambda n: f"，结果保留至小数点后{n}位"),
    st.sampled_from("一两三四").map(lambda n: f"，小数点后{n}位"),
    st.integers(1, 4).map(lambda n: "，精确到0." + "0" * (n - 1) + "1"),
)
OPERATED = ["集团2025年营收同比增长多少", "集团2025年营业利润率是多少", "2025年各地区营收排名", "集团2025年营收"]


@PROPERTY
@given(question=st.sampled_from(OPERATED), rounding=ROUNDINGS)
def test_a_rounding_instruction_never_changes_the_operator(question: str, rounding: str) -> None:
    intent = parse_intent(question + rounding, COMPUTED, REF)
    assert reading(intent) == read(question)
    assert intent.decimals is not None


def _dictionary_words(*tags: str) -> list[str]:
    """Common function words of the segmenter's own dictionary (not ours): those analysts
    write (frequency ≥ 1000), of two characters or fewer. Rare adverbs re-segment with their
    neighbours (时而 + 是 is 时 + 而是) and are no longer the word inserted."""
    from core.parse.intent.tokens import _posseg

    table, freq = _posseg().word_tag_tab, _posseg().tokenizer.FREQ
    return sorted(
        w for w, t in table.items() if t in tags and 1 <= len(w) <= 2 and not w.isascii() and freq.get(w, 0) >= 1000
    )


MODALS = _dictionary_words("y", "e")
ADVERBS = _dictionary_words("d")


@PROPERTY
@given(parts=st.sampled_from(ZH_PARTS), opener=st.sampled_from(ADVERBS), closer=st.sampled_from(MODALS))
def test_inserting_a_function_word_never_creates_an_unknown_term(
    parts: tuple[str, str, str], opener: str, closer: str
) -> None:
    """An adverb before the metric's clause and a modal particle after the question mark."""
    entity, period, metric = parts
    question = f"{entity}{period}的{metric}{opener}是多少{closer}"
    metrics, entities, periods, _, unknown, _ = read(question)
    expected = read(zh_question(*parts))
    assert unknown is None and (metrics, entities, periods) == expected[:3]


@PROPERTY
@given(year=st.integers(2001, 2099), tail=st.sampled_from(["营收是多少", "前两名的营收", "第二季度营收", "营收"]))
def test_digits_that_belong_to_a_period_are_never_a_cue(year: int, tail: str) -> None:
    intent = parse_intent(f"集团{year}年{tail}", COMPUTED, REF)
    base = parse_intent(f"集团2025年{tail}", COMPUTED, REF)
    assert (intent.metrics, intent.operation) == (base.metrics, base.operation)
    assert all(str(year) in p.label for p in intent.periods)


# -- every token typed -----------------------------------------------------------------------------
def test_every_word_the_readers_leave_is_typed() -> None:
    text = "请问在2020年的时候营业利润具体是多少元"
    period, metric = text.index("2020年"), text.index("营业利润")
    words = words_read(text, [(period, period + 5), (metric, metric + 4)])
    assert "".join(w.text for w in words) == "请问在的时候具体是多少元"
    assert {w.kind for w in words} == {FRAME}
    assert [w.kind for w in words_read("归母", [])] == [UNKNOWN]


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("集团2025年扣非净利润", "扣非净利润"),
        ("集团2025年调整后净利润", "调整后净利润"),
        ("集团2025年归母净利润是多少", "归母净利润"),
        ("集团2025年母公司所有者的净利润", "母公司所有者的净利润"),
        ("集团2025年净营收", "净营收"),
        ("集团2025年营收目标是多少", "营收目标"),
        ("集团2025年营收预测", "营收预测"),
    ],
)
def test_content_beside_a_metric_is_still_a_longer_term(question: str, term: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == term and intent.metrics == ()


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("集团2025年资本开支预算是多少", "资本开支预算"),
        ("集团2025年营收预算是多少", "营收预算"),
        ("集团2025年营收估计是多少", "营收估计"),
        ("集团2025年营收指引为多少", "营收指引"),
    ],
)
def test_a_verb_before_the_copula_is_the_head_of_the_metric_term(question: str, term: str) -> None:
    """`营收预算是多少`: 是 is the question's verb, so the verb before it heads its subject."""
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == term and intent.metrics == ()


@pytest.mark.parametrize("modal", ["应该", "可能", "会", "大概", "到底"])
def test_a_modal_before_the_copula_is_no_part_of_the_metric(modal: str) -> None:
    intent = parse_intent(f"集团2025年营收{modal}是多少", COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metrics == ("REVENUE",)


@pytest.mark.parametrize("question", ["集团2025年营收预算", "集团2025年营收预算多少", "集团2025年营收预算有多少"])
def test_a_verb_ending_the_metric_phrase_is_its_head(question: str) -> None:
    """Nothing but a question word or the clause's end after it: the verb heads the phrase."""
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == "营收预算" and intent.metrics == ()


@pytest.mark.parametrize(
    "question",
    [
        "集团2025年营收有多少",
        "集团2025年营收达到多少",
        "集团2025年营收统计",
        "帮我查一下集团2025年营收对比",
        "集团2025年营收能达到多少",
    ],
)
def test_a_verb_of_having_attaining_or_asking_after_the_metric_asks_for_it(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metrics == ("REVENUE",)


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("I need ACME's budgeted capex for 2025.", "budgeted capex"),
        ("What's ACME's 2025 revenue target?", "revenue target"),
        ("What was ACME's expected revenue for 2025?", "expected revenue"),
        ("What was ACME's adjusted net income in 2025?", "adjusted net income"),
        ("What was ACME's core net profit in 2025?", "core net profit"),
        ("Can I get ACME's net revenue for 2025?", "net revenue"),
        ("Mainland China's average revenue per store in 2025", "average revenue per store"),
        ("Hong Kong revenue per store in 2025?", "revenue per store"),
        ("ACME capex budget for 2025", "capex budget"),
    ],
)
def test_an_english_word_modifying_a_metric_makes_a_longer_term(question: str, term: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == term and intent.metrics == ()
    assert intent.channel == "TOTAL"


@pytest.mark.parametrize(
    "question",
    [
        "What was the revenue of ACME in 2025?",
        "I need ACME's revenue for 2025.",
        "Show me Hong Kong's gross margin in 2025",
        "How much did revenue grow in 2025?",
        "Did capex increase in 2025?",
        "What was total revenue in 2025?",
        "What was ACME's full-year revenue in 2025?",
        "How many new stores did Hong Kong open in 2025?",
        "What was Hong Kong revenue in 2025, please?",
        "Revenue for Hong Kong in 2025",
        "What was revenue per region in 2025?",
        "Could you pull revenue for Hong Kong in 2025?",
        "I want to know capex for Hong Kong in 2025",
    ],
)
def test_english_function_words_beside_a_metric_never_make_a_term(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is None and len(intent.metrics) == 1


@pytest.mark.parametrize(
    ("question", "metric", "entity", "period"),
    [
        ("在2020年的时候营业利润是多少元", "OPERATING_PROFIT", None, "FY2020"),
        ("净利润的详细数据", "NET_PROFIT", None, None),
        ("根据2025年年报，集团的净利润具体是多少？", "NET_PROFIT", "ACME_GROUP", "FY2025"),
        ("集团年报中2025年管理费用", None, "ACME_GROUP", "FY2025"),
        ("集團2025年嘅營收係幾多", "REVENUE", "ACME_GROUP", "FY2025"),
        ("香港2025年嘅毛利率係乜嘢", "GROSS_MARGIN", "ACME_HK", "FY2025"),
        ("麻烦看下东南亚2025年资本开支", "CAPEX", "ACME_SEA", "FY2025"),
        ("请告诉我集团2025年营收的具体数值", "REVENUE", "ACME_GROUP", "FY2025"),
        ("描述一下集团2025年营收的详细信息", "REVENUE", "ACME_GROUP", "FY2025"),
        ("集团2025年新开了多少家门店", "NEW_STORES", "ACME_GROUP", "FY2025"),
    ],
)
def test_real_phrasing_is_read(question: str, metric: str | None, entity: str | None, period: str | None) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.metric == metric and intent.entity == entity
    assert (intent.period.label if intent.period else None) == period
    if metric is not None:
        assert intent.unknown_metric is None


@pytest.mark.parametrize(
    ("question", "metric", "entity", "period"),
    [
        ("帮忙核实一下，香港2024年的毛利率是不是33.8%？", "GROSS_MARGIN", "ACME_HK", "FY2024"),
        ("香港2024年毛利率有没有33.8%", "GROSS_MARGIN", "ACME_HK", "FY2024"),
        ("香港2024年毛利率係唔係33.8%", "GROSS_MARGIN", "ACME_HK", "FY2024"),
        ("可唔可以講下香港2025年新開咗幾多間門店？", "NEW_STORES", "ACME_HK", "FY2025"),
        ("中國內地這塊業務在2025年度全年實現的毛利率", "GROSS_MARGIN", "ACME_CN", "FY2025"),
        ("集团2025年取得的净利润是多少", "NET_PROFIT", "ACME_GROUP", "FY2025"),
        ("集团2025年实现营收多少", "REVENUE", "ACME_GROUP", "FY2025"),
        ("集团2025年披露的营收是多少", "REVENUE", "ACME_GROUP", "FY2025"),
        ("集团2025年营收统计是多少", "REVENUE", "ACME_GROUP", "FY2025"),
    ],
)
def test_question_forms_and_verbs_of_attainment_are_frames(
    question: str, metric: str, entity: str, period: str
) -> None:
    """An A-not-A question (是不是, 有没有, 係唔係), a how-many word inside a name in Cantonese
    (新開咗幾多間門店) and a verb of attainment before the metric (实现的, 取得的) ask for the figure."""
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metric == metric and intent.entity == entity
    assert intent.period is not None and intent.period.label == period


@pytest.mark.parametrize("question", ["集团2025年预计的营收是多少", "集团2025年预计营收是多少"])
def test_a_verb_that_is_no_attainment_still_makes_a_longer_term(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is not None and intent.metrics == ()


def test_a_copula_mistyped_by_sound_is_read_and_said() -> None:
    intent = parse_intent("集团2025年的营收时多少", COMPUTED, REF)
    assert intent.metrics == ("REVENUE",) and intent.unknown_metric is None and intent.operation is None
    assert intent.corrections == (("时", "是"),)
    note = reading_note(intent)
    assert note is not None and "时" in note


@pytest.mark.parametrize("question", ["集团2025年的营收有多少", "集团2025年的营收约多少", "集团2025年营收为多少"])
def test_a_frame_before_the_question_word_is_no_typo(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.corrections == () and intent.metrics == ("REVENUE",) and intent.unknown_metric is None


def test_a_word_before_the_question_word_that_sounds_like_no_copula_is_asked_back() -> None:
    assert parse_intent("集团2025年的营收库多少", COMPUTED, REF).unknown_metric == "营收库"


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Hey, quick one: what was China Mobile's revenue in 2025?", "China Mobile"),
        ("Quick question: what was the revenue of China Mobile in 2025?", "China Mobile"),
        ("Hi there, what was Tencent revenue in 2025?", "Tencent"),
    ],
)
def test_the_name_in_the_entity_position_is_the_one_asked_back(question: str, name: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == name and term_names_entity(intent, COMPUTED)


def test_an_english_preposition_opening_a_question_is_no_name() -> None:
    intent = parse_intent("Regarding revenue, what was the 2025 figure?", COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metrics == ("REVENUE",)


def test_a_metric_nobody_defined_is_asked_back_whole() -> None:
    intent = parse_intent("资产负债比率具体是多少", COMPUTED, REF)
    assert intent.metrics == () and intent.unrecognized_terms == ("资产负债",)  # 比率 is read as a ratio


# -- rounding is not a ranking ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "decimals"),
    [
        ("集团2025年营业利润率是多少，结果保留至小数点后两位？", 2),
        ("集团2025年营收同比增长多少，精确到0.1", 1),
        ("集团2025年营收同比增长多少，小数点后三位", 3),
        ("Group revenue growth in 2025, rounded to the nearest 0.01", 2),
    ],
)
def test_a_rounding_instruction_is_never_a_ranking(question: str, decimals: int) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.decimals == decimals and (intent.operation is None or intent.operation.kind != "rank")


@pytest.mark.parametrize(
    ("question", "decimals"),
    [
        ("香港2025年毛利率是多少，精确到小数点后第一位", 1),
        ("集团2025年营收，保留到小数点后第二位", 2),
        ("集团2025年营收，四舍五入到整数", 0),
        ("ACME 2025年营收四舍五入到整数", 0),
        ("集团2025年营收四舍五入保留两位小数", 2),
        ("集团2025年营收，四舍五入到个位", 0),
        ("Hong Kong gross margin in 2025, to the first decimal place", 1),
    ],
)
def test_a_rounding_is_read_in_any_of_its_forms(question: str, decimals: int) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.decimals == decimals and intent.operation is None
    assert intent.unknown_metric is None and len(intent.metrics) == 1


def test_a_count_after_a_ranking_word_is_a_ranking() -> None:
    op = parse_intent("2025年各地区营收排名后两位", COMPUTED, REF).operation
    assert op is not None and op.kind == "rank" and op.top == 2 and op.order == "asc"


# -- typos in an operator -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "written", "read_as", "kind"),
    [
        ("集团2025年营收增长律是多少", "增长律", "增长率", "growth"),
        ("集团2025年营业收入增涨了多少", "增涨", "增长", "growth"),
        # read past what other readers took between the metric and the word (a series, a period)
        ("集团近三年营收每年增长律是多少", "增长律", "增长率", "growth"),
        ("集团营收2025年同必增长多少", "同必", "同比", "growth"),
        ("集团2025年营收同必增长多少", "同必", "同比", "growth"),
        ("What was group revenue growh in 2025?", "growh", "growth", "growth"),
    ],
)
def test_an_operator_one_sound_away_is_read_and_said(question: str, written: str, read_as: str, kind: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.operation is not None and intent.operation.kind == kind
    assert intent.corrections == ((written, read_as),)
    note = reading_note(intent)
    assert note is not None and written in note and read_as in note
    assert read_as in intent.routing.reason


def test_a_word_that_sounds_like_no_cue_is_asked_back_not_dropped() -> None:
    intent = parse_intent("集团2025年营收增量是多少", COMPUTED, REF)
    assert intent.corrections == () and intent.unknown_metric == "营收增量"


@pytest.mark.parametrize(
    "question",
    ["ACME集团2025年的营收增速比中国内地快还是慢", "集团2025年营收比中国内地高多少"],
)
def test_a_typo_is_never_read_into_a_name(question: str) -> None:
    """比中 sounds like 比重, but its 中 opens 中国内地: a correction never takes a character another
    reader took, so the entity stays whole."""
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.corrections == ()
    assert "ACME_CN" in intent.entities and intent.unknown_metric is None


def test_a_correct_question_has_no_reading_note() -> None:
    assert reading_note(parse_intent("集团2025年营收增长率是多少", COMPUTED, REF)) is None


# -- each part keeps its own operator ---------------------------------------------------------------
def test_each_part_of_a_list_keeps_its_own_operator() -> None:
    intent = parse_intent("集团2025年营收同比增速和毛利率分别是多少", COMPUTED, REF)
    parts = {p.metrics: (p.operation.kind if p.operation else None) for p in intent.parts}
    assert parts == {("REVENUE",): "growth", ("GROSS_MARGIN",): None}


def test_an_operator_after_the_last_part_runs_over_the_whole_list() -> None:
    intent = parse_intent("集团2025年营收和毛利率同比增长多少", COMPUTED, REF)
    assert intent.parts == () and intent.operation is not None and intent.operation.kind == "growth"


# -- found on questions written by someone else (eval/fresh-questions-L.jsonl) ----------------------
def test_which_grew_fastest_ranks_the_growth_not_the_level() -> None:
    op = parse_intent("2025年哪个子公司营收增长最快？", COMPUTED, REF).operation
    assert op is not None and op.kind == "growth" and op.ranked


@pytest.mark.parametrize(
    ("question", "kind"),
    [("东南亚2025年营收增长了百分之多少？", "growth"), ("香港2025年線上營收佔香港總營收幾多％？", "share")],
)
def test_a_percentage_asked_in_words_keeps_its_operator(question: str, kind: str) -> None:
    op = parse_intent(question, COMPUTED, REF).operation
    assert op is not None and op.kind == kind


def test_a_capital_that_only_opens_an_english_frame_is_no_name() -> None:
    intent = parse_intent("According to the annual report, what was operating profit in 2025?", COMPUTED, REF)
    assert intent.unknown_metric is None and intent.metrics == ("OPERATING_PROFIT",)
    assert parse_intent("Tencent revenue in 2025", COMPUTED, REF).unknown_metric == "Tencent"


def test_a_cantonese_which_asks_for_a_ranking() -> None:
    op = parse_intent("2025年邊間子公司營收增長得最快？同比增長率係幾多？", COMPUTED, REF).operation
    assert op is not None and op.kind == "growth" and op.ranked and op.over == "entities"


# -- each clause keeps its own operator and slots ------------------------------------------------------
def clause_parts(question: str) -> list[tuple[object, ...]]:
    """Each part as (metrics, operation kind, entities, period labels, channels, decimals)."""
    intent = parse_intent(question, COMPUTED, REF)
    return [
        (
            p.metrics,
            p.operation.kind if p.operation else None,
            p.entities,
            tuple(x.label for x in p.periods),
            p.channels,
            p.decimals,
        )
        for p in intent.parts
    ]


GM, REV, NP, CAPEX = ("GROSS_MARGIN",), ("REVENUE",), ("NET_PROFIT",), ("CAPEX",)
HK, CN, GROUP, FY = ("ACME_HK",), ("ACME_CN",), ("ACME_GROUP",), ("FY2025",)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "香港2025年毛利率是多少？营收同比增速呢？",
            [(GM, None, HK, FY, (), None), (REV, "growth", HK, FY, (), None)],
        ),
        (
            "集团2025年毛利率是多少，净利润同比增长多少",
            [(GM, None, GROUP, FY, (), None), (NP, "growth", GROUP, FY, (), None)],
        ),
        (
            "What was group gross margin in 2025, and how much did revenue grow?",
            [(GM, None, GROUP, FY, (), None), (REV, "growth", GROUP, FY, (), None)],
        ),
        (
            "What was group revenue in 2025, and how much did capex grow year on year?",
            [(REV, None, GROUP, FY, (), None), (CAPEX, "growth", GROUP, FY, (), None)],
        ),
        (
            "What was revenue in 2025 and how much did it grow?",
            [(REV, None, (), FY, (), None), (REV, "growth", (), FY, (), None)],
        ),
        (
            "中国内地2025年营收同比增长多少，线上收入是多少",
            [(REV, "growth", CN, FY, (), None), (REV, None, CN, FY, ("ONLINE",), None)],
        ),
        (
            "2025年营收最高的地区是哪个，集团营收同比增长多少",
            [(REV, "rank", SUBSIDIARIES, FY, (), None), (REV, "growth", GROUP, FY, (), None)],
        ),
        (
            "中国内地2025年营收同比增长多少，线上收入占比是多少",
            [(REV, "growth", CN, FY, (), None), (REV, "share", CN, FY, ("ONLINE",), None)],
        ),
        (
            "集团2025年第四季度营收环比增长多少，保留1位小数；上半年营收是多少",
            [(REV, "growth", GROUP, ("2025Q4",), (), 1), (REV, None, GROUP, ("2025H1",), (), 1)],
        ),
        (
            "集团2025年营收是多少，同比增长多少",
            [(REV, None, GROUP, FY, (), None), (REV, "growth", GROUP, FY, (), None)],
        ),
    ],
)
def test_each_clause_keeps_its_own_operator_and_slots(question: str, parts: list[tuple[object, ...]]) -> None:
    assert clause_parts(question) == parts


@pytest.mark.parametrize(
    ("question", "entities", "kind"),
    [
        ("中国内地2025年营收是多少，占集团的比重是多少", ("ACME_CN", "ACME_GROUP"), "share"),
        ("集团2025年营收是多少，香港营收占比是多少", ("ACME_HK", "ACME_GROUP"), "share"),
        ("中国内地2025年营收是多少，与香港之比是多少", ("ACME_CN", "ACME_HK"), "ratio"),
        ("中国内地2025年营收是多少，比香港高多少", ("ACME_CN", "ACME_HK"), "difference"),
        ("2025年各地区营收是多少，分别占集团的比重是多少", SUBSIDIARIES, "share"),
        ("中国内地2025年营收是多少，香港的同比增长多少", HK, "growth"),
    ],
)
def test_a_later_clause_relating_two_items_takes_the_one_before_it(
    question: str, entities: tuple[str, ...], kind: str
) -> None:
    """A share's part named before its cue is its subject; any other item a two-item clause names
    is compared with the one named before it. A one-item operation keeps its own entity."""
    first, second = parse_intent(question, COMPUTED, REF).parts
    assert first.operation is None and second.operation is not None
    assert (second.operation.kind, second.entities) == (kind, entities)


def test_a_second_quarter_operator_is_never_carried_into_another_clause() -> None:
    [_, second] = parse_intent("集团2025年第四季度营收环比增长多少；上半年营收是多少", COMPUTED, REF).parts
    assert second.operation is None and [p.label for p in second.periods] == ["2025H1"]


@pytest.mark.parametrize(
    "question",
    [
        "集团2025年营收，同比增长多少",  # the first clause names the topic, the second asks
        "集团2025年营收同比增长多少，毛利率呢",  # 毛利率呢 asks the same about another metric
        "根据2025年年报，集团的净利润具体是多少？",  # a frame clause
        "集团2025年营收同比增长多少，保留两位小数",  # a rounding clause
    ],
)
def test_a_clause_that_asks_nothing_of_its_own_joins_its_neighbour(question: str) -> None:
    assert parse_intent(question, COMPUTED, REF).parts == ()


# -- another company is never answered as an in-scope one ----------------------------------------
@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Sea Limited revenue 2025", "Sea Limited"),
        ("Hong Kong Telecom revenue in 2025", "Hong Kong Telecom"),
        ("What was the revenue of Mainland China Mobile in 2025?", "Mainland China Mobile"),
    ],
)
def test_a_capitalised_name_holding_an_entity_alias_is_an_unknown_name(question: str, name: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric == name and intent.entities == ()
    assert term_names_entity(intent, COMPUTED)


@pytest.mark.parametrize("question", ["SEA revenue 2025", "What was SEA's revenue in 2025?", "ACME HK revenue 2025"])
def test_an_entity_alias_beside_no_other_name_is_the_entity(question: str) -> None:
    intent = parse_intent(question, COMPUTED, REF)
    assert intent.unknown_metric is None and len(intent.entities) == 1
