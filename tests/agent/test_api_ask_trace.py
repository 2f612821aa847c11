"""`POST /v1/ask` never fails on its trace: a rule of the trace drops or redacts what it must not
store (an unrecognised term too long or holding a digit, a period no label holds), and the
answer comes back with its `QueryLog` row. Runs on SQLite and, with `RAGSPINE_TEST_DB=postgres`,
on PostgreSQL, whose columns refuse more than SQLite's."""

from __future__ import annotations

import logging
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from agent.models import QueryLog
from core.model.trace import TraceRejected
from tests.questions import TRACE_REGRESSIONS

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("log_questions", [False, True], ids=["without the question", "with the question"])
@pytest.mark.parametrize("question", TRACE_REGRESSIONS)
def test_a_question_whose_terms_the_trace_refuses_is_answered(
    analyst: APIClient, question: str, log_questions: bool
) -> None:
    with override_settings(RAGSPINE={**settings.RAGSPINE, "LOG_QUESTIONS": log_questions}):
        response = analyst.post("/v1/ask", {"question": question}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["answer"] and body["question"] == question
    row = QueryLog.objects.get(request_id=body["request_id"])
    assert (row.route, row.answer_kind) == (body["route"], body["answer_kind"])
    assert not any(len(term) > 32 or any(ch.isdigit() for ch in term) for term in row.unrecognized_terms)
    assert row.question == (question if log_questions else None)


def test_a_trace_the_record_still_refuses_is_logged_and_the_answer_given(
    analyst: APIClient, caplog: pytest.LogCaptureFixture
) -> None:
    refused = TraceRejected("an unrecognised term must be short printable text with no digits")
    with mock.patch("agent.services.trace_from_result", side_effect=refused), caplog.at_level(logging.ERROR):
        response = analyst.post("/v1/ask", {"question": "中国内地FY2025的营收是多少"}, format="json")
    assert response.status_code == 200 and "96,120.3" in response.json()["answer"]
    assert not QueryLog.objects.filter(request_id=response.json()["request_id"]).exists()
    [record] = [r for r in caplog.records if r.name == "agent.services"]
    assert response.json()["request_id"] in record.getMessage() and str(refused) in record.getMessage()


@pytest.mark.parametrize("day", ["0001-01-01", "1899-12-31", "3000-01-01", "9999-12-31"])
def test_a_reference_date_no_period_can_be_read_from_is_bad_input(analyst: APIClient, day: str) -> None:
    response = analyst.post("/v1/ask", {"question": "近三年营收是多少", "reference_date": day}, format="json")
    assert response.status_code == 400
    error: dict[str, Any] = response.json()["error"]
    assert error["type"] == "bad_request" and "reference_date" in error["message"]


@pytest.mark.parametrize("day", ["1900-01-01", "2999-12-31"])
def test_the_reference_dates_at_the_bounds_are_answered(analyst: APIClient, day: str) -> None:
    response = analyst.post("/v1/ask", {"question": "近三年营收是多少", "reference_date": day}, format="json")
    assert response.status_code == 200
    row = QueryLog.objects.get(request_id=response.json()["request_id"])
    assert len(row.slots["period"]) == 3
