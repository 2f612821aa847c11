"""Through the real `/v1/ask`: a formula the question brings (`DPO is defined as: …`, `X定义为…`,
`capex as a % of revenue`, `X % margin`, `A + B (name)`), computed exactly over fact rows with the
analyst's own formula and every input's source; a unit or scale asked (`是多少亿美元`, `in USD
billions`) applied exactly with the stored value beside it (SPEC §5a).

The US set is `../shared/bench/reports/us/`: its glossary and its gold line items loaded with
`import_facts`, and its 16 FinanceBench-style questions, each answered with its figure.
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from benchmarks.us_reports import gold_facts_csv
from core.engine.build import computed_reevaluate
from core.engine.formula import decimal_context
from core.model.facts import FactRecord
from core.model.outcome import Computed
from core.model.period import Period
from tests.clients import client_for

pytestmark = pytest.mark.django_db

US = Path(__file__).resolve().parents[3] / "shared" / "bench" / "reports" / "us"
QUESTIONS = [json.loads(line) for line in (US / "questions.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture
def us_analyst(db: Any, tmp_path: Path) -> APIClient:
    """A fresh desk holding the four US reports' gold line items, and an analyst."""
    call_command("import_glossary", str(US / "glossary.csv"), stdout=StringIO())
    path = gold_facts_csv(tmp_path / "us_facts.csv")
    call_command("import_facts", str(path), stdout=StringIO())
    user = get_user_model().objects.create_user("us_analyst")
    return client_for(user)


def _ask(client: APIClient, question: str, reference: str = "2020-06-30") -> dict[str, Any]:
    response = client.post("/v1/ask", {"question": question, "reference_date": reference}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _figures(line: str) -> list[Decimal]:
    return [Decimal(m.group(0).replace(",", "")) for m in re.finditer(r"-?[0-9][0-9,]*(?:\.[0-9]+)?", line)]


def _headline(answer: str) -> str:
    """The answer's first line that is not a reading or assumption note."""
    return next(line for line in answer.split("\n") if not line.startswith(("[", "【")))


def _shows(answer: str, gold: str) -> bool:
    """The headline shows the gold figure: a figure that, rounded half-up to the gold's places, is it."""
    wanted = gold.rstrip("%")
    places = len(wanted.split(".")[1]) if "." in wanted else 0
    step = Decimal(1).scaleb(-places)
    return any(abs(v).quantize(step, ROUND_HALF_UP) == Decimal(wanted) for v in _figures(_headline(answer)))


def _record(item: dict[str, Any]) -> FactRecord:
    return FactRecord(
        metric=item["metric"],
        entity=item["entity"],
        period=Period("FY", item["period"][2:]) if item["period"].startswith("FY") else Period("HY", item["period"]),
        channel=item["channel"],
        value=Decimal(item["value"]),
        unit=item["unit"],
        source_doc=item["source"]["doc"],
        locator=item["source"]["locator"],
    )


@pytest.mark.parametrize("case", QUESTIONS, ids=[c["id"] for c in QUESTIONS])
def test_each_us_question_is_answered_with_its_figure(us_analyst: APIClient, case: dict[str, Any]) -> None:
    body = _ask(us_analyst, case["question"])
    assert body["answer_kind"] == "answer", body["answer"]
    assert _shows(body["answer"], case["answer"]), body["answer"]
    facts = {(f["metric"], f["entity"], f["period"]) for f in body["facts"]}
    for item in body["computed"]:
        # every input of a computed figure is a found fact, cited with its page
        assert {(i["metric"], i["entity"], i["period"]) for i in item["inputs"]} <= facts
    assert all(s["locator"].startswith("page=") for s in body["sources"] if s["kind"] == "fact")


def test_a_defined_formula_is_computed_exactly_and_re_evaluates_from_its_inputs(us_analyst: APIClient) -> None:
    body = _ask(us_analyst, QUESTIONS[5]["question"])  # DPO with averages and a change between year-ends
    item = body["computed"][0]
    inputs = {(f["metric"], f["period"]): Decimal(f["value"]) for f in body["facts"]}
    with localcontext(decimal_context()):
        ap = (inputs[("ACCOUNTS_PAYABLE", "FY2018")] + inputs[("ACCOUNTS_PAYABLE", "FY2019")]) / 2
        cogs = inputs[("COGS", "FY2019")] + inputs[("INVENTORY", "FY2019")] - inputs[("INVENTORY", "FY2018")]
        assert Decimal(item["value"]) == 365 * ap / cogs
    assert item["kind"] == "formula" and item["display"] == "115.10"
    # the formula text re-evaluates to the value over the facts it lists
    facts = tuple(_record(f) for f in body["facts"])
    computed = Computed("formula", "", "", item["formula"], "", "", Decimal(item["value"]), "", "", facts, "", 2)
    assert computed_reevaluate(computed) == Decimal(item["value"])
    assert "As you defined it: DPO = 365 * (average accounts payable" in body["answer"]


def test_an_amount_paid_enters_a_formula_as_the_amount_and_the_answer_says_so(us_analyst: APIClient) -> None:
    body = _ask(us_analyst, QUESTIONS[10]["question"])  # FCF = cash from operations - capex
    assert _figures(_headline(body["answer"]))[-1] == Decimal("58896")
    assert "printed as an outflow (-10,495); taken as the amount paid, 10,495" in body["answer"]


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("What is Apple's FY2019 DPO? DPO is defined as: 365 * accounts payable / widgets sold.", "widgets"),
        ("苹果公司2019财年的速动比率是多少？速动比率定义为（流动资产合计减去存货）除以短期借款。", "短"),
    ],
)
def test_a_formula_with_an_unread_part_is_asked_back_naming_it_with_no_figure(
    us_analyst: APIClient, question: str, unread: str
) -> None:
    body = _ask(us_analyst, question)
    assert body["answer_kind"] == "clarification"
    assert unread in body["answer"]
    assert body["facts"] == [] and body["computed"] == []


