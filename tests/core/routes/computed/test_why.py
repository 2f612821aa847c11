"""A quantitative why through `answer_question`: the change, its parts, then the passages."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import computed_reevaluate
from core.model.facts import INTERNAL, RESTRICTED, FactRecord
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import REF, fact
from tests.fakes import InMemoryFactStore, demo_facts, demo_glossary

GLOSSARY = demo_glossary()
SUBSIDIARIES = ("ACME_CN", "ACME_HK", "ACME_SEA")


def _ask(question: str, store: InMemoryFactStore | None = None, *, cleared: bool = False):
    return answer_question(
        question,
        Ports(
            glossary=GLOSSARY,
            store=store if store is not None else InMemoryFactStore(demo_facts()),
            provider=MockProvider(),
        ),
        cleared=cleared,
        reference_date=REF,
    )


def _lines(result) -> list[str]:
    return result.sections.structured.splitlines()


def test_a_why_leads_with_the_change_and_its_parts_by_channel() -> None:
    result = _ask("香港收入为什么下降")
    lines = _lines(result)
    assert result.route == "composite" and result.answer_kind == "answer"
    change = next(i for i, line in enumerate(lines) if "同比下降 6.66%，减少 1,714.3 百万元" in line)
    rows = [line for line in lines if line.startswith("· ")]
    assert rows == ["· 门店：-2,604.7 百万元，占总变动 151.9%", "· 线上：+890.4 百万元，占总变动 -51.9%"]
    assert lines.index(rows[0]) > change  # the change first, then the parts, largest mover first
    assert "公式：部分变动 = 本期数 − 比较期数；占比 = 部分变动 ÷ 总变动" in lines
    shares = [c for c in result.computed if c.kind == "share"]
    changes = [c for c in result.computed if c.kind == "change" and c.subject and c.subject.channel != "TOTAL"]
    assert sum(c.value for c in changes) == Decimal("-1714.3")  # the parts add up exactly
    assert {str(c.value) for c in changes} == {"-2604.7", "890.4"} and len(shares) == 2
    for computed in result.computed:  # every number a computation over the facts it lists
        assert computed_reevaluate(computed) == computed.value
        assert set(computed.inputs) <= set(result.facts)
    assert {(f.channel, f.period.label) for f in result.facts} >= {
        ("STORE", "FY2025"),
        ("STORE", "FY2024"),
        ("ONLINE", "FY2025"),
        ("ONLINE", "FY2024"),
    }


def test_a_group_figure_splits_over_its_subsidiaries() -> None:
    rows = [line for line in _lines(_ask("集团2025年营收为什么增长")) if line.startswith("· ")]
    assert rows == [
        "· ACME中国内地：+8,717.7 百万元，占总变动 86.2%",
        "· ACME东南亚：+3,107.0 百万元，占总变动 30.7%",
        "· ACME香港：-1,714.3 百万元，占总变动 -17.0%",
    ]


def test_english_and_cantonese_why_words_get_the_decomposition_in_their_language() -> None:
    english = _ask("What drove Hong Kong revenue down in 2025?")
    assert english.route == "composite"
    assert "fell 6.66% YoY, down 1,714.3 CNY m" in english.sections.structured
    assert "By channel (the rows add up to the change exactly):" in english.sections.structured
    cantonese = _ask("香港營收點解跌咗")
    assert cantonese.route == "composite" and "· 门店：-2,604.7 百万元，占总变动 151.9%" in _lines(cantonese)


def test_a_margin_splits_into_rate_and_mix_effects_with_the_formula() -> None:
    result = _ask("集团2025年营业利润率为什么下降")
    text = result.sections.structured
    assert "按下属公司/地区拆分为率效应与结构效应（权重：各部分营业收入占比）：" in text
    assert "公式：率效应 = 上期权重 × (本期比率 − 上期比率)；结构效应 = 本期比率 × (本期权重 − 上期权重)" in text
    assert "未归入以上部分" not in text  # the group's figures are its subsidiaries' sums
    effects = [c for c in result.computed if c.kind == "effect" and c.name_zh.endswith("合计影响")]
    total = next(c for c in result.computed if c.kind == "growth" and c.unit == "PP")
    assert len(effects) == 3 and abs(sum(c.value for c in effects) - total.value) < Decimal("1e-25")


def test_a_stored_margin_is_weighted_by_the_amount_whose_quotient_it_prints_and_says_what_is_left() -> None:
    text = _ask("集团2025年毛利率为什么下降").sections.structured
    # 毛利 ÷ 营业收入 prints as the group's 毛利率 in both years: revenue weighs the parts
    assert "（权重：各部分营业收入占比）" in text
    # the subsidiaries' printed margins do not pool to the group's: the rest is said, not spread
    assert "· 未归入以上部分：-0.22 个百分点" in text


def test_a_why_that_says_the_wrong_direction_is_told_so() -> None:
    text = _ask("集团2025年营收为什么下降").sections.structured
    assert "注意：该数字实际为上升，并非下降。" in text


def _store(values: dict[tuple[str, str], str], hidden: frozenset[str]) -> InMemoryFactStore:
    facts: list[FactRecord] = []
    for year in ("FY2024", "FY2025"):
        total = Decimal(0)
        for entity in SUBSIDIARIES:
            value = values[(entity, year)]
            total += Decimal(value)
            sensitivity = RESTRICTED if entity in hidden else INTERNAL
            facts.append(fact("REVENUE", entity, year, value, sensitivity=sensitivity))
        facts.append(fact("REVENUE", "ACME_GROUP", year, str(total)))
    return InMemoryFactStore(facts)


amounts = st.decimals(min_value=1, max_value=10**6, places=1, allow_nan=False, allow_infinity=False).map(str)
stores = st.fixed_dictionaries({(e, y): amounts for e in SUBSIDIARIES for y in ("FY2024", "FY2025")})


@settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(values=stores, other=stores, hidden=st.sets(st.sampled_from(SUBSIDIARIES), min_size=1, max_size=2))
def test_a_part_the_user_may_not_see_changes_nothing_the_user_reads(values, other, hidden) -> None:
    # The hidden parts' figures differ between the two stores; nothing else does (the group's
    # own figure is kept, so only the hidden rows could tell the stores apart).
    changed = {k: (other[k] if k[0] in hidden else v) for k, v in values.items()}
    first, second = _store(values, frozenset(hidden)), _store(changed, frozenset(hidden))
    for year in ("FY2024", "FY2025"):
        kept = first.facts[("REVENUE", "ACME_GROUP", "FY", year[2:], "TOTAL")]
        second.facts[("REVENUE", "ACME_GROUP", "FY", year[2:], "TOTAL")] = replace(kept)
    question = "集团2025年营收为什么变化"
    seen = [_ask(question, store) for store in (first, second)]
    assert seen[0].answer == seen[1].answer
    assert [c.as_dict() for c in seen[0].computed] == [c.as_dict() for c in seen[1].computed]
    for result in seen:
        assert not any(f.sensitivity == RESTRICTED for f in result.facts)
        for entity in hidden:
            assert GLOSSARY.display("entity", entity, "zh") not in result.answer
        if len(hidden) == 1:  # two parts left to split over
            assert "以下拆分只含事实库中您有权查看的数据。" in result.answer
    cleared = _ask(question, first, cleared=True)
    for entity in hidden:
        assert GLOSSARY.display("entity", entity, "zh") in cleared.answer


def test_a_years_change_splits_over_its_quarters_when_both_years_have_them() -> None:
    # the demo holds 2025's quarters; made-up 2024 quarters that add up to FY2024 are added
    quarters_2024 = {"2024Q1": "27500.0", "2024Q2": "29100.2", "2024Q3": "30040.0", "2024Q4": "31700.0"}
    extra = [fact("REVENUE", "ACME_GROUP", period, value) for period, value in quarters_2024.items()]
    result = _ask("集团2025年营收为什么增长", InMemoryFactStore([*demo_facts(), *extra]))
    text = result.sections.structured
    assert "按季度拆分（各行合计恰等于总变动）：" in text
    section = text.split("按季度拆分")[1].split("公式：")[0]
    rows = [line.split("：")[0] for line in section.splitlines() if line.startswith("· ")]
    # each quarter against the same quarter a year before: Q4 +3,427.3, Q1 +2,380.1, Q2 +2,224.5, Q3 +2,078.5
    assert rows == ["· 2025Q4", "· 2025Q1", "· 2025Q2", "· 2025Q3"]
    assert "· 2025Q4：+3,427.3 百万元，占总变动 33.9%" in section
    quarters = [c for c in result.computed if getattr(c, "dimension", "") == "quarter" and c.kind == "change"]
    assert sum(c.value for c in quarters) == Decimal("10110.4")  # the year's change, exactly


def test_a_why_whose_comparison_is_not_stored_says_so_and_gives_no_change() -> None:
    text = _ask("为什么2025年上半年营收增长？").sections.structured
    assert "无法给出变动：缺少计算所需的数据：ACME集团营业收入 2024H1。" in text
    assert "拆分" not in text


def test_rounded_rows_that_do_not_add_up_as_shown_say_so() -> None:
    # 86.2% + 30.7% − 17.0% shows 99.9%: the exact shares add up to 1, the rounded ones do not
    assert "精确值之和恰等于总变动" in _ask("集团2025年营收为什么增长").sections.structured
    # −2,604.7 and +890.4 are exact, and 151.9% − 51.9% is 100%: nothing to say
    assert "四舍五入" not in _ask("香港收入为什么下降").sections.structured


def test_a_why_asked_with_its_parts_listed_is_the_wholes_why_split_that_way() -> None:
    # `各子公司` lists the group's subsidiaries: the group's change, split over them
    listed = _ask("为什么集团2025年营业收入增长？拆分一下各子公司").sections.structured
    assert "ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。" in listed
    assert "· ACME中国内地：+8,717.7 百万元，占总变动 86.2%" in listed and "按渠道拆分" not in listed
    by_channel = _ask("为什么中国内地2025年营业收入增长？按渠道拆分").sections.structured
    assert "· 线上：+7,211.6 百万元，占总变动 82.7%" in by_channel and "按下属公司" not in by_channel


def test_a_why_over_several_years_explains_the_last_years_change() -> None:
    text = _ask("集团营业利润率近两年为什么下滑").sections.structured
    assert "ACME集团 FY2025 营业利润率同比下降 1.25 个百分点。" in text and "实际为上升" not in text
    assert "按下属公司/地区拆分为率效应与结构效应" in text


def test_a_movement_word_after_the_metric_in_a_why_is_not_a_metric_name() -> None:
    # `营收增长` asks why revenue grew: not a metric 营收增长 the glossary lacks
    result = _ask("为什么集团2025年营收增长")
    assert result.route == "composite" and result.intent.metric == "REVENUE"
    assert "· ACME中国内地：+8,717.7 百万元" in result.sections.structured


def test_every_written_form_of_why_asks_for_the_parts() -> None:
    for question in ("香港收入為甚麼下降", "香港收入为啥下降", "香港收入為何下跌"):
        assert "· 门店：-2,604.7 百万元，占总变动 151.9%" in _ask(question).sections.structured, question
