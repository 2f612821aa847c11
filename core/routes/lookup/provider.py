"""The offline `MockProvider`, and the neutral message format every provider adapter speaks.

Messages handed to a provider are plain dicts:
`{"role": "user", "content": str}`,
`{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments"}]}`,
`{"role": "tool", "tool_call_id": str, "content": str}` (the JSON of a tool result).
Real adapters (Anthropic, OpenAI-compatible) translate this to their wire format.
"""

from __future__ import annotations

import json
from typing import Any

from core.ports import ProviderResponse, ToolCall

SLOTS_MARKER = "slots: "


def slots_message(question: str, slots: dict[str, str]) -> str:
    return f"{question}\n{SLOTS_MARKER}{json.dumps(slots, ensure_ascii=False)}"


class MockProvider:
    """Deterministic, keyless and offline.

    First turn: calls `query_metric` with the slots the parser put in the user message.
    Second turn: states the tool's status in words, with no figure (the agent renders figures).
    """

    name = "mock"

    def create_message(
        self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ProviderResponse:
        tool_results = [m for m in messages if m.get("role") == "tool"]
        if tool_results:
            statuses = [json.loads(m["content"]).get("status", "") for m in tool_results]
            return ProviderResponse(text="query_metric: " + ", ".join(statuses), stop_reason="end_turn")
        slots = _slots_from(messages)
        if slots is None or not tools:
            return ProviderResponse(text="", stop_reason="end_turn")
        return ProviderResponse(
            tool_calls=(ToolCall(id="call_1", name="query_metric", arguments=slots),),
            stop_reason="tool_use",
        )


def _slots_from(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    for message in messages:
        if message.get("role") != "user":
            continue
        for line in str(message.get("content", "")).splitlines():
            if line.startswith(SLOTS_MARKER):
                slots: dict[str, Any] = json.loads(line[len(SLOTS_MARKER) :])
                return slots
    return None
