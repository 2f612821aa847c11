"""What a question brings of its own, read by the parser (SPEC §5a): a formula defined in a clause
or written inline, a unit or scale, a statement named as a frame, a metric said in other words
(a plural, another word order, a paraphrase of a formula metric's name)."""

from __future__ import annotations

from datetime import date

import pytest

from core.glossary import AliasRecord, ChannelInfo, EntityInfo, MetricInfo, UnitInfo, glossary_build
from core.language.normalize import text_normalize
from core.language.quantities.asked import unit_asked
from core.parse.defined import DEFINED
from core.parse.intent import parse_intent
from tests.fakes import demo_glossary

REF = date(2026, 3, 15)
GLOSSARY = demo_glossary()


@pytest.mark.parametrize(
    ("question", "name", "formula"),
    [
        (
            "What is ACME Group's FY2025 NPM? NPM is defined as: net profit / revenue.",
            "NPM",
            "NET_PROFIT[] / REVENUE[]",
        ),
        (
            "Define cash yield as net profit divided by capex. What is ACME Group's FY2025 cash yield?",
            "cash yield",
            "NET_PROFIT[] / CAPEX[]",
        ),
        (
            "What is ACME Group's FY2025 X ratio? X ratio = (revenue - gross profit) / revenue.",
            "X ratio",
            "(REVENUE[] - GROSS_PROFIT[]) / REVENUE[]",
        ),
        (
            "What is ACME Group's FY2025 EBIT yield? EBIT yield here is defined as operating profit / capex.",
            "EBIT yield",
            "OPERATING_PROFIT[] / CAPEX[]",
        ),
        (
            "集团2025年的毛利转化率是多少？毛利转化率定义为净利润除以毛利。",
            "毛利转化率",
            "NET_PROFIT[] / GROSS_PROFIT[]",
        ),
        ("集团2025年的资本强度按资本开支除以营业收入计算是多少？", "", "CAPEX[] / REVENUE[]"),
        ("集团2025年的资本强度（公式：资本开支/营业收入）是多少？", "", "CAPEX[] / REVENUE[]"),
        (
            "What is ACME Group's FY2025 revenue index? It is defined as: FY2025 revenue / (average revenue between "
            "FY2023 and FY2024).",
            "revenue index",
            "REVENUE[FY2025] / ((REVENUE[FY2023] + REVENUE[FY2024]) / 2)",
        ),
        (
            "What is ACME Group's FY2025 store yield? Store yield is defined as: change in revenue between FY2024 and "
            "FY2025 / new stores.",
            "store yield",
            "(REVENUE[FY2025] - REVENUE[FY2024]) / NEW_STORES[]",
        ),
        (
            "集团2025年的资产回报率是多少？资产回报率定义为2025年净利润除以2024年和2025年营业收入的平均值。",
            "资产回报率",
            "NET_PROFIT[FY2025] / ((REVENUE[FY2024] + REVENUE[FY2025]) / 2)",
        ),
    ],
)
def test_a_formula_defined_in_a_clause_is_read_into_the_engine_grammar(question: str, name: str, formula: str) -> None:
    intent = parse_intent(question, GLOSSARY, REF)
    assert intent.metric == DEFINED and intent.route == "structured"
    assert intent.definition is not None and not intent.definition.unread
    assert intent.definition.formula == formula
    assert intent.definition.name == name or (not name and intent.definition.name)
    assert intent.entity == "ACME_GROUP" and intent.period is not None and intent.period.label == "FY2025"


@pytest.mark.parametrize(
    ("question", "formula", "percent"),
    [
        (
            "What is ACME Group's FY2025 operating profit + capex (operating outlay)?",
            "OPERATING_PROFIT[] + CAPEX[]",
            False,
        ),
        ("What is the FY2025 capex as a % of revenue for ACME Group?", "(CAPEX[] / REVENUE[])", True),
        ("What is ACME Group's FY2025 gross profit % margin?", "(GROSS_PROFIT[] / REVENUE[])", True),
        ("What is ACME Group's FY2025 payout ratio (using net profit and revenue)?", "NET_PROFIT[] / REVENUE[]", False),
    ],
)
def test_a_formula_written_inline_is_read(question: str, formula: str, percent: bool) -> None:
    intent = parse_intent(question, GLOSSARY, REF)
    assert intent.definition is not None and intent.definition.formula == formula
    assert intent.definition.percent is percent
    assert intent.period is not None and intent.period.label == "FY2025"


def test_an_average_over_a_range_of_years_averages_the_formula() -> None:
    intent = parse_intent(
        "What is the FY2023 - FY2025 3 year average capex as a % of revenue for ACME Group?", GLOSSARY, REF
    )
    assert intent.definition is not None and intent.definition.over == ("FY2023", "FY2024", "FY2025")
    assert intent.operation is None


