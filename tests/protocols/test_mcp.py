"""The MCP server: the real `mcp` client SDK over Streamable HTTP against a running server, the
endpoint's JSON-RPC contract through the test client, and the gate every tool call passes."""

from __future__ import annotations

import asyncio
import json
from io import StringIO
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import override_settings
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from rest_framework.settings import api_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from documents.models import Document
from facts.models import FactMetric
from protocols.callers import CALLER, THROTTLED, Caller
from protocols.mcp_server import TOOLS, ToolGate
from retrieval.models import Chunk
from tests.leakage import restricted_rows, secrets_in
from tests.protocols.support import (
    COMPETITOR,
    FIGURE,
    FIRST,
    FOLLOW_UP,
    GROWTH,
    MISSING,
    mcp_http,
    restricted_probe,
    structured,
    token_for,
)

pytestmark = pytest.mark.django_db
DAY = "2026-03-15"


# -- the real client SDK over Streamable HTTP ---------------------------------------------------
def test_the_mcp_client_gets_answers_and_sources_over_http(live_server: Any, demo: dict[str, Any]) -> None:
    url, token = f"{live_server.url}/mcp", token_for(demo["users"]["analyst"])
    cell = FactMetric.objects.get(locator="slide=3,table=1,row=营业收入,col=FY2025")

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp_http(url, token) as client:
            listed = await client.list_tools()
            seen["tools"] = {tool.name: tool for tool in listed.tools}
            for name, question in (("figure", FIGURE), ("growth", GROWTH), ("missing", MISSING)):
                seen[name] = await client.call_tool("ask", {"question": question, "reference_date": DAY})
            seen["competitor"] = await client.call_tool("ask", {"question": COMPETITOR})
            for name, question in (("first", FIRST), ("follow_up", FOLLOW_UP)):
                arguments = {"question": question, "conversation_id": "mcp-1", "reference_date": DAY}
                seen[name] = await client.call_tool("ask", arguments)
            seen["search"] = await client.call_tool("search", {"query": "存储芯片 采购均价", "k": 3, "mode": "bm25"})
            hit = seen["hit"] = structured(seen["search"])["hits"][0]
            arguments = {"document_id": hit["document_id"], "locator": hit["locator"]}
            seen["passage"] = await client.call_tool("document", arguments)
            seen["facts"] = await client.call_tool(
                "facts", {"entity": "中国内地", "period": "FY2025", "metric": "营收", "channel": "TOTAL"}
            )
            arguments = {"document_id": cell.document_id, "locator": cell.locator}
            seen["cell"] = await client.call_tool("document", arguments)
            seen["wrong type"] = await client.call_tool("search", {"query": "芯片", "k": "many"})
            try:
                await client.call_tool("delete_everything", {})
            except MCPError as error:
                seen["unknown"] = error
        async with mcp_http(url, token, mode="legacy") as client:  # a client of the 2025 handshake
            seen["legacy"] = await client.call_tool("ask", {"question": FIGURE, "reference_date": DAY})
        return seen

    seen = asyncio.run(session())
    assert set(seen["tools"]) == {"ask", "search", "facts", "document", "glossary"}
    assert all(tool.output_schema for tool in seen["tools"].values())

    figure = structured(seen["figure"])
    assert "96,120.3" in seen["figure"].content[0].text and figure["answer"] == seen["figure"].content[0].text
    assert figure["route"] == "structured" and figure["answer_kind"] == "answer" and figure["request_id"]
    [fact] = figure["facts"]
    assert fact["value"] == "96120.3" and fact["source"] == {
        "doc": "ACME_FY2025_Annual_Results.pptx",
        "locator": "slide=3,table=1,row=营业收入,col=FY2025",
        "document_id": cell.document_id,
    }
    growth = structured(seen["growth"])
    assert growth["computed"][0]["kind"] == "growth" and growth["computed"][0]["display"] in growth["answer"]
    assert structured(seen["missing"])["answer_kind"] == "refusal" and not structured(seen["missing"])["facts"]
    competitor = structured(seen["competitor"])
    assert competitor["answer_kind"] == "refusal" and competitor["clarification"]["mode"] == "out_of_scope_entity"
    follow_up = structured(seen["follow_up"])
    assert follow_up["conversation_id"] == "mcp-1"
    assert [(f["entity"], f["value"]) for f in follow_up["facts"]] == [("ACME_HK", "24015.8")]

    passage, hit = structured(seen["passage"]), seen["hit"]
    assert passage["kind"] == "passage" and "存储芯片" in passage["passage"]["text"] and passage["after"]
    assert passage["document"]["id"] == hit["document_id"] and passage["locator"] == hit["locator"]
    facts = structured(seen["facts"])
    assert facts["count"] == 1 and facts["facts"][0]["value"] == "96120.3" and facts["facts"][0]["source"]["locator"]
    located = structured(seen["cell"])
    assert located["kind"] == "cell" and located["cell"]["value"] == "96120.3"
    assert located["column"] and all(other["period"] == "FY2025" for other in located["column"])
    assert any("中国内地" in chunk["text"] for chunk in located["place"])  # the slide's title: whose, which unit

    wrong = seen["wrong type"]
    assert wrong.is_error and "k:" in wrong.content[0].text and "integer" in wrong.content[0].text
    assert "Traceback" not in wrong.content[0].text
    assert seen["unknown"].error.code == -32602 and "delete_everything" in seen["unknown"].error.message
    assert "96,120.3" in seen["legacy"].content[0].text


