"""The metric admin: a formula is validated with every other formula, and "try it" computes the
formula as typed (unsaved) with the engine, from the facts the curator may see."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

import pytest
from django.test import Client

from core.engine.formula import PRECISION
from facts.models import Metric
from facts.selectors import glossary_snapshot
from facts.services import metric_formula_problems
from tests.factories import curator_make
from tests.facts.support import change_url, post_data

pytestmark = pytest.mark.django_db


def _try_url(code: str) -> str:
    return f"/admin/facts/metric/{Metric.objects.get(code=code).pk}/try/"


def _percent(numerator: str, denominator: str) -> str:
    with localcontext() as ctx:
        ctx.prec = PRECISION
        ratio = Decimal(numerator) / Decimal(denominator)
    return f"{(ratio * 100).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}%"


@pytest.fixture
def curator(demo, client: Client) -> Client:
    client.force_login(demo["users"]["curator"])
    return client


def test_a_formula_edit_is_checked_against_every_other_formula(demo) -> None:
    assert metric_formula_problems(code="NET_MARGIN", formula="OPERATING_PROFIT / REVENUE") == []
    assert metric_formula_problems(code="NET_MARGIN", formula="") == []
    assert metric_formula_problems(code="NET_MARGIN", formula="NET_PROFIT /") == [
        "unexpected end of formula at column 13"
    ]
    assert metric_formula_problems(code="REVENUE", formula="NET_PROFIT / NET_MARGIN") == [
        "cycle REVENUE → NET_MARGIN → REVENUE"
    ]
    assert metric_formula_problems(code="TURNOVER", formula="", replacing="REVENUE") == [
        "NET_MARGIN's formula would no longer work: unknown metric code REVENUE at column 14",
        "OPERATING_MARGIN's formula would no longer work: unknown metric code REVENUE at column 20",
    ]


@pytest.mark.parametrize(
    ("code", "formula", "message"),
    [
        ("NET_MARGIN", "NET_PROFIT /", "unexpected end of formula at column 13"),
        ("NET_MARGIN", "NET_PROFIT / TURNOVER", "unknown metric code TURNOVER at column 14"),
        ("OPERATING_PROFIT", "OPERATING_MARGIN * 1", "cycle OPERATING_PROFIT → OPERATING_MARGIN → OPERATING_PROFIT"),
        ("NET_MARGIN", "NET_MARGIN * 2", "cycle NET_MARGIN → NET_MARGIN"),
    ],
)
def test_a_formula_that_does_not_work_is_a_field_error(curator: Client, code: str, formula: str, message: str) -> None:
    url = change_url(code)
    before = Metric.objects.get(code=code).formula
    page = curator.post(url, post_data(curator.get(url), formula=formula))
    assert page.status_code == 200
    assert page.context["adminform"].form.errors["formula"] == [message]
    assert Metric.objects.get(code=code).formula == before


def test_a_working_formula_is_saved_and_read_by_the_next_question(curator: Client) -> None:
    url = change_url("NET_MARGIN")
    page = curator.post(url, post_data(curator.get(url), formula="  NET_PROFIT / OPERATING_PROFIT "))
    assert page.status_code == 302
    assert Metric.objects.get(code="NET_MARGIN").formula == "NET_PROFIT / OPERATING_PROFIT"
    assert glossary_snapshot().formula_metrics["NET_MARGIN"].formula.codes == ("NET_PROFIT", "OPERATING_PROFIT")


def test_the_change_page_offers_the_preview(curator: Client) -> None:
    body = curator.get(change_url("NET_MARGIN")).content.decode()
    assert 'id="formula-try"' in body and 'name="try_entity"' in body
    assert f'hx-get="{_try_url("NET_MARGIN")}"' in body and "vendor/htmx-2.0.11.min.js" in body


def test_try_it_computes_the_unsaved_formula_with_its_inputs(curator: Client) -> None:
    stored = Metric.objects.get(code="NET_MARGIN").formula
    page = curator.get(
        _try_url("NET_MARGIN"),
        {"formula": "OPERATING_PROFIT / REVENUE", "unit": "PCT", "try_entity": "香港", "try_period": "2025年"},
    )
    assert page.status_code == 200
    outcome = page.context_data["preview"].outcome
    with localcontext() as ctx:
        ctx.prec = PRECISION
        assert outcome.value == Decimal("1932.4") / Decimal("24015.8")
    body = page.content.decode()
    assert _percent("1932.4", "24015.8") == "8.05%" and page.context_data["value"] == "8.05%" and "8.05%" in body
    assert "营业利润 / 营业收入" in body and "OPERATING_PROFIT[FY2025] / REVENUE[FY2025]" in body
    assert [(i["code"], i["value"], i["source"]) for i in page.context_data["inputs"]] == [
        ("OPERATING_PROFIT", "1,932.4 百万元", "ACME_FY2025_Annual_Results.pptx"),
        ("REVENUE", "24,015.8 百万元", "ACME_FY2025_Annual_Results.pptx"),
    ]
    assert all(i["locator"] and i["locator"] in body for i in page.context_data["inputs"])
    assert Metric.objects.get(code="NET_MARGIN").formula == stored


def test_try_it_with_htmx_returns_only_the_fragment(curator: Client) -> None:
    page = curator.get(
        _try_url("OPERATING_MARGIN"),
        {"formula": "OPERATING_PROFIT / REVENUE", "unit": "PCT", "try_entity": "ACME_CN", "try_period": "FY2025"},
        headers={"HX-Request": "true"},
    )
    body = page.content.decode()
    assert body.lstrip().startswith('<div id="formula-preview"') and "<html" not in body
    assert _percent("8640.1", "96120.3") in body


def test_try_it_names_the_missing_inputs_and_a_zero_divisor(curator: Client) -> None:
    missing = curator.get(
        _try_url("NET_MARGIN"), {"formula": "NET_PROFIT / REVENUE", "try_entity": "香港", "try_period": "FY2025"}
    )
    assert [(k["code"], k["entity"], k["period"]) for k in missing.context_data["missing"]] == [
        ("NET_PROFIT", "ACME香港", "FY2025")
    ]
    assert "缺少计算所需的数据" in missing.content.decode() and "value" not in missing.context_data
    zero = curator.get(
        _try_url("NET_MARGIN"),
        {"formula": "NET_PROFIT / (REVENUE - REVENUE)", "try_entity": "集团", "try_period": "FY2025"},
    )
    assert zero.context_data["preview"].outcome.reason.code == "not_meaningful"
    assert "为 0" in zero.content.decode()


def test_try_it_reads_facts_with_the_curators_clearance(demo, client: Client) -> None:
    params = {"formula": "NET_PROFIT / REVENUE", "try_entity": "东南亚", "try_period": "FY2025"}
    client.force_login(demo["users"]["curator"])  # cleared
    cleared = client.get(_try_url("NET_MARGIN"), params)
    assert "东南亚扩张计划_内部.docx" in cleared.content.decode()
    assert cleared.context_data["preview"].outcome.sensitivity == "RESTRICTED"
    assert cleared.context_data["value"] == _percent("-1402.6", "8314.5")
    client.force_login(curator_make("curator_uncleared"))
    uncleared = client.get(_try_url("NET_MARGIN"), params)
    body = uncleared.content.decode()
    assert uncleared.status_code == 200 and [k["code"] for k in uncleared.context_data["missing"]] == ["NET_PROFIT"]
    assert "东南亚扩张计划_内部.docx" not in body and "1,402.6" not in body and "1402.6" not in body


def test_try_it_says_when_a_stored_figure_wins(curator: Client) -> None:
    page = curator.get(
        _try_url("REVENUE"), {"formula": "OPERATING_PROFIT * 2", "try_entity": "香港", "try_period": "FY2025"}
    )
    assert page.context_data["value"] == "3,864.8 百万元"
    assert page.context_data["stored"]["value"] == "24,015.8 百万元" and "回答显示存储的数据" in (page.content.decode())


HK_2025 = {"try_entity": "香港", "try_period": "FY2025"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"try_entity": "Atlantis", "try_period": "FY2025"}, "术语表中没有实体「Atlantis」"),
        ({"try_entity": "香港", "try_period": "sometime"}, "「sometime」不是一个期间"),
        ({**HK_2025, "try_channel": "卫星"}, "术语表中没有渠道「卫星」"),
        ({"try_entity": "香港", "try_period": ""}, "期间: "),
        ({"formula": "NET_PROFIT * (", **HK_2025}, "unexpected end of formula"),
        ({"formula": "NET_PROFIT / PROFIT", **HK_2025}, "unknown metric code PROFIT"),
        ({"formula": "NET_MARGIN + 1", **HK_2025}, "cycle NET_MARGIN → NET_MARGIN"),
        ({"formula": " ", **HK_2025}, "the formula is blank"),
    ],
)
def test_try_it_explains_bad_input(curator: Client, params: dict[str, str], message: str) -> None:
    page = curator.get(_try_url("NET_MARGIN"), {"formula": "NET_PROFIT / REVENUE", **params})
    assert page.status_code == 200 and message in page.content.decode()
    assert "value" not in page.context_data and "inputs" not in page.context_data


def test_try_it_says_the_formula_in_the_curators_language(curator: Client) -> None:
    """The formula in words names the metrics as the admin's language does: English names in
    the English admin (from the glossary's English aliases), Chinese in the Chinese one."""
    asked = {"formula": "OPERATING_PROFIT / REVENUE", "unit": "PCT", "try_entity": "ACME_HK", "try_period": "FY2025"}
    english = curator.get(_try_url("NET_MARGIN"), asked, headers={"accept-language": "en"})
    words = english.context_data["preview"].words
    assert words.lower() == "operating profit / revenue" and "营业利润 / 营业收入" not in english.content.decode()
    chinese = curator.get(_try_url("NET_MARGIN"), asked, headers={"accept-language": "zh-hans"})
    assert chinese.context_data["preview"].words == "营业利润 / 营业收入"


def test_try_it_is_for_curators_only(demo, client: Client) -> None:
    url = _try_url("NET_MARGIN")
    assert client.get(url).status_code == 302
    client.force_login(demo["users"]["analyst"])
    assert client.get(url).status_code == 302
    client.force_login(demo["users"]["curator"])
    page = client.get(url)
    assert page.status_code == 200 and page.context_data["preview"] is None
    assert 'value="NET_PROFIT / REVENUE"' in page.content.decode()
    assert client.get("/admin/facts/metric/99999/try/").status_code == 404
    saved = client.get(url, {"try_entity": "集团", "try_period": "FY2025"})  # the saved formula and unit
    assert saved.context_data["value"] == _percent("6811.9", "128450.6")


def _pending_net_profit_hk(value: str, source: str, sensitivity: str = "INTERNAL") -> None:
    from facts.models import FactMetric

    FactMetric.objects.create(
        metric_id="NET_PROFIT",
        entity_id="ACME_HK",
        period_type="FY",
        period="2025",
        value=Decimal(value),
        unit_id="CNY_M",
        source_doc=source,
        locator="sheet=PL,row=12",
        sensitivity=sensitivity,
        review_status=FactMetric.Review.PENDING,
    )


def test_try_it_names_the_pending_candidates_of_a_missing_input(demo, client: Client) -> None:
    """Curators may see the candidates awaiting review, as their clearance allows."""
    _pending_net_profit_hk("1234.5", "HK_Mgmt_Accounts.xlsx")
    _pending_net_profit_hk("999.9", "HK_Board_Pack.xlsx", sensitivity="RESTRICTED")
    params = {"formula": "NET_PROFIT / REVENUE", "try_entity": "香港", "try_period": "FY2025"}
    client.force_login(demo["users"]["curator"])  # cleared
    page = client.get(_try_url("NET_MARGIN"), params)
    body = page.content.decode()
    shown = [(p["code"], p["value"], p["source"], p["locator"]) for p in page.context_data["pending"]]
    assert sorted(shown) == [
        ("NET_PROFIT", "1,234.5 百万元", "HK_Mgmt_Accounts.xlsx", "sheet=PL,row=12"),
        ("NET_PROFIT", "999.9 百万元", "HK_Board_Pack.xlsx", "sheet=PL,row=12"),
    ]
    assert "等待审核" in body and "HK_Mgmt_Accounts.xlsx" in body and "1,234.5" in body
    client.force_login(curator_make("curator_uncleared"))
    uncleared = client.get(_try_url("NET_MARGIN"), params)
    body = uncleared.content.decode()
    assert [p["source"] for p in uncleared.context_data["pending"]] == ["HK_Mgmt_Accounts.xlsx"]
    assert "HK_Board_Pack.xlsx" not in body and "999.9" not in body