@pytest.mark.parametrize("comma", ["，", ",", ", "])
@pytest.mark.parametrize(
    ("asked", "period"),
    [("2025年集团毛利率是多少", "2025"), ("2024年ACME集团的毛利率是多少", "2024"), ("FY2025集团毛利率呢", "2025")],
)
def test_a_definition_ends_at_a_comma_before_the_question(comma: str, asked: str, period: str) -> None:
    """A comma ends a formula's words unless it separates a number's thousands (`1,234`): the
    question after it, even one that opens with a year (`，2025年…`), is the question, not more
    formula."""
    intent = parse_intent(f"毛利率定义为毛利除以营收{comma}{asked}", GLOSSARY, REF)
    assert intent.definition is not None and intent.definition.unread == ()
    assert intent.definition.formula == "GROSS_PROFIT[] / REVENUE[]"
    assert (intent.entity, intent.period.period if intent.period else None) == ("ACME_GROUP", period)


def test_a_thousands_separator_stays_inside_the_formula() -> None:
    intent = parse_intent("集团2025年的调整营收定义为营收减去1,000，是多少", GLOSSARY, REF)
    assert intent.definition is not None and intent.definition.unread == ()
    assert "1000" in intent.definition.formula.replace(",", "")


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("What is the group's FY2025 widget ratio? Widget ratio is defined as: revenue / widgets sold.", "widgets"),
        ("集团2025年的人效定义为营业收入除以员工人数", "员工人数"),
    ],
)
def test_a_part_no_rule_reads_is_named(question: str, unread: str) -> None:
    intent = parse_intent(question, GLOSSARY, REF)
    assert intent.definition is not None and intent.definition.formula == ""
    assert any(unread in word for word in intent.definition.unread)


def test_the_questions_own_metric_wins_over_a_definition_it_never_uses() -> None:
    intent = parse_intent(
        "What was ACME Group's FY2025 revenue? NPM is defined as: net profit / revenue.", GLOSSARY, REF
    )
    assert intent.definition is None and intent.metric == "REVENUE"


def test_a_statement_named_is_a_frame_not_a_metrics_words() -> None:
    base = demo_glossary()
    glossary = glossary_build(
        entities=base.entities.values(),
        metrics=[*base.metrics.values(), MetricInfo("CASH", "Cash and cash equivalents", "CNY_M")],
        channels=base.channels.values(),
        units=base.units.values(),
        aliases=[*base.aliases, AliasRecord("metric", "cash", "CASH")],
        home_company_name=base.home_company_name,
    )
    question = (
        "What is ACME Group's FY2025 capex? Give a response to the question by relying on the details shown in "
        "the cash flow statement."
    )
    intent = parse_intent(question, glossary, REF)
    assert intent.metrics == ("CAPEX",)


@pytest.mark.parametrize(
    ("question", "power", "currency"),
    [
        ("集团2025年营收是多少亿元，保留两位小数", 8, "CNY"),
        ("集团2025年营收，单位亿元", 8, "CNY"),
        ("营收多少万元", 4, "CNY"),
        ("香港營收係幾多億", 8, ""),
        ("in billions of RMB", 9, "CNY"),
        ("How much (in USD billions) did Verizon pay", 9, "USD"),
        ("Answer in USD millions.", 6, "USD"),
        ("换算成美元是多少", None, "USD"),
        ("營收換算做美金係幾多", None, "USD"),
        ("What was the revenue in HKD?", None, "HKD"),
    ],
)
def test_the_unit_asked_is_read(question: str, power: int | None, currency: str) -> None:
    asked = unit_asked(text_normalize(question))
    assert asked is not None and (asked.power, asked.currency) == (power, currency)


@pytest.mark.parametrize("question", ["营收具体是多少元", "几万家门店", "集团2025年营收是多少"])
def test_no_unit_is_read_where_none_is_asked(question: str) -> None:
    assert unit_asked(text_normalize(question)) is None


def test_a_plural_or_reordered_english_metric_is_that_metric_and_said() -> None:
    intent = parse_intent("What were ACME Group's revenues in FY2024 and FY2025?", GLOSSARY, REF)
    assert intent.metric == "REVENUE" and intent.corrections == (("revenues", "revenue"),)


def _ratio_glossary(*names: str) -> object:
    metrics = [MetricInfo("RD", "研发经费", "CNY"), MetricInfo("NP", "净利润", "CNY")]
    metrics += [MetricInfo(f"F{i}", name, "PCT", formula="RD / NP") for i, name in enumerate(names)]
    return glossary_build(
        entities=[EntityInfo("ACME", "ACME公司", "home")],
        metrics=metrics,
        channels=[ChannelInfo("TOTAL", "合计")],
        units=[UnitInfo("CNY", "元", "CNY"), UnitInfo("PCT", "%", "%")],
        aliases=[],
    )


def test_a_formula_metric_said_in_a_paraphrase_of_its_name_is_that_metric() -> None:
    intent = parse_intent("ACME公司2025年研发经费与利润的比值是多少", _ratio_glossary("企业研发经费与利润比值"), REF)
    assert intent.metric == "F0"
    assert intent.corrections == (("研发经费与利润的比值", "企业研发经费与利润比值"),)


def test_a_paraphrase_of_two_formula_metrics_names_is_not_read_as_either() -> None:
    glossary = _ratio_glossary("企业研发经费与利润比值", "集团研发经费与利润比值")
    intent = parse_intent("ACME公司2025年研发经费与利润的比值是多少", glossary, REF)
    assert intent.metric not in ("F0", "F1") and not intent.corrections
