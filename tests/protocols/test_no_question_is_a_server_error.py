"""No question is a server error: whatever an analyst writes (long English instructions, figures,
mixed CJK and Latin, formulas, period words, percent signs, units; `tests.questions`), `/v1/ask`,
the OpenAI-compatible `/v1/chat/completions` and the MCP server's `ask` tool each answer it, and
never with a 5xx or an internal error. The questions the trace once failed on run first.

The generated questions run on SQLite only (they are many); the fixed ones of
`tests/agent/test_api_ask_trace.py` hold the trace on PostgreSQL too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from hypothesis import HealthCheck, example, given, settings
from rest_framework.test import APIClient

from tests.questions import QUESTIONS, TRACE_REGRESSIONS

pytestmark = pytest.mark.django_db
GENERATED = settings(
    max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def _ask(client: APIClient, question: str, **extra: Any) -> tuple[int, str]:
    response = client.post("/v1/ask", {"question": question, **extra}, format="json")
    return response.status_code, response.json()["answer"] if response.status_code == 200 else response.content.decode()


def _chat(client: APIClient, question: str, **extra: Any) -> tuple[int, str]:
    body = {"model": "ragspine", "messages": [{"role": "user", "content": question}], **extra}
    response = client.post("/v1/chat/completions", body, format="json")
    if response.status_code != 200:
        return response.status_code, response.content.decode()
    return 200, response.json()["choices"][0]["message"]["content"]


def _mcp(client: APIClient, question: str, **extra: Any) -> tuple[int, str]:
    """The `ask` tool over JSON-RPC. A tool error is a 200 with `isError`: reported here as a
    400 when it says why the input was refused (`Error executing tool ask: reference_date: …`),
    as a 500 when it says nothing (an internal error)."""
    call = {"name": "ask", "arguments": {"question": question, **extra}}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    response = client.post(
        "/mcp",
        data=json.dumps(message),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
    )
    if response.status_code != 200:
        return response.status_code, response.content.decode()
    result = response.json()["result"]
    text = result["content"][0]["text"]
    if result.get("isError"):
        return (400 if ": " in text else 500), text
    return 200, text


ENDPOINTS: dict[str, Callable[..., tuple[int, str]]] = {"ask": _ask, "chat": _chat, "mcp": _mcp}


@pytest.mark.skipif(connection.vendor != "sqlite", reason="generated questions run on SQLite; fixed ones on both")
@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_every_generated_question_is_answered(analyst: APIClient, endpoint: str) -> None:
    send = ENDPOINTS[endpoint]

    @GENERATED
    @given(question=QUESTIONS)
    @example(question=TRACE_REGRESSIONS[0])
    @example(question=TRACE_REGRESSIONS[1])
    @example(question=TRACE_REGRESSIONS[2])
    def answered(question: str) -> None:
        status, text = send(analyst, question, reference_date="2026-03-15")
        assert status == 200, (question, status, text)
        assert text.strip() and "Traceback" not in text

    answered()


@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_a_reference_date_no_period_can_be_read_from_is_bad_input_everywhere(analyst: APIClient, endpoint: str) -> None:
    status, text = ENDPOINTS[endpoint](analyst, "近三年营收是多少", reference_date="0001-01-01")
    assert status == 400 and "reference_date" in text and "1900-01-01" in text, text
