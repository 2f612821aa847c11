"""Series over a range of periods: every period of the range is
answered once, in order, each value with its source; a period without a figure is named as
missing, never skipped."""

from __future__ import annotations

from dataclasses import replace as dataclass_replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import computed_reevaluate
from core.model.facts import FactRecord
from core.parse.intent import parse_intent
from core.pipeline import answer_question
from core.ports import Ports
from core.routes.lookup.provider import MockProvider
from tests.core.support.computing import REF, fact
from tests.fakes import InMemoryFactStore, demo_glossary

GLOSSARY = demo_glossary()


def ask(question: str, store: InMemoryFactStore):  # type: ignore[no-untyped-def]
    return answer_question(
        question, Ports(glossary=GLOSSARY, store=store, provider=MockProvider()), cleared=True, reference_date=REF
    )


def test_a_range_is_parsed_into_every_period_in_order() -> None:
    intent = parse_intent("集团2022到2025年每年的营收", GLOSSARY, REF)
    assert [p.label for p in intent.periods] == ["FY2022", "FY2023", "FY2024", "FY2025"]
    assert intent.metrics == ("REVENUE",) and intent.operation is None


def test_each_quarter_is_read_and_never_taken_for_an_unknown_metric() -> None:
    intent = parse_intent("集团2025年每个季度的营收", GLOSSARY, REF)
    assert [p.label for p in intent.periods] == ["2025Q1", "2025Q2", "2025Q3", "2025Q4"]
    assert intent.metrics == ("REVENUE",) and intent.unknown_metric is None


def test_a_change_or_a_cagr_over_a_range_runs_between_its_ends() -> None:
    change = parse_intent("集团营收从2023到2025变化了多少", GLOSSARY, REF)
    assert [p.label for p in change.periods] == ["FY2023", "FY2025"]
    cagr = parse_intent("集团2021年至2025年营收的年均复合增长率", GLOSSARY, REF)
    assert [p.label for p in cagr.periods] == ["FY2021", "FY2025"]


def test_growth_each_year_of_a_range_keeps_every_year() -> None:
    intent = parse_intent("集团近三年营收每年增长多少", GLOSSARY, REF)
    assert [p.label for p in intent.periods] == ["FY2023", "FY2024", "FY2025"]
    assert intent.operation is not None and intent.operation.kind == "growth"


def test_a_trend_of_a_metric_over_a_range_lists_the_series() -> None:
    intent = parse_intent("集团近三年营业利润的变化趋势", GLOSSARY, REF)
    assert intent.metrics == ("OPERATING_PROFIT",)
    assert [p.label for p in intent.periods] == ["FY2023", "FY2024", "FY2025"]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2000, max_value=2020),
    st.integers(min_value=2, max_value=12),
    st.data(),
)
def test_a_series_with_gaps_lists_every_period_once_in_order_and_names_the_missing(
    first: int, length: int, data: st.DataObject
) -> None:
    years = list(range(first, first + length))
    stored = data.draw(st.lists(st.sampled_from(years), unique=True, min_size=1))
    store = InMemoryFactStore([fact("REVENUE", "ACME_GROUP", f"FY{y}", f"{1000 + y}.5") for y in stored])
    result = ask(f"集团{years[0]}到{years[-1]}年每年的营收", store)
    # two periods keep their difference line (`对比：…`); a longer series is listed whole
    lines = [line for line in result.answer.splitlines() if not line.startswith("对比")]
    assert len(years) == 2 or len(lines) == len(result.answer.splitlines())
    listed = [next(y for y in years if f"FY{y}" in line) for line in lines if any(f"FY{y}" in line for y in years)]
    assert listed == years  # every period once, in order
    for year, line in zip(years, [ln for ln in lines if any(f"FY{y}" in ln for y in years)], strict=True):
        if year in stored:
            assert f"{1000 + year}.5" in line.replace(",", "") and "来源" in line
        else:
            assert line.startswith("查不到") and f"FY{year}" in line
    assert [f.period.label for f in result.facts] == [f"FY{y}" for y in years if y in stored]
    missing = [r["normalized"]["period"] for r in result.tool_results if r["status"] == "not_found"]
    assert missing == [f"FY{y}" for y in years if y not in stored]


