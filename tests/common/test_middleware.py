"""The last resort tells a refused write from an outage: a write the database refuses is a 409
(a duplicate) or a 400 (another broken rule), on a page and in the /v1/ envelope; only the
database being unreachable is a 503."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db import DataError, IntegrityError, InterfaceError, OperationalError, ProgrammingError
from django.test import Client

from common.middleware import database_error_answer
from facts.models import Alias, FactMetric
from facts.services import alias_create
from tests.clients import client_for
from tests.factories import curator_make, entity_make, metric_make


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (IntegrityError("UNIQUE constraint failed: facts_alias.key"), 409),
        (IntegrityError("CHECK constraint failed: fact_approved_is_complete"), 400),
        (IntegrityError("NOT NULL constraint failed: facts_alias.text"), 400),
        (DataError("value too long for type character varying(255)"), 400),
        (OperationalError("connection to server failed"), 503),
        (InterfaceError("connection already closed"), 503),
    ],
)
def test_database_errors_are_answered_by_what_happened(error: Exception, status: int) -> None:
    answer = database_error_answer(error)
    assert answer is not None and answer[0] == status


def test_a_query_the_database_cannot_run_is_our_bug_not_an_outage() -> None:
    assert database_error_answer(ProgrammingError('relation "facts_alias" does not exist')) is None
    assert database_error_answer(RuntimeError("not the database")) is None


@pytest.fixture
def unchecked(monkeypatch: Any) -> None:
    """Every check before the save skipped, so the database itself refuses the write."""
    monkeypatch.setattr("facts.services.glossary._alias_problem", lambda **kwargs: None)
    monkeypatch.setattr("facts.glossary_admin.alias_conflict", lambda **kwargs: None)
    monkeypatch.setattr(FactMetric, "clean", lambda self: None)


@pytest.fixture
def curator(db: Any) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(curator_make())
    return client


def test_a_duplicate_the_database_refuses_in_admin_is_a_409_page(curator: Client, unchecked: None) -> None:
    revenue = metric_make()
    alias_create(kind="metric", text="营业收入：", code="REVENUE")
    page = curator.post("/admin/facts/alias/add/", {"kind": "metric", "text": "营业收入:", "metric": revenue.pk})
    assert page.status_code == 409, page.status_code
    assert "duplicate a record that already exists" in page.content.decode()
    assert Alias.objects.count() == 1


def test_an_incomplete_fact_the_database_refuses_in_admin_is_a_400_page(curator: Client, unchecked: None) -> None:
    entity_make()
    fact = FactMetric.objects.create(
        entity_id="ACME_HK",
        metric_id=None,
        period_type="FY",
        period="2025",
        value=Decimal("1"),
        unit_id=None,
        source_doc="report.xlsx",
        locator="B2",
        review_status="pending",
    )
    page = curator.post(
        f"/admin/facts/factmetric/{fact.pk}/change/",
        {
            "sensitivity": "INTERNAL",
            "review_status": "approved",
            "review_note": "",
            # the disputes shown beside the fact (read only) still post their formset's counts
            "disputes-TOTAL_FORMS": "0",
            "disputes-INITIAL_FORMS": "0",
        },
    )
    assert page.status_code == 400, page.status_code
    assert FactMetric.objects.get(pk=fact.pk).review_status == "pending"


def test_a_duplicate_the_database_refuses_in_the_api_is_the_409_envelope(db: Any, unchecked: None) -> None:
    metric_make()
    client = client_for(curator_make())
    client.raise_request_exception = False
    body = {"kind": "metric", "text": "营业收入：", "code": "REVENUE"}
    assert client.post("/v1/glossary/aliases", body, format="json").status_code == 201
    again = client.post("/v1/glossary/aliases", {**body, "text": "营业收入:"}, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["type"] == "conflict" and again.json()["error"]["request_id"]
