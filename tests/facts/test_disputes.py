""" "This figure is wrong": an analyst's dispute reaches the curator's review queue beside
the fact, from the answer page and over the API, with the answers' clearance."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from facts.models import FactDispute, FactMetric

pytestmark = pytest.mark.django_db


def _fact(locator: str = "sheet=ACME集团!D3") -> FactMetric:
    return FactMetric.objects.get(locator=locator)


def test_an_analyst_disputes_a_figure_over_the_api(analyst: APIClient, demo: dict[str, Any]) -> None:
    fact = _fact()
    response = analyst.post(f"/v1/facts/{fact.pk}/disputes", {"note": "年报里是 118,430.2"}, format="json")
    assert response.status_code == 201 and response.json()["fact"] == fact.pk
    dispute = FactDispute.objects.get()
    assert (dispute.fact, dispute.note, dispute.status) == (fact, "年报里是 118,430.2", "open")
    assert dispute.created_by == demo["users"]["analyst"]
    empty = analyst.post(f"/v1/facts/{fact.pk}/disputes", {"note": "  "}, format="json")
    assert empty.status_code == 400 and "note" in str(empty.json()["error"])


def test_a_restricted_figure_cannot_be_disputed_by_the_uncleared(analyst: APIClient, cleared: APIClient) -> None:
    secret = FactMetric.objects.filter(document__sensitivity="RESTRICTED").first()
    assert secret is not None
    hidden = analyst.post(f"/v1/facts/{secret.pk}/disputes", {"note": "wrong"}, format="json")
    missing = analyst.post("/v1/facts/99999999/disputes", {"note": "wrong"}, format="json")
    assert hidden.status_code == missing.status_code == 404
    assert {**hidden.json()["error"], "request_id": ""} == {**missing.json()["error"], "request_id": ""}
    assert not FactDispute.objects.exists()
    assert cleared.post(f"/v1/facts/{secret.pk}/disputes", {"note": "wrong"}, format="json").status_code == 201


def test_the_answer_page_files_a_dispute_without_javascript(demo: dict[str, Any]) -> None:
    web = Client()
    web.force_login(demo["users"]["analyst"])
    page = web.post("/ask", {"question": "集团2024年营收是多少"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'action="/disputes"' in page
    fact = _fact()
    form = {"document_id": fact.document_id, "locator": fact.locator, "note": "不对", "turn": 0}
    response = web.post("/disputes", form)
    assert response.status_code == 302 and FactDispute.objects.get().fact == fact
    assert web.post("/disputes", {"document_id": "x", "locator": fact.locator, "note": "不对"}).status_code == 404
    assert web.post("/disputes", {"document_id": fact.document_id, "locator": fact.locator}).status_code == 422


def test_curators_list_filter_count_and_resolve_disputes(demo: dict[str, Any]) -> None:
    from tests.factories import curator_make

    fact = _fact()
    FactDispute.objects.create(fact=fact, note="one")
    FactDispute.objects.create(fact=fact, note="two", status="resolved")
    secret = FactMetric.objects.filter(document__sensitivity="RESTRICTED").first()
    FactDispute.objects.create(fact=secret, note="secret note")
    admin = Client()
    admin.force_login(curator_make("curator2"))
    listing = admin.get("/admin/facts/factdispute/").content.decode()
    assert "（1 条未处理）" in listing and "one" in listing and "secret note" not in listing  # the uncleared curator
    assert "two" not in admin.get("/admin/facts/factdispute/?status__exact=open").content.decode()
    assert "one" in admin.get(f"/admin/facts/factmetric/{fact.pk}/change/").content.decode()  # beside the fact
    opened = FactDispute.objects.get(note="one")
    admin.post("/admin/facts/factdispute/", {"action": "resolve", "_selected_action": [opened.pk]})
    opened.refresh_from_db()
    assert opened.status == "resolved" and opened.resolved_at is not None
    assert "（0 条未处理）" in admin.get("/admin/facts/factdispute/").content.decode()


def test_the_fact_list_counts_each_facts_open_disputes_and_filters_the_disputed(demo: dict[str, Any]) -> None:
    import re

    from tests.factories import curator_make

    fact, other = _fact(), _fact("sheet=ACME集团!C3")
    FactDispute.objects.create(fact=fact, note="one")
    FactDispute.objects.create(fact=fact, note="two")
    FactDispute.objects.create(fact=fact, note="done", status="resolved")
    admin = Client()
    admin.force_login(curator_make("curator3"))
    listing = admin.get("/admin/facts/factmetric/").content.decode()
    assert "未处理的反馈" in listing

    def count_of(page: str, pk: int) -> str:
        row = re.search(rf"<tr>(?:(?!</tr>).)*?/admin/facts/factmetric/{pk}/change/(?:(?!</tr>).)*</tr>", page, re.S)
        assert row is not None, pk
        cell = re.search(r'<td class="field-open_disputes">(.*?)</td>', row.group(0), re.S)
        assert cell is not None
        return re.sub(r"<[^>]+>", "", cell.group(1)).strip()

    assert count_of(listing, fact.pk) == "2" and count_of(listing, other.pk) == "0"
    disputed = admin.get("/admin/facts/factmetric/?disputed=open").content.decode()
    assert f"/admin/facts/factmetric/{fact.pk}/change/" in disputed
    assert f"/admin/facts/factmetric/{other.pk}/change/" not in disputed
