"""`GET /v1/glossary/metrics` and the metric admin: each metric says how it
adds up (`aggregation`: sum, end or none), as a curator set it or as its unit gives it; a curator
changes it in admin and the API and the next answer read the change."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from facts.models import Metric
from facts.selectors import glossary_snapshot
from tests.facts.support import change_url, post_data

pytestmark = pytest.mark.django_db


def metrics_of(client: APIClient) -> dict[str, dict[str, Any]]:
    response = client.get("/v1/glossary/metrics")
    assert response.status_code == 200
    return {m["code"]: m for m in response.json()}


def test_every_metric_says_how_it_adds_up(analyst: APIClient) -> None:
    metrics = metrics_of(analyst)
    assert set(metrics) == set(Metric.objects.values_list("code", flat=True))
    assert metrics["ACTIVE_MEMBERS"]["aggregation"] == "end"
    assert metrics["ACTIVE_MEMBERS"]["aggregation_from"] == "glossary"
    assert (metrics["REVENUE"]["aggregation"], metrics["REVENUE"]["aggregation_from"]) == ("sum", "unit")
    assert (metrics["GROSS_MARGIN"]["aggregation"], metrics["GROSS_MARGIN"]["unit"]) == ("none", "PCT")
    assert metrics["REVENUE"]["name"] == "营业收入" and metrics["REVENUE"]["formula"] == ""
    assert metrics["OPERATING_MARGIN"]["formula"]  # a formula metric says its formula


def test_the_metric_list_needs_a_login_and_is_read_only(analyst: APIClient) -> None:
    assert APIClient().get("/v1/glossary/metrics").status_code in (401, 403)
    refused = analyst.post("/v1/glossary/metrics", {"code": "X"}, format="json")
    assert refused.status_code in (403, 405)


def test_the_schema_describes_the_metric_list(analyst: APIClient) -> None:
    schema = analyst.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    metric = schema["components"]["schemas"]["GlossaryMetric"]
    assert {"code", "name", "unit", "formula", "aggregation", "aggregation_from"} <= set(metric["properties"])
    listed = schema["paths"]["/v1/glossary/metrics"]["get"]["responses"]["200"]["content"]["application/json"]
    assert listed["schema"]["items"]["$ref"] == "#/components/schemas/GlossaryMetric"
    components = schema["components"]["schemas"]
    enum_ref = (
        metric["properties"]["aggregation"].get("$ref") or metric["properties"]["aggregation"]["allOf"][0]["$ref"]
    )
    assert components[enum_ref.rsplit("/", 1)[-1]]["enum"] == ["sum", "end", "none"]


def test_a_curator_sets_aggregation_in_admin_and_the_api_and_answers_read_it(
    demo: dict[str, Any], analyst: APIClient
) -> None:
    curator = Client()
    curator.force_login(demo["users"]["curator"])
    url = change_url("REVENUE")
    page = curator.get(url)
    assert page.status_code == 200 and 'name="aggregation"' in page.content.decode()
    saved = curator.post(url, post_data(page, aggregation="end"))
    assert saved.status_code == 302
    assert Metric.objects.get(code="REVENUE").aggregation == "end"
    assert (metrics_of(analyst)["REVENUE"]["aggregation"], metrics_of(analyst)["REVENUE"]["aggregation_from"]) == (
        "end",
        "glossary",
    )
    assert glossary_snapshot().metrics["REVENUE"].adds_up == "end"
    # a value at a date has no second half by subtraction: its H2 is its year-end value
    body = analyst.post("/v1/ask", {"question": "集团2025年下半年营收"}, format="json").json()
    assert [c["formula"] for c in body["computed"]] == ["REVENUE[FY2025]", "REVENUE[2025Q4]"]

    bad = curator.post(url, post_data(curator.get(url), aggregation="average"))
    assert bad.status_code == 200 and "aggregation" in bad.context["adminform"].form.errors
    cleared = curator.post(url, post_data(curator.get(url), aggregation=""))
    assert cleared.status_code == 302 and metrics_of(analyst)["REVENUE"]["aggregation_from"] == "unit"
