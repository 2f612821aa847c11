"""The hostile model of the reliability suite behind both protocols.

RAGSpine is wired to a local model that never calls a tool and writes invented figures into
every reply, with LLM routing and reranking on so it is asked at every step. Through the
OpenAI-compatible endpoint (blocking and streamed) and the MCP `ask` tool, as their real
SDKs read them, no answer may show one of its figures.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.protocols.support import mcp_http, openai_client, structured, token_for
from tests.providers import stub_servers as stubs
from tests.providers.hostile import HOSTILE_QUESTIONS, invented_in

pytestmark = pytest.mark.django_db


def test_no_invented_figure_reaches_either_protocol(
    hostile: stubs.StubServer, live_server: Any, demo: dict[str, Any]
) -> None:
    user = demo["users"]["analyst"]
    chat = openai_client(str(live_server.url), user)
    shown: dict[str, str] = {}
    removed = 0
    for question in HOSTILE_QUESTIONS:
        reply = chat.chat.completions.create(model="ragspine", messages=[{"role": "user", "content": question}])
        shown[f"chat: {question}"] = reply.choices[0].message.content
        removed += reply.ragspine["guard"]["numbers_unsupported"]
        stream = chat.chat.completions.create(
            model="ragspine", messages=[{"role": "user", "content": question}], stream=True
        )
        shown[f"stream: {question}"] = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

    token = token_for(user)

    async def session() -> None:
        async with mcp_http(f"{live_server.url}/mcp", token) as client:
            for question in HOSTILE_QUESTIONS:
                result = await client.call_tool("ask", {"question": question})
                assert structured(result)["answer"] == result.content[0].text
                shown[f"mcp: {question}"] = result.content[0].text

    asyncio.run(session())
    assert all(shown.values()), [name for name, text in shown.items() if not text]
    assert {name: invented_in(text) for name, text in shown.items() if invented_in(text)} == {}
    bodies = json.dumps(hostile.bodies(), ensure_ascii=False)
    assert '"tools"' in bodies and "按与问题的相关性" in bodies, "the model was not asked at every step"
    assert removed >= 8, "the grounding check removed too little for the model to have been heard"
