"""`/v1/faq` and `/v1/glossary/aliases`: curators write, analysts read within their clearance."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.clients import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator(demo) -> APIClient:
    return client_for(demo["users"]["curator"])


def test_analysts_read_faq_without_restricted_items(analyst: APIClient, cleared: APIClient) -> None:
    visible = {item["question"] for item in analyst.get("/v1/faq").json()}
    assert "财年是怎么定义的" in visible and "蓝鲸项目进展如何" not in visible
    assert "蓝鲸项目进展如何" in {item["question"] for item in cleared.get("/v1/faq").json()}


def test_analysts_cannot_write(analyst: APIClient) -> None:
    response = analyst.post("/v1/faq", {"question": "新问题", "answer": "答", "source": "s"}, format="json")
    assert response.status_code == 403 and response.json()["error"]["type"] == "permission_denied"
    assert (
        analyst.post(
            "/v1/glossary/aliases", {"kind": "metric", "text": "营业额", "code": "REVENUE"}, format="json"
        ).status_code
        == 403
    )


def test_curators_create_change_and_delete_faq_items(curator: APIClient, analyst: APIClient) -> None:
    created = curator.post(
        "/v1/faq",
        {"question": "报销找谁", "aliases": ["报销联系人"], "answer": "找财务共享中心。", "source": "行政制度手册"},
        format="json",
    )
    assert created.status_code == 201
    pk = created.json()["id"]
    assert analyst.post("/v1/ask", {"question": "报销联系人"}, format="json").json()["route"] == "faq"
    assert curator.patch(f"/v1/faq/{pk}", {"enabled": False}, format="json").json()["enabled"] is False
    assert analyst.post("/v1/ask", {"question": "报销联系人"}, format="json").json()["route"] != "faq"
    bad = curator.patch(f"/v1/faq/{pk}", {"valid_from": "2026-05-01", "valid_until": "2026-01-01"}, format="json")
    assert bad.status_code == 400
    assert curator.delete(f"/v1/faq/{pk}").status_code == 204
    assert curator.get(f"/v1/faq/{pk}").status_code == 404


def test_curators_add_and_remove_aliases(curator: APIClient, analyst: APIClient) -> None:
    created = curator.post(
        "/v1/glossary/aliases", {"kind": "metric", "text": "营业额", "code": "REVENUE"}, format="json"
    )
    assert created.status_code == 201
    assert (
        analyst.post("/v1/ask", {"question": "2025年营业额是多少"}, format="json").json()["facts"][0]["value"]
        == "128450.6"
    )
    clash = curator.post("/v1/glossary/aliases", {"kind": "metric", "text": "香港", "code": "REVENUE"}, format="json")
    assert clash.status_code == 400 and "already names" in clash.json()["error"]["message"]
    assert (
        curator.post("/v1/glossary/aliases", {"kind": "metric", "text": "x", "code": "NOPE"}, format="json").status_code
        == 400
    )
    assert curator.delete(f"/v1/glossary/aliases/{created.json()['id']}").status_code == 204
    assert analyst.post("/v1/ask", {"question": "2025年营业额是多少"}, format="json").json()["facts"] == []


def test_an_alias_that_already_exists_is_a_conflict_not_an_outage(curator: APIClient) -> None:
    body = {"kind": "metric", "text": "营业额", "code": "REVENUE"}
    assert curator.post("/v1/glossary/aliases", body, format="json").status_code == 201
    again = curator.post("/v1/glossary/aliases", body, format="json")
    assert again.status_code == 409, again.json()
    assert again.json()["error"]["type"] == "conflict"


def test_an_alias_that_differs_only_by_a_full_width_colon_is_a_conflict_naming_the_alias(
    curator: APIClient,
) -> None:
    curator.raise_request_exception = False
    first = {"kind": "metric", "text": "营收额：", "code": "REVENUE"}
    assert curator.post("/v1/glossary/aliases", first, format="json").status_code == 201
    again = curator.post("/v1/glossary/aliases", {**first, "text": "营收额:"}, format="json")
    assert again.status_code == 409, again.json()
    error = again.json()["error"]
    assert error["type"] == "conflict"
    assert error["message"] == "text: '营收额:' is already an alias of metric REVENUE, written '营收额：'."
