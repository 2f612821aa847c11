"""Computed answers through `answer_question`, driven by hand-built intents."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import computed_reevaluate
from core.model.facts import INTERNAL, PUBLIC, RESTRICTED, FactRecord
from core.model.intent import ParsedIntent
from core.model.operation import Operation
from core.model.period import Period
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import (
    GLOSSARY,
    REF,
    D,
    FixedParser,
    ask,
    demo_store,
    exact,
    fact,
    intent_for,
)
from tests.fakes import InMemoryFactStore, demo_glossary, glossary_without
from tests.scripted import ExplodingProvider

# -- never the level for a growth question ---------------------------------------------------


def test_a_growth_question_is_not_answered_with_the_level() -> None:
    # A model that is asked at all would be given the level's slots: the computation needs none.
    result = ask("集团2025年营收同比增长多少", operation=Operation("growth", cue="同比"), provider=MockProvider())
    assert result.answer_kind == "answer"
    assert not result.answer.startswith("ACME集团 FY2025 营业收入：128,450.6")
    assert "8.54%" in result.answer and "10,110.4" in result.answer
    assert {c.kind for c in result.computed} == {"growth"}
    assert sorted(str(f.value) for f in result.facts) == ["118340.2", "128450.6"]


# -- the difference line of a listed pair ----------------------------------------------------


def test_the_difference_line_gives_no_rate_on_a_negative_base() -> None:
    result = ask("东南亚2024年和2025年营业利润", glossary=demo_glossary())
    line = next(line for line in result.answer.splitlines() if line.startswith("对比"))
    assert line.startswith("对比：FY2025 较 FY2024 -775.0 百万元")
    assert "%" not in line and "增长率无意义" in line


def test_a_fiscal_year_and_a_quarter_get_no_difference_line() -> None:
    result = ask("集团2025年Q4和2025年营收", glossary=demo_glossary())
    assert len(result.facts) == 2
    assert not any(line.startswith("对比") for line in result.answer.splitlines())
    assert result.computed == ()


def test_listed_channels_without_an_operation_are_each_listed() -> None:
    result = ask("中国内地2025年线上和门店营收", channels=("ONLINE", "STORE"))
    assert [(f.channel, str(f.value)) for f in result.facts] == [("ONLINE", "41230.5"), ("STORE", "38904.6")]
    assert result.answer_kind == "answer" and result.computed == ()


# -- growth, difference, CAGR ----------------------------------------------------------------


def growth(**kwargs: Any) -> Operation:
    return Operation("growth", cue="同比", **kwargs)


def test_growth_gives_the_rate_and_the_change_with_formula_and_inputs() -> None:
    result = ask("集团2025年营收同比增长多少", operation=growth())
    rate, change = result.computed
    assert rate.value == exact(lambda: (D("128450.6") - D("118340.2")) / D("118340.2"))
    assert (rate.kind, rate.unit, rate.display) == ("growth", "PCT", "8.54%")
    assert (change.value, change.unit, change.display) == (D("10110.4"), "CNY_M", "10,110.4")
    lines = result.answer.splitlines()
    assert lines[0] == "ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。"
    assert lines[1] == "公式：(营业收入 FY2025 − 营业收入 FY2024) ÷ 营业收入 FY2024"
    assert lines[2] == "数据："
    assert (
        "ACME集团 FY2025 营业收入：128,450.6 百万元（来源：ACME_FY2025_Annual_Results.pptx · facts.csv,row=5）"
        in lines[3]
    )
    assert "ACME集团 FY2024 营业收入：118,340.2 百万元（来源：ACME_5yr_Summary.xlsx" in lines[4]
    assert [f.period.label for f in result.facts] == ["FY2025", "FY2024"]
    assert [(r["status"], r["period"]) for r in result.tool_results] == [("found", "FY2025"), ("found", "FY2024")]
    assert [(s.kind, s.doc) for s in result.sources] == [
        ("fact", "ACME_FY2025_Annual_Results.pptx"),
        ("fact", "ACME_5yr_Summary.xlsx"),
    ]
    assert result.ranking is None and not result.guard.fabrication_guard_triggered


def test_growth_in_english() -> None:
    result = ask("What was ACME Group revenue growth in 2025?", operation=growth())
    assert result.answer.splitlines()[0] == "ACME Group FY2025 revenue grew 8.54% YoY, up 10,110.4 CNY m."
    assert result.answer.splitlines()[1] == "Formula: (revenue FY2025 − revenue FY2024) ÷ revenue FY2024"
    assert result.computed[0].as_dict("en")["name"] == "revenue YoY growth"


def test_quarter_on_quarter_growth() -> None:
    result = ask("集团2025年第四季度营收环比增长多少", operation=Operation("growth", comparison="qoq"))
    rate = result.computed[0]
    assert rate.value == exact(lambda: (D("35127.3") - D("32118.5")) / D("32118.5"))
    assert result.answer.startswith("ACME集团 2025Q4 营业收入环比增长 9.37%，增加 3,008.8 百万元。")


def test_a_fall_reads_as_a_fall() -> None:
    result = ask("香港2025年营收同比增长多少", operation=growth())
    assert result.answer.startswith("ACME香港 FY2025 营业收入同比下降 6.66%，减少 1,714.3 百万元。")
    assert result.computed[1].value == D("-1714.3")


def test_growth_for_every_listed_entity() -> None:
    result = ask("香港和东南亚2025年营收同比增长多少", operation=growth())
    subjects = [(c.subject.entity, c.unit) for c in result.computed if c.subject]
    assert subjects == [("ACME_HK", "PCT"), ("ACME_HK", "CNY_M"), ("ACME_SEA", "PCT"), ("ACME_SEA", "CNY_M")]
    sea = result.computed[2]
    assert sea.value == exact(lambda: (D("8314.5") - D("5207.5")) / D("5207.5"))
    assert len(result.facts) == 4


def test_a_percentage_metric_changes_in_percentage_points() -> None:
    result = ask("集团2025年毛利率同比变化多少个百分点", operation=growth())
    (change,) = result.computed
    assert (change.value, change.unit) == (D("-2.2"), "PP")
    assert result.answer.startswith("ACME集团 FY2025 毛利率同比下降 2.2 个百分点。")
    assert change.as_dict("zh")["display"] == "-2.2 个百分点"


def test_a_negative_base_gives_the_change_and_no_rate() -> None:
    result = ask("东南亚2025年营业利润同比增长多少", operation=growth())
    (change,) = result.computed
    assert change.value == D("-775.0") and change.unit == "CNY_M"
    first = result.answer.splitlines()[0]
    assert first == "ACME东南亚 FY2025 营业利润同比减少 775.0 百万元。基期数为负，增长率无意义，仅给出变动额。"
    assert "%" not in result.answer


def test_a_zero_base_gives_the_change_and_no_rate() -> None:
    store = InMemoryFactStore(
        [
            fact("NEW_STORES", "ACME_HK", "FY2024", "0", unit="COUNT"),
            fact("NEW_STORES", "ACME_HK", "FY2025", "12", unit="COUNT"),
        ]
    )
    result = ask("香港2025年新开门店数同比增长多少", store=store, operation=growth())
    (change,) = result.computed
    assert change.value == D("12")
    assert (
        result.answer.splitlines()[0]
        == "ACME香港 FY2025 新开门店数同比增加 12。基期数为 0，增长率无意义，仅给出变动额。"
    )
    assert "%" not in result.answer


def test_a_missing_base_is_refused_naming_it_with_no_figure() -> None:
    result = ask("东南亚2023年营收同比增长多少", operation=growth())
    assert result.answer_kind == "refusal"
    assert result.answer == (
        "无法计算：ACME东南亚 FY2023 营业收入同比增长率。缺少计算所需的数据：ACME东南亚营业收入 FY2022。"
        "为避免误导，不提供任何推测数字。"
    )
    assert "3,346.5" not in result.answer and "3346.5" not in result.answer
    assert result.facts == () and result.sources == () and result.computed == ()
    assert result.tool_results == (
        {
            "status": "not_found",
            "normalized": {"metric": "REVENUE", "entity": "ACME_SEA", "period": "FY2022", "channel": "TOTAL"},
        },
    )
    assert result.guard.fabrication_guard_triggered


def test_difference_between_two_listed_periods() -> None:
    result = ask("集团2024年和2025年营收相差多少", operation=Operation("difference"))
    rate, change = result.computed
    assert (change.kind, change.value) == ("difference", D("10110.4"))
    assert (rate.kind, rate.unit, rate.display) == ("difference", "PCT", "8.54%")
    assert result.answer.startswith("ACME集团 FY2025 营业收入较 FY2024 增长 8.54%，增加 10,110.4 百万元。")


def test_difference_of_one_period_is_the_growth_change_only() -> None:
    result = ask("集团2025年营收比上年增加了多少", operation=Operation("difference"))
    (change,) = result.computed
    assert change.value == D("10110.4") and change.unit == "CNY_M"
    assert result.answer.splitlines()[0] == "ACME集团 FY2025 营业收入同比增加 10,110.4 百万元。"
    assert "%" not in result.answer


def test_a_difference_across_period_types_is_refused() -> None:
    result = ask("集团2025年上半年和2025年营收相差多少", operation=Operation("difference"))
    assert result.answer_kind == "refusal" and "同类期间" in result.answer
    assert result.facts == () and "61,204.8" not in result.answer


def test_cagr_between_the_first_and_last_listed_years() -> None:
    result = ask(
        "集团2022年到2025年营收复合增长率",
        operation=Operation("cagr"),
        periods=(Period("FY", "2022"), Period("FY", "2025")),
    )
    (cagr,) = result.computed
    reference = exact(lambda: (D("128450.6") / D("98215.4")) ** (D(1) / D(3)) - 1)
    assert cagr.kind == "cagr" and abs(cagr.value - reference) < D("1e-30")
    assert cagr.display == "9.36%"
    assert result.answer.startswith("ACME集团 营业收入复合年增长率（FY2022–FY2025）为 9.36%。")
    assert [f.period.label for f in result.facts] == ["FY2025", "FY2022"]


def test_cagr_with_one_year_is_refused() -> None:
    result = ask("集团2025年营收复合增长率", operation=Operation("cagr"))
    assert result.answer_kind == "refusal" and "起止两个年份" in result.answer and result.facts == ()


# -- ratio and share -------------------------------------------------------------------------


def test_ratio_of_two_metrics() -> None:
    result = ask("集团2025年营业利润与营收之比", operation=Operation("ratio"))
    (ratio,) = result.computed
    assert ratio.value == exact(lambda: D("9487.3") / D("128450.6")) and ratio.display == "7.39%"
    assert result.answer.startswith("ACME集团 FY2025 营业利润与营业收入之比为 7.39%。")
    assert result.answer.splitlines()[1] == "公式：营业利润 FY2025 ÷ 营业收入 FY2025"


def test_a_ratio_needs_two_metrics() -> None:
    result = ask("集团2025年营收之比", operation=Operation("ratio"))
    assert result.answer_kind == "refusal" and "两个指标" in result.answer
    assert "128,450.6" not in result.answer and result.facts == ()


def test_share_of_two_metrics() -> None:
    result = ask("集团2025年营业利润占营收的比重", operation=Operation("share"))
    assert result.computed[0].value == exact(lambda: D("9487.3") / D("128450.6"))
    assert result.computed[0].kind == "share"


def test_share_of_one_entity_in_another() -> None:
    result = ask("2025年香港营收占集团的比重", operation=Operation("share"))
    (share,) = result.computed
    assert share.value == exact(lambda: D("24015.8") / D("128450.6")) and share.display == "18.70%"
    assert [f.entity for f in result.facts] == ["ACME_HK", "ACME_GROUP"]


def test_share_of_one_entity_is_of_its_parent() -> None:
    result = ask("2025年香港营收占比", operation=Operation("share"))
    (share,) = result.computed
    assert share.value == exact(lambda: D("24015.8") / D("128450.6"))
    assert share.formula == "REVENUE[ACME_HK,FY2025] / REVENUE[ACME_GROUP,FY2025]"


def test_share_of_a_channel_is_of_its_entity_total() -> None:
    result = ask("中国内地2025年线上收入占比", operation=Operation("share"), channels=("ONLINE",))
    (share,) = result.computed
    assert share.value == exact(lambda: D("41230.5") / D("96120.3")) and share.display == "42.89%"
    assert share.formula == "REVENUE[FY2025,ONLINE] / REVENUE[FY2025,TOTAL]"


def test_the_share_of_an_entity_without_a_parent_is_refused_not_its_level() -> None:
    result = ask("集团2025年营收占比", operation=Operation("share"))
    assert result.answer_kind == "refusal" and "没有上级实体" in result.answer
    assert "128,450.6" not in result.answer and result.facts == () and result.computed == ()


# -- sum -------------------------------------------------------------------------------------


def test_sum_across_listed_entities() -> None:
    result = ask("2025年香港和东南亚营收合计是多少", operation=Operation("sum", cue="合计"))
    (total,) = result.computed
    assert (total.kind, total.value, total.display) == ("sum", D("32330.3"), "32,330.3")
    assert result.answer.splitlines()[0] == "FY2025 ACME香港、ACME东南亚营业收入合计为 32,330.3 百万元。"
    assert result.answer.splitlines()[1] == "公式：ACME香港营业收入 FY2025 + ACME东南亚营业收入 FY2025"


def test_sum_across_listed_channels() -> None:
    result = ask("中国内地2025年线上和门店营收合计", operation=Operation("sum"), channels=("ONLINE", "STORE"))
    assert result.computed[0].value == D("41230.5") + D("38904.6")


def test_sum_over_every_channel() -> None:
    result = ask("中国内地2025年各渠道营收合计", operation=Operation("sum", over="channels"))
    assert result.computed[0].value == D("41230.5") + D("38904.6") + D("15985.2")
    assert {f.channel for f in result.facts} == {"ONLINE", "STORE", "DISTRIBUTOR"}


def test_a_sum_of_an_entity_and_its_parent_is_refused() -> None:
    result = ask("2025年集团和香港营收合计", operation=Operation("sum"))
    assert result.answer_kind == "refusal" and "重叠" in result.answer and result.facts == ()


def test_a_sum_of_mixed_units_is_refused() -> None:
    store = demo_store(
        fact("ACTIVE_MEMBERS", "ACME_HK", "FY2025", "120", unit="TEN_THOUSAND_PERSONS"),
        fact("ACTIVE_MEMBERS", "ACME_SEA", "FY2025", "30", unit="COUNT"),
    )
    result = ask("2025年香港和东南亚活跃会员数合计", store=store, operation=Operation("sum"))
    assert result.answer_kind == "refusal" and "单位不一致" in result.answer
    assert result.facts == () and "120" not in result.answer


def test_a_sum_with_a_missing_item_is_refused() -> None:
    result = ask(
        "2025年香港和东南亚营收合计",
        store=demo_store(drop=(("REVENUE", "ACME_SEA", "FY2025"),)),
        operation=Operation("sum"),
    )
    assert result.answer_kind == "refusal" and "ACME东南亚营业收入 FY2025" in result.answer
    assert "24,015.8" not in result.answer and result.facts == ()
    assert result.answer.startswith("无法计算：FY2025 营业收入合计。")  # of both, not of the first one


# -- rank ------------------------------------------------------------------------------------


def rank(**kwargs: Any) -> Operation:
    return Operation("rank", cue="最高", **kwargs)


def test_rank_across_the_home_entitys_subsidiaries() -> None:
    result = ask("2025年哪个地区营收最高", operation=rank(over="entities"))
    lines = result.answer.splitlines()
    assert "FY2025 营业收入最高的是 ACME中国内地（96,120.3 百万元）。" in lines
    start = lines.index("排名（从高到低）：")
    assert lines[start + 1 : start + 4] == [
        "1. ACME中国内地 96,120.3 百万元",
        "2. ACME香港 24,015.8 百万元",
        "3. ACME东南亚 8,314.5 百万元",
    ]
    assert result.ranking is not None and [r.subject.entity for r in result.ranking.rows] == [
        "ACME_CN",
        "ACME_HK",
        "ACME_SEA",
    ]
    assert [c.as_dict()["ranked_value"] for c in result.computed] == ["96120.3", "24015.8", "8314.5"]
    assert [c.as_dict()["ranked_display"] for c in result.computed] == ["96,120.3", "24,015.8", "8,314.5"]
    assert [c.value for c in result.computed] == [1, 2, 3]
    assert len(result.facts) == 3 and "128,450.6" not in result.answer


def test_rank_ties_are_marked_and_missing_entities_listed() -> None:
    store = InMemoryFactStore(
        [
            fact("REVENUE", "ACME_CN", "FY2025", "500"),
            fact("REVENUE", "ACME_HK", "FY2025", "500.0"),
            fact("REVENUE", "ACME_SEA", "FY2025", "80"),
        ]
    )
    store.facts.pop(("REVENUE", "ACME_SEA", "FY", "2025", "TOTAL"))
    result = ask(
        "2025年中国内地、香港和东南亚营收排名",
        store=store,
        operation=rank(),
        entities=("ACME_CN", "ACME_HK", "ACME_SEA"),
    )
    lines = result.answer.splitlines()
    assert "FY2025 营业收入：3 项中有 2 项有该数据。" in lines
    assert "在有数据的 2 项中，FY2025 营业收入并列最高的是 ACME中国内地、ACME香港（500 百万元）。" in lines
    assert "1. ACME中国内地 500 百万元（并列）" in lines and "1. ACME香港 500.0 百万元（并列）" in lines
    assert "未找到：ACME东南亚（无该数据，未参与排名）" in lines
    assert result.ranking is not None and [r.rank for r in result.ranking.rows] == [1, 1]
    assert result.ranking.missing[0].entity == "ACME_SEA"
    assert {
        "status": "not_found",
        "normalized": {"metric": "REVENUE", "entity": "ACME_SEA", "period": "FY2025", "channel": "TOTAL"},
    } in result.tool_results


def test_a_ranking_with_some_figures_missing_ranks_among_those_present() -> None:
    store = demo_store(fact("NET_PROFIT", "ACME_HK", "FY2025", "1200.5"))
    result = ask("2025年各地区净利润排名", store=store, cleared=True, operation=rank(over="entities"))
    lines = result.answer.splitlines()
    assert lines[:2] == [
        "FY2025 净利润：3 项中有 2 项有该数据。",
        "在有数据的 2 项中，FY2025 净利润最高的是 ACME香港（1,200.5 百万元）。",
    ]
    assert "未找到：ACME中国内地（无该数据，未参与排名）" in lines
    assert [c.value for c in result.computed] == [1, 2]


def test_a_lone_figure_is_given_with_its_source_never_as_the_highest() -> None:
    # The cleared analyst sees one region's FY2025 net profit of three.
    result = ask("2025年各地区净利润排名", cleared=True, operation=rank(over="entities"))
    assert result.answer.splitlines() == [
        "FY2025 净利润：3 项中只有 1 项有该数据，无法排名。",
        "ACME东南亚 FY2025 净利润：-1,402.6 百万元（来源：东南亚扩张计划_内部.docx · facts.csv,row=59）",
        "未找到：ACME中国内地、ACME香港（无该数据）",
    ]
    assert result.answer_kind == "answer" and result.computed == ()
    assert [f.entity for f in result.facts] == ["ACME_SEA"] and [s.doc for s in result.sources] == [
        "东南亚扩张计划_内部.docx"
    ]
    not_found = {r["normalized"]["entity"] for r in result.tool_results if r["status"] == "not_found"}
    assert not_found == {"ACME_CN", "ACME_HK"}
    english = ask("Rank the regions by net profit in 2025", cleared=True, operation=rank(over="entities"))
    assert (
        english.answer.splitlines()[0] == "FY2025 net profit: only 1 of 3 items has the figure, so there is no ranking."
    )
    assert "highest" not in english.answer.lower()


def test_a_lone_formula_figure_is_given_with_its_formula_and_inputs() -> None:
    result = ask("2025年各地区净利率排名", cleared=True, operation=rank(over="entities"))
    lines = result.answer.splitlines()
    assert lines[:2] == ["FY2025 净利率：3 项中只有 1 项有该数据，无法排名。", "ACME东南亚 FY2025 净利率为 -16.87%。"]
    assert lines[2] == "公式：净利润 FY2025 ÷ 营业收入 FY2025"
    assert "未找到：ACME中国内地、ACME香港（无该数据）" in lines and "最高" not in result.answer
    assert [(c.kind, c.display) for c in result.computed] == [("formula", "-16.87%")]
    assert {f.metric for f in result.facts} == {"NET_PROFIT", "REVENUE"}


def test_a_lone_visible_figure_hides_whether_the_others_are_restricted_or_absent() -> None:
    store = demo_store(fact("NET_PROFIT", "ACME_HK", "FY2025", "1200.5"))
    result = ask("2025年各地区净利润排名", store=store, operation=rank(over="entities"))
    assert result.answer.splitlines()[0] == "FY2025 净利润：3 项中只有 1 项有该数据，无法排名。"
    assert "未找到：ACME中国内地、ACME东南亚（无该数据）" in result.answer.splitlines()
    assert "最高" not in result.answer and "1,402.6" not in result.answer and "东南亚扩张计划" not in result.answer


def test_a_ranking_where_no_item_has_the_figure_says_none_has_it() -> None:
    # The uncleared analyst sees none of the regions' FY2025 net profit.
    result = ask("2025年各地区净利润排名", operation=rank(over="entities"))
    assert result.answer == (
        "无法计算：FY2025 净利润排名。3 项均无该数据（ACME中国内地、ACME香港、ACME东南亚），无法排名。"
        "为避免误导，不提供任何推测数字。"
    )
    assert result.answer_kind == "refusal" and result.facts == () and result.computed == ()
    english = ask("Rank the regions by net profit in 2025", operation=rank(over="entities"))
    assert english.answer == (
        "Cannot compute FY2025 net profit ranking: None of the 3 items has the figure "
        "(mainland China, Hong Kong, Southeast Asia), so there is no ranking. "
        "To avoid misleading you, no estimated figure is given."
    )


def test_rank_top_n_keeps_every_figure_as_an_input() -> None:
    result = ask("2025年营收前2名的地区", operation=rank(top=2, over="entities"))
    assert result.ranking is not None and len(result.ranking.rows) == 2
    assert "前 2 名" in result.answer and "8,314.5" not in result.answer.split("公式")[0]
    assert len(result.facts) == 3  # the third figure decided the order too


def test_rank_lowest_first() -> None:
    result = ask("2025年哪个地区毛利率最低", operation=rank(order="asc", over="entities"))
    assert "FY2025 毛利率最低的是 ACME东南亚（18.2%）。" in result.answer
    assert "1. ACME东南亚 18.2%" in result.answer


def test_rank_across_channels() -> None:
    result = ask("中国内地2025年哪个渠道营收最高", operation=rank(over="channels"))
    assert "ACME中国内地 FY2025 营业收入最高的是 线上（41,230.5 百万元）。" in result.answer


def test_rank_in_english() -> None:
    result = ask("Which region had the highest revenue in 2025?", operation=rank(over="entities"))
    assert "Highest FY2025 revenue: mainland China (96,120.3 CNY m)." in result.answer
    assert "1. mainland China 96,120.3 CNY m" in result.answer


# -- decimals and rounding -------------------------------------------------------------------


@pytest.mark.parametrize(("decimals", "rate", "change"), [(0, "9%", "10,110"), (4, "8.5435%", "10,110.4000")])
def test_decimals_asked_for_are_honoured(decimals: int, rate: str, change: str) -> None:
    result = ask("集团2025年营收同比增长多少，保留位小数", operation=growth(decimals=decimals))
    assert [c.display for c in result.computed] == [rate, change]
    assert result.computed[0].as_dict()["value"].startswith("0.085435042")


def test_display_rounds_half_up_and_keeps_the_exact_value() -> None:
    store = InMemoryFactStore(
        [fact("REVENUE", "ACME_HK", "FY2024", "800"), fact("REVENUE", "ACME_HK", "FY2025", "801")]
    )
    result = ask("香港2025年营收同比增长多少", store=store, operation=growth())
    assert result.computed[0].value == D("0.00125") and result.computed[0].display == "0.13%"


def test_decimals_out_of_range_are_refused_with_a_reason() -> None:
    result = ask("集团2025年营收同比增长多少，保留20位小数", operation=growth(decimals=20))
    assert result.answer_kind == "refusal" and "小数位数" in result.answer and result.facts == ()


# -- formula metrics at their level ----------------------------------------------------------


def test_a_formula_metric_level_is_computed() -> None:
    result = ask("集团2025年营业利润率是多少")
    (margin,) = result.computed
    assert margin.kind == "formula" and margin.value == exact(lambda: D("9487.3") / D("128450.6"))
    assert result.answer.splitlines()[0] == "ACME集团 FY2025 营业利润率为 7.39%。"
    assert [f.metric for f in result.facts] == ["OPERATING_PROFIT", "REVENUE"]


def test_a_stored_fact_wins_over_the_formula() -> None:
    stored = fact("OPERATING_MARGIN", "ACME_GROUP", "FY2025", "7.4", unit="PCT")
    result = ask("集团2025年营业利润率是多少", store=demo_store(stored))
    assert result.facts == (stored,) and result.computed == ()
    assert result.answer.startswith("ACME集团 FY2025 营业利润率：7.4%（来源：t.xlsx")


def test_a_formula_metric_in_a_listing() -> None:
    result = ask("集团2025年营业利润率和毛利率")
    assert [c.kind for c in result.computed] == ["formula"]
    assert "ACME集团 FY2025 毛利率：29.7%" in result.answer and "营业利润率为 7.39%" in result.answer


# -- RESTRICTED inputs -----------------------------------------------------------------------


def visible(result: Any) -> tuple[Any, ...]:
    return (
        result.answer,
        result.answer_kind,
        result.facts,
        result.tool_results,
        result.sources,
        result.computed,
        result.guard,
    )


RESTRICTED_KEY = (("NET_PROFIT", "ACME_SEA", "FY2025"),)


def test_a_restricted_input_reaches_only_cleared_users() -> None:
    shown = ask("东南亚2025年净利率是多少", cleared=True)
    assert shown.answer_kind == "answer" and shown.computed[0].display == "-16.87%"
    assert shown.computed[0].sensitivity == RESTRICTED
    hidden = ask("东南亚2025年净利率是多少")
    assert hidden.answer_kind == "refusal" and hidden.facts == () and hidden.computed == ()
    for text in ("1402.6", "1,402.6", "16.87", "8,314.5"):
        assert text not in hidden.answer


@pytest.mark.parametrize(
    ("question", "changes"),
    [
        ("东南亚2025年净利率是多少", {}),
        ("东南亚2025年净利润同比增长多少", {"operation": growth()}),
        ("2025年各地区净利润排名", {"operation": rank(over="entities")}),
        ("2025年香港和东南亚净利润合计", {"operation": Operation("sum")}),
        ("2025年东南亚净利润占集团比重", {"operation": Operation("share")}),
    ],
)
def test_an_uncleared_user_gets_what_they_would_if_the_restricted_input_did_not_exist(
    question: str, changes: dict[str, Any]
) -> None:
    store = demo_store(
        fact("NET_PROFIT", "ACME_HK", "FY2025", "1200.5"), fact("NET_PROFIT", "ACME_SEA", "FY2024", "-900.1")
    )
    uncleared = ask(question, store=store, **changes)
    deleted = ask(
        question, store=InMemoryFactStore([f for f in store.facts.values() if f.sensitivity != RESTRICTED]), **changes
    )
    deleted_cleared = ask(
        question,
        cleared=True,
        store=InMemoryFactStore([f for f in store.facts.values() if f.sensitivity != RESTRICTED]),
        **changes,
    )
    assert visible(uncleared) == visible(deleted) == visible(deleted_cleared)
    assert all(f.sensitivity != RESTRICTED for f in uncleared.facts)
    assert "1,402.6" not in uncleared.answer


# -- never a different question --------------------------------------------------------------


@pytest.mark.parametrize("metric", [None, "NET_PROFIT"])
def test_an_unknown_metric_is_asked_back_never_answered_with_a_shorter_alias(metric: str | None) -> None:
    glossary = glossary_without(demo_glossary(), "NET_MARGIN")  # 净利 is defined; 净利率 is not
    changes = {"metric": metric, "metrics": (metric,) if metric else (), "unknown_metric": "净利率"}
    store = demo_store()
    result = ask("集团2025年净利率是多少", glossary=glossary, store=store, **changes)
    assert result.answer_kind == "clarification" and result.clarification.mode == "ask_first"
    assert result.answer.startswith("未找到指标“净利率”")
    assert "NET_PROFIT" not in result.answer and "6,811.9" not in result.answer and "6811.9" not in result.answer
    options = result.clarification.narrowing_options
    assert options[0].label == "净利润" and options[0].scope == {"metric": "NET_PROFIT"}
    assert "营业收入" not in [o.label for o in options]  # shares no character with 净利率
    assert result.facts == () and store.calls == 0


def test_choosing_an_offered_metric_answers_it() -> None:
    glossary = demo_glossary()
    intent = intent_for("集团2025年净利率是多少", glossary, metric=None, metrics=(), unknown_metric="净利率")
    result = answer_question(
        "集团2025年净利率是多少",
        Ports(glossary=glossary, store=demo_store(), provider=MockProvider(), parser=FixedParser(intent)),
        cleared=False,
        reference_date=REF,
        scope={"metric": "NET_PROFIT"},
    )
    assert result.answer_kind == "answer" and [str(f.value) for f in result.facts] == ["6811.9"]


def test_a_scoped_channel_narrows_a_listed_pair() -> None:
    intent = intent_for("中国内地2025年线上和门店营收", channels=("ONLINE", "STORE"))
    result = answer_question(
        "中国内地2025年线上和门店营收",
        Ports(glossary=GLOSSARY, store=demo_store(), provider=MockProvider(), parser=FixedParser(intent)),
        cleared=False,
        reference_date=REF,
        scope={"channel": "STORE"},
    )
    assert [(f.channel, str(f.value)) for f in result.facts] == [("STORE", "38904.6")]


def test_an_operation_without_a_metric_asks_which_metric() -> None:
    store = demo_store()
    result = ask("集团2025年同比增长多少", store=store, metric=None, metrics=(), operation=growth())
    assert result.answer_kind == "clarification" and result.clarification.mode == "ask_first"
    assert result.facts == () and result.computed == () and store.calls == 0


def test_an_operation_never_falls_back_to_the_level_when_its_inputs_are_missing() -> None:
    result = ask("东南亚2025年ROE同比增长多少", operation=growth())
    assert result.answer_kind == "refusal" and result.facts == ()
    assert result.answer.startswith("无法计算：ACME东南亚 FY2025 净资产收益率同比增长率。")


def test_a_missing_period_uses_the_assumed_year_and_says_so() -> None:
    result = ask("集团营收同比增长多少", operation=growth())
    assert result.answer.startswith("【假设】未指定期间，按最近完整财年 FY2025 计算。")
    assert "同比增长 8.54%" in result.answer


def test_a_computed_question_calls_no_llm() -> None:
    result = ask("集团2025年营收同比增长多少", operation=growth())  # ExplodingProvider by default
    assert result.answer_kind == "answer"


def test_a_composite_keeps_its_computed_values() -> None:
    result = ask("集团2025年营收同比增长的原因", operation=growth(), route="composite")
    # the growth, then the why's parts (each subsidiary's change and share), the growth not again
    assert [c.kind for c in result.computed][:2] == ["growth", "growth"]
    assert {c.kind for c in result.computed[2:]} == {"change", "share"}
    assert result.answer.count("同比增长 8.54%") == 1
    assert "归因分析：" in result.answer


# -- the property: every computed value is its formula over its listed inputs ----------------

ENTITIES = ("ACME_GROUP", "ACME_CN", "ACME_HK", "ACME_SEA")
YEARS = ("2022", "2023", "2024", "2025")
figures = st.one_of(
    st.decimals(min_value=1, max_value=10**7, places=2),
    st.decimals(min_value=-(10**4), max_value=10**4, places=3),
    st.just(D(0)),
)


@st.composite
def fact_tables(draw: st.DrawFn) -> list[FactRecord]:
    facts = []
    for metric in ("REVENUE", "OPERATING_PROFIT"):
        for entity in ENTITIES:
            for year in YEARS:
                if draw(st.integers(0, 9)) == 0:
                    continue
                sensitivity = draw(st.sampled_from((PUBLIC, INTERNAL, INTERNAL, RESTRICTED)))
                facts.append(fact(metric, entity, f"FY{year}", str(draw(figures)), sensitivity=sensitivity))
    return facts


@pytest.mark.parametrize(
    ("kind", "metrics", "over"),
    [
        ("growth", ("REVENUE",), None),
        ("difference", ("REVENUE",), None),
        ("cagr", ("REVENUE",), None),
        ("ratio", ("OPERATING_PROFIT", "REVENUE"), None),
        ("share", ("REVENUE",), "parent"),  # one entity: of its parent
        ("share", ("OPERATING_PROFIT", "REVENUE"), None),
        ("sum", ("REVENUE",), "entities"),
        ("rank", ("REVENUE",), "entities"),
        ("rank", ("OPERATING_MARGIN",), "entities"),
        ("growth", ("OPERATING_MARGIN",), None),
        (None, ("OPERATING_MARGIN",), None),
    ],
)
@settings(derandomize=True, database=None, max_examples=40, deadline=None)
@given(
    facts=fact_tables(),
    entities=st.lists(st.sampled_from(ENTITIES), min_size=1, max_size=3, unique=True),
    years=st.lists(st.sampled_from(YEARS), min_size=1, max_size=2, unique=True),
    cleared=st.booleans(),
    decimals=st.one_of(st.none(), st.integers(0, 6)),
)
def test_every_computed_value_is_its_formula_over_its_listed_inputs(
    kind: str | None,
    metrics: tuple[str, ...],
    over: str | None,
    facts: list[FactRecord],
    entities: list[str],
    years: list[str],
    cleared: bool,
    decimals: int | None,
) -> None:
    periods = tuple(Period("FY", y) for y in sorted(years))
    if over == "parent":
        entities, over = entities[:1], None
    intent = ParsedIntent(
        raw_question="q",
        metric=metrics[0],
        entity=entities[0],
        period=periods[-1],
        metrics=metrics,
        entities=tuple(entities),
        periods=periods,
        route="structured",
        operation=Operation(kind, decimals=decimals, over=over) if kind else None,
    )
    result = answer_question(
        "q",
        Ports(
            glossary=GLOSSARY, store=InMemoryFactStore(facts), provider=ExplodingProvider(), parser=FixedParser(intent)
        ),
        cleared=cleared,
        reference_date=REF,
    )
    listed = set(result.facts)
    for item in result.computed:
        assert item.inputs and set(item.inputs) <= listed
        if item.kind != "rank":
            assert computed_reevaluate(item) == item.value
    if not cleared:
        assert all(f.sensitivity != RESTRICTED for f in result.facts)
    if result.answer_kind == "refusal":
        assert result.computed == () and result.facts == ()
    found = [r for r in result.tool_results if r["status"] == "found"]
    assert len(found) == len(result.facts) == len(result.sources)
