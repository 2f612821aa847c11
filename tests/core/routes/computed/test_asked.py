"""What the question asked reaches the answer: the place in a ranking, and the rounding of a
formula metric asked at its level (both read by the parser, shown by the computing layer)."""

from __future__ import annotations

from tests.core.support.computing import ask, demo_store


def test_the_place_asked_about_is_named_in_the_headline() -> None:
    second = ask("2025年营收排名第二的地区")
    assert second.answer.splitlines()[0] == "FY2025 营业收入从高到低排第 2 的是 ACME香港（24,015.8 百万元）。"
    last = ask("2025年营收排在最后的是哪个地区？")
    assert last.answer.splitlines()[0].startswith("FY2025 营业收入最低的是 ACME东南亚")


def test_a_formula_metric_at_its_level_is_rounded_as_asked() -> None:
    assert "营业利润率为 7.386%。" in ask("集团2025年营业利润率是多少，保留3位小数").answer
    assert "营业利润率为 7.39%。" in ask("集团2025年营业利润率是多少").answer
    [item] = ask("集团2025年营业利润率是多少，保留3位小数").computed
    assert item.display == "7.386%" and str(item.value).startswith("0.07385")


def test_no_place_or_count_out_of_range_reaches_the_engine() -> None:
    for question in (
        "2025年营收前0名的地区",
        "2025年营收排名第0的地区",
        "集团2025年营收同比增长多少，前0名的地区是哪些",
    ):
        result = ask(question)
        assert result.answer_kind in ("clarification", "refusal") and not result.computed


def test_which_member_grew_fastest_orders_the_growths_by_rate() -> None:
    fastest = ask("2025年哪个地区营收同比增长最快")
    lines = fastest.answer.splitlines()
    assert lines[0] == "增长最快的是 ACME东南亚（59.66%）。"
    order = [line.split(" FY2025")[0] for line in lines if " FY2025 营业收入同比" in line]
    assert order == ["ACME东南亚", "ACME中国内地", "ACME香港"]  # 59.66%, 9.97%, -6.66%
    assert {c.kind for c in fastest.computed} == {"growth"} and len(fastest.facts) == 6
    slowest = ask("2025年哪个地区营收同比增长最慢")
    assert slowest.answer.splitlines()[0] == "增长最慢的是 ACME香港（-6.66%）。"
    assert not ask("集团2025年营收同比增长多少").answer.startswith("增长最")  # one subject: nothing to order


def test_two_metrics_apart_in_points_is_their_difference_not_each_ones_growth() -> None:
    result = ask("集团2025年毛利率和营业利润率差多少个百分点")
    assert result.answer.splitlines()[0] == "ACME集团 FY2025 毛利率比营业利润率高 22.31 个百分点。"
    assert [c.kind for c in result.computed] == ["difference"]


def test_colloquial_rise_and_fall_words_ask_for_the_growth_not_the_level() -> None:
    for question in ("香港2025年营收涨了多少？", "香港2025年营收跌了多少", "香港2025年营收跌幅"):
        result = ask(question)
        assert [c.kind for c in result.computed] == ["growth", "growth"], question
        assert "6.66%" in result.answer and "1,714.3" in result.answer, question


_FY2024_REVENUE = tuple(("REVENUE", entity, "FY2024") for entity in ("ACME_CN", "ACME_HK", "ACME_SEA"))


def test_which_member_grew_fastest_names_one_only_among_those_with_a_rate() -> None:
    without = (("REVENUE", "ACME_SEA", "FY2024"),)
    some = ask("2025年哪个地区营收同比增长最快", store=demo_store(drop=without))
    assert some.answer.splitlines()[0] == "3 项中有 2 项有增长率；在这 2 项中，增长最快的是 ACME中国内地（9.97%）。"
    assert "无法计算：ACME东南亚 FY2025 营业收入同比增长率" in some.answer  # the one without, listed
    english = ask("Which region grew revenue fastest in 2025?", store=demo_store(drop=without))
    assert english.answer.splitlines()[0] == (
        "2 of 3 items have a growth rate. Fastest growth among those 2: mainland China (9.97%)."
    )


def test_which_member_grew_fastest_with_one_rate_or_none_names_no_fastest() -> None:
    one = ask("2025年哪个地区营收同比增长最快", store=demo_store(drop=_FY2024_REVENUE[1:]))
    assert one.answer.splitlines()[0] == "3 项中只有 1 项有增长率，无法比较快慢。"
    assert "最快" not in one.answer and "合计" not in one.answer
    assert "ACME中国内地 FY2025 营业收入同比增长 9.97%" in one.answer  # the one rate, as a plain growth
    english = ask("Which region grew revenue fastest in 2025?", store=demo_store(drop=_FY2024_REVENUE[1:]))
    assert english.answer.splitlines()[0] == "Only 1 of 3 items has a growth rate, so there is no fastest."
    none = ask("2025年哪个地区营收同比增长最慢", store=demo_store(drop=_FY2024_REVENUE))
    assert none.answer.splitlines()[0] == "3 项均无增长率，无法比较快慢。" and none.answer_kind == "refusal"


