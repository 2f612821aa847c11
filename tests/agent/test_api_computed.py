"""`computed` in the `/v1/ask` object: `/v1/ask`, its stream, `manage.py ask --json` and the schema.

The rule parser does not read operations yet; a stand-in adds the operation these questions ask
for to its parse, as the parser will (a test double for the parser, not for the answer).
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal, localcontext
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from core import pipeline
from core.engine.formula import decimal_context
from core.model.operation import Operation
from documents.models import Document

pytestmark = pytest.mark.django_db

OPERATIONS = {
    "集团2025年营收同比增长多少": Operation("growth", cue="同比"),
    "What was the group's revenue growth in 2025?": Operation("growth", cue="growth"),
    "2025年哪个地区营收最高": Operation("rank", cue="最高", over="entities"),
    "2025年各地区净利润排名": Operation("rank", cue="排名", over="entities"),
    "2025年香港和东南亚营收合计是多少": Operation("sum", cue="合计"),
}
ASK = {"reference_date": "2026-03-15"}


@pytest.fixture(autouse=True)
def operations_read(monkeypatch: pytest.MonkeyPatch) -> None:
    parse = pipeline.parse_intent

    def parse_with_operation(question: str, *args: Any) -> Any:
        intent = parse(question, *args)
        return replace(intent, operation=OPERATIONS.get(question, intent.operation))

    monkeypatch.setattr(pipeline, "parse_intent", parse_with_operation)


def ask(client: APIClient, question: str) -> dict[str, Any]:
    response = client.post("/v1/ask", {"question": question, **ASK}, format="json")
    assert response.status_code == 200
    return response.json()


def input_keys(fact: dict[str, Any]) -> dict[str, str]:
    return {key: fact[key] for key in ("metric", "entity", "period", "channel")}


def test_a_growth_lists_its_rate_and_change_with_inputs_that_are_found_facts(analyst: APIClient) -> None:
    body = ask(analyst, "集团2025年营收同比增长多少")
    with localcontext(decimal_context()):
        rate = (Decimal("128450.6") - Decimal("118340.2")) / Decimal("118340.2")
    inputs = [
        {"metric": "REVENUE", "entity": "ACME_GROUP", "period": "FY2025", "channel": "TOTAL"},
        {"metric": "REVENUE", "entity": "ACME_GROUP", "period": "FY2024", "channel": "TOTAL"},
    ]
    assert body["computed"] == [
        {
            "kind": "growth",
            "name": "营业收入同比增长率",
            "formula": "(REVENUE[FY2025] - REVENUE[FY2024]) / REVENUE[FY2024]",
            "formula_words": "(营业收入 FY2025 − 营业收入 FY2024) ÷ 营业收入 FY2024",
            "value": f"{rate:f}",
            "display": "8.54%",
            "unit": "PCT",
            "inputs": inputs,
        },
        {
            "kind": "growth",
            "name": "营业收入同比变动额",
            "formula": "REVENUE[FY2025] - REVENUE[FY2024]",
            "formula_words": "营业收入 FY2025 − 营业收入 FY2024",
            "value": "10110.4",
            "display": "10,110.4",
            "unit": "CNY_M",
            "inputs": inputs,
        },
    ]
    assert [input_keys(f) for f in body["facts"]] == inputs
    assert body["facts"][0]["source"]["document_id"] == Document.objects.get(name="ACME_FY2025_Annual_Results.pptx").pk
    assert [r["status"] for r in body["tool_results"]] == ["found", "found"]
    assert [s["kind"] for s in body["sources"]] == ["fact", "fact"]
    assert body["answer"].startswith("ACME集团 FY2025 营业收入同比增长 8.54%，增加 10,110.4 百万元。")
    assert body["answer_kind"] == "answer" and body["route"] == "structured"


def test_computed_items_speak_the_questions_language(analyst: APIClient) -> None:
    body = ask(analyst, "What was the group's revenue growth in 2025?")
    assert [(c["name"], c["display"]) for c in body["computed"]] == [
        ("revenue YoY growth", "8.54%"),
        ("revenue YoY change", "10,110.4"),
    ]


def test_rank_items_carry_the_figure_ranked_for_the_bar_chart(analyst: APIClient) -> None:
    body = ask(analyst, "2025年哪个地区营收最高")
    ranked = [
        (c["kind"], c["value"], c["inputs"][0]["entity"], c["ranked_value"], c["ranked_display"])
        for c in body["computed"]
    ]
    assert {(c["ranked_metric"], c["order"], c["count"]) for c in body["computed"]} == {("REVENUE", "desc", 3)}
    assert ranked == [
        ("rank", "1", "ACME_CN", "96120.3", "96,120.3"),
        ("rank", "2", "ACME_HK", "24015.8", "24,015.8"),
        ("rank", "3", "ACME_SEA", "8314.5", "8,314.5"),
    ]
    assert body["computed"][0]["unit"] == "RANK" and "中国内地" in body["computed"][0]["name"]
    assert {f["entity"] for f in body["facts"]} == {"ACME_CN", "ACME_HK", "ACME_SEA"}
    assert "1. ACME中国内地 96,120.3 百万元" in body["answer"]


def test_a_sum_and_its_inputs(analyst: APIClient) -> None:
    body = ask(analyst, "2025年香港和东南亚营收合计是多少")
    (total,) = body["computed"]
    assert (total["kind"], total["value"], total["display"], total["unit"]) == ("sum", "32330.3", "32,330.3", "CNY_M")
    assert total["formula"] == "REVENUE[ACME_HK,FY2025] + REVENUE[ACME_SEA,FY2025]"
    assert [input_keys(f) for f in body["facts"]] == total["inputs"]


def test_a_level_question_has_an_empty_computed_list(analyst: APIClient) -> None:
    body = ask(analyst, "中国内地FY2025的营收是多少")
    assert body["computed"] == [] and body["facts"][0]["value"] == "96120.3"


def test_a_listed_pair_lists_its_difference(analyst: APIClient) -> None:
    body = ask(analyst, "集团2024年和2025年营收对比")
    assert "对比：FY2025 较 FY2024 +10,110.4 百万元（+8.54%）" in body["answer"]
    assert [(c["kind"], c["display"]) for c in body["computed"]] == [
        ("difference", "8.54%"),
        ("difference", "10,110.4"),
    ]


def test_a_restricted_input_is_as_absent_for_an_uncleared_analyst(analyst: APIClient, cleared: APIClient) -> None:
    shown = ask(cleared, "2025年各地区净利润排名")
    assert [f["value"] for f in shown["facts"]] == ["-1402.6"] and shown["computed"] == []  # one figure: no rank
    hidden = ask(analyst, "2025年各地区净利润排名")
    assert hidden["answer_kind"] == "refusal" and hidden["computed"] == [] and hidden["facts"] == []
    assert "1402.6" not in json.dumps(hidden, ensure_ascii=False) and "1,402.6" not in hidden["answer"]
    # Every region reads as without the figure, the restricted one as the absent ones do.
    assert "3 项均无该数据（ACME中国内地、ACME香港、ACME东南亚），无法排名。" in hidden["answer"]
    assert "东南亚扩张计划" not in json.dumps(hidden, ensure_ascii=False)


def test_a_ranking_with_one_figure_of_three_names_no_highest(demo: dict[str, Any]) -> None:
    # The shared golden case as the command answers it over the demo database.
    out = StringIO()
    call_command(
        "ask", "2025年各地区净利润排名", "--user", "analyst_cleared", "--reference-date", "2026-03-15", stdout=out
    )
    answer = out.getvalue()
    for said in ("最高的是 ACME东南亚", "最高的是ACME东南亚", "最高", "排名第", "1. "):
        assert said not in answer, said
    assert answer.splitlines()[:3] == [
        "FY2025 净利润：3 项中只有 1 项有该数据，无法排名。",
        "ACME东南亚 FY2025 净利润：-1,402.6 百万元（来源：东南亚扩张计划_内部.docx · table=1,row=净利润,col=FY2025）",
        "未找到：ACME中国内地、ACME香港（无该数据）",
    ]


def test_the_stream_done_event_and_the_command_carry_computed(analyst: APIClient, demo: dict[str, Any]) -> None:
    question = "集团2025年营收同比增长多少"
    response = analyst.post("/v1/ask/stream", {"question": question, **ASK}, format="json")
    done = b"".join(response.streaming_content).decode().strip().split("\n\n")[-1]
    assert done.startswith("event: done\n")
    streamed = json.loads(done.split("\n", 1)[1].removeprefix("data: "))
    out = StringIO()
    call_command("ask", question, "--json", "--user", "analyst", "--reference-date", "2026-03-15", stdout=out)
    printed = json.loads(out.getvalue())
    assert streamed["computed"] == printed["computed"] == ask(analyst, question)["computed"]
    assert [c["display"] for c in printed["computed"]] == ["8.54%", "10,110.4"]


def test_the_schema_describes_computed(analyst: APIClient) -> None:
    schema = analyst.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]
    response = components["AskResponse"]
    assert "computed" in response["required"]
    assert response["properties"]["computed"]["items"] == {"$ref": "#/components/schemas/AskComputed"}
    computed = components["AskComputed"]
    assert set(computed["properties"]) == {
        "kind",
        "name",
        "formula",
        "formula_words",
        "value",
        "display",
        "unit",
        "inputs",
        "ranked_value",
        "ranked_display",
        "ranked_metric",
        "order",
        "count",
        "period",
    }
    assert set(computed["required"]) == {
        "kind",
        "name",
        "formula",
        "formula_words",
        "value",
        "display",
        "unit",
        "inputs",
    }


def test_a_derived_half_lists_each_derivation_with_its_inputs(analyst: APIClient) -> None:
    body = ask(analyst, "集团2025年下半年营收")
    assert [(c["kind"], c["value"]) for c in body["computed"]] == [("derived", "67245.8"), ("derived", "67245.8")]
    assert [[i["period"] for i in c["inputs"]] for c in body["computed"]] == [
        ["FY2025", "2025H1"],
        ["2025Q3", "2025Q4"],
    ]
    assert [c["period"] for c in body["computed"]] == ["2025H2", "2025H2"]  # the period each stands for


def test_a_series_lists_every_year_of_the_range_in_order(analyst: APIClient) -> None:
    body = ask(analyst, "集团2022到2025年每年的营收")
    assert [f["period"] for f in body["facts"]] == ["FY2022", "FY2023", "FY2024", "FY2025"]
