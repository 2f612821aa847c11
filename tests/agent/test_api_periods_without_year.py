"""Through the real `/v1/ask` on the demo: a period named without a year (`第四季度`, `上半年`,
`前三季度`, `Q3`, `H1`) is the latest complete one at the reference date, never a future one, and the
answer says so with the other choices; a follow-up in a conversation too (SPEC §5a)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _ask(client: APIClient, question: str, conversation_id: str | None = None) -> dict:
    body: dict[str, object] = {"question": question, "reference_date": "2026-03-15"}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    response = client.post("/v1/ask", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _facts(body: dict) -> dict[str, str]:
    return {f"{f['entity']}/{f['period']}": f["value"] for f in body["facts"]}


CASES = [
    ("集团第四季度营收是多少", {"ACME_GROUP/2025Q4": "35127.3"}, "2025Q4", "【假设】"),
    ("集团上半年营收", {"ACME_GROUP/2025H1": "61204.8"}, "2025H1", "【假设】"),
    ("集团Q3营收是多少", {"ACME_GROUP/2025Q3": "32118.5"}, "2025Q3", "【假设】"),
    ("What was the group's H1 revenue?", {"ACME_GROUP/2025H1": "61204.8"}, "2025H1", "[Assumption]"),
    (
        "集团前三季度营收是多少",
        {"ACME_GROUP/2025Q1": "29880.1", "ACME_GROUP/2025Q2": "31324.7", "ACME_GROUP/2025Q3": "32118.5"},
        None,
        "【假设】",
    ),
]


def test_a_period_without_a_year_is_the_latest_complete_one_with_a_banner(analyst: APIClient) -> None:
    for question, facts, assumed, banner in CASES:
        body = _ask(analyst, question)
        assert body["answer_kind"] == "answer", (question, body["answer"])
        assert _facts(body) == facts, question
        clarification = body["clarification"]
        assert clarification["mode"] == "answer_with_assumptions", question
        assert clarification["assumed"]["period"] == assumed, question
        assert body["answer"].startswith(banner) and clarification["assumption_note"] in body["answer"]
        assert clarification["narrowing_options"], question
        assert "2026" not in body["answer"], question  # never the period not yet over
    summed = _ask(analyst, "集团前三季度营收是多少")
    assert [c["value"] for c in summed["computed"]] == ["93323.3"]


def test_a_follow_up_without_a_year_in_a_conversation(analyst: APIClient) -> None:
    first = _ask(analyst, "集团2025年营收是多少", "yearless")
    assert _facts(first) == {"ACME_GROUP/FY2025": "128450.6"}
    second = _ask(analyst, "第四季度呢", "yearless")
    assert _facts(second) == {"ACME_GROUP/2025Q4": "35127.3"}
    assert second["clarification"]["mode"] == "answer_with_assumptions"
    assert "【沿用上一问】" in second["answer"] and "【假设】" in second["answer"]
    assert [o["label"] for o in second["clarification"]["narrowing_options"]] == ["2024Q4"]
    third = _ask(analyst, "环比增长多少", "yearless")
    assert set(_facts(third)) == {"ACME_GROUP/2025Q3", "ACME_GROUP/2025Q4"}
    assert third["computed"] and third["computed"][0]["inputs"][0]["period"] in ("2025Q3", "2025Q4")
    assert "2026" not in third["answer"]
