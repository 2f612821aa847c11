"""How MCP hosts talk to `/mcp` (issue Y): the TypeScript SDK's GET for a stream (reproduced
with httpx: Python has no such client), batches, refusals a client can match to its request,
and the tools' metadata as the `mcp` client SDK lists it (read-only hints, numeric bounds, the
ranking modes this server can serve) and English searches of Chinese documents."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from unittest import mock

import httpx
import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from tests.protocols.support import FIGURE, mcp_http, structured, token_for

pytestmark = pytest.mark.django_db
LIST = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}


@pytest.fixture
def site(live_server: Any, demo: dict[str, Any]) -> str:
    return str(live_server.url)


def _http(site: str, demo: dict[str, Any], **headers: str) -> httpx.Client:
    bearer = {"Authorization": f"Bearer {token_for(demo['users']['analyst'])}"}
    return httpx.Client(base_url=site, headers={**bearer, **headers}, timeout=30)


def test_a_hosts_get_for_a_stream_is_a_405_whatever_it_accepts(site: str, demo: dict[str, Any]) -> None:
    for accept in ("text/event-stream", "*/*", "application/json"):
        with _http(site, demo, Accept=accept) as http:
            stream = http.get("/mcp", headers={"mcp-protocol-version": "2025-06-18"})
            assert stream.status_code == 405 and "GET" not in stream.headers["Allow"], accept
            assert stream.json()["error"]["code"] == -32600
            assert http.delete("/mcp").status_code == 405


def test_a_batch_is_an_invalid_request_not_a_validation_dump(site: str, demo: dict[str, Any]) -> None:
    with _http(site, demo, Accept="application/json, text/event-stream") as http:
        batch = http.post("/mcp", json=[LIST, {**LIST, "id": 8}])
    assert batch.status_code == 400
    error = batch.json()["error"]
    assert error["code"] == -32600 and "batch" in error["message"] and "pydantic" not in batch.text.lower()


def test_refusals_before_the_server_carry_the_requests_id(site: str, demo: dict[str, Any]) -> None:
    with httpx.Client(base_url=site, timeout=30) as anonymous:
        refused = anonymous.post("/mcp", json=LIST, headers={"Accept": "application/json, text/event-stream"})
    assert refused.status_code == 401 and refused.json()["id"] == 7
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "1/min"}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        cache.clear()
        with (
            mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", api_settings.DEFAULT_THROTTLE_RATES),
            _http(site, demo, Accept="application/json, text/event-stream") as http,
        ):
            http.post("/mcp", json=LIST)
            throttled = http.post("/mcp", json={**LIST, "id": "later"})
        cache.clear()
    assert throttled.status_code == 429 and throttled.json()["id"] == "later"


def test_the_tools_say_they_only_read_and_state_their_bounds(site: str, demo: dict[str, Any]) -> None:
    token = token_for(demo["users"]["analyst"])

    async def listed() -> dict[str, Any]:
        async with mcp_http(f"{site}/mcp", token) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = asyncio.run(listed())
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.destructive_hint is False
    search = tools["search"].input_schema["properties"]
    assert (search["k"]["minimum"], search["k"]["maximum"]) == (1, 50)
    assert search["mode"]["enum"] == ["bm25", "hybrid"]  # no embedder here: no vector-only ranking offered
    page = tools["facts"].input_schema["properties"]
    assert (page["limit"]["minimum"], page["limit"]["maximum"], page["offset"]["minimum"]) == (1, 1000, 0)
    around = tools["document"].input_schema["properties"]["around"]
    assert (around["minimum"], around["maximum"]) == (0, 5)
    assert "Chinese" in tools["search"].description


def test_an_english_search_finds_chinese_passages(site: str, demo: dict[str, Any]) -> None:
    token = token_for(demo["users"]["analyst"])

    async def hits(query: str) -> list[dict[str, Any]]:
        async with mcp_http(f"{site}/mcp", token) as client:
            return structured(await client.call_tool("search", {"query": query, "k": 5}))["hits"]

    english, chinese = asyncio.run(hits("Hong Kong revenue decline")), asyncio.run(hits("香港 收入 下降"))
    assert english and chinese
    assert {hit["chunk_id"] for hit in english} & {hit["chunk_id"] for hit in chinese}
    with _http(site, demo) as http:
        assert http.get("/v1/search", params={"q": "Hong Kong revenue decline"}).json()


def test_an_english_search_that_finds_nothing_says_to_search_in_chinese(site: str, demo: dict[str, Any]) -> None:
    """English words that name nothing in the glossary never match Chinese text: the empty result
    says so and what to do, instead of an empty list a model reads as "no such document"; and an
    argument error names the tool's argument (`query`), not the REST parameter."""
    token = token_for(demo["users"]["analyst"])

    async def searched() -> tuple[dict[str, Any], dict[str, Any], Any]:
        async with mcp_http(f"{site}/mcp", token) as client:
            english = structured(await client.call_tool("search", {"query": "supply chain raw material costs"}))
            chinese = structured(await client.call_tool("search", {"query": "原材料成本"}))
            blank = await client.call_tool("search", {"query": ""})
            return english, chinese, blank

    english, chinese, blank = asyncio.run(searched())
    assert english["hits"] == [] and "Chinese" in english["note"]
    assert chinese["hits"] and "note" not in chinese
    assert blank.is_error and "query:" in blank.content[0].text and "q:" not in blank.content[0].text


