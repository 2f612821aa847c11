"""Scripted LLM providers: each misbehaves in one specific way the agent must survive."""

from __future__ import annotations

from typing import Any

from core.ports import ProviderError, ProviderResponse, ToolCall


class ScriptedProvider:
    """Plays back a fixed list of responses and records every request it gets."""

    name = "scripted"

    def __init__(self, *responses: ProviderResponse | Exception):
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def create_message(
        self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> ProviderResponse:
        self.requests.append({"system": system, "messages": [dict(m) for m in messages], "tools": tools})
        if not self.responses:
            return ProviderResponse(text="")
        item = self.responses.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


class ExplodingProvider:
    """A provider that must never be called."""

    name = "exploding"

    def create_message(self, **kwargs: Any) -> ProviderResponse:
        raise AssertionError("the LLM was called on a path that must not call it")


class AlwaysCallsTool:
    name = "looping"

    def __init__(self, arguments: dict[str, Any]):
        self.arguments = arguments
        self.calls = 0

    def create_message(self, **kwargs: Any) -> ProviderResponse:
        self.calls += 1
        return ProviderResponse(tool_calls=(ToolCall(f"c{self.calls}", "query_metric", dict(self.arguments)),))


def tool_call(**arguments: Any) -> ProviderResponse:
    return ProviderResponse(
        text="", tool_calls=(ToolCall("call_1", "query_metric", arguments),), stop_reason="tool_use"
    )


def prose(text: str) -> ProviderResponse:
    return ProviderResponse(text=text)


def provider_error() -> ProviderError:
    return ProviderError("upstream timed out")
