"""What the question asked reaches the answer: the place in a ranking, and the rounding of a
formula metric asked at its level (both read by the parser, shown by the computing layer)."""

from __future__ import annotations

from tests.core.test_computing import ask


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
    for question in ("2025年营收前0名的地区", "2025年营收排名第0的地区"):
        result = ask(question)
        assert result.answer_kind in ("clarification", "refusal") and not result.computed