def test_a_term_the_data_lacks_is_named_and_no_figure_given(us_analyst: APIClient) -> None:
    body = _ask(
        us_analyst,
        "What is Apple's FY2017 ROA? ROA is defined as: FY2017 net income / "
        "(average total assets between FY2016 and FY2017).",
    )
    assert body["answer_kind"] == "refusal"
    assert "FY2016" in body["answer"] and "Net income" in body["answer"]
    assert body["computed"] == []


@pytest.mark.parametrize(
    ("question", "shown", "value"),
    [
        ("甲骨文2019财年经营活动产生的现金流量净额是多少亿美元？", "145.51 亿美元", "145.51"),
        ("What was Apple's FY2019 total revenue in USD billions?", "260.174 USD bn", "260.174"),
        ("Johnson & Johnson FY2019 total assets, in thousands of USD", "157,728,000 USD k", "157728000"),
    ],
)
def test_a_scale_asked_is_applied_exactly_with_the_stored_value_beside_it(
    us_analyst: APIClient, question: str, shown: str, value: str
) -> None:
    body = _ask(us_analyst, question)
    assert shown in body["answer"]
    assert "14,551" in body["answer"] or "260,174" in body["answer"] or "157,728" in body["answer"]
    converted = body["computed"][-1]
    assert Decimal(converted["value"]) == Decimal(value)
    assert body["facts"][0]["unit"] == "USD_M"  # the stored fact stays as stored


def test_a_currency_without_a_curated_rate_is_refused_naming_the_rate(us_analyst: APIClient) -> None:
    body = _ask(us_analyst, "苹果公司2019财年营业收入换算成人民币是多少？")
    assert body["answer_kind"] == "refusal"
    assert "USD→CNY" in body["answer"] and "FY2019" in body["answer"]
    assert not re.search(r"[0-9]{3}", body["answer"].replace("2019", ""))


def test_a_statement_named_is_a_frame_not_a_metric(us_analyst: APIClient) -> None:
    body = _ask(
        us_analyst,
        "What is the FY2019 capital expenditure amount (in USD millions) for Apple? Give a response to the "
        "question by relying on the details shown in the cash flow statement.",
    )
    assert [f["metric"] for f in body["facts"]] == ["CAPEX"]
    assert "Not found" not in body["answer"]


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("甲骨文2019财年资本开支占营收的百分比是多少？", "4.20%"),  # an amount paid, as paid, in a share
        ("Verizon's FY2019 capex was how many times its D&A?", "107.54%"),
        ("甲骨文2019财年资本开支比2018财年跌咗几多？", "4.38%"),  # paid fell 1,736 → 1,660
    ],
)
def test_an_amount_paid_is_an_amount_in_every_operator(us_analyst: APIClient, question: str, shown: str) -> None:
    body = _ask(us_analyst, question)
    assert body["answer_kind"] == "answer"
    assert shown in body["answer"] and f"-{shown}" not in body["answer"]
    assert "以流出列示" in body["answer"] or "printed as an outflow" in body["answer"]


def test_a_later_definition_may_use_an_earlier_ones_name(us_analyst: APIClient) -> None:
    body = _ask(us_analyst, "Define A as revenue minus COGS. Define B as A / revenue. What is Apple's FY2019 B?")
    assert _shows(body["answer"], "0.38") and body["computed"][0]["name"] == "B"


def test_a_metric_asked_beside_a_definition_is_answered_too(us_analyst: APIClient) -> None:
    body = _ask(
        us_analyst,
        "Define asset turnover as FY2019 revenue / average total assets between FY2018 and FY2019. "
        "What was Apple's asset turnover, and what was Apple's FY2019 net income?",
    )
    assert "0.74" in body["answer"] and "55,256" in body["answer"]


def test_a_defined_figure_of_two_companies_is_compared_in_points(us_analyst: APIClient) -> None:
    body = _ask(
        us_analyst,
        "What is the difference between Apple's and Oracle's FY2019 operating margins in percentage points? "
        "Operating margin = operating income / revenue.",
    )
    assert body["computed"][0]["unit"] == "PP" and body["computed"][0]["display"].startswith("-9.69")


def test_a_formula_written_for_another_year_than_the_one_asked_is_asked_back(us_analyst: APIClient) -> None:
    body = _ask(us_analyst, "Define X as FY2019 net income / FY2019 revenue. What is X for Verizon in FY2018?")
    assert body["answer_kind"] == "clarification" and "FY2019" in body["answer"] and "FY2018" in body["answer"]
    assert body["computed"] == []