# -- derived stretches from the start of a year (前三季度, 1-9月) -----------------------------------
QUARTERS = {"2025Q1": "29880.1", "2025Q2": "31324.7", "2025Q3": "32118.5"}


def test_the_first_three_quarters_are_their_sum_with_formula_and_inputs() -> None:
    store = InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in QUARTERS.items()])
    for question in ("集团2025年前三季度营收", "集团2025年1-9月营收合计"):
        result = ask(question, store)
        assert result.answer_kind == "answer"
        assert [c.value for c in result.computed] == [sum(Decimal(v) for v in QUARTERS.values())]
        assert [f.period.label for f in result.facts] == list(QUARTERS)
        assert "营业收入 2025Q1 + 营业收入 2025Q2 + 营业收入 2025Q3" in result.answer


def test_a_missing_quarter_refuses_the_stretch_and_names_it() -> None:
    store = InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in QUARTERS.items() if p != "2025Q2"])
    result = ask("集团2025年前三季度营收", store)
    assert result.answer_kind == "refusal" and not result.computed
    assert "2025Q2" in result.answer


# -- a second half derived (FY − H1, Q3 + Q4) --------------------------------------------------------
def half_store(*extra: FactRecord, q4: str = "35127.3", unit: str = "CNY_M") -> InMemoryFactStore:
    figures = {"FY2025": "128450.6", "2025H1": "61204.8", "2025Q3": "32118.5", "2025Q4": q4}
    return InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v, unit=unit) for p, v in figures.items()] + list(extra))


def test_a_second_half_not_stored_is_derived_both_ways_with_formula_and_inputs() -> None:
    result = ask("集团2025年下半年营收", half_store())
    assert result.answer_kind == "answer"
    assert [c.value for c in result.computed] == [Decimal("67245.8"), Decimal("67245.8")]
    assert [[f.period.label for f in c.inputs] for c in result.computed] == [["FY2025", "2025H1"], ["2025Q3", "2025Q4"]]
    for c in result.computed:  # each value equals its formula over its listed inputs
        a, b = (f.value for f in c.inputs)
        assert c.value == (a - b if "FY" in c.formula else a + b)
    assert "不一致" not in result.answer


def test_two_derivations_that_disagree_are_both_shown_and_flagged() -> None:
    result = ask("集团2025年下半年营收", half_store(q4="35000.0"))
    assert sorted(c.value for c in result.computed) == [Decimal("67118.5"), Decimal("67245.8")]
    assert "推算结果不一致" in result.answer


def test_a_stored_second_half_wins() -> None:
    result = ask("集团2025年下半年营收", half_store(fact("REVENUE", "ACME_GROUP", "2025H2", "67000.0")))
    assert not result.computed and [f.period.label for f in result.facts] == ["2025H2"]


def test_a_percentage_is_never_derived_by_subtraction() -> None:
    result = ask("集团2025年下半年营收", half_store(unit="PCT"))
    assert result.answer_kind == "refusal" and not result.computed


def test_a_first_half_not_stored_is_q1_plus_q2_and_a_year_its_quarters() -> None:
    quarters = {"2025Q1": "10.5", "2025Q2": "20.25", "2025Q3": "30", "2025Q4": "40"}
    store = InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in quarters.items()])
    half = ask("集团2025年上半年营收", store)
    assert [c.value for c in half.computed] == [Decimal("30.75")]
    assert [f.period.label for f in half.computed[0].inputs] == ["2025Q1", "2025Q2"]
    year = ask("集团2025年营收", store)
    assert [c.value for c in year.computed] == [Decimal("100.75")]
    assert [f.period.label for f in year.computed[0].inputs] == list(quarters)


# -- operators over a series (growth each step, CAGR, sum, average, max/min) --------------------------
def years_store(*skip: str) -> InMemoryFactStore:
    figures = {"FY2022": "98215.4", "FY2023": "106872.9", "FY2024": "118340.2", "FY2025": "128450.6"}
    return InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in figures.items() if p not in skip])


def test_the_average_of_a_range_is_its_total_over_the_count_with_inputs() -> None:
    result = ask("集团近三年营收平均是多少", years_store())
    (mean,) = result.computed
    assert (mean.kind, [f.period.label for f in mean.inputs]) == ("average", ["FY2023", "FY2024", "FY2025"])
    assert mean.value == sum(f.value for f in mean.inputs) / 3
    assert "÷ 3" in result.answer