@pytest.mark.parametrize("cleared", [False, True], ids=["uncleared", "cleared control"])
def test_the_restricted_probes_through_every_tool(live_server: Any, demo: dict[str, Any], cleared: bool) -> None:
    user = demo["users"]["analyst_cleared" if cleared else "analyst"]
    restricted = restricted_rows()
    documents = {
        pk: [
            *Chunk.objects.filter(document_id=pk).values_list("locator", flat=True),
            *FactMetric.objects.filter(document_id=pk).values_list("locator", flat=True),
        ]
        for pk in Document.objects.filter(sensitivity="RESTRICTED").values_list("pk", flat=True)
    }
    documents[max(Document.objects.values_list("pk", flat=True)) + 1] = ["page=1"]  # one that does not exist

    token = token_for(user)

    async def session() -> tuple[str, dict[str, set[int]]]:
        async with mcp_http(f"{live_server.url}/mcp", token) as client:
            return await restricted_probe(client, documents)

    seen, named = asyncio.run(session())
    leaks = secrets_in(seen) + [f"{kind} {pk}" for kind, pks in named.items() for pk in sorted(pks & restricted[kind])]
    assert bool(leaks) is cleared, leaks


# -- the JSON-RPC contract, through the test client ---------------------------------------------
def _rpc(client: APIClient, method: str, params: dict[str, Any] | None = None, **headers: str) -> Any:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return _post(client, json.dumps(message), **headers)


def _post(client: APIClient, body: str, **headers: str) -> Any:
    return client.post(
        "/mcp", data=body, content_type="application/json", HTTP_ACCEPT="application/json, text/event-stream", **headers
    )


def test_a_tool_call_over_plain_http_answers_as_the_tokens_user(analyst: APIClient, cleared: APIClient) -> None:
    arguments = {"name": "facts", "arguments": {"entity": "ACME_SEA", "metric": "NET_PROFIT"}}
    hidden = _rpc(analyst, "tools/call", arguments).json()["result"]
    shown_to_cleared = _rpc(cleared, "tools/call", arguments).json()["result"]
    assert hidden["structuredContent"]["count"] == 0 and shown_to_cleared["structuredContent"]["count"] == 1


def test_failures_before_the_server_are_jsonrpc_errors_with_their_status(demo: dict[str, Any]) -> None:
    anonymous = _rpc(APIClient(), "tools/list")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Bearer"
    assert anonymous.json()["jsonrpc"] == "2.0" and anonymous.json()["error"]["code"] == -32600
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")
    assert _rpc(stranger, "tools/list").status_code == 401

    analyst = APIClient()
    analyst.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(demo['users']['analyst'])}")
    huge = _rpc(
        analyst, "tools/call", {"name": "ask", "arguments": {"question": "营" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE}}
    )
    assert huge.status_code == 413 and huge.json()["error"]["code"] == -32600
    broken = _post(analyst, "{not json")
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    unknown_method = _rpc(analyst, "tools/destroy").json()
    assert unknown_method["error"]["code"] == -32601