# -- each clause answered as asked ------------------------------------------------------------------
def test_a_level_clause_and_a_growth_clause_are_each_answered_as_asked() -> None:
    result = ask("香港2025年毛利率是多少？营收同比增速呢？")
    lines = result.answer.splitlines()
    assert lines[0].startswith("ACME香港 FY2025 毛利率：33.1%（来源：")
    assert "ACME香港 FY2025 营业收入同比下降 6.66%，减少 1,714.3 百万元。" in lines
    assert "毛利率同比" not in result.answer
    assert [c.kind for c in result.computed] == ["growth", "growth"]


def test_a_question_for_the_level_and_the_growth_states_both() -> None:
    lines = ask("集团2025年营收是多少，同比增长多少").answer.splitlines()
    assert lines[0].startswith("ACME集团 FY2025 营业收入：128,450.6 百万元（来源：")
    assert lines[1] == "ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。"


def test_a_channel_named_in_one_clause_stays_in_it() -> None:
    answer = ask("中国内地2025年营收同比增长多少，线上收入是多少").answer
    assert "ACME中国内地 FY2025 营业收入同比增长 9.97%，增加 8,717.7 百万元。" in answer
    assert "ACME中国内地 FY2025 营业收入（线上）：41,230.5 百万元" in answer
    assert "（线上）同比" not in answer
    share = ask("中国内地2025年营收同比增长多少，线上收入占比是多少").answer
    assert "营业收入同比增长 9.97%" in share and "营业收入（线上）占营业收入比重为 42.89%" in share


def test_a_ranking_clause_and_a_growth_clause_are_each_answered_as_asked() -> None:
    result = ask("2025年营收最高的地区是哪个，集团营收同比增长多少")
    lines = result.answer.splitlines()
    assert lines[0] == "FY2025 营业收入最高的是 ACME中国内地（96,120.3 百万元）。"
    assert "ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。" in lines
    assert not any(line.startswith("增长最快") for line in lines)


def test_a_later_clause_keeps_the_year_and_not_the_operator() -> None:
    answer = ask("集团2025年第四季度营收环比增长多少，保留1位小数；上半年营收是多少").answer
    assert "ACME集团 2025Q4 营业收入环比增长 9.4%" in answer
    assert "ACME集团 2025H1 营业收入：61,204.8 百万元" in answer
    assert "2026H1" not in answer and "2025H1 营业收入环比" not in answer


# -- a level shown rounded as asked -----------------------------------------------------------------
def test_a_stored_level_is_shown_rounded_as_asked_and_says_so() -> None:
    whole = ask("集团2025年营收，四舍五入到整数")
    line = whole.answer.splitlines()[0]
    rounded = "ACME集团 FY2025 营业收入：128,451 百万元（已四舍五入至整数；原值 128,450.6 百万元）"
    assert line.startswith(rounded + "（来源：")
    assert [str(f.value) for f in whole.facts] == ["128450.6"]
    assert whole.tool_results[0]["value"] == "128450.6"
    glued = ask("ACME 2025年营收四舍五入到整数")
    assert glued.answer_kind == "answer" and "128,451 百万元" in glued.answer
    padded = ask("集团2025年营收，保留两位小数").answer
    assert "营业收入：128,450.60 百万元（来源：" in padded and "四舍五入" not in padded


def test_a_rounding_in_english_says_the_stored_value() -> None:
    answer = ask("What was ACME Group revenue in 2025, rounded to the nearest whole number?").answer
    assert "revenue: 128,451 CNY m (rounded to a whole number; stored value 128,450.6 CNY m)" in answer


def test_a_place_after_the_point_is_a_rounding_not_a_ranking() -> None:
    result = ask("香港2025年毛利率是多少，精确到小数点后第一位")
    assert result.answer_kind == "answer" and result.intent.operation is None and "排名" not in result.answer
    assert result.answer.startswith("ACME香港 FY2025 毛利率：33.1%（来源：")


def test_a_later_share_clause_is_answered_for_the_list_and_the_whole_before_it() -> None:
    regions = ask("2025年各地区营收是多少，分别占集团的比重是多少").answer
    assert "FY2025 ACME香港营业收入占ACME集团营业收入比重为 18.70%。" in regions
    assert "ACME香港 FY2025 营业收入：24,015.8 百万元" in regions
    subject = ask("集团2025年营收是多少，香港营收占比是多少").answer
    assert "FY2025 ACME香港营业收入占ACME集团营业收入比重为 18.70%。" in subject
