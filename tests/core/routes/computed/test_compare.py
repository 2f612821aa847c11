"""Differences, ratios, shares, sums and rankings between listed items (red team 1: B, E, H, N),
driven by hand-built intents so that they hold whatever the parser reads."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.engine import computed_reevaluate
from core.model.intent import ParsedIntent
from core.model.operation import Operation
from core.model.period import Period
from core.model.result import AgentResult
from core.pipeline import answer_question
from core.ports import Ports
from tests.core.support.computing import GLOSSARY, REF, FixedParser, demo_store, exact, fact
from tests.fakes import InMemoryFactStore
from tests.scripted import ExplodingProvider

D = Decimal
FY2023, FY2024, FY2025 = Period("FY", "2023"), Period("FY", "2024"), Period("FY", "2025")
H1 = Period("HY", "2025H1")
QUARTERS = tuple(Period("QUARTER", f"2025Q{q}") for q in (1, 2, 3, 4))


def run(
    question: str,
    operation: Operation,
    *,
    metrics: tuple[str, ...] = ("REVENUE",),
    entities: tuple[str, ...] = ("ACME_GROUP",),
    periods: tuple[Period, ...] = (FY2025,),
    channels: tuple[str, ...] = ("TOTAL",),
    store: InMemoryFactStore | None = None,
    cleared: bool = False,
    language: str = "zh",
) -> AgentResult:
    intent = ParsedIntent(
        raw_question=question,
        metric=metrics[0] if metrics else None,
        metrics=metrics,
        entity=entities[0] if entities else None,
        entities=entities,
        period=periods[0],
        periods=periods,
        channel=channels[0],
        channels=channels,
        channel_given=channels != ("TOTAL",),
        route="structured",
        operation=operation,
        language=language,
    )
    result = answer_question(
        question,
        Ports(
            glossary=GLOSSARY,
            store=store if store is not None else demo_store(),
            provider=ExplodingProvider(),
            parser=FixedParser(intent),
        ),
        cleared=cleared,
        reference_date=REF,
    )
    for item in result.computed:  # every value is its formula over its listed inputs
        assert set(item.inputs) <= set(result.facts)
        if item.kind != "rank":
            assert computed_reevaluate(item) == item.value
    return result


DIFFERENCE = Operation("difference", cue="差额")
GROWTH = Operation("growth", cue="增长多少")


# -- B: a difference between two listed items ------------------------------------------------


def test_a_difference_between_two_entities_is_the_first_minus_the_second() -> None:
    result = run("2025年香港比东南亚营收多多少", DIFFERENCE, entities=("ACME_HK", "ACME_SEA"))
    rate, change = result.computed
    assert (change.kind, change.value, change.display) == ("difference", D("15701.3"), "15,701.3")
    assert rate.value == exact(lambda: D("15701.3") / D("8314.5")) and rate.display == "188.84%"
    lines = result.answer.splitlines()
    assert lines[0] == "ACME香港 FY2025 营业收入比ACME东南亚多 15,701.3 百万元，高 188.84%。"
    assert lines[1] == "公式：(ACME香港营业收入 FY2025 − ACME东南亚营业收入 FY2025) ÷ ACME东南亚营业收入 FY2025"
    assert [f.entity for f in result.facts] == ["ACME_HK", "ACME_SEA"]
    assert "同比" not in result.answer and "1,714.3" not in result.answer  # not each one's YoY
    assert change.as_dict()["name"] == "ACME香港营业收入与ACME东南亚营业收入的差额"


def test_a_difference_between_two_entities_in_english() -> None:
    result = run("HK vs SEA revenue 2025", DIFFERENCE, entities=("ACME_CN", "ACME_HK"), language="en")
    first = result.answer.splitlines()[0]
    assert first == "mainland China FY2025 revenue was 72,104.5 CNY m more than Hong Kong (300.24% higher)."


def test_a_smaller_first_item_reads_as_less() -> None:
    result = run("2025年东南亚比香港营收多多少", DIFFERENCE, entities=("ACME_SEA", "ACME_HK"))
    assert result.computed[-1].value == D("-15701.3")
    assert result.answer.startswith("ACME东南亚 FY2025 营业收入比ACME香港少 15,701.3 百万元，低 65.38%。")


def test_a_difference_of_a_percentage_between_entities_is_in_points() -> None:
    result = run("香港2025年ROE与集团ROE差多少", DIFFERENCE, metrics=("ROE",), entities=("ACME_HK", "ACME_GROUP"))
    (change,) = result.computed
    assert (change.value, change.unit) == (D("-1.8"), "PP")
    assert result.answer.startswith("ACME香港 FY2025 净资产收益率比ACME集团低 1.8 个百分点。")


def test_a_difference_between_two_metrics_of_one_unit() -> None:
    result = run(
        "东南亚2025年净利润和营业利润的差额",
        DIFFERENCE,
        metrics=("NET_PROFIT", "OPERATING_PROFIT"),
        entities=("ACME_SEA",),
        cleared=True,
    )
    (change,) = result.computed  # a negative base: no relative difference
    assert (change.kind, change.value, change.unit) == ("difference", D("-317.4"), "CNY_M")
    first = result.answer.splitlines()[0]
    assert first == "ACME东南亚 FY2025 净利润比营业利润少 317.4 百万元。对比基数为负，不计算相对差异。"
    assert result.answer.splitlines()[1] == "公式：净利润 FY2025 − 营业利润 FY2025"
    assert [f.metric for f in result.facts] == ["NET_PROFIT", "OPERATING_PROFIT"]


def test_a_difference_between_two_percentage_metrics_is_in_points() -> None:
    result = run("集团2025年毛利率和营业利润率差多少个百分点", DIFFERENCE, metrics=("GROSS_MARGIN", "OPERATING_MARGIN"))
    (change,) = result.computed
    assert change.unit == "PP" and change.display == "22.31 pp"
    assert change.value == exact(lambda: D("29.7") - D("9487.3") / D("128450.6") * 100)
    assert result.answer.startswith("ACME集团 FY2025 毛利率比营业利润率高 22.31 个百分点。")
    assert [f.metric for f in result.facts] == ["GROSS_MARGIN", "OPERATING_PROFIT", "REVENUE"]


def test_a_difference_between_metrics_of_two_units_is_refused_with_the_reason() -> None:
    result = run("集团2025年新开门店数和活跃会员数差多少", DIFFERENCE, metrics=("NEW_STORES", "ACTIVE_MEMBERS"))
    assert result.answer_kind == "refusal" and result.facts == () and result.computed == ()
    assert "单位不一致" in result.answer and "412" not in result.answer and "5,832" not in result.answer


def test_a_difference_between_two_channels() -> None:
    result = run(
        "中国内地2025年线上比门店营收多多少",
        DIFFERENCE,
        entities=("ACME_CN",),
        channels=("ONLINE", "STORE"),
    )
    change = result.computed[-1]
    assert change.value == D("41230.5") - D("38904.6")
    assert result.answer.startswith("ACME中国内地 FY2025 营业收入（线上）比门店多 2,325.9 百万元")


def test_a_difference_of_three_listed_entities_is_refused() -> None:
    result = run("2025年三个地区营收差额", DIFFERENCE, entities=("ACME_CN", "ACME_HK", "ACME_SEA"))
    assert result.answer_kind == "refusal" and "两项" in result.answer and result.facts == ()


def test_a_difference_of_two_entities_for_each_listed_period() -> None:
    result = run(
        "香港和东南亚2024年和2025年营收差额", DIFFERENCE, entities=("ACME_HK", "ACME_SEA"), periods=(FY2024, FY2025)
    )
    changes = [c for c in result.computed if c.unit == "CNY_M"]
    assert [c.value for c in changes] == [D("25730.1") - D("5207.5"), D("15701.3")]


# -- B and N: growth between two named periods -----------------------------------------------


def test_growth_between_two_named_years_is_one_change_from_the_earlier_to_the_later() -> None:
    result = run("集团2025年营收 vs 2023年 增长多少", GROWTH, periods=(FY2025, FY2023))
    rate, change = result.computed
    assert change.value == D("21577.7") and rate.value == exact(lambda: D("21577.7") / D("106872.9"))
    assert (rate.kind, rate.display) == ("growth", "20.19%")
    assert result.answer.splitlines()[0] == "ACME集团 FY2025 营业收入较 FY2023 增长 20.19%，增加 21,577.7 百万元。"
    assert sorted(f.period.label for f in result.facts) == ["FY2023", "FY2025"]
    assert rate.as_dict()["name"] == "营业收入增长率（FY2023–FY2025）"


def test_growth_between_two_named_years_with_a_missing_one_is_refused_naming_it() -> None:
    result = run(
        "东南亚2022年到2025年营收增长多少", GROWTH, entities=("ACME_SEA",), periods=(Period("FY", "2022"), FY2025)
    )
    assert result.answer_kind == "refusal" and result.facts == ()
    assert result.answer.startswith(
        "无法计算：ACME东南亚 FY2025 营业收入较 FY2022 增长率。缺少计算所需的数据：ACME东南亚营业收入 FY2022"
    )


def test_growth_from_one_year_to_the_next_adds_no_yoy_line_of_the_earlier_year() -> None:
    result = run("集团2024年营收到2025年营收的增长率", GROWTH, periods=(FY2024, FY2025))
    assert [c.display for c in result.computed] == ["8.54%", "10,110.4"]
    assert "FY2023" not in result.answer and "10.73%" not in result.answer


def test_a_percentage_between_two_named_years_changes_in_points() -> None:
    result = run("集团ROE 2023到2025年变化了多少个百分点", GROWTH, metrics=("ROE",), periods=(FY2023, FY2025))
    (change,) = result.computed
    assert (change.value, change.unit) == (D("-0.6"), "PP")
    assert result.answer.startswith("ACME集团 FY2025 净资产收益率较 FY2023 下降 0.6 个百分点。")


def test_growth_over_more_than_two_years_is_each_years_growth() -> None:
    years = (Period("FY", "2023"), FY2024, FY2025)
    result = run("集团营收2023到2025每年增长多少", GROWTH, periods=years)
    rates = [c for c in result.computed if c.unit == "PCT"]
    assert [(c.kind, c.subject.period) for c in rates if c.subject] == [("growth", y) for y in years]
    assert [c.display for c in rates] == ["8.81%", "10.73%", "8.54%"]


# -- H: ratio and sum over two metrics -------------------------------------------------------


def test_the_ratio_of_two_metrics_arrives_as_a_ratio() -> None:
    result = run("集团2025年毛利和营收的比", Operation("ratio", cue="的比"), metrics=("GROSS_PROFIT", "REVENUE"))
    (ratio,) = result.computed
    assert ratio.display == "29.70%" and ratio.value == exact(lambda: D("38149.8") / D("128450.6"))


@pytest.mark.parametrize(
    ("metrics", "entity", "reason"),
    [
        (("NEW_STORES", "ACTIVE_MEMBERS"), "ACME_GROUP", "新开门店数（COUNT）和活跃会员数（万人）单位不一致"),
        (("NET_PROFIT", "REVENUE"), "ACME_SEA", "净利润和营业收入是不同的指标，不能相加"),
    ],
)
def test_a_sum_over_two_metrics_is_refused_with_the_reason(metrics, entity: str, reason: str) -> None:
    store = demo_store()
    result = run("合计", Operation("sum", cue="合计"), metrics=metrics, entities=(entity,), store=store, cleared=True)
    assert result.answer_kind == "refusal" and result.facts == () and result.computed == ()
    assert reason in result.answer
    assert result.answer.startswith("无法计算：") and "合计。" in result.answer.split("\n")[0]
    assert store.calls == 0  # refused before any figure is read


def test_a_sum_of_entities_in_a_named_channel_adds_no_total_channel_sum() -> None:
    result = run(
        "2025年中国内地和香港线上收入合计",
        Operation("sum", cue="合计"),
        entities=("ACME_CN", "ACME_HK"),
        channels=("ONLINE", "TOTAL"),
    )
    (total,) = result.computed
    assert total.value == D("41230.5") + D("6120.4")
    assert "120,136.1" not in result.answer and {f.channel for f in result.facts} == {"ONLINE"}


# -- E: ratios, shares and rankings that combine ----------------------------------------------


def test_the_ratio_of_two_entities_for_one_metric_shows_the_multiple() -> None:
    result = run("内地营收是香港的几倍（2025年）", Operation("ratio", cue="几倍"), entities=("ACME_CN", "ACME_HK"))
    (ratio,) = result.computed
    assert ratio.value == exact(lambda: D("96120.3") / D("24015.8"))
    first = result.answer.splitlines()[0]
    assert first == "FY2025 ACME中国内地营业收入与ACME香港营业收入之比为 400.24%（4.00 倍）。"


def test_the_ratio_of_two_entities_in_english_shows_the_multiple() -> None:
    result = run("CN vs HK", Operation("ratio"), entities=("ACME_CN", "ACME_HK"), language="en")
    assert "400.24% (4.00×)." in result.answer.splitlines()[0]


def test_the_ratio_of_two_metrics_shows_no_multiple() -> None:
    result = run("集团2025年营业利润与营收之比", Operation("ratio"), metrics=("OPERATING_PROFIT", "REVENUE"))
    assert result.answer.splitlines()[0] == "ACME集团 FY2025 营业利润与营业收入之比为 7.39%。"


def test_the_share_of_each_listed_region_is_of_its_parent() -> None:
    result = run(
        "2025年新开门店数各地区占比",
        Operation("share", cue="占比", over="entities"),
        metrics=("NEW_STORES",),
        entities=("ACME_CN", "ACME_HK", "ACME_SEA"),
    )
    assert [c.display for c in result.computed] == ["74.03%", "2.91%", "23.06%"]
    assert [c.formula for c in result.computed][1] == "NEW_STORES[ACME_HK,FY2025] / NEW_STORES[ACME_GROUP,FY2025]"


def test_the_share_of_each_region_without_a_list_is_of_every_subsidiary() -> None:
    result = run("2025年各地区营收占比", Operation("share", over="entities"), entities=())
    assert [c.subject.entity for c in result.computed if c.subject] == ["ACME_CN", "ACME_HK", "ACME_SEA"]


def test_the_share_of_each_channel_is_of_its_entity_total() -> None:
    result = run("中国内地2025年各渠道营收占比", Operation("share", over="channels"), entities=("ACME_CN",))
    assert [c.display for c in result.computed] == ["42.89%", "40.47%", "16.63%"]


def test_the_share_of_a_half_year_in_its_full_year() -> None:
    result = run("集团2025年H1营收占全年的比重", Operation("share", cue="比重"), periods=(H1, FY2025))
    (share,) = result.computed
    assert share.kind == "share" and share.display == "47.65%"
    assert share.value == exact(lambda: D("61204.8") / D("128450.6"))
    assert share.formula == "REVENUE[2025H1] / REVENUE[FY2025]"
    assert result.answer.splitlines()[0] == "ACME集团 营业收入 2025H1 占 FY2025 比重为 47.65%。"


def test_the_share_of_a_quarter_in_its_year() -> None:
    result = run("集团2025年Q4营收占全年比重", Operation("share"), periods=(FY2025, QUARTERS[3]))
    assert result.computed[0].value == exact(lambda: D("35127.3") / D("128450.6"))


def test_the_share_of_a_period_not_inside_the_other_is_refused() -> None:
    result = run("集团2025年H1营收占2024年比重", Operation("share"), periods=(H1, FY2024))
    assert result.answer_kind == "refusal" and result.facts == ()


def test_a_ranking_across_listed_quarters_ranks_the_quarters() -> None:
    result = run("集团2025年各季度营收排名", Operation("rank", cue="排名"), periods=QUARTERS)
    assert result.ranking is not None
    assert [r.subject.period.period for r in result.ranking.rows] == ["2025Q4", "2025Q3", "2025Q2", "2025Q1"]
    assert {r.subject.entity for r in result.ranking.rows} == {"ACME_GROUP"}


def test_a_share_in_two_years_gives_its_change_in_points() -> None:
    result = run(
        "中国区2025年线上收入占比同比变化",
        Operation("share", cue="占比"),
        entities=("ACME_CN",),
        periods=(FY2024, FY2025),
        channels=("ONLINE",),
    )
    older, newer, change = result.computed
    assert (older.display, newer.display) == ("38.92%", "42.89%")
    assert change.unit == "PP" and change.display == "3.97 pp"
    assert change.value == exact(lambda: (D("41230.5") / D("96120.3") - D("34018.9") / D("87402.6")) * 100)
    assert "对比：FY2025 较 FY2024 +3.97 个百分点" in result.answer.splitlines()
    assert len(result.facts) == 4


def test_a_share_in_two_years_with_a_missing_year_gives_no_change() -> None:
    store = demo_store(drop=(("REVENUE", "ACME_CN", "FY2024"),))
    result = run(
        "中国区线上收入占比",
        Operation("share"),
        entities=("ACME_CN",),
        periods=(FY2024, FY2025),
        channels=("ONLINE",),
        store=store,
    )
    assert [c.unit for c in result.computed] == ["PCT"] and "对比" not in result.answer


@pytest.mark.parametrize(
    ("operation", "slots"),
    [
        (DIFFERENCE, {"metrics": ("NET_PROFIT", "OPERATING_PROFIT"), "entities": ("ACME_SEA",)}),
        (DIFFERENCE, {"metrics": ("NET_PROFIT",), "entities": ("ACME_HK", "ACME_SEA")}),
        (GROWTH, {"metrics": ("NET_PROFIT",), "entities": ("ACME_SEA",), "periods": (FY2024, FY2025)}),
        (Operation("ratio"), {"metrics": ("NET_PROFIT",), "entities": ("ACME_SEA", "ACME_HK")}),
        (Operation("share"), {"metrics": ("NET_PROFIT",), "entities": ("ACME_SEA",), "periods": (FY2024, FY2025)}),
    ],
)
def test_an_uncleared_user_gets_what_they_would_if_the_restricted_input_did_not_exist(operation, slots) -> None:
    extra = (fact("NET_PROFIT", "ACME_HK", "FY2025", "1200.5"), fact("NET_PROFIT", "ACME_SEA", "FY2024", "-900.1"))
    store = demo_store(*extra)
    without = InMemoryFactStore([f for f in store.facts.values() if f.sensitivity != "RESTRICTED"])
    uncleared = run("q", operation, store=store, **slots)
    deleted = run("q", operation, store=without, cleared=True, **slots)
    assert (uncleared.answer, uncleared.answer_kind, uncleared.facts, uncleared.computed) == (
        deleted.answer,
        deleted.answer_kind,
        deleted.facts,
        deleted.computed,
    )
    assert "1,402.6" not in uncleared.answer and all(f.sensitivity != "RESTRICTED" for f in uncleared.facts)