def test_bad_tool_calls_say_what_is_wrong(analyst: APIClient) -> None:
    unknown = _rpc(analyst, "tools/call", {"name": "drop_tables", "arguments": {}}).json()
    assert (
        unknown["error"]["code"] == -32602 and "ask, search, facts, document, glossary" in unknown["error"]["message"]
    )
    cases = {
        "search": ({"query": "芯片", "k": [1]}, "k:"),
        "document": ({"document_id": "five", "locator": "page=1"}, "document_id:"),
        "ask": ({"question": "营收", "sql": "drop"}, "unknown argument(s): sql"),
        "facts": ({"period": "FY20x5"}, "period:"),
    }
    for name, (arguments, expected) in cases.items():
        result = _rpc(analyst, "tools/call", {"name": name, "arguments": arguments}).json()["result"]
        assert result["isError"] and expected in result["content"][0]["text"], (name, result)
        assert "Traceback" not in result["content"][0]["text"]
    blank = _rpc(analyst, "tools/call", {"name": "ask", "arguments": {"question": "  "}}).json()["result"]
    assert blank["isError"] and "question" in blank["content"][0]["text"]


def test_an_unexpected_failure_in_a_tool_shows_no_internals(analyst: APIClient) -> None:
    with mock.patch("protocols.tools.answer_reply", side_effect=RuntimeError("secret internals")):
        result = _rpc(analyst, "tools/call", {"name": "ask", "arguments": {"question": FIGURE}}).json()["result"]
    assert result["isError"] and "secret internals" not in json.dumps(result)


def test_the_apis_throttles_count_mcp_calls_too(demo: dict[str, Any], analyst: APIClient) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ask": "2/min"}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        cache.clear()
        with mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", api_settings.DEFAULT_THROTTLE_RATES):
            assert analyst.post("/v1/ask", {"question": FIGURE}, format="json").status_code == 200
            ask = {"name": "ask", "arguments": {"question": FIGURE}}
            assert _rpc(analyst, "tools/call", ask).status_code == 200
            throttled = _rpc(analyst, "tools/call", ask)
            assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0
            assert throttled.json()["error"]["code"] == THROTTLED
            assert _rpc(analyst, "tools/call", {"name": "facts", "arguments": {}}).status_code == 200
        cache.clear()


# -- the gate, as stdio runs it (no HTTP view counts there) -------------------------------------
def test_the_gate_throttles_per_message_where_no_view_does(demo: dict[str, Any]) -> None:
    gate = ToolGate({tool.name: tool for tool in TOOLS}, throttle=True)
    ok = CallToolResult(content=[])

    async def call_next(ctx: Any) -> CallToolResult:
        return ok

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        ctx = SimpleNamespace(request_id=1, method="tools/call", params={"name": name, "arguments": arguments})
        return await gate(ctx, call_next)  # type: ignore[arg-type]

    async def calls() -> list[Any]:
        CALLER.set(Caller(user=demo["users"]["analyst"]))
        outcomes = []
        for name in ("ask", "ask", "search", "ask"):
            try:
                outcomes.append(await call(name, {"question": "营收"} if name == "ask" else {"query": "营收"}))
            except MCPError as error:
                outcomes.append(error.error.code)
        return outcomes

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ask": "2/min"}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        cache.clear()
        with mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", api_settings.DEFAULT_THROTTLE_RATES):
            assert asyncio.run(calls()) == [ok, ok, ok, THROTTLED]
        cache.clear()


# -- the stdio command's start (its sessions: test_mcp_stdio.py) --------------------------------
@pytest.mark.parametrize(("token", "says"), [("", "RAGSPINE_API_TOKEN"), ("not-a-token", "not valid")])
def test_the_stdio_command_will_not_start_without_a_valid_token(
    demo: dict[str, Any], monkeypatch: pytest.MonkeyPatch, token: str, says: str
) -> None:
    monkeypatch.setenv("RAGSPINE_API_TOKEN", token)
    out = StringIO()
    with pytest.raises(CommandError, match=says):
        call_command("mcp", stdout=out)
    assert out.getvalue() == ""