def test_an_average_with_a_missing_year_is_refused_by_name() -> None:
    result = ask("集团近三年营收平均是多少", years_store("FY2024"))
    assert result.answer_kind == "refusal" and not result.computed and "FY2024" in result.answer


def test_growth_each_step_of_a_range_uses_the_year_before_its_first() -> None:
    result = ask("集团近三年营收每年增长多少", years_store())
    rates = [c for c in result.computed if c.kind == "growth" and c.unit == "PCT"]
    assert [[f.period.label for f in c.inputs] for c in rates] == [
        ["FY2023", "FY2022"],
        ["FY2024", "FY2023"],
        ["FY2025", "FY2024"],
    ]
    assert [c.display for c in rates] == ["8.81%", "10.73%", "8.54%"]


def test_the_highest_year_of_a_range_is_ranked_with_every_year() -> None:
    result = ask("集团近三年营收哪一年最高", years_store())
    assert result.ranking is not None
    assert [r.subject.period.label for r in result.ranking.rows] == ["FY2025", "FY2024", "FY2023"]


# -- how a metric adds up (`aggregation`) --------------------------------------------------------------
def glossary_where_revenue(aggregation: str):  # type: ignore[no-untyped-def]
    revenue = dataclass_replace(GLOSSARY.metrics["REVENUE"], aggregation=aggregation)
    return dataclass_replace(GLOSSARY, metrics={**GLOSSARY.metrics, "REVENUE": revenue})


def ask_with(glossary, question: str, store: InMemoryFactStore):  # type: ignore[no-untyped-def]
    return answer_question(
        question, Ports(glossary=glossary, store=store, provider=MockProvider()), cleared=True, reference_date=REF
    )


def test_the_default_aggregation_comes_from_the_unit() -> None:
    assert GLOSSARY.metrics["REVENUE"].adds_up == "sum"
    assert GLOSSARY.metrics["GROSS_MARGIN"].adds_up == "none"
    assert glossary_where_revenue("end").metrics["REVENUE"].adds_up == "end"


def test_a_value_at_a_date_is_not_summed_over_periods_and_says_why() -> None:
    result = ask_with(glossary_where_revenue("end"), "集团2022到2025年营收合计", years_store())
    assert result.answer_kind == "refusal" and not result.computed and "时点数" in result.answer


def test_a_value_at_a_date_may_be_averaged_over_periods() -> None:
    result = ask_with(glossary_where_revenue("end"), "集团近三年营收平均是多少", years_store())
    assert [c.kind for c in result.computed] == ["average"]


def test_a_ratio_is_never_summed_and_says_why() -> None:
    result = ask_with(glossary_where_revenue("none"), "集团2022到2025年营收合计", years_store())
    assert result.answer_kind == "refusal" and not result.computed and "比率" in result.answer


def test_a_value_at_a_dates_second_half_is_its_year_end_value_never_a_subtraction() -> None:
    result = ask_with(glossary_where_revenue("end"), "集团2025年下半年营收", half_store())
    assert [c.value for c in result.computed] == [Decimal("128450.6"), Decimal("35127.3")]
    assert all("−" not in c.formula_zh and "-" not in c.formula for c in result.computed)


def test_a_ratios_second_half_is_never_derived() -> None:
    result = ask_with(glossary_where_revenue("none"), "集团2025年下半年营收", half_store())
    assert result.answer_kind == "refusal" and not result.computed


def test_every_derived_or_aggregated_value_equals_its_formula_over_its_inputs() -> None:
    answers = [
        ask("集团2025年下半年营收", half_store(q4="35000.0")),
        ask("集团近三年营收平均是多少", years_store()),
        ask("集团2022到2025年营收合计", years_store()),
        ask(
            "集团2025年前三季度营收",
            InMemoryFactStore([fact("REVENUE", "ACME_GROUP", p, v) for p, v in QUARTERS.items()]),
        ),
    ]
    computed = [c for result in answers for c in result.computed]
    assert len(computed) == 5
    assert all(computed_reevaluate(c) == c.value for c in computed)
