"""Through the real `/v1/ask` on the demo (reference date 2026-03-15): the whole year of the year
in context (`占全年的比重`), a derived half inside a comparison (`下半年比上半年`), quarters listed
with their word said once (`第三和第四季度`), a balance at a year's end (`2025年末`), and English and
Cantonese follow-ups in a conversation (`How about Q2?`, `咁第四季呢？`). Never a different
question: what cannot be computed is refused or asked back (SPEC §5, §5a, §6a)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from tests.core.support.computing import exact

pytestmark = pytest.mark.django_db
D = Decimal


def _ask(client: APIClient, question: str, conversation_id: str | None = None) -> dict:
    body: dict[str, object] = {"question": question, "reference_date": "2026-03-15"}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    response = client.post("/v1/ask", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _facts(body: dict) -> dict[str, str]:
    return {f"{f['entity']}/{f['metric']}/{f['period']}": f["value"] for f in body["facts"]}


def _computed(body: dict) -> list[tuple[str, Decimal, str]]:
    return [(c["kind"], D(c["value"]), c["display"]) for c in body["computed"]]


FY, H1, Q3, Q4 = D("128450.6"), D("61204.8"), D("32118.5"), D("35127.3")
H2 = FY - H1
# question → the computed values (kind, exact value, display), the facts read
COMPUTED = [
    (
        "集团2025年第四季度营收占全年的比重",
        [("share", exact(lambda: Q4 / FY), "27.35%")],
        {"ACME_GROUP/REVENUE/2025Q4": "35127.3", "ACME_GROUP/REVENUE/FY2025": "128450.6"},
    ),
    (
        "集團2025年上半年營收佔全年嘅比例",
        [("share", exact(lambda: H1 / FY), "47.65%")],
        {"ACME_GROUP/REVENUE/2025H1": "61204.8", "ACME_GROUP/REVENUE/FY2025": "128450.6"},
    ),
    (
        "集团下半年营收比上半年增长多少",
        [
            ("derived", D("67245.8"), "67,245.8"),
            ("difference", exact(lambda: (H2 - H1) / H1), "9.87%"),
            ("difference", D("6041.0"), "6,041.0"),
        ],
        {"ACME_GROUP/REVENUE/FY2025": "128450.6", "ACME_GROUP/REVENUE/2025H1": "61204.8"},
    ),
    (
        "集团2025年下半年营收是上半年的多少倍",
        [("derived", D("67245.8"), "67,245.8"), ("ratio", exact(lambda: H2 / H1), "109.87%")],
        {"ACME_GROUP/REVENUE/FY2025": "128450.6", "ACME_GROUP/REVENUE/2025H1": "61204.8"},
    ),
    *(
        (
            question,
            [("sum", Q3 + Q4, "67,245.8")],
            {"ACME_GROUP/REVENUE/2025Q3": "32118.5", "ACME_GROUP/REVENUE/2025Q4": "35127.3"},
        )
        for question in ("集团2025年第三和第四季度营收合计", "集团2025年三、四季度营收合计", "集团2025年Q3和Q4营收合计")
    ),
]


def test_the_questions_about_a_part_of_a_year_are_computed(analyst: APIClient) -> None:
    for question, computed, facts in COMPUTED:
        body = _ask(analyst, question)
        assert body["answer_kind"] == "answer", (question, body["answer"])
        assert _computed(body) == computed, question
        assert _facts(body) == facts, question
        for item in body["computed"]:
            assert {f"{i['entity']}/{i['metric']}/{i['period']}" for i in item["inputs"]} <= set(facts), question
    derived = _ask(analyst, "集团下半年营收比上半年增长多少")["computed"][0]
    assert derived["period"] == "2025H2" and derived["formula"] == "REVENUE[FY2025] - REVENUE[2025H1]"


def test_a_balance_at_the_year_end_and_never_at_its_start(analyst: APIClient) -> None:
    for question in ("集团2025年年末活跃会员数", "集团2025年末活跃会员数", "集团2025年底活跃会员数"):
        body = _ask(analyst, question)
        assert body["answer_kind"] == "answer", (question, body["answer"])
        assert _facts(body) == {"ACME_GROUP/ACTIVE_MEMBERS/FY2025": "5832"}, question
        assert body["clarification"]["mode"] != "ask_first", question
    start = _ask(analyst, "集团2025年初活跃会员数")
    assert start["answer_kind"] == "clarification" and start["facts"] == []


def test_english_and_cantonese_follow_ups_inherit(analyst: APIClient) -> None:
    first = _ask(analyst, "What was the group's Q1 2025 revenue?", "en-quarters")
    assert _facts(first) == {"ACME_GROUP/REVENUE/2025Q1": "29880.1"}
    second = _ask(analyst, "How about Q2?", "en-quarters")
    assert second["route"] == "structured", second["answer"]
    assert _facts(second) == {"ACME_GROUP/REVENUE/2025Q2": "31324.7"}
    assert "[From the previous question]" in second["answer"]

    _ask(analyst, "What was the group's revenue in 2025?", "en-regions")
    for question in ("What about Hong Kong?", "And Hong Kong?", "How about Hong Kong?"):
        body = _ask(analyst, question, "en-regions")
        assert body["route"] == "structured", (question, body["answer"])
        assert _facts(body) == {"ACME_HK/REVENUE/FY2025": "24015.8"}, question

    _ask(analyst, "集团2025年第一季度营收是多少", "yue")
    cantonese = _ask(analyst, "咁第四季呢？", "yue")
    assert cantonese["route"] == "structured", cantonese["answer"]
    assert _facts(cantonese) == {"ACME_GROUP/REVENUE/2025Q4": "35127.3"}
    assert "【沿用上一问】" in cantonese["answer"]
