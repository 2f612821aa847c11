"""Through the real `/v1/ask` on the demo: operators a question brings that were once dropped or
read as another (SPEC §5a) — a part excluded from its whole, a gap between two figures or two
growth rates in percentage points, a multiple of one figure across years, `累计`."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _ask(client: APIClient, question: str) -> dict:
    response = client.post("/v1/ask", {"question": question, "reference_date": "2026-03-15"}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("ACME集团2025年营业收入（不含香港）是多少？", "104,434.8"),
        ("What was ACME Group's FY2025 revenue excluding Hong Kong?", "104,434.8"),
        ("中国内地2025年营收不含线上是多少", "54,889.8"),
        ("2025年ACME中国内地毛利率比香港低多少个百分点？", "2.7 个百分点"),
        (
            "What is the gap in percentage points between ACME China's and ACME Hong Kong's gross margin in FY2025?",
            "2.7 pp",
        ),
        (
            "What is the difference in percentage points between ACME China's and ACME Hong Kong's FY2025 revenue "
            "growth "
            "rates?",
            "16.64 pp",
        ),
        ("集團2023年到2025年累計營收是多少？", "353,663.7"),
    ],
)
def test_the_operator_asked_is_computed(analyst: APIClient, question: str, shown: str) -> None:
    body = _ask(analyst, question)
    assert body["answer_kind"] == "answer"
    assert shown in body["answer"]


def test_a_part_is_never_excluded_from_a_ratio_and_no_whole_is_shown(analyst: APIClient) -> None:
    body = _ask(analyst, "ACME集团2025年毛利率（剔除东南亚）是多少？")
    assert body["answer_kind"] == "refusal"
    assert "29.7" not in body["answer"] and body["facts"] == []


@pytest.mark.parametrize(
    ("question", "met", "not_met"),
    [
        ("2025年营业利润为负的地区有哪些", "ACME东南亚（-1,085.2 百万元）", "ACME中国内地（"),
        ("Which regions grew revenue faster than 10% in FY2025?", "Southeast Asia (59.66%)", "mainland China ("),
        ("2025年营收超过20000的地区有哪些", "ACME香港（24,015.8 百万元）", "ACME东南亚（"),
    ],
)
def test_a_condition_on_the_members_names_those_that_meet_it(
    analyst: APIClient, question: str, met: str, not_met: str
) -> None:
    body = _ask(analyst, question)
    lead = body["answer"].split("\n")[0]
    assert met in lead and not_met not in lead
    assert len(body["facts"]) >= 3  # every member's figure, with its source


def test_a_currency_asked_is_converted_with_the_curated_rate_of_the_period(analyst: APIClient, tmp_path) -> None:
    from decimal import Decimal, localcontext
    from io import StringIO

    from django.core.management import call_command

    from core.engine.formula import decimal_context

    rates = tmp_path / "fx.csv"
    rates.write_text(
        "base,quote,period,rate,rate_type,source\nUSD,CNY,FY2025,7.1,average,curated\nUSD,CNY,FY2024,7.0,average,curated\n"
    )
    call_command("import_fx", str(rates), stdout=StringIO())
    body = _ask(analyst, "集团2025年营业收入换算成美元是多少？")
    assert body["answer_kind"] == "answer"
    converted = body["computed"][-1]
    with localcontext(decimal_context()):  # the engine's precision: 34 significant digits
        assert Decimal(converted["value"]) == Decimal("128450.6") / Decimal("7.1")
    assert converted["unit"] == "USD_M" and "USD/CNY 7.1" in body["answer"] and "128,450.6" in body["answer"]
    # a period without a curated rate is refused, naming the rate
    refused = _ask(analyst, "集团2023年营业收入换算成美元是多少？")
    assert refused["answer_kind"] == "refusal" and "FY2023" in refused["answer"] and "CNY→USD" in refused["answer"]
