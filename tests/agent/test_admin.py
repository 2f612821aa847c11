"""Curator admin: review queue, glossary-gap report with one-click alias, feedback report."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from agent.models import QueryLog
from facts.models import Alias, FactMetric
from tests.factories import curator_make, entity_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator(demo) -> Client:
    client = Client()
    client.force_login(demo["users"]["curator"])
    return client


def test_pending_facts_answer_nothing_until_approved(curator: Client, analyst: APIClient) -> None:
    fact = FactMetric.objects.get(entity_id="ACME_HK", metric_id="ROE", period="2025")
    FactMetric.objects.filter(pk=fact.pk).update(review_status="pending")
    assert analyst.post("/v1/ask", {"question": "香港2025年ROE是多少"}, format="json").json()["facts"] == []
    queue = curator.get("/admin/facts/factmetric/", {"review_status__exact": "pending"})
    assert queue.status_code == 200 and "ACME_HK" in queue.content.decode()
    curator.post("/admin/facts/factmetric/", {"action": "approve", "_selected_action": [fact.pk]})
    assert (
        analyst.post("/v1/ask", {"question": "香港2025年ROE是多少"}, format="json").json()["facts"][0]["value"]
        == "11.8"
    )


def test_the_gap_report_lists_unknown_terms_and_adds_an_alias_in_one_click(curator: Client, analyst: APIClient) -> None:
    for _ in range(3):
        analyst.post("/v1/ask", {"question": "2025年营业额是多少"}, format="json")
    page = curator.get("/admin/agent/querylog/gaps/").content.decode()
    assert "营业额" in page
    response = curator.post("/admin/agent/querylog/gaps/", {"term": "营业额", "target": "metric:REVENUE"})
    assert response.status_code == 302 and Alias.objects.filter(text="营业额", metric__code="REVENUE").exists()
    body = analyst.post("/v1/ask", {"question": "2025年营业额是多少"}, format="json").json()
    assert body["facts"][0]["value"] == "128450.6"
    clash = curator.post("/admin/agent/querylog/gaps/", {"term": "香港", "target": "metric:REVENUE"}, follow=True)
    assert "already names" in clash.content.decode()
    again = curator.post("/admin/agent/querylog/gaps/", {"term": "营业额 ", "target": "metric:REVENUE"}, follow=True)
    assert again.status_code == 200 and "is already an alias of metric REVENUE" in again.content.decode()


def test_the_feedback_report_counts_votes(curator: Client, demo) -> None:
    QueryLog.objects.create(
        request_id="ab" * 8,
        route="structured",
        routing_mode="deterministic",
        clarification_mode="none",
        answer_kind="answer",
        feedback=-1,
        feedback_reason="数字不对口径",
    )
    page = curator.get("/admin/agent/querylog/feedback/").content.decode()
    assert "数字不对口径" in page and "structured" in page


def test_the_trace_admin_shows_no_answers(curator: Client, analyst: APIClient) -> None:
    analyst.post("/v1/ask", {"question": "中国内地FY2025的营收是多少"}, format="json")
    page = curator.get("/admin/agent/querylog/").content.decode()
    assert "structured" in page and "96120.3" not in page and "96,120.3" not in page


def _inline_alias(entity, text: str) -> dict[str, object]:
    return {
        "code": entity.code,
        "name": entity.name,
        "kind": entity.kind,
        "parent": "",
        "geography": "",
        "aliases-TOTAL_FORMS": "1",
        "aliases-INITIAL_FORMS": "0",
        "aliases-MIN_NUM_FORMS": "0",
        "aliases-MAX_NUM_FORMS": "1000",
        "aliases-0-id": "",
        "aliases-0-entity": entity.pk,
        "aliases-0-text": text,
    }


def test_aliases_added_in_admin_are_checked_for_clashes(db) -> None:
    hk, sea = entity_make(), entity_make("ACME_SEA", "ACME东南亚")
    client = Client()
    client.force_login(curator_make())
    added = client.post("/admin/facts/alias/add/", {"kind": "entity", "text": "港区", "entity": hk.pk})
    assert added.status_code == 302 and Alias.objects.get(text="港区").target_code == "ACME_HK"
    clash = client.post("/admin/facts/alias/add/", {"kind": "entity", "text": "港区", "entity": sea.pk})
    assert clash.status_code == 200 and "already names entity ACME_HK" in clash.content.decode()
    inline = client.post(f"/admin/facts/entity/{sea.pk}/change/", _inline_alias(sea, "东南亚"))
    assert inline.status_code == 302 and Alias.objects.get(text="东南亚").target_code == "ACME_SEA"
    inline_clash = client.post(f"/admin/facts/entity/{sea.pk}/change/", _inline_alias(sea, "港区"))
    assert inline_clash.status_code == 200 and "already names entity ACME_HK" in inline_clash.content.decode()
    new_entity = {**_inline_alias(sea, "台湾"), "code": "ACME_TW", "name": "ACME台湾", "aliases-0-entity": ""}
    assert client.post("/admin/facts/entity/add/", new_entity).status_code == 302
    assert Alias.objects.get(text="台湾").target_code == "ACME_TW" and Alias.objects.count() == 3


def test_the_gap_report_preselects_nothing_and_can_dismiss_or_create_a_metric(
    curator: Client, analyst: APIClient
) -> None:
    analyst.post("/v1/ask", {"question": "2025年营业额是多少"}, format="json")
    analyst.post("/v1/ask", {"question": "集团2025年EBITDA是多少"}, format="json")
    analyst.post("/v1/ask", {"question": "东南亚扩张计划怎么样"}, format="json")
    page = curator.get("/admin/agent/querylog/gaps/").content.decode()
    assert '<option value="" selected>— 请选择 —</option>' in page and "selected>营业" not in page
    unpicked = curator.post(
        "/admin/agent/querylog/gaps/", {"term": "营业额", "action": "alias", "target": ""}, follow=True
    )
    assert "请选择" in unpicked.content.decode() and not Alias.objects.filter(text="营业额").exists()
    curator.post("/admin/agent/querylog/gaps/", {"term": "营业额", "action": "dismiss"})
    assert "<td>营业额</td>" not in curator.get("/admin/agent/querylog/gaps/").content.decode()
    curator.post(
        "/admin/agent/querylog/gaps/", {"term": "EBITDA", "action": "metric", "code": "EBITDA", "unit": "CNY_M"}
    )
    assert Alias.objects.filter(text="EBITDA", metric__code="EBITDA").exists()
    clash = curator.post(
        "/admin/agent/querylog/gaps/",
        {"term": "毛利率", "action": "metric", "code": "EBITDA", "unit": "CNY_M"},
        follow=True,
    )
    assert "EBITDA" in clash.content.decode() and Alias.objects.filter(text="毛利率").count() == 1
