"""The real clients the protocol tests drive: the `openai` SDK and the `mcp` client SDK, each
holding a user's API token, as an integrator's program would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult
from openai import OpenAI
from rest_framework.authtoken.models import Token

from tests.leakage import QUESTIONS, SEARCHES

FIGURE = "中国内地FY2025的营收是多少"
GROWTH = "集团2025年营收同比增长多少"
MISSING = "香港FY2026的营收是多少"
COMPETITOR = "竞安2025年营收是多少"
FIRST, FOLLOW_UP = "集团2025年营收是多少", "那香港呢？"


def token_for(user: Any) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def openai_client(base_url: str, user: Any) -> OpenAI:
    return OpenAI(base_url=f"{base_url}/v1", api_key=token_for(user), max_retries=0, timeout=30)


@asynccontextmanager
async def mcp_http(url: str, token: str, *, mode: str = "auto") -> AsyncIterator[Client]:
    """An MCP client session with RAGSpine's Streamable HTTP endpoint, as the token's user."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def shown(result: CallToolResult) -> str:
    """Everything a tool result shows a caller: its text and its structured content."""
    texts = [getattr(block, "text", "") for block in result.content]
    return "\n".join(texts) + json.dumps(result.structured_content or {}, ensure_ascii=False)


async def restricted_probe(client: Client, documents: dict[int, list[str]]) -> tuple[str, dict[str, set[int]]]:
    """Every tool on the leakage suite's probes (and `document` on each of `documents`' locators):
    all that was shown, and the documents, chunks and facts it named."""
    seen = json.dumps([tool.model_dump() for tool in (await client.list_tools()).tools], ensure_ascii=False)
    named: dict[str, set[int]] = {"document_ids": set(), "chunk_ids": set(), "fact_ids": set()}
    for question in QUESTIONS:
        result = await client.call_tool("ask", {"question": question})
        seen += shown(result).replace(question, "")
        named["document_ids"] |= {s["document_id"] for s in structured(result)["sources"] if s["document_id"]}
    for query in SEARCHES:
        for mode in ("bm25", "hybrid"):
            result = await client.call_tool("search", {"query": query, "k": 50, "mode": mode})
            seen += shown(result)
            named["chunk_ids"] |= {hit["chunk_id"] for hit in structured(result)["hits"]}
    for arguments in ({"limit": 1000}, {"entity": "ACME_SEA"}, {"metric": "NET_PROFIT", "limit": 1000}):
        result = await client.call_tool("facts", arguments)
        seen += shown(result)
        named["fact_ids"] |= {row["id"] for row in structured(result)["facts"]}
    for document_id, locators in documents.items():
        for locator in locators:
            result = await client.call_tool("document", {"document_id": document_id, "locator": locator})
            seen += shown(result)
            if not result.is_error:
                named["document_ids"].add(document_id)
    return seen, named