def test_a_tool_answer_is_unchanged_by_the_metadata(site: str, demo: dict[str, Any]) -> None:
    token = token_for(demo["users"]["analyst"])

    async def asked() -> dict[str, Any]:
        async with mcp_http(f"{site}/mcp", token) as client:
            return structured(await client.call_tool("ask", {"question": FIGURE, "reference_date": "2026-03-15"}))

    answer = asyncio.run(asked())
    assert json.dumps(answer, ensure_ascii=False).count("96120.3") >= 1


def test_a_model_can_discover_the_codes_and_correct_a_wrong_one(site: str, demo: dict[str, Any]) -> None:
    token = token_for(demo["users"]["analyst"])

    async def discovered() -> tuple[dict[str, Any], Any, dict[str, Any]]:
        async with mcp_http(f"{site}/mcp", token) as client:
            names = structured(await client.call_tool("glossary", {}))
            wrong = await client.call_tool("facts", {"metric": "REVENU", "entity": "ACME_HK", "period": "FY2025"})
            right = structured(
                await client.call_tool(
                    "facts", {"metric": "营收", "entity": "Hong Kong", "period": "FY2025", "channel": "TOTAL"}
                )
            )
            return names, wrong, right

    names, wrong, right = asyncio.run(discovered())
    metrics = {m["code"]: m for m in names["metrics"]}
    assert metrics["REVENUE"]["unit"] and "营收" in metrics["REVENUE"]["aliases"]
    entities = {e["code"]: e for e in names["entities"]}
    assert "ACME_HK" in entities and "香港" in entities["ACME_HK"]["aliases"]
    assert all(e["kind"] != "external" for e in names["entities"])  # competitors are never offered
    assert {c["code"] for c in names["channels"]} >= {"TOTAL"}
    assert wrong.is_error and "Closest: REVENUE" in wrong.content[0].text
    assert [row["value"] for row in right["facts"]] == ["24015.8"]
    with _http(site, demo) as http:
        refused = http.get("/v1/facts", params={"metric": "REVENU"})
    assert refused.status_code == 400 and "Closest: REVENUE" in refused.text
    with _http(site, demo) as http:
        unknown = http.get("/v1/facts", params={"metric": "turnover"})
    assert unknown.status_code == 400 and "/v1/glossary/metrics" in unknown.text and "Closest" not in unknown.text
