"""The facts admin says what is wrong with a change, as a form error, instead of letting the
database refuse it (which used to read as "the database is unavailable", a 503)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from facts.models import Alias, FactMetric
from facts.services import alias_create
from tests.factories import curator_make, entity_make, metric_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(curator_make())
    return client


def _pending(**fields: object) -> FactMetric:
    values = {
        "entity_id": "ACME_HK",
        "metric_id": "REVENUE",
        "period_type": "FY",
        "period": "2025",
        "value": Decimal("24015.8"),
        "unit_id": "CNY_M",
        "source_doc": "report.xlsx",
        "locator": "sheet=ACME香港!B2",
        "review_status": "pending",
        **fields,
    }
    return FactMetric.objects.create(**values)


def _approve(client: Client, fact: FactMetric) -> str:
    response = client.post(
        f"/admin/facts/factmetric/{fact.pk}/change/",
        {
            "sensitivity": fact.sensitivity,
            "review_status": "approved",
            "review_note": fact.review_note,
            "disputes-TOTAL_FORMS": "0",
            "disputes-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_approving_a_fact_without_a_metric_on_its_page_says_the_metric_is_missing(curator: Client) -> None:
    entity_make()
    metric_make()
    fact = _pending(metric_id=None, suggested_alias="营收合计")
    page = _approve(curator, fact)
    assert "没有指标" in page and "营收合计" in page
    assert FactMetric.objects.get(pk=fact.pk).review_status == "pending"


def test_approving_a_fact_without_an_entity_or_unit_names_both(curator: Client) -> None:
    metric_make()
    fact = _pending(entity_id=None, unit_id=None)
    page = _approve(curator, fact)
    assert "没有所属公司" in page and "没有单位" in page and "创建其公司" in page
    assert FactMetric.objects.get(pk=fact.pk).review_status == "pending"


def test_a_complete_fact_is_approved_on_its_page(curator: Client) -> None:
    entity_make()
    metric_make()
    fact = _pending()
    response = curator.post(
        f"/admin/facts/factmetric/{fact.pk}/change/",
        {
            "sensitivity": fact.sensitivity,
            "review_status": "approved",
            "review_note": "",
            "disputes-TOTAL_FORMS": "0",  # the analysts' disputes shown beside the fact
            "disputes-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    assert FactMetric.objects.get(pk=fact.pk).review_status == "approved"


def test_approving_a_fact_whose_key_is_held_names_the_approved_fact(curator: Client) -> None:
    entity_make()
    metric_make()
    _pending(review_status="approved")
    fact = _pending(value=Decimal("1.5"), source_doc="second.xlsx")
    page = _approve(curator, fact)
    assert "已有批准值：24015.8 CNY_M，来自 report.xlsx" in page
    assert FactMetric.objects.get(pk=fact.pk).review_status == "pending"


def test_an_alias_that_differs_only_by_a_full_width_colon_is_a_form_error(curator: Client) -> None:
    revenue = metric_make()
    alias_create(kind="metric", text="营业收入：", code="REVENUE")
    response = curator.post("/admin/facts/alias/add/", {"kind": "metric", "text": "营业收入:", "metric": revenue.pk})
    assert response.status_code == 200, response.status_code
    assert "is already an alias of metric REVENUE, written" in response.content.decode()
    assert Alias.objects.count() == 1


def test_the_same_alias_added_inline_on_the_metric_page_is_a_form_error(curator: Client) -> None:
    revenue = metric_make()
    alias_create(kind="metric", text="营业收入：", code="REVENUE")
    form = {
        "code": "REVENUE",
        "name": revenue.name,
        "unit": "CNY_M",
        "description": "",
        "formula": "",
        "aliases-TOTAL_FORMS": "2",
        "aliases-INITIAL_FORMS": "1",
        "aliases-MIN_NUM_FORMS": "0",
        "aliases-MAX_NUM_FORMS": "1000",
        "aliases-0-id": Alias.objects.get().pk,
        "aliases-0-metric": revenue.pk,
        "aliases-0-text": "营业收入：",
        "aliases-1-id": "",
        "aliases-1-metric": revenue.pk,
        "aliases-1-text": "营业收入:",
    }
    response = curator.post(f"/admin/facts/metric/{revenue.pk}/change/", form)
    assert response.status_code == 200, response.status_code
    assert "is already an alias of metric REVENUE" in response.content.decode()
    assert Alias.objects.count() == 1
