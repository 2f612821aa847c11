from __future__ import annotations

import json
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import override_settings
from rest_framework.test import APIClient

from agent.api import AskApi
from agent.models import QueryLog
from agent.serialize import AskResultSerializer
from documents.models import Document

pytestmark = pytest.mark.django_db

KEYS = {
    "request_id",
    "question",
    "answer",
    "answer_kind",
    "route",
    "routing",
    "intent",
    "clarification",
    "facts",
    "tool_results",
    "sources",
    "faq",
    "computed",
    "guard",
    "conversation_id",
}


def test_ask_returns_the_spec_json_with_lineage(analyst: APIClient) -> None:
    response = analyst.post("/v1/ask", {"question": "中国内地FY2025的营收是多少"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == KEYS
    assert body["facts"] == [
        {
            "value": "96120.3",
            "unit": "CNY_M",
            "metric": "REVENUE",
            "entity": "ACME_CN",
            "period": "FY2025",
            "channel": "TOTAL",
            "source": {
                "doc": "ACME_FY2025_Annual_Results.pptx",
                "locator": "slide=3,table=1,row=营业收入,col=FY2025",
                "document_id": Document.objects.get(name="ACME_FY2025_Annual_Results.pptx").pk,
            },
            "valid_as_of": None,
        }
    ]
    assert body["sources"][0]["kind"] == "fact" and body["sources"][0]["doc"] == "ACME_FY2025_Annual_Results.pptx"
    assert body["routing"] == {"mode": "deterministic", "confidence": 1.0, "reason": "依据：指标 营业收入"}
    assert body["clarification"]["mode"] == "none" and body["guard"]["fabrication_guard_triggered"] is False
    assert response["X-Request-ID"] == body["request_id"]


def test_one_serializer_describes_and_produces_the_ask_object(analyst: APIClient) -> None:
    assert AskApi.OutputSerializer is AskResultSerializer
    body = analyst.post("/v1/ask", {"question": "香港和东南亚2024年和2025年的营收"}, format="json").json()
    assert body["intent"]["periods"] == ["FY2024", "FY2025"] and body["intent"]["metrics"] == []
    assert list(body["facts"][0]) == ["value", "unit", "metric", "entity", "period", "channel", "source", "valid_as_of"]


def test_scope_narrows_and_reference_date_moves_relative_periods(analyst: APIClient) -> None:
    body = analyst.post(
        "/v1/ask",
        {"question": "营收是多少", "scope": {"entity": "ACME_HK"}, "reference_date": "2025-06-30"},
        format="json",
    ).json()
    assert body["facts"][0]["entity"] == "ACME_HK" and body["facts"][0]["period"] == "FY2024"
    assert body["clarification"]["assumed"] == {"entity": None, "period": "FY2024"}


def test_assumptions_come_with_narrowing_options_that_carry_a_scope(analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "营收是多少"}, format="json").json()
    options = body["clarification"]["narrowing_options"]
    assert body["clarification"]["mode"] == "answer_with_assumptions"
    assert all(o["scope"] and o["question"] == "营收是多少" for o in options)
    narrowed = analyst.post(
        "/v1/ask", {"question": options[0]["question"], "scope": options[0]["scope"]}, format="json"
    ).json()
    assert narrowed["facts"][0]["entity"] == options[0]["scope"]["entity"]


@pytest.mark.parametrize(
    ("question", "offered"),
    [
        ("香港2025年3月营收", ["FY2025", "2025H1", "2025H2"]),  # H2 derived as FY − H1
        ("香港2025年3月毛利率", ["FY2025"]),  # a margin's H2 is never derived
        ("集团2025年Q5营收", ["FY2025", "2025H1", "2025H2", "2025Q1", "2025Q2", "2025Q3", "2025Q4"]),
    ],
)
def test_a_period_asked_back_offers_only_periods_that_answer(
    analyst: APIClient, question: str, offered: list[str]
) -> None:
    body = analyst.post("/v1/ask", {"question": question, "reference_date": "2026-03-15"}, format="json").json()
    assert body["clarification"]["mode"] == "ask_first" and body["facts"] == []
    options = body["clarification"]["narrowing_options"]
    assert [o["label"] for o in options] == offered
    for option in options:
        chosen = analyst.post(
            "/v1/ask",
            {"question": option["question"], "scope": option["scope"], "reference_date": "2026-03-15"},
            format="json",
        ).json()
        assert chosen["answer_kind"] == "answer" and (chosen["facts"] or chosen["computed"]), option


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"question": ""}, "question"),
        ({"question": "   \u200b  "}, "question"),
        ({"question": "x" * 2001}, "2000"),
        ({"question": 42}, "must be text"),
        ({"question": ["营收"]}, "must be text"),
        ({"question": "营收", "reference_date": "2026-13-45"}, "reference_date"),
        ({"question": "营收", "scope": {"entity": "NOPE"}}, "scope.entity"),
        ({"question": "营收", "scope": {"planet": "Mars"}}, "unknown scope key"),
        ({"question": "营收", "scope": {"period": "someday"}}, "scope.period"),
        ({}, "question"),
    ],
)
def test_bad_input_is_a_400_envelope(analyst: APIClient, body: dict, fragment: str) -> None:
    response = analyst.post("/v1/ask", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "bad_request" and fragment in error["message"] and error["request_id"]
    assert "Traceback" not in response.content.decode()


def test_malformed_json_is_a_400_envelope(analyst: APIClient) -> None:
    response = analyst.post("/v1/ask", "{not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["type"] == "bad_request"
    response = analyst.post("/v1/ask", "[1, 2]", content_type="application/json")
    assert response.status_code == 400


def test_authentication_is_required(demo) -> None:
    response = APIClient().post("/v1/ask", {"question": "营收是多少"}, format="json")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "not_authenticated"
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token nope")
    assert bad.post("/v1/ask", {"question": "营收"}, format="json").status_code == 401


def test_session_authentication_works(demo) -> None:
    client = APIClient(enforce_csrf_checks=False)
    client.force_login(demo["users"]["analyst"])
    assert client.post("/v1/ask", {"question": "营收是多少"}, format="json").status_code == 200


def test_a_body_over_the_size_limit_is_a_413_envelope(analyst: APIClient) -> None:
    from django.conf import settings

    body = json.dumps({"question": "营" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE})
    response = analyst.post("/v1/ask", data=body, content_type="application/json")
    assert response.status_code == 413 and response.json()["error"]["type"] == "request_too_large"


def test_requests_are_throttled_per_user(demo, analyst: APIClient) -> None:
    from django.conf import settings

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ask": "2/min"}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        from django.core.cache import cache
        from rest_framework.settings import api_settings
        from rest_framework.throttling import SimpleRateThrottle

        cache.clear()
        with mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", api_settings.DEFAULT_THROTTLE_RATES):
            codes = [analyst.post("/v1/ask", {"question": "营收是多少"}, format="json").status_code for _ in range(3)]
            assert codes == [200, 200, 429]
            other = APIClient()
            other.force_authenticate(demo["users"]["analyst_cleared"])
            assert other.post("/v1/ask", {"question": "营收是多少"}, format="json").status_code == 200
        cache.clear()


def test_a_database_failure_is_a_503_envelope(analyst: APIClient) -> None:
    with mock.patch("agent.api.question_ask", side_effect=OperationalError("connection refused")):
        response = analyst.post("/v1/ask", {"question": "营收是多少"}, format="json")
    assert response.status_code == 503
    assert response.json()["error"]["type"] == "database_unavailable"
    assert "connection refused" not in response.content.decode()


def test_an_unexpected_error_is_a_500_envelope_without_a_trace(analyst: APIClient) -> None:
    with mock.patch("agent.api.question_ask", side_effect=RuntimeError("secret internals")):
        client = analyst
        client.raise_request_exception = False
        response = client.post("/v1/ask", {"question": "营收是多少"}, format="json")
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "server_error"
    assert "secret internals" not in response.content.decode()


def test_every_question_writes_a_privacy_aware_trace(analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "中国内地FY2025的营收是多少"}, format="json").json()
    log = QueryLog.objects.get(request_id=body["request_id"])
    assert log.route == "structured" and log.slots["entity"] == ["ACME_CN"]
    assert log.tool_status_counts == {"found": 1} and log.question is None
    stored = str(vars(log))
    assert "96120.3" not in stored and "营业收入：" not in stored


@override_settings(RAGSPINE={**__import__("django.conf").conf.settings.RAGSPINE, "LOG_QUESTIONS": True})
def test_question_text_is_logged_only_when_enabled(analyst: APIClient) -> None:
    body = analyst.post("/v1/ask", {"question": "营收是多少"}, format="json").json()
    assert QueryLog.objects.get(request_id=body["request_id"]).question == "营收是多少"


def test_unknown_api_paths_are_json_404(analyst: APIClient) -> None:
    response = analyst.get("/v1/nothing-here")
    assert response.status_code == 404 and response.json()["error"]["type"] == "not_found"


def test_health_is_open_and_ready_needs_auth(demo, analyst: APIClient) -> None:
    assert APIClient().get("/v1/health").json() == {"status": "ok"}
    assert APIClient().get("/v1/ready").status_code == 401
    ready = analyst.get("/v1/ready").json()
    assert ready["status"] == "ready" and ready["glossary"]["entities"] == 8


def test_openapi_schema_is_served(analyst: APIClient) -> None:
    response = analyst.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert "/v1/ask" in schema["paths"] and "/v1/facts" in schema["paths"]


def _events(response) -> list[tuple[str, dict]]:
    import json as _json

    text = b"".join(response.streaming_content).decode()
    events = []
    for block in text.strip().split("\n\n"):
        name = block.split("\n")[0].removeprefix("event: ")
        data = _json.loads(block.split("\n", 1)[1].removeprefix("data: "))
        events.append((name, data))
    return events


def test_the_stream_sends_checked_text_in_order(analyst: APIClient) -> None:
    response = analyst.post("/v1/ask/stream", {"question": "香港收入为什么下降"}, format="json")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    events = _events(response)
    names = [name for name, _ in events]
    assert names[0] == "meta" and names[1] == "structured" and names[-2:] == ["sources", "done"]
    assert set(names[2:-2]) == {"delta"}
    done = events[-1][1]
    streamed = events[1][1]["text"] + "\n\n" + "".join(d["text"] for n, d in events if n == "delta")
    assert streamed == done["answer"] and done["facts"][0]["value"] == "24015.8"


def test_the_stream_splits_an_english_composite_answer_at_its_own_heading(analyst: APIClient) -> None:
    question = "Why did Hong Kong revenue decline in FY2025?"
    response = analyst.post("/v1/ask/stream", {"question": question}, format="json")
    events = _events(response)
    done = events[-1][1]
    assert done["route"] == "composite" and "\n\nExplanation:\n" in done["answer"]
    names = [name for name, _ in events]
    assert names[:2] == ["meta", "structured"] and set(names[2:-2]) == {"delta"}
    structured = events[1][1]["text"]
    deltas = [d["text"] for n, d in events if n == "delta"]
    assert "24,015.8" in structured and "Explanation:" not in structured
    assert deltas[0] == "Explanation:\n" and "Explanation:" not in "".join(deltas[1:])
    assert structured + "\n\n" + "".join(deltas) == done["answer"]


def test_the_stream_validates_like_ask(analyst: APIClient) -> None:
    response = analyst.post("/v1/ask/stream", {"question": ""}, format="json")
    assert response.status_code == 400 and response.json()["error"]["type"] == "bad_request"


def test_the_openapi_schema_generates_without_warnings(demo) -> None:
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", stdout=__import__("io").StringIO())


def _pending_hk_2026(sensitivity: str = "INTERNAL", document: Document | None = None) -> None:
    from decimal import Decimal

    from facts.models import FactMetric

    FactMetric.objects.create(
        metric_id="REVENUE",
        entity_id="ACME_HK",
        period_type="FY",
        period="2026",
        value=Decimal("26001.5"),
        unit_id="CNY_M",
        source_doc=document.name if document else "HK_Draft_Budget_FY2026.xlsx",
        locator="sheet=Budget,row=7",
        document=document,
        sensitivity=sensitivity,
        review_status=FactMetric.Review.PENDING,
    )


def test_a_not_found_answer_says_how_many_candidates_await_review(analyst: APIClient) -> None:
    _pending_hk_2026()
    _pending_hk_2026()
    body = analyst.post("/v1/ask", {"question": "香港FY2026的营收是多少"}, format="json").json()
    assert body["answer_kind"] == "refusal" and body["facts"] == []
    assert "未在事实表中找到。另有 2 个候选数字正在等待审核。" in body["answer"]
    assert "26,001.5" not in body["answer"] and "HK_Draft_Budget" not in body["answer"]
    english = analyst.post("/v1/ask", {"question": "What was ACME Hong Kong revenue in FY2026?"}, format="json")
    assert "Another 2 candidate figures are waiting for curator review." in english.json()["answer"]
    refused = analyst.post("/v1/ask", {"question": "香港FY2026营收同比增长多少"}, format="json").json()
    assert "ACME香港 FY2026 营业收入：另有 2 个候选数字正在等待审核。" in refused["answer"].splitlines()


def test_a_restricted_candidate_is_counted_only_for_the_cleared(analyst: APIClient, cleared: APIClient) -> None:
    board = Document.objects.create(
        name="HK_Board_Pack_FY2026.xlsx", sha256="e" * 64, sensitivity="RESTRICTED", status="ready"
    )
    _pending_hk_2026(document=board)  # INTERNAL itself, RESTRICTED by its document
    _pending_hk_2026(sensitivity="RESTRICTED")
    question = {"question": "香港FY2026的营收是多少"}
    hidden = analyst.post("/v1/ask", question, format="json").json()["answer"]
    assert hidden.startswith("查不到") and "等待审核" not in hidden
    shown = cleared.post("/v1/ask", question, format="json").json()["answer"]
    assert "另有 2 个候选数字正在等待审核。" in shown and "HK_Board_Pack" not in shown
